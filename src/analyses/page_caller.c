// SPDX-License-Identifier: LGPL-2.1
/*
 * page --caller: the function that asked for the pages is the first frame
 * of the allocation's call stack (perf record -g) outside the page
 * allocator. perf kmem skips frames matching ^_?_?(alloc|get_free|
 * get_zeroed)_pages?, which misses __alloc_frozen_pages_noprof and the
 * folio entry points of current kernels; kmtrace skips every function
 * whose name, without leading underscores, starts with an allocator prefix
 * below. Each ip's verdict is cached.
 */
#include <string.h>

#include <kmtrace/reader.h>
#include "page.h"
#include "common/util.h"

/* perf's context markers (PERF_CONTEXT_KERNEL, ...) sit at the top of the u64 range. */
#define CONTEXT_MARKERS	((uint64_t)-4095)

static const char *const allocator_prefixes[] = {
	"alloc_pages", "alloc_frozen_pages", "alloc_page", "folio_alloc", "vma_alloc_folio",
	"get_free_page", "get_zeroed_page", "get_page_from_freelist", "rmqueue",
	"alloc_slab_page", "alloc_contig", "alloc_pages_bulk",
};

static bool is_allocator(const char *name)
{
	size_t i;

	while (*name == '_')
		name++;
	for (i = 0; i < sizeof(allocator_prefixes) / sizeof(*allocator_prefixes); i++)
		if (!strncmp(name, allocator_prefixes[i], strlen(allocator_prefixes[i])))
			return true;
	return false;
}

/* The function of @ip (its start, or @ip when unknown), 0 for an allocator frame. */
static uint64_t frame_function(struct page_state *st, uint64_t ip)
{
	unsigned long long start;
	const char *mod, *name;
	uint64_t fn;

	if (kmt_hashmap_get(&st->frame_cache, ip, &fn))
		return fn;
	name = kmt_reader_function(st->reader, ip, &start, &mod);
	fn = !name ? ip : is_allocator(name) ? 0 : start;
	if (kmt_hashmap_put(&st->frame_cache, ip, fn))
		st->failed = true;
	return fn;
}

static uint32_t caller_row(struct page_state *st, uint64_t fn)
{
	uint64_t idx;

	if (kmt_hashmap_get(&st->caller_index, fn, &idx))
		return idx;
	if (kmt_grow(&st->callers, &st->cap_callers, st->ncallers, sizeof(*st->callers)) ||
	    kmt_hashmap_put(&st->caller_index, fn, st->ncallers)) {
		st->failed = true;
		return PAGE_NO_CALLER;
	}
	st->callers[st->ncallers] = (struct page_caller){ .start = fn };
	return st->ncallers++;
}

uint32_t kmt_page_caller_of(struct page_state *st, const struct kmt_event *ev)
{
	int i;

	for (i = 0; i < ev->callchain_nr; i++) {
		uint64_t ip = ev->callchain[i], fn;

		if (ip >= CONTEXT_MARKERS || !(fn = frame_function(st, ip)))
			continue;
		/* no name, no telling an allocator frame from the caller */
		if (fn == ip && !kmt_reader_function(st->reader, ip, NULL, NULL))
			st->caller_unresolved++;
		st->with_caller++;
		return caller_row(st, fn);
	}
	st->no_stack++;
	return PAGE_NO_CALLER;
}
