#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""Every analysis on every fixture, as JSON and as CSV files:
  check_outputs.py KMTRACE TRACES_DIR SCHEMA WORK_DIR
- each JSON document validates against the schema (docs/kmtrace-report.schema.json),
  and each value agrees with its column's unit (integers for counts, bytes, ns and
  addresses; a finite number or null for percents; strings; stacks as arrays);
  every row with a "pid" has the process keys (tgid, ppid, executable, cmdline,
  start_time, cgroup, container), null where unknown;
- `--format csv -o DIR` writes a file per summary and table, each loads into sqlite3
  with .import and into Python's csv module (one header, rows of its width), and its
  row count equals the JSON table's (the summary's: its values);
- `--format chrome` of the timelines and OOM kills is trace-event JSON: each event has
  the keys its phase needs, and each counter event carries exactly the numbers of its
  JSON timeline row (same time, same pid);
- `report events --format jsonl` is an object per event with its keys, as many of each
  event as stat counts.
Prints one line per input and exits 1 at the first breach."""
import csv
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

FIXTURES = ['small.dat', 'small-v7.dat', 'fault.dat', 'plugins.dat',
            'perf-small.data:perf-small.kallsyms', 'perf-zg.data:perf-zg.kallsyms',
            'stacks.dat:stacks.kallsyms', 'instance-trace.txt', 'umem.dat',
            'armhf-6.1.dat:armhf-6.1.kallsyms', 's390x-6.1.dat:s390x-6.1.kallsyms']
ANALYSES = ['stat', 'slab --caller --alloc --cache --pid --stack --timeline 1',
            'page --pid --order --migratetype --gfp --live --caller --stack --timeline 1',
            'fault --regions --ip --timeline 1', 'vm --timeline 1', 'oom', 'leak',
            'umem --timeline 20']
CHECK_TYPE = {
    'count': lambda v: isinstance(v, int), 'bytes': lambda v: isinstance(v, int),
    'ns': lambda v: isinstance(v, int), 'address': lambda v: isinstance(v, int),
    'percent': lambda v: v is None or (isinstance(v, (int, float)) and v == v),
    'text': lambda v: isinstance(v, str), 'symbol': lambda v: isinstance(v, str),
    'stack': lambda v: isinstance(v, list) and all(isinstance(f, str) for f in v),
}
# What JSON adds to each row of a per-process table: null where unknown.
PROCESS_KEYS = {'tgid', 'ppid', 'executable', 'cmdline', 'start_time', 'cgroup', 'container', 'exit_time'}


def fail(msg):
    print(f'check_outputs: {msg}')
    sys.exit(1)


def report(kmtrace, path, syms, fmt, analysis, extra=()):
    cmd = [kmtrace, 'report', '-i', path, *syms, '--format', fmt, *extra, *analysis.split()]
    return subprocess.run(cmd, capture_output=True, text=True)


def check_units(doc, where):
    sections = dict(doc['analyses'])
    sections.update({k: v for k, v in doc.items() if k not in ('kmtrace', 'analyses')})
    for name, sec in sections.items():
        for key, value in sec['summary'].items():
            unit = sec['units']['summary'][key]
            if not CHECK_TYPE[unit](value):
                fail(f'{where}: {name}.summary.{key} = {value!r} is not {unit}')
        for table, rows in sec['tables'].items():
            units = sec['units']['tables'][table]
            for row in rows:
                if set(row) != set(units):
                    fail(f'{where}: {name}.{table} row keys {sorted(row)} != units')
                if 'pid' in row and not PROCESS_KEYS <= set(row):
                    fail(f'{where}: {name}.{table}: a per-process row without {PROCESS_KEYS}')
                for col, value in row.items():
                    if value is None and 'pid' in row and col in PROCESS_KEYS:
                        continue
                    if not CHECK_TYPE[units[col]](value):
                        fail(f'{where}: {name}.{table}.{col} = {value!r} is not {units[col]}')
    return sections


def check_csv_files(csv_dir, sections, where):
    files = 0
    for name, sec in sections.items():
        wanted = {'summary': len(sec['summary'])} if sec['summary'] else {}
        wanted.update({t: len(rows) for t, rows in sec['tables'].items()})
        for table, nrows in wanted.items():
            path = os.path.join(csv_dir, f'{name}-{table}.csv')
            if not os.path.exists(path):
                fail(f'{where}: no {path}')
            with open(path, newline='') as f:
                rows = list(csv.reader(f))
            if len(rows) - 1 != nrows or any(len(r) != len(rows[0]) for r in rows):
                fail(f'{where}: {path}: {len(rows) - 1} rows of csv, JSON has {nrows}')
            out = subprocess.run(['sqlite3', ':memory:', '-cmd', '.mode csv',
                                  '-cmd', f'.import {path} t', 'select count(*) from t;'],
                                 capture_output=True, text=True)
            if out.returncode or out.stderr or out.stdout.strip() != str(nrows):
                fail(f'{where}: sqlite3 .import {path}: {out.stdout.strip()!r} rows, '
                     f'JSON has {nrows}; {out.stderr.strip()}')
            files += 1
    return files


TIMED = ('slab --timeline 1 page --timeline 1 fault --timeline 1 vm --timeline 1 '
         'umem --timeline 20 oom')
NEEDS = {'C': ('name', 'ph', 'ts', 'pid', 'tid', 'args'), 'i': ('name', 'ph', 'ts', 'pid', 'tid', 's'),
         'M': ('name', 'ph', 'pid', 'args')}


def check_chrome(kmtrace, path, syms, where):
    js, ch = (report(kmtrace, path, syms, fmt, TIMED) for fmt in ('json', 'chrome'))
    if js.returncode or ch.returncode:
        fail(f'{where}: chrome exit {ch.returncode}: {ch.stderr.strip()}')
    doc, events = json.loads(js.stdout)['analyses'], json.loads(ch.stdout)['traceEvents']
    rows = {}
    for name, sec in doc.items():
        for row in sec['tables'].get('timeline', []):
            t = row.get('time', row.get('start'))
            rows[(f'{name}.timeline', t, row.get('pid', 0))] = {
                k: v for k, v in row.items() if k not in ('time', 'start', 'pid') and
                k not in PROCESS_KEYS and
                sec['units']['tables']['timeline'][k] in ('count', 'bytes', 'percent')}
    counters = 0
    for e in events:
        if e.get('ph') not in NEEDS or any(k not in e for k in NEEDS[e['ph']]):
            fail(f'{where}: chrome event without its keys: {e}')
        if e['ph'] != 'C':
            continue
        key = (e['name'], round(e['ts'] * 1000), e['pid'])
        if rows.get(key) != e['args']:
            fail(f'{where}: counter {key} {e["args"]} != timeline row {rows.get(key)}')
        counters += 1
    if counters != len(rows):
        fail(f'{where}: {counters} counter events for {len(rows)} timeline rows')
    return counters


def check_events(kmtrace, path, syms, where):
    """report events --format jsonl: an object per event, as many per event as stat counts."""
    run = report(kmtrace, path, syms, 'jsonl', 'events')
    st = report(kmtrace, path, syms, 'json', 'stat')
    if run.returncode or st.returncode:
        fail(f'{where}: events exit {run.returncode}: {run.stderr.strip()}')
    counts = {}
    for line in run.stdout.splitlines():
        e = json.loads(line)
        if set(e) - {'stack'} != {'ts', 'cpu', 'pid', 'tgid', 'comm', 'event', 'fields'}:
            fail(f'{where}: events line with keys {sorted(e)}')
        counts[e['event']] = counts.get(e['event'], 0) + 1
    want = {r['event']: r['count'] for r in json.loads(st.stdout)['analyses']['stat']['tables']['events']}
    known = {k: v for k, v in counts.items() if k in want}
    if known != want:
        fail(f'{where}: events per name {known} != stat {want}')
    return sum(counts.values())


def main():
    kmtrace, traces, schema_path, work = sys.argv[1:5]
    schema = json.load(open(schema_path))
    validator = jsonschema.Draft202012Validator(schema)
    for fixture in FIXTURES:
        name, _, ksyms = fixture.partition(':')
        path = os.path.join(traces, name)
        syms = ['--kallsyms', os.path.join(traces, ksyms)] if ksyms else []
        docs = files = 0
        for analysis in ANALYSES:
            where = f'{name} {analysis}'
            js = report(kmtrace, path, syms, 'json', analysis)
            if js.returncode == 2 and 'not in the recording' in js.stderr:
                continue    # an analysis whose events the fixture lacks
            if js.returncode:
                fail(f'{where}: json exit {js.returncode}: {js.stderr.strip()}')
            doc = json.loads(js.stdout)
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            if errors:
                fail(f'{where}: schema: {errors[0].message} at {list(errors[0].path)}')
            sections = check_units(doc, where)
            docs += 1
            with tempfile.TemporaryDirectory(dir=work) as csv_dir:
                out = report(kmtrace, path, syms, 'csv', analysis, ('-o', csv_dir))
                if out.returncode or out.stdout:
                    fail(f'{where}: csv -o exit {out.returncode}: {out.stderr.strip()}')
                files += check_csv_files(csv_dir, sections, where)
        counters = check_chrome(kmtrace, path, syms, name)
        events = check_events(kmtrace, path, syms, name)
        print(f'  {name}: {docs} JSON documents valid, {files} CSV files loaded, '
              f'{counters} chrome counters equal their timeline rows, {events} jsonl events')


if __name__ == '__main__':
    main()
