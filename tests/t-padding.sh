#!/bin/bash
# resolve on the padding after a function (issue #14): bytes past a sized
# function symbol's end and before the next symbol are named as the
# kernel's kallsyms names them, the preceding symbol with the offset from
# it and the size counted to the next symbol of the section (or to the
# section's end after the last one), and said to be past its end: text
# "(past the end of FUNC, size 0xST_SIZE)", JSON "past_end": true and
# "elf_size". Their frames are what the line table says, never the
# function's. Addresses inside a function print as before, and on arm64
# the mapping symbols ($x, $d) are never the name.
. "$(dirname "$0")/lib.sh"
need gcc ld aarch64-linux-gnu-gcc aarch64-linux-gnu-ld eu-readelf eu-addr2line python3 || finish

M=$T/m
mkdir -p "$M/x86" "$M/a64"
cat >"$M/pmod.c" <<'EOF'
volatile int pmod_sink;

__attribute__((noinline)) int pmod_first(int x)
{
	pmod_sink = x;
	return x + 1;
}

__attribute__((noinline)) int pmod_second(int x)
{
	return pmod_first(x) * 3;
}
EOF
# The last function of .text, then padding to the section's end.
cat "$M/pmod.c" - >"$M/x86/pmod.c" <<'EOF'

__asm__(".text\n"
	".p2align 6, 0xcc\n"
	".globl pmod_last\n"
	".type pmod_last, @function\n"
	"pmod_last:\n"
	"\tret\n"
	".size pmod_last, .-pmod_last\n"
	".p2align 6, 0xcc\n");
EOF
gcc -g -O2 -falign-functions=64 -fno-toplevel-reorder -fno-pic -mcmodel=kernel \
	-fno-asynchronous-unwind-tables -c -o "$M/x86/pmod.o" "$M/x86/pmod.c" &&
	ld -r --build-id=sha1 -o "$M/x86/pmod.ko" "$M/x86/pmod.o" || bail "build pmod"
aarch64-linux-gnu-gcc -g -O2 -falign-functions=64 -c -o "$M/a64/pmod.o" "$M/pmod.c" &&
	aarch64-linux-gnu-ld -r --build-id=sha1 -o "$M/a64/pmod.ko" "$M/a64/pmod.o" ||
	bail "build the arm64 pmod"
KO=$M/x86/pmod.ko

symoff() { # KO NAME: its offset in its section, decimal (eu-readelf: hex)
	local v
	v=$(eu-readelf -s "$1" | awk -v n="$2" '$8 == n { print $2; exit }')
	[ -n "$v" ] && echo $((16#$v))
}
symsize() { # KO NAME: decimal, as eu-readelf prints it
	eu-readelf -s "$1" | awk -v n="$2" '$8 == n { print $3; exit }'
}
secsize() { # KO SECTION: decimal
	local h
	h=$(eu-readelf -S "$1" | awk -v s="$2" '{ for (i = 1; i <= NF; i++) if ($i == s) { print $(i + 4); exit } }')
	[ -n "$h" ] && echo $((16#$h))
}
hex() { printf '0x%x' "$1"; }
# check_out_head DESC EXPECTED: $T/head (the output's header lines) is EXPECTED.
check_out_head() {
	printf '%s\n' "$2" >"$T/expected"
	check_same "$1" "$T/expected" "$T/head"
}
addr() { printf '0x%016x' $((TEXT + $1)); }

FIRST=$(symoff "$KO" pmod_first) FIRST_SZ=$(symsize "$KO" pmod_first)
SECOND=$(symoff "$KO" pmod_second) SECOND_SZ=$(symsize "$KO" pmod_second)
LAST=$(symoff "$KO" pmod_last) LAST_SZ=$(symsize "$KO" pmod_last)
TEXT_SZ=$(secsize "$KO" .text)
check "fixture: padding after pmod_first (ends $(hex $((FIRST + FIRST_SZ))), next symbol at $(hex "$SECOND"))" \
	test $((FIRST + FIRST_SZ)) -lt "$SECOND"
check "fixture: padding after pmod_last up to the end of .text ($(hex "$TEXT_SZ"))" \
	test $((LAST + LAST_SZ)) -lt "$TEXT_SZ"

TEXT=0xffffffffc0b00000
printf 'release %s\nmachine x86_64\npmod .text %s\npmod .data 0xffffffffc0b20000\n' \
	"$REL" "$TEXT" >"$T/cap"
RES=(resolve --capture "$T/cap" --search "$M/x86" --offline)

# In the padding after pmod_first: its name, the kernel's size, the marker.
PAD=$((FIRST + FIRST_SZ + 3))
ms "${RES[@]}" "$(addr $PAD)"
check_rc "padding: exit 0" 0
head -n 1 "$T/out" >"$T/head"
check_out_head "padding after pmod_first: pmod_first+off/size to the next symbol, past its end" \
	"$(addr $PAD): pmod_first+$(hex $((PAD - FIRST)))/$(hex $((SECOND - FIRST))) [pmod] .text+$(hex $PAD) (past the end of pmod_first, size $(hex "$FIRST_SZ"))"
check_nogrep "padding: no frame is pmod_first's" '^    pmod_first ' "$T/out"
# The frames are the line table's, as eu-addr2line reads it: no function.
ref=$(eu-addr2line -e "$KO" -j .text "$(hex $PAD)")
case $ref in
'??:0' | '??:'*) check "padding: no source line where DWARF has none" test "$(wc -l <"$T/out")" = 1 ;;
*) check_grep "padding: the line table's row, as \"??\" (no function)" "^    \\?\\? at ${ref//./\\.}" "$T/out" ;;
esac

# Its last byte, and the last function's padding, counted to .text's end.
ms "${RES[@]}" "$(addr $((SECOND - 1)))" "$(addr $((LAST + LAST_SZ)))" "$(addr $((TEXT_SZ - 1)))"
grep -v '^    ' "$T/out" >"$T/head"
check_out_head "padding: the byte before the next symbol, and after the last function up to the section's end" \
	"$(addr $((SECOND - 1))): pmod_first+$(hex $((SECOND - 1 - FIRST)))/$(hex $((SECOND - FIRST))) [pmod] .text+$(hex $((SECOND - 1))) (past the end of pmod_first, size $(hex "$FIRST_SZ"))
$(addr $((LAST + LAST_SZ))): pmod_last+$(hex "$LAST_SZ")/$(hex $((TEXT_SZ - LAST))) [pmod] .text+$(hex $((LAST + LAST_SZ))) (past the end of pmod_last, size $(hex "$LAST_SZ"))
$(addr $((TEXT_SZ - 1))): pmod_last+$(hex $((TEXT_SZ - 1 - LAST)))/$(hex $((TEXT_SZ - LAST))) [pmod] .text+$(hex $((TEXT_SZ - 1))) (past the end of pmod_last, size $(hex "$LAST_SZ"))"

# Inside functions: as before, ELF sizes, no marker.
ms "${RES[@]}" "$(addr $((FIRST + 4)))" "$(addr "$SECOND")"
grep -v '^    ' "$T/out" >"$T/head"
check_out_head "inside functions: symbol+off/st_size, no marker" \
	"$(addr $((FIRST + 4))): pmod_first+0x4/$(hex "$FIRST_SZ") [pmod] .text+$(hex $((FIRST + 4)))
$(addr "$SECOND"): pmod_second+0x0/$(hex "$SECOND_SZ") [pmod] .text+$(hex "$SECOND")"
check_grep "inside functions: the function's frame" '^    pmod_first at .*/pmod\.c:[0-9]+' "$T/out"

# JSON: past_end and elf_size for padding only.
ms "${RES[@]}" --json "$(addr $PAD)" "$(addr $((FIRST + 4)))"
check_rc "json: exit 0" 0
check_eq "json: padding is pmod_first's, offset, size to the next symbol, past_end, elf_size" \
	"pmod_first $((PAD - FIRST)) $((SECOND - FIRST)) True $FIRST_SZ" \
	"$(jq_py "$T/out" '" ".join(str(j[0].get(k)) for k in ("symbol", "offset", "size", "past_end", "elf_size"))')"
check_eq "json: no frame of padding names a function" "True" \
	"$(jq_py "$T/out" 'all(f["function"] == "??" for f in j[0]["frames"])')"
check_eq "json: inside a function, no past_end or elf_size key" "pmod_first $FIRST_SZ False False" \
	"$(jq_py "$T/out" '"%s %s %s %s" % (j[1]["symbol"], j[1]["size"], "past_end" in j[1], "elf_size" in j[1])')"

# arm64: $x marks each function's start; padding is still pmod_first's.
K64=$M/a64/pmod.ko
A_FIRST=$(symoff "$K64" pmod_first) A_FIRST_SZ=$(symsize "$K64" pmod_first)
A_SECOND=$(symoff "$K64" pmod_second)
check "arm64 fixture: \$x mapping symbols" test -n "$(symsize "$K64" '$x')"
check "arm64 fixture: padding after pmod_first" test $((A_FIRST + A_FIRST_SZ)) -lt "$A_SECOND"
TEXT=0xffff80000a000000
printf 'release %s\nmachine aarch64\npmod .text %s\n' "$REL" "$TEXT" >"$T/a64.cap"
APAD=$((A_FIRST + A_FIRST_SZ + 4))
ms resolve --capture "$T/a64.cap" --search "$M/a64" --offline "$(addr $APAD)"
head -n 1 "$T/out" >"$T/head"
check_out_head "arm64 padding: named pmod_first, not a mapping symbol" \
	"$(addr $APAD): pmod_first+$(hex $((APAD - A_FIRST)))/$(hex $((A_SECOND - A_FIRST))) [pmod] .text+$(hex $APAD) (past the end of pmod_first, size $(hex "$A_FIRST_SZ"))"
check_nogrep "arm64: no \$x or \$d anywhere" '\$[xd]' "$T/out"

finish
