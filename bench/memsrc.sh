#!/bin/bash
# The memory source under TCG: how many round trips and how long a map of
# about 55 modules takes over QEMU's gdbstub (with the booted vmlinuz, and
# with nothing but memory) and from a vmcore, each checked against the
# guest's own sysfs capture of the same boot.
#
#   bench/memsrc.sh            (as root; boots Debian's kernel in QEMU)
#   BENCH_RUNS=7 bench/memsrc.sh
#
# Runs alternate between the variants (remote+image, remote, vmcore ELF,
# vmcore+image), BENCH_RUNS rounds (default 5); prints per variant the
# median, min and max wall time, the requests (round trips) and bytes, and
# writes bench/out/memsrc.md. Output goes to bench/out/ (gitignored).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out
mkdir -p "$out"
runs=${BENCH_RUNS:-5}

make -s -C "$top" modsect modsect-static
cp "$top/modsect" "$out/modsect"
M=$out/modsect
export MODSECT_STATIC=$top/modsect-static
export MODSECT_VM_OUT=$out/vm MODSECT_VM_RUN=$out/vm/run
# 55-60 modules with their dependencies: filesystems, device mapper, RAID,
# networking, crypto; all load in a TCG guest without hardware.
export MODSECT_VM_STOCK_MODULES=${BENCH_MODULES:-"qemu_fw_cfg btrfs xfs ext4 dm-crypt raid456 isofs udf nls_utf8 vfat nfsv4 fuse overlay squashfs loop zram sctp bridge vxlan wireguard ceph"}
export MODSECT_VM_MEM=1024M
# shellcheck source=../tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
vm_setup
vm_start
R=$VM_RUN
img=$VM_KERNEL
nmod=$(grep -c '^module ' "$R/capture.txt")
echo "guest: $VM_KREL, $nmod modules in its own capture" >&2

vm_dump "$out/core.elf" elf
want=$out/want.txt
grep -v '^#' "$R/capture.txt" >"$want"

now() { date +%s.%N; }
# one VARIANT: time, requests and bytes, and the map must equal the guest's
one() {
	local name=$1 t0 t1 stats
	shift
	t0=$(now)
	MODSECT_MEM_STATS=1 "$M" capture "$@" -o "$out/got-$name.txt" 2>"$out/stats-$name.txt"
	t1=$(now)
	grep -v '^#' "$out/got-$name.txt" | cmp -s - "$want" ||
		{ echo "$name: map differs from the guest's capture" >&2; exit 1; }
	stats=$(sed -n 's/.*: \([0-9]*\) requests, \([0-9]*\) bytes/\1 \2/p' "$out/stats-$name.txt")
	echo "$name $(echo "$t1 - $t0" | bc -l) $stats" >>"$out/memsrc.tsv"
}
: >"$out/memsrc.tsv"
port=127.0.0.1:$VM_GDB_PORT
for ((i = 0; i < runs; i++)); do
	one remote-image --remote "$port" --kernel-image "$img"
	one remote-memory --remote "$port"
	one vmcore-elf --vmcore "$out/core.elf"
	one vmcore-image --vmcore "$out/core.elf" --kernel-image "$img"
done
vm_stop

{
	echo "| source | median s | min s | max s | requests | bytes |"
	echo "|---|---|---|---|---|---|"
	for v in remote-image remote-memory vmcore-elf vmcore-image; do
		awk -v v="$v" '$1 == v { print $2, $3, $4 }' "$out/memsrc.tsv" | sort -g |
			awk -v v="$v" '{ t[NR] = $1; r = $2; b = $3 }
				END { printf "| %s | %.2f | %.2f | %.2f | %s | %s |\n", v, t[int((NR + 1) / 2)], t[1], t[NR], r, b }'
	done
	echo
	echo "$nmod modules, $runs alternating rounds, kernel $VM_KREL, QEMU TCG, commit $(git -C "$top" rev-parse --short HEAD)"
} | tee "$out/memsrc.md"
