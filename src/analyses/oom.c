// SPDX-License-Identifier: LGPL-2.1
/*
 * oom: every OOM kill (oom:mark_victim) with the victim's memory as the
 * kernel reported it: total_vm, anon/file/shmem RSS, oom_score_adj, the
 * task whose allocation chose it, the constraint (memcg when that task was
 * last in memcg reclaim, global when in the page allocator's reclaim or
 * its retries) and how long the OOM reaper took. The kernel traces no
 * badness score.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "common/hashmap.h"
#include "common/util.h"

/* What a task was last seen doing before an OOM kill it triggered. */
enum oom_constraint { OC_UNKNOWN, OC_GLOBAL, OC_MEMCG };

static const char *const constraint_names[] = {
	"unknown (no vmscan or oom retry events of the task)", "global", "memcg",
};

struct oom_kill {
	uint64_t ts;
	int victim, by;
	char comm[32];
	uint64_t total_vm_kb, anon_kb, file_kb, shmem_kb;
	int64_t score_adj;
	enum oom_constraint constraint;
	uint64_t reap_begin, reap_ns;
	const char *reaped;		/* "yes", "skipped", "no" */
};

struct oom_state {
	struct kmt_filter filter;
	struct kmt_reader *reader;	/* names of tasks */
	struct oom_kill *kills;
	uint32_t nkills, cap;
	struct kmt_hashmap last_reclaim;	/* pid -> enum oom_constraint */
	uint64_t score_adj_updates;
};

static void oom_free(void *priv)
{
	struct oom_state *st = priv;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->last_reclaim);
	free(st->kills);
	free(st);
}

static void *oom_init(void)
{
	struct oom_state *st = calloc(1, sizeof(*st));

	if (st && (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->last_reclaim))) {
		oom_free(st);
		return NULL;
	}
	return st;
}

static struct kmt_filter *oom_filter(void *priv)
{
	return &((struct oom_state *)priv)->filter;
}

static int oom_start(void *priv, const struct kmt_session *s)
{
	struct oom_state *st = priv;

	if (s) {
		st->reader = s->reader;
		st->filter.reader = s->reader;
	}
	return 0;
}

/* The last kill of victim @pid, or NULL. */
static struct oom_kill *kill_of(struct oom_state *st, long long pid)
{
	uint32_t i;

	for (i = st->nkills; i-- > 0;)
		if (st->kills[i].victim == pid)
			return &st->kills[i];
	return NULL;
}

/* The reaper's work on a victim: when it began, how long it took, or that it skipped it. */
static void reaping_event(struct oom_state *st, const struct kmt_event *ev)
{
	struct oom_kill *k = kill_of(st, ev->target_pid);

	if (!k)
		return;
	if (ev->type == KMT_EV_OOM_START_REAPING) {
		k->reap_begin = ev->ts;
	} else if (ev->type == KMT_EV_OOM_SKIP_REAPING) {
		k->reaped = "skipped";
	} else if (k->reap_begin) {
		k->reap_ns = ev->ts - k->reap_begin;
		k->reaped = "yes";
	}
}

/* Is @type one of the events context_event() takes? */
static bool context_type(enum kmt_event_type type)
{
	switch (type) {
	case KMT_EV_MEMCG_RECLAIM_BEGIN:
	case KMT_EV_DIRECT_RECLAIM_BEGIN:
	case KMT_EV_OOM_RECLAIM_RETRY:
	case KMT_EV_OOM_COMPACT_RETRY:
	case KMT_EV_OOM_SCORE_ADJ_UPDATE:
	case KMT_EV_OOM_START_REAPING:
	case KMT_EV_OOM_FINISH_REAPING:
	case KMT_EV_OOM_SKIP_REAPING:
		return true;
	default:
		return false;
	}
}

/*
 * Events before the kill, what the task that will trigger it is doing, and
 * the reaper's. 0, or -1 when out of memory.
 */
static int context_event(struct oom_state *st, const struct kmt_event *ev)
{
	enum oom_constraint c;

	switch (ev->type) {
	case KMT_EV_MEMCG_RECLAIM_BEGIN:
		c = OC_MEMCG;
		break;
	case KMT_EV_DIRECT_RECLAIM_BEGIN:
	case KMT_EV_OOM_RECLAIM_RETRY:
	case KMT_EV_OOM_COMPACT_RETRY:
		c = OC_GLOBAL;
		break;
	case KMT_EV_OOM_SCORE_ADJ_UPDATE:
		st->score_adj_updates++;
		return 0;
	case KMT_EV_OOM_START_REAPING:
	case KMT_EV_OOM_FINISH_REAPING:
	case KMT_EV_OOM_SKIP_REAPING:
		reaping_event(st, ev);
		return 0;
	default:
		return 0;
	}
	return kmt_hashmap_put(&st->last_reclaim, (uint32_t)ev->pid, c);
}

/* The filters choose by victim: --pid-filter VICTIM finds its kill. */
static int oom_event(void *priv, const struct kmt_event *ev)
{
	struct oom_state *st = priv;
	struct kmt_event victim = *ev;
	struct oom_kill *k;
	uint64_t c = OC_UNKNOWN;

	if (context_type(ev->type))
		return context_event(st, ev);
	victim.pid = (int)ev->target_pid;
	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, &victim))
		return 0;
	if (kmt_grow(&st->kills, &st->cap, st->nkills, sizeof(*st->kills)))
		return -1;
	k = &st->kills[st->nkills++];
	*k = (struct oom_kill){ .ts = ev->ts, .victim = (int)ev->target_pid, .by = ev->pid,
				.total_vm_kb = ev->total_vm, .anon_kb = ev->anon_rss,
				.file_kb = ev->file_rss, .shmem_kb = ev->shmem_rss,
				.score_adj = ev->oom_score_adj, .reaped = "no" };
	kmt_hashmap_get(&st->last_reclaim, (uint32_t)ev->pid, &c);
	k->constraint = (enum oom_constraint)c;
	snprintf(k->comm, sizeof(k->comm), "%.*s", ev->str_len, ev->str ? ev->str : "");
	return 0;
}

static const struct kmt_column kill_cols[] = {
	{ "time", "TIME", KMT_KIND_NS }, { "pid", "PID", KMT_KIND_COUNT },
	{ "comm", "COMM", KMT_KIND_STRING }, { "total_vm", "TOTAL_VM", KMT_KIND_BYTES },
	{ "anon_rss", "ANON_RSS", KMT_KIND_BYTES }, { "file_rss", "FILE_RSS", KMT_KIND_BYTES },
	{ "shmem_rss", "SHMEM_RSS", KMT_KIND_BYTES },
	{ "oom_score_adj", "OOM_SCORE_ADJ", KMT_KIND_SIGNED },
	{ "by_pid", "BY_PID", KMT_KIND_COUNT }, { "by_comm", "BY_COMM", KMT_KIND_STRING },
	{ "constraint", "CONSTRAINT", KMT_KIND_STRING }, { "reaped", "REAPED", KMT_KIND_STRING },
	{ "reap_time", "REAP_TIME", KMT_KIND_NS },
};

static int oom_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct oom_state *st = priv;
	struct kmt_table *t;
	uint32_t i;
	int ret = 0;

	(void)s;
	if (kmt_output_count(out, "kills", "OOM kills (oom:mark_victim)", st->nkills) ||
	    kmt_output_count(out, "score_adj_updates", "oom_score_adj changes",
			     st->score_adj_updates))
		return -1;
	t = kmt_output_table(out, "kills", "OOM kills (the kernel traces no badness score)",
			     sizeof(kill_cols) / sizeof(kill_cols[0]),
			     kill_cols);
	for (i = 0; t && i < st->nkills && !ret; i++) {
		const struct oom_kill *k = &st->kills[i];
		const char *by = kmt_reader_comm(st->reader, k->by);

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = k->ts }, { .u = k->victim }, { .s = k->comm },
			{ .u = k->total_vm_kb * 1024 }, { .u = k->anon_kb * 1024 },
			{ .u = k->file_kb * 1024 }, { .u = k->shmem_kb * 1024 },
			{ .i = k->score_adj }, { .u = k->by }, { .s = by ? by : "<...>" },
			{ .s = constraint_names[k->constraint] }, { .s = k->reaped },
			{ .u = k->reap_ns } });
	}
	return t ? ret : -1;
}

static const struct kmt_need oom_needs[] = {
	{ KMT_EVMASK(KMT_EV_OOM_VICTIM), "OOM kills" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_oom = {
	.name = "oom",
	.help = "OOM kills: victim, its total_vm and RSS, oom_score_adj, who triggered it",
	.needs = oom_needs,
	.events = KMT_EVMASK(KMT_EV_OOM_VICTIM) | KMT_EVMASK(KMT_EV_MEMCG_RECLAIM_BEGIN) |
		  KMT_EVMASK(KMT_EV_DIRECT_RECLAIM_BEGIN) | KMT_EVMASK(KMT_EV_OOM_RECLAIM_RETRY) |
		  KMT_EVMASK(KMT_EV_OOM_COMPACT_RETRY) | KMT_EVMASK(KMT_EV_OOM_SCORE_ADJ_UPDATE) |
		  KMT_EVMASK(KMT_EV_OOM_WAKE_REAPER) | KMT_EVMASK(KMT_EV_OOM_START_REAPING) |
		  KMT_EVMASK(KMT_EV_OOM_FINISH_REAPING) | KMT_EVMASK(KMT_EV_OOM_SKIP_REAPING),
	.reader_thread_ok = true,
	.init = oom_init,
	.filter = oom_filter,
	.start = oom_start,
	.event = oom_event,
	.report = oom_report,
	.free = oom_free,
};
