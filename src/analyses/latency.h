/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Latencies kept per row of a table (a process, a process and a kind),
 * for the mean, p50, p99 and max of each row.
 */
#ifndef KMT_LATENCY_H
#define KMT_LATENCY_H

#include <stdint.h>

struct kmt_latency {
	uint32_t row;
	uint64_t ns;
};

struct kmt_latencies {
	struct kmt_latency *v;
	uint32_t n, cap;
};

/* Add latency @ns of row @row; 0, or -1 out of memory. */
int kmt_latencies_add(struct kmt_latencies *l, uint32_t row, uint64_t ns);

/* Sort by latency alone (for percentiles of them all): 0, or -1 out of memory. */
int kmt_latencies_sort_by_ns(struct kmt_latencies *l);

/* Sort by row, each row's by latency: 0, or -1 out of memory. */
int kmt_latencies_sort(struct kmt_latencies *l);

/* Nearest-rank percentile @pct of the @n sorted latencies at @v (0 when none). */
uint64_t kmt_latency_percentile(const struct kmt_latency *v, uint32_t n, unsigned int pct);

/* After kmt_latencies_sort(): p50 and p99 of row @row. */
void kmt_latencies_row(const struct kmt_latencies *l, uint32_t row, uint64_t *p50, uint64_t *p99);

void kmt_latencies_free(struct kmt_latencies *l);

#endif /* KMT_LATENCY_H */
