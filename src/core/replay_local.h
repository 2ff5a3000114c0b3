/* SPDX-License-Identifier: LGPL-2.1 */
/* What replay.c and replay_threads.c share: the merge and the steps of a replay. */
#ifndef KMT_REPLAY_LOCAL_H
#define KMT_REPLAY_LOCAL_H

#include <stdbool.h>
#include <kmtrace/analysis.h>
#include <kmtrace/reader.h>
#include "common/nameids.h"
#include "common/objmap.h"

/*
 * A min-heap of streams keyed by the timestamp of their record at hand.
 * Each stream is read in batches: a CPU's (kmt_reader_next_cpu_batch()),
 * or the one stream of a reader whose records come merged already
 * (heap[0] is then 0).
 */
struct merge {
	struct kmt_record **cur;	/* per stream: its record at hand */
	struct kmt_record **end;	/* per stream: past its batch's last record */
	struct kmt_record *recs;	/* the batches, @batch records a stream */
	int batch;
	int *heap;
	int n;
	bool merged;
};

/* The record the replay takes next. */
static inline const struct kmt_record *kmt_merge_top(const struct merge *m)
{
	return m->cur[m->heap[0]];
}

/* Does stream heap[@a]'s record come before heap[@b]'s? (time, then CPU) */
static inline bool kmt_merge_earlier(const struct merge *m, int a, int b)
{
	const struct kmt_record *x = m->cur[m->heap[a]], *y = m->cur[m->heap[b]];

	return x->ts < y->ts || (x->ts == y->ts && x->cpu < y->cpu);
}

/* Move heap[@i] down to its place (heaps of three streams or more). */
void kmt_merge_sift_down(struct merge *m, int i);

/* heap[0]'s record changed: put the heap in order again. */
static inline void kmt_merge_settle(struct merge *m)
{
	if (m->n == 2 && kmt_merge_earlier(m, 1, 0)) {	/* two CPUs: one comparison */
		int t = m->heap[0];

		m->heap[0] = m->heap[1];
		m->heap[1] = t;
	} else if (m->n > 2) {
		kmt_merge_sift_down(m, 0);
	}
}

/*
 * The step past the last record of the root's batch: its next batch, the
 * stream dropped from the heap at its end. 0 or -1.
 */
int kmt_merge_next(struct merge *m, struct kmt_reader *r, struct kmt_error *err);

/* Past the record at the root: to the next of its batch, else kmt_merge_next(). */
static inline int kmt_merge_advance(struct merge *m, struct kmt_reader *r,
				    struct kmt_error *err)
{
	int top = m->heap[0];

	if (++m->cur[top] == m->end[top])
		return kmt_merge_next(m, r, err);
	kmt_merge_settle(m);
	return 0;
}

/*
 * Decode @rec into @ev, with the replay's checks and counts in @s->replay,
 * and its slab object followed in @objects unless NULL
 * (kmt_replay_follow_object()). 0, or -1 out of memory.
 */
int kmt_replay_take(struct kmt_session *s, const struct kmt_decoder *dec,
		    const struct kmt_record *rec, unsigned long long *last_ts,
		    struct kmt_objmap *objects, struct kmt_event *ev);

/*
 * The number in @names of the cache @ev allocates from, when it names one
 * (kmt_event.str_id), 0 otherwise and when out of memory. The reader
 * thread numbers them: the analyses' thread then need not read the names.
 */
static inline uint32_t kmt_replay_cache_name_id(struct kmt_name_ids *names,
						const struct kmt_event *ev)
{
	if ((ev->type != KMT_EV_CACHE_ALLOC && ev->type != KMT_EV_CACHE_ALLOC_NODE) ||
	    (ev->flags & KMT_EVF_TYPE_ONLY) || !ev->str || ev->str_len <= 0)
		return 0;
	return kmt_name_id(names, ev->str, ev->str_len);	/* 0 when out of memory */
}

_Static_assert(KMT_EV_NO_OBJ == KMT_OBJMAP_NO_SLOT, "a slot the map does not give is no object");

/*
 * kmt_event.obj and KMT_EVF_OBJ_LIVE of slab allocation or free @ev, its
 * pointer followed in @objects (a kmt_objmap of items of size 0), in the
 * thread of the analyses that read them, before they take @ev. 0, or -1
 * out of memory. Inline in both threads' loops: a call there cost 20
 * instructions a slab event.
 */
static inline __attribute__((always_inline)) int
kmt_replay_follow_object(struct kmt_objmap *objects, struct kmt_event *ev)
{
	bool live = false;
	uint32_t slot = KMT_EV_NO_OBJ;

	switch (ev->type) {
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		if (!kmt_event_frees_nothing(ev))
			slot = kmt_objmap_take_slot(objects, ev->ptr);
		live = slot != KMT_EV_NO_OBJ;
		break;
	case KMT_EV_KMALLOC:
	case KMT_EV_KMALLOC_NODE:
	case KMT_EV_CACHE_ALLOC:
	case KMT_EV_CACHE_ALLOC_NODE:
		if (kmt_event_alloc_failed(ev))
			break;
		slot = kmt_objmap_cell_slot(objects, ev->ptr, &live);
		if (slot == KMT_OBJMAP_NO_SLOT)
			return -1;
		break;
	default:
		return 0;
	}
	ev->obj = slot;
	if (live)
		ev->flags |= KMT_EVF_OBJ_LIVE;
	return 0;
}

/* The events kmt_replay_follow_object() follows: slab allocations and frees. */
#define KMT_SLAB_OBJECT_EVENTS	(KMT_EVMASK_SLAB_ALLOCS | KMT_EVMASK_SLAB_FREES)

/* An analysis and its state, one of those an event type goes to. */
struct kmt_taker {
	const struct kmt_analysis *an;
	void *priv;
};

/* For each event type, the analyses that take it, in their order. */
struct kmt_handouts {
	int start[KMT_EV_NR + 1];	/* type t's takers: to[start[t]] up to to[start[t + 1]] */
	struct kmt_taker *to;
	kmt_evmask_t taken;		/* the types any of them takes */
};

/*
 * May analysis @an, its options given in @priv, take its events in the
 * reading thread? Never one of slab_objects.
 */
bool kmt_analysis_in_reader_thread(const struct kmt_analysis *an, const void *priv);

/*
 * The events analysis @an takes in the replay of @s: its declared ones, or
 * none when it is idle_without_first_need and the recording has none of those.
 */
kmt_evmask_t kmt_events_taken(const struct kmt_session *s, const struct kmt_analysis *an);

/* The hand-outs of the @n analyses @an (states @priv) in @s. 0, or -1 out of memory. */
int kmt_handouts_init(struct kmt_handouts *h, const struct kmt_session *s,
		      const struct kmt_analysis *const *an, void *const *priv, int n);

void kmt_handouts_free(struct kmt_handouts *h);

/* Analysis @an failed to take an event: fill @err (the replay stops); -1. */
int kmt_replay_failed(const struct kmt_session *s, const struct kmt_analysis *an,
		      struct kmt_error *err);

/*
 * Give @ev to each analysis of @h that takes its type (inline: most events
 * have none). 0, or -1 with @err filled when one failed (the replay stops).
 */
static inline int kmt_replay_hand_out(const struct kmt_session *s,
				      const struct kmt_handouts *h,
				      const struct kmt_event *ev, struct kmt_error *err)
{
	const struct kmt_taker *to = h->to + h->start[ev->type];
	const struct kmt_taker *end = h->to + h->start[ev->type + 1];

	for (; to < end; to++)
		if (to->an->event(to->priv, ev))
			return kmt_replay_failed(s, to->an, err);
	return 0;
}

/*
 * Up to @limit records of @m in this thread, to the analyses of @h;
 * *@last_ts carries the time of the event before from call to call. 0, or
 * -1 with @err filled.
 */
int kmt_replay_some(struct kmt_session *s, struct merge *m, const struct kmt_decoder *dec,
		    const struct kmt_handouts *h, unsigned long long *last_ts,
		    unsigned long long limit, struct kmt_error *err);

/*
 * The rest of the replay with @m's records read and decoded in a thread of
 * their own and the events handed out in this one (replay_threads.c); one
 * thread when a second cannot be started. *@last_ts as for
 * kmt_replay_some(). 0, or -1 with @err filled.
 */
int kmt_replay_two_threads(struct kmt_session *s, struct merge *m,
			   const struct kmt_decoder *dec, const struct kmt_analysis *const *an,
			   void *const *priv, int n, unsigned long long *last_ts,
			   struct kmt_error *err);

/*
 * --threads auto: some records in this thread alone, as many on two, timed;
 * the rest on two when they were faster, else a stretch alone and the
 * trial again (replay_threads.c). 0, or -1 with @err filled.
 */
int kmt_replay_auto(struct kmt_session *s, struct merge *m, const struct kmt_decoder *dec,
		    const struct kmt_analysis *const *an, void *const *priv, int n,
		    struct kmt_error *err);

/* The rest of the replay in this thread only. */
int kmt_replay_one_thread(struct kmt_session *s, struct merge *m,
			  const struct kmt_decoder *dec, const struct kmt_analysis *const *an,
			  void *const *priv, int n, unsigned long long *last_ts,
			  struct kmt_error *err);

#endif /* KMT_REPLAY_LOCAL_H */
