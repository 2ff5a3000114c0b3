// SPDX-License-Identifier: LGPL-2.1
/*
 * Budgets (kmtrace diff --fail-on): a figure of the diff, a comparison and
 * a limit on its new value, its change, or its change relative to base.
 *   slab.live_bytes>+10%        grew by more than 10 %
 *   page.alloc_kib>+4MiB         grew by more than 4 MiB (of the figure's unit)
 *   slab.callers[alloc_pipe_info].live_objects>+100
 *   leak.slab_objects>0          more than 0 in NEW
 *   slab.live_bytes>+10%,+512KiB and by at least 512 KiB (a noise floor)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_local.h"

enum limit_of { LIMIT_VALUE, LIMIT_CHANGE, LIMIT_PERCENT };

struct kmt_diff_budget {
	char *expr;
	char *analysis, *table, *key, *figure;	/* table, key NULL: the summary */
	char op[3];
	enum limit_of of;
	double limit;
	double floor;		/* the change must be at least this big (either way) */
};

/* "4MiB", "4M", "4K", "100": the number times its unit. -1 if not one. */
static int parse_amount(const char *s, double *v)
{
	static const struct { const char *unit; double times; } units[] = {
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
		{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "", 1 },
	};
	char *end;
	size_t i;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*v *= units[i].times;
			return 0;
		}
	return -1;
}

/* ",+SIZE" after the limit: a change smaller than SIZE never breaks the budget. */
static int parse_floor(struct kmt_diff_budget *b, char *s)
{
	char *comma = strchr(s, ',');

	if (!comma)
		return 0;
	*comma = '\0';
	if ((comma[1] != '+' && comma[1] != '-') || parse_amount(comma + 2, &b->floor))
		return -1;
	return 0;
}

static int parse_limit(struct kmt_diff_budget *b, char *s)
{
	size_t n;

	if (parse_floor(b, s))
		return -1;
	n = strlen(s);
	b->of = *s == '+' || *s == '-' ? LIMIT_CHANGE : LIMIT_VALUE;
	if (n > 1 && s[n - 1] == '%') {
		char num[64];

		if (b->of != LIMIT_CHANGE || n >= sizeof(num))
			return -1;
		snprintf(num, sizeof(num), "%.*s", (int)n - 1, s);
		b->of = LIMIT_PERCENT;
		return parse_amount(num, &b->limit);
	}
	return parse_amount(s, &b->limit);
}

/* "ANALYSIS.FIGURE" or "ANALYSIS.TABLE[KEY].FIGURE" of @lhs. */
static int parse_figure(struct kmt_diff_budget *b, const char *lhs)
{
	const char *dot = strchr(lhs, '.'), *open, *close;

	if (!dot || dot == lhs)
		return -1;
	b->analysis = strndup(lhs, dot - lhs);
	open = strchr(dot, '[');
	if (!open) {
		b->figure = strdup(dot + 1);
		return b->analysis && b->figure && *b->figure && !strchr(b->figure, '.') ? 0 : -1;
	}
	close = strrchr(open, ']');
	if (!close || close[1] != '.' || open == dot + 1)
		return -1;
	b->table = strndup(dot + 1, open - dot - 1);
	b->key = strndup(open + 1, close - open - 1);
	b->figure = strdup(close + 2);
	return b->table && b->key && b->figure && *b->figure ? 0 : -1;
}

int kmt_diff_budget_parse(const char *expr, struct kmt_diff_budget **out, struct kmt_error *err)
{
	struct kmt_diff_budget *b = calloc(1, sizeof(*b));
	const char *op = strpbrk(expr, "<>");
	char *lhs = NULL, *rhs = NULL;

	if (!b || !(b->expr = strdup(expr)))
		goto bad;
	if (!op || op == expr)
		goto bad;
	b->op[0] = *op;
	if (op[1] == '=')
		b->op[1] = '=';
	if (!(lhs = strndup(expr, op - expr)) || !(rhs = strdup(op + strlen(b->op))) ||
	    parse_figure(b, lhs) || parse_limit(b, rhs))
		goto bad;
	free(lhs);
	free(rhs);
	*out = b;
	return 0;
bad:
	kmt_error_set(err, "--fail-on", -1, "'%s' is not a budget: ANALYSIS.FIGURE or "
		      "ANALYSIS.TABLE[KEY].FIGURE, then > >= < or <=, then a value (0, 100, 4MiB), "
		      "a change (+100, -4MiB) or a relative change (+10%%), optionally ',+FLOOR'",
		      expr);
	free(lhs);
	free(rhs);
	kmt_diff_budget_free(b);
	return -1;
}

/* Row @key of @t: its label, or its first key, or that without " [module]". */
static const struct kmt_diff_row *find_key(const struct kmt_diff_table *t, const char *key)
{
	char label[1024];
	uint32_t r;

	for (r = 0; r < t->nrows; r++) {
		const char *first = t->nkeys ? t->rows[r].keys[0] : "";
		size_t n = strcspn(first, " \n");

		kmt_diff_row_label(t, &t->rows[r], label, sizeof(label));
		if (!strcmp(label, key) || !strcmp(first, key) ||
		    (strlen(key) == n && !strncmp(first, key, n)))
			return &t->rows[r];
	}
	return NULL;
}

static void list_figures(const struct kmt_diff_table *t, char *buf, size_t len)
{
	size_t used = 0;
	int f;

	buf[0] = '\0';
	for (f = 0; f < t->nfigs && used < len; f++)
		used += snprintf(buf + used, len - used, "%s%s", f ? ", " : "", t->figs[f].name);
}

static bool broken(const struct kmt_diff_budget *b, double lhs)
{
	if (!strcmp(b->op, ">"))
		return lhs > b->limit;
	if (!strcmp(b->op, ">="))
		return lhs >= b->limit;
	if (!strcmp(b->op, "<"))
		return lhs < b->limit;
	return lhs <= b->limit;
}

static void say(const struct kmt_diff_budget *b, double base, double new, char *why, size_t len)
{
	int n = snprintf(why, len, "%s: %.0f -> %.0f (%+.0f, %+.1f%%)", b->expr, base, new,
			 new - base, kmt_diff_change_pct(base, new));

	if (b->key && n >= 0 && (size_t)n < len)
		snprintf(why + n, len - n, ", row %s", b->key);
}

int kmt_diff_budget_check(const struct kmt_diff_budget *b, const struct kmt_diff *d,
			  char *why, size_t len)
{
	const struct kmt_diff_table *t = kmt_diff_find(d, b->analysis, b->table ? b->table : "summary");
	const struct kmt_diff_row *r = NULL;
	double base = 0, new = 0, lhs;
	size_t n;
	int f;

	if (!t) {
		snprintf(why, len, "%s: neither report has %s%s%s", b->expr, b->analysis,
			 b->table ? "." : "", b->table ? b->table : "");
		return -1;
	}
	if ((f = kmt_diff_figure_index(t, b->figure)) < 0) {
		n = snprintf(why, len, "%s: %s.%s has no figure %s; it has: ", b->expr, b->analysis,
			     t->name, b->figure);
		if (n < len)
			list_figures(t, why + n, len - n);
		return -1;
	}
	r = !b->table ? (t->nrows ? &t->rows[0] : NULL) : find_key(t, b->key);
	if (r) {
		base = r->val[0][f];
		new = r->val[1][f];
	} else if (b->table) {
		snprintf(why, len, "%s: no row %s in %s.%s on either side: 0 on both", b->expr,
			 b->key, b->analysis, t->name);
		return 2;
	}
	lhs = b->of == LIMIT_VALUE ? new : b->of == LIMIT_CHANGE ? new - base :
	      kmt_diff_change_pct(base, new);
	say(b, base, new, why, len);
	return broken(b, lhs) && fabs(new - base) >= b->floor ? 1 : 0;
}

void kmt_diff_budget_free(struct kmt_diff_budget *b)
{
	if (!b)
		return;
	free(b->expr);
	free(b->analysis);
	free(b->table);
	free(b->key);
	free(b->figure);
	free(b);
}
