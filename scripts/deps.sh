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

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "need root to install:$missing"
	say "installing:$missing"
	apt-get update -qq || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null ||
		die "apt-get install failed for:$missing"
else
	say "Debian packages present"
fi

# libapi.a (fdarray and friends, in libperf.so but not in libperf.a) for make static
if [ -f "$LIBPERF_PREFIX/lib/pkgconfig/libperf.pc" ] && [ -f "$LIBPERF_PREFIX/lib/libperf.a" ] &&
   [ -f "$LIBPERF_PREFIX/lib/libapi.a" ] && [ -f "$LIBPERF_PREFIX/include/perf/core.h" ]; then
	say "libperf present in $LIBPERF_PREFIX"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "need root to build libperf into $LIBPERF_PREFIX"
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
	"$top/tools/arch/x86" "$top/tools/build" "$top/tools/scripts" \
	"$top/tools/lib/*.c" ||
	die "cannot extract libperf sources from $tarball"

say "building libperf"
mk="make -s -C $work/$top/tools/lib/perf prefix=$LIBPERF_PREFIX libdir=$LIBPERF_PREFIX/lib"
$mk >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; die "libperf build failed"; }
$mk install_lib install_headers install_pkgconfig >"$work/install.log" 2>&1 ||
	{ tail -20 "$work/install.log" >&2; die "libperf install failed"; }
libapi=$(find "$work/$top/tools/lib" -name libapi.a | head -n 1)
[ -n "$libapi" ] || die "the libperf build made no libapi.a"
install -m 0644 "$libapi" "$LIBPERF_PREFIX/lib/libapi.a"
ldconfig 2>/dev/null || true
say "libperf installed in $LIBPERF_PREFIX"
