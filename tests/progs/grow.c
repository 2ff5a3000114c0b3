// SPDX-License-Identifier: LGPL-2.1
/*
 * Grows by MB megabytes of written heap every MS milliseconds, STEPS times:
 *   grow MB MS STEPS
 * On SIGTERM it writes "signalled VmRSS KB" (its own /proc/self/status) to
 * standard output and exits 143; at the end "done VmRSS KB", exit 0.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* VmRSS in kB, read with async-signal-safe calls only. */
static long vm_rss_kb(void)
{
	char buf[4096], *p;
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "VmRSS:");
	return p ? strtol(p + 6, NULL, 10) : -1;
}

static void say(const char *what)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s VmRSS %ld\n", what, vm_rss_kb());

	if (write(STDOUT_FILENO, line, n) < 0)
		_exit(1);
}

static void on_term(int sig)
{
	(void)sig;
	say("signalled");
	_exit(143);
}

int main(int argc, char **argv)
{
	long mb, ms, steps, i;
	struct timespec pause;

	if (argc != 4 || (mb = atol(argv[1])) <= 0 || (ms = atol(argv[2])) < 0 ||
	    (steps = atol(argv[3])) <= 0)
		return 2;
	signal(SIGTERM, on_term);
	pause = (struct timespec){ ms / 1000, ms % 1000 * 1000000 };
	for (i = 0; i < steps; i++) {
		char *p = malloc(mb << 20);

		if (!p)
			return 1;
		memset(p, 1, mb << 20);
		nanosleep(&pause, NULL);
	}
	say("done");
	return 0;
}
