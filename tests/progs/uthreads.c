// SPDX-License-Identifier: LGPL-2.1
/*
 * record --user-sample under threads, signals, fork and exec:
 *   uthreads N
 * four threads each make N malloc/free pairs of 16-4096 bytes while a
 * timer's SIGALRM handler mallocs and frees too (as real programs do,
 * though malloc is not async-signal-safe); then it forks a child that
 * makes N pairs and execs "ls /", and waits for it. Exit 0 when all went
 * well. The handler runs only in the main thread while it waits in
 * pthread_join() or pause() (a thousand times), which hold no malloc lock: the four threads block
 * SIGALRM, as the main thread does while it creates them (pthread_create
 * mallocs). A handler's malloc landing inside a malloc of its own thread
 * would wait for the lock it holds.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static long pairs;
static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	void *p = malloc(64 + sig);

	if (p)
		memset(p, 0, 8);
	free(p);
	ticks++;
}

static void *churn(void *arg)
{
	unsigned long x = (unsigned long)arg * 2654435761u + 1;
	long i;

	for (i = 0; i < pairs; i++) {
		char *p;

		x = x * 6364136223846793005ul + 1442695040888963407ul;
		p = malloc(16 + (x >> 33) % 4081);
		if (!p)
			return (void *)1;
		p[0] = 1;
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct itimerval every = { { 0, 1000 }, { 0, 1000 } };
	pthread_t t[4];
	sigset_t alarm;
	void *ret;
	int i, status;
	pid_t child;

	if (argc != 2 || (pairs = atol(argv[1])) <= 0)
		return 2;
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm, NULL);	/* the threads inherit it */
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &every, NULL);
	for (i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, churn, (void *)(long)i))
			return 1;
	pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
	for (i = 0; i < 4; i++)
		if (pthread_join(t[i], &ret) || ret)
			return 1;
	while (ticks < 1000)	/* enough handler mallocs for the sampling to see some */
		pause();
	setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
	pthread_sigmask(SIG_BLOCK, &alarm, NULL);	/* one may still be pending */
	child = fork();
	if (child == 0) {
		if (churn((void *)9L))
			_exit(1);
		execlp("ls", "ls", "/", (char *)NULL);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	printf("%ld pairs in 4 threads, %d alarms, child %d\n", pairs, (int)ticks, (int)child);
	return 0;
}
