#!/bin/sh
# make demo: record 4 s of the whole system while a built-in workload spawns
# processes and reads files, then lead with what a person wants to know: the
# top call sites and processes, what is still live, the self-checks; then say
# how to see the rest. Where tracefs is not writable, say so and show the
# recording shipped in traces/.
set -u
KMTRACE=$(realpath "${1:-./kmtrace}")
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d /tmp/kmtrace-demo-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
trap 'exit 130' INT TERM
ln -s "$KMTRACE" "$bin/kmtrace"
PATH=$bin:$PATH

# say TEXT: a heading; run CMD: the command as typed, then what it prints
say() { printf '\n%s\n' "$*"; }
run() { echo "\$ $*"; sh -c "$*"; }

# show FILE: the report's highlights for recording FILE
show() {
	say "The call sites that allocated the most slab memory:"
	run "kmtrace report -i $1 --table slab.callers slab -l 5 | tail -n +3"
	say "The processes that allocated the most pages:"
	run "kmtrace report -i $1 --table page.pids page --pid -l 5 | tail -n +3"
	say "Still allocated at the end (caches whose frees the kernel does not trace are left out, and named):"
	run "kmtrace report -i $1 leak 2>/dev/null | grep -A4 'frees not traced'"
	run "kmtrace report -i $1 --table leak.callsites leak -l 5 2>/dev/null | tail -n +3"
	say "Self-checks: the traced pages against /proc/vmstat, the slab caches against /proc/slabinfo:"
	run "kmtrace report -i $1 --table page.summary page | grep -A7 'Check against'"
	run "kmtrace report -i $1 --table slab.summary slab 2>/dev/null | grep -A4 'Check against'"
	say "The rest: every analysis (kmtrace list) with its options (kmtrace report -h), e.g."
	echo "  kmtrace report -i $1 --html report.html stat slab --cache page fault leak"
	echo "  kmtrace report -i $1 slab --cache --sort live -l 20"
	echo "  kmtrace report -i $1 fault --regions"
}

if sh "$top/scripts/tracefs-writable.sh"; then
	out=$(mktemp -d /tmp/kmtrace-demo.XXXXXX)
	cd "$out" || exit 1
	ln -s "$top/scripts" scripts
	say "Recording the whole system for 4 s while the workload spawns 300 processes and reads 3000 files:"
	run "kmtrace record -d 4 -o demo.dat & sleep 0.5; sh scripts/workload.sh 300 3000 >/dev/null; wait" ||
		exit 1
	show demo.dat
	rm scripts
	say "The recording stays in $out/demo.dat."
else
	echo "kmtrace demo: tracefs is not writable here (needs root and tracefs);"
	echo "showing the recording shipped in traces/small.dat (a command, not the whole"
	echo "system: the /proc/vmstat and /proc/slabinfo checks do not apply to it)."
	cd "$top" || exit 1
	show traces/small.dat
fi
