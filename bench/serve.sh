#!/bin/bash
# bench/serve.sh - `modsect serve` (every task a thread, issue #30) against
# its peers, drgn and crash with Debian's debug vmlinux, on QEMU dumps of
# the tests/vm guest (Debian's 6.1 amd64 under TCG), and QEMU's gdbstub
# alone on the live guest.
#
#   bench/serve.sh                  (as root; two boots, ~20 minutes)
#   BENCH_RUNS=7 bench/serve.sh     BENCH_PARTS="peers live" bench/serve.sh
#   BENCH_REUSE=1 bench/serve.sh    (the dumps of the last run, no boot)
#
# Knobs: BENCH_RUNS (timed rounds, default 5), BENCH_PARTS (default
# "peers many live"), BENCH_TREE (the commit measured, default HEAD;
# "work": the work tree as it is), BENCH_NTASKS (sleeps started in the
# second guest, default 1000), BENCH_MEM (guest memory, default 512M),
# BENCH_REUSE, BENCH_KEEP_DUMPS, BENCH_DRGN_DUMPS (default "paging elf
# kdump kdumpR"), BENCH_CRASH_DUMPS (default "elf kdump paging"),
# BENCH_TIMEOUT (per session, default 1200 s).
#
# peers: one boot with the guest's `tasks` started; the guest lists every
#   task with its /proc/PID/stack (init.sh `taskinfo`) before and after
#   QEMU's dumps of the paused guest (ELF, kdump-zlib, ELF with paging;
#   kdumpR: the kdump reassembled by `makedumpfile -R`, for drgn).
#   - modsect: gdb on `target remote | modsect serve --vmcore DUMP`,
#     `modsect gdb --all --kernel --kernel-image VMLINUZ --search TESTMOD`
#     in gdb, `info threads`, `thread apply all bt` (and in the untimed
#     round every thread's walk for the score: tests/vm/servebt.py's
#     ms_all); serve runs with MODSECT_MEM_STATS=1 (its memory requests);
#   - drgn (python3-drgn): bench/servedrgn.py, the debug vmlinux and the
#     loaded modules' debug files, prog.stack_trace() of every task;
#   - crash: `crash VMLINUX DUMP` with `ps` and `foreach bt`.
#   Each tool's tasks and walks are scored by bench/servescore.py against
#   the guest's lists as tests/vm/servecheck.py scores modsect's.
# many: a second boot with BENCH_NTASKS more sleeps (a guest command
#   `spawn N` added to a bench-local copy of tests/vm/init.sh in the
#   initramfs); modsect's sessions on its ELF and kdump dumps, and drgn on
#   its paging dump.
# live: on each boot, gdb on the running guest: QEMU's gdbstub alone (its
#   vCPUs), and `serve --remote` on it (every task) if this modsect has it;
#   `info threads` right after connecting, and a session with modsect's
#   symbols loaded, `info threads` and `thread apply all bt`.
#
# Runs alternate between the tools, BENCH_RUNS rounds after one untimed
# round (caches filled, the walks scored). Everything goes to
# bench/out/serve/ (gitignored): the dumps (deleted at the end unless
# BENCH_KEEP_DUMPS), each tool's output, times.tsv, score.txt and
# summary.md (what docs/benchmarks.md's tables are made from).
# bench/servedbg.sh fetches the debug vmlinux and modules
# (linux-image-REL-dbg, ~860 MB, deleted after) into bench/out/.
set -eu
unset DEBUGINFOD_URLS
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$here/out/serve
runs=${BENCH_RUNS:-5}
parts=${BENCH_PARTS:-"peers many live"}
ntasks=${BENCH_NTASKS:-1000}
tmo=${BENCH_TIMEOUT:-1200}
drgn_dumps=${BENCH_DRGN_DUMPS:-"paging elf kdump kdumpR"}
crash_dumps=${BENCH_CRASH_DUMPS:-"elf kdump paging"}
has() { case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
mkdir -p "$out"

# modsect: built from the commit BENCH_TREE (default HEAD) exported with
# git archive into bench/out/serve/src, so that edits in progress in the
# work tree are not measured; BENCH_TREE=work builds the work tree itself
# (retried: another engineer's edits may break the build for a while).
tree=${BENCH_TREE:-HEAD}
if [ "$tree" = work ]; then
	src=$top
	for i in 1 2 3 4 5 6; do
		make -s -C "$src" modsect >"$out/make.log" 2>&1 && break
		[ "$i" = 6 ] && { cat "$out/make.log" >&2; exit 1; }
		echo "serve.sh: make failed, again in 60 s" >&2
		sleep 60
	done
	built="the work tree at $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- lib tools share || echo ' with uncommitted changes')"
else
	src=$out/src
	rm -rf "$src"
	mkdir -p "$src"
	git -C "$top" archive "$tree" | tar -x -C "$src"
	make -s -C "$src" modsect >"$out/make.log" 2>&1 || { cat "$out/make.log" >&2; exit 1; }
	built="commit $(git -C "$top" rev-parse --short "$tree")"
fi
cp "$src/modsect" "$out/modsect"
export MODSECT=$out/modsect
M=$MODSECT
export XDG_CACHE_HOME=$out/cache
export MODSECT_VM_OUT=$out/vm MODSECT_VM_RUN=$out/vm/run
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs qemu_fw_cfg"}
export MODSECT_VM_MEM=${BENCH_MEM:-512M}
# shellcheck source=../tests/vm/lib.sh
. "$top/tests/vm/lib.sh"
vm_need_pkgs crash:crash makedumpfile:makedumpfile
[ -e /usr/lib/python3/dist-packages/drgn/__init__.py ] || vm_need_pkgs /nonexistent/force:python3-drgn
# Debian's drgn is for Debian's python3, not the first python3 in PATH
PY=/usr/bin/python3
GDB=$(vm_gdb)

# vm_setup, then the bench's initramfs: tests/vm/init.sh with one more
# guest command, `spawn N` (N sleeps in the background).
setup() {
	vm_setup
	awk '
		/^\ttasks\)$/ && !done {
			print "\tspawn)"
			print "\t\t# spawn N: N more sleeping processes (bench/serve.sh)"
			print "\t\ti=0"
			print "\t\twhile [ $i -lt \"${arg:-1000}\" ]; do"
			print "\t\t\tsleep 100000 </dev/null >/dev/null 2>&1 &"
			print "\t\t\ti=$((i + 1))"
			print "\t\tdone"
			print "\t\tsleep 1"
			print "\t\t;;"
			done = 1
		}
		{ print }' "$top/tests/vm/init.sh" >"$VM_OUT/initramfs/init"
	grep -q '^	spawn)$' "$VM_OUT/initramfs/init" || vm_die "could not add spawn to init.sh"
	(cd "$VM_OUT/initramfs" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) | gzip -1 >"$VM_INITRD"
}

# boot DIR [SPAWN]: a guest with `tasks` (and SPAWN sleeps), its task lists
# before and after three dumps of it paused; `info threads` through the
# gdbstub while it is up (live); then the guest is stopped.
boot() {
	local d=$1 n=${2:-0}
	rm -rf "$d"
	mkdir -p "$d"
	vm_start
	vm_cmd tasks 60 || vm_die "the guest did not start its tasks"
	if [ "$n" != 0 ]; then
		vm_cmd "spawn $n" 900 || vm_die "spawn $n"
	fi
	vm_cmd taskinfo 900 || vm_die "taskinfo"
	vm_section "taskinfo-$VM_LAST_ACK" >"$d/before.txt"
	vm_pause
	vm_dump "$d/vmcore.elf" elf 600
	vm_dump "$d/vmcore.kdump" kdump-zlib 600
	vm_dump "$d/vmcore.paging" elf 600 paging
	vm_resume
	# QEMU's kdump is makedumpfile's flattened format; reassembled, for drgn
	makedumpfile -R "$d/vmcore.kdumpR" <"$d/vmcore.kdump" >/dev/null
	vm_cmd taskinfo 900 || vm_die "taskinfo"
	vm_section "taskinfo-$VM_LAST_ACK" >"$d/after.txt"
	cp "$VM_RUN/kallsyms-all.txt" "$d/kallsyms.txt"
	ls -l "$d"/vmcore.* >&2
	if has live; then
		live "$d" "$(basename "$d")"
	fi
	vm_stop
}

now() { echo "$EPOCHREALTIME"; }
# tsv: PART TOOL ROUND SECONDS [KEY=VALUE...]
rec() { echo "$*" >>"$out/times.tsv"; }

# live DIR PART: on the running guest, a fresh gdb each time, on QEMU's
# gdbstub alone (its vCPUs) and through `serve --remote` (every task), if
# this modsect has it: `info threads` right after connecting ("threads"),
# and a session that loads modsect's symbols in gdb and walks every thread
# ("walk"); untimed once (its walks scored: ms_all), then BENCH_RUNS times.
live() {
	local d=$1 part=$2 i v how target
	if "$M" serve --help 2>&1 | grep -q -- '--remote'; then
		live_serve=1
	else
		live_serve=0
		echo "serve.sh: this modsect has no serve --remote: the gdbstub alone" >&2
	fi
	for how in stub serve; do
		[ "$how" = serve ] && [ "$live_serve" = 0 ] && continue
		if [ "$how" = serve ]; then
			target="| MODSECT_MEM_STATS=1 $M serve --remote 127.0.0.1:$VM_GDB_PORT --kernel-image $VM_KERNEL 2>$d/live-serve.stats"
		else
			target="127.0.0.1:$VM_GDB_PORT"
		fi
		{
			echo "python import time; _t0 = time.time()"
			echo "target remote $target"
			echo "python _t1 = time.time(); _o = gdb.execute('info threads', to_string=True)"
			echo "python print('TIME connect %.3f threads %.3f' % (_t1 - _t0, time.time() - _t1))"
			echo "python print('NTHREADS %d' % len(gdb.selected_inferior().threads()))"
			echo "detach"
		} >"$d/live-$how-threads.gdb"
		for v in 0 1; do
			{
				timed_session "$target"
				if [ "$v" = 0 ]; then
					echo "source $top/tests/vm/servebt.py"
					echo "python ms_all()"
				fi
				echo "python print('TIME connect %.3f load %.3f threads %.3f bt %.3f' % tuple(_t[j + 1] - _t[j] for j in range(4)))"
				echo "python print('NTHREADS %d' % len(gdb.selected_inferior().threads()))"
				echo "detach"
			} >"$d/live-$how-walk$v.gdb"
		done
	done
	for ((i = 0; i <= runs; i++)); do
		for how in stub serve; do
			[ "$how" = serve ] && [ "$live_serve" = 0 ] && continue
			live_one "$d" "$part" "$how" threads "$i" "$d/live-$how-threads.gdb"
			live_one "$d" "$part" "$how" walk "$i" "$d/live-$how-walk$([ "$i" = 0 ] && echo 0 || echo 1).gdb"
		done
	done
}

# live_one DIR PART HOW WHAT ROUND SCRIPT
live_one() {
	local d=$1 part=$2 how=$3 what=$4 i=$5 o t0 t1 rc=0
	o=$d/live-$how-$what.$i
	t0=$(now)
	timeout "$tmo" "$GDB" -q -nx -batch -x "$6" >"$o.out" 2>&1 </dev/null || rc=$?
	t1=$(now)
	[ -s "$d/live-serve.stats" ] && mv "$d/live-serve.stats" "$o.stats"
	rec "$part live-$how-$what $i $(echo "$t1 - $t0" | bc -l)" \
		"$(sed -n 's/^TIME //p' "$o.out" | sed 's/\([a-z][a-z]*\) \([0-9.][0-9.]*\)/\1=\2/g')" \
		"nthreads=$(sed -n 's/^NTHREADS //p' "$o.out")" rc=$rc \
		"$(sed -n 's/^modsect: serve: served: \([0-9]*\) threads, \([0-9]*\) memory requests, \([0-9]*\) bytes$/end_req=\2 end_bytes=\3/p' "$o.stats" 2>/dev/null)"
	if [ "$what" = walk ] && ! grep -q '^NO ERROR$' "$o.out"; then
		echo "serve.sh: $o: the in-gdb load failed (gdb exit $rc)" >&2
	fi
	[ "$i" = 0 ] || rm -f "$o.out"
}

# timed_session TARGET: the gdb lines of a timed session on `target remote
# TARGET`: connect, the in-gdb load, info threads, thread apply all bt,
# each step's end time appended to _t.
timed_session() {
	echo "set pagination off"
	echo "set confirm off"
	echo "set width 0"
	echo "set height 0"
	echo "python import time; _t = [time.time()]"
	echo "target remote $1"
	echo "python _t.append(time.time())"
	echo "source $src/share/gdb/modsect.py"
	vm_gdb_try "modsect gdb --all --kernel --kernel-image $VM_KERNEL --search $VM_OUT/testmod"
	echo "python _t.append(time.time())"
	echo "info threads"
	echo "python _t.append(time.time())"
	echo "thread apply all bt"
	echo "python _t.append(time.time())"
}

# modsect_session PART DIR KIND ROUND: gdb through serve on DIR/vmcore.KIND
modsect_session() {
	local part=$1 d=$2 kind=$3 i=$4 o t0 t1 rc=0
	o=$d/modsect-$kind.$i
	{
		timed_session "| MODSECT_MEM_STATS=1 $M serve --vmcore $d/vmcore.$kind 2>$o.stats"
		echo "python print('TIME connect %.3f load %.3f threads %.3f bt %.3f' % tuple(_t[j + 1] - _t[j] for j in range(4)))"
		echo "python print('NTHREADS %d' % len(gdb.selected_inferior().threads()))"
		# the untimed round: every thread's frames, for servescore.py
		if [ "$i" = 0 ]; then
			echo "source $top/tests/vm/servebt.py"
			echo "python ms_all()"
		fi
		echo "detach"
	} >"$o.gdb"
	t0=$(now)
	timeout "$tmo" "$GDB" -q -nx -batch -x "$o.gdb" >"$o.out" 2>&1 </dev/null || rc=$?
	t1=$(now)
	grep -q '^NO ERROR$' "$o.out" || echo "serve.sh: $o: the in-gdb load failed (gdb exit $rc)" >&2
	rec "$part modsect-$kind $i $(echo "$t1 - $t0" | bc -l)" \
		"$(sed -n 's/^TIME //p' "$o.out" | sed 's/\([a-z][a-z]*\) \([0-9.][0-9.]*\)/\1=\2/g')" \
		"nthreads=$(sed -n 's/^NTHREADS //p' "$o.out")" rc=$rc \
		"$(sed -n 's/^modsect: serve: threads read: \([0-9]*\) threads, \([0-9]*\) memory requests, \([0-9]*\) bytes$/read_req=\2 read_bytes=\3/p' "$o.stats")" \
		"$(sed -n 's/^modsect: serve: served: \([0-9]*\) threads, \([0-9]*\) memory requests, \([0-9]*\) bytes$/end_req=\2 end_bytes=\3/p' "$o.stats")"
	[ "$i" = 0 ] || rm -f "$o.out"
}

# the loaded modules' debug files: Debian's package's, and the test module's
dbgkos() {
	local p n
	while read -r p; do
		n=${p##*/}
		n=${n%.xz}; n=${n%.zst}; n=${n%.gz}
		ls "$DBG/$n" "$DBG/${n//_/-}" "$DBG/${n//-/_}" 2>/dev/null | head -n 1
	done <"$VM_MODLIST"
	echo "$VM_OUT/testmod/modsect_test.ko"
}

# drgn_session PART DIR KIND ROUND
drgn_session() {
	local part=$1 d=$2 kind=$3 i=$4 o t0 t1 rc=0
	o=$d/drgn-$kind.$i
	t0=$(now)
	# shellcheck disable=SC2046
	timeout "$tmo" "$PY" "$here/servedrgn.py" "$d/vmcore.$kind" "$VMLINUX" $(dbgkos) \
		>"$o.out" 2>"$o.err" </dev/null || rc=$?
	t1=$(now)
	rec "$part drgn-$kind $i $(echo "$t1 - $t0" | bc -l)" \
		"$(sed -n 's/^TIME load \([^ ]*\) list \([^ ]*\) walk \([^ ]*\)/load=\1 list=\2 walk=\3/p' "$o.out")" \
		"nthreads=$(grep -c '^TH ' "$o.out")" rc=$rc
	[ "$i" = 0 ] || rm -f "$o.out"
}

# crash_session PART DIR KIND ROUND: as a user types it
crash_session() {
	local part=$1 d=$2 kind=$3 i=$4 o t0 t1 rc=0
	o=$d/crash-$kind.$i
	printf 'ps\nforeach bt\nexit\n' >"$d/crash.cmds"
	t0=$(now)
	timeout "$tmo" crash "$VMLINUX" "$d/vmcore.$kind" <"$d/crash.cmds" >"$o.out" 2>&1 || rc=$?
	t1=$(now)
	rec "$part crash-$kind $i $(echo "$t1 - $t0" | bc -l)" \
		"tasks=$(sed -n 's/^ *TASKS: *\([0-9]*\).*/\1/p' "$o.out" | head -n 1)" rc=$rc
	[ "$i" = 0 ] || rm -f "$o.out"
}

# score PART DIR: every tool's first (untimed) round against the guest's lists
score() {
	local part=$1 d=$2 f
	for f in "$d"/modsect-*.0.out "$d"/drgn-*.0.out "$d"/crash-*.0.out "$d"/live-serve-walk.0.out; do
		[ -e "$f" ] || continue
		case $f in
		*/crash-*)
			"$PY" "$here/servecrash.py" <"$f" >"${f%.out}.walks"
			f=${f%.out}.walks
			;;
		esac
		"$PY" "$here/servescore.py" "$part:$(basename "${f%.0.*}")" "$d/before.txt" "$d/after.txt" \
			"$d/kallsyms.txt" "$f" "${f%.0.*}.wrong" >>"$out/score.txt"
	done
}

# --- the guests --------------------------------------------------------------
: >"$out/times.tsv"
: >"$out/score.txt"
# a boot unless BENCH_REUSE and its dumps are there
need_boot() { [ -z "${BENCH_REUSE:-}" ] || [ ! -s "$1/vmcore.elf" ]; }
boots=
if { has peers || has live; } && need_boot "$out/peers"; then boots="$boots peers"; fi
if has many && need_boot "$out/many"; then boots="$boots many"; fi
if [ -n "$boots" ]; then
	setup
else
	vm_find_kernel
	VM_MODLIST=$VM_OUT/modules.list
fi
# shellcheck disable=SC2046
VMLINUX=$("$here/servedbg.sh" "$VM_KREL" $(sed 's|.*/||; s/\.ko.*//' "$VM_MODLIST"))
DBG=$here/out/serve/dbg/$VM_KREL
for b in $boots; do
	case $b in
	peers) boot "$out/peers" ;;
	many) boot "$out/many" "$ntasks" ;;
	esac
done

# --- peers: one dump, three tools --------------------------------------------
if has peers; then
	d=$out/peers
	for ((i = 0; i <= runs; i++)); do
		modsect_session peers "$d" elf "$i"
		modsect_session peers "$d" kdump "$i"
		for k in $drgn_dumps; do drgn_session peers "$d" "$k" "$i"; done
		for k in $crash_dumps; do crash_session peers "$d" "$k" "$i"; done
	done
	score peers "$d"
fi

# live alone: its walks through serve --remote scored all the same
if has live && ! has peers && [ -s "$out/peers/before.txt" ]; then
	score peers "$out/peers"
fi

# --- many: ~1,000 tasks --------------------------------------------------------
if has many; then
	d=$out/many
	for ((i = 0; i <= runs; i++)); do
		modsect_session many "$d" elf "$i"
		modsect_session many "$d" kdump "$i"
		drgn_session many "$d" paging "$i"
	done
	score many "$d"
fi

# --- the tables ------------------------------------------------------------------
{
	echo "kernel $VM_KREL, QEMU TCG, 1 vCPU, $MODSECT_VM_MEM; modsect $built; $runs alternating rounds after an untimed one; $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	cat "$out/score.txt"
	echo
	"$PY" "$here/servesum.py" "$out/times.tsv"
} | tee "$out/summary.md"
[ -n "${BENCH_KEEP_DUMPS:-}" ] || rm -f "$out"/*/vmcore.*
