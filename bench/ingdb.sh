#!/bin/bash
# Inside gdb, on one boot with about 60 modules under QEMU TCG: modsect's
# in-gdb load (share/gdb/modsect.py on gdb's own connection) against the
# kernel's own lx-symbols (scripts/gdb with the Debian debug vmlinux, set up
# by bench/lxsymbols.sh, fetched into bench/out/, never committed): the time
# to load every module's symbols, and how many module symbols each puts at
# the address the guest's /proc/kallsyms gives.
#
#   bench/ingdb.sh                 (as root; boots Debian's kernel in QEMU)
#   BENCH_RUNS=7 bench/ingdb.sh    BENCH_LX=0 bench/ingdb.sh (no lx-symbols)
#
# Runs alternate between the variants, BENCH_RUNS rounds (default 5); each
# run is a fresh gdb that attaches, loads, checks every expected symbol
# (tests/vm/lib.sh vm_expected_syms: unique, in the module file's symtab)
# and detaches. Prints per variant the median, min and max load time and
# the symbols at their kallsyms address, and writes bench/out/ingdb.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out/ingdb
mkdir -p "$out"
runs=${BENCH_RUNS:-5}
lx=${BENCH_LX:-1}

make -s -C "$top" modsect modsect-static
cp "$top/modsect" "$out/modsect"
export MODSECT=$out/modsect MODSECT_STATIC=$top/modsect-static
export MODSECT_VM_OUT=$out/vm MODSECT_VM_RUN=$out/vm/run
export MODSECT_VM_STOCK_MODULES=${BENCH_MODULES:-"qemu_fw_cfg btrfs xfs ext4 dm-crypt raid456 isofs udf nls_utf8 vfat nfsv4 fuse overlay squashfs loop zram sctp bridge vxlan wireguard ceph"}
export MODSECT_VM_MEM=1024M
# 6.1's lx-symbols cannot find the module list of a KASLR kernel (it reads
# `modules` at vmlinux's link address: 0 of 1015 symbols, "Cannot access
# memory"), so the head-to-head boots without KASLR; BENCH_LX=0 keeps it.
[ "$lx" = 0 ] || export MODSECT_VM_APPEND="${MODSECT_VM_APPEND:+$MODSECT_VM_APPEND }nokaslr"
# shellcheck source=../tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
vm_setup
[ "$lx" = 0 ] || "$here/lxsymbols.sh" prepare "$VM_KREL" >&2
vm_start
vm_expected_syms "$out/sym"
nmod=$(wc -l <"$out/sym/modules")
nexp=$(wc -l <"$out/sym/all.uexp")
# lx-symbols finds .ko files by name under one directory
rm -rf "$out/lxmods"
mkdir -p "$out/lxmods"
while read -r _ f; do ln -sf "$f" "$out/lxmods/"; done <"$out/sym/modules"

# one ROUND VARIANT: a gdb that times the load, then (round 0 only: where
# symbols land does not change, and in a gdb holding the debug vmlinux
# the 34,000 lookups take 15 minutes) the symbol check
one() {
	local round=$1 name=$2 t res expect=$out/sym/all.uexp
	shift 2
	[ "$round" = 0 ] || expect=/dev/null
	case $name in
	lx-symbols)
		EXPECT=$expect "$here/lxsymbols.sh" run "$VM_KREL" "$VM_GDB_PORT" \
			"$out/lxmods" "$out/$name.out" >/dev/null 2>&1 || true
		t=$(sed -n 's/^LXTIME //p' "$out/$name.out")
		;;
	*)
		{
			echo "set pagination off"
			echo "set confirm off"
			echo "target remote 127.0.0.1:$VM_GDB_PORT"
			echo "source $top/share/gdb/modsect.py"
			echo "source $top/tests/vm/symdump.py"
			echo "python import time; _t0 = time.time()"
			echo "modsect $*"
			echo "python print('TIME %.3f' % (time.time() - _t0))"
			echo "python ms_addr('$expect', 'SYM')"
			echo "detach"
		} >"$out/$name.gdb"
		timeout 600 gdb -q -nx -batch -x "$out/$name.gdb" >"$out/$name.out" 2>&1 </dev/null || true
		t=$(sed -n 's/^TIME //p' "$out/$name.out")
		;;
	esac
	cp "$out/$name.out" "$out/$name.$round.out"
	echo "$name ${t:-nan}" >>"$out/ingdb.tsv"
	if [ "$round" = 0 ]; then
		res=$(vm_compare_syms "$out/sym/all.uexp" "$out/$name.out" | tail -n 1)
		echo "$name ${res#RESULT }" >>"$out/syms.tsv"
	fi
}
: >"$out/ingdb.tsv"
: >"$out/syms.tsv"
for ((i = 0; i < runs; i++)); do
	one "$i" modsect-image gdb --all --kernel --kernel-image "$VM_KERNEL" --search "$VM_OUT/testmod"
	one "$i" modsect-memory gdb --all --kernel --search "$VM_OUT/testmod"
	[ "$lx" = 0 ] || one "$i" lx-symbols
done
vm_stop

{
	echo "| variant | median s | min s | max s | symbols at the kallsyms address |"
	echo "|---|---|---|---|---|"
	for v in modsect-image modsect-memory lx-symbols; do
		grep -q "^$v " "$out/ingdb.tsv" || continue
		read -r ok bad < <(awk -v v="$v" '$1 == v { print $2, $3 }' "$out/syms.tsv")
		awk -v v="$v" '$1 == v { print $2 }' "$out/ingdb.tsv" | sort -g |
			awk -v v="$v" -v ok="$ok" -v bad="$bad" '{ t[NR] = $1 }
				END { printf "| %s | %.2f | %.2f | %.2f | %d of %d |\n", v, t[int((NR + 1) / 2)], t[1], t[NR], ok, ok + bad }'
	done
	echo
	echo "$nmod modules, $nexp expected symbols, $runs alternating rounds, kernel $VM_KREL, QEMU TCG, commit $(git -C "$top" rev-parse --short HEAD)"
} | tee "$out/ingdb.md"
