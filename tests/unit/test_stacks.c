// SPDX-License-Identifier: LGPL-2.1
/*
 * Kernel stacks: kernel_stack records joined to their events by context
 * (an interrupt between an event and its stack, a lost stack, a stack
 * without its event), allocator frames cut, and stack cells rendered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include <kmtrace/reader.h>
#include "analyses/pageowner.h"
#include "analyses/stacks.h"
#include "fixtures.h"
#include "suites.h"

#define STACK_ID	4
#define HARDIRQ		0x08
#define SOFTIRQ		0x10

static const char fmt_kernel_stack[] =
	"name: kernel_stack\nID: 4\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";

/* The fixture's kallsyms: kmalloc_test_site is an allocator frame, _stext not. */
#define IN_KMALLOC	0xffffffff81234570ull
#define IN_CALLER	0xffffffff81000010ull

static void add_kmalloc(struct fix_page *p, unsigned long long ts, int flags, uint64_t ptr)
{
	unsigned char buf[64];
	size_t len = fix_kmalloc(buf, 100, 0xffffffff81234560ull, ptr, 8, 8, 0);

	buf[2] = flags;
	fix_page_add(p, ts, buf, len);
}

/* A kernel_stack record of @n frames, @first then IN_CALLER. */
static void add_stack(struct fix_page *p, unsigned long long ts, int flags, uint64_t first)
{
	unsigned char buf[16 + 2 * 8];
	uint64_t frames[2] = { first, IN_CALLER };
	int n = 2;

	fix_common(buf, STACK_ID, 100, sizeof(buf));
	buf[2] = flags;
	memcpy(buf + 8, &n, 4);
	memcpy(buf + 16, frames, sizeof(frames));
	fix_page_add(p, ts, buf, sizeof(buf));
}

/*
 * CPU 0: A (task) is interrupted by B (hardirq) before its stack: A, B, SB,
 * SA. C loses its stack: the next task event D comes first. A softirq stack
 * with no event waiting is an orphan.
 */
static char *write_nested(void)
{
	static const char stacks_opt[] = "kmem:kmalloc";
	static const struct kmt_td_option opts[] = {
		KMT_TD_OPT(KMT_TD_OPT_KMT_STACKS, stacks_opt, sizeof(stacks_opt)),
	};
	static struct fix_page page[1];
	struct fix_page *pages[1] = { page };
	struct kmt_td_format formats[5];
	struct kmt_tracedat_meta m;
	int npages[1] = { 1 };

	fix_page_init(page, 1000);
	add_kmalloc(page, 1000, 0, 0xa000);
	add_kmalloc(page, 1100, HARDIRQ, 0xb000);
	add_stack(page, 1150, HARDIRQ, 0xffffffff81234600ull);
	add_stack(page, 1200, 0, IN_KMALLOC);
	add_kmalloc(page, 1300, 0, 0xc000);
	add_kmalloc(page, 1400, 0, 0xd000);
	add_stack(page, 1450, 0, IN_KMALLOC);
	add_stack(page, 1500, SOFTIRQ, IN_KMALLOC);
	fix_meta(&m, opts, 1);
	memcpy(formats, m.formats, 4 * sizeof(*formats));
	formats[4] = (struct kmt_td_format){ "ftrace", fmt_kernel_stack,
					     strlen(fmt_kernel_stack) };
	m.formats = formats;
	m.nformats = 5;
	return fix_write_tracedat(&m, 1, pages, npages);
}

START_TEST(test_join_by_context)
{
	static const struct { uint64_t ptr_at_16; int nframes; uint64_t first; } want[] = {
		{ 0xa000, 2, IN_KMALLOC }, { 0xb000, 2, 0xffffffff81234600ull },
		{ 0xc000, 0, 0 }, { 0xd000, 2, IN_KMALLOC },
	};
	char *path = write_nested();
	struct kmt_error err;
	struct kmt_reader *r = kmt_reader_open(path, &err);
	const struct kmt_stack_stats *st;
	struct kmt_record rec;
	size_t i;

	ck_assert_msg(r, "%s", err.msg);
	for (i = 0; i < sizeof(want) / sizeof(*want); i++) {
		uint64_t ptr;

		ck_assert_int_eq(kmt_reader_next(r, 0, &rec, &err), 1);
		memcpy(&ptr, (const char *)rec.data + 16, 8);
		ck_assert_uint_eq(ptr, want[i].ptr_at_16);
		ck_assert_int_eq(rec.callchain_nr, want[i].nframes);
		if (want[i].nframes)
			ck_assert_uint_eq(rec.callchain[0], want[i].first);
	}
	ck_assert_int_eq(kmt_reader_next(r, 0, &rec, &err), 0);
	st = kmt_reader_stack_stats(r);
	ck_assert(st->recorded);
	ck_assert_uint_eq(st->joined, 3);
	ck_assert_uint_eq(st->missing, 1);
	ck_assert_uint_eq(st->orphans, 1);
	kmt_reader_close(r);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_allocator_frames_cut)
{
	char *path = write_nested();
	struct kmt_error err;
	struct kmt_reader *r = kmt_reader_open(path, &err);
	unsigned long long chain[3] = { IN_KMALLOC, IN_CALLER, IN_CALLER + 4 };
	struct kmt_session session = { 0 };
	struct kmt_stacks s;
	char text[256];
	uint32_t id, again;
	bool unnamed;

	ck_assert_msg(r, "%s", err.msg);
	ck_assert_int_eq(kmt_stacks_init(&s), 0);
	session.reader = r;
	s.session = &session;
	ck_assert_int_eq(kmt_stacks_first_caller(&s, chain, 3, &unnamed), 1);
	ck_assert(!unnamed);
	ck_assert_int_eq(kmt_stacks_intern(&s, chain, 3, &id), 0);
	chain[0] = IN_KMALLOC + 8;	/* another allocator ip: the same stack */
	ck_assert_int_eq(kmt_stacks_intern(&s, chain, 3, &again), 0);
	ck_assert_uint_eq(id, again);
	kmt_stacks_text(&s, id, text, sizeof(text));
	ck_assert_str_eq(text, "_stext+0x10\n_stext+0x14");
	/* a list without "kmalloc": the allocator frame stays */
	ck_assert_int_eq(kmt_stacks_option(&s, "trace_event_raw_event_", &err), 0);
	ck_assert_int_eq(kmt_stacks_first_caller(&s, chain, 3, &unnamed), 0);
	kmt_stacks_free(&s);
	kmt_reader_close(r);
	unlink(path);
	free(path);
}
END_TEST

/*
 * More stacks than frames judged in front of the map (KMT_STACKS_RECENT):
 * each distinct one its own id, in order, and the same id when seen again.
 */
START_TEST(test_many_stacks)
{
	enum { NSTACKS = 3072 };
	char *path = write_nested();
	struct kmt_error err;
	struct kmt_reader *r = kmt_reader_open(path, &err);
	struct kmt_session session = { 0 };
	struct kmt_stacks s;
	uint32_t i, id;
	char text[256], want[64];
	int round;

	_Static_assert(NSTACKS > 2 * KMT_STACKS_RECENT, "past the frames judged in front");
	ck_assert_msg(r, "%s", err.msg);
	ck_assert_int_eq(kmt_stacks_init(&s), 0);
	session.reader = r;
	s.session = &session;
	for (round = 0; round < 2; round++) {
		for (i = 0; i < NSTACKS; i++) {
			unsigned long long chain[3] = { IN_KMALLOC, IN_CALLER + 4 * i,
							IN_CALLER + 4 * (i % 7) };

			ck_assert_int_eq(kmt_stacks_intern(&s, chain, 3, &id), 0);
			ck_assert_uint_eq(id, i);
			snprintf(want, sizeof(want), "_stext+0x%x\n_stext+0x%x", 0x10 + 4 * i,
				 0x10 + 4 * (i % 7));
			ck_assert_str_eq(kmt_stacks_text(&s, id, text, sizeof(text)), want);
		}
	}
	ck_assert_uint_eq(s.n, NSTACKS);
	kmt_stacks_free(&s);
	kmt_reader_close(r);
	unlink(path);
	free(path);
}
END_TEST

/* A kallsyms with a tracepoint's iterator, an allocator frame, callers and a BPF program. */
static const char plumbing_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T caller_fn\n"
	"ffffffff81000200 T outer_fn\n"
	"ffffffff81100000 T __traceiter_mm_page_alloc\n"
	"ffffffff81100100 T __kmalloc_noprof\n"
	"ffffffff81100200 T zzz_end\n"
	"ffffffffc0000000 t bpf_prog_6deef7357e7b4530_handler\t[bpf]\n"
	"ffffffffc0001000 t bpf_end\t[bpf]\n";

START_TEST(test_plumbing_removed)
{
	char *path = write_nested(), syms[] = "/tmp/kmtrace-test-syms.XXXXXX", text[256];
	struct kmt_error err;
	struct kmt_reader *r = kmt_reader_open(path, &err);
	/* iterator, allocator, caller, a BPF program in the middle, outer */
	unsigned long long chain[5] = { 0xffffffff81100010ull, 0xffffffff81100110ull,
					0xffffffff81000108ull, 0xffffffffc0000020ull,
					0xffffffff81000204ull };
	struct kmt_session session = { 0 };
	struct kmt_stacks s;
	bool unnamed;
	uint32_t id;
	int fd = mkstemp(syms);

	ck_assert_msg(r, "%s", err.msg);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, plumbing_kallsyms, strlen(plumbing_kallsyms)),
			 (ssize_t)strlen(plumbing_kallsyms));
	close(fd);
	ck_assert_int_eq(kmt_reader_use_kallsyms(r, syms, &err), 0);
	ck_assert_int_eq(kmt_stacks_init(&s), 0);
	session.reader = r;
	s.session = &session;
	ck_assert_int_eq(kmt_stacks_first_caller(&s, chain, 5, &unnamed), 2);
	ck_assert_int_eq(kmt_stacks_intern(&s, chain, 5, &id), 0);
	kmt_stacks_text(&s, id, text, sizeof(text));
	ck_assert_str_eq(text, "caller_fn+0x8\nouter_fn+0x4");
	/* a list of allocator frames without kmalloc: the plumbing still goes */
	ck_assert_int_eq(kmt_stacks_option(&s, "nothing_", &err), 0);
	ck_assert_int_eq(kmt_stacks_first_caller(&s, chain, 5, &unnamed), 1);
	ck_assert_int_eq(kmt_stacks_intern(&s, chain, 5, &id), 0);
	kmt_stacks_text(&s, id, text, sizeof(text));
	ck_assert_str_eq(text, "__kmalloc_noprof+0x10\ncaller_fn+0x8\nouter_fn+0x4");
	kmt_stacks_free(&s);
	kmt_reader_close(r);
	unlink(syms);
	unlink(path);
	free(path);
}
END_TEST

/* Render one table with a stack column in @format into a string (free it). */
static char *render(enum kmt_format format)
{
	static const struct kmt_column cols[] = {
		{ "bytes", "BYTES", KMT_KIND_BYTES }, { "hits", "HITS", KMT_KIND_COUNT },
		{ "stack", "STACK", KMT_KIND_STACK },
	};
	union kmt_cell row[3] = { { .u = 4096 }, { .u = 3 }, { .s = "a+0x1 [mod]\nb+0x2\nc" } };
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	struct kmt_output *out = kmt_output_new(format, fp, 0);
	struct kmt_table *t;

	ck_assert_int_eq(kmt_output_begin(out, "slab"), 0);
	t = kmt_output_table(out, "stacks", "Per call stack", 3, cols);
	ck_assert_ptr_nonnull(t);
	kmt_table_weight(t, 1);
	ck_assert_int_eq(kmt_table_row(t, row), 0);
	ck_assert_int_eq(kmt_output_stack_tables(out), 1);
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	fclose(fp);
	return text;
}

START_TEST(test_stack_cells)
{
	char *s = render(KMT_FORMAT_FOLDED);

	ck_assert_str_eq(s, "c;b;a [mod] 3\n");
	free(s);
	s = render(KMT_FORMAT_CSV);
	ck_assert_ptr_nonnull(strstr(s, "slab.stacks,4096,3,a+0x1 [mod];b+0x2;c\n"));
	free(s);
	s = render(KMT_FORMAT_JSON);
	ck_assert_ptr_nonnull(strstr(s, "\"stack\": [\"a+0x1 [mod]\", \"b+0x2\", \"c\"]"));
	free(s);
	s = render(KMT_FORMAT_TEXT);
	ck_assert_ptr_nonnull(strstr(s, "  4096     3  a+0x1 [mod]\n"));
	ck_assert_ptr_nonnull(strstr(s, "\n               b+0x2\n               c\n"));
	free(s);
}
END_TEST

/* A page_owner snapshot as kmtrace record keeps it: two stacks, four blocks. */
static const char owner_text[] =
	"page_owner 1 /sys/kernel/debug/page_owner\n"
	"stack 0\n"
	" post_alloc_hook+0x20c/0x230\n"
	" get_page_from_freelist+0x5c1/0x1050\n"
	" __alloc_pages+0x15f/0x300\n"
	" virtblk_probe+0x1b/0x90 [virtio_blk]\n"
	" really_probe+0xde/0x380\n"
	"page 4096 0 0xcc0 1 1 1000 0 swapper/0\n"
	"page 8192 3 0xcc0 1 1 1100 0 swapper/0\n"
	"stack 7\n"
	" post_alloc_hook+0x20c/0x230\n"
	" pcpu_populate_chunk+0x40/0x200\n"
	"page 12288 1 0x2dc2 5 5 2000 7 kworker/0:1\n"
	"page 16384 0 0x2dc2 5 5 2100 7 kworker/0:1\n"
	"page 20480 0 0x2dc2 5 5 2200 9 bad-stack-id\n"
	"garbage\n";

/* Render @po's summary and tables as JSON into a string (free it). */
static char *render_owner(const struct kmt_page_owner *po, const struct kmt_stacks *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	struct kmt_output *out = kmt_output_new(KMT_FORMAT_JSON, fp, 0);

	ck_assert_int_eq(kmt_output_begin(out, "page"), 0);
	ck_assert_int_eq(kmt_page_owner_summary(po, out), 0);
	ck_assert_int_eq(kmt_page_owner_tables(po, st, "before", -1, out), 0);
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	fclose(fp);
	return text;
}

START_TEST(test_page_owner_followed)
{
	struct kmt_page_owner po;
	struct kmt_stacks st;
	char *json;

	ck_assert_int_eq(kmt_stacks_init(&st), 0);
	ck_assert_int_eq(kmt_page_owner_load(&po, owner_text), 0);
	ck_assert(po.present);
	ck_assert_uint_eq(po.blocks, 4);
	ck_assert_uint_eq(po.pages, 1 + 8 + 2 + 1);
	ck_assert_uint_eq(po.unparsed, 2);	/* the unknown stack id, the garbage line */
	ck_assert(kmt_page_owner_free(&po, 8192));	/* freed in the trace */
	ck_assert(!kmt_page_owner_free(&po, 8192));	/* not twice */
	ck_assert(!kmt_page_owner_free(&po, 8193));	/* inside a block: not its pfn */
	kmt_page_owner_alloc(&po, 16384);	/* allocated again in the trace */
	kmt_page_owner_alloc(&po, 99999);	/* not listed: nothing */
	ck_assert_uint_eq(po.freed_pages, 8);
	ck_assert_uint_eq(po.again_pages, 1);
	json = render_owner(&po, &st);
	ck_assert_ptr_nonnull(strstr(json, "\"before_listed_pages\": 12"));
	ck_assert_ptr_nonnull(strstr(json, "\"before_traced_pages\": 1"));
	ck_assert_ptr_nonnull(strstr(json, "\"before_pages\": 11"));
	ck_assert_ptr_nonnull(strstr(json, "\"before_held_pages\": 3"));
	/* the stack holding most pages first, its caller past the allocator frames */
	ck_assert_ptr_nonnull(strstr(json, "{\"pages\": 2, \"blocks\": 1, \"caller\": "
				     "\"pcpu_populate_chunk+0x40\", \"module\": \"vmlinux\""));
	ck_assert_ptr_nonnull(strstr(json, "{\"pages\": 1, \"blocks\": 1, \"caller\": "
				     "\"virtblk_probe+0x1b [virtio_blk]\", \"module\": \"virtio_blk\""));
	ck_assert_ptr_nonnull(strstr(json, "\"stack\": [\"post_alloc_hook+0x20c\", "
				     "\"get_page_from_freelist+0x5c1\""));
	ck_assert_ptr_nonnull(strstr(json, "{\"module\": \"vmlinux\", \"pages\": 2, "
				     "\"blocks\": 1}"));
	free(json);
	kmt_page_owner_release(&po);

	/* no snapshot: nothing said, nothing followed */
	ck_assert_int_eq(kmt_page_owner_load(&po, NULL), 0);
	ck_assert(!po.present);
	ck_assert(!kmt_page_owner_free(&po, 4096));
	json = render_owner(&po, &st);
	ck_assert_ptr_null(strstr(json, "before"));
	free(json);
	kmt_page_owner_release(&po);
	kmt_stacks_free(&st);
}
END_TEST

Suite *stacks_suite(void)
{
	Suite *s = suite_create("stacks");
	TCase *tc = tcase_create("stacks");

	tcase_add_test(tc, test_join_by_context);
	tcase_add_test(tc, test_allocator_frames_cut);
	tcase_add_test(tc, test_many_stacks);
	tcase_add_test(tc, test_plumbing_removed);
	tcase_add_test(tc, test_stack_cells);
	tcase_add_test(tc, test_page_owner_followed);
	suite_add_tcase(s, tc);
	return s;
}
