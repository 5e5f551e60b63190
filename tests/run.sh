#!/bin/bash
# tests/run.sh - runs every tests/t-*.sh and prints "N passed, N failed"
# (N counts individual checks).  Exits non-zero if any check failed or a
# test script died.  MODSECT selects the binary (default ./modsect at the
# top of the repository); arguments, if any, name the tests to run
# (e.g. tests/run.sh t-usage t-capture).  KEEP=1 keeps the temp dirs.
set -u
TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
export MODSECT=${MODSECT:-$TOP/modsect}
case $MODSECT in /*) ;; *) MODSECT=$(realpath -- "$MODSECT") ;; esac

if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do
		t=${t##*/}
		tests+=("$TESTS_DIR/${t%.sh}.sh")
	done
else
	tests=("$TESTS_DIR"/t-*.sh)
fi

pass=0 fail=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	if [ ! -f "$t" ]; then
		echo "not ok - $name: no such test"
		fail=$((fail + 1))
		continue
	fi
	out=$(cd "$TOP" && bash "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exited with status $rc without a failed check"
		f=1
	elif [ "$rc" -eq 0 ] && [ "$f" -ne 0 ]; then
		echo "not ok - $name: had failed checks but exited 0"
		f=$((f + 1))
	fi
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
