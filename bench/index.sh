#!/bin/bash
# bench/index.sh: modsect with and without its index (issue #14), side by
# side with what users run instead, on Debian's btrfs.ko (bench/fetch.sh):
#   - resolve of 100,000 uniform .text addresses: modsect from the index,
#     modsect --no-index, modsect's first run (reads the DWARF, writes the
#     index), GNU addr2line and llvm-symbolizer; eu-addr2line, which
#     takes three minutes for them, on the first 10,000 beside modsect on
#     the same 10,000;
#   - decode of a 10-frame oops: modsect from the index, modsect
#     --no-index, decode_stacktrace.sh;
#   - decode of many reports in one stream (batch), reports per second;
#   - the index: its size against the DWARF's, the time to build it.
# Runs alternate between the tools (ABAB...), RUNS times (default 5);
# each line gives the median, the spread (min-max) and the ratio of the
# medians. Writes bench/out/index.md; the inputs come from gen.py.
#   bench/index.sh            RUNS=7 bench/index.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out
RUNS=${RUNS:-5}
cd "$here"
./fetch.sh >/dev/null
make -s -C "$top" modsect
cp "$top/modsect" "$out/modsect.ix"
MS=$out/modsect.ix
KO=$out/btrfs.ko
BASE=ffffffffc1000000
LLVM=$(command -v llvm-symbolizer || ls /usr/bin/llvm-symbolizer-* | sort -V | tail -1)
DST=$out/decode_stacktrace.sh
BASEPATH=debian/build/build_amd64_none_amd64
W=$out/ix
rm -rf "$W"
mkdir -p "$W"
C=$W/cache

python3 gen.py capture "$KO" $BASE >"$W/capture.txt"
python3 gen.py random "$KO" 100000 1 >"$W/r.txt"
sed 's/^/0x/' "$W/r.txt" >"$W/r.off"
head -n 10000 "$W/r.off" >"$W/r10k.off"
python3 -c "import sys
b = int('$BASE', 16)
for l in open('$W/r.txt'):
    l = l.strip()
    if l: print('0x%x' % (b + int(l, 16)))" >"$W/r.abs"
head -n 10000 "$W/r.abs" >"$W/r10k.abs"
python3 gen.py oops "$KO" 10 1 >"$W/oops10.txt"
# The batch: 1,000 reports of 10 to 40 frames, one after another.
python3 gen.py batch "$KO" 1000 >"$W/batch.txt"

# time CMD...: seconds of one run (stdin, stdout as given by the caller).
# bash's own clock: a `date` process to read the time would add its exit
# and the next one's start, a few ms, to every run measured.
t() { local a b; a=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; b=$EPOCHREALTIME; echo "$b - $a" | bc; }

RES=(resolve --capture "$W/capture.txt" --search "$out" --offline --cache-dir "$C")
DEC=(decode --search "$out" --offline --cache-dir "$C")
ms_ix() { "$MS" "${RES[@]}" <"$W/r.abs"; }
ms_json() { "$MS" "${RES[@]}" --json <"$W/r.abs"; }
ms_noix() { "$MS" "${RES[@]}" --no-index <"$W/r.abs"; }
ms_first() { rm -rf "$C/index"; "$MS" "${RES[@]}" <"$W/r.abs"; }
# One address: with no index, the run is the index's making.
ms_first1() { rm -rf "$C/index"; "$MS" "${RES[@]}" "$(head -n 1 "$W/r.abs")"; }
ms_ix1() { "$MS" "${RES[@]}" "$(head -n 1 "$W/r.abs")"; }
a2l() { addr2line -a -e "$KO" -j .text -f -i <"$W/r.off"; }
llvm() { "$LLVM" -a --obj="$KO" <"$W/r.off"; }
ms_ix10k() { "$MS" "${RES[@]}" <"$W/r10k.abs"; }
eu10k() { eu-addr2line -a -e "$KO" -j .text -f -i <"$W/r10k.off"; }
dec_ix() { "$MS" "${DEC[@]}" "$W/oops10.txt"; }
dec_noix() { "$MS" "${DEC[@]}" --no-index "$W/oops10.txt"; }
dst() { "$DST" /nonexistent/vmlinux "$BASEPATH" "$out" <"$W/oops10.txt"; }
batch() { "$MS" "${DEC[@]}" "$W/batch.txt"; }

# The answers are the same with and without the index.
ms_first >"$W/first.txt"
ms_ix >"$W/ix.txt"
ms_noix >"$W/noix.txt"
cmp -s "$W/ix.txt" "$W/noix.txt" && cmp -s "$W/first.txt" "$W/noix.txt" ||
	{ echo "index.sh: answers differ with and without the index" >&2; exit 1; }
dec_ix >"$W/dec.ix"
dec_noix >"$W/dec.noix"
cmp -s "$W/dec.ix" "$W/dec.noix" ||
	{ echo "index.sh: decode differs with and without the index" >&2; exit 1; }

declare -A T
for i in $(seq 1 "$RUNS"); do
	for f in ms_ix a2l ms_json ms_noix llvm ms_first ms_ix10k eu10k dec_ix dst dec_noix batch ms_first1 ms_ix1; do
		T[$f]="${T[$f]:-} $(t $f)"
	done
	echo "run $i of $RUNS done" >&2
done
stats() { # median min max of the times of $1
	tr ' ' '\n' <<<"${T[$1]}" | sed '/^$/d' | sort -g |
		awk '{ a[NR] = $1 } END { printf "%.4f %.4f %.4f", a[int((NR + 1) / 2)], a[1], a[NR] }'
}
row() { # LABEL TOOL BASE
	local m lo hi bm
	read -r m lo hi <<<"$(stats "$2")"
	read -r bm _ _ <<<"$(stats "$3")"
	printf '| %s | %.3f | %.3f-%.3f | %.1fx |\n' "$1" "$m" "$lo" "$hi" "$(echo "$m / $bm" | bc -l)"
}
dwarf=$(eu-readelf -S "$KO" | awk '$2 ~ /^\.(debug_|rela\.debug_)/ { s += strtonum("0x" $6) } END { print s }' 2>/dev/null || echo 0)
[ "$dwarf" != 0 ] || dwarf=$(python3 -c "
import subprocess
t = 0
for l in subprocess.run(['readelf', '-SW', '$KO'], capture_output=True, text=True).stdout.split('\n'):
    f = l.replace('[ ', '[').split()
    if len(f) > 5 and (f[1].startswith('.debug_') or f[1].startswith('.rela.debug_')):
        t += int(f[5], 16)
print(t)")
ix=$(stat -c %s "$C"/index/*.ix)
nrep=$(grep -c 'Call Trace:' "$W/batch.txt")
read -r bm _ _ <<<"$(stats batch)"
{
	echo "# modsect index benchmark ($(date -u +%Y-%m-%d), commit $(git -C "$top" rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo
	echo "Reproduce: \`RUNS=$RUNS bench/index.sh\` (runs alternate tool by tool; median, min-max; ratio = that row's median / the first row's)."
	echo
	echo "| resolve, 100,000 btrfs.ko .text addresses | median (s) | spread (s) | time / modsect's with the index |"
	echo "|---|---:|---:|---:|"
	row "modsect, from the index" ms_ix ms_ix
	row "modsect --json, from the index" ms_json ms_ix
	row "modsect --no-index (libdw)" ms_noix ms_ix
	row "modsect, first run (libdw, writes the index)" ms_first ms_ix
	row "GNU addr2line -f -i -j .text" a2l ms_ix
	row "llvm-symbolizer --obj" llvm ms_ix
	echo
	echo "| resolve, the first 10,000 of them | median (s) | spread (s) | time / modsect's with the index |"
	echo "|---|---:|---:|---:|"
	row "modsect, from the index" ms_ix10k ms_ix10k
	row "eu-addr2line -f -i -j .text" eu10k ms_ix10k
	echo
	echo "| decode, a 10-frame oops | median (s) | spread (s) | time / modsect's with the index |"
	echo "|---|---:|---:|---:|"
	row "modsect decode, from the index" dec_ix dec_ix
	row "modsect decode --no-index" dec_noix dec_ix
	row "decode_stacktrace.sh" dst dec_ix
	echo
	printf 'Batch: %d reports (%d lines) decoded in one process in %.3f s: %.0f reports/s.\n' \
		"$nrep" "$(wc -l <"$W/batch.txt")" "$bm" "$(echo "$nrep / $bm" | bc -l)"
	echo
	read -r fm _ _ <<<"$(stats ms_first1)"
	read -r nm _ _ <<<"$(stats ms_ix1)"
	printf 'Building the index (resolve of one address with no index, minus with it, medians): %.2f s.\n' "$(echo "$fm - $nm" | bc -l)"
	printf 'Index of btrfs.ko: %d bytes; its DWARF (.debug_* and their relocations): %d bytes (%.1f%%).\n' \
		"$ix" "$dwarf" "$(echo "100 * $ix / $dwarf" | bc -l)"
} | tee "$out/index.md"
