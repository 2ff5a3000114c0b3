#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1
# make check-fleet: three recordings made here with different workloads,
# and a board's from traces/, loaded as four hosts into Debian's ClickHouse
# (a server of our own on 127.0.0.1, its files under a temporary
# directory) with the schema of docs/fleet.md; its queries must give the
# sums of the per-host kmtrace report figures. Also: a server that is not
# running and a recording that is not one, each one line and exit 2 from
# kmtrace-fleet-load. Prints the load rates.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
KMTRACE=$(realpath "${KMTRACE:-$TOP/kmtrace}")
LOAD=$TOP/scripts/kmtrace-fleet-load
export KMTRACE
cd "$TOP" || exit 1
. scripts/fleet_server.sh

fails=0
say() { echo "check-fleet: $*"; }
bad() { echo "check-fleet: FAIL: $*"; fails=$((fails + 1)); }

sh scripts/deps.sh fleet || exit 1
if [ "$(id -u)" != 0 ]; then
	say "SKIP: recording needs root"
	exit 0
fi
T=$(mktemp -d /tmp/kmtrace-fleet.XXXXXX) || exit 1
trap 'fleet_stop; rm -rf "$T"' EXIT

# host NAME FILE [KALLSYMS]: the hosts, in order
HOSTS=() FILES=() SYMS=()
host() { HOSTS+=("$1"); FILES+=("$2"); SYMS+=("${3:-}"); }

record() {
	local name=$1
	shift
	"$KMTRACE" record -o "$T/$name.dat" -- "$@" >/dev/null 2>"$T/$name.rec" ||
		{ bad "record $name: $(tail -n 2 "$T/$name.rec")"; exit 1; }
	host "$name" "$T/$name.dat"
}
say "recording three workloads"
record web sh scripts/workload.sh 300 3000
record build sh -c "for i in 1 2 3; do cc -O2 -Iinclude -Isrc -c -o $T/x.o src/common/hashmap.c; done"
record db python3 -c 'd = {i: str(i) * 20 for i in range(200000)}; print(len(d))'
host board-armhf "$TOP/traces/armhf-6.1.dat" "$TOP/traces/armhf-6.1.kallsyms"

fleet_start "$T/ch" || exit 1
say "clickhouse-server $(clickhouse-client --port "$FLEET_PORT" --query 'SELECT version()') on 127.0.0.1:$FLEET_PORT"

# The SQL blocks of docs/fleet.md whose first line is "-- KIND...", into $T/KIND.NN.sql.
python3 - docs/fleet.md "$T" <<'PY' || exit 1
import re, sys
for i, q in enumerate(re.findall(r'```sql\n(.*?)```', open(sys.argv[1]).read(), re.S)):
    kind = q.split('\n', 1)[0].strip('- ').split(':')[0]
    name = q.split('\n', 1)[0].split(':')[1].strip() if ':' in q.split('\n', 1)[0] else '%02d' % i
    open('%s/%s.%s.sql' % (sys.argv[2], kind, name), 'w').write(q)
PY
for q in "$T"/schema.*.sql; do
	clickhouse-client --port "$FLEET_PORT" --multiquery <"$q" 2>"$T/q.err" ||
		{ bad "schema $(basename "$q"): $(head -n 3 "$T/q.err")"; exit 1; }
done

# Each host loaded, and its own report kept for the sums.
for i in "${!HOSTS[@]}"; do
	h=${HOSTS[$i]} f=${FILES[$i]} s=${SYMS[$i]}
	"$LOAD" --port "$FLEET_PORT" --host "$h" ${s:+--kallsyms "$s"} "$f" 2>"$T/load.$h" ||
		{ bad "loading $h: $(cat "$T/load.$h")"; exit 1; }
	sed 's/^/check-fleet: /' "$T/load.$h"
	"$KMTRACE" report -i "$f" ${s:+--kallsyms "$s"} --format json stat slab --caller page \
		>"$T/$h.json" 2>/dev/null || { bad "report of $h"; exit 1; }
done

for q in "$T"/query.*.sql; do
	name=$(basename "$q" .sql)
	clickhouse-client --port "$FLEET_PORT" --format TabSeparated <"$q" >"$T/$name.tsv" \
		2>"$T/q.err" || { bad "$name: $(head -n 3 "$T/q.err")"; continue; }
done

# The queries' figures against the sums of the per-host reports.
python3 - "$T" "${HOSTS[@]}" <<'PY' || fails=$((fails + 1))
import json, sys
d, hosts = sys.argv[1], sys.argv[2:]
rep = {h: json.load(open('%s/%s.json' % (d, h))) for h in hosts}
def rows(name):
    return [l.rstrip('\n').split('\t') for l in open('%s/query.%s.tsv' % (d, name))]
bad = 0
def check(what, got, want):
    global bad
    if got != want:
        diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))[:5]
        print('check-fleet: FAIL: %s: %s' % (what, [(k, got.get(k), want.get(k)) for k in diff]))
        bad += 1
    else:
        print('check-fleet: %s: %d rows equal the sums of the per-host reports' % (what, len(got)))

want = {}
for h in hosts:
    for r in rep[h]['analyses']['slab']['tables']['callers']:
        w = want.setdefault(r['callsite'].split('+')[0], [0, 0, set()])
        w[0] += r['bytes_alloc']; w[1] += r['hits']; w[2].add(h)
want = {k: (v[0], v[1], len(v[2])) for k, v in want.items()}
got = {r[0]: (int(r[1]), int(r[2]), int(r[3])) for r in rows('callers')}
check('top call sites by bytes across %d hosts' % len(hosts), got, want)
top = rows('callers')[:3]
print('check-fleet:   top: %s' % ', '.join('%s %s bytes on %s hosts' % (r[0], r[1], r[3]) for r in top))

release = lambda h: rep[h]['kmtrace']['kernel'].split()[2]
page = lambda h: rep[h]['analyses']['page']['summary']
want = {(h, release(h)): (page(h)['alloc_requests'], page(h)['pages_allocated']) for h in hosts
        if page(h)['alloc_requests']}
got = {(r[0], r[1]): (int(r[2]), int(r[3])) for r in rows('pages')}
check('page allocations per host and kernel release', got, want)
if len({k[1] for k in got}) < 2:
    print('check-fleet: FAIL: one kernel release only'); bad += 1

got = {r[0]: int(r[2]) for r in rows('boots')}
want = {h: rep[h]['analyses']['stat']['summary']['total_events'] for h in hosts}
check('events per host and boot', got, want)
boots = {r[0]: r[1] for r in rows('boots')}
mine = open('/proc/sys/kernel/random/boot_id').read().strip()
if any(boots[h] != mine for h in hosts[:3]) or boots[hosts[3]] != '':
    print('check-fleet: FAIL: boot ids %s (this boot: %s)' % (boots, mine)); bad += 1
sys.exit(1 if bad else 0)
PY

# A recording that is not one, then a server that is not running: one line, exit 2.
echo "not a recording" >"$T/bad.dat"
"$LOAD" --port "$FLEET_PORT" --host x "$T/bad.dat" >/dev/null 2>"$T/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q "bad.dat" "$T/bad.err" &&
	say "a file that is no recording: $(cat "$T/bad.err")" ||
	bad "bad recording: rc=$rc $(cat "$T/bad.err")"
fleet_stop
"$LOAD" --port "$FLEET_PORT" --host x "${FILES[0]}" >/dev/null 2>"$T/down.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/down.err")" = 1 ] && grep -q "not answering" "$T/down.err" &&
	say "a server that is not running: $(cat "$T/down.err")" ||
	bad "server down: rc=$rc $(cat "$T/down.err")"

if [ $fails = 0 ]; then say "passed"; else say "$fails failed"; fi
[ $fails = 0 ]
