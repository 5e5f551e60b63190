#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/ksymgen.py: synthetic kallsyms tables, laid out as scripts/kallsyms
of a given kernel lays them out, inside filler bytes, for the unit tests of
lib/ksymtab.c (tests/t-kimage.sh) and the fuzz seeds (fuzz/seeds.sh).

  ksymgen.py --layout {v6.1,v6.2,v6.4,pcrel} [--ptr 4|8] [--be] [--percpu]
             [--absolute] [--n N] [--base HEX] [--seed N] BLOB EXPECTED

BLOB gets the bytes (at address --base); EXPECTED the symbols as
kimage-dump --syms prints them ("ADDR TYPE NAME", ADDR in 16 hex digits).
Layouts: v6.1 (offsets, relative_base, num_syms, names, markers,
token_table, token_index), v6.2 (the same with kallsyms_seqs_of_names
before the token table, as Debian's 6.1.y has it), v6.4 (num_syms, names,
markers, token_table, token_index, offsets, relative_base, seqs), pcrel
(the 2026 proposal: v6.4 without relative_base, place-relative offsets,
4-byte alignment). --absolute: kallsyms_addresses instead of offsets.
--percpu: KALLSYMS_ABSOLUTE_PERCPU (x86_64 before v6.15). One name is
"big" (more than 127 tokens: a two-byte length).
"""
import argparse
import random
import struct


def symbols(n, rnd, text, percpu):
    syms = []
    if percpu:
        for i in range(24):
            syms.append((i * 0x40, 'A', 'pcpu_var_%d' % i))
    addr = text
    types = 'TTTtttWDdRrBbt'
    for i in range(n):
        t = types[i % len(types)]
        name = '%s_%s_%d' % (rnd.choice(['do', 'sys', '__x64', 'ext4', 'tcp']),
                             rnd.choice(['open', 'read', 'write', 'init']), i)
        if i == n // 2:
            name = 'big_' + 'ab' * 90  # 184 characters: 185 tokens
        syms.append((addr, t, name))
        if i % 7:  # every 7th symbol is an alias of the next
            addr += rnd.randrange(1, 0x400)
    return syms


def tokens_for(syms, rnd):
    chars = sorted({c for _, t, nm in syms for c in t + nm})
    toks = list(chars)
    for common in ['sys_', '__x64', 'ext4_', 'tcp_', 'open', 'read', 'write',
                   'init', 'T__', 'Tdo_', 'tdo_', 'ab', 'abab']:
        if len(toks) < 256 and common not in toks:
            toks.append(common)
    i = 0
    while len(toks) < 256:
        tok = 'q%d' % i
        i += 1
        if tok not in toks:
            toks.append(tok)
    rnd.shuffle(toks)
    return toks


def encode(s, toks):
    index = {t: i for i, t in enumerate(toks)}
    longest = max(len(t) for t in toks)
    out, i = [], 0
    while i < len(s):
        for ln in range(min(longest, len(s) - i), 0, -1):
            if s[i:i + ln] in index:
                out.append(index[s[i:i + ln]])
                i += ln
                break
    return out


class Blob:
    def __init__(self, base, align, be):
        self.b = bytearray()
        self.base, self.align, self.e = base, align, '>' if be else '<'

    def pad(self):
        while (self.base + len(self.b)) % self.align:
            self.b.append(0)

    def label(self):
        self.pad()
        return len(self.b)

    def put(self, fmt, *v):
        self.b += struct.pack(self.e + fmt, *v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--layout', default='v6.4',
                    choices=['v6.1', 'v6.2', 'v6.4', 'pcrel'])
    ap.add_argument('--ptr', type=int, default=8, choices=[4, 8])
    ap.add_argument('--be', action='store_true')
    ap.add_argument('--percpu', action='store_true')
    ap.add_argument('--absolute', action='store_true')
    ap.add_argument('--n', type=int, default=600)
    ap.add_argument('--base', default=None)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('blob')
    ap.add_argument('expected')
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    text = 0xffffffff81000000 if a.ptr == 8 else 0xc1000000
    base = int(a.base, 16) if a.base else (text + 0x1000000)
    syms = symbols(a.n, rnd, text, a.percpu)
    toks = tokens_for(syms, rnd)
    mask = (1 << (8 * a.ptr)) - 1
    ptrf = 'Q' if a.ptr == 8 else 'I'
    align = 4 if a.layout == 'pcrel' else a.ptr
    bl = Blob(base, align, a.be)
    relbase = min(ad for ad, t, _ in syms if t != 'A')
    bl.b += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1000, 3000)))

    def addrs():
        bl.label()
        if a.absolute:
            for ad, _, _ in syms:
                bl.put(ptrf, ad & mask)
            return
        start = len(bl.b)
        for i, (ad, t, _) in enumerate(syms):
            if a.layout == 'pcrel':
                bl.put('i', ad - (base + start + 4 * i))
            elif a.percpu:
                bl.put('i', ad if t == 'A' else relbase - 1 - ad)
            else:
                bl.put('I', ad - relbase)
        if a.layout != 'pcrel':
            bl.label()
            bl.put(ptrf, relbase & mask)

    def seqs():
        if a.layout == 'v6.1':
            return
        bl.label()
        order = sorted(range(len(syms)), key=lambda i: (syms[i][2], i))
        for i in order:
            bl.b += bytes([i >> 16 & 255, i >> 8 & 255, i & 255])

    if a.layout in ('v6.1', 'v6.2'):
        addrs()
    bl.label()
    bl.put('I', len(syms))
    names = bl.label()
    markers = []
    for i, (_, t, nm) in enumerate(syms):
        if i % 256 == 0:
            markers.append(len(bl.b) - names)
        enc = encode(t + nm, toks)
        if len(enc) > 0x7f:
            bl.b += bytes([len(enc) & 0x7f | 0x80, len(enc) >> 7])
        else:
            bl.b.append(len(enc))
        bl.b += bytes(enc)
    bl.label()
    for m in markers:
        bl.put('I', m)
    if a.layout == 'v6.2':
        seqs()
    bl.label()
    offs = []
    table = len(bl.b)
    for t in toks:
        offs.append(len(bl.b) - table)
        bl.b += t.encode() + b'\0'
    bl.label()
    for o in offs:
        bl.put('H', o)
    if a.layout in ('v6.4', 'pcrel'):
        addrs()
        seqs()
    bl.b += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1000, 3000)))
    open(a.blob, 'wb').write(bl.b)
    with open(a.expected, 'w') as f:
        for ad, t, nm in syms:
            f.write('%016x %s %s\n' % (ad & mask, t, nm))


main()
