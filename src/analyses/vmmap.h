/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The address space of each task as the trace shows it: regions from
 * mmap/munmap/mremap (entry arguments, exit return value), the heap from
 * brk, inherited at fork and cleared at exec. Shared by `fault --regions`
 * and `vm`. What was mapped before the trace started is not known.
 *
 * A child shares its parent's regions until one of them changes its map
 * (most children exec first), and the copies made then are bounded by the
 * number of events followed: past that, a child starts with no inherited
 * region and is counted, so memory follows the events, not what forks of
 * a large map would copy.
 */
#ifndef KMT_VMMAP_H
#define KMT_VMMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <kmtrace/event.h>
#include "common/hashmap.h"

enum vm_kind {
	VM_ANON,	/* private anonymous */
	VM_SHARED,	/* shared anonymous */
	VM_FILE,	/* file-backed */
	VM_STACK,	/* MAP_STACK or MAP_GROWSDOWN */
	VM_HEAP,	/* between the first break seen and the current one */
	VM_KIND_NR
};

struct vm_region {
	uint64_t start, end;
	enum vm_kind kind;
	int fd;			/* VM_FILE */
	unsigned int prot;
};

/* Regions sorted by start, not overlapping; shared by tasks until one changes them. */
struct vm_regions {
	uint32_t refs;
	uint32_t n, cap;
	struct vm_region r[];
};

struct vm_task {
	int pid;
	uint32_t seq;			/* order of making, from 1; 0: a slot given back */
	bool exited;			/* its sched_process_exit was seen */
	struct vm_regions *regions;	/* NULL: none */
	struct vm_region heap;		/* start == end until a brk was seen */
	enum kmt_event_type pending;	/* syscall entered, waiting for its exit */
	uint64_t arg[6];
	uint64_t mmaps, munmaps, mremaps, brks;
	uint64_t mapped_bytes, unmapped_bytes;	/* through the syscalls seen */
	int64_t net, peak, low;		/* mapped minus unmapped, its extremes */
	uint64_t peak_ts;
};

struct vmmap {
	struct kmt_hashmap index;	/* pid -> task + 1 */
	struct vm_task *tasks;
	uint32_t ntasks, cap;		/* slots, given-back ones included */
	uint32_t made;			/* tasks made (the last one's seq) */
	uint32_t *spare;		/* slots given back, for new tasks */
	uint32_t nspare, spare_cap;
	uint64_t events;		/* followed so far */
	uint64_t copied;		/* regions copied from a shared set */
	uint64_t not_inherited;		/* children left without their parent's regions */
};

/* The events a vmmap follows. */
#define VMMAP_EVENTS \
	(KMT_EVMASK(KMT_EV_MMAP_ENTER) | KMT_EVMASK(KMT_EV_MMAP_EXIT) | \
	 KMT_EVMASK(KMT_EV_MUNMAP_ENTER) | KMT_EVMASK(KMT_EV_MUNMAP_EXIT) | \
	 KMT_EVMASK(KMT_EV_MREMAP_ENTER) | KMT_EVMASK(KMT_EV_MREMAP_EXIT) | \
	 KMT_EVMASK(KMT_EV_BRK_ENTER) | KMT_EVMASK(KMT_EV_BRK_EXIT) | \
	 KMT_EVMASK(KMT_EV_FORK) | KMT_EVMASK(KMT_EV_EXEC))

/*
 * Task @pid exited (sched_process_exit: it makes no more system calls):
 * its regions are given back, its counts stay.
 */
void kmt_vmmap_exit(struct vmmap *m, int pid);

/*
 * The task in slot @idx stops taking the events of its pid (it exited; a
 * later task of the pid gets a slot of its own); its counts stay.
 */
void kmt_vmmap_forget(struct vmmap *m, uint32_t idx);

/* Slot @idx is no longer needed: it goes to a new task. 0, or -1 when out of memory. */
int kmt_vmmap_give_back(struct vmmap *m, uint32_t idx);

/* An empty map. 0, or -1 when out of memory. */
int kmt_vmmap_init(struct vmmap *m);

/* Free what @m holds. */
void kmt_vmmap_free(struct vmmap *m);

/*
 * Follow @ev (other types only make the task known). *@task is the task it
 * changed, NULL when none. 0, or -1 when out of memory.
 */
int kmt_vmmap_event(struct vmmap *m, const struct kmt_event *ev, struct vm_task **task);

/* The task @pid, or NULL if no event of it was followed. */
struct vm_task *kmt_vmmap_task(struct vmmap *m, int pid);

/* The region of @pid holding @addr (the heap included), or NULL. */
const struct vm_region *kmt_vmmap_find(struct vmmap *m, int pid, uint64_t addr);

/* Number of regions of @t (the heap not counted). */
static inline uint32_t vmmap_nregions(const struct vm_task *t)
{
	return t->regions ? t->regions->n : 0;
}

/* "anon", "shared", "file", "stack" or "heap". */
const char *kmt_vmmap_kind_name(enum vm_kind kind);

#endif /* KMT_VMMAP_H */
