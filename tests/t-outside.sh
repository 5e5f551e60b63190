#!/bin/bash
# Raw addresses outside every module's sections (issue #14), with a
# capture of two modules: above both, and between them past the first
# one's end. Such an address is no module's: resolve prints it as in no
# module (as below every module, exit 1) and decode passes its frame
# through, neither saying anything about the module whose last section
# starts below it, whether its file is there (its sizes then tell) or not
# (then nothing can be said of it). An address that lies among one
# module's sections is still that module's: no file for it is said, once,
# as is a module named by a frame after it was tried in silence.
. "$(dirname "$0")/lib.sh"
need gcc ld python3 || finish

mkxmod() { # NAME: $T/files/NAME/NAME.ko
	local d=$T/files/$1
	mkdir -p "$d"
	cat >"$d/$1.c" <<EOF
int $1_data = 3;

__attribute__((noinline)) int $1_func(int x)
{
	return x * $1_data + 1;
}
EOF
	gcc -g -O2 -fno-pic -mcmodel=kernel -c -o "$d/$1.o" "$d/$1.c" &&
		ld -r --build-id=sha1 -o "$d/$1.ko" "$d/$1.o"
}
mkxmod amod && mkxmod bmod || bail "build amod and bmod"

cat >"$T/cap" <<EOF
release $REL
machine x86_64
amod .text 0xffffffffc0a00000
amod .data 0xffffffffc0a02000
bmod .text 0xffffffffc0b00000
bmod .data 0xffffffffc0b02000
EOF
BELOW=0xffffffffc0000000
BETWEEN=0xffffffffc0a10000 # past amod's .data (4 bytes), below bmod
ABOVE=0xffffffffff000000
AMONG=0xffffffffc0b01000 # between bmod's .text and .data starts

nothing_for() { # ADDR...: the text resolve prints for addresses in no module
	local a
	for a in "$@"; do printf '0x%016x: in no module and no kernel symbol\n' "$a"; done
}

# Each module's file alone: the other one has none.
for have in amod bmod; do
	S=(--capture "$T/cap" --search "$T/files/$have" --moddir "$T/nomoddir" --offline)
	ms resolve "${S[@]}" $BELOW
	check_rc "only $have's file: below every module: exit 1" 1
	check_out "only $have's file: below every module: in no module" "$(nothing_for $BELOW)"
	ms resolve "${S[@]}" $ABOVE $BETWEEN
	check_rc "only $have's file: above both, and between them: exit 1, as below" 1
	check_out "only $have's file: above both, and between them: in no module" \
		"$(nothing_for $ABOVE $BETWEEN)"
	check "only $have's file: resolve says nothing (no warning)" test ! -s "$T/err"

	printf '%s\n' "[   12.000001] Call Trace:" \
		"[   12.000002]  [<ffffffffff000000>] 0xffffffffff000000" \
		"[   12.000003]  [<ffffffffc0a10000>] 0xffffffffc0a10000" >"$T/oops"
	ms decode "${S[@]}" "$T/oops"
	check_rc "only $have's file: decode: exit 0" 0
	check_same "only $have's file: decode passes both frames through" "$T/oops" "$T/out"
	check "only $have's file: decode says nothing (no warning)" test ! -s "$T/err"
done

# Among bmod's sections, without its file: bmod's, and said so.
S=(--capture "$T/cap" --search "$T/files/amod" --moddir "$T/nomoddir" --offline)
ms resolve "${S[@]}" $AMONG
check_rc "among bmod's sections, no file: exit 1" 1
check_out "among bmod's sections, no file: in no module" "$(nothing_for $AMONG)"
check_grep "among bmod's sections, no file: no file for module bmod" 'no file for module bmod' "$T/err"

# Tried in silence for an address above it, said when a frame names it.
printf '%s\n' "[   12.000002]  [<ffffffffff000000>] 0xffffffffff000000" \
	"[   12.000003]  bmod_func+0x4/0x10 [bmod]" \
	"[   12.000004]  [<ffffffffc0b01000>] 0xffffffffc0b01000" >"$T/oops"
ms decode "${S[@]}" "$T/oops"
check_rc "decode, bmod named after an address above it: exit 1 (frames left unannotated)" 1
check_same "decode, bmod named after an address above it: lines pass through" "$T/oops" "$T/out"
check_eq "decode, bmod named after an address above it: no file for bmod said once" 1 \
	"$(grep -c 'no file for module bmod' "$T/err")"

# With both files, the same addresses, and one inside amod's .text.
S=(--capture "$T/cap" --search "$T/files" --moddir "$T/nomoddir" --offline)
ms resolve "${S[@]}" $ABOVE $BETWEEN
check_out "both files: above both, and between them: in no module" "$(nothing_for $ABOVE $BETWEEN)"
check_rc "both files: exit 1" 1
ms resolve "${S[@]}" 0xffffffffc0a00000
check_grep "both files: amod's .text is amod's" '^0xffffffffc0a00000: amod_func\+0x0/0x[0-9a-f]+ \[amod\] \.text\+0x0$' "$T/out"

finish
