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
 * In the sketch, each bucket in use of a row is one u32, bucket << 16 |
 * count, kept in order in the row's own array (a count past 65,535 goes
 * on in a second one, before which a bucket's unfilled one always sorts).
 * 4 bytes per bucket in use; rows are the dense indexes the caller gives.
 */
#define ENTRY(b, count)		((uint32_t)(b) << 16 | (count))
#define ENTRY_MAX_COUNT		0xffffu

/* kmt_grow() of *@arr to hold index @n, what it adds zeroed. 0, or -1 out of memory. */
static int grow_zeroed(void *arr, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t old = *cap;

	if (kmt_grow(arr, cap, n, size))
		return -1;
	memset(*(char **)arr + (size_t)old * size, 0, (size_t)(*cap - old) * size);
	return 0;
}

/* The row @row of the sketch, made with those before it; NULL when out of memory. */
static struct kmt_latency_row *sketch_row(struct kmt_latencies *l, uint32_t row)
{
	if (row < l->nrows)
		return &l->rows[row];
	if (grow_zeroed(&l->rows, &l->rows_cap, row, sizeof(*l->rows)))
		return NULL;
	l->nrows = row + 1;
	return &l->rows[row];
}

/* The first entry of @r at or past bucket @b. */
static uint32_t bucket_pos(const struct kmt_latency_row *r, uint32_t b)
{
	uint32_t lo = 0, hi = r->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->b[mid] >> 16 < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A new entry of bucket @b at @pos of @r with @count: 0, or -1 out of memory. */
static int insert_entry(struct kmt_latency_row *r, uint32_t pos, uint32_t b, uint32_t count)
{
	if (kmt_grow(&r->b, &r->cap, r->n, sizeof(*r->b)))
		return -1;
	memmove(&r->b[pos + 1], &r->b[pos], (r->n - pos) * sizeof(*r->b));
	r->b[pos] = ENTRY(b, count);
	r->n++;
	return 0;
}

/* Add @count latencies of bucket @b to @r: 0, or -1 out of memory. */
static int add_to_row(struct kmt_latencies *l, struct kmt_latency_row *r, uint32_t b,
		      uint32_t count)
{
	uint32_t pos = bucket_pos(r, b);

	while (count) {
		uint32_t part, *e = pos < r->n && r->b[pos] >> 16 == b ? &r->b[pos] : NULL;

		if (e && (*e & ENTRY_MAX_COUNT) < ENTRY_MAX_COUNT) {
			part = ENTRY_MAX_COUNT - (*e & ENTRY_MAX_COUNT);
			part = count < part ? count : part;
			*e += part;
		} else {
			part = count < ENTRY_MAX_COUNT ? count : ENTRY_MAX_COUNT;
			if (insert_entry(r, pos, b, part))
				return -1;
			l->n++;
		}
		count -= part;
	}
	return 0;
}

/* True if row @row was retired while the latencies were exact. */
static bool retired_exact(const struct kmt_latencies *l, uint32_t row)
{
	return row / 64 < l->retired_words && l->retired[row / 64] >> (row % 64) & 1;
}

/* Add @count latencies of bucket @b to those of retired rows: 0, or -1 out of memory. */
static int add_to_rest(struct kmt_latencies *l, uint32_t b, uint32_t count)
{
	if (grow_zeroed(&l->rest, &l->rest_len, b, sizeof(*l->rest)))
		return -1;
	l->n += !l->rest[b];	/* a bucket in use */
	l->rest[b] += count;
	return 0;
}

/* Add @count latencies of bucket @b of @row (a retired one's to the rest): 0, or -1. */
static int add_to_bucket(struct kmt_latencies *l, uint32_t row, uint32_t b, uint32_t count)
{
	struct kmt_latency_row *r;

	if (retired_exact(l, row))
		return add_to_rest(l, b, count);
	r = sketch_row(l, row);
	return r ? add_to_row(l, r, b, count) : -1;
}

/* From one entry per latency to the buckets of the sketch. */
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
	free(l->retired);
	l->retired = NULL;
	l->retired_words = 0;
	return 0;
}

/* Mark @row retired while the latencies are exact: 0, or -1 out of memory. */
static int retire_exact(struct kmt_latencies *l, uint32_t row)
{
	if (grow_zeroed(&l->retired, &l->retired_words, row / 64, sizeof(*l->retired)))
		return -1;
	l->retired[row / 64] |= 1ull << (row % 64);
	return 0;
}

int kmt_latencies_retire(struct kmt_latencies *l, uint32_t row)
{
	struct kmt_latency_row *r;
	uint32_t i, n;

	if (!l->sketch)
		return retire_exact(l, row);
	if (row >= l->nrows || !(r = &l->rows[row])->n)
		return 0;
	n = r->n;
	for (i = 0; i < n; i++)
		if (add_to_rest(l, r->b[i] >> 16, r->b[i] & ENTRY_MAX_COUNT))
			return -1;
	l->n -= n;
	free(r->b);
	memset(r, 0, sizeof(*r));
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
		return 0;	/* by row, each row's by bucket */
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
	const struct kmt_latency_row *r;
	uint32_t i, b;

	*n = 0;
	if (!counts)
		return -1;
	for (r = l->rows; r < l->rows + l->nrows; r++)
		for (i = 0; i < r->n; i++)
			counts[r->b[i] >> 16] += r->b[i] & ENTRY_MAX_COUNT;
	for (b = 0; b < l->rest_len; b++)
		counts[b] += l->rest[b];
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

/* Entries [*@lo, *@hi) of the @n at @v, sorted by row, are @row's. */
static void row_range(const struct kmt_latency *v, uint32_t n, uint32_t row, uint32_t *lo,
		      uint32_t *hi)
{
	uint32_t a = 0, b = n;

	while (a < b) {	/* the row's first */
		uint32_t mid = a + (b - a) / 2;

		if (v[mid].row < row)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (b < n && v[b].row == row)
		b++;
	*hi = b;
}

int kmt_latencies_row(const struct kmt_latencies *l, uint32_t row, uint64_t *p50, uint64_t *p99)
{
	const struct kmt_latency_row *r;
	struct kmt_latency *v;
	uint32_t lo, hi, i;
	int ret;

	*p50 = *p99 = 0;
	if (!l->n)
		return 0;
	if (!l->sketch) {
		row_range(l->v, l->n, row, &lo, &hi);
		*p50 = percentile(l->v + lo, hi - lo, 50);
		*p99 = percentile(l->v + lo, hi - lo, 99);
		return 0;
	}
	if (row >= l->nrows || !(r = &l->rows[row])->n)
		return 0;
	if (!(v = malloc(r->n * sizeof(*v))))
		return -1;
	for (i = 0; i < r->n; i++)
		v[i] = (struct kmt_latency){ .count = r->b[i] & ENTRY_MAX_COUNT,
					     .ns = bucket_value(l, r->b[i] >> 16) };
	ret = percentiles(v, r->n, p50, p99);
	free(v);
	return ret;
}

void kmt_latencies_free(struct kmt_latencies *l)
{
	uint32_t i;

	for (i = 0; i < l->nrows; i++)
		free(l->rows[i].b);
	free(l->rows);
	free(l->rest);
	free(l->retired);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
