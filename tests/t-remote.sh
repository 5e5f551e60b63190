#!/bin/bash
# The GDB remote memory source (lib/target/gdbremote.c, lib/target/rsp.c) against a fake
# stub (tests/fake-stub.py) serving a memory image: every read through the
# stub must print what the same read of the image prints (memread
# --memimg). Covers ack and no-ack modes, small packet sizes (request
# counts), bad checksums in both modes, run-length encoding, short
# replies, QEMU's unsolicited stop reply, a running target (Ctrl-C), the
# pc ('p', stop reply, 'g'; x86-64, i386, aarch64, s390x big endian), the tty path through
# socat, and the failures: garbage, a silent stub, an overlong reply, an
# unreadable page, a reset connection, refused connections, bad specs.
# Then `modsect capture --remote` against a stub that stops answering
# (frozen, as QEMU under SIGSTOP) or goes away (closes, as QEMU killed)
# part way through the search for the kernel: exit 3 within a bound, one
# line naming the target, the address and the time, no output file; not
# the misleading "not the running kernel" or "no kallsyms tables".
# Only those checks look at wall time; elsewhere `timeout 20` only guards
# against a hang.
. "$(dirname "$0")/lib.sh"
need python3 socat || finish
MEMREAD=$TEST_TOOLS/memread
[ -x "$MEMREAD" ] || bail "$MEMREAD missing (make test-tools)"
STUB=$TESTS_DIR/fake-stub.py
# The interpreter itself: a version manager's python3 shim (pyenv) costs
# most of a second a start, and the test starts the stub 30 times.
PY=$(python3 -c 'import sys; print(sys.executable)') || bail "python3 does not run"

# The image: 64 KiB of random bytes, 8 KiB of zeros then 0xff (for
# run-length encoding), nothing after; a pc.
IMG=$T/img.txt
"$PY" - "$IMG" <<'X'
import random, sys
r = random.Random(7)
with open(sys.argv[1], "w") as f:
    f.write("# fake kernel memory\npc ffffffff81001234\n")
    f.write("ffffffff81000000 %s\n" % bytes(r.randrange(256) for _ in range(65536)).hex())
    f.write("ffffffff81020000 %s%s\n" % ("00" * 8192, "ff" * 100))
X
READS=(ffffffff81000000 600 ffffffff81000123 9000 ffffffff81020000 8292 ffffffff81000010 16)

# stub NAME [OPTION...]: starts the fake stub on a free port of 127.0.0.1
# (log $T/NAME.log); sets PORT, SPID, LOG.
stub() {
	local name=$1 _
	shift
	LOG=$T/$name.log
	rm -f "$T/$name.port"
	"$PY" "$STUB" "$IMG" --timeout 15 --port-file "$T/$name.port" --log "$LOG" "$@" &
	SPID=$!
	_bg_pids="${_bg_pids-} $SPID"
	for _ in $(seq 200); do
		[ -s "$T/$name.port" ] && break
		sleep 0.05
	done
	PORT=$(cat "$T/$name.port" 2>/dev/null)
	[ -n "$PORT" ] || not_ok "$name: the fake stub did not start"
}

# mr ARG...: memread (bounded); stdout $T/out, stderr $T/err, status RC.
mr() {
	timeout 20 "$MEMREAD" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

# check_read DESC: exit 0 and stdout the same as the image's ($T/want).
check_read() {
	if [ "$RC" = 0 ] && [ ! -s "$T/err" ]; then
		check_same "$1" "$T/want" "$T/out"
	else
		not_ok "$1" "want exit 0 and no message" "$(_last_run)"
	fi
}

# check_msg DESC WANT: exit 1, nothing on stdout, stderr exactly WANT.
check_msg() {
	if [ "$RC" = 1 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "$2" ]; then
		ok "$1"
	else
		not_ok "$1" "want exit 1, empty stdout, stderr: $2" "$(_last_run)"
	fi
}

# check_msg_re DESC ERE: check_msg with stderr matching ERE, whole.
check_msg_re() {
	if [ "$RC" = 1 ] && [ ! -s "$T/out" ] && grep -qxE -- "$2" "$T/err" &&
		[ "$(wc -l <"$T/err")" -eq 1 ]; then
		ok "$1"
	else
		not_ok "$1" "want exit 1, empty stdout, stderr: $2" "$(_last_run)"
	fi
}

# check_gone DESC: the stub exits by itself once its client is gone.
check_gone() {
	local _
	for _ in $(seq 100); do
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$SPID" 2>/dev/null; then
		not_ok "$1" "fake stub $SPID still running"
	else
		wait "$SPID" 2>/dev/null
		ok "$1"
	fi
}

# nlog ERE: how many lines of $LOG match.
nlog() {
	grep -cE -- "$1" "$LOG"
}

"$MEMREAD" --memimg "$IMG" --pc "${READS[@]}" >"$T/want" 2>"$T/want.err" ||
	bail "memread --memimg: $(cat "$T/want.err")"

# ---- normal operation --------------------------------------------------

stub plain
mr --remote ":$PORT" --pc "${READS[@]}"
check_read "no-ack mode: reads and pc as in the image"
check_eq "no-ack mode: QStartNoAckMode sent once" 1 "$(nlog '^> QStartNoAckMode$')"
check_eq "reads: no 'm' asks more than PacketSize / 2 (0x800)" "" \
	"$(sed -n 's/^> m[0-9a-f]*,//p' "$LOG" | while read -r n; do
		[ $((0x$n)) -le $((0x800)) ] || echo "$n"
	done)"
check_eq "close: the client detaches ('D') last" "> D" "$(grep '^>' "$LOG" | tail -1)"
check_gone "the stub exits when the client closes"

stub ack --no-noack
mr --remote "127.0.0.1:$PORT" --pc "${READS[@]}"
check_read "ack mode: reads and pc as in the image"
check_eq "ack mode: no QStartNoAckMode" 0 "$(nlog '^> QStartNoAckMode$')"
check_gone "ack mode: the stub exits"

stub multi --multiprocess
mr --remote ":$PORT" --pc "${READS[@]}"
check_read "multiprocess thread ids (QEMU after a gdb session)"
check_eq "multiprocess: 'D' refused, then 'D;1' (so QEMU resumes)" "> D,> D;1" \
	"$(grep -E '^> D' "$LOG" | paste -sd,)"
check_gone "multiprocess: the stub exits"

stub localhost
mr --remote "localhost:$PORT" --pc "${READS[@]}"
check_read "HOST:PORT with a host name (getaddrinfo)"
check_gone "localhost: the stub exits"

stub v6 --host ::1
mr --remote "[::1]:$PORT" --pc "${READS[@]}"
check_read "[::1]:PORT (IPv6)"
check_gone "IPv6: the stub exits"

# 256-byte packets: 128 bytes a request. Handshake: '?', qSupported,
# QStartNoAckMode, two qXfer reads of target.xml; then 16384 / 128 = 128
# reads. memread prints the counters before it closes, so 'D' is not in.
stub small --packet-size 256
mr --remote ":$PORT" --stats ffffffff81000000 16384
"$MEMREAD" --memimg "$IMG" ffffffff81000000 16384 >"$T/want.small"
head -1 "$T/out" >"$T/got.small"
check_same "PacketSize 256: the data" "$T/want.small" "$T/got.small"
check_eq "PacketSize 256: 5 handshake requests + 128 reads of 128 bytes" \
	"requests 133 bytes 16384" "$(tail -1 "$T/out")"
check_eq "PacketSize 256: every read asks 0x80 bytes" 128 "$(nlog '^> mffffffff810[0-9a-f]{5},80$')"
check_gone "small packets: the stub exits"

stub rle --rle
mr --remote ":$PORT" --pc "${READS[@]}"
check_read "run-length encoded replies are expanded"
check_gone "rle: the stub exits"

stub short --short
mr --remote ":$PORT" --pc "${READS[@]}"
check_read "short replies (fewer bytes than asked): the rest is asked for"
check_gone "short: the stub exits"

# ---- bad checksums -------------------------------------------------------

stub badack --no-noack --bad-checksum-every 3
mr --remote ":$PORT" --pc "${READS[@]}"
check_read "ack mode, every 3rd reply corrupted: recovered with '-'"
check_grep "ack mode: the client sent '-' and got the reply again" '^> -$' "$LOG"
check_gone "bad checksums (ack): the stub exits"

# Every 4th: not the 3rd, the OK to QStartNoAckMode, after which the stub
# has switched and ignores '-' (see transact() in lib/target/gdbremote.c).
stub badnoack --bad-checksum-every 4
mr --remote ":$PORT" --pc "${READS[@]}"
check_read "no-ack mode, every 4th reply corrupted: the request is repeated"
check_eq "no-ack mode: no '-' sent" 0 "$(nlog '^> -$')"
check_gone "bad checksums (no-ack): the stub exits"

stub badall --no-noack --bad-checksum-always
mr --remote ":$PORT" ffffffff81000000 600
check_msg "every reply corrupted: gives up after 3 tries" \
	"memread: remote 127.0.0.1:$PORT sent 4 replies with bad checksums to ?"
check_gone "bad checksums (all): the stub exits"

# ---- QEMU's behaviour: stop reply on connect; a running target ----------

stub unsol --unsolicited-stop --no-noack
mr --remote ":$PORT" --pc "${READS[@]}"
check_read "unsolicited stop reply on connect (as QEMU sends): skipped"
check_eq "unsolicited: it came first" "< T02thread:01;" "$(head -1 "$LOG")"
check_gone "unsolicited: the stub exits"

stub running --running
mr --remote ":$PORT" --timeout 500 --pc "${READS[@]}"
check_read "running target: stopped with one Ctrl-C, then read"
check_eq "running: '?' then one Ctrl-C" "> ?,> ^C" "$(grep -E '^> (\?|\^C)$' "$LOG" | paste -sd,)"
check_gone "running: the stub exits"

# ---- pc ------------------------------------------------------------------

stub stopregs --no-p --stop-regs
mr --remote ":$PORT" --pc
check_eq "pc from the stop reply's registers (no 'p')" "pc ffffffff81001234" "$(cat "$T/out")"
check_eq "pc from the stop reply: no 'g' asked" 0 "$(nlog '^> g$')"
check_gone "pc (stop reply): the stub exits"

stub greg --no-p
mr --remote ":$PORT" --pc
check_eq "pc from 'g' (no 'p', no registers in the stop reply)" "pc ffffffff81001234" "$(cat "$T/out")"
check_gone "pc (g): the stub exits"

stub noarch --arch none
mr --remote ":$PORT" --pc
check_msg "pc without a target description: unknown architecture" \
	"memread: remote 127.0.0.1:$PORT: no pc: the architecture is unknown (no target description)"
check_gone "pc (no arch): the stub exits"

IMG_X86=$IMG
IMG=$T/i386.txt
printf 'pc c1001234\nc1000000 00112233\n' >"$IMG"
stub i386 --arch i386
mr --remote ":$PORT" --pc c1000000 4
check_eq "i386: eip is register 8, 4 bytes" "pc c1001234,c1000000 00112233" "$(paste -sd, "$T/out")"
check_eq "i386: 'p8' asked" 1 "$(nlog '^> p8$')"
check_gone "i386: the stub exits"

IMG=$T/aarch64.txt
printf 'pc ffff800008001234\nffff800008000000 0011223344556677\n' >"$IMG"
stub aarch64 --arch aarch64 --no-p
mr --remote ":$PORT" --pc ffff800008000000 8
check_eq "aarch64: pc is register 32 (from 'g')" "pc ffff800008001234,ffff800008000000 0011223344556677" \
	"$(paste -sd, "$T/out")"
check_gone "aarch64: the stub exits"

# s390x: QEMU's s390x gdbstub sends registers big endian (pswa is the pc).
IMG=$T/s390x.txt
printf 'pc 0000000000123456\n100000 0011223344556677\n' >"$IMG"
for how in p g stop; do
	case $how in
	p) stub "s390x-$how" --arch s390x ;;
	g) stub "s390x-$how" --arch s390x --no-p ;;
	stop) stub "s390x-$how" --arch s390x --no-p --stop-regs ;;
	esac
	mr --remote ":$PORT" --pc 100000 8
	check_eq "s390x: pc is register 1 (pswa), big endian (from $how)" "pc 123456,100000 0011223344556677" \
		"$(paste -sd, "$T/out")"
	check_gone "s390x ($how): the stub exits"
done
IMG=$IMG_X86

# ---- the tty path, through socat -------------------------------------------

# socat_tty NAME: a pty at $T/NAME.tty relayed to the stub's port.
socat_tty() {
	local _
	socat "pty,link=$T/$1.tty,raw,echo=0" "tcp:127.0.0.1:$PORT" 2>"$T/$1.socat.err" &
	SOCAT=$!
	_bg_pids="${_bg_pids-} $SOCAT"
	for _ in $(seq 200); do
		[ -e "$T/$1.tty" ] && break
		sleep 0.05
	done
}

stub tty --no-noack
socat_tty tty
mr --remote "$T/tty.tty" --baud 12345 --pc "${READS[@]}"
check_msg "tty: an unsupported baud rate is refused" \
	"memread: remote $T/tty.tty: baud rate 12345 is not supported (9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 921600, 1000000, 1500000, 2000000, 3000000, 4000000)"
(cd "$T" && timeout 20 "$MEMREAD" --remote ./tty.tty --baud 115200 --pc "${READS[@]}" >"$T/out" 2>"$T/err")
RC=$?
check_read "tty (./PATH, a pty from socat, 115200 8N1): reads and pc"
check_grep "tty: detached at the end" '^> D$' "$LOG"
kill "$SOCAT" 2>/dev/null
wait "$SOCAT" 2>/dev/null
check_gone "tty: the stub exits once socat is gone"

# fd:N: a socket the caller connected (the gdb command lends gdb's link so)
stub fdsock
"$PY" -c '
import os, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
os.set_inheritable(s.fileno(), True)
os.execv(sys.argv[2], [sys.argv[2], "--remote", "fd:%d" % s.fileno()] + sys.argv[3:])
' "$PORT" "$MEMREAD" --pc "${READS[@]}" >"$T/out" 2>"$T/err"
RC=$?
check_read "fd:N (a connected socket passed by the caller): reads and pc"
check_eq "fd:N: the client detaches ('D') last" "> D" "$(grep '^>' "$LOG" | tail -1)"
check_gone "fd:N: the stub exits when the client closes"
mr --remote fd:x ffffffff81000000 16
check_msg "fd: that is no number" "memread: remote fd:x: not a file descriptor number"
mr --remote fd:0 ffffffff81000000 16 </dev/null
check_msg "fd: that is no socket" "memread: remote fd:0: not an open stream socket"

mr --remote /dev/null ffffffff81000000 16
check_msg "a path that is no tty" \
	"memread: remote /dev/null: not a tty: Inappropriate ioctl for device"
mr --remote "$T/nosuchtty" ffffffff81000000 16
check_msg "a tty that does not exist" \
	"memread: remote $T/nosuchtty: No such file or directory"

# ---- failures ----------------------------------------------------------------

stub garbage --garbage
mr --remote ":$PORT" ffffffff81000000 600
check_msg "garbage (non-hex) reply to a read: a clear error" \
	"memread: reading memory at 0xffffffff81000000 (600 bytes) from remote 127.0.0.1:$PORT: malformed reply from remote 127.0.0.1:$PORT to mffffffff81000000,258: not hex"
check_gone "garbage: the stub exits"

stub overlong --overlong
mr --remote ":$PORT" ffffffff81000000 600
check_msg "an overlong reply without '#': refused" \
	"memread: reading memory at 0xffffffff81000000 (600 bytes) from remote 127.0.0.1:$PORT: reply from remote 127.0.0.1:$PORT to mffffffff81000000,258 is longer than 65536 bytes (no '#')"
check_gone "overlong: the stub exits"

# Four handshake packets ('?', qSupported, QStartNoAckMode, qXfer), then
# silence.
stub silent --silent-after 4
mr --remote ":$PORT" --timeout 500 ffffffff81000000 600
check_msg_re "a stub that stops answering: an error naming the request" \
	"memread: reading memory at 0xffffffff81000000 \(600 bytes\) from remote 127\.0\.0\.1:$PORT: remote 127\.0\.0\.1:$PORT stopped answering: no reply within 500 ms to mffffffff81000000,258 \([0-9.]+ m?s into the session\)"
check_eq "silent stub: no detach after a timeout" 0 "$(nlog '^> D$')"
check_gone "silent: the stub exits"

stub mute --silent-after 0
mr --remote ":$PORT" --timeout 500 ffffffff81000000 600
check_msg "a stub that never answers: '?', one Ctrl-C, then an error" \
	"memread: remote 127.0.0.1:$PORT does not stop: no stop reply within 1 s of '?' and then Ctrl-C"
check_gone "mute: the stub exits"

stub errpage --error-pages ffffffff81001000
mr --remote ":$PORT" ffffffff81000c00 4096
check_msg "E14 for a page: the message names the unreadable page" \
	"memread: reading memory at 0xffffffff81000c00 (4096 bytes) from remote 127.0.0.1:$PORT: stub error E14: memory at 0xffffffff81001000 is not readable"
check_eq "error page: the readable part was read up to the page" 1 "$(nlog '^> mffffffff81000c00,400$')"
check_gone "error page: the stub exits"

stub unmapped
mr --remote ":$PORT" ffffffff81010000 16
check_msg "memory the stub does not have: E14 names the address" \
	"memread: reading memory at 0xffffffff81010000 (16 bytes) from remote 127.0.0.1:$PORT: stub error E14: memory at 0xffffffff81010000 is not readable"
check_gone "unmapped: the stub exits"

# The stub resets the connection after the handshake ('?', qSupported,
# qXfer) and one read: the next read or write fails (ECONNRESET, EPIPE),
# which must be an error, not SIGPIPE.
stub reset --no-noack --close-after 4
mr --remote ":$PORT" ffffffff81000000 600 ffffffff81000000 600
if [ "$RC" = 1 ] && grep -Eq "remote 127.0.0.1:$PORT closed the connection|writing to remote 127.0.0.1:$PORT: (Broken pipe|Connection reset by peer)" "$T/err"; then
	ok "a reset connection: an error (exit 1, no SIGPIPE)"
else
	not_ok "a reset connection: an error (exit 1, no SIGPIPE)" "$(_last_run)"
fi
check_gone "reset: the stub exits"

# Port 1 on 127.0.0.1: nothing listens there (it needs root, the tests
# never bind it).
mr --remote 127.0.0.1:1 ffffffff81000000 16
check_msg "connection refused" "memread: remote 127.0.0.1:1: connect: Connection refused"

for s in "nohost|remote nohost: not HOST:PORT, [IPV6]:PORT or a tty path (/dev/..., ./...)" \
	":0|remote :0: port 0 is out of range (1-65535)" \
	":99999|remote :99999: port 99999 is out of range (1-65535)" \
	":12ab|remote :12ab: port '12ab' is not a number" \
	"host:|remote host:: port '' is not a number" \
	"[::1|remote [::1: not [IPV6]:PORT"; do
	mr --remote "${s%%|*}" ffffffff81000000 16
	check_msg "bad spec '${s%%|*}'" "memread: ${s#*|}"
done
mr --remote nosuchhost.invalid:1234 ffffffff81000000 16
check_refused "unknown host name: getaddrinfo's message" 1 \
	'^memread: remote nosuchhost.invalid:1234: (Name or service not known|Temporary failure in name resolution|No address associated with hostname)$'

# ---- a target that stops answering or goes away, in modsect capture ------

# 3 MiB of kernel memory from _text (the pc's 2 MiB slot): the search
# without an image reads the first 2 MiB (about 1030 requests with the
# handshake), finds no kallsyms, and reads on.
IMG=$T/big.txt
"$PY" - "$IMG" <<'X'
import sys
with open(sys.argv[1], "w") as f:
    f.write("pc ffffffff81001234\nffffffff81000000 %s\n" % ("00" * (3 << 20)))
X
KIMG=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)

# capfail DESC ERE STUB_OPTION... -- CAPTURE_OPTION...: modsect capture
# --remote --timeout 1 against a stub started with STUB_OPTIONs: exit 3
# within 15 s (ASan included), stderr the one line ^modsect: ERE$ (PORT
# is substituted), no output file, and the stub gone. With FAILCMD=serve,
# `modsect serve --remote` (#30) instead, and nothing on its stdout (the
# debugger's end).
capfail() {
	local desc=$1 re=$2 t0 secs
	shift 2
	local sopt=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		sopt+=("$1")
		shift
	done
	shift
	stub capfail "${sopt[@]}"
	t0=$EPOCHREALTIME
	if [ "${FAILCMD:-capture}" = serve ]; then
		timeout 60 "$MODSECT" serve --remote ":$PORT" --timeout 1 "$@" </dev/null >"$T/cap.txt" 2>"$T/err"
		RC=$?
		[ -s "$T/cap.txt" ] || rm -f "$T/cap.txt"
	else
		timeout 60 "$MODSECT" capture --remote ":$PORT" --timeout 1 "$@" -o "$T/cap.txt" >"$T/out" 2>"$T/err"
		RC=$?
	fi
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	re=${re//@PORT@/$PORT}
	if [ "$RC" = 3 ] && [ ! -e "$T/cap.txt" ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -Eq -- "^modsect: $re\$" "$T/err" &&
		awk -v s="$secs" 'BEGIN { exit !(s < 15) }'; then
		ok "$desc: exit 3 in ${secs}s, nothing written: $(cut -c1-160 "$T/err")"
	else
		not_ok "$desc: want exit 3 within 15 s (${secs}s), no output file, the one line /^modsect: $re\$/" \
			"$(ls "$T/cap.txt" 2>/dev/null)" "$(_last_run)"
	fi
	check_gone "$desc: the stub exits"
}

R='remote 127\.0\.0\.1:@PORT@'
capfail "frozen in the kallsyms search (no image)" \
	"reading the kernel image at 0xffffffff81200000 \(2097152 bytes\) from $R: $R stopped answering: no reply within 1 s to mffffffff812[0-9a-f]{5},800 \([0-9.]+ m?s into the session\)" \
	--freeze-after 1100 --
capfail "closed in the kallsyms search (no image)" \
	"reading the kernel image at 0xffffffff81200000 \(2097152 bytes\) from $R: $R closed the connection \(the target went away, [0-9.]+ m?s into the session\)" \
	--hangup-after 1100 --
capfail "frozen before the first request: the stop request times out" \
	"$R does not stop: no stop reply within 2 s of '\?' and then Ctrl-C" \
	--freeze-after 0 --
if [ -n "$KIMG" ]; then
	capfail "frozen in the KASLR search (--kernel-image $KIMG)" \
		"reading linux_banner at 0xffffffff[0-9a-f]{8} \([0-9]+ bytes\) from $R: $R stopped answering: no reply within 1 s to m[0-9a-f]+,[0-9a-f]+ \([0-9.]+ m?s into the session\)" \
		--freeze-after 60 -- --kernel-image "$KIMG"
	capfail "closed in the KASLR search (--kernel-image $KIMG)" \
		"reading linux_banner at 0xffffffff[0-9a-f]{8} \([0-9]+ bytes\) from $R: $R closed the connection \(the target went away, [0-9.]+ m?s into the session\)" \
		--hangup-after 60 -- --kernel-image "$KIMG"
else
	not_ok "the KASLR search with --kernel-image: no /boot/vmlinuz-* (install linux-image-amd64)"
fi
FAILCMD=serve capfail "serve --remote: a stub frozen while the kernel is found" \
	"reading the kernel image at 0xffffffff81200000 \(2097152 bytes\) from $R: $R stopped answering: no reply within 1 s to mffffffff812[0-9a-f]{5},800 \([0-9.]+ m?s into the session\)" \
	--freeze-after 1100 --
FAILCMD=serve capfail "serve --remote: a stub that closes while the kernel is found" \
	"reading the kernel image at 0xffffffff81200000 \(2097152 bytes\) from $R: $R closed the connection \(the target went away, [0-9.]+ m?s into the session\)" \
	--hangup-after 1100 --

finish
