// SPDX-License-Identifier: LGPL-2.1
/*
 * perf writes each CPU's ring buffer in turn, so samples come in time order
 * per CPU but not across CPUs. They wait here, per CPU, until perf's
 * PERF_RECORD_FINISHED_ROUND says nothing earlier can follow: at the end of
 * a round every sample up to the latest time of the round before is final
 * (the rule perf's ordered-events queue uses). Payloads are copied into
 * chunks that are freed once every sample in them was handed out, so the
 * memory held is about two rounds; samples of a mapped file stay where they
 * are.
 */
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"
#include "common/util.h"

#define CHUNK_SIZE	(1u << 20)
#define MAX_CPUS	8192

struct pd_chunk {
	size_t used, size;
	uint64_t refs;		/* samples in it not yet released */
	bool retired;		/* no more samples go into it */
	unsigned char data[] __attribute__((aligned(8)));	/* callchains are u64s */
};

/* @samples samples of @c (may be NULL) are done with: it goes with its last. */
static void chunk_release(struct pd_chunk *c, uint64_t samples)
{
	if (c && !(c->refs -= samples) && c->retired)
		free(c);
}

/* Room for @n bytes (8-aligned) in the current chunk; a new one when full. */
static void *chunk_alloc(struct pd_order *o, size_t n)
{
	struct pd_chunk *c = o->chunk;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_SIZE ? n : CHUNK_SIZE;
		struct pd_chunk *fresh = malloc(sizeof(*fresh) + size);

		if (!fresh)
			return NULL;
		*fresh = (struct pd_chunk){ .size = size };
		if (c) {
			c->retired = true;
			if (!c->refs)
				free(c);
		}
		o->chunk = c = fresh;
	}
	c->used += n;
	c->refs++;
	return c->data + c->used - n;
}

static struct pd_queue *queue_of(struct pd_order *o, uint32_t cpu)
{
	if (cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= o->ncpus) {
		struct pd_queue *n = realloc(o->cpus, (cpu + 1) * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + o->ncpus, 0, (cpu + 1 - o->ncpus) * sizeof(*n));
		o->cpus = n;
		o->ncpus = cpu + 1;
	}
	return &o->cpus[cpu];
}

/* Room for one more item: drop the taken ones first if half of it, else grow. */
static int queue_room(struct pd_queue *q)
{
	if (q->n == q->cap && q->head && q->head >= q->n / 2) {
		memmove(q->s, q->s + q->head, (q->n - q->head) * sizeof(*q->s));
		q->n -= q->head;
		q->head = 0;
	}
	return kmt_grow(&q->s, &q->cap, q->n, sizeof(*q->s));
}

/* Whether (@ts, @seq) goes out before (@ts2, @seq2): earlier time, then file order. */
static bool key_before(uint64_t ts, uint32_t seq, uint64_t ts2, uint32_t seq2)
{
	return ts < ts2 || (ts == ts2 && (int32_t)(seq - seq2) < 0);	/* queued < 2^31 apart */
}

static bool sample_before(const struct pd_sample *a, const struct pd_sample *b)
{
	return key_before(a->ts, a->seq, b->ts, b->seq);
}

/*
 * Two min-heaps find the earliest waiting sample in O(log n), whatever order
 * a file puts its times in: one of the CPUs whose queue is not empty, keyed
 * by a copy of their first sample's time and file order (no pointer chased
 * to compare), and one of the late samples, those earlier than the last one
 * queued on their CPU (none in a well-formed file).
 */
static bool ready_before(const struct pd_ready *a, const struct pd_ready *b)
{
	return key_before(a->ts, a->seq, b->ts, b->seq);
}

/* NAME(a, n, i): move a[i] down to its place in the min-heap a[0..n) of BEFORE. */
#define HEAP_SIFT_DOWN(name, type, before)					\
static void name(type *a, uint32_t n, uint32_t i)				\
{										\
	type moving = a[i];							\
	uint32_t child;								\
										\
	while ((child = 2 * i + 1) < n) {					\
		if (child + 1 < n && before(&a[child + 1], &a[child]))		\
			child++;						\
		if (!before(&a[child], &moving))				\
			break;							\
		a[i] = a[child];						\
		i = child;							\
	}									\
	a[i] = moving;								\
}

HEAP_SIFT_DOWN(ready_sift_down, struct pd_ready, ready_before)
HEAP_SIFT_DOWN(late_sift_down, struct pd_sample, sample_before)

void kmt_pd_order_ready(struct pd_order *o, const struct pd_sample *s)
{
	struct pd_ready r = { s->ts, s->seq, s->cpu };
	uint32_t i = o->nready++;

	for (; i && ready_before(&r, &o->ready[(i - 1) / 2]); i = (i - 1) / 2)
		o->ready[i] = o->ready[(i - 1) / 2];
	o->ready[i] = r;
}

static void late_push(struct pd_order *o, const struct pd_sample *s)
{
	uint32_t i = o->nlate++;

	for (; i && sample_before(s, &o->late[(i - 1) / 2]); i = (i - 1) / 2)
		o->late[i] = o->late[(i - 1) / 2];
	o->late[i] = *s;
}

static void late_pop(struct pd_order *o)
{
	o->late[0] = o->late[--o->nlate];
	late_sift_down(o->late, o->nlate, 0);
}

/* The sample written at q->s[q->n] joins @q, and the ready heap if @q was empty. */
static void queued(struct pd_order *o, struct pd_queue *q)
{
	const struct pd_sample *s = &q->s[q->n++];

	if (q->n - q->head == 1)
		kmt_pd_order_ready(o, s);
}

/* Queue @s on its CPU, or with the late ones when it is earlier than the CPU's last. */
static int queue_sample(struct pd_order *o, struct pd_queue *q, const struct pd_sample *s)
{
	if (kmt_pd_queue_late(q, s->ts)) {
		if (kmt_grow(&o->late, &o->late_cap, o->nlate, sizeof(*o->late)))
			return -1;
		late_push(o, s);
		return 0;
	}
	if (queue_room(q) || kmt_grow(&o->ready, &o->ready_cap, o->nready, sizeof(*o->ready)))
		return -1;
	q->s[q->n] = *s;
	queued(o, q);
	return 0;
}

/*
 * Copy @s's payload and its @chain into a chunk, laid out as
 * kmt_pd_sample_chain() and kmt_pd_sample_chunk() find them: the chunk,
 * the callchain, the payload's u32 size, the payload. 0 or -1 (out of
 * memory).
 */
static int copy_sample(struct pd_order *o, struct pd_sample *s, const void *chain)
{
	size_t chain_bytes = (size_t)s->nchain * sizeof(uint64_t);
	uint32_t size = s->size;	/* where perf has the payload's size */
	unsigned char *copy = chunk_alloc(o, sizeof(o->chunk) + chain_bytes + 4 + s->size);

	if (!copy)
		return -1;
	memcpy(copy, &o->chunk, sizeof(o->chunk));
	if (chain_bytes)
		memcpy(copy + sizeof(o->chunk), chain, chain_bytes);
	memcpy(copy + sizeof(o->chunk) + chain_bytes, &size, 4);
	memcpy(copy + sizeof(o->chunk) + chain_bytes + 4, s->data, s->size);
	s->data = copy + sizeof(o->chunk) + chain_bytes + 4;
	s->copied = 1;
	return 0;
}

/* Any other sample: copied when not kept, the queues grown, late ones apart. */
int kmt_pd_order_add_slow(struct pd_order *o, uint32_t cpu, uint32_t tid, uint64_t ts,
			  const void *data, uint32_t size, const void *chain, uint32_t nchain,
			  bool kept)
{
	struct pd_queue *q = queue_of(o, cpu);
	struct pd_sample s = { .ts = ts, .data = data, .seq = o->seq++, .tid = tid, .cpu = cpu,
			       .size = size, .nchain = nchain };

	if (!q || size > UINT16_MAX || nchain > PD_MAX_CHAIN)
		return -1;
	if ((!kept || !kmt_pd_chain_in_place(chain, nchain, data)) && copy_sample(o, &s, chain))
		return -1;
	if (queue_sample(o, q, &s)) {
		chunk_release(kmt_pd_sample_chunk(&s), 1);
		return -1;
	}
	return 0;
}

void kmt_pd_order_round(struct pd_order *o)
{
	o->flush_limit = o->round_max_prev;
	o->round_max_prev = o->round_max;
}

/* The first sample of the CPU on top of the ready heap leaves its queue. */
static void advance_ready(struct pd_order *o)
{
	struct pd_ready *top = &o->ready[0];
	struct pd_queue *q = &o->cpus[top->cpu];

	if (++q->head == q->n) {
		q->head = q->n = 0;
		*top = o->ready[--o->nready];
	} else {
		top->ts = q->s[q->head].ts;
		top->seq = q->s[q->head].seq;
	}
	if (o->nready == 2 && ready_before(&o->ready[1], &o->ready[0])) {	/* two CPUs */
		struct pd_ready t = o->ready[0];

		o->ready[0] = o->ready[1];
		o->ready[1] = t;
	} else if (o->nready > 2) {
		ready_sift_down(o->ready, o->nready, 0);
	}
}

/*
 * A sample of chunk @c is handed out: @c stays until kmt_pd_order_release()
 * (or, from a caller that took more than PD_TAKE_MAX without one, until
 * the list is full).
 */
static void hold(struct pd_order *o, struct pd_chunk *c)
{
	if (o->nheld == PD_TAKE_MAX)
		kmt_pd_order_release(o);
	if (o->nheld && o->held[o->nheld - 1].chunk == c)
		o->held[o->nheld - 1].samples++;
	else
		o->held[o->nheld++] = (struct pd_held){ c, 1 };
}

const struct pd_sample *kmt_pd_order_take(struct pd_order *o, bool all)
{
	const struct pd_sample *first = NULL;
	uint64_t limit = all ? UINT64_MAX : o->flush_limit;

	if (o->nready) {
		const struct pd_queue *q = &o->cpus[o->ready[0].cpu];

		first = &q->s[q->head];
	}
	if (o->nlate && (!first || sample_before(&o->late[0], first))) {
		if (o->late[0].ts > limit)
			return NULL;
		o->taken = o->late[0];	/* late_pop() moves the heap over it */
		late_pop(o);
		first = &o->taken;
	} else if (!first || first->ts > limit) {
		return NULL;
	} else {
		advance_ready(o);	/* *first stays until the next add */
	}
	if (first->copied)
		hold(o, kmt_pd_sample_chunk(first));
	return first;
}

void kmt_pd_order_release(struct pd_order *o)
{
	uint32_t i;

	for (i = 0; i < o->nheld; i++)
		chunk_release(o->held[i].chunk, o->held[i].samples);
	o->nheld = 0;
}

void kmt_pd_order_free(struct pd_order *o)
{
	uint32_t i, k;

	kmt_pd_order_release(o);
	for (i = 0; i < o->ncpus; i++) {
		for (k = o->cpus[i].head; k < o->cpus[i].n; k++)
			chunk_release(kmt_pd_sample_chunk(&o->cpus[i].s[k]), 1);
		free(o->cpus[i].s);
	}
	for (k = 0; k < o->nlate; k++)
		chunk_release(kmt_pd_sample_chunk(&o->late[k]), 1);
	free(o->cpus);
	free(o->ready);
	free(o->late);
	if (o->chunk) {
		o->chunk->retired = true;
		if (!o->chunk->refs)
			free(o->chunk);
	}
	memset(o, 0, sizeof(*o));
}
