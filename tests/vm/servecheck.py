# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks gdb's threads and walks on `modsect serve` (tests/vm/servebt.py's
output) against the guest's own word: its task lists before and after the
dump ("taskinfo": /proc/PID/task, comm, state, /proc/PID/stack) and its
/proc/kallsyms.  Prints "ok - ..." / "not ok - ..." lines (tests/vm/serve.sh).

usage: servecheck.py LABEL BEFORE AFTER KALLSYMS GDB-OUTPUT [SELF]

SELF: the comm of a task that exists only while gdb runs (the guest's own
`modsect serve --kcore`): a thread of that name is no extra.
"""
import bisect
import re
import sys

IDLE_TID = 4194304
KERNEL = 1 << 63


def taskinfo(path):
    tasks = {}
    for line in open(path, errors="replace"):
        f = line.rstrip("\n").split(" ", 4)
        if f[0] == "T" and len(f) >= 5:
            tasks[int(f[1])] = {"tgid": int(f[2]), "state": f[3],
                                "comm": f[4], "stack": []}
        elif f[0] == "S" and len(f) >= 3 and int(f[1]) in tasks:
            m = re.search(r"\] (\S+)\+(0x[0-9a-f]+)/", line)
            if m:
                tasks[int(f[1])]["stack"].append(
                    "%s+%s" % (m.group(1), m.group(2)))
    return tasks


class Syms:
    def __init__(self, path):
        syms = []
        for line in open(path, errors="replace"):
            f = line.split()
            if len(f) >= 3 and f[1] in "TtWw":
                syms.append((int(f[0], 16), f[2]))
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]
        d = dict((n, a) for a, n in syms)
        self.ranges = [(d["__sched_text_start"], d["__sched_text_end"]),
                       (d["__lock_text_start"], d["__lock_text_end"])]

    def name(self, pc, ret):
        """func+0xoff as the kernel prints pc (a return address: %pB)."""
        i = bisect.bisect_right(self.addrs, pc - 1 if ret else pc) - 1
        if i < 0:
            return "?"
        return "%s+0x%x" % (self.names[i], pc - self.addrs[i])

    def sched(self, pc):
        """in_sched_functions(): what /proc/PID/stack leaves out."""
        return any(lo <= pc < hi for lo, hi in self.ranges)


def gdbout(path):
    """servebt.py's lines (which bench/ writes for drgn and crash too);
    a line that does not parse is no frame."""
    names, frames, ends = {}, {}, {}
    for line in open(path, errors="replace"):
        f = line.split()
        try:
            if f and f[0] == "TH" and len(f) >= 3:
                names[int(f[1])] = f[2]
            elif f and f[0] == "F" and len(f) >= 6:
                pc = int(f[3], 16) if f[3] != "?" else None
                frames.setdefault(int(f[1]), []).append((pc, f[4], f[5]))
            elif f and f[0] == "END" and len(f) >= 3:
                ends[int(f[1])] = " ".join(f[2:])
        except ValueError:
            continue
    return names, frames, ends


def stable_tasks(label, b, a):
    """The tasks compared, and those left out as the listing perturbs
    them: init (pid 1), the shell that runs the listing, and RCU's
    grace-period kthreads, which the listing's own exiting processes keep
    busy: at the listings they are in rcu_gp_fqs_loop, in the quiet guest
    that was dumped waiting for the next grace period. Live (a stop at a
    breakpoint), also the kworkers: the trigger that leads to the stop
    comes over the guest's serial line, whose input a kworker handles
    (flush_to_ldisc) around the stop."""
    both = set(b) & set(a)
    perturbed = [t for t in both if t == 1 or b[t]["comm"].startswith("rcu_")
                 or (label == "live" and b[t]["comm"].startswith("kworker/"))]
    stable = [t for t in sorted(both)
              if b[t]["stack"] and b[t]["stack"] == a[t]["stack"]
              and b[t]["state"] == a[t]["state"] and t not in perturbed]
    return stable, perturbed


def walk_right(syms, fr, end, want):
    """Whether a walk (frames (pc, type, name), its end) is the /proc stack
    want: the frames /proc leaves out dropped, each return address named as
    %pB does (not after a "signal" frame, nor an "interrupted" pc), no
    garbage, at most one user frame, a clean end ("outermost": gdb; "end":
    tools that give no reason). Also the kernel frames and the garbage."""
    kern, user, garbage = [], 0, []
    for n, (pc, typ, name) in enumerate(fr):
        if pc is None or name == "??" and pc >= KERNEL:
            garbage.append("frame %d %s" % (n, pc))
            continue
        if pc < KERNEL:
            user += 1
            continue
        if user:
            garbage.append("kernel frame %d after user space" % n)
        if not syms.sched(pc):
            kern.append(syms.name(pc, n > 0 and fr[n - 1][1] != "signal"
                                  and typ != "interrupted"))
    right = (kern == want and not garbage and user <= 1
             and end in ("outermost", "end"))
    return right, kern, garbage


def main():
    label, before, after, ksyms, out = sys.argv[1:6]
    self_comm = sys.argv[6] if len(sys.argv) > 6 else None
    b, a = taskinfo(before), taskinfo(after)
    syms = Syms(ksyms)
    names, frames, ends = gdbout(out)
    fails = 0

    def ok(cond, msg, detail=()):
        nonlocal fails
        print("%s - [%s] %s" % ("ok" if cond else "not ok", label, msg))
        if not cond:
            fails += 1
            for d in list(detail)[:20]:
                print("    " + d)

    # Threads: every task alive before and after, nothing that was not.
    both = set(b) & set(a)
    idle = set(t for t in names if t >= IDLE_TID)
    missing = sorted(both - set(names))
    extra = sorted(t for t in set(names) - set(b) - set(a) - idle
                   if names[t] != self_comm)
    ok(not missing and not extra and idle,
       "info threads: %d threads, every one of the %d tasks the guest listed "
       "before and after the dump, %d idle task(s), nothing else"
       % (len(names), len(both), len(idle)),
       ["missing %d" % t for t in missing] + ["extra %d" % t for t in extra])
    # /proc/PID/comm of a kworker adds "-" and its workqueue's name
    # (wq_worker_comm()); the task's own comm is what precedes it.
    bad = ["%d: gdb %r, guest %r" % (t, names[t], b[t]["comm"])
           for t in sorted(both & set(names))
           if names[t] != b[t]["comm"][:15].replace(" ", "_") and not (
               names[t].startswith("kworker/") and
               b[t]["comm"].startswith(names[t] + "-"))]
    ok(not bad, "each thread's name is its task's comm", bad)

    # Walks: the stable tasks, against /proc/PID/stack.
    stable, perturbed = stable_tasks(label, b, a)
    right, wrong = 0, []
    for t in stable:
        want, end = b[t]["stack"], ends.get(t, "?")
        good, kern, garbage = walk_right(syms, frames.get(t, []), end, want)
        if good:
            right += 1
        else:
            wrong.append("%d %s: gdb %s (%s%s) /proc %s" % (
                t, b[t]["comm"], kern, end,
                ", " + "; ".join(garbage) if garbage else "", want))
    ok(stable and not wrong,
       "bt of each of the %d stable tasks is its /proc/PID/stack to the end "
       "(%d right; %d left out as the listing perturbs them)"
       % (len(stable), right, len(perturbed)), wrong)
    # The tasks the guest blocked on purpose are all among them.
    known = [t for t in stable if b[t]["comm"] in (
        "sleep", "cat", "sh", "modsect_wait", "modsect_hold", "modsect_lock")]
    ok(len(known) >= 7, "the %d tasks blocked on purpose (sleep, a pipe "
       "reader, a shell in wait, the module's threads) are among them"
       % len(known))
    print("bench: serve %s stable tasks %d right %d" % (label, len(stable),
                                                        right))

    # The CPU's thread: the registers of the task QEMU stopped it in.
    for t in sorted(idle):
        fr = [n for _, _, n in frames.get(t, [])]
        ok("do_idle" in fr and ends.get(t) == "outermost",
           "the CPU's idle thread %d walks from its CPU's registers through "
           "do_idle to the end" % t, [" ".join(fr), ends.get(t, "?")])
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
