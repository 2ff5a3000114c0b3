#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""Check that src/ follows the layout of docs/DESIGN.md: no .c file directly
in src/, and each folder's files include only headers of the folders it may
depend on. A quoted include names its folder ("common/util.h"); a bare name
is a header of the including file's own folder. Prints each breach on one
line and exits 1 if there is any."""
import os
import re
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
# Public headers the plugins may not use: they link against libtraceevent only.
PLUGINS_PUBLIC = False

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)


def sources(top):
    for folder in sorted(ALLOWED):
        d = os.path.join(top, 'plugins' if folder == 'plugins' else os.path.join('src', folder))
        if not os.path.isdir(d):
            yield folder, None
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(('.c', '.h')):
                yield folder, os.path.join(d, name)


def breaches(top):
    for name in sorted(os.listdir(os.path.join(top, 'src'))):
        path = os.path.join(top, 'src', name)
        if os.path.isfile(path):
            yield '%s: a file directly in src/ (each belongs in a folder)' % path
        elif name not in ALLOWED:
            yield '%s: a folder the layout does not know' % path
    for folder, path in sources(top):
        if path is None:
            yield 'src/%s: missing' % folder
            continue
        text = open(path, encoding='utf-8').read()
        for line_no, (kind, inc) in enumerate(INCLUDE.findall(text), 1):
            if kind == '<':
                if inc.startswith('kmtrace/') and folder == 'plugins' and not PLUGINS_PUBLIC:
                    yield '%s: includes <%s>; plugins use src/common only' % (path, inc)
                continue
            target = inc.split('/')[0] if '/' in inc else folder
            if target == '..':
                yield '%s: includes "%s" by a relative path' % (path, inc)
            elif target != folder and target not in ALLOWED.get(folder, set()):
                yield '%s: includes "%s": %s may not depend on %s' % (path, inc, folder, target)
            elif '/' not in inc and not os.path.exists(os.path.join(os.path.dirname(path), inc)):
                yield '%s: includes "%s", which is not in its folder' % (path, inc)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else '.'
    found = list(breaches(top))
    for b in found:
        print(b)
    if found:
        return 1
    print('layout: %d folders, every include within the allowed dependencies' % len(ALLOWED))
    return 0


if __name__ == '__main__':
    sys.exit(main())
