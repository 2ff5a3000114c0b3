// SPDX-License-Identifier: LGPL-2.1
/*
 * umem: the C library allocations of record --user, per process and per
 * caller. Each thread's allocator calls wait for their returns; a call made
 * inside another (glibc's realloc(NULL, n) calls malloc) is not counted
 * again. Live objects are followed by process and pointer, so that frees
 * and reallocs find what they end, and what is left at the end is the
 * leak table.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "umem.h"
#include "common/heaprec.h"
#include "common/util.h"

enum { OPT_TIMELINE = 0x100 };

static const struct option umem_longopts[] = {
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "lines", required_argument, NULL, 'l' },
	{ NULL, 0, NULL, 0 }
};

/* One key for a pointer of a process: pointers repeat across address spaces. */
static uint64_t proc_key(int tgid, uint64_t v)
{
	uint64_t h = v ^ ((uint64_t)(uint32_t)tgid * 0x9e3779b97f4a7c15ull);

	h ^= h >> 31;
	return h * 0xbf58476d1ce4e5b9ull;
}

/* Index of the item @key in @map, made with @make(@st, @arg) when new; UINT32_MAX: no memory. */
static uint32_t row_of(struct umem_state *st, struct kmt_hashmap *map, uint64_t key,
		       uint32_t (*make)(struct umem_state *st, int tgid, uint64_t arg), int tgid,
		       uint64_t arg)
{
	uint64_t idx;
	uint32_t row;

	if (kmt_hashmap_find(map, key, &idx))
		return (uint32_t)idx;
	row = make(st, tgid, arg);
	return row == UINT32_MAX || kmt_hashmap_put(map, key, row) ? UINT32_MAX : row;
}

static uint32_t make_thread(struct umem_state *st, int tid, uint64_t unused)
{
	(void)unused;
	if (kmt_grow(&st->threads, &st->cap_threads, st->nthreads, sizeof(*st->threads)))
		return UINT32_MAX;
	st->threads[st->nthreads] = (struct umem_thread){
		.tgid = st->reader ? kmt_reader_tgid(st->reader, tid) : tid, .proc = UINT32_MAX };
	return st->nthreads++;
}

static uint32_t make_proc(struct umem_state *st, int tgid, uint64_t unused)
{
	(void)unused;
	if (kmt_grow(&st->procs, &st->cap_procs, st->nprocs, sizeof(*st->procs)))
		return UINT32_MAX;
	st->procs[st->nprocs] = (struct umem_proc){ .tgid = tgid };
	return st->nprocs++;
}

static uint32_t make_caller(struct umem_state *st, int tgid, uint64_t addr)
{
	if (kmt_grow(&st->callers, &st->cap_callers, st->ncallers, sizeof(*st->callers)))
		return UINT32_MAX;
	st->callers[st->ncallers] = (struct umem_caller){ .tgid = tgid, .addr = addr };
	return st->ncallers++;
}

/* The size asked for by the call in @f. */
static uint64_t requested(const struct umem_frame *f)
{
	switch (f->func) {
	case KMT_UF_CALLOC:
		return f->a[1] && f->a[0] > UINT64_MAX / f->a[1] ? UINT64_MAX : f->a[0] * f->a[1];
	case KMT_UF_REALLOC:
	case KMT_UF_MEMALIGN:
		return f->a[1];
	case KMT_UF_POSIX_MEMALIGN:
		return f->a[2];
	default:
		return f->a[0];
	}
}

/*
 * End the live object @ptr of @p; *@ended: the objects it stood for, 0
 * when there is none. 0, or -1 when out of memory.
 */
static int end_object(struct umem_state *st, struct umem_proc *p, uint64_t ptr, uint64_t *ended)
{
	uint64_t key = proc_key(p->tgid, ptr);
	struct umem_obj o;

	*ended = 0;
	if (!umem_obj_take(&st->objs, key, &o))
		return 0;
	if (o.ptr != ptr || o.tgid != p->tgid)	/* another's key: put it back */
		return umem_obj_put(&st->objs, key, &o);
	p->live_bytes -= o.size;
	p->live_objs -= o.n;
	st->callers[o.caller].live_bytes -= o.size;
	st->callers[o.caller].live_objs -= o.n;
	if (o.stack != UINT32_MAX) {
		st->stacks[o.stack].live_bytes -= o.size;
		st->stacks[o.stack].live_objs -= o.n;
	}
	*ended = o.n;
	return 0;
}

/* These take a call or its return: 0, or -1 when out of memory. */

static int free_pointer(struct umem_state *st, struct umem_proc *p, uint64_t ptr)
{
	uint64_t ended;

	if (!ptr)
		return 0;
	if (end_object(st, p, ptr, &ended))
		return -1;
	if (!ended)
		p->untracked_frees++;	/* allocated before the recording, or left out */
	return 0;
}

/* What object @o (live or not) of @p adds to the bytes asked for. */
static void count_bytes(struct umem_state *st, struct umem_proc *p, const struct umem_obj *o)
{
	p->requested += o->size;
	st->callers[o->caller].bytes += o->size;
	if (o->stack != UINT32_MAX)
		st->stacks[o->stack].bytes += o->size;
}

/* Object @o of @p is live from now on. 0, or -1 when out of memory. */
static int keep_object(struct umem_state *st, struct umem_proc *p, const struct umem_obj *o)
{
	uint64_t ended;

	/* still live: its free was not seen */
	if (end_object(st, p, o->ptr, &ended) ||
	    umem_obj_put(&st->objs, proc_key(p->tgid, o->ptr), o))
		return -1;
	count_bytes(st, p, o);
	p->live_bytes += o->size;
	p->live_objs += o->n;
	if (p->live_bytes > p->peak_bytes) {
		p->peak_bytes = p->live_bytes;
		p->peak_ts = o->ts;
	}
	st->callers[o->caller].live_bytes += o->size;
	st->callers[o->caller].live_objs += o->n;
	if (o->stack != UINT32_MAX) {
		st->stacks[o->stack].live_bytes += o->size;
		st->stacks[o->stack].live_objs += o->n;
	}
	return 0;
}

/* The outermost call @f of process @p returned @ret. */
static int on_allocated(struct umem_state *st, struct umem_proc *p, const struct umem_frame *f,
			uint64_t ret, uint64_t ts)
{
	uint32_t c = row_of(st, &st->caller_of, proc_key(p->tgid, f->caller), make_caller,
			    p->tgid, f->caller);
	uint64_t size = requested(f);

	if (c == UINT32_MAX)
		return -1;
	st->callers[c].calls++;
	if (!ret) {
		if (f->func == KMT_UF_REALLOC && !size)
			return free_pointer(st, p, f->a[0]);	/* realloc(p, 0) frees p */
		if (size) {
			p->failed++;
			st->callers[c].failed++;
		}
		return 0;
	}
	if (f->func == KMT_UF_REALLOC && free_pointer(st, p, f->a[0]))
		return -1;
	return keep_object(st, p, &(struct umem_obj){ ret, size, ts, 1, c, UINT32_MAX, p->tgid });
}

/*
 * The objects and bytes a sample of @size bytes stands for, taken with
 * mean @interval bytes between samples: it was taken with chance
 * 1 - exp(-size / interval), so it counts as the inverse of that many
 * (unbiased; exact, 1 and its size, at an interval of 1). Objects come in
 * whole numbers: what rounding leaves is carried in @c to its next sample,
 * so that its sums stay within one of the weights' (rounding each alone
 * would count a sample of 4.5 as 5, every time).
 */
static void sample_weight(struct umem_caller *c, uint64_t size, uint64_t interval, uint64_t *n,
			  uint64_t *bytes)
{
	double chance = interval > 1 ? -expm1(-(double)size / (double)interval) : 1;
	double objects;

	if (chance >= 1 - 1e-12 || chance <= 0) {	/* every call, large, or empty */
		*n = 1;
		*bytes = size;
		return;
	}
	objects = 1 / chance + c->carry;
	*n = (uint64_t)floor(objects + 0.5);
	c->carry = objects - (double)*n;
	*bytes = llround((double)size / chance);
}

/* The allocation half of sampled record @ev of process @p. 0, or -1 out of memory. */
static int on_sample_alloc(struct umem_state *st, struct umem_proc *p, const struct kmt_event *ev)
{
	uint32_t c = row_of(st, &st->caller_of, proc_key(p->tgid, ev->call_site), make_caller,
			    p->tgid, ev->call_site);
	struct umem_obj o = { ev->ptr, 0, ev->ts, 0, c, UINT32_MAX, p->tgid };

	if (c == UINT32_MAX ||
	    (ev->str_len && (o.stack = kmt_umem_stack_row(st, p->tgid, ev)) == UINT32_MAX))
		return -1;
	if (o.stack != UINT32_MAX)
		st->stacks[o.stack].caller = c;
	sample_weight(&st->callers[c], ev->bytes_req, ev->arg[1], &o.n, &o.size);
	p->calls[ev->func] += o.n;
	st->callers[c].calls += o.n;
	if (o.stack != UINT32_MAX)
		st->stacks[o.stack].calls += o.n;
	if (!ev->ptr) {
		if (ev->bytes_req) {	/* realloc(p, 0) returning NULL freed p */
			p->failed += o.n;
			st->callers[c].failed += o.n;
		}
		return 0;
	}
	if (ev->arg[2] & KMT_HEAP_UNFOLLOWED) {	/* its free will not come: not kept live */
		st->unfollowed++;
		count_bytes(st, p, &o);
		return 0;
	}
	return keep_object(st, p, &o);
}

/* A record of the library's exact counts per call site (KMT_HEAP_SITES) of @p. */
static int on_sites(struct umem_state *st, struct umem_proc *p, const struct kmt_event *ev)
{
	int i;

	for (i = 0; i < ev->str_len / (8 * KMT_HEAP_SITE_WORDS); i++) {
		struct kmt_heap_site site = kmt_event_heap_site(ev, i);
		uint32_t c;

		if (site.func >= KMT_UF_NR)
			continue;
		p->site_calls[site.func] += site.calls;
		if (site.func == KMT_UF_FREE)
			continue;
		p->site_bytes += site.bytes;
		if (!site.addr) {
			p->apart_calls += site.calls;
			continue;
		}
		c = row_of(st, &st->caller_of, proc_key(p->tgid, site.addr), make_caller, p->tgid,
			   site.addr);
		if (c == UINT32_MAX)
			return -1;
		st->callers[c].site_calls += site.calls;
		st->callers[c].site_bytes += site.bytes;
	}
	/* allocations before an exec: that image's counts went with it */
	if ((ev->ptr & KMT_HEAP_SITES_START) && (p->sampled || p->whole))
		p->image_lost = true;
	if (ev->ptr & KMT_HEAP_SITES_FINAL)
		p->whole = !p->image_lost;
	p->user = p->sampled = true;
	return 0;
}

/*
 * A record of libkmtrace-heap.so (record --user-sample): what it freed,
 * then what it allocated (a realloc may give the same pointer back); or
 * its exact counts.
 */
static int on_sample(struct umem_state *st, struct umem_proc *p, const struct kmt_event *ev)
{
	bool every = ev->arg[1] <= 1;
	uint64_t ended;

	if (ev->arg[2] == KMT_HEAP_SITES)
		return on_sites(st, p, ev);
	p->user = true;
	p->sampled |= !every;
	st->samples++;
	if (ev->arg[1] > st->interval)
		st->interval = ev->arg[1];
	if (ev->arg[2] & KMT_HEAP_FREE) {
		if (end_object(st, p, ev->arg[0], &ended))
			return -1;
		if (ev->func == KMT_UF_FREE)
			p->calls[KMT_UF_FREE] += every ? 1 : ended;
		if (ev->arg[0] && !ended)
			p->untracked_frees++;	/* allocated before the recording */
	}
	return (ev->arg[2] & KMT_HEAP_ALLOC) ? on_sample_alloc(st, p, ev) : 0;
}

static int on_call(struct umem_state *st, struct umem_thread *t, struct umem_proc *p,
		    const struct kmt_event *ev)
{
	struct umem_frame f = { { ev->arg[0], ev->arg[1], ev->arg[2] }, ev->call_site, ev->ts,
				(uint8_t)ev->func, t->depth > 0 };

	if (f.nested) {
		st->nested++;
	} else {
		p->calls[f.func]++;
		if (f.func == KMT_UF_FREE && free_pointer(st, p, f.a[0]))
			return -1;
		if (f.func == KMT_UF_POSIX_MEMALIGN)
			st->unknown_pointers++;	/* written to memory no probe reads */
	}
	if (!kmt_user_func_returns_pointer(f.func))
		return 0;
	if (t->depth == UMEM_DEPTH) {
		st->too_deep++;
		return 0;
	}
	/* most threads of a kernel-only recording never call: no frames for them */
	if (!t->f && !(t->f = calloc(UMEM_DEPTH, sizeof(*t->f))))
		return -1;
	t->f[t->depth++] = f;
	return 0;
}

static int on_return(struct umem_state *st, struct umem_thread *t, struct umem_proc *p,
		      const struct kmt_event *ev)
{
	const struct umem_frame *f;

	if (!t->depth || t->f[t->depth - 1].func != ev->func) {
		st->unmatched_returns++;	/* its call was filtered out or not seen */
		t->depth = 0;
		return 0;
	}
	f = &t->f[--t->depth];
	return f->nested ? 0 : on_allocated(st, p, f, (uint64_t)ev->ret, ev->ts);
}

/* Has process @tgid's exact counts, whole? */
static bool counted_whole(struct umem_state *st, int tgid)
{
	uint64_t idx;

	return kmt_hashmap_find(&st->proc_of, (uint32_t)tgid, &idx) && st->procs[idx].whole;
}

/* @v scaled by @to / @from (@v when @from is 0). */
static uint64_t scaled(uint64_t v, uint64_t to, uint64_t from)
{
	return from ? (uint64_t)llround((double)v * (double)to / (double)from) : v;
}

void kmt_umem_exact_counts(struct umem_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nprocs; i++) {
		struct umem_proc *p = &st->procs[i];

		if (p->whole) {
			memcpy(p->calls, p->site_calls, sizeof(p->calls));
			p->requested = p->site_bytes;
		}
	}
	for (i = 0; i < st->nstacks; i++) {	/* by their callers' estimates, before these go */
		struct umem_stack *s = &st->stacks[i];
		const struct umem_caller *c = &st->callers[s->caller];

		if (counted_whole(st, s->tgid)) {
			s->calls = scaled(s->calls, c->site_calls, c->calls);
			s->bytes = scaled(s->bytes, c->site_bytes, c->bytes);
		}
	}
	for (i = 0; i < st->ncallers; i++) {
		struct umem_caller *c = &st->callers[i];

		if (counted_whole(st, c->tgid)) {
			c->calls = c->site_calls;
			c->bytes = c->site_bytes;
		}
	}
}

/* --timeline: every process's live heap at each interval end passed. 0, or -1. */
static int tick(struct umem_state *st, uint64_t ts)
{
	uint32_t i;

	if (!st->timeline_ns || ts < st->next_tick)
		return 0;
	for (i = 0; i < st->nprocs; i++) {
		struct umem_proc *p = &st->procs[i];

		if (!p->user)
			continue;
		if (kmt_grow(&st->points, &st->cap_points, st->npoints, sizeof(*st->points)))
			return -1;
		st->points[st->npoints++] = (struct umem_point){
			st->next_tick, p->live_bytes, p->anon_rss, p->kslab_live, p->kpages_live,
			p->requested - p->requested_at_tick, p->tgid };
		p->requested_at_tick = p->requested;
	}
	st->next_tick = kmt_boundary_after(st->next_tick, ts, st->timeline_ns);
	return 0;
}

/* The index of process @tgid's row, made when new; UINT32_MAX out of memory. */
static uint32_t proc_row(struct umem_state *st, int tgid)
{
	return row_of(st, &st->proc_of, (uint32_t)tgid, make_proc, tgid, 0);
}

static int umem_event(void *priv, const struct kmt_event *ev)
{
	struct umem_state *st = priv;
	uint32_t ti, pi;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	if (!st->next_tick)
		st->next_tick = ev->ts + st->timeline_ns;
	st->last_ts = ev->ts;
	if (tick(st, ev->ts))
		return -1;
	if (ev->type == KMT_EV_U_SAMPLE && ev->target_pid > 0) {	/* its own process */
		pi = proc_row(st, (int)ev->target_pid);
		return pi == UINT32_MAX ? -1 : on_sample(st, &st->procs[pi], ev);
	}
	ti = row_of(st, &st->thread_of, (uint32_t)ev->pid, make_thread, ev->pid, 0);
	if (ti == UINT32_MAX)
		return -1;
	pi = st->threads[ti].proc;
	if (pi == UINT32_MAX)	/* rows stay: the thread's is found once */
		pi = st->threads[ti].proc = proc_row(st, st->threads[ti].tgid);
	if (pi == UINT32_MAX)
		return -1;
	if (ev->type == KMT_EV_U_CALL) {
		st->procs[pi].user = true;
		return on_call(st, &st->threads[ti], &st->procs[pi], ev);
	}
	if (ev->type == KMT_EV_U_RETURN)
		return on_return(st, &st->threads[ti], &st->procs[pi], ev);
	if (ev->type == KMT_EV_U_SAMPLE)	/* from another pid namespace: as record saw it */
		return on_sample(st, &st->procs[pi], ev);
	return kmt_umem_kernel_event(st, &st->procs[pi], ev);
}

static void umem_free(void *priv)
{
	struct umem_state *st = priv;
	uint32_t i;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->thread_of);
	kmt_hashmap_free(&st->proc_of);
	kmt_hashmap_free(&st->caller_of);
	kmt_objmap_free(&st->objs);
	kmt_objmap_free(&st->kslab);
	kmt_objmap_free(&st->kpages);
	kmt_umem_stacks_free(st);
	for (i = 0; i < st->nthreads; i++)
		free(st->threads[i].f);
	free(st->threads);
	free(st->procs);
	free(st->callers);
	free(st->points);
	free(st);
}

static void *umem_init(void)
{
	struct umem_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->lines = -1;
	st->page_size = 4096;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->thread_of) ||
	    kmt_hashmap_init(&st->proc_of) || kmt_hashmap_init(&st->caller_of) ||
	    kmt_hashmap_init(&st->stack_of) ||
	    kmt_objmap_init(&st->objs, sizeof(struct umem_obj)) ||
	    kmt_objmap_init(&st->kslab, sizeof(struct umem_kobj)) ||
	    kmt_objmap_init(&st->kpages, sizeof(struct umem_kobj))) {
		umem_free(st);
		return NULL;
	}
	return st;
}

static struct kmt_filter *umem_filter(void *priv)
{
	return &((struct umem_state *)priv)->filter;
}

static int umem_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	struct umem_state *st = priv;
	long long lines;

	if (key == OPT_TIMELINE)
		return kmt_parse_interval_ms(arg, &st->timeline_ns, err);
	if (key == 'l') {
		if (kmt_parse_count(arg, "--lines", &lines, err))
			return -1;
		st->lines = lines > INT32_MAX ? INT32_MAX : (int)lines;
		return 0;
	}
	kmt_error_set(err, NULL, -1, "unhandled option");
	return -1;
}

static int umem_start(void *priv, const struct kmt_session *s)
{
	struct umem_state *st = priv;

	if (s) {
		st->reader = s->reader;
		st->session = s;
		st->filter.reader = s->reader;
		if (s->tep && tep_get_page_size(s->tep) > 0)
			st->page_size = tep_get_page_size(s->tep);
	}
	return 0;
}

static int umem_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	(void)s;
	return kmt_umem_report(priv, out);
}

static const struct kmt_need umem_needs[] = {
	{ KMT_EVMASK(KMT_EV_U_CALL) | KMT_EVMASK(KMT_EV_U_SAMPLE),
	  "user-space allocations (kmtrace record --user or --user-sample)" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_umem = {
	.name = "umem",
	.help = "C library allocations of user-space recordings: per process and caller, live "
		"heap beside RSS, peak, leaks",
	.usage = "  --timeline MS       each process's live heap at every MS milliseconds\n"
		 "  -l, --lines N       at most N rows per table\n",
	.shortopts = "l:",
	.longopts = umem_longopts,
	.needs = umem_needs,
	.idle_without_first_need = true,	/* its kernel events are charged to user processes */
	.events = KMT_EVMASK(KMT_EV_U_CALL) | KMT_EVMASK(KMT_EV_U_RETURN) |
		  KMT_EVMASK(KMT_EV_U_SAMPLE) | UMEM_KERNEL_EVENTS,
	.init = umem_init,
	.filter = umem_filter,
	.option = umem_option,
	.start = umem_start,
	.event = umem_event,
	.report = umem_report,
	.free = umem_free,
};
