#!/bin/bash
# tests/vm/memfail.sh - a memory source that fails part way, against a real
# kernel (QEMU, TCG, KASLR on, Debian's kernel): a target that stops
# answering or goes away, and vmcores cut short, must end `modsect capture`
# with exit 3, in bounded time, saying what failed, and write nothing;
# never "the kernel image ... is not the running kernel" or "no kallsyms
# tables ...; give --kernel-image" (issue #21).
#
#   MODSECT=build/san/modsect MODSECT_STATIC=$PWD/modsect-static tests/vm/memfail.sh
#
# One boot; the guest loads qemu_fw_cfg, so dumps carry VMCOREINFO.
#
#  1. vmcores: QMP dump-guest-memory to an ELF vmcore; `modsect capture
#     --vmcore` of the whole dump equals the guest's sysfs capture (sorted
#     lines); the dump cut to 90%, 50% and 10% (truncated in place), with
#     and without --kernel-image: exit 3 within the bound, "vmcore ... is
#     truncated: ...", no output file.
#  2. the gdbstub: a whole `modsect capture --remote` (with and without
#     --kernel-image) equals the guest's capture, and its time T is
#     measured; then the same with QEMU stopped (SIGSTOP) before it starts
#     (the first request times out) and at T/3: exit 3 within --timeout
#     plus a margin, "remote ... stopped answering: no reply within 2 s" or "does not
#     stop", no output file; QEMU continued after each.
#  3. QEMU killed (SIGKILL) at T/3 of a capture without an image: exit 3,
#     "closed the connection (the target went away, ...)" (or the write
#     that found it gone), no output; then, with QEMU gone, with and
#     without --kernel-image: exit 3, refused connection.
#
# Prints "ok - ..." / "not ok - ..." per check, then "N passed, N failed"; exit 1
# if anything failed.  Run as root (see README.md).  Environment: MODSECT
# (default ./modsect), MODSECT_STATIC (static modsect for the guest's
# capture; default ./modsect-static), MODSECT_VM_KEEP_DUMPS=1 keeps the
# dump, and lib.sh's MODSECT_VM_*.  Its build products and run state are in
# out/memfail/ by default.
set -u
unset DEBUGINFOD_URLS
VM_DIR0=$(cd "$(dirname "$0")" && pwd)
export MODSECT_VM_OUT=${MODSECT_VM_OUT:-$VM_DIR0/out/memfail}
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs qemu_fw_cfg"}
. "$VM_DIR0/lib.sh"

TOP=$(cd "$VM_DIR/../.." && pwd)
vm_modsect "$TOP/modsect"
if [ -z "${MODSECT_STATIC:-}" ] && [ -x "$TOP/modsect-static" ]; then
	export MODSECT_STATIC=$TOP/modsect-static
fi
# A run that ends at an I/O failure: --timeout per request, and a margin
# for ASan and TCG (a whole capture over the stub takes seconds).
TIMEOUT=2
BOUND=${MODSECT_VM_FAIL_BOUND:-60}

vm_setup
vm_start

W=$VM_RUN/memfail
rm -rf "$W"
mkdir -p "$W"
# modsect keeps the decompressed kernel image in its cache (kimage.c), and
# a run from the cache is done before a third of a decompressing run's
# time: here every --kernel-image run decompresses (the cache's kernels/
# cannot be made), so the partway stops fall inside the runs as before.
export XDG_CACHE_HOME=$W/cache
mkdir -p "$XDG_CACHE_HOME/modsect" && : >"$XDG_CACHE_HOME/modsect/kernels"
# A run copy: a `make` elsewhere in the tree may replace the binary.
cp "$MODSECT" "$W/modsect" || vm_die "cannot copy $MODSECT"
MS=$W/modsect
QEMU_STOPPED=
cleanup() {
	[ -z "$QEMU_STOPPED" ] || kill -CONT "$VM_QEMU_PID" 2>/dev/null
	[ "${MODSECT_VM_KEEP_DUMPS:-0}" = 1 ] || rm -f "$W/core.elf"
	vm_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# run NAME CMD...: stdout in $W/NAME.out, stderr in $W/NAME.err, seconds in
# $SECS.  Returns the status.  A sanitizer report fails.
run() {
	local name=$1 rc=0 t0
	shift
	t0=$EPOCHREALTIME
	"$@" >"$W/$name.out" 2>"$W/$name.err" || rc=$?
	SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$W/$name.err"; then
		not_ok "$name: sanitizer report"
		grep -m 12 -E 'ERROR: |SUMMARY: | #[0-9] ' "$W/$name.err" | detail
	fi
	return "$rc"
}

# sorted FILE: a capture's lines without its comment, sorted.
sorted() {
	grep -v '^#' "$1" | LC_ALL=C sort
}

REF=$VM_RUN/capture.txt
if [ -z "${MODSECT_STATIC:-}" ]; then
	not_ok "MODSECT_STATIC not set: the guest ran no modsect capture to compare with"
elif grep -qx 'rc=0' "$VM_RUN/capture-stderr.txt" && grep -q '^modsect-capture 1$' "$REF"; then
	ok "guest's sysfs capture: $(grep -c '^module ' "$REF") modules, $(grep -c '^section ' "$REF") sections"
else
	not_ok "guest's modsect capture failed"
	detail <"$VM_RUN/capture-stderr.txt"
fi
sorted "$REF" >"$W/ref.sorted"
REMOTE=127.0.0.1:$VM_GDB_PORT

# whole LABEL ARGS...: modsect capture ARGS -o FILE equals the guest's.
whole() {
	local label=$1
	shift
	rm -f "$W/$label.txt"
	if ! run "$label" "$MS" capture "$@" -o "$W/$label.txt"; then
		not_ok "$label: modsect capture $* failed"
		head -n 5 "$W/$label.err" | detail
	elif sorted "$W/$label.txt" | cmp -s - "$W/ref.sorted"; then
		ok "$label: the whole map == the guest's sysfs capture ($(grep -c '^module ' "$W/$label.txt") modules) in ${SECS}s"
	else
		not_ok "$label: the map differs from the guest's sysfs capture"
		sorted "$W/$label.txt" | diff "$W/ref.sorted" - | head -n 20 | detail
	fi
}

# fails LABEL ERE WHEN ARGS...: modsect capture ARGS -o FILE (in the
# background, WHEN = "now" or the command that breaks the source after it
# started) exits 3 within BOUND seconds, stderr matching ERE, no FILE.
fails() {
	local label=$1 re=$2 when=$3 pid rc=0 t0
	shift 3
	rm -f "$W/$label.txt"
	t0=$EPOCHREALTIME
	"$MS" capture "$@" -o "$W/$label.txt" >"$W/$label.out" 2>"$W/$label.err" &
	pid=$!
	[ "$when" = now ] || eval "$when"
	wait "$pid" || rc=$?
	SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$W/$label.err"; then
		not_ok "$label: sanitizer report"
		grep -m 12 -E 'ERROR: |SUMMARY: | #[0-9] ' "$W/$label.err" | detail
	elif [ "$rc" = 3 ] && [ ! -e "$W/$label.txt" ] && grep -Eq -- "$re" "$W/$label.err" &&
		awk -v s="$SECS" -v b="$BOUND" 'BEGIN { exit !(s < b) }'; then
		ok "$label: exit 3 in ${SECS}s, nothing written: $(head -c 300 "$W/$label.err")"
	else
		not_ok "$label: want exit 3 within ${BOUND}s, no output file, /$re/; got exit $rc in ${SECS}s$([ ! -e "$W/$label.txt" ] || echo ", $W/$label.txt written")"
		head -n 5 "$W/$label.err" | detail
	fi
}

# --- 1. vmcores -------------------------------------------------------------------
vm_dump "$W/core.elf" elf
SIZE=$(stat -c %s "$W/core.elf")
echo "info: ELF vmcore $((SIZE >> 20)) MiB"
whole vmcore-whole --vmcore "$W/core.elf"
whole vmcore-whole-image --vmcore "$W/core.elf" --kernel-image "$VM_KERNEL"
# Cut in place, longest first (truncate only shortens).
for pct in 90 50 10; do
	truncate -s $((SIZE * pct / 100)) "$W/core.elf"
	# what the headers need is the file's size less any padding after
	re="^modsect: vmcore $W/core.elf is truncated: $((SIZE * pct / 100)) bytes, its program headers need [0-9]+ \\($((100 - pct))\\.[0-9]% missing: .*; memory past offset $((SIZE * pct / 100)) \\(physical memory from 0x[0-9a-f]+ on\\) cannot be read"
	fails "vmcore-cut$pct" "$re" now --vmcore "$W/core.elf"
	fails "vmcore-cut$pct-image" "$re" now --vmcore "$W/core.elf" --kernel-image "$VM_KERNEL"
done
rm -f "$W/core.elf"

# --- 2. the gdbstub stopped -----------------------------------------------------
whole remote-whole --remote "$REMOTE"
T_MEM=$SECS
whole remote-whole-image --remote "$REMOTE" --kernel-image "$VM_KERNEL"
T_IMG=$SECS
# Stopped at a third of a whole capture's time (at least 0.2 s).
third() { awk -v t="$1" 'BEGIN { t /= 3; printf "%.2f", t < 0.2 ? 0.2 : t }'; }
R="remote 127\\.0\\.0\\.1:$VM_GDB_PORT"
STOPPED_RE="($R stopped answering: no reply within $TIMEOUT s to |$R does not stop: no stop reply within)"
stop_qemu() {
	sleep "$1"
	kill -STOP "$VM_QEMU_PID"
	QEMU_STOPPED=1
}
cont_qemu() {
	kill -CONT "$VM_QEMU_PID"
	QEMU_STOPPED=
	# A run that timed out did not detach: let the guest run again, once
	# QEMU has seen that connection close.
	sleep 1
	timeout 60 "$(vm_gdb)" -q -nx -batch -ex "target remote $REMOTE" -ex detach \
		>/dev/null 2>&1 || not_ok "gdb could not attach to detach after SIGCONT"
}
stop_qemu 0
fails stopped-before "^modsect: .*$STOPPED_RE" now --remote "$REMOTE" --timeout "$TIMEOUT"
fails stopped-before-image "^modsect: .*$STOPPED_RE" now --remote "$REMOTE" --timeout "$TIMEOUT" \
	--kernel-image "$VM_KERNEL"
cont_qemu
fails stopped-partway "^modsect: .*$STOPPED_RE" "stop_qemu $(third "$T_MEM")" \
	--remote "$REMOTE" --timeout "$TIMEOUT"
cont_qemu
fails stopped-partway-image "^modsect: .*$STOPPED_RE" "stop_qemu $(third "$T_IMG")" \
	--remote "$REMOTE" --timeout "$TIMEOUT" --kernel-image "$VM_KERNEL"
cont_qemu
for l in stopped-partway stopped-partway-image; do
	if grep -qE 'is not the running kernel|no kallsyms tables' "$W/$l.err"; then
		not_ok "$l: the old misdiagnosis: $(cat "$W/$l.err")"
	fi
done
if vm_cmd dmesg 60; then
	ok "the guest runs again after SIGCONT and a detach"
else
	not_ok "the guest does not answer after SIGCONT"
fi

# --- 3. QEMU killed -------------------------------------------------------------
GONE_RE="($R closed the connection \\(the target went away, |writing to $R: (Broken pipe|Connection reset by peer))"
fails killed-partway "^modsect: .*$GONE_RE" "sleep $(third "$T_MEM"); kill -KILL $VM_QEMU_PID" \
	--remote "$REMOTE" --timeout "$TIMEOUT"
{ wait "$VM_QEMU_PID"; } 2>/dev/null
VM_QEMU_PID=
fails killed-after "^modsect: $R: connect: Connection refused$" now --remote "$REMOTE" --timeout "$TIMEOUT"
fails killed-after-image "^modsect: $R: connect: Connection refused$" now --remote "$REMOTE" \
	--timeout "$TIMEOUT" --kernel-image "$VM_KERNEL"

summary
