// SPDX-License-Identifier: LGPL-2.1
/* Objects by key in an array of reusable slots (objmap.h). */
#include <stdlib.h>
#include <string.h>

#include "objmap.h"
#include "util.h"

int kmt_objmap_init(struct kmt_objmap *m, size_t size)
{
	memset(m, 0, sizeof(*m));
	m->size = size;
	m->free_head = KMT_OBJMAP_NO_SLOT;
	return kmt_hashmap_init(&m->index);
}

void kmt_objmap_free(struct kmt_objmap *m)
{
	kmt_hashmap_free(&m->index);
	free(m->items);
	free(m->links);
	m->items = NULL;
	m->links = NULL;
	m->n = m->cap = m->cap_links = 0;
	m->free_head = KMT_OBJMAP_NO_SLOT;
}

/* A slot for a new item: a freed one, else one more. 0, or -1 out of memory. */
static int new_slot(struct kmt_objmap *m, uint32_t *slot)
{
	*slot = m->free_head;
	if (*slot != KMT_OBJMAP_NO_SLOT) {
		m->free_head = m->links[*slot];
		return 0;
	}
	if ((m->size && kmt_grow(&m->items, &m->cap, m->n, m->size)) ||
	    kmt_grow(&m->links, &m->cap_links, m->n, sizeof(*m->links)))
		return -1;
	*slot = m->n++;
	return 0;
}

void *kmt_objmap_add(struct kmt_objmap *m, uint64_t key)
{
	uint32_t slot;

	if (new_slot(m, &slot))
		return NULL;
	if (kmt_hashmap_put(&m->index, key, slot)) {
		kmt_objmap_free_slot(m, slot);
		return NULL;
	}
	return m->items + slot * m->size;
}

uint32_t kmt_objmap_slot_grown(struct kmt_objmap *m, uint64_t key, uint64_t *cell)
{
	uint32_t slot;

	if (new_slot(m, &slot)) {
		kmt_hashmap_del(&m->index, key, NULL);
		return KMT_OBJMAP_NO_SLOT;
	}
	*cell = slot;
	return slot;
}

bool kmt_objmap_next(const struct kmt_objmap *m, size_t *pos, uint64_t *key,
		     const void **item)
{
	uint64_t slot;

	if (!kmt_hashmap_next(&m->index, pos, key, &slot))
		return false;
	*item = m->items + slot * m->size;
	return true;
}

int kmt_objmap_walk_start(struct kmt_objmap_walk *w, const struct kmt_objmap *m)
{
	uint32_t slot;

	*w = (struct kmt_objmap_walk){ .items = m->items, .size = m->size, .n = m->n };
	w->freed = calloc(m->n / 64 + 1, sizeof(*w->freed));
	if (!w->freed)
		return -1;
	for (slot = m->free_head; slot != KMT_OBJMAP_NO_SLOT; slot = m->links[slot])
		w->freed[slot / 64] |= 1ull << (slot % 64);
	w->skip = w->freed;
	return 0;
}

void kmt_objslots_walk_start(struct kmt_objmap_walk *w, const struct kmt_objslots *s)
{
	*w = (struct kmt_objmap_walk){ .items = s->items, .size = s->size, .skip = s->empty,
				       .n = s->n };
}

const void *kmt_objmap_walk_next(struct kmt_objmap_walk *w)
{
	for (; w->at < w->n; w->at++)
		if (!(w->skip[w->at / 64] & 1ull << (w->at % 64)))
			return w->items + (size_t)w->at++ * w->size;
	return NULL;
}

void kmt_objmap_walk_end(struct kmt_objmap_walk *w)
{
	free(w->freed);
	w->freed = NULL;
}

void kmt_objslots_init(struct kmt_objslots *s, size_t size)
{
	*s = (struct kmt_objslots){ .size = size };
}

void kmt_objslots_free(struct kmt_objslots *s)
{
	free(s->items);
	free(s->empty);
	kmt_objslots_init(s, s->size);
}

void *kmt_objslots_grown(struct kmt_objslots *s, uint32_t slot)
{
	uint32_t i;

	if (kmt_grow(&s->items, &s->cap, slot, s->size) ||
	    kmt_grow(&s->empty, &s->cap_words, slot / 64, sizeof(*s->empty)))
		return NULL;
	for (i = s->n; i < slot; i++)	/* slots the map gave out before, not here */
		s->empty[i / 64] |= 1ull << (i % 64);
	s->empty[slot / 64] &= ~(1ull << (slot % 64));
	s->n = slot + 1;
	s->count++;
	return s->items + (size_t)slot * s->size;
}
