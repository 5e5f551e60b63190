#!/bin/bash
# Debug info from a real debuginfod (tests/debuginfod-server.sh, on
# 127.0.0.1, indexing a directory with the separate debug file): found by
# build-id into DEBUGINFOD_CACHE_PATH and verified; served from the cache
# once the server is stopped; a dead or silent server gives exit 1 within
# DEBUGINFOD_TIMEOUT-ish bounded time; --offline never asks; the earlier
# sources win over debuginfod; a cached file of another build is skipped.
. "$(dirname "$0")/lib.sh"
need gcc ld depmod objcopy strip eu-readelf python3 curl debuginfod gdb || finish
std_fixture || bail "fixture"
S=$T/strip/testmod.ko
DBG=$T/srv/testmod.ko.debug
split_debug "$KO" "$S" "$DBG" || bail "split_debug"
install_mod "$R" "$S" drivers/misc/testmod.ko || bail "install stripped"
MODPATH=$R/lib/modules/$REL/kernel/drivers/misc/testmod.ko
CACHE=$T/cache
LN=$(grep -n '^int testmod_func(' "$T/mod/testmod.c" | cut -d: -f1)
FUNC=$(hexadd $A_TEXT "$(symval "$KO" testmod_func)")

# The server runs in the background for at most 90 s whatever happens
# (its own bound), and _cleanup stops it on any exit of this script.
SRV=
start_server() {
	local i
	"$TESTS_DIR/debuginfod-server.sh" -b "$BUILD_ID" -l 90 "$T/srv" "$T/dstate" \
		>"$T/url" 2>"$T/server.err" </dev/null &
	SRV=$!
	_bg_pids="${_bg_pids-} $SRV"
	for i in $(seq 150); do
		[ -s "$T/url" ] && break
		kill -0 "$SRV" 2>/dev/null || break
		sleep 0.2
	done
	URL=$(head -1 "$T/url")
	DPID=$(cat "$T/dstate/pid" 2>/dev/null)
	[[ $URL =~ ^http://127\.0\.0\.1:[0-9]+$ ]]
}
stop_server() {
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	SRV=
}
# requests: the server's count of requests other than /metrics.
requests() {
	curl -s -m 5 "$URL/metrics" | awk '/^http_requests_total\{/ && !/type="metrics"/ { n += $2 } END { print n + 0 }'
}
# msd ARGS...: modsect with the server (or DEBUGINFOD_URLS as set by the
# caller through U) and the cache.
msd() {
	DEBUGINFOD_URLS=${U-$URL} DEBUGINFOD_CACHE_PATH=$CACHE ms "$@"
}
# field N: column N of testmod's row in the debuginfo table in $T/out.
field() {
	awk -v n="$1" '$1 == "testmod" { print $n }' "$T/out"
}

t0=$(date +%s)
if start_server; then
	ok "debuginfod-server.sh: server up at $URL and serving the build-id"
else
	not_ok "debuginfod-server.sh: server up and serving the build-id" "url: '$URL'" "$(cat "$T/server.err")"
	stop_server
	finish
fi
check "debuginfod: the server process runs" kill -0 "$DPID"

# ---- found through debuginfod, into the cache ---------------------------------
msd debuginfo --root "$R" testmod
check_rc "debuginfod: exit 0" 0
check_eq "debuginfod: source debuginfod, verified by build-id" "$BUILD_ID debuginfod build-id" \
	"$(field 2) $(field 3) $(field 4)"
F=$(field 5)
check "debuginfod: the file is under DEBUGINFOD_CACHE_PATH ($F)" eval '[[ $F == "$CACHE"/* ]]'
check_eq "debuginfod: the cached file is the debug file" "$(sha256sum <"$DBG")" "$(sha256sum <"$F" 2>&1)"
msd debuginfo --root "$R" --json testmod
check "debuginfod --json: valid JSON" python3 -m json.tool "$T/out" /dev/null
check_eq "debuginfod --json: source, verified, file" "debuginfod build-id $F" \
	"$(jq_py "$T/out" '" ".join(str(j[0].get(k)) for k in ("source", "verified", "file"))')"
msd gdb --root "$R" -o "$T/s.gdb" testmod
check_rc "debuginfod: gdb exit 0" 0
check_grep "debuginfod: gdb header names the cached file" "^# debug info: $F \\(debuginfod[,)]" "$T/s.gdb"
check_grep "debuginfod: add-symbol-file loads the cached file" "^add-symbol-file $F $A_TEXT " "$T/s.gdb"
gdb_eval "$T/s.gdb" 'info line testmod_func'
check_grep "debuginfod: gdb resolves testmod_func to testmod.c:$LN" \
	"^Line $LN of \"$T/mod/testmod.c\" starts at address $FUNC <testmod_func>" "$T/gdb.out"
msd list --root "$R"
check_grep "debuginfod: list DEBUG column" "^testmod +live +$A_TEXT +build-id +debuginfod +" "$T/out"

# ---- earlier sources win; --offline never asks -------------------------------
n0=$(requests)
CACHE=$T/cache-offline msd debuginfo --root "$R" --offline testmod
check_rc "--offline, server running, empty cache: exit 1" 1
check_eq "--offline: source -" "- -" "$(field 3) $(field 5)"
check_eq "--offline: the server got no request" "$n0" "$(requests)"
check "--offline: nothing cached" [ ! -e "$T/cache-offline/$BUILD_ID" ]
for c in gdb sections list; do
	a=testmod
	[ $c = list ] && a=
	CACHE=$T/cache-offline msd $c --root "$R" --offline $a
	check_rc "$c --offline: exit 0" 0
done
check_eq "gdb/sections/list --offline: the server got no request" "$n0" "$(requests)"
check "metrics: the server counts build-id requests" [ "$n0" -gt 0 ]

put "$DBG" "$T/dd/$(buildid_path "$BUILD_ID")"
CACHE=$T/cache-dd msd debuginfo --root "$R" --debug-dir "$T/dd" testmod
check_eq "debug-dir before debuginfod" "debug-dir $T/dd/$(buildid_path "$BUILD_ID")" "$(field 3) $(field 5)"
install_mod "$R" "$KO" drivers/misc/testmod.ko
CACHE=$T/cache-mod msd debuginfo --root "$R" testmod
check_eq "module's own DWARF before debuginfod" "module $MODPATH" "$(field 3) $(field 5)"
check_eq "debug-dir and module found: the server was not asked" "$n0" "$(requests)"
install_mod "$R" "$S" drivers/misc/testmod.ko

# ---- server stopped: the cache serves ---------------------------------------
stop_server
if kill -0 "$DPID" 2>/dev/null; then
	not_ok "debuginfod-server.sh: debuginfod stopped when the script is stopped" "pid $DPID still runs"
else
	ok "debuginfod-server.sh: debuginfod stopped when the script is stopped"
fi
check "server stopped: its port refuses connections" eval '! curl -s -m 3 -o /dev/null "$URL/metrics"'
msd debuginfo --root "$R" testmod
check_rc "server stopped, cached: exit 0" 0
check_eq "server stopped, cached: debuginfod, build-id, same file" "debuginfod build-id $F" \
	"$(field 3) $(field 4) $(field 5)"

# ---- server stopped, cache empty: exit 1 in bounded time ----------------------
rm -rf "$CACHE"
s=$(date +%s)
DEBUGINFOD_TIMEOUT=3 msd debuginfo --root "$R" testmod
e=$(($(date +%s) - s))
check_rc "server stopped, empty cache: exit 1" 1
check_eq "server stopped, empty cache: source -" "- -" "$(field 3) $(field 5)"
check_grep "server stopped, empty cache: stderr says debuginfod failed" 'debuginfod' "$T/err"
check "server stopped, empty cache: done in bounded time (${e}s <= 30s)" [ "$e" -le 30 ]

# A server that accepts connections and never answers: DEBUGINFOD_TIMEOUT.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
conns = []
end = time.time() + 60
while time.time() < end:
    s.settimeout(1)
    try:
        conns.append(s.accept()[0])
    except socket.timeout:
        pass
' >"$T/silent.port" &
SIL=$!
_bg_pids="${_bg_pids-} $SIL"
for _ in $(seq 50); do
	[ -s "$T/silent.port" ] && break
	sleep 0.1
done
rm -rf "$CACHE"
s=$(date +%s)
U=http://127.0.0.1:$(cat "$T/silent.port") DEBUGINFOD_TIMEOUT=3 msd debuginfo --root "$R" testmod
e=$(($(date +%s) - s))
check_rc "silent server, DEBUGINFOD_TIMEOUT=3: exit 1" 1
check_grep "silent server: stderr says debuginfod failed" 'debuginfod' "$T/err"
check "silent server: gives up in bounded time (${e}s <= 30s)" [ "$e" -le 30 ]
s=$(date +%s)
U=http://127.0.0.1:$(cat "$T/silent.port") DEBUGINFOD_TIMEOUT=3 msd gdb --root "$R" testmod
e=$(($(date +%s) - s))
check_rc "silent server: gdb still prints the command (exit 0)" 0
check "silent server: gdb gives up in bounded time (${e}s <= 30s)" [ "$e" -le 30 ]
kill "$SIL" 2>/dev/null
wait "$SIL" 2>/dev/null

# ---- a cached file of another build is not taken -----------------------------
mkmod "$T/other" testmod 1 || bail "second build"
OTHER=$(build_id "$T/other/testmod.ko")
rm -rf "$CACHE"
mkdir -p "$CACHE/$BUILD_ID"
objcopy --only-keep-debug "$T/other/testmod.ko" "$CACHE/$BUILD_ID/debuginfo"
msd debuginfo --root "$R" --json testmod
check_rc "cache holds another build under the loaded build-id: exit 1" 1
check_eq "cache holds another build: source -, the cached file skipped naming its build-id" \
	"- $CACHE/$BUILD_ID/debuginfo True" \
	"$(jq_py "$T/out" '" ".join([str(j[0].get("source")), j[0]["skipped"][0]["file"], str("'"$OTHER"'" in j[0]["skipped"][0]["reason"])])')"

e=$(($(date +%s) - t0))
check "t-debuginfod ran in bounded time (${e}s <= 60s)" [ "$e" -le 60 ]
finish
