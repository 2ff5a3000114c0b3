// SPDX-License-Identifier: LGPL-2.1
/*
 * Replay on two cores: a reader thread merges and decodes the records into
 * batches of events while the calling thread hands them to the analyses,
 * in the order one thread would. Analyses that may (reader_thread_ok: they
 * look at nothing the calling thread's analyses change) take their events
 * in the reader thread instead, so that the work is shared; the batches
 * then carry only the events the other analyses want. A batch carries
 * copies of the records' bytes and stacks where a reader's record lasts
 * only until its next one (not those a mapped file keeps), and the events
 * point into those copies. A few
 * batches go round between the two threads, so memory stays fixed however
 * long the recording.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "replay_local.h"
#include "common/util.h"

#define BATCH_EVENTS	2048
#define BATCHES		4
#define NOT_COPIED	UINT32_MAX	/* raw_at of an event whose record is kept */

struct batch {
	struct kmt_event ev[BATCH_EVENTS];
	uint32_t raw_at[BATCH_EVENTS];		/* where each copy starts in bytes */
	uint32_t chain_at[BATCH_EVENTS];
	int n;
	unsigned char *bytes;			/* the records' and stacks' copies */
	uint32_t used, cap;
};

struct pipe_state {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct batch *batches[BATCHES];
	int head, count;	/* filled batches: head, head + 1, ... (mod BATCHES) */
	bool done;		/* the reader thread ended (ret, err say how) */
	bool stop;		/* this thread's analyses failed: the reader thread stops */
	int ret;
	struct kmt_error err;

	struct kmt_session *s;
	struct merge *m;
	const struct kmt_decoder *dec;
	unsigned long long last_ts;
	struct kmt_handouts mine;	/* the reader thread's analyses */
	kmt_evmask_t batched;		/* KMT_EVMASK()s the calling thread's analyses want */
};

/* Room for @len more bytes in @b's copies; -1 when out of memory. */
static int room(struct batch *b, size_t len)
{
	if (len > UINT32_MAX / 2 || b->used + len > UINT32_MAX / 2)
		return -1;
	return len && kmt_grow(&b->bytes, &b->cap, b->used + len - 1, 1) ? -1 : 0;
}

/* Copy what event @i of @b points into (record, stack) into @b's bytes, unless @kept. */
static int copy_event(struct batch *b, int i, bool kept)
{
	struct kmt_event *ev = &b->ev[i];
	size_t chain = (size_t)ev->callchain_nr * sizeof(*ev->callchain);

	b->raw_at[i] = NOT_COPIED;
	if (kept)
		return 0;
	if (room(b, (size_t)ev->raw_size + chain + sizeof(uint64_t)))
		return -1;
	b->raw_at[i] = b->used;
	memcpy(b->bytes + b->used, ev->raw, ev->raw_size);
	b->used += (ev->raw_size + 7) & ~7;	/* the stack's u64s aligned */
	b->chain_at[i] = b->used;
	if (chain)
		memcpy(b->bytes + b->used, ev->callchain, chain);
	b->used += chain;
	return 0;
}

/* Point @b's events at their copies, now that the bytes no longer move. */
static void repoint(struct batch *b)
{
	int i;

	for (i = 0; i < b->n; i++) {
		struct kmt_event *ev = &b->ev[i];
		const unsigned char *raw;

		if (b->raw_at[i] == NOT_COPIED)
			continue;
		raw = b->bytes + b->raw_at[i];
		if (ev->str && !(ev->flags & KMT_EVF_TYPE_ONLY))	/* else not its own */
			ev->str = (const char *)raw + (ev->str - (const char *)ev->raw);
		ev->raw = raw;
		ev->callchain = ev->callchain_nr ?
			(const unsigned long long *)(b->bytes + b->chain_at[i]) : NULL;
	}
}

/* Fill @b with the next records; 1 when filled, 0 at the end, -1 on error. */
static int fill(struct pipe_state *p, struct batch *b)
{
	struct merge *m = p->m;

	b->n = 0;
	b->used = 0;
	while (m->n > 0 && b->n < BATCH_EVENTS) {
		const struct kmt_record *rec = kmt_merge_top(m);
		struct kmt_event *ev = &b->ev[b->n];

		kmt_replay_take(p->s, p->dec, rec, &p->last_ts, ev);
		if (kmt_replay_hand_out(p->s, &p->mine, ev, &p->err))
			return -1;
		if (p->batched & KMT_EVMASK(ev->type)) {
			if (copy_event(b, b->n, rec->kept)) {
				kmt_error_set(&p->err, p->s->input, -1, "out of memory");
				return -1;
			}
			b->n++;
		}
		if (kmt_merge_advance(m, p->s->reader, &p->err))
			return -1;
	}
	repoint(b);
	return b->n > 0 || m->n > 0;
}

static void *reader_thread(void *arg)
{
	struct pipe_state *p = arg;
	int ret = 0;

	for (;;) {
		struct batch *b;

		pthread_mutex_lock(&p->lock);
		while (p->count == BATCHES && !p->stop)
			pthread_cond_wait(&p->changed, &p->lock);
		b = p->stop ? NULL : p->batches[(p->head + p->count) % BATCHES];
		pthread_mutex_unlock(&p->lock);
		if (!b)
			break;
		ret = fill(p, b);
		if (ret <= 0)
			break;
		pthread_mutex_lock(&p->lock);
		p->count++;
		pthread_cond_signal(&p->changed);
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_lock(&p->lock);
	p->done = true;
	p->ret = ret < 0 ? -1 : 0;
	pthread_cond_signal(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/*
 * Hand out every batch the reader thread fills, until it is done. 0, or -1
 * with @err filled when an analysis failed: then the reader thread is told
 * to stop.
 */
static int take_batches(struct pipe_state *p, const struct kmt_handouts *h,
			struct kmt_error *err)
{
	for (;;) {
		struct batch *b;
		int i;

		pthread_mutex_lock(&p->lock);
		while (!p->count && !p->done)
			pthread_cond_wait(&p->changed, &p->lock);
		b = p->count ? p->batches[p->head] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!b)
			return 0;
		for (i = 0; i < b->n; i++)
			if (kmt_replay_hand_out(p->s, h, &b->ev[i], err)) {
				pthread_mutex_lock(&p->lock);
				p->stop = true;
				pthread_cond_signal(&p->changed);
				pthread_mutex_unlock(&p->lock);
				return -1;
			}
		pthread_mutex_lock(&p->lock);
		p->head = (p->head + 1) % BATCHES;
		p->count--;
		pthread_cond_signal(&p->changed);
		pthread_mutex_unlock(&p->lock);
	}
}

static void free_batches(struct pipe_state *p)
{
	int i;

	for (i = 0; i < BATCHES; i++) {
		if (p->batches[i])
			free(p->batches[i]->bytes);
		free(p->batches[i]);
	}
}

/*
 * Sort @n analyses @an (states @priv) into those of the reader thread (the
 * first *@nr of @out_an) and the others (after them), in their order.
 */
static void split(const struct kmt_analysis *const *an, void *const *priv, int n,
		  const struct kmt_analysis **out_an, void **out_priv, int *nr)
{
	int i, k = 0, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (an[i]->reader_thread_ok == !pass) {
				out_an[k] = an[i];
				out_priv[k++] = priv[i];
			}
	for (*nr = 0; *nr < n && out_an[*nr]->reader_thread_ok; (*nr)++)
		;
}

int kmt_replay_two_threads(struct kmt_session *s, struct merge *m,
			   const struct kmt_decoder *dec, const struct kmt_analysis *const *an,
			   void *const *priv, int n, struct kmt_error *err)
{
	struct pipe_state p = { .s = s, .m = m, .dec = dec };
	struct kmt_handouts theirs = { .to = NULL };
	const struct kmt_analysis **san = malloc((n ? n : 1) * sizeof(*san));
	void **spriv = malloc((n ? n : 1) * sizeof(*spriv));
	pthread_t reader;
	int i, ret, nr;

	if (!san || !spriv) {
		free(san);
		free(spriv);
		return kmt_replay_one_thread(s, m, dec, an, priv, n, err);
	}
	split(an, priv, n, san, spriv, &nr);
	if (nr == n) {		/* nothing for this thread to do: one thread is faster */
		ret = kmt_replay_one_thread(s, m, dec, an, priv, n, err);
		free(san);
		free(spriv);
		return ret;
	}
	if (kmt_handouts_init(&p.mine, san, spriv, nr) ||
	    kmt_handouts_init(&theirs, san + nr, spriv + nr, n - nr)) {
		kmt_handouts_free(&p.mine);
		free(san);
		free(spriv);
		return kmt_replay_one_thread(s, m, dec, an, priv, n, err);
	}
	for (i = nr; i < n; i++)
		p.batched |= san[i]->events;
	/* libtraceevent sorts its comms at the first lookup: before two threads may look */
	tep_data_comm_from_pid(s->tep, 1);

	for (i = 0; i < BATCHES; i++)
		if (!(p.batches[i] = calloc(1, sizeof(*p.batches[i])))) {
			free_batches(&p);
			kmt_handouts_free(&p.mine);
			kmt_handouts_free(&theirs);
			free(san);
			free(spriv);
			return kmt_replay_one_thread(s, m, dec, an, priv, n, err);
		}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.changed, NULL);
	if (pthread_create(&reader, NULL, reader_thread, &p)) {
		ret = kmt_replay_one_thread(s, m, dec, an, priv, n, err);
	} else {
		int failed = take_batches(&p, &theirs, err);

		pthread_join(reader, NULL);
		ret = failed ? -1 : p.ret;
		if (!failed && ret)
			*err = p.err;
	}
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.lock);
	free_batches(&p);
	kmt_handouts_free(&p.mine);
	kmt_handouts_free(&theirs);
	free(san);
	free(spriv);
	return ret;
}
