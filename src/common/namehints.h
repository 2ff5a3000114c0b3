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
		const char *name;
		int len;
		uint32_t row;
	} slot[KMT_NAME_HINTS];
};

/* The slot of name @name of @len bytes. */
static inline struct kmt_name_hint *kmt_name_hint_slot(struct kmt_name_hints *h,
						       const char *name, int len)
{
	uint64_t first = 0, last;

	if (len >= 8) {		/* the first and the last 8 bytes, as two loads */
		memcpy(&first, name, 8);
		memcpy(&last, name + len - 8, 8);
	} else {		/* all of them, twice */
		memcpy(&first, name, len);
		last = first;
	}
	first = (first ^ (last << 1) ^ (uint64_t)len) * 0x9e3779b97f4a7c15ull;
	return &h->slot[first >> 58];	/* 64 slots */
}

/* The row hinted for name @name (@len bytes): true when there is one. */
static inline bool kmt_name_hint_get(struct kmt_name_hints *h, const char *name, int len,
				     uint32_t *row)
{
	const struct kmt_name_hint *s = kmt_name_hint_slot(h, name, len);

	if (!s->name || s->len != len || memcmp(s->name, name, len))
		return false;
	*row = s->row;
	return true;
}

/* Hint @row for the name at @kept (@len bytes, valid as long as @h is used). */
static inline void kmt_name_hint_put(struct kmt_name_hints *h, const char *kept, int len,
				     uint32_t row)
{
	*kmt_name_hint_slot(h, kept, len) = (struct kmt_name_hint){ kept, len, row };
}

#endif /* KMT_NAMEHINTS_H */
