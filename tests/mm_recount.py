#!/usr/bin/env python3
"""Recount compaction, vmalloc, percpu, pagecache and memcg from `trace-cmd
report -t` text on stdin, independently of kmtrace, and compare with
kmtrace's JSON of the same recording (argv[1], from `report --format json
compaction vmalloc percpu pagecache memcg -l 0`).  One line per analysis;
exit 1 when a figure differs.

The rules are the kernel's: a compaction run is mm_compaction_begin to the
same task's mm_compaction_end; vmap areas and percpu objects pair by
address; page-cache pages count 1 << order per add or delete; memcg
updates sum their val per cgroup, kind and item.
"""
import json
import re
import sys
from collections import Counter, defaultdict

LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<sec>\d+)\.(?P<frac>\d+):'
                  r'\s+(?P<event>\w+):\s*(?P<rest>.*)$')
FIELD = re.compile(r'(\w+)[=:]\s?(\S+)')


def fields(rest):
    return dict(FIELD.findall(rest))


def num(text):
    text = text.rstrip(',')
    return int(text, 16) if text.startswith('0x') else int(text)


def events(lines):
    for line in lines:
        m = LINE.match(line)
        if m:
            ts = int(m['sec']) * 10**9 + int(m['frac'].ljust(9, '0')[:9])
            yield int(m['pid']), ts, m['event'], m['rest']


class Compaction:
    def __init__(self):
        self.open = {}
        self.procs = defaultdict(lambda: Counter(runs=0, succeeded=0, time=0, lat_max=0))
        self.statuses = Counter()
        self.s = Counter()

    def take(self, pid, ts, ev, rest):
        f = fields(rest)
        if ev == 'mm_compaction_begin':
            self.open[pid] = ts
        elif ev == 'mm_compaction_end':
            self.statuses[f['status']] += 1
            if pid not in self.open:
                self.s['unpaired_ends'] += 1
                return
            ns = ts - self.open.pop(pid)
            p = self.procs[pid]
            p['runs'] += 1
            p['time'] += ns
            p['lat_max'] = max(p['lat_max'], ns)
            p['succeeded'] += f['status'] == 'success'
        elif ev == 'mm_compaction_isolate_migratepages':
            self.s['migrate_scanned'] += num(f['nr_scanned'])
            self.s['migrate_isolated'] += num(f['nr_taken'])
        elif ev in ('mm_compaction_isolate_freepages', 'mm_compaction_fast_isolate_freepages'):
            self.s['free_scanned'] += num(f['nr_scanned'])
            self.s['free_isolated'] += num(f['nr_taken'])
        elif ev == 'mm_compaction_migratepages':
            self.s['migrated'] += num(f['nr_migrated'])
            self.s['migrate_failed'] += num(f['nr_failed'])
        elif ev == 'mm_compaction_kcompactd_wake':
            self.s['kcompactd_wakes'] += 1
        elif ev == 'mm_compaction_wakeup_kcompactd':
            self.s['kcompactd_wakeup_requests'] += 1

    def compare(self, a):
        s = dict(self.s, runs=sum(p['runs'] for p in self.procs.values()),
                 succeeded=sum(p['succeeded'] for p in self.procs.values()))
        diffs = [k for k in ('runs', 'succeeded', 'unpaired_ends', 'migrate_scanned',
                             'migrate_isolated', 'free_scanned', 'free_isolated', 'migrated',
                             'migrate_failed', 'kcompactd_wakes', 'kcompactd_wakeup_requests')
                 if a['summary'][k] != s.get(k, 0)]
        rows = {r['pid']: r for r in a['tables']['processes']}
        for pid, p in self.procs.items():
            if any(rows.get(pid, {}).get(k) != v for k, v in p.items()):
                diffs.append(f'pid {pid}')
        if {r['status']: r['runs'] for r in a['tables']['statuses']} != dict(self.statuses):
            diffs.append('statuses')
        return diffs, f"{s['runs']} runs, {s['migrated']} pages migrated, {len(self.procs)} processes"


class Areas:
    """vmalloc (rows per pid) or percpu (rows per call site): paired by address."""

    def __init__(self, kind):
        self.kind = kind
        self.rows = defaultdict(lambda: Counter(allocs=0, frees=0, failed=0, bytes=0,
                                                freed_bytes=0, live=0, live_bytes=0))
        self.live = {}
        self.s = Counter()

    def alloc(self, key, addr, size, failed):
        r = self.rows[key]
        if failed:
            r['failed'] += 1
            return
        r['allocs'] += 1
        r['bytes'] += size
        r['live'] += 1
        r['live_bytes'] += size
        self.live[addr] = (key, size)

    def free(self, addr):
        if addr not in self.live:
            self.s['unmatched_frees'] += 1
            return
        key, size = self.live.pop(addr)
        r = self.rows[key]
        r['frees'] += 1
        r['freed_bytes'] += size
        r['live'] -= 1
        r['live_bytes'] -= size

    def take(self, pid, ts, ev, rest):
        f = fields(rest)
        if self.kind == 'vmalloc':
            if ev == 'alloc_vmap_area':
                self.alloc(pid, num(f['va_start']), num(f['size']), num(f['failed']) != 0)
            elif ev == 'free_vmap_area_noflush':
                self.free(num(f['va_start']))
            elif ev == 'purge_vmap_area_lazy':
                self.s['purges'] += 1
                self.s['purged_areas'] += max(num(f['npurged']), 0)
        elif ev == 'percpu_alloc_percpu':
            self.alloc(num(f['call_site']), num(f['ptr']), num(f['bytes_alloc']), False)
        elif ev == 'percpu_alloc_percpu_fail':
            self.alloc(0, 0, 0, True)
        elif ev == 'percpu_free_percpu':
            self.free(num(f['ptr']))
        elif ev == 'percpu_create_chunk':
            self.s['chunks_created'] += 1
        elif ev == 'percpu_destroy_chunk':
            self.s['chunks_destroyed'] += 1

    def compare(self, a):
        rows = list(self.rows.values())
        s = dict(self.s, allocs=sum(r['allocs'] for r in rows),
                 bytes=sum(r['bytes'] for r in rows),
                 live_bytes=sum(r['live_bytes'] for r in rows))
        keys = ['allocs', 'bytes', 'live_bytes', 'unmatched_frees']
        keys += ['purges', 'purged_areas'] if self.kind == 'vmalloc' else \
            ['chunks_created', 'chunks_destroyed']
        diffs = [k for k in keys if a['summary'][k] != s.get(k, 0)]
        cols = ('allocs', 'frees', 'failed', 'bytes', 'freed_bytes', 'live', 'live_bytes')
        # rows as value tuples: call sites may be named by symbols or not
        theirs = sorted(tuple(r[c] for c in cols) for r in a['tables']['callers'])
        ours = sorted(tuple(r[c] for c in cols) for r in rows)
        if theirs != ours:
            diffs.append('rows')
        return diffs, f"{s['allocs']} allocations, {s['bytes']} bytes, {len(rows)} rows"


class Pagecache:
    def __init__(self):
        self.files = defaultdict(lambda: Counter(added=0, removed=0, faults=0, reads=0,
                                                 map_pages=0, wb_errors=0))

    def take(self, pid, ts, ev, rest):
        m = re.search(r'dev[ =](\d+):(\d+) ino[ =]([0-9a-f]+)', rest)
        if not m or not ev.startswith(('mm_filemap_', 'filemap_')):
            return
        f = self.files[(f'{m[1]}:{m[2]}', int(m[3], 16))]
        if ev in ('mm_filemap_add_to_page_cache', 'mm_filemap_delete_from_page_cache'):
            pages = 1 << num(fields(rest).get('order', '0'))
            f['added' if ev.endswith('add_to_page_cache') else 'removed'] += pages
        else:
            f[{'mm_filemap_fault': 'faults', 'mm_filemap_get_pages': 'reads',
               'mm_filemap_map_pages': 'map_pages', 'filemap_set_wb_err': 'wb_errors'}.get(ev, 'other')] += 1

    def compare(self, a):
        diffs = []
        added = sum(f['added'] for f in self.files.values())
        removed = sum(f['removed'] for f in self.files.values())
        if (a['summary']['files'], a['summary']['added'], a['summary']['removed']) != \
                (len(self.files), added, removed):
            diffs.append('summary')
        rows = {(r['device'], r['inode']): r for r in a['tables']['files']}
        for key, f in self.files.items():
            if any(rows.get(key, {}).get(k) != v for k, v in f.items() if k != 'other'):
                diffs.append(f'file {key}')
        return diffs, f"{len(self.files)} files, {added} pages added, {removed} removed"


class Memcg:
    def __init__(self):
        self.groups = defaultdict(lambda: Counter(updates=0, flushes=0))
        self.items = defaultdict(lambda: Counter(updates=0, total=0))

    def take(self, pid, ts, ev, rest):
        kind = {'mod_memcg_state': 'memcg_state', 'mod_memcg_lruvec_state': 'lruvec_state',
                'count_memcg_events': 'event'}.get(ev)
        f = fields(rest)
        if ev == 'memcg_flush_stats':
            self.groups[num(f['memcg_id'])]['flushes'] += 1
        elif kind:
            g = num(f['memcg_id'])
            self.groups[g]['updates'] += 1
            i = self.items[(g, kind, num(f['item']))]
            i['updates'] += 1
            i['total'] += num(f['val'])

    def compare(self, a):
        diffs = []
        groups = {r['memcg_id']: r for r in a['tables']['cgroups']}
        items = {(r['memcg_id'], r['kind'], r['item']): r for r in a['tables']['statistics']}
        if a['summary']['cgroups'] != len(self.groups) or len(items) != len(self.items):
            diffs.append('counts')
        for g, c in self.groups.items():
            if any(groups.get(g, {}).get(k) != v for k, v in c.items()):
                diffs.append(f'cgroup {g}')
        for key, c in self.items.items():
            if any(items.get(key, {}).get(k) != v for k, v in c.items()):
                diffs.append(f'item {key}')
        n = sum(c['updates'] for c in self.groups.values())
        return diffs, f"{len(self.groups)} cgroups, {len(self.items)} statistics, {n} updates"


def main():
    doc = json.load(open(sys.argv[1]))['analyses']
    counters = {'compaction': Compaction(), 'vmalloc': Areas('vmalloc'),
                'percpu': Areas('percpu'), 'pagecache': Pagecache(), 'memcg': Memcg()}
    for e in events(sys.stdin):
        for c in counters.values():
            c.take(*e)
    bad = False
    for name, c in counters.items():
        diffs, what = c.compare(doc[name])
        print(f"{name}: {what}: {'differs: ' + ', '.join(diffs[:5]) if diffs else 'equal'}")
        bad = bad or bool(diffs)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
