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

static int oldest_first(const void *a, const void *b)
{
	const struct live_row *x = a, *y = b;

	if (x->b->ts != y->b->ts)
		return x->b->ts < y->b->ts ? -1 : 1;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/* The selected live blocks with their pfns; *@n of them. */
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
	qsort(rows, *n, sizeof(*rows), oldest_first);
	return rows;
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
	struct kmt_table *t = kmt_output_table(out, "live",
		"Pages allocated and not freed at the end, oldest first", 7, cols);
	size_t n, i;
	struct live_row *rows = t ? live_rows(st, &n) : NULL;
	char gfp[512], mt[32];
	int ret = 0;

	if (!rows)
		return -1;
	for (i = 0; i < n && (st->lines < 0 || i < (size_t)st->lines) && !ret; i++) {
		const struct page_block *b = rows[i].b;
		union kmt_cell row[7] = {
			{ .u = rows[i].pfn }, { .u = b->order }, { .s = gfp },
			{ .s = kmt_migratetype_name(b->mt, st->kernel_version, mt, sizeof(mt)) },
			{ .u = b->pid }, { .s = comm_of(st, b->pid) },
			{ .u = st->last_ts - b->ts },
		};

		kmt_gfp_format(names, b->gfp, gfp, sizeof(gfp));
		ret = kmt_table_row(t, row);
	}
	free(rows);
	return ret;
}
