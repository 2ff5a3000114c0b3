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

/* The row of function @fn (its start, or the raw ip when @unnamed), made if new. */
static uint32_t caller_row(struct page_state *st, uint64_t fn, bool unnamed)
{
	uint64_t idx;

	if (kmt_hashmap_get(&st->caller_index, fn, &idx))
		return idx;
	if (kmt_grow(&st->callers, &st->cap_callers, st->ncallers, sizeof(*st->callers)) ||
	    kmt_hashmap_put(&st->caller_index, fn, st->ncallers)) {
		st->failed = true;
		return PAGE_NO_CALLER;
	}
	st->callers[st->ncallers] = (struct page_caller){ .start = fn, .unnamed = unnamed };
	return st->ncallers++;
}

/*
 * The caller row frame @ip stands for, PAGE_NO_CALLER with *@allocator
 * set for a frame of the page allocator itself (or when out of memory).
 * Each ip's verdict is cached as row + 1, 0 for the allocator.
 */
static uint32_t frame_row(struct page_state *st, uint64_t ip, bool *allocator)
{
	unsigned long long start;
	const char *mod, *name;
	uint64_t v;
	uint32_t row;

	*allocator = false;
	if (kmt_hashmap_get(&st->frame_cache, ip, &v)) {
		*allocator = !v;
		return v ? (uint32_t)(v - 1) : PAGE_NO_CALLER;
	}
	name = kmt_reader_function(st->reader, ip, &start, &mod);
	*allocator = name && is_allocator(name);
	row = *allocator ? PAGE_NO_CALLER : caller_row(st, name ? start : ip, !name);
	if (row == PAGE_NO_CALLER && !*allocator)
		return row;			/* out of memory: said by caller_row() */
	if (kmt_hashmap_put(&st->frame_cache, ip, *allocator ? 0 : (uint64_t)row + 1))
		st->failed = true;
	return row;
}

uint32_t kmt_page_caller_of(struct page_state *st, const struct kmt_event *ev)
{
	int i;

	for (i = 0; i < ev->callchain_nr; i++) {
		uint64_t ip = ev->callchain[i];
		bool allocator;
		uint32_t row;

		if (ip >= CONTEXT_MARKERS)
			continue;
		row = frame_row(st, ip, &allocator);
		if (allocator)
			continue;
		if (row != PAGE_NO_CALLER) {
			st->with_caller++;
			/* no name, no telling an allocator frame from the caller */
			st->caller_unresolved += st->callers[row].unnamed;
		}
		return row;
	}
	st->no_stack++;
	return PAGE_NO_CALLER;
}
