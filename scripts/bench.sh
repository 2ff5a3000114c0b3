#!/bin/sh
# make bench: kmtrace's speed and memory beside the tools it replaces, as
# ratios, on recordings made here once (need root, tracefs and perf) and
# reused from bench-out/:
#  1. a trace.dat of >= 10M events: each analysis and all of them, on one
#     thread, on two and as users run them (default threads), against
#     trace-cmd report and against cat;
#  2. ns/event of all analyses at three sizes (about 1.6M, 4.4M and 10M events),
#     and callgrind's instructions per event of stat, slab and all (one
#     thread, the smallest file: figures that do not move with the load);
#  3. a perf.data of >= 2M events and one of about 1.8M: slab, page and
#     all against perf kmem, and the slab reports' instructions under
#     callgrind;
#  4. the slowdown of a workload under record -g and under perf record -g;
#  5. the recorders' own CPU and memory; 6. and 7. user-space allocation
#     profiling (record --user, --user-sample, heaptrack) on a malloc-heavy
#     program and on Python building a dict.
# Times are the best of 3 runs (trace-cmd report: of 1; the perf.data runs:
# of 5 rounds, each run in turn), peak RSS of that run.
set -u
KMTRACE=$(realpath "${1:-./kmtrace}")
dir=$(cd "$(dirname "$0")" && pwd)
out=$dir/../bench-out
mkdir -p "$out"
# every analysis kmtrace lists (those whose events a recording lacks say so and cost little)
ANALYSES=$("$KMTRACE" list | awk '{ print $1 }' | tr '\n' ' ')

# record FILE SPAWNS READS: a trace.dat of the built-in workload, once
record() {
	[ -s "$1" ] && return 0
	sh "$dir/tracefs-writable.sh" || {
		echo "bench: no $1 and tracefs is not writable here to record one" >&2; exit 1; }
	echo "bench: recording $1 (workload: $2 spawns, $3 file reads)" >&2
	"$KMTRACE" record -o "$1" -- sh "$dir/workload.sh" "$2" "$3" >/dev/null 2>&1 || exit 1
}

events_of() {
	"$KMTRACE" report -i "$1" --format json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["analyses"]["stat"]["summary"]["total_events"])'
}

# instructions CMD...: what callgrind counts CMD to retire (load-independent)
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*Collected : //p' | tail -n 1
}

# best RUNS CMD...: "seconds max_rss_kib" of the fastest of RUNS runs
best() {
	runs=$1
	shift
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$out/time.$i" "$@" >/dev/null 2>&1 || return 1
	done
	cat $(seq -f "$out/time.%g" "$runs") | sort -n | head -n 1
}

big=$out/bench-big.dat mid=$out/bench-mid.dat small=$out/bench.dat
record "$small" 1500 15000
record "$mid" 4500 45000
record "$big" 16000 160000
nbig=$(events_of "$big")
[ "$nbig" -ge 10000000 ] || echo "bench: warning: only $nbig events in $big" >&2

# 1. the big trace.dat
: >"$out/rows"
for a in $ANALYSES "$ANALYSES"; do
	ts="1 2 default"	# default: as users run it (auto where some analysis is keyed)
	case $a in *" "*) ts="1 2 auto" ;; esac	# all analyses: auto is the default
	for t in $ts; do
		th="--threads $t"
		[ "$t" = default ] && th=
		# shellcheck disable=SC2086
		r=$(best 3 "$KMTRACE" report $th -i "$big" $a) ||
			{ echo "bench: kmtrace report $a failed" >&2; exit 1; }
		echo "kmtrace|$a|$t|$r" >>"$out/rows"
	done
done
tc=$(best 1 trace-cmd report -i "$big") || { echo "bench: trace-cmd report failed" >&2; exit 1; }
ct=$(best 3 cat "$big") || exit 1
python3 - "$nbig" "$(stat -c %s "$big")" "$tc" "$ct" "$out/rows" <<'PY'
import sys
n, size = int(sys.argv[1]), int(sys.argv[2])
tcs, tcm = (max(float(v), 0.01) for v in sys.argv[3].split())
cats = max(float(sys.argv[4].split()[0]), 0.01)
rows = [l.rstrip('\n').split('|') for l in open(sys.argv[5])]
print(f"trace.dat: {n} events, {size / 2**20:.0f} MiB (kmtrace record of the built-in workload)")
print(f"{'run':<44}{'seconds':>8}{'M events/s':>12}{'peak RSS':>12}{'vs trace-cmd':>14}")
one = {}
for _, a, t, r in rows:
    sec, rss = (max(float(v), 0.01) for v in r.split())
    threads = {'1': '1 thread', '2': '2 threads', 'auto': '--threads auto',
               'default': 'default threads'}[t]
    name = f"kmtrace {'all analyses' if ' ' in a else a}, {threads}"
    print(f"{name:<44}{sec:>8.2f}{n / sec / 1e6:>12.1f}{rss / 1024:>8.0f} MiB{tcs / sec:>13.1f}x")
    one[(a, t)] = sec
print(f"{'trace-cmd report':<44}{tcs:>8.2f}{n / tcs / 1e6:>12.1f}{tcm / 1024:>8.0f} MiB")
print(f"{'cat (page cache)':<44}{cats:>8.2f}{n / cats / 1e6:>12.1f}")
alls = [a for a, _ in one if ' ' in a][0]
alone = {a: n / sec / 1e6 for (a, t), sec in one.items() if t == 'default'}
print(f"each analysis alone, default threads: {sum(r >= 20 for r in alone.values())} of "
      f"{len(alone)} at 20M events/s or more; below: " +
      (", ".join(f"{a} {r:.1f}M" for a, r in sorted(alone.items()) if r < 20) or "none"))
print(f"all analyses: two threads {one[(alls, '1')] / one[(alls, '2')]:.2f}x one, "
      f"auto {one[(alls, '1')] / one[(alls, 'auto')]:.2f}x; "
      f"{cats / one[(alls, '2')] * 100:.0f}% of cat's speed; "
      f"{tcs / one[(alls, '2')]:.0f}x trace-cmd report")
PY

# 2. ns/event at three sizes, all analyses
echo
echo "all analyses, ns per event by size (linear costs keep it flat):"
for f in "$small" "$mid" "$big"; do
	n=$(events_of "$f")
	for t in 1 2; do
		# shellcheck disable=SC2086
		r=$(best 3 "$KMTRACE" report --threads $t -i "$f" $ANALYSES) || exit 1
		python3 -c "import sys; s, m = (float(v) for v in sys.argv[3].split()); print(f'  {int(sys.argv[1]):>10} events, {sys.argv[2]} thread(s): {s * 1e9 / int(sys.argv[1]):6.0f} ns/event, peak RSS {m / 1024:.0f} MiB')" "$n" "$t" "$r"
	done
done

# instructions per event under callgrind: stat, slab, all analyses
if command -v valgrind >/dev/null; then
	n=$(events_of "$small")
	echo "instructions per event (callgrind, one thread, $n events):"
	for a in stat slab "$ANALYSES"; do
		# shellcheck disable=SC2086
		ir=$(instructions "$KMTRACE" report --threads 1 -i "$small" $a)
		echo "  $( [ "$a" = "$ANALYSES" ] && echo all || echo "$a"): $((ir / n))"
	done
else
	echo "instructions per event: no valgrind (make deps installs it)"
fi

# 3. perf.data against perf kmem, on a perf.data of >= 2M events and on
# one of about 1.8M (issue 35 names both)

# record_perfdata FILE SPAWNS READS: a perf.data of the kmem events of the workload, once
record_perfdata() {
	[ -s "$1" ] && return 0
	command -v perf >/dev/null || { echo "bench: no perf to record $1" >&2; exit 1; }
	echo "bench: recording $1 with perf record -a (workload: $2 spawns, $3 file reads)" >&2
	perf record -q -a -m 8M -o "$1" \
		-e kmem:kmalloc,kmem:kfree,kmem:kmem_cache_alloc,kmem:kmem_cache_free \
		-e kmem:mm_page_alloc,kmem:mm_page_free \
		-- sh "$dir/workload.sh" "$2" "$3" >/dev/null 2>&1 || exit 1
}

# against_perf_kmem FILE: rounds of every run in turn, best of 5 each: a
# VM whose speed drifts slows kmtrace and perf kmem alike instead of
# whichever ran later. The rounds go forward and back: on the project's VM
# the first kmtrace run after perf kmem (or a pause) took 40-90 ms more
# (its fresh memory, which the host had taken back), and in a fixed order
# that was always the same row's run.
against_perf_kmem() {
	f=$1
	n=$(events_of "$f")
	: >"$out/prows"
	order="kslab kslab1 kslab2 kpage kall pslab ppage pboth"
	back="pboth ppage pslab kall kpage kslab2 kslab1 kslab"
	for i in 1 2 3 4 5; do
		if [ $((i % 2)) = 1 ]; then names=$order; else names=$back; fi
		for name in $names; do
			# shellcheck disable=SC2086
			case $name in
			kslab) set -- "$KMTRACE" report -i "$f" slab ;;
			kslab1) set -- "$KMTRACE" report --threads 1 -i "$f" slab ;;
			kslab2) set -- "$KMTRACE" report --threads 2 -i "$f" slab ;;
			kpage) set -- "$KMTRACE" report -i "$f" page ;;
			kall) set -- "$KMTRACE" report -i "$f" $ANALYSES ;;
			pslab) set -- perf kmem -i "$f" --slab stat ;;
			ppage) set -- perf kmem -i "$f" --page stat ;;
			pboth) set -- perf kmem -i "$f" --slab --page stat ;;
			esac
			/usr/bin/time -f "$name %e %M" -a -o "$out/prows" "$@" >/dev/null 2>&1 ||
				{ echo "bench: $* failed" >&2; exit 1; }
		done
	done
	python3 - "$n" "$out/prows" <<'PY'
import sys
n, best = int(sys.argv[1]), {}
for line in open(sys.argv[2]):
    name, sec, rss = line.split()
    sec, rss = max(float(sec), 0.01), float(rss)
    if name not in best or sec < best[name][0]:
        best[name] = (sec, rss)
print(f"\nperf.data: {n} events (perf record -a -e kmem:...); best of 5 interleaved rounds")
print(f"{'tool':<36}{'seconds':>9}{'M events/s':>12}{'peak RSS':>12}")
for key, name in (("kslab", "kmtrace report slab (default)"), ("kslab1", "kmtrace report slab, 1 thread"),
                  ("kslab2", "kmtrace report slab, 2 threads"),
                  ("pslab", "perf kmem --slab stat"), ("kpage", "kmtrace report page (default)"),
                  ("ppage", "perf kmem --page stat"), ("kall", "kmtrace report, all analyses"),
                  ("pboth", "perf kmem --slab --page stat")):
    sec, rss = best[key]
    print(f"{name:<36}{sec:>9.2f}{n / sec / 1e6:>12.1f}{rss / 1024:>8.1f} MiB")
(ks, km), (ps, pm) = best["kslab"], best["pslab"]
(kps, kpm), (pps, ppm), (kas, kam) = best["kpage"], best["ppage"], best["kall"]
(pbs, pbm) = best["pboth"]
print(f"slab: kmtrace {ps / ks:.1f}x as fast as perf kmem ({ps / best['kslab1'][0]:.1f}x on one "
      f"thread, {ps / best['kslab2'][0]:.1f}x on two), at {km / pm:.2f} of its peak RSS")
print(f"page: kmtrace {pps / kps:.1f}x as fast as perf kmem, at {kpm / ppm:.2f} of its peak RSS")
print(f"all analyses: {pbs / kas:.1f}x as fast as perf kmem --slab --page stat "
      f"({(ps + pps) / kas:.1f}x its two reports apart), at {kam / pbm:.2f} of its peak RSS")
PY
}

pdat=$out/big.perf.data pmid=$out/mid.perf.data
record_perfdata "$pdat" 4000 40000
record_perfdata "$pmid" 2600 26000
pevents=$(events_of "$pdat")
[ "$pevents" -ge 2000000 ] || echo "bench: warning: only $pevents events in $pdat" >&2
against_perf_kmem "$pdat"
against_perf_kmem "$pmid"
# the slab reports' instructions, which do not move with the load as seconds do
if command -v valgrind >/dev/null; then
	ik=$(instructions "$KMTRACE" report --threads 1 -i "$pdat" slab)
	ip=$(instructions perf kmem -i "$pdat" --slab stat)
	python3 -c "import sys; k, p, n = map(int, sys.argv[1:]); print(f'slab, instructions \
(callgrind): kmtrace {k // n} a sample, perf kmem {p // n}: {p / k:.1f}x')" "$ik" "$ip" "$pevents"
fi

# 4. record -g overhead: the same workload alone, under kmtrace record -g and
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

# 5. the recorders themselves: system-wide for 4 s while the workload runs
# beside them, the same six events; CPU and peak RSS of the recorder alone.
EV="-e kmem:kmalloc -e kmem:kfree -e kmem:kmem_cache_alloc -e kmem:kmem_cache_free -e kmem:mm_page_alloc -e kmem:mm_page_free"
# recorder_cost CMD...: "user sys max_rss_kib events" with the workload beside it
recorder_cost() {
	sh "$dir/workload.sh" 3000 30000 >/dev/null 2>&1 &
	w=$!
	/usr/bin/time -f '%U %S %M' -o "$out/rec.time" "$@" >/dev/null 2>&1
	wait $w
	cat "$out/rec.time"
}
# shellcheck disable=SC2086
kr=$(recorder_cost "$KMTRACE" record -f -d 4 $EV -o "$out/rec.dat")
pr=$(recorder_cost perf record -q -a -m 8M -e "$(echo $EV | sed 's/-e //g; s/ /,/g')" \
	-o "$out/rec.perf.data" -- sleep 4)
python3 - $kr $pr "$(events_of "$out/rec.dat")" "$(events_of "$out/rec.perf.data")" <<'PY'
import sys
ku, ks, km, pu, ps, pm = (float(v) for v in sys.argv[1:7])
kn, pn = int(sys.argv[7]), int(sys.argv[8])
print(f"\nrecorders, system-wide for 4 s beside 3000 spawns and 30000 file reads (six kmem events)")
print(f"{'recorder':<24}{'events':>10}{'CPU s':>8}{'ns/event':>10}{'peak RSS':>12}")
for name, n, cpu, rss in (("kmtrace record", kn, ku + ks, km), ("perf record -a", pn, pu + ps, pm)):
    print(f"{name:<24}{n:>10}{cpu:>8.2f}{cpu * 1e9 / max(n, 1):>10.0f}{rss / 1024:>8.1f} MiB")
print(f"kmtrace record: {(ku + ks) / max(pu + ps, 0.01):.2f} of perf record's CPU per run, "
      f"{((ku + ks) / max(kn, 1)) / max((pu + ps) / max(pn, 1), 1e-12):.2f} per event; "
      f"{km / pm:.2f} of its peak RSS")
PY

# 6. user-space allocations: a malloc-heavy program (200,000 mallocs of 64
# bytes, 100,000 frees) alone, under record --user (uprobes, every call;
# with and without --user-min-size), under record --user-sample (the
# preloaded library, default interval) and under heaptrack; it times itself
# like the workload above (heaptrack: the whole heaptrack run, which does not
# follow a shell's children). Alone and sampled are run in turns, best of 7.
cc -O1 -o "$out/umalloc" "$dir/../tests/progs/umalloc.c"
cat >"$out/utimed.sh" <<EOT
s=\$(date +%s.%N); '$out/umalloc' 200000 64 100000 0 >/dev/null; e=\$(date +%s.%N)
echo "\$s \$e" | awk '{ print \$2 - \$1 }' >'$timed'
EOT
cat >"$out/htimed.sh" <<EOT
s=\$(date +%s.%N); heaptrack -o '$out/heaptrack.out' '$out/umalloc' 200000 64 100000 0 >/dev/null
e=\$(date +%s.%N); echo "\$s \$e" | awk '{ print \$2 - \$1 }' >'$timed'
EOT
# in_turns N CMD...: CMD alone and under record --user-sample (default
# interval), in turns N times, so that the VM's speed, which drifts within
# seconds, touches both alike; "ALONE SAMPLED", the shortest of each.
in_turns() {
	n=$1
	shift
	alone= sampled=
	for i in $(seq "$n"); do
		"$@" >/dev/null 2>&1
		alone="$alone $(cat "$timed")"
		"$KMTRACE" record --user-sample -e kmem:kmalloc -f -o "$out/us.dat" -- "$@" \
			>/dev/null 2>&1
		sampled="$sampled $(cat "$timed")"
	done
	echo "$(printf '%s\n' $alone | sort -n | head -n 1)" \
		"$(printf '%s\n' $sampled | sort -n | head -n 1)"
}
set -- $(in_turns 7 sh "$out/utimed.sh")
uplain=$1 usample=$2
uuser=$(best_of3 "$KMTRACE" record --user -e kmem:kmalloc -f -o "$out/u.dat" -- sh "$out/utimed.sh")
umin=$(best_of3 "$KMTRACE" record --user-min-size 4K -e kmem:kmalloc -f -o "$out/u.dat" \
	-- sh "$out/utimed.sh")
uheap=0
command -v heaptrack >/dev/null && uheap=$(best_of3 sh "$out/htimed.sh")
python3 - $uplain $uuser $umin $usample $uheap <<'PY'
import sys
plain, user, umin, usample, uheap = (max(float(v), 0.0001) for v in sys.argv[1:6])
calls = 300003
print(f"\nuser-space allocations: 200,000 mallocs of 64 bytes and 100,000 frees ({calls} allocator calls)")
print(f"{'run':<44}{'seconds':>9}{'slowdown':>10}{'us/call':>9}")
rows = [("program alone", plain), ("under kmtrace record --user", user),
        ("under record --user-min-size 4K", umin), ("under record --user-sample (512K)", usample)]
if uheap > 0.0001:
    rows.append(("under heaptrack (its whole run)", uheap))
for name, sec in rows:
    print(f"{name:<44}{sec:>9.3f}{sec/plain:>9.2f}x{(sec - plain) * 1e6 / calls:>9.2f}")
PY

# 7. a real program: Python building a dict of a million entries, timed by
# itself around the loop, alone, under record --user-sample (in turns, best of
# 5) and heaptrack.
cat >"$out/pydict.py" <<EOT
import time
s = time.perf_counter()
d = {i: str(i) for i in range(1000000)}
open('$timed', 'w').write(f"{time.perf_counter() - s}\\n")
EOT
set -- $(in_turns 5 python3 "$out/pydict.py")
pplain=$1 psample=$2
pheap=0
command -v heaptrack >/dev/null &&
	pheap=$(best_of3 heaptrack -o "$out/heaptrack.out" python3 "$out/pydict.py")
python3 - $pplain $psample $pheap <<'PY'
import sys
plain, sample, heap = (max(float(v), 0.0001) for v in sys.argv[1:4])
print(f"\nPython building a dict of 1,000,000 entries (the loop's own time)")
print(f"{'run':<44}{'seconds':>9}{'slowdown':>10}")
rows = [("alone", plain), ("under record --user-sample (512K)", sample)]
if heap > 0.0001:
    rows.append(("under heaptrack", heap))
for name, sec in rows:
    print(f"{name:<44}{sec:>9.3f}{sec/plain:>9.2f}x")
PY

# 8. the recording into SQLite (report --format sqlite stat: every event
# written) and into ClickHouse (kmtrace-fleet-load, a server of our own),
# the mid-size trace.dat.
n=$(events_of "$mid")
rm -f "$out/bench.db"
r=$(best 3 sh -c 'rm -f "$1" && exec "$2" report -i "$3" --format sqlite -o "$1" stat' sh "$out/bench.db" "$KMTRACE" "$mid") || exit 1
s=$(stat -c %s "$out/bench.db")
rm -f "$out/bench.db"
python3 -c "import sys; n, s = int(sys.argv[1]), int(sys.argv[3]); sec, rss = (max(float(v), 0.01) for v in sys.argv[2].split()); print(f'\nSQLite: {n} events into the database in {sec:.2f} s, {n / sec / 1e6:.2f}M events/s, {s / 2**20:.0f} MiB file, peak RSS {rss / 1024:.0f} MiB')" "$n" "$r" "$s"
if command -v clickhouse-server >/dev/null && command -v clickhouse-client >/dev/null; then
	. "$dir/fleet_server.sh"
	ch=$(mktemp -d /tmp/kmtrace-bench-ch.XXXXXX)
	if fleet_start "$ch"; then
		python3 - "$dir/../docs/fleet.md" "$ch" <<'PY'
import re, sys
for i, q in enumerate(re.findall(r'```sql\n(.*?)```', open(sys.argv[1]).read(), re.S)):
    if q.startswith('-- schema'):
        open('%s/schema.%02d.sql' % (sys.argv[2], i), 'w').write(q)
PY
		for q in "$ch"/schema.*.sql; do
			clickhouse-client --port "$FLEET_PORT" --multiquery <"$q"
		done
		echo "ClickHouse $(clickhouse-client --port "$FLEET_PORT" --query 'SELECT version()'):" \
			"kmtrace-fleet-load of the same file (kmtrace's jsonl and the server's insert together)"
		KMTRACE=$KMTRACE bash "$dir/kmtrace-fleet-load" --port "$FLEET_PORT" --host bench "$mid" 2>&1 |
			sed 's/^kmtrace-fleet-load: /  /'
		fleet_stop
	fi
	rm -rf "$ch"
else
	echo "ClickHouse load rate: no clickhouse-server (make check-fleet installs it)"
fi
