#!/bin/bash
# The index (issue #14): the first resolve or decode of a module file
# writes an index of it into the cache (--cache-dir/index/BUILDID-SIZE.ix);
# later runs answer from it without reading the DWARF. Answers with and
# without it are byte-identical: every byte of .text, .text.unlikely and
# .init.text of an -O2 module of two CUs with inlining and a cold part, in
# text and JSON, in the layout the index was built from and in another
# (sections in another order, .init freed), and decode of an oops. A
# damaged, truncated or foreign index is refused and written anew;
# --no-index reads the DWARF and writes nothing; an index that cannot be
# written costs one warning, not an answer.
. "$(dirname "$0")/lib.sh"
need gcc ld eu-readelf python3 || finish

M=$T/m
mkdir -p "$M"
cat >"$M/a.c" <<'EOF'
volatile int ix_sink;
int ix_data = 3;
static inline __attribute__((always_inline)) int ix_leaf(int x)
{
	ix_sink = x * 3;
	return x + ix_data;
}
static inline __attribute__((always_inline)) int ix_mid(int x)
{
	int y = ix_leaf(x + 1);
	return y * ix_leaf(y);
}
__attribute__((noinline, cold)) void ix_slow(int x) { ix_sink = x; }
__attribute__((noinline)) int ix_outer(int x)
{
	if (__builtin_expect(x == 12345, 0)) {
		ix_slow(x);
		ix_sink = ix_mid(x + 7);
		return 1;
	}
	return ix_mid(x) + 1;
}
__attribute__((section(".init.text"), noinline)) int ix_init(void)
{
	return ix_outer(3) + ix_mid(4);
}
EOF
cat >"$M/b.c" <<'EOF'
extern volatile int ix_sink;
int ix_outer(int x);
static inline __attribute__((always_inline)) int ix_twice(int x)
{
	ix_sink = x;
	return ix_outer(x) + ix_outer(x + 1);
}
__attribute__((noinline)) int ix_caller(int x)
{
	int r = ix_twice(x);
	ix_sink = r;
	return ix_twice(r) + 2;
}
EOF
for c in a b; do
	gcc -g -O2 -fno-pic -mcmodel=kernel -falign-functions=32 -c -o "$M/$c.o" "$M/$c.c" ||
		bail "build $c.o"
done
ld -r --build-id=sha1 -o "$M/ixmod.ko" "$M/a.o" "$M/b.o" || bail "build ixmod.ko"
BID=$(build_id "$M/ixmod.ko")
SIZE=$(stat -c %s "$M/ixmod.ko")

secsize() {
	local h
	h=$(eu-readelf -S "$M/ixmod.ko" | awk -v s="$1" '{ for (i = 1; i <= NF; i++) if ($i == s) { print $(i + 4); exit } }')
	[ -n "$h" ] && echo $((16#$h))
}
for s in .text .text.unlikely .init.text; do
	check "fixture has $s" test -n "$(secsize $s)"
done

# Layout 1: a module coming (its .init.text loaded), sections in file order.
cat >"$T/cap1" <<EOF
modsect-capture 1
release $REL
module ixmod coming
section ixmod .text 0xffffffffc0b00000
section ixmod .text.unlikely 0xffffffffc0b10000
section ixmod .init.text 0xffffffffc0b20000
section ixmod .data 0xffffffffc0b30000
EOF
# Layout 2: live (.init freed), .text.unlikely below .text.
cat >"$T/cap2" <<EOF
modsect-capture 1
release $REL
module ixmod live
section ixmod .text 0xffffffffc0c40000
section ixmod .text.unlikely 0xffffffffc0c00000
section ixmod .data 0xffffffffc0c20000
EOF
# Every byte of each text section, a little past each end, and between.
addrs() { # CAP
	awk '$1 == "section" && $3 ~ /text/ { print $3, $4 }' "$1" | while read -r sec base; do
		n=$(secsize "$sec")
		seq 0 $((n + 16)) | while read -r o; do printf '0x%x\n' $((base + o)); done
	done
}

C=$T/cache
IDX=$C/index/$BID-$SIZE.ix
run() { # CAP OUT [OPTS...]: resolve of every address, text then JSON
	local cap=$1 out=$2
	shift 2
	addrs "$cap" >"$T/addrs"
	"$MODSECT" resolve --capture "$cap" --search "$M" --offline --cache-dir "$C" "$@" \
		<"$T/addrs" >"$out" 2>"$out.err"
	echo "rc=$?" >>"$out"
	"$MODSECT" resolve --json --capture "$cap" --search "$M" --offline --cache-dir "$C" "$@" \
		<"$T/addrs" >>"$out" 2>>"$out.err"
	echo "rc=$?" >>"$out"
}

run "$T/cap1" "$T/direct1" --no-index
check "--no-index writes no index" test ! -e "$IDX"
check "the answers name functions with inlined callers" grep -q '(inlined\|ix_leaf' "$T/direct1"
run "$T/cap1" "$T/first1"
check "the first run writes the index $(basename "$IDX")" test -s "$IDX"
check_same "first run (reading the DWARF, writing the index): the same answers" "$T/direct1" "$T/first1"
check "first run: nothing on stderr" test ! -s "$T/first1.err"
cp "$IDX" "$T/index.good"
run "$T/cap1" "$T/ix1"
check_same "from the index: byte-identical answers, layout it was built in" "$T/direct1" "$T/ix1"
check "the index was not rewritten" cmp -s "$IDX" "$T/index.good"

run "$T/cap2" "$T/direct2" --no-index
run "$T/cap2" "$T/ix2"
check_same "from the index: byte-identical answers in another layout (.init freed, sections reordered)" "$T/direct2" "$T/ix2"

# decode of an oops: the same with and without the index.
off() { eu-readelf -s "$M/ixmod.ko" | awk -v n="$1" '$8 == n { print $2; exit }'; }
cat >"$T/oops" <<EOF
[   12.000001] WARNING: CPU: 0 PID: 1 at a.c:6 ix_outer+0x9/0x60 [ixmod]
[   12.000002] RIP: 0010:ix_outer+0x9/0x60 [ixmod]
[   12.000003] Call Trace:
[   12.000005]  ix_caller+0x15/0x80 [ixmod]
[   12.000006]  ix_caller+0x0/0x80 [ixmod]
[   12.000007]  [<ffffffffc0c40041>] ix_caller+0x1/0x80 [ixmod]
EOF
"$MODSECT" decode --capture "$T/cap2" --search "$M" --offline --cache-dir "$C" --no-index "$T/oops" >"$T/dec.direct" 2>&1
"$MODSECT" decode --capture "$T/cap2" --search "$M" --offline --cache-dir "$C" "$T/oops" >"$T/dec.ix" 2>&1
check_same "decode: the same with and without the index" "$T/dec.direct" "$T/dec.ix"
check "decode annotated frames" grep -q 'a\.c:[0-9]' "$T/dec.ix"

# Damage: each is refused, the answers stay, and the index is written anew.
damage() { # DESC PYTHON-ON-d
	cp "$T/index.good" "$IDX"
	python3 -c "
import sys, struct
def fix_sum(d):
    # lib/symbolize/symindex.c file_sum, over the file with its sum (offset 16) 0
    struct.pack_into('<Q', d, 16, 0)
    M = (1 << 64) - 1
    def mix(s, w):
        s = ((s ^ w) * 0x100000001b3) & M
        return s ^ (s >> 29)
    w = lambda i: struct.unpack_from('<Q', d, i)[0]
    l = [(0x9e3779b97f4a7c15 ^ len(d)) & M, 1, 2, 3]
    for k in range(0, 112 + 16 * 8, 8):
        l[0] = mix(l[0], w(k))
    i = 112 + 16 * 8
    while i + 32 <= len(d):
        for k in range(4):
            l[k] = mix(l[k], w(i + 8 * k))
        i += 32
    while i + 8 <= len(d):
        l[0] = mix(l[0], w(i))
        i += 8
    struct.pack_into('<Q', d, 16, mix(mix(mix(l[0], l[1]), l[2]), l[3]))
d = bytearray(open(sys.argv[1], 'rb').read())
$2
open(sys.argv[1], 'wb').write(d)" "$IDX"
	run "$T/cap1" "$T/dmg"
	check_same "index $1: refused, the same answers" "$T/direct1" "$T/dmg"
	check "index $1: nothing on stderr" test ! -s "$T/dmg.err"
	check "index $1: written anew" cmp -s "$IDX" "$T/index.good"
}
damage "with a flipped byte in its tables" 'd[len(d) // 2] ^= 0x40'
damage "with a flipped byte in its header" 'd[30] ^= 1'
damage "truncated" 'del d[len(d) - 100:]'
damage "extended" 'd += b"\0" * 64'
damage "empty" 'del d[:]'
damage "of another version" 'd[8] += 1'
damage "with its checksum made to match a bad count" '
h = 8 + 4 * 4 + 8 + 8 + 72
off, n = struct.unpack_from("<QQ", d, h + 16 * 3)   # the inline segments
struct.pack_into("<Q", d, h + 16 * 3 + 8, n + 1000000)
fix_sum(d)'
damage "with a string reference out of bounds, checksum fixed" '
h = 8 + 4 * 4 + 8 + 8 + 72
off, n = struct.unpack_from("<QQ", d, h + 16 * 1)   # the symbols
struct.pack_into("<I", d, off, 0x7fffffff)
fix_sum(d)'
cp "$T/index.good" "$IDX"

# An index of another file under this file's name is refused.
mkdir -p "$T/m2"
sed 's/ix_sink = x \* 3/ix_sink = x * 5/' "$M/a.c" >"$T/m2/a.c"
gcc -g -O2 -fno-pic -mcmodel=kernel -falign-functions=32 -c -o "$T/m2/a.o" "$T/m2/a.c" &&
	ld -r --build-id=sha1 -o "$T/m2/ixmod.ko" "$T/m2/a.o" "$M/b.o"
BID2=$(build_id "$T/m2/ixmod.ko")
"$MODSECT" resolve --capture "$T/cap1" --search "$T/m2" --offline --cache-dir "$C" 0xffffffffc0b00010 >/dev/null 2>&1
IDX2=$(ls "$C/index/$BID2"-*.ix 2>/dev/null | head -1)
check "another build gets its own index" test -s "$IDX2"
cp "$IDX2" "$IDX"
run "$T/cap1" "$T/foreign"
check_same "an index of another build under this one's name: refused, the same answers" "$T/direct1" "$T/foreign"
check "... and written anew" cmp -s "$IDX" "$T/index.good"

# An index that cannot be written (a file where its directory should
# be, which stops root as well as anyone): one warning, the same answers.
rm -rf "$T/ro" && mkdir -p "$T/ro" && : >"$T/ro/index"
addrs "$T/cap1" >"$T/addrs"
"$MODSECT" resolve --capture "$T/cap1" --search "$M" --offline --cache-dir "$T/ro" <"$T/addrs" >"$T/ro.out" 2>"$T/ro.err"
echo "rc=$?" >>"$T/ro.out"
head -n "$(wc -l <"$T/ro.out")" "$T/direct1" >"$T/direct1.text"
check_same "no index directory: the same answers" "$T/direct1.text" "$T/ro.out"
check_eq "no index directory: one warning line" 1 "$(wc -l <"$T/ro.err")"
check_grep "no index directory: the warning says no index was written and why" '^modsect: warning: no index written .*Not a directory$' "$T/ro.err"
finish
