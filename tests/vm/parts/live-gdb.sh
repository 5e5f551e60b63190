# shellcheck shell=bash
# tests/vm/parts/live-gdb.sh - sourced by tests/vm/test.sh (sections 2, 3).
#
# Proves the script works in a gdb attached to the live guest (QEMU's
# gdbstub): after `source static.gdb` every expected symbol of every module
# (boot.sh's all.uexp) is at its kallsyms address, CPU 0's copy of the
# per-cpu modsect_test_pcpu reads right (x86-64), 0x10 is no symbol; a
# breakpoint on modsect_test_poke is hit when the guest writes the poke
# parameter, with value=5; bt #0 is modsect_test_poke at modsect_test.c:LINE,
# #1 poke_set; args and globals read right; the guest completes the write
# after gdb detaches.
#
# Uses capture-gdb.sh's $W/static.gdb, boot.sh's lists and compare_addrs,
# test.sh's GDB, BP_RE and bp_continue.

# --- 2 + 3. gdb attached to the guest ---------------------------------------------
POKE=5
# What modsect_test_data and the per-cpu counter hold before this poke: the
# guest may have been poked before (attach mode).
prev_pokes=$(sed -n 's/^==MODSECT-ACK [0-9]* poke \([0-9-]*\) rc=0==$/\1/p' "$VM_RUN/serial1.log")
WANT_DATA=24263
WANT_PCPU=101
for v in $prev_pokes; do WANT_DATA=$v; WANT_PCPU=$((WANT_PCPU + v)); done
{
	echo "set pagination off"
	echo "set confirm off"
	echo "set width 0"
	echo "target remote 127.0.0.1:$VM_GDB_PORT"
	echo "source $W/static.gdb"
	echo "source $VM_DIR/symdump.py"
	echo "python ms_addr('$W/sym/all.uexp', 'SYM')"
	[ "$VM_ARCH" != aarch64 ] || echo "python ms_where('$W/sym/all.uexp', 'RSYM')"
	# The per-cpu copy of CPU 0 through the kernel's GS base.
	[ -z "$PCPU_READ" ] || echo "python ms_eval('PCPU', '$PCPU_READ')"
	echo "echo ==INFO-SYMBOL-LOW==\\n"
	echo "info symbol 0x10"
	echo "echo ==END==\\n"
	echo "break modsect_test_poke"
	# The guest is stopped while gdb holds it; the trigger waits in the UART.
	echo "shell printf 'poke $POKE\\n' > $VM_RUN/trigger.in"
	bp_continue
	echo "echo ==BT==\\n"
	echo "bt"
	echo "echo ==END==\\n"
	echo "python ms_eval('VALUE', 'value')"
	echo "python ms_eval('DATA', 'modsect_test_data')"
	echo "python ms_eval('TABLE', 'modsect_test_table[3]')"
	[ -z "$PCPU_READ" ] || echo "python ms_eval('PCPUHIT', '$PCPU_READ')"
	echo "delete"
	echo "detach"
} >"$W/live.gdb"
ack_n=$(($(grep -c '^==MODSECT-ACK ' "$VM_RUN/serial1.log" || true) + 1))
rc=0
if [ -s "$W/static.gdb" ]; then
	timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$W/live.gdb" >"$W/live.out" 2>&1 </dev/null || rc=$?
else
	rc=none
	not_ok "gdb live: no script from the static capture"
fi
[ "$rc" = 0 ] || not_ok "gdb live: exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
for m in $MODS; do
	compare_addrs "gdb live: $m" "$W/sym/$m.uexp" "$W/live.out" SYM RSYM
done
pcpu=$(awk '$1 == "PCPU" { print $2 }' "$W/live.out")
if [ -z "$PCPU_READ" ]; then
	: # said above
elif [ "$pcpu" = "$WANT_PCPU" ]; then
	ok "gdb live: per-cpu modsect_test_pcpu of CPU 0 reads $pcpu through \$gs_base + &modsect_test_pcpu"
else
	not_ok "gdb live: per-cpu modsect_test_pcpu reads '${pcpu}', want $WANT_PCPU"
	grep '^PCPU' "$W/live.out" | detail
fi
sed -n '/^==INFO-SYMBOL-LOW==$/,/^==END==$/p' "$W/live.out" | sed '1d;$d' >"$W/live.low"
if grep -qx 'No symbol matches 0x10.' "$W/live.low"; then
	ok "gdb live: info symbol 0x10 names no symbol"
else
	not_ok "gdb live: info symbol 0x10 says: $(cat "$W/live.low")"
fi
sed -n '/^==BT==$/,/^==END==$/p' "$W/live.out" | sed '1d;$d' >"$W/live.bt"
if grep -qE "^$BP_RE, (0x[0-9a-f]+ in )?modsect_test_poke \(value=$POKE\) at .*modsect_test\.c:[0-9]+" "$W/live.out"; then
	ok "gdb live: breakpoint on modsect_test_poke hit with value=$POKE"
else
	not_ok "gdb live: breakpoint on modsect_test_poke not reported"
	tail -n 20 "$W/live.out" | detail
fi
if grep -qE "^#0 +(0x[0-9a-f]+ in )?modsect_test_poke \(value=$POKE\) at .*modsect_test\.c:[0-9]+" "$W/live.bt"; then
	ok "gdb live: bt #0 is $(grep -oE 'modsect_test_poke \(value=[0-9]+\) at [^ ]*modsect_test\.c:[0-9]+' "$W/live.bt" | sed 's|at .*/|at |')"
else
	not_ok "gdb live: bt does not show modsect_test_poke at modsect_test.c:LINE"
	detail <"$W/live.bt"
fi
# The caller is poke_set (a static function: from the module's symtab).
if grep -qE '^#1 +0x[0-9a-f]+ in poke_set ' "$W/live.bt"; then
	ok "gdb live: bt #1 is poke_set"
else
	not_ok "gdb live: bt #1 is not poke_set"
	detail <"$W/live.bt"
fi
for kv in "VALUE $POKE" "DATA $WANT_DATA" "TABLE 68" ${PCPU_READ:+"PCPUHIT $WANT_PCPU"}; do
	set -- $kv
	got=$(awk -v t="$1" '$1 == t { print $2 }' "$W/live.out")
	if [ "$got" = "$2" ]; then
		ok "gdb live: at the breakpoint $(echo "$1" | tr A-Z a-z) = $got"
	else
		not_ok "gdb live: at the breakpoint $1 = '${got}', want $2"
	fi
done
if vm_wait_for "^==MODSECT-ACK $ack_n poke $POKE rc=0==\$" 60; then
	ok "guest completed the poke after gdb detached"
else
	not_ok "guest did not acknowledge the poke"
	vm_resume || true
fi
