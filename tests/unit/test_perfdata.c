// SPDX-License-Identifier: LGPL-2.1
/*
 * perf.data ordering: samples handed out in time order once a round makes
 * them final; records read from a mapped file in place.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perf/event.h>

#include <traceevent/event-parse.h>

#include <kmtrace/error.h>
#include <kmtrace/reader.h>
#include "input/perfdata.h"
#include "common/proctable.h"
#include "suites.h"

static void add(struct pd_order *o, uint32_t cpu, uint64_t ts)
{
	uint64_t chain[2] = { ts, ts + 1 };

	ck_assert_int_eq(kmt_pd_order_add(o, cpu, 1, ts, &ts, sizeof(ts), chain, 2, false), 0);
}

static uint64_t take(struct pd_order *o, bool all, uint32_t *cpu)
{
	const struct pd_sample *s = kmt_pd_order_take(o, all);
	uint64_t payload;

	if (!s)
		return 0;
	memcpy(&payload, s->data, sizeof(payload));
	ck_assert_uint_eq(payload, s->ts);	/* the payload travels with its sample */
	ck_assert_uint_eq(s->nchain, 2);
	ck_assert_uint_eq(kmt_pd_sample_chain(s)[1], s->ts + 1);
	*cpu = s->cpu;
	kmt_pd_order_release(o);
	return s->ts;
}

START_TEST(test_rounds_make_samples_final)
{
	struct pd_order o = { 0 };
	uint32_t cpu;

	add(&o, 0, 10);
	add(&o, 0, 30);
	add(&o, 1, 20);
	ck_assert_uint_eq(take(&o, false, &cpu), 0);	/* no round ended yet */
	kmt_pd_order_round(&o);		/* final: up to the round before (none) */
	ck_assert_uint_eq(take(&o, false, &cpu), 0);
	add(&o, 1, 25);
	add(&o, 0, 5);					/* late: still sorted in its CPU */
	kmt_pd_order_round(&o);				/* final: up to 30 */
	ck_assert_uint_eq(take(&o, false, &cpu), 5);
	ck_assert_uint_eq(cpu, 0);
	ck_assert_uint_eq(take(&o, false, &cpu), 10);
	ck_assert_uint_eq(take(&o, false, &cpu), 20);
	ck_assert_uint_eq(cpu, 1);
	ck_assert_uint_eq(take(&o, false, &cpu), 25);
	ck_assert_uint_eq(take(&o, false, &cpu), 30);
	ck_assert_uint_eq(take(&o, false, &cpu), 0);
	kmt_pd_order_free(&o);
}
END_TEST

START_TEST(test_equal_times_keep_file_order_and_end_drains)
{
	struct pd_order o = { 0 };
	uint32_t cpu;

	add(&o, 1, 7);
	add(&o, 0, 7);
	add(&o, 0, 9);
	ck_assert_uint_eq(take(&o, true, &cpu), 7);
	ck_assert_uint_eq(cpu, 1);			/* added first */
	ck_assert_uint_eq(take(&o, true, &cpu), 7);
	ck_assert_uint_eq(cpu, 0);
	ck_assert_uint_eq(take(&o, true, &cpu), 9);
	ck_assert_uint_eq(take(&o, true, &cpu), 0);
	kmt_pd_order_free(&o);
}
END_TEST

START_TEST(test_many_samples_across_chunks)
{
	struct pd_order o = { 0 };
	uint32_t cpu, i;
	uint64_t last = 0, ts;

	for (i = 0; i < 100000; i++)
		add(&o, i % 3, 1000000 - i * 7 % 1000 + i * 10);
	for (i = 0; (ts = take(&o, true, &cpu)); i++) {
		ck_assert_uint_ge(ts, last);
		last = ts;
	}
	ck_assert_uint_eq(i, 100000);
	kmt_pd_order_free(&o);
}
END_TEST

/* Sample @i of a hostile file: times run backwards, in groups of three equal ones. */
static void add_numbered(struct pd_order *o, uint32_t i, uint32_t n)
{
	uint64_t ts = (n - i) / 3, id = i;

	ck_assert_int_eq(kmt_pd_order_add(o, i % 5 == 0 ? 1 : 0, 1, ts, &id, sizeof(id), NULL, 0, false),
			 0);
}

/*
 * 600,000 samples whose times run backwards, as a damaged or hostile file may
 * have them, come out in time order, equal times in file order; a queue that
 * sorted by inserting would need minutes for this (the tcase allows 60 s).
 */
START_TEST(test_backwards_times_in_order_and_linear)
{
	const uint32_t n = 600000;
	struct pd_order o = { 0 };
	const struct pd_sample *s;
	uint64_t last_ts = 0, last_id = 0, id;
	uint32_t i, got = 0;

	for (i = 0; i < n; i++)
		add_numbered(&o, i, n);
	kmt_pd_order_round(&o);
	kmt_pd_order_round(&o);
	while ((s = kmt_pd_order_take(&o, false))) {
		memcpy(&id, s->data, sizeof(id));
		ck_assert_uint_eq(s->cpu, id % 5 == 0 ? 1 : 0);
		ck_assert(got == 0 || s->ts > last_ts || (s->ts == last_ts && id > last_id));
		last_ts = s->ts;
		last_id = id;
		got++;
		kmt_pd_order_release(&o);
	}
	ck_assert_uint_eq(got, n);
	kmt_pd_order_free(&o);
}
END_TEST

/*
 * Copies of the samples taken stay until the release, across chunks: a
 * batch of them is read after it was taken whole (ASan sees a copy freed
 * early).
 */
START_TEST(test_copies_last_until_release)
{
	static char big[UINT16_MAX + 1];
	const unsigned char *data[PD_TAKE_MAX];
	struct pd_order o = { 0 };
	const struct pd_sample *s;
	uint32_t i, k, n, batches = 0;

	/* more than a perf record's u16 size holds */
	ck_assert_int_eq(kmt_pd_order_add(&o, 0, 1, 0, big, sizeof(big), NULL, 0, false), -1);
	for (i = 0; i < 3000; i++) {
		uint32_t size = i % 7 ? 64 : UINT16_MAX;	/* 16 of those fill a chunk */

		memset(big, (int)(i & 0xff), size);
		ck_assert_int_eq(kmt_pd_order_add(&o, i % 2, 1, i, big, size, NULL, 0, false), 0);
	}
	for (i = 0; ; batches++) {
		for (n = 0; n < PD_TAKE_MAX && (s = kmt_pd_order_take(&o, true)); n++)
			data[n] = s->data;
		for (k = 0; k < n; k++, i++)
			ck_assert_uint_eq(data[k][0], i & 0xff);
		kmt_pd_order_release(&o);
		if (n < PD_TAKE_MAX)
			break;
	}
	ck_assert_uint_eq(i, 3000);
	ck_assert_uint_gt(batches, 10);
	kmt_pd_order_free(&o);
}
END_TEST

/* A kept sample is handed out where it is: nothing copied, its chain too. */
/*
 * A kept sample whose callchain ends 4 bytes before its payload, as perf
 * writes them, is read in place; one whose callchain lies elsewhere is
 * copied with it, and so is one not kept.
 */
START_TEST(test_kept_samples_are_not_copied)
{
	static const char payload[] = "payload";
	static const unsigned long long elsewhere[2] = { 5, 6 };
	unsigned long long rec[8] = { 0, 7, 8, 9 };	/* nr, then the ips */
	const char *data = (const char *)&rec[4] + 4;	/* after the u32 size */
	struct pd_order o = { 0 };
	const struct pd_sample *s;

	memcpy((char *)data, payload, sizeof(payload));
	ck_assert_int_eq(kmt_pd_order_add(&o, 1, 1, 5, data, sizeof(payload), &rec[1], 3, true),
			 0);
	ck_assert_int_eq(kmt_pd_order_add(&o, 0, 1, 6, payload, sizeof(payload), NULL, 0, false), 0);
	ck_assert_int_eq(kmt_pd_order_add(&o, 0, 1, 7, data, sizeof(payload), elsewhere, 2, true),
			 0);
	ck_assert((s = kmt_pd_order_take(&o, true)));
	ck_assert(s->data == data && kmt_pd_sample_chain(s) == &rec[1] && s->nchain == 3);
	ck_assert(s->cpu == 1 && !s->copied && !kmt_pd_sample_chunk(s));
	ck_assert((s = kmt_pd_order_take(&o, true)));
	ck_assert(s->data != payload && !memcmp(s->data, payload, sizeof(payload)));
	ck_assert(!kmt_pd_sample_chain(s) && s->cpu == 0 && s->copied && kmt_pd_sample_chunk(s));
	ck_assert((s = kmt_pd_order_take(&o, true)));
	ck_assert(s->data != data && !memcmp(s->data, payload, sizeof(payload)) && s->copied);
	ck_assert(kmt_pd_sample_chain(s) != elsewhere && s->nchain == 2);
	ck_assert(!memcmp(kmt_pd_sample_chain(s), elsewhere, sizeof(elsewhere)));
	kmt_pd_order_free(&o);
}
END_TEST

/*
 * The file order that breaks ties of equal times is 32 bits: samples
 * queued across its wrap still come out in the order they were added.
 */
START_TEST(test_file_order_wraps)
{
	struct pd_order o = { .seq = UINT32_MAX - 1 };
	uint32_t cpu, i, want[4] = { 2, 0, 1, 3 };

	for (i = 0; i < 4; i++)
		add(&o, want[i], 40);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(take(&o, true, &cpu), 40);
		ck_assert_uint_eq(cpu, want[i]);
	}
	kmt_pd_order_free(&o);
}
END_TEST

/* A file of @n FINISHED_ROUND records after @skip bytes; returns its descriptor. */
static int round_records_file(int n, size_t skip)
{
	size_t size = skip + (size_t)n * sizeof(struct perf_event_header);
	unsigned char *buf = calloc(1, size);
	char path[] = "/tmp/kmt-unit-pd-XXXXXX";
	int fd = mkstemp(path), i;

	ck_assert(fd >= 0 && buf);
	unlink(path);
	for (i = 0; i < n; i++) {
		struct perf_event_header h = { PERF_RECORD_FINISHED_ROUND, i, sizeof(h) };

		memcpy(buf + skip + (size_t)i * sizeof(h), &h, sizeof(h));
	}
	ck_assert_int_eq(write(fd, buf, size), (ssize_t)size);
	free(buf);
	return fd;
}

/*
 * Records of a file are read in place (kept) and stay readable after their
 * pages were given back; the stream ends at the end of the file even when
 * the header says it runs further.
 */
START_TEST(test_mapped_stream_reads_in_place)
{
	const int n = 2 << 20;	/* 16 MiB of records */
	struct kmt_error err = { 0 };
	struct pd_stream st;
	struct pd_record rec, first = { 0 };
	int fd = round_records_file(n, 24), got = 0, wrong = 0;

	ck_assert_int_eq(kmt_pd_stream_init(&st, "unit", fd, NULL, 0, 24, UINT64_MAX, &err), 0);
	ck_assert(st.mapped);
	while (kmt_pd_stream_next(&st, &rec, &err) == 1) {	/* a check per record is slow */
		const struct perf_event_header *h = (const void *)rec.data;

		wrong += !rec.kept || rec.type != PERF_RECORD_FINISHED_ROUND ||
			 rec.offset != 24 + (uint64_t)got * 8 || h->misc != (uint16_t)got;
		if (!got)
			first = rec;
		kmt_pd_stream_release(&st, rec.offset, NULL);
		got++;
	}
	ck_assert_int_eq(wrong, 0);
	ck_assert_int_eq(got, n);
	/* in steps of PD_RELEASE_STEP, PD_RELEASE_LAG behind the last record */
	ck_assert_uint_eq(st.released, (24 + (uint64_t)(n - 1) * 8 - PD_RELEASE_LAG) /
				       PD_RELEASE_STEP * PD_RELEASE_STEP);
	ck_assert_uint_eq(((const struct perf_event_header *)first.data)->misc, 0);
	kmt_pd_stream_free(&st);
}
END_TEST

/*
 * A record another thread still reads (held) keeps its page and those
 * after it; once let go, they go with the next release.
 */
START_TEST(test_held_records_stay_mapped)
{
	const int n = 1 << 20;	/* 8 MiB of records */
	const uint64_t page = (uint64_t)getpagesize();
	struct kmt_error err = { 0 };
	struct pd_stream st;
	struct pd_record rec;
	const void *held = NULL;
	uint64_t held_at = 0;
	int fd = round_records_file(n, 24), got = 0;

	ck_assert_int_eq(kmt_pd_stream_init(&st, "unit", fd, NULL, 0, 24, UINT64_MAX, &err), 0);
	ck_assert(st.mapped);
	while (kmt_pd_stream_next(&st, &rec, &err) == 1) {
		if (got == n / 4) {	/* 2 MiB in, 4 MiB before the last release's lag */
			held = rec.data;
			held_at = rec.offset;
		}
		kmt_pd_stream_release(&st, rec.offset, held);
		got++;
	}
	ck_assert_int_eq(got, n);
	ck_assert_uint_gt(st.released, 0);
	ck_assert_uint_eq(st.released, held_at & ~(page - 1));
	kmt_pd_stream_release(&st, rec.offset, NULL);
	ck_assert_uint_eq(st.released, (rec.offset - PD_RELEASE_LAG) & ~(page - 1));
	kmt_pd_stream_free(&st);
}
END_TEST

/*
 * Tasks from side-band records: a fork inherits its parent's name, an exec
 * renames it from its time on, a thread takes its process's parent and
 * program; an unnamed thread is counted; at the end the process table and
 * the tep get the last names.
 */
START_TEST(test_tasks_names_follow_time)
{
	struct pd_tasks t;
	struct kmt_proctable *procs = kmt_proctable_new();
	struct tep_handle *tep = tep_alloc();
	const struct kmt_process *p;

	ck_assert_int_eq(kmt_pd_tasks_init(&t), 0);
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 100, 100, 0, "perf-exec\0\0\0", 12, false), 0);
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 100, 100, 1000, "sh", 8, true), 0);
	ck_assert_int_eq(kmt_pd_tasks_exec_map(&t, 100, 1001, "/usr/bin/dash", 16), 0);
	ck_assert_int_eq(kmt_pd_tasks_exec_map(&t, 100, 1002, "/usr/lib/libc.so.6", 24), 0);
	/* the child's exec and program come before its FORK, as CPU buffers may have it */
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 101, 101, 3000, "ls", 8, true), 0);
	ck_assert_int_eq(kmt_pd_tasks_exec_map(&t, 101, 3001, "/usr/bin/ls", 16), 0);
	ck_assert_int_eq(kmt_pd_tasks_fork(&t, 101, 100, 101, 100, 2000), 0);
	ck_assert_int_eq(kmt_pd_tasks_fork(&t, 101, 101, 102, 101, 3500), 0);	/* a thread */
	ck_assert_int_eq(kmt_pd_tasks_exit(&t, 101, 100, 101, 4000), 0);
	ck_assert_int_eq(kmt_pd_tasks_pidns(&t, 101, 4026532999ull), 0);
	ck_assert_int_eq(kmt_pd_tasks_cgroup_path(&t, 7, "/system.slice/docker-"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope", 200), 0);
	ck_assert_int_eq(kmt_pd_tasks_sample_cgroup(&t, 100, 7), 0);

	/* a FORK read before its parent's exec (another CPU's buffer), a reused tid */
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 200, 200, 0, "perf-exec", 10, false), 0);
	ck_assert_int_eq(kmt_pd_tasks_fork(&t, 201, 200, 201, 200, 2000), 0);
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 200, 200, 1000, "make", 8, true), 0);
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 202, 202, 500, "old", 8, false), 0);
	ck_assert_int_eq(kmt_pd_tasks_fork(&t, 202, 200, 202, 200, 2100), 0);
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 201, 2500), "make");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 202, 600), "old");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 202, 2200), "make");

	ck_assert_str_eq(kmt_pd_tasks_name(&t, 100, 999), "perf-exec");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 100, 1000), "sh");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 101, 2500), "sh");	/* forked, not yet exec'd */
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 101, 3000), "ls");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 102, 3600), "ls");
	ck_assert_ptr_null(kmt_pd_tasks_name(&t, 777, 3600));
	/* one task looked up again and again: a record read in between and a rename count */
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 300, 300, 100, "first", 8, false), 0);
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 300, 150), "first");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 300, 5000), "first");
	ck_assert_int_eq(kmt_pd_tasks_comm(&t, 300, 300, 4000, "second", 8, true), 0);
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 300, 5000), "second");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 300, 3999), "first");
	ck_assert_str_eq(kmt_pd_tasks_name(&t, 300, 4000), "second");
	ck_assert_ptr_null(kmt_pd_tasks_name(&t, 300, 50));	/* before its first name */
	ck_assert_uint_eq(t.unnamed, 2);

	ck_assert_int_eq(kmt_pd_tasks_finish(&t, procs), 0);
	p = kmt_proctable_find(procs, 101);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->tgid, 101);
	ck_assert_int_eq(p->ppid, 100);
	ck_assert_int_eq(p->start_ns, 2000);
	ck_assert_int_eq(p->exit_ns, 4000);
	ck_assert_str_eq(p->comm, "ls");
	ck_assert_str_eq(p->exe, "/usr/bin/ls");
	ck_assert_str_eq(p->container, "pidns:4026532999");
	p = kmt_proctable_find(procs, 102);
	ck_assert_int_eq(p->tgid, 101);
	ck_assert_int_eq(p->ppid, 100);		/* its process's parent */
	ck_assert_str_eq(p->exe, "/usr/bin/ls");
	ck_assert_str_eq(kmt_proctable_find(procs, 100)->exe, "/usr/bin/dash");
	ck_assert_str_eq(kmt_proctable_find(procs, 100)->container,
			 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	ck_assert_ptr_nonnull(strstr(kmt_proctable_find(procs, 100)->cgroup, "/system.slice/"));
	ck_assert_int_eq(kmt_proctable_find(procs, 100)->ppid, -1);	/* no FORK nor EXIT */
	ck_assert_str_eq(kmt_pd_tasks_last_name(&t, 101), "ls");
	kmt_pd_tasks_free(&t);
	kmt_proctable_free(procs);
	tep_free(tep);
}
END_TEST

/*
 * A perf.data's threads are named by their last name once read to the end
 * (pid 12765 of traces/perf-small.data runs sh, then execs ls), by the
 * recording's saved cmdlines before.
 */
START_TEST(test_reader_comm_last_name_after_finish)
{
	const char *dir = getenv("KMT_TRACES");
	struct kmt_record recs[64];
	struct kmt_reader *r;
	struct kmt_error err;
	struct tep_handle *tep;
	char path[512];
	int n;

	snprintf(path, sizeof(path), "%s/perf-small.data", dir ? dir : "traces");
	r = kmt_reader_open(path, &err);
	ck_assert_msg(r != NULL, "%s", err.msg);
	tep = kmt_reader_tep(r);
	while ((n = kmt_reader_next_batch(r, recs, 64, &err)) > 0)
		;
	ck_assert_int_eq(n, 0);
	ck_assert_str_eq(kmt_reader_comm(r, 12765), tep_data_comm_from_pid(tep, 12765));
	ck_assert_int_eq(kmt_reader_finish(r), 0);
	ck_assert_str_eq(kmt_reader_comm(r, 12765), "ls");
	ck_assert_str_eq(kmt_reader_comm(r, 12764), "cat");
	ck_assert_str_eq(kmt_reader_comm(r, 0), tep_data_comm_from_pid(tep, 0));
	ck_assert_str_eq(kmt_reader_comm(r, 999999), tep_data_comm_from_pid(tep, 999999));
	ck_assert_ptr_null(kmt_reader_comm(NULL, 12765));
	kmt_reader_close(r);
}
END_TEST

Suite *perfdata_suite(void)
{
	Suite *s = suite_create("perfdata");
	TCase *tc = tcase_create("order");

	tcase_add_test(tc, test_rounds_make_samples_final);
	tcase_add_test(tc, test_equal_times_keep_file_order_and_end_drains);
	tcase_add_test(tc, test_many_samples_across_chunks);
	tcase_add_test(tc, test_kept_samples_are_not_copied);
	tcase_add_test(tc, test_file_order_wraps);
	tcase_add_test(tc, test_copies_last_until_release);
	tcase_add_test(tc, test_mapped_stream_reads_in_place);
	tcase_add_test(tc, test_held_records_stay_mapped);
	tcase_add_test(tc, test_tasks_names_follow_time);
	tcase_add_test(tc, test_reader_comm_last_name_after_finish);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile order");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_backwards_times_in_order_and_linear);
	suite_add_tcase(s, tc);
	return s;
}
