#!/bin/bash
# decode on reports of s390x and 32-bit ARM (Thumb-2) kernels (issue #24):
# a module built here with s390x-linux-gnu-gcc and arm-linux-gnueabihf-gcc
# -mthumb (-g -O2, an inlined function), captures with the machine line of
# those kernels, and reports in the formats of Linux 6.1:
#  s390x  arch/s390/kernel/dumpstack.c: "Krnl PSW : MASK ADDR (%pSR)" (the
#         PSW address, exact), "Call Trace:" with " [<a>] %pSR" and the
#         unreliable "([<a>] %pSR)", whose first entry after a register
#         dump is the PSW address (unwind_bc.c starts from the regs),
#         "Krnl GPRS:" and "Krnl Code:" lines, which hold no frame.
#  arm    arch/arm/kernel/traps.c dump_backtrace_entry (" %ps from %pS",
#         and "[<a>] (%ps) from [<b>] (%pS)" with BACKTRACE_VERBOSE),
#         process.c __show_regs ("PC is at", "LR is at", "pc : [<a>] lr :
#         [<b>]"), a WARN's return address (warn_slowpath_fmt).
# Every decoded line is compared whole with what eu-addr2line says of the
# module file: program counters at their address, return addresses at
# address - 1. A Thumb return address carries the mode in bit 0 (the lr
# of a bl from Thumb code is the next instruction's address + 1, and the
# ARM unwinder prints it so): its call is at (address & ~1) - 1, not at
# address - 1, which is the next instruction.
. "$(dirname "$0")/lib.sh"
need s390x-linux-gnu-gcc s390x-linux-gnu-ld s390x-linux-gnu-objdump \
	arm-linux-gnueabihf-gcc arm-linux-gnueabihf-ld arm-linux-gnueabihf-objdump \
	eu-addr2line eu-readelf python3 || finish

M=$T/m
mkdir -p "$M/s390x" "$M/arm"
cat >"$M/dmod.c" <<'EOF'
volatile int dmod_sink;
int dmod_data = 3;

static inline __attribute__((always_inline)) int dmod_leaf(int x)
{
	dmod_sink = x * 3;
	return x + dmod_data;
}

__attribute__((noinline)) int dmod_outer(int x)
{
	dmod_sink = x;
	return dmod_leaf(x) + 1;
}

__attribute__((noinline)) int dmod_caller(int x)
{
	int r = dmod_outer(x);

	dmod_sink = r;
	return dmod_outer(r) + 2;
}
EOF
s390x-linux-gnu-gcc -g -O2 -c -o "$M/s390x/dmod.o" "$M/dmod.c" &&
	s390x-linux-gnu-ld -r --build-id=sha1 -o "$M/s390x/dmod.ko" "$M/s390x/dmod.o" ||
	bail "build the s390x module"
arm-linux-gnueabihf-gcc -mthumb -g -O2 -c -o "$M/arm/dmod.o" "$M/dmod.c" &&
	arm-linux-gnueabihf-ld -r --build-id=sha1 -o "$M/arm/dmod.ko" "$M/arm/dmod.o" ||
	bail "build the ARM module"

# Where Debian's 6.1 kernels put modules: s390x at 0x3ff8..., armmp
# below PAGE_OFFSET (0xbf000000).
S390_TEXT=0x000003ff7fe1a000
ARM_TEXT=0xbf026000
mkcap() { # FILE MACHINE TEXT DATA BSS
	printf 'release 6.1.0-test\nmachine %s\ndmod .text %s\ndmod .data %s\ndmod .bss %s\n' \
		"$2" "$3" "$4" "$5" >"$1"
}
mkcap "$T/s390x.cap" s390x $S390_TEXT 0x000003ff7fe1c000 0x000003ff7fe1c100
mkcap "$T/arm.cap" armv7l $ARM_TEXT 0xbf028000 0xbf028100

# symval KO SYM: the symbol's st_value (odd for a Thumb function), decimal;
# symsize KO SYM: its st_size, hex.
symval() {
	local v
	v=$(eu-readelf -s "$1" | awk -v n="$2" '$8 == n { print $2; exit }')
	[ -n "$v" ] && echo $((16#$v))
}
symsize() { eu-readelf -s "$1" | awk -v n="$2" '$8 == n { print $3; exit }'; }
hex() { printf '0x%x' "$1"; }

# a2l OFF: eu-addr2line's frames at .text+OFF of $KO, innermost first,
# "FUNC LOCATION" per line.
a2l() {
	eu-addr2line -e "$KO" -j .text -f -i "$(hex "$1")" | paste - - |
		awk -F '\t' '{ split($1, w, " "); print w[1], $2 }'
}

# insns SYM: the offsets (decimal) and mnemonics of SYM's instructions in
# $KO, by $OBJDUMP.
insns() {
	"$OBJDUMP" -d --no-show-raw-insn "$KO" | python3 -c '
import re, sys
on = False
for l in sys.stdin:
    if l.rstrip().endswith("<%s>:" % sys.argv[1]):
        on = True
    elif not l.strip():
        on = False
    elif on and re.match(r"\s*[0-9a-f]+:", l):
        w = l.split(":", 1)
        print(int(w[0], 16), (w[1].split() or ["?"])[0])' "$1"
}

# pick_pc: an instruction of dmod_outer inside the inlined dmod_leaf whose
# lines differ from those of the byte before it (an exact lookup and one
# at address - 1 differ there).
pick_pc() {
	local o m
	while read -r o m; do
		[ "$o" -gt "$(symval "$KO" dmod_outer)" ] || continue
		[ "$(a2l "$o" | wc -l)" -ge 2 ] || continue
		[ "$(a2l "$o")" != "$(a2l $((o - 1)))" ] || continue
		echo "$o"
		return
	done < <(insns dmod_outer)
}

# pick_ret CALL: the instruction after a call (mnemonic CALL) in
# dmod_caller whose line differs from the call's.
pick_ret() {
	local prev='' o m
	while read -r o m; do
		if [ "$prev" = "$1" ] && [ "$(a2l "$o")" != "$(a2l $((o - 1)))" ]; then
			echo "$o"
			return
		fi
		prev=$m
	done < <(insns dmod_caller)
}

# pass TEXT: a line that passes through unchanged.
# frame PRE FRAME REST OFF: a line PRE FRAME REST whose frame is at
# .text+OFF (the lookup address), annotated after FRAME.
pass() { printf '%s\n' "$1" >>"$OOPS"; printf '%s\n' "$1" >>"$EXP"; }
frame() {
	printf '%s%s%s\n' "$1" "$2" "$3" >>"$OOPS"
	inlines "$1" "$4" >>"$EXP"
	printf '%s%s %s%s\n' "$1" "$2" "$(loc "$4")" "$3" >>"$EXP"
}
# inlines PRE OFF: the "(inlined)" lines of a frame at OFF after PRE;
# loc OFF: the location of the frame's own line.
inlines() {
	a2l "$2" | sed '$d' | while read -r f l; do
		printf '%s%s (inlined) %s\n' "$1" "$f" "$l"
	done
}
loc() { a2l "$1" | tail -n 1 | cut -d ' ' -f 2-; }

# ==== s390x ==================================================================
KO=$M/s390x/dmod.ko OBJDUMP=s390x-linux-gnu-objdump
OUTV=$(symval "$KO" dmod_outer) CALLV=$(symval "$KO" dmod_caller)
PC=$(pick_pc)
RET=$(pick_ret brasl)
check "s390x fixture: a pc inside the inlined dmod_leaf, its line not the byte before's" test -n "$PC"
check "s390x fixture: a return address after a brasl, its line not the call's" test -n "$RET"
[ -n "$PC" ] && [ -n "$RET" ] || finish
PCF="dmod_outer+$(hex $((PC - OUTV)))/$(hex "$(symsize "$KO" dmod_outer)") [dmod]"
RETF="dmod_caller+$(hex $((RET - CALLV)))/$(hex "$(symsize "$KO" dmod_caller)") [dmod]"
PCA=$(printf '%016x' $((S390_TEXT + PC)))
RETA=$(printf '%016x' $((S390_TEXT + RET)))

OOPS=$T/s390x.oops EXP=$T/s390x.exp
: >"$OOPS"
: >"$EXP"
pass "[   12.000000] ------------[ cut here ]------------"
frame "[   12.000010] WARNING: CPU: 0 PID: 1 at dmod.c:6 " "$PCF" "" "$PC"
pass "[   12.000020] Modules linked in: dmod(O)"
pass "[   12.000030] CPU: 0 PID: 1 Comm: init Tainted: G           O       6.1.0-50-s390x #1  Debian 6.1.176-1"
pass "[   12.000040] Hardware name: QEMU 8561 QEMU (KVM/Linux)"
frame "[   12.000050] Krnl PSW : 0704c00180000000 " "$PCA ($PCF)" "" "$PC"
pass "[   12.000060]            R:0 T:1 IO:1 EX:1 Key:0 M:1 W:0 P:0 AS:3 CC:0 PM:0 RI:0 EA:3"
pass "[   12.000070] Krnl GPRS: 0000000000000000 $PCA $RETA 0000000000000001"
pass "[   12.000080] Krnl Code: $PCA: a7f40001		brc	15,$PCA"
pass "[   12.000090]           >$RETA: 0707		bcr	0,%r7"
pass "[   12.000100] Call Trace:"
frame "[   12.000110]  " "[<$PCA>] $PCF" " " "$PC"
frame "[   12.000120] (" "[<$RETA>] $RETF" ")" $((RET - 1))
frame "[   12.000130]  " "[<$RETA>] $RETF" " " $((RET - 1))
pass "[   12.000140]  [<0000000000a2206a>] do_one_initcall+0x62/0x88 "
# The last branch taken (show_last_breaking_event): its own address, exact.
pass "[   12.000145] Last Breaking-Event-Address:"
frame "[   12.000146]  " "[<$RETA>] $RETF" " " "$RET"
pass "[   12.000150] ---[ end trace 0000000000000000 ]---"
# dump_stack(): no register dump, so the first entry is a return address.
pass "[   13.000000] Call Trace:"
frame "[   13.000010]  " "[<$RETA>] $RETF" " " $((RET - 1))

ms decode --capture "$T/s390x.cap" --search "$M/s390x" --offline "$OOPS"
check_rc "s390x decode: exit 0" 0
check_same "s390x decode: Krnl PSW, WARNING and the trace's first entry after it exact, other entries (reliable or not) at address - 1, registers and code untouched" "$EXP" "$T/out"

# No machine line: the report's own lines (Krnl PSW) say s390x, and the
# symbolic frames need only the module file.
grep -v '^machine ' "$T/s390x.cap" >"$T/s390x-nomach.cap"
ms decode --capture "$T/s390x-nomach.cap" --search "$M/s390x" --offline "$OOPS"
check_same "s390x decode, capture without machine line: the same" "$EXP" "$T/out"
ms decode --search "$M/s390x" --offline --moddir "$T/nomoddir" "$OOPS"
check_same "s390x decode without a map: the same (every frame is symbolic)" "$EXP" "$T/out"

# ==== 32-bit ARM, Thumb-2 ====================================================
KO=$M/arm/dmod.ko OBJDUMP=arm-linux-gnueabihf-objdump
OUTV=$(symval "$KO" dmod_outer) CALLV=$(symval "$KO" dmod_caller)
check "ARM fixture: the functions are Thumb (odd st_value)" test $((OUTV & 1)) = 1 -a $((CALLV & 1)) = 1
PC=$(pick_pc)
RET=$(pick_ret bl)
check "ARM fixture: a pc inside the inlined dmod_leaf, its line not the byte before's" test -n "$PC"
check "ARM fixture: a return address after a bl, its line not the bl's" test -n "$RET"
[ -n "$PC" ] && [ -n "$RET" ] || finish
# kallsyms of a module has the symbols' st_value, Thumb bit and all
# (kernel/module/kallsyms.c); the lr is the return address + 1.
PCF="dmod_outer+$(hex $((PC - OUTV)))/$(hex "$(symsize "$KO" dmod_outer)") [dmod]"
LR=$((RET | 1))
RETF="dmod_caller+$(hex $((LR - CALLV)))/$(hex "$(symsize "$KO" dmod_caller)") [dmod]"
PCA=$(printf '%08x' $((ARM_TEXT + PC)))
LRA=$(printf '%08x' $((ARM_TEXT + LR)))

OOPS=$T/arm.oops EXP=$T/arm.exp
: >"$OOPS"
: >"$EXP"
pass "[   29.874216] ------------[ cut here ]------------"
frame "[   29.878705] WARNING: CPU: 0 PID: 1 at dmod.c:20 " "$RETF" "" $((RET - 1))
pass "[   29.881250] Modules linked in: dmod(O)"
pass "[   29.882919] CPU: 0 PID: 1 Comm: init Tainted: G           O       6.1.0-57-armmp #1  Debian 6.1.192-3"
pass "[   29.883502] Hardware name: Generic DT based system"
pass "[   29.884335]  unwind_backtrace from show_stack+0x18/0x1c"
frame "[   29.886065]  warn_slowpath_fmt from " "$RETF" "" $((RET - 1))
pass "[   29.886531]  dmod_caller [dmod] from do_one_initcall+0x40/0x1f0"
pass "[   29.890873] ---[ end trace 0000000000000000 ]---"
# An oops: the pc exact, the lr (Thumb bit set) a return address.
frame "[   30.000000] PC is at " "$PCF" "" "$PC"
frame "[   30.000010] LR is at " "$RETF" "" $((RET - 1))
L="[   30.000020] pc : [<$PCA>]    lr : [<$LRA>]    psr: 600f0033"
printf '%s\n' "$L" >>"$OOPS"
{
	inlines "[   30.000020] pc : " "$PC"
	inlines "[   30.000020] pc : [<$PCA>]    lr : " $((RET - 1))
	printf '%s\n' "[   30.000020] pc : [<$PCA>] $(loc "$PC")    lr : [<$LRA>] $(loc $((RET - 1)))    psr: 600f0033"
} >>"$EXP"
pass "[   30.000030] sp : e080de40  ip : 00000000  fp : 00000000"
# BACKTRACE_VERBOSE: both frames of a "from" line, each a return address.
L="[   30.000040] [<$LRA>] (dmod_caller [dmod]) from [<$LRA>] ($RETF)"
printf '%s\n' "$L" >>"$OOPS"
{
	inlines "[   30.000040] " $((RET - 1))
	inlines "[   30.000040] [<$LRA>] (dmod_caller [dmod]) from " $((RET - 1))
	printf '%s\n' "[   30.000040] [<$LRA>] $(loc $((RET - 1))) (dmod_caller [dmod]) from [<$LRA>] ($RETF) $(loc $((RET - 1)))"
} >>"$EXP"

ms decode --capture "$T/arm.cap" --search "$M/arm" --offline "$OOPS"
check_rc "ARM decode: exit 0" 0
check_same "ARM decode (Thumb-2): pc exact; WARNING, lr and from at (address & ~1) - 1; both frames of a verbose from line" "$EXP" "$T/out"
ms decode --search "$M/arm" --offline --moddir "$T/nomoddir" "$T/arm.oops"
grep -v '^\[   30\.0000[24]0\]' "$EXP" >"$T/arm.sym.exp"
grep -v '^\[   30\.0000[24]0\]' "$T/out" >"$T/arm.sym.out"
check_same "ARM decode without a map: the symbolic frames alike" "$T/arm.sym.exp" "$T/arm.sym.out"

finish
