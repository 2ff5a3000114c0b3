// SPDX-License-Identifier: LGPL-2.1
/*
 * Replay on two cores: a reader thread merges and decodes the records into
 * batches of events while the calling thread hands them to the analyses,
 * in the order one thread would. Analyses that may (reader_thread_ok, or
 * reader_thread_ok_with their options: they look at nothing the calling
 * thread's analyses change) take their events in the reader thread
 * instead, so that the work is shared; the batches then carry only the
 * events the other analyses want. While the calling thread is the slower
 * one (the reader thread last waited for room, not it for a batch), the
 * reader thread also numbers the cache names for slab and leak. A batch
 * carries copies of the records' bytes and stacks where a reader's record
 * lasts only until its next one (not those a mapped file keeps), and the
 * events point into those copies. A few batches go round between the two
 * threads, so memory stays fixed however long the recording.
 *
 * --threads auto times the replay in one thread first, then on two (each
 * after records that warm them), and goes back to one when two were
 * slower: the reader thread stops after the batch at hand, this thread
 * takes what is left in the batches, then reads on alone. The analyses'
 * cost grows with their state (a live-object map that outgrows the
 * caches), so two threads are tried again after a stretch alone.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>

#include "replay_local.h"
#include "common/util.h"

#define BATCH_EVENTS	2048
#define BATCHES		4
#define NOT_COPIED	UINT32_MAX	/* raw_at of an event whose record is kept */
#define TRIAL_RECORDS	(1ull << 18)	/* --threads auto: timed each way (about 40 ms) */
#define RETRY_AFTER	8		/* and trials' worth alone before two are tried again */

/*
 * What --threads auto compares: the speed of the replay in one thread,
 * and how many records two threads take before they are timed against it.
 */
struct kmt_thread_trial {
	double one_rate;		/* records a second in one thread */
	unsigned long long records;
};

struct batch {
	struct kmt_event ev[BATCH_EVENTS];
	uint32_t raw_at[BATCH_EVENTS];		/* where each copy starts in bytes */
	uint32_t chain_at[BATCH_EVENTS];
	int n;
	uintptr_t oldest;			/* its earliest kept record, 0: none */
	unsigned long long upto;		/* records the reader thread took by its end */
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
	bool leave;		/* two threads lost the trial: the reader thread ends */
	int ret;
	struct kmt_error err;

	struct kmt_session *s;
	struct merge *m;
	const struct kmt_decoder *dec;
	unsigned long long last_ts;
	unsigned long long taken;	/* records the reader thread took */
	uintptr_t held;			/* the earliest kept record of the batches out */
	bool slower_takes;		/* the calling thread is the slower: the reader waited last */
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

/*
 * The reader may not give back kept record @rec of @b, nor any after it
 * (kmt_reader_hold()): the other thread reads it from @b, and the batches
 * out before.
 */
static void hold_kept(struct pipe_state *p, struct batch *b, const struct kmt_record *rec)
{
	uintptr_t at = (uintptr_t)rec->data, chain = (uintptr_t)rec->callchain;

	if (rec->callchain_nr && chain < at)	/* perf's samples put it first */
		at = chain;
	if (b->oldest && b->oldest <= at)
		return;
	b->oldest = at;
	if (!p->held || at < p->held)
		kmt_reader_hold(p->s->reader, (const void *)at);
}

/*
 * Fill @b with the next records; 1 when filled, 0 at the end, -1 on error.
 * With @names, the cache names numbered (kmt_event.str_id), so that the
 * other thread's slab and leak need not read them.
 */
static int fill(struct pipe_state *p, struct batch *b, struct kmt_name_ids *names)
{
	struct merge *m = p->m;

	b->n = 0;
	b->used = 0;
	b->oldest = 0;
	kmt_reader_hold(p->s->reader, (const void *)p->held);
	while (m->n > 0 && b->n < BATCH_EVENTS) {
		const struct kmt_record *rec = kmt_merge_top(m);
		struct kmt_event *ev = &b->ev[b->n];

		kmt_replay_take(p->s, p->dec, rec, &p->last_ts, NULL, ev);
		if (names)
			ev->str_id = kmt_replay_cache_name_id(names, ev);
		if (kmt_replay_hand_out(p->s, &p->mine, ev, &p->err))
			return -1;
		if (p->batched & KMT_EVMASK(ev->type)) {
			if (copy_event(b, b->n, rec->kept)) {
				kmt_error_set(&p->err, p->s->input, -1, "out of memory");
				return -1;
			}
			if (rec->kept)
				hold_kept(p, b, rec);
			b->n++;
		}
		p->taken++;
		if (kmt_merge_advance(m, p->s->reader, &p->err))
			return -1;
	}
	b->upto = p->taken;
	repoint(b);
	return b->n > 0 || m->n > 0;
}

/* The earliest kept record of the batches out (under the lock), 0: none. */
static uintptr_t held_out(const struct pipe_state *p)
{
	uintptr_t held = 0;
	int i;

	for (i = 0; i < p->count; i++) {
		uintptr_t at = p->batches[(p->head + i) % BATCHES]->oldest;

		if (at && (!held || at < held))
			held = at;
	}
	return held;
}

static void *reader_thread(void *arg)
{
	struct pipe_state *p = arg;
	int ret = 0;

	for (;;) {
		struct batch *b;
		bool number;

		pthread_mutex_lock(&p->lock);
		while (p->count == BATCHES && !p->stop && !p->leave) {
			p->slower_takes = true;
			pthread_cond_wait(&p->changed, &p->lock);
		}
		b = p->stop || p->leave ? NULL : p->batches[(p->head + p->count) % BATCHES];
		p->held = held_out(p);
		number = p->slower_takes;
		pthread_mutex_unlock(&p->lock);
		if (!b)
			break;
		/* work moved to this thread only while the other one is the slower */
		ret = fill(p, b, number ? p->s->cache_names : NULL);
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

static double seconds_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Tell the reader thread, under the lock, to stop (@stop) or to end (else). */
static void tell_reader(struct pipe_state *p, bool stop)
{
	pthread_mutex_lock(&p->lock);
	if (stop)
		p->stop = true;
	else
		p->leave = true;
	pthread_cond_signal(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/*
 * Hand out every batch the reader thread fills, until it is done. With a
 * @trial, time the reader thread's next trial records once it took half
 * as many (the batches' memory and the caches warmed, as the one-thread
 * trial was), and tell it to end if two threads went slower than one. 0,
 * or -1 with @err filled when an analysis failed: then the reader thread
 * is told to stop.
 */
static int take_batches(struct pipe_state *p, const struct kmt_handouts *h,
			const struct kmt_thread_trial *trial, struct kmt_error *err)
{
	unsigned long long from = 0;
	double start = 0;

	for (;;) {
		struct batch *b;
		int i;

		pthread_mutex_lock(&p->lock);
		while (!p->count && !p->done) {
			p->slower_takes = false;
			pthread_cond_wait(&p->changed, &p->lock);
		}
		b = p->count ? p->batches[p->head] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!b)
			return 0;
		for (i = 0; i < b->n; i++) {
			if (p->s->objects && kmt_replay_follow_object(p->s->objects, &b->ev[i]))
				kmt_error_set(err, p->s->input, -1, "out of memory");
			else if (!kmt_replay_hand_out(p->s, h, &b->ev[i], err))
				continue;
			tell_reader(p, true);
			return -1;
		}
		if (trial && !from && b->upto >= trial->records / 2) {
			from = b->upto;
			start = seconds_now();
		} else if (trial && from && b->upto - from >= trial->records) {
			if (b->upto - from < trial->one_rate * (seconds_now() - start))
				tell_reader(p, false);
			trial = NULL;
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
 * Those that may go only by their options (page without stacks) go only
 * where some analysis stays in the calling thread: alone, they are the
 * calling thread's share of the work.
 */
static void split(const struct kmt_analysis *const *an, void *const *priv, int n,
		  const struct kmt_analysis **out_an, void **out_priv, int *nr)
{
	bool any_left = false;
	int i, k = 0, pass;

	for (i = 0; i < n; i++)
		any_left |= !kmt_analysis_in_reader_thread(an[i], priv[i]);
	*nr = 0;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if ((kmt_analysis_in_reader_thread(an[i], priv[i]) &&
			     (an[i]->reader_thread_ok || any_left)) == !pass) {
				out_an[k] = an[i];
				out_priv[k++] = priv[i];
				*nr += !pass;
			}
}

/*
 * The two threads of kmt_replay_two_threads(), the analyses split (@san,
 * @spriv: the reader thread's @nr first). 0 at the end, -1 with @err
 * filled, 1 when no second thread could start, 2 when it lost the @trial:
 * then the rest is for one thread.
 */
static int run_two(struct kmt_session *s, struct merge *m, const struct kmt_decoder *dec,
		   const struct kmt_analysis **san, void **spriv, int n, int nr,
		   unsigned long long *last_ts, const struct kmt_thread_trial *trial,
		   struct kmt_error *err)
{
	struct pipe_state p = { .s = s, .m = m, .dec = dec, .last_ts = *last_ts };
	struct kmt_handouts theirs = { .to = NULL };
	pthread_t reader;
	int i, ret = 1;

	if (kmt_handouts_init(&p.mine, s, san, spriv, nr) ||
	    kmt_handouts_init(&theirs, s, san + nr, spriv + nr, n - nr)) {
		kmt_handouts_free(&p.mine);
		return 1;
	}
	p.batched = theirs.taken;
	if (s->objects)	/* followed here: every one, whichever the analyses here take */
		p.batched |= KMT_SLAB_OBJECT_EVENTS;
	/* libtraceevent sorts its comms at the first lookup: before two threads may look */
	tep_data_comm_from_pid(s->tep, 1);
	for (i = 0; i < BATCHES; i++)
		if (!(p.batches[i] = calloc(1, sizeof(*p.batches[i]))))
			break;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.changed, NULL);
	if (i == BATCHES && !pthread_create(&reader, NULL, reader_thread, &p)) {
		int failed;

		s->replay.threads = 2;
		failed = take_batches(&p, &theirs, trial, err);
		pthread_join(reader, NULL);
		kmt_reader_hold(s->reader, NULL);	/* one thread from here, if any */
		*last_ts = p.last_ts;
		ret = failed ? -1 : p.ret;
		if (!failed && ret)
			*err = p.err;
		if (!ret && p.leave)
			ret = 2;
	}
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.lock);
	free_batches(&p);
	kmt_handouts_free(&p.mine);
	kmt_handouts_free(&theirs);
	return ret;
}

/* @an split between two threads and run_two(): its 0, -1, 1 or 2, 1 too when out of memory. */
static int try_two(struct kmt_session *s, struct merge *m, const struct kmt_decoder *dec,
		   const struct kmt_analysis *const *an, void *const *priv, int n,
		   unsigned long long *last_ts, const struct kmt_thread_trial *trial,
		   struct kmt_error *err)
{
	const struct kmt_analysis **san = malloc((n ? n : 1) * sizeof(*san));
	void **spriv = malloc((n ? n : 1) * sizeof(*spriv));
	int ret = 1, nr;

	if (san && spriv) {
		split(an, priv, n, san, spriv, &nr);
		/* all in the reader thread: nothing for this one to do, one is faster */
		if (nr < n)
			ret = run_two(s, m, dec, san, spriv, n, nr, last_ts, trial, err);
	}
	free(san);
	free(spriv);
	if (ret > 0)
		s->replay.threads = 1;
	return ret;
}

int kmt_replay_two_threads(struct kmt_session *s, struct merge *m,
			   const struct kmt_decoder *dec, const struct kmt_analysis *const *an,
			   void *const *priv, int n, unsigned long long *last_ts,
			   struct kmt_error *err)
{
	int ret = try_two(s, m, dec, an, priv, n, last_ts, NULL, err);

	return ret > 0 ? kmt_replay_one_thread(s, m, dec, an, priv, n, last_ts, err) : ret;
}

int kmt_replay_auto(struct kmt_session *s, struct merge *m, const struct kmt_decoder *dec,
		    const struct kmt_analysis *const *an, void *const *priv, int n,
		    struct kmt_error *err)
{
	struct kmt_thread_trial trial = { 0, s->thread_trial ? s->thread_trial : TRIAL_RECORDS };
	/* first the records that find the caches, maps and pages cold: not timed */
	unsigned long long last_ts = 0, alone = trial.records / 2;
	struct kmt_handouts h;
	int ret;

	if (kmt_handouts_init(&h, s, an, priv, n)) {
		kmt_error_set(err, s->input, -1, "out of memory");
		return -1;
	}
	do {
		double start, took;

		ret = kmt_replay_some(s, m, dec, &h, &last_ts, alone, err);
		start = seconds_now();
		if (!ret)
			ret = kmt_replay_some(s, m, dec, &h, &last_ts, trial.records, err);
		took = seconds_now() - start;
		trial.one_rate = (double)trial.records / (took > 1e-9 ? took : 1e-9);
		if (ret || !m->n)
			break;
		ret = try_two(s, m, dec, an, priv, n, &last_ts, &trial, err);
		alone = RETRY_AFTER * trial.records;
	} while (ret == 2);
	kmt_handouts_free(&h);
	return ret == 1 ? kmt_replay_one_thread(s, m, dec, an, priv, n, &last_ts, err) : ret;
}
