/* SPDX-License-Identifier: LGPL-2.1 */
/* What a report's columns are to a diff (columns.c): private to src/diff. */
#ifndef KMT_DIFF_COLUMNS_H
#define KMT_DIFF_COLUMNS_H

#include <stdbool.h>
#include "diff_local.h"

enum kmt_diff_role {
	KMT_DIFF_NONE,		/* left out: addresses, ratios, moments, who a task is */
	KMT_DIFF_KEY,		/* names the row */
	KMT_DIFF_FIGURE,	/* compared */
};

/* The kind of JSON unit name @unit ("bytes", "symbol", ...); NULL (not a string): a count. */
enum kmt_kind kmt_diff_kind(const char *unit);

/* Column @name of kind @kind of table @table (its "units" object @units). */
enum kmt_diff_role kmt_diff_column_role(const char *table, json_object *units,
					const char *name, enum kmt_kind kind);

/* How rows joining on one key combine figure @name. */
enum kmt_diff_combine kmt_diff_combine_of(const char *name);

/*
 * The key text of @cell (a string, a number, or a stack's array of
 * frames) of kind @kind: code locations without "+0xOFF" unless @exact;
 * a stack's frames one per line. Allocated; NULL without memory.
 */
char *kmt_diff_key_text(json_object *cell, enum kmt_kind kind, bool exact);

#endif /* KMT_DIFF_COLUMNS_H */
