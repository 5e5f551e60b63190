#!/bin/bash
# Rule 3: a real lldb sourcing `modsect lldb` output resolves the module's
# addresses to its symbols.  lldb needs a target first (on a real system,
# vmlinux); a tiny static executable stands in.  lldb 14 may print a python
# traceback on stderr: only stdout is checked.
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy nm lldb || finish
std_fixture || bail "fixture"
mkvmlinux || bail "vmlinux stand-in"

ms lldb --root "$R" testmod
check_rc "modsect lldb: exit 0" 0
P=@T@/root/lib/modules/@REL@/kernel/drivers/misc/testmod.ko
check_out "modsect lldb: exact commands" "$(cat <<X
$LLDB_INTRO from @T@/root (kernel @REL@)
# testmod (live) from $P
# verified: build-id @BUILDID@ matches the loaded module
# debug info: $P (module, verified by build-id)
# .init.text: freed after init (the module is live) and maybe reused; parked in the non-canonical hole so no real address resolves to them (--init keeps their stale addresses)
# __versions, .modinfo, .data..percpu: not loaded by the kernel or address unknown; parked in the non-canonical hole so no real address resolves to them
target modules add "$P"
target modules load --file "$P" .text $A_TEXT .rodata $A_RODATA .note.gnu.build-id $A_NOTE .data $A_DATA .bss $A_BSS
X
)"
cp "$T/out" "$T/s.lldb"

F=$(hexadd $A_TEXT "$(symval "$KO" testmod_func)")
D=$(hexadd $A_DATA "$(symval "$KO" testmod_data)")
B=$(hexadd $A_BSS "$(symval "$KO" testmod_bss)")
RO=$(hexadd $A_RODATA "$(symval "$KO" testmod_table)")
lldb_eval "$T/s.lldb" "image lookup -a $F" "image lookup -a $D" \
	"image lookup -a $B" "image lookup -a $RO"
check_grep "lldb loaded .text at the map address" \
	"section '.text' loaded at $A_TEXT" "$T/lldb.out"
for x in "$F testmod_func" "$D testmod_data" "$B testmod_bss" "$RO testmod_table"; do
	set -- $x
	if grep -A3 -F "image lookup -a $1" "$T/lldb.out" |
		grep -Eq "Summary: (testmod\.ko\`)?$2( |\$)"; then
		ok "lldb: image lookup -a $1 is $2"
	else
		not_ok "lldb: image lookup -a $1 is $2" "$(cat "$T/lldb.out")"
	fi
done
finish
