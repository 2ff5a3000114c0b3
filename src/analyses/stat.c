// SPDX-License-Identifier: LGPL-2.1
/*
 * stat: events per type and per CPU, time span, lost events per CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include <kmtrace/reader.h>
#include "common/mmnames.h"

#define MAX_ID	65536

struct stat_state {
	unsigned long long *by_id;	/* MAX_ID counters */
	unsigned char *decoded;		/* MAX_ID flags: kmtrace decodes the id's events */
	unsigned long long *by_cpu;
	int ncpus;
	unsigned long long total;
	unsigned long long unknown;
	unsigned long long with_stack;	/* events that came with a call stack */
	unsigned long long first_ts, last_ts;
};

static void *stat_init(void)
{
	struct stat_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->by_id = calloc(MAX_ID, sizeof(*st->by_id));
	st->decoded = calloc(MAX_ID, 1);
	if (!st->by_id || !st->decoded) {
		free(st->by_id);
		free(st->decoded);
		free(st);
		return NULL;
	}
	return st;
}

static int stat_start(void *priv, const struct kmt_session *s)
{
	struct stat_state *st = priv;

	st->ncpus = kmt_reader_cpus(s->reader);
	st->by_cpu = calloc(st->ncpus ? st->ncpus : 1, sizeof(*st->by_cpu));
	return st->by_cpu ? 0 : -1;
}

#define STAT_MAX_CPUS	8192

/*
 * Count CPUs up to @n (at most STAT_MAX_CPUS): merged readers (perf.data,
 * text) meet CPUs as they go. 0, or -1 when out of memory or more.
 */
static int cover_cpus(struct stat_state *st, int n)
{
	unsigned long long *grown;

	if (n <= st->ncpus)
		return 0;
	if (n > STAT_MAX_CPUS || !(grown = realloc(st->by_cpu, n * sizeof(*grown))))
		return -1;
	memset(grown + st->ncpus, 0, (n - st->ncpus) * sizeof(*grown));
	st->by_cpu = grown;
	st->ncpus = n;
	return 0;
}

static int stat_event(void *priv, const struct kmt_event *ev)
{
	struct stat_state *st = priv;

	if (!st->total)
		st->first_ts = ev->ts;
	st->last_ts = ev->ts;
	st->total++;
	if (ev->type == KMT_EV_UNKNOWN)
		st->unknown++;
	st->with_stack += ev->callchain_nr > 0;
	if (ev->id >= 0 && ev->id < MAX_ID) {
		st->by_id[ev->id]++;
		st->decoded[ev->id] |= ev->type != KMT_EV_UNKNOWN;
	}
	if (ev->cpu < 0 || ev->cpu >= STAT_MAX_CPUS)
		return 0;	/* no machine has them: not counted per CPU */
	if (cover_cpus(st, ev->cpu + 1))
		return -1;
	st->by_cpu[ev->cpu]++;
	return 0;
}

/* Event ids sorted by count, most first. */
static int *ids_by_count(const struct stat_state *st, int *n)
{
	int *ids = malloc(MAX_ID * sizeof(*ids));
	int i, j;

	*n = 0;
	if (!ids)
		return NULL;
	for (i = 0; i < MAX_ID; i++)
		if (st->by_id[i])
			ids[(*n)++] = i;
	for (i = 1; i < *n; i++) {	/* few distinct ids: insertion sort */
		int id = ids[i];

		for (j = i; j > 0 && st->by_id[ids[j - 1]] < st->by_id[id]; j--)
			ids[j] = ids[j - 1];
		ids[j] = id;
	}
	return ids;
}

static const struct kmt_column event_columns[] = {
	{ "event", "EVENT", KMT_KIND_STRING },
	{ "count", "COUNT", KMT_KIND_COUNT },
};

/* The @n event ids at @ids (most events first) and their counts. */
static int report_events(const struct stat_state *st, const struct kmt_session *s,
			 struct kmt_output *out, const int *ids, int n)
{
	struct kmt_table *t = kmt_output_table(out, "events", "Events", 2, event_columns);
	int i, ret = 0;

	if (!t)
		return -1;
	for (i = 0; i < n && !ret; i++) {
		struct tep_event *e = tep_find_event(s->tep, ids[i]);
		char name[256];

		if (e)
			snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
		else
			snprintf(name, sizeof(name), "id:%d", ids[i]);
		ret = kmt_table_row(t, (union kmt_cell[]){ { .s = name },
							  { .u = st->by_id[ids[i]] } });
	}
	return ret;
}

struct group_count {
	const char *system;
	unsigned long long events, decoded;
};

/* Add @events of group @system, @decoded or not, to @g (@n groups so far); the new count. */
static int count_group(struct group_count *g, int n, const char *system,
		       unsigned long long events, bool decoded)
{
	int i;

	for (i = 0; i < n && strcmp(g[i].system, system); i++)
		;
	if (i == n)
		g[n++] = (struct group_count){ .system = system };
	g[i].events += events;
	g[i].decoded += decoded ? events : 0;
	return n;
}

static const struct kmt_column group_columns[] = {
	{ "group", "GROUP", KMT_KIND_STRING },
	{ "events", "EVENTS", KMT_KIND_COUNT },
	{ "decoded", "DECODED", KMT_KIND_COUNT },
	{ "share_decoded", "SHARE", KMT_KIND_PERCENT },
};

/*
 * Per event group of the @n ids at @ids: how many events kmtrace decoded
 * (the others only count here).
 */
static int report_groups(const struct stat_state *st, const struct kmt_session *s,
			 struct kmt_output *out, const int *ids, int n)
{
	struct kmt_table *t;
	struct group_count *g = calloc(n + 1, sizeof(*g));
	int ng = 0, i, ret = 0;

	t = g ? kmt_output_table(out, "groups", "Decoded, by event group", 4, group_columns) : NULL;
	for (i = 0; t && i < n; i++) {
		struct tep_event *e = tep_find_event(s->tep, ids[i]);

		ng = count_group(g, ng, e ? e->system : "(unknown id)", st->by_id[ids[i]],
				 st->decoded[ids[i]]);
	}
	for (i = 0; t && i < ng && !ret; i++)
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .s = g[i].system }, { .u = g[i].events }, { .u = g[i].decoded },
			{ .d = 100.0 * g[i].decoded / g[i].events } });
	free(g);
	return t ? ret : -1;
}

/* The events and groups tables, from one ordering of the event ids. */
static int report_event_tables(const struct stat_state *st, const struct kmt_session *s,
			       struct kmt_output *out)
{
	int n, *ids = ids_by_count(st, &n);
	int ret = ids ? report_events(st, s, out, ids, n) || report_groups(st, s, out, ids, n) : -1;

	free(ids);
	return ret;
}

static const struct kmt_column cpu_columns[] = {
	{ "cpu", "CPU", KMT_KIND_COUNT },
	{ "events", "EVENTS", KMT_KIND_COUNT },
	{ "lost", "LOST", KMT_KIND_COUNT },
	{ "overrun", "OVERRUN", KMT_KIND_COUNT },
	{ "dropped", "DROPPED", KMT_KIND_COUNT },
	{ "missed_marked", "MARKED", KMT_KIND_COUNT },
};

/* The highest CPU with events or loss figures: a file may claim many idle ones. */
static int last_active_cpu(const struct stat_state *st, const struct kmt_session *s)
{
	int cpu;

	for (cpu = st->ncpus - 1; cpu > 0; cpu--) {
		const struct kmt_cpu_stats *cs = kmt_reader_cpu_stats(s->reader, cpu);

		if (st->by_cpu[cpu] || (cs && (cs->entries || kmt_cpu_stats_lost(cs))))
			break;
	}
	return cpu;
}

static int report_cpus(const struct stat_state *st, const struct kmt_session *s,
		       struct kmt_output *out, unsigned long long *lost)
{
	struct kmt_table *t;
	int cpu;

	t = kmt_output_table(out, "cpus", "Per CPU (LOST = max(MARKED, OVERRUN) + DROPPED)",
			     6, cpu_columns);
	if (!t)
		return -1;
	*lost = 0;
	for (cpu = 0; cpu < last_active_cpu(st, s) + 1; cpu++) {
		static const struct kmt_cpu_stats none;
		const struct kmt_cpu_stats *cs = kmt_reader_cpu_stats(s->reader, cpu) ?: &none;
		union kmt_cell row[6] = {
			{ .u = cpu }, { .u = st->by_cpu[cpu] }, { .u = kmt_cpu_stats_lost(cs) },
			{ .u = cs->overrun }, { .u = cs->dropped }, { .u = cs->missed_marked },
		};

		*lost += row[2].u;
		if (kmt_table_row(t, row))
			return -1;
	}
	return 0;
}

static int put_count(struct kmt_output *out, const char *key, const char *label,
		     enum kmt_kind kind, unsigned long long v)
{
	return kmt_output_value(out, key, label, kind, (union kmt_cell){ .u = v });
}

/* What was wrong with the input and was left out or mended. */
static int report_input_faults(const struct kmt_session *s, struct kmt_output *out)
{
	unsigned int skipped, left_out;
	unsigned long long bad_stats = 0;
	int cpu;

	for (cpu = 0; cpu < kmt_reader_cpus(s->reader); cpu++)
		bad_stats += kmt_reader_cpu_stats(s->reader, cpu)->impossible;
	kmt_reader_format_counts(s->reader, &skipped, &left_out);
	return put_count(out, "out_of_order_events", "Events out of time order (given the "
			 "time before)", KMT_KIND_COUNT, s->replay.out_of_order) ||
	       put_count(out, "impossible_events", "Events with impossible values (left out)",
			 KMT_KIND_COUNT, s->replay.impossible) ||
	       put_count(out, "impossible_cpu_stats", "CPUs with impossible loss counts "
			 "(ignored)", KMT_KIND_COUNT, bad_stats) ||
	       put_count(out, "unusable_formats", "Event formats not usable (events unknown)",
			 KMT_KIND_COUNT, skipped) ||
	       put_count(out, "print_formats_left_out", "Print formats left out (fields "
			 "printed raw)", KMT_KIND_COUNT, left_out);
}

/* Where the recording has call stacks: how many events got one, what was lost. */
static int report_stacks(const struct stat_state *st, const struct kmt_session *s,
			 struct kmt_output *out)
{
	const struct kmt_stack_stats *ss = kmt_reader_stack_stats(s->reader);

	if (!st->with_stack && !kmt_reader_text(s->reader, KMT_TEXT_STACKS))
		return 0;
	if (put_count(out, "events_with_stack", "Events with a call stack", KMT_KIND_COUNT,
		      st->with_stack))
		return -1;
	if (!ss->recorded)
		return 0;
	return put_count(out, "stacks_without_event", "Kernel stacks whose event was lost",
			 KMT_KIND_COUNT, ss->orphans) ||
	       put_count(out, "events_without_stack", "Events whose kernel stack was lost",
			 KMT_KIND_COUNT, ss->missing);
}

/*
 * The recorded kernel's machine, byte order and long size: those of the
 * file (trace.dat, perf.data), for text the formats' long size and the
 * order its machine has.
 */
static int report_machine(const struct kmt_session *s, struct kmt_output *out)
{
	const char *machine = kmt_kernel_machine(kmt_reader_text(s->reader, KMT_TEXT_UNAME));
	int big = kmt_reader_formats_recorded(s->reader) ? tep_is_file_bigendian(s->tep) :
		  kmt_machine_big_endian(machine);
	bool named = *machine && strspn(machine, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
				 strlen(machine);

	return kmt_output_string(out, "architecture", "Architecture (uname)",
				 named ? machine : "unknown") ||
	       kmt_output_string(out, "byte_order", "Byte order",
				 big < 0 ? "unknown" : big ? "big" : "little") ||
	       put_count(out, "long_size", "Long size (bytes)", KMT_KIND_COUNT,
			 tep_get_long_size(s->tep));
}

static int stat_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct stat_state *st = priv;
	unsigned long long lost = 0, unknown_marks = 0;
	int cpu;

	if (cover_cpus(st, kmt_reader_cpus(s->reader)))
		return -1;
	for (cpu = 0; cpu < kmt_reader_cpus(s->reader); cpu++)
		unknown_marks += kmt_reader_cpu_stats(s->reader, cpu)->missed_unknown;
	if (kmt_output_value(out, "input", "Input", KMT_KIND_STRING,
			     (union kmt_cell){ .s = s->input }) ||
	    kmt_output_value(out, "format", "Format", KMT_KIND_STRING,
			     (union kmt_cell){ .s = kmt_reader_format(s->reader) }) ||
	    report_machine(s, out) ||
	    (kmt_reader_text(s->reader, KMT_TEXT_SYMBOLS) &&
	     kmt_output_string(out, "kernel_symbols", "Kernel symbols",
			       kmt_reader_text(s->reader, KMT_TEXT_SYMBOLS))) ||
	    report_event_tables(st, s, out) ||
	    report_cpus(st, s, out, &lost) ||
	    put_count(out, "cpus", "CPUs", KMT_KIND_COUNT, st->ncpus) ||
	    put_count(out, "total_events", "Events", KMT_KIND_COUNT, st->total) ||
	    put_count(out, "unknown_events", "Events kmtrace does not decode",
		      KMT_KIND_COUNT, st->unknown) ||
	    kmt_output_value(out, "share_decoded", "Share of events decoded", KMT_KIND_PERCENT,
			     (union kmt_cell){ .d = st->total ? 100.0 * (st->total - st->unknown) /
							   st->total : 0 }) ||
	    put_count(out, "lost_events", "Lost events", KMT_KIND_COUNT, lost) ||
	    (kmt_reader_text(s->reader, KMT_TEXT_UNPARSED) &&
	     put_count(out, "unparsed_lines", "Text lines not parsed", KMT_KIND_COUNT,
		       strtoull(kmt_reader_text(s->reader, KMT_TEXT_UNPARSED), NULL, 10))) ||
	    (kmt_reader_unnamed(s->reader) &&
	     put_count(out, "unnamed_events", "Events of tasks no record names",
		       KMT_KIND_COUNT, kmt_reader_unnamed(s->reader))) ||
	    put_count(out, "lost_unknown_subbuffers", "Sub-buffers with uncounted losses",
		      KMT_KIND_COUNT, unknown_marks) ||
	    put_count(out, "first_ts", "First timestamp (s)", KMT_KIND_NS, st->first_ts) ||
	    put_count(out, "last_ts", "Last timestamp (s)", KMT_KIND_NS, st->last_ts) ||
	    put_count(out, "duration_ns", "Duration (s)", KMT_KIND_NS,
		      st->last_ts - st->first_ts) || report_stacks(st, s, out) ||
	    report_input_faults(s, out))
		return -1;
	return 0;
}

static void stat_free(void *priv)
{
	struct stat_state *st = priv;

	free(st->by_id);
	free(st->decoded);
	free(st->by_cpu);
	free(st);
}

const struct kmt_analysis kmt_analysis_stat = {
	.name = "stat",
	.help = "events per type and per CPU, time span, lost events",
	.events = KMT_EVMASK_ALL,
	.reader_thread_ok = true,
	.types_only = KMT_EVMASK_ALL,
	.init = stat_init,
	.start = stat_start,
	.event = stat_event,
	.report = stat_report,
	.free = stat_free,
};
