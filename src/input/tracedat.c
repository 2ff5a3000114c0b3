// SPDX-License-Identifier: LGPL-2.1
/*
 * Read trace.dat version 6 directly: mmap the file, parse the header into
 * a tep_handle, and walk each CPU's raw sub-buffers (their event headers are
 * read here: libtraceevent's kbuffer reads each word through a function
 * pointer, and was a third of a replay).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "reader_local.h"
#include "cursor.h"
#include "container/subbuf.h"
#include "container/tracedat.h"
#include "common/pager.h"

struct cpu_stream {
	const unsigned char *data;	/* this CPU's pages */
	unsigned long long file_offset;
	size_t size;
	size_t next_page;		/* offset of the next page to load */
	const unsigned char *page;	/* loaded page, or NULL */
	unsigned int page_end;		/* offset of the end of its data */
	size_t released;		/* pages before this offset were given back */
	size_t paged;			/* pages before this offset went to the pager */
	unsigned int pos;		/* offset in the page of the next event header */
	unsigned long long ts;		/* time of the event before it */
};

/* Mapped pages of a CPU's data read past are given back in steps of this. */
#define RELEASE_STEP	(4u << 20)
#define RELEASE_LAG	(4u << 20)	/* > what the replay's batches may point to */

struct tracedat {
	const unsigned char *map;
	size_t map_size;
	unsigned int subbuf_size;
	unsigned int page_header_size;
	int kernel_long_size;
	struct kmt_rb_order order;	/* the file's byte order against ours */
	struct kmt_pager pager;		/* reads the CPUs' pages ahead */
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

/*
 * Fault samples are read when the fault analysis asks for them (a few
 * hundred thousand of them are tens of MB no other report needs); the
 * mapping stays until the reader closes. A second sample option is read
 * at once, in the order of the file, as the first one then is.
 */
static bool defer_samples(struct kmt_cursor *c, struct kmt_reader *r, bool binary,
			  const char *data, size_t size)
{
	int ret;

	if (!r->samples.data) {
		r->samples = (struct kmt_pending_samples){ data, size, binary, c->swap };
		return true;
	}
	if (!take_samples(c, r, kmt_reader_take_pending_samples(r)))
		return false;
	ret = binary ? kmt_reader_take_fault_samples(r, data, size, c->swap) :
		       kmt_reader_take_fault_sample_text(r, data, size);
	return take_samples(c, r, ret);
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
		case KMT_TD_OPT_KMT_USER_MAPS:
			set_text(r, KMT_TEXT_USER_MAPS, data, size);
			break;
		case KMT_TD_OPT_KMT_PROCESSES:
			set_text(r, KMT_TEXT_PROCESSES, data, size);
			break;
		case KMT_TD_OPT_KMT_FILES:
			set_text(r, KMT_TEXT_FILES, data, size);
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
		case KMT_TD_OPT_KMT_SLABINFO_START:
			set_text(r, KMT_TEXT_SLABINFO_START, data, size);
			break;
		case KMT_TD_OPT_KMT_SLABINFO_STOP:
			set_text(r, KMT_TEXT_SLABINFO_STOP, data, size);
			break;
		case KMT_TD_OPT_KMT_CPU_NODES:
			set_text(r, KMT_TEXT_CPU_NODES, data, size);
			break;
		case KMT_TD_OPT_KMT_BOOT_ID:
			set_text(r, KMT_TEXT_BOOT_ID, data, size);
			break;
		case KMT_TD_OPT_KMT_PAGE_OWNER:
			set_text(r, KMT_TEXT_PAGE_OWNER, data, size);
			break;
		case KMT_TD_OPT_KMT_SCOPE:
			set_text(r, KMT_TEXT_SCOPE, data, size);
			break;
		case KMT_TD_OPT_KMT_FAULT_SOURCE:
			set_text(r, KMT_TEXT_FAULT_SOURCE, data, size);
			break;
		case KMT_TD_OPT_KMT_FAULT_SAMPLES:
		case KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN:
			if (!defer_samples(c, r, id == KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN, data, size))
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
	td->order.big_endian = tep_is_file_bigendian(r->tep);
	td->order.swap = td->order.big_endian != tep_is_local_bigendian(r->tep);
	if (ncpus > KMT_MAX_CPUS) {
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
 * Give back the mapped pages of @s more than RELEASE_LAG before @upto (its
 * sub-buffers read), so that memory follows a window of the file, not all
 * of it. Records are kept (kmt_record.kept) and a second replay thread may
 * still read the last few thousand: the lag leaves their pages alone, where
 * a page given back would be read in again and stay.
 */
static void release_read(struct cpu_stream *s, const unsigned char *upto)
{
	uintptr_t page = (uintptr_t)getpagesize();
	uintptr_t from = ((uintptr_t)(s->data + s->released) + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)upto - RELEASE_LAG) & ~(page - 1);

	if ((uintptr_t)(upto - s->data) < RELEASE_LAG)
		return;

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
	long long missed;

	if (s->next_page >= s->size)
		return 0;
	page = s->data + s->next_page;
	release_read(s, page);
	kmt_pager_follow(&td->pager, s->data, s->size, s->next_page, &s->paged);
	if (s->size - s->next_page < td->page_header_size) {
		kmt_error_set(err, r->path, s->file_offset + s->next_page,
			      "truncated: CPU %d sub-buffer header", cpu);
		return -1;
	}
	commit = tep_read_number(r->tep, page + 8, td->kernel_long_size);
	flags = commit;
	commit &= KMT_RB_COMMIT_MASK;
	if (commit > data_room || ((flags & KMT_RB_MISSED_STORED) &&
				   commit + td->kernel_long_size > data_room) ||
	    td->page_header_size + commit > s->size - s->next_page) {
		kmt_error_set(err, r->path, s->file_offset + s->next_page + 8,
			      "corrupt: CPU %d sub-buffer commit %llu exceeds its %u bytes",
			      cpu, commit, data_room);
		return -1;
	}
	s->page = page;
	s->page_end = td->page_header_size + commit;
	s->pos = td->page_header_size;
	s->ts = tep_read_number(r->tep, page, 8);
	s->next_page += td->subbuf_size;
	missed = !(flags & KMT_RB_MISSED_EVENTS) ? 0 : !(flags & KMT_RB_MISSED_STORED) ? -1 :
		 (long long)tep_read_number(r->tep, page + s->page_end, td->kernel_long_size);
	if (missed > 0)
		kmt_cpu_stats_add(&r->stats[cpu], &r->stats[cpu].missed_marked, missed);
	else if (missed < 0)
		r->stats[cpu].missed_unknown++;
	return 1;
}

/* Data event @st of @s's loaded page into @rec; @s moves past it. */
static void take_data_event(struct cpu_stream *s, const struct kmt_rb_step *st, int cpu,
			    struct kmt_record *rec)
{
	s->pos = st->next;
	s->ts += st->delta;
	*rec = (struct kmt_record){ .ts = s->ts, .data = s->page + st->data_at,
				    .size = (int)st->data_len, .cpu = cpu,
				    .kept = true };	/* mapped until closing */
}

/*
 * The next data event of @s's loaded page into @rec, its time from the
 * page's and the deltas, time extends and time stamps before it; 0 at the
 * page's end, -1 for an event that runs past it.
 */
static int next_in_page(struct kmt_reader *r, struct tracedat *td, int cpu,
			struct kmt_record *rec, struct kmt_error *err)
{
	struct cpu_stream *s = &td->cpus[cpu];
	struct kmt_rb_step st;
	int ret;

	while ((ret = kmt_rb_step(td->order, s->page, s->pos, s->page_end, &st)) > 0) {
		if (st.type < KMT_RB_PADDING) {
			take_data_event(s, &st, cpu, rec);
			return 1;
		}
		s->pos = st.next;
		s->ts = kmt_rb_time_after(&st, s->ts);	/* also padding's delta */
	}
	if (ret < 0)
		kmt_error_set(err, r->path, s->file_offset + (s->page - s->data) + s->pos,
			      "corrupt: CPU %d event runs past its sub-buffer", cpu);
	return ret;
}

/* The next record once the page's next header is not a data event: any page. */
static __attribute__((noinline)) int next_any_page(struct kmt_reader *r, struct tracedat *td,
						   int cpu, struct kmt_record *rec,
						   struct kmt_error *err)
{
	struct cpu_stream *s = &td->cpus[cpu];
	int ret;

	for (;;) {
		if (s->page && (ret = next_in_page(r, td, cpu, rec, err)) != 0)
			return ret;
		s->page = NULL;
		ret = load_page(r, td, cpu, err);
		if (ret <= 0)
			return ret;
	}
}

/* Up to @max records of @cpu: they stay mapped until the reader is closed. */
static int tracedat_next_cpu_batch(struct kmt_reader *r, int cpu, struct kmt_record *recs,
				   int max, struct kmt_error *err)
{
	struct tracedat *td = r->priv;
	struct cpu_stream *s = &td->cpus[cpu];
	struct kmt_rb_step st;
	int n = 0, ret;

	while (n < max) {
		if (s->page && kmt_rb_step(td->order, s->page, s->pos, s->page_end, &st) > 0 &&
		    st.type < KMT_RB_PADDING) {
			take_data_event(s, &st, cpu, &recs[n++]);
			continue;
		}
		ret = next_any_page(r, td, cpu, &recs[n], err);
		if (ret <= 0)	/* an error comes again at the next call */
			return n ? n : ret;
		n++;
	}
	return n;
}

/* One record of @cpu: a batch of one. */
static int tracedat_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
			 struct kmt_error *err)
{
	return tracedat_next_cpu_batch(r, cpu, rec, 1, err);
}

static void tracedat_close(struct kmt_reader *r)
{
	struct tracedat *td = r->priv;

	if (td) {
		kmt_pager_stop(&td->pager);	/* out of the mapping first */
		free(td->cpus);
		if (td->map)
			munmap((void *)td->map, td->map_size);
		free(td);
	}
	tep_free(r->tep);
}

static const struct kmt_reader_ops tracedat_ops = {
	.next = tracedat_next,
	.next_cpu_batch = tracedat_next_cpu_batch,
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
