// SPDX-License-Identifier: LGPL-2.1
/*
 * libkmtrace-heap.so's exact counts per call site. Each thread counts in a
 * table of its own, mapped at its first call, with plain adds. A table is
 * written when its thread ends (a pthread key's destructor) and, for the
 * threads still there, when the process calls exit() (the library's
 * destructor, after the program's atexit handlers): whoever takes the
 * table out of the registry writes it, so it is written once. Calls that
 * find no room (a full table, no table any more, a signal handler's call
 * while its thread adds) are counted apart by function, with atomics, and
 * written at exit() with the mark that the process's counts are whole.
 * A child of fork() starts from zero; a new image (exec) says it started.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <kmtrace/event.h>

#include "common/heaprec.h"
#include "heap_sites.h"

#define REGISTRY	1024		/* threads whose tables exit() finds */
#define SITE_PROBES	16

__thread struct heap_sites *heap_tl_sites __attribute__((tls_model("initial-exec")));
__thread bool heap_tl_counting __attribute__((tls_model("initial-exec")));
static __thread int tl_slot __attribute__((tls_model("initial-exec"))) = -1;

static struct {
	uint64_t interval;
	pthread_key_t key;		/* its destructor writes the ending thread's table */
	struct heap_sites *registry[REGISTRY];
	struct heap_site apart[KMT_UF_NR];	/* calls no table took: address 0 */
} sites;

static void count_apart(unsigned int func, uint64_t n)
{
	__atomic_add_fetch(&sites.apart[func].calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sites.apart[func].bytes, n, __ATOMIC_RELAXED);
}

/* This thread's table, mapped and registered; NULL when none can be had. */
static struct heap_sites *make_table(void)
{
	struct heap_sites *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (s == MAP_FAILED) {
		heap_tl_sites = SITES_ENDED;
		return NULL;
	}
	for (i = 0; i < REGISTRY; i++) {
		struct heap_sites *none = NULL;

		if (__atomic_compare_exchange_n(&sites.registry[i], &none, s, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			tl_slot = i;
			break;
		}
	}
	heap_tl_sites = s;
	pthread_setspecific(sites.key, s);	/* calls made inside are counted apart */
	return s;
}

void heap_sites_count_slow(unsigned int func, uint64_t ret, uint64_t n)
{
	struct heap_sites *s = heap_tl_sites;
	uint64_t key = ret | (uint64_t)func << 56;
	unsigned int h = key * 0x9e3779b97f4a7c15ull >> (64 - SITE_BITS), i;

	if (heap_tl_counting || s == SITES_ENDED) {
		count_apart(func, n);
		return;
	}
	heap_tl_counting = true;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (s || (s = make_table())) {
		for (i = 0; i < SITE_PROBES; i++) {
			struct heap_site *e = &s->slot[(h + i) & ((1u << SITE_BITS) - 1)];

			if (e->key == key || !e->key) {
				e->key = key;
				e->calls++;
				e->bytes += n;
				break;
			}
		}
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	heap_tl_counting = false;
	if (!s || i == SITE_PROBES)
		count_apart(func, n);
}

/* One record of @n sites from @v (@flags in ptr). */
static void write_sites(const struct heap_site *v, unsigned int n, uint64_t flags)
{
	unsigned char buf[4 + KMT_HEAP_HEADER_SIZE + KMT_HEAP_MAX_SITES * sizeof(*v)];
	uint32_t id = KMT_HEAP_MARKER_ID;
	struct kmt_heap_rec r = { KMT_HEAP_VERSION, KMT_HEAP_SITES, 0,
				  (uint8_t)(n * KMT_HEAP_SITE_WORDS), (uint32_t)getpid(),
				  (uint32_t)gettid(), 0, flags, 0, 0, sites.interval };

	memcpy(buf, &id, 4);
	memcpy(buf + 4, &r, KMT_HEAP_HEADER_SIZE);
	memcpy(buf + 4 + KMT_HEAP_HEADER_SIZE, v, n * sizeof(*v));
	heap_write(buf, 4 + KMT_HEAP_HEADER_SIZE + n * sizeof(*v));
}

/* The sites of @v[@n] that counted a call, KMT_HEAP_MAX_SITES a record; the last with @flags. */
static void write_table(const struct heap_site *v, unsigned int n, uint64_t flags)
{
	struct heap_site chunk[KMT_HEAP_MAX_SITES];
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (!v[i].calls)
			continue;
		chunk[k++] = (struct heap_site){ v[i].key ? v[i].key : (uint64_t)i << 56,
						 v[i].calls, v[i].bytes };
		if (k == KMT_HEAP_MAX_SITES) {
			write_sites(chunk, k, 0);
			k = 0;
		}
	}
	if (k || flags)
		write_sites(chunk, k, flags);
}

/* A thread ends: its table written by whoever takes it from the registry. */
static void thread_end(void *unused)
{
	struct heap_sites *s = heap_tl_sites, *mine = s;

	(void)unused;
	heap_tl_sites = SITES_ENDED;
	if (s <= SITES_ENDED)
		return;
	/* taken by exit() already: it may still read it, so it stays mapped */
	if (tl_slot >= 0 && !__atomic_compare_exchange_n(&sites.registry[tl_slot], &mine, NULL,
							 false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	write_table(s->slot, 1u << SITE_BITS, 0);
	munmap(s, sizeof(*s));
}

void heap_sites_flush(void)
{
	struct heap_site apart[KMT_UF_NR];
	int i;

	for (i = 0; i < REGISTRY; i++) {
		struct heap_sites *s = __atomic_exchange_n(&sites.registry[i], NULL,
							   __ATOMIC_ACQ_REL);

		if (s)
			write_table(s->slot, 1u << SITE_BITS, 0);
	}
	if (heap_tl_sites > SITES_ENDED && tl_slot < 0)	/* the registry had no room for it */
		write_table(heap_tl_sites->slot, 1u << SITE_BITS, 0);
	heap_tl_sites = SITES_ENDED;
	for (i = 0; i < KMT_UF_NR; i++)
		apart[i] = (struct heap_site){ 0,
			__atomic_exchange_n(&sites.apart[i].calls, 0, __ATOMIC_ACQ_REL),
			__atomic_exchange_n(&sites.apart[i].bytes, 0, __ATOMIC_ACQ_REL) };
	write_table(apart, KMT_UF_NR, KMT_HEAP_SITES_FINAL);
}

/* In a child of fork(): the parent's counts are not its own. */
static void forked(void)
{
	int i;

	for (i = 0; i < REGISTRY; i++) {
		if (sites.registry[i])
			munmap(sites.registry[i], sizeof(*sites.registry[i]));
		sites.registry[i] = NULL;
	}
	if (heap_tl_sites > SITES_ENDED && tl_slot < 0)
		munmap(heap_tl_sites, sizeof(*heap_tl_sites));
	heap_tl_sites = SITES_NONE;
	tl_slot = -1;
	pthread_setspecific(sites.key, NULL);
	memset(sites.apart, 0, sizeof(sites.apart));
}

bool heap_sites_start(uint64_t interval)
{
	sites.interval = interval;
	if (pthread_key_create(&sites.key, thread_end) || pthread_atfork(NULL, NULL, forked))
		return false;
	write_sites(NULL, 0, KMT_HEAP_SITES_START);
	return true;
}
