// SPDX-License-Identifier: LGPL-2.1
/*
 * oom: every OOM kill (oom:mark_victim) with the victim's memory as the
 * kernel reported it: total_vm, anon/file/shmem RSS, oom_score_adj, and
 * the task whose allocation chose it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include "filter.h"
#include "common/util.h"

struct oom_kill {
	uint64_t ts;
	int victim, by;
	char comm[32];
	uint64_t total_vm_kb, anon_kb, file_kb, shmem_kb;
	int64_t score_adj;
};

struct oom_state {
	struct kmt_filter filter;
	struct tep_handle *tep;
	struct oom_kill *kills;
	uint32_t nkills, cap;
	bool nomem;
};

static void oom_free(void *priv)
{
	struct oom_state *st = priv;

	kmt_filter_free(&st->filter);
	free(st->kills);
	free(st);
}

static void *oom_init(void)
{
	struct oom_state *st = calloc(1, sizeof(*st));

	if (st && kmt_filter_init(&st->filter)) {
		free(st);
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
		st->tep = s->tep;
		st->filter.tep = s->tep;
	}
	return 0;
}

/* The filters choose by victim: --pid-filter VICTIM finds its kill. */
static void oom_event(void *priv, const struct kmt_event *ev)
{
	struct oom_state *st = priv;
	struct kmt_event victim = *ev;
	struct oom_kill *k;

	victim.pid = (int)ev->target_pid;
	if (st->nomem || kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, &victim))
		return;
	if (kmt_grow(&st->kills, &st->cap, st->nkills, sizeof(*st->kills))) {
		st->nomem = true;
		return;
	}
	k = &st->kills[st->nkills++];
	*k = (struct oom_kill){ .ts = ev->ts, .victim = (int)ev->target_pid, .by = ev->pid,
				.total_vm_kb = ev->total_vm, .anon_kb = ev->anon_rss,
				.file_kb = ev->file_rss, .shmem_kb = ev->shmem_rss,
				.score_adj = ev->oom_score_adj };
	snprintf(k->comm, sizeof(k->comm), "%.*s", ev->str_len, ev->str ? ev->str : "");
}

static const struct kmt_column kill_cols[] = {
	{ "time", "TIME", KMT_KIND_NS }, { "pid", "PID", KMT_KIND_COUNT },
	{ "comm", "COMM", KMT_KIND_STRING }, { "total_vm", "TOTAL_VM", KMT_KIND_BYTES },
	{ "anon_rss", "ANON_RSS", KMT_KIND_BYTES }, { "file_rss", "FILE_RSS", KMT_KIND_BYTES },
	{ "shmem_rss", "SHMEM_RSS", KMT_KIND_BYTES },
	{ "oom_score_adj", "OOM_SCORE_ADJ", KMT_KIND_SIGNED },
	{ "by_pid", "BY_PID", KMT_KIND_COUNT }, { "by_comm", "BY_COMM", KMT_KIND_STRING },
};

static int oom_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct oom_state *st = priv;
	struct kmt_table *t;
	uint32_t i;
	int ret = 0;

	(void)s;
	if (st->nomem) {
		errno = ENOMEM;
		return -1;
	}
	if (kmt_output_count(out, "kills", "OOM kills (oom:mark_victim)", st->nkills))
		return -1;
	t = kmt_output_table(out, "kills", "OOM kills", sizeof(kill_cols) / sizeof(kill_cols[0]),
			     kill_cols);
	for (i = 0; t && i < st->nkills && !ret; i++) {
		const struct oom_kill *k = &st->kills[i];
		const char *by = st->tep ? tep_data_comm_from_pid(st->tep, k->by) : NULL;

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = k->ts }, { .u = k->victim }, { .s = k->comm },
			{ .u = k->total_vm_kb * 1024 }, { .u = k->anon_kb * 1024 },
			{ .u = k->file_kb * 1024 }, { .u = k->shmem_kb * 1024 },
			{ .i = k->score_adj }, { .u = k->by }, { .s = by ? by : "<...>" } });
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
	.events = KMT_EVMASK(KMT_EV_OOM_VICTIM),
	.reader_thread_ok = true,
	.init = oom_init,
	.filter = oom_filter,
	.start = oom_start,
	.event = oom_event,
	.report = oom_report,
	.free = oom_free,
};
