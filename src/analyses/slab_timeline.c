// SPDX-License-Identifier: LGPL-2.1
/*
 * slab --timeline MS: the live slab bytes of all and of each process when
 * each interval ended (taken at the first event past its end), and the
 * table of them: the total, and the processes with the most at their peak.
 */
#include <stdlib.h>
#include <string.h>

#include "slab.h"
#include "common/util.h"

static int keep_point(struct slab_state *st, uint64_t ts, uint64_t live, uint32_t pid)
{
	if (kmt_grow(&st->points, &st->cap_points, st->npoints, sizeof(*st->points)))
		return -1;
	st->points[st->npoints++] = (struct slab_point){ ts, live, pid };
	return 0;
}

int kmt_slab_tick(struct slab_state *st, uint64_t ts)
{
	uint32_t i;

	if (!st->next_tick)
		st->next_tick = ts + st->o.timeline_ns;
	if (ts < st->next_tick)
		return 0;
	if (keep_point(st, st->next_tick, st->total.live_bytes, SLAB_NO_ROW))
		return -1;
	for (i = 0; i < st->pids.n; i++)
		if (st->pids.rows[i].st.live_bytes &&
		    keep_point(st, st->next_tick, st->pids.rows[i].st.live_bytes, i))
			return -1;
	st->next_tick = kmt_boundary_after(st->next_tick, ts, st->o.timeline_ns);
	return 0;
}

/* Peak live bytes of each pid row in the points; NULL when out of memory. */
static uint64_t *peaks_of(const struct slab_state *st)
{
	uint64_t *peak = calloc(st->pids.n ? st->pids.n : 1, sizeof(*peak));
	uint32_t i;

	for (i = 0; peak && i < st->npoints; i++) {
		const struct slab_point *p = &st->points[i];

		if (p->pid != SLAB_NO_ROW && p->live > peak[p->pid])
			peak[p->pid] = p->live;
	}
	return peak;
}

static int by_peak(uint32_t a, uint32_t b, void *ctx)
{
	const uint64_t *peak = ctx;

	return peak[a] != peak[b] ? (peak[a] < peak[b] ? 1 : -1) : (a > b) - (a < b);
}

static const struct kmt_column cols[] = {
	{ "start", "START", KMT_KIND_NS }, { "pid", "PID", KMT_KIND_COUNT },
	{ "comm", "COMM", KMT_KIND_STRING }, { "live_bytes", "LIVE", KMT_KIND_BYTES },
};

int kmt_slab_report_timeline(const struct slab_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "timeline", "Live slab bytes at each "
					       "interval's end, all (pid 0) and per process", 4, cols);
	uint64_t *peak = peaks_of(st);
	uint32_t *order = peak ? kmt_sorted_index(st->pids.n, by_peak, peak) : NULL, i, k;
	bool *shown = calloc(st->pids.n ? st->pids.n : 1, sizeof(*shown));
	int ret = t && order && shown ? 0 : -1;

	for (k = 0; !ret && k < st->pids.n && (st->o.lines < 0 || k < st->o.lines); k++)
		shown[order[k]] = peak[order[k]] > 0;
	for (i = 0; !ret && i < st->npoints; i++) {
		const struct slab_point *p = &st->points[i];
		bool all = p->pid == SLAB_NO_ROW;

		if (!all && !shown[p->pid])
			continue;
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = p->ts }, { .u = all ? 0 : st->pids.rows[p->pid].key },
			{ .s = all ? "all" : st->pids.rows[p->pid].name }, { .u = p->live } });
	}
	free(shown);
	free(order);
	free(peak);
	return ret;
}
