#!/usr/bin/env python3
"""Compare `kmtrace report page --format json` with page_recount.py output.

usage: page_compare.py KMTRACE.json RECOUNT.json
Every recounted summary figure must be equal, mm_page_free_batched events
must repeat an mm_page_free (all but those of a batch cut by the start of
the trace), and the order x migratetype matrix must hold the same counts. Exits 1 listing differences.
"""
import json
import sys


def main():
    km = json.load(open(sys.argv[1]))['analyses']['page']
    rc = json.load(open(sys.argv[2]))
    s, bad = km['summary'], []
    for key, want in rc['summary'].items():
        if s.get(key) != want:
            bad.append(f'summary {key}: kmtrace {s.get(key)} recount {want}')
    # Batched events repeat an mm_page_free; only those at the very start of
    # the trace (a batch cut by the start) may miss theirs.
    if s['batched_free_events'] - s['batched_repeats'] > 256:
        bad.append(f'{s["batched_free_events"] - s["batched_repeats"]} mm_page_free_batched '
                   'events repeat no mm_page_free')
    keys = [k for k in km['tables']['matrix'][0] if k != 'order']
    got = {}
    for row in km['tables']['matrix']:
        for mt, key in enumerate(keys):
            if row[key]:
                got[f'{row["order"]},{mt}'] = row[key]
    if got != rc['matrix']:
        bad.append(f'matrix: kmtrace {got} recount {rc["matrix"]}')
    if bad:
        print('\n'.join(bad[:30]))
        sys.exit(1)
    print(f"equal: {s['alloc_requests']} allocation and {s['free_requests']} free requests, "
          f"{s['alloc_freed_requests']} alloc+freed, {s['pages_allocated']} pages allocated")


if __name__ == '__main__':
    main()
