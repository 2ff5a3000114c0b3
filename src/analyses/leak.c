// SPDX-License-Identifier: LGPL-2.1
/*
 * leak: slab objects and pages still allocated at the end of the
 * recording (or of --time), by call stack (or call site), cache and
 * process, with their age; --older leaves out the young ones, as bcc
 * memleak's -o does, and --interval gives the top outstanding stacks at
 * every interval, as memleak prints them while it runs. An allocation at
 * an address that is still outstanding means the earlier object was freed
 * without an event (kmem_cache_free_bulk, kfree_rcu batches): it is no
 * longer counted, and how many there were is said.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "leak.h"
#include "common/util.h"

enum { OPT_OLDER = 0x100, OPT_INTERVAL, OPT_ALL };

static const struct option leak_longopts[] = {
	{ "older", required_argument, NULL, OPT_OLDER },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "lines", required_argument, NULL, 'l' },
	KMT_ALLOC_FRAMES_LONGOPT,
	{ NULL, 0, NULL, 0 }
};

/* Milliseconds @arg of option @what into *@ns; 0 only when @zero_ok. */
static int parse_ms(const char *arg, const char *what, bool zero_ok, uint64_t *ns, struct kmt_error *err)
{
	long long ms;

	if (kmt_parse_count(arg, what, &ms, err))
		return -1;
	if (!ms && !zero_ok) {
		kmt_error_set(err, NULL, -1, "bad %s '%s': want milliseconds > 0", what, arg);
		return -1;
	}
	*ns = (uint64_t)ms * 1000000;
	return 0;
}

static int leak_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	struct leak_state *st = priv;

	switch (key) {
	case OPT_OLDER:
		return parse_ms(arg, "--older", true, &st->older_ns, err);
	case OPT_INTERVAL:
		return parse_ms(arg, "--interval", false, &st->interval_ns, err);
	case OPT_ALL:
		st->all = true;
		return 0;
	case 'l':
		return kmt_parse_count(arg, "--lines", &st->lines, err);
	case KMT_OPT_ALLOC_FRAMES:
		return kmt_stacks_option(&st->stacks, arg, err);
	}
	kmt_error_set(err, NULL, -1, "unhandled option");
	return -1;
}

static struct kmt_filter *leak_filter(void *priv)
{
	return &((struct leak_state *)priv)->filter;
}

static void leak_free(void *priv)
{
	struct leak_state *st = priv;
	uint32_t i;

	for (i = 0; i < st->ncaches; i++)
		free(st->caches[i]);
	free(st->caches);
	kmt_objslots_free(&st->objects);
	kmt_objmap_free(&st->pages);
	kmt_hashmap_free(&st->cache_index);
	kmt_name_rows_free(&st->cache_rows);
	kmt_hashmap_free(&st->sized_caches);
	kmt_page_owner_release(&st->owner);
	kmt_slab_audit_free(&st->audit);
	kmt_stacks_free(&st->stacks);
	kmt_filter_free(&st->filter);
	free(st->points);
	free(st);
}

static void *leak_init(void)
{
	struct leak_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->lines = -1;
	kmt_objslots_init(&st->objects, sizeof(struct leak_obj));
	if (kmt_filter_init(&st->filter) || kmt_objmap_init(&st->pages, sizeof(struct leak_obj)) ||
	    kmt_hashmap_init(&st->cache_index) || kmt_hashmap_init(&st->sized_caches) ||
	    kmt_stacks_init(&st->stacks) || kmt_slab_audit_init(&st->audit)) {
		leak_free(st);
		return NULL;
	}
	return st;
}

static int leak_start(void *priv, const struct kmt_session *s)
{
	struct leak_state *st = priv;

	st->reader = s->reader;
	st->session = s;
	st->stacks.session = s;
	st->filter.reader = s->reader;
	kmt_cache_namer_init(&st->namer, s->tep);
	st->page_size = s->tep && tep_get_page_size(s->tep) > 0 ? tep_get_page_size(s->tep) : 4096;
	return kmt_page_owner_load(&st->owner, kmt_reader_text(s->reader, KMT_TEXT_PAGE_OWNER));
}

/*
 * The caches[] index of the cache named @name (@len bytes), which the
 * replay numbered @id (0: not), made if new; LEAK_NONE when out of memory.
 */
static uint32_t cache_index(struct leak_state *st, const char *name, size_t len, uint32_t id)
{
	uint64_t key;
	uint32_t idx;

	if (kmt_name_rows_get(&st->cache_rows, name, len, id, &idx))
		return idx;
	idx = kmt_hashmap_name_row_len(&st->cache_index, name, len, st->caches, sizeof(*st->caches),
				       0, &key);
	if (idx == KMT_HASHMAP_NO_ROW) {
		if (kmt_grow(&st->caches, &st->cap_caches, st->ncaches, sizeof(*st->caches)) ||
		    !(st->caches[st->ncaches] = strndup(name, len)) ||
		    kmt_hashmap_put(&st->cache_index, key, st->ncaches))
			return LEAK_NONE;
		idx = st->ncaches++;
	}
	kmt_name_rows_put(&st->cache_rows, st->caches[idx], len, id, idx);
	return idx;
}

/* Sized caches (kmalloc kinds, unnamed caches, page orders) by key: named once. */
enum { SIZED_PAGES = 4, SIZED_UNNAMED = 5 };

/* The cache of allocation @ev of @kind, named only the first time its key comes. */
static uint32_t cache_of(struct leak_state *st, const struct kmt_event *ev, int kind)
{
	char name[128];
	uint64_t key, idx;
	int len;

	if (kind == LEAK_SLAB && !kmt_event_is_kmalloc(ev) && ev->str_len)
		return cache_index(st, ev->str, ev->str_len, ev->str_id);
	key = kind == LEAK_PAGES ? ev->order << 3 | SIZED_PAGES :
	      kmt_event_is_kmalloc(ev) ? ev->bytes_alloc << 3 | kmt_kmalloc_kind(&st->namer, ev) :
	      ev->bytes_alloc << 3 | SIZED_UNNAMED;
	if (kmt_hashmap_find(&st->sized_caches, key, &idx))
		return idx;
	len = kind == LEAK_PAGES ? snprintf(name, sizeof(name), "(pages, order %llu)", ev->order) :
	      kmt_cache_name(&st->namer, ev, name, sizeof(name));
	idx = cache_index(st, name, len < (int)sizeof(name) ? (size_t)len : sizeof(name) - 1, 0);
	if (idx != LEAK_NONE && kmt_hashmap_put(&st->sized_caches, key, idx))
		return LEAK_NONE;
	return idx;
}

/* Outstanding objects of the top stacks at --interval boundary @ts. 0, or -1 when out of memory. */
static int take_point(struct leak_state *st, uint64_t ts)
{
	long top = st->lines >= 0 ? st->lines : LEAK_INTERVAL_TOP, n, i;
	struct leak_group *g;
	int ret = 0;

	n = kmt_leak_groups(st, st->have_stacks ? LEAK_BY_STACK : LEAK_BY_CALLSITE, ts, &g);
	if (n < 0)
		return -1;
	for (i = 0; i < n && i < top && !ret; i++) {
		ret = kmt_grow(&st->points, &st->cap_points, st->npoints, sizeof(*st->points));
		if (!ret)
			st->points[st->npoints++] = (struct leak_point){ .ts = ts, .g = g[i] };
	}
	free(g);
	return ret;
}

/* Boundaries passed before @ts: one point at the first (quiet intervals are not repeated). */
static int pass_boundaries(struct leak_state *st, uint64_t ts)
{
	if (!st->next_boundary)
		st->next_boundary = ts + st->interval_ns;
	if (ts < st->next_boundary)
		return 0;
	if (take_point(st, st->next_boundary))
		return -1;
	st->next_boundary = kmt_boundary_after(st->next_boundary, ts, st->interval_ns);
	return 0;
}

/* 0, or -1 when out of memory. */
static int on_alloc(struct leak_state *st, const struct kmt_event *ev, int kind)
{
	struct leak_obj o = { .ts = ev->ts, .pid = ev->pid, .stack = KMT_STACK_NONE, .kind = kind,
			      .cache = LEAK_NONE, .selected = kmt_filter_pass(&st->filter, ev) };
	uint64_t addr = kind == LEAK_SLAB ? ev->ptr : ev->pfn;
	struct leak_obj *slot;
	bool live;

	if (kmt_event_alloc_failed(ev)) {
		st->failed_allocs[kind] += o.selected;
		return 0;
	}
	/* st->objects and st->pages do not change until *slot is set */
	slot = kind == LEAK_SLAB ? leak_object_cell(&st->objects, ev->obj, &live) :
				   leak_page_cell(&st->pages, addr, &live);
	if (!slot)
		return -1;
	if (kind == LEAK_PAGES)
		kmt_page_owner_alloc(&st->owner, addr);
	if (live && slot->selected) {
		if (kind == LEAK_SLAB && kmt_slab_audit_reuse(&st->audit, slot->cache))
			return -1;
		st->reused[kind]++;
		st->reused_bytes[kind] += slot->bytes;
	}
	if (o.selected) {
		if (kind == LEAK_SLAB) {
			o.bytes = ev->bytes_alloc;
			o.call_site = ev->call_site;
		} else {
			o.bytes = st->page_size << (ev->order < 32 ? ev->order : 0);
		}
		o.cache = cache_of(st, ev, kind);
		if (ev->callchain_nr) {
			st->have_stacks = true;
			if (kmt_stacks_intern(&st->stacks, ev->callchain, ev->callchain_nr, &o.stack))
				return -1;
		}
		if (o.cache == LEAK_NONE ||
		    (kind == LEAK_SLAB && kmt_slab_audit_alloc(&st->audit, o.cache)))
			return -1;
	}
	*slot = o;
	return 0;
}

/* 0, or -1 when out of memory. */
static int on_free(struct leak_state *st, const struct kmt_event *ev, int kind)
{
	uint64_t addr = kind == LEAK_SLAB ? ev->ptr : ev->pfn;
	struct leak_obj o;

	if (kmt_event_frees_nothing(ev))
		return 0;
	if (kind == LEAK_SLAB ? leak_object_take(&st->objects, ev->obj, &o) :
				leak_page_take(&st->pages, addr, &o))
		return kind == LEAK_SLAB && o.selected ?
		       kmt_slab_audit_free_seen(&st->audit, o.cache) : 0;
	if (ev->type == KMT_EV_PAGE_FREE)
		kmt_page_owner_free(&st->owner, addr);
	/* A batched free may repeat a page mm_page_free gave already: not unseen. */
	if (ev->type == KMT_EV_PAGE_FREE_BATCHED || !kmt_filter_pass(&st->filter, ev))
		return 0;
	st->unseen_frees[kind]++;
	if (kind != LEAK_SLAB)
		return 0;
	return kmt_slab_audit_free_unseen(&st->audit, ev->type == KMT_EV_CACHE_FREE ? ev->str : NULL,
					  ev->str_len);
}

static int leak_event(void *priv, const struct kmt_event *ev)
{
	struct leak_state *st = priv;

	if (kmt_filter_done(&st->filter, ev))
		return 0;
	if (st->interval_ns && pass_boundaries(st, ev->ts))
		return -1;
	st->last_ts = ev->ts;
	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_KMALLOC_NODE:
	case KMT_EV_CACHE_ALLOC:
	case KMT_EV_CACHE_ALLOC_NODE:
		return on_alloc(st, ev, LEAK_SLAB);
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		return on_free(st, ev, LEAK_SLAB);
	case KMT_EV_PAGE_ALLOC:
		return on_alloc(st, ev, LEAK_PAGES);
	case KMT_EV_PAGE_FREE:
	case KMT_EV_PAGE_FREE_BATCHED:
		return on_free(st, ev, LEAK_PAGES);
	default:
		return 0;	/* only its time: the end of the recording is the last event */
	}
}

/* Said once: what the grouping could not do. */
static const char *leak_remark(void *priv)
{
	struct leak_state *st = priv;

	if (st->have_stacks || !(st->objects.n || st->pages.n))
		return NULL;
	snprintf(st->remark, sizeof(st->remark), "the recording carries no call stacks "
		 "(kmtrace record -g, perf record -g): outstanding objects are grouped by call "
		 "site (pages have none)");
	return st->remark;
}

#define LEAK_ALLOCS	(KMT_EVMASK_SLAB_ALLOCS | KMT_EVMASK(KMT_EV_PAGE_ALLOC))
#define LEAK_FREES	(KMT_EVMASK_SLAB_FREES | KMT_EVMASK(KMT_EV_PAGE_FREE) | \
			 KMT_EVMASK(KMT_EV_PAGE_FREE_BATCHED))

static const struct kmt_need leak_needs[] = {
	{ LEAK_ALLOCS, "allocations" },
	{ LEAK_FREES, "frees: every allocation would look outstanding" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_leak = {
	.name = "leak",
	.help = "slab objects and pages still allocated at the end, by stack, cache, process",
	.usage =
	"  --older MS          only what has been outstanding at least MS milliseconds\n"
	"  --interval MS       also the top outstanding stacks at every MS milliseconds\n"
	"                      (intervals without events are not repeated)\n"
	"  -l, --lines N       at most N rows per table (--interval: per interval, 10)\n"
	"  --all               keep caches whose frees the kernel does not trace (bulk\n"
	"                      and RCU frees; see slab's /proc/slabinfo check)\n"
	KMT_ALLOC_FRAMES_USAGE,
	.shortopts = "l:",
	.longopts = leak_longopts,
	.needs = leak_needs,
	.slab_objects = true,
	.events = KMT_EVMASK_ALL,	/* the others for their time: the end, --interval */
	.types_only = ~(LEAK_ALLOCS | LEAK_FREES),
	.init = leak_init,
	.filter = leak_filter,
	.option = leak_option,
	.start = leak_start,
	.event = leak_event,
	.remark = leak_remark,
	.report = kmt_leak_report,
	.free = leak_free,
};
