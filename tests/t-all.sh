#!/bin/bash
# Rule 15: `gdb --all` covers every module it finds a file for; a module
# without a file gets a comment in the script and a warning on stderr, and
# the run still succeeds.
# (Rule 15 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy nm gdb lldb || finish
std_fixture || bail "fixture"
mkmod "$T/o" othermod || bail "othermod"
mksysmod "$R" othermod "$T/o/othermod.ko"
mkdir -p "$R/sys/module/builtin_thing/parameters" # built-in: no sections/
P=@T@/root/lib/modules/@REL@/kernel/drivers/misc/testmod.ko
NF="no file for module othermod: not in @T@/root/lib/modules/@REL@/modules.dep; give the file, --moddir or --search DIR"

ms gdb --root "$R" --all
check_rc "gdb --all, one file missing: exit 0" 0
check_out "gdb --all: exact script" "$(cat <<X
$GDB_INTRO from @T@/root (kernel @REL@)
$GDB_ARCH
# othermod: skipped, $NF
# testmod (live) from $P
# verified: build-id @BUILDID@ matches the loaded module
# debug info: $P (module, verified by build-id)
# .init.text: freed after init (the module is live) and maybe reused; parked in the non-canonical hole so no real address resolves to them (--init keeps their stale addresses)
# __versions, .modinfo, .data..percpu: not loaded by the kernel or address unknown; parked in the non-canonical hole so no real address resolves to them
add-symbol-file $P $A_TEXT -s .rodata $A_RODATA -s .note.gnu.build-id $A_NOTE -s .data $A_DATA -s .bss $A_BSS -s .init.text 0xPARKED -s __versions 0xPARKED -s .modinfo 0xPARKED -s .data..percpu 0xPARKED
X
)"
norm "$T/err" >"$T/actual"
printf '%s\n' "modsect: warning: $NF" "modsect: warning: 1 of 2 modules skipped: no file found" >"$T/expected"
check_same "gdb --all: warnings on stderr" "$T/expected" "$T/actual"

cp "$T/out" "$T/all.gdb"
gdb_eval "$T/all.gdb" 'p &testmod_data'
check_eq "gdb --all: real gdb finds testmod_data" "$(hexadd $A_DATA "$(symval "$KO" testmod_data)")" "$(gdb_addr_of testmod_data)"

ms lldb --root "$R" --all
check_rc "lldb --all, one file missing: exit 0" 0
check_grep "lldb --all: skipped module commented" "^# othermod: skipped, no file for module othermod" "$T/out"
check_grep "lldb --all: found module loaded" "^target modules load --file \"$R/lib/modules/$REL/kernel/drivers/misc/testmod.ko\" \.text $A_TEXT " "$T/out"

# Both found: two add-symbol-file lines, no warning.
ms gdb --root "$R" --all --search "$T/o"
check_rc "gdb --all, both found: exit 0" 0
check_eq "gdb --all, both found: one add-symbol-file each" \
	"$T/o/othermod.ko $R/lib/modules/$REL/kernel/drivers/misc/testmod.ko" \
	"$(awk '/^add-symbol-file/ { printf "%s%s", sep, $2; sep = " " }' "$T/out")"
check "gdb --all, both found: nothing on stderr" [ ! -s "$T/err" ]

# None found: an error.
rm -rf "$R/lib/modules"
ms gdb --root "$R" --all
check_refused "gdb --all, no file found at all: exit 1" 1 'no module file found for any of the 2 modules'

# A capture that does not say its release, with nowhere else to look: one
# line saying what to give, not one warning per module.
printf '%s .text 0xffffffffc0%d00000\n' m1 1 m2 2 m3 3 >"$T/norel.txt"
ms gdb --all --capture "$T/norel.txt"
check_refused "gdb --all, capture without release and no --moddir/--search: exit 1" 1 \
	'does not say which kernel it is from \(no release line\).*give --moddir DIR or --search DIR'
check_eq "gdb --all, capture without release: exactly one line on stderr" 1 "$(wc -l <"$T/err")"

# A mismatch is not skipped: it stops --all (exit 3).
mkmod "$T/b" othermod 1 || bail "othermod build 2"
ms gdb --root "$R" --all --search "$T/b" --search "$T/mod"
check_refused "gdb --all with a mismatching file: exit 3" 3 'not the loaded build'
finish
