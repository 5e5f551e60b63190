#!/bin/bash
# The whole benchmark: fetch the inputs (fetch.sh), build modsect, generate
# the addresses and oopses, compare every tool's answers with modsect's,
# time them, and write out/summary.md (the tables of docs/benchmarks.md).
#
#   bench/run.sh              everything (about 15 minutes, most of it
#                             eu-addr2line on 100,000 addresses)
#   BENCH_QUICK=1 bench/run.sh   skip the 100,000-address set
#   BENCH_ONLY=decode bench/run.sh   only the decode part (keeps the
#                             resolve results already in out/)
#
# Everything it writes goes to bench/out/ (gitignored).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out
cd "$here"

./fetch.sh
make -s -C "$top" modsect
# a copy: another make in the tree must not change the binary mid-run
cp "$top/modsect" "$out/modsect"
MODSECT=$out/modsect
commit=$(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- lib tools Makefile || echo -dirty)
KO=$out/btrfs.ko
BASE=ffffffffc1000000
SEED=1
LLVM=$(command -v llvm-symbolizer || ls /usr/bin/llvm-symbolizer-* | sort -V | tail -1)
DST=$out/decode_stacktrace.sh
BASEPATH=debian/build/build_amd64_none_amd64   # DW_AT_comp_dir of Debian's build
res=$out/results.tsv
log=$out/run.log
only=${BENCH_ONLY:-}
if [ "$only" != decode ]; then : > "$res"; : > "$log"; fi

say() { echo "$*" | tee -a "$log" >&2; }
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

if [ "$only" != decode ]; then
# --- inputs ---------------------------------------------------------------
python3 gen.py capture "$KO" $BASE > "$out/capture.txt"
sets="1 1000 10000"
[ -n "${BENCH_QUICK:-}" ] || sets="$sets 100000"
for n in $sets; do
	python3 gen.py random "$KO" $n $SEED > "$out/r$n.txt"
done
python3 gen.py returns "$KO" > "$out/ret.txt"
sets="$(for n in $sets; do printf 'r%s ' $n; done)ret"
for s in $sets; do
	sed 's/^/0x/' "$out/$s.txt" > "$out/$s.off"           # .text offsets
	python3 -c "import sys; b=int('$BASE',16)
for l in sys.stdin:
    l=l.strip()
    if l: print('0x%x' % (b+int(l,16)))" < "$out/$s.txt" > "$out/$s.abs"  # runtime
done

# --- the commands, each reading addresses on stdin ------------------------
run_tool() {	# TOOL SET: answers into out/SET.TOOL
	local t=$1 s=$2
	case $t in
	modsect) "$MODSECT" resolve --capture "$out/capture.txt" --search "$out" \
			--offline < "$out/$s.abs" > "$out/$s.modsect" || [ $? = 1 ] ;;
	eu) eu-addr2line -a -e "$KO" -j .text -f -i < "$out/$s.off" > "$out/$s.eu" ;;
	bu) addr2line -a -e "$KO" -j .text -f -i < "$out/$s.off" > "$out/$s.bu" ;;
	llvm) "$LLVM" -a --obj="$KO" < "$out/$s.off" > "$out/$s.llvm" ;;
	esac
}

# time TOOL SET: median of 3 runs (1 when a run takes over 60 s);
# eu-addr2line on the 100,000 set: once, under a 600 s timeout, else
# extrapolated from the 10,000 set
time_tool() {
	local t=$1 s=$2 n times=() t0 t1 d i note=
	n=$(wc -l < "$out/$s.txt")
	if [ "$t" = eu ] && [ "$s" = r100000 ]; then
		t0=$(now)
		if timeout 600 bash -c "$(declare -f run_tool); out=$out KO=$KO; run_tool eu $s"; then
			t1=$(now); times=($(echo "$t1 - $t0" | bc))
			note="1 run"
		else
			d=$(awk -F'\t' '$1=="eu" && $2=="r10000" {print $4}' "$res")
			times=($(echo "$d * 10" | bc)); note="timed out at 600 s; extrapolated from 10,000 (x10)"
		fi
	else
		for i in 1 2 3; do
			t0=$(now); run_tool "$t" "$s"; t1=$(now)
			d=$(echo "$t1 - $t0" | bc); times+=("$d")
			[ "$(echo "$d > 60" | bc)" = 1 ] && { note="1 run"; break; }
		done
		[ -n "$note" ] || note="median of 3: ${times[*]}"
	fi
	d=$(printf '%s\n' "${times[@]}" | median)
	printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$s" "$n" "$d" "$note" >> "$res"
	say "$(printf '%-8s %-8s %7s addresses %9.3f s  (%s)' "$t" "$s" "$n" "$d" "$note")"
}

for s in $sets; do
	for t in modsect eu bu llvm; do
		time_tool $t $s
	done
done

# --- agreement --------------------------------------------------------------
agree_sets="r10000 ret"
[ -n "${BENCH_QUICK:-}" ] || agree_sets="r100000 ret"
for s in $agree_sets; do
	for t in eu bu llvm; do
		[ -s "$out/$s.$t" ] || continue
		python3 compare.py $t "$KO" "$out/$s.txt" "$out/$s.modsect" "$out/$s.$t" \
			--examples 5 --json "$out/agree-$s-$t.json" > "$out/agree-$s-$t.txt" || true
		head -1 "$out/agree-$s-$t.txt" | sed "s/^/$s /" | tee -a "$log" >&2
	done
	python3 consensus.py "$KO" "$out/$s" > "$out/consensus-$s.txt" || true
	head -3 "$out/consensus-$s.txt" | sed "s/^/$s /" | tee -a "$log" >&2
done

fi # resolve

# --- decode -----------------------------------------------------------------
rm -f "$out/decode.tsv"
for n in 10 50 200; do
	python3 gen.py oops "$KO" $n $SEED > "$out/oops$n.txt"
	python3 gen.py callsite < "$out/oops$n.txt" > "$out/oops$n-call.txt"
	for t in modsect dst; do
		times=()
		for i in 1 2 3; do
			t0=$(now)
			if [ $t = modsect ]; then
				"$MODSECT" decode --search "$out" --offline "$out/oops$n.txt" > "$out/oops$n.modsect"
			else
				"$DST" /nonexistent/vmlinux "$BASEPATH" "$out" < "$out/oops$n.txt" > "$out/oops$n.dst" 2>/dev/null
			fi
			t1=$(now); times+=("$(echo "$t1 - $t0" | bc)")
		done
		d=$(printf '%s\n' "${times[@]}" | median)
		printf '%s\t%s\t%s\t%s\n' $t $n "$d" "${times[*]}" >> "$out/decode.tsv"
		say "$(printf 'decode %-8s %4s frames %8.3f s (median of 3: %s)' $t $n "$d" "${times[*]}")"
	done
	# decode_stacktrace.sh looks a frame up at the return address, modsect
	# at the call (return address - 1): also compare with
	# decode_stacktrace.sh given the call's offsets
	"$DST" /nonexistent/vmlinux "$BASEPATH" "$out" < "$out/oops$n-call.txt" > "$out/oops$n.dst-call" 2>/dev/null
	python3 decode_cmp.py "$out/oops$n.txt" "$out/oops$n.modsect" "$out/oops$n.dst" \
		--examples 5 > "$out/decode-agree-$n.txt" || true
	python3 decode_cmp.py "$out/oops$n.txt" "$out/oops$n.modsect" "$out/oops$n.dst-call" \
		--examples 5 > "$out/decode-agree-$n-call.txt" || true
	say "decode $n as is:     $(head -1 "$out/decode-agree-$n.txt")"
	say "decode $n call site: $(head -1 "$out/decode-agree-$n-call.txt")"
done

# --- machine and versions ---------------------------------------------------
{
	echo "nproc: $(nproc)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "ram: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "kernel: $(uname -r)"
	echo "modsect: $("$MODSECT" --version 2>&1 | head -1) (commit $commit)"
	echo "libdw: $(dpkg-query -W -f '${Version}' libdw1 2>/dev/null)"
	echo "eu-addr2line: $(eu-addr2line --version | head -1)"
	echo "addr2line: $(addr2line --version | head -1)"
	echo "llvm-symbolizer: $("$LLVM" --version | grep -i version | head -1 | sed 's/^ *//')"
	echo "decode_stacktrace.sh: from linux-source-$(cut -d. -f1,2 "$out/release") $(dpkg-query -W -f '${Version}' "linux-image-$(cat "$out/release")" 2>/dev/null)"
	echo "btrfs.ko: $(stat -c %s "$KO") bytes, .text $(python3 -c "import gen; print(hex(gen.text_size('$KO')))"), from linux-image-$(cat "$out/release")-dbg"
} > "$out/machine.txt"
cat "$out/machine.txt" | tee -a "$log" >&2

python3 summary.py "$out" > "$out/summary.md"
cat "$out/summary.md"
