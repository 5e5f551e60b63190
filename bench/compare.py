#!/usr/bin/env python3
"""Compare modsect resolve's answers with another symbolizer's, per address.

compare.py TOOL KO OFFSETS MODSECT_OUT OTHER_OUT [--examples N] [--json FILE]

TOOL is eu (eu-addr2line -a -f -i), bu (addr2line -a -f -i) or llvm
(llvm-symbolizer -a). Each answer is the inline chain, innermost first, of
(function, file, line[, column]). Function names lose GCC's clone suffixes
(.isra.0, .constprop.0, .part.0, .cold) and file names the compilation
directory, since tools differ there in presentation only. An address
agrees when the depth, and every frame's function, file and line, agree.
A disagreement at an offset that no FUNC symbol of KO covers (alignment
padding between functions) is counted as "padding", whatever its kind.
"""
import json
import re
import sys
from collections import Counter

COMPDIR = re.compile(r"^(?:/.*?/)?debian/build/build_amd64_none_amd64/")
CLONE = re.compile(r"(\.(?:isra|constprop|part|cold|lto_priv)(?:\.\d+)?)+$")


def nfunc(f):
    return CLONE.sub("", f)


def nfile(f):
    return COMPDIR.sub("", f)


def parse_loc(s):
    """FILE:LINE[:COL] [(discriminator N)] -> (file, line, col)"""
    s = re.sub(r" \(discriminator \d+\)$", "", s.strip())
    m = re.match(r"^(.*?):(\d+|\?)(?::(\d+))?$", s)
    if not m:
        return ("??", 0, 0)
    line = int(m.group(2)) if m.group(2) != "?" else 0
    return (nfile(m.group(1)), line, int(m.group(3) or 0))


def frame(func, loc):
    file, line, col = parse_loc(loc)
    return (nfunc(func), file, line, col)


def parse_modsect(path):
    recs = []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("0x"):
            recs.append([])
        elif line.startswith("    "):
            m = re.match(r"^    (?:\(inlined by\) )?(\S+) at (.*)$", line)
            recs[-1].append(frame(m.group(1), m.group(2)))
    return [clean(r) for r in recs]


def clean(r):
    # "??" function with no line is "nothing known"
    return [f for f in r if not (f[0] == "??" and f[2] == 0)]


def parse_pairs(path, blank_sep):
    """Records starting with an address line, then (function, location)."""
    recs = []
    pending = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if blank_sep and line == "":
            continue
        if re.match(r"^0x[0-9a-f]+$", line):
            recs.append([])
            pending = None
        elif pending is None:
            pending = line.split(" ")[0]
        else:
            recs[-1].append(frame(pending, line))
            pending = None
    return [clean(r) for r in recs]


def fmt(r):
    if not r:
        return "??"
    return " <- ".join(f"{f}@{fi}:{l}" + (f":{c}" if c else "")
                       for f, fi, l, c in r)


def covered(ko):
    """[lo, hi) of the FUNC symbols of .text, sorted."""
    import subprocess
    sh = subprocess.run(["readelf", "-SW", ko], check=True,
                        capture_output=True, text=True).stdout
    idx = re.search(r"\[\s*(\d+)\]\s+\.text\s", sh).group(1)
    out = subprocess.run(["readelf", "-sW", ko], check=True,
                         capture_output=True, text=True).stdout
    spans = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == "FUNC" and f[6] == idx and int(f[2]):
            lo = int(f[1], 16)
            spans.append((lo, lo + int(f[2])))
    spans.sort()
    return spans


def in_symbol(spans, off):
    import bisect
    i = bisect.bisect_right(spans, (off, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= off < spans[i][1]


def classify(a, b):
    if len(a) != len(b):
        return "inline depth"
    for x, y in zip(a, b):
        if x[0] != y[0]:
            return "function"
        if x[1] != y[1]:
            return "file"
        if x[2] != y[2]:
            return "line"
    return None


def main():
    tool, ko, offs, mine, other = sys.argv[1:6]
    spans = covered(ko)
    nex = 5
    jout = None
    args = sys.argv[6:]
    while args:
        if args[0] == "--examples":
            nex = int(args[1]); args = args[2:]
        elif args[0] == "--json":
            jout = args[1]; args = args[2:]
        else:
            sys.exit("unknown " + args[0])
    offsets = [l.strip() for l in open(offs) if l.strip()]
    a = parse_modsect(mine)
    b = parse_pairs(other, tool == "llvm")
    if len(a) != len(offsets) or len(b) != len(offsets):
        print(f"{tool}: record count mismatch: {len(offsets)} addresses, "
              f"modsect {len(a)}, {tool} {len(b)}", file=sys.stderr)
        sys.exit(1)
    kinds = Counter()
    cols = Counter()
    examples = {}
    for off, x, y in zip(offsets, a, b):
        k = classify(x, y)
        if k is None:
            kinds["agree"] += 1
            if tool != "bu":
                cols["agree" if [f[3] for f in x] == [f[3] for f in y]
                     else "differ"] += 1
            continue
        if not in_symbol(spans, int(off, 16)):
            k = "padding"
        kinds[k] += 1
        examples.setdefault(k, []).append((off, fmt(x), fmt(y)))
    n = len(offsets)
    res = {"tool": tool, "addresses": n, "agree": kinds["agree"],
           "rate": kinds["agree"] / n,
           "disagree": {k: v for k, v in kinds.items() if k != "agree"},
           "column_agree": cols.get("agree"),
           "examples": {k: v[:nex] for k, v in examples.items()}}
    print(f"{tool}: {kinds['agree']}/{n} agree ({100 * kinds['agree'] / n:.2f}%)"
          + "".join(f", {k} {v}" for k, v in sorted(res['disagree'].items()))
          + (f"; columns also agree in {cols['agree']}/{kinds['agree']}"
             if tool != "bu" else ""))
    for k, ex in sorted(examples.items()):
        for off, x, y in ex[:nex]:
            print(f"  [{k}] .text+0x{off}\n    modsect: {x}\n    {tool}: {y}")
    if jout:
        json.dump(res, open(jout, "w"), indent=1)


if __name__ == "__main__":
    main()
