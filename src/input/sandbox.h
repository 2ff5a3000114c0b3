/* SPDX-License-Identifier: LGPL-2.1 */
/* Code that may crash on hostile input, tried in a child process first; private to src/. */
#ifndef KMT_SANDBOX_H
#define KMT_SANDBOX_H

#include <fcntl.h>

/* The verdict of a job the child died on (a crash, or out of time). */
#define KMT_SANDBOX_CRASHED	255

/* One job: its verdict, 0..254 (what it means is the caller's). */
typedef unsigned char (*kmt_sandbox_job)(void *arg, int i);

/*
 * Run @fn(@arg, i) for i in [0, @n) in child processes, each with
 * @seconds to live, and put the verdicts in @verdicts (@n bytes): the
 * job's own, or KMT_SANDBOX_CRASHED for a job its child died in. What the
 * jobs do in the child stays there. Returns 0, or -1 with errno when no
 * child could be made.
 */
int kmt_sandbox_run(kmt_sandbox_job fn, void *arg, int n, unsigned int seconds,
		    unsigned char *verdicts);

#endif /* KMT_SANDBOX_H */
