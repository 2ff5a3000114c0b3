#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""Check the layout docs/DESIGN.md describes.

  check_layout.py [--lib LIBKMTRACE.A] [--cc CC] [--cflags FLAGS] [TOP]

- no .c file directly in src/, no folder the layout does not know;
- each folder's files include only their own headers, the public ones and
  the headers of the folders it may depend on (a quoted include names its
  folder, "common/util.h"; a bare name is a header of the same folder);
- with --cc: every header compiles on its own;
- with --lib: every global symbol the library defines starts with kmt_
  (the plugins' objects aside: libtraceevent names their entry points).

Prints each breach on one line and exits 1 if there is any."""
import argparse
import os
import re
import shlex
import subprocess
import sys

# What each folder may include besides its own headers and include/kmtrace.
ALLOWED = {
    'common': set(),
    'container': {'common'},
    'input': {'container', 'common'},
    'core': {'input', 'common'},
    'output': {'common'},
    'analyses': {'core', 'output', 'common'},
    'capture': {'container', 'common'},
    'cmd': {'capture', 'container', 'input', 'core', 'output', 'analyses', 'common',
            'plugins'},
    'plugins': {'common'},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)


def folder_dir(top, folder):
    return os.path.join(top, folder if folder == 'plugins' else os.path.join('src', folder))


def sources(top):
    for folder in sorted(ALLOWED):
        d = folder_dir(top, folder)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name.endswith(('.c', '.h')):
                yield folder, os.path.join(d, name)


def tree_breaches(top):
    for name in sorted(os.listdir(os.path.join(top, 'src'))):
        path = os.path.join(top, 'src', name)
        if os.path.isfile(path):
            yield '%s: a file directly in src/ (each belongs in a folder)' % path
        elif name not in ALLOWED:
            yield '%s: a folder the layout does not know' % path


def include_breaches(top):
    for folder, path in sources(top):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for kind, inc in INCLUDE.findall(text):
            if kind == '<':
                if inc.startswith('kmtrace/') and folder == 'plugins':
                    yield '%s: includes <%s>; plugins use src/common only' % (path, inc)
                continue
            target = inc.split('/')[0] if '/' in inc else folder
            if target != folder and target not in ALLOWED[folder]:
                yield '%s: includes "%s": %s may not depend on %s' % (path, inc, folder,
                                                                   target)
            elif '/' not in inc and not os.path.exists(os.path.join(os.path.dirname(path),
                                                                    inc)):
                yield '%s: includes "%s", which is not in its folder' % (path, inc)


def header_breaches(top, cc, cflags):
    headers = [os.path.join('include', 'kmtrace', h)
               for h in sorted(os.listdir(os.path.join(top, 'include', 'kmtrace')))]
    headers += [p for _, p in sources(top) if p.endswith('.h')]
    for h in headers:
        rel = os.path.relpath(os.path.join(top, h), top)
        name = rel[len('include/'):] if rel.startswith('include/') else rel
        if name.startswith('src/'):
            name = name[len('src/'):]
        cmd = shlex.split(cc) + shlex.split(cflags) + ['-fsyntax-only', '-x', 'c', '-']
        run = subprocess.run(cmd, input='#include "%s"\n' % name, cwd=top, text=True,
                             capture_output=True)
        if run.returncode:
            lines = run.stderr.strip().splitlines() or ['?']
            first = next((ln for ln in lines if 'error' in ln), lines[0])
            yield '%s: does not compile on its own: %s' % (rel, first)


def symbol_breaches(lib):
    run = subprocess.run(['nm', '-g', '--defined-only', lib], text=True, capture_output=True)
    if run.returncode:
        yield '%s: nm failed: %s' % (lib, run.stderr.strip())
        return
    obj = ''
    for line in run.stdout.splitlines():
        if line.endswith('.o:'):
            obj = line[:-1]
            continue
        parts = line.split()
        if len(parts) != 3 or obj.startswith(('plugin_kmt_', 'kmt_plugin')):
            continue
        if not parts[2].startswith('kmt_'):
            yield '%s: %s exports %s, without the kmt_ prefix' % (lib, obj, parts[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lib')
    ap.add_argument('--cc')
    ap.add_argument('--cflags', default='')
    ap.add_argument('top', nargs='?', default='.')
    args = ap.parse_args()
    found = list(tree_breaches(args.top)) + list(include_breaches(args.top))
    if args.cc:
        found += list(header_breaches(args.top, args.cc, args.cflags))
    if args.lib:
        found += list(symbol_breaches(args.lib))
    for b in found:
        print(b)
    if found:
        return 1
    print('layout: %d folders, includes within the allowed dependencies%s%s' % (
        len(ALLOWED), ', headers compile alone' if args.cc else '',
        ', every library symbol kmt_' if args.lib else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
