/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The event filters analyses share: --time START,END, --pid-filter PID,...
 * and --comm NAME.
 */
#ifndef KMT_FILTER_H
#define KMT_FILTER_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <kmtrace/error.h>
#include <kmtrace/event.h>
#include <kmtrace/reader.h>
#include "common/hashmap.h"

struct tep_handle;

enum {
	KMT_FILTER_OPT_TIME = 0x200,
	KMT_FILTER_OPT_PIDS,
	KMT_FILTER_OPT_COMM,
};

/* The getopt_long() entries of the filter options, NULL-terminated. */
extern const struct option kmt_filter_longopts[];

/* Their --help lines. */
#define KMT_FILTER_USAGE \
	"  --time START,END    events in this window (seconds, as timestamps show)\n" \
	"  --pid-filter PID,.. events of these pids\n" \
	"  --comm NAME         events of tasks named NAME at the time (perf.data, text:\n" \
	"                      an exec renames a task)\n"

struct kmt_filter {
	uint64_t start_ns, end_ns;	/* inclusive */
	int *pids;
	int npids;
	const char *comm;
	struct kmt_reader *reader;	/* names of tasks */
	struct kmt_hashmap comm_match;	/* pid -> 1 matches comm, 2 does not */
};

/* Set @f to pass everything. Returns 0, or -1 on allocation failure. */
int kmt_filter_init(struct kmt_filter *f);

/* Free what @f holds. */
void kmt_filter_free(struct kmt_filter *f);

/*
 * Take option @key with @arg if it is a filter option: returns 1 when
 * taken, 0 when @key is not a filter option, -1 with @err filled on a bad
 * value.
 */
int kmt_filter_option(struct kmt_filter *f, int key, const char *arg, struct kmt_error *err);

/* kmt_filter_pass() for a filter with pids or a comm. */
bool kmt_filter_pass_task(struct kmt_filter *f, const struct kmt_event *ev);

/*
 * Does @ev pass the time start, pid and comm filters? (past END: see
 * kmt_filter_done) Inline: analyses ask it for most events, and most runs
 * filter by time at most.
 */
static inline bool kmt_filter_pass(struct kmt_filter *f, const struct kmt_event *ev)
{
	if (ev->ts < f->start_ns)
		return false;
	return (!f->npids && !f->comm) || kmt_filter_pass_task(f, ev);
}

/* Is @ev after the window's END? Then it and all later events are ignored. */
static inline bool kmt_filter_done(const struct kmt_filter *f, const struct kmt_event *ev)
{
	return ev->ts > f->end_ns;
}

/*
 * A copy of the name of task @pid as the recording knows it at its end
 * (kmt_reader_comm(); "<...>" for none), for a per-process row. NULL when
 * out of memory. Named at report time: names may change until the last event.
 */
char *kmt_task_name(struct kmt_reader *r, int pid);

/* Does @f select anything less than the whole recording? */
bool kmt_filter_active(const struct kmt_filter *f);

#endif /* KMT_FILTER_H */
