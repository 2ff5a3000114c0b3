#!/usr/bin/env python3
"""Regenerate the outputs in docs/examples.md from real runs.

The file is its own template.  A block

    <!-- run
    kmtrace report -i traces/fault.dat fault -l 4
    -->
    ...
    <!-- end -->

has everything between its directive and `<!-- end -->` replaced by a fenced
block holding each command (after `$ `) and what it printed.  `run` blocks
read the recordings shipped in traces/ and give the same output on any
machine; `live` blocks record on this one and run only with --live (tracefs
writable, root).  A command may end in `#| FILTER`: the shell filter is
applied to its output but not shown, and a "..." line marks what it left out.

    gen_examples.py KMTRACE FILE [--live]     rewrite FILE in place
    gen_examples.py KMTRACE FILE --check      exit 1 if a run block is stale
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"<!-- (run|live)\n(.*?)\n-->\n(.*?)<!-- end -->\n", re.S)


def run_command(line, env, cwd, tmp):
    """One command's shown text and its output: standard error first, then
    standard output (through the hidden filter if there is one)."""
    shown, _, hidden = line.partition(" #| ")
    done = subprocess.run(["sh", "-c", shown], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    out = done.stdout
    if hidden:
        kept = subprocess.run(["sh", "-c", hidden], cwd=cwd, env=env, input=out,
                              stdout=subprocess.PIPE, text=True).stdout
        out = kept if kept == out else kept + "...\n"
    out = done.stderr + out
    if tmp:
        out = out.replace(tmp + "/", "").replace(tmp, ".")
    return f"$ {shown}\n{out}"


def render(kind, commands, kmtrace, top):
    """The fenced block of one directive's commands, run in order."""
    bindir = tempfile.mkdtemp(prefix="kmtrace-examples-bin.")
    os.symlink(kmtrace, os.path.join(bindir, "kmtrace"))
    env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", ""), LC_ALL="C",
               COLUMNS="200")
    tmp = None
    cwd = top
    if kind == "live":
        tmp = tempfile.mkdtemp(prefix="kmtrace-examples.")
        os.symlink(os.path.join(top, "scripts"), os.path.join(tmp, "scripts"))
        os.symlink(os.path.join(top, "traces"), os.path.join(tmp, "traces"))
        cwd = tmp
    try:
        text = "".join(run_command(c, env, cwd, tmp) for c in commands if c.strip())
    finally:
        shutil.rmtree(bindir)
        if tmp:
            shutil.rmtree(tmp)
    return "```\n" + text + "```\n"


def regenerate(source, kmtrace, top, live):
    """FILE's text with every run block (and live blocks if asked) redone."""
    def redo(m):
        kind, body, old = m.group(1), m.group(2), m.group(3)
        if kind == "live" and not live:
            new = old
        else:
            new = render(kind, body.split("\n"), kmtrace, top)
        return f"<!-- {kind}\n{body}\n-->\n{new}<!-- end -->\n"
    return BLOCK.sub(redo, source)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kmtrace, path = os.path.realpath(sys.argv[1]), sys.argv[2]
    flags = sys.argv[3:]
    top = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    with open(path) as f:
        source = f.read()
    if not BLOCK.search(source):
        sys.exit(f"{path}: no run or live block")
    new = regenerate(source, kmtrace, top, "--live" in flags)
    if "--check" in flags:
        if new != source:
            old_lines, new_lines = source.splitlines(), new.splitlines()
            for i, (a, b) in enumerate(zip(old_lines, new_lines)):
                if a != b:
                    print(f"{path}:{i + 1}: stale: has '{a}', a run now gives '{b}'")
                    break
            else:
                print(f"{path}: stale: {len(old_lines)} lines, a run now gives {len(new_lines)}")
            print("regenerate it with: make examples")
            sys.exit(1)
        n = len(BLOCK.findall(source))
        print(f"{path}: {n} example blocks, every run block as kmtrace prints it now")
        return
    with open(path, "w") as f:
        f.write(new)


if __name__ == "__main__":
    main()
