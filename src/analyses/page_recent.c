// SPDX-License-Identifier: LGPL-2.1
/* The pfns each task freed last, for mm_page_free_batched (page_recent.h). */
#include <stdlib.h>
#include <string.h>

#include "page_recent.h"
#include "common/util.h"

KMT_OBJMAP_TYPED(recent, struct page_recent)

#define SLOT(k)	((k) % PAGE_RECENT_FREES)

int kmt_page_recents_init(struct page_recents *r)
{
	memset(r, 0, sizeof(*r));
	return kmt_objmap_init(&r->tasks, sizeof(struct page_recent));
}

void kmt_page_recents_free(struct page_recents *r)
{
	const void *item;
	uint64_t key;
	size_t pos = 0;

	while (kmt_objmap_next(&r->tasks, &pos, &key, &item))
		free(((const struct page_recent *)item)->ring);
	kmt_objmap_free(&r->tasks);
	while (r->nspare)
		free(r->spare[--r->nspare]);
	free(r->spare);
	memset(r, 0, sizeof(*r));
}

/*
 * The entry of @pid, made empty if new; NULL when out of memory. Found
 * first (the map keeps the key it found last: events come in runs of one
 * task), made only when missing.
 */
static struct page_recent *task_entry(struct page_recents *r, int pid)
{
	struct page_recent *t = kmt_objmap_find(&r->tasks, (uint32_t)pid);
	bool live;

	if (t)
		return t;
	t = recent_cell(&r->tasks, (uint32_t)pid, &live);
	if (t)
		memset(t, 0, sizeof(*t));
	return t;
}

/* Is free number @k among the task's last PAGE_RECENT_FREES? */
static bool still_recent(const struct page_recent *t, uint32_t k)
{
	return t->frees - k <= PAGE_RECENT_FREES;	/* unsigned: wraps with the count */
}

static void drop_few(struct page_recent *t, uint32_t i)
{
	t->held--;
	memmove(&t->few[i], &t->few[i + 1], (t->held - i) * sizeof(t->few[0]));
	memmove(&t->few_number[i], &t->few_number[i + 1], (t->held - i) * sizeof(t->few_number[0]));
}

/* Forget the few that are no longer among the last frees (the oldest come first). */
static void drop_old_few(struct page_recent *t)
{
	while (t->held && !still_recent(t, t->few_number[0]))
		drop_few(t, 0);
}

/* From the few to a ring, each at its slot. 0, or -1 when out of memory. */
static int few_to_ring(struct page_recents *r, struct page_recent *t)
{
	uint32_t i;

	if (r->nspare)
		t->ring = r->spare[--r->nspare];
	else if (!(t->ring = calloc(PAGE_RECENT_FREES, sizeof(*t->ring))))
		return -1;
	for (i = 0; i < t->held; i++)
		t->ring[SLOT(t->few_number[i])] = t->few[i];
	return 0;
}

/* Back from the ring to the few; the ring, all zero again, is kept for another task. */
static void ring_to_few(struct page_recents *r, struct page_recent *t)
{
	uint32_t i, n = 0, k;

	for (i = PAGE_RECENT_FREES; i > 0; i--) {	/* oldest first */
		k = t->frees - i;
		if (t->ring[SLOT(k)]) {
			t->few[n] = t->ring[SLOT(k)];
			t->few_number[n++] = k;
			t->ring[SLOT(k)] = 0;
		}
	}
	if (!kmt_grow(&r->spare, &r->cap_spare, r->nspare, sizeof(*r->spare)))
		r->spare[r->nspare++] = t->ring;
	else
		free(t->ring);
	t->ring = NULL;
}

int kmt_page_recent_note(struct page_recents *r, int pid, uint64_t pfn)
{
	struct page_recent *t = task_entry(r, pid);
	uint32_t k;

	if (!t)
		return -1;
	k = t->frees++;
	if (!t->ring) {
		drop_old_few(t);
		if (t->held < PAGE_RECENT_FEW) {
			t->few[t->held] = pfn + 1;
			t->few_number[t->held++] = k;
			return 0;
		}
		if (few_to_ring(r, t))
			return -1;
	}
	t->held += !t->ring[SLOT(k)];
	t->ring[SLOT(k)] = pfn + 1;
	return 0;
}

/* Take @pfn from the ring, the newest first. */
static bool take_from_ring(struct page_recents *r, struct page_recent *t, uint64_t pfn)
{
	uint32_t i;

	for (i = 1; i <= PAGE_RECENT_FREES; i++) {
		uint64_t *slot = &t->ring[SLOT(t->frees - i)];

		if (*slot == pfn + 1) {
			*slot = 0;
			if (--t->held <= PAGE_RECENT_FEW)
				ring_to_few(r, t);
			return true;
		}
	}
	return false;
}

/* Take @pfn from the few, the newest first. */
static bool take_from_few(struct page_recent *t, uint64_t pfn)
{
	uint32_t i;

	for (i = t->held; i > 0; i--) {
		if (t->few[i - 1] == pfn + 1 && still_recent(t, t->few_number[i - 1])) {
			drop_few(t, i - 1);
			return true;
		}
	}
	return false;
}

bool kmt_page_recent_take(struct page_recents *r, int pid, uint64_t pfn)
{
	struct page_recent *t = kmt_objmap_find(&r->tasks, (uint32_t)pid);

	if (!t || !(t->ring ? take_from_ring(r, t, pfn) : take_from_few(t, pfn)))
		return false;
	if (!t->held)	/* holds nothing: as a task never seen */
		kmt_objmap_take(&r->tasks, (uint32_t)pid);
	return true;
}
