#!/bin/sh
# make bench: events/s of `kmtrace report` (stat, and slab --caller) and of
# `trace-cmd report` on the same recording of >= 1M events, best of 3 runs
# each, and their ratios, with the peak RSS of each; then kmtrace report
# slab/page against perf kmem on a >= 2M-event perf.data; then the slowdown
# of a workload under record -g beside perf record -g. The big recordings
# are made once (need root, tracefs and perf) and reused from bench-out/.
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
slab_events=$("$KMTRACE" report -i "$dat" slab --format json |
	python3 -c 'import json,sys; s=json.load(sys.stdin)["analyses"]["slab"]["summary"]; print(s["allocations"] + s["frees"] + s["unmatched_frees"] + s["null_frees"] + s["failed_allocations"])')
k=$(best "$KMTRACE" report -i "$dat" stat) || { echo "bench: kmtrace report failed" >&2; exit 1; }
s=$(best "$KMTRACE" report -i "$dat" slab --caller) || { echo "bench: kmtrace report slab failed" >&2; exit 1; }
t=$(best trace-cmd report -i "$dat") || { echo "bench: trace-cmd report failed" >&2; exit 1; }
python3 - "$events" "$slab_events" $k $s $t <<'PY'
import sys
n, slab = int(sys.argv[1]), int(sys.argv[2])
ks, km, ss, sm, ts, tm = (max(float(v), 0.01) for v in sys.argv[3:9])
print(f"recording: {n} events, {slab} of them slab allocations and frees")
print(f"{'tool':<32}{'seconds':>9}{'events/s':>14}{'peak RSS':>12}")
for name, sec, rss in (("kmtrace report (stat)", ks, km),
                       ("kmtrace report slab --caller", ss, sm),
                       ("trace-cmd report", ts, tm)):
    print(f"{name:<32}{sec:>9.2f}{n/sec:>14,.0f}{rss/1024:>9.1f} MiB")
print(f"speed ratio kmtrace stat/trace-cmd: {ts/ks:.1f}x   memory ratio: {km/tm:.2f}")
print(f"speed ratio kmtrace slab/trace-cmd: {ts/ss:.1f}x   memory ratio: {sm/tm:.2f}")
PY

# perf.data: kmtrace report slab/page against perf kmem --slab/--page stat on
# the same >= 2M-event perf.data, recorded once with perf record -a.
pdat=$out/big.perf.data
if [ ! -s "$pdat" ]; then
	command -v perf >/dev/null || { echo "bench: no perf to record $pdat" >&2; exit 1; }
	echo "bench: recording $pdat with perf record -a (workload: 4000 spawns, 40000 file reads)"
	perf record -q -a -m 8M -o "$pdat" \
		-e kmem:kmalloc,kmem:kfree,kmem:kmem_cache_alloc,kmem:kmem_cache_free \
		-e kmem:mm_page_alloc,kmem:mm_page_free \
		-- sh "$dir/workload.sh" 4000 40000 >/dev/null 2>&1 || exit 1
fi
pevents=$("$KMTRACE" report -i "$pdat" --format json |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["analyses"]["stat"]["summary"]["total_events"])')
[ "$pevents" -ge 2000000 ] || echo "bench: warning: only $pevents events in $pdat" >&2
ks=$(best "$KMTRACE" report -i "$pdat" slab) || { echo "bench: kmtrace report slab failed" >&2; exit 1; }
ps=$(best perf kmem -i "$pdat" --slab stat) || { echo "bench: perf kmem --slab failed" >&2; exit 1; }
kp=$(best "$KMTRACE" report -i "$pdat" page) || { echo "bench: kmtrace report page failed" >&2; exit 1; }
pp=$(best perf kmem -i "$pdat" --page stat) || { echo "bench: perf kmem --page failed" >&2; exit 1; }
python3 - "$pevents" $ks $ps $kp $pp <<'PY'
import sys
n = int(sys.argv[1])
ks, km, ps, pm, kps, kpm, pps, ppm = (max(float(v), 0.01) for v in sys.argv[2:10])
print(f"\nperf.data: {n} events (perf record -a -e kmem:...)")
print(f"{'tool':<32}{'seconds':>9}{'events/s':>14}{'peak RSS':>12}")
for name, sec, rss in (("kmtrace report slab", ks, km), ("perf kmem --slab stat", ps, pm),
                       ("kmtrace report page", kps, kpm), ("perf kmem --page stat", pps, ppm)):
    print(f"{name:<32}{sec:>9.2f}{n/sec:>14,.0f}{rss/1024:>9.1f} MiB")
print(f"slab: kmtrace {ps/ks:.1f}x the events/s of perf kmem, at {km/pm:.2f} of its peak RSS")
print(f"page: kmtrace {pps/kps:.1f}x the events/s of perf kmem, at {kpm/ppm:.2f} of its peak RSS")
PY

# record -g overhead: the same workload alone, under kmtrace record -g and
# under perf record -g on the same kmem events, best of 3 each; the
# workload times itself, so the recorders' setup and final write stay out.
timed=$out/workload-seconds
cat >"$out/timed.sh" <<EOT
s=\$(date +%s.%N); sh '$dir/workload.sh' 300 3000 >/dev/null 2>&1; e=\$(date +%s.%N)
echo "\$s \$e" | awk '{ print \$2 - \$1 }' >'$timed'
EOT
# best_of3 CMD...: the shortest workload time of 3 runs of CMD
best_of3() { for i in 1 2 3; do "$@" >/dev/null 2>&1; cat "$timed"; done | sort -n | head -n 1; }
plain=$(best_of3 sh "$out/timed.sh")
kg=$(best_of3 "$KMTRACE" record -g -f -o "$out/g.dat" -e kmem:kmalloc -e kmem:kfree \
	-e kmem:kmem_cache_alloc -e kmem:kmem_cache_free -e kmem:mm_page_alloc -e kmem:mm_page_free \
	-- sh "$out/timed.sh")
pg=$(best_of3 perf record -q -g -m 8M -o "$out/g.perf.data" \
	-e kmem:kmalloc,kmem:kfree,kmem:kmem_cache_alloc,kmem:kmem_cache_free \
	-e kmem:mm_page_alloc,kmem:mm_page_free -- sh "$out/timed.sh")
gev=$("$KMTRACE" report -i "$out/g.dat" --format json |
	python3 -c 'import json,sys; s=json.load(sys.stdin)["analyses"]["stat"]["summary"]; print(s["total_events"], s.get("events_with_stack", 0))')
python3 - $plain $kg $pg $gev <<'PY'
import sys
plain, kg, pg = (max(float(v), 0.001) for v in sys.argv[1:4])
n, ws = int(sys.argv[4]), int(sys.argv[5])
print(f"\nrecord -g overhead: workload of 300 spawns and 3000 file reads ({n} events, {ws} with a stack)")
print(f"{'run':<40}{'seconds':>9}{'slowdown':>10}")
for name, sec in (("workload alone", plain), ("under kmtrace record -g", kg),
                  ("under perf record -g -e kmem:...", pg)):
    print(f"{name:<40}{sec:>9.2f}{sec/plain:>9.2f}x")
print(f"record -g: the workload runs {pg/kg:.2f}x as fast under kmtrace as under perf record -g")
PY
