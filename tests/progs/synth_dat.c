// SPDX-License-Identifier: LGPL-2.1
/*
 * Write a trace.dat of the events a plugin handles that no recording made
 * here holds: kmem:mm_page_pcpu_drain and mm_page_alloc_zone_locked (in
 * the Linux 6.18 formats kmtrace ships; the kernel raised neither in the
 * fixture's runs) and kmtrace:fault_return (the return probe, which needs
 * kprobe events this kernel lacks), with hand-set fields and a kallsyms.
 *
 * usage: synth-dat OUT
 *
 * It runs as a one-test Check runner, as the fixture helpers it shares with
 * the unit tests assert through Check.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "../unit/fixtures.h"

extern const char *const kmt_shipped_formats[][2];

/* The format set written with these events (zone_locked has percpu_refill). */
#define SYNTH_FORMATS	"6.1"

/* The shipped format text of kmem:@name in SYNTH_FORMATS (up to the next "#system"). */
static char *shipped_format(const char *name)
{
	char key[64];
	const char *p = NULL, *end;
	int i;

	snprintf(key, sizeof(key), "#system kmem\nname: %s\n", name);
	for (i = 0; kmt_shipped_formats[i][0]; i++)
		if (!strcmp(kmt_shipped_formats[i][0], SYNTH_FORMATS))
			p = strstr(kmt_shipped_formats[i][1], key);
	if (!p)
		return NULL;
	p += strlen("#system kmem\n");
	end = strstr(p, "#system ");
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

/* One event to write: its format's event and the fields to set. */
struct synth {
	const char *event;
	const char *fields[4];
	unsigned long long values[4];
};

static const struct synth events[] = {
	{ "mm_page_pcpu_drain", { "pfn", "order", "migratetype" }, { 0x1000, 0, 1 } },
	{ "mm_page_pcpu_drain", { "pfn", "order", "migratetype" }, { 0x1001, 2, 7 } },
	{ "mm_page_alloc_zone_locked", { "pfn", "order", "migratetype", "percpu_refill" },
	  { 0x2000, 3, 0, 1 } },
	{ "fault_return", { "__probe_func", "__probe_ret_ip", "ret" },
	  { 0xffffffff81400000ull, 0xffffffff814001a5ull, 0x0 } },
	{ "fault_return", { "__probe_func", "__probe_ret_ip", "ret" },
	  { 0xffffffff81400000ull, 0xffffffff814001a5ull, 0x404 } },
	{ "fault_return", { "__probe_func", "__probe_ret_ip", "ret" },
	  { 0xffffffff81400000ull, 0xffffffff814001a5ull, 0x1 } },
};
#define NEVENTS	(sizeof(events) / sizeof(events[0]))

static const char *out_path;

START_TEST(write_synth)
{
	static const char ksyms[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81400000 T handle_mm_fault\n"
				    "ffffffff81400100 T do_user_addr_fault\n"
				    "ffffffff81500000 T after_fault\n";
	char *drain = shipped_format("mm_page_pcpu_drain");
	char *locked = shipped_format("mm_page_alloc_zone_locked");
	struct kmt_td_format formats[3] = {
		{ "kmem", drain, 0 },
		{ "kmem", locked, 0 },
		{ "kmtrace", fix_fmt_fault_return, strlen(fix_fmt_fault_return) },
	};
	struct tep_handle *tep = tep_alloc();
	struct kmt_tracedat_meta meta;
	struct fix_page page, *pages = &page;
	unsigned char buf[64];
	int npages = 1, i, j;
	char *path;

	ck_assert(tep && drain && locked);
	for (i = 0; i < 3; i++) {
		if (!formats[i].len)
			formats[i].len = strlen(formats[i].text);
		tep_parse_event(tep, formats[i].text, formats[i].len, formats[i].system);
	}
	fix_page_init(&page, 1000000000ull);
	for (i = 0; i < (int)NEVENTS; i++) {
		struct tep_event *e = tep_find_event_by_name(tep, NULL, events[i].event);
		int len = 0;

		ck_assert_ptr_nonnull(e);
		for (struct tep_format_field *f = e->format.fields; f; f = f->next)
			len = f->offset + f->size > len ? f->offset + f->size : len;
		fix_common(buf, e->id, 100, len);
		for (j = 0; j < 4 && events[i].fields[j]; j++)
			ck_assert(fix_set_field(buf, e, events[i].fields[j], events[i].values[j]));
		fix_page_add(&page, 1000000000ull + 1000 * i, buf, len);
	}
	fix_meta(&meta, NULL, 0);
	meta.formats = formats;
	meta.nformats = 3;
	meta.kallsyms = (struct kmt_td_blob){ ksyms, sizeof(ksyms) - 1, -1 };
	path = fix_write_tracedat(&meta, 1, &pages, &npages);
	ck_assert_msg(!rename(path, out_path), "cannot write %s", out_path);
	free(path);
	free(drain);
	free(locked);
	tep_free(tep);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("synth-dat");
	TCase *tc = tcase_create("write");
	SRunner *sr;
	int failed;

	if (argc != 2) {
		fprintf(stderr, "usage: synth-dat OUT\n");
		return 2;
	}
	out_path = argv[1];
	tcase_add_test(tc, write_synth);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
