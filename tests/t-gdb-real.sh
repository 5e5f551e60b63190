#!/bin/bash
# Rule 2: a real, offline gdb sourcing modsect's script puts the module's
# symbols at map address + symbol offset; low made-up addresses (where gdb
# would lay out sections it is not told about) name no module symbol; and
# symbols of sections the kernel did not load (.modinfo, __versions) are
# only in the parked 0x0bad... range.  We ask gdb for symbol addresses and
# never parse its echo of add-symbol-file (gdb 13 truncates it).
# (Rule 2 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy nm gdb || finish
std_fixture || bail "fixture"

ms gdb --root "$R" -o "$T/s.gdb" testmod
check_rc "modsect gdb -o: exit 0" 0

gdb_eval "$T/s.gdb" 'info address testmod_func' 'p &testmod_data' \
	'p &testmod_bss' 'p &testmod_table' 'p &testmod_helper' \
	'info symbol 0x0' 'info symbol 0x10' 'info symbol 0x18' 'info symbol 0x40' \
	'p &__UNIQUE_ID_name' 'p &__UNIQUE_ID_srcversion' 'p &testmod_versions' \
	'info symbol 0xbad000000000000' 'show architecture' 'x/i testmod_func'
check_grep "gdb loaded the symbol file" 'add symbol table from file' "$T/gdb.out"
# The script sets the architecture: a fresh gdb would start as i386 and
# cut addresses to 32 bits (x/i, p of an address).
check_grep "gdb: the script set architecture i386:x86-64" \
	'^The target architecture is set to "i386:x86-64"\.$' "$T/gdb.out"
check_grep "gdb: x/i testmod_func at its whole 64-bit address" \
	"^ *$(hexadd "$A_TEXT" "$(symval "$KO" testmod_func)") <testmod_func>:" "$T/gdb.out"

for sv in "testmod_func .text $A_TEXT" "testmod_helper .text $A_TEXT" \
	"testmod_data .data $A_DATA" "testmod_bss .bss $A_BSS" \
	"testmod_table .rodata $A_RODATA"; do
	set -- $sv
	off=$(symval "$KO" "$1")
	want=$(hexadd "$3" "$off")
	check_eq "gdb: &$1 = $2 address + offset $off" "$want" "$(gdb_addr_of "$1")"
done
[ "$(symval "$KO" testmod_data)" != 0x0 ] && [ "$(symval "$KO" testmod_func)" != 0x0 ]
check "fixture: tested symbols are at non-zero offsets" [ $? = 0 ]

for a in 0x0 0x10 0x18 0x40; do
	if grep -q "^No symbol matches $a\.$" "$T/gdb.out"; then
		ok "gdb: info symbol $a names no module symbol"
	else
		not_ok "gdb: info symbol $a names no module symbol" "$(grep -A1 "symbol $a" "$T/gdb.out"; cat "$T/gdb.out")"
	fi
done

for s in __UNIQUE_ID_name __UNIQUE_ID_srcversion testmod_versions; do
	a=$(gdb_addr_of "$s")
	if [ -n "$a" ] && [ $((a >> 48)) = $((0x0bad)) ]; then
		ok "gdb: $s (.modinfo/__versions) only at a parked 0x0bad... address"
	else
		not_ok "gdb: $s (.modinfo/__versions) only at a parked 0x0bad... address" "got '$a'" "$(cat "$T/gdb.out")"
	fi
done

# Control: without the parked sections gdb would put them at low addresses
# (this is what the checks above guard against).
sed -E 's/ -s [^ ]+ 0xbad[0-9a-f]+//g' "$T/s.gdb" >"$T/noparking.gdb"
gdb_eval "$T/noparking.gdb" 'info symbol 0x0' 'info symbol 0x10' 'info symbol 0x18' 'info symbol 0x40'
check_grep "control: gdb names a module symbol at a low address when not told where sections are" \
	'in section (__versions|\.modinfo|\.data\.\.percpu|\.init\.text)' "$T/gdb.out"
finish
