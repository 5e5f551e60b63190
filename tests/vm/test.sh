#!/bin/bash
# tests/vm/test.sh - modsect against a real kernel (QEMU, TCG, KASLR on).
#
#   MODSECT=build/san/modsect MODSECT_STATIC=$PWD/modsect-static tests/vm/test.sh
#
# One boot (booting costs minutes under TCG), then the parts below, each a
# file of tests/vm/parts/ that says what it proves, sourced in this order
# (later parts use files and names of earlier ones, as each part's header
# says).  The guest loads modsect_test (stripped) and a few stock modules
# and reports its section maps with the static modsect (`modsect capture`,
# with build-ids) and with a plain sh loop over /sys/module/*/sections.
#
#   boot          what the guest loaded and captured; the expected symbols
#                 (kallsyms names in the module files) the parts check
#   capture-gdb   `modsect gdb --all --capture` of every capture form, the
#                 script in fresh offline gdbs, `sections`, `list`, other
#                 files, --init, --moddir                   (sections 1, 2, 5)
#   live-gdb      gdb attached to the guest sources the script: addresses,
#                 a breakpoint, bt, args, globals                (sections 2, 3)
#   lldb          lldb offline: image lookup -a of every address  (section 4)
#   in-guest      modsect itself in the guest, as root on the real kernel
#   debuginfo     the stripped module's DWARF from --debug-dir and a real
#                 debuginfod; source lines at a breakpoint       (section 6)
#   decode        decode of a WARN from an inlined helper; resolve (section 7)
#   whole-kernel  the whole kernel without a debug vmlinux     (section 8)
#   race          captures while modules are loaded and unloaded (section 9)
#
# Prints "ok - PART: ..." / "not ok - PART: ..." per check (tests/common.sh,
# as the unit tests do), then "N passed, N failed" alone on the last line.
# Exit status 1 if anything failed.
#
# Environment: MODSECT (default ./modsect), MODSECT_STATIC (static modsect
# for the guest; without it the static-capture checks fail),
# MODSECT_VM_TEST_ATTACH=RUNDIR reuses a VM that is already running with that
# run directory (development; the VM is left running), MODSECT_VM_LLDB=0 skips
# lldb, MODSECT_VM_GDB_TIMEOUT (120 s), MODSECT_VM_RACE_N (captures in
# the race part, 10), and lib.sh's MODSECT_VM_* variables.
# DEBUGINFOD_URLS is ignored: only the test's own debuginfod is asked.
set -u
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_TIMEOUT
. "$(dirname "$0")/lib.sh"

t_start=$(date +%s)
GDB_TIMEOUT=${MODSECT_VM_GDB_TIMEOUT:-120}
vm_modsect "./modsect"
MODSECT_ORIG=$MODSECT
# The same binary also runs live inside the guest (with its libraries),
# where the guest can run it: not on a kernel of another architecture.
if [ "$VM_ARCH" = "$(uname -m)" ]; then
	export MODSECT_DYN=${MODSECT_DYN:-$MODSECT_ORIG}
else
	unset MODSECT_DYN
fi

note() { printf 'note: %s\n' "$*"; }
# modsect's cache (its copies of module files for the debuggers, the
# kallsyms ELF) where no --cache-dir says otherwise.
DEF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/modsect


# --- boot (or attach) -------------------------------------------------------
if [ -n "${MODSECT_VM_TEST_ATTACH:-}" ]; then
	VM_RUN=$MODSECT_VM_TEST_ATTACH
	VM_GDB_PORT=$(cat "$VM_RUN/gdb.port")
	VM_QEMU_PID=$(cat "$VM_RUN/qemu.pid")
	VM_BOOT_SECONDS=$(cat "$VM_RUN/boot.seconds")
	VM_TESTMOD_KO=$VM_OUT/testmod/modsect_test.ko
	VM_TESTMOD_KO_STRIPPED=$VM_OUT/testmod/modsect_test.stripped.ko
	VM_TESTMOD_DEBUG=$VM_OUT/testmod/modsect_test.debug
	VM_TESTMOD_BUILD_ID=$(vm_build_id "$VM_TESTMOD_KO")
	# shellcheck disable=SC2034 # lib.sh's vm_set_moddir reads it
	VM_KREL=$(cat "$VM_RUN/uname.txt")
	VM_MODLIST=$VM_OUT/modules.list
	VM_RACE_LIST=$VM_OUT/race-modules.list
	vm_set_moddir
	kill -0 "$VM_QEMU_PID" 2>/dev/null || vm_die "no QEMU running for $VM_RUN"
	VM_QEMU_PID= # never stop a VM we did not start
	vm_log "attached to the VM of $VM_RUN (gdbstub $VM_GDB_PORT)"
else
	vm_setup
	vm_start
fi
# vm_start's EXIT trap, plus the debuginfo part's debuginfod.
DFD_PID=
dfd_stop() {
	local pid=$DFD_PID
	[ -n "$pid" ] || return 0
	DFD_PID=
	kill "$pid" 2>/dev/null || true
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.3
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
trap 'dfd_stop; vm_stop' EXIT
trap 'exit 130' INT TERM HUP
# The JSON checks need jq; a missing tool fails the test, never skips it.
command -v jq >/dev/null 2>&1 || vm_die "jq is missing (scripts/deps.sh check installs it)"
# The decode part's reference for source lines.
command -v eu-addr2line >/dev/null 2>&1 && command -v eu-readelf >/dev/null 2>&1 ||
	vm_die "eu-addr2line/eu-readelf missing (apt-get install -y elfutils)"
# The guest's debugger: gdb, gdb-multiarch for i386 and arm64 (kernels.sh);
# its architecture as gdb and lldb name it.
GDB=$(vm_gdb)
GDB_ARCH=$(vm_gdb_arch)
LLDB_ARCH=$(vm_lldb_arch)
# `break modsect_test_poke`: one location, where gdb stops with the
# arguments ("Breakpoint 1, modsect_test_poke (value=N)").  On arm64
# -fpatchable-function-entry puts NOPs between the ELF symbol and the
# DWARF function: two locations, 1.1 at the ELF symbol (no arguments, the
# line of whatever precedes) and 1.2 at the function's first line; the
# scripts continue from 1.1 to 1.2.
BP=1 BP_RE='Breakpoint 1'
if [ "$VM_ARCH" = aarch64 ]; then
	BP=2 BP_RE='Breakpoint 1\.2'
fi
# bp_continue: the gdb commands that run the guest to the breakpoint.
bp_continue() { for _ in $(seq "$BP"); do echo "continue"; done; }
"$GDB" -nx -batch -ex 'python import gdb' >/dev/null 2>&1 ||
	vm_die "gdb has no Python support (tests/vm/symdump.py needs it)"

W=$VM_RUN/test
rm -rf "$W"
mkdir -p "$W/ko" "$W/sym"
TD=$(dirname "$VM_TESTMOD_KO")
# Run a copy: a `make` elsewhere in the tree may replace the binary meanwhile.
cp "$MODSECT_ORIG" "$W/modsect" || vm_die "cannot copy $MODSECT_ORIG"
MODSECT=$W/modsect
# lib.sh's `ms NAME ARGS` runs it, output in $W/NAME.out and .err.

# The parts, in order, each timed.  TNAME starts each check line.
PARTS="boot capture-gdb live-gdb lldb in-guest debuginfo decode whole-kernel race"
timing=
for part in $PARTS; do
	TNAME=$part
	part_t0=$(date +%s)
	# shellcheck source=/dev/null
	. "$VM_DIR/parts/$part.sh"
	timing="$timing, $part $(($(date +%s) - part_t0))s"
done
TNAME=

if [ -z "${MODSECT_VM_TEST_ATTACH:-}" ]; then
	vm_stop
fi
echo "files: $W"
echo "timing: boot ${VM_BOOT_SECONDS:-?}s$timing, total $(($(date +%s) - t_start))s"
summary
