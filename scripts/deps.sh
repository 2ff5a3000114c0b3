#!/bin/sh
# Install what kmtrace needs to build and test; skip whatever is already there.
# Debian packages come from apt; libperf is built from tools/lib/perf of
# Debian's linux-source package and installed under $LIBPERF_PREFIX.
set -eu

PKGS="gcc make pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev trace-cmd
check xz-utils python3 time procps libzstd-dev linux-perf strace util-linux
clang libclang-rt-14-dev libdw-dev binutils python3-jsonschema sqlite3
chromium"
LIBPERF_PREFIX=${LIBPERF_PREFIX:-/usr/local}
LSRC_PKG=${LSRC_PKG:-linux-source-6.12}

say() { echo "deps: $*"; }
die() { echo "deps: error: $*" >&2; exit 1; }

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
	apt-get update -qq || die "apt-get update failed"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null ||
		die "apt-get install failed for:$missing"
}

install_missing "$PKGS"

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
		apt-get update -qq || die "apt-get update failed"
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
		"$top/tools/arch/x86" "$top/tools/arch/arm64" "$top/tools/build" \
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

# make deps ARCH=arm64: what make static CROSS_COMPILE=aarch64-linux-gnu- needs.
[ "${KMT_DEPS_ARCH:-}" = arm64 ] || exit 0
ARM_PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libtracefs-dev:arm64
libtraceevent-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	say "adding the arm64 architecture to dpkg"
	dpkg --add-architecture arm64 && apt-get update -qq || die "cannot add arm64 to apt"
fi
install_missing "$ARM_PKGS"
arm_libdir=$LIBPERF_PREFIX/lib/aarch64-linux-gnu
if [ -f "$arm_libdir/libperf.a" ] && [ -f "$arm_libdir/libapi.a" ]; then
	say "arm64 libperf present in $arm_libdir"
else
	mkdir -p "$arm_libdir"
	build_libperf "$arm_libdir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
fi
