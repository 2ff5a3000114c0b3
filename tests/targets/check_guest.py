#!/usr/bin/env python3
"""Check what tests/targets/guest.sh brought out of a guest, reported here.

usage: check_guest.py KMTRACE OUT NAME [VERSION]
OUT is guest.sh's WORK/out; NAME labels the lines (e.g. "x86-64 6.1");
VERSION names the formats kmtrace ships for this kernel (formats/linux-*).
  1. command.dat (kmtrace-record -- the workload) and guest.dat
     (system-wide, around the workload), default events: their events per
     type equal trace-cmd report's; slab, page, vm and fault figures are
     those counts; guest.dat holds the workload's 32 MiB of page cache and
     page's traced pages are within 1% of the guest's own /proc/vmstat
     deltas. Without exceptions events (arm64) the fault
     analysis must say why, once.
  2. the text path: `cat trace` of the shell's instance, reported with the
     guest's formats and kallsyms, gives the slab and page reports of
     text.dat, the same buffer extracted; its lines per event equal
     text.dat's events per type and trace-cmd report's. With VERSION, the
     shipped formats (--formats VERSION) give the same reports too.
  3. boot.dat, the boot-time buffer (kmem events from the kernel command
     line), extracted first: its events per type and its slab call sites
     with their allocations equal trace-cmd report's; by module they add up
     to the same; with KMT_GUEST_VMLINUX (the kernel's debug image) by
     source directory too, with the image's static bytes beside.
  4. the recorder's RSS while recording (after the workload), its peak RSS,
     its CPU time and the recording's length (time -v) in the guest, printed.
Prints a line per check; exits 1 if any failed.
"""
import collections
import json
import os
import re
import subprocess
import sys

kmtrace, out, name = sys.argv[1:4]
shipped = sys.argv[4] if len(sys.argv) > 4 else None
same_reports = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'same_reports.py')
failed = []


def say(ok, what):
    print('check-targets: %s: %s%s' % (name, '' if ok else 'FAILED: ', what))
    if not ok:
        failed.append(what)


def report(*args, want_rc=0):
    p = subprocess.run([kmtrace, 'report'] + list(args), capture_output=True, text=True)
    if p.returncode != want_rc:
        say(False, 'kmtrace report %s: exit %d: %s' % (' '.join(args), p.returncode,
                                                       p.stderr.strip()))
        return None, p.stderr
    return (json.loads(p.stdout) if '--format' in args else p.stdout), p.stderr


def trace_cmd_text(dat):
    """trace-cmd report's text of @dat."""
    return subprocess.run(['trace-cmd', 'report', dat], capture_output=True,
                          text=True).stdout


def trace_cmd_counts(dat, text=None):
    """Events per name in trace-cmd report's text of @dat."""
    counts = collections.Counter()
    for line in (text or trace_cmd_text(dat)).splitlines():
        m = re.search(r'\s\d+\.\d+:\s+(\w+):', line)
        if m:
            counts[m[1]] += 1
    return counts


def stat_counts(doc):
    return collections.Counter({r['event'].split(':')[1]: r['count']
                                for r in doc['analyses']['stat']['tables']['events']})


def check_recording(file, system_wide):
    """@file's figures against trace-cmd report's counts; /proc/vmstat if @system_wide."""
    dat = os.path.join(out, file)
    doc, _ = report('-i', dat, '--format', 'json', 'stat', 'slab', 'page', 'vm')
    if not doc:
        return
    a, tc, mine = doc['analyses'], trace_cmd_counts(dat), stat_counts(doc)
    say(mine == tc, '%s (%s): %d events of %d types, per type %s trace-cmd report'
        % (file, doc['kmtrace']['kernel'], sum(mine.values()), len(mine),
           'equal to' if mine == tc else 'NOT equal to'))
    slab, page, vm = (a[k]['summary'] for k in ('slab', 'page', 'vm'))
    figures = [
        ('slab allocations', slab['allocations'], tc['kmalloc'] + tc['kmem_cache_alloc'] +
         tc['kmalloc_node'] + tc['kmem_cache_alloc_node']),
        ('slab frees', slab['frees'] + slab['unmatched_frees'] + slab['null_frees'],
         tc['kfree'] + tc['kmem_cache_free']),
        ('page allocations', page['alloc_requests'], tc['mm_page_alloc']),
        ('page frees', page['free_requests'], tc['mm_page_free']),
        ('page batched frees', page['batched_free_events'], tc['mm_page_free_batched']),
        ('vm rss_stat events', vm['rss_stat_events'], tc['rss_stat']),
    ]
    for what, got, want in figures:
        say(got == want and want > 0, '%s: %s %d, trace-cmd report %d'
            % (file, what, got, want))
    check_faults(dat, tc)
    if not system_wide:
        return
    workload = (32 << 20) // page['page_size']
    say(page['pages_allocated'] >= workload,
        '%s: %d pages allocated, the workload\'s 32 MiB file alone needs %d'
        % (file, page['pages_allocated'], workload))
    # pgalloc also counts the kernel stacks of new tasks (bulk allocator, no
    # event) unless reused from a CPU's cache: the report says how far pgalloc
    # lies beyond traced + none to all of the recorded forks' stacks.
    stacks = page.get('pgalloc_diff_beyond_stacks_percent')
    for key, delta, extra in (('pgalloc_diff_percent', 'vmstat_pgalloc', stacks),
                              ('pgfree_diff_percent', 'vmstat_pgfree', None)):
        diff = page.get(key)
        checked = diff if extra is None else extra
        say(checked is not None and abs(checked) <= 1,
            'page vs the guest\'s /proc/vmstat %s delta %s: %s%s' %
            (delta[7:], page.get(delta), 'no check' if diff is None else '%+.2f%%' % diff,
             '' if extra is None else ', %+.2f%% beyond traced + 0..%d stack pages of %d forks'
             % (extra, page['fork_stack_pages'], page['forks'])))


def check_faults(dat, tc):
    file = os.path.basename(dat)
    if tc['page_fault_user'] + tc['page_fault_kernel']:
        doc, _ = report('-i', dat, '--format', 'json', 'fault')
        if doc:
            s = doc['analyses']['fault']['summary']
            want = tc['page_fault_user'] + tc['page_fault_kernel']
            say(s['faults'] == want, '%s: fault: %d faults (trace-cmd report %d), outcomes '
                'from %s' % (file, s['faults'], want, s['outcome_source']))
        return
    _, err = report('-i', dat, 'fault')
    said = [line for line in err.splitlines() if 'x86 only' in line]
    say(len(said) == 1, '%s: fault: no exceptions events on this kernel, said as: %s'
        % (file, said[0] if said else 'nothing'))


def hash_collisions(txt, dat):
    """
    How the slab pointers of @txt (`cat trace`) stand for those of @dat (the
    same buffer, extracted): the kernel prints %p hashed to 32 bits, so among
    tens of thousands of objects two may share a hash (the birthday bound:
    about n*n/2^33 pairs), and pairing frees by pointer then joins the wrong
    objects. The two hold the same events in the same order, so each hash is
    matched with the raw pointers it printed. (distinct hashes, hashes that
    stand for more than one pointer); (0, 0) when the text's pointers are raw.
    """
    ptr = re.compile(r'\[(\d+)\].*?\s\d+\.\d+:\s+(\w+):.*?\bptr=(\S+)')
    text = [m.groups() for m in map(ptr.search, open(txt, errors='replace')) if m]
    raw = [m.groups() for m in map(ptr.search, subprocess.run(
        ['trace-cmd', 'report', '-t', dat], capture_output=True, text=True).stdout.splitlines())
        if m]
    if not text or any(p.startswith('0x') for _, _, p in text[:100]):
        return 0, 0
    pointers = collections.defaultdict(set)
    for (cpu, ev, h), (cpu2, ev2, p) in zip(text, raw):
        if (cpu, ev) != (cpu2, ev2):
            return 0, 0		# not the same events: the comparison itself will say
        pointers[h].add(p)
    return len(pointers), sum(1 for ps in pointers.values() if len(ps) > 1)


def check_text_path():
    dat, txt = os.path.join(out, 'text.dat'), os.path.join(out, 'text.txt')
    opts = ['slab', '--caller', '--cache', 'page', '--order', '--gfp', '--pid', '--format',
            'json']
    a, _ = report('-i', dat, 'stat', *opts)
    b, err = report('-i', txt, '--formats', os.path.join(out, 'formats'), '--kallsyms',
                    os.path.join(out, 'kallsyms'), 'stat', *opts)
    if not a or not b:
        return
    lines = collections.Counter()
    for line in open(txt, errors='replace'):
        m = re.search(r'\s\d+\.\d+:\s+(\w+):', line)
        if m:
            lines[m[1]] += 1
    mine, tc = stat_counts(a), trace_cmd_counts(dat)
    say(mine == lines == tc and sum(mine.values()) > 0,
        'cat trace: %d lines; text.dat (--extract): %d events, trace-cmd report %d, per type %s'
        % (sum(lines.values()), sum(mine.values()), sum(tc.values()),
           'equal' if mine == lines == tc else 'NOT equal'))
    a_path, b_path = os.path.join(out, 'text-dat.json'), os.path.join(out, 'text-txt.json')
    json.dump(a, open(a_path, 'w'))
    json.dump(b, open(b_path, 'w'))
    hashes, shared = hash_collisions(txt, dat)
    scope = ['--usec']
    if shared:
        say(True, 'cat trace prints pointers hashed to 32 bits: %d of its %d hashes stand for '
            'more than one object, so its slab figures cannot pair them all: slab left out of '
            'the comparison' % (shared, hashes))
        scope.append('--no-slab')
    p = subprocess.run([sys.executable, same_reports, *scope, a_path, b_path],
                       capture_output=True, text=True)
    say(p.returncode == 0, 'cat trace + formats + kallsyms vs text.dat, slab and page: %s'
        % (p.stdout.strip() or p.stderr.strip()))
    if shipped:
        c, _ = report('-i', txt, '--formats', shipped, '--kallsyms',
                      os.path.join(out, 'kallsyms'), *opts)
        if not c:
            return
        c_path = os.path.join(out, 'text-shipped.json')
        json.dump(c, open(c_path, 'w'))
        p = subprocess.run([sys.executable, same_reports, *scope, a_path, c_path],
                           capture_output=True, text=True)
        say(p.returncode == 0, 'cat trace + kmtrace\'s shipped formats/linux-%s vs text.dat: %s'
            % (shipped, p.stdout.strip() or p.stderr.strip()))


def check_footprint():
    text = open(os.path.join(out, 'record.err')).read()
    status = open(os.path.join(out, 'record.status')).read()
    rss = re.search(r'VmRSS:\s+(\d+) kB', status)
    peak = re.search(r'Maximum resident set size \(kbytes\): (\d+)', text)
    user = re.search(r'User time \(seconds\): ([\d.]+)', text)
    sys_ = re.search(r'System time \(seconds\): ([\d.]+)', text)
    wall = re.search(r'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.+)', text)
    ok = rss and peak and user and sys_ and wall
    say(bool(ok), 'recorder footprint: %s' % (
        'RSS %.1f MiB while recording, %.1f MiB at its peak (writing the file), CPU %.2f s '
        'user + %.2f s system for a %.1f s system-wide recording'
        % (int(rss[1]) / 1024, int(peak[1]) / 1024, float(user[1]), float(sys_[1]),
           seconds(wall[1]))
        if ok else 'no figures from /proc or time -v'))


def trace_cmd_sites(text):
    """Slab allocations per call site in trace-cmd report's @text."""
    sites = collections.Counter()
    for line in text.splitlines():
        m = re.search(r'\s(kmalloc|kmem_cache_alloc)(?:_node)?:.*?\scall_site=(\S+)', line)
        if m:
            sites[m[2]] += 1
    return sites


def check_boot():
    """boot.dat, the boot-time buffer: its events per type and its slab call
    sites with their allocations equal trace-cmd report's; rolled up by
    module (and with the kernel's debug image by source directory, its
    static bytes beside) they add up to the same."""
    dat = os.path.join(out, 'boot.dat')
    if not os.path.exists(dat):
        rc = open(os.path.join(out, 'boot.rc')).read().strip() if os.path.exists(
            os.path.join(out, 'boot.rc')) else 'no boot-time buffer in the guest'
        say(False, 'boot.dat: none (%s)' % rc)
        return
    doc, _ = report('-i', dat, '--format', 'json', 'stat', 'slab', '--caller', 'page')
    mods, _ = report('-i', dat, '--format', 'json', 'slab', '--caller', '--by-module')
    if not doc or not mods:
        return
    text = trace_cmd_text(dat)
    mine, tc = stat_counts(doc), trace_cmd_counts(dat, text)
    callers = doc['analyses']['slab']['tables']['callers']
    rows = collections.Counter()    # by name, as trace-cmd prints them: two static
    for r in callers:               # functions of one name are two call sites here
        rows[r['callsite']] += r['hits']
    sites = trace_cmd_sites(text)
    lost = doc['analyses']['stat']['summary'].get('lost_events')
    say(mine == tc and sum(mine.values()) > 0,
        'boot.dat (boot-time buffer): %d events (%s lost), per type %s trace-cmd report'
        % (sum(mine.values()), lost, 'equal to' if mine == tc else 'NOT equal to'))
    say(rows == sites and len(rows) > 0,
        'boot.dat: %d boot-time slab call sites (%d names), %d allocations; trace-cmd '
        'report: %d names, %d allocations%s'
        % (len(callers), len(rows), sum(rows.values()), len(sites), sum(sites.values()),
           ', each name the same' if rows == sites else ', NOT the same'))
    by_mod = {r['module']: r['hits'] for r in mods['analyses']['slab']['tables']['modules']}
    say(sum(by_mod.values()) == sum(rows.values()),
        'boot.dat by module: %s' % ', '.join('%s %d' % kv for kv in
                                             sorted(by_mod.items(), key=lambda kv: -kv[1])[:4]))
    vmlinux = os.environ.get('KMT_GUEST_VMLINUX')
    if not vmlinux:
        return
    dirs, _ = report('-i', dat, '--vmlinux', vmlinux, '--format', 'json', 'slab', '--caller',
                     '--by-dir', '1', '--footprint', vmlinux, 'page')
    if not dirs:
        return
    tables = dirs['analyses']['slab']['tables']
    by_dir = {r['dir']: r['hits'] for r in tables['dirs']}
    static = {r['dir']: r for r in tables['static']}
    top = sorted(static.values(), key=lambda r: -r['dynamic'])[:3]
    say(sum(by_dir.values()) == sum(rows.values()) and set(by_dir) <= set(static) and
        sum(r['static'] for r in static.values()) > 0,
        'boot.dat by source directory (%s): %d directories add up to the %d allocations; '
        'static beside dynamic: %s' % (os.path.basename(vmlinux), len(by_dir),
                                       sum(by_dir.values()), '; '.join(
            '%s static %d, dynamic %d, live %d' % (r['dir'], r['static'], r['dynamic'],
                                                   r['live']) for r in top)))


def seconds(clock):
    """time -v's elapsed time in seconds: GNU's h:mm:ss or m:ss.ss, busybox's 0m 3.98s."""
    total = 0.0
    for part in re.split(r'[:ms ]+', clock.strip()):
        if part:
            total = total * 60 + float(part)
    return total


check_recording('command.dat', False)
check_recording('guest.dat', True)
check_text_path()
check_boot()
check_footprint()
sys.exit(1 if failed else 0)
