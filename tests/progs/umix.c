// SPDX-License-Identifier: LGPL-2.1
/*
 * A known mix of allocations for record --user-sample's estimates:
 *   umix MB INTERVAL [_exit]
 * allocates about MB megabytes from four callers of different sizes
 * (small_objects: 16-512 B, medium_objects: 1-16 KiB, large_objects:
 * 64 KiB-1 MiB, zeroed_objects: calloc of 4-64 KiB), in that proportion
 * 10:30:40:20, interleaved; frees all but one in 64 at once. It prints,
 * per caller, "NAME CALLS BYTES LIVE_BYTES VAR LIVE_VAR": what it asked for,
 * and the variance of the sampled estimate of its bytes (and live bytes)
 * when each allocation of s bytes is taken with chance 1 - exp(-s /
 * INTERVAL) and then counts s / that chance (the sum of s^2 (1 - p) / p).
 * With "_exit" it leaves by _exit(0), so no exit() handler runs.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tally {
	const char *name;
	unsigned long long calls, bytes, live;
	double var, live_var;
};

static double interval;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t between(size_t lo, size_t hi)
{
	return lo + next() % (hi - lo + 1);
}

/* Count @p of @size bytes in @t; keep it (live) or free it. */
static void account(struct tally *t, void *p, size_t size)
{
	double chance = -expm1(-(double)size / interval);
	double var = chance > 0 ? (double)size * size * (1 - chance) / chance : 0;
	bool keep = next() % 64 == 0;

	if (!p)
		exit(1);
	memset(p, 1, size < 64 ? size : 64);
	t->calls++;
	t->bytes += size;
	t->var += var;
	if (keep) {
		t->live += size;
		t->live_var += var;
	} else {
		free(p);
	}
}

static __attribute__((noinline)) void small_objects(struct tally *t)
{
	size_t size = between(16, 512);

	account(t, malloc(size), size);
}

static __attribute__((noinline)) void medium_objects(struct tally *t)
{
	size_t size = between(1024, 16384);

	account(t, malloc(size), size);
}

static __attribute__((noinline)) void large_objects(struct tally *t)
{
	size_t size = between(65536, 1048576);

	account(t, malloc(size), size);
}

static __attribute__((noinline)) void zeroed_objects(struct tally *t)
{
	size_t n = between(1, 16);

	account(t, calloc(n, 4096), n * 4096);
}

int main(int argc, char **argv)
{
	struct tally t[4] = { { "small_objects" }, { "medium_objects" }, { "large_objects" },
			      { "zeroed_objects" } };
	void (*const fn[4])(struct tally *) = { small_objects, medium_objects, large_objects,
						zeroed_objects };
	static const double share[4] = { 0.10, 0.30, 0.40, 0.20 };
	unsigned long long target;
	int i;

	if (argc < 3 || argc > 4 || atoll(argv[1]) <= 0 || atof(argv[2]) < 1 ||
	    (argc == 4 && strcmp(argv[3], "_exit")))
		return 2;
	target = atoll(argv[1]) << 20;
	interval = atof(argv[2]);
	for (;;) {
		int done = 0;

		for (i = 0; i < 4; i++) {
			/* each caller keeps to its share: more calls for the small ones */
			while (t[i].bytes < share[i] * (t[0].bytes + t[1].bytes + t[2].bytes +
							 t[3].bytes + 1048576.0) &&
			       t[i].bytes < share[i] * target)
				fn[i](&t[i]);
			done += t[i].bytes >= share[i] * target;
		}
		if (done == 4)
			break;
	}
	for (i = 0; i < 4; i++)
		printf("%s %llu %llu %llu %.0f %.0f\n", t[i].name, t[i].calls, t[i].bytes, t[i].live,
		       t[i].var, t[i].live_var);
	if (argc == 4) {
		fflush(stdout);
		_exit(0);
	}
	return 0;
}
