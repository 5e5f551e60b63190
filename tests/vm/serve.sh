#!/bin/bash
# tests/vm/serve.sh - `modsect serve` (#30): every task of a kernel a thread
# in gdb and lldb, on QEMU's dumps, against the kernel's own word.
#
#   MODSECT=./modsect tests/vm/serve.sh
#   MODSECT_VM_KERNEL=6.12-amd64 MODSECT=./modsect tests/vm/serve.sh
#
# One boot.  The guest starts tasks blocked in known places (init.sh
# "tasks": sleep, a pipe reader, a shell in wait, the test module's kernel
# threads on a wait queue and a mutex) and lists every task with its
# /proc/PID/stack ("taskinfo", the kernel's own unwinder) before and after
# QEMU's dump-guest-memory, in ELF and kdump-zlib.  Only tasks whose stack
# did not change between the two lists are compared (tests/README.md,
# rule 22).  gdb runs `target remote | modsect serve --vmcore DUMP`,
# sources share/gdb/modsect.py, loads `modsect gdb --all --kernel`, and
# walks every thread (serve-bt.py).  Checks per dump:
#   - `info threads` has every task the guest listed (tid, comm), and no
#     other: the guest's tasks plus the idle task, and modsect's own
#     thread ids;
#   - each stable task's frames, with the scheduler's and locks' own
#     functions left out as /proc/PID/stack leaves them out
#     (in_sched_functions: .sched.text, .spinlock.text), are the
#     kernel's: the same functions at the same offsets, in order, to the
#     end, and gdb's walk ends there with no '??' frame;
#   - the CPU's thread has the registers of the task QEMU stopped on
#     that CPU: its rsp is inside that task's stack.
# Then lldb on `serve --listen` lists the same threads and walks a
# sample, and bad input is refused with exit 3.  Prints "ok - ..." /
# "not ok - ...", "bench:" lines, then "N passed, N failed"; exit 1 if
# anything failed.  Run as root (see README.md).
set -u
unset DEBUGINFOD_URLS
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs qemu_fw_cfg"}
. "$(dirname "$0")/lib.sh"

TOP=$(cd "$VM_DIR/../.." && pwd)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-600}
vm_modsect "$TOP/modsect"
if [ "$VM_ARCH" != x86_64 ]; then
	ok "serve (skipped on $VM_PROFILE: threads are served on x86-64)"
	summary
	exit
fi
W=$VM_OUT/serve
FIND="${VM_MODDIR_ARGS[*]} --search $VM_OUT/testmod"

# --- the guest: tasks, their stacks, the dumps ------------------------------
if [ -z "${MODSECT_VM_SERVE_REUSE:-}" ] || [ ! -s "$W/vmcore.elf" ]; then
	vm_setup
	vm_start
	rm -rf "$W"
	mkdir -p "$W"
	vm_cmd tasks 60 || vm_die "the guest did not start its tasks"
	vm_cmd taskinfo 120 || vm_die "taskinfo"
	vm_section "taskinfo-$VM_LAST_ACK" >"$W/before.txt"
	vm_pause
	vm_dump "$W/vmcore.elf" elf 300
	vm_dump "$W/vmcore.kdump" kdump-zlib 300
	vm_resume
	vm_cmd taskinfo 120 || vm_die "taskinfo"
	vm_section "taskinfo-$VM_LAST_ACK" >"$W/after.txt"
	cp "$VM_RUN/kallsyms-all.txt" "$W/kallsyms.txt"
fi
