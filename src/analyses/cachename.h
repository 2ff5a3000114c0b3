/* SPDX-License-Identifier: LGPL-2.1 */
/* Slab caches as /proc/slabinfo names them, from an allocation event. */
#ifndef KMT_CACHENAME_H
#define KMT_CACHENAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <kmtrace/event.h>

#include "common/namehints.h"

struct tep_handle;

/* What naming needs of the recording: the GFP bits that pick a kmalloc cache. */
struct kmt_cache_namer {
	unsigned long long gfp_dma, gfp_reclaimable, gfp_account;
	int page_size;
};

/* Take the flag values kmem:kmalloc's format prints, and the page size, from @tep. */
void kmt_cache_namer_init(struct kmt_cache_namer *n, struct tep_handle *tep);

/* kmalloc, kmalloc_node and kfree events. */
bool kmt_event_is_kmalloc(const struct kmt_event *ev);

/*
 * The kmalloc cache of @ev: 0 kmalloc-, 1 kmalloc-cg-, 2 kmalloc-rcl-,
 * 3 dma-kmalloc-. Events of one size and kind go to one cache.
 */
int kmt_kmalloc_kind(const struct kmt_cache_namer *n, const struct kmt_event *ev);

/*
 * The name of @ev's cache into @buf: its own name (kmem_cache_alloc), the
 * kmalloc cache by size and kind, "cache-SIZE" when the event names none.
 * Returns the length.
 */
int kmt_cache_name(const struct kmt_cache_namer *n, const struct kmt_event *ev, char *buf,
		   size_t len);

#endif /* KMT_CACHENAME_H */
