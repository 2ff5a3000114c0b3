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
	m->size = size < sizeof(uint32_t) ? sizeof(uint32_t) : size;
	m->free_head = NO_SLOT;
	return kmt_hashmap_init(&m->index);
}

void kmt_objmap_free(struct kmt_objmap *m)
{
	kmt_hashmap_free(&m->index);
	free(m->items);
	m->items = NULL;
	m->n = m->cap = 0;
	m->free_head = NO_SLOT;
}

int kmt_objmap_put(struct kmt_objmap *m, uint64_t key, const void *item)
{
	uint32_t slot = m->free_head;

	if (slot != NO_SLOT) {
		memcpy(&m->free_head, m->items + slot * m->size, sizeof(m->free_head));
	} else {
		if (kmt_grow(&m->items, &m->cap, m->n, m->size))
			return -1;
		slot = m->n++;
	}
	memcpy(m->items + slot * m->size, item, m->size);
	return kmt_hashmap_put(&m->index, key, slot);
}

bool kmt_objmap_take(struct kmt_objmap *m, uint64_t key, void *out)
{
	uint64_t slot;

	if (!kmt_hashmap_del(&m->index, key, &slot))
		return false;
	memcpy(out, m->items + slot * m->size, m->size);
	memcpy(m->items + slot * m->size, &m->free_head, sizeof(m->free_head));
	m->free_head = slot;
	return true;
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
