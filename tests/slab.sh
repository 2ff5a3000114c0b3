# Integration tests of `kmtrace report slab`, sourced by tests/integration.sh
# (uses its KMTRACE, TOP, TRACES, WORK, check, live and json_get).

# slab_vs_recount FILE [PIDS]: kmtrace's summary and every --caller row equal
# an independent recount from trace-cmd report's text of FILE.
slab_vs_recount() {
	local f=$1 pids=${2:-} opt=() ropt=()
	[ -n "$pids" ] && { opt=(--pid-filter "$pids"); ropt=(--pid "$pids"); }
	"$KMTRACE" report -i "$f" slab --caller "${opt[@]}" --format json >"$WORK/slab.json" || return 1
	trace-cmd report -t -i "$f" 2>/dev/null |
		python3 "$TOP/tests/slab_recount.py" "${ropt[@]}" >"$WORK/recount.json" || return 1
	python3 "$TOP/tests/slab_compare.py" "$WORK/slab.json" "$WORK/recount.json" | sed 's/^/  /'
	return "${PIPESTATUS[0]}"
}

# same_numbers FILE ARGS...: text, CSV and JSON of one report agree.
same_numbers() {
	local f=$1; shift
	"$KMTRACE" report -i "$f" "$@" --format json >"$WORK/n.json" &&
	"$KMTRACE" report -i "$f" "$@" --format csv >"$WORK/n.csv" &&
	"$KMTRACE" report -i "$f" "$@" >"$WORK/n.txt" || return 1
	python3 "$TOP/tests/formats_compare.py" "$WORK/n.json" "$WORK/n.csv" "$WORK/n.txt" |
		sed 's/^/  /'
	return "${PIPESTATUS[0]}"
}

# slab_json FILE ARGS...: the JSON report into $WORK/s.json; slab_eval EXPR reads it as "d".
slab_json() {
	local f=$1; shift
	"$KMTRACE" report -i "$f" "$@" --format json >"$WORK/s.json" || return 1
}
slab_eval() { json_get "$WORK/s.json" "$1"; }

test_slab_kinds_split() {
	local all km cache
	slab_json "$TRACES/small.dat" slab && all=$(slab_eval "d['analyses']['slab']['summary']['allocations']")
	slab_json "$TRACES/small.dat" slab --kmalloc-only --cache &&
		km=$(slab_eval "d['analyses']['slab']['summary']['allocations']") &&
		slab_eval "all(r['cache'].startswith('kmalloc-') for r in d['analyses']['slab']['tables']['caches'])" |
		grep -q True || return 1
	slab_json "$TRACES/small.dat" slab --cache-only --cache &&
		cache=$(slab_eval "d['analyses']['slab']['summary']['allocations']") &&
		slab_eval "not any(r['cache'].startswith('kmalloc-') for r in d['analyses']['slab']['tables']['caches'])" |
		grep -q True || return 1
	echo "  $all = $km kmalloc + $cache cache allocations"
	[ "$km" -gt 0 ] && [ "$cache" -gt 0 ] && [ $((km + cache)) -eq "$all" ]
}

test_slab_pid_filters() {
	local pids p n sum=0 all comm
	slab_json "$TRACES/small.dat" slab --pid || return 1
	all=$(slab_eval "d['analyses']['slab']['summary']['allocations']")
	pids=$(slab_eval "' '.join('%d:%d' % (r['pid'], r['hits']) for r in d['analyses']['slab']['tables']['pids'])")
	for p in $pids; do
		slab_json "$TRACES/small.dat" slab --pid-filter "${p%:*}" || return 1
		n=$(slab_eval "d['analyses']['slab']['summary']['allocations']")
		[ "$n" = "${p#*:}" ] || { echo "  pid ${p%:*}: $n, --pid table says ${p#*:}"; return 1; }
		sum=$((sum + n))
	done
	slab_json "$TRACES/small.dat" slab --pid || return 1
	comm=$(slab_eval "sum(r['hits'] for r in d['analyses']['slab']['tables']['pids'] if r['comm'] == 'ls')")
	slab_json "$TRACES/small.dat" slab --comm ls || return 1
	echo "  per-pid allocations sum to $sum of $all; ls: $comm"
	[ "$sum" = "$all" ] && [ "$comm" -gt 0 ] &&
	[ "$(slab_eval "d['analyses']['slab']['summary']['allocations']")" = "$comm" ]
}

test_slab_time_split() {
	local all a b mid
	slab_json "$TRACES/small.dat" stat slab || return 1
	all=$(slab_eval "d['analyses']['slab']['summary']['allocations']")
	mid=$(slab_eval "'%d.%09d' % divmod((d['analyses']['stat']['summary']['first_ts'] + d['analyses']['stat']['summary']['last_ts']) // 2, 10**9)")
	slab_json "$TRACES/small.dat" slab --time ",$mid" && a=$(slab_eval "d['analyses']['slab']['summary']['allocations']")
	mid=$(python3 -c "s, f = '$mid'.split('.'); n = int(s) * 10**9 + int(f) + 1; print('%d.%09d' % divmod(n, 10**9))")
	slab_json "$TRACES/small.dat" slab --time "$mid," && b=$(slab_eval "d['analyses']['slab']['summary']['allocations']")
	echo "  $all = $a before + $b after $mid"
	[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a + b)) -eq "$all" ]
}

test_slab_sort_lines() {
	slab_json "$TRACES/small.dat" slab --caller -s hit -l 5 || return 1
	slab_eval "[r['hits'] for r in d['analyses']['slab']['tables']['callers']]" |
		python3 -c "import sys, ast; h = ast.literal_eval(sys.stdin.read()); sys.exit(not (len(h) == 5 and h == sorted(h, reverse=True)))" || return 1
	slab_json "$TRACES/small.dat" slab --raw-ip --alloc -s ptr || return 1
	slab_eval "[r['ptr'] for r in d['analyses']['slab']['tables']['pointers']]" |
		python3 -c "import sys, ast; p = ast.literal_eval(sys.stdin.read()); sys.exit(not (len(p) > 5 and p == sorted(p)))" || return 1
	slab_json "$TRACES/small.dat" slab --cache -s frag,bytes || return 1
	slab_eval "[r['frag_percent'] for r in d['analyses']['slab']['tables']['caches']]" |
		python3 -c "import sys, ast; f = ast.literal_eval(sys.stdin.read()); sys.exit(not (f == sorted(f, reverse=True) and f[0] > 0))"
}

test_slab_bad_options() {
	local a
	for a in "-s nosuch" "--time 5" "--time 9,5" "--pid-filter x" "-l -3" "--nosuch" "-s"; do
		# shellcheck disable=SC2086
		"$KMTRACE" report -i "$TRACES/small.dat" slab $a >"$WORK/bo.out" 2>"$WORK/bo.err"
		[ $? -eq 2 ] && [ ! -s "$WORK/bo.out" ] && [ "$(wc -l <"$WORK/bo.err")" -eq 1 ] &&
			grep -q '^kmtrace report slab: ' "$WORK/bo.err" ||
			{ echo "  slab $a: $(cat "$WORK/bo.err")"; return 1; }
	done
}

slab_parsing_tests() {
	check "slab: traces/small.dat summary and every call site equal a recount from trace-cmd report" \
		slab_vs_recount "$TRACES/small.dat"
	check "slab: traces/small-v7.dat (read through libtracecmd) equals its recount too" \
		slab_vs_recount "$TRACES/small-v7.dat"
	check "slab: text, CSV and JSON carry the same numbers (all four tables)" \
		same_numbers "$TRACES/small.dat" stat slab --caller --alloc --cache --pid
	check "slab: the same with --raw-ip and -H off, sorted by hit" \
		same_numbers "$TRACES/small.dat" slab --raw-ip --caller --alloc -s hit
	check "slab: --kmalloc-only + --cache-only allocations = all allocations" test_slab_kinds_split
	check "slab: --pid-filter per pid matches the --pid table; --comm ls matches its pids" \
		test_slab_pid_filters
	check "slab: --time before and after a midpoint add up to all allocations" test_slab_time_split
	check "slab: -s hit, -s ptr, -s frag,bytes order rows; -l limits them" test_slab_sort_lines
	check "slab: bad options exit 2 with one line" test_slab_bad_options
}

test_slab_live() {
	local f=$WORK/slab-live.dat
	"$KMTRACE" record -o "$f" -- sh "$TOP/scripts/workload.sh" 20 400 2>/dev/null || return 1
	slab_vs_recount "$f" || return 1
	# kallsyms were saved: call sites come out as func+0xOFF
	"$KMTRACE" report -i "$f" slab --caller -l 1 --format csv | grep -q '^slab.callers,[a-z_][a-z0-9_.]*+0x[0-9a-f]*,'
}

# Open 2,000 pipes in a process and keep them open while it is recorded.
test_slab_pipes() {
	local f=$WORK/pipes.dat holder rec i n
	rm -f "$WORK/go" "$WORK/ready"
	python3 - "$WORK" <<'PY' &
import os, resource, sys, time
work = sys.argv[1]
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
while not os.path.exists(work + '/go'):
    time.sleep(0.01)
pipes = [os.pipe() for _ in range(2000)]
open(work + '/ready', 'w').close()
time.sleep(600)
PY
	holder=$!
	"$KMTRACE" record -p $holder -o "$f" 2>"$WORK/pipes.err" &
	rec=$!
	# A new instance starts with tracing_on 1; the recorder turns it off, enables
	# the events, and only then on again: wait for events on and tracing on.
	for i in $(seq 1000); do
		[ "$(cat "$TRACEFS/instances/kmtrace-$rec/events/kmem/kmalloc/enable" \
			"$TRACEFS/instances/kmtrace-$rec/tracing_on" 2>/dev/null)" = "$(printf '1\n1')" ] &&
			break
		sleep 0.01
	done
	touch "$WORK/go"
	for i in $(seq 1000); do [ -e "$WORK/ready" ] && break; sleep 0.01; done
	kill -INT $rec; wait $rec; i=$?
	kill $holder; wait $holder 2>/dev/null
	[ $i -eq 0 ] && [ -e "$WORK/ready" ] || { echo "  record rc=$i $(cat "$WORK/pipes.err")"; return 1; }
	slab_vs_recount "$f" $holder || return 1
	n=$(json_get "$WORK/slab.json" "sum(r['live_objects'] for r in d['analyses']['slab']['tables']['callers'] if 'pipe' in r['callsite'] or 'file' in r['callsite'])")
	json_get "$WORK/slab.json" "'\n'.join('  %s: %d live objects, %d live bytes' % (r['callsite'], r['live_objects'], r['live_bytes']) for r in d['analyses']['slab']['tables']['callers'] if ('pipe' in r['callsite'] or 'file' in r['callsite']) and r['live_objects'])"
	echo "  $n live objects at pipe/file call sites"
	[ "$n" -ge 2000 ]
}

# 2,000 UNIX socket pairs: their objects go to the cache the kernel merged
# UNIX into (signal_cache here). slab --cache names it as /proc/slabinfo
# does, says it stands for UNIX, and /proc/slabinfo's count of that very
# cache grows by what the pairs hold; every kmalloc cache named (kmalloc-N,
# kmalloc-cg-N, ...) is one /proc/slabinfo lists.
test_slab_merged_caches() {
	"$KMTRACE" record -e kmem:kmem_cache_alloc -e kmem:kmem_cache_free -e kmem:kmalloc \
		-e kmem:kfree -o "$WORK/socks.dat" -- python3 -c '
import socket, sys
def active(name):
    for line in open("/proc/slabinfo"):
        f = line.split()
        if f[0] == name:
            return int(f[1])
    return -1
os = __import__("os")
link = lambda n: os.path.islink("/sys/kernel/slab/" + n) and os.readlink("/sys/kernel/slab/" + n)
names = [line.split()[0] for line in open("/proc/slabinfo") if line[0] != "#"][1:]
# UNIX merged (a link, as here) is listed under the name of its merged cache
cache = [n for n in names if link("UNIX") and link(n) == link("UNIX")] or ["UNIX"]
before = active(cache[0])
pairs = [socket.socketpair() for _ in range(2000)]
print(cache[0], active(cache[0]) - before, file=open(sys.argv[1], "w"))
__import__("subprocess").run(["ls", "-R", "/usr/share/doc"], stdout=-3)' "$WORK/socks.txt" \
		>/dev/null 2>&1 || return 1
	"$KMTRACE" report -i "$WORK/socks.dat" slab --cache --format json >"$WORK/socks.json" ||
		return 1
	python3 - "$WORK/socks.json" "$WORK/socks.txt" <<'PY'
import json, os, sys
rows = json.load(open(sys.argv[1]))['analyses']['slab']['tables']['caches']
slabinfo_name, grew = open(sys.argv[2]).read().split()
unix = [r for r in rows if 'UNIX' in r['aliases'].split() + [r['cache']]]
assert len(unix) == 1, unix
r = unix[0]
print('  %s (aliases %s): %d allocations; /proc/slabinfo %s grew by %s' %
      (r['cache'], r['aliases'], r['hits'], slabinfo_name, grew))
assert r['cache'] == slabinfo_name and int(grew) >= 3500 and r['hits'] >= 4000, r
link = lambda n: os.readlink('/sys/kernel/slab/' + n)
assert all(link(a) == link(r['cache']) for a in r['aliases'].split())
listed = {l.split()[0] for l in open('/proc/slabinfo') if not l.startswith(('slabinfo', '#'))}
kmalloc = [x['cache'] for x in rows if 'kmalloc' in x['cache'] and 'page allocator' not in x['cache']]
assert kmalloc and all(k in listed for k in kmalloc), [k for k in kmalloc if k not in listed]
assert any(k.startswith('kmalloc-cg-') for k in kmalloc), kmalloc
print('  %d kmalloc caches, all in /proc/slabinfo: %s' % (len(kmalloc), ' '.join(sorted(kmalloc))))
PY
}

slab_live_tests() {
	live "slab: a fresh recording's summary and every call site equal the recount" test_slab_live
	live "slab: 2,000 pipes held open show >= 2,000 live objects at pipe/file call sites" \
		test_slab_pipes
	live "slab: 2,000 UNIX socket pairs: --cache names their merged cache as /proc/slabinfo does, with its aliases; kmalloc-cg-N too" \
		test_slab_merged_caches
}
