/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libkmtrace-heap.so's exact counts per call site (heap_sites.c): every
 * allocator call is counted, by its return address and function, in a
 * table of the calling thread's own with plain adds. A thread's table is
 * written (KMT_HEAP_SITES records) when the thread ends, and every table
 * still there when the process calls exit(), with what no table could
 * take (counted apart, by function) and the mark that the counts are whole.
 */
#ifndef KMT_HEAP_SITES_H
#define KMT_HEAP_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SITE_BITS	12	/* call sites a thread counts: 4,096 (96 KiB, mapped at its first call) */
#define SITES_NONE	((struct heap_sites *)0)	/* the thread has no table yet */
#define SITES_ENDED	((struct heap_sites *)1)	/* its table was written: calls go apart */

struct heap_site {
	uint64_t key;		/* return address | function << 56; 0: empty */
	uint64_t calls, bytes;
};

struct heap_sites {
	struct heap_site slot[1u << SITE_BITS];
};

extern __thread struct heap_sites *heap_tl_sites __attribute__((tls_model("initial-exec")));
extern __thread bool heap_tl_counting __attribute__((tls_model("initial-exec")));

/* A call not counted in place: a new site, no table yet, or a signal handler's call. */
void heap_sites_count_slow(unsigned int func, uint64_t ret, uint64_t n);

/* Count a call of @func from @ret (0 for free: no site) asking for @n bytes. */
static inline __attribute__((always_inline)) void heap_sites_count(unsigned int func,
								     uint64_t ret, uint64_t n)
{
	struct heap_sites *s = heap_tl_sites;
	uint64_t key = ret | (uint64_t)func << 56;
	struct heap_site *e;

	if (__builtin_expect(s > SITES_ENDED && !heap_tl_counting, 1)) {
		e = &s->slot[key * 0x9e3779b97f4a7c15ull >> (64 - SITE_BITS)];
		if (__builtin_expect(e->key == key, 1)) {
			/* a signal handler's call meanwhile must not add to a half-done add */
			heap_tl_counting = true;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			e->calls++;
			e->bytes += n;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			heap_tl_counting = false;
			return;
		}
	}
	heap_sites_count_slow(func, ret, n);
}

/*
 * Set up (thread ends, fork) for records of mean @interval bytes, and say
 * so in a record; false: not counting.
 */
bool heap_sites_start(uint64_t interval);

/* At exit(): write every table and the calls counted apart, marked whole. */
void heap_sites_flush(void);

/* Write record @buf of @len bytes (kmtrace_heap.c: the recorder's descriptor checked). */
void heap_write(const void *buf, size_t len);

#endif /* KMT_HEAP_SITES_H */
