# Integration tests of reading hostile input, sourced by tests/integration.sh
# (uses its KMTRACE, TOP, TRACES, WORK, check, json_get, expect_bad_input).
# The inputs are made by tests/hostile.py; each must end in a valid report
# or in one line with file and offset and exit status 2, never a crash,
# never more memory than the events need.

HOSTILE=$WORK/hostile
KMTRACE_SAN=$TOP/build/kmtrace-san

make_hostile() {
	[ -d "$HOSTILE" ] || python3 "$TOP/tests/hostile.py" "$HOSTILE" "$TOP/formats/linux-6.18" "$TRACES"
}

# hjson FILE ARGS...: the JSON report into $WORK/h.json; hget EXPR reads it as "d".
hjson() { local f=$1; shift; "$KMTRACE" report -i "$f" "$@" --format json >"$WORK/h.json" 2>"$WORK/h.err"; }
hget() { json_get "$WORK/h.json" "$1"; }
hstat() { hget "d['analyses']['stat']['summary']['$1']"; }

# Exit 0 for stat, slab and --print; no crash however the print format is made.
test_hostile_print_formats() {
	local f a rc
	make_hostile || return 1
	for f in div0 divfield symbolic hexlen printk; do
		for a in "stat" "slab page" "--print"; do
			"$KMTRACE" report -i "$HOSTILE/$f.dat" $a >"$WORK/h.out" 2>"$WORK/h.err"
			rc=$?
			[ $rc = 0 ] || { echo "  $f $a: rc=$rc $(head -c 300 "$WORK/h.err")"; return 1; }
		done
	done
	for f in div0 divfield hexlen; do
		hjson "$HOSTILE/$f.dat" stat && [ "$(hstat print_formats_left_out)" = 1 ] ||
			{ echo "  $f: print formats left out: $(hstat print_formats_left_out)"; return 1; }
		grep -q 'print formats left out (unsafe)' "$WORK/h.err" || return 1
	done
	"$KMTRACE" report -i "$HOSTILE/divfield.dat" --print 2>/dev/null | grep -q 'hostile: .*bytes_req=0'
}

# Counts no kernel keeps (2^64-1, -1, more than 64 bits) are flagged, not added up.
test_hostile_cpustat() {
	make_hostile && hjson "$HOSTILE/cpustat.dat" stat || return 1
	[ "$(hstat impossible_cpu_stats)" = 2 ] && [ "$(hstat lost_events)" = 0 ]
}

# A field past any record and one at a negative offset: that format is unused.
test_hostile_fields() {
	make_hostile && hjson "$HOSTILE/bigfield.dat" stat || return 1
	[ "$(hstat unusable_formats)" = 1 ] && [ "$(hstat unknown_events)" = 4 ]
}

# Time going back and values no kernel writes: counted, said, left out of the figures.
test_hostile_values() {
	make_hostile && hjson "$HOSTILE/unordered.dat" stat || return 1
	[ "$(hstat out_of_order_events)" = 1 ] && grep -q '1 events out of time order' "$WORK/h.err" &&
	[ "$(hstat duration_ns)" = 99995000000000 ] || return 1
	hjson "$HOSTILE/impossible.dat" stat slab page || return 1
	[ "$(hstat impossible_events)" = 2 ] &&
	[ "$(hget "d['analyses']['slab']['summary']['bytes_requested']")" = 8 ] &&
	[ "$(hget "d['analyses']['page']['summary']['pages_allocated']")" = 1 ]
}

# Text: times out of order mended, one past what u64 nanoseconds hold not parsed.
test_hostile_text_times() {
	make_hostile && hjson "$HOSTILE/unordered.txt" stat || return 1
	echo "  duration $(hstat duration_ns) ns, $(hstat out_of_order_events) out of order, $(hstat unparsed_lines) not parsed"
	[ "$(hstat duration_ns)" -lt 10000000000 ] && [ "$(hstat out_of_order_events)" = 3 ] &&
	[ "$(hstat unparsed_lines)" = 1 ]
}

# Terminal escapes in lines and names reach no terminal: written as \xNN.
test_hostile_escapes() {
	local fmt
	make_hostile || return 1
	for fmt in text csv; do
		"$KMTRACE" report -i "$HOSTILE/escape.txt" --format $fmt slab --pid >"$WORK/e.out" 2>"$WORK/e.err" ||
			return 1
		! grep -q $'\x1b' "$WORK/e.out" "$WORK/e.err" && ! grep -q $'\x07' "$WORK/e.out" "$WORK/e.err" &&
		grep -qF 'evil\x1b]0;pwned\x07' "$WORK/e.out" && grep -qF '\x1b]0;pwned' "$WORK/e.err" || return 1
	done
	"$KMTRACE" report -i "$HOSTILE/escape.txt" --print >"$WORK/e.out" 2>&1 && ! grep -q $'\x1b' "$WORK/e.out"
}

# max_rss_kib ARGS...: peak RSS of kmtrace report ARGS (stdout discarded).
max_rss_kib() {
	/usr/bin/time -f '%M' -o "$WORK/rss" "$KMTRACE" report "$@" >"$WORK/rss.out" 2>/dev/null || return 1
	cat "$WORK/rss"
}

# Memory follows the events, never a span or a count the file claims.
test_hostile_memory() {
	local rss
	make_hostile || return 1
	for a in "page --timeline 1" "fault --timeline 1" "vm --timeline 1"; do
		rss=$(max_rss_kib -i "$HOSTILE/span.txt" $a) || return 1
		echo "  span of 10^5 s, $a: $rss KiB, $(grep -c '^ *1[0-9]*\.[0-9]* ' "$WORK/rss.out") rows"
		[ "$rss" -lt 65536 ] || return 1
	done
	rss=$(max_rss_kib -i "$HOSTILE/forks.dat" vm) || return 1
	echo "  10,000 forks of a 10,000-region task: $rss KiB"
	[ "$rss" -lt 200000 ] && grep -q "Children left without their parent's regions" "$WORK/rss.out" || return 1
	rss=$(max_rss_kib -i "$HOSTILE/nrcpus.data") || return 1
	echo "  HEADER_NRCPUS 10,000,000: $rss KiB, $(wc -c <"$WORK/rss.out") bytes of report"
	[ "$rss" -lt 100000 ] && [ "$(wc -c <"$WORK/rss.out")" -lt 20000 ]
}

# --formats DIR with a field at offset 60000, and a short line of that event.
test_hostile_text_formats() {
	make_hostile && hjson "$HOSTILE/textfmt.txt" --formats "$HOSTILE/textfmt" slab &&
	[ "$(hget "d['analyses']['slab']['summary']['allocations']")" = 1 ]
}

# trace-cmd v7 with one byte changed, 200 ways: exit 0 or 2 (one line), never a crash.
test_hostile_v7() {
	local i rc n=0 twos=0
	python3 - "$TRACES/small-v7.dat" "$WORK/v7" <<'PY' || return 1
import os, random, sys
data = open(sys.argv[1], 'rb').read()
os.makedirs(sys.argv[2], exist_ok=True)
random.seed(7)
for i in range(200):
    d = bytearray(data)
    d[random.randrange(len(d))] ^= random.choice([1, 0x10, 0x80, 0xff])
    open(f'{sys.argv[2]}/{i}.dat', 'wb').write(d)
PY
	for i in $(seq 0 199); do
		"$KMTRACE" report -i "$WORK/v7/$i.dat" >"$WORK/v7.out" 2>"$WORK/v7.err"
		rc=$?
		n=$((n + 1))
		case $rc in
		0) ;;
		2) twos=$((twos + 1))
		   [ "$(wc -l <"$WORK/v7.err")" = 1 ] && [ ! -s "$WORK/v7.out" ] &&
		   grep -q "^kmtrace: $WORK/v7/$i.dat: offset [0-9]*: " "$WORK/v7.err" ||
			{ echo "  $i.dat: $(cat "$WORK/v7.err")"; return 1; } ;;
		*) echo "  $i.dat: exit $rc"; return 1 ;;
		esac
	done
	echo "  $n changed files: $twos refused with one line, the rest read"
	[ $twos -ge 5 ]
}

# A trace.dat whose CPU count libtracecmd reads as negative (a fuzzer's
# find): refused as corrupt in one line, not "out of memory".
test_hostile_cpu_count() {
	local rc f=$TOP/tests/fuzz/regressions/tracecmd/asan-negative-cpu-count
	"$KMTRACE" report -i "$f" stat >"$WORK/cc.out" 2>"$WORK/cc.err"; rc=$?
	[ $rc = 2 ] && [ ! -s "$WORK/cc.out" ] && [ "$(wc -l <"$WORK/cc.err")" = 1 ] &&
		grep -q "^kmtrace: $f: corrupt: -[0-9]* CPUs$" "$WORK/cc.err" ||
		{ echo "  rc $rc: $(cat "$WORK/cc.err")"; return 1; }
}

# A padding event whose length wraps the offset back onto itself (an endless
# loop before): refused in one line naming the offset, in well under 10 s.
test_hostile_padding_wrap() {
	python3 - "$TRACES/small.dat" "$WORK/padwrap.dat" <<'PY' || return 1
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
at = d.rfind(b'flyrecord\0') + 10
first_page = struct.unpack_from('<Q', d, at)[0]
struct.pack_into('<II', d, first_page + 16, 29, 0xfffffffc)	# PADDING, length -4
open(sys.argv[2], 'wb').write(d)
PY
	timeout 10 "$KMTRACE" report -i "$WORK/padwrap.dat" stat >/dev/null 2>"$WORK/padwrap.err"
	[ $? = 2 ] && [ "$(wc -l <"$WORK/padwrap.err")" = 1 ] &&
		grep -q "offset [0-9]*: corrupt: CPU 0 event runs past its sub-buffer" "$WORK/padwrap.err" ||
		{ cat "$WORK/padwrap.err"; return 1; }
	cat "$WORK/padwrap.err"
}

# -i - with a trace-cmd v7 file on standard input: read, no file named "-".
test_hostile_v7_stdin() {
	(cd "$WORK" && "$KMTRACE" report -i - <"$TRACES/small-v7.dat" >"$WORK/v7in.txt") &&
	grep -q 'Format  *trace.dat (libtracecmd)' "$WORK/v7in.txt" && [ ! -e "$WORK/-" ]
}

# The fixtures and the hostile inputs under ASan and UBSan: no report of either.
test_hostile_sanitized() {
	local f a n=0
	make_hostile || return 1
	for f in "$TRACES"/*.dat "$TRACES"/*.data "$TRACES"/*.txt "$HOSTILE"/*.dat "$HOSTILE"/*.txt \
		 "$HOSTILE"/*.data; do
		for a in "stat slab --caller page --caller fault --regions --ip vm oom" "--print" \
			 "page --timeline 1 fault --timeline 1 vm --timeline 1 --format json"; do
			ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1 \
			LSAN_OPTIONS=suppressions=$TOP/tests/lsan.supp \
				"$KMTRACE_SAN" report -i "$f" $a >/dev/null 2>"$WORK/san.err"
			if [ $? -gt 2 ] || grep -q 'runtime error\|Sanitizer' "$WORK/san.err"; then
				echo "  $f $a:"; grep -E 'runtime error|ERROR|#[0-3] ' "$WORK/san.err" | head -5
				return 1
			fi
			n=$((n + 1))
		done
	done
	echo "  $n runs clean"
}

# An analysis whose events are not in the recording says so: one line, a JSON field.
test_missing_events() {
	make_hostile && hjson "$HOSTILE/printk.dat" slab || return 1
	hget "d['analyses']['slab']['summary']['missing_events']" |
		grep -q '^kmem:kfree or kmem:kmem_cache_free (frees' &&
	[ "$(grep -c 'slab: not in the recording: kmem:kfree' "$WORK/h.err")" = 1 ] || return 1
	hjson "$HOSTILE/impossible.dat" page --caller || return 1
	hget "d['analyses']['page']['summary']['missing_events']" | grep -q '^kmem:mm_page_free (frees' &&
	hjson "$HOSTILE/textfmt.txt" --formats "$HOSTILE/textfmt" slab &&
	hget "d['analyses']['slab']['summary']['missing_events']" | grep -q 'kmem:kfree' || return 1
	# a recording with all of them says nothing
	hjson "$TRACES/small.dat" slab page &&
	hget "'missing_events' in d['analyses']['slab']['summary'] or 'missing_events' in d['analyses']['page']['summary']" |
		grep -q False && ! grep -q 'not in the recording' "$WORK/h.err"
}

hostile_parsing_tests() {
	check "an analysis whose events are not in the recording says which (slab without frees, page --caller without mm_page_free, text)" \
		test_missing_events
	check "hostile: print formats that crash libtraceevent (5 / 0, 5 / field, bad __print_symbolic, record-sized __print_hex), odd printk/cmdlines: reports and --print, no crash" \
		test_hostile_print_formats
	check "hostile: per-CPU stats of 2^64-1 and -1 flagged, not lost events" test_hostile_cpustat
	check "hostile: a field past any record or at a negative offset: that format unused" test_hostile_fields
	check "hostile: time going back, sizes and orders no kernel has: counted, said, left out" \
		test_hostile_values
	check "hostile: text times out of order or past u64 nanoseconds" test_hostile_text_times
	check "hostile: terminal escapes in text lines and names printed as \\xNN" test_hostile_escapes
	check "hostile: memory follows the events (--timeline over 10^5 s, 10,000 forks, HEADER_NRCPUS 10^7)" \
		test_hostile_memory
	check "hostile: --formats with a field at offset 60000 and a short line" test_hostile_text_formats
	check "hostile: trace-cmd v7 with one byte changed (200 ways): exit 0 or 2, one line" test_hostile_v7
	check "hostile: -i - reads a v7 trace.dat from standard input" test_hostile_v7_stdin
	check "hostile: a sub-buffer padding whose length wraps: exit 2, one line" test_hostile_padding_wrap
	check "hostile: a negative CPU count: exit 2, one line saying so" test_hostile_cpu_count
	check "hostile: fixtures and hostile inputs under ASan+UBSan: clean" test_hostile_sanitized
}
