// SPDX-License-Identifier: LGPL-2.1
/*
 * The HTML report: one self-contained page (styles and script inline, charts
 * as inline SVG, nothing fetched). At the top what was reported on and, when
 * stat ran, the recording's CPUs, duration, events and lost events (marked
 * when there are any); then per analysis its summary, its charts (timelines,
 * rings of call-site tables, an icicle of stack tables) and every table,
 * sortable by a click on a column and cut at MAX_ROWS rows.
 */
#include <string.h>

#include "output_local.h"

#define MAX_ROWS	1000

static const char style[] =
	"body{font:14px sans-serif;margin:20px;color:#222}"
	"h1{font-size:20px}h2{font-size:17px;border-bottom:1px solid #ccc;margin-top:32px}"
	"h3{font-size:14px;margin:18px 0 6px}"
	"table{border-collapse:collapse;margin:6px 0}"
	"td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"th{cursor:pointer;background:#f4f4f4;white-space:nowrap}"
	".alert{color:#b00;font-weight:bold}.note{color:#666;font-size:12px}"
	"td pre{margin:0;font:12px monospace}svg.chart{display:block;margin:8px 0}";

static const char script[] =
	"document.querySelectorAll('table.data th').forEach(function(th){"
	"th.addEventListener('click',function(){"
	"var table=th.closest('table'),body=table.tBodies[0],col=th.cellIndex,"
	"asc=th.dataset.dir!=='asc';th.dataset.dir=asc?'asc':'desc';"
	"var rows=Array.prototype.slice.call(body.rows);"
	"rows.sort(function(a,b){var x=a.cells[col].dataset.v,y=b.cells[col].dataset.v,r;"
	"if(x!==undefined&&y!==undefined)r=Number(x)-Number(y);"
	"else r=a.cells[col].textContent.localeCompare(b.cells[col].textContent);"
	"return asc?r:-r;});"
	"rows.forEach(function(r){body.appendChild(r);});});});"
	"document.body.dataset.ready='1';";	/* the tests see the script ran to its end */

void kmt_html_text(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		int n = kmt_utf8_length(s);

		if (*s == '<')
			fputs("&lt;", fp);
		else if (*s == '>')
			fputs("&gt;", fp);
		else if (*s == '&')
			fputs("&amp;", fp);
		else if (*s == '"')
			fputs("&quot;", fp);
		else if (!n || *s < 0x20)
			fprintf(fp, *s == '\n' || *s == '\t' ? "%c" : "\\x%02x", *s);
		else
			fwrite(s, 1, n, fp);
		s += n ? n : 1;
	}
}

static const struct section *find_section(const struct kmt_output *out, const char *name)
{
	int s;

	for (s = 0; s < out->nsections; s++)
		if (!strcmp(out->sections[s].name, name))
			return &out->sections[s];
	return NULL;
}

static const struct value *find_value(const struct section *sec, const char *key)
{
	int i;

	for (i = 0; sec && i < sec->nvalues; i++)
		if (!strcmp(sec->values[i].key, key))
			return &sec->values[i];
	return NULL;
}

/* A header line @label of stat's value @key, marked when @alert and not zero. */
static void header_value(FILE *fp, const struct section *stat, const char *key,
			 const char *label, bool alert)
{
	const struct value *v = find_value(stat, key);
	char buf[256];

	if (!v)
		return;
	kmt_output_cell_text(buf, sizeof(buf), v->kind, v->cell, 1, false);
	fprintf(fp, "<tr><th>%s</th><td%s>", label,
		alert && !kmt_kind_is_text(v->kind) && v->cell.u ? " class=\"alert\"" : "");
	kmt_html_text(fp, buf);
	fputs("</td></tr>\n", fp);
}

static void page_header(FILE *fp, const struct kmt_output *out)
{
	const struct section *stat = find_section(out, "stat");

	fputs("<h1>kmtrace report</h1>\n<table class=\"head\">\n<tr><th>Input</th><td>", fp);
	kmt_html_text(fp, out->input ? out->input : "?");
	fputs("</td></tr>\n<tr><th>Kernel</th><td>", fp);
	kmt_html_text(fp, out->kernel ? out->kernel : "not recorded");
	fputs("</td></tr>\n", fp);
	header_value(fp, stat, "format", "Format", false);
	header_value(fp, stat, "cpus", "CPUs", false);
	header_value(fp, stat, "duration_ns", "Duration", false);
	header_value(fp, stat, "total_events", "Events", false);
	header_value(fp, stat, "lost_events", "Lost events", true);
	header_value(fp, find_section(out, "page"), "vmstat_check", "Check against /proc/vmstat",
		     false);
	fputs("</table>\n", fp);
	if (!stat && !find_section(out, "footprint"))	/* a recording's, not an image's */
		fputs("<p class=\"note\">Add the stat analysis for the recording's CPUs, duration "
		      "and lost events.</p>\n", fp);
}

static void summary(FILE *fp, const struct section *sec)
{
	char buf[512];
	int i;

	if (!sec->nvalues)
		return;
	fputs("<details><summary>summary</summary><table class=\"summary\">\n", fp);
	for (i = 0; i < sec->nvalues; i++) {
		kmt_output_cell_text(buf, sizeof(buf), sec->values[i].kind, sec->values[i].cell,
				     1, false);
		fputs("<tr><th>", fp);
		kmt_html_text(fp, kmt_value_label(&sec->values[i]));
		fputs("</th><td>", fp);
		kmt_html_text(fp, buf);
		fputs("</td></tr>\n", fp);
	}
	fputs("</table></details>\n", fp);
}

static void cell(FILE *fp, enum kmt_kind kind, union kmt_cell c)
{
	char buf[512];

	kmt_output_cell_text(buf, sizeof(buf), kind, c, 1, false);
	if (kind == KMT_KIND_STACK) {
		fputs("<td><pre>", fp);
		kmt_html_text(fp, c.s);
		fputs("</pre></td>", fp);
	} else if (kmt_kind_is_text(kind)) {
		fputs("<td>", fp);
		kmt_html_text(fp, buf);
		fputs("</td>", fp);
	} else {
		if (kind == KMT_KIND_SIGNED)
			fprintf(fp, "<td class=\"n\" data-v=\"%lld\">", c.i);
		else if (kind == KMT_KIND_PERCENT)
			fprintf(fp, "<td class=\"n\" data-v=\"%.6g\">", c.d == c.d ? c.d : 0.0);
		else
			fprintf(fp, "<td class=\"n\" data-v=\"%llu\">", c.u);
		kmt_html_text(fp, buf);
		fputs("</td>", fp);
	}
}

static void table(FILE *fp, const struct kmt_table *t)
{
	int r, c;

	fputs("<h3>", fp);
	kmt_html_text(fp, t->title ? t->title : t->name);
	fputs("</h3>\n", fp);
	kmt_svg_chart(fp, t);
	fputs("<table class=\"data\"><thead><tr>", fp);
	for (c = 0; c < t->ncols; c++) {
		fputs("<th>", fp);
		kmt_html_text(fp, t->cols[c].header);
		fputs("</th>", fp);
	}
	fputs("</tr></thead><tbody>\n", fp);
	for (r = 0; r < t->rows && r < MAX_ROWS; r++) {
		fputs("<tr>", fp);
		for (c = 0; c < t->ncols; c++)
			cell(fp, t->cols[c].kind, t->cells[r * t->ncols + c]);
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table>\n", fp);
	if (t->rows > MAX_ROWS)
		fprintf(fp, "<p class=\"note\">%d more rows: the CSV and JSON outputs have them "
			"all.</p>\n", t->rows - MAX_ROWS);
}

static void section(FILE *fp, const struct section *sec)
{
	int i;

	fputs("<h2>", fp);
	kmt_html_text(fp, sec->name);
	fputs("</h2>\n", fp);
	summary(fp, sec);
	for (i = 0; i < sec->ntables; i++)
		table(fp, sec->tables[i]);
}

void kmt_render_html(struct kmt_output *out)
{
	FILE *fp = out->fp;
	int s;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>kmtrace "
	      "report: ", fp);
	kmt_html_text(fp, out->input ? out->input : "");
	fprintf(fp, "</title>\n<style>%s</style></head>\n<body>\n", style);
	page_header(fp, out);
	for (s = 0; s < out->nsections; s++)
		if (strcmp(out->sections[s].name, "stat"))
			section(fp, &out->sections[s]);
	if (find_section(out, "stat")) {	/* its figures are in the header: the rest folded */
		fputs("<details><summary>stat: all of it</summary>\n", fp);
		section(fp, find_section(out, "stat"));
		fputs("</details>\n", fp);
	}
	fprintf(fp, "<p class=\"note\">kmtrace %s</p>\n<script>%s</script>\n</body></html>\n",
		KMT_VERSION, script);
}
