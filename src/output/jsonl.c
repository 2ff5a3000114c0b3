// SPDX-License-Identifier: LGPL-2.1
/*
 * JSON lines of the report's tables, as a columnar store takes them
 * (ClickHouse's JSONEachRow): one object per table row and per summary
 * value, each with host, boot_id and kernel_release, the analysis and the
 * table ("summary" for the summary's key, label, unit and value), then the
 * row's columns as JSON gives them. Only the table --table names, when it
 * names one.
 */
#include <string.h>

#include "output_local.h"

/* The keys every line starts with. */
static void line_start(FILE *fp, const struct kmt_output *out, const char *section,
		       const char *table)
{
	fputs("{\"host\": ", fp);
	kmt_output_json_string(fp, out->host ? out->host : "");
	fputs(", \"boot_id\": ", fp);
	kmt_output_json_string(fp, out->boot_id ? out->boot_id : "");
	fputs(", \"kernel_release\": ", fp);
	kmt_output_json_string(fp, out->release ? out->release : "");
	fputs(", \"analysis\": ", fp);
	kmt_output_json_string(fp, section);
	fputs(", \"table\": ", fp);
	kmt_output_json_string(fp, table);
}

static void jsonl_summary(FILE *fp, const struct kmt_output *out, const struct section *sec)
{
	int i;

	for (i = 0; i < sec->nvalues; i++) {
		const struct value *v = &sec->values[i];

		line_start(fp, out, sec->name, "summary");
		fputs(", \"key\": ", fp);
		kmt_output_json_string(fp, v->key);
		fputs(", \"label\": ", fp);
		kmt_output_json_string(fp, kmt_value_label(v));
		fprintf(fp, ", \"unit\": \"%s\", \"value\": ", kmt_kind_unit(v->kind));
		kmt_json_cell(fp, v->kind, v->cell);
		fputs("}\n", fp);
	}
}

static void jsonl_table(FILE *fp, const struct kmt_output *out, const struct section *sec,
			const struct kmt_table *t)
{
	int r, c;

	for (r = 0; r < t->rows; r++) {
		line_start(fp, out, sec->name, t->name);
		for (c = 0; c < t->ncols; c++) {
			fputs(", ", fp);
			kmt_output_json_string(fp, t->cols[c].key);
			fputs(": ", fp);
			kmt_json_cell(fp, t->cols[c].kind, t->cells[(size_t)r * t->ncols + c]);
		}
		fputs("}\n", fp);
	}
}

int kmt_render_jsonl(struct kmt_output *out, struct kmt_error *err)
{
	const struct kmt_table *only;
	const struct section *sec_only;
	int s, t;

	if (out->only_table && kmt_output_find_only(out, &sec_only, &only, err))
		return -2;
	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];
		char name[256];

		snprintf(name, sizeof(name), "%s.summary", sec->name);
		if (!out->only_table || !strcmp(out->only_table, name))
			jsonl_summary(out->fp, out, sec);
		for (t = 0; t < sec->ntables; t++) {
			snprintf(name, sizeof(name), "%s.%s", sec->name, sec->tables[t]->name);
			if (!out->only_table || !strcmp(out->only_table, name))
				jsonl_table(out->fp, out, sec, sec->tables[t]);
		}
	}
	return 0;
}
