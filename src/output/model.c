// SPDX-License-Identifier: LGPL-2.1
/*
 * Output: keep what analyses describe (summary values, tables) and hand
 * it at the end to one rendering: text.c, csv.c or json.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "output_local.h"

int kmt_format_parse(const char *name)
{
	if (!strcmp(name, "text"))
		return KMT_FORMAT_TEXT;
	if (!strcmp(name, "csv"))
		return KMT_FORMAT_CSV;
	if (!strcmp(name, "json"))
		return KMT_FORMAT_JSON;
	if (!strcmp(name, "folded"))
		return KMT_FORMAT_FOLDED;
	if (!strcmp(name, "chrome"))
		return KMT_FORMAT_CHROME;
	if (!strcmp(name, "html"))
		return KMT_FORMAT_HTML;
	if (!strcmp(name, "jsonl"))
		return KMT_FORMAT_JSONL;
	if (!strcmp(name, "sqlite"))
		return KMT_FORMAT_SQLITE;
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

int kmt_output_describe(struct kmt_output *out, const char *input, const char *kernel)
{
	free(out->input);
	free(out->kernel);
	out->input = input ? strdup(input) : NULL;
	out->kernel = kernel ? strdup(kernel) : NULL;
	return (input && !out->input) || (kernel && !out->kernel) ? -1 : 0;
}

int kmt_table_column(const struct kmt_table *t, const char *key)
{
	int c;

	for (c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].key, key))
			return c;
	return -1;
}

int kmt_table_time_column(const struct kmt_table *t)
{
	int c = kmt_table_column(t, "start");

	if (c < 0)
		c = kmt_table_column(t, "time");
	return c >= 0 && t->cols[c].kind == KMT_KIND_NS ? c : -1;
}

const char *kmt_kind_unit(enum kmt_kind kind)
{
	switch (kind) {
	case KMT_KIND_BYTES:
		return "bytes";
	case KMT_KIND_NS:
		return "ns";
	case KMT_KIND_PERCENT:
		return "percent";
	case KMT_KIND_ADDRESS:
		return "address";
	case KMT_KIND_STRING:
		return "text";
	case KMT_KIND_SYMBOL:
		return "symbol";
	case KMT_KIND_STACK:
		return "stack";
	default:
		return "count";
	}
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

int kmt_output_begin_input(struct kmt_output *out, const char *name)
{
	if (kmt_output_begin(out, name))
		return -1;
	out->sections[out->nsections - 1].about_input = true;
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
	if (!t || !(t->name = strdup(name)) || !(t->cols = calloc(ncols, sizeof(*cols))) ||
	    (title && !(t->title = strdup(title)))) {
		if (t) {
			free(t->name);
			free(t->cols);
		}
		free(t);
		return NULL;
	}
	t->ncols = ncols;
	t->weight = -1;
	t->base_col = t->new_col = -1;
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

void kmt_table_weight(struct kmt_table *t, int col)
{
	if (col >= 0 && col < t->ncols)
		t->weight = col;
}

void kmt_table_compare(struct kmt_table *t, int base, int new)
{
	if (base >= 0 && base < t->ncols && new >= 0 && new < t->ncols) {
		t->base_col = base;
		t->new_col = new;
	}
}

int kmt_table_stack_column(const struct kmt_table *t)
{
	int c;

	for (c = 0; c < t->ncols; c++)
		if (t->cols[c].kind == KMT_KIND_STACK)
			return c;
	return -1;
}

int kmt_output_stack_tables(const struct kmt_output *out)
{
	int s, i, n = 0;

	for (s = 0; s < out->nsections; s++)
		for (i = 0; i < out->sections[s].ntables; i++)
			n += kmt_table_stack_column(out->sections[s].tables[i]) >= 0;
	return n;
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
void kmt_output_cell_text(char *buf, size_t len, enum kmt_kind kind, union kmt_cell c,
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
	case KMT_KIND_STACK:
		kmt_escape(buf, len, c.s);	/* names from the file */
		break;
	}
}

bool kmt_stack_frame(const char **p, char *buf, size_t len)
{
	const char *s = *p;
	size_t n = strcspn(s, "\n");
	char frame[1024];

	if (!*s)
		return false;
	snprintf(frame, sizeof(frame), "%.*s", (int)n, s);
	kmt_escape(buf, len, frame);
	*p = s + n + (s[n] == '\n');
	return true;
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
		free(t->title);
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
	free(out->input);
	free(out->kernel);
	free(out);
}

void kmt_output_csv_dir(struct kmt_output *out, const char *dir)
{
	out->csv_dir = dir;
}

void kmt_output_only_table(struct kmt_output *out, const char *name)
{
	out->only_table = name;
}

/* Does "SECTION.TABLE" @want name section @sec's table @table? */
static bool named(const char *want, const struct section *sec, const char *table)
{
	size_t n = strlen(sec->name);

	return !strncmp(want, sec->name, n) && want[n] == '.' && !strcmp(want + n + 1, table);
}

int kmt_output_find_only(const struct kmt_output *out, const struct section **sec,
			 const struct kmt_table **table, struct kmt_error *err)
{
	int s, i;

	for (s = 0; s < out->nsections; s++) {
		*sec = &out->sections[s];
		*table = NULL;
		if ((*sec)->nvalues && named(out->only_table, *sec, "summary"))
			return 0;
		for (i = 0; i < (*sec)->ntables; i++)
			if (named(out->only_table, *sec, (*table = (*sec)->tables[i])->name))
				return 0;
	}
	kmt_error_set(err, "report", -1, "--table %s: the report has no such table (names are "
		      "ANALYSIS.TABLE as in --format csv, e.g. slab.callers, stat.summary)",
		      out->only_table);
	return -2;
}

void kmt_output_svg_dir(struct kmt_output *out, const char *dir)
{
	out->svg_dir = dir;
}

void kmt_output_identity(struct kmt_output *out, const char *host, const char *boot_id,
			 const char *release)
{
	out->host = host;
	out->boot_id = boot_id;
	out->release = release;
}

void kmt_output_processes(struct kmt_output *out, kmt_process_lookup lookup, void *ctx)
{
	out->process = lookup;
	out->process_ctx = ctx;
}

int kmt_output_finish(struct kmt_output *out, struct kmt_error *err)
{
	struct kmt_error ignored;
	int ret = 0;

	if (!err)
		err = &ignored;
	if (out->svg_dir && kmt_svg_files(out, out->svg_dir, err)) {
		kmt_output_discard(out);
		return -1;
	}
	switch (out->format) {
	case KMT_FORMAT_TEXT:
		ret = kmt_render_text(out, err);
		break;
	case KMT_FORMAT_CSV:
		ret = kmt_render_csv(out, err);
		break;
	case KMT_FORMAT_JSON:
		kmt_render_json(out);
		break;
	case KMT_FORMAT_FOLDED:
		kmt_render_folded(out);
		break;
	case KMT_FORMAT_CHROME:
		kmt_render_chrome(out);
		break;
	case KMT_FORMAT_HTML:
		kmt_render_html(out);
		break;
	case KMT_FORMAT_JSONL:
		/* report events wrote its lines as they came, and has no tables */
		ret = kmt_render_jsonl(out, err);
		break;
	case KMT_FORMAT_SQLITE:
		ret = kmt_render_sqlite(out, err);
		break;
	}
	if (!ret && (fflush(out->fp) || ferror(out->fp))) {
		kmt_error_set(err, "report", -1, "cannot write the report: %s", strerror(errno));
		ret = -1;
	}
	kmt_output_discard(out);
	return ret;
}
