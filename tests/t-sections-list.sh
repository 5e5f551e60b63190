#!/bin/bash
# Rule 12: `modsect sections` (table and --json) and `modsect list` (table
# and --json): exact tables, valid JSON, section states.
# (Rule 12 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy readelf python3 || finish
std_fixture || bail "fixture"
mkmod "$T/o" othermod || bail "othermod"
mksysmod "$R" othermod "$T/o/othermod.ko"
# badmod: installed, but the loaded build is another one.
mkmod "$T/b1" badmod 1 && mkmod "$T/b2" badmod 2 || bail "badmod"
mksysmod "$R" badmod "$T/b2/badmod.ko" coming
install_mod "$R" "$T/b1/badmod.ko" fs/badmod.ko
P=@T@/root/lib/modules/@REL@/kernel/drivers/misc/testmod.ko

# Section sizes of the file, for the expected table.
size() {
	readelf -SW "$KO" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk -v n="$1" '$1 == n { print $5 }' |
		while read -r h; do echo $((0x$h)); done
}
row() { # name addr flags init state
	printf '%-29s%-18s %10s %-5s %-4s %s\n' "$1" "$2" "$(size "$1")" "$3" "$4" "$5"
}
{
	echo "module:   testmod (live)"
	echo "file:     $P"
	echo "verified: build-id"
	echo "debug:    $P (module, build-id)"
	printf '%-28s %-18s %10s %-5s %-4s %s\n' SECTION ADDRESS SIZE FLAGS INIT STATE
	row .text 0xffffffffc0a14000 AX no loaded
	row .rodata 0xffffffffc0a15000 A no loaded
	row .note.gnu.build-id 0xffffffffc0a15100 A no loaded
	row .data 0xffffffffc0a16000 WA no loaded
	row .bss 0xffffffffc0a16400 WA no loaded
	row .init.text 0xffffffffc0a1c000 AX yes freed
	row .symtab 0xffffffffc0a20000 "" no not-alloc
	row .strtab 0xffffffffc0a21000 "" no not-alloc
	row __versions - A no not-loaded
	row .modinfo - A no not-loaded
	row .data..percpu - WA no not-loaded
} >"$T/expected"

ms sections --root "$R" testmod
check_rc "sections: exit 0" 0
norm "$T/out" >"$T/actual"
check_same "sections: exact table" "$T/expected" "$T/actual"

ms sections --root "$R" --json testmod
check_rc "sections --json: exit 0" 0
check "sections --json: valid JSON" python3 -m json.tool "$T/out" /dev/null
check_eq "sections --json: module fields" \
	"testmod live build-id $BUILD_ID $BUILD_ID" \
	"$(jq_py "$T/out" '" ".join([j["module"], j["initstate"], j["verified"], j["build_id"], j["file_build_id"]])')"
check_eq "sections --json: states" \
	".text=loaded .rodata=loaded .note.gnu.build-id=loaded .data=loaded .bss=loaded .init.text=freed .symtab=not-alloc .strtab=not-alloc __versions=not-loaded .modinfo=not-loaded .data..percpu=not-loaded" \
	"$(jq_py "$T/out" '" ".join(s["name"] + "=" + s["state"] for s in j["sections"])')"
check_eq "sections --json: address is the map's, null when not in the map" \
	"0xffffffffc0a14000 0xffffffffc0a1c000 None" \
	"$(jq_py "$T/out" '" ".join(str(S[n]["address"]) for n in (".text", ".init.text", ".modinfo"))')"
check_eq "sections --json: debugger_address of freed/not-loaded sections is parked" \
	"True True True" \
	"$(jq_py "$T/out" '" ".join(str(S[n]["debugger_address"].startswith("0x0bad")) for n in (".init.text", "__versions", ".modinfo"))')"
check_eq "sections --json: size, flags, init of .init.text" \
	"$(size .init.text) AX True" \
	"$(jq_py "$T/out" '" ".join(str(S[".init.text"][k]) for k in ("size", "flags", "init"))')"

ms sections --root "$R" --json --init testmod
check_eq "sections --json --init: .init.text loaded at its map address" "loaded 0xffffffffc0a1c000" \
	"$(jq_py "$T/out" 'S[".init.text"]["state"] + " " + S[".init.text"]["debugger_address"]')"

ms sections --root "$R" badmod
check_refused "sections of a mismatching build: exit 3" 3 'not the loaded build'

ms list --root "$R"
check_rc "list: exit 0" 0
norm "$T/out" >"$T/actual"
{
	printf '%-24s %-8s %-18s %-10s %-10s %s\n' MODULE STATE TEXT VERIFIED DEBUG FILE
	printf '%-24s %-8s %-18s %-10s %-10s %s\n' badmod coming $A_TEXT mismatch - "@T@/root/lib/modules/@REL@/kernel/fs/badmod.ko"
	printf '%-24s %-8s %-18s %-10s %-10s %s\n' othermod live $A_TEXT - - -
	printf '%-24s %-8s %-18s %-10s %-10s %s\n' testmod live $A_TEXT build-id module "$P"
} >"$T/expected"
check_same "list: exact table" "$T/expected" "$T/actual"

ms list --root "$R" --json
check_rc "list --json: exit 0" 0
check "list --json: valid JSON" python3 -m json.tool "$T/out" /dev/null
norm "$T/out" >"$T/actual"
check_eq "list --json: rows" \
	"badmod coming 0xffffffffc0a14000 mismatch @T@/root/lib/modules/@REL@/kernel/fs/badmod.ko|othermod live 0xffffffffc0a14000 - None|testmod live 0xffffffffc0a14000 build-id $P" \
	"$(jq_py "$T/actual" '"|".join(" ".join(str(r[k]) for k in ("name", "initstate", "text", "verified", "file")) for r in j)')"

# A module without sections/ (built-in) is not listed; no initstate is "-".
mkdir -p "$R/sys/module/builtin_thing/parameters"
rm "$R/sys/module/othermod/initstate"
ms list --root "$R"
check_nogrep "list: built-in module (no sections/) not listed" '^builtin_thing' "$T/out"
check_grep "list: unknown initstate shown as -" "^othermod +- +$A_TEXT " "$T/out"
ms list --root "$R" --json
check_eq "list --json: unknown initstate is null" "None" \
	"$(jq_py "$T/out" '[r["initstate"] for r in j if r["name"] == "othermod"][0]')"
finish
