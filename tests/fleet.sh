# JSON lines for a fleet's store: report --format jsonl events --host and
# the tables as lines. Sourced by tests/integration.sh (uses its KMTRACE,
# TRACES, WORK, check). make check-fleet (scripts/check_fleet.sh) loads
# them into a real ClickHouse.

# --host: flat lines with host, boot id and kernel release; the fields are
# those of the nested lines, a field named like a line's key as field_NAME.
test_fleet_events_flat() {
	local f
	for f in "$TRACES/small.dat" "$TRACES/perf-small.data" "$TRACES/armhf-6.1.dat" \
		 "$TRACES/plugins.dat"; do
		"$KMTRACE" report -i "$f" --format jsonl events >"$WORK/nested.jsonl" 2>/dev/null &&
		"$KMTRACE" report -i "$f" --format jsonl --host board-7 --boot-id b00t events \
			>"$WORK/flat.jsonl" 2>/dev/null || return 1
		python3 - "$WORK/nested.jsonl" "$WORK/flat.jsonl" "$f" <<'EOF' || return 1
import json, sys
keys = ('ts', 'cpu', 'pid', 'tgid', 'comm', 'event', 'stack')
nested = [json.loads(l) for l in open(sys.argv[1])]
flat = [json.loads(l) for l in open(sys.argv[2])]
uname = None
for n, f in zip(nested, flat):
    if f.pop('host') != 'board-7' or f.pop('boot_id') != 'b00t':
        sys.exit('%s: host or boot id wrong: %r' % (sys.argv[3], f))
    release = f.pop('kernel_release')
    if not release or (uname is not None and release != uname):
        sys.exit('%s: kernel release %r' % (sys.argv[3], release))
    uname = release
    want = {k: n[k] for k in keys if k in n}
    for k, v in n['fields'].items():
        want[('field_' if k in keys + ('host', 'boot_id', 'kernel_release') else '') + k] = v
    if f != want:
        sys.exit('%s: flat %r, nested %r' % (sys.argv[3], f, n))
if len(nested) != len(flat) or not flat:
    sys.exit('%s: %d lines, %d flat' % (sys.argv[3], len(nested), len(flat)))
EOF
	done
	# the recording's host and release when not given; one of plugins.dat's fields is "pid"
	"$KMTRACE" report -i "$TRACES/plugins.dat" --format jsonl --boot-id x events 2>/dev/null |
		grep -m1 '"oom:mark_victim"' | grep -q '"host": "vm", .*"field_pid": [0-9]'
}

# The tables as lines: each row of the JSON report once, with the identity
# keys; --table keeps one table; a table that is not there: exit 2.
test_fleet_table_lines() {
	"$KMTRACE" report -i "$TRACES/small.dat" --format json slab page >"$WORK/t.json" 2>/dev/null &&
	"$KMTRACE" report -i "$TRACES/small.dat" --format jsonl --host h1 slab page \
		>"$WORK/t.jsonl" 2>/dev/null || return 1
	python3 - "$WORK/t.json" "$WORK/t.jsonl" <<'EOF' || return 1
import json, sys
doc = json.load(open(sys.argv[1]))['analyses']
lines = [json.loads(l) for l in open(sys.argv[2])]
n = 0
for a, sec in doc.items():
    for t, rows in sec['tables'].items():
        got = [{k: v for k, v in l.items() if k not in ('host', 'boot_id', 'kernel_release',
                                                        'analysis', 'table')}
               for l in lines if l['analysis'] == a and l['table'] == t]
        if got != rows:
            sys.exit('%s.%s: %d lines, %d rows' % (a, t, len(got), len(rows)))
        n += len(rows)
    summary = {l['key']: l['value'] for l in lines if l['analysis'] == a and l['table'] == 'summary'}
    if summary != sec['summary']:
        sys.exit('%s.summary differs' % a)
if any(l['host'] != 'h1' or l['kernel_release'] != '6.18.44-fc-v595' for l in lines) or not n:
    sys.exit('identity keys wrong or no rows')
EOF
	[ "$("$KMTRACE" report -i "$TRACES/small.dat" --format jsonl --table slab.callers slab \
		2>/dev/null | grep -c '"table": "callers"')" = \
	  "$("$KMTRACE" report -i "$TRACES/small.dat" --format jsonl --table slab.callers slab \
		2>/dev/null | wc -l)" ] || return 1
	"$KMTRACE" report -i "$TRACES/small.dat" --format jsonl --table slab.none slab \
		>/dev/null 2>&1
	[ $? -eq 2 ]
}

fleet_parsing_tests() {
	check "fleet: events --host: flat lines, host, boot id, kernel release; the nested lines' fields" \
		test_fleet_events_flat
	check "fleet: jsonl tables: each row and summary value once with the identity keys; --table" \
		test_fleet_table_lines
}
