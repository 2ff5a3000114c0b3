#!/bin/sh
# The built-in workload of `make demo` and the tests: process spawns and file
# reads. Usage: workload.sh [SPAWNS] [FILES]
spawns=${1:-200}
files=${2:-2000}
i=0
while [ "$i" -lt "$spawns" ]; do
	/bin/true
	i=$((i + 1))
done
find /usr/share -type f 2>/dev/null | head -n "$files" | xargs cat >/dev/null 2>&1
exit 0
