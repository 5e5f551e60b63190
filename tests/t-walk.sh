#!/bin/bash
# Rule 28: the kernel's own stack walk on s390x, ppc64 and 32-bit ARM
# (lib/emit/stkscript.c).  For a map of each machine, `modsect gdb --all
# --kernel` ends its script with a gdb unwinder; tests/tools/walkmock.py
# runs it on made-up stacks with a stand-in for gdb's Python API, and
# each case must give what the kernel's unwinder takes from that stack
# (arch/s390/kernel/unwind_bc.c, arch/powerpc/kernel/process.c
# show_stack(), entry-armv.S's pt_regs): the back chain, a pt_regs as
# the interrupted context, the end of the stack at user pt_regs, and no
# frame from a pt_regs that does not fit its frame.  Machines with
# tables (x86-64, arm64, i386) and lldb get no such unwinder.
# vm/unwind.sh proves the walk in QEMU against the kernel's own traces.
. "$(dirname "$0")/lib.sh"
need python3 s390x-linux-gnu-gcc powerpc64le-linux-gnu-gcc \
	arm-linux-gnueabihf-gcc gcc || finish

# mod DIR PREFIX: DIR/wm.ko for the cross compiler PREFIX.
mod() {
	mkdir -p "$1"
	cat >"$1/wm.c" <<'EOF'
int wm_data = 42;
int wm_func(int x) { return x * wm_data; }
static const char __UNIQUE_ID_name[] __attribute__((section(".modinfo"), used)) = "name=wm";
EOF
	"$2gcc" -O2 -c -o "$1/wm.o" "$1/wm.c" &&
		"$2ld" -r --build-id=sha1 -o "$1/wm.ko" "$1/wm.o"
}

# cap FILE MACHINE KO TEXT KALLSYMS...: a capture of wm at TEXT.
cap() {
	local f=$1 m=$2 ko=$3 text=$4
	shift 4
	{
		echo "modsect-capture 1"
		echo "release 6.1.0-walk"
		echo "machine $m"
		echo "module wm live"
		echo "build-id wm $(build_id "$ko")"
		echo "section wm .text $text"
		printf '%s\n' "$@"
	} >"$f"
}

mod "$T/s390x" s390x-linux-gnu- 2>"$T/cc.err" || bail "s390x module: $(cat "$T/cc.err")"
mod "$T/ppc64" powerpc64le-linux-gnu- 2>"$T/cc.err" || bail "ppc64le module: $(cat "$T/cc.err")"
mod "$T/arm" arm-linux-gnueabihf- 2>"$T/cc.err" || bail "ARM module: $(cat "$T/cc.err")"
cap "$T/s390x.cap" s390x "$T/s390x/wm.ko" 0x3ff7fd4e000 \
	"0000000000100000 T _stext" "0000000000100200 T ext_int_handler" \
	"0000000000a00000 T _etext"
cap "$T/ppc64.cap" ppc64le "$T/ppc64/wm.ko" 0xc008000000540000 \
	"c000000000000000 T _stext" "c000000000200000 T timer_interrupt" \
	"c000000000e00000 T _etext"
cap "$T/arm.cap" armv7l "$T/arm/wm.ko" 0xbf032000 \
	"c0300000 T _stext" "c03000c0 T ret_fast_syscall" "c03000dc T ret_to_user" \
	"c0300ae0 T __dabt_svc" "c0300b60 T __irq_svc" "c0300c10 T __und_svc" \
	"c0e00000 T _etext" "c12003c0 T _sinittext" "c128ad54 T _einittext"

for k in s390x ppc64 arm; do
	ms gdb --all --kernel --capture "$T/$k.cap" --search "$T/$k" -o "$T/$k.gdb"
	check_eq "$k: modsect gdb --all --kernel exits 0" 0 "$RC"
	check_grep "$k: the script ends with the kernel's walk" \
		"^register_unwinder\\(None, ModsectKernelStack\\('$k'" "$T/$k.gdb"
	check_grep "$k: and the frame filter that hides its end (pc 0)" \
		"modsect-kernel-entry" "$T/$k.gdb"
	python3 "$TESTS_DIR/tools/walkmock.py" "$T/$k.gdb" "$k" >"$T/$k.out" 2>&1 ||
		not_ok "$k: walkmock.py failed" "$(cat "$T/$k.out")"
done
check_grep "arm: the svc entries and the ends of the stack, by kallsyms" \
	"ModsectKernelStack\\('arm', '<I', \\(\\(0xc0300ae0, 0xc0300b60\\), \\(0xc0300b60, 0xc0300c10\\), \\(0xc0300c10, 0xc0e00000\\), \\), \\(\\(0xc03000c0, 0xc03000dc\\), \\(0xc03000dc, 0xc0300ae0\\), \\), \\(0xc12003c0, 0xc128ad54\\)\\)" "$T/arm.gdb"
check_grep "s390x: big-endian words" "ModsectKernelStack\\('s390x', '>Q'\\)" "$T/s390x.gdb"

# case FILE NAME WANT: the case's line is WANT (an ERE).
case_is() {
	local line
	line=$(grep -F "CASE $2:" "$1" | head -1)
	if [[ $line =~ $3 ]]; then ok "$2"; else not_ok "$2" "want /$3/" "got: ${line:-nothing}" "$(tail -5 "$1")"; fi
}

S=$T/s390x.out
# caller sp = the back chain word at sp + 152, pc = its r14 slot (+136)
case_is "$S" "s390x back chain" 'pc=0x100044 pswa=0x100044 r15=0x8100 r14=0x100044 id=0x81a0/0x100100 n=4$'
case_is "$S" "s390x level 0" 'declined$'
# a zero back chain: the pt_regs at sp + 160, every register from it
case_is "$S" "s390x pt_regs" 'pc=0x100100 pswa=0x100100 r1=0x1001 r15=0x9800 r14=0x100066 r3=0x1003 id=0x90a0/0x100200 n=19$'
case_is "$S" "s390x interrupted at a first instruction" 'pc=0x100066 pswa=0x100066 r1=0x0 r15=0x9800 r14=0x100066 r3=0x0 id=0x9800/0x100000 n=19$'
case_is "$S" "s390x interrupted inside" 'declined$'
case_is "$S" "s390x user pt_regs" 'pc=0x0 pswa=0x0 r15=0x9000 '
case_is "$S" "s390x pt_regs r15 below" 'pc=0x0 pswa=0x0 r15=0x9000 '
case_is "$S" "s390x unreadable" 'declined$'

P=$T/ppc64.out
# caller r1 = the back chain word at r1, pc = its lr save slot (+16)
case_is "$P" "ppc64 back chain" 'pc=0x200044 r1=0x8100 lr=0x200044 id=0x8100/0x200200 n=3$'
case_is "$P" "ppc64 level 0" 'declined$'
case_is "$P" "ppc64 pt_regs (REGS)" 'pc=0x200110 r1=0x9800 r15=0x200f r14=0x200e lr=0x200048 msr=0x8000000000009033 r3=0x2003 r31=0x201f id=0x9070/0x200200 n=36$'
case_is "$P" "ppc64 pt_regs (regshere)" 'pc=0x200110 r1=0x9800 r15=0x200f r14=0x200e lr=0x200048 msr=0x8000000000009033 r3=0x2003 r31=0x201f id=0x9070/0x200200 n=36$'
case_is "$P" "ppc64 pt_regs not this frame's" 'pc=0x0 r1=0x9000 '
case_is "$P" "ppc64 interrupted leaf" 'pc=0x200048 r1=0x9800 .*lr=0x200048 .*id=0x9800/0x200100 n=36$'
case_is "$P" "ppc64 interrupted, frame stored" 'declined$'
case_is "$P" "ppc64 user pt_regs" 'pc=0x0 r1=0x9000 '
# the caller's stack below the callee's: its id above the inner one's
case_is "$P" "ppc64 stack switch down" 'pc=0x200050 r1=0x7100 lr=0x200050 id=0xa001/'
case_is "$P" "ppc64 zero back chain" 'pc=0x0 r1=0x6000 '

A=$T/arm.out
# pt_regs at sp: r0-r12, sp, lr, pc, cpsr
case_is "$A" "arm __irq_svc" 'pc=0xc0400010 r1=0x101 lr=0xc0400020 sp=0x8048 cpsr=0x60000013 r3=0x103 id=0x8048/.* n=17$'
case_is "$A" "arm level 0" 'declined$'
case_is "$A" "arm pt_regs not svc" 'pc=0x0 sp=0x8000 '
case_is "$A" "arm elsewhere" 'declined$'
case_is "$A" "arm end of stack" 'pc=0x0 sp=0x8000 '
case_is "$A" "arm freed init text" 'pc=0x0 sp=0x8000 '
case_is "$A" "arm live init text" 'declined$'

# lldb: no walker (it has no Python unwinder).
ms lldb --all --kernel --capture "$T/s390x.cap" --search "$T/s390x" -o "$T/s.lldb"
check_eq "lldb: exits 0" 0 "$RC"
check_nogrep "lldb: no walker" "ModsectKernelStack" "$T/s.lldb"
finish
