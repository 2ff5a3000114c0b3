# Integration tests of perf.data input, sourced by tests/integration.sh (uses
# its KMTRACE, TOP, TRACES, WORK, check, live, json_get, expect_bad_input).

PERF_SMALL=$TRACES/perf-small.data
PERF_ZG=$TRACES/perf-zg.data	# perf record -z -g -a

# json_run FILE PYTHON-STATEMENTS-ON-d: fails when an assert does.
json_run() { python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$2" "$1"; }

# Events per type of kmtrace reading $1 (or stdin with $1 = -, $2 the file) as "name count".
kmt_perf_counts() {
	"$KMTRACE" report -i "$1" --format csv stat |
		awk -F, '$1 == "stat.events" && $2 ~ /^kmem:/ { print $2, $3 }' | sort
}

perf_script_counts() {
	perf script -i "$1" 2>/dev/null |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^kmem:.*:$/) print substr($i, 1, length($i) - 1) }' |
		sort | uniq -c | awk '{ print $2, $1 }'
}

# Events per type of $1 equal what `perf script` prints of the same file.
test_perf_counts() {
	local k p
	k=$(kmt_perf_counts "$1")
	p=$(perf_script_counts "$1")
	[ -n "$k" ] && [ "$k" = "$p" ] || { echo "  kmtrace: $k"; echo "  perf script: $p"; return 1; }
	echo "  equal: $(echo "$k" | tr '\n' ' ')"
}

# slab's byte figures of $1 equal `perf kmem --slab stat` on the same perf.data.
test_perf_kmem_slab() {
	local want got
	want=$(perf kmem -i "$1" --slab stat 2>/dev/null |
		awk -F: '/^Total bytes requested/ { r = $2 } /^Total bytes allocated/ { a = $2 }
			 /^Total bytes freed/ { f = $2 } /^Net total bytes/ { n = $2 }
			 /^Total bytes wasted/ { w = $2 }
			 END { print r + 0, a + 0, f + 0, n + 0, w + 0 }')
	"$KMTRACE" report -i "$1" slab --format json >"$WORK/ps.json" || return 1
	got=$(json_get "$WORK/ps.json" "' '.join(str(d['analyses']['slab']['summary'][k]) for k in ('bytes_requested', 'bytes_allocated', 'bytes_freed', 'net_bytes', 'bytes_wasted'))")
	if [ "$want" = "$got" ]; then
		echo "  equal: requested, allocated, freed, net, wasted = $got"
		return 0
	fi
	perf_kmem_freed_bug "$1" "$want" "$got" ||
		{ echo "  perf kmem: $want"; echo "  kmtrace:   $got"; return 1; }
}

# A known perf kmem bug, the only difference allowed: perf kmem never drops
# its per-pointer record on free, so a free of a pointer whose live
# allocation was not traced (but an earlier one at that pointer was) adds
# the earlier size to "Total bytes freed" (and lowers net). Allowed only
# when requested, allocated and wasted are equal, kmtrace's freed bytes
# equal a strict recount of perf script's text and perf kmem's equal the
# same recount under perf kmem's rule (tests/perf_kmem_freed.py).
perf_kmem_freed_bug() {
	local w=($2) g=($3) rc
	rc=($(perf script -i "$1" -F cpu,time,event,trace 2>/dev/null | python3 "$TOP/tests/perf_kmem_freed.py"))
	[ "${w[0]} ${w[1]} ${w[4]}" = "${g[0]} ${g[1]} ${g[4]}" ] && [ "${g[2]}" = "${rc[0]}" ] &&
	[ "${w[2]}" = "${rc[1]}" ] && [ $((w[2] - g[2])) = $((g[3] - w[3])) ] || return 1
	echo "  equal: requested, allocated, wasted = ${g[0]} ${g[1]} ${g[4]}"
	echo "  freed: kmtrace ${g[2]} (strict recount ${rc[0]}), perf kmem ${w[2]} (its rule: ${rc[1]}):"
	echo "  perf kmem's per-pointer record outlives frees (known bug), $((w[2] - g[2])) bytes"
}

# page's six request lines of $1 equal `perf kmem --page stat`'s.
test_perf_kmem_page() {
	local want got
	want=$(perf kmem -i "$1" --page stat 2>/dev/null |
		awk -F'[:[]' '/^Total .*requests|^Total allocation failures/ { gsub(/ /, "", $2); gsub(/[^0-9]/, "", $3); printf "%s %s ", $2, $3 }')
	"$KMTRACE" report -i "$1" page --format json >"$WORK/pp.json" || return 1
	got=$(json_get "$WORK/pp.json" "' '.join(str(d['analyses']['page']['summary'][k]) for k in ('alloc_requests', 'alloc_kib', 'free_requests', 'free_kib', 'alloc_freed_requests', 'alloc_freed_kib', 'alloc_only_requests', 'alloc_only_kib', 'free_only_requests', 'free_only_kib', 'alloc_failures', 'alloc_failures_kib'))")
	[ "${want% }" = "$got" ] || { echo "  perf kmem: $want"; echo "  kmtrace:   $got"; return 1; }
	echo "  equal: $got"
}

# page --caller on a -g recording: rows whose allocations add up to the
# requests with a stack, named functions none of which is inside the page
# allocator. Symbols come from the kallsyms file $2 (a fixture's excerpt,
# never this machine's) or, for a recording made here, /proc/kallsyms.
test_perf_caller() {
	local syms
	"$KMTRACE" report -i "$1" ${2:+--kallsyms "$2"} page --caller --format json >"$WORK/pc.json" || return 1
	syms=$("$KMTRACE" report -i "$1" ${2:+--kallsyms "$2"} --format json stat >"$WORK/pcs.json" &&
		json_get "$WORK/pcs.json" "d['analyses']['stat']['summary'].get('kernel_symbols', '')")
	case $syms in
	"${2:-/proc/kallsyms}"*) ;;
	"perf's copy of this machine's kallsyms, "*)	# a recording made here
		[ -z "$2" ] || { echo "  symbols: $syms"; return 1; } ;;
	*) echo "  symbols: $syms"; return 1 ;;
	esac
	json_run "$WORK/pc.json" "
import re
rows = d['analyses']['page']['tables']['callers']
s = d['analyses']['page']['summary']
assert len(rows) >= 3, rows
assert sum(r['allocs'] for r in rows) + s['allocs_without_caller'] == s['alloc_requests'], s
bad = [r['caller'] for r in rows
       if r['caller'].startswith('0x') or re.match(r'_*(alloc_pages|alloc_frozen_pages|folio_alloc|get_page_from_freelist)', r['caller'])]
assert not bad, bad
print('  %d callers, top: %s' % (len(rows), ', '.join(r['caller'] for r in rows[:3])))"
}

test_perf_truncated() {
	head -c 300000 "$PERF_SMALL" >"$WORK/pt.data"
	expect_bad_input "$WORK/pt.data" "offset [0-9]*: "
}

# Cut and flipped bytes: every run ends 0 or 2, never a crash; exit 2 is one
# line naming the file and an offset, with nothing on stdout.
test_perf_corrupt() {
	local src size at n=0 twos=0 rc f="$WORK/pc.data"
	for src in "$PERF_SMALL" "$PERF_ZG"; do
		size=$(stat -c %s "$src")
		for at in 8 16 24 40 48 72 104 200 1000 $((size / 7)) $((size / 3)) $((size / 2)) \
			  $((size - 4000)) $((size - 600)) $((size - 20)); do
			for how in flip cut; do
				if [ $how = flip ]; then
					cp "$src" "$f"
					printf '\377\377\377\177' | dd of="$f" bs=1 seek=$at conv=notrunc 2>/dev/null
				else
					head -c "$at" "$src" >"$f"
				fi
				"$KMTRACE" report -i "$f" slab page >"$WORK/pc.out" 2>"$WORK/pc.err"
				rc=$?
				n=$((n + 1))
				case $rc in
				0) ;;
				2) twos=$((twos + 1))
				   [ "$(wc -l <"$WORK/pc.err")" -eq 1 ] && [ ! -s "$WORK/pc.out" ] &&
				   grep -q "^kmtrace: $f: offset [0-9]*: " "$WORK/pc.err" ||
					{ echo "  $how at $at of $src: $(cat "$WORK/pc.err")"; return 1; } ;;
				*) echo "  $how at $at of $src: exit $rc: $(tail -3 "$WORK/pc.err")"; return 1 ;;
				esac
			done
		done
	done
	[ $twos -ge 15 ] || { echo "  only $twos of $n damaged files refused"; return 1; }
	echo "  $n damaged files: $twos refused with one line, the rest read"
}

perfdata_parsing_tests() {
	check "perf.data: events per type equal perf script's" test_perf_counts "$PERF_SMALL"
	check "perf.data: slab bytes equal perf kmem --slab stat" test_perf_kmem_slab "$PERF_SMALL"
	check "perf.data: page requests and KiB equal perf kmem --page stat" test_perf_kmem_page "$PERF_SMALL"
	check "perf.data -z -g -a: events per type equal perf script's" test_perf_counts "$PERF_ZG"
	check "perf.data -z -g -a: slab bytes equal perf kmem" test_perf_kmem_slab "$PERF_ZG"
	check "perf.data -z -g -a: page requests equal perf kmem" test_perf_kmem_page "$PERF_ZG"
	check "perf.data -g: page --caller names the calling functions (symbols from the fixture's kallsyms excerpt)" \
		test_perf_caller "$PERF_ZG" "$TRACES/perf-zg.kallsyms"
	check "perf.data: a truncated file is one line with an offset, exit 2" test_perf_truncated
	check "perf.data: cut and flipped bytes end in exit 0 or 2, never a crash" test_perf_corrupt
}

# ---------------------------------------------------------------- live (perf record)
PERF_WORKLOAD="cat /usr/share/common-licenses/GPL-3 /etc/os-release >/dev/null; ls -R /usr/share/doc >/dev/null"

# Done-when 1: perf record -a, then slab and page summaries equal perf kmem's.
test_perf_live_system_wide() {
	perf record -q -a -e 'kmem:*' -o "$WORK/live.data" -- sh -c "$PERF_WORKLOAD" \
		>/dev/null 2>"$WORK/live.err" || { cat "$WORK/live.err"; return 1; }
	test_perf_kmem_slab "$WORK/live.data" && test_perf_kmem_page "$WORK/live.data" &&
		test_perf_counts "$WORK/live.data"
}

# Pipe mode through standard input: the same counts as perf script of the saved stream.
test_perf_live_pipe() {
	local k p
	perf record -q -o - -e 'kmem:kmalloc,kmem:kfree,kmem:mm_page_alloc' -- sh -c "$PERF_WORKLOAD" \
		2>/dev/null | tee "$WORK/pipe.data" | "$KMTRACE" report -i - --format csv stat >"$WORK/pipe.csv" ||
		return 1
	k=$(awk -F, '$1 == "stat.events" && $2 ~ /^kmem:/ { print $2, $3 }' "$WORK/pipe.csv" | sort)
	p=$(perf_script_counts "$WORK/pipe.data")
	grep -q '^stat.summary,format,perf.data (pipe mode)$' "$WORK/pipe.csv" && [ -n "$k" ] && [ "$k" = "$p" ] ||
		{ echo "  kmtrace: $k"; echo "  perf script: $p"; return 1; }
	echo "  equal: $(echo "$k" | tr '\n' ' ')"
}

# -z and -g recorded here: counts equal perf script's, callers are named functions.
test_perf_live_zg() {
	perf record -q -z -g -e 'kmem:mm_page_alloc,kmem:mm_page_free,kmem:kmalloc' -o "$WORK/zg.data" \
		-- sh -c "$PERF_WORKLOAD" >/dev/null 2>&1 || return 1
	test_perf_counts "$WORK/zg.data" && test_perf_caller "$WORK/zg.data"
}

# perf's build-id cache copy of kallsyms (buildid.dir of a perfconfig of
# our own): taken when it is this boot's, with the very names /proc/kallsyms
# gives; a copy whose _text is not this boot's is not taken.
test_perf_live_kallsyms_copy() {
	local bid="$WORK/buildid" copy out dir how
	printf '[buildid]\n\tdir = %s\n' "$bid" >"$WORK/perfconfig"
	PERF_CONFIG="$WORK/perfconfig" perf record -q -g -e 'kmem:kmalloc,kmem:kfree,kmem:mm_page_alloc' \
		-o "$WORK/kc.data" -- sh -c "$PERF_WORKLOAD" >/dev/null 2>&1 || return 1
	copy=$(ls "$bid"/\[kernel.kallsyms\]/*/kallsyms 2>/dev/null | head -1)
	[ -s "$copy" ] || { echo "  perf kept no copy of kallsyms in $bid"; return 1; }
	for how in copy proc; do
		dir=$bid
		[ $how = proc ] && dir="$WORK/no-buildid"
		PERF_BUILDID_DIR=$dir "$KMTRACE" report -i "$WORK/kc.data" slab --caller page --caller \
			leak >"$WORK/kc.$how" 2>&1 || return 1
		PERF_BUILDID_DIR=$dir "$KMTRACE" report -i "$WORK/kc.data" stat | grep 'Kernel symbols' \
			>"$WORK/kc.$how.src"
	done
	grep -qF "perf's copy of this machine's kallsyms, $copy (same kernel" "$WORK/kc.copy.src" &&
		grep -q '/proc/kallsyms of this machine' "$WORK/kc.proc.src" ||
		{ cat "$WORK/kc.copy.src" "$WORK/kc.proc.src"; return 1; }
	cmp -s "$WORK/kc.copy" "$WORK/kc.proc" || { diff "$WORK/kc.proc" "$WORK/kc.copy" | head; return 1; }
	[ "$(grep -c '^  [a-z_]*+0x' "$WORK/kc.copy")" -ge 3 ] || { head -30 "$WORK/kc.copy"; return 1; }
	sed -i 's/^\([0-9a-f]*\) T _text$/ffffffff00000000 T _text/' "$copy"
	out=$(PERF_BUILDID_DIR=$bid "$KMTRACE" report -i "$WORK/kc.data" stat | grep 'Kernel symbols')
	case $out in
	*"/proc/kallsyms of this machine"*"; perf's copy not taken: its _text is not this boot's)") ;;
	*) echo "  a copy of another _text taken, or not said: $out"; return 1 ;;
	esac
	echo "  $(grep -c '^  [a-z_]*+0x' "$WORK/kc.copy") named rows, the same from the copy and /proc/kallsyms"
}

# A workload that forks and execs: sh runs cat and ls, then becomes dd.
PERF_EXEC_WORKLOAD="cat /etc/os-release >/dev/null; ls /usr/share >/dev/null; exec dd if=/etc/passwd of=/dev/null status=none"

# kmt_on FILE MODE ARGS...: kmtrace report of FILE, through standard input for a pipe.
kmt_on() {
	local f=$1 mode=$2
	shift 2
	if [ "$mode" = pipe ]; then
		cat "$f" | "$KMTRACE" report -i - "$@"
	else
		"$KMTRACE" report -i "$f" "$@"
	fi
}

# slab allocations of a JSON report on standard input
slab_allocs() { python3 -c 'import json,sys; print(json.load(sys.stdin)["analyses"]["slab"]["summary"]["allocations"])'; }

# perf record -e 'kmem:*' of a workload that forks and execs (file, pipe or -z):
# events per (pid, comm) equal perf script's, each task named as it was at
# the event's time; slab --comm X equals perf script's allocations named X
# and the sum of slab --pid-filter P --time over the spans X's pids had that
# name; the per-process JSON has the tgid of every task with a COMM or FORK
# record, the parent of every forked or exited one, each exec'd program.
test_perf_processes() {
	local mode=$1 f=$WORK/proc-$1.data opts=(-q -e 'kmem:*') comm want rest span pid t sum got
	[ "$mode" = zstd ] && opts+=(-z)
	if [ "$mode" = pipe ]; then
		perf record "${opts[@]}" -o - -- sh -c "$PERF_EXEC_WORKLOAD" >"$f" 2>/dev/null
	else
		perf record "${opts[@]}" -o "$f" -- sh -c "$PERF_EXEC_WORKLOAD" >/dev/null 2>&1
	fi || return 1
	perf script -i "$f" --ns -F comm,tid,time,event >"$WORK/proc-script.txt" 2>/dev/null &&
	perf script -i "$f" --show-task-events >"$WORK/proc-tasks.txt" 2>/dev/null || return 1
	kmt_on "$f" "$mode" --format jsonl events >"$WORK/proc-events.jsonl" 2>/dev/null &&
	python3 "$TOP/tests/perf_processes.py" pairs "$WORK/proc-script.txt" "$WORK/proc-events.jsonl" ||
		return 1
	grep -q ' [0-9]*/sh:' <(python3 "$TOP/tests/perf_processes.py" pairs "$WORK/proc-script.txt" \
		"$WORK/proc-events.jsonl") || { echo "  no sh events"; return 1; }
	while read -r comm want rest; do
		got=$(kmt_on "$f" "$mode" slab --comm "$comm" --format json 2>/dev/null | slab_allocs)
		sum=0
		for span in $rest; do
			pid=${span%%:*}
			t=${span#*:}
			sum=$((sum + $(kmt_on "$f" "$mode" slab --pid-filter "$pid" --time "$t" \
				--format json 2>/dev/null | slab_allocs)))
		done
		[ "$got" = "$want" ] && [ "$sum" = "$want" ] ||
			{ echo "  --comm $comm: $got, perf script $want, per pid and span $sum"; return 1; }
	done < <(python3 "$TOP/tests/perf_processes.py" comms "$WORK/proc-script.txt")
	kmt_on "$f" "$mode" slab --pid --format json >"$WORK/proc-slab.json" 2>/dev/null &&
	python3 "$TOP/tests/perf_processes.py" tasks "$WORK/proc-tasks.txt" "$WORK/proc-slab.json" |
		grep -qx 'rows [3-9]'
}

# perf record --namespaces --all-cgroups: every task's cgroup is the one its
# samples name (the root here: no process of this run is in another v2
# cgroup), in the initial pid namespace: no container.
test_perf_cgroups() {
	local f=$WORK/cg.data
	perf record -q --namespaces --all-cgroups -e kmem:kmalloc -o "$f" -- sh -c "$PERF_EXEC_WORKLOAD" \
		>/dev/null 2>&1 || return 1
	"$KMTRACE" report -i "$f" slab --pid --format json >"$WORK/cg.json" 2>/dev/null &&
	json_run "$WORK/cg.json" "rows = d['analyses']['slab']['tables']['pids']
assert len(rows) >= 3, rows
assert all(r['cgroup'] == '/' and r['container'] is None for r in rows), rows"
}

perfdata_live_tests() {
	if ! perf record -q -e kmem:kfree -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
		skip "perf.data live: perf record -e kmem:* does not work here"
		return
	fi
	live "perf record -a: slab and page summaries equal perf kmem's" test_perf_live_system_wide
	live "perf record -o - | kmtrace report -i -: counts equal perf script's" test_perf_live_pipe
	live "perf record -z -g: counts equal perf script's, page --caller names callers" test_perf_live_zg
	live "perf's build-id cache copy of kallsyms: the names of /proc/kallsyms, only this boot's" \
		test_perf_live_kallsyms_copy
	live "perf record of a command that forks and execs: names follow time as perf script's, --comm equals --pid-filter over each name's span, tgid/ppid/program filled" \
		test_perf_processes file
	live "the same in pipe mode (perf record -o - | kmtrace report -i -)" test_perf_processes pipe
	live "the same with perf record -z" test_perf_processes zstd
	if perf record -q --all-cgroups -e kmem:kfree -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
		live "perf record --namespaces --all-cgroups: each task's cgroup from its samples, no container" \
			test_perf_cgroups
	else
		skip "perf record --all-cgroups: not supported by this perf or kernel"
	fi
}
