// SPDX-License-Identifier: LGPL-2.1
/*
 * perf.data (file mode, perf.data-file-format.txt): the attrs and their
 * ids, HEADER_TRACING_DATA fed to the same tep setup as trace.dat, and the
 * PERF_RECORD_SAMPLE records of tracepoints, whose RAW payload is the
 * ftrace entry. Samples are sorted by time per CPU; PERF_RECORD_LOST and
 * LOST_SAMPLES become each CPU's dropped events.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "hashmap.h"
#include "reader_local.h"
#include "tracedat.h"
#include "util.h"

#define PERF_MAGIC		"PERFILE2"
#define HEADER_SIZE		104
#define FEAT_TRACING_DATA	1
#define FEAT_HOSTNAME		3
#define FEAT_OSRELEASE		4
#define FEAT_ARCH		6
#define FEAT_NRCPUS		7
#define RECORD_COMPRESSED	81
#define SAMPLE_ID_ALL_BIT	(1ull << 18)
#define MAX_CPUS		8192

struct pd_attr {
	uint32_t type;
	uint64_t sample_type;
	bool sample_id_all;
};

struct pd_sample {
	uint64_t ts;
	uint64_t offset;	/* of the raw payload in the file */
	uint32_t size;
	uint32_t seq;		/* file order, for equal times */
};

struct pd_cpu {
	struct pd_sample *s;
	uint32_t n, cap, next;
};

struct perfdata {
	const unsigned char *map;
	size_t map_size;
	struct pd_attr *attrs;
	uint32_t nattrs;
	struct kmt_hashmap ids;		/* sample id -> attr index */
	struct pd_cpu *cpus;
	uint32_t ncpus;
	uint32_t seq;
	char uname[512];
};

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Is [@off, @off + @len) inside the file? */
static bool in_file(const struct perfdata *pd, uint64_t off, uint64_t len)
{
	return off <= pd->map_size && len <= pd->map_size - off;
}

static bool parse_attrs(struct perfdata *pd, const char *path, struct kmt_error *err)
{
	const unsigned char *h = pd->map;
	uint64_t attr_size = u64_at(h + 16), off = u64_at(h + 24), size = u64_at(h + 32), i;

	if (attr_size < 64 + 16 || !size || size % attr_size || !in_file(pd, off, size)) {
		kmt_error_set(err, path, 16, "corrupt: attr section (entry size %llu, size %llu)",
			      (unsigned long long)attr_size, (unsigned long long)size);
		return false;
	}
	pd->nattrs = size / attr_size;
	pd->attrs = calloc(pd->nattrs, sizeof(*pd->attrs));
	if (!pd->attrs || kmt_hashmap_init(&pd->ids))
		goto nomem;
	for (i = 0; i < pd->nattrs; i++) {
		const unsigned char *a = pd->map + off + i * attr_size;
		const unsigned char *ids = a + attr_size - 16;
		uint64_t ids_off = u64_at(ids), ids_size = u64_at(ids + 8), k;

		pd->attrs[i].type = u32_at(a);
		pd->attrs[i].sample_type = u64_at(a + 24);
		pd->attrs[i].sample_id_all = u64_at(a + 40) & SAMPLE_ID_ALL_BIT;
		if (!in_file(pd, ids_off, ids_size) || ids_size % 8) {
			kmt_error_set(err, path, off + i * attr_size + attr_size - 16,
				      "corrupt: ids of attr %llu", (unsigned long long)i);
			return false;
		}
		for (k = 0; k < ids_size / 8; k++)
			if (kmt_hashmap_put(&pd->ids, u64_at(pd->map + ids_off + k * 8), i))
				goto nomem;
	}
	return true;
nomem:
	kmt_error_set(err, path, -1, "out of memory");
	return false;
}

/* The attr of a sample: by its id where the sample carries one. */
static const struct pd_attr *sample_attr(const struct perfdata *pd, const unsigned char *p,
					 const unsigned char *end)
{
	uint64_t st = pd->attrs[0].sample_type, id, idx;
	const unsigned char *q = p;

	if (pd->nattrs == 1)
		return &pd->attrs[0];
	if (!(st & PERF_SAMPLE_IDENTIFIER)) {
		if (!(st & PERF_SAMPLE_ID))
			return NULL;
		q += 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			  !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
	}
	if (q + 8 > end)
		return NULL;
	id = u64_at(q);
	return kmt_hashmap_get(&pd->ids, id, &idx) ? &pd->attrs[idx] : NULL;
}

static int add_sample(struct perfdata *pd, uint32_t cpu, uint64_t ts, uint64_t off,
		      uint32_t size)
{
	struct pd_cpu *c;

	if (cpu >= MAX_CPUS)
		return -1;
	if (cpu >= pd->ncpus) {
		struct pd_cpu *n = realloc(pd->cpus, (cpu + 1) * sizeof(*n));

		if (!n)
			return -1;
		memset(n + pd->ncpus, 0, (cpu + 1 - pd->ncpus) * sizeof(*n));
		pd->cpus = n;
		pd->ncpus = cpu + 1;
	}
	c = &pd->cpus[cpu];
	if (kmt_grow(&c->s, &c->cap, c->n, sizeof(*c->s)))
		return -1;
	c->s[c->n++] = (struct pd_sample){ ts, off, size, pd->seq++ };
	return 0;
}

/* Walk a sample's fields in sample_type order up to RAW; keep tracepoint payloads. */
static bool take_sample(struct perfdata *pd, uint64_t pos, uint32_t size, const char *path,
			struct kmt_error *err)
{
	const unsigned char *p = pd->map + pos + 8, *end = pd->map + pos + size;
	const struct pd_attr *a = sample_attr(pd, p, end);
	uint64_t st, ts = 0, nr, raw;
	uint32_t cpu = 0;

	if (!a || a->type != PERF_TYPE_TRACEPOINT)
		return true;	/* not a tracepoint, or an id no attr has: nothing to decode */
	st = a->sample_type;
	if (st & PERF_SAMPLE_READ) {
		kmt_error_set(err, path, pos, "perf.data samples with PERF_SAMPLE_READ are not "
			      "supported (perf record -s)");
		return false;
	}
	p += 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
		  !!(st & PERF_SAMPLE_TID));
	if (st & PERF_SAMPLE_TIME) {
		if (p + 8 > end)
			goto short_;
		ts = u64_at(p);
		p += 8;
	}
	p += 8 * (!!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
		  !!(st & PERF_SAMPLE_STREAM_ID));
	if (st & PERF_SAMPLE_CPU) {
		if (p + 8 > end)
			goto short_;
		cpu = u32_at(p);
		p += 8;
	}
	p += 8 * !!(st & PERF_SAMPLE_PERIOD);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (p + 8 > end)
			goto short_;
		nr = u64_at(p);
		if (nr > (uint64_t)(end - p) / 8)
			goto short_;
		p += 8 + nr * 8;
	}
	if (!(st & PERF_SAMPLE_RAW))
		return true;
	if (p + 4 > end || (raw = u32_at(p)) > (uint64_t)(end - p - 4))
		goto short_;
	if (add_sample(pd, cpu, ts, p + 4 - pd->map, raw)) {
		kmt_error_set(err, path, pos, cpu >= MAX_CPUS ? "corrupt: sample of CPU %u" :
			      "out of memory (CPU %u)", cpu);
		return false;
	}
	return true;
short_:
	kmt_error_set(err, path, pos, "corrupt: sample record shorter than its fields");
	return false;
}

/* CPU of a LOST record, from its sample_id trailer when it has one. */
static uint32_t lost_cpu(const struct perfdata *pd, const unsigned char *end)
{
	const struct pd_attr *a = &pd->attrs[0];

	if (!a->sample_id_all || !(a->sample_type & PERF_SAMPLE_CPU))
		return 0;
	return u32_at(end - 8 - 8 * !!(a->sample_type & PERF_SAMPLE_IDENTIFIER));
}

static void add_lost(struct kmt_reader *r, uint32_t cpu, uint64_t lost)
{
	if (cpu >= (uint32_t)r->ncpus && kmt_reader_set_cpus(r, cpu + 1))
		return;
	r->stats[cpu].have_stats = true;
	r->stats[cpu].dropped += lost;
}

static bool parse_data(struct kmt_reader *r, struct perfdata *pd, const char *path,
		       struct kmt_error *err)
{
	uint64_t off = u64_at(pd->map + 40), size = u64_at(pd->map + 48), pos;

	if (!in_file(pd, off, size)) {
		kmt_error_set(err, path, 40, "corrupt: data section past the end of the file");
		return false;
	}
	for (pos = off; pos < off + size;) {
		const unsigned char *h = pd->map + pos;
		uint32_t type;
		uint16_t rsize;

		if (off + size - pos < 8) {
			kmt_error_set(err, path, pos, "truncated: record header");
			return false;
		}
		type = u32_at(h);
		memcpy(&rsize, h + 6, 2);
		if (rsize < 8 || rsize > off + size - pos) {
			kmt_error_set(err, path, pos, "corrupt: record size %u", rsize);
			return false;
		}
		if (type == PERF_RECORD_SAMPLE && !take_sample(pd, pos, rsize, path, err))
			return false;
		if (type == PERF_RECORD_LOST && rsize >= 24)
			add_lost(r, lost_cpu(pd, h + rsize), u64_at(h + 16));
		if (type == PERF_RECORD_LOST_SAMPLES && rsize >= 16)
			add_lost(r, lost_cpu(pd, h + rsize), u64_at(h + 8));
		if (type == RECORD_COMPRESSED) {
			kmt_error_set(err, path, pos, "compressed perf.data (perf record -z) is "
				      "not supported yet: record without -z");
			return false;
		}
		pos += rsize;
	}
	return true;
}

/* A feature string: u32 length, then the text. */
static const char *feat_string(const struct perfdata *pd, uint64_t off, uint64_t size)
{
	uint32_t len;

	if (size < 4 || !in_file(pd, off, size))
		return NULL;
	len = u32_at(pd->map + off);
	if (len > size - 4 || !len || !memchr(pd->map + off + 4, '\0', len))
		return NULL;
	return (const char *)pd->map + off + 4;
}

static bool parse_features(struct kmt_reader *r, struct perfdata *pd, const char *path,
			   struct kmt_error *err)
{
	uint64_t at = u64_at(pd->map + 40) + u64_at(pd->map + 48);
	const char *host = NULL, *release = NULL, *arch = NULL;
	bool tracing = false;
	int bit;

	for (bit = 0; bit < 256; bit++) {
		uint64_t off, size;

		if (!(u64_at(pd->map + 72 + bit / 64 * 8) & (1ull << (bit % 64))))
			continue;
		if (!in_file(pd, at, 16)) {
			kmt_error_set(err, path, at, "truncated: feature section table");
			return false;
		}
		off = u64_at(pd->map + at);
		size = u64_at(pd->map + at + 8);
		at += 16;
		if (bit == FEAT_TRACING_DATA) {
			if (!in_file(pd, off, size) ||
			    !kmt_parse_tracing_data(pd->map, off + size, off, path, r, err))
				return false;
			tracing = true;
		} else if (bit == FEAT_HOSTNAME) {
			host = feat_string(pd, off, size);
		} else if (bit == FEAT_OSRELEASE) {
			release = feat_string(pd, off, size);
		} else if (bit == FEAT_ARCH) {
			arch = feat_string(pd, off, size);
		}
	}
	if (!tracing) {
		kmt_error_set(err, path, 72, "perf.data without tracing data: record tracepoints "
			      "(perf record -e 'kmem:*')");
		return false;
	}
	if (release) {
		snprintf(pd->uname, sizeof(pd->uname), "Linux %s %s perf.data %s",
			 host ? host : "?", release, arch ? arch : "?");
		r->texts[KMT_TEXT_UNAME] = strdup(pd->uname);
	}
	return true;
}

static int by_time(const void *a, const void *b)
{
	const struct pd_sample *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int perfdata_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
			 struct kmt_error *err)
{
	struct perfdata *pd = r->priv;
	struct pd_cpu *c;
	const struct pd_sample *s;

	(void)err;
	if (cpu < 0 || (uint32_t)cpu >= pd->ncpus)
		return 0;
	c = &pd->cpus[cpu];
	if (c->next >= c->n)
		return 0;
	s = &c->s[c->next++];
	rec->ts = s->ts;
	rec->data = pd->map + s->offset;
	rec->size = s->size;
	rec->cpu = cpu;
	return 1;
}

static void perfdata_close(struct kmt_reader *r)
{
	struct perfdata *pd = r->priv;
	uint32_t i;

	if (!pd)
		return;
	for (i = 0; i < pd->ncpus; i++)
		free(pd->cpus[i].s);
	free(pd->cpus);
	free(pd->attrs);
	kmt_hashmap_free(&pd->ids);
	if (pd->map)
		munmap((void *)pd->map, pd->map_size);
	free(pd);
	r->priv = NULL;
}

static const struct kmt_reader_ops perfdata_ops = {
	.next = perfdata_next,
	.close = perfdata_close,
};

static bool parse_perfdata(struct kmt_reader *r, struct perfdata *pd, const char *path,
			   struct kmt_error *err)
{
	uint32_t cpu;

	if (pd->map_size < HEADER_SIZE || u64_at(pd->map + 8) != HEADER_SIZE) {
		kmt_error_set(err, path, 8, "perf.data header size is not %d (pipe mode, "
			      "perf record -o -, is not supported)", HEADER_SIZE);
		return false;
	}
	if (!parse_attrs(pd, path, err) || !parse_features(r, pd, path, err) ||
	    !parse_data(r, pd, path, err))
		return false;
	if (pd->ncpus > (uint32_t)r->ncpus && kmt_reader_set_cpus(r, pd->ncpus)) {
		kmt_error_set(err, path, -1, "out of memory");
		return false;
	}
	for (cpu = 0; cpu < pd->ncpus; cpu++)
		if (pd->cpus[cpu].n)
			qsort(pd->cpus[cpu].s, pd->cpus[cpu].n, sizeof(struct pd_sample), by_time);
	tep_set_cpus(r->tep, r->ncpus);
	return true;
}

struct kmt_reader *kmt_perfdata_open(const char *path, int fd, struct kmt_error *err)
{
	struct kmt_reader *r = kmt_reader_alloc(path, &perfdata_ops);
	struct perfdata *pd = calloc(1, sizeof(*pd));

	if (!r || !pd || !(r->tep = tep_alloc())) {
		kmt_error_set(err, path, -1, "out of memory");
		goto fail;
	}
	r->priv = pd;
	r->format = "perf.data";
	if (kmt_map_file(fd, path, &pd->map, &pd->map_size, err)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (!parse_perfdata(r, pd, path, err))
		goto fail;
	return r;
fail:
	if (fd >= 0)
		close(fd);
	if (r && !r->priv)
		free(pd);
	if (r)
		kmt_reader_close(r);
	else
		free(pd);
	return NULL;
}
