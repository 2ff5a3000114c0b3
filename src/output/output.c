// SPDX-License-Identifier: LGPL-2.1
/*
 * Output: keep what analyses describe (summary values, tables) and
 * render it at the end as aligned text, CSV or one JSON document.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/output.h>
#include "common/util.h"

struct value {
	char *key;
	const char *label;
	enum kmt_kind kind;
	union kmt_cell cell;
};

struct kmt_table {
	char *name;
	const char *title;
	int ncols;
	struct kmt_column *cols;
	union kmt_cell *cells;		/* rows * ncols */
	int rows;
	uint32_t cap;
};

struct section {
	char *name;
	struct value *values;
	int nvalues;
	uint32_t cap_values;
	struct kmt_table **tables;
	int ntables;
};

struct kmt_output {
	enum kmt_format format;
	FILE *fp;
	int human;
	struct section *sections;
	int nsections;
};

int kmt_format_parse(const char *name)
{
	if (!strcmp(name, "text"))
		return KMT_FORMAT_TEXT;
	if (!strcmp(name, "csv"))
		return KMT_FORMAT_CSV;
	if (!strcmp(name, "json"))
		return KMT_FORMAT_JSON;
	return -1;
}

struct kmt_output *kmt_output_new(enum kmt_format format, FILE *fp, int human)
{
	struct kmt_output *out = calloc(1, sizeof(*out));

	if (!out)
		return NULL;
	out->format = format;
	out->fp = fp;
	out->human = human;
	return out;
}

static struct section *current(struct kmt_output *out)
{
	return out->nsections ? &out->sections[out->nsections - 1] : NULL;
}

int kmt_output_begin(struct kmt_output *out, const char *name)
{
	struct section *s;
	struct section *n = realloc(out->sections, (out->nsections + 1) * sizeof(*n));

	if (!n)
		return -1;
	out->sections = n;
	s = &n[out->nsections];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -1;
	out->nsections++;
	return 0;
}

int kmt_output_value(struct kmt_output *out, const char *key, const char *label,
		     enum kmt_kind kind, union kmt_cell value)
{
	struct section *s = current(out);
	struct value *v;

	if (!s || kmt_grow(&s->values, &s->cap_values, s->nvalues, sizeof(*v)))
		return -1;
	v = &s->values[s->nvalues];
	v->key = strdup(key);
	v->label = label;
	v->kind = kind;
	v->cell = value;
	if (!v->key || (kmt_kind_is_text(kind) && !(v->cell.s = strdup(value.s ? value.s : ""))))
		return -1;
	s->nvalues++;
	return 0;
}

struct kmt_table *kmt_output_table(struct kmt_output *out, const char *name,
				   const char *title, int ncols,
				   const struct kmt_column *cols)
{
	struct section *s = current(out);
	struct kmt_table **tables, *t;
	int i;

	if (!s)
		return NULL;
	tables = realloc(s->tables, (s->ntables + 1) * sizeof(*tables));
	if (!tables)
		return NULL;
	s->tables = tables;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->name = strdup(name)) || !(t->cols = calloc(ncols, sizeof(*cols)))) {
		if (t)
			free(t->name);
		free(t);
		return NULL;
	}
	t->ncols = ncols;
	t->title = title;
	s->tables[s->ntables++] = t;	/* from here on the section frees it */
	for (i = 0; i < ncols; i++) {
		t->cols[i].kind = cols[i].kind;
		t->cols[i].key = strdup(cols[i].key);
		t->cols[i].header = strdup(cols[i].header);
		if (!t->cols[i].key || !t->cols[i].header)
			return NULL;
	}
	return t;
}

int kmt_table_row(struct kmt_table *t, const union kmt_cell *cells)
{
	union kmt_cell *row;
	int c;

	if (kmt_grow(&t->cells, &t->cap, (t->rows + 1) * t->ncols - 1, sizeof(*cells)))
		return -1;
	row = &t->cells[t->rows * t->ncols];
	for (c = 0; c < t->ncols; c++) {
		row[c] = cells[c];
		if (kmt_kind_is_text(t->cols[c].kind) &&
		    !(row[c].s = strdup(cells[c].s ? cells[c].s : "")))
			return -1;
	}
	t->rows++;
	return 0;
}

/* Text of one cell as text output shows it. */
static void format_cell(char *buf, size_t len, enum kmt_kind kind, union kmt_cell c,
			int human, bool csv)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	switch (kind) {
	case KMT_KIND_BYTES:
		if (human && !csv && c.u >= 1024) {
			double v = c.u;
			int u = 0;

			while (v >= 1024 && u < 4) {
				v /= 1024;
				u++;
			}
			snprintf(buf, len, "%.1f %s", v, units[u]);
			break;
		}
		/* fall through */
	case KMT_KIND_COUNT:
		snprintf(buf, len, "%llu", c.u);
		break;
	case KMT_KIND_SIGNED:
		snprintf(buf, len, "%lld", c.i);
		break;
	case KMT_KIND_NS:
		if (csv)
			snprintf(buf, len, "%llu", c.u);
		else
			snprintf(buf, len, "%llu.%09llu", c.u / 1000000000ull,
				 c.u % 1000000000ull);
		break;
	case KMT_KIND_PERCENT:
		snprintf(buf, len, csv ? "%.4f" : "%.2f%%", c.d);
		break;
	case KMT_KIND_ADDRESS:
		snprintf(buf, len, "0x%llx", c.u);
		break;
	case KMT_KIND_STRING:
	case KMT_KIND_SYMBOL:
		kmt_escape(buf, len, c.s);	/* names from the file */
		break;
	}
}

/* One aligned cell: text left, numbers right; no padding after the last. */
static void text_cell(FILE *fp, const struct kmt_table *t, int c, int width, const char *s)
{
	if (!kmt_kind_is_text(t->cols[c].kind))
		fprintf(fp, "  %*s", width, s);
	else if (c == t->ncols - 1)
		fprintf(fp, "  %s", s);
	else
		fprintf(fp, "  %-*s", width, s);
}

static void text_table(struct kmt_output *out, const struct kmt_table *t)
{
	int *width = calloc(t->ncols, sizeof(*width));
	char buf[512];
	int r, c;

	if (!width)
		return;
	for (c = 0; c < t->ncols; c++)
		width[c] = strlen(t->cols[c].header);
	for (r = 0; r < t->rows; r++)
		for (c = 0; c < t->ncols; c++) {
			format_cell(buf, sizeof(buf), t->cols[c].kind, t->cells[r * t->ncols + c],
				    out->human, false);
			if ((int)strlen(buf) > width[c])
				width[c] = strlen(buf);
		}
	fprintf(out->fp, "\n%s\n", t->title ? t->title : t->name);
	for (c = 0; c < t->ncols; c++)
		text_cell(out->fp, t, c, width[c], t->cols[c].header);
	fputc('\n', out->fp);
	for (r = 0; r < t->rows; r++) {
		for (c = 0; c < t->ncols; c++) {
			format_cell(buf, sizeof(buf), t->cols[c].kind, t->cells[r * t->ncols + c],
				    out->human, false);
			text_cell(out->fp, t, c, width[c], buf);
		}
		fputc('\n', out->fp);
	}
	free(width);
}

static const char *value_label(const struct value *v)
{
	return v->label ? v->label : v->key;
}

static void render_text(struct kmt_output *out)
{
	char buf[512];
	int s, i;

	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];

		int w = 0;

		fprintf(out->fp, "%s== %s ==\n", s ? "\n" : "", sec->name);
		for (i = 0; i < sec->nvalues; i++)
			if ((int)strlen(value_label(&sec->values[i])) > w)
				w = strlen(value_label(&sec->values[i]));
		for (i = 0; i < sec->nvalues; i++) {
			const struct value *v = &sec->values[i];

			format_cell(buf, sizeof(buf), v->kind, v->cell, out->human, false);
			fprintf(out->fp, "  %-*s  %s\n", w, value_label(v), buf);
		}
		for (i = 0; i < sec->ntables; i++)
			text_table(out, sec->tables[i]);
	}
}

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void csv_block_start(struct kmt_output *out, bool *first)
{
	if (!*first)
		fputc('\n', out->fp);
	*first = false;
}

static void render_csv(struct kmt_output *out)
{
	bool first = true;
	char name[256], buf[512];
	int s, i, r, c;

	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];

		if (sec->nvalues) {
			csv_block_start(out, &first);
			fprintf(out->fp, "table,key,value\n");
			for (i = 0; i < sec->nvalues; i++) {
				format_cell(buf, sizeof(buf), sec->values[i].kind,
					    sec->values[i].cell, 0, true);
				fprintf(out->fp, "%s.summary,", sec->name);
				csv_field(out->fp, sec->values[i].key);
				fputc(',', out->fp);
				csv_field(out->fp, buf);
				fputc('\n', out->fp);
			}
		}
		for (i = 0; i < sec->ntables; i++) {
			const struct kmt_table *t = sec->tables[i];

			csv_block_start(out, &first);
			fprintf(out->fp, "table");
			for (c = 0; c < t->ncols; c++)
				fprintf(out->fp, ",%s", t->cols[c].key);
			fputc('\n', out->fp);
			snprintf(name, sizeof(name), "%s.%s", sec->name, t->name);
			for (r = 0; r < t->rows; r++) {
				csv_field(out->fp, name);
				for (c = 0; c < t->ncols; c++) {
					format_cell(buf, sizeof(buf), t->cols[c].kind,
						    t->cells[r * t->ncols + c], 0, true);
					fputc(',', out->fp);
					csv_field(out->fp, buf);
				}
				fputc('\n', out->fp);
			}
		}
	}
}

static void json_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(fp, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(fp, "\\u%04x", ch);
		else
			fputc(ch, fp);
	}
	fputc('"', fp);
}

static void json_cell(FILE *fp, enum kmt_kind kind, union kmt_cell c)
{
	if (kmt_kind_is_text(kind))
		json_string(fp, c.s);
	else if (kind == KMT_KIND_PERCENT)
		fprintf(fp, "%.6g", c.d);
	else if (kind == KMT_KIND_SIGNED)
		fprintf(fp, "%lld", c.i);
	else
		fprintf(fp, "%llu", c.u);
}

static void json_table(FILE *fp, const struct kmt_table *t)
{
	int r, c;

	json_string(fp, t->name);
	fputs(": [", fp);
	for (r = 0; r < t->rows; r++) {
		fputs(r ? ",\n        {" : "\n        {", fp);
		for (c = 0; c < t->ncols; c++) {
			fputs(c ? ", " : "", fp);
			json_string(fp, t->cols[c].key);
			fputs(": ", fp);
			json_cell(fp, t->cols[c].kind, t->cells[r * t->ncols + c]);
		}
		fputc('}', fp);
	}
	fputs(t->rows ? "\n      ]" : "]", fp);
}

static void json_section(FILE *fp, const struct section *sec)
{
	int i;

	json_string(fp, sec->name);
	fputs(": {\n    \"summary\": {", fp);
	for (i = 0; i < sec->nvalues; i++) {
		fputs(i ? ", " : "", fp);
		json_string(fp, sec->values[i].key);
		fputs(": ", fp);
		json_cell(fp, sec->values[i].kind, sec->values[i].cell);
	}
	fputs("},\n    \"tables\": {", fp);
	for (i = 0; i < sec->ntables; i++) {
		fputs(i ? ",\n      " : "\n      ", fp);
		json_table(fp, sec->tables[i]);
	}
	fputs(sec->ntables ? "\n    }\n  }" : "}\n  }", fp);
}

static void render_json(struct kmt_output *out)
{
	int s;

	fputs("{\"analyses\": {\n  ", out->fp);
	for (s = 0; s < out->nsections; s++) {
		fputs(s ? ",\n  " : "", out->fp);
		json_section(out->fp, &out->sections[s]);
	}
	fputs("\n}}\n", out->fp);
}

static void free_section(struct section *s)
{
	int i, j;

	for (i = 0; i < s->nvalues; i++) {
		free(s->values[i].key);
		if (kmt_kind_is_text(s->values[i].kind))
			free((char *)s->values[i].cell.s);
	}
	for (i = 0; i < s->ntables; i++) {
		struct kmt_table *t = s->tables[i];

		for (j = 0; j < t->rows * t->ncols; j++)
			if (kmt_kind_is_text(t->cols[j % t->ncols].kind))
				free((char *)t->cells[j].s);
		free(t->cells);
		for (j = 0; j < t->ncols; j++) {
			free((char *)t->cols[j].key);
			free((char *)t->cols[j].header);
		}
		free(t->cols);
		free(t->name);
		free(t);
	}
	free(s->values);
	free(s->tables);
	free(s->name);
}

void kmt_output_discard(struct kmt_output *out)
{
	int s;

	if (!out)
		return;
	for (s = 0; s < out->nsections; s++)
		free_section(&out->sections[s]);
	free(out->sections);
	free(out);
}

int kmt_output_finish(struct kmt_output *out)
{
	int ret;

	switch (out->format) {
	case KMT_FORMAT_TEXT:
		render_text(out);
		break;
	case KMT_FORMAT_CSV:
		render_csv(out);
		break;
	case KMT_FORMAT_JSON:
		render_json(out);
		break;
	}
	ret = fflush(out->fp) || ferror(out->fp) ? -1 : 0;
	kmt_output_discard(out);
	return ret;
}
