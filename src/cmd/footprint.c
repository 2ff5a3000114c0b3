// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace footprint --vmlinux FILE [--modules DIR]: the static size of a
 * kernel (or of any ELF file with DWARF) by source directory, file and
 * symbol, each module a row of its own: the static half of
 * trace_analyze.py, read from the image instead of the build tree.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kmtrace/error.h>
#include <kmtrace/output.h>
#include "cmd.h"
#include "analyses/rollup.h"
#include "common/hashmap.h"
#include "common/util.h"
#include "input/footprint.h"

#define NO_SYMBOL	"(no symbol)"
#define NO_SOURCE	"(no source)"

enum { OPT_VMLINUX = 0x100, OPT_MODULES, OPT_HTML, OPT_TABLE, OPT_TOP };

struct fp_args {
	enum kmt_format format;
	int human;
	const char *vmlinux, *modules, *html, *csv_dir, *table;
	FILE *html_fp;
	struct kmt_rollup ro;
	long long top;
};

/* A row of bytes by class: a directory, a file or a module. */
struct fp_row {
	char *name;
	uint64_t bytes[KMT_FP_NCLASSES];
	uint64_t symbols;
};

/* Rows by name. */
struct fp_rows {
	struct fp_row *rows;
	uint32_t n, cap;
	struct kmt_hashmap index;	/* hash of the name -> row (probed on) */
};

/* The modules found under --modules. */
struct fp_modules {
	char **paths;
	uint32_t n, cap;
	uint32_t compressed;		/* .ko.xz, .ko.zst, .ko.gz: not read */
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace footprint --vmlinux FILE [--modules DIR] [--by-dir DEPTH]\n"
		"                         [--branch DIR] [--top N] [--format FMT] [-H]\n"
		"                         [-o DIR | --table footprint.TABLE] [--html FILE]\n\n"
		"  The static size of a kernel image: text, rodata, data and bss by source\n"
		"  directory, file and symbol, each symbol in the file that declares it\n"
		"  (DWARF); works on any ELF file with DWARF.\n\n"
		"      --vmlinux FILE  the image (vmlinux with debug information)\n"
		"      --modules DIR   also each module (.ko) under DIR, a row of its own\n"
		"      --by-dir DEPTH  directories DEPTH levels deep (default 1: mm/, fs/)\n"
		"      --branch DIR    only what is declared under DIR (e.g. fs/ext4)\n"
		"      --top N         rows of the file and symbol tables (default 20, 0: all)\n"
		"      --format FMT    text (default), csv or json\n"
		"      --html FILE     one HTML page instead (FILE must not exist)\n"
		"  -o, --output DIR    CSV: a file per table there (new files)\n"
		"      --table NAME    only footprint.dirs, .files, .symbols or .summary\n"
		"  -H, --human         sizes as KiB/MiB in text\n");
}

static const struct option longopts[] = {
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "modules", required_argument, NULL, OPT_MODULES },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "format", required_argument, NULL, 'F' },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "output", required_argument, NULL, 'o' },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "human", no_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ "by-dir", required_argument, NULL, KMT_OPT_BY_DIR },
	{ "branch", required_argument, NULL, KMT_OPT_BRANCH },
	{ NULL, 0, NULL, 0 },
};

static int option(struct fp_args *a, int c)
{
	struct kmt_error err;

	switch (c) {
	case OPT_VMLINUX:
		a->vmlinux = optarg;
		return 0;
	case OPT_MODULES:
		a->modules = optarg;
		return 0;
	case OPT_TOP:
		if (!kmt_parse_count(optarg, "--top", &a->top, &err))
			return 0;
		fprintf(stderr, "kmtrace footprint: %s\n", err.msg);
		return -1;
	case 'F':
		a->format = kmt_format_parse(optarg);
		if (a->format == KMT_FORMAT_TEXT || a->format == KMT_FORMAT_CSV ||
		    a->format == KMT_FORMAT_JSON)
			return 0;
		fprintf(stderr, "kmtrace footprint: --format %s: text, csv or json\n", optarg);
		return -1;
	case OPT_HTML:
		a->html = optarg;
		a->format = KMT_FORMAT_HTML;
		return 0;
	case 'o':
		a->csv_dir = optarg;
		return 0;
	case OPT_TABLE:
		a->table = optarg;
		return 0;
	case 'H':
		a->human = 1;
		return 0;
	}
	if (c == KMT_OPT_BY_DIR || c == KMT_OPT_BRANCH) {
		if (!kmt_rollup_option(&a->ro, c, optarg, &err))
			return 0;
		fprintf(stderr, "kmtrace footprint: %s\n", err.msg);
	}
	return -1;
}

/* 0, or -1 with *@status the exit status (0 after -h). */
static int parse_args(struct fp_args *a, int argc, char **argv, int *status)
{
	int c;

	*status = KMT_EXIT_INPUT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "Hho:", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			*status = 0;
			return -1;
		}
		if (c == '?' || option(a, c))
			return -1;
	}
	if (optind < argc || !a->vmlinux) {
		if (optind < argc)
			fprintf(stderr, "kmtrace footprint: unexpected '%s'\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	if (a->csv_dir && a->format != KMT_FORMAT_CSV) {
		fprintf(stderr, "kmtrace footprint: -o DIR is for --format csv\n");
		return -1;
	}
	return 0;
}

/* The row named @name, added if new; NULL when out of memory. */
static struct fp_row *row_of(struct fp_rows *t, const char *name)
{
	uint64_t key;
	uint32_t row = kmt_hashmap_name_row(&t->index, name, t->rows, sizeof(*t->rows),
					    offsetof(struct fp_row, name), &key);

	if (row != KMT_HASHMAP_NO_ROW)
		return &t->rows[row];
	if (kmt_grow(&t->rows, &t->cap, t->n, sizeof(*t->rows)))
		return NULL;
	t->rows[t->n] = (struct fp_row){ .name = strdup(name) };
	if (!t->rows[t->n].name || kmt_hashmap_put(&t->index, key, t->n)) {
		free(t->rows[t->n].name);
		return NULL;
	}
	return &t->rows[t->n++];
}

static void rows_free(struct fp_rows *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->rows[i].name);
	free(t->rows);
	kmt_hashmap_free(&t->index);
}

static uint64_t row_total(const struct fp_row *r)
{
	return r->bytes[KMT_FP_TEXT] + r->bytes[KMT_FP_RODATA] + r->bytes[KMT_FP_DATA] +
	       r->bytes[KMT_FP_BSS];
}

/* Rows by total bytes, the largest first, then by name. */
static int by_total(const void *x, const void *y)
{
	const struct fp_row *a = x, *b = y;
	uint64_t ta = row_total(a), tb = row_total(b);

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The image's symbols summed by directory and by file. 0, or -1 when out of memory. */
static int sum_symbols(const struct fp_args *a, const struct kmt_footprint *fp,
		       struct fp_rows *dirs, struct fp_rows *files)
{
	size_t i;

	for (i = 0; i < fp->nsyms; i++) {
		const struct kmt_fp_symbol *s = &fp->syms[i];
		struct fp_row *dir, *file;
		char group[256];

		if (!kmt_rollup_file_group(&a->ro, s->file, group, sizeof(group)))
			continue;
		if (!(dir = row_of(dirs, group)) || !(file = row_of(files, s->file ? s->file :
								    NO_SOURCE)))
			return -1;
		dir->bytes[s->cls] += s->bytes;
		dir->symbols++;
		file->bytes[s->cls] += s->bytes;
		file->symbols++;
	}
	return 0;
}

/* The sections' bytes in no symbol, as a row of their own. 0, or -1. */
static int sum_leftover(const struct kmt_footprint *fp, struct fp_rows *dirs)
{
	struct fp_row *row = row_of(dirs, NO_SYMBOL);

	if (!row)
		return -1;
	memcpy(row->bytes, fp->unclaimed, sizeof(row->bytes));
	return 0;
}

static struct fp_modules *found_modules;	/* nftw() takes no context */

static int note_module(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *dot = strstr(path + ftw->base, ".ko");
	struct fp_modules *m = found_modules;

	(void)st;
	if (type != FTW_F || !dot)
		return 0;
	if (strcmp(dot, ".ko")) {
		m->compressed += !strcmp(dot, ".ko.xz") || !strcmp(dot, ".ko.zst") ||
				 !strcmp(dot, ".ko.gz");
		return 0;
	}
	if (kmt_grow(&m->paths, &m->cap, m->n, sizeof(*m->paths)) ||
	    !(m->paths[m->n] = strdup(path)))
		return -1;
	m->n++;
	return 0;
}

static int by_path(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The .ko files under @dir, sorted. 0, or -1 after saying why. */
static int find_modules(const char *dir, struct fp_modules *m)
{
	found_modules = m;
	if (nftw(dir, note_module, 32, FTW_PHYS)) {
		fprintf(stderr, "kmtrace footprint: --modules %s: %s\n", dir,
			strerror(errno ? errno : ENOMEM));
		return -1;
	}
	qsort(m->paths, m->n, sizeof(*m->paths), by_path);
	return 0;
}

/* Each module as a row "[name]" of @dirs. 0, or KMT_EXIT_INPUT after saying why. */
static int sum_modules(const struct fp_modules *m, struct fp_rows *dirs)
{
	uint32_t i;

	for (i = 0; i < m->n; i++) {
		struct kmt_footprint fp;
		struct kmt_error err;
		struct fp_row *row;
		const char *base = strrchr(m->paths[i], '/');
		char name[256];
		int c;

		if (kmt_footprint_read(m->paths[i], &fp, &err)) {
			kmt_error_print(&err);
			return KMT_EXIT_INPUT;
		}
		base = base ? base + 1 : m->paths[i];
		snprintf(name, sizeof(name), "[%.*s]", (int)strcspn(base, "."), base);
		row = row_of(dirs, name);
		for (c = 0; row && c < KMT_FP_NCLASSES; c++)
			row->bytes[c] += fp.sections[c];
		kmt_footprint_free(&fp);
		if (!row) {
			fprintf(stderr, "kmtrace footprint: out of memory\n");
			return KMT_EXIT_FAIL;
		}
	}
	return 0;
}

static const struct kmt_column row_cols[] = {
	{ "name", "NAME", KMT_KIND_STRING },
	{ "text", "TEXT", KMT_KIND_BYTES },
	{ "rodata", "RODATA", KMT_KIND_BYTES },
	{ "data", "DATA", KMT_KIND_BYTES },
	{ "bss", "BSS", KMT_KIND_BYTES },
	{ "total", "TOTAL", KMT_KIND_BYTES },
	{ "symbols", "SYMBOLS", KMT_KIND_COUNT },
};

/* Rows @t sorted, the first @top (0: all), as table @name keyed @key. 0, or -1. */
static int emit_rows(struct kmt_output *out, struct fp_rows *t, const char *name,
		     const char *key, const char *header, const char *title, long long top)
{
	struct kmt_column cols[7];
	struct kmt_table *table;
	uint32_t i;

	memcpy(cols, row_cols, sizeof(cols));
	cols[0].key = key;
	cols[0].header = header;
	table = kmt_output_table(out, name, title, 7, cols);
	if (!table)
		return -1;
	qsort(t->rows, t->n, sizeof(*t->rows), by_total);
	for (i = 0; i < t->n && (!top || i < top); i++) {
		const struct fp_row *r = &t->rows[i];
		union kmt_cell cells[7] = {
			{ .s = r->name }, { .u = r->bytes[KMT_FP_TEXT] },
			{ .u = r->bytes[KMT_FP_RODATA] }, { .u = r->bytes[KMT_FP_DATA] },
			{ .u = r->bytes[KMT_FP_BSS] }, { .u = row_total(r) }, { .u = r->symbols } };

		if (kmt_table_row(table, cells))
			return -1;
	}
	return 0;
}

/* Symbols by bytes, the largest first. */
static int by_bytes(const void *x, const void *y)
{
	const struct kmt_fp_symbol *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The largest @top symbols (0: all) kept by --branch. 0, or -1. */
static int emit_symbols(struct kmt_output *out, const struct fp_args *a,
			struct kmt_footprint *fp)
{
	static const struct kmt_column cols[] = {
		{ "symbol", "SYMBOL", KMT_KIND_STRING },
		{ "class", "CLASS", KMT_KIND_STRING },
		{ "bytes", "BYTES", KMT_KIND_BYTES },
		{ "file", "FILE", KMT_KIND_STRING },
	};
	struct kmt_table *table = kmt_output_table(out, "symbols", "Largest symbols", 4, cols);
	long long shown = 0;
	size_t i;

	if (!table)
		return -1;
	qsort(fp->syms, fp->nsyms, sizeof(*fp->syms), by_bytes);
	for (i = 0; i < fp->nsyms && (!a->top || shown < a->top); i++) {
		const struct kmt_fp_symbol *s = &fp->syms[i];
		char group[256];
		union kmt_cell cells[4] = { { .s = s->name }, { .s = kmt_fp_class_name(s->cls) },
					    { .u = s->bytes }, { .s = s->file ? s->file :
								  NO_SOURCE } };

		if (!kmt_rollup_file_group(&a->ro, s->file, group, sizeof(group)))
			continue;
		if (kmt_table_row(table, cells))
			return -1;
		shown++;
	}
	return 0;
}

/* The summary: totals by class, as size(1) counts them, and what is attributed. */
static int emit_summary(struct kmt_output *out, const struct fp_args *a,
			const struct kmt_footprint *fp, const struct fp_modules *m)
{
	uint64_t in_symbols = 0, with_file = 0, total = 0;
	size_t i;
	int c, ret = 0;

	for (i = 0; i < fp->nsyms; i++) {
		in_symbols += fp->syms[i].bytes;
		with_file += fp->syms[i].file ? fp->syms[i].bytes : 0;
	}
	ret |= kmt_output_string(out, "image", "image", a->vmlinux);
	ret |= kmt_output_string(out, "dwarf", "declaring files from DWARF",
				 fp->dwarf ? "yes" : "no (every symbol under " NO_SOURCE ")");
	for (c = 0; c < KMT_FP_NCLASSES; c++) {
		total += fp->sections[c];
		ret |= kmt_output_value(out, kmt_fp_class_name(c), kmt_fp_class_name(c),
					KMT_KIND_BYTES, (union kmt_cell){ .u = fp->sections[c] });
	}
	ret |= kmt_output_value(out, "total", "total", KMT_KIND_BYTES, (union kmt_cell){ .u = total });
	ret |= kmt_output_value(out, "size_text", "text as size(1) counts it (text+rodata)",
				KMT_KIND_BYTES, (union kmt_cell){ .u = fp->size_text });
	ret |= kmt_output_value(out, "size_data", "data as size(1) counts it",
				KMT_KIND_BYTES, (union kmt_cell){ .u = fp->size_data });
	ret |= kmt_output_value(out, "size_bss", "bss as size(1) counts it",
				KMT_KIND_BYTES, (union kmt_cell){ .u = fp->size_bss });
	ret |= kmt_output_count(out, "symbols", "sized symbols", fp->nsyms);
	ret |= kmt_output_value(out, "in_symbols", "bytes in symbols", KMT_KIND_BYTES,
				(union kmt_cell){ .u = in_symbols });
	ret |= kmt_output_value(out, "with_file", "bytes in symbols with a declaring file",
				KMT_KIND_BYTES, (union kmt_cell){ .u = with_file });
	ret |= kmt_output_count(out, "modules", "modules", m->n);
	ret |= kmt_output_count(out, "modules_compressed", "compressed modules not read",
				m->compressed);
	return ret ? -1 : 0;
}

static int emit(struct kmt_output *out, const struct fp_args *a, struct kmt_footprint *fp,
		const struct fp_modules *m, struct fp_rows *dirs, struct fp_rows *files)
{
	char title[320];

	snprintf(title, sizeof(title), "Static footprint by source directory%s%s (and module)",
		 a->ro.branch[0] ? " under " : "", a->ro.branch);
	if (kmt_output_begin(out, "footprint") || emit_summary(out, a, fp, m) ||
	    emit_rows(out, dirs, "dirs", "dir", "DIR", title, 0) ||
	    emit_rows(out, files, "files", "file", "FILE", "Largest source files", a->top) ||
	    emit_symbols(out, a, fp))
		return -1;
	return 0;
}

/* Render @fp and the modules' rows in the chosen format. Returns the exit status. */
static int write_report(struct fp_args *a, struct kmt_footprint *fp,
			const struct fp_modules *m, struct fp_rows *dirs, struct fp_rows *files)
{
	struct kmt_output *out;
	struct kmt_error err;
	int rc;

	if (a->html && !(a->html_fp = kmt_cmd_new_file("footprint", "--html", a->html)))
		return KMT_EXIT_INPUT;
	out = kmt_output_new(a->format, a->html_fp ? a->html_fp : stdout, a->human);
	if (!out)
		return KMT_EXIT_FAIL;
	if (a->csv_dir)
		kmt_output_csv_dir(out, a->csv_dir);
	if (a->table)
		kmt_output_only_table(out, a->table);
	kmt_output_describe(out, a->vmlinux, NULL);
	if (emit(out, a, fp, m, dirs, files)) {
		kmt_output_discard(out);
		fprintf(stderr, "kmtrace footprint: out of memory\n");
		return KMT_EXIT_FAIL;
	}
	rc = kmt_output_finish(out, &err);
	if (rc == -2) {
		fprintf(stderr, "kmtrace footprint: --table %s: no such table\n", a->table);
		return KMT_EXIT_INPUT;
	}
	if (rc) {
		kmt_error_print(&err);
		return KMT_EXIT_FAIL;
	}
	return 0;
}

static int footprint(struct fp_args *a)
{
	struct fp_rows dirs = { 0 }, files = { 0 };
	struct fp_modules m = { 0 };
	struct kmt_footprint fp;
	struct kmt_error err;
	uint32_t i;
	int ret = KMT_EXIT_FAIL;

	if (!a->ro.depth)
		a->ro.depth = 1;
	if (kmt_footprint_read(a->vmlinux, &fp, &err)) {
		kmt_error_print(&err);
		return KMT_EXIT_INPUT;
	}
	if (kmt_hashmap_init(&dirs.index) || kmt_hashmap_init(&files.index))
		goto out;
	if (a->modules && find_modules(a->modules, &m)) {
		ret = KMT_EXIT_INPUT;
		goto out;
	}
	if (sum_symbols(a, &fp, &dirs, &files) ||
	    (!a->ro.branch[0] && sum_leftover(&fp, &dirs))) {
		fprintf(stderr, "kmtrace footprint: out of memory\n");
		goto out;
	}
	if (!a->ro.branch[0] && (ret = sum_modules(&m, &dirs)))
		goto out;
	ret = write_report(a, &fp, &m, &dirs, &files);
out:
	kmt_footprint_free(&fp);
	rows_free(&dirs);
	rows_free(&files);
	for (i = 0; i < m.n; i++)
		free(m.paths[i]);
	free(m.paths);
	return ret;
}

int kmt_cmd_footprint(int argc, char **argv)
{
	struct fp_args a = { .format = KMT_FORMAT_TEXT, .top = 20 };
	int ret;

	if (!parse_args(&a, argc, argv, &ret))
		ret = footprint(&a);
	if (a.html_fp && fclose(a.html_fp) && ret != KMT_EXIT_INPUT) {
		fprintf(stderr, "kmtrace footprint: cannot write %s: %s\n", a.html,
			strerror(errno));
		ret = KMT_EXIT_FAIL;
	}
	if (a.html_fp && ret)
		unlink(a.html);
	else if (a.html_fp)
		fprintf(stderr, "kmtrace footprint: wrote %s\n", a.html);
	return ret;
}
