#!/bin/bash
# t-kimage.sh - kernel images (lib/kernel/kimage.c, kunpack.c) and kallsyms tables
# (lib/kernel/ksymtab.c), through tests/tools/kimage-dump:
#  - synthetic tables in every layout scripts/kallsyms has had
#    (tests/ksymgen.py), 64/32-bit, little/big endian;
#  - the host's Debian kernel, /boot/vmlinuz-RELEASE: the build-id against
#    readelf -n of the vmlinux extracted here by grep + xz, the banner
#    against strings, BTF against the .BTF section, and kallsyms against
#    the real System.map when there is one (Debian's /boot has a
#    placeholder; linux-image-RELEASE-dbg has the real one), against the
#    exported symbols (__ksymtab), and byte for byte: the kernel's own
#    scripts/kallsyms (linux-kbuild) re-encodes the decoded symbols to the
#    very tables in .rodata;
#  - the same kernel re-packed (bzImage with gzip, zstd, lz4 -l and xz
#    payloads, plain vmlinux, vmlinux.xz) gives the same output;
#  - garbage, truncated and unsupported files are refused with a message.
. "$(dirname "$0")/lib.sh"

need xz gzip zstd lz4 readelf strings python3 gcc objcopy od cmp || finish
KD=$TEST_TOOLS/kimage-dump
[ -x "$KD" ] || bail "$KD is missing (make test-tools)"
IMG=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[ -n "$IMG" ] || bail "no /boot/vmlinuz-*: install linux-image-amd64 (scripts/deps.sh)"
KREL=${IMG#/boot/vmlinuz-}

kd() {
	"$KD" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

# ---- synthetic tables -------------------------------------------------------

for cfg in "v6.1 --percpu" "v6.2 --percpu" "v6.1" "v6.2" "v6.4" \
	"v6.4 --absolute" "pcrel" "v6.1 --ptr 4" "v6.4 --ptr 4 --be" \
	"v6.2 --be --absolute" "pcrel --ptr 4 --be"; do
	set -- $cfg
	lay=$1
	shift
	ptr=8 base=ffffffff82000000 be=
	case " $* " in *" --ptr 4 "*) ptr=4 base=c2000000 ;; esac
	case " $* " in *" --be "*) be=--be ;; esac
	python3 "$TESTS_DIR/ksymgen.py" --layout "$lay" "$@" "$T/g.bin" "$T/g.exp" ||
		bail "ksymgen.py failed"
	kd --blob "$T/g.bin" --base "$base" --ptr "$ptr" $be --syms
	tail -n +2 "$T/out" >"$T/g.got"
	if [ "$RC" = 0 ] && cmp -s "$T/g.exp" "$T/g.got"; then
		ok "synthetic kallsyms, layout $cfg: $(wc -l <"$T/g.exp") symbols decoded exactly"
	else
		not_ok "synthetic kallsyms, layout $cfg" "$(cat "$T/err")" \
			"$(diff "$T/g.exp" "$T/g.got" | head -5)"
	fi
done
# A table cut anywhere is refused, never misread.
python3 "$TESTS_DIR/ksymgen.py" --layout v6.4 "$T/g.bin" "$T/g.exp"
head -c 3000 "$T/g.bin" >"$T/g.cut"
kd --blob "$T/g.cut" --base ffffffff82000000
check_refused "a cut table: no kallsyms, clear message" 1 \
	'^kimage-dump: no kallsyms tables found in 3000 bytes at 0xffffffff82000000: '

# ---- the host's kernel ---------------------------------------------------------

start=$EPOCHREALTIME
kd --syms "$IMG"
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
[ "$RC" = 0 ] || bail "kimage-dump $IMG: $(cat "$T/err")"
cp "$T/out" "$T/dump"
head -8 "$T/dump" >"$T/head"
field() { sed -n "s/^$1: //p" "$T/head"; }
nsyms=$(field kallsyms | cut -d' ' -f1)
ok "$IMG ($(field kind)): opened and $nsyms kallsyms decoded in ${secs}s"

# The vmlinux, extracted without modsect: the first compressed stream in
# the file that decompresses to an ELF (as scripts/extract-vmlinux does).
extract() {
	local name pat cmd off
	for name in xz zstd gzip; do
		case $name in
		xz) pat='\xfd7zXZ\x00' cmd="xz -dc --single-stream" ;;
		zstd) pat='\x28\xb5\x2f\xfd' cmd="zstd -dcq" ;;
		gzip) pat='\x1f\x8b\x08' cmd="gzip -dcq" ;;
		esac
		for off in $(LC_ALL=C grep -obUaP "$pat" "$IMG" | cut -d: -f1 | head -5); do
			tail -c +$((off + 1)) "$IMG" | $cmd >"$T/vmlinux" 2>/dev/null
			readelf -h "$T/vmlinux" >/dev/null 2>&1 && return 0
		done
	done
	return 1
}
extract || bail "no vmlinux ELF found in $IMG by grep + xz/zstd/gzip"

id=$(readelf -n "$T/vmlinux" | sed -n 's/.*Build ID: //p' | head -1)
check_eq "build-id equals readelf -n of the extracted vmlinux" \
	"$id" "$(field build-id | cut -d' ' -f1)"
idaddr=$(field build-id | cut -d' ' -f3)
kd --bytes "$idaddr" 20 "$IMG"
check_eq "the image's bytes at the build-id's link address are the build-id" \
	"bytes ${idaddr#0x} $id" "$(grep '^bytes ' "$T/out")"

banner=$(strings -n 16 "$T/vmlinux" | grep -m1 '^Linux version .*#[0-9]')
check_eq "banner equals the 'Linux version ... #N' string of strings(1)" \
	"$banner" "$(field banner | cut -d' ' -f2-)"
baddr=$(field banner | cut -d' ' -f1)
kd --bytes "$baddr" $((${#banner} + 2)) "$IMG"
check_eq "the image's bytes at the banner's link address are the banner, newline, NUL" \
	"bytes ${baddr#0x} $(printf '%s\n\0' "$banner" | od -An -tx1 -v | tr -d ' \n')" \
	"$(grep '^bytes ' "$T/out")"

# section NAME: "ADDRESS OFFSET SIZE" of the extracted vmlinux's section, hex
section() {
	readelf -SW "$T/vmlinux" | sed 's/\[ */[/' |
		awk -v n="$1" '$1 ~ /^\[[0-9]/ && $2 == n { print $4, $5, $6 }'
}
btfsize=$(($(section .BTF | awk '{ print "0x" $3 }')))
check_grep "BTF is the .BTF section ($btfsize bytes) and libbpf parses it" \
	"^btf: $btfsize bytes, [0-9]{5,} types$" "$T/head"

text=$(section .text | cut -d' ' -f1)
end=$(awk '$3 == "_end" { print $1; exit }' "$T/dump")
check_eq "range is .text's address to kallsyms' _end" "0x${text#0000} 0x${end#0000}" \
	"$(field range | sed 's/0x0*/0x/g')"

tail -n +9 "$T/dump" >"$T/syms"

# kallsyms against the real System.map, if there is one.
map=
for m in "${KIMAGE_SYSTEM_MAP-}" "/boot/System.map-$KREL" "/usr/lib/debug/boot/System.map-$KREL"; do
	[ -n "$m" ] && [ -f "$m" ] && ! grep -q 'The real System.map is in' "$m" && map=$m && break
done
if [ -n "$map" ]; then
	# Exactly what scripts/kallsyms leaves out of System.map's symbols:
	# absolute symbols (is_ignored_symbol: type A) and its own tables
	# (added after the first pass); per-cpu symbols are in it as 'A'
	# (make_percpus_absolute, KALLSYMS_ABSOLUTE_PERCPU).
	res=$(python3 - "$map" "$T/syms" <<'EOF'
import sys
m = [l.split()[:3] for l in open(sys.argv[1]) if len(l.split()) >= 3]
k = [l.split() for l in open(sys.argv[2])]
by = {}
for a, t, n in m:
    by.setdefault(n, []).append((int(a, 16), t))
pcpu = [int(a, 16) for a, t, n in m if n in ('__per_cpu_start', '__per_cpu_end')]
bad = []
for a, t, n in k:
    a = int(a, 16)
    ok = any(x == a and (y == t or (t == 'A' and y in 'dD' and
             len(pcpu) == 2 and pcpu[0] <= a <= pcpu[1])) for x, y in by.get(n, []))
    if not ok:
        bad.append('decoded but not in System.map: %x %s %s' % (a, t, n))
names = {n for _, _, n in k}
tables = {'kallsyms_' + s for s in ('addresses', 'offsets', 'relative_base',
          'num_syms', 'names', 'markers', 'seqs_of_names', 'token_table', 'token_index')}
left = [(a, t, n) for a, t, n in m if n not in names]
nabs = sum(1 for _, t, n in left if t in 'aA' and n not in tables)
ntab = sum(1 for _, t, n in left if n in tables)
for a, t, n in left:
    if t not in 'aA' and n not in tables:
        bad.append('in System.map, not decoded, and kallsyms keeps it: %s %s %s' % (a, t, n))
print('%d %d %d %d' % (len(k), len(m), nabs, ntab))
for b in bad[:20]:
    print(b)
EOF
)
	set -- $res
	if [ "$(echo "$res" | wc -l)" = 1 ] && [ $(($1 + $3 + $4)) = "$2" ]; then
		ok "kallsyms = $map: all $1 decoded symbols with address and type; its other $(($2 - $1)) are $3 absolute and $4 kallsyms tables, which scripts/kallsyms leaves out"
	else
		not_ok "kallsyms = $map" "$res"
	fi
else
	echo "# $TNAME: /boot/System.map-$KREL is Debian's placeholder and linux-image-$KREL-dbg is not installed; the re-encoding below checks every symbol"
fi

# Exported symbols: __ksymtab's entries (value, name, namespace: 32-bit
# offsets from each field, CONFIG_HAVE_ARCH_PREL32_RELOCATIONS) name an
# address each, independently of kallsyms.
res=$(python3 - "$T/vmlinux" "$T/syms" <<'EOF'
import struct, subprocess, sys
sec = {}
for l in subprocess.run(['readelf', '-SW', sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    w = l.replace('[ ', '[').split()
    if len(w) > 6 and w[0].startswith('[') and w[0] != '[Nr]':
        sec[w[1]] = (int(w[3], 16), int(w[4], 16), int(w[5], 16))
d = open(sys.argv[1], 'rb').read()
def at(addr, n):
    for a, o, s in sec.values():
        if a <= addr < a + s:
            return d[o + addr - a:o + addr - a + n]
k = {}
for l in open(sys.argv[2]):
    a, t, n = l.split()
    k.setdefault(n, set()).add(int(a, 16))
bad, total = [], 0
for s in ('__ksymtab', '__ksymtab_gpl'):
    a, o, size = sec[s]
    for e in range(a, a + size, 12):
        v, nm = struct.unpack('<ii', at(e, 8))
        addr = (e + v) & (2**64 - 1)
        name = at(e + 4 + nm, 512).split(b'\0')[0].decode()
        total += 1
        if addr not in k.get(name, ()):
            bad.append('%s at %x' % (name, addr))
print(total, len(bad), ' '.join(bad[:5]))
EOF
)
set -- $res
if [ "${2-x}" = 0 ] && [ "${1-0}" -gt 1000 ]; then
	ok "all $1 exported symbols (__ksymtab, __ksymtab_gpl) are in kallsyms at their addresses"
else
	not_ok "exported symbols are in kallsyms" "$res"
fi

# reencode SYMS CONFIG BYTES DESC: the kernel's own encoder (the
# linux-kbuild of this release, with the options link-vmlinux.sh gives it
# for CONFIG) turns the decoded symbols SYMS back into the tables in BYTES,
# byte for byte: names, types, addresses and order are the kernel's.
reencode() {
	local syms=$1 cfg=$2 bytes=$3 desc=$4 enc opts= relocs res
	enc=/usr/src/linux-kbuild-$(echo "$KREL" | cut -d. -f1-2)/scripts/kallsyms
	if [ ! -x "$enc" ] || [ ! -f "$cfg" ]; then
		not_ok "re-encoding: $enc or $cfg is missing (linux-headers-amd64 brings linux-kbuild)"
		return
	fi
	grep -q '^CONFIG_KALLSYMS_ALL=y' "$cfg" && opts="$opts --all-symbols"
	grep -q '^CONFIG_KALLSYMS_ABSOLUTE_PERCPU=y' "$cfg" && opts="$opts --absolute-percpu"
	grep -q '^CONFIG_KALLSYMS_BASE_RELATIVE=y' "$cfg" && opts="$opts --base-relative"
	grep -q '^CONFIG_LTO_CLANG=y' "$cfg" && opts="$opts --lto-clang"
	# per-cpu symbols went in as data; scripts/kallsyms makes them 'A'
	awk '{ print $1, ($2 == "A" ? "D" : $2), $3 }' "$syms" >"$T/re.map"
	mkdir -p "$T/inc/asm"
	echo '#define BITS_PER_LONG 64' >"$T/inc/asm/bitsperlong.h"
	if ! "$enc" $opts "$T/re.map" >"$T/re.S" 2>"$T/re.err" ||
		! gcc -c -I"$T/inc" -o "$T/re.o" "$T/re.S" 2>>"$T/re.err" ||
		! objcopy -O binary --only-section=.rodata "$T/re.o" "$T/re.bin"; then
		not_ok "re-encoding with $enc$opts" "$(cat "$T/re.err")"
		return
	fi
	relocs=$(readelf -rW "$T/re.o" | awk '/^[0-9a-f]+ / { printf "%s ", $1 }')
	res=$(python3 - "$bytes" "$T/re.bin" $relocs <<'EOF'
import sys
ro, re = open(sys.argv[1], 'rb').read(), bytearray(open(sys.argv[2], 'rb').read())
# relative_base is "PTR _text + X": a relocation in re.o, 0 in its bytes
holes = [int(x, 16) for x in sys.argv[3:]]
at = ro.find(bytes(re[:64]))
if at < 0:
    print('the re-encoded tables start nowhere in the image'); sys.exit()
got = bytearray(ro[at:at + len(re)])
for h in holes:
    got[h:h + 8] = re[h:h + 8]
diff = [i for i in range(len(re)) if got[i] != re[i]]
print('%d %d %s' % (len(re), len(diff), ' '.join(hex(i) for i in diff[:5])))
EOF
)
	set -- $res
	if [ "${2-x}" = 0 ]; then
		ok "$desc: scripts/kallsyms$opts re-encodes the $(wc -l <"$syms") decoded symbols to the image's $1 bytes of tables, identically"
	else
		not_ok "$desc: re-encoding the decoded symbols gives the image's tables" "$res"
	fi
}
objcopy -O binary --only-section=.rodata "$T/vmlinux" "$T/rodata.bin"
reencode "$T/syms" "/boot/config-$KREL" "$T/rodata.bin" "$KREL"

# An arm64 Debian vmlinuz of the same release, when KIMAGE_ARM64 names
# one (dpkg --add-architecture arm64; apt-get download
# linux-image-RELEASE-arm64; dpkg -x): a raw Image, no ELF.
if [ -n "${KIMAGE_ARM64-}" ]; then
	kd --syms "$KIMAGE_ARM64"
	head -8 "$T/out" >"$T/head"
	tail -n +9 "$T/out" >"$T/asyms"
	if [ "$RC" = 0 ] && [ "$(field kind)" = Image ] && [ "$(field machine)" = 183 ] &&
		grep -Eq '^btf: [0-9]+ bytes, [0-9]{5,} types$' "$T/head" &&
		[ "$(field build-id)" != none ] && [ "$(field banner)" != none ]; then
		ok "arm64 $KIMAGE_ARM64: range $(field range), build-id, banner, BTF, $(field kallsyms)"
	else
		not_ok "arm64 $KIMAGE_ARM64" "$(cat "$T/head" "$T/err")"
	fi
	# v6.1 arch/arm64/include/asm/memory.h: KIMAGE_VADDR is MODULES_END,
	# _PAGE_END(VA_BITS_MIN) + 128 MiB; Debian's VA_BITS_MIN is 48
	case $KREL in
	6.1.*) check_eq "arm64 6.1: the image is linked at KIMAGE_VADDR" \
		0xffff800008000000 "$(field range | cut -d' ' -f1)" ;;
	esac
	b=$(field banner)
	kd --bytes "${b%% *}" 14 "$KIMAGE_ARM64"
	check_eq "arm64: the image's bytes at the banner's link address are 'Linux version '" \
		"bytes ${b%% *} 4c696e75782076657273696f6e20" "$(grep '^bytes ' "$T/out" | sed 's/^bytes /bytes 0x/')"
	reencode "$T/asyms" "$(dirname "$KIMAGE_ARM64")/config-${KIMAGE_ARM64##*vmlinuz-}" \
		"$KIMAGE_ARM64" "arm64"
else
	echo "# $TNAME: KIMAGE_ARM64 is not set: no arm64 image checked"
fi

# ---- the same kernel, re-packed ---------------------------------------------------

# A bzImage with the real setup header and decompressor in front of
# another payload: compressed data, its size appended, payload_length set.
mkbz() {
	python3 - "$IMG" "$1" "$T/vmlinux" "$2" <<'EOF'
import struct, sys
img, pay, vml, out = sys.argv[1:]
d = bytearray(open(img, 'rb').read())
sects = d[0x1f1] or 4
start = (sects + 1) * 512 + struct.unpack_from('<I', d, 0x248)[0]
p = open(pay, 'rb').read() + struct.pack('<I', len(open(vml, 'rb').read()))
d = d[:start] + p
struct.pack_into('<I', d, 0x24c, len(p))
open(out, 'wb').write(d)
EOF
}
xz -0 -T2 -c --check=crc32 "$T/vmlinux" >"$T/vmlinux.xz"
gzip -1 -c "$T/vmlinux" >"$T/vmlinux.gz"
zstd -1 -q -c "$T/vmlinux" >"$T/vmlinux.zst"
lz4 -l -1 -q -c "$T/vmlinux" >"$T/vmlinux.lz4"
for c in gzip:gz zstd:zst lz4:lz4 xz:xz; do
	mkbz "$T/vmlinux.${c#*:}" "$T/bz-${c%:*}"
done
tail -n +2 "$T/dump" >"$T/want"
for f in bz-gzip:bzImage+gzip bz-zstd:bzImage+zstd bz-lz4:bzImage+lz4 \
	bz-xz:bzImage+xz vmlinux:vmlinux vmlinux.xz:vmlinux+xz vmlinux.zst:vmlinux+zstd; do
	kd --syms "$T/${f%%:*}"
	tail -n +2 "$T/out" >"$T/got"
	if [ "$RC" = 0 ] && [ "$(head -1 "$T/out")" = "kind: ${f#*:}" ] &&
		cmp -s "$T/want" "$T/got"; then
		ok "${f#*:}: the same build-id, banner, BTF, range and $nsyms symbols"
	else
		not_ok "${f#*:} gives the same output" "$(head -1 "$T/out")" \
			"$(cat "$T/err")" "$(diff "$T/want" "$T/got" | head -5)"
	fi
done
dbg=/usr/lib/debug/boot/vmlinux-$KREL
if [ -f "$dbg" ]; then
	kd --syms "$dbg"
	tail -n +2 "$T/out" >"$T/got"
	if [ "$RC" = 0 ] && cmp -s "$T/want" "$T/got"; then
		ok "the debug vmlinux ($dbg) gives the same output"
	else
		not_ok "the debug vmlinux gives the same output" "$(cat "$T/err")" \
			"$(diff "$T/want" "$T/got" | head -5)"
	fi
fi

# ---- refused ------------------------------------------------------------------

: >"$T/empty"
kd "$T/empty"
check_refused "an empty file" 1 "^kimage-dump: $T/empty: too small for a kernel image$"
head -c 100000 /dev/urandom >"$T/random"
kd "$T/random"
check_refused "random bytes" 1 "^kimage-dump: $T/random: not a kernel image \("
kd "$T/nonexistent"
check_refused "a missing file" 1 "^kimage-dump: $T/nonexistent: No such file or directory$"
head -c 1000000 "$IMG" >"$T/cut"
kd "$T/cut"
check_refused "a truncated bzImage" 1 \
	"^kimage-dump: $T/cut: bzImage payload \(offset [0-9]+, [0-9]+ bytes\) is not inside the file \(1000000 bytes\)$"
python3 - "$T/bz-gzip" "$T/bad" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
for i in range(len(d) // 2, len(d) // 2 + 4096):
    d[i] ^= 0x55
open(sys.argv[2], 'wb').write(d)
EOF
kd "$T/bad"
check_refused "a damaged gzip payload" 1 "^kimage-dump: $T/bad: bzImage payload: gzip data is corrupt"
printf 'BZh91AY&SY' >"$T/bz2"
mkbz "$T/bz2" "$T/bz-bzip2"
kd "$T/bz-bzip2"
check_refused "a bzip2 payload: not supported, said so" 1 \
	"^kimage-dump: $T/bz-bzip2: bzImage payload: bzip2-compressed kernels are not supported \(gzip, xz, zstd and lz4 are\)$"
head -c 3000000 "$T/vmlinux.xz" >"$T/cut.xz"
kd "$T/cut.xz"
check_refused "a truncated vmlinux.xz" 1 "^kimage-dump: $T/cut.xz: xz data is truncated$"
printf 'int f(void) { return 0; }\n' >"$T/m.c"
gcc -c -o "$T/m.o" "$T/m.c"
kd "$T/m.o"
check_refused "an object file" 1 "^kimage-dump: $T/m.o: ELF type 1 is not a linked kernel"
head -c 20000000 "$T/vmlinux" >"$T/vmlinux.cut"
kd "$T/vmlinux.cut"
check_refused "a truncated vmlinux" 1 "^kimage-dump: $T/vmlinux.cut: "
finish
