// SPDX-License-Identifier: LGPL-2.1
/* slab: the summary and the sorted call site, pointer, cache and pid tables. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slab.h"
#include "common/util.h"

static const char *const sort_names[] = {
	[SORT_BYTES] = "bytes", [SORT_REQ] = "req", [SORT_HIT] = "hit",
	[SORT_FRAG] = "frag", [SORT_PINGPONG] = "pingpong", [SORT_LIVE] = "live",
	[SORT_WASTE] = "waste", [SORT_MAXLIVE] = "maxlive", [SORT_CALLSITE] = "callsite",
	[SORT_PTR] = "ptr", [SORT_CACHE] = "cache", [SORT_PID] = "pid",
};
/* Internal: the call-site table rolled up into groups (rollup.h). */
#define SLAB_TABLE_GROUP	(1u << 31)

#define NSORT	(int)(sizeof(sort_names) / sizeof(sort_names[0]))

int kmt_slab_parse_sort(struct slab_opts *o, const char *arg, struct kmt_error *err)
{
	return kmt_parse_sort_keys(arg, sort_names, NSORT, o->sort, SLAB_MAX_SORT, &o->nsort,
				   err);
}

/* Fragmentation: share of allocated bytes not requested, in percent. */
static double frag(uint64_t alloc, uint64_t req)
{
	return alloc ? 100.0 * (double)(alloc - req) / (double)alloc : 0.0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Compare rows on one key; numbers sort biggest first, names and keys ascending. */
static int cmp_key(enum slab_sort_key k, const struct slab_row *x, const struct slab_row *y)
{
	const struct slab_stat *a = &x->st, *b = &y->st;
	double fa, fb;

	switch (k) {
	case SORT_BYTES: return cmp_u64(b->alloc, a->alloc);
	case SORT_REQ: return cmp_u64(b->req, a->req);
	case SORT_HIT: return cmp_u64(b->hits, a->hits);
	case SORT_PINGPONG: return cmp_u64(b->pingpong, a->pingpong);
	case SORT_LIVE: return cmp_u64(b->live_bytes, a->live_bytes);
	case SORT_WASTE: return cmp_u64(b->live_bytes - b->live_req, a->live_bytes - a->live_req);
	case SORT_MAXLIVE: return cmp_u64(b->max_live, a->max_live);
	case SORT_FRAG:
		fa = frag(a->alloc, a->req);
		fb = frag(b->alloc, b->req);
		return fa < fb ? 1 : fa > fb ? -1 : 0;
	case SORT_CALLSITE: return cmp_u64(x->callsite, y->callsite);
	case SORT_CACHE: return strcmp(x->name ? x->name : "", y->name ? y->name : "");
	case SORT_PTR:
	case SORT_PID: return cmp_u64(x->key, y->key);
	}
	return 0;
}

/* Is sort key @k about this kind of table? (e.g. "ptr" is not, for call sites) */
static bool key_applies(enum slab_sort_key k, unsigned int table)
{
	switch (k) {
	case SORT_CALLSITE: return table == SLAB_TABLE_CALLER || table == SLAB_TABLE_ALLOC;
	case SORT_PTR: return table == SLAB_TABLE_ALLOC;
	case SORT_CACHE: return table == SLAB_TABLE_CACHE;
	case SORT_PID: return table == SLAB_TABLE_PID;
	default: return true;
	}
}

/* What one table's rows are sorted by. */
struct row_sort {
	const struct slab_state *st;
	const struct slab_opts *o;
	const struct slab_row *rows;
	unsigned int table;
};

/*
 * Last resort between call sites: their names, so that the order does not
 * hang on where the kernel was loaded (or on made-up addresses of text input).
 */
static int cmp_callsite_names(const struct row_sort *rs, uint64_t x, uint64_t y)
{
	char a[256], b[256];

	if (rs->o->raw_ip || !kmt_session_symbol(rs->st->session, x, a, sizeof(a)) ||
	    !kmt_session_symbol(rs->st->session, y, b, sizeof(b)))
		return 0;
	return strcmp(a, b);
}

static int cmp_rows(uint32_t a, uint32_t b, void *ctx)
{
	const struct row_sort *rs = ctx;
	const struct slab_row *x = &rs->rows[a], *y = &rs->rows[b];
	int i, r;

	for (i = 0; i < rs->o->nsort; i++) {
		if (!key_applies(rs->o->sort[i], rs->table))
			continue;
		r = cmp_key(rs->o->sort[i], x, y);
		if (r)
			return r;
	}
	if (rs->table == SLAB_TABLE_GROUP)
		return strcmp(x->name, y->name);
	if (rs->table == SLAB_TABLE_CALLER && (r = cmp_callsite_names(rs, x->key, y->key)))
		return r;
	return cmp_u64(x->key, y->key);		/* stable across runs */
}

static uint32_t *sorted_rows(const struct slab_state *st, const struct slab_group *g,
			     unsigned int table)
{
	struct row_sort rs = { st, &st->o, g->rows, table };

	return kmt_sorted_index(g->n, cmp_rows, &rs);
}

#define STAT_COLUMNS \
	{ "bytes_alloc", "TOTAL_ALLOC", KMT_KIND_BYTES }, \
	{ "alloc_per_hit", "/HIT", KMT_KIND_BYTES }, \
	{ "bytes_req", "TOTAL_REQ", KMT_KIND_BYTES }, \
	{ "req_per_hit", "/HIT", KMT_KIND_BYTES }, \
	{ "hits", "HITS", KMT_KIND_COUNT }, \
	{ "frees", "FREES", KMT_KIND_COUNT }, \
	{ "live_bytes", "LIVE", KMT_KIND_BYTES }, \
	{ "live_objects", "LIVE_OBJS", KMT_KIND_COUNT }, \
	{ "max_live_bytes", "MAX_LIVE", KMT_KIND_BYTES }, \
	{ "live_waste", "LIVE_WASTE", KMT_KIND_BYTES }, \
	{ "frag_percent", "FRAG", KMT_KIND_PERCENT }, \
	{ "pingpong", "PING-PONG", KMT_KIND_COUNT }
#define NSTAT_COLUMNS	12
#define MAX_COLUMNS	(NSTAT_COLUMNS + 3)

static void stat_cells(const struct slab_stat *s, union kmt_cell *c)
{
	c[0].u = s->alloc;
	c[1].u = s->hits ? s->alloc / s->hits : 0;
	c[2].u = s->req;
	c[3].u = s->hits ? s->req / s->hits : 0;
	c[4].u = s->hits;
	c[5].u = s->frees;
	c[6].u = s->live_bytes;
	c[7].u = s->live_objs;
	c[8].u = s->max_live;
	c[9].u = s->live_bytes - s->live_req;
	c[10].d = frag(s->alloc, s->req);
	c[11].u = s->pingpong;
}

/* How one table names its rows: key columns and how to fill them. */
struct table_kind {
	unsigned int flag;
	const char *name, *title;
	int nkeys;
	struct kmt_column cols[MAX_COLUMNS];
};

static const struct table_kind tables[] = {
	{ SLAB_TABLE_CALLER, "callers", "Per call site", 1,
	  { { "callsite", "CALLSITE", KMT_KIND_SYMBOL }, STAT_COLUMNS } },
	{ SLAB_TABLE_ALLOC, "pointers", "Per pointer", 2,
	  { { "ptr", "PTR", KMT_KIND_ADDRESS }, { "callsite", "LAST_CALLSITE", KMT_KIND_SYMBOL },
	    STAT_COLUMNS } },
	{ SLAB_TABLE_CACHE, "caches", "Per slab cache", 2,
	  { { "cache", "CACHE", KMT_KIND_STRING }, { "aliases", "ALIASES", KMT_KIND_STRING },
	    STAT_COLUMNS } },
	{ SLAB_TABLE_PID, "pids", "Per process", 2,
	  { { "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
	    STAT_COLUMNS } },
};

/* A call-site cell: "func+0xOFF [mod]" in @buf, or the address with --raw-ip. */
static void callsite_cell(const struct slab_state *st, uint64_t addr, union kmt_cell *c,
			  char *buf, size_t len)
{
	if (st->o.raw_ip) {
		c->u = addr;
		return;
	}
	kmt_session_symbol(st->session, addr, buf, len);
	c->s = buf;
}

/* The next "NAME ID" line of *@p into @name and @id (moved past it); false at the end. */
static bool next_alias(const char **p, char *name, size_t nlen, char *id, size_t idlen)
{
	while (**p) {
		const char *line = *p, *nl = strchr(line, '\n');
		size_t n = strcspn(line, " \n"), len = nl ? (size_t)(nl - line) : strlen(line);

		*p = line + len + (nl != NULL);
		if (line[n] != ' ' || n >= nlen || len - n - 1 >= idlen)
			continue;
		snprintf(name, nlen, "%.*s", (int)n, line);
		snprintf(id, idlen, "%.*s", (int)(len - n - 1), line + n + 1);
		return true;
	}
	return false;
}

/*
 * The other names of cache @name, which the kernel merged into it (SLUB
 * aliases, as /sys/kernel/slab linked them at record time), space
 * separated into @buf; "" when none or not recorded.
 */
static const char *cache_aliases(const struct slab_state *st, const char *name, char *buf,
				 size_t len)
{
	const char *text = kmt_reader_text(st->reader, KMT_TEXT_SLAB_ALIASES), *p;
	char id[128] = "", other[128], other_id[128];
	size_t at = 0;

	buf[0] = '\0';
	for (p = text ? text : ""; name && next_alias(&p, other, sizeof(other), other_id,
						      sizeof(other_id));)
		if (!strcmp(other, name))
			snprintf(id, sizeof(id), "%s", other_id);
	for (p = text ? text : ""; id[0] && next_alias(&p, other, sizeof(other), other_id,
						       sizeof(other_id));)
		if (!strcmp(other_id, id) && strcmp(other, name) && at < len)
			at += snprintf(buf + at, len - at, "%s%s", at ? " " : "", other);
	return buf;
}

static void key_cells(const struct slab_state *st, const struct table_kind *tk,
		      const struct slab_row *row, union kmt_cell *c, char *buf, size_t len)
{
	switch (tk->flag) {
	case SLAB_TABLE_CALLER:
		callsite_cell(st, row->key, &c[0], buf, len);
		break;
	case SLAB_TABLE_ALLOC:
		c[0].u = row->key;
		callsite_cell(st, row->callsite, &c[1], buf, len);
		break;
	case SLAB_TABLE_CACHE:
		c[0].s = row->name ? row->name : "";
		if (tk->nkeys > 1)
			c[1].s = cache_aliases(st, row->name, buf, len);
		break;
	case SLAB_TABLE_GROUP:
		c[0].s = row->name ? row->name : "";
		break;
	case SLAB_TABLE_PID:
		c[0].u = row->key;
		c[1].s = row->name ? row->name : "<...>";
		break;
	}
}

static const struct slab_group *group_of(const struct slab_state *st, unsigned int flag)
{
	switch (flag) {
	case SLAB_TABLE_CALLER: return &st->callers;
	case SLAB_TABLE_ALLOC: return &st->ptrs;
	case SLAB_TABLE_CACHE: return &st->caches;
	default: return &st->pids;
	}
}

static int report_table(const struct slab_state *st, const struct table_kind *tk,
			const struct slab_group *g, struct kmt_output *out)
{
	struct kmt_column cols[MAX_COLUMNS];
	union kmt_cell cells[MAX_COLUMNS];
	int ncols = tk->nkeys + NSTAT_COLUMNS, ret = 0, i;
	struct kmt_table *t;
	uint32_t *idx, r;
	char sym[1024];

	memcpy(cols, tk->cols, sizeof(cols));
	for (i = 0; i < tk->nkeys; i++)
		if (st->o.raw_ip && cols[i].kind == KMT_KIND_SYMBOL)
			cols[i].kind = KMT_KIND_ADDRESS;
	t = kmt_output_table(out, tk->name, tk->title, ncols, cols);
	if (!t || !(idx = sorted_rows(st, g, tk->flag)))
		return -1;
	for (r = 0; !ret && r < g->n && (st->o.lines < 0 || r < st->o.lines); r++) {
		const struct slab_row *row = &g->rows[idx[r]];

		key_cells(st, tk, row, cells, sym, sizeof(sym));
		stat_cells(&row->st, cells + tk->nkeys);
		ret = kmt_table_row(t, cells);
	}
	free(idx);
	return ret;
}

static void add_stat(struct slab_stat *to, const struct slab_stat *s)
{
	to->alloc += s->alloc;
	to->req += s->req;
	to->hits += s->hits;
	to->frees += s->frees;
	to->live_bytes += s->live_bytes;
	to->live_req += s->live_req;
	to->live_objs += s->live_objs;
	to->max_live += s->max_live;	/* the sum of the call sites' peaks: an upper bound */
	to->pingpong += s->pingpong;
}

/*
 * The call-site rows as the rollup options ask: summed per group (rows
 * named after it, keyed by group) or only those under --branch. Returns 0
 * or -1 when out of memory; @out's rows and names are the caller's.
 */
static int roll_up_callers(const struct slab_state *st, struct slab_group *out)
{
	const struct slab_group *g = &st->callers;
	bool grouped = kmt_rollup_groups(&st->o.rollup);
	struct kmt_rollup_result res;
	uint32_t i, to;

	if (kmt_rollup_assign(&st->o.rollup, st->session, g->rows, sizeof(*g->rows),
			      offsetof(struct slab_row, key), g->n, &res))
		return -1;
	memset(out, 0, sizeof(*out));
	out->rows = calloc(res.n ? res.n : 1, sizeof(*out->rows));
	for (i = 0; out->rows && i < g->n; i++) {
		if ((to = res.of[i]) == KMT_ROLLUP_OUT)
			continue;
		out->rows[to].key = grouped ? to : g->rows[i].key;
		add_stat(&out->rows[to].st, &g->rows[i].st);
	}
	for (i = 0; out->rows && grouped && i < res.n; i++) {
		out->rows[i].name = res.names[i];	/* handed over */
		res.names[i] = NULL;
	}
	out->n = res.n;
	kmt_rollup_free(&res);
	return out->rows ? 0 : -1;
}

/* --footprint: the directories of @g beside the image's static bytes. */
static int report_static(const struct kmt_rollup *ro, const struct slab_group *g,
			 struct kmt_output *out)
{
	struct kmt_rollup_dynamic *dyn = calloc(g->n + 1, sizeof(*dyn));
	uint32_t i;
	int ret;

	if (!dyn)
		return -1;
	for (i = 0; i < g->n; i++) {
		const struct slab_stat *s = &g->rows[i].st;

		dyn[i] = (struct kmt_rollup_dynamic){ g->rows[i].name, s->live_bytes, s->alloc,
						      s->alloc - s->req };
	}
	ret = kmt_rollup_report_static(ro, dyn, g->n, true, out);
	free(dyn);
	return ret;
}

/* The call-site table rolled up (--by-dir, --by-module, --branch). */
static int report_rolled_callers(const struct slab_state *st, struct kmt_output *out)
{
	const struct kmt_rollup *ro = &st->o.rollup;
	struct table_kind tk = { SLAB_TABLE_CALLER, "callers", "Per call site", 1,
				 { { "callsite", "CALLSITE", KMT_KIND_SYMBOL }, STAT_COLUMNS } };
	struct slab_group g;
	char title[320];
	uint32_t i;
	int ret;

	if (roll_up_callers(st, &g))
		return -1;
	if (kmt_rollup_groups(ro)) {
		snprintf(title, sizeof(title), "Per %s%s%s%s", ro->by_module ? "module" :
			 "source directory", ro->branch[0] ? " (call sites under " : "",
			 ro->branch, ro->branch[0] ? "/)" : "");
		tk = (struct table_kind){ SLAB_TABLE_GROUP, ro->by_module ? "modules" : "dirs",
					  title, 1, { { ro->by_module ? "module" : "dir",
							kmt_rollup_column(ro), KMT_KIND_STRING },
						      STAT_COLUMNS } };
	} else {
		snprintf(title, sizeof(title), "Per call site under %s/", ro->branch);
		tk.title = title;
	}
	ret = report_table(st, &tk, &g, out);
	if (!ret && ro->statics)
		ret = report_static(ro, &g, out);
	for (i = 0; i < g.n; i++)
		free(g.rows[i].name);
	free(g.rows);
	return ret;
}

/* The value column --format folded takes for the first sort key (bytes by default). */
static int weight_of(enum slab_sort_key k)
{
	switch (k) {
	case SORT_REQ: return 2;
	case SORT_HIT: return 4;
	case SORT_LIVE: return 6;
	case SORT_MAXLIVE: return 8;
	case SORT_WASTE: return 9;
	case SORT_PINGPONG: return 11;
	default: return 0;
	}
}

/* --stack: the figures of each distinct stack, the stack last. */
static int report_stacks(const struct slab_state *st, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		STAT_COLUMNS, { "max_live_time", "MAX_LIVE_AT", KMT_KIND_NS },
		{ "stack", "STACK (allocator frames cut off)", KMT_KIND_STACK }
	};
	const struct slab_group *g = &st->stack_rows;
	union kmt_cell cells[NSTAT_COLUMNS + 2];
	struct kmt_table *t;
	char *text = malloc(KMT_STACK_TEXT_MAX);
	uint32_t *idx = NULL, r;
	int ret = -1;

	t = kmt_output_table(out, "stacks", "Per call stack; MAX_LIVE_AT: when its live bytes "
			     "first reached MAX_LIVE", NSTAT_COLUMNS + 2, cols);
	if (!t || !text || !(idx = sorted_rows(st, g, SLAB_TABLE_STACK)))
		goto out;
	kmt_table_weight(t, weight_of(st->o.sort[0]));
	ret = 0;
	for (r = 0; !ret && r < g->n && (st->o.lines < 0 || r < st->o.lines); r++) {
		const struct slab_row *row = &g->rows[idx[r]];

		stat_cells(&row->st, cells);
		cells[NSTAT_COLUMNS].u = row->max_live_ts;
		cells[NSTAT_COLUMNS + 1].s = kmt_stacks_text(&st->stacks, row->key, text,
							     KMT_STACK_TEXT_MAX);
		ret = kmt_table_row(t, cells);
	}
out:
	free(idx);
	free(text);
	return ret;
}

static int put_u(struct kmt_output *out, const char *key, const char *label,
		 enum kmt_kind kind, uint64_t v)
{
	return kmt_output_value(out, key, label, kind, (union kmt_cell){ .u = v });
}

static int report_summary(const struct slab_state *st, struct kmt_output *out)
{
	const struct slab_stat *t = &st->total;

	return put_u(out, "allocations", "Allocations", KMT_KIND_COUNT, t->hits) ||
	       put_u(out, "frees", "Frees (matched by pointer)", KMT_KIND_COUNT, t->frees) ||
	       put_u(out, "unmatched_frees", "Frees of unseen allocations", KMT_KIND_COUNT,
		     st->frees_unmatched) ||
	       put_u(out, "null_frees", "Frees of NULL / ZERO_SIZE_PTR", KMT_KIND_COUNT,
		     st->frees_null) ||
	       put_u(out, "failed_allocations", "Failed (NULL) allocations", KMT_KIND_COUNT,
		     st->allocs_failed) ||
	       put_u(out, "bytes_requested", "Bytes requested", KMT_KIND_BYTES, t->req) ||
	       put_u(out, "bytes_allocated", "Bytes allocated", KMT_KIND_BYTES, t->alloc) ||
	       put_u(out, "bytes_freed", "Bytes freed", KMT_KIND_BYTES, st->freed_bytes) ||
	       put_u(out, "net_bytes", "Net bytes (allocated - freed)", KMT_KIND_BYTES,
		     t->alloc - st->freed_bytes) ||
	       put_u(out, "bytes_wasted", "Bytes wasted (allocated - requested)",
		     KMT_KIND_BYTES, t->alloc - t->req) ||
	       kmt_output_value(out, "waste_percent", "Internal fragmentation",
				KMT_KIND_PERCENT,
				(union kmt_cell){ .d = frag(t->alloc, t->req) }) ||
	       put_u(out, "live_objects", "Live objects at end", KMT_KIND_COUNT, t->live_objs) ||
	       put_u(out, "live_bytes", "Live bytes at end", KMT_KIND_BYTES, t->live_bytes) ||
	       put_u(out, "live_waste", "Live waste (allocated - requested)", KMT_KIND_BYTES,
		     t->live_bytes - t->live_req) ||
	       put_u(out, "peak_live_bytes", "Peak live bytes", KMT_KIND_BYTES, st->peak_live) ||
	       put_u(out, "peak_live_ts", "Peak live at (s)", KMT_KIND_NS, st->peak_ts) ||
	       put_u(out, "replaced_allocations", "Allocations over a live pointer",
		     KMT_KIND_COUNT, st->replaced) ||
	       put_u(out, "replaced_bytes", "Bytes of those earlier objects", KMT_KIND_BYTES,
		     st->replaced_bytes) ||
	       put_u(out, "pingpong_frees", "Ping-pong frees (other CPU)", KMT_KIND_COUNT,
		     t->pingpong) ||
	       put_u(out, "cross_node_allocations", "Cross-node allocations", KMT_KIND_COUNT,
		     st->cross_node) ||
	       put_u(out, "node_allocations", "Allocations with a node field", KMT_KIND_COUNT,
		     st->node_allocs) ||
	       kmt_output_value(out, "cpu_nodes", "CPU nodes", KMT_KIND_STRING,
				(union kmt_cell){ .s = st->cpu_node ? "recorded" :
						  "not recorded: all CPUs taken as node 0" });
}

/* The cache table of a recording that saved no merged caches: no ALIASES column. */
static const struct table_kind caches_without_aliases = {
	SLAB_TABLE_CACHE, "caches", "Per slab cache", 1,
	{ { "cache", "CACHE", KMT_KIND_STRING }, STAT_COLUMNS }
};

/* The per-process rows' names, as the recording knows them at its end. */
static int name_pids(struct slab_state *st)
{
	uint32_t i;

	for (i = 0; i < st->pids.n; i++)
		if (!st->pids.rows[i].name &&
		    !(st->pids.rows[i].name = kmt_task_name(st->reader, (int)st->pids.rows[i].key)))
			return -1;
	return 0;
}

int kmt_slab_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct slab_state *st = priv;
	size_t i;

	(void)s;
	if (name_pids(st))
		return -1;
	if (report_summary(st, out) || kmt_slab_report_untraced_values(st, out))
		return -1;
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const struct table_kind *tk = &tables[i];

		if (!(st->o.tables & tk->flag))
			continue;
		if (tk->flag == SLAB_TABLE_CACHE &&
		    !kmt_reader_text(st->reader, KMT_TEXT_SLAB_ALIASES))
			tk = &caches_without_aliases;
		if (tk->flag == SLAB_TABLE_CALLER && kmt_rollup_active(&st->o.rollup) ?
		    report_rolled_callers(st, out) : report_table(st, tk, group_of(st, tk->flag), out))
			return -1;
	}
	if ((st->o.tables & SLAB_TABLE_STACK) && report_stacks(st, out))
		return -1;
	if (kmt_slab_report_untraced_table(st, out))
		return -1;
	return st->o.timeline_ns ? kmt_slab_report_timeline(st, out) : 0;
}
