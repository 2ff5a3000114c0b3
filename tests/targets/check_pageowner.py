#!/usr/bin/env python3
"""Check what tests/targets/pageowner.sh brought out of a page_owner=on guest.

usage: check_pageowner.py KMTRACE OUT NAME
OUT is pageowner.sh's WORK/out; NAME labels the lines.
  1. owner.dat carries page_owner as kmtrace-record read it at its start:
     `report page --live`'s pages allocated before the recording are within
     1% of page_owner's own count read by the guest as tracing began, while
     the recorder reads it (before.txt), both less the blocks whose
     allocation the trace shows (the first event of their pfn in trace-cmd
     report is mm_page_alloc: the recording's own files, mostly).
  2. Those still held at the end are within 1% of the blocks page_owner
     listed both as tracing began and after the workload (after.txt) with
     the same pfn, order and allocation time (the same allocation), less
     those whose first event in trace-cmd report is their allocation.
  3. tests/pageowner_recount.py: the snapshot the recording keeps,
     recounted with trace-cmd report's first mm_page_alloc or mm_page_free
     of each of its pfns, gives exactly the pages allocated before the
     recording (first event not an allocation), freed in the trace and
     still held; the tables per stack and per module add up to those held,
     in page --live and leak alike; callers are past the allocator frames.
  4. The 32 MiB tmpfs file written before the recording is held by a shmem
     caller.
Prints a line per check; exits 1 if any failed.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import pageowner_recount  # noqa: E402

kmtrace, out, name = sys.argv[1:4]
failed = []


def say(ok, what):
    print('check-targets: %s: %s%s' % (name, '' if ok else 'FAILED: ', what))
    if not ok:
        failed.append(what)


def within(a, b, pct=1.0):
    return abs(a - b) <= max(a, b) * pct / 100.0


def blocks(path):
    """{pfn: (order, ts)} of a "PFN ORDER TS" file."""
    got = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 3:
                got[int(w[0], 0)] = (int(w[1]), int(w[2]))
    return got


def main():
    dat = out + '/owner.dat'
    before, after = blocks(out + '/before.txt'), blocks(out + '/after.txt')
    page = pageowner_recount.recount(kmtrace, dat, say)
    if not page:
        return
    s = page['summary']
    first = pageowner_recount.first_events(dat, before)
    n0 = sum(1 << o for pfn, (o, _) in before.items() if first.get(pfn) != 'mm_page_alloc')
    say(within(s['before_pages'], n0), 'pages allocated before the recording: %d (page_owner '
        'listed %d in %d blocks, %d of them allocated in the trace); page_owner as tracing '
        'began, less those the trace allocated: %d (%+.2f%%)' %
        (s['before_pages'], s['before_listed_pages'], s['before_listed_blocks'],
         s['before_traced_pages'], n0, 100.0 * (s['before_pages'] - n0) / n0))
    kept = sum(1 << o for pfn, (o, ts) in before.items()
               if after.get(pfn) == (o, ts) and first.get(pfn) != 'mm_page_alloc')
    say(within(s['before_held_pages'], kept), 'still held at the end: %d; page_owner before '
        'and after, same allocation, not allocated in the trace: %d (%+.2f%%)' %
        (s['before_held_pages'], kept, 100.0 * (s['before_held_pages'] - kept) / max(kept, 1)))
    held = [row for row in page['tables']['before'] if re.match(r'shmem_', row['caller'])]
    say(held and held[0]['pages'] >= 8192, 'the 32 MiB tmpfs file held through the recording: '
        '%s' % ('; '.join('%d pages by %s' % (r['pages'], r['caller']) for r in held[:2])
                or 'no shmem caller'))


main()
sys.exit(1 if failed else 0)
