/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Objects found by a 64-bit key (a pointer, a pfn): the live slab objects
 * and page blocks the analyses follow. Items sit in one array whose freed
 * slots are reused, so memory follows what is live, not what was ever
 * allocated. A map of items of size 0 only numbers the keys: the replay's
 * live slab objects, whose slots index the analyses' own items
 * (struct kmt_objslots) so that one lookup serves them all.
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
 * Take @key out of @m: its slot, free again, or KMT_OBJMAP_NO_SLOT when
 * @key is not in. Inline, as the ones after it: a live-object map's every
 * free and allocation.
 */
static inline uint32_t kmt_objmap_take_slot(struct kmt_objmap *m, uint64_t key)
{
	uint64_t slot;

	if (!kmt_hashmap_del(&m->index, key, &slot))
		return KMT_OBJMAP_NO_SLOT;
	kmt_objmap_free_slot(m, (uint32_t)slot);
	return (uint32_t)slot;
}

/*
 * Take the item of @key out of @m: it stays readable until the next
 * kmt_objmap_add(). NULL when there is none.
 */
static inline const void *kmt_objmap_take(struct kmt_objmap *m, uint64_t key)
{
	uint32_t slot = kmt_objmap_take_slot(m, key);

	return slot == KMT_OBJMAP_NO_SLOT ? NULL : m->items + (size_t)slot * m->size;
}

/* The item of @key to read and write, or NULL when there is none. Valid until @m changes. */
static inline void *kmt_objmap_find(struct kmt_objmap *m, uint64_t key)
{
	uint64_t slot;

	return kmt_hashmap_find(&m->index, key, &slot) ? m->items + slot * m->size : NULL;
}

/* kmt_objmap_cell_slot() for a new key when no freed slot is left. */
uint32_t kmt_objmap_slot_grown(struct kmt_objmap *m, uint64_t key, uint64_t *cell);

/*
 * The slot of @key: its live one (*@live true), or a new one (*@live
 * false): the slot freed last, else the next never used. One hash probe
 * where a take and an add take two. KMT_OBJMAP_NO_SLOT when out of memory.
 */
static inline uint32_t kmt_objmap_cell_slot(struct kmt_objmap *m, uint64_t key, bool *live)
{
	uint64_t *cell = kmt_hashmap_cell(&m->index, key, live);

	if (!cell)
		return KMT_OBJMAP_NO_SLOT;
	if (!*live) {
		if (m->free_head == KMT_OBJMAP_NO_SLOT)
			return kmt_objmap_slot_grown(m, key, cell);
		*cell = m->free_head;
		m->free_head = m->links[m->free_head];
	}
	return (uint32_t)*cell;
}

/*
 * The item of @key to read and write: the live one (*@live true, its
 * contents as left), or a new one (*@live false, contents undefined).
 * Valid until @m changes; NULL when out of memory.
 */
static inline void *kmt_objmap_cell(struct kmt_objmap *m, uint64_t key, bool *live)
{
	uint32_t slot = kmt_objmap_cell_slot(m, key, live);

	return slot == KMT_OBJMAP_NO_SLOT ? NULL : m->items + (size_t)slot * m->size;
}

/*
 * NAME_take(m, key, out) and NAME_cell(m, key, live) of items of type
 * @type in a @map_type found by @key_type through @take and @cell.
 */
#define KMT_ITEMS_TYPED(name, type, map_type, key_type, take, cell)		\
	static inline __attribute__((unused)) bool				\
	name##_take(map_type *m, key_type key, type *out)			\
	{									\
		const type *item = take(m, key);				\
										\
		if (item)							\
			*out = *item;						\
		return item != NULL;						\
	}									\
	static inline __attribute__((unused)) type *				\
	name##_cell(map_type *m, key_type key, bool *live)			\
	{									\
		return cell(m, key, live);					\
	}

/*
 * Typed copies in and out for items of type @type: NAME_take(m, key, out)
 * (false when there is none), NAME_cell(m, key, live) (kmt_objmap_cell())
 * and NAME_put(m, key, item) (0, or -1 when out of memory); a .c file may
 * use only some of them. The copies are struct assignments the compiler sees whole.
 */
#define KMT_OBJMAP_TYPED(name, type)						\
	KMT_ITEMS_TYPED(name, type, struct kmt_objmap, uint64_t, kmt_objmap_take,	\
			kmt_objmap_cell)					\
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
 * Items in the slots a map of size 0 numbers elsewhere (kmt_event.obj: the
 * replay's live slab objects): an array the slots index, and a bit per
 * slot that holds no item. Walked as a kmt_objmap is, in slot order.
 */
struct kmt_objslots {
	unsigned char *items;
	uint64_t *empty;		/* a bit per slot (of the n): it holds no item */
	uint32_t n, cap, cap_words;	/* slots seen so far; allocated */
	size_t count;			/* items held */
	size_t size;			/* bytes per item */
};

/* Make an empty array of @size-byte items. */
void kmt_objslots_init(struct kmt_objslots *s, size_t size);

/* Free what @s holds. */
void kmt_objslots_free(struct kmt_objslots *s);

/* kmt_objslots_cell() of a slot past those seen so far. */
void *kmt_objslots_grown(struct kmt_objslots *s, uint32_t slot);

/* Does slot @slot of @s hold an item? */
static inline bool kmt_objslots_holds(const struct kmt_objslots *s, uint32_t slot)
{
	return slot < s->n && !(s->empty[slot / 64] >> (slot % 64) & 1);
}

/*
 * The item of slot @slot to read and write: the one it held (*@had true,
 * its contents as left), or a new one (*@had false, contents undefined).
 * Valid until the next call; NULL when out of memory.
 */
static inline void *kmt_objslots_cell(struct kmt_objslots *s, uint32_t slot, bool *had)
{
	*had = kmt_objslots_holds(s, slot);
	if (slot >= s->n)
		return kmt_objslots_grown(s, slot);
	if (!*had) {
		s->empty[slot / 64] &= ~(1ull << (slot % 64));
		s->count++;
	}
	return s->items + (size_t)slot * s->size;
}

/*
 * Take the item out of slot @slot: it stays readable until the next
 * kmt_objslots_cell(). NULL when the slot holds none.
 */
static inline const void *kmt_objslots_take(struct kmt_objslots *s, uint32_t slot)
{
	if (!kmt_objslots_holds(s, slot))
		return NULL;
	s->empty[slot / 64] |= 1ull << (slot % 64);
	s->count--;
	return s->items + (size_t)slot * s->size;
}

/* kmt_objslots' NAME_take(s, slot, out) and NAME_cell(s, slot, had), as KMT_OBJMAP_TYPED's. */
#define KMT_OBJSLOTS_TYPED(name, type)						\
	KMT_ITEMS_TYPED(name, type, struct kmt_objslots, uint32_t, kmt_objslots_take,	\
			kmt_objslots_cell)

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
 * no keys). The map or slots must not change during the walk.
 */
struct kmt_objmap_walk {
	const unsigned char *items;
	size_t size;
	const uint64_t *skip;	/* a bit per slot: it holds no item */
	uint64_t *freed;	/* a kmt_objmap's: its free list as bits */
	uint32_t n, at;
};

/* Start a walk over @m: 0, or -1 when out of memory. */
int kmt_objmap_walk_start(struct kmt_objmap_walk *w, const struct kmt_objmap *m);

/* Start a walk over @s. */
void kmt_objslots_walk_start(struct kmt_objmap_walk *w, const struct kmt_objslots *s);

/* The next item of the walk, or NULL at its end. */
const void *kmt_objmap_walk_next(struct kmt_objmap_walk *w);

/* Free what the walk holds. */
void kmt_objmap_walk_end(struct kmt_objmap_walk *w);

#endif /* KMT_OBJMAP_H */
