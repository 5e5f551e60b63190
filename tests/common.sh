# shellcheck shell=bash
# tests/common.sh - the one vocabulary of every test: the unit tests
# (tests/lib.sh) and the VM tests (tests/vm/lib.sh) source it.
#
# A check prints one line, "ok - DESC" or "not ok - DESC", its details
# indented under it (detail).  DESC starts with "$TNAME: " when TNAME is set
# (the unit test's name, the VM script's or part's).  A script that counts
# its own checks ends with `summary`: the line "N passed, N failed" alone,
# which CI reads, as tests/run.sh prints for the unit suite.

_npass=0
_nfail=0

# Leaks inside libraries modsect cannot free (lsan.supp says which), for
# every modsect a test runs.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lsan.supp}

ok() {
	_npass=$((_npass + 1))
	printf 'ok - %s%s\n' "${TNAME:+$TNAME: }" "$*"
}

# not_ok DESC [DETAIL...]: each DETAIL is printed indented.
not_ok() {
	local d=$1
	shift
	_nfail=$((_nfail + 1))
	printf 'not ok - %s%s\n' "${TNAME:+$TNAME: }" "$d"
	[ $# -eq 0 ] || printf '%s\n' "$@" | detail
}

# detail: stdin indented, under the check it explains.
detail() { sed 's/^/    /'; }

# sanitizer_report FILE: FILE (a stderr) holds an ASan, LSan or UBSan report.
sanitizer_report() { grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$1"; }

# summary: the closing line; fails if any check failed.
summary() {
	echo "$_npass passed, $_nfail failed"
	[ "$_nfail" -eq 0 ]
}

# test_tools_dir MODSECT TOP: where the test helpers (tests/tools/*.c) of
# that binary are, built beside it: build/tests/ for TOP/modsect,
# build/san/tests/ for build/san/modsect.  TEST_TOOLS overrides.
test_tools_dir() {
	if [ -n "${TEST_TOOLS:-}" ]; then
		echo "$TEST_TOOLS"
	elif [ "$1" = "$2/modsect" ]; then
		echo "$2/build/tests"
	else
		echo "$(dirname "$1")/tests"
	fi
}
