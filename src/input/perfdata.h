/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * perf.data reading in three parts: the byte stream cut into records
 * (perfdata_stream.c, with PERF_RECORD_COMPRESSED unpacked), the samples
 * put back in time order (perfdata_order.c), and the format itself
 * (perfdata.c). Private to src/.
 */
#ifndef KMT_PERFDATA_H
#define KMT_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/pager.h"

struct kmt_error;

/* Records of a perf.data, read sequentially from a file or a pipe. */
struct pd_stream {
	const char *path;
	int fd;
	bool seekable;		/* pread at the offset; else read() in order */
	bool mapped;		/* buf is the whole file, mapped: nothing is copied */
	unsigned char *buf;	/* bytes [start, end) are those at offset pos */
	size_t start, end, cap;
	uint64_t pos;
	uint64_t limit;		/* offset where the records end; UINT64_MAX: at EOF */
	void *zstd;		/* ZSTD_DStream, made at the first compressed record */
	unsigned char *unz;	/* unpacked records [unz_start, unz_end) */
	size_t unz_start, unz_end, unz_cap;
	uint64_t unz_at;	/* offset of the compressed record they came from */
	uint64_t released;	/* mapped pages before it were given back */
	size_t ahead;		/* where map_ahead() is due next */
	size_t paged;		/* bytes before it went to the pager */
	struct kmt_pager pager;	/* reads the mapped file ahead */
};

/* One record: its header as the file has it, and where it was found. */
struct pd_record {
	const unsigned char *data;	/* valid until the next kmt_pd_stream_next(),
					   or until closing when it is kept (mapped) */
	uint32_t type;
	uint16_t size;
	uint64_t offset;	/* file offset (of the compressed record, if unpacked) */
	bool unpacked;
	bool kept;		/* data stays where it is until the stream is freed */
};

/*
 * Read records of @fd from @offset up to @limit (UINT64_MAX: end of file).
 * @head holds the first @head_len bytes of the stream, already read when it
 * is not seekable. Returns 0 or -1 with @err filled.
 */
int kmt_pd_stream_init(struct pd_stream *s, const char *path, int fd, const void *head,
		   size_t head_len, uint64_t offset, uint64_t limit, struct kmt_error *err);

/*
 * The next record, compressed ones unpacked. Returns 1, 0 at the end of the
 * records, -1 on a read error or cut record (fills @err).
 */
int kmt_pd_stream_next(struct pd_stream *s, struct pd_record *rec, struct kmt_error *err);

#define PD_RELEASE_STEP	(1u << 20)	/* mapped pages go back in steps this large, */
#define PD_RELEASE_LAG	(2u << 20)	/* this far behind (> what the replay's batches reach) */

/*
 * The mapped records before file offset @upto are no longer in use: give
 * their pages back (PD_RELEASE_LAG behind), so that memory follows a window
 * of the file, but none at or after @hold (a kept record a second replay
 * thread still reads, kmt_reader_hold(); NULL: none). Kept records given
 * back stay readable: the kernel reads them in again.
 */
void kmt_pd_stream_release(struct pd_stream *s, uint64_t upto, const void *hold);

/* Copy the next @n bytes of the stream (outside any record) to @dst. 0 or -1. */
int kmt_pd_stream_read(struct pd_stream *s, void *dst, size_t n, struct kmt_error *err);

/* Free the buffers and close the file. */
void kmt_pd_stream_free(struct pd_stream *s);

/* Samples waiting to be handed out in time order. */
struct pd_chunk;

/*
 * 32 bytes: a round of a big perf.data queues about 130,000. The callchain
 * lies right before the payload's u32 size, as perf writes them (and as
 * a copy keeps them); a copy's chunk before its callchain. A record's u16
 * size bounds the payload and the callchain.
 */
struct pd_sample {
	uint64_t ts;
	const void *data;		/* RAW payload (the ftrace entry) */
	uint32_t seq;			/* file order, for equal times (mod 2^32) */
	uint32_t tid;			/* the sample's thread */
	uint32_t cpu;
	uint16_t size;
	uint16_t nchain : 15,		/* callchain entries */
		 copied : 1;		/* data and chain in a chunk, not the file */
};

#define PD_MAX_CHAIN	((1u << 15) - 1)

/* Where @nchain callchain entries start when they end 4 bytes before @data, as perf's do. */
static inline const char *kmt_pd_chain_at(const void *data, uint32_t nchain)
{
	return (const char *)data - 4 - 8 * (size_t)nchain;
}

/* @s's callchain, NULL when it has none. */
static inline const unsigned long long *kmt_pd_sample_chain(const struct pd_sample *s)
{
	return s->nchain ? (const void *)kmt_pd_chain_at(s->data, s->nchain) : NULL;
}

/* Is @nchain entries' @chain where a sample keeps it (kmt_pd_chain_at())? */
static inline bool kmt_pd_chain_in_place(const void *chain, uint32_t nchain, const void *data)
{
	return !nchain || (const char *)chain == kmt_pd_chain_at(data, nchain);
}

/* The chunk @s was copied into (just before its callchain), NULL when it is read in place. */
static inline struct pd_chunk *kmt_pd_sample_chunk(const struct pd_sample *s)
{
	struct pd_chunk *c = NULL;

	if (s->copied)
		memcpy(&c, kmt_pd_chain_at(s->data, s->nchain) - sizeof(c), sizeof(c));
	return c;
}

struct pd_queue {
	struct pd_sample *s;		/* items [head, n), in time order */
	uint32_t head, n, cap;
};

/* A CPU with samples queued, keyed by its first one. */
struct pd_ready {
	uint64_t ts;
	uint32_t seq, cpu;
};

#define PD_TAKE_MAX	256	/* samples taken between two releases */

struct pd_order {
	struct pd_queue *cpus;
	uint32_t ncpus;
	struct pd_ready *ready;		/* heap of the CPUs with samples queued */
	uint32_t nready, ready_cap;
	struct pd_sample *late;		/* heap of samples that came out of order */
	uint32_t nlate, late_cap;
	struct pd_chunk *chunk;		/* where new samples are copied */
	struct pd_sample taken;		/* a late sample handed out */
	struct pd_held {		/* chunks of the samples handed out since the */
		struct pd_chunk *chunk;	/* last kmt_pd_order_release(), and how */
		uint32_t samples;	/* many samples of each */
	} held[PD_TAKE_MAX];
	uint32_t nheld;
	uint32_t seq;
	uint64_t flush_limit;		/* samples at or before it are final */
	uint64_t round_max;		/* latest time seen so far */
	uint64_t round_max_prev;	/* round_max when the last round ended */
};

/* kmt_pd_order_add() of a sample its inline path does not queue. 0 or -1. */
int kmt_pd_order_add_slow(struct pd_order *o, uint32_t cpu, uint32_t tid, uint64_t ts,
			  const void *data, uint32_t size, const void *chain, uint32_t nchain,
			  bool kept);

/* @s, alone in its CPU's queue now, joins the heap of ready CPUs (it has room). */
void kmt_pd_order_ready(struct pd_order *o, const struct pd_sample *s);

/* Would a sample of time @ts come earlier than the last one queued in @q? */
static inline bool kmt_pd_queue_late(const struct pd_queue *q, uint64_t ts)
{
	return q->head < q->n && q->s[q->n - 1].ts > ts;
}

/*
 * Queue a sample of thread @tid on @cpu: copies @size bytes of @data and @nchain callchain
 * entries, unless @kept says they stay valid until kmt_pd_order_free() and
 * the callchain ends 4 bytes before @data (perf's layout). Returns 0 or -1
 * (out of memory, or @size or @nchain more than a perf record holds).
 * Inline: most samples of a mapped file go, in time order, after the last
 * of their CPU's queue, which has room.
 */
static inline int kmt_pd_order_add(struct pd_order *o, uint32_t cpu, uint32_t tid, uint64_t ts,
				   const void *data, uint32_t size, const void *chain,
				   uint32_t nchain, bool kept)
{
	struct pd_queue *q = cpu < o->ncpus ? &o->cpus[cpu] : NULL;
	struct pd_sample *s;

	if (ts > o->round_max)
		o->round_max = ts;
	if (!kept || !kmt_pd_chain_in_place(chain, nchain, data) || !q || q->n == q->cap ||
	    kmt_pd_queue_late(q, ts) || (q->head == q->n && o->nready == o->ready_cap) ||
	    size > UINT16_MAX || nchain > PD_MAX_CHAIN)
		return kmt_pd_order_add_slow(o, cpu, tid, ts, data, size, chain, nchain, kept);
	s = &q->s[q->n++];
	*s = (struct pd_sample){ .ts = ts, .data = data, .seq = o->seq++, .tid = tid,
				 .cpu = cpu, .size = size, .nchain = nchain };
	if (q->n - q->head == 1)
		kmt_pd_order_ready(o, s);
	return 0;
}

/* PERF_RECORD_FINISHED_ROUND: samples up to the last round's end are final. */
void kmt_pd_order_round(struct pd_order *o);

/*
 * The earliest queued sample if it is final (or @all: there is no more
 * input), NULL when there is none. The sample itself is valid until the
 * next call and until the next sample is queued, its payload and callchain
 * until kmt_pd_order_release(), which must come at least every
 * PD_TAKE_MAX samples.
 */
const struct pd_sample *kmt_pd_order_take(struct pd_order *o, bool all);

/* The samples taken so far are no longer read: their copies may go. */
void kmt_pd_order_release(struct pd_order *o);

/* Free all queued samples. */
void kmt_pd_order_free(struct pd_order *o);

/* A thread's name from a time on (a COMM record, or its parent's at fork). */
struct pd_task_name {
	uint64_t ts;
	const char *comm;
};

/* A thread as the side-band records tell it; -1 and NULL where they do not. */
struct pd_task {
	uint32_t tid;
	int tgid, ppid;
	long long start_ns, exit_ns;
	struct pd_task_name *names;	/* in time order */
	uint32_t nnames, cap_names;
	const char *exe;		/* the program mapped at exe_ns */
	uint64_t exe_ns, exec_ns;	/* ... and its last exec (0: none seen) */
	uint64_t cgroup, pidns;		/* cgroup id of its samples; pid namespace inode */
	uint64_t fork_ns;		/* forked then (forked) by thread parent_tid */
	uint32_t parent_tid;
	bool have_cgroup, forked;
};

struct pd_tasks {
	struct kmt_hashmap index;	/* tid -> tasks[] */
	struct pd_task *tasks;
	uint32_t n, cap;
	struct kmt_hashmap string_index;	/* hash of a name or path -> strings[] */
	char **strings;
	uint32_t nstrings, cap_strings;
	struct kmt_hashmap cgroups;	/* cgroup id -> its path (a string) */
	uint32_t hint, hint_tid;	/* the task of the last name looked up */
	bool hint_set;
	uint64_t changes;		/* COMM and FORK records taken so far */
	struct pd_name_hint {		/* the hint's name, the same for times in [from, until) */
		const char *name;
		uint64_t from, until, changes;	/* while no record changed the tasks */
	} hint_name;
	unsigned long long unnamed;	/* samples of a thread no record named */
};

struct kmt_proctable;
struct tep_handle;

/* Ready @t; 0, or -1 when out of memory. */
int kmt_pd_tasks_init(struct pd_tasks *t);

/* Free what @t holds. */
void kmt_pd_tasks_free(struct pd_tasks *t);

/*
 * PERF_RECORD_COMM: thread @tid of process @pid is named @comm (at most
 * @len bytes) from @ts on; @exec: by an exec. 0, or -1 when out of memory.
 */
int kmt_pd_tasks_comm(struct pd_tasks *t, uint32_t pid, uint32_t tid, uint64_t ts,
		      const char *comm, size_t len, bool exec);

/* PERF_RECORD_FORK: @tid of process @pid made by @ptid of @ppid at @ts. 0 or -1. */
int kmt_pd_tasks_fork(struct pd_tasks *t, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint32_t ptid, uint64_t ts);

/* PERF_RECORD_EXIT of @tid of process @pid, whose parent is @ppid, at @ts. 0 or -1. */
int kmt_pd_tasks_exit(struct pd_tasks *t, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint64_t ts);

/*
 * An executable file mapping of @tid at @ts: its program when the first
 * after its last exec. 0 or -1.
 */
int kmt_pd_tasks_exec_map(struct pd_tasks *t, uint32_t tid, uint64_t ts, const char *path,
			  size_t len);

/* PERF_RECORD_NAMESPACES: @tid's pid namespace is inode @inode. 0 or -1. */
int kmt_pd_tasks_pidns(struct pd_tasks *t, uint32_t tid, uint64_t inode);

/* PERF_RECORD_CGROUP: cgroup @id is @path (at most @len bytes). 0 or -1. */
int kmt_pd_tasks_cgroup_path(struct pd_tasks *t, uint64_t id, const char *path, size_t len);

/* A sample of @tid in cgroup @id (PERF_SAMPLE_CGROUP). 0 or -1. */
int kmt_pd_tasks_sample_cgroup(struct pd_tasks *t, uint32_t tid, uint64_t id);

/*
 * The name @tid had at @ts, valid until @t is freed; NULL (and counted in
 * t->unnamed) when no record named it.
 */
const char *kmt_pd_tasks_name(struct pd_tasks *t, uint32_t tid, uint64_t ts);

/* The tasks into @procs (what it does not know yet). 0, or -1 when out of memory. */
int kmt_pd_tasks_finish(const struct pd_tasks *t, struct kmt_proctable *procs);

/*
 * The last name thread @tid had, as perf report shows it for a
 * per-process row, valid until @t is freed; NULL if none.
 */
const char *kmt_pd_tasks_last_name(const struct pd_tasks *t, uint32_t tid);

#endif /* KMT_PERFDATA_H */
