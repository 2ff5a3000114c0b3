// SPDX-License-Identifier: LGPL-2.1
/*
 * The replay's heap on huge pages. The analyses reach their live-object
 * maps, rows and rings in no order, and on a virtual machine a TLB miss
 * walks two sets of page tables: on the project's VM every analysis ran
 * 10-20% faster with its heap on 2 MiB pages (docs/PERFORMANCE.md). glibc
 * asks for them only under GLIBC_TUNABLES=glibc.malloc.hugetlb=1, read
 * when the program starts, so the program does it itself: the heap's
 * first growth is one large step advised MADV_HUGEPAGE, allocations up to
 * 32 MiB come from it, and it is not trimmed (the replay ends soon after
 * its peak anyway).
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd.h"

#define HUGE_PAGE	((uintptr_t)2 << 20)
#define MAX_STEP	((size_t)256 << 20)	/* address space, not memory */
#define FROM_HEAP_UP_TO	(32 << 20)		/* glibc's most for M_MMAP_THRESHOLD */

/* The first line of @path into @line of @len bytes; "" when it cannot be read. */
static const char *first_line(const char *path, char *line, int len)
{
	FILE *fp = fopen(path, "re");

	if (!fp || !fgets(line, len, fp))
		line[0] = '\0';
	if (fp)
		fclose(fp);
	return line;
}

/* Would a large heap step do no harm here and get huge pages? */
static bool huge_heap_fits(void)
{
	char thp[256], overcommit[16];

	first_line("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp));
	first_line("/proc/sys/vm/overcommit_memory", overcommit, sizeof(overcommit));
	return sizeof(void *) == 8 && strchr(thp, ']') && !strstr(thp, "[never]") &&
	       !strchr(overcommit, '2');
}

/* The first step: a quarter of the memory, at most MAX_STEP. */
static size_t heap_step(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	size_t quarter = pages > 0 && size > 0 ? (size_t)pages / 4 * (size_t)size : 0;

	return quarter < MAX_STEP ? quarter : MAX_STEP;
}

void kmt_cmd_huge_page_heap(void)
{
	uintptr_t from = (uintptr_t)sbrk(0), to;
	size_t step = heap_step();
	void *volatile first;	/* volatile: the compiler may not drop the pair */

	if (!huge_heap_fits() || step < 4 * HUGE_PAGE || from == (uintptr_t)-1)
		return;
	mallopt(M_ARENA_MAX, 1);	/* a second thread's analyses: on this heap too */
	mallopt(M_MMAP_THRESHOLD, FROM_HEAP_UP_TO);
	mallopt(M_TRIM_THRESHOLD, (int)(step * 2 < INT32_MAX ? step * 2 : INT32_MAX));
	mallopt(M_TOP_PAD, (int)step);
	first = malloc(1 << 20);
	mallopt(M_TOP_PAD, 128 << 10);	/* glibc's default again */
	to = (uintptr_t)sbrk(0);
	free(first);
	from = (from + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	to &= ~(HUGE_PAGE - 1);
	if (first && to > from)
		madvise((void *)from, to - from, MADV_HUGEPAGE);
}
