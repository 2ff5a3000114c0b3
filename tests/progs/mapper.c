// SPDX-License-Identifier: LGPL-2.1
/*
 * Maple-tree churn: ROUNDS times, map COUNT one-page anonymous regions
 * with a gap between each (so none merge) and unmap them again. Each map
 * and unmap splits and joins nodes of the process's maple tree; the kernel
 * frees the old nodes in bulk (kmem_cache_free_bulk, RCU batches), which
 * no tracepoint shows. The untraced-frees test records it.
 * usage: mapper COUNT ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), count, rounds, r, i;
	char *area;

	if (argc != 3 || (count = atol(argv[1])) <= 0 || (rounds = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: mapper COUNT ROUNDS\n");
		return 2;
	}
	/* reserve the span once, so that the regions land where asked */
	area = mmap(NULL, 2 * count * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return perror("mmap"), 1;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < count; i++)
			if (mprotect(area + 2 * i * page, page, PROT_READ | PROT_WRITE))
				return perror("mprotect"), 1;
		for (i = 0; i < count; i++)
			if (mprotect(area + 2 * i * page, page, PROT_NONE))
				return perror("mprotect"), 1;
	}
	return 0;
}
