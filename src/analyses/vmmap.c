// SPDX-License-Identifier: LGPL-2.1
/*
 * Per-task address spaces from the mmap/munmap/mremap/brk syscall events.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/util.h"
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

/* Copies of shared regions allowed: this many per event followed, and a floor. */
#define COPIES_PER_EVENT	16
#define COPIES_FLOOR		(1u << 18)

int kmt_vmmap_init(struct vmmap *m)
{
	memset(m, 0, sizeof(*m));
	return kmt_hashmap_init(&m->index);
}

static void drop_regions(struct vm_task *t)
{
	if (t->regions && !--t->regions->refs)
		free(t->regions);
	t->regions = NULL;
}

void kmt_vmmap_free(struct vmmap *m)
{
	uint32_t i;

	for (i = 0; i < m->ntasks; i++)
		drop_regions(&m->tasks[i]);
	free(m->tasks);
	free(m->spare);
	kmt_hashmap_free(&m->index);
	memset(m, 0, sizeof(*m));
}

/* The task @pid into *@t (made if @create, else NULL when unknown). 0, or -1 when out of memory. */
static int task_get(struct vmmap *m, int pid, bool create, struct vm_task **t)
{
	uint64_t idx;

	*t = NULL;
	if (kmt_hashmap_get(&m->index, (uint64_t)pid, &idx)) {
		*t = &m->tasks[idx - 1];
		return 0;
	}
	if (!create)
		return 0;
	idx = m->nspare ? m->spare[m->nspare - 1] : m->ntasks;
	if ((idx == m->ntasks && kmt_grow(&m->tasks, &m->cap, m->ntasks, sizeof(*m->tasks))) ||
	    kmt_hashmap_put(&m->index, (uint64_t)pid, idx + 1))
		return -1;
	if (idx == m->ntasks)
		m->ntasks++;
	else
		m->nspare--;
	*t = &m->tasks[idx];
	memset(*t, 0, sizeof(**t));
	(*t)->pid = pid;
	(*t)->seq = ++m->made;
	return 0;
}

void kmt_vmmap_forget(struct vmmap *m, uint32_t idx)
{
	uint64_t cur;

	if (kmt_hashmap_get(&m->index, (uint64_t)m->tasks[idx].pid, &cur) && cur == idx + 1)
		kmt_hashmap_del(&m->index, (uint64_t)m->tasks[idx].pid, NULL);
}

int kmt_vmmap_give_back(struct vmmap *m, uint32_t idx)
{
	kmt_vmmap_forget(m, idx);
	drop_regions(&m->tasks[idx]);
	memset(&m->tasks[idx], 0, sizeof(m->tasks[idx]));
	if (kmt_grow(&m->spare, &m->spare_cap, m->nspare, sizeof(*m->spare)))
		return -1;
	m->spare[m->nspare++] = idx;
	return 0;
}

/*
 * A set of its own for @t with room for one more region: a shared one is
 * copied first, while the copies stay within what the events followed
 * allow; past that, @t goes on without the regions it inherited. 0 or -1.
 */
static int own_regions(struct vmmap *m, struct vm_task *t)
{
	struct vm_regions *cur = t->regions, *n;
	uint32_t used = cur ? cur->n : 0, cap = cur ? cur->cap : 0;

	if (cur && cur->refs > 1) {
		if (m->copied + used > COPIES_FLOOR + COPIES_PER_EVENT * m->events) {
			drop_regions(t);
			m->not_inherited++;
			cur = NULL;
			used = cap = 0;
		} else {
			m->copied += used;
		}
	}
	if (cur && cur->refs == 1 && used < cap)
		return 0;
	if (used == cap)
		cap = cap ? cap * 2 : 16;
	if (cur && cur->refs == 1) {
		n = realloc(cur, sizeof(*n) + cap * sizeof(n->r[0]));
		if (!n)
			return -1;
	} else {
		n = malloc(sizeof(*n) + cap * sizeof(n->r[0]));
		if (!n)
			return -1;
		n->n = used;
		if (used)
			memcpy(n->r, cur->r, used * sizeof(n->r[0]));
		if (cur)
			cur->refs--;
	}
	n->refs = 1;
	n->cap = cap;
	t->regions = n;
	return 0;
}

static int insert_at(struct vmmap *m, struct vm_task *t, uint32_t pos,
		     const struct vm_region *r)
{
	struct vm_regions *s;

	if (own_regions(m, t))
		return -1;
	s = t->regions;
	pos = pos < s->n ? pos : s->n;	/* the set may have been dropped */
	memmove(&s->r[pos + 1], &s->r[pos], (s->n - pos) * sizeof(*r));
	s->r[pos] = *r;
	s->n++;
	return 0;
}

/* Index of the first region ending after @addr. */
static uint32_t first_after(const struct vm_task *t, uint64_t addr)
{
	uint32_t lo = 0, hi = vmmap_nregions(t);

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (t->regions->r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Unmap [@start, @end) from the known regions; the bytes removed, or -1. */
static int64_t remove_range(struct vmmap *m, struct vm_task *t, uint64_t start, uint64_t end)
{
	uint32_t i = first_after(t, start);
	int64_t removed = 0;
	struct vm_regions *s;

	if (i == vmmap_nregions(t) || t->regions->r[i].start >= end)
		return 0;
	if (own_regions(m, t))
		return -1;
	s = t->regions;
	i = first_after(t, start);	/* the set may have been dropped */
	while (i < s->n && s->r[i].start < end) {
		struct vm_region *r = &s->r[i];
		uint64_t lo = r->start > start ? r->start : start;
		uint64_t hi = r->end < end ? r->end : end;

		removed += hi - lo;
		if (r->start < start && r->end > end) {	/* a hole in the middle */
			struct vm_region tail = *r;

			tail.start = end;
			r->end = start;
			return insert_at(m, t, i + 1, &tail) ? -1 : removed;
		}
		if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->start = end;
			i++;
		} else {
			memmove(r, r + 1, (s->n - i - 1) * sizeof(*r));
			s->n--;
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
static int map_region(struct vmmap *m, struct vm_task *t, const struct vm_region *r,
		      uint64_t ts)
{
	int64_t removed = remove_range(m, t, r->start, r->end);

	if (removed < 0 || insert_at(m, t, first_after(t, r->start), r))
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

static int mmap_done(struct vmmap *m, struct vm_task *t, const struct kmt_event *ev)
{
	struct vm_region r = {
		.start = (uint64_t)ev->ret,
		.end = (uint64_t)ev->ret + page_round(t->arg[1]),
		.kind = mmap_kind(t->arg[3]),
		.prot = (unsigned int)t->arg[2],
	};

	r.fd = r.kind == VM_FILE ? (int)t->arg[4] : -1;
	t->mmaps++;
	return map_region(m, t, &r, ev->ts);
}

static int munmap_done(struct vmmap *m, struct vm_task *t, const struct kmt_event *ev)
{
	int64_t removed = remove_range(m, t, t->arg[0], t->arg[0] + page_round(t->arg[1]));

	if (removed < 0)
		return -1;
	t->munmaps++;
	account(t, -removed, ev->ts);
	return 0;
}

/* The old range moves (or grows) to the returned address, keeping its kind. */
static int mremap_done(struct vmmap *m, struct vm_task *t, const struct kmt_event *ev)
{
	uint32_t i = first_after(t, t->arg[0]);
	struct vm_region r;
	int64_t removed;

	t->mremaps++;
	if (i == vmmap_nregions(t) || t->regions->r[i].start > t->arg[0])
		return 0;	/* mapped before the trace: size unknown */
	r = t->regions->r[i];
	removed = remove_range(m, t, t->arg[0], t->arg[0] + page_round(t->arg[1]));
	if (removed < 0)
		return -1;
	account(t, -removed, ev->ts);
	r.start = (uint64_t)ev->ret;
	r.end = r.start + page_round(t->arg[2]);
	return map_region(m, t, &r, ev->ts);
}

static void brk_done(struct vm_task *t, const struct kmt_event *ev)
{
	uint64_t brk = (uint64_t)ev->ret;

	t->brks++;
	if (t->heap.start == t->heap.end && !t->heap.start) {
		t->heap = (struct vm_region){ brk, brk, VM_HEAP, -1, PROT_READ | PROT_WRITE };
		return;
	}
	account(t, (int64_t)(brk - t->heap.end), ev->ts);
	t->heap.end = brk;
}

static int syscall_exit(struct vmmap *m, struct vm_task *t, const struct kmt_event *ev)
{
	enum kmt_event_type entered = t->pending;

	t->pending = KMT_EV_UNKNOWN;
	/* Each *_EXIT type directly follows its *_ENTER in enum kmt_event_type. */
	if (entered != ev->type - 1 || is_error(ev->ret))
		return 0;
	switch (ev->type) {
	case KMT_EV_MMAP_EXIT:
		return mmap_done(m, t, ev);
	case KMT_EV_MUNMAP_EXIT:
		return munmap_done(m, t, ev);
	case KMT_EV_MREMAP_EXIT:
		return mremap_done(m, t, ev);
	case KMT_EV_BRK_EXIT:
		brk_done(t, ev);
		return 0;
	default:
		return 0;
	}
}

/*
 * The child starts with the parent's address space, shared until one of
 * them changes it: into *@child (NULL when the parent is not followed).
 */
static int fork_task(struct vmmap *m, const struct kmt_event *ev, struct vm_task **child)
{
	struct vm_task *parent;
	uint32_t pidx;

	*child = NULL;
	task_get(m, ev->pid, false, &parent);
	if (!parent)
		return 0;
	pidx = parent - m->tasks;
	if (task_get(m, (int)ev->target_pid, true, child))
		return -1;
	if (*child == &m->tasks[pidx]) {
		*child = NULL;
		return 0;
	}
	parent = &m->tasks[pidx];	/* the array may have moved */
	drop_regions(*child);
	(*child)->heap = parent->heap;
	(*child)->regions = parent->regions;	/* copied when one of them changes it */
	if ((*child)->regions)
		(*child)->regions->refs++;
	return 0;
}

int kmt_vmmap_event(struct vmmap *m, const struct kmt_event *ev, struct vm_task **task)
{
	struct vm_task *t;

	*task = NULL;
	m->events++;
	if (ev->type == KMT_EV_FORK)
		return fork_task(m, ev, task);
	if (task_get(m, ev->pid, true, &t))
		return -1;
	switch (ev->type) {
	case KMT_EV_EXEC:	/* a new address space */
		drop_regions(t);
		memset(&t->heap, 0, sizeof(t->heap));
		t->pending = KMT_EV_UNKNOWN;
		break;
	case KMT_EV_MMAP_ENTER:
	case KMT_EV_MUNMAP_ENTER:
	case KMT_EV_MREMAP_ENTER:
	case KMT_EV_BRK_ENTER:
		t->pending = ev->type;
		memcpy(t->arg, ev->arg, sizeof(t->arg));
		break;
	case KMT_EV_MMAP_EXIT:
	case KMT_EV_MUNMAP_EXIT:
	case KMT_EV_MREMAP_EXIT:
	case KMT_EV_BRK_EXIT:
		if (syscall_exit(m, t, ev))
			return -1;
		break;
	default:
		return 0;
	}
	*task = t;
	return 0;
}

void kmt_vmmap_exit(struct vmmap *m, int pid)
{
	struct vm_task *t;

	task_get(m, pid, false, &t);	/* not made: cannot fail */
	if (t)
		drop_regions(t);
}

struct vm_task *kmt_vmmap_task(struct vmmap *m, int pid)
{
	struct vm_task *t;

	task_get(m, pid, false, &t);	/* not made: cannot fail */
	return t;
}

const struct vm_region *kmt_vmmap_find(struct vmmap *m, int pid, uint64_t addr)
{
	struct vm_task *t = kmt_vmmap_task(m, pid);
	uint32_t i;

	if (!t)
		return NULL;
	if (addr >= t->heap.start && addr < t->heap.end)
		return &t->heap;
	i = first_after(t, addr);
	return i < vmmap_nregions(t) && t->regions->r[i].start <= addr ? &t->regions->r[i] : NULL;
}

const char *kmt_vmmap_kind_name(enum vm_kind kind)
{
	static const char *const names[VM_KIND_NR] = { "anon", "shared", "file", "stack",
						       "heap" };

	return kind < VM_KIND_NR ? names[kind] : "?";
}
