#!/bin/bash
# How the seed corpora in tests/fuzz/corpus/ were made (run from the top of
# the tree, as root, with kmtrace, trace-cmd and perf built or installed):
#   bash tests/fuzz/seeds.sh
# The seeds are small on purpose: libFuzzer mutates short inputs faster.
set -eu
K=${KMTRACE:-./kmtrace}
C=tests/fuzz/corpus
T=$(mktemp -d /tmp/kmtrace-seeds.XXXXXX)
trap 'rm -rf "$T"' EXIT
export PERF_BUILDID_DIR=$T/buildid
mkdir -p $C/tracedat $C/tracecmd $C/perfdata $C/text $C/text_formats $C/plugins $C/diff

# trace.dat v6: hostile inputs, the synthetic plugin events, two small recordings
python3 tests/hostile.py "$T/h" formats/linux-6.18
cp "$T"/h/{div0,divfield,symbolic,hexlen,printk,cpustat,bigfield,unordered,impossible}.dat $C/tracedat/
make -s build/synth-dat && build/synth-dat $C/tracedat/synth.dat
"$K" record --no-kallsyms -f -o $C/tracedat/command.dat -e kmem:kmalloc -e kmem:kfree \
	-e kmem:kmem_cache_alloc -e kmem:mm_page_alloc -e kmem:mm_page_free -e kmem:rss_stat \
	-e exceptions:page_fault_user -e sched:sched_process_fork -e sched:sched_process_exec \
	-e sched:sched_process_exit -e syscalls:sys_enter_mmap -e syscalls:sys_exit_mmap \
	-e oom:mark_victim -- true
"$K" record --no-kallsyms -f -o $C/tracedat/systemwide.dat -e kmem:kmalloc -e kmem:kfree -b 64 -d 0.02
# record --user-sample's raw_data records (every call of a short program)
"$K" record --no-kallsyms -f -o $C/tracedat/usample.dat -e kmem:kmalloc --user-sample=1 -- date
# ... and sampled, with the library's exact counts per call site (sites records)
"$K" record --no-kallsyms -f -o $C/tracedat/usites.dat -e kmem:kmalloc --user-sample=4K -- date

# trace-cmd's version 7, compressed and not
trace-cmd convert -i $C/tracedat/command.dat -o $C/tracecmd/command-zstd.dat --file-version 7 \
	--compression any
trace-cmd convert -i $C/tracedat/synth.dat -o $C/tracecmd/synth-none.dat --file-version 7 \
	--compression none

# perf.data: file mode, -z -g, pipe mode
perf record -N -q -e kmem:kmalloc -e kmem:kfree -e kmem:mm_page_alloc -o $C/perfdata/file.data -- true
perf record -N -q -z -g -e kmem:kmalloc -e kmem:mm_page_alloc -o $C/perfdata/zg.data -- true
perf record -N -q -e kmem:kfree -o - -- true >$C/perfdata/pipe.data

# ftrace text
head -n 60 traces/instance-trace.txt >$C/text/instance.txt
trace-cmd report -t -i $C/tracedat/command.dat 2>/dev/null | head -n 40 >$C/text/trace-cmd.txt
cp "$T"/h/{escape,unordered,span}.txt $C/text/

# --formats: a format, "#text", lines of it
for ev in kmalloc kmem_cache_alloc mm_page_alloc; do
	{ cat formats/linux-6.18/kmem/$ev/format; echo "#text"
	  grep " $ev: " traces/instance-trace.txt | head -n 5; } >$C/text_formats/$ev
done

# plugins: u16 length, a format (its length % 4 picks the system), a record of it
python3 - formats/linux-6.18 $C/plugins <<'PY'
import os, struct, sys
fmts, out = sys.argv[1:3]
systems = ["kmem", "exceptions", "oom", "kmtrace"]
for sysname in ("kmem", "exceptions", "oom"):
    for ev in sorted(os.listdir(f"{fmts}/{sysname}")):
        text = open(f"{fmts}/{sysname}/{ev}/format").read()
        while len(text) % 4 != systems.index(sysname):
            text += "\n"
        ident = int(text.split("ID:")[1].split()[0])
        rec = struct.pack("<HBBi", ident, 0, 0, 42) + bytes(range(1, 57))
        open(f"{out}/{sysname}-{ev}", "wb").write(struct.pack("<H", len(text)) + text.encode() + rec)
PY

# kmtrace diff: two JSON reports, NUL between them (one alone: against itself)
mkdir -p $C/diff
"$K" report -i traces/small.dat --format json slab --caller --cache -l 4 leak -l 3 stat >$C/diff/one.json
"$K" report -i traces/stacks.dat --kallsyms traces/stacks.kallsyms --format json slab --caller -l 4 \
	leak -l 3 >"$T/stacks.json"
{ cat $C/diff/one.json; printf '\0'; cat "$T/stacks.json"; } >$C/diff/two.json
ls -la $C/*
