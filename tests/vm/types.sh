#!/bin/bash
# tests/vm/types.sh - the kernel's types in gdb and lldb from its BTF (#23),
# with no debug vmlinux, against what the kernel and independent tools say.
#
#   MODSECT=./modsect tests/vm/types.sh
#   MODSECT_VM_KERNEL=6.12-amd64 MODSECT=./modsect tests/vm/types.sh
#
# One boot; gdb on QEMU's gdbstub sources share/gdb/modsect.py and runs
# `modsect gdb --all --kernel` (BTF from the kernel's memory), with the
# test module's file stripped of its DWARF, as every stock module is:
#   structs  every struct and union with a unique name in the booted
#            kernel's BTF (its image's .BTF, read by bpftool, libbpf's
#            tool): gdb's sizeof, and each member's name, bit offset and
#            bit size, anonymous members' types within, equal BTF's;
#   module   at break modsect_test_stack_fn (a write(2) by the guest's
#            init): p ((struct module *)ADDR)->name and ->state, ADDR the
#            module's .gnu.linkonce.this_module in /sys/module, are its
#            name and /sys/module/modsect_test/initstate;
#   current  $modsect_current()->pid and ->comm are the "PID: N Comm: C"
#            of the kernel's dump_stack() from the same point;
#   per-cpu  $modsect_per_cpu(irq_stat, 0).apic_timer_irqs lies between
#            /proc/interrupts' LOC count of CPU 0 before and after;
#   ptype    ptype do_init_module is BTF's prototype, int (struct module *);
#            bt shows core functions' argument names (vfs_write (file=...);
#   split    ptype struct iso_inode_info (isofs: a stock module, its own
#            type from its split BTF) has BTF's size and members.
# Then lldb (`modsect lldb --all --kernel` on its own connection): the
# same struct module's name and state, and the per-cpu counter by the
# expression the README documents for lldb.
# Then on the host, the kallsyms ELF gdb loaded: `ptype` of every such
# struct and union equals gdb's reading of gcc -g's DWARF of bpftool's C
# dump of the same BTF (flexible arrays: BTF cannot tell [0] from [],
# bpftool writes [0], modsect []; bpftool's ___N suffixes of duplicate
# names dropped); lldb's sizes and member offsets on a sample equal BTF's.
# Prints "ok - types: ..." lines, "bench:" lines, then "N passed, N failed".
set -u
unset DEBUGINFOD_URLS
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs"}
. "$(dirname "$0")/lib.sh"

TOP=$(cd "$VM_DIR/../.." && pwd)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-300}
vm_modsect "$TOP/modsect"
BTFDWARF=${MODSECT_BTFDWARF:-$TOP/build/tests/btfdwarf}
[ -x "$BTFDWARF" ] || make -C "$TOP" -s build/tests/btfdwarf >/dev/null ||
	vm_die "cannot build $BTFDWARF"
command -v bpftool >/dev/null || vm_die "no bpftool (apt-get install -y bpftool)"
# lldb's Python module, for the lldb sessions.
LLDB_PY=$(ls -d /usr/lib/llvm-*/lib/python3*/dist-packages/lldb/__init__.py 2>/dev/null | head -1)
LLDB_PY=${LLDB_PY%/lldb/__init__.py}
if [ "$VM_ARCH" != x86_64 ]; then
	ok "types (skipped on $VM_PROFILE: the checks use x86-64's per-cpu names)"
	summary
	exit
fi

vm_setup
vm_start
W=$VM_RUN/types
rm -rf "$W"
mkdir -p "$W/testmod"
# The test module without its DWARF, as a stock module comes.
objcopy --strip-debug "$VM_OUT/testmod/modsect_test.ko" "$W/testmod/modsect_test.ko" ||
	vm_die "objcopy --strip-debug failed"
FIND="${VM_MODDIR_ARGS[*]} --search $W/testmod"

# What BTF says: the booted image's .BTF, through bpftool's JSON.
"$BTFDWARF" --extract "$VM_KERNEL" "$W/vmlinux.btf" || vm_die "no BTF in $VM_KERNEL"
bpftool btf dump file "$W/vmlinux.btf" -j >"$W/btf.json" || vm_die "bpftool failed"
python3 "$VM_DIR/btfexpect.py" "$W/btf.json" >"$W/expect.json" || vm_die "btfexpect.py failed"
ISOFS=$(find "${VM_MODDIR:-/lib/modules/$VM_KREL}" -name 'isofs.ko*' | head -1)
case $ISOFS in
*.xz) xz -dc "$ISOFS" >"$W/isofs.ko" ;;
*.zst) zstd -qdc "$ISOFS" >"$W/isofs.ko" ;;
*) cp "$ISOFS" "$W/isofs.ko" ;;
esac
bpftool btf dump file "$W/isofs.ko" -B "$W/vmlinux.btf" -j >"$W/isofs.json" 2>/dev/null || true

vm_cmd "cat /proc/interrupts" 60 && vm_section "cat-$VM_LAST_ACK" >"$W/irq-before.txt"
vm_cmd "cat /sys/module/modsect_test/initstate" 60 &&
	vm_section "cat-$VM_LAST_ACK" >"$W/initstate.txt"
# The module's struct module: __this_module, alone in its section.
vm_cmd "cat /sys/module/modsect_test/sections/.gnu.linkonce.this_module" 60 &&
	vm_section "cat-$VM_LAST_ACK" >"$W/this_module.txt"
THIS_MODULE=$(tr -d '\r\n ' <"$W/this_module.txt" 2>/dev/null)

{
	echo "set pagination off"
	echo "set confirm off"
	echo "set width 0"
	echo "set height 0"
	echo "target remote 127.0.0.1:$VM_GDB_PORT"
	echo "source $TOP/share/gdb/modsect.py"
	echo "source $VM_DIR/typesgdb.py"
	echo "python import time; _t0 = time.time()"
	vm_gdb_try "modsect gdb --all --kernel $FIND"
	echo "python print('TIME %.2f' % (time.time() - _t0))"
	echo "python ms_objfiles()"
	echo "python ms_check_structs('$W/expect.json')"
	echo "python ms_check_split('$W/isofs.json', 'iso_inode_info')"
	echo "break modsect_test_stack_fn"
	echo "shell printf '%s\\n' 'param stack 101' > $VM_RUN/trigger.in"
	echo "continue"
	echo "python ms_at_stop('${THIS_MODULE:-0}')"
	echo "delete"
	echo "detach"
} >"$W/session.gdb"
rc=0
timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/session.gdb" >"$W/session.out" 2>&1 </dev/null || rc=$?
[ "$rc" = 0 ] || not_ok "gdb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
if grep -q '^NO ERROR$' "$W/session.out"; then
	ok "in-gdb 'modsect gdb --all --kernel' loaded (BTF from the kernel's memory)"
else
	not_ok "in-gdb 'modsect gdb --all --kernel' failed"
	grep -m 3 '^GDB ERROR' "$W/session.out" | detail
fi
echo "bench: in-gdb load seconds with types: $(sed -n 's/^TIME //p' "$W/session.out")"
vm_wait_for "^==MODSECT-ACK [0-9]+ param stack 101 rc=0==\$" 60 ||
	not_ok "the guest did not acknowledge the stack trigger"
vm_cmd "cat /proc/interrupts" 60 && vm_section "cat-$VM_LAST_ACK" >"$W/irq-after.txt"
vm_cmd dmesg 60 && vm_section "dmesg-$VM_LAST_ACK" >"$W/dmesg.txt"

# lldb on its own gdb-remote connection (the guest paused first: lldb 14
# cannot attach to a running QEMU), `modsect lldb --all --kernel`: the
# module's struct module and the documented per-cpu expression.
PCPU='((unsigned long *)&__per_cpu_offset)'
vm_pause
{
	echo "settings set auto-confirm true"
	echo "gdb-remote 127.0.0.1:$VM_GDB_PORT"
	echo "command script import $TOP/share/lldb/modsect.py"
	echo "modsect lldb --all --kernel $FIND"
	echo "expr ((struct module *)${THIS_MODULE:-0})->name"
	echo "expr ((struct module *)${THIS_MODULE:-0})->state"
	echo "expr *(unsigned int *)((char *)&irq_stat.apic_timer_irqs - $PCPU[0] + $PCPU[0])"
	echo "process detach"
} >"$W/session.lldb"
PYTHONPATH=$LLDB_PY${PYTHONPATH:+:$PYTHONPATH} timeout "$GDB_TIMEOUT" lldb -b -s "$W/session.lldb" \
	>"$W/lldb-session.out" 2>&1 </dev/null || not_ok "lldb session exit status $?"
sleep 2
vm_cmd "cat /proc/interrupts" 60 && vm_section "cat-$VM_LAST_ACK" >"$W/irq-after-lldb.txt"

# The checks on what gdb printed, against the kernel's word.
python3 "$VM_DIR/typescheck.py" "$W" >"$W/results.txt" 2>&1 || true
while read -r kind line; do
	case $kind in
	P) ok "$line" ;;
	F) not_ok "$line" ;;
	D) echo "    $line" ;;
	esac
done <"$W/results.txt"

# The host side: gcc's reading of bpftool's C dump, and lldb.
KELF=$(sed -n 's/^OBJFILE \(.*kallsyms.*\)$/\1/p' "$W/session.out" | head -1)
if [ -z "$KELF" ] || [ ! -f "$KELF" ]; then
	not_ok "the kallsyms ELF gdb loaded is not known ($(grep -m3 '^OBJFILE' "$W/session.out" | tr '\n' ' '))"
else
	bpftool btf dump file "$W/vmlinux.btf" format c >"$W/vmlinux.h"
	printf '#define BPF_NO_PRESERVE_ACCESS_INDEX\n#include "vmlinux.h"\n' >"$W/vmlinux.c"
	if ! gcc -g -fno-eliminate-unused-debug-types -c -o "$W/vmlinux.o" "$W/vmlinux.c" 2>"$W/gcc.err"; then
		not_ok "gcc -g of bpftool's C dump failed: $(head -c 300 "$W/gcc.err")"
	else
		python3 -c 'import json,sys; [print(e["kind"]+" "+e["name"]) for e in json.load(open(sys.argv[1]))]' \
			"$W/expect.json" >"$W/names.txt"
		for f in kelf gcc; do
			obj=$KELF
			[ $f = gcc ] && obj=$W/vmlinux.o
			PTYPE_NAMES=$W/names.txt PTYPE_OUT=$W/ptype-$f.txt timeout 600 gdb -q -nx -batch \
				-ex "file $obj" -ex "source $VM_DIR/typesgdb.py" -ex "python ms_ptypes()" \
				>"$W/ptype-$f.log" 2>&1
		done
		norm() { sed -E 's/\[0\]/[]/g; s/___[0-9]+\b//g' "$1"; }
		n=$(grep -c '^=== ' "$W/ptype-kelf.txt" || true)
		if [ "${n:-0}" -gt 1000 ] && diff <(norm "$W/ptype-kelf.txt") <(norm "$W/ptype-gcc.txt") >"$W/ptype.diff"; then
			ok "ptype of all $n structs and unions == gdb's reading of gcc -g's DWARF of bpftool's C dump"
		else
			not_ok "ptype: modsect's types and gcc's differ ($n compared; $W/ptype.diff)"
			head -20 "$W/ptype.diff" | detail
		fi
		echo "bench: raw differences before the [0]/[] and ___N normalisation: $(diff "$W/ptype-kelf.txt" "$W/ptype-gcc.txt" | grep -c '^<') lines"
	fi
	PYTHONPATH=$LLDB_PY${PYTHONPATH:+:$PYTHONPATH} timeout 600 lldb -b -o "script ms_args = ['$KELF', '$W/expect.json', 300]; exec(open('$VM_DIR/typeslldb.py').read())" \
		>"$W/lldb.txt" 2>&1 </dev/null
	if grep -q '^LLDB-RESULT' "$W/lldb.txt" && ! grep -q '^LLDB-BAD' "$W/lldb.txt"; then
		ok "lldb: $(sed -n 's/^LLDB-RESULT: //p' "$W/lldb.txt")"
	else
		not_ok "lldb: sizes and member offsets differ from BTF's"
		grep -v '^(lldb)' "$W/lldb.txt" | head -20 | detail
	fi
fi
vm_stop
summary
