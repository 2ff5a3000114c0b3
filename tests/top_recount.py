#!/usr/bin/env python3
"""Compare the slab allocations of each `kmtrace top --format json` interval
(argv[1], a JSON document per interval) with a recount, from `trace-cmd
report -t` of a recording of the same seconds (stdin), of the kmalloc and
kmem_cache_alloc events (ptr not 0) between the interval's first and last
event. Both instances stamp each event apart, so an event near a boundary
may fall on the other side: agreement is within 1% or 20 events."""
import json
import re
import sys

LINE = re.compile(r'\s(\d+)\.(\d+): (kmalloc|kmem_cache_alloc):.*\bptr=(0x[0-9a-f]+|\(nil\)|0+\b)')


def intervals(path):
    text, docs, at = open(path).read(), [], 0
    dec = json.JSONDecoder()
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        doc, at = dec.raw_decode(text, at)
        docs.append(doc['analyses']['top']['summary'])
    return docs


def main():
    docs = intervals(sys.argv[1])
    stamps = []
    for line in sys.stdin:
        m = LINE.search(line)
        if m and m.group(4) not in ('(nil)', '0', '0x0'):
            stamps.append(int(m.group(1)) * 10**9 + int(m.group(2).ljust(9, '0')[:9]))
    bad = len(docs) != 3
    print('%d intervals' % len(docs))
    for d in docs:
        n = sum(1 for t in stamps if d['first_ts'] <= t <= d['last_ts'])
        ok = abs(n - d['slab_allocs']) <= max(20, n // 100) and n > 0
        bad |= not ok
        print('interval %d: top %d slab allocations, the recording %d%s' %
              (d['interval'], d['slab_allocs'], n, '' if ok else '  <-- differs'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
