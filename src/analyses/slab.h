/* SPDX-License-Identifier: LGPL-2.1 */
/* The slab analysis: state shared by its event side and its report side. */
#ifndef KMT_SLAB_H
#define KMT_SLAB_H

#include <stdbool.h>
#include <stdint.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "cachename.h"
#include "rollup.h"
#include "slabaudit.h"
#include "stacks.h"
#include "common/hashmap.h"
#include "common/nameids.h"
#include "common/objmap.h"

#define SLAB_NO_ROW	UINT32_MAX
#define SLAB_MAX_SORT	8

/* Figures kept for the whole run and for every call site, cache, pid, pointer. */
struct slab_stat {
	uint64_t alloc;		/* bytes allocated */
	uint64_t req;		/* bytes requested */
	uint64_t hits;		/* allocations */
	uint64_t frees;		/* matched frees */
	uint64_t live_bytes;
	uint64_t live_req;
	uint64_t live_objs;
	uint64_t max_live;	/* high-water mark of live_bytes */
	uint64_t pingpong;	/* matched frees on another CPU than the allocation */
};

struct slab_row {
	uint64_t key;		/* call site, pid, pointer, or hash of the cache name */
	uint64_t callsite;	/* pointers: call site of the latest allocation */
	char *name;		/* caches: name; pids: command */
	struct slab_stat st;
	uint64_t max_live_ts;	/* stacks: when live bytes first reached max_live */
};

/* Rows grouped by one key. */
struct slab_group {
	struct kmt_hashmap index;	/* key -> row number */
	struct slab_row *rows;
	uint32_t n, cap;
};

/* An allocation not freed yet. */
struct slab_obj {
	uint64_t bytes_alloc, bytes_req;
	uint32_t caller, cache, pid, ptr, stack;	/* rows, SLAB_NO_ROW when not kept */
	int cpu;
	bool selected;		/* passed the filters: counted */
};

enum slab_sort_key {
	SORT_BYTES, SORT_REQ, SORT_HIT, SORT_FRAG, SORT_PINGPONG, SORT_LIVE, SORT_WASTE,
	SORT_MAXLIVE, SORT_CALLSITE, SORT_PTR, SORT_CACHE, SORT_PID,
};

#define SLAB_TABLE_CALLER	(1u << 0)
#define SLAB_TABLE_ALLOC	(1u << 1)
#define SLAB_TABLE_CACHE	(1u << 2)
#define SLAB_TABLE_PID		(1u << 3)
#define SLAB_TABLE_STACK	(1u << 4)

struct slab_opts {
	unsigned int tables;	/* SLAB_TABLE_* */
	bool raw_ip;
	int sort[SLAB_MAX_SORT];		/* enum slab_sort_key */
	int nsort;
	long long lines;	/* rows per table, -1: all */
	bool kmalloc_only, cache_only;
	struct kmt_filter filter;
	struct kmt_rollup rollup;	/* --by-dir, --by-module, --branch */
	uint64_t timeline_ns;		/* --timeline: 0 none */
};

/* --timeline: live bytes of a process (pid row), or of all (SLAB_NO_ROW), at a boundary. */
struct slab_point {
	uint64_t ts, live;
	uint32_t pid;
};

struct slab_state {
	struct slab_opts o;
	struct kmt_reader *reader;
	const struct kmt_session *session;	/* names of addresses */

	struct slab_stat total;
	uint64_t allocs_failed, frees_unmatched, frees_null;
	uint64_t replaced, replaced_bytes, freed_bytes;
	uint64_t peak_live, peak_ts;
	uint64_t node_allocs, cross_node;
	/*
	 * The recording's NUMA node of each CPU (-1: unknown), NULL when it
	 * has no map of them; copied at the start onto lines of its own: with
	 * two threads the reading one writes heap blocks beside the reader's
	 * copy, and every read of it would miss.
	 */
	int *cpu_node;
	int ncpu_node;

	struct slab_group callers, caches, pids, ptrs, stack_rows;
	struct kmt_stacks stacks;	/* --stack: key of stack_rows is a stack id */
	struct kmt_hashmap kmalloc_caches;	/* bytes_alloc << 2 | kind -> cache row */
	struct kmt_cache_namer namer;
	struct kmt_name_rows cache_rows;	/* cache names -> cache row, without a lookup */
	struct kmt_hashmap unnamed_caches;	/* bytes_alloc -> cache row */

	struct kmt_objslots live;		/* struct slab_obj by kmt_event.obj */
	struct kmt_slab_audit audit;		/* by cache row: frees the kernel does not trace */
	struct slab_point *points;		/* --timeline */
	uint32_t npoints, cap_points;
	uint64_t next_tick;		/* --timeline: next boundary, 0 before any event */
};

KMT_OBJSLOTS_TYPED(slab_live, struct slab_obj)

/* Describe the summary and the chosen tables of @st to @out. */
int kmt_slab_report(void *priv, const struct kmt_session *s, struct kmt_output *out);

/*
 * The /proc/slabinfo check and the caches whose frees are not traced:
 * the summary values (judging them first), then their table
 * (slab_untraced.c). 0 or -1.
 */
int kmt_slab_report_untraced_values(struct slab_state *st, struct kmt_output *out);
int kmt_slab_report_untraced_table(struct slab_state *st, struct kmt_output *out);

/* --timeline: note live bytes at each boundary that @ts passed (slab_timeline.c). 0, or -1. */
int kmt_slab_tick(struct slab_state *st, uint64_t ts);

/* The --timeline table: total and top processes' live bytes per interval. 0 or -1. */
int kmt_slab_report_timeline(const struct slab_state *st, struct kmt_output *out);

/* Parse "-s" keys "bytes,hit,..." into @o; 0, or -1 with @err filled. */
int kmt_slab_parse_sort(struct slab_opts *o, const char *arg, struct kmt_error *err);

#endif /* KMT_SLAB_H */
