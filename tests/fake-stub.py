#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fake-stub.py: a fake GDB remote stub serving a memory image, for tests.

    fake-stub.py IMAGE [--host H] [--port N] [--port-file F] [--log F] [options]

IMAGE is a memory image (lib/kmem.h, ms_memimg_parse): "ADDR HEXBYTES"
lines, "pc ADDR", '#' comments. The stub listens on 127.0.0.1 or --host (::1
for IPv6), on port N or a free one, writes the port to --port-file (atomically) or stdout, serves
one client and exits when the client disconnects, or after --timeout
seconds in all (default 20) so no test leaves it behind. For the tty path,
put socat between: socat pty,link=TTY,raw,echo=0 tcp:127.0.0.1:PORT.

It answers like QEMU's gdbstub: qSupported (PacketSize, qXfer:features:read+,
QStartNoAckMode+), target.xml, '?', 'm' (E14 for unmapped memory, E22 for a
length over PacketSize / 2), 'p', 'g', 'D'. Misbehaviour on request:
  --no-noack             no QStartNoAckMode+ (acks all the way)
  --packet-size N        PacketSize=N (hex in the reply; N is decimal here)
  --garbage              'm' replies are not hex
  --short                'm' replies give at most half of what was asked
  --silent-after N       after N packets, answer nothing (and ack nothing)
  --error-pages ADDR     E14 for reads touching that 4 KiB page (repeatable)
  --bad-checksum-every N every Nth reply has a bad checksum (once: a
                         retransmission after '-' is good)
  --bad-checksum-always  every reply and retransmission has a bad checksum
  --unsolicited-stop     a stop reply on connect, as QEMU sends
  --running              the target runs: nothing is answered until 0x03
  --overlong             'm' replies are 70000 bytes without '#'
  --close-after N        after answering N packets, reset the connection
  --hangup-after N       after answering N packets, close the connection
                         (FIN, as when QEMU is killed)
  --freeze-after N       after answering N packets, read nothing more and
                         answer nothing (as QEMU stopped with SIGSTOP: the
                         connection stays open, the requests queue up)
  --rle                  run-length encode replies
  --arch A               x86-64 (default), i386, aarch64, s390x, none (no target.xml)
  --no-p                 'p' unsupported (empty reply)
  --stop-regs            the pc is in the 'T' stop reply ("10:...;")
  --multiprocess         as QEMU after a gdb that announced multiprocess+:
                         thread ids "p01.01", and 'D' without ";PID" is E22
The log (--log) has one line per packet received ("> m1000,10", "> ^C")
and per reply sent ("< ..."), for the test to check what was asked.
"""
import argparse
import os
import select
import socket
import struct
import sys
import time

ARCH = {  # target.xml architecture, pc register number, its size, order
    "x86-64": ("i386:x86-64", 16, 8, "little"),
    "i386": ("i386", 8, 4, "little"),
    "aarch64": ("aarch64", 32, 8, "little"),
    "s390x": ("s390:64-bit", 1, 8, "big"),  # pswa, QEMU sends it big endian
}


def load_image(path):
    blocks, pc = [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            a, _, b = line.partition(" ")
            if a == "pc":
                pc = int(b, 16)
            elif a == "vmcoreinfo":
                continue
            else:
                blocks.append((int(a, 16), bytes.fromhex(b)))
    return blocks, pc


def checksum(data):
    return sum(data) & 0xFF


def rle(data):
    """gdb's run-length encoding: c*N is c and N - 29 more c's."""
    out, i = bytearray(), 0
    while i < len(data):
        c = data[i]
        j = i + 1
        while j < len(data) and data[j] == c and j - i < 98:
            j += 1
        rep = j - i - 1
        out.append(c)
        if rep >= 3:
            # counts giving '#' or '$' must not be used: say one less
            while chr(rep + 29) in "#$":
                rep -= 1
            out += b"*" + bytes([rep + 29])
            j = i + 1 + rep
        else:
            j = i + 1
        i = j
    return bytes(out)


def escape_binary(data):
    out = bytearray()
    for c in data:
        if c in b"$#}*":
            out += bytes([0x7D, c ^ 0x20])
        else:
            out.append(c)
    return bytes(out)


class Stub:
    def __init__(self, conn, o, blocks, pc, log):
        self.c, self.o, self.blocks, self.pc, self.log = conn, o, blocks, pc, log
        self.noack = False
        self.running = o.running
        self.npackets = 0
        self.nreplies = 0
        self.last = self.last_bad = None
        self.buf = bytearray()
        self.arch = ARCH.get(o.arch)

    def note(self, s):
        if self.log:
            self.log.write(s + "\n")
            self.log.flush()

    def send_raw(self, b):
        try:
            self.c.sendall(b)
        except OSError:
            raise SystemExit(0)

    def reply(self, payload):
        if isinstance(payload, str):
            payload = payload.encode("latin-1")
        self.note("< " + payload[:200].decode("latin-1"))
        body = rle(payload) if self.o.rle else payload
        self.nreplies += 1
        pkt = b"$" + body + b"#%02x" % checksum(body)
        self.last = pkt
        bad = self.last_bad = b"$" + body + b"#%02x" % (checksum(body) ^ 0x55)
        if self.o.bad_checksum_always or (
                self.o.bad_checksum_every and self.nreplies % self.o.bad_checksum_every == 0):
            self.note("< (sent with a bad checksum)")
            self.send_raw(bad)
        else:
            self.send_raw(pkt)

    def read_mem(self, addr, n):
        out = bytearray()
        a = addr
        while len(out) < n:
            for base, data in self.blocks:
                if base <= a < base + len(data):
                    take = min(n - len(out), base + len(data) - a)
                    out += data[a - base:a - base + take]
                    a += take
                    break
            else:
                return None
        return bytes(out)

    def handle(self, cmd):
        o = self.o
        if cmd.startswith("qSupported"):
            feats = "PacketSize=%x" % o.packet_size
            if self.arch:
                feats += ";qXfer:features:read+"
            if not o.no_noack:
                feats += ";QStartNoAckMode+"
            return self.reply(feats + ";vContSupported+")
        if cmd == "QStartNoAckMode" and not o.no_noack:
            self.reply("OK")
            self.noack = True
            return None
        if cmd.startswith("qXfer:features:read:target.xml:") and self.arch:
            off, ln = (int(x, 16) for x in cmd.split(":")[4].split(","))
            xml = ('<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd">'
                   "<target><architecture>%s</architecture>"
                   '<xi:include href="core.xml"/></target>' % self.arch[0]).encode()
            part = xml[off:off + ln]
            more = off + ln < len(xml)
            return self.reply((b"m" if more else b"l") + escape_binary(part))
        if cmd == "?":
            return self.reply(self.stop_reply("05"))
        if cmd.startswith("m"):
            return self.mem(cmd)
        if cmd.startswith("p") and not o.no_p and self.arch:
            reg = int(cmd[1:], 16)
            size = self.arch[2]
            if reg == self.arch[1] and self.pc is not None:
                return self.reply(self.pc.to_bytes(size, self.arch[3]).hex())
            return self.reply("00" * size)
        if cmd == "g" and self.arch:
            size, regno = self.arch[2], self.arch[1]
            regs = bytearray((regno + 4) * size)
            if self.pc is not None:
                regs[regno * size:(regno + 1) * size] = self.pc.to_bytes(size, self.arch[3])
            return self.reply(regs.hex())
        if cmd.startswith("D"):
            if o.multiprocess and not cmd.startswith("D;"):
                return self.reply("E22")
            return self.reply("OK")
        return self.reply("")

    def stop_reply(self, sig):
        s = "T%sthread:%s;" % (sig, "p01.01" if self.o.multiprocess else "01")
        if self.o.stop_regs and self.arch and self.pc is not None:
            s += "%x:%s;" % (self.arch[1], self.pc.to_bytes(self.arch[2], self.arch[3]).hex())
        return s

    def mem(self, cmd):
        o = self.o
        try:
            a, n = (int(x, 16) for x in cmd[1:].split(","))
        except ValueError:
            return self.reply("E22")
        if 2 * n > o.packet_size or n == 0:
            return self.reply("E22")
        for p in o.error_pages:
            if a // 4096 <= p // 4096 <= (a + n - 1) // 4096:
                return self.reply("E14")
        if o.overlong:
            self.note("< (70000 bytes without '#')")
            return self.send_raw(b"$" + b"0" * 70000)
        data = self.read_mem(a, n)
        if data is None:
            return self.reply("E14")
        if o.garbage:
            return self.reply("zz" * n)
        if o.short and n > 1:
            data = data[:n // 2]
        return self.reply(data.hex())

    def packets(self, data):
        """Splits the input into acks, interrupts and packets."""
        self.buf += data
        while self.buf:
            c = self.buf[0]
            if c in b"+-":
                del self.buf[0]
                if c == ord("-") and self.last and not self.noack:
                    self.note("> -")
                    self.send_raw(self.last_bad if self.o.bad_checksum_always else self.last)
                continue
            if c == 3:
                del self.buf[0]
                yield "\x03"
                continue
            if c != ord("$"):
                del self.buf[0]
                continue
            h = self.buf.find(b"#")
            if h < 0 or len(self.buf) < h + 3:
                return
            body, cs = bytes(self.buf[1:h]), bytes(self.buf[h + 1:h + 3])
            del self.buf[:h + 3]
            if checksum(body) != int(cs, 16):
                self.note("> (bad checksum)")
                if not self.noack:
                    self.send_raw(b"-")
                continue
            yield body.decode("latin-1")

    def freeze(self, deadline):
        """Holds the connection open, reading nothing, until the deadline
        or until the client closes its end (POLLHUP)."""
        p = select.poll()
        p.register(self.c, select.POLLHUP | select.POLLRDHUP)
        while time.monotonic() < deadline:
            for _, ev in p.poll(200):
                if ev & (select.POLLHUP | select.POLLRDHUP):
                    return

    def serve(self, deadline):
        if self.o.unsolicited_stop:
            self.reply(self.stop_reply("02"))
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.c], [], [], 0.2)
            if not r:
                continue
            try:
                data = self.c.recv(65536)
            except OSError:
                return
            if not data:
                return
            for p in self.packets(data):
                if self.o.freeze_after is not None and self.npackets >= self.o.freeze_after:
                    self.note("(frozen)")
                    return self.freeze(deadline)
                self.npackets += 1
                self.note("> " + ("^C" if p == "\x03" else p))
                if self.running:
                    if p == "\x03":
                        self.running = False
                        self.reply(self.stop_reply("02"))
                    continue
                if self.o.silent_after is not None and self.npackets > self.o.silent_after:
                    continue
                if p == "\x03":
                    self.reply(self.stop_reply("02"))
                    continue
                if not self.noack:
                    self.send_raw(b"+")
                self.handle(p)
                if self.o.hangup_after is not None and self.npackets >= self.o.hangup_after:
                    self.note("(hangup)")
                    return
                if self.o.close_after is not None and self.npackets >= self.o.close_after:
                    # reset, not FIN: the client's next write fails (EPIPE)
                    time.sleep(0.1)
                    self.c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack("ii", 1, 0))
                    self.note("(reset)")
                    return


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--no-noack", action="store_true")
    ap.add_argument("--packet-size", type=int, default=0x1000)
    ap.add_argument("--garbage", action="store_true")
    ap.add_argument("--short", action="store_true")
    ap.add_argument("--silent-after", type=int)
    ap.add_argument("--error-pages", type=lambda s: int(s, 16), action="append", default=[])
    ap.add_argument("--bad-checksum-every", type=int, default=0)
    ap.add_argument("--bad-checksum-always", action="store_true")
    ap.add_argument("--unsolicited-stop", action="store_true")
    ap.add_argument("--running", action="store_true")
    ap.add_argument("--overlong", action="store_true")
    ap.add_argument("--close-after", type=int)
    ap.add_argument("--hangup-after", type=int)
    ap.add_argument("--freeze-after", type=int)
    ap.add_argument("--rle", action="store_true")
    ap.add_argument("--arch", default="x86-64", choices=list(ARCH) + ["none"])
    ap.add_argument("--no-p", action="store_true")
    ap.add_argument("--stop-regs", action="store_true")
    ap.add_argument("--multiprocess", action="store_true")
    o = ap.parse_args()
    blocks, pc = load_image(o.image)
    deadline = time.monotonic() + o.timeout

    srv = socket.socket(socket.AF_INET6 if ":" in o.host else socket.AF_INET,
                        socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((o.host, o.port))
    srv.listen(1)
    port = srv.getsockname()[1]
    if o.port_file:
        tmp = o.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.rename(tmp, o.port_file)
    else:
        print(port, flush=True)
    srv.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        conn, _ = srv.accept()
    except OSError:
        sys.exit(1)
    srv.close()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    log = open(o.log, "a") if o.log else None
    Stub(conn, o, blocks, pc, log).serve(deadline)
    conn.close()


if __name__ == "__main__":
    main()
