#!/usr/bin/env python3
"""Freed slab bytes of `perf script -F cpu,time,event,trace` text, two ways.

Prints "STRICT PERF": STRICT pairs each free with the allocation live at its
pointer (kmtrace's rule); PERF is what perf kmem --slab stat counts: its
per-pointer record is never dropped on free, so every free of a pointer
allocated at any earlier time adds that pointer's last allocation size,
also when the allocation live at the free was never traced (builtin-kmem.c,
evsel__process_free_event).
"""
import re
import sys

LINE = re.compile(r'\s*\[\d+\]\s+\d+\.\d+:\s+kmem:(\w+):\s+(.*)')


def ptr(text):
    return 0 if text == '(nil)' else int(text, 16)


live, last, strict, perf = {}, {}, 0, 0
for line in sys.stdin:
    m = LINE.match(line)
    if not m:
        continue
    f = dict(re.findall(r'(\w+)=(\S+)', m[2]))
    if m[1] in ('kmalloc', 'kmem_cache_alloc', 'kmalloc_node', 'kmem_cache_alloc_node'):
        p = ptr(f['ptr'])
        live[p] = last[p] = int(f['bytes_alloc'])
    elif m[1] in ('kfree', 'kmem_cache_free'):
        p = ptr(f['ptr'])
        strict += live.pop(p, 0)
        perf += last.get(p, 0)
print(strict, perf)
