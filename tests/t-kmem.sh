#!/bin/bash
# The module walk over kernel memory (lib/kernel/kmem.c through kern_fill_map) on
# a fake kernel: tests/tools/kmemwalk.c builds BTF and memory
# (tests/tools/fakekern.h) with Debian 6.1's struct offsets, or 6.14's
# section attributes, and prints the map as a capture.  The whole map is
# compared for both layouts (kallsyms types as /proc/kallsyms shows them:
# upper-case only when mod->syms exports that name at that value, empty
# names left out); UNFORMED modules and modules without sect_attrs are left
# out as the kernel and sysfs leave them; hostile memory (loops, unmapped
# and NULL pointers, huge counts, unterminated names, 10001 list entries) ends
# in one line naming what was read and where, within 20 s, never a crash.
# Last, an ELF vmcore of a memory image (tests/tools/mkvmcore.py) read
# through lib/target/vmcore.c, whole and cut to 50%, 10% and 90%: a cut
# one is refused at open, saying it is truncated, by how much and from
# where, and modsect capture exits 3 writing nothing.
. "$(dirname "$0")/lib.sh"
use_helper kmemwalk

# Addresses in the fake kernel's arena (0xffffffffc1000000, up to 64 MiB)
# move whenever fakekern.h changes: messages name them as @A@.
norm_a() {
	sed -E 's/0xffffffffc[1-4][0-9a-f]{6}\b/@A@/g' "$@"
}

# hostile MODE MESSAGE: exit 1, no stdout, stderr the one line
# "kmemwalk: MESSAGE" (arena addresses as @A@).
hostile() {
	hrun "$1"
	norm_a "$T/err" >"$T/err.n"
	if [ "$RC" = 1 ] && [ ! -s "$T/out" ] &&
		[ "$(cat "$T/err.n")" = "kmemwalk: $2" ]; then
		ok "$1: $2"
	else
		not_ok "$1: want exit 1 and the one line: kmemwalk: $2" "$(_last_run)"
	fi
}

# hostile_re MODE ERE: the same, the line matching ^kmemwalk: ERE$.
hostile_re() {
	hrun "$1"
	norm_a "$T/err" >"$T/err.n"
	if [ "$RC" = 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err.n")" = 1 ] &&
		grep -Eq -- "^kmemwalk: $2\$" "$T/err.n"; then
		ok "$1: $(cat "$T/err.n")"
	else
		not_ok "$1: want exit 1 and one line matching /^kmemwalk: $2\$/" "$(_last_run)"
	fi
}

# ---- legitimate memory ---------------------------------------------------------

HEAD='modsect-capture 1
release 6.1.0-fake
machine x86_64'
cat >"$T/good" <<X
# modsect capture of 3 modules; read it with modsect --capture FILE, see modsect(1)
$HEAD
module fake_net coming
srcversion fake_net 0123456789ABCDEF0123456
build-id fake_net 0102030405060708090a0b0c0d0e0f1011121314
section fake_net .text 0xffffffffc0200000
section fake_net .rodata 0xffffffffc0202000
section fake_net .note.gnu.build-id 0xffffffffc0202100
section fake_net .data 0xffffffffc0203000
section fake_net .gnu.linkonce.this_module 0xffffffffc0203100
section fake_net .bss 0xffffffffc0203400
section fake_net .init.text 0xffffffffc0210000
section fake_net .symtab 0xffffffffc0220000
section fake_net .strtab 0xffffffffc0221000
kallsyms fake_net ffffffffc0200010 T fake_net_xmit
kallsyms fake_net ffffffffc0200010 t fake_net_xmit_alias
kallsyms fake_net ffffffffc0200100 t fake_net_rx
kallsyms fake_net ffffffffc0210000 t fake_net_init
kallsyms fake_net ffffffffc0203010 d fake_net_stats
kallsyms fake_net ffffffffc0203400 b fake_net_count
module fake_nonotes going
section fake_nonotes .text 0xffffffffc0400000
section fake_nonotes .bss 0xffffffffc0401000
kallsyms fake_nonotes ffffffffc0400008 t fake_nonotes_go
module fakedrv live
srcversion fakedrv FEDCBA9876543210FEDCBA9
build-id fakedrv a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3
section fakedrv .text 0xffffffffc0300000
section fakedrv .exit.text 0xffffffffc0301000
section fakedrv .data 0xffffffffc0302000
section fakedrv .init.text 0xffffffffc0308000
kallsyms fakedrv ffffffffc0300020 t fakedrv_probe
kallsyms fakedrv ffffffffc0300040 t fakedrv_helper
kallsyms fakedrv ffffffffc0302000 D fakedrv_table
X
hsame "good (6.1 layout): the whole map" "$T/good" good
hsame "layout614 (bin_attribute[] attrs, address in private, NULL-terminated bin_attrs): the same map" \
	"$T/good" layout614
hsame "unformed: a MODULE_STATE_UNFORMED module is skipped unread" "$T/good" unformed
hsame "nosects: a module with sect_attrs NULL is left out, as sysfs has no sections/" \
	"$T/good" nosects

"$MODSECT" capture --capture "$T/good" >"$T/again" 2>&1
check_same "good: modsect capture --capture reads the map back unchanged" "$T/good" "$T/again"

{
	sed -n '1,4p' "$T/good" | sed 's/of 3 modules/of 1 modules/'
	grep ' fake_net ' "$T/good"
} >"$T/one"
hsame "--module fake-net: only that module (- and _ alike)" "$T/one" --module fake-net good
hsame "--module-at (the first struct module's address): only that module" "$T/one" --module-nth 0 good
hrun --module-at ffffffffc0000040 good
if [ "$RC" = 1 ] && [ ! -s "$T/out" ] &&
	[ "$(cat "$T/err")" = "kmemwalk: no module at 0xffffffffc0000040 on the module list of fakekern (not loaded, or not formed yet)" ]; then
	ok "--module-at an address that is no listed module: one line saying so, exit 1"
else
	not_ok "--module-at an address that is no listed module: one line saying so, exit 1" "$(_last_run)"
fi

printf '%s\n' "# modsect capture of 0 modules; read it with modsect --capture FILE, see modsect(1)" \
	"$HEAD" "core ffffffff82a13000 D init_uts_ns" "core ffffffffc1000000 d modules" >"$T/empty"
hsame "empty list, --core: no module, the core symbols" "$T/empty" --core empty

hrun many
if [ "$RC" = 0 ] && [ ! -s "$T/err" ] && [ "$(grep -c '^module m[0-9]\{4\}0 live$' "$T/out")" = 1000 ] &&
	[ "$(grep -c '^section ' "$T/out")" = 2000 ] && grep -qx 'module m09990 live' "$T/out"; then
	ok "many: 10000 list entries (the bound), 1000 of them formed, all in the map"
else
	not_ok "many: want exit 0 and modules m00000, m00010 ... m09990 with 2 sections each" "$(_last_run | head -c 600)"
fi

# 1000 symbols and 2^20 exports (the most the walk takes) at one value, no
# name in common: all lower-case, within the time bound (each export's
# name read once, not once per symbol).
hrun export-dups
if [ "$RC" = 0 ] && [ ! -s "$T/err" ] &&
	[ "$(grep -c '^kallsyms fake_dups ffffffffc0400000 t sym$' "$T/out")" = 1000 ]; then
	ok "export-dups: 1000 symbols x 2^20 exports at one value: all 't', within 20 s"
else
	not_ok "export-dups: want exit 0 within 20 s, 1000 lines 'kallsyms fake_dups ffffffffc0400000 t sym'" \
		"$(_last_run | head -c 600)"
fi

# ---- hostile memory ------------------------------------------------------------

hostile cycle "the module list in fakekern loops at @A@ (corrupted memory, or it changed while read)"
hostile list-unmapped "reading struct module at 0xffffffffc6fffff8 (896 bytes) from fakekern: not mapped"
hostile_re list-null "the module list in fakekern ends .*\(corrupted memory, or it changed while read\)"
hostile bound "the module list in fakekern has more than 10000 entries (corrupted memory?)"
hostile nsections "module fake_net: module section attributes at @A@ in fakekern: 1000000 entries, more than 4096 (corrupted memory?)"
hostile sas-unmapped "module fake_net: reading module_sect_attrs at 0xffffffffc7000000 (48 bytes) from fakekern: not mapped"
hostile num-symtab "module fake_net: module symbol table at @A@ in fakekern: 4294967280 entries, more than 1048576 (corrupted memory?)"
hostile kallsyms-unmapped "module fakedrv: reading mod_kallsyms at 0xffffffffc7000000 (32 bytes) from fakekern: not mapped"
hostile secname-unterminated "module fake_net: section name at @A@ in fakekern is not NUL-terminated within 1024 bytes"
hostile secname-unmapped "module fake_net: reading section name at 0xffffffffc7000000 (64 bytes) from fakekern: not mapped"
hostile modname-space "module fake drv: module at @A@ in fakekern has a name that is no file name (fake drv)"
hostile modname-unterminated "module at @A@ in fakekern: name not NUL-terminated"
hostile note-size "module fake_net: build-id note at @A@ in fakekern: 100000 entries, more than 4096 (corrupted memory?)"
hostile notes-count "module fake_net: module note attributes at @A@ in fakekern: 1000 entries, more than 256 (corrupted memory?)"
hostile strtab-past "module fake_net: reading module string table at @A@ (8388609 bytes) from fakekern: not mapped"
hostile strtab-huge "module fake_net: module string table at @A@ in fakekern: over 16777216 bytes (corrupted memory?)"
hostile layout614-count "module fake_net: section attributes at @A@ in fakekern: more than 4096 (corrupted memory?)"
hostile layout614-unmapped "module fake_net: reading section attribute list at 0xffffffffc7000000 (8 bytes) from fakekern: not mapped"
hostile dup-module "fakekern: module fake_net is listed twice"
hostile dup-section "fakekern: module fake_net lists section .note.gnu.build-id twice"
# What memory says goes into captures: a name the capture reader refuses
# (".."), a srcversion with a newline (a line of its own: "module evil
# live"), a symbol type that is a newline, are refused where read.
hostile_re modname-dotdot "(module \.\.: )?module at @A@ in fakekern .*name.*"
hostile_re srcversion-newline "module fake_net: .*srcversion.*"
hostile_re ksym-type "module fake_net: .*type.*"

# ---- a truncated ELF vmcore ------------------------------------------------------

MR=$TEST_TOOLS/memread
VIMG=$T/vmimg.txt
python3 - "$VIMG" <<'X'
import random, sys
r = random.Random(7)
with open(sys.argv[1], "w") as f:
    for a in (0xffffffff81000000, 0xffffffff81020000):
        f.write("%x %s\n" % (a, bytes(r.randrange(256) for _ in range(65536)).hex()))
X
python3 "$TESTS_DIR/tools/mkvmcore.py" "$VIMG" "$T/core.elf" || bail "mkvmcore.py failed"
VREADS=(ffffffff81000000 64 ffffffff8100fff0 16 ffffffff81020000 4096 ffffffff8102fff0 16)
"$MR" --memimg "$VIMG" "${VREADS[@]}" >"$T/vwant" 2>&1 || bail "memread --memimg: $(cat "$T/vwant")"
timeout 20 "$MR" --vmcore "$T/core.elf" "${VREADS[@]}" >"$T/out" 2>"$T/err"
RC=$?
if [ "$RC" = 0 ] && [ ! -s "$T/err" ]; then
	check_same "ELF vmcore of the image: every block reads as in the image" "$T/vwant" "$T/out"
else
	not_ok "ELF vmcore of the image: want exit 0" "$(_last_run)"
fi
# ere TEXT: TEXT as an ERE matching itself.
ere() {
	printf '%s' "$1" | sed 's/[][\.*^$(){}?+|]/\\&/g'
}
size=$(stat -c %s "$T/core.elf")
for pct in 50 10 90; do
	n=$((size * pct / 100))
	head -c "$n" "$T/core.elf" >"$T/cut$pct.elf"
	miss=$(awk -v a="$n" -v b="$size" 'BEGIN { printf "%.1f", 100 * (b - a) / b }')
	want="$(ere "vmcore $T/cut$pct.elf is truncated: $n bytes, its program headers need $size ($miss% missing: an interrupted copy, a full disk?); memory past offset $n (physical memory from 0x")[0-9a-f]+$(ere " on) cannot be read, and modsect reads no part of it (the page tables may be in what is missing)")"
	timeout 20 "$MR" --vmcore "$T/cut$pct.elf" ffffffff81000000 64 >"$T/out" 2>"$T/err"
	RC=$?
	check_refused "ELF vmcore cut to $pct%: refused at open, saying by how much" 1 "^memread: $want\$"
	rm -f "$T/cap.txt"
	timeout 20 "$MODSECT" capture --vmcore "$T/cut$pct.elf" -o "$T/cap.txt" >"$T/out" 2>"$T/err"
	RC=$?
	if [ "$RC" = 3 ] && [ ! -e "$T/cap.txt" ] && grep -Eq -- "^modsect: $want\$" "$T/err"; then
		ok "ELF vmcore cut to $pct%: modsect capture exits 3, writes nothing"
	else
		not_ok "ELF vmcore cut to $pct%: modsect capture: want exit 3, no output, /^modsect: $want\$/" "$(_last_run)"
	fi
done

finish
