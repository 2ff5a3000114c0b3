/* SPDX-License-Identifier: LGPL-2.1 */
/* Slab caches as /proc/slabinfo names them, from an allocation event. */
#ifndef KMT_CACHENAME_H
#define KMT_CACHENAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <kmtrace/event.h>

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

#define KMT_NAME_HINTS	64

/*
 * What an analysis made of recently seen cache names (a row, an index),
 * found by the name's length and first and last bytes without hashing it
 * all. Each hint points to the analysis' own copy of the name.
 */
struct kmt_name_hints {
	struct kmt_name_hint {
		const char *name;
		int len;
		uint32_t row;
	} slot[KMT_NAME_HINTS];
};

/* The slot of name @name of @len bytes. */
static inline struct kmt_name_hint *kmt_name_hint_slot(struct kmt_name_hints *h,
						       const char *name, int len)
{
	int edge = len < 8 ? len : 8;
	uint64_t first = 0, last = 0;

	memcpy(&first, name, edge);
	memcpy(&last, name + len - edge, edge);
	first = (first ^ (last << 1) ^ (uint64_t)len) * 0x9e3779b97f4a7c15ull;
	return &h->slot[first >> 58];	/* 64 slots */
}

/* The row hinted for name @name (@len bytes): true when there is one. */
static inline bool kmt_name_hint_get(struct kmt_name_hints *h, const char *name, int len,
				     uint32_t *row)
{
	const struct kmt_name_hint *s = kmt_name_hint_slot(h, name, len);

	if (!s->name || s->len != len || memcmp(s->name, name, len))
		return false;
	*row = s->row;
	return true;
}

/* Hint @row for the name at @kept (@len bytes, valid as long as @h is used). */
static inline void kmt_name_hint_put(struct kmt_name_hints *h, const char *kept, int len,
				     uint32_t row)
{
	*kmt_name_hint_slot(h, kept, len) = (struct kmt_name_hint){ kept, len, row };
}

#endif /* KMT_CACHENAME_H */
