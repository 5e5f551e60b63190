#!/bin/bash
# Rule 27: i386 frame rules made from code: each instruction's rule is
# the frame its function's code has there (ftrace's call, push %ebp /
# mov %esp,%ebp, callee-saved pushes, locals, leave, early returns,
# BUG()'s and WARN()'s ud2, stack realignment, a jump table, a static
# branch's body, a .cold part, a stack switch, an entry's pt_regs), what
# cannot be followed is refused; the .debug_frame says the same to
# binutils; Debian's 686-pae image decodes.
# (tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need as ld readelf || finish
A=$TEST_TOOLS/i386cfi
D=$TEST_TOOLS/i386dump
[ -x "$A" ] && [ -x "$D" ] || bail "$A or $D missing (make test-tools)"
HERE=$(cd "$(dirname "$0")" && pwd)

# --- functions as gcc and entry_32.S write them (tests/i386/cases.S) -------
as --32 -o "$T/cases.o" "$HERE/i386/cases.S" &&
	ld -m elf_i386 -Ttext=0x10000 -e 0x10000 -o "$T/cases" "$T/cases.o" ||
	bail "cannot assemble tests/i386/cases.S"
code_cases "$A" "$HERE/i386/cases.expect"

# --- the same rules as DWARF, read by binutils -----------------------------
fde() { code_fde "$@"; }
addr() { code_addr 8 "$1"; }
check_grep "a CIE whose return address is eip at CFA-4 (a call's frame)" 'CIE "" cf=1 df=-4 ra=8' "$T/frames"
check_grep "a CIE with the S augmentation (an entry's frame, a stack switch)" 'CIE "zS" cf=1 df=-4 ra=8' "$T/frames"
check_grep "user space (below 0x1000 here) ends the walk: an undefined return address" \
	'FDE cie=00000000 pc=00000000\.\.00001000' "$T/frames"
F=$(addr framed)
fde "$F" >"$T/framed"
check_grep "framed: at its entry, the CFA is esp+4 and eip at CFA-4" "^$F esp\+4 +s +s +s +s +c-4 *\$" "$T/framed"
check_grep "framed: after mov %esp,%ebp, the CFA is ebp+8, ebp at CFA-8, ebx and esi below" \
	'ebp\+8 +c-12 +c-8 +c-16 +s +c-4 *$' "$T/framed"
E=$(addr entry_exception)
fde "$E" >"$T/entry"
check_grep "entry_exception: before its pt_regs are complete, no return address" ' u *$' "$T/entry"
check_grep "entry_exception: then the CFA from the pt_regs (an expression) and every register from it" \
	'exp +exp +exp +exp +exp +exp *$' "$T/entry"
S=$(awk '/CIE "zS"/ {print $1; exit}' "$T/frames")
check_grep "entry_exception: its FDE is under the S CIE" "FDE cie=$S pc=$E" "$T/frames"
check_grep "switch_stack: its FDE is under the S CIE (the stack changes under its frame)" \
	"FDE cie=$S pc=$(addr switch_stack)" "$T/frames"
check_nogrep "binutils reads every FDE" 'Warning|bad|unknown' "$T/frames"

# --- Debian's 686-pae kernel, where the VM tests fetched it ----------------
img=$(ls "$HERE"/vm/out/kernels/686-pae/boot/vmlinuz-* 2>/dev/null | head -1)
if [ -n "$img" ]; then
	"$D" "$img" default_idle handle_exception handle_exception_return \
		entry_SYSENTER_32 ret_from_fork start_kernel call_on_stack >"$T/img" 2>&1
	check_grep "$(basename "$img"): its functions decoded" '^functions [0-9]{5} bytes [0-9]{7} ' "$T/img"
	python3 - "$T/img" >"$T/share" <<'EOF_PY'
import re, sys
m = re.search(r"bytes (\d+) lost (\d+)", open(sys.argv[1]).read())
print("lost %.2f%%" % (100.0 * int(m.group(2)) / int(m.group(1))))
EOF_PY
	check_grep "$(basename "$img"): at most 1% of its code has no rule (entry code, padding)" \
		'^lost 0\.[0-9]+%$' "$T/share"
	check_grep "default_idle: ebp's frame after its prologue" '^ROW \+0x8 frame ebp\+8 ebp@-8$' "$T/img"
	check_grep "handle_exception: the pt_regs once ENCODE_FRAME_POINTER is done" '^ROW \+0x11c regs regs@esp\+0$' "$T/img"
	check_grep "handle_exception_return: the pt_regs at esp from its start" '^ROW \+0x0 regs regs@esp\+0$' "$T/img"
	check_grep "entry_SYSENTER_32: the pt_regs once passed to do_SYSENTER_32" '^ROW \+0x93 regs regs@esp\+0$' "$T/img"
	check_grep "ret_from_fork: the end of the stack" '^ROW \+0x0 end$' "$T/img"
	check_grep "start_kernel (freed init text): ebp's frame, the kernel's own rule" \
		'^ROW \+0x0 frame ebp\+8 ebp@-8$' "$T/img"
	check_grep "call_on_stack: after xchg %ebx,%esp, ebp's frame on the other stack, a signal frame" \
		'^ROW \+0x10 frame ebp\+8 signal ebp@-8 ebx@-16 edi@-12$' "$T/img"
	check_grep "user space below 3 GB (PAGE_OFFSET) ends the walk" 'user-end 0xc0000000$' "$T/img"
	detail <"$T/share"
else
	ok "# SKIP no 686-pae kernel in tests/vm/out/kernels/686-pae (MODSECT_VM_KERNEL=686-pae tests/vm/unwind.sh fetches it)"
fi
finish
