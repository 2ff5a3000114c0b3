#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""Check the layout docs/DESIGN.md describes.

  check_layout.py [--lib LIBKMTRACE.A] [--cc CC] [--cflags FLAGS] [TOP]

- no .c file directly in src/, no folder the layout does not know;
- each folder's files include only their own headers and the headers of
  the folders it may depend on (a quoted include names its folder,
  "common/util.h"; a bare name is a header of the same folder; a public
  <kmtrace/X.h> belongs to the folder PUBLIC_OWNER names), and the public
  headers include only those their owner may depend on;
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
    'diff': {'output', 'common'},
    'capture': {'container', 'common'},
    'cmd': {'capture', 'container', 'input', 'core', 'output', 'analyses', 'diff', 'common',
            'plugins'},
    'plugins': {'common'},
    'preload': {'common'},
}
# The folder that owns each public header in include/kmtrace: including one
# is depending on its owner.
PUBLIC_OWNER = {
    'error.h': 'common',
    'process.h': 'common',
    'event.h': 'common',
    'cpustats.h': 'container',
    'reader.h': 'input',
    'analysis.h': 'core',
    'output.h': 'output',
    'record.h': 'capture',
    'sqlite.h': 'output',
}
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)


def folder_dir(top, folder):
    return os.path.join(top, folder if folder in ('plugins', 'preload') else
                        os.path.join('src', folder))


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


def public_includes(top, header, seen=None):
    """The public headers @header includes, directly or through others."""
    seen = set() if seen is None else seen
    path = os.path.join(top, 'include', 'kmtrace', header)
    if header in seen or not os.path.exists(path):
        return seen
    seen.add(header)
    with open(path, encoding='utf-8') as f:
        for kind, inc in INCLUDE.findall(f.read()):
            if kind == '<' and inc.startswith('kmtrace/'):
                public_includes(top, inc[len('kmtrace/'):], seen)
    return seen


def public_breach(path, folder, header, top='.'):
    """A breach when @folder may not depend on the owner of public @header,
    unless a public header of a folder it may depend on includes it (the
    owner re-exports it: core's analysis.h gives analyses reader.h)."""
    owner = PUBLIC_OWNER.get(header)
    if owner is None:
        yield '%s: includes <kmtrace/%s>, which has no owner in PUBLIC_OWNER' % (path, header)
        return
    permitted = [h for h, o in PUBLIC_OWNER.items() if o == folder or o in ALLOWED[folder]]
    if any(header in public_includes(top, h) for h in permitted):
        return
    yield '%s: includes <kmtrace/%s> (%s): %s may not depend on %s' % (
        path, header, owner, folder, owner)


def public_header_breaches(top):
    """Public headers may include only those their owner may depend on."""
    d = os.path.join(top, 'include', 'kmtrace')
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if name not in PUBLIC_OWNER:
            yield '%s: a public header with no owner in PUBLIC_OWNER' % path
            continue
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for kind, inc in INCLUDE.findall(text):
            if kind == '<' and inc.startswith('kmtrace/'):
                yield from public_breach(path, PUBLIC_OWNER[name], inc[len('kmtrace/'):], top)


def include_breaches(top):
    for folder, path in sources(top):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for kind, inc in INCLUDE.findall(text):
            if kind == '<':
                if inc.startswith('kmtrace/') and folder == 'plugins':
                    yield '%s: includes <%s>; plugins use src/common only' % (path, inc)
                elif inc.startswith('kmtrace/'):
                    yield from public_breach(path, folder, inc[len('kmtrace/'):], top)
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
    found = list(tree_breaches(args.top)) + list(include_breaches(args.top)) + \
        list(public_header_breaches(args.top))
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
