#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""Recount a report's tables with SQL over the events of its database.

  sql_recount.py DB REPORT.json

DB is `kmtrace report --format sqlite` of a recording, REPORT.json the
JSON report of the same recording (slab, page, fault, vm). Each figure
below is counted again by SQLite from the event tables alone and must
equal the report's:
- slab callers: allocations, bytes allocated and requested per call site;
- page orders: allocations per order (the matrix's row sums);
- fault classes per process: user, kernel, read, write, exec, protection,
  not present (x86's error_code bits);
- vm per process: mmap, munmap and brk calls.
Also the database's own copy of every report table must hold the report's
rows. Prints what it compared; exits 1 on the first difference."""
import json
import sqlite3
import sys

SLAB_EVENTS = ('kmem_kmalloc', 'kmem_kmem_cache_alloc', 'kmem_kmalloc_node',
               'kmem_kmem_cache_alloc_node')


def fail(what):
    print('sql_recount: MISMATCH: %s' % what)
    sys.exit(1)


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def compare(what, sql_rows, report_rows):
    if sql_rows != report_rows:
        only_sql = {k: v for k, v in sql_rows.items() if report_rows.get(k) != v}
        only_rep = {k: v for k, v in report_rows.items() if sql_rows.get(k) != v}
        fail('%s: SQL %s, report %s' % (what, sorted(only_sql.items())[:5],
                                         sorted(only_rep.items())[:5]))
    print('sql_recount: %s: %d rows equal' % (what, len(sql_rows)))
    return len(sql_rows)


def slab_callers(db, have, report):
    rows = report.get('slab', {}).get('tables', {}).get('callers')
    parts = [t for t in SLAB_EVENTS if t in have]
    if rows is None or not parts:
        return 0
    union = ' UNION ALL '.join('SELECT call_site, bytes_alloc, bytes_req FROM %s' % t
                               for t in parts)
    sql = {r[0]: r[1:] for r in db.execute(
        'SELECT s.symbol, count(*), sum(a.bytes_alloc), sum(a.bytes_req) FROM (%s) a '
        'JOIN symbols s ON s.addr = a.call_site GROUP BY s.symbol' % union)}
    rep = {r['callsite']: (r['hits'], r['bytes_alloc'], r['bytes_req']) for r in rows}
    return compare('slab callers (hits, bytes allocated, requested)', sql, rep)


def page_orders(db, have, report):
    rows = report.get('page', {}).get('tables', {}).get('matrix')
    if rows is None or 'kmem_mm_page_alloc' not in have:
        return 0
    sql = {r[0]: r[1] for r in db.execute(
        'SELECT "order", count(*) FROM kmem_mm_page_alloc GROUP BY "order"')}
    rep = {r['order']: sum(v for k, v in r.items() if k != 'order') for r in rows}
    rep = {k: v for k, v in rep.items() if v}
    return compare('page allocations per order', sql, rep)


FAULT_CLASSES = {
    'user': "kind = 'user'", 'kernel': "kind = 'kernel'",
    'write': 'error_code & 2 != 0', 'exec': 'error_code & 16 != 0',
    'read': 'error_code & 18 = 0', 'protection': 'error_code & 1 != 0',
    'not_present': 'error_code & 1 = 0',
}


def fault_classes(db, have, report):
    rows = report.get('fault', {}).get('tables', {}).get('processes')
    parts = [(t, k) for t, k in (('exceptions_page_fault_user', 'user'),
                                 ('exceptions_page_fault_kernel', 'kernel')) if t in have]
    if rows is None or not parts:
        return 0
    union = ' UNION ALL '.join("SELECT pid, error_code, '%s' AS kind FROM %s" % (k, t)
                          for t, k in parts)
    # where the report does not know the architecture's error_code bits, only user and kernel
    classes = [k for k in FAULT_CLASSES
               if k in ('user', 'kernel') or any(r['read'] + r['write'] + r['exec'] for r in rows)]
    cols = ', '.join('sum(%s)' % FAULT_CLASSES[c] for c in classes)
    sql = {r[0]: r[1:] for r in db.execute(
        'SELECT pid, %s FROM (%s) GROUP BY pid' % (cols, union))}
    rep = {r['pid']: tuple(r[k] for k in classes) for r in rows}
    return compare('fault classes per process (%s)' % ', '.join(classes), sql, rep)


VM_CALLS = (('mmaps', 'syscalls_sys_exit_mmap'), ('munmaps', 'syscalls_sys_exit_munmap'),
            ('brks', 'syscalls_sys_exit_brk'))


def vm_calls(db, have, report):
    rows = report.get('vm', {}).get('tables', {}).get('mappings')
    if rows is None or not any(t in have for _, t in VM_CALLS):
        return 0
    counts = {}
    for i, (_, t) in enumerate(VM_CALLS):
        if t not in have:
            continue
        for pid, n in db.execute('SELECT pid, count(*) FROM %s GROUP BY pid' % t):
            counts.setdefault(pid, [0] * len(VM_CALLS))[i] = n
    sql = {pid: tuple(v) for pid, v in counts.items()}
    rep = {r['pid']: tuple(r[k] for k, _ in VM_CALLS) for r in rows
           if any(r[k] for k, _ in VM_CALLS)}
    return compare('vm calls per process (mmap, munmap, brk)', sql, rep)


def table_copies(db, report):
    n = 0
    for analysis, section in report.get('analyses', {}).items():
        for name, rows in section.get('tables', {}).items():
            cols = [r[0] for r in db.execute(
                'SELECT name FROM report_columns WHERE tbl = ? ORDER BY position',
                ('%s_%s' % (analysis, name),))]
            got = [dict(zip(cols, r)) for r in
                   db.execute('SELECT * FROM "%s_%s" ORDER BY rowid' % (analysis, name))]
            want = [{k: (v & (2**64 - 1)) - (2**64 if v >= 2**63 else 0)
                     if isinstance(v, int) and v >= 2**63 else v
                     for k, v in r.items() if k in cols} for r in rows]
            for g, w in zip(got, want):
                for k in cols:
                    a, b = g[k], w[k]
                    if isinstance(a, float) or isinstance(b, float):
                        # JSON gives 6 significant digits
                        if b is None or abs(a - b) > 1e-5 * max(1, abs(b)):
                            fail('%s.%s: %s %r against %r' % (analysis, name, k, a, b))
                    elif a != b:
                        fail('%s.%s: %s %r against %r' % (analysis, name, k, a, b))
            if len(got) != len(want):
                fail('%s.%s: %d rows, report %d' % (analysis, name, len(got), len(want)))
            n += 1
    print('sql_recount: %d report tables equal in the database' % n)


def main():
    db = sqlite3.connect('file:%s?mode=ro' % sys.argv[1], uri=True)
    with open(sys.argv[2]) as f:
        report = json.load(f)
    have = tables(db)
    analyses = report.get('analyses', {})
    n = (slab_callers(db, have, analyses) + page_orders(db, have, analyses) +
         fault_classes(db, have, analyses) + vm_calls(db, have, analyses))
    table_copies(db, report)
    events = db.execute('SELECT count(*) FROM events').fetchone()[0]
    total = analyses.get('stat', {}).get('summary', {}).get('total_events')
    if total is not None and events != total:
        fail('events: %d in the database, stat counts %d' % (events, total))
    print('sql_recount: %d events, %d recounted rows' % (events, n))


if __name__ == '__main__':
    main()
