// SPDX-License-Identifier: LGPL-2.1
/*
 * Limits held at the allocation (kmtrace watch --on-limit):
 *   ulimit heap KIB      blocks of KIB KiB until malloc returns NULL (at most
 *                        4 GiB); prints "null at block I errno E live U asked N"
 *                        with U the usable bytes of the blocks it holds then
 *   ulimit threads KIB A_MIB B_MIB
 *                        two threads, each mallocs and frees blocks of KIB KiB:
 *                        A until it asked A_MIB MiB or got NULL, B the same
 *                        with B_MIB; prints how far each went
 * Exit 0 when it ran to its end.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct worker {
	size_t block;
	unsigned long long want, asked;
	int got_null;
};

static int heap(size_t block)
{
	unsigned long long live = 0, i;
	void **keep = calloc(4096, sizeof(*keep));

	for (i = 0; keep && i < 4096 && (unsigned long long)block * i < (4ull << 30); i++) {
		errno = 0;
		keep[i] = malloc(block);
		if (!keep[i]) {
			printf("null at block %llu errno %d live %llu asked %zu\n", i, errno, live,
			       block);
			fflush(stdout);
			nanosleep(&(struct timespec){ 0, 300000000 }, NULL);	/* maps stay readable */
			return 0;
		}
		memset(keep[i], 1, 64);
		live += malloc_usable_size(keep[i]);
	}
	printf("no null after %llu blocks, live %llu\n", i, live);
	return 1;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	while (w->asked + w->block <= w->want) {
		char *p = malloc(w->block);

		if (!p) {
			w->got_null = 1;
			break;
		}
		p[0] = 1;
		w->asked += w->block;
		free(p);
	}
	return NULL;
}

static int threads(size_t block, unsigned long long a_mib, unsigned long long b_mib)
{
	struct worker w[2] = { { block, a_mib << 20, 0, 0 }, { block, b_mib << 20, 0, 0 } };
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, work, &w[i]))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++)
		printf("%c %s after %llu bytes\n", 'A' + i, w[i].got_null ? "stopped (NULL)" : "done",
		       w[i].asked);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "heap"))
		return heap((size_t)atol(argv[2]) << 10);
	if (argc == 5 && !strcmp(argv[1], "threads"))
		return threads((size_t)atol(argv[2]) << 10, atoll(argv[3]), atoll(argv[4]));
	return 2;
}
