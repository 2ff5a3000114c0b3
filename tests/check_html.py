#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""The HTML report of real recordings in headless Chromium:
  check_html.py KMTRACE TRACES_DIR WORK_DIR [SCREENSHOT.png]
For traces/stacks.dat (slab and page with call stacks, a page timeline, leak),
traces/fault.dat (the vm and fault timelines) and kmtrace diff's page (stacks.dat
against itself at half its figures: bars of change and a coloured icicle): the page loads with no console message
at all, its script runs to its end (body data-ready), every chart has drawn marks,
every table is there; then a screenshot of the first (to SCREENSHOT.png, else WORK_DIR).
Exits 1 at the first breach, 77 when there is no Chromium."""
import os
import re
import shutil
import subprocess
import sys

PAGES = [
    ('stacks.dat', ['--kallsyms', 'stacks.kallsyms'],
     'stat slab --caller --cache --stack --timeline 1 page --timeline 100 --stack leak'),
    ('fault.dat', [], 'stat vm --timeline 10 fault --timeline 10 page'),
]
CHROMIUM_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
                  '--enable-logging=stderr', '--log-level=0']


def fail(msg):
    print(f'check_html: {msg}')
    sys.exit(1)


def chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        if shutil.which(name):
            return name
    print('check_html: SKIP: no chromium (make deps installs Debian\'s)')
    sys.exit(77)


def make_page(kmtrace, traces, work, name, syms, analyses):
    out = os.path.join(work, name + '.html')
    if os.path.exists(out):
        os.unlink(out)
    syms = [os.path.join(traces, s) if not s.startswith('-') else s for s in syms]
    run = subprocess.run([kmtrace, 'report', '-i', os.path.join(traces, name), *syms,
                          '--html', out, *analyses.split()], capture_output=True, text=True)
    if run.returncode:
        fail(f'{name}: kmtrace report --html exit {run.returncode}: {run.stderr.strip()}')
    return out


def check_page(browser, page, work):
    run = subprocess.run([browser, *CHROMIUM_FLAGS, '--dump-dom', 'file://' + page],
                         capture_output=True, text=True, timeout=120, cwd=work)
    console = [line for line in run.stderr.splitlines() if ':CONSOLE' in line]
    if run.returncode or console:
        fail(f'{page}: chromium exit {run.returncode}, console: {console[:3]}')
    dom = run.stdout
    if 'data-ready="1"' not in dom:
        fail(f'{page}: the page script did not run to its end')
    charts = re.findall(r'<svg[^>]*class="chart[^"]*".*?</svg>', dom, re.S)
    empty = [c[:80] for c in charts if 'class="mark"' not in c]
    if not charts or empty:
        fail(f'{page}: {len(charts)} charts, without marks: {empty[:2]}')
    tables = dom.count('<table class="data">')
    marks = sum(c.count('class="mark"') for c in charts)
    return len(charts), marks, tables


def check_diff_page(kmtrace, traces, work, browser):
    """kmtrace diff --html: diverging bars (shrinkage, blue) and the icicle coloured so."""
    out = os.path.join(work, 'diff.html')
    if os.path.exists(out):
        os.unlink(out)
    stacks = os.path.join(traces, 'stacks.dat')
    run = subprocess.run([kmtrace, 'diff', '--per', '1,2', '--html', out, stacks, stacks,
                          '--kallsyms', os.path.join(traces, 'stacks.kallsyms'),
                          'slab', '--caller', '--cache', 'leak'], capture_output=True, text=True)
    if run.returncode:
        fail(f'kmtrace diff --html exit {run.returncode}: {run.stderr.strip()}')
    charts, marks, tables = check_page(browser, out, work)
    html = open(out).read()
    bars = len(re.findall(r'class="chart diverging"', html))
    blue = html.count('fill="#4e79a7"><title>')
    if bars < 2 or 'class="chart icicle"' not in html or not blue or '#e15759' in html:
        fail(f'diff page: {bars} bar charts, icicle {"chart icicle" in html}, {blue} shrinking '
             f'marks, growth drawn: {"#e15759" in html} (NEW is half of BASE)')
    print(f'  diff: {charts} charts ({marks} marks drawn, {blue} of shrinkage), {tables} tables, '
          f'no console message')


def check_svg_files(kmtrace, traces, work):
    """--svg DIR: each chart a standalone SVG document with its marks."""
    import xml.etree.ElementTree as ET
    d = os.path.join(work, 'svg')
    shutil.rmtree(d, ignore_errors=True)
    os.mkdir(d)
    run = subprocess.run([kmtrace, 'report', '-i', os.path.join(traces, 'stacks.dat'),
                          '--kallsyms', os.path.join(traces, 'stacks.kallsyms'), '--svg', d,
                          'slab', '--caller', '--stack', 'page', '--timeline', '100', '--stack'],
                         capture_output=True, text=True)
    names = sorted(os.listdir(d))
    if run.returncode or names != ['page-stacks.svg', 'page-timeline.svg', 'slab-callers.svg',
                                   'slab-stacks.svg']:
        fail(f'--svg: exit {run.returncode}, files {names}: {run.stderr.strip()}')
    for n in names:
        root = ET.parse(os.path.join(d, n)).getroot()
        marks = [e for e in root.iter() if e.get('class') == 'mark']
        if root.tag != '{http://www.w3.org/2000/svg}svg' or not marks:
            fail(f'--svg: {n}: root {root.tag}, {len(marks)} marks')
    print(f'  --svg: {len(names)} standalone SVG files, each with its marks')


def main():
    kmtrace, traces, work = sys.argv[1:4]
    shot = os.path.abspath(sys.argv[4] if len(sys.argv) > 4 else os.path.join(work, 'kmtrace-report.png'))
    browser = chromium()
    first = None
    for name, syms, analyses in PAGES:
        page = make_page(kmtrace, traces, work, name, syms, analyses)
        charts, marks, tables = check_page(browser, page, work)
        print(f'  {name}: {charts} charts ({marks} marks drawn), {tables} tables, no console '
              f'message')
        first = first or page
    run = subprocess.run([browser, *CHROMIUM_FLAGS, f'--screenshot={shot}',
                          '--window-size=1280,2200', 'file://' + first],
                         capture_output=True, text=True, timeout=120, cwd=work)
    if run.returncode or not os.path.exists(shot) or os.path.getsize(shot) < 20000:
        fail(f'screenshot {shot}: exit {run.returncode}')
    print(f'  screenshot: {shot} ({os.path.getsize(shot)} bytes)')
    check_diff_page(kmtrace, traces, work, browser)
    check_svg_files(kmtrace, traces, work)


if __name__ == '__main__':
    main()
