#!/bin/bash
# Hostile input: each bad module file or capture, generated here, is
# refused with the exact error (exit status, nothing on stdout, the message
# on stderr), writes no -o file and leaves no temp file; the odd but valid
# ones (a map without .text, paths with spaces) work.  Module files are
# damaged copies of the fixture's testmod.ko (python3 patches the ELF
# header and section headers); names a debugger could run are put into the
# file with objcopy --rename-section and into the capture with \xHH.
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy python3 gzip xz || finish
std_fixture || bail "fixture"
MD=$R/lib/modules/$REL
B=$T/bad
mkdir -p "$B" "$T/tmp"
export TMPDIR=$T/tmp
ms capture --root "$R" -o "$T/good.cap"
[ "$RC" = 0 ] || bail "capture of the fixture: $(cat "$T/err")"

# refused DESC RC ERE ARGS...: runs modsect ARGS; wants exit RC, empty
# stdout, stderr matching ERE; again with -o into an empty directory: no
# file there afterwards, no temp file in TMPDIR or the cache dir.
refused() {
	local d=$1 rc=$2 ere=$3 o=$T/o
	shift 3
	ms "$@" --cache-dir "$T/cache"
	check_refused "$d" "$rc" "$ere"
	rm -rf "$o" && mkdir -p "$o"
	ms "$@" --cache-dir "$T/cache" -o "$o/out"
	if [[ $RC =~ ^($rc)$ ]] &&
		[ -z "$(find "$o" "$T/tmp" "$T/cache" -mindepth 1 2>/dev/null)" ]; then
		ok "$d: with -o, no file and no temp file left"
	else
		not_ok "$d: with -o, no file and no temp file left" \
			"exit $RC; left: $(find "$o" "$T/tmp" "$T/cache" -mindepth 1 2>/dev/null | tr '\n' ' ')"
	fi
}

# ---- damaged ELF files (given as FILE for the loaded testmod) ----
python3 - "$KO" "$B" <<'PY'
import struct, sys
ko = open(sys.argv[1], 'rb').read()
out = sys.argv[2]
shoff = struct.unpack_from('<Q', ko, 0x28)[0]
shnum, shstrndx = struct.unpack_from('<HH', ko, 0x3c)
def sh(i): return shoff + i * 64
def w(name, b): open(out + '/' + name, 'wb').write(bytes(b))
def patch(fmt, off, v):
    b = bytearray(ko); struct.pack_into(fmt, b, off, v); return b
w('trunc100.ko', ko[:100])                  # ELF header and a little
w('trunc-half.ko', ko[:len(ko) // 2])        # section headers cut off
w('shoff-past.ko', patch('<Q', 0x28, len(ko) + 4096))
w('shstrndx.ko', patch('<H', 0x3e, shnum + 50))
w('shnum-huge.ko', patch('<H', 0x3c, 0xffff))
# names section 1 with an offset past the string table
w('shname.ko', patch('<I', sh(1), 0x0fffffff))
# section 1 (.note.gnu.build-id) starts past the end / is huge
w('sec-past.ko', patch('<Q', sh(1) + 0x18, len(ko) + 100))
w('sec-huge.ko', patch('<Q', sh(1) + 0x20, 1 << 62))
w('aarch64.ko', patch('<H', 0x12, 183))      # EM_AARCH64, build-id kept
w('exec.ko', patch('<H', 0x10, 2))           # ET_EXEC
# the second section with file contents starts inside the first one; a
# section over the section headers
full = [i for i in range(1, shnum)
        if struct.unpack_from('<I', ko, sh(i) + 4)[0] != 8 and
        struct.unpack_from('<Q', ko, sh(i) + 0x20)[0] > 0]
a, b = full[0], full[1]
w('overlap.ko', patch('<Q', sh(b) + 0x18, struct.unpack_from('<Q', ko, sh(a) + 0x18)[0]))
w('over-shdr.ko', patch('<Q', sh(a) + 0x18, shoff))
PY
F=$B/trunc100.ko
refused "truncated ELF (100 bytes): refused as truncated" 3 \
	"^modsect: $F: .*(truncated|past the end|section headers)" gdb --root "$R" testmod "$F"
F=$B/trunc-half.ko
refused "truncated ELF (half): refused as truncated" 3 \
	"^modsect: $F: .*(truncated|past the end|section headers)" gdb --root "$R" testmod "$F"
F=$B/shoff-past.ko
refused "section headers past the end of the file" 3 \
	"^modsect: $F: .*(truncated|past the end|section headers)" gdb --root "$R" testmod "$F"
F=$B/shnum-huge.ko
refused "e_shnum 65535: section headers past the end" 3 \
	"^modsect: $F: .*(truncated|past the end|section headers)" gdb --root "$R" testmod "$F"
F=$B/shstrndx.ko
refused "section string table index out of range" 3 \
	"^modsect: $F: bad section name: invalid section index\$" gdb --root "$R" testmod "$F"
F=$B/shname.ko
refused "section name offset out of range" 3 \
	"^modsect: $F: bad section name: offset out of range\$" gdb --root "$R" testmod "$F"
F=$B/sec-past.ko
refused "section data past the end of the file" 3 \
	"^modsect: $F: section \\.note\\.gnu\\.build-id lies past the end of the file\$" gdb --root "$R" testmod "$F"
F=$B/sec-huge.ko
refused "section size 2^62" 3 \
	"^modsect: $F: section \\.note\\.gnu\\.build-id lies past the end of the file\$" gdb --root "$R" testmod "$F"
F=$B/overlap.ko
refused "two sections overlapping in the file" 3 \
	"^modsect: $F: \\.[-a-z.]+ and \\.[-a-z.]+ overlap in the file \\(corrupted or crafted\\)\$" gdb --root "$R" testmod "$F"
F=$B/over-shdr.ko
refused "a section over the section headers" 3 \
	"^modsect: $F: (the section headers and .*|.* and the section headers) overlap in the file \\(corrupted or crafted\\)\$" gdb --root "$R" testmod "$F"
F=$B/exec.ko
refused "ET_EXEC is not a module" 3 \
	"^modsect: $F: not a kernel module \\(ELF type 2, a module is relocatable, type 1\\)\$" gdb --root "$R" testmod "$F"
F=$B/aarch64.ko
refused "ELF for another machine (e_machine aarch64, x86_64 map)" 3 \
	"^modsect: .*$F.*(machine|aarch64|AArch64)" gdb --root "$R" testmod "$F"
# A real i386 object against an x86_64 map without build-ids to compare.
if gcc -m32 -O2 -c -o "$B/i386.o" -x c - <<<'int f(int x) { return x + 1; } int d = 5;' 2>"$T/gcc.err"; then
	printf 'modsect-capture 1\nmachine x86_64\nmodule i386mod live\nsection i386mod .text %s\nsection i386mod .data %s\n' \
		"$A_TEXT" "$A_DATA" >"$T/i386.cap"
	F=$B/i386.o
	refused "ELF for another class and machine (gcc -m32, x86_64 map)" 3 \
		"^modsect: .*$F.*(machine|class|32-bit|i386|80386)" gdb --capture "$T/i386.cap" i386mod "$F"
else
	not_ok "gcc -m32 works (install gcc-multilib)" "$(cat "$T/gcc.err")"
fi

# ---- compressed wrappers ----
mkdir -p "$B/s-xz" "$B/s-gz"
echo "this is not xz data" >"$B/s-xz/testmod.ko.xz"
refused ".ko.xz that is not xz" 3 "^modsect: $B/s-xz/testmod\\.ko\\.xz: not an ELF file\$" \
	gdb --capture "$T/good.cap" --search "$B/s-xz" testmod
gzip -c "$KO" | head -c 500 >"$B/s-gz/testmod.ko.gz"
refused ".ko.gz truncated" 3 "^modsect: $B/s-gz/testmod\\.ko\\.gz: gzip data is truncated\$" \
	gdb --capture "$T/good.cap" --search "$B/s-gz" testmod

# ---- captures ----
C=$T/cap
mkdir -p "$C"
printf 'modsect-capture 1\nrelease %s\nmodule testmod live\nthis is garbage\n' "$REL" >"$C/garbage.cap"
refused "capture with a garbage line: names file and line" 3 \
	"^modsect: $C/garbage\\.cap:4: unrecognized line starting \"this\"\$" gdb --capture "$C/garbage.cap" --moddir "$MD" testmod
printf '\x01\x02\x03 \xff\xfe\n' >"$C/binary.cap"
refused "capture of binary junk" 3 "^modsect: $C/binary\\.cap:1: unrecognized line" \
	gdb --capture "$C/binary.cap" --moddir "$MD" testmod
printf 'modsect-capture 1\n\0\n' >"$C/nul.cap"
refused "capture with a NUL byte" 3 "^modsect: $C/nul\\.cap: not a text file \\(contains NUL bytes\\)\$" \
	gdb --capture "$C/nul.cap" --moddir "$MD" testmod
{ cat "$T/good.cap"; echo "section testmod .text $A_TEXT"; } >"$C/dup.cap"
refused "duplicate section (same address)" 3 "^modsect: $C/dup\\.cap: module testmod lists section \\.text twice\$" \
	gdb --capture "$C/dup.cap" --moddir "$MD" testmod
{ cat "$T/good.cap"; echo "section testmod .data 0xffffffffc0a99000"; } >"$C/dup2.cap"
refused "duplicate section (other address)" 3 "^modsect: $C/dup2\\.cap: module testmod lists section \\.data twice\$" \
	gdb --capture "$C/dup2.cap" --moddir "$MD" testmod
sed 's/ \.data 0x[0-9a-f]*/ .data 0x1ffffffffffffffff/' "$T/good.cap" >"$C/ovf.cap"
L=$(grep -n ' \.data ' "$C/ovf.cap" | cut -d: -f1)
refused "address of 17 hex digits" 3 "^modsect: $C/ovf\\.cap:$L: bad address \"0x1ffffffffffffffff\"\$" \
	gdb --capture "$C/ovf.cap" --moddir "$MD" testmod
printf 'testmod .text 0x10000000000000000\n' >"$C/ovf-loop.txt"
refused "address overflow in the sh-loop format" 3 "^modsect: $C/ovf-loop\\.txt:1: bad address \"0x10000000000000000\"\$" \
	gdb --capture "$C/ovf-loop.txt" --moddir "$MD" testmod
printf '/sys/module/testmod/sections/.text:0xfffffffffffffffff\n' >"$C/ovf-grep.txt"
refused "address overflow in the grep format" 3 "^modsect: $C/ovf-grep\\.txt:1: bad address \"0xfffffffffffffffff\"\$" \
	gdb --capture "$C/ovf-grep.txt" --moddir "$MD" testmod
# .data overlapping .text in the map: a debugger would see two sections
# at one address; refused (not resolved to a symbol of one in the other).
sed "s/ \\.data 0x[0-9a-f]*/ .data $(hexadd $A_TEXT 0x10)/" "$T/good.cap" >"$C/overlap.cap"
refused "overlapping sections in the map" 3 "^modsect: .*(overlap)" \
	gdb --capture "$C/overlap.cap" --moddir "$MD" testmod
# A section whose size wraps past the top of the address space.
sed 's/ \.data 0x[0-9a-f]*/ .data 0xfffffffffffffffc/' "$T/good.cap" >"$C/wrap.cap"
refused "section wrapping past 0xffffffffffffffff" 3 "^modsect: .*(wrap|end of the address space|overflow)" \
	gdb --capture "$C/wrap.cap" --moddir "$MD" testmod

# No .text in the map: still works; .text is parked, the rest at the map's addresses.
grep -v ' \.text ' "$T/good.cap" >"$C/notext.cap"
ms gdb --capture "$C/notext.cap" --moddir "$MD" testmod
check_rc "map without .text: exit 0" 0
check_grep "map without .text: .text parked, .data at the map's address" \
	"^add-symbol-file $MD/kernel/drivers/misc/testmod\\.ko -s \\.rodata $A_RODATA .* -s \\.data $A_DATA .*-s \\.text 0x0?bad[0-9a-f]+ " "$T/out"

# ---- names a debugger could run ----
# Section names in the file renamed, the capture naming them with \xHH.
names() {
	local n=0 sec esc
	while IFS= read -r -d '' sec; do
		n=$((n + 1))
		esc=$(printf '%s' "$sec" | python3 -c 'import sys; s = sys.stdin.buffer.read(); print("".join(chr(c) if 0x21 <= c <= 0x7e and c != 0x5c else "\\x%02x" % c for c in s))')
		objcopy --rename-section ".data=$sec" "$KO" "$B/name$n.ko" || { not_ok "objcopy rename to $esc"; continue; }
		python3 -c 'import sys
for l in open(sys.argv[1]):
    w = l.split()
    if w[:3] == ["section", "testmod", ".data"]:
        l = "section testmod %s %s\n" % (sys.argv[2], w[3])
    sys.stdout.write(l)' "$T/good.cap" "$esc" >"$C/name$n.cap"
		grep -qF "$esc" "$C/name$n.cap" || { not_ok "capture names $esc"; continue; }
		refused "section name $esc refused" 3 "$1" gdb --capture "$C/name$n.cap" testmod "$B/name$n.ko"
	done
}
printf '.text\nshell rm -rf /\0' | names "^modsect: module testmod: section name contains whitespace or a control character \\(byte 0x0a\\); refusing to pass it to a debugger\$"
printf '.da ta\0.da\tta\0' | names "^modsect: module testmod: section name contains whitespace or a control character \\(byte 0x(20|09)\\); refusing to pass it to a debugger\$"
printf -- '-readnow\0' | names "^modsect: module testmod: section name \"-readnow\" starts with '-', which a debugger would take for an option; refusing it\$"
printf '"; shell id\0' | names "^modsect: module testmod: section name contains a quote or backslash \\(byte 0x22\\); refusing to pass it to a debugger\$"
printf "';shell id\0\`id\`\0" | names "^modsect: module testmod: section name contains a quote or backslash \\(byte 0x(27|60)\\); refusing to pass it to a debugger\$"
# A name only in the capture (not in the file): the message must not
# carry the raw newline onto the terminal.
sed 's/^section testmod \.data /section testmod .data\\x0ashell\\x20id /' "$T/good.cap" >"$C/nl-only.cap"
ms gdb --capture "$C/nl-only.cap" --moddir "$MD" testmod
check_eq "a newline in a map-only section name: exit 3, one line of stderr" "3 1" "$RC $(wc -l <"$T/err")"

# ---- paths with spaces ----
mkdir -p "$T/dir with space"
cp "$KO" "$T/dir with space/test mod.ko"
cp "$T/good.cap" "$T/dir with space/my capture.cap"
ms gdb --capture "$T/dir with space/my capture.cap" testmod "$T/dir with space/test mod.ko"
check_rc "paths with spaces: exit 0" 0
check_grep "paths with spaces: the file quoted for gdb" \
	"^add-symbol-file $T/dir\\\\ with\\\\ space/test\\\\ mod\\.ko $A_TEXT " "$T/out"
# ---- vmcores ----
# An ELF core whose section-header string table runs past the file, as
# QEMU 7.2's dump of a ppc64le guest (marked big-endian; the size reads
# 0x0b00000000000000): refused before libkdumpfile allocates it.
python3 - "$T/bad-shstr.core" <<'PY'
import struct, sys
ph_off, sh_off, data_off = 64, 64 + 56, 64 + 56 + 2 * 64
h = b"\x7fELF" + bytes([2, 2, 1]) + bytes(9)
h += struct.pack(">HHIQQQIHHHHHH", 4, 21, 1, 0, ph_off, sh_off, 0, 64, 56, 1, 64, 2, 1)
ph = struct.pack(">IIQQQQQQ", 1, 0, data_off, 0, 0, 4096, 4096, 0)
sh = bytes(64) + struct.pack(">IIQQQQIIQQ", 1, 3, 0, 0, data_off, 0x0b00000000000000, 0, 0, 1, 0)
open(sys.argv[1], "wb").write(h + ph + sh + bytes(4096))
PY
ms capture --vmcore "$T/bad-shstr.core"
check_refused "vmcore with its section-header string table past the end" 3 \
	"^modsect: vmcore $T/bad-shstr\\.core: its section-header string table \\(792633534417207296 bytes at offset 248\\) is not inside the file of 4344 bytes"

ms capture --capture "$T/dir with space/my capture.cap" -o "$T/dir with space/out.cap"
check_rc "capture -o to a path with spaces: exit 0" 0
check_same "capture round trip through paths with spaces" "$T/good.cap" "$T/dir with space/out.cap"
finish
