#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1
# Copy a guest's event formats (what make check-targets brings out, with
# KMT_TARGETS_OUT) into formats/linux-VERSION, for the events the text reader
# ships formats of: those of formats/linux-6.18, and the kmem *_node events
# of kernels before 6.1.
#   ship_formats.sh GUEST-FORMATS-DIR VERSION
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
from=$1 to=$top/formats/linux-$2
[ -f "$from/uname" ] || { echo "ship_formats: $from has no uname" >&2; exit 1; }
mkdir -p "$to"
{ (cd "$top/formats/linux-6.18" && find . -name format)
  echo ./kmem/kmalloc_node/format
  echo ./kmem/kmem_cache_alloc_node/format; } | sort -u | while read -r f; do
	[ -f "$from/$f" ] || continue
	mkdir -p "$to/$(dirname "$f")"
	cp "$from/$f" "$to/$f"
done
cp "$from/uname" "$to/uname"
echo "ship_formats: $(find "$to" -name format | wc -l) formats in $to"
