# Recordings of a 32-bit kernel and of a big-endian one (traces/armhf-6.1.dat,
# traces/s390x-6.1.dat, made by make check-targets in its guests), read on
# any machine: sourced by tests/integration.sh (uses its KMTRACE, TOP,
# TRACES, WORK, check, json_get, kmt_counts, tc_counts). Each check compares
# with trace-cmd report, which reads these files on its own, so a field
# read in the wrong byte order or with the wrong long size fails it.

# "NAME ARCHITECTURE BYTE-ORDER LONG-SIZE" per fixture
CROSS_FIXTURES="armhf-6.1 armv7l little 4
s390x-6.1 s390x big 8"

# cross_syms NAME: the --kallsyms option of fixture NAME
cross_syms() { echo "--kallsyms $TRACES/$1.kallsyms"; }

# stat says the file's machine, byte order and long size; its events per type
# are trace-cmd report's.
test_cross_stat() {
	local name arch order size
	while read -r name arch order size; do
		"$KMTRACE" report -i "$TRACES/$name.dat" --format json stat >"$WORK/x.json" || return 1
		[ "$(json_get "$WORK/x.json" "' '.join(str(d['analyses']['stat']['summary'][k]) for k in ('architecture', 'byte_order', 'long_size'))")" = "$arch $order $size" ] ||
			{ echo "  $name: not $arch $order $size"; return 1; }
		[ -n "$(kmt_counts "$TRACES/$name.dat")" ] &&
		[ "$(kmt_counts "$TRACES/$name.dat")" = "$(tc_counts "$TRACES/$name.dat")" ] ||
			{ echo "  $name: events per type differ from trace-cmd report's"; return 1; }
	done <<<"$CROSS_FIXTURES"
}

# slab and page equal an independent recount from trace-cmd report's text,
# every figure and call site (named through the fixture's kallsyms excerpt).
test_cross_recount() {
	local name rest
	while read -r name rest; do
		# shellcheck disable=SC2046
		"$KMTRACE" report -i "$TRACES/$name.dat" $(cross_syms "$name") slab --caller page \
			--format json >"$WORK/x.json" 2>"$WORK/x.err" || return 1
		trace-cmd report -t -i "$TRACES/$name.dat" >"$WORK/x.txt" 2>/dev/null &&
		python3 "$TOP/tests/slab_recount.py" --map "$TRACES/$name.kallsyms" <"$WORK/x.txt" \
			>"$WORK/x-slab.json" &&
		python3 "$TOP/tests/page_recount.py" \
			"$(json_get "$WORK/x.json" "d['analyses']['page']['summary']['page_size']")" \
			<"$WORK/x.txt" >"$WORK/x-page.json" || return 1
		python3 "$TOP/tests/slab_compare.py" "$WORK/x.json" "$WORK/x-slab.json" &&
		python3 "$TOP/tests/page_compare.py" "$WORK/x.json" "$WORK/x-page.json" ||
			{ echo "  $name"; return 1; }
		! grep -q 'not resolved' "$WORK/x.err" || { cat "$WORK/x.err"; return 1; }
	done <<<"$CROSS_FIXTURES"
}

# vm counts the rss_stat and brk events trace-cmd report shows; fault says in
# one line that these kernels have no exceptions events; oom finds no kill;
# --print's call sites, pointers, sizes and GFP flags are trace-cmd report's.
test_cross_analyses() {
	local name rest tc
	while read -r name rest; do
		tc=$(tc_counts "$TRACES/$name.dat")
		# shellcheck disable=SC2046
		"$KMTRACE" report -i "$TRACES/$name.dat" $(cross_syms "$name") vm oom --format json \
			>"$WORK/x.json" || return 1
		[ "$(json_get "$WORK/x.json" "d['analyses']['vm']['summary']['rss_stat_events']")" = \
		  "$(echo "$tc" | awk '$1 == "rss_stat" { print $2 }')" ] &&
		[ "$(json_get "$WORK/x.json" "d['analyses']['oom']['summary']['kills']")" = 0 ] ||
			{ echo "  $name: vm or oom"; return 1; }
		"$KMTRACE" report -i "$TRACES/$name.dat" fault >/dev/null 2>"$WORK/x.err"
		[ "$(grep -c 'exist on x86 only' "$WORK/x.err")" = 1 ] || { cat "$WORK/x.err"; return 1; }
		# both without symbols: call sites as addresses
		"$KMTRACE" report -i "$TRACES/$name.dat" --print 2>/dev/null |
			grep -o ' \(kmalloc\|kmem_cache_alloc\): .*' |
			sed 's/ waste=[0-9]*//; s/^ \([a-z_]*\): */\1 /' |
			awk '{ print $1, $2, $3, $4, $5, $6 }' >"$WORK/x-print.txt"
		trace-cmd report -i "$TRACES/$name.dat" 2>/dev/null |
			grep -o ' \(kmalloc\|kmem_cache_alloc\): .*' |
			sed 's/ name=[^ ]*//; s/^ \([a-z_]*\): */\1 /' |
			awk '{ print $1, $2, $3, $4, $5, $6 }' >"$WORK/x-tc.txt"
		[ "$(wc -l <"$WORK/x-print.txt")" -gt 100 ] &&
		diff "$WORK/x-tc.txt" "$WORK/x-print.txt" >"$WORK/x.diff" ||
			{ echo "  $name --print:"; head -4 "$WORK/x.diff"; return 1; }
	done <<<"$CROSS_FIXTURES"
}

crossarch_parsing_tests() {
	check "32-bit ARM and big-endian s390x recordings: machine, byte order and long size said; events per type equal trace-cmd report's" \
		test_cross_stat
	check "32-bit ARM and big-endian s390x recordings: slab and page equal a recount of trace-cmd report's text" \
		test_cross_recount
	check "32-bit ARM and big-endian s390x recordings: vm, oom, fault's missing events, --print against trace-cmd report" \
		test_cross_analyses
}
