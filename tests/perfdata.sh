# Integration tests of perf.data input, sourced by tests/integration.sh (uses
# its KMTRACE, TOP, TRACES, WORK, check, json_get, expect_bad_input).

PERF_SMALL=$TRACES/perf-small.data

# Events per type equal what `perf script` prints of the same file.
test_perf_counts() {
	local k p
	k=$("$KMTRACE" report -i "$PERF_SMALL" --format csv stat |
		awk -F, '$1 == "stat.events" && $2 ~ /^kmem:/ { print $2, $3 }' | sort)
	p=$(perf script -i "$PERF_SMALL" 2>/dev/null |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^kmem:.*:$/) print substr($i, 1, length($i) - 1) }' |
		sort | uniq -c | awk '{ print $2, $1 }')
	[ -n "$k" ] && [ "$k" = "$p" ] || { echo "  kmtrace: $k"; echo "  perf script: $p"; return 1; }
	echo "  equal: $(echo "$k" | tr '\n' ' ')"
}

# slab's byte figures equal `perf kmem --slab stat` on the same perf.data.
test_perf_kmem_slab() {
	local want got
	want=$(perf kmem -i "$PERF_SMALL" --slab stat 2>/dev/null |
		awk -F: '/^Total bytes requested/ { r = $2 } /^Total bytes allocated/ { a = $2 }
			 /^Total bytes freed/ { f = $2 } /^Net total bytes/ { n = $2 }
			 /^Total bytes wasted/ { w = $2 }
			 END { print r + 0, a + 0, f + 0, n + 0, w + 0 }')
	"$KMTRACE" report -i "$PERF_SMALL" slab --format json >"$WORK/ps.json" || return 1
	got=$(json_get "$WORK/ps.json" "' '.join(str(d['analyses']['slab']['summary'][k]) for k in ('bytes_requested', 'bytes_allocated', 'bytes_freed', 'net_bytes', 'bytes_wasted'))")
	[ "$want" = "$got" ] || { echo "  perf kmem: $want"; echo "  kmtrace:   $got"; return 1; }
	echo "  equal: requested, allocated, freed, net, wasted = $got"
}

# page's six request lines equal `perf kmem --page stat`'s.
test_perf_kmem_page() {
	local want got
	want=$(perf kmem -i "$PERF_SMALL" --page stat 2>/dev/null |
		awk -F'[:[]' '/^Total .*requests|^Total allocation failures/ { gsub(/ /, "", $2); gsub(/[^0-9]/, "", $3); printf "%s %s ", $2, $3 }')
	"$KMTRACE" report -i "$PERF_SMALL" page --format json >"$WORK/pp.json" || return 1
	got=$(json_get "$WORK/pp.json" "' '.join(str(d['analyses']['page']['summary'][k]) for k in ('alloc_requests', 'alloc_kib', 'free_requests', 'free_kib', 'alloc_freed_requests', 'alloc_freed_kib', 'alloc_only_requests', 'alloc_only_kib', 'free_only_requests', 'free_only_kib', 'alloc_failures', 'alloc_failures_kib'))")
	[ "${want% }" = "$got" ] || { echo "  perf kmem: $want"; echo "  kmtrace:   $got"; return 1; }
	echo "  equal: $got"
}

test_perf_truncated() {
	head -c 300000 "$PERF_SMALL" >"$WORK/pt.data"
	expect_bad_input "$WORK/pt.data" "offset [0-9]*: "
}

test_perf_pipe_mode() {
	printf 'PERFILE2\020\0\0\0\0\0\0\0' >"$WORK/pipe.data"
	head -c 200 /dev/zero >>"$WORK/pipe.data"
	expect_bad_input "$WORK/pipe.data" "pipe mode"
}

perfdata_parsing_tests() {
	check "perf.data: events per type equal perf script's" test_perf_counts
	check "perf.data: slab bytes equal perf kmem --slab stat" test_perf_kmem_slab
	check "perf.data: page requests and KiB equal perf kmem --page stat" test_perf_kmem_page
	check "perf.data: a truncated file is one line with an offset, exit 2" test_perf_truncated
	check "perf.data: pipe mode is refused with one line, exit 2" test_perf_pipe_mode
}
