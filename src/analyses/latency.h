/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Latencies kept per row of a table (a process, a process and a kind),
 * for the p50 and p99 of each row and of them all: exact while there are
 * few, then in a sketch of fixed relative error whose memory follows the
 * rows and the spread of their latencies, not the number of events.
 */
#ifndef KMT_LATENCY_H
#define KMT_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

/* Latencies kept one by one up to this many, then in the sketch. */
#define KMT_LATENCY_EXACT_MAX	(1u << 16)
/* The sketch's percentiles are within this relative error of the exact ones. */
#define KMT_LATENCY_ERROR	0.005

/* @count latencies of row @row at @ns (one, exact; or a sketch bucket's). */
struct kmt_latency {
	uint32_t row;
	uint32_t count;
	uint64_t ns;
};

/* The sketch's buckets of one row in use, by bucket: bucket << 16 | count. */
struct kmt_latency_row {
	uint32_t *b;
	uint32_t n, cap;
};

struct kmt_latencies {
	struct kmt_latency *v;		/* one by one; NULL in the sketch */
	struct kmt_latency_row *rows;	/* the sketch's, by row; else NULL */
	uint32_t n, cap;		/* entries of v, or buckets in use in the sketch */
	uint32_t nrows, rows_cap;	/* of rows */
	bool sketch;
	double first_step;		/* the sketch's step of its first logarithmic bucket */
	uint64_t *rest;			/* the sketch's counts of retired rows, by bucket */
	uint32_t rest_len;		/* buckets of rest (a few thousand at most) */
	uint64_t *retired;		/* rows retired before the sketch, a bit each */
	uint32_t retired_words;
};

/* Add latency @ns of row @row; 0, or -1 out of memory. */
int kmt_latencies_add(struct kmt_latencies *l, uint32_t row, uint64_t ns);

/*
 * p50 and p99 of all rows into *@p50 and *@p99 (0 when none). Before
 * kmt_latencies_sort(): it may reorder. 0, or -1 out of memory.
 */
int kmt_latencies_overall(struct kmt_latencies *l, uint64_t *p50, uint64_t *p99);

/* Order by row for kmt_latencies_row(): 0, or -1 out of memory. */
int kmt_latencies_sort(struct kmt_latencies *l);

/* After kmt_latencies_sort(): p50 and p99 of row @row (0 when none). 0, or -1 out of memory. */
int kmt_latencies_row(const struct kmt_latencies *l, uint32_t row, uint64_t *p50, uint64_t *p99);

/*
 * Row @row will not be asked for again (its table row went): its
 * latencies stay in the overall percentiles only, in fixed memory. The
 * caller must not add to it after. 0, or -1 out of memory.
 */
int kmt_latencies_retire(struct kmt_latencies *l, uint32_t row);

/* Free what @l holds. */
void kmt_latencies_free(struct kmt_latencies *l);

#endif /* KMT_LATENCY_H */
