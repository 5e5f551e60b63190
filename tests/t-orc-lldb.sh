#!/bin/bash
# Rule 16: lldb gets a module's unwind tables in the file it loads for
# it: a cached copy with the ORC as .debug_frame, each FDE at an offset in
# its section relocated (R_X86_64_64) against the section's symbol, so
# that lldb's own placing of the sections and `target modules load` move
# it to the map's address; its code sections writable, so lldb reads the
# code from memory; every symbol still at its map address; gdb's file is
# the module's own. (tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld as depmod objcopy nm readelf || finish

orc_fixture || bail "orc_fixture"
FUNC=$(symval "$KO" testmod_func)
HELP=$(symval "$KO" testmod_helper)

ms lldb --root "$R" testmod
check_rc "lldb with a module with ORC: exit 0" 0
check_grep "a comment counts the entries of lldb's copy, .init.text's too" \
	"^# testmod: unwind tables from its ORC \(4 entries\) in lldb's copy of its file$" "$T/out"
COPY=$(sed -n 's/^target modules add "\(.*\)"$/\1/p' "$T/out")
check "lldb adds a copy in the cache, not the module file" \
	test -n "$COPY" -a "$COPY" != "$KO" -a -f "$COPY"
check_grep "and loads that copy at the map's addresses" \
	"^target modules load --file \"$COPY\" \.text $A_TEXT( |$)" "$T/out"
readelf -SW "$COPY" >"$T/secs" 2>&1
check_grep "the copy has a .debug_frame" ' \.debug_frame +PROGBITS ' "$T/secs"
check_grep "and its relocations, linked to it" ' \.rela\.debug_frame +RELA .* I +[0-9]+ +[0-9]+ +8$' "$T/secs"
check_grep "its .text is writable (lldb reads it from memory)" ' \.text +PROGBITS +0+ [0-9a-f]+ [0-9a-f]+ 00 +WAX ' "$T/secs"
readelf -rW "$COPY" | sed -n '/\.rela\.debug_frame/,/^$/p' >"$T/rela"
check_grep "testmod_func's FDE: its .text offset, relocated against .text" \
	"R_X86_64_64 +0+ \.text \+ ${FUNC#0x}$" "$T/rela"
check_grep "testmod_helper's likewise" \
	"R_X86_64_64 +0+ \.text \+ ${HELP#0x}$" "$T/rela"
check_grep ".init.text's against its own section" \
	'R_X86_64_64 +0+ \.init\.text \+ 0$' "$T/rela"
SHOFF=$(readelf -hW "$KO" | awk '/Start of section headers/ { print $5 }')
check "the copy is the module file up to its section headers" \
	cmp -s -i 64 -n $((SHOFF - 64)) "$KO" "$COPY"
first=$COPY
ms lldb --root "$R" testmod
COPY=$(sed -n 's/^target modules add "\(.*\)"$/\1/p' "$T/out")
check "a second run names the same copy (cached by content)" test "$COPY" = "$first"

ms gdb --root "$R" testmod
check_grep "gdb still reads the module file itself" "^add-symbol-file $R/[^ ]*/testmod\.ko " "$T/out"

if command -v lldb >/dev/null; then
	ms lldb --root "$R" testmod
	cp "$T/out" "$T/s.lldb"
	F=$(hexadd $A_TEXT "$FUNC")
	lldb -b -o "target create --arch x86_64 \"\"" -o "command source $T/s.lldb" \
		-o "image lookup -a $F" >"$T/lldb.out" 2>&1 </dev/null
	if grep -A3 -F "image lookup -a $F" "$T/lldb.out" | grep -q 'testmod_func'; then
		ok "lldb: the copy's testmod_func is at its map address"
	else
		not_ok "lldb: the copy's testmod_func is at its map address" "$(cat "$T/lldb.out")"
	fi
	check_nogrep "lldb loads the copy without an error" '^error' "$T/lldb.out"
fi
finish
