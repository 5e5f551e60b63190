#!/bin/bash
# modsect resolve and decode on a module built with -g -O2 (inlining on):
# every instruction address of .text and .text.unlikely gives the same
# function, file:line and inline chain as eu-addr2line on the file; return
# addresses in decode are looked up at address - 1; frames work from the
# module file alone; core kernel addresses come from kallsyms lines.
. "$(dirname "$0")/lib.sh"
need gcc ld eu-addr2line eu-readelf objdump python3 || finish

M=$T/m
mkdir -p "$M"
cat >"$M/rmod.c" <<'EOF'
volatile int rmod_sink;
int rmod_data = 3;

static inline __attribute__((always_inline)) int rmod_leaf(int x)
{
	rmod_sink = x * 3;
	return x + rmod_data;
}

static inline __attribute__((always_inline)) int rmod_mid(int x)
{
	int y = rmod_leaf(x + 1);

	return y * rmod_leaf(y);
}

__attribute__((noinline, cold)) void rmod_slow(int x)
{
	rmod_sink = x;
}

__attribute__((noinline)) int rmod_outer(int x)
{
	if (__builtin_expect(x == 12345, 0)) {
		rmod_slow(x);
		rmod_sink = rmod_mid(x + 7);
		return 1;
	}
	return rmod_mid(x) + 1;
}

__attribute__((noinline)) int rmod_caller(int x)
{
	int r = rmod_outer(x);

	rmod_sink = r;
	return rmod_outer(r) + 2;
}
EOF
gcc -g -O2 -fno-pic -mcmodel=kernel -c -o "$M/rmod.o" "$M/rmod.c" &&
	ld -r --build-id=sha1 -o "$M/rmod.ko" "$M/rmod.o" || bail "build rmod"

TEXT=0xffffffffc0b00000
UNLIKELY=0xffffffffc0b10000
DATA=0xffffffffc0b20000
{
	echo "release $REL"
	echo "rmod .text $TEXT"
	echo "rmod .text.unlikely $UNLIKELY"
	echo "rmod .data $DATA"
	echo "ffffffff81000000 T _stext"
	echo "ffffffff81000100 T schedule"
	echo "ffffffff81000200 t __schedule"
	echo "ffffffff81001000 T entry_SYSENTER_32"
	echo "ffffffff81001000 T __irqentry_text_end"
	echo "ffffffff81001000 t zz_alias"
	echo "ffffffff81002000 T _etext"
	echo "0000000000001000 D some_percpu"
} >"$T/cap"

secsize() { # the Size column, 4 after the name (mawk has no strtonum)
	local h
	h=$(eu-readelf -S "$M/rmod.ko" | awk -v s="$1" '{ for (i = 1; i <= NF; i++) if ($i == s) { print $(i + 4); exit } }')
	[ -n "$h" ] && echo $((16#$h))
}
rsymval() { eu-readelf -s "$M/rmod.ko" | awk -v n="$1" '$8 == n { print $2; exit }'; }
symoff() { local v; v=$(rsymval "$1"); echo $((16#$v)); }
check "fixture has .text.unlikely (a cold part)" test -n "$(secsize .text.unlikely)"

# Reference and ours, for every byte offset of a section, as lines
# "OFFSET func@file:line|func@file:line..." (innermost first).
compare_section() { # section base
	local sec=$1 base=$2 n
	n=$(secsize "$sec")
	seq 0 $((n - 1)) | awk '{ printf "0x%x\n", $1 }' >"$T/offs"
	eu-addr2line -e "$M/rmod.ko" -j "$sec" -a -f -i $(cat "$T/offs") >"$T/ref.raw"
	python3 - "$T/ref.raw" "$T/offs" >"$T/ref" <<'PY'
import sys
# -a starts each answer with an address (of eu-addr2line's own layout of
# the sections, so answers are matched by order); then function and
# location lines in pairs, innermost first.
offs = open(sys.argv[2]).read().split()
out = []
for line in open(sys.argv[1]).read().split('\n'):
    if line.startswith('0x'):
        out.append([line.strip(), []])
    elif line:
        out[-1][1].append(line)
for off, (addr, l) in zip(offs, out):
    frames = ['%s@%s' % (l[i].split()[0], l[i + 1]) for i in range(0, len(l), 2)]
    print(off, '|'.join(frames))
PY
	while read -r o; do printf '0x%x\n' $((base + o)); done <"$T/offs" |
		"$MODSECT" resolve --json --capture "$T/cap" --search "$M" --offline >"$T/ours.json"
	RC=$?
	python3 - "$T/offs" "$T/ours.json" >"$T/ours" <<'PY'
import sys, json
offs = open(sys.argv[1]).read().split()
for off, r in zip(offs, json.load(open(sys.argv[2]))):
    print(off, '|'.join('%s@%s:%d%s' % (f['function'], f['file'] or '??', f['line'],
                                        ':%d' % f['column'] if f['column'] else '')
                        for f in r['frames']))
PY
}

compare_section .text "$TEXT"
check_rc "resolve .text (stdin, --json): exit 0" 0
check "resolve: compared $(wc -l <"$T/ref") .text addresses" test "$(wc -l <"$T/ref")" -gt 50
check_same "resolve: every .text byte agrees with eu-addr2line (function, file:line, inlines)" "$T/ref" "$T/ours"
check_grep "resolve: inline chains two deep are seen" 'rmod_leaf@[^|]*\|rmod_mid@[^|]*\|rmod_outer@' "$T/ours"
compare_section .text.unlikely "$UNLIKELY"
check_same "resolve: every .text.unlikely byte agrees with eu-addr2line" "$T/ref" "$T/ours"
check "resolve: compared $(wc -l <"$T/ref") .text.unlikely addresses" test "$(wc -l <"$T/ref")" -gt 5

# A batch is looked up in address order, 8,192 at a time, and answered in
# the order given: 20,000 addresses (three chunks) in shuffled order with
# repeats, as text and JSON, each answer the one of that address alone.
python3 - "$TEXT" "$(secsize .text)" >"$T/batch" <<'PY'
import random, sys
base, n = int(sys.argv[1], 16), int(sys.argv[2])
rng = random.Random(14)
addrs = [base + rng.randrange(n) for _ in range(20000)]
addrs += addrs[:50]             # repeats, far apart
addrs.insert(10, addrs[9])      # and side by side
addrs.append(0x10)              # in nothing
rng.shuffle(addrs)
print('\n'.join('0x%x' % a for a in addrs))
PY
"$MODSECT" resolve --capture "$T/cap" --search "$M" --offline <"$T/batch" >"$T/batch.txt" 2>"$T/batch.err"
RC=$?
check_rc "resolve batch of 20,052: exit 1 (one address in nothing)" 1
"$MODSECT" resolve --json --capture "$T/cap" --search "$M" --offline <"$T/batch" >"$T/batch.json" 2>>"$T/batch.err"
sort -u "$T/batch" >"$T/batch.u"
"$MODSECT" resolve --capture "$T/cap" --search "$M" --offline <"$T/batch.u" >"$T/batch.u.txt" 2>>"$T/batch.err"
python3 - "$T/batch" "$T/batch.txt" "$T/batch.json" "$T/batch.u" "$T/batch.u.txt" >"$T/batch.check" <<'PY'
import json, sys
given = [int(l, 16) for l in open(sys.argv[1]).read().split()]
def blocks(path):
    out = []
    for line in open(path).read().split('\n'):
        if line and not line.startswith(' '):
            out.append(line)
        elif line:
            out[-1] += '\n' + line
    return out
text = blocks(sys.argv[2])
alone = dict(zip((int(l, 16) for l in open(sys.argv[4]).read().split()),
                 blocks(sys.argv[5])))
js = json.load(open(sys.argv[3]))
bad = [i for i, a in enumerate(given) if i >= len(text) or text[i] != alone[a]]
print('text answers', len(text), 'of', len(given), 'wrong or out of order', len(bad), bad[:5])
bad = [i for i, a in enumerate(given) if i >= len(js) or int(js[i]['address'], 16) != a]
print('json answers', len(js), 'of', len(given), 'out of order', len(bad), bad[:5])
PY
[ -s "$T/batch.check" ] || bail "resolve batch: the check did not run"
check_grep "resolve batch: every text answer in the order given, each as for the address alone" \
	"^text answers 20052 of 20052 wrong or out of order 0 " "$T/batch.check"
check_grep "resolve batch: JSON answers in the order given" \
	"^json answers 20052 of 20052 out of order 0 " "$T/batch.check"
check "resolve batch: nothing on stderr" test ! -s "$T/batch.err"
# Standard input from a pipe is read otherwise than a file: the same.
cat "$T/batch" | "$MODSECT" resolve --capture "$T/cap" --search "$M" --offline >"$T/batch.pipe" 2>&1
check_same "resolve batch from a pipe: the same answers" "$T/batch.txt" "$T/batch.pipe"
# Standard input is read as a stream in a 64 KiB buffer: a longer line
# is no address, said so, with nothing on standard output.
{ head -n 3 "$T/batch"; python3 -c 'print("f" * 70000)'; } |
	"$MODSECT" resolve --capture "$T/cap" --search "$M" --offline >"$T/long.out" 2>"$T/long.err"
RC=$?
check_rc "resolve, a line of 70,000 bytes: exit 3" 3
check_grep "resolve, a line of 70,000 bytes: not an address" '^modsect: not an address: "f{40}"$' "$T/long.err"
check "resolve, a line of 70,000 bytes: nothing on standard output" test ! -s "$T/long.out"
# Answers go out gathered from where they were made: a write that fails
# says so, not that memory ran out.
if [ -w /dev/full ]; then
	"$MODSECT" resolve --capture "$T/cap" --search "$M" --offline <"$T/batch" >/dev/full 2>"$T/full.err"
	RC=$?
	check_rc "resolve to a full disk: exit 3" 3
	check_grep "resolve to a full disk: says it cannot write standard output, and why" \
		'^modsect: cannot write standard output: No space left on device$' "$T/full.err"
fi

# A name is found by a scan for a report's first 64 frames of a module,
# then in the names sorted: the same answer either way, and of two
# static functions of one name, the one at the lower address (the first
# in the sorted table), 200 frames of it.
mkdir -p "$T/twin"
for n in 1 2; do
	cat >"$T/twin/t$n.c" <<EOF
volatile int twin_sink$n;
static __attribute__((noinline)) void twin(int x)
{
	twin_sink$n = x * $n;
	twin_sink$n += x;
}
void twin_caller$n(int x)
{
	twin(x);
}
EOF
	gcc -g -O2 -fno-pic -mcmodel=kernel -c -o "$T/twin/t$n.o" "$T/twin/t$n.c" || bail "build twin $n"
done
printf 'name=twin\0' >"$T/twin/modinfo"
ld -r --build-id=sha1 -o "$T/twin/twin.ko" "$T/twin/t1.o" "$T/twin/t2.o" &&
	objcopy --add-section .modinfo="$T/twin/modinfo" "$T/twin/twin.ko" || bail "build twin.ko"
check "twin fixture: two static functions named twin" \
	test "$(eu-readelf -s "$T/twin/twin.ko" | awk '$8 == "twin"' | wc -l)" = 2
low=$(eu-readelf -s "$T/twin/twin.ko" | awk '$8 == "twin" { print $2 }' | sort | head -n 1)
want=$(eu-addr2line -e "$T/twin/twin.ko" -j .text "0x$low")
for i in $(seq 1 200); do echo "[ 1.$i] RIP: 0010:twin+0x0/0x10 [twin]"; done >"$T/twin/oops"
ms decode --search "$T/twin" --offline --moddir "$T/nomoddir" "$T/twin/oops"
check_rc "decode 200 frames of one name: exit 0" 0
check "decode 200 frames of one name: each at the lower twin's line ($want), scanned and sorted alike" \
	test "$(grep -c " ${want}\$" "$T/out")" = 200

# JSON is written by resolve itself, as json-c wrote it: names with
# quotes, backslashes, control characters and bytes that are not UTF-8
# (patched into a module's string table) come out escaped as JSON wants
# and otherwise byte for byte.
mkdir -p "$T/wj"
python3 - "$T/wj" <<'PY' || bail "build wj.ko"
import subprocess, sys
d = sys.argv[1]
names = ['q"uote', 'back\\slash', 'ctl\x01\x1f\x7f', 'nl\nx\tt\rr\bb\ff',
         'utf\xc3\xa9', 'bad\xff\xfe', 'sl/ash']
ph = [('P%d' % i + 'x' * 20)[:len(n)] for i, n in enumerate(names)]
src = ['.section .modinfo,"a"', '.asciz "name=wj"', '.text']
for p in ph:
    src += ['.globl %s' % p, '.type %s,@function' % p, '%s:' % p,
            'nop', 'nop', 'nop', 'ret', '.size %s,4' % p]
open(d + '/wj.s', 'w').write('\n'.join(src) + '\n')
subprocess.check_call(['as', '-o', d + '/wj.o', d + '/wj.s'])
subprocess.check_call(['ld', '-r', '--build-id=sha1', '-o', d + '/wj.ko', d + '/wj.o'])
b = open(d + '/wj.ko', 'rb').read()
for p, n in zip(ph, names):
    pb = b'\0' + p.encode() + b'\0'
    assert b.count(pb) == 1, p
    b = b.replace(pb, b'\0' + n.encode('latin-1') + b'\0')
open(d + '/wj.ko', 'wb').write(b)
PY
printf 'release %s\nwj .text 0xffffffffc0000000\n' "$REL" >"$T/wj/cap"
ms resolve --json --capture "$T/wj/cap" --search "$T/wj" --offline \
	0xffffffffc0000001 0xffffffffc0000005 0xffffffffc0000009 0xffffffffc000000d \
	0xffffffffc0000011 0xffffffffc0000015 0xffffffffc0000019 0xffffffffc0000100
check_rc "resolve --json, names to escape: exit 1 (one address in nothing)" 1
printf '%s\n' '    "symbol":"q\"uote",' '    "symbol":"back\\slash",' \
	'    "symbol":"ctl\u0001\u001f'$'\x7f''",' '    "symbol":"nl\nx\tt\rr\bb\ff",' \
	'    "symbol":"utf'$'\xc3\xa9''",' '    "symbol":"bad'$'\xff\xfe''",' \
	'    "symbol":"sl/ash",' '    "symbol":null,' >"$T/wj/want"
LC_ALL=C grep -a '"symbol":' "$T/out" >"$T/wj/got"
check_same "resolve --json: quote, backslash and control characters escaped, other bytes as they are" "$T/wj/want" "$T/wj/got"
check "resolve --json: the document parses, each name the module's" python3 -c '
import json, sys
r = json.loads(open(sys.argv[1], "rb").read().decode("latin-1"))
want = ["q\"uote", "back\\slash", "ctl\x01\x1f\x7f", "nl\nx\tt\rr\bb\ff",
        "utf\xc3\xa9", "bad\xff\xfe", "sl/ash", None]
sys.exit([x["symbol"] for x in r] != want or [x["frames"][0]["function"] for x in r[:7]] != want[:7])' "$T/out"
ms resolve --json --capture "$T/wj/cap" --search "$T/wj" --offline </dev/null
check_out "resolve --json of no address: an empty array" "[
]"

# Text output of one address: symbol+off/size [module] section+off, frames.
OUTER=$(python3 -c "import json; print([r['address'] for r in json.load(open('$T/ours.json'))][0])")
OFF=$(symoff rmod_caller)
SZ=$(eu-readelf -s "$M/rmod.ko" | awk '$8 == "rmod_caller" { print $3 }')
A=$(printf '0x%x' $((TEXT + OFF)))
ms resolve --capture "$T/cap" --search "$M" --offline "$A"
check_grep "resolve text: header line" "^0x0*${A#0x}: rmod_caller\\+0x0/0x$(printf '%x' "$SZ") \\[rmod\\] \\.text\\+0x$(printf '%x' "$OFF")\$" "$T/out"
check_grep "resolve text: function at file:line" "^    rmod_caller at $M/rmod.c:[0-9]+:[0-9]+\$" "$T/out"

# Outside every module, core kernel symbols, and bad input.
ms resolve --capture "$T/cap" --search "$M" --offline 0x10 0xffffffffc0c00000
check_rc "resolve: addresses in no module: exit 1" 1
check_grep "resolve: 0x10 is in nothing (not a per-cpu symbol)" '^0x0000000000000010: in no module and no kernel symbol$' "$T/out"
ms resolve --capture "$T/cap" --search "$M" --offline 0xffffffff81000210
check_out "resolve: core kernel address from kallsyms, size to the next symbol" \
	"0xffffffff81000210: __schedule+0x10/0xe00 [kernel]"
# Aliases: the kernel names the first in kallsyms order (get_symbol_pos),
# whatever the names sort as (686's entry_SYSENTER_32).
ms resolve --capture "$T/cap" --search "$M" --offline 0xffffffff81001004
check_out "resolve: of aliases at one address, the first in kallsyms order" \
	"0xffffffff81001004: entry_SYSENTER_32+0x4/0x1000 [kernel]"
ms resolve --capture "$T/cap" --search "$M" --offline nonsense
check_refused "resolve: not an address: exit 3, no output" 3 'not an address'

# decode: return frames are looked up at address - 1, RIP exactly.
CALLS=$(objdump -d --no-show-raw-insn "$M/rmod.ko" | awk '
	/<rmod_caller>:/ { on = 1; next } /^$/ { on = 0 }
	on && /call/ { getline nxt; split(nxt, a, ":"); gsub(/ /, "", a[1]); print a[1] }')
RET=$(echo "$CALLS" | head -n 1)
check "decode fixture: a return address after a call in rmod_caller" test -n "$RET"
ROFF=$((0x$RET - OFF))
OUTER_OFF=$(symoff rmod_outer)
MID=$(awk '$2 ~ /rmod_leaf@.*\|rmod_mid@.*\|rmod_outer@/ { print $1; exit }' "$T/ours")
MOFF=$((MID - OUTER_OFF))
cat >"$T/oops" <<EOF
[   12.000001] WARNING: CPU: 0 PID: 1 at rmod.c:6 rmod_outer+0x$(printf '%x' $MOFF)/0x60 [rmod]
[   12.000002] RIP: 0010:rmod_outer+0x$(printf '%x' $MOFF)/0x60 [rmod]
[   12.000003] Call Trace:
[   12.000004]  <TASK>
[   12.000005]  rmod_caller+0x$(printf '%x' $ROFF)/0x40 [rmod]
[   12.000006]  ? schedule+0x10/0x100
[   12.000007]  </TASK>
EOF
exact=$(eu-addr2line -e "$M/rmod.ko" -j .text -i $(printf '0x%x' "$MID") | head -n 1)
outer_loc=$(eu-addr2line -e "$M/rmod.ko" -j .text -i $(printf '0x%x' "$MID") | tail -n 1)
ret_loc=$(eu-addr2line -e "$M/rmod.ko" -j .text $(printf '0x%x' $((0x$RET - 1))))
ret_at=$(eu-addr2line -e "$M/rmod.ko" -j .text "0x$RET")
ms decode --capture "$T/cap" --search "$M" --offline "$T/oops"
check_rc "decode: exit 0" 0
check_grep "decode: RIP frame's innermost inline first, at its exact line" "^\[   12\.000002\] RIP: 0010:rmod_leaf \(inlined\) ${exact}\$" "$T/out"
check_grep "decode: the RIP function line ends with where it called the inline" "^\[   12\.000002\] RIP: 0010:rmod_outer\+0x[0-9a-f]+/0x60 \[rmod\] ${outer_loc}\$" "$T/out"
check_grep "decode: return frame at address - 1 (the call's line)" "^\[   12\.000005\]  rmod_caller\+0x[0-9a-f]+/0x40 \[rmod\] ${ret_loc}\$" "$T/out"
if [ "$ret_loc" != "$ret_at" ]; then
	check_nogrep "decode: not the line of the return address itself" "rmod_caller.* ${ret_at}\$" "$T/out"
fi
check_grep "decode: core frame passes through" '^\[   12\.000006\]  \? schedule\+0x10/0x100$' "$T/out"
check_grep "decode: other lines pass through" '^\[   12\.000003\] Call Trace:$' "$T/out"

# From the module file alone: no capture, module found by --search.
ms decode --search "$M" --offline --moddir "$T/nomoddir" "$T/oops"
check_rc "decode without a map: exit 0" 0
check_grep "decode without a map: same return frame line" "rmod_caller\+0x[0-9a-f]+/0x40 \[rmod\] ${ret_loc}\$" "$T/out"
# Return address one past the end of its symbol stays in the symbol.
END=$(eu-readelf -s "$M/rmod.ko" | awk '$8 == "rmod_caller" { print $3 }')
echo "[   13.0] rmod_caller+0x$(printf '%x' "$END")/0x$(printf '%x' "$END") [rmod]" >"$T/oops2"
ms decode --search "$M" --offline --moddir "$T/nomoddir" "$T/oops2"
check_grep "decode: a return address just past its symbol is in the symbol" "rmod_caller\+0x[0-9a-f]+/0x[0-9a-f]+ \[rmod\] $M/rmod.c:[0-9]+" "$T/out"

finish
