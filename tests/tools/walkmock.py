#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""walkmock.py SCRIPT: runs the kernel's stack walk of a modsect gdb script
(lib/emit/stkscript.c) on made-up stacks, with a stand-in for gdb's
Python API (the few calls the walk makes), and prints one line per case:
"CASE name: what the unwinder gave" (registers it saved, its frame id,
or "declined"). The test (tests/t-walk.sh) compares them with what the
kernel's own unwinder would do on those stacks.

Memory is a dict of bytes, and zeros in the stacks' pages (0x1000 up to
0x10000); a read elsewhere raises gdb.MemoryError, as gdb does for
memory the target cannot read.
"""
import struct
import sys
import types

MEM = {}
SYMS = []  # (start, end, name)
ORDER = "<"


class GdbError(RuntimeError):
    pass


class MemoryError_(GdbError):
    pass


class Value(int):
    def cast(self, _t):
        return Value(int(self))

    @property
    def type(self):
        return "t"


def read_memory(a, n):
    """MEM's bytes; 0 where nothing was put in the stacks' pages, a
    MemoryError elsewhere (and in the code's, as gdb for unmapped memory)."""
    out = b""
    for i in range(n):
        if a + i not in MEM and not 0x1000 <= a + i < 0x10000:
            raise MemoryError_("Cannot access memory at address 0x%x" % (a + i))
        out += bytes([MEM.get(a + i, 0)])
    return out


def execute(cmd, to_string=False):
    assert cmd.startswith("info symbol ")
    pc = int(cmd.split()[2], 16)
    for lo, hi, name in SYMS:
        if lo <= pc < hi:
            return "%s in section .text\n" % name if pc == lo else \
                "%s + %d in section .text\n" % (name, pc - lo)
    raise GdbError("No symbol matches")


gdb = types.ModuleType("gdb")
gdb.error = GdbError
gdb.MemoryError = MemoryError_
gdb.Value = Value
gdb.execute = execute
gdb.selected_inferior = lambda: types.SimpleNamespace(read_memory=read_memory)
gdb.selected_thread = lambda: types.SimpleNamespace(ptid=(1, 1, 0))
gdb.events = types.SimpleNamespace(stop=types.SimpleNamespace(connect=lambda f: None))
unw = types.ModuleType("gdb.unwinder")
REGISTERED = []


class Unwinder:
    def __init__(self, name):
        self.name = name


unw.Unwinder = Unwinder
unw.register_unwinder = lambda loc, u, replace=False: REGISTERED.append(u)
gdb.unwinder = unw
sys.modules["gdb"] = gdb
sys.modules["gdb.unwinder"] = unw


class Info:
    def __init__(self, fid):
        self.fid, self.regs = fid, {}

    def add_saved_register(self, r, v):
        self.regs[r] = int(v)


class Pending:
    def __init__(self, level, regs):
        self.lvl, self.regs = level, regs

    def level(self):
        return self.lvl

    def read_register(self, r):
        if r not in self.regs:
            return Value(0)
        return Value(self.regs[r])

    def create_unwind_info(self, fid):
        return Info(fid)


def poke(addr, val, size=8):
    fmt = {8: "Q", 4: "I"}[size]
    for i, b in enumerate(struct.pack(ORDER + fmt, val)):
        MEM[addr + i] = b


def show(name, ui):
    if ui is None:
        print("CASE %s: declined" % name)
        return
    keep = ("pc", "pswa", "r1", "r15", "r14", "lr", "sp", "cpsr", "msr", "r3", "r31")
    regs = " ".join("%s=0x%x" % (r, ui.regs[r]) for r in keep if r in ui.regs)
    print("CASE %s: %s id=0x%x/0x%x n=%d" % (name, regs, int(ui.fid.sp), int(ui.fid.pc), len(ui.regs)))


def load(script, kind):
    text = open(script).read()
    start = text.index("# the kernel's own stack walk (%s)" % kind)
    body = text[start:].split("\npython\n", 1)[1].split("\nend\n", 1)[0]
    ns = {}
    exec(compile(body, script, "exec"), ns)
    return ns, REGISTERED[-1]


def s390x(script):
    global ORDER
    ORDER = ">"
    ns, u = load(script, "s390x")
    SYMS[:] = [(0x100000, 0x100100, "caller_fn"), (0x100100, 0x100200, "leaf_fn"),
               (0x100200, 0x100300, "ext_int_handler")]
    S, B = 0x8000, 0x8100
    poke(S + 152, B)
    poke(B + 136, 0x100044)
    show("s390x back chain", u(Pending(1, {"pc": 0x100120, "r15": S})))
    show("s390x level 0", u(Pending(0, {"pc": 0x100120, "r15": S})))
    E = 0x9000
    poke(E + 152, 0)
    poke(E + 168, 0x0704000180000000)   # kernel PSW mask
    poke(E + 176, 0x100100)             # addr: leaf_fn's first byte
    for i in range(16):
        poke(E + 184 + 8 * i, 0x1000 + i)
    poke(E + 184 + 8 * 15, 0x9800)      # r15 above the entry's frame
    poke(E + 184 + 8 * 14, 0x100066)    # r14: return into caller_fn
    show("s390x pt_regs", u(Pending(2, {"pc": 0x100210, "r15": E})))
    show("s390x interrupted at a first instruction",
         u(Pending(3, {"pc": 0x100100, "r15": 0x9800, "r14": 0x100066, "pswm": 0x0704000180000000})))
    ns["modsect_interrupted"].add((0x9800, 0x100110))
    show("s390x interrupted inside", u(Pending(3, {"pc": 0x100110, "r15": 0x9800, "r14": 0x100066})))
    poke(E + 168, 0x0705000180000000)   # PSTATE: user mode
    show("s390x user pt_regs", u(Pending(2, {"pc": 0x100210, "r15": E})))
    poke(E + 168, 0x0704000180000000)
    poke(E + 184 + 8 * 15, E - 8)       # r15 below the entry frame: no
    show("s390x pt_regs r15 below", u(Pending(2, {"pc": 0x100210, "r15": E})))
    show("s390x unreadable", u(Pending(1, {"pc": 0x100120, "r15": 0x20000})))


def ppc64(script):
    global ORDER
    ORDER = "<"
    ns, u = load(script, "ppc64")
    SYMS[:] = [(0x200000, 0x200100, "caller_fn"), (0x200100, 0x200200, "leaf_fn"),
               (0x200200, 0x200300, "timer_interrupt"), (0x200300, 0x200400, "framed_fn")]
    S, B = 0x8000, 0x8100
    poke(S, B)
    poke(B + 16, 0x200044)
    show("ppc64 back chain", u(Pending(1, {"pc": 0x200220, "r1": S})))
    show("ppc64 level 0", u(Pending(0, {"pc": 0x200220, "r1": S})))
    E = 0x9000
    poke(E, 0x9800)
    poke(E + 96, 0x53474552)            # "REGS", 6.1.192's marker
    for i in range(32):
        poke(E + 112 + 8 * i, 0x2000 + i)
    poke(E + 112 + 8, 0x9800)           # gpr1: the back chain's
    poke(E + 112 + 256, 0x200110)       # nip: in leaf_fn
    poke(E + 112 + 264, 0x8000000000009033)  # msr: kernel
    poke(E + 112 + 288, 0x200048)       # link: into caller_fn
    show("ppc64 pt_regs (REGS)", u(Pending(2, {"pc": 0x200230, "r1": E})))
    poke(E + 96, 0x7265677368657265)    # "regshere"
    show("ppc64 pt_regs (regshere)", u(Pending(2, {"pc": 0x200230, "r1": E})))
    poke(E + 112 + 8, 0x9900)           # gpr1 not the back chain: no
    show("ppc64 pt_regs not this frame's", u(Pending(2, {"pc": 0x200230, "r1": E})))
    poke(E + 112 + 8, 0x9800)
    # the interrupted leaf: lr after a bl to leaf_fn, no stdu before nip
    poke(0x200044, 0x48000000 | (0x200100 - 0x200044) | 1, 4)
    for a in range(0x200100, 0x200110, 4):
        poke(a, 0x60000000, 4)          # nop
    ns["modsect_interrupted"].add((0x9800, 0x200110))
    show("ppc64 interrupted leaf", u(Pending(3, {"pc": 0x200110, "r1": 0x9800, "lr": 0x200048})))
    poke(0x200104, 0xf821ff91, 4)       # stdu r1,-112(r1): a frame
    show("ppc64 interrupted, frame stored", u(Pending(3, {"pc": 0x200110, "r1": 0x9800, "lr": 0x200048})))
    poke(E + 112 + 264, 0x8000000000009033 | (1 << 14))
    show("ppc64 user pt_regs", u(Pending(2, {"pc": 0x200230, "r1": E})))
    # a switch to a lower stack: the id stays above the inner frame's
    ns["modsect_ids"][((1, 1, 0), 4)] = 0xa000
    L = 0x7000
    poke(L, 0x7100)
    poke(0x7100 + 16, 0x200050)
    show("ppc64 stack switch down", u(Pending(5, {"pc": 0x200330, "r1": L})))
    poke(0x6000, 0)
    show("ppc64 zero back chain", u(Pending(6, {"pc": 0x200330, "r1": 0x6000})))


def arm(script):
    global ORDER
    ORDER = "<"
    ns, u = load(script, "arm")
    SYMS[:] = []
    irq = u.entries[1][0] if len(u.entries) > 1 else u.entries[0][0]
    S = 0x8000
    for i in range(17):
        poke(S + 4 * i, 0x100 + i, 4)
    poke(S + 52, S + 72, 4)             # sp: above the pt_regs
    poke(S + 56, 0xc0400020, 4)         # lr
    poke(S + 60, 0xc0400010, 4)         # pc
    poke(S + 64, 0x60000013, 4)         # cpsr: svc mode
    show("arm __irq_svc", u(Pending(1, {"pc": irq + 0x20, "sp": S})))
    show("arm level 0", u(Pending(0, {"pc": irq + 0x20, "sp": S})))
    poke(S + 64, 0x60000010, 4)         # usr mode: no
    show("arm pt_regs not svc", u(Pending(1, {"pc": irq + 0x20, "sp": S})))
    show("arm elsewhere", u(Pending(1, {"pc": 0xc0f00010, "sp": S})))
    show("arm end of stack", u(Pending(1, {"pc": u.ends[0][0] + 4, "sp": S})))
    lo = u.init[0]
    poke(lo + 0x100, 0xe7fddef0, 4)
    show("arm freed init text", u(Pending(2, {"pc": lo + 0x104, "sp": S})))
    poke(lo + 0x200, 0xe92d4800, 4)
    show("arm live init text", u(Pending(2, {"pc": lo + 0x204, "sp": S})))


if __name__ == "__main__":
    {"s390x": s390x, "ppc64": ppc64, "arm": arm}[sys.argv[2]](sys.argv[1])
