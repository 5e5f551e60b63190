#!/bin/bash
# Rule 4: .init.* sections: a live module's are freed, so they are parked
# (not at their stale map address) with a comment saying so; a coming
# module's are at their map address; --init keeps them for a live module.
# (Rule 4 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy nm gdb || finish
std_fixture || bail "fixture"
INIT=$(hexadd $A_INIT "$(symval "$KO" testmod_init)")
P=@T@/root/lib/modules/@REL@/kernel/drivers/misc/testmod.ko

ms gdb --root "$R" testmod
cp "$T/out" "$T/live.gdb"
check_grep "live: .init.text parked" ' -s \.init\.text 0xbad[0-9a-f]{12}( |$)' "$T/out"
check_nogrep "live: the stale .init.text map address is not given" "$A_INIT" "$T/out"
check_grep "live: a comment says .init.text was freed" \
	'^# \.init\.text: freed after init \(the module is live\)' "$T/out"
gdb_eval "$T/live.gdb" 'p &testmod_init'
a=$(gdb_addr_of testmod_init)
check_eq "live: gdb puts testmod_init in the parked range" "$((0x0bad))" "$((${a:-0} >> 48))"

echo coming >"$R/sys/module/testmod/initstate"
ms gdb --root "$R" testmod
cp "$T/out" "$T/coming.gdb"
check_out "coming: exact command, .init.text at its map address" "$(cat <<X
$GDB_INTRO from @T@/root (kernel @REL@)
$GDB_ARCH
# testmod (coming) from $P
# verified: build-id @BUILDID@ matches the loaded module
# debug info: $P (module, verified by build-id)
# .init sections included at their load addresses (the module is still initializing)
# __versions, .modinfo, .data..percpu: not loaded by the kernel or address unknown; parked in the non-canonical hole so no real address resolves to them
add-symbol-file $P $A_TEXT -s .rodata $A_RODATA -s .note.gnu.build-id $A_NOTE -s .data $A_DATA -s .bss $A_BSS -s .init.text $A_INIT -s __versions 0xPARKED -s .modinfo 0xPARKED -s .data..percpu 0xPARKED
X
)"
gdb_eval "$T/coming.gdb" 'p &testmod_init'
check_eq "coming: gdb puts testmod_init at .init.text + offset" "$INIT" "$(gdb_addr_of testmod_init)"

echo live >"$R/sys/module/testmod/initstate"
ms gdb --root "$R" --init testmod
cp "$T/out" "$T/init.gdb"
check_grep "live --init: .init.text at its map address" " -s \.init\.text $A_INIT( |\$)" "$T/out"
check_grep "live --init: a comment says they may be freed and reused" \
	'^# \.init sections included at their load addresses \(--init; they may be freed and reused\)' "$T/out"
check_nogrep "live --init: no 'freed after init' parking comment" 'freed after init' "$T/out"
gdb_eval "$T/init.gdb" 'p &testmod_init'
check_eq "live --init: gdb puts testmod_init at .init.text + offset" "$INIT" "$(gdb_addr_of testmod_init)"

ms sections --root "$R" --json testmod
check_eq "sections --json: live .init.text is freed, parked" "freed True" \
	"$(jq_py "$T/out" 'S[".init.text"]["state"], S[".init.text"]["debugger_address"].startswith("0x0bad")' | tr -d "(),'")"

# A module whose initstate cannot be read is treated like a live one.
rm "$R/sys/module/testmod/initstate"
ms gdb --root "$R" testmod
check_rc "initstate missing: exit 0 (initstate unknown)" 0
check_grep "initstate missing: header says initstate unknown" '^# testmod \(initstate unknown\) from ' "$T/out"
check_grep "initstate missing: .init.text parked, not at its map address" ' -s \.init\.text 0xbad[0-9a-f]{12}( |$)' "$T/out"
finish
