// SPDX-License-Identifier: LGPL-2.1
/*
 * The pager's thread: it maps each range it is given in one call, then
 * reads a byte of each of its pages, so that the reader finds them ready.
 * It only reads, so it cannot change what the reader sees; the one rule is
 * that the mapping outlives it (kmt_pager_stop() before munmap).
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pager.h"

/*
 * Map the pages of [@at, @at + @len) now, in one call (MADV_POPULATE_READ),
 * where touching them takes a page fault every 64 KiB. Kernels before 5.14
 * refuse it: the pages then fault as before.
 */
static void map_range(const void *at, size_t len)
{
#ifdef MADV_POPULATE_READ
	uintptr_t page = (uintptr_t)getpagesize();
	uintptr_t from = (uintptr_t)at & ~(page - 1);

	madvise((void *)from, (uintptr_t)at + len - from, MADV_POPULATE_READ);
#else
	(void)at;
	(void)len;
#endif
}

static bool stopping(const struct kmt_pager *p)
{
	return __atomic_load_n(&p->stop, __ATOMIC_RELAXED);
}

/* Read a byte of each page of [@at, @at + @len), unless told to stop. */
static void read_range(const struct kmt_pager *p, const unsigned char *at, size_t len)
{
	uintptr_t page = (uintptr_t)getpagesize();
	const unsigned char *end = at + len;
	const unsigned char *q = (const unsigned char *)((uintptr_t)at & ~(page - 1));

	for (; q < end && !stopping(p); q += page)
		(void)*(const volatile unsigned char *)q;
}

static void *pager_thread(void *arg)
{
	struct kmt_pager *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct kmt_pager_range r;

		while (!p->count && !stopping(p))
			pthread_cond_wait(&p->wake, &p->lock);
		if (stopping(p))
			break;
		r = p->ranges[p->head];
		p->head = (p->head + 1) % KMT_PAGER_RANGES;
		p->count--;
		pthread_mutex_unlock(&p->lock);
		map_range(r.at, r.len);
		read_range(p, r.at, r.len);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Start the thread, with every signal blocked: they are for the program's own. */
static void start(struct kmt_pager *p)
{
	sigset_t all, old;

	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->started = !pthread_create(&p->thread, NULL, pager_thread, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->no_thread = !p->started;
	if (!p->started) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
	}
}

/* Give @at's range to the thread: false when its queue is full. */
static bool queue(struct kmt_pager *p, const void *at, size_t len)
{
	bool room;

	pthread_mutex_lock(&p->lock);
	room = p->count < KMT_PAGER_RANGES;
	if (room) {
		p->ranges[(p->head + p->count++) % KMT_PAGER_RANGES] =
			(struct kmt_pager_range){ at, len };
		pthread_cond_signal(&p->wake);
	}
	pthread_mutex_unlock(&p->lock);
	return room;
}

void kmt_pager_ahead(struct kmt_pager *p, const void *at, size_t len)
{
	if (!len)
		return;
	if (!p->started && !p->no_thread)
		start(p);
	if (!p->started || !queue(p, at, len))
		map_range(at, len);
}

void kmt_pager_follow(struct kmt_pager *p, const unsigned char *base, size_t size, size_t at,
		      size_t *paged)
{
	size_t want = size - at > 2 * KMT_PAGER_STEP ? at + 2 * KMT_PAGER_STEP : size;
	size_t from = *paged > at ? *paged : at;

	if (want > from && (want - from >= KMT_PAGER_STEP || want == size)) {
		kmt_pager_ahead(p, base + from, want - from);
		*paged = want;
	}
}

void kmt_pager_stop(struct kmt_pager *p)
{
	if (p->started) {
		pthread_mutex_lock(&p->lock);
		__atomic_store_n(&p->stop, true, __ATOMIC_RELAXED);
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		p->started = false;
	}
	p->no_thread = true;	/* what comes after, if anything, is mapped inline */
}
