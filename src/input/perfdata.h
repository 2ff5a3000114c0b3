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

/*
 * The mapped records before file offset @upto are no longer in use: give
 * their pages back (in large steps, a few MiB behind, where a second replay
 * thread may still read kept records), so that memory follows a window of
 * the file. Kept records there stay readable (the kernel reads them again).
 */
void kmt_pd_stream_release(struct pd_stream *s, uint64_t upto);

/* Copy the next @n bytes of the stream (outside any record) to @dst. 0 or -1. */
int kmt_pd_stream_read(struct pd_stream *s, void *dst, size_t n, struct kmt_error *err);

/* Free the buffers and close the file. */
void kmt_pd_stream_free(struct pd_stream *s);

/* Samples waiting to be handed out in time order. */
struct pd_chunk;

struct pd_sample {
	uint64_t ts;
	uint64_t seq;			/* file order, for equal times */
	const void *data;		/* RAW payload (the ftrace entry) */
	const unsigned long long *chain;	/* callchain, or NULL */
	struct pd_chunk *chunk;		/* where data and chain are kept */
	uint32_t size, nchain, cpu;
};

struct pd_queue {
	struct pd_sample *s;		/* items [head, n), in time order */
	uint32_t head, n, cap;
};

struct pd_order {
	struct pd_queue *cpus;
	uint32_t ncpus;
	uint32_t *ready;		/* heap of the CPUs with samples queued */
	uint32_t nready, ready_cap;
	struct pd_sample *late;		/* heap of samples that came out of order */
	uint32_t nlate, late_cap;
	struct pd_chunk *chunk;		/* where new samples are copied */
	struct pd_chunk *held;		/* of the sample handed out last */
	uint64_t seq;
	uint64_t flush_limit;		/* samples at or before it are final */
	uint64_t round_max;		/* latest time seen so far */
	uint64_t round_max_prev;	/* round_max when the last round ended */
};

/*
 * Queue a sample of @cpu: copies @size bytes of @data and @nchain callchain
 * entries, unless @kept says they stay valid until kmt_pd_order_free().
 * Returns 0 or -1 (out of memory).
 */
int kmt_pd_order_add(struct pd_order *o, uint32_t cpu, uint64_t ts, const void *data,
		     uint32_t size, const void *chain, uint32_t nchain, bool kept);

/* PERF_RECORD_FINISHED_ROUND: samples up to the last round's end are final. */
void kmt_pd_order_round(struct pd_order *o);

/*
 * The earliest queued sample if it is final (or @all: there is no more
 * input), in *@out and its CPU in *@cpu, valid until the next call. Returns
 * true when one was taken.
 */
bool kmt_pd_order_take(struct pd_order *o, bool all, struct pd_sample *out, uint32_t *cpu);

/* Free all queued samples. */
void kmt_pd_order_free(struct pd_order *o);

#endif /* KMT_PERFDATA_H */
