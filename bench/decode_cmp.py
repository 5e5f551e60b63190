#!/usr/bin/env python3
"""Per frame of an oops, the file:line chain of modsect decode and of
decode_stacktrace.sh, innermost first; prints the agreement.

decode_cmp.py OOPS MODSECT_OUT DECODE_STACKTRACE_OUT [--examples N] [--json F]

Only the call-trace frames ("func+0x../0x.. [btrfs]" after "Call Trace:")
are compared; columns and "(discriminator N)" are dropped.
"""
import json
import re
import sys

FRAME = re.compile(r"\b([A-Za-z_.$][\w.$]*)\+0x[0-9a-f]+/0x[0-9a-f]+ \[btrfs\]")
LOC = re.compile(r"(\S+?):(\d+)(?::\d+)?")


def loc(s):
    m = LOC.fullmatch(s)
    return f"{m.group(1)}:{m.group(2)}" if m else s


def frames_in(oops):
    out, on = [], False
    for line in open(oops):
        if "Call Trace:" in line:
            on = True
        elif on and FRAME.search(line):
            out.append(FRAME.search(line).group(0))
    return out


def modsect(path):
    chains, pending, on = [], [], False
    for line in open(path):
        line = line.rstrip("\n")
        if "Call Trace:" in line:
            on = True
            continue
        if not on:
            continue
        m = re.search(r" \(inlined\) (\S+)$", line)
        if m:
            pending.append(loc(m.group(1)))
            continue
        m = FRAME.search(line)
        if m:
            rest = line[m.end():].split()
            pending.append(loc(rest[0]) if rest else "??")
            chains.append(pending)
            pending = []
    return chains


def dst(path):
    chains, on = [], False
    for line in open(path):
        line = line.rstrip("\n")
        if "Call Trace:" in line:
            on = True
            continue
        if not on:
            continue
        m = re.search(r" \S+ \((.*)\) btrfs$", line)
        if m:
            code = re.sub(r" \(discriminator \d+\)", "", m.group(1))
            chains.append([loc(x) for x in code.split()])
        elif re.search(r"\+0x[0-9a-f]+/0x[0-9a-f]+ btrfs$", line):
            chains.append(["??"])  # left as it was: not decoded
    return chains


def main():
    oops, a, b = sys.argv[1:4]
    nex, jout, args = 5, None, sys.argv[4:]
    while args:
        if args[0] == "--examples":
            nex = int(args[1]); args = args[2:]
        elif args[0] == "--json":
            jout = args[1]; args = args[2:]
    fr = frames_in(oops)
    x, y = modsect(a), dst(b)
    if not (len(fr) == len(x) == len(y)):
        sys.exit(f"frame count: oops {len(fr)}, modsect {len(x)}, "
                 f"decode_stacktrace.sh {len(y)}")
    outer = sum(p[-1] == q[-1] for p, q in zip(x, y))
    full = sum(p == q for p, q in zip(x, y))
    n = len(fr)
    print(f"{n} frames: function's line agrees {outer}/{n}, "
          f"whole inline chain agrees {full}/{n}")
    bad = [(f, p, q) for f, p, q in zip(fr, x, y) if p != q]
    for f, p, q in bad[:nex]:
        print(f"  {f}\n    modsect: {' <- '.join(p)}\n"
              f"    decode_stacktrace.sh: {' <- '.join(q)}")
    if jout:
        json.dump({"frames": n, "outer_agree": outer, "chain_agree": full,
                   "examples": bad[:nex]}, open(jout, "w"), indent=1)


if __name__ == "__main__":
    main()
