/* Stand-in for a kernel source file: kmtrace's --vmlinux tests (tests/standin/build.sh). */
long ext4_readdir(long n)
{
	return n * 7;
}
