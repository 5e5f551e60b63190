#!/bin/bash
# Rule 11: .data..percpu, which sysfs never lists: when /proc/kallsyms shows
# the module's per-cpu variables at BASE + offset, the command gives
# `-s .data..percpu BASE` and gdb's &var is the kallsyms address; otherwise
# (no kallsyms, hidden, disagreeing, or on the module's own sections) it
# is parked.
# (Rule 11 is written down in tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy nm gdb || finish
std_fixture || bail "fixture"
BASE=0x3a000
OPAD=$(symval "$KO" testmod_pcpu_pad)
OVAR=$(symval "$KO" testmod_pcpu)
check "fixture: per-cpu variable at a non-zero offset" [ "$OVAR" != 0x0 ]
VAR=$(hexadd $BASE "$OVAR")
ks() { printf '%016x %s %s\t[testmod]\n' "$@"; }
{
	echo "ffffffff81000000 T _stext"
	echo "ffffffff81000100 T core_func"
	ks $((A_TEXT + $(symval "$KO" testmod_func))) t testmod_func
	ks $((BASE + OPAD)) d testmod_pcpu_pad
	ks $((BASE + OVAR)) d testmod_pcpu
	ks $((A_DATA + $(symval "$KO" testmod_data))) d testmod_data
	echo "ffffffffc0b00000 t other_func	[othermod]"
} >"$R/proc/kallsyms"

ms gdb --root "$R" testmod
check_rc "kallsyms: exit 0" 0
check_grep "kallsyms: -s .data..percpu BASE" " -s \.data\.\.percpu $BASE( |\$)" "$T/out"
check_grep "kallsyms: comment on the per-cpu base" '^# \.data\.\.percpu: per-cpu base from kallsyms' "$T/out"
check_nogrep "kallsyms: .data..percpu not in the parked list" '^# .*\.data\.\.percpu.*parked' "$T/out"
cp "$T/out" "$T/p.gdb"
gdb_eval "$T/p.gdb" 'p &testmod_pcpu' 'p &testmod_pcpu_pad'
check_eq "gdb: &testmod_pcpu is its kallsyms address" "$VAR" "$(gdb_addr_of testmod_pcpu)"
check_eq "gdb: &testmod_pcpu_pad is its kallsyms address" "$(hexadd $BASE "$OPAD")" "$(gdb_addr_of testmod_pcpu_pad)"

ms lldb --root "$R" testmod
check_grep "lldb: .data..percpu BASE" "^target modules load .* \.data\.\.percpu $BASE( |\$)" "$T/out"

ms sections --root "$R" --json testmod
check_eq "sections --json: .data..percpu state percpu at BASE" "percpu 0x000000000003a000" \
	"$(jq_py "$T/out" 'S[".data..percpu"]["state"] + " " + S[".data..percpu"]["debugger_address"]')"

# Through a capture: kallsyms lines are kept.
ms capture --root "$R" -o "$T/c.cap"
check_grep "capture keeps the module's kallsyms lines" "^kallsyms testmod 000000000003a004 d testmod_pcpu\$" "$T/c.cap"
check_nogrep "capture leaves out core kernel symbols" 'core_func|_stext' "$T/c.cap"
ms gdb --capture "$T/c.cap" --moddir "$R/lib/modules/$REL" testmod
check_grep "gdb --capture: -s .data..percpu BASE" " -s \.data\.\.percpu $BASE( |\$)" "$T/out"

# Raw /proc/kallsyms lines appended to the sh loop format.
{ grep '^section' "$T/c.cap" | sed 's/^section //'; cat "$R/proc/kallsyms"; } >"$T/mixed.txt"
ms gdb --capture "$T/mixed.txt" --moddir "$R/lib/modules/$REL" testmod
check_grep "sh loop + raw kallsyms lines: -s .data..percpu BASE" " -s \.data\.\.percpu $BASE( |\$)" "$T/out"

# Per-cpu symbols on the module's own .text (Debian's 6.1 armmp shows
# them so): as addresses they would name its code, so parked.
cp "$R/proc/kallsyms" "$T/kallsyms.good"
TB=$(printf '%016x' "$A_TEXT")
sed -i -e "s/^000000000003a000 d testmod_pcpu_pad/$(printf '%016x' $((A_TEXT + OPAD))) d testmod_pcpu_pad/" \
	-e "s/^000000000003a004 d testmod_pcpu/$(printf '%016x' $((A_TEXT + OVAR))) d testmod_pcpu/" "$R/proc/kallsyms"
ms gdb --root "$R" testmod
check_grep "kallsyms per-cpu base inside the module's .text ($TB): .data..percpu parked" \
	' -s \.data\.\.percpu 0xbad[0-9a-f]{12}( |$)' "$T/out"
cp "$T/kallsyms.good" "$R/proc/kallsyms"

# Disagreeing symbols: no single base, so parked.
sed -i "s/^000000000003a004 d testmod_pcpu/000000000003a00c d testmod_pcpu/" "$R/proc/kallsyms"
ms gdb --root "$R" testmod
check_grep "disagreeing kallsyms: .data..percpu parked" ' -s \.data\.\.percpu 0xbad[0-9a-f]{12}( |$)' "$T/out"

# Hidden kallsyms (all zero): parked, not an error.
sed -i -E 's/^[0-9a-f]{16}/0000000000000000/' "$R/proc/kallsyms"
ms gdb --root "$R" testmod
check_rc "hidden kallsyms: exit 0" 0
check_grep "hidden kallsyms: .data..percpu parked" ' -s \.data\.\.percpu 0xbad[0-9a-f]{12}( |$)' "$T/out"

rm "$R/proc/kallsyms"
ms gdb --root "$R" testmod
check_grep "no kallsyms: .data..percpu parked" ' -s \.data\.\.percpu 0xbad[0-9a-f]{12}( |$)' "$T/out"
finish
