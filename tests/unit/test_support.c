// SPDX-License-Identifier: LGPL-2.1
/* Building blocks: the 64-bit hash map and the kallsyms symbol table. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>

#include <kmtrace/reader.h>
#include "hashmap.h"
#include "symbols.h"
#include "fixtures.h"
#include "suites.h"

#define NKEYS	4096

/* Random puts and deletes, checked against a plain array after each step. */
START_TEST(test_hashmap_against_array)
{
	static uint64_t val[NKEYS];
	static bool present[NKEYS];
	struct kmt_hashmap m;
	size_t count = 0;
	uint64_t v;
	int i, k;

	ck_assert_int_eq(kmt_hashmap_init(&m), 0);
	srand(7);
	for (i = 0; i < 200000; i++) {
		/* Keys share their low bits, like slab pointers; key 0 is allowed. */
		k = rand() % NKEYS;
		if (rand() % 3) {
			count += !present[k];
			present[k] = true;
			val[k] = rand();
			ck_assert_int_eq(kmt_hashmap_put(&m, (uint64_t)k << 6, val[k]), 0);
		} else {
			ck_assert_int_eq(kmt_hashmap_del(&m, (uint64_t)k << 6, &v), present[k]);
			if (present[k])
				ck_assert_uint_eq(v, val[k]);
			count -= present[k];
			present[k] = false;
		}
		ck_assert_uint_eq(kmt_hashmap_count(&m), count);
	}
	for (k = 0; k < NKEYS; k++) {
		ck_assert_int_eq(kmt_hashmap_get(&m, (uint64_t)k << 6, &v), present[k]);
		if (present[k])
			ck_assert_uint_eq(v, val[k]);
	}
	kmt_hashmap_free(&m);
}
END_TEST

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T first_alias\n"
	"ffffffff81001000 t second_alias\n"
	"ffffffff81002000 t $x\n"
	"ffffffff81003000 T last_core\n"
	"garbage line\n"
	"ffffffffc0100000 t mod_func\t[ext4]\n"
	"ffffffffc0100400 t mod_end\t[ext4]";

START_TEST(test_symbols)
{
	struct kmt_symbols *t = kmt_symbols_parse(kallsyms, strlen(kallsyms));
	unsigned long long start;
	const char *mod;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(kmt_symbols_count(t), 5);	/* no 'A', '$x', alias or garbage */
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81001010ull, &start, &mod), "first_alias");
	ck_assert_uint_eq(start, 0xffffffff81001000ull);
	ck_assert_ptr_null(mod);
	/* '$x' is skipped: its address belongs to the symbol before it. */
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81002004ull, NULL, NULL), "first_alias");
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffffc0100020ull, &start, &mod), "mod_func");
	ck_assert_str_eq(mod, "ext4");
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffffc0100400ull, NULL, NULL), "mod_end");
	ck_assert_ptr_null(kmt_symbols_find(t, 0xffffffffc0100401ull, NULL, NULL));
	ck_assert_ptr_null(kmt_symbols_find(t, 0xffffffff80000000ull, NULL, NULL));
	kmt_symbols_free(t);
}
END_TEST

/* The kallsyms a recording carries resolve call sites through the reader. */
START_TEST(test_reader_symbol)
{
	struct fix_page *pages[1] = { NULL };
	int npages[1] = { 0 };
	struct kmt_tracedat_meta m;
	struct kmt_reader *r;
	struct kmt_error err;
	char buf[128], *path;

	fix_meta(&m, NULL, 0);
	path = fix_write_tracedat(&m, 1, pages, npages);
	r = kmt_reader_open(path, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(kmt_reader_symbol(r, 0xffffffff81234570ull, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "kmalloc_test_site+0x10");
	ck_assert_int_eq(kmt_reader_symbol(r, 0x1234, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0x1234");
	ck_assert_int_eq(kmt_reader_cpu_node(r, 0), -1);	/* no CPU node map saved */
	kmt_reader_close(r);
	unlink(path);
	free(path);
}
END_TEST

Suite *support_suite(void)
{
	Suite *s = suite_create("support");
	TCase *tc = tcase_create("support");

	tcase_add_test(tc, test_hashmap_against_array);
	tcase_add_test(tc, test_symbols);
	tcase_add_test(tc, test_reader_symbol);
	suite_add_tcase(s, tc);
	return s;
}
