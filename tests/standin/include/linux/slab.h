/* Stand-in for a kernel source file: kmtrace's --vmlinux tests (tests/standin/build.sh). */
static inline __attribute__((always_inline)) long kmalloc_inline(long n)
{
	return n * 2 + 1;
}
