#!/bin/bash
# tests/vm/demo.sh - `make demo`: modsect on a real kernel, step by step.
#
# Boots the test VM (Debian's kernel under QEMU, KASLR on) with the static
# modsect as the guest's /bin/modsect, shows its capture and turns it into
# gdb commands on the host (the seed's workflow); then gdb on QEMU's
# gdbstub alone: `modsect follow` on gdb's own connection, breakpoints set
# before the module loads, the whole backtrace from the kernel's ORC
# tables, arguments, globals, locals, source. No debug vmlinux anywhere.
#
#   MODSECT=./modsect MODSECT_STATIC=$PWD/modsect-static tests/vm/demo.sh
set -eu
# The crash case (6.): the panic leaves the guest as it is (panic=0, the
# last panic= wins) for the dump, and qemu_fw_cfg hands QEMU the kernel's
# VMCOREINFO, with which the dump's virtual addresses translate.
export MODSECT_VM_APPEND="${MODSECT_VM_APPEND:-} panic=0"
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs qemu_fw_cfg"}
. "$(dirname "$0")/lib.sh"

vm_modsect "./modsect"
[ -n "${MODSECT_STATIC:-}" ] || vm_die "MODSECT_STATIC (the static modsect for the guest) is not set; use make demo"
POKE=${MODSECT_DEMO_POKE:-42}
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-120}
t_start=$(date +%s)

heading() { printf '\n=== %s ===\n' "$*"; }
indent() { sed 's/^/    /'; }
run() { printf '$ %s\n' "$*"; }

heading "1. Boot Debian's kernel under QEMU with the test module"
vm_setup
vm_start
echo "kernel $VM_KREL, booted in ${VM_BOOT_SECONDS}s; QEMU's gdbstub is at 127.0.0.1:$VM_GDB_PORT"
echo "modules loaded in the guest:"
indent <"$VM_RUN/insmod.txt"

heading "2. In the guest: modsect capture (the static build, /bin/modsect)"
echo "The guest ran 'modsect capture -o -' ($(grep -c '^section ' "$VM_RUN/capture.txt") section lines," \
	"$(grep -c '^kallsyms ' "$VM_RUN/capture.txt") kallsyms lines, $(tail -n1 "$VM_RUN/capture-stderr.txt")). Excerpt:"
{
	grep -v -e '^section ' -e '^kallsyms ' -e '^module ' -e '^build-id ' "$VM_RUN/capture.txt"
	grep -E '^(module|build-id|section) modsect_test ' "$VM_RUN/capture.txt" | head -n 12
	echo "..."
	grep -E '^kallsyms modsect_test .* modsect_test_(poke|data|pcpu)$' "$VM_RUN/capture.txt"
} | indent
grep -q '^modsect-capture ' "$VM_RUN/capture.txt" || vm_die "the guest's capture is missing"

heading "3. On the host: gdb commands from the capture"
D=$VM_RUN/demo
mkdir -p "$D"
cp "$VM_RUN/capture.txt" "$D/capture.txt"
TD=$(dirname "$VM_TESTMOD_KO")
run modsect gdb --capture capture.txt --search "$TD" modsect_test
(cd "$D" && "$MODSECT" gdb --capture capture.txt --search "$TD" modsect_test -o modsect_test.gdb) ||
	vm_die "modsect gdb failed"
# The add-symbol-file line is long: one -s option per line for reading.
sed -e '/^add-symbol-file /s/ -s /\n        -s /g' "$D/modsect_test.gdb" | indent
echo
run modsect sections --capture capture.txt --search "$TD" modsect_test
(cd "$D" && "$MODSECT" sections --capture capture.txt --search "$TD" modsect_test) | indent

heading "4. gdb on QEMU's gdbstub alone: modsect follow, bt to the end of the stack"
echo "Nothing runs in the guest for modsect: gdb's own connection gives modsect the kernel's"
echo "memory (kallsyms, BTF, the module list, the ORC unwind tables); no debug vmlinux."
echo "The kernel's BTF becomes DWARF types: its structs, functions' prototypes, per-cpu variables."
echo "The guest unloads the test module, gdb sets breakpoints in it, the guest loads it again."
TOP=$(cd "$VM_DIR/../.." && pwd)
cat >"$D/demo.gdb" <<EOF
set pagination off
set confirm off
set width 0
set breakpoint pending on
target remote 127.0.0.1:$VM_GDB_PORT
source $TOP/share/gdb/modsect.py
echo \\n(gdb) modsect follow --search $TD\\n
modsect follow --search $TD
echo \\n--- guest: rmmod modsect_test\\n
break free_module
shell printf 'unload modsect_test\\n' > $VM_RUN/trigger.in
continue
delete
echo \\n(gdb) break modsect_test_init            (not loaded: pending)\\n
break modsect_test_init
echo \\n(gdb) break modsect_test_poke\\n
break modsect_test_poke
echo \\n--- guest: insmod modsect_test.ko\\n
shell printf 'load modsect_test\\n' > $VM_RUN/trigger.in
$(vm_bp_continue)
echo \\n(gdb) bt            (the kernel's ORC tables, as DWARF CFI)\\n
bt
echo \\n--- guest: echo $POKE > /sys/module/modsect_test/parameters/poke\\n
shell printf 'poke $POKE\\n' > $VM_RUN/trigger.in
$(vm_bp_continue)
echo \\n(gdb) bt\\n
bt
echo \\n(gdb) info args\\n
info args
echo \\n(gdb) p modsect_test_data\\n
p modsect_test_data
echo \\n(gdb) p/x modsect_test_table\\n
p/x modsect_test_table
echo \\n(gdb) next\\n
next
echo \\n(gdb) info locals\\n
info locals
echo \\n(gdb) list\\n
list
echo \\n(gdb) p &modsect_test_pcpu            (per-cpu offset, from kallsyms)\\n
p &modsect_test_pcpu
echo \\n(gdb) p *(int *)(\$gs_base + (unsigned long)&modsect_test_pcpu)     (CPU 0's copy)\\n
p *(int *)(\$gs_base + (unsigned long)&modsect_test_pcpu)
echo \\n(gdb) p \$modsect_per_cpu(modsect_test_pcpu, 0)     (the same: modsect's gdb function)\\n
p \$modsect_per_cpu(modsect_test_pcpu, 0)
echo \\n(gdb) finish\\n
finish
echo \\n--- the kernel's own types, from its BTF (no debug vmlinux): the newest module on the list\\n
echo (gdb) set \$m = (struct module *)((char *)((struct list_head *)&modules)->next - (unsigned long)&((struct module *)0)->list)\\n
set \$m = (struct module *)((char *)((struct list_head *)&modules)->next - (unsigned long)&((struct module *)0)->list)
echo \\n(gdb) p \$m->name\\n
p \$m->name
echo \\n(gdb) p \$m->state\\n
p \$m->state
echo \\n(gdb) p \$modsect_current()->comm     (the task that wrote the parameter)\\n
p \$modsect_current()->comm
echo \\n(gdb) ptype do_init_module\\n
ptype do_init_module
delete
modsect follow off
echo \\n(gdb) detach\\n
detach
EOF
echo "gdb script ($D/demo.gdb):"
indent <"$D/demo.gdb"
echo
echo "gdb output:"
rc=0
timeout "$GDB_TIMEOUT" gdb -q -nx -batch -x "$D/demo.gdb" >"$D/gdb.out" 2>&1 </dev/null || rc=$?
# Hide the long echo of add-symbol-file's section list.
awk '/^add symbol table from file/ { print; skip = 1; next } skip && /^\t/ { n++; next }
	skip { printf "\t(... %d section addresses ...)\n", n; skip = 0 } { print }' "$D/gdb.out" |
	grep -v -e '^Reading symbols from' -e '^(No debugging symbols found' | indent
[ "$rc" = 0 ] || vm_die "gdb exited with $rc"
grep -qE "^Breakpoint [0-9.]+, .*modsect_test_init \(\) at .*modsect_test\.c:[0-9]+" "$D/gdb.out" ||
	vm_die "the breakpoint on modsect_test_init, set before the load, was not hit"
grep -qE "^Breakpoint [0-9.]+, .*modsect_test_poke \(value=$POKE\) at .*modsect_test\.c:[0-9]+" "$D/gdb.out" ||
	vm_die "the breakpoint on modsect_test_poke was not hit"
grep -qE "^#[0-9]+ +0x[0-9a-f]+ in entry_SYSCALL_64_after_hwframe \(\)" "$D/gdb.out" ||
	vm_die "bt did not reach the system call's entry"

grep -qE '^\$[0-9]+ = "modsect_test", ' "$D/gdb.out" ||
	vm_die "p \$m->name did not print the module's name from the kernel's types"
grep -qE '^type = int \(struct module \*\)$' "$D/gdb.out" ||
	vm_die "ptype do_init_module did not print its BTF prototype"

heading "5. The guest carries on"
vm_wait_for "^==MODSECT-ACK [0-9]+ poke $POKE rc=0==\$" 60 || vm_die "the guest did not finish the poke"
vm_cmd dmesg 30 || vm_die "no dmesg from the guest"
vm_section "dmesg-$VM_LAST_ACK" | grep 'modsect_test:' | indent

heading "6. The crash: the guest panics, QEMU dumps it, gdb on the dump through modsect serve"
echo "The guest starts tasks blocked in known places, then panics (echo c > /proc/sysrq-trigger)."
vm_cmd tasks 60 || vm_die "the guest did not start its tasks"
vm_send "sysrq c"
end=$(($(date +%s) + 60))
until grep -q 'Kernel panic - not syncing' "$VM_RUN/console.log" 2>/dev/null; do
	[ "$(date +%s)" -lt "$end" ] || vm_die "the guest did not panic"
	sleep 0.5
done
grep -m 1 'Kernel panic - not syncing' "$VM_RUN/console.log" | indent
run "(qemu) dump-guest-memory -z vmcore.kdump     (QMP: kdump-compressed, zlib)"
vm_dump "$D/vmcore.kdump" kdump-zlib 300
echo "$(du -h "$D/vmcore.kdump" | cut -f1) dump; gdb reads it through modsect serve, every task a thread:"
cat >"$D/crash.gdb" <<EOF
set pagination off
set confirm off
set width 0
echo (gdb) target remote | modsect serve --vmcore vmcore.kdump\\n
target remote | $MODSECT serve --vmcore $D/vmcore.kdump
source $TOP/share/gdb/modsect.py
echo \\n(gdb) modsect gdb --all --kernel --kernel-image $VM_KERNEL --search $TD\\n
modsect gdb --all --kernel --kernel-image $VM_KERNEL --search $TD
echo \\n(gdb) info threads\\n
info threads
echo \\n(gdb) bt            (the CPU that panicked: the task that wrote to sysrq-trigger)\\n
bt
echo \\n(gdb) thread NUMBER OF modsect_lock\\n
python gdb.execute("thread %d" % [t.num for t in gdb.selected_inferior().threads() if t.name == "modsect_lock"][0])
echo \\n(gdb) bt            (a kernel thread of the test module, waiting for a mutex)\\n
bt
echo \\n(gdb) continue      (a dump does not run)\\n
continue
detach
EOF
rc=0
timeout "$GDB_TIMEOUT" gdb -q -nx -batch -x "$D/crash.gdb" >"$D/crash.out" 2>&1 </dev/null || rc=$?
awk '/^add symbol table from file/ { print; skip = 1; next } skip && /^\t/ { n++; next }
	skip { printf "\t(... %d section addresses ...)\n", n; skip = 0 } { print }' "$D/crash.out" |
	grep -v -e '^Reading symbols from' -e '^(No debugging symbols found' | indent
[ "$rc" = 0 ] || vm_die "gdb on the dump exited with $rc"
grep -qE '^#[0-9]+ +0x[0-9a-f]+ in panic \(' "$D/crash.out" ||
	vm_die "the panicking CPU's bt has no panic frame"
grep -qE ' in sysrq_handle_crash \(' "$D/crash.out" ||
	vm_die "the panicking CPU's bt does not reach sysrq_handle_crash"
grep -qE ' in modsect_test_lock_fn \(' "$D/crash.out" ||
	vm_die "the test module's thread's bt has no modsect_test_lock_fn"
rm -f "$D/vmcore.kdump"
vm_stop
echo
echo "demo finished in $(($(date +%s) - t_start))s; files in $D"
