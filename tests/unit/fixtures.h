/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Test fixtures: format texts as a 64-bit x86 kernel shows them, and a
 * builder of ring-buffer sub-buffers with hand-made events.
 */
#ifndef KMT_TEST_FIXTURES_H
#define KMT_TEST_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container/tracedat.h"

#define FIX_PAGE_SIZE	4096

/* The common fields of a format, as every kernel lays them out. */
#define FIX_COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

extern const char fix_header_page[];
extern const char fix_header_event[];
extern const char fix_fmt_kmalloc[];		/* id 658 */
extern const char fix_fmt_cache_alloc[];	/* id 660, __data_loc name */
extern const char fix_fmt_page_alloc[];		/* id 664, pfn */
extern const char fix_fmt_page_alloc_old[];	/* id 664, page (old kernels) */
extern const char fix_fmt_fault_user[];		/* id 120 */
extern const char fix_fmt_other[];		/* id 900, an event kmtrace does not know */
extern const char fix_fmt_fault_return[];	/* id 2000, kmtrace:fault_return kretprobe */

struct tep_event;

/* Set field @name of @e in payload @buf to @v (little-endian); false if no such field. */
bool fix_set_field(void *buf, const struct tep_event *e, const char *name, unsigned long long v);

/* One sub-buffer being filled. */
struct fix_page {
	unsigned char data[FIX_PAGE_SIZE];
	size_t used;			/* bytes of events after the 16-byte header */
	unsigned long long last_ts;
};

/* Start a sub-buffer whose first event may be at @ts. */
void fix_page_init(struct fix_page *p, unsigned long long ts);

/* Append an event of @len payload bytes at absolute time @ts. */
void fix_page_add(struct fix_page *p, unsigned long long ts, const void *payload, size_t len);

/* Mark the sub-buffer as preceded by @missed lost events (count stored). */
void fix_page_set_missed(struct fix_page *p, unsigned long long missed);

/* A kmalloc payload (layout of fix_fmt_kmalloc). */
size_t fix_kmalloc(void *buf, int pid, uint64_t call_site, uint64_t ptr, uint64_t req,
		   uint64_t alloc, int node);

/* A payload with common_type @id and common_pid @pid, @len bytes. */
void fix_common(void *buf, int id, int pid, size_t len);

/* Fill @m with the fixture headers and formats (kmalloc, cache alloc, page alloc, other). */
void fix_meta(struct kmt_tracedat_meta *m, const struct kmt_td_option *opts, int nopts);

/* Order two uint64_t for qsort(). */
int fix_cmp_u64(const void *a, const void *b);

/* Write a trace.dat with @ncpus CPUs of @npages[cpu] pages each to a new temp file. */
char *fix_write_tracedat(const struct kmt_tracedat_meta *m, int ncpus,
			 struct fix_page *const *pages, const int *npages);

#endif
