// SPDX-License-Identifier: LGPL-2.1
/* kmtrace diff: keys that survive a rebuild, figures joined, budgets, folded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "diff/diff.h"
#include "suites.h"

/* A report: slab's summary and call sites, leak's processes and stacks. */
static const char base_json[] =
	"{\"kmtrace\": {\"version\": \"0.1\", \"schema_version\": 1, \"input\": \"a.dat\"},"
	" \"analyses\": {"
	"  \"slab\": {\"summary\": {\"live_bytes\": 1000, \"allocations\": 40,"
	"             \"waste_percent\": 12.5, \"cpu_nodes\": \"recorded\"},"
	"   \"tables\": {\"callers\": ["
	"     {\"callsite\": \"alloc_pipe_info+0x20/0x100\", \"bytes_alloc\": 640, \"alloc_per_hit\": 64,"
	"      \"hits\": 10, \"live_bytes\": 640, \"frag_percent\": 3.5},"
	"     {\"callsite\": \"alloc_pipe_info+0x60/0x100\", \"bytes_alloc\": 1920, \"alloc_per_hit\": 192,"
	"      \"hits\": 10, \"live_bytes\": 0, \"frag_percent\": 1},"
	"     {\"callsite\": \"old_func+0x8/0x10 [mod]\", \"bytes_alloc\": 50, \"alloc_per_hit\": 50,"
	"      \"hits\": 1, \"live_bytes\": 50, \"frag_percent\": 0}]},"
	"   \"units\": {\"summary\": {\"live_bytes\": \"bytes\", \"allocations\": \"count\","
	"                \"waste_percent\": \"percent\", \"cpu_nodes\": \"text\"},"
	"     \"tables\": {\"callers\": {\"callsite\": \"symbol\", \"bytes_alloc\": \"bytes\","
	"       \"alloc_per_hit\": \"bytes\", \"hits\": \"count\", \"live_bytes\": \"bytes\","
	"       \"frag_percent\": \"percent\"}}}},"
	"  \"leak\": {\"summary\": {},"
	"   \"tables\": {\"processes\": ["
	"     {\"pid\": 100, \"comm\": \"sh\", \"objects\": 3, \"bytes\": 300, \"tgid\": 100},"
	"     {\"pid\": 101, \"comm\": \"sh\", \"objects\": 2, \"bytes\": 200, \"tgid\": 101}],"
	"    \"stacks\": ["
	"     {\"objects\": 2, \"bytes\": 64, \"kind\": \"slab\","
	"      \"stack\": [\"kmalloc+0x1/0x2\", \"do_thing+0x10/0x40\", \"entry+0x5/0x9\"]},"
	"     {\"objects\": 1, \"bytes\": 32, \"kind\": \"slab\", \"stack\": [\"kfree_me+0x1/0x2\"]}]},"
	"   \"units\": {\"summary\": {}, \"tables\": {"
	"     \"processes\": {\"pid\": \"count\", \"comm\": \"text\", \"objects\": \"count\","
	"       \"bytes\": \"bytes\", \"tgid\": \"count\"},"
	"     \"stacks\": {\"objects\": \"count\", \"bytes\": \"bytes\", \"kind\": \"text\","
	"       \"stack\": \"stack\"}}}}}}";

/* The same after a rebuild (other offsets), a reboot (other pids) and a change. */
static const char new_json[] =
	"{\"kmtrace\": {\"version\": \"0.1\", \"schema_version\": 1, \"input\": \"b.dat\"},"
	" \"analyses\": {"
	"  \"slab\": {\"summary\": {\"live_bytes\": 1500, \"allocations\": 44,"
	"             \"waste_percent\": 10, \"cpu_nodes\": \"not recorded\"},"
	"   \"tables\": {\"callers\": ["
	"     {\"callsite\": \"alloc_pipe_info+0x24/0x108\", \"bytes_alloc\": 1280, \"alloc_per_hit\": 64,"
	"      \"hits\": 20, \"live_bytes\": 1280, \"frag_percent\": 3.5},"
	"     {\"callsite\": \"alloc_pipe_info+0x64/0x108\", \"bytes_alloc\": 1920, \"alloc_per_hit\": 192,"
	"      \"hits\": 10, \"live_bytes\": 0, \"frag_percent\": 1},"
	"     {\"callsite\": \"new_func+0x8/0x10\", \"bytes_alloc\": 7, \"alloc_per_hit\": 7,"
	"      \"hits\": 1, \"live_bytes\": 7, \"frag_percent\": 0}]},"
	"   \"units\": {\"summary\": {\"live_bytes\": \"bytes\", \"allocations\": \"count\","
	"                \"waste_percent\": \"percent\", \"cpu_nodes\": \"text\"},"
	"     \"tables\": {\"callers\": {\"callsite\": \"symbol\", \"bytes_alloc\": \"bytes\","
	"       \"alloc_per_hit\": \"bytes\", \"hits\": \"count\", \"live_bytes\": \"bytes\","
	"       \"frag_percent\": \"percent\"}}}},"
	"  \"leak\": {\"summary\": {},"
	"   \"tables\": {\"processes\": ["
	"     {\"pid\": 7, \"comm\": \"sh\", \"objects\": 9, \"bytes\": 900, \"tgid\": 7}],"
	"    \"stacks\": ["
	"     {\"objects\": 5, \"bytes\": 160, \"kind\": \"slab\","
	"      \"stack\": [\"kmalloc+0x1/0x2\", \"do_thing+0x18/0x48\", \"entry+0x5/0x9\"]}]},"
	"   \"units\": {\"summary\": {}, \"tables\": {"
	"     \"processes\": {\"pid\": \"count\", \"comm\": \"text\", \"objects\": \"count\","
	"       \"bytes\": \"bytes\", \"tgid\": \"count\"},"
	"     \"stacks\": {\"objects\": \"count\", \"bytes\": \"bytes\", \"kind\": \"text\","
	"       \"stack\": \"stack\"}}}}}}";

static struct kmt_diff_side *side(const char *name, const char *text)
{
	struct kmt_diff_side *s = NULL;
	struct kmt_error err;

	ck_assert_msg(!kmt_diff_side_parse(name, text, strlen(text), &s, &err), "%s", err.msg);
	return s;
}

static struct kmt_diff *join(struct kmt_diff_side **b, struct kmt_diff_side **n, bool exact)
{
	struct kmt_diff_options opts = { .exact_sites = exact, .scale = { 1, 1 } };
	struct kmt_error err;
	struct kmt_diff *d;

	*b = side("base.json", base_json);
	*n = side("new.json", new_json);
	d = kmt_diff_compute(*b, *n, &opts, &err);
	ck_assert_ptr_nonnull(d);
	return d;
}

static void unjoin(struct kmt_diff *d, struct kmt_diff_side *b, struct kmt_diff_side *n)
{
	kmt_diff_free(d);
	kmt_diff_side_free(b);
	kmt_diff_side_free(n);
}

/* 0 held, 1 broken, 2 no such row, -1 no such figure; @why filled. */
static int budget(const struct kmt_diff *d, const char *expr, char *why, size_t len)
{
	struct kmt_diff_budget *b = NULL;
	struct kmt_error err;
	int rc;

	ck_assert_msg(!kmt_diff_budget_parse(expr, &b, &err), "%s", err.msg);
	rc = kmt_diff_budget_check(b, d, why, len);
	kmt_diff_budget_free(b);
	return rc;
}

START_TEST(test_keys_survive_rebuild)
{
	struct kmt_diff_side *b, *n;
	struct kmt_diff *d = join(&b, &n, false);
	char why[512];

	/* both sites of alloc_pipe_info, offsets dropped: 20 -> 30 hits */
	ck_assert_int_eq(budget(d, "slab.callers[alloc_pipe_info].hits>+9", why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "20 -> 30 (+10, +50.0%)"), "%s", why);
	ck_assert_int_eq(budget(d, "slab.callers[alloc_pipe_info].hits>+10", why, sizeof(why)), 0);
	/* per-hit of joined rows: their bytes over their hits, (1280 + 1920) / 30 */
	ck_assert_int_eq(budget(d, "slab.callers[alloc_pipe_info].alloc_per_hit>106", why,
				sizeof(why)), 1);
	ck_assert_int_eq(budget(d, "slab.callers[alloc_pipe_info].alloc_per_hit>107", why,
				sizeof(why)), 0);
	/* a row of one side only: 0 on the other */
	ck_assert_int_eq(budget(d, "slab.callers[old_func].live_bytes<-49", why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "50 -> 0"), "%s", why);
	ck_assert_int_eq(budget(d, "slab.callers[new_func].live_bytes>=7", why, sizeof(why)), 1);
	/* processes by command: pids 100 and 101 are one "sh", then pid 7 */
	ck_assert_int_eq(budget(d, "leak.processes[sh].bytes>+399", why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "500 -> 900"), "%s", why);
	unjoin(d, b, n);
}
END_TEST

START_TEST(test_exact_sites)
{
	struct kmt_diff_side *b, *n;
	struct kmt_diff *d = join(&b, &n, true);
	char why[512];

	/* offsets kept: the rebuilt sites do not join */
	ck_assert_int_eq(budget(d, "slab.callers[alloc_pipe_info+0x20/0x100].hits<-9", why,
				sizeof(why)), 1);
	ck_assert_msg(strstr(why, "10 -> 0"), "%s", why);
	unjoin(d, b, n);
}
END_TEST

START_TEST(test_budgets)
{
	struct kmt_diff_side *b, *n;
	struct kmt_diff *d = join(&b, &n, false);
	struct kmt_diff_budget *bad = NULL;
	struct kmt_error err;
	char why[1024];

	ck_assert_int_eq(budget(d, "slab.live_bytes>+10%", why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "1000 -> 1500 (+500, +50.0%)"), "%s", why);
	ck_assert_int_eq(budget(d, "slab.live_bytes>+50%", why, sizeof(why)), 0);
	ck_assert_int_eq(budget(d, "slab.live_bytes>=+50%", why, sizeof(why)), 1);
	ck_assert_int_eq(budget(d, "slab.allocations>+4", why, sizeof(why)), 0);
	ck_assert_int_eq(budget(d, "slab.live_bytes>1K", why, sizeof(why)), 1);
	ck_assert_int_eq(budget(d, "slab.live_bytes>+1KiB", why, sizeof(why)), 0);
	ck_assert_int_eq(budget(d, "slab.live_bytes<-1%", why, sizeof(why)), 0);
	/* a noise floor: +50% but only 500 bytes */
	ck_assert_int_eq(budget(d, "slab.live_bytes>+10%,+500", why, sizeof(why)), 1);
	ck_assert_int_eq(budget(d, "slab.live_bytes>+10%,+501", why, sizeof(why)), 0);
	ck_assert_int_eq(budget(d, "slab.live_bytes>+10%,+1KiB", why, sizeof(why)), 0);
	/* ratios are left out: their parts are compared */
	ck_assert_int_eq(budget(d, "slab.waste_percent>0", why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "has no figure waste_percent; it has: live_bytes, allocations"),
		      "%s", why);
	ck_assert_int_eq(budget(d, "slab.callers[nothing].hits>0", why, sizeof(why)), 2);
	ck_assert_int_eq(budget(d, "oom.kills>0", why, sizeof(why)), -1);
	ck_assert_int_eq(kmt_diff_budget_parse("slab.live_bytes", &bad, &err), -1);
	ck_assert_int_eq(kmt_diff_budget_parse("slab.live_bytes>10%", &bad, &err), -1);
	ck_assert_int_eq(kmt_diff_budget_parse("slab.live_bytes>+4XB", &bad, &err), -1);
	ck_assert_int_eq(kmt_diff_budget_parse(">1", &bad, &err), -1);
	ck_assert_int_eq(kmt_diff_budget_parse("slab.callers[x.hits>1", &bad, &err), -1);
	ck_assert_int_eq(kmt_diff_budget_parse("slab.live_bytes>+1%,5%", &bad, &err), -1);
	ck_assert_int_eq(kmt_diff_budget_parse("slab.live_bytes>+1%,", &bad, &err), -1);
	unjoin(d, b, n);
}
END_TEST

/*
 * The folded stacks' lines ("stack BASE NEW", through the output layer) sum
 * to each side's stack table totals of its sort figure.
 */
START_TEST(test_folded_sums)
{
	struct kmt_diff_side *b, *n;
	struct kmt_diff *d = join(&b, &n, false);
	char *text = NULL, *line;
	long long sum[2] = { 0, 0 };
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	struct kmt_output *out = fp ? kmt_output_new(KMT_FORMAT_FOLDED, fp, 0) : NULL;
	struct kmt_error err;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(kmt_diff_emit(d, out, NULL, &err), 0);
	ck_assert_int_eq(kmt_output_finish(out, &err), 0);
	fclose(fp);
	ck_assert_msg(strstr(text, "entry;do_thing;kmalloc 64 160\n"), "%s", text);
	ck_assert_msg(strstr(text, "kfree_me 32 0\n"), "%s", text);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		long long x, y;

		ck_assert_int_eq(sscanf(strrchr(line, ' '), " %lld", &y), 1);
		*strrchr(line, ' ') = '\0';
		ck_assert_int_eq(sscanf(strrchr(line, ' '), " %lld", &x), 1);
		sum[0] += x;
		sum[1] += y;
	}
	ck_assert_int_eq(sum[0], 64 + 32);
	ck_assert_int_eq(sum[1], 160);
	free(text);
	unjoin(d, b, n);
}
END_TEST

START_TEST(test_bad_json)
{
	struct kmt_diff_side *s = NULL;
	struct kmt_error err;

	ck_assert_int_eq(kmt_diff_side_parse("x.json", "{\"kmtrace\": [1, 2", 17, &s, &err), -1);
	ck_assert_str_eq(err.file, "x.json");
	ck_assert_int_eq(err.offset, 17);
	ck_assert_int_eq(kmt_diff_side_parse("x.json", "{} {}", 5, &s, &err), -1);
	ck_assert_int_eq(err.offset, 3);
	ck_assert_int_eq(kmt_diff_side_parse("x.json", "{\"a\": 1}", 8, &s, &err), -1);
	ck_assert_msg(strstr(err.msg, "not a report"), "%s", err.msg);
	ck_assert_int_eq(kmt_diff_side_parse("x.json", "{\"kmtrace\": {\"schema_version\": 9},"
					     " \"analyses\": {}}", 50, &s, &err), -1);
	ck_assert_msg(strstr(err.msg, "version 9"), "%s", err.msg);
	ck_assert_ptr_null(s);
}
END_TEST

/* Scaling: summed figures per iteration, the rest as they are. */
START_TEST(test_scale)
{
	struct kmt_diff_options opts = { .scale = { 0.5, 0.25 } };
	struct kmt_diff_side *b = side("b", base_json), *n = side("n", new_json);
	struct kmt_error err;
	struct kmt_diff *d = kmt_diff_compute(b, n, &opts, &err);
	char why[512];

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(budget(d, "slab.live_bytes<0", why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "500 -> 375 (-125"), "%s", why);
	unjoin(d, b, n);
}
END_TEST

Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("join");

	tcase_add_test(tc, test_keys_survive_rebuild);
	tcase_add_test(tc, test_exact_sites);
	tcase_add_test(tc, test_budgets);
	tcase_add_test(tc, test_folded_sums);
	tcase_add_test(tc, test_bad_json);
	tcase_add_test(tc, test_scale);
	suite_add_tcase(s, tc);
	return s;
}
