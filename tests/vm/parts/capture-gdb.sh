# shellcheck shell=bash
# tests/vm/parts/capture-gdb.sh - sourced by tests/vm/test.sh (sections 1, 2, 5).
#
# Proves the gdb script from a capture, offline:
#  1. `modsect gdb --all --capture F` for the guest's three capture forms
#     (static `modsect capture`, the sh loop, `grep -r . /sys/module/*/
#     sections/`): one add-symbol-file per module, the right file and .text
#     address, "verified: build-id" when the capture has build-ids,
#     "unverified" when it has not; the same commands from every form.
#  2. `modsect gdb MODULE` alone in fresh gdbs with no target: every
#     expected symbol (boot.sh) at its kallsyms address (&sym) and named by
#     `info symbol` of that address, the script alone setting the
#     architecture; all modules at once from the --all script; 0x10 no
#     symbol.
#  5. `modsect sections` and `list` (text and --json) of the captures:
#     .init.text freed, .text loaded, .data..percpu, live, verified.
#  And: the stripped file as FILE (same build-id) verified, another
#  module's file refused (exit 3), --init keeps .init.text, a capture
#  without release needs --moddir.
#
# Leaves $W/CAPTURE.gdb (static.gdb: the script the later parts source)
# and $W/CAPTURE.facts.  Uses boot.sh's captures, MODS and symbol lists.

# --- 1. modsect gdb --all ------------------------------------------------------------
# The script's per-module facts: "<module> <file> <text addr> <verification>"
script_facts() {
	awk '
		/^# [A-Za-z0-9_]+ \(/ { cur = $2 }
		/^# verified: build-id / { ver[cur] = $4 }
		/^# unverified/ { ver[cur] = "unverified" }
		/^add-symbol-file / { n++; file[cur] = $2; text[cur] = $3; order[n] = cur }
		END { for (i = 1; i <= n; i++) { m = order[i]; print m, file[m], text[m], (m in ver ? ver[m] : "-") } }
	' "$1"
}

for c in $CAPS; do
	F=$(cap_file "$c")
	rc=0
	ms "gdb-all-$c" gdb --all --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" -o "$W/$c.gdb" || rc=$?
	if [ "$rc" != 0 ] || [ ! -s "$W/$c.gdb" ]; then
		not_ok "[$c] modsect gdb --all --capture: rc=$rc"
		detail <"$W/gdb-all-$c.err"
		continue
	fi
	script_facts "$W/$c.gdb" >"$W/$c.facts"
	n=$(grep -c '^add-symbol-file ' "$W/$c.gdb")
	nm=$(wc -l <"$W/modules")
	if [ "$n" = "$nm" ]; then
		ok "[$c] gdb --all: $n add-symbol-file commands for $n loaded modules"
	else
		not_ok "[$c] gdb --all: $n add-symbol-file commands, $nm modules loaded"
	fi
	for m in $MODS; do
		want_file=$(awk -v m="$m" '$1 == m { print $3 }' "$W/modules")
		want_text=$(awk -v m="$m" '$1 == m && $2 == ".text" { print $3 }' "$VM_RUN/sections.txt")
		read -r _ got_file got_text got_ver <<<"$(awk -v m="$m" '$1 == m' "$W/$c.facts")"
		if [ -z "${got_file:-}" ]; then
			not_ok "[$c] gdb --all: no add-symbol-file for $m"
			continue
		fi
		# The module file itself, or where gdb would misread it (6.12's
		# modules: sections not at 0; compressed), modsect's copy of it.
		if vm_dbgfile_ok "$got_file" "$want_file" && [ "$got_text" = "$want_text" ]; then
			case $VM_DBGFILE in
			*" itself") ok "[$c] $m: add-symbol-file ${got_file##*/} $got_text" ;;
			*) ok "[$c] $m: add-symbol-file ${got_file##*/} $got_text: $VM_DBGFILE" ;;
			esac
		else
			not_ok "[$c] $m: add-symbol-file $got_file $got_text, want $want_file (or its debugger copy) $want_text: $VM_DBGFILE"
		fi
		if [ "$c" = static ]; then
			want_id=$(awk -v m="$m" '$1 == m { print $2 }' "$VM_RUN/build-id.txt")
			if [ -n "$want_id" ] && [ "$got_ver" = "$want_id" ]; then
				ok "[$c] $m: verified: build-id $want_id"
			else
				not_ok "[$c] $m: verification '$got_ver', want build-id ${want_id:-?}"
			fi
		elif [ "$got_ver" = unverified ]; then
			ok "[$c] $m: unverified (the capture has no build-ids)"
		else
			not_ok "[$c] $m: verification '$got_ver', want unverified"
		fi
	done
	if [ "$c" != static ] && [ -s "$W/static.gdb" ]; then
		if diff <(grep '^add-symbol-file ' "$W/static.gdb") <(grep '^add-symbol-file ' "$W/$c.gdb") >"$W/$c.diff"; then
			ok "[$c] add-symbol-file commands identical to the static capture's"
		else
			not_ok "[$c] add-symbol-file commands differ from the static capture's"
			detail <"$W/$c.diff"
		fi
	fi
done


# --- 2. the script in fresh offline gdbs --------------------------------------
# Per module and per capture: `modsect gdb MODULE` alone in a new gdb with no
# target.  modsect's script says to set the architecture first without a
# target (gdb's default is i386, where pointers have 32 bits), so the forward
# check (&sym) sets it; the reverse check (info symbol ADDR) runs in a gdb
# that has only sourced the script.
for c in static shloop; do
	F=$(cap_file "$c")
	for m in $MODS; do
		rc=0
		ms "gdb-$c-$m" gdb --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD" "$m" -o "$W/$c-$m.gdb" || rc=$?
		if [ "$rc" != 0 ]; then
			not_ok "[$c] modsect gdb $m: rc=$rc"
			detail <"$W/gdb-$c-$m.err"
			continue
		fi
		if ! diff <(grep '^add-symbol-file ' "$W/$c-$m.gdb") \
			<(grep "^add-symbol-file $(awk -v m="$m" '$1 == m { print $2 }' "$W/$c.facts") " "$W/$c.gdb") >/dev/null; then
			not_ok "[$c] modsect gdb $m differs from its line in gdb --all"
		fi
		mapfile -t wx < <(where_ex "$W/sym/$m.exp")
		timeout "$GDB_TIMEOUT" "$GDB" -nx -batch -ex "set architecture $GDB_ARCH" -x "$W/$c-$m.gdb" \
			-x "$VM_DIR/symdump.py" "${wx[@]}" -ex "python ms_addr('$W/sym/$m.exp', 'SYM')" \
			>"$W/offline-$c-$m.out" 2>&1 </dev/null
		compare_addrs "[$c] gdb offline: $m" "$W/sym/$m.exp" "$W/offline-$c-$m.out" SYM RSYM
		timeout "$GDB_TIMEOUT" "$GDB" -nx -batch -x "$W/$c-$m.gdb" \
			-x "$VM_DIR/symdump.py" -ex "python ms_where('$W/sym/$m.exp', 'RSYM')" \
			-ex "python ms_addr('$W/sym/$m.exp', 'SYM')" \
			>"$W/fresh-$c-$m.out" 2>&1 </dev/null
		# The script sets the architecture itself (a fresh gdb is i386).
		compare_where "[$c] fresh gdb (the script alone): $m" "$m" "$W/sym/$m.exp" "$W/fresh-$c-$m.out" RSYM
		compare_addrs "[$c] fresh gdb (the script alone): $m" "$W/sym/$m.exp" "$W/fresh-$c-$m.out" SYM RSYM
	done
done
# All modules at once, offline, from the --all script.
mapfile -t wx < <(where_ex "$W/sym/all.uexp")
"$GDB" -nx -batch -ex "set architecture $GDB_ARCH" -x "$W/static.gdb" -x "$VM_DIR/symdump.py" \
	"${wx[@]}" -ex "python ms_addr('$W/sym/all.uexp', 'SYM')" -ex 'info symbol 0x10' \
	>"$W/offline-all.out" 2>&1 </dev/null
compare_addrs "[static] gdb offline, --all script" "$W/sym/all.uexp" "$W/offline-all.out" SYM RSYM
if tail -n1 "$W/offline-all.out" | grep -qx 'No symbol matches 0x10.'; then
	ok "[static] gdb offline, --all script: info symbol 0x10 names no symbol"
else
	not_ok "[static] gdb offline, --all script: info symbol 0x10 says: $(tail -n1 "$W/offline-all.out")"
fi

# --- 5. modsect sections / list -------------------------------------------------------
# A live module's .init.text: freed, but loaded where the loader frees no
# init section (ppc64le: lib/module/layout.c ms_section_is_init).
INIT_STATE=freed
[ -z "$(vm_init_kept)" ] || INIT_STATE=loaded
if ms sections-static sections --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" modsect_test; then
	o=$W/sections-static.out
	text=$(awk '$1 == "modsect_test" && $2 == ".text" { print $3 }' "$VM_RUN/sections.txt")
	if awk -v st="$INIT_STATE" '$1 == ".init.text" && $NF == st { f = 1 } END { exit !f }' "$o"; then
		ok "sections modsect_test: .init.text $INIT_STATE"
	else
		not_ok "sections modsect_test: .init.text not listed as $INIT_STATE"
		detail <"$o"
	fi
	if awk -v t="$text" '$1 == ".text" && $2 == t && $NF == "loaded" { f = 1 } END { exit !f }' "$o"; then
		ok "sections modsect_test: .text $text loaded"
	else
		not_ok "sections modsect_test: .text not at $text / not loaded"
	fi
	if [ -z "$PCPU_KALL" ]; then
		if awk '$1 == ".data..percpu" && $NF == "not-loaded" { f = 1 } END { exit !f }' "$o"; then
			ok "sections modsect_test: .data..percpu not-loaded (kallsyms gives no per-cpu base on $VM_PROFILE)"
		else
			not_ok "sections modsect_test: .data..percpu not shown as not-loaded (kallsyms has no modsect_test_pcpu)"
			detail <"$o"
		fi
	elif awk '$1 == ".data..percpu" && $NF == "percpu" { f = 1 } END { exit !f }' "$o"; then
		ok "sections modsect_test: .data..percpu is percpu"
	else
		not_ok "sections modsect_test: .data..percpu not shown as percpu"
	fi
	if grep -qE '^verified: +build-id' "$o" && grep -qE '^module: +modsect_test \(live\)' "$o"; then
		ok "sections modsect_test: live, verified: build-id"
	else
		not_ok "sections modsect_test: header lacks 'live' / 'verified: build-id'"
		head -n 3 "$o" | detail
	fi
else
	not_ok "modsect sections --capture static modsect_test failed"
	detail <"$W/sections-static.err"
fi
pcpu_kall=$PCPU_KALL
pcpu_want="percpu 0x$pcpu_kall"
[ -n "$pcpu_kall" ] || pcpu_want="not-loaded "
if ms sections-json sections --json --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" modsect_test &&
	command -v jq >/dev/null 2>&1; then
	got=$(jq -r '[.verified, (.sections[] | select(.name == ".init.text") | .state),
		(.sections[] | select(.name == ".data..percpu") | .state, .address)] | join(" ")' \
		"$W/sections-json.out" 2>&1)
	if [ "$got" = "build-id $INIT_STATE $pcpu_want" ]; then
		ok "sections --json: build-id, .init.text $INIT_STATE, .data..percpu ${pcpu_kall:+at 0x$pcpu_kall}${pcpu_kall:-not-loaded, no address}"
	else
		not_ok "sections --json: '$got', want 'build-id $INIT_STATE $pcpu_want'"
	fi
fi
for c in static shloop; do
	F=$(cap_file "$c")
	if ms "list-$c" list --capture "$F" "${VM_MODDIR_ARGS[@]}" --search "$TD"; then
		want=build-id
		[ "$c" = static ] || want=unverified
		n=0
		for m in $MODS; do
			wf=$(awk -v m="$m" '$1 == m { print $3 }' "$W/modules")
			read -r _ _ _ gv _ gf <<<"$(awk -v m="$m" '$1 == m' "$W/list-$c.out")"
			if [ "${gv:-}" = "$want" ] && [ "$(readlink -f "${gf:-/nonexistent}")" = "$wf" ]; then
				n=$((n + 1))
			else
				not_ok "[$c] list: $m: '${gv:-}' '${gf:-}', want $want $wf"
			fi
		done
		nl=$(awk 'NR > 1' "$W/list-$c.out" | wc -l)
		if [ "$n" = "$(wc -l <"$W/modules")" ] && [ "$nl" = "$n" ]; then
			ok "[$c] list: all $n modules $want, right files"
		else
			not_ok "[$c] list: $n of $nl lines right"
			detail <"$W/list-$c.out"
		fi
	else
		not_ok "[$c] modsect list --capture failed"
		detail <"$W/list-$c.err"
	fi
done
if ms list-json list --json --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$TD" && command -v jq >/dev/null 2>&1; then
	got=$(jq -r '.[] | "\(.name) \(.verified)"' "$W/list-json.out" 2>&1 | sort | tr '\n' ' ')
	want=$(for m in $MODS; do echo "$m build-id"; done | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		ok "list --json: every module verified by build-id"
	else
		not_ok "list --json: '$got', want '$want'"
	fi
fi


# --- more: other files, --init, --moddir ------------------------------------------------
asf() { grep '^add-symbol-file ' "$1" | cut -d' ' -f3-; }
if ms gdb-stripped gdb --capture "$CAP_static" modsect_test "$VM_TESTMOD_KO_STRIPPED" &&
	grep -q '^# verified: build-id' "$W/gdb-stripped.out" &&
	[ "$(asf "$W/gdb-stripped.out")" = "$(asf "$W/static-modsect_test.gdb")" ]; then
	ok "gdb modsect_test FILE with the stripped file (same build-id): verified, same addresses"
else
	not_ok "gdb modsect_test FILE with the stripped file: not verified or other addresses"
	cat "$W/gdb-stripped.err" "$W/gdb-stripped.out" | detail
fi
isofs_file=$(mod_file isofs)
rc=0
ms gdb-wrongfile gdb --capture "$CAP_static" modsect_test "$isofs_file" || rc=$?
if [ "$rc" = 3 ] && [ ! -s "$W/gdb-wrongfile.out" ]; then
	ok "gdb modsect_test with isofs.ko as FILE: refused (exit 3: $(head -n1 "$W/gdb-wrongfile.err"))"
else
	not_ok "gdb modsect_test with isofs.ko as FILE: exit $rc, want 3 and no output"
fi
init_addr=$(awk '$1 == "modsect_test" && $2 == ".init.text" { print $3 }' "$VM_RUN/sections.txt")
if ms gdb-init gdb --init --capture "$CAP_static" --search "$TD" modsect_test &&
	grep -q -- "-s .init.text $init_addr " "$W/gdb-init.out"; then
	ok "gdb --init keeps .init.text at its stale address $init_addr"
else
	not_ok "gdb --init: .init.text is not at $init_addr"
	grep '^add-symbol-file' "$W/gdb-init.out" | tr ' ' '\n' | grep -A1 -x -- .init.text | detail
fi
# The sh loop without its "release" line: stock modules need --moddir.
grep -v '^release ' "$CAP_shloop" >"$W/norelease.txt"
rc=0
ms gdb-norel gdb --capture "$W/norelease.txt" --search "$TD" isofs || rc=$?
if [ "$rc" = 1 ]; then
	ok "gdb isofs from a capture without release, no --moddir: not found (exit 1)"
else
	not_ok "gdb isofs from a capture without release, no --moddir: exit $rc, want 1"
fi
if ms gdb-moddir gdb --all --capture "$W/norelease.txt" --moddir "$VM_MODDIR" --search "$TD" &&
	[ "$(asf "$W/gdb-moddir.out")" = "$(asf "$W/shloop.gdb")" ]; then
	ok "gdb --all --moddir $VM_MODDIR on a capture without release: same commands"
else
	not_ok "gdb --all --moddir on a capture without release: other commands"
	detail <"$W/gdb-moddir.err"
fi
