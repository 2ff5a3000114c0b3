#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
# Boot a kernel built with CONFIG_PAGE_OWNER under qemu with page_owner=on,
# the static recorder and busybox in an initramfs, record there, and bring
# the results out over the serial console (as guest.sh does):
#   pageowner.sh KERNEL-IMAGE RECORDER BUSYBOX WORK QEMU...
# Exit status 3 when the guest did not finish in KMT_GUEST_TIMEOUT seconds
# (300). WORK/out gets:
#   owner.dat    kmtrace-record (system-wide, default events, a small
#                buffer) around a workload, stopped by SIGINT after it,
#                while a 32 MiB tmpfs file written before it is held;
#                record.err, record.rc
#   before.txt   "PFN ORDER TS" per block of page_owner, read as tracing
#                began (when the recorder reads it)
#   after.txt    the same after the workload, tracing still on
#   fixture.dat  kmtrace-record of page events around a small command, with
#                its page_owner snapshot (fixture.err)
#   uname
set -eu
. "$(dirname "$0")/boot.sh"

kernel=$1 recorder=$2 busybox=$3 work=$4
shift 4
make_root "$work" "$busybox" "$recorder" sh mount cat base64 sleep poweroff echo dd rm mkdir \
	tar gzip uname awk pidof kill grep ls
cat >>"$work/root/init" <<'EOF'
mount -t debugfs nodev /sys/kernel/debug
P=/sys/kernel/debug/page_owner
O=/tmp/out
mkdir -p $O
uname -a >$O/uname
# page_owner's blocks: "PFN ORDER TS" (PFN in decimal, or 0x-hex on newer
# kernels). Through cat: each read of page_owner gives one whole block or
# fails, and awk's reads can be too short for one.
blocks() {
	cat $P | awk '/^Page allocated via order/ { o = $5; sub(",", "", o)
		t = $0; sub(/.*, ts /, "", t); sub(/ ns.*/, "", t) }
	     /^PFN / { print $2, o, t }'
}
# a small recording of page events with its snapshot (traces/pageowner-6.1.dat)
kmtrace-record -e kmem:mm_page_alloc -e kmem:mm_page_free -e kmem:mm_page_free_batched \
	--no-kallsyms -o $O/fixture.dat -- sh -c 'dd if=/dev/zero of=/tmp/f bs=4k count=64 2>/dev/null
	rm -f /tmp/f; ls -R /sys/kernel/mm >/dev/null' 2>$O/fixture.err
# 32 MiB of tmpfs pages held through the recording, allocated before it
dd if=/dev/zero of=/tmp/held bs=1M count=32 2>/dev/null
# page_owner read when tracing begins, as the recorder reads it, and at the
# end, tracing still on; the workload in between
( until grep -qs 1 $T/instances/kmtrace-*/tracing_on; do sleep 0.1; done
  blocks >$O/before.txt
  sleep 0.5
  dd if=/dev/zero of=/tmp/big bs=1M count=8 2>/dev/null; rm -f /tmp/big
  ls -R /sys/kernel >/dev/null 2>&1
  sleep 0.5
  blocks >$O/after.txt
  kill -INT $(pidof kmtrace-record) ) &
kmtrace-record -b 256 -d 120 -o $O/owner.dat 2>$O/record.err
echo $? >$O/record.rc
wait
EOF
end_init "$work"
boot_initramfs pageowner.sh "$work" "$kernel" 512 \
	"console=ttyS0 quiet panic=-1 page_owner=on" \
	owner.dat "$@"
