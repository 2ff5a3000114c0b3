// SPDX-License-Identifier: LGPL-2.1
/*
 * perf writes each CPU's ring buffer in turn, so samples come in time order
 * per CPU but not across CPUs. They wait here, per CPU, until perf's
 * PERF_RECORD_FINISHED_ROUND says nothing earlier can follow: at the end of
 * a round every sample up to the latest time of the round before is final
 * (the rule perf's ordered-events queue uses). Payloads are copied into
 * chunks that are freed once every sample in them was handed out, so the
 * memory held is about two rounds.
 */
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"
#include "util.h"

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

/* Insert keeping time order; equal times stay in file order. */
static void queue_insert(struct pd_queue *q, const struct pd_sample *s)
{
	uint32_t i = q->n;

	while (i > q->head && q->s[i - 1].ts > s->ts) {
		q->s[i] = q->s[i - 1];
		i--;
	}
	q->s[i] = *s;
	q->n++;
}

int pd_order_add(struct pd_order *o, uint32_t cpu, uint64_t ts, const void *data,
		 uint32_t size, const void *chain, uint32_t nchain)
{
	struct pd_queue *q = queue_of(o, cpu);
	size_t chain_bytes = (size_t)nchain * sizeof(uint64_t);
	struct pd_sample s = { .ts = ts, .seq = o->seq++, .size = size, .nchain = nchain };
	unsigned char *copy;

	if (!q || queue_room(q) || !(copy = chunk_alloc(o, chain_bytes + size)))
		return -1;
	s.chunk = o->chunk;
	if (nchain) {
		memcpy(copy, chain, chain_bytes);
		s.chain = (const unsigned long long *)copy;
	}
	memcpy(copy + chain_bytes, data, size);
	s.data = copy + chain_bytes;
	queue_insert(q, &s);
	if (ts > o->round_max)
		o->round_max = ts;
	o->pending++;
	return 0;
}

void pd_order_round(struct pd_order *o)
{
	o->flush_limit = o->round_max_prev;
	o->round_max_prev = o->round_max;
}

/* The CPU whose first waiting sample is the earliest, or -1 when none waits. */
static int earliest_cpu(const struct pd_order *o)
{
	const struct pd_sample *best = NULL;
	int cpu = -1;
	uint32_t i;

	for (i = 0; i < o->ncpus; i++) {
		const struct pd_queue *q = &o->cpus[i];
		const struct pd_sample *s = q->head < q->n ? &q->s[q->head] : NULL;

		if (s && (!best || s->ts < best->ts || (s->ts == best->ts && s->seq < best->seq))) {
			best = s;
			cpu = i;
		}
	}
	return cpu;
}

bool pd_order_take(struct pd_order *o, bool all, struct pd_sample *out, uint32_t *cpu)
{
	struct pd_queue *q;
	int c;

	chunk_release(o->held);
	o->held = NULL;
	if (!o->pending || (c = earliest_cpu(o)) < 0)
		return false;
	q = &o->cpus[c];
	if (!all && q->s[q->head].ts > o->flush_limit)
		return false;
	*out = q->s[q->head++];
	*cpu = c;
	o->held = out->chunk;
	o->pending--;
	return true;
}

void pd_order_free(struct pd_order *o)
{
	uint32_t i, k;

	chunk_release(o->held);
	for (i = 0; i < o->ncpus; i++) {
		for (k = o->cpus[i].head; k < o->cpus[i].n; k++)
			chunk_release(o->cpus[i].s[k].chunk);
		free(o->cpus[i].s);
	}
	free(o->cpus);
	if (o->chunk) {
		o->chunk->retired = true;
		if (!o->chunk->refs)
			free(o->chunk);
	}
	memset(o, 0, sizeof(*o));
}
