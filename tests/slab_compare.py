#!/usr/bin/env python3
"""Compare `kmtrace report slab --caller --format json` with slab_recount.py output.

usage: slab_compare.py KMTRACE.json RECOUNT.json
Every summary figure of the recount and every call-site row must be equal
(call sites compared without kmtrace's " [module]" suffix, which trace-cmd
does not print). Prints what differs and exits 1, or prints a one-line
summary and exits 0.
"""
import json
import re
import sys


def main():
    with open(sys.argv[1]) as f:
        km = json.load(f)['analyses']['slab']
    with open(sys.argv[2]) as f:
        rc = json.load(f)
    bad = []
    for key, want in rc['summary'].items():
        if km['summary'].get(key) != want:
            bad.append(f'summary {key}: kmtrace {km["summary"].get(key)} recount {want}')
    rows = {}
    for row in km['tables']['callers']:
        site = re.sub(r' \[[^\]]*\]$', '', str(row['callsite']))
        if site in rows:
            bad.append(f'call site {site} appears twice in kmtrace output')
        rows[site] = row
    if set(rows) != set(rc['callers']):
        only_k = sorted(set(rows) - set(rc['callers']))[:5]
        only_r = sorted(set(rc['callers']) - set(rows))[:5]
        bad.append(f'call sites differ: only kmtrace {only_k}, only recount {only_r}')
    for site, want in rc['callers'].items():
        got = rows.get(site)
        for key, val in want.items():
            if got is not None and got.get(key) != val:
                bad.append(f'{site} {key}: kmtrace {got.get(key)} recount {val}')
    if bad:
        print('\n'.join(bad[:30]))
        sys.exit(1)
    s = rc['summary']
    print(f"equal: {len(rows)} call sites, {s['allocations']} allocations, "
          f"{s['frees']} frees, {s['live_objects']} live objects, {s['live_bytes']} live bytes")


if __name__ == '__main__':
    main()
