/* SPDX-License-Identifier: LGPL-2.1 */
/* The leak analysis: state shared by its event side and its report side. */
#ifndef KMT_LEAK_H
#define KMT_LEAK_H

#include <stdbool.h>
#include <stdint.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "cachename.h"
#include "filter.h"
#include "pageowner.h"
#include "slabaudit.h"
#include "stacks.h"
#include "common/hashmap.h"
#include "common/nameids.h"
#include "common/objmap.h"

#define LEAK_NONE		UINT32_MAX
#define LEAK_INTERVAL_TOP	10	/* stacks per --interval without -l */

/* A slab object or page block allocated and not freed (yet). */
struct leak_obj {
	uint64_t ts;		/* allocated at */
	uint64_t bytes;
	uint64_t call_site;	/* slab: the event's; pages: 0 */
	uint32_t stack;		/* stack id, KMT_STACK_NONE without one */
	uint32_t cache;		/* leak_state.caches[] */
	int pid;
	bool selected;		/* passed the filters: reported */
	uint8_t kind;		/* LEAK_SLAB or LEAK_PAGES */
};

/* What is outstanding in one group at one time. */
struct leak_group {
	uint64_t key;		/* stack id, call site, cache index or pid */
	uint64_t objects, bytes;
	uint64_t oldest_ts, median_ts;
};

/* One group's figures at an --interval boundary. */
struct leak_point {
	uint64_t ts;
	struct leak_group g;
};

/* Kinds of what is outstanding. */
enum { LEAK_SLAB, LEAK_PAGES, LEAK_KINDS };

struct leak_state {
	struct kmt_filter filter;
	uint64_t older_ns;		/* --older */
	uint64_t interval_ns;		/* --interval; 0: none */
	long long lines;		/* rows per table, -1: all */
	bool all;			/* --all: caches whose frees are not traced too */

	struct kmt_reader *reader;
	const struct kmt_session *session;	/* names of addresses */
	struct kmt_cache_namer namer;
	struct kmt_name_rows cache_rows;	/* cache names -> caches[], without a lookup */
	struct kmt_stacks stacks;
	uint64_t page_size;
	uint64_t last_ts;
	bool have_stacks;		/* an allocation came with a call stack */

	struct kmt_objslots objects;		/* slab objects by kmt_event.obj */
	struct kmt_objmap pages;		/* pfn -> struct leak_obj (page blocks) */
	struct kmt_slab_audit audit;		/* by caches[]: frees the kernel does not trace */
	struct kmt_page_owner owner;		/* pages allocated before the recording */

	char **caches;			/* names; the page allocator's by order too */
	uint32_t ncaches, cap_caches;
	struct kmt_hashmap cache_index;	/* hash of name -> caches[] */
	struct kmt_hashmap sized_caches;	/* size or order and kind -> caches[] */

	uint64_t failed_allocs[LEAK_KINDS];
	uint64_t unseen_frees[LEAK_KINDS];
	uint64_t reused[LEAK_KINDS], reused_bytes[LEAK_KINDS];	/* freed without an event */

	uint64_t next_boundary;
	struct leak_point *points;	/* --interval: the top groups at each boundary */
	uint32_t npoints, cap_points;
	char remark[256];
};

KMT_OBJSLOTS_TYPED(leak_object, struct leak_obj)
KMT_OBJMAP_TYPED(leak_page, struct leak_obj)

/* Start walk @w over the outstanding objects of kind @kind: 0, or -1 when out of memory. */
static inline int kmt_leak_walk_start(struct kmt_objmap_walk *w, const struct leak_state *st,
				      int kind)
{
	if (kind == LEAK_PAGES)
		return kmt_objmap_walk_start(w, &st->pages);
	kmt_objslots_walk_start(w, &st->objects);
	return 0;
}

/* How many objects of kind @kind are outstanding. */
static inline size_t kmt_leak_count(const struct leak_state *st, int kind)
{
	return kind == LEAK_PAGES ? kmt_objmap_count(&st->pages) : st->objects.count;
}

/* How outstanding objects are grouped. */
enum leak_by { LEAK_BY_STACK, LEAK_BY_CALLSITE, LEAK_BY_CACHE, LEAK_BY_PID };

/*
 * The selected objects outstanding at @now for at least --older, summed
 * per group of @by, most bytes first, into *@groups (free() it). Returns
 * how many groups, or -1 when out of memory.
 */
long kmt_leak_groups(const struct leak_state *st, enum leak_by by, uint64_t now,
		     struct leak_group **groups);

/* Is @o selected and outstanding at @now for at least --older? */
static inline bool kmt_leak_outstanding(const struct leak_state *st, const struct leak_obj *o,
					uint64_t now)
{
	return o->selected && o->ts <= now && now - o->ts >= st->older_ns;
}

/* Is @o in a cache whose frees are not traced, and left out (no --all)? */
static inline bool kmt_leak_left_out(const struct leak_state *st, const struct leak_obj *o)
{
	return !st->all && o->kind == LEAK_SLAB && kmt_slab_audit_untraced(&st->audit, o->cache);
}

/* Judge which caches' frees are not traced (leak_untraced.c). */
void kmt_leak_judge(struct leak_state *st);

/* Describe that check and what it left out of the suspects. 0 or -1. */
int kmt_leak_report_untraced(const struct leak_state *st, uint64_t now,
			     struct kmt_output *out);

/* Describe the summary and tables to @out. */
int kmt_leak_report(void *priv, const struct kmt_session *s, struct kmt_output *out);

#endif /* KMT_LEAK_H */
