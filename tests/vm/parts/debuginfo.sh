# shellcheck shell=bash
# tests/vm/parts/debuginfo.sh - sourced by tests/vm/test.sh (section 6).
#
# Proves modsect finds the DWARF of a module whose file has none: the guest
# loaded the STRIPPED test module; on the host, `modsect debuginfo` finds
# its debug file in a --debug-dir (by build-id, by module path, in Debian's
# -dbg layout), skips one of another build saying why, and gets it from a
# real debuginfod on 127.0.0.1; each verified against the build-id of the
# guest's notes/; none with --offline and no debug info (and then gdb has
# no lines nor types: the control).  The gdb script names the debug file
# with the map's addresses; gdb attached to the guest with it stops at
# modsect_test_poke with its source file and line, lists the source, has
# types.
#
# Uses boot.sh's $SD (the stripped module alone), $DD/$DD_FILE, GUEST_ID,
# ID, KREL, compare_addrs/compare_where, capture-gdb.sh's $W/static.gdb,
# and test.sh's DFD_PID/dfd_stop (stopped at exit) and bp_continue.

# di_check LABEL NAME WANT_RC WANT_SOURCE WANT_FILE ARGS...: `modsect
# debuginfo ARGS` exits WANT_RC and its modsect_test row has the guest's
# build-id, source WANT_SOURCE, verified build-id (- without debug info)
# and file WANT_FILE.
di_check() {
	local label=$1 name=$2 wrc=$3 wsrc=$4 wfile=$5 rc=0 wver=build-id gid gsrc gver gfile
	shift 5
	[ "$wsrc" = - ] && wver=-
	ms "$name" debuginfo "$@" || rc=$?
	read -r _ gid gsrc gver gfile <<<"$(awk '$1 == "modsect_test"' "$W/$name.out")"
	if [ "$rc" = "$wrc" ] && [ -n "$GUEST_ID" ] && [ "${gid:-}" = "$GUEST_ID" ] &&
		[ "${gsrc:-}" = "$wsrc" ] && [ "${gver:-}" = "$wver" ] && [ "${gfile:-}" = "$wfile" ]; then
		ok "debuginfo $label: exit $rc, build-id $gid (== guest notes/), source $gsrc, verified $gver, ${gfile#"$DI/"}"
	else
		not_ok "debuginfo $label: exit $rc, '${gid:-}' '${gsrc:-}' '${gver:-}' '${gfile:-}'; want exit $wrc, $ID $wsrc $wver $wfile"
		cat "$W/$name.out" "$W/$name.err" | detail
	fi
}

# (a) --debug-dir laid out by build-id (boot.sh made it).
di_check "--debug-dir DD (.build-id/xx/rest.debug)" di-build-id 0 debug-dir "$DD_FILE" \
	--capture "$CAP_static" --search "$SD" --debug-dir "$DD" modsect_test
if ms di-build-id-json debuginfo --json --capture "$CAP_static" --search "$SD" --debug-dir "$DD" modsect_test &&
	command -v jq >/dev/null 2>&1; then
	got=$(jq -r '.[] | select(.module == "modsect_test") | "\(.build_id) \(.source) \(.verified) \(.file)"' \
		"$W/di-build-id-json.out" 2>&1)
	if [ "$got" = "$ID debug-dir build-id $DD_FILE" ]; then
		ok "debuginfo --json: build_id, source debug-dir, verified build-id, file"
	else
		not_ok "debuginfo --json: '$got', want '$ID debug-dir build-id $DD_FILE'"
	fi
fi

# (b) --debug-dir laid out by module path.  A module found by --search has
# its file name as path; one from a module directory (--moddir, laid out as
# the guest's /lib/modules/REL with extra/) has extra/modsect_test.ko.
DD2=$DI/dd-name
mkdir -p "$DD2"
cp "$VM_TESTMOD_DEBUG" "$DD2/modsect_test.ko.debug"
di_check "--search, --debug-dir DD2 (DD2/modsect_test.ko.debug)" di-name 0 debug-dir "$DD2/modsect_test.ko.debug" \
	--capture "$CAP_static" --search "$SD" --debug-dir "$DD2" modsect_test
MD=$DI/root/lib/modules/$KREL
mkdir -p "$MD/extra"
cp "$VM_TESTMOD_KO_STRIPPED" "$MD/extra/modsect_test.ko"
depmod -b "$DI/root" "$KREL" 2>/dev/null || not_ok "depmod -b $DI/root failed"
DD3=$DI/dd-tree
mkdir -p "$DD3/lib/modules/$KREL/extra"
cp "$VM_TESTMOD_DEBUG" "$DD3/lib/modules/$KREL/extra/modsect_test.ko"
di_check "--moddir, --debug-dir DD3 (DD3/lib/modules/REL/extra/modsect_test.ko, Debian's -dbg layout)" di-tree 0 debug-dir \
	"$DD3/lib/modules/$KREL/extra/modsect_test.ko" \
	--capture "$CAP_static" --moddir "$MD" --debug-dir "$DD3" modsect_test
DD4=$DI/dd-rel
mkdir -p "$DD4/extra"
cp "$VM_TESTMOD_DEBUG" "$DD4/extra/modsect_test.ko.debug"
di_check "--moddir, --debug-dir DD4 (DD4/extra/modsect_test.ko.debug)" di-rel 0 debug-dir "$DD4/extra/modsect_test.ko.debug" \
	--capture "$CAP_static" --moddir "$MD" --debug-dir "$DD4" modsect_test

# A debug file of another build (the build-id note rewritten) where the
# build-id says it should be: skipped with its reason, the next dir wins.
BADD=$DI/dd-other-build
BAD_FILE=$BADD/.build-id/${ID:0:2}/${ID:2}.debug
BAD_ID=0123456789abcdef0123456789abcdef01234567
mkdir -p "${BAD_FILE%/*}"
# shellcheck disable=SC2059
printf "$(sed 's/../\\x&/g' <<<"040000001400000003000000474e5500$BAD_ID")" >"$DI/other-build-id.note"
if "${VM_CROSS}objcopy" --update-section ".note.gnu.build-id=$DI/other-build-id.note" "$VM_TESTMOD_DEBUG" "$BAD_FILE" &&
	[ "$(vm_build_id "$BAD_FILE")" = "$BAD_ID" ]; then
	di_check "--debug-dir BAD (other build) --debug-dir DD" di-skip 0 debug-dir "$DD_FILE" \
		--capture "$CAP_static" --search "$SD" --debug-dir "$BADD" --debug-dir "$DD" modsect_test
	if ms sections-skip sections --capture "$CAP_static" --search "$SD" --debug-dir "$BADD" --debug-dir "$DD" modsect_test &&
		grep -qF "skipped:  $BAD_FILE: " "$W/sections-skip.out" && grep -qF "$BAD_ID" "$W/sections-skip.out" &&
		grep -qE "^debug: +$DD_FILE \(debug-dir, build-id\)" "$W/sections-skip.out"; then
		ok "sections: debug: $(grep -oE '\.build-id/[^ ]+ \(debug-dir, build-id\)' "$W/sections-skip.out"); skipped: the other build ($BAD_ID)"
	else
		not_ok "sections: no 'skipped:' line for $BAD_FILE, or debug: not from $DD"
		sed -n '1,/^SECTION/p' "$W/sections-skip.out" | detail
	fi
	command -v jq >/dev/null 2>&1 || echo "skip: --json checks (no jq)"
	for what in debuginfo sections; do
		command -v jq >/dev/null 2>&1 || break
		ms "$what-skip-json" "$what" --json --capture "$CAP_static" --search "$SD" --debug-dir "$BADD" \
			--debug-dir "$DD" modsect_test || true
		got=$(jq -r '[if type == "array" then .[] else . end | select(.module == "modsect_test")][0] |
			"\(.source // .debug_source) \(if .source then .file else .debug_file end) \([(.skipped // .debug_skipped)[]? | .file] | join(","))"' "$W/$what-skip-json.out" 2>&1)
		if [ "$got" = "debug-dir $DD_FILE $BAD_FILE" ]; then
			ok "$what --json: debug_source debug-dir, debug_file from DD, debug_skipped names the other build"
		else
			not_ok "$what --json: '$got', want 'debug-dir $DD_FILE $BAD_FILE' (README: debug_skipped in JSON)"
		fi
	done
else
	not_ok "could not make a debug file with another build-id (objcopy --update-section)"
fi

# (d) no debug info at all: the stripped file only, --offline.
di_check "stripped only, --offline" di-none 1 - - --capture "$CAP_static" --search "$SD" --offline modsect_test
rc=0
ms gdb-none gdb --capture "$CAP_static" --search "$SD" --offline modsect_test -o "$DI/none.gdb" || rc=$?
if [ "$rc" = 0 ] && grep -q '^# debug info: none found' "$DI/none.gdb" &&
	vm_dbgfile_ok "$(awk '/^add-symbol-file / { print $2 }' "$DI/none.gdb")" "$SD/modsect_test.ko"; then
	ok "gdb, stripped only, --offline: '$(grep '^# debug info:' "$DI/none.gdb")', add-symbol-file the stripped file$(case $VM_DBGFILE in *" itself") ;; *) echo ": $VM_DBGFILE" ;; esac)"
else
	not_ok "gdb, stripped only, --offline: exit $rc, want '# debug info: none found' and the stripped file (or its debugger copy): ${VM_DBGFILE:-}"
	cat "$DI/none.gdb" "$W/gdb-none.err" | detail
fi
# ... and then gdb has symbols but neither lines nor types (the control for
# the source lines below).
timeout "$GDB_TIMEOUT" "$GDB" -nx -batch -x "$DI/none.gdb" -ex 'info line modsect_test_poke' \
	-ex 'ptype modsect_test_table' >"$DI/none-gdb.out" 2>&1 </dev/null
if grep -q '^No line number information available for address 0x[0-9a-f]* <modsect_test_poke>' "$DI/none-gdb.out" &&
	grep -q 'no debug info' "$DI/none-gdb.out"; then
	ok "gdb with the stripped module alone: no line number information, no types"
else
	not_ok "gdb with the stripped module alone shows lines or types (should have none)"
	detail <"$DI/none-gdb.out"
fi

# The gdb script: the debug file for modsect_test, the addresses of the map.
asf_mod() { awk -v m="$2" '/^# [A-Za-z0-9_]+ \(/ { cur = $2 } /^add-symbol-file / && cur == m' "$1"; }
check_dbg_script() {
	local label=$1 script=$2 dfile=$3 src=$4 m fine=1
	if ! grep -qxF "# debug info: $dfile ($src, verified by build-id)" "$script"; then
		not_ok "$label: no '# debug info: $dfile ($src, verified by build-id)'"
		grep '^# debug info' "$script" | detail
		return
	fi
	# The debug file, or gdb's copy of it (sections not at 0 on 6.12).
	if ! vm_dbgfile_ok "$(asf_mod "$script" modsect_test | cut -d' ' -f2)" "$dfile" ||
		[ "$(asf_mod "$script" modsect_test | cut -d' ' -f3-)" != "$(asf_mod "$W/static.gdb" modsect_test | cut -d' ' -f3-)" ]; then
		not_ok "$label: modsect_test's add-symbol-file is not '$dfile' (or its debugger copy) with the addresses of the static capture's script: $VM_DBGFILE"
		diff <(asf_mod "$W/static.gdb" modsect_test | tr ' ' '\n') <(asf_mod "$script" modsect_test | tr ' ' '\n') | detail
		return
	fi
	for m in $MODS; do
		[ "$m" = modsect_test ] && continue
		[ "$(asf_mod "$script" "$m")" = "$(asf_mod "$W/static.gdb" "$m")" ] || fine=
	done
	if [ -n "$fine" ]; then
		ok "$label: add-symbol-file ${dfile#"$DI/"}$(case $VM_DBGFILE in *" itself") ;; *) echo " ($VM_DBGFILE)" ;; esac) + the map's addresses; other modules as before"
	else
		not_ok "$label: the other modules' add-symbol-file lines differ from the static capture's script"
	fi
}
rc=0
ms gdb-dd gdb --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$SD" --debug-dir "$DD" -o "$DI/dd.gdb" || rc=$?
if [ "$rc" = 0 ]; then
	check_dbg_script "gdb --all --search STRIPPED --debug-dir DD" "$DI/dd.gdb" "$DD_FILE" debug-dir
else
	not_ok "gdb --all --search STRIPPED --debug-dir DD: exit $rc"
	detail <"$W/gdb-dd.err"
fi

# (c) a real debuginfod on 127.0.0.1 serving the --only-keep-debug file.
DFD=$DI/debuginfod
DFD_URL=
if ! (vm_need_pkgs debuginfod:debuginfod curl:curl) >/dev/null 2>&1; then
	not_ok "debuginfod or curl missing (apt-get install -y debuginfod curl)"
else
	mkdir -p "$DFD/files"
	cp "$VM_TESTMOD_DEBUG" "$DFD/files/modsect_test.ko.debug"
	t1=$(date +%s)
	for try in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		[ "$port" != "$VM_GDB_PORT" ] && vm_port_free "$port" || continue
		rm -f "$DFD"/db.sqlite*
		debuginfod -F -p "$port" -d "$DFD/db.sqlite" "$DFD/files" >"$DFD/log.$try" 2>&1 </dev/null &
		DFD_PID=$!
		# Up when it serves the build-id (its first scan is done).
		code=
		for _ in $(seq 1 100); do
			kill -0 "$DFD_PID" 2>/dev/null || break
			code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
				"http://127.0.0.1:$port/buildid/$ID/debuginfo" 2>/dev/null) || true
			[ "$code" = 200 ] && break
			sleep 0.2
		done
		if [ "$code" = 200 ]; then
			DFD_URL=http://127.0.0.1:$port
			break
		fi
		dfd_stop
	done
	if [ -n "$DFD_URL" ]; then
		ok "debuginfod -F on $DFD_URL serves /buildid/$ID/debuginfo after $(($(date +%s) - t1))s"
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache \
			di_check "DEBUGINFOD_URLS=$DFD_URL (no --offline)" di-dfd 0 debuginfod "$DFD/cache/$ID/debuginfo" \
			--capture "$CAP_static" --search "$SD" modsect_test
		if cmp -s "$DFD/cache/$ID/debuginfo" "$VM_TESTMOD_DEBUG" &&
			grep -qE "UA:elfutils.* GET /buildid/$ID/debuginfo 200 " "$DFD/log.$try"; then
			ok "debuginfod: modsect's request is in the server's log; the cached file is the --only-keep-debug file"
		else
			not_ok "debuginfod: no request from libdebuginfod in the server log, or the cached file differs"
			grep 'GET ' "$DFD/log.$try" | detail
		fi
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache-offline \
			di_check "DEBUGINFOD_URLS set, --offline" di-dfd-offline 1 - - \
			--capture "$CAP_static" --search "$SD" --offline modsect_test
		if [ -n "$(ls -A "$DFD/cache-offline" 2>/dev/null)" ]; then
			not_ok "debuginfo --offline wrote to the debuginfod cache"
		fi
		# Every module: only modsect_test is on the server.
		t2=$(date +%s)
		rc=0
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache-all \
			ms di-dfd-all debuginfo --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$SD" || rc=$?
		nnone=$(awk 'NR > 1 && $1 != "modsect_test" && $3 == "-"' "$W/di-dfd-all.out" | wc -l)
		if [ "$rc" = 1 ] && [ "$nnone" = $(($(wc -l <"$W/modules") - 1)) ] &&
			awk '$1 == "modsect_test" && $3 == "debuginfod" && $4 == "build-id" { f = 1 } END { exit !f }' "$W/di-dfd-all.out"; then
			ok "debuginfo --all with debuginfod: exit 1, modsect_test from debuginfod, the $nnone stock modules '-' ($(($(date +%s) - t2))s)"
		else
			not_ok "debuginfo --all with debuginfod: exit $rc"
			cat "$W/di-dfd-all.out" "$W/di-dfd-all.err" | detail
		fi
		rc=0
		DEBUGINFOD_URLS=$DFD_URL DEBUGINFOD_TIMEOUT=20 DEBUGINFOD_CACHE_PATH=$DFD/cache \
			ms gdb-dfd gdb --all --capture "$CAP_static" "${VM_MODDIR_ARGS[@]}" --search "$SD" -o "$DI/dfd.gdb" || rc=$?
		if [ "$rc" = 0 ]; then
			check_dbg_script "gdb --all --search STRIPPED with debuginfod" "$DI/dfd.gdb" "$DFD/cache/$ID/debuginfo" debuginfod
		else
			not_ok "gdb --all --search STRIPPED with debuginfod: exit $rc"
			detail <"$W/gdb-dfd.err"
		fi
	else
		not_ok "debuginfod did not serve /buildid/$ID/debuginfo within 20 s"
		tail -n 20 "$DFD"/log.* | detail
	fi
	dfd_stop
fi

# (3) gdb attached to the guest with a script that names a separate debug
# file: a breakpoint in the module stops with its source file and line.
# live_src LABEL SCRIPT POKE
live_src() {
	local label=$1 script=$2 poke=$3 o want_data=24263 v line path text ack rc=0
	o=$DI/live-$poke
	for v in $(sed -n 's/^==MODSECT-ACK [0-9]* poke \([0-9-]*\) rc=0==$/\1/p' "$VM_RUN/serial1.log"); do
		want_data=$v
	done
	{
		echo "set pagination off"
		echo "set confirm off"
		echo "set width 0"
		echo "target remote 127.0.0.1:$VM_GDB_PORT"
		echo "source $script"
		echo "source $VM_DIR/symdump.py"
		# Names also defined in other modules (__this_module, ...) are
		# ambiguous in a gdb that holds every module: .uexp has the rest.
		echo "python ms_addr('$W/sym/modsect_test.uexp', 'SYM')"
		echo "python ms_where('$W/sym/modsect_test.exp', 'RSYM')"
		echo "echo ==INFO-LINE==\\n"
		echo "info line modsect_test_poke"
		echo "echo ==PTYPE==\\n"
		echo "ptype modsect_test_table"
		echo "echo ==END==\\n"
		echo "break modsect_test_poke"
		echo "shell printf 'poke $poke\\n' > $VM_RUN/trigger.in"
		bp_continue
		echo "echo ==LIST==\\n"
		echo "list"
		echo "echo ==END==\\n"
		echo "python ms_eval('VALUE', 'value')"
		echo "python ms_eval('DATA', 'modsect_test_data')"
		echo "delete"
		echo "detach"
	} >"$o.gdb"
	ack=$(($(grep -c '^==MODSECT-ACK ' "$VM_RUN/serial1.log" || true) + 1))
	timeout "$GDB_TIMEOUT" "$GDB" -q -nx -batch -x "$o.gdb" >"$o.out" 2>&1 </dev/null || rc=$?
	[ "$rc" = 0 ] || not_ok "$label: gdb exit status $rc (124: timeout after ${GDB_TIMEOUT}s)"
	compare_addrs "$label: modsect_test" "$W/sym/modsect_test.uexp" "$o.out" SYM RSYM
	compare_where "$label: modsect_test" modsect_test "$W/sym/modsect_test.exp" "$o.out" RSYM
	# "Breakpoint 1, modsect_test_poke (value=N) at PATH:LINE", then
	# "LINE<tab>text"; on ppc64le "Breakpoint 1, 0xADDR in modsect_test_poke"
	# (gdb stops at the ELFv2 local entry, inside the first line's code).
	read -r path line <<<"$(sed -nE "s/^$BP_RE, (0x[0-9a-f]+ in )?modsect_test_poke \(value=$poke\) at (.*\/modsect_test\.c):([0-9]+)$/\2 \3/p" "$o.out" | head -n1)"
	if [ -n "${line:-}" ] && [ -r "$path" ]; then
		text=$(sed -n "${line}p" "$path")
		if grep -qxF "$line	$text" "$o.out" && [ -n "$text" ]; then
			ok "$label: Breakpoint 1, modsect_test_poke (value=$poke) at ${path##*/}:$line, source line shown: '$text'"
		else
			not_ok "$label: breakpoint at ${path##*/}:$line but gdb did not show its source line '$text'"
			grep -A2 -E "^$BP_RE," "$o.out" | detail
		fi
	else
		not_ok "$label: no 'Breakpoint 1, modsect_test_poke (value=$poke) at .../modsect_test.c:LINE' (with a readable source file)"
		tail -n 20 "$o.out" | detail
	fi
	if sed -n '/^==LIST==$/,/^==END==$/p' "$o.out" | grep -qF "noinline int modsect_test_poke(int value)" &&
		[ -n "${line:-}" ] && sed -n '/^==LIST==$/,/^==END==$/p' "$o.out" | grep -qxF "$line	$text"; then
		ok "$label: list shows modsect_test.c around line $line ('noinline int modsect_test_poke(int value)')"
	else
		not_ok "$label: list does not show the source of modsect_test_poke"
		sed -n '/^==LIST==$/,/^==END==$/p' "$o.out" | detail
	fi
	# arm64: the first line starts at the DWARF entry, gdb's &modsect_test_poke,
	# if info symbol of the kallsyms address names the function (patchable NOPs).
	local lpoke=$POKE_ADDR
	if [ "$VM_ARCH" = aarch64 ] && grep -q "^RSYM $POKE_ADDR modsect_test_poke in section " "$o.out"; then
		lpoke=$(awk '$1 == "SYM" && $2 == "modsect_test_poke" { print $3 }' "$o.out")
	fi
	if grep -qE "^Line [0-9]+ of \".*modsect_test\.c\" starts at address 0x0*${lpoke#"${lpoke%%[!0]*}"} <modsect_test_poke>" "$o.out" &&
		sed -n '/^==PTYPE==$/,/^==END==$/p' "$o.out" | grep -qx 'type = const unsigned int \[8\]'; then
		ok "$label: info line modsect_test_poke starts at the kallsyms address 0x$POKE_ADDR$([ "$lpoke" = "$POKE_ADDR" ] || echo " (its DWARF entry 0x$lpoke, after the patchable NOPs)"); ptype modsect_test_table from DWARF"
	else
		not_ok "$label: info line / ptype wrong (want a line of modsect_test.c at 0x$POKE_ADDR, const unsigned int [8])"
		sed -n '/^==INFO-LINE==$/,/^==END==$/p' "$o.out" | detail
	fi
	if [ "$(awk '$1 == "VALUE" { print $2 }' "$o.out")" = "$poke" ] &&
		[ "$(awk '$1 == "DATA" { print $2 }' "$o.out")" = "$want_data" ]; then
		ok "$label: at the breakpoint value = $poke, modsect_test_data = $want_data"
	else
		not_ok "$label: at the breakpoint $(grep -E '^(VALUE|DATA)' "$o.out" | tr '\n' ' '), want value $poke, data $want_data"
	fi
	if vm_wait_for "^==MODSECT-ACK $ack poke $poke rc=0==\$" 60; then
		ok "$label: guest completed poke $poke after gdb detached"
	else
		not_ok "$label: guest did not acknowledge poke $poke"
		vm_resume || true
	fi
}
if [ -s "$DI/dd.gdb" ]; then
	live_src "gdb live, --debug-dir" "$DI/dd.gdb" 7
fi
if [ -s "$DI/dfd.gdb" ]; then
	live_src "gdb live, debuginfod" "$DI/dfd.gdb" 9
fi
