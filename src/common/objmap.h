/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Objects found by a 64-bit key (a pointer, a pfn): the live slab objects
 * and page blocks the analyses follow. Items sit in one array whose freed
 * slots are reused, so memory follows what is live, not what was ever
 * allocated.
 */
#ifndef KMT_OBJMAP_H
#define KMT_OBJMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"

struct kmt_objmap {
	struct kmt_hashmap index;	/* key -> slot of items */
	unsigned char *items;
	uint32_t n, cap;		/* slots used so far, allocated */
	uint32_t free_head;		/* freed slots, linked through their first 4 bytes */
	size_t size;			/* bytes per item, at least 4 */
};

/* Make an empty map of @size-byte items. 0, or -1 when out of memory. */
int kmt_objmap_init(struct kmt_objmap *m, size_t size);

/* Free what @m holds. */
void kmt_objmap_free(struct kmt_objmap *m);

/* Add a copy of @item under @key, which is not in @m. 0, or -1 when out of memory. */
int kmt_objmap_put(struct kmt_objmap *m, uint64_t key, const void *item);

/* Take the item of @key out of @m into @out; false when there is none. */
bool kmt_objmap_take(struct kmt_objmap *m, uint64_t key, void *out);

/* How many items @m holds. */
static inline size_t kmt_objmap_count(const struct kmt_objmap *m)
{
	return kmt_hashmap_count(&m->index);
}

/*
 * Walk the items: start with *@pos 0; each call gives the next key and
 * item (valid until @m changes). false at the end.
 */
bool kmt_objmap_next(const struct kmt_objmap *m, size_t *pos, uint64_t *key,
		     const void **item);

#endif /* KMT_OBJMAP_H */
