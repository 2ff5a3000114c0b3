// SPDX-License-Identifier: LGPL-2.1
/*
 * The fault workload of the tests: grow the heap with brk, touch N fresh
 * anonymous pages, then read an M-page file through mmap after dropping
 * its page cache with posix_fadvise(DONTNEED), which makes major faults.
 *
 * usage: faultprog ANON_PAGES FILE_PAGES FILE [BRK_PAGES]
 *
 * The file mapping is MADV_RANDOM (no readahead) unless FAULTPROG_READAHEAD
 * is set: with the device's readahead, async readahead can stay ahead of
 * the reader and a whole file may cost a single major fault.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Write @pages pages to @path, flush them and drop them from the page cache. */
static void make_cold_file(const char *path, long pages, long psz)
{
	char *buf = malloc(psz);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	long i;

	if (!buf || fd < 0)
		die(path);
	memset(buf, 'k', psz);
	for (i = 0; i < pages; i++)
		if (write(fd, buf, psz) != psz)
			die("write");
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("fsync/fadvise");
	close(fd);
	free(buf);
}

/* Read one byte of every page of @path through a private read-only mapping. */
static long read_mapped(const char *path, long pages, long psz, bool random)
{
	int fd = open(path, O_RDONLY);
	volatile const char *p;
	long i, sum = 0;

	if (fd < 0)
		die(path);
	p = mmap(NULL, pages * psz, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap file");
	/* No readahead: every page is read by its own major fault. */
	if (random && madvise((void *)p, pages * psz, MADV_RANDOM))
		die("madvise");
	for (i = 0; i < pages; i++)
		sum += p[i * psz];
	munmap((void *)p, pages * psz);
	close(fd);
	return sum;
}

static void touch_anon(long pages, long psz)
{
	char *p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED)
		die("mmap anon");
	madvise(p, pages * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * psz] = 1;
}

static void grow_heap(long pages, long psz)
{
	char *p = sbrk(pages * psz);
	long i;

	if (p == (void *)-1)
		die("sbrk");
	for (i = 0; i < pages; i++)
		p[i * psz] = 1;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), sum;

	if (argc < 4) {
		fprintf(stderr, "usage: faultprog ANON_PAGES FILE_PAGES FILE [BRK_PAGES]\n");
		return 2;
	}
	if (atol(argv[2]) > 0) {
		make_cold_file(argv[3], atol(argv[2]), psz);
		sum = read_mapped(argv[3], atol(argv[2]), psz, !getenv("FAULTPROG_READAHEAD"));
	} else {
		sum = 0;
	}
	grow_heap(argc > 4 ? atol(argv[4]) : 256, psz);
	touch_anon(atol(argv[1]), psz);
	printf("faultprog: read %ld bytes of %s\n", sum, argv[3]);
	return 0;
}
