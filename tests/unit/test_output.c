// SPDX-License-Identifier: LGPL-2.1
/* Output layer: one description, three renderings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include <kmtrace/output.h>
#include "suites.h"

static const struct kmt_column cols[] = {
	{ "site", "SITE", KMT_KIND_STRING },
	{ "bytes", "BYTES", KMT_KIND_BYTES },
	{ "share", "SHARE", KMT_KIND_PERCENT },
};

/* A table whose column array dies before rendering: the layer must copy it. */
static void add_calls_table(struct kmt_output *out)
{
	struct kmt_column calls[2] = {
		{ "callsite", "CALLSITE", KMT_KIND_SYMBOL },
		{ "hits", "HITS", KMT_KIND_COUNT },
	};
	struct kmt_table *t = kmt_output_table(out, "calls", NULL, 2, calls);
	char sym[32];

	ck_assert_ptr_nonnull(t);
	strcpy(sym, "kfree+0x10 [mod]");
	ck_assert_int_eq(kmt_table_row(t, (union kmt_cell[]){ { .s = sym }, { .u = 3 } }), 0);
	strcpy(sym, "overwritten");
	memset(calls, 0, sizeof(calls));
}

static char *render(enum kmt_format format, int human)
{
	struct kmt_output *out;
	struct kmt_table *t;
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	union kmt_cell row1[3] = { { .s = "a,\"b\"" }, { .u = 2048 }, { .d = 12.5 } };
	union kmt_cell row2[3] = { { .s = "plain" }, { .u = 7 }, { .d = 87.5 } };

	ck_assert_ptr_nonnull(fp);
	out = kmt_output_new(format, fp, human);
	ck_assert_int_eq(kmt_output_begin(out, "demo"), 0);
	ck_assert_int_eq(kmt_output_value(out, "total", "Total", KMT_KIND_COUNT,
					  (union kmt_cell){ .u = 42 }), 0);
	ck_assert_int_eq(kmt_output_value(out, "name", "Name", KMT_KIND_STRING,
					  (union kmt_cell){ .s = "x\ty" }), 0);
	add_calls_table(out);
	t = kmt_output_table(out, "sites", "Sites", 3, cols);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(kmt_table_row(t, row1), 0);
	ck_assert_int_eq(kmt_table_row(t, row2), 0);
	ck_assert_int_eq(kmt_output_finish(out), 0);
	fclose(fp);
	return text;
}

START_TEST(test_json)
{
	char *s = render(KMT_FORMAT_JSON, 1);

	ck_assert_ptr_nonnull(strstr(s, "{\"analyses\": {"));
	ck_assert_ptr_nonnull(strstr(s, "\"demo\": {"));
	ck_assert_ptr_nonnull(strstr(s, "\"summary\": {\"total\": 42, \"name\": \"x\\u0009y\"}"));
	ck_assert_ptr_nonnull(strstr(s, "\"calls\": [\n        {\"callsite\": \"kfree+0x10 [mod]\", \"hits\": 3}\n      ]"));
	/* JSON keeps raw integers even when text would show human sizes. */
	ck_assert_ptr_nonnull(strstr(s, "{\"site\": \"a,\\\"b\\\"\", \"bytes\": 2048, \"share\": 12.5}"));
	free(s);
}
END_TEST

START_TEST(test_csv)
{
	char *s = render(KMT_FORMAT_CSV, 1);

	ck_assert_ptr_nonnull(strstr(s, "table,key,value\ndemo.summary,total,42\n"));
	ck_assert_ptr_nonnull(strstr(s, "\n\ntable,callsite,hits\ndemo.calls,kfree+0x10 [mod],3\n"));
	ck_assert_ptr_nonnull(strstr(s, "\n\ntable,site,bytes,share\n"
				     "demo.sites,\"a,\"\"b\"\"\",2048,12.5000\n"
				     "demo.sites,plain,7,87.5000\n"));
	free(s);
}
END_TEST

START_TEST(test_text)
{
	char *plain = render(KMT_FORMAT_TEXT, 0), *human = render(KMT_FORMAT_TEXT, 1);

	ck_assert_ptr_nonnull(strstr(plain, "== demo ==\n"));
	ck_assert_ptr_nonnull(strstr(plain, "  Total"));
	ck_assert_ptr_nonnull(strstr(plain, "\ncalls\n  CALLSITE          HITS\n  kfree+0x10 [mod]     3\n"));
	ck_assert_ptr_nonnull(strstr(plain, "\nSites\n  SITE   BYTES   SHARE\n"));
	ck_assert_ptr_nonnull(strstr(plain, "  a,\"b\"   2048  12.50%\n  plain      7  87.50%\n"));
	ck_assert_ptr_nonnull(strstr(human, "2.0 KiB"));
	ck_assert_ptr_null(strstr(plain, "KiB"));
	free(plain);
	free(human);
}
END_TEST

START_TEST(test_format_names)
{
	ck_assert_int_eq(kmt_format_parse("json"), KMT_FORMAT_JSON);
	ck_assert_int_eq(kmt_format_parse("csv"), KMT_FORMAT_CSV);
	ck_assert_int_eq(kmt_format_parse("text"), KMT_FORMAT_TEXT);
	ck_assert_int_eq(kmt_format_parse("xml"), -1);
}
END_TEST

Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("render");

	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_format_names);
	suite_add_tcase(s, tc);
	return s;
}
