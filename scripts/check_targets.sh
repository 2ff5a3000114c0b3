#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
# make check-targets: kmtrace on other kernels and other architectures.
# Debian 12's own 6.1 kernels for x86-64, arm64, 32-bit ARM (armmp) and
# big-endian s390x (linux-image .debs from Debian's archive,
# cached in $KMT_TARGET_CACHE) boot under qemu (x86-64 with KVM where a KVM
# vCPU starts here and KMT_GUEST_KVM is not 0, else TCG) and an initramfs holding busybox and the static
# recorder of the guest's architecture (tests/targets/guest.sh). What comes
# out over the serial console is reported here and checked by
# tests/targets/check_guest.py. Debian 11's 5.10 and Debian 13's 6.12
# kernels for x86-64 and arm64 come from the same archive's other suites,
# read through package lists of their own in the cache (apt_opts): nothing
# but those kernel packages is taken from them. KMT_TARGETS picks the guests
# (default "footprint x86_64 arm64 armhf s390x x86_64:5.10 arm64:5.10
# x86_64:6.12 arm64:6.12"; ARCH alone is 6.1; footprint is kmtrace footprint
# on the x86-64 6.1 guest kernel's vmlinux, from its -dbg package, which the
# x86-64 6.1 guest's boot-time report then uses for --by-dir; pageowner, not
# in the default, is make check-pageowner: a kernel built here with
# page_owner); KMT_TARGETS_OUT=DIR keeps what came out
# of each guest in DIR/DEBARCH-VERSION (recordings, text, formats, kallsyms).
#
# Exit status: 0 when every guest passed or was skipped (each skip is a
# "SKIP:" line saying why: no root, no package, a guest that did not finish
# in KMT_GUEST_TIMEOUT seconds, default 300, twice); 1 when a guest's figures are wrong or no
# recording came out of a guest that ran to its end.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KMT_TARGET_CACHE:-/var/cache/kmtrace-targets}
targets=${KMT_TARGETS:-"footprint x86_64 arm64 armhf s390x x86_64:5.10 arm64:5.10 x86_64:6.12 arm64:6.12"}
work=$(mktemp -d /tmp/kmtrace-targets.XXXXXX)
passed=0 failed=0 skipped=0 failures=""
say() { echo "check-targets: $*"; }
skip() { echo "check-targets: SKIP: $*"; skipped=$((skipped + 1)); }
trap 'if [ "$failed" = 0 ]; then rm -rf "$work"; else say "kept $work"; fi' EXIT
trap 'exit 143' TERM INT

# have_packages PKG...: installed, or installed now (root); else false.
have_packages() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || return 1
	say "installing$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null 2>&1
}

# The Debian release of each kernel version: 6.1 is this system's (Debian 12),
# the others come from the same archive's other suites.
suite_of() {
	case $1 in
	5.10) echo bullseye ;;
	6.12) echo trixie ;;
	*) echo "" ;;
	esac
}

# apt_opts VERSION: the apt-get and apt-cache options that read the suite of
# kernel VERSION: none for 6.1; for another, a sources list and package lists
# of that suite alone, kept in the cache. The system's sources, lists and
# preferences stay as they are: nothing can be installed from that suite,
# its kernel packages are only downloaded.
apt_opts() {
	suite=$(suite_of "$1")
	[ -n "$suite" ] || return 0
	dir=$cache/apt-$suite
	opts="-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=/dev/null"
	opts="$opts -o Dir::State::Lists=$dir/lists -o Dir::Cache::pkgcache="
	opts="$opts -o Dir::Cache::srcpkgcache="
	if [ -z "$(ls "$dir/lists" 2>/dev/null | grep '_Packages')" ]; then
		# the archive as this system's sources name it
		uri=$(apt-cache policy 2>/dev/null |
		      sed -n 's|^ *[0-9]* \([^ ]*\) bookworm/main .*|\1|p' | head -n 1)
		mkdir -p "$dir/lists/partial"
		echo "deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		     "$uri $suite main" >"$dir/sources.list"
		# shellcheck disable=SC2086
		apt-get $opts update >/dev/null 2>&1 || true
	fi
	echo "$opts"
}

# fetch PKG[:ARCH] ARCH [VERSION]: the path of its .deb in the cache,
# downloaded once (from VERSION's suite).
fetch() {
	name=${1%%:*}
	deb=$(ls "$cache/${name}_"*"_${2}.deb" 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		say "downloading $1 from Debian's archive into $cache" >&2
		# shellcheck disable=SC2046
		(cd "$cache" && apt-get $(apt_opts "${3:-6.1}") download "$1" >/dev/null 2>&1) ||
			return 1
		deb=$(ls "$cache/${name}_"*"_${2}.deb" 2>/dev/null | head -n 1 || true)
	fi
	[ -n "$deb" ] && echo "$deb"
}

# The kernel package linux-image-FLAVOUR:DEBARCH of Linux VERSION depends on.
kernel_package() {
	# shellcheck disable=SC2046
	apt-cache $(apt_opts "$3") depends "linux-image-$1:$2" 2>/dev/null |
		sed -n "s/.*Depends: \(linux-image-$(echo "$3" | sed 's/\./\\./')[.-][^ :]*\).*/\1/p" |
		head -n 1
}

# guest_kernel NAME DEBARCH [FLAVOUR [VERSION]]: $deb, the cached Debian
# kernel package of Linux VERSION (6.1), flavour DEBARCH unless named;
# false after a SKIP line.
guest_kernel() {
	v=${4:-6.1}
	pkg=$(kernel_package "${3:-$2}" "$2" "$v")
	[ -n "$pkg" ] || { skip "$1: apt knows no Debian $v kernel package for $2"; return 1; }
	deb=$(fetch "$pkg:$2" "$2" "$v") ||
		{ skip "$1: cannot download $pkg from Debian's archive"; return 1; }
}

# console_text LOG: what a guest printed on its console, without carriage
# returns and terminal escapes, and without qemu's own "terminating" line.
console_text() {
	esc=$(printf '\033')
	tr -d '\r' 2>/dev/null <"$1" |
		sed -e "s/$esc\[[0-9;?]*[a-zA-Z]//g" -e "s/$esc.//g" \
			-e 's/qemu-system.*: terminating on signal.*//'
}

# last_console_line LOG: the last line a guest printed on its console.
last_console_line() {
	line=$(console_text "$1" | grep -v '^[[:space:]]*$' | tail -n 1)
	echo "${line:-(nothing)}"
}

# guest_failure RC DIR: why a guest failed, in a line: the kernel's oops,
# or the guest script's exit status (the checks above say which figure).
guest_failure() {
	oops=$(console_text "$2/serial.log" |
		grep -m 2 -E 'BUG:|Unable to handle|Kernel panic|RIP:|PC is at' | tr '\n' ';' |
		cut -c1-300)
	if [ -n "$oops" ]; then
		echo "the guest kernel crashed: $oops (console: $2/serial.log)"
	elif [ "$1" != 0 ]; then
		echo "guest.sh exited with status $1; its console: $2/serial.log"
	else
		echo "its figures (the lines above)"
	fi
}

# run_guest NAME DEBARCH RECORDER BUSYBOX VERSION QEMU...: boot $deb's
# kernel, record, check. A guest that does not finish in time boots once
# more (a 6.1 x86-64 guest under TCG once hung in a soft lockup, once in
# about a dozen boots: its last console line is printed).
run_guest() {
	name=$1 arch=$2 recorder=$3 busybox=$4 version=$5
	shift 5
	started=$(date +%s)
	say "$name: booting $pkg under $*"
	for try in 1 2; do
		rc=0
		sh "$top/tests/targets/guest.sh" "$deb" "$recorder" "$busybox" "$work/$arch" \
			"$@" || rc=$?
		[ "$rc" = 3 ] || break
		say "$name: the guest did not finish in ${KMT_GUEST_TIMEOUT:-300} s; its console" \
			"ended with: $(last_console_line "$work/$arch/serial.log")"
		mv "$work/$arch/serial.log" "$work/$arch-hung$try-serial.log"
		rm -rf "$work/$arch"
		[ "$try" = 2 ] || say "$name: booting it once more"
	done
	if [ "$rc" = 3 ]; then
		skip "$name: the guest did not finish in ${KMT_GUEST_TIMEOUT:-300} s, twice"
		return
	fi
	# the kernel's debug image, where the footprint target left it: --by-dir
	vmlinux=$cache/vmlinux-${pkg#linux-image-}
	[ -s "$vmlinux" ] || vmlinux=
	if [ "$rc" = 0 ] && KMT_GUEST_VMLINUX=$vmlinux python3 "$top/tests/targets/check_guest.py" \
		"$top/kmtrace" "$work/$arch/out" "$name" $version; then
		passed=$((passed + 1))
		say "$name: passed in $(($(date +%s) - started)) s (boot, recordings, checks)"
	else
		failed=$((failed + 1))
		say "$name: FAILED after $(($(date +%s) - started)) s"
		failures="$failures
check-targets: FAILED: $name: $(guest_failure "$rc" "$work/$arch")"
	fi
	if [ -n "${KMT_TARGETS_OUT:-}" ] && [ -d "$work/$arch/out" ]; then
		mkdir -p "$KMT_TARGETS_OUT/$arch" && cp -r "$work/$arch/out/." "$KMT_TARGETS_OUT/$arch/"
	fi
}

# The x86-64 guest's CPU under KVM: the host's, less arch-capabilities,
# whose MSR a nested hypervisor may refuse (qemu then aborts).
kvm_cpu=host,-arch-capabilities

# kvm_boots: KMT_GUEST_KVM is not 0 and $deb's kernel, under KVM, prints
# its banner within 20 s (a nested hypervisor may start a vCPU that never
# gets past the kernel's decompressor).
kvm_boots() {
	[ "${KMT_GUEST_KVM:-1}" != 0 ] && [ -w /dev/kvm ] || return 1
	mkdir -p "$work/kvm"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/kvm" --wildcards './boot/vmlinuz-*'
	timeout 20 qemu-system-x86_64 -enable-kvm -cpu "$kvm_cpu" -m 256 -nographic \
		-no-reboot -kernel "$work"/kvm/boot/vmlinuz-* -append "console=ttyS0 panic=-1" \
		</dev/null 2>&1 | grep -q "Linux version"
}

# target_x86_64 [VERSION]: Debian's x86-64 kernel of Linux VERSION (6.1).
target_x86_64() {
	v=${1:-6.1}
	have_packages qemu-system-x86 busybox-static ||
		{ skip "x86-64 $v: qemu-system-x86 and busybox-static are not installed"; return; }
	make -s -C "$top" static >/dev/null
	guest_kernel "x86-64 $v" amd64 amd64 "$v" || return 0
	# Single-threaded TCG: under multi-threaded TCG a Debian 5.10 guest
	# once in a few boots oopsed at handle_mm_fault+0, a call ftrace had
	# just patched in for the recorder's return probe, to address 0 on both
	# vCPUs (code one vCPU patches, run stale by the other); one thread
	# runs the two vCPUs in turn.
	qemu="qemu-system-x86_64 -accel tcg,thread=single -cpu max"
	if kvm_boots; then
		qemu="qemu-system-x86_64 -enable-kvm -cpu $kvm_cpu"
	elif [ "${KMT_GUEST_KVM:-1}" != 0 ]; then
		say "x86-64 $v: KVM does not boot the kernel here (/dev/kvm or nesting): TCG"
	fi
	# shellcheck disable=SC2086
	KMT_GUEST_BOOT_ARGS=$(boot_args "$v") run_guest "x86-64 $v" "amd64-$v" \
		"$top/kmtrace-record" /bin/busybox "$(shipped "$v")" $qemu
}

# target_footprint: kmtrace footprint on the x86-64 6.1 guest's vmlinux (the
# -dbg package of its kernel, 860 MB; its vmlinux is kept in the cache), every figure
# at depth 2 recounted by tests/footprint_recount.py (readelf, llvm-symbolizer,
# llvm-dwarfdump).
target_footprint() {
	started=$(date +%s)
	pkg=$(kernel_package amd64 amd64 6.1)
	[ -n "$pkg" ] || { skip "footprint: apt knows no Debian 6.1 kernel package for amd64"; return; }
	vmlinux=$cache/vmlinux-${pkg#linux-image-}
	if [ ! -s "$vmlinux" ]; then
		dbg=$(fetch "$pkg-dbg:amd64" amd64) ||
			{ skip "footprint: cannot download $pkg-dbg from Debian's archive"; return; }
		dpkg-deb --fsys-tarfile "$dbg" |
			tar -xO "./usr/lib/debug/boot/vmlinux-${pkg#linux-image-}" >"$vmlinux.part" &&
			mv "$vmlinux.part" "$vmlinux" ||
			{ rm -f "$vmlinux.part"; skip "footprint: no vmlinux in $dbg"; return; }
		rm -f "$dbg"	# the vmlinux is all this needs of it
	fi
	say "footprint: $vmlinux ($(size "$vmlinux" | sed -n 2p | awk '{ print "size: text " $1 ", data " $2 ", bss " $3 }'))"
	if "$top/kmtrace" footprint --vmlinux "$vmlinux" --by-dir 2 --top 0 --format json \
		>"$work/footprint.json" 2>"$work/footprint.err" &&
	   python3 "$top/tests/footprint_recount.py" "$vmlinux" "$work/footprint.json" 2; then
		passed=$((passed + 1))
		say "footprint: passed in $(($(date +%s) - started)) s"
	else
		failed=$((failed + 1))
		failures="$failures
check-targets: FAILED: footprint of $vmlinux: $(tail -n 1 "$work/footprint.err")"
	fi
}

# build_pageowner_kernel IMAGE: Linux 6.1 from Debian's linux-source-6.1
# package ($src) with tinyconfig and tests/targets/pageowner.config, its
# bzImage into IMAGE (built once: the cache keeps it). False after a SKIP
# line when it cannot be built here.
build_pageowner_kernel() {
	dir=$work/kbuild
	log=$work/kbuild.log
	say "pageowner: building $(basename "$src" .deb) with page_owner (tinyconfig and" \
		"tests/targets/pageowner.config, make -j$(nproc); once, then cached)"
	mkdir -p "$dir"
	if ! { dpkg-deb --fsys-tarfile "$src" |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' | tar -xJ -C "$dir" &&
		cd "$dir"/linux-source-* && make tinyconfig &&
		scripts/kconfig/merge_config.sh -m .config "$top/tests/targets/pageowner.config" &&
		make olddefconfig && grep -q '^CONFIG_PAGE_OWNER=y' .config &&
		make -j"$(nproc)" bzImage && cp arch/x86/boot/bzImage "$1.part" &&
		mv "$1.part" "$1"; } >"$log" 2>&1; then
		cd "$top"
		skip "pageowner: the kernel did not build here: $(tail -n 1 "$log")"
		rm -rf "$dir"
		return 1
	fi
	cd "$top"
	rm -rf "$dir"
}

# target_pageowner: no Debian kernel has CONFIG_PAGE_OWNER, so an x86-64
# Linux 6.1 built here from Debian's source boots with page_owner=on;
# kmtrace-record's snapshot of page_owner is checked against the guest's
# own reads of it and trace-cmd report (tests/targets/check_pageowner.py).
target_pageowner() {
	started=$(date +%s)
	have_packages qemu-system-x86 busybox-static gcc make flex bison bc libelf-dev cpio ||
		{ skip "pageowner: qemu-system-x86, busybox-static or the kernel's build tools are not installed"; return; }
	src=$(fetch linux-source-6.1 all) ||
		{ skip "pageowner: cannot download linux-source-6.1 from Debian's archive"; return; }
	image=$cache/bzImage-pageowner-$(basename "$src" _all.deb | sed 's/^linux-source-6.1_//')
	[ -s "$image" ] || build_pageowner_kernel "$image" || return 0
	make -s -C "$top" static >/dev/null
	qemu="qemu-system-x86_64 -accel tcg,thread=single -cpu max"
	[ "${KMT_GUEST_KVM:-1}" != 0 ] && [ -w /dev/kvm ] &&
		qemu="qemu-system-x86_64 -enable-kvm -cpu $kvm_cpu"
	say "pageowner: booting $(basename "$image") with page_owner=on under $qemu"
	rc=0
	# shellcheck disable=SC2086
	sh "$top/tests/targets/pageowner.sh" "$image" "$top/kmtrace-record" /bin/busybox \
		"$work/pageowner" $qemu || rc=$?
	if [ "$rc" = 3 ] && [ "$qemu" != "${qemu#*kvm}" ]; then
		say "pageowner: no end under KVM; booting it once more under TCG"
		rm -rf "$work/pageowner"
		rc=0
		sh "$top/tests/targets/pageowner.sh" "$image" "$top/kmtrace-record" /bin/busybox \
			"$work/pageowner" qemu-system-x86_64 -accel tcg,thread=single -cpu max || rc=$?
	fi
	if [ "$rc" = 3 ]; then
		skip "pageowner: the guest did not finish in ${KMT_GUEST_TIMEOUT:-300} s"
		return
	fi
	if [ "$rc" = 0 ] && python3 "$top/tests/targets/check_pageowner.py" "$top/kmtrace" \
		"$work/pageowner/out" pageowner; then
		passed=$((passed + 1))
		say "pageowner: passed in $(($(date +%s) - started)) s (kernel, boot, recording, checks)"
	else
		failed=$((failed + 1))
		failures="$failures
check-targets: FAILED: pageowner: $(guest_failure "$rc" "$work/pageowner")"
	fi
	if [ -n "${KMT_TARGETS_OUT:-}" ] && [ -d "$work/pageowner/out" ]; then
		mkdir -p "$KMT_TARGETS_OUT/pageowner" &&
			cp -r "$work/pageowner/out/." "$KMT_TARGETS_OUT/pageowner/"
	fi
}

# boot_args VERSION: the kernel command line of boot-time kmem tracing on
# Linux VERSION: an instance of its own (trace_instance=NAME,EVENTS, 6.5
# on), else the guest's top-level buffer (trace_event=), kept from being
# overwritten once full so that it holds the boot's first events, on the
# global clock: with an unstable TSC (TCG) the kernel would switch the
# top-level buffer to it at late_initcall, emptying it.
boot_args() {
	ev=kmem:kmalloc,kmem:kfree,kmem:kmem_cache_alloc,kmem:kmem_cache_free
	ev=$ev,kmem:mm_page_alloc,kmem:mm_page_free
	case $1 in
	5.10 | 6.1) echo "trace_event=$ev trace_buf_size=2M trace_options=nooverwrite" \
		"trace_clock=global" ;;
	*) echo "trace_instance=kmtrace-boot,$ev trace_buf_size=2M" ;;
	esac
}

# The formats kmtrace ships for Linux VERSION (formats/linux-VERSION), or "".
shipped() { [ -d "$top/formats/linux-$1" ] && echo "$1" || true; }

# cross_target NAME DEBARCH TRIPLET FLAVOUR VERSION CONSOLE QEMU-PACKAGE
# QEMU...: a guest of another architecture: its static recorder (make deps
# ARCH=DEBARCH makes the cross toolchain and libraries), its busybox-static
# and its Debian kernel of Linux VERSION and FLAVOUR, booted by QEMU with
# console CONSOLE.
cross_target() {
	name=$1 debarch=$2 triplet=$3 flavour=$4 v=$5 console=$6 qpkg=$7
	shift 7
	have_packages "$qpkg" || { skip "$name: $qpkg is not installed"; return; }
	if ! make -s -C "$top" deps ARCH="$debarch" >"$work/deps-$debarch.log" 2>&1; then
		skip "$name: make deps ARCH=$debarch failed (cross toolchain and libraries):" \
			"$(tail -n 1 "$work/deps-$debarch.log")"
		return
	fi
	make -s -C "$top" static CROSS_COMPILE="$triplet-" >/dev/null 2>&1
	bin=$top/kmtrace-record-${triplet%%-*}
	bb=$(fetch "busybox-static:$debarch" "$debarch") ||
		{ skip "$name: cannot download busybox-static:$debarch"; return; }
	mkdir -p "$work/busybox-$debarch"
	dpkg-deb -x "$bb" "$work/busybox-$debarch"
	guest_kernel "$name" "$debarch" "$flavour" "$v" || return 0
	KMT_GUEST_CONSOLE=$console KMT_GUEST_BOOT_ARGS=$(boot_args "$v") \
		run_guest "$name" "$debarch-$v" "$bin" \
		"$work/busybox-$debarch/bin/busybox" "" "$@"
}

[ "$(id -u)" = 0 ] && mkdir -p "$cache" ||
	{ skip "needs root (apt-get for qemu and the kernels, $cache)"; exit 0; }
for t in $targets; do
	v=${t#*:}
	[ "$v" != "$t" ] || v=6.1
	case ${t%%:*} in
	x86_64) target_x86_64 "$v" ;;
	arm64) cross_target "arm64 $v" arm64 aarch64-linux-gnu arm64 "$v" console=ttyAMA0 \
		qemu-system-arm qemu-system-aarch64 -M virt -cpu cortex-a57 ;;
	armhf) cross_target "armhf $v" armhf arm-linux-gnueabihf armmp "$v" console=ttyAMA0 \
		qemu-system-arm qemu-system-arm -M virt -cpu cortex-a15 ;;
	s390x) cross_target "s390x $v" s390x s390x-linux-gnu s390x "$v" console=ttysclp0 \
		qemu-system-misc qemu-system-s390x -M s390-ccw-virtio ;;
	footprint) target_footprint ;;
	pageowner) target_pageowner ;;
	*) say "unknown target $t (x86_64, arm64, armhf, s390x, each with :5.10 or :6.12;" \
	       "footprint, pageowner)"
	   failed=$((failed + 1)) ;;
	esac
done
[ -z "$failures" ] || echo "$failures" | sed 1d
echo "check-targets: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
