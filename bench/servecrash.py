# SPDX-License-Identifier: GPL-2.0-or-later
"""crash's `ps` and `foreach bt` output (bench/serve.sh) in
tests/vm/servebt.py's format, for bench/servescore.py.

usage: servecrash.py < CRASH-OUTPUT > WALKS

A task: "PID: N  TASK: ...  CPU: C  COMMAND: "comm"" (thread id N, or
4194304 + C for pid 0, the idle task, as `modsect serve` numbers it).
Frames: " #K [SP] NAME at PC" (PC a return address), and an exception
frame's "RIP: PC" after "[exception RIP: ...]" (the interrupted pc: TYPE
"interrupted"). A task's walk ends ("END TID end") at the next task or
the end. Prints "CRASH tasks-line N ps-rows R bt-tasks B" last (the
banner's TASKS:, the rows of `ps`, the tasks `foreach bt` walked).
"""
import re
import sys

IDLE_TID = 4194304


def main():
    tid = None
    n = 0
    pending_rip = False
    tasks_line = "?"
    ps_rows = 0
    out = []
    seen = []

    def end():
        if tid is not None:
            out.append("END %d end" % tid)

    for line in sys.stdin:
        m = re.match(r"\s*TASKS:\s*(\d+)", line)
        if m and tasks_line == "?":
            tasks_line = m.group(1)
            continue
        if re.match(r"^[> ]\s+\d+\s+\d+\s+\d+\s+[0-9a-f]{8,16}\s+[A-Z]{2}\s", line):
            ps_rows += 1
            continue
        m = re.match(r'^PID:\s*(\d+)\s+TASK:\s*[0-9a-f]+\s+CPU:\s*(\d+)\s+COMMAND:\s*"(.*)"', line)
        if m:
            end()
            pid, cpu = int(m.group(1)), int(m.group(2))
            tid = pid if pid else IDLE_TID + cpu
            seen.append("TH %d %s" % (tid, m.group(3).replace(" ", "_") or "?"))
            n = 0
            pending_rip = False
            continue
        if tid is None:
            continue
        if "[exception RIP:" in line:
            pending_rip = True
            continue
        m = re.match(r"^\s+RIP:\s*([0-9a-f]+)\s", line)
        if m and pending_rip:
            out.append("F %d %d 0x%s interrupted ?" % (tid, n, m.group(1)))
            n += 1
            pending_rip = False
            continue
        m = re.match(r"^\s*#(\d+)\s+\[[0-9a-f]+\]\s+(\S+)\s+at\s+([0-9a-f]+)", line)
        if m:
            out.append("F %d %d 0x%s normal %s" % (tid, n, m.group(3), m.group(2)))
            n += 1
    end()
    print("\n".join(seen + out))
    print("CRASH tasks-line %s ps-rows %d bt-tasks %d" % (tasks_line, ps_rows, len(seen)))


if __name__ == "__main__":
    main()
