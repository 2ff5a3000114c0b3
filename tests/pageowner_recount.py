#!/usr/bin/env python3
"""Recount what kmtrace reports of a recording's page_owner snapshot.

usage: pageowner_recount.py KMTRACE RECORDING
The snapshot kmtrace record kept (its option text, found by its first line,
read here without kmtrace) is followed through trace-cmd report's first
mm_page_alloc or mm_page_free of each of its pfns: the pages allocated
before the recording (first event not an allocation), freed in the trace
and still held must equal `report page --live`'s; in page --live and leak
the tables per stack and per module add up to those held; every caller is
past the allocator frames. Prints a line per check; exits 1 if any failed.
Also imported by tests/targets/check_pageowner.py (recount()).
"""
import json
import re
import subprocess
import sys


def first_events(dat, blocks):
    """Per pfn of @blocks: the first of mm_page_alloc and mm_page_free trace-cmd report shows."""
    text = subprocess.run(['trace-cmd', 'report', dat], capture_output=True, text=True).stdout
    first = {}
    for m in re.finditer(r'(mm_page_alloc|mm_page_free):.*?pfn=(0x[0-9a-fA-F]+|\d+)', text):
        pfn = int(m.group(2), 0)
        if pfn in blocks and pfn not in first:
            first[pfn] = m.group(1)
    return first


def recorded_snapshot(dat):
    """{pfn: order} of the page_owner text kept in @dat."""
    data = open(dat, 'rb').read()
    at = data.find(b'page_owner 1 ')
    got = {}
    for line in data[at:].split(b'\n')[1:] if at >= 0 else []:
        w = line.split()
        if line.startswith(b'page ') and len(w) >= 8:
            got[int(w[1])] = int(w[2])
        elif not line.startswith((b'stack ', b' ')):
            break
    return got


def report(kmtrace, dat, say, *args):
    """The JSON of `kmtrace report -i @dat ANALYSIS ... --format json`, or None."""
    p = subprocess.run([kmtrace, 'report', '-i', dat] + list(args) + ['--format', 'json'],
                       capture_output=True, text=True)
    if p.returncode:
        say(False, 'kmtrace report %s: exit %d: %s' % (' '.join(args), p.returncode,
                                                       p.stderr.strip()))
        return None
    return json.loads(p.stdout)['analyses'][args[0]]


def recount(kmtrace, dat, say):
    """The checks above through @say(ok, what); page --live's JSON, or None."""
    page = report(kmtrace, dat, say, 'page', '--live')
    leak = report(kmtrace, dat, say, 'leak')
    if not page or not leak:
        return None
    s = page['summary']
    if 'before_pages' not in s:
        say(False, '%s: no page_owner snapshot in the report' % dat)
        return None
    snap = recorded_snapshot(dat)
    first = first_events(dat, snap)
    again = sum(1 << snap[pfn] for pfn, ev in first.items() if ev == 'mm_page_alloc')
    freed = sum(1 << snap[pfn] for pfn, ev in first.items() if ev == 'mm_page_free')
    total = sum(1 << o for o in snap.values())
    want = (total, total - again, freed, total - again - freed)
    got = (s['before_listed_pages'], s['before_pages'], s['before_freed_pages'],
           s['before_held_pages'])
    say(got == want, 'the recorded snapshot (%d blocks) recounted with trace-cmd report\'s first '
        'event per pfn: listed %d, before %d, freed in the trace %d, held %d; kmtrace: %d, %d, '
        '%d, %d' % ((len(snap),) + want + got))
    for what, r in (('page --live', page), ('leak', leak)):
        tables = r['tables']
        per_stack = sum(row['pages'] for row in tables['before'])
        per_mod = sum(row['pages'] for row in tables['before_modules'])
        say(per_stack == per_mod == s['before_held_pages'],
            '%s: per stack %d pages (%d stacks), per module %d (%s)' %
            (what, per_stack, len(tables['before']), per_mod,
             ', '.join('%s %d' % (m['module'], m['pages'])
                       for m in tables['before_modules'][:4])))
    rows = page['tables']['before']
    inside = [row['caller'] for row in rows
              if re.match(r'_*(post_alloc_hook|prep_new_page|get_page_from_freelist|alloc_pages)',
                          row['caller'])]
    say(rows and not inside, 'callers past the allocator frames (%d stacks); top: %s' %
        (len(rows), rows[0]['caller'] if rows else '-'))
    return page


if __name__ == '__main__':
    failed = []

    def say(ok, what):
        print('%s%s' % ('' if ok else 'FAILED: ', what))
        if not ok:
            failed.append(what)

    recount(sys.argv[1], sys.argv[2], say)
    sys.exit(1 if failed else 0)
