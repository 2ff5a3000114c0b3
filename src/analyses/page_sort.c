// SPDX-License-Identifier: LGPL-2.1
/*
 * page -s KEY[,KEY]: the rows of every page table sorted by the keys it
 * has, biggest first for counts (pages, allocs, frees, live), ascending
 * for the others (order, migratetype, gfp, pid, caller); then in the
 * table's own order, then as the rows were made.
 */
#include <string.h>

#include "page.h"

static const char *const key_names[PAGE_SORT_NR] = {
	[PAGE_SORT_PAGES] = "pages", [PAGE_SORT_ALLOCS] = "allocs", [PAGE_SORT_FREES] = "frees",
	[PAGE_SORT_LIVE] = "live", [PAGE_SORT_ORDER] = "order",
	[PAGE_SORT_MIGRATETYPE] = "migratetype", [PAGE_SORT_GFP] = "gfp",
	[PAGE_SORT_PID] = "pid", [PAGE_SORT_CALLER] = "caller",
};

int kmt_page_parse_sort(struct page_state *st, const char *arg, struct kmt_error *err)
{
	return kmt_parse_sort_keys(arg, key_names, PAGE_SORT_NR, st->sort, PAGE_MAX_SORT,
				   &st->nsort, err);
}

struct page_sort {
	const struct page_state *st;
	const struct page_sort_row *rows;
	unsigned int keys;
	kmt_index_cmp table_order;
	void *ctx;
};

static int ascending(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int ascending_signed(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(enum page_sort_key k, const struct page_sort_row *x,
		   const struct page_sort_row *y)
{
	switch (k) {
	case PAGE_SORT_PAGES: return ascending(y->pages, x->pages);
	case PAGE_SORT_ALLOCS: return ascending(y->allocs, x->allocs);
	case PAGE_SORT_FREES: return ascending(y->frees, x->frees);
	case PAGE_SORT_LIVE: return ascending_signed(y->live, x->live);
	case PAGE_SORT_ORDER: return ascending(x->order, y->order);
	case PAGE_SORT_MIGRATETYPE: return ascending_signed(x->mt, y->mt);
	case PAGE_SORT_GFP: return ascending(x->gfp, y->gfp);
	case PAGE_SORT_PID: return ascending_signed(x->pid, y->pid);
	case PAGE_SORT_CALLER: return strcmp(x->caller ? x->caller : "", y->caller ? y->caller : "");
	default: return 0;
	}
}

static int cmp_rows(uint32_t a, uint32_t b, void *ctx)
{
	const struct page_sort *ps = ctx;
	int i, r;

	for (i = 0; i < ps->st->nsort; i++) {
		if (!(ps->keys & PAGE_KEY(ps->st->sort[i])))
			continue;
		r = cmp_key(ps->st->sort[i], &ps->rows[a], &ps->rows[b]);
		if (r)
			return r;
	}
	if (ps->table_order && (r = ps->table_order(a, b, ps->ctx)))
		return r;
	return ascending(a, b);
}

uint32_t *kmt_page_sorted(const struct page_state *st, const struct page_sort_row *rows,
			  uint32_t n, unsigned int keys, kmt_index_cmp table_order, void *ctx)
{
	struct page_sort ps = { st, rows, keys, table_order, ctx };

	return kmt_sorted_index(n, cmp_rows, &ps);
}

bool kmt_page_row_shown(const struct page_state *st, uint64_t i)
{
	return st->lines < 0 || i < (uint64_t)st->lines;
}
