/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: a CPU's ring-buffer figures and losses, as the kernel's per-CPU
 * stats files give them and a trace.dat keeps them (src/container owns
 * their parsing; the recorder and the readers both use them).
 */
#ifndef KMTRACE_CPUSTATS_H
#define KMTRACE_CPUSTATS_H

#include <stdbool.h>

/* What a file tells about one CPU's buffer and its losses. */
struct kmt_cpu_stats {
	bool have_stats;		/* the recording carried per-CPU stats */
	unsigned long long entries;
	unsigned long long overrun;	/* overwritten (overwrite mode) */
	unsigned long long commit_overrun;
	unsigned long long dropped;	/* discarded (no-overwrite mode) */
	unsigned long long read_events;
	unsigned long long missed_marked;	/* sum of sub-buffer missed counts */
	unsigned long long missed_unknown;	/* sub-buffers flagged without count */
	bool impossible;		/* the file gave counts no kernel keeps: left out */
};

/* Events a CPU lost: sub-buffer marks or the kernel's overrun, plus drops. */
unsigned long long kmt_cpu_stats_lost(const struct kmt_cpu_stats *st);

#endif /* KMTRACE_CPUSTATS_H */
