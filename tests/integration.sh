#!/bin/bash
# Integration tests: drive the real kmtrace binary. Ends with "N passed, N
# failed, N skipped".
#
# The parsing tests run as on another machine: in a mount namespace where
# /proc/kallsyms is a made-up file and, through setarch --uname-2.6, uname
# reports another kernel release (tests/foreign.sh). A parsing test that
# leaned on this machine's kernel would fail there. Live-capture tests run
# afterwards, on this machine, where tracefs is writable, and SKIP loudly
# elsewhere. $KMTRACE is a wrapper that logs the pid of every kmtrace it
# starts: cleanup and the leftover checks touch only those.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
if [ "${KMT_IT_PHASE:-}" != parsing ]; then
	REAL_KMTRACE=$(realpath "${1:-./kmtrace}")
	WORK=$(mktemp -d /tmp/kmtrace-it.XXXXXX)
	mkdir "$WORK/bin"
	printf '#!/bin/sh\necho $$ >>"%s/pids"\nexec "%s" "$@"\n' "$WORK" "$REAL_KMTRACE" >"$WORK/bin/kmtrace"
	chmod +x "$WORK/bin/kmtrace"
	KMTRACE=$WORK/bin/kmtrace
	export REAL_KMTRACE KMTRACE WORK
fi
# perf keeps its build-id cache here, not in ~/.debug
export PERF_BUILDID_DIR=$WORK/perf-buildid
. "$TOP/tests/lib.sh"
. "$TOP/tests/foreign.sh"

# ---------------------------------------------------------------- parsing
test_report_small() {
	"$KMTRACE" report -i "$TRACES/small.dat" >"$WORK/r.txt" 2>"$WORK/r.err" &&
	grep -q 'kmem:kmalloc' "$WORK/r.txt" && grep -q 'Format  *trace.dat v6' "$WORK/r.txt" &&
	[ ! -s "$WORK/r.err" ]
}

# report's heap on huge pages (src/cmd/hugepages.c): one large MADV_HUGEPAGE
# range where THP and overcommit allow it, none where they do not; the
# report the same as without strace.
test_report_huge_page_heap() {
	local thp=/sys/kernel/mm/transparent_hugepage/enabled want=yes
	"$KMTRACE" report -i "$TRACES/small.dat" stat >"$WORK/hp1.txt" 2>&1 || return 1
	strace -f -qq -e trace=madvise -o "$WORK/hp.strace" \
		"$REAL_KMTRACE" report -i "$TRACES/small.dat" stat >"$WORK/hp2.txt" 2>&1 || return 1
	cmp -s "$WORK/hp1.txt" "$WORK/hp2.txt" || return 1
	if [ ! -r $thp ] || grep -q '\[never\]' $thp || [ "$(cat /proc/sys/vm/overcommit_memory)" = 2 ]; then
		want=no
	fi
	python3 - "$WORK/hp.strace" "$want" <<'PY'
import re, sys
sizes = [int(m.group(1)) for m in re.finditer(r'madvise\(0x[0-9a-f]+, (\d+), MADV_HUGEPAGE\)', open(sys.argv[1]).read())]
big = [s for s in sizes if s >= 8 << 20]
sys.exit(0 if (len(big) == 1) == (sys.argv[2] == 'yes') else 1)
PY
}

test_json_fields() {
	"$KMTRACE" report -i "$TRACES/small.dat" --format json >"$WORK/j.json" || return 1
	json_get "$WORK/j.json" "all(k in d['analyses']['stat']['summary'] for k in ('total_events','lost_events','cpus','duration_ns')) and d['analyses']['stat']['summary']['total_events'] == sum(r['count'] for r in d['analyses']['stat']['tables']['events']) > 0" | grep -q True
}

test_v7_same_counts() {
	[ "$(kmt_counts "$TRACES/small.dat")" = "$(kmt_counts "$TRACES/small-v7.dat")" ] &&
	"$KMTRACE" report -i "$TRACES/small-v7.dat" | grep -q 'libtracecmd'
}

test_small_vs_tracecmd() {
	command -v trace-cmd >/dev/null || return 1
	[ -n "$(kmt_counts "$TRACES/small.dat")" ] &&
	[ "$(kmt_counts "$TRACES/small.dat")" = "$(tc_counts "$TRACES/small.dat")" ]
}

test_csv() {
	"$KMTRACE" report -i "$TRACES/small.dat" --format csv >"$WORK/r.csv" &&
	grep -q '^table,event,count$' "$WORK/r.csv" && grep -q '^stat.events,kmem:kmalloc,[0-9]' "$WORK/r.csv" &&
	grep -q '^table,cpu,events,lost,overrun,dropped,missed_marked$' "$WORK/r.csv"
}

test_not_a_trace() { printf 'hello world, not a trace\n' >"$WORK/text.dat"; expect_bad_input "$WORK/text.dat" "offset 0: not a trace.dat"; }
test_truncated() {
	head -c 300000 "$TRACES/small.dat" >"$WORK/trunc.dat"
	expect_bad_input "$WORK/trunc.dat" "offset [0-9]*: corrupt: CPU . data"
}
test_truncated_header() { head -c 2000 "$TRACES/small.dat" >"$WORK/th.dat"; expect_bad_input "$WORK/th.dat" "offset [0-9]*: truncated"; }
test_missing() { expect_bad_input "$WORK/nonexistent.dat" "No such file"; }
test_bad_usage() {
	"$KMTRACE" report -i "$TRACES/small.dat" nosuch >/dev/null 2>&1; [ $? -eq 2 ] || return 1
	"$KMTRACE" report -i "$TRACES/small.dat" --format xml >/dev/null 2>&1; [ $? -eq 2 ] || return 1
	"$KMTRACE" report -i "$TRACES/small.dat" slab stat slab >/dev/null 2>&1; [ $? -eq 2 ] || return 1
	"$KMTRACE" frobnicate >/dev/null 2>&1; [ $? -eq 2 ]
}


# Every long option `kmtrace CMD -h` lists is described in the man page
# (and, for report, used by one of its examples).
test_options_documented() {
	local cmd=$1 o missing=
	for o in $("$KMTRACE" $cmd -h | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "\\-\\-${o#--}" "$TOP/docs/kmtrace-$cmd.1" || missing="$missing $o"
		[ $cmd = report ] && ! man_examples kmtrace-report.1 | grep -q -- "$o\\>" &&
			missing="$missing $o"
	done
	[ -z "$missing" ] || { echo "  undocumented or without example:$missing"; return 1; }
}

# The report examples, in a directory of their own where traces/ and formats/
# are the tree's (an example writes its CSV files into the current directory).
test_report_examples() {
	mkdir -p "$WORK/examples" && ln -sfn "$TOP/traces" "$WORK/examples/traces" &&
	ln -sfn "$TOP/formats" "$WORK/examples/formats" &&
	test_man_examples kmtrace-report.1 "$WORK/examples" &&
	[ -s "$WORK/examples/slab-callers.csv" ] && [ -s "$WORK/examples/page-summary.csv" ]
}

# The HTML report in headless Chromium: no console message, every chart drawn, a screenshot.
test_html_chromium() {
	python3 "$TOP/tests/check_html.py" "$KMTRACE" "$TRACES" "$WORK" "$WORK/kmtrace-report.png"
}

# make static CROSS_COMPILE=TRIPLET-: kmtrace-record-ARCH, a static binary of
# that machine (file's words for it), at most 3 MB.
test_static_cross() {
	local triplet=$1 bin=$TOP/kmtrace-record-$2 machine=$3 size
	make -s -C "$TOP" static CROSS_COMPILE="$triplet-" >"$WORK/$2.log" 2>&1 ||
		{ tail -5 "$WORK/$2.log"; return 1; }
	file "$bin" | grep -q "$machine.*statically linked" || { file "$bin"; return 1; }
	size=$(stat -c %s "$bin")
	[ "$size" -le 3000000 ] || { echo "  $size bytes"; return 1; }
	echo "  kmtrace-record-$2: $size bytes, $machine, statically linked"
}

# The cross recorders make deps ARCH=... made the toolchain and libraries of.
static_cross_tests() {
	local arch triplet name machine
	while read -r arch triplet name machine; do
		if command -v "$triplet-gcc" >/dev/null && [ -f "/usr/local/lib/$triplet/libperf.a" ]; then
			check "make static CROSS_COMPILE=$triplet-: kmtrace-record-$name is a static $arch binary of at most 3 MB" \
				test_static_cross "$triplet" "$name" "$machine"
		else
			echo "SKIP: make static CROSS_COMPILE=$triplet-: no $arch toolchain and libraries ******** (make deps ARCH=$arch installs them) ********"
			skip=$((skip + 1))
		fi
	done <<EOT
arm64 aarch64-linux-gnu aarch64 64-bit LSB executable, ARM aarch64
armhf arm-linux-gnueabihf arm 32-bit LSB executable, ARM, EABI5
s390x s390x-linux-gnu s390x 64-bit MSB executable, IBM S/390
EOT
}

test_outputs_checked() {
	python3 "$TOP/tests/check_outputs.py" "$KMTRACE" "$TRACES" \
		"$TOP/docs/kmtrace-report.schema.json" "$WORK"
}

# One thread or two (a reading thread with stat, fault, vm, oom and page): the same reports.
test_threads_identical() {
	local f syms a
	for f in small.dat small-v7.dat fault.dat plugins.dat stacks.dat:stacks.kallsyms \
		 perf-zg.data:perf-zg.kallsyms; do
		syms=
		[ "${f#*:}" != "$f" ] && syms="--kallsyms $TRACES/${f#*:}"
		for a in "stat slab page fault vm oom leak" "slab --stack --caller page --stack leak stat"; do
			# shellcheck disable=SC2086
			"$KMTRACE" report --threads 1 -i "$TRACES/${f%%:*}" $syms --format json $a \
				>"$WORK/t1.json" 2>&1 &&
			"$KMTRACE" report --threads 2 -i "$TRACES/${f%%:*}" $syms --format json $a \
				>"$WORK/t2.json" 2>&1 &&
			cmp -s "$WORK/t1.json" "$WORK/t2.json" ||
				{ echo "  ${f%%:*}: $a differs"; return 1; }
		done
	done
}

test_tools_present() {
	local t missing=
	for t in perf trace-cmd python3; do command -v $t >/dev/null || missing="$missing $t"; done
	[ -z "$missing" ] || { echo "  missing:$missing (make deps installs them)"; return 1; }
}

# Bash completion (scripts/kmtrace-completion.bash) of commands, analyses,
# report's, an analysis's and record's options, and --format's values.
test_bash_completion() {
	bash -c '
		source "$1/scripts/kmtrace-completion.bash"
		comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kmtrace; echo "${COMPREPLY[*]}"; }
		[ "$(comp "$2" re)" = "record report" ] &&
		[ "$(comp "$2" report com)" = compaction ] &&
		[ "$(comp "$2" report slab --cach)" = "--cache --cache-only" ] &&
		[ "$(comp "$2" report leak --al)" = "--all --alloc-frames" ] &&
		[ "$(comp "$2" report --format js)" = "json jsonl" ] &&
		[ "$(comp "$2" record --no-k)" = "--no-kallsyms --no-kprobes" ]
	' _ "$TOP" "$REAL_KMTRACE"
}

# make install: the binary, man pages, plugins and bash completion under DESTDIR.
test_make_install() {
	local d=$WORK/destdir
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1 || return 1
	[ -x "$d/usr/bin/kmtrace" ] && [ -s "$d/usr/share/bash-completion/completions/kmtrace" ] &&
	[ -s "$d/usr/share/man/man1/kmtrace-report.1" ] &&
	[ -n "$(find "$d" -name 'plugin_kmt_slab.so')" ] &&
	[ -s "$d/usr/lib/kmtrace/libkmtrace-heap.so" ]	# where the installed binary looks
}

test_docs_drift() { python3 "$TOP/tests/docs_drift.py" "$KMTRACE" "$TOP"; }
test_examples_current() { python3 "$TOP/scripts/gen_examples.py" "$KMTRACE" "$TOP/docs/examples.md" --check; }

core_parsing_tests() {
	check "README, the guide, DESIGN, kmtrace-report(1) and output.h name the analyses of kmtrace list and the formats of report -h" \
		test_docs_drift
	check "docs/examples.md: every run block is what kmtrace prints now" test_examples_current
	check "bash completion: commands, analyses, options of report, of an analysis and of record, --format values" \
		test_bash_completion
	check "make install DESTDIR=: binary, man pages, plugins, heap library, bash completion" \
		test_make_install
	check "perf, trace-cmd and python3 are installed (make deps)" test_tools_present
	check "--threads 1 and 2 give the same reports on six fixtures" test_threads_identical
	check "report on traces/small.dat (text)" test_report_small
	check "report --format json has events, total_events, lost_events, cpus, duration_ns" test_json_fields
	check "report's heap on huge pages where THP allows (one MADV_HUGEPAGE range)" test_report_huge_page_heap
	check "trace-cmd v7 (compressed) copy reports the same counts as the v6 original" test_v7_same_counts
	check "traces/small.dat: per-event counts equal trace-cmd report's" test_small_vs_tracecmd
	check "report --format csv" test_csv
	check "not a trace: exit 2, one line with file and offset" test_not_a_trace
	check "truncated trace.dat: exit 2, no partial report" test_truncated
	check "trace.dat cut in its header: exit 2" test_truncated_header
	check "missing file: exit 2" test_missing
	check "unknown analysis, format or command, an analysis given twice: exit 2" test_bad_usage
	check "kmtrace-report(1) examples run" test_report_examples
	check "kmtrace-report(1) documents every report option with an example" test_options_documented report
	check "kmtrace-record(1) documents every record option" test_options_documented record
	check "every analysis on every fixture: JSON valid against docs/kmtrace-report.schema.json with values of their units; each CSV file (-o DIR) loads into sqlite3 and csv with the JSON's row count" \
		test_outputs_checked
	static_cross_tests
	if command -v chromium >/dev/null; then
		check "report --html of traces/stacks.dat and fault.dat in headless Chromium: no console message, the script ran, every chart has marks, a screenshot" \
			test_html_chromium
	else
		skip "report --html in a browser: no chromium (make deps installs it)"
	fi
	check "kmtrace-watch(1) documents every watch option" test_options_documented watch
	check "kmtrace-top(1) documents every top option" test_options_documented top
}

. "$TOP/tests/slab.sh"
. "$TOP/tests/page.sh"
. "$TOP/tests/fault.sh"
. "$TOP/tests/perfdata.sh"
. "$TOP/tests/textlog.sh"
. "$TOP/tests/plugins.sh"
. "$TOP/tests/record.sh"
. "$TOP/tests/hostile.sh"
. "$TOP/tests/symbols.sh"
. "$TOP/tests/stacks.sh"
. "$TOP/tests/umem.sh"
. "$TOP/tests/mm.sh"
. "$TOP/tests/crossarch.sh"
. "$TOP/tests/untraced.sh"
. "$TOP/tests/diff.sh"
. "$TOP/tests/footprint.sh"
. "$TOP/tests/sqlite.sh"
. "$TOP/tests/fleet.sh"
. "$TOP/tests/pageowner.sh"

parsing_tests() {
	foreign_machine_check
	core_parsing_tests
	slab_parsing_tests
	page_parsing_tests
	fault_parsing_tests
	perfdata_parsing_tests
	textlog_parsing_tests
	plugins_parsing_tests
	hostile_parsing_tests
	symbols_parsing_tests
	stacks_parsing_tests
	umem_parsing_tests
	crossarch_parsing_tests
	mm_parsing_tests
	diff_parsing_tests
	footprint_parsing_tests
	sqlite_parsing_tests
	fleet_parsing_tests
	pageowner_parsing_tests
}

if [ "${KMT_IT_PHASE:-}" = parsing ]; then
	parsing_tests
	echo "$pass $fail $skip" >"$WORK/parsing.counts"
	exit 0
fi

cleanup() {
	# A stopped kmtrace removes its instance itself; one that died closed its
	# pipes on exit, and only then may its instance go.
	local n p left
	for p in $(our_pids); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$REAL_KMTRACE" ] && kill -TERM "$p"
	done
	for n in $(seq 600); do
		left=
		for p in $(our_pids); do
			[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$REAL_KMTRACE" ] && left="$left $p"
		done
		[ -z "$left" ] && break
		[ "$n" = 600 ] && kill -KILL $left && sleep 1
		sleep 0.1
	done
	for i in $(leftover_instances); do
		echo "FAIL: instance $i left behind; removing it"
		rmdir "$TRACEFS/instances/$i"
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

# ---------------------------------------------------------------- parsing, as on another machine
run_parsing_as_foreign "$0"

# ---------------------------------------------------------------- live capture
writable=0
if [ "$(id -u)" = 0 ] && { mountpoint -q $TRACEFS || mount -t tracefs nodev $TRACEFS 2>/dev/null; } &&
   mkdir "$TRACEFS/instances/kmtrace-probe-$$" 2>/dev/null; then
	rmdir "$TRACEFS/instances/kmtrace-probe-$$"
	writable=1
fi

top_state() { cat $TRACEFS/tracing_on $TRACEFS/buffer_size_kb $TRACEFS/set_event $TRACEFS/set_event_pid $TRACEFS/trace_options 2>/dev/null | md5sum; }
[ $writable = 1 ] && TOP_BEFORE=$(top_state)

test_record_command() {
	local f=$WORK/t.dat k t
	"$KMTRACE" record -o "$f" -- sh -c 'find /usr/share -type f | head -3000 | xargs cat >/dev/null' \
		2>"$WORK/rec.err" || { cat "$WORK/rec.err"; return 1; }
	grep -q '^CPU 0: [0-9]* events, [0-9]* bytes, [0-9]* lost$' "$WORK/rec.err" || return 1
	[ "$(stat -c %a "$f")" = 600 ] || { echo "  mode $(stat -c %a "$f")"; return 1; }
	k=$(kmt_counts "$f"); t=$(tc_counts "$f")
	for e in kmalloc kfree kmem_cache_alloc mm_page_alloc page_fault_user; do
		echo "$k" | grep -q "^$e [1-9]" || { echo "  no $e events"; return 1; }
	done
	[ "$k" = "$t" ] || { echo "  kmtrace: $k"; echo "  trace-cmd: $t"; return 1; }
}

test_signal() {
	local sig=$1 delay=$2 f=$WORK/sig-$1-$2.dat pid rc
	# default dispositions: a non-interactive shell starts jobs with SIGINT ignored
	env --default-signal=INT,TERM,HUP "$KMTRACE" record -o "$f" 2>"$WORK/sig.err" &
	pid=$!
	wait_signals_blocked $pid || return 1
	sleep "$delay"
	kill -"$sig" $pid
	wait $pid; rc=$?
	[ $rc -eq 0 ] || { echo "  rc=$rc $(cat "$WORK/sig.err")"; return 1; }
	[ -z "$(leftover_instances)" ] || { echo "  instance left: $(leftover_instances)"; return 1; }
	"$KMTRACE" report -i "$f" >/dev/null || return 1
	trace-cmd report -i "$f" >/dev/null 2>&1
}

test_million_no_loss() {
	local f=$WORK/big.dat total lost
	"$KMTRACE" record -o "$f" -- sh "$TOP/scripts/workload.sh" 1500 15000 2>"$WORK/big.err" || return 1
	"$KMTRACE" report -i "$f" --format json >"$WORK/big.json" || return 1
	total=$(json_get "$WORK/big.json" "d['analyses']['stat']['summary']['total_events']")
	lost=$(json_get "$WORK/big.json" "d['analyses']['stat']['summary']['lost_events']")
	echo "  $total events, $lost lost"
	[ "$total" -ge 1000000 ] && [ "$lost" -eq 0 ]
}

test_tiny_buffer_loses() {
	local f=$WORK/tiny.dat lost
	"$KMTRACE" record -b 8 -o "$f" -- sh "$TOP/scripts/workload.sh" 50 3000 2>/dev/null || return 1
	"$KMTRACE" report -i "$f" --format json >"$WORK/tiny.json" || return 1
	lost=$(json_get "$WORK/tiny.json" "d['analyses']['stat']['summary']['lost_events']")
	echo "  $lost lost"
	[ "$lost" -gt 0 ]
}

test_no_overwrite() {
	local f=$WORK/keep.dat
	echo precious >"$f"
	"$KMTRACE" record -d 0.1 -o "$f" 2>"$WORK/ow.err"; [ $? -ne 0 ] || return 1
	grep -q 'use -f' "$WORK/ow.err" && [ "$(cat "$f")" = precious ] || return 1
	"$KMTRACE" record -f -d 0.1 -o "$f" 2>/dev/null && "$KMTRACE" report -i "$f" >/dev/null
}

test_bad_event() {
	"$KMTRACE" record -e kmem:nosuch -d 0.1 -o "$WORK/ne.dat" 2>"$WORK/ne.err"
	[ $? -ne 0 ] && grep -q "kmem:nosuch" "$WORK/ne.err" && [ ! -e "$WORK/ne.dat" ] &&
	[ -z "$(leftover_instances)" ]
}

test_bad_filter() {
	"$KMTRACE" record --filter 'kmem:kmalloc:nosuchfield > 3' -d 0.1 -o "$WORK/nf.dat" 2>"$WORK/nf.err"
	[ $? -ne 0 ] && grep -q "rejected filter" "$WORK/nf.err" && [ -z "$(leftover_instances)" ]
}

test_filter_and_events() {
	local f=$WORK/flt.dat k
	"$KMTRACE" record -e kmem:kmalloc --filter 'kmem:kmalloc:bytes_req > 512' -o "$f" -- \
		sh "$TOP/scripts/workload.sh" 10 300 2>/dev/null || return 1
	k=$(kmt_counts "$f")
	[ "$(echo "$k" | wc -l)" -eq 1 ] && echo "$k" | grep -q '^kmalloc [1-9]' || return 1
	trace-cmd report -i "$f" 2>/dev/null | grep -o 'bytes_req=[0-9]*' |
		awk -F= '$2 <= 512 { bad++ } END { exit bad > 0 }'
}

test_command_only() {
	local f=$WORK/cmd.dat
	"$KMTRACE" record -e sched:sched_process_exec -e sched:sched_process_fork -o "$f" -- \
		sh -c '/bin/true; /bin/true' 2>/dev/null || return 1
	# sh, then two children: 3 execs and 2 forks, nothing from the rest of the system.
	[ "$(kmt_counts "$f")" = "$(printf 'sched_process_exec 3\nsched_process_fork 2')" ] ||
		{ kmt_counts "$f"; return 1; }
}

test_duration() {
	local start=$(date +%s%N) f=$WORK/dur.dat el
	"$KMTRACE" record -d 0.5 -o "$f" 2>/dev/null || return 1
	el=$(( ($(date +%s%N) - start) / 1000000 ))
	echo "  took ${el} ms"
	[ $el -ge 500 ] && "$KMTRACE" report -i "$f" >/dev/null
}

live "record -- COMMAND: kmalloc/kfree/cache/page/fault counts > 0 and equal to trace-cmd report's" test_record_command
for s in INT TERM HUP; do
	for d in 0 0.05 1; do
		live "SIG$s after ${d}s of a system-wide record: valid file, no instance left" test_signal $s $d
	done
done
live ">= 1,000,000 events with the default buffer: 0 lost" test_million_no_loss
live "-b 8: lost events > 0 in the report" test_tiny_buffer_loses
live "existing output kept without -f, replaced with -f" test_no_overwrite
live "unknown event: clear error, no file, no instance" test_bad_event
live "rejected filter: clear error, no instance" test_bad_filter
live "-e and --filter: only kmalloc with bytes_req > 512" test_filter_and_events
live "-- COMMAND traces the command and its children only" test_command_only
live "-d stops a system-wide record" test_duration
live "kmtrace-record(1) examples run" test_man_examples kmtrace-record.1 "$WORK"
live "kmtrace-watch(1) examples run" test_man_examples kmtrace-watch.1 "$WORK"
live "kmtrace-top(1) examples run" test_man_examples kmtrace-top.1 "$WORK"

record_live_tests
slab_live_tests
page_live_tests
fault_live_tests
perfdata_live_tests
textlog_live_tests
plugins_live_tests
symbols_live_tests
stacks_live_tests
untraced_live_tests
diff_live_tests
umem_live_tests
mm_live_tests
sqlite_live_tests

# Only what this run started is ours: an instance named kmtrace-PID of a
# process this run did not start is neither reported nor removed.
test_cleanup_scope() {
	local pid inst rc=0
	sleep 30 &
	pid=$!
	inst=$TRACEFS/instances/kmtrace-$pid
	mkdir "$inst" || { kill $pid; return 1; }
	leftover_instances | grep -q "kmtrace-$pid" && rc=1
	[ "$(our_pids | grep -cx "$pid")" = 0 ] || rc=1
	# a recorder starting now leaves it: its process is alive
	"$KMTRACE" record -d 0.1 -o "$WORK/scope.dat" 2>"$WORK/scope.err" || rc=1
	[ -d "$inst" ] && ! grep -q "kmtrace-$pid" "$WORK/scope.err" || rc=1
	rmdir "$inst"
	kill $pid; wait $pid 2>/dev/null
	return $rc
}

test_top_untouched() { [ "$(top_state)" = "$TOP_BEFORE" ] && [ -z "$(leftover_instances)" ]; }
live "cleanup and leftover checks see only this run's recorders; a live process's instance is left alone" \
	test_cleanup_scope
live "top-level instance unchanged, no instance left" test_top_untouched

echo
echo "integration: $pass passed, $fail failed, $skip skipped"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
