# Frees the kernel does not trace: slab's check against /proc/slabinfo and
# leak's suspects without those caches. Sourced by tests/integration.sh.

# $1's value of the Python expression $2 over the JSON in $WORK/ut.json.
ut_get() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($1)" "$WORK/ut.json"; }

# Active objects of cache $1 in /proc/slabinfo now.
slabinfo_active() { awk -v c="$1" '$1 == c { print $2 }' /proc/slabinfo; }

# A system-wide recording while mapper churns maple-tree nodes (2,000 regions
# mapped and unmapped five times) and holdfds keeps 1,000 pipes open past the
# recording's end: into $WORK/untraced.dat, with this test's own slabinfo
# readings of maple_node around it in $WORK/maple.before and .after.
record_untraced() {
	local f=$WORK/untraced.dat
	[ -s "$f" ] && return 0
	cc -O2 -o "$WORK/mapper" "$TOP/tests/progs/mapper.c" &&
	cc -O2 -o "$WORK/holdfds" "$TOP/tests/progs/holdfds.c" || return 1
	slabinfo_active maple_node >"$WORK/maple.before"
	(sleep 0.5; "$WORK/holdfds" pipe 1000 1 0 6000 >/dev/null 2>&1 &
	 "$WORK/mapper" 2000 5 >/dev/null 2>&1) &
	"$KMTRACE" record -d 3 -o "$f" 2>"$WORK/untraced.err" || { cat "$WORK/untraced.err"; return 1; }
	slabinfo_active maple_node >"$WORK/maple.after"
	wait
}

# maple_node's allocations less its frees from trace-cmd report's lines,
# paired by pointer as the kernel's objects are: a kfree (no cache name) of
# a live maple_node object counts, and so does a kmem_cache_free naming it
# of an object allocated before the recording.
MAPLE_RECOUNT='
{
	ptr = ""; name = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^ptr=/) ptr = substr($i, 5)
		if ($i ~ /^name=/) name = substr($i, 6)
	}
	if (ptr == "") next
	if ($0 ~ / kmem_cache_alloc(_node)?: / || $0 ~ / kmalloc(_node)?: /) {
		if (name == "maple_node") { n++; live[ptr] = 1 } else delete live[ptr]
	} else if ($0 ~ / kmem_cache_free: / || $0 ~ / kfree: /) {
		if (ptr in live) { n--; delete live[ptr] } else if (name == "maple_node") n--
	}
}
END { print n + 0 }'

# slab: the check ran, maple_node is flagged by both kinds of evidence, its
# TRACED_NET equals trace-cmd report's maple_node allocations less frees,
# and its SLABINFO_NET lies within the test's own slabinfo readings' change
# (taken a little earlier and later) give or take a thousand objects.
test_slabinfo_check() {
	local row tc before after
	record_untraced || return 1
	"$KMTRACE" report -i "$WORK/untraced.dat" slab --format json >"$WORK/ut.json" || return 1
	[ "$(ut_get "d['analyses']['slab']['summary']['slabinfo_check']")" = done ] ||
		{ ut_get "d['analyses']['slab']['summary']['slabinfo_check']"; return 1; }
	[ "$(ut_get "d['analyses']['slab']['summary']['slabinfo_caches']")" -ge 20 ] || return 1
	row=$(ut_get "' '.join(str(r[k]) for r in d['analyses']['slab']['tables']['untraced_frees'] if r['cache'] == 'maple_node' for k in ('traced_net', 'slabinfo_net', 'reused'))")
	set -- $row
	[ $# = 3 ] || { echo "  maple_node not flagged"; return 1; }
	tc=$(trace-cmd report -i "$WORK/untraced.dat" 2>/dev/null | awk "$MAPLE_RECOUNT")
	[ "$1" = "$tc" ] || { echo "  TRACED_NET $1, trace-cmd report recount $tc"; return 1; }
	before=$(cat "$WORK/maple.before") after=$(cat "$WORK/maple.after")
	[ $(( $2 - (after - before) )) -le 1000 ] && [ $(( (after - before) - $2 )) -le 1000 ] ||
		{ echo "  SLABINFO_NET $2, this test's readings $before -> $after"; return 1; }
	[ "$3" -gt 1000 ] && [ "$1" -gt $(( $2 + 1000 )) ] ||
		{ echo "  maple_node: traced $1, slabinfo $2, reused $3"; return 1; }
	echo "  maple_node: traced net $1 (trace-cmd $tc), slabinfo net $2 (test's own $before -> $after), $3 reused pointers"
}

# leak: maple_node is no suspect (said, with its objects), the 1,000 held
# pipes are; with --all maple_node is back.
test_leak_untraced() {
	local pipes maple
	record_untraced || return 1
	"$KMTRACE" report -i "$WORK/untraced.dat" leak --format json >"$WORK/ut.json" || return 1
	ut_get "d['analyses']['leak']['summary']['untraced_cache_names']" | grep -qw maple_node ||
		{ echo "  maple_node not named as left out"; return 1; }
	[ "$(ut_get "d['analyses']['leak']['summary']['untraced_objects']")" -gt 1000 ] || return 1
	maple=$(ut_get "sum(r['objects'] for r in d['analyses']['leak']['tables']['caches'] if r['cache'] == 'maple_node')")
	pipes=$(ut_get "sum(r['objects'] for r in d['analyses']['leak']['tables']['callsites'] if r['callsite'].startswith('alloc_pipe_info+'))")
	[ "$maple" = 0 ] && [ "$pipes" -ge 1000 ] ||
		{ echo "  maple_node objects $maple, alloc_pipe_info $pipes"; return 1; }
	"$KMTRACE" report -i "$WORK/untraced.dat" leak --all --format json >"$WORK/ut.json" || return 1
	maple=$(ut_get "sum(r['objects'] for r in d['analyses']['leak']['tables']['caches'] if r['cache'] == 'maple_node')")
	[ "$maple" -gt 1000 ] || { echo "  --all: maple_node objects $maple"; return 1; }
	echo "  leak: 1,000 held pipes -> alloc_pipe_info $pipes outstanding; maple_node left out ($maple with --all)"
}

untraced_live_tests() {
	live "slab: system-wide with maple-tree churn: /proc/slabinfo check done, maple_node flagged, its traced net equal to trace-cmd report's, its slabinfo net near the test's own readings" \
		test_slabinfo_check
	live "leak: maple_node left out of the suspects and said, 1,000 held pipes still shown; --all keeps maple_node" \
		test_leak_untraced
}
