// SPDX-License-Identifier: LGPL-2.1
/* The pfns each task freed last, for mm_page_free_batched (page_recent.h). */
#include <stdlib.h>
#include <string.h>

#include "page_recent.h"

KMT_OBJMAP_TYPED(recent, struct page_recent)

#define SLOT(k)	((k) % PAGE_RECENT_FREES)

int kmt_page_recent_init(struct kmt_objmap *m)
{
	return kmt_objmap_init(m, sizeof(struct page_recent));
}

void kmt_page_recent_free(struct kmt_objmap *m)
{
	const void *item;
	uint64_t key;
	size_t pos = 0;

	while (kmt_objmap_next(m, &pos, &key, &item))
		free(((const struct page_recent *)item)->ring);
	kmt_objmap_free(m);
}

/* Is free number @k among the task's last PAGE_RECENT_FREES? */
static bool still_recent(const struct page_recent *r, uint32_t k)
{
	return r->frees - k <= PAGE_RECENT_FREES;	/* unsigned: wraps with the count */
}

static void drop_few(struct page_recent *r, uint32_t i)
{
	r->nfew--;
	memmove(&r->few[i], &r->few[i + 1], (r->nfew - i) * sizeof(r->few[0]));
	memmove(&r->few_number[i], &r->few_number[i + 1], (r->nfew - i) * sizeof(r->few_number[0]));
}

/* Forget the few that are no longer among the last frees (the oldest come first). */
static void drop_old_few(struct page_recent *r)
{
	while (r->nfew && !still_recent(r, r->few_number[0]))
		drop_few(r, 0);
}

/* From the few to a ring, each at its slot. 0, or -1 when out of memory. */
static int few_to_ring(struct page_recent *r)
{
	uint32_t i;

	if (!(r->ring = calloc(PAGE_RECENT_FREES, sizeof(*r->ring))))
		return -1;
	for (i = 0; i < r->nfew; i++)
		r->ring[SLOT(r->few_number[i])] = r->few[i];
	r->nfew = 0;
	return 0;
}

/* Back from the ring to the few when they hold all it has. */
static void ring_to_few(struct page_recent *r)
{
	uint32_t i, held = 0, k;

	for (i = 0; i < PAGE_RECENT_FREES; i++)
		held += r->ring[i] != 0;
	if (held > PAGE_RECENT_FEW)
		return;
	for (i = PAGE_RECENT_FREES; i > 0; i--) {	/* oldest first */
		k = r->frees - i;
		if (r->ring[SLOT(k)]) {
			r->few[r->nfew] = r->ring[SLOT(k)];
			r->few_number[r->nfew++] = k;
		}
	}
	free(r->ring);
	r->ring = NULL;
}

int kmt_page_recent_note(struct kmt_objmap *m, int pid, uint64_t pfn)
{
	bool live;
	struct page_recent *r = recent_cell(m, (uint32_t)pid, &live);
	uint32_t k;

	if (!r)
		return -1;
	if (!live)
		memset(r, 0, sizeof(*r));
	k = r->frees++;
	if (!r->ring) {
		drop_old_few(r);
		if (r->nfew < PAGE_RECENT_FEW) {
			r->few[r->nfew] = pfn + 1;
			r->few_number[r->nfew++] = k;
			return 0;
		}
		if (few_to_ring(r))
			return -1;
	}
	r->ring[SLOT(k)] = pfn + 1;
	return 0;
}

/* Take @pfn from the ring, the newest first. */
static bool take_from_ring(struct page_recent *r, uint64_t pfn)
{
	uint32_t i;

	for (i = 1; i <= PAGE_RECENT_FREES; i++) {
		uint64_t *slot = &r->ring[SLOT(r->frees - i)];

		if (*slot == pfn + 1) {
			*slot = 0;
			ring_to_few(r);
			return true;
		}
	}
	return false;
}

/* Take @pfn from the few, the newest first. */
static bool take_from_few(struct page_recent *r, uint64_t pfn)
{
	uint32_t i;

	for (i = r->nfew; i > 0; i--) {
		if (r->few[i - 1] == pfn + 1 && still_recent(r, r->few_number[i - 1])) {
			drop_few(r, i - 1);
			return true;
		}
	}
	return false;
}

bool kmt_page_recent_take(struct kmt_objmap *m, int pid, uint64_t pfn)
{
	struct page_recent *r = kmt_objmap_find(m, (uint32_t)pid);

	if (!r || !(r->ring ? take_from_ring(r, pfn) : take_from_few(r, pfn)))
		return false;
	if (!r->ring && !r->nfew)
		kmt_objmap_take(m, (uint32_t)pid);	/* holds nothing: as a task never seen */
	return true;
}
