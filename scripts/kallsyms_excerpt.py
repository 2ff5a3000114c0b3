#!/usr/bin/env python3
"""The lines of a kallsyms file that kernel addresses fall in.

Reads any text on standard input (perf script output, trace-cmd report
text), takes every kernel address in it (hex of 6 to 16 digits, with or
without 0x, from the kallsyms file's first symbol to its last: 64-bit
kernels at 0xffff8... and up, 32-bit ones at 0xc0..., s390x's low in the
address space), and prints, from the kallsyms file given as argument, the
symbol each address falls in and the symbol after it (where the function
ends), plus _text, _stext and _etext. Shipped beside a fixture, the
excerpt lets kmtrace (--kallsyms) and perf script (--kallsyms) name the
fixture's call sites on any machine, whatever kernel it runs.

usage: perf script -F ip,trace -i FILE | kallsyms_excerpt.py /proc/kallsyms
"""
import bisect
import re
import sys

ANCHORS = ('_text', '_stext', '_etext')


def load(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] in 'aA':
                continue
            try:
                addr = int(parts[0], 16)
            except ValueError:
                continue
            syms.append((addr, line.rstrip('\n')))
    syms.sort(key=lambda s: s[0])
    return syms


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    syms = load(sys.argv[1])
    addrs = [s[0] for s in syms]
    keep = set(i for i, s in enumerate(syms) if s[1].split()[2] in ANCHORS)
    for tok in re.findall(r'\b(?:0x)?([0-9a-f]{6,16})\b', sys.stdin.read()):
        a = int(tok, 16)
        if not addrs or a < addrs[0] or a > addrs[-1]:
            continue
        i = bisect.bisect_right(addrs, a) - 1
        if i >= 0:
            keep.add(i)
        if i + 1 < len(syms):
            keep.add(i + 1)
    for i in sorted(keep):
        print(syms[i][1])


if __name__ == '__main__':
    main()
