// SPDX-License-Identifier: LGPL-2.1
/*
 * Latencies per row: kept one by one and unsorted while events come, sorted
 * once for the report. Past KMT_LATENCY_EXACT_MAX of them, each goes into
 * a bucket of its row instead (DDSketch's idea): below 1024 ns a bucket per
 * nanosecond, above a bucket per power of GAMMA, shown as the value whose
 * relative distance to both ends is the same, (GAMMA - 1) / (GAMMA + 1) at
 * most. A percentile is then a bucket's value, within that of the exact one
 * (and rounding to whole nanoseconds, 0.05% above 1024 ns). The report
 * reads the buckets where they are: a row's, or all rows' summed per
 * bucket, are the only ones turned back into values and sorted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "common/radix.h"
#include "common/util.h"

#define EXACT_NS	1024u	/* below: a bucket per nanosecond */
/* GAMMA = (1 + a) / (1 - a) for a relative error a: 0.45% here, rounding aside */
#define ALPHA		0.0045
#define GAMMA		((1 + ALPHA) / (1 - ALPHA))

/* log2 steps: bucket i above EXACT_NS holds (GAMMA^(i-1), GAMMA^i] */
static double steps(uint64_t ns)
{
	return log2((double)ns) / log2(GAMMA);
}

/* The bucket of @ns: @ns itself below EXACT_NS, else EXACT_NS + its step past EXACT_NS's. */
static uint32_t bucket_of(const struct kmt_latencies *l, uint64_t ns)
{
	if (ns < EXACT_NS)
		return (uint32_t)ns;
	return EXACT_NS + (uint32_t)(ceil(steps(ns)) - l->first_step);
}

/* The value bucket @b stands for. */
static uint64_t bucket_value(const struct kmt_latencies *l, uint32_t b)
{
	if (b < EXACT_NS)
		return b;
	return (uint64_t)llround(2 * pow(GAMMA, l->first_step + (b - EXACT_NS)) / (GAMMA + 1));
}

/*
 * In the sketch, each bucket of a row is one u64: row << 32 | bucket << 16
 * | count (a count past 65,535 goes on in a second one). New latencies are
 * appended; when the array is full it is sorted and equal buckets merged,
 * and it grows only when that freed less than half of it. 8 bytes per
 * bucket in use, where one entry and a hash slot per bucket took about 50.
 */
#define PACK(row, b, count)	((uint64_t)(row) << 32 | (uint64_t)(b) << 16 | (count))
#define PACKED_MAX_COUNT	0xffffu

static inline uint64_t bucket_key(const uint64_t *e)
{
	return *e >> 16;
}

KMT_RADIX_SORT(sort_packed, uint64_t, bucket_key)

/* Sort the sketch's buckets and merge the equal ones: 0, or -1 out of memory. */
static int merge_buckets(struct kmt_latencies *l)
{
	uint64_t *tmp = malloc((l->n ? l->n : 1) * sizeof(*tmp));
	uint32_t i, out = 0;

	if (!tmp)
		return -1;
	sort_packed(l->packed, tmp, l->n);
	free(tmp);
	for (i = 0; i < l->n; i++) {
		uint64_t e = l->packed[i], room;

		if (out && bucket_key(&l->packed[out - 1]) == bucket_key(&e) &&
		    (room = PACKED_MAX_COUNT - (l->packed[out - 1] & PACKED_MAX_COUNT))) {
			uint64_t move = (e & PACKED_MAX_COUNT) < room ? (e & PACKED_MAX_COUNT) : room;

			l->packed[out - 1] += move;
			e -= move;
			if (!(e & PACKED_MAX_COUNT))
				continue;
		}
		l->packed[out++] = e;
	}
	l->n = out;
	return 0;
}

/* Add @count latencies of bucket @b of @row: 0, or -1 out of memory. */
static int add_to_bucket(struct kmt_latencies *l, uint32_t row, uint32_t b, uint32_t count)
{
	while (count) {
		uint32_t part = count < PACKED_MAX_COUNT ? count : PACKED_MAX_COUNT;

		if (l->n == l->cap &&
		    (merge_buckets(l) || (l->n >= l->cap / 2 &&
					  kmt_grow_to(&l->packed, &l->cap, l->cap, sizeof(*l->packed)))))
			return -1;
		l->packed[l->n++] = PACK(row, b, part);
		count -= part;
	}
	return 0;
}

/* From one entry per latency to the packed buckets of the sketch. */
static int to_sketch(struct kmt_latencies *l)
{
	uint32_t n = l->n, i;

	l->sketch = true;
	l->first_step = floor(steps(EXACT_NS));
	l->n = l->cap = 0;
	for (i = 0; i < n; i++)
		if (add_to_bucket(l, l->v[i].row, bucket_of(l, l->v[i].ns), l->v[i].count))
			return -1;
	free(l->v);
	l->v = NULL;
	return 0;
}

int kmt_latencies_add(struct kmt_latencies *l, uint32_t row, uint64_t ns)
{
	if (l->sketch)
		return add_to_bucket(l, row, bucket_of(l, ns), 1);
	if (kmt_grow(&l->v, &l->cap, l->n, sizeof(*l->v)))
		return -1;
	l->v[l->n++] = (struct kmt_latency){ .row = row, .count = 1, .ns = ns };
	return l->n == KMT_LATENCY_EXACT_MAX ? to_sketch(l) : 0;
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

int kmt_latencies_sort(struct kmt_latencies *l)
{
	struct kmt_latency *tmp;

	if (l->sketch)
		return merge_buckets(l);	/* by row, each row's by bucket */
	if (!(tmp = malloc((l->n ? l->n : 1) * sizeof(*tmp))))
		return -1;
	sort_by_ns(l->v, tmp, l->n);
	sort_by_row(l->v, tmp, l->n);	/* stable: each row stays sorted by latency */
	free(tmp);
	return 0;
}

/* Nearest-rank percentile @pct of the @n latencies at @v, sorted by value (0 when none). */
static uint64_t percentile(const struct kmt_latency *v, uint32_t n, unsigned int pct)
{
	uint64_t total = 0, rank, seen = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		total += v[i].count;
	rank = (total * pct + 99) / 100;
	rank = rank ? rank : 1;
	for (i = 0; i < n; i++) {
		seen += v[i].count;
		if (seen >= rank)
			return v[i].ns;
	}
	return 0;
}

/*
 * Sort @n latencies by value and take their p50 and p99 (the first bucket
 * past 1023 ns may stand for less than the last exact one: by value, not
 * by bucket). 0, or -1 out of memory.
 */
static int percentiles(struct kmt_latency *v, uint32_t n, uint64_t *p50, uint64_t *p99)
{
	struct kmt_latency *tmp = malloc((n ? n : 1) * sizeof(*tmp));

	if (!tmp)
		return -1;
	sort_by_ns(v, tmp, n);
	free(tmp);
	*p50 = percentile(v, n, 50);
	*p99 = percentile(v, n, 99);
	return 0;
}

/* The sketch's buckets of all rows, each bucket's count at its value, into *@v. */
static int overall_buckets(const struct kmt_latencies *l, struct kmt_latency **v, uint32_t *n)
{
	uint64_t *counts = calloc(1u << 16, sizeof(*counts));
	uint32_t i, b;

	*n = 0;
	if (!counts)
		return -1;
	for (i = 0; i < l->n; i++)
		counts[(l->packed[i] >> 16) & 0xffff] += l->packed[i] & PACKED_MAX_COUNT;
	for (b = 0; b < 1u << 16; b++)	/* a count past 32 bits: more entries */
		*n += counts[b] ? (uint32_t)((counts[b] + UINT32_MAX - 1) / UINT32_MAX) : 0;
	if (!(*v = malloc((*n ? *n : 1) * sizeof(**v)))) {
		free(counts);
		return -1;
	}
	for (b = 0, i = 0; b < 1u << 16; b++) {
		for (; counts[b]; i++) {
			uint32_t part = counts[b] < UINT32_MAX ? (uint32_t)counts[b] : UINT32_MAX;

			(*v)[i] = (struct kmt_latency){ .count = part, .ns = bucket_value(l, b) };
			counts[b] -= part;
		}
	}
	free(counts);
	return 0;
}

int kmt_latencies_overall(struct kmt_latencies *l, uint64_t *p50, uint64_t *p99)
{
	struct kmt_latency *v;
	uint32_t n;
	int ret;

	*p50 = *p99 = 0;
	if (!l->n)
		return 0;
	if (!l->sketch)
		return percentiles(l->v, l->n, p50, p99);
	if (overall_buckets(l, &v, &n))
		return -1;
	ret = percentiles(v, n, p50, p99);
	free(v);
	return ret;
}

/* Entries [*@lo, *@hi) of the @n at @keys, sorted by row_at(), are @row's. */
static void row_range(const void *keys, uint32_t n, uint32_t row,
		      uint32_t (*row_at)(const void *keys, uint32_t i), uint32_t *lo, uint32_t *hi)
{
	uint32_t a = 0, b = n;

	while (a < b) {	/* the row's first */
		uint32_t mid = a + (b - a) / 2;

		if (row_at(keys, mid) < row)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (b < n && row_at(keys, b) == row)
		b++;
	*hi = b;
}

static uint32_t exact_row(const void *keys, uint32_t i)
{
	return ((const struct kmt_latency *)keys)[i].row;
}

static uint32_t packed_row(const void *keys, uint32_t i)
{
	return (uint32_t)(((const uint64_t *)keys)[i] >> 32);
}

int kmt_latencies_row(const struct kmt_latencies *l, uint32_t row, uint64_t *p50, uint64_t *p99)
{
	struct kmt_latency *v;
	uint32_t lo, hi, i;
	int ret;

	*p50 = *p99 = 0;
	if (!l->n)
		return 0;
	if (!l->sketch) {
		row_range(l->v, l->n, row, exact_row, &lo, &hi);
		*p50 = percentile(l->v + lo, hi - lo, 50);
		*p99 = percentile(l->v + lo, hi - lo, 99);
		return 0;
	}
	row_range(l->packed, l->n, row, packed_row, &lo, &hi);
	if (!(v = malloc((hi > lo ? hi - lo : 1) * sizeof(*v))))
		return -1;
	for (i = lo; i < hi; i++)
		v[i - lo] = (struct kmt_latency){
			.count = (uint32_t)(l->packed[i] & PACKED_MAX_COUNT),
			.ns = bucket_value(l, (l->packed[i] >> 16) & 0xffff) };
	ret = percentiles(v, hi - lo, p50, p99);
	free(v);
	return ret;
}

void kmt_latencies_free(struct kmt_latencies *l)
{
	free(l->v);
	free(l->packed);
	memset(l, 0, sizeof(*l));
}
