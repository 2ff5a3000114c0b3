// SPDX-License-Identifier: LGPL-2.1
/*
 * Kernel stacks in a trace.dat: ftrace writes a kernel_stack record after
 * the event it belongs to (the `stacktrace` trigger or instance option),
 * on the same CPU. An interrupt may come between the two, with events and
 * stacks of its own, so a stack belongs to the latest event that waits
 * for one in the same context: the same task and the same hardirq,
 * softirq or NMI level. Within one context the event and its stack are
 * written back to back, so a later event of that context means the stack
 * was lost. Events wait in a small per-CPU queue and go out in the order
 * they came, each with its stack as rec->callchain.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "reader_local.h"
#include "common/util.h"

/* The context bits of common_flags: TRACE_FLAG_HARDIRQ, _SOFTIRQ, _NMI. */
#define CONTEXT_FLAGS	(0x08 | 0x10 | 0x40)
/* More waiting than nesting can explain: damaged input. The oldest goes out. */
#define MAX_HELD	256
#define MAX_FRAMES	512
#define EVENT_IDS	65536

struct held {
	unsigned long long ts;
	unsigned char *data;
	int size;
	uint32_t cap_data;
	unsigned long long frames[MAX_FRAMES];
	int nframes;
	unsigned long long context;
	bool waiting;
};

struct stack_cpu {
	struct held *q[MAX_HELD];	/* a ring: q[(head + i) % MAX_HELD] */
	int head, n;
};

struct kmt_stack_joiner {
	int stack_id;
	struct tep_format_field *type, *pid, *flags, *size, *caller;
	int long_size;
	unsigned char *wants;		/* EVENT_IDS bits: event ids that carry stacks */
	bool all_want;			/* no list recorded: any event may have one */
	struct stack_cpu *cpus;
	int ncpus;
	struct kmt_stack_stats stats;
};

/* Field @f of the record @data of @size bytes; 0 when it is not there. */
static unsigned long long field_value(struct tep_handle *tep, const struct tep_format_field *f,
				      const void *data, int size)
{
	if (!f || f->offset + f->size > size)
		return 0;
	return tep_read_number(tep, (const char *)data + f->offset, f->size);
}

static void want_event(struct kmt_stack_joiner *j, struct tep_handle *tep, const char *spec,
		       size_t len)
{
	char sys[128], name[128];
	const char *colon = memchr(spec, ':', len);
	struct tep_event *ev;

	if (!colon || colon - spec >= (int)sizeof(sys) || len - (colon - spec) > sizeof(name))
		return;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	snprintf(name, sizeof(name), "%.*s", (int)(len - (colon - spec) - 1), colon + 1);
	ev = tep_find_event_by_name(tep, sys, name);
	if (ev && ev->id >= 0 && ev->id < EVENT_IDS)
		j->wants[ev->id / 8] |= 1u << (ev->id % 8);
}

/* The events the recording asked stacks for: "SYSTEM:EVENT" words. */
static void take_wanted(struct kmt_stack_joiner *j, struct tep_handle *tep, const char *list)
{
	const char *p = list;

	j->all_want = !list;
	while (p && *p) {
		size_t len = strcspn(p, " \n");

		if (len)
			want_event(j, tep, p, len);
		p += len + (p[len] != '\0');
	}
}

int kmt_stack_join_open(struct kmt_reader *r)
{
	struct tep_event *ev = r->tep ? tep_find_event_by_name(r->tep, "ftrace", "kernel_stack")
				      : NULL;
	struct kmt_stack_joiner *j;

	if (!ev || r->ops->next_any || r->ncpus <= 0)
		return 0;
	j = calloc(1, sizeof(*j));
	if (!j || !(j->wants = calloc(EVENT_IDS / 8, 1)) ||
	    !(j->cpus = calloc(r->ncpus, sizeof(*j->cpus)))) {
		if (j)
			free(j->wants);
		free(j);
		return -1;
	}
	j->ncpus = r->ncpus;
	j->stack_id = ev->id;
	j->type = tep_find_common_field(ev, "common_type");
	j->pid = tep_find_common_field(ev, "common_pid");
	j->flags = tep_find_common_field(ev, "common_flags");
	j->size = tep_find_field(ev, "size");
	j->caller = tep_find_field(ev, "caller");
	j->long_size = tep_get_long_size(r->tep);
	if (j->long_size != 4 && j->long_size != 8)
		j->long_size = 8;
	take_wanted(j, r->tep, kmt_reader_text(r, KMT_TEXT_STACKS));
	j->stats.recorded = true;
	r->stacks = j;
	return 0;
}

void kmt_stack_join_free(struct kmt_reader *r)
{
	struct kmt_stack_joiner *j = r->stacks;
	int c, i;

	if (!j)
		return;
	for (c = 0; c < j->ncpus; c++)
		for (i = 0; i < MAX_HELD; i++)
			if (j->cpus[c].q[i]) {
				free(j->cpus[c].q[i]->data);
				free(j->cpus[c].q[i]);
			}
	free(j->cpus);
	free(j->wants);
	free(j);
	r->stacks = NULL;
}

static unsigned long long context_of(const struct kmt_stack_joiner *j, struct tep_handle *tep,
				     const struct kmt_record *rec)
{
	unsigned long long pid = field_value(tep, j->pid, rec->data, rec->size);
	unsigned long long flags = field_value(tep, j->flags, rec->data, rec->size);

	return (pid & 0xffffffffull) << 8 | (flags & CONTEXT_FLAGS);
}

static struct held *slot(struct stack_cpu *c, int i)
{
	return c->q[(c->head + i) % MAX_HELD];
}

/* The frames of kernel_stack record @rec into @h; ends at a 0 or all-ones entry. */
static void take_frames(const struct kmt_stack_joiner *j, struct tep_handle *tep,
			const struct kmt_record *rec, struct held *h)
{
	long long n = (int)field_value(tep, j->size, rec->data, rec->size);
	int at = j->caller ? j->caller->offset : rec->size, i;
	unsigned long long all_ones = j->long_size == 4 ? 0xffffffffull : ~0ull;

	if (n < 0 || n > (rec->size - at) / j->long_size)
		n = at < rec->size ? (rec->size - at) / j->long_size : 0;
	h->nframes = 0;
	for (i = 0; i < n && h->nframes < MAX_FRAMES; i++) {
		unsigned long long ip = tep_read_number(tep, (const char *)rec->data + at +
							i * j->long_size, j->long_size);

		if (!ip || ip == all_ones)
			break;
		h->frames[h->nframes++] = ip;
	}
}

/* A stack came: to the latest waiting event of its context, else counted as orphan. */
static void join_stack(struct kmt_stack_joiner *j, struct tep_handle *tep, struct stack_cpu *c,
		       const struct kmt_record *rec)
{
	unsigned long long ctx = context_of(j, tep, rec);
	int i;

	for (i = c->n - 1; i >= 0; i--) {
		struct held *h = slot(c, i);

		if (h->waiting && h->context == ctx) {
			take_frames(j, tep, rec, h);
			h->waiting = false;
			j->stats.joined++;
			return;
		}
	}
	j->stats.orphans++;
}

/* A later event of the same context: the one waiting there lost its stack. */
static void end_waiting(struct kmt_stack_joiner *j, struct stack_cpu *c, unsigned long long ctx)
{
	int i;

	for (i = 0; i < c->n; i++) {
		struct held *h = slot(c, i);

		if (h->waiting && h->context == ctx) {
			h->waiting = false;
			j->stats.missing++;
		}
	}
}

/* Do events of id @id carry a stack? */
static bool wants_stack(const struct kmt_stack_joiner *j, unsigned long long id)
{
	return j->all_want || (id < EVENT_IDS && (j->wants[id / 8] & (1u << (id % 8))));
}

/* Queue a copy of @rec; -1 when out of memory. */
static int hold(struct stack_cpu *c, const struct kmt_record *rec, unsigned long long ctx,
		bool waiting)
{
	int i = (c->head + c->n) % MAX_HELD;
	struct held *h = c->q[i];

	if (!h && !(h = c->q[i] = calloc(1, sizeof(*h))))
		return -1;
	if (kmt_grow(&h->data, &h->cap_data, rec->size ? rec->size - 1 : 0, 1))
		return -1;
	memcpy(h->data, rec->data, rec->size);
	h->size = rec->size;
	h->ts = rec->ts;
	h->nframes = 0;
	h->context = ctx;
	h->waiting = waiting;
	c->n++;
	return 0;
}

/* The head of @c's queue into @rec, if it waits no more (or @force). */
static bool release(struct kmt_stack_joiner *j, struct stack_cpu *c, int cpu, bool force,
		    struct kmt_record *rec)
{
	struct held *h;

	if (!c->n || (slot(c, 0)->waiting && !force))
		return false;
	h = slot(c, 0);
	if (h->waiting) {
		h->waiting = false;
		j->stats.missing++;
	}
	c->head = (c->head + 1) % MAX_HELD;
	c->n--;
	*rec = (struct kmt_record){ .ts = h->ts, .data = h->data, .size = h->size, .cpu = cpu,
				    .callchain = h->nframes ? h->frames : NULL,
				    .callchain_nr = h->nframes };
	return true;
}

int kmt_stack_join_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
		    struct kmt_error *err)
{
	struct kmt_stack_joiner *j = r->stacks;
	struct stack_cpu *c = &j->cpus[cpu];
	unsigned long long id, ctx;
	bool wants;
	int ret;

	for (;;) {
		if (release(j, c, cpu, c->n == MAX_HELD, rec))
			return 1;
		ret = r->ops->next(r, cpu, rec, err);
		if (ret <= 0) {
			if (ret < 0 || !release(j, c, cpu, true, rec))
				return ret;
			return 1;
		}
		id = field_value(r->tep, j->type, rec->data, rec->size);
		if (id == (unsigned long long)j->stack_id) {
			join_stack(j, r->tep, c, rec);
			continue;
		}
		wants = wants_stack(j, id);
		if (!c->n && !wants)
			return 1;	/* nothing waits: straight through */
		ctx = context_of(j, r->tep, rec);
		end_waiting(j, c, ctx);
		if (hold(c, rec, ctx, wants)) {
			kmt_error_set(err, r->path, -1, "out of memory");
			return -1;
		}
	}
}

const struct kmt_stack_stats *kmt_reader_stack_stats(struct kmt_reader *r)
{
	static const struct kmt_stack_stats none;
	struct kmt_stack_joiner *j = r->stacks;

	return j ? &j->stats : &none;
}
