#!/usr/bin/env python3
"""Check event lines printed by trace-cmd report, perf script or kmtrace
report --print against the forms kmtrace's plugins print.

usage: plugin_lines.py decoded|stock FILE EVENT...

decoded: every line of a plugin-handled event has the plugin's form and
its figures agree with each other (waste = alloc - req, the size an order
means, the words of an error code); every EVENT named has lines.
stock: no line of a handled event has the plugin's form (but kfree with a
non-NULL pointer and no symbols, which both print alike).
Prints "EVENT N" per event seen; exit 1 on the first bad line.
"""
import re
import sys

SYM = r'(0x[0-9a-f]+|[A-Za-z_.][\w.]*\+0x[0-9a-f]+( \[[\w-]+\])?)'
PTR = r'(0x[0-9a-f]+|NULL)'
SIZE = r'(\d+ B|\d+ [KMGTPE]iB|\d+\.\d\d [KMGTPE]iB)'
PAGES = r'pfn=(0x[0-9a-f]+|-1 \(failed\)) order=(\d+) \((' + SIZE + r'|bad order)\)'
MT = r'(Unmovable|Movable|Reclaimable|HighAtomic|CMA/Isolate|Isolate|type-\d+)'
SLAB_ALLOC = (r'call_site=' + SYM + r' ptr=' + PTR + r'( cache=\S+)? bytes_req=(\d+) '
              r'bytes_alloc=(\d+) waste=(-?\d+) gfp_flags=\S+( node=-?\d+)?( accounted=(true|false))?$')
FORMS = {
    'kmalloc': SLAB_ALLOC,
    'kmem_cache_alloc': SLAB_ALLOC,
    'kfree': r'call_site=' + SYM + r' ptr=' + PTR + r'$',
    'kmem_cache_free': r'call_site=' + SYM + r' ptr=' + PTR + r' cache=\S+$',
    'mm_page_alloc': PAGES + r' migratetype=' + MT + r' gfp_flags=\S+$',
    'mm_page_free': PAGES + r'$',
    'mm_page_free_batched': PAGES + r'$',
    'mm_page_pcpu_drain': PAGES + r' migratetype=' + MT + r'$',
    'mm_page_alloc_zone_locked': PAGES + r' migratetype=' + MT + r'( percpu_refill=-?\d+)?$',
    'page_fault_user': (r'address=0x[0-9a-f]+ ip=' + SYM + r' error_code=0x([0-9a-f]+) '
                        r'\((user|kernel) (read|write|exec) (not-present|protection)([ a-z=0-9x]*)\)$'),
    'rss_stat': r'mm_id=\d+ curr=\d+ member=(file|anon|swap|shmem) size=(-?\d+)( \(' + SIZE + r'\))?$',
    'mark_victim': (r'pid=\d+ comm=\S+ total_vm=' + SIZE + r' anon_rss=' + SIZE + r' file_rss=' + SIZE +
                    r' shmem_rss=' + SIZE + r'( pgtables=' + SIZE + r')?( uid=\d+)?( oom_score_adj=-?\d+)?$'),
    'fault_return': r'(\(' + SYM + r' <- ' + SYM + r'\) )?ret=0x[0-9a-f]+ \([A-Z_|=0-9x]+\)$',
}
FORMS['kmalloc_node'] = FORMS['kmalloc']
FORMS['kmem_cache_alloc_node'] = FORMS['kmem_cache_alloc']
FORMS['page_fault_kernel'] = FORMS['page_fault_user']
LINE = re.compile(r'^.*?\[\d+\]\s+\d+\.\d+:\s+(?:\w+:)?(\w+):\s+(.*)$')
UNITS = {'B': 0, 'KiB': 10, 'MiB': 20, 'GiB': 30, 'TiB': 40, 'PiB': 50, 'EiB': 60}


def size_of(text):
    """Bytes a "16 KiB" text stands for, rounded as printed."""
    num, unit = text.split()
    return float(num) * (1 << UNITS[unit])


def agree(event, m, text):
    """Do the figures of one decoded line agree with each other?"""
    if event.startswith(('kmalloc', 'kmem_cache_alloc')):
        req, alloc, waste = int(m.group(5)), int(m.group(6)), int(m.group(7))
        return waste == alloc - req
    if event.startswith('mm_page'):
        order, size = int(m.group(2)), m.group(4)
        return size is not None and size_of(size) == 4096 << order
    if event.startswith('page_fault'):
        ec = int(m.group(3), 16)
        who, access, kind = m.group(4), m.group(5), m.group(6)
        return (who == ('user' if ec & 4 else 'kernel') and
                kind == ('protection' if ec & 1 else 'not-present') and
                access == ('exec' if ec & 16 else 'write' if ec & 2 else 'read'))
    if event == 'rss_stat' and m.group(3):
        return abs(size_of(m.group(4)) - int(m.group(2))) <= int(m.group(2)) / 200
    return True


def main():
    mode, path, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    seen = {}
    for n, line in enumerate(open(path, errors='replace'), 1):
        m = LINE.match(line.rstrip('\n'))
        if not m or m.group(1) not in FORMS:
            continue
        event, text = m.group(1), m.group(2)
        seen[event] = seen.get(event, 0) + 1
        d = re.match(FORMS[event], text)
        if mode == 'decoded' and not (d and agree(event, d, text)):
            print('%s:%d: %s: not the plugin form: %s' % (path, n, event, text))
            return 1
        if mode == 'stock' and d and not (event == 'kfree' and ' ptr=0x' in text):
            print('%s:%d: %s: plugin form where stock was expected: %s' % (path, n, event, text))
            return 1
    for event in sorted(seen):
        print('  %s %d' % (event, seen[event]))
    missing = [e for e in wanted if e not in seen]
    if missing:
        print('no lines of: ' + ' '.join(missing))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
