// SPDX-License-Identifier: LGPL-2.1
/*
 * Write a trace-cmd compatible trace.dat, version 6, in host byte order,
 * from header texts and per-CPU raw ring-buffer pages. The file is written
 * front to back in one pass (so a pipe or a device can take it): every
 * size is known before the first byte goes out. The per-CPU data is read
 * in chunks, its events counted sub-buffer by sub-buffer, and the blocks
 * of the input can be freed as they are copied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "subbuf.h"
#include "tracedat.h"
#include "common/util.h"

#define COPY_CHUNK	(1u << 20)

/* An option whose data comes from a file: where it goes in the header. */
struct hole {
	size_t at;		/* bytes of the assembled header before it */
	int fd;
	uint64_t size;
};

/* A growable buffer the header is assembled in, with the file-backed holes. */
struct obuf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;
	struct hole *holes;
	int nholes;
	uint64_t hole_bytes;
};

static void put(struct obuf *b, const void *p, size_t len)
{
	if (b->failed || !len)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *n;

		while (cap < b->len + len)
			cap *= 2;
		n = realloc(b->data, cap);
		if (!n) {
			b->failed = true;
			return;
		}
		b->data = n;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, len);
	b->len += len;
}

static void put_u16(struct obuf *b, uint16_t v) { put(b, &v, 2); }
static void put_u32(struct obuf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct obuf *b, uint64_t v) { put(b, &v, 8); }
static void put_str(struct obuf *b, const char *s) { put(b, s, strlen(s) + 1); }

static void put_blob64(struct obuf *b, const struct kmt_td_blob *blob)
{
	put_u64(b, blob->len);
	put(b, blob->data, blob->len);
}

/* @size bytes of @fd go here when the header is written. */
static void put_hole(struct obuf *b, int fd, uint64_t size)
{
	struct hole *n = realloc(b->holes, (b->nholes + 1) * sizeof(*n));

	if (!n) {
		b->failed = true;
		return;
	}
	b->holes = n;
	n[b->nholes++] = (struct hole){ b->len, fd, size };
	b->hole_bytes += size;
}

static void put_blob32(struct obuf *b, const struct kmt_td_blob *blob)
{
	put_u32(b, blob->len);
	if (blob->data)
		put(b, blob->data, blob->len);
	else if (blob->len)
		put_hole(b, blob->src_fd, blob->len);
}

static void put_ftrace_formats(struct obuf *b, const struct kmt_tracedat_meta *m)
{
	int i, n = 0;

	for (i = 0; i < m->nformats; i++)
		n += !strcmp(m->formats[i].system, "ftrace");
	put_u32(b, n);
	for (i = 0; i < m->nformats; i++) {
		if (strcmp(m->formats[i].system, "ftrace"))
			continue;
		put_u64(b, m->formats[i].len);
		put(b, m->formats[i].text, m->formats[i].len);
	}
}

/* True if format @i is the first of its system (formats need not be sorted). */
static bool first_of_system(const struct kmt_tracedat_meta *m, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!strcmp(m->formats[j].system, m->formats[i].system))
			return false;
	return true;
}

static void put_event_formats(struct obuf *b, const struct kmt_tracedat_meta *m)
{
	int i, j, nsys = 0;

	for (i = 0; i < m->nformats; i++)
		nsys += strcmp(m->formats[i].system, "ftrace") && first_of_system(m, i);
	put_u32(b, nsys);
	for (i = 0; i < m->nformats; i++) {
		const char *sys = m->formats[i].system;
		int count = 0;

		if (!strcmp(sys, "ftrace") || !first_of_system(m, i))
			continue;
		for (j = i; j < m->nformats; j++)
			count += !strcmp(m->formats[j].system, sys);
		put_str(b, sys);
		put_u32(b, count);
		for (j = i; j < m->nformats; j++) {
			if (strcmp(m->formats[j].system, sys))
				continue;
			put_u64(b, m->formats[j].len);
			put(b, m->formats[j].text, m->formats[j].len);
		}
	}
}

static char host_is_big_endian(void)
{
	const uint16_t probe = 1;

	return *(const char *)&probe == 0;
}

static void put_options(struct obuf *b, const struct kmt_tracedat_meta *m)
{
	int i;

	put(b, "options  ", 10);
	for (i = 0; i < m->noptions; i++) {
		const struct kmt_td_option *o = &m->options[i];

		put_u16(b, o->id);
		put_u32(b, o->size);
		if (o->data)
			put(b, o->data, o->size);
		else
			put_hole(b, o->src_fd, o->size);
	}
	put_u16(b, KMT_TD_OPT_DONE);
}

static void put_header(struct obuf *b, const struct kmt_tracedat_meta *m, int ncpus)
{
	put(b, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN);
	put_str(b, "6");
	put(b, &(char){ host_is_big_endian() }, 1);
	put(b, &(char){ (char)m->long_size }, 1);
	put_u32(b, m->page_size);
	put_str(b, "header_page");
	put_blob64(b, &m->header_page);
	put_str(b, "header_event");
	put_blob64(b, &m->header_event);
	put_ftrace_formats(b, m);
	put_event_formats(b, m);
	put_blob32(b, &m->kallsyms);
	put_blob32(b, &m->printk);
	put_blob64(b, &m->cmdlines);
	put_u32(b, ncpus);
	put_options(b, m);
	put(b, "flyrecord", 10);
}

/* What a copy is doing: progress, cancellation, counting. */
struct copier {
	const struct kmt_td_copy *opt;
	unsigned char *buf;
	uint64_t done, total;
	bool counting;			/* the sub-buffer layout is known */
	struct kmt_rb_order order;	/* the host's */
	unsigned int subbuf, page_header, long_size;
};

static bool cancelled(struct copier *c)
{
	if (c->opt && c->opt->progress)
		c->opt->progress(c->opt->ctx, c->done, c->total);
	if (c->opt && c->opt->cancelled && c->opt->cancelled(c->opt->ctx)) {
		errno = ECANCELED;
		return true;
	}
	return false;
}

/* Events lost before the sub-buffer @page, as its commit word's flags say. */
static unsigned long long missed_before(const struct copier *c, const unsigned char *page,
					unsigned long long commit)
{
	unsigned long long missed = 0;
	unsigned int at = c->page_header + (commit & KMT_RB_COMMIT_MASK);

	if ((commit & KMT_RB_MISSED_STORED) && at + c->long_size <= c->subbuf)
		memcpy(&missed, page + at, c->long_size);
	return (commit & KMT_RB_MISSED_EVENTS) ? missed : 0;
}

/* Count the events of whole sub-buffers at @p into @count. */
static void count_subbuffers(struct copier *c, const unsigned char *p, size_t len,
			     struct kmt_td_cpu_count *count)
{
	size_t off;

	for (off = 0; c->counting && off + c->subbuf <= len; off += c->subbuf) {
		const unsigned char *page = p + off;
		unsigned long long commit = 0;
		unsigned int pos = c->page_header, end;
		struct kmt_rb_step st;

		memcpy(&commit, page + 8, c->long_size);
		end = c->page_header + (commit & KMT_RB_COMMIT_MASK);
		if ((commit & KMT_RB_COMMIT_MASK) > c->subbuf - c->page_header) {
			count->bad_subbuffers++;
			continue;
		}
		count->missed += missed_before(c, page, commit);
		while (kmt_rb_step(c->order, page, pos, end, &st) > 0) {
			count->events += st.type < KMT_RB_PADDING;
			pos = st.next;
		}
	}
}

/* Copy @size bytes of @in from offset @from to @out; count sub-buffers when @count. */
static int copy_in(struct copier *c, int in, uint64_t from, uint64_t size, int out,
		   struct kmt_td_cpu_count *count)
{
	uint64_t off = from;

	size += from;
	while (off < size) {
		size_t want = size - off < COPY_CHUNK ? size - off : COPY_CHUNK;
		ssize_t n = pread(in, c->buf, want, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;	/* the input shrank under us */
			return -1;
		}
		if (count)
			count_subbuffers(c, c->buf, n, count);
		if (kmt_write_all(out, c->buf, n))
			return -1;
		if (c->opt && c->opt->punch)	/* its blocks are in the output now */
			fallocate(in, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, n);
		off += n;
		c->done += n;
		if (cancelled(c))
			return -1;
	}
	return 0;
}

/* The header, with the file-backed option data in its holes. */
static int write_header(struct copier *c, const struct obuf *b, int out)
{
	size_t at = 0;
	int i;

	for (i = 0; i < b->nholes; i++) {
		if (kmt_write_all(out, b->data + at, b->holes[i].at - at) ||
		    copy_in(c, b->holes[i].fd, 0, b->holes[i].size, out, NULL))
			return -1;
		at = b->holes[i].at;
	}
	c->done += b->len;
	return kmt_write_all(out, b->data + at, b->len - at);
}

/* The sub-buffer layout @m's header_page describes, to count events. */
static int setup_counting(struct copier *c, const struct kmt_tracedat_meta *m)
{
	struct tep_handle *tep = tep_alloc();
	char *hp = malloc(m->header_page.len + 1);
	int ret = -1;

	if (!tep || !hp)
		goto out;
	memcpy(hp, m->header_page.data, m->header_page.len);
	hp[m->header_page.len] = '\0';
	tep_set_long_size(tep, m->long_size);
	tep_set_page_size(tep, m->page_size);
	tep_set_file_bigendian(tep, host_is_big_endian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (tep_parse_header_page(tep, hp, m->header_page.len, m->long_size))
		goto out;
	c->long_size = tep_get_header_page_size(tep);
	c->page_header = 8 + c->long_size;
	c->subbuf = tep_get_sub_buffer_size(tep);
	if (c->subbuf <= c->page_header || c->long_size > 8)
		goto out;
	c->order = (struct kmt_rb_order){ false, host_is_big_endian() };
	c->counting = true;
	ret = 0;
out:
	tep_free(tep);
	free(hp);
	return ret;
}

/* Where CPU @cpu's data starts in its input. */
static uint64_t start_of(const struct copier *c, int cpu)
{
	return c->opt && c->opt->starts ? c->opt->starts[cpu] : 0;
}

static int write_data(struct copier *c, const struct kmt_tracedat_meta *m, int ncpus,
		      const int *cpu_fds, const uint64_t *sizes, uint64_t off, int out)
{
	static const char zeros[65536];
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		uint64_t pad = (m->page_size - off % m->page_size) % m->page_size;
		struct kmt_td_cpu_count *count = c->opt && c->opt->counts ?
						 &c->opt->counts[cpu] : NULL;

		if (pad > sizeof(zeros) || kmt_write_all(out, zeros, pad))
			return -1;
		off += pad;
		c->done += pad;
		if (count)
			count->bytes = sizes[cpu];
		if (copy_in(c, cpu_fds[cpu], start_of(c, cpu), sizes[cpu], out, count))
			return -1;
		off += sizes[cpu];
	}
	return 0;
}

int kmt_tracedat_write(int out_fd, const char *out_name, const struct kmt_tracedat_meta *m,
		       int ncpus, const int *cpu_fds, const struct kmt_td_copy *copy,
		       struct kmt_error *err)
{
	struct copier c = { .opt = copy };
	struct obuf b = { 0 };
	uint64_t *sizes = NULL, off;
	int cpu, ret = -1;

	errno = 0;
	sizes = calloc(ncpus ? ncpus : 1, sizeof(*sizes));
	c.buf = malloc(COPY_CHUNK);
	if (!sizes || !c.buf || (copy && copy->counts && setup_counting(&c, m)))
		goto fail;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct stat st;

		if (fstat(cpu_fds[cpu], &st) || (uint64_t)st.st_size < start_of(&c, cpu))
			goto fail;
		sizes[cpu] = st.st_size - start_of(&c, cpu);
	}
	put_header(&b, m, ncpus);
	off = b.len + b.hole_bytes + 16ull * ncpus;
	for (cpu = 0; cpu < ncpus; cpu++) {
		off = (off + m->page_size - 1) / m->page_size * m->page_size;
		put_u64(&b, off);
		put_u64(&b, sizes[cpu]);
		off += sizes[cpu];
	}
	if (b.failed) {
		errno = ENOMEM;
		goto fail;
	}
	c.total = off;
	if (write_header(&c, &b, out_fd) ||
	    write_data(&c, m, ncpus, cpu_fds, sizes, b.len + b.hole_bytes, out_fd))
		goto fail;
	ret = 0;
fail:
	if (ret)
		kmt_error_set(err, out_name, -1, "%s: %s", errno == ECANCELED ?
			      "writing stopped by a signal" : "cannot write trace.dat",
			      strerror(errno ? errno : ENOMEM));
	free(c.buf);
	free(b.data);
	free(b.holes);
	free(sizes);
	return ret;
}
