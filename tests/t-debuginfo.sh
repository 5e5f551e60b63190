#!/bin/bash
# Debug info lookup (no debuginfod here: see t-debuginfod.sh).  A stripped
# module is installed and its separate debug file is found, in order,
# through --debug-file, --debug-dir (build-id path, then module path),
# ROOT/usr/lib/debug, the module's own DWARF; each candidate is checked
# against the loaded build and skipped with its reason when it is another
# build; gdb and lldb then show source lines while addresses stay the
# map's; `modsect debuginfo` table, JSON and exit status; sections and list.
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy strip readelf eu-readelf nm python3 gdb lldb xz || finish
std_fixture || bail "fixture"
S=$T/strip/testmod.ko
DBG=$T/testmod.debug
split_debug "$KO" "$S" "$DBG" || bail "split_debug"
mkmod "$T/other" testmod 1 || bail "second build"
ODBG=$T/other.debug
objcopy --only-keep-debug "$T/other/testmod.ko" "$ODBG" || bail "other debug file"
OTHER=$(build_id "$T/other/testmod.ko")
install_mod "$R" "$S" drivers/misc/testmod.ko || bail "install stripped"
MODREL=kernel/drivers/misc/testmod.ko
MODPATH=$R/lib/modules/$REL/$MODREL
BIDP=$(buildid_path "$BUILD_ID")
NOTE=$R/sys/module/testmod/notes/.note.gnu.build-id
SYSDBG=$R/usr/lib/debug

# has_sec FILE SECTION TYPE: FILE has SECTION of TYPE (PROGBITS, NOBITS...)
# and, for PROGBITS, a non-zero size.
has_sec() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk -v n="$2" -v t="$3" '$1 == n && $2 == t && (t != "PROGBITS" || $5 !~ /^0+$/) { f = 1 } END { exit !f }'
}
# row MODULE BUILDID SOURCE VERIFIED FILE: one line of `modsect debuginfo`.
row() {
	printf '%-24s %-40s %-10s %-10s %s\n' "$@"
}
HDR=$(row MODULE BUILD-ID SOURCE VERIFIED FILE)
# di_out DESC SOURCE VERIFIED FILE: $T/out is the header and testmod's row
# (both sides normalized, so the columns stay aligned).
di_out() {
	{
		echo "$HDR"
		row testmod "$BUILD_ID" "$2" "$3" "$4"
	} | norm >"$T/expected"
	norm "$T/out" >"$T/actual"
	check_same "$1" "$T/expected" "$T/actual"
}
# jdi EXPR: EXPR on the JSON of `modsect debuginfo` in $T/out, with m the
# object of testmod.
jdi() {
	jq_py "$T/out" "(lambda m: $1)([x for x in j if x.get('module') == 'testmod'][0])"
}

check "fixture: the stripped module has no .debug_info" eval '! has_sec "$S" .debug_info PROGBITS'
check "fixture: the module has .debug_info" has_sec "$KO" .debug_info PROGBITS
check "fixture: the debug file has .debug_info" has_sec "$DBG" .debug_info PROGBITS
check "fixture: the debug file's .modinfo is NOBITS" has_sec "$DBG" .modinfo NOBITS
check_eq "fixture: stripped module and debug file keep the build-id" \
	"$BUILD_ID $BUILD_ID" "$(build_id "$S") $(build_id "$DBG")"
check "fixture: the other build has another build-id" [ "${OTHER:-none}" != "$BUILD_ID" ]

# ---- nothing found -------------------------------------------------------------
ms debuginfo --root "$R" --offline testmod
check_rc "none found: exit 1" 1
di_out "none found: row with source -" - - -
ms debuginfo --root "$R" --offline --debug-dir "$T/no-such-dir" testmod
check_rc "--debug-dir that does not exist: exit 1, not an error" 1

# ---- (a) --debug-dir, by build-id --------------------------------------------
put "$DBG" "$T/dbid/$BIDP"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbid" testmod
check_rc "debug-dir by build-id: exit 0" 0
di_out "debug-dir by build-id: exact table" debug-dir build-id "@T@/dbid/$BIDP"

# ---- (b) --debug-dir, by module path -------------------------------------------
n=0
for p in "lib/modules/$REL/$MODREL" "lib/modules/$REL/$MODREL.debug" "$MODREL" "$MODREL.debug"; do
	n=$((n + 1))
	put "$DBG" "$T/dpath$n/$p"
	ms debuginfo --root "$R" --offline --debug-dir "$T/dpath$n" testmod
	check_rc "debug-dir by path DIR/$p: exit 0" 0
	di_out "debug-dir by path DIR/$p: exact table" debug-dir build-id "@T@/dpath$n/$p"
done
ms debuginfo --root "$R" --offline --debug-dir "$T/no-such-dir" --debug-dir "$T/dpath4" testmod
check_eq "repeated --debug-dir: the second dir is searched too" "debug-dir $T/dpath4/$MODREL.debug" \
	"$(awk 'NR == 2 { print $3, $5 }' "$T/out")"

# In one dir the build-id path comes before the module path.
put "$DBG" "$T/dboth/$BIDP"
put "$DBG" "$T/dboth/$MODREL.debug"
ms debuginfo --root "$R" --offline --debug-dir "$T/dboth" testmod
di_out "debug-dir: build-id path before module path" debug-dir build-id "@T@/dboth/$BIDP"

# ---- (c) ROOT/usr/lib/debug -------------------------------------------------
for p in "$BIDP" "lib/modules/$REL/$MODREL.debug" "$MODREL"; do
	put "$DBG" "$SYSDBG/$p"
	ms debuginfo --root "$R" --offline testmod
	check_rc "system dir ROOT/usr/lib/debug/$p: exit 0" 0
	di_out "system dir ROOT/usr/lib/debug/$p: exact table" system build-id "@T@/root/usr/lib/debug/$p"
	rm -rf "$SYSDBG"
done

# ---- gdb and lldb with the separate debug file ---------------------------------
LN=$(grep -n '^int testmod_func(' "$T/mod/testmod.c" | cut -d: -f1)
FUNC=$(hexadd $A_TEXT "$(symval "$KO" testmod_func)")
DATA=$(hexadd $A_DATA "$(symval "$KO" testmod_data)")
BSS=$(hexadd $A_BSS "$(symval "$KO" testmod_bss)")
ms gdb --root "$R" --offline --debug-dir "$T/dbid" -o "$T/s.gdb" testmod
check_rc "gdb with debug-dir: exit 0" 0
check_grep "gdb: header names the debug file and its source" \
	"^# debug info: $T/dbid/$BIDP \\(debug-dir[,)]" "$T/s.gdb"
check_grep "gdb: add-symbol-file loads the debug file at the map's .text" \
	"^add-symbol-file $T/dbid/$BIDP $A_TEXT .*-s \\.data $A_DATA -s \\.bss $A_BSS" "$T/s.gdb"
gdb_eval "$T/s.gdb" 'info line testmod_func' 'list testmod_func' 'p &testmod_data' \
	'p &testmod_bss' 'info address testmod_func'
check_grep "gdb: info line testmod_func is testmod.c:$LN at the map's address" \
	"^Line $LN of \"$T/mod/testmod.c\" starts at address $FUNC <testmod_func>" "$T/gdb.out"
check_grep "gdb: list testmod_func shows its source line" "^$LN[[:space:]]+int testmod_func\\(int x\\)" "$T/gdb.out"
check_eq "gdb: &testmod_data is still the map's .data + offset" "$DATA" "$(gdb_addr_of testmod_data)"
check_eq "gdb: &testmod_bss is still the map's .bss + offset" "$BSS" "$(gdb_addr_of testmod_bss)"
check_grep "gdb: testmod_func is still the map's .text + offset" \
	"^Symbol \"testmod_func\" is a function at address $FUNC\\.\$" "$T/gdb.out"

# Control: the stripped module alone has no line information.
ms gdb --root "$R" --offline -o "$T/n.gdb" testmod
check_nogrep "gdb without debug info: no debug info comment naming a file" '^# debug info: /' "$T/n.gdb"
gdb_eval "$T/n.gdb" 'info line testmod_func'
check_grep "control: gdb on the stripped module has no line info" \
	'No line number information available for address .*<testmod_func>' "$T/gdb.out"

ms lldb --root "$R" --offline --debug-dir "$T/dbid" -o "$T/s.lldb" testmod
check_rc "lldb with debug-dir: exit 0" 0
check_grep "lldb: header names the debug file and its source" \
	"^# debug info: $T/dbid/$BIDP \\(debug-dir[,)]" "$T/s.lldb"
check_grep "lldb: target modules add names the debug file" "^target modules add \"$T/dbid/$BIDP\"\$" "$T/s.lldb"
check_grep "lldb: target modules load at the map's .text" \
	"^target modules load --file \"$T/dbid/$BIDP\" \\.text $A_TEXT " "$T/s.lldb"
mkvmlinux || bail "vmlinux"
lldb_eval "$T/s.lldb" "image lookup -v -a $FUNC"
check_grep "lldb: image lookup at testmod_func's map address gives testmod.c:$LN" \
	"LineEntry: .*$T/mod/testmod.c:$LN(:|\$)" "$T/lldb.out"
check_grep "lldb: ... and names testmod_func" 'Summary: .*`testmod_func' "$T/lldb.out"

# ---- a candidate of another build is skipped, the next one taken ------------
put "$ODBG" "$T/dbad/$BIDP"
BAD=$T/dbad/$BIDP
ms debuginfo --root "$R" --offline --debug-dir "$T/dbad" --debug-dir "$T/dpath4" testmod
check_rc "other build first in the order: exit 0" 0
di_out "other build in the first debug-dir skipped, the second dir's file taken" \
	debug-dir build-id "@T@/dpath4/$MODREL.debug"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbad" --json testmod
check "debuginfo --json with a skipped candidate: valid JSON" python3 -m json.tool "$T/out" /dev/null
check_eq "debuginfo --json: skipped names the file" "[\"$BAD\"]" "$(jdi 'json.dumps([s["file"] for s in m["skipped"]])')"
check_eq "debuginfo --json: the reason names the file's build-id" True "$(jdi "'$OTHER' in m['skipped'][0]['reason']")"
ms sections --root "$R" --offline --debug-dir "$T/dbad" --debug-dir "$T/dpath4" testmod
check_rc "sections with a skipped candidate: exit 0" 0
check_grep "sections: debug: line names the file taken and its source" \
	"^debug:    $T/dpath4/$MODREL.debug \\(debug-dir[,)]" "$T/out"
check_grep "sections: skipped: line names the other build's file and its build-id" \
	"^skipped:  $BAD: .*$OTHER" "$T/out"
check_eq "sections: one skipped: line" 1 "$(grep -c '^skipped:' "$T/out")"
ms sections --root "$R" --offline --debug-dir "$T/dbad" --debug-dir "$T/dpath4" --json testmod
check "sections --json: valid JSON" python3 -m json.tool "$T/out" /dev/null
check_eq "sections --json: debug_file, debug_source" "$T/dpath4/$MODREL.debug debug-dir" \
	"$(jq_py "$T/out" 'j["debug_file"] + " " + j["debug_source"]')"
check_eq "sections --json: debug_skipped" "$BAD True" \
	"$(jq_py "$T/out" '" ".join(s["file"] + " " + str("'"$OTHER"'" in s["reason"]) for s in j["debug_skipped"])')"

# Skipped in a debug-dir, the right one in the system dir.
put "$DBG" "$SYSDBG/$BIDP"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbad" testmod
di_out "other build in debug-dir skipped, system dir taken" system build-id "@T@/root/usr/lib/debug/$BIDP"
rm -rf "$SYSDBG"

# In one dir: the build-id path has the other build, the module path the right one.
put "$ODBG" "$T/dmix/$BIDP"
put "$DBG" "$T/dmix/$MODREL.debug"
ms debuginfo --root "$R" --offline --debug-dir "$T/dmix" testmod
di_out "same dir: other build at the build-id path skipped, module path taken" \
	debug-dir build-id "@T@/dmix/$MODREL.debug"

# A candidate without DWARF (a stripped copy) is skipped too.
put "$S" "$T/dnodw/$BIDP"
ms debuginfo --root "$R" --offline --debug-dir "$T/dnodw" --debug-dir "$T/dbid" --json testmod
check_eq "candidate without DWARF skipped, next taken" "debug-dir $T/dbid/$BIDP [\"$T/dnodw/$BIDP\"]" \
	"$(jdi 'str(m["source"]) + " " + str(m["file"]) + " " + json.dumps([s["file"] for s in m["skipped"]])')"

# ---- precedence: debug-file > debug-dir > system > module ----------------------
install_mod "$R" "$KO" drivers/misc/testmod.ko || bail "install full module"
put "$DBG" "$SYSDBG/$BIDP"
put "$DBG" "$T/explicit/testmod.dbg"
ms debuginfo --root "$R" --offline --debug-file "$T/explicit/testmod.dbg" --debug-dir "$T/dbid" testmod
di_out "precedence: --debug-file first" debug-file build-id "@T@/explicit/testmod.dbg"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbid" testmod
di_out "precedence: then --debug-dir" debug-dir build-id "@T@/dbid/$BIDP"
ms debuginfo --root "$R" --offline testmod
di_out "precedence: then the system dir" system build-id "@T@/root/usr/lib/debug/$BIDP"
rm -rf "$SYSDBG"
ms debuginfo --root "$R" --offline testmod
check_rc "module's own DWARF: exit 0" 0
di_out "precedence: then the module's own DWARF" module build-id "@T@/root/lib/modules/@REL@/$MODREL"
ms gdb --root "$R" --offline testmod
check_grep "gdb: module's own DWARF named in the header" \
	"^# debug info: $MODPATH \\(module[,)]" "$T/out"

# ---- no build-id in the map: srcversion ------------------------------------
mv "$NOTE" "$T/note.saved"
ms debuginfo --root "$R" --offline testmod
check_rc "no build-id in the map, full module: exit 0" 0
check_eq "no build-id in the map, full module: source module, verified by srcversion" \
	"module srcversion $MODPATH" "$(awk 'NR == 2 { print $3, $4, $5 }' "$T/out")"
ms debuginfo --root "$R" --offline --json testmod
check_eq "no build-id in the map, --json: source, verified, file" "module srcversion $MODPATH" \
	"$(jdi 'm["source"] + " " + m["verified"] + " " + m["file"]')"
install_mod "$R" "$S" drivers/misc/testmod.ko || bail "install stripped"
ms debuginfo --root "$R" --offline --debug-dir "$T/dpath4" testmod
check_rc "no build-id in the map, separate debug file: exit 0" 0
check_eq "no build-id in the map, separate debug file: found" "debug-dir $T/dpath4/$MODREL.debug" \
	"$(awk 'NR == 2 { print $3, $5 }' "$T/out")"
check_grep "no build-id in the map, separate debug file (.modinfo NOBITS): verified only through the module file, or unverified" \
	'^testmod +[^ ]+ +debug-dir +(srcversion|unverified) ' "$T/out"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbad" testmod
check_rc "no build-id in the map, only the other build's debug file: exit 1" 1
check_grep "no build-id in the map: the other build's debug file is not used" \
	'^testmod +[^ ]+ +- +- +-$' "$T/out"
mv "$T/note.saved" "$NOTE"

# ---- --debug-file: checked, refused on mismatch unless --force ----------------
ms debuginfo --root "$R" --offline --debug-file "$DBG" testmod
di_out "--debug-file anywhere: taken, verified" debug-file build-id "@T@/testmod.debug"
for c in debuginfo gdb lldb sections; do
	ms "$c" --root "$R" --offline --debug-file "$ODBG" testmod
	check_refused "$c --debug-file of another build: exit 3, nothing on stdout" 3 "$ODBG"
done
ms debuginfo --root "$R" --offline --debug-file "$ODBG" testmod
if grep -q "$BUILD_ID" "$T/err" && grep -q "$OTHER" "$T/err"; then
	ok "--debug-file mismatch: message names both build-ids"
else
	not_ok "--debug-file mismatch: message names both build-ids" "loaded $BUILD_ID, file $OTHER" "$(_last_run)"
fi
ms debuginfo --root "$R" --offline --debug-file "$ODBG" --force testmod
check_rc "--debug-file mismatch --force: exit 0" 0
check_grep "--debug-file mismatch --force: the file is used, not shown as verified" \
	"^testmod +$BUILD_ID +debug-file +[^ ]+ +$ODBG\$" "$T/out"
check_nogrep "--debug-file mismatch --force: not shown as verified by build-id" \
	'^testmod .* debug-file +build-id ' "$T/out"
ms gdb --root "$R" --offline --debug-file "$ODBG" --force testmod
check_grep "gdb --debug-file mismatch --force: add-symbol-file names it" "^add-symbol-file $ODBG $A_TEXT " "$T/out"
ms debuginfo --root "$R" --offline --debug-file "$T/does-not-exist.debug" testmod
if [[ $RC =~ ^[13]$ ]] && grep -q 'does-not-exist\.debug' "$T/err"; then
	ok "--debug-file that does not exist: exit 1 or 3, stderr names it"
else
	not_ok "--debug-file that does not exist: exit 1 or 3, stderr names it" "$(_last_run)"
fi

# ---- a debug dir with a space; the map from a capture; a compressed module ----
put "$DBG" "$T/d d/$BIDP"
ms gdb --root "$R" --offline --debug-dir "$T/d d" -o "$T/sp.gdb" testmod
check_rc "debug dir with a space: gdb exit 0" 0
gdb_eval "$T/sp.gdb" 'info line testmod_func'
check_grep "debug dir with a space: gdb loads the quoted path and finds testmod.c:$LN" \
	"^Line $LN of \"$T/mod/testmod.c\" starts at address $FUNC <testmod_func>" "$T/gdb.out"

ms capture --root "$R" -o "$T/cap"
check_grep "capture has the build-id" "^build-id testmod $BUILD_ID\$" "$T/cap"
ms debuginfo --capture "$T/cap" --moddir "$R/lib/modules/$REL" --offline --debug-dir "$T/dbid" testmod
check_rc "capture: exit 0" 0
di_out "capture: build-id from the capture, debug file verified" debug-dir build-id "@T@/dbid/$BIDP"
sed "s/^build-id testmod .*/build-id testmod $OTHER/" "$T/cap" >"$T/cap.other"
ms debuginfo --capture "$T/cap.other" --moddir "$R/lib/modules/$REL" --offline --force \
	--debug-dir "$T/dpath4" --json testmod
check_eq "capture of another build (--force for the module): the debug file is skipped naming both ids" \
	"- True True" \
	"$(jdi 'str(m["source"]) + " " + str("'"$OTHER"'" in m["skipped"][0]["reason"]) + " " + str("'"$BUILD_ID"'" in m["skipped"][0]["reason"])')"

# Debian installs modules as .ko.xz and their debug files as .ko (.debug).
xz -c "$S" >"$T/testmod.ko.xz"
rm -f "$MODPATH"
install_mod "$R" "$T/testmod.ko.xz" drivers/misc/testmod.ko.xz || bail "install .ko.xz"
for p in "lib/modules/$REL/$MODREL" "lib/modules/$REL/$MODREL.debug"; do
	rm -rf "$T/dxz"
	put "$DBG" "$T/dxz/$p"
	ms debuginfo --root "$R" --offline --cache-dir "$T/kocache" --debug-dir "$T/dxz" testmod
	check_rc ".ko.xz module, debug file DIR/$p: exit 0" 0
	di_out ".ko.xz module, debug file DIR/$p: found" debug-dir build-id "@T@/dxz/$p"
done
ms debuginfo --root "$R" --offline --cache-dir "$T/kocache" --debug-dir "$T/dbid" testmod
di_out ".ko.xz module, by build-id" debug-dir build-id "@T@/dbid/$BIDP"
rm -f "$MODPATH.xz"
install_mod "$R" "$S" drivers/misc/testmod.ko || bail "install stripped"

# ---- several modules: exit 1 when one has no debug info ------------------------
mkmod "$T/o" othermod || bail "othermod"
split_debug "$T/o/othermod.ko" "$T/o/strip/othermod.ko" "$T/o/othermod.debug" || bail "othermod split"
mksysmod "$R" othermod "$T/o/othermod.ko"
install_mod "$R" "$T/o/strip/othermod.ko" fs/othermod.ko || bail "install othermod"
OID=$(build_id "$T/o/othermod.ko")
ms debuginfo --root "$R" --offline --debug-dir "$T/dbid" --all
check_rc "debuginfo --all, one module without debug info: exit 1" 1
{
	echo "$HDR"
	row othermod "$OID" - - -
	row testmod "$BUILD_ID" debug-dir build-id "$T/dbid/$BIDP"
} >"$T/expected"
check_same "debuginfo --all: both rows printed" "$T/expected" "$T/out"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbid" othermod testmod
check_rc "debuginfo MODULE MODULE, one without debug info: exit 1" 1
check_eq "debuginfo MODULE MODULE: two rows" 3 "$(wc -l <"$T/out")"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbid" --all --json
check_rc "debuginfo --all --json, one without: exit 1" 1
check "debuginfo --all --json: valid JSON" python3 -m json.tool "$T/out" /dev/null
check_eq "debuginfo --json: keys of each object" \
	"build_id file module skipped source verified|build_id file module skipped source verified" \
	"$(jq_py "$T/out" '"|".join(" ".join(sorted(x)) for x in j)')"
check_eq "debuginfo --json: values" \
	"othermod $OID - None|testmod $BUILD_ID debug-dir $T/dbid/$BIDP" \
	"$(jq_py "$T/out" '"|".join(" ".join(str(x[k] if x[k] is not None or k != "source" else "-") for k in ("module", "build_id", "source", "file")) for x in j)')"
check_eq "debuginfo --json: verified is build-id for testmod" build-id "$(jdi 'm["verified"]')"
check_eq "debuginfo --json: skipped is an empty list when nothing was skipped" "[]" "$(jdi 'm["skipped"]')"
put "$T/o/othermod.debug" "$T/dbid/$(buildid_path "$OID")"
ms debuginfo --root "$R" --offline --debug-dir "$T/dbid" --all
check_rc "debuginfo --all, every module has debug info: exit 0" 0
ms debuginfo --root "$R" --offline --debug-file "$DBG" --all
check_refused "--debug-file with --all: usage error" 2 'debug-file'
ms debuginfo --root "$R" --offline --debug-file "$DBG" othermod testmod
check_refused "--debug-file with two modules: usage error" 2 'debug-file'

# ---- list: DEBUG column ------------------------------------------------------
rm "$T/dbid/$(buildid_path "$OID")"
ms list --root "$R" --offline --debug-dir "$T/dbid"
check_rc "list with --debug-dir: exit 0" 0
check_grep "list: DEBUG column in the header" '^MODULE +STATE +TEXT +VERIFIED +DEBUG +FILE$' "$T/out"
check_grep "list: testmod's DEBUG is debug-dir" "^testmod +live +$A_TEXT +build-id +debug-dir +$MODPATH\$" "$T/out"
check_grep "list: othermod's DEBUG is -" "^othermod +live +$A_TEXT +build-id +- +" "$T/out"
finish
