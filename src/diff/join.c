// SPDX-License-Identifier: LGPL-2.1
/*
 * The join: every analysis both reports (or either) have, its summary as a
 * table of one row and no key, each of its tables with rows keyed by what
 * survives a rebuild and a reboot (columns.c), figures added, scaled and
 * put side by side, rows sorted by the largest change.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "common/util.h"

static int add_key(struct kmt_diff_table *t, const char *name, enum kmt_kind kind)
{
	char **names = realloc(t->key_names, (t->nkeys + 1) * sizeof(*names));
	enum kmt_kind *kinds;

	if (!names)
		return -1;
	t->key_names = names;
	kinds = realloc(t->key_kinds, (t->nkeys + 1) * sizeof(*kinds));
	if (!kinds)
		return -1;
	t->key_kinds = kinds;
	if (!(names[t->nkeys] = strdup(name)))
		return -1;
	kinds[t->nkeys++] = kind;
	return 0;
}

static int add_figure(struct kmt_diff_table *t, const char *name, enum kmt_kind kind)
{
	struct kmt_diff_figure *f = realloc(t->figs, (t->nfigs + 1) * sizeof(*f));

	if (!f)
		return -1;
	t->figs = f;
	f += t->nfigs;
	f->kind = kind;
	f->combine = kmt_diff_combine_of(name);
	if (!(f->name = strdup(name)))
		return -1;
	t->nfigs++;
	return 0;
}

/* Keys and figures of @t from its "units" object @units. */
static int add_columns(struct kmt_diff_table *t, json_object *units)
{
	json_object_object_foreach(units, name, unit) {
		enum kmt_kind kind = kmt_diff_kind(json_object_get_string(unit));

		switch (kmt_diff_column_role(t->name, units, name, kind)) {
		case KMT_DIFF_KEY:
			if (!strcmp(t->name, "summary"))
				break;	/* one row: its texts are no key */
			if (add_key(t, name, kind))
				return -1;
			break;
		case KMT_DIFF_FIGURE:
			if (add_figure(t, name, kind))
				return -1;
			break;
		case KMT_DIFF_NONE:
			break;
		}
	}
	return 0;
}

/* Free the key texts of a row (NULL-ended or @n long) and their array. */
static void free_keys(char **keys, int n)
{
	int k;

	for (k = 0; keys && k < n && keys[k]; k++)
		free(keys[k]);
	free(keys);
}

/* The row of @keys in @t, made if new (it takes @keys), else @keys freed. NULL without memory. */
static struct kmt_diff_row *find_row(struct kmt_diff_table *t, char **keys)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct kmt_diff_row *r;
	bool made;
	uint32_t i;
	int k;

	for (k = 0; k < t->nkeys; k++)
		h = kmt_hash_bytes(keys[k], strlen(keys[k]) + 1) ^ (h * 31);
	i = kmt_hashmap_row(&t->index, h, &t->rows, &t->cap, &t->nrows, sizeof(*r), &made);
	if (i == KMT_HASHMAP_NO_ROW || !made) {
		free_keys(keys, t->nkeys);
		return i == KMT_HASHMAP_NO_ROW ? NULL : &t->rows[i];
	}
	r = &t->rows[i];
	r->keys = keys;
	r->val[0] = calloc(t->nfigs + 1, sizeof(double));
	r->val[1] = calloc(t->nfigs + 1, sizeof(double));
	return r->val[0] && r->val[1] ? r : NULL;
}

static char **row_keys(const struct kmt_diff_table *t, json_object *row, bool exact)
{
	char **keys = calloc(t->nkeys + 1, sizeof(*keys));
	int k;

	for (k = 0; keys && k < t->nkeys; k++) {
		json_object *cell = NULL;

		json_object_object_get_ex(row, t->key_names[k], &cell);
		if (!(keys[k] = kmt_diff_key_text(cell, t->key_kinds[k], exact))) {
			free_keys(keys, k);
			return NULL;
		}
	}
	return keys;
}

static double figure_value(json_object *row, const char *name)
{
	json_object *v;

	if (!json_object_object_get_ex(row, name, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return 0;
	return json_object_get_double(v);
}

/* The value of the row's first summed figure: which row gives the DOMINANT ones. */
static double row_weight(const struct kmt_diff_table *t, json_object *row)
{
	int f;

	for (f = 0; f < t->nfigs; f++)
		if (t->figs[f].combine == KMT_DIFF_SUM)
			return figure_value(row, t->figs[f].name);
	return 0;
}

static void combine(struct kmt_diff_table *t, struct kmt_diff_row *r, int side, json_object *row,
		    double scale)
{
	double weight = row_weight(t, row);
	bool biggest = !(r->present & (1 << side)) || weight >= r->weight[side];
	int f;

	for (f = 0; f < t->nfigs; f++) {
		double v = figure_value(row, t->figs[f].name), *to = &r->val[side][f];

		if (t->figs[f].combine == KMT_DIFF_SUM)
			*to += v * scale;
		else if (t->figs[f].combine == KMT_DIFF_MAX)
			*to = fmax(*to, v);
		else if (biggest)
			*to = v;
	}
	if (biggest)
		r->weight[side] = weight;
	r->present |= 1 << side;
}

static int add_row(struct kmt_diff_table *t, int side, json_object *row, const struct kmt_diff *d)
{
	char **keys = row_keys(t, row, d->opts.exact_sites);
	struct kmt_diff_row *r;

	if (!keys || !(r = find_row(t, keys)))
		return -1;
	combine(t, r, side, row, d->opts.scale[side]);
	return 0;
}

static int add_rows(struct kmt_diff_table *t, int side, json_object *rows,
		    const struct kmt_diff *d)
{
	size_t i, n = json_object_is_type(rows, json_type_array) ? json_object_array_length(rows) : 0;

	for (i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(rows, i);

		if (json_object_is_type(row, json_type_object) && add_row(t, side, row, d))
			return -1;
	}
	return 0;
}

/*
 * "X_per_hit" of rows joined from several (a function's two call sites) is
 * their bytes_X (or X) over their hits, not the biggest one's.
 */
static void recompute_per_hit(struct kmt_diff_table *t)
{
	int hits = kmt_diff_figure_index(t, "hits"), f, num, s;
	char name[256];
	uint32_t r;

	for (f = 0; f < t->nfigs && hits >= 0; f++) {
		size_t n = strlen(t->figs[f].name);

		if (n < 8 || strcmp(t->figs[f].name + n - 8, "_per_hit"))
			continue;
		snprintf(name, sizeof(name), "bytes_%.*s", (int)n - 8, t->figs[f].name);
		if ((num = kmt_diff_figure_index(t, name)) < 0)
			continue;
		for (r = 0; r < t->nrows; r++)
			for (s = 0; s < 2; s++) {
				double h = t->rows[r].val[s][hits];

				t->rows[r].val[s][f] = h > 0 ? t->rows[r].val[s][num] / h : 0;
			}
	}
}

/* What a table's rows weigh: its first summed byte figure, else its first summed one. */
static int volume_figure(const struct kmt_diff_table *t)
{
	int f;

	for (f = 0; f < t->nfigs; f++)
		if (t->figs[f].kind == KMT_KIND_BYTES && t->figs[f].combine == KMT_DIFF_SUM)
			return f;
	for (f = 0; f < t->nfigs; f++)
		if (t->figs[f].combine == KMT_DIFF_SUM)
			return f;
	return -1;
}

/* Figure rows are sorted by: --sort's, else live bytes, else what the rows weigh. */
static int sort_figure(const struct kmt_diff_table *t, const char *wanted)
{
	int f;

	if (wanted && (f = kmt_diff_figure_index(t, wanted)) >= 0)
		return f;
	if ((f = kmt_diff_figure_index(t, "live_bytes")) >= 0)
		return f;
	return volume_figure(t);
}

static int compare_rows(const void *a, const void *b, void *ctx)
{
	const struct kmt_diff_row *x = a, *y = b;
	int f = *(const int *)ctx;
	double dx, dy;

	if (f < 0)
		return 0;
	dx = fabs(x->val[1][f] - x->val[0][f]);
	dy = fabs(y->val[1][f] - y->val[0][f]);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	dx = fmax(x->val[0][f], x->val[1][f]);
	dy = fmax(y->val[0][f], y->val[1][f]);
	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static struct kmt_diff_table *new_table(struct kmt_diff *d, const char *analysis,
					const char *name)
{
	struct kmt_diff_table *t = realloc(d->tables, (d->ntables + 1) * sizeof(*t));

	if (!t)
		return NULL;
	d->tables = t;
	t += d->ntables;
	memset(t, 0, sizeof(*t));
	t->sort = -1;
	if (kmt_hashmap_init(&t->index) || !(t->analysis = strdup(analysis)) ||
	    !(t->name = strdup(name)))
		return NULL;
	d->ntables++;
	return t;
}

/* The summary of @analysis: one row, no key, each number a figure. */
static int join_summary(struct kmt_diff *d, const char *analysis)
{
	json_object *sum[2], *units = NULL;
	struct kmt_diff_table *t = new_table(d, analysis, "summary");
	int s;

	if (!t)
		return -1;
	for (s = 0; s < 2; s++) {
		json_object *an = kmt_diff_analysis(d->side[s], analysis);

		sum[s] = kmt_diff_member_object(an, "summary");
		if (!units)
			units = kmt_diff_member_object(kmt_diff_member_object(an, "units"),
						       "summary");
	}
	if (units && add_columns(t, units))
		return -1;
	for (s = 0; s < 2; s++)
		if (sum[s] && add_row(t, s, sum[s], d))
			return -1;
	return 0;
}

static int join_table(struct kmt_diff *d, const char *analysis, const char *name,
		      json_object *units)
{
	struct kmt_diff_table *t;
	int s;

	if (json_object_object_get_ex(units, "start", NULL))
		return 0;	/* a timeline: its times are the recording's own */
	if (!(t = new_table(d, analysis, name)) || add_columns(t, units))
		return -1;
	for (s = 0; s < 2; s++) {
		json_object *tables = kmt_diff_member_object(kmt_diff_analysis(d->side[s], analysis),
							     "tables"), *rows;

		if (json_object_object_get_ex(tables, name, &rows) && add_rows(t, s, rows, d))
			return -1;
	}
	recompute_per_hit(t);
	t->sort = sort_figure(t, d->opts.sort);
	if (t->nrows > 1)
		qsort_r(t->rows, t->nrows, sizeof(*t->rows), compare_rows, &t->sort);
	return 0;
}

/* The tables of @analysis in either report (base's columns first). */
static int join_tables(struct kmt_diff *d, const char *analysis)
{
	json_object *seen = json_object_new_object();
	int s, rc = 0;

	if (!seen)
		return -1;
	for (s = 0; s < 2 && !rc; s++) {
		json_object *units = kmt_diff_member_object(kmt_diff_member_object(
			kmt_diff_analysis(d->side[s], analysis), "units"), "tables");

		if (!units)
			continue;
		json_object_object_foreach(units, name, cols) {
			if (json_object_object_get_ex(seen, name, NULL) ||
			    !json_object_is_type(cols, json_type_object))
				continue;
			if (json_object_object_add(seen, name, NULL) ||
			    join_table(d, analysis, name, cols)) {
				rc = -1;
				break;
			}
		}
	}
	json_object_put(seen);
	return rc;
}

static int join_analysis(struct kmt_diff *d, const char *analysis)
{
	return join_summary(d, analysis) || join_tables(d, analysis) ? -1 : 0;
}

struct kmt_diff *kmt_diff_compute(const struct kmt_diff_side *base,
				  const struct kmt_diff_side *new,
				  const struct kmt_diff_options *opts, struct kmt_error *err)
{
	struct kmt_diff *d = calloc(1, sizeof(*d));
	int s;

	if (!d)
		goto nomem;
	d->side[0] = base;
	d->side[1] = new;
	d->opts = *opts;
	for (s = 0; s < 2; s++) {
		json_object *ans = kmt_diff_member_object(d->side[s]->root, "analyses");

		json_object_object_foreach(ans, name, an) {
			(void)an;
			if (s == 1 && kmt_diff_analysis(base, name))
				continue;
			if (join_analysis(d, name))
				goto nomem;
		}
	}
	return d;
nomem:
	kmt_error_set(err, base->name, -1, "out of memory joining it with %s", new->name);
	kmt_diff_free(d);
	return NULL;
}

const struct kmt_diff_table *kmt_diff_find(const struct kmt_diff *d, const char *analysis,
					   const char *name)
{
	int i;

	for (i = 0; i < d->ntables; i++)
		if (!strcmp(d->tables[i].analysis, analysis) && !strcmp(d->tables[i].name, name))
			return &d->tables[i];
	return NULL;
}

int kmt_diff_figure_index(const struct kmt_diff_table *t, const char *name)
{
	int f;

	for (f = 0; f < t->nfigs; f++)
		if (!strcmp(t->figs[f].name, name))
			return f;
	return -1;
}

void kmt_diff_row_label(const struct kmt_diff_table *t, const struct kmt_diff_row *r,
			char *buf, size_t len)
{
	size_t used = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < t->nkeys && used < len; k++) {
		const char *s = r->keys[k];
		int n = t->key_kinds[k] == KMT_KIND_STACK ? (int)strcspn(s, "\n") : (int)strlen(s);

		used += snprintf(buf + used, len - used, "%s%.*s", k ? ", " : "", n, s);
	}
}

double kmt_diff_joined_share(const struct kmt_diff *d, const char *analysis)
{
	double all = 0, joined = 0;
	bool keyed = false;
	int i, s;
	uint32_t r;

	for (i = 0; i < d->ntables; i++) {
		const struct kmt_diff_table *t = &d->tables[i];
		int f;

		if (strcmp(t->analysis, analysis) || t->nkeys == 0 || (f = volume_figure(t)) < 0)
			continue;
		keyed = true;
		for (r = 0; r < t->nrows; r++)
			for (s = 0; s < 2; s++) {
				all += t->rows[r].val[s][f];
				if (t->rows[r].present == KMT_DIFF_BOTH)
					joined += t->rows[r].val[s][f];
			}
	}
	return !keyed ? -1 : all > 0 ? joined / all : 0;
}

static void free_table(struct kmt_diff_table *t)
{
	uint32_t r;
	int k;

	for (r = 0; r < t->nrows; r++) {
		free_keys(t->rows[r].keys, t->nkeys);
		free(t->rows[r].val[0]);
		free(t->rows[r].val[1]);
	}
	free(t->rows);
	for (k = 0; k < t->nkeys; k++)
		free(t->key_names[k]);
	free(t->key_names);
	free(t->key_kinds);
	for (k = 0; k < t->nfigs; k++)
		free(t->figs[k].name);
	free(t->figs);
	kmt_hashmap_free(&t->index);
	free(t->analysis);
	free(t->name);
}

void kmt_diff_free(struct kmt_diff *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < d->ntables; i++)
		free_table(&d->tables[i]);
	free(d->tables);
	free(d);
}
