/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Live reading: a tracing instance of kmtrace's own whose ring buffers are
 * read in place (no file), for kmtrace top.
 */
#ifndef KMT_LIVE_H
#define KMT_LIVE_H

#include <kmtrace/error.h>

struct kmt_live;
struct tep_handle;

struct kmt_live_opts {
	const char *const *events;	/* "system:event"; those the kernel lacks are left out */
	int nevents;
	const char *pids;		/* set_event_pid text ("12 34"), children followed; or NULL */
	const char *filter;		/* an ftrace filter for every event, or NULL */
	unsigned int buffer_kb;		/* per CPU */
};

/*
 * Make instance kmtrace-PID, enable the events of @o the running kernel
 * has and start tracing. NULL with @err filled when that fails (nothing
 * is left behind then).
 */
struct kmt_live *kmt_live_start(const struct kmt_live_opts *o, struct kmt_error *err);

/* The event formats of the running kernel for decoding what is read. */
struct tep_handle *kmt_live_tep(struct kmt_live *l);

/* The events of the options the running kernel lacks, space separated ("" if none). */
const char *kmt_live_missing(const struct kmt_live *l);

/* Called for each record read: its payload, time and CPU. */
typedef void (*kmt_live_fn)(const void *data, int size, unsigned long long ts, int cpu,
			    void *ctx);

/* Read and consume every event the buffers hold now. 0, or -1 with errno. */
int kmt_live_read(struct kmt_live *l, kmt_live_fn fn, void *ctx);

/* Events the buffers lost so far (overwritten or dropped), all CPUs. */
unsigned long long kmt_live_lost(struct kmt_live *l);

/*
 * Stop tracing, read the buffers empty (their events are not handed out),
 * remove the instance and free @l. NULL is ignored.
 */
void kmt_live_stop(struct kmt_live *l);

#endif /* KMT_LIVE_H */
