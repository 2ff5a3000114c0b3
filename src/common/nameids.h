/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Numbers for names, from 1, one per distinct name, and what a user of
 * the numbers made of each. The replay numbers the slab cache names of
 * the events once, for every analysis, in the thread that decodes them:
 * an analysis in another thread then finds its row by the number and
 * need not read the name again.
 */
#ifndef KMT_NAMEIDS_H
#define KMT_NAMEIDS_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"
#include "namehints.h"

struct kmt_name_ids {
	struct kmt_name_hints hints;	/* recent names -> their number */
	struct kmt_hashmap index;	/* kmt_hashmap_name_row() of names[] */
	char **names;			/* number i's name at names[i - 1] */
	uint32_t n, cap;
};

/* Ready @t, with no names. 0, or -1 when out of memory. */
int kmt_name_ids_init(struct kmt_name_ids *t);

/* Free the names of @t. */
void kmt_name_ids_free(struct kmt_name_ids *t);

/* kmt_name_id() of a name no hint holds. */
uint32_t kmt_name_id_rare(struct kmt_name_ids *t, const char *name, int len);

/* The number of @name (@len > 0 bytes), new if it has none yet; 0 when out of memory. */
static inline uint32_t kmt_name_id(struct kmt_name_ids *t, const char *name, int len)
{
	uint32_t id;

	if (kmt_name_hint_get(&t->hints, name, len, &id))
		return id;
	return kmt_name_id_rare(t, name, len);
}

/* What a user of the numbers made of each (a row), by number. */
struct kmt_id_rows {
	uint32_t *rows;		/* row + 1 for number i at rows[i]; 0: none yet */
	uint32_t cap;
};

/* The row of number @id in *@row: false when none was put. */
static inline bool kmt_id_row_get(const struct kmt_id_rows *r, uint32_t id, uint32_t *row)
{
	if (id >= r->cap || !r->rows[id])
		return false;
	*row = r->rows[id] - 1;
	return true;
}

/* Number @id's row is @row (< UINT32_MAX). 0, or -1 when out of memory. */
int kmt_id_row_put(struct kmt_id_rows *r, uint32_t id, uint32_t row);

/* Free the rows of @r. */
void kmt_id_rows_free(struct kmt_id_rows *r);

/*
 * A user's rows of names (slab's and leak's caches), found again without
 * a lookup of the whole name: by the replay's number of the name where it
 * gave one, else by a hint.
 */
struct kmt_name_rows {
	struct kmt_name_hints hints;	/* recent names -> row */
	struct kmt_id_rows ids;		/* the replay's numbers -> row */
};

/* Free what @r holds. */
static inline void kmt_name_rows_free(struct kmt_name_rows *r)
{
	kmt_id_rows_free(&r->ids);
}

/* The row of @name (@len bytes), numbered @id (0: not), in *@row: false when not known here. */
static inline bool kmt_name_rows_get(struct kmt_name_rows *r, const char *name, int len,
				     uint32_t id, uint32_t *row)
{
	return (id && kmt_id_row_get(&r->ids, id, row)) ||
	       kmt_name_hint_get(&r->hints, name, len, row);
}

/*
 * Row @row is the name at @kept (@len bytes, valid as long as @r is used),
 * numbered @id (0: not).
 */
static inline void kmt_name_rows_put(struct kmt_name_rows *r, const char *kept, int len,
				     uint32_t id, uint32_t row)
{
	kmt_name_hint_put(&r->hints, kept, len, row);
	if (id)
		kmt_id_row_put(&r->ids, id, row);	/* a cache: failure is harmless */
}

#endif /* KMT_NAMEIDS_H */
