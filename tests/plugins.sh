# Integration tests of the libtraceevent plugins (build/plugins/plugin_kmt_*.so)
# in trace-cmd and perf, and of `kmtrace report --print`, sourced by
# tests/integration.sh (uses its KMTRACE, TOP, TRACES, WORK, check, live).

PLUGIN_DIR=$TOP/build/plugins
PLUGIN_FIXTURE=$TRACES/plugins.dat	# slab, page, faults, rss_stat and an OOM kill
# The event types each fixture holds, all of which a plugin handles.
PLUGIN_EVENTS="kmalloc kmem_cache_alloc kfree kmem_cache_free mm_page_alloc mm_page_free
	mm_page_free_batched page_fault_user page_fault_kernel rss_stat mark_victim"
# What perf resolves for plugins (TRACING-NOTES); anything else fails to load there.
PERF_SYMBOLS="tep_find_any_field tep_find_field tep_find_function tep_find_function_address
	tep_get_field_raw tep_get_field_val tep_get_long_size tep_is_file_bigendian
	tep_is_local_bigendian tep_plugin_add_options tep_plugin_remove_options
	tep_print_func_field tep_print_num_field tep_read_number tep_read_number_field
	tep_register_comm tep_register_event_handler tep_register_print_function
	tep_unregister_event_handler tep_unregister_print_function trace_seq_printf
	trace_seq_putc trace_seq_puts trace_seq_terminate"

# A HOME without ~/.local/lib/traceevent/plugins, so only what a test names loads.
PLUGIN_HOME=$WORK/plugin-home
mkdir -p "$PLUGIN_HOME"

with_plugins() { HOME=$PLUGIN_HOME TRACEEVENT_PLUGIN_DIR=$PLUGIN_DIR "$@"; }
without_plugins() { env -u TRACEEVENT_PLUGIN_DIR HOME=$PLUGIN_HOME "$@"; }

# The event name and text of each event line, as "NAME TEXT".
event_texts() { sed -nE 's/^.*\[[0-9]+\] +[0-9]+\.[0-9]+: +([a-z_0-9]+:)?([a-z_0-9]+): +/\2 /p'; }

# Done-when 1: decoded with the plugins, stock without them.
test_tracecmd_decodes() {
	local f=$1; shift
	with_plugins trace-cmd report -i "$f" >"$WORK/pl-tc.txt" 2>/dev/null || return 1
	without_plugins trace-cmd report -i "$f" >"$WORK/pl-stock.txt" 2>/dev/null || return 1
	python3 "$TOP/tests/plugin_lines.py" decoded "$WORK/pl-tc.txt" "$@" &&
	python3 "$TOP/tests/plugin_lines.py" stock "$WORK/pl-stock.txt" >/dev/null &&
	grep -qE 'migratetype=[0-9]|ret=[0-9]' "$WORK/pl-stock.txt"
}

test_plugin_symbols() {
	local so sym n=0
	for so in "$PLUGIN_DIR"/plugin_kmt_*.so; do
		n=$((n + 1))
		for sym in $(nm -D --undefined-only "$so" | awk '$1 == "U" && $2 !~ /@/ { print $2 }'); do
			case " $(echo $PERF_SYMBOLS) " in
			*" $sym "*) ;;
			*) echo "  $so needs $sym, which perf does not give plugins"; return 1 ;;
			esac
		done
		nm -D --defined-only "$so" | grep -q ' T tep_plugin_loader$' || return 1
	done
	[ $n = 6 ]
}

# Done-when 3: a format without a field a handler wants prints the stock line.
test_doctored_format() {
	python3 - "$PLUGIN_FIXTURE" "$WORK/doctored.dat" <<'PY' || return 1
import sys
data = open(sys.argv[1], 'rb').read()
assert data.count(b'bytes_alloc') >= 4	# kmalloc and kmem_cache_alloc formats
open(sys.argv[2], 'wb').write(data.replace(b'bytes_alloc', b'bytes_allox'))
PY
	with_plugins trace-cmd report -i "$WORK/doctored.dat" 2>/dev/null | event_texts >"$WORK/doc-tc.txt"
	without_plugins trace-cmd report -i "$WORK/doctored.dat" 2>/dev/null | event_texts >"$WORK/doc-stock.txt"
	"$KMTRACE" report -i "$WORK/doctored.dat" --print | event_texts >"$WORK/doc-kmt.txt" || return 1
	# the two alloc events print stock, all other events still decoded
	[ "$(grep -E '^(kmalloc|kmem_cache_alloc) ' "$WORK/doc-tc.txt")" = \
	  "$(grep -E '^(kmalloc|kmem_cache_alloc) ' "$WORK/doc-stock.txt")" ] &&
	[ "$(grep -cE '^(kmalloc|kmem_cache_alloc) .*bytes_allox=' "$WORK/doc-tc.txt")" -gt 0 ] &&
	! grep -qE '^(kmalloc|kmem_cache_alloc) .*waste=' "$WORK/doc-tc.txt" &&
	grep -qE '^kmem_cache_free .* cache=' "$WORK/doc-tc.txt" &&
	cmp -s "$WORK/doc-tc.txt" "$WORK/doc-kmt.txt"
}

# Done-when 4: kmtrace report --print prints what trace-cmd prints with the plugins.
same_as_tracecmd() {
	local f=$1; shift
	with_plugins trace-cmd report "$@" -i "$f" 2>/dev/null | event_texts >"$WORK/same-tc.txt"
	"$KMTRACE" report -i "$f" --print "$@" | event_texts >"$WORK/same-kmt.txt" || return 1
	[ -s "$WORK/same-kmt.txt" ] || return 1
	echo "  $(wc -l <"$WORK/same-kmt.txt") events of $(basename "$f")${*:+ with $*}"
	cmp "$WORK/same-tc.txt" "$WORK/same-kmt.txt" || { diff "$WORK/same-tc.txt" "$WORK/same-kmt.txt" | head -4; return 1; }
}

test_print_same() {
	same_as_tracecmd "$PLUGIN_FIXTURE" && same_as_tracecmd "$TRACES/small.dat" &&
	same_as_tracecmd "$TRACES/fault.dat" && same_as_tracecmd "$TRACES/small-v7.dat" &&
	same_as_tracecmd "$PLUGIN_FIXTURE" -O kmt:raw=1 &&
	grep -q '^mm_page_alloc .*migratetype=[0-9] gfp_flags=0x' "$WORK/same-kmt.txt"
}

# The usual filters select lines of the full print.
test_print_filters() {
	local full=$WORK/print-full.txt pid t0 t1
	"$KMTRACE" report -i "$PLUGIN_FIXTURE" --print >"$full" || return 1
	pid=$(sed -nE 's/^ *faultprog-([0-9]+) .*/\1/p' "$full" | head -1)
	[ -n "$pid" ] || return 1
	"$KMTRACE" report -i "$PLUGIN_FIXTURE" --print --pid-filter "$pid" >"$WORK/pf.txt" &&
	[ -s "$WORK/pf.txt" ] && [ "$(grep -E "^ *[^ ]+-$pid +\[" "$full")" = "$(cat "$WORK/pf.txt")" ] || return 1
	"$KMTRACE" report -i "$PLUGIN_FIXTURE" --print --comm faultprog >"$WORK/pc.txt" &&
	[ "$(cat "$WORK/pc.txt")" = "$(grep -E '^ *faultprog-[0-9]+ ' "$full")" ] || return 1
	t0=$(awk 'NR == 100 { sub(":", "", $3); print $3 }' "$full")
	t1=$(awk 'NR == 200 { sub(":", "", $3); print $3 }' "$full")
	# inclusive in ns; lines print rounded µs, so those at START's or END's µs may fall either side
	"$KMTRACE" report -i "$PLUGIN_FIXTURE" --print --time "$t0,$t1" >"$WORK/pt.txt" &&
	[ "$(in_window "$t0" "$t1" <"$WORK/pt.txt")" = "$(in_window "$t0" "$t1" <"$full")" ] &&
	[ "$(in_window "$t0" "$t1" <"$WORK/pt.txt" | wc -l)" -ge 50 ] &&
	[ "$(wc -l <"$WORK/pt.txt")" = "$(awk -v a="$t0" -v b="$t1" '{ t = $3; sub(":", "", t) } t + 0 >= a - 0.000001 && t + 0 <= b + 0' "$WORK/pt.txt" | wc -l)" ]
}

# Lines of standard input whose time is in ($1, $2).
in_window() { awk -v a="$1" -v b="$2" '{ t = $3; sub(":", "", t) } t + 0 > a + 0 && t + 0 < b + 0'; }

test_print_bad_usage() {
	local args
	for args in "--print slab" "slab --print" "--print --format json" "--print -O kmt:nosuch" \
		    "--print --time 2,1"; do
		"$KMTRACE" report -i "$PLUGIN_FIXTURE" $args >"$WORK/pb.out" 2>"$WORK/pb.err"
		[ $? = 2 ] && [ ! -s "$WORK/pb.out" ] && [ "$(wc -l <"$WORK/pb.err")" = 1 ] ||
			{ echo "  '$args':"; cat "$WORK/pb.err"; return 1; }
	done
}

# Debian's perf 6.1 loads plugins from TRACEEVENT_PLUGIN_DIR: perf script decodes.
test_perf_script() {
	command -v perf >/dev/null || { echo "  no perf"; return 1; }
	# symbols from the excerpt of kallsyms shipped beside the fixture
	with_plugins perf script --kallsyms "$TRACES/perf-small.kallsyms" -i "$TRACES/perf-small.data" \
		>"$WORK/ps.txt" 2>/dev/null &&
	without_plugins perf script --kallsyms "$TRACES/perf-small.kallsyms" -i "$TRACES/perf-small.data" \
		>"$WORK/ps-stock.txt" 2>/dev/null &&
	python3 "$TOP/tests/plugin_lines.py" decoded "$WORK/ps.txt" kmalloc kmem_cache_alloc kfree \
		kmem_cache_free mm_page_alloc mm_page_free &&
	python3 "$TOP/tests/plugin_lines.py" stock "$WORK/ps-stock.txt" >/dev/null &&
	# perf symbolizes through the excerpt: call sites are func+0xOFF
	grep -qE 'kmem:kmalloc: +call_site=[a-z_][a-z_0-9.]*\+0x' "$WORK/ps.txt"
}

# make install / install-user put the plugins where trace-cmd looks.
test_install() {
	local root=$WORK/root home=$WORK/home-install dir
	make -s -C "$TOP" install DESTDIR="$root" PREFIX=/usr >/dev/null || return 1
	dir=$root/usr/$(pkg-config --variable=libdir libtraceevent | sed 's|^/usr/||')/traceevent/plugins
	[ "$(ls "$dir" | grep -c '^plugin_kmt_.*\.so$')" = 6 ] || return 1
	HOME=$home make -s -C "$TOP" install-user >/dev/null &&
	[ "$(ls "$home/.local/lib/traceevent/plugins" | grep -c '^plugin_kmt_')" = 6 ] &&
	env -u TRACEEVENT_PLUGIN_DIR HOME=$home trace-cmd report -i "$PLUGIN_FIXTURE" 2>/dev/null |
		grep -q 'mark_victim: .*total_vm=[0-9.]* [KMG]iB'
}

# The handlers no recording here exercises: pcpu drains, zone-locked refills and the
# fault return probe, in a trace.dat that build/synth-dat writes.
test_synthetic() {
	local f=$WORK/synth.dat
	"$TOP/build/synth-dat" "$f" || return 1
	test_tracecmd_decodes "$f" mm_page_pcpu_drain mm_page_alloc_zone_locked fault_return &&
	event_texts <"$WORK/pl-tc.txt" >"$WORK/synth-texts.txt" &&
	grep -qx 'mm_page_pcpu_drain pfn=0x1001 order=2 (16 KiB) migratetype=type-7' "$WORK/synth-texts.txt" &&
	grep -qx 'mm_page_alloc_zone_locked pfn=0x2000 order=3 (32 KiB) migratetype=Unmovable percpu_refill=1' \
		"$WORK/synth-texts.txt" &&
	grep -qx 'fault_return (handle_mm_fault+0x0 <- do_user_addr_fault+0xa5) ret=0x404 (MAJOR|RETRY)' \
		"$WORK/synth-texts.txt" &&
	grep -q 'fault_return: .*ret=1028$' "$WORK/pl-stock.txt" &&
	same_as_tracecmd "$f"
}

plugins_parsing_tests() {
	check "plugins: 6 plugin_kmt_*.so that need only what perf gives plugins" test_plugin_symbols
	check "plugins: trace-cmd report of traces/plugins.dat decodes every event type with them, stock without" \
		test_tracecmd_decodes "$PLUGIN_FIXTURE" $PLUGIN_EVENTS
	check "plugins: trace-cmd report of traces/small.dat likewise" \
		test_tracecmd_decodes "$TRACES/small.dat" kmalloc kmem_cache_alloc kfree kmem_cache_free \
		mm_page_alloc mm_page_free mm_page_free_batched page_fault_user page_fault_kernel rss_stat
	check "plugins: trace-cmd decodes pcpu drain, zone-locked refill and the fault return probe (synthetic trace.dat), kmtrace --print alike" \
		test_synthetic
	check "plugins: a format without bytes_alloc prints the stock kmalloc/kmem_cache_alloc lines" \
		test_doctored_format
	check "report --print: the same text after the event name as trace-cmd report with the plugins (4 files, and -O kmt:raw=1)" \
		test_print_same
	check "report --print: --pid-filter, --comm and --time select lines of the full print" test_print_filters
	check "report --print: bad combinations and options exit 2 with one line" test_print_bad_usage
	check "plugins: perf script (Debian perf 6.1) decodes perf-small.data with them, stock without" \
		test_perf_script
	check "plugins: make install (PREFIX=/usr) and install-user put them where trace-cmd finds them" \
		test_install
}

# A fresh recording with kallsyms: call sites symbolized in trace-cmd and kmtrace alike.
test_live_symbolized() {
	local f=$WORK/plugins-live.dat
	"$KMTRACE" record -o "$f" -e kmem -e exceptions -- \
		sh -c 'cat /etc/passwd >/dev/null; ls /usr/bin >/dev/null' >/dev/null 2>&1 || return 1
	with_plugins trace-cmd report -i "$f" >"$WORK/live-tc.txt" 2>/dev/null || return 1
	python3 "$TOP/tests/plugin_lines.py" decoded "$WORK/live-tc.txt" kmalloc kfree mm_page_alloc \
		page_fault_user || return 1
	# every slab call site resolved through the recording's kallsyms
	! event_texts <"$WORK/live-tc.txt" | grep -E '^(kmalloc|kfree|kmem_cache_alloc|kmem_cache_free) ' |
		grep -q 'call_site=0x' &&
	same_as_tracecmd "$f"
}

plugins_live_tests() {
	live "plugins: a fresh recording with kallsyms shows func+0xOFF call sites, kmtrace --print alike" \
		test_live_symbolized
}
