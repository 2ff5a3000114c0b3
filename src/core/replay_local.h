/* SPDX-License-Identifier: LGPL-2.1 */
/* What replay.c and replay_threads.c share: the merge and the steps of a replay. */
#ifndef KMT_REPLAY_LOCAL_H
#define KMT_REPLAY_LOCAL_H

#include <stdbool.h>
#include <kmtrace/analysis.h>
#include <kmtrace/reader.h>

/*
 * A min-heap of CPUs keyed by the timestamp of their pending record. A
 * reader whose records come merged already has one stream, read in
 * batches: head is then the current record of the batch, heap[0] 0.
 */
struct merge {
	struct kmt_record *head;	/* pending record per stream */
	int *heap;
	int n;
	bool merged;
	struct kmt_record *batch;	/* merged: the records read at once; */
	int count;			/* head is one of the first count */
};

/*
 * The per-CPU merge's step (refill the root's CPU, drop it from the heap
 * at the end of its stream), or the merged stream's next batch. 0 or -1.
 */
int kmt_merge_next(struct merge *m, struct kmt_reader *r, struct kmt_error *err);

/* Past the record at the root: to the next of the batch, else kmt_merge_next(). */
static inline int kmt_merge_advance(struct merge *m, struct kmt_reader *r,
				    struct kmt_error *err)
{
	if (m->merged && ++m->head < m->batch + m->count)
		return 0;
	return kmt_merge_next(m, r, err);
}

/* Decode @rec into @ev, with the replay's checks and counts in @s->replay. */
void kmt_replay_take(struct kmt_session *s, const struct kmt_decoder *dec,
		     const struct kmt_record *rec, unsigned long long *last_ts,
		     struct kmt_event *ev);

/* An analysis and its state, one of those an event type goes to. */
struct kmt_taker {
	const struct kmt_analysis *an;
	void *priv;
};

/* For each event type, the analyses that take it, in their order. */
struct kmt_handouts {
	int start[KMT_EV_NR + 1];	/* type t's takers: to[start[t]] up to to[start[t + 1]] */
	struct kmt_taker *to;
};

/* The hand-outs of the @n analyses @an (states @priv). 0, or -1 out of memory. */
int kmt_handouts_init(struct kmt_handouts *h, const struct kmt_analysis *const *an,
		      void *const *priv, int n);

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
 * The rest of the replay with @m's records read and decoded in a thread of
 * their own and the events handed out in this one (replay_threads.c); one
 * thread when a second cannot be started. 0, or -1 with @err filled.
 */
int kmt_replay_two_threads(struct kmt_session *s, struct merge *m,
			   const struct kmt_decoder *dec, const struct kmt_analysis *const *an,
			   void *const *priv, int n, struct kmt_error *err);

/* The same in this thread only. */
int kmt_replay_one_thread(struct kmt_session *s, struct merge *m,
			  const struct kmt_decoder *dec, const struct kmt_analysis *const *an,
			  void *const *priv, int n, struct kmt_error *err);

#endif /* KMT_REPLAY_LOCAL_H */
