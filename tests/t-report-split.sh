#!/bin/bash
# Rule 20: where decode ends one report of a stream and begins the next
# (issue #24). A report's machine is the first its lines show, and it is
# seen here through module files of the same name for arm64 and x86-64
# and a live x86-64 map: a frame decoded with the wrong report's machine
# is refused (the arm64 file against the x86-64 map) or taken from the
# x86-64 file. Not split: a WARNING from the "CPU: N PID:" header after
# it, lockdep's chains from the "stack backtrace:" after them. Split: a
# report whose excerpt begins with that header, after one cut short. And
# lines outside a report are written before the input ends (a pipe).
. "$(dirname "$0")/lib.sh"
need gcc ld aarch64-linux-gnu-gcc aarch64-linux-gnu-ld python3 || finish

M=$T/m
mkdir -p "$M/a64" "$M/x86"
cat >"$M/smod.c" <<'EOF'
volatile int smod_sink;
__attribute__((noinline)) int smod_outer(int x)
{
	smod_sink = x;
	return x * 7 + smod_sink;
}
__attribute__((noinline)) int smod_caller(int x)
{
	int r = smod_outer(x);

	smod_sink = r;
	return smod_outer(r) + 2;
}
EOF
aarch64-linux-gnu-gcc -g -O2 -c -o "$M/a64/smod.o" "$M/smod.c" &&
	aarch64-linux-gnu-ld -r --build-id=sha1 -o "$M/a64/smod.ko" "$M/a64/smod.o" ||
	bail "build the arm64 module"
gcc -fno-pic -mcmodel=kernel -g -O2 -c -o "$M/x86/smod.o" "$M/smod.c" &&
	ld -r --build-id=sha1 -o "$M/x86/smod.ko" "$M/x86/smod.o" ||
	bail "build the x86-64 module"
# The live map of an x86-64 machine on which smod is not loaded.
R=$T/root
mkrelease "$R"
mkdir -p "$R/sys/module"
DEC=(decode --offline --root "$R" --search "$M")

# annotated FILE: how many smod frames of FILE carry a location.
annotated() {
	grep -Ec '\[smod\] .*smod\.c:[0-9]+(:[0-9]+)?$' "$1"
}

# An arm64 WARNING: its first frame comes before the header and before
# anything shows the machine.
cat >"$T/warn" <<'EOF'
[    5.000001] ------------[ cut here ]------------
[    5.000002] WARNING: CPU: 0 PID: 77 at drivers/smod.c:4 smod_outer+0x4/0x20 [smod]
[    5.000003] Modules linked in: smod
[    5.000004] CPU: 0 PID: 77 Comm: insmod Not tainted 6.1.0-modsect #1
[    5.000005] Hardware name: linux,dummy-virt (DT)
[    5.000006] pstate: 60000005 (nZCv daif -PAN -UAO -TCO -DIT -SSBS BTYPE=--)
[    5.000007] pc : smod_outer+0x4/0x20 [smod]
[    5.000008] lr : smod_caller+0x10/0x40 [smod]
[    5.000009] Call trace:
[    5.000010]  smod_outer+0x4/0x20 [smod]
[    5.000011]  smod_caller+0x10/0x40 [smod]
[    5.000012] ---[ end trace 0000000000000000 ]---
EOF
ms "${DEC[@]}" "$T/warn"
check_rc "arm64 WARNING, the header after its first frame: exit 0" 0
check_eq "arm64 WARNING: every frame, the WARNING's too, from the arm64 file" 5 "$(annotated "$T/out")"

# lockdep on arm64: the chains' frames, then "stack backtrace:", the
# header and a "Call trace:", the first line to show the machine.
cat >"$T/lockdep" <<'EOF'
[    6.000001] ======================================================
[    6.000002] WARNING: possible circular locking dependency detected
[    6.000003] 6.1.0-modsect #1 Not tainted
[    6.000004] ------------------------------------------------------
[    6.000005] insmod/77 is trying to acquire lock:
[    6.000006] ffff0000c1234568 (&b){+.+.}-{3:3}, at: smod_outer+0x4/0x20 [smod]
[    6.000007] the existing dependency chain (in reverse order) is:
[    6.000008] -> #1 (&a){+.+.}-{3:3}:
[    6.000009]        smod_outer+0x4/0x20 [smod]
[    6.000010]        smod_caller+0x10/0x40 [smod]
[    6.000011] stack backtrace:
[    6.000012] CPU: 0 PID: 77 Comm: insmod Not tainted 6.1.0-modsect #1
[    6.000013] Hardware name: linux,dummy-virt (DT)
[    6.000014] Call trace:
[    6.000015]  smod_caller+0x10/0x40 [smod]
EOF
ms "${DEC[@]}" "$T/lockdep"
check_rc "arm64 lockdep report: exit 0" 0
check_eq "arm64 lockdep report: one report, the chains' frames from the arm64 file too" 4 \
	"$(annotated "$T/out")"

# An x86-64 report cut short (no end marker), then an arm64 excerpt that
# begins with the header: two reports, each with its own machine's file.
cat >"$T/x86" <<'EOF'
[    7.000001] BUG: kernel NULL pointer dereference, address: 0000000000000000
[    7.000002] Oops: 0000 [#1] PREEMPT SMP NOPTI
[    7.000003] CPU: 1 PID: 88 Comm: modprobe Not tainted 6.1.0-modsect #1
[    7.000004] RIP: 0010:smod_outer+0x4/0x20 [smod]
[    7.000005] Call Trace:
[    7.000006]  <TASK>
[    7.000007]  smod_caller+0x10/0x40 [smod]
EOF
sed -n '4,$p' "$T/warn" >"$T/a64"
for p in x86 a64; do
	ms "${DEC[@]}" "$T/$p"
	check_rc "the $p part alone: exit 0" 0
	cp "$T/out" "$T/$p.out"
done
cat "$T/x86" "$T/a64" >"$T/stream"
cat "$T/x86.out" "$T/a64.out" >"$T/want"
ms "${DEC[@]}" "$T/stream"
check_rc "a report cut short, then an excerpt opening with the header: exit 0" 0
check_same "a report cut short, then an excerpt opening with the header: two reports, each as alone" \
	"$T/want" "$T/out"
check_eq "... every smod frame annotated" $(($(annotated "$T/x86.out") + $(annotated "$T/a64.out"))) \
	"$(annotated "$T/out")"

# From a pipe, a line outside any report comes out before the input ends.
mkfifo "$T/fifo"
"$MODSECT" "${DEC[@]}" <"$T/fifo" >"$T/piped" 2>"$T/err" &
pid=$!
exec 7>"$T/fifo"
printf '[    8.000001] usb 1-1: new device\n' >&7
got=no
for _ in $(seq 100); do
	grep -q 'new device' "$T/piped" && { got=yes; break; }
	sleep 0.1
done
printf '[    8.000002] usb 1-1: gone\n' >&7
exec 7>&-
wait "$pid"
check_eq "from a pipe: a line outside any report written before the input ends" yes "$got"
check_eq "from a pipe: every line" 2 "$(wc -l <"$T/piped")"

finish
