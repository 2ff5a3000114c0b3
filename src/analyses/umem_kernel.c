// SPDX-License-Identifier: LGPL-2.1
/*
 * umem's kernel side: what a process's memory looks like to the kernel
 * beside its malloc heap. Its anonymous RSS from rss_stat (only the
 * updates a task makes to its own mm, so exit's teardown does not empty
 * it), and the slab objects and page blocks allocated in its context that
 * are still live, whoever frees them later.
 */
#include <kmtrace/event.h>

#include "umem.h"

#define MM_ANONPAGES	1	/* rss_stat member */

/* @o is freed: the live counter of its owner that @map feeds goes down. */
static void owner_frees(struct umem_state *st, struct kmt_objmap *map, const struct umem_kobj *o)
{
	struct umem_proc *owner = &st->procs[o->proc];
	uint64_t *live = map == &st->kslab ? &owner->kslab_live : &owner->kpages_live;

	*live -= o->bytes < *live ? o->bytes : *live;
}

static void kernel_free(struct umem_state *st, struct kmt_objmap *map, uint64_t key)
{
	struct umem_kobj o;

	if (umem_kobj_take(map, key, &o))
		owner_frees(st, map, &o);
}

static int kernel_alloc(struct umem_state *st, struct kmt_objmap *map, uint64_t key,
			uint64_t bytes, struct umem_proc *p, uint64_t *live)
{
	bool was_live;
	struct umem_kobj *slot = umem_kobj_cell(map, key, &was_live);

	if (!slot)
		return -1;
	if (was_live)
		owner_frees(st, map, slot);	/* its free was not seen */
	*slot = (struct umem_kobj){ bytes, (uint32_t)(p - st->procs) };
	*live += bytes;
	return 0;
}

int kmt_umem_kernel_event(struct umem_state *st, struct umem_proc *p,
			  const struct kmt_event *ev)
{
	switch (ev->type) {
	case KMT_EV_RSS_STAT:
		if (ev->curr && ev->member == MM_ANONPAGES && ev->size >= 0) {
			p->anon_rss = ev->size;
			p->have_rss = true;
			if (p->anon_rss > p->anon_rss_peak)
				p->anon_rss_peak = p->anon_rss;
		}
		return 0;
	case KMT_EV_KMALLOC:
	case KMT_EV_KMALLOC_NODE:
	case KMT_EV_CACHE_ALLOC:
	case KMT_EV_CACHE_ALLOC_NODE:
		if (kmt_event_alloc_failed(ev))
			return 0;
		return kernel_alloc(st, &st->kslab, ev->ptr, ev->bytes_alloc, p, &p->kslab_live);
	case KMT_EV_PAGE_ALLOC:
		if (kmt_event_alloc_failed(ev))
			return 0;
		return kernel_alloc(st, &st->kpages, ev->pfn,
				    st->page_size << (ev->order < 32 ? ev->order : 0), p,
				    &p->kpages_live);
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		if (!kmt_event_frees_nothing(ev))
			kernel_free(st, &st->kslab, ev->ptr);
		return 0;
	case KMT_EV_PAGE_FREE:
	case KMT_EV_PAGE_FREE_BATCHED:
		kernel_free(st, &st->kpages, ev->pfn);
		return 0;
	default:
		return 0;
	}
}
