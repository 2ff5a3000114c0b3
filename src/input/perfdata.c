// SPDX-License-Identifier: LGPL-2.1
/*
 * perf.data (tools/perf/Documentation/perf.data-file-format.txt), file mode
 * and pipe mode. File mode: the header, the attrs and their ids, the
 * feature sections (HEADER_TRACING_DATA goes to the same tep setup as
 * trace.dat; NRCPUS, HOSTNAME, OSRELEASE, ARCH), then the data section.
 * Pipe mode: the same things as records (HEADER_ATTR, HEADER_FEATURE,
 * HEADER_TRACING_DATA) ahead of the samples. Tracepoint samples are walked
 * field by field up to RAW, keeping the callchain, and handed out as one
 * stream in time order; LOST and LOST_SAMPLES become each CPU's dropped
 * events. COMM, FORK, EXIT, MMAP, NAMESPACES and CGROUP records tell the
 * tasks (perfdata_tasks.c): each sample carries its thread's name at its
 * time, and the process table is filled when the replay ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perf/event.h>
#include <traceevent/event-parse.h>

#include "common/hashmap.h"
#include "perfdata.h"
#include "reader_local.h"
#include "container/tracedat.h"
#include "common/util.h"

#define PERF_MAGIC		"PERFILE2"
#define FILE_HEADER_SIZE	104
#define PIPE_HEADER_SIZE	16
#define FEAT_TRACING_DATA	1
#define FEAT_BUILD_ID		2
#define FEAT_HOSTNAME		3
#define FEAT_OSRELEASE		4
#define FEAT_ARCH		6
#define FEAT_STRINGS		7	/* feat[] holds bits below this */
#define FEAT_BITS		256
#define MAX_FEATURE		(256u << 20)	/* larger sections are corrupt */
#define SAMPLE_ID_ALL_BIT	(1ull << 18)
#define ATTR_MIN_SIZE		64
#define MMAP_NAME_AT		40	/* PERF_RECORD_MMAP: filename */
#define MMAP2_NAME_AT		72
#define MMAP2_PROT_AT		64
#define PROT_EXEC_BIT		0x4
#define PIDNS_INDEX		3	/* PERF_RECORD_NAMESPACES: the pid namespace's entry */
#define KERNEL_MAP		"[kernel.kallsyms]"
#define ID_HINTS		16	/* the kernel numbers ids in sequence */

struct pd_id_hint {
	uint64_t id;
	uint32_t attr;
	bool set;
};

/*
 * An event's attr, and where its samples have their fixed fields: record
 * offsets of TID, TIME and CPU (0: not sampled), and of what follows them
 * (CALLCHAIN or RAW). @plain: a tracepoint's samples with TID, TIME, CPU
 * and RAW, and nothing take_sample() handles apart (READ, CALLCHAIN,
 * CGROUP), as perf record -e writes them.
 */
struct pd_attr {
	uint32_t type;
	uint64_t sample_type;
	bool sample_id_all;
	bool plain;
	uint16_t tid_at, time_at, cpu_at, fixed_end;
};

struct perfdata {
	struct pd_stream in;
	struct pd_order order;
	struct pd_tasks tasks;
	struct pd_attr *attrs;
	uint32_t nattrs, cap_attrs;
	struct kmt_hashmap ids;		/* sample id -> attr index */
	struct pd_id_hint id_hints[ID_HINTS];	/* recent lookups of ids, by low bits */
	uint64_t kernel_text;		/* _text at the recording (kernel MMAP pgoff) */
	uint64_t round_ends[2];		/* where the last two rounds ended */
	bool tracing, done, sampled;
	bool finished;			/* the replay read all: the tasks' names are final */
	char *feat[FEAT_STRINGS];	/* HOSTNAME, OSRELEASE, ARCH strings */
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

static uint16_t u16_at(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static int nomem(const char *path, struct kmt_error *err)
{
	kmt_error_set(err, path, -1, "out of memory");
	return -1;
}

/* Read @size bytes at @off of the file into a new buffer. */
static unsigned char *read_at(struct perfdata *pd, uint64_t off, uint64_t size,
			      const char *what, struct kmt_error *err)
{
	unsigned char *buf = malloc(size ? size : 1);
	ssize_t got;

	if (!buf) {
		nomem(pd->in.path, err);
		return NULL;
	}
	got = size ? pread(pd->in.fd, buf, size, off) : 0;
	if (got < 0 || (uint64_t)got != size) {
		kmt_error_set(err, pd->in.path, off, got < 0 ? "cannot read %s: %s" :
			      "truncated: %s%s", what, got < 0 ? strerror(errno) : "");
		free(buf);
		return NULL;
	}
	return buf;
}

/* Where the fields before CALLCHAIN are in @x's samples (8: after the header). */
static void set_layout(struct pd_attr *x)
{
	uint64_t st = x->sample_type;
	uint16_t at = 8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP));

	x->tid_at = st & PERF_SAMPLE_TID ? at : 0;
	at += 8 * !!(st & PERF_SAMPLE_TID);
	x->time_at = st & PERF_SAMPLE_TIME ? at : 0;
	at += 8 * (!!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR) +
		   !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID));
	x->cpu_at = st & PERF_SAMPLE_CPU ? at : 0;
	at += 8 * (!!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_PERIOD));
	x->fixed_end = at;
	x->plain = x->type == PERF_TYPE_TRACEPOINT &&
		   (st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW |
			  PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_CGROUP)) ==
		   (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW);
}

/* The attr at @a (a perf_event_attr); returns its index or -1. */
static int add_attr(struct perfdata *pd, const unsigned char *a)
{
	struct pd_attr *x;

	if (kmt_grow(&pd->attrs, &pd->cap_attrs, pd->nattrs, sizeof(*pd->attrs)))
		return -1;
	x = &pd->attrs[pd->nattrs];
	x->type = u32_at(a);
	x->sample_type = u64_at(a + 24);
	x->sample_id_all = u64_at(a + 40) & SAMPLE_ID_ALL_BIT;
	set_layout(x);
	return pd->nattrs++;
}

static int add_ids(struct perfdata *pd, const unsigned char *ids, uint64_t n, int attr)
{
	uint64_t k;

	memset(pd->id_hints, 0, sizeof(pd->id_hints));	/* an id may change its attr */
	for (k = 0; k < n; k++)
		if (kmt_hashmap_put(&pd->ids, u64_at(ids + k * 8), attr))
			return -1;
	return 0;
}

/* File mode: the attr section, each entry an attr and the file section of its ids. */
static int read_attrs(struct perfdata *pd, const unsigned char *h, struct kmt_error *err)
{
	uint64_t attr_size = u64_at(h + 16), off = u64_at(h + 24), size = u64_at(h + 32), i;
	unsigned char *sec, *ids = NULL;
	int ret = -1;

	if (attr_size < ATTR_MIN_SIZE + 16 || !size || size % attr_size || size > MAX_FEATURE) {
		kmt_error_set(err, pd->in.path, 16, "corrupt: attr section (entry size %llu, "
			      "size %llu)", (unsigned long long)attr_size, (unsigned long long)size);
		return -1;
	}
	if (!(sec = read_at(pd, off, size, "attr section", err)))
		return -1;
	for (i = 0; i < size / attr_size; i++) {
		const unsigned char *a = sec + i * attr_size, *f = a + attr_size - 16;
		uint64_t ids_size = u64_at(f + 8);
		int idx = add_attr(pd, a);

		if (idx < 0)
			goto nomem;
		if (ids_size % 8 || ids_size > MAX_FEATURE) {
			kmt_error_set(err, pd->in.path, off + (f - sec), "corrupt: ids of attr %llu",
				      (unsigned long long)i);
			goto out;
		}
		if (!(ids = read_at(pd, u64_at(f), ids_size, "attr ids", err)))
			goto out;
		if (add_ids(pd, ids, ids_size / 8, idx))
			goto nomem;
		free(ids);
		ids = NULL;
	}
	ret = 0;
	goto out;
nomem:
	nomem(pd->in.path, err);
out:
	free(ids);
	free(sec);
	return ret;
}

static int parse_tracing(struct kmt_reader *r, struct perfdata *pd, const unsigned char *buf,
			 uint64_t size, uint64_t file_off, struct kmt_error *err)
{
	if (!kmt_parse_tracing_data(buf, size, 0, pd->in.path, r, err)) {
		if (err && err->offset >= 0)
			err->offset += file_off;
		return -1;
	}
	pd->tracing = true;
	return 0;
}

/*
 * HEADER_BUILD_ID: records of header (8 bytes), pid (4), build-id (20
 * bytes and, with misc bit 15, its size in the 21st; 24 in all) and file
 * name. The kernel's is the recording's kernel build-id.
 */
static void take_build_ids(struct kmt_reader *r, const unsigned char *buf, uint64_t size)
{
	uint64_t at = 0;

	while (size - at >= 36 + sizeof(KERNEL_MAP)) {
		const unsigned char *e = buf + at;
		uint16_t len = (uint16_t)(e[6] | e[7] << 8), misc = (uint16_t)(e[4] | e[5] << 8);
		unsigned int i, n = misc & (1u << 15) && e[32] <= 20 ? e[32] : 20;

		if (len < 36 + sizeof(KERNEL_MAP) || len > size - at)
			return;
		if (!memcmp(e + 36, KERNEL_MAP, sizeof(KERNEL_MAP))) {
			for (i = 0; i < n; i++)
				sprintf(r->kernel_build_id + 2 * i, "%02x", e[12 + i]);
			return;
		}
		at += len;
	}
}

/* A feature's content (the same in a file section and a HEADER_FEATURE record). */
static int take_feature(struct kmt_reader *r, struct perfdata *pd, int bit,
			const unsigned char *buf, uint64_t size, uint64_t file_off,
			struct kmt_error *err)
{
	uint32_t len;

	switch (bit) {
	case FEAT_TRACING_DATA:
		return parse_tracing(r, pd, buf, size, file_off, err);
	case FEAT_BUILD_ID:
		take_build_ids(r, buf, size);
		return 0;
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
	case FEAT_ARCH:
		if (size < 4 || (len = u32_at(buf)) > size - 4 || !len ||
		    !memchr(buf + 4, '\0', len))
			return 0;	/* a damaged string is left out */
		free(pd->feat[bit]);
		pd->feat[bit] = strdup((const char *)buf + 4);
		return pd->feat[bit] ? 0 : nomem(pd->in.path, err);
	default:
		return 0;
	}
}

static bool wanted_feature(int bit)
{
	return bit == FEAT_TRACING_DATA || bit == FEAT_BUILD_ID || bit == FEAT_HOSTNAME ||
	       bit == FEAT_OSRELEASE || bit == FEAT_ARCH;
}

/* Feature @bit, whose entry of the feature section table is at @ent_at. 0 or -1. */
static int read_feature(struct kmt_reader *r, struct perfdata *pd, int bit, uint64_t ent_at,
			struct kmt_error *err)
{
	unsigned char *ent, *buf;
	uint64_t off, size;
	int ret;

	if (!(ent = read_at(pd, ent_at, 16, "feature section table", err)))
		return -1;
	off = u64_at(ent);
	size = u64_at(ent + 8);
	free(ent);
	if (size > MAX_FEATURE) {
		kmt_error_set(err, pd->in.path, ent_at, "corrupt: feature %d of %llu bytes", bit,
			      (unsigned long long)size);
		return -1;
	}
	if (!(buf = read_at(pd, off, size, "feature section", err)))
		return -1;
	ret = take_feature(r, pd, bit, buf, size, off, err);
	free(buf);
	return ret;
}

/*
 * File mode: the feature sections listed after the data section; the
 * tracing data last, so that /proc/kallsyms is on its way (the kernel's
 * release known) while the formats are tried and parsed.
 */
static int read_features(struct kmt_reader *r, struct perfdata *pd, const unsigned char *h,
			 struct kmt_error *err)
{
	uint64_t at = u64_at(h + 40) + u64_at(h + 48), tracing_at = 0;
	bool tracing = false;
	int bit;

	for (bit = 0; bit < FEAT_BITS; bit++) {
		if (!(u64_at(h + 72 + bit / 64 * 8) & (1ull << (bit % 64))))
			continue;
		if (bit == FEAT_TRACING_DATA) {
			tracing = true;
			tracing_at = at;
		} else if (wanted_feature(bit) && read_feature(r, pd, bit, at, err)) {
			return -1;
		}
		at += 16;
	}
	kmt_reader_expect_live_kallsyms(r, pd->feat[FEAT_OSRELEASE]);
	return tracing ? read_feature(r, pd, FEAT_TRACING_DATA, tracing_at, err) : 0;
}

/* The attr of sample id @id: most samples hit the hint of their low bits. */
static const struct pd_attr *attr_of_id(struct perfdata *pd, uint64_t id)
{
	struct pd_id_hint *h = &pd->id_hints[id % ID_HINTS];
	uint64_t idx;

	if (h->set && h->id == id)
		return &pd->attrs[h->attr];
	if (!kmt_hashmap_get(&pd->ids, id, &idx))
		return NULL;
	*h = (struct pd_id_hint){ id, (uint32_t)idx, true };
	return &pd->attrs[idx];
}

/* The attr of a sample: by its id where the sample carries one. */
static const struct pd_attr *sample_attr(struct perfdata *pd, const unsigned char *p,
					 const unsigned char *end)
{
	uint64_t st;
	const unsigned char *q = p;

	if (!pd->nattrs)
		return NULL;
	if (pd->nattrs == 1)
		return &pd->attrs[0];
	st = pd->attrs[0].sample_type;
	if (!(st & PERF_SAMPLE_IDENTIFIER)) {
		if (!(st & PERF_SAMPLE_ID))
			return NULL;
		q += 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			  !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
	}
	if (q + 8 > end)
		return NULL;
	return attr_of_id(pd, u64_at(q));
}

/* Make the reader's per-CPU stats cover @cpu. */
static int cover_cpu(struct kmt_reader *r, uint32_t cpu)
{
	return cpu < (uint32_t)r->ncpus ? 0 : kmt_reader_set_cpus(r, cpu + 1);
}

/* Fields between RAW and CGROUP of 8 bytes each (WEIGHT or WEIGHT_STRUCT, one u64)... */
#define FIXED_AFTER_RAW	(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | \
			 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR)
/* ... and those of a size of their own. */
#define SIZED_AFTER_RAW	(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | \
			 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR)

/*
 * perf record --all-cgroups: the cgroup id after RAW (@raw at its u32
 * size). Left unknown behind fields of their own size (branch stacks,
 * registers, user stacks). 0, or -1 when out of memory.
 */
static int take_sample_cgroup(struct perfdata *pd, uint64_t st, uint32_t tid,
			      const unsigned char *raw, const unsigned char *end)
{
	const unsigned char *p;

	if (!(st & PERF_SAMPLE_CGROUP) || (st & SIZED_AFTER_RAW))
		return 0;
	p = raw + ((4 + u32_at(raw) + 7) & ~7u);	/* the raw data pads to u64s */
	p += 8 * __builtin_popcountll(st & FIXED_AFTER_RAW);
	if (p + 8 > end)
		return 0;
	return kmt_pd_tasks_sample_cgroup(&pd->tasks, tid, u64_at(p));
}

/*
 * A whole sample of a plain attr (see struct pd_attr) of a CPU seen before,
 * queued: true. Else false, for take_sample()'s field-by-field path.
 */
static inline bool take_plain_sample(struct kmt_reader *r, struct perfdata *pd,
				     const struct pd_attr *a, const struct pd_record *rec,
				     int *ret, struct kmt_error *err)
{
	const unsigned char *d = rec->data;
	uint32_t raw, cpu;

	if (!a->plain || (uint32_t)rec->size < a->fixed_end + 4u)
		return false;
	raw = u32_at(d + a->fixed_end);
	cpu = u32_at(d + a->cpu_at);
	if (raw > (uint32_t)rec->size - a->fixed_end - 4u || cpu >= (uint32_t)r->ncpus)
		return false;
	*ret = kmt_pd_order_add(&pd->order, cpu, u32_at(d + a->tid_at + 4), u64_at(d + a->time_at),
				d + a->fixed_end + 4, raw, NULL, 0, rec->kept) ?
	       nomem(pd->in.path, err) : 0;
	pd->sampled |= !*ret;
	return true;
}

/* Walk a sample's fields in sample_type order up to RAW; queue tracepoint payloads. */
static int take_sample(struct kmt_reader *r, struct perfdata *pd, const struct pd_record *rec,
		       struct kmt_error *err)
{
	const unsigned char *p = rec->data + 8, *end = rec->data + rec->size, *chain = NULL;
	const struct pd_attr *a = sample_attr(pd, p, end);
	uint64_t st, ts, nr = 0, raw;
	uint32_t cpu, tid;
	bool kept;
	int ret;

	if (!a || a->type != PERF_TYPE_TRACEPOINT)
		return 0;	/* not a tracepoint, or an id no attr has: nothing to decode */
	if (take_plain_sample(r, pd, a, rec, &ret, err))
		return ret;
	st = a->sample_type;
	if (st & PERF_SAMPLE_READ) {
		kmt_error_set(err, pd->in.path, rec->offset, "perf.data samples with "
			      "PERF_SAMPLE_READ are not supported (perf record -s)");
		return -1;
	}
	/* fields a short record lacks stay 0 */
	tid = a->tid_at && a->tid_at + 8 <= rec->size ? u32_at(rec->data + a->tid_at + 4) : 0;
	ts = a->time_at && a->time_at + 8 <= rec->size ? u64_at(rec->data + a->time_at) : 0;
	cpu = a->cpu_at && a->cpu_at + 8 <= rec->size ? u32_at(rec->data + a->cpu_at) : 0;
	p = rec->data + a->fixed_end;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (p + 8 > end || (nr = u64_at(p)) > (uint64_t)(end - p - 8) / 8)
			goto short_;
		chain = p + 8;
		p += 8 + nr * 8;
	}
	if (!(st & PERF_SAMPLE_RAW))
		return 0;
	if (p + 4 > end || (raw = u32_at(p)) > (uint64_t)(end - p - 4))
		goto short_;
	if (cpu >= KMT_MAX_CPUS) {
		kmt_error_set(err, pd->in.path, rec->offset, "corrupt: sample of CPU %u", cpu);
		return -1;
	}
	kept = rec->kept && !((uintptr_t)chain % sizeof(uint64_t));	/* u64s read in place */
	if (cover_cpu(r, cpu) ||
	    kmt_pd_order_add(&pd->order, cpu, tid, ts, p + 4, raw, chain, nr, kept) ||
	    take_sample_cgroup(pd, st, tid, p, end))
		return nomem(pd->in.path, err);
	pd->sampled = true;
	return 0;
short_:
	kmt_error_set(err, pd->in.path, rec->offset, "corrupt: sample record shorter than "
		      "its fields");
	return -1;
}

/* CPU of a LOST record, from its sample_id trailer when it has one. */
static uint32_t lost_cpu(const struct perfdata *pd, const struct pd_record *rec)
{
	const struct pd_attr *a = pd->nattrs ? &pd->attrs[0] : NULL;
	uint32_t back;

	if (!a || !a->sample_id_all || !(a->sample_type & PERF_SAMPLE_CPU))
		return 0;
	back = 8 + 8 * !!(a->sample_type & PERF_SAMPLE_IDENTIFIER);
	return rec->size >= 16 + back ? u32_at(rec->data + rec->size - back) : 0;
}

static int add_lost(struct kmt_reader *r, uint32_t cpu, uint64_t lost)
{
	if (cpu >= KMT_MAX_CPUS || cover_cpu(r, cpu))
		return 0;	/* a damaged trailer: the count has no CPU to go to */
	r->stats[cpu].have_stats = true;
	kmt_cpu_stats_add(&r->stats[cpu], &r->stats[cpu].dropped, lost);
	return 0;
}

/* Pipe mode: HEADER_ATTR is an attr, then the ids of its events. */
static int take_attr_record(struct perfdata *pd, const struct pd_record *rec,
			    struct kmt_error *err)
{
	uint32_t attr_size = rec->size >= 16 ? u32_at(rec->data + 12) : 0;
	int idx;

	if (attr_size < ATTR_MIN_SIZE || attr_size > rec->size - 8u) {
		kmt_error_set(err, pd->in.path, rec->offset, "corrupt: attr record");
		return -1;
	}
	idx = add_attr(pd, rec->data + 8);
	if (idx < 0 || add_ids(pd, rec->data + 8 + attr_size, (rec->size - 8 - attr_size) / 8, idx))
		return nomem(pd->in.path, err);
	return 0;
}

/* Pipe mode: HEADER_TRACING_DATA is followed by the tracing data itself. */
static int take_tracing_record(struct kmt_reader *r, struct perfdata *pd,
			       const struct pd_record *rec, struct kmt_error *err)
{
	uint32_t size = rec->size >= 12 ? u32_at(rec->data + 8) : 0;
	uint64_t at = rec->offset + rec->size;
	unsigned char *buf;
	int ret;

	if (!size || size > MAX_FEATURE || rec->unpacked) {
		kmt_error_set(err, pd->in.path, rec->offset, "corrupt: tracing data record");
		return -1;
	}
	if (!(buf = malloc(size)))
		return nomem(pd->in.path, err);
	ret = kmt_pd_stream_read(&pd->in, buf, size, err);
	if (!ret)
		ret = parse_tracing(r, pd, buf, size, at, err);
	free(buf);
	return ret;
}

/* The time of a side-band record, from its sample_id trailer (0 without one). */
static uint64_t record_time(const struct perfdata *pd, const struct pd_record *rec)
{
	const struct pd_attr *a = pd->nattrs ? &pd->attrs[0] : NULL;
	uint64_t st;
	uint32_t back;

	if (!a || !a->sample_id_all || !((st = a->sample_type) & PERF_SAMPLE_TIME))
		return 0;
	back = 8 * (1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
	return rec->size >= 8 + back ? u64_at(rec->data + rec->size - back) : 0;
}

/*
 * The kernel's map: its pgoff is where _text was at the recording. An
 * executable file mapping of a task: its program, if the first since its
 * name. 0, or -1 when out of memory.
 */
static int take_mmap(struct perfdata *pd, const struct pd_record *rec, size_t name_at,
		     bool exec)
{
	size_t n = sizeof(KERNEL_MAP) - 1;

	if (rec->size <= name_at)
		return 0;
	if (rec->size >= name_at + n && !memcmp(rec->data + name_at, KERNEL_MAP, n)) {
		if (!pd->kernel_text)
			pd->kernel_text = u64_at(rec->data + 32);
		return 0;
	}
	if (!exec)
		return 0;
	return kmt_pd_tasks_exec_map(&pd->tasks, u32_at(rec->data + 12), record_time(pd, rec),
				     (const char *)rec->data + name_at, rec->size - name_at);
}

/*
 * What COMM, FORK, EXIT, NAMESPACES and CGROUP records tell of the tasks
 * (short ones are left out). 0, or -1 when out of memory.
 */
static int take_task_record(struct perfdata *pd, const struct pd_record *rec)
{
	const unsigned char *d = rec->data;
	struct pd_tasks *t = &pd->tasks;

	switch (rec->type) {
	case PERF_RECORD_COMM:
		return rec->size < 17 ? 0 :
		       kmt_pd_tasks_comm(t, u32_at(d + 8), u32_at(d + 12), record_time(pd, rec),
					 (const char *)d + 16, rec->size - 16,
					 u16_at(d + 4) & PERF_RECORD_MISC_COMM_EXEC);
	case PERF_RECORD_FORK:
		return rec->size < 32 ? 0 : kmt_pd_tasks_fork(t, u32_at(d + 8), u32_at(d + 12),
							      u32_at(d + 16), u32_at(d + 20),
							      u64_at(d + 24));
	case PERF_RECORD_EXIT:
		return rec->size < 32 ? 0 : kmt_pd_tasks_exit(t, u32_at(d + 8), u32_at(d + 12),
							      u32_at(d + 16), u64_at(d + 24));
	case PERF_RECORD_NAMESPACES:
		if (rec->size < 24 || u64_at(d + 16) <= PIDNS_INDEX ||
		    rec->size < 24 + 16 * (PIDNS_INDEX + 1))
			return 0;
		return kmt_pd_tasks_pidns(t, u32_at(d + 12), u64_at(d + 24 + 16 * PIDNS_INDEX + 8));
	case PERF_RECORD_CGROUP:
		return rec->size < 17 ? 0 : kmt_pd_tasks_cgroup_path(t, u64_at(d + 8),
								     (const char *)d + 16,
								     rec->size - 16);
	default:
		return 0;
	}
}

/*
 * At the end of a round, the samples of the round before last have all been
 * handed out (kmt_pd_order_round): their part of a mapped file can go, but
 * for the records a second thread still reads (kmt_reader_hold()). A time
 * order of two CPUs takes from two parts of a round, so those may lie far
 * behind the round's end: given back, they were read in again and stayed.
 */
static void release_rounds(const struct kmt_reader *r, struct perfdata *pd, uint64_t round_end)
{
	kmt_pd_stream_release(&pd->in, pd->round_ends[0], r->hold);
	pd->round_ends[0] = pd->round_ends[1];
	pd->round_ends[1] = round_end;
}

/* Act on one record. Returns 1 at the end of a round, 0 otherwise, -1 on error. */
static int take_record(struct kmt_reader *r, struct perfdata *pd, const struct pd_record *rec,
		       struct kmt_error *err)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return take_sample(r, pd, rec, err);
	case PERF_RECORD_LOST:
		return rec->size < 24 ? 0 : add_lost(r, lost_cpu(pd, rec), u64_at(rec->data + 16));
	case PERF_RECORD_LOST_SAMPLES:
		return rec->size < 16 ? 0 : add_lost(r, lost_cpu(pd, rec), u64_at(rec->data + 8));
	case PERF_RECORD_FINISHED_ROUND:
		kmt_pd_order_round(&pd->order);
		release_rounds(r, pd, rec->offset);
		return 1;
	case PERF_RECORD_HEADER_ATTR:
		return take_attr_record(pd, rec, err);
	case PERF_RECORD_HEADER_FEATURE:
		if (rec->size < 16 || u64_at(rec->data + 8) >= FEAT_BITS)
			return 0;
		return take_feature(r, pd, u64_at(rec->data + 8), rec->data + 16, rec->size - 16,
				    rec->offset + 16, err);
	case PERF_RECORD_HEADER_TRACING_DATA:
		return take_tracing_record(r, pd, rec, err);
	case PERF_RECORD_MMAP:
		return take_mmap(pd, rec, MMAP_NAME_AT,
				 !(u16_at(rec->data + 4) & PERF_RECORD_MISC_MMAP_DATA)) ?
		       nomem(pd->in.path, err) : 0;
	case PERF_RECORD_MMAP2:
		return take_mmap(pd, rec, MMAP2_NAME_AT, rec->size > MMAP2_NAME_AT &&
				 (u32_at(rec->data + MMAP2_PROT_AT) & PROT_EXEC_BIT)) ?
		       nomem(pd->in.path, err) : 0;
	default:
		return take_task_record(pd, rec) ? nomem(pd->in.path, err) : 0;
	}
}

/* Read records up to the end of the next round, or of the input. */
static int read_round(struct kmt_reader *r, struct perfdata *pd, struct kmt_error *err)
{
	struct pd_record rec;
	int ret;

	while ((ret = kmt_pd_stream_next(&pd->in, &rec, err)) > 0) {
		ret = take_record(r, pd, &rec, err);
		if (ret)
			return ret < 0 ? -1 : 0;
	}
	if (ret < 0)
		return -1;
	pd->done = true;
	return 0;
}

/* @s into @rec, with its thread's name at its time. */
static void to_record(struct perfdata *pd, const struct pd_sample *s, struct kmt_record *rec)
{
	rec->ts = s->ts;
	rec->data = s->data;
	rec->size = s->size;
	rec->cpu = s->cpu;
	rec->callchain = kmt_pd_sample_chain(s);
	rec->callchain_nr = s->nchain;
	rec->kept = !s->copied;	/* read in place from the mapped file */
	rec->comm = kmt_pd_tasks_name(&pd->tasks, s->tid, s->ts);
}

static int perfdata_next_batch(struct kmt_reader *r, struct kmt_record *recs, int max,
			       struct kmt_error *err)
{
	struct perfdata *pd = r->priv;
	const struct pd_sample *s;
	int n = 0;

	if (max > PD_TAKE_MAX)
		max = PD_TAKE_MAX;
	kmt_pd_order_release(&pd->order);	/* the last batch is read */
	while (n < max) {
		if ((s = kmt_pd_order_take(&pd->order, pd->done))) {
			to_record(pd, s, &recs[n++]);
			continue;
		}
		if (pd->done || n)
			break;		/* a round is read only when nothing waits */
		if (read_round(r, pd, err))
			return -1;
	}
	return n;
}

static void perfdata_close(struct kmt_reader *r)
{
	struct perfdata *pd = r->priv;
	int i;

	tep_free(r->tep);
	r->tep = NULL;
	if (!pd)
		return;
	kmt_pd_order_free(&pd->order);
	kmt_pd_stream_free(&pd->in);
	kmt_pd_tasks_free(&pd->tasks);
	free(pd->attrs);
	kmt_hashmap_free(&pd->ids);
	for (i = 0; i < FEAT_STRINGS; i++)
		free(pd->feat[i]);
	free(pd);
	r->priv = NULL;
}

/* The replay has read all: the tasks' last names and what else is known of them. */
static int perfdata_finish(struct kmt_reader *r)
{
	struct perfdata *pd = r->priv;
	struct kmt_proctable *procs = kmt_reader_processes(r);

	r->unnamed = pd->tasks.unnamed;
	if (!procs || kmt_pd_tasks_finish(&pd->tasks, procs))
		return -1;
	pd->finished = true;
	return 0;
}

/*
 * Once all is read, the last name of thread @pid (not libtraceevent's:
 * inserting thousands of names into its sorted array, one at a time,
 * moves its tail each time).
 */
static const char *perfdata_comm(struct kmt_reader *r, int pid)
{
	const struct perfdata *pd = r->priv;

	return pd->finished && pid ? kmt_pd_tasks_last_name(&pd->tasks, (uint32_t)pid) : NULL;
}

static const struct kmt_reader_ops perfdata_ops = {
	.next_batch = perfdata_next_batch,
	.close = perfdata_close,
	.finish = perfdata_finish,
	.comm = perfdata_comm,
};

/* File mode: header, attrs and features, then the data section as the stream. */
static int open_file_mode(struct kmt_reader *r, struct perfdata *pd, int fd,
			  struct kmt_error *err)
{
	unsigned char *h;
	int ret;

	pd->in.fd = fd;
	if (lseek(fd, 0, SEEK_CUR) < 0) {
		kmt_error_set(err, pd->in.path, 0, "file-mode perf.data cannot be read from a "
			      "pipe: give the file with -i, or record with perf record -o -");
		return -1;
	}
	if (!(h = read_at(pd, 0, FILE_HEADER_SIZE, "file header", err)))
		return -1;
	ret = read_attrs(pd, h, err) || read_features(r, pd, h, err);
	if (!ret)
		ret = kmt_pd_stream_init(&pd->in, pd->in.path, fd, NULL, 0, u64_at(h + 40),
				     u64_at(h + 40) + u64_at(h + 48), err);
	free(h);
	return ret ? -1 : 0;
}

/* Read ahead until the first samples, so that formats and CPU count are known. */
static int prime(struct kmt_reader *r, struct perfdata *pd, struct kmt_error *err)
{
	while (!pd->done && !(pd->sampled && pd->tracing))
		if (read_round(r, pd, err))
			return -1;
	if (!pd->tracing) {
		kmt_error_set(err, pd->in.path, -1, "perf.data without tracing data: record "
			      "tracepoints (perf record -e 'kmem:*')");
		return -1;
	}
	/*
	 * The CPUs are those samples name, not HEADER_NRCPUS: a number the file
	 * claims must cost no memory. perf.data keeps no kallsyms (perf writes
	 * an empty one).
	 */
	if (cover_cpu(r, 0) ||
	    (!r->symbols && kmt_reader_defer_live_kallsyms(r, pd->feat[FEAT_OSRELEASE],
							   pd->kernel_text)))
		return nomem(pd->in.path, err);
	tep_set_cpus(r->tep, r->ncpus);
	if (pd->feat[FEAT_OSRELEASE]) {
		char uname[512];
		const char *host = pd->feat[FEAT_HOSTNAME], *arch = pd->feat[FEAT_ARCH];

		snprintf(uname, sizeof(uname), "Linux %s %s perf.data %s", host ? host : "?",
			 pd->feat[FEAT_OSRELEASE], arch ? arch : "?");
		r->texts[KMT_TEXT_UNAME] = strdup(uname);
	}
	return 0;
}

static int open_perfdata(struct kmt_reader *r, struct perfdata *pd, int fd,
			 const unsigned char *head, size_t head_len, struct kmt_error *err)
{
	uint64_t hsize = head_len >= 16 ? u64_at(head + 8) : 0;

	if (kmt_hashmap_init(&pd->ids) || kmt_pd_tasks_init(&pd->tasks))
		return nomem(pd->in.path, err);
	if (hsize == FILE_HEADER_SIZE) {
		r->format = "perf.data";
		if (open_file_mode(r, pd, fd, err))
			return -1;
	} else if (hsize == PIPE_HEADER_SIZE) {
		r->format = "perf.data (pipe mode)";
		if (kmt_pd_stream_init(&pd->in, pd->in.path, fd, head, head_len, PIPE_HEADER_SIZE,
				   UINT64_MAX, err))
			return -1;
	} else {
		kmt_error_set(err, pd->in.path, 8, "corrupt: perf.data header size %llu",
			      (unsigned long long)hsize);
		return -1;
	}
	return prime(r, pd, err);
}

static bool perfdata_probe(const unsigned char *head, size_t len)
{
	return len >= 8 && !memcmp(head, "PERFILE2", 8);
}

static struct kmt_reader *perfdata_open(const struct kmt_input *in, struct kmt_error *err)
{
	const char *path = in->path;
	int fd = in->fd;
	struct kmt_reader *r = kmt_reader_alloc(path, &perfdata_ops);
	struct perfdata *pd = calloc(1, sizeof(*pd));

	if (!r || !pd || !(r->tep = tep_alloc())) {
		kmt_error_set(err, path, -1, "out of memory");
		close(fd);
		free(pd);
		kmt_reader_close(r);
		return NULL;
	}
	r->priv = pd;
	pd->in.path = r->path;
	pd->in.fd = fd;
	if (open_perfdata(r, pd, fd, in->head, in->head_len, err)) {
		kmt_reader_close(r);
		return NULL;
	}
	return r;
}

KMT_BACKEND(perfdata, "perf.data", perfdata_probe, perfdata_open);
