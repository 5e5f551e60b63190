#!/usr/bin/env python3
"""Inputs of the benchmark, all derived from the module file, deterministic.

gen.py capture KO BASE              capture: the module's SHF_ALLOC sections
                                    laid out from BASE (.text first), aligned
gen.py random KO N SEED             N uniform offsets in .text (hex, one a line)
gen.py returns KO                   offsets in .text right after each call
gen.py oops KO N SEED               a 6.1-style oops with N btrfs frames
gen.py batch KO COUNT               COUNT oopses of 10 to 40 frames, seeds 1..
gen.py callsite < OOPS              the same oops with each call-trace offset
                                    minus 1 (the call instruction itself)
"""
import random
import re
import subprocess
import sys

SKIP = {".modinfo", "__versions"}  # the kernel does not load these


def sections(ko):
    out = subprocess.run(["readelf", "-SW", ko], check=True,
                         capture_output=True, text=True).stdout
    secs = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+"
                     r"([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\S*)\s+"
                     r"(\d+)\s+(\d+)\s+(\d+)", line)
        if not m:
            continue
        name, typ, flags = m.group(2), m.group(3), m.group(8)
        size, align = int(m.group(6), 16), int(m.group(11))
        if "A" in flags and size and typ != "NULL":
            secs.append((name, size, max(align, 1), flags))
    return secs


def text_size(ko):
    return next(s for n, s, _, _ in sections(ko) if n == ".text")


def capture(ko, base):
    mod = re.sub(r"\.ko.*$", "", ko.rsplit("/", 1)[-1]).replace("-", "_")
    secs = [s for s in sections(ko) if s[0] not in SKIP]
    secs.sort(key=lambda s: s[0] != ".text")  # .text at BASE
    addr = base
    print("modsect-capture 1")
    print(f"module {mod} live")
    for name, size, align, _ in secs:
        align = max(align, 16)
        addr = (addr + align - 1) // align * align
        print(f"section {mod} {name} 0x{addr:x}")
        addr += size


def rand(ko, n, seed):
    size = text_size(ko)
    r = random.Random(seed)
    print("\n".join(f"{r.randrange(size):x}" for _ in range(n)))


def call_returns(ko):
    """Offsets in .text of the instruction after each call."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".text",
                          ko], check=True, capture_output=True,
                         text=True).stdout
    insns = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2)))
    rets = []
    for (a, op), (b, _) in zip(insns, insns[1:]):
        if op.startswith("call"):
            rets.append(b)
    return rets


def returns(ko):
    print("\n".join(f"{a:x}" for a in call_returns(ko)))


def text_funcs(ko):
    """Function symbols of .text: name -> (offset, size)."""
    out = subprocess.run(["readelf", "-sW", ko], check=True,
                         capture_output=True, text=True).stdout
    shndx = None  # section index of .text
    sh = subprocess.run(["readelf", "-SW", ko], check=True,
                        capture_output=True, text=True).stdout
    for line in sh.splitlines():
        m = re.match(r"\s*\[\s*(\d+)\]\s+\.text\s", line)
        if m:
            shndx = m.group(1)
    funcs = {}
    count = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == "FUNC" and f[6] == shndx:
            count[f[7]] = count.get(f[7], 0) + 1
            funcs[f[7]] = (int(f[1], 16), int(f[2]))
    # names defined twice (static functions of two files) are ambiguous
    return {n: v for n, v in funcs.items() if count[n] == 1 and v[1] > 0}


def oops(ko, n, seed, tables=None):
    funcs, frames = tables or oops_tables(ko)
    print_oops(funcs, frames, n, seed)


def batch(ko, count):
    """count reports of 10 to 40 frames, seeds 1..count, one stream."""
    tables = oops_tables(ko)
    for s in range(1, count + 1):
        oops(ko, 10 + s % 31, s, tables)


def oops_tables(ko):
    funcs = text_funcs(ko)
    starts = sorted(funcs.items(), key=lambda kv: kv[1][0])
    rets = call_returns(ko)
    # each return address in the function that contains it (not at its end)
    import bisect
    keys = [v[0] for _, v in starts]
    frames = []
    for a in rets:
        i = bisect.bisect_right(keys, a) - 1
        if i < 0:
            continue
        name, (lo, size) = starts[i]
        if lo < a < lo + size:
            frames.append((name, a - lo, size))
    return funcs, frames


def print_oops(funcs, frames, n, seed):
    r = random.Random(seed)
    pick = r.sample(frames, n)
    print("[ 1234.567890] BUG: kernel NULL pointer dereference, address: 0000000000000008")
    print("[ 1234.567891] #PF: supervisor read access in kernel mode")
    print("[ 1234.567892] #PF: error_code(0x0000) - not-present page")
    print("[ 1234.567893] PGD 0 P4D 0 ")
    print("[ 1234.567894] Oops: 0000 [#1] PREEMPT SMP NOPTI")
    print("[ 1234.567895] CPU: 1 PID: 4242 Comm: bench Not tainted 6.1.0-57-amd64 #1  Debian 6.1.192-3")
    print("[ 1234.567896] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014")
    lo, size = funcs["btrfs_sync_file"]
    print(f"[ 1234.567897] RIP: 0010:btrfs_sync_file+0x20/0x{size:x} [btrfs]")
    print("[ 1234.567899] RSP: 0018:ffffb4c0c0b3fd70 EFLAGS: 00010246")
    print("[ 1234.567900] Call Trace:")
    print("[ 1234.567901]  <TASK>")
    for name, off, size in pick:
        print(f"[ 1234.567902]  {name}+0x{off:x}/0x{size:x} [btrfs]")
    print("[ 1234.567903]  </TASK>")
    print("[ 1234.567904] Modules linked in: btrfs blake2b_generic xor raid6_pq zstd_compress libcrc32c crc32c_generic")
    print("[ 1234.567905] ---[ end trace 0000000000000000 ]---")


def callsite():
    on = False
    for line in sys.stdin:
        if "Call Trace:" in line:
            on = True
        if on:
            line = re.sub(r"\+0x([0-9a-f]+)/",
                          lambda m: f"+0x{int(m.group(1), 16) - 1:x}/", line)
        sys.stdout.write(line)


if __name__ == "__main__":
    cmd, ko = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
    if cmd == "callsite":
        callsite()
    elif cmd == "capture":
        capture(ko, int(sys.argv[3], 16))
    elif cmd == "random":
        rand(ko, int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "returns":
        returns(ko)
    elif cmd == "oops":
        oops(ko, int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "batch":
        batch(ko, int(sys.argv[3]))
    else:
        sys.exit(__doc__)
