#!/bin/bash
# tests/vm/ingdb.sh - modsect inside a live gdb session, on gdb's own
# connection (share/gdb/modsect.py lends it: modsect speaks the remote
# protocol over a socketpair to a stub in the script that reads memory
# through gdb).  No capture from the guest is used: the map comes from the
# kernel's memory, the guest's /proc/kallsyms is only the reference.
#
#   MODSECT=./modsect tests/vm/ingdb.sh
#
# One boot.  Checks:
#  1. gdb attached to QEMU's gdbstub, `modsect gdb --all --kernel
#     --kernel-image /boot/vmlinuz-REL --search DIR`: every module symbol of
#     kallsyms (unique, in the module file's symtab) is at its kallsyms
#     address; a breakpoint on modsect_test_poke is hit with file:line and
#     `bt` names module frames (poke_set) and core frames (kallsyms ELF);
#     after detach the guest runs on.
#  2. the same load with no kernel image (kallsyms and BTF from memory).
# Prints "ok - ingdb: ..." / "not ok - ingdb: ..." per check, then "N passed,
# N failed" alone on the last line; exit 1 if anything failed.  Run as root
# (see README.md).  Times of the loads go to "bench:" lines.
set -u
unset DEBUGINFOD_URLS
. "$(dirname "$0")/lib.sh"

TOP=$(cd "$VM_DIR/../.." && pwd)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-180}
vm_modsect "$TOP/modsect"

vm_setup
vm_start
W=$VM_RUN/ingdb
rm -rf "$W"
mkdir -p "$W"
vm_expected_syms "$W/sym"
# The stock modules' directory: modsect's default for the host's kernel,
# --moddir for another (lib.sh).
FIND="${VM_MODDIR_ARGS[*]} --search $VM_OUT/testmod"

# session NAME MODSECT-ARGS [POKE]: gdb on the stub runs `modsect ARGS`
# in the session, prints the load's time ("TIME s"), the addresses of the
# expected symbols (symdump.py), and with POKE a breakpoint session: break
# on modsect_test_poke, the guest pokes, bt; then detaches.
session() {
	local name=$1 args=$2 poke=${3:-}
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "target remote 127.0.0.1:$VM_GDB_PORT"
		echo "source $TOP/share/gdb/modsect.py"
		echo "source $VM_DIR/symdump.py"
		echo "python import time; _t0 = time.time()"
		echo "modsect $args"
		echo "python print('TIME %.2f' % (time.time() - _t0))"
		echo "python ms_addr('$W/sym/all.uexp', 'SYM')"
		# arm64: functions behind patchable NOPs (vm_compare_syms).
		[ "$VM_ARCH" != aarch64 ] || echo "python ms_where('$W/sym/all.uexp', 'RSYM')"
		if [ -n "$poke" ]; then
			echo "break modsect_test_poke"
			echo "shell printf 'poke $poke\\n' > $VM_RUN/trigger.in"
			vm_bp_continue
			echo "bt"
			echo "delete"
		fi
		echo "detach"
	} >"$W/$name.gdb"
	local rc=0
	timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/$name.gdb" >"$W/$name.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "[$name] gdb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
	local t
	t=$(sed -n 's/^TIME //p' "$W/$name.out")
	echo "bench: in-gdb $name seconds ${t:-?}"
	local res nok nbad
	res=$(vm_compare_syms "$W/sym/all.uexp" "$W/$name.out" SYM RSYM)
	read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
	if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
		ok "[$name] (gdb) modsect $args: $nok/$nok module symbols at their kallsyms addresses (${t}s)"
	else
		not_ok "[$name] (gdb) modsect $args: $nbad of $((nok + nbad)) module symbols not at their kallsyms addresses"
		{ sed '$d' <<<"$res"; grep -vE '^R?SYM' "$W/$name.out" | head -20; } | detail
	fi
}

# Without BTF (Debian's 686-pae, armmp): the 2004 article's case (#31).
# gdb on the gdbstub, nothing run in the guest: without a module that has
# DWARF the in-gdb command is a gdb error naming BTF and what to give;
# with the test module's own DWARF (--search) struct module's layout comes
# from it, every module symbol is at its kallsyms address, a breakpoint in
# the module is hit and bt printed.  The rest of this script needs BTF.
if ! vm_kconfig DEBUG_INFO_BTF; then
	cat >"$W/nobtf.gdb" <<GDB
set pagination off
set confirm off
target remote 127.0.0.1:$VM_GDB_PORT
source $TOP/share/gdb/modsect.py
$(vm_gdb_try "modsect gdb --all --kernel ${VM_MODDIR_ARGS[*]}")
detach
GDB
	timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/nobtf.gdb" >"$W/nobtf.out" 2>&1 </dev/null
	if grep -q '^GDB ERROR: modsect: .*BTF.*give a module built with debug info' "$W/nobtf.out"; then
		ok "in-gdb 'modsect gdb --all --kernel', no BTF and no module with DWARF: a gdb error saying what to give: $(sed -n 's/^GDB ERROR: //p' "$W/nobtf.out" | head -c 160)"
	else
		not_ok "in-gdb 'modsect gdb --all --kernel' without BTF or DWARF: no gdb error naming BTF and what to give"
		tail -n 10 "$W/nobtf.out" | detail
	fi
	session dwarf "gdb --all --kernel $FIND" 5
	if grep -q "modsect: note: the kernel has no BTF: struct layouts from the DWARF of $VM_OUT/testmod/modsect_test.ko" "$W/dwarf.out"; then
		ok "the layouts' file named: $VM_OUT/testmod/modsect_test.ko"
	else
		not_ok "no note naming the test module as the layouts' file"
	fi
	if grep -qE "^Breakpoint 1(\.2)?, (0x[0-9a-f]+ in )?modsect_test_poke \(value=5\) at .*modsect_test\.c:[0-9]+" "$W/dwarf.out" &&
		grep -qE '^#0 .*modsect_test_poke' "$W/dwarf.out" &&
		grep -qE '^#[0-9]+ .* poke_set .*modsect_test\.c:[0-9]+' "$W/dwarf.out"; then
		ok "breakpoint on modsect_test_poke hit with value=5 and file:line; bt: $(grep -E '^#[0-9]+ ' "$W/dwarf.out" | awk '{ print ($3 == "in" ? $4 : $2) }' | head -n 6 | tr '\n' ' ')"
	else
		not_ok "breakpoint on modsect_test_poke not hit with file:line, or bt without poke_set"
		grep -E '^Breakpoint|^#[0-9]|modsect:|GDB ERROR' "$W/dwarf.out" | head -n 15 | detail
	fi
	if vm_wait_for "^==MODSECT-ACK 1 poke 5 rc=0==\$" 60; then
		ok "the guest ran on after detach (poke acknowledged)"
	else
		not_ok "the guest did not acknowledge the poke after detach"
	fi
	vm_stop
	summary
	exit
fi

if [ -z "${MODSECT_VM_INGDB_FOLLOW_ONLY:-}" ]; then
session image "gdb --all --kernel --kernel-image $VM_KERNEL $FIND" 9
# bt: the module's frames with their source lines, then core frames named
# from the kallsyms ELF (param_attr_store is what calls a parameter's set).
if grep -qE "^Breakpoint 1(\.2)?, (0x[0-9a-f]+ in )?modsect_test_poke \(value=9\) at .*modsect_test\.c:[0-9]+" "$W/image.out"; then
	ok "breakpoint on modsect_test_poke hit with value=9, file:line"
else
	not_ok "breakpoint on modsect_test_poke not hit (with file:line)"
fi
bt=$(grep -E '^#[0-9]+ ' "$W/image.out")
if grep -qE '^#0 .*modsect_test_poke' <<<"$bt" && grep -qE '^#[0-9]+ .* poke_set .*modsect_test\.c:[0-9]+' <<<"$bt" &&
	grep -qE '^#[0-9]+ .* param_attr_store ' <<<"$bt"; then
	ok "bt names module frames (modsect_test_poke, poke_set with file:line) and core frames (param_attr_store)"
else
	not_ok "bt lacks module or core frames"
	detail <<<"$bt"
fi
if vm_wait_for "^==MODSECT-ACK 1 poke 9 rc=0==\$" 60; then
	ok "the guest ran on after detach (poke acknowledged)"
else
	not_ok "the guest did not acknowledge the poke after detach"
fi

session memory "gdb --all --kernel $FIND"
if vm_cmd dmesg 60; then
	ok "the guest runs after the second session"
else
	not_ok "the guest does not run after the second session"
fi


# --- lldb: the same load on lldb's own gdb-remote connection -----------------
# lldb 14 cannot attach to a running QEMU guest (tests/vm/README.md): pause
# it first; `process detach` lets it run.  Expected: image lookup -a of the
# kallsyms address of each of the test module's symbols (it has DWARF)
# names that symbol, not symbol + offset.  Lookups go in a file sourced
# with -e false: an address lldb cannot resolve is an error, which would
# end the script.
vm_pause
LLDB_PY=$(ls -d /usr/lib/llvm-*/lib/python3*/dist-packages/lldb/__init__.py 2>/dev/null | head -1)
LLDB_PY=${LLDB_PY%/lldb/__init__.py}
# run_lldb NAME: lldb runs $W/NAME.lldb (with Debian's lldb 14 python
# path), output in $W/NAME.out; a non-zero exit is a failure.
run_lldb() {
	local rc=0
	PYTHONPATH=$LLDB_PY${PYTHONPATH:+:$PYTHONPATH} timeout "$GDB_TIMEOUT" lldb -b -s "$W/$1.lldb" \
		>"$W/$1.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "[$1] lldb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
}
grep -Fxf <(awk '{ print $1, $2 }' "$W/sym/modsect_test.exp") "$W/sym/all.uexp" >"$W/lldb.want"
awk '{ print "image lookup -a 0x" $2 }' "$W/lldb.want" >"$W/lldb.lookups"
{
	echo "gdb-remote 127.0.0.1:$VM_GDB_PORT"
	echo "command script import $TOP/share/lldb/modsect.py"
	echo "modsect lldb --all --kernel-image $VM_KERNEL $FIND"
	echo "command source -e false $W/lldb.lookups"
	echo "process detach"
} >"$W/lldb.lldb"
run_lldb lldb
# lldb names one of the symbols at an address: the wanted one, or another
# that the module file defines in the same section at the same value
# (6.12: cleanup_module's __pfx_ for modsect_test_exit's, the empty
# alloc_tags' __stop_alloc_tags at modsect_test_data).
res=$(awk '
	FILENAME == ARGV[1] && $1 == "Y" { k = $2 " " $4; at[$3] = at[$3] SUBSEP k; same[k " " $3] = 1; next }
	FILENAME == ARGV[1] { next }
	FILENAME == ARGV[2] { want[$2] = $1; order[++n] = $2; next }
	/^\(lldb\) image lookup -a 0x/ { cur = substr($5, 3); next }
	/^\(lldb\) / { cur = ""; next }
	cur != "" && $1 == "Summary:" { s = $0; sub(/^ *Summary: /, "", s); sum[cur] = s }
	function alias(a, b,   c, x, i) {
		c = split(at[a], x, SUBSEP)
		for (i = 2; i <= c; i++) if ((x[i] " " b) in same) return 1
		return 0
	}
	END {
		for (i = 1; i <= n; i++) {
			a = order[i]; nm = sum[a]; sub(/^[^ `]*`/, "", nm); split(nm, w, " ")
			if (w[1] == want[a] && w[2] != "+") { k++; continue }
			if (w[1] != "" && w[2] != "+" && alias(want[a], w[1])) { k++; al++; continue }
			# X.cold (gcc split X): lldb names X, the DWARF function
			# whose ranges hold it (tests/vm/parts/lldb.sh).
			if (want[a] ~ /\.cold$/ && w[1] == substr(want[a], 1, length(want[a]) - 5) && w[2] == "+") { k++; al++; continue }
			bad++
			if (bad <= 10) printf "  %s at %s: %s\n", want[a], a, sum[a]
		}
		printf "RESULT %d %d %d\n", k + 0, bad + 0, al + 0
	}' "$W/sym/modsect_test.elf" "$W/lldb.want" "$W/lldb.out")
read -r _ nok nbad nal <<<"$(tail -n 1 <<<"$res")"
if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
	ok "[lldb] modsect lldb --all on lldb's own connection: image lookup -a names all $nok kallsyms addresses of modsect_test$([ "${nal:-0}" = 0 ] || echo " ($nal by another name the file defines there)")"
else
	not_ok "[lldb] modsect lldb --all on lldb's own connection: $nbad of $((nok + nbad)) addresses wrong"
	{ sed '$d' <<<"$res"; grep -v -e '^$' -e embedded_interpreter -e '^ ' "$W/lldb.out" | head -20; } | detail
fi
if vm_cmd dmesg 60; then
	ok "[lldb] the guest runs after lldb detached"
else
	not_ok "[lldb] the guest does not run after lldb detached"
	vm_resume || true
fi

# lldb's modsect follow: the guest unloads and loads the test module twice,
# then pokes it; lldb's breakpoint by name follows the module.
vm_pause
vm_send "cycle 2"
{
	echo "gdb-remote 127.0.0.1:$VM_GDB_PORT"
	echo "command script import $TOP/share/lldb/modsect.py"
	echo "modsect follow --kernel-image $VM_KERNEL $FIND"
	echo "breakpoint set -n modsect_test_poke"
	echo "process continue"
	echo "bt 1"
	echo "modsect follow off"
	echo "process detach"
} >"$W/lldb-follow.lldb"
run_lldb lldb-follow
nl=$(grep -c '^modsect: modsect_test loaded at 0x' "$W/lldb-follow.out")
nu=$(grep -c '^modsect: modsect_test unloaded$' "$W/lldb-follow.out")
# lldb's module is modsect_test.ko, or where lldb would misread it (6.12:
# sections not at 0) modsect's copy of it, named by its content, or the
# copy with its unwind tables (x86-64): the file frame #0 names.
read -r LKO _ <<<"$(vm_debugger_copy "$VM_TESTMOD_KO" lldb)"
LFRAME=$(sed -n 's/.*frame #0: 0x[0-9a-f]* \([^ `]*\)`modsect_test_poke(value=13).*/\1/p' "$W/lldb-follow.out" | tail -n 1)
case $LFRAME in [0-9a-f]*[0-9a-f].ko) [ ${#LFRAME} = 67 ] && LKO=$LFRAME ;; esac
LKO_OK=1
if [ "${LKO:--}" = - ]; then
	LKO=modsect_test.ko
elif ! vm_dbgfile_ok "${XDG_CACHE_HOME:-$HOME/.cache}/modsect/$LKO" "$VM_TESTMOD_KO" lldb; then
	LKO_OK=
	not_ok "[lldb follow] lldb's module: $VM_DBGFILE"
fi
if [ "$nl" = 2 ] && [ "$nu" = 2 ] && [ -n "$LKO_OK" ] &&
	grep -qE "frame #0: 0x[0-9a-f]+ ${LKO//./\\.}.modsect_test_poke\(value=13\) at modsect_test\.c:[0-9]+" "$W/lldb-follow.out"; then
	ok "[lldb follow] 2 unloads and 2 loads followed (one line each), the breakpoint by name hit in the reloaded module with file:line$([ "$LKO" = modsect_test.ko ] || echo " (in $LKO, modsect's copy of modsect_test.ko)")"
else
	not_ok "[lldb follow] $nl load and $nu unload lines (want 2 and 2), or modsect_test_poke not hit"
	grep -v -e '^$' -e embedded_interpreter -e '^Traceback' -e '^  File "<string>"' "$W/lldb-follow.out" | head -30 | detail
fi
if vm_wait_for '^==MODSECT-ACK [0-9]+ cycle 2 rc=0==$' 60; then
	ok "[lldb follow] the guest completed the cycle after lldb detached"
else
	not_ok "[lldb follow] the guest did not complete the cycle"
	vm_resume || true
fi
fi

# --- 3. modsect follow -------------------------------------------------------
# The old address of modsect_test_poke: after the unload nothing is there.
POKE_OLD=$(awk '$3 == "modsect_test_poke" { print $1; exit }' "$VM_RUN/kallsyms.txt")
cat >"$W/follow.gdb" <<GDB
set pagination off
set confirm off
set width 0
set breakpoint pending on
target remote 127.0.0.1:$VM_GDB_PORT
source $TOP/share/gdb/modsect.py
modsect follow --kernel-image $VM_KERNEL $FIND
break free_module
shell printf 'unload modsect_test\n' > $VM_RUN/trigger.in
continue
python print("AFTER-UNLOAD " + gdb.execute("info symbol 0x$POKE_OLD", to_string=True).strip())
delete
break modsect_test_init
shell printf 'load modsect_test\n' > $VM_RUN/trigger.in
$(vm_bp_continue)
delete
break modsect_test_poke
shell printf 'cycle 3\n' > $VM_RUN/trigger.in
$(vm_bp_continue)
delete
modsect follow off
detach
GDB
rc=0
timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/follow.gdb" >"$W/follow.out" 2>&1 </dev/null || rc=$?
[ "$rc" = 0 ] || not_ok "[follow] gdb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
sed 's/^/  | /' "$W/follow.out" | grep -v '^  | 	' | head -60
if grep -qx 'AFTER-UNLOAD No symbol matches 0x'"$POKE_OLD"'\.' "$W/follow.out"; then
	ok "follow: after the guest unloads modsect_test, info symbol on its old address names nothing"
else
	not_ok "follow: after the unload, $(grep '^AFTER-UNLOAD' "$W/follow.out" || echo 'no answer')"
fi
if grep -qE "^Breakpoint [0-9]+(\.2)?, (0x[0-9a-f]+ in )?modsect_test_init \(\) at .*modsect_test\.c:[0-9]+" "$W/follow.out"; then
	ok "follow: a breakpoint on modsect_test_init set before the load is hit with file:line"
else
	not_ok "follow: the breakpoint on modsect_test_init was not hit with file:line"
fi
if grep -qE "^Breakpoint [0-9]+(\.2)?, (0x[0-9a-f]+ in )?modsect_test_poke \(value=13\) at .*modsect_test\.c:[0-9]+" "$W/follow.out"; then
	ok "follow: the user's breakpoint on modsect_test_poke is hit after 3 more unloads and loads"
else
	not_ok "follow: the breakpoint on modsect_test_poke was not hit after the unload/load cycles"
fi
nl=$(grep -c '^modsect: modsect_test loaded at 0x' "$W/follow.out")
nu=$(grep -c '^modsect: modsect_test unloaded$' "$W/follow.out")
if [ "$nl" = 4 ] && [ "$nu" = 4 ]; then
	ok "follow: one line per load (4) and per unload (4)"
else
	not_ok "follow: $nl load lines and $nu unload lines, want 4 and 4"
fi
if vm_wait_for '^==MODSECT-ACK [0-9]+ cycle 3 rc=0==$' 60 && vm_cmd "unload modsect_test" 60 && vm_cmd "load modsect_test" 60; then
	ok "follow: after follow off and detach the guest runs on and loads modules without stopping"
else
	not_ok "follow: the guest did not complete the cycle, or an unload/load after detach"
fi

vm_stop
summary
