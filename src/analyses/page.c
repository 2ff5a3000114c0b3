// SPDX-License-Identifier: LGPL-2.1
/*
 * page: the page allocator's requests as perf kmem --page counts them, pages
 * per order, migratetype, GFP and process, outstanding pages over time.
 * Pages are attributed to the task in whose context the event fired.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "page.h"
#include "common/util.h"

enum {
	OPT_PID = 0x100, OPT_ORDER, OPT_MIGRATETYPE, OPT_GFP, OPT_LIVE, OPT_CALLER, OPT_STACK,
	OPT_TIMELINE,
};

static const struct option page_longopts[] = {
	{ "pid", no_argument, NULL, OPT_PID },
	{ "order", no_argument, NULL, OPT_ORDER },
	{ "migratetype", no_argument, NULL, OPT_MIGRATETYPE },
	{ "gfp", no_argument, NULL, OPT_GFP },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "caller", no_argument, NULL, OPT_CALLER },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "lines", required_argument, NULL, 'l' },
	{ "sort", required_argument, NULL, 's' },
	KMT_ROLLUP_LONGOPTS,
	{ "stack", no_argument, NULL, OPT_STACK },
	KMT_ALLOC_FRAMES_LONGOPT,
	{ NULL, 0, NULL, 0 }
};

static int page_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	static const unsigned int table_of[] = {
		[OPT_PID - OPT_PID] = PAGE_TABLE_PID,
		[OPT_ORDER - OPT_PID] = PAGE_TABLE_ORDER,
		[OPT_MIGRATETYPE - OPT_PID] = PAGE_TABLE_MIGRATETYPE,
		[OPT_GFP - OPT_PID] = PAGE_TABLE_GFP,
		[OPT_LIVE - OPT_PID] = PAGE_TABLE_LIVE,
		[OPT_CALLER - OPT_PID] = PAGE_TABLE_CALLER,
		[OPT_STACK - OPT_PID] = PAGE_TABLE_STACK,
	};
	struct page_state *st = priv;

	if (kmt_rollup_is_option(key))
		return kmt_rollup_option(&st->rollup, key, arg, err);
	if (key == KMT_OPT_ALLOC_FRAMES)
		return kmt_stacks_option(&st->stacks, arg, err);
	if (key >= OPT_PID && key <= OPT_STACK) {
		st->tables |= table_of[key - OPT_PID];
		return 0;
	}
	if (key == 'l')
		return kmt_parse_count(arg, "--lines", &st->lines, err);
	if (key == 's')
		return kmt_page_parse_sort(st, arg, err);
	if (key == OPT_TIMELINE)
		return kmt_parse_interval_ms(arg, &st->interval_ns, err);
	kmt_error_set(err, NULL, -1, "unhandled option");
	return -1;
}

static struct kmt_filter *page_filter(void *priv)
{
	return &((struct page_state *)priv)->filter;
}

static void page_free_state(void *priv)
{
	struct page_state *st = priv;
	uint32_t i;

	for (i = 0; i < st->nprocs; i++) {
		free(st->procs[i].comm);
		kmt_page_series_free(&st->procs[i].s);
	}
	kmt_page_series_free(&st->total);
	free(st->procs);
	free(st->gfps);
	free(st->callers);
	free(st->stack_rows);
	kmt_hashmap_free(&st->caller_index);
	kmt_hashmap_free(&st->stack_index);
	kmt_stacks_free(&st->stacks);
	kmt_hashmap_free(&st->frame_cache);
	kmt_hashmap_free(&st->gfp_index);
	kmt_hashmap_free(&st->proc_index);
	kmt_objmap_free(&st->live);
	kmt_page_owner_release(&st->owner);
	kmt_page_recents_free(&st->recent);
	kmt_rollup_release(&st->rollup);
	kmt_filter_free(&st->filter);
	free(st);
}

static void *page_init(void)
{
	struct page_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->lines = -1;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->gfp_index) ||
	    kmt_hashmap_init(&st->proc_index) || kmt_objmap_init(&st->live, sizeof(struct page_block)) ||
	    kmt_page_recents_init(&st->recent) || kmt_hashmap_init(&st->caller_index) ||
	    kmt_hashmap_init(&st->frame_cache) || kmt_hashmap_init(&st->stack_index) ||
	    kmt_stacks_init(&st->stacks)) {
		page_free_state(st);
		return NULL;
	}
	return st;
}

static int page_start(void *priv, const struct kmt_session *s)
{
	struct page_state *st = priv;

	st->reader = s->reader;
	st->session = s;
	st->stacks.session = s;
	st->tep = s->tep;
	st->filter.reader = s->reader;
	st->kernel_version = kmt_kernel_version(kmt_reader_text(s->reader, KMT_TEXT_UNAME));
	st->page_size = tep_get_page_size(s->tep) > 0 ? tep_get_page_size(s->tep) : 4096;
	return kmt_page_owner_load(&st->owner, kmt_reader_text(s->reader, KMT_TEXT_PAGE_OWNER));
}

/*
 * Rows per process are shown by --pid, --live (the process of each block)
 * and --timeline only: kept for those (a workload that spawns 16,000
 * processes makes as many rows).
 */
static bool keeps_proc_rows(const struct page_state *st)
{
	return (st->tables & (PAGE_TABLE_PID | PAGE_TABLE_LIVE)) || st->interval_ns;
}

/* The row of @pid, made if new (named at report time); NULL when out of memory. */
static struct page_proc *proc_of(struct page_state *st, int pid)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->proc_index, (uint32_t)pid, &st->procs, &st->cap_procs,
				     &st->nprocs, sizeof(*st->procs), &made);

	if (i == KMT_HASHMAP_NO_ROW)
		return NULL;
	if (made)
		st->procs[i].pid = pid;
	return &st->procs[i];
}

/* @pid's row into *@p where rows per process are kept, else NULL: 0, or -1 out of memory. */
static int proc_row(struct page_state *st, int pid, struct page_proc **p)
{
	*p = NULL;
	if (!keeps_proc_rows(st))
		return 0;
	*p = proc_of(st, pid);
	return *p ? 0 : -1;
}

static struct page_count *gfp_of(struct page_state *st, uint64_t gfp)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->gfp_index, gfp, &st->gfps, &st->cap_gfps, &st->ngfps,
				     sizeof(*st->gfps), &made);

	if (i == KMT_HASHMAP_NO_ROW)
		return NULL;
	if (made)
		st->gfps[i].gfp = gfp;
	return &st->gfps[i].c;
}

static int order_slot(uint64_t order)
{
	return order < PAGE_ORDERS ? (int)order : PAGE_ORDERS - 1;
}

static int mt_slot(long long mt)
{
	return mt >= 0 && mt < KMT_MIGRATETYPES ? (int)mt : KMT_MIGRATETYPES;
}


/* Move the totals and those of @p (NULL: none kept) by @pages at @ts. 0, or -1 out of memory. */
static int account(struct page_state *st, struct page_proc *p, int64_t pages, uint64_t ts)
{
	return kmt_page_series_set(&st->total, st->total.cur + pages, ts, st) ||
	       (p && kmt_page_series_set(&p->s, p->s.cur + pages, ts, st)) ? -1 : 0;
}

static void counts_alloc(struct page_count *c, uint64_t pages)
{
	c->allocs++;
	c->pages += pages;
	c->live_pages += pages;
}

static void counts_fail(struct page_count *c, uint64_t pages)
{
	(void)pages;
	c->failures++;
}

static void counts_unlive(struct page_count *c, uint64_t pages)
{
	c->live_pages -= pages;
}

/* Apply @fn to the caller and stack rows block @b has. */
static void rows_apply(struct page_state *st, const struct page_block *b,
		       void (*fn)(struct page_count *, uint64_t), uint64_t pages)
{
	if (b->caller != PAGE_NO_CALLER)
		fn(&st->callers[b->caller].c, pages);
	if (b->stack != PAGE_NO_CALLER)
		fn(&st->stack_rows[b->stack].c, pages);
}

/* Stack row @r's live pages grew at @ts: a new peak? */
static void note_stack_peak(struct page_caller *r, uint64_t ts)
{
	if ((int64_t)r->c.live_pages > (int64_t)r->peak_pages) {
		r->peak_pages = r->c.live_pages;
		r->peak_ts = ts;
	}
}

/* A block allocated again before its free was seen: it is no longer live. */
static void drop_replaced(struct page_state *st, const struct page_block *b)
{
	uint64_t pages = 1ull << b->order, idx;

	st->replaced++;
	if (!b->selected)
		return;
	st->orders[b->order].live_pages -= pages;
	st->mts[b->mt].live_pages -= pages;
	if (kmt_hashmap_get(&st->gfp_index, b->gfp, &idx))
		st->gfps[idx].c.live_pages -= pages;
	rows_apply(st, b, counts_unlive, pages);
}

/* 0, or -1 when out of memory. */
static int on_alloc(struct page_state *st, const struct kmt_event *ev, bool sel)
{
	int o = order_slot(ev->order), m = mt_slot(ev->migratetype);
	uint64_t pages = 1ull << (ev->order < 63 ? ev->order : 0);
	struct page_block b = { .ts = ev->ts, .gfp = ev->gfp_flags, .pid = ev->pid,
				.caller = PAGE_NO_CALLER, .stack = PAGE_NO_CALLER, .order = o, .mt = m, .selected = sel };
	struct page_count *g = sel ? gfp_of(st, ev->gfp_flags) : NULL;
	struct page_proc *p = NULL;
	struct page_block *slot;
	bool was_live;

	if (sel && (!g || proc_row(st, ev->pid, &p)))
		return -1;
	if (sel) {
		st->alloc_req++;
		st->alloc_bytes += st->page_size * pages;
		if ((st->tables & PAGE_TABLE_CALLER) && kmt_page_caller_of(st, ev, &b.caller))
			return -1;
		if ((st->tables & PAGE_TABLE_STACK) && kmt_page_stack_of(st, ev, &b.stack))
			return -1;
	}
	if (kmt_event_alloc_failed(ev)) {
		if (sel) {
			st->fail_req++;
			st->fail_bytes += st->page_size * pages;
			st->orders[o].failures++;
			g->failures++;
			rows_apply(st, &b, counts_fail, pages);
		}
		return 0;
	}
	if (!(slot = page_live_cell(&st->live, ev->pfn, &was_live)))
		return -1;
	kmt_page_owner_alloc(&st->owner, ev->pfn);
	if (was_live)
		drop_replaced(st, slot);	/* does not change st->live */
	*slot = b;
	if (!sel)
		return 0;
	st->pages_alloc += pages;
	st->matrix[o][m]++;
	counts_alloc(&st->orders[o], pages);
	counts_alloc(&st->mts[m], pages);
	counts_alloc(g, pages);
	rows_apply(st, &b, counts_alloc, pages);
	if (b.stack != PAGE_NO_CALLER)
		note_stack_peak(&st->stack_rows[b.stack], ev->ts);
	if (p) {
		p->allocs++;
		p->pages_alloc += pages;
	}
	return account(st, p, pages, ev->ts);
}

static void counts_free(struct page_count *c, uint64_t pages)
{
	c->frees++;
	c->pages_freed += pages;
	c->live_pages -= pages;
}

/* 0, or -1 when out of memory. */
static int on_free(struct page_state *st, const struct kmt_event *ev, uint64_t order, bool sel)
{
	uint64_t pages = 1ull << (order < 63 ? order : 0), bytes = st->page_size * pages;
	struct page_proc *p = NULL;
	struct page_block b = { 0 };
	bool found = page_live_take(&st->live, ev->pfn, &b);

	if (!found)
		kmt_page_owner_free(&st->owner, ev->pfn);
	if (!sel)
		return 0;
	if (proc_row(st, ev->pid, &p))
		return -1;
	st->free_req++;
	st->free_bytes += bytes;
	st->pages_freed += pages;
	if (found && b.selected) {
		struct page_count *g = gfp_of(st, b.gfp);

		st->matched_req++;
		st->matched_bytes += bytes;
		counts_free(&st->orders[b.order], pages);
		counts_free(&st->mts[b.mt], pages);
		if (g)
			counts_free(g, pages);
		rows_apply(st, &b, counts_free, pages);
	} else {
		st->nomatch_req++;
		st->nomatch_bytes += bytes;
	}
	if (p) {
		p->frees++;
		p->pages_freed += pages;
	}
	return account(st, p, -(int64_t)pages, ev->ts);
}

/* Without --caller and --stack no event looks up a symbol: the reading thread may take them. */
static bool page_reader_thread_ok(const void *priv)
{
	const struct page_state *st = priv;

	return !(st->tables & (PAGE_TABLE_CALLER | PAGE_TABLE_STACK));
}

static int page_event(void *priv, const struct kmt_event *ev)
{
	struct page_state *st = priv;
	bool sel;

	if (kmt_filter_done(&st->filter, ev))
		return 0;
	sel = kmt_filter_pass(&st->filter, ev);
	if (ev->type == KMT_EV_FORK) {	/* for the vmstat check, not a page event */
		st->forks += sel;
		return 0;
	}
	if (sel) {
		if (!st->started)
			st->first_ts = ev->ts;
		st->started = true;
		st->last_ts = ev->ts;
	}
	switch (ev->type) {
	case KMT_EV_PAGE_ALLOC:
		return on_alloc(st, ev, sel);
	case KMT_EV_PAGE_FREE:
		return kmt_page_recent_note(&st->recent, ev->pid, ev->pfn) ||
		       on_free(st, ev, ev->order, sel) ? -1 : 0;
	case KMT_EV_PAGE_FREE_BATCHED:
		/*
		 * The kernel traces each page freed in a batch twice,
		 * mm_page_free in free_pages_prepare() and then this
		 * (possibly on another CPU; the task is the link), so it is
		 * no free of its own; the report shows how many repeat an
		 * mm_page_free seen in the trace (the others had theirs
		 * before the trace started).
		 */
		st->batched += sel;
		if (kmt_page_recent_take(&st->recent, ev->pid, ev->pfn))
			st->batched_dup += sel;
		break;
	case KMT_EV_PAGE_ALLOC_EXTFRAG:
		st->extfrag += sel;
		break;
	case KMT_EV_PAGE_ALLOC_ZONE_LOCKED:
		st->zone_locked += sel;
		break;
	default:
		st->pcpu_drain += sel;
		break;
	}
	return 0;
}

static const struct kmt_need page_needs[] = {
	{ KMT_EVMASK(KMT_EV_PAGE_ALLOC), "allocations" },
	{ KMT_EVMASK(KMT_EV_PAGE_FREE), "frees: every page would look live" },
	{ 0 }
};

/* --caller on a recording without call stacks: why the table is not there. */
static const char *page_remark(void *priv)
{
	struct page_state *st = priv;
	const char *problem;

	if ((st->tables & PAGE_TABLE_CALLER) && !st->ncallers)
		return "--caller needs call stacks (perf record -g), which this recording "
		       "does not carry; no caller table";
	if (!(st->tables & PAGE_TABLE_CALLER) && kmt_rollup_active(&st->rollup))
		return "--by-dir, --by-module and --branch roll up the caller table (--caller)";
	if ((problem = kmt_rollup_problem(&st->rollup, st->session)))
		return problem;
	if (!(st->tables & PAGE_TABLE_CALLER) || !st->caller_unresolved)
		return NULL;
	snprintf(st->remark, sizeof(st->remark), "--caller: %llu of %llu allocations have "
		 "stack frames without symbols, where allocator frames cannot be told from "
		 "callers (their rows are raw addresses; give --kallsyms or --vmlinux)",
		 (unsigned long long)st->caller_unresolved, (unsigned long long)st->with_caller);
	return st->remark;
}

const struct kmt_analysis kmt_analysis_page = {
	.name = "page",
	.help = "page allocator: perf kmem's page figures, pages per order, migratetype, "
		"GFP and process, over time",
	.usage =
	"  --pid               table per process (pages allocated, freed, net, peak, min)\n"
	"  --order             table per order\n"
	"  --migratetype       table per migratetype\n"
	"  --gfp               table per GFP flags value\n"
	"  --live              pages still allocated at the end, oldest first; and\n"
	"                      those allocated before the recording (page_owner)\n"
	"  --caller            per call site (needs call stacks in the recording)\n"
	KMT_STACK_USAGE
	"  --timeline MS       outstanding pages per MS-millisecond interval, total and\n"
	"                      for the top processes\n"
	"  -s, --sort KEY,...  pages, allocs, frees, live (biggest first), order,\n"
	"                      migratetype, gfp, pid, caller (ascending); keys a table\n"
	"                      does not have are skipped for it\n"
	"  -l, --lines N       at most N rows per table; N processes in --timeline\n"
	"                      (default 5)\n"
	KMT_ROLLUP_USAGE,
	.shortopts = "l:s:",
	.longopts = page_longopts,
	.needs = page_needs,
	.events = KMT_EVMASK(KMT_EV_PAGE_ALLOC) | KMT_EVMASK(KMT_EV_PAGE_FREE) |
		  KMT_EVMASK(KMT_EV_PAGE_FREE_BATCHED) | KMT_EVMASK(KMT_EV_PAGE_ALLOC_EXTFRAG) |
		  KMT_EVMASK(KMT_EV_PAGE_ALLOC_ZONE_LOCKED) | KMT_EVMASK(KMT_EV_PAGE_PCPU_DRAIN) |
		  KMT_EVMASK(KMT_EV_FORK),
	.init = page_init,
	.filter = page_filter,
	.option = page_option,
	.start = page_start,
	.event = page_event,
	.reader_thread_ok_with = page_reader_thread_ok,
	.remark = page_remark,
	.report = kmt_page_report,
	.free = page_free_state,
};
