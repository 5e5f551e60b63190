# shellcheck shell=bash
# tests/vm/parts/in-guest.sh - sourced by tests/vm/test.sh.
#
# Proves modsect itself run in the guest, as root on the real kernel (the
# guest's init.sh ran `modsect-live list/gdb --all/lldb/sections/debuginfo`
# at boot): the same add-symbol-file addresses as from the capture, every
# module verified by build-id, lldb's file (or its copy), .init.text freed
# and the per-cpu base from /proc/kallsyms, no debug info for the stripped
# module, nothing on stderr.  Skipped (an ok line says why) where the host
# binary cannot run in the guest (MODSECT_DYN unset: another architecture).
#
# Uses capture-gdb.sh's $W/static.gdb, boot.sh's $W/modules and GUEST_ID.

# --- modsect live in the guest, as root on the real kernel -----------------
# Same commands as from the static capture, apart from where the files are.
live_rc() { tail -n 1 "$VM_RUN/live-$1.txt"; }
asf_args() { grep '^add-symbol-file ' "$1" | cut -d' ' -f3- | sort; }
if [ -z "${MODSECT_DYN:-}" ]; then
	ok "live in the guest: list, gdb --all, lldb, sections, debuginfo (skipped on $VM_PROFILE: no modsect runs in the guest, $VM_ARCH; MODSECT is built for $(uname -m))"
else
	if [ "$(live_rc list)" = rc=0 ] &&
		[ "$(grep -c ' build-id ' "$VM_RUN/live-list.txt")" = "$(wc -l <"$W/modules")" ]; then
		ok "live in the guest: modsect list: $(wc -l <"$W/modules") modules, all verified by build-id"
	else
		not_ok "live in the guest: modsect list"
		detail <"$VM_RUN/live-list.txt"
	fi
	if [ "$(live_rc gdb)" = rc=0 ] && [ -s "$W/static.gdb" ] &&
		[ "$(asf_args "$VM_RUN/live-gdb.txt")" = "$(asf_args "$W/static.gdb")" ] &&
		[ "$(grep -c '^# verified: build-id' "$VM_RUN/live-gdb.txt")" = "$(wc -l <"$W/modules")" ]; then
		ok "live in the guest: modsect gdb --all: same addresses as from the capture, $(wc -l <"$W/modules") verified"
	else
		not_ok "live in the guest: modsect gdb --all differs from the capture's"
		diff <(asf_args "$VM_RUN/live-gdb.txt") <(asf_args "$W/static.gdb") | detail
	fi
	# The guest's file is /lib/modules/REL/extra/modsect_test.ko, the stripped
	# module; where lldb would misread it (6.12: sections not at 0) lldb gets
	# modsect's copy in the guest's cache, named by its content, which the
	# host computes from the same file.
	read -r LIVE_COPY _ <<<"$(vm_debugger_copy "$VM_TESTMOD_KO_STRIPPED" lldb)"
	if [ "${LIVE_COPY:--}" = - ]; then
		live_lldb_re='^target modules load --file "/lib/modules/.*/modsect_test.ko" \.text '
	else
		live_lldb_re="^target modules load --file \"/.*/$LIVE_COPY\" \\.text "
	fi
	# With the module's ORC, lldb reads a copy with its unwind tables
	# (lib/module/modcopy.c), named by its content, said by a comment.
	if grep -q "^# modsect_test: unwind tables from its ORC ([0-9]* entries) in lldb's copy of its file$" "$VM_RUN/live-lldb.txt"; then
		live_lldb_re='^target modules load --file "/.*/[0-9a-f]\{64\}\.ko" \.text '
		LIVE_COPY="(a copy with its unwind tables)"
	fi
	if [ "$(live_rc lldb)" = rc=0 ] && grep -q "$live_lldb_re" "$VM_RUN/live-lldb.txt" &&
		grep -q '^# modsect_test (live) from /lib/modules/.*/modsect_test.ko$' "$VM_RUN/live-lldb.txt"; then
		ok "live in the guest: modsect lldb modsect_test$([ "${LIVE_COPY:--}" = - ] || echo " (lldb reads its copy $LIVE_COPY: the guest's module with sh_addr 0)")"
	else
		not_ok "live in the guest: modsect lldb modsect_test"
		detail <"$VM_RUN/live-lldb.txt"
	fi
	if [ "$(live_rc sections)" = rc=0 ] &&
		grep -qE '^\.init\.text +0x[0-9a-f]{16} +[0-9]+ AX +yes +freed$' "$VM_RUN/live-sections.txt" &&
		grep -qE '^\.data\.\.percpu +0x[0-9a-f]{16} +[0-9]+ WA +no +percpu$' "$VM_RUN/live-sections.txt" &&
		grep -q '^verified: build-id' "$VM_RUN/live-sections.txt"; then
		ok "live in the guest: modsect sections: .init.text freed, per-cpu base from /proc/kallsyms"
	else
		not_ok "live in the guest: modsect sections"
		detail <"$VM_RUN/live-sections.txt"
	fi
	# The guest has the stripped module only: live modsect finds no DWARF.
	read -r _ _ _ lv ld _ <<<"$(awk '$1 == "modsect_test"' "$VM_RUN/live-list.txt")"
	if [ "${lv:-}" = build-id ] && [ "${ld:-}" = - ] &&
		grep -q '^# debug info: none found' <(awk '/^# modsect_test \(/ { on = 1; next } /^# [A-Za-z0-9_]+ \(/ { on = 0 } on' "$VM_RUN/live-gdb.txt"); then
		ok "live in the guest: modsect_test verified by build-id, DEBUG '-', gdb: '# debug info: none found' (the guest has no DWARF)"
	else
		not_ok "live in the guest: modsect_test should have no debug info in the guest (list: '${lv:-}' '${ld:-}')"
		grep -A4 '^# modsect_test (' "$VM_RUN/live-gdb.txt" | detail
	fi
	read -r _ lid lsrc lver _ <<<"$(awk '$1 == "modsect_test"' "$VM_RUN/live-debuginfo.txt")"
	if [ "$(live_rc debuginfo)" = rc=1 ] && [ "${lid:-}" = "$GUEST_ID" ] && [ "${lsrc:-}" = - ] && [ "${lver:-}" = - ]; then
		ok "live in the guest: modsect debuginfo --offline --all: exit 1, modsect_test $lid source '-'"
	else
		not_ok "live in the guest: modsect debuginfo --offline --all: $(live_rc debuginfo), modsect_test '${lid:-}' '${lsrc:-}' '${lver:-}'"
		detail <"$VM_RUN/live-debuginfo.txt"
	fi
	if [ ! -s "$VM_RUN/live-stderr.txt" ]; then
		ok "live in the guest: nothing on stderr (no sanitizer report)"
	else
		not_ok "live in the guest: stderr"
		detail <"$VM_RUN/live-stderr.txt"
	fi
fi
