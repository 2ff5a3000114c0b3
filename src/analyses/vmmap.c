// SPDX-License-Identifier: LGPL-2.1
/*
 * Per-task address spaces from the mmap/munmap/mremap/brk syscall events.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util.h"
#include "vmmap.h"

#define PAGE_MASK_4K	4095ull

static uint64_t page_round(uint64_t len)
{
	return (len + PAGE_MASK_4K) & ~PAGE_MASK_4K;
}

/* A syscall return value that is an error (-4095..-1). */
static bool is_error(long long ret)
{
	return ret < 0 && ret >= -4095;
}

int vmmap_init(struct vmmap *m)
{
	memset(m, 0, sizeof(*m));
	return kmt_hashmap_init(&m->index);
}

void vmmap_free(struct vmmap *m)
{
	uint32_t i;

	for (i = 0; i < m->ntasks; i++)
		free(m->tasks[i].regions);
	free(m->tasks);
	kmt_hashmap_free(&m->index);
	memset(m, 0, sizeof(*m));
}

static struct vm_task *task_get(struct vmmap *m, int pid, bool create, bool *nomem)
{
	uint64_t idx;
	struct vm_task *t;

	if (kmt_hashmap_get(&m->index, (uint64_t)pid, &idx))
		return &m->tasks[idx - 1];
	if (!create)
		return NULL;
	if (kmt_grow(&m->tasks, &m->cap, m->ntasks, sizeof(*m->tasks)) ||
	    kmt_hashmap_put(&m->index, (uint64_t)pid, m->ntasks + 1)) {
		*nomem = true;
		return NULL;
	}
	t = &m->tasks[m->ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	return t;
}

static int insert_at(struct vm_task *t, uint32_t pos, const struct vm_region *r)
{
	if (kmt_grow(&t->regions, &t->cap, t->nregions, sizeof(*t->regions)))
		return -1;
	memmove(&t->regions[pos + 1], &t->regions[pos], (t->nregions - pos) * sizeof(*r));
	t->regions[pos] = *r;
	t->nregions++;
	return 0;
}

/* Index of the first region ending after @addr. */
static uint32_t first_after(const struct vm_task *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->nregions;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (t->regions[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Unmap [@start, @end) from the known regions; the bytes removed, or -1. */
static int64_t remove_range(struct vm_task *t, uint64_t start, uint64_t end)
{
	uint32_t i = first_after(t, start);
	int64_t removed = 0;

	while (i < t->nregions && t->regions[i].start < end) {
		struct vm_region *r = &t->regions[i];
		uint64_t lo = r->start > start ? r->start : start;
		uint64_t hi = r->end < end ? r->end : end;

		removed += hi - lo;
		if (r->start < start && r->end > end) {	/* a hole in the middle */
			struct vm_region tail = *r;

			tail.start = end;
			r->end = start;
			return insert_at(t, i + 1, &tail) ? -1 : removed;
		}
		if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->start = end;
			i++;
		} else {
			memmove(r, r + 1, (t->nregions - i - 1) * sizeof(*r));
			t->nregions--;
		}
	}
	return removed;
}

static void account(struct vm_task *t, int64_t delta, uint64_t ts)
{
	if (delta > 0)
		t->mapped_bytes += delta;
	else
		t->unmapped_bytes += -delta;
	t->net += delta;
	if (t->net > t->peak) {
		t->peak = t->net;
		t->peak_ts = ts;
	}
	if (t->net < t->low)
		t->low = t->net;
}

/* Replace whatever was at @r's range by @r; 0 or -1. */
static int map_region(struct vm_task *t, const struct vm_region *r, uint64_t ts)
{
	int64_t removed = remove_range(t, r->start, r->end);

	if (removed < 0 || insert_at(t, first_after(t, r->start), r))
		return -1;
	account(t, (int64_t)(r->end - r->start) - removed, ts);
	return 0;
}

static enum vm_kind mmap_kind(unsigned long long flags)
{
	if (flags & (MAP_STACK | MAP_GROWSDOWN))
		return VM_STACK;
	if (!(flags & MAP_ANONYMOUS))
		return VM_FILE;
	return (flags & MAP_TYPE) == MAP_SHARED ? VM_SHARED : VM_ANON;
}

static int mmap_done(struct vm_task *t, const struct kmt_event *ev)
{
	struct vm_region r = {
		.start = (uint64_t)ev->ret,
		.end = (uint64_t)ev->ret + page_round(t->arg[1]),
		.kind = mmap_kind(t->arg[3]),
		.prot = (unsigned int)t->arg[2],
		.user = -1,
	};

	r.fd = r.kind == VM_FILE ? (int)t->arg[4] : -1;
	t->mmaps++;
	return map_region(t, &r, ev->ts);
}

static int munmap_done(struct vm_task *t, const struct kmt_event *ev)
{
	int64_t removed = remove_range(t, t->arg[0], t->arg[0] + page_round(t->arg[1]));

	if (removed < 0)
		return -1;
	t->munmaps++;
	account(t, -removed, ev->ts);
	return 0;
}

/* The old range moves (or grows) to the returned address, keeping its kind. */
static int mremap_done(struct vm_task *t, const struct kmt_event *ev)
{
	uint32_t i = first_after(t, t->arg[0]);
	struct vm_region r;
	int64_t removed;

	t->mremaps++;
	if (i == t->nregions || t->regions[i].start > t->arg[0])
		return 0;	/* mapped before the trace: size unknown */
	r = t->regions[i];
	removed = remove_range(t, t->arg[0], t->arg[0] + page_round(t->arg[1]));
	if (removed < 0)
		return -1;
	account(t, -removed, ev->ts);
	r.start = (uint64_t)ev->ret;
	r.end = r.start + page_round(t->arg[2]);
	return map_region(t, &r, ev->ts);
}

static void brk_done(struct vm_task *t, const struct kmt_event *ev)
{
	uint64_t brk = (uint64_t)ev->ret;

	t->brks++;
	if (t->heap.start == t->heap.end && !t->heap.start) {
		t->heap = (struct vm_region){ brk, brk, VM_HEAP, -1, PROT_READ | PROT_WRITE, -1 };
		return;
	}
	account(t, (int64_t)(brk - t->heap.end), ev->ts);
	t->heap.end = brk;
}

static int syscall_exit(struct vm_task *t, const struct kmt_event *ev)
{
	enum kmt_event_type entered = t->pending;

	t->pending = KMT_EV_UNKNOWN;
	/* Each *_EXIT type directly follows its *_ENTER in enum kmt_event_type. */
	if (entered != ev->type - 1 || is_error(ev->ret))
		return 0;
	switch (ev->type) {
	case KMT_EV_MMAP_EXIT:
		return mmap_done(t, ev);
	case KMT_EV_MUNMAP_EXIT:
		return munmap_done(t, ev);
	case KMT_EV_MREMAP_EXIT:
		return mremap_done(t, ev);
	case KMT_EV_BRK_EXIT:
		brk_done(t, ev);
		return 0;
	default:
		return 0;
	}
}

/* The child starts with a copy of the parent's address space. */
static struct vm_task *fork_task(struct vmmap *m, const struct kmt_event *ev, bool *nomem)
{
	struct vm_task *parent = task_get(m, ev->pid, false, nomem), *child;
	uint32_t pidx;

	if (!parent)
		return NULL;
	pidx = parent - m->tasks;
	child = task_get(m, (int)ev->target_pid, true, nomem);
	if (!child)
		return NULL;
	parent = &m->tasks[pidx];	/* the array may have moved */
	free(child->regions);
	child->regions = NULL;
	child->nregions = child->cap = 0;
	if (parent->nregions) {
		child->regions = malloc(parent->nregions * sizeof(*child->regions));
		if (!child->regions) {
			*nomem = true;
			return NULL;
		}
		memcpy(child->regions, parent->regions, parent->nregions * sizeof(*child->regions));
		child->nregions = child->cap = parent->nregions;
	}
	child->heap = parent->heap;
	for (pidx = 0; pidx < child->nregions; pidx++)
		child->regions[pidx].user = -1;	/* the child's faults are its own */
	child->heap.user = -1;
	return child;
}

struct vm_task *vmmap_event(struct vmmap *m, const struct kmt_event *ev, bool *nomem)
{
	struct vm_task *t;

	if (ev->type == KMT_EV_FORK)
		return fork_task(m, ev, nomem);
	t = task_get(m, ev->pid, true, nomem);
	if (!t)
		return NULL;
	switch (ev->type) {
	case KMT_EV_EXEC:	/* a new address space */
		t->nregions = 0;
		memset(&t->heap, 0, sizeof(t->heap));
		t->pending = KMT_EV_UNKNOWN;
		return t;
	case KMT_EV_MMAP_ENTER:
	case KMT_EV_MUNMAP_ENTER:
	case KMT_EV_MREMAP_ENTER:
	case KMT_EV_BRK_ENTER:
		t->pending = ev->type;
		memcpy(t->arg, ev->arg, sizeof(t->arg));
		return t;
	case KMT_EV_MMAP_EXIT:
	case KMT_EV_MUNMAP_EXIT:
	case KMT_EV_MREMAP_EXIT:
	case KMT_EV_BRK_EXIT:
		if (syscall_exit(t, ev))
			*nomem = true;
		return t;
	default:
		return NULL;
	}
}

struct vm_task *vmmap_task(struct vmmap *m, int pid)
{
	bool nomem = false;

	return task_get(m, pid, false, &nomem);
}

struct vm_region *vmmap_find(struct vmmap *m, int pid, uint64_t addr)
{
	struct vm_task *t = vmmap_task(m, pid);
	uint32_t i;

	if (!t)
		return NULL;
	if (addr >= t->heap.start && addr < t->heap.end)
		return &t->heap;
	i = first_after(t, addr);
	return i < t->nregions && t->regions[i].start <= addr ? &t->regions[i] : NULL;
}

const char *vmmap_kind_name(enum vm_kind kind)
{
	static const char *const names[VM_KIND_NR] = { "anon", "shared", "file", "stack",
						       "heap" };

	return kind < VM_KIND_NR ? names[kind] : "?";
}
