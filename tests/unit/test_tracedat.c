// SPDX-License-Identifier: LGPL-2.1
/* trace.dat v6: writer/reader round trip, replay order, corrupted files. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <check.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/reader.h>
#include "core/replay_local.h"
#include "fixtures.h"
#include "suites.h"

static struct fix_page cpu0[1], cpu1[2];
static char *good_path;
static size_t good_size;

static const char cpustat1[] = "CPU: 1\nentries: 0\noverrun: 7\ncommit overrun: 0\n"
			       "bytes: 0\ndropped events: 2\nread events: 3\n";
static const char uname_text[] = "Linux testhost 6.18.0 #1 SMP x86_64";

/* CPU 0: kmalloc at 1000 and 3000; CPU 1: kmalloc 2000, other 4000, then 5 lost, kmalloc 5000. */
static void build_good(void)
{
	static const struct kmt_td_option opts[] = {
		KMT_TD_OPT(KMT_TD_OPT_CPUSTAT, cpustat1, sizeof(cpustat1)),
		KMT_TD_OPT(KMT_TD_OPT_UNAME, uname_text, sizeof(uname_text)),
	};
	struct fix_page *pages[2] = { cpu0, cpu1 };
	int npages[2] = { 1, 2 };
	struct kmt_tracedat_meta m;
	unsigned char buf[64];
	struct stat st;
	size_t len;

	fix_page_init(&cpu0[0], 1000);
	len = fix_kmalloc(buf, 100, 0xffffffff81234560ull, 0x1000, 10, 16, 0);
	fix_page_add(&cpu0[0], 1000, buf, len);
	len = fix_kmalloc(buf, 100, 0xffffffff81234560ull, 0x3000, 30, 32, 0);
	fix_page_add(&cpu0[0], 3000, buf, len);
	fix_page_init(&cpu1[0], 2000);
	len = fix_kmalloc(buf, 101, 0xffffffff81234560ull, 0x2000, 20, 32, 1);
	fix_page_add(&cpu1[0], 2000, buf, len);
	fix_common(buf, 900, 101, 12);
	fix_page_add(&cpu1[0], 4000, buf, 12);
	fix_page_init(&cpu1[1], 5000);
	len = fix_kmalloc(buf, 101, 0xffffffff81234560ull, 0x5000, 50, 64, 1);
	fix_page_add(&cpu1[1], 5000, buf, len);
	fix_page_set_missed(&cpu1[1], 5);
	fix_meta(&m, opts, 2);
	good_path = fix_write_tracedat(&m, 2, pages, npages);
	ck_assert_int_eq(stat(good_path, &st), 0);
	good_size = st.st_size;
}

static void drop_good(void)
{
	unlink(good_path);
	free(good_path);
}

START_TEST(test_round_trip_streams)
{
	struct kmt_error err;
	struct kmt_reader *r = kmt_reader_open(good_path, &err);
	struct kmt_record rec;
	const struct kmt_cpu_stats *st;

	ck_assert_msg(r != NULL, "%s", err.msg);
	ck_assert_str_eq(kmt_reader_format(r), "trace.dat v6");
	ck_assert_int_eq(kmt_reader_cpus(r), 2);
	ck_assert_int_eq(kmt_reader_next(r, 0, &rec, &err), 1);
	ck_assert_uint_eq(rec.ts, 1000);
	ck_assert_int_eq(rec.size, 52);
	ck_assert_int_eq(kmt_reader_next(r, 0, &rec, &err), 1);
	ck_assert_uint_eq(rec.ts, 3000);
	ck_assert_int_eq(kmt_reader_next(r, 0, &rec, &err), 0);
	ck_assert_int_eq(kmt_reader_next(r, 1, &rec, &err), 1);
	ck_assert_uint_eq(rec.ts, 2000);
	ck_assert_int_eq(kmt_reader_next(r, 1, &rec, &err), 1);
	ck_assert_uint_eq(rec.ts, 4000);
	ck_assert_int_eq(kmt_reader_next(r, 1, &rec, &err), 1);
	ck_assert_uint_eq(rec.ts, 5000);
	ck_assert_int_eq(kmt_reader_next(r, 1, &rec, &err), 0);
	st = kmt_reader_cpu_stats(r, 1);
	ck_assert_uint_eq(st->missed_marked, 5);
	ck_assert_uint_eq(st->overrun, 7);
	ck_assert_uint_eq(st->dropped, 2);
	ck_assert_uint_eq(kmt_cpu_stats_lost(st), 9);
	ck_assert(!kmt_reader_cpu_stats(r, 0)->have_stats);
	ck_assert_str_eq(kmt_reader_text(r, KMT_TEXT_UNAME), uname_text);
	ck_assert_ptr_null(kmt_reader_text(r, KMT_TEXT_VMSTAT_START));
	kmt_reader_close(r);
}
END_TEST

START_TEST(test_round_trip_symbols)
{
	struct kmt_error err;
	struct kmt_reader *r = kmt_reader_open(good_path, &err);
	struct tep_handle *tep;

	ck_assert_ptr_nonnull(r);
	tep = kmt_reader_tep(r);
	ck_assert_str_eq(tep_find_function(tep, 0xffffffff81234568ull), "kmalloc_test_site");
	ck_assert_str_eq(tep_data_comm_from_pid(tep, 100), "tester");
	ck_assert_ptr_nonnull(tep_find_event_by_name(tep, "kmem", "kmem_cache_alloc"));
	ck_assert_ptr_nonnull(tep_find_event_by_name(tep, "test", "other_event"));
	ck_assert_str_eq(kmt_reader_text(r, KMT_TEXT_SYMBOLS),
			 "the recording's kallsyms (3 symbols)");
	kmt_reader_close(r);
	/* closed before any lookup: the parse on its thread is waited for */
	r = kmt_reader_open(good_path, &err);
	ck_assert_ptr_nonnull(r);
	kmt_reader_close(r);
}
END_TEST

/* --kallsyms replaces the recording's own, which are parsed beside the replay. */
START_TEST(test_given_kallsyms_win)
{
	static const char text[] = "ffffffff81000000 T _stext\nffffffff81234560 T given_name\n"
				   "ffffffff81240000 T after_given\n";
	char path[] = "/tmp/kmtrace-test-ksyms-XXXXXX";
	int fd = mkstemp(path);
	struct kmt_error err;
	struct kmt_reader *r;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	r = kmt_reader_open(good_path, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(kmt_reader_use_kallsyms(r, path, &err), 0);
	ck_assert_str_eq(tep_find_function(kmt_reader_tep(r), 0xffffffff81234568ull), "given_name");
	ck_assert_ptr_nonnull(strstr(kmt_reader_text(r, KMT_TEXT_SYMBOLS), "--kallsyms, 3 symbols"));
	kmt_reader_close(r);
	unlink(path);
}
END_TEST

/* An analysis that records what replay hands it. */
struct seen {
	int n;
	unsigned long long ts[16];
	enum kmt_event_type type[16];
	unsigned long long ptr[16];
};

static void *seen_init(void)
{
	return calloc(1, sizeof(struct seen));
}

static int seen_event(void *priv, const struct kmt_event *ev)
{
	struct seen *sn = priv;

	ck_assert_int_lt(sn->n, 16);
	if (ev->type == KMT_EV_KMALLOC) {	/* the record's bytes came along */
		uint64_t ptr;

		memcpy(&ptr, (const char *)ev->raw + 16, 8);
		ck_assert_uint_eq(ptr, ev->ptr);
	}
	sn->ts[sn->n] = ev->ts;
	sn->type[sn->n] = ev->type;
	sn->ptr[sn->n++] = ev->ptr;
	return 0;
}

/* An analysis that fails (out of memory) at its second event. */
static int failing_event(void *priv, const struct kmt_event *ev)
{
	struct seen *sn = priv;

	ck_assert_int_lt(sn->n, 2);	/* never called again after failing */
	sn->ts[sn->n++] = ev->ts;
	if (sn->n < 2)
		return 0;
	errno = ENOMEM;
	return -1;
}

static const struct kmt_analysis seen_analysis = {
	.name = "seen", .events = KMT_EVMASK_ALL, .init = seen_init, .event = seen_event,
};

/* With two threads this one takes its events in the reader thread. */
static const struct kmt_analysis kmalloc_only = {
	.name = "kmalloc-only", .events = KMT_EVMASK(KMT_EV_KMALLOC), .init = seen_init,
	.event = seen_event, .reader_thread_ok = true,
};

static const struct kmt_analysis failing = {
	.name = "failing", .events = KMT_EVMASK_ALL, .init = seen_init, .event = failing_event,
};

static const struct kmt_analysis failing_in_reader = {
	.name = "failing", .events = KMT_EVMASK_ALL, .init = seen_init, .event = failing_event,
	.reader_thread_ok = true,
};

/* A session of the good file on @threads threads, its reader open. */
static void open_good(struct kmt_session *s, int threads)
{
	struct kmt_error err;

	*s = (struct kmt_session){ .input = good_path, .threads = threads };
	s->reader = kmt_reader_open(good_path, &err);
	ck_assert_msg(s->reader != NULL, "%s", err.msg);
	s->tep = kmt_reader_tep(s->reader);
}

/*
 * An analysis whose event handler fails stops the replay at once, in one
 * thread and with a reader thread, in either thread: -1 and an error that
 * names it; the other analysis saw no event past it.
 */
START_TEST(test_replay_stops_on_failure)
{
	const struct kmt_analysis *an[2] = { &seen_analysis, _i & 1 ? &failing_in_reader : &failing };
	struct kmt_error err = { 0 };
	struct kmt_session s;
	struct seen *all, *bad;
	void *priv[2];

	open_good(&s, 1 + (_i >= 2));
	priv[0] = all = seen_init();
	priv[1] = bad = seen_init();
	ck_assert_int_eq(kmt_replay(&s, an, priv, 2, &err), -1);
	ck_assert_msg(strstr(err.msg, "failing") && strstr(err.msg, strerror(ENOMEM)), "%s",
		      err.msg);
	ck_assert_int_eq(bad->n, 2);
	ck_assert_int_le(all->n, 2 + 2048);	/* at most the batch under way */
	ck_assert_int_lt(all->n, 5);
	free(all);
	free(bad);
	kmt_reader_close(s.reader);
}
END_TEST

/* In one thread (_i 1) and with a reader thread (_i 2): the same events. */
START_TEST(test_replay_merges_by_time)
{
	const struct kmt_analysis *an[2] = { &seen_analysis, &kmalloc_only };
	struct kmt_error err;
	struct kmt_session s;
	struct seen *all, *km;
	void *priv[2];
	int i;

	open_good(&s, _i);
	priv[0] = all = seen_init();
	priv[1] = km = seen_init();
	ck_assert_int_eq(kmt_replay(&s, an, priv, 2, &err), 0);
	ck_assert_int_eq(all->n, 5);
	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(all->ts[i], 1000ull * (i + 1));
	ck_assert_int_eq(all->type[3], KMT_EV_UNKNOWN);
	ck_assert_int_eq(km->n, 4);
	ck_assert_uint_eq(km->ptr[0], 0x1000);
	ck_assert_uint_eq(km->ptr[1], 0x2000);
	ck_assert_uint_eq(km->ptr[3], 0x5000);
	free(all);
	free(km);
	kmt_reader_close(s.reader);
}
END_TEST

static const struct kmt_need user_calls[] = {
	{ KMT_EVMASK(KMT_EV_U_CALL), "user-space calls" }, { 0 }
};

static const struct kmt_need kmallocs[] = {
	{ KMT_EVMASK(KMT_EV_KMALLOC), "kmallocs" }, { 0 }
};

/* Idle without user-space calls, which the file has no format of. */
static const struct kmt_analysis idle_here = {
	.name = "idle", .events = KMT_EVMASK_ALL, .init = seen_init, .event = seen_event,
	.needs = user_calls, .idle_without_first_need = true,
};

/* Idle without kmallocs, which the file has. */
static const struct kmt_analysis busy_here = {
	.name = "busy", .events = KMT_EVMASK_ALL, .init = seen_init, .event = seen_event,
	.needs = kmallocs, .idle_without_first_need = true, .reader_thread_ok = true,
};

/*
 * An analysis idle without its first need gets no event from a recording
 * whose formats lack it, in one thread (_i 1) and with a reader thread
 * (_i 2); one whose first need is there gets every event, and the
 * missing need is still reported.
 */
START_TEST(test_idle_without_first_need)
{
	const struct kmt_analysis *an[2] = { &idle_here, &busy_here };
	struct kmt_error err;
	struct kmt_session s;
	struct seen *idle, *busy;
	char missing[256];
	void *priv[2];

	open_good(&s, _i);
	priv[0] = idle = seen_init();
	priv[1] = busy = seen_init();
	ck_assert_int_eq(kmt_replay(&s, an, priv, 2, &err), 0);
	ck_assert_int_eq(idle->n, 0);
	ck_assert_int_eq(busy->n, 5);
	ck_assert_int_eq(kmt_missing_events(&s, &idle_here, missing, sizeof(missing)), 1);
	ck_assert_msg(strstr(missing, "user-space calls"), "%s", missing);
	ck_assert_int_eq(kmt_missing_events(&s, &busy_here, NULL, 0), 0);
	free(idle);
	free(busy);
	kmt_reader_close(s.reader);
}
END_TEST

/* An analysis that notes which thread took its events; the reading one if it may. */
struct where {
	bool reader_ok;
	pthread_t caller;
	int in_caller, elsewhere;
};

static void *where_init(void)
{
	return calloc(1, sizeof(struct where));
}

static int where_event(void *priv, const struct kmt_event *ev)
{
	struct where *w = priv;

	(void)ev;
	if (pthread_equal(pthread_self(), w->caller))
		w->in_caller++;
	else
		w->elsewhere++;
	return 0;
}

static bool where_reader_ok(const void *priv)
{
	return ((const struct where *)priv)->reader_ok;
}

static const struct kmt_analysis where_analysis = {
	.name = "where", .events = KMT_EVMASK_ALL, .init = where_init, .event = where_event,
	.reader_thread_ok_with = where_reader_ok,
};

/*
 * With two threads, an analysis whose options allow it (_i 1) takes its
 * events in the reading thread, else (_i 0) in the calling one; it tells
 * kmt_analysis_in_reader_thread() the same. Alone (_i 2) it stays in the
 * calling thread even so, as the work that thread shares.
 */
START_TEST(test_reader_thread_by_options)
{
	const struct kmt_analysis *an[2] = { &where_analysis, &seen_analysis };
	struct kmt_error err;
	struct kmt_session s;
	struct where *w;
	void *priv[2];

	open_good(&s, 2);
	priv[0] = w = where_init();
	priv[1] = seen_init();
	w->reader_ok = _i > 0;
	w->caller = pthread_self();
	ck_assert(kmt_analysis_in_reader_thread(&where_analysis, w) == (_i > 0));
	ck_assert(!kmt_analysis_in_reader_thread(&seen_analysis, priv[1]));
	ck_assert_int_eq(kmt_replay(&s, an, priv, _i == 2 ? 1 : 2, &err), 0);
	ck_assert_int_eq(w->in_caller + w->elsewhere, 5);
	ck_assert_int_eq(_i == 1 ? w->elsewhere : w->in_caller, 5);
	free(priv[1]);
	free(w);
	kmt_reader_close(s.reader);
}
END_TEST

/* An analysis that folds each event it is handed, in order, into a digest. */
struct digest {
	unsigned long long n, hash;
};

static void *digest_init(void)
{
	return calloc(1, sizeof(struct digest));
}

static int digest_event(void *priv, const struct kmt_event *ev)
{
	struct digest *d = priv;

	d->hash = (d->hash ^ ev->ts ^ ev->ptr ^ (unsigned long long)ev->type << 48 ^
		   (unsigned long long)(unsigned int)ev->pid << 24) * 0x100000001b3ull;
	d->n++;
	return 0;
}

static pthread_t test_thread;
static bool slow_in_test_thread;
static int thread_changes;	/* of slow_event()'s between one event and the next */

/* digest_event(), 20 us slower in the test's thread or in the others. */
static int slow_event(void *priv, const struct kmt_event *ev)
{
	static bool was_in_test_thread = true;
	bool in_test_thread = pthread_equal(pthread_self(), test_thread);
	struct timespec t0, t;

	thread_changes += in_test_thread != was_in_test_thread;
	was_in_test_thread = in_test_thread;
	if (in_test_thread == slow_in_test_thread) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000ll + t.tv_nsec - t0.tv_nsec < 20000);
	}
	return digest_event(priv, ev);
}

static const struct kmt_analysis digest_analysis = {
	.name = "digest", .events = KMT_EVMASK_ALL, .init = digest_init, .event = digest_event,
};

static const struct kmt_analysis slow_analysis = {
	.name = "slow", .events = KMT_EVMASK_ALL, .init = digest_init, .event = slow_event,
	.reader_thread_ok = true,
};

/* Replay traces/mm.dat with @threads (@trial records); the digests into @d. */
static void replay_digests(int threads, unsigned long long trial, struct digest *d,
			   struct kmt_session *s)
{
	const struct kmt_analysis *an[2] = { &digest_analysis, &slow_analysis };
	const char *dir = getenv("KMT_TRACES");
	struct kmt_error err;
	char path[512];
	void *priv[2];

	snprintf(path, sizeof(path), "%s/mm.dat", dir ? dir : "traces");
	*s = (struct kmt_session){ .input = path, .threads = threads, .thread_trial = trial };
	s->reader = kmt_reader_open(path, &err);
	ck_assert_msg(s->reader != NULL, "%s", err.msg);
	s->tep = kmt_reader_tep(s->reader);
	priv[0] = digest_init();
	priv[1] = digest_init();
	ck_assert_int_eq(kmt_replay(s, an, priv, 2, &err), 0);
	d[0] = *(struct digest *)priv[0];
	d[1] = *(struct digest *)priv[1];
	free(priv[0]);
	free(priv[1]);
	kmt_reader_close(s->reader);
}

/*
 * --threads auto: its first 1,500 records in one thread (1,000 timed),
 * then two (1,000 timed after 500). Where the analysis of the reading thread is slow in any
 * thread but the first (_i 0), two threads lose and it goes back to one,
 * and after 8,000 records alone tries two again, and again; where it is
 * slow in the first only (_i 1), two stay. Either way each analysis sees
 * the events one thread gives it, in the same order, and the counts agree.
 */
START_TEST(test_auto_threads_choose_and_agree)
{
	struct digest want[2], got[2];
	struct kmt_session s1, sa;

	test_thread = pthread_self();
	slow_in_test_thread = _i == 1;
	replay_digests(1, 0, want, &s1);
	ck_assert_uint_gt(want[0].n, 3 * 2048 * 4);	/* past the batches under way */
	thread_changes = 0;
	replay_digests(KMT_THREADS_AUTO, 1000, got, &sa);
	if (_i == 1) {
		ck_assert_int_eq(sa.replay.threads, 2);
		ck_assert_int_eq(thread_changes, 1);	/* to two, for good */
	} else {	/* to two and back, tried again (the last try may meet the end) */
		ck_assert_int_ge(thread_changes, 4);
	}
	ck_assert_uint_eq(got[0].n, want[0].n);
	ck_assert_uint_eq(got[0].hash, want[0].hash);
	ck_assert_uint_eq(got[1].n, want[1].n);
	ck_assert_uint_eq(got[1].hash, want[1].hash);
	ck_assert(!memcmp(sa.replay.types, s1.replay.types, sizeof(s1.replay.types)));
	ck_assert_uint_eq(sa.replay.out_of_order, s1.replay.out_of_order);
}
END_TEST

static unsigned char *slurp_good(void)
{
	unsigned char *buf = malloc(good_size);
	int fd = open(good_path, O_RDONLY);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(read(fd, buf, good_size), (ssize_t)good_size);
	close(fd);
	return buf;
}

static char *write_variant(const unsigned char *buf, size_t len)
{
	char *path = strdup("/tmp/kmtrace-bad-XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Open @buf[0..len) and read every stream; returns 0 when all of it read cleanly. */
static int read_all(const unsigned char *buf, size_t len, struct kmt_error *err)
{
	char *path = write_variant(buf, len);
	struct kmt_reader *r;
	struct kmt_record rec;
	int cpu, ret = 0;

	memset(err, 0, sizeof(*err));
	r = kmt_reader_open(path, err);
	if (!r)
		ret = -1;
	for (cpu = 0; r && cpu < kmt_reader_cpus(r) && !ret; cpu++) {
		int n;

		while ((n = kmt_reader_next(r, cpu, &rec, err)) > 0)
			;
		ret = n;
	}
	kmt_reader_close(r);
	unlink(path);
	free(path);
	return ret;
}

/*
 * Read @path's streams, @max records at a time (0: with kmt_reader_next()):
 * the sum of the records' times and sizes in *@sum, their number in *@n.
 * 0 when all of it read cleanly, else -1 with @err filled.
 */
static int read_streams(const char *path, int max, unsigned long long *sum, int *n,
			struct kmt_error *err)
{
	struct kmt_reader *r;
	struct kmt_record recs[64];
	int cpu, got = 0, i;

	memset(err, 0, sizeof(*err));
	*sum = 0;
	*n = 0;
	r = kmt_reader_open(path, err);
	if (!r)
		return -1;
	for (cpu = 0; cpu < kmt_reader_cpus(r) && got >= 0; cpu++) {
		while ((got = max ? kmt_reader_next_cpu_batch(r, cpu, recs, max, err) :
			      kmt_reader_next(r, cpu, recs, err)) > 0) {
			for (i = 0; i < got; i++)
				*sum += recs[i].ts * 31 + (unsigned long long)recs[i].size;
			*n += got;
		}
	}
	kmt_reader_close(r);
	return got < 0 ? -1 : 0;
}

/* CPU batches give the records one at a time gives, and fail where it does. */
START_TEST(test_cpu_batches_read_alike)
{
	unsigned char *buf = slurp_good();
	static const int sizes[] = { 1, 2, 64 };
	size_t len;

	for (len = good_size; len > 0; len -= len > 512 ? 61 : len) {
		char *path = write_variant(buf, len);
		struct kmt_error e1, e2;
		unsigned long long sum1, sum2;
		int n1, n2, ret, k;

		ret = read_streams(path, 0, &sum1, &n1, &e1);
		for (k = 0; k < 3; k++) {
			ck_assert_int_eq(read_streams(path, sizes[k], &sum2, &n2, &e2), ret);
			ck_assert_int_eq(n2, n1);
			ck_assert_uint_eq(sum2, sum1);
			ck_assert_str_eq(e2.msg, e1.msg);
			ck_assert_int_eq(e2.offset, e1.offset);
		}
		unlink(path);
		free(path);
	}
	free(buf);
}
END_TEST

START_TEST(test_every_truncation_fails_cleanly)
{
	unsigned char *buf = slurp_good();
	struct kmt_error err;
	size_t len;

	for (len = 0; len < good_size; len += len < good_size - 3 * FIX_PAGE_SIZE ? 1 : 97) {
		ck_assert_int_eq(read_all(buf, len, &err), -1);
		ck_assert_msg(err.msg[0], "no message at length %zu", len);
		ck_assert_msg(strstr(err.file, "/tmp/kmtrace-bad-") != NULL, "no file name");
	}
	ck_assert_int_eq(read_all(buf, good_size, &err), 0);
	free(buf);
}
END_TEST

START_TEST(test_bad_magic_and_version)
{
	unsigned char *buf = slurp_good();
	struct kmt_error err;

	buf[1] = 'X';
	ck_assert_int_eq(read_all(buf, good_size, &err), -1);
	ck_assert_int_eq(err.offset, 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a trace.dat, perf.data, ftrace text file or CTF"));
	buf[1] = 0x08;
	buf[10] = '9';			/* version "9" */
	ck_assert_int_eq(read_all(buf, good_size, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "libtracecmd"));
	free(buf);
}
END_TEST

/* Offset of the first CPU's data: the first page-aligned offset holding cpu0's page. */
static size_t cpu0_offset(const unsigned char *buf)
{
	size_t off;

	for (off = 0; off + FIX_PAGE_SIZE <= good_size; off += FIX_PAGE_SIZE)
		if (!memcmp(buf + off, cpu0[0].data, FIX_PAGE_SIZE))
			return off;
	ck_abort_msg("CPU 0 data not found");
	return 0;
}

START_TEST(test_corrupt_commit)
{
	unsigned char *buf = slurp_good();
	size_t off = cpu0_offset(buf);
	uint64_t commit = 5000;
	struct kmt_error err;

	memcpy(buf + off + 8, &commit, 8);
	ck_assert_int_eq(read_all(buf, good_size, &err), -1);
	ck_assert_int_eq(err.offset, (long long)off + 8);
	ck_assert_ptr_nonnull(strstr(err.msg, "commit"));
	free(buf);
}
END_TEST

START_TEST(test_event_past_commit)
{
	unsigned char *buf = slurp_good();
	size_t off = cpu0_offset(buf);
	uint64_t commit = 60;		/* first event is 4 + 52 bytes; the second is cut */
	struct kmt_error err;

	memcpy(buf + off + 8, &commit, 8);
	ck_assert_int_eq(read_all(buf, good_size, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "past its sub-buffer"));
	free(buf);
}
END_TEST

START_TEST(test_cpu_offset_beyond_file)
{
	unsigned char *buf = slurp_good();
	size_t off = cpu0_offset(buf), i;
	uint64_t bad = good_size + 4096;
	struct kmt_error err;

	for (i = 0; i + 8 <= off; i++) {	/* find the flyrecord entry for CPU 0 */
		uint64_t v;

		memcpy(&v, buf + i, 8);
		if (v == off)
			break;
	}
	ck_assert_uint_lt(i + 8, off);
	memcpy(buf + i, &bad, 8);
	ck_assert_int_eq(read_all(buf, good_size, &err), -1);
	ck_assert_int_eq(err.offset, (long long)i);
	ck_assert_ptr_nonnull(strstr(err.msg, "beyond end of file"));
	free(buf);
}
END_TEST

START_TEST(test_random_corruption_never_crashes)
{
	unsigned char *buf = slurp_good(), *copy = malloc(good_size);
	struct kmt_error err;
	unsigned int seed = 12345;
	int i, failures = 0;

	ck_assert_ptr_nonnull(copy);
	for (i = 0; i < 300; i++) {
		size_t at = rand_r(&seed) % good_size;

		memcpy(copy, buf, good_size);
		copy[at] ^= 1 + rand_r(&seed) % 255;
		if (read_all(copy, good_size, &err)) {
			ck_assert_msg(err.msg[0], "failure without message (byte %zu)", at);
			failures++;
		}
	}
	ck_assert_int_gt(failures, 0);
	free(copy);
	free(buf);
}
END_TEST

START_TEST(test_missing_file)
{
	struct kmt_error err;

	ck_assert_ptr_null(kmt_reader_open("/nonexistent/kmtrace.dat", &err));
	ck_assert_str_eq(err.file, "/nonexistent/kmtrace.dat");
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file"));
}
END_TEST

Suite *tracedat_suite(void)
{
	Suite *s = suite_create("tracedat");
	TCase *rt = tcase_create("round trip"), *bad = tcase_create("corrupt");

	tcase_add_unchecked_fixture(rt, build_good, drop_good);
	tcase_add_test(rt, test_round_trip_streams);
	tcase_add_test(rt, test_round_trip_symbols);
	tcase_add_test(rt, test_given_kallsyms_win);
	tcase_add_loop_test(rt, test_replay_stops_on_failure, 0, 4);
	tcase_add_loop_test(rt, test_replay_merges_by_time, 1, 3);
	tcase_add_loop_test(rt, test_idle_without_first_need, 1, 3);
	tcase_add_loop_test(rt, test_reader_thread_by_options, 0, 3);
	tcase_add_loop_test(rt, test_auto_threads_choose_and_agree, 0, 2);
	tcase_add_unchecked_fixture(bad, build_good, drop_good);
	tcase_set_timeout(bad, 120);
	tcase_add_test(bad, test_every_truncation_fails_cleanly);
	tcase_add_test(bad, test_cpu_batches_read_alike);
	tcase_add_test(bad, test_bad_magic_and_version);
	tcase_add_test(bad, test_corrupt_commit);
	tcase_add_test(bad, test_event_past_commit);
	tcase_add_test(bad, test_cpu_offset_beyond_file);
	tcase_add_test(bad, test_random_corruption_never_crashes);
	tcase_add_test(bad, test_missing_file);
	suite_add_tcase(s, rt);
	suite_add_tcase(s, bad);
	return s;
}
