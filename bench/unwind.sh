#!/bin/bash
# The unwind tables' cost, on the host: ORC read from the kernel image and
# turned into CFI (the kallsyms ELF's .debug_frame), against the same ELF
# without them, and the kernel image opened from modsect's cache against
# decompressed again (what `modsect follow` pays at each module event).
#
#   bench/unwind.sh [IMAGE]        (default: the first /boot/vmlinuz-*)
#   BENCH_RUNS=7 bench/unwind.sh
#
# A capture of the image's own kallsyms (tests/tools/kimage-dump --syms)
# stands for the target. Runs alternate between the variants, BENCH_RUNS
# rounds (default 5); per variant the median, min and max wall time, with
# the commands; then the tables' size. Output in bench/out/unwind/
# (gitignored).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out/unwind
runs=${BENCH_RUNS:-5}
img=${1:-$(ls /boot/vmlinuz-* | head -1)}
mkdir -p "$out"
make -s -C "$top" modsect build/tests/kimage-dump build/tests/orccfi
M=$top/modsect
export XDG_CACHE_HOME=$out/cache

"$top/build/tests/kimage-dump" --syms "$img" >"$out/kd.txt"
rel=$(sed -n 's/^banner: [^ ]* Linux version \([^ ]*\) .*/\1/p' "$out/kd.txt")
{
	echo "modsect-capture 1"
	echo "release $rel"
	echo "machine x86_64"
	echo "module fake live"
	echo "section fake .text 0xffffffffc0000000"
	grep -E '^[0-9a-f]{16} [A-Za-z] ' "$out/kd.txt" | sed 's/^/core /'
} >"$out/core.cap"

now() { date +%s.%N; }
# one NAME ARGS...: wall time of modsect kallsyms with ARGS
one() {
	local name=$1 t0 t1
	shift
	t0=$(now)
	"$M" kallsyms --capture "$out/core.cap" "$@" -o "$out/$name.elf"
	t1=$(now)
	echo "$name $(echo "$t1 - $t0" | bc -l)" >>"$out/times.tsv"
}
: >"$out/times.tsv"
for ((i = 0; i < runs; i++)); do
	one symbols
	rm -rf "$out/cache"
	one image-cold --kernel-image "$img"
	one image-cached --kernel-image "$img"
done

python3 - "$out/times.tsv" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    n, s = line.split()
    t.setdefault(n, []).append(float(s))
print("| variant | median s | min s | max s | runs |")
print("|---|---|---|---|---|")
for n in ("symbols", "image-cold", "image-cached"):
    v = t[n]
    print("| %s | %.3f | %.3f | %.3f | %d |" % (n, statistics.median(v), min(v), max(v), len(v)))
d = [c - s for c, s in zip(t["image-cached"], t["symbols"])]
print("\nORC read and CFI made (image-cached - symbols, per round): median %.3f s (%.3f-%.3f)"
      % (statistics.median(d), min(d), max(d)))
d = [c - w for c, w in zip(t["image-cold"], t["image-cached"])]
print("decompressing the image (image-cold - image-cached, per round): median %.3f s (%.3f-%.3f)"
      % (statistics.median(d), min(d), max(d)))
PY
echo
echo "commands: modsect kallsyms --capture core.cap [--kernel-image $img] -o X.elf"
echo "          (image-cold: with the cache emptied first)"
"$top/build/tests/orccfi" "$img" | head -1
ls -l "$out/symbols.elf" "$out/image-cached.elf" | awk '{ print $5, $NF }'
readelf -S -W "$out/image-cached.elf" | sed -n 's/.*\.debug_frame *PROGBITS *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\).*/.debug_frame: 0x\1 bytes/p'
