// SPDX-License-Identifier: LGPL-2.1
/*
 * perf.data records read in order through one buffer, from a file (pread)
 * or a pipe (read), with PERF_RECORD_COMPRESSED records (perf record -z)
 * unpacked by libzstd into a second buffer that the next records come
 * from. Unpacked data may cut a record between two compressed records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zstd.h>
#include <perf/event.h>

#include <kmtrace/reader.h>
#include "perfdata.h"

#define STREAM_BUF	(1u << 20)	/* > the largest record (64 KiB) */
#define UNZ_MIN_ROOM	(1u << 16)

/*
 * Map the file @s reads, up to its limit: the buffer then holds the whole
 * stream and fill() has nothing to read. False: read it with pread().
 */
static bool map_file(struct pd_stream *s)
{
	struct stat st;
	void *map;

	if (fstat(s->fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size <= s->pos || (uint64_t)st.st_size > SIZE_MAX)
		return false;
	if (s->limit > (uint64_t)st.st_size)
		s->limit = st.st_size;	/* the file ends here */
	if (s->limit <= s->pos)
		return false;
	map = mmap(NULL, s->limit, PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (map == MAP_FAILED)
		return false;
	madvise(map, s->limit, MADV_SEQUENTIAL);
	s->mapped = true;
	s->buf = map;
	s->cap = s->end = s->limit;
	s->start = s->pos;
	s->released = 0;
	return true;
}

int kmt_pd_stream_init(struct pd_stream *s, const char *path, int fd, const void *head,
		   size_t head_len, uint64_t offset, uint64_t limit, struct kmt_error *err)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->fd = fd;
	s->seekable = lseek(fd, 0, SEEK_CUR) >= 0;
	s->limit = limit;
	s->pos = offset;
	if (s->seekable && map_file(s))
		return 0;
	s->cap = STREAM_BUF;
	s->buf = malloc(s->cap);
	if (!s->buf) {
		kmt_error_set(err, path, -1, "out of memory");
		return -1;
	}
	if (!s->seekable) {
		if (offset > head_len) {
			kmt_error_set(err, path, offset, "cannot skip to records on a pipe");
			return -1;
		}
		memcpy(s->buf, (const char *)head + offset, head_len - offset);
		s->end = head_len - offset;
	}
	return 0;
}

/* Bytes of the stream after the buffered ones that may still be read. */
static uint64_t room_to_limit(const struct pd_stream *s)
{
	uint64_t buffered_to = s->pos + (s->end - s->start);

	return s->limit > buffered_to ? s->limit - buffered_to : 0;
}

/* Have at least @n bytes buffered. 1: yes, 0: the stream ends first, -1: error. */
static int fill(struct pd_stream *s, size_t n, struct kmt_error *err)
{
	if (s->mapped)
		return s->end - s->start >= n;
	while (s->end - s->start < n) {
		uint64_t want = room_to_limit(s);
		ssize_t got;

		if (!want)
			return 0;
		if (s->start) {
			memmove(s->buf, s->buf + s->start, s->end - s->start);
			s->end -= s->start;
			s->start = 0;
		}
		if (want > s->cap - s->end)
			want = s->cap - s->end;
		if (s->seekable)
			got = pread(s->fd, s->buf + s->end, want, s->pos + s->end);
		else
			got = read(s->fd, s->buf + s->end, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			kmt_error_set(err, s->path, s->pos + s->end, "cannot read: %s",
				      strerror(errno));
			return -1;
		}
		if (!got) {
			s->limit = s->pos + s->end;	/* the file ends here */
			return 0;
		}
		s->end += got;
	}
	return 1;
}

static void consume(struct pd_stream *s, size_t n)
{
	s->start += n;
	s->pos += n;
}

int kmt_pd_stream_read(struct pd_stream *s, void *dst, size_t n, struct kmt_error *err)
{
	while (n) {
		size_t part = n < STREAM_BUF / 2 ? n : STREAM_BUF / 2;
		int ret = fill(s, part, err);

		if (ret <= 0) {
			if (!ret)
				kmt_error_set(err, s->path, s->pos, "truncated: %zu bytes of "
					      "data missing", n);
			return -1;
		}
		memcpy(dst, s->buf + s->start, part);
		consume(s, part);
		dst = (char *)dst + part;
		n -= part;
	}
	return 0;
}

static int unzip_room(struct pd_stream *s, struct kmt_error *err)
{
	unsigned char *n;

	if (s->unz_cap - s->unz_end >= UNZ_MIN_ROOM)
		return 0;
	n = realloc(s->unz, s->unz_cap * 2 + UNZ_MIN_ROOM);
	if (!n) {
		kmt_error_set(err, s->path, s->unz_at, "out of memory unpacking");
		return -1;
	}
	s->unz = n;
	s->unz_cap = s->unz_cap * 2 + UNZ_MIN_ROOM;
	return 0;
}

/* Append the unpacked payload of the compressed record @rec to the unpacked records. */
static int unzip(struct pd_stream *s, const struct pd_record *rec, struct kmt_error *err)
{
	ZSTD_inBuffer in = { rec->data + 8, rec->size - 8, 0 };

	if (!s->zstd && !(s->zstd = ZSTD_createDStream())) {
		kmt_error_set(err, s->path, rec->offset, "out of memory unpacking");
		return -1;
	}
	if (s->unz_end > s->unz_start)	/* s->unz is set then */
		memmove(s->unz, s->unz + s->unz_start, s->unz_end - s->unz_start);
	s->unz_end -= s->unz_start;
	s->unz_start = 0;
	s->unz_at = rec->offset;
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		if (unzip_room(s, err))
			return -1;
		out = (ZSTD_outBuffer){ s->unz, s->unz_cap, s->unz_end };
		ret = ZSTD_decompressStream(s->zstd, &out, &in);
		if (ZSTD_isError(ret)) {
			kmt_error_set(err, s->path, rec->offset, "corrupt: compressed record: %s",
				      ZSTD_getErrorName(ret));
			return -1;
		}
		s->unz_end = out.pos;
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

/* A whole record at @p with @avail bytes there? -1: its size is impossible. */
static int whole_record(const unsigned char *p, size_t avail, uint16_t *size)
{
	if (avail < 8)
		return 0;
	memcpy(size, p + 6, 2);
	if (*size < 8)
		return -1;
	return *size <= avail;
}

static int next_unpacked(struct pd_stream *s, struct pd_record *rec, struct kmt_error *err)
{
	const unsigned char *p;
	int ret;

	if (s->unz_end == s->unz_start)
		return 0;	/* nothing unpacked (and no buffer yet) */
	p = s->unz + s->unz_start;
	ret = whole_record(p, s->unz_end - s->unz_start, &rec->size);

	if (ret < 0)
		kmt_error_set(err, s->path, s->unz_at, "corrupt: unpacked record size %u",
			      rec->size);
	if (ret <= 0)
		return ret;
	memcpy(&rec->type, p, 4);
	rec->data = p;
	rec->offset = s->unz_at;
	rec->unpacked = true;
	rec->kept = false;
	s->unz_start += rec->size;
	return 1;
}

/* The record of rec->size bytes buffered next into @rec; the stream moves past it. */
static void cut_raw(struct pd_stream *s, struct pd_record *rec)
{
	rec->data = s->buf + s->start;
	memcpy(&rec->type, rec->data, 4);
	rec->offset = s->pos;
	rec->unpacked = false;
	rec->kept = s->mapped;
	consume(s, rec->size);
}

/* The next record of the file itself. */
static int next_raw(struct pd_stream *s, struct pd_record *rec, struct kmt_error *err)
{
	int ret = fill(s, 8, err);

	if (ret <= 0) {
		if (!ret && s->end > s->start) {
			kmt_error_set(err, s->path, s->pos, "truncated: record header");
			return -1;
		}
		return ret;
	}
	if (whole_record(s->buf + s->start, 8, &rec->size) < 0) {
		kmt_error_set(err, s->path, s->pos, "corrupt: record size %u", rec->size);
		return -1;
	}
	ret = fill(s, rec->size, err);
	if (ret <= 0) {
		if (!ret)
			kmt_error_set(err, s->path, s->pos, "truncated: record of %u bytes",
				      rec->size);
		return -1;
	}
	cut_raw(s, rec);
	return 1;
}

/* The pager follows the record at hand; due again a step later. */
static __attribute__((noinline)) void map_ahead(struct pd_stream *s)
{
	kmt_pager_follow(&s->pager, s->buf, s->end, s->start, &s->paged);
	s->ahead = s->paged == s->end ? SIZE_MAX : s->start + KMT_PAGER_STEP;
}

/* The next record of a mapped file, nothing unpacked pending: whole or false. */
static bool next_mapped(struct pd_stream *s, struct pd_record *rec)
{
	const unsigned char *p = s->buf + s->start;
	uint32_t type;

	if (!s->mapped || s->unz_end != s->unz_start || whole_record(p, s->end - s->start,
								     &rec->size) <= 0)
		return false;
	memcpy(&type, p, 4);
	if (type == PERF_RECORD_COMPRESSED)
		return false;
	if (s->start >= s->ahead)
		map_ahead(s);
	cut_raw(s, rec);
	return true;
}

/* Any other record: read or unpacked into a buffer first. */
static __attribute__((noinline)) int next_buffered(struct pd_stream *s, struct pd_record *rec,
						   struct kmt_error *err)
{
	for (;;) {
		int ret = next_unpacked(s, rec, err);

		if (ret)
			return ret;
		ret = next_raw(s, rec, err);
		if (ret <= 0) {
			if (!ret && s->unz_end > s->unz_start) {
				kmt_error_set(err, s->path, s->unz_at, "truncated: compressed "
					      "data ends inside a record");
				return -1;
			}
			return ret;
		}
		if (rec->type != PERF_RECORD_COMPRESSED)
			return 1;
		if (unzip(s, rec, err))
			return -1;
	}
}

int kmt_pd_stream_next(struct pd_stream *s, struct pd_record *rec, struct kmt_error *err)
{
	return next_mapped(s, rec) ? 1 : next_buffered(s, rec, err);
}

void kmt_pd_stream_release(struct pd_stream *s, uint64_t upto, const void *hold)
{
	uint64_t page = (uint64_t)getpagesize();
	uint64_t to = (upto - PD_RELEASE_LAG) & ~(page - 1);
	uintptr_t held = (uintptr_t)hold - (uintptr_t)s->buf;

	if (upto < PD_RELEASE_LAG || !s->mapped)
		return;
	if (hold && held < s->cap && held < to)
		to = held & ~(page - 1);
	if (to > s->end || to <= s->released || to - s->released < PD_RELEASE_STEP)
		return;
	madvise(s->buf + s->released, to - s->released, MADV_DONTNEED);
	s->released = to;
}

void kmt_pd_stream_free(struct pd_stream *s)
{
	kmt_pager_stop(&s->pager);	/* out of the mapping first */
	ZSTD_freeDStream(s->zstd);
	free(s->unz);
	if (s->mapped)
		munmap(s->buf, s->cap);
	else
		free(s->buf);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->buf = s->unz = NULL;
	s->zstd = NULL;
}
