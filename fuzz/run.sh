#!/bin/bash
# fuzz/run.sh SECONDS [TARGET...]: runs each libFuzzer target (built by
# `make fuzz-build` into build/fuzz/) for SECONDS, after replaying its
# regression inputs (fuzz/regress/TARGET/*). The corpus grows in
# build/fuzz/corpus/TARGET from the seeds of fuzz/seeds.sh; crashes go
# to build/fuzz/artifacts/. Prints one line per target with executions
# and findings; exits non-zero if any target found something.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-10}
shift || true
TARGETS=${*:-capture modfile kallsyms logparse decompress rsp ksymtab kmem index orc a64 btf serve}
B=$TOP/build/fuzz
export MODSECT=${MODSECT:-$TOP/modsect}
mkdir -p "$B/artifacts" "$B/logs"
"$TOP/fuzz/seeds.sh" "$B/seeds" || { echo "fuzz: seeds.sh failed" >&2; exit 1; }
# ASan: no leak check at exit of the whole run is lost; UBSan aborts.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fail=0
for t in $TARGETS; do
	bin=$B/fuzz_$t
	[ -x "$bin" ] || { echo "fuzz: $bin missing (make fuzz-build)" >&2; fail=1; continue; }
	reg=$TOP/fuzz/regress/$t
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		if ! "$bin" -rss_limit_mb=4096 "$reg"/* >"$B/logs/$t.regress.log" 2>&1; then
			echo "fuzz_$t: REGRESSION input fails: see $B/logs/$t.regress.log"
			tail -30 "$B/logs/$t.regress.log" | sed 's/^/    /'
			fail=1
			continue
		fi
	fi
	mkdir -p "$B/corpus/$t"
	"$bin" -max_total_time="$SECS" -print_final_stats=1 -rss_limit_mb=4096 \
		-timeout=20 -max_len=65536 -artifact_prefix="$B/artifacts/$t-" \
		"$B/corpus/$t" "$B/seeds/$t" >"$B/logs/$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/logs/$t.log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[^ ]+' "$B/logs/$t.log" | tail -1)
	if [ $rc -eq 0 ]; then
		echo "fuzz_$t: ${SECS}s, ${execs:-?} executions, $cov, no finding"
	else
		fail=1
		echo "fuzz_$t: FINDING after ${execs:-?} executions (exit $rc): $B/logs/$t.log"
		grep -E 'ERROR:|runtime error|SUMMARY|Test unit written' "$B/logs/$t.log" | head -5 | sed 's/^/    /'
	fi
done
exit $fail
