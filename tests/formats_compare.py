#!/usr/bin/env python3
"""Check that text, CSV and JSON renderings of one report carry the same numbers.

usage: formats_compare.py REPORT.json REPORT.csv REPORT.txt
The JSON is the reference. Every summary value and every table cell must
appear in the CSV (table name in the first column, "ANALYSIS.summary" rows
for summaries) and in the text (summary lines in order, tables in order,
cells split on runs of two or more spaces). Text percents carry two
decimals, CSV percents four; text timestamps are seconds with nine decimals.
Exits 1 listing the differences, 0 with a one-line summary.
"""
import csv
import json
import re
import sys

bad = []
# JSON alone says who the task of a per-process row was.
PROCESS_KEYS = {'tgid', 'ppid', 'executable', 'cmdline', 'start_time', 'cgroup', 'container', 'exit_time'}


def rendered(row):
    """@row without what only JSON carries."""
    return {k: v for k, v in row.items() if 'pid' not in row or k not in PROCESS_KEYS}


def same(where, want, got, fmt):
    """Is the rendered @got the value @want? @fmt ('csv' or 'text') names the output."""
    if isinstance(want, str):
        ok = got == want
    elif got.startswith('0x'):
        ok = int(got, 16) == want
    elif re.fullmatch(r'\d+\.\d{9}', got):
        ok = int(got.replace('.', '')) == want
    elif re.fullmatch(r'-?\d+\.\d+%?', got):	# a percent, rounded to its decimals
        places = len(got.rstrip('%').split('.')[1])
        ok = abs(float(got.rstrip('%')) - want) <= 0.5 * 10**-places + 1e-12
    else:
        ok = got == str(want)
    if not ok:
        bad.append(f'{fmt} {where}: {got!r} but JSON has {want!r}')


def csv_blocks(path):
    """{table name: [rows as dicts]} from the CSV."""
    tables = {}
    with open(path, newline='') as f:
        header = None
        for row in csv.reader(f):
            if not row:
                header = None
            elif header is None:
                header = row
            else:
                tables.setdefault(row[0], []).append(dict(zip(header[1:], row[1:])))
    return tables


def check_csv(doc, path):
    tables = csv_blocks(path)
    for name, sec in doc['analyses'].items():
        summary = {r['key']: r['value'] for r in tables.get(f'{name}.summary', [])}
        for key, want in sec['summary'].items():
            same(f'{name}.summary.{key}', want, summary.get(key, '<missing>'), 'csv')
        for tname, rows in sec['tables'].items():
            got = tables.get(f'{name}.{tname}', [])
            if len(got) != len(rows):
                bad.append(f'csv {name}.{tname}: {len(got)} rows, JSON {len(rows)}')
            for i, (w, g) in enumerate(zip(rows, got)):
                for key, want in rendered(w).items():
                    same(f'{name}.{tname}[{i}].{key}', want, g.get(key, '<missing>'), 'csv')


def text_parts(path):
    """Per analysis: summary value strings in order, and tables as lists of cell lists."""
    out, sec, table = {}, None, None
    for line in open(path).read().splitlines():
        m = re.fullmatch(r'== (\S+) ==', line)
        if m:
            sec = out.setdefault(m[1], {'summary': [], 'tables': []})
            table = None
        elif not line.strip():
            table = None
        elif not line.startswith('  '):
            table = []
            sec['tables'].append(table)
        elif table is None:
            sec['summary'].append(re.split(r'\s{2,}', line.strip(), maxsplit=1)[1])
        else:
            table.append(re.split(r'\s{2,}', line.strip()))
    return out


def check_text(doc, path):
    parts = text_parts(path)
    for name, sec in doc['analyses'].items():
        got = parts.get(name, {'summary': [], 'tables': []})
        want = list(sec['summary'].items())
        if len(got['summary']) != len(want):
            bad.append(f'text {name}: {len(got["summary"])} summary lines, JSON {len(want)}')
        for (key, w), g in zip(want, got['summary']):
            same(f'{name}.summary.{key}', w, g, 'text')
        tables = list(sec['tables'].items())
        if len(got['tables']) != len(tables):
            bad.append(f'text {name}: {len(got["tables"])} tables, JSON {len(tables)}')
        for (tname, rows), trows in zip(tables, got['tables']):
            body = trows[1:]	# the first line holds the column headers
            if len(body) != len(rows):
                bad.append(f'text {name}.{tname}: {len(body)} rows, JSON {len(rows)}')
            for i, (w, g) in enumerate(zip(rows, body)):
                w = rendered(w)
                if len(g) != len(w):
                    bad.append(f'text {name}.{tname}[{i}]: {len(g)} cells, JSON {len(w)}')
                    continue
                for (key, want), cell in zip(w.items(), g):
                    same(f'{name}.{tname}[{i}].{key}', want, cell, 'text')


def main():
    doc = json.load(open(sys.argv[1]))
    check_csv(doc, sys.argv[2])
    check_text(doc, sys.argv[3])
    if bad:
        print('\n'.join(bad[:30]))
        sys.exit(1)
    n = sum(len(r) for s in doc['analyses'].values() for r in s['tables'].values())
    print(f'equal: {len(doc["analyses"])} analyses, {n} table rows in text, CSV and JSON')


if __name__ == '__main__':
    main()
