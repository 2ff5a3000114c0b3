# Integration tests of all of kernel memory (reclaim, compaction, vmalloc,
# percpu, page cache, memcg, top, record --cgroup), sourced by
# tests/integration.sh (uses its KMTRACE, TOP, WORK, check, live, json_get).

# A memory cgroup of this run, limited to $2 bytes: its directory on stdout
# (v2 where the unified hierarchy has the memory controller, else v1).
make_memcg() {
	local name=$1 limit=$2 v2=/sys/fs/cgroup v1=/sys/fs/cgroup/memory d
	[ -f /sys/fs/cgroup/unified/cgroup.controllers ] && v2=/sys/fs/cgroup/unified
	if grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
		d=$v2/$name
		mkdir "$d" && echo "$limit" >"$d/memory.max" || return 1
	elif [ -d "$v1" ]; then
		d=$v1/$name
		mkdir "$d" && echo "$limit" >"$d/memory.limit_in_bytes" || return 1
	else
		return 1
	fi
	echo "$d"
}

# A 200 MiB file on a disk (not tmpfs: its pages must be reclaimable),
# written past the page cache so that reading it charges the reader.
big_file() {
	local dir=$WORK
	[ "$(stat -f -c %T "$dir")" = tmpfs ] && dir=/var/tmp
	BIG=$(mktemp "$dir/kmtrace-big.XXXXXX") &&
	dd if=/dev/zero of="$BIG" bs=1M count=200 oflag=direct status=none
}

# Reading 200 MiB in a 32 MiB memory cgroup: the reader stalls in memcg
# reclaim. Its stalls, pages reclaimed and latencies (p50, p99, max) equal a
# recount from trace-cmd report; it has no global direct reclaim; what it
# reclaimed covers what did not fit.
test_reclaim_memcg() {
	local cg pid rc=0 need
	big_file || return 1
	cg=$(make_memcg "kmtrace-it-$$-reclaim" $((32 << 20))) || { rm -f "$BIG"; return 1; }
	"$KMTRACE" record -e vmscan -o "$WORK/reclaim.dat" -- sh -c \
		"echo \$\$ >$cg/cgroup.procs && echo \$\$ >$WORK/reader.pid && exec cat $BIG >/dev/null" \
		2>"$WORK/reclaim.err" || rc=1
	rmdir "$cg"
	rm -f "$BIG"
	[ $rc = 0 ] || { cat "$WORK/reclaim.err"; return 1; }
	pid=$(cat "$WORK/reader.pid")
	"$KMTRACE" report -i "$WORK/reclaim.dat" reclaim --format json >"$WORK/reclaim.json" || return 1
	trace-cmd report -t -i "$WORK/reclaim.dat" 2>/dev/null |
		python3 "$TOP/tests/reclaim_recount.py" "$WORK/reclaim.json" "$pid" | sed 's/^/  /'
	[ "${PIPESTATUS[1]}" = 0 ] || return 1
	need=$(((200 - 32) * 1024 * 1024 / $(getconf PAGESIZE) * 9 / 10))
	json_get "$WORK/reclaim.json" "[(r['context'], r['stalls'], r['reclaimed'], r['lat_max']) for r in d['analyses']['reclaim']['tables']['processes'] if r['pid'] == $pid]" |
		sed 's/^/  kmtrace: /'
	json_get "$WORK/reclaim.json" "all(r['stalls'] == 0 for r in d['analyses']['reclaim']['tables']['processes'] if r['pid'] == $pid and r['context'] == 'direct') and sum(r['reclaimed'] for r in d['analyses']['reclaim']['tables']['processes'] if r['pid'] == $pid and r['context'] == 'memcg') >= $need and any(r['lat_max'] > 0 for r in d['analyses']['reclaim']['tables']['processes'] if r['pid'] == $pid)" |
		grep -q True
}


# A system-wide recording of the slab allocations while `top --count 3`
# runs: each interval's count agrees with the recording's for its seconds;
# top's instance is gone after the count.
test_top_count() {
	local rec tp rc=0 w
	"$KMTRACE" record -e kmem:kmalloc -e kmem:kmem_cache_alloc -o "$WORK/top.dat" \
		2>"$WORK/top-rec.err" &
	rec=$!
	for w in $(seq 50); do [ -d "$TRACEFS/instances/kmtrace-$rec" ] && break; sleep 0.1; done
	sleep 0.3
	( for w in $(seq 40); do ls -R /usr/share >/dev/null 2>&1; sleep 0.05; done ) &
	w=$!
	"$KMTRACE" top --count 3 --format json >"$WORK/top.json" 2>"$WORK/top.err" &
	tp=$!
	wait $tp || rc=1
	sleep 0.3
	kill -INT $rec
	wait $rec || rc=1
	wait $w
	[ -d "$TRACEFS/instances/kmtrace-$tp" ] && { echo "  top's instance left"; rc=1; }
	[ $rc = 0 ] || { cat "$WORK/top.err" "$WORK/top-rec.err"; return 1; }
	trace-cmd report -t -i "$WORK/top.dat" 2>/dev/null |
		python3 "$TOP/tests/top_recount.py" "$WORK/top.json" | sed 's/^/  /'
	[ "${PIPESTATUS[1]}" = 0 ]
}

# top until SIGINT: exit 0, at least one interval printed, its instance gone.
test_top_sigint() {
	local tp rc
	"$KMTRACE" top -d 300 >"$WORK/top-int.txt" 2>"$WORK/top-int.err" &
	tp=$!
	sleep 1.2
	[ -d "$TRACEFS/instances/kmtrace-$tp" ] || { echo "  no instance while running"; return 1; }
	kill -INT $tp
	wait $tp
	rc=$?
	[ $rc = 0 ] && [ ! -d "$TRACEFS/instances/kmtrace-$tp" ] &&
	[ "$(grep -c '^== top ==' "$WORK/top-int.txt")" -ge 2 ] &&
	grep -q 'Slab by cache' "$WORK/top-int.txt" ||
		{ echo "  rc $rc: $(cat "$WORK/top-int.err")"; return 1; }
}

mm_live_tests() {
	live "top --count 3: three intervals whose slab allocations agree with a recording of the same seconds; no instance left" \
		test_top_count
	live "top until SIGINT: exit 0, intervals printed, no instance left" test_top_sigint
	live "reclaim: a 200 MiB read in a 32 MiB memcg stalls in memcg reclaim, apart from global; stalls, pages and p50/p99/max equal trace-cmd report's" \
		test_reclaim_memcg
}
