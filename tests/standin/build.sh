#!/bin/sh
# Build a stand-in kernel image from the C files here (kernel-like source
# tree, -g, linked at the x86-64 kernel's _text) and an ftrace text of
# kmalloc/kfree events whose call sites lie in it, as `trace-cmd report`
# prints a recording without kallsyms: raw addresses.
#   tests/standin/build.sh OUTDIR [BUILD-ID]
# writes OUTDIR/vmlinux and OUTDIR/trace.txt. BUILD-ID (hex) replaces the
# linker's, for images that must differ from another only by it.
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=$1
id=${2:-sha1}
[ "$id" = sha1 ] || id=0x$id
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$src"
gcc -g -O0 -ffreestanding -fno-pie -no-pie -nostdlib -static \
	-Wl,-Ttext=0xffffffff81000000 -Wl,--build-id="$id" -o "$out/vmlinux" \
	head.c fs/ext4/inode.c fs/ext4/dir.c mm/util.c drivers/net/tun.c
python3 - "$out/vmlinux" "$out/trace.txt" <<'PY'
import subprocess, sys
image, text = sys.argv[1:3]
addr = {}
for line in subprocess.check_output(['nm', image], text=True).splitlines():
    f = line.split()
    if len(f) == 3:
        addr[f[2]] = int(f[0], 16)

def inlined(fn):
    # the first address of fn that addr2line places in an inlined function
    for off in range(1, 0x80):
        a = addr[fn] + off
        frames = subprocess.check_output(['addr2line', '-i', '-e', image, '%x' % a],
                                         text=True).split()
        if len(frames) > 1:
            return a
    sys.exit('no inlined code in ' + fn)

# (call site, bytes, allocations, frees)
sites = [(inlined('ext4_alloc_inode'), 512, 3, 1), (addr['ext4_readdir'] + 4, 64, 5, 5),
         (addr['kstrdup'] + 4, 32, 7, 2), (addr['tun_alloc'] + 4, 1024, 1, 0),
         (0xffffffffa0001234, 128, 2, 0)]    # a module's: not in the image
t, ptr = 100.0, 0xffff888100000000
with open(text, 'w') as f:
    for site, size, allocs, frees in sites:
        for i in range(allocs):
            t += 0.00001
            ptr += 0x1000
            f.write('          ls-4242  [000]   %.6f: kmalloc:              call_site=0x%x '
                    'ptr=0x%x bytes_req=%d bytes_alloc=%d gfp_flags=GFP_KERNEL node=-1 '
                    'accounted=false\n' % (t, site, ptr, size - 8, size))
            if i < frees:
                t += 0.00001
                f.write('          ls-4242  [000]   %.6f: kfree:                call_site=0x%x '
                        'ptr=0x%x\n' % (t, site + 8, ptr))
PY
