// SPDX-License-Identifier: LGPL-2.1
/*
 * Run code that may crash on hostile input (libraries parsing what a file
 * hands them) in a child process first. The child runs the jobs in order
 * and writes one verdict byte per job into a pipe; when it dies (a signal,
 * its time limit) the job it was on is marked crashed and a new child goes
 * on with the next one. The caller then does in-process only what the
 * child survived: the same code on the same input does the same thing.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

/* Set where a sanitizer runs (fuzzing): what it does when the process dies. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* The child dies plainly: no handler of the parent's (a fuzzer's) acts for it. */
static void plain_death(void)
{
	static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGALRM };
	size_t i;

	for (i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
		signal(deadly[i], SIG_DFL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
}

/* A child that ran jobs [@from, @n); the verdicts it gave, the first lost one marked. */
static int run_child(kmt_sandbox_job fn, void *arg, int from, int n, unsigned int seconds,
		     unsigned char *verdicts, int *next)
{
	int p[2], i, status;
	pid_t pid;
	ssize_t got;
	int have = 0;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		close(p[0]);
		plain_death();
		if (null >= 0) {	/* what the jobs or a crash print is not ours to show */
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		alarm(seconds);
		for (i = from; i < n; i++) {
			unsigned char v = fn(arg, i);

			if (write(p[1], &v, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	while (have < n - from &&
	       ((got = read(p[0], verdicts + from + have, n - from - have)) > 0 ||
		(got < 0 && errno == EINTR)))
		if (got > 0)
			have += got;
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (have < n - from) {
		verdicts[from + have] = KMT_SANDBOX_CRASHED;
		have++;
	}
	*next = from + have;
	return 0;
}

int kmt_sandbox_run(kmt_sandbox_job fn, void *arg, int n, unsigned int seconds,
		    unsigned char *verdicts)
{
	int from = 0;

	while (from < n)
		if (run_child(fn, arg, from, n, seconds, verdicts, &from))
			return -1;
	return 0;
}
