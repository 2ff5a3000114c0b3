# Integration tests of `kmtrace report page`, sourced by tests/integration.sh
# (uses its KMTRACE, TOP, TRACES, WORK, check, live, json_get, same_numbers).

# page_vs_recount FILE: perf kmem's request counts, pages and the matrix equal
# an independent recount from trace-cmd report's text of FILE.
page_vs_recount() {
	"$KMTRACE" report -i "$1" page --format json >"$WORK/page.json" || return 1
	trace-cmd report -i "$1" 2>/dev/null |
		python3 "$TOP/tests/page_recount.py" \
			"$(json_get "$WORK/page.json" "d['analyses']['page']['summary']['page_size']")" \
			>"$WORK/page-recount.json" || return 1
	python3 "$TOP/tests/page_compare.py" "$WORK/page.json" "$WORK/page-recount.json" |
		sed 's/^/  /'
	return "${PIPESTATUS[0]}"
}

page_get() { json_get "$WORK/page.json" "$1"; }

test_page_caller_note() {
	"$KMTRACE" report -i "$TRACES/small.dat" page --caller >"$WORK/pc.out" 2>"$WORK/pc.err" &&
	grep -q 'needs call stacks' "$WORK/pc.err" && grep -q 'Total allocation requests' "$WORK/pc.out"
}

test_page_bad_options() {
	local a
	for a in "--timeline 0" "--timeline x" "-l x" "--time 3,1" "--nosuch" "-s nosuch" "-s ,"; do
		# shellcheck disable=SC2086
		"$KMTRACE" report -i "$TRACES/small.dat" page $a >"$WORK/po.out" 2>"$WORK/po.err"
		[ $? -eq 2 ] && [ ! -s "$WORK/po.out" ] && [ "$(wc -l <"$WORK/po.err")" -eq 1 ] ||
			{ echo "  page $a: $(cat "$WORK/po.err")"; return 1; }
	done
}

test_page_no_check_on_command() {
	"$KMTRACE" report -i "$TRACES/small.dat" page --format json >"$WORK/page.json" &&
	page_get "d['analyses']['page']['summary']['vmstat_check']" | grep -q '^not applicable'
}

test_page_live_table() {
	"$KMTRACE" report -i "$TRACES/small.dat" page --live --order --format json >"$WORK/page.json" ||
		return 1
	# every live block is in the per-order live pages, and they are oldest first
	page_get "sum(r['live_pages'] for r in d['analyses']['page']['tables']['orders']) == sum(1 << r['order'] for r in d['analyses']['page']['tables']['live']) and [r['age_ns'] for r in d['analyses']['page']['tables']['live']] == sorted((r['age_ns'] for r in d['analyses']['page']['tables']['live']), reverse=True)" |
		grep -q True
}

# page -s KEY: every table that has KEY in its order (page_sort_check.py),
# on perf-zg.data (stacks, many processes); -l N: the first N rows of each.
test_page_sort() {
	local f=$TRACES/perf-zg.data k tables="--order --migratetype --gfp --pid --live --caller --stack"
	# shellcheck disable=SC2086
	"$KMTRACE" report -i "$f" --kallsyms "$TRACES/perf-zg.kallsyms" page $tables --format json \
		>"$WORK/page-default.json" || return 1
	for k in pages allocs frees live order migratetype gfp pid caller; do
		# shellcheck disable=SC2086
		"$KMTRACE" report -i "$f" --kallsyms "$TRACES/perf-zg.kallsyms" page $tables -s "$k" \
			--format json >"$WORK/page-sorted.json" &&
		python3 "$TOP/tests/page_sort_check.py" "$k" "$WORK/page-sorted.json" \
			"$WORK/page-default.json" >>"$WORK/page-sort.txt" || return 1
	done
	# every key was checked on the tables that have it
	grep -qx 'pages orders migratetypes gfp pids callers stacks live' "$WORK/page-sort.txt" &&
	grep -qx 'migratetype migratetypes live' "$WORK/page-sort.txt" &&
	grep -qx 'caller callers' "$WORK/page-sort.txt" || { cat "$WORK/page-sort.txt"; return 1; }
	# shellcheck disable=SC2086
	"$KMTRACE" report -i "$f" --kallsyms "$TRACES/perf-zg.kallsyms" page $tables -l 2 \
		--format json >"$WORK/page-lines.json" &&
	python3 "$TOP/tests/page_sort_check.py" --lines 2 "$WORK/page-lines.json" \
		"$WORK/page-default.json" | grep -qx 'lines 2 callers gfp live matrix migratetypes orders pids stacks'
}

page_parsing_tests() {
	check "page: -s with each key sorts every table that has it; -l N keeps the first N rows of every table" \
		test_page_sort
	check "page: traces/small.dat request counts, pages and matrix equal a recount from trace-cmd report" \
		page_vs_recount "$TRACES/small.dat"
	check "page: traces/small-v7.dat equals its recount too" page_vs_recount "$TRACES/small-v7.dat"
	check "page: text, CSV and JSON carry the same numbers (all tables, timeline)" \
		same_numbers "$TRACES/small.dat" page --pid --order --migratetype --gfp --live \
		--timeline 1
	check "page: --live lists the live pages, oldest first, matching the per-order live pages" \
		test_page_live_table
	check "page: no vmstat check on a -- COMMAND recording" test_page_no_check_on_command
	check "page: --caller says call stacks are missing, the rest is reported" test_page_caller_note
	check "page: bad options exit 2 with one line" test_page_bad_options
}

# A system-wide recording of file reads and process spawns, 0 lost: traced
# pages within 1% of /proc/vmstat, also with the spawns' kernel stacks
# counted as none to all untraced, and perf-style counts equal the recount.
test_page_vmstat() {
	local f=$WORK/page-sw.dat
	(sleep 0.3; sh "$TOP/scripts/workload.sh" 5 6000 >/dev/null 2>&1) &
	"$KMTRACE" record -d 2.5 -o "$f" 2>/dev/null || return 1
	wait
	"$KMTRACE" report -i "$f" page --format json >"$WORK/page.json" || return 1
	page_get "'  allocated %(pages_allocated)d pages, pgalloc %(vmstat_pgalloc)d (%(pgalloc_diff_percent).2f%%); freed %(pages_freed)d, pgfree %(vmstat_pgfree)d (%(pgfree_diff_percent).2f%%)' % d['analyses']['page']['summary']" ||
		{ page_get "d['analyses']['page']['summary']['vmstat_check']"; return 1; }
	page_get "abs(d['analyses']['page']['summary']['pgalloc_diff_percent']) <= 1 and abs(d['analyses']['page']['summary']['pgfree_diff_percent']) <= 1 and d['analyses']['page']['summary']['pages_allocated'] > 5000 and d['analyses']['page']['summary']['forks'] >= 5 and abs(d['analyses']['page']['summary']['pgalloc_diff_beyond_stacks_percent']) <= 1" |
		grep -q True || return 1
	page_vs_recount "$f"
}

# 50,000 anonymous order-0 pages touched by a traced child.
test_page_anon() {
	local f=$WORK/page-anon.dat pid
	"$KMTRACE" record -o "$f" -- python3 -c '
import mmap, os, sys
n = 50000
m = mmap.mmap(-1, n * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.madvise(mmap.MADV_NOHUGEPAGE)
for i in range(0, n * 4096, 4096):
    m[i] = 1
open(sys.argv[1], "w").write(str(os.getpid()))
' "$WORK/anon.pid" 2>/dev/null || return 1
	pid=$(cat "$WORK/anon.pid")
	"$KMTRACE" report -i "$f" page --pid --timeline 50 --format json >"$WORK/page.json" || return 1
	page_get "'\n'.join('  pid %(pid)d %(comm)s: %(pages_allocated)d pages allocated, peak %(peak_pages)d, min %(min_pages)d' % r for r in d['analyses']['page']['tables']['pids'] if r['pid'] == $pid)"
	# The peak is net of what the process freed meanwhile (the interpreter's
	# own churn, an exec chain before it such as pyenv's shims): allow 5%.
	page_get "[r for r in d['analyses']['page']['tables']['pids'] if r['pid'] == $pid][0]['pages_allocated'] >= 50000 and 47500 <= [r for r in d['analyses']['page']['tables']['pids'] if r['pid'] == $pid][0]['peak_pages'] <= [r for r in d['analyses']['page']['tables']['pids'] if r['pid'] == $pid][0]['pages_allocated'] and max(r['pid_$pid'] for r in d['analyses']['page']['tables']['timeline']) >= 47500" |
		grep -q True || return 1
	# The matrix of the child's own allocations: order-0 anonymous memory is Movable.
	"$KMTRACE" report -i "$f" page --pid-filter "$pid" --format json >"$WORK/page.json" || return 1
	page_get "'  order 0: ' + str(d['analyses']['page']['tables']['matrix'][0])"
	page_get "d['analyses']['page']['tables']['matrix'][0]['movable'] >= 50000 and list(d['analyses']['page']['tables']['matrix'][0])[2] == 'movable'" |
		grep -q True
}

page_live_tests() {
	live "page: system-wide, 0 lost: pages allocated and freed within 1% of /proc/vmstat; counts equal the recount" \
		test_page_vmstat
	live "page: 50,000 touched anonymous pages: >= 50,000 allocated, peak >= 95% of that in --pid and --timeline; Movable" \
		test_page_anon
}
