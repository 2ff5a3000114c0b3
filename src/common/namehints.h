/* SPDX-License-Identifier: LGPL-2.1 */
/* Hints from a name to what was made of it, without hashing the whole name. */
#ifndef KMT_NAMEHINTS_H
#define KMT_NAMEHINTS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define KMT_NAME_HINTS	64

/*
 * What was made of recently seen names (a cache's row or index, the
 * replay's number of a name), found by the name's length and first and
 * last bytes without hashing it all. Each hint points to its owner's own
 * copy of the name.
 */
struct kmt_name_hints {
	struct kmt_name_hint {
		uint64_t first, last;	/* the name's first and last 8 bytes */
		const char *name;	/* NULL: an empty slot */
		int len;
		uint32_t row;
	} slot[KMT_NAME_HINTS];
};

/*
 * The first and last 8 bytes of @name (@len bytes) into *@first and
 * *@last, as two loads; a shorter name's bytes, zero-padded, into both.
 * Up to 16 bytes, they are the whole name.
 */
static inline void kmt_name_edges(const char *name, int len, uint64_t *first, uint64_t *last)
{
	*first = 0;
	if (len >= 8) {
		memcpy(first, name, 8);
		memcpy(last, name + len - 8, 8);
	} else {
		memcpy(first, name, len);
		*last = *first;
	}
}

/* The slot of a name of @len bytes whose edges are @first and @last. */
static inline struct kmt_name_hint *kmt_name_hint_at(struct kmt_name_hints *h, uint64_t first,
						     uint64_t last, int len)
{
	uint64_t mix = (first ^ (last << 1) ^ (uint64_t)len) * 0x9e3779b97f4a7c15ull;

	return &h->slot[mix >> 58];	/* 64 slots */
}

/*
 * The row hinted for name @name (@len bytes): true when there is one. The
 * edges compare a name of up to 16 bytes whole; the bytes between them,
 * those of a longer one.
 */
static inline bool kmt_name_hint_get(struct kmt_name_hints *h, const char *name, int len,
				     uint32_t *row)
{
	const struct kmt_name_hint *s;
	uint64_t first, last;

	kmt_name_edges(name, len, &first, &last);
	s = kmt_name_hint_at(h, first, last, len);
	if (!s->name || s->len != len || s->first != first || s->last != last ||
	    (len > 16 && memcmp(s->name + 8, name + 8, len - 16)))
		return false;
	*row = s->row;
	return true;
}

/* Hint @row for the name at @kept (@len bytes, valid as long as @h is used). */
static inline void kmt_name_hint_put(struct kmt_name_hints *h, const char *kept, int len,
				     uint32_t row)
{
	uint64_t first, last;
	struct kmt_name_hint *s;

	kmt_name_edges(kept, len, &first, &last);
	s = kmt_name_hint_at(h, first, last, len);
	*s = (struct kmt_name_hint){ first, last, kept, len, row };
}

#endif /* KMT_NAMEHINTS_H */
