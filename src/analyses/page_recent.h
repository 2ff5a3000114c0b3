/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The pfns each task freed last with mm_page_free, which an
 * mm_page_free_batched of the same task may repeat (page.c). A task's last
 * PAGE_RECENT_FREES frees count, less those a batched event took already.
 * Most tasks end holding one or two pfns (frees no batched event repeats),
 * so a task keeps up to PAGE_RECENT_FEW of them, with their numbers among
 * its frees, in its own entry, and a ring of PAGE_RECENT_FREES slots only
 * past that (rings given back are kept for the next task needing one); a
 * task that holds none has no entry. Memory then follows the tasks
 * holding pfns, not every task the recording ever had.
 */
#ifndef KMT_PAGE_RECENT_H
#define KMT_PAGE_RECENT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/objmap.h"

#define PAGE_RECENT_FREES	64	/* a task's last frees a batched event may repeat */
#define PAGE_RECENT_FEW		4	/* held in the task's entry, before a ring */

struct page_recent {
	uint64_t few[PAGE_RECENT_FEW];		/* pfn + 1, oldest first */
	uint32_t few_number[PAGE_RECENT_FEW];	/* which of the task's frees each was */
	uint32_t frees;				/* the task's mm_page_free events so far */
	uint32_t held;				/* pfns held: in few[], or in the ring */
	uint64_t *ring;	/* free k's pfn + 1 at k % PAGE_RECENT_FREES (0: taken), or NULL */
};

struct page_recents {
	struct kmt_objmap tasks;	/* pid -> struct page_recent */
	uint64_t **spare;		/* rings given back */
	uint32_t nspare, cap_spare;
};

/* An empty set of tasks. 0, or -1 when out of memory. */
int kmt_page_recents_init(struct page_recents *r);

/* Free what @r holds. */
void kmt_page_recents_free(struct page_recents *r);

/* Task @pid freed @pfn (mm_page_free). 0, or -1 when out of memory. */
int kmt_page_recent_note(struct page_recents *r, int pid, uint64_t pfn);

/*
 * Is @pfn among the last PAGE_RECENT_FREES pfns @pid freed and not taken
 * yet? Then it is taken (the newest such), and true.
 */
bool kmt_page_recent_take(struct page_recents *r, int pid, uint64_t pfn);

#endif /* KMT_PAGE_RECENT_H */
