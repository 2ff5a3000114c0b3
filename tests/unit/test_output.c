// SPDX-License-Identifier: LGPL-2.1
/* Output layer: one description, three renderings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include <sqlite3.h>

#include <kmtrace/error.h>
#include <kmtrace/output.h>
#include <kmtrace/sqlite.h>
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
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	fclose(fp);
	return text;
}

START_TEST(test_json)
{
	char *s = render(KMT_FORMAT_JSON, 1);

	ck_assert_ptr_nonnull(strstr(s, "{\"kmtrace\": {\"version\": \"" KMT_VERSION "\", "
				     "\"schema_version\": 1, \"input\": null, \"kernel\": null},\n"
				     " \"analyses\": {"));
	ck_assert_ptr_nonnull(strstr(s, "\"units\": {\"summary\": {\"total\": \"count\", "
				     "\"name\": \"text\"}, \"tables\": {"));
	ck_assert_ptr_nonnull(strstr(s, "\"sites\": {\"site\": \"text\", \"bytes\": \"bytes\", "
				     "\"share\": \"percent\"}}}"));
	ck_assert_ptr_nonnull(strstr(s, "\"demo\": {"));
	ck_assert_ptr_nonnull(strstr(s, "\"summary\": {\"total\": 42, \"name\": \"x\\u0009y\"}"));
	ck_assert_ptr_nonnull(strstr(s, "\"calls\": [\n        {\"callsite\": \"kfree+0x10 [mod]\", \"hits\": 3}\n      ]"));
	/* JSON keeps raw integers even when text would show human sizes. */
	ck_assert_ptr_nonnull(strstr(s, "{\"site\": \"a,\\\"b\\\"\", \"bytes\": 2048, \"share\": 12.5}"));
	free(s);
}
END_TEST

/* Not UTF-8 and not a number: escaped, null; JSON stays valid. */
START_TEST(test_json_bytes_and_nan)
{
	static const struct kmt_column cols[] = { { "name", "NAME", KMT_KIND_STRING },
						  { "share", "SHARE", KMT_KIND_PERCENT } };
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	struct kmt_output *out = kmt_output_new(KMT_FORMAT_JSON, fp, 0);
	struct kmt_table *t;

	ck_assert_int_eq(kmt_output_describe(out, "in\xfe.dat", "Linux 6.18"), 0);
	ck_assert_int_eq(kmt_output_begin(out, "demo"), 0);
	t = kmt_output_table(out, "rows", "Rows", 2, cols);
	ck_assert_int_eq(kmt_table_row(t, (union kmt_cell[]){ { .s = "caf\xc3\xa9 \xff\xc3" },
							      { .d = 0.0 / 0.0 } }), 0);
	ck_assert_int_eq(kmt_table_row(t, (union kmt_cell[]){ { .s = "\xed\xa0\x80" },
							      { .d = 1.0 / 0.0 } }), 0);
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(text, "\"input\": \"in\\\\xfe.dat\", \"kernel\": \"Linux 6.18\""));
	ck_assert_ptr_nonnull(strstr(text, "{\"name\": \"caf\xc3\xa9 \\\\xff\\\\xc3\", \"share\": null}"));
	/* a UTF-16 surrogate encoded as UTF-8 is not UTF-8 */
	ck_assert_ptr_nonnull(strstr(text, "{\"name\": \"\\\\xed\\\\xa0\\\\x80\", \"share\": null}"));
	free(text);
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

/* -o DIR: a file per summary and table, header and rows only; --table: one of them. */
START_TEST(test_csv_files)
{
	char dir[] = "/tmp/kmt-unit-csv-XXXXXX", path[64], line[256], *one = NULL;
	size_t len = 0;
	struct kmt_output *out;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	out = kmt_output_new(KMT_FORMAT_CSV, stdout, 0);
	kmt_output_csv_dir(out, dir);
	ck_assert_int_eq(kmt_output_begin(out, "demo"), 0);
	add_calls_table(out);
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	snprintf(path, sizeof(path), "%s/demo-calls.csv", dir);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_str_eq(fgets(line, sizeof(line), fp), "callsite,hits\n");
	ck_assert_str_eq(fgets(line, sizeof(line), fp), "kfree+0x10 [mod],3\n");
	ck_assert_ptr_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	out = kmt_output_new(KMT_FORMAT_CSV, stdout, 0);	/* the file is there: not replaced */
	kmt_output_csv_dir(out, dir);
	kmt_output_begin(out, "demo");
	add_calls_table(out);
	ck_assert_int_eq(kmt_output_finish(out, NULL), -1);
	unlink(path);
	rmdir(dir);
	fp = open_memstream(&one, &len);
	out = kmt_output_new(KMT_FORMAT_CSV, fp, 0);
	kmt_output_only_table(out, "demo.calls");
	kmt_output_begin(out, "demo");
	add_calls_table(out);
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	fclose(fp);
	ck_assert_str_eq(one, "callsite,hits\nkfree+0x10 [mod],3\n");
	free(one);
	out = kmt_output_new(KMT_FORMAT_CSV, stdout, 0);
	kmt_output_only_table(out, "demo.nothing");
	kmt_output_begin(out, "demo");
	ck_assert_int_eq(kmt_output_finish(out, NULL), -2);
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

/* One value of the query @sql in @path, as text (the caller frees it), or NULL. */
static char *query_one(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *v = NULL;

	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void expect_value(const char *path, const char *sql, const char *want)
{
	char *got = query_one(path, sql);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_sqlite_tables)
{
	char dir[] = "/tmp/kmt-sqlite-XXXXXX", path[128], name[64];
	struct kmt_output *out;
	struct kmt_sqlite *db;
	struct kmt_table *t;
	struct kmt_error err;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.db", dir);
	ck_assert_str_eq(kmt_sqlite_name(name, sizeof(name), "kmem", "mm_page-alloc"),
			 "kmem_mm_page_alloc");
	db = kmt_sqlite_create(path, &err);
	ck_assert_ptr_nonnull(db);
	ck_assert_int_ne(access(path, F_OK), 0);	/* not under its name yet */
	out = kmt_output_new(KMT_FORMAT_SQLITE, stdout, 0);
	kmt_output_sqlite(out, db);
	ck_assert_int_eq(kmt_output_begin(out, "slab"), 0);
	ck_assert_int_eq(kmt_output_count(out, "allocs", "Allocations", 7), 0);
	t = kmt_output_table(out, "sites", "Per site", 3, cols);
	ck_assert_int_eq(kmt_table_row(t, (union kmt_cell[]){ { .s = "a" },
		{ .u = 0xffffffff816c9c44ull }, { .d = 12.5 } }), 0);
	add_calls_table(out);
	ck_assert_int_eq(kmt_output_finish(out, &err), 0);
	ck_assert_int_eq(kmt_sqlite_commit(db, &err), 0);
	expect_value(path, "SELECT printf('0x%x', bytes) || ' ' || share FROM slab_sites",
		     "0xffffffff816c9c44 12.5");
	expect_value(path, "SELECT callsite || ' ' || hits FROM slab_calls", "kfree+0x10 [mod] 3");
	expect_value(path, "SELECT unit FROM report_columns WHERE tbl = 'slab_sites' AND "
		     "name = 'bytes'", "bytes");
	expect_value(path, "SELECT value || ' ' || label FROM summaries WHERE key = 'allocs'",
		     "7 Allocations");
	/* never over a file that is there; an aborted one leaves nothing */
	ck_assert_ptr_null(kmt_sqlite_create(path, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "already there"));
	snprintf(path, sizeof(path), "%s/b.db", dir);
	db = kmt_sqlite_create(path, &err);
	ck_assert_ptr_nonnull(db);
	kmt_sqlite_abort(db);
	snprintf(path, sizeof(path), "rm -r %s/r.db && rmdir %s", dir, dir);
	ck_assert_int_eq(system(path), 0);	/* nothing else was left in it */
}
END_TEST

Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("render");

	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_json_bytes_and_nan);
	tcase_add_test(tc, test_csv_files);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_format_names);
	tcase_add_test(tc, test_sqlite_tables);
	suite_add_tcase(s, tc);
	return s;
}
