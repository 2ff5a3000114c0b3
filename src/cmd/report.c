// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace report: parse the common options and each analysis with its own
 * options, open the input, replay it through the analyses, render.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include <kmtrace/reader.h>
#include <kmtrace/sqlite.h>
#include "cmd.h"
#include "analyses/filter.h"
#include "common/proctable.h"
#include "common/util.h"

#define MAX_ANALYSES	32
#define MAX_OPTIONS	64

/* What the command line asks for. */
struct report_args {
	struct kmt_session s;
	int format;
	int human;
	const char *formats_dir;
	const char *kallsyms;
	const char *vmlinux;
	const char *csv_dir, *only_table;	/* -o, --table */
	const char *html;			/* --html FILE */
	const char *svg_dir;			/* --svg DIR */
	FILE *html_fp;
	struct kmt_sqlite *db;			/* --format sqlite: -o FILE */
	const char *host, *boot_id;		/* --host, --boot-id */
	struct kmt_identity id;			/* what the recording is of */
	bool if_present;			/* leave out analyses whose events are not there */
	const struct kmt_analysis *an[MAX_ANALYSES];
	void *priv[MAX_ANALYSES];
	int n;
};

/* Keys of the common options without a short form (analyses use 0x100..0x3ff). */
enum { OPT_KALLSYMS = 0x400, OPT_VMLINUX, OPT_THREADS, OPT_TABLE, OPT_HTML, OPT_SVG, OPT_HOST,
       OPT_BOOT_ID };

static const struct option common_longopts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "format", required_argument, NULL, 'F' },
	{ "human", no_argument, NULL, 'H' },
	{ "formats", required_argument, NULL, 'M' },
	{ "print", no_argument, NULL, 'P' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "output", required_argument, NULL, 'o' },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "boot-id", required_argument, NULL, OPT_BOOT_ID },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};
#define COMMON_SHORTOPTS	"i:o:Hh"

static void usage(FILE *fp)
{
	int i;

	fprintf(fp,
		"usage: kmtrace report [-i FILE] [--format text|csv|json|folded|chrome] [-H]\n"
		"                      [-o DIR | --table ANALYSIS.TABLE] [--html FILE]\n"
		"                      [ANALYSIS [ANALYSIS-OPTIONS]]...\n"
		"       kmtrace report [-i FILE] --format sqlite -o FILE.db [ANALYSIS...]\n"
		"       kmtrace report [-i FILE] --format jsonl [--host NAME] [--boot-id ID]\n"
		"                      events | [--table ANALYSIS.TABLE] ANALYSIS...\n"
		"       kmtrace report [-i FILE] --print [--time START,END] [--pid-filter PID,..]\n"
		"                      [--comm NAME] [-O|--plugin-option kmt:raw[=0|1]]\n"
		"       kmtrace report [-i FILE] --format jsonl events [--time START,END]\n"
		"                      [--pid-filter PID,..] [--comm NAME]\n\n"
		"  -i, --input FILE  recording to read (default kmtrace.dat; - standard input):\n"
		"                    trace.dat of kmtrace or trace-cmd, perf.data, ftrace text\n"
		"      --format FMT  text (default), csv, json, folded (the stack tables as\n"
		"                    'frame;frame;frame VALUE' lines for flame graphs), or\n"
		"                    chrome (timelines and OOM kills as Chrome trace events),\n"
		"                    or jsonl (with events: a JSON object per event and line;\n"
		"                    with analyses: one per table row),\n"
		"                    or sqlite (-o FILE.db: the events, stacks, symbols,\n"
		"                    processes and every table; all analyses by default)\n"
		"      --formats DIR|VERSION  event formats for ftrace text (SYSTEM/EVENT/format\n"
		"                    files, as in tracefs's events/, and its uname), or those\n"
		"                    kmtrace ships for Linux VERSION (5.10, 6.1, 6.12, 6.18:\n"
		"                    the default)\n"
		"      --kallsyms FILE  kernel symbols from FILE (a saved /proc/kallsyms or a\n"
		"                    System.map) instead of the recording's or this machine's\n"
		"      --vmlinux FILE   kernel symbols from an image with a symbol table; with\n"
		"                    DWARF also file:line and inlined functions (modules still\n"
		"                    from the kallsyms); refused if its build-id is another's\n"
		"  -o, --output DIR  CSV: a file per table there, ANALYSIS-TABLE.csv (new files);\n"
		"                    sqlite: the database, a new file\n"
		"      --table NAME  only table ANALYSIS.TABLE (e.g. slab.callers,\n"
		"                    stat.summary): in text without the section header, in\n"
		"                    CSV without the name column\n"
		"      --html FILE   one self-contained HTML page instead (charts, sortable\n"
		"                    tables); FILE must not exist\n"
		"      --svg DIR     the charts also as SVG files there, ANALYSIS-TABLE.svg\n"
		"      --host NAME   jsonl and sqlite: the host every row names (default: the\n"
		"                    recording's); with events, flat lines for ClickHouse\n"
		"      --boot-id ID  the same for the boot id (default: the recording's)\n"
		"  -H, --human       sizes as KiB/MiB in text\n"
		"      --threads N   1: all in one thread; 2: records read and decoded in a\n"
		"                    second one; auto (default on 2 or more CPUs, unless all\n"
		"                    the analyses are light ones such as stat): both timed\n"
		"                    on the first records, the rest the faster way\n"
		"      --print       every event on one line instead of analyses, decoded by\n"
		"                    kmtrace's plugins (as trace-cmd report prints them)\n\n"
		"analyses (default stat):\n");
	kmt_cmd_list_analyses(fp, "  ");
	for (i = 0; kmt_analyses[i]; i++) {
		const struct kmt_analysis *an = kmt_analyses[i];

		if (an->usage || an->filter)
			fprintf(fp, "\n%s options:\n%s%s", an->name, an->usage ? an->usage : "",
				an->filter ? KMT_FILTER_USAGE : "");
	}
}

/* Take a common option; returns -1 to stop with *@status. */
static int common_option(struct report_args *a, int c, int *status)
{
	switch (c) {
	case 'i':
		a->s.input = optarg;
		return 0;
	case 'F':
		a->format = kmt_format_parse(optarg);
		if (a->format >= 0)
			return 0;
		fprintf(stderr, "kmtrace report: unknown format '%s'\n", optarg);
		*status = KMT_EXIT_INPUT;
		return -1;
	case 'H':
		a->human = 1;
		return 0;
	case 'o':
		a->csv_dir = optarg;
		return 0;
	case OPT_TABLE:
		a->only_table = optarg;
		return 0;
	case OPT_HTML:
		a->html = optarg;
		a->format = KMT_FORMAT_HTML;
		return 0;
	case OPT_SVG:
		a->svg_dir = optarg;
		return 0;
	case OPT_HOST:
		a->host = optarg;
		return 0;
	case OPT_BOOT_ID:
		a->boot_id = optarg;
		return 0;
	case 'M':
		a->formats_dir = optarg;
		return 0;
	case OPT_KALLSYMS:
		a->kallsyms = optarg;
		return 0;
	case OPT_VMLINUX:
		a->vmlinux = optarg;
		return 0;
	case OPT_THREADS:
		if (!strcmp(optarg, "1") || !strcmp(optarg, "2")) {
			a->s.threads = *optarg - '0';
			return 0;
		}
		if (!strcmp(optarg, "auto")) {
			a->s.threads = KMT_THREADS_AUTO;
			return 0;
		}
		fprintf(stderr, "kmtrace report: --threads takes auto, 1 or 2, not '%s'\n", optarg);
		*status = KMT_EXIT_INPUT;
		return -1;
	case 'h':
		usage(stdout);
		*status = 0;
		return -1;
	default:
		*status = KMT_EXIT_INPUT;
		return -1;
	}
}

static bool is_common(int c)
{
	return c == 'i' || c == 'F' || c == 'H' || c == 'h' || c == 'M' || c == OPT_KALLSYMS ||
	       c == OPT_VMLINUX || c == OPT_THREADS || c == OPT_HOST || c == OPT_BOOT_ID;
}

/* The option getopt just refused, for the message. */
static const char *bad_option(char **argv, char *buf, size_t len)
{
	if (optopt && optopt != '?')
		snprintf(buf, len, "-%c", optopt);
	else
		snprintf(buf, len, "%s", argv[optind - 1]);
	return buf;
}

/* Append the options of @from to the @n in @longopts; -1 when they do not fit. */
static int add_options(struct option *longopts, int *n, const struct option *from)
{
	for (; from && from->name; from++) {
		if (*n == MAX_OPTIONS - 1)
			return -1;
		longopts[(*n)++] = *from;
	}
	return 0;
}

/* Join @an's options, its filter's and the common ones, for getopt_long(). */
static int merge_options(const struct kmt_analysis *an, struct option *longopts,
			 char *shortopts, size_t len)
{
	int n = 0;

	if (add_options(longopts, &n, an->longopts) ||
	    (an->filter && add_options(longopts, &n, kmt_filter_longopts)) ||
	    add_options(longopts, &n, common_longopts))
		return -1;
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	snprintf(shortopts, len, "+:%s%s", an->shortopts ? an->shortopts : "", COMMON_SHORTOPTS);
	return 0;
}

/*
 * Parse the options of analysis argv[0] into its state @priv; common
 * options may be mixed in. Returns the number of arguments used, or -1
 * to stop with *@status.
 */
static int parse_analysis(struct report_args *a, const struct kmt_analysis *an, void *priv,
			  int argc, char **argv, int *status)
{
	struct option longopts[MAX_OPTIONS];
	char shortopts[128], buf[64];
	struct kmt_error err;
	int c;

	if (merge_options(an, longopts, shortopts, sizeof(shortopts)))
		return -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			fprintf(stderr, "kmtrace report %s: %s option '%s' (see kmtrace report -h)\n",
				an->name, c == '?' ? "unknown" : "missing argument for",
				bad_option(argv, buf, sizeof(buf)));
			*status = KMT_EXIT_INPUT;
			return -1;
		}
		if (c == 'P') {
			fprintf(stderr, "kmtrace report: --print cannot be combined with analyses\n");
			*status = KMT_EXIT_INPUT;
			return -1;
		}
		if (is_common(c)) {
			if (common_option(a, c, status))
				return -1;
			continue;
		}
		if (kmt_analysis_option(an, priv, c, optarg, &err)) {
			fprintf(stderr, "kmtrace report %s: %s\n", an->name, err.msg);
			*status = KMT_EXIT_INPUT;
			return -1;
		}
	}
	return optind;
}

/* Add analysis @an (argv[0] names it) and its options. Returns arguments used or -1. */
static int add_analysis(struct report_args *a, const struct kmt_analysis *an, int argc,
			char **argv, int *status)
{
	void *priv;
	int i;

	*status = KMT_EXIT_INPUT;
	if (!an) {
		fprintf(stderr, "kmtrace report: unknown analysis '%s' (see kmtrace list)\n",
			argv[0]);
		return -1;
	}
	for (i = 0; i < a->n; i++) {
		if (a->an[i] == an) {
			fprintf(stderr, "kmtrace report: analysis '%s' given twice\n", an->name);
			return -1;
		}
	}
	if (a->n == MAX_ANALYSES) {
		fprintf(stderr, "kmtrace report: more than %d analyses\n", MAX_ANALYSES);
		return -1;
	}
	priv = an->init();
	if (!priv) {
		fprintf(stderr, "kmtrace report: %s: out of memory\n", an->name);
		*status = KMT_EXIT_FAIL;
		return -1;
	}
	a->an[a->n] = an;
	a->priv[a->n++] = priv;
	return parse_analysis(a, an, priv, argc, argv, status);
}

/* --print at argv[0] and its options, which must be all that is left. */
static int add_print(struct report_args *a, int argc, char **argv, int *status)
{
	int used;

	if (a->n) {
		fprintf(stderr, "kmtrace report: --print cannot be combined with analyses\n");
		*status = KMT_EXIT_INPUT;
		return -1;
	}
	used = add_analysis(a, &kmt_print, argc, argv, status);
	if (used < 0)
		return -1;
	if (used < argc) {
		fprintf(stderr, "kmtrace report: --print cannot be combined with analyses ('%s')\n",
			argv[used]);
		*status = KMT_EXIT_INPUT;
		return -1;
	}
	if (a->format != KMT_FORMAT_TEXT) {
		fprintf(stderr, "kmtrace report: --print writes text only\n");
		*status = KMT_EXIT_INPUT;
		return -1;
	}
	return used;
}

/* events at argv[0] and its filter options, alone, with --format jsonl. */
static int add_events(struct report_args *a, int argc, char **argv, int *status)
{
	int used = add_analysis(a, &kmt_events, argc, argv, status);

	if (used < 0)
		return -1;
	if (used < argc || a->format != KMT_FORMAT_JSONL) {
		fprintf(stderr, "kmtrace report: events goes alone, with --format jsonl\n");
		*status = KMT_EXIT_INPUT;
		return -1;
	}
	return used;
}

/*
 * --format sqlite: the database writer first, then the analyses asked for,
 * or all of them (those whose events are not there left out).
 */
static int add_database(struct report_args *a, int *status)
{
	int i, n = a->n;
	void *priv;

	if (add_analysis(a, &kmt_database, 1, (char *[]){ "database", NULL }, status) < 0)
		return -1;
	priv = a->priv[n];
	memmove(&a->an[1], &a->an[0], n * sizeof(a->an[0]));
	memmove(&a->priv[1], &a->priv[0], n * sizeof(a->priv[0]));
	a->an[0] = &kmt_database;
	a->priv[0] = priv;
	if (n)
		return 0;
	a->if_present = true;
	for (i = 0; kmt_analyses[i]; i++)
		if (add_analysis(a, kmt_analyses[i], 1, (char *[]){ "all", NULL }, status) < 0)
			return -1;
	return 0;
}

static int parse_args(struct report_args *a, int argc, char **argv, int *status)
{
	int c, used;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" COMMON_SHORTOPTS, common_longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			char buf[64];

			fprintf(stderr, "kmtrace report: %s option '%s'\n",
				c == '?' ? "unknown" : "missing argument for",
				bad_option(argv, buf, sizeof(buf)));
			usage(stderr);
			*status = KMT_EXIT_INPUT;
			return -1;
		}
		if (c == 'P')
			return add_print(a, argc - optind + 1, argv + optind - 1, status) < 0 ? -1 : 0;
		if (common_option(a, c, status))
			return -1;
	}
	argc -= optind;
	argv += optind;
	if (argc > 0 && !strcmp(argv[0], "events"))
		return add_events(a, argc, argv, status) < 0 ? -1 : 0;
	while (argc > 0) {
		used = add_analysis(a, kmt_analysis_find(argv[0]), argc, argv, status);
		if (used < 0)
			return -1;
		argc -= used;
		argv += used;
	}
	if (a->format == KMT_FORMAT_SQLITE)
		return add_database(a, status);
	return a->n ? 0 : add_analysis(a, kmt_analysis_find("stat"), 1, (char *[]){ "stat", NULL },
				       status) < 0 ? -1 : 0;
}

/*
 * An analysis whose events are not in the recording: one line on standard
 * error (unless it was not asked for), and "missing_events" in its section
 * (before its summary).
 */
static int say_missing(const struct report_args *a, const struct kmt_analysis *an,
		       struct kmt_output *out)
{
	char missing[512], input[512];

	if (!kmt_missing_events(&a->s, an, missing, sizeof(missing)))
		return 0;
	kmt_escape(input, sizeof(input), a->s.input);
	if (!a->if_present)	/* not asked for: the database says it (summaries) */
		fprintf(stderr, "kmtrace: %s: %s: not in the recording: %s\n", input, an->name,
			missing);
	return kmt_output_string(out, "missing_events", "Events not in the recording", missing);
}

/* Whether none of the needs of @an is in the recording (an analysis without needs has some). */
static bool nothing_recorded(const struct report_args *a, const struct kmt_analysis *an)
{
	const struct kmt_need *need;
	int n = 0;

	for (need = an->needs; need && need->any; need++)
		n++;
	return n && kmt_missing_events(&a->s, an, NULL, 0) == n;
}

/* The section of analysis @i, its remark on standard error; 0 or -1 (said). */
static int report_one(struct report_args *a, int i, struct kmt_output *out)
{
	const struct kmt_analysis *an = a->an[i];
	const char *remark = an->remark ? an->remark(a->priv[i]) : NULL;

	if (a->if_present && nothing_recorded(a, an))
		return 0;
	/* --print, events and database have written theirs already: no section of their own */
	if (an != &kmt_print && an != &kmt_events && an != &kmt_database &&
	    (kmt_output_begin(out, an->name) || say_missing(a, an, out)))
		goto fail;
	if (remark)
		fprintf(stderr, "kmtrace report %s: %s\n", an->name, remark);
	errno = 0;
	if (!an->report(a->priv[i], &a->s, out))
		return 0;
fail:
	if (an == &kmt_database && kmt_database_error(a->priv[i]))
		kmt_error_print(kmt_database_error(a->priv[i]));
	else if (errno == ENOMEM)
		fprintf(stderr, "kmtrace report %s: out of memory\n", an->name);
	else
		fprintf(stderr, "kmtrace: %s: cannot build the report\n", an->name);
	return -1;
}

static int run(struct report_args *a, struct kmt_output *out)
{
	struct kmt_error err;
	int i;

	for (i = 0; i < a->n; i++) {
		if (a->an[i]->start && a->an[i]->start(a->priv[i], &a->s)) {
			fprintf(stderr, "kmtrace: %s: out of memory\n", a->an[i]->name);
			return KMT_EXIT_FAIL;
		}
	}
	if (kmt_replay(&a->s, a->an, a->priv, a->n, &err)) {
		kmt_error_print(a->db && kmt_database_error(a->priv[0]) ?
				kmt_database_error(a->priv[0]) : &err);
		return KMT_EXIT_INPUT;
	}
	for (i = 0; i < a->n; i++) {
		if (report_one(a, i, out))
			return a->db && kmt_database_error(a->priv[0]) ? KMT_EXIT_INPUT :
			       KMT_EXIT_FAIL;
		/* its tables hold copies: the next reports build theirs in its memory */
		a->an[i]->free(a->priv[i]);
		a->priv[i] = NULL;
	}
	return 0;
}

/*
 * --threads when not given: auto, which times both ways on the first
 * records, where a second CPU is online; but one thread where every
 * analysis always takes its events in the reading thread (reader_thread_ok:
 * light ones, whose events cost less than handing them over).
 */
static int default_threads(const struct report_args *a)
{
	int i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 1;
	for (i = 0; i < a->n; i++)
		if (!a->an[i]->reader_thread_ok)
			return KMT_THREADS_AUTO;
	return 1;
}

/* Text input: say on standard error how many lines did not parse, and the first ones. */
static void warn_unparsed(const struct report_args *a, const char *input)
{
	const char *text = kmt_reader_text(a->s.reader, KMT_TEXT_UNPARSED), *nl;
	const char *hint = kmt_reader_text(a->s.reader, KMT_TEXT_FORMATS_HINT);
	char line[1024];

	if (hint)
		fprintf(stderr, "kmtrace: %s: %s\n", input, hint);
	if (!text)
		return;
	nl = strchr(text, '\n');
	fprintf(stderr, "kmtrace: %s: %.*s lines not parsed (left out of the report)%s\n",
		input, nl ? (int)(nl - text) : (int)strlen(text), text, nl ? "; the first:" : "");
	while (nl) {
		const char *next = strchr(nl + 1, '\n');
		char *copy = strndup(nl + 1, next ? (size_t)(next - nl - 1) : strlen(nl + 1));

		kmt_escape(line, sizeof(line), copy ? copy : "");
		fprintf(stderr, "kmtrace:   %s\n", line);
		free(copy);
		nl = next;
	}
}

/* What replay and reader found wrong and mended: one line on standard error. */
static void warn_input_faults(const struct report_args *a, const char *input)
{
	const struct kmt_replay_stats *rs = &a->s.replay;
	unsigned int skipped, left_out;
	char line[512];
	int n = 0;

	kmt_reader_format_counts(a->s.reader, &skipped, &left_out);
	if (rs->out_of_order)
		n += snprintf(line + n, sizeof(line) - n, "; %llu events out of time order (given "
			      "the time before)", rs->out_of_order);
	if (rs->impossible)
		n += snprintf(line + n, sizeof(line) - n, "; %llu events with impossible values "
			      "(left out)", rs->impossible);
	if (skipped)
		n += snprintf(line + n, sizeof(line) - n, "; %u event formats not usable",
			      skipped);
	if (n)
		fprintf(stderr, "kmtrace: %s: damaged input, mended%s\n", input, line);
	if (kmt_reader_unnamed(a->s.reader))
		fprintf(stderr, "kmtrace: %s: %llu events of tasks no COMM or FORK record names "
			"(shown as <...>)\n", input, kmt_reader_unnamed(a->s.reader));
	/* Real kernels have such formats too (hex dumps, divisions by a field). */
	if (left_out)
		fprintf(stderr, "kmtrace: %s: %u print formats left out (unsafe): their events "
			"print their fields raw\n", input, left_out);
}

/*
 * --kallsyms and --vmlinux. An image of another kernel build is one
 * warning line (no names follow); a file that cannot be used stops.
 */
static int use_symbol_files(struct report_args *a)
{
	struct kmt_error err;
	int ret;

	if (a->kallsyms && kmt_reader_use_kallsyms(a->s.reader, a->kallsyms, &err)) {
		kmt_error_print(&err);
		return -1;
	}
	if (!a->vmlinux)
		return 0;
	ret = kmt_reader_use_vmlinux(a->s.reader, a->vmlinux, &err);
	if (ret > 0)
		fprintf(stderr, "kmtrace: warning: %s: %s\n", err.file, err.msg);
	else if (ret < 0)
		kmt_error_print(&err);
	return ret < 0 ? -1 : 0;
}

/*
 * Where kernel symbols came from and how many addresses they named: one
 * line on standard error when some stayed unresolved, and a "symbols"
 * section in JSON and CSV. Returns 0 or KMT_EXIT_FAIL.
 */
static int report_symbols(struct report_args *a, const char *input, struct kmt_output *out)
{
	const char *from = kmt_reader_text(a->s.reader, KMT_TEXT_SYMBOLS), *first;
	size_t resolved, unresolved, changed;

	kmt_reader_symbol_counts(a->s.reader, &resolved, &unresolved);
	if (!from)
		from = resolved ? "the recording" : "none";
	if (unresolved)
		fprintf(stderr, "kmtrace: %s: %zu of %zu kernel addresses not resolved to a "
			"function (symbols: %s)\n", input, unresolved, resolved + unresolved, from);
	changed = kmt_reader_user_files_changed(a->s.reader, &first);
	if (changed)
		fprintf(stderr, "kmtrace: %s: %zu user-space file%s changed since the recording "
			"(another build-id; %s first): their addresses are shown as file+offset\n",
			input, changed, changed > 1 ? "s" : "", first);
	if (a->format == KMT_FORMAT_TEXT || a->format == KMT_FORMAT_JSONL || a->an[0] == &kmt_print)
		return 0;
	if (kmt_output_begin_input(out, "symbols") ||
	    kmt_output_string(out, "source", "Kernel symbols from", from) ||
	    kmt_output_count(out, "addresses", "Addresses looked up", resolved + unresolved) ||
	    kmt_output_count(out, "resolved", "Resolved", resolved) ||
	    kmt_output_count(out, "unresolved", "Not resolved", unresolved))
		return KMT_EXIT_FAIL;
	return 0;
}

static int open_and_run(struct report_args *a)
{
	struct kmt_output *out;
	struct kmt_error err;
	int ret;

	a->s.reader = kmt_reader_open_formats(a->s.input, a->formats_dir, &err);
	if (!a->s.reader) {
		kmt_error_print(&err);
		return KMT_EXIT_INPUT;
	}
	if (use_symbol_files(a)) {
		kmt_reader_close(a->s.reader);
		return KMT_EXIT_INPUT;
	}
	a->s.tep = kmt_reader_tep(a->s.reader);
	out = kmt_output_new(a->format, a->html_fp ? a->html_fp : stdout, a->human);
	if (out && kmt_output_describe(out, a->s.input, kmt_reader_text(a->s.reader,
								       KMT_TEXT_UNAME))) {
		kmt_output_discard(out);
		out = NULL;
	}
	if (out) {
		kmt_output_csv_dir(out, a->csv_dir);
		kmt_output_only_table(out, a->only_table);
		kmt_output_svg_dir(out, a->svg_dir);
		kmt_cmd_identity(a->s.reader, a->host, a->boot_id, &a->id);
		kmt_output_identity(out, a->id.host, a->id.boot_id, a->id.release);
		if (a->db) {
			kmt_output_sqlite(out, a->db);
			kmt_database_use(a->priv[0], a->db, &a->id);
		}
		if (a->an[0] == &kmt_events && (a->host || a->boot_id))
			kmt_events_fleet(a->priv[0], &a->id);
		if (kmt_reader_processes(a->s.reader))
			kmt_output_processes(out, kmt_proctable_lookup,
					     kmt_reader_processes(a->s.reader));
	}
	if (!out) {
		kmt_reader_close(a->s.reader);
		return KMT_EXIT_FAIL;
	}
	ret = run(a, out);
	if (!ret) {
		char input[1024];

		kmt_escape(input, sizeof(input), a->s.input);
		warn_unparsed(a, input);
		warn_input_faults(a, input);
		ret = report_symbols(a, input, out);
	}
	if (!ret && a->format == KMT_FORMAT_FOLDED && !kmt_output_stack_tables(out)) {
		fprintf(stderr, "kmtrace report: --format folded writes call stacks: ask for a "
			"stack table (slab --stack, page --stack, leak)\n");
		ret = KMT_EXIT_INPUT;
	}
	if (ret) {
		kmt_output_discard(out);
	} else if ((ret = kmt_output_finish(out, &err))) {
		kmt_error_print(&err);
		ret = ret == -2 || a->db ? KMT_EXIT_INPUT : KMT_EXIT_FAIL;
	}
	kmt_reader_close(a->s.reader);
	return ret;
}

static bool is_directory(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* --format sqlite -o FILE: a new database, and no other output. */
static int open_database(struct report_args *a)
{
	struct kmt_error err;

	if (a->format != KMT_FORMAT_SQLITE)
		return 0;
	if (!a->csv_dir || a->only_table || a->svg_dir) {
		fprintf(stderr, "kmtrace report: --format sqlite needs -o FILE (a new database), "
			"and takes no --table or --svg\n");
		return -1;
	}
	a->db = kmt_sqlite_create(a->csv_dir, &err);
	if (!a->db) {
		kmt_error_print(&err);
		return -1;
	}
	return 0;
}

/* -o: CSV only; --table: text or CSV; not both; -o a directory that is there. */
static int check_csv_args(const struct report_args *a)
{
	if ((!a->csv_dir && !a->only_table) || a->format == KMT_FORMAT_SQLITE)
		return 0;
	if ((a->csv_dir && a->format != KMT_FORMAT_CSV) || (a->csv_dir && a->only_table) ||
	    (a->only_table && a->format != KMT_FORMAT_CSV && a->format != KMT_FORMAT_TEXT &&
	     a->format != KMT_FORMAT_JSONL)) {
		fprintf(stderr, "kmtrace report: -o DIR goes with --format csv, --table NAME with "
			"text, csv or jsonl; one of them\n");
		return -1;
	}
	if (a->csv_dir && !is_directory(a->csv_dir)) {
		fprintf(stderr, "kmtrace report: -o %s: not a directory\n", a->csv_dir);
		return -1;
	}
	return 0;
}

static int check_svg_dir(const struct report_args *a)
{
	if (!a->svg_dir || is_directory(a->svg_dir))
		return 0;
	fprintf(stderr, "kmtrace report: --svg %s: not a directory\n", a->svg_dir);
	return -1;
}

/* --html FILE: a new file of ours (0600); it never replaces one. */
static int open_html(struct report_args *a)
{
	if (!a->html)
		return 0;
	if (a->format != KMT_FORMAT_HTML) {
		fprintf(stderr, "kmtrace report: --html writes HTML: no --format with it\n");
		return -1;
	}
	a->html_fp = kmt_cmd_new_file("report", "--html", a->html);
	return a->html_fp ? 0 : -1;
}

int kmt_cmd_report(int argc, char **argv)
{
	struct report_args a = { .s.input = "kmtrace.dat", .format = KMT_FORMAT_TEXT };
	struct kmt_error err;
	int ret, i;

	if (parse_args(&a, argc, argv, &ret))
		goto out;
	if (check_csv_args(&a) || check_svg_dir(&a) || open_html(&a) || open_database(&a)) {
		ret = KMT_EXIT_INPUT;
		goto out;
	}
	if (!a.s.threads)
		a.s.threads = default_threads(&a);
	ret = open_and_run(&a);
out:
	for (i = 0; i < a.n; i++)
		if (a.priv[i])
			a.an[i]->free(a.priv[i]);
	if (a.html_fp && fclose(a.html_fp) && !ret) {
		fprintf(stderr, "kmtrace report: cannot write %s: %s\n", a.html, strerror(errno));
		ret = KMT_EXIT_FAIL;
	}
	if (a.db && !ret && kmt_sqlite_commit(a.db, &err)) {
		kmt_error_print(&err);
		ret = KMT_EXIT_INPUT;
	} else if (a.db && ret) {
		kmt_sqlite_abort(a.db);
	}
	if ((a.html || a.db) && !ret)
		fprintf(stderr, "kmtrace report: wrote %s\n", a.html ? a.html : a.csv_dir);
	else if (a.html_fp)
		unlink(a.html);		/* nothing half written stays */
	return ret;
}
