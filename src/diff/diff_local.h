/* SPDX-License-Identifier: LGPL-2.1 */
/* The diff's model: private to src/diff. */
#ifndef KMT_DIFF_LOCAL_H
#define KMT_DIFF_LOCAL_H

#include <math.h>
#include <stdint.h>
#include <json.h>

#include "common/hashmap.h"
#include "diff.h"

struct kmt_diff_side {
	char *name;
	json_object *root;
};

/* How rows that join on one key (two pids of one command) combine a figure. */
enum kmt_diff_combine {
	KMT_DIFF_SUM,		/* counts, bytes, durations: added, and scaled */
	KMT_DIFF_MAX,		/* peaks, maxima, the oldest */
	KMT_DIFF_DOMINANT,	/* means, per-hit sizes: the biggest row's */
};

struct kmt_diff_figure {
	char *name;
	enum kmt_kind kind;
	enum kmt_diff_combine combine;
};

struct kmt_diff_row {
	char **keys;		/* nkeys normalized key texts */
	double *val[2];		/* nfigs values of base and new */
	double weight[2];	/* the first summed figure of the row that gave DOMINANT ones */
	unsigned char present;	/* bit 0 base, bit 1 new */
};

struct kmt_diff_table {
	char *analysis;
	char *name;		/* "summary" for the summaries */
	int nkeys;
	char **key_names;
	enum kmt_kind *key_kinds;
	int nfigs;
	struct kmt_diff_figure *figs;
	struct kmt_diff_row *rows;
	uint32_t nrows, cap;
	struct kmt_hashmap index;	/* hash of the keys -> row */
	int sort;		/* figure the rows are sorted by, -1: none */
};

struct kmt_diff {
	const struct kmt_diff_side *side[2];
	struct kmt_diff_options opts;
	struct kmt_diff_table *tables;
	int ntables;
};

#define KMT_DIFF_BASE_ONLY	1
#define KMT_DIFF_NEW_ONLY	2
#define KMT_DIFF_BOTH		3

/* The change from @base to @new in percent of @base; infinite (its sign) from 0. */
static inline double kmt_diff_change_pct(double base, double new)
{
	if (base == 0)
		return new == 0 ? 0 : new > 0 ? INFINITY : -INFINITY;
	return (new - base) * 100 / fabs(base);
}

json_object *kmt_diff_member_object(json_object *o, const char *key);
json_object *kmt_diff_analysis(const struct kmt_diff_side *s, const char *name);

/* Row @r's keys as one line: "k1, k2" (a stack: its innermost frame). */
void kmt_diff_row_label(const struct kmt_diff_table *t, const struct kmt_diff_row *r,
			char *buf, size_t len);

/* The table @analysis.@name of @d, or NULL. */
const struct kmt_diff_table *kmt_diff_find(const struct kmt_diff *d, const char *analysis,
					   const char *name);

/* Index of figure @name in @t, or -1. */
int kmt_diff_figure_index(const struct kmt_diff_table *t, const char *name);

#endif /* KMT_DIFF_LOCAL_H */
