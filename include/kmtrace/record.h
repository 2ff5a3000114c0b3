/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: capture kernel memory events from a tracing instance of its own
 * into a trace-cmd compatible trace.dat.
 */
#ifndef KMTRACE_RECORD_H
#define KMTRACE_RECORD_H

#include <stdbool.h>
#include <kmtrace/reader.h>

struct kmt_record_opts {
	const char *const *events;	/* "GROUP:EVENT", "GROUP" or "EVENT"; none: defaults */
	int nevents;
	const char *const *filters;	/* "GROUP:EVENT:EXPR" */
	int nfilters;
	const int *pids;
	int npids;
	unsigned int buffer_kb;		/* per CPU; 0: KMT_RECORD_DEFAULT_BUFFER_KB */
	double duration;		/* seconds; 0: until the command ends or a signal */
	const char *output;
	bool force;			/* replace an existing output file */
	bool no_kallsyms;		/* leave /proc/kallsyms out (5+ MB) */
	bool no_kprobes;		/* no return probe on handle_mm_fault */
	char *const *command;		/* argv of the command to trace, or NULL */
};

#define KMT_RECORD_DEFAULT_BUFFER_KB	8192

/* What one CPU's buffer gave. */
struct kmt_record_cpu {
	unsigned long long events;
	unsigned long long bytes;
	unsigned long long lost;
};

struct kmt_record_result {
	int ncpus;
	struct kmt_record_cpu *cpus;	/* ncpus entries; free() it */
	int command_status;		/* wait status of the command, -1 if none */
	int stop_signal;		/* signal that stopped the recording, or 0 */
};

/*
 * Record per @o into @o->output. The instance kmtrace-<pid> is created,
 * used and removed on every path. Returns 0, or -1 with @err filled.
 */
int kmt_record(const struct kmt_record_opts *o, struct kmt_record_result *res,
	       struct kmt_error *err);

#endif /* KMTRACE_RECORD_H */
