#!/bin/bash
# bench/scale.sh [SIZES...]: how modsect scales with the number of modules.
# Generates a capture of N modules (default 100, 1000, 10000) of 50
# sections each, one small .ko with those 50 sections (gcc, section
# attributes) and a --search tree of symlinks modNNNNN.ko to it, then times
# `capture --capture` (parse + write), `list --capture` and
# `gdb --all --capture` with /usr/bin/time -v: wall time and peak RSS.
# Prints a table (Markdown) and whether time grows linearly.
# MODSECT selects the binary (default ./modsect, the -O2 build).
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
MODSECT=${MODSECT:-$TOP/modsect}
SIZES=${*:-100 1000 10000}
NSEC=50
W=$(mktemp -d "${TMPDIR:-/tmp}/modsect-scale.XXXXXX")
trap 'rm -rf "$W"' EXIT

# One module file with NSEC allocated sections: .text plus 49 more.
{
	echo 'int f_text(int x) { return x + 1; }'
	for i in $(seq 1 $((NSEC - 1))); do
		printf '__attribute__((section(".text.s%02d"))) int f%02d(int x) { return x * %d; }\n' "$i" "$i" "$i"
	done
} >"$W/m.c"
gcc -O2 -fno-pic -fno-asynchronous-unwind-tables -c -o "$W/m.o" "$W/m.c"
ld -r --build-id=sha1 -o "$W/mod.ko" "$W/m.o"
BID=$(readelf -n "$W/mod.ko" | awk '/Build ID:/ { print $3 }')
mkdir -p "$W/moddir"

gen() { # gen N: capture and search tree of N modules
	local n=$1
	mkdir -p "$W/tree$n"
	python3 - "$n" "$NSEC" "$BID" "$W/cap$n" "$W/tree$n" "$W/mod.ko" <<'PY'
import os, sys
n, nsec, bid, cap, tree, ko = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
with open(cap, "w") as f:
    f.write("modsect-capture 1\nrelease 6.1.0-scale\nmachine x86_64\n")
    for m in range(n):
        name = "mod%05d" % m
        base = 0xffffffffc0000000 + m * 0x10000
        f.write("module %s live\nbuild-id %s %s\n" % (name, name, bid))
        f.write("section %s .text 0x%016x\n" % (name, base))
        for s in range(1, nsec):
            f.write("section %s .text.s%02d 0x%016x\n" % (name, s, base + s * 0x200))
        os.symlink(ko, os.path.join(tree, name + ".ko"))
PY
}

# run LABEL CMD...: prints "seconds maxrss_kb" of one run.
run() {
	/usr/bin/time -v -o "$W/time" "$@" >/dev/null 2>"$W/err" || {
		echo "scale: failed: $*" >&2
		cat "$W/err" >&2
		exit 1
	}
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = t[n] + 60 * t[n - 1] + (n > 2 ? 3600 * t[n - 2] : 0) }
		/Maximum resident set size/ { r = $2 } END { printf "%.2f %d\n", s, r }' "$W/time"
}

echo "| modules | sections | command | seconds | peak RSS (MB) | seconds per 1000 modules |"
echo "|---:|---:|---|---:|---:|---:|"
declare -A T0
for n in $SIZES; do
	gen "$n"
	for c in capture list gdb; do
		case $c in
		capture) set -- "$MODSECT" capture --capture "$W/cap$n" -o "$W/out$n.cap" ;;
		list) set -- "$MODSECT" list --capture "$W/cap$n" --moddir "$W/moddir" --search "$W/tree$n" ;;
		gdb) set -- "$MODSECT" gdb --all --offline --capture "$W/cap$n" --moddir "$W/moddir" --search "$W/tree$n" -o "$W/out$n.gdb" ;;
		esac
		read -r s kb < <(run "$@")
		printf '| %d | %d | `%s` | %.2f | %.1f | %.3f |\n' "$n" $((n * NSEC)) "$c" "$s" \
			"$(echo "$kb / 1024" | bc -l)" "$(echo "$s * 1000 / $n" | bc -l)"
		T0[$c,$n]=$s
	done
	rm -rf "$W/tree$n" "$W/cap$n" "$W/out$n".*
done
