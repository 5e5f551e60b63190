#!/bin/bash
# decode of a crash collector's batch: 1,000 generated btrfs.ko oopses
# (gen.py batch, 10 to 40 frames each) in one stream, each report decoded
# on its own (its own machine, map and modules; issue #24), against the
# same reports decoded one process each, and against another modsect
# binary on the same stream (OLD=path: a build of an earlier commit).
# Runs alternate; median and spread of RUNS (5). Output identical is
# checked first.
#
#   bench/stream.sh            OLD=/path/to/old/modsect bench/stream.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out
RUNS=${RUNS:-5}
cd "$here"
./fetch.sh >/dev/null
make -s -C "$top" modsect
cp "$top/modsect" "$out/modsect.stream"
MS=$out/modsect.stream
KO=$out/btrfs.ko
W=$out/stream
rm -rf "$W"
mkdir -p "$W/one"
C=$W/cache
python3 gen.py batch "$KO" 1000 >"$W/batch.txt"
# The same reports, a file each (each opens with its "BUG:" line).
awk -v d="$W/one" '/BUG: /{n++} {print > sprintf("%s/%04d.txt", d, n)}' "$W/batch.txt"
nrep=$(ls "$W/one" | wc -l)

t() { local a b; a=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; b=$EPOCHREALTIME; echo "$b - $a" | bc; }
DEC=(decode --search "$out" --offline --cache-dir "$C")
stream() { "$MS" "${DEC[@]}" "$W/batch.txt"; }
each() { for f in "$W"/one/*.txt; do "$MS" "${DEC[@]}" "$f"; done; }
old() { "$OLD" "${DEC[@]}" "$W/batch.txt"; }

stream >"$W/stream.out"
each >"$W/each.out"
cmp -s "$W/stream.out" "$W/each.out" ||
	{ echo "stream.sh: the stream's output is not each report's own" >&2; exit 1; }
rows=(stream each)
if [ -n "${OLD:-}" ]; then
	old >"$W/old.out"
	cmp -s "$W/stream.out" "$W/old.out" || echo "stream.sh: note: $OLD's output differs" >&2
	rows+=(old)
fi
for _ in $(seq "$RUNS"); do
	for f in "${rows[@]}"; do t "$f" >>"$W/$f.times"; done
done
stats() { sort -g "$W/$1.times" | awk '{a[NR]=$1} END{printf "%.3f %.3f-%.3f\n", a[int((NR+1)/2)], a[1], a[NR]}'; }
read -r m _ <<<"$(stats stream)"
echo "| decode, $nrep reports ($(wc -l <"$W/batch.txt") lines) | median (s) | spread (s) | reports/s | time / the stream's |"
echo "|---|---:|---:|---:|---:|"
for f in "${rows[@]}"; do
	read -r med spread <<<"$(stats "$f")"
	case $f in
	stream) what="one stream, each report on its own" ;;
	each) what="one process per report" ;;
	old) what="one stream, $OLD" ;;
	esac
	printf '| %s | %s | %s | %.0f | %.1fx |\n' "$what" "$med" "$spread" \
		"$(echo "$nrep / $med" | bc -l)" "$(echo "$med / $m" | bc -l)"
done
