// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace top's keyboard: on a terminal, stdin goes to non-canonical mode
 * without echo so that single keys arrive at once, and comes back as it was
 * when top ends (on every path that returns). Waiting for the next read of
 * the buffers is waiting for a key.
 */
#include <poll.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"

int kmt_top_keys_start(struct kmt_top_keys *k)
{
	struct termios raw;

	k->on = false;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || tcgetattr(STDIN_FILENO, &k->saved))
		return 0;
	raw = k->saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw))
		return -1;
	k->on = true;
	return 0;
}

void kmt_top_keys_stop(struct kmt_top_keys *k)
{
	if (k->on)
		tcsetattr(STDIN_FILENO, TCSANOW, &k->saved);
	k->on = false;
}

int kmt_top_keys_wait(struct kmt_top_keys *k, uint64_t ns)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c;
	int n;

	if (!k->on) {
		struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

		nanosleep(&ts, NULL);	/* a signal cuts it short */
		return 0;
	}
	n = poll(&p, 1, (int)((ns + 999999) / 1000000));
	if (n <= 0 || read(STDIN_FILENO, &c, 1) != 1)
		return 0;
	return c;
}
