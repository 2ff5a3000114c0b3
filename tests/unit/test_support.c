// SPDX-License-Identifier: LGPL-2.1
/* Building blocks: the 64-bit hash map and the kallsyms symbol table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <check.h>

#include <kmtrace/analysis.h>
#include <kmtrace/reader.h>
#include <traceevent/event-parse.h>

#include "common/hashmap.h"
#include "common/mmnames.h"
#include "common/objmap.h"
#include "analyses/page_recent.h"
#include "common/pager.h"
#include "common/proctable.h"
#include "common/radix.h"
#include "common/util.h"
#include "core/replay_local.h"
#include "input/footprint.h"
#include "input/kallsyms_copy.h"
#include "input/symbols.h"
#include "input/vmlinux.h"
#include "fixtures.h"
#include "suites.h"

#define NKEYS	4096

/* Key @k of the test: they share their low bits, like slab pointers; 0 and the free-slot mark are keys too. */
static uint64_t test_key(int k)
{
	return k == NKEYS - 1 ? KMT_HASH_FREE : (uint64_t)k << 6;
}

/* Random puts and deletes, checked against a plain array after each step. */
START_TEST(test_hashmap_against_array)
{
	static uint64_t val[NKEYS];
	static bool present[NKEYS], visited[NKEYS];
	struct kmt_hashmap m;
	size_t count = 0, pos = 0, seen = 0;
	uint64_t v, key;
	int i, k;

	ck_assert_int_eq(kmt_hashmap_init(&m), 0);
	srand(7);
	for (i = 0; i < 200000; i++) {
		k = rand() % NKEYS;
		if (rand() % 3) {
			count += !present[k];
			present[k] = true;
			val[k] = rand();
			ck_assert_int_eq(kmt_hashmap_put(&m, test_key(k), val[k]), 0);
		} else {
			ck_assert_int_eq(kmt_hashmap_del(&m, test_key(k), &v), present[k]);
			if (present[k])
				ck_assert_uint_eq(v, val[k]);
			count -= present[k];
			present[k] = false;
		}
		ck_assert_uint_eq(kmt_hashmap_count(&m), count);
	}
	for (k = 0; k < NKEYS; k++) {
		ck_assert_int_eq(kmt_hashmap_get(&m, test_key(k), &v), present[k]);
		if (present[k])
			ck_assert_uint_eq(v, val[k]);
	}
	/* every key once, with its value */
	while (kmt_hashmap_next(&m, &pos, &key, &v)) {
		k = key == KMT_HASH_FREE ? NKEYS - 1 : (int)(key >> 6);
		ck_assert(present[k] && !visited[k] && v == val[k]);
		visited[k] = true;
		seen++;
	}
	ck_assert_uint_eq(seen, count);
	ck_assert(present[NKEYS - 1]);	/* the free-slot mark was in at the end */
	kmt_hashmap_free(&m);
}
END_TEST

/* kmt_hashmap_find() agrees with kmt_hashmap_get() through puts, changes and deletes. */
START_TEST(test_hashmap_find)
{
	struct kmt_hashmap m;
	uint64_t v, w;
	int i, k;

	ck_assert_int_eq(kmt_hashmap_init(&m), 0);
	srand(11);
	for (i = 0; i < 20000; i++) {
		k = rand() % 64;
		switch (rand() % 8) {
		case 0:
			ck_assert_int_eq(kmt_hashmap_put(&m, test_key(k), i), 0);	/* new or changed */
			break;
		case 1:
			kmt_hashmap_del(&m, test_key(k), NULL);
			break;
		}
		k = rand() % 4 ? k : rand() % 64;	/* runs of one key, as a task's events */
		v = w = UINT64_MAX - 1;
		ck_assert_int_eq(kmt_hashmap_find(&m, test_key(k), &v),
				 kmt_hashmap_get(&m, test_key(k), &w));
		ck_assert_uint_eq(v, w);
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

/*
 * Addresses read as strtoull(16) reads them, the hand-read kallsyms form
 * and the rest alike; lines out of address order sorted.
 */
START_TEST(test_symbols_addresses)
{
	static const char text[] =
		"FFFFFFFF81004000 T upper_case\n"
		"0xffffffff81005000 T with_prefix\n"
		"  ffffffff81006000 T after_blanks\n"
		"1ffffffff81007000 T seventeen_digits\n"
		"81000 T short\n"
		"ffffffff81002000 T out_of_order\n";
	struct kmt_symbols *t = kmt_symbols_parse(text, strlen(text));

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(kmt_symbols_count(t), 6);
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81004008ull, NULL, NULL), "upper_case");
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81005008ull, NULL, NULL), "with_prefix");
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81006008ull, NULL, NULL), "after_blanks");
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81002008ull, NULL, NULL), "out_of_order");
	ck_assert_str_eq(kmt_symbols_find(t, 0x81008ull, NULL, NULL), "short");
	/* 17 digits overflow: strtoull's ULLONG_MAX */
	ck_assert_str_eq(kmt_symbols_find(t, ~0ull, NULL, NULL), "seventeen_digits");
	kmt_symbols_free(t);
}
END_TEST

/* Another boot's kallsyms, moved to this one: core symbols shift, modules go. */
START_TEST(test_symbols_relocate)
{
	struct kmt_symbols *t = kmt_symbols_parse(kallsyms, strlen(kallsyms));
	unsigned long long start;

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(kmt_symbols_relocate(t, 0x200000), 2);
	ck_assert_uint_eq(kmt_symbols_count(t), 3);
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81201010ull, &start, NULL), "first_alias");
	ck_assert_uint_eq(start, 0xffffffff81201000ull);
	ck_assert_ptr_null(kmt_symbols_find(t, 0xffffffff81001010ull, NULL, NULL));
	ck_assert_ptr_null(kmt_symbols_find(t, 0xffffffffc0100020ull, NULL, NULL));
	/* and back: a negative move is the same sum, modulo 2^64 */
	ck_assert_uint_eq(kmt_symbols_relocate(t, -0x200000ull), 0);
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81001010ull, NULL, NULL), "first_alias");
	kmt_symbols_free(t);
}
END_TEST

/* A large kallsyms text: long and short names, modules, absolute symbols and _text lines. */
static char *big_kallsyms(int lines, unsigned long long *text_addr)
{
	static const char filler[] = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvw"
				     "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvw"
				     "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvw"
				     "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t cap = (size_t)lines * 320, len = 0;
	char *text = malloc(cap);
	int i;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < lines; i++) {
		unsigned long long addr = 0xffffffff81000000ull + (unsigned long long)i * 0x40;

		if (i == lines / 3)	/* a module's _text and a local one do not count */
			len += snprintf(text + len, cap - len, "%016llx T _text\t[early]\n"
					"%016llx t _text\n", addr, addr);
		if (i == lines / 2) {
			len += snprintf(text + len, cap - len, "%016llx T _text", addr);
			*text_addr = addr;
		} else {
			len += snprintf(text + len, cap - len, "%016llx %c sym_%d_%.*s", addr,
					i % 11 ? 'T' : 'A', i, i % 97 * 2, filler);
		}
		if (i % 7 == 0)
			len += snprintf(text + len, cap - len, "\t[mod%d]", i / 1000);
		if (i < lines - 1)	/* the last line without its newline */
			text[len++] = '\n';
	}
	text[len] = '\0';
	return text;
}

/*
 * /proc/kallsyms read a piece at a time (lines cut between pieces) gives
 * the table of the whole text parsed at once, and the core kernel's _text.
 */
START_TEST(test_symbols_read)
{
	char path[] = "/tmp/kmt-unit-kallsyms-XXXXXX";
	unsigned long long text_addr = 0, start, start2;
	char *text = big_kallsyms(30000, &text_addr);
	struct kmt_symbols *whole, *read;
	const char *mod, *mod2;
	size_t i, len = strlen(text);
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_uint_gt(len, 1u << 20);	/* several pieces */
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	whole = kmt_symbols_parse(text, len);
	read = kmt_symbols_read(path);
	unlink(path);
	ck_assert_ptr_nonnull(whole);
	ck_assert_ptr_nonnull(read);
	ck_assert_uint_eq(kmt_symbols_count(read), kmt_symbols_count(whole));
	ck_assert_uint_eq(kmt_symbols_count(read), 30000 - (30000 + 10) / 11);
	ck_assert_uint_eq(kmt_symbols_text_addr(read), text_addr);
	ck_assert_uint_eq(kmt_symbols_text_addr(whole), text_addr);
	for (i = 0; i < 30000; i++) {
		unsigned long long addr = 0xffffffff81000000ull + i * 0x40;
		const char *name = kmt_symbols_find(read, addr, &start, &mod);

		ck_assert_pstr_eq(name, kmt_symbols_find(whole, addr, &start2, &mod2));
		if (!name) {
			ck_assert_uint_eq(i, 0);	/* an 'A' line: nothing below it */
			continue;
		}
		ck_assert_uint_eq(start, start2);
		ck_assert((mod == NULL) == (mod2 == NULL));
		if (mod)
			ck_assert_str_eq(mod, mod2);
		if (i % 11 && i % 7 == 0)
			ck_assert_int_eq(atoi(mod + 3), (int)i / 1000);
	}
	kmt_symbols_free(whole);
	kmt_symbols_free(read);
	free(text);
	ck_assert_ptr_null(kmt_symbols_read(path));	/* gone: errno from open() */
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* A NUL ends the text, as it ended the string it was parsed as. */
START_TEST(test_symbols_nul)
{
	static const char text[] = "ffffffff81000000 T before\n"
				   "ffffffff81001000 T cut\0short\n"
				   "ffffffff81002000 T after\n";
	struct kmt_symbols *t = kmt_symbols_parse(text, sizeof(text) - 1);

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(kmt_symbols_count(t), 2);
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81000008ull, NULL, NULL), "before");
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffff81001000ull, NULL, NULL), "cut");
	ck_assert_ptr_null(kmt_symbols_find(t, 0xffffffff81002000ull, NULL, NULL));
	ck_assert_uint_eq(kmt_symbols_text_addr(t), 0);
	kmt_symbols_free(t);
}
END_TEST

/*
 * A recording that kept only its _text (no kallsyms, as --no-kallsyms
 * makes) and a --kallsyms file of the same build from another boot: the
 * file's symbols are moved to the recording's _text, and said so.
 */
START_TEST(test_reader_relocates_kallsyms)
{
	static const char other_boot[] = "ffffffff81000000 T _text\n"
					 "ffffffff81234560 T kmalloc_test_site\n"
					 "ffffffff81240000 T after_test_site\n"
					 "ffffffffc0100000 t mod_func\t[ext4]\n";
	static const char kernel[] = "text 0xffffffff9a000000\nbuild-id 00ff\n";
	const struct kmt_td_option opt = KMT_TD_OPT(KMT_TD_OPT_KMT_KERNEL, kernel, sizeof(kernel));
	struct fix_page *pages[1] = { NULL };
	int npages[1] = { 0 };
	char buf[128], ksyms[] = "/tmp/kmtrace-test-XXXXXX", *path;
	struct kmt_tracedat_meta m;
	struct kmt_reader *r;
	struct kmt_error err;
	int fd = mkstemp(ksyms);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, other_boot, strlen(other_boot)), (ssize_t)strlen(other_boot));
	close(fd);
	fix_meta(&m, &opt, 1);
	m.kallsyms = (struct kmt_td_blob){ NULL, 0, -1 };
	path = fix_write_tracedat(&m, 1, pages, npages);
	r = kmt_reader_open(path, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(kmt_reader_use_kallsyms(r, ksyms, &err), 0);
	ck_assert_int_eq(kmt_reader_symbol(r, 0xffffffff9a234570ull, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "kmalloc_test_site+0x10");
	ck_assert_int_eq(kmt_reader_symbol(r, 0xffffffff81234570ull, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(kmt_reader_text(r, KMT_TEXT_SYMBOLS),
				     "moved by +0x19000000 to the recording's _text"));
	ck_assert_ptr_nonnull(strstr(kmt_reader_text(r, KMT_TEXT_SYMBOLS),
				     "1 module symbols left out"));
	kmt_reader_close(r);
	unlink(path);
	unlink(ksyms);
	free(path);
}
END_TEST

/* A recording that kept only its _text and build-id @kernel (NULL: nothing). */
static struct kmt_reader *open_kernel_only(const char *kernel, char **path)
{
	const struct kmt_td_option opt = KMT_TD_OPT(KMT_TD_OPT_KMT_KERNEL, kernel,
						    kernel ? strlen(kernel) + 1 : 0);
	struct fix_page *pages[1] = { NULL };
	int npages[1] = { 0 };
	struct kmt_tracedat_meta m;
	struct kmt_error err;

	fix_meta(&m, &opt, kernel ? 1 : 0);
	m.kallsyms = (struct kmt_td_blob){ NULL, 0, -1 };
	*path = fix_write_tracedat(&m, 1, pages, npages);
	return kmt_reader_open(*path, &err);
}

/* traces/standin/vmlinux, the stand-in kernel image (tests/standin). */
static void standin_path(char *buf, size_t len)
{
	const char *dir = getenv("KMT_TRACES");

	snprintf(buf, len, "%s/standin/vmlinux", dir ? dir : "traces");
}

/*
 * --vmlinux: the image's symbols moved to the recording's _text, with
 * file:line and inlines from its DWARF, and the addresses looked up counted;
 * an image of another build-id gives no names at all.
 */
START_TEST(test_reader_vmlinux)
{
	struct kmt_reader *r;
	struct kmt_error err;
	char image[512], buf[512], *path;
	size_t resolved, unresolved;

	standin_path(image, sizeof(image));
	r = open_kernel_only("text 0xffffffff9a000000\nbuild-id 00ff\n", &path);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(kmt_reader_use_vmlinux(r, image, &err), 1);
	ck_assert_ptr_nonnull(strstr(err.msg, "is not the recording's kernel (00ff)"));
	ck_assert_int_eq(kmt_reader_symbol(r, 0xffffffff9a000004ull, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0xffffffff9a000004");
	ck_assert(!kmt_reader_has_sources(r));
	kmt_reader_close(r);
	unlink(path);
	free(path);

	r = open_kernel_only("text 0xffffffff9a000000\n", &path);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(kmt_reader_use_vmlinux(r, image, &err), 0);
	ck_assert(kmt_reader_has_sources(r));
	ck_assert_ptr_nonnull(strstr(kmt_reader_text(r, KMT_TEXT_SYMBOLS),
				     "moved by +0x19000000 to the recording's _text"));
	/* kstrdup starts 0x4f past _text in the stand-in (nm): line 3 of mm/util.c */
	ck_assert_int_eq(kmt_reader_symbol(r, 0xffffffff9a000053ull, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "kstrdup+0x4 (mm/util.c:3)");
	ck_assert_int_eq(kmt_reader_source_file(r, 0xffffffff9a000053ull, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "mm/util.c");
	ck_assert_int_eq(kmt_reader_symbol(r, 0xffffffffa0001234ull, buf, sizeof(buf)), 0);
	ck_assert_int_eq(kmt_reader_symbol(r, 0xffffffff9a000053ull, buf, sizeof(buf)), 1);
	kmt_reader_symbol_counts(r, &resolved, &unresolved);
	ck_assert_uint_eq(resolved, 1);		/* each address once */
	ck_assert_uint_eq(unresolved, 1);
	kmt_reader_close(r);
	unlink(path);
	free(path);
}
END_TEST

/*
 * Source paths relative to the build tree: the unit's build directory
 * dropped, or the source tree above it (at least two levels deep) for an
 * absolute path outside it; "." and empty components folded, ".." too.
 */
START_TEST(test_vmlinux_relative_path)
{
	static const char *const cases[][3] = {
		{ "debian/build/b/arch/x86/kernel/head64.c", "debian/build/b",
		  "arch/x86/kernel/head64.c" },
		{ "/build/r/linux-6.1/arch/x86/entry/entry_64.S", "/build/r/linux-6.1/debian/build/b",
		  "arch/x86/entry/entry_64.S" },
		{ "/build/x.c", "/build/r", "/build/x.c" },	/* "/build" is one level */
		{ "/usr/include/stdio.h", "/home/u/proj", "/usr/include/stdio.h" },
		{ "/home/u/lib/x.h", "/home/u/proj", "lib/x.h" },
		{ "a//b/./../c.h", NULL, "a/c.h" },
		{ "fs/ext4/../../include/linux/slab.h", "", "include/linux/slab.h" },
	};
	char buf[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kmt_vmlinux_relative_path(buf, sizeof(buf), cases[i][0], cases[i][1]);
		ck_assert_str_eq(buf, cases[i][2]);
	}
}
END_TEST

/*
 * The stand-in image's footprint: its sections by class add up to what
 * size(1) counts, its symbols' bytes are within their classes' sections,
 * each function has its file, and kmt_static_by_file() gives every byte once.
 */
START_TEST(test_footprint_standin)
{
	struct kmt_static_file *files;
	struct kmt_footprint fp;
	struct kmt_error err;
	uint64_t in_class[KMT_FP_NCLASSES] = { 0 }, total = 0, by_file = 0;
	char image[512];
	size_t i, n;
	int c;

	standin_path(image, sizeof(image));
	ck_assert_int_eq(kmt_footprint_read(image, &fp, &err), 0);
	ck_assert(fp.dwarf && !fp.relocatable);
	ck_assert_uint_eq(fp.sections[KMT_FP_TEXT] + fp.sections[KMT_FP_RODATA], fp.size_text);
	ck_assert_uint_eq(fp.sections[KMT_FP_DATA], fp.size_data);
	ck_assert_uint_eq(fp.sections[KMT_FP_BSS], fp.size_bss);
	ck_assert_uint_eq(fp.sections[KMT_FP_TEXT], 115);	/* size -A: .text */
	ck_assert_uint_eq(fp.nsyms, 5);
	for (i = 0; i < fp.nsyms; i++) {
		in_class[fp.syms[i].cls] += fp.syms[i].bytes;
		ck_assert_ptr_nonnull(fp.syms[i].file);
		if (!strcmp(fp.syms[i].name, "kstrdup"))
			ck_assert_str_eq(fp.syms[i].file, "mm/util.c");
	}
	for (c = 0; c < KMT_FP_NCLASSES; c++) {
		ck_assert_uint_le(in_class[c], fp.sections[c]);
		ck_assert_uint_eq(fp.unclaimed[c], fp.sections[c] - in_class[c]);
		total += fp.sections[c];
	}
	kmt_footprint_free(&fp);

	ck_assert_int_eq(kmt_static_by_file(image, &files, &n, &err), 0);
	for (i = 0; i < n; i++)
		by_file += files[i].bytes;
	ck_assert_uint_eq(by_file, total);
	ck_assert_ptr_null(files[n - 1].file);		/* the bytes in no symbol, last */
	kmt_static_free(files, n);

	ck_assert_int_eq(kmt_footprint_read("/dev/null", &fp, &err), -1);
	ck_assert_str_eq(err.msg, "not an ELF file");
}
END_TEST

/* @text into a new file like @path (a mkstemp() template, changed), or "" for none. */
static void temp_file(char *path, const char *text)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A copy of kallsyms with two modules and JIT'd code, and /proc files to hold it to. */
static const char copy_kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T core_fn\n"
	"ffffffffc0001000 t ext4_fn\t[ext4]\n"
	"ffffffffc0001100 t ext4_other\t[ext4]\n"
	"ffffffffc0402000 d ext4_data\t[ext4]\n"	/* module data: elsewhere since 6.4 */
	"ffffffffc0008000 t nf_fn\t[nf_tables]\n"
	"ffffffffc0100000 t bpf_prog_1_x\t[bpf]\n"
	"ffffffffc0200000 t ftrace_trampoline\t[__builtin__ftrace]\n";

/* kmt_kallsyms_copy_read() of copy_kallsyms against @head and @modules ("": no such file). */
static struct kmt_symbols *read_copy(const char *head, const char *modules, char *why, size_t len)
{
	char copy[] = "/tmp/kmt-unit-copy-XXXXXX", kall[] = "/tmp/kmt-unit-kall-XXXXXX",
	     mods[] = "/tmp/kmt-unit-mods-XXXXXX";
	struct kmt_symbols *t;

	temp_file(copy, copy_kallsyms);
	temp_file(kall, head);
	temp_file(mods, modules);
	if (!modules[0])
		unlink(mods);
	t = kmt_kallsyms_copy_read(copy, kall, mods, why, len);
	unlink(copy);
	unlink(kall);
	unlink(mods);
	return t;
}

/*
 * perf's copy of kallsyms stands for this boot's only with this boot's
 * _text and every module where /proc/modules has it, and no other.
 */
START_TEST(test_kallsyms_copy_checked)
{
	static const char head[] = "0000000000000000 A fixed_percpu_data\n"
				   "ffffffff81000000 T _stext\nffffffff81000000 T _text\n",
			  moved_head[] = "ffffffff9a000000 T _text\n",
			  live[] = "nf_tables 40960 0 - Live 0xffffffffc0008000\n"
				   "ext4 1007616 1 - Live 0xffffffffc0001000 (E)\n",
			  ext4_moved[] = "nf_tables 40960 0 - Live 0xffffffffc0008000\n"
					 "ext4 1007616 1 - Live 0xffffffffc1001000\n",
			  one_more[] = "nf_tables 40960 0 - Live 0xffffffffc0008000\n"
				       "ext4 1007616 1 - Live 0xffffffffc0001000\n"
				       "xfs 20000 0 - Live 0xffffffffc2000000\n",
			  unloaded[] = "ext4 1007616 1 - Live 0xffffffffc0001000\n",
			  loading[] = "nf_tables 40960 0 - Loading 0xffffffffc0008000\n"
				      "ext4 1007616 1 - Live 0xffffffffc0001000\n";
	unsigned long long start;
	struct kmt_symbols *t;
	const char *mod;
	char why[160];

	t = read_copy(head, live, why, sizeof(why));
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(kmt_symbols_find(t, 0xffffffffc0001104ull, &start, &mod), "ext4_other");
	ck_assert_str_eq(mod, "ext4");
	kmt_symbols_free(t);

	ck_assert_ptr_null(read_copy(moved_head, live, why, sizeof(why)));
	ck_assert_str_eq(why, "its _text is not this boot's");
	ck_assert_ptr_null(read_copy(head, ext4_moved, why, sizeof(why)));
	ck_assert_str_eq(why, "module ext4 is not where it is loaded now");
	ck_assert_ptr_null(read_copy(head, one_more, why, sizeof(why)));
	ck_assert_str_eq(why, "module xfs is not where it is loaded now");
	ck_assert_ptr_null(read_copy(head, unloaded, why, sizeof(why)));
	ck_assert_str_eq(why, "module nf_tables is not loaded now");
	ck_assert_ptr_null(read_copy(head, loading, why, sizeof(why)));
	ck_assert_str_eq(why, "a module is loading or going");
	ck_assert_ptr_null(read_copy(head, "ext4 x\n", why, sizeof(why)));
	ck_assert_str_eq(why, "a line of /proc/modules does not parse");
	/* no /proc/modules: a kernel without modules, which the copy names */
	ck_assert_ptr_null(read_copy(head, "", why, sizeof(why)));
	ck_assert_str_eq(why, "module ext4 is not loaded now");
}
END_TEST

/* Where perf keeps its copy: $PERF_BUILDID_DIR, else ~/.debug; a regular file only. */
START_TEST(test_kallsyms_copy_path)
{
	static const char id[] = "e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1";
	char dir[] = "/tmp/kmt-unit-bid-XXXXXX", sub[512], file[600], path[600];
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/[kernel.kallsyms]", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/[kernel.kallsyms]/%s", dir, id);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(file, sizeof(file), "%s/kallsyms", sub);
	setenv("PERF_BUILDID_DIR", dir, 1);
	ck_assert_int_eq(kmt_kallsyms_copy_path(id, path, sizeof(path)), -1);	/* no file yet */
	ck_assert_int_eq(mkdir(file, 0700), 0);
	ck_assert_int_eq(kmt_kallsyms_copy_path(id, path, sizeof(path)), -1);	/* a directory */
	ck_assert_int_eq(rmdir(file), 0);
	fclose(fopen(file, "w"));
	ck_assert_int_eq(kmt_kallsyms_copy_path(id, path, sizeof(path)), 0);
	ck_assert_str_eq(path, file);
	ck_assert_int_eq(kmt_kallsyms_copy_path("", path, sizeof(path)), -1);
	ck_assert_int_eq(kmt_kallsyms_copy_path("../x", path, sizeof(path)), -1);
	unsetenv("PERF_BUILDID_DIR");
	*strrchr(dir, '/') = '\0';	/* HOME=/tmp: /tmp/.debug, not the file above */
	setenv("HOME", dir, 1);
	ck_assert_int_eq(kmt_kallsyms_copy_path(id, path, sizeof(path)), access(
		"/tmp/.debug/[kernel.kallsyms]/e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1/kallsyms",
		F_OK) ? -1 : 0);
	ck_assert_str_eq(path, "/tmp/.debug/[kernel.kallsyms]/"
			 "e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1/kallsyms");
	if (home)
		setenv("HOME", home, 1);
	free(home);
	unlink(file);
	*strrchr(file, '/') = '\0';
	rmdir(file);
	*strrchr(file, '/') = '\0';
	rmdir(file);
	*strrchr(file, '/') = '\0';
	rmdir(file);
}
END_TEST

/* Rows by name: a hash taken by another name is probed past; a new name gets its key. */
START_TEST(test_hashmap_name_row)
{
	static const char *const names[] = { "fs/", "mm/" };
	struct kmt_hashmap index;
	uint64_t key = 0, h = kmt_hash_bytes("mm/", 3);

	ck_assert_int_eq(kmt_hashmap_init(&index), 0);
	ck_assert_int_eq(kmt_hashmap_put(&index, h, 0), 0);	/* "fs/" as if it collided */
	ck_assert_int_eq(kmt_hashmap_put(&index, h + 1, 1), 0);
	ck_assert_uint_eq(kmt_hashmap_name_row(&index, "mm/", names, sizeof(*names), 0, &key), 1);
	ck_assert_uint_eq(kmt_hashmap_name_row(&index, "lib/", names, sizeof(*names), 0, &key),
			  KMT_HASHMAP_NO_ROW);
	ck_assert_uint_eq(key, kmt_hash_bytes("lib/", 4));
	ck_assert_int_eq(kmt_hashmap_put(&index, kmt_hash_bytes("fs/", 3), 0), 0);
	ck_assert_uint_eq(kmt_hashmap_name_row(&index, "fs/", names, sizeof(*names), 0, &key), 0);
	kmt_hashmap_free(&index);
}
END_TEST

/* A key of words: the same words the same key; their order and number count. */
START_TEST(test_hash_words)
{
	static const uint64_t ab[] = { 0xffffffff81000010ull, 0xffffffff81000200ull },
			      ba[] = { 0xffffffff81000200ull, 0xffffffff81000010ull },
			      zeros[2] = { 0 };
	uint64_t copy[2];

	memcpy(copy, ab, sizeof(ab));
	ck_assert_uint_eq(kmt_hash_words(ab, 2), kmt_hash_words(copy, 2));
	ck_assert_uint_ne(kmt_hash_words(ab, 2), kmt_hash_words(ba, 2));
	ck_assert_uint_ne(kmt_hash_words(ab, 2), kmt_hash_words(ab, 1));
	ck_assert_uint_ne(kmt_hash_words(zeros, 1), kmt_hash_words(zeros, 2));
	ck_assert_uint_ne(kmt_hash_words(zeros, 0), kmt_hash_words(zeros, 1));
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

START_TEST(test_migratetype_names)
{
	char buf[32];

	ck_assert_int_eq(kmt_kernel_version("Linux host 6.18.44-fc #1 SMP x86_64"), 6018);
	ck_assert_int_eq(kmt_kernel_version("4.3.0"), 4003);
	ck_assert_int_eq(kmt_kernel_version("Linux host release-x"), -1);
	ck_assert_int_eq(kmt_kernel_version(NULL), -1);
	{
		size_t len;
		const char *r = kmt_kernel_release("Linux host 6.1.0-9-amd64 #1 SMP x86_64", &len);

		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(strncmp(r, "6.1.0-9-amd64", len), 0);
		ck_assert_uint_eq(len, 13);
		/* no host word: the release all the same, not uname's third word */
		r = kmt_kernel_release("Linux 5.10.0-32-arm64 #1 SMP aarch64", &len);
		ck_assert(r && len == 15 && !strncmp(r, "5.10.0-32-arm64", len));
		ck_assert_ptr_null(kmt_kernel_release("Linux host release-x", &len));
		ck_assert_uint_eq(len, 0);
		ck_assert_ptr_null(kmt_kernel_release(NULL, &len));
	}
	/* 4.4 swapped Movable and Reclaimable; unknown versions take the new order. */
	ck_assert_str_eq(kmt_migratetype_name(1, 6018, buf, sizeof(buf)), "Movable");
	ck_assert_str_eq(kmt_migratetype_name(2, 4004, buf, sizeof(buf)), "Reclaimable");
	ck_assert_str_eq(kmt_migratetype_name(1, 4003, buf, sizeof(buf)), "Reclaimable");
	ck_assert_str_eq(kmt_migratetype_name(3, 3010, buf, sizeof(buf)), "Reserve");
	ck_assert_str_eq(kmt_migratetype_name(1, -1, buf, sizeof(buf)), "Movable");
	ck_assert_str_eq(kmt_migratetype_name(9, 6018, buf, sizeof(buf)), "type-9");
	ck_assert_str_eq(kmt_migratetype_key(4, 6018, buf, sizeof(buf)), "cma_isolate");
}
END_TEST

/* The byte order of the machines uname names. */
START_TEST(test_machine_byte_order)
{
	ck_assert_int_eq(kmt_machine_big_endian("s390x"), 1);
	ck_assert_int_eq(kmt_machine_big_endian("ppc64"), 1);
	ck_assert_int_eq(kmt_machine_big_endian("ppc64le"), 0);
	ck_assert_int_eq(kmt_machine_big_endian("mips64el"), 0);
	ck_assert_int_eq(kmt_machine_big_endian("aarch64_be"), 1);
	ck_assert_int_eq(kmt_machine_big_endian("aarch64"), 0);
	ck_assert_int_eq(kmt_machine_big_endian("armv7l"), 0);
	ck_assert_int_eq(kmt_machine_big_endian("armv7b"), 1);
	ck_assert_int_eq(kmt_machine_big_endian("x86_64"), 0);
	ck_assert_int_eq(kmt_machine_big_endian("i686"), 0);
	ck_assert_int_eq(kmt_machine_big_endian("frobnitz"), -1);
	ck_assert_str_eq(kmt_kernel_machine("Linux b 5.10.0-32-armmp #1 SMP Debian armv7l"), "armv7l");
}
END_TEST

/* GFP names come from the recorded format's __print_flags(), composites first. */
START_TEST(test_gfp_names)
{
	static const char fmt[] =
		"name: mm_page_alloc\nID: 664\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long gfp_flags;\toffset:8;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"gfp_flags=%s\", (REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", "
		"{(unsigned long)(0x400|0x800|0x40|0x80), \"GFP_KERNEL\"}, "
		"{(unsigned long)0x100, \"__GFP_ZERO\"}, {(unsigned long)0x40, \"__GFP_IO\"}) : \"none\"\n";
	struct tep_handle *tep = tep_alloc();
	struct kmt_gfp_names *g;
	char buf[128];

	ck_assert_ptr_nonnull(tep);
	ck_assert_ptr_null(kmt_gfp_names_new(NULL));
	ck_assert_int_eq(tep_parse_event(tep, fmt, strlen(fmt), "kmem"), 0);
	g = kmt_gfp_names_new(tep_find_event_by_name(tep, "kmem", "mm_page_alloc"));
	ck_assert_ptr_nonnull(g);
	kmt_gfp_format(g, 0xcc0 | 0x100, buf, sizeof(buf));
	ck_assert_str_eq(buf, "GFP_KERNEL|__GFP_ZERO");
	kmt_gfp_format(g, 0x40 | 0x1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "__GFP_IO|0x1");
	kmt_gfp_format(g, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
	kmt_gfp_format(NULL, 0xcc0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0xcc0");
	ck_assert(!kmt_gfp_names_pre_4_4(g));
	kmt_gfp_names_free(g);
	tep_free(tep);
}
END_TEST

struct item { uint64_t a, b; };
KMT_OBJMAP_TYPED(item_map, struct item)

/* Freed slots are reused: the array grows with what is live, not with what came. */
START_TEST(test_objmap_reuses_slots)
{
	struct item it, got;
	struct kmt_objmap m;
	uint64_t key, sum = 0;
	const void *p;
	size_t pos = 0;
	int i;

	ck_assert_int_eq(kmt_objmap_init(&m, sizeof(struct item)), 0);
	for (i = 0; i < 1000; i++) {
		it = (struct item){ i, 2 * i };
		ck_assert_int_eq(item_map_put(&m, 0x1000 + i, &it), 0);
		if (i >= 2) {	/* two live at most */
			ck_assert(item_map_take(&m, 0x1000 + i - 2, &got));
			ck_assert_uint_eq(got.a, i - 2);
			ck_assert_uint_eq(got.b, 2 * (i - 2));
		}
	}
	ck_assert(!item_map_take(&m, 0x1000, &got));
	ck_assert_uint_eq(kmt_objmap_count(&m), 2);
	ck_assert_uint_le(m.n, 3);
	while (kmt_objmap_next(&m, &pos, &key, &p))
		sum += key + ((const struct item *)p)->a;
	ck_assert_uint_eq(sum, 0x1000 + 998 + 998 + 0x1000 + 999 + 999);
	kmt_objmap_free(&m);
}
END_TEST

/*
 * The walk in memory order meets every live item once, and no freed one,
 * whatever the adds and takes (and the key the index keeps apart) left.
 */
START_TEST(test_objmap_walk)
{
	static const uint64_t keys[] = { 1, 2, 3, UINT64_MAX };
	uint64_t live_sum = 0, walk_sum = 0, seen = 0;
	struct kmt_objmap_walk w;
	struct kmt_objmap m;
	struct item it, got;
	const struct item *p;
	uint32_t i;

	ck_assert_int_eq(kmt_objmap_init(&m, sizeof(struct item)), 0);
	ck_assert_int_eq(kmt_objmap_walk_start(&w, &m), 0);	/* empty */
	ck_assert_ptr_null(kmt_objmap_walk_next(&w));
	kmt_objmap_walk_end(&w);
	srand(35);
	for (i = 0; i < 20000; i++) {
		uint64_t key = i % 50 ? (uint64_t)(rand() % 3000) << 6 : keys[rand() % 4];

		if (item_map_take(&m, key, &got))
			continue;
		it = (struct item){ (uint32_t)key, i };
		ck_assert_int_eq(item_map_put(&m, key, &it), 0);
	}
	for (i = 0; i < m.n * 2; i++) {	/* a walk must skip the freed slots */
		uint64_t key = (uint64_t)(rand() % 3000) << 6;

		item_map_take(&m, key, &got);
	}
	for (size_t pos = 0; kmt_objmap_next(&m, &pos, &(uint64_t){ 0 }, (const void **)&p);)
		live_sum += p->b * 7919u + p->a;
	ck_assert_int_eq(kmt_objmap_walk_start(&w, &m), 0);
	while ((p = kmt_objmap_walk_next(&w))) {
		walk_sum += p->b * 7919u + p->a;
		seen++;
	}
	kmt_objmap_walk_end(&w);
	ck_assert_uint_gt(seen, 0);
	ck_assert_uint_lt(seen, m.n);	/* some slots were free */
	ck_assert_uint_eq(seen, kmt_objmap_count(&m));
	ck_assert_uint_eq(walk_sum, live_sum);
	kmt_objmap_free(&m);
}
END_TEST

KMT_OBJSLOTS_TYPED(item_slots, struct item)

/* A slab event of @type on @ptr: allocations of 0 fail, frees of 0 free nothing. */
static struct kmt_event slab_event_at(enum kmt_event_type type, uint64_t ptr)
{
	return (struct kmt_event){ .type = type, .ptr = ptr, .bytes_req = 8, .bytes_alloc = 8 };
}

/*
 * Items kept in the slots the replay numbers (kmt_replay_follow_object())
 * are what a map by pointer keeps: the same ones live after any mix of
 * allocations (over live pointers too), frees (of unseen pointers and of
 * NULL too) and failed allocations, walked in the same order.
 */
START_TEST(test_objslots_follow_objmap)
{
	static const enum kmt_event_type types[] = { KMT_EV_KMALLOC, KMT_EV_CACHE_ALLOC_NODE,
						     KMT_EV_KFREE, KMT_EV_CACHE_FREE };
	struct kmt_objmap by_ptr, objects;
	struct kmt_objmap_walk w1, w2;
	const struct item *p1, *p2;
	struct kmt_objslots slots;
	struct item it, got, got2;
	uint32_t i, walked = 0;

	ck_assert_int_eq(kmt_objmap_init(&by_ptr, sizeof(struct item)), 0);
	ck_assert_int_eq(kmt_objmap_init(&objects, 0), 0);
	kmt_objslots_init(&slots, sizeof(struct item));
	srand(36);
	for (i = 0; i < 30000; i++) {
		uint64_t ptr = i % 97 ? 0x1000 + ((uint64_t)(rand() % 2000) << 6) : 0;
		struct kmt_event ev = slab_event_at(types[rand() % 4], ptr);
		bool live, had;

		ck_assert_int_eq(kmt_replay_follow_object(&objects, &ev), 0);
		if (ev.type == KMT_EV_KFREE || ev.type == KMT_EV_CACHE_FREE) {
			bool found = ptr && item_map_take(&by_ptr, ptr, &got);

			ck_assert_int_eq(!!(ev.flags & KMT_EVF_OBJ_LIVE), found);
			ck_assert_int_eq(item_slots_take(&slots, ev.obj, &got2), found);
			if (!found)
				ck_assert_uint_eq(ev.obj, KMT_EV_NO_OBJ);
			else
				ck_assert_uint_eq(got.b, got2.b);
			continue;
		}
		if (!ptr) {
			ck_assert_uint_eq(ev.obj, KMT_EV_NO_OBJ);
			continue;
		}
		it = (struct item){ ptr, i };
		*item_map_cell(&by_ptr, ptr, &live) = it;
		*item_slots_cell(&slots, ev.obj, &had) = it;
		ck_assert_int_eq(live, had);
		ck_assert_int_eq(!!(ev.flags & KMT_EVF_OBJ_LIVE), live);
	}
	ck_assert_uint_eq(slots.count, kmt_objmap_count(&by_ptr));
	ck_assert_int_eq(kmt_objmap_walk_start(&w1, &by_ptr), 0);
	kmt_objslots_walk_start(&w2, &slots);
	while ((p1 = kmt_objmap_walk_next(&w1))) {
		ck_assert_ptr_nonnull(p2 = kmt_objmap_walk_next(&w2));
		ck_assert_uint_eq(p1->a, p2->a);
		ck_assert_uint_eq(p1->b, p2->b);
		walked++;
	}
	ck_assert_ptr_null(kmt_objmap_walk_next(&w2));
	ck_assert_uint_eq(walked, slots.count);
	ck_assert_uint_gt(walked, 100);
	kmt_objmap_walk_end(&w1);
	kmt_objmap_walk_end(&w2);
	kmt_objslots_free(&slots);
	kmt_objmap_free(&objects);
	kmt_objmap_free(&by_ptr);
}
END_TEST

struct keyed { uint64_t key; uint32_t order; };

static inline uint64_t key_of(const struct keyed *k)
{
	return k->key;
}

KMT_RADIX_SORT(radix_by_key, struct keyed, key_of)

static int by_key_then_order(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The radix sort equals a stable comparison sort, keys of every width. */
/*
 * The tasks' recent frees against the plain model they replace: per task a
 * ring of its last PAGE_RECENT_FREES pfns, newest first, taken ones zeroed.
 */
#define MODEL_TASKS	5
#define MODEL_HISTORY	(PAGE_RECENT_FREES * 3 / 2)

struct model_task {
	uint64_t ring[PAGE_RECENT_FREES];
	uint64_t history[MODEL_HISTORY];	/* every pfn freed, by number % MODEL_HISTORY */
	uint32_t frees;
};

static void model_note(struct model_task *t, uint64_t pfn)
{
	memmove(&t->ring[1], &t->ring[0], (PAGE_RECENT_FREES - 1) * sizeof(t->ring[0]));
	t->ring[0] = pfn + 1;
	t->history[t->frees++ % MODEL_HISTORY] = pfn;
}

static bool model_take(struct model_task *t, uint64_t pfn)
{
	int i;

	for (i = 0; i < PAGE_RECENT_FREES; i++)
		if (t->ring[i] == pfn + 1) {
			t->ring[i] = 0;
			return true;
		}
	return false;
}

/* Take @pfn from both; count the outcome. */
static void both_take(struct page_recents *m, struct model_task *t, int pid, uint64_t pfn,
		      uint64_t outcomes[2])
{
	bool want = model_take(t, pfn);

	ck_assert_msg(kmt_page_recent_take(m, pid, pfn) == want, "task %d pfn %llu taken %d",
		      pid, (unsigned long long)pfn, want);
	outcomes[want]++;
}

/*
 * Batches as the kernel traces them: a task frees up to 40 pages (or 150),
 * then takes them again in order, a tenth left behind; between batches, takes
 * of a pfn freed at any age up to 1.5 rings, or of one never freed.
 */
START_TEST(test_page_recent_as_ring)
{
	static struct model_task tasks[MODEL_TASKS];
	unsigned int seed = 35 + (unsigned int)_i, batch, n, i;
	uint64_t pfns[150], outcomes[2] = { 0, 0 };
	int task;
	struct page_recents m;

	memset(tasks, 0, sizeof(tasks));
	ck_assert_int_eq(kmt_page_recents_init(&m), 0);
	for (batch = 0; batch < 20000; batch++) {
		int pid = rand_r(&seed) % MODEL_TASKS;
		struct model_task *t = &tasks[pid];

		/* a tenth of the batches longer than the ring: it wraps over what it holds */
		n = 1 + (unsigned int)rand_r(&seed) % (batch % 10 ? 40 : 150);
		for (i = 0; i < n; i++) {
			pfns[i] = (uint64_t)(rand_r(&seed) % 300);
			ck_assert_int_eq(kmt_page_recent_note(&m, pid, pfns[i]), 0);
			model_note(t, pfns[i]);
		}
		for (i = 0; i < n; i++)
			if (rand_r(&seed) % 10)
				both_take(&m, t, pid, pfns[i], outcomes);
		for (i = 0; i < 4; i++) {
			uint32_t back = 1 + (uint32_t)rand_r(&seed) % MODEL_HISTORY;

			pid = rand_r(&seed) % MODEL_TASKS;
			t = &tasks[pid];
			both_take(&m, t, pid, back <= t->frees ?
				  t->history[(t->frees - back) % MODEL_HISTORY] : 300, outcomes);
		}
	}
	ck_assert_uint_gt(outcomes[true], 10000);	/* both outcomes, many times */
	ck_assert_uint_gt(outcomes[false], 10000);
	/* all taken: no task keeps an entry */
	for (task = 0; task < MODEL_TASKS; task++)
		for (i = 0; i < PAGE_RECENT_FREES; i++)
			if (tasks[task].ring[i])
				both_take(&m, &tasks[task], task, tasks[task].ring[i] - 1, outcomes);
	ck_assert_uint_eq(kmt_objmap_count(&m.tasks), 0);
	kmt_page_recents_free(&m);
}
END_TEST

START_TEST(test_radix_sort_stable)
{
	enum { N = 5000 };
	static struct keyed a[N], b[N], tmp[N];
	uint64_t x = 88172645463325252ull;
	int i, width;

	for (width = 0; width < 4; width++) {
		for (i = 0; i < N; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* few distinct keys (ties), small keys, kernel addresses, anything */
			a[i].key = width == 0 ? x % 7 : width == 1 ? x % 100000 :
				   width == 2 ? 0xffffffff81000000ull + x % 0x1000000 : x;
			a[i].order = i;
		}
		memcpy(b, a, sizeof(a));
		radix_by_key(a, tmp, N);
		qsort(b, N, sizeof(*b), by_key_then_order);
		for (i = 0; i < N; i++) {
			ck_assert_uint_eq(a[i].key, b[i].key);
			ck_assert_uint_eq(a[i].order, b[i].order);
		}
	}
	radix_by_key(a, tmp, 0);
}
END_TEST

/* Texts with tabs, newlines, backslashes and a lone "-" come back as they were. */
START_TEST(test_proctable_round_trip)
{
	struct kmt_proctable *a = kmt_proctable_new(), *b = kmt_proctable_new();
	struct kmt_process p = { .pid = 42, .tgid = 40, .ppid = 1, .start_ns = 123456789, .seen_ns = 1000,
				 .comm = "tab\there", .exe = "/bin/x\\y", .cmdline = "a\nb -",
				 .cgroup = "-", .container = NULL };
	struct kmt_process unknown = { .pid = 7, .tgid = -1, .ppid = -1, .start_ns = -1,
				       .seen_ns = -1 };
	const struct kmt_process *q;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	ck_assert(a && b && fp);
	ck_assert_int_eq(kmt_proctable_merge(a, &p, true), 0);
	ck_assert_int_eq(kmt_proctable_merge(a, &unknown, true), 0);
	ck_assert_int_eq(kmt_proctable_write(a, fp), 0);
	fclose(fp);
	ck_assert_ptr_nonnull(strchr(text, '\n'));
	ck_assert_str_eq(strchr(text, '\n') + 1, "7 -1 -1 -1 -1\t-\t-\t-\t-\t-\n");	/* one line each */
	ck_assert_int_eq(kmt_proctable_parse(b, text, len), 2);
	ck_assert_int_eq(kmt_proctable_parse(b, "junk\n1 2\tx\n", 12), 0);
	q = kmt_proctable_find(b, 42);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(q->tgid, 40);
	ck_assert_int_eq(q->ppid, 1);
	ck_assert_int_eq(q->start_ns, 123456789);
	ck_assert_int_eq(q->seen_ns, 1000);
	ck_assert_str_eq(q->comm, "tab\there");
	ck_assert_str_eq(q->exe, "/bin/x\\y");
	ck_assert_str_eq(q->cmdline, "a\nb -");
	ck_assert_str_eq(q->cgroup, "-");
	ck_assert_ptr_null(q->container);
	q = kmt_proctable_find(b, 7);
	ck_assert(q && q->tgid == -1 && !q->comm && !q->exe);
	ck_assert_uint_eq(kmt_proctable_count(b), 2);
	free(text);
	kmt_proctable_free(a);
	kmt_proctable_free(b);
}
END_TEST

/*
 * Merging fills what is unknown, replaces only when asked; an exec after
 * /proc was read sets the executable and forgets a stale cmdline, one
 * before it changes nothing.
 */
START_TEST(test_proctable_merge_and_exec)
{
	struct kmt_proctable *t = kmt_proctable_new();
	struct kmt_process scan = { .pid = 9, .tgid = 9, .ppid = 2, .start_ns = 5, .seen_ns = 100,
				    .comm = "sh",
				    .exe = "/bin/sh", .cmdline = "sh -c x", .cgroup = "/a" };
	struct kmt_process fork = { .pid = 9, .tgid = -1, .ppid = 3, .start_ns = -1,
				    .seen_ns = -1, .comm = "child", .cgroup = "/b" };
	const struct kmt_process *q;
	char id[65];

	ck_assert_int_eq(kmt_proctable_merge(t, &scan, true), 0);
	ck_assert_int_eq(kmt_proctable_merge(t, &fork, false), 0);
	q = kmt_proctable_find(t, 9);
	ck_assert(q->ppid == 2 && !strcmp(q->comm, "sh") && !strcmp(q->cgroup, "/a"));
	ck_assert_int_eq(kmt_proctable_exec(t, 9, "/usr/bin/perl", 50), 0);
	ck_assert_str_eq(kmt_proctable_find(t, 9)->exe, "/bin/sh");
	ck_assert_int_eq(kmt_proctable_exec(t, 9, "/bin/sh", 200), 0);
	ck_assert_str_eq(kmt_proctable_find(t, 9)->cmdline, "sh -c x");
	ck_assert_int_eq(kmt_proctable_exec(t, 9, "/usr/bin/python3", 300), 0);
	q = kmt_proctable_find(t, 9);
	ck_assert_str_eq(q->exe, "/usr/bin/python3");
	ck_assert_ptr_null(q->cmdline);
	ck_assert_int_eq(kmt_proctable_merge(t, &fork, true), 0);
	q = kmt_proctable_find(t, 9);
	ck_assert(q->ppid == 3 && q->tgid == 9 && !strcmp(q->comm, "child"));
	ck_assert(kmt_container_id("/system.slice/docker-"
				   "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
				   ".scope", id, sizeof(id)));
	ck_assert_str_eq(id, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	ck_assert(!kmt_container_id("/process_api/2819f9f75fb8a791c7f5d77dbf425150", id,
				    sizeof(id)));
	ck_assert(!kmt_container_id("/x/" "0123456789abcdef0123456789abcdef0123456789abcdef"
				    "0123456789abcdef0", id, sizeof(id)));
	kmt_proctable_free(t);
}
END_TEST

/* Files by (dev, ino): the first name stays; the text form keeps odd paths. */
START_TEST(test_filetable_round_trip)
{
	struct kmt_filetable *a = kmt_filetable_new(), *b = kmt_filetable_new();
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	ck_assert(a && b && fp);
	ck_assert_int_eq(kmt_filetable_add(a, 254u << 20, 12, "/tmp/a b\nc"), 0);
	ck_assert_int_eq(kmt_filetable_add(a, 254u << 20, 12, "/tmp/other"), 0);
	ck_assert_int_eq(kmt_filetable_add(a, 8u << 20 | 1, 12, "/x"), 0);
	ck_assert_int_eq(kmt_filetable_write(a, fp), 0);
	fclose(fp);
	ck_assert_int_eq(kmt_filetable_parse(b, text, len), 0);
	ck_assert_int_eq(kmt_filetable_parse(b, "bad line\n1\n", 11), 0);
	ck_assert_str_eq(kmt_filetable_find(b, 254u << 20, 12), "/tmp/a b\nc");
	ck_assert_str_eq(kmt_filetable_find(b, 8u << 20 | 1, 12), "/x");
	ck_assert_ptr_null(kmt_filetable_find(b, 8u << 20 | 1, 13));
	free(text);
	kmt_filetable_free(a);
	kmt_filetable_free(b);
}
END_TEST

/*
 * Whole files, /proc ones too (no size ahead): a file larger than the
 * first buffer comes back whole, text past a NUL is left out, a missing
 * file is NULL with errno.
 */
START_TEST(test_read_text_file)
{
	char path[] = "/tmp/kmt-text-XXXXXX", *text;
	size_t len, n = 600000, i;
	int fd = mkstemp(path);
	char *want = malloc(n);

	ck_assert(fd >= 0 && want);
	for (i = 0; i < n; i++)
		want[i] = i % 61 == 60 ? '\n' : 'a' + i % 26;
	ck_assert_int_eq(write(fd, want, n), (ssize_t)n);
	text = kmt_read_text_file(path, &len);
	ck_assert(text && len == n && !memcmp(text, want, n) && !text[n]);
	free(text);
	ck_assert_int_eq(pwrite(fd, "\0", 1, 1000), 1);
	text = kmt_read_text_file(path, &len);
	ck_assert(text && len == 1000 && !memcmp(text, want, 1000));
	free(text);
	close(fd);
	unlink(path);
	free(want);
	text = kmt_read_text_file("/proc/self/status", &len);
	ck_assert(text && len > 100 && strstr(text, "\nPid:\t") && text[len - 1] == '\n');
	free(text);
	errno = 0;
	ck_assert_ptr_null(kmt_read_text_file("/nonexistent/kmt-text", &len));
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* KiB of the mapping at @map in this process's page tables (smaps' Rss); -1 if none. */
static long mapping_rss_kib(const void *map)
{
	FILE *fp = fopen("/proc/self/smaps", "re");
	char line[512];
	unsigned long lo, hi;
	long rss = -1;
	bool in = false;

	while (fp && fgets(line, sizeof(line), fp) && rss < 0) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = lo == (unsigned long)map;
		else if (in)
			sscanf(line, "Rss: %ld kB", &rss);
	}
	if (fp)
		fclose(fp);
	return rss;
}

/* Wait up to 10 s for the mapping at @map to have at least @kib KiB mapped. */
static long wait_rss_kib(const void *map, long kib)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	long rss = mapping_rss_kib(map);
	int i;

	for (i = 0; i < 1000 && rss < kib; i++) {
		nanosleep(&pause, NULL);
		rss = mapping_rss_kib(map);
	}
	return rss;
}

/*
 * The pager maps a range of a file mapping in its own thread (the test
 * reads none of it), from an unaligned start to the range's last page;
 * stopped, it maps inline; stopped with a range under way, it ends and the
 * mapping can go; following a reader, it is given whole steps ahead.
 */
START_TEST(test_pager_maps_ahead)
{
	char path[] = "/tmp/kmt-pager-XXXXXX";
	size_t mib = 1 << 20, size = 8 * mib;
	int fd = mkstemp(path);
	struct kmt_pager p = { .started = false };
	unsigned char *map;
	char *data = malloc(size);
	long want = (long)((100 + 6 * mib + 4095) / 4096 * 4);	/* KiB of the pages it spans */
	size_t paged;

	ck_assert(fd >= 0 && data);
	memset(data, 'k', size);
	ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(map != MAP_FAILED);
	ck_assert_int_lt(mapping_rss_kib(map), 1024);
	kmt_pager_ahead(&p, map + 100, 6 * mib);
	ck_assert(p.started);
	ck_assert_int_ge(wait_rss_kib(map, want), want);
	kmt_pager_stop(&p);
	ck_assert(!p.started);
	munmap(map, size);
#ifdef MADV_POPULATE_READ
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(map != MAP_FAILED);
	if (!madvise(map + size - 4096, 4096, MADV_POPULATE_READ)) {	/* 5.14 and later */
		ck_assert_int_lt(mapping_rss_kib(map), want);
		kmt_pager_ahead(&p, map + 100, 6 * mib);
		ck_assert(!p.started);
		ck_assert_int_ge(mapping_rss_kib(map), want);
	}
	munmap(map, size);
#endif
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(map != MAP_FAILED);
	p = (struct kmt_pager){ .started = false };
	kmt_pager_ahead(&p, map, size);
	kmt_pager_stop(&p);
	ck_assert(!p.started);
	munmap(map, size);
	/* following a reader: two steps ahead, a whole step at a time, then the rest */
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(map != MAP_FAILED);
	paged = 0;
	kmt_pager_follow(&p, map, size, 100, &paged);
	ck_assert_uint_eq(paged, 100 + 2 * KMT_PAGER_STEP);
	kmt_pager_follow(&p, map, size, KMT_PAGER_STEP, &paged);
	ck_assert_uint_eq(paged, 100 + 2 * KMT_PAGER_STEP);	/* not a whole step yet */
	kmt_pager_follow(&p, map, size, KMT_PAGER_STEP + 100, &paged);
	ck_assert_uint_eq(paged, 100 + 3 * KMT_PAGER_STEP);
	kmt_pager_follow(&p, map, size, size - 1, &paged);
	ck_assert_uint_eq(paged, size);
	munmap(map, size);
	close(fd);
	unlink(path);
	free(data);
}
END_TEST

Suite *support_suite(void)
{
	Suite *s = suite_create("support");
	TCase *tc = tcase_create("support");

	/* the model tests run 20,000 rounds: under ASan on a slow VM more than Check's 4 s */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hashmap_against_array);
	tcase_add_test(tc, test_hashmap_find);
	tcase_add_test(tc, test_hashmap_name_row);
	tcase_add_test(tc, test_hash_words);
	tcase_add_test(tc, test_kallsyms_copy_checked);
	tcase_add_test(tc, test_kallsyms_copy_path);
	tcase_add_test(tc, test_objmap_reuses_slots);
	tcase_add_test(tc, test_objmap_walk);
	tcase_add_test(tc, test_objslots_follow_objmap);
	tcase_add_loop_test(tc, test_page_recent_as_ring, 0, 4);
	tcase_add_test(tc, test_radix_sort_stable);
	tcase_add_test(tc, test_symbols);
	tcase_add_test(tc, test_symbols_relocate);
	tcase_add_test(tc, test_symbols_addresses);
	tcase_add_test(tc, test_symbols_read);
	tcase_add_test(tc, test_symbols_nul);
	tcase_add_test(tc, test_reader_relocates_kallsyms);
	tcase_add_test(tc, test_reader_symbol);
	tcase_add_test(tc, test_reader_vmlinux);
	tcase_add_test(tc, test_vmlinux_relative_path);
	tcase_add_test(tc, test_footprint_standin);
	tcase_add_test(tc, test_migratetype_names);
	tcase_add_test(tc, test_gfp_names);
	tcase_add_test(tc, test_machine_byte_order);
	tcase_add_test(tc, test_proctable_round_trip);
	tcase_add_test(tc, test_proctable_merge_and_exec);
	tcase_add_test(tc, test_filetable_round_trip);
	tcase_add_test(tc, test_read_text_file);
	tcase_add_test(tc, test_pager_maps_ahead);
	suite_add_tcase(s, tc);
	return s;
}
