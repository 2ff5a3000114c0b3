// SPDX-License-Identifier: LGPL-2.1
/*
 * The diff as the output layer's tables, so that text, CSV, JSON, HTML and
 * (differential) folded stacks come from one description.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_local.h"

/* Figures per table that "auto" shows: the sort figure and two that changed. */
#define AUTO_FIGURES	3

static bool figure_changed(const struct kmt_diff_table *t, int f)
{
	uint32_t r;

	for (r = 0; r < t->nrows; r++)
		if (t->rows[r].val[0][f] != t->rows[r].val[1][f])
			return true;
	return false;
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Which figures of @t to show: @shown[f] set. */
static void pick_figures(const struct kmt_diff_table *t, const char *figures, bool *shown)
{
	int f, n = 0;

	for (f = 0; f < t->nfigs; f++)
		shown[f] = !figures || (strcmp(figures, "auto") && listed(figures, t->figs[f].name));
	if (!figures || strcmp(figures, "auto"))
		return;
	if (t->sort >= 0 && ++n)
		shown[t->sort] = true;
	for (f = 0; f < t->nfigs && n < AUTO_FIGURES; f++)
		if (!shown[f] && t->figs[f].combine == KMT_DIFF_SUM && figure_changed(t, f)) {
			shown[f] = true;
			n++;
		}
}

/* The figure at position @j of a row: the sort figure first, then the others in order. */
static int figure_at(const struct kmt_diff_table *t, int j)
{
	if (t->sort < 0)
		return j;
	if (j == 0)
		return t->sort;
	return j <= t->sort ? j - 1 : j;
}

static union kmt_cell number_cell(enum kmt_kind kind, double v)
{
	union kmt_cell c;

	if (kind == KMT_KIND_SIGNED)
		c.i = llround(v);
	else
		c.u = v <= 0 ? 0 : (unsigned long long)llround(v);
	return c;
}

static const char *side_text(unsigned char present)
{
	return present == KMT_DIFF_BOTH ? "both" : present == KMT_DIFF_BASE_ONLY ? "base" : "new";
}

/* Free the columns table_columns() made: the figures' keys, then the array. */
static void free_columns(const struct kmt_diff_table *t, struct kmt_column *cols, int n)
{
	int i;

	for (i = t->nkeys + 1; i < n; i++)
		free((char *)cols[i].key);
	free(cols);
}

static struct kmt_column *table_columns(const struct kmt_diff_table *t, const bool *shown, int *n)
{
	struct kmt_column *cols = calloc(t->nkeys + 1 + 4 * t->nfigs, sizeof(*cols));
	static const char *const suffix[] = { "base", "new", "delta", "delta_pct" };
	/* text: the figure's name over its base value, then new, delta, delta% */
	static const char *const headers[] = { NULL, "new", "delta", "delta%" };
	int k, f, i, j;

	if (!cols)
		return NULL;
	*n = 0;
	for (k = 0; k < t->nkeys; k++)
		cols[(*n)++] = (struct kmt_column){ t->key_names[k], t->key_names[k],
			kmt_kind_is_text(t->key_kinds[k]) ? t->key_kinds[k] : KMT_KIND_COUNT };
	cols[(*n)++] = (struct kmt_column){ "side", "side", KMT_KIND_STRING };
	for (j = 0; j < t->nfigs; j++) {
		f = figure_at(t, j);
		if (!shown[f])
			continue;
		for (i = 0; i < 4; i++) {
			char *key;

			if (asprintf(&key, "%s_%s", t->figs[f].name, suffix[i]) < 0)
				goto fail;
			cols[*n].key = key;
			cols[*n].header = i == 0 ? t->figs[f].name : headers[i];
			cols[(*n)++].kind = i < 2 ? t->figs[f].kind :
					    i == 2 ? KMT_KIND_SIGNED : KMT_KIND_PERCENT;
		}
	}
	return cols;
fail:
	free_columns(t, cols, *n);
	return NULL;
}

static int add_row(struct kmt_table *out, const struct kmt_diff_table *t,
		   const struct kmt_diff_row *r, const bool *shown, union kmt_cell *cells)
{
	int k, j, n = 0;

	for (k = 0; k < t->nkeys; k++) {
		if (kmt_kind_is_text(t->key_kinds[k]))
			cells[n++].s = r->keys[k];
		else
			cells[n++].u = strtoull(r->keys[k], NULL, 10);
	}
	cells[n++].s = side_text(r->present);
	for (j = 0; j < t->nfigs; j++) {
		int f = figure_at(t, j);
		double b = r->val[0][f], v = r->val[1][f];

		if (!shown[f])
			continue;
		cells[n++] = number_cell(t->figs[f].kind, b);
		cells[n++] = number_cell(t->figs[f].kind, v);
		cells[n++].i = llround(v - b);
		cells[n++].d = kmt_diff_change_pct(b, v);
	}
	return kmt_table_row(out, cells);
}

/* The summary, one figure per row: figure, unit, base, new, delta, delta%. */
static int emit_summary(const struct kmt_diff_table *t, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "figure", "figure", KMT_KIND_STRING }, { "unit", "unit", KMT_KIND_STRING },
		{ "base", "base", KMT_KIND_SIGNED }, { "new", "new", KMT_KIND_SIGNED },
		{ "delta", "delta", KMT_KIND_SIGNED }, { "delta_pct", "delta%", KMT_KIND_PERCENT },
	};
	struct kmt_table *tab;
	int f;

	if (!t->nrows || !t->nfigs)
		return 0;
	tab = kmt_output_table(out, "summary", "summary: base, new and change", 6, cols);
	if (!tab)
		return -1;
	for (f = 0; f < t->nfigs; f++) {
		double b = t->rows[0].val[0][f], v = t->rows[0].val[1][f];
		union kmt_cell c[6] = {
			{ .s = t->figs[f].name },
			{ .s = t->figs[f].kind == KMT_KIND_BYTES ? "bytes" :
			       t->figs[f].kind == KMT_KIND_NS ? "ns" : "count" },
			{ .i = llround(b) }, { .i = llround(v) }, { .i = llround(v - b) },
			{ .d = kmt_diff_change_pct(b, v) },
		};

		if (kmt_table_row(tab, c))
			return -1;
	}
	return 0;
}

static int emit_table(const struct kmt_diff_table *t, struct kmt_output *out, const char *figures)
{
	bool *shown = calloc(t->nfigs + 1, sizeof(*shown));
	struct kmt_column *cols = NULL;
	union kmt_cell *cells = NULL;
	struct kmt_table *tab;
	char title[256];
	int n = 0, rc = -1;
	uint32_t r;

	if (!shown)
		return -1;
	pick_figures(t, figures, shown);
	if (!(cols = table_columns(t, shown, &n)) || !(cells = calloc(n, sizeof(*cells))))
		goto out;
	snprintf(title, sizeof(title), "%s: base, new and change per row, by |change of %s|",
		 t->name, t->sort >= 0 ? t->figs[t->sort].name : "(none)");
	if (!(tab = kmt_output_table(out, t->name, title, n, cols)))
		goto out;
	if (n > t->nkeys + 1)	/* the first figure shown: the sort figure where it is */
		kmt_table_compare(tab, t->nkeys + 1, t->nkeys + 2);
	for (r = 0; r < t->nrows; r++)
		if (add_row(tab, t, &t->rows[r], shown, cells))
			goto out;
	rc = 0;
out:
	free(cells);
	if (cols)
		free_columns(t, cols, n);
	free(shown);
	return rc;
}

int kmt_diff_emit(const struct kmt_diff *d, struct kmt_output *out, const char *figures,
		  struct kmt_error *err)
{
	const char *section = NULL;
	int i;

	for (i = 0; i < d->ntables; i++) {
		const struct kmt_diff_table *t = &d->tables[i];

		if (!section || strcmp(section, t->analysis)) {
			section = t->analysis;
			if (kmt_output_begin(out, section))
				goto nomem;
		}
		if (strcmp(t->name, "summary") ? emit_table(t, out, figures) : emit_summary(t, out))
			goto nomem;
	}
	return 0;
nomem:
	kmt_error_set(err, d->side[0]->name, -1, "out of memory writing the diff");
	return -1;
}
