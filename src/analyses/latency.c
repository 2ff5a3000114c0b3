// SPDX-License-Identifier: LGPL-2.1
/* Latencies per row: kept unsorted while events come, sorted once for the report. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "common/radix.h"
#include "common/util.h"

int kmt_latencies_add(struct kmt_latencies *l, uint32_t row, uint64_t ns)
{
	if (kmt_grow(&l->v, &l->cap, l->n, sizeof(*l->v)))
		return -1;
	l->v[l->n++] = (struct kmt_latency){ .row = row, .ns = ns };
	return 0;
}

static inline uint64_t ns_of(const struct kmt_latency *l)
{
	return l->ns;
}

static inline uint64_t row_of(const struct kmt_latency *l)
{
	return l->row;
}

KMT_RADIX_SORT(sort_by_ns, struct kmt_latency, ns_of)
KMT_RADIX_SORT(sort_by_row, struct kmt_latency, row_of)

static int sort_latencies(struct kmt_latencies *l, bool by_row)
{
	struct kmt_latency *tmp = malloc((l->n ? l->n : 1) * sizeof(*tmp));

	if (!tmp)
		return -1;
	sort_by_ns(l->v, tmp, l->n);
	if (by_row)
		sort_by_row(l->v, tmp, l->n);	/* stable: each row stays sorted by latency */
	free(tmp);
	return 0;
}

int kmt_latencies_sort_by_ns(struct kmt_latencies *l)
{
	return sort_latencies(l, false);
}

int kmt_latencies_sort(struct kmt_latencies *l)
{
	return sort_latencies(l, true);
}

uint64_t kmt_latency_percentile(const struct kmt_latency *v, uint32_t n, unsigned int pct)
{
	uint64_t rank = ((uint64_t)n * pct + 99) / 100;

	return n ? v[rank ? rank - 1 : 0].ns : 0;
}

void kmt_latencies_row(const struct kmt_latencies *l, uint32_t row, uint64_t *p50, uint64_t *p99)
{
	uint32_t lo = 0, hi = l->n, first;

	*p50 = *p99 = 0;
	if (!l->n)
		return;
	while (lo < hi) {	/* the row's first latency */
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (hi < l->n && l->v[hi].row == row)
		hi++;
	*p50 = kmt_latency_percentile(l->v + first, hi - first, 50);
	*p99 = kmt_latency_percentile(l->v + first, hi - first, 99);
}

void kmt_latencies_free(struct kmt_latencies *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
