#!/bin/bash
# A module whose sections do not all start at address 0 (Linux 6.10+'s
# scripts/module.lds.S gives ld -r an output section .data without the " 0"
# address: Debian's 6.12 modules have .data at sh_addr 0x7e0). gdb 13 then
# puts the DWARF symbols of sections other than .text at .text's address.
# modsect gives the debuggers a copy in its cache whose section headers say
# 0, with the same bytes otherwise (same build-id); `resolve` is right too.
. "$(dirname "$0")/lib.sh"
need gcc ld gdb readelf cmp || finish

D=$T/mod
mkdir -p "$D"
cat >"$D/shmod.c" <<'EOF'
int shmod_pad = 1;
int shmod_var = 42;
__attribute__((section(".rodata.x"))) const int shmod_ro = 5;
int shmod_fn(int x) { return x * shmod_var + shmod_pad + shmod_ro; }
__attribute__((section(".exit.text"))) int shmod_exit(int x) { return shmod_fn(x) + 3; }
static const char __UNIQUE_ID_name[] __attribute__((section(".modinfo"), used)) = "name=shmod";
EOF
# As Kbuild's modfinal does: ld -r with a script that places .data at the
# location counter (not at 0).
printf 'SECTIONS {\n .data : { *(.data) }\n}\n' >"$D/module.lds"
gcc -g -O2 -fno-pic -mcmodel=kernel -c -o "$D/shmod.o" "$D/shmod.c" &&
	ld -r --build-id=sha1 -T "$D/module.lds" -o "$D/shmod.ko" "$D/shmod.o" || bail "fixture"
KO=$D/shmod.ko
addr=$(readelf -SW "$KO" | awk '$2 == ".data" { print $4 }')
check "fixture: .data has a non-zero sh_addr ($addr)" [ -n "$addr" ] && [ "$((16#${addr:-0}))" != 0 ]

A_X=0xffffffffc0200000 A_RO=0xffffffffc0300000
cat >"$T/cap" <<EOF
release $REL
machine x86_64
shmod .text $A_TEXT
shmod .data $A_DATA
shmod .exit.text $A_X
shmod .rodata.x $A_RO
EOF
ms gdb --capture "$T/cap" --search "$D" --cache-dir "$T/cache" -o "$T/s.gdb" shmod
check_rc "modsect gdb: exit 0" 0
copy=$(sed -n 's/^add-symbol-file \([^ ]*\) .*/\1/p' "$T/s.gdb")
check "the script loads a copy in the cache, not the module" [ "${copy#"$T/cache/"}" != "$copy" ]
nz=$(readelf -SW "$copy" 2>/dev/null | awk '/^ *\[ *[0-9]+\]/ && $0 !~ /NULL/ { s = $0; sub(/^ *\[ *[0-9]+\] */, "", s); split(s, w, " "); if (w[3] !~ /^0+$/) n++ } END { print n + 0 }')
check_eq "the copy's sections all start at 0" 0 "$nz"
check_eq "the copy has the module's build-id" "$(build_id "$KO")" "$(build_id "$copy")"
# Only the address fields differ: the same size and at most 8 bytes a section.
ndiff=$(cmp -l "$KO" "$copy" | wc -l)
check "the copy differs from the module only in sh_addr bytes ($ndiff)" [ "$(stat -c %s "$KO")" = "$(stat -c %s "$copy")" ] && [ "$ndiff" -le 8 ]

gdb_eval "$T/s.gdb" 'info address shmod_exit' 'info address shmod_fn' \
	'info address shmod_var' 'info address shmod_ro' 'info line shmod_exit'
for sv in "shmod_exit $A_X" "shmod_fn $A_TEXT" "shmod_var $A_DATA" "shmod_ro $A_RO"; do
	set -- $sv
	# st_value, the offset in the section (nm adds sh_addr to it).
	off=$(readelf -sW "$KO" | awk -v s="$1" '$8 == s { print "0x" $2; exit }')
	want=$(hexadd "$2" "$off")
	check_eq "gdb: &$1 at its section's address + offset" "$want" "$(gdb_addr_of "$1")"
done
check_grep "gdb: the line table of .exit.text at its address" "starts at address $A_X" "$T/gdb.out"

# The module file itself, as gdb would take it without modsect: wrong.
gdb -nx -batch -ex 'set architecture i386:x86-64' \
	-ex "add-symbol-file $KO $A_TEXT -s .data $A_DATA -s .exit.text $A_X -s .rodata.x $A_RO" \
	-ex 'info address shmod_exit' >"$T/raw.out" 2>&1
if grep -q "is a function at address $A_X\." "$T/raw.out"; then
	echo "# note: this gdb reads the original file right too"
fi

off=$(readelf -sW "$KO" | awk '$8 == "shmod_exit" { print "0x" $2; exit }')
ms resolve --capture "$T/cap" --search "$D" --cache-dir "$T/cache" "$(hexadd "$A_X" "$off")"
check_rc "resolve: exit 0" 0
check_grep "resolve: the address names shmod_exit in shmod" 'shmod_exit\+0x0.*\[shmod\]' "$T/out"
finish
