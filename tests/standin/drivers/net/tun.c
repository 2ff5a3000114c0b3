/* Stand-in for a kernel source file: kmtrace's --vmlinux tests (tests/standin/build.sh). */
long tun_alloc(long n)
{
	return n + 11;
}
