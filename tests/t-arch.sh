#!/bin/bash
# Kernels of another architecture than the host's (issue #13): 32-bit x86
# (ELF32, REL relocations, 32-bit addresses) and arm64 (the .plt,
# .init.plt and .text.ftrace_trampoline sections the loader fills).
# Modules built here with gcc -m32 and aarch64-linux-gnu-gcc, a capture
# with made-up addresses where those kernels put modules; the gdb script
# sets the architecture (when gdb has no target) and the lldb script makes
# an empty target of the kernel's triple, so that a fresh gdb-multiarch
# and a fresh lldb put the symbols of .text, .data, .bss and .rodata, and
# arm64's loader sections, at map address + offset; lldb with a target
# already keeps it.  The map's machine line decides; without one, the
# module files' ELF machine, which must agree.  Every machine modsect
# knows gives names the real gdb-multiarch and lldb accept (tiny ELF files
# of each machine, written by python3).
. "$(dirname "$0")/lib.sh"
need gcc ld aarch64-linux-gnu-gcc aarch64-linux-gnu-ld nm eu-readelf python3 \
	gdb gdb-multiarch lldb || finish

# archmod DIR ARCH NAME: DIR/NAME.ko for ARCH (i386 or aarch64), with pad
# symbols first in each section (the tested ones sit at non-zero offsets),
# .modinfo, __versions, .init.text, and for aarch64 the three sections of
# arch/arm64/include/asm/module.lds.h (one byte each; the loader sizes them).
archmod() {
	local dir=$1 arch=$2 name=$3 cc ld
	case $arch in
	i386) cc="gcc -m32 -fno-pic" ld="ld -m elf_i386" ;;
	aarch64) cc=aarch64-linux-gnu-gcc ld=aarch64-linux-gnu-ld ;;
	esac
	mkdir -p "$dir"
	cat >"$dir/$name.c" <<EOF
int am_data_pad = 1;
int am_data = 42;
int am_bss_pad;
int am_bss;
const int am_table_pad[4] = { 9, 9, 9, 9 };
const int am_table[4] = { 1, 2, 3, 4 };
__attribute__((section("__versions"), used)) static const char am_versions[64] = "module_layout";
static const char __UNIQUE_ID_name[] __attribute__((section(".modinfo"), used)) = "name=$name";
int am_helper(int x) { return x + am_data_pad + am_bss_pad + am_table_pad[x & 3]; }
int am_func(int x) { return x * am_data + am_table[x & 3] + am_bss++; }
__attribute__((section(".init.text"))) int am_init(void) { return am_func(3) + am_helper(1); }
#ifdef __aarch64__
asm(".pushsection .plt,\"ax\"\n.byte 0\n.popsection\n"
    ".pushsection .init.plt,\"a\"\n.byte 0\n.popsection\n"
    ".pushsection .text.ftrace_trampoline,\"ax\"\n.byte 0\n.popsection\n");
#endif
EOF
	# shellcheck disable=SC2086
	$cc -O2 -fno-toplevel-reorder -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -c -o "$dir/$name.o" "$dir/$name.c" &&
		$ld -r --build-id=sha1 -o "$dir/$name.ko" "$dir/$name.o"
}

# mkcap FILE MACHINE NAME KO SECTION=ADDR...: a capture of NAME (live)
# with KO's build-id; MACHINE - for no machine line.
mkcap() {
	local f=$1 m=$2 name=$3 ko=$4 s
	shift 4
	{
		echo "modsect-capture 1"
		echo "release 6.1.0-archtest"
		[ "$m" = - ] || echo "machine $m"
		echo "module $name live"
		echo "build-id $name $(build_id "$ko")"
		for s in "$@"; do echo "section $name ${s%%=*} ${s#*=}"; done
	} >"$f"
}

archmod "$T/m" i386 am32 2>"$T/cc.err" || bail "gcc -m32 module: $(cat "$T/cc.err")"
archmod "$T/m" aarch64 am64 2>"$T/cc.err" || bail "aarch64 module: $(cat "$T/cc.err")"
K32=$T/m/am32.ko
K64=$T/m/am64.ko
# Where Debian's 686-pae and arm64 kernels put modules (vmalloc area;
# arm64's module region below the kernel image); arm64's layout as the
# loader makes it, .plt first (header order), each section aligned.
S32=(.text=0xf8a01000 .rodata=0xf8a02000 .note.gnu.build-id=0xf8a02100
	.data=0xf8a03000 .bss=0xf8a03400 .init.text=0xf8b00000
	.symtab=0xf8b01000 .strtab=0xf8b02000)
S64=(.plt=0xffff800001a01000 .text=0xffff800001a01040
	.text.ftrace_trampoline=0xffff800001a010c0 .rodata=0xffff800001a02000
	.note.gnu.build-id=0xffff800001a02100 .data=0xffff800001a03000
	.bss=0xffff800001a03400 .init.text=0xffff800001a80000
	.init.plt=0xffff800001a80080 .symtab=0xffff800001a81000
	.strtab=0xffff800001a82000)
mkcap "$T/i386.cap" i686 am32 "$K32" "${S32[@]}"
mkcap "$T/arm64.cap" aarch64 am64 "$K64" "${S64[@]}"
# addr CAP SECTION: the section's address in the capture.
addr() { awk -v s="$2" '$1 == "section" && $3 == s { print $4 }' "$1"; }

GDB32='# architecture i386 (machine i686 in the map), set when gdb has no target (a target keeps its own); for a 32-bit kernel in qemu-system-x86_64, set architecture auto before target remote
if $_thread == 0
  set architecture i386
end'
GDB64='# architecture aarch64 (machine aarch64 in the map), set when gdb has no target (a target keeps its own); a gdb without it (Debian'"'"'s gdb on x86-64) stops here with Undefined item: use gdb-multiarch
if $_thread == 0
  set architecture aarch64
end'
LLDB32='# architecture i386-unknown-linux-gnu (machine i686 in the map): an empty target of it for an lldb with none; with one already (vmlinux, gdb-remote), target 0 is selected again and the empty one is left unused
target create --arch i386-unknown-linux-gnu ""
target select 0'
LLDB64='# architecture aarch64-unknown-linux-gnu (machine aarch64 in the map): an empty target of it for an lldb with none; with one already (vmlinux, gdb-remote), target 0 is selected again and the empty one is left unused
target create --arch aarch64-unknown-linux-gnu ""
target select 0'

# A stand-in vmlinux of each architecture, for lldb with a target.
printf 'void _start(void) { for (;;) ; }\n' >"$T/v.c"
gcc -m32 -nostdlib -static -O2 -o "$T/vmlinux32" "$T/v.c" || bail "gcc -m32 -static"
aarch64-linux-gnu-gcc -nostdlib -static -O2 -o "$T/vmlinux64" "$T/v.c" || bail "aarch64 -static"

SYMS="am_func:.text am_helper:.text am_data:.data am_bss:.bss am_table:.rodata"

for a in 32 64; do
	v=K$a K=${!v}
	v=GDB$a GDBA=${!v}
	v=LLDB$a LLDBA=${!v}
	CAP=$T/$([ $a = 32 ] && echo i386 || echo arm64).cap
	name=am$a
	ms gdb --capture "$CAP" "$name" "$K" -o "$T/$name.gdb"
	check_rc "$name: modsect gdb: exit 0" 0
	check_eq "$name: gdb script: the intro, then the architecture lines" \
		"$GDB_INTRO from @T@/$(basename "$CAP") (kernel 6.1.0-archtest)
$GDBA" "$(norm "$T/$name.gdb" | head -n 5)"
	ms lldb --capture "$CAP" "$name" "$K" -o "$T/$name.lldb"
	check_rc "$name: modsect lldb: exit 0" 0
	check_eq "$name: lldb script: the intro, then the architecture lines" \
		"$LLDB_INTRO from @T@/$(basename "$CAP") (kernel 6.1.0-archtest)
$LLDBA" "$(norm "$T/$name.lldb" | head -n 4)"

	# A fresh gdb-multiarch: the architecture, and every symbol at its
	# section's map address + its offset; x/i prints the whole address.
	cmds=(-ex 'show architecture' -ex 'p sizeof(void *)' -ex 'x/i am_func')
	for sv in $SYMS; do cmds+=(-ex "info address ${sv%%:*}"); done
	cmds+=(-ex 'maint info sections -all-objects')
	gdb-multiarch -nx -batch -x "$T/$name.gdb" "${cmds[@]}" >"$T/gdb.out" 2>&1 </dev/null
	want_arch=$([ $a = 32 ] && echo i386 || echo aarch64)
	want_size=$([ $a = 32 ] && echo 4 || echo 8)
	check_grep "$name: fresh gdb-multiarch: architecture $want_arch" \
		"^The target architecture is set to \"$want_arch\"\\.\$" "$T/gdb.out"
	check_grep "$name: fresh gdb-multiarch: sizeof(void *) is $want_size" "^\\\$1 = $want_size\$" "$T/gdb.out"
	F=$(hexadd "$(addr "$CAP" .text)" "$(symval "$K" am_func)")
	check_grep "$name: fresh gdb-multiarch: x/i am_func at $F (not cut to 32 bits)" "^ *$F <am_func>:" "$T/gdb.out"
	for sv in $SYMS; do
		s=${sv%%:*} sec=${sv#*:}
		off=$(symval "$K" "$s")
		check_eq "$name: gdb-multiarch: &$s = $sec $(addr "$CAP" "$sec") + $off" \
			"$(hexadd "$(addr "$CAP" "$sec")" "$off")" "$(gdb_addr_of "$s")"
	done
	[ "$(symval "$K" am_data)" != 0x0 ] && [ "$(symval "$K" am_func)" != 0x0 ]
	check "$name: fixture: tested symbols are at non-zero offsets" [ $? = 0 ]

	# lldb, fresh and with a target (the stand-in vmlinux of that
	# architecture): image lookup -a of each symbol's address names it.
	: >"$T/lookups"
	for sv in $SYMS; do
		s=${sv%%:*} sec=${sv#*:}
		echo "image lookup -a $(hexadd "$(addr "$CAP" "$sec")" "$(symval "$K" "$s")")" >>"$T/lookups"
	done
	for pre in fresh "target create $T/vmlinux$a"; do
		args=()
		[ "$pre" = fresh ] || args=(-o "$pre")
		lldb -b "${args[@]}" -o "command source $T/$name.lldb" \
			-o "command source -e false $T/lookups" -o "target list" \
			>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
		what=$([ "$pre" = fresh ] && echo "fresh lldb" || echo "lldb with a target")
		for sv in $SYMS; do
			s=${sv%%:*} sec=${sv#*:}
			A=$(hexadd "$(addr "$CAP" "$sec")" "$(symval "$K" "$s")")
			if grep -A3 -F "image lookup -a $A" "$T/lldb.out" |
				grep -Eq "Summary: ([0-9a-f]*$name\\.ko\`|[0-9a-f]{64}\\.ko\`)?$s\$"; then
				ok "$name: $what: image lookup -a $A is $s"
			else
				not_ok "$name: $what: image lookup -a $A is $s" "$(cat "$T/lldb.out")"
			fi
		done
		tl=$(sed -n '/^(lldb) target list$/,$p' "$T/lldb.out" | grep 'target #')
		if [ "$pre" = fresh ]; then
			# i386: lldb's copy of the module (its rules from code)
			want="^\\* target #0: ($K|.*/[0-9a-f]{64}\\.ko) \\( arch=$([ $a = 32 ] && echo i386 || echo aarch64)-"
			n=1
		else
			want="^\\* target #0: $T/vmlinux$a "
			n=2
		fi
		if grep -Eq "$want" <<<"$tl" && [ "$(wc -l <<<"$tl")" = $n ]; then
			ok "$name: $what: target 0 selected, the module in it ($n target(s))"
		else
			not_ok "$name: $what: target 0 selected, the module in it ($n target(s))" "$(cat "$T/lldb.out")"
		fi
	done
done

# ---- i386: lldb's copy with the module's rules from code ------------------
# lldb 14 applies no REL relocation, so each FDE of the copy's .debug_frame
# is at lldb's own file address of its function: lldb's placing of the
# sections (`image dump sections` of the copy, not loaded) + the offset.
ms lldb --capture "$T/i386.cap" am32 "$K32" -o "$T/am32u.lldb"
check_grep "am32: lldb: the rules from code are in lldb's copy" \
	"^# am32: unwind tables from its code \([0-9]+ functions\) in lldb's copy of its file$" "$T/am32u.lldb"
COPY=$(sed -n 's/^target modules add "\(.*\)"$/\1/p' "$T/am32u.lldb")
lldb -b -o "target create --arch i386 \"$COPY\"" -o "image dump sections" >"$T/lsec.out" 2>&1 </dev/null
TEXT=$(sed -n 's/.*code *\[\(0x[0-9a-f]*\)-.*\.ko\.\.text$/\1/p' "$T/lsec.out")
readelf -wf "$COPY" >"$T/fde.out" 2>&1
for f in am_helper am_func; do
	want=$(printf '%08x' $((TEXT + $(symval "$K32" $f))))
	check_grep "am32: lldb's copy: $f's FDE at lldb's .text ($TEXT) + its offset" \
		" FDE cie=[0-9a-f]+ pc=$want\.\." "$T/fde.out"
done
check_nogrep "am32: lldb's copy: no DWARF of its own left (lldb would misread it)" \
	"^ *\[ *[0-9]+\] \.(debug|rel\.debug)_(info|line)" <(readelf -SW "$COPY")

# ---- arm64: the loader's sections, at their map addresses ----------------
ms gdb --capture "$T/arm64.cap" --init am64 "$K64" -o "$T/am64-init.gdb"
check_rc "am64: gdb --init: exit 0" 0
gdb-multiarch -nx -batch -x "$T/am64-init.gdb" -ex 'maint info sections -all-objects' \
	-ex 'info address am_init' >"$T/gdb.out" 2>&1 </dev/null
for s in .plt .text.ftrace_trampoline .init.plt .init.text; do
	A=$(addr "$T/arm64.cap" "$s")
	check_grep "am64: gdb-multiarch: $s at $A" "^ *\\[[0-9]+\\] +$A->0x[0-9a-f]+ at 0x[0-9a-f]+: $s " "$T/gdb.out"
done
check_eq "am64: gdb --init: &am_init = .init.text + offset" \
	"$(hexadd "$(addr "$T/arm64.cap" .init.text)" "$(symval "$K64" am_init)")" "$(gdb_addr_of am_init)"
ms lldb --capture "$T/arm64.cap" --init am64 "$K64" -o "$T/am64-init.lldb"
: >"$T/lookups"
for s in .plt .text.ftrace_trampoline .init.plt; do
	echo "image lookup -a $(addr "$T/arm64.cap" "$s")" >>"$T/lookups"
done
lldb -b -o "command source $T/am64-init.lldb" -o "command source -e false $T/lookups" \
	>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
for s in .plt .text.ftrace_trampoline .init.plt; do
	A=$(addr "$T/arm64.cap" "$s")
	if grep -A3 -F "image lookup -a $A" "$T/lldb.out" | grep -Fq "(am64.ko.$s + 0)"; then
		ok "am64: lldb: image lookup -a $A is $s + 0"
	else
		not_ok "am64: lldb: image lookup -a $A is $s + 0" "$(cat "$T/lldb.out")"
	fi
done
# The control: without the architecture lines gdb-multiarch starts as
# i386 and cuts the address.
sed '/^if \$_thread == 0$/,/^end$/d' "$T/am64.gdb" >"$T/noarch.gdb"
gdb-multiarch -nx -batch -x "$T/noarch.gdb" -ex 'x/i am_func' >"$T/gdb.out" 2>&1 </dev/null
F=$(hexadd "$(addr "$T/arm64.cap" .text)" "$(symval "$K64" am_func)")
CUT=$(printf '0x%x' $((F & 0xffffffff)))
check_grep "control: without set architecture, gdb-multiarch shows am_func at $CUT (cut to 32 bits)" \
	"^ *$CUT <am_func>:" "$T/gdb.out"
# A gdb without aarch64 (Debian's gdb on x86-64) stops at the set, as the
# comment says; one with it loads the module.
if gdb -nx -batch -ex 'set architecture aarch64' >/dev/null 2>&1; then
	gdb -nx -batch -x "$T/am64.gdb" -ex 'info address am_func' >"$T/gdb.out" 2>&1 </dev/null
	check_eq "gdb (knows aarch64): &am_func" "$F" "$(gdb_addr_of am_func)"
else
	gdb -nx -batch -x "$T/am64.gdb" -ex 'info address am_func' >"$T/gdb.out" 2>&1 </dev/null
	if grep -q 'Undefined item: "aarch64"' "$T/gdb.out" && grep -q 'No symbol "am_func"' "$T/gdb.out"; then
		ok "gdb without aarch64: the script stops at set architecture (Undefined item), nothing loaded"
	else
		not_ok "gdb without aarch64: the script stops at set architecture (Undefined item), nothing loaded" "$(cat "$T/gdb.out")"
	fi
fi
gdb -nx -batch -x "$T/am32.gdb" -ex 'info address am_func' >"$T/gdb.out" 2>&1 </dev/null
check_eq "gdb (x86): the i386 script loads, &am_func" \
	"$(hexadd "$(addr "$T/i386.cap" .text)" "$(symval "$K32" am_func)")" "$(gdb_addr_of am_func)"

# ---- i386: 32-bit addresses, parking ----------------------------------------
ms sections --capture "$T/i386.cap" --json am32 "$K32"
check_eq "am32: sections --json: .text address, not sign-extended" \
	"0x00000000f8a01000 0x00000000f8a01000" \
	"$(jq_py "$T/out" 'S[".text"]["address"] + " " + S[".text"]["debugger_address"]')"
check_eq "am32: sections --json: .modinfo and freed .init.text parked from 0x0bad0000" \
	"True True" \
	"$(jq_py "$T/out" '" ".join(str(0x0bad0000 <= int(S[n]["debugger_address"], 16) < 0x0bae0000) for n in (".modinfo", ".init.text"))')"
ms sections --capture "$T/i386.cap" am32 "$K32"
check_grep "am32: sections: .bss at 0x00000000f8a03400" '^\.bss +0x00000000f8a03400 ' "$T/out"
F=$(hexadd 0xf8a01000 "$(symval "$K32" am_func)")
ms resolve --capture "$T/i386.cap" --search "$T/m" "$F"
check_grep "am32: resolve $F: am_func+0x0 [am32] .text" "^0x0*${F#0x}: am_func\\+0x0/0x[0-9a-f]+ \\[am32\\] \\.text\\+" "$T/out"
# Low addresses (a NULL pointer plus an offset) name no module symbol; the
# sections the kernel did not load are in user space, at 0x0bad0000.
gdb -nx -batch -x "$T/am32.gdb" -ex 'info symbol 0x0' -ex 'info symbol 0x10' \
	-ex 'info symbol 0x40' -ex 'info address __UNIQUE_ID_name' >"$T/gdb.out" 2>&1 </dev/null
check_eq "am32: gdb: info symbol 0x0, 0x10, 0x40 name no symbol" 3 \
	"$(grep -cE '^No symbol matches 0x(0|10|40)\.$' "$T/gdb.out")"
a=$(gdb_addr_of __UNIQUE_ID_name)
if [ -n "$a" ] && [ $((a >> 16)) = $((0x0bad)) ]; then
	ok "am32: gdb: .modinfo's __UNIQUE_ID_name parked at $a"
else
	not_ok "am32: gdb: .modinfo's __UNIQUE_ID_name parked at 0x0bad...." "got '$a'" "$(cat "$T/gdb.out")"
fi

# ---- no machine line: the module files say -------------------------------
mkcap "$T/nomach.cap" - am32 "$K32" "${S32[@]}"
ms gdb --capture "$T/nomach.cap" am32 "$K32"
check_eq "no machine line: gdb sets the files' architecture" \
	"# architecture i386 (i686 module files; the map has no machine line), set when gdb has no target (a target keeps its own); for a 32-bit kernel in qemu-system-x86_64, set architecture auto before target remote
  set architecture i386" "$(sed -n '2p;4p' "$T/out")"
ms lldb --capture "$T/nomach.cap" am32 "$K32"
check_eq "no machine line: lldb makes an i386 target" 'target create --arch i386-unknown-linux-gnu ""' "$(sed -n 3p "$T/out")"
sed 's/^machine i686$/machine mips/' "$T/i386.cap" >"$T/mips.cap"
ms gdb --capture "$T/mips.cap" am32 "$K32"
check_grep "a machine modsect does not know: the files' architecture, said so" \
	"^# architecture i386 \\(i686 module files; the map's machine mips is not one modsect knows\\)" "$T/out"
# Two modules of different machines and no machine line: refused.
{
	grep -v '^machine ' "$T/i386.cap"
	grep '^section am64 \|^module am64\|^build-id am64' "$T/arm64.cap"
} >"$T/mixed.cap"
for dbg in gdb lldb; do
	ms $dbg --capture "$T/mixed.cap" --all --search "$T/m"
	check_refused "$dbg --all, no machine line, i386 and aarch64 files: refused naming both" 3 \
		'am(32|64)\.ko is for (i686|aarch64) \(ELF machine (3|183), (32|64)-bit\) but .*am(32|64)\.ko is for (i686|aarch64) .*without a machine line'
done
# A map that says i686 refuses the aarch64 file, and the reverse.
ms gdb --capture "$T/i386.cap" am32 "$K64"
check_refused "i686 map, aarch64 file: refused" 3 'is for aarch64 \(ELF machine 183, 64-bit\), but the kernel is i686'

# ---- every machine modsect knows: names gdb-multiarch and lldb accept -------
# mkelf FILE CLASS DATA MACHINE: a relocatable ELF with a 16-byte .text.
mkelf() {
	python3 - "$@" <<'PY'
import struct, sys
path, cls, data, em = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
e = '<' if data == 'lsb' else '>'
shstr, text = b'\0.text\0.shstrtab\0', b'\0' * 16
ehsize, shentsize = (64, 64) if cls == 64 else (52, 40)
shoff = (ehsize + len(text) + len(shstr) + 7) & ~7
ident = b'\x7fELF' + bytes([2 if cls == 64 else 1, 1 if data == 'lsb' else 2, 1]) + b'\0' * 9
if cls == 64:
    hdr = ident + struct.pack(e + 'HHIQQQIHHHHHH', 1, em, 1, 0, 0, shoff, 0, ehsize, 0, 0, shentsize, 3, 2)
    sh = lambda n, t, f, o, s, a: struct.pack(e + 'IIQQQQIIQQ', n, t, f, 0, o, s, 0, 0, a, 0)
else:
    hdr = ident + struct.pack(e + 'HHIIIIIHHHHHH', 1, em, 1, 0, 0, shoff, 0, ehsize, 0, 0, shentsize, 3, 2)
    sh = lambda n, t, f, o, s, a: struct.pack(e + 'IIIIIIIIII', n, t, f, 0, o, s, 0, 0, a, 0)
b = hdr + text + shstr
b += b'\0' * (shoff - len(b))
b += sh(0, 0, 0, 0, 0, 0) + sh(1, 1, 6, ehsize, len(text), 4) + sh(7, 3, 0, ehsize + len(text), len(shstr), 1)
open(path, 'wb').write(b)
PY
}
# machine class data e_machine .text-address gdb-name lldb-arch (as lldb shows it)
while read -r m cls data em at gname larch; do
	mkelf "$T/$m.ko" "$cls" "$data" "$em"
	printf 'modsect-capture 1\nmachine %s\nmodule xmod live\nsection xmod .text %s\n' "$m" "$at" >"$T/$m.cap"
	ms gdb --capture "$T/$m.cap" xmod "$T/$m.ko" -o "$T/$m.gdb"
	check_eq "$m: gdb script sets architecture $gname" "  set architecture $gname" "$(sed -n 4p "$T/$m.gdb")"
	gdb-multiarch -nx -batch -x "$T/$m.gdb" -ex 'maint info sections -all-objects' >"$T/gdb.out" 2>&1 </dev/null
	if grep -q "^The target architecture is set to \"$gname\"\\.\$" "$T/gdb.out" &&
		grep -Eq "^ *\\[0\\] +$at->" "$T/gdb.out" && ! grep -qi 'error\|undefined' "$T/gdb.out"; then
		ok "$m: gdb-multiarch takes the script: $gname, .text at $at"
	else
		not_ok "$m: gdb-multiarch takes the script: $gname, .text at $at" "$(cat "$T/gdb.out")"
	fi
	ms lldb --capture "$T/$m.cap" xmod "$T/$m.ko" -o "$T/$m.lldb"
	lldb -b -o "command source $T/$m.lldb" -o "image lookup -a $at" -o "target list" \
		>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
	if [ "$m" = ppc64 ]; then
		# lldb 14 takes every EM_PPC64 file for powerpc64le: it refuses a
		# big-endian one for the powerpc64 target the script makes
		# (`target create --arch powerpc64-unknown-linux-gnu FILE`: "not
		# compatible with 'powerpc64le-*-*'"; `target modules add`: "does
		# not exist").  Its own limit; gdb-multiarch takes it.
		check_grep "$m: lldb 14 refuses the big-endian file for $larch (its own limit)" \
			"^error: '$T/$m.ko' does not exist" "$T/lldb.err"
	elif grep -Fq "($m.ko..text + 0)" "$T/lldb.out" &&
		grep -Eq "^\\* target #0: $T/$m\\.ko \\( arch=$larch-" "$T/lldb.out" && ! grep -q '^error' "$T/lldb.out"; then
		ok "$m: lldb takes the script: a $larch target, .text at $at"
	else
		not_ok "$m: lldb takes the script: a $larch target, .text at $at" "$(cat "$T/lldb.out")"
	fi
done <<'X'
x86_64 64 lsb 62 0xffffffffc0a01000 i386:x86-64 x86_64
aarch64 64 lsb 183 0xffff800001a01000 aarch64 aarch64
riscv64 64 lsb 243 0xffffffff01a01000 riscv:rv64 riscv64
ppc64le 64 lsb 21 0xc008000001a01000 powerpc:common64 powerpc64le
ppc64 64 msb 21 0xc008000001a01000 powerpc:common64 powerpc64
s390x 64 msb 22 0x3ff80a01000 s390:64-bit s390x
i686 32 lsb 3 0xf8a01000 i386 i386
armv7l 32 lsb 40 0xbf001000 arm arm
X

# An i386 module with DWARF: lldb 14 does not apply R_386_32 relocations
# to the DWARF of a relocatable file, and would name functions by their
# neighbours' ranges. Its script loads a cache copy whose .debug_* are
# .Debug_* (symbols only, said in a comment); gdb's reads the DWARF.
mkdir -p "$T/g"
sed 's/^}$/}/' "$T/m/am32.c" >"$T/g/amg.c"
sed -i 's/name=am32/name=amg/' "$T/g/amg.c"
gcc -m32 -fno-pic -g -O2 -fno-toplevel-reorder -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -c -o "$T/g/amg.o" "$T/g/amg.c" &&
	ld -m elf_i386 -r --build-id=sha1 -o "$T/g/amg.ko" "$T/g/amg.o" || bail "amg.ko"
KG=$T/g/amg.ko
mkcap "$T/g.cap" i686 amg "$KG" "${S32[@]}"
ms lldb --capture "$T/g.cap" --cache-dir "$T/gcache" amg "$KG" -o "$T/amg.lldb"
check_rc "amg (i386, DWARF): modsect lldb: exit 0" 0
check_grep "amg: the lldb script says its DWARF is hidden, and why" '^# lldb gets a copy without the DWARF \(symbols only\): lldb 14 does not apply its REL relocations' "$T/amg.lldb"
lf=$(sed -n 's/^target modules add "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$T/amg.lldb")
check "amg: lldb loads a copy in the cache" [ "${lf#"$T/gcache/"}" != "$lf" ]
check_eq "amg: the copy's .debug_* sections are .Debug_*, and a .debug_frame of modsect's (the rules from code)" \
	"1 $(readelf -SW "$KG" | grep -c ' \.debug_') .debug_frame" \
	"$(readelf -SW "$lf" | grep -c ' \.debug_') $(readelf -SW "$lf" | grep -c ' \.Debug_') $(readelf -SW "$lf" | grep -o '\.debug_[a-z]*')"
# One byte a name; .rel.debug_X and .debug_X may share their bytes. Past
# the ELF header (the section headers' new place, one more) and up to the
# module's size: what lldb's copy adds comes after it.
nb=$(cmp -l <(tail -c +53 "$KG") <(head -c "$(stat -c %s "$KG")" "$lf" | tail -c +53) | wc -l)
check "amg: the copy differs from the module only in those names' d ($nb bytes)" \
	[ "$nb" -ge 1 ] && [ "$nb" -le "$(readelf -SW "$KG" | grep -c '\.debug_')" ] &&
	[ -z "$(cmp -l <(tail -c +53 "$KG") <(head -c "$(stat -c %s "$KG")" "$lf" | tail -c +53) | awk '$2 != 144 || $3 != 104')" ]
fa=$(hexadd 0xf8a01000 "$(symval "$KG" am_func)")
ha=$(hexadd 0xf8a01000 "$(symval "$KG" am_helper)")
lldb -b -o "command source $T/amg.lldb" -o "image lookup -a $fa" -o "image lookup -a $ha" \
	>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
check_eq "amg: fresh lldb: image lookup -a names am_func and am_helper at offset 0" \
	"am_func am_helper" \
	"$(sed -n 's/^ *Summary: [^`]*`\([a-z_]*\)$/\1/p' "$T/lldb.out" | tr '\n' ' ' | sed 's/ $//')"
# The same for 32-bit ARM (R_ARM_ABS32; Debian's armmp modules).
if command -v arm-linux-gnueabihf-gcc >/dev/null; then
	mkdir -p "$T/ga"
	sed 's/name=amg/name=amga/' "$T/g/amg.c" >"$T/ga/amga.c"
	arm-linux-gnueabihf-gcc -marm -g -O2 -fno-toplevel-reorder -c -o "$T/ga/amga.o" "$T/ga/amga.c" &&
		arm-linux-gnueabihf-ld -r --build-id=sha1 -o "$T/ga/amga.ko" "$T/ga/amga.o" || bail "amga.ko"
	KA=$T/ga/amga.ko
	mkcap "$T/ga.cap" armv7l amga "$KA" "${S32[@]}"
	ms lldb --capture "$T/ga.cap" --cache-dir "$T/gcache" amga "$KA" -o "$T/amga.lldb"
	check_grep "amga (ARM, DWARF): the lldb script says its DWARF is hidden" '^# lldb gets a copy without the DWARF' "$T/amga.lldb"
	fa2=$(hexadd 0xf8a01000 "$(symval "$KA" am_func)")
	ha2=$(hexadd 0xf8a01000 "$(symval "$KA" am_helper)")
	lldb -b -o "command source $T/amga.lldb" -o "image lookup -a $fa2" -o "image lookup -a $ha2" \
		>"$T/lldb.out" 2>"$T/lldb.err" </dev/null
	check_eq "amga: fresh lldb: image lookup -a names am_func and am_helper at offset 0" \
		"am_func am_helper" \
		"$(sed -n 's/^ *Summary: [^`]*`\([a-z_]*\)$/\1/p' "$T/lldb.out" | tr '\n' ' ' | sed 's/ $//')"
fi
ms gdb --capture "$T/g.cap" --cache-dir "$T/gcache" amg "$KG" -o "$T/amg.gdb"
check_nogrep "amg: the gdb script loads the module itself" 'Debug\|cache' "$T/amg.gdb"
gdb -nx -batch -x "$T/amg.gdb" -ex "info line *$fa" >"$T/gdb.out" 2>&1 </dev/null
check_grep "amg: gdb has the DWARF: a line of amg.c at am_func" 'Line [0-9]+ of ".*amg\.c"' "$T/gdb.out"
finish
