/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Which slab caches lose frees the kernel does not trace. Bulk frees
 * (kmem_cache_free_bulk, kfree_rcu batches, maple-tree node batches) have
 * no event, so their objects stay "live" in any count made of events. Two
 * kinds of evidence say so per cache: an allocation at a pointer whose
 * earlier object was never freed by an event (always seen), and, on a
 * whole-system recording, the traced net change of objects against the
 * change of active objects /proc/slabinfo shows between start and stop.
 * slab and leak both keep one of these, indexed by their own cache numbers.
 */
#ifndef KMT_SLABAUDIT_H
#define KMT_SLABAUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "filter.h"
#include "common/hashmap.h"

struct kmt_reader;
struct kmt_output;

#define KMT_AUDIT_NO_CACHE	UINT32_MAX

enum kmt_free_verdict {
	KMT_FREES_UNKNOWN,	/* nothing says either way */
	KMT_FREES_TRACED,	/* the traced change agrees with /proc/slabinfo's */
	KMT_FREES_UNTRACED,	/* objects were freed without an event */
};

/* What was traced of one cache, and the verdict once judged. */
struct kmt_audit_cache {
	uint64_t allocs, frees, reused;	/* reused: allocations at a still-live pointer */
	int64_t traced_delta;		/* allocs - frees - frees of unseen objects */
	int64_t kernel_delta;		/* active objects at stop - at start (slabinfo) */
	uint64_t slack;			/* how far the two may differ without a verdict */
	bool in_slabinfo;
	bool slabinfo_says;		/* the traced change exceeds slabinfo's by more than slack */
	enum kmt_free_verdict verdict;
};

struct kmt_slab_audit {
	struct kmt_audit_cache *c;	/* by the analysis's cache number */
	uint32_t n, cap;
	struct kmt_hashmap unseen_named;	/* hash of cache name -> frees of unseen objects */
	uint64_t unseen_unnamed;	/* frees of unseen objects that name no cache (kfree) */
	const char *why_not;		/* why the slabinfo check did not apply; NULL: done */
	uint32_t compared;		/* caches found in both slabinfo texts */
	uint32_t flagged;		/* caches with KMT_FREES_UNTRACED */
};

/* Set up @a empty. 0, or -1 when out of memory. */
int kmt_slab_audit_init(struct kmt_slab_audit *a);

/* Free what @a holds. */
void kmt_slab_audit_free(struct kmt_slab_audit *a);

/* These four count one event each: 0, or -1 when out of memory. */

/* An allocation into @cache. */
int kmt_slab_audit_alloc(struct kmt_slab_audit *a, uint32_t cache);

/* An allocation at the pointer of a live object of @cache: that one was freed unseen. */
int kmt_slab_audit_reuse(struct kmt_slab_audit *a, uint32_t cache);

/* A free, matched by pointer to an allocation of @cache. */
int kmt_slab_audit_free_seen(struct kmt_slab_audit *a, uint32_t cache);

/* A free of an object allocated before the recording: @name (@len bytes) its cache, or NULL. */
int kmt_slab_audit_free_unseen(struct kmt_slab_audit *a, const char *name, int len);

/*
 * Why a comparison of whole-system counters with @r's events does not
 * apply (not system-wide, filtered by @f, events lost), or NULL.
 */
const char *kmt_whole_system_blocker(struct kmt_reader *r, const struct kmt_filter *f);

/* The name of the analysis's cache @cache, for the judgement. */
typedef const char *kmt_audit_name_fn(const void *ctx, uint32_t cache);

/*
 * Give every cache its verdict: reused pointers, and the /proc/slabinfo
 * deltas of @r's recording unless @why_not says the check does not apply
 * (kept in @a->why_not).
 */
void kmt_slab_audit_judge(struct kmt_slab_audit *a, struct kmt_reader *r, const char *why_not,
			 kmt_audit_name_fn *name, const void *ctx);

/* Is @cache's live count an upper bound (frees without events)? */
static inline bool kmt_slab_audit_untraced(const struct kmt_slab_audit *a, uint32_t cache)
{
	return cache < a->n && a->c[cache].verdict == KMT_FREES_UNTRACED;
}

/* Describe the /proc/slabinfo check: done (and how many caches), or why not. 0 or -1. */
int kmt_slab_audit_report_check(const struct kmt_slab_audit *a, struct kmt_output *out);

/* A few words on what the verdict of @c rests on. */
const char *kmt_slab_audit_evidence(const struct kmt_audit_cache *c);

#endif /* KMT_SLABAUDIT_H */
