# SPDX-License-Identifier: GPL-2.0-or-later
"""drgn, the peer of `modsect serve` in bench/serve.sh: every task of a
kernel dump and its stack trace, as a drgn user walks them.

usage: /usr/bin/python3 servedrgn.py DUMP VMLINUX [DEBUG.ko...]

Loads the dump and the debug files given (drgn's load_debug_info: the
debug vmlinux, and modules' files with DWARF), lists the tasks of
for_each_task() and each CPU's idle task (runqueues' `idle`, thread id
4194304 + CPU as `modsect serve` numbers it), and walks each with
prog.stack_trace(). Writes tests/vm/servebt.py's format on stdout: "TH
TID COMM", then per task "F TID N PC TYPE NAME" for each frame that is not
an inlined call's (TYPE "interrupted" when the frame's pc is where it was
interrupted, else "normal"; NAME the function, its symbol, or "??") and
"END TID end" or "END TID error: ...". Then "TIME load L list T walk W"
in seconds and "COUNT tasks N idle I frames F errors E".
"""
import sys
import time

import drgn
from drgn.helpers.linux.cpumask import for_each_possible_cpu
from drgn.helpers.linux.percpu import per_cpu
from drgn.helpers.linux.pid import for_each_task

IDLE_TID = 4194304


def name_of(frame):
    name = frame.name
    if name is None:
        try:
            name = frame.symbol().name
        except LookupError:
            name = "??"
    return name


def main():
    dump, vmlinux, kos = sys.argv[1], sys.argv[2], sys.argv[3:]
    t0 = time.time()
    prog = drgn.Program()
    prog.set_core_dump(dump)
    try:
        prog.load_debug_info([vmlinux] + kos)
    except drgn.MissingDebugInfoError as e:
        # the modules given no file: their frames have no unwind
        # information (drgn says so per module)
        print("MISSING %s" % str(e).replace("\n", "; "))
    t1 = time.time()
    tasks = []
    for task in for_each_task(prog):
        tasks.append((int(task.pid), task.comm.string_().decode(errors="replace"), task))
    idle = []
    for cpu in for_each_possible_cpu(prog):
        try:
            t = per_cpu(prog["runqueues"], cpu).idle
            idle.append((IDLE_TID + cpu, t.comm.string_().decode(errors="replace"), t))
        except drgn.FaultError:
            pass
    t2 = time.time()
    nframes = nerr = 0
    out = []
    for tid, comm, _ in tasks + idle:
        out.append("TH %d %s" % (tid, comm.replace(" ", "_") or "?"))
    for tid, _, task in tasks + idle:
        try:
            trace = prog.stack_trace(task)
            n = 0
            for frame in trace:
                if frame.is_inline:
                    continue
                out.append("F %d %d 0x%x %s %s" % (
                    tid, n, frame.pc,
                    "interrupted" if frame.interrupted else "normal",
                    name_of(frame).replace(" ", "_")))
                n += 1
            nframes += n
            out.append("END %d end" % tid)
        except (drgn.FaultError, ValueError, LookupError) as e:
            nerr += 1
            out.append("END %d error: %s" % (tid, str(e).replace("\n", " ")))
    t3 = time.time()
    print("\n".join(out))
    print("TIME load %.3f list %.3f walk %.3f" % (t1 - t0, t2 - t1, t3 - t2))
    print("COUNT tasks %d idle %d frames %d errors %d"
          % (len(tasks), len(idle), nframes, nerr))


if __name__ == "__main__":
    main()
