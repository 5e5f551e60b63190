#!/bin/bash
# Rule 26: arm64 frame rules made from code: each instruction's rule is
# the frame its function's code has there (prologue, epilogue, early
# returns, jump tables, jump labels, BUG(), the linker's veneers,
# ftrace's entry, an exception entry's pt_regs), what cannot be
# followed is refused; the .debug_frame says the same to binutils;
# Debian's arm64 image decodes.
# (tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need aarch64-linux-gnu-as aarch64-linux-gnu-ld readelf || finish
A=$TEST_TOOLS/a64cfi
D=$TEST_TOOLS/a64dump
[ -x "$A" ] && [ -x "$D" ] || bail "$A or $D missing (make test-tools)"
HERE=$(cd "$(dirname "$0")" && pwd)

# --- functions as gcc and entry.S write them (tests/a64/cases.S) ------------
aarch64-linux-gnu-as -march=armv8.3-a -o "$T/cases.o" "$HERE/a64/cases.S" &&
	aarch64-linux-gnu-ld -Ttext=0 -e 0 -o "$T/cases" "$T/cases.o" ||
	bail "cannot assemble tests/a64/cases.S"
code_cases "$A" "$HERE/a64/cases.expect"

# --- the same rules as DWARF, read by binutils -----------------------------
fde() { code_fde "$@"; }
addr() { code_addr 16 "$1"; }
check_grep "a CIE whose return address is x30 (a call's frame)" 'CIE "" cf=4 df=-8 ra=30' "$T/frames"
check_grep "a CIE with the S augmentation whose return address is the pc (an exception's frame)" \
	'CIE "zS" cf=4 df=-8 ra=32' "$T/frames"
F=$(addr framed)
fde "$F" >"$T/framed"
check_grep "framed: at its entry, the CFA is sp and the return address x30 (PAC cleared)" \
	"^$F sp\+0 +s( +s)* +vexp *\$" "$T/framed"
check_grep "framed: after mov x29, sp, the CFA is x29+32, x29 and x30 at CFA-32, CFA-24" \
	'x29\+32 .* c-32 +vexp *$' "$T/framed"
check_grep "framed: x19 and x20 where the block that saves them has them" \
	'x29\+32 +c-16 +c-8 .* c-32 +vexp *$' "$T/framed"
E=$(addr entry_irq)
fde "$E" >"$T/entry"
check_grep "entry_irq: before kernel_entry is done, no return address" ' u *$' "$T/entry"
check_grep "entry_irq: then the CFA from the pt_regs (an expression) and every register from it" \
	'exp +exp +exp' "$T/entry"
S=$(awk '/CIE "zS"/ {print $1; exit}' "$T/frames")
check_grep "entry_irq: its FDE is under the S CIE" "FDE cie=$S pc=$E" "$T/frames"
check_nogrep "binutils reads every FDE" 'Warning|bad|unknown' "$T/frames"

# --- Debian's arm64 kernel, where the VM tests fetched it ------------------
img=$(ls "$HERE"/vm/out/kernels/arm64/boot/vmlinuz-* 2>/dev/null | head -1)
if [ -n "$img" ]; then
	"$D" "$img" cpu_do_idle el1h_64_irq el0t_64_sync el0t_64_sync_handler \
		start_kernel call_on_irq_stack >"$T/img" 2>&1
	check_grep "$(basename "$img"): its functions decoded" '^functions [0-9]{5} instructions [0-9]{7} ' "$T/img"
	python3 - "$T/img" >"$T/share" <<'EOF_PY'
import re, sys
m = re.search(r"instructions (\d+) lost (\d+)", open(sys.argv[1]).read())
print("lost %.1f%%" % (100.0 * int(m.group(2)) / int(m.group(1))))
EOF_PY
	check_grep "$(basename "$img"): at most 4% of its instructions have no rule (padding, alternatives, asm)" \
		'^lost [0-3]\.[0-9]%$' "$T/share"
	check_grep "el1h_64_irq: the pt_regs once kernel_entry is done" '^ROW \+0x58 regs regs@sp\+0$' "$T/img"
	check_grep "el0t_64_sync: the end of the stack" '^ROW \+0x0 end$' "$T/img"
	check_grep "el0t_64_sync_handler: a C function, not an entry (its name only begins like one)" \
		'^ROW \+0x10 frame x29\+16 fp=-16 lr=-8$' "$T/img"
	check_grep "start_kernel (freed init text): the frame record, the kernel's own rule" \
		'^ROW \+0x0 frame x29\+16 fp=-16 lr=-8$' "$T/img"
	detail <"$T/share"
else
	ok "# SKIP no arm64 kernel in tests/vm/out/kernels/arm64 (MODSECT_VM_KERNEL=arm64 tests/vm/unwind.sh fetches it)"
fi
finish
