/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: analyses describe summaries and tables once; this layer
 * renders them in seven formats: text, CSV, JSON, folded stacks,
 * Chrome trace events, JSON lines (events) and HTML (with SVG charts).
 */
#ifndef KMTRACE_OUTPUT_H
#define KMTRACE_OUTPUT_H

#include <stdio.h>
#include <kmtrace/process.h>

enum kmt_format {
	KMT_FORMAT_TEXT,
	KMT_FORMAT_CSV,
	KMT_FORMAT_JSON,
	KMT_FORMAT_FOLDED,	/* "frame;frame;frame VALUE" per stack, for flame graphs */
	KMT_FORMAT_CHROME,	/* Chrome trace-event JSON: timelines as counters, Perfetto */
	KMT_FORMAT_HTML,	/* one self-contained page: charts (SVG) and sortable tables */
	KMT_FORMAT_JSONL,	/* report events: a JSON object per event, written as they come;
				   analyses: one per table row */
	KMT_FORMAT_SQLITE,	/* a database file (kmtrace/sqlite.h) */
};

/* How a value is shown: the JSON value is always the raw number. */
enum kmt_kind {
	KMT_KIND_COUNT,		/* unsigned integer */
	KMT_KIND_SIGNED,	/* signed integer (.i) */
	KMT_KIND_BYTES,		/* unsigned integer, human size with -H */
	KMT_KIND_NS,		/* unsigned nanoseconds, seconds in text */
	KMT_KIND_PERCENT,	/* double */
	KMT_KIND_ADDRESS,	/* unsigned integer, hex in text and CSV */
	KMT_KIND_STRING,	/* text */
	KMT_KIND_SYMBOL,	/* text: a resolved code address, "func+0xOFF [mod]" */
	KMT_KIND_STACK,		/* text: frames (KMT_KIND_SYMBOL texts), innermost first,
				   one per line; a table's last column */
};

/* Kinds whose cells hold .s (copied when added). */
static inline int kmt_kind_is_text(enum kmt_kind kind)
{
	return kind == KMT_KIND_STRING || kind == KMT_KIND_SYMBOL || kind == KMT_KIND_STACK;
}

/* A column of a table: JSON key, text header and kind. */
struct kmt_column {
	const char *key;
	const char *header;
	enum kmt_kind kind;
};

/* One cell: .u for unsigned kinds, .i for KMT_KIND_SIGNED, .d for percent, .s for text. */
union kmt_cell {
	unsigned long long u;
	long long i;
	double d;
	const char *s;
};

struct kmt_output;
struct kmt_table;
struct kmt_error;

/* Parse "text", "csv", "json", "folded", "chrome", "html", "jsonl" or "sqlite"; -1 if none. */
int kmt_format_parse(const char *name);

/* Make an output that renders into @fp; @human shows sizes as KiB/MiB. */
struct kmt_output *kmt_output_new(enum kmt_format format, FILE *fp, int human);

/*
 * Say what the output is about: the input's name and its kernel (either
 * may be NULL). JSON carries them in its "kmtrace" object.
 */
int kmt_output_describe(struct kmt_output *out, const char *input, const char *kernel);

/* Write @s to @fp as a JSON string (escaped; bytes that are not UTF-8 as the text \xNN). */
void kmt_output_json_string(FILE *fp, const char *s);

/* The version of the JSON document's layout (docs/kmtrace-report.schema.json). */
#define KMT_JSON_SCHEMA_VERSION	1

/* Start the section of analysis @name; what follows belongs to it. */
int kmt_output_begin(struct kmt_output *out, const char *name);

/*
 * Start section @name about the input rather than an analysis (e.g. where
 * symbols came from): JSON shows it at the top level, beside "analyses".
 */
int kmt_output_begin_input(struct kmt_output *out, const char *name);

/* Add a summary value @key (shown as @label in text) of kind @kind. */
int kmt_output_value(struct kmt_output *out, const char *key, const char *label,
		     enum kmt_kind kind, union kmt_cell value);

/* kmt_output_value() of a count, a signed number, a duration or a text. */
static inline int kmt_output_count(struct kmt_output *out, const char *key, const char *label,
				   unsigned long long v)
{
	return kmt_output_value(out, key, label, KMT_KIND_COUNT, (union kmt_cell){ .u = v });
}

static inline int kmt_output_signed(struct kmt_output *out, const char *key, const char *label,
				    long long v)
{
	return kmt_output_value(out, key, label, KMT_KIND_SIGNED, (union kmt_cell){ .i = v });
}

static inline int kmt_output_ns(struct kmt_output *out, const char *key, const char *label,
				unsigned long long v)
{
	return kmt_output_value(out, key, label, KMT_KIND_NS, (union kmt_cell){ .u = v });
}

static inline int kmt_output_string(struct kmt_output *out, const char *key, const char *label,
				    const char *v)
{
	return kmt_output_value(out, key, label, KMT_KIND_STRING, (union kmt_cell){ .s = v });
}

/* Start table @name with @ncols columns described by @cols (all copied, @title too). */
struct kmt_table *kmt_output_table(struct kmt_output *out, const char *name,
				   const char *title, int ncols,
				   const struct kmt_column *cols);

/*
 * Column @col of @table is what --format folded gives as each stack's
 * value (the default: the first numeric column).
 */
void kmt_table_weight(struct kmt_table *table, int col);

/*
 * Columns @base and @new of @table are one figure of two reports (kmtrace
 * diff): HTML draws each row's change as a bar left or right of zero, and
 * a stack table as an icicle coloured by growth and shrinkage; folded
 * stacks carry both values, "outer;...;inner BASE NEW".
 */
void kmt_table_compare(struct kmt_table *table, int base, int new);

/* How many tables added so far have a KMT_KIND_STACK column. */
int kmt_output_stack_tables(const struct kmt_output *out);

/* Append a row of ncols cells to @table; strings are copied. */
int kmt_table_row(struct kmt_table *table, const union kmt_cell *cells);

/*
 * CSV: write a file per summary and table into directory @dir,
 * ANALYSIS-TABLE.csv (new files only, mode 0600), instead of one stream.
 */
void kmt_output_csv_dir(struct kmt_output *out, const char *dir);

/*
 * Text and CSV: write only table @name ("ANALYSIS.TABLE" or
 * "ANALYSIS.summary"): in CSV with no name column, in text with no section
 * header.
 */
void kmt_output_only_table(struct kmt_output *out, const char *name);

/*
 * Besides the output: each table's chart (as --html draws it) as a new file
 * @dir/ANALYSIS-TABLE.svg, mode 0600.
 */
void kmt_output_svg_dir(struct kmt_output *out, const char *dir);

/*
 * JSON: each row of a table with a "pid" column also gets what @lookup
 * (with @ctx) knows of that task: tgid, ppid, executable, cmdline,
 * start_time, cgroup and container, null where unknown (and all null
 * without a @lookup).
 */
void kmt_output_processes(struct kmt_output *out, kmt_process_lookup lookup, void *ctx);

/*
 * JSON lines: the host, boot id and kernel release every line carries (the
 * strings are kept, not copied).
 */
void kmt_output_identity(struct kmt_output *out, const char *host, const char *boot_id,
			 const char *release);

/*
 * Render everything added and free @out. Returns 0, -1 with @err (may be
 * NULL) filled on a write error, -2 for a CSV table that is not there.
 */
int kmt_output_finish(struct kmt_output *out, struct kmt_error *err);

/* Free @out without rendering (error paths). */
void kmt_output_discard(struct kmt_output *out);

#endif /* KMTRACE_OUTPUT_H */
