/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A thread that maps and reads the pages of a file mapping ahead of the
 * reader that parses it. MADV_POPULATE_READ maps a range in one call, but
 * on some virtual machines the first read of each 4 KiB page still stalls
 * for about a microsecond (the hypervisor fills its own tables then; on
 * the project's VM that was a third of `report stat`'s time). The pager
 * takes those stalls on another CPU before the reader gets there.
 */
#ifndef KMT_PAGER_H
#define KMT_PAGER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define KMT_PAGER_RANGES	16
#define KMT_PAGER_STEP		(2u << 20)	/* kmt_pager_follow()'s step */

/* Zeroed, an idle pager: its thread starts with the first range. */
struct kmt_pager {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	struct kmt_pager_range {
		const unsigned char *at;
		size_t len;
	} ranges[KMT_PAGER_RANGES];	/* waiting: head, head + 1, ... (mod KMT_PAGER_RANGES) */
	unsigned int head, count;
	bool started;		/* the thread runs (until kmt_pager_stop()) */
	bool no_thread;		/* none could start, or it ended: mapped inline */
	bool stop;
};

/*
 * Have [@at, @at + @len) of a read-only file mapping mapped and read soon,
 * by the pager's thread; mapped in this thread when no thread could start
 * or too many ranges wait. The range must stay mapped until
 * kmt_pager_stop().
 */
void kmt_pager_ahead(struct kmt_pager *p, const void *at, size_t len);

/*
 * The reader of the @size bytes mapped at @base is at offset @at: give
 * the pager what lies up to two KMT_PAGER_STEPs past it, a step at a time
 * (or the rest of the mapping), so that pages are ready a step before they
 * are read. *@paged is how far the pager was given the mapping (0 at
 * first).
 */
void kmt_pager_follow(struct kmt_pager *p, const unsigned char *base, size_t size, size_t at,
		      size_t *paged);

/*
 * End the thread, once it is out of the mapping: before it is unmapped.
 * Ranges given after are mapped inline.
 */
void kmt_pager_stop(struct kmt_pager *p);

#endif /* KMT_PAGER_H */
