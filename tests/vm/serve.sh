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
# The guest's own `modsect serve --kcore` (init.sh "kcore") talks on its
# ttyS3, which QEMU listens for on this port; the binary runs in the guest
# with its libraries (MODSECT_DYN, as in test.sh).
KPORT=$((20000 + RANDOM % 20000))
while ! vm_port_free "$KPORT"; do KPORT=$((20000 + RANDOM % 20000)); done
export MODSECT_DYN=${MODSECT_DYN:-$MODSECT}
export MODSECT_VM_SERIAL3="tcp:127.0.0.1:$KPORT,server=on,wait=off"

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
else
	vm_find_kernel
fi
FIND="${VM_MODDIR_ARGS[*]} --search $VM_OUT/testmod"

# report FILE: servecheck.py's lines as this script's checks.
report() {
	local line
	while read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) not_ok "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done <"$1"
}

# --- gdb through `serve` on each dump ---------------------------------------
# gdb_session NAME DUMP MODSECT-ARGS: gdb on `target remote | modsect serve
# --vmcore DUMP`, the in-gdb command, every thread's walk; then the checks.
gdb_session() {
	local name=$1 dump=$2 args=$3 rc=0 t
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "target remote | $MODSECT serve --vmcore $dump"
		echo "source $TOP/share/gdb/modsect.py"
		echo "source $VM_DIR/servebt.py"
		echo "python import time; _t0 = time.time()"
		vm_gdb_try "modsect $args"
		echo "python _t1 = time.time()"
		echo "python ms_all()"
		echo "python print('TIME load %.2f walk %.2f' % (_t1 - _t0, time.time() - _t1))"
		echo "info threads"
		echo "continue"
		echo "python"
		echo "try:"
		echo "    gdb.execute('set var *(char *)\$sp = 0')"
		echo "except gdb.error as e:"
		echo "    print('WRITE REFUSED: %s' % e)"
		echo "end"
		echo "detach"
	} >"$W/$name.gdb"
	timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/$name.gdb" >"$W/$name.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "[$name] gdb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
	if grep -q '^NO ERROR$' "$W/$name.out"; then
		ok "[$name] in-gdb 'modsect $args' through serve"
	else
		not_ok "[$name] in-gdb 'modsect $args' failed" "$(grep -m 3 '^GDB ERROR' "$W/$name.out")"
	fi
	python3 "$VM_DIR/servecheck.py" "$name" "$W/before.txt" "$W/after.txt" \
		"$W/kallsyms.txt" "$W/$name.out" >"$W/$name.check" || true
	report "$W/$name.check"
	if grep -q 'Remote failure reply: E.modsect serve: .* is not running' "$W/$name.out"; then
		ok "[$name] continue is refused, with serve's reason shown by gdb"
	else
		not_ok "[$name] continue on a dump was not refused with a reason"
	fi
	if grep -q '^WRITE REFUSED: Cannot access memory' "$W/$name.out"; then
		ok "[$name] a write to the dump is refused"
	else
		not_ok "[$name] a write to the dump was not refused" "$(tail -n 5 "$W/$name.out")"
	fi
	t=$(sed -n 's/^TIME //p' "$W/$name.out")
	echo "bench: serve $name gdb seconds ${t:-?} (load: the in-gdb command; walk: thread apply all of $(grep -c '^TH ' "$W/$name.out") threads)"
}

gdb_session elf "$W/vmcore.elf" "gdb --all --kernel --kernel-image $VM_KERNEL $FIND"
gdb_session kdump "$W/vmcore.kdump" "gdb --all --kernel --kernel-image $VM_KERNEL $FIND"
# The map, kallsyms and BTF from the dump itself, through gdb and serve:
# about 100 s more (every read a packet through gdb), so left to
# MODSECT_VM_SERVE_MEMORY=1.
if [ "${MODSECT_VM_SERVE_MEMORY:-0}" != 0 ]; then
	gdb_session memory "$W/vmcore.kdump" "gdb --all --kernel $FIND"
fi

# --- lldb on `serve --listen` ----------------------------------------------
# lldb's own gdb-remote client: thread list with names, and a sample of
# walks (lldb's bt from the same symbol and unwind files, by modsect lldb).
lldb_session() {
	local port log=$W/lldb-serve.err out=$W/lldb.out pid i t
	if ! command -v lldb >/dev/null; then
		not_ok "[lldb] no lldb (scripts/deps.sh installs it)"
		return
	fi
	"$MODSECT" lldb --all --kernel --kernel-image "$VM_KERNEL" --vmcore "$W/vmcore.elf" $FIND \
		-o "$W/lldb-ms.lldb" 2>"$W/lldb-ms.err" || {
		not_ok "[lldb] modsect lldb --all --kernel --vmcore failed" "$(head -c 300 "$W/lldb-ms.err")"
		return
	}
	port=$((20000 + RANDOM % 20000))
	while ! vm_port_free "$port"; do port=$((20000 + RANDOM % 20000)); done
	"$MODSECT" serve --vmcore "$W/vmcore.elf" --listen "127.0.0.1:$port" 2>"$log" &
	pid=$!
	for i in $(seq 100); do
		grep -q " on 127.0.0.1:$port\$" "$log" && break
		sleep 0.2
	done
	grep -q " on 127.0.0.1:$port\$" "$log" || {
		not_ok "[lldb] serve --listen did not say where it listens" "$(cat "$log")"
		kill "$pid" 2>/dev/null
		return
	}
	{
		echo "gdb-remote 127.0.0.1:$port"
		echo "command source $W/lldb-ms.lldb"
		echo "thread list"
		for t in $(awk '$1 == "T" && ($5 == "modsect_lock" || $5 == "cat" || $5 == "modsect_wait") { print $2 }' "$W/before.txt"); do
			# gdb's thread numbers, as lldb's, follow serve's order.
			echo "thread select $(sed 's/^\*/ /' "$W/elf.out" | awk -v t="$t" '$2 == "Thread" && $3 == t { print $1; exit }')"
			echo "bt"
		done
		echo "process detach"
	} >"$W/lldb.cmds"
	LLDB_PY=$(ls -d /usr/lib/llvm-*/lib/python3*/dist-packages/lldb/__init__.py 2>/dev/null | head -1)
	PYTHONPATH=${LLDB_PY%/lldb/__init__.py} timeout 300 lldb -b -s "$W/lldb.cmds" >"$out" 2>&1 </dev/null
	wait "$pid" 2>/dev/null
	local n want
	n=$(grep -o 'thread #[0-9]*' "$out" | sed 's/.*#//' | sort -n | tail -n 1)
	want=$(grep -c '^TH ' "$W/elf.out")
	if [ "$n" = "$want" ] && grep -q "name = 'modsect_lock'" "$out"; then
		ok "[lldb] thread list: $n threads, as gdb's, with their names"
	else
		not_ok "[lldb] thread list: $n threads (gdb: $want)" "$(grep -m 5 'thread #' "$out")"
	fi
	for f in modsect_test_lock_fn pipe_read modsect_test_wait_fn; do
		if grep -q "frame #.*\`$f" "$out" && grep -A12 "\`$f" "$out" | grep -q 'ret_from_fork\|entry_SYSCALL_64'; then
			ok "[lldb] bt through $f to the task's entry"
		else
			not_ok "[lldb] bt through $f" "$(grep -m 8 'frame #' "$out")"
		fi
	done
}
lldb_session

# --- the live guest through `serve --remote` --------------------------------
# gdb -> modsect serve -> QEMU's gdbstub: every task a thread on the live
# kernel, a breakpoint passed through, the stop's thread the task that
# hit it, the walks at the stop against the guest's lists around it.
live_session() {
	local rc=0 out=$W/live.out
	if [ -z "$VM_QEMU_PID" ]; then
		ok "[live] skipped: MODSECT_VM_SERVE_REUSE without a guest"
		return
	fi
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "target remote | $MODSECT serve --remote 127.0.0.1:$VM_GDB_PORT"
		echo "source $TOP/share/gdb/modsect.py"
		echo "source $VM_DIR/servebt.py"
		vm_gdb_try "modsect gdb --all --kernel --kernel-image $VM_KERNEL $FIND"
		echo "break modsect_test_poke"
		echo "shell printf 'poke 77\\n' > $VM_RUN/trigger.in"
		echo "continue"
		echo "python print('STOPPED-AT %d %s' % (gdb.selected_thread().ptid[1], gdb.selected_thread().name))"
		echo "python ms_all()"
		echo "delete"
		echo "detach"
	} >"$W/live.gdb"
	timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/live.gdb" >"$out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "[live] gdb exit status $rc" "$(tail -n 5 "$out")"
	if vm_wait_for "^==MODSECT-ACK [0-9]+ poke 77 rc=0==\$" 60; then
		ok "[live] the guest ran on after detach through serve"
	else
		not_ok "[live] the guest did not acknowledge the poke after detach"
	fi
	vm_cmd taskinfo 120 || vm_die "taskinfo"
	vm_section "taskinfo-$VM_LAST_ACK" >"$W/after2.txt"
	if grep -qE 'Breakpoint [0-9]+, .*modsect_test_poke \(' "$out" &&
		grep -q '^STOPPED-AT 1 init$' "$out" &&
		grep -q '^F 1 [0-9]* 0x[0-9a-f]* normal modsect_test_poke$' "$out"; then
		ok "[live] the breakpoint passed through serve stops in the task that wrote the parameter (init, pid 1), its bt through the module"
	else
		not_ok "[live] breakpoint through serve" "$(grep -m 3 -e Breakpoint -e STOPPED-AT "$out")"
	fi
	python3 "$VM_DIR/servecheck.py" live "$W/after.txt" "$W/after2.txt" \
		"$W/kallsyms.txt" "$out" >"$W/live.check" || true
	report "$W/live.check"
}
live_session

# bench: `info threads` on one boot through serve --remote (every task)
# and on QEMU's gdbstub alone (its vCPUs), each after connecting.
live_bench() {
	local how t
	[ -n "$VM_QEMU_PID" ] || return 0
	for how in serve stub serve stub serve stub; do
		{
			echo "python import time; _t0 = time.time()"
			if [ "$how" = serve ]; then
				echo "target remote | $MODSECT serve --remote 127.0.0.1:$VM_GDB_PORT --kernel-image $VM_KERNEL"
			else
				echo "target remote 127.0.0.1:$VM_GDB_PORT"
			fi
			echo "python _t1 = time.time(); _o = gdb.execute('info threads', to_string=True)"
			echo "python print('INFO-THREADS %.3f %.3f %d' % (_t1 - _t0, time.time() - _t1, len(gdb.selected_inferior().threads())))"
			echo "detach"
		} >"$W/bench-$how.gdb"
		t=$(timeout 120 "$(vm_gdb)" -q -nx -batch -x "$W/bench-$how.gdb" 2>&1 </dev/null | sed -n 's/^INFO-THREADS //p')
		echo "bench: serve live $how connect, info threads seconds, threads: ${t:-?}"
	done
}
live_bench

# --- /proc/kcore inside the guest: `modsect serve --kcore` ------------------
# The guest runs `modsect serve --kcore` on its ttyS3; gdb on the host
# reaches it through QEMU's TCP end of that line. The symbols come from the
# kernel image (kallsyms, BTF, ORC) and the module list read through it.
# The serving process itself runs on the CPU: its thread says that its
# registers are not known, and has no frames.
kcore_session() {
	local rc=0 out=$W/kcore.out
	if [ -z "$VM_QEMU_PID" ]; then
		ok "[kcore] skipped: MODSECT_VM_SERVE_REUSE without a guest"
		return
	fi
	vm_cmd taskinfo 120 || vm_die "taskinfo"
	vm_section "taskinfo-$VM_LAST_ACK" >"$W/kbefore.txt"
	vm_cmd kcore 60 || { not_ok "[kcore] the guest could not start serve --kcore"; return; }
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "set remotetimeout 30"
		echo "target remote 127.0.0.1:$KPORT"
		echo "source $TOP/share/gdb/modsect.py"
		echo "source $VM_DIR/servebt.py"
		vm_gdb_try "modsect gdb --all --kernel --kernel-image $VM_KERNEL $FIND"
		echo "info threads"
		echo "python ms_all()"
		echo "detach"
	} >"$W/kcore.gdb"
	timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/kcore.gdb" >"$out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "[kcore] gdb exit status $rc" "$(tail -n 5 "$out")"
	vm_cmd taskinfo 120 || vm_die "taskinfo"
	vm_section "taskinfo-$VM_LAST_ACK" >"$W/kafter.txt"
	vm_cmd "cat /tmp/kcore.err" 30 && vm_section "cat-$VM_LAST_ACK" >"$W/kcore.err"
	if grep -qE 'Thread [0-9]+ "modsect-live" \(state R, CPU 0, running, no registers: .*holds no CPU registers' "$out"; then
		ok "[kcore] the serving task, running, says its registers are not known"
	else
		not_ok "[kcore] the serving task's thread" "$(grep -m 2 modsect-live "$out")" "$(head -c 300 "$W/kcore.err")"
	fi
	python3 "$VM_DIR/servecheck.py" kcore "$W/kbefore.txt" "$W/kafter.txt" \
		"$W/kallsyms.txt" "$out" modsect-live >"$W/kcore.check" || true
	report "$W/kcore.check"
}
kcore_session

# --- refused: a dump cut short ---------------------------------------------
head -c 20000000 "$W/vmcore.elf" >"$W/cut.elf"
rc=0
"$MODSECT" serve --vmcore "$W/cut.elf" </dev/null >"$W/cut.out" 2>"$W/cut.err" || rc=$?
if [ "$rc" = 3 ] && [ ! -s "$W/cut.out" ] && grep -q 'truncated\|shorter\|cut' "$W/cut.err"; then
	ok "serve of a dump cut short: exit 3, nothing on stdout, $(head -c 120 "$W/cut.err")"
else
	not_ok "serve of a dump cut short: exit $rc" "$(head -c 300 "$W/cut.err")"
fi
rm -f "$W/cut.elf"
[ -n "${MODSECT_VM_SERVE_KEEP:-}" ] || rm -f "$W/vmcore.elf" "$W/vmcore.kdump"
summary
