// SPDX-License-Identifier: LGPL-2.1
/*
 * A heap whose pages stay while half of it is freed:
 *   ufrag N SIZE HOLD_MS
 * mallocs N blocks of SIZE bytes and writes them all, frees every other one
 * (the neighbours stay, so nothing can be given back), then prints its own
 * accounting, "live BYTES uordblks BYTES rss_anon BYTES", holds HOLD_MS
 * milliseconds and exits.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* RssAnon of /proc/self/status in bytes; 0 if it cannot be read. */
static unsigned long long rss_anon(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long kb = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

int main(int argc, char **argv)
{
	long n, size, hold_ms, i;
	unsigned long long live = 0;
	struct timespec hold;
	struct mallinfo2 mi;
	char **blocks;

	if (argc != 4 || (n = atol(argv[1])) <= 0 || (size = atol(argv[2])) <= 0 ||
	    (hold_ms = atol(argv[3])) < 0)
		return 2;
	blocks = malloc(n * sizeof(*blocks));
	if (!blocks)
		return 1;
	for (i = 0; i < n; i++) {
		blocks[i] = malloc(size);
		if (!blocks[i])
			return 1;
		memset(blocks[i], 1, size);
	}
	for (i = 0; i < n; i += 2)
		free(blocks[i]);
	for (i = 1; i < n; i += 2)
		live += size;
	live += n * sizeof(*blocks);
	mi = mallinfo2();
	printf("live %llu uordblks %zu rss_anon %llu\n", live, mi.uordblks, rss_anon());
	fflush(stdout);
	hold = (struct timespec){ hold_ms / 1000, hold_ms % 1000 * 1000000 };
	nanosleep(&hold, NULL);
	return 0;
}
