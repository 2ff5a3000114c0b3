// SPDX-License-Identifier: LGPL-2.1
/*
 * The plugins' handlers: the Linux 6.18 formats kmtrace ships, hand-built
 * records, the printed line compared; odd values, doctored formats.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "fixtures.h"
#include "plugins/kmt_plugin.h"
#include "suites.h"

extern const char *const kmt_shipped_formats[][2];

#define FUNC_KMALLOC	0xffffffff81300000ull
#define FUNC_FAULT	0xffffffff81400000ull
#define FUNC_CALLER	0xffffffff81400100ull
#define FUNC_END	0xffffffff81500000ull

static struct tep_handle *tep;
static struct trace_seq seq;
static unsigned char rec_buf[256];
static size_t rec_len;

/* Parse the shipped 6.18 formats ("#system NAME" before each) into @t. */
static void parse_shipped(struct tep_handle *t)
{
	char *text = NULL, *p;
	int i;

	for (i = 0; kmt_shipped_formats[i][0]; i++)
		if (!strcmp(kmt_shipped_formats[i][0], "6.18"))
			text = strdup(kmt_shipped_formats[i][1]);
	ck_assert_ptr_nonnull(text);
	p = text;
	while ((p = strstr(p, "#system "))) {
		char *sys = p + 8, *nl = strchr(sys, '\n'), *next;

		*nl = '\0';
		next = strstr(nl + 1, "#system ");
		ck_assert_int_eq(tep_parse_event(t, nl + 1, next ? (size_t)(next - nl - 1) :
						 strlen(nl + 1), sys), 0);
		p = next ? next : nl + 1 + strlen(nl + 1);
	}
	free(text);
}

static struct tep_handle *new_tep(bool plugins)
{
	struct tep_handle *t = tep_alloc();

	ck_assert_ptr_nonnull(t);
	tep_set_long_size(t, 8);
	tep_set_page_size(t, 4096);
	parse_shipped(t);
	ck_assert_int_eq(tep_parse_event(t, fix_fmt_fault_return, strlen(fix_fmt_fault_return),
					 "kmtrace"), 0);
	tep_register_function(t, "kmalloc_test", FUNC_KMALLOC, NULL);
	tep_register_function(t, "handle_mm_fault", FUNC_FAULT, NULL);
	tep_register_function(t, "do_user_addr_fault", FUNC_CALLER, NULL);
	tep_register_function(t, "after_all", FUNC_END, NULL);
	if (plugins)
		kmt_plugins_register_all(t, NULL);
	return t;
}

static void setup(void)
{
	tep = new_tep(true);
	trace_seq_init(&seq);
}

static void teardown(void)
{
	trace_seq_destroy(&seq);
	tep_free(tep);
	kmt_plugin_option("kmt:raw=0");
}

/* Start a record of @sys:@name of handle @t; the event is returned. */
static struct tep_event *rec_start_in(struct tep_handle *t, const char *sys, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(t, sys, name);
	unsigned short id;
	int pid = 4242;

	ck_assert_ptr_nonnull(e);
	memset(rec_buf, 0, sizeof(rec_buf));
	id = e->id;
	memcpy(rec_buf, &id, 2);
	memcpy(rec_buf + 4, &pid, 4);
	rec_len = 0;
	for (struct tep_format_field *f = e->format.fields; f; f = f->next)
		if ((size_t)(f->offset + f->size) > rec_len)
			rec_len = f->offset + f->size;
	return e;
}

static struct tep_event *rec_start(const char *sys, const char *name)
{
	return rec_start_in(tep, sys, name);
}

/* A handle holding only the kmem format @fmt, with the plugins. */
static struct tep_handle *tep_of(const char *fmt)
{
	struct tep_handle *t = tep_alloc();

	ck_assert_ptr_nonnull(t);
	tep_set_long_size(t, 8);
	ck_assert_int_eq(tep_parse_event(t, fmt, strlen(fmt), "kmem"), 0);
	kmt_plugins_register_all(t, NULL);
	return t;
}

/* Set field @name (little-endian, its size). */
static void put(struct tep_event *e, const char *name, unsigned long long v)
{
	ck_assert_msg(fix_set_field(rec_buf, e, name, v), "no field %s", name);
}

/* Set __data_loc string field @name to @s, stored after the fixed fields. */
static void put_str(struct tep_event *e, const char *name, const char *s)
{
	struct tep_format_field *f = tep_find_field(e, name);
	unsigned int len = strlen(s) + 1, loc = rec_len | (len << 16);

	ck_assert_ptr_nonnull(f);
	memcpy(rec_buf + f->offset, &loc, 4);
	memcpy(rec_buf + rec_len, s, len);
	rec_len += len;
}

/* The text @t prints for the record built so far (its first @size bytes). */
static const char *print_sized(struct tep_handle *t, size_t size)
{
	struct tep_record rec = { .ts = 1000, .cpu = 0, .data = rec_buf, .size = size };

	trace_seq_reset(&seq);
	tep_print_event(t, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	return seq.buffer;
}

static const char *print(void)
{
	return print_sized(tep, rec_len);
}

/* The stock text of the record's first @size bytes, through a handle without the plugins. */
static char *print_stock_sized(size_t size)
{
	struct tep_handle *t = new_tep(false);
	char *s = strdup(print_sized(t, size));

	tep_free(t);
	return s;
}

static char *print_stock(void)
{
	return print_stock_sized(rec_len);
}

/* The text after "@label=" in @line, up to the next space. */
static char *word_after(const char *line, const char *label)
{
	const char *p = strstr(line, label), *end;

	ck_assert_msg(p != NULL, "no %s in %s", label, line);
	p += strlen(label);
	end = strchr(p, ' ');
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

START_TEST(test_kmalloc)
{
	struct tep_event *e = rec_start("kmem", "kmalloc");
	char *stock, *gfp_stock, *gfp_ours;

	put(e, "call_site", FUNC_KMALLOC + 0x10);
	put(e, "ptr", 0xffff888012345678ull);
	put(e, "bytes_req", 100);
	put(e, "bytes_alloc", 128);
	put(e, "gfp_flags", 0xdc0);
	put(e, "node", -1);
	ck_assert_str_eq(print(), "call_site=kmalloc_test+0x10 ptr=0xffff888012345678 "
			 "bytes_req=100 bytes_alloc=128 waste=28 gfp_flags=GFP_KERNEL|__GFP_ZERO node=-1");
	/* the GFP names are the kernel's own: libtraceevent's stock print agrees */
	stock = print_stock();
	gfp_stock = word_after(stock, "gfp_flags=");
	gfp_ours = word_after(print(), "gfp_flags=");
	ck_assert_str_eq(gfp_ours, gfp_stock);
	free(stock);
	free(gfp_stock);
	free(gfp_ours);
	/* a failed allocation, a call site no symbol holds, no flags */
	put(e, "ptr", 0);
	put(e, "call_site", 0x1234);
	put(e, "gfp_flags", 0);
	ck_assert_str_eq(print(), "call_site=0x1234 ptr=NULL bytes_req=100 bytes_alloc=128 "
			 "waste=28 gfp_flags=none node=-1");
}
END_TEST

START_TEST(test_cache_alloc_and_frees)
{
	struct tep_event *e = rec_start("kmem", "kmem_cache_alloc");

	put(e, "call_site", FUNC_KMALLOC + 0x2a);
	put(e, "ptr", 0xffff888100000040ull);
	put(e, "bytes_req", 184);
	put(e, "bytes_alloc", 192);
	put(e, "gfp_flags", 0xcc0);
	put(e, "node", 1);
	put(e, "accounted", 1);
	put_str(e, "name", "filp");
	ck_assert_str_eq(print(), "call_site=kmalloc_test+0x2a ptr=0xffff888100000040 cache=filp "
			 "bytes_req=184 bytes_alloc=192 waste=8 gfp_flags=GFP_KERNEL node=1 "
			 "accounted=true");
	e = rec_start("kmem", "kmem_cache_free");
	put(e, "call_site", FUNC_KMALLOC + 0x30);
	put(e, "ptr", 0xffff888100000040ull);
	put_str(e, "name", "filp");
	ck_assert_str_eq(print(), "call_site=kmalloc_test+0x30 ptr=0xffff888100000040 cache=filp");
	e = rec_start("kmem", "kfree");
	put(e, "call_site", FUNC_KMALLOC + 0x31);
	ck_assert_str_eq(print(), "call_site=kmalloc_test+0x31 ptr=NULL");
}
END_TEST

START_TEST(test_page_alloc)
{
	struct tep_event *e = rec_start("kmem", "mm_page_alloc");

	put(e, "pfn", 0x1234);
	put(e, "order", 2);
	put(e, "migratetype", 1);
	put(e, "gfp_flags", 0xcc0);
	ck_assert_str_eq(print(), "pfn=0x1234 order=2 (16 KiB) migratetype=Movable "
			 "gfp_flags=GFP_KERNEL");
	put(e, "pfn", -1);	/* a failed allocation */
	put(e, "order", 0);
	put(e, "migratetype", 0);
	ck_assert_str_eq(print(), "pfn=-1 (failed) order=0 (4 KiB) migratetype=Unmovable "
			 "gfp_flags=GFP_KERNEL");
	put(e, "pfn", 0x100000);	/* above MAX_PAGE_ORDER, unknown migratetype */
	put(e, "order", 11);
	put(e, "migratetype", 9);
	ck_assert_str_eq(print(), "pfn=0x100000 order=11 (8 MiB) migratetype=type-9 "
			 "gfp_flags=GFP_KERNEL");
	put(e, "order", 200);
	put(e, "migratetype", -1);
	ck_assert_str_eq(print(), "pfn=0x100000 order=200 (bad order) migratetype=type--1 "
			 "gfp_flags=GFP_KERNEL");
}
END_TEST

START_TEST(test_page_free_drain_refill)
{
	struct tep_event *e = rec_start("kmem", "mm_page_free");

	put(e, "pfn", 0xabc);
	put(e, "order", 9);
	ck_assert_str_eq(print(), "pfn=0xabc order=9 (2 MiB)");
	e = rec_start("kmem", "mm_page_free_batched");
	put(e, "pfn", 0xabd);
	ck_assert_str_eq(print(), "pfn=0xabd order=0 (4 KiB)");
	e = rec_start("kmem", "mm_page_pcpu_drain");
	put(e, "pfn", 0xabe);
	put(e, "order", 1);
	put(e, "migratetype", 2);
	ck_assert_str_eq(print(), "pfn=0xabe order=1 (8 KiB) migratetype=Reclaimable");
	e = rec_start("kmem", "mm_page_alloc_zone_locked");
	put(e, "pfn", 0xabf);
	put(e, "order", 3);
	put(e, "migratetype", 3);
	put(e, "percpu_refill", 1);
	ck_assert_str_eq(print(), "pfn=0xabf order=3 (32 KiB) migratetype=HighAtomic "
			 "percpu_refill=1");
}
END_TEST

START_TEST(test_page_faults)
{
	struct tep_event *e = rec_start("exceptions", "page_fault_user");

	put(e, "address", 0x7ffd0000);
	put(e, "ip", 0x55550000);
	put(e, "error_code", 0x6);
	ck_assert_str_eq(print(), "address=0x7ffd0000 ip=0x55550000 error_code=0x6 "
			 "(user write not-present)");
	put(e, "error_code", 0x15);
	ck_assert_str_eq(print(), "address=0x7ffd0000 ip=0x55550000 error_code=0x15 "
			 "(user exec protection)");
	e = rec_start("exceptions", "page_fault_kernel");
	put(e, "address", 0x1000);
	put(e, "ip", FUNC_KMALLOC + 0x5);
	put(e, "error_code", 0x1);
	ck_assert_str_eq(print(), "address=0x1000 ip=kmalloc_test+0x5 error_code=0x1 "
			 "(kernel read protection)");
	/* reserved-bit, pkey and bits no kernel defines */
	put(e, "error_code", 0x10a | 0x20 | (1ull << 40));
	ck_assert_str_eq(print(), "address=0x1000 ip=kmalloc_test+0x5 error_code=0x1000000012a "
			 "(kernel write not-present rsvd pkey unknown=0x10000000100)");
}
END_TEST

START_TEST(test_rss_stat)
{
	struct tep_event *e = rec_start("kmem", "rss_stat");

	put(e, "mm_id", 7);
	put(e, "curr", 1);
	put(e, "member", 1);
	put(e, "size", 4718592);
	ck_assert_str_eq(print(), "mm_id=7 curr=1 member=anon size=4718592 (4.50 MiB)");
	put(e, "member", 3);
	put(e, "size", 512);
	ck_assert_str_eq(print(), "mm_id=7 curr=1 member=shmem size=512");
	put(e, "member", 9);	/* a counter newer than the plugin */
	put(e, "size", 8192);
	ck_assert_str_eq(print(), "mm_id=7 curr=1 member=9 size=8192 (8 KiB)");
}
END_TEST

START_TEST(test_mark_victim)
{
	struct tep_event *e = rec_start("oom", "mark_victim");

	put(e, "pid", 4343);
	put(e, "total_vm", 1048576);	/* KiB */
	put(e, "anon_rss", 524288);
	put(e, "file_rss", 1536);
	put(e, "shmem_rss", 0);
	put(e, "uid", 1000);
	put(e, "pgtables", 2048);
	put(e, "oom_score_adj", -500);
	put_str(e, "comm", "memhog");
	ck_assert_str_eq(print(), "pid=4343 comm=memhog total_vm=1 GiB anon_rss=512 MiB "
			 "file_rss=1.50 MiB shmem_rss=0 B pgtables=2 MiB uid=1000 oom_score_adj=-500");
}
END_TEST

START_TEST(test_fault_return)
{
	struct tep_event *e = rec_start("kmtrace", "fault_return");
	static const struct { unsigned int ret; const char *words; } cases[] = {
		{ 0x0, "MINOR" }, { 0x200, "MINOR|LOCKED" }, { 0x4, "MAJOR" },
		{ 0x404, "MAJOR|RETRY" }, { 0x400, "RETRY" }, { 0x1, "OOM" }, { 0x2, "SIGBUS" },
		{ 0x40, "SIGSEGV" }, { 0x30022, "SIGBUS|HWPOISON_LARGE|HINDEX=3" },
		{ 0x80000000, "MINOR|0x80000000" },
	};
	char want[160];
	size_t i;

	put(e, "__probe_func", FUNC_FAULT);
	put(e, "__probe_ret_ip", FUNC_CALLER + 0x1a5);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put(e, "ret", cases[i].ret);
		snprintf(want, sizeof(want), "(handle_mm_fault+0x0 <- do_user_addr_fault+0x1a5) "
			 "ret=0x%x (%s)", cases[i].ret, cases[i].words);
		ck_assert_str_eq(print(), want);
	}
}
END_TEST

START_TEST(test_raw_option)
{
	struct tep_event *e = rec_start("kmem", "mm_page_alloc");

	ck_assert_int_eq(kmt_plugin_option("kmt:raw"), 0);
	put(e, "pfn", 0x1234);
	put(e, "order", 2);
	put(e, "migratetype", 1);
	put(e, "gfp_flags", 0xcc0);
	ck_assert_str_eq(print(), "pfn=0x1234 order=2 (16384) migratetype=1 gfp_flags=0xcc0");
	e = rec_start("exceptions", "page_fault_user");
	put(e, "error_code", 0x6);
	ck_assert_str_eq(print(), "address=0x0 ip=0x0 error_code=0x6");
	ck_assert_int_eq(kmt_plugin_option("raw=0"), 0);
	ck_assert_str_eq(print(), "address=0x0 ip=0x0 error_code=0x6 (user write not-present)");
	ck_assert_int_eq(kmt_plugin_option("kmt:nosuch=1"), -1);
	ck_assert_int_eq(kmt_plugin_option("kmt:raw=maybe"), -1);
}
END_TEST

/* The host tells modules and the kernel version: 4.3 names migratetypes the old way. */
static const char *module_ext4(void *priv, unsigned long long addr)
{
	(void)priv;
	return addr >= FUNC_KMALLOC && addr < FUNC_FAULT ? "ext4" : NULL;
}

START_TEST(test_host)
{
	struct kmt_plugin_host host = { .module = module_ext4, .kernel_version = 4003 };
	struct tep_event *e;

	kmt_plugins_register_all(tep, &host);
	e = rec_start("kmem", "kfree");
	put(e, "call_site", FUNC_KMALLOC + 0x8);
	put(e, "ptr", 0x10);
	ck_assert_str_eq(print(), "call_site=kmalloc_test+0x8 [ext4] ptr=0x10");
	e = rec_start("kmem", "mm_page_pcpu_drain");
	put(e, "migratetype", 1);
	ck_assert_str_eq(print(), "pfn=0x0 order=0 (4 KiB) migratetype=Reclaimable");
	kmt_plugins_register_all(tep, NULL);
	ck_assert_str_eq(print(), "pfn=0x0 order=0 (4 KiB) migratetype=Movable");
}
END_TEST

/* Kernels before 4.4: __GFP_WAIT in the GFP names, Reclaimable before Movable. */
START_TEST(test_pre_4_4_migratetypes)
{
	static const char fmt[] =
		"name: mm_page_alloc\nID: 3000\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:gfp_t gfp_flags;\toffset:20;\tsize:4;\tsigned:0;\n"
		"\tfield:int migratetype;\toffset:24;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"pfn=%lu order=%d migratetype=%d gfp_flags=%s\", REC->pfn, "
		"REC->order, REC->migratetype, (REC->gfp_flags) ? __print_flags(REC->gfp_flags, "
		"\"|\", {(unsigned long)(0x10u | 0x40u | 0x80u), \"GFP_KERNEL\"}, "
		"{(unsigned long)0x10u, \"GFP_WAIT\"}, {(unsigned long)0x10u, \"__GFP_WAIT\"}) "
		": \"GFP_NOWAIT\"\n";
	struct tep_handle *old = tep_of(fmt);
	struct tep_event *e = rec_start_in(old, "kmem", "mm_page_alloc");

	put(e, "migratetype", 1);
	put(e, "gfp_flags", 0xd0);
	ck_assert_str_eq(print_sized(old, rec_len), "pfn=0x0 order=0 (4 KiB) "
			 "migratetype=Reclaimable gfp_flags=GFP_KERNEL");
	tep_free(old);
}
END_TEST

/* An 8-byte order far past 64 bits of shift: "bad order", no undefined shift. */
START_TEST(test_huge_order)
{
	static const char fmt[] =
		"name: mm_page_alloc\nID: 3002\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long order;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:int migratetype;\toffset:32;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"pfn=%lu order=%lu migratetype=%d gfp_flags=%lx\", REC->pfn, "
		"REC->order, REC->migratetype, REC->gfp_flags\n";
	static const unsigned long long orders[] = { ~0ull, ~0ull - 5, 52, 51 };
	struct tep_handle *doc = tep_of(fmt);
	struct tep_event *e = rec_start_in(doc, "kmem", "mm_page_alloc");
	size_t i;

	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		put(e, "order", orders[i]);
		const char *line = print_sized(doc, rec_len);

		ck_assert_msg(strstr(line, orders[i] > 51 ? "(bad order)" : "order=51 ("), "%s", line);
	}
	tep_free(doc);
}
END_TEST

/* A format without a field a handler wants: the stock line, whole. */
START_TEST(test_doctored_format_prints_stock)
{
	static const char fmt[] =
		"name: kmalloc\nID: 3001\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"call_site=%pS ptr=%p bytes_req=%zu\", (void *)REC->call_site, "
		"REC->ptr, REC->bytes_req\n";
	struct tep_handle *doc = tep_of(fmt);
	struct tep_event *e = rec_start_in(doc, "kmem", "kmalloc");

	put(e, "call_site", 0x1234);
	put(e, "ptr", 0xffff888000001000ull);
	put(e, "bytes_req", 64);
	ck_assert_str_eq(print_sized(doc, rec_len),
			 "call_site=0x1234 ptr=0xffff888000001000 bytes_req=64");
	tep_free(doc);
}
END_TEST

/* Records too short for their format: the stock line, no read past the end. */
START_TEST(test_short_record_prints_stock)
{
	struct tep_event *e = rec_start("oom", "mark_victim");
	char *stock;

	put(e, "pid", 77);
	put_str(e, "comm", "x");
	ck_assert_ptr_nonnull(strstr(print(), "total_vm=0 B"));
	/* the comm string runs past the record's end */
	stock = print_stock_sized(rec_len - 1);
	ck_assert_str_eq(print_sized(tep, rec_len - 1), stock);
	free(stock);
	e = rec_start("kmem", "kmalloc");
	put(e, "bytes_alloc", 64);
	stock = print_stock_sized(30);	/* bytes_alloc and gfp_flags cut off */
	ck_assert_str_eq(print_sized(tep, 30), stock);
	ck_assert_ptr_null(strstr(stock, "waste="));
	free(stock);
}
END_TEST

Suite *plugins_suite(void)
{
	Suite *s = suite_create("plugins");
	TCase *tc = tcase_create("handlers");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_kmalloc);
	tcase_add_test(tc, test_cache_alloc_and_frees);
	tcase_add_test(tc, test_page_alloc);
	tcase_add_test(tc, test_page_free_drain_refill);
	tcase_add_test(tc, test_page_faults);
	tcase_add_test(tc, test_rss_stat);
	tcase_add_test(tc, test_mark_victim);
	tcase_add_test(tc, test_fault_return);
	tcase_add_test(tc, test_raw_option);
	tcase_add_test(tc, test_host);
	tcase_add_test(tc, test_pre_4_4_migratetypes);
	tcase_add_test(tc, test_doctored_format_prints_stock);
	tcase_add_test(tc, test_huge_order);
	tcase_add_test(tc, test_short_record_prints_stock);
	suite_add_tcase(s, tc);
	return s;
}
