// SPDX-License-Identifier: LGPL-2.1
/*
 * CSV rendering: one block per summary and per table, a header line each.
 */
#include <stdlib.h>
#include <string.h>

#include "output_local.h"

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

/* A stack cell: its frames joined by ';'. */
static void csv_stack(FILE *fp, const char *stack)
{
	size_t len = 4 * strlen(stack) + 1, at = 0;
	char *joined = malloc(len), frame[1024];
	const char *p = stack;

	if (!joined)
		return;
	joined[0] = '\0';
	while (kmt_stack_frame(&p, frame, sizeof(frame)))
		at += snprintf(joined + at, len - at, "%s%s", at ? ";" : "", frame);
	csv_field(fp, joined);
	free(joined);
}

void kmt_render_csv(struct kmt_output *out)
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
				kmt_output_cell_text(buf, sizeof(buf), sec->values[i].kind,
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
					fputc(',', out->fp);
					if (t->cols[c].kind == KMT_KIND_STACK) {
						csv_stack(out->fp, t->cells[r * t->ncols + c].s);
						continue;
					}
					kmt_output_cell_text(buf, sizeof(buf), t->cols[c].kind,
						    t->cells[r * t->ncols + c], 0, true);
					csv_field(out->fp, buf);
				}
				fputc('\n', out->fp);
			}
		}
	}
}
