// SPDX-License-Identifier: LGPL-2.1
/*
 * Per-CPU ring-buffer stats as tracefs writes them (per_cpu/cpuN/stats) and
 * trace.dat keeps them: parsed into struct kmt_cpu_stats, losses summed.
 */
#include <stdlib.h>
#include <string.h>
#include <kmtrace/cpustats.h>

#include "cpustats.h"

bool kmt_stats_text_value(const char *text, size_t len, const char *key,
			  unsigned long long *val)
{
	const char *p = text, *end = text + len;
	size_t klen = strlen(key);

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > klen + 1 && !strncmp(p, key, klen) && p[klen] == ':') {
			*val = strtoull(p + klen + 1, NULL, 10);
			return true;
		}
		p = nl + 1;
	}
	return false;
}

/* Counts above this are no kernel's: a damaged or made-up stats text. */
#define MAX_STAT_COUNT	(1ull << 62)

/* The value of "@key: N" into *@v, unless it is one no kernel counts to. */
static void stat_count(const char *text, const char *end, const char *key,
		       unsigned long long *v, struct kmt_cpu_stats *st)
{
	unsigned long long n;

	if (!kmt_stats_text_value(text, end - text, key, &n))
		return;
	if (n > MAX_STAT_COUNT)
		st->impossible = true;
	else
		*v = n;
}

void kmt_cpu_stats_add(struct kmt_cpu_stats *st, unsigned long long *count,
		       unsigned long long n)
{
	if (n > MAX_STAT_COUNT || *count + n > MAX_STAT_COUNT)
		st->impossible = true;
	else
		*count += n;
}

void kmt_cpu_stats_parse(const char *text, size_t len, struct kmt_cpu_stats *st)
{
	const char *end = text + len;

	st->have_stats = true;
	stat_count(text, end, "entries", &st->entries, st);
	stat_count(text, end, "overrun", &st->overrun, st);
	stat_count(text, end, "commit overrun", &st->commit_overrun, st);
	stat_count(text, end, "dropped events", &st->dropped, st);
	stat_count(text, end, "read events", &st->read_events, st);
}

unsigned long long kmt_cpu_stats_lost(const struct kmt_cpu_stats *st)
{
	unsigned long long lost = st->missed_marked;

	if (st->overrun > lost)
		lost = st->overrun;
	return lost + st->dropped + st->commit_overrun;
}
