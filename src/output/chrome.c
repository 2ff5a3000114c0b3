// SPDX-License-Identifier: LGPL-2.1
/*
 * Chrome trace-event JSON (the format chrome://tracing and Perfetto UI
 * open): every table with a time column becomes events on that time axis.
 * A "timeline" table's rows are counter events ("ph": "C") named
 * ANALYSIS.timeline, one per row, with its numbers as the counter's series,
 * in the process of its pid column (0, "all", when it has none); the rows of
 * other timed tables (OOM kills) are instant events ("ph": "i") carrying all
 * their columns. Process names come as metadata events.
 */
#include <math.h>
#include <string.h>

#include "output_local.h"

static bool is_number(enum kmt_kind kind)
{
	return !kmt_kind_is_text(kind) && kind != KMT_KIND_NS && kind != KMT_KIND_ADDRESS;
}

static void arg_value(FILE *fp, enum kmt_kind kind, union kmt_cell c)
{
	char buf[512];

	if (kind == KMT_KIND_SIGNED)
		fprintf(fp, "%lld", c.i);
	else if (kind == KMT_KIND_PERCENT)
		fprintf(fp, "%.6g", isfinite(c.d) ? c.d : 0.0);
	else if (is_number(kind) || kind == KMT_KIND_NS)
		fprintf(fp, "%llu", c.u);
	else {
		kmt_output_cell_text(buf, sizeof(buf), kind, c, 0, true);
		kmt_output_json_string(fp, buf);
	}
}

/* Row @r of @t as one event of @sec's; *@n events written so far. */
static void row_event(FILE *fp, const struct section *sec, const struct kmt_table *t, int r,
		      int tc, bool counter, int *n)
{
	const union kmt_cell *row = &t->cells[r * t->ncols];
	int pc = kmt_table_column(t, "pid"), c, args = 0;

	fprintf(fp, "%s\n  {\"name\": ", (*n)++ ? "," : "");
	if (counter) {
		fprintf(fp, "\"%s.%s\"", sec->name, t->name);
	} else {
		kmt_output_json_string(fp, sec->name);
		fprintf(fp, ", \"cat\": \"%s\"", t->name);
	}
	fprintf(fp, ", \"ph\": \"%s\", \"ts\": %llu.%03llu, \"pid\": %llu, \"tid\": %llu",
		counter ? "C" : "i", row[tc].u / 1000, row[tc].u % 1000,
		pc >= 0 ? row[pc].u : 0ull, pc >= 0 ? row[pc].u : 0ull);
	if (!counter)
		fputs(", \"s\": \"p\"", fp);
	fputs(", \"args\": {", fp);
	for (c = 0; c < t->ncols; c++) {
		if (c == tc || c == pc || (counter && !is_number(t->cols[c].kind)))
			continue;
		fputs(args++ ? ", " : "", fp);
		kmt_output_json_string(fp, t->cols[c].key);
		fputs(": ", fp);
		arg_value(fp, t->cols[c].kind, row[c]);
	}
	fputs("}}", fp);
}

/* Does a row of @t before @r have @t's pid of row @r? */
static bool pid_seen(const struct kmt_table *t, int pc, int r)
{
	int k;

	for (k = 0; k < r; k++)
		if (t->cells[k * t->ncols + pc].u == t->cells[r * t->ncols + pc].u)
			return true;
	return false;
}

/* A process_name metadata event for each pid and comm of @t's rows, once. */
static void process_names(FILE *fp, const struct kmt_table *t, int *n)
{
	int pc = kmt_table_column(t, "pid"), cc = kmt_table_column(t, "comm"), r;

	for (r = 0; pc >= 0 && cc >= 0 && r < t->rows; r++) {
		const union kmt_cell *row = &t->cells[r * t->ncols];

		if (pid_seen(t, pc, r))
			continue;
		fprintf(fp, "%s\n  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %llu, "
			"\"args\": {\"name\": ", (*n)++ ? "," : "", row[pc].u);
		kmt_output_json_string(fp, row[cc].s);
		fputs("}}", fp);
	}
}

void kmt_render_chrome(struct kmt_output *out)
{
	int s, i, r, n = 0;

	fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"generator\": \"kmtrace " KMT_VERSION
	      "\", \"input\": ", out->fp);
	kmt_output_json_string(out->fp, out->input ? out->input : "");
	fputs("},\n \"traceEvents\": [", out->fp);
	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];

		for (i = 0; i < sec->ntables; i++) {
			const struct kmt_table *t = sec->tables[i];
			int tc = kmt_table_time_column(t);

			if (tc < 0)
				continue;
			process_names(out->fp, t, &n);
			for (r = 0; r < t->rows; r++)
				row_event(out->fp, sec, t, r, tc, !strcmp(t->name, "timeline"), &n);
		}
	}
	fputs("\n]}\n", out->fp);
}
