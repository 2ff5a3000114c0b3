// SPDX-License-Identifier: LGPL-2.1
/*
 * ftrace text read back into records: how each print-format construct's
 * value is read (a boolean ternary, the "none" of an empty flags value, a
 * pfn printed in decimal where the format says 0x%lx, a bare-hex call
 * site), flag texts the formats would print otherwise kept as written, a
 * node the line does not give, a 32-bit kernel's long size, and the line's
 * own text for --print.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <check.h>
#include <traceevent/event-parse.h>

#include <kmtrace/event.h>
#include <kmtrace/reader.h>
#include "common/mmnames.h"
#include "fixtures.h"
#include "suites.h"

/* A gfp table of three flags and a composite, as 6.x kernels print them. */
#define GFP_TABLE \
	"(REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", " \
	"{( unsigned long)(0x400|0x800|0x40|0x80), \"GFP_KERNEL\"}, " \
	"{( unsigned long)(0x800|0x2000), \"GFP_NOWAIT\"}, " \
	"{( unsigned long)0x100, \"__GFP_ZERO\"}, {( unsigned long)0x2000, \"__GFP_NOWARN\"}, " \
	"{( unsigned long)0x400, \"__GFP_DIRECT_RECLAIM\"}, " \
	"{( unsigned long)0x800, \"__GFP_KSWAPD_RECLAIM\"}) : \"none\""

static const char fmt_cache_alloc[] =
	"name: kmem_cache_alloc\nID: 660\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n"
	"\tfield:bool accounted;\toffset:52;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d "
	"accounted=%s\", (void *)REC->call_site, REC->ptr, REC->bytes_req, REC->bytes_alloc, "
	GFP_TABLE ", REC->node, REC->accounted ? \"true\" : \"false\"\n";

static const char fmt_page_alloc[] =
	"name: mm_page_alloc\nID: 664\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int migratetype;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"pfn=0x%lx order=%d migratetype=%d gfp_flags=%s\", "
	"REC->pfn != -1UL ? REC->pfn : 0, REC->order, REC->migratetype, " GFP_TABLE "\n";

/* A 32-bit kernel's kfree, call_site printed %lx as before 5.6. */
static const char fmt_kfree32[] =
	"name: kfree\nID: 340\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:unsigned long call_site;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"call_site=%lx ptr=%p\", REC->call_site, REC->ptr\n";

static char dir[] = "/tmp/kmtrace-test-text.XXXXXX";

static void put_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fputs(text, fp) >= 0, 1);
	ck_assert_int_eq(fclose(fp), 0);
}

/* formats DIR/kmem/NAME/format for each (name, text) pair; NULL-terminated. */
static void write_formats(const char *const *formats)
{
	char path[256];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/kmem", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	for (; *formats; formats += 2) {
		snprintf(path, sizeof(path), "%s/kmem/%s", dir, formats[0]);
		ck_assert_int_eq(mkdir(path, 0700), 0);
		strcat(path, "/format");
		put_file(path, formats[1]);
	}
}

static void remove_formats(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/kmtrace-test-text.XXXXXX");
}

/* Open text @lines through the formats of dir; @keep: with the lines' own text. */
static struct kmt_reader *open_text(const char *lines, bool keep)
{
	char path[256];
	struct kmt_error err;
	struct kmt_reader *r;

	snprintf(path, sizeof(path), "%s/trace.txt", dir);
	put_file(path, lines);
	r = kmt_reader_open_formats(path, dir, &err);
	ck_assert_msg(r, "%s", err.msg);
	if (keep)
		kmt_reader_keep_text(r);
	return r;
}

/* The next record of @r decoded into @ev; its record in @rec. */
static void next_event(struct kmt_reader *r, struct kmt_decoder *dec, struct kmt_record *rec,
		       struct kmt_event *ev)
{
	struct kmt_error err;

	ck_assert_int_eq(kmt_reader_next(r, -1, rec, &err), 1);
	kmt_decode(dec, rec->data, rec->size, ev);
}

START_TEST(test_text_values)
{
	static const char *const formats[] = {
		"kmem_cache_alloc", fmt_cache_alloc, "mm_page_alloc", fmt_page_alloc, NULL
	};
	struct kmt_reader *r;
	struct kmt_decoder *dec;
	struct kmt_record rec;
	struct kmt_event ev;
	struct kmt_gfp_names *names;
	char flags[256];

	write_formats(formats);
	r = open_text(
		"  sh-10 [000] ..... 1.000001: kmem_cache_alloc: call_site=ffffffff81234567 "
		"ptr=0000000012345678 bytes_req=24 bytes_alloc=32 gfp_flags=none accounted=true\n"
		"  sh-10 [000] ..... 1.000002: mm_page_alloc: pfn=135168 order=0 migratetype=2 "
		"gfp_flags=GFP_NOWAIT|__GFP_NOWARN\n"
		"  sh-10 [000] ..... 1.000003: mm_page_alloc: pfn=0x21000 order=1 migratetype=0 "
		"gfp_flags=GFP_KERNEL|GFP_COLD\n"
		"  sh-10 [000] ..... 1.000004: mm_page_alloc: pfn=0 order=3 migratetype=0 "
		"gfp_flags=GFP_KERNEL|__GFP_ZERO\n", false);
	dec = kmt_decoder_new(kmt_reader_tep(r));
	ck_assert_ptr_nonnull(dec);

	next_event(r, dec, &rec, &ev);
	ck_assert_int_eq(ev.type, KMT_EV_CACHE_ALLOC);
	ck_assert_uint_eq(ev.call_site, 0xffffffff81234567ull);	/* bare hex: an address */
	ck_assert_uint_eq(ev.gfp_flags, 0);			/* "none" */
	ck_assert_int_eq(ev.node, -1);				/* the line gives none */
	ck_assert_uint_eq(((const unsigned char *)rec.data)[52], 1);	/* accounted=true */

	next_event(r, dec, &rec, &ev);
	ck_assert_uint_eq(ev.pfn, 135168);		/* %lu text under a 0x%lx format */
	/* GFP_NOWAIT|__GFP_NOWARN would print as GFP_NOWAIT here: kept as written */
	ck_assert_uint_eq(ev.gfp_flags & 0x2800, 0x2800);
	names = kmt_gfp_names_new(tep_find_event_by_name(kmt_reader_tep(r), "kmem",
							 "mm_page_alloc"));
	kmt_gfp_format(names, ev.gfp_flags, flags, sizeof(flags));
	ck_assert_str_eq(flags, "GFP_NOWAIT|__GFP_NOWARN");
	kmt_gfp_names_free(names);

	next_event(r, dec, &rec, &ev);
	ck_assert_uint_eq(ev.pfn, 0x21000);
	ck_assert_uint_eq(ev.gfp_flags & 0x4c0, 0x4c0);	/* GFP_KERNEL's bits, and GFP_COLD's own */
	names = kmt_gfp_names_new(tep_find_event_by_name(kmt_reader_tep(r), "kmem",
							 "kmem_cache_alloc"));
	kmt_gfp_format(names, ev.gfp_flags, flags, sizeof(flags));
	ck_assert_str_eq(flags, "GFP_KERNEL|GFP_COLD");	/* every table has it */
	kmt_gfp_names_free(names);

	next_event(r, dec, &rec, &ev);
	ck_assert(kmt_event_alloc_failed(&ev));		/* "pfn=0" is the format's -1UL */
	kmt_decoder_free(dec);
	kmt_reader_close(r);
	remove_formats();
}
END_TEST

START_TEST(test_text_32bit_and_own_text)
{
	static const char *const formats[] = { "kfree", fmt_kfree32, NULL };
	static const char kallsyms[] = "c1000000 T _text\nc104de80 T getname_flags\n"
				       "c1050000 T _etext\n";
	struct kmt_reader *r;
	struct kmt_decoder *dec;
	struct kmt_record rec;
	struct kmt_event ev;
	struct kmt_error err;
	char path[256];

	write_formats(formats);
	snprintf(path, sizeof(path), "%s/System.map", dir);
	put_file(path, kallsyms);
	r = open_text("  cat-7 [001] ...1 50.000100: kfree: call_site=c104deff ptr=  (null)\n",
		      true);
	ck_assert_int_eq(tep_get_long_size(kmt_reader_tep(r)), 4);
	ck_assert_int_eq(kmt_reader_use_kallsyms(r, path, &err), 0);
	dec = kmt_decoder_new(kmt_reader_tep(r));
	next_event(r, dec, &rec, &ev);
	ck_assert_int_eq(ev.type, KMT_EV_KFREE);
	ck_assert_uint_eq(ev.call_site, 0xc104deff);
	ck_assert_uint_eq(ev.ptr, 0);
	ck_assert_str_eq(rec.text, "call_site=getname_flags+0x7f ptr=  (null)");
	ck_assert_str_eq(rec.text_event, "kfree");
	ck_assert_str_eq(rec.comm, "cat");
	kmt_decoder_free(dec);
	kmt_reader_close(r);
	remove_formats();
}
END_TEST

Suite *textlog_suite(void)
{
	Suite *s = suite_create("textlog");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_text_values);
	tcase_add_test(tc, test_text_32bit_and_own_text);
	suite_add_tcase(s, tc);
	return s;
}
