// SPDX-License-Identifier: LGPL-2.1
/*
 * slab's check against /proc/slabinfo: which caches lost frees the kernel
 * does not trace, so that their live figures are upper bounds.
 */
#include <stdlib.h>

#include "common/util.h"

#include "slab.h"

static const char *cache_name(const void *ctx, uint32_t cache)
{
	const struct slab_state *st = ctx;

	return cache < st->caches.n ? st->caches.rows[cache].name : NULL;
}

/* Why the slabinfo comparison does not apply to this report, or NULL. */
static const char *check_blocker(const struct slab_state *st)
{
	if (st->o.kmalloc_only || st->o.cache_only)
		return "not applicable: the report takes kmalloc or cache events only";
	return kmt_whole_system_blocker(st->reader, &st->o.filter);
}

/* Flagged cache rows first, then most live bytes, then row order. */
static int flagged_first(uint32_t a, uint32_t b, void *ctx)
{
	const struct slab_state *st = ctx;
	bool fa = kmt_slab_audit_untraced(&st->audit, a), fb = kmt_slab_audit_untraced(&st->audit, b);
	uint64_t la = st->caches.rows[a].st.live_bytes, lb = st->caches.rows[b].st.live_bytes;

	if (fa != fb)
		return fa ? -1 : 1;
	if (la != lb)
		return la > lb ? -1 : 1;
	return (a > b) - (a < b);
}

/* Flagged cache rows, most live bytes first, into *@idx (free() it); how many, or -1. */
static long flagged_rows(const struct slab_state *st, uint32_t **idx)
{
	long n = 0;

	if (!(*idx = kmt_sorted_index(st->caches.n, flagged_first, (void *)st)))
		return -1;
	while (n < st->caches.n && kmt_slab_audit_untraced(&st->audit, (*idx)[n]))
		n++;
	return n;
}

static int report_values(const struct slab_state *st, const uint32_t *idx, long n,
			 struct kmt_output *out)
{
	const struct kmt_slab_audit *a = &st->audit;
	uint64_t objs = 0, bytes = 0;
	long i;

	for (i = 0; i < n; i++) {
		objs += st->caches.rows[idx[i]].st.live_objs;
		bytes += st->caches.rows[idx[i]].st.live_bytes;
	}
	return kmt_slab_audit_report_check(a, out) ||
	       kmt_output_count(out, "untraced_caches", "Caches with frees not traced", n) ||
	       kmt_output_count(out, "untraced_live_objects",
				"  their live objects (upper bounds)", objs) ||
	       kmt_output_value(out, "untraced_live_bytes", "  their live bytes (upper bounds)",
				KMT_KIND_BYTES, (union kmt_cell){ .u = bytes });
}

static const struct kmt_column untraced_columns[] = {
	{ "cache", "CACHE", KMT_KIND_STRING },
	{ "allocs", "ALLOCS", KMT_KIND_COUNT },
	{ "frees", "FREES", KMT_KIND_COUNT },
	{ "reused", "REUSED_PTRS", KMT_KIND_COUNT },
	{ "traced_net", "TRACED_NET", KMT_KIND_SIGNED },
	{ "slabinfo_net", "SLABINFO_NET", KMT_KIND_SIGNED },
	{ "live_objects", "LIVE_OBJS", KMT_KIND_COUNT },
	{ "live_bytes", "LIVE", KMT_KIND_BYTES },
	{ "evidence", "EVIDENCE", KMT_KIND_STRING },
};

#define UNTRACED_COLUMNS (int)(sizeof(untraced_columns) / sizeof(untraced_columns[0]))

static int report_table(const struct slab_state *st, const uint32_t *idx, long n,
			struct kmt_output *out)
{
	struct kmt_table *t;
	long i;

	if (!n)
		return 0;
	t = kmt_output_table(out, "untraced_frees", "Caches whose frees the kernel does not "
			     "trace (live figures are upper bounds; REUSED_PTRS: allocations "
			     "at a pointer still live)", UNTRACED_COLUMNS, untraced_columns);
	if (!t)
		return -1;
	for (i = 0; i < n && (st->o.lines < 0 || i < st->o.lines); i++) {
		const struct kmt_audit_cache *c = &st->audit.c[idx[i]];
		const struct slab_row *row = &st->caches.rows[idx[i]];
		union kmt_cell cells[UNTRACED_COLUMNS] = {
			{ .s = row->name ? row->name : "" }, { .u = c->allocs }, { .u = c->frees },
			{ .u = c->reused }, { .i = c->traced_delta }, { .i = c->kernel_delta },
			{ .u = row->st.live_objs }, { .u = row->st.live_bytes },
			{ .s = kmt_slab_audit_evidence(c) },
		};

		if (kmt_table_row(t, cells))
			return -1;
	}
	return 0;
}

/* Report part @part (report_values or report_table) over the flagged rows. */
static int over_flagged(struct slab_state *st, struct kmt_output *out,
			int (*part)(const struct slab_state *, const uint32_t *, long,
				    struct kmt_output *))
{
	uint32_t *idx;
	long n = flagged_rows(st, &idx);
	int ret;

	if (n < 0)
		return -1;
	ret = part(st, idx, n, out);
	free(idx);
	return ret;
}

int kmt_slab_report_untraced_values(struct slab_state *st, struct kmt_output *out)
{
	kmt_slab_audit_judge(&st->audit, st->reader, check_blocker(st), cache_name, st);
	return over_flagged(st, out, report_values);
}

int kmt_slab_report_untraced_table(struct slab_state *st, struct kmt_output *out)
{
	return over_flagged(st, out, report_table);
}
