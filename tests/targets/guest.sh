#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
# Boot a Debian kernel under qemu with the static recorder, busybox and a
# workload in an initramfs, record there, and bring the results out over the
# serial console (a gzipped tar, base64 between markers: no guest driver
# needed):
#   guest.sh KERNEL-DEB RECORDER BUSYBOX WORK QEMU...
# KERNEL-DEB is a Debian linux-image .deb (its vmlinuz is booted); RECORDER
# the static kmtrace-record and BUSYBOX a static busybox, both for the
# guest's architecture; QEMU the machine to run, e.g. "qemu-system-x86_64
# -cpu max" or "qemu-system-aarch64 -M virt -cpu cortex-a57"; exit status 3
# when it did not finish in KMT_GUEST_TIMEOUT seconds (300). WORK/out gets:
#   command.dat   kmtrace-record -- the workload (default events), command.err;
#                 fixture.dat a small command's, without kallsyms
#   guest.dat     kmtrace-record of the default events, system-wide, from
#                 before the workload to SIGINT after it; record.err (with
#                 time -v's figures), record.status (its /proc status then)
#   text.txt      `cat trace` of an instance made with the shell, slab and
#                 page events, the same workload; text.dat the same buffer
#                 taken out afterwards with kmtrace-record --extract
#   formats/      the guest's events/*/*/format and uname -a; kallsyms, vmstat.*
#   boot.dat      with KMT_GUEST_BOOT_ARGS on the kernel command line (boot-time
#                 kmem tracing into instance kmtrace-boot, or the top-level
#                 buffer): that buffer, extracted first thing (boot.err,
#                 boot.rc, boot.stats: its CPUs' stats)
set -eu
. "$(dirname "$0")/boot.sh"

deb=$1 recorder=$2 busybox=$3 work=$4
shift 4
mkdir -p "$work/deb"
dpkg-deb -x "$deb" "$work/deb"
kernel=$(ls "$work"/deb/boot/vmlinuz-* | head -n 1)
make_root "$work" "$busybox" "$recorder" sh mount cat base64 sleep ls poweroff seq echo dd rm \
	rmdir mkdir cp find tar gzip time uname sed pidof grep
cat >>"$work/root/init" <<'EOF'
O=/tmp/out
mkdir -p $O
work() { /bin/workload; }
uname -a >$O/uname

# -1. the boot-time buffer: kmem events since early boot, from the kernel
# command line (trace_instance=kmtrace-boot,... where the kernel has it,
# else trace_event= into the top-level buffer), stopped and taken out first
B=
if [ -d $T/instances/kmtrace-boot ]; then B=kmtrace-boot BD=$T/instances/kmtrace-boot
elif grep -qs kmem $T/set_event; then B=/ BD=$T
fi
if [ -n "$B" ]; then
	echo 0 >$BD/tracing_on
	cat $BD/per_cpu/cpu*/stats >$O/boot.stats
	kmtrace-record --extract $B -o $O/boot.dat 2>$O/boot.err
	echo $? >$O/boot.rc
	[ "$B" = / ] || rmdir $BD
fi

# 0. kmtrace-record -- the workload (it and its children only)
kmtrace-record -o $O/command.dat -- /bin/workload 2>$O/command.err
echo $? >$O/command.rc
# ... and a small one without kallsyms (a fixture of traces/: a few thousand
# events of this kernel's word size and byte order)
kmtrace-record --no-kallsyms -o $O/fixture.dat -- sh -c 'cat /proc/self/maps >/dev/null
	ls -R /sys/kernel/mm /sys/kernel/slab >/dev/null 2>&1
	dd if=/dev/zero of=/tmp/f bs=4k count=256 2>/dev/null; rm -f /tmp/f' 2>/dev/null

# 1. kmtrace-record, system-wide, its default events, stopped by SIGINT
# half a second after the workload (however slow the emulation: -d is only
# a cap); its RSS then. The instance turns tracing on only after its setup
# (events, buffers, a /proc scan), which takes a while under emulation.
( until grep -qs 1 $T/instances/kmtrace-*/tracing_on; do sleep 0.1; done; sleep 0.5; work
  sleep 0.5
  p=$(pidof kmtrace-record); cat /proc/$p/status >$O/record.status; kill -INT $p ) &
time -v kmtrace-record -d 120 -o $O/guest.dat 2>$O/record.err
echo $? >$O/record.rc
wait

# 2. the shell's own instance: cat trace, then the same buffer extracted
I=$T/instances/kmtrace-text
mkdir $I
echo 0 >$I/tracing_on
echo 16384 >$I/buffer_size_kb
for e in kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc mm_page_free \
	mm_page_free_batched; do
	echo 1 >$I/events/kmem/$e/enable
done
cat /proc/vmstat >$O/vmstat.before
echo 1 >$I/tracing_on
work
echo 0 >$I/tracing_on
cat /proc/vmstat >$O/vmstat.after
cat $I/trace >$O/text.txt
cat $I/per_cpu/cpu*/stats >$O/text.stats
kmtrace-record --extract kmtrace-text -o $O/text.dat 2>$O/extract.err
echo $? >$O/extract.rc
rmdir $I

# 3. what a report of the text needs from the target
for f in $T/events/*/*/format; do
	d=$O/formats/${f#$T/events/}
	mkdir -p ${d%/format}
	cat $f >$d
done
uname -a >$O/formats/uname
cat /proc/kallsyms >$O/kallsyms

EOF
end_init "$work"
# Page cache pages (a 32 MB file written, read and removed) and slab objects
# (a walk of /sys), from few processes: every fork takes a kernel stack from
# the bulk page allocator, which /proc/vmstat counts and no event traces.
cat >"$work/root/bin/workload" <<'EOF'
#!/bin/sh
dd if=/dev/zero of=/tmp/big bs=1M count=32 2>/dev/null
cat /tmp/big >/dev/null
rm -f /tmp/big
ls -R /sys/kernel >/dev/null 2>&1
EOF
chmod +x "$work/root/bin/workload"
boot_initramfs guest.sh "$work" "$kernel" 1024 \
	"${KMT_GUEST_CONSOLE:-console=ttyS0 console=ttyAMA0} quiet panic=-1 ${KMT_GUEST_BOOT_ARGS:-}" \
	guest.dat "$@"
