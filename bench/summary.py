#!/usr/bin/env python3
"""out/ -> the markdown tables of docs/benchmarks.md."""
import json
import os
import sys

out = sys.argv[1]
NAMES = {"modsect": "modsect resolve", "eu": "eu-addr2line -f -i -j .text",
         "bu": "addr2line -f -i -j .text", "llvm": "llvm-symbolizer --obj"}
SETS = {"r1": "1 random", "r1000": "1,000 random", "r10000": "10,000 random",
        "r100000": "100,000 random", "ret": "return addresses"}

rows = [l.rstrip("\n").split("\t") for l in open(f"{out}/results.tsv")]
base = {r[1]: float(r[3]) for r in rows if r[0] == "modsect"}
best_other = {}
for t, s, n, d, note in rows:
    if t != "modsect":
        best_other[s] = min(best_other.get(s, float("inf")), float(d))

print("| tool | addresses | time (s) | addresses/s | its time / modsect time | note |")
print("|---|---|---:|---:|---:|---|")
for t, s, n, d, note in rows:
    d = float(d)
    print(f"| {NAMES[t]} | {SETS[s]} ({int(n):,}) | {d:.3f} | "
          f"{int(n) / d:,.0f} | {d / base[s]:.2f}x | {note} |")
print()
print("Speed-up of modsect over the fastest other tool: " + ", ".join(
    f"{SETS[s]} {best_other[s] / base[s]:.2f}x" for s in base))
print()

print("| agreement with modsect | set | agree | rate | disagreements |")
print("|---|---|---:|---:|---|")
for s in ("r100000", "r10000", "ret"):
    for t in ("eu", "bu", "llvm"):
        p = f"{out}/agree-{s}-{t}.json"
        if not os.path.exists(p):
            continue
        j = json.load(open(p))
        dis = ", ".join(f"{k} {v}" for k, v in sorted(j["disagree"].items()))
        print(f"| {NAMES[t]} | {SETS[s]} | {j['agree']:,}/{j['addresses']:,} "
              f"| {100 * j['rate']:.2f}% | {dis} |")
print()

if os.path.exists(f"{out}/decode.tsv"):
    d = {}
    for l in open(f"{out}/decode.tsv"):
        t, n, sec, runs = l.rstrip("\n").split("\t")
        d[(t, n)] = float(sec)
    print("| decode | frames | modsect decode (s) | decode_stacktrace.sh (s) "
          "| ratio | agree as is (line / chain) | agree at the call "
          "(line / chain) |")
    print("|---|---:|---:|---:|---:|---|---|")
    for n in ("10", "50", "200"):
        if ("modsect", n) not in d:
            continue
        a = open(f"{out}/decode-agree-{n}.txt").readline().split()
        b = open(f"{out}/decode-agree-{n}-call.txt").readline().split()
        # "N frames: function's line agrees X/N, whole inline chain agrees Y/N"
        print(f"| oops | {n} | {d[('modsect', n)]:.3f} | {d[('dst', n)]:.3f} "
              f"| {d[('dst', n)] / d[('modsect', n)]:.1f}x "
              f"| {a[5].rstrip(',')} / {a[10]} | {b[5].rstrip(',')} / {b[10]} |")
