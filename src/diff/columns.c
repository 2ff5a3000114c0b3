// SPDX-License-Identifier: LGPL-2.1
/*
 * What each column of a report's table is to a diff: part of the key (and
 * then how it is written so that it survives a rebuild and a reboot), a
 * figure (and how rows joining on one key combine it), or neither.
 */
#include <stdlib.h>
#include <string.h>

#include "columns.h"

/* The kinds JSON's "units" names (model.c's kmt_kind_unit); a count for none (NULL). */
enum kmt_kind kmt_diff_kind(const char *unit)
{
	static const struct { const char *unit; enum kmt_kind kind; } units[] = {
		{ "bytes", KMT_KIND_BYTES }, { "ns", KMT_KIND_NS },
		{ "percent", KMT_KIND_PERCENT }, { "address", KMT_KIND_ADDRESS },
		{ "text", KMT_KIND_STRING }, { "symbol", KMT_KIND_SYMBOL },
		{ "stack", KMT_KIND_STACK },
	};
	size_t i;

	for (i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].kind;
	return KMT_KIND_COUNT;
}

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

static bool has_column(json_object *units, const char *name)
{
	return json_object_object_get_ex(units, name, NULL);
}

/* Absolute times and other figures that mean nothing from one run to the next. */
static bool is_moment(const char *table, const char *name)
{
	static const char *const moments[] = {
		"start_time", "exit_time", "peak_time", "reap_time", "peak_live_ts", "first_ts",
		"last_ts", "outstanding_at", "command_pid", "rss_peak_pid", NULL,
	};

	return in_list(name, moments) || (!strcmp(table, "kills") && !strcmp(name, "time"));
}

enum kmt_diff_role kmt_diff_column_role(const char *table, json_object *units,
					const char *name, enum kmt_kind kind)
{
	/* who a task is: JSON's additions to rows with a pid */
	static const char *const task[] = {
		"tgid", "ppid", "cmdline", "cgroup", "container", NULL,
	};
	/* numbers that name a row rather than count something */
	static const char *const ids[] = { "order", "cpu", "node", "memcg_id", "item", NULL };
	static const char *const prose[] = { "evidence", "missing_events", NULL };

	if (kind == KMT_KIND_ADDRESS || kind == KMT_KIND_PERCENT || in_list(name, task) ||
	    in_list(name, prose) || is_moment(table, name))
		return KMT_DIFF_NONE;
	if (!strcmp(name, "executable"))	/* a command's name where rows have no comm */
		return has_column(units, "comm") ? KMT_DIFF_NONE : KMT_DIFF_KEY;
	if (!strcmp(name, "pid"))		/* pids differ between runs: by command */
		return has_column(units, "comm") || has_column(units, "executable") ?
		       KMT_DIFF_NONE : KMT_DIFF_KEY;
	if (!strcmp(name, "inode"))		/* files by path where there is one */
		return has_column(units, "path") ? KMT_DIFF_NONE : KMT_DIFF_KEY;
	if (kmt_kind_is_text(kind) || in_list(name, ids))
		return KMT_DIFF_KEY;
	return KMT_DIFF_FIGURE;
}

enum kmt_diff_combine kmt_diff_combine_of(const char *name)
{
	static const char *const highest[] = { "max", "peak", "oldest", NULL };
	static const char *const typical[] = {
		"per_hit", "mean", "p50", "p99", "median", "newest", "oom_score_adj", NULL,
	};
	const char *const *p;

	for (p = highest; *p; p++)
		if (strstr(name, *p))
			return KMT_DIFF_MAX;
	for (p = typical; *p; p++)
		if (strstr(name, *p))
			return KMT_DIFF_DOMINANT;
	return KMT_DIFF_SUM;
}

/*
 * A code location "func+0xOFF/0xLEN [mod]" as "func [mod]" (unless
 * @exact), into @buf. Addresses that did not resolve stay as they are.
 */
static void symbol_key(const char *s, bool exact, char *buf, size_t len)
{
	const char *plus = exact ? NULL : strstr(s, "+0x"), *mod;

	if (!plus) {
		snprintf(buf, len, "%s", s);
		return;
	}
	mod = strstr(plus, " [");
	snprintf(buf, len, "%.*s%s", (int)(plus - s), s, mod ? mod : "");
}

char *kmt_diff_key_text(json_object *cell, enum kmt_kind kind, bool exact)
{
	char frame[1024], *out = NULL;
	size_t n = 0, i, len;
	FILE *fp;

	if (kind != KMT_KIND_STACK) {
		const char *s = cell ? json_object_get_string(cell) : "";

		if (kind != KMT_KIND_SYMBOL)
			return strdup(s ? s : "");
		symbol_key(s ? s : "", exact, frame, sizeof(frame));
		return strdup(frame);
	}
	fp = open_memstream(&out, &n);
	if (!fp)
		return NULL;
	len = json_object_is_type(cell, json_type_array) ? json_object_array_length(cell) : 0;
	for (i = 0; i < len; i++) {
		const char *f = json_object_get_string(json_object_array_get_idx(cell, i));

		symbol_key(f ? f : "", exact, frame, sizeof(frame));
		fprintf(fp, "%s%s", i ? "\n" : "", frame);
	}
	if (fclose(fp))
		return NULL;
	return out;
}
