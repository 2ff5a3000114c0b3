// SPDX-License-Identifier: LGPL-2.1
/*
 * The end of a recording without tracefs: where the output goes (a new
 * file, -f over a regular file or through a link, never a partial file),
 * and the one-pass writer (counts, progress, cancel, freed input blocks).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>

#include "fixtures.h"
#include "analyses/pageowner.h"
#include "capture/record_local.h"
#include "suites.h"
#include "common/util.h"

static char dir[] = "/tmp/kmtrace-dest-XXXXXX";

static void make_dir(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/kmtrace-dest-XXXXXX");
}

/* Entries of the test directory. */
static int entries(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *read_back(const char *path)
{
	size_t len;

	return kmt_read_text_file(path, &len);
}

START_TEST(test_dest_new_file)
{
	struct kmt_dest d;
	struct kmt_error err;
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/new.dat", dir);
	ck_assert_int_eq(kmt_dest_open(&d, path, false, &err), 0);
	ck_assert_int_eq(write(d.fd, "data", 4), 4);
	ck_assert_int_eq(entries(), 0);		/* nothing visible while writing */
	ck_assert_int_eq(kmt_dest_commit(&d, &err), 0);
	kmt_dest_close(&d);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_size, 4);
	ck_assert_int_eq(entries(), 1);
}
END_TEST

/* Not committed (a signal, a full disk): no file, no temporary file. */
START_TEST(test_dest_abort)
{
	struct kmt_dest d;
	struct kmt_error err;
	char path[256], *text;

	snprintf(path, sizeof(path), "%s/old.dat", dir);
	put_text(path, "precious");
	ck_assert_int_eq(kmt_dest_open(&d, path, true, &err), 0);
	ck_assert_int_eq(write(d.fd, "partial", 7), 7);
	kmt_dest_close(&d);
	text = read_back(path);
	ck_assert_str_eq(text, "precious");
	free(text);
	ck_assert_int_eq(entries(), 1);
	snprintf(path, sizeof(path), "%s/none.dat", dir);
	ck_assert_int_eq(kmt_dest_open(&d, path, false, &err), 0);
	kmt_dest_close(&d);
	ck_assert_int_eq(entries(), 1);
}
END_TEST

/* A regular file needs -f; with it, a link's target is replaced and the link stays. */
START_TEST(test_dest_replace)
{
	struct kmt_dest d;
	struct kmt_error err;
	char target[256], link[256], *text;
	struct stat st;

	snprintf(target, sizeof(target), "%s/target.dat", dir);
	snprintf(link, sizeof(link), "%s/link.dat", dir);
	put_text(target, "old");
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(kmt_dest_open(&d, link, false, &err), -2);
	ck_assert(strstr(err.msg, "exists (use -f"));
	ck_assert_int_eq(kmt_dest_open(&d, link, true, &err), 0);
	ck_assert_int_eq(write(d.fd, "new", 3), 3);
	text = read_back(target);
	ck_assert_str_eq(text, "old");		/* whole until the new one is */
	free(text);
	ck_assert_int_eq(kmt_dest_commit(&d, &err), 0);
	kmt_dest_close(&d);
	text = read_back(target);
	ck_assert_str_eq(text, "new");
	free(text);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(entries(), 2);
}
END_TEST

/* What is never written into, with or without -f. */
START_TEST(test_dest_refusals)
{
	struct kmt_dest d;
	struct kmt_error err;
	char link[256];

	ck_assert_int_eq(kmt_dest_open(&d, dir, true, &err), -2);
	ck_assert(strstr(err.msg, "is a directory"));
	snprintf(link, sizeof(link), "%s/dangling", dir);
	ck_assert_int_eq(symlink("/nonexistent/x", link), 0);
	ck_assert_int_eq(kmt_dest_open(&d, link, true, &err), -2);
	ck_assert(strstr(err.msg, "symbolic link to nothing"));
	ck_assert_int_eq(entries(), 1);
}
END_TEST

/* A temporary data file of @n pages of the fixture, as a recorder thread makes. */
static int data_file(int n, unsigned long long missed)
{
	int fd = kmt_temp_fd(dir), i;

	ck_assert_int_ge(fd, 0);
	for (i = 0; i < n; i++) {
		struct fix_page p;
		unsigned char buf[64];
		size_t len = fix_kmalloc(buf, 100, 0xffffffff81234560ull, 0x1000 + i, 8, 8, 0);

		fix_page_init(&p, 1000 * (i + 1));
		fix_page_add(&p, 1000 * (i + 1), buf, len);
		fix_page_add(&p, 1000 * (i + 1) + 5, buf, len);
		if (!i && missed)
			fix_page_set_missed(&p, missed);
		ck_assert_int_eq(write(fd, p.data, FIX_PAGE_SIZE), FIX_PAGE_SIZE);
	}
	return fd;
}

struct watch {
	int calls;
	uint64_t last_done, total;
	int cancel_after;	/* -1: never */
};

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct watch *w = ctx;

	ck_assert_uint_ge(done, w->last_done);
	w->calls++;
	w->last_done = done;
	w->total = total;
}

static bool on_cancel(void *ctx)
{
	struct watch *w = ctx;

	return w->cancel_after >= 0 && w->calls > w->cancel_after;
}

/* Counts, progress to the whole size, and the inputs' blocks freed. */
START_TEST(test_write_counts)
{
	struct kmt_td_cpu_count counts[2] = { 0 };
	struct watch w = { .cancel_after = -1 };
	struct kmt_td_copy copy = { on_progress, on_cancel, &w, true, counts, NULL };
	struct kmt_tracedat_meta m;
	struct kmt_error err;
	struct stat st;
	int fds[2] = { data_file(3, 4), data_file(300, 0) }, out = kmt_temp_fd(dir);

	fix_meta(&m, NULL, 0);
	ck_assert_int_eq(kmt_tracedat_write(out, "out", &m, 2, fds, &copy, &err), 0);
	ck_assert_uint_eq(counts[0].events, 6);
	ck_assert_uint_eq(counts[0].missed, 4);
	ck_assert_uint_eq(counts[0].bytes, 3 * FIX_PAGE_SIZE);
	ck_assert_uint_eq(counts[1].events, 600);
	ck_assert_uint_eq(counts[1].bad_subbuffers, 0);
	ck_assert_int_eq(fstat(out, &st), 0);
	ck_assert_uint_eq(w.total, (uint64_t)st.st_size);
	ck_assert_uint_eq(w.last_done, w.total);	/* the last call: all of it */
	ck_assert_int_ge(w.calls, 2);
	ck_assert_int_eq(fstat(fds[1], &st), 0);
	ck_assert_int_eq(st.st_blocks, 0);	/* copied, then given back */
	close(fds[0]);
	close(fds[1]);
	close(out);
}
END_TEST

/* Starts leave the first sub-buffers of a CPU out: counted, sized and read as the rest. */
START_TEST(test_write_starts)
{
	static const uint64_t starts[2] = { FIX_PAGE_SIZE, 0 };
	struct kmt_td_cpu_count counts[2] = { 0 };
	struct watch w = { .cancel_after = -1 };
	struct kmt_td_copy copy = { on_progress, on_cancel, &w, false, counts, starts };
	struct kmt_tracedat_meta m;
	struct kmt_error err;
	struct stat st;
	int fds[2] = { data_file(3, 4), data_file(3, 0) }, out = kmt_temp_fd(dir);

	fix_meta(&m, NULL, 0);
	ck_assert_int_eq(kmt_tracedat_write(out, "out", &m, 2, fds, &copy, &err), 0);
	ck_assert_uint_eq(counts[0].events, 4);		/* 2 of its 3 sub-buffers */
	ck_assert_uint_eq(counts[0].missed, 0);		/* the mark was on the first */
	ck_assert_uint_eq(counts[0].bytes, 2 * FIX_PAGE_SIZE);
	ck_assert_uint_eq(counts[1].events, 6);
	ck_assert_int_eq(fstat(out, &st), 0);
	ck_assert_uint_eq(w.total, (uint64_t)st.st_size);
	close(fds[0]);
	close(fds[1]);
	close(out);
}
END_TEST

/* A stop signal during the write: it fails with ECANCELED, says so. */
START_TEST(test_write_cancel)
{
	struct watch w = { .cancel_after = 1 };
	struct kmt_td_copy copy = { on_progress, on_cancel, &w, false, NULL, NULL };
	struct kmt_tracedat_meta m;
	struct kmt_error err;
	int fds[2] = { data_file(600, 0), data_file(600, 0) }, out = kmt_temp_fd(dir);

	fix_meta(&m, NULL, 0);
	errno = 0;
	ck_assert_int_eq(kmt_tracedat_write(out, "out", &m, 2, fds, &copy, &err), -1);
	ck_assert_int_eq(errno, ECANCELED);
	ck_assert(strstr(err.msg, "writing stopped by a signal"));
	close(fds[0]);
	close(fds[1]);
	close(out);
}
END_TEST

/*
 * page_owner's text as 5.10 (no tgid), 6.1 and 6.12 (hex PFN) print it,
 * with lines to pass over and a record without its PFN line.
 */
static const char raw_owner[] =
	"Page allocated via order 0, mask 0x100cca(GFP_HIGHUSER_MOVABLE), pid 7, ts 1000 ns, "
	"free_ts 0 ns\n"
	"PFN 4096 type Movable Block 8 type Movable Flags 0x17ffffc0000000()\n"
	" post_alloc_hook+0x20c/0x230\n"
	" foo+0x1/0x2 [mod]\n"
	"\n"
	"Page allocated via order 2, mask 0xcc0(GFP_KERNEL), pid 8, tgid 8 (sh), ts 2000 ns, "
	"free_ts 0 ns\n"
	"PFN 8192 type Unmovable Block 16 type Unmovable Flags 0x0()\n"
	" post_alloc_hook+0x20c/0x230\n"
	" foo+0x1/0x2 [mod]\n"
	"Page has been migrated, last migrate reason: compaction\n"
	"\n"
	"Page allocated via order 3, mask 0xcc0(GFP_KERNEL), pid 1, tgid 1 (init), ts 2500 ns\n"
	" lost_pfn_line+0x1/0x2\n"
	"\n"
	"Page allocated via order 1, mask 0x2dc2(GFP_KERNEL|__GFP_ZERO), pid 9, tgid 9 "
	"(kworker/u8:0 x), ts 3000 ns\n"
	"PFN 0x3000 type Unmovable Block 24 type Unmovable Flags 0x0()\n"
	" bar+0x3/0x4\n"
	"Slab cache page\n";	/* and no empty line at the end */

static const char compact_owner[] =
	"page_owner 1 /d/page_owner\n"
	"stack 0\n"
	" post_alloc_hook+0x20c/0x230\n"
	" foo+0x1/0x2 [mod]\n"
	"page 4096 0 0x100cca 7 -1 1000 0 -\n"
	"page 8192 2 0xcc0 8 8 2000 0 sh\n"
	"stack 1\n"
	" bar+0x3/0x4\n"
	"page 12288 1 0x2dc2 9 9 3000 1 kworker/u8:0_x\n";

START_TEST(test_page_owner_compact)
{
	FILE *in = fmemopen((void *)raw_owner, sizeof(raw_owner) - 1, "r");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	unsigned long long blocks, pages;
	struct kmt_page_owner po;

	ck_assert_int_eq(kmt_page_owner_compact(in, "/d/page_owner", out, &blocks, &pages), 0);
	fclose(out);
	fclose(in);
	ck_assert_str_eq(text, compact_owner);
	ck_assert_uint_eq(blocks, 3);
	ck_assert_uint_eq(pages, 1 + 4 + 2);
	/* and report reads back what record wrote */
	ck_assert_int_eq(kmt_page_owner_load(&po, text), 0);
	ck_assert_uint_eq(po.blocks, 3);
	ck_assert_uint_eq(po.pages, 7);
	ck_assert_uint_eq(po.nstacks, 2);
	ck_assert_uint_eq(po.unparsed, 0);
	kmt_page_owner_release(&po);
	free(text);
}
END_TEST

Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("output");

	tcase_add_checked_fixture(tc, make_dir, remove_dir);
	tcase_add_test(tc, test_dest_new_file);
	tcase_add_test(tc, test_dest_abort);
	tcase_add_test(tc, test_dest_replace);
	tcase_add_test(tc, test_dest_refusals);
	tcase_add_test(tc, test_write_counts);
	tcase_add_test(tc, test_write_starts);
	tcase_add_test(tc, test_write_cancel);
	tcase_add_test(tc, test_page_owner_compact);
	suite_add_tcase(s, tc);
	return s;
}
