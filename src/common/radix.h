/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Stable sorts by a 64-bit key in linear time (least significant byte
 * first), for the report-time sorts of hundreds of thousands of items
 * (fault latencies, outstanding objects, kallsyms): qsort's comparisons
 * and copies of a run-time size were a fifth of a replay. Passes whose
 * byte is the same in every key are skipped.
 */
#ifndef KMT_RADIX_H
#define KMT_RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Define "static void NAME(TYPE *a, TYPE *tmp, size_t n)": sort the @n items
 * at @a stably by KEY_OF(const TYPE *) (a uint64_t), with @tmp room for @n
 * more items.
 */
#define KMT_RADIX_SORT(name, type, key_of)					\
	static void name(type *a, type *tmp, size_t n)				\
	{									\
		type *from = a, *to = tmp, *t;					\
		size_t count[256], i, at;					\
		int shift, b;							\
										\
		for (shift = 0; shift < 64; shift += 8) {			\
			memset(count, 0, sizeof(count));			\
			for (i = 0; i < n; i++)					\
				count[(key_of(&from[i]) >> shift) & 0xff]++;	\
			if (n && count[(key_of(&from[0]) >> shift) & 0xff] == n)	\
				continue;	/* one byte value: nothing moves */	\
			for (b = 0, at = 0; b < 256; b++) {			\
				size_t c = count[b];				\
										\
				count[b] = at;					\
				at += c;					\
			}							\
			for (i = 0; i < n; i++)					\
				to[count[(key_of(&from[i]) >> shift) & 0xff]++] = from[i]; \
			t = from;						\
			from = to;						\
			to = t;							\
		}								\
		if (from != a)							\
			memcpy(a, from, n * sizeof(*a));			\
	}

#endif /* KMT_RADIX_H */
