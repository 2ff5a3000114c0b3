#!/usr/bin/env python3
"""Recount reclaim stalls from `trace-cmd report -t` text on stdin and
compare them with kmtrace's reclaim JSON (argv[1]) for process argv[2]:
stalls, pages reclaimed, p50, p99 and max latency per context."""
import json
import re
import sys

LINE = re.compile(r'-(\d+)\s+\[\d+\]\s+(\d+)\.(\d+): mm_vmscan_(direct|memcg|memcg_softlimit|node)'
                  r'_reclaim_(begin|end):(?:.*nr_reclaimed=(\d+))?')


def recount(lines, pid):
    open_at, stalls = {}, {}
    for line in lines:
        m = LINE.search(line)
        if not m or int(m.group(1)) != pid:
            continue
        ts = int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0')[:9])
        kind = m.group(4)
        if m.group(5) == 'begin':
            open_at[kind] = ts
        elif kind in open_at:
            stalls.setdefault(kind, []).append((ts - open_at.pop(kind), int(m.group(6))))
    return stalls


def nearest_rank(sorted_ns, pct):
    rank = (len(sorted_ns) * pct + 99) // 100
    return sorted_ns[max(rank, 1) - 1]


def main():
    kmt = json.load(open(sys.argv[1]))['analyses']['reclaim']['tables']['processes']
    pid = int(sys.argv[2])
    stalls = recount(sys.stdin, pid)
    bad = 0
    if not stalls:
        print('no reclaim stalls of pid %d in trace-cmd report' % pid)
        return 1
    for kind, items in sorted(stalls.items()):
        ns = sorted(n for n, _ in items)
        want = {'stalls': len(items), 'reclaimed': sum(r for _, r in items),
                'lat_p50': nearest_rank(ns, 50), 'lat_p99': nearest_rank(ns, 99), 'lat_max': ns[-1]}
        rows = [r for r in kmt if r['pid'] == pid and r['context'] == kind]
        got = rows[0] if rows else {}
        for key, value in want.items():
            same = got.get(key) == value
            bad += not same
            print('%s %s: kmtrace %s, trace-cmd report %s%s' %
                  (kind, key, got.get(key), value, '' if same else '  <-- differs'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
