#!/bin/bash
# fuzz/seeds.sh OUTDIR: generates the seed corpora for the fuzz targets
# into OUTDIR/<target>/ from real files, made the way the tests make them
# (tests/lib.sh): a capture written by `modsect capture --root` of a fake
# tree, the README's sh-loop and grep -r formats, kallsyms lines, a small
# module from gcc + ld -r and its .gz/.xz/.zst, a 32-bit object, the
# kallsyms ELF, and oops text. Nothing here is committed as a binary.
# MODSECT selects the binary (default ./modsect).
set -u
OUT=${1:?usage: fuzz/seeds.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$(dirname "$0")/../tests/lib.sh"
set -e
rm -rf "$OUT"/{capture,kallsyms,modfile,logparse,decompress,ksymtab,kmem,rsp,index,orc,a64,btf,serve}
mkdir -p "$OUT"/{capture,kallsyms,modfile,logparse,decompress,ksymtab,kmem,rsp,index,orc,a64,btf,serve}
# btf: the mode byte, then tests/tools/btfsynth's BTF of every kind (kept
# in fuzz/regress/btf), as a kernel's and as a module's split BTF.
for f in "$(dirname "$0")"/regress/btf/*; do cp "$f" "$OUT/btf/"; done

KO=$T/mod/testmod.ko
R=$T/root
mkmod "$T/mod" testmod
mkrelease "$R"
mksysmod "$R" testmod "$KO" live
mkdir -p "$R/proc"
{
	echo "ffffffff81000000 T _stext"
	echo "ffffffff81000000 T _text"
	echo "ffffffff81001000 t do_one_initcall"
	echo "ffffffff82000000 D jiffies"
	echo "ffffffff82100000 B __bss_start"
	echo "ffffffff81800000 R __start_rodata"
	echo "0000000000000000 A fixed_percpu_data"
	nm "$KO" | awk 'NF == 3 { print $1, $2, $3, "[testmod]" }' |
		sed 's/^0000000000/ffffffffc0/'
} >"$R/proc/kallsyms"

# capture: every format the reader takes.
"$MODSECT" capture --root "$R" -o "$OUT/capture/format1.cap"
"$MODSECT" capture --root "$R" --kallsyms -o "$OUT/capture/kallsyms.cap" 2>/dev/null ||
	cp "$OUT/capture/format1.cap" "$OUT/capture/kallsyms.cap"
(cd "$R" && for f in sys/module/*/sections/* sys/module/*/sections/.[!.]*; do
	[ -f "$f" ] || continue
	m=${f#sys/module/}
	echo "${m%%/*} ${f##*/} $(cat "$f")"
done) >"$OUT/capture/shloop.txt"
(cd "$R" && grep -r . sys/module/*/sections/ | sed 's|^|/|') >"$OUT/capture/grep.txt"
cat "$R/proc/kallsyms" "$OUT/capture/shloop.txt" >"$OUT/capture/mixed.txt"
printf 'modsect-capture 1\nmodule a-b coming\nsection a-b .text\\x20x 0x10\nsection a-b .data 0x20\nbuild-id a-b 00ff\nsrcversion a-b X\nkallsyms a-b 10 t f\\x0a\ncore ffffffff81000000 T _stext\n' \
	>"$OUT/capture/escapes.cap"

# index: the index resolve writes of the test module.
"$MODSECT" resolve --root "$R" --search "$T/mod" --offline --cache-dir "$T/ixcache" \
	"$A_TEXT" >/dev/null 2>&1 || true
cp "$T"/ixcache/index/*.ix "$OUT/index/" 2>/dev/null || true

# kallsyms: lines of /proc/kallsyms and captures with core symbols.
cp "$R/proc/kallsyms" "$OUT/kallsyms/proc-kallsyms.txt"
cp "$OUT/capture/kallsyms.cap" "$OUT/kallsyms/"
{ cat "$OUT/capture/shloop.txt"; echo "machine aarch64"; grep -v ' \[' "$R/proc/kallsyms"; } \
	>"$OUT/kallsyms/aarch64.txt"
{ cat "$OUT/capture/shloop.txt"; echo "machine i686"; echo "c1000000 T _stext"; echo "c1000100 t f"; } \
	>"$OUT/kallsyms/i686.txt"

# modfile: the module, stripped, compressed, 32-bit, not relocatable.
cp "$KO" "$OUT/modfile/testmod.ko"
strip --strip-debug -o "$OUT/modfile/stripped.ko" "$KO"
gzip -9 -c "$OUT/modfile/stripped.ko" >"$OUT/modfile/stripped.ko.gz"
xz -c "$OUT/modfile/stripped.ko" >"$OUT/modfile/stripped.ko.xz"
zstd -q -c "$OUT/modfile/stripped.ko" >"$OUT/modfile/stripped.ko.zst"
printf 'int f(void) { return 1; }\n' >"$T/small.c"
gcc -O2 -c -o "$T/small.o" "$T/small.c" && cp "$T/small.o" "$OUT/modfile/small.o"
if gcc -m32 -O2 -c -o "$T/small32.o" "$T/small.c" 2>/dev/null; then
	cp "$T/small32.o" "$OUT/modfile/small32.o"
fi
"$MODSECT" kallsyms --root "$R" -o "$OUT/modfile/kallsyms.elf" 2>/dev/null || true
cp "$OUT"/modfile/*.gz "$OUT"/modfile/*.xz "$OUT"/modfile/*.zst "$OUT/decompress/"
printf 'hello\n' | gzip -c >"$OUT/decompress/hello.gz"

# logparse: oops, WARN, KASAN, raw addresses, timestamps.
cat >"$OUT/logparse/oops.txt" <<'X'
[   7.123456] WARNING: CPU: 0 PID: 1 at drivers/misc/testmod.c:68 testmod_func+0x10/0x27 [testmod]
[   7.123500] RIP: 0010:testmod_func+0x10/0x27 [testmod]
[   7.123600] Call Trace:
[   7.123601]  <TASK>
[   7.123602]  ? __warn+0x7d/0xc0
[   7.123603]  testmod_helper+0x2a/0x71 [testmod]
[   7.123604]  do_one_initcall+0x56/0x230
[   7.123605]  [<ffffffffc0a14010>] testmod_init+0x10/0x20 [testmod]
[   7.123606]  </TASK>
BUG: KASAN: slab-out-of-bounds in testmod_func.cold+0x1/0x5 [test-mod]
kernel BUG at fs/ext4/inode.c:1234!
PC is at testmod_func+0x4/0x8 [testmod]
 pc : testmod_func+0x4/0x8 [testmod]
Call trace:
 [<c0a14000>] [<ffffffffc0a14000>] [<ffffffffffffffffff>]
X
# logparse: arm64 (pstate, pc/lr, a PAC'd lr, (P), build-id) and i386.
cat >"$OUT/logparse/arch.txt" <<'X'
[   42.1] pstate: 60400005 (nZCv daif +PAN -UAO -TCO -DIT -SSBS BTYPE=--)
[   42.1] pc : testmod_func+0x18/0x24 [testmod]
[   42.1] lr : 0xffd080000a1b0030
[   42.1] x29: ffff80000a1b3c30 x28: ffff0000c1a2b400 x27: 0000000000000000
[   42.1] Call trace:
[   42.1]  testmod_func+0x18/0x24 [testmod] (P)
[   42.1]  testmod_init+0xc/0x24 [testmod 0123456789abcdef0123456789abcdef01234567]
pc : [<ffff80000a1b0018>] lr : [<ffff80000a1b0030>] pstate: 60000005
[   12.3] EIP: testmod_func+0x9/0x1c [testmod]
[   12.3] EAX: 00000000 EBX: f8a10029 ECX: f8a10009 EDX: 00000000
[   12.3]  [<f8a10029>] ? 0xf8a10029
[   12.3] EIP: [<f8a10009>] testmod_func+0x9/0x1c [testmod] SS:ESP 0068:c1a2be30
X
# ksymtab: synthetic kallsyms tables in each layout (tests/ksymgen.py),
# behind fuzz_ksymtab's first byte (bit 0: 32-bit, bit 1: big endian).
for cfg in "0 v6.1 --percpu" "0 v6.2" "0 v6.4" "0 pcrel" "0 v6.4 --absolute" \
	"1 v6.1 --ptr 4" "3 v6.4 --ptr 4 --be" "2 v6.2 --be"; do
	set -- $cfg
	flag=$1 lay=$2
	shift 2
	python3 "$TESTS_DIR/ksymgen.py" --n 300 --layout "$lay" "$@" "$T/ks.bin" "$T/ks.exp"
	{ printf "\\$(printf %o "$flag")"; cat "$T/ks.bin"; } >"$OUT/ksymtab/$lay$(echo "$*" | tr -d ' ').bin"
done

# kmem: the fake kernel's memory (tests/tools/fakekern.h) as fuzz_kmem
# maps it, from kmemwalk (make test-tools, or make san); both layouts.
KW=$TEST_TOOLS/kmemwalk
[ -x "$KW" ] || KW=$TOP/build/san/tests/kmemwalk
[ -x "$KW" ] || { echo "seeds.sh: no kmemwalk (make test-tools)" >&2; exit 1; }
for m in good layout614; do
	"$KW" --dump-seed "$OUT/kmem/$m.bin" "$m"
done

# rsp: a stub's traffic as fuzz_rsp reads it: one byte (the size of the
# pieces it is fed in), then packets with their checksums.
rsp_pkt() {
	local sum
	sum=$(printf '%s' "$1" | od -An -tu1 | tr -s ' ' '\n' | awk '{ s += $1 } END { printf "%02x", s % 256 }')
	printf '$%s#%s' "$1" "$sum"
}
{ printf '\007'; rsp_pkt 'T05thread:01;'; printf '+'
  rsp_pkt 'PacketSize=1000;qXfer:features:read+;vContSupported+;multiprocess+'
  rsp_pkt '0*"'; rsp_pkt 'E14'; rsp_pkt 'OK'; } >"$OUT/rsp/session.bin"
{ printf '\003'; rsp_pkt 'l<target><architecture>i386:x86-64</architecture></target>'
  rsp_pkt 'T0510:00e0ffffffffffff;06:0000000000000000;thread:p01.01;'
  rsp_pkt 'ffffffff81000000deadbeef'; printf -- '-'; rsp_pkt 'W00'; } >"$OUT/rsp/features.bin"

# serve: fuzz_serve's flags byte (bit 0: 6.1 layout, else small; bit 1:
# the good arena, none in the input; bit 2: no CPU registers), the
# small fake kernel's arena from taskwalk behind its 16-bit length, then
# a gdb session's packets.
TW=$TEST_TOOLS/taskwalk
[ -x "$TW" ] || TW=$TOP/build/san/tests/taskwalk
[ -x "$TW" ] || { echo "seeds.sh: no taskwalk (make test-tools)" >&2; exit 1; }
{ rsp_pkt 'qSupported:multiprocess+;xmlRegisters=i386'; printf '+'
  rsp_pkt 'QStartNoAckMode'; printf '+'
  for p in '?' qfThreadInfo qsThreadInfo 'qXfer:threads:read::0,fff' \
	'qXfer:features:read:target.xml:0,fff' 'qThreadExtraInfo,191' qC Hg191 g p10 \
	Hg190 g Hg400001 g 'mffffc9000001ff00,38' 'mffffc9000003fff0,20' \
	'Mffffc9000001ff00,1:00' c 'vCont;c' D; do rsp_pkt "$p"; done; } >"$T/session"
for m in good sp tasks-cycle threads-null idle-dup; do
	"$TW" --old --dump-seed "$T/$m.arena" "$m"
	n=$(stat -c %s "$T/$m.arena")
	{ printf '\000'; printf "\\$(printf %o $((n & 255)))\\$(printf %o $((n >> 8)))"
	  cat "$T/$m.arena" "$T/session"; } >"$OUT/serve/$m.bin"
done
for f in 2 3 6; do
	{ printf "\\00$f"; cat "$T/session"; } >"$OUT/serve/flags$f.bin"
done


# orc: fuzz_orc's format byte, then 64 ip offsets and 64 entries of
# every type and base register, in each format (orc_types.h's bits).
python3 - "$OUT/orc" <<'PY'
import struct, sys
for v in (1, 2, 3, 4):
    ips, ents = b"", b""
    for i in range(64):
        ips += struct.pack("<i", 16 * i - 4 * i)
        sp, bp, t = (5, 4, 9, 8, 6, 7, 3, 2)[i % 8], (0, 1, 4)[i % 3], i % 5
        if v >= 3:
            f = sp | bp << 4 | t << 8 | (i & 1) << 11
        else:
            f = sp | bp << 4 | (t % 3) << 8 | (i & 1) << 10
        ents += struct.pack("<hhH", 8 * (i % 5), -16, f)
    open("%s/v%d.bin" % (sys.argv[1], v), "wb").write(bytes([v - 1]) + ips + ents)
PY

# a64: fuzz_a64's header (functions, then size and flags of each) and
# code as gcc and entry.S write it: a leaf, a framed function with an
# early return, an exception entry (flags 1) completing its pt_regs.
python3 - "$OUT/a64" <<'PY'
import struct, sys
leaf = [0xd503233f, 0xd5033f9f, 0xd503207f, 0xd50323bf, 0xd65f03c0]
framed = [0xd503233f, 0xa9be7bfd, 0x910003fd, 0xb4000080, 0x94000000,
          0xa8c27bfd, 0xd50323bf, 0xd65f03c0, 0xa90153f3, 0x94000000,
          0xa94153f3, 0xa8c27bfd, 0xd50323bf, 0xd65f03c0]
entry = [0xa90007e0, 0xa90e77fc, 0xa9135bfd, 0x9104c3fd, 0x910003e0,
         0x94000000, 0x14000000]
fns = [(leaf, 0), (framed, 0), (entry, 1)]
head = bytes([len(fns) - 1] + [(len(c) - 1) | f << 5 for c, f in fns])
code = b"".join(struct.pack("<%dI" % len(c), *c) for c, f in fns)
open("%s/fns.bin" % sys.argv[1], "wb").write(head + code)
PY

echo "seeds in $OUT:" >&2
for d in "$OUT"/*/; do echo "  $(basename "$d"): $(ls "$d" | wc -l)" >&2; done
# finish exits: last, or what follows it is never made
finish >/dev/null
