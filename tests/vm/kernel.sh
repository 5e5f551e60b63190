#!/bin/bash
# tests/vm/kernel.sh - modsect's proofs on one kernel, any architecture:
# MODSECT_VM_KERNEL=6.12-amd64|686-pae|arm64|armhf|s390x|ppc64el|host
# (tests/vm/kernels.sh).
# One boot; the guest has no modsect: its map is the README's sh loop.
#
#  1. The README's loop and grep forms are the same map, with the guest's
#     release and machine.
#  2. gdb (gdb-multiarch for i386, arm64, armhf, s390x and ppc64le), fresh, no target: `modsect
#     gdb --all` of that capture puts every kallsyms symbol of the loaded
#     modules at its /proc/kallsyms address; the script alone sets the
#     architecture.
#  3. The same script in a gdb attached to the gdbstub; a breakpoint on
#     modsect_test_poke is hit when the guest pokes, with file:line, and bt
#     names poke_set.
#  4. lldb, fresh: `modsect lldb --all`: image lookup -a of every such
#     address names that symbol.
#  5. The memory sources (--remote on the gdbstub, --vmcore of QEMU's
#     dump-guest-memory): where the kernel has BTF, the map read from memory
#     equals the guest's and `modsect gdb --all --remote` puts every symbol
#     right; where it has none, the error says so.
#  6. decode of a WARN from the test module made in this guest: each
#     [modsect_test] frame annotated as eu-addr2line -f -i says at its
#     section offset (address - 1 for return addresses; exact for RIP:,
#     EIP:, pc :, WARNING, powerpc's NIP [ and "--- interrupt: at"), every
#     other line unchanged.
#  7. ppc64le (ELFv2): the report's "[address] sym+off" agree with
#     kallsyms; a function with a local entry is in kallsyms at its global
#     entry; resolve between the two entries agrees with eu-addr2line.
# ppc64el has no BTF: the memory source's refusal says so (given the
# vmlinux, as modsect finds no ppc64 kernel in memory without it), and
# QEMU 7.2's ELF dump of it is unreadable (see below).
#
# Env: MODSECT (default build/san/modsect, else ./modsect), the MODSECT_VM_*
# of lib.sh.  Prints "ok - kernel: [KERNEL] ..." / "not ok - kernel: [KERNEL]
# ..." per check (tests/common.sh), then "N passed, N failed" alone on the
# last line.
set -u
# qemu_fw_cfg hands QEMU the guest's VMCOREINFO for the dump (memsrc.sh).
export MODSECT_VM_STOCK_MODULES=${MODSECT_VM_STOCK_MODULES:-"crc-itu-t dm-mod isofs qemu_fw_cfg"}
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$VM_DIR/../.." && pwd)
if [ -x "$TOP/build/san/modsect" ]; then vm_modsect "$TOP/build/san/modsect"; else vm_modsect "$TOP/modsect"; fi
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-300}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

vm_setup
vm_need_pkgs eu-addr2line:elfutils lldb:lldb
GDB=$(vm_gdb)
vm_start
K=$VM_PROFILE
W=$VM_RUN/kernel
rm -rf "$W"
mkdir -p "$W"
MODDIR=${VM_ROOT}/lib/modules/$VM_KREL
FIND=(--moddir "$MODDIR" --search "$VM_OUT/testmod")

# lib.sh's `ms NAME ARGS` runs modsect, output in $W/NAME.out and .err.

# symcheck LABEL OUTPUT: symdump's lines in OUTPUT against the expected:
# gdb's &name (ms_addr, SYM) is the kallsyms address, or its DWARF
# function starts inside the ELF symbol there: arm64's
# -fpatchable-function-entry puts NOPs before the DW_AT_low_pc of each
# function, and `info symbol` (ms_where, RSYM) of the kallsyms address
# names the symbol itself, at offset 0.
symcheck() {
	local res nok nbad
	res=$(awk '
		FILENAME == ARGV[1] { w = $2; while (length(w) < 16) w = "0" w; want[$1] = w; kall[$1] = $2; order[++n] = $1; next }
		$1 == "SYM" { g = $3; while (length(g) < 16) g = "0" g; got[$2] = g; next }
		$1 == "RSYM" { r = $0; sub(/^RSYM [^ ]+ /, "", r); rsym[$2] = r }
		END {
			for (i = 1; i <= n; i++) {
				s = order[i]
				if (got[s] == want[s]) { okn++; continue }
				if (index(rsym[kall[s]], s " in section ") == 1) { okn++; entry++; continue }
				bad++
				if (bad <= 10) printf "  %s: want %s, got %s; info symbol 0x%s: %s\n", s, want[s], got[s], kall[s], rsym[kall[s]]
			}
			printf "RESULT %d %d %d\n", okn, bad, entry
		}' "$W/sym/all.uexp" "$2")
	read -r _ nok nbad nentry <<<"$(tail -n 1 <<<"$res")"
	if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
		ok "[$K] $1: $nok/$nok module symbols at their kallsyms addresses$([ "$nentry" = 0 ] || echo " ($nentry functions' DWARF entry after patchable NOPs, the ELF symbol at the address)")"
	else
		not_ok "[$K] $1: $nbad of $((nok + nbad)) module symbols not at their kallsyms addresses"
		{ sed '$d' <<<"$res"; grep -vE '^(SYM|RSYM)' "$2" | head -20; } | detail
	fi
}

# ppc64_entries: ELFv2 functions that set up their TOC pointer have a
# global entry and, 4 or 8 bytes on, a local one (st_other's
# STO_PPC64_LOCAL bits).  The guest's report says where each frame is
# twice, "[address] sym+off/size": the address must be the kallsyms
# address of sym plus off, and that the ELF symbol's value, the global
# entry (so offsets count from it, as modsect's do); and modsect resolve
# of an address between the two entries names sym+0x4 at the line
# eu-addr2line gives.
ppc64_entries() {
	local res sym val ndx sec st bad=0 n=0 a txt want
	res=$(python3 - "$VM_RUN/kallsyms.txt" "$DC/warn.log" <<'EOF_PY'
import re, sys
k = {}
for l in open(sys.argv[1]):
    w = l.split()
    if len(w) >= 4 and w[3] == "[modsect_test]":
        k[w[2]] = int(w[0], 16)
n = bad = 0
for l in open(sys.argv[2]):
    for a, s, o in re.findall(r"\[([0-9a-f]+)\] ([A-Za-z0-9_.]+)\+(0x[0-9a-f]+)/0x[0-9a-f]+ \[modsect_test\]", l):
        n += 1
        if s not in k or int(a, 16) != k[s] + int(o, 16):
            bad += 1
            print("  [%s] %s+%s but kallsyms says %s" % (a, s, o, hex(k.get(s, 0))))
print("RESULT", n, bad)
EOF_PY
)
	read -r _ n bad <<<"$(tail -n 1 <<<"$res")"
	if [ "$bad" = 0 ] && [ "$n" -gt 0 ]; then
		ok "[$K] ppc64: the report's $n [modsect_test] addresses are kallsyms address + offset"
	else
		not_ok "[$K] ppc64: $bad of $n report addresses not kallsyms + offset"
		sed '$d' <<<"$res" | detail
	fi
	# "N: VALUE SIZE FUNC BIND VIS [<localentry>: 8] NDX NAME"
	st=$(readelf -sW "$VM_TESTMOD_KO" | awk '$4 == "FUNC" && $7 == "[<localentry>:" && $9 ~ /^[0-9]+$/ { print $10, $2, $9 }' | head -n 1)
	read -r sym val ndx <<<"$st"
	a=$(awk -v s="$sym" '$3 == s && $4 == "[modsect_test]" { print $1 }' "$VM_RUN/kallsyms.txt")
	sec=$(readelf -SW "$VM_TESTMOD_KO" | sed -n "s/^ *\[ *$ndx\] \([^ ]*\) .*/\1/p")
	txt=$(awk -v s="$sec" '$1 == "section" && $2 == "modsect_test" && $3 == s { print $4 }' "$W/cap-ref.out")
	if [ -n "$sym" ] && [ -n "$a" ] && [ "$((16#$a))" = "$((txt + 16#$val))" ]; then
		ok "[$K] ppc64: $sym (local entry: $(readelf -sW "$VM_TESTMOD_KO" | grep -o "\[<localentry>: [0-9]*\]" | head -n 1)) is in kallsyms at its global entry, $sec + st_value"
	else
		not_ok "[$K] ppc64: no function with a local entry at .text + st_value in kallsyms ('$sym' $val, kallsyms $a, .text $txt)"
	fi
	ms res-entry resolve --capture "$LOOP" "${FIND[@]}" "$(printf '0x%x' $((16#$a + 4)))"
	want=$(eu-addr2line -e "$VM_TESTMOD_KO" -j "$sec" "$(printf '0x%x' $((16#$val + 4)))")
	if grep -q "^0x0*$(printf '%x' $((16#$a + 4))): $sym+0x4/" "$W/res-entry.out" && grep -qF "at $want" "$W/res-entry.out"; then
		ok "[$K] ppc64: resolve between global and local entry: $sym+0x4 at $want (eu-addr2line)"
	else
		not_ok "[$K] ppc64: resolve of $sym+0x4: want $sym+0x4 at $want"
		cat "$W/res-entry.out" "$W/res-entry.err" | detail
	fi
}

vm_expected_syms "$W/sym"
# The README's loop and its optional kallsyms line (for per-cpu
# variables, whose addresses are in no sysfs section).
LOOP=$W/layout.txt
cat "$VM_RUN/readme-loop.txt" "$VM_RUN/kallsyms.txt" >"$LOOP"

# --- 1. the README's capture forms ------------------------------------------
if [ "$(sed -n 1p "$LOOP")" = "release $VM_KREL" ] && [ "$(sed -n 2p "$LOOP")" = "machine $VM_ARCH" ] &&
	[ -s "$VM_RUN/readme-grep.txt" ]; then
	ok "[$K] the README's loop prints release $VM_KREL and machine $VM_ARCH"
else
	not_ok "[$K] the README's loop: want release $VM_KREL, machine $VM_ARCH"
	head -n 3 "$LOOP" | detail
fi
ms cap-loop capture --capture "$VM_RUN/readme-loop.txt" -o - &&
	ms cap-grep capture --capture "$VM_RUN/readme-grep.txt" -o -
if grep -q "^machine $VM_ARCH\$" "$W/cap-loop.out" && [ -s "$W/cap-loop.out" ] &&
	diff <(grep -v '^#' "$W/cap-loop.out") <(grep -v '^#' "$W/cap-grep.out") >/dev/null; then
	ok "[$K] the loop and grep forms read as the same map ($(grep -c . "$VM_RUN/readme-loop.txt") lines)"
else
	not_ok "[$K] the loop and grep forms differ, or do not read"
	cat "$W/cap-loop.err" "$W/cap-grep.err" | detail
fi

# --- 2, 3. gdb offline and attached -----------------------------------------
rc=0
ms gdb-loop gdb --all --capture "$LOOP" "${FIND[@]}" || rc=$?
cp "$W/gdb-loop.out" "$W/loop.gdb"
[ "$rc" = 0 ] || { not_ok "[$K] modsect gdb --all --capture: exit $rc"; detail <"$W/gdb-loop.err"; }
{
	echo "set pagination off"
	echo "set confirm off"
	echo "source $W/loop.gdb"
	echo "source $VM_DIR/symdump.py"
	echo "python ms_addr('$W/sym/all.uexp', 'SYM')"
	echo "python ms_where('$W/sym/all.uexp', 'RSYM')"
} >"$W/offline.gdb"
timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$W/offline.gdb" >"$W/offline.gdb.out" 2>&1 </dev/null
symcheck "$GDB, no target, the script alone" "$W/offline.gdb.out"

{
	echo "set pagination off"
	echo "set confirm off"
	echo "target remote 127.0.0.1:$VM_GDB_PORT"
	echo "source $W/loop.gdb"
	echo "source $VM_DIR/symdump.py"
	echo "python ms_addr('$W/sym/all.uexp', 'SYM')"
	echo "python ms_where('$W/sym/all.uexp', 'RSYM')"
	echo "break modsect_test_poke"
	echo "shell printf 'poke 7\\n' > $VM_RUN/trigger.in"
	echo "continue"
	echo "bt"
	echo "delete"
	echo "detach"
} >"$W/live.gdb"
timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$W/live.gdb" >"$W/live.gdb.out" 2>&1 </dev/null
symcheck "$GDB on the gdbstub" "$W/live.gdb.out"
# arm64: two locations, the ELF symbol (before the patchable NOPs, where
# the arguments are not yet known) and the DWARF function's first line.
if grep -qE "^Breakpoint 1(\.[0-9]+)?, (0x[0-9a-f]+ in )?modsect_test_poke \((value=7)?\) at .*modsect_test\.c:[0-9]+" "$W/live.gdb.out"; then
	ok "[$K] breakpoint on modsect_test_poke hit, file:line"
else
	not_ok "[$K] breakpoint on modsect_test_poke not hit (with file:line)"
	grep -vE '^SYM' "$W/live.gdb.out" | tail -n 15 | detail
fi
bt=$(grep -E '^#[0-9]+ ' "$W/live.gdb.out")
if grep -qE '^#0 .*modsect_test_poke' <<<"$bt" && grep -qE '^#[0-9]+ .* poke_set .*modsect_test\.c:[0-9]+' <<<"$bt"; then
	ok "[$K] bt names modsect_test_poke and poke_set with file:line"
else
	not_ok "[$K] bt lacks the module's frames"
	detail <<<"$bt"
fi
if vm_wait_for "^==MODSECT-ACK 1 poke 7 rc=0==\$" 60; then
	ok "[$K] the guest ran on after detach"
else
	not_ok "[$K] the guest did not acknowledge the poke after detach"
fi

# --- 4. lldb, fresh ---------------------------------------------------------
rc=0
ms lldb-loop lldb --all --capture "$LOOP" "${FIND[@]}" || rc=$?
cp "$W/lldb-loop.out" "$W/loop.lldb"
[ "$rc" = 0 ] || { not_ok "[$K] modsect lldb --all --capture: exit $rc"; detail <"$W/lldb-loop.err"; }
# An address lldb cannot resolve is an error, which ends a -s script: the
# lookups go in a file sourced with -e false.
awk '{ print "image lookup -a 0x" $2 }' "$W/sym/all.uexp" >"$W/lookups.lldb"
{
	echo "command source $W/loop.lldb"
	echo "command source -e false $W/lookups.lldb"
} >"$W/run.lldb"
timeout "$GDB_TIMEOUT" lldb -b -s "$W/run.lldb" >"$W/lldb.out" 2>&1 </dev/null
# lldb names one of the symbols at an address: the expected one, another
# that kallsyms has there (cleanup_module and dm_exit), or one kallsyms
# leaves out (linker-made, as __stop_alloc_tags), at offset 0.
res=$(awk '
	FILENAME == ARGV[1] { a = $1; while (length(a) < 16) a = "0" a; at[a " " $3] = 1; known[$3] = 1; next }
	FILENAME == ARGV[2] { want[$2] = $1; order[++n] = $2; next }
	/^\(lldb\) image lookup -a 0x/ { cur = substr($5, 3); next }
	/^\(lldb\) / { cur = ""; next }
	cur != "" && $1 == "Summary:" { s = $0; sub(/^ *Summary: /, "", s); sum[cur] = s }
	cur != "" && $1 == "Address:" { where[cur] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			a = order[i]; s = sum[a]; nm = s; sub(/^[^ `]*`/, "", nm); split(nm, w, " ")
			p = a; while (length(p) < 16) p = "0" p
			if (w[2] != "+" && w[1] != "" && (w[1] == want[a] || (p " " w[1]) in at || !(w[1] in known))) { okn++; continue }
			# lldb 14 names the nameless section symbol for the first
			# byte of a section of a file without debug info.
			if (nm == "" && where[a] ~ /\.ko\.[^ ]+ \+ 0\)$/) { okn++; continue }
			bad++
			if (bad <= 10) printf "  %s at %s: %s\n", want[a], a, s
		}
		printf "RESULT %d %d\n", okn, bad
	}' "$VM_RUN/kallsyms.txt" "$W/sym/all.uexp" "$W/lldb.out")
read -r _ nok nbad <<<"$(tail -n 1 <<<"$res")"
if [ "$nbad" = 0 ] && [ "$nok" -gt 0 ]; then
	ok "[$K] lldb, the script alone: image lookup -a names all $nok kallsyms addresses"
else
	not_ok "[$K] lldb: image lookup -a wrong for $nbad of $((nok + nbad)) addresses"
	{ sed '$d' <<<"$res"; grep -v 'image lookup\|Address:\|Summary:' "$W/lldb.out" | head -n 10; } | detail
fi

# --- 5. the memory source ---------------------------------------------------
# Both as "module section address" lines, sorted.
norm() { awk '$1 == "section" { print $2, $3, $4 }' "$1" | sort; }
ms cap-ref capture --capture "$LOOP" -o -
HAVE_BTF=0
grep -q '^CONFIG_DEBUG_INFO_BTF=y' "${VM_ROOT:-}/boot/config-$VM_KREL" && HAVE_BTF=1
if [ "$HAVE_BTF" = 1 ]; then
	rc=0
	ms mem-cap capture --remote "127.0.0.1:$VM_GDB_PORT" -o - || rc=$?
	if [ "$rc" = 0 ] && diff <(norm "$W/cap-ref.out") <(norm "$W/mem-cap.out") >"$W/mem.diff" &&
		[ -s "$W/mem-cap.out" ]; then
		ok "[$K] capture --remote (BTF from memory): the guest's map, $(norm "$W/cap-ref.out" | wc -l) sections"
	else
		not_ok "[$K] capture --remote: exit $rc, or a map other than the guest's"
		{ head -n 5 "$W/mem-cap.err"; head -n 20 "$W/mem.diff"; } | detail
	fi
	rc=0
	ms gdb-mem gdb --all --remote "127.0.0.1:$VM_GDB_PORT" "${FIND[@]}" || rc=$?
	cp "$W/gdb-mem.out" "$W/mem.gdb"
	{
		echo "set pagination off"
		echo "source $W/mem.gdb"
		echo "source $VM_DIR/symdump.py"
		echo "python ms_addr('$W/sym/all.uexp', 'SYM')"
		echo "python ms_where('$W/sym/all.uexp', 'RSYM')"
	} >"$W/mem-run.gdb"
	timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$W/mem-run.gdb" >"$W/mem-run.out" 2>&1 </dev/null
	[ "$rc" = 0 ] || { not_ok "[$K] modsect gdb --all --remote: exit $rc"; detail <"$W/gdb-mem.err"; }
	symcheck "gdb --all --remote (from memory)" "$W/mem-run.out"
else
	rc=0
	# ppc64: modsect finds no kernel in memory without its image (no
	# table of where its text is); given the image, what it lacks is BTF.
	IMG=()
	[ "$VM_ARCH" != ppc64le ] || IMG=(--kernel-image "$VM_KERNEL")
	ms mem-cap capture --remote "127.0.0.1:$VM_GDB_PORT" "${IMG[@]}" -o - || rc=$?
	if [ "$rc" != 0 ] && [ ! -s "$W/mem-cap.out" ] && grep -q 'BTF' "$W/mem-cap.err"; then
		ok "[$K] the kernel has no BTF: capture --remote refuses, saying so: $(head -n 1 "$W/mem-cap.err")"
	elif [ "$VM_ARCH" = s390x ] && [ "$rc" = 3 ] && [ ! -s "$W/mem-cap.out" ] &&
		grep -q 'unknown architecture (ELF machine 0); give --kernel-image' "$W/mem-cap.err"; then
		# lib/target reads registers of little-endian stubs only and
		# lib/kernel/kfind.c knows no s390x kernel window: modsect
		# does not find an s390x kernel in memory (and without BTF it
		# could not walk its modules anyway).
		ok "[$K] no BTF, and no s390x kernel found in memory: capture --remote refuses, saying so: $(head -n 1 "$W/mem-cap.err")"
	else
		not_ok "[$K] no BTF: capture --remote exit $rc, want an error naming BTF"
		head -n 5 "$W/mem-cap.err" | detail
	fi
	# With the test module's DWARF (rule 25): struct module and the
	# structs modsect reads laid out from it, the map from memory.
	rc=0
	ms mem-dw capture --remote "127.0.0.1:$VM_GDB_PORT" "${IMG[@]}" \
		--search "$VM_OUT/testmod" -o - || rc=$?
	if [ "$rc" = 0 ] && [ -s "$W/mem-dw.out" ] &&
		diff <(norm "$W/cap-ref.out") <(norm "$W/mem-dw.out") >"$W/memdw.diff"; then
		ok "[$K] capture --remote with the test module's DWARF for struct module: the guest's map, $(norm "$W/cap-ref.out" | wc -l) sections"
	elif [ "$VM_ARCH" = armv7l ]; then
		# QEMU 7.2's gdbstub reads through the stopped CPU's page
		# tables, which on 32-bit ARM map the module area only once a
		# task has touched it: E14 there (README). Said, not counted.
		echo "known: [$K] capture --remote with DWARF: exit $rc: $(head -n 1 "$W/mem-dw.err")"
	else
		not_ok "[$K] capture --remote with the test module's DWARF: exit $rc, or a map other than the guest's"
		{ head -n 5 "$W/mem-dw.err"; head -n 20 "$W/memdw.diff"; } | detail
	fi
fi
vm_resume
# The vmcore: QEMU's ELF dump (physical memory, with VMCOREINFO).
vm_dump "$W/vmcore.elf" elf
rc=0
if [ "$VM_ARCH" = s390x ] && [ -x "$TOP/modsect" ]; then
	# libkdumpfile 0.5.1 reads the size of the section name table of
	# QEMU's big-endian s390x ELF dump byte-swapped (11 bytes read as
	# 0xb00000000000000) and asks malloc for it: under ASan that is a
	# report, so the plain build, where malloc fails and libkdumpfile
	# says so.
	vm_run vmcore-cap "$TOP/modsect" capture --vmcore "$W/vmcore.elf" -o - || rc=$?
else
	ms vmcore-cap capture --vmcore "$W/vmcore.elf" -o - || rc=$?
fi
if [ "$HAVE_BTF" = 1 ]; then
	if [ "$rc" = 0 ] && diff <(norm "$W/cap-ref.out") <(norm "$W/vmcore-cap.out") >"$W/vmcore.diff" &&
		[ -s "$W/vmcore-cap.out" ]; then
		ok "[$K] capture --vmcore (QEMU's ELF dump, BTF from memory): the guest's map"
	else
		not_ok "[$K] capture --vmcore: exit $rc, or a map other than the guest's"
		{ head -n 5 "$W/vmcore-cap.err"; head -n 20 "$W/vmcore.diff"; } | detail
	fi
elif [ "$rc" != 0 ] && [ ! -s "$W/vmcore-cap.out" ] && grep -q 'BTF' "$W/vmcore-cap.err"; then
	ok "[$K] the kernel has no BTF: capture --vmcore refuses, saying so: $(head -n 1 "$W/vmcore-cap.err")"
elif [ "$VM_ARCH" = i686 ] && [ "$rc" != 0 ] && [ ! -s "$W/vmcore-cap.out" ] &&
	grep -q 'not mapped in the dumped kernel: .*Infinite read recursion' "$W/vmcore-cap.err"; then
	# libkdumpfile 0.5.1 cannot translate a PAE ia32 dump (it reads the
	# page tables through the addresses they translate): known, named.
	ok "[$K] capture --vmcore of an i386 PAE dump refuses, naming libkdumpfile's translation failure"
elif [ "$VM_ARCH" = s390x ] && [ "$rc" = 3 ] && [ ! -s "$W/vmcore-cap.out" ] &&
	grep -q 'not a vmcore libkdumpfile can read.*Cannot allocate ELF string table' "$W/vmcore-cap.err"; then
	ok "[$K] capture --vmcore of QEMU's s390x ELF dump refuses, naming libkdumpfile's failure: $(head -n 1 "$W/vmcore-cap.err")"
elif [ "$VM_ARCH" = armv7l ] && [ "$rc" = 3 ] && [ ! -s "$W/vmcore-cap.out" ] &&
	grep -q 'nothing is mapped where the kernel should be' "$W/vmcore-cap.err"; then
	# Debian's armmp has no CONFIG_FW_CFG_SYSFS: the dump carries no
	# VMCOREINFO, so libkdumpfile has no page tables to translate with.
	ok "[$K] capture --vmcore of a dump without VMCOREINFO (no qemu_fw_cfg in armmp) refuses, saying so: $(head -n 1 "$W/vmcore-cap.err")"
elif { [ "$VM_ARCH" = ppc64le ] || [ "$VM_ARCH" = s390x ]; } && [ "$rc" != 0 ] && [ ! -s "$W/vmcore-cap.out" ] &&
	grep -q 'section-header string table (792633534417207296 bytes .*) is not inside the file' "$W/vmcore-cap.err"; then
	# QEMU 7.2's ELF dumps of these guests say ELFDATA2MSB, and their
	# section-header string table's size is 0x0b00000000000000 (11,
	# written little-endian): readelf refuses them too.  Known, named
	# (before libkdumpfile would allocate that much).
	ok "[$K] capture --vmcore of QEMU 7.2's $VM_ARCH dump (big-endian header, section header little-endian) refuses, saying so"
else
	not_ok "[$K] no BTF: capture --vmcore exit $rc, want an error naming BTF"
	head -n 5 "$W/vmcore-cap.err" | detail
fi
rm -f "$W/vmcore.elf"
if [ "$VM_ARCH" = s390x ]; then
	# QEMU 7.2's compressed kdump of s390x ("S390X" its machine, 1 MiB
	# blocks of 4 KiB pages), which libkdumpfile 0.5.1 cannot read:
	# refused, naming the blocks and what works (its ELF dumps are
	# malformed too).
	vm_dump "$W/vmcore.kdump" kdump-zlib
	rc=0
	ms vmcore-kd capture --vmcore "$W/vmcore.kdump" -o - || rc=$?
	if [ "$rc" = 3 ] && [ ! -s "$W/vmcore-kd.out" ] &&
		grep -q '1048576-byte blocks of a kernel with 4096-byte pages.*give --remote' "$W/vmcore-kd.err"; then
		ok "[$K] capture --vmcore of QEMU's s390x compressed kdump refuses, naming its blocks and what works"
	else
		not_ok "[$K] capture --vmcore of QEMU's s390x kdump: exit $rc, want the blocks named"
		head -n 3 "$W/vmcore-kd.err" | detail
	fi
	rm -f "$W/vmcore.kdump"
fi

# --- 6. decode a WARN made in this guest ------------------------------------
DC=$W/decode
mkdir -p "$DC"
if vm_cmd "warn 3"; then
	vm_section "dmesg-$VM_LAST_ACK" >"$DC/warn.log"
fi
FR_RE='[A-Za-z0-9_.$]+\+0x[0-9a-f]+\/0x[0-9a-f]+ \[modsect_test\]'
if grep -q 'WARNING: ' "$DC/warn.log" && grep -qE "$FR_RE" "$DC/warn.log"; then
	ok "[$K] the guest's WARN: $(grep -cE "$FR_RE" "$DC/warn.log") [modsect_test] frames"
else
	not_ok "[$K] no WARNING with [modsect_test] frames in the guest's log"
	tail -n 30 "$DC/warn.log" | detail
fi
KO=$VM_TESTMOD_KO
eu-readelf -S "$KO" | awk 'match($0, /^ *\[ *[0-9]+\] /) { i = $0; sub(/^ *\[ */, "", i); sub(/\].*/, "", i); split(substr($0, RLENGTH + 1), w, " "); print i, w[1] }' >"$DC/secnames"
eu-readelf -s "$KO" | awk '$4 == "FUNC" { print $8, $7, $2 }' >"$DC/funcs"
# "LINENO EXACT PREFIX-LEN IPRE CLOSE SYM 0xOFF 0xSIZE" for every such frame, every
# frame of a line; exact where the line says where execution is.  32-bit
# ARM's WARN calls warn_slowpath_fmt, whose return address __warn prints
# (arch/arm/include/asm/bug.h has no __WARN_FLAGS; kernel/panic.c).
# s390x: the PSW address (Krnl PSW) is where execution was, and so is the
# first entry of the "Call Trace:" after it when it is that frame
# (arch/s390/kernel/unwind_bc.c starts from the regs), and the frame on
# the line after "Last Breaking-Event-Address:", the last branch taken
# (dumpstack.c show_last_breaking_event).  IPRE: where the
# frame's "(inlined)" lines start, at its raw "[<address>] " if it has one.
awk -v re="$FR_RE" -v warnret="$([ "$VM_ARCH" = armv7l ] && echo 1 || echo 0)" '
/Call Trace:/ { first = 1 }
{
	line = $0; base = 0
	lbe = prevlbe; prevlbe = ($0 ~ /Last Breaking-Event-Address: *$/)
	while (match(line, re)) {
		rs = RSTART; rl = RLENGTH
		f = substr(line, rs, rl); pre = base + rs - 1
		split(f, a, /[+\/ ]/)
		ex = ($0 ~ /RIP: / || $0 ~ /EIP: / || $0 ~ / pc : / || $0 ~ /Krnl PSW : / || $0 ~ / NIP \[/ || $0 ~ /--- interrupt: / || ($0 ~ /WARNING: / && !warnret)) ? 1 : 0
		if ($0 ~ /Krnl PSW : /) psw = f
		if (first && f == psw) ex = 1
		if (lbe) ex = 1
		first = 0
		ipre = pre
		if (match(substr($0, 1, pre), /\[<[0-9a-f]+>\] $/)) ipre = RSTART - 1
		# "ADDRESS (frame)": decode annotates after the ")".
		cl = substr($0, pre - 1, 2) == " (" && substr($0, pre - 2, 1) ~ /[0-9a-f\]]/ && substr($0, pre + rl + 1, 1) == ")"
		print NR, ex, pre, ipre, cl, a[1], a[2], a[3]
		base += rs + rl - 1; line = substr(line, rs + rl)
	}
	if ($0 ~ /\+0x/) first = 0
}' "$DC/warn.log" >"$DC/frames"
: >"$DC/expected.frames"
while read -r nr exact pre ipre cl sym off size; do
	read -r ndx val <<<"$(awk -v s="$sym" '$1 == s { print $2, $3; exit }' "$DC/funcs")"
	sec=$(awk -v i="${ndx:-x}" '$1 == i { print $2 }' "$DC/secnames")
	if [ -z "$sec" ]; then
		not_ok "[$K] decode: $sym (line $nr) is no function of ${KO##*/}"
		continue
	fi
	eu-addr2line -e "$KO" -j "$sec" -f -i "$(printf '0x%x' $((16#$val + off - (exact ? 0 : 1))))" >"$DC/a2l.$nr.$pre"
	line=$(sed -n "${nr}p" "$DC/warn.log")
	awk -v nr="$nr" -v pre="${line:0:ipre}" -v line="$line" -v frame="$sym+$off/$size [modsect_test]" -v sym="$sym" -v at="$pre" -v cl="$cl" '
		NR % 2 == 1 { fn[++n] = $1; next } { loc[n] = $0 }
		END {
			if (fn[n] != sym || loc[n] !~ /:[0-9]+(:[0-9]+)?$/) { print "MISMATCH", nr, sym, fn[n], loc[n]; exit }
			for (i = 1; i < n; i++) print nr, pre fn[i] " (inlined) " loc[i]
			i = at + length(frame) + 1 + cl
			print nr, substr(line, 1, i - 1) " " loc[n] substr(line, i)
		}' "$DC/a2l.$nr.$pre" >>"$DC/expected.frames"
done <"$DC/frames"
awk 'FILENAME == ARGV[1] { nr = $1; sub(/^[0-9]+ /, ""); x[nr] = x[nr] $0 "\n"; next }
	FNR in x { printf "%s", x[FNR]; next } { print }' "$DC/expected.frames" "$DC/warn.log" >"$DC/expected"
rc=0
ms decode decode --capture "$LOOP" "${FIND[@]}" "$DC/warn.log" || rc=$?
cp "$W/decode.out" "$DC/decode.out"
if grep -q '^MISMATCH' "$DC/expected.frames"; then
	not_ok "[$K] decode: eu-addr2line puts a frame in another function: $(grep '^MISMATCH' "$DC/expected.frames" | head -n 2 | tr '\n' ' ')"
elif [ "$rc" = 0 ] && diff "$DC/expected" "$DC/decode.out" >"$DC/decode.diff"; then
	ok "[$K] decode: the WARN's $(wc -l <"$DC/frames") [modsect_test] frames as eu-addr2line -f -i says ($(grep -c ' (inlined) ' "$DC/expected") inlined lines), the other $(($(wc -l <"$DC/warn.log") - $(wc -l <"$DC/frames"))) lines unchanged"
else
	not_ok "[$K] decode: exit $rc, or output other than expected (< expected, > modsect)"
	{ head -n 3 "$W/decode.err"; head -n 30 "$DC/decode.diff"; } | detail
fi

[ "$VM_ARCH" != ppc64le ] || ppc64_entries
vm_stop
echo "kernel.sh: $K $VM_KREL"
summary
