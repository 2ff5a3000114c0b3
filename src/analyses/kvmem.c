// SPDX-License-Identifier: LGPL-2.1
/*
 * vmalloc and percpu: kernel memory outside the slab and page allocators,
 * allocations, frees and what is still live at the end, per caller.
 * percpu allocations name their call site; vmalloc's events do not, so
 * its caller is the process that allocated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "common/hashmap.h"
#include "common/objmap.h"
#include "common/util.h"

struct kv_row {
	uint64_t caller;		/* call site, or pid */
	uint64_t allocs, frees, failed;
	uint64_t bytes, freed_bytes;
	uint64_t live, live_bytes;
};

struct kv_obj {
	uint32_t row;
	uint64_t bytes;
};

KMT_OBJMAP_TYPED(kv_obj, struct kv_obj)

struct kv_state {
	struct kmt_filter filter;
	struct kmt_reader *reader;
	const struct kmt_session *session;	/* names of addresses */
	bool percpu;			/* else vmalloc */
	struct kmt_hashmap rows_by_caller;
	struct kv_row *rows;
	uint32_t nrows, rows_cap;
	struct kmt_objmap live;		/* address -> kv_obj */
	uint64_t unmatched_frees;	/* of what was allocated before the recording */
	uint64_t chunks_created, chunks_destroyed, purges, purged;
};

static void kv_free(void *priv)
{
	struct kv_state *st = priv;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->rows_by_caller);
	kmt_objmap_free(&st->live);
	free(st->rows);
	free(st);
}

static struct kv_state *kv_init(bool percpu)
{
	struct kv_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->percpu = percpu;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->rows_by_caller) ||
	    kmt_objmap_init(&st->live, sizeof(struct kv_obj))) {
		kv_free(st);
		return NULL;
	}
	return st;
}

static void *vmalloc_init(void)
{
	return kv_init(false);
}

static void *percpu_init(void)
{
	return kv_init(true);
}

static struct kmt_filter *kv_filter(void *priv)
{
	return &((struct kv_state *)priv)->filter;
}

static int kv_start(void *priv, const struct kmt_session *s)
{
	struct kv_state *st = priv;

	if (s) {
		st->reader = s->reader;
		st->session = s;
		st->filter.reader = s->reader;
	}
	return 0;
}

static struct kv_row *row_of(struct kv_state *st, uint64_t caller, uint32_t *index)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->rows_by_caller, caller, &st->rows, &st->rows_cap,
				     &st->nrows, sizeof(*st->rows), &made);

	if (i == KMT_HASHMAP_NO_ROW)
		return NULL;
	st->rows[i].caller = caller;
	*index = i;
	return &st->rows[i];
}

/* An allocation (or a failed one) of @bytes at @addr by @caller. 0, or -1 when out of memory. */
static int kv_alloc(struct kv_state *st, uint64_t caller, uint64_t addr, uint64_t bytes,
		    bool failed)
{
	struct kv_obj o = { .bytes = bytes };
	struct kv_row *r = row_of(st, caller, &o.row);

	if (!r)
		return -1;
	if (failed) {
		r->failed++;
		return 0;
	}
	r->allocs++;
	r->bytes += bytes;
	r->live++;
	r->live_bytes += bytes;
	return kv_obj_put(&st->live, addr, &o);
}

static void kv_release(struct kv_state *st, uint64_t addr)
{
	struct kv_obj o;
	struct kv_row *r;

	if (!kv_obj_take(&st->live, addr, &o)) {
		st->unmatched_frees++;
		return;
	}
	r = &st->rows[o.row];
	r->frees++;
	r->freed_bytes += o.bytes;
	r->live--;
	r->live_bytes -= o.bytes;
}

static int kv_event(void *priv, const struct kmt_event *ev)
{
	struct kv_state *st = priv;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	switch (ev->type) {
	case KMT_EV_PERCPU_ALLOC:
		return kv_alloc(st, ev->call_site, ev->ptr, ev->bytes_alloc, false);
	case KMT_EV_PERCPU_ALLOC_FAIL:
		return kv_alloc(st, 0, 0, ev->bytes_req, true);
	case KMT_EV_VMAP_ALLOC:
		return kv_alloc(st, (uint32_t)ev->pid, ev->ptr, ev->bytes_alloc, ev->area.failed != 0);
	case KMT_EV_PERCPU_FREE:
	case KMT_EV_VMAP_FREE:
		kv_release(st, ev->ptr);
		return 0;
	case KMT_EV_PERCPU_CREATE_CHUNK:
		st->chunks_created++;
		return 0;
	case KMT_EV_PERCPU_DESTROY_CHUNK:
		st->chunks_destroyed++;
		return 0;
	case KMT_EV_VMAP_PURGE:
		st->purges++;
		st->purged += ev->area.count > 0 ? (uint64_t)ev->area.count : 0;
		return 0;
	default:
		return 0;
	}
}

static int by_live_bytes(uint32_t a, uint32_t b, void *ctx)
{
	const struct kv_row *x = (const struct kv_row *)ctx + a;
	const struct kv_row *y = (const struct kv_row *)ctx + b;

	if (x->live_bytes != y->live_bytes)
		return x->live_bytes < y->live_bytes ? 1 : -1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return a < b ? -1 : a > b;
}

#define KV_COLUMNS \
	{ "allocs", "ALLOCS", KMT_KIND_COUNT }, { "frees", "FREES", KMT_KIND_COUNT }, \
	{ "failed", "FAILED", KMT_KIND_COUNT }, { "bytes", "BYTES", KMT_KIND_BYTES }, \
	{ "freed_bytes", "FREED", KMT_KIND_BYTES }, { "live", "LIVE", KMT_KIND_COUNT }, \
	{ "live_bytes", "LIVE_BYTES", KMT_KIND_BYTES }

static const struct kmt_column percpu_cols[] = {
	{ "callsite", "CALLSITE", KMT_KIND_SYMBOL }, KV_COLUMNS,
};

static const struct kmt_column vmalloc_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING }, KV_COLUMNS,
};

/* The first cells of row @r: its call site, or its process. */
static int caller_cells(struct kv_state *st, const struct kv_row *r, union kmt_cell *cell,
			char *sym, size_t len)
{
	const char *comm;

	if (st->percpu) {
		if (!r->caller)
			snprintf(sym, len, "(failed: no call site)");
		else
			kmt_session_symbol(st->session, r->caller, sym, len);
		cell[0].s = sym;
		return 1;
	}
	comm = kmt_reader_comm(st->reader, (int)r->caller);
	cell[0].u = r->caller;
	cell[1].s = comm ? comm : "<...>";
	return 2;
}

static int report_rows(struct kv_state *st, struct kmt_output *out)
{
	int ncols = st->percpu ? 8 : 9;
	struct kmt_table *t = kmt_output_table(out, "callers", st->percpu ?
		"By call site, most live bytes first" : "By process (vmalloc's events carry "
		"no call site), most live bytes first", ncols,
		st->percpu ? percpu_cols : vmalloc_cols);
	uint32_t *idx = t ? kmt_sorted_index(st->nrows, by_live_bytes, st->rows) : NULL;
	uint32_t i;
	int ret = 0;

	if (!idx)
		return -1;
	for (i = 0; i < st->nrows && !ret; i++) {
		const struct kv_row *r = &st->rows[idx[i]];
		union kmt_cell row[9];
		char sym[256];
		int at = caller_cells(st, r, row, sym, sizeof(sym));

		memcpy(row + at, (union kmt_cell[]){
			{ .u = r->allocs }, { .u = r->frees }, { .u = r->failed }, { .u = r->bytes },
			{ .u = r->freed_bytes }, { .u = r->live }, { .u = r->live_bytes } },
		       7 * sizeof(*row));
		ret = kmt_table_row(t, row);
	}
	free(idx);
	return ret;
}

static int kv_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct kv_state *st = priv;
	uint64_t allocs = 0, bytes = 0, live_bytes = 0;
	uint32_t i;

	(void)s;
	for (i = 0; i < st->nrows; i++) {
		allocs += st->rows[i].allocs;
		bytes += st->rows[i].bytes;
		live_bytes += st->rows[i].live_bytes;
	}
	if (kmt_output_count(out, "allocs", "Allocations", allocs) ||
	    kmt_output_value(out, "bytes", "Bytes allocated", KMT_KIND_BYTES,
			     (union kmt_cell){ .u = bytes }) ||
	    kmt_output_value(out, "live_bytes", "Bytes live at the end (allocated while "
			     "recording)", KMT_KIND_BYTES, (union kmt_cell){ .u = live_bytes }) ||
	    kmt_output_count(out, "unmatched_frees", "Frees of what was allocated before",
			     st->unmatched_frees))
		return -1;
	if (st->percpu ? kmt_output_count(out, "chunks_created", "Chunks created",
					  st->chunks_created) ||
			 kmt_output_count(out, "chunks_destroyed", "Chunks destroyed",
					  st->chunks_destroyed)
		       : kmt_output_count(out, "purges", "Lazy purges", st->purges) ||
			 kmt_output_count(out, "purged_areas", "Areas purged", st->purged))
		return -1;
	return report_rows(st, out);
}

static const struct kmt_need vmalloc_needs[] = {
	{ KMT_EVMASK(KMT_EV_VMAP_ALLOC), "vmalloc allocations (record -e vmalloc)" },
	{ KMT_EVMASK(KMT_EV_VMAP_FREE), "vmalloc frees: every area would look live" },
	{ 0 }
};

static const struct kmt_need percpu_needs[] = {
	{ KMT_EVMASK(KMT_EV_PERCPU_ALLOC), "percpu allocations (record -e percpu)" },
	{ KMT_EVMASK(KMT_EV_PERCPU_FREE), "percpu frees: every allocation would look live" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_vmalloc = {
	.name = "vmalloc",
	.help = "vmalloc areas: allocations, frees, live bytes per process, lazy purges",
	.needs = vmalloc_needs,
	.events = KMT_EVMASK(KMT_EV_VMAP_ALLOC) | KMT_EVMASK(KMT_EV_VMAP_FREE) |
		  KMT_EVMASK(KMT_EV_VMAP_PURGE),
	.reader_thread_ok = true,
	.init = vmalloc_init,
	.filter = kv_filter,
	.start = kv_start,
	.event = kv_event,
	.report = kv_report,
	.free = kv_free,
};

const struct kmt_analysis kmt_analysis_percpu = {
	.name = "percpu",
	.help = "percpu allocations: per call site, frees, live bytes, failures, chunks",
	.needs = percpu_needs,
	.events = KMT_EVMASK(KMT_EV_PERCPU_ALLOC) | KMT_EVMASK(KMT_EV_PERCPU_FREE) |
		  KMT_EVMASK(KMT_EV_PERCPU_ALLOC_FAIL) | KMT_EVMASK(KMT_EV_PERCPU_CREATE_CHUNK) |
		  KMT_EVMASK(KMT_EV_PERCPU_DESTROY_CHUNK),
	.reader_thread_ok = true,
	.init = percpu_init,
	.filter = kv_filter,
	.start = kv_start,
	.event = kv_event,
	.report = kv_report,
	.free = kv_free,
};
