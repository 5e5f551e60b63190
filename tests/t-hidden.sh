#!/bin/bash
# Rule 5: addresses hidden by the kernel (every section 0x0000000000000000,
# kptr_restrict) are refused: exit 3, a message naming kptr_restrict, and
# nothing on stdout (nor in an -o file).
# (Rule 5 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy || finish
std_fixture || bail "fixture"
for f in "$R"/sys/module/testmod/sections/.[!.]* "$R"/sys/module/testmod/sections/*; do
	[ -f "$f" ] && echo 0x0000000000000000 >"$f"
done

for c in gdb lldb sections; do
	ms "$c" --root "$R" testmod
	check_refused "$c: hidden addresses: exit 3, kptr_restrict, empty stdout" 3 'kptr_restrict'
done
ms gdb --root "$R" --all
check_refused "gdb --all: hidden addresses refused" 3 'kptr_restrict'
ms list --root "$R"
check_refused "list: hidden addresses refused" 3 'kptr_restrict'
ms capture --root "$R"
check_refused "capture: hidden addresses refused" 3 'kptr_restrict'
ms gdb --root "$R" -o "$T/s.gdb" testmod
check_refused "gdb -o: hidden addresses refused" 3 'kptr_restrict'
check "gdb -o: no file written" [ ! -e "$T/s.gdb" ]
check_grep "message says every address is zero and names the module" \
	'every section address of module testmod is zero' "$T/err"

# The same map in a capture file.
printf '%s\n' 'modsect-capture 1' 'module testmod live' \
	'section testmod .text 0x0000000000000000' 'section testmod .data 0x0000000000000000' >"$T/hidden.cap"
ms gdb --capture "$T/hidden.cap" --moddir "$R/lib/modules/$REL" testmod
check_refused "capture with hidden addresses: exit 3, kptr_restrict" 3 'kptr_restrict'

# Control: one non-zero address is not "hidden".
echo "$A_TEXT" >"$R/sys/module/testmod/sections/.text"
ms gdb --root "$R" --force testmod
if grep -q kptr_restrict "$T/err"; then
	not_ok "a map with a non-zero address is not called hidden" "$(_last_run)"
else
	ok "a map with a non-zero address is not called hidden"
fi
finish
