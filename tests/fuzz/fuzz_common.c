// SPDX-License-Identifier: LGPL-2.1
/*
 * The part of `kmtrace report` every reader harness drives: open, replay
 * through all analyses (every table on), render as text, CSV or JSON.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include <kmtrace/reader.h>
#include "cmd/cmd.h"
#include "fuzz_common.h"

/* The options that turn on every table and timeline. */
static const struct { const char *analysis, *option, *arg; } options[] = {
	{ "slab", "caller", NULL }, { "slab", "alloc", NULL }, { "slab", "cache", NULL },
	{ "slab", "pid", NULL }, { "slab", "lines", "50" },
	{ "page", "pid", NULL }, { "page", "order", NULL }, { "page", "migratetype", NULL },
	{ "page", "gfp", NULL }, { "page", "live", NULL },
	{ "page", "timeline", "1" },
	{ "fault", "regions", NULL }, { "fault", "ip", NULL }, { "fault", "timeline", "1" },
	{ "vm", "timeline", "1" }, { "vm", "lines", "50" },
};

int kmt_fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("kmtrace-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* Give @an the option named @name. */
static void set_option(const struct kmt_analysis *an, void *priv, const char *name,
		       const char *arg)
{
	struct kmt_error err;
	int i;

	for (i = 0; an->longopts && an->longopts[i].name; i++)
		if (!strcmp(an->longopts[i].name, name))
			kmt_analysis_option(an, priv, an->longopts[i].val, arg, &err);
}

static int start_all(const struct kmt_analysis **an, void **priv, int n,
		     struct kmt_session *s)
{
	/* call stacks: perf.data only (the others would say so on every input) */
	bool stacks = !strncmp(kmt_reader_format(s->reader), "perf.data", 9);
	int i;
	size_t k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < sizeof(options) / sizeof(options[0]); k++)
			if (!strcmp(options[k].analysis, an[i]->name))
				set_option(an[i], priv[i], options[k].option, options[k].arg);
		if (stacks && !strcmp(an[i]->name, "page"))
			set_option(an[i], priv[i], "caller", NULL);
		if (an[i]->start && an[i]->start(priv[i], s))
			return -1;
	}
	return 0;
}

static void report_all(const struct kmt_analysis **an, void **priv, int n,
		       struct kmt_session *s, enum kmt_format format)
{
	FILE *fp = fopen("/dev/null", "w");
	struct kmt_output *out = fp ? kmt_output_new(format, fp, format == KMT_FORMAT_TEXT) : NULL;
	char missing[512];
	int i;

	for (i = 0; out && i < n; i++) {
		kmt_missing_events(s, an[i], missing, sizeof(missing));
		if (kmt_output_begin(out, an[i]->name) || an[i]->report(priv[i], s, out)) {
			kmt_output_discard(out);
			out = NULL;
		}
	}
	if (out)
		kmt_output_finish(out, NULL);
	if (fp)
		fclose(fp);
}

void kmt_fuzz_report(const char *path, const char *formats_dir, unsigned int variant,
		     int print)
{
	const struct kmt_analysis *an[16];
	void *priv[16];
	/* one thread or two, as the variant says: both replays see every input */
	struct kmt_session s = { .input = path, .threads = 1 + (variant / 3) % 2 };
	struct kmt_error err;
	int n = 0, i;

	s.reader = kmt_reader_open_formats(path, formats_dir, &err);
	if (!s.reader)
		return;
	s.tep = kmt_reader_tep(s.reader);
	for (i = 0; kmt_analyses[i]; i++)
		an[n++] = kmt_analyses[i];
	if (print)
		an[n++] = &kmt_print;
	for (i = 0; i < n; i++)
		priv[i] = an[i]->init();
	if (!start_all(an, priv, n, &s) && !kmt_replay(&s, an, priv, n, &err))
		report_all(an, priv, n - !!print, &s, variant % 3);
	for (i = 0; i < n; i++)
		an[i]->free(priv[i]);
	kmt_reader_close(s.reader);
}
