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
#include <string.h>

struct kmt_hash_slot {
	uint64_t key;
	uint64_t val;
};

/* The key that marks a free slot; a key of this value is kept outside the slots. */
#define KMT_HASH_FREE	UINT64_MAX


struct kmt_hashmap {
	struct kmt_hash_slot *slots;	/* key KMT_HASH_FREE: a free slot */
	size_t mask;		/* capacity - 1; capacity is a power of two */
	size_t count;		/* keys, KMT_HASH_FREE's too */
	size_t limit;		/* keys in slots that make it grow: half the capacity */
	bool has_free_key;	/* the key KMT_HASH_FREE is in, with free_key_val */
	uint64_t free_key_val;
	/* The key kmt_hashmap_find() found last, and its value; any change drops it. */
	struct {
		uint64_t key, val;
		bool valid;
	} memo;
};

/* Make an empty map. Returns 0, or -1 with errno on allocation failure. */
int kmt_hashmap_init(struct kmt_hashmap *m);

/* Free what @m holds; @m may then be initialized again. */
void kmt_hashmap_free(struct kmt_hashmap *m);

/* The value of @key in @val; false if @key is not in @m. */
bool kmt_hashmap_get(const struct kmt_hashmap *m, uint64_t key, uint64_t *val);

/* Set @key to @val, adding it if needed. Returns 0, or -1 on allocation failure. */
int kmt_hashmap_put(struct kmt_hashmap *m, uint64_t key, uint64_t val);

/* The slot @key hashes to (splitmix64's finalizer mixes it: pointers share their low bits). */
static inline size_t kmt_hash_home(const struct kmt_hashmap *m, uint64_t key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return key & m->mask;
}

/* The slot holding @key (not KMT_HASH_FREE), or the free slot where it would go. */
static inline size_t kmt_hash_probe(const struct kmt_hashmap *m, uint64_t key)
{
	size_t i = kmt_hash_home(m, key);

	while (m->slots[i].key != key && m->slots[i].key != KMT_HASH_FREE)
		i = (i + 1) & m->mask;
	return i;
}

/* kmt_hashmap_cell() for the key KMT_HASH_FREE or a map that must grow first. */
uint64_t *kmt_hashmap_cell_rare(struct kmt_hashmap *m, uint64_t key, bool *had);

/*
 * The value of @key, to read or set, added (value 0) when it was not in
 * (then *@had is false): one probe where a get and a put take two. Valid
 * until @m changes; NULL when out of memory. Inline: the live-object maps
 * call it for every allocation.
 */
static inline uint64_t *kmt_hashmap_cell(struct kmt_hashmap *m, uint64_t key, bool *had)
{
	struct kmt_hash_slot *slot;

	/* Keep the load at or under 1/2: probes stay short. */
	if (key == KMT_HASH_FREE || m->count - m->has_free_key >= m->limit)
		return kmt_hashmap_cell_rare(m, key, had);
	m->memo.valid = false;	/* the caller may change the value */
	slot = &m->slots[kmt_hash_probe(m, key)];
	*had = slot->key != KMT_HASH_FREE;
	if (!*had) {
		*slot = (struct kmt_hash_slot){ .key = key };
		m->count++;
	}
	return &slot->val;
}

/* Empty slot @hole of @m, moving the keys after it that belong before it. */
void kmt_hashmap_close_hole(struct kmt_hashmap *m, size_t hole);

/* kmt_hashmap_del() of the key KMT_HASH_FREE. */
bool kmt_hashmap_del_free_key(struct kmt_hashmap *m, uint64_t *val);

/* Remove @key; returns true if it was there and fills @val (may be NULL). */
static inline bool kmt_hashmap_del(struct kmt_hashmap *m, uint64_t key, uint64_t *val)
{
	size_t hole;

	if (key == KMT_HASH_FREE)
		return kmt_hashmap_del_free_key(m, val);
	m->memo.valid = false;
	hole = kmt_hash_probe(m, key);
	if (m->slots[hole].key == KMT_HASH_FREE)
		return false;
	if (val)
		*val = m->slots[hole].val;
	if (m->slots[(hole + 1) & m->mask].key == KMT_HASH_FREE) {	/* the end of its run */
		m->slots[hole].key = KMT_HASH_FREE;
		m->count--;
	} else {
		kmt_hashmap_close_hole(m, hole);
	}
	return true;
}

/*
 * The next key of @m from *@pos (start at 0) into *@key and *@val, *@pos
 * moved past it; false after the last. In slot order; @m must not change.
 */
bool kmt_hashmap_next(const struct kmt_hashmap *m, size_t *pos, uint64_t *key, uint64_t *val);

/*
 * kmt_hashmap_get() that keeps the key it found and its value in @m: runs
 * of one key (a task's events) skip the hash. It writes @m, so only one
 * thread may use @m, as for any change.
 */
static inline bool kmt_hashmap_find(struct kmt_hashmap *m, uint64_t key, uint64_t *val)
{
	if (m->memo.valid && m->memo.key == key) {
		*val = m->memo.val;
		return true;
	}
	if (!kmt_hashmap_get(m, key, val))
		return false;
	m->memo.key = key;
	m->memo.val = *val;
	m->memo.valid = true;
	return true;
}

#define KMT_HASHMAP_NO_ROW	UINT32_MAX

/* kmt_hashmap_row() for a @key not in @index: its new row. */
uint32_t kmt_hashmap_new_row(struct kmt_hashmap *index, uint64_t key, void *rows, uint32_t *cap,
			     uint32_t *n, size_t size);

/*
 * Rows of a table kept in an array, found by key through @index: the index
 * of @key's row among the *@n rows of @size bytes at *(void **)@rows (*@cap
 * allocated), or a new row, zeroed and added at the end (then *@made is
 * true). KMT_HASHMAP_NO_ROW when out of memory.
 */
static inline uint32_t kmt_hashmap_row(struct kmt_hashmap *index, uint64_t key, void *rows,
				       uint32_t *cap, uint32_t *n, size_t size, bool *made)
{
	uint64_t row;

	*made = !kmt_hashmap_find(index, key, &row);
	if (!*made)
		return (uint32_t)row;
	row = kmt_hashmap_new_row(index, key, rows, cap, n, size);
	*made = row != KMT_HASHMAP_NO_ROW;
	return (uint32_t)row;
}

/*
 * The row named @name in @index, which maps the hash of a row's name
 * (kmt_hash_bytes(); a hash already taken is probed on to the next key)
 * to the row; row i's name is the char * at byte @offset of @rows + i *
 * @stride. KMT_HASHMAP_NO_ROW when there is none, with *@key the key a
 * new row of that name goes under.
 */
uint32_t kmt_hashmap_name_row(const struct kmt_hashmap *index, const char *name, const void *rows,
			      size_t stride, size_t offset, uint64_t *key);

/* kmt_hashmap_name_row() of the @len bytes at @name, which need no NUL. */
uint32_t kmt_hashmap_name_row_len(const struct kmt_hashmap *index, const char *name, size_t len,
				  const void *rows, size_t stride, size_t offset, uint64_t *key);

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

/*
 * A key for the @n 64-bit words at @w (a stack's frames), a word at a time
 * where kmt_hash_bytes() takes eight steps; the map mixes it again.
 */
static inline uint64_t kmt_hash_words(const void *w, size_t n)
{
	const unsigned char *p = w;
	uint64_t h = n, v;

	for (; n--; p += sizeof(v)) {
		memcpy(&v, p, sizeof(v));
		h = ((h << 23 | h >> 41) ^ v) * 0x9e3779b97f4a7c15ull;
	}
	return h;
}

#endif /* KMT_HASHMAP_H */
