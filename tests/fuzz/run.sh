#!/bin/sh
# Run the libFuzzer harnesses: make fuzz (each SECONDS over its corpus, grown
# in FUZZ_DIR/corpus/NAME) and make fuzz-check (--check: every regression
# input once, then each harness SECONDS). What crashes, leaks or hangs is
# written to FUZZ_DIR/crashes/NAME/ and fails the run. Memory is bounded by
# RSS, not by the size of one malloc: the children kmtrace tries libraries
# in may ask for anything, and die alone. A unit is slow only past the
# sandbox's own limit (src/input/tracecmd.c gives libtracecmd 10 s on a
# small file before it kills the child): a library hang it caught and
# refused is what the harness wants, not a slow unit.
# usage: run.sh [--check] FUZZ_DIR SECONDS NAME...
set -u
check=0
[ "$1" = --check ] && { check=1; shift; }
dir=$1 secs=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for name in "$@"; do
	bin=$dir/fuzz-$name
	seeds=$top/tests/fuzz/corpus/$name
	regressions=$top/tests/fuzz/regressions/$name
	work=$dir/corpus/$name
	crashes=$dir/crashes/$name
	mkdir -p "$work" "$crashes"
	if [ $check = 1 ] && [ -n "$(ls -A "$regressions" 2>/dev/null)" ]; then
		"$bin" -timeout=30 "$regressions"/* >"$dir/$name.regressions.log" 2>&1 ||
			{ echo "fuzz: $name: a regression input fails again (see $dir/$name.regressions.log)"
			  status=1; continue; }
	fi
	"$bin" "$work" "$seeds" -max_total_time="$secs" -timeout=30 -report_slow_units=25 -rss_limit_mb=2048 \
		-malloc_limit_mb=65536 -artifact_prefix="$crashes/" -print_final_stats=1 >"$dir/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$name.log")
	cov=$(grep -E '^#[0-9]+' "$dir/$name.log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p')
	echo "fuzz: $name: ${secs}s, ${execs:-0} runs, ${cov:-no coverage line}, corpus $(ls "$work" | wc -l) inputs"
	if [ $rc != 0 ] || [ -n "$(ls -A "$crashes")" ]; then
		echo "fuzz: $name: FAILED (exit $rc): $(ls "$crashes" | head -3) (see $dir/$name.log)"
		status=1
	fi
done
exit $status
