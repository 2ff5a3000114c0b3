#!/usr/bin/env python3
"""Check page -s KEY and -l on kmtrace's JSON.

  page_sort_check.py KEY SORTED.json DEFAULT.json
      Every page table of SORTED.json (made with -s KEY) that has KEY is in
      KEY's order (counts biggest first; order, migratetype, gfp, pid and
      caller ascending), holds the rows of DEFAULT.json's table (made
      without -s), and rows equal on KEY keep DEFAULT's order. Prints the
      tables checked.

  page_sort_check.py --lines N LIMITED.json DEFAULT.json
      Every table of LIMITED.json (made with -l N) holds the first N rows
      of DEFAULT.json's table.
"""
import json
import sys

# table -> {key: column, or a function of the row}; None: the table's own order
COUNTS = {"pages": "pages", "allocs": "allocs", "frees": "frees", "live": "live_pages"}
KEYS = {
    "orders": dict(COUNTS, order="order"),
    "migratetypes": dict(COUNTS, migratetype=None),
    "gfp": dict(COUNTS, gfp="gfp"),
    "pids": {"pages": "pages_allocated", "allocs": "allocs", "frees": "frees",
             "live": "net_pages", "pid": "pid"},
    "callers": dict(COUNTS, caller=lambda r: r["caller"].split(" [")[0]),
    "stacks": dict(COUNTS),
    "live": {"pages": lambda r: 1 << r["order"], "live": lambda r: 1 << r["order"],
             "order": "order", "migratetype": None, "pid": "pid", "gfp": None},
}
ASCENDING = ("order", "migratetype", "gfp", "pid", "caller")


def tables(path):
    return json.load(open(path))["analyses"]["page"]["tables"]


def ranks(d):
    """Enum and flag values by their rank in the default tables (which are in their order)."""
    return {"migratetype": [r["migratetype"] for r in d["migratetypes"]],
            "gfp": [r["flags"] for r in d["gfp"]]}


def value(key, col, row, rank):
    if col is None:
        return rank[key].index(row[key])
    return col(row) if callable(col) else row[col]


def check_sorted(key, sorted_path, default_path):
    s, d = tables(sorted_path), tables(default_path)
    rank, checked = ranks(d), []
    for name, cols in KEYS.items():
        if key not in cols or name not in s:
            continue
        rows = s[name]
        if sorted(map(json.dumps, rows)) != sorted(map(json.dumps, d[name])):
            sys.exit("%s: -s %s changed the rows" % (name, key))
        vals = [value(key, cols[key], r, rank) for r in rows]
        want = sorted(vals) if key in ASCENDING else sorted(vals, reverse=True)
        if vals != want:
            sys.exit("%s: not in %s order: %s" % (name, key, vals[:12]))
        for v in set(vals):     # ties keep the table's own order
            a = [r for r in rows if value(key, cols[key], r, rank) == v]
            b = [r for r in d[name] if value(key, cols[key], r, rank) == v]
            if a != b:
                sys.exit("%s: rows with %s %s out of the table's own order" % (name, key, v))
        checked.append(name)
    print(key, " ".join(checked))


def check_lines(n, limited_path, default_path):
    s, d = tables(limited_path), tables(default_path)
    for name in d:
        if name == "timeline":
            continue
        if s[name] != d[name][:n]:
            sys.exit("%s: -l %d gave %d rows, not the first %d" % (name, n, len(s[name]), n))
    print("lines", n, " ".join(sorted(d)))


if __name__ == "__main__":
    if sys.argv[1] == "--lines":
        check_lines(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        check_sorted(*sys.argv[1:4])
