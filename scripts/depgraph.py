#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The library's dependency graph, from the linker's point of view.

Usage: scripts/depgraph.py [--layers FILE] [--dot] OBJDIR SRCDIR

Reads every object file under OBJDIR with nm: a file depends on another
when it uses a symbol the other defines (what the linker resolves), and on
the folder of every header it includes ("#include" lines under SRCDIR).
Prints the strongly connected components of more than one file (the
cycles), then, with --layers, every dependency that runs from a folder to
one listed after it (upwards). Exits 1 if there is either.

The layers file lists the folders from the bottom up, one a line; a folder
may use itself and those above it in the file, never one below.
"""
import os
import re
import subprocess
import sys


def objects(objdir):
    for dirpath, _, files in os.walk(objdir):
        for f in files:
            if f.endswith(".o"):
                yield os.path.join(dirpath, f)


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj],
                         capture_output=True, text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if l.strip()}
    out = subprocess.run(["nm", "-u", obj],
                         capture_output=True, text=True, check=True).stdout
    undefined = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, undefined


def scc(graph):
    """Tarjan's strongly connected components, iteratively."""
    index, low, onstack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        onstack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in onstack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        onstack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(sorted(comp))
    return comps


def main(argv):
    layers, dot = None, False
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--layers":
            layers = argv[i + 1]
            i += 2
        elif argv[i] == "--dot":
            dot = True
            i += 1
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    objdir, srcdir = args
    objdir = os.path.join(objdir, "lib")
    srcroot = os.path.join(srcdir, "lib")

    defs, uses = {}, {}
    for o in objects(objdir):
        src = os.path.relpath(o, objdir)[:-2] + ".c"
        defs[src], uses[src] = symbols(o)
    owner = {}
    for f, ds in defs.items():
        for s in ds:
            owner[s] = f
    graph = {f: set() for f in defs}
    why = {}
    for f, us in uses.items():
        for s in us:
            g = owner.get(s)
            if g and g != f:
                graph[f].add(g)
                why.setdefault((f, g), s)

    if dot:
        print("digraph lib {")
        for f in sorted(graph):
            for g in sorted(graph[f]):
                print(f'  "{f}" -> "{g}";')
        print("}")
        return 0

    bad = 0
    for comp in scc(graph):
        if len(comp) > 1:
            bad += 1
            print("cycle: " + " ".join(comp))
            for f in comp:
                for g in sorted(graph[f] & set(comp)):
                    print(f"  {f} -> {g} ({why[(f, g)]})")

    if layers:
        with open(layers) as fh:
            order = [l.split("#")[0].strip() for l in fh]
        order = [l for l in order if l]
        rank = {d: i for i, d in enumerate(order)}

        def folder(path):
            return path.split("/")[0] if "/" in path else "."

        edges = {(f, g, why[(f, g)]) for f in graph for g in graph[f]}
        inc = re.compile(r'^#include "([^"]+)"')
        for dirpath, _, files in os.walk(srcroot):
            for name in files:
                if not name.endswith((".c", ".h")):
                    continue
                p = os.path.join(dirpath, name)
                rel = os.path.relpath(p, srcroot)
                with open(p) as fh:
                    for line in fh:
                        m = inc.match(line)
                        if not m:
                            continue
                        tgt = os.path.normpath(
                            os.path.join(os.path.dirname(p), m.group(1)))
                        t = os.path.relpath(tgt, srcroot)
                        if not t.startswith(".."):
                            edges.add((rel, t, "#include"))
        for f, g, w in sorted(edges):
            a, b = folder(f), folder(g)
            if a == b or a == "." or b == ".":
                continue
            if a not in rank or b not in rank:
                bad += 1
                print(f"unlisted folder: {f} -> {g} ({w})")
            elif rank[b] > rank[a]:
                bad += 1
                print(f"upward: {f} -> {g} ({w})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
