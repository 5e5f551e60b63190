#!/usr/bin/env python3
"""Per address, does modsect's answer agree with at least one of
eu-addr2line, addr2line and llvm-symbolizer? Lists the addresses (inside a
symbol) where it agrees with none: candidates for modsect bugs.

consensus.py KO PREFIX      reads PREFIX.txt, PREFIX.modsect, PREFIX.{eu,bu,llvm}
"""
import os
import sys

import compare as c


def main():
    ko, pre = sys.argv[1:3]
    offs = [l.strip() for l in open(pre + ".txt") if l.strip()]
    mine = c.parse_modsect(pre + ".modsect")
    others = {}
    for t in ("eu", "bu", "llvm"):
        if os.path.exists(f"{pre}.{t}") and os.path.getsize(f"{pre}.{t}"):
            r = c.parse_pairs(f"{pre}.{t}", t == "llvm")
            if len(r) == len(offs):
                others[t] = r
    spans = c.covered(ko)
    n = len(offs)
    some = 0
    alone = []
    for i, off in enumerate(offs):
        if any(c.classify(mine[i], r[i]) is None for r in others.values()):
            some += 1
        elif c.in_symbol(spans, int(off, 16)):
            alone.append(i)
    pad = n - some - len(alone)
    print(f"modsect agrees with at least one of {', '.join(others)}: "
          f"{some}/{n} ({100 * some / n:.3f}%)")
    print(f"with none of them: {len(alone)} inside a function symbol, "
          f"{pad} in padding between functions")
    for i in alone[:20]:
        print(f"  .text+0x{offs[i]}\n    modsect: {c.fmt(mine[i])}")
        for t, r in others.items():
            print(f"    {t}: {c.fmt(r[i])}")


if __name__ == "__main__":
    main()
