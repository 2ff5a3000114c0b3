#!/bin/sh
# Install what kmtrace needs to build and test; skip whatever is already there.
# "deps.sh build" installs only what building kmtrace needs (make demo),
# "deps.sh fleet" only ClickHouse (make check-fleet).
# Debian packages come from apt; libperf is built from tools/lib/perf of
# Debian's linux-source package and installed under $LIBPERF_PREFIX.
set -eu

BUILD_PKGS="gcc make pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev
libzstd-dev libdw-dev libjson-c-dev libbabeltrace2-dev libsqlite3-dev xz-utils python3"
TEST_PKGS="trace-cmd check time procps linux-perf strace util-linux clang llvm
libclang-rt-14-dev binutils python3-jsonschema sqlite3 chromium debootstrap git tmux
valgrind heaptrack lttng-tools liblttng-ust-dev babeltrace"
LIBPERF_PREFIX=${LIBPERF_PREFIX:-/usr/local}
LSRC_PKG=${LSRC_PKG:-linux-source-6.12}

say() { echo "deps: $*"; }
die() { echo "deps: error: $*" >&2; exit 1; }

# apt-get update; a list that failed (a mirror in sync, an architecture's
# security list) leaves the others usable: the install that follows says
# whether what is needed was found.
apt_update() {
	apt-get update -qq >/dev/null 2>&1 || say "apt-get update reported errors; going on with the lists it has"
}

# install_missing PACKAGES: apt-get install those not installed yet.
install_missing() {
	missing=""
	for p in $1; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		say "Debian packages present"
		return
	fi
	[ "$(id -u)" = 0 ] || die "need root to install:$missing"
	say "installing:$missing"
	apt_update
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null ||
		die "apt-get install failed for:$missing"
}

case ${1:-all} in
build) install_missing "$BUILD_PKGS" ;;
all) install_missing "$BUILD_PKGS $TEST_PKGS" ;;
# make check-fleet: Debian's ClickHouse (18.16), its server run as ours
fleet) install_missing "clickhouse-server clickhouse-client"; exit 0 ;;
*) die "unknown set '$1' (build, all or fleet)" ;;
esac

# libperf (and libapi.a: fdarray and friends, in libperf.so but not in
# libperf.a, for make static), built from Debian's kernel source tree.
# build_libperf LIBDIR [MAKE-ARGS...]: into LIBDIR, headers under $LIBPERF_PREFIX.
build_libperf() {
	libdir=$1
	shift
	[ "$(id -u)" = 0 ] || die "need root to build libperf into $libdir"
	tarball=$(ls /usr/src/$LSRC_PKG.tar.* 2>/dev/null | head -n 1 || true)
	if [ -z "$tarball" ]; then
		say "installing $LSRC_PKG for libperf's sources"
		apt_update
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$LSRC_PKG" >/dev/null ||
			die "cannot install $LSRC_PKG (libperf is built from it)"
		tarball=$(ls /usr/src/$LSRC_PKG.tar.* 2>/dev/null | head -n 1 || true)
		[ -n "$tarball" ] || die "$LSRC_PKG installed no tarball under /usr/src"
	fi
	work=$(mktemp -d /tmp/kmtrace-libperf.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	top=$(basename "$tarball" | sed 's/\.tar\..*//')
	say "extracting tools/lib/perf and its build parts from $tarball"
	tar -xJf "$tarball" -C "$work" --wildcards --no-wildcards-match-slash \
		"$top/tools/lib/perf" "$top/tools/lib/api" "$top/tools/include" \
		"$top/tools/arch/x86" "$top/tools/arch/arm64" "$top/tools/arch/arm" \
		"$top/tools/arch/s390" "$top/tools/build" \
		"$top/tools/scripts" "$top/tools/lib/*.c" ||
		die "cannot extract libperf sources from $tarball"
	say "building libperf $*"
	mk="make -s -C $work/$top/tools/lib/perf prefix=$LIBPERF_PREFIX libdir=$libdir $*"
	$mk >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; die "libperf build failed"; }
	$mk install_lib install_headers install_pkgconfig >"$work/install.log" 2>&1 ||
		{ tail -20 "$work/install.log" >&2; die "libperf install failed"; }
	libapi=$(find "$work/$top/tools/lib" -name libapi.a | head -n 1)
	[ -n "$libapi" ] || die "the libperf build made no libapi.a"
	install -m 0644 "$libapi" "$libdir/libapi.a"
	rm -rf "$work"
	trap - EXIT
	say "libperf installed in $libdir"
}

if [ -f "$LIBPERF_PREFIX/lib/pkgconfig/libperf.pc" ] && [ -f "$LIBPERF_PREFIX/lib/libperf.a" ] &&
   [ -f "$LIBPERF_PREFIX/lib/libapi.a" ] && [ -f "$LIBPERF_PREFIX/include/perf/core.h" ]; then
	say "libperf present in $LIBPERF_PREFIX"
else
	build_libperf "$LIBPERF_PREFIX/lib"
	ldconfig 2>/dev/null || true
fi

# make deps ARCH=arm64|armhf|s390x: what make static CROSS_COMPILE=TRIPLET- needs
# (the cross compiler, the target's libraries through dpkg multiarch, and
# libperf built for it).
[ -n "${KMT_DEPS_ARCH:-}" ] || exit 0
case $KMT_DEPS_ARCH in
arm64) triplet=aarch64-linux-gnu kernel_arch=arm64 ;;
armhf) triplet=arm-linux-gnueabihf kernel_arch=arm ;;
s390x) triplet=s390x-linux-gnu kernel_arch=s390 ;;
*) die "ARCH=$KMT_DEPS_ARCH: known are arm64, armhf and s390x" ;;
esac
a=$KMT_DEPS_ARCH
if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
	say "adding the $a architecture to dpkg"
	dpkg --add-architecture "$a" || die "cannot add $a to dpkg"
	apt_update
fi
install_missing "gcc-$triplet libc6-dev-$a-cross"

# The target's libraries go to a sysroot of their own, unpacked from their
# packages rather than installed beside the host's: multiarch installs need
# each library at the very version the host has, which a foreign
# architecture's lists may not offer yet (a mirror in sync).
sysroot=$LIBPERF_PREFIX/lib/kmtrace-sysroot/$a
SYSROOT_PKGS="libtracefs-dev libtracefs1 libtraceevent-dev libtraceevent1 libelf-dev libelf1
zlib1g-dev zlib1g libzstd-dev libzstd1"
if [ -f "$sysroot/usr/lib/$triplet/libtracefs.a" ] && [ -f "$sysroot/usr/lib/$triplet/libzstd.a" ]; then
	say "$a libraries present in $sysroot"
else
	[ "$(id -u)" = 0 ] || die "need root to unpack the $a libraries into $sysroot"
	debs=$(mktemp -d /tmp/kmtrace-sysroot.XXXXXX)
	say "unpacking the $a libraries into $sysroot"
	for p in $SYSROOT_PKGS; do
		(cd "$debs" && apt-get download "$p:$a" >/dev/null 2>&1) ||
			{ rm -rf "$debs"; die "cannot download $p:$a from Debian's archive"; }
	done
	mkdir -p "$sysroot"
	for d in "$debs"/*.deb; do
		dpkg-deb -x "$d" "$sysroot" || { rm -rf "$debs"; die "cannot unpack $d"; }
	done
	rm -rf "$debs"
fi
cross_libdir=$LIBPERF_PREFIX/lib/$triplet
if [ -f "$cross_libdir/libperf.a" ] && [ -f "$cross_libdir/libapi.a" ]; then
	say "$a libperf present in $cross_libdir"
else
	mkdir -p "$cross_libdir"
	build_libperf "$cross_libdir" ARCH=$kernel_arch CROSS_COMPILE=$triplet-
fi
