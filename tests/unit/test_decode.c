// SPDX-License-Identifier: LGPL-2.1
/* Decode: embedded format texts, hand-built payloads. */
#include <string.h>
#include <check.h>
#include <traceevent/event-parse.h>

#include <kmtrace/event.h>
#include "fixtures.h"
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

Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, test_kmalloc_fields);
	tcase_add_test(tc, test_short_payload_is_unknown);
	tcase_add_test(tc, test_unknown_event_counted_not_fatal);
	tcase_add_test(tc, test_cache_alloc_data_loc_name);
	tcase_add_test(tc, test_page_alloc_pfn_and_page_fallback);
	tcase_add_test(tc, test_event_names);
	suite_add_tcase(s, tc);
	return s;
}
