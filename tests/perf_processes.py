#!/usr/bin/env python3
"""Check kmtrace's process names and identity against perf script of the same perf.data.

  perf_processes.py pairs SCRIPT EVENTS.jsonl
      SCRIPT is `perf script --ns -F comm,tid,time,event`: the events per
      (pid, comm) pair equal those of `kmtrace report --format jsonl events`
      (each event named as its thread was at its time). Prints the pairs.

  perf_processes.py comms SCRIPT
      Per comm: "COMM ALLOCS PID:FIRST,LAST ..." - the slab allocations
      (kmalloc, kmem_cache_alloc, their _node forms) perf script names so,
      and for each pid the first and last time of its events under that name.

  perf_processes.py tasks TASKS SLAB.json
      TASKS is `perf script --show-task-events`: every pid with a COMM or a
      FORK record has its tgid in slab --pid's JSON rows, every forked or
      exited one its parent, every exec'd one a program whose name is its
      comm. Prints how many rows were checked.
"""
import collections
import json
import re
import sys

LINE = re.compile(r'^\s*(?P<comm>.*?)\s+(?P<tid>\d+)\s+(?P<ts>\d+\.\d+):\s+(?P<event>\S+):')
ALLOCS = {'kmem:kmalloc', 'kmem:kmem_cache_alloc', 'kmem:kmalloc_node',
          'kmem:kmem_cache_alloc_node'}
COMM = re.compile(r'PERF_RECORD_COMM( exec)?: (?P<comm>.*):(?P<pid>\d+)/(?P<tid>\d+)')
FORK = re.compile(r'PERF_RECORD_(?P<kind>FORK|EXIT)\((?P<pid>\d+):(?P<tid>\d+)\):'
                  r'\((?P<ppid>\d+):(?P<ptid>\d+)\)')


def script_events(path):
    for line in open(path):
        m = LINE.match(line)
        if m and m['event'].startswith('kmem:'):
            yield m


def pairs(script, events):
    want = collections.Counter((int(m['tid']), m['comm']) for m in script_events(script))
    got = collections.Counter()
    for line in open(events):
        e = json.loads(line)
        got[(e['pid'], e['comm'])] += 1
    if want != got:
        sys.exit('perf script %s\nkmtrace %s' % (sorted(want.items()), sorted(got.items())))
    print(' '.join('%d/%s:%d' % (p, c, n) for (p, c), n in sorted(want.items())))


def comms(script):
    allocs, spans = collections.Counter(), {}
    for m in script_events(script):
        key = (m['comm'], int(m['tid']))
        first, last = spans.get(key, (m['ts'], m['ts']))
        spans[key] = (min(first, m['ts'], key=float), max(last, m['ts'], key=float))
        allocs[m['comm']] += m['event'] in ALLOCS
    for comm in sorted({c for c, _ in spans}):
        print(comm, allocs[comm], ' '.join('%d:%s,%s' % (pid, *spans[(c, pid)])
                                           for c, pid in sorted(spans) if c == comm))


def tasks(task_events, slab):
    named, parent, comm = set(), {}, {}
    for line in open(task_events):
        m = COMM.search(line)
        if m and m['tid'] != '0':
            named.add(int(m['tid']))
            if m[1]:
                comm[int(m['tid'])] = m['comm']
        m = FORK.search(line)
        if m:
            named.add(int(m['tid']))
            if m['kind'] == 'FORK' or int(m['tid']) not in parent:
                parent.setdefault(int(m['tid']), int(m['ppid']))
    rows = json.load(open(slab))['analyses']['slab']['tables']['pids']
    checked = 0
    for r in rows:
        pid = r['pid']
        if pid not in named:
            continue
        checked += 1
        if r['tgid'] is None:
            sys.exit('pid %d: no tgid' % pid)
        if pid in parent and r['ppid'] != parent[pid]:
            sys.exit('pid %d: ppid %s, perf says %d' % (pid, r['ppid'], parent[pid]))
        if pid in comm and not (r['executable'] or '').endswith('/' + comm[pid]):
            sys.exit('pid %d: executable %s for %s' % (pid, r['executable'], comm[pid]))
    if not checked:
        sys.exit('no row of a named pid')
    print('rows', checked)


if __name__ == '__main__':
    {'pairs': pairs, 'comms': comms, 'tasks': tasks}[sys.argv[1]](*sys.argv[2:])
