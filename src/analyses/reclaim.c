// SPDX-License-Identifier: LGPL-2.1
/*
 * reclaim: memory reclaim as the vmscan events tell it. Direct reclaim,
 * memcg reclaim (limit and soft limit) and node reclaim are stalls of the
 * process that allocates: each begin/end pair is one, with its latency
 * and the pages it reclaimed. kswapd runs between its wake and sleep per
 * node. LRU scans and slab shrinking are put to the stall they happen in,
 * else to kswapd or to "other" (proactive reclaim, khugepaged, ...).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "latency.h"
#include "common/hashmap.h"
#include "common/util.h"

/* Where reclaim work happened: the stall kinds first. */
enum reclaim_ctx {
	RC_DIRECT,
	RC_MEMCG,
	RC_MEMCG_SOFTLIMIT,
	RC_NODE,
	RC_KSWAPD,
	RC_OTHER,
	RC_NR
};
#define RC_STALLS	RC_KSWAPD	/* contexts below it are stalls */

static const char *const ctx_names[RC_NR] = {
	"direct", "memcg", "memcg_softlimit", "node", "kswapd", "other",
};

struct reclaim_counts {
	uint64_t stalls, stall_ns, max_ns;
	uint64_t reclaimed;		/* nr_reclaimed of the stalls' end events */
	uint64_t lru_scanned, lru_taken, lru_reclaimed;
	uint64_t slab_freed, slab_scanned;
	uint64_t throttled, throttled_us;
};

/* A process in one context: a row of the per-process table. */
struct reclaim_row {
	int pid;
	enum reclaim_ctx ctx;
	struct reclaim_counts c;
};

/* A stall under way in a process. */
struct open_stall {
	enum reclaim_ctx ctx;
	uint64_t ts;
};

struct kswapd_node {
	long long nid;
	uint64_t wakes, awake_ns, woken_at;
	uint64_t wake_requests;
};

struct reclaim_state {
	struct kmt_filter filter;
	struct kmt_reader *reader;	/* names of tasks */
	struct kmt_hashmap rows_by_key;		/* pid << 3 | ctx -> row index */
	struct reclaim_row *rows;
	uint32_t nrows, rows_cap;
	struct kmt_hashmap open;		/* pid -> ctx << 56 | begin ts (56 bits) */
	struct reclaim_counts ctx[RC_NR];
	struct kmt_latencies lat;		/* per row */
	struct kmt_latencies ctx_lat;		/* per context */
	struct kswapd_node *nodes;
	uint32_t nnodes, nodes_cap;
	uint64_t unpaired_ends;
};

#define TS_BITS		56
#define TS_MASK		((1ull << TS_BITS) - 1)

static void reclaim_free(void *priv)
{
	struct reclaim_state *st = priv;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->rows_by_key);
	kmt_hashmap_free(&st->open);
	kmt_latencies_free(&st->lat);
	kmt_latencies_free(&st->ctx_lat);
	free(st->rows);
	free(st->nodes);
	free(st);
}

static void *reclaim_init(void)
{
	struct reclaim_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->rows_by_key) ||
	    kmt_hashmap_init(&st->open)) {
		reclaim_free(st);
		return NULL;
	}
	return st;
}

static struct kmt_filter *reclaim_filter(void *priv)
{
	return &((struct reclaim_state *)priv)->filter;
}

static int reclaim_start(void *priv, const struct kmt_session *s)
{
	struct reclaim_state *st = priv;

	if (s) {
		st->reader = s->reader;
		st->filter.reader = s->reader;
	}
	return 0;
}

/* The counts of @pid in @ctx, made when new; NULL out of memory. */
static struct reclaim_row *row_of(struct reclaim_state *st, int pid, enum reclaim_ctx ctx,
				  uint32_t *index)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->rows_by_key, (uint64_t)(uint32_t)pid << 3 | ctx,
				     &st->rows, &st->rows_cap, &st->nrows, sizeof(*st->rows), &made);

	if (i == KMT_HASHMAP_NO_ROW)
		return NULL;
	if (made)
		st->rows[i] = (struct reclaim_row){ .pid = pid, .ctx = ctx };
	*index = i;
	return &st->rows[i];
}

static bool is_kswapd(struct reclaim_state *st, int pid)
{
	const char *comm = kmt_reader_comm(st->reader, pid);

	return comm && !strncmp(comm, "kswapd", 6);
}

/* The context of work done by @pid now: its stall, kswapd or other. */
static enum reclaim_ctx context_of(struct reclaim_state *st, int pid)
{
	uint64_t v;

	if (kmt_hashmap_get(&st->open, (uint32_t)pid, &v))
		return (enum reclaim_ctx)(v >> TS_BITS);
	return is_kswapd(st, pid) ? RC_KSWAPD : RC_OTHER;
}

/* These take one event each: 0, or -1 when out of memory. */

static int stall_begin(struct reclaim_state *st, const struct kmt_event *ev,
		       enum reclaim_ctx ctx)
{
	return kmt_hashmap_put(&st->open, (uint32_t)ev->pid, (uint64_t)ctx << TS_BITS |
			       (ev->ts & TS_MASK));
}

static int stall_end(struct reclaim_state *st, const struct kmt_event *ev,
		     enum reclaim_ctx ctx)
{
	struct reclaim_row *r;
	uint64_t v, ns;
	uint32_t index;

	if (!kmt_hashmap_del(&st->open, (uint32_t)ev->pid, &v) || (v >> TS_BITS) != ctx) {
		st->unpaired_ends++;	/* began before the recording, or a lost begin */
		return 0;
	}
	ns = ((ev->ts & TS_MASK) - (v & TS_MASK)) & TS_MASK;
	r = row_of(st, ev->pid, ctx, &index);
	if (!r || kmt_latencies_add(&st->lat, index, ns) ||
	    kmt_latencies_add(&st->ctx_lat, ctx, ns))
		return -1;
	r->c.stalls++;
	r->c.stall_ns += ns;
	r->c.max_ns = ns > r->c.max_ns ? ns : r->c.max_ns;
	r->c.reclaimed += ev->reclaim.nr_reclaimed;
	return 0;
}

static struct kswapd_node *node_of(struct reclaim_state *st, long long nid)
{
	uint32_t i;

	for (i = 0; i < st->nnodes; i++)
		if (st->nodes[i].nid == nid)
			return &st->nodes[i];
	if (st->nnodes >= 4096 ||	/* no machine has more: a hostile file */
	    kmt_grow(&st->nodes, &st->nodes_cap, st->nnodes, sizeof(*st->nodes)))
		return NULL;
	st->nodes[st->nnodes] = (struct kswapd_node){ .nid = nid };
	return &st->nodes[st->nnodes++];
}

static int kswapd_event(struct reclaim_state *st, const struct kmt_event *ev)
{
	struct kswapd_node *n = node_of(st, ev->reclaim.nid);

	if (!n)
		return -1;
	if (ev->type == KMT_EV_WAKEUP_KSWAPD) {
		n->wake_requests++;
	} else if (ev->type == KMT_EV_KSWAPD_WAKE) {
		n->wakes++;
		n->woken_at = ev->ts;
	} else if (n->woken_at) {
		n->awake_ns += ev->ts - n->woken_at;
		n->woken_at = 0;
	}
	return 0;
}

/* Scans, shrinking and throttling: counted in the context they happen in. */
static int work_event(struct reclaim_state *st, const struct kmt_event *ev)
{
	enum reclaim_ctx ctx = context_of(st, ev->pid);
	struct reclaim_row *r;
	struct reclaim_counts *c[2];
	uint32_t index;
	int i;

	r = row_of(st, ev->pid, ctx, &index);
	if (!r)
		return -1;
	c[0] = &r->c;
	c[1] = &st->ctx[ctx];
	for (i = 0; i < 2; i++) {
		switch (ev->type) {
		case KMT_EV_LRU_ISOLATE:
			c[i]->lru_scanned += ev->reclaim.nr_scanned;
			c[i]->lru_taken += ev->reclaim.nr_taken;
			break;
		case KMT_EV_LRU_SHRINK_INACTIVE:
		case KMT_EV_RECLAIM_PAGES:
			c[i]->lru_reclaimed += ev->reclaim.nr_reclaimed;
			break;
		case KMT_EV_SHRINK_SLAB_END:
			c[i]->slab_freed += ev->reclaim.shrinker_freed > 0 ?
					    (uint64_t)ev->reclaim.shrinker_freed : 0;
			c[i]->slab_scanned += ev->reclaim.nr_scanned;
			break;
		case KMT_EV_RECLAIM_THROTTLED:
			c[i]->throttled++;
			c[i]->throttled_us += ev->reclaim.usec_delayed > 0 ?
					      (uint64_t)ev->reclaim.usec_delayed : 0;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int reclaim_event(void *priv, const struct kmt_event *ev)
{
	struct reclaim_state *st = priv;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	switch (ev->type) {
	case KMT_EV_DIRECT_RECLAIM_BEGIN:
		return stall_begin(st, ev, RC_DIRECT);
	case KMT_EV_MEMCG_RECLAIM_BEGIN:
		return stall_begin(st, ev, RC_MEMCG);
	case KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_BEGIN:
		return stall_begin(st, ev, RC_MEMCG_SOFTLIMIT);
	case KMT_EV_NODE_RECLAIM_BEGIN:
		return stall_begin(st, ev, RC_NODE);
	case KMT_EV_DIRECT_RECLAIM_END:
		return stall_end(st, ev, RC_DIRECT);
	case KMT_EV_MEMCG_RECLAIM_END:
		return stall_end(st, ev, RC_MEMCG);
	case KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_END:
		return stall_end(st, ev, RC_MEMCG_SOFTLIMIT);
	case KMT_EV_NODE_RECLAIM_END:
		return stall_end(st, ev, RC_NODE);
	case KMT_EV_KSWAPD_WAKE:
	case KMT_EV_KSWAPD_SLEEP:
	case KMT_EV_WAKEUP_KSWAPD:
		return kswapd_event(st, ev);
	default:
		return work_event(st, ev);
	}
}

#define COUNT_COLUMNS \
	{ "stalls", "STALLS", KMT_KIND_COUNT }, { "stall_time", "TIME", KMT_KIND_NS }, \
	{ "lat_mean", "MEAN", KMT_KIND_NS }, { "lat_p50", "P50", KMT_KIND_NS }, \
	{ "lat_p99", "P99", KMT_KIND_NS }, { "lat_max", "MAX", KMT_KIND_NS }, \
	{ "reclaimed", "RECLAIMED", KMT_KIND_COUNT }, \
	{ "lru_scanned", "LRU_SCANNED", KMT_KIND_COUNT }, \
	{ "lru_reclaimed", "LRU_RECLAIMED", KMT_KIND_COUNT }, \
	{ "slab_freed", "SLAB_FREED", KMT_KIND_COUNT }, \
	{ "throttled", "THROTTLED", KMT_KIND_COUNT }, \
	{ "throttled_time", "THROTTLED_TIME", KMT_KIND_NS }
#define NCOUNT_COLUMNS	12

/* The count cells of @c, whose latencies' p50 and p99 are given. */
static void count_cells(union kmt_cell *cell, const struct reclaim_counts *c, uint64_t p50,
			uint64_t p99)
{
	union kmt_cell v[NCOUNT_COLUMNS] = {
		{ .u = c->stalls }, { .u = c->stall_ns },
		{ .u = c->stalls ? c->stall_ns / c->stalls : 0 }, { .u = p50 }, { .u = p99 },
		{ .u = c->max_ns }, { .u = c->reclaimed }, { .u = c->lru_scanned },
		{ .u = c->lru_reclaimed }, { .u = c->slab_freed }, { .u = c->throttled },
		{ .u = c->throttled_us * 1000 },
	};

	memcpy(cell, v, sizeof(v));
}

static const struct kmt_column ctx_cols[] = {
	{ "context", "CONTEXT", KMT_KIND_STRING }, COUNT_COLUMNS,
};

/* The stalls and work of each context, summed over its processes. */
static int report_contexts(struct reclaim_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "contexts", "Reclaim by context",
					       1 + NCOUNT_COLUMNS, ctx_cols);
	uint32_t i;
	int ctx;

	for (i = 0; i < st->nrows; i++) {
		const struct reclaim_counts *rc = &st->rows[i].c;
		struct reclaim_counts *c = &st->ctx[st->rows[i].ctx];

		c->stalls += rc->stalls;
		c->stall_ns += rc->stall_ns;
		c->max_ns = rc->max_ns > c->max_ns ? rc->max_ns : c->max_ns;
		c->reclaimed += rc->reclaimed;
	}
	for (ctx = 0; t && ctx < RC_NR; ctx++) {
		union kmt_cell row[1 + NCOUNT_COLUMNS] = { { .s = ctx_names[ctx] } };
		uint64_t p50, p99;

		if (kmt_latencies_row(&st->ctx_lat, ctx, &p50, &p99))
			return -1;
		count_cells(row + 1, &st->ctx[ctx], p50, p99);
		if (kmt_table_row(t, row))
			return -1;
	}
	return t ? 0 : -1;
}

static int by_stall_time(uint32_t a, uint32_t b, void *ctx)
{
	const struct reclaim_row *x = (const struct reclaim_row *)ctx + a;
	const struct reclaim_row *y = (const struct reclaim_row *)ctx + b;

	if (x->c.stall_ns != y->c.stall_ns)
		return x->c.stall_ns < y->c.stall_ns ? 1 : -1;
	if (x->c.lru_scanned != y->c.lru_scanned)
		return x->c.lru_scanned < y->c.lru_scanned ? 1 : -1;
	return a < b ? -1 : a > b;
}

static const struct kmt_column proc_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
	{ "context", "CONTEXT", KMT_KIND_STRING }, COUNT_COLUMNS,
};

/* A row per process and context, longest stalls first. */
static int report_processes(struct reclaim_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "processes", "Reclaim by process (stalls: "
					       "time spent reclaiming in an allocation)",
					       3 + NCOUNT_COLUMNS, proc_cols);
	uint32_t *idx = t ? kmt_sorted_index(st->nrows, by_stall_time, st->rows) : NULL;
	uint32_t i;
	int ret = 0;

	if (!idx)
		return -1;
	for (i = 0; i < st->nrows && !ret; i++) {
		const struct reclaim_row *r = &st->rows[idx[i]];
		const char *comm = kmt_reader_comm(st->reader, r->pid);
		union kmt_cell row[3 + NCOUNT_COLUMNS] = {
			{ .u = (unsigned int)r->pid }, { .s = comm ? comm : "<...>" },
			{ .s = ctx_names[r->ctx] },
		};
		uint64_t p50, p99;

		if ((ret = kmt_latencies_row(&st->lat, idx[i], &p50, &p99)))
			break;
		count_cells(row + 3, &r->c, p50, p99);
		ret = kmt_table_row(t, row);
	}
	free(idx);
	return ret;
}

static const struct kmt_column node_cols[] = {
	{ "node", "NODE", KMT_KIND_SIGNED }, { "wakeup_requests", "WAKE_REQUESTS", KMT_KIND_COUNT },
	{ "wakes", "WAKES", KMT_KIND_COUNT }, { "awake_time", "AWAKE", KMT_KIND_NS },
};

static int report_kswapd(const struct reclaim_state *st, struct kmt_output *out)
{
	struct kmt_table *t;
	uint32_t i;

	if (!st->nnodes)
		return 0;
	t = kmt_output_table(out, "kswapd", "kswapd by node", 4, node_cols);
	for (i = 0; t && i < st->nnodes; i++) {
		const struct kswapd_node *n = &st->nodes[i];

		if (kmt_table_row(t, (union kmt_cell[]){ { .i = n->nid }, { .u = n->wake_requests },
							  { .u = n->wakes },
							  { .u = n->awake_ns } }))
			return -1;
	}
	return t ? 0 : -1;
}

static int reclaim_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct reclaim_state *st = priv;
	uint64_t stalls = 0, stall_ns = 0;
	uint32_t i;

	(void)s;
	if (kmt_latencies_sort(&st->lat) || kmt_latencies_sort(&st->ctx_lat)) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < st->nrows; i++) {
		stalls += st->rows[i].c.stalls;
		stall_ns += st->rows[i].c.stall_ns;
	}
	if (kmt_output_count(out, "stalls", "Reclaim stalls (direct, memcg, node)", stalls) ||
	    kmt_output_ns(out, "stall_time", "Time stalled in reclaim (s)", stall_ns) ||
	    kmt_output_count(out, "unfinished_stalls", "Stalls under way at the end",
			     kmt_hashmap_count(&st->open)) ||
	    kmt_output_count(out, "unpaired_ends", "Stall ends without their begin",
			     st->unpaired_ends) ||
	    report_contexts(st, out) || report_processes(st, out) || report_kswapd(st, out))
		return -1;
	return 0;
}

#define RECLAIM_EVENTS \
	(KMT_EVMASK(KMT_EV_DIRECT_RECLAIM_BEGIN) | KMT_EVMASK(KMT_EV_DIRECT_RECLAIM_END) | \
	 KMT_EVMASK(KMT_EV_MEMCG_RECLAIM_BEGIN) | KMT_EVMASK(KMT_EV_MEMCG_RECLAIM_END) | \
	 KMT_EVMASK(KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_BEGIN) | \
	 KMT_EVMASK(KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_END) | \
	 KMT_EVMASK(KMT_EV_NODE_RECLAIM_BEGIN) | KMT_EVMASK(KMT_EV_NODE_RECLAIM_END))

static const struct kmt_need reclaim_needs[] = {
	{ RECLAIM_EVENTS, "reclaim stalls (record -e vmscan)" },
	{ KMT_EVMASK(KMT_EV_LRU_ISOLATE) | KMT_EVMASK(KMT_EV_LRU_SHRINK_INACTIVE),
	  "LRU scans" },
	{ KMT_EVMASK(KMT_EV_KSWAPD_WAKE), "kswapd runs" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_reclaim = {
	.name = "reclaim",
	.help = "reclaim stalls per process (mean, p50, p99, max), memcg apart, kswapd, LRU scans",
	.needs = reclaim_needs,
	.events = RECLAIM_EVENTS | KMT_EVMASK(KMT_EV_KSWAPD_WAKE) |
		  KMT_EVMASK(KMT_EV_KSWAPD_SLEEP) | KMT_EVMASK(KMT_EV_WAKEUP_KSWAPD) |
		  KMT_EVMASK(KMT_EV_LRU_ISOLATE) | KMT_EVMASK(KMT_EV_LRU_SHRINK_INACTIVE) |
		  KMT_EVMASK(KMT_EV_LRU_SHRINK_ACTIVE) | KMT_EVMASK(KMT_EV_RECLAIM_PAGES) |
		  KMT_EVMASK(KMT_EV_RECLAIM_THROTTLED) | KMT_EVMASK(KMT_EV_RECLAIM_WRITE_FOLIO) |
		  KMT_EVMASK(KMT_EV_SHRINK_SLAB_START) | KMT_EVMASK(KMT_EV_SHRINK_SLAB_END),
	.reader_thread_ok = true,
	.init = reclaim_init,
	.filter = reclaim_filter,
	.start = reclaim_start,
	.event = reclaim_event,
	.report = reclaim_report,
	.free = reclaim_free,
};
