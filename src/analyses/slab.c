// SPDX-License-Identifier: LGPL-2.1
/*
 * slab: pairs kmalloc/kmem_cache_alloc with kfree/kmem_cache_free by
 * pointer; totals, waste and live memory per call site, cache, process and
 * pointer. Memory follows live objects and distinct keys, not events.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slab.h"
#include "common/util.h"

enum {
	OPT_CALLER = 0x100, OPT_ALLOC, OPT_CACHE, OPT_PID, OPT_RAW_IP, OPT_KMALLOC_ONLY,
	OPT_CACHE_ONLY, OPT_TIMELINE,
};

static const struct option slab_longopts[] = {
	{ "caller", no_argument, NULL, OPT_CALLER },
	{ "alloc", no_argument, NULL, OPT_ALLOC },
	{ "cache", no_argument, NULL, OPT_CACHE },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "raw-ip", no_argument, NULL, OPT_RAW_IP },
	{ "sort", required_argument, NULL, 's' },
	{ "lines", required_argument, NULL, 'l' },
	{ "kmalloc-only", no_argument, NULL, OPT_KMALLOC_ONLY },
	{ "cache-only", no_argument, NULL, OPT_CACHE_ONLY },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	KMT_ROLLUP_LONGOPTS,
	KMT_STACK_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

static int slab_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	struct slab_opts *o = &((struct slab_state *)priv)->o;

	if (kmt_rollup_is_option(key))
		return kmt_rollup_option(&o->rollup, key, arg, err);
	switch (key) {
	case KMT_OPT_STACK:
		o->tables |= SLAB_TABLE_STACK;
		return 0;
	case KMT_OPT_ALLOC_FRAMES:
		return kmt_stacks_option(&((struct slab_state *)priv)->stacks, arg, err);
	case OPT_CALLER:
		o->tables |= SLAB_TABLE_CALLER;
		return 0;
	case OPT_ALLOC:
		o->tables |= SLAB_TABLE_ALLOC;
		return 0;
	case OPT_CACHE:
		o->tables |= SLAB_TABLE_CACHE;
		return 0;
	case OPT_PID:
		o->tables |= SLAB_TABLE_PID;
		return 0;
	case OPT_RAW_IP:
		o->raw_ip = true;
		return 0;
	case OPT_KMALLOC_ONLY:
		o->kmalloc_only = true;
		return 0;
	case OPT_CACHE_ONLY:
		o->cache_only = true;
		return 0;
	case 's':
		return kmt_slab_parse_sort(o, arg, err);
	case 'l':
		return kmt_parse_count(arg, "--lines", &o->lines, err);
	case OPT_TIMELINE:
		return kmt_parse_interval_ms(arg, &o->timeline_ns, err);
	}
	kmt_error_set(err, NULL, -1, "unhandled option");
	return -1;
}

/* What a rollup option cannot do on this recording, said once. */
static const char *slab_remark(void *priv)
{
	const struct slab_state *st = priv;

	if (!(st->o.tables & SLAB_TABLE_CALLER) && kmt_rollup_active(&st->o.rollup))
		return "--by-dir, --by-module and --branch roll up the call-site table (--caller)";
	return kmt_rollup_problem(&st->o.rollup, st->session);
}

static struct kmt_filter *slab_filter(void *priv)
{
	return &((struct slab_state *)priv)->o.filter;
}

static void group_free(struct slab_group *g)
{
	uint32_t i;

	for (i = 0; i < g->n; i++)
		free(g->rows[i].name);
	free(g->rows);
	kmt_hashmap_free(&g->index);
}

static void slab_free(void *priv)
{
	struct slab_state *st = priv;

	group_free(&st->callers);
	group_free(&st->caches);
	group_free(&st->pids);
	group_free(&st->ptrs);
	group_free(&st->stack_rows);
	kmt_stacks_free(&st->stacks);
	kmt_hashmap_free(&st->kmalloc_caches);
	kmt_hashmap_free(&st->unnamed_caches);
	kmt_name_rows_free(&st->cache_rows);
	kmt_objslots_free(&st->live);
	kmt_slab_audit_free(&st->audit);
	free(st->cpu_node);
	free(st->points);
	kmt_filter_free(&st->o.filter);
	kmt_rollup_release(&st->o.rollup);
	free(st);
}

static void *slab_init(void)
{
	struct slab_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->o.lines = -1;
	kmt_objslots_init(&st->live, sizeof(struct slab_obj));
	if (kmt_filter_init(&st->o.filter) || kmt_hashmap_init(&st->callers.index) || kmt_hashmap_init(&st->caches.index) ||
	    kmt_hashmap_init(&st->pids.index) || kmt_hashmap_init(&st->ptrs.index) ||
	    kmt_hashmap_init(&st->stack_rows.index) || kmt_stacks_init(&st->stacks) ||
	    kmt_hashmap_init(&st->kmalloc_caches) || kmt_hashmap_init(&st->unnamed_caches) ||
	    kmt_slab_audit_init(&st->audit)) {
		slab_free(st);
		return NULL;
	}
	return st;
}

#define CACHE_LINE	64

/*
 * The node of each CPU of @r into st->cpu_node, on cache lines no other
 * heap block shares (a block the reading thread writes there would take
 * the line away at each read). 0, or -1 when out of memory.
 */
static int copy_cpu_nodes(struct slab_state *st, struct kmt_reader *r)
{
	int cpu, n = kmt_reader_cpus(r);
	size_t lines;

	if (n <= 0)
		return 0;
	lines = ((size_t)n * sizeof(*st->cpu_node) + CACHE_LINE - 1) / CACHE_LINE;
	st->cpu_node = aligned_alloc(CACHE_LINE, lines * CACHE_LINE);
	if (!st->cpu_node)
		return -1;
	for (cpu = 0; cpu < n; cpu++)
		st->cpu_node[cpu] = kmt_reader_cpu_node(r, cpu);
	st->ncpu_node = n;
	return 0;
}

static int slab_start(void *priv, const struct kmt_session *s)
{
	struct slab_state *st = priv;

	if (!st->o.tables)
		st->o.tables = SLAB_TABLE_CALLER;
	if (!st->o.nsort)
		st->o.sort[st->o.nsort++] = SORT_BYTES;
	st->reader = s->reader;
	st->session = s;
	st->stacks.session = s;
	st->o.filter.reader = s->reader;
	kmt_cache_namer_init(&st->namer, s->tep);
	return kmt_reader_cpu_node(s->reader, 0) >= 0 ? copy_cpu_nodes(st, s->reader) : 0;
}

/* The row of @key in @g, made if new; SLAB_NO_ROW when out of memory. */
static uint32_t group_row(struct slab_group *g, uint64_t key, bool *made)
{
	uint32_t row = kmt_hashmap_row(&g->index, key, &g->rows, &g->cap, &g->n,
				       sizeof(*g->rows), made);

	if (row == KMT_HASHMAP_NO_ROW)
		return SLAB_NO_ROW;
	g->rows[row].key = key;
	return row;
}

/*
 * Row of the cache named @name (@len bytes), which the replay numbered @id
 * (0: not), made if new; SLAB_NO_ROW when out of memory.
 */
static uint32_t named_cache_row(struct slab_state *st, const char *name, int len, uint32_t id)
{
	struct slab_group *g = &st->caches;
	uint64_t key;
	uint32_t row;
	bool made;
	char *kept;

	if (kmt_name_rows_get(&st->cache_rows, name, len, id, &row))
		return row;
	row = kmt_hashmap_name_row_len(&g->index, name, len, g->rows, sizeof(*g->rows),
				       offsetof(struct slab_row, name), &key);
	if (row == KMT_HASHMAP_NO_ROW) {
		if (!(kept = strndup(name, len)))
			return SLAB_NO_ROW;
		row = group_row(g, key, &made);
		if (row == SLAB_NO_ROW) {
			free(kept);
			return row;
		}
		g->rows[row].name = kept;
	}
	kmt_name_rows_put(&st->cache_rows, g->rows[row].name, len, id, row);
	return row;
}

/* Row of the cache @key of @by_size: @ev's, named when new. */
static uint32_t sized_cache_row(struct slab_state *st, struct kmt_hashmap *by_size,
				uint64_t key, const struct kmt_event *ev)
{
	char name[96];
	uint64_t row;
	int len;

	if (kmt_hashmap_get(by_size, key, &row))
		return row;
	len = kmt_cache_name(&st->namer, ev, name, sizeof(name));
	row = named_cache_row(st, name, len < (int)sizeof(name) ? len : (int)sizeof(name) - 1, 0);
	if (row != SLAB_NO_ROW && kmt_hashmap_put(by_size, key, row))
		return SLAB_NO_ROW;
	return row;
}

static uint32_t cache_row(struct slab_state *st, const struct kmt_event *ev)
{
	if (kmt_event_is_kmalloc(ev))
		return sized_cache_row(st, &st->kmalloc_caches, ev->bytes_alloc << 2 |
				       (uint64_t)kmt_kmalloc_kind(&st->namer, ev), ev);
	if (ev->str_len)
		return named_cache_row(st, ev->str, ev->str_len, ev->str_id);
	return sized_cache_row(st, &st->unnamed_caches, ev->bytes_alloc, ev);
}

/* Does @ev pass the kind, time, pid and comm filters? */
static bool selected(struct slab_state *st, const struct kmt_event *ev)
{
	if ((st->o.kmalloc_only && !kmt_event_is_kmalloc(ev)) ||
	    (st->o.cache_only && kmt_event_is_kmalloc(ev)))
		return false;
	return kmt_filter_pass(&st->o.filter, ev);
}

static void stat_add(struct slab_stat *s, const struct slab_obj *o)
{
	s->alloc += o->bytes_alloc;
	s->req += o->bytes_req;
	s->hits++;
	s->live_bytes += o->bytes_alloc;
	s->live_req += o->bytes_req;
	s->live_objs++;
	if (s->live_bytes > s->max_live)
		s->max_live = s->live_bytes;
}

static void stat_release(struct slab_stat *s, const struct slab_obj *o)
{
	s->live_bytes -= o->bytes_alloc;
	s->live_req -= o->bytes_req;
	s->live_objs--;
}

static void stat_free_obj(struct slab_stat *s, const struct slab_obj *o, bool pingpong)
{
	stat_release(s, o);
	s->frees++;
	s->pingpong += pingpong;
}

/* Apply @fn to the totals and every row @o belongs to (inlined: @fn is known at each call). */
static inline __attribute__((always_inline)) void
for_obj_stats(struct slab_state *st, const struct slab_obj *o,
	      void (*fn)(struct slab_stat *, const struct slab_obj *, bool), bool arg)
{
	fn(&st->total, o, arg);
	fn(&st->callers.rows[o->caller].st, o, arg);
	fn(&st->caches.rows[o->cache].st, o, arg);
	if (o->pid != SLAB_NO_ROW)
		fn(&st->pids.rows[o->pid].st, o, arg);
	if (o->ptr != SLAB_NO_ROW)
		fn(&st->ptrs.rows[o->ptr].st, o, arg);
	if (o->stack != SLAB_NO_ROW)
		fn(&st->stack_rows.rows[o->stack].st, o, arg);
}

static void add_fn(struct slab_stat *s, const struct slab_obj *o, bool unused)
{
	(void)unused;
	stat_add(s, o);
}

static void release_fn(struct slab_stat *s, const struct slab_obj *o, bool unused)
{
	(void)unused;
	stat_release(s, o);
}

static void note_node(struct slab_state *st, const struct kmt_event *ev)
{
	int cpu_node;

	if (!(ev->flags & KMT_EVF_HAS_NODE))
		return;
	st->node_allocs++;
	if (!st->cpu_node)
		cpu_node = 0;
	else
		cpu_node = ev->cpu >= 0 && ev->cpu < st->ncpu_node ? st->cpu_node[ev->cpu] : -1;
	if (ev->node >= 0 && ev->node != cpu_node)
		st->cross_node++;
}

/*
 * Rows per process are shown by the --pid table and --timeline only: kept
 * for those (a workload that spawns 16,000 processes makes as many rows).
 */
static bool keeps_pid_rows(const struct slab_state *st)
{
	return (st->o.tables & SLAB_TABLE_PID) || st->o.timeline_ns;
}

/* Find or make the rows of a selected allocation; false when out of memory. */
static bool obj_rows(struct slab_state *st, const struct kmt_event *ev, struct slab_obj *o)
{
	bool made;

	o->caller = group_row(&st->callers, ev->call_site, &made);
	o->cache = cache_row(st, ev);
	o->pid = o->ptr = o->stack = SLAB_NO_ROW;
	if (keeps_pid_rows(st)) {	/* named at report time */
		o->pid = group_row(&st->pids, (uint32_t)ev->pid, &made);
		if (o->pid == SLAB_NO_ROW)
			return false;
	}
	if (st->o.tables & SLAB_TABLE_STACK) {
		uint32_t id;

		if (kmt_stacks_intern(&st->stacks, ev->callchain, ev->callchain_nr, &id))
			return false;
		o->stack = group_row(&st->stack_rows, id, &made);
		if (o->stack == SLAB_NO_ROW)
			return false;
	}
	if (st->o.tables & SLAB_TABLE_ALLOC) {
		o->ptr = group_row(&st->ptrs, ev->ptr, &made);
		if (o->ptr == SLAB_NO_ROW)
			return false;
		st->ptrs.rows[o->ptr].callsite = ev->call_site;
	}
	return o->caller != SLAB_NO_ROW && o->cache != SLAB_NO_ROW;
}

/* Add @o, allocated at @ts, to its rows; a stack row that passes its peak notes when. */
static void add_obj(struct slab_state *st, const struct slab_obj *o, uint64_t ts)
{
	struct slab_row *stack = o->stack != SLAB_NO_ROW ? &st->stack_rows.rows[o->stack] : NULL;
	uint64_t peak = stack ? stack->st.max_live : 0;

	for_obj_stats(st, o, add_fn, false);
	if (stack && stack->st.max_live != peak)
		stack->max_live_ts = ts;
}

/* 0, or -1 when out of memory. */
static int on_alloc(struct slab_state *st, const struct kmt_event *ev)
{
	struct slab_obj o = { .bytes_alloc = ev->bytes_alloc, .bytes_req = ev->bytes_req,
			      .cpu = ev->cpu };
	struct slab_obj *slot;
	bool live;

	o.selected = selected(st, ev);
	if (kmt_event_alloc_failed(ev)) {
		st->allocs_failed += o.selected;
		return 0;
	}
	/* st->live does not change until *slot is set */
	if (!(slot = slab_live_cell(&st->live, ev->obj, &live)))
		return -1;
	if (live && slot->selected) {
		/* Its free was not seen (lost, or a bulk free that is not traced). */
		for_obj_stats(st, slot, release_fn, false);
		if (kmt_slab_audit_reuse(&st->audit, slot->cache))
			return -1;
		st->replaced++;
		st->replaced_bytes += slot->bytes_alloc;
	}
	if (o.selected) {
		if (!obj_rows(st, ev, &o))
			return -1;
		add_obj(st, &o, ev->ts);
		if (kmt_slab_audit_alloc(&st->audit, o.cache))
			return -1;
		note_node(st, ev);
		if (st->total.live_bytes > st->peak_live) {
			st->peak_live = st->total.live_bytes;
			st->peak_ts = ev->ts;
		}
	}
	*slot = o;
	return 0;
}

/* 0, or -1 when out of memory. */
static int on_free(struct slab_state *st, const struct kmt_event *ev)
{
	struct slab_obj o;

	if (kmt_event_frees_nothing(ev)) {
		st->frees_null += selected(st, ev);
		return 0;
	}
	if (!slab_live_take(&st->live, ev->obj, &o)) {
		if (!selected(st, ev))
			return 0;
		st->frees_unmatched++;
		return kmt_slab_audit_free_unseen(&st->audit, ev->type == KMT_EV_CACHE_FREE ?
						  ev->str : NULL, ev->str_len);
	}
	if (!o.selected)
		return 0;
	if (kmt_slab_audit_free_seen(&st->audit, o.cache))
		return -1;
	for_obj_stats(st, &o, stat_free_obj, o.cpu != ev->cpu);
	st->freed_bytes += o.bytes_alloc;
	return 0;
}

static int slab_event(void *priv, const struct kmt_event *ev)
{
	struct slab_state *st = priv;

	if (kmt_filter_done(&st->o.filter, ev))
		return 0;
	if (st->o.timeline_ns && kmt_slab_tick(st, ev->ts))
		return -1;
	if (ev->type == KMT_EV_KFREE || ev->type == KMT_EV_CACHE_FREE)
		return on_free(st, ev);
	return on_alloc(st, ev);
}

static const struct kmt_need slab_needs[] = {
	{ KMT_EVMASK_SLAB_ALLOCS, "allocations" },
	{ KMT_EVMASK_SLAB_FREES, "frees: every allocation would look live" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_slab = {
	.name = "slab",
	.help = "slab allocations: waste and live memory per call site, cache, pid, pointer",
	.usage =
	"  --caller            table per call site (the default table)\n"
	"  --alloc             table per pointer\n"
	"  --cache             table per slab cache\n"
	"  --pid               table per process\n"
	"  --raw-ip            call sites as addresses, not func+0xOFF [module]\n"
	KMT_STACK_USAGE
	"  -s, --sort KEY,...  bytes (default), req, hit, frag, pingpong, live, waste,\n"
	"                      maxlive, callsite, ptr, cache, pid\n"
	"  -l, --lines N       at most N rows per table\n"
	"  --kmalloc-only      only kmalloc/kfree\n"
	"  --cache-only        only kmem_cache_alloc/kmem_cache_free\n"
	"  --timeline MS       live bytes per MS-millisecond interval, total and per\n"
	"                      process (the -l with most at their peak)\n"
	KMT_ROLLUP_USAGE,
	.shortopts = "s:l:",
	.longopts = slab_longopts,
	.needs = slab_needs,
	.slab_objects = true,
	.events = KMT_EVMASK_SLAB_ALLOCS | KMT_EVMASK_SLAB_FREES,
	.init = slab_init,
	.filter = slab_filter,
	.option = slab_option,
	.start = slab_start,
	.event = slab_event,
	.report = kmt_slab_report,
	.remark = slab_remark,
	.free = slab_free,
};
