#!/bin/sh
# make demo: record a few seconds of a built-in workload (process spawns and
# file reads) and report it; where tracefs is not writable, say so and report
# the recording shipped in traces/.
set -u
KMTRACE=$(realpath "${1:-./kmtrace}")
dir=$(cd "$(dirname "$0")" && pwd)
if sh "$dir/tracefs-writable.sh"; then
	out=$(mktemp -d /tmp/kmtrace-demo.XXXXXX)
	trap 'rm -rf "$out"' EXIT
	trap 'exit 130' INT TERM
	echo "\$ kmtrace record -o demo.dat -- sh scripts/workload.sh 300 3000"
	"$KMTRACE" record -o "$out/demo.dat" -- sh "$dir/workload.sh" 300 3000 || exit 1
	echo
	echo "\$ kmtrace report -i demo.dat"
	"$KMTRACE" report -i "$out/demo.dat" || exit 1
	echo
	echo "\$ kmtrace report -i demo.dat slab --caller --cache -l 8"
	"$KMTRACE" report -i "$out/demo.dat" slab --caller --cache -l 8 || exit 1
	echo
	echo "\$ kmtrace report -i demo.dat fault --regions -l 5"
	"$KMTRACE" report -i "$out/demo.dat" fault --regions -l 5
else
	echo "kmtrace demo: tracefs is not writable here (needs root and tracefs);"
	echo "reporting the recording shipped in traces/small.dat instead."
	echo
	echo "\$ kmtrace report -i traces/small.dat"
	cd "$dir/.." && "$KMTRACE" report -i traces/small.dat || exit 1
	echo
	echo "\$ kmtrace report -i traces/small.dat slab --caller --cache -l 8"
	"$KMTRACE" report -i traces/small.dat slab --caller --cache -l 8 || exit 1
	echo
	echo "\$ kmtrace report -i traces/fault.dat fault --regions -l 5 vm"
	"$KMTRACE" report -i traces/fault.dat fault --regions -l 5 vm
fi
