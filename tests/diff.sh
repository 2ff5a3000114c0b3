# kmtrace diff: two recordings or reports joined on stable keys, budgets.
# Sourced by tests/integration.sh.

# $2's value of the Python expression $1 over the JSON in file $2 (d).
dj() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($1)" "$2"; }

# The row of diff table ANALYSIS.TABLE ($2) whose KEY column ($3) is $4, in JSON $1.
DIFF_ROW='(lambda t, k, v: next((r for r in t if r[k] == v), None))'

# --------------------------------------------------------------------- parsing

# Folded: "stack BASE NEW" lines summing to each side's leak stacks total
# (two recordings of other kernels, each reported with its own symbols).
test_diff_folded_sums() {
	local a=$WORK/df-a.json b=$WORK/df-b.json sums
	"$KMTRACE" report -i "$TRACES/stacks.dat" --kallsyms "$TRACES/stacks.kallsyms" \
		--format json leak >"$a" 2>/dev/null &&
	"$KMTRACE" report -i "$TRACES/perf-zg.data" --kallsyms "$TRACES/perf-zg.kallsyms" \
		--format json leak >"$b" 2>/dev/null &&
	"$KMTRACE" diff --format folded "$a" "$b" >"$WORK/df.folded" 2>"$WORK/df.err" ||
		{ cat "$WORK/df.err"; return 1; }
	sums=$(awk '{ b += $(NF - 1); n += $NF } END { print b, n, NR }' "$WORK/df.folded")
	want="$(dj "sum(r['bytes'] for r in d['analyses']['leak']['tables']['stacks'])" "$a") $(dj "sum(r['bytes'] for r in d['analyses']['leak']['tables']['stacks'])" "$b")"
	[ "${sums% *}" = "$want" ] && [ "${sums##* }" -gt 10 ] ||
		{ echo "  folded sums (base new lines) $sums, the reports' $want"; return 1; }
	grep -q '^[^ ;]*;.* [0-9][0-9]* [0-9][0-9]*$' "$WORK/df.folded" || return 1
	echo "  ${sums##* } stacks; bytes $want on each side, as the reports'"
}

# $WORK/dj-base.json: the JSON report of stacks.dat (diff's default analyses).
diff_base_json() {
	[ -s "$WORK/dj-base.json" ] ||
		"$KMTRACE" report -i "$TRACES/stacks.dat" --kallsyms "$TRACES/stacks.kallsyms" \
			--format json slab --caller --cache page leak stat >"$WORK/dj-base.json" 2>/dev/null
}

# The same diff from a recording as from the JSON report written from it.
test_diff_json_base() {
	local j=$WORK/dj-base.json
	diff_base_json || return 1
	"$KMTRACE" diff --format json --kallsyms "$TRACES/stacks.kallsyms" --per 1,2 \
		"$TRACES/stacks.dat" "$TRACES/stacks.dat" >"$WORK/dj1.json" 2>/dev/null &&
	"$KMTRACE" diff --format json --kallsyms "$TRACES/stacks.kallsyms" --per 1,2 \
		"$j" "$TRACES/stacks.dat" >"$WORK/dj2.json" 2>/dev/null || return 1
	python3 - "$WORK/dj1.json" "$WORK/dj2.json" "$TOP/docs" <<'EOF' || return 1
import json, sys
import jsonschema
report, diff = (json.load(open(f'{sys.argv[3]}/kmtrace-{n}.schema.json')) for n in ('report', 'diff'))
assert diff['allOf'][0] == {'$ref': 'kmtrace-report.schema.json'}
for f in sys.argv[1:3]:     # both parts: a report, and what a diff adds
    jsonschema.validate(json.load(open(f)), report)
    jsonschema.validate(json.load(open(f)), diff['allOf'][1])
a, b = (json.load(open(f))['analyses'] for f in sys.argv[1:3])
rows = sum(len(t) for s in a.values() for t in s['tables'].values())
assert a == b and rows > 50, (rows, a == b)
c = a['slab']['tables']['callers'][0]
assert c['live_bytes_delta'] == -(c['live_bytes_base'] // 2), c
print(f'  {rows} rows alike; the top call site {c["callsite"]}: {c["live_bytes_base"]} -> '
      f'{c["live_bytes_new"]} live bytes at half the iterations')
EOF
}

# Bad input and bad budgets: one line, exit 2, nothing on standard output.
test_diff_bad_input() {
	local rc
	diff_base_json || return 1
	head -c 300 "$WORK/dj-base.json" >"$WORK/cut.json"
	"$KMTRACE" diff "$WORK/cut.json" "$TRACES/small.dat" >"$WORK/db.out" 2>"$WORK/db.err"; rc=$?
	[ $rc = 2 ] && [ ! -s "$WORK/db.out" ] && [ "$(wc -l <"$WORK/db.err")" = 1 ] &&
		grep -q "cut.json: offset 300: bad JSON" "$WORK/db.err" ||
		{ echo "  truncated: rc $rc: $(cat "$WORK/db.err")"; return 1; }
	echo '{"a": 1}' >"$WORK/other.json"
	"$KMTRACE" diff "$WORK/other.json" "$WORK/other.json" >"$WORK/db.out" 2>"$WORK/db.err"; rc=$?
	[ $rc = 2 ] && [ ! -s "$WORK/db.out" ] && grep -q "other.json.*not a report" "$WORK/db.err" ||
		{ echo "  not a report: rc $rc: $(cat "$WORK/db.err")"; return 1; }
	for e in 'slab.live_bytes' 'slab.live_bytes>10%' 'slab.live_bytes>+4XB'; do
		"$KMTRACE" diff --fail-on "$e" "$WORK/dj-base.json" "$WORK/dj-base.json" \
			>"$WORK/db.out" 2>"$WORK/db.err"; rc=$?
		[ $rc = 2 ] && [ ! -s "$WORK/db.out" ] && [ "$(wc -l <"$WORK/db.err")" = 1 ] ||
			{ echo "  --fail-on $e: rc $rc: $(cat "$WORK/db.err")"; return 1; }
	done
	"$KMTRACE" diff --fail-on 'slab.nothing>0' "$WORK/dj-base.json" "$WORK/dj-base.json" \
		>"$WORK/db.out" 2>"$WORK/db.err"; rc=$?
	[ $rc = 2 ] && [ ! -s "$WORK/db.out" ] && grep -q "no figure nothing; it has: .*live_bytes" \
		"$WORK/db.err" || { echo "  unknown figure: rc $rc: $(cat "$WORK/db.err")"; return 1; }
}

# A report whose units are not strings (null): those columns are counts,
# compared as such; no crash (kmtrace diff took NULL for a name before).
test_diff_null_units() {
	local rc j=$TOP/tests/fuzz/regressions/diff/null-unit.json
	"$KMTRACE" diff --fail-on 'oom.kills>+0' "$j" "$j" >"$WORK/dn.out" 2>"$WORK/dn.err"; rc=$?
	[ $rc = 0 ] && grep -Eq '^ +kills +count +1 +1 +0 ' "$WORK/dn.out" &&
		grep -Eq '^ +1 +both +5 +5 +0 ' "$WORK/dn.out" ||
		{ echo "  rc $rc: $(cat "$WORK/dn.err") $(cat "$WORK/dn.out")"; return 1; }
}

# Budgets on a known change (stacks.dat against itself at half): 1 when
# broken with a line naming figure and values, 0 when they hold.
test_diff_budgets() {
	local rc j=$WORK/dj-base.json
	diff_base_json || return 1
	"$KMTRACE" diff --per 1,2 --fail-on 'slab.live_bytes<-40%' --fail-on 'leak.slab_objects>0' \
		--fail-on 'slab.live_bytes>+1%' "$j" "$j" >/dev/null 2>"$WORK/bud.err"; rc=$?
	[ $rc = 1 ] && [ "$(grep -c 'budget broken' "$WORK/bud.err")" = 2 ] &&
		grep -q "budget broken: slab.live_bytes<-40%: \([0-9]*\) -> [0-9]* (-[0-9]*, -50.0%)" \
			"$WORK/bud.err" || { echo "  rc $rc: $(cat "$WORK/bud.err")"; return 1; }
	"$KMTRACE" diff --fail-on 'slab.live_bytes>+0%' --fail-on 'slab.callers[alloc_pipe_info].hits<0' \
		"$j" "$j" >/dev/null 2>"$WORK/bud.err"; rc=$?
	[ $rc = 0 ] || { echo "  unchanged: rc $rc: $(cat "$WORK/bud.err")"; return 1; }
	# stat named among the analyses (diff adds it otherwise): still one stat
	"$KMTRACE" diff --fail-on 'stat.total_events>+0' "$TRACES/small.dat" "$TRACES/small.dat" \
		stat slab >/dev/null 2>"$WORK/bud.err"; rc=$?
	[ $rc = 0 ] || { echo "  stat given: rc $rc: $(cat "$WORK/bud.err")"; return 1; }
}

diff_parsing_tests() {
	check "diff --format folded: 'stack BASE NEW', sums equal each side's stack totals" \
		test_diff_folded_sums
	check "diff: a JSON report as BASE gives the same diff as its recording; both valid against docs/kmtrace-diff.schema.json" \
		test_diff_json_base
	check "diff: bad JSON, not a report, bad budgets, unknown figures: one line, exit 2" \
		test_diff_bad_input
	check "diff --fail-on: broken budgets exit 1, a line each; held ones 0" test_diff_budgets
	check "diff: units that are not strings count as counts, no crash" test_diff_null_units
	check "kmtrace-diff(1) examples run" test_man_examples kmtrace-diff.1
}

# ------------------------------------------------------------------------ live

build_diff_holdfds() {
	[ -x "$WORK/holdfds" ] || cc -O2 -o "$WORK/holdfds" "$TOP/tests/progs/holdfds.c"
}

# The workload recorded twice, NEW also holding 1,000 pipes open at the end
# (the recording stops with -d while they are held).
test_diff_pipes() {
	local b=$WORK/pipes-base.dat n=$WORK/pipes-new.dat rc tb tn
	build_diff_holdfds || return 1
	sh "$TOP/scripts/workload.sh" 5 400 >/dev/null 2>&1
	"$KMTRACE" record -d 3 -o "$b" -- sh -c "sh '$TOP/scripts/workload.sh' 5 400; '$WORK/holdfds' pipe 1 1 0 30000" \
		>/dev/null 2>&1
	"$KMTRACE" record -d 3 -o "$n" -- sh -c "sh '$TOP/scripts/workload.sh' 5 400; '$WORK/holdfds' pipe 1000 1 0 30000" \
		>/dev/null 2>&1
	"$KMTRACE" diff --format json "$b" "$n" >"$WORK/pipes.json" 2>"$WORK/pipes.err" ||
		{ cat "$WORK/pipes.err"; return 1; }
	python3 - "$WORK/pipes.json" <<'EOF' || return 1
import json, sys
s = json.load(open(sys.argv[1]))['analyses']['slab']['tables']
top, cache = s['callers'][0], s['caches'][0]
print(f"  top call site {top['callsite']}: {top['live_objects_base']} -> {top['live_objects_new']} "
      f"live objects; top cache {cache['cache']}: {cache['live_objects_delta']:+d} objects, "
      f"{cache['live_bytes_delta']:+d} bytes")
assert top['callsite'] == 'alloc_pipe_info' and top['live_objects_delta'] >= 1000, top
assert cache['live_objects_delta'] >= 1000, cache
EOF
	# hits recounted from trace-cmd report's lines of each recording
	tb=$(trace-cmd report -i "$b" 2>/dev/null | grep -c 'call_site=alloc_pipe_info+')
	tn=$(trace-cmd report -i "$n" 2>/dev/null | grep -c 'call_site=alloc_pipe_info+')
	[ "$(dj "$DIFF_ROW(d['analyses']['slab']['tables']['callers'], 'callsite', 'alloc_pipe_info')['hits_delta']" "$WORK/pipes.json")" = $((tn - tb)) ] ||
		{ echo "  trace-cmd report: $tb -> $tn allocations in alloc_pipe_info"; return 1; }
	"$KMTRACE" diff --fail-on 'slab.live_bytes>+10%' "$b" "$n" >"$WORK/pipes.txt" 2>"$WORK/pipes.err"
	rc=$?
	[ $rc = 1 ] && grep -q '^kmtrace diff: budget broken: slab.live_bytes>+10%: ' "$WORK/pipes.err" ||
		{ echo "  --fail-on: rc $rc: $(cat "$WORK/pipes.err")"; return 1; }
	sed -n '/^callers/{n;n;p;q}' "$WORK/pipes.txt" | grep -q '^  alloc_pipe_info  *both ' ||
		{ sed -n '/^callers/,+3p' "$WORK/pipes.txt"; return 1; }
	echo "  alloc_pipe_info allocations per trace-cmd report: $tb -> $tn; $(grep 'budget broken' "$WORK/pipes.err")"
}

# The same workload twice (after one run to warm the caches): totals within
# 5%, +10% budgets on them and a floored one on live bytes hold. Big enough
# (about 27,000 slab allocations) that a one-off in one run stays under 5%:
# with 5 spawns and 400 files (10,200) a CI run once had 716 more in one.
test_diff_same() {
	local a=$WORK/same1.dat b=$WORK/same2.dat rc
	sh "$TOP/scripts/workload.sh" 20 2000 >/dev/null 2>&1
	for f in "$a" "$b"; do
		"$KMTRACE" record -o "$f" -- sh "$TOP/scripts/workload.sh" 20 2000 >/dev/null 2>&1 ||
			return 1
	done
	"$KMTRACE" diff --format json "$a" "$b" >"$WORK/same.json" 2>/dev/null || return 1
	python3 - "$WORK/same.json" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))['analyses']
row = {r['figure']: r for r in d['slab']['tables']['summary']}
for f in ('allocations', 'bytes_allocated'):
    r = row[f]
    print(f"  slab {f}: {r['base']} -> {r['new']} ({r['delta_pct']:+.2f}%)")
    assert abs(r['delta_pct']) <= 5, r
EOF
	"$KMTRACE" diff --fail-on 'slab.allocations>+10%' --fail-on 'slab.bytes_allocated>+10%' \
		--fail-on 'slab.bytes_requested>+10%' --fail-on 'slab.live_bytes>+10%,+512KiB' \
		"$a" "$b" >/dev/null 2>"$WORK/same.err"; rc=$?
	[ $rc = 0 ] || { echo "  rc $rc: $(cat "$WORK/same.err")"; return 1; }
}

# perf.data and trace.dat of one workload; a shipped recording of another
# kernel build (perf-small.data, as JSON with its symbols) and this machine's
# of its command: call sites join by name, over 90% of the bytes.
test_diff_across() {
	local p=$WORK/across.data k=$WORK/across.dat s j=$WORK/fixture.json
	local events="-e kmem:kmalloc -e kmem:kfree -e kmem:kmem_cache_alloc -e kmem:kmem_cache_free -e kmem:mm_page_alloc -e kmem:mm_page_free"
	sh "$TOP/scripts/workload.sh" 5 2000 >/dev/null 2>&1
	# shellcheck disable=SC2086
	perf record -q -o "$p" $events -- sh "$TOP/scripts/workload.sh" 5 2000 >/dev/null 2>&1 &&
	"$KMTRACE" record -o "$k" -- sh "$TOP/scripts/workload.sh" 5 2000 >/dev/null 2>&1 || return 1
	"$KMTRACE" diff --format json "$p" "$k" >"$WORK/across.json" 2>/dev/null || return 1
	s=$(dj "d['diff']['summary']['slab_joined_percent']" "$WORK/across.json")
	echo "  perf.data -> trace.dat: $s% of slab bytes under call sites both have"
	python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 90)" "$s" || return 1
	"$KMTRACE" report -i "$TRACES/perf-small.data" --kallsyms "$TRACES/perf-small.kallsyms" \
		--format json slab --caller --cache page leak stat >"$j" 2>/dev/null || return 1
	# shellcheck disable=SC2086
	perf record -q -o "$WORK/small-here.data" $events -- \
		sh -c 'cat /etc/passwd /etc/os-release >/dev/null; ls /usr/bin >/dev/null' >/dev/null 2>&1 &&
	"$KMTRACE" diff --format json "$j" "$WORK/small-here.data" >"$WORK/across2.json" 2>/dev/null ||
		return 1
	s=$(dj "d['diff']['summary']['slab_joined_percent']" "$WORK/across2.json")
	echo "  $(dj "d['kmtrace']['input']" "$WORK/across2.json"): $s% joined"
	python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 90)" "$s"
}

diff_live_tests() {
	live "diff: 1,000 pipes more: alloc_pipe_info +1,000 live objects on top, its cache too; a +10% budget broken" \
		test_diff_pipes
	live "diff: the same workload twice: totals within 5%, +10% budgets hold" test_diff_same
	live "diff: perf.data vs trace.dat, another kernel build's recording vs this one's: over 90% joined" \
		test_diff_across
}
