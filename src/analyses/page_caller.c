// SPDX-License-Identifier: LGPL-2.1
/*
 * page --caller: the function that asked for the pages is the first frame
 * of the allocation's call stack (record -g, perf record -g) outside the
 * allocator (stacks.c says which frames are the allocator's). Each
 * caller ip's row is cached. page --stack: a row per distinct stack.
 */
#include <string.h>

#include <kmtrace/reader.h>
#include "page.h"
#include "common/util.h"

/* The row of function @fn (its start, or the raw ip when @unnamed), made if new; PAGE_NO_CALLER when out of memory. */
static uint32_t caller_row(struct page_state *st, uint64_t fn, bool unnamed)
{
	uint64_t idx;

	if (kmt_hashmap_get(&st->caller_index, fn, &idx))
		return idx;
	if (kmt_grow(&st->callers, &st->cap_callers, st->ncallers, sizeof(*st->callers)) ||
	    kmt_hashmap_put(&st->caller_index, fn, st->ncallers))
		return PAGE_NO_CALLER;
	st->callers[st->ncallers] = (struct page_caller){ .start = fn, .unnamed = unnamed };
	return st->ncallers++;
}

/*
 * The caller row of frame @ip (@unnamed: without a symbol) into *@row,
 * cached as row + 1. 0, or -1 when out of memory.
 */
static int frame_row(struct page_state *st, uint64_t ip, bool unnamed, uint32_t *row)
{
	unsigned long long start;
	const char *mod;
	uint64_t v;

	if (kmt_hashmap_get(&st->frame_cache, ip, &v)) {
		*row = (uint32_t)(v - 1);
		return 0;
	}
	if (unnamed || !kmt_session_function(st->session, ip, &start, &mod))
		start = ip;
	*row = caller_row(st, start, unnamed);
	if (*row == PAGE_NO_CALLER)
		return -1;
	return kmt_hashmap_put(&st->frame_cache, ip, (uint64_t)*row + 1);
}

int kmt_page_caller_of(struct page_state *st, const struct kmt_event *ev, uint32_t *row)
{
	bool unnamed;
	int i = kmt_stacks_first_caller(&st->stacks, ev->callchain, ev->callchain_nr, &unnamed);

	*row = PAGE_NO_CALLER;
	if (i == ev->callchain_nr) {
		st->no_stack++;
		return 0;
	}
	if (frame_row(st, ev->callchain[i], unnamed, row))
		return -1;
	st->with_caller++;
	/* no name, no telling an allocator frame from the caller */
	st->caller_unresolved += st->callers[*row].unnamed;
	return 0;
}

int kmt_page_stack_of(struct page_state *st, const struct kmt_event *ev, uint32_t *row)
{
	uint32_t id;
	uint64_t known;

	*row = PAGE_NO_CALLER;
	if (kmt_stacks_intern(&st->stacks, ev->callchain, ev->callchain_nr, &id))
		return -1;
	if (kmt_hashmap_get(&st->stack_index, id, &known)) {
		*row = known;
		return 0;
	}
	if (kmt_grow(&st->stack_rows, &st->cap_stack_rows, st->nstack_rows,
		     sizeof(*st->stack_rows)) ||
	    kmt_hashmap_put(&st->stack_index, id, st->nstack_rows))
		return -1;
	st->stack_rows[st->nstack_rows] = (struct page_caller){ .start = id };
	*row = st->nstack_rows++;
	return 0;
}
