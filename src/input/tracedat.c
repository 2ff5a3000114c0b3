// SPDX-License-Identifier: LGPL-2.1
/*
 * Read trace.dat version 6 directly: mmap the file, parse the header into
 * a tep_handle, and walk each CPU's raw sub-buffers with kbuffer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "reader_local.h"
#include "formats.h"
#include "container/tracedat.h"
#include "common/util.h"

#define COMMIT_MASK	((1u << 27) - 1)
#define MISSED_STORED	(1ull << 30)

/* A bounds-checked cursor over the mapped file. */
struct cursor {
	const unsigned char *base;
	size_t size;
	size_t pos;
	bool swap;
	const char *path;
	struct kmt_error *err;
};

struct cpu_stream {
	const unsigned char *data;	/* this CPU's pages */
	unsigned long long file_offset;
	size_t size;
	size_t next_page;		/* offset of the next page to load */
	const unsigned char *page;	/* loaded page, or NULL */
	unsigned int page_end;		/* offset of the end of its data */
	struct kbuffer *kbuf;
};

struct tracedat {
	const unsigned char *map;
	size_t map_size;
	unsigned int subbuf_size;
	unsigned int page_header_size;
	int kernel_long_size;
	struct cpu_stream *cpus;
};

static bool need(struct cursor *c, size_t n, const char *what)
{
	if (c->pos <= c->size && n <= c->size - c->pos)
		return true;
	kmt_error_set(c->err, c->path, c->pos, "truncated: %s needs %zu bytes, file ends at %zu",
		      what, n, c->size);
	return false;
}

static bool get_uint(struct cursor *c, int size, unsigned long long *v, const char *what)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (!need(c, size, what))
		return false;
	switch (size) {
	case 2:
		memcpy(&v16, c->base + c->pos, 2);
		*v = c->swap ? __builtin_bswap16(v16) : v16;
		break;
	case 4:
		memcpy(&v32, c->base + c->pos, 4);
		*v = c->swap ? __builtin_bswap32(v32) : v32;
		break;
	default:
		memcpy(&v64, c->base + c->pos, 8);
		*v = c->swap ? __builtin_bswap64(v64) : v64;
		break;
	}
	c->pos += size;
	return true;
}

/* A NUL-terminated string at the cursor. */
static const char *get_cstr(struct cursor *c, const char *what)
{
	const char *s = (const char *)c->base + c->pos;
	const void *nul;

	if (c->pos >= c->size || !(nul = memchr(s, '\0', c->size - c->pos))) {
		kmt_error_set(c->err, c->path, c->pos, "truncated: unterminated %s", what);
		return NULL;
	}
	c->pos = (const unsigned char *)nul - c->base + 1;
	return s;
}

static bool expect_str(struct cursor *c, const char *want, const char *what)
{
	size_t at = c->pos;
	const char *s = get_cstr(c, what);

	if (!s)
		return false;
	if (strcmp(s, want)) {
		kmt_error_set(c->err, c->path, at, "corrupt: expected \"%s\"", want);
		return false;
	}
	return true;
}

/* A blob preceded by its @lsize-byte length; returns a NUL-terminated copy. */
static char *get_blob(struct cursor *c, int lsize, size_t *len, const char *what)
{
	unsigned long long n;
	char *copy;

	if (!get_uint(c, lsize, &n, what))
		return NULL;
	if (!need(c, n, what))
		return NULL;
	copy = malloc(n + 1);
	if (!copy) {
		kmt_error_set(c->err, c->path, c->pos, "out of memory for %s", what);
		return NULL;
	}
	memcpy(copy, c->base + c->pos, n);
	copy[n] = '\0';
	c->pos += n;
	if (len)
		*len = n;
	return copy;
}

/* The format texts of the file, parsed together once all are known. */
struct format_list {
	struct kmt_format_text *f;
	uint32_t n, cap;
};

static bool collect_formats(struct cursor *c, struct format_list *l, const char *sys,
			    unsigned long long count)
{
	while (count--) {
		unsigned long long len;

		if (!get_uint(c, 8, &len, "event format size") || !need(c, len, "event format"))
			return false;
		if (kmt_grow(&l->f, &l->cap, l->n, sizeof(*l->f))) {
			kmt_error_set(c->err, c->path, c->pos, "out of memory");
			return false;
		}
		l->f[l->n++] = (struct kmt_format_text){ sys, (const char *)c->base + c->pos,
							 len, c->pos };
		c->pos += len;
	}
	return true;
}

static bool parse_systems(struct cursor *c, struct kmt_reader *r)
{
	struct format_list l = { 0 };
	unsigned long long nsys, count;
	bool ok = false;

	if (!get_uint(c, 4, &count, "ftrace format count") ||
	    !collect_formats(c, &l, "ftrace", count) ||
	    !get_uint(c, 4, &nsys, "system count"))
		goto out;
	while (nsys--) {
		const char *sys = get_cstr(c, "system name");

		if (!sys || !get_uint(c, 4, &count, "event count") ||
		    !collect_formats(c, &l, sys, count))
			goto out;
	}
	if (kmt_formats_parse(r->tep, l.f, l.n, false, &r->formats)) {
		kmt_error_set(c->err, c->path, -1, "cannot check the event formats: %s",
			      strerror(errno));
		goto out;
	}
	ok = true;
out:
	free(l.f);
	return ok;
}

/* kallsyms into @r's symbol table; printk formats and cmdlines into its tep. */
static bool parse_symbols(struct cursor *c, struct kmt_reader *r)
{
	struct tep_handle *tep = r->tep;
	size_t len;
	char *text;

	if (!(text = get_blob(c, 4, &len, "kallsyms")))
		return false;
	if (len && kmt_reader_set_symbols(r, text, len)) {
		kmt_error_set(c->err, c->path, -1, "out of memory");
		free(text);
		return false;
	}
	free(text);
	if (!(text = get_blob(c, 4, &len, "printk formats")))
		return false;
	kmt_reader_take_printk(tep, text);
	free(text);
	if (!(text = get_blob(c, 8, &len, "saved cmdlines")))
		return false;
	kmt_reader_take_cmdlines(tep, text);
	free(text);
	return true;
}

static bool parse_headers(struct cursor *c, struct kmt_reader *r, struct tracedat *td)
{
	size_t at;
	char *hp;
	size_t len;

	if (!expect_str(c, "header_page", "header_page tag"))
		return false;
	at = c->pos + 8;
	if (!(hp = get_blob(c, 8, &len, "header_page")))
		return false;
	if (tep_parse_header_page(r->tep, hp, len, tep_get_long_size(r->tep))) {
		kmt_error_set(c->err, c->path, at, "corrupt: unparsable header_page");
		free(hp);
		return false;
	}
	free(hp);
	if (td) {
		td->kernel_long_size = tep_get_header_page_size(r->tep);
		td->page_header_size = 8 + td->kernel_long_size;
		td->subbuf_size = tep_get_sub_buffer_size(r->tep);
	}
	if (td && (td->subbuf_size <= td->page_header_size || td->subbuf_size > (1u << 24))) {
		kmt_error_set(c->err, c->path, at, "corrupt: sub-buffer size %u", td->subbuf_size);
		return false;
	}
	if (!expect_str(c, "header_event", "header_event tag"))
		return false;
	hp = get_blob(c, 8, NULL, "header_event");
	free(hp);
	return hp != NULL;
}

static void set_text(struct kmt_reader *r, enum kmt_reader_text what, const char *s,
		     size_t len)
{
	free(r->texts[what]);
	r->texts[what] = strndup(s, len);
}

/* The samples' result: damaged ones are said in the report, no memory fails the open. */
static bool take_samples(struct cursor *c, struct kmt_reader *r, int ret)
{
	if (ret == -2) {
		kmt_error_set(c->err, c->path, c->pos, "out of memory for the fault samples");
		return false;
	}
	r->fault_samples_damaged |= ret < 0;
	return true;
}

static bool parse_options(struct cursor *c, struct kmt_reader *r)
{
	for (;;) {
		unsigned long long id, size;
		const char *data;

		if (!get_uint(c, 2, &id, "option id"))
			return false;
		if (id == KMT_TD_OPT_DONE)
			return true;
		if (!get_uint(c, 4, &size, "option size") || !need(c, size, "option"))
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

static bool parse_cpu_data(struct cursor *c, struct kmt_reader *r, struct tracedat *td)
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

		if (!get_uint(c, 8, &off, "CPU data offset") ||
		    !get_uint(c, 8, &size, "CPU data size"))
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

/*
 * From the magic through the saved cmdlines: the part trace.dat shares with
 * perf.data's tracing data. @version is the version string expected (NULL:
 * any). @td may be NULL when no ring-buffer pages follow.
 */
static bool parse_tracing_data(struct cursor *c, struct kmt_reader *r, struct tracedat *td,
			       const char *version)
{
	unsigned long long page_size;
	unsigned char endian, lsize;
	size_t at = c->pos;

	if (!need(c, KMT_TD_MAGIC_LEN, "magic") ||
	    memcmp(c->base + c->pos, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN)) {
		kmt_error_set(c->err, c->path, at, "corrupt: no tracing data magic");
		return false;
	}
	c->pos += KMT_TD_MAGIC_LEN;
	if (version ? !expect_str(c, version, "version") : !get_cstr(c, "version"))
		return false;
	if (!need(c, 2, "endian and long size"))
		return false;
	endian = c->base[c->pos];
	lsize = c->base[c->pos + 1];
	if (endian > 1 || (lsize != 4 && lsize != 8)) {
		kmt_error_set(c->err, c->path, c->pos, "corrupt: endian %u, long size %u",
			      endian, lsize);
		return false;
	}
	c->pos += 2;
	tep_set_file_bigendian(r->tep, endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	c->swap = tep_is_file_bigendian(r->tep) != tep_is_local_bigendian(r->tep);
	tep_set_long_size(r->tep, lsize);
	if (!get_uint(c, 4, &page_size, "page size"))
		return false;
	if (page_size < 1024 || page_size > (1u << 24) || (page_size & (page_size - 1))) {
		kmt_error_set(c->err, c->path, c->pos - 4, "corrupt: page size %llu", page_size);
		return false;
	}
	tep_set_page_size(r->tep, page_size);
	return parse_headers(c, r, td) && parse_systems(c, r) && parse_symbols(c, r);
}

bool kmt_parse_tracing_data(const void *base, size_t size, size_t offset, const char *path,
			    struct kmt_reader *r, struct kmt_error *err)
{
	struct cursor c = { .base = base, .size = size, .pos = offset, .path = path, .err = err };

	return parse_tracing_data(&c, r, NULL, NULL);
}

static bool parse_file(struct cursor *c, struct kmt_reader *r, struct tracedat *td)
{
	unsigned long long ncpus;
	char kind[10];

	c->pos = 0;
	if (!parse_tracing_data(c, r, td, "6") || !get_uint(c, 4, &ncpus, "CPU count"))
		return false;
	if (ncpus > 8192) {
		kmt_error_set(c->err, c->path, c->pos - 4, "corrupt: %llu CPUs", ncpus);
		return false;
	}
	if (kmt_reader_set_cpus(r, ncpus)) {
		kmt_error_set(c->err, c->path, c->pos, "out of memory");
		return false;
	}
	tep_set_cpus(r->tep, ncpus);
	if (!need(c, 10, "section tag"))
		return false;
	memcpy(kind, c->base + c->pos, 10);
	if (!memcmp(kind, "options  ", 10)) {
		c->pos += 10;
		if (!parse_options(c, r) || !need(c, 10, "section tag"))
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
	struct cursor c = { .path = path, .err = err };
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
	r->format = "trace.dat v6";
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

const struct kmt_backend kmt_backend_tracedat = {
	.name = "trace.dat v6",
	.probe = tracedat_probe,
	.open = tracedat_open,
};
