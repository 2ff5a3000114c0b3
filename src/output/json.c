// SPDX-License-Identifier: LGPL-2.1
/*
 * JSON rendering: one document, {"analyses": {NAME: {"summary": {...},
 * "tables": {NAME: [ROW, ...]}}}}, and beside "analyses" the sections about
 * the input (NAME: {"summary": ..., "tables": ...}).
 */
#include <string.h>

#include "output_local.h"

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
		json_string(fp, frame);
		p += n + (p[n] == '\n');
	}
	fputc(']', fp);
}

static void json_cell(FILE *fp, enum kmt_kind kind, union kmt_cell c)
{
	if (kind == KMT_KIND_STACK)
		json_stack(fp, c.s);
	else if (kmt_kind_is_text(kind))
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

void kmt_render_json(struct kmt_output *out)
{
	int s, n = 0;

	fputs("{\"analyses\": {\n  ", out->fp);
	for (s = 0; s < out->nsections; s++) {
		if (out->sections[s].about_input)
			continue;
		fputs(n++ ? ",\n  " : "", out->fp);
		json_section(out->fp, &out->sections[s]);
	}
	fputs("\n}", out->fp);
	for (s = 0; s < out->nsections; s++) {
		if (!out->sections[s].about_input)
			continue;
		fputs(",\n ", out->fp);
		json_section(out->fp, &out->sections[s]);
	}
	fputs("}\n", out->fp);
}
