#!/bin/bash
# Rule 16: unwind tables from ORC: every entry's CFI says what the
# kernel's unwinder does with it (read back with libdw), in each format;
# a format modsect does not know is refused, naming it; a module's
# tables are at its map addresses, its freed .init.text left out.
# (tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld as depmod objcopy gdb || finish
OC=$TEST_TOOLS/orccfi
[ -x "$OC" ] || bail "$OC missing (make test-tools)"

# --- the CFI of each format, row by row (tests/tools/orccfi.c) -------------
for v in 1 2 3 4; do
	"$OC" --synth $v >"$T/synth$v" 2>&1
	check_grep "format $v: every kind of entry (type, base registers, signal) read back with libdw as the kernel unwinds it" \
		'^checked: [0-9]+ mismatches: 0$' "$T/synth$v"
done
check_grep "format 1: entries the kernel would refuse (unknown registers, type 3) are counted, and stop" \
	'^entries: 440 rows: 440 bad: 208 version: 1 ' "$T/synth1"
check_grep "format 3: types above REGS_PARTIAL and unknown registers are counted, and stop" \
	'^entries: 440 rows: 440 bad: 120 version: 3 ' "$T/synth3"
for v in 3 4; do
	check_grep "format $v: each entry reads as what it was written to mean (registers, offsets, type, signal)" \
		'^meaning: [0-9]+ mismatches: 0$' "$T/synth$v"
done
check_grep "format 4 (7.1's register numbers): unknown registers are counted, and stop; AX is rax" \
	'^entries: 480 rows: 480 bad: 126 version: 4 ' "$T/synth4"

# The host's kernel image, if any: its own tables, cut at every function.
img=$(ls /boot/vmlinuz-* 2>/dev/null | head -1)
if [ -n "$img" ]; then
	"$OC" "$img" >"$T/img" 2>&1
	check_grep "$(basename "$img"): every ORC entry and function start read back as the kernel unwinds" \
		'^checked: [0-9]+ mismatches: 0$' "$T/img"
	detail <"$T/img"
else
	ok "# SKIP no /boot/vmlinuz-* to read"
fi

# --- the core kernel's, from --kernel-image beside a capture ----------------
# A capture of the image's own kallsyms at a KASLR offset of 0x1000000:
# `modsect kallsyms --kernel-image` moves the tables by the offset _stext
# gives, and keeps the decompressed kernel in the cache for the next run.
if [ -n "$img" ] && image_capture "$img" 0x1000000 >"$T/core.cap"; then
	bid=$BID
	STEXT=$(awk '$3 == "_stext" { print "0x" $1; exit }' "$T/kd")
	ms kallsyms --capture "$T/core.cap" --kernel-image "$img" -o "$T/k.elf"
	check_rc "kallsyms --capture --kernel-image: exit 0" 0
	"$OC" --dump "$T/k.elf" "$(hexadd "$STEXT" 0x1000000)" 0x47b7a0 >"$T/dump" 2>&1
	check_grep "its ELF's CFI has _stext's row at the runtime address" \
		"^$(hexadd "$STEXT" 0x1000000) $(hexadd "$STEXT" 0x1000000) " "$T/dump"
	check_grep "and user space, where the kernel's trace ends, stops the debugger" \
		'^0x47b7a0 0 0x100000000000000 0 ' "$T/dump"
	check_grep "the decompressed kernel is kept in the cache under the image's SHA-256" \
		"^$(sha256sum "$img" | cut -c1-64)\.bzImage" <(ls "$XDG_CACHE_HOME/modsect/kernels")
	cp "$T/k.elf" "$T/k1.elf"
	ms kallsyms --capture "$T/core.cap" --kernel-image "$img" -o "$T/k.elf"
	check "the next run, from the cache, writes the same ELF" cmp -s "$T/k.elf" "$T/k1.elf"
	sed -i 's/^kernel-build-id .*/kernel-build-id 00112233445566778899aabbccddeeff00112233/' "$T/core.cap"
	ms kallsyms --capture "$T/core.cap" --kernel-image "$img" -o "$T/k.elf"
	check_rc "an image of another build: kallsyms still written (exit 0)" 0
	"$OC" --dump "$T/k.elf" "$(hexadd "$STEXT" 0x1000000)" >"$T/dump" 2>&1
	check_grep "but with no unwind tables from it" "none$|no DWARF information" "$T/dump"
	check_grep "and a warning saying why" \
		"^modsect: warning: no unwind tables for the core kernel, .* has build-id $bid but the running kernel 00112233445566778899aabbccddeeff00112233" "$T/err"
fi

# --- formats told by .orc_header or the release -----------------------------
v() { "$OC" --header "$1" "$2" >"$T/out" 2>"$T/err"; RC=$?; }
v fe5d32bf581bd63b2ca9a5c65ba5a625eab3fe24 6.12.5
check_grep "6.4's .orc_header hash: format 3" '^version: 3$' "$T/out"
v db84aed4103b31dd51e017f8f79783ca985c2c51 6.3.10
check_grep "6.3's .orc_header hash: format 2" '^version: 2$' "$T/out"
v - 6.1.0-27-amd64
check_grep "no header, release 6.1: format 1" '^version: 1$' "$T/out"
v 137c36ad7627c4dd55932176bb0ecdbd5041fc82 7.1.0
check_grep "7.1's .orc_header hash (registers renumbered): format 4" '^version: 4$' "$T/out"
v 00112233445566778899aabbccddeeff00112233 7.1.0
check_refused "an unknown .orc_header is refused, naming it" 1 \
	'^orccfi: header: \.orc_header 00112233445566778899aabbccddeeff00112233 \(20 bytes\) is not a format modsect knows'
v 137c36ad7627c4dd55932176bb0ecdbd5041fc83 7.1.0
check_refused "7.1's hash with its last byte changed is refused" 1 \
	'^orccfi: header: \.orc_header 137c36ad7627c4dd55932176bb0ecdbd5041fc83 \(20 bytes\) is not a format'
v - 7.1.3
check_refused "no header and release 7.1 (registers renumbered): refused" 1 \
	'ORC tables of Linux 7\.1 without an \.orc_header: modsect knows their format only by its hash'
# RHEL 9 from 5.14.0-517 (9.6) has 6.4's format and no .orc_header (as
# drgn's 8660ee186377 tells it); 9.5's 5.14.0-503 the first format.
for r in 5.14.0-517.el9.x86_64 5.14.0-570.12.1.el9_6.x86_64 5.14.0-611.11.1.el9_7.x86_64; do
	v - $r
	check_grep "no header, RHEL 9 release $r: format 3" '^version: 3$' "$T/out"
done
for r in 5.14.0-503.11.1.el9_5.x86_64 5.14.0-516.el9.x86_64 5.14.0-570.fc35.x86_64 5.14.21-150500.55.19-default; do
	v - $r
	check_grep "no header, release $r: format 1" '^version: 1$' "$T/out"
done

# --- tables as those kernels write them, read back through the CFI ----------
k() { "$OC" --kernel "$1" "$2" >"$T/k$3" 2>&1; }
k 137c36ad7627c4dd55932176bb0ecdbd5041fc82 7.1.0 71
k - 5.14.0-570.12.1.el9_6.x86_64 el96
k - 5.14.0-503.11.1.el9_5.x86_64 el95
for c in "71 4 7.1 (its hash, registers renumbered)" \
	"el96 3 RHEL 9.6 (no header, 6.4's format)" \
	"el95 1 RHEL 9.5 (no header, the first format)"; do
	# shellcheck disable=SC2086 # the case's words
	set -- $c
	f=$1 ver=$2
	shift 2
	check_grep "$*: format $ver" "^version: $ver$" "$T/k$f"
	check_grep "$*: .orc_unwind_ip and .orc_unwind read back with libdw as the kernel unwinds them" \
		'^checked: [0-9]+ mismatches: 0$' "$T/k$f"
done
check_grep "7.1: each entry reads as what it was written to mean" \
	'^meaning: 480 mismatches: 0$' "$T/k71"
check_grep "RHEL 9.6: each entry reads as what it was written to mean" \
	'^meaning: 440 mismatches: 0$' "$T/kel96"
# The check above has teeth: the formats misread, as before 7.1's hash and
# the RHEL 9 rule were known, give entries that mean something else.
"$OC" --misread 4 3 >"$T/mis" 2>&1
check_grep "7.1's entries read with 6.4's register numbers: the meaning check sees it" \
	'^meaning: 480 mismatches: [1-9][0-9]*$' "$T/mis"
"$OC" --misread 3 1 >"$T/mis" 2>&1
check_grep "RHEL 9.6's (6.4's format) read as the first format: the meaning check sees it" \
	'^meaning: 440 mismatches: [1-9][0-9]*$' "$T/mis"

# --- a module's tables, at its map addresses --------------------------------
orc_fixture || bail "orc_fixture"
FUNC=$(hexadd $A_TEXT "$(symval "$KO" testmod_func)")
HELP=$(hexadd $A_TEXT "$(symval "$KO" testmod_helper)")

ms gdb --root "$R" testmod
check_rc "gdb with a module with ORC: exit 0" 0
check_grep "a comment counts its entries, the freed .init.text one left out" \
	'^# testmod: unwind tables from its ORC: 3 entries$' "$T/out"
UNW=$(sed -n "s/^python gdb.execute('add-symbol-file ' + '\(.*\)' + ' -o 0', to_string=True)$/\1/p" "$T/out")
check_grep "gdb adds the unwind file quietly, after every symbol" \
	"^python gdb\.execute\('add-symbol-file ' \+ '.*\.debug\.elf' \+ ' -o 0', to_string=True\)$" "$T/out"
check_grep "and names signal frames with a frame filter" '^gdb\.frame_filters\[' "$T/out"
"$OC" --dump "$UNW" "$FUNC" "$(hexadd "$FUNC" 4)" "$HELP" $A_INIT >"$T/dump" 2>&1
check_grep "testmod_func's first entry at its map address: CFA = rsp + 8" \
	"^$FUNC $FUNC $(hexadd "$FUNC" 4) 0 breg7\+8$" "$T/dump"
check_grep "its second, 4 bytes on: CFA = rsp + 16" \
	"^$(hexadd "$FUNC" 4) $(hexadd "$FUNC" 4) .* 0 breg7\+16$" "$T/dump"
check_grep "testmod_helper's at its map address" "^$HELP $HELP " "$T/dump"
check_grep "nothing at the freed .init.text's stale address" "^$A_INIT none$" "$T/dump"
gdb -nx -batch -ex "source $T/out" >"$T/gdb.out" 2>&1
check_nogrep "real gdb sources the script without an error" \
	'[Ee]rror|Undefined|Python Exception' "$T/gdb.out"

ms lldb --root "$R" testmod
check_nogrep "lldb's commands have no gdb Python" '^python' "$T/out"

# --- modules as 7.1 and RHEL 9.6 write them ---------------------------------
# kernel_mod DIR RELEASE CALL CALL_PREV_SP [HASH]: testmod with the ORC
# flags of a CALL entry on SP (bp_reg UNDEFINED, then PREV_SP) in that
# kernel's format, and an .orc_header of HASH if given, under ROOT DIR/root
# with release RELEASE. Sets KO and R.
kernel_mod() {
	# shellcheck disable=SC2034 # lib.sh's fixtures read REL
	local REL=$2 hdr=
	KO=$T/$1/testmod.ko
	R=$T/$1/root
	[ -n "${5:-}" ] && hdr=".section .orc_header,\"a\"
	.byte $(echo "$5" | sed 's/../0x&,/g; s/,$//')"
	mkmod "$T/$1" testmod || return 1
	cat >"$T/$1/orc.s" <<S
	.section .orc_unwind_ip,"a"
	.long testmod_func - .
	.long testmod_func + 4 - .
	.long testmod_helper - .
	.section .orc_unwind,"a"
	.short 8, 0, $3
	.short 16, -16, $4
	.short 8, 0, $3
	$hdr
	.section .note.GNU-stack,"",@progbits
S
	as -o "$T/$1/orc.o" "$T/$1/orc.s" &&
		ld -r --build-id=sha1 -o "$KO" "$T/$1/testmod.o" "$T/$1/orc.o" &&
		mkrelease "$R" && mksysmod "$R" testmod "$KO" live &&
		install_mod "$R" "$KO" drivers/misc/testmod.ko
}
# 7.1: type CALL (2), SP 3, PREV_SP 8; 6.4's format: SP 5, PREV_SP 1.
for c in "mod71 7.1.0 0x0203 0x0283 137c36ad7627c4dd55932176bb0ecdbd5041fc82 7.1's (.orc_header, registers renumbered)" \
	"model96 5.14.0-570.12.1.el9_6.x86_64 0x0205 0x0215 - RHEL 9.6's (no .orc_header, 6.4's format)"; do
	# shellcheck disable=SC2086 # the case's words
	set -- $c
	h=$5
	[ "$h" = - ] && h=
	kernel_mod "$1" "$2" "$3" "$4" "$h" || bail "kernel_mod $1"
	shift 5
	FUNC=$(hexadd "$A_TEXT" "$(symval "$KO" testmod_func)")
	ms gdb --root "$R" testmod
	check_grep "a module with $*: its 3 entries, none refused" \
		'^# testmod: unwind tables from its ORC: 3 entries$' "$T/out"
	UNW=$(sed -n "s/^python gdb.execute('add-symbol-file ' + '\(.*\)' + ' -o 0', to_string=True)$/\1/p" "$T/out")
	"$OC" --dump "$UNW" "$FUNC" "$(hexadd "$FUNC" 4)" >"$T/dump" 2>&1
	check_grep "$*: testmod_func's first entry: CFA = rsp + 8" \
		"^$FUNC $FUNC $(hexadd "$FUNC" 4) 0 breg7\+8$" "$T/dump"
	check_grep "$*: its second: CFA = rsp + 16" \
		"^$(hexadd "$FUNC" 4) $(hexadd "$FUNC" 4) .* 0 breg7\+16$" "$T/dump"
done
finish
