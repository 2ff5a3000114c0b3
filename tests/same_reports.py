#!/usr/bin/env python3
"""Do two JSON reports of the same events give the same slab and page figures?

usage: same_reports.py [--usec] [--no-slab] A.json B.json
Every summary figure and table row of slab and page must be equal (page
alone with --no-slab), but for
what only a trace.dat from kmtrace record carries:
  slab.cpu_nodes        the CPU-to-node map
  page.vmstat_check     /proc/vmstat at start and stop
  caches' aliases       the /sys/kernel/slab links
  per-process rows'     what /proc showed of the task (ppid, executable, ...)
With --usec, B was read from ftrace text, whose times are microseconds (the
kernel rounds): values whose unit is ns are compared rounded to the
microsecond. Exits 1 naming what differs, 0 with a one-line count.
"""
import json
import sys

METADATA = {('slab', 'cpu_nodes'), ('page', 'vmstat_check')}
ROW_METADATA = {'aliases', 'tgid', 'ppid', 'executable', 'cmdline', 'start_time', 'exit_time', 'cgroup',
                'container'}


def usec(v):
    return (v + 500) // 1000 * 1000 if isinstance(v, int) else v


def comparable(value, unit, round_usec):
    return usec(value) if round_usec and unit == 'ns' else value


def main():
    args = sys.argv[1:]
    round_usec = '--usec' in args
    analyses = ('page',) if '--no-slab' in args else ('slab', 'page')
    args = [x for x in args if not x.startswith('--')]
    a, b = (json.load(open(f))['analyses'] for f in args)
    bad, n = [], 0
    for an in analyses:
        units = a[an].get('units', {})
        for k, v in a[an]['summary'].items():
            if (an, k) in METADATA:
                continue
            n += 1
            unit = units.get('summary', {}).get(k)
            got = b[an]['summary'].get(k)
            if comparable(got, unit, round_usec) != comparable(v, unit, round_usec):
                bad.append('%s.%s: %r != %r' % (an, k, v, got))
        for t, rows in a[an].get('tables', {}).items():
            n += len(rows)
            tunits = units.get('tables', {}).get(t, {})

            def strip(rs):
                return [{k: comparable(v, tunits.get(k), round_usec)
                         for k, v in r.items() if k not in ROW_METADATA} for r in rs or []]
            if strip(b[an]['tables'].get(t)) != strip(rows):
                bad.append('%s table %s differs' % (an, t))
    if bad or n < 30:
        sys.exit('  ' + '\n  '.join(bad or ['only %d figures' % n]))
    print('  identical: %d figures and rows' % n)


main()
