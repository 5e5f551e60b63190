#!/bin/bash
# Rule 23: the task walk refuses hostile memory.  tests/tools/taskwalk.c
# builds a fake kernel with tasks (tests/tools/faketask.h: BTF with
# Debian 6.1's offsets, or small ones with the field names before 5.14,
# `--old`), walks it with ms_kernel_tasks and ms_kernel_task_regs
# (lib/kernel/ktask.c) and lists every task with its registers; each
# listing is compared whole.  Hostile memory (loops, NULL links, unmapped
# tasks and runqueues, absurd nr_cpu_ids, more tasks than the bound,
# thread groups that share threads) ends in one line naming the list and
# the place, exit 3, within 20 s; a saved stack pointer outside its
# task's stack costs that task its registers, saying so, and nothing
# else.  Last, ms_serve (lib/serve/) on the fake kernel answers a
# scripted gdb conversation over a socket: every reply, its checksum and
# acknowledgement checked by taskwalk, compared whole.
. "$(dirname "$0")/lib.sh"
use_helper taskwalk
TW=$HELPER

# named OPT MODE FILE: FILE with the fake kernel's arena addresses as
# @NAME@ (taskwalk --legend: "app.tasks" is app's task_struct.tasks).
named() {
	"$TW" $1 --legend "$2" | awk '{ printf "s/%s\\b/@%s@/g\n", $1, $2 }' >"$T/names.sed"
	sed -f "$T/names.sed" "$3"
}

# ---- the expected listing ----------------------------------------------------

# le64 N: N's 8 bytes, little endian, in hex (as 'g' and 'm' send them).
le64() {
	local h
	h=$(printf '%016x' "$(($1))")
	echo "${h:14:2}${h:12:2}${h:10:2}${h:8:2}${h:6:2}${h:4:2}${h:2:2}${h:0:2}"
}
# The frame faketask.h leaves on the Nth stack of task PID: r15 r14 r13
# r12 bx are 0x15.., 0x14.., 0x13.., 0x12.., 0xbb.. with the pid below,
# bp thread.sp + 0x80, ret_addr __schedule+0x303.
STACKS=0xffffc90000000000
RET=0xffffffff81c29a13
base() { echo $((STACKS + $1 * 0x4000)); }
# frame PID N [SP]: the register line of a sleeping task (thread.sp SP,
# by default the Nth stack's + 0x3f00): rsp is SP + 0x38, just past the
# struct inactive_task_frame, rip its ret_addr, nothing else known.
frame() {
	local b sp
	b=$(base "$2")
	sp=${3:-$((b + 0x3f00))}
	printf '  rbx 0x%016x rbp 0x%016x rsp 0x%016x r12 0x%016x r13 0x%016x r14 0x%016x r15 0x%016x rip 0x%016x\n' \
		$((0xbb << 56 | $1)) $((b + 0x3f80)) $((sp + 0x38)) $((0x12 << 56 | $1)) \
		$((0x13 << 56 | $1)) $((0x14 << 56 | $1)) $((0x15 << 56 | $1)) $((RET))
}
# cpu C: a running task's registers, CPU C's in the dump's notes:
# 0xc0de000000000000 | C << 8 | gdb's number of the register.
cpu() {
	local n=0 r
	for r in rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags cs ss ds es fs gs; do
		[ $((n % 6)) = 0 ] && printf '  ' || printf ' '
		printf '%s 0x%016x' "$r" $((0xc0de000000000000 | $1 << 8 | n))
		[ $((n % 6)) = 5 ] && echo
		n=$((n + 1))
	done
}

{
	echo "2 CPUs, panic_cpu -1, 10 tasks"
	echo 'thread 4194304 pid 0 tgid 0 "swapper/0" R cpu 0 idle kthread'
	frame 0 0
	echo 'thread 4194305 pid 0 tgid 0 "swapper/1" R cpu 1 running idle kthread'
	cpu 1
	echo 'thread 1 pid 1 tgid 1 "systemd" S cpu 1'
	frame 1 2
	echo 'thread 2 pid 2 tgid 2 "kthreadd" S cpu 0 kthread'
	frame 2 3
	echo 'thread 30 pid 30 tgid 30 "kworker/0:1" I cpu 0 kthread'
	frame 30 4
	echo 'thread 300 pid 300 tgid 300 "modsect_lock" D cpu 1'
	frame 300 5
	echo 'thread 400 pid 400 tgid 400 "app" R cpu 0 running'
	cpu 0
	echo 'thread 401 pid 401 tgid 400 "app-worker" S cpu 1'
	frame 401 7
	echo 'thread 402 pid 402 tgid 400 "t$#}*<&>'"'"'\x22\x7f" T cpu 1'
	frame 402 8
	echo 'thread 500 pid 500 tgid 500 "defunct" Z cpu 0'
	frame 500 9
} >"$T/good"

# swap FILE TID TEXT...: FILE with the register lines of thread TID
# replaced by the lines TEXT.
swap() {
	local f=$1 tid=$2
	shift 2
	printf '%s\n' "$@" >"$T/swap.txt"
	awk -v tid="$tid" -v txt="$T/swap.txt" '
		/^thread / { skip = ($2 == tid); print
			if (skip) while ((getline l < txt) > 0) print l
			next }
		!skip' "$f"
}

# ---- legitimate memory ---------------------------------------------------------

hsame "good (6.1 layout): idle tasks first, then init_task.tasks and each thread group; states R S I D T Z; sleeping tasks' registers their frame's, running ones' their CPU's" \
	"$T/good" good
hsame "good, old layout (state, task_struct.cpu; other offsets): the same listing" "$T/good" --old good

swap "$T/good" 4194305 "  no registers: task 0 (swapper/1) was running on CPU 1: fakekern holds no CPU registers" >"$T/noregs.1"
swap "$T/noregs.1" 400 "  no registers: task 400 (app) was running on CPU 0: fakekern holds no CPU registers" >"$T/noregs"
hsame "noregs (a source without CPU registers, as /proc/kcore): running tasks say why they have none" \
	"$T/noregs" --noregs good

sed '1s/panic_cpu -1/panic_cpu 1/' "$T/good" >"$T/panic"
hsame "panic: panic_cpu read" "$T/panic" panic
sed 's/"kworker\/0:1"/"AAAAAAAAAAAAAAA"/' "$T/good" >"$T/comm"
hsame "comm-full: a comm of 16 bytes without a NUL is cut to 15" "$T/comm" comm-full
# Both CPUs' rq->idle is init_task: it is CPU 0's idle task, listed once,
# never relabelled as CPU 1's.
awk '/^thread 4194305 /{ skip = 1; next } /^thread /{ skip = 0 } !skip' "$T/good" |
	sed '1s/10 tasks/9 tasks/' >"$T/idle"
hsame "idle-dup: one idle task for two CPUs is listed once, as the first CPU's" "$T/idle" idle-dup

# Saved stack pointers: the frame must lie inside [stack, stack + 16 KiB).
{
	swap "$T/good" 1 "$(frame 1 2 $(($(base 2) + 0x4000 - 0x38)))" >"$T/sp.1"
	swap "$T/sp.1" 30 "  no registers: task 30 (kworker/0:1): reading struct inactive_task_frame at 0x1000 (56 bytes) from fakekern: not mapped" >"$T/sp.2"
	swap "$T/sp.2" 300 "$(frame 300 5 "$(base 5)")" >"$T/sp.3"
	swap "$T/sp.3" 401 "  no registers: task 401 (app-worker): its saved stack pointer 0xffffc9000001ffd0 is outside its stack 0xffffc9000001c000-0xffffc90000020000" >"$T/sp.4"
	swap "$T/sp.4" 402 "  no registers: task 402 (t\$#}*<&>'\"\\x7f): its saved stack pointer 0xffffc9000001fff8 is outside its stack 0xffffc90000020000-0xffffc90000024000"
} >"$T/sp"
for o in "" --old; do
	hsame "sp${o:+ $o}: a frame 8 bytes past its stack's end and one below its base refused, naming task, pointer and stack; one at the very end and one at the base taken; an unmapped one said; the others listed" \
		"$T/sp" $o sp
done

# ---- hostile memory ------------------------------------------------------------

# hostile OPT MODE MESSAGE: exit 3 (bad input), no stdout, stderr the
# one line "taskwalk: MESSAGE", arena addresses @NAMED@, within 20 s.
hostile() {
	hrun $1 "$2"
	named "$1" "$2" "$T/err" >"$T/err.n"
	if [ "$RC" = 3 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err.n")" = "taskwalk: $3" ]; then
		ok "$2${1:+ $1}: $3"
	else
		not_ok "$2${1:+ $1}: want exit 3 and the one line: taskwalk: $3" "$(_last_run)" \
			"--- named:" "$(cat "$T/err.n")"
	fi
}

for o in "" --old; do
	hostile "$o" tasks-cycle "fakekern: init_task.tasks at @swapper0.tasks@ does not come back to its head: it loops at @kthreadd.tasks@ (corrupted memory?)"
	hostile "$o" tasks-null "fakekern: init_task.tasks at @swapper0.tasks@ does not come back to its head: the link at @lock.tasks@ is NULL (corrupted memory?)"
	hostile "$o" threads-cycle "fakekern: signal_struct.thread_head at @app.signal.thread_head@ does not come back to its head: it loops at @app.thread_node@ (corrupted memory?)"
	hostile "$o" threads-null "fakekern: signal_struct.thread_head at @app.signal.thread_head@ does not come back to its head: the link at @stopped.thread_node@ is NULL (corrupted memory?)"
	hostile "$o" signal-null "fakekern: task @lock@ has no signal_struct"
	hostile "$o" cpus-absurd "fakekern: nr_cpu_ids is 100000 (corrupted memory?)"
	hostile "$o" cpus-zero "fakekern: nr_cpu_ids is 0 (corrupted memory?)"
	hostile "$o" bound "fakekern: more than 1000000 tasks (corrupted task list?)"
	hostile "$o" shared-signal "fakekern: the thread groups hold more than 1000000 threads in all (groups that share threads: corrupted memory?)"
done
# kworker's tasks.next is 0xffffffffc7000000, where nothing is; CPU 1's
# __per_cpu_offset is 0, its runqueue `runqueues` itself (0x31cc0).
hostile "" tasks-unmapped "reading task_struct.signal at 0xffffffffc7000370 (8 bytes) from fakekern: not mapped"
hostile --old tasks-unmapped "reading task_struct.signal at 0xffffffffc7000040 (8 bytes) from fakekern: not mapped"
hostile "" percpu-unmapped "reading rq.curr at 0x32620 (8 bytes) from fakekern: not mapped"
hostile --old percpu-unmapped "reading rq.curr at 0x31cd0 (8 bytes) from fakekern: not mapped"

# ---- the server ------------------------------------------------------------------

X8=xxxxxxxxxxxxxxxx
# g_frame PID N: the 'g' reply of that sleeping task: rbx, rbp, rsp,
# r12-r15 and rip from its frame, every other register 'x' (unknown).
g_frame() {
	local b=$(($(base "$2") + 0x3f00)) x=""
	for _ in $(seq 50); do x=$x$X8; done
	echo "<- $X8$(le64 $((0xbb << 56 | $1)))$X8$X8$X8$X8$(le64 $((b + 0x80)))$(le64 $((b + 0x38)))$X8$X8$X8$X8$(le64 $((0x12 << 56 | $1)))$(le64 $((0x13 << 56 | $1)))$(le64 $((0x14 << 56 | $1)))$(le64 $((0x15 << 56 | $1)))$(le64 $RET)${x}"
}
# g_cpu C: a running task's: all 24 of CPU C's (eflags and the segments
# 4 bytes), x87 and SSE 'x'.
g_cpu() {
	local n out="<- "
	for n in $(seq 0 16); do out=$out$(le64 $((0xc0de000000000000 | $1 << 8 | n))); done
	for n in $(seq 17 23); do out=$out$(le64 $((0xc0de000000000000 | $1 << 8 | n)) | cut -c1-8); done
	for _ in $(seq 372); do out=${out}xx; done
	echo "$out"
}

cat >"$T/script" <<'X'
qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;xmlRegisters=i386
!bad g
!big 65536
!big 65535
QStartNoAckMode
?
qfThreadInfo
qsThreadInfo
qXfer:threads:read::0,fff
qThreadExtraInfo,191
qC
Hg191
g
p7
p10
p18
p39
Hg190
g
Hg400001
qC
g
Hg1f4
g
Hg12345
mffffc9000001ff00,38
mffffc90000040000,10
mffffc9000003fff0,20
Mffffc9000001ff00,1:00
c
vCont;c
s
Z0,ffffffff81000000,1
D
X
R="E.modsect serve: vmcore fake is not running (a dump or /proc/kcore, read-only)"
{
	cat <<'X'
-> qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;xmlRegisters=i386
<- PacketSize=4000;QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+
-> g (with a wrong checksum)
<- - (asks for it again)
-> 65536 bytes of q
<- - (asks for it again)
-> 65535 bytes of q
<- 
-> QStartNoAckMode
<- OK
-> ?
<- T05thread:190;hexname:617070;
-> qfThreadInfo
<- m400000,400001,1,2,1e,12c,190,191,192,1f4
-> qsThreadInfo
<- l
-> qXfer:threads:read::0,fff
<- l<?xml version="1.0"?>
<threads>
<thread id="400000" core="0" name="swapper/0">idle task, state R, CPU 0</thread>
<thread id="400001" core="1" name="swapper/1">idle task, state R, CPU 1, running</thread>
<thread id="1" core="1" name="systemd">state S, CPU 1</thread>
<thread id="2" core="0" name="kthreadd">state S, CPU 0</thread>
<thread id="1e" core="0" name="kworker/0:1">state I, CPU 0</thread>
<thread id="12c" core="1" name="modsect_lock">state D, CPU 1</thread>
<thread id="190" core="0" name="app">state R, CPU 0, running</thread>
<thread id="191" core="1" name="app-worker">state S, CPU 1</thread>
<thread id="192" core="1" name="t$#}*&#60;&#38;&#62;&#39;&#34;&#127;">state T, CPU 1</thread>
<thread id="1f4" core="0" name="defunct">state Z, CPU 0</thread>
</threads>

-> qThreadExtraInfo,191
<- 737461746520532c204350552031
-> qC
<- QC190
-> Hg191
<- OK
-> g
X
	g_frame 401 7
	echo "-> p7"
	echo "<- $(le64 $(($(base 7) + 0x3f38)))"
	echo "-> p10"
	echo "<- $(le64 $RET)"
	printf '%s\n' "-> p18" "<- xxxxxxxxxxxxxxxxxxxx" "-> p39" "<- E00" "-> Hg190" "<- OK" "-> g"
	g_cpu 0
	printf '%s\n' "-> Hg400001" "<- OK" "-> qC" "<- QC400001" "-> g"
	g_cpu 1
	printf '%s\n' "-> Hg1f4" "<- OK" "-> g"
	g_frame 500 9
	printf '%s\n' "-> Hg12345" "<- E01" "-> mffffc9000001ff00,38"
	echo "<- $(le64 $((0x15 << 56 | 401)))$(le64 $((0x14 << 56 | 401)))$(le64 $((0x13 << 56 | 401)))$(le64 $((0x12 << 56 | 401)))$(le64 $((0xbb << 56 | 401)))$(le64 $(($(base 7) + 0x3f80)))$(le64 $RET)"
	printf '%s\n' "-> mffffc90000040000,10" "<- E14" \
		"-> mffffc9000003fff0,20" "<- 00000000000000000000000000000000" \
		"-> Mffffc9000001ff00,1:00" "<- $R: writing is refused" \
		"-> c" "<- $R: running is refused" "-> vCont;c" "<- $R: running is refused" \
		"-> s" "<- $R: running is refused" \
		"-> Z0,ffffffff81000000,1" "<- $R: writing is refused" \
		"-> D" "<- OK" "served to the end"
} >"$T/conv"
for o in "" --old; do
	hrun $o --serve good <"$T/script"
	if [ "$RC" = 0 ] && [ ! -s "$T/err" ]; then
		check_same "serve${o:+ $o}: gdb's conversation: acks until QStartNoAckMode, '-' for a bad checksum and a 64 KiB packet, thread ids in hex, escaped names, a sleeping task's frame and a running one's CPU in 'g' with 'x' for the rest, memory read up to where it ends (E14 where none), writes and running refused (E.), D" \
			"$T/conv" "$T/out"
	else
		not_ok "serve${o:+ $o}: gdb's conversation: want exit 0, nothing on stderr" "$(_last_run)"
	fi
done

# serve where registers are refused: the thread is listed, 'g' all 'x',
# the extra info says why; without CPU registers the first thread is the
# first with a pc; panic_cpu's running task first.
printf '%s\n' '?' qThreadExtraInfo,191 Hg191 p10 D >"$T/script"
hrun --serve sp <"$T/script"
why=$(printf 'state S, CPU 1, no registers: task 401 (app-worker): its saved stack pointer 0xffffc9000001ffd0 is outside its stack 0xffffc9000001c000-0xffffc90000020000' | od -An -tx1 | tr -d ' \n')
printf '%s\n' "-> ?" "<- T05thread:190;hexname:617070;" "-> qThreadExtraInfo,191" "<- $why" \
	"-> Hg191" "<- OK" "-> p10" "<- xxxxxxxxxxxxxxxx" "-> D" "<- OK" "served to the end" >"$T/want"
check_same "serve sp: a task whose registers are refused is a thread with none, saying why" "$T/want" "$T/out"
printf '%s\n' '?' D >"$T/script"
hrun --noregs --serve good <"$T/script"
printf '%s\n' "-> ?" "<- T05thread:400000;hexname:$(printf swapper/0 | od -An -tx1 | tr -d ' \n');" \
	"-> D" "<- OK" "served to the end" >"$T/want"
check_same "serve --noregs: no running task has a pc: the first thread is the first with one (CPU 0's idle task)" "$T/want" "$T/out"
hrun --serve panic <"$T/script"
printf '%s\n' "-> ?" "<- T05thread:400001;hexname:$(printf swapper/1 | od -An -tx1 | tr -d ' \n');" \
	"-> D" "<- OK" "served to the end" >"$T/want"
check_same "serve panic: the first thread is what ran on the CPU that panicked" "$T/want" "$T/out"

# gdb sends its first packet again while serve still reads the tasks (no
# ack within remotetimeout): the copies are one request, answered once,
# and the next reply is the next request's.
printf '%s\n' '!copies 3 qSupported:multiprocess+' 'QStartNoAckMode' 'qC' 'D' >"$T/copies"
hrun --serve good <"$T/copies"
printf '%s\n' "-> qSupported:multiprocess+, 3 times before the server reads" \
	"<- PacketSize=4000;QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+" \
	"-> QStartNoAckMode" "<- OK" "-> qC" "<- QC190" \
	"-> D" "<- OK" "served to the end" >"$T/want"
check_same "serve: a first packet sent 3 times while the tasks are read is answered once, the next in step" "$T/want" "$T/out"

# serve on hostile memory: the walk's error, exit 3, nothing answered.
: >"$T/script"
hrun --serve tasks-cycle <"$T/script"
named "" tasks-cycle "$T/err" >"$T/err.n"
if [ "$RC" = 3 ] && [ ! -s "$T/out" ] &&
	[ "$(cat "$T/err.n")" = "taskwalk: fakekern: init_task.tasks at @swapper0.tasks@ does not come back to its head: it loops at @kthreadd.tasks@ (corrupted memory?)" ]; then
	ok "serve tasks-cycle: the walk's error, exit 3, no reply"
else
	not_ok "serve tasks-cycle: want exit 3, the walk's error, no reply" "$(_last_run)"
fi

finish
