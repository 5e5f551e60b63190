#!/bin/bash
# Rule 21: modules built with clang have source lines (issue #24).
# clang writes no .debug_aranges unless given -gdwarf-aranges, which the
# kernel's scripts/Makefile.debug does not pass (under CONFIG_CC_IS_CLANG
# it gives -g and -gdwarf-4 or -gdwarf-5, nothing else that changes the
# DWARF of a module built without CONFIG_DEBUG_INFO_SPLIT), and libdw
# 0.188 finds an address's CU only through .debug_aranges. Modules of two
# CUs (-O2, inlined calls two deep, a cold part in .text.unlikely., an
# .init.text function, so the CUs have DW_AT_ranges: .debug_ranges in
# DWARF 4, .debug_rnglists in DWARF 5) are built with those flags for
# x86-64 and arm64 (--target=aarch64-linux-gnu), DWARF 4 linked with GNU
# ld -r and DWARF 5 with ld.lld -r (LLVM=1). Every instruction of every
# function in .text, .text.unlikely. and .init.text (a coming module)
# gives with `resolve` binutils' addr2line -f -i (which finds CUs by their
# own ranges): function, file:line and inline chain; from the DWARF
# (--no-index), on the run that writes the index and on one that answers
# from it. `decode` of an oops frame "func+0x../0x.. [mod]" inside the
# inlined calls names each, at addr2line's lines.
. "$(dirname "$0")/lib.sh"
need clang ld ld.lld aarch64-linux-gnu-ld objdump aarch64-linux-gnu-objdump \
	addr2line aarch64-linux-gnu-addr2line llvm-symbolizer readelf python3 jq || finish

M=$T/m
mkdir -p "$M"
cat >"$M/a.c" <<'EOF'
volatile int cl_sink;
int cl_data = 3;

static inline __attribute__((always_inline)) int cl_leaf(int x)
{
	cl_sink = x * 3;
	return x + cl_data;
}

static inline __attribute__((always_inline)) int cl_mid(int x)
{
	int y = cl_leaf(x + 1);

	return y * cl_leaf(y);
}

__attribute__((noinline, cold)) void cl_slow(int x)
{
	cl_sink = x;
}

__attribute__((noinline)) int cl_outer(int x)
{
	if (__builtin_expect(x == 12345, 0)) {
		cl_slow(x);
		cl_sink = cl_mid(x + 7);
		return 1;
	}
	return cl_mid(x) + 1;
}

__attribute__((section(".init.text"), noinline)) int cl_init(void)
{
	return cl_outer(cl_sink) + cl_mid(2);
}
EOF
cat >"$M/b.c" <<'EOF'
extern volatile int cl_sink;
int cl_outer(int x);

static inline __attribute__((always_inline)) int cl_twice(int x)
{
	cl_sink = x;
	return cl_outer(x) + cl_outer(x + 1);
}

__attribute__((noinline)) int cl_caller(int x)
{
	int r = cl_twice(x);

	cl_sink = r;
	return cl_twice(r) + 2;
}
EOF

# build NAME TARGET-FLAGS DWARF LD: $M/NAME/clmod.ko, a module of a.c and
# b.c built with the kernel's flags for clang (-g -gdwarf-N; -O2;
# -mcmodel=kernel on x86-64), from the top of the tree with paths relative
# to it, as Kbuild does.
build() {
	local d=m/$1 c cc
	mkdir -p "$T/$d"
	for c in a b; do
		cc=clang
		# A module of a CU of each: .debug_aranges of gcc's CU only.
		[ "$c" = b ] && [ "${3%-gcc}" != "$3" ] && cc=gcc
		# shellcheck disable=SC2086
		(cd "$T" && $cc $2 -fno-pic -O2 -g -gdwarf-${3%-gcc} -c -o "$d/$c.o" "m/$c.c") || return 1
	done
	(cd "$T" && $4 -r --build-id=sha1 -o "$d/clmod.ko" "$d/a.o" "$d/b.o")
}

# secs KO: "NAME INDEX" of each section.
secs() { readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .*/\2 \1/p'; }

# funcs KO SEC: "VALUE SIZE NAME" (decimal) of SEC's functions.
funcs() {
	local ndx
	ndx=$(secs "$1" | awk -v s="$2" '$1 == s { print $2 }')
	readelf -sW "$1" | awk -v n="$ndx" '$4 == "FUNC" && $7 == n { print $2, $3, $8 }' |
		while read -r v s name; do echo $((16#$v)) "$s" "$name"; done
}

# The reference tools' answers as "OFFSET func@file:line|..." (innermost
# first): binutils' addr2line -a -p -f -i ("0xADDR: func at file:line",
# then " (inlined by) func at file:line" per caller; line 0 is "?", no line
# "??:0" or "??:?"), or llvm-symbolizer's blocks of "func" and
# "file:line:col" lines. Both put the compilation directory before a
# file's directory that libdw leaves relative (DWARF 4's
# include_directories, as eu-addr2line prints them): that prefix goes,
# here and in modsect's answers.
cat >"$T/ref.py" <<'PY'
import re, sys
kind, raw, offs, top = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] + '/'
offs = open(offs).read().split()
rel = lambda p: p[len(top):] if p.startswith(top) else p
out = []
if kind == 'binutils':
    for line in open(raw).read().split('\n'):
        if not line:
            continue
        m = re.match(r'0x[0-9a-f]+: (.*)', line)
        if m:
            out.append([])
            line = m.group(1)
        line = re.sub(r' \(discriminator \d+\)$', '', line.strip())
        line = re.sub(r'^\(inlined by\) ', '', line)
        func, loc = line.split(' at ', 1)
        loc = '??:0' if loc.startswith('??:') else re.sub(r':\?$', ':0', loc)
        out[-1].append('%s@%s' % (func, rel(loc)))
else:
    for block in open(raw).read().strip('\n').split('\n\n'):
        l = block.split('\n')
        out.append(['%s@%s' % (l[i], rel(re.sub(r'(:\d+):\d+$', r'\1', l[i + 1])))
                    for i in range(0, len(l), 2)])
for o, frames in zip(offs, out):
    print(int(o, 16), '|'.join(frames))
PY

# reference KO SEC OFFS: the reference tool's ($REFTOOL) answers for the
# offsets in SEC listed in OFFS. llvm-symbolizer reads a copy linked with
# the sections apart (in a relocatable file they all start at 0).
reference() {
	local at
	if [ "$REFTOOL" = llvm-symbolizer ]; then
		at=$(awk -v s="$2" '$1 == s { print $2 }' "$T/ref.at")
		while read -r o; do printf '0x%x\n' $((at + o)); done <"$3" |
			llvm-symbolizer --obj="$1.linked" >"$T/ref.raw"
		python3 "$T/ref.py" llvm "$T/ref.raw" "$3" "$T"
	else
		"$REFTOOL" -e "$1" -j "$2" -a -p -f -i $(cat "$3") >"$T/ref.raw"
		python3 "$T/ref.py" binutils "$T/ref.raw" "$3" "$T"
	fi
}

# prepare KO OBJDUMP SEC: $T/offs, the offsets of every instruction inside
# a function of SEC, and $T/ref, "OFFSET func@file:line|..." of each.
prepare() {
	local v sz name o
	funcs "$1" "$3" >"$T/funcs"
	"$2" -d --no-show-raw-insn -j "$3" "$1" | awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print $1 }' |
		while read -r o; do
			o=$((16#$o))
			while read -r v sz name; do
				if [ "$o" -ge "$v" ] && [ "$o" -lt $((v + sz)) ]; then
					printf '0x%x\n' "$o"
					break
				fi
			done <"$T/funcs"
		done >"$T/offs"
	reference "$1" "$3" "$T/offs" >"$T/ref"
}

# ours KO BASE CAP [OPTION...]: $T/ours, resolve's answers for $T/offs
# (SEC at BASE in CAP) as $T/ref has them.
ours() {
	local ko=$1 base=$2 cap=$3 o
	shift 3
	while read -r o; do printf '0x%x\n' $((base + o)); done <"$T/offs" |
		"$MODSECT" resolve --json --capture "$cap" --search "$(dirname "$ko")" \
			--offline "$@" >"$T/ours.json" 2>"$T/err"
	RC=$?
	jq -r '.[] | [.frames[] | "\(.function)@\(.file // "??"):\(.line)"] | join("|")' \
		"$T/ours.json" | sed "s|$T/||g" >"$T/ours.frames"
	while read -r o; do echo $((o)); done <"$T/offs" | paste -d ' ' - "$T/ours.frames" >"$T/ours"
}

# ref_frames KO OFF: the reference's frames at .text+OFF, one per line as
# "FUNC LOCATION", innermost first.
ref_frames() {
	printf '0x%x\n' "$2" >"$T/one"
	reference "$1" .text "$T/one" | cut -d ' ' -f 2- | tr '|' '\n' | sed 's/@/ /'
}

# suite NAME TARGET-FLAGS DWARF LD OBJDUMP REFTOOL MACHINE BASE: builds
# the module and checks every function instruction of its text sections
# against REFTOOL (addr2line or llvm-symbolizer), and decode of one frame
# inside two inlined calls.
suite() {
	local name=$1 od=$5 machine=$7 base=$8 ko sec i off
	local -a fl
	REFTOOL=$6
	ko=$M/$name/clmod.ko
	build "$1" "$2" "$3" "$4" || {
		not_ok "$name: build the module"
		return
	}
	if [ "${3%-gcc}" = "$3" ]; then
		check "$name: the module has no .debug_aranges (clang's default)" \
			test -z "$(secs "$ko" | awk '$1 == ".debug_aranges"')"
	else
		check "$name: the module has .debug_aranges (gcc's CU's)" \
			test -n "$(secs "$ko" | awk '$1 == ".debug_aranges"')"
	fi
	check "$name: the module has .text.unlikely. and .init.text" \
		test "$(secs "$ko" | awk '$1 == ".text.unlikely." || $1 == ".init.text"' | wc -l)" = 2
	{
		echo "modsect-capture 1"
		echo "release $REL"
		echo "machine $machine"
		echo "module clmod coming"
		i=0
		for sec in .text .text.unlikely. .init.text .data; do
			printf 'section clmod %s 0x%x\n' "$sec" $((base + i * 0x10000))
			i=$((i + 1))
		done
	} >"$T/$name.cap"
	# llvm-symbolizer's copy: each text section at 1 MiB times its rank
	# (.text.unlikely. is .text.unlikely in it, not merged into .text).
	printf '.text 0x100000\n.text.unlikely. 0x200000\n.init.text 0x300000\n' >"$T/ref.at"
	if [ "$REFTOOL" = llvm-symbolizer ]; then
		ld.lld -z keep-text-section-prefix -o "$ko.linked" -e 0 \
			--section-start=.text=0x100000 \
			--section-start=.text.unlikely=0x200000 \
			--section-start=.init.text=0x300000 "$ko" ||
			not_ok "$name: link the copy llvm-symbolizer reads"
	fi
	i=0
	for sec in .text .text.unlikely. .init.text; do
		off=$((base + i * 0x10000))
		i=$((i + 1))
		prepare "$ko" "$od" "$sec"
		ours "$ko" "$off" "$T/$name.cap" --no-index
		check "$name $sec: compared $(wc -l <"$T/ref") instructions" test "$(wc -l <"$T/ref")" -gt 1
		check "$name $sec: $REFTOOL has a line for every one" test -z "$(grep -F '??:0' "$T/ref")"
		check_same "$name $sec, --no-index: every function instruction as $REFTOOL says (function, file:line, inlined calls)" \
			"$T/ref" "$T/ours"
		check_rc "$name $sec, --no-index: exit 0" 0
		cp "$T/ours" "$T/direct$sec"
		ours "$ko" "$off" "$T/$name.cap" --cache-dir "$T/cache-$name"
		check_same "$name $sec, the run that may write the index: the same" "$T/ref" "$T/ours"
		check "$name $sec: an index was written" test -n "$(ls "$T/cache-$name"/index/*.ix 2>/dev/null)"
		ours "$ko" "$off" "$T/$name.cap" --cache-dir "$T/cache-$name"
		check_same "$name $sec, from the index: the same" "$T/ref" "$T/ours"
		check "$name $sec, from the index: nothing on stderr" test ! -s "$T/err"
	done
	check_grep "$name: inline chains two deep are seen" 'cl_leaf@[^|]*\|cl_mid@[^|]*\|cl_outer@' "$T/direct.text"

	# decode: a return address (a call trace's entry) whose call, at
	# address - 1, is inside cl_leaf inlined in cl_mid inlined in
	# cl_outer, given as the kernel prints it.
	local fo fs o
	read -r fo fs < <(funcs "$ko" .text | awk '$3 == "cl_outer" { print $1, $2 }')
	"$od" -d --no-show-raw-insn -j .text "$ko" | awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print $1 }' |
		while read -r o; do
			o=$((16#$o))
			[ "$o" -le "$fo" ] || [ "$o" -ge $((fo + fs)) ] || printf '0x%x\n' $((o - 1))
		done >"$T/calls"
	o=$(reference "$ko" .text "$T/calls" | awk -F '|' 'NF >= 3 { print $1 + 1; exit }')
	check "$name: an instruction of cl_outer after one inside cl_leaf inside cl_mid" test -n "$o"
	[ -n "$o" ] || return
	local frame pre="[   12.345678]  "
	frame=$(printf 'cl_outer+0x%x/0x%x [clmod]' $((o - fo)) "$fs")
	printf '%s? dump_stack+0x10/0x20\n%s%s\n' "$pre" "$pre" "$frame" >"$T/oops"
	mapfile -t fl < <(ref_frames "$ko" $((o - 1)))
	{
		printf '%s? dump_stack+0x10/0x20\n' "$pre"
		for ((i = 0; i < ${#fl[@]} - 1; i++)); do
			printf '%s%s (inlined) %s\n' "$pre" "${fl[i]%% *}" "${fl[i]#* }"
		done
		printf '%s%s %s\n' "$pre" "$frame" "${fl[${#fl[@]} - 1]#* }"
	} >"$T/oops.exp"
	for opt in --no-index ""; do
		# shellcheck disable=SC2086
		ms decode --capture "$T/$name.cap" --search "$M/$name" --offline --cache-dir "$T/cache-$name" $opt "$T/oops"
		sed -E -e 's/(:[0-9]+):[0-9]+/\1/g' -e "s|$T/||g" "$T/out" >"$T/oops.out"
		check_same "$name decode ${opt:-(index)}: the frame at $REFTOOL's lines (at address - 1), each inlined call named (columns aside)" \
			"$T/oops.exp" "$T/oops.out"
	done
}

suite x86-64-dwarf4 -mcmodel=kernel 4 ld objdump addr2line x86_64 0xffffffffc0b00000
suite x86-64-dwarf5 -mcmodel=kernel 5 ld.lld objdump addr2line x86_64 0xffffffffc0c00000
# Partial .debug_aranges: a.c by clang, b.c by gcc (which writes them).
suite x86-64-mixed -mcmodel=kernel 5-gcc ld objdump addr2line x86_64 0xffffffffc0d00000
suite arm64-dwarf4 --target=aarch64-linux-gnu 4 aarch64-linux-gnu-ld \
	aarch64-linux-gnu-objdump aarch64-linux-gnu-addr2line aarch64 0xffff80000a1b0000
# binutils 2.40's aarch64 addr2line loses the inlined calls of this one
# (in .text; llvm-symbolizer and x86-64's addr2line of the same source
# see them): llvm-symbolizer is the reference.
suite arm64-dwarf5 --target=aarch64-linux-gnu 5 ld.lld \
	aarch64-linux-gnu-objdump llvm-symbolizer aarch64 0xffff80000a1c0000
finish
