// SPDX-License-Identifier: LGPL-2.1
/*
 * JSON rendering: one document, {"kmtrace": {version, schema_version,
 * input, kernel}, "analyses": {NAME: {"summary": {...}, "tables": {NAME:
 * [ROW, ...]}, "units": {"summary": {KEY: UNIT}, "tables": {NAME: {COLUMN:
 * UNIT}}}}}}, and beside "analyses" the sections about the input, in the
 * same shape (docs/kmtrace-report.schema.json). Strings are valid UTF-8:
 * a byte that is not part of a UTF-8 sequence is written as the text \xNN.
 * A number that is not finite is null.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "output_local.h"

int kmt_utf8_length(const unsigned char *s)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
		(s[0] & 0xf8) == 0xf0 ? 4 : 0, i;
	unsigned int cp = n == 2 ? s[0] & 0x1f : n == 3 ? s[0] & 0x0f : s[0] & 0x07;

	if (n <= 1)
		return n;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and past U+10FFFF are not UTF-8 */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void kmt_output_json_string(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', fp);
	while (*s) {
		size_t plain = 0;
		int n;

		/* a run of printable ASCII goes out as it is, in one write */
		while (s[plain] >= 0x20 && s[plain] < 0x80 && s[plain] != '"' && s[plain] != '\\')
			plain++;
		if (plain) {
			fwrite(s, 1, plain, fp);
			s += plain;
			continue;
		}
		n = kmt_utf8_length(s);
		if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if (*s < 0x20)
			fprintf(fp, "\\u%04x", *s);
		else if (!n)
			fprintf(fp, "\\\\x%02x", *s);
		else
			fwrite(s, 1, n, fp);
		s += n ? n : 1;
	}
	fputc('"', fp);
}

/* A stack cell: an array of its frames, innermost first. */
static void json_stack(FILE *fp, const char *stack)
{
	const char *p = stack;
	size_t n;
	int i = 0;

	fputc('[', fp);
	while (*p) {
		char frame[1024];

		n = strcspn(p, "\n");
		snprintf(frame, sizeof(frame), "%.*s", (int)n, p);
		fputs(i++ ? ", " : "", fp);
		kmt_output_json_string(fp, frame);
		p += n + (p[n] == '\n');
	}
	fputc(']', fp);
}

void kmt_json_cell(FILE *fp, enum kmt_kind kind, union kmt_cell c)
{
	if (kind == KMT_KIND_STACK)
		json_stack(fp, c.s);
	else if (kmt_kind_is_text(kind))
		kmt_output_json_string(fp, c.s);
	else if (kind == KMT_KIND_PERCENT && !isfinite(c.d))
		fputs("null", fp);
	else if (kind == KMT_KIND_PERCENT)
		fprintf(fp, "%.6g", c.d);
	else if (kind == KMT_KIND_SIGNED)
		fprintf(fp, "%lld", c.i);
	else
		fprintf(fp, "%llu", c.u);
}

static void json_nullable(FILE *fp, const char *s)
{
	if (s)
		kmt_output_json_string(fp, s);
	else
		fputs("null", fp);
}

/* What JSON adds to each row of a per-process table: keys and kinds. */
static const struct kmt_column process_columns[] = {
	{ "tgid", NULL, KMT_KIND_SIGNED }, { "ppid", NULL, KMT_KIND_SIGNED },
	{ "executable", NULL, KMT_KIND_STRING }, { "cmdline", NULL, KMT_KIND_STRING },
	{ "start_time", NULL, KMT_KIND_NS }, { "cgroup", NULL, KMT_KIND_STRING },
	{ "container", NULL, KMT_KIND_STRING }, { "exit_time", NULL, KMT_KIND_NS },
};
#define PROCESS_COLUMNS	(int)(sizeof(process_columns) / sizeof(process_columns[0]))

/* The column of @t keyed @key, or -1. */
static int column_of(const struct kmt_table *t, const char *key)
{
	int c;

	for (c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].key, key))
			return c;
	return -1;
}

/* @t's "pid" column when it is a per-process table, else -1. */
static int pid_column(const struct kmt_table *t)
{
	int c = column_of(t, "pid");

	return c >= 0 && !kmt_kind_is_text(t->cols[c].kind) ? c : -1;
}

static void json_number_or_null(FILE *fp, long long v)
{
	if (v >= 0)
		fprintf(fp, "%lld", v);
	else
		fputs("null", fp);
}

/* Process column @i of task @p (NULL: unknown). */
static void json_process_value(FILE *fp, const struct kmt_process *p, int i)
{
	const char *texts[PROCESS_COLUMNS] = { NULL };

	if (!p) {
		fputs("null", fp);
		return;
	}
	texts[2] = p->exe;
	texts[3] = p->cmdline;
	texts[5] = p->cgroup;
	texts[6] = p->container;
	if (i == 0 || i == 1)
		json_number_or_null(fp, i ? p->ppid : p->tgid);
	else if (i == 4)
		json_number_or_null(fp, p->start_ns);
	else if (i == 7)
		json_number_or_null(fp, p->exit_ns > 0 ? p->exit_ns : -1);
	else
		json_nullable(fp, texts[i]);
}

/* The process keys of a row whose pid is @pid, those @t has no column of. */
static void json_process(FILE *fp, const struct kmt_output *out, const struct kmt_table *t,
			 unsigned long long pid)
{
	const struct kmt_process *p = out->process && pid <= INT_MAX ?
				      out->process(out->process_ctx, (int)pid) : NULL;
	int i;

	for (i = 0; i < PROCESS_COLUMNS; i++) {
		if (column_of(t, process_columns[i].key) >= 0)
			continue;
		fputs(", ", fp);
		kmt_output_json_string(fp, process_columns[i].key);
		fputs(": ", fp);
		json_process_value(fp, p, i);
	}
}

static void json_table(FILE *fp, const struct kmt_output *out, const struct kmt_table *t)
{
	int r, c, pid = pid_column(t);

	kmt_output_json_string(fp, t->name);
	fputs(": [", fp);
	for (r = 0; r < t->rows; r++) {
		fputs(r ? ",\n        {" : "\n        {", fp);
		for (c = 0; c < t->ncols; c++) {
			fputs(c ? ", " : "", fp);
			kmt_output_json_string(fp, t->cols[c].key);
			fputs(": ", fp);
			kmt_json_cell(fp, t->cols[c].kind, t->cells[r * t->ncols + c]);
		}
		if (pid >= 0)
			json_process(fp, out, t, t->cells[r * t->ncols + pid].u);
		fputc('}', fp);
	}
	fputs(t->rows ? "\n      ]" : "]", fp);
}

/* "units": the unit of each summary value and of each table column. */
static void json_units(FILE *fp, const struct section *sec)
{
	int i, c;

	fputs("    \"units\": {\"summary\": {", fp);
	for (i = 0; i < sec->nvalues; i++) {
		fputs(i ? ", " : "", fp);
		kmt_output_json_string(fp, sec->values[i].key);
		fprintf(fp, ": \"%s\"", kmt_kind_unit(sec->values[i].kind));
	}
	fputs("}, \"tables\": {", fp);
	for (i = 0; i < sec->ntables; i++) {
		const struct kmt_table *t = sec->tables[i];

		fputs(i ? ",\n      " : "\n      ", fp);
		kmt_output_json_string(fp, t->name);
		fputs(": {", fp);
		for (c = 0; c < t->ncols; c++) {
			fputs(c ? ", " : "", fp);
			kmt_output_json_string(fp, t->cols[c].key);
			fprintf(fp, ": \"%s\"", kmt_kind_unit(t->cols[c].kind));
		}
		for (c = 0; pid_column(t) >= 0 && c < PROCESS_COLUMNS; c++)
			if (column_of(t, process_columns[c].key) < 0)
				fprintf(fp, ", \"%s\": \"%s\"", process_columns[c].key,
					kmt_kind_unit(process_columns[c].kind));
		fputc('}', fp);
	}
	fputs("}}", fp);
}

static void json_section(FILE *fp, const struct kmt_output *out, const struct section *sec)
{
	int i;

	kmt_output_json_string(fp, sec->name);
	fputs(": {\n    \"summary\": {", fp);
	for (i = 0; i < sec->nvalues; i++) {
		fputs(i ? ", " : "", fp);
		kmt_output_json_string(fp, sec->values[i].key);
		fputs(": ", fp);
		kmt_json_cell(fp, sec->values[i].kind, sec->values[i].cell);
	}
	fputs("},\n    \"tables\": {", fp);
	for (i = 0; i < sec->ntables; i++) {
		fputs(i ? ",\n      " : "\n      ", fp);
		json_table(fp, out, sec->tables[i]);
	}
	fputs(sec->ntables ? "\n    },\n" : "},\n", fp);
	json_units(fp, sec);
	fputs("\n  }", fp);
}

void kmt_render_json(struct kmt_output *out)
{
	int s, n = 0;

	fprintf(out->fp, "{\"kmtrace\": {\"version\": \"%s\", \"schema_version\": %d, \"input\": ",
		KMT_VERSION, KMT_JSON_SCHEMA_VERSION);
	json_nullable(out->fp, out->input);
	fputs(", \"kernel\": ", out->fp);
	json_nullable(out->fp, out->kernel);
	fputs("},\n \"analyses\": {\n  ", out->fp);
	for (s = 0; s < out->nsections; s++) {
		if (out->sections[s].about_input)
			continue;
		fputs(n++ ? ",\n  " : "", out->fp);
		json_section(out->fp, out, &out->sections[s]);
	}
	fputs("\n}", out->fp);
	for (s = 0; s < out->nsections; s++) {
		if (!out->sections[s].about_input)
			continue;
		fputs(",\n ", out->fp);
		json_section(out->fp, out, &out->sections[s]);
	}
	fputs("}\n", out->fp);
}
