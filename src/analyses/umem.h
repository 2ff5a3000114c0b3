/* SPDX-License-Identifier: LGPL-2.1 */
/* umem's state, shared by its event side (umem.c) and its report (umem_report.c). */
#ifndef KMT_UMEM_H
#define KMT_UMEM_H

#include <stdbool.h>
#include <stdint.h>
#include <kmtrace/analysis.h>
#include <kmtrace/output.h>

#include "filter.h"
#include "common/hashmap.h"
#include "common/objmap.h"

#define UMEM_DEPTH	8	/* allocator calls open at once in one thread */

/* An allocator call of a thread waiting for its return. */
struct umem_frame {
	uint64_t a[3], caller, ts;
	uint8_t func;
	bool nested;		/* inside another allocator call: not counted */
};

struct umem_thread {
	int tgid;
	uint32_t proc;		/* its process's row in procs, UINT32_MAX until found */
	int depth;
	struct umem_frame *f;	/* UMEM_DEPTH of them, made at its first allocator call */
};

struct umem_proc {
	int tgid;
	uint64_t calls[KMT_UF_NR];
	uint64_t requested, failed, untracked_frees;
	uint64_t requested_at_tick;	/* --timeline: requested at the last interval's end */
	uint64_t live_bytes, live_objs, peak_bytes, peak_ts;
	bool user;			/* made allocator calls (the others: kernel only) */
	bool have_rss;
	uint64_t anon_rss, anon_rss_peak;	/* rss_stat MM_ANONPAGES of its own mm */
	uint64_t kslab_live, kpages_live;	/* kernel memory allocated in it, live */
	bool sampled;			/* records of sampling above 1 byte */
	bool whole;			/* the library's exact counts came, whole (at exit()) */
	bool image_lost;		/* ... not: it exec'd after allocating */
	uint64_t site_calls[KMT_UF_NR];	/* ... calls per function */
	uint64_t site_bytes;		/* ... bytes asked for */
	uint64_t apart_calls;		/* ... allocations no call site was kept for */
};

struct umem_caller {
	int tgid;
	uint64_t addr;
	uint64_t calls, bytes, failed, live_bytes, live_objs;
	double carry;		/* sampled objects: what rounding their counts left over */
	uint64_t site_calls, site_bytes;	/* the library's exact counts of the site */
};

/*
 * A live object: its process and pointer, what it asked for, who and when;
 * a sample stands for @n objects of @size bytes in all (1 and its own size
 * when every call is seen).
 */
struct umem_obj {
	uint64_t ptr, size, ts, n;
	uint32_t caller;
	uint32_t stack;		/* stacks[], or UINT32_MAX: none */
	int tgid;
};

/* A user stack of sampled allocations (record --user-sample) and what it allocated. */
struct umem_stack {
	int tgid;
	uint32_t nframes;
	uint32_t caller;	/* callers[]: of its innermost frame */
	uint64_t *frames;	/* innermost first */
	uint64_t calls, bytes, live_bytes, live_objs;
};

/* Kernel memory (a slab object, a page block) and the process it was allocated in. */
struct umem_kobj {
	uint64_t bytes;
	uint32_t proc;		/* procs[]: rows stay where they are made */
};

/* --timeline: a process's heap, RSS and kernel memory when an interval ended. */
struct umem_point {
	uint64_t ts, live, anon_rss, kslab, kpages;
	uint64_t asked;		/* bytes asked for in the interval */
	int tgid;
};

struct umem_state {
	struct kmt_filter filter;
	struct kmt_reader *reader;
	const struct kmt_session *session;	/* names of addresses */
	struct kmt_hashmap thread_of, proc_of, caller_of;	/* -> index */
	struct umem_thread *threads;
	struct umem_proc *procs;
	struct umem_caller *callers;
	uint32_t nthreads, cap_threads, nprocs, cap_procs, ncallers, cap_callers;
	struct kmt_hashmap stack_of;	/* hash of process and frames -> index */
	struct umem_stack *stacks;
	uint32_t nstacks, cap_stacks;
	uint64_t samples, unfollowed;	/* --user-sample records; objects whose free is not seen */
	uint64_t interval;		/* their mean bytes between samples (the largest seen) */
	struct kmt_objmap objs;
	struct kmt_objmap kslab, kpages;	/* by pointer, by pfn */
	uint64_t page_size;
	uint64_t unmatched_returns, nested, too_deep, unknown_pointers;
	uint64_t last_ts;
	uint64_t timeline_ns, next_tick;
	struct umem_point *points;
	uint32_t npoints, cap_points;
	int lines;
};

KMT_OBJMAP_TYPED(umem_obj, struct umem_obj)
KMT_OBJMAP_TYPED(umem_kobj, struct umem_kobj)

/* Events of the kernel side: anonymous RSS, slab and pages per process. */
#define UMEM_KERNEL_EVENTS \
	(KMT_EVMASK(KMT_EV_RSS_STAT) | KMT_EVMASK_SLAB_ALLOCS | KMT_EVMASK_SLAB_FREES | \
	 KMT_EVMASK(KMT_EV_PAGE_ALLOC) | KMT_EVMASK(KMT_EV_PAGE_FREE) | \
	 KMT_EVMASK(KMT_EV_PAGE_FREE_BATCHED))

/*
 * A kernel event @ev of process @p (umem_kernel.c): its anonymous RSS, or
 * slab and page memory allocated in it or freed. 0, or -1 out of memory.
 */
int kmt_umem_kernel_event(struct umem_state *st, struct umem_proc *p,
			  const struct kmt_event *ev);

/*
 * The row of the stack of sampled allocation @ev of process @tgid, made
 * when new (umem_stacks.c); UINT32_MAX when out of memory.
 */
uint32_t kmt_umem_stack_row(struct umem_state *st, int tgid, const struct kmt_event *ev);

/* The table of stacks, when there are any (umem_stacks.c). */
int kmt_umem_stack_table(const struct umem_state *st, struct kmt_output *out);

/* Free the stacks of @st. */
void kmt_umem_stacks_free(struct umem_state *st);

/*
 * Where a process's exact counts came whole (record --user-sample), put
 * them in place of the sampled estimates: calls per function and bytes
 * asked for, per process and per caller; each stack scaled to its caller's
 * (umem.c). Live figures stay sampled. Doing it twice changes nothing.
 */
void kmt_umem_exact_counts(struct umem_state *st);

/* The report of @st (umem_report.c). */
int kmt_umem_report(struct umem_state *st, struct kmt_output *out);

#endif /* KMT_UMEM_H */
