# SPDX-License-Identifier: GPL-2.0-or-later
"""Module files as the VM checks read them (checks.sh): the bytes,
decompressed, and the section headers of either ELF class."""
import collections
import lzma
import struct
import subprocess
import zlib

Shdr = collections.namedtuple("Shdr", "name name_off type flags addr offset size addr_at addr_len")


def load(path):
    """(bytes, compressed): PATH's bytes, decompressed (xz, gzip, zstd)."""
    data = open(path, "rb").read()
    if data.startswith(b"\xfd7zXZ\0"):
        return lzma.decompress(data), True
    if data.startswith(b"\x1f\x8b"):
        return zlib.decompress(data, 31), True
    if data.startswith(b"\x28\xb5\x2f\xfd"):
        return subprocess.run(["zstd", "-qdc", path], check=True,
                              stdout=subprocess.PIPE).stdout, True
    return data, False


def headers(data):
    """(endian, e_machine, [Shdr], stroff) of an ELF file, or None; each
    Shdr's name_off is its sh_name, addr_at/addr_len where its sh_addr
    field is in DATA."""
    if not data.startswith(b"\x7fELF"):
        return None
    e = "<" if data[5] == 1 else ">"
    mach, = struct.unpack_from(e + "H", data, 18)
    if data[4] == 2:
        shoff, = struct.unpack_from(e + "Q", data, 0x28)
        entsz, num, strndx = struct.unpack_from(e + "HHH", data, 0x3a)
        fmt, at, alen = e + "IIQQQQ", 16, 8
    else:
        shoff, = struct.unpack_from(e + "I", data, 0x20)
        entsz, num, strndx = struct.unpack_from(e + "HHH", data, 0x2e)
        fmt, at, alen = e + "IIIIII", 12, 4
    raw = [struct.unpack_from(fmt, data, shoff + i * entsz) for i in range(num)]
    stroff = raw[strndx][4]
    out = []
    for i, (nm, typ, flags, addr, off, size) in enumerate(raw):
        name = data[stroff + nm:data.index(b"\0", stroff + nm)].decode("latin-1")
        out.append(Shdr(name, nm, typ, flags, addr, off, size, shoff + i * entsz + at, alen))
    return e, mach, out, stroff
