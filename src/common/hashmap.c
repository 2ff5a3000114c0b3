// SPDX-License-Identifier: LGPL-2.1
/* The 64-bit key map of hashmap.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "util.h"

#define INITIAL_SLOTS	64

static int alloc_slots(struct kmt_hashmap *m, size_t nslots)
{
	m->slots = malloc(nslots * sizeof(*m->slots));
	if (!m->slots) {
		errno = ENOMEM;
		return -1;
	}
	memset(m->slots, 0xff, nslots * sizeof(*m->slots));	/* every key KMT_HASH_FREE */
	m->mask = nslots - 1;
	m->limit = nslots / 2;
	m->count = m->has_free_key;
	m->memo.valid = false;
	return 0;
}

int kmt_hashmap_init(struct kmt_hashmap *m)
{
	m->has_free_key = false;
	return alloc_slots(m, INITIAL_SLOTS);
}

void kmt_hashmap_free(struct kmt_hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->count = 0;
	m->has_free_key = false;
	m->memo.valid = false;
}

bool kmt_hashmap_get(const struct kmt_hashmap *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (key == KMT_HASH_FREE) {
		if (m->has_free_key)
			*val = m->free_key_val;
		return m->has_free_key;
	}
	i = kmt_hash_probe(m, key);
	if (m->slots[i].key == KMT_HASH_FREE)
		return false;
	*val = m->slots[i].val;
	return true;
}

/* Double the capacity, rehashing every key. */
static int grow(struct kmt_hashmap *m)
{
	struct kmt_hashmap old = *m;
	size_t i;

	if (alloc_slots(m, (old.mask + 1) * 2)) {
		*m = old;
		return -1;
	}
	for (i = 0; i <= old.mask; i++) {
		if (old.slots[i].key != KMT_HASH_FREE) {
			m->slots[kmt_hash_probe(m, old.slots[i].key)] = old.slots[i];
			m->count++;
		}
	}
	free(old.slots);
	return 0;
}

uint64_t *kmt_hashmap_cell_rare(struct kmt_hashmap *m, uint64_t key, bool *had)
{
	m->memo.valid = false;
	if (key == KMT_HASH_FREE) {	/* it marks free slots: kept beside them */
		*had = m->has_free_key;
		if (!m->has_free_key) {
			m->has_free_key = true;
			m->free_key_val = 0;
			m->count++;
		}
		return &m->free_key_val;
	}
	if (grow(m))
		return NULL;
	return kmt_hashmap_cell(m, key, had);
}

int kmt_hashmap_put(struct kmt_hashmap *m, uint64_t key, uint64_t val)
{
	bool had;
	uint64_t *cell = kmt_hashmap_cell(m, key, &had);

	if (!cell)
		return -1;
	*cell = val;
	return 0;
}

/* Is slot @home's key allowed at @hole? (it lies cyclically in [home, at]) */
static bool may_move(size_t home, size_t hole, size_t at)
{
	if (hole <= at)
		return home <= hole || home > at;
	return home <= hole && home > at;
}

bool kmt_hashmap_del_free_key(struct kmt_hashmap *m, uint64_t *val)
{
	m->memo.valid = false;
	if (!m->has_free_key)
		return false;
	if (val)
		*val = m->free_key_val;
	m->has_free_key = false;
	m->count--;
	return true;
}

void kmt_hashmap_close_hole(struct kmt_hashmap *m, size_t hole)
{
	size_t i;

	/* Backward shift: pull later keys of the probe run into the hole. */
	for (i = (hole + 1) & m->mask; m->slots[i].key != KMT_HASH_FREE; i = (i + 1) & m->mask) {
		if (may_move(kmt_hash_home(m, m->slots[i].key), hole, i)) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	m->slots[hole].key = KMT_HASH_FREE;
	m->count--;
}

bool kmt_hashmap_next(const struct kmt_hashmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; m->slots && *pos <= m->mask; (*pos)++) {
		if (m->slots[*pos].key == KMT_HASH_FREE)
			continue;
		*key = m->slots[*pos].key;
		*val = m->slots[(*pos)++].val;
		return true;
	}
	if (*pos == m->mask + 1 && m->has_free_key) {
		(*pos)++;
		*key = KMT_HASH_FREE;
		*val = m->free_key_val;
		return true;
	}
	return false;
}

uint32_t kmt_hashmap_new_row(struct kmt_hashmap *index, uint64_t key, void *rows, uint32_t *cap,
			     uint32_t *n, size_t size)
{
	if (*n == KMT_HASHMAP_NO_ROW || kmt_grow(rows, cap, *n, size) ||
	    kmt_hashmap_put(index, key, *n))
		return KMT_HASHMAP_NO_ROW;
	memset(*(char **)rows + (size_t)*n * size, 0, size);
	return (*n)++;
}

uint32_t kmt_hashmap_name_row_len(const struct kmt_hashmap *index, const char *name, size_t len,
				  const void *rows, size_t stride, size_t offset, uint64_t *key)
{
	uint64_t h = kmt_hash_bytes(name, len), row;
	const char *other;

	for (; kmt_hashmap_get(index, h, &row); h++) {	/* names collide rarely */
		memcpy(&other, (const char *)rows + row * stride + offset, sizeof(other));
		if (strlen(other) == len && !memcmp(other, name, len))
			return (uint32_t)row;
	}
	*key = h;
	return KMT_HASHMAP_NO_ROW;
}

uint32_t kmt_hashmap_name_row(const struct kmt_hashmap *index, const char *name, const void *rows,
			      size_t stride, size_t offset, uint64_t *key)
{
	return kmt_hashmap_name_row_len(index, name, strlen(name), rows, stride, offset, key);
}
