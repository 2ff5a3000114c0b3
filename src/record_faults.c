// SPDX-License-Identifier: LGPL-2.1
/*
 * Minor and major faults as the kernel accounts them, where no return
 * probe on handle_mm_fault can be made: the perf software events
 * minor-faults and major-faults are raised by mm_account_fault(), right
 * where the task's min_flt/maj_flt (its rusage) are incremented. One
 * sample per fault (period 1 is never throttled), on every CPU, stamped
 * with CLOCK_MONOTONIC like the instance's "mono" trace clock.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record_local.h"
#include "util.h"

#define RING_PAGES	512	/* 2 MiB per CPU: about 40,000 samples */
#define POLL_MS		50

struct fault_sample {
	unsigned long long time;
	unsigned long long addr;
	unsigned int tid;
	unsigned int cpu;
	bool major;
};

struct cpu_ring {
	int fd[2];			/* minor, major (its samples go to fd[0]'s ring) */
	unsigned long long id[2];
	struct perf_event_mmap_page *meta;
	size_t map_len;
};

struct kmt_fault_sampler {
	int ncpus;
	struct cpu_ring *rings;
	struct fault_sample *samples;
	uint32_t n, cap;
	unsigned long long lost;
	bool alloc_failed;
	pthread_t thread;
	bool started;
	atomic_bool stop;
};

static int perf_open(int cpu, unsigned long long config)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU,
		.disabled = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.wakeup_watermark = RING_PAGES * 4096 / 4,
		.watermark = 1,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_ring(struct cpu_ring *c, int cpu)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	c->fd[0] = perf_open(cpu, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	c->fd[1] = c->fd[0] < 0 ? -1 : perf_open(cpu, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	if (c->fd[1] < 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (ioctl(c->fd[i], PERF_EVENT_IOC_ID, &c->id[i]))
			return -1;
	c->map_len = (RING_PAGES + 1) * page;
	c->meta = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd[0], 0);
	if (c->meta == MAP_FAILED) {
		c->meta = NULL;
		return -1;
	}
	return ioctl(c->fd[1], PERF_EVENT_IOC_SET_OUTPUT, c->fd[0]);
}

struct kmt_fault_sampler *kmt_fault_sampler_open(int ncpus)
{
	struct kmt_fault_sampler *s = calloc(1, sizeof(*s));
	int cpu, saved;

	if (!s)
		return NULL;
	s->ncpus = ncpus;
	s->rings = calloc(ncpus, sizeof(*s->rings));
	if (!s->rings)
		goto fail;
	for (cpu = 0; cpu < ncpus; cpu++)
		s->rings[cpu].fd[0] = s->rings[cpu].fd[1] = -1;
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (open_ring(&s->rings[cpu], cpu) == 0)
			continue;
		/* An offline CPU has nothing to sample. */
		if (errno == ENODEV && s->rings[cpu].fd[0] < 0)
			continue;
		goto fail;
	}
	return s;
fail:
	saved = errno;
	kmt_fault_sampler_free(s);
	errno = saved;
	return NULL;
}

static void add_sample(struct kmt_fault_sampler *s, const struct cpu_ring *c,
		       const unsigned char *rec)
{
	const unsigned long long *v = (const unsigned long long *)(rec + 8);
	struct fault_sample *fs;

	/* IDENTIFIER, pid|tid, time, addr, cpu|res */
	if (kmt_grow((void **)&s->samples, &s->cap, s->n + 1, sizeof(*s->samples))) {
		s->alloc_failed = true;
		return;
	}
	fs = &s->samples[s->n++];
	fs->major = v[0] == c->id[1];
	fs->tid = (unsigned int)(v[1] >> 32);
	fs->time = v[2];
	fs->addr = v[3];
	fs->cpu = (unsigned int)v[4];
}

static void take_record(struct kmt_fault_sampler *s, const struct cpu_ring *c,
			const unsigned char *rec)
{
	const struct perf_event_header *h = (const void *)rec;

	if (h->type == PERF_RECORD_SAMPLE && h->size >= 8 + 5 * 8)
		add_sample(s, c, rec);
	else if (h->type == PERF_RECORD_LOST && h->size >= 8 + 2 * 8)
		s->lost += ((const unsigned long long *)(rec + 8))[1];
}

/* Copy @len bytes at ring offset @off, wrapping at @size. */
static void ring_copy(void *dst, const unsigned char *data, unsigned long long size,
		      unsigned long long off, size_t len)
{
	size_t first = size - off < len ? size - off : len;

	memcpy(dst, data + off, first);
	memcpy((char *)dst + first, data, len - first);
}

/* Read every whole record between tail and head, then hand the space back. */
static void drain_ring(struct kmt_fault_sampler *s, struct cpu_ring *c)
{
	const unsigned char *data;
	unsigned long long head, tail, size;
	unsigned char rec[256];

	if (!c->meta)
		return;
	data = (const unsigned char *)c->meta + c->meta->data_offset;
	size = c->meta->data_size;
	head = __atomic_load_n(&c->meta->data_head, __ATOMIC_ACQUIRE);
	tail = c->meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;

		ring_copy(&h, data, size, tail % size, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.size <= sizeof(rec)) {
			ring_copy(rec, data, size, tail % size, h.size);
			take_record(s, c, rec);
		}
		tail += h.size;
	}
	__atomic_store_n(&c->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct kmt_fault_sampler *s)
{
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		drain_ring(s, &s->rings[cpu]);
}

static void *sampler_thread(void *arg)
{
	struct kmt_fault_sampler *s = arg;
	struct pollfd *pfd = calloc(s->ncpus, sizeof(*pfd));
	int cpu;

	for (cpu = 0; pfd && cpu < s->ncpus; cpu++) {
		pfd[cpu].fd = s->rings[cpu].meta ? s->rings[cpu].fd[0] : -1;
		pfd[cpu].events = POLLIN;
	}
	while (!atomic_load(&s->stop)) {
		if (pfd)
			poll(pfd, s->ncpus, POLL_MS);
		else
			usleep(POLL_MS * 1000);
		drain_all(s);
	}
	free(pfd);
	return NULL;
}

static void set_enabled(struct kmt_fault_sampler *s, bool on)
{
	int cpu, i;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		for (i = 0; i < 2; i++)
			if (s->rings[cpu].fd[i] >= 0)
				ioctl(s->rings[cpu].fd[i], on ? PERF_EVENT_IOC_ENABLE :
				      PERF_EVENT_IOC_DISABLE, 0);
}

int kmt_fault_sampler_start(struct kmt_fault_sampler *s)
{
	errno = pthread_create(&s->thread, NULL, sampler_thread, s);
	if (errno)
		return -1;
	s->started = true;
	set_enabled(s, true);
	return 0;
}

void kmt_fault_sampler_stop(struct kmt_fault_sampler *s)
{
	if (!s || !s->started)
		return;
	set_enabled(s, false);
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	s->started = false;
	drain_all(s);
}

static int by_time(const void *a, const void *b)
{
	const struct fault_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

char *kmt_fault_sampler_text(struct kmt_fault_sampler *s, unsigned long long *lost)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp;
	uint32_t i;

	*lost = s->lost;
	if (s->alloc_failed) {
		errno = ENOMEM;
		return NULL;
	}
	if (s->n)
		qsort(s->samples, s->n, sizeof(*s->samples), by_time);
	fp = open_memstream(&text, &len);
	if (!fp)
		return NULL;
	for (i = 0; i < s->n; i++)
		fprintf(fp, "%llu %u %u %llx %c\n", s->samples[i].time, s->samples[i].tid,
			s->samples[i].cpu, s->samples[i].addr, s->samples[i].major ? 'M' : 'm');
	if (fclose(fp)) {
		free(text);
		return NULL;
	}
	return text;
}

void kmt_fault_sampler_free(struct kmt_fault_sampler *s)
{
	int cpu, i;

	if (!s)
		return;
	kmt_fault_sampler_stop(s);
	for (cpu = 0; s->rings && cpu < s->ncpus; cpu++) {
		if (s->rings[cpu].meta)
			munmap(s->rings[cpu].meta, s->rings[cpu].map_len);
		for (i = 0; i < 2; i++)
			if (s->rings[cpu].fd[i] >= 0)
				close(s->rings[cpu].fd[i]);
	}
	free(s->rings);
	free(s->samples);
	free(s);
}
