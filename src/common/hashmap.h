/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A map from 64-bit keys to 64-bit values: open addressing, linear
 * probing, deletion by backward shift (no tombstones), so memory follows
 * the number of keys present, not the number ever inserted.
 */
#ifndef KMT_HASHMAP_H
#define KMT_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kmt_hash_slot {
	uint64_t key;
	uint64_t val;
};

/* The key that marks a free slot; a key of this value is kept outside the slots. */
#define KMT_HASH_FREE	UINT64_MAX

/*
 * The last key found in a map that only grows and never changes a value
 * (an index of rows), and its value: runs of one key (a task's events)
 * skip the hash. Zero it to start.
 */
struct kmt_hash_memo {
	uint64_t key, val;
	bool valid;
};

struct kmt_hashmap {
	struct kmt_hash_slot *slots;	/* key KMT_HASH_FREE: a free slot */
	size_t mask;		/* capacity - 1; capacity is a power of two */
	size_t count;		/* keys, KMT_HASH_FREE's too */
	bool has_free_key;	/* the key KMT_HASH_FREE is in, with free_key_val */
	uint64_t free_key_val;
	struct kmt_hash_memo row_memo;	/* kmt_hashmap_row()'s last row; any change drops it */
};

/* Make an empty map. Returns 0, or -1 with errno on allocation failure. */
int kmt_hashmap_init(struct kmt_hashmap *m);

/* Free what @m holds; @m may then be initialized again. */
void kmt_hashmap_free(struct kmt_hashmap *m);

/* The value of @key in @val; false if @key is not in @m. */
bool kmt_hashmap_get(const struct kmt_hashmap *m, uint64_t key, uint64_t *val);

/* Set @key to @val, adding it if needed. Returns 0, or -1 on allocation failure. */
int kmt_hashmap_put(struct kmt_hashmap *m, uint64_t key, uint64_t val);

/*
 * The value of @key, to read or set, added (value 0) when it was not in
 * (then *@had is false): one probe where a get and a put take two. Valid
 * until @m changes; NULL when out of memory.
 */
uint64_t *kmt_hashmap_cell(struct kmt_hashmap *m, uint64_t key, bool *had);

/* Remove @key; returns true if it was there and fills @val (may be NULL). */
bool kmt_hashmap_del(struct kmt_hashmap *m, uint64_t key, uint64_t *val);

/*
 * The next key of @m from *@pos (start at 0) into *@key and *@val, *@pos
 * moved past it; false after the last. In slot order; @m must not change.
 */
bool kmt_hashmap_next(const struct kmt_hashmap *m, size_t *pos, uint64_t *key, uint64_t *val);

#define KMT_HASHMAP_NO_ROW	UINT32_MAX

/*
 * Rows of a table kept in an array, found by key through @index: the index
 * of @key's row among the *@n rows of @size bytes at *(void **)@rows (*@cap
 * allocated), or a new row, zeroed and added at the end (then *@made is
 * true). KMT_HASHMAP_NO_ROW when out of memory.
 */
uint32_t kmt_hashmap_row(struct kmt_hashmap *index, uint64_t key, void *rows, uint32_t *cap,
			 uint32_t *n, size_t size, bool *made);

/* kmt_hashmap_get() through @memo; @m must only ever gain keys, values fixed. */
static inline bool kmt_hashmap_get_memo(const struct kmt_hashmap *m, struct kmt_hash_memo *memo,
					uint64_t key, uint64_t *val)
{
	if (memo->valid && memo->key == key) {
		*val = memo->val;
		return true;
	}
	if (!kmt_hashmap_get(m, key, val))
		return false;
	*memo = (struct kmt_hash_memo){ key, *val, true };
	return true;
}

/* Number of keys in @m. */
static inline size_t kmt_hashmap_count(const struct kmt_hashmap *m)
{
	return m->count;
}

/* FNV-1a of the @len bytes at @s: a key for names. */
static inline uint64_t kmt_hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

#endif /* KMT_HASHMAP_H */
