#!/bin/bash
# Rule 8: capture files.  `modsect capture` then `gdb --capture` gives the
# same command as the live map; the README's sh loop ("MOD SECTION 0xADDR")
# and `grep -r . /sys/module/*/sections/` outputs are read; bad captures
# (garbage line, duplicate section, unknown format version, hidden
# addresses) are refused.
# (Rule 8 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy || finish
std_fixture || bail "fixture"
MD=$R/lib/modules/$REL

ms gdb --root "$R" testmod
cp "$T/out" "$T/live.gdb"
grep '^add-symbol-file' "$T/live.gdb" >"$T/live.cmd"

ms capture --root "$R" -o "$T/c.cap"
check_rc "capture --root -o: exit 0" 0
norm "$T/c.cap" >"$T/actual"
cat >"$T/expected" <<X
# modsect capture of 1 modules; read it with modsect --capture FILE, see modsect(1)
modsect-capture 1
release @REL@
machine x86_64
module testmod live
srcversion testmod $SRCVERSION
build-id testmod @BUILDID@
section testmod .text $A_TEXT
section testmod .rodata $A_RODATA
section testmod .note.gnu.build-id $A_NOTE
section testmod .data $A_DATA
section testmod .bss $A_BSS
section testmod .init.text $A_INIT
section testmod .symtab $A_SYMTAB
section testmod .strtab $A_STRTAB
X
check_same "capture: exact file" "$T/expected" "$T/actual"

ms gdb --capture "$T/c.cap" --moddir "$MD" testmod
check_rc "gdb --capture: exit 0" 0
tail -n +2 "$T/live.gdb" >"$T/a"
tail -n +2 "$T/out" >"$T/b"
check_same "gdb --capture: same as --root apart from the first line" "$T/a" "$T/b"
check_eq "gdb --capture: first line names the capture" \
	"$GDB_INTRO from @T@/c.cap (kernel @REL@)" "$(norm "$T/out" | head -1)"

ms gdb --capture - --moddir "$MD" testmod <"$T/c.cap"
tail -n +2 "$T/out" >"$T/b"
check_same "gdb --capture - (stdin): same command" "$T/a" "$T/b"

# The README's sh loop, run against the fake tree.
(cd "$R" && sh -c '
for d in sys/module/*/sections; do
	m=${d#sys/module/}; m=${m%/sections}
	for f in "$d"/* "$d"/.[!.]*; do
		[ -f "$f" ] && echo "$m ${f##*/} $(cat "$f")"
	done
done') >"$T/loop.txt"
check_grep "sh loop output looks like 'MOD SECTION 0xADDR'" "^testmod \.text $A_TEXT\$" "$T/loop.txt"
ms gdb --capture "$T/loop.txt" --moddir "$MD" testmod
check_rc "gdb --capture of the sh loop output: exit 0" 0
grep '^add-symbol-file' "$T/out" >"$T/b"
check_same "sh loop capture: same add-symbol-file command" "$T/live.cmd" "$T/b"

(cd "$R" && grep -r . sys/module/*/sections/) | sed 's|^|/|' >"$T/grep.txt"
check_grep "grep output looks like '/sys/module/M/sections/S:0xADDR'" \
	"^/sys/module/testmod/sections/\.text:$A_TEXT\$" "$T/grep.txt"
ms gdb --capture "$T/grep.txt" --moddir "$MD" testmod
check_rc "gdb --capture of grep -r output: exit 0" 0
grep '^add-symbol-file' "$T/out" >"$T/b"
check_same "grep capture: same add-symbol-file command" "$T/live.cmd" "$T/b"

# capture --capture rewrites the sh loop's and grep's output as format 1.
ms capture --capture "$T/loop.txt" -o "$T/norm.cap"
check_rc "capture --capture of the sh loop: exit 0" 0
check_grep "capture --capture: format 1 header" '^modsect-capture 1$' "$T/norm.cap"
check_grep "capture --capture: section lines" "^section testmod \.text $A_TEXT\$" "$T/norm.cap"
ms gdb --capture "$T/norm.cap" --moddir "$MD" testmod
grep '^add-symbol-file' "$T/out" >"$T/b"
check_same "capture --capture: the rewritten capture gives the same command" "$T/live.cmd" "$T/b"
ms capture --capture "$T/grep.txt"
grep -v '^#' "$T/out" >"$T/b"
grep -v '^#' "$T/norm.cap" >"$T/a"
check_same "capture --capture: grep and sh loop captures rewrite alike" "$T/a" "$T/b"

# The README's forms with their release and machine lines first: the
# rewritten capture says both.
for form in loop grep; do
	{ echo "release $REL"; echo "machine x86_64"; cat "$T/$form.txt"; } >"$T/$form-rel.txt"
	ms capture --capture "$T/$form-rel.txt"
	check_eq "capture --capture of the $form form with release and machine lines: both kept" \
		"release $REL,machine x86_64" "$(grep -E '^(release|machine) ' "$T/out" | paste -sd,)"
done

# A module file of another machine than the capture says: refused naming
# both (an arm64 map given the x86-64 module), for gdb and lldb alike.
sed 's/^machine x86_64$/machine aarch64/' "$T/c.cap" >"$T/arm.cap"
for dbg in gdb lldb; do
	ms $dbg --capture "$T/arm.cap" --moddir "$MD" testmod
	check_refused "$dbg: x86-64 module file for an aarch64 map: exit 3 naming both" 3 \
		'testmod\.ko is for x86_64 \(ELF machine 62, 64-bit\), but the kernel is aarch64: it is not a module of this kernel'
done
sed 's/^machine x86_64$/machine i686/' "$T/c.cap" >"$T/i386.cap"
ms gdb --capture "$T/i386.cap" --moddir "$MD" testmod
check_refused "gdb: x86-64 module file for an i686 map: exit 3 naming both" 3 \
	'is for x86_64 \(ELF machine 62, 64-bit\), but the kernel is i686'

# Garbage on line 4.
{ head -3 "$T/c.cap"; echo "this is not a capture line"; tail -n +4 "$T/c.cap"; } >"$T/garbage.cap"
ms gdb --capture "$T/garbage.cap" --moddir "$MD" testmod
check_refused "garbage line: exit 3 naming the line number" 3 "garbage\.cap:4: "

{ cat "$T/c.cap"; echo "section testmod .text 0xffffffffc0b00000"; } >"$T/dup.cap"
ms gdb --capture "$T/dup.cap" --moddir "$MD" testmod
check_refused "duplicate section: refused" 3 'lists section \.text twice'

{ cat "$T/loop.txt"; grep '\.data$\|\.data ' "$T/loop.txt"; } >"$T/dup2.txt"
ms gdb --capture "$T/dup2.txt" --moddir "$MD" testmod
check_refused "duplicate section (sh loop format): refused" 3 'lists section \.data twice'

sed 's/^modsect-capture 1$/modsect-capture 2/' "$T/c.cap" >"$T/v2.cap"
ms gdb --capture "$T/v2.cap" --moddir "$MD" testmod
check_refused "unsupported format version: refused" 3 'unsupported capture format "2"'

sed -E 's/^(section testmod \S+) 0x[0-9a-f]+$/\1 0x0000000000000000/' "$T/c.cap" >"$T/hidden.cap"
ms gdb --capture "$T/hidden.cap" --moddir "$MD" testmod
check_refused "capture of hidden addresses: refused" 3 'kptr_restrict'

for f in "$R"/sys/module/testmod/sections/.[!.]* "$R"/sys/module/testmod/sections/*; do
	[ -f "$f" ] && echo 0x0000000000000000 >"$f"
done
ms capture --root "$R" -o "$T/hidden2.cap"
check_refused "capture --root of hidden addresses: refused" 3 'kptr_restrict'
check "capture --root of hidden addresses: no file written" [ ! -e "$T/hidden2.cap" ]

: >"$T/empty.cap"
ms gdb --capture "$T/empty.cap" --moddir "$MD" testmod
check_refused "empty capture: refused" 3 'no module sections found'

ms gdb --capture "$T/c.cap" --moddir "$MD" othermod
check_refused "module not in the capture: exit 1" 1 'othermod is not in'
# Lines of one module need not come together; names are looked up by hash,
# across table growth (3000 modules), '-' and '_' as one.
awk 'BEGIN {
	print "modsect-capture 1"; print "release 6.1.0-test"
	for (i = 0; i < 3000; i++) printf "section m%d .text 0x%x\n", i, 3221225472 + i * 65536
	for (i = 0; i < 3000; i++) printf "section m%d .data 0x%x\n", i, 3221225472 + i * 65536 + 4096
	print "section my-mod .text 0xd0000000"; print "section my_mod .data 0xd0001000"
}' >"$T/many.cap"
ms capture --capture "$T/many.cap" -o "$T/many.out"
check_rc "3000 modules, lines interleaved: capture --capture exit 0" 0
check_eq "3000 modules, lines interleaved: 3001 modules, 6002 sections" "3001 6002" \
	"$(grep -c '^module ' "$T/many.out") $(grep -c '^section ' "$T/many.out")"
check_eq "interleaved lines: m2999 has both sections" \
	"section m2999 .text 0x00000000cbb70000 section m2999 .data 0x00000000cbb71000" \
	"$(grep '^section m2999 ' "$T/many.out" | tr '\n' ' ' | sed 's/ $//')"
check_eq "my-mod and my_mod are one module" 2 "$(grep -c '^section my_mod ' "$T/many.out")"
finish
