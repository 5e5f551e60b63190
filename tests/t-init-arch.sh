#!/bin/bash
# Rule 4 per architecture: what a live module has freed is what its
# kernel's module_init_section() says (lib/module/layout.c
# ms_section_is_init cites the source). x86-64 (the generic rule): .init.*
# freed, parked. ppc64le: 64-bit powerpc frees nothing, so .init.text is
# live code at its map address, in gdb and in resolve. 32-bit arm: the
# unwind tables of init code (.ARM.exidx.init.text, built here with
# -funwind-tables) are freed with .init.text, while .ARM.exidx stays.
# Modules cross-built here (gcc, powerpc64le-linux-gnu-gcc,
# arm-linux-gnueabihf-gcc), captures with the machine line of each kernel.
. "$(dirname "$0")/lib.sh"
need gcc ld powerpc64le-linux-gnu-gcc powerpc64le-linux-gnu-ld \
	arm-linux-gnueabihf-gcc arm-linux-gnueabihf-ld eu-readelf || finish

M=$T/m
cat >"$T/im.c" <<'EOF'
int im_data = 42;
int im_bss;
__attribute__((noinline)) int im_func(int x) { return x * im_data + im_bss++; }
__attribute__((section(".init.text"))) int im_init(void) { return im_func(3) + 1; }
static const char __UNIQUE_ID_name[] __attribute__((section(".modinfo"), used)) = "name=im";
EOF
# build ARCH CC LD CFLAGS...
build() {
	local a=$1 cc=$2 ld=$3
	shift 3
	mkdir -p "$M/$a"
	"$cc" -O2 "$@" -c -o "$M/$a/im.o" "$T/im.c" &&
		"$ld" -r --build-id=sha1 -o "$M/$a/im.ko" "$M/$a/im.o"
}
build x86 gcc ld -fno-pic -mcmodel=kernel -fno-asynchronous-unwind-tables ||
	bail "build the x86-64 module"
build ppc powerpc64le-linux-gnu-gcc powerpc64le-linux-gnu-ld -mcmodel=medium ||
	bail "build the ppc64le module"
build arm arm-linux-gnueabihf-gcc arm-linux-gnueabihf-ld -funwind-tables ||
	bail "build the arm module"
eu-readelf -S "$M/arm/im.ko" | grep -q ' \.ARM\.exidx\.init\.text ' ||
	bail "the arm module has no .ARM.exidx.init.text"

# mkcap FILE MACHINE KO BASE: a capture of KO loaded live at BASE, each
# allocated section of the file 0x1000 further.
mkcap() {
	local a=$4
	{
		echo "modsect-capture 1"
		echo "release 6.1.0-57-test"
		echo "machine $2"
		echo "module im live"
		eu-readelf -S "$3" | awk '$0 ~ /^ *\[ *[0-9]+\]/ && $0 ~ / A/ { sub(/^ *\[ *[0-9]+\] */, ""); print $1 }' |
			grep -v '^\.modinfo$' | while read -r s; do
			printf 'section im %s 0x%x\n' "$s" "$a"
			a=$((a + 0x1000))
		done
	} >"$1"
}
mkcap "$T/x86.cap" x86_64 "$M/x86/im.ko" 0xffffffffc0a00000
mkcap "$T/ppc.cap" ppc64le "$M/ppc/im.ko" $((0xc008000000a00000))
mkcap "$T/arm.cap" armv7l "$M/arm/im.ko" 0x7f000000
addr_of() { awk -v s="$2" '$3 == s { print $4 }' "$1"; }

# x86-64: the generic rule.
ms gdb --capture "$T/x86.cap" --search "$M/x86" im
check_grep "x86_64: live .init.text parked" ' -s \.init\.text 0xbad[0-9a-f]{12}( |$)' "$T/out"
check_grep "x86_64: a comment says .init.text was freed" '^# \.init\.text: freed after init' "$T/out"

# ppc64le: nothing freed.
INIT=$(addr_of "$T/ppc.cap" .init.text)
ms gdb --capture "$T/ppc.cap" --search "$M/ppc" im
check_grep "ppc64le: live .init.text at its map address (64-bit powerpc frees no init section)" \
	" -s \\.init\\.text $INIT( |\$)" "$T/out"
check_nogrep "ppc64le: nothing parked as freed after init" 'freed after init' "$T/out"
OFF=$(eu-readelf -s "$M/ppc/im.ko" | awk '$8 == "im_init" { print $2; exit }')
ms resolve --capture "$T/ppc.cap" --search "$M/ppc" "$(printf '0x%x' $((INIT + 16#$OFF + 4)))"
check_grep "ppc64le: resolve names im_init+0x4 in the live .init.text" 'im_init\+0x4' "$T/out"
ms resolve --capture "$T/x86.cap" --search "$M/x86" "$(addr_of "$T/x86.cap" .init.text)"
check_nogrep "x86_64: resolve names nothing in the freed .init.text" 'im_init' "$T/out"

# 32-bit arm: .init.* and the init unwind tables freed, .ARM.exidx kept.
ms gdb --capture "$T/arm.cap" --search "$M/arm" im
check_grep "armv7l: live .init.text parked" ' -s \.init\.text 0xbad[0-9a-f]{4}( |$)' "$T/out"
check_grep "armv7l: live .ARM.exidx.init.text parked (module_init_section of arch/arm)" \
	' -s \.ARM\.exidx\.init\.text 0xbad[0-9a-f]{4}( |$)' "$T/out"
check_grep "armv7l: .ARM.exidx at its map address" \
	" -s \\.ARM\\.exidx $(addr_of "$T/arm.cap" .ARM.exidx)( |\$)" "$T/out"
finish
