// SPDX-License-Identifier: LGPL-2.1
/*
 * Replay: merge the per-CPU streams by timestamp, decode each record once
 * and hand it to the analyses that want its type.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/reader.h>
#include "replay_local.h"
#include "common/objmap.h"
#include "common/proctable.h"

#define MERGED_BATCH	256	/* records of a merged stream read at once */
#define CPU_BATCHES	2048	/* records of all CPU streams at hand at most */
#define CPU_BATCH	32	/* ... and of one */

/* Stream @stream's next batch; how many records, 0 at its end, -1 on error. */
static int refill(struct merge *m, struct kmt_reader *r, int stream, struct kmt_error *err)
{
	struct kmt_record *b = m->recs + (size_t)stream * m->batch;
	int got = m->merged ? kmt_reader_next_batch(r, b, m->batch, err) :
		  kmt_reader_next_cpu_batch(r, stream, b, m->batch, err);

	m->cur[stream] = b;
	m->end[stream] = b + (got > 0 ? got : 0);
	return got;
}

void kmt_merge_sift_down(struct merge *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i, t;

		if (l < m->n && kmt_merge_earlier(m, l, min))
			min = l;
		if (r < m->n && kmt_merge_earlier(m, r, min))
			min = r;
		if (min == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

int kmt_merge_next(struct merge *m, struct kmt_reader *r, struct kmt_error *err)
{
	int got = refill(m, r, m->heap[0], err);

	if (got < 0)
		return -1;
	if (got == 0)
		m->heap[0] = m->heap[--m->n];
	kmt_merge_settle(m);
	return 0;
}

/* Records a stream reads at once: the CPUs' batches together stay small. */
static int batch_of(const struct merge *m, int streams)
{
	int b = CPU_BATCHES / streams;

	if (m->merged)
		return MERGED_BATCH;
	return b < 1 ? 1 : b > CPU_BATCH ? CPU_BATCH : b;
}

static int merge_init(struct merge *m, const struct kmt_session *s, struct kmt_error *err)
{
	struct kmt_reader *r = s->reader;
	int streams, i;

	m->merged = kmt_reader_merged(r);
	streams = m->merged ? 1 : kmt_reader_cpus(r) > 0 ? kmt_reader_cpus(r) : 1;
	m->batch = batch_of(m, streams);
	m->recs = calloc((size_t)streams * m->batch, sizeof(*m->recs));
	m->cur = calloc(streams, sizeof(*m->cur));
	m->end = calloc(streams, sizeof(*m->end));
	m->heap = calloc(streams, sizeof(*m->heap));
	m->n = 0;
	if (!m->recs || !m->cur || !m->end || !m->heap) {
		kmt_error_set(err, s->input, -1, "out of memory");
		return -1;
	}
	for (i = 0; i < streams; i++) {
		int got = refill(m, r, i, err);

		if (got < 0)
			return -1;
		if (got)
			m->heap[m->n++] = i;
	}
	for (i = m->n / 2 - 1; i >= 0; i--)
		kmt_merge_sift_down(m, i);
	return 0;
}

static void merge_free(struct merge *m)
{
	free(m->recs);
	free(m->cur);
	free(m->end);
	free(m->heap);
}

/* @ev's text (comm, file name) into @buf, NUL-terminated. */
static const char *event_text(const struct kmt_event *ev, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", ev->str_len, ev->str ? ev->str : "");
	return buf;
}

/*
 * What a fork, an exec or an exit tells of a task into the reader's process
 * table, where /proc did not show it: a child's parent, comm, and
 * (inherited) its executable and cgroup; a new executable; its end.
 */
static void note_process(struct kmt_session *s, const struct kmt_event *ev)
{
	struct kmt_proctable *procs = kmt_reader_processes(s->reader);
	struct kmt_process p = { .pid = (int)ev->target_pid, .tgid = -1, .ppid = -1,
				 .start_ns = -1, .exit_ns = -1, .seen_ns = -1 };
	const struct kmt_process *parent;
	char text[4096];

	if (!procs)
		return;
	if (ev->type == KMT_EV_EXIT) {
		p.exit_ns = ev->ts;
		kmt_proctable_merge(procs, &p, false);
		return;
	}
	if (ev->type == KMT_EV_EXEC) {
		kmt_proctable_exec(procs, p.pid, event_text(ev, text, sizeof(text)),
				   (long long)ev->ts);
		return;
	}
	parent = kmt_proctable_find(procs, ev->pid);
	p.ppid = parent && parent->tgid >= 0 ? parent->tgid : ev->pid;
	p.comm = event_text(ev, text, sizeof(text));
	if (parent) {
		p.exe = parent->exe;
		p.cgroup = parent->cgroup;
		p.container = parent->container;
	}
	kmt_proctable_merge(procs, &p, false);
}

int kmt_replay_take(struct kmt_session *s, const struct kmt_decoder *dec,
		    const struct kmt_record *rec, unsigned long long *last_ts,
		    struct kmt_objmap *objects, struct kmt_event *ev)
{
	kmt_decode(dec, rec->data, rec->size, ev);
	if (ev->flags & KMT_EVF_IMPOSSIBLE) {	/* set on known types only */
		ev->type = KMT_EV_UNKNOWN;
		s->replay.impossible++;
	}
	if (rec->ts < *last_ts)
		s->replay.out_of_order++;
	else
		*last_ts = rec->ts;
	ev->ts = *last_ts;
	s->replay.types[ev->type]++;
	if (ev->type == KMT_EV_FORK || ev->type == KMT_EV_EXEC || ev->type == KMT_EV_EXIT)
		note_process(s, ev);
	ev->cpu = rec->cpu;
	ev->callchain = rec->callchain;
	ev->callchain_nr = rec->callchain_nr;
	ev->raw = rec->data;
	ev->raw_size = rec->size;
	ev->comm = rec->comm;
	ev->text = rec->text;
	ev->text_event = rec->text_event;
	return objects ? kmt_replay_follow_object(objects, ev) : 0;
}

int kmt_handouts_init(struct kmt_handouts *h, const struct kmt_session *s,
		      const struct kmt_analysis *const *an, void *const *priv, int n)
{
	kmt_evmask_t *taken = malloc(((size_t)n + 1) * sizeof(*taken));
	int t, i, k = 0;

	h->to = malloc(((size_t)KMT_EV_NR * n + 1) * sizeof(*h->to));
	if (!h->to || !taken) {
		free(taken);
		kmt_handouts_free(h);
		return -1;
	}
	h->taken = 0;
	for (i = 0; i < n; i++) {
		taken[i] = kmt_events_taken(s, an[i]);
		h->taken |= taken[i];
	}
	for (t = 0; t < KMT_EV_NR; t++) {
		h->start[t] = k;
		for (i = 0; i < n; i++)
			if (taken[i] & KMT_EVMASK(t))
				h->to[k++] = (struct kmt_taker){ an[i], priv[i] };
	}
	h->start[KMT_EV_NR] = k;
	free(taken);
	return 0;
}

void kmt_handouts_free(struct kmt_handouts *h)
{
	free(h->to);
	h->to = NULL;
}

int kmt_replay_failed(const struct kmt_session *s, const struct kmt_analysis *an,
		      struct kmt_error *err)
{
	kmt_error_set(err, s->input, -1, "%s: %s", an->name, strerror(errno ? errno : ENOMEM));
	return -1;
}

/*
 * kmt_replay_some(), inline in both callers so that the loop of a whole
 * replay (@bounded false) keeps no count and the time in a register.
 */
static inline __attribute__((always_inline)) int
replay_loop(struct kmt_session *s, struct merge *m, const struct kmt_decoder *dec,
	    const struct kmt_handouts *h, unsigned long long *last_ts,
	    unsigned long long limit, bool bounded, struct kmt_error *err)
{
	unsigned long long ts = *last_ts;
	int ret = 0;

	for (; m->n > 0 && (!bounded || limit); limit--) {
		struct kmt_event ev;

		if (kmt_replay_take(s, dec, kmt_merge_top(m), &ts, s->objects, &ev)) {
			kmt_error_set(err, s->input, -1, "out of memory");
			ret = -1;
			break;
		}
		if (kmt_replay_hand_out(s, h, &ev, err) || kmt_merge_advance(m, s->reader, err)) {
			ret = -1;
			break;
		}
	}
	*last_ts = ts;
	return ret;
}

int kmt_replay_some(struct kmt_session *s, struct merge *m, const struct kmt_decoder *dec,
		    const struct kmt_handouts *h, unsigned long long *last_ts,
		    unsigned long long limit, struct kmt_error *err)
{
	return replay_loop(s, m, dec, h, last_ts, limit, true, err);
}

int kmt_replay_one_thread(struct kmt_session *s, struct merge *m,
			  const struct kmt_decoder *dec, const struct kmt_analysis *const *an,
			  void *const *priv, int n, unsigned long long *last_ts,
			  struct kmt_error *err)
{
	struct kmt_handouts h;
	int ret;

	if (kmt_handouts_init(&h, s, an, priv, n)) {
		kmt_error_set(err, s->input, -1, "out of memory");
		return -1;
	}
	ret = replay_loop(s, m, dec, &h, last_ts, 0, false, err);
	kmt_handouts_free(&h);
	return ret;
}

/*
 * Fields are decoded of the events the @n analyses take (but those that
 * read types only), and of forks, execs and exits (the process table
 * follows them); of the others the type and the fields that tell whether
 * their values are possible, for the counts per type.
 */
static void decode_only_taken(struct kmt_decoder *dec, const struct kmt_session *s,
			      const struct kmt_analysis *const *an, int n)
{
	kmt_evmask_t taken = KMT_EVMASK(KMT_EV_FORK) | KMT_EVMASK(KMT_EV_EXEC) |
			     KMT_EVMASK(KMT_EV_EXIT);
	bool want[KMT_EV_NR];
	int i;

	for (i = 0; i < n; i++)
		taken |= kmt_events_taken(s, an[i]) & ~an[i]->types_only;
	for (i = 0; i < KMT_EV_NR; i++)
		want[i] = taken & KMT_EVMASK(i);
	kmt_decoder_only(dec, want);
}

/* Does one of the @n analyses @an find its slab objects by kmt_event.obj? */
static bool objects_wanted(const struct kmt_analysis *const *an, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (an[i]->slab_objects)
			return true;
	return false;
}

/* May the replay of @s read the input on a thread of its own? */
static bool may_read_apart(const struct kmt_session *s)
{
	return (s->threads == KMT_THREADS_AUTO || s->threads > 1) &&
	       kmt_reader_reads_apart(s->reader);
}

int kmt_replay(struct kmt_session *s, const struct kmt_analysis *const *an,
	       void *const *priv, int n, struct kmt_error *err)
{
	struct kmt_name_ids cache_names;
	struct kmt_objmap objects;
	struct kmt_decoder *dec;
	struct merge m = { 0 };
	int ret = -1;

	errno = 0;	/* what an analysis that stops the replay failed on */
	dec = kmt_decoder_new(s->tep);
	s->objects = objects_wanted(an, n) ? &objects : NULL;
	if (!dec || (s->objects && kmt_objmap_init(&objects, 0))) {
		kmt_decoder_free(dec);
		s->objects = NULL;
		kmt_error_set(err, s->input, -1, "out of memory");
		return -1;
	}
	/* numbered for them by a reader thread; without the numbers they look the names up */
	if (s->objects && may_read_apart(s) && !kmt_name_ids_init(&cache_names))
		s->cache_names = &cache_names;
	decode_only_taken(dec, s, an, n);
	s->replay.threads = 1;
	if (!merge_init(&m, s, err)) {
		unsigned long long last_ts = 0;

		if (s->threads == KMT_THREADS_AUTO && may_read_apart(s))
			ret = kmt_replay_auto(s, &m, dec, an, priv, n, err);
		else if (may_read_apart(s))
			ret = kmt_replay_two_threads(s, &m, dec, an, priv, n, &last_ts, err);
		else
			ret = kmt_replay_one_thread(s, &m, dec, an, priv, n, &last_ts, err);
	}
	if (!ret && kmt_reader_finish(s->reader)) {
		kmt_error_set(err, s->input, -1, "out of memory");
		ret = -1;
	}
	merge_free(&m);
	kmt_decoder_free(dec);
	if (s->objects)
		kmt_objmap_free(&objects);
	if (s->cache_names)
		kmt_name_ids_free(s->cache_names);
	s->objects = NULL;
	s->cache_names = NULL;
	return ret;
}

bool kmt_analysis_in_reader_thread(const struct kmt_analysis *an, const void *priv)
{
	return !an->slab_objects &&	/* their slots are numbered in the calling thread */
	       (an->reader_thread_ok ||
		(an->reader_thread_ok_with && an->reader_thread_ok_with(priv)));
}

/* Is an event of @type in the recording? */
static bool recorded(const struct kmt_session *s, enum kmt_event_type type)
{
	return s->replay.types[type] ||
	       (kmt_reader_formats_recorded(s->reader) &&
		tep_find_event_by_name(s->tep, kmt_event_type_system(type),
				       kmt_event_type_event(type)));
}

/* Is an event of one of @need's types in the recording? */
static bool need_met(const struct kmt_session *s, const struct kmt_need *need)
{
	int t;

	for (t = KMT_EV_UNKNOWN + 1; t < KMT_EV_NR; t++)
		if ((need->any & KMT_EVMASK(t)) && recorded(s, t))
			return true;
	return false;
}

kmt_evmask_t kmt_events_taken(const struct kmt_session *s, const struct kmt_analysis *an)
{
	/* text input names its formats itself, or learns them as it reads */
	if (an->idle_without_first_need && an->needs && an->needs[0].any &&
	    kmt_reader_formats_recorded(s->reader) && kmt_reader_reads_apart(s->reader) &&
	    !need_met(s, &an->needs[0]))
		return 0;
	return an->events;
}

/* "a or b (without)" of the types in @need into @buf at @at; the new length. */
static size_t say_need(const struct kmt_need *need, char *buf, size_t len, size_t at)
{
	const char *sep = at ? "; " : "";
	int t;

	for (t = KMT_EV_UNKNOWN + 1; t < KMT_EV_NR && at < len; t++) {
		if (!(need->any & KMT_EVMASK(t)))
			continue;
		at += snprintf(buf + at, len - at, "%s%s", sep, kmt_event_type_name(t));
		sep = " or ";
	}
	if (at < len)
		at += snprintf(buf + at, len - at, " (%s)", need->without);
	return at;
}

int kmt_missing_events(const struct kmt_session *s, const struct kmt_analysis *an, char *buf,
		       size_t len)
{
	const struct kmt_need *need;
	size_t at = 0;
	int missing = 0;

	if (len)
		buf[0] = '\0';
	for (need = an->needs; need && need->any; need++) {
		if (need_met(s, need))
			continue;
		missing++;
		at = say_need(need, buf, len, at);
	}
	return missing;
}
