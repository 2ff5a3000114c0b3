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

# record --cgroup on an empty cgroup; a shell joins it later and forks
# children that each write their pid to a log first thing (the cgroup's
# members, all of them), while a loop outside the cgroup runs too. Every
# member has events in the recording, and no other process has; a snapshot
# of the cgroup's cgroup.procs taken meanwhile is among the recorded.
test_record_cgroup() {
	local cg rec log=$WORK/members.log rc=0 noise
	cg=$(make_memcg "kmtrace-it-$$-members" $((1 << 30))) || return 1
	: >"$log"
	( while :; do cat /etc/hostname >/dev/null; sleep 0.05; done ) &
	noise=$!
	"$KMTRACE" record --cgroup "$cg" -d 3 -o "$WORK/cgroup.dat" 2>"$WORK/cgroup.err" &
	rec=$!
	sleep 0.5
	sh -c "echo \$\$ >$cg/cgroup.procs && echo \$\$ >>$log && sh -c 'echo \$\$ >>$log; exec sleep 0.4' &&
		for i in 1 2 3 4 5 6 7 8; do
			sh -c 'echo \$\$ >>$log; exec cat /etc/passwd >/dev/null' &
			sh -c 'echo \$\$ >>$log; exec sleep 0.1'
		done; while read p; do echo \$p; done <$cg/cgroup.procs >$WORK/procs.snapshot; wait"
	wait $rec || rc=1
	kill $noise; wait $noise 2>/dev/null
	rmdir "$cg"
	[ $rc = 0 ] || { cat "$WORK/cgroup.err"; return 1; }
	trace-cmd report -i "$WORK/cgroup.dat" 2>/dev/null |
		sed -n 's/^ *[^ ]*-\([0-9][0-9]*\) .*/\1/p' | sort -un >"$WORK/recorded.pids"
	sort -un "$log" >"$WORK/members.pids"
	echo "  members $(wc -l <"$WORK/members.pids"), recorded processes $(wc -l <"$WORK/recorded.pids"), others recorded: $(comm -13 "$WORK/members.pids" "$WORK/recorded.pids" | tr '\n' ' ')"
	[ "$(wc -l <"$WORK/members.pids")" -ge 18 ] &&
	cmp -s "$WORK/members.pids" "$WORK/recorded.pids" &&
	[ -z "$(sort -un "$WORK/procs.snapshot" | comm -23 - "$WORK/recorded.pids")" ]
}

# A 2 s system-wide recording of every memory group (record -e mm) under a
# file-reading load: stat decodes more than 99% of each group's events.
test_stat_mm_decoded() {
	local w
	( for w in $(seq 30); do find /usr/share -type f 2>/dev/null | head -200 | xargs cat >/dev/null 2>&1; done ) &
	w=$!
	"$KMTRACE" record -e mm -d 2 -o "$WORK/mm.dat" 2>"$WORK/mm.err" || { kill $w; cat "$WORK/mm.err"; return 1; }
	kill $w 2>/dev/null; wait $w 2>/dev/null
	"$KMTRACE" report -i "$WORK/mm.dat" stat --format json >"$WORK/mm.json" || return 1
	json_get "$WORK/mm.json" "'\\n'.join('  %s: %d events, %.2f%% decoded' % (r['group'], r['events'], r['share_decoded']) for r in d['analyses']['stat']['tables']['groups'])"
	json_get "$WORK/mm.json" "d['analyses']['stat']['summary']['total_events'] > 10000 and all(r['share_decoded'] > 99 for r in d['analyses']['stat']['tables']['groups'] if r['group'] in ('kmem','vmscan','vmalloc','percpu','filemap','compaction','oom','memcg')) and {'kmem','memcg','filemap'} <= {r['group'] for r in d['analyses']['stat']['tables']['groups']}" | grep -q True
}

# Every per-process table in JSON says who each task is: ppid, executable
# and cgroup in every row; the command as /proc showed it (run in a memory
# cgroup of its own), a child that lived past a /proc scan with its command
# line, and one too short for /proc from its fork and exec events.
test_process_info() {
	local cg rec f=$WORK/procs.dat
	cg=$(make_memcg "kmtrace-it-$$-procs" $((1 << 30))) || return 1
	sh -c "echo \$\$ >$cg/cgroup.procs && exec \"$KMTRACE\" record -o $f -- sh -c '
		echo \$\$ >$WORK/procs.sh
		/usr/bin/python3 -c \"import os, time; print(os.getpid()); x = bytearray(8 << 20); time.sleep(0.8)\" >$WORK/procs.py
		/bin/true & echo \$! >$WORK/procs.true; wait'" 2>"$WORK/procs.err" &
	rec=$!
	wait $rec || { rmdir "$cg"; cat "$WORK/procs.err"; return 1; }
	rmdir "$cg"
	"$KMTRACE" report -i "$f" slab --pid page --pid fault vm --format json >"$WORK/procs.json" || return 1
	python3 - "$WORK/procs.json" "$rec" "$(cat "$WORK/procs.sh")" "$(cat "$WORK/procs.py")" \
		"$(cat "$WORK/procs.true")" "/${cg##*/}" "$(readlink -f /bin/sh)" <<'PY'
import json, os, sys
doc, rec, sh, py, true, cgroup, sh_exe = sys.argv[1:]
rows = {}
tables = 0
for name, a in json.load(open(doc))['analyses'].items():
    for key, t in a['tables'].items():
        if not t or 'pid' not in t[0]:
            continue
        tables += 1
        for r in t:
            assert {'ppid', 'executable', 'cgroup', 'tgid', 'cmdline', 'start_time'} <= set(r), (name, key, r)
            rows[r['pid']] = r
want = {
    int(sh): (int(rec), sh_exe, cgroup, 'sh -c'),
    int(py): (int(sh), os.path.realpath('/usr/bin/python3'), cgroup, '/usr/bin/python3 -c'),
    int(true): (int(sh), '/bin/true', cgroup, None),
}
ok = tables >= 5
for pid, (ppid, exe, cg, cmd) in want.items():
    r = rows.get(pid, {})
    print('  pid %d: ppid %s, executable %s, cgroup %s, cmdline %.30r' % (
        pid, r.get('ppid'), r.get('executable'), r.get('cgroup'), r.get('cmdline')))
    ok = ok and r.get('ppid') == ppid and r.get('executable') == exe and r.get('cgroup') == cg
    ok = ok and (cmd is None or (r.get('cmdline') or '').startswith(cmd))
print('  %d per-process tables, %d tasks' % (tables, len(rows)))
sys.exit(0 if ok else 1)
PY
}

# pagecache names a file by the path the recording saw it open: a 4 MiB file
# written past the page cache, read by a process that keeps it open.
test_pagecache_path() {
	local dir=$WORK file ino
	[ "$(stat -f -c %T "$dir")" = tmpfs ] && dir=/var/tmp
	file=$(mktemp "$dir/kmtrace-pc.XXXXXX") || return 1
	dd if=/dev/zero of="$file" bs=1M count=4 oflag=direct status=none || { rm -f "$file"; return 1; }
	ino=$(stat -c %i "$file")
	"$KMTRACE" record -e default -e filemap -o "$WORK/pcpath.dat" -- /usr/bin/python3 -c \
		"import sys, time; f = open(sys.argv[1], 'rb'); f.read(); time.sleep(0.7)" "$file" \
		2>"$WORK/pcpath.err" || { rm -f "$file"; cat "$WORK/pcpath.err"; return 1; }
	rm -f "$file"
	"$KMTRACE" report -i "$WORK/pcpath.dat" pagecache --format json >"$WORK/pcpath.json" || return 1
	json_get "$WORK/pcpath.json" "[('  inode %d: %s, %d pages added' % (r['inode'], r['path'], r['added'])) for r in d['analyses']['pagecache']['tables']['files'] if r['inode'] == $ino][0]" &&
	json_get "$WORK/pcpath.json" "any(r['inode'] == $ino and r['path'] == '$file' and r['added'] >= 1024 for r in d['analyses']['pagecache']['tables']['files'])" | grep -q True
}

mm_live_tests() {
	live "record -e mm system-wide: stat decodes more than 99% of each memory group's events" \
		test_stat_mm_decoded
	live "top --count 3: three intervals whose slab allocations agree with a recording of the same seconds; no instance left" \
		test_top_count
	live "top until SIGINT: exit 0, intervals printed, no instance left" test_top_sigint
	live "top under tmux: 2 shows pages alone, s s 1 the slab tables by bytes, space pauses and resumes, q quits with 0 and no instance left" \
		test_top_keys
	live "record --cgroup: a cgroup a shell joins later, and its forked children: all of them recorded, nothing else" \
		test_record_cgroup
	live "reclaim: a 200 MiB read in a 32 MiB memcg stalls in memcg reclaim, apart from global; stalls, pages and p50/p99/max equal trace-cmd report's" \
		test_reclaim_memcg
	live "process information: every per-process JSON table carries ppid, executable and cgroup; /proc's and the fork and exec events' agree with the tasks run" \
		test_process_info
	live "pagecache: a file read by a process that has it open is named by its path" \
		test_pagecache_path
}

# ------------------------------------------------- traces/mm.dat, offline
# reclaim, compaction, vmalloc, percpu, pagecache and memcg on the shipped
# recording, recounted from trace-cmd report of the same file.
MM=$TRACES/mm.dat

# mm_recount.py's verdicts for the five it recounts, once per run.
mm_recounted() {
	[ -s "$WORK/mm-recount.txt" ] && return 0
	"$KMTRACE" report -i "$MM" --format json compaction vmalloc percpu pagecache -l 0 \
		memcg -l 0 >"$WORK/mm-fixture.json" 2>/dev/null || return 1
	trace-cmd report -t -i "$MM" 2>/dev/null |
		python3 "$TOP/tests/mm_recount.py" "$WORK/mm-fixture.json" >"$WORK/mm-recount.txt"
	[ -s "$WORK/mm-recount.txt" ]
}

test_mm_recount() {
	mm_recounted || return 1
	grep "^$1: " "$WORK/mm-recount.txt" | sed 's/^/  /'
	grep -q "^$1: .*: equal$" "$WORK/mm-recount.txt"
}

# reclaim: the reader's memcg stalls, pages and latencies equal
# reclaim_recount.py's from trace-cmd report.
test_mm_reclaim_recount() {
	local pid
	"$KMTRACE" report -i "$MM" reclaim --format json >"$WORK/mm-reclaim.json" 2>/dev/null || return 1
	pid=$(json_get "$WORK/mm-reclaim.json" "[r['pid'] for r in d['analyses']['reclaim']['tables']['processes'] if r['comm'] == 'cat'][0]") ||
		return 1
	trace-cmd report -t -i "$MM" 2>/dev/null |
		python3 "$TOP/tests/reclaim_recount.py" "$WORK/mm-reclaim.json" "$pid" | sed 's/^/  /'
	[ "${PIPESTATUS[1]}" = 0 ]
}

# memcg names its statistics from the recording's /proc/vmstat: enum
# node_stat_item 2 is nr_inactive_file and vm_event_item 0 pgpgin on every
# kernel since 4.8; every lruvec and event row has a name.
test_mm_memcg_names() {
	json_get "$WORK/mm-fixture.json" "sorted(set((r['kind'], r['item'], r['name']) for r in d['analyses']['memcg']['tables']['statistics'] if (r['kind'], r['item']) in (('lruvec_state', 2), ('event', 0))))" |
		grep -qx "\[('event', 0, 'pgpgin'), ('lruvec_state', 2, 'nr_inactive_file')\]" &&
	json_get "$WORK/mm-fixture.json" "all(r['name'] for r in d['analyses']['memcg']['tables']['statistics'] if r['kind'] != 'memcg_state')" |
		grep -q True
}

mm_parsing_tests() {
	check "reclaim on traces/mm.dat: the reader's memcg stalls, pages and p50/p99/max equal trace-cmd report's" \
		test_mm_reclaim_recount
	local a
	for a in compaction vmalloc percpu pagecache memcg; do
		check "$a on traces/mm.dat: every figure and row equal to a recount from trace-cmd report" \
			test_mm_recount $a
	done
	check "memcg on traces/mm.dat: statistics named from the recording's /proc/vmstat" \
		test_mm_memcg_names
}

# kmtrace top under tmux: keys switch the view (2: pages only), change the
# slab tables' order (s, s: bytes), pause (the interval number stays) and
# resume, and q quits with status 0, its instance gone.
tmux_screen() { tmux capture-pane -t "$1" -p; }

# The BYTES column of "Slab by cache" on screen $1, one number a line.
slab_bytes_column() {
	tmux_screen "$1" | awk '/^Slab by cache/ { on = 1; next } on && /CACHE/ { next } on && NF == 0 { exit } on { print $(NF - 1) }'
}

test_top_keys() {
	local s=kmtrace-it-$$-top i1 i2 w
	command -v tmux >/dev/null || { echo "  no tmux (make deps installs it)"; return 1; }
	tmux new-session -d -s "$s" -x 200 -y 80 \
		"\"$KMTRACE\" top -d 300; echo \$? >\"$WORK/top-keys.exit\"; sleep 60" || return 1
	for w in $(seq 50); do tmux_screen "$s" | grep -q '^\[live\]' && break; sleep 0.1; done
	tmux send-keys -t "$s" 2; sleep 0.5
	tmux_screen "$s" | grep -q '^Pages by process' && ! tmux_screen "$s" | grep -q '^Slab by cache' ||
		{ echo "  2 did not show pages alone"; tmux kill-session -t "$s"; return 1; }
	tmux send-keys -t "$s" s s 1; sleep 0.5
	tmux_screen "$s" | grep -q 'sort (bytes).*view (slab)' &&
	[ "$(slab_bytes_column "$s" | wc -l)" -ge 2 ] && slab_bytes_column "$s" | sort -c -n -r ||
		{ echo "  s s 1: not the slab view sorted by bytes"; tmux_screen "$s" | tail -3; tmux kill-session -t "$s"; return 1; }
	tmux send-keys -t "$s" ' '; sleep 0.2
	i1=$(tmux_screen "$s" | awk '/Interval/ { print $2 }'); sleep 1
	i2=$(tmux_screen "$s" | awk '/Interval/ { print $2 }')
	tmux_screen "$s" | grep -q '^\[paused\]' && [ "$i1" = "$i2" ] ||
		{ echo "  paused: interval $i1 then $i2"; tmux kill-session -t "$s"; return 1; }
	tmux send-keys -t "$s" ' '; sleep 1
	i2=$(tmux_screen "$s" | awk '/Interval/ { print $2 }')
	[ "$i2" -gt "$i1" ] || { echo "  resumed: interval $i1 then $i2"; tmux kill-session -t "$s"; return 1; }
	tmux send-keys -t "$s" q
	for w in $(seq 50); do [ -s "$WORK/top-keys.exit" ] && break; sleep 0.1; done
	tmux kill-session -t "$s"
	[ "$(cat "$WORK/top-keys.exit" 2>/dev/null)" = 0 ] || { echo "  q: no exit 0"; return 1; }
	[ -z "$(leftover_instances)" ]
}
