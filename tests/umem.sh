# User-space allocations: record --user and report umem. Sourced by
# tests/integration.sh (uses its KMTRACE, TOP, WORK, live, leftover_instances).

UMEM_PROG=$WORK/umalloc

build_umalloc() {
	[ -x "$UMEM_PROG" ] || cc -O1 -g -o "$UMEM_PROG" "$TOP/tests/progs/umalloc.c"
}

# kmtrace's uprobe events still in uprobe_events (none when all is well).
user_probes_left() {
	grep -s 'kmtrace_user/' /sys/kernel/tracing/uprobe_events
}

# malloc calls per caller address of pid $2 in `trace-cmd report` of $1: "COUNT CALLER".
tracecmd_mallocs_by_caller() {
	trace-cmd report "$1" 2>/dev/null |
		awk -v pid="$2" '/ call: / && / fn=1$/ && $1 ~ "-" pid "$" {
			for (i = 1; i <= NF; i++) if ($i ~ /^caller=/) n[substr($i, 8)]++
		} END { for (c in n) print n[c], c }' | sort -rn
}

# Done-when 1: 10,000 mallocs of 1,000 bytes, 3,000 freed, a calloc and a realloc.
test_umem_known() {
	local f=$WORK/umem.dat pid top
	build_umalloc || return 1
	"$KMTRACE" record --user -e kmem:kmalloc -o "$f" -- "$UMEM_PROG" 10000 1000 3000 300 \
		>"$WORK/umem.out" 2>"$WORK/umem.err" || { cat "$WORK/umem.err"; return 1; }
	[ -z "$(user_probes_left)" ] || { echo "  uprobes left: $(user_probes_left)"; return 1; }
	"$KMTRACE" report -i "$f" umem --format json >"$WORK/umem.json" || return 1
	pid=$(json_get "$WORK/umem.json" "[p['pid'] for p in d['analyses']['umem']['tables']['processes'] if p['comm'] == 'umalloc'][0]")
	python3 - "$WORK/umem.json" "$pid" <<'PY' || return 1
import json, sys
d = json.load(open(sys.argv[1]))['analyses']['umem']
t, pid = d['tables'], int(sys.argv[2])
p = [p for p in t['processes'] if p['pid'] == pid][0]
def rows(table, fn):
    return sorted((r for r in t[table] if r['pid'] == pid and r['caller'].startswith(fn + '+')),
                  key=lambda r: r['bytes'])
mk, rs, lk = rows('callers', 'make_objects'), rows('callers', 'resize_objects'), rows('leaks', 'make_objects')
assert [(r['calls'], r['bytes'], r['live_bytes'], r['live_objects']) for r in mk] == \
    [(10000, 10_000_000, 7_000_000, 7000)], mk
# calloc(10, 100), then realloc of it to 4,000 bytes: the first freed, the second live
assert [(r['calls'], r['bytes'], r['live_bytes'], r['live_objects']) for r in rs] == \
    [(1, 1000, 0, 0), (1, 4000, 4000, 1)], rs
assert [(r['objects'], r['bytes']) for r in lk] == [(7000, 7_000_000)], lk
assert p['free'] == 3000 and p['realloc'] == 1 and p['calloc'] == 2, p
assert p['untracked_frees'] == 0 and d['summary']['unmatched_returns'] == 0, d['summary']
print(f"  pid {pid}: {p['malloc']} malloc, {p['calloc']} calloc, {p['realloc']} realloc, "
      f"{p['free']} free; make_objects 10000 x 1000 B, 7000 live; resize_objects 1000 B "
      f"freed by the realloc, 4000 B live")
PY
	# recount from trace-cmd report: malloc calls of the process, and those of the top caller
	top=$(tracecmd_mallocs_by_caller "$f" "$pid" | head -1)
	[ "$(tracecmd_mallocs_by_caller "$f" "$pid" | awk '{ s += $1 } END { print s }')" = \
	  "$(json_get "$WORK/umem.json" "[p['malloc'] for p in d['analyses']['umem']['tables']['processes'] if p['pid'] == $pid][0]")" ] &&
	[ "${top%% *}" = 10000 ] ||
		{ echo "  trace-cmd report recount differs (top caller: $top)"; return 1; }
	echo "  trace-cmd report: the same malloc calls, 10000 from one caller"
}

# Done-when 2: half of a 50 MB heap freed in a pattern no page can go back from:
# umem's live heap and anonymous RSS agree with the program's own accounting
# (its counted bytes, /proc/self/status RssAnon) within 1%, RSS twice the heap.
test_umem_fragmented() {
	local f=$WORK/ufrag.dat
	[ -x "$WORK/ufrag" ] || cc -O1 -g -o "$WORK/ufrag" "$TOP/tests/progs/ufrag.c" || return 1
	"$KMTRACE" record --user -e kmem:rss_stat -e kmem:kmalloc -e kmem:kfree \
		-e kmem:mm_page_alloc -e kmem:mm_page_free -o "$f" -- "$WORK/ufrag" 50000 1000 300 \
		>"$WORK/ufrag.out" 2>"$WORK/ufrag.err" || { cat "$WORK/ufrag.err"; return 1; }
	"$KMTRACE" report -i "$f" umem --format json >"$WORK/ufrag.json" || return 1
	python3 - "$WORK/ufrag.json" "$WORK/ufrag.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))['analyses']['umem']['tables']['memory']
own = open(sys.argv[2]).read().split()
live, rss = int(own[1]), int(own[5])
m = [r for r in d if r['comm'] == 'ufrag']
assert len(m) == 1, d
m = m[0]
def close(a, b): return abs(a - b) <= 0.01 * b
assert close(m['live_heap'], live), (m['live_heap'], live)
assert close(m['anon_rss'], rss), (m['anon_rss'], rss)
assert m['rss_over_heap'] > 0.9 * live, m
print(f"  live heap {m['live_heap']} (own count {live}), anon RSS {m['anon_rss']} (RssAnon {rss}): "
      f"RSS - heap {m['rss_over_heap']}, heap {m['heap_percent']:.1f}% of RSS")
PY
}

# Done-when 4: a recorder killed with SIGKILL leaves its uprobes; the next record takes them back.
test_umem_killed_recorder() {
	local pid child
	"$KMTRACE" record --user -o "$WORK/killed.dat" -- sleep 30 >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 200); do [ -n "$(user_probes_left)" ] && break; sleep 0.05; done
	sleep 0.3	# past the setup: tracing on, the command released
	child=$(pgrep -P "$pid")	# the command of the recorder this test started
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	[ -n "$child" ] && kill "$child" 2>/dev/null
	[ -n "$(user_probes_left)" ] || { echo "  the killed recorder left no uprobes to take back"; return 1; }
	"$KMTRACE" record -d 0.2 -e kmem:kmalloc -o "$WORK/after-kill.dat" >/dev/null 2>"$WORK/ak.err" ||
		{ cat "$WORK/ak.err"; return 1; }
	[ -z "$(user_probes_left)" ] || { echo "  uprobes left: $(user_probes_left)"; return 1; }
	[ -z "$(leftover_instances)" ] || { echo "  instance left: $(leftover_instances)"; return 1; }
	echo "  $(cat "$WORK/ak.err" | grep -c removed) notice of the instance removed; uprobes gone"
}

# --user without -p or a command is refused before anything is made.
test_umem_needs_scope() {
	"$KMTRACE" record --user -d 1 -o "$WORK/nouser.dat" 2>"$WORK/nouser.err"
	[ $? = 2 ] && grep -q -- '--user needs -p PID or -- COMMAND' "$WORK/nouser.err" &&
		[ ! -e "$WORK/nouser.dat" ] && [ -z "$(user_probes_left)" ]
}

# --- record --user-sample (libkmtrace-heap.so) ---

# Exactness: at --user-sample=1 the per-caller figures and live objects of
# umalloc equal record --user's; its malloc records, recounted from the raw
# bytes trace-cmd report prints, equal umem's malloc count.
test_usample_exact() {
	local s=$WORK/usample1.dat u=$WORK/uuser.dat
	build_umalloc || return 1
	"$KMTRACE" record --user-sample=1 -e kmem:kmalloc -o "$s" -- "$UMEM_PROG" 10000 1000 3000 300 \
		>/dev/null 2>"$WORK/us1.err" || { cat "$WORK/us1.err"; return 1; }
	"$KMTRACE" record --user -e kmem:kmalloc -o "$u" -- "$UMEM_PROG" 10000 1000 3000 300 \
		>/dev/null 2>"$WORK/uu.err" || { cat "$WORK/uu.err"; return 1; }
	[ -z "$(leftover_instances)" ] || { echo "  instance left: $(leftover_instances)"; return 1; }
	"$KMTRACE" report -i "$s" umem --format json >"$WORK/us1.json" &&
		"$KMTRACE" report -i "$u" umem --format json >"$WORK/uu.json" || return 1
	trace-cmd report "$s" 2>/dev/null | grep ' raw_data: ' >"$WORK/us1.raw"
	python3 - "$WORK/us1.json" "$WORK/uu.json" "$WORK/us1.raw" <<'PY'
import json, re, struct, sys
def umem(path):
    t = json.load(open(path))['analyses']['umem']['tables']
    p = [r for r in t['processes'] if r['comm'] == 'umalloc']
    assert len(p) == 1, t['processes']
    p = p[0]
    callers = sorted((r['caller'], r['calls'], r['bytes'], r['live_bytes'], r['live_objects'],
                      r['failed']) for r in t['callers'] if r['pid'] == p['pid'])
    keys = ('malloc', 'calloc', 'realloc', 'free', 'requested', 'live_bytes', 'live_objects',
            'peak_live_bytes', 'failed', 'untracked_frees')
    return p['pid'], {k: p[k] for k in keys}, callers, t
spid, sp, sc, st = umem(sys.argv[1])
upid, up, uc, _ = umem(sys.argv[2])
assert sp == up, (sp, up)
assert sc == uc, (sc, uc)
mk = [c for c in sc if c[0].startswith('make_objects+')]
assert [c[1:5] for c in mk] == [(10000, 10_000_000, 7_000_000, 7000)], mk
assert any(r['stack'][0] == mk[0][0] and r['stack'][1].startswith('main+')
           for r in st['stacks']), st['stacks'][:3]
# independent recount: the records as trace-cmd prints them (hex bytes after the id)
mallocs = 0
for line in open(sys.argv[3]):
    m = re.search(r'-(\d+)\s+\[\d+\].* raw_data:\s+# 4b4d4850 ((?:[0-9a-f]{2} ?)+)', line)
    if not m:
        continue
    b = bytes.fromhex(m.group(2).replace(' ', ''))
    version, kind, func, nframes, tgid = struct.unpack_from('<BBBBI', b)
    if tgid == spid and func == 1 and kind & 1:
        mallocs += 1
assert mallocs == sp['malloc'], (mallocs, sp['malloc'])
print(f"  --user-sample=1 and --user: the same {len(sc)} callers and process figures "
      f"({sp['malloc']} malloc, {sp['free']} free, {sp['live_objects']} live); "
      f"trace-cmd report's raw_data: {mallocs} mallocs")
PY
}

# Estimates at the default interval: a program asking for 2 GB in four
# callers of different sizes. The library counts every call by call site,
# so each caller's calls and bytes equal what the program counted itself,
# and the process's calls per function and bytes asked equal a recount of
# the library's site records from stock trace-cmd report's hex; the folded
# stacks of a caller add up to its bytes. Live bytes stay sampled: each
# caller within 5% or four standard errors of the estimator (the program
# computes them), whichever is wider. The same program leaving by _exit()
# writes no counts: its row says "estimated".
test_usample_estimates() {
	local f=$WORK/umix.dat pid
	[ -x "$WORK/umix" ] || cc -O1 -g -o "$WORK/umix" "$TOP/tests/progs/umix.c" -lm || return 1
	"$KMTRACE" record --user-sample -e kmem:kmalloc -o "$f" -- "$WORK/umix" 2048 524288 \
		>"$WORK/umix.out" 2>"$WORK/umix.err" || { cat "$WORK/umix.err"; return 1; }
	"$KMTRACE" report -i "$f" umem --format json >"$WORK/umix.json" &&
		"$KMTRACE" report -i "$f" umem --format folded >"$WORK/umix.folded" || return 1
	env -u TRACEEVENT_PLUGIN_DIR HOME=$WORK trace-cmd report -i "$f" 2>/dev/null |
		grep ' raw_data: ' >"$WORK/umix.raw"
	"$KMTRACE" record --user-sample -e kmem:kmalloc -o "$WORK/umix-x.dat" -- \
		"$WORK/umix" 16 524288 _exit >/dev/null 2>"$WORK/umix-x.err" ||
		{ cat "$WORK/umix-x.err"; return 1; }
	"$KMTRACE" report -i "$WORK/umix-x.dat" umem --format json >"$WORK/umix-x.json" || return 1
	python3 - "$WORK/umix.json" "$WORK/umix.out" "$WORK/umix.folded" "$WORK/umix.raw" \
		"$WORK/umix-x.json" <<'PY'
import json, math, re, struct, sys
d = json.load(open(sys.argv[1]))['analyses']['umem']
t = d['tables']
assert d['summary']['sample_interval'] == 524288, d['summary']
assert d['summary']['processes_counted'] == 1, d['summary']
proc = [p for p in t['processes'] if p['comm'] == 'umix'][0]
pid = proc['pid']
assert proc['counts'] == 'exact', proc
exact = {}
for line in open(sys.argv[2]):
    name, calls, nbytes, live, var, live_var = line.split()
    exact[name] = (int(calls), int(nbytes), int(live), float(live_var))
est = {}
for r in t['callers']:
    if r['pid'] == pid:
        fn = r['caller'].split('+')[0]
        c, b, l = est.get(fn, (0, 0, 0))
        est[fn] = (c + r['calls'], b + r['bytes'], l + r['live_bytes'])
out = []
for name, (calls, nbytes, live, live_var) in exact.items():
    c, b, l = est.get(name, (0, 0, 0))
    assert (c, b) == (calls, nbytes), (name, c, b, calls, nbytes)
    assert abs(l - live) <= max(0.05 * live, 4 * math.sqrt(live_var)), (name, l, live)
    out.append(f"{name} {calls} calls {nbytes} B exact, live {(l - live) / live:+.1%}")
# independent recount: the site records as stock trace-cmd prints them (hex after the id)
calls, asked, final = [0] * 9, 0, 0
for line in open(sys.argv[4]):
    m = re.search(r' raw_data:\s+# 4b4d4850 ((?:[0-9a-f]{2} ?)+)', line)
    b = bytes.fromhex(m.group(1).replace(' ', '')) if m else b''
    if len(b) < 48 or b[1] != 0x10 or struct.unpack_from('<I', b, 4)[0] != pid:
        continue
    final += struct.unpack_from('<Q', b, 16)[0] & 1
    for i in range(b[3] // 3):
        key, n, nb = struct.unpack_from('<QQQ', b, 48 + 24 * i)
        calls[key >> 56] += n
        asked += nb if key >> 56 != 4 else 0
assert final == 1, final
names = ('malloc', 'calloc', 'realloc', 'free')
assert [proc[k] for k in names] == calls[1:5], ([proc[k] for k in names], calls[1:5])
assert proc['requested'] == asked, (proc['requested'], asked)
assert calls[1] >= sum(exact[n][0] for n in exact if n != 'zeroed_objects'), calls
folded = sum(int(l.rsplit(' ', 1)[1]) for l in open(sys.argv[3]) if 'small_objects' in l)
assert abs(folded - exact['small_objects'][1]) <= 8, (folded, exact['small_objects'])
x = json.load(open(sys.argv[5]))['analyses']['umem']
xp = [p for p in x['tables']['processes'] if p['comm'] == 'umix']
assert xp and xp[0]['counts'] == 'estimated' and x['summary']['processes_estimated'] == 1, xp
print('  ' + '; '.join(out))
print(f"  trace-cmd's hex: {calls[1]} malloc, {calls[2]} calloc, {calls[4]} free, {asked} B; "
      f"folded small_objects {folded} B; _exit(): estimated")
PY
	[ $? = 0 ] || return 1
	# plugin_kmt_heap names the records: the process's last one, once
	pid=$(json_get "$WORK/umix.json" "[p['pid'] for p in d['analyses']['umem']['tables']['processes'] if p['comm'] == 'umix'][0]")
	HOME=$WORK TRACEEVENT_PLUGIN_DIR=$TOP/build/plugins trace-cmd report -i "$f" 2>/dev/null \
		>"$WORK/umix-plugin.txt" || return 1
	[ "$(grep -c "raw_data: *heap sites pid=$pid sites=[0-9]* calls=[0-9]* final" \
		"$WORK/umix-plugin.txt")" = 1 ] ||
		{ echo "  no one 'heap sites ... final' line"; grep -m3 'heap sites' "$WORK/umix-plugin.txt"; return 1; }
	echo "  $(grep -m1 'heap sites.*final' "$WORK/umix-plugin.txt" | sed 's/.*raw_data: *//')"
}

# Threads, a signal handler that allocates, fork and exec, sampled at 4 KiB:
# the program ends well; the parent's calls are counted exactly by the
# library (a handler's call that lands while the library writes a sample
# goes uncounted: within 0.01% of those made); the child exec'd after
# allocating, so its counts are estimates (within 3%: the sampling's
# standard error is 0.2%).
test_usample_threads() {
	local f=$WORK/uthreads.dat u
	[ -x "$WORK/uthreads" ] || cc -O1 -g -pthread -o "$WORK/uthreads" \
		"$TOP/tests/progs/uthreads.c" || return 1
	for u in dwarf fp; do
		"$KMTRACE" record --user-sample=4K --user-unwind $u -e kmem:kmalloc -o "$f" -f -- \
			"$WORK/uthreads" 200000 >"$WORK/uthreads.out" 2>"$WORK/uthreads.err" ||
			{ cat "$WORK/uthreads.err"; return 1; }
		"$KMTRACE" report -i "$f" umem --format json >"$WORK/uthreads.json" || return 1
		python3 - "$WORK/uthreads.json" "$WORK/uthreads.out" $u <<'PY' || return 1
import json, sys
t = json.load(open(sys.argv[1]))['analyses']['umem']['tables']
line = open(sys.argv[2]).read().split('\n')[-2].split()
pairs, alarms, child = int(line[0]), int(line[5]), int(line[8])
procs = {p['pid']: p for p in t['processes']}
parent = [p for p in t['processes'] if p['comm'] == 'uthreads']
assert len(parent) == 1 and child in procs, procs
made = 4 * pairs + alarms
assert parent[0]['counts'] == 'exact', parent
assert abs(parent[0]['malloc'] - made) <= 0.0001 * made + 4, (parent[0]['malloc'], made)
assert procs[child]['comm'] == 'ls' and procs[child]['malloc'] >= 0.97 * pairs, procs[child]
assert procs[child]['counts'] == 'estimated', procs[child]
frames = {f.split('+')[0] for s in t['stacks'] for f in s['stack']}
assert {'churn', 'on_alarm'} <= frames, sorted(frames)[:20]
print(f"  {sys.argv[3]}: {parent[0]['malloc']} mallocs counted of {made}; the forked child "
      f"(then ls) {procs[child]['malloc']}; stacks through churn and the signal handler")
PY
	done
}

# Callers are named from the mapped files as they are at report time, only
# when their build-id is the one the recording saw: umalloc rebuilt after
# the recording shows as file+offset, with one line saying so.
test_usample_build_id() {
	local prog=$WORK/bidprog f=$WORK/bid.dat
	cc -O1 -g -Wl,--build-id -o "$prog" "$TOP/tests/progs/umalloc.c" || return 1
	"$KMTRACE" record --user-sample=1 -e kmem:kmalloc -o "$f" -- "$prog" 100 100 10 100 \
		>/dev/null 2>&1 || return 1
	"$KMTRACE" report -i "$f" umem >"$WORK/bid1.txt" 2>"$WORK/bid1.err" &&
		grep -q 'make_objects+0x[0-9a-f]* \[bidprog\]' "$WORK/bid1.txt" &&
		! grep -q 'changed since the recording' "$WORK/bid1.err" ||
		{ echo "  not named before the rebuild"; cat "$WORK/bid1.err"; return 1; }
	cc -O2 -g -DREBUILT -Wl,--build-id -o "$prog" "$TOP/tests/progs/umalloc.c" || return 1
	"$KMTRACE" report -i "$f" umem >"$WORK/bid2.txt" 2>"$WORK/bid2.err" &&
		grep -q '1 user-space file changed since the recording (another build-id; .*bidprog first)' \
			"$WORK/bid2.err" &&
		! grep -q 'make_objects' "$WORK/bid2.txt" && grep -q 'bidprog+0x' "$WORK/bid2.txt" ||
		{ echo "  after the rebuild:"; cat "$WORK/bid2.err"; grep -m3 bidprog "$WORK/bid2.txt"; return 1; }
	echo "  $(cat "$WORK/bid2.err")"
}

# plugin_kmt_heap: trace-cmd report and kmtrace --print decode the library's
# records (one "heap malloc" line per malloc umem counts), stock without it.
test_usample_plugin() {
	local f=$WORK/usample1.dat pid n
	[ -s "$f" ] || { echo "  no recording (test_usample_exact makes it)"; return 1; }
	pid=$(json_get "$WORK/us1.json" "[p['pid'] for p in d['analyses']['umem']['tables']['processes'] if p['comm'] == 'umalloc'][0]")
	n=$(json_get "$WORK/us1.json" "[p['malloc'] for p in d['analyses']['umem']['tables']['processes'] if p['comm'] == 'umalloc'][0]")
	HOME=$WORK TRACEEVENT_PLUGIN_DIR=$TOP/build/plugins trace-cmd report -i "$f" 2>/dev/null \
		>"$WORK/hp.txt" || return 1
	env -u TRACEEVENT_PLUGIN_DIR HOME=$WORK trace-cmd report -i "$f" 2>/dev/null >"$WORK/hp0.txt"
	"$KMTRACE" report -i "$f" --print >"$WORK/hpk.txt" 2>/dev/null || return 1
	[ "$(grep -c "raw_data: *heap malloc pid=$pid size=" "$WORK/hp.txt")" = "$n" ] &&
	[ "$(grep -c "raw_data: *heap malloc pid=$pid size=" "$WORK/hpk.txt")" = "$n" ] &&
	grep -q 'heap realloc .* freed=0x[0-9a-f]* ptr=0x' "$WORK/hp.txt" &&
	! grep -q 'raw_data: *heap' "$WORK/hp0.txt" && grep -q 'raw_data: .*4b4d4850' "$WORK/hp0.txt" ||
		{ echo "  $n mallocs; $(grep -c 'heap malloc' "$WORK/hp.txt") with the plugin"; return 1; }
	echo "  $n 'heap malloc' lines in trace-cmd report and kmtrace --print; stock hex without"
}

# --user-sample needs a command, is not --user, and says when the command cannot load it.
test_usample_refusals() {
	local rc
	"$KMTRACE" record --user-sample -d 0.2 -o "$WORK/us-none.dat" 2>"$WORK/us-none.err"
	rc=$?
	[ $rc = 2 ] && grep -q 'needs -- COMMAND' "$WORK/us-none.err" && [ ! -e "$WORK/us-none.dat" ] ||
		{ echo "  without a command: exit $rc, $(cat "$WORK/us-none.err")"; return 1; }
	"$KMTRACE" record --user --user-sample -o "$WORK/us-both.dat" -- true 2>"$WORK/us-both.err"
	rc=$?
	[ $rc = 2 ] && grep -q 'choose one' "$WORK/us-both.err" ||
		{ echo "  with --user: exit $rc"; return 1; }
	"$KMTRACE" record --user-sample=lots -o "$WORK/us-bad.dat" -- true 2>/dev/null
	[ $? = 2 ] || { echo "  --user-sample=lots accepted"; return 1; }
	printf 'int main(void) { return 0; }\n' >"$WORK/static.c"
	if cc -static -o "$WORK/static" "$WORK/static.c" 2>/dev/null; then
		"$KMTRACE" record --user-sample -o "$WORK/us-static.dat" -- "$WORK/static" \
			>/dev/null 2>"$WORK/us-static.err" || { cat "$WORK/us-static.err"; return 1; }
		grep -q 'is statically linked: it cannot load' "$WORK/us-static.err" ||
			{ echo "  no notice for a static binary"; cat "$WORK/us-static.err"; return 1; }
	fi
	[ -z "$(leftover_instances)" ]
}

# An LTTng session (its own session daemon, unless root's is running already)
# traces umalloc through liblttng-ust-libc-wrapper; umem on the CTF trace
# gives the program's known counts, and babeltrace's text recounts its mallocs.
test_umem_lttng() {
	local d=$WORK/lttng own= name=kmtrace-umem-$$ i rc=0 pid
	build_umalloc || return 1
	command -v lttng-sessiond >/dev/null && command -v babeltrace >/dev/null ||
		{ echo "  lttng-tools or babeltrace missing (make deps installs them)"; return 1; }
	mkdir -p "$d/home"
	export LTTNG_HOME=$d/home
	if ! lttng --no-sessiond list >/dev/null 2>&1; then
		lttng-sessiond --no-kernel >"$d/sessiond.log" 2>&1 &
		own=$!
		for i in $(seq 100); do lttng --no-sessiond list >/dev/null 2>&1 && break; sleep 0.05; done
	fi
	lttng --no-sessiond create "$name" --output="$d/ctf" >/dev/null &&
	lttng --no-sessiond enable-event -s "$name" -u 'lttng_ust_libc:*' >/dev/null &&
	lttng --no-sessiond add-context -s "$name" -u -t vpid -t vtid -t procname -t ip >/dev/null &&
	lttng --no-sessiond start "$name" >/dev/null &&
	LD_PRELOAD=liblttng-ust-libc-wrapper.so.1 "$UMEM_PROG" 10000 1000 3000 300 >"$d/out" || rc=1
	lttng --no-sessiond stop "$name" >/dev/null 2>&1
	lttng --no-sessiond destroy "$name" >/dev/null 2>&1
	if [ -n "$own" ]; then kill "$own"; wait "$own"; fi
	unset LTTNG_HOME
	[ $rc = 0 ] || { echo "  the LTTng session failed"; cat "$d/sessiond.log" 2>/dev/null; return 1; }
	"$KMTRACE" report -i "$d/ctf" umem --format json >"$d/umem.json" || return 1
	pid=$(json_get "$d/umem.json" "[p['pid'] for p in d['analyses']['umem']['tables']['processes'] if p['comm'] == 'umalloc'][0]")
	babeltrace "$d/ctf" 2>/dev/null | grep -c "lttng_ust_libc:malloc: .*vpid = $pid," >"$d/recount"
	python3 - "$d/umem.json" "$pid" "$(cat "$d/recount")" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))['analyses']['umem']['tables']
pid, recount = int(sys.argv[2]), int(sys.argv[3])
p = [r for r in t['processes'] if r['pid'] == pid][0]
top = max((c for c in t['callers'] if c['pid'] == pid), key=lambda c: c['bytes'])
assert (top['calls'], top['bytes'], top['live_bytes'], top['live_objects']) == \
    (10000, 10_000_000, 7_000_000, 7000), top
assert p['malloc'] == recount >= 10000 and p['free'] >= 3000 and p['realloc'] == 1, (p, recount)
assert p['calloc'] >= 2 and p['live_objects'] >= 7002 and p['untracked_frees'] == 0, p
print(f"  pid {pid}: {p['malloc']} malloc (babeltrace: {recount}), {p['free']} free, "
      f"{p['calloc']} calloc, 1 realloc; top caller 10000 x 1000 B, 7000 live")
PY
}

build_grow() {
	[ -x "$WORK/grow" ] || cc -O1 -g -o "$WORK/grow" "$TOP/tests/progs/grow.c"
}

# Done-when 3: a program growing 10 MB every 100 ms is signalled before its
# own VmRSS passes 110 MB; the message names the limit and the RSS when it
# fired (above the limit, by less than 20 MiB); -o is a recording.
test_watch_rss_limit() {
	local rc kb
	build_grow || return 1
	"$KMTRACE" watch --rss-limit 100M -o "$WORK/watch-limit.dat" -- "$WORK/grow" 10 100 30 \
		>"$WORK/watch.out" 2>"$WORK/watch.err"
	rc=$?
	kb=$(awk '/^signalled VmRSS/ { print $3 }' "$WORK/watch.out")
	[ $rc = 3 ] && [ -n "$kb" ] && [ "$kb" -lt $((110 * 1000 * 1000 / 1024)) ] &&
	grep -q -- '--rss-limit 100.0 MiB passed after .* SIGTERM sent' "$WORK/watch.err" &&
	grep -qE -- 'RSS 1[01][0-9]\.[0-9] MiB, [0-9.]+ (B|KiB|MiB) over' "$WORK/watch.err" &&
	grep -q 'main+0x[0-9a-f]* \[grow\]' "$WORK/watch.err" ||
		{ echo "  exit $rc, VmRSS ${kb:-?} kB"; cat "$WORK/watch.out" "$WORK/watch.err"; return 1; }
	"$KMTRACE" report -i "$WORK/watch-limit.dat" umem --format json >"$WORK/watch.json" || return 1
	[ "$(json_get "$WORK/watch.json" "[p['comm'] for p in d['analyses']['umem']['tables']['processes']]")" = "['grow']" ] ||
		{ echo "  the recording does not show grow"; return 1; }
	[ -z "$(user_probes_left)" ] && [ -z "$(leftover_instances)" ] ||
		{ echo "  uprobes or instance left"; return 1; }
	echo "  signalled at VmRSS $kb kB; $(head -1 "$WORK/watch.err")"
}

# Within its limits: exit 0 and the peaks said.
test_watch_within() {
	build_grow || return 1
	"$KMTRACE" watch --heap-limit 1G --alloc-limit 1G -- "$WORK/grow" 1 1 3 \
		>"$WORK/within.out" 2>"$WORK/within.err" &&
	grep -q '^done VmRSS' "$WORK/within.out" &&
	grep -q 'within the limits; peaks: live heap 3.0 MiB, RSS [0-9.]* MiB, allocated 3.0 MiB' \
		"$WORK/within.err" || { cat "$WORK/within.err"; return 1; }
	"$KMTRACE" watch -- true 2>"$WORK/nolimit.err"
	[ $? = 2 ] && grep -q 'no limit' "$WORK/nolimit.err"
}

# watch -o --keep: a flight recording of the last seconds only; --keep 0 all of it.
test_watch_keep() {
	local k d
	build_grow || return 1
	for k in 0.3 0; do
		"$KMTRACE" watch --rss-limit 250M --keep $k -f -o "$WORK/keep.dat" -- \
			"$WORK/grow" 10 100 30 >/dev/null 2>"$WORK/keep.err"
		[ $? = 3 ] || { cat "$WORK/keep.err"; return 1; }
		d=$("$KMTRACE" report -i "$WORK/keep.dat" stat --format json |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["analyses"]["stat"]["summary"]["duration_ns"])')
		echo "  --keep $k: $d ns recorded"
		case $k in
		0.3) [ "$d" -le 300000000 ] && [ "$d" -gt 100000000 ] || return 1 ;;
		0) [ "$d" -gt 2000000000 ] || return 1 ;;
		esac
	done
}

build_ulimit() {
	[ -x "$WORK/ulimit" ] || cc -O1 -g -pthread -o "$WORK/ulimit" "$TOP/tests/progs/ulimit.c"
}

# --heap-limit 100M --on-limit fail: malloc returns NULL at exactly the call
# that would take the program's live heap past 100 MiB (its own count of
# usable bytes says which), watch says so with the call's stack, exit 3.
test_watch_heap_fail() {
	local rc
	build_ulimit || return 1
	"$KMTRACE" watch --heap-limit 100M --on-limit fail -- "$WORK/ulimit" heap 1024 \
		>"$WORK/hf.out" 2>"$WORK/hf.err"
	rc=$?
	[ $rc = 3 ] && grep -q -- '--heap-limit 100.0 MiB crossed after .* it failed with ENOMEM' \
		"$WORK/hf.err" && grep -q '^    main+0x[0-9a-f]* \[ulimit\]' "$WORK/hf.err" ||
		{ echo "  exit $rc"; cat "$WORK/hf.out" "$WORK/hf.err"; return 1; }
	python3 - "$WORK/hf.out" <<'PY'
import sys
w = open(sys.argv[1]).read().split()
assert w[:2] == ['null', 'at'] and w[4:6] == ['errno', '12'], w
block, live, asked = int(w[3]), int(w[7]), int(w[9])
limit, usable = 100 << 20, live // block
assert live + asked > limit >= live - usable + asked, (block, live, asked)
print(f"  NULL (ENOMEM) at block {block}: {live} usable bytes live + {asked} asked > {limit}, "
      f"the block before fitted")
PY
}

# --thread-alloc-limit 64M --on-limit fail: one thread stops at its limit,
# the other completes its work.
test_watch_thread_limit() {
	local rc
	build_ulimit || return 1
	"$KMTRACE" watch --thread-alloc-limit 64M --on-limit fail -- "$WORK/ulimit" threads 64 200 32 \
		>"$WORK/tl.out" 2>"$WORK/tl.err"
	rc=$?
	[ $rc = 3 ] && grep -qx 'A stopped (NULL) after 67108864 bytes' "$WORK/tl.out" &&
		grep -qx 'B done after 33554432 bytes' "$WORK/tl.out" &&
		grep -q -- '--thread-alloc-limit 64.0 MiB crossed .*(allocated by the thread then 64.0 MiB)' \
			"$WORK/tl.err" ||
		{ echo "  exit $rc"; cat "$WORK/tl.out" "$WORK/tl.err"; return 1; }
	echo "  $(tr '\n' ';' <"$WORK/tl.out")"
}

# --on-limit signal:USR1 ends the program at the crossing call: exit 3 says so;
# --on-limit stop leaves it stopped until killed.
test_watch_signal_and_stop() {
	local rc pid i c
	build_ulimit || return 1
	"$KMTRACE" watch --heap-limit 100M --on-limit signal:USR1 -- "$WORK/ulimit" heap 1024 \
		>"$WORK/sig.out" 2>"$WORK/sig.err"
	rc=$?
	[ $rc = 3 ] && [ ! -s "$WORK/sig.out" ] && grep -q 'SIGUSR1 sent to the process' "$WORK/sig.err" ||
		{ echo "  signal: exit $rc"; cat "$WORK/sig.out" "$WORK/sig.err"; return 1; }
	"$KMTRACE" watch --heap-limit 100M --on-limit stop -- "$WORK/ulimit" heap 1024 \
		>"$WORK/stop.out" 2>"$WORK/stop.err" &
	pid=$!
	for i in $(seq 100); do grep -q 'process is stopped' "$WORK/stop.err" && break; sleep 0.05; done
	for c in $(pgrep -P "$pid"); do	# the command of the watch this test started
		[ "$(awk '/^State:/ { print $2 }' /proc/"$c"/status 2>/dev/null)" = T ] && kill -9 "$c"
	done
	wait "$pid"
	rc=$?
	[ $rc = 3 ] && grep -q 'the process is stopped (SIGSTOP)' "$WORK/stop.err" &&
		[ -z "$(leftover_instances)" ] ||
		{ echo "  stop: exit $rc"; cat "$WORK/stop.err"; return 1; }
	echo "  signal:USR1 and stop both exit 3; the stopped one was killed by the test"
}

# --on-limit needs a command; a wrong action is refused.
test_watch_on_limit_refusals() {
	"$KMTRACE" watch --heap-limit 1M --on-limit fail -p 1 2>"$WORK/olr.err"
	[ $? = 2 ] && grep -q 'need -- COMMAND' "$WORK/olr.err" || return 1
	"$KMTRACE" watch --heap-limit 1M --on-limit explode -- true 2>"$WORK/olr.err"
	[ $? = 2 ] && grep -q 'takes signal' "$WORK/olr.err" || return 1
	"$KMTRACE" watch --heap-limit 1M --on-limit signal:NOPE -- true 2>/dev/null
	[ $? = 2 ]
}

# traces/lttng-libc, an LTTng CTF trace with events the tracer discarded:
# umem's mallocs of the process and the lost events equal babeltrace's.
test_ctf_fixture() {
	local f=$TRACES/lttng-libc
	"$KMTRACE" report -i "$f" --format json stat umem >"$WORK/ctf.json" || return 1
	babeltrace "$f" >"$WORK/ctf.txt" 2>"$WORK/ctf.warn" || return 1
	python3 - "$WORK/ctf.json" "$WORK/ctf.txt" "$WORK/ctf.warn" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))['analyses']
s, t = d['stat']['summary'], d['umem']['tables']
text = open(sys.argv[2]).read()
lost = sum(int(n) for n in re.findall(r'discarded (\d+) events', open(sys.argv[3]).read()))
events = len(re.findall(r'lttng_ust_libc:', text))
p = [r for r in t['processes'] if r['comm'] == 'umalloc']
assert len(p) == 1, t['processes']
p = p[0]
mallocs = len(re.findall(r'lttng_ust_libc:malloc: .*vpid = %d,' % p['pid'], text))
frees = len(re.findall(r'lttng_ust_libc:free: .*vpid = %d,' % p['pid'], text))
assert s['format'].startswith('CTF') and s['total_events'] == events, (s['format'], events)
assert s['lost_events'] == lost > 0, (s['lost_events'], lost)
assert p['malloc'] == mallocs and p['free'] == frees, (p, mallocs, frees)
print(f"  {events} events, {lost} lost (babeltrace: the same); pid {p['pid']}: {mallocs} malloc, "
      f"{frees} free, as babeltrace prints them")
PY
}

# Damaged CTF traces: one line and exit 2 (libbabeltrace2 aborts on some: it
# reads them in a child first), never a crash or a hang.
test_ctf_hostile() {
	local d=$WORK/ctfbad m rc
	m=ust/uid/0/64-bit
	for how in meta-cut meta-garbage stream-garbage empty; do
		rm -rf "$d" && cp -r "$TRACES/lttng-libc" "$d" || return 1
		case $how in
		meta-cut) truncate -s 3000 "$d/$m/metadata" ;;
		meta-garbage) echo garbage >"$d/$m/metadata" ;;
		stream-garbage) head -c 20000 /dev/urandom >"$d/$m/ch_1" ;;
		empty) rm -rf "${d:?}/ust" ;;
		esac
		timeout 60 "$KMTRACE" report -i "$d" umem >/dev/null 2>"$WORK/ctfbad.err"
		rc=$?
		[ $rc = 2 ] && [ "$(wc -l <"$WORK/ctfbad.err")" = 1 ] ||
			{ echo "  $how: exit $rc"; cat "$WORK/ctfbad.err"; return 1; }
	done
	# the stream whose packet sizes made libbabeltrace2 2.0 assert
	rm -rf "$d" && cp -r "$TRACES/lttng-libc" "$d" &&
	python3 - "$d/$m/ch_1" <<'PY' || return 1
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
for i in range(40, 72):	# the first packet's context: sizes and timestamps
    b[i] ^= 0xa5
open(p, 'wb').write(b)
PY
	timeout 60 "$KMTRACE" report -i "$d" umem >/dev/null 2>"$WORK/ctfbad.err"
	rc=$?
	[ $rc = 0 ] || [ $rc = 2 ] || { echo "  packet sizes: exit $rc"; return 1; }
}

umem_parsing_tests() {
	check "traces/lttng-libc (CTF): events, lost events and a process's malloc and free counts equal babeltrace's" \
		test_ctf_fixture
	check "damaged CTF traces: exit 2 and one line, never a crash or a hang" test_ctf_hostile
}

umem_live_tests() {
	if [ ! -e /sys/kernel/tracing/uprobe_events ]; then
		skip "record --user: the kernel has no uprobe events"
		return
	fi
	live "record --user: 10,000 mallocs, 3,000 frees, a calloc and a realloc from two call sites in umem, recounted by trace-cmd report" \
		test_umem_known
	live "record --user: a half-freed 50 MB heap shows anonymous RSS twice the live heap, both within 1% of the program's own figures" \
		test_umem_fragmented
	live "record --user killed with SIGKILL: the next record removes its uprobes and instance" \
		test_umem_killed_recorder
	live "record --user without -p or COMMAND: refused, nothing made" test_umem_needs_scope
	live "record --user-sample=1: the same callers, live objects and process figures as --user; mallocs recounted from trace-cmd report" \
		test_usample_exact
	live "plugin_kmt_heap: trace-cmd report and kmtrace --print show the library's records, one line per malloc umem counts" \
		test_usample_plugin
	live "record --user-sample (512 KiB): 2 GB in four callers, each caller's calls and bytes exact, recounted from trace-cmd report; _exit() estimated" \
		test_usample_estimates
	live "record --user-sample under threads, an allocating signal handler, fork and exec: the parent counted exactly, the exec'd child estimated" \
		test_usample_threads
	live "umem on an LTTng trace of liblttng-ust-libc-wrapper (own session daemon): the program's counts, recounted by babeltrace" \
		test_umem_lttng
	live "user callers named only from files whose build-id is the recording's: a rebuilt program shows as file+offset, said once" \
		test_usample_build_id
	live "record --user-sample: refused without COMMAND or with --user; a static binary is named" \
		test_usample_refusals
	live "watch --rss-limit 100M: a program growing 10 MB per 100 ms is signalled below 110 MB, the limit named, -o a recording" \
		test_watch_rss_limit
	live "watch within its limits: exit 0 and the peaks; no limit: exit 2" test_watch_within
	live "watch -o --keep 0.3: only the last 0.3 s written; --keep 0: all of it" test_watch_keep
	live "watch --heap-limit 100M --on-limit fail: NULL at exactly the crossing malloc, its stack said, exit 3" \
		test_watch_heap_fail
	live "watch --thread-alloc-limit 64M --on-limit fail: one thread stops at 64 MiB, the other completes" \
		test_watch_thread_limit
	live "watch --on-limit signal:USR1 and stop: the program signalled or stopped at the crossing, exit 3" \
		test_watch_signal_and_stop
	live "watch --on-limit: refused with -p or a wrong action" test_watch_on_limit_refusals
}
