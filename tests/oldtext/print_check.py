#!/usr/bin/env python3
"""Check `kmtrace report --print` of ftrace text against the text itself.

  print_check.py TEXT [MAP] < kmtrace-print.txt

Every event line of TEXT has its --print line, in order, with the same
task, pid, CPU, time and event name, and the same fields as the text wrote them, but
call sites the text gave as addresses, which are named "func+0xOFF"
(" [module]" where the map says) when MAP (a System.map or kallsyms)
names them. Prints "N lines equal" or what differs.
"""
import re
import sys

LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?'
                  r'(?P<ts>\d+\.\d+):\s+(?P<event>\w+):\s+(?P<fields>.*)$')
ADDRESS = re.compile(r'^(0x[0-9a-f]+|[0-9a-f]{8,16})$')


def load_map(path):
    syms = []
    for line in open(path):
        parts = line.split()
        if len(parts) >= 3 and parts[1] not in 'aA':
            mod = parts[3].strip('[]') if len(parts) > 3 else None
            syms.append((int(parts[0], 16), parts[2], mod))
    return sorted(syms)


def name(syms, site):
    if not ADDRESS.match(site) or not syms:
        return site
    addr = int(site, 16)
    best = None
    for s in syms:
        if s[0] > addr:
            break
        best = s
    if best is None or addr > syms[-1][0]:
        return site
    return '%s+0x%x%s' % (best[1], addr - best[0], ' [%s]' % best[2] if best[2] else '')


def fields(text, syms):
    pairs = re.findall(r'(\w+)=(.*?)(?= \w+=|$)', text)
    return [(k, name(syms, v) if k == 'call_site' else v) for k, v in pairs]


def main():
    syms = load_map(sys.argv[2]) if len(sys.argv) > 2 else []
    want = [m for m in map(LINE.match, open(sys.argv[1])) if m]
    got = [m for m in map(LINE.match, sys.stdin) if m]
    bad = []
    if len(want) != len(got):
        bad.append('%d event lines in the text, %d printed' % (len(want), len(got)))
    for i, (w, g) in enumerate(zip(want, got)):
        a = (w['comm'].strip(), w['pid'], int(w['cpu']), w['ts'], w['event'],
             fields(w['fields'], syms))
        b = (g['comm'].strip(), g['pid'], int(g['cpu']), g['ts'], g['event'],
             fields(g['fields'], []))
        if a != b:
            bad.append('line %d: text %s, printed %s' % (i + 1, a, b))
    if bad:
        print('\n'.join(bad[:5]))
        sys.exit(1)
    print('%d lines equal' % len(want))


if __name__ == '__main__':
    main()
