// SPDX-License-Identifier: LGPL-2.1
/* The 64-bit key map of hashmap.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "util.h"

#define INITIAL_SLOTS	64

/* Mix the key bits (splitmix64 finalizer): pointers share their low bits. */
static size_t slot_of(const struct kmt_hashmap *m, uint64_t key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return key & m->mask;
}

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

/* The slot holding @key (not KMT_HASH_FREE), or the free slot where it would go. */
static inline __attribute__((always_inline)) size_t probe(const struct kmt_hashmap *m, uint64_t key)
{
	size_t i = slot_of(m, key);

	while (m->slots[i].key != key && m->slots[i].key != KMT_HASH_FREE)
		i = (i + 1) & m->mask;
	return i;
}

bool kmt_hashmap_get(const struct kmt_hashmap *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (key == KMT_HASH_FREE) {
		if (m->has_free_key)
			*val = m->free_key_val;
		return m->has_free_key;
	}
	i = probe(m, key);
	if (m->slots[i].key == KMT_HASH_FREE)
		return false;
	*val = m->slots[i].val;
	return true;
}

/* Double the capacity, rehashing every key (out of line: rare). */
static __attribute__((noinline, cold)) int grow(struct kmt_hashmap *m)
{
	struct kmt_hashmap old = *m;
	size_t i;

	if (alloc_slots(m, (old.mask + 1) * 2)) {
		*m = old;
		return -1;
	}
	for (i = 0; i <= old.mask; i++) {
		if (old.slots[i].key != KMT_HASH_FREE) {
			m->slots[probe(m, old.slots[i].key)] = old.slots[i];
			m->count++;
		}
	}
	free(old.slots);
	return 0;
}

/* KMT_HASH_FREE marks free slots: a key of that value is kept beside them. */
static void put_free_key(struct kmt_hashmap *m, uint64_t val)
{
	m->count += !m->has_free_key;
	m->has_free_key = true;
	m->free_key_val = val;
}

/* kmt_hashmap_cell() for the key KMT_HASH_FREE (out of line: rare). */
static __attribute__((noinline, cold)) uint64_t *free_key_cell(struct kmt_hashmap *m, bool *had)
{
	*had = m->has_free_key;
	if (!m->has_free_key)
		put_free_key(m, 0);
	return &m->free_key_val;
}

uint64_t *kmt_hashmap_cell(struct kmt_hashmap *m, uint64_t key, bool *had)
{
	size_t i;

	m->memo.valid = false;	/* the caller may change the value */
	if (key == KMT_HASH_FREE)
		return free_key_cell(m, had);
	/* Keep the load at or under 1/2: probes stay short. */
	if (m->count - m->has_free_key >= m->limit && grow(m))
		return NULL;
	i = probe(m, key);
	*had = m->slots[i].key != KMT_HASH_FREE;
	if (!*had) {
		m->slots[i] = (struct kmt_hash_slot){ .key = key };
		m->count++;
	}
	return &m->slots[i].val;
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

bool kmt_hashmap_del(struct kmt_hashmap *m, uint64_t key, uint64_t *val)
{
	size_t hole, i;

	m->memo.valid = false;
	if (key == KMT_HASH_FREE) {
		if (!m->has_free_key)
			return false;
		if (val)
			*val = m->free_key_val;
		m->has_free_key = false;
		m->count--;
		return true;
	}
	hole = probe(m, key);
	if (m->slots[hole].key == KMT_HASH_FREE)
		return false;
	if (val)
		*val = m->slots[hole].val;
	/* Backward shift: pull later keys of the probe run into the hole. */
	for (i = (hole + 1) & m->mask; m->slots[i].key != KMT_HASH_FREE; i = (i + 1) & m->mask) {
		if (may_move(slot_of(m, m->slots[i].key), hole, i)) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	m->slots[hole].key = KMT_HASH_FREE;
	m->count--;
	return true;
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

uint32_t kmt_hashmap_name_row(const struct kmt_hashmap *index, const char *name, const void *rows,
			      size_t stride, size_t offset, uint64_t *key)
{
	uint64_t h = kmt_hash_bytes(name, strlen(name)), row;
	const char *other;

	for (; kmt_hashmap_get(index, h, &row); h++) {	/* names collide rarely */
		memcpy(&other, (const char *)rows + row * stride + offset, sizeof(other));
		if (!strcmp(other, name))
			return (uint32_t)row;
	}
	*key = h;
	return KMT_HASHMAP_NO_ROW;
}
