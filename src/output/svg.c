// SPDX-License-Identifier: LGPL-2.1
/*
 * Charts as inline SVG for the HTML report: a line chart of a timeline
 * table (a line per process, or per column for totals; points thinned to a
 * fixed number per line), ring charts of a table's byte columns by its
 * first text column (the top ten and the rest), sunbursts of a table of
 * source directories (a ring per level), and an icicle (a flame graph
 * upside down) of a stack table. Every drawn mark has class "mark",
 * which the tests count.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kmtrace/error.h>

#include "output_local.h"
#include "common/util.h"

#define W		820
#define H		260
#define PAD		50
#define MAX_POINTS	1500	/* per line: more are thinned out */
#define MAX_LINES	8
#define TOP_SLICES	10
#define RING_LEGEND	5	/* slices named under a ring */
#define ICICLE_ROW	18
#define ICICLE_DEPTH	40

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
	"#ff9da7", "#9c755f", "#bab0ac",
};
#define NCOLORS	(sizeof(palette) / sizeof(palette[0]))

static double number(const struct kmt_table *t, int r, int c)
{
	union kmt_cell v = t->cells[r * t->ncols + c];

	switch (t->cols[c].kind) {
	case KMT_KIND_SIGNED:
		return (double)v.i;
	case KMT_KIND_PERCENT:
		return isfinite(v.d) ? v.d : 0;
	default:
		return (double)v.u;
	}
}

static bool plottable(enum kmt_kind kind)
{
	return kind == KMT_KIND_COUNT || kind == KMT_KIND_BYTES || kind == KMT_KIND_SIGNED;
}

/* One line: the rows of @t whose pid is @pid (any when @pc < 0), column @vc. */
static void line(FILE *fp, const struct kmt_table *t, int tc, int pc, unsigned long long pid,
		 int vc, double t0, double t1, double vmax, const char *color)
{
	int r, n = 0, k = 0, step;

	for (r = 0; r < t->rows; r++)
		n += pc < 0 || t->cells[r * t->ncols + pc].u == pid;
	step = n > MAX_POINTS ? (n + MAX_POINTS - 1) / MAX_POINTS : 1;
	fprintf(fp, "<path class=\"mark\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"", color);
	for (r = 0; r < t->rows; r++) {
		double x, y;

		if (pc >= 0 && t->cells[r * t->ncols + pc].u != pid)
			continue;
		if (k++ % step)
			continue;
		x = PAD + (t1 > t0 ? (number(t, r, tc) - t0) / (t1 - t0) : 0) * (W - 2 * PAD);
		y = H - PAD + 10 - (vmax > 0 ? number(t, r, vc) / vmax : 0) * (H - 2 * PAD);
		fprintf(fp, "%s%.1f %.1f", k == 1 ? "M" : " L", x, y);
	}
	fputs("\"/>\n", fp);
}

/* Up to MAX_LINES pids of @t with the largest values in column @vc. */
static int top_pids(const struct kmt_table *t, int pc, int vc, unsigned long long *pids,
		    double *peaks)
{
	int r, n = 0, i;

	for (r = 0; r < t->rows; r++) {
		unsigned long long pid = t->cells[r * t->ncols + pc].u;
		double v = number(t, r, vc);

		for (i = 0; i < n && pids[i] != pid; i++)
			;
		if (i == n && n < 64) {
			pids[n] = pid;
			peaks[n++] = v;
		} else if (i < n && v > peaks[i]) {
			peaks[i] = v;
		}
	}
	for (i = 1; i < n; i++) {	/* by peak, largest first (few: insertion) */
		unsigned long long p = pids[i];
		double v = peaks[i];
		int j = i;

		for (; j > 0 && peaks[j - 1] < v; j--) {
			pids[j] = pids[j - 1];
			peaks[j] = peaks[j - 1];
		}
		pids[j] = p;
		peaks[j] = v;
	}
	return n < MAX_LINES ? n : MAX_LINES;
}

static void legend(FILE *fp, int i, const char *label)
{
	fprintf(fp, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"%s\">", PAD + 10 + i * 95, 16,
		palette[i % NCOLORS]);
	kmt_html_text(fp, label);
	fputs("</text>\n", fp);
}

static void axes(FILE *fp, double t0, double t1, double vmax, enum kmt_kind kind)
{
	char top[64];

	kmt_output_cell_text(top, sizeof(top), kind, (union kmt_cell){ .u = (unsigned long long)vmax },
			     1, false);
	fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n"
		"<text x=\"4\" y=\"%d\" font-size=\"11\">%s</text>\n"
		"<text x=\"%d\" y=\"%d\" font-size=\"11\">0 s</text>\n"
		"<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.3f s</text>\n",
		PAD, H - PAD + 10, W - PAD, H - PAD + 10, PAD, PAD - 10, PAD, H - PAD + 10,
		PAD, top, PAD, H - PAD + 26, W - PAD, H - PAD + 26, (t1 - t0) / 1e9);
}

static void svg_timeline(FILE *fp, const struct kmt_table *t)
{
	int tc = kmt_table_time_column(t), pc = kmt_table_column(t, "pid"), vc, c, r, n, i;
	unsigned long long pids[64];
	double peaks[64], t0, t1, vmax = 0;

	for (vc = 0; vc < t->ncols && (vc == tc || vc == pc || !plottable(t->cols[vc].kind)); vc++)
		;
	if (tc < 0 || vc == t->ncols || !t->rows)
		return;
	t0 = number(t, 0, tc);
	t1 = number(t, t->rows - 1, tc);
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		W, H, W, H);
	if (pc >= 0) {		/* a line per process, of the first number column */
		n = top_pids(t, pc, vc, pids, peaks);
		vmax = n ? peaks[0] : 0;
		axes(fp, t0, t1, vmax, t->cols[vc].kind);
		for (i = 0; i < n; i++) {
			char label[64];

			snprintf(label, sizeof(label), "%s pid %llu", t->cols[vc].key, pids[i]);
			line(fp, t, tc, pc, pids[i], vc, t0, t1, vmax, palette[i % NCOLORS]);
			legend(fp, i, label);
		}
	} else {		/* totals: a line per number column */
		for (c = vc; c < t->ncols; c++)
			for (r = 0; plottable(t->cols[c].kind) && r < t->rows; r++)
				vmax = fmax(vmax, number(t, r, c));
		axes(fp, t0, t1, vmax, t->cols[vc].kind);
		for (c = vc, i = 0; c < t->ncols && i < MAX_LINES; c++) {
			if (!plottable(t->cols[c].kind))
				continue;
			line(fp, t, tc, -1, 0, c, t0, t1, vmax, palette[i % NCOLORS]);
			legend(fp, i++, t->cols[c].key);
		}
	}
	fputs("</svg>\n", fp);
}

/* One ring of column @vc by the first text column @lc: top slices and the rest. */
static void ring(FILE *fp, const struct kmt_table *t, int lc, int vc, double cx)
{
	int *order = malloc((t->rows ? t->rows : 1) * sizeof(*order)), r, i, j;
	double total = 0, shown = 0, a0 = -M_PI / 2;

	if (!order)
		return;
	for (r = 0; r < t->rows; r++) {		/* top slices: a partial selection */
		order[r] = r;
		total += number(t, r, vc);
	}
	for (i = 0; i < TOP_SLICES && i < t->rows; i++)
		for (j = i + 1; j < t->rows; j++)
			if (number(t, order[j], vc) > number(t, order[i], vc)) {
				int k = order[i];

				order[i] = order[j];
				order[j] = k;
			}
	fprintf(fp, "<text x=\"%.0f\" y=\"16\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
		cx, t->cols[vc].key);
	for (i = 0; total > 0 && i <= TOP_SLICES && i <= t->rows; i++) {
		double v = i < TOP_SLICES && i < t->rows ? number(t, order[i], vc) : total - shown;
		double a1 = a0 + 2 * M_PI * v / total;

		if (v <= 0 || a1 - a0 < 1e-4)
			continue;
		fprintf(fp, "<path class=\"mark\" fill=\"%s\" d=\"M %.1f %.1f A 90 90 0 %d 1 %.1f %.1f "
			"L %.1f %.1f A 50 50 0 %d 0 %.1f %.1f Z\"><title>",
			i < TOP_SLICES ? palette[i % NCOLORS] : "#ddd",
			cx + 90 * cos(a0), 120 + 90 * sin(a0), a1 - a0 > M_PI, cx + 90 * cos(a1),
			120 + 90 * sin(a1), cx + 50 * cos(a1), 120 + 50 * sin(a1), a1 - a0 > M_PI,
			cx + 50 * cos(a0), 120 + 50 * sin(a0));
		kmt_html_text(fp, i < TOP_SLICES && i < t->rows ?
			      t->cells[order[i] * t->ncols + lc].s : "the rest");
		fprintf(fp, ": %.0f (%.1f%%)</title></path>\n", v, 100 * v / total);
		shown += v;
		a0 = a1;
	}
	for (i = 0; total > 0 && i < RING_LEGEND && i < t->rows; i++) {	/* the largest, named */
		fprintf(fp, "<rect x=\"%.0f\" y=\"%d\" width=\"9\" height=\"9\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"%d\" font-size=\"10\">", cx - 110, 226 + i * 14,
			palette[i % NCOLORS], cx - 97, 235 + i * 14);
		kmt_html_text(fp, t->cells[order[i] * t->ncols + lc].s);
		fputs("</text>\n", fp);
	}
	free(order);
}

static void svg_rings(FILE *fp, const struct kmt_table *t)
{
	static const char *const wanted[] = { "bytes_alloc", "live_bytes", "live_waste", "bytes",
					      "pages", "objects" };
	int lc, cols[3], n = 0, i;

	for (lc = 0; lc < t->ncols && !kmt_kind_is_text(t->cols[lc].kind); lc++)
		;
	for (i = 0; i < 6 && n < 3; i++) {
		int c = kmt_table_column(t, wanted[i]);

		if (c >= 0)
			cols[n++] = c;
	}
	if (lc == t->ncols || !n || !t->rows)
		return;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"300\" viewBox=\"0 0 %d 300\">\n",
		n * 240, n * 240);
	for (i = 0; i < n; i++)
		ring(fp, t, lc, cols[i], 120 + i * 240);
	fputs("</svg>\n", fp);
}

/* The icicle's tree: a node per frame path, children listed from first_child. */
struct inode {
	char *name;
	double value;
	double change;		/* a diff's: new less base */
	int first_child, next;
};

struct itree {
	struct inode *n;
	uint32_t count, cap;
	bool diff;		/* coloured by change, not by depth */
};

/* An empty tree: its root alone. 0, or -1 when out of memory. */
static int tree_start(struct itree *tr)
{
	memset(tr, 0, sizeof(*tr));
	if (kmt_grow(&tr->n, &tr->cap, 0, sizeof(*tr->n)))
		return -1;
	tr->n[0] = (struct inode){ NULL, 0, 0, -1, -1 };
	tr->count = 1;
	return 0;
}

static void tree_free(struct itree *tr)
{
	uint32_t i;

	for (i = 0; i < tr->count; i++)
		free(tr->n[i].name);
	free(tr->n);
}

static int child(struct itree *tr, int parent, const char *name)
{
	int c;

	for (c = tr->n[parent].first_child; c >= 0; c = tr->n[c].next)
		if (!strcmp(tr->n[c].name, name))
			return c;
	if (tr->count >= 20000 || kmt_grow(&tr->n, &tr->cap, tr->count, sizeof(*tr->n)))
		return -1;
	c = tr->count++;
	tr->n[c] = (struct inode){ strdup(name), 0, 0, -1, tr->n[parent].first_child };
	tr->n[parent].first_child = c;
	return tr->n[c].name ? c : -1;
}

/*
 * Add stack @s (innermost first, '\n' between frames) with @v (and a
 * diff's change @dv) from the outermost frame.
 */
static void add_stack(struct itree *tr, const char *s, double v, double dv)
{
	char frames[ICICLE_DEPTH][256];
	const char *p = s;
	int n = 0, node = 0;

	while (n < ICICLE_DEPTH && kmt_stack_frame(&p, frames[n], sizeof(frames[n])))
		n++;
	tr->n[0].value += v;
	while (n-- > 0 && node >= 0) {
		node = child(tr, node, frames[n]);
		if (node >= 0) {
			tr->n[node].value += v;
			tr->n[node].change += dv;
		}
	}
}

#define GROWTH		"#e15759"
#define SHRINKAGE	"#4e79a7"
#define UNCHANGED	"#bab0ac"

static const char *fill(const struct itree *tr, int node, int depth)
{
	if (!tr->diff)
		return palette[(depth + node) % NCOLORS];
	return tr->n[node].change > 0 ? GROWTH : tr->n[node].change < 0 ? SHRINKAGE : UNCHANGED;
}

static void draw(FILE *fp, const struct itree *tr, int node, double x, double w, int depth)
{
	int c;

	if (w < 0.5 || depth > ICICLE_DEPTH)
		return;
	if (depth) {
		fprintf(fp, "<g><rect class=\"mark\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"%s\"><title>", x, (depth - 1) * ICICLE_ROW, w, ICICLE_ROW - 1,
			fill(tr, node, depth));
		kmt_html_text(fp, tr->n[node].name);
		fprintf(fp, ": %.0f", tr->n[node].value);
		if (tr->diff)
			fprintf(fp, " (%+.0f)", tr->n[node].change);
		fputs("</title></rect>", fp);
		if (w > 60) {
			fprintf(fp, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" clip-path=\"none\">",
				x + 3, (depth - 1) * ICICLE_ROW + 13);
			kmt_html_text(fp, tr->n[node].name);
			fputs("</text>", fp);
		}
		fputs("</g>\n", fp);
	}
	for (c = tr->n[node].first_child; c >= 0; c = tr->n[c].next) {
		double cw = tr->n[node].value > 0 ? w * tr->n[c].value / tr->n[node].value : 0;

		draw(fp, tr, c, x, cw, depth + 1);
		x += cw;
	}
}

static int depth_of(const struct itree *tr, int node)
{
	int c, d = 0;

	for (c = tr->n[node].first_child; c >= 0; c = tr->n[c].next) {
		int cd = depth_of(tr, c);

		d = cd > d ? cd : d;
	}
	return d + 1;
}

static void svg_icicle(FILE *fp, const struct kmt_table *t)
{
	int sc = kmt_table_stack_column(t), vc = t->weight, r, c, depth;
	struct itree tr = { 0 };

	for (c = 0; vc < 0 && c < t->ncols; c++)
		if (plottable(t->cols[c].kind))
			vc = c;
	if (sc < 0 || vc < 0 || !t->rows || tree_start(&tr))
		return;
	tr.diff = t->new_col >= 0;
	for (r = 0; r < t->rows; r++) {
		double v = number(t, r, vc), dv = 0;

		if (tr.diff) {	/* as wide as the larger side, coloured by the change */
			v = fmax(number(t, r, t->base_col), number(t, r, t->new_col));
			dv = number(t, r, t->new_col) - number(t, r, t->base_col);
		}
		add_stack(&tr, t->cells[r * t->ncols + sc].s, v, dv);
	}
	depth = depth_of(&tr, 0) - 1;
	depth = depth > ICICLE_DEPTH ? ICICLE_DEPTH : depth;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart icicle\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		W, depth * ICICLE_ROW, W, depth * ICICLE_ROW);
	draw(fp, &tr, 0, 0, W, 0);
	fputs("</svg>\n", fp);
	tree_free(&tr);
}

#define BAR_ROWS	15
#define BAR_H		16

/* Row @r's name in a chart: its first text column but "side", else its first number. */
static void row_name(FILE *fp, const struct kmt_table *t, int r)
{
	int c;

	for (c = 0; c < t->ncols; c++)
		if (kmt_kind_is_text(t->cols[c].kind) && strcmp(t->cols[c].key, "side")) {
			kmt_html_text(fp, t->cells[r * t->ncols + c].s);
			return;
		}
	fprintf(fp, "%s %.0f", t->cols[0].key, number(t, r, 0));
}

/*
 * A diff's table: each of its first rows' change of the compared figure, a
 * bar right of zero for growth, left for shrinkage, the name on the other side.
 */
static void svg_diverging(FILE *fp, const struct kmt_table *t)
{
	int n = t->rows < BAR_ROWS ? t->rows : BAR_ROWS, r;
	double most = 0, mid = W / 2.0, half = W / 2.0 - 10;

	for (r = 0; r < n; r++)
		most = fmax(most, fabs(number(t, r, t->new_col) - number(t, r, t->base_col)));
	if (most == 0)
		return;		/* nothing changed: no chart */
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart diverging\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		W, n * BAR_H + 4, W, n * BAR_H + 4);
	fprintf(fp, "<line x1=\"%.0f\" y1=\"0\" x2=\"%.0f\" y2=\"%d\" stroke=\"#666\"/>\n", mid, mid,
		n * BAR_H + 4);
	for (r = 0; r < n; r++) {
		double d = number(t, r, t->new_col) - number(t, r, t->base_col), w = half * fabs(d) / most;

		fprintf(fp, "<g><rect class=\"mark\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"%s\"><title>", d < 0 ? mid - w : mid, r * BAR_H + 2, w, BAR_H - 3,
			d < 0 ? SHRINKAGE : d > 0 ? GROWTH : UNCHANGED);
		row_name(fp, t, r);
		fprintf(fp, ": %+.0f %s</title></rect><text x=\"%.0f\" y=\"%d\" font-size=\"11\" "
			"text-anchor=\"%s\">", d, t->cols[t->new_col].key, d < 0 ? mid + 4 : mid - 4,
			r * BAR_H + 13, d < 0 ? "start" : "end");
		row_name(fp, t, r);
		fputs("</text></g>\n", fp);
	}
	fputs("</svg>\n", fp);
}

#define SUN_HOLE	24	/* radius inside the first ring */
#define SUN_RING	22
#define SUN_DEPTH	4
#define SUN_CHARTS	5

/* Add directory @dir ("fs/ext4/", or a name of its own) with @v from the top. */
static void add_dir(struct itree *tr, const char *dir, double v)
{
	char part[256];
	int node = 0;

	tr->n[0].value += v;
	while (*dir && node >= 0) {
		size_t n = strcspn(dir, "/");

		snprintf(part, sizeof(part), "%.*s", (int)n, dir);
		dir += n + (dir[n] == '/');
		if (!n)
			continue;
		node = child(tr, node, part);
		if (node >= 0)
			tr->n[node].value += v;
	}
}

/* The ring sector of @node from angle @a0 over @span, @depth rings out. */
static void sector(FILE *fp, const struct itree *tr, int node, double cx, double cy, double a0,
		   double span, int depth, const char *color)
{
	double r0 = SUN_HOLE + depth * SUN_RING, r1 = r0 + SUN_RING - 1, a1;

	span = fmin(span, 2 * M_PI - 1e-4);	/* a whole ring as one arc would vanish */
	a1 = a0 + span;
	fprintf(fp, "<path class=\"mark\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\" "
		"d=\"M %.1f %.1f A %.0f %.0f 0 %d 1 %.1f %.1f L %.1f %.1f A %.0f %.0f 0 %d 0 %.1f %.1f Z\">"
		"<title>", color, cx + r1 * cos(a0), cy + r1 * sin(a0), r1, r1, span > M_PI,
		cx + r1 * cos(a1), cy + r1 * sin(a1), cx + r0 * cos(a1), cy + r0 * sin(a1), r0, r0,
		span > M_PI, cx + r0 * cos(a0), cy + r0 * sin(a0));
	kmt_html_text(fp, tr->n[node].name);
	fprintf(fp, ": %.0f (%.1f%%)</title></path>\n", tr->n[node].value,
		100 * tr->n[node].value / tr->n[0].value);
}

/* @node's children as ring @depth, each inside its parent's angle; a colour per top directory. */
static void sun_rings(FILE *fp, const struct itree *tr, int node, double cx, double cy,
		      double a0, double span, int depth, int color)
{
	int c, i = 0;

	for (c = tr->n[node].first_child; c >= 0 && depth < SUN_DEPTH; c = tr->n[c].next, i++) {
		double cs = span * tr->n[c].value / tr->n[node].value;
		int own = depth ? color : i;

		if (cs > 1e-3) {
			sector(fp, tr, c, cx, cy, a0, cs, depth, palette[own % NCOLORS]);
			sun_rings(fp, tr, c, cx, cy, a0, cs, depth + 1, own);
		}
		a0 += cs;
	}
}

/*
 * A table of source directories (a "dir" column, "fs/ext4/" rows): a
 * sunburst per byte column, the top directories as the inner ring and
 * each level below as the next ring out.
 */
static void svg_sunbursts(FILE *fp, const struct kmt_table *t, int dc)
{
	int cols[SUN_CHARTS], n = 0, c, r, i;

	for (c = 0; c < t->ncols && n < SUN_CHARTS; c++)	/* sums, not means per hit */
		if (t->cols[c].kind == KMT_KIND_BYTES && !strstr(t->cols[c].key, "per_hit"))
			cols[n++] = c;
	if (!n || !t->rows)
		return;
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart sunburst\" width=\"%d\" height=\"270\" viewBox=\"0 0 %d 270\">\n",
		n * 240, n * 240);
	for (i = 0; i < n; i++) {
		struct itree tr;
		double cx = 120 + i * 240;

		if (tree_start(&tr))
			break;
		for (r = 0; r < t->rows; r++)
			add_dir(&tr, t->cells[r * t->ncols + dc].s, number(t, r, cols[i]));
		fprintf(fp, "<text x=\"%.0f\" y=\"16\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
			cx, t->cols[cols[i]].key);
		if (tr.n[0].value > 0)
			sun_rings(fp, &tr, 0, cx, 140, -M_PI / 2, 2 * M_PI, 0, 0);
		tree_free(&tr);
	}
	fputs("</svg>\n", fp);
}

void kmt_svg_chart(FILE *fp, const struct kmt_table *t)
{
	int dc = kmt_table_column(t, "dir");

	if (t->new_col >= 0 && kmt_table_stack_column(t) < 0)
		svg_diverging(fp, t);
	else if (kmt_table_time_column(t) >= 0 && !strcmp(t->name, "timeline"))
		svg_timeline(fp, t);
	else if (kmt_table_stack_column(t) >= 0)
		svg_icicle(fp, t);
	else if (dc >= 0 && kmt_kind_is_text(t->cols[dc].kind))
		svg_sunbursts(fp, t, dc);
	else if (!strcmp(t->name, "callers") || !strcmp(t->name, "caches"))
		svg_rings(fp, t);
}

/* A new file @dir/@section-@table.svg of @len bytes of @svg. 0, or -1 with @err. */
static int write_svg(const char *dir, const char *section, const char *table, const char *svg,
		     size_t len, struct kmt_error *err)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s-%s.svg", dir, section, table);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || kmt_write_all(fd, svg, len)) {
		kmt_error_set(err, path, -1, "cannot write: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

int kmt_svg_files(const struct kmt_output *out, const char *dir, struct kmt_error *err)
{
	int s, i, ret = 0;

	for (s = 0; s < out->nsections && !ret; s++) {
		const struct section *sec = &out->sections[s];

		for (i = 0; i < sec->ntables && !ret; i++) {
			char *svg = NULL;
			size_t len = 0;
			FILE *fp = open_memstream(&svg, &len);

			if (!fp) {
				kmt_error_set(err, dir, -1, "out of memory");
				return -1;
			}
			fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
			kmt_svg_chart(fp, sec->tables[i]);
			fclose(fp);
			if (strstr(svg, "<svg"))
				ret = write_svg(dir, sec->name, sec->tables[i]->name, svg, len, err);
			free(svg);
		}
	}
	return ret;
}
