#!/bin/bash
# Rule 9: compressed modules (.ko.gz, .ko.xz, .ko.zst) found through
# modules.dep are decompressed into the cache (--cache-dir DIR, else
# $XDG_CACHE_HOME/modsect) as <sha256 of the content>.ko, byte-identical to
# the original; a .ko.xz that is not xz is a clear error (exit 3).
# depmod here may be built without zlib (`depmod -V` shows -ZLIB) and then
# ignores .ko.gz files; if so, .ko.gz is found through --search instead.
# (Rule 9 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy gzip xz zstd sha256sum gdb || finish
std_fixture || bail "fixture"
SUM=$(sha256sum "$KO" | cut -d' ' -f1)
DATA=$(hexadd $A_DATA "$(symval "$KO" testmod_data)")
rm "$R/lib/modules/$REL/kernel/drivers/misc/testmod.ko"
D=$R/lib/modules/$REL/kernel/drivers/misc

for z in "gz gzip gzip -c" "xz xz xz -c" "zst zstd zstd -q -c"; do
	set -- $z
	ext=$1 kind=$2
	shift 2
	rm -f "$D"/testmod.ko*
	"$@" "$KO" >"$D/testmod.ko.$ext"
	run_depmod "$R" || not_ok "depmod with testmod.ko.$ext"
	C=$T/cache-$ext
	S=()
	if ! grep -q "testmod\.ko\.$ext:" "$R/lib/modules/$REL/modules.dep"; then
		if [ $ext = gz ] && depmod -V | grep -q -- -ZLIB; then
			S=(--search "$D")
		else
			not_ok "depmod indexed testmod.ko.$ext" "$(cat "$R/lib/modules/$REL/modules.dep")"
		fi
	fi
	ms gdb --root "$R" "${S[@]}" --cache-dir "$C" testmod
	check_rc ".ko.$ext: exit 0" 0
	check_grep ".ko.$ext: header names the file and the decompression" \
		"^# testmod \(live\) from $D/testmod\.ko\.$ext, $kind-decompressed\$" "$T/out"
	check_grep ".ko.$ext: gdb reads \$cache/<sha256>.ko" \
		"^add-symbol-file $C/$SUM\.ko $A_TEXT " "$T/out"
	check ".ko.$ext: the cached file is byte-identical to the module" cmp -s "$KO" "$C/$SUM.ko"
	check_eq ".ko.$ext: the cache holds just that file" "$SUM.ko" "$(ls -A "$C")"
	cp "$T/out" "$T/z.gdb"
	gdb_eval "$T/z.gdb" 'p &testmod_data'
	check_eq ".ko.$ext: gdb finds testmod_data at its address" "$DATA" "$(gdb_addr_of testmod_data)"
done

# Again: the cached copy is reused.
ms gdb --root "$R" --cache-dir "$T/cache-zst" testmod
check_rc "second run with a filled cache: exit 0" 0
check_eq "second run: still one file" "$SUM.ko" "$(ls -A "$T/cache-zst")"

# Default cache: $XDG_CACHE_HOME/modsect.
XDG_CACHE_HOME=$T/xdg "$MODSECT" gdb --root "$R" testmod >"$T/out" 2>"$T/err"
RC=$?
check_rc "XDG_CACHE_HOME: exit 0" 0
check_grep "XDG_CACHE_HOME: gdb reads \$XDG_CACHE_HOME/modsect/<sha256>.ko" \
	"^add-symbol-file $T/xdg/modsect/$SUM\.ko $A_TEXT " "$T/out"
check "XDG_CACHE_HOME: identical bytes" cmp -s "$KO" "$T/xdg/modsect/$SUM.ko"

# sections --json names both files.
ms sections --root "$R" --cache-dir "$T/cache-zst" --json testmod
check_eq "sections --json: file and debugger_file" \
	"$D/testmod.ko.zst $T/cache-zst/$SUM.ko" \
	"$(jq_py "$T/out" 'j["file"] + " " + j["debugger_file"]')"

# Not xz at all, named .ko.xz.
rm -f "$D"/testmod.ko*
echo "this is not xz data" >"$D/testmod.ko.xz"
run_depmod "$R"
ms gdb --root "$R" --cache-dir "$T/cache-bad" testmod
check_refused ".ko.xz that is not xz: exit 3, clear message" 3 'testmod\.ko\.xz: not an ELF file'

# Truncated xz.
xz -c "$KO" | head -c 200 >"$D/testmod.ko.xz"
ms gdb --root "$R" --cache-dir "$T/cache-bad" testmod
check_refused "truncated .ko.xz: exit 3, says truncated/corrupt" 3 'testmod\.ko\.xz: xz data is (truncated|corrupt)'
check "bad .ko.xz: nothing put in the cache" [ ! -e "$T/cache-bad" ]

# Corrupt gzip.
rm -f "$D"/testmod.ko*
run_depmod "$R"
{ printf '\037\213'; head -c 300 /dev/zero; } >"$D/testmod.ko.gz"
ms gdb --root "$R" --search "$D" --cache-dir "$T/cache-bad" testmod
check_refused "corrupt .ko.gz: exit 3" 3 'testmod\.ko\.gz: gzip data is (truncated|corrupt)'

# modules.dep names a file that was removed since depmod ran: the --search
# tree, which has the module, is still used.
rm -f "$D"/testmod.ko*
xz -c "$KO" >"$D/testmod.ko.xz"
run_depmod "$R"
rm "$D/testmod.ko.xz"
mkdir -p "$T/tree"
cp "$KO" "$T/tree/testmod.ko"
ms gdb --root "$R" --search "$T/tree" testmod
check_grep "stale modules.dep entry: the --search tree's file is used" \
	"^add-symbol-file $T/tree/testmod\.ko $A_TEXT " "$T/out"
finish
