// SPDX-License-Identifier: LGPL-2.1
/*
 * CSV rendering, three ways. On one stream: a block per summary and per
 * table, each with its header line and the table's name in a first column.
 * Into a directory (kmt_output_csv_dir): a file per summary and per table,
 * ANALYSIS-TABLE.csv, each one header line and its rows, which sqlite3's
 * .import and Python's csv module take as they are. One table alone
 * (kmt_output_only_table): the same, on the stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kmtrace/error.h>
#include "output_local.h"

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
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

static void csv_cell(FILE *fp, enum kmt_kind kind, union kmt_cell cell)
{
	char buf[512];

	if (kind == KMT_KIND_STACK) {
		csv_stack(fp, cell.s);
		return;
	}
	kmt_output_cell_text(buf, sizeof(buf), kind, cell, 0, true);
	csv_field(fp, buf);
}

/* The summary of @sec: "key,value" lines, after a first column @name unless NULL. */
static void csv_summary(FILE *fp, const struct section *sec, const char *name)
{
	int i;

	fprintf(fp, "%skey,value\n", name ? "table," : "");
	for (i = 0; i < sec->nvalues; i++) {
		if (name)
			fprintf(fp, "%s,", name);
		csv_field(fp, sec->values[i].key);
		fputc(',', fp);
		csv_cell(fp, sec->values[i].kind, sec->values[i].cell);
		fputc('\n', fp);
	}
}

/* Table @t: its header line and rows, after a first column @name unless NULL. */
static void csv_table(FILE *fp, const struct kmt_table *t, const char *name)
{
	int r, c;

	if (name)
		fputs("table,", fp);
	for (c = 0; c < t->ncols; c++)
		fprintf(fp, "%s%s", c ? "," : "", t->cols[c].key);
	fputc('\n', fp);
	for (r = 0; r < t->rows; r++) {
		if (name) {
			csv_field(fp, name);
			fputc(',', fp);
		}
		for (c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', fp);
			csv_cell(fp, t->cols[c].kind, t->cells[r * t->ncols + c]);
		}
		fputc('\n', fp);
	}
}

static void render_stream(struct kmt_output *out)
{
	bool first = true;
	char name[256];
	int s, i;

	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];

		if (sec->nvalues) {
			fputs(first ? "" : "\n", out->fp);
			first = false;
			snprintf(name, sizeof(name), "%s.summary", sec->name);
			csv_summary(out->fp, sec, name);
		}
		for (i = 0; i < sec->ntables; i++) {
			fputs(first ? "" : "\n", out->fp);
			first = false;
			snprintf(name, sizeof(name), "%s.%s", sec->name, sec->tables[i]->name);
			csv_table(out->fp, sec->tables[i], name);
		}
	}
}

/* A new file @dir/@section-@table.csv (0600, never one that exists); NULL with @err. */
static FILE *new_file(const char *dir, const char *section, const char *table,
		      struct kmt_error *err)
{
	char path[4096];
	int fd;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s-%s.csv", dir, section, table);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fp) {
		kmt_error_set(err, path, -1, "cannot write: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return fp;
}

static int close_file(FILE *fp, const char *dir, struct kmt_error *err)
{
	if (!ferror(fp) && !fclose(fp))
		return 0;
	kmt_error_set(err, dir, -1, "cannot write its CSV files: %s", strerror(errno));
	return -1;
}

static int render_dir(struct kmt_output *out, struct kmt_error *err)
{
	int s, i;
	FILE *fp;

	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];

		if (sec->nvalues) {
			if (!(fp = new_file(out->csv_dir, sec->name, "summary", err)))
				return -1;
			csv_summary(fp, sec, NULL);
			if (close_file(fp, out->csv_dir, err))
				return -1;
		}
		for (i = 0; i < sec->ntables; i++) {
			if (!(fp = new_file(out->csv_dir, sec->name, sec->tables[i]->name, err)))
				return -1;
			csv_table(fp, sec->tables[i], NULL);
			if (close_file(fp, out->csv_dir, err))
				return -1;
		}
	}
	return 0;
}

static int render_one(struct kmt_output *out, struct kmt_error *err)
{
	const struct section *sec;
	const struct kmt_table *t;

	if (kmt_output_find_only(out, &sec, &t, err))
		return -2;
	if (t)
		csv_table(out->fp, t, NULL);
	else
		csv_summary(out->fp, sec, NULL);
	return 0;
}

int kmt_render_csv(struct kmt_output *out, struct kmt_error *err)
{
	if (out->only_table)
		return render_one(out, err);
	if (out->csv_dir)
		return render_dir(out, err);
	render_stream(out);
	return 0;
}
