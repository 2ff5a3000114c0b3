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
	uint32_t *links;		/* per slot: the next freed slot */
	uint32_t n, cap, cap_links;	/* slots used so far, allocated */
	uint32_t free_head;		/* the last slot freed */
	size_t size;			/* bytes per item */
};

/* Make an empty map of @size-byte items. 0, or -1 when out of memory. */
int kmt_objmap_init(struct kmt_objmap *m, size_t size);

/* Free what @m holds. */
void kmt_objmap_free(struct kmt_objmap *m);

/*
 * A slot for a new item under @key, which is not in @m: the caller fills
 * it. NULL when out of memory.
 */
void *kmt_objmap_add(struct kmt_objmap *m, uint64_t key);

#define KMT_OBJMAP_NO_SLOT	UINT32_MAX

/* Slot @slot of @m is free again: the next new item takes it first. */
static inline void kmt_objmap_free_slot(struct kmt_objmap *m, uint32_t slot)
{
	m->links[slot] = m->free_head;
	m->free_head = slot;
}

/*
 * Take the item of @key out of @m: it stays readable until the next
 * kmt_objmap_add(). NULL when there is none. Inline, as the next one: a
 * live-object map's every free and allocation.
 */
static inline const void *kmt_objmap_take(struct kmt_objmap *m, uint64_t key)
{
	uint64_t slot;

	if (!kmt_hashmap_del(&m->index, key, &slot))
		return NULL;
	kmt_objmap_free_slot(m, (uint32_t)slot);
	return m->items + slot * m->size;
}

/* The item of @key to read and write, or NULL when there is none. Valid until @m changes. */
static inline void *kmt_objmap_find(struct kmt_objmap *m, uint64_t key)
{
	uint64_t slot;

	return kmt_hashmap_find(&m->index, key, &slot) ? m->items + slot * m->size : NULL;
}

/* kmt_objmap_cell() for a new key when no freed slot is left. */
void *kmt_objmap_cell_grown(struct kmt_objmap *m, uint64_t key, uint64_t *cell);

/*
 * The item of @key to read and write: the live one (*@live true, its
 * contents as left), or a new one (*@live false, contents undefined).
 * One hash probe where a take and an add take two. Valid until @m
 * changes; NULL when out of memory.
 */
static inline void *kmt_objmap_cell(struct kmt_objmap *m, uint64_t key, bool *live)
{
	uint64_t *cell = kmt_hashmap_cell(&m->index, key, live);

	if (!cell)
		return NULL;
	if (!*live) {
		if (m->free_head == KMT_OBJMAP_NO_SLOT)
			return kmt_objmap_cell_grown(m, key, cell);
		*cell = m->free_head;
		m->free_head = m->links[m->free_head];
	}
	return m->items + *cell * m->size;
}

/*
 * Typed copies in and out for items of type @type: NAME_take(m, key, out)
 * (false when there is none), NAME_cell(m, key, live) (kmt_objmap_cell())
 * and NAME_put(m, key, item) (0, or -1 when out of memory); a .c file may
 * use only some of them. The copies are struct assignments the compiler sees whole.
 */
#define KMT_OBJMAP_TYPED(name, type)						\
	static inline __attribute__((unused)) bool				\
	name##_take(struct kmt_objmap *m, uint64_t key, type *out)		\
	{									\
		const type *item = kmt_objmap_take(m, key);			\
										\
		if (item)							\
			*out = *item;						\
		return item != NULL;						\
	}									\
	static inline __attribute__((unused)) type *				\
	name##_cell(struct kmt_objmap *m, uint64_t key, bool *live)		\
	{									\
		return kmt_objmap_cell(m, key, live);				\
	}									\
	static inline __attribute__((unused)) int				\
	name##_put(struct kmt_objmap *m, uint64_t key, const type *item)	\
	{									\
		type *slot = kmt_objmap_add(m, key);				\
										\
		if (!slot)							\
			return -1;						\
		*slot = *item;							\
		return 0;							\
	}

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

/*
 * A walk over the items alone, in the order they lie in memory: where
 * kmt_objmap_next() follows the index, whose order sends each read to an
 * item anywhere, this one reads the items one after the other (and gives
 * no keys). @m must not change during the walk.
 */
struct kmt_objmap_walk {
	const struct kmt_objmap *m;
	uint64_t *freed;	/* a bit per slot: on the free list */
	uint32_t at;
};

/* Start a walk over @m: 0, or -1 when out of memory. */
int kmt_objmap_walk_start(struct kmt_objmap_walk *w, const struct kmt_objmap *m);

/* The next item of the walk, or NULL at its end. */
const void *kmt_objmap_walk_next(struct kmt_objmap_walk *w);

/* Free what the walk holds. */
void kmt_objmap_walk_end(struct kmt_objmap_walk *w);

#endif /* KMT_OBJMAP_H */
