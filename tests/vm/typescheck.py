#!/usr/bin/env python3
"""typescheck.py DIR: tests/vm/types.sh's checks of what gdb printed
(DIR/session.out, from typesgdb.py) against what the kernel says (dmesg,
/proc/interrupts, /sys/module/modsect_test/initstate). One line each:
"P DESC" (ok), "F DESC" (not ok), "D TEXT" (detail)."""
import re
import sys

d = sys.argv[1]


def read(name):
    try:
        return open("%s/%s" % (d, name), errors="replace").read()
    except OSError:
        return ""


out = read("session.out")
stop = {}
for line in out.splitlines():
    m = re.match(r"^STOP (module name|module state|current pid|current comm|"
                 r"percpu irq_stat\.apic_timer_irqs|ptype) (.*)$", line)
    if m:
        stop[m.group(1)] = m.group(2).strip()
bt = [l[8:] for l in out.splitlines() if l.startswith("STOP bt ")]


def check(ok, desc, *details):
    print("%s %s" % ("P" if ok else "F", desc))
    if not ok:
        for x in details:
            print("D %s" % x)


m = re.search(r"^STRUCTS (\d+) (\d+)$", out, re.M)
check(m and int(m.group(1)) > 1000 and m.group(2) == "0",
      "gdb: sizeof and every member's offset and bit size of %s structs and "
      "unions == BTF's (bpftool)" % (m.group(1) if m else "?"),
      *[l for l in out.splitlines() if l.startswith("STRUCTS")][:10])
m = re.search(r"^SPLIT (\S+) (\d+) (\d+)$", out, re.M)
check(m and m.group(3) == "0",
      "split BTF: isofs's own struct %s (%s members) == its BTF's"
      % (m.group(1) if m else "iso_inode_info", m.group(2) if m else "?"),
      *[l for l in out.splitlines() if l.startswith("SPLIT")][:10])
errors = [l for l in out.splitlines() if l.startswith("STOP-ERROR")]
for e in errors:
    print("D %s" % e)

state = read("initstate.txt").strip()
want = {"live": "MODULE_STATE_LIVE", "coming": "MODULE_STATE_COMING",
        "going": "MODULE_STATE_GOING"}.get(state, "?")
check(stop.get("module name") == '"modsect_test"'
      or stop.get("module name") == "modsect_test",
      "p ((struct module *)ADDR)->name == the module's name "
      "(got %s)" % stop.get("module name"))
check(stop.get("module state") == want,
      "->state %s == /sys/module/modsect_test/initstate %r"
      % (stop.get("module state"), state))

dmesg = [re.sub(r"^\[[ 0-9.]+\] ", "", l) for l in read("dmesg.txt").splitlines()]
head = None
for i, l in enumerate(dmesg):
    if l.strip() == "modsect_test: stack 101":
        for k in dmesg[i + 1:i + 4]:
            mm = re.search(r"CPU: (\d+) (?:UID: \d+ )?PID: (\d+) Comm: (\S+)", k)
            if mm:
                head = mm
                break
check(head is not None, "the kernel's dump_stack() header after "
      "'modsect_test: stack 101' found")
if head:
    check(stop.get("current pid") == head.group(2)
          and stop.get("current comm") == head.group(3),
          "$modsect_current(): pid %s comm %s == the kernel's PID: %s Comm: %s"
          % (stop.get("current pid"), stop.get("current comm"),
             head.group(2), head.group(3)))


def loc(text):
    for l in text.splitlines():
        f = l.split()
        if f and f[0] == "LOC:":
            return int(f[1])
    return None


lo, hi = loc(read("irq-before.txt")), loc(read("irq-after.txt"))
got = stop.get("percpu irq_stat.apic_timer_irqs")
check(got is not None and lo is not None and hi is not None
      and lo <= int(got) <= hi,
      "$modsect_per_cpu(irq_stat, 0).apic_timer_irqs %s within /proc/"
      "interrupts' LOC of CPU 0 before and after (%s..%s)" % (got, lo, hi))
check(stop.get("ptype") == "type = int (struct module *)",
      "ptype do_init_module: BTF's prototype (got %r)" % stop.get("ptype"))
args = [l for l in bt if re.search(r" in (vfs_write|ksys_write) \((file|fd)=", l)]
check(bool(args), "bt shows a core function's argument names (vfs_write "
      "(file=... or ksys_write (fd=...)", *bt[:12])

lout = read("lldb-session.out")
m = re.search(r'^\(char\[\d+\]\) \$\d+ = "(\w+)', lout, re.M)
check(m and m.group(1) == "modsect_test",
      "lldb: ((struct module *)ADDR)->name == the module's name (got %s)"
      % (m.group(1) if m else None),
      *[l for l in lout.splitlines() if "error" in l][:5])
m = re.search(r"^\(module_state\) \$\d+ = (\w+)", lout, re.M)
check(m and m.group(1) == want, "lldb: ->state %s == initstate %r"
      % (m.group(1) if m else None, state))
m = re.search(r"^\(unsigned int\) \$\d+ = (\d+)", lout, re.M)
hi2 = loc(read("irq-after-lldb.txt"))
check(m and lo is not None and hi2 is not None
      and lo <= int(m.group(1)) <= hi2,
      "lldb: the per-cpu expression for irq_stat.apic_timer_irqs on CPU 0, "
      "%s, within /proc/interrupts' LOC before and after (%s..%s)"
      % (m.group(1) if m else None, lo, hi2),
      *[l for l in lout.splitlines() if "error" in l][:5])
