#!/bin/sh
# Exit 0 if this process can create tracing instances (root, tracefs mounted
# or mountable, instances/ writable); the probe instance is removed at once.
T=/sys/kernel/tracing
[ "$(id -u)" = 0 ] || exit 1
mountpoint -q $T 2>/dev/null || mount -t tracefs nodev $T 2>/dev/null || exit 1
mkdir "$T/instances/kmtrace-probe-$$" 2>/dev/null || exit 1
rmdir "$T/instances/kmtrace-probe-$$"
