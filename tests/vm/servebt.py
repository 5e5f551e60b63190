# SPDX-License-Identifier: GPL-2.0-or-later
"""gdb, on `modsect serve`: every thread and its walk (tests/vm/serve.sh).

Prints "TH TID NAME" for each thread of `info threads`, then per thread
"F TID N PC TYPE NAME" for each frame (at most 64) and "END TID REASON".
"""
import gdb

_TYPES = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline",
          gdb.SIGTRAMP_FRAME: "signal", gdb.TAILCALL_FRAME: "tailcall"}


def _tid(t):
    return t.ptid[1] or t.ptid[2]


def ms_walk(tid, limit=64):
    try:
        f = gdb.newest_frame()
    except gdb.error as e:
        print("END %d error: %s" % (tid, e))
        return
    n = 0
    while True:
        try:
            name = f.name() or "??"
        except gdb.error:
            name = "??"
        try:
            pc = "0x%x" % f.pc()
        except gdb.error:
            pc = "?"
        print("F %d %d %s %s %s" % (tid, n, pc, _TYPES.get(f.type(), "other"),
                                    name.replace(" ", "_")))
        n += 1
        if n >= limit:
            print("END %d limit" % tid)
            return
        try:
            older = f.older()
        except gdb.error as e:
            print("END %d error: %s" % (tid, e))
            return
        if older is None:
            print("END %d %s" % (tid, gdb.frame_stop_reason_string(
                f.unwind_stop_reason())))
            return
        f = older


def ms_all():
    threads = sorted(gdb.selected_inferior().threads(), key=_tid)
    for t in threads:
        print("TH %d %s" % (_tid(t), (t.name or "?").replace(" ", "_")))
    for t in threads:
        t.switch()
        ms_walk(_tid(t))
