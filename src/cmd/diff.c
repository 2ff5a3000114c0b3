// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace diff BASE NEW [ANALYSIS [ANALYSIS-OPTIONS]]...: what changed
 * between two recordings (or JSON reports written earlier), joined on keys
 * that survive a rebuild and a reboot, with budgets a CI job can enforce.
 * A recording is read by this binary's own report (--format json) in a
 * child process, so a JSON baseline and the recording it came from give
 * the same diff.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kmtrace/error.h>
#include <kmtrace/output.h>
#include "cmd.h"
#include "common/util.h"
#include "diff/diff.h"

#define MAX_BUDGETS	64

struct diff_args {
	enum kmt_format format;
	int human;
	const char *html;
	FILE *html_fp;
	const char *figures;	/* --figures, or NULL: "auto" in text, all elsewhere */
	double per[2];		/* --per N[,M]: iterations of base and new */
	bool per_second;
	struct kmt_diff_options opts;
	struct kmt_diff_budget *budgets[MAX_BUDGETS];
	int nbudgets;
	const char *input[2];
	char **analyses;	/* what report runs on a recording */
	int nanalyses;
	char *forward[6];	/* report's --kallsyms, --vmlinux, --formats and their values */
	int nforward;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace diff [options] BASE NEW [ANALYSIS [ANALYSIS-OPTIONS]]...\n\n"
		"  BASE, NEW: recordings kmtrace reads (trace.dat, perf.data, ftrace text),\n"
		"  each side any kind, or JSON reports of kmtrace report --format json.\n"
		"  Analyses (default: slab --caller --cache page leak) and their options are\n"
		"  report's; stat is always added (durations, lost events).\n\n"
		"      --format FMT   text (default), csv, json or folded (stack tables as\n"
		"                     'frame;...;frame BASE NEW': a differential flame graph)\n"
		"      --html FILE    one HTML page instead (FILE must not exist)\n"
		"  -H, --human        sizes as KiB/MiB in text\n"
		"      --figures LIST figures to show, comma separated, or all (text shows the\n"
		"                     sort figure and two more that changed; others all)\n"
		"      --sort FIGURE  rows by the largest change of FIGURE (default live_bytes,\n"
		"                     else the first byte figure)\n"
		"      --exact-sites  call sites keep +0xOFF (the same kernel build only)\n"
		"      --kallsyms FILE, --vmlinux FILE, --formats DIR|VERSION\n"
		"                     given to report for both recordings (kmtrace-report(1))\n"
		"      --per-second   counts, bytes and times per second of each recording\n"
		"      --per N[,M]    per iteration: BASE ran N iterations, NEW M (default N)\n"
		"      --fail-on EXPR exit 1 when EXPR holds, one line per broken budget;\n"
		"                     repeatable. EXPR: ANALYSIS.FIGURE or\n"
		"                     ANALYSIS.TABLE[KEY].FIGURE, > >= < <=, then a value (0),\n"
		"                     a change (+100, +4MiB) or a relative change (+10%%):\n"
		"                     slab.live_bytes>+10%%  slab.callers[alloc_pipe_info].live_objects>+100;\n"
		"                     ',+FLOOR' after the value: smaller changes break nothing\n"
		"                     (slab.live_bytes>+10%%,+512KiB: live figures move with RCU)\n\n"
		"exit status: 0 no budget broken, 1 a budget broken, 2 bad input or expression\n");
}

enum {
	OPT_HTML = 256, OPT_FIGURES, OPT_SORT, OPT_EXACT, OPT_PER_SECOND, OPT_PER, OPT_FAIL_ON,
	OPT_KALLSYMS, OPT_VMLINUX, OPT_FORMATS,
};

/* An option report takes, given to it as it is for both sides. */
static int forward(struct diff_args *a, const char *option)
{
	if (a->nforward + 2 > (int)(sizeof(a->forward) / sizeof(a->forward[0]))) {
		fprintf(stderr, "kmtrace diff: %s given twice\n", option);
		return -1;
	}
	a->forward[a->nforward++] = (char *)option;
	a->forward[a->nforward++] = optarg;
	return 0;
}

static int parse_per(struct diff_args *a, const char *s)
{
	char *end;

	a->per[0] = strtod(s, &end);
	a->per[1] = *end == ',' ? strtod(end + 1, &end) : a->per[0];
	if (*end || !(a->per[0] > 0) || !(a->per[1] > 0)) {
		fprintf(stderr, "kmtrace diff: --per %s: iterations, N or N,M above 0\n", s);
		return -1;
	}
	return 0;
}

static int add_budget(struct diff_args *a, const char *expr)
{
	struct kmt_error err;

	if (a->nbudgets == MAX_BUDGETS) {
		fprintf(stderr, "kmtrace diff: more than %d budgets\n", MAX_BUDGETS);
		return -1;
	}
	if (kmt_diff_budget_parse(expr, &a->budgets[a->nbudgets], &err)) {
		fprintf(stderr, "kmtrace diff: %s\n", err.msg);
		return -1;
	}
	a->nbudgets++;
	return 0;
}

static int option(struct diff_args *a, int c)
{
	switch (c) {
	case 'f':
		a->format = kmt_format_parse(optarg);
		if ((int)a->format >= 0 && a->format <= KMT_FORMAT_FOLDED)
			return 0;
		fprintf(stderr, "kmtrace diff: --format %s: text, csv, json or folded\n", optarg);
		return -1;
	case 'H':
		a->human = 1;
		return 0;
	case OPT_HTML:
		a->html = optarg;
		a->format = KMT_FORMAT_HTML;
		return 0;
	case OPT_FIGURES:
		a->figures = strcmp(optarg, "all") ? optarg : NULL;
		return 0;
	case OPT_SORT:
		a->opts.sort = optarg;
		return 0;
	case OPT_EXACT:
		a->opts.exact_sites = true;
		return 0;
	case OPT_PER_SECOND:
		a->per_second = true;
		return 0;
	case OPT_PER:
		return parse_per(a, optarg);
	case OPT_FAIL_ON:
		return add_budget(a, optarg);
	case OPT_KALLSYMS:
		return forward(a, "--kallsyms");
	case OPT_VMLINUX:
		return forward(a, "--vmlinux");
	case OPT_FORMATS:
		return forward(a, "--formats");
	}
	return -1;
}

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "human", no_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "figures", required_argument, NULL, OPT_FIGURES },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "exact-sites", no_argument, NULL, OPT_EXACT },
	{ "per-second", no_argument, NULL, OPT_PER_SECOND },
	{ "per", required_argument, NULL, OPT_PER },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "formats", required_argument, NULL, OPT_FORMATS },
	{ NULL, 0, NULL, 0 },
};

/* Does @arg name an option of longopts that takes the next word as its value? */
static bool takes_value(const char *arg)
{
	const struct option *o;

	for (o = longopts; o->name; o++)
		if (o->has_arg == required_argument && arg[0] == '-' && arg[1] == '-' &&
		    !strcmp(arg + 2, o->name))
			return true;
	return false;
}

/*
 * Where the analyses begin: after BASE and NEW, with diff's options
 * anywhere before them ("--sort X" takes the word after it).
 */
static int analyses_start(int argc, char **argv)
{
	int i, inputs = 0;

	for (i = 1; i < argc && inputs < 2; i++) {
		if (argv[i][0] != '-' || !argv[i][1])
			inputs++;
		else if (takes_value(argv[i]))
			i++;
	}
	/* diff's own options may follow NEW, before the first analysis */
	for (; i < argc && argv[i][0] == '-'; i++)
		i += takes_value(argv[i]);
	return i < argc ? i : argc;
}

static int parse_args(struct diff_args *a, int argc, char **argv, int *status)
{
	int c, end = analyses_start(argc, argv);

	*status = KMT_EXIT_INPUT;
	optind = 1;
	while ((c = getopt_long(end, argv, "Hh", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			*status = 0;
			return -1;
		}
		if (c == '?' || option(a, c))
			return -1;
	}
	if (end - optind != 2) {
		usage(stderr);
		return -1;
	}
	if (a->per_second && a->per[0]) {
		fprintf(stderr, "kmtrace diff: --per-second or --per, not both\n");
		return -1;
	}
	a->input[0] = argv[optind];
	a->input[1] = argv[optind + 1];
	a->analyses = argv + end;
	a->nanalyses = argc - end;
	return 0;
}

/* Is @path a JSON report (its first byte that is not white space is '{')? */
static bool is_json(const char *path)
{
	FILE *fp = fopen(path, "r");
	int c;

	if (!fp)
		return false;
	while ((c = getc(fp)) == ' ' || c == '\t' || c == '\r' || c == '\n')
		;
	fclose(fp);
	return c == '{';
}

/* The argv of "kmtrace report -i @input --format json ANALYSES stat" (stat once). */
static char **report_argv(const struct diff_args *a, const char *input)
{
	static const char *const defaults[] = { "slab", "--caller", "--cache", "page", "leak" };
	int n = a->nanalyses ? a->nanalyses : 5, i, k = 0;
	char **argv = calloc(n + a->nforward + 8, sizeof(*argv));
	bool stat_given = false;

	if (!argv)
		return NULL;
	argv[k++] = "kmtrace";
	argv[k++] = "report";
	argv[k++] = "-i";
	argv[k++] = (char *)input;
	argv[k++] = "--format=json";
	for (i = 0; i < a->nforward; i++)
		argv[k++] = a->forward[i];
	for (i = 0; i < n; i++) {
		argv[k] = a->nanalyses ? a->analyses[i] : (char *)defaults[i];
		stat_given |= !strcmp(argv[k++], "stat");
	}
	if (!stat_given)	/* report refuses an analysis named twice */
		argv[k++] = "stat";
	return argv;
}

/*
 * Run report on @input in a child, its JSON into *@text, what it says on
 * stderr into file @notes (or our stderr where -1). The exit status.
 */
static int run_report(const struct diff_args *a, const char *input, int notes, char **text,
		      size_t *len)
{
	char **argv = report_argv(a, input);
	int fds[2], status, ret = KMT_EXIT_FAIL;
	FILE *in = NULL, *mem = NULL;
	char buf[65536];
	size_t n;
	pid_t pid;

	if (!argv || pipe2(fds, O_CLOEXEC))
		goto out;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		if (notes >= 0)
			dup2(notes, STDERR_FILENO);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "kmtrace diff: cannot run kmtrace report: %s\n", strerror(errno));
		_exit(KMT_EXIT_FAIL);
	}
	close(fds[1]);
	if (pid < 0 || !(in = fdopen(fds[0], "r")) || !(mem = open_memstream(text, len))) {
		if (!in)
			close(fds[0]);
		goto reap;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, mem);
reap:
	if (in)
		fclose(in);
	if (mem && fclose(mem))
		*text = NULL;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid > 0 && WIFEXITED(status))
		ret = WEXITSTATUS(status);
	if (!ret && !*text)
		ret = KMT_EXIT_FAIL;
out:
	free(argv);
	return ret;
}

/*
 * What report said on stderr (file @notes), each line once: both sides'
 * reports often say the same (no call stacks, no symbols). *@seen holds
 * the lines said so far, each after a newline.
 */
static void say_notes(int notes, char **seen)
{
	size_t cap = 0, have = *seen ? strlen(*seen) : 0;
	char *line = NULL, *more;
	ssize_t n;
	FILE *fp;

	if (notes < 0 || lseek(notes, 0, SEEK_SET) || !(fp = fdopen(dup(notes), "r")))
		return;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (!(more = realloc(*seen, have + n + 2)))
			break;
		*seen = more;
		snprintf(more + have, n + 2, "\n%s", line);	/* "\nLINE\n": once? */
		if (strstr(more, more + have) != more + have) {
			more[have] = '\0';
			continue;
		}
		fputs(line, stderr);
		have += n + 1;
	}
	free(line);
	fclose(fp);
}

/* Side @i: a JSON report read as it is, or a recording reported on now. */
static int load_side(const struct diff_args *a, int i, struct kmt_diff_side **side,
		     char **seen)
{
	struct kmt_error err;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (is_json(a->input[i])) {
		text = kmt_read_text_file(a->input[i], &len);
		if (!text) {
			fprintf(stderr, "kmtrace diff: %s: %s\n", a->input[i], strerror(errno));
			return KMT_EXIT_INPUT;
		}
	} else {
		int notes = memfd_create("kmtrace-diff-notes", MFD_CLOEXEC);
		bool terminal = isatty(STDERR_FILENO);

		if (terminal)	/* a large recording takes a while: say what runs */
			fprintf(stderr, "kmtrace diff: reporting on %s (%s)...\r", a->input[i],
				i ? "new" : "base");
		ret = run_report(a, a->input[i], notes, &text, &len);
		if (terminal)
			fputs("\033[K", stderr);
		say_notes(notes, seen);
		if (notes >= 0)
			close(notes);
		if (ret) {
			free(text);
			return ret;
		}
	}
	ret = kmt_diff_side_parse(a->input[i], text, len, side, &err);
	free(text);
	if (ret) {
		kmt_error_print(&err);
		return KMT_EXIT_INPUT;
	}
	return 0;
}

/* What the figures were divided by, said in the header. */
static int scale(struct diff_args *a, struct kmt_diff_side *const *sides, char *label, size_t len)
{
	int s;

	a->opts.scale[0] = a->opts.scale[1] = 1;
	snprintf(label, len, "raw");
	if (a->per[0]) {
		a->opts.scale[0] = 1 / a->per[0];
		a->opts.scale[1] = 1 / a->per[1];
		snprintf(label, len, "per iteration (base %g, new %g iterations)", a->per[0],
			 a->per[1]);
	}
	if (!a->per_second)
		goto done;
	for (s = 0; s < 2; s++) {
		unsigned long long ns = kmt_diff_side_duration(sides[s]);

		if (!ns) {
			fprintf(stderr, "kmtrace diff: %s: no duration (a JSON report without the "
				"stat analysis?): --per-second cannot divide by it\n",
				kmt_diff_side_name(sides[s]));
			return -1;
		}
		a->opts.scale[s] = 1e9 / (double)ns;
	}
	snprintf(label, len, "per second of recording");
done:
	a->opts.scale_label = label;
	return 0;
}

static int describe(struct kmt_output *out, const struct diff_args *a,
		    struct kmt_diff_side *const *sides, const struct kmt_diff *d)
{
	double share = kmt_diff_joined_share(d, "slab");
	char what[2048];
	int rc;

	snprintf(what, sizeof(what), "%s -> %s", a->input[0], a->input[1]);
	rc = kmt_output_describe(out, what, NULL) || kmt_output_begin_input(out, "diff") ||
	     kmt_output_string(out, "base", "base", a->input[0]) ||
	     kmt_output_string(out, "new", "new", a->input[1]) ||
	     kmt_output_ns(out, "base_duration_ns", "base recording",
			   kmt_diff_side_duration(sides[0])) ||
	     kmt_output_ns(out, "new_duration_ns", "new recording",
			   kmt_diff_side_duration(sides[1])) ||
	     kmt_output_string(out, "values", "values", a->opts.scale_label) ||
	     kmt_output_string(out, "call_sites", "call sites", a->opts.exact_sites ?
			       "func+0xOFF [module] (--exact-sites)" : "func [module], offset dropped") ||
	     kmt_output_string(out, "processes", "processes", "by command name (pids differ)");
	if (!rc && share >= 0)
		rc = kmt_output_value(out, "slab_joined_percent", "slab bytes under keys both have",
				      KMT_KIND_PERCENT, (union kmt_cell){ .d = 100 * share });
	return rc;
}

static int write_output(struct diff_args *a, struct kmt_diff_side *const *sides,
			const struct kmt_diff *d)
{
	const char *figures = a->figures ? a->figures :
			      a->format == KMT_FORMAT_TEXT ? "auto" : NULL;
	struct kmt_output *out;
	struct kmt_error err;

	out = kmt_output_new(a->format, a->html_fp ? a->html_fp : stdout, a->human);
	if (!out)
		return KMT_EXIT_FAIL;
	if (describe(out, a, sides, d) || kmt_diff_emit(d, out, figures, &err)) {
		kmt_output_discard(out);
		return KMT_EXIT_FAIL;
	}
	if (kmt_output_finish(out, &err)) {
		kmt_error_print(&err);
		return KMT_EXIT_FAIL;
	}
	return 0;
}

/* A budget naming a figure neither report has: its line, and true. */
static bool unknown_figure(const struct diff_args *a, const struct kmt_diff *d)
{
	char why[4096];
	int i;

	for (i = 0; i < a->nbudgets; i++)
		if (kmt_diff_budget_check(a->budgets[i], d, why, sizeof(why)) < 0) {
			fprintf(stderr, "kmtrace diff: %s\n", why);
			return true;
		}
	return false;
}

/* Each budget: a line for each broken one. 0, or 1 when one is broken. */
static int check_budgets(const struct diff_args *a, const struct kmt_diff *d)
{
	char why[4096];
	int i, ret = 0;

	for (i = 0; i < a->nbudgets; i++) {
		int rc = kmt_diff_budget_check(a->budgets[i], d, why, sizeof(why));

		if (rc == 2)
			fprintf(stderr, "kmtrace diff: note: %s\n", why);
		if (rc == 1) {
			fprintf(stderr, "kmtrace diff: budget broken: %s\n", why);
			ret = 1;
		}
	}
	return ret;
}

/* --html FILE: a new file (0600), never one that is there. */
static int open_html(struct diff_args *a)
{
	if (!a->html)
		return 0;
	a->html_fp = kmt_cmd_new_file("diff", "--html", a->html);
	return a->html_fp ? 0 : -1;
}

static int diff(struct diff_args *a)
{
	struct kmt_diff_side *sides[2] = { NULL, NULL };
	struct kmt_diff *d = NULL;
	struct kmt_error err;
	char label[128], *seen = NULL;
	int ret, s;

	for (s = 0; s < 2; s++)
		if ((ret = load_side(a, s, &sides[s], &seen)))
			goto out;
	ret = KMT_EXIT_INPUT;
	if (scale(a, sides, label, sizeof(label)))
		goto out;
	d = kmt_diff_compute(sides[0], sides[1], &a->opts, &err);
	if (!d) {
		kmt_error_print(&err);
		ret = KMT_EXIT_FAIL;
		goto out;
	}
	ret = unknown_figure(a, d) || open_html(a) ? KMT_EXIT_INPUT : write_output(a, sides, d);
	if (!ret)
		ret = check_budgets(a, d);
out:
	free(seen);
	kmt_diff_free(d);
	for (s = 0; s < 2; s++)
		kmt_diff_side_free(sides[s]);
	return ret;
}

int kmt_cmd_diff(int argc, char **argv)
{
	struct diff_args a = { .format = KMT_FORMAT_TEXT };
	int ret, i;

	if (!parse_args(&a, argc, argv, &ret))
		ret = diff(&a);
	if (a.html_fp && fclose(a.html_fp) && ret != KMT_EXIT_INPUT) {
		fprintf(stderr, "kmtrace diff: cannot write %s: %s\n", a.html, strerror(errno));
		ret = KMT_EXIT_FAIL;
	}
	if (a.html_fp && ret > 1)
		unlink(a.html);
	else if (a.html_fp)
		fprintf(stderr, "kmtrace diff: wrote %s\n", a.html);
	for (i = 0; i < a.nbudgets; i++)
		kmt_diff_budget_free(a.budgets[i]);
	return ret;
}
