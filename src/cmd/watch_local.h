/* SPDX-License-Identifier: LGPL-2.1 */
/* kmtrace watch: the command (watch.c) and what follows the events (watch_follow.c). */
#ifndef KMT_WATCH_LOCAL_H
#define KMT_WATCH_LOCAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <kmtrace/event.h>
#include <kmtrace/record.h>

#include "common/hashmap.h"

#define WATCH_MAX_PIDS	64
#define WATCH_BUFFER_KB	1024	/* small: each CPU's pages reach the spool soon */
#define WATCH_KEEP_SECONDS	10	/* -o: the last seconds before the limit */

enum watch_limit { LIMIT_HEAP, LIMIT_RSS, LIMIT_ALLOC, LIMIT_THREAD, LIMIT_NR };

/* An mm's resident pages by rss_stat member, in bytes. */
struct watch_mm {
	long long member[4];
};

struct watch {
	struct kmt_record_opts o;
	int pids[WATCH_MAX_PIDS];
	unsigned long long limit[LIMIT_NR];	/* 0: none */
	/*
	 * --on-limit (or --thread-alloc-limit): the heap and allocation limits
	 * are held in the process by libkmtrace-heap.so at each call, which
	 * acts (enum kmt_heap_action) and writes a record the watch follows.
	 */
	bool in_process;
	char heap_lib[PATH_MAX];
	int top;
	struct tep_handle *tep;		/* the recorded events' formats, read at the first data */
	struct kmt_decoder *dec;
	bool tep_tried;
	struct umem_state *umem;	/* heap, allocations and callers */
	struct kmt_hashmap mm_of;	/* mm_id -> index in mms */
	struct watch_mm *mms;
	uint32_t nmms, cap_mms;
	long long rss;			/* file + anon + shmem of those mms */
	struct kmt_event *pending;	/* decoded since the last tick, put in time order */
	uint32_t npending, cap_pending;
	unsigned long long first_ts, last_ts;
	unsigned long long now[LIMIT_NR], peak[LIMIT_NR];
	int fired;			/* enum watch_limit, or -1 */
	unsigned long long fired_at;
	unsigned long long at_fire[LIMIT_NR];	/* now[] when it fired */
	char *callers;			/* the top callers when it fired, lines */
	char *stack;			/* in process: the crossing call's stack, lines */
	uint64_t limit_frames[16];	/* ... its frames, copied as its record came */
	int limit_nframes, limit_tgid;
	unsigned long long asked;	/* ... the bytes it asked for */
	int fired_tid;			/* ... its thread */
	bool nomem;
};

/* Get @w ready to follow events. 0, or -1 out of memory. */
int kmt_watch_init(struct watch *w);

/* kmt_record_opts.watch_data: decode the events of one sub-buffer. */
void kmt_watch_data(void *ctx, int cpu, const void *subbuf, size_t len);

/*
 * kmt_record_opts.watch_tick: take the decoded events in time order; true
 * when a limit passed (not looked at when @final).
 */
bool kmt_watch_tick(void *ctx, bool final);

/* Say on @fp which limit fired, by how much, and the top callers; or the peaks. */
void kmt_watch_say(const struct watch *w, const struct kmt_record_result *res, FILE *fp);

/* Free what @w holds. */
void kmt_watch_free(struct watch *w);

#endif /* KMT_WATCH_LOCAL_H */
