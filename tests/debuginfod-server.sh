#!/bin/bash
# tests/debuginfod-server.sh - a real debuginfod on a free loopback port,
# serving the ELF/DWARF files under DIR, for the unit tests.
#
# Usage: tests/debuginfod-server.sh [-b BUILDID]... [-l SECONDS] DIR STATEDIR [-- COMMAND...]
#
# Starts `debuginfod -F` on DIR (database, log and pid in STATEDIR), waits
# until it answers and has indexed DIR: every -b BUILDID is served
# (/buildid/ID/debuginfo answers 200), or with no -b, the first traversal
# of DIR is done and nothing is left to scan.  Then:
#   - with COMMAND: runs it with DEBUGINFOD_URLS set to the server, stops
#     the server and exits with COMMAND's status;
#   - without: prints the URL (http://127.0.0.1:PORT) on stdout, writes it
#     to STATEDIR/url, and keeps the server until this script gets SIGTERM,
#     SIGINT or SIGHUP, or -l SECONDS (default 120) have passed, so the
#     server never outlives a test that died.
# The server is stopped (TERM, then KILL after 5 s) and waited for on every
# way out.  Exit 1 if the server cannot be started or does not index DIR
# within 30 s (its log is then copied to stderr).  debuginfod 0.188 has no
# option to bind one address: it listens on every interface, but only the
# loopback URL is handed out.
set -u

ids=()
life=120
while getopts b:l: o; do
	case $o in
	b) ids+=("$OPTARG") ;;
	l) life=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
	echo "usage: $0 [-b BUILDID]... [-l SECONDS] DIR STATEDIR [-- COMMAND...]" >&2
	exit 2
fi
dir=$(realpath -- "$1") || exit 2
state=$2
shift 2
[ "${1-}" = -- ] && shift
mkdir -p "$state" || exit 1
state=$(realpath -- "$state")
for t in debuginfod curl python3; do
	command -v "$t" >/dev/null || {
		echo "$0: $t is missing" >&2
		exit 1
	}
done

srv=
stop() {
	local _
	[ -n "$srv" ] || return 0
	kill -TERM "$srv" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	srv=
	rm -f "$state/pid"
}
trap stop EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# served URL: 0 when everything asked for is indexed.
served() {
	local id m
	if [ ${#ids[@]} -gt 0 ]; then
		for id in "${ids[@]}"; do
			[ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$1/buildid/$id/debuginfo")" = 200 ] || return 1
		done
		return 0
	fi
	m=$(curl -s -m 5 "$1/metrics") || return 1
	# The first traversal has run and the scan queue is empty.
	grep -Eq '^thread_work_total\{role="traverse"\} [1-9]' <<<"$m" &&
		grep -Eq '^thread_work_pending\{role="scan"\} 0$' <<<"$m" &&
		! grep -Eq '^thread_busy\{role="scan"\} [1-9]' <<<"$m"
}

url=
for _ in 1 2 3 4 5; do
	port=$(free_port) || exit 1
	rm -f "$state/db.sqlite" "$state/db.sqlite-"*
	# -t 0: no rescans, -g 0: no grooming.
	debuginfod -F -p "$port" -d "$state/db.sqlite" -t 0 -g 0 "$dir" \
		>"$state/debuginfod.log" 2>&1 </dev/null &
	srv=$!
	echo "$srv" >"$state/pid"
	u=http://127.0.0.1:$port
	deadline=$(($(date +%s) + 30))
	while kill -0 "$srv" 2>/dev/null && [ "$(date +%s)" -lt $deadline ]; do
		if served "$u"; then
			url=$u
			break
		fi
		sleep 0.2
	done
	[ -n "$url" ] && break
	if kill -0 "$srv" 2>/dev/null; then
		echo "$0: debuginfod on port $port did not index $dir within 30 s" >&2
		cat "$state/debuginfod.log" >&2
		exit 1
	fi
	# It died, most likely the port was taken meanwhile: another port.
	wait "$srv" 2>/dev/null
	srv=
done
if [ -z "$url" ]; then
	echo "$0: debuginfod did not start:" >&2
	cat "$state/debuginfod.log" >&2
	exit 1
fi
echo "$url" >"$state/url"

if [ $# -gt 0 ]; then
	DEBUGINFOD_URLS=$url "$@"
	exit
fi

echo "$url"
# Until a signal, the server's end or the lifetime bound; a trapped signal
# interrupts wait at once.
end=$(($(date +%s) + life))
while kill -0 "$srv" 2>/dev/null && [ "$(date +%s)" -lt $end ]; do
	sleep 1 &
	wait $!
done
