#!/bin/bash
# decode and resolve on reports of arm64 and i386 (32-bit x86) kernels
# (issue #13): a module built here with aarch64-linux-gnu-gcc and with
# gcc -m32 (-g -O2, an inlined function), captures with the machine line
# of those kernels, and report excerpts in the formats of Linux 6.1 and
# 6.12 (arch/arm64/kernel/process.c __show_regs, stacktrace.c
# dump_backtrace; arch/x86/kernel/dumpstack.c, process_32.c), older ones
# ("[<addr>] func", arm64's "pc : [<a>] lr : [<b>]") and 6.13's " (P)".
# Every decoded line is compared whole with what eu-addr2line says of the
# module file: program counters (pc :, EIP:, WARNING at, the first entry
# of an arm64 "Call trace:" after a register dump, (P) entries) at their
# address, return addresses (lr :, other call-trace entries) at address
# - 1, inlined callees first. Every frame of a line is annotated; register
# dumps (x29:, EAX:) holding module addresses are not frames. In an arm64
# report a raw address loses its pointer authentication code (bits 63:48
# set), and one that then lies in no module stays as it is; on x86 the
# same bits are left alone. 32-bit addresses are neither sign- nor
# zero-extended into a module.
. "$(dirname "$0")/lib.sh"
need gcc ld aarch64-linux-gnu-gcc aarch64-linux-gnu-ld aarch64-linux-gnu-objdump \
	powerpc64le-linux-gnu-gcc powerpc64le-linux-gnu-ld powerpc64le-linux-gnu-objdump \
	objdump eu-addr2line eu-readelf python3 || finish

M=$T/m
mkdir -p "$M/a64" "$M/i386" "$M/x86" "$M/ppc"
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
aarch64-linux-gnu-gcc -g -O2 -c -o "$M/a64/dmod.o" "$M/dmod.c" &&
	aarch64-linux-gnu-ld -r --build-id=sha1 -o "$M/a64/dmod.ko" "$M/a64/dmod.o" ||
	bail "build the arm64 module"
gcc -m32 -fno-pic -g -O2 -c -o "$M/i386/dmod.o" "$M/dmod.c" &&
	ld -m elf_i386 -r --build-id=sha1 -o "$M/i386/dmod.ko" "$M/i386/dmod.o" ||
	bail "build the i386 module"
gcc -fno-pic -mcmodel=kernel -g -O2 -c -o "$M/x86/dmod.o" "$M/dmod.c" &&
	ld -r --build-id=sha1 -o "$M/x86/dmod.ko" "$M/x86/dmod.o" ||
	bail "build the x86-64 module"
# ELFv2, as Kbuild builds ppc64le modules: functions that set up their TOC
# pointer have a global entry and a local one 8 bytes on (st_other).
powerpc64le-linux-gnu-gcc -mcmodel=medium -g -O2 -c -o "$M/ppc/dmod.o" "$M/dmod.c" &&
	powerpc64le-linux-gnu-ld -r --build-id=sha1 -o "$M/ppc/dmod.ko" "$M/ppc/dmod.o" ||
	bail "build the ppc64le module"
K64=$M/a64/dmod.ko K32=$M/i386/dmod.ko

# Where Debian's kernels put modules: arm64 6.1 below the image, at
# 0xffff8000...; i386 (686-pae) in the top gigabyte; x86-64 at
# 0xffffffffc0....
A64_TEXT=0xffff80000a1b0000
I386_TEXT=0xf8a10000
X86_TEXT=0xffffffffc0b00000
mkcap() { # FILE MACHINE(or -) TEXT DATA BSS
	{
		echo "release 6.1.0-57-test"
		[ "$2" = - ] || echo "machine $2"
		echo "dmod .text $3"
		echo "dmod .data $4"
		echo "dmod .bss $5"
	} >"$1"
}
mkcap "$T/a64.cap" aarch64 $A64_TEXT 0xffff80000a1b2000 0xffff80000a1b2100
mkcap "$T/a64-nomach.cap" - $A64_TEXT 0xffff80000a1b2000 0xffff80000a1b2100
mkcap "$T/i386.cap" i686 $I386_TEXT 0xf8a12000 0xf8a12100
mkcap "$T/x86.cap" x86_64 $X86_TEXT 0xffffffffc0b02000 0xffffffffc0b02100
# ppc64le 6.1 (radix): modules at 0xc008....
PPC_TEXT=0xc008000000cc0000
mkcap "$T/ppc.cap" ppc64le $PPC_TEXT 0xc008000000cc2000 0xc008000000cc2100
mkcap "$T/ppc-nomach.cap" - $PPC_TEXT 0xc008000000cc2000 0xc008000000cc2100

symoff() { # KO SYM: the symbol's offset in .text, decimal
	local v
	v=$(eu-readelf -s "$1" | awk -v n="$2" '$NF == n { print $2; exit }')
	[ -n "$v" ] && echo $((16#$v))
}
symsize() { eu-readelf -s "$1" | awk -v n="$2" '$NF == n { print $3; exit }'; }
hex() { printf '0x%x' "$1"; }

# a2l KO OFF: eu-addr2line's frames at .text+OFF, innermost first, one per
# line as "FUNC LOCATION".
a2l() {
	eu-addr2line -e "$1" -j .text -f -i "$(hex "$2")" | paste - - |
		awk -F '\t' '{ split($1, w, " "); print w[1], $2 }'
}

# insns OBJDUMP KO SYM: the offsets (decimal) of SYM's instructions.
insns() {
	"$1" -d --no-show-raw-insn "$2" | python3 -c '
import re, sys
on = False
for l in sys.stdin:
    if l.rstrip().endswith("<%s>:" % sys.argv[1]):
        on = True
    elif not l.strip():
        on = False
    elif on and re.match(r"\s*[0-9a-f]+:", l):
        print(int(l.split(":")[0], 16))' "$3"
}

# pick_pc OBJDUMP KO: an instruction of dmod_outer inside the inlined
# dmod_leaf whose lines differ from those of the byte before it, so an
# exact lookup and one at address - 1 can be told apart.
pick_pc() {
	local o
	for o in $(insns "$1" "$2" dmod_outer); do
		[ "$o" -gt "$(symoff "$2" dmod_outer)" ] || continue
		[ "$(a2l "$2" "$o" | wc -l)" -ge 2 ] || continue
		[ "$(a2l "$2" "$o")" != "$(a2l "$2" $((o - 1)))" ] || continue
		echo "$o"
		return
	done
}

# pick_ret OBJDUMP KO: a return address in dmod_caller (the instruction
# after a call) whose line differs from the call's.
pick_ret() {
	local prev='' o
	for o in $(insns "$1" "$2" dmod_caller); do
		if [ -n "$prev" ] && "$1" -d "$2" | grep -qE "^ *$(printf '%x' "$prev"):.*\s(bl|callq?)\s" &&
			[ "$(a2l "$2" "$o")" != "$(a2l "$2" $((o - 1)))" ]; then
			echo "$o"
			return
		fi
		prev=$o
	done
}

# The report and what decode must print, built line by line.
# pass TEXT: a line that passes through unchanged.
# frame PRE FRAME REST OFF: a line PRE FRAME REST whose frame is at
# .text+OFF of $KO (the lookup address: OFF - 1 for a return address).
pass() { printf '%s\n' "$1" >>"$OOPS"; printf '%s\n' "$1" >>"$EXP"; }
frame() {
	local pre=$1 fr=$2 rest=$3 n i
	local -a fl
	printf '%s%s%s\n' "$pre" "$fr" "$rest" >>"$OOPS"
	mapfile -t fl < <(a2l "$KO" "$4")
	n=${#fl[@]}
	for ((i = 0; i < n - 1; i++)); do
		printf '%s%s (inlined) %s\n' "$pre" "${fl[i]%% *}" "${fl[i]#* }" >>"$EXP"
	done
	printf '%s%s %s%s\n' "$pre" "$fr" "${fl[n - 1]#* }" "$rest" >>"$EXP"
}
# inlines PRE OFF: the "(inlined)" lines of a frame at OFF after PRE;
# loc OFF: the location of the frame's own line.
inlines() {
	local -a fl
	local i
	mapfile -t fl < <(a2l "$KO" "$2")
	for ((i = 0; i < ${#fl[@]} - 1; i++)); do
		printf '%s%s (inlined) %s\n' "$1" "${fl[i]%% *}" "${fl[i]#* }"
	done
}
loc() { a2l "$KO" "$1" | tail -n 1 | cut -d ' ' -f 2-; }

# ==== arm64 ==================================================================
KO=$K64
OUT64=$(symoff "$KO" dmod_outer) CALL64=$(symoff "$KO" dmod_caller)
PC=$(pick_pc aarch64-linux-gnu-objdump "$KO")
RET=$(pick_ret aarch64-linux-gnu-objdump "$KO")
check "arm64 fixture: a pc inside the inlined dmod_leaf, its line not the byte before's" test -n "$PC"
check "arm64 fixture: a return address after a bl, its line not the bl's" test -n "$RET"
[ -n "$PC" ] && [ -n "$RET" ] || finish
PCF="dmod_outer+$(hex $((PC - OUT64)))/$(hex "$(symsize "$KO" dmod_outer)") [dmod]"
RETF="dmod_caller+$(hex $((RET - CALL64)))/$(hex "$(symsize "$KO" dmod_caller)") [dmod]"
PCA=$(printf '%016x' $((A64_TEXT + PC)))
RETA=$(printf '%016x' $((A64_TEXT + RET)))
# The return address signed: a PAC in bits 63:56 and 54:48, bit 55 kept.
RETPAC=ffd0${RETA#ffff}
RETPAC2=ff9c${RETA#ffff}
# A PAC with a code bit below 48 cleared (as with 39-bit VAs): bits 63:48
# set give no kernel text address; and one with bit 55 clear (user space).
RETLOW=ffd0$(printf '%012x' $((16#${RETA#ffff} & ~(1 << 47))))
RETUSER=0050${RETA#ffff}

OOPS=$T/a64.oops EXP=$T/a64.exp
: >"$OOPS"
: >"$EXP"
pass "[   42.101010] ------------[ cut here ]------------"
frame "[   42.101020] WARNING: CPU: 1 PID: 321 at dmod.c:6 " "$PCF" "" "$PC"
pass "[   42.101030] Modules linked in: dmod(O) cdrom"
pass "[   42.101040] CPU: 1 PID: 321 Comm: insmod Tainted: G           O       6.1.0-57-arm64 #1  Debian 6.1.158-1"
pass "[   42.101050] Hardware name: QEMU QEMU Virtual Machine, BIOS 0.0.0 02/06/2015"
pass "[   42.101060] pstate: 60400005 (nZCv daif +PAN -UAO -TCO -DIT -SSBS BTYPE=--)"
frame "[   42.101070] pc : " "$PCF" "" "$PC"
frame "[   42.101080] lr : " "$RETF" "" $((RET - 1))
pass "[   42.101090] sp : ffff80000a1b3c30"
pass "[   42.101100] x29: ffff80000a1b3c30 x28: ffff0000c1a2b400 x27: 0000000000000000"
pass "[   42.101110] x26: $PCA x25: $RETA x24: ${RETPAC}"
pass "[   42.101120] Call trace:"
frame "[   42.101130]  " "$PCF" "" "$PC"
frame "[   42.101140]  " "$RETF" "" $((RET - 1))
pass "[   42.101150]  do_one_initcall+0x4c/0x1f0"
pass "[   42.101160] ---[ end trace 0000000000000000 ]---"
# dump_stack(): no register dump, so the first entry is a return address.
pass "[   43.000000] Call trace:"
frame "[   43.000010]  " "$RETF" "" $((RET - 1))
# 6.13 and later mark the regs' pc entry " (P)".
pass "[   44.000000] Call trace:"
frame "[   44.000010]  " "$PCF (P)" "" "$PC"
frame "[   44.000020]  " "$RETF" "" $((RET - 1))
# Raw addresses: before 5.x "[<addr>] func" lines (one frame), an lr or
# entry whose PAC was not stripped ("0x%lx" when kallsyms cannot place it).
frame "[   45.000000]  " "[<$RETA>] $RETF" "" $((RET - 1))
frame "[   45.000010] lr : " "0x$RETPAC" "" $((RET - 1))
frame "[   45.000020]  " "0x$RETPAC2" "" $((RET - 1))
frame "[   45.000030]  " "[<$RETPAC>] 0x$RETPAC" "" $((RET - 1))
pass "[   45.000040]  0x$RETLOW"
pass "[   45.000050]  [<$RETUSER>]"
# Before 4.16: both registers on one line, each annotated.
L="[   46.000000] pc : [<$PCA>] lr : [<$RETA>] pstate: 60000005"
printf '%s\n' "$L" >>"$OOPS"
{
	inlines "[   46.000000] pc : " "$PC"
	inlines "[   46.000000] pc : [<$PCA>] lr : " $((RET - 1))
	printf '%s\n' "[   46.000000] pc : [<$PCA>] $(loc "$PC") lr : [<$RETA>] $(loc $((RET - 1))) pstate: 60000005"
} >>"$EXP"

ms decode --capture "$T/a64.cap" --search "$M/a64" --offline "$OOPS"
check_rc "arm64 decode: exit 0" 0
check_same "arm64 decode: pc, WARNING and the trace's first entry exact, lr and returns at address - 1, PAC cleared, registers untouched" "$EXP" "$T/out"
check_nogrep "arm64 decode: the x25/x26 register values are no frames" "x26: .*[0-9]:[0-9]" "$T/out"

# No machine line: the report's own lines (pstate:, Call trace:) say arm64.
ms decode --capture "$T/a64-nomach.cap" --search "$M/a64" --offline "$OOPS"
check_same "arm64 decode, capture without machine line: the same" "$EXP" "$T/out"

# Symbolic frames need only the module file (no map: no raw addresses),
# also on a host of another architecture, whose own map is no help.
grep -v '^\[   4[56]\.' "$EXP" >"$T/a64.sym.exp"
grep -v '^\[   4[56]\.' "$OOPS" >"$T/a64.sym.oops"
ms decode --search "$M/a64" --offline --moddir "$T/nomoddir" "$T/a64.sym.oops"
check_same "arm64 decode without a map: the symbolic frames alike" "$T/a64.sym.exp" "$T/out"

# resolve: the PAC is cleared, and said; the lookup is exact.
ms resolve --capture "$T/a64.cap" --search "$M/a64" --offline "$RETPAC" "[<$RETA>]"
check_rc "arm64 resolve: exit 0" 0
# res_text KO OFF HEADER: resolve's text for an address at .text+OFF.
res_text() {
	printf '%s\n' "$3"
	a2l "$1" "$2" | awk 'NR == 1 { printf "    %s at %s\n", $1, $2; next }
		{ printf "    (inlined by) %s at %s\n", $1, $2 }'
}
{
	res_text "$KO" "$RET" "0x$RETA (PAC cleared from 0x$RETPAC): $RETF .text+$(hex "$RET")"
	res_text "$KO" "$RET" "0x$RETA: $RETF .text+$(hex "$RET")"
} >"$T/res.exp"
check_same "arm64 resolve: a PAC'd address resolves as its canonical one (eu-addr2line)" "$T/res.exp" "$T/out"
ms resolve --capture "$T/a64.cap" --search "$M/a64" --offline --json "$RETPAC"
check_eq "arm64 resolve --json: address, address_with_pac, symbol" \
	"0x$RETA 0x$RETPAC dmod_caller" \
	"$(jq_py "$T/out" 'j[0]["address"] + " " + j[0]["address_with_pac"] + " " + j[0]["symbol"]')"
ms resolve --capture "$T/a64.cap" --search "$M/a64" --offline "$RETLOW" "$RETUSER"
check_rc "arm64 resolve: a PAC with a code bit below 48, a user address: exit 1" 1
check_out "arm64 resolve: both in no module, as given" \
	"0x$RETLOW: in no module and no kernel symbol
0x$RETUSER: in no module and no kernel symbol"

# ==== x86-64: the same bits are no PAC ======================================
KO=$M/x86/dmod.ko
XRET=$(pick_ret objdump "$KO")
check "x86-64 fixture: a return address after a call" test -n "$XRET"
XRETA=$(printf '%016x' $((X86_TEXT + XRET)))
XPAC=ffd0${XRETA#ffff}
OOPS=$T/x86.oops EXP=$T/x86.exp
: >"$OOPS"
: >"$EXP"
frame "[   47.000000]  " "[<$XRETA>]" "" $((XRET - 1))
pass "[   47.000010]  [<$XPAC>]"
pass "[   47.000020]  ? 0x$XPAC"
ms decode --capture "$T/x86.cap" --search "$M/x86" --offline "$OOPS"
check_same "x86-64 decode: a non-canonical address is left alone (no PAC on x86)" "$EXP" "$T/out"
ms resolve --capture "$T/x86.cap" --search "$M/x86" --offline "$XPAC"
check_rc "x86-64 resolve: the non-canonical address: exit 1" 1
check_out "x86-64 resolve: in no module" "0x$XPAC: in no module and no kernel symbol"

# ==== i386 ===================================================================
KO=$K32
OUT32=$(symoff "$KO" dmod_outer) CALL32=$(symoff "$KO" dmod_caller)
PC=$(pick_pc objdump "$KO")
RET=$(pick_ret objdump "$KO")
check "i386 fixture: a pc inside the inlined dmod_leaf, its line not the byte before's" test -n "$PC"
check "i386 fixture: a return address after a call, its line not the call's" test -n "$RET"
[ -n "$PC" ] && [ -n "$RET" ] || finish
PCF="dmod_outer+$(hex $((PC - OUT32)))/$(hex "$(symsize "$KO" dmod_outer)") [dmod]"
RETF="dmod_caller+$(hex $((RET - CALL32)))/$(hex "$(symsize "$KO" dmod_caller)") [dmod]"
PCA=$(printf '%08x' $((I386_TEXT + PC)))
RETA=$(printf '%08x' $((I386_TEXT + RET)))

OOPS=$T/i386.oops EXP=$T/i386.exp
: >"$OOPS"
: >"$EXP"
pass "[   12.345600] ------------[ cut here ]------------"
frame "[   12.345610] WARNING: CPU: 0 PID: 1 at dmod.c:6 " "$PCF" "" "$PC"
pass "[   12.345620] Modules linked in: dmod(O)"
pass "[   12.345630] CPU: 0 PID: 1 Comm: insmod Tainted: G           O       6.1.0-57-686-pae #1  Debian 6.1.158-1"
frame "[   12.345640] EIP: " "$PCF" "" "$PC"
pass "[   12.345650] Code: 8b 44 24 04 a3 00 00 00 00 <8d> 14 40 03 05 00 00 00 00"
pass "[   12.345660] EAX: 00000000 EBX: $RETA ECX: $PCA EDX: 00000000"
pass "[   12.345670] ESI: c1a2be80 EDI: 00000000 EBP: c1a2be3c ESP: c1a2be30"
pass "[   12.345680] DS: 007b ES: 007b FS: 00d8 GS: 0000 SS: 0068 EFLAGS: 00010246"
pass "[   12.345690] CR0: 80050033 CR2: b7f2a000 CR3: 01b8c000 CR4: 001406d0"
pass "[   12.345700] Call Trace:"
frame "[   12.345710]  " "$RETF" "" $((RET - 1))
frame "[   12.345720]  ? " "$RETF" "" $((RET - 1))
pass "[   12.345730]  do_one_initcall+0x40/0x1f0"
pass "[   12.345740] ---[ end trace 0000000000000000 ]---"
# Raw 32-bit addresses (8 digits): before 4.x, and alone.
frame "[   13.000000] EIP: " "[<$PCA>] $PCF" " SS:ESP 0068:c1a2be30" "$PC"
frame "[   13.000010]  " "[<$RETA>] $RETF" "" $((RET - 1))
frame "[   13.000020]  " "[<$RETA>] ? 0x$RETA" "" $((RET - 1))
frame "[   13.000030]  " "[<$RETA>]" "" $((RET - 1))
# Sign-extended, the address is another one: in no module.
pass "[   13.000040]  [<ffffffff$RETA>]"

ms decode --capture "$T/i386.cap" --search "$M/i386" --offline "$OOPS"
check_rc "i386 decode: exit 0" 0
check_same "i386 decode: EIP and WARNING exact, call-trace returns at address - 1, 8-digit raw addresses, registers untouched" "$EXP" "$T/out"

# Symbolic frames need only the module file, on any host.
grep -v '^\[   13\.' "$EXP" >"$T/i386.sym.exp"
grep -v '^\[   13\.' "$OOPS" >"$T/i386.sym.oops"
ms decode --search "$M/i386" --offline --moddir "$T/nomoddir" "$T/i386.sym.oops"
check_same "i386 decode without a map: the symbolic frames alike" "$T/i386.sym.exp" "$T/out"

ms resolve --capture "$T/i386.cap" --search "$M/i386" --offline "$PCA" "[<$RETA>]" "ffffffff$RETA"
check_rc "i386 resolve: the sign-extended one is in no module: exit 1" 1
{
	res_text "$KO" "$PC" "0x00000000$PCA: $PCF .text+$(hex "$PC")"
	res_text "$KO" "$RET" "0x00000000$RETA: $RETF .text+$(hex "$RET")"
	printf '0xffffffff%s: in no module and no kernel symbol\n' "$RETA"
} >"$T/res.exp"
check_same "i386 resolve: 32-bit addresses exactly (eu-addr2line), not extended" "$T/res.exp" "$T/out"

# ==== ppc64le ================================================================
# arch/powerpc/kernel/process.c (6.1, 6.12): show_regs' "NIP [%lx] %pS"
# (exact), "LR [%lx] %pS" (the link register: a return address), the
# "MSR: ... <SF,...,LE>" bits (the report's only word on endianness);
# show_stack's "[sp] [ip] %pS" entries (return addresses, the first one
# "(unreliable)") and "--- interrupt: %lx at %pS" (an exception's nip).
KO=$M/ppc/dmod.ko
OUTP=$(symoff "$KO" dmod_outer) CALLP=$(symoff "$KO" dmod_caller)
PC=$(pick_pc powerpc64le-linux-gnu-objdump "$KO")
RET=$(pick_ret powerpc64le-linux-gnu-objdump "$KO")
check "ppc64le fixture: a pc inside the inlined dmod_leaf, a return address after a bl" \
	test -n "$PC" -a -n "$RET"
check "ppc64le fixture: dmod_outer has a local entry 8 bytes on (ELFv2)" \
	eval "readelf -sW '$KO' | grep -q 'FUNC .*\[<localentry>: 8\] .* dmod_outer\$'"
[ -n "$PC" ] && [ -n "$RET" ] || finish
SZO=$(hex "$(symsize "$KO" dmod_outer)") SZC=$(hex "$(symsize "$KO" dmod_caller)")
PCF="dmod_outer+$(hex $((PC - OUTP)))/$SZO [dmod]"
RETF="dmod_caller+$(hex $((RET - CALLP)))/$SZC [dmod]"
# Between the global entry (kallsyms' address, from which the kernel's
# offsets count) and the local one: dmod_outer+0x4.
ENTF="dmod_outer+0x4/$SZO [dmod]"
PCA=$(printf '%016x' $((PPC_TEXT + PC)))
RETA=$(printf '%016x' $((PPC_TEXT + RET)))
ENTA=$(printf '%016x' $((PPC_TEXT + OUTP + 4)))
OOPS=$T/ppc.oops EXP=$T/ppc.exp
: >"$OOPS"
: >"$EXP"
frame "[   18.392657] WARNING: CPU: 0 PID: 1 at dmod.c:6 " "$PCF" "" "$PC"
pass "[   18.398012] Modules linked in: dmod(OE) isofs"
pass "[   18.399172] NIP:  $PCA LR: $RETA CTR: 0000000000000000"
pass "[   18.399285] REGS: c00000000399b830 TRAP: 0700   Tainted: G           OE       (6.1.0-57-powerpc64le Debian 6.1.192-3)"
pass "[   18.399351] MSR:  8000000000029033 <SF,EE,ME,IR,DR,RI,LE>  CR: 24008282  XER: 20040006"
pass "[   18.399465] GPR00: $RETA c00000000399bad0 c008000000548100 0000000000000014 "
frame "[   18.399844] NIP [$PCA] " "$PCF" "" "$PC"
frame "[   18.399896] LR [$RETA] " "$RETF" "" $((RET - 1))
pass "[   18.400006] Call Trace:"
frame "[   18.400064] [c00000000399bad0] [$RETA] " "$RETF" " (unreliable)" $((RET - 1))
frame "[   18.400185] [c00000000399bb40] [$RETA] " "$RETF" "" $((RET - 1))
pass "[   18.400227] [c00000000399bb70] [c000000000170c8c] param_attr_store+0x9c/0x160"
frame "[   18.400300] --- interrupt: 700 at " "$ENTF" "" $((OUTP + 4))
frame "[   18.400310] NIP [$ENTA] " "$ENTF" "" $((OUTP + 4))
pass "[   18.400738] --- interrupt: 3000 at 0x100c4180"
pass "[   18.400874] NIP [00000000100c4180] 0x100c4180"
ms decode --capture "$T/ppc.cap" --search "$M/ppc" --offline "$OOPS"
check_rc "ppc64le decode: exit 0" 0
check_same "ppc64le decode: NIP, WARNING, interrupt at exact (between global and local entry too), LR and call-trace returns at address - 1 (eu-addr2line)" "$EXP" "$T/out"
# No machine line: the MSR line says ppc64le; no map at all: the same.
ms decode --capture "$T/ppc-nomach.cap" --search "$M/ppc" --offline "$OOPS"
check_same "ppc64le decode, capture without machine line: the same" "$EXP" "$T/out"
ms decode --search "$M/ppc" --offline --moddir "$T/nomoddir" "$OOPS"
check_same "ppc64le decode without a map: the same" "$EXP" "$T/out"
# With no map, a big-endian ppc64 report (no LE in MSR) is not this
# module's kernel: refused, naming the endianness, its frames as they are. A report without an MSR
# line says no endianness, and a capture without machine line none
# either: decoded.
sed 's/,RI,LE>/,RI>/' "$OOPS" >"$T/ppcbe.oops"
ms decode --search "$M/ppc" --offline --moddir "$T/nomoddir" "$T/ppcbe.oops"
check_rc "ppc64 (big-endian) report, the little-endian module: refused, exit 1 (its frames left as they are)" 1
check_same "ppc64 (big-endian) report, the little-endian module: the report as it is" "$T/ppcbe.oops" "$T/out"
check_grep "ppc64 (big-endian) report: the message names the endianness" \
	'dmod.ko is for ppc64le .*, little-endian, but the kernel is ppc64: it is not a module of this kernel' "$T/err"
grep -v 'MSR: ' "$OOPS" >"$T/ppcnomsr.oops"
grep -v 'MSR: ' "$EXP" >"$T/ppcnomsr.exp"
ms decode --capture "$T/ppc-nomach.cap" --search "$M/ppc" --offline "$T/ppcnomsr.oops"
check_same "ppc64le report without its MSR line: decoded all the same" "$T/ppcnomsr.exp" "$T/out"
ms resolve --capture "$T/ppc.cap" --search "$M/ppc" --offline "$ENTA"
res_text "$KO" $((OUTP + 4)) "0x$ENTA: $ENTF .text+$(hex $((OUTP + 4)))" >"$T/res.exp"
check_same "ppc64le resolve: an address between global and local entry, as the kernel names it (eu-addr2line)" "$T/res.exp" "$T/out"

finish
