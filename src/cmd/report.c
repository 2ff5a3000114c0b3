// SPDX-License-Identifier: LGPL-2.1
/* kmtrace report: open the input, replay it through the analyses, render. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include <kmtrace/reader.h>
#include "cmd.h"

#define MAX_ANALYSES	32

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace report [-i FILE] [--format text|json|csv] [-H] [ANALYSIS...]\n\n"
		"  -i, --input   recording to read (default kmtrace.dat): a trace.dat of\n"
		"                kmtrace or trace-cmd\n"
		"      --format  text (default), csv or json\n"
		"  -H, --human   sizes as KiB/MiB in text\n\n"
		"analyses (default stat):\n");
	kmt_cmd_list_analyses(fp, "  ");
}

static int run(struct kmt_session *s, const struct kmt_analysis **an, int n,
	       struct kmt_output *out, struct kmt_error *err)
{
	void *priv[MAX_ANALYSES] = { 0 };
	int i, ret = KMT_EXIT_FAIL;

	for (i = 0; i < n; i++) {
		priv[i] = an[i]->init(s);
		if (!priv[i]) {
			fprintf(stderr, "kmtrace: %s: out of memory\n", an[i]->name);
			goto out;
		}
	}
	if (kmt_replay(s, (const struct kmt_analysis *const *)an, priv, n, err)) {
		kmt_error_print(err);
		ret = KMT_EXIT_INPUT;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (kmt_output_begin(out, an[i]->name) || an[i]->report(priv[i], s, out)) {
			fprintf(stderr, "kmtrace: %s: cannot build the report\n", an[i]->name);
			goto out;
		}
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		if (priv[i])
			an[i]->free(priv[i]);
	return ret;
}

int kmt_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'F' },
		{ "human", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const struct kmt_analysis *an[MAX_ANALYSES];
	struct kmt_session s = { .input = "kmtrace.dat" };
	struct kmt_output *out;
	struct kmt_error err;
	int format = KMT_FORMAT_TEXT, human = 0, n = 0, c, ret;

	while ((c = getopt_long(argc, argv, "i:Hh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			s.input = optarg;
			break;
		case 'F':
			format = kmt_format_parse(optarg);
			if (format < 0) {
				fprintf(stderr, "kmtrace report: unknown format '%s'\n", optarg);
				return KMT_EXIT_INPUT;
			}
			break;
		case 'H':
			human = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return KMT_EXIT_INPUT;
		}
	}
	for (; optind < argc; optind++) {
		if (n == MAX_ANALYSES || !(an[n] = kmt_analysis_find(argv[optind]))) {
			fprintf(stderr, "kmtrace report: unknown analysis '%s' (see kmtrace list)\n",
				argv[optind]);
			return KMT_EXIT_INPUT;
		}
		n++;
	}
	if (!n)
		an[n++] = kmt_analysis_find("stat");
	s.reader = kmt_reader_open(s.input, &err);
	if (!s.reader) {
		kmt_error_print(&err);
		return KMT_EXIT_INPUT;
	}
	s.tep = kmt_reader_tep(s.reader);
	out = kmt_output_new(format, stdout, human);
	if (!out) {
		kmt_reader_close(s.reader);
		return KMT_EXIT_FAIL;
	}
	ret = run(&s, an, n, out, &err);
	if (ret)
		kmt_output_discard(out);
	else if (kmt_output_finish(out))
		ret = KMT_EXIT_FAIL;
	kmt_reader_close(s.reader);
	return ret;
}
