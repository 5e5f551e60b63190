#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mkvmcore.py: an ELF vmcore (ET_CORE, x86-64) of a memory image, for tests.

    mkvmcore.py IMAGE OUT

IMAGE is a memory image (ms_memimg_parse's format, as tests/fake-stub.py
reads it): each "ADDR HEXBYTES" block becomes a PT_LOAD whose p_vaddr is
ADDR (libkdumpfile translates kernel addresses through the PT_LOADs, as
in a /proc/vmcore) and whose p_paddr is ADDR's offset in the kernel text
mapping; "vmcoreinfo KEY=VALUE" lines form a VMCOREINFO note. The data
follows the headers in block order, so cutting the file cuts the last
blocks first.
"""
import struct
import sys

TEXT_MAP = 0xFFFFFFFF80000000


def load(path):
    blocks, info = [], []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        a, _, b = line.partition(" ")
        if a == "vmcoreinfo":
            info.append(b)
        elif a != "pc":
            blocks.append((int(a, 16), bytes.fromhex(b)))
    return blocks, info


def note(name, ntype, desc):
    name = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name), len(desc), ntype) + pad(name) + pad(desc)


def main():
    blocks, info = load(sys.argv[1])
    notes = note("VMCOREINFO", 0, ("\n".join(info) + "\n").encode()) if info else b""
    nph = len(blocks) + (1 if notes else 0)
    off = 64 + 56 * nph
    phdrs, data = b"", b""
    if notes:
        phdrs += struct.pack("<IIQQQQQQ", 4, 0, off, 0, 0, len(notes), 0, 4)
        data += notes
        off += len(notes)
    for addr, b in blocks:
        # PT_LOAD, RWX, offset, vaddr, paddr, filesz, memsz, align
        phdrs += struct.pack("<IIQQQQQQ", 1, 7, off, addr, addr - TEXT_MAP,
                             len(b), len(b), 4096)
        data += b
        off += len(b)
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh = ident + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56,
                             nph, 64, 0, 0)
    with open(sys.argv[2], "wb") as f:
        f.write(eh + phdrs + data)


if __name__ == "__main__":
    main()
