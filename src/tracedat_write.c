// SPDX-License-Identifier: LGPL-2.1
/*
 * Write a trace-cmd compatible trace.dat, version 6, in host byte order, from header texts and per-CPU raw ring-buffer pages.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedat.h"

/* A growable buffer the header is assembled in. */
struct obuf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;
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

static void put_blob32(struct obuf *b, const struct kmt_td_blob *blob)
{
	put_u32(b, blob->len);
	put(b, blob->data, blob->len);
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

static void put_header(struct obuf *b, const struct kmt_tracedat_meta *m, int ncpus)
{
	int i;

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
	put(b, "options  ", 10);
	for (i = 0; i < m->noptions; i++) {
		put_u16(b, m->options[i].id);
		put_u32(b, m->options[i].size);
		put(b, m->options[i].data, m->options[i].size);
	}
	put_u16(b, KMT_TD_OPT_DONE);
	put(b, "flyrecord", 10);
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c += n;
		len -= n;
	}
	return 0;
}

/* Copy all of @in_fd to @out_fd at its current position. */
static int copy_fd(int in_fd, int out_fd, size_t size)
{
	char buf[65536];
	loff_t off = 0;

	while (size) {
		ssize_t n = copy_file_range(in_fd, &off, out_fd, NULL, size, 0);

		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
			      errno == EOPNOTSUPP))
			break;
		if (n <= 0)
			return -1;
		size -= n;
	}
	while (size) {
		ssize_t n = pread(in_fd, buf, size < sizeof(buf) ? size : sizeof(buf), off);

		if (n <= 0 || write_all(out_fd, buf, n))
			return -1;
		off += n;
		size -= n;
	}
	return 0;
}

int kmt_tracedat_write(int out_fd, const char *out_name, const struct kmt_tracedat_meta *m,
		       int ncpus, const int *cpu_fds, struct kmt_error *err)
{
	struct obuf b = { 0 };
	uint64_t *sizes = NULL;
	uint64_t off;
	int cpu, ret = -1;

	sizes = calloc(ncpus ? ncpus : 1, sizeof(*sizes));
	if (!sizes)
		goto fail;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct stat st;

		if (fstat(cpu_fds[cpu], &st))
			goto fail;
		sizes[cpu] = st.st_size;
	}
	put_header(&b, m, ncpus);
	off = b.len + 16ull * ncpus;
	for (cpu = 0; cpu < ncpus; cpu++) {
		off = (off + m->page_size - 1) / m->page_size * m->page_size;
		put_u64(&b, off);
		put_u64(&b, sizes[cpu]);
		off += sizes[cpu];
	}
	if (b.failed)
		goto fail;
	if (write_all(out_fd, b.data, b.len))
		goto fail;
	off = b.len;
	for (cpu = 0; cpu < ncpus; cpu++) {
		static const char zeros[65536];
		uint64_t pad = (m->page_size - off % m->page_size) % m->page_size;

		if (pad > sizeof(zeros) || write_all(out_fd, zeros, pad))
			goto fail;
		off += pad;
		if (copy_fd(cpu_fds[cpu], out_fd, sizes[cpu]))
			goto fail;
		off += sizes[cpu];
	}
	ret = 0;
fail:
	if (ret)
		kmt_error_set(err, out_name, -1, "cannot write trace.dat: %s",
			      b.failed ? strerror(ENOMEM) : strerror(errno ? errno : EIO));
	free(b.data);
	free(sizes);
	return ret;
}
