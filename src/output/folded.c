// SPDX-License-Identifier: LGPL-2.1
/*
 * Folded stacks, the input of flamegraph.pl, inferno and speedscope: one
 * line per stack of every table that has one, "outer;...;inner VALUE"
 * ("... BASE NEW" for a table comparing two reports, kmt_table_compare()),
 * frames as function names (offsets and inline remarks dropped, so that
 * one function is one box; a module stays as " [mod]").
 */
#include <string.h>

#include "output_local.h"

/* The first numeric column of @t, where no weight was chosen. */
static int weight_column(const struct kmt_table *t)
{
	int c;

	if (t->weight >= 0)
		return t->weight;
	for (c = 0; c < t->ncols; c++)
		if (!kmt_kind_is_text(t->cols[c].kind) && t->cols[c].kind != KMT_KIND_PERCENT)
			return c;
	return -1;
}

/* @frame as a folded frame: "func" or "func [mod]"; ';' would split it. */
static void folded_frame(char *frame)
{
	char *plus = strstr(frame, "+0x"), *mod = strstr(frame, " [");
	char *p;

	if (plus) {
		if (mod && mod > plus && strchr(mod, ']'))
			memmove(plus, mod, strchr(mod, ']') - mod + 2);
		else
			*plus = '\0';
	}
	for (p = frame; *p; p++)
		if (*p == ';')
			*p = ':';
}

#define MAX_FRAMES	512

/* The frames of @stack, outermost first, joined by ';'. */
static void print_outer_first(FILE *fp, const char *stack)
{
	const char *at[MAX_FRAMES], *p = stack;
	char frame[1024];
	int n = 0, i;

	while (n < MAX_FRAMES && *p) {
		at[n++] = p;
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	for (i = n - 1; i >= 0; i--) {
		p = at[i];
		kmt_stack_frame(&p, frame, sizeof(frame));
		folded_frame(frame);
		fprintf(fp, "%s%s", i == n - 1 ? "" : ";", frame);
	}
}

static void print_value(FILE *fp, const struct kmt_table *t, int r, int c)
{
	union kmt_cell v = t->cells[r * t->ncols + c];

	if (t->cols[c].kind == KMT_KIND_SIGNED)
		fprintf(fp, " %lld", v.i);
	else
		fprintf(fp, " %llu", v.u);
}

static void folded_table(FILE *fp, const struct kmt_table *t)
{
	int sc = kmt_table_stack_column(t), wc = weight_column(t), r;

	if (sc < 0 || wc < 0)
		return;
	for (r = 0; r < t->rows; r++) {
		if (!*t->cells[r * t->ncols + sc].s)
			continue;
		print_outer_first(fp, t->cells[r * t->ncols + sc].s);
		if (t->new_col >= 0)	/* a diff's: both sides, a differential flame graph */
			print_value(fp, t, r, t->base_col);
		print_value(fp, t, r, t->new_col >= 0 ? t->new_col : wc);
		fputc('\n', fp);
	}
}

void kmt_render_folded(struct kmt_output *out)
{
	int s, i;

	for (s = 0; s < out->nsections; s++)
		for (i = 0; i < out->sections[s].ntables; i++)
			folded_table(out->fp, out->sections[s].tables[i]);
}
