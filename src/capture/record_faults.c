// SPDX-License-Identifier: LGPL-2.1
/*
 * Minor and major faults as the kernel accounts them, where no return
 * probe on handle_mm_fault can be made: the perf software events
 * minor-faults and major-faults are raised by mm_account_fault(), right
 * where the task's min_flt/maj_flt (its rusage) are incremented. One
 * sample per fault (period 1 is never throttled), stamped with
 * CLOCK_MONOTONIC like the instance's "mono" trace clock, opened through
 * libperf: on every CPU for the traced tasks only (inherited by their
 * children), or system-wide for a system-wide recording. Each CPU's
 * samples come in time order and are spooled to a temporary file of its
 * own; at the end they are merged into one file in time order, in the
 * layout of KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "common/hashmap.h"
#include "record_local.h"
#include "container/tracedat.h"
#include "common/util.h"

#define RING_PAGES	512	/* 2 MiB per CPU: about 40,000 samples */
#define POLL_MS		50
#define SPOOL_RECS	2048
#define SAMPLE_WORDS	5	/* IDENTIFIER, pid|tid, time, addr, cpu|res */

/* One CPU's samples on their way to a temporary file. */
struct spool {
	int fd;
	struct kmt_td_fault_sample buf[SPOOL_RECS];
	uint32_t n;
	uint64_t written;	/* records in the file */
};

struct kmt_fault_sampler {
	struct perf_evlist *evlist;
	struct perf_evsel *evsel[2];	/* minor, major */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct kmt_hashmap major_ids;	/* id -> 1 */
	struct spool *spools;
	int nspools;
	unsigned long long lost;
	unsigned long long counted;	/* faults the kernel counted, or 0 if unread */
	int error;			/* errno of a failed spool write, or 0 */
	void (*wake)(void *ctx);
	void *wake_ctx;
	pthread_t thread;
	bool started;
	atomic_bool stop;
};

/* libperf talks on stderr unless told otherwise; library code prints nothing. */
static int quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* libperf sizes its rings from the page size it reads at init. */
static void init_libperf(void)
{
	libperf_init(quiet);
}

static int open_events(struct kmt_fault_sampler *s, bool inherit)
{
	static const unsigned long long config[2] = { PERF_COUNT_SW_PAGE_FAULTS_MIN,
						      PERF_COUNT_SW_PAGE_FAULTS_MAJ };
	int i;

	s->evlist = perf_evlist__new();
	if (!s->evlist)
		return -1;
	for (i = 0; i < 2; i++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = config[i],
			.sample_period = 1,
			.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
				       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU,
			.read_format = PERF_FORMAT_ID,
			.disabled = 1,
			.inherit = inherit,
			.use_clockid = 1,
			.clockid = CLOCK_MONOTONIC,
			.watermark = 1,
			.wakeup_watermark = RING_PAGES * 4096 / 4,
		};

		s->evsel[i] = perf_evsel__new(&attr);
		if (!s->evsel[i])
			return -1;
		perf_evlist__add(s->evlist, s->evsel[i]);
	}
	perf_evlist__set_maps(s->evlist, s->cpus, s->threads);
	if (perf_evlist__open(s->evlist) || perf_evlist__mmap(s->evlist, RING_PAGES))
		return -1;
	return 0;
}

/* The ids the kernel gave the major-faults events: samples carry them. */
static int collect_major_ids(struct kmt_fault_sampler *s)
{
	int ncpus = perf_cpu_map__nr(s->cpus), nthreads = perf_thread_map__nr(s->threads);
	int c, t;

	for (c = 0; c < ncpus; c++) {
		for (t = 0; t < nthreads; t++) {
			struct perf_counts_values v = { 0 };

			if (perf_evsel__read(s->evsel[1], c, t, &v) ||
			    kmt_hashmap_put(&s->major_ids, v.id, 1))
				return -1;
		}
	}
	return 0;
}

static int open_spools(struct kmt_fault_sampler *s, const char *tmpdir)
{
	int i;

	s->nspools = sysconf(_SC_NPROCESSORS_CONF);
	s->spools = calloc(s->nspools > 0 ? s->nspools : 1, sizeof(*s->spools));
	if (!s->spools)
		return -1;
	for (i = 0; i < s->nspools; i++)
		s->spools[i].fd = -1;
	for (i = 0; i < s->nspools; i++)
		if ((s->spools[i].fd = kmt_temp_fd(tmpdir)) < 0)
			return -1;
	return 0;
}

struct kmt_fault_sampler *kmt_fault_sampler_open(const int *tids, int ntids, const char *tmpdir,
						 void (*wake)(void *ctx), void *ctx)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct kmt_fault_sampler *s;
	int saved;

	pthread_once(&once, init_libperf);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->wake = wake;
	s->wake_ctx = ctx;
	if (kmt_hashmap_init(&s->major_ids)) {
		free(s);
		return NULL;
	}
	s->cpus = perf_cpu_map__new_online_cpus();
	s->threads = ntids ? perf_thread_map__new_array(ntids, (pid_t *)tids) :
			     perf_thread_map__new_dummy();
	if (!s->cpus || !s->threads || open_spools(s, tmpdir) || open_events(s, ntids > 0) ||
	    collect_major_ids(s))
		goto fail;
	return s;
fail:
	saved = errno ? errno : ENODEV;
	kmt_fault_sampler_free(s);
	errno = saved;
	return NULL;
}

static int spool_flush(struct kmt_fault_sampler *s, struct spool *sp)
{
	if (!sp->n || s->error)
		return s->error ? -1 : 0;
	if (kmt_write_all(sp->fd, sp->buf, sp->n * sizeof(sp->buf[0]))) {
		s->error = errno;
		if (s->wake)
			s->wake(s->wake_ctx);
		return -1;
	}
	sp->written += sp->n;
	sp->n = 0;
	return 0;
}

static void take_sample(struct kmt_fault_sampler *s, const union perf_event *ev)
{
	const __u64 *v = ev->sample.array;
	uint32_t cpu;
	struct spool *sp;

	if (ev->header.size < sizeof(ev->header) + SAMPLE_WORDS * 8)
		return;
	cpu = (uint32_t)v[4];
	if (cpu >= (uint32_t)s->nspools || s->error) {
		s->lost++;
		return;
	}
	sp = &s->spools[cpu];
	sp->buf[sp->n++] = (struct kmt_td_fault_sample){
		.time = v[2], .addr = v[3], .tid = (uint32_t)(v[1] >> 32), .cpu = cpu,
		.major = kmt_hashmap_get(&s->major_ids, v[0], &(uint64_t){ 0 }),
	};
	if (sp->n == SPOOL_RECS)
		spool_flush(s, sp);
}

static void drain(struct kmt_fault_sampler *s)
{
	struct perf_mmap *map;
	union perf_event *ev;

	perf_evlist__for_each_mmap(s->evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			if (ev->header.type == PERF_RECORD_SAMPLE)
				take_sample(s, ev);
			else if (ev->header.type == PERF_RECORD_LOST)
				s->lost += ev->lost.lost;
			perf_mmap__consume(map);
		}
		/*
		 * No perf_mmap__read_done(): it moves the read position to
		 * the head as it is now, past records that arrived since
		 * the last read_event, and they would be lost unseen.
		 */
	}
}

static void *sampler_thread(void *arg)
{
	struct kmt_fault_sampler *s = arg;

	while (!atomic_load(&s->stop)) {
		perf_evlist__poll(s->evlist, POLL_MS);
		drain(s);
	}
	return NULL;
}

int kmt_fault_sampler_start(struct kmt_fault_sampler *s)
{
	errno = pthread_create(&s->thread, NULL, sampler_thread, s);
	if (errno)
		return -1;
	s->started = true;
	perf_evlist__enable(s->evlist);
	return 0;
}

/*
 * What the events counted: every fault of the traced tasks, sampled or
 * not (children's counts are folded in). 0 when a read fails.
 */
static unsigned long long kernel_count(struct kmt_fault_sampler *s)
{
	int ncpus = perf_cpu_map__nr(s->cpus), nthreads = perf_thread_map__nr(s->threads);
	unsigned long long n = 0;
	int e, c, t;

	for (e = 0; e < 2; e++) {
		for (c = 0; c < ncpus; c++) {
			for (t = 0; t < nthreads; t++) {
				struct perf_counts_values v = { 0 };

				if (perf_evsel__read(s->evsel[e], c, t, &v))
					return 0;
				n += v.val;
			}
		}
	}
	return n;
}

void kmt_fault_sampler_stop(struct kmt_fault_sampler *s)
{
	int i;

	if (!s || !s->started)
		return;
	perf_evlist__disable(s->evlist);
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	s->started = false;
	s->counted = kernel_count(s);
	drain(s);
	for (i = 0; i < s->nspools; i++)
		spool_flush(s, &s->spools[i]);
}

int kmt_fault_sampler_error(const struct kmt_fault_sampler *s)
{
	return s ? s->error : 0;
}

unsigned long long kmt_fault_sampler_bytes(const struct kmt_fault_sampler *s)
{
	unsigned long long n = 0;
	int i;

	for (i = 0; s && i < s->nspools; i++)
		n += s->spools[i].written;
	return n * sizeof(struct kmt_td_fault_sample);
}

/* A spool read back in order, a buffer at a time. */
struct reader {
	struct spool *sp;
	uint64_t next;		/* record index in the file */
	uint32_t at, n;		/* buffered records [at, n) */
};

static const struct kmt_td_fault_sample *head_of(struct reader *r)
{
	if (r->at == r->n) {
		uint64_t left = r->sp->written - r->next;
		size_t want = left < SPOOL_RECS ? left : SPOOL_RECS;
		ssize_t got;

		if (!want)
			return NULL;
		got = pread(r->sp->fd, r->sp->buf, want * sizeof(r->sp->buf[0]),
			    r->next * sizeof(r->sp->buf[0]));
		if (got <= 0)
			return NULL;
		r->n = got / sizeof(r->sp->buf[0]);
		r->at = 0;
		r->next += r->n;
	}
	return &r->sp->buf[r->at];
}

/* Merge the spools by time into @out; *@stored records, up to @limit. */
static int merge(struct kmt_fault_sampler *s, int out, uint64_t limit, uint64_t *stored)
{
	struct reader *rd = calloc(s->nspools, sizeof(*rd));
	struct kmt_td_fault_sample obuf[SPOOL_RECS];
	uint32_t on = 0;
	int i, ret = -1;

	if (!rd)
		return -1;
	for (i = 0; i < s->nspools; i++)
		rd[i].sp = &s->spools[i];
	for (*stored = 0; *stored < limit; (*stored)++) {
		const struct kmt_td_fault_sample *best = NULL, *h;
		int from = -1;

		for (i = 0; i < s->nspools; i++)	/* few CPUs: a scan is enough */
			if ((h = head_of(&rd[i])) && (!best || h->time < best->time)) {
				best = h;
				from = i;
			}
		if (!best)
			break;
		obuf[on++] = *best;
		rd[from].at++;
		if (on == SPOOL_RECS) {
			if (kmt_write_all(out, obuf, sizeof(obuf)))
				goto out;
			on = 0;
		}
	}
	ret = kmt_write_all(out, obuf, on * sizeof(obuf[0]));
out:
	free(rd);
	return ret;
}

int kmt_fault_sampler_finish(struct kmt_fault_sampler *s, const char *tmpdir, int *fd,
			     unsigned int *size, unsigned long long *lost)
{
	const uint32_t head[2] = { KMT_TD_FAULT_SAMPLES_VERSION,
				   sizeof(struct kmt_td_fault_sample) };
	uint64_t total = 0, stored, limit;
	int i, out;

	for (i = 0; i < s->nspools; i++)
		total += s->spools[i].written;
	/* an option holds at most 4 GiB: what does not fit counts as lost */
	limit = (UINT32_MAX - sizeof(head)) / sizeof(struct kmt_td_fault_sample);
	out = kmt_temp_fd(tmpdir);
	if (out < 0)
		return -1;
	if (kmt_write_all(out, head, sizeof(head)) || merge(s, out, limit, &stored)) {
		close(out);
		return -1;
	}
	for (i = 0; i < s->nspools; i++) {	/* merged: their space goes back */
		close(s->spools[i].fd);
		s->spools[i].fd = -1;
	}
	*fd = out;
	*size = sizeof(head) + stored * sizeof(struct kmt_td_fault_sample);
	*lost = s->lost + (total - stored);
	/* the kernel's own count is the last word on what never arrived */
	if (s->counted > stored && s->counted - stored > *lost)
		*lost = s->counted - stored;
	return 0;
}

void kmt_fault_sampler_free(struct kmt_fault_sampler *s)
{
	int i;

	if (!s)
		return;
	kmt_fault_sampler_stop(s);
	if (s->evlist) {
		perf_evlist__munmap(s->evlist);
		perf_evlist__close(s->evlist);
		perf_evlist__delete(s->evlist);	/* and its evsels */
	}
	perf_cpu_map__put(s->cpus);
	perf_thread_map__put(s->threads);
	for (i = 0; s->spools && i < s->nspools; i++)
		if (s->spools[i].fd >= 0)
			close(s->spools[i].fd);
	free(s->spools);
	kmt_hashmap_free(&s->major_ids);
	free(s);
}
