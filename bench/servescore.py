# SPDX-License-Identifier: GPL-2.0-or-later
"""Scores one tool's threads and walks against the guest's own word
(bench/serve.sh): the tasks it listed, and whose trace is the task's
/proc/PID/stack, judged as tests/vm/servecheck.py judges modsect's.

usage: servescore.py LABEL BEFORE AFTER KALLSYMS WALKS [DETAILS]

WALKS is tests/vm/servebt.py's output ("TH TID NAME", "F TID N PC TYPE
NAME", "END TID REASON"), which bench/servedrgn.py and the parse of
crash's `foreach bt` (bench/servecrash.py) also write. TYPE "interrupted"
(drgn, crash: the frame's pc is where it was interrupted, not a return
address) and gdb's "signal" before a frame say the same thing as in
servecheck.py. A walk's end is accepted as "outermost" (gdb) or "end"
(drgn and crash say no reason).

Prints one line:
  SCORE LABEL listed L of G guest tasks (+I idle, K walked through
        do_idle), missing M, extra X; stable S, right R
and writes the wrong walks, each with the tool's frames and the /proc
stack, to DETAILS (default: stdout after the line).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "vm"))
from servecheck import (IDLE_TID, KERNEL, Syms, gdbout,  # noqa: E402
                        stable_tasks, taskinfo, walk_right)


def main():
    label, before, after, ksyms, out = sys.argv[1:6]
    det = open(sys.argv[6], "w") if len(sys.argv) > 6 else sys.stdout
    b, a = taskinfo(before), taskinfo(after)
    syms = Syms(ksyms)
    names, frames, ends = gdbout(out)
    both = set(b) & set(a)
    idle = set(t for t in names if t >= IDLE_TID)
    listed = both & set(names)
    missing = sorted(both - set(names))
    extra = sorted(set(names) - set(b) - set(a) - idle)
    # the same stable tasks and the same judgement as servecheck.py
    stable, _ = stable_tasks(label, b, a)
    right, wrong = 0, []
    for t in stable:
        fr = frames.get(t, [])
        want, end = b[t]["stack"], ends.get(t, "?")
        good, kern, garbage = walk_right(syms, fr, end, want)
        if t not in names:
            wrong.append("%d %s: not listed; /proc %s" % (t, b[t]["comm"], want))
        elif good:
            right += 1
        else:
            wrong.append("%d %s: tool %s (%s%s) tool's frames %s /proc %s" % (
                t, b[t]["comm"], kern, end,
                ", " + "; ".join(garbage) if garbage else "",
                ["%s:%s" % (nm, typ) for _, typ, nm in fr], want))
    # the CPU's idle thread: through do_idle to a clean end (servecheck.py)
    idle_ok = 0
    for t in sorted(idle):
        fr = frames.get(t, [])
        ok = (any(n == "do_idle" or pc and syms.name(pc, True).startswith("do_idle+")
                  for pc, _, n in fr)
              and ends.get(t) in ("outermost", "end"))
        idle_ok += ok
        if not ok:
            wrong.append("idle %d: %s (%s)" % (t, ["%s:%s" % (
                syms.name(pc, False) if pc else "?", nm) for pc, _, nm in fr],
                ends.get(t, "?")))
    # pid 1 is not scored (the listing runs in it); its walk, for the eye
    if 1 in names:
        wrong.append("pid 1 (not scored): %s (%s)" % (
            [syms.name(pc, n > 0) if pc and pc >= KERNEL else "user"
             for n, (pc, _, _) in enumerate(frames.get(1, []))], ends.get(1, "?")))
    print("SCORE %s listed %d of %d guest tasks (+%d idle, %d walked through "
          "do_idle), missing %d, extra %d; stable %d, right %d"
          % (label, len(listed), len(both), len(idle), idle_ok, len(missing),
             len(extra), len(stable), right))
    for w in wrong:
        print(w, file=det)
    for t in missing[:50]:
        print("missing %d %s" % (t, b[t]["comm"]), file=det)
    for t in extra[:50]:
        print("extra %d %s" % (t, names[t]), file=det)
    return 0


if __name__ == "__main__":
    sys.exit(main())
