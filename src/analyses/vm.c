// SPDX-License-Identifier: LGPL-2.1
/*
 * vm: per process mapped virtual memory from mmap/munmap/mremap/brk
 * (counts, bytes, net and peak), and RSS per member (file, anon, swap,
 * shmem) from kmem:rss_stat with peaks, over time with --timeline:
 * SystemTap's proc_mem_* figures, followed through the whole run.
 *
 * rss_stat names an address space by mm_id, which the kernel gives the
 * next one once an mm is freed. An address space here is left when the
 * last task seen in it exits or is seen in another one (after exec, which
 * the kernel traces only once the task runs in its new mm); the rss_stat
 * that follow (its teardown, counters going down to zero) still belong to
 * it. Once they are
 * all zero, or a task runs in an mm of that id again, the id names a new
 * address space, owned by the first task seen in it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "exited.h"
#include "filter.h"
#include "common/util.h"
#include "vmmap.h"

#define RSS_MEMBERS	4	/* MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES */
#define VM_TOP_DEFAULT	20

/* One address space as rss_stat shows it, owned by the first task seen in it. */
struct vm_mm {
	uint64_t mm_id;
	int pid;
	uint32_t seq;			/* order of making, from 1; 0: a row given back */
	uint32_t users;			/* tasks seen in it that have not left it */
	bool left;			/* by all of them: only its teardown may follow */
	int64_t cur[RSS_MEMBERS], peak[RSS_MEMBERS];
	int64_t rss_peak;		/* file + anon + shmem at its highest */
	uint64_t rss_peak_ts;
};

/* A point of the --timeline: values at the end of an interval. */
struct vm_point {
	uint64_t interval;
	int pid;
	int64_t mapped;
	int64_t rss[RSS_MEMBERS];
};

struct vm_state {
	struct kmt_filter filter;
	uint64_t interval_ns;
	long long lines;
	struct kmt_reader *reader;	/* names of tasks */
	struct vmmap map;
	struct kmt_exited exited;	/* tasks exited whose rows may still be shown */
	struct kmt_hashmap mm_index;	/* mm_id -> index + 1 of its address space now */
	struct kmt_hashmap pid_mm;	/* pid -> index + 1 of the mm it is in */
	struct kmt_hashmap command_tasks;	/* the command's and its descendants' pids */
	struct vm_mm *mms;
	uint32_t nmms, mms_cap;		/* rows, given-back ones included */
	uint32_t mms_made;		/* the last one's seq */
	struct kmt_exited mm_rows;	/* ended address spaces that may still be shown */
	struct vm_mm command_gone;	/* the command's highest one of those given back */
	struct vm_point *points;
	uint32_t npoints, points_cap;
	uint64_t first_ts;
	bool started;			/* first_ts is set */
	uint64_t rss_events;
	bool have_rusage;
	long long ru_maxrss_kb;
	int ru_pid;
};

enum { OPT_TIMELINE = 0x300 };

static const struct option vm_longopts[] = {
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "lines", required_argument, NULL, 'l' },
	{ NULL, 0, NULL, 0 }
};

static void vm_free(void *priv)
{
	struct vm_state *st = priv;

	kmt_filter_free(&st->filter);
	kmt_vmmap_free(&st->map);
	kmt_exited_free(&st->exited);
	kmt_exited_free(&st->mm_rows);
	kmt_hashmap_free(&st->mm_index);
	kmt_hashmap_free(&st->pid_mm);
	kmt_hashmap_free(&st->command_tasks);
	free(st->mms);
	free(st->points);
	free(st);
}

static void *vm_init(void)
{
	struct vm_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->lines = VM_TOP_DEFAULT;
	if (kmt_filter_init(&st->filter) || kmt_vmmap_init(&st->map) ||
	    kmt_hashmap_init(&st->mm_index) || kmt_hashmap_init(&st->pid_mm) ||
	    kmt_hashmap_init(&st->command_tasks)) {
		vm_free(st);
		return NULL;
	}
	return st;
}

static int vm_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	struct vm_state *st = priv;

	switch (key) {
	case OPT_TIMELINE:
		return kmt_parse_interval_ms(arg, &st->interval_ns, err);
	case 'l':
		return kmt_parse_count(arg, "line count", &st->lines, err);
	default:
		kmt_error_set(err, NULL, -1, "unknown option");
		return -1;
	}
}

static struct kmt_filter *vm_filter(void *priv)
{
	return &((struct vm_state *)priv)->filter;
}

/* The mappings table's order: highest peak first, then by pid and making; slots given back last. */
static int by_peak(uint32_t a, uint32_t b, void *ctx)
{
	const struct vm_state *st = ctx;
	const struct vm_task *x = &st->map.tasks[a], *y = &st->map.tasks[b];

	if (!x->seq || !y->seq)
		return !x->seq - !y->seq;
	if (x->peak != y->peak)
		return x->peak < y->peak ? 1 : -1;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Task slot @idx of an exited task settled: the pid's next task gets a slot of its own. */
static void detach_task(void *ctx, uint32_t idx)
{
	kmt_vmmap_forget(&((struct vm_state *)ctx)->map, idx);
}

/* Task slot @idx can no longer be shown: given back. 0, or -1 out of memory. */
static int drop_task(void *ctx, uint32_t idx)
{
	return kmt_vmmap_give_back(&((struct vm_state *)ctx)->map, idx);
}

static const struct kmt_exited_ops task_rows = {
	.rank = by_peak, .detach = detach_task, .drop = drop_task,
};

/* @x ranks above @y in the rss table: the higher RSS peak, then the one made first. */
static bool mm_above(const struct vm_mm *x, const struct vm_mm *y)
{
	if (x->rss_peak != y->rss_peak)
		return x->rss_peak > y->rss_peak;
	return x->seq < y->seq;
}

/* The rss table's order; rows given back last. */
static int by_rss_peak(uint32_t a, uint32_t b, void *ctx)
{
	const struct vm_state *st = ctx;
	const struct vm_mm *x = &st->mms[a], *y = &st->mms[b];

	if (!x->seq || !y->seq)
		return !x->seq - !y->seq;
	return a == b ? 0 : mm_above(x, y) ? -1 : 1;
}

/* Is @m one of the command's (its owner the command or a descendant)? */
static bool command_owns(const struct vm_state *st, const struct vm_mm *m)
{
	uint64_t one;

	return st->have_rusage && kmt_hashmap_get(&st->command_tasks, m->pid, &one);
}

/* Row @idx of an ended address space can no longer be shown: given back. 0, or -1. */
static int drop_mm(void *ctx, uint32_t idx)
{
	struct vm_state *st = ctx;
	const struct vm_mm *m = &st->mms[idx];

	if (command_owns(st, m) && (!st->command_gone.seq || mm_above(m, &st->command_gone)))
		st->command_gone = *m;	/* the summary's may be this one */
	st->mms[idx] = (struct vm_mm){ 0 };
	return kmt_exited_give(&st->mm_rows, idx);
}

static const struct kmt_exited_ops mm_rows = { .rank = by_rss_peak, .drop = drop_mm };

static int vm_start(void *priv, const struct kmt_session *s)
{
	struct vm_state *st = priv;
	const char *ru;

	if (!s)
		return 0;
	st->reader = s->reader;
	st->filter.reader = s->reader;
	kmt_exited_init(&st->exited, st->lines, &task_rows, st);
	kmt_exited_init(&st->mm_rows, st->lines, &mm_rows, st);
	ru = kmt_reader_text(s->reader, KMT_TEXT_RUSAGE);
	st->have_rusage = ru && sscanf(ru, "pid=%d minflt=%*d majflt=%*d maxrss_kb=%lld",
				       &st->ru_pid, &st->ru_maxrss_kb) == 2;
	if (st->have_rusage && kmt_hashmap_put(&st->command_tasks, st->ru_pid, 1))
		return -1;
	return 0;
}

static bool all_zero(const struct vm_mm *m)
{
	int i;

	for (i = 0; i < RSS_MEMBERS; i++)
		if (m->cur[i])
			return false;
	return true;
}

/*
 * @m is gone: its mm_id may name a new address space, and its row is
 * final (no task is in it). 0, or -1 when out of memory.
 */
static int end_mm(struct vm_state *st, const struct vm_mm *m)
{
	uint64_t cur;

	if (!kmt_hashmap_get(&st->mm_index, m->mm_id, &cur) || &st->mms[cur - 1] != m)
		return 0;
	kmt_hashmap_del(&st->mm_index, m->mm_id, NULL);
	return kmt_exited_final(&st->mm_rows, (uint32_t)(cur - 1));
}

/* The address space @mm_id names now; a new one when an event shows the old one gone. */
static struct vm_mm *mm_of(struct vm_state *st, uint64_t mm_id, bool curr)
{
	uint64_t idx;
	struct vm_mm *m;
	uint32_t i;

	if (kmt_hashmap_get(&st->mm_index, mm_id, &idx)) {
		m = &st->mms[idx - 1];
		if (!m->left || (!curr && !all_zero(m)))
			return m;
		if (end_mm(st, m))
			return NULL;
	}
	if (kmt_exited_reuse(&st->mm_rows, &i)) {
		if (kmt_hashmap_put(&st->mm_index, mm_id, i + 1)) {
			kmt_exited_give(&st->mm_rows, i);	/* has room: it came from there */
			return NULL;
		}
	} else if (kmt_grow(&st->mms, &st->mms_cap, st->nmms, sizeof(*st->mms)) ||
		   kmt_hashmap_put(&st->mm_index, mm_id, st->nmms + 1)) {
		return NULL;
	} else {
		i = st->nmms++;
	}
	m = &st->mms[i];
	*m = (struct vm_mm){ .mm_id = mm_id, .seq = ++st->mms_made };
	return m;
}

/* The mm @pid is in (seen in rss_stat with curr set), or NULL. */
static const struct vm_mm *mm_of_pid(const struct vm_state *st, int pid)
{
	uint64_t idx;

	return kmt_hashmap_get(&st->pid_mm, pid, &idx) ? &st->mms[idx - 1] : NULL;
}

/*
 * @pid leaves its mm (exit, or seen in another): the last one out leaves
 * it to its teardown. 0, or -1 when out of memory.
 */
static int leave_mm(struct vm_state *st, int pid)
{
	uint64_t idx;
	struct vm_mm *m;

	if (!kmt_hashmap_del(&st->pid_mm, pid, &idx))
		return 0;
	m = &st->mms[idx - 1];
	if (m->users && --m->users)
		return 0;
	m->left = true;
	return all_zero(m) ? end_mm(st, m) : 0;
}

/* @pid is in @m now. 0, or -1 when out of memory. */
static int enter_mm(struct vm_state *st, int pid, struct vm_mm *m)
{
	const struct vm_mm *was = mm_of_pid(st, pid);

	if (was == m)
		return 0;
	if (leave_mm(st, pid) || kmt_hashmap_put(&st->pid_mm, pid, m - st->mms + 1))
		return -1;
	m->users++;
	if (!m->pid)
		m->pid = pid;
	return 0;
}

/* Append or update the --timeline point of @pid. 0, or -1 when out of memory. */
static int timeline_point(struct vm_state *st, int pid, uint64_t ts)
{
	uint64_t idx = (ts - st->first_ts) / st->interval_ns;
	uint32_t i;
	struct vm_point *p = NULL;
	const struct vm_mm *mm = mm_of_pid(st, pid);
	const struct vm_task *t = kmt_vmmap_task(&st->map, pid);

	for (i = st->npoints; i-- > 0 && st->points[i].interval == idx;)
		if (st->points[i].pid == pid)
			p = &st->points[i];
	if (!p) {
		if (kmt_grow(&st->points, &st->points_cap, st->npoints, sizeof(*st->points)))
			return -1;
		p = &st->points[st->npoints++];
		memset(p, 0, sizeof(*p));
		p->interval = idx;
		p->pid = pid;
	}
	p->mapped = t ? t->net : 0;
	for (i = 0; mm && i < RSS_MEMBERS; i++)
		p->rss[i] = mm->cur[i];
	return 0;
}

static int rss_event(struct vm_state *st, const struct kmt_event *ev)
{
	struct vm_mm *m;
	int64_t rss;

	st->rss_events++;
	if (ev->member < 0 || ev->member >= RSS_MEMBERS)
		return 0;
	/* Only a task changing its own mm (curr) is in it, and names the owner. */
	m = mm_of(st, ev->mm_id, ev->curr);
	if (!m || (ev->curr && enter_mm(st, ev->pid, m)))
		return -1;
	m->cur[ev->member] = ev->size;
	if (ev->size > m->peak[ev->member])
		m->peak[ev->member] = ev->size;
	rss = m->cur[0] + m->cur[1] + m->cur[3];
	if (rss > m->rss_peak) {
		m->rss_peak = rss;
		m->rss_peak_ts = ev->ts;
	}
	return m->left && all_zero(m) ? end_mm(st, m) : 0;
}

/*
 * A task exited (its row waits to settle) or an exited task's pid came
 * back in a fork (the child gets a row of its own). 0, or -1 out of memory.
 */
static int task_ends(struct vm_state *st, const struct kmt_event *ev)
{
	struct vm_task *t = kmt_vmmap_task(&st->map, (int)ev->target_pid);
	uint32_t idx = t ? (uint32_t)(t - st->map.tasks) : 0;

	if (!t)
		return 0;
	if (ev->type == KMT_EV_FORK) {
		if (t->exited)
			kmt_vmmap_forget(&st->map, idx);
		return 0;
	}
	if (t->exited)	/* exited twice: no fork of the pid was seen */
		return 0;
	t->exited = true;
	return kmt_exited_add(&st->exited, idx, ev->ts);
}

/* Tasks leave their mm at exit; the command's descendants are its own. */
static int follow_tasks(struct vm_state *st, const struct kmt_event *ev)
{
	uint64_t one;

	if (ev->type == KMT_EV_EXIT) {
		if (leave_mm(st, (int)ev->target_pid))
			return -1;
		kmt_vmmap_exit(&st->map, (int)ev->target_pid);
	}
	if ((ev->type == KMT_EV_EXIT || ev->type == KMT_EV_FORK) && task_ends(st, ev))
		return -1;
	if (ev->type == KMT_EV_FORK && st->have_rusage &&
	    kmt_hashmap_get(&st->command_tasks, ev->pid, &one))
		return kmt_hashmap_put(&st->command_tasks, ev->target_pid, 1);
	return 0;
}

static int vm_event(void *priv, const struct kmt_event *ev)
{
	struct vm_state *st = priv;
	struct vm_task *task;
	int pid = ev->pid;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	if (!st->started)
		st->first_ts = ev->ts;
	st->started = true;
	if (kmt_exited_until(&st->exited, ev->ts) || follow_tasks(st, ev))
		return -1;
	if (ev->type == KMT_EV_EXIT)
		return 0;
	if (ev->type == KMT_EV_RSS_STAT) {
		if (rss_event(st, ev))
			return -1;
		if (!ev->curr)
			return 0;
	} else {
		if (kmt_vmmap_event(&st->map, ev, &task))
			return -1;
		if (!task)
			return 0;
	}
	return st->interval_ns ? timeline_point(st, pid, ev->ts) : 0;
}

static const char *comm_of(const struct vm_state *st, int pid)
{
	const char *comm = kmt_reader_comm(st->reader, pid);

	return comm ? comm : "<...>";
}

/*
 * The address space with the highest RSS of the command and its
 * descendants: the max RSS wait4() gives covers them all (the highest
 * any of them had; exec keeps the old mm's high-water mark).
 */
static const struct vm_mm *command_mm(const struct vm_state *st)
{
	const struct vm_mm *best = st->command_gone.seq ? &st->command_gone : NULL;
	uint32_t i;

	for (i = 0; i < st->nmms; i++)
		if (st->mms[i].seq && command_owns(st, &st->mms[i]) &&
		    (!best || mm_above(&st->mms[i], best)))
			best = &st->mms[i];
	return best;
}

static int report_summary(const struct vm_state *st, struct kmt_output *out)
{
	const struct vm_mm *mm = command_mm(st);

	if (kmt_output_count(out, "tasks", "Tasks with mappings followed", st->map.made) ||
	    kmt_output_count(out, "regions_not_inherited", "Children left without their "
			     "parent's regions (memory bound)", st->map.not_inherited) ||
	    kmt_output_count(out, "address_spaces", "Address spaces in rss_stat", st->mms_made) ||
	    kmt_output_count(out, "rss_stat_events", "rss_stat events", st->rss_events))
		return -1;
	if (!st->have_rusage)
		return 0;
	return kmt_output_count(out, "command_pid", "Command (rusage from wait4)", st->ru_pid) ||
	       kmt_output_value(out, "rusage_maxrss", "  rusage max RSS (it and descendants)",
				KMT_KIND_BYTES, (union kmt_cell){ .u = st->ru_maxrss_kb * 1024 }) ||
	       kmt_output_count(out, "rss_peak_pid", "  traced RSS peak of pid",
				mm ? mm->pid : 0) ||
	       kmt_output_value(out, "traced_rss_peak", "  traced RSS peak (file+anon+shmem)",
				KMT_KIND_BYTES, (union kmt_cell){ .u = mm ? mm->rss_peak : 0 }) ||
	       kmt_output_value(out, "traced_anon_peak", "  traced anon RSS peak",
				KMT_KIND_BYTES, (union kmt_cell){ .u = mm ? mm->peak[1] : 0 }) ||
	       kmt_output_value(out, "anon_peak_of_maxrss", "  anon peak / max RSS",
				KMT_KIND_PERCENT, (union kmt_cell){ .d = st->ru_maxrss_kb && mm ?
				100.0 * mm->peak[1] / (st->ru_maxrss_kb * 1024.0) : 0 });
}


static const struct kmt_column map_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
	{ "mmaps", "MMAP", KMT_KIND_COUNT }, { "munmaps", "MUNMAP", KMT_KIND_COUNT },
	{ "mremaps", "MREMAP", KMT_KIND_COUNT }, { "brks", "BRK", KMT_KIND_COUNT },
	{ "mapped", "MAPPED", KMT_KIND_BYTES }, { "unmapped", "UNMAPPED", KMT_KIND_BYTES },
	{ "net", "NET", KMT_KIND_SIGNED }, { "peak", "PEAK", KMT_KIND_SIGNED },
	{ "heap", "HEAP", KMT_KIND_BYTES },
};

static int report_mappings(struct vm_state *st, struct kmt_output *out)
{
	uint32_t *idx = kmt_sorted_index(st->map.ntasks, by_peak, st), i;
	struct kmt_table *t = idx ? kmt_output_table(out, "mappings",
		"Mapped virtual memory per task (what the trace saw mapped and unmapped)",
		sizeof(map_cols) / sizeof(map_cols[0]), map_cols) : NULL;
	int ret = 0;

	for (i = 0; t && i < st->map.ntasks && i < (uint64_t)st->lines && !ret; i++) {
		const struct vm_task *k = &st->map.tasks[idx[i]];

		if (!k->seq)	/* given back: the rest are too */
			break;

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = k->pid }, { .s = comm_of(st, k->pid) }, { .u = k->mmaps },
			{ .u = k->munmaps }, { .u = k->mremaps }, { .u = k->brks },
			{ .u = k->mapped_bytes }, { .u = k->unmapped_bytes }, { .i = k->net },
			{ .i = k->peak }, { .u = k->heap.end - k->heap.start } });
	}
	free(idx);
	return t ? ret : -1;
}

static uint64_t positive(int64_t v)
{
	return v > 0 ? v : 0;
}

static const struct kmt_column rss_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
	{ "mm_id", "MM_ID", KMT_KIND_ADDRESS }, { "rss_peak", "RSS_PEAK", KMT_KIND_BYTES },
	{ "file_peak", "FILE_PEAK", KMT_KIND_BYTES }, { "anon_peak", "ANON_PEAK", KMT_KIND_BYTES },
	{ "swap_peak", "SWAP_PEAK", KMT_KIND_BYTES },
	{ "shmem_peak", "SHMEM_PEAK", KMT_KIND_BYTES }, { "file", "FILE", KMT_KIND_BYTES },
	{ "anon", "ANON", KMT_KIND_BYTES }, { "swap", "SWAP", KMT_KIND_BYTES },
	{ "shmem", "SHMEM", KMT_KIND_BYTES },
};

static int report_rss(struct vm_state *st, struct kmt_output *out)
{
	uint32_t *idx = kmt_sorted_index(st->nmms, by_rss_peak, st), i;
	struct kmt_table *t = idx ? kmt_output_table(out, "rss",
		"RSS per address space (rss_stat; last values at the end)",
		sizeof(rss_cols) / sizeof(rss_cols[0]), rss_cols) : NULL;
	int ret = 0;

	for (i = 0; t && i < st->nmms && i < (uint64_t)st->lines && !ret; i++) {
		const struct vm_mm *m = &st->mms[idx[i]];

		if (!m->seq)	/* given back: the rest are too */
			break;

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = m->pid }, { .s = m->pid ? comm_of(st, m->pid) : "?" },
			{ .u = m->mm_id }, { .u = positive(m->rss_peak) },
			{ .u = positive(m->peak[0]) }, { .u = positive(m->peak[1]) },
			{ .u = positive(m->peak[2]) }, { .u = positive(m->peak[3]) },
			{ .u = positive(m->cur[0]) }, { .u = positive(m->cur[1]) },
			{ .u = positive(m->cur[2]) }, { .u = positive(m->cur[3]) } });
	}
	free(idx);
	return t ? ret : -1;
}

static const struct kmt_column timeline_cols[] = {
	{ "start", "INTERVAL_START", KMT_KIND_NS }, { "pid", "PID", KMT_KIND_COUNT },
	{ "comm", "COMM", KMT_KIND_STRING }, { "mapped", "MAPPED", KMT_KIND_SIGNED },
	{ "file", "FILE", KMT_KIND_BYTES }, { "anon", "ANON", KMT_KIND_BYTES },
	{ "swap", "SWAP", KMT_KIND_BYTES }, { "shmem", "SHMEM", KMT_KIND_BYTES },
};

static int report_timeline(const struct vm_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "timeline",
		"Per interval: mapped and RSS at its end, for tasks that changed", 8,
		timeline_cols);
	uint32_t i;
	int ret = 0;

	for (i = 0; t && i < st->npoints && !ret; i++) {
		const struct vm_point *p = &st->points[i];

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = st->first_ts + p->interval * st->interval_ns },
			{ .u = p->pid }, { .s = comm_of(st, p->pid) }, { .i = p->mapped },
			{ .u = positive(p->rss[0]) }, { .u = positive(p->rss[1]) },
			{ .u = positive(p->rss[2]) }, { .u = positive(p->rss[3]) } });
	}
	return t ? ret : -1;
}

static int vm_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct vm_state *st = priv;

	(void)s;
	if (report_summary(st, out) || report_mappings(st, out) || report_rss(st, out))
		return -1;
	return st->interval_ns ? report_timeline(st, out) : 0;
}

static const struct kmt_need vm_needs[] = {
	{ KMT_EVMASK(KMT_EV_MMAP_EXIT) | KMT_EVMASK(KMT_EV_MUNMAP_EXIT) |
	  KMT_EVMASK(KMT_EV_MREMAP_EXIT) | KMT_EVMASK(KMT_EV_BRK_EXIT), "mapped memory" },
	{ KMT_EVMASK(KMT_EV_RSS_STAT), "RSS" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_vm = {
	.name = "vm",
	.help = "per process mapped memory (mmap/munmap/mremap/brk) and RSS (rss_stat)",
	.usage =
		"  --timeline MS       mapped and RSS per MS milliseconds, per task\n"
		"  -l, --lines N       rows of the mappings and rss tables (default 20)\n",
	.shortopts = "l:",
	.longopts = vm_longopts,
	.needs = vm_needs,
	.events = VMMAP_EVENTS | KMT_EVMASK(KMT_EV_RSS_STAT) | KMT_EVMASK(KMT_EV_EXIT),
	.reader_thread_ok = true,
	.init = vm_init,
	.filter = vm_filter,
	.option = vm_option,
	.start = vm_start,
	.event = vm_event,
	.report = vm_report,
	.free = vm_free,
};
