// SPDX-License-Identifier: LGPL-2.1
/*
 * The kmalloc cache of an allocation as /proc/slabinfo names it: the
 * kernel picks dma-kmalloc-N for __GFP_DMA, kmalloc-rcl-N for
 * __GFP_RECLAIMABLE, kmalloc-cg-N for __GFP_ACCOUNT (memcg-charged), in
 * that order, and names sizes of 1k and up in k. Larger than two pages
 * comes from the page allocator. The flags' values are those the event's
 * format prints.
 */
#include <stdio.h>
#include <traceevent/event-parse.h>

#include "cachename.h"
#include "common/mmnames.h"

void kmt_cache_namer_init(struct kmt_cache_namer *n, struct tep_handle *tep)
{
	struct tep_event *ev = tep ? tep_find_event_by_name(tep, "kmem", "kmalloc") : NULL;
	struct kmt_gfp_names *g = ev ? kmt_gfp_names_new(ev) : NULL;

	n->gfp_dma = kmt_gfp_names_value(g, "__GFP_DMA");
	n->gfp_reclaimable = kmt_gfp_names_value(g, "__GFP_RECLAIMABLE");
	n->gfp_account = kmt_gfp_names_value(g, "__GFP_ACCOUNT");
	n->page_size = tep ? tep_get_page_size(tep) : 0;
	kmt_gfp_names_free(g);
}

bool kmt_event_is_kmalloc(const struct kmt_event *ev)
{
	return ev->type == KMT_EV_KMALLOC || ev->type == KMT_EV_KMALLOC_NODE ||
	       ev->type == KMT_EV_KFREE;
}

int kmt_kmalloc_kind(const struct kmt_cache_namer *n, const struct kmt_event *ev)
{
	unsigned long long gfp = ev->gfp_flags;

	return gfp & n->gfp_dma ? 3 : gfp & n->gfp_reclaimable ? 2 :
	       gfp & n->gfp_account ? 1 : 0;
}

int kmt_cache_name(const struct kmt_cache_namer *n, const struct kmt_event *ev, char *buf,
		   size_t len)
{
	static const char *const kinds[] = { "kmalloc", "kmalloc-cg", "kmalloc-rcl",
					     "dma-kmalloc" };
	unsigned long long bytes = ev->bytes_alloc;
	const char *kind;

	if (!kmt_event_is_kmalloc(ev)) {
		if (ev->str_len)
			return snprintf(buf, len, "%.*s", ev->str_len, ev->str);
		return snprintf(buf, len, "cache-%llu", bytes);
	}
	kind = kinds[kmt_kmalloc_kind(n, ev)];
	if (n->page_size > 0 && bytes > 2ull * (unsigned long long)n->page_size)
		return snprintf(buf, len, "%s-%lluk (page allocator)", kind, bytes / 1024);
	if (bytes >= 1024 && !(bytes % 1024))
		return snprintf(buf, len, "%s-%lluk", kind, bytes / 1024);
	return snprintf(buf, len, "%s-%llu", kind, bytes);
}
