# SPDX-License-Identifier: GPL-2.0-or-later
"""A debugger lends modsect its connection to a kernel.

QEMU's gdbstub takes one client, so modsect cannot connect beside a gdb or
lldb that is attached.  The debugger's `modsect` command runs modsect with
`--remote fd:N`, one end of a socketpair, and answers the other end as a
GDB remote stub would, from the debugger's own view of the target: memory,
the pc, the architecture.  modsect speaks one protocol whether it talks to
QEMU or to this stub.  This file knows no debugger: gdb's and lldb's
scripts hand it three functions.
"""

import os
import shutil
import socket
import subprocess
import tempfile

# Subcommands that read a section map, and the options that name one.
MAP_COMMANDS = ("gdb", "lldb", "sections", "list", "capture", "resolve",
                "decode", "debuginfo", "kallsyms")
SOURCE_OPTIONS = ("--root", "--capture", "--remote", "--vmcore")

# Architectures modsect's remote client knows (lib/target/rsp.c), with the
# pc's register number, size and byte order, as in the target descriptions
# QEMU sends.
ARCH_PC = {"i386:x86-64": (16, 8), "i386": (8, 4), "aarch64": (32, 8),
           "arm": (15, 4), "s390:64-bit": (1, 8, "big")}


def find_binary(bindir, here):
    """The modsect executable a debugger front-end runs: $MODSECT, else the
    one installed beside it (BINDIR as `make install` wrote it into the
    front-end, or PREFIX/bin from PREFIX/share/modsect/DEBUGGER/), else the
    source tree's ./modsect, else PATH's; None if there is none."""
    env = os.environ.get("MODSECT")
    if env:
        return env
    cands = []
    if not bindir.startswith("@"):
        cands.append(os.path.join(bindir, "modsect"))
    cands.append(os.path.join(here, "..", "..", "..", "bin", "modsect"))
    cands.append(os.path.join(here, "..", "..", "modsect"))
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.normpath(c)
    return shutil.which("modsect")


def output_file(args):
    """The -o/--output FILE among ARGS, if any."""
    for i, a in enumerate(args):
        if a == "--":
            break
        if a in ("-o", "--output") and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--output="):
            return a[len("--output="):]
        if a.startswith("-o") and len(a) > 2 and not a.startswith("--"):
            return a[2:]
    return None


def wants_source(args):
    """True when ARGS run a map-reading subcommand with no source of its
    own (then, connected to a remote target, the map must come from the
    target's memory, not from the host's /sys)."""
    if not args or args[0] not in MAP_COMMANDS:
        return False
    for a in args[1:]:
        if a == "--":
            break
        if a in ("-h", "--help", "--version"):
            return False
        if a.split("=", 1)[0] in SOURCE_OPTIONS:
            return False
    return True


def script_module_name(text):
    """The module a `modsect gdb`/`modsect lldb` script of one module is
    for: its first "# NAME (STATE) from FILE" comment."""
    for line in text.splitlines():
        if line.startswith("# ") and ") from " in line:
            return line[2:].split(" ", 1)[0]
    return None


def _checksum(data):
    return b"%02x" % (sum(data) & 0xFF)


class LentStub:
    """The stub: read_memory(addr, n) gives n bytes or None (unreadable),
    read_pc() the pc of the stopped CPU, arch a key of ARCH_PC or None.
    'D' only ends the conversation: the target stays as the debugger has
    it (stopped)."""

    # modsect reads up to 16 KiB per 'm' with this (RSP_MAX_READ); the
    # debugger splits them into its own stub's packets.
    PACKET_SIZE = 0x8000
    XML_NAME = b"qXfer:features:read:target.xml:"

    def __init__(self, sock, arch, read_memory, read_pc):
        self.sock = sock
        self.arch = arch if arch in ARCH_PC else None
        self.read_memory = read_memory
        self.read_pc = read_pc
        self.buf = b""
        self.ack = True
        self.done = False

    def _reply(self, data):
        pkt = b"$" + data + b"#" + _checksum(data)
        self.sock.sendall((b"+" if self.ack else b"") + pkt)

    def _target_xml(self, args):
        if self.arch is None:
            return b"E01"
        xml = ("<?xml version=\"1.0\"?><target><architecture>%s"
               "</architecture></target>" % self.arch).encode()
        off, _, length = args.partition(b",")
        off, length = int(off, 16), int(length, 16)
        return (b"l" if off + length >= len(xml) else b"m") + xml[off:off + length]

    def _answer(self, pkt):
        if pkt.startswith(b"m"):
            addr, _, length = pkt[1:].partition(b",")
            mem = self.read_memory(int(addr, 16), int(length, 16))
            return b"E14" if mem is None else mem.hex().encode()
        if pkt == b"?":
            return b"S05"
        if pkt.startswith(b"qSupported"):
            return b"PacketSize=%x;QStartNoAckMode+;qXfer:features:read+" % self.PACKET_SIZE
        if pkt == b"QStartNoAckMode":
            self._reply(b"OK")
            self.ack = False
            return None
        if pkt.startswith(self.XML_NAME):
            return self._target_xml(pkt[len(self.XML_NAME):])
        if pkt.startswith(b"p") and self.arch:
            regno, size, order = (ARCH_PC[self.arch] + ("little",))[:3]
            if int(pkt[1:], 16) != regno:
                return b""
            pc = self.read_pc() & ((1 << (8 * size)) - 1)
            return pc.to_bytes(size, order).hex().encode()
        if pkt == b"D" or pkt.startswith(b"D;"):
            self.done = True
            return b"OK"
        return b""  # not supported, as the protocol says

    def _packets(self):
        """Complete packets in the buffer; acks and Ctrl-C are dropped
        (the target is already stopped: the debugger holds it)."""
        while True:
            self.buf = self.buf.lstrip(b"+-\x03")
            start = self.buf.find(b"$")
            if start < 0:
                self.buf = b""
                return
            end = self.buf.find(b"#", start)
            if end < 0 or len(self.buf) < end + 3:
                self.buf = self.buf[start:]
                return
            data, csum = self.buf[start + 1:end], self.buf[end + 1:end + 3]
            self.buf = self.buf[end + 3:]
            if self.ack:
                self.sock.sendall(b"+" if csum.lower() == _checksum(data) else b"-")
            yield data

    def serve(self):
        """Answers until modsect detaches or closes its end."""
        while not self.done:
            chunk = self.sock.recv(65536)
            if not chunk:
                return
            self.buf += chunk
            for pkt in self._packets():
                rep = self._answer(pkt)
                if rep is not None:
                    self._reply(rep)


def run_lent(exe, args, arch, read_memory, read_pc, errors=()):
    """Runs `exe ARGS[0] --remote fd:N ARGS[1:]` and serves its requests
    until it exits; returns (status, stdout bytes, stderr bytes).  Raises
    OSError when exe cannot run.  ERRORS are the debugger's exceptions that
    end the service early (modsect then says what went wrong)."""
    ours, theirs = socket.socketpair()
    # Files, not pipes: a long script on a pipe nobody reads while the
    # stub serves would stop modsect.
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    cmd = [exe, args[0], "--remote", "fd:%d" % theirs.fileno()] + args[1:]
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=err, pass_fds=(theirs.fileno(),))
        theirs.close()
        try:
            LentStub(ours, arch, read_memory, read_pc).serve()
        except (OSError,) + tuple(errors):
            pass
        except KeyboardInterrupt:
            p.kill()
            p.wait()
            raise
        ours.close()
        rc = p.wait()
        out.seek(0)
        err.seek(0)
        return rc, out.read(), err.read()
    finally:
        ours.close()
        theirs.close()
        out.close()
        err.close()
