#!/usr/bin/env python3
"""Recount slab figures from `trace-cmd report -t` or ftrace text, independently of kmtrace.

Reads the report text (or `cat trace` of an instance) on stdin and prints JSON: {"summary": {...}, "callers":
{call_site: {...}}}, with the keys of `kmtrace report slab --format json`.
With --map FILE (a System.map or kallsyms), call sites printed as
addresses (bare hex, as kernels before 5.6 print them, or 0x) are named
"func+0xOFF" through it; a NULL pointer may read "(null)", padded.
Rules (the ones kmtrace documents): allocations and frees pair by pointer;
a NULL allocation is failed; a free of NULL/ZERO_SIZE_PTR (<= 16) is a null
free; a free of a pointer not live is unmatched; an allocation over a live
pointer replaces that object. With --pid, only allocations by those pids are
counted, frees count when they free such an allocation, and unmatched or
null frees count when the freeing pid is one of them. CPUs are taken as
node 0 (the machines this runs on have one node).
"""
import argparse
import json
import re
import sys

# trace-cmd report's lines, and `cat trace`'s with the irq-info column
LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:[^\s:]+\s+)?'
                  r'(?P<sec>\d+)\.(?P<frac>\d+):\s+(?P<event>\w+):\s+(?P<rest>.*)$')
FIELD = re.compile(r'(\w+)=(\S+)')
SIZE = re.compile(r'/0x[0-9a-f]+$')	# the kernel's %pS: func+0xOFF/0xSIZE
ALLOCS = {'kmalloc', 'kmalloc_node', 'kmem_cache_alloc', 'kmem_cache_alloc_node'}
FREES = {'kfree', 'kmem_cache_free'}
STAT_KEYS = ('bytes_alloc', 'bytes_req', 'hits', 'frees', 'live_bytes', 'live_req',
             'live_objects', 'max_live_bytes', 'pingpong')


def new_stat():
    return dict.fromkeys(STAT_KEYS, 0)


def add(st, obj):
    st['bytes_alloc'] += obj['alloc']
    st['bytes_req'] += obj['req']
    st['hits'] += 1
    st['live_bytes'] += obj['alloc']
    st['live_req'] += obj['req']
    st['live_objects'] += 1
    st['max_live_bytes'] = max(st['max_live_bytes'], st['live_bytes'])


def drop(st, obj):
    st['live_bytes'] -= obj['alloc']
    st['live_req'] -= obj['req']
    st['live_objects'] -= 1


NULL = re.compile(r'=\s+\(null\)')     # the kernel pads a NULL %p to the pointer's width
ADDRESS = re.compile(r'^(0x[0-9a-f]+|[0-9a-f]{8,16})$')


def ptr_num(text):
    """A pointer: 0x-prefixed (trace-cmd) or bare hex, hashed or not (the kernel's %p)."""
    return 0 if text in ('(nil)', '(null)') else int(text, 16)


class SymbolMap:
    """Functions of a System.map or kallsyms: the last symbol at or below an address."""

    def __init__(self, path):
        self.syms = []
        for line in open(path):
            parts = line.split()
            if len(parts) >= 3 and parts[1] not in 'aA':
                self.syms.append((int(parts[0], 16), parts[2]))
        self.syms.sort()

    def name(self, site):
        if not self.syms or not ADDRESS.match(site):
            return site
        addr = int(site, 16)
        best = None
        for start, name in self.syms:
            if start > addr:
                break
            best = (start, name)
        if best is None or addr > self.syms[-1][0]:
            return site
        return '%s+0x%x' % (best[1], addr - best[0])


def num(text):
    """A field value: decimal, 0x hex, or "(nil)" for a NULL pointer."""
    return 0 if text == '(nil)' else int(text, 0)


class Recount:
    def __init__(self, pids, names):
        self.pids = pids
        self.names = names
        self.total = new_stat()
        self.callers = {}
        self.live = {}
        self.c = dict.fromkeys(('failed', 'null', 'unmatched', 'replaced', 'replaced_bytes',
                                'freed', 'peak', 'peak_ts', 'node_allocs', 'cross'), 0)

    def wanted(self, pid):
        return not self.pids or pid in self.pids

    def alloc(self, ev, f):
        ptr = ptr_num(f['ptr'])
        sel = self.wanted(ev['pid'])
        if ptr == 0:
            self.c['failed'] += sel
            return
        old = self.live.pop(ptr, None)
        if old and old['sel']:
            drop(self.total, old)
            drop(self.callers[old['site']], old)
            self.c['replaced'] += 1
            self.c['replaced_bytes'] += old['alloc']
        obj = {'alloc': num(f['bytes_alloc']), 'req': num(f['bytes_req']),
               'site': self.names.name(SIZE.sub('', f['call_site'])), 'cpu': ev['cpu'],
               'sel': sel}
        self.live[ptr] = obj
        if not sel:
            return
        add(self.total, obj)
        add(self.callers.setdefault(obj['site'], new_stat()), obj)
        if 'node' in f:
            self.c['node_allocs'] += 1
            node = int(f['node'])
            self.c['cross'] += node >= 0 and node != 0
        if self.total['live_bytes'] > self.c['peak']:
            self.c['peak'] = self.total['live_bytes']
            self.c['peak_ts'] = ev['ts']

    def free(self, ev, f):
        ptr = ptr_num(f['ptr'])
        if ptr <= 16:
            self.c['null'] += self.wanted(ev['pid'])
            return
        obj = self.live.pop(ptr, None)
        if obj is None:
            self.c['unmatched'] += self.wanted(ev['pid'])
            return
        if not obj['sel']:
            return
        pingpong = obj['cpu'] != ev['cpu']
        for st in (self.total, self.callers[obj['site']]):
            drop(st, obj)
            st['frees'] += 1
            st['pingpong'] += pingpong
        self.c['freed'] += obj['alloc']

    def summary(self):
        t, c = self.total, self.c
        return {
            'allocations': t['hits'], 'frees': t['frees'], 'unmatched_frees': c['unmatched'],
            'null_frees': c['null'], 'failed_allocations': c['failed'],
            'bytes_requested': t['bytes_req'], 'bytes_allocated': t['bytes_alloc'],
            'bytes_freed': c['freed'], 'net_bytes': t['bytes_alloc'] - c['freed'],
            'bytes_wasted': t['bytes_alloc'] - t['bytes_req'],
            'live_objects': t['live_objects'], 'live_bytes': t['live_bytes'],
            'live_waste': t['live_bytes'] - t['live_req'], 'peak_live_bytes': c['peak'],
            'peak_live_ts': c['peak_ts'], 'replaced_allocations': c['replaced'],
            'replaced_bytes': c['replaced_bytes'], 'pingpong_frees': t['pingpong'],
            'cross_node_allocations': c['cross'], 'node_allocations': c['node_allocs'],
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--pid', type=lambda s: {int(p) for p in s.split(',')}, default=set())
    ap.add_argument('--usec', action='store_true',
                    help='accept microsecond timestamps (cat trace)')
    ap.add_argument('--map', help='System.map or kallsyms naming address call sites')
    args = ap.parse_args()
    rc = Recount(args.pid, SymbolMap(args.map) if args.map else SymbolMap('/dev/null'))
    for line in sys.stdin:
        m = LINE.match(line)
        if not m or m['event'] not in ALLOCS | FREES:
            continue
        if len(m['frac']) != 9 and not args.usec:
            sys.exit('slab_recount: need nanosecond timestamps (trace-cmd report -t), or --usec')
        ev = {'pid': int(m['pid']), 'cpu': int(m['cpu']),
              'ts': int(m['sec']) * 10**9 + int(m['frac'].ljust(9, '0'))}
        fields = dict(FIELD.findall(NULL.sub('=(null)', m['rest'])))
        (rc.alloc if m['event'] in ALLOCS else rc.free)(ev, fields)
    callers = {}
    for site, st in rc.callers.items():
        row = {k: v for k, v in st.items() if k != 'live_req'}
        row['live_waste'] = st['live_bytes'] - st['live_req']
        callers[site] = row
    json.dump({'summary': rc.summary(), 'callers': callers}, sys.stdout, indent=1)
    print()


if __name__ == '__main__':
    main()
