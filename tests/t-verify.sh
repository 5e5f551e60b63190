#!/bin/bash
# Rule 6: the file must be the loaded build: build-id (from notes/) first,
# then srcversion; a mismatch is exit 3 naming both ids, --force prints the
# command marked NOT VERIFIED; nothing to compare is said in a comment.
# (Rule 6 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy eu-readelf || finish
std_fixture || bail "fixture"
mkmod "$T/other" testmod 1 || bail "second build"
OTHER=$(build_id "$T/other/testmod.ko")
check "fixture: the two builds have different build-ids" [ "$OTHER" != "$BUILD_ID" ]
NOTE=$R/sys/module/testmod/notes/.note.gnu.build-id
P=@T@/root/lib/modules/@REL@/kernel/drivers/misc/testmod.ko

ms gdb --root "$R" testmod
check_grep "match: verified by build-id" "^# verified: build-id $BUILD_ID matches the loaded module\$" "$T/out"

objcopy -O binary --only-section=.note.gnu.build-id "$T/other/testmod.ko" "$NOTE"
for c in gdb lldb sections; do
	ms "$c" --root "$R" testmod
	check_refused "$c: build-id mismatch: exit 3, nothing on stdout" 3 'not the loaded build'
done
ms gdb --root "$R" testmod
if grep -q "$OTHER" "$T/err" && grep -q "$BUILD_ID" "$T/err"; then
	ok "mismatch: message names both build-ids"
else
	not_ok "mismatch: message names both build-ids" "loaded $OTHER, file $BUILD_ID" "$(_last_run)"
fi

ms gdb --root "$R" --force testmod
check_rc "--force: exit 0" 0
check_out "--force: command printed with a NOT VERIFIED comment" "$(cat <<X
$GDB_INTRO from @T@/root (kernel @REL@)
$GDB_ARCH
# testmod (live) from $P
# NOT VERIFIED, forced: build-id of loaded module testmod is $OTHER but $P has @BUILDID@: it is not the loaded build
# debug info: $P (module, NOT VERIFIED, forced)
# .init.text: freed after init (the module is live) and maybe reused; parked in the non-canonical hole so no real address resolves to them (--init keeps their stale addresses)
# __versions, .modinfo, .data..percpu: not loaded by the kernel or address unknown; parked in the non-canonical hole so no real address resolves to them
add-symbol-file $P $A_TEXT -s .rodata $A_RODATA -s .note.gnu.build-id $A_NOTE -s .data $A_DATA -s .bss $A_BSS -s .init.text 0xPARKED -s __versions 0xPARKED -s .modinfo 0xPARKED -s .data..percpu 0xPARKED
X
)"

# Of several candidate files, the one with the loaded build-id is used:
# modules.dep has the other build, the --search tree the loaded one.
install_mod "$R" "$T/other/testmod.ko" drivers/misc/testmod.ko
mkdir -p "$T/tree"
cp "$KO" "$T/tree/testmod.ko"
objcopy -O binary --only-section=.note.gnu.build-id "$KO" "$NOTE"
ms gdb --root "$R" --search "$T/tree" testmod
check_grep "candidates: the file with the loaded build-id is chosen" \
	"^add-symbol-file $T/tree/testmod.ko " "$T/out"
install_mod "$R" "$KO" drivers/misc/testmod.ko

# No notes file.
rm "$NOTE"
ms gdb --root "$R" testmod
check_grep "no build-id, srcversion matches: verified by srcversion" \
	"^# verified: srcversion $SRCVERSION matches the loaded module\$" "$T/out"
echo 0123456789ABCDEF0123456 >"$R/sys/module/testmod/srcversion"
ms gdb --root "$R" testmod
check_refused "no build-id, srcversion differs: exit 3 naming both" 3 \
	"srcversion of loaded module testmod is 0123456789ABCDEF0123456 but .* has $SRCVERSION"
rm "$R/sys/module/testmod/srcversion"
ms gdb --root "$R" testmod
check_rc "nothing to compare: exit 0" 0
check_grep "nothing to compare: 'unverified' comment" \
	'^# unverified: the map has no build-id or srcversion to compare$' "$T/out"
check_grep "nothing to compare: the command is still printed" "^add-symbol-file .* $A_TEXT " "$T/out"

# A file of another module.
mkmod "$T/m2" othermod || bail "othermod"
ms gdb --root "$R" testmod "$T/m2/othermod.ko"
check_refused "FILE of another module (.modinfo name): exit 3" 3 'is module othermod, not testmod'

# The map lists a section the file does not have.
echo 0xffffffffc0a17000 >"$R/sys/module/testmod/sections/.data.extra"
ms gdb --root "$R" testmod
check_refused "map section missing from the file: exit 3" 3 'has section \.data\.extra loaded, but .* has no such section'
finish
