# Integration tests of ftrace text input, sourced by tests/integration.sh
# (uses its KMTRACE, TOP, TRACES, WORK, TRACEFS, check, live, json_get,
# expect_bad_input, slab_vs_recount's scripts and page_recount.py).

INSTANCE_TEXT=$TRACES/instance-trace.txt	# cat trace of an instance

# same_reports DAT TEXT [REPORT-OPTIONS...]: slab and page through the text
# reader equal those through the trace.dat reader, every summary figure and
# table row, but for what the text cannot carry (tests/same_reports.py).
same_reports() {
	local dat=$1 text=$2; shift 2
	"$KMTRACE" report -i "$dat" slab --caller --cache page --order --gfp --pid "$@" \
		--format json >"$WORK/tl-dat.json" 2>"$WORK/tl-dat.err" || return 1
	"$KMTRACE" report -i "$text" slab --caller --cache page --order --gfp --pid "$@" \
		--format json >"$WORK/tl-text.json" 2>"$WORK/tl-text.err" || return 1
	python3 "$TOP/tests/same_reports.py" "$WORK/tl-dat.json" "$WORK/tl-text.json"
}

# The text of trace-cmd report -t of a fixture reads like the fixture itself;
# standard error says the same of symbols (the fixture has no kallsyms, so
# the text has raw addresses) and nothing else.
test_text_trace_cmd_report() {
	trace-cmd report -t -i "$TRACES/small.dat" >"$WORK/small.txt" 2>/dev/null || return 1
	same_reports "$TRACES/small.dat" "$WORK/small.txt" || return 1
	sed 's/^kmtrace: [^:]*: //' "$WORK/tl-dat.err" >"$WORK/tl-dat.said"
	sed 's/^kmtrace: [^:]*: //' "$WORK/tl-text.err" >"$WORK/tl-text.said"
	cat "$WORK/tl-text.said" | sed 's/^/  /'
	cmp -s "$WORK/tl-dat.said" "$WORK/tl-text.said" &&
		! grep -qv 'kernel addresses not resolved' "$WORK/tl-text.said"
}

# Standard input gives the same report as the file.
test_text_stdin() {
	"$KMTRACE" report -i "$WORK/small.txt" slab page --format json >"$WORK/tf.json" &&
	"$KMTRACE" report -i - slab page --format json <"$WORK/small.txt" >"$WORK/ts.json" || return 1
	# the same analyses; only the input's name differs
	python3 -c 'import json,sys; f, s = (json.load(open(p)) for p in sys.argv[1:3]); sys.exit(f["analyses"] != s["analyses"] or s["kmtrace"]["input"] != "-" or s["analyses"]["slab"]["summary"]["allocations"] < 100)' "$WORK/tf.json" "$WORK/ts.json"
}

# cat trace (irq-info column, hashed pointers, func+off/size): slab and page
# figures equal an independent recount of the same text.
test_text_cat_trace() {
	slab_vs_recount_text "$INSTANCE_TEXT" && page_vs_recount_text "$INSTANCE_TEXT"
}

# slab_vs_recount_text TEXT [REPORT-OPTIONS...]
slab_vs_recount_text() {
	"$KMTRACE" report -i "$1" "${@:2}" slab --caller --format json >"$WORK/slab.json" &&
	python3 "$TOP/tests/slab_recount.py" --usec <"$1" >"$WORK/recount.json" || return 1
	python3 "$TOP/tests/slab_compare.py" "$WORK/slab.json" "$WORK/recount.json" | sed 's/^/  /'
	return "${PIPESTATUS[0]}"
}

# page_vs_recount_text TEXT [REPORT-OPTIONS...]
page_vs_recount_text() {
	"$KMTRACE" report -i "$1" "${@:2}" page --format json >"$WORK/page.json" &&
	python3 "$TOP/tests/page_recount.py" \
		"$(json_get "$WORK/page.json" "d['analyses']['page']['summary']['page_size']")" \
		<"$1" >"$WORK/page-recount.json" || return 1
	python3 "$TOP/tests/page_compare.py" "$WORK/page.json" "$WORK/page-recount.json" | sed 's/^/  /'
	return "${PIPESTATUS[0]}"
}

# Lines that do not parse are counted in stat and shown with their numbers.
test_text_unparsed() {
	local n
	{ head -n 20 "$INSTANCE_TEXT"; echo "this is no event line"; sed -n '21,40p' "$INSTANCE_TEXT"
	  echo "          sh-1     [000] .....  1.000000: sched_switch: prev_comm=sh"; } >"$WORK/bad.txt"
	"$KMTRACE" report -i "$WORK/bad.txt" --format json stat >"$WORK/bad.json" 2>"$WORK/bad.err" ||
		return 1
	n=$(json_get "$WORK/bad.json" "d['analyses']['stat']['summary']['unparsed_lines']")
	[ "$n" = 2 ] && grep -q "2 lines not parsed" "$WORK/bad.err" &&
	grep -q "line 21: not an event line: this is no event line" "$WORK/bad.err" &&
	grep -q "line 42: no format for this event: sched_switch" "$WORK/bad.err" ||
		{ echo "  unparsed=$n; $(cat "$WORK/bad.err")"; return 1; }
}

# --formats DIR: the shipped formats' own tree reads as the compiled-in copy.
test_text_formats_dir() {
	"$KMTRACE" report -i "$INSTANCE_TEXT" slab page --format json >"$WORK/f1.json" &&
	"$KMTRACE" report -i "$INSTANCE_TEXT" --formats "$TOP/formats/linux-6.18" slab page --format json \
		>"$WORK/f2.json" || return 1
	# all but the kernel version, which shipped formats name and a directory does not
	python3 -c 'import json,sys
a, b = (json.load(open(f))["analyses"] for f in sys.argv[1:])
for d in (a, b):
    d["page"]["summary"].pop("kernel")
sys.exit(a != b)' "$WORK/f1.json" "$WORK/f2.json" || { echo "  reports differ"; return 1; }
	# a shipped set by its version reads as the default (the newest), kernel and all
	"$KMTRACE" report -i "$INSTANCE_TEXT" --formats 6.18 slab page --format json \
		>"$WORK/f3.json" || return 1
	python3 -c 'import json,sys
a, b = (json.load(open(f))["analyses"] for f in sys.argv[1:])
sys.exit(a != b or a["page"]["summary"]["kernel"] != "6.18")' "$WORK/f1.json" "$WORK/f3.json" ||
		{ echo "  --formats 6.18 differs from the default"; return 1; }
	# every shipped set reads and names its kernel
	for v in 5.10 6.1 6.12 6.18; do
		"$KMTRACE" report -i "$INSTANCE_TEXT" --formats "$v" page --format json \
			>"$WORK/f4.json" 2>/dev/null &&
		json_get "$WORK/f4.json" "d['analyses']['page']['summary']['kernel']" | grep -qx "$v" ||
			{ echo "  --formats $v"; return 1; }
	done
	"$KMTRACE" report -i "$INSTANCE_TEXT" --formats "$WORK/nowhere" >"$WORK/b.out" 2>"$WORK/b.err"
	[ $? -eq 2 ] && [ "$(wc -l <"$WORK/b.err")" -eq 1 ] && [ ! -s "$WORK/b.out" ] || return 1
	"$KMTRACE" report -i "$INSTANCE_TEXT" --formats 5.99 >"$WORK/b.out" 2>"$WORK/b.err"
	[ $? -eq 2 ] && grep -q 'nor is it a kernel version' "$WORK/b.err"
}

# cat trace of Debian's 6.1 on arm64 (qemu), with that kernel's formats and
# uname: libtraceevent cannot parse the page events' print formats there
# (page=%p is computed with __builtin_clzll()), so their fields are read by
# name; slab and page equal the recount, and the kernel is named.
test_text_arm64_61() {
	local fmt="$TRACES/arm64-6.1-formats"
	slab_vs_recount_text "$TRACES/arm64-6.1-trace.txt" --formats "$fmt" &&
	page_vs_recount_text "$TRACES/arm64-6.1-trace.txt" --formats "$fmt" || return 1
	json_get "$WORK/page.json" "d['analyses']['page']['summary']['kernel']" | grep -qx 6.1 &&
	json_get "$WORK/page.json" "d['analyses']['page']['summary']['alloc_freed_requests']" |
		grep -qv '^0$'
}

# ------------------------------------------------ text of older kernels
# The fixtures tests/oldtext/make_fixtures.py wrote from the kernels' own print
# formats (traces/README.md): "DIR MAP" per line.
OLD_TEXTS="linux-3.10-i686 System.map
linux-4.19-x86_64 kallsyms
linux-5.10-armhf System.map"

# old_reports DIR MAP [ARGS...]: slab --caller and page --gfp of DIR's text, with
# the map, into $WORK/old.json; standard error into $WORK/old.err.
old_reports() {
	local dir=$TRACES/$1 map=$TRACES/$1/$2
	shift 2
	"$KMTRACE" report -i "$dir/trace.txt" --kallsyms "$map" "$@" slab --caller page --gfp \
		--format json >"$WORK/old.json" 2>"$WORK/old.err"
}

# Each fixture with its own formats and with the default (6.18) ones: slab
# and page equal an independent recount, every call site named through the
# map (bare 32- and 64-bit hex, a module's), nothing unresolved or unparsed;
# both reads give the same report but for the node field the 6.18 formats
# give every kmalloc (lines without one read as -1, no node asked).
test_old_text() {
	local dir map f
	while read -r dir map; do
		for f in "--formats $TRACES/$dir/formats" ""; do
			# shellcheck disable=SC2086
			old_reports "$dir" "$map" $f || return 1
			[ ! -s "$WORK/old.err" ] || { echo "  $dir $f: $(cat "$WORK/old.err")"; return 1; }
			python3 "$TOP/tests/slab_recount.py" --usec --map "$TRACES/$dir/$map" \
				<"$TRACES/$dir/trace.txt" >"$WORK/recount.json" &&
			python3 "$TOP/tests/page_recount.py" 4096 <"$TRACES/$dir/trace.txt" \
				>"$WORK/page-recount.json" || return 1
			[ -n "$f" ] || python3 -c 'import json,sys
r = json.load(open(sys.argv[1])); r["summary"].pop("node_allocations")
json.dump(r, open(sys.argv[1], "w"))' "$WORK/recount.json"
			python3 "$TOP/tests/slab_compare.py" "$WORK/old.json" "$WORK/recount.json" &&
			python3 "$TOP/tests/page_compare.py" "$WORK/old.json" "$WORK/page-recount.json" ||
				{ echo "  $dir ${f:-default formats}"; return 1; }
			[ -z "$f" ] || cp "$WORK/old.json" "$WORK/old-own.json"
		done
		# the GFP values differ (each kernel's bits), not their names and counts; the
		# kernel (and so the migratetype names) the default formats cannot know
		python3 -c 'import json,sys
a, b = (json.load(open(f))["analyses"] for f in sys.argv[1:])
for d in (a, b):
    d["slab"]["summary"].pop("node_allocations"); d["page"]["summary"].pop("kernel")
    d["page"].pop("units")
    d["page"]["tables"]["gfp"] = sorted(json.dumps(r) for r in d["page"]["tables"]["gfp"]
                                        if r.pop("gfp") is not None)
    d["page"]["tables"]["matrix"] = [list(r.values()) for r in d["page"]["tables"]["matrix"]]
sys.exit(a != b)' "$WORK/old-own.json" "$WORK/old.json" ||
			{ echo "  $dir: the reports through its formats and the default ones differ"; return 1; }
	done <<<"$OLD_TEXTS"
}

# GFP flags as each text wrote them, old names and all: the page --gfp rows are
# the text's flag strings, with the text's counts.
test_old_text_gfp() {
	local dir map
	while read -r dir map; do
		old_reports "$dir" "$map" || return 1
		diff <(json_get "$WORK/old.json" "'\\n'.join(sorted('%s %d' % (r['flags'], r['allocs'] + r['failures']) for r in d['analyses']['page']['tables']['gfp']))") \
		     <(grep -o 'mm_page_alloc: .*gfp_flags=[^ ]*' "$TRACES/$dir/trace.txt" |
		       sed 's/.*gfp_flags=//' | sort | uniq -c | awk '{ print $2, $1 }' | sort) ||
			{ echo "  $dir"; return 1; }
	done <<<"$OLD_TEXTS"
}

# --print shows each line's own values: task, time, event and fields as the
# text wrote them, address call sites named through the map.
test_old_text_print() {
	local dir map
	while read -r dir map; do
		"$KMTRACE" report -i "$TRACES/$dir/trace.txt" --kallsyms "$TRACES/$dir/$map" --print |
			python3 "$TOP/tests/oldtext/print_check.py" "$TRACES/$dir/trace.txt" \
				"$TRACES/$dir/$map" >"$WORK/print-check.txt" &&
		"$KMTRACE" report -i "$TRACES/$dir/trace.txt" --formats "$TRACES/$dir/formats" --print \
			2>/dev/null |
			python3 "$TOP/tests/oldtext/print_check.py" "$TRACES/$dir/trace.txt" \
				>>"$WORK/print-check.txt" || { echo "  $dir"; head -3 "$WORK/print-check.txt"; return 1; }
	done <<<"$OLD_TEXTS"
}

# Without symbols, bare-hex call sites are addresses: shown as hex, one line on
# standard error with the count.
test_old_text_no_symbols() {
	local f=$TRACES/linux-3.10-i686/trace.txt n
	"$KMTRACE" report -i "$f" slab --caller --format json >"$WORK/old.json" 2>"$WORK/old.err" ||
		return 1
	n=$(json_get "$WORK/old.json" "len(d['analyses']['slab']['tables']['callers'])")
	[ "$(wc -l <"$WORK/old.err")" = 1 ] &&
	grep -q "$f: $n of $n kernel addresses not resolved" "$WORK/old.err" &&
	json_get "$WORK/old.json" "all(__import__('re').match('^0xc1[0-9a-f]{6}$', r['callsite']) for r in d['analyses']['slab']['tables']['callers'])" |
		grep -qx True || { cat "$WORK/old.err"; return 1; }
}

# stat names each recording's machine, byte order and long size: the file's,
# or a text's formats' long size and its uname's machine.
test_stat_machine() {
	local args want
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		"$KMTRACE" report -i $args --format json stat >"$WORK/m.json" 2>/dev/null || return 1
		[ "$(json_get "$WORK/m.json" "' '.join(str(d['analyses']['stat']['summary'][k]) for k in ('architecture', 'byte_order', 'long_size'))")" = "$want" ] ||
			{ echo "  $args: $(json_get "$WORK/m.json" "d['analyses']['stat']['summary']")"; return 1; }
	done <<EOT
$TRACES/small.dat|x86_64 little 8
$TRACES/perf-small.data|x86_64 little 8
$TRACES/linux-5.10-armhf/trace.txt --formats $TRACES/linux-5.10-armhf/formats|armv7l little 4
$TRACES/linux-3.10-i686/trace.txt --formats $TRACES/linux-3.10-i686/formats|i686 little 4
$TRACES/arm64-6.1-trace.txt --formats $TRACES/arm64-6.1-formats|aarch64 little 8
EOT
}

# Lines with fields the formats read with lack: stderr names the shipped
# formats that fit them better (a 6.18 text read with 6.1's: its cache events'
# name field); none when they fit.
test_text_formats_hint() {
	"$KMTRACE" report -i "$INSTANCE_TEXT" --formats 6.1 slab >/dev/null 2>"$WORK/hint.err" &&
	grep -q "lines have fields the formats of Linux 6.1 lack: 6 of its 6 kinds of line fit those of Linux 6.18 (--formats 6.18)" \
		"$WORK/hint.err" || { cat "$WORK/hint.err"; return 1; }
	"$KMTRACE" report -i "$INSTANCE_TEXT" slab >/dev/null 2>"$WORK/hint.err" &&
	! grep -q -- '--formats' "$WORK/hint.err"
}

textlog_parsing_tests() {
	check "text: lines the formats do not fit: stderr names the shipped formats that do" \
		test_text_formats_hint
	check "stat: each recording's architecture, byte order and long size" test_stat_machine
	check "text of 3.10 (x86 32-bit), 4.19 (x86-64, a module) and 5.10 (32-bit ARM): slab and page equal a recount through the map, with their formats and with the default ones" \
		test_old_text
	check "text of old kernels: page --gfp keeps the flag names each text wrote, old names included" \
		test_old_text_gfp
	check "text of old kernels: --print shows each line's own values, address call sites named" \
		test_old_text_print
	check "text of 3.10 without symbols: call sites as hex, one stderr line with the count" \
		test_old_text_no_symbols
	check "text: trace-cmd report -t of small.dat gives slab and page identical to the trace.dat reader" \
		test_text_trace_cmd_report
	check "text: -i - reads standard input" test_text_stdin
	check "text: cat trace of an instance: slab and page equal an independent recount" \
		test_text_cat_trace
	check "text: unparsed lines counted and shown with line numbers" test_text_unparsed
	check "text: cat trace of arm64 Linux 6.1 with its formats: slab and page equal the recount" \
		test_text_arm64_61
	check "text: --formats DIR and --formats VERSION read as the shipped formats; a missing one is exit 2" \
		test_text_formats_dir
}

# ---------------------------------------------------------------- live
# A kmtrace recording with kallsyms: its trace-cmd report -t text gives the
# same slab and page reports (call sites by name) as the recording.
test_text_live_record() {
	"$KMTRACE" record -o "$WORK/tl.dat" -e kmem -- sh -c 'cat /etc/os-release >/dev/null; ls /usr/bin >/dev/null' \
		>/dev/null 2>&1 || return 1
	trace-cmd report -t -i "$WORK/tl.dat" >"$WORK/tl.txt" 2>/dev/null || return 1
	same_reports "$WORK/tl.dat" "$WORK/tl.txt" || return 1
	json_get "$WORK/tl-text.json" "d['analyses']['slab']['tables']['callers'][0]['callsite']" |
		grep -q '^[a-z_][a-z_0-9.]*+0x' || { echo "  call sites not named"; return 1; }
}

# cat trace of an instance made here (with its header and #P:) against the recount.
test_text_live_instance() {
	local inst=$TRACEFS/instances/kmtrace-test-text-$$ e ret
	mkdir "$inst" || return 1
	for e in kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc mm_page_free; do
		echo 1 >"$inst/events/kmem/$e/enable"
	done
	sh -c 'cat /etc/os-release >/dev/null; ls /usr/bin >/dev/null'
	echo 0 >"$inst/tracing_on"
	cat "$inst/trace" >"$WORK/inst.txt"
	rmdir "$inst"
	slab_vs_recount_text "$WORK/inst.txt" && page_vs_recount_text "$WORK/inst.txt"
}

# record --extract of an instance set up here: the same buffer as its cat
# trace text gives the same slab and page reports and the same events per
# type as trace-cmd report; the instance stays, still off. Refused: tracing
# on, no such instance, no event enabled, options that do not apply.
test_text_live_extract() {
	local name=kmtrace-test-extract-$$ inst ret=0 e
	inst=$TRACEFS/instances/$name
	mkdir "$inst" || return 1
	echo 0 >"$inst/tracing_on"
	"$KMTRACE" record --extract "$name" -o "$WORK/ex0.dat" >/dev/null 2>"$WORK/ex.err"
	[ $? -eq 2 ] && grep -q 'no event enabled' "$WORK/ex.err" || ret=1
	for e in kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc mm_page_free; do
		echo 1 >"$inst/events/kmem/$e/enable"
	done
	echo 1 >"$inst/tracing_on"
	"$KMTRACE" record --extract "$name" -o "$WORK/ex0.dat" >/dev/null 2>"$WORK/ex.err"
	[ $? -eq 2 ] && grep -q 'tracing is on' "$WORK/ex.err" && [ ! -e "$WORK/ex0.dat" ] || ret=1
	sh -c 'cat /etc/os-release >/dev/null; ls /usr/bin >/dev/null'
	echo 0 >"$inst/tracing_on"
	cat "$inst/trace" >"$WORK/ex.txt"
	"$KMTRACE" record --extract "$name" -o "$WORK/ex.dat" >/dev/null 2>"$WORK/ex.err" || ret=1
	[ -d "$inst" ] && [ "$(cat "$inst/tracing_on")" = 0 ] && [ -n "$(cat "$inst/set_event")" ] ||
		{ echo "  the instance was changed"; ret=1; }
	rmdir "$inst"
	[ $ret = 0 ] || { echo "  $(cat "$WORK/ex.err")"; return 1; }
	[ "$(stat -c %a "$WORK/ex.dat")" = 600 ] || return 1
	"$KMTRACE" record --extract "$name" -o "$WORK/ex1.dat" >/dev/null 2>"$WORK/ex.err"
	[ $? -eq 2 ] && grep -q "no tracing instance '$name'" "$WORK/ex.err" || return 1
	"$KMTRACE" record --extract "$name" -e kmem:kmalloc -o "$WORK/ex1.dat" >/dev/null 2>&1
	[ $? -eq 2 ] || return 1
	"$KMTRACE" report -i "$WORK/ex.dat" slab --caller --cache page --order --gfp --pid \
		--format json >"$WORK/ex-dat.json" 2>/dev/null &&
	"$KMTRACE" report -i "$WORK/ex.txt" slab --caller --cache page --order --gfp --pid \
		--format json >"$WORK/ex-text.json" 2>/dev/null || return 1
	python3 "$TOP/tests/same_reports.py" --usec "$WORK/ex-dat.json" "$WORK/ex-text.json" ||
		return 1
	python3 - "$KMTRACE" "$WORK/ex.dat" "$WORK/ex.txt" <<'PY'
import collections, json, re, subprocess, sys
kmtrace, dat, txt = sys.argv[1:]
def per_type(text):
    return collections.Counter(m[1] for m in re.finditer(r'\s\d+\.\d+:\s+(\w+):', text))
st = json.loads(subprocess.run([kmtrace, 'report', '-i', dat, '--format', 'json', 'stat'],
                               capture_output=True, text=True).stdout)
mine = collections.Counter({r['event'].split(':')[1]: r['count']
                            for r in st['analyses']['stat']['tables']['events']})
tc = per_type(subprocess.run(['trace-cmd', 'report', dat], capture_output=True, text=True).stdout)
lines = per_type(open(txt).read())
print('  %d events; cat trace %d lines, trace-cmd report %d' %
      (sum(mine.values()), sum(lines.values()), sum(tc.values())))
sys.exit(not (mine == tc == lines and sum(mine.values()) > 100))
PY
}

textlog_live_tests() {
	live "text: trace-cmd report -t of a kmtrace recording gives identical slab and page reports" \
		test_text_live_record
	live "text: cat trace of a new instance: slab and page equal an independent recount" \
		test_text_live_instance
	live "record --extract: an instance set up by hand, as a trace.dat; its cat trace gives the same reports" \
		test_text_live_extract
}
