#!/bin/bash
# Rule 1: the exact `modsect gdb` command: .text positional, every other
# SHF_ALLOC section of the map as -s, .symtab/.strtab (listed by the kernel,
# not SHF_ALLOC in the file) left out, file-only sections parked at 0x0bad...;
# the module file found through modules.dep (dash/underscore alike), an
# explicit FILE, --search, --moddir; not found is exit 1.
# (Rule 1 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod eu-readelf objcopy readelf python3 || finish
std_fixture || bail "fixture"

P=@T@/root/lib/modules/@REL@/kernel/drivers/misc/testmod.ko
exp_tail() { # $1: path in the command
	cat <<X
# verified: build-id @BUILDID@ matches the loaded module
# debug info: $1 (module, verified by build-id)
# .init.text: freed after init (the module is live) and maybe reused; parked in the non-canonical hole so no real address resolves to them (--init keeps their stale addresses)
# __versions, .modinfo, .data..percpu: not loaded by the kernel or address unknown; parked in the non-canonical hole so no real address resolves to them
add-symbol-file $1 $A_TEXT -s .rodata $A_RODATA -s .note.gnu.build-id $A_NOTE -s .data $A_DATA -s .bss $A_BSS -s .init.text 0xPARKED -s __versions 0xPARKED -s .modinfo 0xPARKED -s .data..percpu 0xPARKED
X
}

ms gdb --root "$R" testmod
check_rc "modules.dep: exit 0" 0
check_out "modules.dep: exact command" "$(cat <<X
$GDB_INTRO from @T@/root (kernel @REL@)
$GDB_ARCH
# testmod (live) from $P
$(exp_tail "$P")
X
)"
check_parked "parked sections aligned, in 0x0bad..., not overlapping" "$KO" "$T/out"
check_nogrep ".symtab/.strtab (not SHF_ALLOC in the file) left out" '\.symtab|\.strtab' "$T/out"
cp "$T/out" "$T/std.gdb"

# The module name is given with a dash: same module.
ms gdb --root "$R" test-mod
check_refused "unknown module: exit 1, not loaded" 1 'test-mod is not loaded'

# -- dash/underscore: module test_mod, file test-mod.ko in modules.dep
R2=$T/root2
mkmod "$T/m2" test_mod || bail "build test_mod"
mkrelease "$R2"
mksysmod "$R2" test_mod "$T/m2/test_mod.ko"
install_mod "$R2" "$T/m2/test_mod.ko" drivers/misc/test-mod.ko
BID2=$(build_id "$T/m2/test_mod.ko")
P2=@T@/root2/lib/modules/@REL@/kernel/drivers/misc/test-mod.ko
for arg in test_mod test-mod; do
	ms gdb --root "$R2" "$arg"
	check_rc "module test_mod as '$arg', file test-mod.ko: exit 0" 0
	sed -i "s/$BID2/@BUILDID@/" "$T/out"
	check_out "module test_mod as '$arg', file test-mod.ko: exact command" "$(cat <<X
$GDB_INTRO from @T@/root2 (kernel @REL@)
$GDB_ARCH
# test_mod (live) from $P2
$(exp_tail "$P2")
X
)"
done

# -- no module tree at all: explicit FILE, --search, --moddir
R3=$T/root3
mkrelease "$R3"
mksysmod "$R3" testmod "$KO"
ms gdb --root "$R3" testmod
check_refused "no module file anywhere: exit 1 with a message" 1 \
	"no file for module testmod: not in .*/lib/modules/$REL/modules.dep"

ms gdb --root "$R3" testmod "$KO"
check_rc "explicit FILE: exit 0" 0
check_out "explicit FILE: exact command" "$(cat <<X
$GDB_INTRO from @T@/root3 (kernel @REL@)
$GDB_ARCH
# testmod (live) from @T@/mod/testmod.ko
$(exp_tail @T@/mod/testmod.ko)
X
)"

(cd "$T" && "$MODSECT" gdb --root root3 testmod mod/testmod.ko >"$T/out" 2>"$T/err")
RC=$?
check_grep "relative FILE: the command names the absolute path" \
	"^add-symbol-file $T/mod/testmod.ko $A_TEXT " "$T/out"

ms gdb --root "$R3" testmod "$T/nonexistent.ko"
check_refused "explicit FILE that does not exist: fails naming it" '[13]' 'nonexistent\.ko'

mkdir -p "$T/tree/a/b" "$T/tree/c"
cp "$KO" "$T/tree/a/b/testmod.ko"
echo junk >"$T/tree/c/other.ko"
ms gdb --root "$R3" --search "$T/tree" testmod
check_rc "--search DIR: exit 0" 0
check_out "--search DIR: exact command, file found in the tree" "$(cat <<X
$GDB_INTRO from @T@/root3 (kernel @REL@)
$GDB_ARCH
# testmod (live) from @T@/tree/a/b/testmod.ko
$(exp_tail @T@/tree/a/b/testmod.ko)
X
)"

mkdir -p "$T/tree2/x"
cp "$T/m2/test_mod.ko" "$T/tree2/x/test-mod.ko"
mkdir -p "$R3/sys/module/test_mod"
cp -r "$R2/sys/module/test_mod/." "$R3/sys/module/test_mod/"
ms gdb --root "$R3" --search "$T/tree2" test_mod
check_grep "--search: test-mod.ko is the file of module test_mod" \
	"^add-symbol-file $T/tree2/x/test-mod.ko $A_TEXT " "$T/out"

ms gdb --root "$R3" --search "$T/no/such/dir" testmod
check_refused "--search DIR that does not exist: refused naming it" '[13]' 'no/such/dir'

install_mod "$T/base" "$KO" fs/testmod.ko
ms gdb --root "$R3" --moddir "$T/base/lib/modules/$REL" testmod
check_rc "--moddir DIR: exit 0" 0
check_out "--moddir DIR: exact command" "$(cat <<X
$GDB_INTRO from @T@/root3 (kernel @REL@)
$GDB_ARCH
# testmod (live) from @T@/base/lib/modules/@REL@/kernel/fs/testmod.ko
$(exp_tail @T@/base/lib/modules/@REL@/kernel/fs/testmod.ko)
X
)"

ms gdb --root "$R3" --moddir "$T/base/lib/modules/$REL" nosuchmod
check_refused "module not loaded: exit 1 'not loaded'" 1 'nosuchmod is not loaded'

ms gdb --root "$T/no-root-here" testmod
check_refused "--root without /sys/module: fails naming the path" '[13]' 'no-root-here/sys/module'
finish
