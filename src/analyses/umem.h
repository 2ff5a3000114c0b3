/* SPDX-License-Identifier: LGPL-2.1 */
/* umem's state, shared by its event side (umem.c) and its report (umem_report.c). */
#ifndef KMT_UMEM_H
#define KMT_UMEM_H

#include <stdbool.h>
#include <stdint.h>
#include <kmtrace/analysis.h>

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
	int depth;
	struct umem_frame f[UMEM_DEPTH];
};

struct umem_proc {
	int tgid;
	uint64_t calls[KMT_UF_NR];
	uint64_t requested, failed, untracked_frees;
	uint64_t live_bytes, live_objs, peak_bytes, peak_ts;
};

struct umem_caller {
	int tgid;
	uint64_t addr;
	uint64_t calls, bytes, failed, live_bytes, live_objs;
};

/* A live object: its process and pointer, what it asked for, who and when. */
struct umem_obj {
	uint64_t ptr, size, ts;
	uint32_t caller;
	int tgid;
};

/* --timeline: a process's live heap when an interval ended. */
struct umem_point {
	uint64_t ts, live;
	int tgid;
};

struct umem_state {
	struct kmt_filter filter;
	struct kmt_reader *reader;
	struct tep_handle *tep;
	struct kmt_hashmap thread_of, proc_of, caller_of;	/* -> index */
	struct umem_thread *threads;
	struct umem_proc *procs;
	struct umem_caller *callers;
	uint32_t nthreads, cap_threads, nprocs, cap_procs, ncallers, cap_callers;
	struct kmt_objmap objs;
	uint64_t unmatched_returns, nested, too_deep, unknown_pointers;
	uint64_t first_ts, last_ts;
	uint64_t timeline_ns, next_tick;
	struct umem_point *points;
	uint32_t npoints, cap_points;
	int lines;
	bool nomem;
};

KMT_OBJMAP_TYPED(umem_obj, struct umem_obj)

/* The report of @st (umem_report.c). */
int kmt_umem_report(struct umem_state *st, struct kmt_output *out);

#endif /* KMT_UMEM_H */
