// SPDX-License-Identifier: LGPL-2.1
/* Formats from files into libtraceevent: the child-process trial and its verdicts. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <traceevent/event-parse.h>

#include "fixtures.h"
#include "input/formats.h"
#include "input/sandbox.h"
#include "suites.h"

static unsigned char crash_on_one(void *arg, int i)
{
	(void)arg;
	if (i == 1)
		raise(SIGSEGV);
	return (unsigned char)(10 + i);
}

/* A job that crashes marks itself, and the next ones still run. */
START_TEST(test_sandbox_verdicts)
{
	unsigned char v[3];

	ck_assert_int_eq(kmt_sandbox_run(crash_on_one, NULL, 3, 5, v), 0);
	ck_assert_uint_eq(v[0], 10);
	ck_assert_uint_eq(v[1], KMT_SANDBOX_CRASHED);
	ck_assert_uint_eq(v[2], 12);
}
END_TEST

#define COMMON "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char div0[] = "name: div0\nID: 701\nformat:\n" COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d\", 5 / 0\n";
static const char divfield[] = "name: divfield\nID: 702\nformat:\n" COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", 5 / REC->x\n";
static const char negative[] = "name: negative\nID: 703\nformat:\n" COMMON
	"\tfield:int x;\toffset:-8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";
static const char bigid[] = "name: bigid\nID: 70000\nformat:\n" COMMON
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";
static const char dynamic[] = "name: dynamic\nID: 704\nformat:\n" COMMON
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"name=%s\", __get_str(name)\n";

/*
 * A print format libtraceevent crashes parsing (5 / 0) is left out, one it
 * would crash printing (a division by a field) is marked failed, formats
 * with a field before the record or an ID past 16 bits are not used.
 */
START_TEST(test_formats_checked)
{
	const struct kmt_format_text f[] = {
		{ "kmem", fix_fmt_kmalloc, strlen(fix_fmt_kmalloc), -1 },
		{ "test", div0, strlen(div0), -1 },
		{ "test", divfield, strlen(divfield), -1 },
		{ "test", negative, strlen(negative), -1 },
		{ "test", bigid, strlen(bigid), -1 },
	};
	struct kmt_format_counts c = { 0 };
	struct tep_handle *tep = tep_alloc();

	tep_set_long_size(tep, 8);
	ck_assert_int_eq(kmt_formats_parse(tep, f, 5, false, &c), 0);
	ck_assert_uint_eq(c.parsed, 3);
	ck_assert_uint_eq(c.print_left_out, 2);
	ck_assert_uint_eq(c.skipped, 2);
	ck_assert_ptr_nonnull(tep_find_event(tep, 658));
	ck_assert_ptr_nonnull(tep_find_event(tep, 701));
	ck_assert(tep_find_event(tep, 702)->flags & TEP_EVENT_FL_FAILED);
	ck_assert(!(tep_find_event(tep, 658)->flags & TEP_EVENT_FL_FAILED));
	ck_assert_ptr_null(tep_find_event(tep, 703));
	tep_free(tep);
}
END_TEST

extern const char *const kmt_shipped_formats[][2];

#define MAX_SET	64

/* A shipped set's texts, and each with a newline more (so that it is not a shipped one). */
struct set_texts {
	struct kmt_format_text f[MAX_SET];
	char *copies[MAX_SET];
	int n;
};

static int add_text(void *arg, const char *system, size_t system_len, const char *text,
		    size_t len)
{
	struct set_texts *s = arg;

	ck_assert_int_lt(s->n, MAX_SET);
	s->f[s->n] = (struct kmt_format_text){ strndup(system, system_len), text, len, -1 };
	ck_assert_int_eq(asprintf(&s->copies[s->n], "%.*s\n", (int)len, text), (int)len + 1);
	s->n++;
	return 0;
}

/* The texts of shipped set @set into @s. */
static void shipped_set_texts(int set, struct set_texts *s)
{
	s->n = 0;
	ck_assert_int_eq(kmt_formats_shipped_each(kmt_shipped_formats[set][1], add_text, s), 0);
}

static void free_set_texts(struct set_texts *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free((char *)s->f[i].system);
		free(s->copies[i]);
	}
}

/*
 * A text kmtrace ships is not tried in a child again, and the trial it
 * skips would have passed it: the same text with a newline more (tried)
 * parses with the same outcome, for every set shipped.
 */
START_TEST(test_shipped_formats_trusted)
{
	struct kmt_format_text tried[MAX_SET];
	struct set_texts s;
	int set, i, n;

	for (set = 0; kmt_shipped_formats[set][0]; set++) {
		struct kmt_format_counts known = { 0 }, trial = { 0 };
		struct tep_handle *a = tep_alloc(), *b = tep_alloc();

		shipped_set_texts(set, &s);
		n = s.n;
		for (i = 0; i < n; i++)
			tried[i] = (struct kmt_format_text){ s.f[i].system, s.copies[i],
							     s.f[i].len + 1, -1 };
		tep_set_long_size(a, 8);
		tep_set_long_size(b, 8);
		ck_assert_int_eq(kmt_formats_parse(a, s.f, n, false, &known), 0);
		ck_assert_int_eq(kmt_formats_parse(b, tried, n, false, &trial), 0);
		ck_assert_uint_eq(known.shipped, n);
		ck_assert_uint_eq(trial.shipped, 0);
		ck_assert_uint_eq(known.parsed, n);
		ck_assert_uint_eq(trial.parsed, known.parsed);
		ck_assert_uint_eq(trial.print_left_out, known.print_left_out);
		ck_assert_uint_eq(trial.skipped, known.skipped);
		free_set_texts(&s);
		tep_free(a);
		tep_free(b);
	}
	ck_assert_int_gt(set, 1);
}
END_TEST

/* Only the number of the ID line may differ from the shipped text, and only the system's. */
START_TEST(test_shipped_formats_exact)
{
	struct kmt_format_text *f, mine[4];
	struct set_texts s;
	char *id, *texts[4];
	struct kmt_format_counts c = { 0 };
	struct tep_handle *tep = tep_alloc();
	size_t len;
	int i;

	shipped_set_texts(0, &s);
	f = s.f;
	len = f[0].len;

	for (i = 0; i < 4; i++)
		texts[i] = strndup(f[0].text, len);
	id = strstr(texts[0], "\nID: ") + 5;
	memcpy(id, "9", 1);	/* another ID: still the shipped text */
	id = strstr(texts[1], "\nID: ") + 5;
	memcpy(id, "9", 1);
	*strstr(texts[1], "field:") = 'F';	/* and a field changed: not */
	id = strstr(texts[2], "\nID: ") + 5;
	memcpy(id, "a", 1);	/* no number: not */
	mine[0] = (struct kmt_format_text){ f[0].system, texts[0], len, -1 };
	mine[1] = (struct kmt_format_text){ f[0].system, texts[1], len, -1 };
	mine[2] = (struct kmt_format_text){ f[0].system, texts[2], len, -1 };
	mine[3] = (struct kmt_format_text){ "another", texts[3], len, -1 };
	tep_set_long_size(tep, 8);
	ck_assert_int_eq(kmt_formats_parse(tep, mine, 4, false, &c), 0);
	ck_assert_uint_eq(c.shipped, 1);
	for (i = 0; i < 4; i++)
		free(texts[i]);
	free_set_texts(&s);
	tep_free(tep);
}
END_TEST

/* A record whose __data_loc string runs past its end does not fit its format. */
START_TEST(test_record_fits)
{
	const struct kmt_format_text f = { "test", dynamic, strlen(dynamic), -1 };
	struct kmt_format_counts c = { 0 };
	struct tep_handle *tep = tep_alloc();
	unsigned char rec[20] = { 0xc0, 0x02 };
	struct tep_event *e;
	unsigned int loc = 16 | 8u << 16;	/* 8 bytes at 16: past a 20-byte record */

	tep_set_long_size(tep, 8);
	ck_assert_int_eq(kmt_formats_parse(tep, &f, 1, true, &c), 0);
	e = tep_find_event(tep, 704);
	ck_assert_ptr_nonnull(e);
	memcpy(rec + 8, &loc, 4);
	ck_assert(!kmt_formats_record_fits(tep, e, rec, sizeof(rec)));
	loc = 12 | 8u << 16;	/* 8 bytes at 12: the last of the record */
	memcpy(rec + 8, &loc, 4);
	ck_assert(kmt_formats_record_fits(tep, e, rec, sizeof(rec)));
	ck_assert(!kmt_formats_record_fits(tep, e, rec, 10));	/* the loc itself cut */
	tep_free(tep);
}
END_TEST

Suite *formats_suite(void)
{
	Suite *s = suite_create("formats");
	TCase *tc = tcase_create("trust");

	tcase_add_test(tc, test_sandbox_verdicts);
	tcase_add_test(tc, test_formats_checked);
	tcase_add_test(tc, test_record_fits);
	tcase_add_test(tc, test_shipped_formats_trusted);
	tcase_add_test(tc, test_shipped_formats_exact);
	suite_add_tcase(s, tc);
	return s;
}
