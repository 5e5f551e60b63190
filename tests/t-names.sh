#!/bin/bash
# Rule 7: untrusted names and paths.  Section names a debugger would
# misparse (space, quotes, backslash, newline, leading '-') are refused with
# exit 3 and nothing on stdout; module paths with spaces, quotes, $ and
# backticks are quoted so real gdb and lldb load the file.
# (Rule 7 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy nm gdb lldb || finish
std_fixture || bail "fixture"
mkvmlinux || bail "vmlinux stand-in"

# A copy of the module whose .rodata is called NAME, loaded at the usual
# address under that name in $T/rN.
n=0
weird_root() {
	local name=$1
	n=$((n + 1))
	WR=$T/r$n WKO=$T/k$n/testmod.ko
	mkdir -p "$T/k$n"
	objcopy --rename-section ".rodata=$name" "$KO" "$WKO" || return 1
	mkrelease "$WR"
	mksysmod "$WR" testmod "$WKO"
	mv "$WR/sys/module/testmod/sections/.rodata" "$WR/sys/module/testmod/sections/$name"
}

weird_root ".rodata_ok" || bail "objcopy"
ms gdb --root "$WR" testmod "$WKO"
check_rc "control: a renamed section with a plain name is accepted" 0
check_grep "control: ... and given to gdb" " -s \.rodata_ok $A_RODATA " "$T/out"

for name in 'ro data' 'ro"data' "ro'data" 'ro\data' '-ro' '-s' 'ro`id`data' $'ro\tdata'; do
	shown=$(printf '%q' "$name")
	weird_root "$name" || { not_ok "objcopy --rename-section to $shown"; continue; }
	for c in gdb lldb; do
		ms "$c" --root "$WR" testmod "$WKO"
		check_refused "$c: section name $shown refused" 3 'refusing'
	done
done

# A newline: through a capture, escaped as \x0a.
mkdir -p "$T/nl"
objcopy --rename-section $'.rodata=ro\ndata' "$KO" "$T/nl/testmod.ko" || not_ok "objcopy: newline name"
ms capture --root "$R" -o "$T/nl.cap"
sed 's/^section testmod \.rodata /section testmod ro\\x0adata /' "$T/nl.cap" >"$T/nl2.cap"
check_grep "capture with a \\x0a escape" '^section testmod ro\\x0adata ' "$T/nl2.cap"
for c in gdb lldb; do
	ms "$c" --capture "$T/nl2.cap" testmod "$T/nl/testmod.ko"
	check_refused "$c: section name with a newline refused" 3 'refusing'
done
# The capture writer escapes it again.
mkdir -p "$T/rnl"
cp -r "$R/." "$T/rnl/"
mv "$T/rnl/sys/module/testmod/sections/.rodata" "$T/rnl/sys/module/testmod/sections/"$'ro\ndata'
ms capture --root "$T/rnl"
check_grep "capture writes a newline in a name as \\x0a" '^section testmod ro\\x0adata ' "$T/out"
check_eq "capture: no line is split by the newline" "" "$(grep -v -E '^(#|modsect-capture|release|machine|module|srcversion|build-id|section) ' "$T/out")"

# An unsafe name only in the file (parked, never in the map) is refused too.
objcopy --rename-section '__versions=ver sions' "$KO" "$T/k-park.ko"
ms gdb --root "$R" testmod "$T/k-park.ko"
check_refused "gdb: unsafe name of a parked (file-only) section refused" 3 'refusing'

# ---- paths: one directory per special character, then all together.
FUNC=$(hexadd $A_TEXT "$(symval "$KO" testmod_func)")
DATA=$(hexadd $A_DATA "$(symval "$KO" testmod_data)")
i=0
for what in "space:a b" "single quote:a'b" 'double quote:a"b' 'dollar:a$HOME' \
	'backtick:a`id`b' "all:dir with space 'single' \"double\" \$HOME \`id\` end"; do
	i=$((i + 1))
	label=${what%%:*}
	D="$T/p$i/${what#*:}"
	mkdir -p "$D"
	cp "$KO" "$D/test mod.ko"

	ms gdb --root "$R" -o "$T/p$i.gdb" testmod "$D/test mod.ko"
	check_rc "gdb: path with $label: exit 0" 0
	gdb_eval "$T/p$i.gdb" 'info address testmod_func' 'p &testmod_data'
	check_eq "gdb: path with $label: testmod_func at its address" "$FUNC" "$(gdb_addr_of testmod_func)"
	check_eq "gdb: path with $label: testmod_data at its address" "$DATA" "$(gdb_addr_of testmod_data)"

	ms lldb --root "$R" -o "$T/p$i.lldb" testmod "$D/test mod.ko"
	check_rc "lldb: path with $label: exit 0" 0
	lldb_eval "$T/p$i.lldb" "image lookup -a $FUNC" "image lookup -a $DATA"
	if grep -q "section '.text' loaded at $A_TEXT" "$T/lldb.out" &&
		grep -Eq 'Summary: .*testmod_func( |$)' "$T/lldb.out" &&
		grep -Eq 'Summary: .*testmod_data( |$)' "$T/lldb.out"; then
		ok "lldb: path with $label: function and data addresses resolve"
	else
		not_ok "lldb: path with $label: function and data addresses resolve" \
			"$(grep -E '^\(lldb\) target|error' "$T/lldb.out" "$T/lldb.err")"
	fi
done

# A backslash in the path too.
D2="$T/back\\slash"
mkdir -p "$D2"
cp "$KO" "$D2/testmod.ko"
ms gdb --root "$R" -o "$T/b.gdb" testmod "$D2/testmod.ko"
gdb_eval "$T/b.gdb" 'p &testmod_data'
check_eq "gdb: backslash in path: testmod_data at its address" "$DATA" "$(gdb_addr_of testmod_data)"
ms lldb --root "$R" -o "$T/b.lldb" testmod "$D2/testmod.ko"
lldb_eval "$T/b.lldb" "image lookup -a $DATA"
check_grep "lldb: backslash in path: data address resolves" 'Summary: .*testmod_data( |$)' "$T/lldb.out"

# A control character in a path is never written into a script.
D3="$T/"$'new\nline'
mkdir -p "$D3"
cp "$KO" "$D3/testmod.ko"
ms gdb --root "$R" testmod "$D3/testmod.ko"
check_refused "gdb: newline in path refused" 3 'control character'
finish
