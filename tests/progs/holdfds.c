// SPDX-License-Identifier: LGPL-2.1
/*
 * A program whose kernel allocations are known: BATCHES batches of N pipes
 * or eventfds, GAP_MS apart, all held open for HOLD_MS after the last
 * batch, then closed at exit. The leak tests record it with -g.
 * usage: holdfds pipe|eventfd N BATCHES GAP_MS HOLD_MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* Make one pipe or eventfd; -1 on failure. */
static int make_one(int pipes)
{
	int fds[2];

	if (pipes)
		return pipe(fds);
	return eventfd(0, 0) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	long n, batches, gap, hold, b, i;
	int pipes;

	if (argc != 6 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "eventfd"))) {
		fprintf(stderr, "usage: holdfds pipe|eventfd N BATCHES GAP_MS HOLD_MS\n");
		return 2;
	}
	pipes = !strcmp(argv[1], "pipe");
	n = atol(argv[2]);
	batches = atol(argv[3]);
	gap = atol(argv[4]);
	hold = atol(argv[5]);
	/* two descriptors per pipe, and some to spare */
	if (getrlimit(RLIMIT_NOFILE, &rl) ||
	    (rl.rlim_cur < (rlim_t)(2 * n * batches + 64) &&
	     (rl.rlim_cur = 2 * n * batches + 64) > rl.rlim_max) ||
	    setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("holdfds: setrlimit");
		return 1;
	}
	for (b = 0; b < batches; b++) {
		if (b)
			sleep_ms(gap);
		for (i = 0; i < n; i++)
			if (make_one(pipes)) {
				perror("holdfds");
				return 1;
			}
	}
	sleep_ms(hold);
	return 0;
}
