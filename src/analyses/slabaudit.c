// SPDX-License-Identifier: LGPL-2.1
/*
 * Which slab caches lose frees the kernel does not trace: reused pointers,
 * and the traced net change of objects against /proc/slabinfo's.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/output.h>
#include <kmtrace/reader.h>
#include "slabaudit.h"
#include "common/util.h"

int kmt_slab_audit_init(struct kmt_slab_audit *a)
{
	memset(a, 0, sizeof(*a));
	return kmt_hashmap_init(&a->unseen_named);
}

void kmt_slab_audit_free(struct kmt_slab_audit *a)
{
	free(a->c);
	kmt_hashmap_free(&a->unseen_named);
}

/*
 * One more in the counter at offset @member of @cache's entry, made (zeroed,
 * with those before it) if new; KMT_AUDIT_NO_CACHE counts nowhere. 0, or -1
 * when out of memory.
 */
static __attribute__((noinline, cold)) int count_new(struct kmt_slab_audit *a, uint32_t cache,
						      size_t member)
{
	if (cache == KMT_AUDIT_NO_CACHE)
		return 0;
	while (a->n <= cache) {
		if (kmt_grow(&a->c, &a->cap, a->n, sizeof(*a->c)))
			return -1;
		memset(&a->c[a->n++], 0, sizeof(*a->c));
	}
	(*(uint64_t *)((char *)&a->c[cache] + member))++;
	return 0;
}

/* count_new() for a cache counted before: the common case, inline. */
static inline int count_one(struct kmt_slab_audit *a, uint32_t cache, size_t member)
{
	if (cache >= a->n)	/* KMT_AUDIT_NO_CACHE too */
		return count_new(a, cache, member);
	(*(uint64_t *)((char *)&a->c[cache] + member))++;
	return 0;
}

int kmt_slab_audit_alloc(struct kmt_slab_audit *a, uint32_t cache)
{
	return count_one(a, cache, offsetof(struct kmt_audit_cache, allocs));
}

int kmt_slab_audit_reuse(struct kmt_slab_audit *a, uint32_t cache)
{
	return count_one(a, cache, offsetof(struct kmt_audit_cache, reused));
}

int kmt_slab_audit_free_seen(struct kmt_slab_audit *a, uint32_t cache)
{
	return count_one(a, cache, offsetof(struct kmt_audit_cache, frees));
}

int kmt_slab_audit_free_unseen(struct kmt_slab_audit *a, const char *name, int len)
{
	uint64_t h, count = 0;

	if (!name || len <= 0) {
		a->unseen_unnamed++;
		return 0;
	}
	h = kmt_hash_bytes(name, len);
	kmt_hashmap_get(&a->unseen_named, h, &count);
	return kmt_hashmap_put(&a->unseen_named, h, count + 1);
}

const char *kmt_whole_system_blocker(struct kmt_reader *r, const struct kmt_filter *f)
{
	const char *scope = kmt_reader_text(r, KMT_TEXT_SCOPE);
	int cpu;

	if (!scope || strncmp(scope, "system-wide", 11))
		return "not applicable: the recording is not system-wide";
	if (kmt_filter_active(f))
		return "not applicable: the report filters events";
	for (cpu = 0; cpu < kmt_reader_cpus(r); cpu++)
		if (kmt_cpu_stats_lost(kmt_reader_cpu_stats(r, cpu)))
			return "not applicable: events were lost";
	return NULL;
}

/* A /proc/slabinfo line's active objects and objects per slab, for cache @name. */
static bool slabinfo_line(const char *text, const char *name, uint64_t *active, uint64_t *per_slab)
{
	size_t len = strlen(name);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *end;

		if (strncmp(p, name, len) || (p[len] != ' ' && p[len] != '\t'))
			continue;
		*active = strtoull(p + len, &end, 10);
		if (end == p + len)
			return false;
		strtoull(end, &end, 10);		/* num_objs */
		strtoull(end, &end, 10);		/* objsize */
		*per_slab = strtoull(end, &end, 10);
		return *per_slab > 0;
	}
	return false;
}

/*
 * How far SLUB's active-object count may move with no object allocated or
 * freed: objects free in each CPU's slab and partial slabs count as active
 * until their slab goes back to the node (a slab and about 60 objects per
 * CPU), plus the frees of unseen objects that named no cache.
 */
static uint64_t slack_of(const struct kmt_slab_audit *a, uint64_t per_slab, int ncpus)
{
	return (uint64_t)(ncpus > 0 ? ncpus : 1) * (2 * per_slab + 60) + a->unseen_unnamed;
}

/* Compare cache @c, named @name, with the two slabinfo texts. */
static void compare(struct kmt_slab_audit *a, struct kmt_audit_cache *c, const char *name,
		    const char *before, const char *after, int ncpus)
{
	uint64_t active0, active1, per_slab0, per_slab1;

	if (!slabinfo_line(before, name, &active0, &per_slab0) ||
	    !slabinfo_line(after, name, &active1, &per_slab1))
		return;
	c->in_slabinfo = true;
	a->compared++;
	c->kernel_delta = (int64_t)(active1 - active0);
	c->slack = slack_of(a, per_slab1 > per_slab0 ? per_slab1 : per_slab0, ncpus);
	c->slabinfo_says = c->traced_delta > c->kernel_delta + (int64_t)c->slack;
	if (c->slabinfo_says)
		c->verdict = KMT_FREES_UNTRACED;
	else if (c->verdict == KMT_FREES_UNKNOWN)
		c->verdict = KMT_FREES_TRACED;
}

void kmt_slab_audit_judge(struct kmt_slab_audit *a, struct kmt_reader *r, const char *why_not,
			 kmt_audit_name_fn *name, const void *ctx)
{
	const char *before = kmt_reader_text(r, KMT_TEXT_SLABINFO_START);
	const char *after = kmt_reader_text(r, KMT_TEXT_SLABINFO_STOP);
	uint32_t i;

	if (!why_not && (!before || !after))
		why_not = "not applicable: the recording has no /proc/slabinfo (kmtrace record "
			  "saves it)";
	a->why_not = why_not;
	for (i = 0; i < a->n; i++) {
		struct kmt_audit_cache *c = &a->c[i];
		const char *n = name(ctx, i);
		uint64_t unseen = 0;

		if (n)
			kmt_hashmap_get(&a->unseen_named, kmt_hash_bytes(n, strlen(n)), &unseen);
		c->traced_delta = (int64_t)(c->allocs - c->frees - unseen);
		c->verdict = c->reused ? KMT_FREES_UNTRACED : KMT_FREES_UNKNOWN;
		c->slabinfo_says = false;
		if (!why_not && n)
			compare(a, c, n, before, after, kmt_reader_cpus(r));
		a->flagged += c->verdict == KMT_FREES_UNTRACED;
	}
}

const char *kmt_slab_audit_evidence(const struct kmt_audit_cache *c)
{
	if (c->reused && c->slabinfo_says)
		return "reused pointers, slabinfo";
	if (c->slabinfo_says)
		return "slabinfo";
	return c->reused ? "reused pointers" : "";
}

int kmt_slab_audit_report_check(const struct kmt_slab_audit *a, struct kmt_output *out)
{
	if (a->why_not)
		return kmt_output_string(out, "slabinfo_check", "Check against /proc/slabinfo",
					 a->why_not);
	return kmt_output_string(out, "slabinfo_check", "Check against /proc/slabinfo", "done") ||
	       kmt_output_count(out, "slabinfo_caches", "  caches compared", a->compared);
}
