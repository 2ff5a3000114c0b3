// SPDX-License-Identifier: LGPL-2.1
/* leak: what is outstanding, summed per group with its ages, and the report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "leak.h"
#include "common/radix.h"
#include "common/util.h"

/* One outstanding object as a group member: its group key and when it came. */
struct member {
	uint64_t key, ts, bytes;
};

static uint64_t group_key(const struct leak_obj *o, enum leak_by by)
{
	switch (by) {
	case LEAK_BY_STACK: return (uint64_t)o->stack << 1 | o->kind;	/* objects, pages apart */
	case LEAK_BY_CALLSITE: return o->call_site;
	case LEAK_BY_CACHE: return o->cache;
	default: return (uint32_t)o->pid;
	}
}

static inline uint64_t key_of(const struct member *m)
{
	return m->key;
}

KMT_RADIX_SORT(sort_by_key, struct member, key_of)

static void swap_u64(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

/* The next of a xorshift sequence (state never 0). */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * The @k-th smallest (from 0) of the @n values at @v, which it reorders:
 * a selection in linear time on average, where sorting each group's
 * members by time took a radix sort of them all per table. The pivot is
 * the median of three values at places drawn from a sequence seeded by
 * the values, so that no order of them (a crafted recording's) makes the
 * work quadratic but by chance; values equal to it gather in the middle,
 * so repeated times cost nothing more.
 */
static uint64_t kth_smallest(uint64_t *v, size_t n, size_t k)
{
	uint64_t state = ((n * 0x9e3779b97f4a7c15ull) ^ v[0] ^ (v[n - 1] << 1)) | 1;

	while (n > 1) {
		uint64_t x = v[next_random(&state) % n], y = v[next_random(&state) % n];
		uint64_t z = v[next_random(&state) % n], pivot;
		size_t lt = 0, i = 0, gt = n;

		pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		while (i < gt) {	/* [0, lt) below, [lt, i) equal, [gt, n) above */
			if (v[i] < pivot)
				swap_u64(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap_u64(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt) {
			n = lt;
		} else if (k < gt) {
			return pivot;
		} else {
			v += gt;
			n -= gt;
			k -= gt;
		}
	}
	return v[0];
}

static int by_bytes(const void *a, const void *b)
{
	const struct leak_group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->objects != y->objects)
		return x->objects > y->objects ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The next selected object of walk @w outstanding at @now for --older or longer. */
static const struct leak_obj *next_outstanding(const struct leak_state *st, uint64_t now,
					       struct kmt_objmap_walk *w)
{
	const struct leak_obj *o;

	while ((o = kmt_objmap_walk_next(w)))
		if (kmt_leak_outstanding(st, o, now) && !kmt_leak_left_out(st, o))
			return o;
	return NULL;
}

/* The selected objects outstanding at @now for --older or longer. */
static struct member *members(const struct leak_state *st, enum leak_by by, uint64_t now,
			      size_t *n)
{
	size_t cap = kmt_leak_count(st, LEAK_SLAB) + kmt_leak_count(st, LEAK_PAGES);
	struct member *m = malloc((cap ? cap : 1) * 2 * sizeof(*m));	/* and sorting room */
	struct kmt_objmap_walk w;
	const struct leak_obj *o;
	int k;

	*n = 0;
	for (k = 0; m && k < LEAK_KINDS; k++) {
		if (kmt_leak_walk_start(&w, st, k)) {
			free(m);
			return NULL;
		}
		while ((o = next_outstanding(st, now, &w)) && *n < cap)
			m[(*n)++] = (struct member){ group_key(o, by), o->ts, o->bytes };
		kmt_objmap_walk_end(&w);
	}
	return m;
}

long kmt_leak_groups(const struct leak_state *st, enum leak_by by, uint64_t now,
		     struct leak_group **groups)
{
	size_t n, i, start;
	struct member *m = members(st, by, now, &n);
	uint64_t *times;
	struct leak_group *g;
	long ng = 0;

	*groups = NULL;
	if (!m || !(g = malloc((n ? n : 1) * sizeof(*g)))) {
		free(m);
		return -1;
	}
	sort_by_key(m, m + n, n);	/* by group */
	times = (uint64_t *)(m + n);	/* the sorting room, free again */
	for (start = 0; start < n; start = i) {
		struct leak_group *x = &g[ng++];

		*x = (struct leak_group){ .key = m[start].key, .oldest_ts = m[start].ts };
		for (i = start; i < n && m[i].key == m[start].key; i++) {
			x->objects++;
			x->bytes += m[i].bytes;
			if (m[i].ts < x->oldest_ts)
				x->oldest_ts = m[i].ts;
			times[i - start] = m[i].ts;
		}
		x->median_ts = kth_smallest(times, i - start, (i - start) / 2);
	}
	free(m);
	qsort(g, ng, sizeof(*g), by_bytes);
	*groups = g;
	return ng;
}

#define AGE_COLUMNS \
	{ "objects", "OBJECTS", KMT_KIND_COUNT }, { "bytes", "BYTES", KMT_KIND_BYTES }, \
	{ "oldest_age_ns", "OLDEST_AGE", KMT_KIND_NS }, \
	{ "median_age_ns", "MEDIAN_AGE", KMT_KIND_NS }
#define NAGE	4

/* When "outstanding" is taken: the end of --time, else the last event. */
static uint64_t report_time(const struct leak_state *st)
{
	return st->filter.end_ns < st->last_ts ? st->filter.end_ns : st->last_ts;
}

static void age_cells(const struct leak_group *g, uint64_t now, union kmt_cell *c)
{
	c[0].u = g->objects;
	c[1].u = g->bytes;
	c[2].u = now - g->oldest_ts;
	c[3].u = now - g->median_ts;
}

/* The text of group @g's key: a stack, a call site, a cache or a command. */
static const char *key_text(const struct leak_state *st, enum leak_by by,
			    const struct leak_group *g, char *buf, size_t len)
{
	const char *comm;

	switch (by) {
	case LEAK_BY_STACK:
		return kmt_stacks_text(&st->stacks, g->key >> 1, buf, len);
	case LEAK_BY_CALLSITE:
		if (!g->key)
			return "(pages: no call site without a stack)";
		kmt_session_symbol(st->session, g->key, buf, len);
		return buf;
	case LEAK_BY_CACHE:
		return g->key < st->ncaches ? st->caches[g->key] : "";
	default:
		comm = kmt_reader_comm(st->reader, (int)g->key);
		return comm ? comm : "<...>";
	}
}

/* How one table of groups is laid out. */
struct group_table {
	enum leak_by by;
	const char *name, *title;
	int ncols;
	struct kmt_column cols[NAGE + 2];
};

static const struct group_table group_tables[] = {
	{ LEAK_BY_STACK, "stacks", "Outstanding per call stack", NAGE + 2,
	  { AGE_COLUMNS, { "kind", "KIND", KMT_KIND_STRING },
	    { "stack", "STACK (allocator frames cut off)", KMT_KIND_STACK } } },
	{ LEAK_BY_CALLSITE, "callsites", "Outstanding per call site", NAGE + 1,
	  { { "callsite", "CALLSITE", KMT_KIND_SYMBOL }, AGE_COLUMNS } },
	{ LEAK_BY_CACHE, "caches", "Outstanding per cache", NAGE + 1,
	  { { "cache", "CACHE", KMT_KIND_STRING }, AGE_COLUMNS } },
	{ LEAK_BY_PID, "processes", "Outstanding per process", NAGE + 2,
	  { { "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING }, AGE_COLUMNS } },
};

/* One row of @gt for @g into @c (the key where the table has it). */
static void group_cells(const struct leak_state *st, const struct group_table *gt,
			const struct leak_group *g, uint64_t now, union kmt_cell *c, char *buf,
			size_t len)
{
	const char *key = key_text(st, gt->by, g, buf, len);

	switch (gt->by) {
	case LEAK_BY_STACK:
		age_cells(g, now, c);
		c[NAGE].s = (g->key & 1) == LEAK_PAGES ? "pages" : "slab";
		c[NAGE + 1].s = key;
		break;
	case LEAK_BY_PID:
		c[0].u = g->key;
		c[1].s = key;
		age_cells(g, now, c + 2);
		break;
	default:
		c[0].s = key;
		age_cells(g, now, c + 1);
		break;
	}
}

static int report_groups(const struct leak_state *st, const struct group_table *gt,
			 uint64_t now, char *buf, size_t len, struct kmt_output *out)
{
	union kmt_cell c[NAGE + 2];
	struct leak_group *g;
	struct kmt_table *t;
	long n = kmt_leak_groups(st, gt->by, now, &g), i;
	int ret = 0;

	if (n < 0 || !(t = kmt_output_table(out, gt->name, gt->title, gt->ncols, gt->cols))) {
		free(g);
		return -1;
	}
	kmt_table_weight(t, gt->by == LEAK_BY_STACK ? 1 : -1);
	for (i = 0; !ret && i < n && (st->lines < 0 || i < st->lines); i++) {
		group_cells(st, gt, &g[i], now, c, buf, len);
		ret = kmt_table_row(t, c);
	}
	free(g);
	return ret;
}

/* --interval: the top groups at each boundary, the time first. */
static int report_points(const struct leak_state *st, enum leak_by by, char *buf, size_t len,
			 struct kmt_output *out)
{
	const struct group_table *gt = &group_tables[by];
	struct kmt_column cols[NAGE + 3] = { { "time", "TIME", KMT_KIND_NS } };
	union kmt_cell c[NAGE + 3];
	struct kmt_table *t;
	uint32_t i;
	int ret = 0;

	memcpy(cols + 1, gt->cols, gt->ncols * sizeof(*cols));
	t = kmt_output_table(out, "intervals", by == LEAK_BY_STACK ?
			     "Top outstanding stacks per interval" :
			     "Top outstanding call sites per interval", gt->ncols + 1, cols);
	if (!t)
		return -1;
	kmt_table_weight(t, by == LEAK_BY_STACK ? 2 : -1);
	for (i = 0; !ret && i < st->npoints; i++) {
		c[0].u = st->points[i].ts;
		group_cells(st, gt, &st->points[i].g, st->points[i].ts, c + 1, buf, len);
		ret = kmt_table_row(t, c);
	}
	return ret;
}

static int put_u(struct kmt_output *out, const char *key, const char *label,
		 enum kmt_kind kind, uint64_t v)
{
	return kmt_output_value(out, key, label, kind, (union kmt_cell){ .u = v });
}

static int report_summary(const struct leak_state *st, uint64_t now, struct kmt_output *out)
{
	uint64_t objs[LEAK_KINDS] = { 0 }, bytes[LEAK_KINDS] = { 0 }, no_stack = 0;
	struct kmt_objmap_walk w;
	const struct leak_obj *o;
	int k;

	for (k = 0; k < LEAK_KINDS; k++) {
		if (kmt_leak_walk_start(&w, st, k)) {
			errno = ENOMEM;
			return -1;
		}
		while ((o = next_outstanding(st, now, &w))) {
			objs[k]++;
			bytes[k] += o->bytes;
			no_stack += o->stack == KMT_STACK_NONE;
		}
		kmt_objmap_walk_end(&w);
	}
	return put_u(out, "outstanding_at", "Outstanding at (s)", KMT_KIND_NS, now) ||
	       put_u(out, "older_than_ns", "Outstanding for at least (s)", KMT_KIND_NS,
		     st->older_ns) ||
	       put_u(out, "slab_objects", "Slab objects outstanding", KMT_KIND_COUNT,
		     objs[LEAK_SLAB]) ||
	       put_u(out, "slab_bytes", "Slab bytes outstanding", KMT_KIND_BYTES,
		     bytes[LEAK_SLAB]) ||
	       put_u(out, "page_blocks", "Page blocks outstanding", KMT_KIND_COUNT,
		     objs[LEAK_PAGES]) ||
	       put_u(out, "page_bytes", "Page bytes outstanding", KMT_KIND_BYTES,
		     bytes[LEAK_PAGES]) ||
	       (st->have_stacks &&
		put_u(out, "outstanding_without_stack", "Outstanding without a call stack",
		      KMT_KIND_COUNT, no_stack)) ||
	       put_u(out, "failed_slab_allocations", "Failed slab allocations (apart)",
		     KMT_KIND_COUNT, st->failed_allocs[LEAK_SLAB]) ||
	       put_u(out, "failed_page_allocations", "Failed page allocations (apart)",
		     KMT_KIND_COUNT, st->failed_allocs[LEAK_PAGES]) ||
	       put_u(out, "unseen_slab_frees", "Slab frees of unseen allocations (apart)",
		     KMT_KIND_COUNT, st->unseen_frees[LEAK_SLAB]) ||
	       put_u(out, "unseen_page_frees", "Page frees of unseen allocations (apart)",
		     KMT_KIND_COUNT, st->unseen_frees[LEAK_PAGES]) ||
	       put_u(out, "freed_without_event", "Freed without a free event (caveat)",
		     KMT_KIND_COUNT, st->reused[LEAK_SLAB] + st->reused[LEAK_PAGES]) ||
	       put_u(out, "freed_without_event_bytes", "Bytes of those (not outstanding)", KMT_KIND_BYTES,
		     st->reused_bytes[LEAK_SLAB] + st->reused_bytes[LEAK_PAGES]);
}

int kmt_leak_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct leak_state *st = priv;
	enum leak_by by = st->have_stacks ? LEAK_BY_STACK : LEAK_BY_CALLSITE;
	uint64_t now = report_time(st);
	char *buf = malloc(KMT_STACK_TEXT_MAX);
	int ret;

	(void)s;
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	kmt_leak_judge(st);
	ret = report_summary(st, now, out) || kmt_page_owner_summary(&st->owner, out) ||
	      kmt_leak_report_untraced(st, now, out) ||
	      report_groups(st, &group_tables[by], now, buf, KMT_STACK_TEXT_MAX, out) ||
	      report_groups(st, &group_tables[LEAK_BY_CACHE], now, buf, KMT_STACK_TEXT_MAX, out) ||
	      report_groups(st, &group_tables[LEAK_BY_PID], now, buf, KMT_STACK_TEXT_MAX, out) ||
	      (st->interval_ns && report_points(st, by, buf, KMT_STACK_TEXT_MAX, out)) ||
	      kmt_page_owner_tables(&st->owner, &st->stacks, "before", st->lines, out);
	free(buf);
	return ret ? -1 : 0;
}
