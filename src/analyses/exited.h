/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Rows of exited tasks, kept only while they can still make the first
 * @lines rows of a table. A row settles a grace period after its task's
 * exit event (the task's last events, exit_mm's faults and frees, come
 * after it on some kernels): from then on it never changes, and once
 * @lines settled rows rank above it, it never will be shown, so it goes.
 * Memory follows the live tasks and @lines, not every task the trace saw.
 */
#ifndef KMT_EXITED_H
#define KMT_EXITED_H

#include <stdbool.h>
#include <stdint.h>
#include "common/util.h"

/* Trace time from a task's exit event to its row settling: one second. */
#define KMT_EXITED_GRACE_NS	1000000000ull

struct kmt_exited_wait {
	uint64_t due;		/* trace time the row settles at */
	uint32_t row;
};

/* What a table's owner does for kmt_exited_until(); @ctx is kmt_exited_init()'s. */
struct kmt_exited_ops {
	kmt_index_cmp rank;				/* < 0: row a ranks above row b */
	void (*detach)(void *ctx, uint32_t row);	/* settled: it takes no more events */
							/* (only kmt_exited_until() calls it) */
	int (*drop)(void *ctx, uint32_t row);		/* it can go: 0, or -1 */
};

struct kmt_exited {
	uint64_t lines;			/* rows the table shows */
	const struct kmt_exited_ops *ops;
	void *ctx;
	struct kmt_exited_wait *wait;	/* ring in exit order, so by due time */
	uint32_t head, nwait, wait_cap;
	uint32_t *kept;			/* settled rows kept: a heap, the lowest-ranked on top */
	uint32_t nkept, kept_cap;
	uint32_t *spare;		/* rows given back, for new ones */
	uint32_t nspare, spare_cap;
};

/* Start @e for a table of @ctx showing @lines rows, with @ops. */
void kmt_exited_init(struct kmt_exited *e, long long lines, const struct kmt_exited_ops *ops,
		     void *ctx);

/* Free what @e holds. */
void kmt_exited_free(struct kmt_exited *e);

/* The task of @row exited at @ts: 0, or -1 out of memory. */
int kmt_exited_add(struct kmt_exited *e, uint32_t row, uint64_t ts);

/* The next row settled by trace time @now into *@row, in exit order; false when none. */
static inline bool kmt_exited_due(struct kmt_exited *e, uint64_t now, uint32_t *row)
{
	if (!e->nwait || e->wait[e->head].due > now)
		return false;
	*row = e->wait[e->head].row;
	e->head = e->head + 1 == e->wait_cap ? 0 : e->head + 1;
	e->nwait--;
	return true;
}

/*
 * Rank settled @row among the kept ones. Returns the row that can go
 * (@row itself or one it displaced) in *@gone and 1, 0 when all stay, -1
 * out of memory.
 */
int kmt_exited_settle(struct kmt_exited *e, uint32_t row, uint32_t *gone);

/*
 * @row is final now (it takes no more events): ranked, and the row that
 * can go dropped. 0, or -1 out of memory.
 */
int kmt_exited_final(struct kmt_exited *e, uint32_t row);

/*
 * Settle the rows due by trace time @now: each is detached, then final.
 * 0, or -1 out of memory.
 */
int kmt_exited_until(struct kmt_exited *e, uint64_t now);

/* Give row @row back for reuse by kmt_exited_reuse(): 0, or -1 out of memory. */
int kmt_exited_give(struct kmt_exited *e, uint32_t row);

/* A row given back into *@row; false when there is none. */
static inline bool kmt_exited_reuse(struct kmt_exited *e, uint32_t *row)
{
	if (!e->nspare)
		return false;
	*row = e->spare[--e->nspare];
	return true;
}

#endif /* KMT_EXITED_H */
