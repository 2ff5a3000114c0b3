#!/bin/sh
# make bench: events/s of `kmtrace report` (stat) and of `trace-cmd report`
# on the same recording of >= 1M events, best of 3 runs each, and their
# ratio; peak RSS of each. The recording is made once (needs root and
# tracefs) and reused from bench-out/.
set -u
KMTRACE=$(realpath "${1:-./kmtrace}")
dir=$(cd "$(dirname "$0")" && pwd)
out=$dir/../bench-out
dat=$out/bench.dat
mkdir -p "$out"
if [ ! -s "$dat" ]; then
	sh "$dir/tracefs-writable.sh" || {
		echo "bench: no $dat and tracefs is not writable here to record one" >&2; exit 1; }
	echo "bench: recording $dat (workload: 1500 spawns, 15000 file reads)"
	"$KMTRACE" record -o "$dat" -- sh "$dir/workload.sh" 1500 15000 || exit 1
fi
events=$("$KMTRACE" report -i "$dat" --format json |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["analyses"]["stat"]["summary"]["total_events"])')
[ "$events" -ge 1000000 ] || echo "bench: warning: only $events events in $dat" >&2

# best TOOL ARGS...: prints "seconds max_rss_kib" of the fastest of 3 runs
best() {
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$out/time.$i" "$@" >/dev/null 2>&1 || return 1
	done
	sort -n "$out"/time.? | head -n 1
}
k=$(best "$KMTRACE" report -i "$dat" stat) || { echo "bench: kmtrace report failed" >&2; exit 1; }
t=$(best trace-cmd report -i "$dat") || { echo "bench: trace-cmd report failed" >&2; exit 1; }
python3 - "$events" $k $t <<'PY'
import sys
n = int(sys.argv[1]); ks, km, ts, tm = map(float, sys.argv[2:6])
ks, ts = max(ks, 0.01), max(ts, 0.01)
print(f"recording: {n} events")
print(f"{'tool':<26}{'seconds':>9}{'events/s':>14}{'peak RSS':>12}")
print(f"{'kmtrace report (stat)':<26}{ks:>9.2f}{n/ks:>14,.0f}{km/1024:>9.1f} MiB")
print(f"{'trace-cmd report':<26}{ts:>9.2f}{n/ts:>14,.0f}{tm/1024:>9.1f} MiB")
print(f"speed ratio kmtrace/trace-cmd: {ts/ks:.1f}x   memory ratio: {km/tm:.2f}")
PY
