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

static void chunk_release(struct pd_chunk *c)
{
	if (c && !--c->refs && c->retired)
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

/* Room for one more item: drop the taken ones first, grow if still full. */
static int queue_room(struct pd_queue *q)
{
	if (q->n == q->cap && q->head) {
		memmove(q->s, q->s + q->head, (q->n - q->head) * sizeof(*q->s));
		q->n -= q->head;
		q->head = 0;
	}
	return kmt_grow(&q->s, &q->cap, q->n, sizeof(*q->s));
}

/* Whether @a goes out before @b: earlier time, then file order. */
static bool sample_before(const struct pd_sample *a, const struct pd_sample *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static const struct pd_sample *queue_first(const struct pd_order *o, uint32_t cpu)
{
	return &o->cpus[cpu].s[o->cpus[cpu].head];
}

/*
 * Two min-heaps find the earliest waiting sample in O(log n), whatever order
 * a file puts its times in: one of the CPUs whose queue is not empty, keyed
 * by their first sample, and one of the late samples, those earlier than the
 * last one queued on their CPU (none in a well-formed file).
 */
static bool cpu_before(const struct pd_order *o, uint32_t a, uint32_t b)
{
	return sample_before(queue_first(o, o->ready[a]), queue_first(o, o->ready[b]));
}

static void cpu_swap(struct pd_order *o, uint32_t a, uint32_t b)
{
	uint32_t t = o->ready[a];

	o->ready[a] = o->ready[b];
	o->ready[b] = t;
}

static void cpu_sift_down(struct pd_order *o, uint32_t i)
{
	uint32_t min, child;

	for (;; i = min) {
		min = i;
		for (child = 2 * i + 1; child <= 2 * i + 2 && child < o->nready; child++)
			if (cpu_before(o, child, min))
				min = child;
		if (min == i)
			return;
		cpu_swap(o, i, min);
	}
}

/* @cpu's queue was empty and has a sample now. */
static void cpu_ready(struct pd_order *o, uint32_t cpu)
{
	uint32_t i = o->nready++;

	o->ready[i] = cpu;
	for (; i && cpu_before(o, i, (i - 1) / 2); i = (i - 1) / 2)
		cpu_swap(o, i, (i - 1) / 2);
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
	struct pd_sample last = o->late[--o->nlate];
	uint32_t i = 0, child;

	while ((child = 2 * i + 1) < o->nlate) {
		if (child + 1 < o->nlate && sample_before(&o->late[child + 1], &o->late[child]))
			child++;
		if (!sample_before(&o->late[child], &last))
			break;
		o->late[i] = o->late[child];
		i = child;
	}
	o->late[i] = last;
}

/* Queue @s on its CPU, or with the late ones when it is earlier than the CPU's last. */
static int queue_sample(struct pd_order *o, struct pd_queue *q, const struct pd_sample *s)
{
	if (q->head < q->n && q->s[q->n - 1].ts > s->ts) {
		if (kmt_grow(&o->late, &o->late_cap, o->nlate, sizeof(*o->late)))
			return -1;
		late_push(o, s);
		return 0;
	}
	if (queue_room(q) || kmt_grow(&o->ready, &o->ready_cap, o->nready, sizeof(*o->ready)))
		return -1;
	q->s[q->n++] = *s;
	if (q->n - q->head == 1)
		cpu_ready(o, s->cpu);
	return 0;
}

/* Copy @s's payload and callchain into a chunk. 0 or -1 (out of memory). */
static int copy_sample(struct pd_order *o, struct pd_sample *s)
{
	size_t chain_bytes = (size_t)s->nchain * sizeof(uint64_t);
	unsigned char *copy = chunk_alloc(o, chain_bytes + s->size);

	if (!copy)
		return -1;
	s->chunk = o->chunk;
	if (s->nchain) {
		memcpy(copy, s->chain, chain_bytes);
		s->chain = (const unsigned long long *)copy;
	}
	memcpy(copy + chain_bytes, s->data, s->size);
	s->data = copy + chain_bytes;
	return 0;
}

int kmt_pd_order_add(struct pd_order *o, uint32_t cpu, uint32_t tid, uint64_t ts,
		     const void *data, uint32_t size, const void *chain, uint32_t nchain, bool kept)
{
	struct pd_queue *q = queue_of(o, cpu);
	struct pd_sample s = { .ts = ts, .seq = o->seq++, .data = data,
			       .chain = nchain ? chain : NULL, .size = size,
			       .nchain = nchain, .cpu = cpu, .tid = tid };

	if (!q || (!kept && copy_sample(o, &s)))
		return -1;
	if (queue_sample(o, q, &s)) {
		chunk_release(s.chunk);
		return -1;
	}
	if (ts > o->round_max)
		o->round_max = ts;
	return 0;
}

void kmt_pd_order_round(struct pd_order *o)
{
	o->flush_limit = o->round_max_prev;
	o->round_max_prev = o->round_max;
}

/* Hand out the first sample of the CPU on top of the ready heap. */
static void take_queued(struct pd_order *o, struct pd_sample *out)
{
	struct pd_queue *q = &o->cpus[o->ready[0]];

	*out = q->s[q->head++];
	if (q->head == q->n) {
		q->head = q->n = 0;
		o->ready[0] = o->ready[--o->nready];
	}
	cpu_sift_down(o, 0);
}

bool kmt_pd_order_take(struct pd_order *o, bool all, struct pd_sample *out, uint32_t *cpu)
{
	const struct pd_sample *first = o->nready ? queue_first(o, o->ready[0]) : NULL;
	bool late = o->nlate && (!first || sample_before(&o->late[0], first));

	chunk_release(o->held);
	o->held = NULL;
	if (late)
		first = &o->late[0];
	if (!first || (!all && first->ts > o->flush_limit))
		return false;
	if (late) {
		*out = o->late[0];
		late_pop(o);
	} else {
		take_queued(o, out);
	}
	*cpu = out->cpu;
	o->held = out->chunk;
	return true;
}

void kmt_pd_order_free(struct pd_order *o)
{
	uint32_t i, k;

	chunk_release(o->held);
	for (i = 0; i < o->ncpus; i++) {
		for (k = o->cpus[i].head; k < o->cpus[i].n; k++)
			chunk_release(o->cpus[i].s[k].chunk);
		free(o->cpus[i].s);
	}
	for (k = 0; k < o->nlate; k++)
		chunk_release(o->late[k].chunk);
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
