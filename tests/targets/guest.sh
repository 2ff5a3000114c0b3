#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
# Boot a Debian kernel under qemu with the static recorder and a workload in
# an initramfs, record system-wide there, and bring the trace.dat out over the
# serial console (base64 between markers: no guest driver needed):
#   guest.sh KERNEL-DEB RECORDER WORK [QEMU]
# KERNEL-DEB is a Debian linux-image .deb (its vmlinuz is booted); RECORDER
# the static kmtrace-record for its architecture; WORK gets guest.dat and
# serial.log. QEMU (default qemu-system-x86_64 with KVM where /dev/kvm opens)
# may be another machine, e.g. "qemu-system-aarch64 -M virt -cpu max".
set -eu

deb=$1 recorder=$2 work=$3
qemu=${4:-}
mkdir -p "$work/deb" "$work/root/bin" "$work/root/proc" "$work/root/sys" "$work/root/dev" \
	"$work/root/tmp"
dpkg-deb -x "$deb" "$work/deb"
kernel=$(ls "$work"/deb/boot/vmlinuz-* | head -n 1)

# the initramfs: busybox (static), the recorder, and an init that records
cp /bin/busybox "$work/root/bin/busybox"
for a in sh mount cat base64 sleep ls poweroff seq echo dd rm mkdir; do
	ln -sf busybox "$work/root/bin/$a"
done
cp "$recorder" "$work/root/bin/kmtrace-record"
cat >"$work/root/init" <<'EOF'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# a workload beside a system-wide recording of 2 s: files written, read, removed
( sleep 0.2; for i in $(seq 40); do dd if=/dev/zero of=/tmp/f$i bs=64k count=16 2>/dev/null;
  cat /tmp/f$i >/dev/null; done; rm -f /tmp/f*; ls -R /sys/kernel >/dev/null 2>&1 ) &
kmtrace-record -d 2 -o /tmp/guest.dat -e kmem:kmalloc -e kmem:kfree -e kmem:kmem_cache_alloc \
	-e kmem:kmem_cache_free -e kmem:mm_page_alloc -e kmem:mm_page_free \
	-e kmem:mm_page_free_batched -e kmem:rss_stat 2>/tmp/record.err
echo "===KMT-RC $?==="
cat /tmp/record.err
echo "===KMT-DAT==="
base64 /tmp/guest.dat
echo "===KMT-END==="
poweroff -f
EOF
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc 2>/dev/null | gzip) >"$work/initrd.gz"

if [ -z "$qemu" ]; then
	qemu="qemu-system-x86_64 -cpu max"
	[ -r /dev/kvm ] && [ -w /dev/kvm ] && qemu="qemu-system-x86_64 -enable-kvm -cpu host"
fi
# shellcheck disable=SC2086
timeout "${KMT_GUEST_TIMEOUT:-300}" $qemu -m 768 -smp 2 -kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 console=ttyAMA0 quiet panic=-1" -nographic -no-reboot \
	</dev/null >"$work/serial.log" 2>&1 || true
sed -n '/^===KMT-DAT===/,/^===KMT-END===/p' "$work/serial.log" | tr -d '\r' |
	sed '1d;$d' | base64 -d >"$work/guest.dat" 2>/dev/null || true
grep -a "===KMT-RC 0===" "$work/serial.log" >/dev/null && [ -s "$work/guest.dat" ] || {
	echo "guest.sh: no recording came out (see $work/serial.log)" >&2
	tail -20 "$work/serial.log" >&2
	exit 1
}
