// SPDX-License-Identifier: LGPL-2.1
/* Objects by key in an array of reusable slots (objmap.h). */
#include <stdlib.h>
#include <string.h>

#include "objmap.h"
#include "util.h"

#define NO_SLOT	UINT32_MAX

int kmt_objmap_init(struct kmt_objmap *m, size_t size)
{
	memset(m, 0, sizeof(*m));
	m->size = size;
	m->free_head = NO_SLOT;
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
	m->free_head = NO_SLOT;
}

void *kmt_objmap_add(struct kmt_objmap *m, uint64_t key)
{
	uint32_t slot = m->free_head;

	if (slot != NO_SLOT) {
		m->free_head = m->links[slot];
	} else {
		if (kmt_grow(&m->items, &m->cap, m->n, m->size) ||
		    kmt_grow(&m->links, &m->cap_links, m->n, sizeof(*m->links)))
			return NULL;
		slot = m->n++;
	}
	if (kmt_hashmap_put(&m->index, key, slot)) {
		m->links[slot] = m->free_head;
		m->free_head = slot;
		return NULL;
	}
	return m->items + slot * m->size;
}

const void *kmt_objmap_take(struct kmt_objmap *m, uint64_t key)
{
	uint64_t slot;

	if (!kmt_hashmap_del(&m->index, key, &slot))
		return NULL;
	m->links[slot] = m->free_head;
	m->free_head = slot;
	return m->items + slot * m->size;
}

bool kmt_objmap_next(const struct kmt_objmap *m, size_t *pos, uint64_t *key,
		     const void **item)
{
	const struct kmt_hashmap *h = &m->index;

	for (; h->used && *pos <= h->mask; (*pos)++) {
		if (!h->used[*pos])
			continue;
		*key = h->slots[*pos].key;
		*item = m->items + h->slots[*pos].val * m->size;
		(*pos)++;
		return true;
	}
	return false;
}
