# Call stacks (record -g, perf record -g), slab/page --stack, --format folded
# and the leak analysis. Sourced by tests/integration.sh.

STK=$TRACES/stacks.dat
STK_SYMS=(--kallsyms "$TRACES/stacks.kallsyms")

# stk_json FILE ANALYSIS ARGS...: kmtrace's JSON of FILE into $WORK/stk.json
stk_json() {
	local f=$1; shift
	"$KMTRACE" report -i "$f" "${STK_SYMS[@]}" "$@" --format json >"$WORK/stk.json"
}
stk_get() { json_get "$WORK/stk.json" "$1"; }
# Sum of OBJECTS of leak's stack rows through function $1 (in $WORK/stk.json).
leak_objects_through() {
	stk_get "sum(r['objects'] for r in d['analyses']['leak']['tables']['stacks'] if any(f.startswith('$1+') for f in r['stack']))"
}
# The sum of the last field of folded output.
folded_sum() { awk '{ s += $NF } END { print s + 0 }'; }

# Totals of the stack tables equal those of the call-site tables and the summaries.
test_stack_totals() {
	local bytes hits
	stk_json "$STK" slab --caller --stack || return 1
	stk_get "[sum(r[k] for r in d['analyses']['slab']['tables']['stacks']) for k in ('bytes_alloc','hits','live_bytes')] == [sum(r[k] for r in d['analyses']['slab']['tables']['callers']) for k in ('bytes_alloc','hits','live_bytes')] and len(d['analyses']['slab']['tables']['stacks']) > 10" | grep -q True || return 1
	bytes=$(stk_get "d['analyses']['slab']['summary']['bytes_allocated']")
	hits=$(stk_get "d['analyses']['slab']['summary']['allocations']")
	[ "$("$KMTRACE" report -i "$STK" "${STK_SYMS[@]}" slab --stack --format folded | folded_sum)" = "$bytes" ] &&
	[ "$("$KMTRACE" report -i "$STK" "${STK_SYMS[@]}" slab --stack -s hit --format folded | folded_sum)" = "$hits" ] ||
		{ echo "  folded sums differ from $bytes bytes / $hits allocations"; return 1; }
	stk_json "$STK" page --stack || return 1
	[ "$(stk_get "sum(r['pages'] for r in d['analyses']['page']['tables']['stacks'])")" = \
	  "$(stk_get "d['analyses']['page']['summary']['pages_allocated']")" ] &&
	[ "$("$KMTRACE" report -i "$STK" "${STK_SYMS[@]}" page --stack --format folded | folded_sum)" = \
	  "$(stk_get "d['analyses']['page']['summary']['pages_allocated']")" ]
}

# Folded lines: outermost frame first, function names without offsets.
test_folded_shape() {
	"$KMTRACE" report -i "$STK" "${STK_SYMS[@]}" slab --stack --format folded >"$WORK/f.txt" &&
	grep -q '^entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pipe2;do_pipe2;create_pipe_files;alloc_pipe_info [0-9][0-9]*$' "$WORK/f.txt" &&
	! grep -q '+0x' "$WORK/f.txt" &&
	"$KMTRACE" report -i "$STK" slab --format folded >/dev/null 2>"$WORK/f.err"
	[ $? -eq 2 ] && grep -q 'stack table' "$WORK/f.err"
}

# --alloc-frames replaces the list of allocator frames, +LIST extends it.
test_alloc_frames() {
	stk_json "$STK" slab --stack --alloc-frames trace_event_raw_event_ || return 1
	stk_get "any(r['stack'][0].startswith('__kmalloc') for r in d['analyses']['slab']['tables']['stacks'])" | grep -q True || return 1
	stk_json "$STK" slab --stack --alloc-frames +alloc_pipe_info || return 1
	stk_get "any(r['stack'][0].startswith('create_pipe_files+') for r in d['analyses']['slab']['tables']['stacks']) and not any(r['stack'][0].startswith('alloc_pipe_info+') for r in d['analyses']['slab']['tables']['stacks'])" | grep -q True
}

# The 200 pipes the fixture's program held: outstanding, by stack through do_pipe2.
test_leak_fixture() {
	stk_json "$STK" leak stat || return 1
	[ "$(leak_objects_through do_pipe2)" -ge 200 ] &&
	stk_get "d['analyses']['stat']['summary']['events_with_stack'] > 2000 and d['analyses']['stat']['summary']['stacks_without_event'] == 0 and d['analyses']['stat']['summary']['events_without_stack'] == 0" | grep -q True &&
	[ "$("$KMTRACE" report -i "$STK" "${STK_SYMS[@]}" leak --format folded | folded_sum)" = \
	  "$(stk_get "d['analyses']['leak']['summary']['slab_bytes'] + d['analyses']['leak']['summary']['page_bytes']")" ]
}

# --print shows each event's stack below it, the frames trace-cmd report shows.
test_print_stacks() {
	command -v trace-cmd >/dev/null || return 1
	trace-cmd report -i "$STK" 2>/dev/null |
		awk '/^=>/ { s = s " " $2; next } s { print s; s = "" } END { if (s) print s }' |
		sort >"$WORK/tc-stacks.txt"
	"$KMTRACE" report -i "$STK" --print |
		awk '/^ => / { sub("^0x", "", $2); s = s " " $2; next } s { print s; s = "" } END { if (s) print s }' |
		sort >"$WORK/kmt-stacks.txt"
	[ "$(wc -l <"$WORK/tc-stacks.txt")" -gt 2000 ] && cmp -s "$WORK/tc-stacks.txt" "$WORK/kmt-stacks.txt"
}

# Per-stack peaks: slab --stack's MAX_LIVE and MAX_LIVE_AT and page --stack's
# PEAK_LIVE and PEAK_AT on traces/stacks.dat equal a recount from trace-cmd
# report -t's events and stacks (frames named from the fixture's kallsyms,
# cut as kmtrace-report(1) documents), row for row.
test_stack_peaks() {
	local f=$TRACES/stacks.dat k=$TRACES/stacks.kallsyms
	trace-cmd report -t -i "$f" 2>/dev/null |
		python3 "$TOP/tests/stack_recount.py" peaks "$k" >"$WORK/peaks-recount.txt" &&
	"$KMTRACE" report -i "$f" --kallsyms "$k" --format json slab --stack page --stack \
		>"$WORK/peaks.json" 2>/dev/null || return 1
	python3 - "$WORK/peaks.json" >"$WORK/peaks-kmtrace.txt" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))['analyses']
for kind, peak, at in (('slab', 'max_live_bytes', 'max_live_time'),
                       ('page', 'peak_live_pages', 'peak_time')):
    for r in sorted(d[kind]['tables']['stacks'], key=lambda r: (r[peak], r[at])):
        print(kind, r[peak], r[at])
PY
	[ "$(grep -c '^slab ' "$WORK/peaks-recount.txt")" -ge 50 ] &&
		[ "$(grep -c '^page ' "$WORK/peaks-recount.txt")" -ge 10 ] ||
		{ echo "  too few stacks recounted"; return 1; }
	diff "$WORK/peaks-recount.txt" "$WORK/peaks-kmtrace.txt" >"$WORK/peaks.diff" ||
		{ echo "  kmtrace vs trace-cmd recount:"; head -5 "$WORK/peaks.diff"; return 1; }
	echo "  $(grep -c '^slab ' "$WORK/peaks-recount.txt") slab and" \
		"$(grep -c '^page ' "$WORK/peaks-recount.txt") page stacks: peaks and times equal"
}

stacks_parsing_tests() {
	check "--print: each event's stack below it, the same frames as trace-cmd report's" \
		test_print_stacks
	check "slab/page --stack totals equal --caller and the summaries; folded values sum to them" \
		test_stack_totals
	check "--format folded: outermost first, names only; without a stack table exit 2" \
		test_folded_shape
	check "--alloc-frames replaces and (+) extends the allocator frames" test_alloc_frames
	check "leak on traces/stacks.dat: the 200 held pipes by stack; stacks joined, none lost" \
		test_leak_fixture
	check "slab/page --stack peaks and when, on traces/stacks.dat: equal to a trace-cmd report recount" \
		test_stack_peaks
}

# -------------------------------------------------------------------- live
build_holdfds() {
	[ -x "$WORK/holdfds" ] || cc -O2 -o "$WORK/holdfds" "$TOP/tests/progs/holdfds.c"
}


# record -g while holdfds holds 2,000 pipes or eventfds: >= 2,000 outstanding
# through the syscall's function, and trace-cmd report shows the same stacks.
test_leak_held() {
	local kind=$1 func=$2 f=$WORK/held-$1.dat n tc
	build_holdfds || return 1
	"$KMTRACE" record -g -d 2 -o "$f" -- "$WORK/holdfds" "$kind" 2000 1 0 30000 \
		>/dev/null 2>"$WORK/held.err"
	"$KMTRACE" report -i "$f" leak --format json >"$WORK/stk.json" || return 1
	n=$(leak_objects_through "$func")
	[ "${n:-0}" -ge 2000 ] || { echo "  $n objects through $func"; return 1; }
	# trace-cmd report's stacks: allocations through $func, recounted
	"$KMTRACE" report -i "$f" slab --stack page --stack --format json >"$WORK/stk.json" || return 1
	n=$(stk_get "sum(r['hits'] for r in d['analyses']['slab']['tables']['stacks'] if any(x.startswith('$func+') for x in r['stack'])) + sum(r['allocs'] for r in d['analyses']['page']['tables']['stacks'] if any(x.startswith('$func+') for x in r['stack']))")
	tc=$(trace-cmd report -i "$f" 2>/dev/null | python3 "$TOP/tests/stack_recount.py" tracecmd "$func")
	[ "$tc" = "allocs $n" ] && [ "$n" -ge 2000 ] || { echo "  kmtrace $n, trace-cmd report: $tc"; return 1; }
}

# Outstanding eventfd contexts: the slab rows allocated right in do_eventfd.
eventfd_ctxs() {
	stk_get "sum(r['objects'] for r in d['analyses']['leak']['tables']['stacks'] if r['kind'] == 'slab' and r['stack'][0].startswith('do_eventfd+'))"
}

# Three batches of 300 eventfds a second apart: --older and --interval see them come.
test_leak_older_interval() {
	local f=$WORK/older.dat all a older1 older2
	build_holdfds || return 1
	"$KMTRACE" record -g -d 3 -o "$f" -- "$WORK/holdfds" eventfd 300 3 1000 30000 \
		>/dev/null 2>&1
	"$KMTRACE" report -i "$f" leak --format json >"$WORK/stk.json" || return 1
	all=$(eventfd_ctxs)
	a=$((all / 3))
	[ "$all" -eq 900 ] || { echo "  $all eventfd contexts outstanding"; return 1; }
	"$KMTRACE" report -i "$f" leak --older 1500 --format json >"$WORK/stk.json" || return 1
	older1=$(eventfd_ctxs)
	"$KMTRACE" report -i "$f" leak --older 500 --format json >"$WORK/stk.json" || return 1
	older2=$(eventfd_ctxs)
	[ "$older1" -eq "$a" ] && [ "$older2" -eq $((2 * a)) ] ||
		{ echo "  --older 1500: $older1, --older 500: $older2, batch: $a"; return 1; }
	# at the boundary after the first batch only it; after the second, both
	"$KMTRACE" report -i "$f" leak --interval 500 -l 50 --format json >"$WORK/stk.json" || return 1
	stk_get "sorted(set(sum(r['objects'] for r in d['analyses']['leak']['tables']['intervals'] if r['time'] == t and r['kind'] == 'slab' and r['stack'][0].startswith('do_eventfd+')) for t in set(r['time'] for r in d['analyses']['leak']['tables']['intervals'])) - {0})" |
		grep -qx "\[$a, $((2 * a))\]"
}

# perf record -g -a: page --stack and leak --all agree with a recount from perf script.
test_perf_stacks() {
	local f=$WORK/perf-g.data
	command -v perf >/dev/null || return 1
	build_holdfds || return 1
	perf record -q -g -a -e kmem:kmalloc,kmem:kfree,kmem:mm_page_alloc,kmem:mm_page_free \
		-o "$f" -- "$WORK/holdfds" pipe 300 1 0 300 >/dev/null 2>&1 || return 1
	perf script -i "$f" 2>/dev/null | python3 "$TOP/tests/stack_recount.py" perf >"$WORK/recount.txt"
	# --all: the recount counts every outstanding object, also those of a cache
	# the background made look untraced (a pointer allocated again while live)
	"$KMTRACE" report -i "$f" page --stack leak --all --format json >"$WORK/stk.json" \
		2>/dev/null || return 1
	stk_get "'\n'.join(sorted('stack %d %s' % (p, s) for s, p in __import__('functools').reduce(lambda a, r: a.__setitem__(';'.join(__import__('re').sub(r'\+0x[0-9a-f]+.*$', '', x) for x in r['stack']), a.get(';'.join(__import__('re').sub(r'\+0x[0-9a-f]+.*$', '', x) for x in r['stack']), 0) + r['pages']) or a, d['analyses']['page']['tables']['stacks'], {}).items()))" >"$WORK/kmt-stacks.txt"
	stk_get "'\n'.join('%s %d' % (k, d['analyses']['leak']['summary'][k]) for k in ('slab_objects', 'slab_bytes', 'page_blocks'))" >>"$WORK/kmt-stacks.txt"
	[ "$(grep -c '^stack' "$WORK/recount.txt")" -gt 5 ] &&
	diff <(sort "$WORK/recount.txt") <(sort "$WORK/kmt-stacks.txt") >"$WORK/perf-stacks.diff" ||
		{ head -5 "$WORK/perf-stacks.diff"; return 1; }
}

# Callers of the page allocations of a record -g recording of faultprog
# touching 3,000 pages, as "FUNC ALLOCS PAGES" lines, biggest first.
page_callers_of() {
	"$KMTRACE" report -i "$1" page --caller --format json >"$WORK/stk.json" || return 1
	stk_get "'\\n'.join('%s %d %d' % (r['caller'], r['allocs'], r['pages']) for r in sorted(d['analyses']['page']['tables']['callers'], key=lambda r: (-r['allocs'], r['caller'])))"
}

# A second tracer on kmem:mm_page_alloc (perf record -a) while record -g runs:
# the ftrace stacks then start with __traceiter_mm_page_alloc. The callers are
# those of a recording without it, a recount from trace-cmd report's stacks
# agrees, and no stack table keeps a plumbing frame.
test_shared_tracepoint() {
	local solo=$WORK/solo-g.dat shared=$WORK/shared-g.dat perfpid n top1 top2 c1 c2
	command -v perf >/dev/null && cc -O2 -o "$WORK/faultprog" "$TOP/tests/progs/faultprog.c" ||
		return 1
	"$KMTRACE" record -g -o "$solo" -- "$WORK/faultprog" 3000 0 "$WORK/fp-cold.bin" \
		>/dev/null 2>&1 || return 1
	perf record -q -a -e kmem:mm_page_alloc -o "$WORK/second.data" -- sleep 60 \
		>/dev/null 2>&1 &
	perfpid=$!
	sleep 2
	"$KMTRACE" record -g -o "$shared" -- "$WORK/faultprog" 3000 0 "$WORK/fp-cold.bin" \
		>/dev/null 2>&1
	n=$?
	kill -TERM $perfpid 2>/dev/null
	wait $perfpid 2>/dev/null
	[ $n -eq 0 ] || return 1
	trace-cmd report -i "$shared" 2>/dev/null | python3 "$TOP/tests/stack_recount.py" callers \
		>"$WORK/callers-recount.txt"
	n=$(awk '$1 == "plumbing" { print $2 }' "$WORK/callers-recount.txt")
	[ "${n:-0}" -ge 3000 ] || { echo "  only ${n:-0} stacks through tracepoint plumbing"; return 1; }
	page_callers_of "$shared" >"$WORK/callers-shared.txt" &&
	page_callers_of "$solo" >"$WORK/callers-solo.txt" || return 1
	diff <(awk '$1 == "caller" { print $2, $3, $4 }' "$WORK/callers-recount.txt" | sort) \
	     <(sort "$WORK/callers-shared.txt") >"$WORK/callers.diff" ||
		{ echo "  kmtrace vs trace-cmd recount:"; head -5 "$WORK/callers.diff"; return 1; }
	read -r top1 c1 _ <"$WORK/callers-solo.txt"
	read -r top2 c2 _ <"$WORK/callers-shared.txt"
	[ "$top1" = do_anonymous_page ] && [ "$top2" = "$top1" ] &&
	[ $(( (c1 > c2 ? c1 - c2 : c2 - c1) * 100 )) -le "$c1" ] ||
		{ echo "  top callers: $top1 $c1 alone, $top2 $c2 with perf attached"; return 1; }
	"$KMTRACE" report -i "$shared" page --stack slab --stack leak --format json >"$WORK/stk.json" ||
		return 1
	stk_get "[f for a, t in (('page', 'stacks'), ('slab', 'stacks'), ('leak', 'stacks')) for r in d['analyses'][a]['tables'][t] for f in r['stack'] if __import__('re').match(r'_*(traceiter_|probestub_|trace_event_raw_event_|perf_trace_|bpf_trace_)', f)]" |
		grep -qx '\[\]'
}

stacks_live_tests() {
	live "perf attached to mm_page_alloc during record -g: page --caller as without it, equal to a trace-cmd recount; no plumbing frame in any stack table" \
		test_shared_tracepoint
	live "record -g, 2,000 pipes held: leak >= 2,000 through do_pipe2; trace-cmd report's stacks recount the same" \
		test_leak_held pipe do_pipe2
	live "record -g, 2,000 eventfds held: leak >= 2,000 through do_eventfd; trace-cmd report's stacks recount the same" \
		test_leak_held eventfd do_eventfd
	live "leak --older and --interval on three batches of eventfds a second apart" \
		test_leak_older_interval
	live "perf record -g -a: page --stack and leak equal a recount from perf script" \
		test_perf_stacks
}
