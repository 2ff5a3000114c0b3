// SPDX-License-Identifier: LGPL-2.1
/*
 * compaction: memory compaction runs (mm_compaction_begin/end of one
 * task) with their latency and status, per process; attempts, deferrals
 * and external fragmentation (kmem:mm_page_alloc_extfrag) by order; the
 * pages the migrate and free scanners looked at and took, and migrated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "latency.h"
#include "symbolic.h"
#include "common/hashmap.h"
#include "common/util.h"

#define MAX_ORDER	32
#define MAX_STATUS	64

struct compact_proc {
	int pid;
	uint64_t runs, ns, max_ns, succeeded;
};

struct compact_order {
	uint64_t attempts, deferred, defers, extfrag;
};

struct compact_state {
	struct kmt_filter filter;
	struct tep_handle *tep;
	struct kmt_reader *reader;	/* names of tasks */
	struct kmt_hashmap procs_by_pid;
	struct compact_proc *procs;
	uint32_t nprocs, procs_cap;
	struct kmt_hashmap open;		/* pid -> begin ts */
	struct kmt_latencies lat;		/* per process */
	uint64_t status[MAX_STATUS];		/* runs by end status */
	uint64_t other_status;
	struct compact_order order[MAX_ORDER + 1];	/* the last: orders no kernel has, not shown */
	uint64_t migrate_scanned, migrate_taken, free_scanned, free_taken;
	uint64_t migrated, migrate_failed, kcompactd_wakes, wakeup_requests, unpaired_ends;
	long long success;			/* the status of a run that succeeded */
};

static void compact_free(void *priv)
{
	struct compact_state *st = priv;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->procs_by_pid);
	kmt_hashmap_free(&st->open);
	kmt_latencies_free(&st->lat);
	free(st->procs);
	free(st);
}

static void *compact_init(void)
{
	struct compact_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->success = -1;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->procs_by_pid) ||
	    kmt_hashmap_init(&st->open)) {
		compact_free(st);
		return NULL;
	}
	return st;
}

static struct kmt_filter *compact_filter(void *priv)
{
	return &((struct compact_state *)priv)->filter;
}

/* The status the recording's print format names "success"; -1 if none. */
static long long success_status(struct tep_handle *tep)
{
	char name[32];
	int s;

	for (s = 0; s < MAX_STATUS; s++)
		if (!strcmp(kmt_symbolic_name(tep, "compaction", "mm_compaction_end", "status", s,
					      name, sizeof(name)), "success"))
			return s;
	return -1;
}

static int compact_start(void *priv, const struct kmt_session *s)
{
	struct compact_state *st = priv;

	if (s) {
		st->tep = s->tep;
		st->reader = s->reader;
		st->filter.reader = s->reader;
		st->success = success_status(s->tep);
	}
	return 0;
}

static struct compact_proc *proc_of(struct compact_state *st, int pid, uint32_t *index)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->procs_by_pid, (uint32_t)pid, &st->procs, &st->procs_cap,
				     &st->nprocs, sizeof(*st->procs), &made);

	if (i == KMT_HASHMAP_NO_ROW)
		return NULL;
	st->procs[i].pid = pid;
	*index = i;
	return &st->procs[i];
}


static int run_end(struct compact_state *st, const struct kmt_event *ev)
{
	struct compact_proc *p;
	uint64_t begin, ns;
	uint32_t index;

	if (ev->compaction.status >= 0 && ev->compaction.status < MAX_STATUS)
		st->status[ev->compaction.status]++;
	else
		st->other_status++;
	if (!kmt_hashmap_del(&st->open, (uint32_t)ev->pid, &begin)) {
		st->unpaired_ends++;
		return 0;
	}
	ns = ev->ts >= begin ? ev->ts - begin : 0;
	p = proc_of(st, ev->pid, &index);
	if (!p || kmt_latencies_add(&st->lat, index, ns))
		return -1;
	p->runs++;
	p->ns += ns;
	p->max_ns = ns > p->max_ns ? ns : p->max_ns;
	p->succeeded += ev->compaction.status == st->success;
	return 0;
}

static struct compact_order *order_of(struct compact_state *st, unsigned long long order)
{
	return &st->order[order < MAX_ORDER ? order : MAX_ORDER];
}

static int compact_event(void *priv, const struct kmt_event *ev)
{
	struct compact_state *st = priv;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	switch (ev->type) {
	case KMT_EV_COMPACTION_BEGIN:
		return kmt_hashmap_put(&st->open, (uint32_t)ev->pid, ev->ts);
	case KMT_EV_COMPACTION_END:
		return run_end(st, ev);
	case KMT_EV_COMPACTION_TRY:
		order_of(st, ev->order)->attempts++;
		break;
	case KMT_EV_COMPACTION_DEFERRED:
		order_of(st, ev->order)->deferred++;
		break;
	case KMT_EV_COMPACTION_DEFER:
		order_of(st, ev->order)->defers++;
		break;
	case KMT_EV_PAGE_ALLOC_EXTFRAG:
		order_of(st, ev->order)->extfrag++;
		break;
	case KMT_EV_COMPACTION_ISOLATE_MIGRATE:
		st->migrate_scanned += ev->compaction.nr_scanned;
		st->migrate_taken += ev->compaction.nr_taken;
		break;
	case KMT_EV_COMPACTION_ISOLATE_FREE:
	case KMT_EV_COMPACTION_FAST_ISOLATE_FREE:
		st->free_scanned += ev->compaction.nr_scanned;
		st->free_taken += ev->compaction.nr_taken;
		break;
	case KMT_EV_COMPACTION_MIGRATE:
		st->migrated += ev->compaction.nr_migrated;
		st->migrate_failed += ev->compaction.nr_failed;
		break;
	case KMT_EV_KCOMPACTD_WAKE:
		st->kcompactd_wakes++;
		break;
	case KMT_EV_WAKEUP_KCOMPACTD:
		st->wakeup_requests++;
		break;
	default:
		break;
	}
	return 0;
}

static int by_time(uint32_t a, uint32_t b, void *ctx)
{
	const struct compact_proc *x = (const struct compact_proc *)ctx + a;
	const struct compact_proc *y = (const struct compact_proc *)ctx + b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return a < b ? -1 : a > b;
}

static const struct kmt_column proc_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
	{ "runs", "RUNS", KMT_KIND_COUNT }, { "succeeded", "SUCCESS", KMT_KIND_COUNT },
	{ "time", "TIME", KMT_KIND_NS }, { "lat_mean", "MEAN", KMT_KIND_NS },
	{ "lat_p50", "P50", KMT_KIND_NS }, { "lat_p99", "P99", KMT_KIND_NS },
	{ "lat_max", "MAX", KMT_KIND_NS },
};

static int report_procs(struct compact_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "processes", "Compaction runs by process",
					       9, proc_cols);
	uint32_t *idx = t ? kmt_sorted_index(st->nprocs, by_time, st->procs) : NULL;
	uint32_t i;
	int ret = 0;

	if (!idx)
		return -1;
	for (i = 0; i < st->nprocs && !ret; i++) {
		const struct compact_proc *p = &st->procs[idx[i]];
		const char *comm = kmt_reader_comm(st->reader, p->pid);
		uint64_t p50, p99;

		if ((ret = kmt_latencies_row(&st->lat, idx[i], &p50, &p99)))
			break;
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = (unsigned int)p->pid }, { .s = comm ? comm : "<...>" },
			{ .u = p->runs }, { .u = p->succeeded }, { .u = p->ns },
			{ .u = p->runs ? p->ns / p->runs : 0 }, { .u = p50 }, { .u = p99 },
			{ .u = p->max_ns } });
	}
	free(idx);
	return ret;
}

static const struct kmt_column status_cols[] = {
	{ "status", "STATUS", KMT_KIND_STRING }, { "runs", "RUNS", KMT_KIND_COUNT },
};

static int report_statuses(struct compact_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "statuses", "Runs by how they ended", 2,
					       status_cols);
	char name[64];
	int s;

	for (s = 0; t && s < MAX_STATUS; s++) {
		if (!st->status[s])
			continue;
		kmt_symbolic_name(st->tep, "compaction", "mm_compaction_end", "status", s, name,
				  sizeof(name));
		if (kmt_table_row(t, (union kmt_cell[]){ { .s = name }, { .u = st->status[s] } }))
			return -1;
	}
	if (t && st->other_status &&
	    kmt_table_row(t, (union kmt_cell[]){ { .s = "(other)" }, { .u = st->other_status } }))
		return -1;
	return t ? 0 : -1;
}

static const struct kmt_column order_cols[] = {
	{ "order", "ORDER", KMT_KIND_COUNT }, { "attempts", "ATTEMPTS", KMT_KIND_COUNT },
	{ "deferred", "DEFERRED", KMT_KIND_COUNT }, { "defers", "DEFER_SET", KMT_KIND_COUNT },
	{ "extfrag", "EXTFRAG", KMT_KIND_COUNT },
};

static int report_orders(struct compact_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "orders", "By order (EXTFRAG: allocations "
					       "that fell back to another migratetype)", 5,
					       order_cols);
	int o;

	for (o = 0; t && o < MAX_ORDER; o++) {
		const struct compact_order *c = &st->order[o];

		if (!(c->attempts | c->deferred | c->defers | c->extfrag))
			continue;
		if (kmt_table_row(t, (union kmt_cell[]){ { .u = o }, { .u = c->attempts },
							  { .u = c->deferred }, { .u = c->defers },
							  { .u = c->extfrag } }))
			return -1;
	}
	return t ? 0 : -1;
}

static int compact_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct compact_state *st = priv;
	uint64_t runs = 0, ok = 0;
	uint32_t i;

	(void)s;
	if (kmt_latencies_sort(&st->lat)) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < st->nprocs; i++) {
		runs += st->procs[i].runs;
		ok += st->procs[i].succeeded;
	}
	if (kmt_output_count(out, "runs", "Compaction runs", runs) ||
	    kmt_output_count(out, "succeeded", "  succeeded", ok) ||
	    kmt_output_count(out, "unpaired_ends", "Run ends without their begin",
			     st->unpaired_ends) ||
	    kmt_output_count(out, "migrate_scanned", "Migrate scanner: pages scanned",
			     st->migrate_scanned) ||
	    kmt_output_count(out, "migrate_isolated", "  isolated", st->migrate_taken) ||
	    kmt_output_count(out, "free_scanned", "Free scanner: pages scanned",
			     st->free_scanned) ||
	    kmt_output_count(out, "free_isolated", "  isolated", st->free_taken) ||
	    kmt_output_count(out, "migrated", "Pages migrated", st->migrated) ||
	    kmt_output_count(out, "migrate_failed", "Migrations failed", st->migrate_failed) ||
	    kmt_output_count(out, "kcompactd_wakes", "kcompactd wakes", st->kcompactd_wakes) ||
	    kmt_output_count(out, "kcompactd_wakeup_requests", "kcompactd wakeup requests",
			     st->wakeup_requests) ||
	    report_procs(st, out) || report_statuses(st, out) || report_orders(st, out))
		return -1;
	return 0;
}

static const struct kmt_need compact_needs[] = {
	{ KMT_EVMASK(KMT_EV_COMPACTION_BEGIN) | KMT_EVMASK(KMT_EV_COMPACTION_END),
	  "compaction runs (record -e compaction)" },
	{ KMT_EVMASK(KMT_EV_PAGE_ALLOC_EXTFRAG), "external fragmentation (kmem)" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_compaction = {
	.name = "compaction",
	.help = "compaction runs per process (latency, status), attempts and extfrag by order",
	.needs = compact_needs,
	.events = KMT_EVMASK(KMT_EV_COMPACTION_BEGIN) | KMT_EVMASK(KMT_EV_COMPACTION_END) |
		  KMT_EVMASK(KMT_EV_COMPACTION_TRY) | KMT_EVMASK(KMT_EV_COMPACTION_SUITABLE) |
		  KMT_EVMASK(KMT_EV_COMPACTION_FINISHED) | KMT_EVMASK(KMT_EV_COMPACTION_DEFERRED) |
		  KMT_EVMASK(KMT_EV_COMPACTION_DEFER) | KMT_EVMASK(KMT_EV_COMPACTION_DEFER_RESET) |
		  KMT_EVMASK(KMT_EV_COMPACTION_ISOLATE_MIGRATE) |
		  KMT_EVMASK(KMT_EV_COMPACTION_ISOLATE_FREE) |
		  KMT_EVMASK(KMT_EV_COMPACTION_FAST_ISOLATE_FREE) |
		  KMT_EVMASK(KMT_EV_COMPACTION_MIGRATE) | KMT_EVMASK(KMT_EV_KCOMPACTD_WAKE) |
		  KMT_EVMASK(KMT_EV_KCOMPACTD_SLEEP) | KMT_EVMASK(KMT_EV_WAKEUP_KCOMPACTD) |
		  KMT_EVMASK(KMT_EV_PAGE_ALLOC_EXTFRAG),
	.reader_thread_ok = true,
	.init = compact_init,
	.filter = compact_filter,
	.start = compact_start,
	.event = compact_event,
	.report = compact_report,
	.free = compact_free,
};
