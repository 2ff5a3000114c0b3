// SPDX-License-Identifier: LGPL-2.1
/*
 * memcg: the memory cgroups' statistics updates (memcg group): per cgroup
 * id and statistic, how often it changed and by how much in all, and the
 * flushes of the statistics. The events give a statistic as the kernel's
 * enum number, which depends on its build: it is named from the recording's
 * own /proc/vmstat (vmstat_names.h); memcg's own statistics, numbered after
 * the node ones, are not in /proc/vmstat and keep their number.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "vmstat_names.h"
#include "common/hashmap.h"
#include "common/util.h"

#define MEMCG_TOP_DEFAULT	30

enum memcg_kind { MK_STATE, MK_LRUVEC, MK_EVENT, MK_NR };

static const char *const kind_names[MK_NR] = { "memcg_state", "lruvec_state", "event" };

struct memcg_item {
	uint64_t id;
	enum memcg_kind kind;
	long long item;
	uint64_t updates;
	long long total;
};

struct memcg_group {
	uint64_t id, updates, flushes;
};

struct memcg_state {
	struct kmt_filter filter;
	struct kmt_hashmap items_by_key;
	struct memcg_item *items;
	uint32_t nitems, items_cap;
	struct kmt_hashmap groups_by_id;
	struct memcg_group *groups;
	uint32_t ngroups, groups_cap;
	long long top;
};

static void memcg_free(void *priv)
{
	struct memcg_state *st = priv;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->items_by_key);
	kmt_hashmap_free(&st->groups_by_id);
	free(st->items);
	free(st->groups);
	free(st);
}

static void *memcg_init(void)
{
	struct memcg_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->top = MEMCG_TOP_DEFAULT;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->items_by_key) ||
	    kmt_hashmap_init(&st->groups_by_id)) {
		memcg_free(st);
		return NULL;
	}
	return st;
}

static struct kmt_filter *memcg_filter(void *priv)
{
	return &((struct memcg_state *)priv)->filter;
}

static int memcg_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	struct memcg_state *st = priv;

	if (key == 'l')
		return kmt_parse_count(arg, "-l", &st->top, err);
	kmt_error_set(err, NULL, -1, "unknown option");
	return -1;
}

static int memcg_start(void *priv, const struct kmt_session *s)
{
	struct memcg_state *st = priv;

	if (s)
		st->filter.reader = s->reader;
	return 0;
}

static struct memcg_group *group_of(struct memcg_state *st, uint64_t id)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->groups_by_id, id, &st->groups, &st->groups_cap,
				     &st->ngroups, sizeof(*st->groups), &made);

	if (i == KMT_HASHMAP_NO_ROW)
		return NULL;
	st->groups[i].id = id;
	return &st->groups[i];
}

static struct memcg_item *item_of(struct memcg_state *st, uint64_t id, enum memcg_kind kind,
				  long long item)
{
	uint64_t key = kmt_hash_words((uint64_t[]){ id, kind, (uint64_t)item }, 3), i;

	while (kmt_hashmap_get(&st->items_by_key, key, &i)) {
		struct memcg_item *m = &st->items[i];

		if (m->id == id && m->kind == kind && m->item == item)
			return m;
		key++;	/* a collision: the next key */
	}
	if (kmt_grow(&st->items, &st->items_cap, st->nitems, sizeof(*st->items)) ||
	    kmt_hashmap_put(&st->items_by_key, key, st->nitems))
		return NULL;
	st->items[st->nitems] = (struct memcg_item){ .id = id, .kind = kind, .item = item };
	return &st->items[st->nitems++];
}

static int memcg_event(void *priv, const struct kmt_event *ev)
{
	struct memcg_state *st = priv;
	enum memcg_kind kind = ev->type == KMT_EV_MEMCG_MOD_STATE ? MK_STATE :
			       ev->type == KMT_EV_MEMCG_MOD_LRUVEC_STATE ? MK_LRUVEC : MK_EVENT;
	struct memcg_group *g;
	struct memcg_item *m = NULL;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	g = group_of(st, ev->memcg.id);
	if (g && ev->type != KMT_EV_MEMCG_FLUSH_STATS)
		m = item_of(st, ev->memcg.id, kind, ev->memcg.item);
	if (!g || (!m && ev->type != KMT_EV_MEMCG_FLUSH_STATS))
		return -1;
	if (!m) {
		g->flushes++;
		return 0;
	}
	g->updates++;
	m->updates++;
	m->total += ev->memcg.val;
	return 0;
}

static int by_updates(uint32_t a, uint32_t b, void *ctx)
{
	const struct memcg_item *x = (const struct memcg_item *)ctx + a;
	const struct memcg_item *y = (const struct memcg_item *)ctx + b;

	if (x->updates != y->updates)
		return x->updates < y->updates ? 1 : -1;
	return a < b ? -1 : a > b;
}

static const struct kmt_column group_cols[] = {
	{ "memcg_id", "MEMCG_ID", KMT_KIND_COUNT }, { "updates", "UPDATES", KMT_KIND_COUNT },
	{ "flushes", "FLUSHES", KMT_KIND_COUNT },
};

static const struct kmt_column item_cols[] = {
	{ "memcg_id", "MEMCG_ID", KMT_KIND_COUNT }, { "kind", "KIND", KMT_KIND_STRING },
	{ "item", "ITEM", KMT_KIND_SIGNED }, { "name", "NAME", KMT_KIND_STRING },
	{ "updates", "UPDATES", KMT_KIND_COUNT }, { "total", "TOTAL", KMT_KIND_SIGNED },
};

/* The name of statistic @m in @names, "" when the recording cannot tell. */
static const char *item_name(const struct kmt_vmstat_names *names, const struct memcg_item *m,
			     char *buf, size_t len)
{
	const char *name = m->kind == MK_EVENT ? kmt_vmstat_event_name(names, m->item) :
			   kmt_vmstat_node_name(names, m->item);

	if (name)
		return name;
	if (m->kind == MK_STATE && names->nnode && m->item >= names->nnode) {
		snprintf(buf, len, "memcg's own #%lld", m->item - names->nnode);
		return buf;
	}
	return "";
}

/* The statistics table, most updated first. 0 or -1. */
static int report_items(const struct memcg_state *st, const struct kmt_vmstat_names *names,
			struct kmt_output *out)
{
	struct kmt_table *t;
	uint32_t *idx, i;
	char buf[64];
	int ret = 0;

	t = kmt_output_table(out, "statistics", "Most updated statistics (ITEM: the kernel's "
			     "enum number; NAME: its name in the recording's /proc/vmstat; TOTAL: "
			     "the sum of the changes)", 6, item_cols);
	idx = t ? kmt_sorted_index(st->nitems, by_updates, st->items) : NULL;
	for (i = 0; idx && i < st->nitems && (st->top <= 0 || i < st->top) && !ret; i++) {
		const struct memcg_item *m = &st->items[idx[i]];

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = m->id }, { .s = kind_names[m->kind] }, { .i = m->item },
			{ .s = item_name(names, m, buf, sizeof(buf)) }, { .u = m->updates },
			{ .i = m->total } });
	}
	free(idx);
	return idx ? ret : -1;
}

static int memcg_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct memcg_state *st = priv;
	struct kmt_vmstat_names names;
	struct kmt_table *t;
	uint32_t i;
	int ret = 0;

	if (kmt_output_count(out, "cgroups", "Memory cgroups seen", st->ngroups))
		return -1;
	t = kmt_output_table(out, "cgroups", "By memory cgroup (its id: the inode of its "
			     "cgroupfs directory)", 3, group_cols);
	for (i = 0; t && i < st->ngroups && !ret; i++)
		ret = kmt_table_row(t, (union kmt_cell[]){ { .u = st->groups[i].id },
							  { .u = st->groups[i].updates },
							  { .u = st->groups[i].flushes } });
	if (!t || ret)
		return -1;
	if (kmt_vmstat_names_load(&names, kmt_reader_text(s->reader, KMT_TEXT_VMSTAT_START)))
		return -1;
	ret = report_items(st, &names, out);
	kmt_vmstat_names_free(&names);
	return ret;
}

static const struct kmt_need memcg_needs[] = {
	{ KMT_EVMASK(KMT_EV_MEMCG_MOD_STATE) | KMT_EVMASK(KMT_EV_MEMCG_MOD_LRUVEC_STATE) |
	  KMT_EVMASK(KMT_EV_MEMCG_COUNT_EVENTS), "memory cgroup statistics (record -e memcg)" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_memcg = {
	.name = "memcg",
	.help = "memory cgroups' statistics updates per cgroup and statistic, flushes",
	.usage = "  -l N                the N statistics updated most (default 30, 0: all)\n",
	.shortopts = "l:",
	.needs = memcg_needs,
	.events = KMT_EVMASK(KMT_EV_MEMCG_MOD_STATE) | KMT_EVMASK(KMT_EV_MEMCG_MOD_LRUVEC_STATE) |
		  KMT_EVMASK(KMT_EV_MEMCG_COUNT_EVENTS) | KMT_EVMASK(KMT_EV_MEMCG_FLUSH_STATS),
	.reader_thread_ok = true,
	.init = memcg_init,
	.filter = memcg_filter,
	.option = memcg_option,
	.start = memcg_start,
	.event = memcg_event,
	.report = memcg_report,
	.free = memcg_free,
};
