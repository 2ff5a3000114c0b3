/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: what a recording knows of the tasks its events name, for the
 * per-process tables.
 */
#ifndef KMTRACE_PROCESS_H
#define KMTRACE_PROCESS_H

/* One task (the pid events carry). Unknown numbers are -1, unknown texts NULL. */
struct kmt_process {
	int pid;
	int tgid;			/* its process */
	int ppid;			/* its process's parent */
	long long start_ns;		/* when it started, ns since boot */
	long long exit_ns;		/* when it exited (perf.data EXIT, sched_process_exit);
					   0 or -1: not seen */
	long long seen_ns;		/* when /proc showed it, on the recording's
					   clock (CLOCK_MONOTONIC); -1: only events did */
	const char *comm;
	const char *exe;		/* the executable's path */
	const char *cmdline;		/* arguments joined by spaces */
	const char *cgroup;		/* v2 path, else v1 memory controller's */
	const char *container;		/* the id a runtime put in the cgroup path */
};

/* The task @pid as @ctx knows it, or NULL. */
typedef const struct kmt_process *(*kmt_process_lookup)(void *ctx, int pid);

#endif
