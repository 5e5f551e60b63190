#!/bin/bash
# tests/vm/gdbcmd.sh - the in-gdb `modsect` command (share/gdb/modsect.py)
# against a real kernel: gdb attached to QEMU's gdbstub sources the script,
# runs `modsect gdb --all --capture F --search DIR` inside the session, and
# then every loaded module's symbols are where the guest's /proc/kallsyms
# says, a breakpoint on modsect_test_poke is hit with file:line, and a
# failing `modsect gdb ... nosuchmod` is a gdb error with modsect's message.
#
#   MODSECT=./modsect [MODSECT_STATIC=$PWD/modsect-static] tests/vm/gdbcmd.sh
#
# The capture is the guest's `modsect capture` when MODSECT_STATIC is set,
# else its sh loop over /sys/module/*/sections (sections.txt) with a release
# line.  Prints "ok - gdbcmd: ..." / "not ok - gdbcmd: ..." per check, then
# "N passed, N failed" alone on the last line; exit 1 if anything failed.
# Run as root (see README.md).
set -u
unset DEBUGINFOD_URLS
. "$(dirname "$0")/lib.sh"

TOP=$(cd "$VM_DIR/../.." && pwd)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-120}
vm_modsect "$TOP/modsect"
POKE=9

vm_setup
vm_start

W=$VM_RUN/gdbcmd
mkdir -p "$W"
if [ -n "${MODSECT_STATIC:-}" ] && grep -q '^modsect-capture ' "$VM_RUN/capture.txt" 2>/dev/null; then
	CAP=$VM_RUN/capture.txt
else
	CAP=$W/shloop.txt
	{
		echo "release $(cat "$VM_RUN/uname.txt")"
		cat "$VM_RUN/sections.txt" "$VM_RUN/kallsyms.txt"
	} >"$CAP"
fi
echo "capture: $CAP"
# The stock modules' directory: modsect's default for the host's kernel,
# --moddir for another (lib.sh).
FIND="${VM_MODDIR_ARGS[*]} --search $VM_OUT/testmod"

# Modules of the map, and for each a symbol of kallsyms whose name is unique
# in kallsyms and present in the module file's symtab (the test module's
# own ones, and the first text symbol of each stock module).
MODS=$(awk '$2 == ".text" { print $1 }' "$VM_RUN/sections.txt" | sort -u)
syms="modsect_test_poke modsect_test_data modsect_test_bss modsect_test_table"
for m in $MODS; do
	[ "$m" = modsect_test ] && continue
	s=$(awk -v m="[$m]" '$4 == m && ($2 == "t" || $2 == "T") && $3 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ { print $3 }' "$VM_RUN/kallsyms.txt" |
		while read -r s; do
			[ "$(awk -v s="$s" '$3 == s' "$VM_RUN/kallsyms.txt" | wc -l)" = 1 ] && { echo "$s"; break; }
		done)
	[ -n "$s" ] && syms="$syms $s"
done

cat >"$W/session.gdb" <<GDB
set pagination off
set confirm off
set width 0
target remote 127.0.0.1:$VM_GDB_PORT
source $TOP/share/gdb/modsect.py
$(vm_gdb_try "modsect gdb --capture $CAP $FIND nosuchmod")
modsect gdb --all --capture $CAP $FIND
python
for s in "$syms".split():
    try:
        v = gdb.parse_and_eval("(unsigned long)&%s" % s)
        print("ADDR %s %x" % (s, int(v) & 0xffffffffffffffff))
    except gdb.error as e:
        print("ADDR %s error %s" % (s, e))
end
$(for s in $syms; do
	a=$(awk -v s="$s" '$3 == s { print $1; exit }' "$VM_RUN/kallsyms.txt")
	[ -z "$a" ] || printf 'python print("WHERE %s " + gdb.execute("info symbol 0x%s", to_string=True).strip())\n' "$s" "$a"
done)
break modsect_test_poke
shell printf 'poke $POKE\\n' > $VM_RUN/trigger.in
continue
bt
delete
detach
GDB

rc=0
timeout "$GDB_TIMEOUT" "$(vm_gdb)" -q -nx -batch -x "$W/session.gdb" >"$W/gdb.out" 2>&1 </dev/null || rc=$?
echo "gdb exited $rc; output in $W/gdb.out"
sed 's/^/  | /' "$W/gdb.out" | grep -v '^  | 	\.' | head -80
[ "$rc" != 124 ] || not_ok "gdb timed out after ${GDB_TIMEOUT}s"

if grep -q '^GDB ERROR: modsect: module nosuchmod is not ' "$W/gdb.out"; then
	ok "in-gdb 'modsect gdb ... nosuchmod' is a gdb error with modsect's message"
else
	not_ok "in-gdb 'modsect gdb ... nosuchmod' is not a gdb error with modsect's message"
fi
n=$(grep -c '^add symbol table from file' "$W/gdb.out")
nm=$(echo "$MODS" | wc -w)
if [ "$n" = "$nm" ]; then
	ok "in-gdb 'modsect gdb --all' loaded $n symbol files for $nm modules"
else
	not_ok "in-gdb 'modsect gdb --all' loaded $n symbol files, $nm modules in the map"
fi
for s in $syms; do
	want=$(awk -v s="$s" '$3 == s { print $1; exit }' "$VM_RUN/kallsyms.txt")
	got=$(awk -v s="$s" '$1 == "ADDR" && $2 == s { print $3; exit }' "$W/gdb.out")
	# kallsyms prints 8 hex digits on a 32-bit kernel, gdb no leading 0s.
	if [ -z "$want" ] && [[ " modsect_test_data modsect_test_bss modsect_test_table " == *" $s "* ]] &&
		! vm_kconfig KALLSYMS_ALL; then
		ok "$s: gdb says ${got:-nothing}, not in the guest's kallsyms (skipped on $VM_PROFILE: no CONFIG_KALLSYMS_ALL, kallsyms lists functions only)"
	elif [ -n "$want" ] && [ "$(printf '%016x' "0x${got:-0}" 2>/dev/null)" = "$(printf '%016x' "0x$want")" ]; then
		ok "$s at $want (gdb == kallsyms)"
	elif [ -n "$want" ] && [ "$VM_ARCH" = aarch64 ] && [ -n "$got" ] &&
		grep -q "^WHERE $s $s in section " "$W/gdb.out"; then
		# -fpatchable-function-entry: NOPs between the ELF symbol and the
		# DWARF function, whose entry &s gives (kernel.sh's rule).
		ok "$s: info symbol 0x$want (kallsyms) names $s; gdb's &$s is its DWARF entry $got, after the patchable NOPs"
	else
		not_ok "$s: gdb says ${got:-nothing}, kallsyms says ${want:-nothing}"
	fi
done
# arm64: two locations, the ELF symbol (before the patchable NOPs, where the
# arguments are not yet known) and the DWARF function's first line.
if grep -qE "^Breakpoint 1(\.[0-9]+)?, (0x[0-9a-f]+ in )?modsect_test_poke \((value=$POKE)?\) at .*modsect_test\.c:[0-9]+" "$W/gdb.out" &&
	{ [ "$VM_ARCH" = aarch64 ] || grep -qE "^Breakpoint 1, (0x[0-9a-f]+ in )?modsect_test_poke \(value=$POKE\) at " "$W/gdb.out"; }; then
	ok "breakpoint on modsect_test_poke hit with value=$POKE, file:line"
else
	not_ok "breakpoint on modsect_test_poke not hit (with file:line)"
fi
if vm_wait_for "^==MODSECT-ACK 1 poke $POKE rc=0==\$" 60; then
	ok "guest completed the poke after gdb detached"
else
	not_ok "guest did not acknowledge the poke"
fi

vm_stop
summary
