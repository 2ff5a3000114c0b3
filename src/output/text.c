// SPDX-License-Identifier: LGPL-2.1
/*
 * Text rendering: summaries as aligned "label  value" lines, tables as
 * columns sized to their widest cell.
 */
#include <stdlib.h>
#include <string.h>

#include "output_local.h"

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

/* A stack cell: its first frame on the row, the others below it at @indent. */
static void text_stack(FILE *fp, const char *stack, int indent)
{
	char frame[1024];
	const char *p = stack;
	bool first = true;

	while (kmt_stack_frame(&p, frame, sizeof(frame))) {
		if (first)
			fprintf(fp, "  %s", frame);
		else
			fprintf(fp, "\n%*s  %s", indent, "", frame);
		first = false;
	}
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
			if (t->cols[c].kind == KMT_KIND_STACK)
				continue;
			kmt_output_cell_text(buf, sizeof(buf), t->cols[c].kind, t->cells[r * t->ncols + c],
				    out->human, false);
			if ((int)strlen(buf) > width[c])
				width[c] = strlen(buf);
		}
	fprintf(out->fp, "\n%s\n", t->title ? t->title : t->name);
	for (c = 0; c < t->ncols; c++)
		text_cell(out->fp, t, c, width[c], t->cols[c].header);
	fputc('\n', out->fp);
	for (r = 0; r < t->rows; r++) {
		int indent = 0;

		for (c = 0; c < t->ncols; c++) {
			if (t->cols[c].kind == KMT_KIND_STACK) {
				text_stack(out->fp, t->cells[r * t->ncols + c].s, indent);
				continue;
			}
			kmt_output_cell_text(buf, sizeof(buf), t->cols[c].kind, t->cells[r * t->ncols + c],
				    out->human, false);
			text_cell(out->fp, t, c, width[c], buf);
			indent += 2 + width[c];
		}
		fputc('\n', out->fp);
	}
	free(width);
}

/* A section's summary values, their labels aligned. */
static void text_values(struct kmt_output *out, const struct section *sec)
{
	char buf[512];
	int i, w = 0;

	for (i = 0; i < sec->nvalues; i++)
		if ((int)strlen(kmt_value_label(&sec->values[i])) > w)
			w = strlen(kmt_value_label(&sec->values[i]));
	for (i = 0; i < sec->nvalues; i++) {
		const struct value *v = &sec->values[i];

		kmt_output_cell_text(buf, sizeof(buf), v->kind, v->cell, out->human, false);
		fprintf(out->fp, "  %-*s  %s\n", w, kmt_value_label(v), buf);
	}
}

int kmt_render_text(struct kmt_output *out, struct kmt_error *err)
{
	const struct section *only;
	const struct kmt_table *table;
	int s, i;

	if (out->only_table) {
		if (kmt_output_find_only(out, &only, &table, err))
			return -2;
		if (table)
			text_table(out, table);
		else
			text_values(out, only);
		return 0;
	}
	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];

		fprintf(out->fp, "%s== %s ==\n", s ? "\n" : "", sec->name);
		text_values(out, sec);
		for (i = 0; i < sec->ntables; i++)
			text_table(out, sec->tables[i]);
	}
	return 0;
}
