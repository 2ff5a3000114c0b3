#!/usr/bin/env python3
"""Recount page-allocator figures from `trace-cmd report` text, as perf kmem --page does.

Reads the report text on stdin, prints JSON with the summary keys of
`kmtrace report page --format json` and the order x migratetype matrix.
perf kmem's rules: every mm_page_alloc is an allocation request (failures,
shown as page=(nil) pfn=0x0 by trace-cmd, a NULL page -- "(null)" or zeros
-- by the kernel's own text, included); every mm_page_free is a free
request; a free matches when its pfn is live (allocated in the trace and
not freed since); alloc-only = allocations - matched frees; free-only =
unmatched frees. mm_page_free_batched events are counted apart: this
kernel also traces each of those pages with mm_page_free.
"""
import json
import re
import sys

EVENT = re.compile(r'\s(mm_page_alloc|mm_page_free|mm_page_free_batched):\s+(.*)$')
FIELD = re.compile(r'(\w+)=(\S+)')
NULL = re.compile(r'=\s+\(null\)')     # the kernel pads a NULL %p to the pointer's width


def null_page(text):
    return text in ('(nil)', '(null)') or int(text, 16) == 0


def pfn_of(text):
    """pfn=0x%lx (5.14 and later, trace-cmd) or pfn=%lu (older kernels' text)."""
    return int(text, 0)


def main():
    page_size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    c = dict.fromkeys(('alloc', 'alloc_b', 'free', 'free_b', 'match', 'match_b',
                       'nomatch', 'nomatch_b', 'fail', 'fail_b', 'pages_alloc',
                       'pages_freed', 'batched'), 0)
    live = set()
    matrix = {}
    for line in sys.stdin:
        m = EVENT.search(line)
        if not m:
            continue
        f = dict(FIELD.findall(NULL.sub('=(null)', m[2])))
        if m[1] == 'mm_page_free_batched':
            c['batched'] += 1
            continue
        order = int(f['order'])
        size = page_size << order
        pfn = pfn_of(f['pfn'])
        if m[1] == 'mm_page_alloc':
            c['alloc'] += 1
            c['alloc_b'] += size
            if null_page(f['page']):
                c['fail'] += 1
                c['fail_b'] += size
                continue
            live.add(pfn)
            c['pages_alloc'] += 1 << order
            key = (order, int(f['migratetype']))
            matrix[key] = matrix.get(key, 0) + 1
        else:
            c['free'] += 1
            c['free_b'] += size
            c['pages_freed'] += 1 << order
            if pfn in live:
                live.discard(pfn)
                c['match'] += 1
                c['match_b'] += size
            else:
                c['nomatch'] += 1
                c['nomatch_b'] += size
    summary = {
        'alloc_requests': c['alloc'], 'alloc_kib': c['alloc_b'] // 1024,
        'free_requests': c['free'], 'free_kib': c['free_b'] // 1024,
        'alloc_freed_requests': c['match'], 'alloc_freed_kib': c['match_b'] // 1024,
        'alloc_only_requests': c['alloc'] - c['match'],
        'alloc_only_kib': (c['alloc_b'] - c['match_b']) // 1024,
        'free_only_requests': c['nomatch'], 'free_only_kib': c['nomatch_b'] // 1024,
        'alloc_failures': c['fail'], 'alloc_failures_kib': c['fail_b'] // 1024,
        'pages_allocated': c['pages_alloc'], 'pages_freed': c['pages_freed'],
        'batched_free_events': c['batched'],
    }
    json.dump({'summary': summary,
               'matrix': {f'{o},{mt}': n for (o, mt), n in sorted(matrix.items())}},
              sys.stdout, indent=1)
    print()


if __name__ == '__main__':
    main()
