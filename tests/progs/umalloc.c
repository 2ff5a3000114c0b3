// SPDX-License-Identifier: LGPL-2.1
/*
 * Known user-space allocations for record --user:
 *   umalloc N SIZE FREED HOLD_MS
 * make_objects() mallocs N blocks of SIZE bytes and frees the first FREED;
 * resize_objects() callocs 10 x 100 bytes and reallocs that to 4,000. Then
 * it holds HOLD_MS milliseconds (its maps stay readable) and exits without
 * freeing the rest, and prints what it did as "calls bytes live" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void **blocks;
static void *resized;

static __attribute__((noinline)) void make_objects(long n, long size, long freed)
{
	long i;

	for (i = 0; i < n; i++) {
		blocks[i] = malloc(size);
		memset(blocks[i], 1, 1);
	}
	for (i = 0; i < freed; i++)
		free(blocks[i]);
}

static __attribute__((noinline)) void resize_objects(void)
{
	char *p = calloc(10, 100);

	resized = realloc(p, 4000);	/* not a tail call: the caller stays this function */
	memset(resized, 2, 1);
}

int main(int argc, char **argv)
{
	long n, size, freed, hold_ms;
	struct timespec hold;

	if (argc != 5)
		return 2;
	n = atol(argv[1]);
	size = atol(argv[2]);
	freed = atol(argv[3]);
	hold_ms = atol(argv[4]);
	if (n <= 0 || size <= 0 || freed < 0 || freed > n || hold_ms < 0)
		return 2;
	blocks = calloc(n, sizeof(*blocks));	/* main's own: a third call site */
	if (!blocks)
		return 1;
	make_objects(n, size, freed);
	resize_objects();
	hold = (struct timespec){ hold_ms / 1000, hold_ms % 1000 * 1000000 };
	nanosleep(&hold, NULL);
	printf("malloc %ld %ld %ld\n", n, n * size, n - freed);
	printf("calloc 1 1000 %p\n", resized);
	return 0;
}
