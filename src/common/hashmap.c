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
	m->used = calloc(nslots, 1);
	if (!m->slots || !m->used) {
		free(m->slots);
		free(m->used);
		m->slots = NULL;
		m->used = NULL;
		errno = ENOMEM;
		return -1;
	}
	m->mask = nslots - 1;
	m->count = 0;
	return 0;
}

int kmt_hashmap_init(struct kmt_hashmap *m)
{
	return alloc_slots(m, INITIAL_SLOTS);
}

void kmt_hashmap_free(struct kmt_hashmap *m)
{
	free(m->slots);
	free(m->used);
	m->slots = NULL;
	m->used = NULL;
	m->mask = 0;
	m->count = 0;
}

/* The slot holding @key, or the free slot where it would go. */
static size_t probe(const struct kmt_hashmap *m, uint64_t key)
{
	size_t i = slot_of(m, key);

	while (m->used[i] && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}

bool kmt_hashmap_get(const struct kmt_hashmap *m, uint64_t key, uint64_t *val)
{
	size_t i = probe(m, key);

	if (!m->used[i])
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
		if (old.used[i]) {
			size_t j = probe(m, old.slots[i].key);

			m->used[j] = 1;
			m->slots[j] = old.slots[i];
			m->count++;
		}
	}
	free(old.slots);
	free(old.used);
	return 0;
}

int kmt_hashmap_put(struct kmt_hashmap *m, uint64_t key, uint64_t val)
{
	size_t i;

	/* Keep the load at or under 1/2: probes stay short. */
	if ((m->count + 1) * 2 > m->mask + 1 && grow(m))
		return -1;
	i = probe(m, key);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->slots[i].key = key;
		m->count++;
	}
	m->slots[i].val = val;
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
	size_t hole = probe(m, key), i;

	if (!m->used[hole])
		return false;
	if (val)
		*val = m->slots[hole].val;
	/* Backward shift: pull later keys of the probe run into the hole. */
	for (i = (hole + 1) & m->mask; m->used[i]; i = (i + 1) & m->mask) {
		if (may_move(slot_of(m, m->slots[i].key), hole, i)) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	m->used[hole] = 0;
	m->count--;
	return true;
}

uint32_t kmt_hashmap_row(struct kmt_hashmap *index, uint64_t key, void *rows, uint32_t *cap,
			 uint32_t *n, size_t size, bool *made)
{
	uint64_t row;

	*made = false;
	if (kmt_hashmap_get(index, key, &row))
		return (uint32_t)row;
	if (*n == KMT_HASHMAP_NO_ROW || kmt_grow(rows, cap, *n, size) ||
	    kmt_hashmap_put(index, key, *n))
		return KMT_HASHMAP_NO_ROW;
	memset(*(char **)rows + (size_t)*n * size, 0, size);
	*made = true;
	return (*n)++;
}
