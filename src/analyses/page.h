/* SPDX-License-Identifier: LGPL-2.1 */
/* The page analysis: state shared by its event, timeline and report sides. */
#ifndef KMT_PAGE_H
#define KMT_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "page_recent.h"
#include "pageowner.h"
#include "rollup.h"
#include "stacks.h"
#include "common/hashmap.h"
#include "common/objmap.h"
#include "common/mmnames.h"
#include "common/util.h"

#define PAGE_ORDERS		16	/* orders kept apart; higher ones share the last */
#define PAGE_TOP_DEFAULT	5	/* processes in --timeline without -l */

#define PAGE_TABLE_PID		(1u << 0)
#define PAGE_TABLE_ORDER	(1u << 1)
#define PAGE_TABLE_MIGRATETYPE	(1u << 2)
#define PAGE_TABLE_GFP		(1u << 3)
#define PAGE_TABLE_LIVE		(1u << 4)
#define PAGE_TABLE_CALLER	(1u << 5)
#define PAGE_TABLE_STACK	(1u << 6)

/* page -s: what the tables' rows can be sorted by. */
enum page_sort_key {
	PAGE_SORT_PAGES, PAGE_SORT_ALLOCS, PAGE_SORT_FREES, PAGE_SORT_LIVE, PAGE_SORT_ORDER,
	PAGE_SORT_MIGRATETYPE, PAGE_SORT_GFP, PAGE_SORT_PID, PAGE_SORT_CALLER, PAGE_SORT_NR
};
#define PAGE_KEY(k)		(1u << (k))
#define PAGE_MAX_SORT		PAGE_SORT_NR
/* The keys of the tables whose rows count allocations and frees. */
#define PAGE_COUNT_KEYS		(PAGE_KEY(PAGE_SORT_PAGES) | PAGE_KEY(PAGE_SORT_ALLOCS) | \
				 PAGE_KEY(PAGE_SORT_FREES) | PAGE_KEY(PAGE_SORT_LIVE))

/* What a table's row offers the sort keys (those of the table's key set). */
struct page_sort_row {
	uint64_t pages, allocs, frees;
	int64_t live;
	uint64_t order, gfp;
	int64_t mt, pid;
	const char *caller;
};

/* A value over time, sampled per interval: its peak inside each one. */
struct page_point {
	uint64_t interval;
	int64_t peak;		/* highest value inside the interval */
	int64_t end;		/* value at its end */
};

struct page_series {
	int64_t cur, peak, min;	/* now, and over the whole run (from 0 at the start) */
	uint64_t peak_ts;
	struct page_point *points;	/* intervals with events, in order */
	uint32_t npoints, cap;
};

/* Requests and pages of one kind of allocation: per order, migratetype, gfp. */
struct page_count {
	uint64_t allocs, pages, frees, pages_freed, failures, live_pages;
};

struct page_proc {
	int pid;
	char *comm;
	uint64_t allocs, frees, pages_alloc, pages_freed;
	struct page_series s;
};

/* A page block allocated in the trace and not freed yet. */
struct page_block {
	uint64_t ts;		/* allocated at */
	uint64_t gfp;
	int pid;
	uint32_t caller;	/* callers[] row, PAGE_NO_CALLER without a call stack */
	uint32_t stack;		/* stack_rows[] row, PAGE_NO_CALLER without --stack */
	uint8_t order;
	int8_t mt;
	bool selected;
};

#define PAGE_NO_CALLER	UINT32_MAX

/* The function that asked the page allocator (first frame outside it), or a stack. */
struct page_caller {
	uint64_t start;		/* function start, or the raw ip when unresolved; stack id */
	bool unnamed;		/* unresolved: maybe an allocator frame, not the caller */
	struct page_count c;
	uint64_t peak_pages, peak_ts;	/* stacks: most live pages, first reached when */
};

struct page_gfp {
	uint64_t gfp;
	struct page_count c;
};

struct page_state {
	/* options */
	unsigned int tables;
	long long lines;		/* -1: all */
	int sort[PAGE_MAX_SORT];	/* -s: enum page_sort_key */
	int nsort;
	uint64_t interval_ns;		/* --timeline; 0: none */
	struct kmt_filter filter;

	struct kmt_reader *reader;
	const struct kmt_session *session;	/* names of addresses */
	struct tep_handle *tep;
	int kernel_version;
	uint64_t page_size;

	/* perf kmem's figures: requests and bytes */
	uint64_t alloc_req, alloc_bytes, free_req, free_bytes;
	uint64_t matched_req, matched_bytes, nomatch_req, nomatch_bytes;
	uint64_t fail_req, fail_bytes;
	uint64_t batched, batched_dup, extfrag, zone_locked, pcpu_drain, replaced;
	uint64_t pages_alloc, pages_freed;
	uint64_t forks;			/* sched_process_fork: kernel stacks no event shows */
	uint64_t first_ts, last_ts;
	bool started;			/* first_ts is set */

	struct page_series total;
	struct page_count orders[PAGE_ORDERS];
	struct page_count mts[KMT_MIGRATETYPES + 1];	/* the last: anything else */
	uint64_t matrix[PAGE_ORDERS][KMT_MIGRATETYPES + 1];

	struct kmt_hashmap gfp_index;	/* gfp -> gfps[] */
	struct page_gfp *gfps;
	uint32_t ngfps, cap_gfps;

	struct kmt_hashmap proc_index;	/* pid -> procs[] */
	struct page_proc *procs;
	uint32_t nprocs, cap_procs;

	struct kmt_objmap live;		/* pfn -> struct page_block */
	struct kmt_page_owner owner;	/* blocks allocated before the recording */

	/* --caller: rows per calling function; per ip, its row (0: allocator) */
	struct kmt_hashmap caller_index;	/* function start -> callers[] */
	struct page_caller *callers;
	uint32_t ncallers, cap_callers;
	struct kmt_hashmap frame_cache;	/* caller ip -> callers[] row + 1 */
	uint64_t no_stack;		/* allocations without a call stack */
	struct kmt_rollup rollup;	/* --by-dir, --by-module, --branch of --caller */
	uint64_t caller_unresolved;	/* callers taken from frames without a symbol */
	uint64_t with_caller;		/* allocations given a caller row */
	struct kmt_stacks stacks;	/* --caller's allocator frames; --stack's stacks */
	struct kmt_hashmap stack_index;	/* --stack: stack id -> stack_rows[] */
	struct page_caller *stack_rows;
	uint32_t nstack_rows, cap_stack_rows;
	char remark[320];

	struct page_recents recent;	/* each task's last frees (page_recent.h) */
};

KMT_OBJMAP_TYPED(page_live, struct page_block)

/* -s KEY[,KEY]: 0, or -1 with @err filled. */
int kmt_page_parse_sort(struct page_state *st, const char *arg, struct kmt_error *err);

/*
 * The indexes of the @n @rows of a table whose rows have the sort keys
 * @keys (PAGE_KEY bits), sorted by those of -s, then by @table_order
 * (may be NULL) with @ctx, then by index; free() them. NULL: out of memory.
 */
uint32_t *kmt_page_sorted(const struct page_state *st, const struct page_sort_row *rows,
			  uint32_t n, unsigned int keys, kmt_index_cmp table_order, void *ctx);

/* Is the row at sorted position @i within -l? */
bool kmt_page_row_shown(const struct page_state *st, uint64_t i);

/* Move @s to @value at @ts, keeping peaks, minimum and the interval points. */
int kmt_page_series_set(struct page_series *s, int64_t value, uint64_t ts,
		    const struct page_state *st);

/* Free the points of @s. */
void kmt_page_series_free(struct page_series *s);

struct kmt_gfp_names;

/* The --live table: pages allocated and not freed, oldest first. */
int kmt_page_report_live(struct page_state *st, struct kmt_output *out,
		     const struct kmt_gfp_names *names);

/*
 * The callers[] row of allocation @ev into *@row, PAGE_NO_CALLER without a
 * stack (page_caller.c). 0, or -1 when out of memory.
 */
int kmt_page_caller_of(struct page_state *st, const struct kmt_event *ev, uint32_t *row);

/* The stack_rows[] row of allocation @ev (its stack, or none) into *@row. 0, or -1. */
int kmt_page_stack_of(struct page_state *st, const struct kmt_event *ev, uint32_t *row);

/* The --stack table. */
int kmt_page_report_stacks(struct page_state *st, struct kmt_output *out);

/* The --caller table. */
int kmt_page_report_callers(struct page_state *st, struct kmt_output *out);

/* The --timeline table. */
int kmt_page_report_timeline(struct page_state *st, struct kmt_output *out);

/* Describe the summary and the chosen tables to @out. */
int kmt_page_report(void *priv, const struct kmt_session *s, struct kmt_output *out);

#endif /* KMT_PAGE_H */
