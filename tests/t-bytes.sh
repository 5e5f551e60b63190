#!/bin/bash
# Rule 24: bytes in the target's byte order.  base/'s growing buffer
# (each order, failures kept), LEB128 (DWARF 4's examples, 7.6, and the
# edges of each byte count), string table (each string once, "\0" first,
# failure kept) and ELF-note reader (each order; cut, huge, misaligned
# notes refused without reading past them), by tests/tools/bytes.c; then
# an s390x (big-endian) module, kernel and vmlinux whose build-ids are
# read from a fake s390x tree and from the files.
# (tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
use_helper bytes

# --- LEB128: DWARF 4 figures 22 and 23, then each byte count's edges -------
cat >"$T/want" <<'X'
uleb 0 00
uleb 1 01
uleb 2 02
uleb 63 3f
uleb 64 40
uleb 127 7f
uleb 128 80 01
uleb 129 81 01
uleb 12857 b9 64
uleb 16383 ff 7f
uleb 16384 80 80 01
uleb 624485 e5 8e 26
uleb 4294967295 ff ff ff ff 0f
uleb 9223372036854775807 ff ff ff ff ff ff ff ff 7f
uleb 18446744073709551615 ff ff ff ff ff ff ff ff ff 01
sleb 0 00
sleb 1 01
sleb -1 7f
sleb 2 02
sleb -2 7e
sleb 63 3f
sleb 64 c0 00
sleb -64 40
sleb -65 bf 7f
sleb 127 ff 00
sleb -127 81 7f
sleb 128 80 01
sleb -128 80 7f
sleb 129 81 01
sleb -129 ff 7e
sleb 8191 ff 3f
sleb -8192 80 40
sleb -8193 ff bf 7f
sleb -123456 c0 bb 78
sleb 9223372036854775807 ff ff ff ff ff ff ff ff ff 00
sleb -9223372036854775808 80 80 80 80 80 80 80 80 80 7f
X
hsame "LEB128: DWARF 4's examples; 63/64/-64/-65, 127/128, INT64_MIN, UINT64_MAX" "$T/want" leb

# --- the buffer -------------------------------------------------------------
# put8, put16 (patched to 0xbeef), put32, put64, a 3-byte word, uleb 300,
# sleb -300, "ab": in each order; then a limit of 8 bytes, a patch past
# the end, a word of 9 bytes: each failure kept, nothing written after
# it; a megabyte a byte at a time.
cat >"$T/want" <<'X'
little 01 ef be 07 06 05 04 0f 0e 0d 0c 0b 0a 09 08 33 22 11 ac 02 d4 7d 61 62
big 01 be ef 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 11 22 33 ac 02 d4 7d 61 62
little: len 24 oom 0
max 8, 8 written: len 8 oom 0
then 1 more: len 8 oom 1
then nothing, a patch: len 8 oom 1
a patch past the end: len 4 oom 1
then a byte: len 4 oom 1
a word of 9 bytes: len 0 oom 1
grown: len 1048576 right 1048576 oom 0
X
hsame "buffer: words in each byte order, LEB128, a patch; each failure kept; growth" "$T/want" buf

# --- the string table -------------------------------------------------------
# "" is offset 0, each string once (no tail merging: "c" is not abc's
# tail); 20,000 strings found again; a table limited to 16 bytes: the
# add that does not fit fails, and every add after it.
cat >"$T/want" <<'X'
add "": 0 offset 0 oom 0
add "abc": 0 offset 1 oom 0
add "de": 0 offset 5 oom 0
add "abc": 0 offset 1 oom 0
add "": 0 offset 0 oom 0
add "c": 0 offset 8 oom 0
add "de": 0 offset 5 oom 0
table (10):\0abc\0de\0c\0
20000 strings: 20000 found again at their offsets, len 188891 oom 0
add "0123456789": 0 offset 1 oom 0
add "abcdef": -12 offset 0 oom 1
add "x": -12 offset 0 oom 1
add "0123456789": -12 offset 0 oom 1
add "": -12 offset 0 oom 1
X
hsame "string table: offsets, each string once, 20,000 strings; out of room kept" "$T/want" strtab

# --- ELF notes --------------------------------------------------------------
# A "Linux" note (namesz 6, padded to 8) then a build-id, little- and
# big-endian, each read in its order and in the other; cut at every
# multiple of 4 and 1 short; at an odd address; then each bound: a
# build-id of 0, 64 and 65 bytes, "GNU" without its NUL, type 4, the
# last padding cut off, 2 stray bytes, namesz and descsz near 4 GiB
# (padded, 0xfffffffd is 2^32: no wrap to 0).
cat >"$T/want" <<'X'
little: [type 1 name Linux namesz 6 descsz 4 at 20] [type 3 name GNU namesz 4 descsz 20 at 40 build-id] end then 0; build-id deadbeef0102030405060708090a0b0c0d0e0f10 (0)
little read as big: EBADMSG then 0; build-id none (0)
little cut to 0: end then 0; build-id none (0)
little cut to 4: EBADMSG then 0; build-id none (0)
little cut to 8: EBADMSG then 0; build-id none (0)
little cut to 12: EBADMSG then 0; build-id none (0)
little cut to 16: EBADMSG then 0; build-id none (0)
little cut to 20: EBADMSG then 0; build-id none (0)
little cut to 24: [type 1 name Linux namesz 6 descsz 4 at 20] end then 0; build-id none (0)
little cut to 28: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 32: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 36: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 40: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 44: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 48: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 52: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 56: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little cut to 59: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
little at an odd address: [type 1 name Linux namesz 6 descsz 4 at 20] [type 3 name GNU namesz 4 descsz 20 at 40 build-id] end then 0; build-id deadbeef0102030405060708090a0b0c0d0e0f10 (0)
big: [type 1 name Linux namesz 6 descsz 4 at 20] [type 3 name GNU namesz 4 descsz 20 at 40 build-id] end then 0; build-id deadbeef0102030405060708090a0b0c0d0e0f10 (0)
big read as little: EBADMSG then 0; build-id none (0)
big cut by 1: [type 1 name Linux namesz 6 descsz 4 at 20] EBADMSG then 0; build-id none (0)
big, 3 stray bytes after: [type 1 name Linux namesz 6 descsz 4 at 20] [type 3 name GNU namesz 4 descsz 20 at 40 build-id] EBADMSG then 0; build-id deadbeef0102030405060708090a0b0c0d0e0f10 (0)
descsz 0: [type 3 name GNU namesz 4 descsz 0 at 16] end then 0; build-id none (0)
descsz 65: [type 3 name GNU namesz 4 descsz 65 at 16] end then 0; build-id none (0)
descsz 64: [type 3 name GNU namesz 4 descsz 64 at 16 build-id] end then 0; build-id 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000 (0)
name GNU without its NUL: [type 3 name GN namesz 3 descsz 4 at 16] end then 0; build-id none (0)
type 4: [type 4 name GNU namesz 4 descsz 4 at 16] end then 0; build-id none (0)
descsz 3, its padding cut off: [type 3 name GNU namesz 4 descsz 3 at 16 build-id] end then 0; build-id 010203 (0)
descsz 3, the buffer 2 past it: [type 3 name GNU namesz 4 descsz 3 at 16 build-id] EBADMSG then 0; build-id 010203 (0)
namesz 0xffffffff: EBADMSG then 0; build-id none (0)
namesz 0xfffffffd (padded, 2^32): EBADMSG then 0; build-id none (0)
descsz 0xffffffff: EBADMSG then 0; build-id none (0)
descsz 0xfffffffd: EBADMSG then 0; build-id none (0)
X
hsame "notes: each byte order, cut, misaligned, huge sizes; the build-id only when whole" "$T/want" notes

# --- a big-endian kernel, end to end -----------------------------------------
need s390x-linux-gnu-gcc s390x-linux-gnu-ld s390x-linux-gnu-objcopy \
	s390x-linux-gnu-readelf s390x-linux-gnu-nm || finish
S=$T/s390x
R=$T/root
mkdir -p "$S" "$R/sys/module/bem/sections" "$R/sys/module/bem/notes" \
	"$R/sys/kernel" "$R/proc/sys/kernel"
printf 'int bem_data = 3;\nint bem_fn(int x) { return x + bem_data; }\n' >"$T/bem.c"
printf 'void _stext(void) { for (;;) ; }\nvoid _start(void) { _stext(); }\n' >"$T/v.c"
s390x-linux-gnu-gcc -O2 -c -o "$S/bem.o" "$T/bem.c" &&
	s390x-linux-gnu-ld -r --build-id=sha1 -o "$S/bem.ko" "$S/bem.o" &&
	s390x-linux-gnu-gcc -nostdlib -static -O2 -Wl,--build-id=sha1 \
		-o "$T/vmlinux" "$T/v.c" || bail "build the s390x module and vmlinux"
bid() { s390x-linux-gnu-readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }
note() { s390x-linux-gnu-objcopy -O binary --only-section=.note.gnu.build-id "$1" "$2"; }
MBID=$(bid "$S/bem.ko")
VBID=$(bid "$T/vmlinux")
# /sys and /proc of an s390x kernel: its notes as it keeps them, big-endian.
echo s390x >"$R/proc/sys/kernel/arch"
echo "$REL" >"$R/proc/sys/kernel/osrelease"
echo live >"$R/sys/module/bem/initstate"
echo 0x000003ff7fe1a000 >"$R/sys/module/bem/sections/.text"
echo 0x000003ff7fe1c000 >"$R/sys/module/bem/sections/.data"
note "$S/bem.ko" "$R/sys/module/bem/notes/.note.gnu.build-id"
note "$T/vmlinux" "$R/sys/kernel/notes"
STEXT=$(s390x-linux-gnu-nm "$T/vmlinux" | awk '$3 == "_stext" { print $1 }')
printf '%016x T _stext\n' $((0x$STEXT + 0x1000000)) >"$R/proc/kallsyms"
check "fixture: the notes are big-endian (namesz 4 as 00 00 00 04)" \
	[ "$(od -An -tx1 -N4 "$R/sys/kernel/notes" | tr -d ' ')" = 00000004 ]

ms capture --root "$R"
check_grep "capture: the module's build-id from its big-endian notes/, as readelf reads the file" \
	"^build-id bem $MBID\$" "$T/out"
check_grep "capture: the kernel's build-id from its big-endian /sys/kernel/notes" \
	"^kernel-build-id $VBID\$" "$T/out"
ms list --root "$R" --search "$S"
check_grep "list: the big-endian module file's build-id matches its notes/" \
	'^bem +live +0x000003ff7fe1a000 build-id ' "$T/out"
ms gdb --root "$R" --search "$S" --vmlinux "$T/vmlinux" --all --kernel
check_rc "gdb --all --kernel --vmlinux: exit 0" 0
check_grep "gdb: the big-endian vmlinux's build-id is the kernel's" \
	'^# core kernel: .*vmlinux, KASLR offset 0x1000000; verified: build-id matches the running kernel$' "$T/out"
check_grep "gdb: and the module's, its file's" \
	"^# verified: build-id $MBID matches the loaded module\$" "$T/out"

# Another build of each: refused, naming both ids.
note "$T/vmlinux" "$R/sys/module/bem/notes/.note.gnu.build-id"
ms gdb --root "$R" --search "$S" bem
check_refused "another module build: exit 3" 3 "$VBID"
check_grep "and both build-ids named" "$MBID" "$T/err"
note "$S/bem.ko" "$R/sys/module/bem/notes/.note.gnu.build-id"
note "$S/bem.ko" "$R/sys/kernel/notes"
ms gdb --root "$R" --search "$S" --vmlinux "$T/vmlinux" --all --kernel
check_refused "another vmlinux: exit 3, both build-ids named" 3 "$MBID.*$VBID"
finish
