/* SPDX-License-Identifier: LGPL-2.1 */
/* The output model the renderings share: private to src/output. */
#ifndef KMT_OUTPUT_LOCAL_H
#define KMT_OUTPUT_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <kmtrace/error.h>
#include <kmtrace/output.h>
#include <kmtrace/process.h>

struct value {
	char *key;
	const char *label;
	enum kmt_kind kind;
	union kmt_cell cell;
};

struct kmt_table {
	char *name;
	char *title;
	int ncols;
	struct kmt_column *cols;
	union kmt_cell *cells;		/* rows * ncols */
	int rows;
	uint32_t cap;
	int weight;			/* folded output's value column, -1: the first number */
	int base_col, new_col;		/* one figure on a diff's two sides, or -1 */
};

struct section {
	char *name;
	bool about_input;	/* not an analysis: JSON puts it beside "analyses" */
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
	char *input, *kernel;		/* what was reported on (kmt_output_describe) */
	const char *csv_dir;		/* CSV: a file per table there */
	const char *only_table;		/* text, CSV: only this "SECTION.TABLE" */
	const char *svg_dir;		/* the charts as SVG files there too */
	struct kmt_sqlite *sqlite;	/* SQLite: the database the tables go into */
	const char *host, *boot_id, *release;	/* JSON lines: every line's identity */
	kmt_process_lookup process;	/* JSON: who each "pid" of a table is, or NULL */
	void *process_ctx;
	struct section *sections;
	int nsections;
};

/* The label of summary value @v: its label, else its key. */
static inline const char *kmt_value_label(const struct value *v)
{
	return v->label ? v->label : v->key;
}

/* Text of one cell as text output (or, @csv, CSV) shows it, into @buf. */
void kmt_output_cell_text(char *buf, size_t len, enum kmt_kind kind, union kmt_cell c,
			  int human, bool csv);

/*
 * The next frame of the KMT_KIND_STACK text at *@p, escaped, into @buf;
 * *@p moves past it. false when there is none left.
 */
bool kmt_stack_frame(const char **p, char *buf, size_t len);

/*
 * The section and table (*@table NULL: its summary) that @out->only_table
 * names; -2 with @err filled when the report has none.
 */
int kmt_output_find_only(const struct kmt_output *out, const struct section **sec,
			 const struct kmt_table **table, struct kmt_error *err);

/* Render all of @out on its stream: aligned text, CSV, one JSON document
 * (the other formats have a file each: folded, chrome, html, svg).
 * Text and CSV: 0, or -2 when the table asked for is not there (@err filled). */
int kmt_render_text(struct kmt_output *out, struct kmt_error *err);
/* CSV: 0, -1 on a write error, -2 when the table asked for is not there (@err filled). */
int kmt_render_csv(struct kmt_output *out, struct kmt_error *err);
void kmt_render_json(struct kmt_output *out);
void kmt_render_folded(struct kmt_output *out);
void kmt_render_chrome(struct kmt_output *out);
void kmt_render_html(struct kmt_output *out);
/* SQLite: the summaries and tables into out->sqlite; 0, or -1 with @err. */
int kmt_render_sqlite(struct kmt_output *out, struct kmt_error *err);

/* Cell @c of @kind as a JSON value (a stack: an array of frames; a percent not finite: null). */
void kmt_json_cell(FILE *fp, enum kmt_kind kind, union kmt_cell c);

/*
 * JSON lines: a line per summary value and table row, each with the
 * identity's keys. 0, or -2 when the table asked for is not there (@err filled).
 */
int kmt_render_jsonl(struct kmt_output *out, struct kmt_error *err);

/* Length of the valid UTF-8 sequence at @s (1-4), or 0 when it is not one. */
int kmt_utf8_length(const unsigned char *s);

/* @s as HTML text: <, >, & and quotes escaped, bytes that are not UTF-8 as \xNN. */
void kmt_html_text(FILE *fp, const char *s);

/* The column of @t named @key, or -1. */
int kmt_table_column(const struct kmt_table *t, const char *key);

/* The column of @t that holds its rows' times ("start" or "time", in ns), or -1. */
int kmt_table_time_column(const struct kmt_table *t);

/*
 * The SVG chart of @t (svg.c), if its kind has one: a timeline's lines,
 * rings of a call-site or cache table, an icicle of a stack table.
 */
void kmt_svg_chart(FILE *fp, const struct kmt_table *t);

/* Each chart of @out as a new file @dir/ANALYSIS-TABLE.svg. 0, or -1 with @err. */
int kmt_svg_files(const struct kmt_output *out, const char *dir, struct kmt_error *err);

/* The unit JSON names for values of @kind: "bytes", "ns", "count", ... */
const char *kmt_kind_unit(enum kmt_kind kind);

/* The KMT_KIND_STACK column of @t, or -1. */
int kmt_table_stack_column(const struct kmt_table *t);

#endif /* KMT_OUTPUT_LOCAL_H */
