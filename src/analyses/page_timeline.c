// SPDX-License-Identifier: LGPL-2.1
/*
 * page: outstanding pages as series over time, and the --timeline table:
 * per interval, the peak of the total and of the top processes. Only
 * intervals in which pages were allocated or freed have rows, so the table
 * follows the events, not the time span the file covers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"
#include "common/util.h"

void kmt_page_series_free(struct page_series *s)
{
	free(s->points);
	s->points = NULL;
	s->npoints = s->cap = 0;
}

/* Record @value (reached from @before) in interval @idx. */
static int add_point(struct page_series *s, uint64_t idx, int64_t before, int64_t value)
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

int kmt_page_series_set(struct page_series *s, int64_t value, uint64_t ts,
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

/* Where a column's series stands while the rows go by. */
struct cursor {
	const struct page_series *s;
	uint32_t next;		/* its first point not passed yet */
	int64_t carried;	/* its value at the end of the last point passed */
};

/* The value of @c's series in interval @idx: its peak there, else the value carried. */
static int64_t value_at(struct cursor *c, uint64_t idx)
{
	while (c->next < c->s->npoints && c->s->points[c->next].interval < idx)
		c->carried = c->s->points[c->next++].end;
	if (c->next < c->s->npoints && c->s->points[c->next].interval == idx) {
		c->carried = c->s->points[c->next].end;
		return c->s->points[c->next++].peak;
	}
	return c->carried;
}

static int by_peak(uint32_t a, uint32_t b, void *ctx)
{
	const struct page_proc *x = &((const struct page_state *)ctx)->procs[a];
	const struct page_proc *y = &((const struct page_state *)ctx)->procs[b];

	if (x->s.peak != y->s.peak)
		return x->s.peak < y->s.peak ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Column names of process @p: key "pid_N", header "COMM/N" (in @names). */
static void proc_column(const struct page_proc *p, struct kmt_column *col, char *names)
{
	snprintf(names, 32, "pid_%d", p->pid);
	snprintf(names + 32, 48, "%.30s/%d", p->comm ? p->comm : "?", p->pid);
	*col = (struct kmt_column){ names, names + 32, KMT_KIND_SIGNED };
}

/* A row per interval of the total's points: every page event moves the total. */
static int timeline_rows(const struct page_state *st, struct kmt_table *t, struct cursor *cols,
			 uint32_t ncols)
{
	union kmt_cell *row = calloc(ncols + 1, sizeof(*row));
	uint32_t i, c;
	int ret = 0;

	if (!row)
		return -1;
	for (i = 0; i < st->total.npoints && !ret; i++) {
		uint64_t idx = st->total.points[i].interval;

		row[0].u = st->first_ts + idx * st->interval_ns;
		for (c = 0; c < ncols; c++)
			row[c + 1].i = value_at(&cols[c], idx);
		ret = kmt_table_row(t, row);
	}
	free(row);
	return ret;
}

int kmt_page_report_timeline(struct page_state *st, struct kmt_output *out)
{
	uint32_t ntop = st->lines >= 0 ? st->lines : PAGE_TOP_DEFAULT, c, *top;
	struct kmt_column *cols;
	struct cursor *cursors;
	struct kmt_table *t;
	char *names;
	int ret = -1;

	/* The processes with the highest peaks, highest first. */
	top = kmt_sorted_index(st->nprocs, by_peak, st);
	if (ntop > st->nprocs)
		ntop = st->nprocs;
	cols = calloc(ntop + 2, sizeof(*cols));
	cursors = calloc(ntop + 1, sizeof(*cursors));
	names = calloc(ntop + 1, 80);
	if (!top || !cols || !cursors || !names)
		goto out;
	cols[0] = (struct kmt_column){ "start", "INTERVAL_START", KMT_KIND_NS };
	cols[1] = (struct kmt_column){ "total", "TOTAL", KMT_KIND_SIGNED };
	cursors[0].s = &st->total;
	for (c = 0; c < ntop; c++) {
		proc_column(&st->procs[top[c]], &cols[c + 2], names + 80 * c);
		cursors[c + 1].s = &st->procs[top[c]].s;
	}
	t = kmt_output_table(out, "timeline", "Outstanding pages, peak per interval with page "
			     "events (total and top processes)", ntop + 2, cols);
	ret = t ? timeline_rows(st, t, cursors, ntop + 1) : -1;
out:
	free(names);
	free(cursors);
	free(cols);
	free(top);
	return ret;
}
