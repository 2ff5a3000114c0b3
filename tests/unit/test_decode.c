// SPDX-License-Identifier: LGPL-2.1
/* Decode: embedded format texts, hand-built payloads. */
#include <string.h>
#include <check.h>
#include <traceevent/event-parse.h>

#include <kmtrace/event.h>
#include "fixtures.h"
#include "analyses/symbolic.h"
#include "suites.h"

static struct tep_handle *tep_with(const char *const *formats, int n)
{
	struct tep_handle *tep = tep_alloc();
	int i;

	ck_assert_ptr_nonnull(tep);
	tep_set_long_size(tep, 8);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(tep_parse_event(tep, formats[i], strlen(formats[i]), "kmem"), 0);
	return tep;
}

START_TEST(test_kmalloc_fields)
{
	const char *fmts[] = { fix_fmt_kmalloc };
	struct tep_handle *tep = tep_with(fmts, 1);
	struct kmt_decoder *dec = kmt_decoder_new(tep);
	unsigned char buf[64];
	struct kmt_event ev;
	size_t len = fix_kmalloc(buf, 4242, 0xffffffff81234560ull, 0xffff888012345678ull,
				 100, 128, -1);

	ck_assert_int_eq(kmt_decode(dec, buf, len, &ev), KMT_EV_KMALLOC);
	ck_assert_int_eq(ev.id, 658);
	ck_assert_int_eq(ev.pid, 4242);
	ck_assert_uint_eq(ev.call_site, 0xffffffff81234560ull);
	ck_assert_uint_eq(ev.ptr, 0xffff888012345678ull);
	ck_assert_uint_eq(ev.bytes_req, 100);
	ck_assert_uint_eq(ev.bytes_alloc, 128);
	ck_assert_uint_eq(ev.gfp_flags, 0xcc0);
	ck_assert_int_eq(ev.node, -1);		/* signed field sign-extended */
	ck_assert(ev.flags & KMT_EVF_HAS_NODE);
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

START_TEST(test_short_payload_is_unknown)
{
	const char *fmts[] = { fix_fmt_kmalloc };
	struct tep_handle *tep = tep_with(fmts, 1);
	struct kmt_decoder *dec = kmt_decoder_new(tep);
	unsigned char buf[64];
	struct kmt_event ev;

	fix_kmalloc(buf, 1, 1, 2, 3, 4, 0);
	ck_assert_int_eq(kmt_decode(dec, buf, 40, &ev), KMT_EV_UNKNOWN);
	ck_assert_int_eq(kmt_decode(dec, buf, 1, &ev), KMT_EV_UNKNOWN);
	ck_assert_int_eq(ev.id, -1);
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

START_TEST(test_unknown_event_counted_not_fatal)
{
	const char *fmts[] = { fix_fmt_kmalloc, fix_fmt_other };
	struct tep_handle *tep = tep_with(fmts, 2);
	struct kmt_decoder *dec = kmt_decoder_new(tep);
	unsigned char buf[16];
	struct kmt_event ev;

	fix_common(buf, 900, 77, sizeof(buf));
	ck_assert_int_eq(kmt_decode(dec, buf, sizeof(buf), &ev), KMT_EV_UNKNOWN);
	ck_assert_int_eq(ev.id, 900);
	ck_assert_int_eq(ev.pid, 77);
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

/*
 * Events nobody reads the fields of (kmt_decoder_only) are still known or
 * unknown as when decoded: too short is unknown, and the sizes
 * kmt_event_possible() checks are filled, the other fields are not.
 */
START_TEST(test_type_only_keeps_the_checks)
{
	const char *fmts[] = { fix_fmt_kmalloc };
	struct tep_handle *tep = tep_with(fmts, 1);
	struct kmt_decoder *dec = kmt_decoder_new(tep);
	bool want[KMT_EV_NR] = { false };
	unsigned char buf[64];
	struct kmt_event ev;
	size_t len = fix_kmalloc(buf, 7, 0xffffffff81234560ull, 0xabc0, 1ull << 40, 128, 0);

	kmt_decoder_only(dec, want);
	memset(&ev, 0, sizeof(ev));
	ev.bytes_req = 99;		/* what an earlier event left */
	ck_assert_int_eq(kmt_decode(dec, buf, len, &ev), KMT_EV_KMALLOC);
	ck_assert(ev.flags & KMT_EVF_TYPE_ONLY);
	ck_assert_int_eq(ev.pid, 7);
	ck_assert_uint_eq(ev.bytes_req, 1ull << 40);
	ck_assert_uint_eq(ev.bytes_alloc, 128);
	ck_assert_uint_eq(ev.ptr, 0);		/* not read */
	ck_assert(!kmt_event_possible(&ev));
	ck_assert(ev.flags & KMT_EVF_IMPOSSIBLE);	/* what the replay counts */
	fix_kmalloc(buf, 7, 1, 0xabc0, 100, 128, 0);
	ck_assert_int_eq(kmt_decode(dec, buf, len, &ev), KMT_EV_KMALLOC);
	ck_assert(kmt_event_possible(&ev));
	ck_assert(!(ev.flags & KMT_EVF_IMPOSSIBLE));
	ck_assert_int_eq(kmt_decode(dec, buf, 40, &ev), KMT_EV_UNKNOWN);
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

/*
 * Type-only events whose checked fields are read as words: a 4-byte
 * order is read as its value; a checked member the format lacks is 0
 * whatever an earlier event left in it.
 */
START_TEST(test_type_only_words_and_missing_fields)
{
	static const char fmt_page_free[] =
		"name: mm_page_free\nID: 700\nformat:\n" FIX_COMMON_FIELDS
		"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"pfn=%lu order=%u\", REC->pfn, REC->order\n";
	static const char fmt_kmalloc_short[] =
		"name: kmalloc\nID: 658\nformat:\n" FIX_COMMON_FIELDS
		"\tfield:const void * ptr;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:size_t bytes_alloc;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"ptr=%p bytes_alloc=%zu\", REC->ptr, REC->bytes_alloc\n";
	const char *fmts[] = { fmt_page_free, fmt_kmalloc_short };
	struct tep_handle *tep = tep_with(fmts, 2);
	struct kmt_decoder *dec = kmt_decoder_new(tep);
	bool want[KMT_EV_NR] = { false };
	unsigned char buf[24] = { 0 };
	uint16_t id = 700;
	uint32_t order = 40;
	uint64_t bytes = 4096;
	struct kmt_event ev;

	kmt_decoder_only(dec, want);
	memset(&ev, 0, sizeof(ev));
	memcpy(buf, &id, 2);
	memcpy(buf + 16, &order, 4);
	ck_assert_int_eq(kmt_decode(dec, buf, 24, &ev), KMT_EV_PAGE_FREE);
	ck_assert_uint_eq(ev.order, 40);
	ck_assert(ev.flags & KMT_EVF_IMPOSSIBLE);	/* far past any buddy allocator's */
	order = 3;
	memcpy(buf + 16, &order, 4);
	ck_assert_int_eq(kmt_decode(dec, buf, 24, &ev), KMT_EV_PAGE_FREE);
	ck_assert_uint_eq(ev.order, 3);
	ck_assert(!(ev.flags & KMT_EVF_IMPOSSIBLE));
	id = 658;
	memcpy(buf, &id, 2);
	memcpy(buf + 16, &bytes, 8);
	ev.bytes_req = 1ull << 40;	/* left by an earlier event: impossible */
	ck_assert_int_eq(kmt_decode(dec, buf, 24, &ev), KMT_EV_KMALLOC);
	ck_assert_uint_eq(ev.bytes_alloc, 4096);
	ck_assert_uint_eq(ev.bytes_req, 0);	/* no such field: 0 */
	ck_assert(!(ev.flags & KMT_EVF_IMPOSSIBLE));
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

START_TEST(test_cache_alloc_data_loc_name)
{
	const char *fmts[] = { fix_fmt_cache_alloc };
	struct tep_handle *tep = tep_with(fmts, 1);
	struct kmt_decoder *dec = kmt_decoder_new(tep);
	unsigned char buf[80];
	uint32_t loc = (7u << 16) | 56;		/* "dentry\0" at offset 56 */
	uint64_t ptr = 0xabc0;
	struct kmt_event ev;

	fix_common(buf, 660, 5, sizeof(buf));
	memcpy(buf + 16, &ptr, 8);
	memcpy(buf + 52, &loc, 4);
	memcpy(buf + 56, "dentry", 7);
	ck_assert_int_eq(kmt_decode(dec, buf, 63, &ev), KMT_EV_CACHE_ALLOC);
	ck_assert_uint_eq(ev.ptr, 0xabc0);
	ck_assert_int_eq(ev.str_len, 6);
	ck_assert(!memcmp(ev.str, "dentry", 6));
	/* A name pointing past the record is dropped, not read. */
	loc = (7u << 16) | 60;
	memcpy(buf + 52, &loc, 4);
	ck_assert_int_eq(kmt_decode(dec, buf, 63, &ev), KMT_EV_CACHE_ALLOC);
	ck_assert_ptr_null(ev.str);
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

START_TEST(test_page_alloc_pfn_and_page_fallback)
{
	const char *now[] = { fix_fmt_page_alloc }, *old[] = { fix_fmt_page_alloc_old };
	struct tep_handle *tep_now = tep_with(now, 1), *tep_old = tep_with(old, 1);
	struct kmt_decoder *dnow = kmt_decoder_new(tep_now), *dold = kmt_decoder_new(tep_old);
	unsigned char buf[40];
	uint64_t pfn = 0x12345;
	uint32_t order = 3;
	int32_t mt = 1;
	struct kmt_event ev;

	fix_common(buf, 664, 9, sizeof(buf));
	memcpy(buf + 8, &pfn, 8);
	memcpy(buf + 16, &order, 4);
	memcpy(buf + 32, &mt, 4);
	ck_assert_int_eq(kmt_decode(dnow, buf, sizeof(buf), &ev), KMT_EV_PAGE_ALLOC);
	ck_assert_uint_eq(ev.pfn, 0x12345);
	ck_assert_uint_eq(ev.order, 3);
	ck_assert_int_eq(ev.migratetype, 1);
	ck_assert(!(ev.flags & KMT_EVF_PFN_IS_PAGE));
	memcpy(buf + 24, &mt, 4);	/* old layout: migratetype at 24 */
	ck_assert_int_eq(kmt_decode(dold, buf, 28, &ev), KMT_EV_PAGE_ALLOC);
	ck_assert_uint_eq(ev.pfn, 0x12345);
	ck_assert(ev.flags & KMT_EVF_PFN_IS_PAGE);
	ck_assert_int_eq(ev.migratetype, 1);
	kmt_decoder_free(dnow);
	kmt_decoder_free(dold);
	tep_free(tep_now);
	tep_free(tep_old);
}
END_TEST

START_TEST(test_event_names)
{
	ck_assert_str_eq(kmt_event_type_name(KMT_EV_KMALLOC), "kmem:kmalloc");
	ck_assert_str_eq(kmt_event_type_name(KMT_EV_FAULT_USER), "exceptions:page_fault_user");
	ck_assert_int_eq(kmt_event_type_lookup("kmem:mm_page_alloc"), KMT_EV_PAGE_ALLOC);
	ck_assert_int_eq(kmt_event_type_lookup("mark_victim"), KMT_EV_OOM_VICTIM);
	ck_assert_int_eq(kmt_event_type_lookup("sched:kmalloc"), KMT_EV_UNKNOWN);
	ck_assert_int_eq(kmt_event_type_lookup("nosuch"), KMT_EV_UNKNOWN);
}
END_TEST

/* mm_compaction_end as 6.18 writes it (its status names trimmed to three). */
static const char fmt_compaction_end[] =
	"name: mm_compaction_end\nID: 669\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long zone_start;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long migrate_pfn;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long free_pfn;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long zone_end;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:bool sync;\toffset:40;\tsize:1;\tsigned:0;\n"
	"\tfield:int status;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"zone_end=0x%lx, mode=%s status=%s\", REC->zone_end, "
	"REC->sync ? \"sync\" : \"async\", __print_symbolic(REC->status, {1, \"skipped\"}, "
	"{8, \"success\"}, {3, \"no_suitable_page\"})\n";

START_TEST(test_compaction_end_and_status_names)
{
	struct tep_handle *tep = tep_alloc();
	struct kmt_decoder *dec;
	unsigned char buf[48] = { 0 };
	uint16_t id = 669;
	int32_t pid = 77, status = 8;
	uint64_t start = 0x1000, end = 0x48000;
	struct kmt_event ev;
	char name[32];

	tep_set_long_size(tep, 8);
	ck_assert_int_eq(tep_parse_event(tep, fmt_compaction_end, strlen(fmt_compaction_end),
					 "compaction"), 0);
	dec = kmt_decoder_new(tep);
	memcpy(buf, &id, 2);
	memcpy(buf + 4, &pid, 4);
	memcpy(buf + 8, &start, 8);
	memcpy(buf + 32, &end, 8);
	buf[40] = 1;
	memcpy(buf + 44, &status, 4);
	ck_assert_int_eq(kmt_decode(dec, buf, sizeof(buf), &ev), KMT_EV_COMPACTION_END);
	ck_assert_int_eq(ev.pid, 77);
	ck_assert_uint_eq(ev.pfn, 0x1000);
	ck_assert_uint_eq(ev.compaction.end_pfn, 0x48000);
	ck_assert_int_eq(ev.compaction.sync, 1);
	ck_assert_int_eq(ev.compaction.status, 8);
	ck_assert(kmt_event_type_on_request(KMT_EV_COMPACTION_END));
	ck_assert(!kmt_event_type_on_request(KMT_EV_KMALLOC));
	ck_assert_str_eq(kmt_symbolic_name(tep, "compaction", "mm_compaction_end", "status", 8,
					   name, sizeof(name)), "success");
	ck_assert_str_eq(kmt_symbolic_name(tep, "compaction", "mm_compaction_end", "status", 3,
					   name, sizeof(name)), "no_suitable_page");
	ck_assert_str_eq(kmt_symbolic_name(tep, "compaction", "mm_compaction_end", "status", 5,
					   name, sizeof(name)), "5");
	ck_assert_str_eq(kmt_symbolic_name(tep, "compaction", "mm_compaction_end", "sync", 1,
					   name, sizeof(name)), "1");
	ck_assert_int_eq(kmt_decode(dec, buf, 44, &ev), KMT_EV_UNKNOWN);	/* status cut off */
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

/* Values no check lets through at one member or another. */
static const uint64_t poisons[] = { ~0ull, 1ull << 63, 1ull << 62 };

/* Is @ev refused with one of the poisons at @member? */
static bool poison_refused(struct kmt_event ev, size_t member)
{
	size_t i;

	for (i = 0; i < sizeof(poisons) / sizeof(poisons[0]); i++) {
		memcpy((char *)&ev + member, &poisons[i], 8);
		if (!kmt_event_possible(&ev))
			return true;
	}
	return false;
}

/*
 * kmt_event_checks() names exactly the members kmt_event_possible() reads:
 * each named one can make an event impossible, no other can, for every type.
 */
START_TEST(test_checked_members_match_the_check)
{
	size_t m, first = offsetof(struct kmt_event, flags) + sizeof(unsigned int);
	int t, named = 0;

	for (t = KMT_EV_UNKNOWN + 1; t < KMT_EV_NR; t++) {
		struct kmt_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = t;
		for (m = (first + 7) & ~7ul; m + 8 <= sizeof(ev); m += 8)
			if (kmt_event_checks(t, m))
				memcpy((char *)&ev + m, &(uint64_t){ 1 }, 8);	/* 1 passes every check */
		ck_assert_msg(kmt_event_possible(&ev), "%s: a plain event refused",
			      kmt_event_type_name(t));
		for (m = (first + 7) & ~7ul; m + 8 <= sizeof(ev); m += 8) {
			ck_assert_msg(poison_refused(ev, m) == kmt_event_checks(t, m),
				      "%s: member at %zu %s by the check but %s", kmt_event_type_name(t),
				      m, poison_refused(ev, m) ? "read" : "not read",
				      kmt_event_checks(t, m) ? "named" : "not named");
			named += kmt_event_checks(t, m);
		}
	}
	ck_assert_int_gt(named, 0);
}
END_TEST

Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, test_kmalloc_fields);
	tcase_add_test(tc, test_short_payload_is_unknown);
	tcase_add_test(tc, test_unknown_event_counted_not_fatal);
	tcase_add_test(tc, test_type_only_keeps_the_checks);
	tcase_add_test(tc, test_type_only_words_and_missing_fields);
	tcase_add_test(tc, test_checked_members_match_the_check);
	tcase_add_test(tc, test_cache_alloc_data_loc_name);
	tcase_add_test(tc, test_page_alloc_pfn_and_page_fallback);
	tcase_add_test(tc, test_event_names);
	tcase_add_test(tc, test_compaction_end_and_status_names);
	suite_add_tcase(s, tc);
	return s;
}
