# Integration tests of `kmtrace report fault`, `vm` and `oom`, and of what
# record adds for them; sourced by tests/integration.sh (uses its KMTRACE,
# TOP, TRACES, WORK, TRACEFS, check, live, json_get, same_numbers,
# leftover_instances, wait_signals_blocked).

fault_json() { "$KMTRACE" report -i "$1" "${@:2}" --format json >"$WORK/f.json"; }
fault_get() { json_get "$WORK/f.json" "$1"; }
# A summary value of analysis $1: fsum fault minor
fsum() { fault_get "d['analyses']['$1']['summary']['$2']"; }

# Every fault has one outcome, and the command's rusage is made of what was
# traced, what it faulted before tracing began and what raised no event.
test_fault_fixture() {
	fault_json "$TRACES/fault.dat" fault --regions || return 1
	fault_get "(lambda s: s['faults'] == s['minor'] + s['major'] + s['unresolved'] and s['faults'] == s['user'] + s['kernel'] == s['read'] + s['write'] + s['exec'] == s['not_present'] + s['protection'] and s['rusage_minflt'] == s['traced_minor'] + s['before_minflt'] + s['untraced_minor'] and s['rusage_majflt'] == s['traced_major'] and s['major'] == 32 and s['latency_count'] == s['minor'] + s['major'])(d['analyses']['fault']['summary'])" |
		grep -q True || { fault_get "d['analyses']['fault']['summary']"; return 1; }
	# the 500 anonymous pages faultprog touched: one region, user write not-present, minor
	fault_get "[(r['faults'], r['user'], r['write'], r['not_present'], r['minor']) for r in d['analyses']['fault']['tables']['regions'] if r['kind'] == 'anon' and r['end'] - r['start'] == 500 * 4096] == [(500, 500, 500, 500, 500)]" |
		grep -q True
}

test_fault_no_source() {
	fault_json "$TRACES/small.dat" fault || return 1
	[ "$(fsum fault outcomes)" = unavailable ] &&
	fault_get "d['analyses']['fault']['summary']['faults'] > 0 and 'minor' not in d['analyses']['fault']['summary']" |
		grep -q True
}

test_vm_fixture() {
	fault_json "$TRACES/fault.dat" vm oom || return 1
	fault_get "(lambda m: m['mmaps'] >= 3 and m['munmaps'] >= 1 and m['brks'] >= 2 and m['heap'] >= 16 * 4096 and m['peak'] >= 500 * 4096)(d['analyses']['vm']['tables']['mappings'][0])" |
		grep -q True || return 1
	fault_get "d['analyses']['oom']['summary']['kills'] == 0 and d['analyses']['vm']['summary']['traced_anon_peak'] >= 500 * 4096" |
		grep -q True
}

test_fault_bad_options() {
	local a
	for a in "fault --regions=3K" "fault --regions=2G" "fault --timeline 0" "fault -l x" \
		 "vm --timeline x" "oom --nosuch" "fault --time 2,1"; do
		# shellcheck disable=SC2086
		"$KMTRACE" report -i "$TRACES/fault.dat" $a >"$WORK/fo.out" 2>"$WORK/fo.err"
		[ $? -eq 2 ] && [ ! -s "$WORK/fo.out" ] && [ "$(wc -l <"$WORK/fo.err")" -eq 1 ] ||
			{ echo "  $a: $(cat "$WORK/fo.err")"; return 1; }
	done
}

# fault takes exit events (its rows of exited tasks settle on them), but
# --timeline starts at the first event it took before: a fault or a
# syscall. A task that exits first does not move the intervals.
test_fault_exit_first() {
	cat >"$WORK/exitfirst.txt" <<'EOF'
# tracer: nop
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
sleep-100 [000] ..... 100.000000: sched_process_exit: comm=sleep pid=100 prio=120 group_dead=1
sh-200 [000] ..... 100.250000: page_fault_user: address=0x7f07 ip=0x7f07 error_code=0x14
sh-200 [000] ..... 100.350000: page_fault_user: address=0x7f07 ip=0x7f07 error_code=0x14
EOF
	fault_json "$WORK/exitfirst.txt" fault --timeline 200 || return 1
	fault_get "[(r['start'], r['faults'])
		    for r in d['analyses']['fault']['tables']['timeline']] == [(100250000000, 2)]" |
		grep -q True ||
		{ fault_get "d['analyses']['fault']['tables']['timeline']"; return 1; }
}

fault_parsing_tests() {
	check "fault: traces/fault.dat: one outcome per fault, classes add up, rusage = traced + before + untraced" \
		test_fault_fixture
	check "fault: a recording without a fault source says minor/major are unavailable" \
		test_fault_no_source
	check "vm: traces/fault.dat shows faultprog's mmaps, munmaps, brk heap and anon peak; no OOM kill" \
		test_vm_fixture
	check "fault, vm, oom: text, CSV and JSON carry the same numbers" \
		same_numbers "$TRACES/fault.dat" fault --regions --ip --timeline 1 vm --timeline 1 oom
	check "fault, vm, oom: bad options exit 2 with one line" test_fault_bad_options
	check "fault --timeline: a task's exit before the first fault does not move the intervals" \
		test_fault_exit_first
}

# ------------------------------------------------------------------ live

build_faultprog() {
	[ -x "$WORK/faultprog" ] || cc -O2 -o "$WORK/faultprog" "$TOP/tests/progs/faultprog.c"
}

# execve() writes its arguments (file name, argv, environment) into the new
# stack with get_user_pages(): the task is charged those faults, which raise
# no fault event and no perf sample. The strings sit 8 bytes below the page
# aligned top of the stack; EXEC_PAGES is the number of pages they touch.
FAULT_N=50000 FAULT_M=512 FAULT_BRK=256
record_faultprog() {
	local f=$WORK/faultprog.dat pad
	build_faultprog || return 1
	[ -s "$f" ] && return 0
	# a known environment: the exec argument pages are counted from it
	pad=$(head -c 5000 /dev/zero | tr '\0' x)
	env -i PATH=/usr/bin:/bin FAULT_ENV_PAD="$pad" \
		"$KMTRACE" record -o "$f" -- "$WORK/faultprog" $FAULT_N $FAULT_M \
		"$WORK/cold.bin" $FAULT_BRK >/dev/null 2>"$WORK/fp.err" ||
		{ cat "$WORK/fp.err"; return 1; }
	EXEC_PAGES=$(env -i PATH=/usr/bin:/bin FAULT_ENV_PAD="$pad" \
		python3 -c '
import os, sys
total = len(sys.argv[1]) + 1 + sum(len(a) + 1 for a in sys.argv[1:])
total += sum(len(k) + len(v) + 2 for k, v in os.environ.items() if k != "_")
print((8 + total + 4095) // 4096)' "$WORK/faultprog" $FAULT_N $FAULT_M "$WORK/cold.bin" $FAULT_BRK)
}

# Done-when 1: minor and major of the command equal its rusage; the only
# difference is the faults before tracing began and execve's argument pages.
test_fault_rusage() {
	local ra
	record_faultprog || return 1
	fault_json "$WORK/faultprog.dat" fault || return 1
	ra=$(cat /sys/block/*/queue/read_ahead_kb 2>/dev/null | sort -n | tail -1)
	fault_get "'  rusage minor %(rusage_minflt)d = traced %(traced_minor)d + before tracing %(before_minflt)d + untraced %(untraced_minor)d; major %(rusage_majflt)d = traced %(traced_major)d + %(before_majflt)d + %(untraced_major)d' % d['analyses']['fault']['summary']"
	echo "  execve argument pages: $EXEC_PAGES; device readahead ${ra:-?} KiB, MADV_RANDOM mapping: 1 page"
	fault_get "(lambda s: s['untraced_minor'] == $EXEC_PAGES and s['command_execs'] == 1 and s['untraced_major'] == 0 and s['before_majflt'] == 0 and s['traced_major'] == s['rusage_majflt'] >= $FAULT_M > 0 and s['rusage_minflt'] == s['traced_minor'] + s['before_minflt'] + s['untraced_minor'] and s['perf_lost'] == 0)(d['analyses']['fault']['summary'])" |
		grep -q True
}

# Done-when 2: the anonymous touches are user, write, not-present faults.
test_fault_classes() {
	record_faultprog || return 1
	fault_json "$WORK/faultprog.dat" fault --regions || return 1
	fault_get "'\n'.join('  %(kind)s %(start)x-%(end)x: %(faults)d faults, %(user)d user, %(write)d write, %(not_present)d not present, %(minor)d minor' % r for r in d['analyses']['fault']['tables']['regions'][:2])"
	fault_get "[(r['faults'], r['user'], r['write'], r['not_present']) for r in d['analyses']['fault']['tables']['regions'] if r['kind'] == 'anon' and r['end'] - r['start'] == $FAULT_N * 4096] == [($FAULT_N,) * 4]" |
		grep -q True
}

# Done-when 3: brk and mmap growth, and the anon RSS peak within 5% of max RSS.
test_vm_growth() {
	record_faultprog || return 1
	fault_json "$WORK/faultprog.dat" vm || return 1
	fault_get "'  max RSS %(rusage_maxrss)d, traced RSS peak %(traced_rss_peak)d, anon peak %(traced_anon_peak)d (%(anon_peak_of_maxrss).2f%%)' % d['analyses']['vm']['summary']"
	fault_get "(lambda s, m: abs(s['traced_anon_peak'] - s['rusage_maxrss']) <= 0.05 * s['rusage_maxrss'] and m['heap'] >= $FAULT_BRK * 4096 and m['peak'] >= ($FAULT_N + $FAULT_BRK) * 4096 and m['mmaps'] >= 2)(d['analyses']['vm']['summary'], [r for r in d['analyses']['vm']['tables']['mappings'] if r['comm'] == 'faultprog'][0])" |
		grep -q True
}

# Done-when 4: a recorder stopped by a signal mid-run leaves no probe and no instance.
test_kill_recorder() {
	local sig=$1 pid rc
	env --default-signal=INT,TERM "$KMTRACE" record -o "$WORK/kill-$sig.dat" -- sleep 30 2>/dev/null &
	pid=$!
	wait_signals_blocked $pid || return 1
	for _ in $(seq 100); do [ -n "$(leftover_instances)" ] && break; sleep 0.05; done
	[ -n "$(leftover_instances)" ] || { echo "  never saw the instance"; return 1; }
	sleep 0.2
	kill -"$sig" $pid
	wait $pid; rc=$?
	[ $rc -eq 0 ] || { echo "  rc=$rc"; return 1; }
	[ -z "$(leftover_instances)" ] || { echo "  instance left: $(leftover_instances)"; return 1; }
	! grep -q kmtrace "$TRACEFS/dynamic_events" || { echo "  probe left: $(grep kmtrace "$TRACEFS/dynamic_events")"; return 1; }
	"$KMTRACE" report -i "$WORK/kill-$sig.dat" fault >/dev/null
}

test_no_kprobes() {
	"$KMTRACE" record --no-kprobes -o "$WORK/nokp.dat" -- true 2>/dev/null || return 1
	fault_json "$WORK/nokp.dat" fault || return 1
	fsum fault outcome_source | grep -q 'turned off with --no-kprobes'
}

# Done-when 5: a child over a small memory limit in a cgroup of ours is killed.
test_oom_cgroup() {
	local cg pid v2=0
	if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		v2=1; cg=/sys/fs/cgroup/kmtrace-test-$$
	elif [ -d /sys/fs/cgroup/memory ]; then
		cg=/sys/fs/cgroup/memory/kmtrace-test-$$
	else
		echo "  SKIP ******** neither cgroup v2 memory.max nor v1 memory.limit_in_bytes ********"
		return 0
	fi
	build_faultprog && mkdir "$cg" || return 1
	if [ $v2 = 1 ]; then
		echo 64M >"$cg/memory.max" && echo 0 >"$cg/memory.swap.max" 2>/dev/null
	else
		echo 64M >"$cg/memory.limit_in_bytes"
	fi
	"$KMTRACE" record -o "$WORK/oom.dat" -- sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2" && exec "$3" 100000 0 "$4"' \
		sh "$cg" "$WORK/oom.pid" "$WORK/faultprog" "$WORK/oom-file.bin" >/dev/null 2>"$WORK/oom.err"
	for _ in $(seq 50); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
	[ ! -d "$cg" ] || { echo "  cgroup $cg left"; return 1; }
	grep -q 'killed by signal 9' "$WORK/oom.err" || { cat "$WORK/oom.err"; return 1; }
	pid=$(cat "$WORK/oom.pid")
	fault_json "$WORK/oom.dat" oom || return 1
	fault_get "'\n'.join('  killed pid %(pid)d %(comm)s: total_vm %(total_vm)d, anon_rss %(anon_rss)d, oom_score_adj %(oom_score_adj)d' % k for k in d['analyses']['oom']['tables']['kills'])"
	fault_get "[(k['pid'], k['comm']) for k in d['analyses']['oom']['tables']['kills']] == [($pid, 'faultprog')] and d['analyses']['oom']['tables']['kills'][0]['anon_rss'] > 32 << 20" |
		grep -q True
}

# rss_stat's mm_id names the next address space once one is freed: every
# process a workload execs gets an address space of its own, not its
# predecessor's (a recording of 60 short processes gave 20 before).
test_vm_mm_reuse() {
	local f=$WORK/mmreuse.dat execs spaces
	"$KMTRACE" record -e kmem:rss_stat -e sched:sched_process_exec -e sched:sched_process_exit \
		-e sched:sched_process_fork -o "$f" -- sh "$TOP/scripts/workload.sh" 60 10 \
		>/dev/null 2>&1 || return 1
	fault_json "$f" vm -l 1000 stat || return 1
	execs=$(fault_get "[r['count'] for r in d['analyses']['stat']['tables']['events'] if r['event'] == 'sched:sched_process_exec'][0]")
	spaces=$(fault_get "d['analyses']['vm']['summary']['address_spaces']")
	echo "  $execs execs, $spaces address spaces"
	[ "$spaces" -ge "$execs" ] && [ "$execs" -ge 60 ] &&
	# no address space holds two processes' pids as owner
	fault_get "len(set(r['pid'] for r in d['analyses']['vm']['tables']['rss'] if r['pid'])) >= $execs" |
		grep -q True
}

# wait4's max RSS covers the command's descendants: a child's large
# address space is what it is set beside, not the shell's.
test_vm_descendant_maxrss() {
	local f=$WORK/desc.dat
	build_faultprog || return 1
	"$KMTRACE" record -o "$f" -- sh -c "'$WORK/faultprog' 40000 0 '$WORK/desc.bin'; true" \
		>/dev/null 2>&1 || return 1
	fault_json "$f" vm || return 1
	fault_get "'  max RSS %(rusage_maxrss)d, traced peak %(traced_rss_peak)d of pid %(rss_peak_pid)d (command %(command_pid)d)' % d['analyses']['vm']['summary']"
	fault_get "(lambda s: s['rss_peak_pid'] != s['command_pid'] and abs(s['traced_rss_peak'] - s['rusage_maxrss']) <= 0.05 * s['rusage_maxrss'])(d['analyses']['vm']['summary'])" |
		grep -q True
}

# Every fault the kernel counted reached the recording: "perf samples
# lost" is what the events counted less the samples kept. The reader once
# skipped records that arrived while it finished a pass (about one run in
# ten of 50,000 faults lost one sample).
test_fault_no_sample_lost() {
	local i f=$WORK/nolost.dat
	build_faultprog || return 1
	for i in 1 2 3; do
		rm -f "$f"
		"$KMTRACE" record -o "$f" -- "$WORK/faultprog" 150000 0 none 0 >/dev/null 2>&1 || return 1
		fault_json "$f" fault || return 1
		fault_get "'  run $i: %(faults)d faults, %(perf_samples)d samples, %(perf_lost)d lost, %(minor)d minor, %(unresolved)d unresolved' % d['analyses']['fault']['summary']"
		fault_get "(lambda s: s['perf_lost'] == 0 and s['unresolved'] == 0 and s['faults'] == s['minor'] + s['major'] == s['perf_samples'] and s['traced_minor'] >= 150000)(d['analyses']['fault']['summary'])" |
			grep -q True || return 1
	done
}

# Rows of exited processes (and of their ended address spaces) go once
# LINES settled rows rank above them: 40 short processes, then one past
# the second a row takes to settle. The table -l 6 shows is the first 6
# rows of the whole one, with the same summary (the overall latency
# percentiles keep the rows that went, vm the command's highest RSS), also
# with -l 0, where every row goes as it settles.
test_exited_rows() {
	local f=$WORK/exited.dat p=$WORK/faultprog
	build_faultprog || return 1
	"$KMTRACE" record -o "$f" -- sh -c "for i in \$(seq 40); do
		$p \$((i % 7 * 30 + 1)) 0 none 0; done; sleep 1.3; $p 1 0 none 0" \
		>/dev/null 2>"$WORK/ex.err" || { cat "$WORK/ex.err"; return 1; }
	"$KMTRACE" report -i "$f" fault -l 100000 vm -l 100000 --format json >"$WORK/ex-all.json" &&
		"$KMTRACE" report -i "$f" fault -l 6 vm -l 6 --format json >"$WORK/ex-top.json" &&
		"$KMTRACE" report -i "$f" fault -l 0 vm -l 0 --format json >"$WORK/ex-none.json" ||
		return 1
	python3 - "$WORK/ex-all.json" "$WORK/ex-top.json" "$WORK/ex-none.json" <<'PY'
import json, sys
full, top, none = (json.load(open(p))['analyses'] for p in sys.argv[1:])
# -l 0: every settled row goes at once; the summaries still count them
assert none['fault']['summary'] == full['fault']['summary']
assert none['vm']['summary'] == full['vm']['summary'] and full['vm']['summary']['rss_peak_pid']
for an, table in (('fault', 'processes'), ('vm', 'mappings'), ('vm', 'rss')):
    rows = full[an]['tables'][table]
    print(f"  {an} {table}: {len(rows)} rows in all, -l 6 shows the first 6: "
          f"{top[an]['tables'][table] == rows[:6]}")
    assert len(rows) >= 40 and top[an]['tables'][table] == rows[:6]
    assert top[an]['summary'] == full[an]['summary'], an
PY
}

fault_live_tests() {
	live "vm: each exec'd process gets an address space of its own (mm_id reuse)" test_vm_mm_reuse
	live "vm: the command's max RSS is set beside its descendant's peak" test_vm_descendant_maxrss
	live "fault: minor and major of faultprog equal its rusage (less before-tracing faults and execve's argument pages); major >= file pages > 0" \
		test_fault_rusage
	live "fault: faultprog's anonymous touches are user, write, not-present" test_fault_classes
	live "fault, vm: of 40 exited processes, -l 6 shows the first 6 rows of the whole table" \
		test_exited_rows
	live "fault: 3 runs of 150,000 faults: every fault the kernel counted has its sample (perf lost=0)" \
		test_fault_no_sample_lost
	live "vm: faultprog's brk and mmap growth; anon RSS peak within 5% of rusage max RSS" \
		test_vm_growth
	live "record: SIGTERM mid-run removes the instance and the fault probe" test_kill_recorder TERM
	live "record: SIGINT mid-run removes the instance and the fault probe" test_kill_recorder INT
	live "record --no-kprobes: the report says where minor/major came from" test_no_kprobes
	live "oom: a child over a 64M cgroup memory limit is listed as killed" test_oom_cgroup
}
