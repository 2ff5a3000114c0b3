#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""Recount kmtrace footprint's figures from binutils alone.

  footprint_recount.py ELF JSON DEPTH

JSON is `kmtrace footprint --vmlinux ELF --by-dir DEPTH --top 0 --format
json`. The recount reads the sections and symbols with readelf, the file
of each function's first instruction with llvm-symbolizer --inlining (past
inlined functions: the last frame), and the file declaring each variable
from llvm-dwarfdump's dump. It applies footprint's documented rules (a section's
class by its flags, .rodata* read-only; each byte of a section to the
first sized symbol covering it; paths relative to the unit's build
directory, or to the source tree above it) and asserts that the summary's
totals, size(1)'s, and every directory's and file's bytes are equal.
"""
import collections
import json
import os
import re
import subprocess
import sys

CLASSES = ('text', 'rodata', 'data', 'bss')


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def sections(elf):
    """Index -> (name, class or None, flags, type, end address)."""
    out = {}
    for m in re.finditer(r'^\s*\[\s*(\d+)\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+'
                         r'([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s', run('readelf', '-SW', elf),
                         re.M):
        idx, name, typ, addr, size, flags = m.groups()
        size = int(size, 16)
        cls = None
        if 'A' in flags:
            if 'X' in flags:
                cls = 'text'
            elif 'W' not in flags or name == '.rodata' or name.startswith('.rodata.'):
                cls = 'rodata'
            elif typ == 'NOBITS':
                cls = 'bss'
            else:
                cls = 'data'
        out[int(idx)] = (name, cls, flags, typ, int(addr, 16) + size, size)
    return out


def size_totals(secs):
    t = collections.Counter()
    for name, cls, flags, typ, end, size in secs.values():
        if 'A' not in flags:
            continue
        if 'X' in flags or 'W' not in flags:
            t['size_text'] += size
        elif typ != 'NOBITS':
            t['size_data'] += size
        else:
            t['size_bss'] += size
    return t


def symbols(elf, secs):
    """Sized symbols swept: (name, class, address, bytes)."""
    raw = []
    for line in run('readelf', '-sW', elf).splitlines():
        w = line.split()
        if len(w) < 8 or not w[0].endswith(':') or not w[6].isdigit():
            continue
        value, size, typ, ndx = int(w[1], 16), int(w[2], 0), w[3], int(w[6])
        if size and typ in ('FUNC', 'OBJECT', 'TLS', 'NOTYPE') and ndx in secs and \
                secs[ndx][1]:
            raw.append((ndx, value, -size, w[7]))
    raw.sort()
    out, sec, covered = [], None, 0
    for ndx, value, neg, name in raw:
        if ndx != sec:
            sec, covered = ndx, 0
        lo, hi = max(value, covered), min(value - neg, secs[ndx][4])
        if hi <= lo:
            continue
        covered = hi
        out.append((name, secs[ndx][1], value, hi - lo))
    return out


def comp_dirs(elf):
    text = run('readelf', '--debug-dump=info', '--dwarf-depth=1', elf)
    return sorted(set(re.findall(r'DW_AT_comp_dir\s*:\s*(?:\([^)]*\):\s*)?(.+?)\s*$', text,
                                 re.M)), key=len, reverse=True)


def relative(path, dirs):
    for d in dirs:
        if path.startswith(d + '/'):
            return os.path.normpath(path[len(d) + 1:])
    if path.startswith('/'):
        for d in dirs:
            parts = d.split('/')
            for n in range(len(parts) - 1, 2, -1):   # "/a/b" at least
                top = '/'.join(parts[:n])
                if d.startswith('/') and path.startswith(top + '/'):
                    return os.path.normpath(path[len(top) + 1:])
    return os.path.normpath(path)


def code_files(elf, syms, dirs):
    """Each function's file: LLVM's symbolizer, its outermost frame. (binutils'
    addr2line picks another of the line rows at one address now and then.)"""
    addrs = sorted({a for n, c, a, b in syms if c == 'text'})
    text = run_input(['llvm-symbolizer', '--inlining', '--obj=' + elf],
                     ''.join('0x%x\n' % a for a in addrs))
    out = {}
    for a, group in zip(addrs, text.strip('\n').split('\n\n')):
        f, line, col = group.splitlines()[-1].rsplit(':', 2)
        # line 0: DWARF's "no source line" (LLVM then names a bare file)
        out[a] = None if f.startswith('??') or line == '0' else relative(f, dirs)
    return out


def run_input(cmd, data):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, input=data).stdout


def data_files(elf, dirs):
    """Each variable with a fixed address (DW_OP_addr first): the file declaring
    it, through DW_AT_specification and DW_AT_abstract_origin, from LLVM's
    dump of the DWARF (the first variable at an address wins)."""
    dump = subprocess.Popen(
        ['sh', '-c', 'llvm-dwarfdump --debug-info "$1" | grep -E '
         '"^0x[0-9a-f]+: +(DW_TAG|NULL)|DW_AT_(decl_file|location|specification|abstract_origin)"',
         'sh', elf], stdout=subprocess.PIPE, text=True)
    files, refs, located = {}, {}, []
    die = tag = None
    for line in dump.stdout:
        m = re.match(r'^0x([0-9a-f]+): +(\S+)', line)
        if m:
            die, tag = int(m.group(1), 16), m.group(2)
            continue
        if tag != 'DW_TAG_variable':
            continue
        m = re.search(r'DW_AT_decl_file\t\("(.*)"\)', line)
        if m:
            files[die] = m.group(1)
        m = re.search(r'DW_AT_(?:specification|abstract_origin)\t\(0x([0-9a-f]+)', line)
        if m:
            refs[die] = int(m.group(1), 16)
        m = re.search(r'DW_AT_location\t\(DW_OP_addr 0x([0-9a-f]+)', line)
        if m:
            located.append((die, int(m.group(1), 16)))
    if dump.wait():
        raise SystemExit('llvm-dwarfdump failed')
    out = {}
    for die, addr in located:
        d = die
        while d not in files and d in refs:
            d = refs[d]
        if d in files and addr not in out:
            out[addr] = relative(files[d], dirs)
    return out


def group(f, depth):
    if f is None:
        return '(no source)'
    dirs = f.split('/')[:-1][:depth]
    return '/'.join(dirs) + '/' if dirs else './'


def main():
    elf, report, depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
    fp = json.load(open(report))['analyses']['footprint']
    secs = sections(elf)
    totals = collections.Counter()
    for s in secs.values():
        if s[1]:
            totals[s[1]] += s[5]
    summary = fp['summary']
    for c in CLASSES:
        assert summary[c] == totals[c], (c, summary[c], totals[c])
    for k, v in size_totals(secs).items():
        assert summary[k] == v, (k, summary[k], v)
    syms = symbols(elf, secs)
    assert summary['symbols'] == len(syms), (summary['symbols'], len(syms))
    dirs = comp_dirs(elf)
    files = code_files(elf, syms, dirs)
    dfiles = data_files(elf, dirs)
    by_dir, by_file = collections.defaultdict(collections.Counter), \
        collections.defaultdict(collections.Counter)
    for name, cls, addr, nbytes in syms:
        f = files.get(addr) if cls == 'text' else dfiles.get(addr)
        by_dir[group(f, depth)][cls] += nbytes
        by_file[f or '(no source)'][cls] += nbytes
    cols = CLASSES
    checked = 0
    for table, key, want in (('dirs', 'dir', by_dir), ('files', 'file', by_file)):
        got = {r[key]: r for r in fp['tables'][table] if not r[key].startswith(('[', '(no symbol'))}
        for k in set(got) | set(want):
            for c in cols:
                g = got[k][c] if k in got else 0
                assert g == want[k][c], (table, k, c, g, want[k][c])
                checked += 1
    print(f"  {len(syms)} symbols, {len(by_dir)} directories, {len(by_file)} files: "
          f"{checked} figures equal ({'/'.join(cols)}); totals and size(1)'s equal")


if __name__ == '__main__':
    main()
