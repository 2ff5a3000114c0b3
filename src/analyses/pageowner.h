/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Pages allocated before the recording: the kernel's page_owner as kmtrace
 * record read it at the start (KMT_TEXT_PAGE_OWNER), followed through the
 * trace's page frees, for page --live and leak.
 */
#ifndef KMT_PAGEOWNER_H
#define KMT_PAGEOWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kmtrace/output.h>
#include "stacks.h"
#include "common/hashmap.h"
#include "common/objmap.h"

/* A distinct page_owner stack: its " FRAME\n" lines in the recording's text. */
struct kmt_owner_stack {
	const char *frames;
	size_t len;
};

/* A block page_owner listed, still held as far as the trace tells. */
struct kmt_owner_block {
	uint32_t stack;		/* stacks[] */
	uint8_t order;
};

struct kmt_page_owner {
	bool present;			/* the recording has a page_owner snapshot */
	struct kmt_objmap held;		/* pfn -> struct kmt_owner_block */
	struct kmt_owner_stack *stacks;
	uint32_t nstacks, cap_stacks;
	struct kmt_hashmap stack_ids;	/* "stack ID" -> stacks[] */
	uint64_t blocks, pages;		/* at the start */
	uint64_t freed_pages;		/* freed in the trace */
	uint64_t again_pages;		/* allocated in the trace before any free */
	uint64_t unparsed;		/* lines not understood */
};

/*
 * Read the compact page_owner @text of a recording (NULL: none) into @po.
 * 0, or -1 when out of memory.
 */
int kmt_page_owner_load(struct kmt_page_owner *po, const char *text);

/* The trace allocated @pfn: a block page_owner listed there is no longer held by it. */
void kmt_page_owner_alloc(struct kmt_page_owner *po, uint64_t pfn);

/* The trace freed the block at @pfn (mm_page_free): true when page_owner listed it. */
bool kmt_page_owner_free(struct kmt_page_owner *po, uint64_t pfn);

/*
 * The summary values: pages and blocks listed at the start; of them, those
 * the trace allocated before any free (page_owner was read after their
 * allocation, tracing already on; or their free was lost); the rest,
 * allocated before the recording; freed in the trace; still held.
 */
int kmt_page_owner_summary(const struct kmt_page_owner *po, struct kmt_output *out);

/*
 * Tables "@prefix" (the blocks still held, per stack, with the first
 * frame outside the allocator as caller, @s's prefixes telling) and
 * "@prefix_modules" (per caller's module), at most @lines rows each (-1: all).
 */
int kmt_page_owner_tables(const struct kmt_page_owner *po, const struct kmt_stacks *s,
			  const char *prefix, long long lines, struct kmt_output *out);

/* Free what @po holds. */
void kmt_page_owner_release(struct kmt_page_owner *po);

#endif /* KMT_PAGEOWNER_H */
