// SPDX-License-Identifier: LGPL-2.1
/* The numbered names of nameids.h. */
#include <stdlib.h>
#include <string.h>

#include "nameids.h"
#include "util.h"

int kmt_name_ids_init(struct kmt_name_ids *t)
{
	memset(t, 0, sizeof(*t));
	return kmt_hashmap_init(&t->index);
}

void kmt_name_ids_free(struct kmt_name_ids *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->names[i]);
	free(t->names);
	kmt_hashmap_free(&t->index);
	memset(t, 0, sizeof(*t));
}

uint32_t kmt_name_id_rare(struct kmt_name_ids *t, const char *name, int len)
{
	uint64_t key;
	uint32_t row = kmt_hashmap_name_row_len(&t->index, name, len, t->names, sizeof(*t->names),
						0, &key);

	if (row == KMT_HASHMAP_NO_ROW) {
		if (t->n == UINT32_MAX - 1 ||
		    kmt_grow(&t->names, &t->cap, t->n, sizeof(*t->names)) ||
		    !(t->names[t->n] = strndup(name, len)))
			return 0;
		if (kmt_hashmap_put(&t->index, key, t->n)) {
			free(t->names[t->n]);
			return 0;
		}
		row = t->n++;
	}
	kmt_name_hint_put(&t->hints, t->names[row], len, row + 1);
	return row + 1;
}

int kmt_id_row_put(struct kmt_id_rows *r, uint32_t id, uint32_t row)
{
	uint32_t cap = r->cap;

	if (row == UINT32_MAX || kmt_grow(&r->rows, &r->cap, id, sizeof(*r->rows)))
		return -1;
	memset(r->rows + cap, 0, (r->cap - cap) * sizeof(*r->rows));
	r->rows[id] = row + 1;
	return 0;
}

void kmt_id_rows_free(struct kmt_id_rows *r)
{
	free(r->rows);
	r->rows = NULL;
	r->cap = 0;
}
