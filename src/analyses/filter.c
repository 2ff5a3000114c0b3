// SPDX-License-Identifier: LGPL-2.1
/* The shared event filters of filter.h. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

int kmt_filter_init(struct kmt_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->end_ns = UINT64_MAX;
	return kmt_hashmap_init(&f->comm_match);
}

void kmt_filter_free(struct kmt_filter *f)
{
	free(f->pids);
	kmt_hashmap_free(&f->comm_match);
}

/* Parse "SEC[.FRACTION]" exactly into nanoseconds. */
static int parse_seconds(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;

	if (s == end)
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (sec > UINT64_MAX / 10 / scale)
			return -1;
		sec = sec * 10 + (*s - '0');
	}
	if (s < end && *s == '.')
		for (s++; s < end && *s >= '0' && *s <= '9'; s++)
			if (scale > 1) {
				scale /= 10;
				frac += (*s - '0') * scale;
			}
	if (s != end)
		return -1;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* "START,END" in seconds; either side may be empty. */
static int parse_time(struct kmt_filter *f, const char *arg, struct kmt_error *err)
{
	const char *comma = strchr(arg, ',');
	const char *end = arg + strlen(arg);

	f->start_ns = 0;
	f->end_ns = UINT64_MAX;
	if (!comma || (comma > arg && parse_seconds(arg, comma, &f->start_ns)) ||
	    (comma + 1 < end && parse_seconds(comma + 1, end, &f->end_ns)) ||
	    f->start_ns > f->end_ns) {
		kmt_error_set(err, NULL, -1, "bad --time '%s': want START,END in seconds "
			 "(e.g. 612.4,613 or 612.4,)", arg);
		return -1;
	}
	return 1;
}

static int parse_pids(struct kmt_filter *f, const char *arg, struct kmt_error *err)
{
	const char *p = arg;
	char *end;

	for (;;) {
		long pid = strtol(p, &end, 10);
		int *n;

		if (end == p || pid < 0 || pid > INT_MAX || (*end && *end != ',')) {
			kmt_error_set(err, NULL, -1, "bad --pid-filter '%s': want PID[,PID...]", arg);
			return -1;
		}
		n = realloc(f->pids, (f->npids + 1) * sizeof(*n));
		if (!n) {
			kmt_error_set(err, NULL, -1, "out of memory");
			return -1;
		}
		f->pids = n;
		f->pids[f->npids++] = pid;
		if (!*end)
			return 1;
		p = end + 1;
	}
}

const struct option kmt_filter_longopts[] = {
	{ "time", required_argument, NULL, KMT_FILTER_OPT_TIME },
	{ "pid-filter", required_argument, NULL, KMT_FILTER_OPT_PIDS },
	{ "comm", required_argument, NULL, KMT_FILTER_OPT_COMM },
	{ NULL, 0, NULL, 0 }
};

int kmt_filter_option(struct kmt_filter *f, int key, const char *arg, struct kmt_error *err)
{
	switch (key) {
	case KMT_FILTER_OPT_TIME:
		return parse_time(f, arg, err);
	case KMT_FILTER_OPT_PIDS:
		return parse_pids(f, arg, err);
	case KMT_FILTER_OPT_COMM:
		f->comm = arg;
		return 1;
	}
	return 0;
}

/*
 * Was @ev's task named f->comm when @ev happened? By its name at the event
 * where the reader gives one (perf.data, text: an exec renames a task),
 * else by the recording's one name for its pid.
 */
static bool comm_matches(struct kmt_filter *f, const struct kmt_event *ev)
{
	int pid = ev->pid;
	uint64_t match;

	if (ev->comm)
		return !strcmp(ev->comm, f->comm);
	if (!kmt_hashmap_get(&f->comm_match, pid, &match)) {
		const char *comm = kmt_reader_comm(f->reader, pid);

		match = comm && !strcmp(comm, f->comm) ? 1 : 2;
		kmt_hashmap_put(&f->comm_match, pid, match);	/* a cache: failure is harmless */
	}
	return match == 1;
}

bool kmt_filter_pass_task(struct kmt_filter *f, const struct kmt_event *ev)
{
	int i;

	if (f->npids) {
		for (i = 0; i < f->npids && f->pids[i] != ev->pid; i++)
			;
		if (i == f->npids)
			return false;
	}
	return !f->comm || comm_matches(f, ev);
}

bool kmt_filter_active(const struct kmt_filter *f)
{
	return f->start_ns || f->end_ns != UINT64_MAX || f->npids || f->comm;
}

char *kmt_task_name(struct kmt_reader *r, int pid)
{
	const char *comm = kmt_reader_comm(r, pid);

	return strdup(comm ? comm : "<...>");
}
