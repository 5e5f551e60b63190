#!/bin/bash
# arm64 `bt` (issue #31): modsect's tables made from the kernel's code
# (lib/unwind/a64.c) against gdb with Debian's debug vmlinux of the same
# build, at the same stops of one boot, and what making those tables costs.
#
#   bench/unwind-arm64.sh              (as root; both parts)
#   bench/unwind-arm64.sh bt           (only the boots)
#   bench/unwind-arm64.sh cost         (only the host timings)
#   BENCH_RUNS=7 BENCH_CPUS="cortex-a57 max" bench/unwind-arm64.sh
#
# bt: per CPU model (default cortex-a57, no pointer authentication, and
# max, with it), one boot of tests/vm/unwind.sh with
# MODSECT_VM_UNWIND_VMLINUX set to the debug vmlinux (its session
# "vmlinux": gdb with the debug vmlinux and modsect's module symbols, the
# modules' unwind tables removed). Then a table per stop: the kernel's
# frames, and for modsect's sessions ("memory": tables made from the code
# read over the gdbstub; "image": from the vmlinuz) and the debug vmlinux's,
# the frames right from the first on and how the walk ended.
#
# cost: runs alternate, BENCH_RUNS rounds (default 5): tests' kimage-dump
# (opens the image: its kallsyms and BTF) and a64dump (the same, then
# decodes every function), modsect kallsyms on the image's own kallsyms
# as a capture without and with --kernel-image. Per variant the median
# and min-max; the decode is a64dump - kimage-dump per round.
#
# Fetched once, never committed: the kernel (tests/vm/kernels.sh, into
# tests/vm/out/kernels/arm64) and linux-image-REL-dbg:arm64 (about 800 MB;
# only its vmlinux is kept, in bench/out/unwind-arm64/, the .deb deleted).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out/unwind-arm64
runs=${BENCH_RUNS:-5}
cpus=${BENCH_CPUS:-"cortex-a57 max"}
part=${1:-all}
mkdir -p "$out"
make -s -C "$top" modsect build/tests/a64dump build/tests/kimage-dump
cp "$top/modsect" "$out/modsect"
M=$out/modsect

# The kernel and its release, as the VM tests fetch them (once: the tree's
# .stamp names the package).
krel=$(sed -n 's/^linux-image-\([^ ]*\) .*/\1/p' "$top/tests/vm/out/kernels/arm64/.stamp" 2>/dev/null || true)
[ -n "$krel" ] || krel=$(
	export MODSECT_VM_KERNEL=arm64
	# shellcheck source=tests/vm/lib.sh
	. "$top/tests/vm/lib.sh"
	vm_profile_pkgs >&2
	vm_fetch_kernel >&2
	echo "$VM_KREL"
)
img=$top/tests/vm/out/kernels/arm64/boot/vmlinuz-$krel

# The debug vmlinux of the same build: only the file itself is kept.
dbg=$out/vmlinux-$krel
if [ ! -s "$dbg" ]; then
	rm -rf "$out/deb"
	mkdir -p "$out/deb"
	(cd "$out/deb" && apt-get download -q "linux-image-$krel-dbg:arm64") 2>&1 |
		{ grep -v '^W: Download is performed unsandboxed' >&2 || true; }
	dpkg-deb --fsys-tarfile "$out"/deb/*.deb |
		tar -x -O "./usr/lib/debug/boot/vmlinux-$krel" >"$dbg.tmp"
	mv "$dbg.tmp" "$dbg"
	rm -rf "$out/deb"
fi

# summarize LOG W: the table of one boot from unwind.sh's output and its
# work directory (the walks, BT/BTEND lines).
summarize() {
	python3 - "$1" "$2" <<'EOF_PY'
import re, sys

log, w = sys.argv[1], sys.argv[2]
sessions = ("memory", "image", "vmlinux")
kern, res = {}, {}
lines = [l.rstrip("\n") for l in open(log, errors="replace")]
for i, l in enumerate(lines):
    l = re.sub(r"^(ok - unwind: |not ok - unwind: |bench: right: |bench: WRONG: )", "", l)
    m = re.match(r"^\[(\w+)\] (\w+): (.*)$", l)
    if not m or m.group(1) not in sessions:
        continue
    sess, stop, rest = m.groups()
    k = re.match(r"kernel trace parsed: (\d+) frames", rest) or \
        re.match(r"kernel WARN trace parsed: RIP \S+, (\d+) frames", rest)
    if k:
        kern[stop] = int(k.group(1))
        continue
    m = re.search(r"== the kernel's trace, (\d+) frames", rest)
    if m:
        res[(sess, stop)] = (int(m.group(1)), int(m.group(1)))
        kern.setdefault(stop, int(m.group(1)))
        continue
    m = re.search(r"stopped in (\S+); gdb's bt has no do_idle", rest)
    if m:
        res[(sess, stop)] = (0, kern.get("idle1", 0))
        continue
    m = re.search(r"\((\d+) right of (\d+);", rest)
    if m:
        res[(sess, stop)] = (int(m.group(1)), int(m.group(2)))
        kern.setdefault(stop, int(m.group(2)))
        continue
    m = re.search(r"ends with the kernel's (\d+) frames after (\S+) \((\d+) frames before\)", rest)
    if m:
        res[(sess, stop)] = ("warn", int(m.group(3)), int(m.group(1)), int(m.group(1)))
        continue
    if rest.startswith("gdb's bt does not end with the trap's entry"):
        # the side-by-side rows that follow: gdb's frames against the
        # kernel's aligned on the end; count gdb's frames from the trap
        # entry on that are the kernel's, in order
        got, want = [], []
        for r in lines[i + 1:]:
            if re.match(r"^(ok|not ok) - |^bench: (right|WRONG): |^bench: in-", r):
                break
            r = r[11:] if r.startswith("bench:     ") else r[4:]
            if re.match(r"^\d+ ", r):
                got.append(r[4:44].strip())
                want.append(r[44:].replace("<--", "").strip())
            elif got:
                break
        kref = [x for x in want if x]
        trap = [j for j, g in enumerate(got) if g in ("el1h_64_sync",)]
        after = got[trap[0] + 1:] if trap else []
        n = 0
        while n < min(len(after), len(kref)) and after[n] == kref[n]:
            n += 1
        res[(sess, stop)] = ("warn", trap[0] + 1 if trap else -len([x for x in got if x and x != "??"]), n, len(kref))


def walk(sess, stop):
    fr, end = [], "?"
    try:
        f = open("%s/%s.out" % (w, sess), errors="replace")
    except OSError:
        return None
    for l in f:
        p = l.split()
        if len(p) > 3 and p[0] == "BT" and p[1] == stop:
            fr.append(p[3] if len(p) < 7 or p[6] == "-" else "%s(%s)" % (p[3], p[6]))
        elif len(p) > 2 and p[0] == "BTEND" and p[1] == stop:
            end = " ".join(p[3:])
    return fr, end


stops = [s for s in ("stack", "timer", "hrtimer", "work", "warn", "idle1", "idle2", "idle3") if s in kern or any(k[1] == s for k in res)]
print("| stop | kernel's frames | " + " | ".join("%s: right, then" % s for s in sessions) + " |")
print("|---|---:|" + "---|" * len(sessions))
for stop in stops:
    row = []
    for sess in sessions:
        r = res.get((sess, stop))
        g = walk(sess, stop)
        if r is None or g is None:
            row.append("-")
            continue
        fr, end = g
        last = fr[-1] if fr else "none"
        q = sum(1 for f in fr if f.startswith("??"))
        if q:
            end = "%d '??' frame%s, %s" % (q, "" if q == 1 else "s", end)
        if r[0] == "warn":
            to = "%d to the trap" % r[1] if r[1] > 0 else "%d, no trap frame" % -r[1]
            row.append("%s, then %d of %d; last %s, %s" % (to, r[2], r[3], last, end))
        else:
            row.append("%d of %d; last %s, %s" % (r[0], r[1], last, end))
    k = kern.get(stop, "")
    print("| %s | %s | %s |" % (stop, k, " | ".join(row)))
for l in lines:
    if l.startswith("bench: in-") or re.match(r"^\d+ passed, \d+ failed", l):
        print(l)
EOF_PY
}

if [ "$part" = all ] || [ "$part" = bt ]; then
	for cpu in $cpus; do
		log=$out/bt-$cpu.log
		echo "== bt, -cpu $cpu ($(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
		echo "MODSECT_VM_CPU=$cpu MODSECT_VM_KERNEL=arm64 MODSECT_VM_UNWIND_VMLINUX=$dbg MODSECT=$M tests/vm/unwind.sh"
		MODSECT_VM_OUT=$out/vm-$cpu MODSECT_VM_CPU=$cpu MODSECT_VM_KERNEL=arm64 \
			MODSECT_VM_UNWIND_VMLINUX=$dbg MODSECT=$M \
			"$top/tests/vm/unwind.sh" >"$log" 2>&1 || true
		summarize "$log" "$out/vm-$cpu/run/unwind"
		echo
	done
fi

[ "$part" = all ] || [ "$part" = cost ] || exit 0
kd=$top/build/tests/kimage-dump
a64=$top/build/tests/a64dump
"$kd" --syms "$img" >"$out/kd.txt"
{
	echo "modsect-capture 1"
	echo "release $krel"
	echo "machine aarch64"
	echo "module fake live"
	echo "section fake .text 0xffff800001000000"
	grep -E '^[0-9a-f]{16} [A-Za-z] ' "$out/kd.txt" | sed 's/^/core /'
} >"$out/core.cap"
export XDG_CACHE_HOME=$out/cache
# one NAME COMMAND...: its wall time, by $EPOCHREALTIME
one() {
	local name=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	"$@" >/dev/null
	t1=$EPOCHREALTIME
	echo "$name $t0 $t1" >>"$out/times.tsv"
}
: >"$out/times.tsv"
one warm "$a64" "$img"
for ((i = 0; i < runs; i++)); do
	one kimage-dump "$kd" "$img"
	one a64dump "$a64" "$img"
	one kallsyms "$M" kallsyms --capture "$out/core.cap" -o "$out/sym.elf"
	one kallsyms-image "$M" kallsyms --capture "$out/core.cap" --kernel-image "$img" -o "$out/img.elf"
done
echo "== cost ($(date -u '+%Y-%m-%d %H:%M UTC'), $runs rounds, load $(cut -d' ' -f1-3 /proc/loadavg))"
"$a64" "$img" | head -1
python3 - "$out/times.tsv" <<'EOF_PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    n, a, b = line.split()
    if n != "warm":
        t.setdefault(n, []).append(float(b) - float(a))
print("| variant | median s | min-max s | runs |")
print("|---|---:|---|---:|")
for n in ("kimage-dump", "a64dump", "kallsyms", "kallsyms-image"):
    v = t[n]
    print("| %s | %.3f | %.3f-%.3f | %d |" % (n, statistics.median(v), min(v), max(v), len(v)))
for a, b, what in (("a64dump", "kimage-dump", "decoding every function (a64dump - kimage-dump)"),
                   ("kallsyms-image", "kallsyms", "what --kernel-image adds to modsect kallsyms (the image read, the CFI"
                    " made, the BTF's types as DWARF; kallsyms-image - kallsyms)")):
    d = [x - y for x, y in zip(t[a], t[b])]
    print("%s, per round: median %.3f s (%.3f-%.3f)" % (what, statistics.median(d), min(d), max(d)))
EOF_PY
echo "commands: $kd IMAGE; $a64 IMAGE; modsect kallsyms --capture core.cap [--kernel-image IMAGE] -o X.elf"
for f in img.elf sym.elf; do
	printf '%s: %s bytes' "$f" "$(stat -c %s "$out/$f")"
	readelf -S -W "$out/$f" | sed -n 's/.*\] \(\.debug_[a-z]*\) *PROGBITS *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\).*/\1 \2/p' |
		while read -r n z; do printf ', %s %d' "$n" "$((16#$z))"; done
	echo
done
printf 'the debug vmlinux: %s bytes' "$(stat -L -c %s "$dbg")"
readelf -S -W "$dbg" | sed -n 's/.*\.debug_frame *PROGBITS *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\).*/, .debug_frame 0x\1/p'
