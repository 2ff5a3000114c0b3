// SPDX-License-Identifier: LGPL-2.1
/*
 * page: the summary (perf kmem --page's figures and more), the check
 * against /proc/vmstat, the order x migratetype matrix, the GFP legend and
 * the tables the options ask for.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "page.h"
#include "slabaudit.h"
#include "common/util.h"

/* perf kmem --page stat's six lines, as requests and KiB. */
static int report_requests(const struct page_state *st, struct kmt_output *out)
{
	uint64_t only_req = st->alloc_req - st->matched_req;
	uint64_t only_bytes = st->alloc_bytes - st->matched_bytes;

	return kmt_output_count(out, "alloc_requests", "Total allocation requests", st->alloc_req) ||
	       kmt_output_count(out, "alloc_kib", "  KiB", st->alloc_bytes / 1024) ||
	       kmt_output_count(out, "free_requests", "Total free requests", st->free_req) ||
	       kmt_output_count(out, "free_kib", "  KiB", st->free_bytes / 1024) ||
	       kmt_output_count(out, "alloc_freed_requests", "Total alloc+freed requests", st->matched_req) ||
	       kmt_output_count(out, "alloc_freed_kib", "  KiB", st->matched_bytes / 1024) ||
	       kmt_output_count(out, "alloc_only_requests", "Total alloc-only requests", only_req) ||
	       kmt_output_count(out, "alloc_only_kib", "  KiB", only_bytes / 1024) ||
	       kmt_output_count(out, "free_only_requests", "Total free-only requests", st->nomatch_req) ||
	       kmt_output_count(out, "free_only_kib", "  KiB", st->nomatch_bytes / 1024) ||
	       kmt_output_count(out, "alloc_failures", "Total allocation failures", st->fail_req) ||
	       kmt_output_count(out, "alloc_failures_kib", "  KiB", st->fail_bytes / 1024);
}

static int report_pages(const struct page_state *st, struct kmt_output *out)
{
	return kmt_output_count(out, "page_size", "Page size (trace header)", st->page_size) ||
	       kmt_output_count(out, "pages_allocated", "Pages allocated", st->pages_alloc) ||
	       kmt_output_count(out, "pages_freed", "Pages freed", st->pages_freed) ||
	       kmt_output_signed(out, "net_pages", "Net pages (allocated - freed)",
		     (int64_t)(st->pages_alloc - st->pages_freed)) ||
	       kmt_output_signed(out, "peak_pages", "Peak outstanding pages", st->total.peak) ||
	       kmt_output_value(out, "peak_ts", "Peak outstanding at (s)", KMT_KIND_NS,
				(union kmt_cell){ .u = st->total.peak_ts }) ||
	       kmt_output_signed(out, "min_pages", "Lowest outstanding pages", st->total.min) ||
	       kmt_output_count(out, "batched_free_events", "mm_page_free_batched (repeats, not counted)",
		     st->batched) ||
	       kmt_output_count(out, "batched_repeats", "  repeating an mm_page_free just before",
		     st->batched_dup) ||
	       kmt_output_count(out, "replaced_allocations", "Allocations of a page still live",
		     st->replaced) ||
	       kmt_output_count(out, "extfrag_events", "mm_page_alloc_extfrag events", st->extfrag) ||
	       kmt_output_count(out, "zone_locked_events", "mm_page_alloc_zone_locked events",
		     st->zone_locked) ||
	       kmt_output_count(out, "pcpu_drain_events", "mm_page_pcpu_drain events", st->pcpu_drain);
}

/* Sum of "@prefix*" counters (or the one named @prefix exactly) in a vmstat text. */
static bool vmstat_sum(const char *text, const char *prefix, bool exact, uint64_t *sum)
{
	size_t len = strlen(prefix);
	bool found = false;
	const char *p;

	*sum = 0;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long v;

		if (strncmp(p, prefix, len) || (exact && p[len] != ' '))
			continue;
		if (sscanf(strchr(p, ' ') ? strchr(p, ' ') : p, "%llu", &v) == 1) {
			*sum += v;
			found = true;
		}
	}
	return found;
}

/* Why the vmstat check does not apply here, or NULL when it does. */
static const char *check_blocker(const struct page_state *st)
{
	const char *why;

	if (!kmt_reader_text(st->reader, KMT_TEXT_VMSTAT_START) ||
	    !kmt_reader_text(st->reader, KMT_TEXT_VMSTAT_STOP))
		return "not applicable: the recording has no /proc/vmstat (kmtrace record saves it)";
	if ((why = kmt_whole_system_blocker(st->reader, &st->filter)))
		return why;
	if (!tep_find_event_by_name(st->tep, "kmem", "mm_page_alloc") ||
	    !tep_find_event_by_name(st->tep, "kmem", "mm_page_free"))
		return "not applicable: mm_page_alloc or mm_page_free was not recorded";
	return NULL;
}

static double diff_percent(uint64_t traced, uint64_t kernel)
{
	return kernel ? 100.0 * ((double)traced - (double)kernel) / (double)kernel : 0.0;
}

/*
 * Pages of the kernel stacks of @st->forks new tasks: with CONFIG_VMAP_STACK
 * they come from the bulk page allocator, which pgalloc_* counts and no
 * mm_page_alloc shows (4 pages on 64-bit x86 and arm64 without KASAN; a
 * CPU's cache of two freed stacks spares some, so it is at most that).
 * 0 on other machines.
 */
static uint64_t fork_stack_pages(const struct page_state *st)
{
	const char *machine = kmt_kernel_machine(kmt_reader_text(st->reader, KMT_TEXT_UNAME));

	if (strcmp(machine, "x86_64") && strcmp(machine, "aarch64"))
		return 0;
	return st->forks * (16384 / st->page_size);
}

/*
 * How far @pgalloc lies outside [@traced, @traced + @stacks], in percent of
 * it: 0 inside; signed like diff_percent() outside.
 */
static double beyond_range_percent(uint64_t traced, uint64_t stacks, uint64_t pgalloc)
{
	if (pgalloc < traced)
		return diff_percent(traced, pgalloc);
	if (pgalloc > traced + stacks)
		return diff_percent(traced + stacks, pgalloc);
	return 0.0;
}

/*
 * The forks' stacks: somewhere between none (all reused from a CPU's cache)
 * and all of them are in pgalloc without an event; the last figure is how
 * far pgalloc lies outside that range.
 */
static int report_fork_stacks(const struct page_state *st, struct kmt_output *out,
			      uint64_t pgalloc)
{
	uint64_t stacks = fork_stack_pages(st);

	if (!stacks)
		return 0;
	return kmt_output_count(out, "forks", "  tasks forked (16 KiB vmalloc'd stacks)",
				st->forks) ||
	       kmt_output_count(out, "fork_stack_pages", "  their stack pages (untraced, at most)",
				stacks) ||
	       kmt_output_value(out, "pgalloc_diff_beyond_stacks_percent",
				"  pgalloc beyond traced + 0..all stacks", KMT_KIND_PERCENT,
				(union kmt_cell){
					.d = beyond_range_percent(st->pages_alloc, stacks, pgalloc) });
}

/* Traced pages against the kernel's pgalloc_* and pgfree deltas. */
static int report_vmstat(const struct page_state *st, struct kmt_output *out)
{
	const char *a = kmt_reader_text(st->reader, KMT_TEXT_VMSTAT_START);
	const char *b = kmt_reader_text(st->reader, KMT_TEXT_VMSTAT_STOP);
	const char *why = check_blocker(st);
	uint64_t alloc0, alloc1, free0, free1;

	if (!why && (!vmstat_sum(a, "pgalloc_", false, &alloc0) ||
		     !vmstat_sum(b, "pgalloc_", false, &alloc1) ||
		     !vmstat_sum(a, "pgfree", true, &free0) || !vmstat_sum(b, "pgfree", true, &free1)))
		why = "not applicable: /proc/vmstat has no pgalloc_* or pgfree";
	if (why)
		return kmt_output_string(out, "vmstat_check", "Check against /proc/vmstat", why);
	return kmt_output_string(out, "vmstat_check", "Check against /proc/vmstat", "done") ||
	       kmt_output_count(out, "vmstat_pgalloc", "  pgalloc_* delta (pages)", alloc1 - alloc0) ||
	       kmt_output_value(out, "pgalloc_diff_percent", "  traced allocated vs pgalloc",
				KMT_KIND_PERCENT, (union kmt_cell){
					.d = diff_percent(st->pages_alloc, alloc1 - alloc0) }) ||
	       report_fork_stacks(st, out, alloc1 - alloc0) ||
	       kmt_output_count(out, "vmstat_pgfree", "  pgfree delta (pages)", free1 - free0) ||
	       kmt_output_value(out, "pgfree_diff_percent", "  traced freed vs pgfree",
				KMT_KIND_PERCENT, (union kmt_cell){
					.d = diff_percent(st->pages_freed, free1 - free0) });
}

/* Highest order with anything in it, at least 10 as perf kmem shows. */
static int max_order(const struct page_state *st)
{
	int o, max = 10;

	for (o = 0; o < PAGE_ORDERS; o++)
		if (st->orders[o].allocs || st->orders[o].frees || st->orders[o].failures)
			max = o > max ? o : max;
	return max;
}

static int report_matrix(const struct page_state *st, struct kmt_output *out)
{
	struct kmt_column cols[KMT_MIGRATETYPES + 2];
	char buf[KMT_MIGRATETYPES + 1][2][32];
	union kmt_cell row[KMT_MIGRATETYPES + 2];
	struct kmt_table *t;
	int o, m, ret = 0;

	cols[0] = (struct kmt_column){ "order", "ORDER", KMT_KIND_COUNT };
	for (m = 0; m <= KMT_MIGRATETYPES; m++) {
		const char *name = m < KMT_MIGRATETYPES ?
			kmt_migratetype_name(m, st->kernel_version, buf[m][0], 32) : "Other";
		const char *key = m < KMT_MIGRATETYPES ?
			kmt_migratetype_key(m, st->kernel_version, buf[m][1], 32) : "other";

		cols[m + 1] = (struct kmt_column){ key, name, KMT_KIND_COUNT };
	}
	t = kmt_output_table(out, "matrix", "Allocations per order and migratetype",
			     KMT_MIGRATETYPES + 2, cols);
	if (!t)
		return -1;
	for (o = 0; o <= max_order(st) && kmt_page_row_shown(st, o) && !ret; o++) {
		row[0].u = o;
		for (m = 0; m <= KMT_MIGRATETYPES; m++)
			row[m + 1].u = st->matrix[o][m];
		ret = kmt_table_row(t, row);
	}
	return ret;
}

static int by_gfp(uint32_t a, uint32_t b, void *ctx)
{
	const struct page_state *st = ctx;
	uint64_t x = st->gfps[a].gfp, y = st->gfps[b].gfp;

	return x < y ? -1 : x > y;
}

#define COUNT_COLUMNS \
	{ "allocs", "ALLOCS", KMT_KIND_COUNT }, { "pages", "PAGES", KMT_KIND_COUNT }, \
	{ "frees", "FREES", KMT_KIND_COUNT }, { "pages_freed", "PAGES_FREED", KMT_KIND_COUNT }, \
	{ "failures", "FAILURES", KMT_KIND_COUNT }, { "live_pages", "LIVE_PAGES", KMT_KIND_SIGNED }
#define NCOUNT	6

/* The sort fields of a row of counts @c. */
static struct page_sort_row count_sort_row(const struct page_count *c)
{
	return (struct page_sort_row){ .pages = c->pages, .allocs = c->allocs, .frees = c->frees,
				       .live = (int64_t)c->live_pages };
}

static void count_cells(const struct page_count *c, union kmt_cell *row)
{
	row[0].u = c->allocs;
	row[1].u = c->pages;
	row[2].u = c->frees;
	row[3].u = c->pages_freed;
	row[4].u = c->failures;
	row[5].i = (int64_t)c->live_pages;
}

/* The GFP legend (always), or with --gfp the full table per GFP value. */
static int report_gfp(const struct page_state *st, struct kmt_output *out,
		      const struct kmt_gfp_names *names)
{
	static const struct kmt_column cols[] = {
		{ "gfp", "GFP", KMT_KIND_ADDRESS }, { "flags", "FLAGS", KMT_KIND_STRING },
		COUNT_COLUMNS,
	};
	bool full = st->tables & PAGE_TABLE_GFP;
	struct page_sort_row *rows = calloc(st->ngfps + 1, sizeof(*rows));
	union kmt_cell row[2 + NCOUNT];
	uint32_t *idx = NULL, i;
	struct kmt_table *t = NULL;
	char flags[512];
	int ret = 0;

	for (i = 0; rows && i < st->ngfps; i++) {
		rows[i] = count_sort_row(&st->gfps[i].c);
		rows[i].gfp = st->gfps[i].gfp;
	}
	if (rows)
		idx = kmt_page_sorted(st, rows, st->ngfps, PAGE_COUNT_KEYS | PAGE_KEY(PAGE_SORT_GFP),
				      by_gfp, (void *)st);
	if (idx)
		t = kmt_output_table(out, full ? "gfp" : "gfp_legend",
				     full ? "Per GFP flags value" :
				     "GFP legend (flag names of the recorded kernel)",
				     full ? 2 + NCOUNT : 2, cols);
	for (i = 0; t && i < st->ngfps && kmt_page_row_shown(st, i) && !ret; i++) {
		const struct page_gfp *g = &st->gfps[idx[i]];

		kmt_gfp_format(names, g->gfp, flags, sizeof(flags));
		row[0].u = g->gfp;
		row[1].s = flags;
		count_cells(&g->c, row + 2);
		ret = kmt_table_row(t, row);
	}
	free(idx);
	free(rows);
	return t ? ret : -1;
}

/* Name of a caller row: the function [module], or its raw address. */
static const char *caller_name(struct page_state *st, uint64_t fn, char *buf, size_t len)
{
	unsigned long long start;
	const char *mod, *name = kmt_session_function(st->session, fn, &start, &mod);

	if (!name)
		snprintf(buf, len, "0x%llx", (unsigned long long)fn);
	else if (mod)
		snprintf(buf, len, "%s [%s]", name, mod);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

/*
 * The caller rows as the rollup options ask, into @rows (the caller's):
 * summed per group, named in @names, or only those under --branch.
 * Returns the number of rows, or -1 when out of memory.
 */
static long roll_up_callers(struct page_state *st, struct page_caller **rows,
			    struct kmt_rollup_result *res)
{
	bool grouped = kmt_rollup_groups(&st->rollup);
	uint32_t i, to;

	if (kmt_rollup_assign(&st->rollup, st->session, st->callers, sizeof(*st->callers),
			      offsetof(struct page_caller, start), st->ncallers, res))
		return -1;
	if (!(*rows = calloc(res->n ? res->n : 1, sizeof(**rows)))) {
		kmt_rollup_free(res);
		return -1;
	}
	for (i = 0; i < st->ncallers; i++) {
		struct page_count *c, *from = &st->callers[i].c;

		if ((to = res->of[i]) == KMT_ROLLUP_OUT)
			continue;
		c = &(*rows)[to].c;
		(*rows)[to].start = grouped ? to : st->callers[i].start;
		c->allocs += from->allocs;
		c->pages += from->pages;
		c->frees += from->frees;
		c->pages_freed += from->pages_freed;
		c->failures += from->failures;
		c->live_pages += from->live_pages;
	}
	return res->n;
}

/* Caller or stack rows (@ctx), most pages first. */
static int by_row_pages(uint32_t a, uint32_t b, void *ctx)
{
	const struct page_caller *rows = ctx;
	uint64_t x = rows[a].c.pages, y = rows[b].c.pages;

	return x > y ? -1 : x < y;
}

/* The table title and key column of the caller table as the options ask. */
static const char *callers_title(const struct kmt_rollup *ro, struct kmt_column *key,
				 char *buf, size_t len)
{
	*key = (struct kmt_column){ "caller", "CALLER", KMT_KIND_STRING };
	if (kmt_rollup_groups(ro))
		*key = (struct kmt_column){ ro->by_module ? "module" : "dir",
					    kmt_rollup_column(ro), KMT_KIND_STRING };
	snprintf(buf, len, "Per %s (first frame outside the page allocator%s%s)",
		 ro->by_module ? "module" : ro->depth ? "source directory" : "caller",
		 ro->branch[0] ? ", under " : "", ro->branch);
	return buf;
}

/*
 * The sorted indexes of the @n caller or stack rows @rows (named @names, or
 * by their function when NULL and @named). NULL when out of memory.
 */
static uint32_t *sorted_callers(struct page_state *st, const struct page_caller *rows,
				uint32_t n, char **names, bool named)
{
	struct page_sort_row *keys = calloc(n + 1, sizeof(*keys));
	uint32_t *idx, i;

	if (!keys)
		return NULL;
	for (i = 0; i < n; i++) {
		keys[i] = count_sort_row(&rows[i].c);
		keys[i].caller = names ? names[i] : named ?
				 kmt_session_function(st->session, rows[i].start, NULL, NULL) : NULL;
	}
	idx = kmt_page_sorted(st, keys, n, PAGE_COUNT_KEYS | (named ? PAGE_KEY(PAGE_SORT_CALLER) : 0),
			      by_row_pages, (void *)rows);
	free(keys);
	return idx;
}

/* --footprint: the @n directories @names of @rows beside the image's static bytes. */
static int report_static(const struct page_state *st, const struct page_caller *rows,
			 char **names, long n, struct kmt_output *out)
{
	struct kmt_rollup_dynamic *dyn = calloc(n + 1, sizeof(*dyn));
	long i;
	int ret;

	if (!dyn)
		return -1;
	for (i = 0; i < n; i++) {
		int64_t live = (int64_t)rows[i].c.live_pages;

		dyn[i] = (struct kmt_rollup_dynamic){ names[i], live > 0 ? live * st->page_size : 0,
						      rows[i].c.pages * st->page_size, 0 };
	}
	ret = kmt_rollup_report_static(&st->rollup, dyn, (uint32_t)n, false, out);
	free(dyn);
	return ret;
}

int kmt_page_report_callers(struct page_state *st, struct kmt_output *out)
{
	struct kmt_column cols[] = { { 0 }, COUNT_COLUMNS };
	struct page_caller *rows = st->callers;
	struct kmt_rollup_result res = { 0 };
	bool grouped = kmt_rollup_groups(&st->rollup);
	long n = st->ncallers;
	uint32_t *idx, i;
	union kmt_cell row[1 + NCOUNT];
	struct kmt_table *t = NULL;
	char name[256], title[384];
	int ret = 0;

	if (kmt_rollup_active(&st->rollup) && (n = roll_up_callers(st, &rows, &res)) < 0)
		return -1;
	idx = sorted_callers(st, rows, n, grouped ? res.names : NULL, true);
	if (idx)
		t = kmt_output_table(out, "callers", callers_title(&st->rollup, &cols[0], title,
								  sizeof(title)), 1 + NCOUNT, cols);
	for (i = 0; t && i < n && kmt_page_row_shown(st, i) && !ret; i++) {
		row[0].s = grouped ? res.names[idx[i]] :
			   caller_name(st, rows[idx[i]].start, name, sizeof(name));
		count_cells(&rows[idx[i]].c, row + 1);
		ret = kmt_table_row(t, row);
	}
	free(idx);
	if (!ret && t && grouped && st->rollup.statics)
		ret = report_static(st, rows, res.names, n, out);
	if (rows != st->callers) {
		free(rows);
		kmt_rollup_free(&res);
	}
	if (!ret && t)
		ret = kmt_output_count(out, "allocs_without_caller", "Allocations without a "
				       "call stack", st->no_stack) ||
		      kmt_output_count(out, "allocs_caller_unresolved", "Allocations whose "
				       "caller frame has no symbol", st->caller_unresolved);
	return t ? ret : -1;
}

int kmt_page_report_stacks(struct page_state *st, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		COUNT_COLUMNS, { "peak_live_pages", "PEAK_LIVE", KMT_KIND_COUNT },
		{ "peak_time", "PEAK_AT", KMT_KIND_NS },
		{ "stack", "STACK (allocator frames cut off)", KMT_KIND_STACK }
	};
	uint32_t *idx = sorted_callers(st, st->stack_rows, st->nstack_rows, NULL, false), i;
	char *text = malloc(KMT_STACK_TEXT_MAX);
	union kmt_cell row[NCOUNT + 3];
	struct kmt_table *t = NULL;
	int ret = -1;

	if (idx && text)
		t = kmt_output_table(out, "stacks", "Per call stack; PEAK_LIVE: most pages live "
				     "at once, first reached at PEAK_AT", NCOUNT + 3, cols);
	if (t) {
		kmt_table_weight(t, 1);		/* pages */
		ret = 0;
	}
	for (i = 0; t && i < st->nstack_rows && kmt_page_row_shown(st, i) && !ret; i++) {
		const struct page_caller *r = &st->stack_rows[idx[i]];

		count_cells(&r->c, row);
		row[NCOUNT].u = r->peak_pages;
		row[NCOUNT + 1].u = r->peak_ts;
		row[NCOUNT + 2].s = kmt_stacks_text(&st->stacks, r->start, text,
						    KMT_STACK_TEXT_MAX);
		ret = kmt_table_row(t, row);
	}
	free(idx);
	free(text);
	return ret;
}

/* The rows of @n counts @c, sorted with the table's own key @key (index order). */
static uint32_t *sorted_counts(const struct page_state *st, const struct page_count *c,
			       uint32_t n, enum page_sort_key key)
{
	struct page_sort_row *keys = calloc(n + 1, sizeof(*keys));
	uint32_t *idx, i;

	if (!keys)
		return NULL;
	for (i = 0; i < n; i++) {
		keys[i] = count_sort_row(&c[i]);
		keys[i].order = keys[i].mt = i;
	}
	idx = kmt_page_sorted(st, keys, n, PAGE_COUNT_KEYS | PAGE_KEY(key), NULL, NULL);
	free(keys);
	return idx;
}

static int report_orders(const struct page_state *st, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "order", "ORDER", KMT_KIND_COUNT }, COUNT_COLUMNS,
	};
	int n = max_order(st) + 1, i, ret = 0;
	uint32_t *idx = sorted_counts(st, st->orders, n, PAGE_SORT_ORDER);
	struct kmt_table *t = idx ? kmt_output_table(out, "orders", "Per order", 1 + NCOUNT, cols)
				  : NULL;
	union kmt_cell row[1 + NCOUNT];

	for (i = 0; t && i < n && kmt_page_row_shown(st, i) && !ret; i++) {
		row[0].u = idx[i];
		count_cells(&st->orders[idx[i]], row + 1);
		ret = kmt_table_row(t, row);
	}
	free(idx);
	return t ? ret : -1;
}

static int report_migratetypes(const struct page_state *st, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "migratetype", "MIGRATETYPE", KMT_KIND_STRING }, COUNT_COLUMNS,
	};
	uint32_t *idx = sorted_counts(st, st->mts, KMT_MIGRATETYPES + 1, PAGE_SORT_MIGRATETYPE);
	struct kmt_table *t = idx ? kmt_output_table(out, "migratetypes", "Per migratetype",
						     1 + NCOUNT, cols) : NULL;
	union kmt_cell row[1 + NCOUNT];
	char buf[32];
	int i, ret = 0;

	for (i = 0; t && i <= KMT_MIGRATETYPES && kmt_page_row_shown(st, i) && !ret; i++) {
		uint32_t m = idx[i];

		row[0].s = m < KMT_MIGRATETYPES ?
			   kmt_migratetype_name(m, st->kernel_version, buf, sizeof(buf)) : "Other";
		count_cells(&st->mts[m], row + 1);
		ret = kmt_table_row(t, row);
	}
	free(idx);
	return t ? ret : -1;
}

static int by_pages(uint32_t a, uint32_t b, void *ctx)
{
	const struct page_proc *x = &((const struct page_state *)ctx)->procs[a];
	const struct page_proc *y = &((const struct page_state *)ctx)->procs[b];

	if (x->pages_alloc != y->pages_alloc)
		return x->pages_alloc < y->pages_alloc ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int report_procs(const struct page_state *st, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
		{ "allocs", "ALLOCS", KMT_KIND_COUNT },
		{ "pages_allocated", "PAGES_ALLOC", KMT_KIND_COUNT },
		{ "frees", "FREES", KMT_KIND_COUNT },
		{ "pages_freed", "PAGES_FREED", KMT_KIND_COUNT },
		{ "net_pages", "NET", KMT_KIND_SIGNED }, { "peak_pages", "PEAK", KMT_KIND_SIGNED },
		{ "min_pages", "MIN", KMT_KIND_SIGNED },
	};
	struct kmt_table *t = kmt_output_table(out, "pids",
		"Per process (events in its context; frees of others' pages count against it)",
		9, cols);
	struct page_sort_row *keys = calloc(st->nprocs + 1, sizeof(*keys));
	uint32_t *idx = NULL, i;
	int ret = 0;

	for (i = 0; keys && i < st->nprocs; i++) {
		const struct page_proc *p = &st->procs[i];

		keys[i] = (struct page_sort_row){ .pages = p->pages_alloc, .allocs = p->allocs,
						  .frees = p->frees, .live = p->s.cur, .pid = p->pid };
	}
	if (t && keys)
		idx = kmt_page_sorted(st, keys, st->nprocs, PAGE_COUNT_KEYS | PAGE_KEY(PAGE_SORT_PID),
				      by_pages, (void *)st);
	free(keys);
	if (!idx)
		return -1;
	for (i = 0; i < st->nprocs && kmt_page_row_shown(st, i) && !ret; i++) {
		const struct page_proc *p = &st->procs[idx[i]];
		union kmt_cell row[9] = {
			{ .u = p->pid }, { .s = p->comm }, { .u = p->allocs },
			{ .u = p->pages_alloc }, { .u = p->frees }, { .u = p->pages_freed },
			{ .i = p->s.cur }, { .i = p->s.peak }, { .i = p->s.min },
		};

		ret = kmt_table_row(t, row);
	}
	free(idx);
	return ret;
}

static int report_summary(const struct page_state *st, struct kmt_output *out)
{
	char version[64] = "unknown: migratetypes as in 4.4 and later";

	if (st->kernel_version >= 0)
		snprintf(version, sizeof(version), "%d.%d", st->kernel_version / 1000,
			 st->kernel_version % 1000);
	return report_requests(st, out) || report_pages(st, out) ||
	       kmt_page_owner_summary(&st->owner, out) ||
	       kmt_output_string(out, "kernel", "Kernel (for migratetype names)", version) ||
	       report_vmstat(st, out);
}

/* The GFP names of the first kmem event whose format prints gfp_flags by name. */
static struct kmt_gfp_names *gfp_names(struct tep_handle *tep)
{
	static const char *const sources[] = { "mm_page_alloc", "kmalloc", "kmem_cache_alloc" };
	struct kmt_gfp_names *g = NULL;
	size_t i;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]) && !g; i++)
		g = kmt_gfp_names_new(tep_find_event_by_name(tep, "kmem", sources[i]));
	return g;
}

/* The per-process rows' names, as the recording knows them at its end. */
static int name_procs(struct page_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nprocs; i++)
		if (!st->procs[i].comm && !(st->procs[i].comm = kmt_task_name(st->reader, st->procs[i].pid)))
			return -1;
	return 0;
}

int kmt_page_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct page_state *st = priv;
	struct kmt_gfp_names *names;
	int ret;

	(void)s;
	if (name_procs(st))
		return -1;
	names = gfp_names(st->tep);	/* NULL: GFP values in hex */
	ret = report_summary(st, out) || report_matrix(st, out) || report_gfp(st, out, names) ||
	      ((st->tables & PAGE_TABLE_ORDER) && report_orders(st, out)) ||
	      ((st->tables & PAGE_TABLE_MIGRATETYPE) && report_migratetypes(st, out)) ||
	      ((st->tables & PAGE_TABLE_PID) && report_procs(st, out)) ||
	      ((st->tables & PAGE_TABLE_LIVE) && kmt_page_report_live(st, out, names)) ||
	      ((st->tables & PAGE_TABLE_LIVE) &&
	       kmt_page_owner_tables(&st->owner, &st->stacks, "before", st->lines, out)) ||
	      ((st->tables & PAGE_TABLE_CALLER) && st->ncallers &&
	       kmt_page_report_callers(st, out)) ||
	      ((st->tables & PAGE_TABLE_STACK) && kmt_page_report_stacks(st, out)) ||
	      (st->interval_ns && kmt_page_report_timeline(st, out));
	kmt_gfp_names_free(names);
	return ret ? -1 : 0;
}
