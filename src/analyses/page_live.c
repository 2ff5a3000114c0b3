// SPDX-License-Identifier: LGPL-2.1
/* page: the --live table, pages still allocated at the end of the trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"

struct live_row {
	uint64_t pfn;
	const struct page_block *b;
};

static int oldest_first(uint32_t a, uint32_t b, void *ctx)
{
	const struct live_row *x = (const struct live_row *)ctx + a;
	const struct live_row *y = (const struct live_row *)ctx + b;

	if (x->b->ts != y->b->ts)
		return x->b->ts < y->b->ts ? -1 : 1;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* The selected live blocks with their pfns; *@n of them, in no order. */
static struct live_row *live_rows(const struct page_state *st, size_t *n)
{
	struct live_row *rows = malloc((kmt_objmap_count(&st->live) + 1) * sizeof(*rows));
	const void *item;
	size_t pos = 0;
	uint64_t pfn;

	*n = 0;
	if (!rows)
		return NULL;
	while (kmt_objmap_next(&st->live, &pos, &pfn, &item)) {
		const struct page_block *b = item;

		if (b->selected)
			rows[(*n)++] = (struct live_row){ pfn, b };
	}
	return rows;
}

/* The order of @n live @rows: by -s, else oldest first. NULL when out of memory. */
static uint32_t *sorted_live(const struct page_state *st, struct live_row *rows, size_t n)
{
	struct page_sort_row *keys = calloc(n + 1, sizeof(*keys));
	uint32_t *idx;
	size_t i;

	if (!keys)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct page_block *b = rows[i].b;

		keys[i] = (struct page_sort_row){ .pages = 1ull << b->order, .order = b->order,
						  .live = 1ll << b->order, .gfp = b->gfp,
						  .mt = b->mt, .pid = b->pid };
		if (b->caller != PAGE_NO_CALLER)
			keys[i].caller = kmt_session_function(st->session, st->callers[b->caller].start,
							     NULL, NULL);
	}
	idx = kmt_page_sorted(st, keys, n, PAGE_KEY(PAGE_SORT_PAGES) | PAGE_KEY(PAGE_SORT_LIVE) |
			      PAGE_KEY(PAGE_SORT_ORDER) | PAGE_KEY(PAGE_SORT_MIGRATETYPE) |
			      PAGE_KEY(PAGE_SORT_GFP) | PAGE_KEY(PAGE_SORT_PID) |
			      PAGE_KEY(PAGE_SORT_CALLER), oldest_first, rows);
	free(keys);
	return idx;
}

static const char *comm_of(const struct page_state *st, int pid)
{
	uint64_t idx;

	return kmt_hashmap_get(&st->proc_index, (uint32_t)pid, &idx) ? st->procs[idx].comm : "";
}

int kmt_page_report_live(struct page_state *st, struct kmt_output *out,
		     const struct kmt_gfp_names *names)
{
	static const struct kmt_column cols[] = {
		{ "pfn", "PFN", KMT_KIND_ADDRESS }, { "order", "ORDER", KMT_KIND_COUNT },
		{ "gfp", "GFP", KMT_KIND_STRING }, { "migratetype", "MIGRATETYPE", KMT_KIND_STRING },
		{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
		{ "age_ns", "AGE", KMT_KIND_NS },
	};
	struct kmt_table *t = kmt_output_table(out, "live", st->nsort ?
		"Pages allocated and not freed at the end" :
		"Pages allocated and not freed at the end, oldest first", 7, cols);
	size_t n, i;
	struct live_row *rows = t ? live_rows(st, &n) : NULL;
	uint32_t *idx = rows ? sorted_live(st, rows, n) : NULL;
	char gfp[512], mt[32];
	int ret = 0;

	if (!idx) {
		free(rows);
		return -1;
	}
	for (i = 0; i < n && kmt_page_row_shown(st, i) && !ret; i++) {
		const struct live_row *r = &rows[idx[i]];
		const struct page_block *b = r->b;
		union kmt_cell row[7] = {
			{ .u = r->pfn }, { .u = b->order }, { .s = gfp },
			{ .s = kmt_migratetype_name(b->mt, st->kernel_version, mt, sizeof(mt)) },
			{ .u = b->pid }, { .s = comm_of(st, b->pid) },
			{ .u = st->last_ts - b->ts },
		};

		kmt_gfp_format(names, b->gfp, gfp, sizeof(gfp));
		ret = kmt_table_row(t, row);
	}
	free(idx);
	free(rows);
	return ret;
}
