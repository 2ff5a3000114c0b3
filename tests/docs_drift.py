#!/usr/bin/env python3
"""The analyses and output formats the docs name, against the binary's own.

README.md's analysis table must name exactly what `kmtrace list` lists, and
its format list exactly what `kmtrace report -h` offers (--format values and
--html); the guide and kmtrace-report(1) must mention every analysis, and
DESIGN.md and <kmtrace/output.h> every format.  Prints what differs.

    docs_drift.py KMTRACE TOP
"""
import re
import subprocess
import sys


def block(text, name):
    """The text between <!-- NAME --> and <!-- /NAME --> in a README."""
    m = re.search(rf"<!-- {name} -->\n(.*?)<!-- /{name} -->", text, re.S)
    if not m:
        raise SystemExit(f"README.md: no <!-- {name} --> block")
    return m.group(1)


def binary_analyses(kmtrace):
    out = subprocess.run([kmtrace, "list"], stdout=subprocess.PIPE, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def binary_formats(kmtrace):
    """Every --format value and html (--html) from report -h's usage."""
    out = subprocess.run([kmtrace, "report", "-h"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    usage = out.split("\n\n")[0]
    names = set()
    for values in re.findall(r"--format ([a-z|]+)", usage):
        names.update(values.split("|"))
    if "--html" in usage:
        names.add("html")
    return names


def compare(what, documented, actual):
    """One line per difference; the number of them."""
    bad = 0
    for name in sorted(actual - documented):
        print(f"  {what}: '{name}' is in kmtrace but not in the docs")
        bad += 1
    for name in sorted(documented - actual):
        print(f"  {what}: '{name}' is in the docs but not in kmtrace")
        bad += 1
    return bad


def mentions(path, names, pattern):
    """Names not found in the file at PATH (pattern: a regex with {})."""
    with open(path) as f:
        text = f.read().lower()
    missing = [n for n in sorted(names) if not re.search(pattern.format(re.escape(n)), text)]
    for n in missing:
        print(f"  {path}: does not mention '{n}'")
    return len(missing)


def main():
    kmtrace, top = sys.argv[1], sys.argv[2]
    with open(f"{top}/README.md") as f:
        readme = f.read()
    analyses = binary_analyses(kmtrace)
    formats = binary_formats(kmtrace)
    rows = block(readme, "analyses").split("|---|---|")[-1]
    table = set(re.findall(r"^\| ([a-z]+) \|", rows, re.M))
    listed = set(re.findall(r"`([a-z]+)`", block(readme, "formats")))
    bad = compare("README analyses", table, analyses)
    bad += compare("README formats", listed, formats)
    bad += mentions(f"{top}/docs/guide.md", analyses, r"`{}`")
    bad += mentions(f"{top}/docs/kmtrace-report.1", analyses, r"\b{}\b")
    bad += mentions(f"{top}/docs/DESIGN.md", formats, r"\b{}\b")
    bad += mentions(f"{top}/include/kmtrace/output.h", formats, r"\b{}\b")
    if bad:
        sys.exit(1)
    print(f"  {len(analyses)} analyses and {len(formats)} formats, as documented")


if __name__ == "__main__":
    main()
