# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/serve.sh's times.tsv as tables: per part and tool, the median and
spread (min-max) of the whole command and of each timed step.

usage: servesum.py TIMES.TSV

A line: PART TOOL ROUND SECONDS [KEY=VALUE...]; round 0 (untimed: the
caches filled, the walks scored) is left out. Steps (connect, load,
threads, bt, walk, list) are summarized as the whole (median, min-max),
counts listed once each.
"""
import statistics
import sys

ORDER = ["modsect-elf", "modsect-kdump", "drgn-paging", "drgn-elf",
         "drgn-kdump", "drgn-kdumpR", "crash-elf", "crash-kdump", "crash-paging",
         "live-stub-threads", "live-serve-threads", "live-stub-walk",
         "live-serve-walk"]


def fmt(v):
    return "%.3f" % v if v < 10 else "%.2f" % v


def main():
    rows = {}
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) < 4:
            continue
        part, tool, rnd, secs = f[:4]
        if rnd == "0":
            continue  # the untimed round: caches filled, walks scored
        r = rows.setdefault((part, tool), {"total": [], "kv": {}})
        r["total"].append(float(secs))
        for kv in f[4:]:
            k, _, v = kv.partition("=")
            r["kv"].setdefault(k, []).append(v)
    parts = []
    for p, _ in rows:
        if p not in parts:
            parts.append(p)
    for p in parts:
        tools = sorted((t for q, t in rows if q == p),
                       key=lambda t: ORDER.index(t) if t in ORDER else 99)
        print("| %s | runs | median s | spread s | steps: median (min-max) s | other |" % p)
        print("|---|---:|---:|---|---|---|")
        for t in tools:
            r = rows[(p, t)]
            v = sorted(r["total"])
            steps, other = [], []
            for k, vals in r["kv"].items():
                try:
                    nums = sorted(float(x) for x in vals)
                except ValueError:
                    other.append("%s=%s" % (k, ",".join(sorted(set(vals)))))
                    continue
                if k in ("connect", "load", "threads", "bt", "walk", "list", "cmd"):
                    steps.append("%s %s (%s-%s)" % (k, fmt(statistics.median(nums)),
                                                    fmt(nums[0]), fmt(nums[-1])))
                else:
                    u = sorted(set(int(x) for x in nums))
                    other.append("%s=%s" % (k, ",".join(str(x) for x in u)))
            print("| %s | %d | %s | %s-%s | %s | %s |" % (
                t, len(v), fmt(statistics.median(v)), fmt(v[0]), fmt(v[-1]),
                "; ".join(steps), " ".join(other)))
        print()


if __name__ == "__main__":
    main()
