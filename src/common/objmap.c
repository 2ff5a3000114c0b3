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
	if (kmt_grow(&m->items, &m->cap, m->n, m->size) ||
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

void *kmt_objmap_cell_grown(struct kmt_objmap *m, uint64_t key, uint64_t *cell)
{
	uint32_t slot;

	if (new_slot(m, &slot)) {
		kmt_hashmap_del(&m->index, key, NULL);
		return NULL;
	}
	*cell = slot;
	return m->items + slot * m->size;
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

	w->m = m;
	w->at = 0;
	w->freed = calloc(m->n / 64 + 1, sizeof(*w->freed));
	if (!w->freed)
		return -1;
	for (slot = m->free_head; slot != KMT_OBJMAP_NO_SLOT; slot = m->links[slot])
		w->freed[slot / 64] |= 1ull << (slot % 64);
	return 0;
}

const void *kmt_objmap_walk_next(struct kmt_objmap_walk *w)
{
	const struct kmt_objmap *m = w->m;

	for (; w->at < m->n; w->at++)
		if (!(w->freed[w->at / 64] & 1ull << (w->at % 64)))
			return m->items + (size_t)w->at++ * m->size;
	return NULL;
}

void kmt_objmap_walk_end(struct kmt_objmap_walk *w)
{
	free(w->freed);
	w->freed = NULL;
}
