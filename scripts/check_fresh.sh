#!/bin/sh
# make check-fresh: README's first command on a bare Debian 12. A minbase
# debootstrap (plus make, which the command itself needs) gets a fresh clone
# of this repository's HEAD, and `make demo` must go from nothing to a report.
# Nothing is mounted into the chroot, so removing it touches nothing else;
# tracefs is absent there and the demo reports the shipped recording.
# Skips (exit 0, says why) where it cannot run: not root, no debootstrap.
set -u
say() { echo "check-fresh: $*"; }
[ "$(id -u)" = 0 ] || { say "SKIP: needs root for debootstrap and chroot"; exit 0; }
command -v debootstrap >/dev/null || { say "SKIP: debootstrap is not installed"; exit 0; }
top=$(cd "$(dirname "$0")/.." && pwd)
mirror=${KMT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${KMT_FRESH_CACHE:-/var/cache/kmtrace-fresh}
root=$(mktemp -d /var/tmp/kmtrace-fresh.XXXXXX) || exit 1
log=$root.log

# remove_root: the chroot, once nothing is mounted under it.
remove_root() {
	if grep -q " $root[/ ]" /proc/self/mounts; then
		say "something is mounted under $root: left in place"
		return
	fi
	rm -rf "$root"
}
trap 'remove_root; rm -f "$log"' EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
mkdir -p "$cache"
say "debootstrap --variant=minbase bookworm (packages cached in $cache)"
if ! debootstrap --variant=minbase --include=make --cache-dir="$cache" \
	bookworm "$root" "$mirror" >"$log" 2>&1; then
	tail -15 "$log" >&2
	say "FAIL: debootstrap"
	exit 1
fi
# A Debian 12 machine's own package sources (security and updates too).
for f in /etc/apt/sources.list /etc/apt/sources.list.d/debian.sources; do
	[ -f "$f" ] && cp "$f" "$root$f"
done
git clone -q "$top" "$root/root/kmtrace" || { say "FAIL: git clone"; exit 1; }
say "bare system ready in $(($(date +%s) - start)) s; make demo in it"
if ! chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	sh -c 'cd /root/kmtrace && make demo' >"$log" 2>&1; then
	tail -25 "$log" >&2
	say "FAIL: make demo on a bare Debian 12"
	exit 1
fi
# The demo must have reached a report: its summary and slab tables.
for want in 'deps: installing' 'kmtrace report -i traces/small.dat' 'CALLSITE' \
	'Check against /proc/slabinfo'; do
	if ! grep -q "$want" "$log"; then
		tail -25 "$log" >&2
		say "FAIL: the demo's output has no '$want'"
		exit 1
	fi
done
say "passed in $(($(date +%s) - start)) s: $(grep -c '' "$log") lines from make demo"
