#!/usr/bin/env python3
"""Hostile inputs for kmtrace report, made from scratch (no recording needed).

usage: hostile.py DIR FORMATS [TRACES]

Writes into DIR:
  div0.dat        trace.dat v6 whose kmalloc print format divides by zero
                  (libtraceevent folds it while parsing: SIGFPE)
  divfield.dat    a print format dividing by a field that is 0 in the records
                  (SIGFPE when printed)
  symbolic.dat    a malformed __print_symbolic(REC->x)(1)
  hexlen.dat      a __print_hex() whose length a record sets past its end
  printk.dat      printk formats and cmdlines lines of odd shapes
  cpustat.dat     per-CPU stats with counts no kernel keeps (2^64-1, -1)
  bigfield.dat    a field far past any record, another with a negative offset
  unordered.dat   events whose timestamps go back and jump 10^5 s ahead
  impossible.dat  a kmalloc of 2^60 bytes and a page allocation of order 200
  escape.txt      ftrace text whose unparsed lines and comm carry terminal escapes
  unordered.txt   ftrace text with times out of order and one out of range
  span.txt        page allocations and faults 10^5 s apart (for --timeline)
  forks.dat       one task with 10,000 mmaps, then 10,000 forks, each child mapping
                  once (the vm map of each child was a copy of the parent's),
                  in the Linux 6.18 formats kmtrace ships (FORMATS)
  textfmt/        --formats DIR whose kmalloc has a field at offset 60000, and
  textfmt.txt     a short line of it (the record was sized from the line)
and, given the traces directory, from its perf.data:
  nrcpus.data     HEADER_NRCPUS of 10,000,000
"""
import os
import struct
import sys

PAGE = 4096
COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
HEADER_PAGE = ("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
HEADER_EVENT = ("# compressed entry header\n\ttype_len    :    5 bits\n"
                "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
                "\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")
KMALLOC_FIELDS = ("\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
                  "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
                  "\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
                  "\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
                  "\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
                  "\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n\n")
KMALLOC_PRINT = ('"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu node=%d", '
                 '(void *)REC->call_site, REC->ptr, REC->bytes_req, REC->bytes_alloc, REC->node')
PAGE_ALLOC = ("name: mm_page_alloc\nID: 664\nformat:\n" + COMMON +
              "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
              "\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
              "\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
              "\tfield:int migratetype;\toffset:32;\tsize:4;\tsigned:1;\n\n"
              'print fmt: "pfn=0x%lx order=%d migratetype=%d", REC->pfn, REC->order, '
              "REC->migratetype\n")


def kmalloc_format(print_fmt=KMALLOC_PRINT, fields=KMALLOC_FIELDS, name="kmalloc"):
    """kmalloc's format; named otherwise, an event no plugin prints (libtraceevent does)."""
    return (f"name: {name}\nID: 658\nformat:\n" + COMMON + fields + "print fmt: " + print_fmt +
            "\n")


def kmalloc(pid, ptr, req, alloc):
    return struct.pack("<HBBiQQQQQi", 658, 0, 0, pid, 0xffffffff81234560, ptr, req, alloc,
                       0xcc0, -1)


def page_alloc(pid, pfn, order):
    return struct.pack("<HBBiQIxxxxQi", 664, 0, 0, pid, pfn, order, 0xcc0, 0)


def page(events):
    """One sub-buffer: [(absolute ts, payload)], times not going back within it."""
    base = events[0][0] if events else 0
    body, last = b"", base
    for ts, payload in events:
        payload += b"\0" * (-len(payload) % 4)
        body += struct.pack("<I", (len(payload) // 4) | ((ts - last) << 5)) + payload
        last = ts
    return struct.pack("<QQ", base, len(body)) + body + b"\0" * (PAGE - 16 - len(body))


def blob64(text):
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


def tracedat(formats, cpus, options=(), kallsyms="", printk="", cmdlines="100 hostile\n"):
    """formats: [(system, text)]; cpus: [[page bytes]]; options: [(id, bytes)]."""
    h = b"\x17\x08\x44tracing" + b"6\0" + b"\0\x08" + struct.pack("<I", PAGE)
    h += b"header_page\0" + blob64(HEADER_PAGE) + b"header_event\0" + blob64(HEADER_EVENT)
    h += struct.pack("<I", 0)
    systems = []
    for sys_name, _ in formats:
        if sys_name not in systems:
            systems.append(sys_name)
    h += struct.pack("<I", len(systems))
    for sys_name in systems:
        texts = [t for s, t in formats if s == sys_name]
        h += sys_name.encode() + b"\0" + struct.pack("<I", len(texts))
        h += b"".join(blob64(t) for t in texts)
    h += struct.pack("<I", len(kallsyms)) + kallsyms.encode()
    h += struct.pack("<I", len(printk.encode())) + printk.encode()
    h += blob64(cmdlines)
    h += struct.pack("<I", len(cpus)) + b"options  \0"
    for oid, data in options:
        h += struct.pack("<HI", oid, len(data)) + data
    h += struct.pack("<H", 0) + b"flyrecord\0"
    off = len(h) + 16 * len(cpus)
    table, data = b"", b""
    for pages in cpus:
        pad = -(off) % PAGE
        off += pad
        data += b"\0" * pad
        size = PAGE * len(pages)
        table += struct.pack("<QQ", off, size)
        data += b"".join(pages)
        off += size
    return h + table + data


def kmalloc_pages(n=4, req=0):
    return [page([(1000 + i * 10, kmalloc(100, 0x1000 + i * 64, req, 64)) for i in range(n)])]


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def trace_dats(out):
    ks = "ffffffff81000000 T _stext\nffffffff81234560 T hostile_site\nffffffff81240000 T end\n"
    for name, pf in (("div0", '"%d", 5 / 0'),
                     ("divfield", '"x=%d", 5 / REC->bytes_req'),
                     ("symbolic", '"x=%d", __print_symbolic(REC->node)(1)'),
                     ("hexlen", '"%s", __print_hex(REC->ptr, REC->bytes_req)')):
        write(f"{out}/{name}.dat", tracedat([("kmem", kmalloc_format(pf, name="hostile"))],
                                            [kmalloc_pages(4, 0 if name != "hexlen" else 60000)],
                                            kallsyms=ks))
    printk = ("0xffffffff82000000 : \"ok %d\\n\"\n" "0xffffffff82000010 : \n" ": \"no address\"\n"
              "nonsense\n" "0xffffffff82000020 : \"" + "x" * 3000 + "\"\n" "0x1 : \"\"\"\n")
    cmdlines = "100 hostile\n-5 neg\n999999999999 big\nnocomm\n42 \n7 " + "c" * 500 + "\n"
    write(f"{out}/printk.dat", tracedat([("kmem", kmalloc_format())], [kmalloc_pages()],
                                        printk=printk, cmdlines=cmdlines))
    stats = [(2, b"CPU: 0\nentries: 1\noverrun: 18446744073709551615\ncommit overrun: 0\n"
                 b"dropped events: -1\nread events: 3\n\0"),
             (2, b"CPU: 1\nentries: 0\noverrun: 99999999999999999999999\n\0")]
    write(f"{out}/cpustat.dat", tracedat([("kmem", kmalloc_format())],
                                         [kmalloc_pages(), kmalloc_pages()], options=stats))
    big = KMALLOC_FIELDS.replace("offset:48;\tsize:4;", "offset:60000;\tsize:4;")
    neg = KMALLOC_FIELDS.replace("offset:32;\tsize:8;", "offset:-8;\tsize:8;")
    write(f"{out}/bigfield.dat", tracedat([("kmem", kmalloc_format(fields=big)),
                                           ("other", kmalloc_format(fields=neg)
                                            .replace("kmalloc", "negfield").replace("658", "700"))],
                                          [kmalloc_pages()]))
    early, late = 5_000_000_000, 100_000 * 10**9
    write(f"{out}/unordered.dat", tracedat(
        [("kmem", kmalloc_format())],
        [[page([(early, kmalloc(100, 0x10, 8, 8))]), page([(1000, kmalloc(100, 0x20, 8, 8))]),
          page([(late, kmalloc(100, 0x30, 8, 8))])]]))
    write(f"{out}/impossible.dat", tracedat(
        [("kmem", kmalloc_format()), ("kmem", PAGE_ALLOC)],
        [[page([(1000, kmalloc(100, 0x10, 1 << 60, 1 << 60)), (1010, page_alloc(100, 5, 200)),
                (1020, kmalloc(100, 0x20, 8, 8)), (1030, page_alloc(100, 6, 0))])]]))


def text_inputs(out):
    esc = "\x1b]0;pwned\x07\x1b[2J"
    write(f"{out}/escape.txt",
          f"# tracer: nop\n{esc}not an event line {esc}\n"
          f" evil{esc}-123 [000] 1.000000: kmalloc: call_site=foo+0x1 ptr=0x1 bytes_req=8 "
          "bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n")
    line = ("  cat-1 [000] {t}: kmalloc: call_site=foo+0x1 ptr=0x{p:x} bytes_req=8 bytes_alloc=8 "
            "gfp_flags=GFP_KERNEL node=-1 accounted=false\n")
    write(f"{out}/unordered.txt", "".join(line.format(t=t, p=i + 1) for i, t in enumerate(
        ["5.000000", "1.000000", "3.000000", "99999999999999999999.000000", "2.000000"])))
    span = ("  cat-1 [000] {t}: mm_page_alloc: page=0x{p:x} pfn=0x{p:x} order=0 migratetype=0 "
            "gfp_flags=GFP_KERNEL\n"
            "  cat-1 [000] {t}: page_fault_user: address=0x7f0000001000 ip=0x401000 "
            "error_code=0x6\n")
    write(f"{out}/span.txt", span.format(t="1.000000", p=1) + span.format(t="100001.000000", p=2))
    os.makedirs(f"{out}/textfmt/kmem/kmalloc", exist_ok=True)
    write(f"{out}/textfmt/kmem/kmalloc/format",
          kmalloc_format(fields=KMALLOC_FIELDS.replace("offset:48;\tsize:4;", "offset:60000;\tsize:4;")))
    write(f"{out}/textfmt.txt", "cat-1 [000] 1.000000: kmalloc: call_site=foo+0x1 ptr=0x1 node=5\n")


def shipped(formats, system, event):
    """The format text of a shipped event and its fields: {name: (offset, size, dynamic)}."""
    text = open(f"{formats}/{system}/{event}/format").read()
    fields = {}
    for line in text.splitlines():
        if "field:" not in line:
            continue
        parts = dict(p.strip().split(":", 1) for p in line.strip().split(";") if ":" in p)
        name = parts["field"].split()[-1].split("[")[0]
        fields[name] = (int(parts["offset"]), int(parts["size"]), "__data_loc" in parts["field"])
    ident = int(text.split("ID:")[1].split()[0])
    return text, ident, fields


def record(fmt, pid, **values):
    """A payload of the shipped format @fmt with @values (strings go after the fixed part)."""
    text, ident, fields = fmt
    size = max(o + s for o, s, _ in fields.values())
    buf = bytearray(size)
    values = dict(values, common_type=ident, common_pid=pid)
    for name, v in values.items():
        off, sz, dyn = fields[name]
        if dyn:
            data = v.encode() + b"\0"
            struct.pack_into("<I", buf, off, len(buf) | len(data) << 16)
            buf += data
        else:
            buf[off:off + sz] = (v & (1 << 8 * sz) - 1).to_bytes(sz, "little")
    return bytes(buf)


def forks(formats, out):
    """10,000 mmaps of one task, then 10,000 forks, each child mapping once."""
    enter = shipped(formats, "syscalls", "sys_enter_mmap")
    exit_ = shipped(formats, "syscalls", "sys_exit_mmap")
    fork = shipped(formats, "sched", "sched_process_fork")
    events, t = [], 1000

    def mmap(pid, addr):
        nonlocal t
        events.append((t, record(enter, pid, __syscall_nr=9, addr=0, len=4096, prot=3,
                                 flags=0x22, fd=-1, off=0)))
        events.append((t + 1, record(exit_, pid, __syscall_nr=9, ret=addr)))
        t += 2
    for i in range(10000):
        mmap(100, 0x7f0000000000 + i * 0x2000)
    for c in range(1000, 11000):
        events.append((t, record(fork, 100, parent_comm="big", parent_pid=100,
                                 child_comm="big", child_pid=c)))
        t += 1
        mmap(c, 0x7e0000000000)
    pages, cur, used = [], [], 0
    for ev in events:
        if used + 4 + len(ev[1]) + 4 > PAGE - 16:
            pages.append(page(cur))
            cur, used = [], 0
        cur.append(ev)
        used += 4 + len(ev[1]) + 4
    pages.append(page(cur))
    write(f"{out}/forks.dat", tracedat([("syscalls", enter[0]), ("syscalls", exit_[0]),
                                        ("sched", fork[0])], [pages]))


def nrcpus(src, dst):
    """perf.data @src with HEADER_NRCPUS (feature bit 7) set to 10,000,000."""
    data = bytearray(open(src, "rb").read())
    data_off, data_size = struct.unpack_from("<QQ", data, 40)
    bits = int.from_bytes(data[72:104], "little")
    at = data_off + data_size
    for bit in range(256):
        if not bits >> bit & 1:
            continue
        if bit == 7:
            off, size = struct.unpack_from("<QQ", data, at)
            struct.pack_into("<II", data, off, 10_000_000, 10_000_000)
            break
        at += 16
    else:
        sys.exit(f"{src}: no HEADER_NRCPUS")
    open(dst, "wb").write(data)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("\n\n")[1])
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    trace_dats(out)
    text_inputs(out)
    forks(sys.argv[2], out)
    if len(sys.argv) == 4:
        nrcpus(f"{sys.argv[3]}/perf-small.data", f"{out}/nrcpus.data")


if __name__ == "__main__":
    main()
