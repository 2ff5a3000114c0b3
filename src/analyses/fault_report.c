// SPDX-License-Identifier: LGPL-2.1
/* fault: the summary, the rusage check and the tables. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "latency.h"
#include "common/util.h"

static uint64_t mean(const struct fault_counts *c)
{
	return c->lat_n ? c->lat_sum / c->lat_n : 0;
}

static int report_classes(const struct fault_state *st, struct kmt_output *out)
{
	static const char *const labels[FC_NR] = {
		"  user mode", "  kernel mode", "  read", "  write", "  instruction fetch",
		"  page not present", "  protection violation", "  reserved bit set",
		"  protection key", "  shadow stack", "  SGX", "  class unknown (not x86)",
	};
	int c;

	if (kmt_output_count(out, "faults", "Faults", st->total.faults))
		return -1;
	for (c = 0; c < FC_NR; c++)
		if (kmt_output_count(out, kmt_fault_class_keys[c], labels[c], st->total.cls[c]))
			return -1;
	return 0;
}

static int report_outcomes(const struct fault_state *st, struct kmt_output *out)
{
	static const char *const labels[FAULT_OUTCOME_NR] = {
		"  minor", "  major", "  OOM", "  SIGBUS", "  SIGSEGV", "  hardware poison",
		"  unresolved (error or not handled)",
	};
	int o;

	if (kmt_output_string(out, "outcome_source", "Outcomes from", st->source_text) ||
	    (st->source == FS_PERF &&
	     (kmt_output_count(out, "perf_samples", "  perf samples in the recording",
			       st->nsamples) ||
	      kmt_output_count(out, "perf_lost", "  perf samples lost", st->perf_lost))))
		return -1;
	if (st->source == FS_NONE)
		return kmt_output_string(out, "outcomes", "Minor/major", "unavailable");
	for (o = 0; o < FAULT_OUTCOME_NR; o++) {
		/* perf samples only accounted faults: its errors are all "unresolved". */
		if (st->source == FS_PERF && o > FAULT_MAJOR && o < FAULT_UNRESOLVED)
			continue;
		if (kmt_output_count(out, kmt_fault_outcome_keys[o], labels[o], st->total.out[o]))
			return -1;
	}
	if (st->source == FS_KPROBE &&
	    kmt_output_count(out, "retried", "  retried (counted major)", st->total.retried))
		return -1;
	return kmt_output_count(out, "minor_without_event",
				"Accounted minor faults with no fault event", st->without_event[0]) ||
	       kmt_output_count(out, "major_without_event",
				"Accounted major faults with no fault event", st->without_event[1]);
}

static int report_latency(struct fault_state *st, struct kmt_output *out)
{
	uint64_t p50, p99;

	if (st->source == FS_NONE)
		return 0;
	if (kmt_latencies_overall(&st->lat, &p50, &p99))
		return -1;
	return kmt_output_count(out, "latency_count", "Service latency: faults timed",
				st->total.lat_n) ||
	       kmt_output_ns(out, "latency_mean", "  mean", mean(&st->total)) ||
	       kmt_output_ns(out, "latency_p50", "  p50", p50) ||
	       kmt_output_ns(out, "latency_p99", "  p99", p99) ||
	       kmt_output_ns(out, "latency_max", "  max", st->total.lat_max);
}

/* The command's rusage against the accounted faults traced for its tasks. */
static int report_rusage(const struct fault_state *st, struct kmt_output *out)
{
	long long unt_min = st->ru_minflt - st->before_minflt - (long long)st->command_out[0];
	long long unt_maj = st->ru_majflt - st->before_majflt - (long long)st->command_out[1];

	if (!st->have_rusage || st->source == FS_NONE)
		return 0;
	return kmt_output_count(out, "command_pid", "Command (rusage from wait4)", st->rusage_pid) ||
	       kmt_output_count(out, "rusage_minflt", "  rusage minor faults", st->ru_minflt) ||
	       kmt_output_count(out, "traced_minor", "  traced minor (its tasks)",
				st->command_out[0]) ||
	       kmt_output_count(out, "before_minflt", "  minor before tracing began",
				st->before_minflt) ||
	       kmt_output_signed(out, "untraced_minor", "  minor not traced", unt_min) ||
	       kmt_output_count(out, "command_execs",
				"    execve() calls traced (argument pages: no event)",
				st->command_execs) ||
	       kmt_output_count(out, "rusage_majflt", "  rusage major faults", st->ru_majflt) ||
	       kmt_output_count(out, "traced_major", "  traced major (its tasks)",
				st->command_out[1]) ||
	       kmt_output_count(out, "before_majflt", "  major before tracing began",
				st->before_majflt) ||
	       kmt_output_signed(out, "untraced_major", "  major not traced", unt_maj);
}

static int by_faults(uint32_t a, uint32_t b, void *ctx)
{
	const struct fault_counts *x = ((const struct fault_counts **)ctx)[a];
	const struct fault_counts *y = ((const struct fault_counts **)ctx)[b];

	if (x->faults != y->faults)
		return x->faults < y->faults ? 1 : -1;
	return a < b ? -1 : a > b;
}

/* Indexes of @n counts (every @stride bytes from @first) by faults, most first. */
/* Indexes of the @n @stride-byte items at @items (counts at @at in each) by faults. */
static uint32_t *sort_by_faults(const void *items, size_t at, size_t stride, uint32_t n)
{
	const struct fault_counts **c = malloc((n ? n : 1) * sizeof(*c));
	uint32_t *idx, i;

	if (!c)
		return NULL;
	for (i = 0; i < n; i++)
		c[i] = (const void *)((const char *)items + i * stride + at);
	idx = kmt_sorted_index(n, by_faults, c);
	free(c);
	return idx;
}

static const struct kmt_column proc_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
	{ "faults", "FAULTS", KMT_KIND_COUNT }, { "user", "USER", KMT_KIND_COUNT },
	{ "kernel", "KERNEL", KMT_KIND_COUNT }, { "read", "READ", KMT_KIND_COUNT },
	{ "write", "WRITE", KMT_KIND_COUNT }, { "exec", "EXEC", KMT_KIND_COUNT },
	{ "not_present", "NOT_PRESENT", KMT_KIND_COUNT },
	{ "protection", "PROT", KMT_KIND_COUNT }, { "minor", "MINOR", KMT_KIND_COUNT },
	{ "major", "MAJOR", KMT_KIND_COUNT }, { "errors", "ERRORS", KMT_KIND_COUNT },
	{ "unresolved", "UNRESOLVED", KMT_KIND_COUNT },
	{ "lat_mean", "LAT_MEAN", KMT_KIND_NS }, { "lat_p50", "LAT_P50", KMT_KIND_NS },
	{ "lat_p99", "LAT_P99", KMT_KIND_NS }, { "lat_max", "LAT_MAX", KMT_KIND_NS },
};

static uint64_t errors(const struct fault_counts *c)
{
	return c->out[FAULT_OOM] + c->out[FAULT_SIGBUS] + c->out[FAULT_SIGSEGV] +
	       c->out[FAULT_HWPOISON];
}

static int report_procs(struct fault_state *st, struct kmt_output *out)
{
	uint32_t *idx = kmt_sorted_index(st->nprocs, kmt_fault_proc_rank, st), i;
	struct kmt_table *t;
	int ret = 0;

	t = idx ? kmt_output_table(out, "processes", "Faults per process",
				   sizeof(proc_cols) / sizeof(proc_cols[0]), proc_cols) : NULL;
	if (st->lat.n && kmt_latencies_sort(&st->lat))
		t = NULL;
	for (i = 0; t && i < st->nprocs && i < (uint64_t)st->lines && !ret; i++) {
		const struct fault_proc *p = &st->procs[idx[i]];
		const struct fault_counts *c = &p->c;
		uint64_t p50, p99;

		if (!p->seq)	/* given back: the rest are too */
			break;
		if ((ret = kmt_latencies_row(&st->lat, p->seq, &p50, &p99)))
			break;
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = p->pid }, { .s = p->comm }, { .u = c->faults },
			{ .u = c->cls[FC_USER] }, { .u = c->cls[FC_KERNEL] },
			{ .u = c->cls[FC_READ] }, { .u = c->cls[FC_WRITE] },
			{ .u = c->cls[FC_EXEC] }, { .u = c->cls[FC_NOT_PRESENT] },
			{ .u = c->cls[FC_PROTECTION] }, { .u = c->out[FAULT_MINOR] },
			{ .u = c->out[FAULT_MAJOR] }, { .u = errors(c) },
			{ .u = c->out[FAULT_UNRESOLVED] }, { .u = mean(c) }, { .u = p50 },
			{ .u = p99 }, { .u = c->lat_max } });
	}
	free(idx);
	return t ? ret : -1;
}

static const char *prot_text(unsigned int prot, char *buf)
{
	buf[0] = prot & 1 ? 'r' : '-';
	buf[1] = prot & 2 ? 'w' : '-';
	buf[2] = prot & 4 ? 'x' : '-';
	buf[3] = '\0';
	return buf;
}

static const struct kmt_column region_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "kind", "KIND", KMT_KIND_STRING },
	{ "start", "START", KMT_KIND_ADDRESS }, { "end", "END", KMT_KIND_ADDRESS },
	{ "fd", "FD", KMT_KIND_SIGNED }, { "prot", "PROT", KMT_KIND_STRING },
	{ "faults", "FAULTS", KMT_KIND_COUNT }, { "user", "USER", KMT_KIND_COUNT },
	{ "kernel", "KERNEL", KMT_KIND_COUNT }, { "read", "READ", KMT_KIND_COUNT },
	{ "write", "WRITE", KMT_KIND_COUNT }, { "exec", "EXEC", KMT_KIND_COUNT },
	{ "not_present", "NOT_PRESENT", KMT_KIND_COUNT },
	{ "protection", "PROT", KMT_KIND_COUNT }, { "minor", "MINOR", KMT_KIND_COUNT },
	{ "major", "MAJOR", KMT_KIND_COUNT }, { "unresolved", "UNRESOLVED", KMT_KIND_COUNT },
};

static int report_regions(struct fault_state *st, struct kmt_output *out)
{
	uint32_t *idx = sort_by_faults(st->regions, offsetof(struct fault_region, c),
				       sizeof(*st->regions), st->nregions), i;
	struct kmt_table *t;
	int ret = 0;

	t = idx ? kmt_output_table(out, "regions", "Faults per region",
				   sizeof(region_cols) / sizeof(region_cols[0]), region_cols) : NULL;
	for (i = 0; t && i < st->nregions && i < (uint64_t)st->lines && !ret; i++) {
		const struct fault_region *r = &st->regions[idx[i]];
		char prot[4];

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = r->pid }, { .s = r->kind }, { .u = r->start }, { .u = r->end },
			{ .i = r->fd }, { .s = prot_text(r->prot, prot) }, { .u = r->c.faults },
			{ .u = r->c.cls[FC_USER] }, { .u = r->c.cls[FC_KERNEL] },
			{ .u = r->c.cls[FC_READ] }, { .u = r->c.cls[FC_WRITE] },
			{ .u = r->c.cls[FC_EXEC] }, { .u = r->c.cls[FC_NOT_PRESENT] },
			{ .u = r->c.cls[FC_PROTECTION] }, { .u = r->c.out[FAULT_MINOR] },
			{ .u = r->c.out[FAULT_MAJOR] }, { .u = r->c.out[FAULT_UNRESOLVED] } });
	}
	free(idx);
	return t ? ret : -1;
}

static const struct kmt_column ip_cols[] = {
	{ "ip", "IP", KMT_KIND_SYMBOL }, { "faults", "FAULTS", KMT_KIND_COUNT },
	{ "user", "USER", KMT_KIND_COUNT }, { "kernel", "KERNEL", KMT_KIND_COUNT },
	{ "minor", "MINOR", KMT_KIND_COUNT }, { "major", "MAJOR", KMT_KIND_COUNT },
	{ "lat_mean", "LAT_MEAN", KMT_KIND_NS },
};

static int report_ips(struct fault_state *st, const struct kmt_session *s,
		      struct kmt_output *out)
{
	uint32_t *idx = sort_by_faults(st->ips, offsetof(struct fault_ip, c),
				       sizeof(*st->ips), st->nips), i;
	struct kmt_table *t;
	int ret = 0;

	t = idx ? kmt_output_table(out, "ips", "Faults per instruction",
				   sizeof(ip_cols) / sizeof(ip_cols[0]), ip_cols) : NULL;
	for (i = 0; t && i < st->nips && i < (uint64_t)st->lines && !ret; i++) {
		const struct fault_ip *p = &st->ips[idx[i]];
		char sym[160];

		/* User addresses mean nothing to kallsyms: shown as they are. */
		if (!s || p->ip < (1ull << 63) || !kmt_session_symbol(s, p->ip, sym,
								     sizeof(sym)))
			snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)p->ip);
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .s = sym }, { .u = p->c.faults }, { .u = p->c.cls[FC_USER] },
			{ .u = p->c.cls[FC_KERNEL] }, { .u = p->c.out[FAULT_MINOR] },
			{ .u = p->c.out[FAULT_MAJOR] }, { .u = mean(&p->c) } });
	}
	free(idx);
	return t ? ret : -1;
}

static int report_timeline(const struct fault_state *st, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "start", "INTERVAL_START", KMT_KIND_NS }, { "faults", "FAULTS", KMT_KIND_COUNT },
		{ "minor", "MINOR", KMT_KIND_COUNT }, { "major", "MAJOR", KMT_KIND_COUNT },
		{ "other", "OTHER", KMT_KIND_COUNT },
	};
	struct kmt_table *t = kmt_output_table(out, "timeline", "Faults per interval with faults",
					       5, cols);
	uint32_t i;
	int ret = 0;

	for (i = 0; t && i < st->nintervals && !ret; i++) {
		const struct fault_interval *iv = &st->intervals[i];

		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = st->first_ts + iv->index * st->interval_ns }, { .u = iv->faults },
			{ .u = iv->minor }, { .u = iv->major }, { .u = iv->other } });
	}
	return t ? ret : -1;
}

int kmt_fault_report(struct fault_state *st, const struct kmt_session *s, struct kmt_output *out)
{
	if (report_classes(st, out) ||
	    report_outcomes(st, out) || report_latency(st, out) || report_rusage(st, out) ||
	    report_procs(st, out))
		return -1;
	if (st->want_regions && report_regions(st, out))
		return -1;
	if (st->want_ip && report_ips(st, s, out))
		return -1;
	if (st->interval_ns && report_timeline(st, out))
		return -1;
	return 0;
}
