#!/bin/bash
# tests/vm/run.sh - build and boot the modsect test VM, print where things are.
#
#   tests/vm/run.sh            boot, capture, power off
#   tests/vm/run.sh --keep     boot, capture, keep QEMU (and its gdbstub)
#                              running until Enter / Ctrl-C
#
# Env: MODSECT_STATIC=<static modsect binary> to run `modsect capture` in the
# guest; other MODSECT_VM_* variables: see README.md.
set -eu
. "$(dirname "$0")/lib.sh"

keep=
case ${1:-} in
--keep) keep=1 ;;
'') ;;
*) echo "usage: $0 [--keep]" >&2; exit 2 ;;
esac

vm_setup
vm_start

cat <<EOF
kernel:        $VM_KERNEL ($VM_KREL)
test module:   $VM_TESTMOD_KO (host; build-id $VM_TESTMOD_BUILD_ID)
stripped:      $VM_TESTMOD_KO_STRIPPED (loaded in the guest)
debug file:    $VM_TESTMOD_DEBUG
boot time:     ${VM_BOOT_SECONDS}s
gdbstub:       target remote 127.0.0.1:$VM_GDB_PORT
run dir:       $VM_RUN
  serial1.log     everything the guest wrote on ttyS1
  sections.txt    "<module> <section> <addr>" (sh loop over /sys/module/*/sections)
  sysfs-grep.txt  grep -r . /sys/module/*/sections/
  kallsyms.txt    module lines of /proc/kallsyms
  capture.txt     modsect capture -o - (only with MODSECT_STATIC)
  console.log     kernel console
insmod results:
$(sed 's/^/  /' "$VM_RUN/insmod.txt")
EOF

if [ -n "$keep" ]; then
	echo "QEMU pid $VM_QEMU_PID kept running; send triggers with:"
	echo "  printf 'poke 5\\n' > $VM_RUN/trigger.in"
	echo "Press Enter (or Ctrl-C) to power off."
	read -r _ || true
fi
vm_stop
