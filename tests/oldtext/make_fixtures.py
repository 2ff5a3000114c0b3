#!/usr/bin/env python3
"""Write the old-kernel text fixtures of traces/: ftrace text as kernels
3.10 (x86, 32-bit), 4.19 (x86-64) and 5.10 (32-bit ARM) print their kmem
events, with each kernel's event formats and a symbol map.

  make_fixtures.py OUTDIR

Each OUTDIR/linux-VERSION-ARCH/ gets:
  formats/kmem/EVENT/format  the event formats as that kernel's tracefs
                             shows them, written from its
                             include/trace/events/kmem.h (TP_STRUCT__entry
                             laid out for the architecture, TP_printk with
                             the GFP flag table of gfpflags.h / mmflags.h
                             expanded as the preprocessor does), and uname
  trace.txt                  `cat trace`: header and event lines in that
                             kernel's print formats
  System.map (kallsyms for 4.19: its module's symbols too)

The event lines come from a made-up but self-consistent workload (seeded,
so the files are the same on every run): tasks allocate from call sites
inside the map's functions, free most of it, some of it on another CPU,
with the GFP names each era printed. Nothing is measured from a kernel:
these fixtures test that kmtrace reads each era's text, so every figure in
them can be recounted from the text and the map alone.
"""
import os
import random
import sys

# ------------------------------------------------------------------ GFP tables

# 3.10 (include/linux/gfp.h, include/trace/events/gfpflags.h)
G310 = dict(WAIT=0x10, HIGH=0x20, IO=0x40, FS=0x80, COLD=0x100, NOWARN=0x200, REPEAT=0x400,
            NOFAIL=0x800, NORETRY=0x1000, MEMALLOC=0x2000, COMP=0x4000, ZERO=0x8000,
            NOMEMALLOC=0x10000, HARDWALL=0x20000, THISNODE=0x40000, RECLAIMABLE=0x80000,
            KMEMCG=0x100000, NOTRACK=0x200000, NO_KSWAPD=0x400000, OTHER_NODE=0x800000,
            HIGHMEM=0x02, MOVABLE=0x08, DMA=0x01)


def c310(*names):
    return " | ".join("(( gfp_t)0x%xu)" % G310[n] for n in names)


K310 = ("WAIT", "IO", "FS")
HUM310 = K310 + ("HARDWALL", "HIGHMEM", "MOVABLE")
TABLE_310 = [
    ("(((%s)) | %s)" % (c310(*HUM310), c310("COMP", "NOMEMALLOC", "NORETRY", "NOWARN", "NO_KSWAPD")),
     "GFP_TRANSHUGE"),
    ("((%s))" % c310(*HUM310), "GFP_HIGHUSER_MOVABLE"),
    ("((%s))" % c310(*K310, "HARDWALL", "HIGHMEM"), "GFP_HIGHUSER"),
    ("((%s))" % c310(*K310, "HARDWALL"), "GFP_USER"),
    ("((%s))" % c310(*K310, "RECLAIMABLE"), "GFP_TEMPORARY"),
    ("((%s))" % c310(*K310), "GFP_KERNEL"),
    ("((%s))" % c310("WAIT", "IO"), "GFP_NOFS"),
    ("((%s))" % c310("HIGH"), "GFP_ATOMIC"),
    ("((%s))" % c310("WAIT"), "GFP_NOIO"),
] + [("(%s)" % c310(n), "GFP_" + n) for n in (
    "HIGH", "WAIT", "IO", "COLD", "NOWARN", "REPEAT", "NOFAIL", "NORETRY", "MEMALLOC", "COMP",
    "ZERO", "NOMEMALLOC", "HARDWALL", "THISNODE", "RECLAIMABLE", "KMEMCG", "MOVABLE")] + [
    ("(( gfp_t)0)", "GFP_NOTRACK"),
    ("(%s)" % c310("NO_KSWAPD"), "GFP_NO_KSWAPD"),
    ("(%s)" % c310("OTHER_NODE"), "GFP_OTHER_NODE"),
]


def flags_310(field):
    entries = ", ".join('{(unsigned long)%s, "%s"}' % e for e in TABLE_310)
    return '(%s) ? __print_flags(%s, "|", %s) : "GFP_NOWAIT"' % (field, field, entries)


# 4.19 and 5.10 (include/linux/gfp.h, include/trace/events/mmflags.h)
G419 = dict(DMA=0x01, HIGHMEM=0x02, DMA32=0x04, MOVABLE=0x08, RECLAIMABLE=0x10, HIGH=0x20,
            IO=0x40, FS=0x80, WRITE=0x100, NOWARN=0x200, RETRY_MAYFAIL=0x400, NOFAIL=0x800,
            NORETRY=0x1000, MEMALLOC=0x2000, COMP=0x4000, ZERO=0x8000, NOMEMALLOC=0x10000,
            HARDWALL=0x20000, THISNODE=0x40000, ATOMIC=0x80000, ACCOUNT=0x100000,
            DIRECT_RECLAIM=0x200000, KSWAPD_RECLAIM=0x400000)


def c419(*names):
    return " | ".join("(( gfp_t)0x%xu)" % G419[n] for n in names)


RECLAIM = "(( gfp_t)(0x200000u|0x400000u))"
KERNEL419 = "((%s | %s))" % (RECLAIM, c419("IO", "FS"))
USER419 = "((%s | %s))" % (RECLAIM, c419("IO", "FS", "HARDWALL"))
HU419 = "((%s | %s))" % (USER419, c419("HIGHMEM"))
HUM419 = "((%s | %s))" % (HU419, c419("MOVABLE"))
THL419 = "((%s | %s) & ~%s)" % (HUM419, c419("COMP", "NOMEMALLOC", "NOWARN"), RECLAIM)
TABLE_419 = [
    ("(%s | %s)" % (THL419, c419("DIRECT_RECLAIM")), "GFP_TRANSHUGE"),
    (THL419, "GFP_TRANSHUGE_LIGHT"),
    (HUM419, "GFP_HIGHUSER_MOVABLE"), (HU419, "GFP_HIGHUSER"), (USER419, "GFP_USER"),
    ("(%s | %s)" % (KERNEL419, c419("ACCOUNT")), "GFP_KERNEL_ACCOUNT"),
    (KERNEL419, "GFP_KERNEL"),
    ("((%s | %s))" % (RECLAIM, c419("IO")), "GFP_NOFS"),
    ("((%s))" % c419("HIGH", "ATOMIC", "KSWAPD_RECLAIM"), "GFP_ATOMIC"),
    ("(%s)" % RECLAIM, "GFP_NOIO"),
    ("(%s)" % c419("KSWAPD_RECLAIM"), "GFP_NOWAIT"),
    ("(%s)" % c419("DMA"), "GFP_DMA"),
    ("(%s)" % c419("HIGHMEM"), "__GFP_HIGHMEM"),
    ("(%s)" % c419("DMA32"), "GFP_DMA32"),
] + [("(%s)" % c419(n), "__GFP_" + n) for n in (
    "HIGH", "ATOMIC", "IO", "FS", "NOWARN", "RETRY_MAYFAIL", "NOFAIL", "NORETRY", "COMP",
    "ZERO", "NOMEMALLOC", "MEMALLOC", "HARDWALL", "THISNODE", "RECLAIMABLE", "MOVABLE",
    "ACCOUNT", "WRITE")] + [
    (RECLAIM, "__GFP_RECLAIM"),
    ("(%s)" % c419("DIRECT_RECLAIM"), "__GFP_DIRECT_RECLAIM"),
    ("(%s)" % c419("KSWAPD_RECLAIM"), "__GFP_KSWAPD_RECLAIM"),
]


def flags_419(field):
    entries = ", ".join('{(unsigned long)%s, "%s"}' % e for e in TABLE_419)
    return '(%s) ? __print_flags(%s, "|", %s) : "none"' % (field, field, entries)


# ------------------------------------------------------------------ formats

COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def layout(fields, long_size):
    """TP_STRUCT__entry fields laid out after the 8 common bytes, naturally aligned."""
    sizes = {"long": long_size, "ptr": long_size, "int": 4, "uint": 4, "gfp": 4}
    types = {"long": "unsigned long", "ptr": None, "int": "int", "uint": "unsigned int",
             "gfp": "gfp_t", "size_t": "size_t", "ulong_gfp": "unsigned long"}
    out, off = [], 8
    for kind, ctype, name in fields:
        size = sizes.get(kind, long_size)
        off = (off + size - 1) // size * size
        signed = 1 if kind == "int" else 0
        out.append("\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n" %
                   (ctype or types[kind], name, off, size, signed))
        off += size
    return "".join(out)


def event_format(name, eid, fields, fmt, args, long_size):
    return ("name: %s\nID: %d\nformat:\n%s%s\nprint fmt: \"%s\", %s\n" %
            (name, eid, COMMON, layout(fields, long_size), fmt, args))


ALLOC_FIELDS = [("long", "unsigned long", "call_site"), ("ptr", "const void *", "ptr"),
                ("long", "size_t", "bytes_req"), ("long", "size_t", "bytes_alloc"),
                ("gfp", "gfp_t", "gfp_flags")]
NODE_FIELDS = ALLOC_FIELDS + [("int", "int", "node")]
FREE_FIELDS = [("long", "unsigned long", "call_site"), ("ptr", "const void *", "ptr")]


def slab_formats(v, flags, site_conv, site_arg, long_size, first_id):
    alloc = "call_site=%s ptr=%%p bytes_req=%%zu bytes_alloc=%%zu gfp_flags=%%s" % site_conv
    aargs = "%s, REC->ptr, REC->bytes_req, REC->bytes_alloc, %s" % (site_arg, flags("REC->gfp_flags"))
    return [
        ("kmalloc", event_format("kmalloc", first_id, ALLOC_FIELDS, alloc, aargs, long_size)),
        ("kmem_cache_alloc", event_format("kmem_cache_alloc", first_id + 1, ALLOC_FIELDS, alloc,
                                          aargs, long_size)),
        ("kmalloc_node", event_format("kmalloc_node", first_id + 2, NODE_FIELDS, alloc + " node=%d",
                                      aargs + ", REC->node", long_size)),
        ("kmem_cache_alloc_node", event_format("kmem_cache_alloc_node", first_id + 3, NODE_FIELDS,
                                               alloc + " node=%d", aargs + ", REC->node", long_size)),
        ("kfree", event_format("kfree", first_id + 4, FREE_FIELDS, "call_site=%s ptr=%%p" % site_conv,
                               "%s, REC->ptr" % site_arg, long_size)),
        ("kmem_cache_free", event_format("kmem_cache_free", first_id + 5, FREE_FIELDS,
                                         "call_site=%s ptr=%%p" % site_conv, "%s, REC->ptr" % site_arg,
                                         long_size)),
    ]


def page_formats_310(first_id):
    """3.10: the events keep the struct page pointer; pfn is computed (x86-32 FLATMEM)."""
    pfn = "(unsigned long)((REC->page) - mem_map)"
    return [
        ("mm_page_alloc", event_format(
            "mm_page_alloc", first_id,
            [("ptr", "struct page *", "page"), ("uint", "unsigned int", "order"),
             ("gfp", "gfp_t", "gfp_flags"), ("int", "int", "migratetype")],
            "page=%p pfn=%lu order=%d migratetype=%d gfp_flags=%s",
            "REC->page, REC->page ? %s : 0, REC->order, REC->migratetype, %s" %
            (pfn, flags_310("REC->gfp_flags")), 4)),
        ("mm_page_free", event_format(
            "mm_page_free", first_id + 1,
            [("ptr", "struct page *", "page"), ("uint", "unsigned int", "order")],
            "page=%p pfn=%lu order=%d", "REC->page, %s, REC->order" % pfn, 4)),
        ("mm_page_free_batched", event_format(
            "mm_page_free_batched", first_id + 2,
            [("ptr", "struct page *", "page"), ("int", "int", "cold")],
            "page=%p pfn=%lu order=0 cold=%d", "REC->page, %s, REC->cold" % pfn, 4)),
    ]


def page_formats_pfn(first_id, long_size, page_of):
    """4.19 and 5.10: the events keep the pfn, printed %lu; page is computed."""
    page = "REC->pfn != -1UL ? %s : ((void *)0)" % page_of
    return [
        ("mm_page_alloc", event_format(
            "mm_page_alloc", first_id,
            [("long", "unsigned long", "pfn"), ("uint", "unsigned int", "order"),
             ("gfp", "gfp_t", "gfp_flags"), ("int", "int", "migratetype")],
            "page=%p pfn=%lu order=%d migratetype=%d gfp_flags=%s",
            "%s, REC->pfn != -1UL ? REC->pfn : 0, REC->order, REC->migratetype, %s" %
            (page, flags_419("REC->gfp_flags")), long_size)),
        ("mm_page_free", event_format(
            "mm_page_free", first_id + 1,
            [("long", "unsigned long", "pfn"), ("uint", "unsigned int", "order")],
            "page=%p pfn=%lu order=%d", "%s, REC->pfn, REC->order" % page_of, long_size)),
        ("mm_page_free_batched", event_format(
            "mm_page_free_batched", first_id + 2, [("long", "unsigned long", "pfn")],
            "page=%p pfn=%lu order=0", "%s, REC->pfn" % page_of, long_size)),
    ]


# ------------------------------------------------------------------ kernels

class Kernel:
    def __init__(self, **kw):
        self.__dict__.update(kw)


# Functions the call sites are in, of every era (each adds one of its own).
FUNCTIONS = ["alloc_pipe_info", "getname_flags", "load_elf_binary", "__d_alloc",
             "proc_alloc_inode", "ext4_alloc_inode", "alloc_buffer_head", "bio_alloc_bioset",
             "sock_alloc_inode", "__alloc_skb", "copy_process", "mm_alloc", "do_sys_poll",
             "seq_open", "single_open"]


def gfp_slab_4x(own):
    """GFP texts of 4.x and 5.x slab allocations, one of them @own."""
    return ["GFP_KERNEL", "GFP_KERNEL|__GFP_ZERO", "GFP_ATOMIC|__GFP_NOWARN|__GFP_NOMEMALLOC",
            "GFP_NOFS", "GFP_KERNEL_ACCOUNT", "GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY", own,
            "GFP_ATOMIC"]


# ... and of their page allocations
GFP_PAGE_4X = ["GFP_HIGHUSER_MOVABLE|__GFP_ZERO", "GFP_KERNEL|__GFP_COMP",
               "GFP_KERNEL_ACCOUNT|__GFP_ZERO", "GFP_NOWAIT|__GFP_NOWARN",
               "GFP_ATOMIC|__GFP_NOWARN|__GFP_COMP|__GFP_NOMEMALLOC", "GFP_USER|__GFP_WRITE"]

KERNELS = [
    Kernel(dir="linux-3.10-i686", version="3.10.108", arch="i686", bits=32,
           uname="Linux board 3.10.108 #1 SMP PREEMPT Tue Nov 14 09:21:33 UTC 2017 i686",
           text_base=0xc1000000, module_base=None, seed=310,
           formats=lambda: slab_formats("3.10", flags_310, "%lx", "REC->call_site", 4, 336) +
           page_formats_310(343),
           site_style="bare", pfn_style="dec", null_ptr="  (null)", page_ptrs=True,
           header="3.10",
           gfp_slab=["GFP_KERNEL", "GFP_KERNEL|GFP_ZERO", "GFP_ATOMIC|GFP_NOWARN|GFP_NOMEMALLOC",
                     "GFP_NOFS", "GFP_KERNEL|GFP_REPEAT", "GFP_KERNEL|GFP_NOWARN|GFP_NORETRY",
                     "GFP_TEMPORARY", "GFP_ATOMIC"],
           gfp_page=["GFP_HIGHUSER_MOVABLE|GFP_ZERO", "GFP_KERNEL|GFP_COLD", "GFP_KERNEL|GFP_COMP",
                     "GFP_USER|GFP_COLD", "GFP_ATOMIC|GFP_NOWARN|GFP_COMP|GFP_NOMEMALLOC",
                     "GFP_KERNEL|GFP_REPEAT|GFP_COMP|GFP_ZERO"],
           functions=FUNCTIONS + ["tty_buffer_alloc"],
           modules=[]),
    Kernel(dir="linux-4.19-x86_64", version="4.19.0-27-amd64", arch="x86_64", bits=64,
           uname="Linux buster 4.19.0-27-amd64 #1 SMP Debian 4.19.316-1 (2024-06-25) x86_64",
           text_base=0xffffffff81000000, module_base=0xffffffffc0a10000, seed=419,
           formats=lambda: slab_formats("4.19", flags_419, "%lx", "REC->call_site", 8, 472) +
           page_formats_pfn(479, 8, "(((struct page *)vmemmap_base) + (REC->pfn))"),
           site_style="bare", pfn_style="dec", null_ptr="          (null)", page_ptrs=False,
           header="4.19",
           gfp_slab=gfp_slab_4x("GFP_NOWAIT|__GFP_NOWARN"),
           gfp_page=GFP_PAGE_4X,
           functions=FUNCTIONS + ["kernfs_fop_open"],
           modules=[("memleak", ["memleak_task_test", "memleak_task_free"])]),
    Kernel(dir="linux-5.10-armhf", version="5.10.0-32-armmp", arch="armv7l", bits=32,
           uname="Linux bullseye 5.10.0-32-armmp #1 SMP Debian 5.10.223-1 (2024-08-10) armv7l",
           text_base=0xc0100000, module_base=0xbf000000, seed=510,
           formats=lambda: slab_formats("5.10", flags_419, "%pS", "(void *)REC->call_site", 4, 418) +
           page_formats_pfn(425, 4, "(mem_map + ((REC->pfn) - (__pv_phys_pfn_offset)))"),
           site_style="symbol", pfn_style="dec", null_ptr="00000000", page_ptrs=False,
           header="5.10",
           gfp_slab=gfp_slab_4x("__GFP_HIGH|__GFP_ATOMIC"),
           gfp_page=GFP_PAGE_4X,
           functions=FUNCTIONS + ["kernfs_fop_open"],
           modules=[("brcmfmac", ["brcmf_fweh_process_event", "brcmf_sdio_readframes"])]),
]

# The header of cat trace, the same in these versions.
HEADER = ["#                              _-----=> irqs-off",
          "#                             / _----=> need-resched",
          "#                            | / _---=> hardirq/softirq",
          "#                            || / _--=> preempt-depth",
          "#                            ||| /     delay",
          "#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION",
          "#              | |       |   ||||       |         |"]

TASKS = [("sh", 1204), ("ls", 1311), ("cat", 1312), ("kworker/0:1", 27), ("dropbear", 988),
         ("<idle>", 0), ("syslogd", 701)]


# ------------------------------------------------------------------ symbols

def symbols(k, rnd):
    """Functions at made-up addresses: (name, start, size, module)."""
    syms, at = [("_text", k.text_base, 0, None)], k.text_base + 0x1000
    for name in k.functions:
        size = rnd.randrange(0x80, 0x600, 4)
        at += rnd.randrange(0x100, 0x4000, 16)
        syms.append((name, at, size, None))
        at += size
    syms.append(("_etext", at + 0x100000, 0, None))
    mat = k.module_base
    for mod, names in k.modules:
        for name in names:
            size = rnd.randrange(0x80, 0x300, 4)
            syms.append((name, mat, size, mod))
            mat += size + rnd.randrange(0x10, 0x100, 4)
        syms.append(("cleanup_module", mat, 0, mod))	# where the functions end
        mat += 0x40
    return syms


def write_map(k, syms, path):
    width = k.bits // 4
    with open(path, "w") as f:
        for name, start, _, mod in syms:
            f.write("%0*x %s %s%s\n" % (width, start, "T" if mod is None else "t", name,
                                        "\t[%s]" % mod if mod else ""))


# ------------------------------------------------------------------ workload

def make_events(k, syms, rnd):
    funcs = [s for s in syms if s[2]]
    sites = []
    for name, start, size, mod in funcs:
        sites.append((name, start, size, mod, rnd.randrange(0x10, size - 8, 4)))
    caches = [32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096]
    width = k.bits // 4
    live, pages, events, nslab, npage = {}, {}, [], 0, 0
    ts = 5012.000000 if k.bits == 32 else 812.000000
    ptr_base = 0xf5000000 if k.bits == 32 else 0xffff888004000000
    next_ptr, next_pfn = ptr_base, 0x21000
    for step in range(900):
        ts += rnd.randrange(3, 400) / 1e6
        comm, pid = TASKS[rnd.randrange(len(TASKS))]
        cpu = rnd.randrange(2)
        r = rnd.random()
        if r < 0.45:
            site = sites[rnd.randrange(len(sites))]
            req = rnd.choice([13, 24, 40, 60, 100, 200, 300, 500, 700, 1500, 3000])
            alloc = next(c for c in caches if c >= req)
            ev = rnd.choice(["kmalloc", "kmem_cache_alloc", "kmalloc", "kmalloc_node",
                             "kmem_cache_alloc", "kmem_cache_alloc_node"])
            gfp = k.gfp_slab[rnd.randrange(len(k.gfp_slab))]
            nslab += 1
            failed = nslab in (57, 301)
            ptr = 0 if failed else next_ptr
            if not failed:
                next_ptr += alloc + 64 * rnd.randrange(1, 8)
                live[ptr] = (site, cpu)
            events.append((ts, comm, pid, cpu, ev, dict(site=site, ptr=ptr, req=req, alloc=alloc,
                                                        gfp=gfp, node=0 if ev.endswith("_node") else None)))
        elif r < 0.80 and live:
            ptr = rnd.choice(sorted(live))
            site = live.pop(ptr)[0]
            ev = rnd.choice(["kfree", "kmem_cache_free"])
            events.append((ts, comm, pid, cpu, ev, dict(site=site, ptr=ptr)))
        elif r < 0.92:
            order = rnd.choice([0, 0, 0, 0, 1, 2, 3])
            gfp = k.gfp_page[rnd.randrange(len(k.gfp_page))]
            mt = 2 if "MOVABLE" in gfp else 0
            npage += 1
            failed = npage == 40
            pfn = None if failed else next_pfn
            if not failed:
                next_pfn += (1 << order) * rnd.randrange(1, 4)
                pages[pfn] = order
            events.append((ts, comm, pid, cpu, "mm_page_alloc", dict(pfn=pfn, order=order, mt=mt, gfp=gfp)))
        elif pages:
            pfn = rnd.choice(sorted(pages))
            order = pages.pop(pfn)
            events.append((ts, comm, pid, cpu, "mm_page_free", dict(pfn=pfn, order=order)))
            if order == 0 and rnd.random() < 0.3:    # freed from a list: traced twice
                events.append((ts + 1e-6, comm, pid, cpu, "mm_page_free_batched",
                               dict(pfn=pfn, order=0)))
    # a free of a pointer allocated before the trace began
    events.append((ts + 0.0001, "sh", 1204, 0, "kfree", dict(site=sites[0], ptr=ptr_base - 0x4000)))
    return events, width


def site_text(k, site):
    name, start, size, mod, off = site
    if k.site_style == "symbol":
        return "%s+0x%x/0x%x%s" % (name, off, size, " [%s]" % mod if mod else "")
    return "%0*x" % (k.bits // 4, start + off)


def hashed(k, value):
    """%p from 4.15 on: a per-boot hash of the pointer, the same for the same one."""
    if k.header == "3.10":
        return value
    return (value * 0x9e3779b1 + 0x7f4a7c15) & 0xffffffff


def ptr_text(k, ptr):
    return k.null_ptr if ptr == 0 else "%0*x" % (k.bits // 4, hashed(k, ptr))


def page_text(k, pfn):
    """page= of a page event: the struct page pointer (hashed by 4.15 and later)."""
    if pfn is None:
        return k.null_ptr
    return "%0*x" % (k.bits // 4, hashed(k, (0xf6800000 if k.bits == 32 else 0xffffea0000000000) +
                                         pfn * 32))


def event_fields(k, ev, f):
    if ev in ("kfree", "kmem_cache_free"):
        return "call_site=%s ptr=%s" % (site_text(k, f["site"]), ptr_text(k, f["ptr"]))
    if ev.startswith("km"):
        text = "call_site=%s ptr=%s bytes_req=%d bytes_alloc=%d gfp_flags=%s" % (
            site_text(k, f["site"]), ptr_text(k, f["ptr"]), f["req"], f["alloc"], f["gfp"])
        return text + (" node=%d" % f["node"] if f["node"] is not None else "")
    pfn = f["pfn"]
    if ev == "mm_page_alloc":
        return "page=%s pfn=%d order=%d migratetype=%d gfp_flags=%s" % (
            page_text(k, pfn), pfn if pfn is not None else 0, f["order"], f["mt"], f["gfp"])
    if ev == "mm_page_free_batched":
        return "page=%s pfn=%d order=0%s" % (page_text(k, pfn), pfn,
                                              " cold=0" if k.header == "3.10" else "")
    return "page=%s pfn=%d order=%d" % (page_text(k, pfn), pfn, f["order"])


def write_trace(k, events, path):
    with open(path, "w") as f:
        f.write("# tracer: nop\n#\n# entries-in-buffer/entries-written: %d/%d   #P:2\n#\n" %
                (len(events), len(events)))
        f.write("\n".join(HEADER) + "\n")
        for ts, comm, pid, cpu, ev, fields in events:
            flags = "..s2" if comm == "<idle>" else "...1"
            f.write("%16s-%-5d [%03d] %s %12.6f: %s: %s\n" % (comm, pid, cpu, flags, ts, ev,
                                                             event_fields(k, ev, fields)))


def write_formats(k, root):
    for name, text in k.formats():
        d = os.path.join(root, "formats", "kmem", name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "format"), "w") as f:
            f.write(text)
    with open(os.path.join(root, "formats", "uname"), "w") as f:
        f.write(k.uname + "\n")


def main():
    out = sys.argv[1]
    for k in KERNELS:
        rnd = random.Random(k.seed)
        root = os.path.join(out, k.dir)
        os.makedirs(root, exist_ok=True)
        syms = symbols(k, rnd)
        write_map(k, syms, os.path.join(root, "kallsyms" if k.modules and k.site_style == "bare"
                                        else "System.map"))
        events, _ = make_events(k, syms, rnd)
        write_trace(k, events, os.path.join(root, "trace.txt"))
        write_formats(k, root)


if __name__ == "__main__":
    main()
