# Integration tests of kmtrace record's safety: where it writes, what stops
# it, what it leaves behind, what it exits with. Sourced by
# tests/integration.sh (uses its KMTRACE, REAL_KMTRACE, TOP, WORK, check,
# live, leftover_instances, wait_signals_blocked).

RWORK=$WORK/record
mkdir -p "$RWORK"

# rec_expect RC PATTERN ARGS...: kmtrace record ARGS exits RC with one stderr line matching PATTERN.
rec_expect() {
	local want=$1 pat=$2 rc; shift 2
	"$KMTRACE" record "$@" >"$RWORK/x.out" 2>"$RWORK/x.err"
	rc=$?
	[ $rc = "$want" ] && [ "$(wc -l <"$RWORK/x.err")" = 1 ] && grep -q -- "$pat" "$RWORK/x.err" ||
		{ echo "  record $*: rc=$rc: $(head -c 400 "$RWORK/x.err")"; return 1; }
}

# A character device node of our own (not /dev/null) stays one: the
# recording streams into it. /dev/null itself is left as it was.
test_rec_chardev() {
	local dev=$RWORK/nulldev before
	before=$(stat -c '%F %t:%T' /dev/null)
	rm -f "$dev"; mknod "$dev" c 1 3 || return 1
	"$KMTRACE" record -f -d 0.2 -o "$dev" 2>"$RWORK/cd.err" || { cat "$RWORK/cd.err"; return 1; }
	[ "$(stat -c '%F %t:%T' "$dev")" = "character special file 1:3" ] &&
	[ "$(stat -c '%F %t:%T' /dev/null)" = "$before" ] &&
	grep -q "written to $dev" "$RWORK/cd.err"
}

# What must never be written: one line, exit 2, the node untouched, no instance made.
test_rec_refusals() {
	local n
	rm -f "$RWORK/mem" "$RWORK/blk"
	mknod "$RWORK/mem" c 1 1 && mknod "$RWORK/blk" b 7 0 || return 1
	rec_expect 2 "memory device" -f -d 0.1 -o "$RWORK/mem" &&
	rec_expect 2 "block device" -f -d 0.1 -o "$RWORK/blk" &&
	rec_expect 2 "is a directory" -f -d 0.1 -o "$RWORK" &&
	ln -sf "$RWORK/nowhere/x" "$RWORK/dangling" &&
	rec_expect 2 "symbolic link to nothing" -d 0.1 -o "$RWORK/dangling" || return 1
	for n in mem blk; do
		[ -b "$RWORK/$n" ] || [ -c "$RWORK/$n" ] || { echo "  $n replaced"; return 1; }
	done
	[ -z "$(leftover_instances)" ]
}

# -o - is standard output: a trace.dat there, no file named "-"; a terminal is refused.
test_rec_stdout() {
	(cd "$RWORK" && "$KMTRACE" record -d 0.2 -o - >"$RWORK/stdout.dat" 2>"$RWORK/so.err") ||
		{ cat "$RWORK/so.err"; return 1; }
	[ ! -e "$RWORK/-" ] && grep -q 'written to standard output' "$RWORK/so.err" &&
	"$KMTRACE" report -i "$RWORK/stdout.dat" >/dev/null || return 1
	script -qec "$KMTRACE record -d 0.2 -o -" /dev/null >"$RWORK/tty.out" 2>&1
	[ $? = 2 ] && grep -q 'standard output is a terminal' "$RWORK/tty.out" ||
		{ echo "  on a terminal: $(cat "$RWORK/tty.out")"; return 1; }
}

# A FIFO is written into as a stream, and stays a FIFO.
test_rec_fifo() {
	local f=$RWORK/fifo
	rm -f "$f"; mkfifo "$f" || return 1
	cat "$f" >"$RWORK/fifo.dat" &
	"$KMTRACE" record -d 0.2 -o "$f" 2>/dev/null || return 1
	wait
	[ -p "$f" ] && "$KMTRACE" report -i "$RWORK/fifo.dat" >/dev/null
}

# -- with no command, -p 0, -p of no process, -b 0: one line, exit 2, nothing recorded.
test_rec_bad_requests() {
	rec_expect 2 "no command after --" -o "$RWORK/e.dat" -- &&
	rec_expect 2 "invalid pid '0'" -p 0 -o "$RWORK/e.dat" &&
	rec_expect 2 "-p 999999: no such process" -p 999999 -o "$RWORK/e.dat" &&
	rec_expect 2 "invalid buffer size" -b 0 -o "$RWORK/e.dat" &&
	rec_expect 2 "invalid --max-size" --max-size 12Q -o "$RWORK/e.dat" &&
	[ ! -e "$RWORK/e.dat" ] && [ -z "$(leftover_instances)" ]
}

# The command's failure is kmtrace's exit status, as with perf.
test_rec_command_status() {
	local rc
	rec_expect 127 "cannot run /nonexistent/cmd: No such file" -o "$RWORK/nx.dat" -- /nonexistent/cmd &&
	[ ! -e "$RWORK/nx.dat" ] || return 1
	"$KMTRACE" record -o "$RWORK/false.dat" -- false 2>/dev/null; rc=$?
	[ $rc = 1 ] && [ -s "$RWORK/false.dat" ] || { echo "  false: rc=$rc"; return 1; }
	"$KMTRACE" record -o "$RWORK/three.dat" -- sh -c 'exit 3' 2>/dev/null; rc=$?
	[ $rc = 3 ] || { echo "  exit 3: rc=$rc"; return 1; }
	"$KMTRACE" record -o "$RWORK/segv.dat" -- sh -c 'kill -SEGV $$' 2>/dev/null; rc=$?
	[ $rc = 139 ] || { echo "  SIGSEGV: rc=$rc"; return 1; }
}

# The command's SIGPIPE is what kmtrace's was (kmtrace ignores it for its own
# writes): default, so "find | head" ends as untraced; ignored when kmtrace was
# started with it ignored. /proc/PID/status's SigIgn has bit 12 for SIGPIPE.
test_rec_sigpipe() {
	local ign
	ign=$("$KMTRACE" record -o "$RWORK/pipe1.dat" -- grep SigIgn /proc/self/status 2>/dev/null)
	[ "$(( 0x${ign##*[[:space:]]} & 0x1000 ))" = 0 ] || { echo "  default: $ign"; return 1; }
	ign=$(sh -c 'trap "" PIPE; exec "$1" record -o "$2" -- grep SigIgn /proc/self/status' sh \
		"$KMTRACE" "$RWORK/pipe2.dat" 2>/dev/null)
	[ "$(( 0x${ign##*[[:space:]]} & 0x1000 ))" != 0 ] || { echo "  ignored: $ign"; return 1; }
	# and a pipeline ends when its reader does: yes stops at once
	timeout 20 "$KMTRACE" record -o "$RWORK/pipe3.dat" -- sh -c 'yes | head -c 1 >/dev/null' \
		2>/dev/null || { echo "  yes | head under record: rc $?"; return 1; }
}

# -p stops when every traced process has exited, as perf does.
test_rec_pid_exit() {
	local p start el
	sh -c 'sleep 0.8; ls /usr/bin >/dev/null' &
	p=$!
	start=$(date +%s%N)
	"$KMTRACE" record -p $p -o "$RWORK/pid.dat" 2>"$RWORK/pid.err" || { cat "$RWORK/pid.err"; return 1; }
	el=$(( ($(date +%s%N) - start) / 1000000 ))
	wait $p
	echo "  stopped after ${el} ms"
	grep -q 'every traced process exited' "$RWORK/pid.err" && [ $el -lt 20000 ] &&
	"$KMTRACE" report -i "$RWORK/pid.dat" --format json >"$RWORK/pid.json" &&
	json_get "$RWORK/pid.json" "d['analyses']['stat']['summary']['total_events']" | grep -qv '^0$'
}

# --max-size: the raw data stops at the size, the buffers' rest stays out.
# Only kmem events: with fault events, perf's fault samples count toward
# the size too, and the CPU lines would not show all of it.
test_rec_max_size() {
	local bytes
	"$KMTRACE" record -e kmem --max-size 1M -o "$RWORK/max.dat" -- \
		sh -c "while :; do sh '$TOP/scripts/workload.sh' 20 400; done" 2>"$RWORK/max.err" ||
		{ cat "$RWORK/max.err"; return 1; }
	bytes=$(awk '/^CPU [0-9]+:/ { b += $5 } END { print b }' "$RWORK/max.err")
	echo "  raw data $bytes bytes; $(grep -o 'stopped at.*' "$RWORK/max.err")"
	grep -q 'stopped at --max-size 1.0 MiB' "$RWORK/max.err" &&
	[ "$bytes" -ge 1048576 ] && [ "$bytes" -le $((1048576 + $(nproc) * 65536)) ] &&
	"$KMTRACE" report -i "$RWORK/max.dat" >/dev/null
}

# On a terminal: a progress line once a second while recording.
test_rec_progress() {
	script -qec "$KMTRACE record -d 2.5 -o $RWORK/prog.dat" /dev/null >"$RWORK/prog.out" 2>&1 ||
		return 1
	[ "$(grep -o 'kmtrace: recording: [0-9]* events, [0-9.]* [KMG]*i*B, [0-9]* lost' "$RWORK/prog.out" | wc -l)" -ge 2 ] ||
		{ echo "  $(tr '\r' '\n' <"$RWORK/prog.out" | head -5)"; return 1; }
}

# A tmpfs, mounted for the test, of @2 MiB at @1.
small_fs() { mkdir -p "$1" && mount -t tmpfs -o size="$2"M kmtrace-test "$1"; }

# Disk full while recording: stopped at once (the workload is killed, not
# waited for), one line naming the cause, no file and no instance left.
test_rec_enospc() {
	local d=$RWORK/full start el rc
	small_fs "$d" 2 || return 1
	start=$(date +%s%N)
	"$KMTRACE" record -o "$d/x.dat" -- sh -c "while :; do sh '$TOP/scripts/workload.sh' 20 400; done" \
		2>"$RWORK/full.err"
	rc=$?
	el=$(( ($(date +%s%N) - start) / 1000000 ))
	echo "  rc=$rc after ${el} ms: $(cat "$RWORK/full.err")"
	[ $rc = 1 ] && grep -q 'No space left on device' "$RWORK/full.err" &&
	[ "$(wc -l <"$RWORK/full.err")" = 1 ] && [ -z "$(ls -A "$d")" ] &&
	[ -z "$(leftover_instances)" ] && [ $el -lt 15000 ]
	rc=$?
	umount "$d"
	return $rc
}

# Disk use peaks at the output plus a chunk: 8 MiB of raw data fit in a
# 12 MiB file system (writing a copy of the per-CPU files needed 16 MiB).
test_rec_peak_disk() {
	local d=$RWORK/peak rc
	small_fs "$d" 12 || return 1
	"$KMTRACE" record --no-kallsyms --max-size 8M -o "$d/p.dat" -- \
		sh -c "while :; do sh '$TOP/scripts/workload.sh' 20 400; done" 2>"$RWORK/peak.err"
	rc=$?
	echo "  rc=$rc, file $(stat -c %s "$d/p.dat" 2>/dev/null) bytes in a 12 MiB tmpfs"
	[ $rc = 0 ] && "$KMTRACE" report -i "$d/p.dat" >/dev/null && [ "$(ls -A "$d")" = p.dat ]
	rc=$?
	[ $rc = 0 ] || cat "$RWORK/peak.err"
	umount "$d"
	return $rc
}

# strace slows each pread(2), which only the final write uses (it reads the
# per-CPU files in 1 MiB chunks), so that the write lasts long enough.
SLOW_WRITE="strace -qq -f -o /dev/null -e trace=pread64 -e inject=pread64:delay_exit=600000"

# A stop signal during the final write aborts it: no file, no temporary file.
test_rec_signal_during_write() {
	local d=$RWORK/sigw pid rc i
	mkdir -p "$d"
	$SLOW_WRITE env --default-signal=INT,TERM "$KMTRACE" record -d 0.5 -o "$d/w.dat" \
		2>"$RWORK/sigw.err" &
	pid=$!
	for i in $(seq 300); do
		pgrep -P $pid -x kmtrace >/dev/null && break; sleep 0.01
	done
	pid=$(pgrep -P $pid -x kmtrace) || { echo "  no kmtrace under strace"; return 1; }
	# the instance is gone once the recording has stopped and the write began
	for i in $(seq 500); do
		[ -d "$TRACEFS/instances/kmtrace-$pid" ] && break; sleep 0.01
	done
	for i in $(seq 500); do
		[ -d "$TRACEFS/instances/kmtrace-$pid" ] || break; sleep 0.01
	done
	sleep 0.2
	kill -INT $pid
	wait; rc=$?
	echo "  $(cat "$RWORK/sigw.err")"
	grep -q 'writing stopped by a signal' "$RWORK/sigw.err" && [ -z "$(ls -A "$d")" ]
}

# On a terminal, a write over a second shows its progress.
test_rec_write_progress() {
	script -qec "$SLOW_WRITE $KMTRACE record -d 0.3 -o $RWORK/wp.dat" /dev/null \
		>"$RWORK/wp.out" 2>&1
	tr '\r' '\n' <"$RWORK/wp.out" | grep -q 'kmtrace: writing: *[0-9]*% ([0-9.]* [KMG]*i*B of [0-9.]* [KMG]*i*B)' ||
		{ echo "  $(tr '\r' '\n' <"$RWORK/wp.out" | tail -3)"; return 1; }
}

# The command dies with its recorder, even one killed with SIGKILL.
test_rec_child_dies() {
	local pid child i
	"$KMTRACE" record -o "$RWORK/cd.dat" -- sleep 60 2>/dev/null &
	pid=$!
	for i in $(seq 300); do child=$(pgrep -P $pid -x sleep) && break; sleep 0.02; done
	[ -n "$child" ] || { echo "  no command seen"; kill -9 $pid; return 1; }
	kill -9 $pid; wait $pid 2>/dev/null
	for i in $(seq 100); do kill -0 "$child" 2>/dev/null || break; sleep 0.02; done
	! kill -0 "$child" 2>/dev/null || { echo "  command $child outlived its recorder"; return 1; }
	"$KMTRACE" record -d 0.1 -o "$RWORK/cd2.dat" 2>"$RWORK/cd2.err" &&
	[ -z "$(leftover_instances)" ]
}

# Done-when 4: a system-wide record killed with SIGKILL at random times, each
# followed by a new record -d 0.2: no instance and no temporary file remain.
test_rec_sigkill_runs() {
	local d=$RWORK/kill i pid removed=0 delay
	mkdir -p "$d"
	for i in $(seq 20); do
		delay=$(( RANDOM % 1200 ))
		if [ $((i % 2)) = 0 ]; then	# these may be in their final write when killed
			"$KMTRACE" record -d 0.$((RANDOM % 6 + 3)) -o "$d/k$i.dat" -- \
				sh "$TOP/scripts/workload.sh" 100 2000 >/dev/null 2>&1 &
		else
			"$KMTRACE" record -o "$d/k$i.dat" >/dev/null 2>&1 &
		fi
		pid=$!
		sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
		kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
		"$KMTRACE" record -d 0.2 -o "$d/after$i.dat" 2>"$RWORK/after.err" ||
			{ cat "$RWORK/after.err"; return 1; }
		grep -q 'removed 1 tracing instance left by kmtrace recorders that are gone' "$RWORK/after.err" &&
			removed=$((removed + 1))
		# one that finished before the kill left a whole file
		if [ -e "$d/k$i.dat" ]; then
			"$KMTRACE" report -i "$d/k$i.dat" >/dev/null || { echo "  k$i.dat is damaged"; return 1; }
			rm "$d/k$i.dat"
		fi
		[ -z "$(leftover_instances)" ] || { echo "  run $i: $(leftover_instances) left"; return 1; }
	done
	echo "  20 kills; $removed left an instance the next record removed"
	[ "$(ls -A "$d" | grep -cv '^after[0-9]*\.dat$')" = 0 ] || { echo "  left: $(ls -A "$d")"; return 1; }
	[ $removed -ge 5 ]
}

# Privacy and size: the perf fault samples of a command are its own only.
test_rec_fault_scope() {
	local f=$RWORK/scope.dat
	sh -c 'while :; do sh '"'$TOP/scripts/workload.sh'"' 5 50; done' &
	local noise=$!
	"$KMTRACE" record --no-kprobes -o "$f" -- sleep 1 2>/dev/null
	kill $noise; wait $noise 2>/dev/null
	"$KMTRACE" report -i "$f" fault --format json >"$RWORK/scope.json" || return 1
	json_get "$RWORK/scope.json" "'  %(perf_samples)d samples, the command had %(rusage_minflt)d minor + %(rusage_majflt)d major faults' % d['analyses']['fault']['summary']"
	json_get "$RWORK/scope.json" "(lambda s: 0 < s['perf_samples'] <= s['rusage_minflt'] + s['rusage_majflt'])(d['analyses']['fault']['summary'])" |
		grep -q True
}

# make static: kmtrace-record links no shared library, and its recording is
# kmtrace's: report reads it and its events are those trace-cmd report counts.
test_rec_static() {
	local f=$RWORK/static.dat k t
	file "$TOP/kmtrace-record" | grep -q 'statically linked' ||
		{ file "$TOP/kmtrace-record"; return 1; }
	"$TOP/kmtrace-record" -e kmem:kmalloc -e kmem:kfree -e kmem:mm_page_alloc -o "$f" -- \
		sh -c 'ls -R /usr/share/doc >/dev/null' >/dev/null 2>"$RWORK/static.err" ||
		{ cat "$RWORK/static.err"; return 1; }
	k=$("$KMTRACE" report -i "$f" --format json stat | json_get /dev/stdin "d['analyses']['stat']['summary']['total_events']")
	t=$(trace-cmd report "$f" 2>/dev/null | grep -c ' kmalloc: \| kfree: \| mm_page_alloc: ')
	[ -n "$k" ] && [ "$k" = "$t" ] && [ "$k" -gt 1000 ] || { echo "  kmtrace $k, trace-cmd $t"; return 1; }
	echo "  $(stat -c %s "$TOP/kmtrace-record") bytes, statically linked; $k events, as trace-cmd report counts"
}

record_live_tests() {
	live "record -f -o a character device node: streamed into it, it stays a device" test_rec_chardev
	live "make static: kmtrace-record is statically linked; report and trace-cmd report count its events alike" \
		test_rec_static
	live "record refuses memory and block devices, directories, dangling links (exit 2)" test_rec_refusals
	live "record -o -: standard output, refused on a terminal" test_rec_stdout
	live "record -o FIFO: streamed, the FIFO stays" test_rec_fifo
	live "record --, -p 0, -p 999999, -b 0, a bad --max-size: one line, exit 2" test_rec_bad_requests
	live "record -- /nonexistent, false, exit 3, SIGSEGV: 127, 1, 3, 139" test_rec_command_status
	live "record --: the command's SIGPIPE as kmtrace found it (pipelines end as untraced)" \
		test_rec_sigpipe
	live "record -p PID stops when the process exits" test_rec_pid_exit
	live "record --max-size 1M stops at 1 MiB of raw data" test_rec_max_size
	live "record shows progress once a second on a terminal" test_rec_progress
	live "record: disk full stops at once, one line, nothing left" test_rec_enospc
	live "record: 8 MiB of raw data written into a 12 MiB file system" test_rec_peak_disk
	live "record: a signal during the final write aborts it, no file left" test_rec_signal_during_write
	live "record: the final write shows its progress on a terminal" test_rec_write_progress
	live "record: the command dies with a recorder killed by SIGKILL" test_rec_child_dies
	live "record: 20 system-wide recorders killed with SIGKILL, each followed by record -d 0.2: no instance, no temporary file" \
		test_rec_sigkill_runs
	live "record: perf fault samples of the command only (privacy, size)" test_rec_fault_scope
}
