/* Stand-in for a kernel source file: kmtrace's --vmlinux tests (tests/standin/build.sh). */
long kstrdup(long n)
{
	return n - 1;
}
