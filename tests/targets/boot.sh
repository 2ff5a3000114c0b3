# SPDX-License-Identifier: LGPL-2.1
# Sourced by guest.sh and pageowner.sh: an initramfs guest booted under qemu,
# what its init printed taken out over the serial console.

# make_root WORK BUSYBOX RECORDER APPLET...: WORK/root with BUSYBOX and links
# for the APPLETs, RECORDER as kmtrace-record, and the start of an init that
# mounts proc, sysfs, devtmpfs and tracefs (T is tracefs); the caller adds
# the rest of the init, then end_init.
make_root() {
	root=$1/root
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
	cp "$2" "$root/bin/busybox"
	cp "$3" "$root/bin/kmtrace-record"
	shift 3
	for a in "$@"; do
		ln -sf busybox "$root/bin/$a"
	done
	cat >"$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs nodev /sys/kernel/tracing
T=/sys/kernel/tracing
EOF
	chmod +x "$root/init"
}

# end_init WORK: the init's end: /tmp/out printed as a gzipped tar in base64
# between the markers boot_initramfs looks for, then power off.
end_init() {
	cat >>"$1/root/init" <<'EOF'
tar -czf /tmp/out.tgz -C /tmp out
echo "===KMT-OUT==="
base64 /tmp/out.tgz
echo "===KMT-END==="
poweroff -f
EOF
}

# boot_initramfs NAME WORK KERNEL MEM APPEND RECORDING QEMU...: WORK/root
# packed as an initramfs and booted by QEMU with KERNEL, MEM MiB, two CPUs
# and the command line APPEND; the gzipped tar its init printed in base64
# between ===KMT-OUT=== and ===KMT-END=== is unpacked into WORK. Exits 3
# when the guest did not finish in KMT_GUEST_TIMEOUT seconds (300), 1 when
# WORK/out/RECORDING did not come out or WORK/out/record.rc is not 0.
boot_initramfs() {
	name=$1 work=$2 kernel=$3 mem=$4 append=$5 recording=$6
	shift 6
	(cd "$work/root" && find . | cpio -o -H newc 2>/dev/null | gzip) >"$work/initrd.gz"
	rc=0
	timeout "${KMT_GUEST_TIMEOUT:-300}" "$@" -m "$mem" -smp 2 -kernel "$kernel" \
		-initrd "$work/initrd.gz" -append "$append" \
		-nographic -no-reboot </dev/null >"$work/serial.log" 2>&1 || rc=$?
	if [ "$rc" = 124 ]; then
		echo "$name: the guest did not finish in ${KMT_GUEST_TIMEOUT:-300} s" >&2
		exit 3
	fi
	sed -n '/===KMT-OUT===/,/^===KMT-END===/p' "$work/serial.log" | tr -d '\r' |
		sed '1d;$d' | base64 -d 2>/dev/null | tar -xzf - -C "$work" 2>/dev/null || true
	[ -s "$work/out/$recording" ] && [ "$(cat "$work/out/record.rc" 2>/dev/null)" = 0 ] || {
		echo "$name: no recording came out (see $work/serial.log)" >&2
		tail -n 20 "$work/serial.log" >&2
		exit 1
	}
}
