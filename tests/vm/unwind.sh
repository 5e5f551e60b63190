#!/bin/bash
# tests/vm/unwind.sh - gdb's `bt` on a stock kernel against the kernel's own
# unwinder (#22), with modsect's symbols and no debug vmlinux.
#
#   MODSECT=./modsect tests/vm/unwind.sh
#   MODSECT_VM_KERNEL=6.12-amd64 MODSECT=./modsect tests/vm/unwind.sh
#
# One boot.  gdb attached to QEMU's gdbstub sources share/gdb/modsect.py
# and runs `modsect gdb --all --kernel` (session "memory"), then in a second
# session `... --kernel --kernel-image VMLINUZ` ("image").  In each, the
# stops (the test module's functions each call dump_stack(), so the kernel
# prints its own trace from the same point):
#   idle     gdb interrupts the guest at a random moment while it idles
#   stack    break modsect_test_stack_fn; the guest writes `stack`
#            (a system call: entry_SYSCALL_64)
#   timer    break modsect_test_timer_fn (timer_list, softirq on the IRQ
#            stack, interrupting the idle loop or a task)
#   hrtimer  break modsect_test_hrtimer_fn (hard interrupt)
#   work     break modsect_test_work_fn (a kworker, down to ret_from_fork)
#   warn     break __warn; the guest writes `warn` (WARN in the module:
#            the exception frame asm_exc_invalid_op)
# At each: `bt 64`, and gdb.newest_frame()/older() (at most 64 frames):
# name, pc, frame type, and why the walk ended.  Then the guest's dmesg
# gives the kernel's traces, found by the module's "modsect_test: WHAT N"
# line before each.  Checks per session and stop (inline frames of the
# module's DWARF dropped; the kernel's '? ' entries are not frames):
#   stack, timer, hrtimer, work: gdb's frames == the kernel's from the
#     module function on (dump_stack_lvl... before it dropped);
#   warn: gdb's frames end with the kernel's RIP function and its frames;
#     just before those, asm_exc_invalid_op; before that only __warn's
#     callers up to exc_invalid_op or functions the kernel lists as '?';
#   idle: gdb's frames from do_idle on == the task part of a kernel timer
#     trace that interrupted the idle loop, from do_idle on;
#   and every walk ends cleanly: no '??' frame, the last frame the
#     kernel's last, gdb's reason "outermost", no "Backtrace stopped".
# The kernel side (the stop hit, its trace found and parsed) is checked
# on its own, so that today's failures are the bt's alone.  Prints "ok -
# unwind: ..." / "not ok - unwind: ..." with a side-by-side listing on a
# mismatch, "bench:" lines (in-gdb load times), then "N passed, N failed";
# exit 1 if anything failed.  Run as root (see README.md).
set -u
unset DEBUGINFOD_URLS
# qemu_fw_cfg hands QEMU the guest's VMCOREINFO for the vmcore's map.
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs qemu_fw_cfg"}
. "$(dirname "$0")/lib.sh"

TOP=$(cd "$VM_DIR/../.." && pwd)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-300}
# Stops at random moments in idle, per session.
NIDLE=${MODSECT_VM_UNWIND_IDLE:-3}
vm_modsect "$TOP/modsect"

# x86-64's tables come from ORC, arm64's and i386's from their code.
# s390x, ppc64le and armv7l ("WALK"): the script's unwinder walks as the
# kernel's own unwinder does (lib/emit/stkscript.c), in gdb alone: no
# image session (the image gives no tables there), no lldb, no vmcore.
# MODSECT_VM_UNWIND_OTHER=1 there runs the stops with what gdb does
# alone, the results as "bench:" lines (docs/benchmarks.md).
WALK=
OTHER=
case $VM_ARCH in
x86_64 | aarch64 | i686) ;;
s390x | ppc64le | armv7l)
	WALK=1
	[ "${MODSECT_VM_UNWIND_OTHER:-0}" = 0 ] || OTHER=1
	;;
*)
	ok "unwinding (skipped on $VM_PROFILE: modsect walks x86-64, arm64, i386, s390x, ppc64 and ARM)"
	summary
	exit
	;;
esac

vm_setup
vm_start
W=$VM_RUN/unwind
rm -rf "$W"
mkdir -p "$W"
FIND="${VM_MODDIR_ARGS[*]} --search $VM_OUT/testmod"

# The gdb Python that records a walk: "BT STOP N NAME PC TYPE" per frame
# (NAME '??' where gdb has none), then "BTEND STOP N REASON" (why gdb
# found no older frame, or "limit" after 64 frames).
cat >"$W/bt.py" <<'EOF_PY'
import gdb

_TYPES = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline",
          gdb.SIGTRAMP_FRAME: "signal", gdb.DUMMY_FRAME: "dummy",
          gdb.TAILCALL_FRAME: "tailcall", gdb.ARCH_FRAME: "arch"}


def ms_bt(stop, limit=64):
    try:
        f = gdb.newest_frame()
    except gdb.error as e:
        print("BTEND %s 0 error: %s" % (stop, e))
        return
    n = 0
    while True:
        try:
            name = f.name() or "??"
        except gdb.error:
            name = "??"
        try:
            pc = "0x%x" % f.pc()
        except gdb.error:
            pc = "?"
        try:
            # a signal frame whose pc is a return address (i386's
            # handle_exception calls the handler): named by pc - 1, as
            # the kernel's %pB does and modsect's frame filter
            if f.type() == gdb.SIGTRAMP_FRAME and f.newer() is not None \
                    and f.newer().type() == gdb.NORMAL_FRAME:
                w = gdb.execute("info symbol 0x%x" % (f.pc() - 1), to_string=True).split()
                if len(w) > 2 and w[1] in ("in", "+"):
                    name = w[0]
        except gdb.error:
            pass
        try:
            at = gdb.execute("info symbol %s" % pc, to_string=True).split()
            at = at[0] if len(at) > 2 and at[1] == "in" else "-"
        except gdb.error:
            at = "-"
        print("BT %s %d %s %s %s %s" % (stop, n, name.replace(" ", "_"), pc,
                                        _TYPES.get(f.type(), str(f.type())), at))
        n += 1
        if n >= limit:
            print("BTEND %s %d limit" % (stop, n))
            return
        try:
            older = f.older()
        except gdb.error as e:
            print("BTEND %s %d error: %s" % (stop, n, e))
            return
        if older is None:
            print("BTEND %s %d %s" % (stop, n,
                  gdb.frame_stop_reason_string(f.unwind_stop_reason())))
            return
        if older.pc() == 0 and older.older() is None:
            # arm64: the zeroed frame record at the end of a task's
            # stack gives pc 0, where gdb stops (modsect's frame filter
            # leaves that frame out of bt)
            print("BTEND %s %d zero pc" % (stop, n))
            return
        f = older


def ms_stop(stop):
    print("==STOP %s==" % stop)
    try:
        print(gdb.execute("bt 64", to_string=True), end="")
    except gdb.error as e:
        print("BT-ERROR %s" % e)
    ms_bt(stop)
    print("==END %s==" % stop)


def ms_interrupt_later(lo, hi):
    """SIGINT to gdb itself after a random time: gdb, in `continue`,
    stops the target (QEMU) wherever it is."""
    import os, random, signal, threading
    threading.Timer(random.uniform(lo, hi),
                    lambda: os.kill(os.getpid(), signal.SIGINT)).start()


def ms_until_idle(tries):
    """A random moment may find the CPU in a kworker, not idle: stop it
    again, at most TRIES more times, until the stack holds do_idle."""
    for _ in range(tries):
        f = gdb.newest_frame()
        while f is not None and f.name() != "do_idle":
            f = f.older()
        if f is not None:
            return
        ms_interrupt_later(0.5, 3.0)
        gdb.execute("continue")
EOF_PY

# stop NAME BREAK TRIGGER: the gdb lines of one stop: a breakpoint on
# BREAK, the guest told TRIGGER (it waits in the UART while gdb holds the
# guest), continue, the walk, the breakpoint deleted.
stop() {
	echo "break $2"
	echo "shell printf '%s\\n' '$3' > $VM_RUN/trigger.in"
	echo "continue"
	echo "python ms_stop('$1')"
	echo "delete"
}

# session NAME BASE MODSECT-ARGS: one gdb session, all stops; the
# triggers' values are BASE + 1...  Output in $W/NAME.out.
session() {
	local name=$1 b=$2 args=$3 after=${4:-} i
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "set height 0"
		echo "target remote 127.0.0.1:$VM_GDB_PORT"
		echo "source $TOP/share/gdb/modsect.py"
		echo "source $W/bt.py"
		echo "python import time; _t0 = time.time()"
		vm_gdb_try "modsect $args"
		echo "python print('TIME %.2f' % (time.time() - _t0))"
		[ -z "$after" ] || echo "$after"
		for i in $(seq "$NIDLE"); do
			echo "python ms_interrupt_later(0.5, 3.0)"
			echo "continue"
			echo "python ms_until_idle(4)"
			echo "python ms_stop('idle$i')"
		done
		stop stack modsect_test_stack_fn "param stack $((b + 1))"
		stop timer modsect_test_timer_fn "param timer $((b + 2))"
		stop hrtimer modsect_test_hrtimer_fn "param hrtimer $((b + 3))"
		stop work modsect_test_work_fn "param work $((b + 4))"
		stop warn __warn "warn $((b + 5))"
		echo "detach"
	} >"$W/$name.gdb"
	local rc=0 t
	timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/$name.gdb" >"$W/$name.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "[$name] gdb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
	if grep -q '^NO ERROR$' "$W/$name.out"; then
		ok "[$name] in-gdb 'modsect $args' loaded"
	else
		not_ok "[$name] in-gdb 'modsect $args' failed"
		grep -m 3 '^GDB ERROR' "$W/$name.out" | detail
	fi
	t=$(sed -n 's/^TIME //p' "$W/$name.out")
	echo "bench: in-gdb $name load seconds ${t:-?}"
	# The guest ran on: the warn command's ack (it comes after its dmesg).
	if vm_wait_for "^==MODSECT-ACK [0-9]+ warn $((b + 5)) rc=0==\$" 60; then
		ok "[$name] the guest ran every trigger and on after detach"
	else
		not_ok "[$name] the guest did not acknowledge the last trigger after detach"
	fi
}

if [ "$VM_ARCH" = armv7l ]; then
	# armv7l: QEMU 7.2's gdbstub reads no module memory there (E14,
	# README.md's table of kernels), so gdb gets the map the guest
	# printed: the README's loop and its /proc/kallsyms.
	cat "$VM_RUN/readme-loop.txt" "$VM_RUN/kallsyms-all.txt" >"$W/capture.txt"
	session memory 100 "gdb --all --kernel --capture $W/capture.txt $FIND" \
		"${OTHER:+disable unwinder global modsect-kernel-stack}"
elif [ "$VM_ARCH" = ppc64le ]; then
	# ppc64le: modsect finds the kernel in memory only with its image
	# (tests/vm/kernel.sh); the modules are memory's.
	session memory 100 "gdb --all --kernel --kernel-image $VM_KERNEL $FIND" \
		"${OTHER:+disable unwinder global modsect-kernel-stack}"
else
	session memory 100 "gdb --all --kernel $FIND" \
		"${OTHER:+disable unwinder global modsect-kernel-stack}"
fi
[ -n "$WALK" ] || session image 200 "gdb --all --kernel --kernel-image $VM_KERNEL $FIND"
# bench/ (MODSECT_VM_UNWIND_VMLINUX=the debug vmlinux): what users had, gdb
# with the debug vmlinux (its .debug_frame) and module symbols without
# unwind tables, at the same stops; its results are "bench:" lines.
if [ -n "${MODSECT_VM_UNWIND_VMLINUX:-}" ]; then
	session vmlinux 400 "gdb --all --kernel --vmlinux $MODSECT_VM_UNWIND_VMLINUX $FIND" \
		"python [gdb.execute('remove-symbol-file ' + o.filename, to_string=True) for o in gdb.objfiles() if o.filename.endswith('.debug.elf')]; gdb.execute('disable frame-filter global modsect-kernel-entry')"
fi

# --- an ELF vmcore in gdb: each CPU's bt from the dump ----------------------
# QEMU's dump-guest-memory of the paused (idle) guest, twice at one moment:
# modsect reads the map and the ORC tables from the dump of physical
# memory (libkdumpfile translates, with the dump's VMCOREINFO), gdb opens
# the dump with paging as a core file (registers from its NT_PRSTATUS
# notes, memory at virtual addresses: the vmalloc'ed stacks included) and
# sources modsect's script. Its walk is checked as an idle stop ("vmcore").
VMCORE_OUT=
if [ "$VM_ARCH" = i686 ]; then
	# libkdumpfile 0.5.1 cannot translate a PAE dump (README.md's table)
	ok "[vmcore] gdb's walk on a dump (skipped on $VM_PROFILE: modsect reads no map from its PAE dump)"
elif [ -z "$WALK" ] && [ "${MODSECT_VM_UNWIND_VMCORE:-1}" != 0 ]; then
	# QEMU 7.2 maps a dump's memory to virtual addresses (-p) only for
	# x86 (cpu_get_memory_mapping()): elsewhere gdb could read no stack
	# from it; the map from the dump is still checked.
	PAGING=
	[ "$VM_ARCH" != x86_64 ] || PAGING=1
	vm_pause
	vm_dump "$W/vmcore.elf" elf 300
	[ -z "$PAGING" ] || vm_dump "$W/vmcore-paging.elf" elf 300 paging
	vm_resume
	if "$MODSECT" gdb --all --kernel --vmcore "$W/vmcore.elf" $FIND -o "$W/vmcore-ms.gdb" 2>"$W/vmcore-ms.err"; then
		ok "[vmcore] modsect gdb --all --kernel --vmcore: the script, with unwind tables from the dump$(grep -q '^# and unwind tables from its \(ORC\|code\)' "$W/vmcore-ms.gdb" || echo ' (NONE)')"
	else
		not_ok "[vmcore] modsect gdb --all --kernel --vmcore failed: $(head -c 300 "$W/vmcore-ms.err")"
	fi
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "core-file $W/vmcore-paging.elf"
		echo "source $W/vmcore-ms.gdb"
		echo "source $W/bt.py"
		echo "python ms_stop('idle1')"
	} >"$W/vmcore-session.gdb"
	if [ -n "$PAGING" ]; then
		timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/vmcore-session.gdb" >"$W/vmcore.out" 2>&1 </dev/null ||
			not_ok "[vmcore] gdb on the dump exited with an error"
		VMCORE_OUT="$W/vmcore.out 100"
	else
		ok "[vmcore] gdb's walk on the dump (skipped on $VM_PROFILE: QEMU 7.2 writes no virtual mapping there)"
	fi
	rm -f "$W/vmcore.elf" "$W/vmcore-paging.elf"
fi

# --- lldb: the same stops on lldb's own gdb-remote connection --------------
# lldb 14 cannot attach to a running QEMU guest (README.md): vm_pause
# first, which stops the guest wherever it is: the first walk, idle1, is
# that random moment.  lldb has no reason for the end of a walk: BTEND
# says "lldb: end of the walk" (or "limit").
cat >"$W/lldbbt.py" <<'EOF_PY'
import os
import lldb


def ms_stop(debugger, stop, limit=64):
    print("==STOP %s==" % stop)
    thread = debugger.GetSelectedTarget().GetProcess().GetSelectedThread()
    n = 0
    for f in thread:
        name = f.GetFunctionName() or (f.GetSymbol().GetName() if f.GetSymbol().IsValid() else None)
        kind = "inline" if f.IsInlined() else "artificial" if f.IsArtificial() else "normal"
        at = f.GetThread().GetProcess().GetTarget().ResolveLoadAddress(f.GetPC()).GetSymbol()
        at = at.GetName() if at.IsValid() and at.GetStartAddress().GetLoadAddress(f.GetThread().GetProcess().GetTarget()) == f.GetPC() else "-"
        if n and at != "-" and not f.IsInlined():
            # a return address at a symbol's start (i386's
            # handle_exception_return): named by pc - 1, as the kernel does
            b = f.GetThread().GetProcess().GetTarget().ResolveLoadAddress(f.GetPC() - 1).GetSymbol()
            name = b.GetName() if b.IsValid() else name
        print("BT %s %d %s 0x%x %s %s" % (stop, n, (name or "??").replace(" ", "_"), f.GetPC(), kind, at))
        n += 1
        if n >= limit:
            print("BTEND %s %d limit" % (stop, n))
            break
    else:
        print("BTEND %s %d lldb: end of the walk" % (stop, n))
    print("==END %s==" % stop)


def ms_send(path, line):
    with open(path, "w") as f:
        f.write(line + "\n")
EOF_PY
LLDB_PY=$(ls -d /usr/lib/llvm-*/lib/python3*/dist-packages/lldb/__init__.py 2>/dev/null | head -1)
LLDB_PY=${LLDB_PY%/lldb/__init__.py}
# lstop NAME BREAK TRIGGER ID: as stop, in lldb; ID the breakpoint's
# number (`breakpoint delete` of all would ask, and the answer from
# /dev/null ends lldb, which kills QEMU).
lstop() {
	echo "breakpoint set -n $2"
	echo "script lldbbt.ms_send('$VM_RUN/trigger.in', '$3')"
	echo "process continue"
	echo "script lldbbt.ms_stop(lldb.debugger, '$1')"
	echo "breakpoint delete $4"
}
if [ -n "$WALK" ]; then
	# lldb 14 has no Python unwinder to give the walk to
	ok "[lldb] the walks (skipped on $VM_PROFILE: modsect gives lldb no walk there)"
	LLDB_OUT=
elif command -v lldb >/dev/null; then
	vm_pause
	{
		echo "settings set auto-confirm true"
		echo "gdb-remote 127.0.0.1:$VM_GDB_PORT"
		echo "command script import $TOP/share/lldb/modsect.py"
		echo "command script import $W/lldbbt.py"
		echo "script import time; _t0 = time.time()"
		echo "modsect lldb --all --kernel $FIND"
		echo "script print('TIME %.2f' % (time.time() - _t0))"
		echo "script lldbbt.ms_stop(lldb.debugger, 'idle1')"
		lstop stack modsect_test_stack_fn "param stack 301" 1
		lstop timer modsect_test_timer_fn "param timer 302" 2
		lstop hrtimer modsect_test_hrtimer_fn "param hrtimer 303" 3
		lstop work modsect_test_work_fn "param work 304" 4
		lstop warn __warn "warn 305" 5
		echo "process detach"
	} >"$W/lldb.lldb"
	rc=0
	PYTHONPATH=$LLDB_PY${PYTHONPATH:+:$PYTHONPATH} timeout "$GDB_TIMEOUT" lldb -b -s "$W/lldb.lldb" \
		>"$W/lldb.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "[lldb] lldb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
	t=$(sed -n 's/^TIME //p' "$W/lldb.out")
	echo "bench: in-lldb load seconds ${t:-?}"
	if vm_wait_for "^==MODSECT-ACK [0-9]+ warn 305 rc=0==\$" 60; then
		ok "[lldb] the guest ran every trigger and on after detach"
	else
		not_ok "[lldb] the guest did not acknowledge the last trigger after detach"
		vm_resume || true
	fi
	LLDB_OUT="$W/lldb.out 300"
else
	not_ok "[lldb] no lldb (apt-get install -y lldb)"
	LLDB_OUT=
fi

# The kernel's traces: the guest's dmesg, or if the guest is gone (a
# debugger that quits kills QEMU) what its console printed.
if vm_cmd dmesg 60; then
	vm_section "dmesg-$VM_LAST_ACK" >"$W/dmesg.txt"
else
	tr -d '\r' <"$VM_RUN/console.log" >"$W/dmesg.txt"
	echo "note: the guest's dmesg did not come; the kernel's traces are the console's"
fi

# The comparison (python3): the kernel's traces and gdb's walks, one result
# line per check: "P DESC" (ok), "F DESC" (not ok), "D TEXT" (detail).
# shellcheck disable=SC2086 # IMAGE_OUT, LLDB_OUT, VMCORE_OUT: FILE BASE, or nothing
# Comparisons that do not count, as "bench:" lines.
bench_results() {
	while read -r kind line; do
		case $kind in
		P) echo "bench: right: $line" ;;
		F) echo "bench: WRONG: $line" ;;
		D) printf 'bench:     %s\n' "$line" ;;
		esac
	done
}

compare_walks() {
python3 - "$W/dmesg.txt" "$@" <<'EOF_PY'
import re, sys

FRAME = re.compile(r"^(\? )?([A-Za-z0-9_.$]+)\+(0x[0-9a-f]+)/0x[0-9a-f]+( \[.*\])?$")
REGS = re.compile(r"^(RIP|Code|RSP|RAX|RDX|RBP|R10|R13|FS|CS|CR2|DR0|DR3|PKRU|EFLAGS|ORIG_RAX|"
                  # i386's (arch/x86/kernel/process_32.c __show_regs)
                  r"EAX|ESI|DS|CR0|DR6):")
# ppc64's "[sp] [ip] f+0x1/0x2 [mod]", " (unreliable)" when the saved lr
# may be stale (arch/powerpc/kernel/process.c show_stack); s390x's
# " [<ip>] f+0x1/0x2 [mod]", "([<ip>] ...)" unreliable (dumpstack.c)
PPC = re.compile(r"^\[[0-9a-f]+\] \[[0-9a-f]+\] (?:([A-Za-z0-9_.$]+)\+(0x[0-9a-f]+)/0x[0-9a-f]+|(0x[0-9a-f]+))( \[.*\])?( \(unreliable\))?$")
S390 = re.compile(r"^(\()?\[<[0-9a-f]+>\] ([A-Za-z0-9_.$]+)\+(0x[0-9a-f]+)/0x[0-9a-f]+( \[[^]]*\])?\)?$")
# ARM's unwinder (arch/arm/kernel/traps.c dump_backtrace_entry): no
# heading; " f [mod] from g+0x1/0x2 [mod]" per call, or with
# BACKTRACE_VERBOSE "[<a>] (f) from [<b>] (g+0x1/0x2)"
ARM = re.compile(r"^(?:\[<[0-9a-f]+>\] \()?([A-Za-z0-9_.$]+)(?: \[[^]]*\])?\)? from (?:\[<[0-9a-f]+>\] \()?"
                 r"(?:([A-Za-z0-9_.$]+)\+(0x[0-9a-f]+)/0x[0-9a-f]+|0x[0-9a-f]+)(?: \[[^]]*\])?\)?$")


def out(kind, text):
    print(kind, text)


def strip_ts(line):
    return re.sub(r"^\[ *[0-9]+\.[0-9]+\] ?", "", line.rstrip("\n"))


def norm(name):
    # foo.isra.0, foo.cold, foo.constprop.0 -> foo (gdb's DWARF name)
    name = name.split(".")[0].split("[")[0]
    # the linker's label at __do_softirq (6.1's SOFTIRQENTRY_TEXT): the
    # kernel names the first of two aliases, gdb the last by name
    return "__do_softirq" if name == "__softirqentry_text_start" else name


dmesg = [strip_ts(l) for l in open(sys.argv[1], errors="replace")]


def ktrace(marker):
    """The kernel's trace after the last line equal to MARKER: a dict with
    frames [(name, is_q, ctx)] and rip (the first RIP line's function,
    before the Call Trace).  A RIP line of kernel text inside the trace
    (the context an interrupt or exception stopped, whose regs the kernel
    prints instead of a line for regs->ip) is a frame."""
    idx = [i for i, l in enumerate(dmesg) if l.strip() == marker
           or l.endswith("] " + marker) or l.endswith(" " + marker)]
    if not idx:
        return None
    i = idx[-1]
    t = {"frames": [], "rip": None, "lines": [], "user": None, "after": set(), "lr": set()}
    j = i + 1
    # arm64 prints "Call trace:" and no <TASK> markers (i386 and x86-64
    # "Call Trace:"); the trace ends at the first line that is no frame.
    # ARM's has no heading: its first " f from g" line starts it.
    heads = ("Call Trace:", "Call trace:")
    while j < len(dmesg) and j < i + 80 and dmesg[j].strip() not in heads and not ARM.match(dmesg[j].strip()):
        # the register dump's pc: x86, arm64, ppc64 ("NIP [a] f+"), s390x
        m = re.match(r"^(?:RIP: 00[0-9a-f]+:|EIP: |pc : |NIP +\[[0-9a-f]+\] |Krnl PSW : [0-9a-f]+ [0-9a-f]+ \()([A-Za-z0-9_.$]+)\+", dmesg[j].strip())
        if m and t["rip"] is None:
            t["rip"] = m.group(1)
        j += 1
    if j >= len(dmesg) or (dmesg[j].strip() not in heads and not ARM.match(dmesg[j].strip())):
        return None
    ctx = ""
    if ARM.match(dmesg[j].strip()):
        j -= 1
    intr = False
    for l in dmesg[j + 1:j + 200]:
        s = l.strip()
        t["lines"].append(s)
        # ppc64: an interrupt's regs between "--- interrupt: N at f+"
        # (the interrupted function: a frame) and "--- interrupt: N"
        m = re.match(r"^--- interrupt: [0-9a-f]+ at (?:([A-Za-z0-9_.$]+)\+|(0x[0-9a-f]+)$)", s)
        if m:
            if m.group(1):
                t["frames"].append((m.group(1), False, ctx, False))
                t["after"].add(norm(m.group(1)))
            else:
                t["user"] = int(m.group(2), 16)
            intr = True
            continue
        if intr:
            # the interrupted lr (__show_regs' "LR [a] f+0x1/0x2")
            m = re.match(r"^LR \[[0-9a-f]+\] ([A-Za-z0-9_.$]+)\+", s)
            if m:
                t["lr"].add(norm(m.group(1)))
            intr = not re.match(r"^--- interrupt: [0-9a-f]+$", s)
            continue
        m = ARM.match(s)
        if m:
            if not t["frames"]:
                t["frames"].append((m.group(1), False, ctx, False))
            if not m.group(2):
                break
            t["frames"].append((m.group(2), False, ctx, m.group(3) == "0x0"))
            continue
        # ARM's exception stack dump after an entry-code frame
        if re.match(r"^Exception stack\(|^[0-9a-f]{4}: [0-9a-f ]+$", s):
            continue
        m = PPC.match(s)
        if m:
            # a bare address (a stale lr slot after an interrupt): no frame
            t["frames"].append((m.group(1) or m.group(3), bool(m.group(5)) or not m.group(1), ctx, m.group(2) == "0x0"))
            continue
        m = S390.match(s)
        if m:
            t["frames"].append((m.group(2), bool(m.group(1)), ctx, m.group(3) == "0x0"))
            continue
        if s in ("<IRQ>", "<NMI>", "<SOFTIRQ>", "<#DF>"):
            ctx = s[1:-1].lower()
            continue
        if s == "<TASK>":
            ctx = "task"
            continue
        if s in ("</IRQ>", "</NMI>", "</SOFTIRQ>", "</#DF>"):
            ctx = ""
            continue
        if s == "</TASK>":
            break
        m = FRAME.match(s)
        if m:
            # +0x0: a return address just past a noreturn call, which
            # the kernel names by the next function (gdb by the caller)
            t["frames"].append((m.group(2), bool(m.group(1)), ctx, m.group(3) == "0x0"))
            continue
        # i386 prints "EIP: f+0x1/0x2" (kernel) or "EIP: 0xb7f46559" (user)
        m = re.match(r"^(?:RIP: 00[0-9a-f]+:|EIP: )([A-Za-z0-9_.$]+)\+", s)
        if m:
            t["frames"].append((m.group(1), False, ctx, False))
            continue
        m = re.match(r"^(?:RIP: 0033:|EIP: )(0x[0-9a-f]+)$", s)
        if m:
            t["user"] = int(m.group(1), 16)
            continue
        if REGS.match(s) or s.startswith("R") and ":" in s[:5]:
            continue
        break
    return t


def gwalk(path, stop):
    """gdb's walk at STOP: frames [(name, pc, type)], end reason, the bt
    text."""
    fr, end, text, on = [], None, [], False
    for l in open(path, errors="replace"):
        l = l.rstrip("\n")
        if l == "==STOP %s==" % stop:
            on = True
            continue
        if l == "==END %s==" % stop:
            break
        if not on:
            continue
        w = l.split(" ")
        if w[0] == "BT" and w[1] == stop:
            fr.append((w[3], w[4], w[5], w[6] if len(w) > 6 else "-"))
        elif w[0] == "BTEND" and w[1] == stop:
            end = " ".join(w[3:])
        else:
            text.append(l)
    return (fr, end, text) if on else None


def side(g, k, d="gdb"):
    rows = ["%-3s %-40s %s" % ("#", d, "kernel")]
    for i in range(max(len(g), len(k))):
        a = g[i] if i < len(g) else ""
        b = k[i] if i < len(k) else ""
        rows.append("%-3d %-40s %s%s" % (i, a, b, "" if a == b else "   <--"))
    return rows


def user_tail(fr, t):
    """FR without a last frame at the user-mode RIP the kernel printed
    after its trace (a system call's): that frame is the kernel's too."""
    if fr and t and t.get("user") is not None and fr[-1][0] == "??" and fr[-1][1] == "0x%x" % t["user"]:
        return fr[:-1], " (then user space at %s, as the kernel's RIP: 0033 line)" % fr[-1][1]
    return fr, ""


def clean_end(name, stop, fr, end, text, klast):
    bad = []
    names = [f[0] for f in fr]
    if "??" in names:
        bad.append("'??' frame at #%d" % names.index("??"))
    if names and klast and norm(names[-1]) != norm(klast) and norm(fr[-1][3] if len(fr[-1]) > 3 else "-") != norm(klast):
        bad.append("last frame %s, the kernel's %s" % (names[-1], klast))
    # "zero pc": the end of arm64's frame records (bt.py)
    if end not in ("outermost", "zero pc", "lldb: end of the walk"):
        bad.append("walk ended by: %s" % end)
    for l in text:
        if "Backtrace stopped" in l or "corrupt stack" in l:
            bad.append(l.strip())
    return bad


def at_zero(got, fr, want, wzero, keep=None):
    """GOT with the kernel's name where the kernel's frame is NAME+0x0 and
    the debugger's pc is NAME's first byte (a return address past a
    noreturn call: the kernel names the next function, gdb the caller).
    KEEP: the indexes of FR's non-inline frames GOT has (all)."""
    at = [f[3] if len(f) > 3 else "-" for f in fr if f[2] != "inline"]
    if keep is not None:
        at = [at[k] for k in keep]
    return [want[i] if i < len(want) and wzero and wzero[i] and norm(at[i]) == want[i]
            else g for i, g in enumerate(got)]


def beyond_switch(sess, stop, got, want, t):
    """i386: the kernel's unwinder ends a softirq's trace at call_on_stack,
    the switch to the softirq stack (arch/x86/kernel/irq_32.c); the
    debugger goes on. Its frames beyond must be right: call_on_stack's
    caller do_softirq_own_stack, then functions the kernel lists as '?'
    entries of the stack it interrupted, and from do_idle on the idle
    task's own trace. WANT extended by them, or WANT."""
    if not want or want[-1] != "call_on_stack" or got[:len(want)] != want or t is None:
        return want
    more = got[len(want):]
    q = set(norm(f[0]) for f in t["frames"] if f[1])
    ref = (idle_ref.get(sess) or idle_ref.get("any") or ([], []))[0]
    if not more or more[0] != "do_softirq_own_stack":
        out("D", "after call_on_stack: %s, not do_softirq_own_stack" % (more[:1] or "nothing"))
        return want
    k = more.index("do_idle") if "do_idle" in more else len(more)
    bad = [x for x in more[1:k] if x not in q]
    if bad or (k < len(more) and more[k:] != ref):
        out("D", "beyond call_on_stack, frames neither '?' entries nor the idle task's: %s" % " ".join(bad or more[k:]))
        return want
    out("P", "[%s] %s: %s's %d frames beyond the kernel's call_on_stack are do_softirq_own_stack, '?' entries of the interrupted stack and the idle task's trace" % (sess, stop, dbg(sess), len(more)))
    return want + more


# The kernels' exception entries whose next frame is the interrupted one:
# s390x's (arch/s390/kernel/entry.S), ARM's svc entries (entry-armv.S).
ENTRIES = ("ext_int_handler", "io_int_handler", "pgm_check_handler",
           "mcck_int_handler", "restart_int_handler",
           "__irq_svc", "__dabt_svc", "__und_svc", "__pabt_svc", "__fiq_svc")


def past_interrupt(got, want, t):
    """GOT without the frames the debugger has and the kernel's trace
    does not, each the one right after an interrupted frame, where the
    kernel prints the stale lr slot of the interrupted function's frame
    as a '?' entry, or nothing (ppc64 show_stack(): when it equals the
    interrupted lr, s390x unwind_bc.c): the interrupted function's
    caller, from pt_regs' lr. Such a frame is let through only if the
    kernel names it: a '?' entry of its trace, or the LR of the
    interrupt's register dump. The indexes of GOT kept, and the frames
    let through."""
    if t is None:
        return list(range(len(got))), []
    after = set(t.get("after", ())) | set(w for k, w in enumerate(want[1:]) if want[k] in ENTRIES)
    ok = set(norm(f[0]) for f in t["frames"] if f[1]) | set(t.get("lr", ()))
    keep, let, j = [], [], 0
    for i, g in enumerate(got):
        if j < len(want) and g == want[j]:
            keep.append(i)
            j += 1
        elif 0 < j <= len(want) and want[j - 1] in after and g in ok and (not let or let[-1][1] != j):
            let.append((g, j))
        else:
            keep.append(i)
            j += 1
    return keep, [g for g, _ in let]


def compare(sess, stop, fr, end, text, want, extra="", t=None, wzero=None):
    """The debugger's non-inline frames == WANT (names); both lists
    printed side by side on a mismatch."""
    fr, tail = user_tail(fr, t)
    extra += tail
    got = [norm(f[0]) for f in fr if f[2] != "inline"]
    keep, let = past_interrupt(got, want, t)
    got = at_zero([got[k] for k in keep], fr, want, wzero, keep)
    if let:
        extra += " (and the interrupted function's caller the kernel lists as '?' or as the lr: %s)" % ", ".join(let)
    want = beyond_switch(sess, stop, got, want, t)
    sig = [f[0] for f in fr if f[2] == "signal"]
    sigs = " (signal frames: %s)" % ", ".join(sig) if sig else ""
    bad = clean_end(sess, stop, fr, end, text, want[-1] if want else None)
    if got == want and not bad:
        out("P", "[%s] %s: %s's bt == the kernel's trace, %d frames%s%s" % (sess, stop, dbg(sess), len(want), extra, sigs))
        return
    n = 0
    while n < min(len(got), len(want)) and got[n] == want[n]:
        n += 1
    out("F", "[%s] %s: %s's bt differs from the kernel's from frame #%d on (%d right of %d; %s %d frames, %s)%s%s"
        % (sess, stop, dbg(sess), n, n, len(want), dbg(sess), len(got), end, extra, sigs))
    for b in bad:
        out("D", b)
    for r in side(got, want, dbg(sess)):
        out("D", r)


# Where a WARN's trap enters the kernel (x86-64's ud2, arm64's brk), and
# the functions between it and __warn (arch/*/kernel/traps.c, debug-monitors.c).
TRAP = ("asm_exc_invalid_op", "el1h_64_sync",
        # i386: the stub jumps to handle_exception, which calls the handler
        "handle_exception",
        # ppc64's program check, s390x's (its monitor call)
        "program_check_common_virt", "pgm_check_handler")
WARN_PATH = ("__warn", "report_bug", "handle_bug", "exc_invalid_op",
             # arm64 6.1
             "bug_handler", "call_break_hook", "brk_handler",
             "do_debug_exception", "el1_dbg", "el1h_64_sync_handler",
             # arm64 6.12
             "bug_brk_handler", "do_el1_brk64", "el1_brk64",
             # ppc64 6.1 (traps.c)
             "do_program_check", "program_check_exception",
             # s390x 6.1 (traps.c); __do_pgm_check is also
             # __noinstr_text_start, the label gdb names it by
             "monitor_event_exception", "__do_pgm_check", "__noinstr_text_start")


def dbg(sess):
    return "lldb" if sess == "lldb" else "gdb"


idle_ref = {}
# the idle task's trace first (an hrtimer's), for beyond_switch()
for path, base in zip(sys.argv[2::2], map(int, sys.argv[3::2])):
    for stop, k in (("timer", 2), ("hrtimer", 3)):
        t = ktrace("modsect_test: %s %d" % (stop, base + k))
        rel = [norm(f[0]) for f in t["frames"] if not f[1]] if t else []
        if "do_idle" in rel:
            sess = path.rsplit("/", 1)[-1][:-4]
            relz = [f[3] for f in t["frames"] if not f[1]]
            idle_ref.setdefault(sess, (rel[rel.index("do_idle"):], relz[rel.index("do_idle"):]))
            idle_ref.setdefault("any", idle_ref[sess])
for path, base in zip(sys.argv[2::2], map(int, sys.argv[3::2])):
    sess = path.rsplit("/", 1)[-1][:-4]
    # the kernel side of each stop
    stops = {"stack": (1, "modsect_test_stack_fn"), "timer": (2, "modsect_test_timer_fn"),
             "hrtimer": (3, "modsect_test_hrtimer_fn"), "work": (4, "modsect_test_work_fn")}
    # a vmcore has one moment: the idle stop alone
    only_idle = sess == "vmcore"
    for stop, (k, fn) in ({} if only_idle else stops).items():
        t = ktrace("modsect_test: %s %d" % (stop, base + k))
        g = gwalk(path, stop)
        if t is None or not any(f[0] == fn for f in t["frames"]):
            out("F", "[%s] %s: no kernel trace through %s after 'modsect_test: %s %d'" % (sess, stop, fn, stop, base + k))
            continue
        rel = [norm(f[0]) for f in t["frames"] if not f[1]]
        relz = [f[3] for f in t["frames"] if not f[1]]
        want = rel[rel.index(fn):]
        wzero = relz[rel.index(fn):]
        ctx = " -> ".join(sorted(set(f[2] for f in t["frames"] if not f[1] and f[2]), key=["irq", "softirq", "task"].index))
        out("P", "[%s] %s: kernel trace parsed: %d frames from %s (%s)%s, %d '?' entries" % (
            sess, stop, len(want), fn, ctx, " ending " + want[-1] if want else "",
            sum(1 for f in t["frames"] if f[1])))
        if stop in ("timer", "hrtimer") and "do_idle" in want:
            k = want.index("do_idle")
            idle_ref.setdefault(sess, (want[k:], wzero[k:]))
            idle_ref.setdefault("any", (want[k:], wzero[k:]))
        if g is None or not g[0]:
            out("F", "[%s] %s: breakpoint on %s not hit (no walk in %s's output)" % (sess, stop, fn, dbg(sess)))
            continue
        if norm(g[0][0][0]) != fn:
            out("F", "[%s] %s: gdb stopped in %s, not %s" % (sess, stop, g[0][0][0], fn))
            continue
        out("P", "[%s] %s: breakpoint on %s hit" % (sess, stop, fn))
        compare(sess, stop, g[0], g[1], g[2], want, t=t, wzero=wzero)

    # warn: the kernel's WARN trace (its RIP line, then the Call Trace)
    t = ktrace("modsect_test: warn %d" % (base + 5))
    g = gwalk(path, "warn")
    if only_idle:
        pass
    elif t is not None and not t["rip"] and "__warn" in [norm(f[0]) for f in t["frames"] if not f[1]]:
        # 32-bit ARM: no trap; warn_slowpath_fmt calls __warn, which
        # calls dump_stack(): its trace from __warn on, as a stop's
        rel = [norm(f[0]) for f in t["frames"] if not f[1]]
        relz = [f[3] for f in t["frames"] if not f[1]]
        want, wzero = rel[rel.index("__warn"):], relz[rel.index("__warn"):]
        out("P", "[%s] warn: kernel WARN trace parsed (no trap: dump_stack from __warn): %d frames ending %s" % (sess, len(want), want[-1]))
        if g is None or not g[0] or norm(g[0][0][0]) != "__warn":
            out("F", "[%s] warn: breakpoint on __warn not hit" % sess)
        else:
            compare(sess, "warn", g[0], g[1], g[2], want, t=t, wzero=wzero)
    elif t is None or not t["rip"]:
        out("F", "[%s] warn: no kernel WARN trace with a RIP line after 'modsect_test: warn %d'" % (sess, base + 5))
    else:
        kref = [norm(f[0]) for f in t["frames"] if not f[1]]
        # x86 prints the RIP function above its trace, arm64 in it (pc)
        if not kref or kref[0] != norm(t["rip"]):
            kref = [norm(t["rip"])] + kref
        q = set(norm(f[0]) for f in t["frames"] if f[1])
        out("P", "[%s] warn: kernel WARN trace parsed: RIP %s, %d frames ending %s; '?' entries: %s" % (
            sess, t["rip"], len(kref), kref[-1], " ".join(norm(f[0]) for f in t["frames"] if f[1]) or "none"))
        if g is None or not g[0] or norm(g[0][0][0]) != "__warn":
            out("F", "[%s] warn: breakpoint on __warn not hit%s" % (sess, "" if g is None or not g[0] else " (stopped in %s)" % g[0][0][0]))
        else:
            out("P", "[%s] warn: breakpoint on __warn hit" % sess)
            fr, end, text = g
            fr, tail = user_tail(fr, t)
            got = [norm(f[0]) for f in fr if f[2] != "inline"]
            n = len(kref)
            bad = clean_end(sess, "warn", fr, end, text, kref[-1])
            head = got[:-n] if len(got) >= n else got
            if got[-n:] != kref:
                bad.append("%s's last %d frames are not the kernel's RIP function and its frames" % (dbg(sess), n))
            elif not head or head[-1] not in TRAP:
                bad.append("the frame before %s is %s, not %s" % (kref[0], head[-1] if head else "none", " or ".join(TRAP)))
            else:
                extra = [x for x in head[:-1] if x not in q and x not in WARN_PATH]
                if extra:
                    bad.append("frames before %s neither '?' entries nor __warn's callers: %s" % (head[-1], " ".join(extra)))
            if not bad:
                out("P", "[%s] warn: %s's bt ends with the kernel's %d frames after %s (%d frames before)%s" % (sess, dbg(sess), n, head[-1], len(head), tail))
            else:
                out("F", "[%s] warn: %s's bt does not end with the trap's entry and the kernel's trace (%s %d frames, %s)" % (sess, dbg(sess), dbg(sess), len(got), end))
                for b in bad:
                    out("D", b)
                # gdb's frames aligned on the kernel's at the end
                pad = max(0, len(got) - n)
                for r in side(got, [""] * pad + kref, dbg(sess)):
                    out("D", r)

    # idle: gdb's frames from do_idle on == a kernel timer trace's
    for i in range(1, 100):
        g = gwalk(path, "idle%d" % i)
        if g is None:
            break
        ref = idle_ref.get(sess) or idle_ref.get("any")
        refz = ref[1] if ref else None
        ref = ref[0] if ref else None
        fr, end, text = g
        at = fr[0][0] if fr else "nothing"
        if ref is None:
            out("F", "[%s] idle%d: no kernel timer trace that interrupted the idle loop to compare with (stopped in %s)" % (sess, i, at))
            continue
        got = [norm(f[0]) for f in fr if f[2] != "inline"]
        if "do_idle" not in got:
            out("F", "[%s] idle%d: stopped in %s; %s's bt has no do_idle (%s %d frames, %s)" % (sess, i, at, dbg(sess), dbg(sess), len(got), end))
            for b in clean_end(sess, "idle", fr, end, text, ref[-1]):
                out("D", b)
            for r in side(got, ref, dbg(sess)):
                out("D", r)
            continue
        k = [j for j, f in enumerate(fr) if f[2] != "inline" and norm(f[0]) == "do_idle"][0]
        if "??" in [f[0] for f in fr[:k]]:
            out("F", "[%s] idle%d: stopped in %s; a '??' frame above do_idle" % (sess, i, at))
            continue
        compare(sess, "idle%d" % i, fr[k:], end, text, ref, " (stopped in %s, %d frames above do_idle)" % (at, got.index("do_idle")), wzero=refz)
EOF_PY
}
if [ -n "$OTHER" ]; then
	compare_walks "$W/memory.out" 100 | bench_results
	[ "${PIPESTATUS[0]}" = 0 ] || not_ok "the comparison of the walks failed: its results are cut short"
	vm_stop
	summary
	exit
fi
IMAGE_OUT="$W/image.out 200"
[ -z "$WALK" ] || IMAGE_OUT=
compare_walks "$W/memory.out" 100 $IMAGE_OUT $LLDB_OUT $VMCORE_OUT >"$W/results" ||
	not_ok "the comparison of the walks failed (python3 exit $?): its results are cut short"
while read -r kind line; do
	case $kind in
	P) ok "$line" ;;
	F) not_ok "$line" ;;
	D) printf '    %s\n' "$line" ;;
	esac
done <"$W/results"
if [ -n "${MODSECT_VM_UNWIND_VMLINUX:-}" ]; then
	compare_walks "$W/vmlinux.out" 400 | bench_results
fi

vm_stop
summary
