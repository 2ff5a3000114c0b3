// SPDX-License-Identifier: LGPL-2.1
/*
 * Read trace.dat version 6 directly: mmap the file, parse the header into
 * a tep_handle, and walk each CPU's raw sub-buffers with kbuffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "reader_local.h"
#include "cursor.h"
#include "container/tracedat.h"

#define COMMIT_MASK	((1u << 27) - 1)
#define MISSED_STORED	(1ull << 30)

struct cpu_stream {
	const unsigned char *data;	/* this CPU's pages */
	unsigned long long file_offset;
	size_t size;
	size_t next_page;		/* offset of the next page to load */
	const unsigned char *page;	/* loaded page, or NULL */
	unsigned int page_end;		/* offset of the end of its data */
	size_t released;		/* pages before this offset were given back */
	struct kbuffer *kbuf;
};

/* Mapped pages of a CPU's data read past are given back in steps of this. */
#define RELEASE_STEP	(4u << 20)

struct tracedat {
	const unsigned char *map;
	size_t map_size;
	unsigned int subbuf_size;
	unsigned int page_header_size;
	int kernel_long_size;
	struct cpu_stream *cpus;
};

static void set_text(struct kmt_reader *r, enum kmt_reader_text what, const char *s,
		     size_t len)
{
	free(r->texts[what]);
	r->texts[what] = strndup(s, len);
}

/* KMT_TD_OPT_KMT_KERNEL: the recording's _text and build-id, kept even without kallsyms. */
static void take_kernel(struct kmt_reader *r, const char *data, size_t size)
{
	char text[256], *id;
	size_t n;

	snprintf(text, sizeof(text), "%.*s", (int)(size < sizeof(text) ? size : sizeof(text) - 1),
		 data);
	if (!strncmp(text, "text 0x", 7))
		r->kernel_text = strtoull(text + 7, NULL, 16);
	id = strstr(text, "\nbuild-id ");
	n = id ? strspn(id + 10, "0123456789abcdef") : 0;
	if (n >= 2 && n <= 40 && n % 2 == 0)
		snprintf(r->kernel_build_id, sizeof(r->kernel_build_id), "%.*s", (int)n, id + 10);
}

/* The samples' result: damaged ones are said in the report, no memory fails the open. */
static bool take_samples(struct kmt_cursor *c, struct kmt_reader *r, int ret)
{
	if (ret == -2) {
		kmt_error_set(c->err, c->path, c->pos, "out of memory for the fault samples");
		return false;
	}
	r->fault_samples_damaged |= ret < 0;
	return true;
}

static bool parse_options(struct kmt_cursor *c, struct kmt_reader *r)
{
	for (;;) {
		unsigned long long id, size;
		const char *data;

		if (!kmt_cursor_uint(c, 2, &id, "option id"))
			return false;
		if (id == KMT_TD_OPT_DONE)
			return true;
		if (!kmt_cursor_uint(c, 4, &size, "option size") || !kmt_cursor_need(c, size, "option"))
			return false;
		data = (const char *)c->base + c->pos;
		c->pos += size;
		switch (id) {
		case KMT_TD_OPT_CPUSTAT:
			kmt_reader_parse_cpustats(r, data, size);
			break;
		case KMT_TD_OPT_UNAME:
			set_text(r, KMT_TEXT_UNAME, data, size);
			break;
		case KMT_TD_OPT_KMT_KERNEL:
			take_kernel(r, data, size);
			break;
		case KMT_TD_OPT_KMT_SLAB_ALIASES:
			set_text(r, KMT_TEXT_SLAB_ALIASES, data, size);
			break;
		case KMT_TD_OPT_KMT_STACKS:
			set_text(r, KMT_TEXT_STACKS, data, size);
			break;
		case KMT_TD_OPT_TRACECLOCK:
			set_text(r, KMT_TEXT_TRACE_CLOCK, data, size);
			break;
		case KMT_TD_OPT_KMT_VMSTAT_START:
			set_text(r, KMT_TEXT_VMSTAT_START, data, size);
			break;
		case KMT_TD_OPT_KMT_VMSTAT_STOP:
			set_text(r, KMT_TEXT_VMSTAT_STOP, data, size);
			break;
		case KMT_TD_OPT_KMT_CPU_NODES:
			set_text(r, KMT_TEXT_CPU_NODES, data, size);
			break;
		case KMT_TD_OPT_KMT_SCOPE:
			set_text(r, KMT_TEXT_SCOPE, data, size);
			break;
		case KMT_TD_OPT_KMT_FAULT_SOURCE:
			set_text(r, KMT_TEXT_FAULT_SOURCE, data, size);
			break;
		case KMT_TD_OPT_KMT_FAULT_SAMPLES:
			if (!take_samples(c, r, kmt_reader_take_fault_sample_text(r, data, size)))
				return false;
			break;
		case KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN:
			if (!take_samples(c, r, kmt_reader_take_fault_samples(r, data, size,
									       c->swap)))
				return false;
			break;
		case KMT_TD_OPT_KMT_RUSAGE:
			set_text(r, KMT_TEXT_RUSAGE, data, size);
			break;
		default:
			break;
		}
	}
}

static bool parse_cpu_data(struct kmt_cursor *c, struct kmt_reader *r, struct tracedat *td)
{
	int cpu;

	td->cpus = calloc(r->ncpus ? r->ncpus : 1, sizeof(*td->cpus));
	if (!td->cpus) {
		kmt_error_set(c->err, c->path, c->pos, "out of memory");
		return false;
	}
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct cpu_stream *s = &td->cpus[cpu];
		size_t at = c->pos;
		unsigned long long off, size;

		if (!kmt_cursor_uint(c, 8, &off, "CPU data offset") ||
		    !kmt_cursor_uint(c, 8, &size, "CPU data size"))
			return false;
		if (off > c->size || size > c->size - off) {
			kmt_error_set(c->err, c->path, at,
				      "corrupt: CPU %d data (offset %llu, size %llu) beyond end of file (%zu)",
				      cpu, off, size, c->size);
			return false;
		}
		s->data = c->base + off;
		s->file_offset = off;
		s->size = size;
		s->kbuf = tep_kbuffer(r->tep);
		if (!s->kbuf) {
			kmt_error_set(c->err, c->path, at, "out of memory");
			return false;
		}
	}
	return true;
}

static bool parse_file(struct kmt_cursor *c, struct kmt_reader *r, struct tracedat *td)
{
	unsigned long long ncpus;
	char kind[10];

	c->pos = 0;
	if (!kmt_tracing_data_parse(c, r, "6", true) ||
	    !kmt_cursor_uint(c, 4, &ncpus, "CPU count"))
		return false;
	td->kernel_long_size = tep_get_header_page_size(r->tep);
	td->page_header_size = 8 + td->kernel_long_size;
	td->subbuf_size = tep_get_sub_buffer_size(r->tep);
	if (ncpus > 8192) {
		kmt_error_set(c->err, c->path, c->pos - 4, "corrupt: %llu CPUs", ncpus);
		return false;
	}
	if (kmt_reader_set_cpus(r, ncpus)) {
		kmt_error_set(c->err, c->path, c->pos, "out of memory");
		return false;
	}
	tep_set_cpus(r->tep, ncpus);
	if (!kmt_cursor_need(c, 10, "section tag"))
		return false;
	memcpy(kind, c->base + c->pos, 10);
	if (!memcmp(kind, "options  ", 10)) {
		c->pos += 10;
		if (!parse_options(c, r) || !kmt_cursor_need(c, 10, "section tag"))
			return false;
		memcpy(kind, c->base + c->pos, 10);
	}
	if (!memcmp(kind, "latency  ", 10)) {
		kmt_error_set(c->err, c->path, c->pos, "latency-format trace.dat has no raw events");
		return false;
	}
	if (memcmp(kind, "flyrecord", 10)) {
		kmt_error_set(c->err, c->path, c->pos, "corrupt: expected \"flyrecord\"");
		return false;
	}
	c->pos += 10;
	return parse_cpu_data(c, r, td);
}

/*
 * Give back the mapped pages of @s before @upto (its sub-buffers read), so
 * that memory follows a window of the file, not all of it. Records handed
 * out earlier are no longer in use: a reader's record lasts until the next
 * call for its CPU.
 */
static void release_read(struct cpu_stream *s, const unsigned char *upto)
{
	uintptr_t page = (uintptr_t)getpagesize();
	uintptr_t from = ((uintptr_t)(s->data + s->released) + page - 1) & ~(page - 1);
	uintptr_t to = (uintptr_t)upto & ~(page - 1);

	if (to <= from || to - from < RELEASE_STEP)
		return;
	madvise((void *)from, to - from, MADV_DONTNEED);
	s->released = (const unsigned char *)to - s->data;
}

/* Load the next sub-buffer of @s after checking its header; 0 at end, -1 if corrupt. */
static int load_page(struct kmt_reader *r, struct tracedat *td, int cpu,
		     struct kmt_error *err)
{
	struct cpu_stream *s = &td->cpus[cpu];
	const unsigned char *page;
	unsigned long long commit, flags;
	unsigned int data_room = td->subbuf_size - td->page_header_size;
	int missed;

	if (s->next_page >= s->size)
		return 0;
	page = s->data + s->next_page;
	release_read(s, page);
	if (s->size - s->next_page < td->page_header_size) {
		kmt_error_set(err, r->path, s->file_offset + s->next_page,
			      "truncated: CPU %d sub-buffer header", cpu);
		return -1;
	}
	commit = tep_read_number(r->tep, page + 8, td->kernel_long_size);
	flags = commit;
	commit &= COMMIT_MASK;
	if (commit > data_room || ((flags & MISSED_STORED) &&
				   commit + td->kernel_long_size > data_room) ||
	    td->page_header_size + commit > s->size - s->next_page) {
		kmt_error_set(err, r->path, s->file_offset + s->next_page + 8,
			      "corrupt: CPU %d sub-buffer commit %llu exceeds its %u bytes",
			      cpu, commit, data_room);
		return -1;
	}
	s->page = page;
	s->page_end = td->page_header_size + commit;
	s->next_page += td->subbuf_size;
	kbuffer_load_subbuffer(s->kbuf, (void *)page);
	missed = kbuffer_missed_events(s->kbuf);
	if (missed > 0)
		kmt_cpu_stats_add(&r->stats[cpu], &r->stats[cpu].missed_marked, missed);
	else if (missed < 0)
		r->stats[cpu].missed_unknown++;
	return 1;
}

static int tracedat_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
			 struct kmt_error *err)
{
	struct tracedat *td = r->priv;
	struct cpu_stream *s = &td->cpus[cpu];

	for (;;) {
		unsigned long long ts;
		const unsigned char *data = NULL;
		int ret;

		if (s->page)
			data = kbuffer_read_event(s->kbuf, &ts);
		if (data) {
			int size = kbuffer_event_size(s->kbuf);

			if (data < s->page || size < 0 ||
			    (size_t)(data - s->page) + size > s->page_end) {
				kmt_error_set(err, r->path,
					      s->file_offset + (s->page - s->data) +
					      (data >= s->page ? data - s->page : 0),
					      "corrupt: CPU %d event runs past its sub-buffer", cpu);
				return -1;
			}
			rec->ts = ts;
			rec->data = data;
			rec->size = size;
			rec->cpu = cpu;
			kbuffer_next_event(s->kbuf, NULL);
			return 1;
		}
		s->page = NULL;
		ret = load_page(r, td, cpu, err);
		if (ret <= 0)
			return ret;
	}
}

static void tracedat_close(struct kmt_reader *r)
{
	struct tracedat *td = r->priv;
	int cpu;

	if (td) {
		for (cpu = 0; td->cpus && cpu < r->ncpus; cpu++)
			if (td->cpus[cpu].kbuf)
				kbuffer_free(td->cpus[cpu].kbuf);
		free(td->cpus);
		if (td->map)
			munmap((void *)td->map, td->map_size);
		free(td);
	}
	tep_free(r->tep);
}

static const struct kmt_reader_ops tracedat_ops = {
	.next = tracedat_next,
	.close = tracedat_close,
};

static bool tracedat_probe(const unsigned char *head, size_t len)
{
	return len >= KMT_TD_MAGIC_LEN + 2 && !memcmp(head, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN) &&
	       head[KMT_TD_MAGIC_LEN] == '6' && head[KMT_TD_MAGIC_LEN + 1] == '\0';
}

static struct kmt_reader *tracedat_open(const struct kmt_input *in, struct kmt_error *err)
{
	const char *path = in->path;
	int fd = in->fd;
	struct kmt_cursor c = { .path = path, .err = err };
	struct kmt_reader *r = NULL;
	struct tracedat *td;

	if (kmt_input_rewind(in, err))
		return NULL;
	r = kmt_reader_alloc(path, &tracedat_ops);
	td = calloc(1, sizeof(*td));
	if (!r || !td || !(r->tep = tep_alloc())) {
		kmt_error_set(err, path, -1, "out of memory");
		goto fail;
	}
	r->priv = td;
	if (kmt_map_file(fd, path, &td->map, &td->map_size, err)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	c.base = td->map;
	c.size = td->map_size;
	if (!parse_file(&c, r, td))
		goto fail;
	return r;
fail:
	if (fd >= 0)
		close(fd);
	if (r && !r->priv)
		free(td);
	if (r)
		kmt_reader_close(r);
	return NULL;
}

KMT_BACKEND(tracedat, "trace.dat v6", tracedat_probe, tracedat_open);
