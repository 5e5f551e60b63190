#!/bin/bash
# Rule 3: a real lldb sourcing `modsect lldb` output resolves the module's
# addresses to its symbols.  lldb needs a target first (on a real system,
# vmlinux); a tiny static executable stands in.  lldb 14 may print a python
# traceback on stderr: only stdout is checked.
# (Rule 3 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy nm lldb || finish
std_fixture || bail "fixture"
mkvmlinux || bail "vmlinux stand-in"

ms lldb --root "$R" testmod
check_rc "modsect lldb: exit 0" 0
P=@T@/root/lib/modules/@REL@/kernel/drivers/misc/testmod.ko
check_out "modsect lldb: exact commands" "$(cat <<X
$LLDB_INTRO from @T@/root (kernel @REL@)
$LLDB_ARCH
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

# The script's architecture lines: with a target (the vmlinux stand-in)
# it is selected again and holds the module; the script's empty x86_64
# target stays unused.  A fresh lldb gets the empty target and the module.
lldb_eval "$T/s.lldb" "target list" "image list"
if sed -n '/^(lldb) target list$/,$p' "$T/lldb.out" | grep -q "^\* target #0: $T/vmlinux " &&
	sed -n '/^(lldb) image list$/,$p' "$T/lldb.out" | grep -q "testmod\.ko"; then
	ok "lldb with a target: target 0 stays selected and holds the module"
else
	not_ok "lldb with a target: target 0 stays selected and holds the module" "$(cat "$T/lldb.out")"
fi
lldb -b -o "command source $T/s.lldb" -o "image lookup -a $F" -o "target list" \
	>"$T/fresh.out" 2>"$T/fresh.err" </dev/null
if grep -Eq "Summary: testmod\.ko\`testmod_func( |\$)" "$T/fresh.out" &&
	[ "$(sed -n '/^(lldb) target list$/,$p' "$T/fresh.out" | grep -c 'target #')" = 1 ] &&
	sed -n '/^(lldb) target list$/,$p' "$T/fresh.out" | grep -q 'arch=x86_64-'; then
	ok "fresh lldb (no target): the script's x86_64 target, image lookup -a $F is testmod_func"
else
	not_ok "fresh lldb (no target): the script's x86_64 target, image lookup -a $F is testmod_func" "$(cat "$T/fresh.out")"
fi
finish
