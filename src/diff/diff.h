/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace diff: two reports (JSON documents of kmtrace report, written
 * earlier or just now from a recording) joined on keys that survive a
 * rebuild and a reboot, figure by figure.
 */
#ifndef KMT_DIFF_H
#define KMT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <kmtrace/error.h>
#include <kmtrace/output.h>

struct kmt_diff_side;
struct kmt_diff;

/*
 * Parse the JSON report @text (@len bytes) read from @name. 0 with *@side
 * set, or -1 with @err naming @name and the offset where it went wrong.
 */
int kmt_diff_side_parse(const char *name, const char *text, size_t len,
			struct kmt_diff_side **side, struct kmt_error *err);

/* The recording's duration in ns (its stat section's), 0 when unknown. */
unsigned long long kmt_diff_side_duration(const struct kmt_diff_side *side);

/* The name the side was read from. */
const char *kmt_diff_side_name(const struct kmt_diff_side *side);

/* Free @side (NULL is fine). */
void kmt_diff_side_free(struct kmt_diff_side *side);

/* How the two sides are compared. */
struct kmt_diff_options {
	bool exact_sites;	/* call sites keep "+0xOFF": the same build only */
	double scale[2];	/* additive figures of base and new multiplied by these */
	const char *scale_label;	/* "raw", "per second", "per 10 iterations" */
	const char *sort;	/* the figure rows are sorted by, or NULL (live bytes first) */
};

/* Join @base and @new (both kept by the result). NULL with @err on no memory. */
struct kmt_diff *kmt_diff_compute(const struct kmt_diff_side *base,
				  const struct kmt_diff_side *new,
				  const struct kmt_diff_options *opts, struct kmt_error *err);

/*
 * Add every compared table to @out: per analysis a "summary" table and one
 * table per joined table, key columns, "side", then FIGURE_base,
 * FIGURE_new, FIGURE_delta, FIGURE_delta_pct for each figure, or for the
 * figures named in @figures (comma separated; NULL: all; "auto": the sort
 * figure and up to two more that changed). The first figure shown (the
 * sort figure unless @figures leaves it out) is each table's compared one
 * (kmt_table_compare(): HTML's bars and icicle, folded stacks' two values).
 * 0, or -1 with @err.
 */
int kmt_diff_emit(const struct kmt_diff *d, struct kmt_output *out, const char *figures,
		  struct kmt_error *err);

/*
 * Share (0..1) of @analysis's bytes (each keyed table's first summed byte
 * figure, both sides) under keys both sides have; -1 when it has no keyed
 * table.
 */
double kmt_diff_joined_share(const struct kmt_diff *d, const char *analysis);

/* Free @d. */
void kmt_diff_free(struct kmt_diff *d);

/* A budget: --fail-on EXPR. */
struct kmt_diff_budget;

/*
 * Parse @expr: ANALYSIS.FIGURE or ANALYSIS.TABLE[KEY].FIGURE, then one of
 * > >= < <=, then a value: "+10%" / "-5%" (change relative to base),
 * "+4MiB" / "-100" (change), "0" (new value), and optionally ",+FLOOR": a
 * change smaller than FLOOR either way breaks nothing (noise). -1 with
 * @err on a bad one.
 */
int kmt_diff_budget_parse(const char *expr, struct kmt_diff_budget **b, struct kmt_error *err);

/*
 * Check @b against @d: 0 it holds, 1 it is broken (@why: the figure, its
 * values, the row), 2 it holds because neither side has its row (@why
 * says so), -1 when @d has no such figure (@why: the ones it has).
 */
int kmt_diff_budget_check(const struct kmt_diff_budget *b, const struct kmt_diff *d,
			  char *why, size_t len);

/* Free @b. */
void kmt_diff_budget_free(struct kmt_diff_budget *b);

#endif /* KMT_DIFF_H */
