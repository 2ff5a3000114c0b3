// SPDX-License-Identifier: LGPL-2.1
/*
 * page: outstanding pages as series over time, and the --timeline table:
 * per interval, the peak of the total and of the top processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"
#include "util.h"

void page_series_free(struct page_series *s)
{
	free(s->points);
	s->points = NULL;
	s->npoints = s->cap = 0;
}

/* Record @value (reached from @before) in interval @idx. */
static int add_point(struct page_series *s, uint32_t idx, int64_t before, int64_t value)
{
	struct page_point *last = s->npoints ? &s->points[s->npoints - 1] : NULL;

	if (last && last->interval == idx) {
		if (value > last->peak)
			last->peak = value;
		last->end = value;
		return 0;
	}
	if (s->npoints == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		struct page_point *p = realloc(s->points, cap * sizeof(*p));

		if (!p)
			return -1;
		s->points = p;
		s->cap = cap;
	}
	/* The interval starts at the value carried in: it counts for the peak. */
	s->points[s->npoints++] = (struct page_point){ idx, before > value ? before : value,
						       value };
	return 0;
}

int page_series_set(struct page_series *s, int64_t value, uint64_t ts,
		    const struct page_state *st)
{
	int64_t before = s->cur;

	s->cur = value;
	if (value > s->peak) {
		s->peak = value;
		s->peak_ts = ts;
	}
	if (value < s->min)
		s->min = value;
	if (!st->interval_ns)
		return 0;
	return add_point(s, (ts - st->first_ts) / st->interval_ns, before, value);
}

/* Value of @s in every one of @n intervals: its peak there, else the value carried. */
static void fill_values(const struct page_series *s, int64_t *out, uint32_t n)
{
	int64_t carried = 0;
	uint32_t i, p = 0;

	for (i = 0; i < n; i++) {
		if (p < s->npoints && s->points[p].interval == i) {
			out[i] = s->points[p].peak;
			carried = s->points[p++].end;
		} else {
			out[i] = carried;
		}
	}
}

static int by_peak(uint32_t a, uint32_t b, void *ctx)
{
	const struct page_proc *x = &((const struct page_state *)ctx)->procs[a];
	const struct page_proc *y = &((const struct page_state *)ctx)->procs[b];

	if (x->s.peak != y->s.peak)
		return x->s.peak < y->s.peak ? 1 : -1;
	return x->pid - y->pid;
}

/* Column names of process @p: key "pid_N", header "COMM/N" (in @names). */
static void proc_column(const struct page_proc *p, struct kmt_column *col, char *names)
{
	snprintf(names, 32, "pid_%d", p->pid);
	snprintf(names + 32, 48, "%.30s/%d", p->comm ? p->comm : "?", p->pid);
	*col = (struct kmt_column){ names, names + 32, KMT_KIND_SIGNED };
}

static int timeline_rows(const struct page_state *st, struct kmt_table *t, int64_t **vals,
			 uint32_t ncols, uint32_t nint)
{
	union kmt_cell *row = calloc(ncols + 1, sizeof(*row));
	uint32_t i, c;
	int ret = 0;

	if (!row)
		return -1;
	for (i = 0; i < nint && !ret; i++) {
		row[0].u = st->first_ts + (uint64_t)i * st->interval_ns;
		for (c = 0; c < ncols; c++)
			row[c + 1].i = vals[c][i];
		ret = kmt_table_row(t, row);
	}
	free(row);
	return ret;
}

int page_report_timeline(struct page_state *st, struct kmt_output *out)
{
	uint32_t ntop = st->lines >= 0 ? st->lines : PAGE_TOP_DEFAULT, nint, c, *top;
	struct kmt_column *cols;
	int64_t **vals;
	char *names;
	int ret = -1;

	nint = st->last_ts >= st->first_ts && st->alloc_req + st->free_req ?
	       (st->last_ts - st->first_ts) / st->interval_ns + 1 : 0;
	/* The processes with the highest peaks, highest first. */
	top = kmt_sorted_index(st->nprocs, by_peak, st);
	if (ntop > st->nprocs)
		ntop = st->nprocs;
	cols = calloc(ntop + 2, sizeof(*cols));
	vals = calloc(ntop + 1, sizeof(*vals));
	names = calloc(ntop + 1, 80);
	if (!top || !cols || !vals || !names)
		goto out;
	cols[0] = (struct kmt_column){ "start", "INTERVAL_START", KMT_KIND_NS };
	cols[1] = (struct kmt_column){ "total", "TOTAL", KMT_KIND_SIGNED };
	for (c = 0; c < ntop; c++)
		proc_column(&st->procs[top[c]], &cols[c + 2], names + 80 * c);
	for (c = 0; c <= ntop; c++) {
		if (!(vals[c] = calloc(nint ? nint : 1, sizeof(**vals))))
			goto out;
		fill_values(c ? &st->procs[top[c - 1]].s : &st->total, vals[c], nint);
	}
	struct kmt_table *t = kmt_output_table(out, "timeline",
		"Outstanding pages, peak per interval (total and top processes)", ntop + 2, cols);
	ret = t ? timeline_rows(st, t, vals, ntop + 1, nint) : -1;
out:
	for (c = 0; vals && c <= ntop; c++)
		free(vals[c]);
	free(vals);
	free(names);
	free(cols);
	free(top);
	return ret;
}
