#!/bin/bash
# modsect follow's cost per module load, under TCG: gdb attached to the
# gdbstub follows the test module through unloads and loads, and each load
# event says its wall time, modsect's own CPU time, and gdb's load of the
# symbols (MODSECT_FOLLOW_TIMES, share/gdb/modsect.py).
#
#   bench/follow.sh                (as root; boots Debian's kernel in QEMU)
#   BENCH_RUNS=9 bench/follow.sh   (load events per variant, default 5)
#
# Variants, one gdb session each, in turn: `modsect follow --kernel-image
# VMLINUZ` with modsect's cache emptied first (the first event decompresses
# the image and keeps it), the same with the cache kept, `modsect follow`
# with no image (kallsyms and BTF from memory at every event), and with
# the image but no cache (it is decompressed at every event, as before).
# Prints per variant the median, min and max of each time, and writes
# bench/out/follow/ (gitignored).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out/follow
runs=${BENCH_RUNS:-5}
mkdir -p "$out"
make -s -C "$top" modsect modsect-static
export MODSECT=$top/modsect MODSECT_STATIC=$top/modsect-static
export MODSECT_VM_OUT=$here/out/vm MODSECT_VM_RUN=$here/out/vm/run
export MODSECT_FOLLOW_TIMES=1 XDG_CACHE_HOME=$out/cache
# shellcheck source=../tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
vm_setup
vm_start
TD=$(dirname "$VM_TESTMOD_KO")

session() {
	local name=$1 args=$2
	cat >"$out/$name.gdb" <<GDB
set pagination off
set confirm off
target remote 127.0.0.1:$VM_GDB_PORT
source $top/share/gdb/modsect.py
modsect follow $args --search $TD
break modsect_test_poke
shell printf 'cycle $runs\\n' > $VM_RUN/trigger.in
continue
delete
modsect follow off
detach
GDB
	timeout 600 gdb -q -nx -batch -x "$out/$name.gdb" >"$out/$name.out" 2>&1 </dev/null
	vm_wait_for "^==MODSECT-ACK [0-9]+ cycle $runs rc=0==\$" 120
	sed -n "s/^modsect: event \([0-9.]*\) s, modsect's cpu \([0-9.]*\) s, gdb's load \([0-9.]*\) s$/$name \1 \2 \3/p" \
		"$out/$name.out" >>"$out/events.tsv"
}
: >"$out/events.tsv"
rm -rf "$out/cache"
session image-cold "--kernel-image $VM_KERNEL"
session image "--kernel-image $VM_KERNEL"
session memory ""
# No cache to keep the decompressed image in (a file where its directory
# would be): every event decompresses it, as before the cache.
rm -rf "$out/cache" && mkdir -p "$out/cache/modsect" && : >"$out/cache/modsect/kernels"
session image-no-cache "--kernel-image $VM_KERNEL"
vm_stop

python3 - "$out/events.tsv" <<'PY'
import statistics, sys
ev = {}
for line in open(sys.argv[1]):
    n, *v = line.split()
    ev.setdefault(n, []).append([float(x) for x in v])
print("| variant | events | event s (median, min-max) | modsect's CPU s | gdb's load s |")
print("|---|---|---|---|---|")
for n in ("image-cold", "image", "memory", "image-no-cache"):
    rows = ev.get(n, [])
    cols = list(zip(*rows)) if rows else [[], [], []]
    f = lambda c: "%.3f (%.3f-%.3f)" % (statistics.median(c), min(c), max(c)) if c else "-"
    print("| %s | %d | %s | %s | %s |" % (n, len(rows), f(cols[0]), f(cols[1]), f(cols[2])))
PY
echo "(image-cold: the cache emptied before the session; its first event decompresses the image)"
