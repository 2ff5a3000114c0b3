#!/bin/bash
# Reports byte-identical between two kmtrace binaries: every analysis (with
# its tables) on every fixture in traces/ and on any more files given, in
# text and JSON, plus --print. For speed work: build the old binary from
# git (e.g. git worktree add /tmp/old HEAD~3 && make -C /tmp/old kmtrace)
# and compare. Prints the differing runs; exit status 1 if there are any.
# usage: compare_reports.sh OLD_KMTRACE NEW_KMTRACE [FILE[:KALLSYMS]...]
set -u
old=$1 new=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/kmtrace-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT
inputs="$top/traces/small.dat $top/traces/small-v7.dat $top/traces/fault.dat
$top/traces/plugins.dat $top/traces/perf-small.data:$top/traces/perf-small.kallsyms
$top/traces/perf-zg.data:$top/traces/perf-zg.kallsyms $top/traces/stacks.dat:$top/traces/stacks.kallsyms
$top/traces/instance-trace.txt $top/traces/standin/trace.txt $top/traces/mm.dat $top/traces/umem.dat $*"
# every analysis the new binary lists, alone with its defaults and all together
listed=$("$new" list | awk '{ print $1 }')
runs_of() {
	cat <<EOT
slab --caller --alloc --cache --pid --stack
slab --kmalloc-only -s hit,live -l 7
slab --timeline 1 -l 3
page --pid --order --migratetype --gfp --live --caller --stack
page --timeline 1
fault --regions --ip --timeline 1
vm --timeline 1
leak --interval 100
memcg -l 0
pagecache -l 0 --interval 10
EOT
	echo "$listed"
	echo $listed
}
status=0 runs=0
for spec in $inputs; do
	f=${spec%%:*} syms=
	[ "$f" != "$spec" ] && syms="--kallsyms ${spec#*:}"
	while read -r analysis; do
		for fmt in text json; do
			runs=$((runs + 1))
			# shellcheck disable=SC2086
			"$old" report -i "$f" $syms --format $fmt $analysis >"$work/old" 2>"$work/old.err"
			o=$?
			# shellcheck disable=SC2086
			"$new" report -i "$f" $syms --format $fmt $analysis >"$work/new" 2>"$work/new.err"
			n=$?
			if [ $o != $n ] || ! cmp -s "$work/old" "$work/new" ||
			   ! cmp -s "$work/old.err" "$work/new.err"; then
				echo "differs: $f $fmt $analysis (exit $o/$n)"
				status=1
			fi
		done
	done < <(runs_of)
	runs=$((runs + 1))
	# shellcheck disable=SC2086
	if ! cmp -s <("$old" report -i "$f" $syms --print 2>&1) <("$new" report -i "$f" $syms --print 2>&1); then
		echo "differs: $f --print"
		status=1
	fi
done
echo "compare_reports: $runs runs, $([ $status = 0 ] && echo "all identical" || echo "some differ")"
exit $status
