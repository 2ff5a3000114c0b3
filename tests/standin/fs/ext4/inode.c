/* Stand-in for a kernel source file: kmtrace's --vmlinux tests (tests/standin/build.sh). */
#include "../../include/linux/slab.h"
long ext4_alloc_inode(long n)
{
	long x = n + 3;
	x += kmalloc_inline(x);
	return x;
}
