#!/bin/bash
# Rule 18: types from BTF: every DIE modsect writes from a BTF, read back
# with libdw, has the tag, name, size, offsets and references of the BTF
# type it came from; gdb prints them as C declares them; functions are
# subprograms at their kallsyms addresses with BTF's prototype (a name
# with two addresses left out), per-cpu variables at CPU 0's copy; BTF
# comes live (/sys/kernel/btf/vmlinux), in a capture (--btf) or from the
# kernel image beside a capture (checked by build-id); what libbpf
# refuses is dropped with one warning; a module without DWARF gets its
# split BTF's types. (tests/README.md, "The rules".)
. "$(dirname "$0")/lib.sh"
need gcc ld objcopy strip readelf gdb lldb python3 || finish
BD=$TEST_TOOLS/btfdwarf
BS=$TEST_TOOLS/btfsynth
[ -x "$BD" ] && [ -x "$BS" ] || bail "$BD or $BS missing (make test-tools)"

# --- the converter, read back with libdw (tests/tools/btfdwarf.c) ----------
"$BS" "$T/synth.btf" || bail "btfsynth"
"$BS" "$T/synth.btf" --split "$T/synth.btf" "$T/mod.btf" || bail "btfsynth --split"
"$BD" "$T/synth.btf" "$T/synth.elf" >"$T/conv" 2>&1
check_grep "every kind (ints, float, struct with bitfields and anonymous members, union, enum, 64-bit enum, forward declarations, typedef, qualifiers, type tag, arrays, flexible array, prototypes with varargs): each DIE as BTF says" \
	'^checked: 40 mismatches: 0$' "$T/conv"
"$BD" --base "$T/synth.btf" "$T/mod.btf" >"$T/conv" 2>&1
check_grep "split BTF: the module's own types, the base's named structs as declarations" \
	'^checked: 4 mismatches: 0$' "$T/conv"
img=$(ls /boot/vmlinuz-* 2>/dev/null | head -1)
if [ -n "$img" ] && "$BD" --extract "$img" "$T/img.btf" 2>/dev/null; then
	"$BD" "$T/img.btf" >"$T/conv" 2>&1
	check_grep "$(basename "$img"): each of its BTF types read back as BTF says" \
		'^checked: [0-9]{5,} mismatches: 0$' "$T/conv"
	detail <"$T/conv"
else
	ok "# SKIP no /boot/vmlinuz-* with BTF"
fi

# --- live: /sys/kernel/btf/vmlinux and kallsyms ----------------------------
R=$T/root
mkrelease "$R"
mkdir -p "$R/sys/module" "$R/sys/kernel/btf"
cp "$T/synth.btf" "$R/sys/kernel/btf/vmlinux"
cat >"$R/proc/kallsyms" <<'EOF'
0000000000000000 A __per_cpu_start
0000000000000008 A synth_counter
ffffffff81000000 T _stext
ffffffff81000100 T synth_fn
ffffffff81000180 t synth_twice
ffffffff81000200 t synth_twice
ffffffff81000300 T _etext
ffffffff82000000 D __per_cpu_offset
ffffffff82000100 D synth_global
ffffffff82000200 D _edata
EOF
ms kallsyms --root "$R" -o "$T/k.elf"
check_rc "kallsyms with /sys/kernel/btf/vmlinux: exit 0" 0
gdb -q -nx -batch -ex "file $T/k.elf" -ex 'ptype struct synth_bits' \
	-ex 'ptype synth_fn' -ex 'info scope synth_fn' -ex 'whatis synth_twice' \
	-ex 'ptype synth_counter' -ex 'info address synth_counter' \
	-ex 'ptype synth_global' -ex 'info address synth_global' \
	-ex 'p (int)SYNTH_NEG' -ex 'p/x SYNTH_BIG' -ex 'ptype struct synth_mod' \
	>"$T/gdb" 2>&1
cat >"$T/want" <<'EOF'
type = struct synth_bits {
    unsigned int lo : 3;
    unsigned int mid : 9;
    int neg : 4;
    _Bool flag;
    struct {
        int a;
        int b;
    };
    union synth_val val;
    enum synth_sgn s;
    enum synth_big big;
    synth_void_t *vp;
    volatile int vol;
    const void * restrict rp;
    char *up;
    int (*cb)(int, ...);
    long m[2][3];
    struct synth_fwd *f;
    union synth_fwdu *fu;
    enum synth_opaque *eo;
    struct synth_empty e;
    __int128 wide;
    char tail[];
}
type = int (struct synth_bits *, unsigned long)
Scope for synth_fn:
Symbol bits is optimized out.
Symbol n is optimized out.
type = <text variable, no debug info>
type = long
Symbol "synth_counter" is a complex DWARF expression:
     0: DW_OP_addr 0xffffffff82000000
     9: DW_OP_deref
    10: DW_OP_plus_uconst 8
.
type = const int
Symbol "synth_global" is static storage at address 0xffffffff82000100.
$1 = -2
$2 = 0xfedcba9876543210
No struct type named synth_mod.
EOF
check "gdb: ptype as C declares it; synth_fn's prototype and parameter names; synth_twice (two addresses) left a minimal symbol; the per-cpu variable's location computed, the global's at its address; enum values signed and 64-bit" \
	diff -u "$T/want" "$T/gdb"
detail <"$T/gdb"

# --- a capture carries it (--btf) ------------------------------------------
ms capture --root "$R" --kallsyms --btf -o "$T/cap"
check_rc "capture --kallsyms --btf: exit 0" 0
check_grep "the capture says its size, then the bytes" "^btf-size $(stat -c %s "$T/synth.btf")\$" "$T/cap"
ms kallsyms --capture "$T/cap" -o "$T/kc.elf"
check "kallsyms from the capture: the same ELF as live" cmp -s "$T/k.elf" "$T/kc.elf"
sed '$d' "$T/cap" >"$T/cap-cut"
ms kallsyms --capture "$T/cap-cut" -o "$T/kx.elf"
check_refused "a capture whose BTF is cut short is refused, saying so" 3 'the BTF is cut short'
mkdir -p "$T/nobtf/sys/module"
mkrelease "$T/nobtf"
cp "$R/proc/kallsyms" "$T/nobtf/proc/kallsyms"
ms capture --root "$T/nobtf" --btf -o "$T/cap2"
check_refused "capture --btf with no /sys/kernel/btf/vmlinux: an error, no capture" 1 \
	'no BTF to capture: .*sys/kernel/btf/vmlinux.*CONFIG_DEBUG_INFO_BTF'
check "and no file written" test ! -e "$T/cap2"

# --- a 32-bit kernel: 4-byte addresses in the DWARF -------------------------
{
	echo "modsect-capture 1"
	echo "machine i686"
	echo "core c1000000 T _stext"
	echo "core c1000100 T synth_fn"
	echo "core c1000300 T _etext"
	echo "core c2000100 D synth_global"
	echo "core c2000200 D _edata"
	grep '^btf' "$T/cap"
} >"$T/cap32"
ms kallsyms --capture "$T/cap32" -o "$T/k32.elf"
check_rc "kallsyms of an i686 capture with BTF: exit 0" 0
gdb -q -nx -batch -ex "file $T/k32.elf" -ex 'ptype synth_fn' \
	-ex 'info address synth_global' >"$T/gdb" 2>&1
check "gdb reads its 32-bit DWARF: the prototype, the variable's address" \
	diff -u - "$T/gdb" <<'EOF'
type = int (struct synth_bits *, unsigned long)
Symbol "synth_global" is static storage at address 0xc2000100.
EOF

# Plain char's signedness is the ABI's: signed on x86, unsigned on arm64.
sed 's/^machine i686$/machine aarch64/' "$T/cap32" >"$T/cap64"
ms kallsyms --capture "$T/cap64" -o "$T/ka.elf"
for e in k32:signed_char ka:unsigned_char; do
	eu-readelf --debug-dump=info "$T/${e%%:*}.elf" 2>/dev/null |
		grep -A3 'name *(strp) "char"$' >"$T/char" || true
	check_grep "${e%%:*}.elf: plain char is ${e#*:} (its machine's ABI)" "encoding .* ${e#*:}" "$T/char"
done

# --- BTF libbpf refuses: dropped, the rest stands ---------------------------
head -c 4000 /dev/urandom >"$T/bad.btf"
printf '\x9f\xeb\x01\x00' | dd of="$T/bad.btf" conv=notrunc 2>/dev/null
cp "$T/bad.btf" "$R/sys/kernel/btf/vmlinux"
ms kallsyms --root "$R" -o "$T/kb.elf"
check_rc "kallsyms with BTF libbpf refuses: still written (exit 0)" 0
check "with its symbols but no types" sh -c "readelf -S '$T/kb.elf' | grep -q symtab && ! readelf -S '$T/kb.elf' | grep -q debug_info"
std_fixture || bail "fixture"
cp "$T/bad.btf" "$R/sys/kernel/btf/vmlinux"
cp "$T/nobtf/proc/kallsyms" "$R/proc/kallsyms"
ms gdb --root "$R" --all --kernel
check_rc "gdb --all --kernel with bad BTF: exit 0" 0
check_grep "one warning saying why there are no types" \
	"^modsect: warning: no types for the core kernel, only its symbols: the kernel's BTF from .* is not valid BTF" "$T/err"

# --- a module without DWARF: its split BTF ----------------------------------
cp "$T/synth.btf" "$R/sys/kernel/btf/vmlinux"
INST=$R/lib/modules/6.1.0-modsect-test/kernel/drivers/misc/testmod.ko
strip --strip-debug "$INST" && objcopy --add-section .BTF="$T/mod.btf" "$INST" ||
	bail "a module without DWARF, with .BTF"
ms gdb --root "$R" --all --kernel
check_rc "gdb --all --kernel, a module with .BTF and no DWARF: exit 0" 0
check_grep "the script adds its types" '^# testmod: its types$' "$T/out"
cp "$T/out" "$T/script.gdb"
gdb -q -nx -batch -ex "source $T/script.gdb" -ex 'ptype struct synth_mod' \
	-ex 'p sizeof(((struct synth_mod *)0)->n->next)' >"$T/gdb" 2>&1
check_grep "gdb: the module's own struct" 'struct synth_node \*n;' "$T/gdb"
check_grep "whose base type is the kernel's, through the declaration" '^\$1 = 8$' "$T/gdb"
detail <"$T/gdb"
ms lldb --root "$R" --all --kernel
check_grep "lldb: the script adds a file of the module's types" '^target modules add ".*\.debug\.elf"$' "$T/out"
cp "$T/out" "$T/script.lldb"
lldb -b -s "$T/script.lldb" -o 'type lookup synth_mod' -o 'type lookup synth_bits' >"$T/lldb" 2>&1
check_grep "lldb: the module's own struct" '^ *(struct )?synth_node \*n;$' "$T/lldb"
check_grep "lldb: and the kernel's, from the kallsyms ELF" '^ *unsigned int mid : 9;$' "$T/lldb"
detail <"$T/lldb"

# --- the kernel image beside a capture --------------------------------------
if [ -n "$img" ] && image_capture "$img" 0 >"$T/core.cap"; then
	bid=$BID
	ms kallsyms --capture "$T/core.cap" --kernel-image "$img" -o "$T/ki.elf"
	check_rc "kallsyms --capture --kernel-image: exit 0" 0
	gdb -q -nx -batch -ex "file $T/ki.elf" -ex 'ptype do_init_module' \
		-ex 'p sizeof(struct task_struct) > 1000' >"$T/gdb" 2>&1
	check_grep "the image's BTF: ptype do_init_module is its prototype" \
		'^type = int \(struct module \*\)$' "$T/gdb"
	check_grep "and the kernel's structs" '^\$1 = 1$' "$T/gdb"
	sed -i 's/^kernel-build-id .*/kernel-build-id 00112233445566778899aabbccddeeff00112233/' "$T/core.cap"
	ms kallsyms --capture "$T/core.cap" --kernel-image "$img" -o "$T/ki.elf"
	check_rc "an image of another build: kallsyms still written (exit 0)" 0
	check "but with no types from it" sh -c "! readelf -S '$T/ki.elf' | grep -q debug_info"
	check_grep "and a warning saying why" \
		"^modsect: warning: no types for the core kernel, only its symbols: .* has build-id $bid but the running kernel 00112233445566778899aabbccddeeff00112233" "$T/err"
fi
finish
