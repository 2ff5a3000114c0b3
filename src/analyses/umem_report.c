// SPDX-License-Identifier: LGPL-2.1
/*
 * umem's report: totals, a row per process (calls per function, bytes
 * asked for, live heap at the end and at its peak), a row per caller, the
 * leaks (objects still live at the end, by caller, with their ages) and
 * the --timeline of each process's live heap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "umem.h"
#include "common/util.h"

#define SYM_MAX	512

/* Live objects at the end, per caller: how many, and the oldest and newest. */
struct leak_ages {
	uint64_t oldest, newest;
};

static const char *comm_of(const struct umem_state *st, int tgid)
{
	const char *c = kmt_reader_comm(st->reader, tgid);

	return c ? c : "<...>";
}

static void caller_name(const struct umem_state *st, const struct umem_caller *c,
			char sym[SYM_MAX])
{
	if (st->session)
		kmt_session_user_symbol(st->session, c->tgid, c->addr, sym, SYM_MAX);
	else
		snprintf(sym, SYM_MAX, "0x%llx", (unsigned long long)c->addr);
}

/*
 * Sampled processes: how many had their calls counted exactly (at exit()),
 * how many did not (left by _exit(), a signal or exec), and the calls
 * counted by function only.
 */
static int exactness(const struct umem_state *st, struct kmt_output *out)
{
	uint64_t whole = 0, estimated = 0, apart = 0;
	uint32_t i;

	for (i = 0; i < st->nprocs; i++) {
		whole += st->procs[i].sampled && st->procs[i].whole;
		estimated += st->procs[i].sampled && !st->procs[i].whole;
		apart += st->procs[i].whole ? st->procs[i].apart_calls : 0;
	}
	return kmt_output_count(out, "processes_counted", "Sampled processes whose calls were "
				"counted exactly (calls and bytes per caller are exact)", whole) ||
	       kmt_output_count(out, "processes_estimated", "Sampled processes without exact "
				"counts (ended by _exit(), a signal or exec: estimates)",
				estimated) ||
	       kmt_output_count(out, "calls_without_site", "Allocations counted without their "
				"call site (the library's site table was full)", apart);
}

/* record --user-sample (or an LTTng trace, every call): how the figures were sampled. */
static int sampling(const struct umem_state *st, struct kmt_output *out)
{
	if (!st->samples)
		return 0;
	return kmt_output_count(out, "sample_records", "Records of the sampling library (or of "
				"LTTng's libc wrapper)", st->samples) ||
	       kmt_output_value(out, "sample_interval", "Mean bytes between samples (above 1: "
				"live figures are estimates, calls and bytes where COUNTS says)",
				KMT_KIND_BYTES, (union kmt_cell){ .u = st->interval }) ||
	       kmt_output_count(out, "unfollowed", "Sampled objects not followed to their free "
				"(the library's table was full)", st->unfollowed) ||
	       exactness(st, out);
}

static int totals(const struct umem_state *st, struct kmt_output *out)
{
	uint64_t calls = 0, live = 0, objs = 0, failed = 0, untracked = 0, users = 0;
	uint32_t i;
	int f;

	for (i = 0; i < st->nprocs; i++) {
		users += st->procs[i].user;
		for (f = KMT_UF_NONE + 1; f < KMT_UF_NR; f++)
			calls += st->procs[i].calls[f];
		live += st->procs[i].live_bytes;
		objs += st->procs[i].live_objs;
		failed += st->procs[i].failed;
		untracked += st->procs[i].untracked_frees;
	}
	return kmt_output_count(out, "processes", "Processes with allocator calls", users) ||
	       kmt_output_count(out, "calls", "Allocator calls", calls) ||
	       kmt_output_count(out, "failed", "Failed calls (NULL returned)", failed) ||
	       kmt_output_value(out, "live_bytes", "Live at the end", KMT_KIND_BYTES,
				(union kmt_cell){ .u = live }) ||
	       kmt_output_count(out, "live_objects", "Live objects at the end", objs) ||
	       kmt_output_count(out, "untracked_frees", "Frees of pointers not seen allocated",
				untracked) ||
	       kmt_output_count(out, "nested_calls", "Calls inside another allocator call "
				"(not counted)", st->nested) ||
	       kmt_output_count(out, "unmatched_returns", "Returns without their call",
				st->unmatched_returns) ||
	       kmt_output_count(out, "posix_memalign_untracked", "posix_memalign objects "
				"(pointer not readable: not followed)", st->unknown_pointers) ||
	       sampling(st, out);
}

#define CALL_COLUMNS \
	{ "malloc", "MALLOC", KMT_KIND_COUNT }, { "calloc", "CALLOC", KMT_KIND_COUNT }, \
	{ "realloc", "REALLOC", KMT_KIND_COUNT }, { "free", "FREE", KMT_KIND_COUNT }, \
	{ "memalign", "MEMALIGN", KMT_KIND_COUNT }, { "valloc", "VALLOC", KMT_KIND_COUNT }, \
	{ "pvalloc", "PVALLOC", KMT_KIND_COUNT }, \
	{ "posix_memalign", "POSIX_MEMALIGN", KMT_KIND_COUNT }

static const struct kmt_column proc_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING }, CALL_COLUMNS,
	{ "requested", "REQUESTED", KMT_KIND_BYTES }, { "live_bytes", "LIVE", KMT_KIND_BYTES },
	{ "live_objects", "LIVE_OBJS", KMT_KIND_COUNT },
	{ "peak_live_bytes", "PEAK_LIVE", KMT_KIND_BYTES }, { "peak_time", "PEAK_TIME", KMT_KIND_NS },
	{ "failed", "FAILED", KMT_KIND_COUNT },
	{ "untracked_frees", "UNTRACKED_FREES", KMT_KIND_COUNT },
	{ "counts", "COUNTS", KMT_KIND_STRING },
};
#define NPROC_COLS	(sizeof(proc_cols) / sizeof(proc_cols[0]))

static int by_live(uint32_t a, uint32_t b, void *ctx)
{
	const struct umem_proc *x = &((const struct umem_proc *)ctx)[a];
	const struct umem_proc *y = &((const struct umem_proc *)ctx)[b];

	if (x->peak_bytes != y->peak_bytes)
		return x->peak_bytes < y->peak_bytes ? 1 : -1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static int process_table(const struct umem_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "processes", "Per process", NPROC_COLS,
					       proc_cols);
	uint32_t *idx = kmt_sorted_index(st->nprocs, by_live, st->procs), i, rows = 0;
	int ret = t && idx ? 0 : -1, f;

	for (i = 0; !ret && i < st->nprocs && (st->lines < 0 || rows < (uint32_t)st->lines); i++) {
		const struct umem_proc *p = &st->procs[idx[i]];
		union kmt_cell c[NPROC_COLS];
		int k = 0;

		if (!p->user)
			continue;
		rows++;
		c[k++].u = p->tgid;
		c[k++].s = comm_of(st, p->tgid);
		for (f = KMT_UF_NONE + 1; f < KMT_UF_NR; f++)
			c[k++].u = p->calls[f];
		c[k++].u = p->requested;
		c[k++].u = p->live_bytes;
		c[k++].u = p->live_objs;
		c[k++].u = p->peak_bytes;
		c[k++].u = p->peak_ts;
		c[k++].u = p->failed;
		c[k++].u = p->untracked_frees;
		c[k++].s = !p->sampled ? "every call" : p->whole ? "exact" : "estimated";
		ret = kmt_table_row(t, c);
	}
	free(idx);
	return ret;
}

static int by_bytes(uint32_t a, uint32_t b, void *ctx)
{
	const struct umem_caller *x = &((const struct umem_caller *)ctx)[a];
	const struct umem_caller *y = &((const struct umem_caller *)ctx)[b];

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const struct kmt_column caller_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "caller", "CALLER", KMT_KIND_SYMBOL },
	{ "calls", "CALLS", KMT_KIND_COUNT }, { "bytes", "BYTES", KMT_KIND_BYTES },
	{ "live_bytes", "LIVE", KMT_KIND_BYTES }, { "live_objects", "LIVE_OBJS", KMT_KIND_COUNT },
	{ "failed", "FAILED", KMT_KIND_COUNT },
};

static int caller_table(const struct umem_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "callers", "Per caller (allocations)",
					       7, caller_cols);
	uint32_t *idx = kmt_sorted_index(st->ncallers, by_bytes, st->callers), i;
	int ret = t && idx ? 0 : -1;

	for (i = 0; !ret && i < st->ncallers && (st->lines < 0 || i < (uint32_t)st->lines); i++) {
		const struct umem_caller *c = &st->callers[idx[i]];
		char sym[SYM_MAX];

		caller_name(st, c, sym);
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = c->tgid }, { .s = sym }, { .u = c->calls }, { .u = c->bytes },
			{ .u = c->live_bytes }, { .u = c->live_objs }, { .u = c->failed } });
	}
	free(idx);
	return ret;
}

static int by_live_bytes(uint32_t a, uint32_t b, void *ctx)
{
	const struct umem_caller *x = &((const struct umem_caller *)ctx)[a];
	const struct umem_caller *y = &((const struct umem_caller *)ctx)[b];

	if (x->live_bytes != y->live_bytes)
		return x->live_bytes < y->live_bytes ? 1 : -1;
	return by_bytes(a, b, ctx);
}

/* The oldest and newest live object of each caller, from one walk of the objects. */
static struct leak_ages *leak_ages(const struct umem_state *st)
{
	struct leak_ages *ages = calloc(st->ncallers ? st->ncallers : 1, sizeof(*ages));
	const void *item;
	size_t pos = 0;
	uint64_t key;

	while (ages && kmt_objmap_next(&st->objs, &pos, &key, &item)) {
		const struct umem_obj *o = item;
		struct leak_ages *a = &ages[o->caller];

		if (!a->oldest || o->ts < a->oldest)
			a->oldest = o->ts;
		if (o->ts > a->newest)
			a->newest = o->ts;
	}
	return ages;
}

static const struct kmt_column leak_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "caller", "CALLER", KMT_KIND_SYMBOL },
	{ "objects", "OBJECTS", KMT_KIND_COUNT }, { "bytes", "BYTES", KMT_KIND_BYTES },
	{ "oldest_age", "OLDEST_AGE", KMT_KIND_NS }, { "newest_age", "NEWEST_AGE", KMT_KIND_NS },
};

static int leak_table(const struct umem_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "leaks", "Live at the end (possible leaks), "
					       "per caller; ages at the last event", 6, leak_cols);
	uint32_t *idx = kmt_sorted_index(st->ncallers, by_live_bytes, st->callers), i, rows = 0;
	struct leak_ages *ages = leak_ages(st);
	int ret = t && idx && ages ? 0 : -1;

	for (i = 0; !ret && i < st->ncallers && (st->lines < 0 || rows < (uint32_t)st->lines);
	     i++) {
		const struct umem_caller *c = &st->callers[idx[i]];
		char sym[SYM_MAX];

		if (!c->live_objs)
			continue;
		caller_name(st, c, sym);
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = c->tgid }, { .s = sym }, { .u = c->live_objs }, { .u = c->live_bytes },
			{ .u = st->last_ts - ages[idx[i]].oldest },
			{ .u = st->last_ts - ages[idx[i]].newest } });
		rows++;
	}
	free(ages);
	free(idx);
	return ret;
}

static const struct kmt_column memory_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
	{ "live_heap", "LIVE_HEAP", KMT_KIND_BYTES }, { "anon_rss", "ANON_RSS", KMT_KIND_BYTES },
	{ "rss_over_heap", "RSS-HEAP", KMT_KIND_SIGNED },
	{ "heap_percent", "HEAP/RSS", KMT_KIND_PERCENT },
	{ "peak_heap", "PEAK_HEAP", KMT_KIND_BYTES }, { "peak_anon_rss", "PEAK_RSS", KMT_KIND_BYTES },
	{ "kernel_slab", "KERNEL_SLAB", KMT_KIND_BYTES },
	{ "kernel_pages", "KERNEL_PAGES", KMT_KIND_BYTES },
};

/*
 * The view beside each other: live malloc heap, anonymous RSS (what the
 * heap costs in pages: retained or fragmented heap shows as RSS far above
 * it) and kernel memory allocated in the process, at the end.
 */
static int memory_table(const struct umem_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "memory", "Heap, anonymous RSS and kernel "
					       "memory per process at the end", 10, memory_cols);
	uint32_t *idx = kmt_sorted_index(st->nprocs, by_live, st->procs), i, rows = 0;
	int ret = t && idx ? 0 : -1;

	for (i = 0; !ret && i < st->nprocs && (st->lines < 0 || rows < (uint32_t)st->lines); i++) {
		const struct umem_proc *p = &st->procs[idx[i]];

		if (!p->user)
			continue;
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = p->tgid }, { .s = comm_of(st, p->tgid) }, { .u = p->live_bytes },
			{ .u = p->anon_rss },
			{ .i = p->have_rss ? (long long)p->anon_rss - (long long)p->live_bytes : 0 },
			{ .d = p->anon_rss ? 100.0 * p->live_bytes / p->anon_rss : 0 },
			{ .u = p->peak_bytes }, { .u = p->anon_rss_peak }, { .u = p->kslab_live },
			{ .u = p->kpages_live } });
		rows++;
	}
	free(idx);
	return ret;
}

static const struct kmt_column timeline_cols[] = {
	{ "time", "TIME", KMT_KIND_NS }, { "pid", "PID", KMT_KIND_COUNT },
	{ "comm", "COMM", KMT_KIND_STRING }, { "live_bytes", "LIVE", KMT_KIND_BYTES },
	{ "anon_rss", "ANON_RSS", KMT_KIND_BYTES }, { "kernel_slab", "KERNEL_SLAB", KMT_KIND_BYTES },
	{ "kernel_pages", "KERNEL_PAGES", KMT_KIND_BYTES },
	{ "asked", "ASKED", KMT_KIND_BYTES },
};

static int timeline_table(const struct umem_state *st, struct kmt_output *out)
{
	struct kmt_table *t;
	uint32_t i;
	int ret = 0;

	if (!st->timeline_ns)
		return 0;
	t = kmt_output_table(out, "timeline", "Heap, anonymous RSS and kernel memory per process "
			     "at each interval's end; ASKED: bytes allocated since its row before",
			     8, timeline_cols);
	for (i = 0; t && !ret && i < st->npoints; i++) {
		const struct umem_point *p = &st->points[i];

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = p->ts }, { .u = p->tgid }, { .s = comm_of(st, p->tgid) },
			{ .u = p->live }, { .u = p->anon_rss }, { .u = p->kslab },
			{ .u = p->kpages }, { .u = p->asked } });
	}
	return t ? ret : -1;
}

int kmt_umem_report(struct umem_state *st, struct kmt_output *out)
{
	kmt_umem_exact_counts(st);
	return totals(st, out) || process_table(st, out) || memory_table(st, out) ||
	       caller_table(st, out) || kmt_umem_stack_table(st, out) || leak_table(st, out) ||
	       timeline_table(st, out) ? -1 : 0;
}
