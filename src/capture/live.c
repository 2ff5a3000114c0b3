// SPDX-License-Identifier: LGPL-2.1
/*
 * Live reading for kmtrace top: events are read from the instance's
 * per-CPU buffers with libtracefs's iterator, which opens and closes its
 * readers within each call; so when the instance goes, no reader and no
 * pipe of it is left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include "live.h"
#include "container/cpustats.h"
#include <kmtrace/cpustats.h>

struct kmt_live {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	char missing[1024];
	int ncpus;
};

struct live_iter {
	kmt_live_fn fn;
	void *ctx;
};

static int enable_event(struct kmt_live *l, const char *spec, const char *filter)
{
	char sys[64];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : 0;
	size_t used = strlen(l->missing);

	if (!colon || n >= sizeof(sys))
		return -1;
	memcpy(sys, spec, n);
	sys[n] = '\0';
	if (!tracefs_event_file_exists(l->inst, sys, colon + 1, "enable")) {
		snprintf(l->missing + used, sizeof(l->missing) - used, "%s%s", used ? " " : "",
			 spec);
		return 0;
	}
	if (filter && tracefs_event_file_write(l->inst, sys, colon + 1, "filter", filter) < 0)
		return -1;
	return tracefs_event_enable(l->inst, sys, colon + 1);
}

static int set_pids(struct kmt_live *l, const char *pids)
{
	if (!pids)
		return 0;
	if (tracefs_option_enable(l->inst, TRACEFS_OPTION_EVENT_FORK))
		return -1;
	return tracefs_instance_file_write(l->inst, "set_event_pid", pids) < 0 ? -1 : 0;
}

static void destroy(struct kmt_live *l)
{
	if (l->inst) {
		tracefs_instance_destroy(l->inst);
		tracefs_instance_free(l->inst);
	}
	tep_free(l->tep);
	free(l);
}

struct kmt_live *kmt_live_start(const struct kmt_live_opts *o, struct kmt_error *err)
{
	static const char *const systems[] = { "kmem", "exceptions", "vmscan", "sched", NULL };
	struct kmt_live *l = calloc(1, sizeof(*l));
	char name[64];
	int i;

	if (!l) {
		kmt_error_set(err, "top", -1, "out of memory");
		return NULL;
	}
	snprintf(name, sizeof(name), "kmtrace-%d", getpid());
	l->inst = tracefs_instance_create(name);
	if (!l->inst) {
		kmt_error_set(err, "top", -1, "cannot create tracing instance %s (is tracefs "
			      "mounted and writable?)", name);
		destroy(l);
		return NULL;
	}
	l->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	tracefs_trace_off(l->inst);
	if (tracefs_instance_set_buffer_size(l->inst, o->buffer_kb, -1) < 0 ||
	    set_pids(l, o->pids)) {
		kmt_error_set(err, "top", -1, "cannot set up instance %s", name);
		goto fail;
	}
	for (i = 0; i < o->nevents; i++)
		if (enable_event(l, o->events[i], o->filter)) {
			kmt_error_set(err, "top", -1, "cannot enable %s%s%s", o->events[i],
				      o->filter ? " with filter " : "", o->filter ? o->filter : "");
			goto fail;
		}
	l->tep = tracefs_local_events_system(NULL, systems);
	if (!l->tep || tracefs_trace_on(l->inst)) {
		kmt_error_set(err, "top", -1, "cannot read the event formats or start tracing");
		goto fail;
	}
	return l;
fail:
	destroy(l);
	return NULL;
}

struct tep_handle *kmt_live_tep(struct kmt_live *l)
{
	return l->tep;
}

const char *kmt_live_missing(const struct kmt_live *l)
{
	return l->missing;
}

static int take_record(struct tep_event *event, struct tep_record *rec, int cpu, void *ctx)
{
	struct live_iter *it = ctx;

	(void)event;
	if (it->fn)
		it->fn(rec->data, rec->size, rec->ts, cpu, it->ctx);
	return 0;
}

int kmt_live_read(struct kmt_live *l, kmt_live_fn fn, void *ctx)
{
	struct live_iter it = { .fn = fn, .ctx = ctx };

	return tracefs_iterate_raw_events(l->tep, l->inst, NULL, 0, take_record, &it);
}

unsigned long long kmt_live_lost(struct kmt_live *l)
{
	unsigned long long lost = 0;
	int cpu;

	for (cpu = 0; cpu < l->ncpus; cpu++) {
		struct kmt_cpu_stats st = { 0 };
		char file[64];
		char *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(l->inst, file, NULL);
		if (!text)
			continue;
		kmt_cpu_stats_parse(text, strlen(text), &st);
		lost += st.overrun + st.dropped;
		free(text);
	}
	return lost;
}

void kmt_live_stop(struct kmt_live *l)
{
	if (!l)
		return;
	tracefs_trace_off(l->inst);
	kmt_live_read(l, NULL, NULL);	/* its readers are closed when it returns */
	destroy(l);
}
