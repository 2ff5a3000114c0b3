#!/usr/bin/env python3
"""Recount kmtrace's stack views from another tool's text.

  stack_recount.py tracecmd FUNC < trace-cmd-report.txt
      Allocations (kmalloc, kmem_cache_alloc, mm_page_alloc) of a
      `kmtrace record -g` recording whose kernel stack, as trace-cmd report
      prints it after the event on the same CPU, passes through FUNC:
      "allocs N".

  stack_recount.py callers < trace-cmd-report.txt
      The page allocations of a `kmtrace record -g` recording per calling
      function: the first frame of each mm_page_alloc's stack once the
      tracepoint plumbing is dropped and the allocator frames are cut
      ("caller FUNC ALLOCS PAGES" lines), and "plumbing N": the stacks
      that had plumbing frames.

  stack_recount.py peaks KALLSYMS < trace-cmd-report-t.txt
      Per kernel stack of a `kmtrace record -g` recording (frames named
      from KALLSYMS, the tracepoint plumbing dropped and the allocator
      frames cut as above), the most slab bytes and the most pages live at
      once and when that was first reached (from `trace-cmd report -t`'s
      nanoseconds): "slab BYTES NS" and "page PAGES NS" lines, sorted.
      Frees end the object allocated at their pointer or pfn, whatever its
      stack; an allocation over a live one ends that one first; batched
      page frees repeat mm_page_free's and count for nothing.

  stack_recount.py perf < perf-script.txt
      From `perf script` of a perf record -g of kmem:kmalloc, kmem:kfree,
      kmem:mm_page_alloc and kmem:mm_page_free: the pages allocated per
      stack, with the allocator frames cut off the top by the prefix list
      kmtrace-report(1) documents ("stack PAGES f1;f2;..." lines, innermost
      first, function names only), and what is outstanding at the end as
      the leak analysis counts it ("slab_objects N", "slab_bytes N",
      "page_blocks N").
"""
import re
import sys

# The tracepoint plumbing and the allocator frames kmtrace-report(1)
# documents (names without leading underscores).
PLUMBING_PREFIXES = (
    "traceiter_", "probestub_", "trace_event_raw_event_", "trace_event_buffer_",
    "event_triggers_call", "perf_trace_", "perf_tp_event", "trace_call_bpf", "bpf_trace_",
    "bpf_prog_enter", "bpf_prog_exit",
)
ALLOC_PREFIXES = (
    "kmalloc", "kmem_cache_alloc", "kmem_cache_free", "kfree", "kvfree", "kvmalloc",
    "kvrealloc", "krealloc", "kmemdup", "kstrdup", "kstrndup", "kvmemdup", "memdup_user",
    "vmemdup_user", "strndup_user", "slab_", "do_slab_free", "kmem_cache_alloc_bulk",
    "kmem_cache_free_bulk", "allocate_slab", "new_slab",
    "alloc_pages", "alloc_frozen_pages", "alloc_page", "folio_alloc", "vma_alloc_folio",
    "get_free_page", "get_zeroed_page", "get_page_from_freelist", "rmqueue",
    "alloc_slab_page", "alloc_contig", "alloc_pages_bulk", "free_pages", "free_page",
    "free_unref_page", "free_unref_folios", "free_frozen_pages", "free_pcppages_bulk",
    "free_one_page", "free_pages_ok",
)
EVENT = re.compile(r'^\s*\S.*?\[(\d+)\]\s+[\d.]+:\s+(?:kmem:)?(\w+):\s*(.*)$')
ALLOCS = ("kmalloc", "kmem_cache_alloc", "mm_page_alloc")
# The events kmtrace record -g takes stacks of.
STACK_EVENTS = ALLOCS + ("kfree", "kmem_cache_free", "mm_page_free", "mm_page_free_batched")


def tracecmd(func):
    # Per CPU, the events that wait for their stack, latest last: an interrupt
    # may come between an event and its stack with an event and stack of its own.
    waiting = {}
    reading = None      # [cpu, frames] of the stack being read
    allocs = 0

    def done(cpu, frames):
        if waiting.get(cpu):
            return waiting[cpu].pop() in ALLOCS and func in frames
        return False

    for line in sys.stdin:
        if line.startswith("=>"):
            if reading:
                reading[1].append(line[2:].split()[0])
            continue
        m = EVENT.match(line)
        if not m:
            continue
        if reading:
            allocs += done(*reading)
            reading = None
        cpu, name = int(m.group(1)), m.group(2)
        if name == "kernel_stack":
            reading = [cpu, []]
        elif name in STACK_EVENTS:
            waiting.setdefault(cpu, []).append(name)
    if reading:
        allocs += done(*reading)
    print("allocs", allocs)


def plumbing(frame):
    return frame.lstrip("_").startswith(PLUMBING_PREFIXES) or frame.endswith("[bpf]")


def cut(frames):
    frames = [f for f in frames if not plumbing(f)]
    i = 0
    while i < len(frames) and frames[i].lstrip("_").startswith(ALLOC_PREFIXES):
        i += 1
    return frames[i:]


def callers():
    """mm_page_alloc's callers, from trace-cmd report's stacks."""
    waiting = {}        # per CPU: (event, order) waiting for its stack, latest last
    reading = None      # [cpu, frames]
    rows, with_plumbing = {}, 0

    def done(cpu, frames):
        nonlocal with_plumbing
        if not waiting.get(cpu):
            return
        name, order = waiting[cpu].pop()
        if name != "mm_page_alloc" or order is None:
            return
        with_plumbing += any(plumbing(f) for f in frames)
        rest = cut(frames)
        if rest:
            r = rows.setdefault(rest[0], [0, 0])
            r[0] += 1
            r[1] += 1 << order

    for line in sys.stdin:
        if line.startswith("=>"):
            if reading:
                words = line[2:].split()
                reading[1].append(words[0] + (" [bpf]" if "[bpf]" in words else ""))
            continue
        m = EVENT.match(line)
        if not m:
            continue
        if reading:
            done(*reading)
            reading = None
        cpu, name = int(m.group(1)), m.group(2)
        if name == "kernel_stack":
            reading = [cpu, []]
        elif name in STACK_EVENTS:
            pfn = field(m.group(3), "pfn") if name == "mm_page_alloc" else 0
            failed = pfn is None or pfn in ((1 << 64) - 1, -1)
            waiting.setdefault(cpu, []).append(
                (name, None if failed else field(m.group(3), "order")))
    if reading:
        done(*reading)
    for func in sorted(rows):
        print("caller", func, *rows[func])
    print("plumbing", with_plumbing)


def field(text, name):
    m = re.search(r'\b' + name + r'=(\S+)', text)
    if not m:
        return None
    return 0 if m.group(1) == "(nil)" else int(m.group(1), 0)


def symbolizer(path):
    """A function naming a kernel address from a kallsyms file."""
    import bisect
    syms = []
    for line in open(path):
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    starts = [a for a, _ in syms]

    def name(addr):
        i = bisect.bisect_right(starts, addr) - 1
        return syms[i][1] if i >= 0 else hex(addr)
    return name


def peaks(kallsyms):
    name = symbolizer(kallsyms)
    waiting = {}        # per CPU: allocations waiting for their stack, latest last
    reading = None      # [cpu, addresses]
    live = {"slab": {}, "page": {}}     # pointer or pfn -> (stack, amount)
    rows = {"slab": {}, "page": {}}     # stack -> [live, peak, peak_ts]

    def move(kind, stack, amount, ts):
        r = rows[kind].setdefault(stack, [0, 0, 0])
        r[0] += amount
        if r[0] > r[1]:
            r[1], r[2] = r[0], ts

    def end(kind, key):
        old = live[kind].pop(key, None)
        if old:
            move(kind, old[0], -old[1], 0)

    def done(cpu, frames):
        if not waiting.get(cpu):
            return
        item = waiting[cpu].pop()
        if item is None:
            return
        kind, key, amount, ts = item
        named = [name(a) for a in frames]
        kept = [a for a, n in zip(frames, named) if not plumbing(n)]
        cutn = cut([n for n in named if not plumbing(n)])
        stack = tuple(kept[len(kept) - len(cutn):]) if cutn else ()
        end(kind, key)
        live[kind][key] = (stack, amount)
        move(kind, stack, amount, ts)

    for line in sys.stdin:
        if line.startswith("=>"):
            if reading:
                reading[1].append(int(line[2:].split()[0], 16))
            continue
        m = re.match(r'^\s*\S.*?\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$', line)
        if not m:
            continue
        if reading:
            done(*reading)
            reading = None
        cpu, name_, text = int(m.group(1)), m.group(4), m.group(5)
        ts = int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0")[:9])
        if name_ == "kernel_stack":
            reading = [cpu, []]
            continue
        if name_ not in STACK_EVENTS:
            continue
        item = None
        if name_ in ("kmalloc", "kmem_cache_alloc"):
            ptr = field(text, "ptr")
            if ptr:
                item = ("slab", ptr, field(text, "bytes_alloc"), ts)
        elif name_ in ("kfree", "kmem_cache_free"):
            end("slab", field(text, "ptr"))
        elif name_ == "mm_page_alloc":
            pfn = field(text, "pfn")
            if pfn is not None and pfn not in ((1 << 64) - 1, -1):
                item = ("page", pfn, 1 << field(text, "order"), ts)
        elif name_ == "mm_page_free":
            end("page", field(text, "pfn"))
        waiting.setdefault(cpu, []).append(item)
    if reading:
        done(*reading)
    for kind in ("slab", "page"):
        for _, peak, ts in sorted(rows[kind].values(), key=lambda r: (r[1], r[2])):
            print(kind, peak, ts)


def perf():
    samples = []
    cur = None
    for line in sys.stdin:
        if line.startswith("\t") or line.startswith(" " * 8) and cur and not EVENT.match(line):
            parts = line.split()
            if cur is not None and len(parts) >= 2 and not cur[3]:
                if int(parts[0], 16) >= 0xffff800000000000:
                    cur[2].append(re.sub(r'\+0x[0-9a-f]+$', '', parts[1]))
                else:
                    cur[3] = True       # user frames: the kernel stack ended
            continue
        m = EVENT.match(line)
        if m:
            cur = [m.group(2), m.group(3), [], False]
            samples.append(cur)
    pages = {}
    live_slab, live_page = {}, {}
    for name, text, frames, _ in samples:
        if name == "kmalloc":
            ptr = field(text, "ptr")
            if ptr:
                live_slab[ptr] = field(text, "bytes_alloc")
        elif name == "kfree":
            live_slab.pop(field(text, "ptr"), None)
        elif name == "mm_page_alloc":
            pfn, order = field(text, "pfn"), field(text, "order")
            if pfn is None or pfn == (1 << 64) - 1 or pfn == -1:
                continue
            live_page[pfn] = order
            key = ";".join(cut(frames)) or "(no stack recorded)"
            pages[key] = pages.get(key, 0) + (1 << order)
        elif name == "mm_page_free":
            live_page.pop(field(text, "pfn"), None)
    for key in sorted(pages):
        print("stack", pages[key], key)
    print("slab_objects", len(live_slab))
    print("slab_bytes", sum(live_slab.values()))
    print("page_blocks", len(live_page))


if __name__ == "__main__":
    if sys.argv[1] == "tracecmd":
        tracecmd(sys.argv[2])
    elif sys.argv[1] == "callers":
        callers()
    elif sys.argv[1] == "peaks":
        peaks(sys.argv[2])
    else:
        perf()
