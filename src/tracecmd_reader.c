// SPDX-License-Identifier: LGPL-2.1
/*
 * Read the trace.dat versions kmtrace does not parse itself (trace-cmd 3.x
 * writes version 7, often compressed) through libtracecmd.
 */
#include <stdlib.h>
#include <trace-cmd/trace-cmd.h>

#include "reader_local.h"
#include "tracedat.h"

struct tracecmd_src {
	struct tracecmd_input *top;
	struct tracecmd_input *handle;	/* top, or the instance that holds the data */
	struct tep_record **held;	/* last record handed out, per CPU */
};

/* trace-cmd record -B puts data in an instance buffer: take the first with data. */
static struct tracecmd_input *data_handle(struct tracecmd_input *top)
{
	int i, n;

	if (tep_get_cpus(tracecmd_get_tep(top)) > 0)
		return top;
	n = tracecmd_buffer_instances(top);
	for (i = 0; i < n; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(top, i);

		if (h && tep_get_cpus(tracecmd_get_tep(h)) > 0)
			return h;
		if (h)
			tracecmd_close(h);
	}
	return top;
}

static int tracecmd_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
			 struct kmt_error *err)
{
	struct tracecmd_src *src = r->priv;
	struct tep_record *record;

	(void)err;
	if (src->held[cpu])
		tracecmd_free_record(src->held[cpu]);
	record = src->held[cpu] = tracecmd_read_data(src->handle, cpu);
	if (!record)
		return 0;
	if (record->missed_events > 0)
		r->stats[cpu].missed_marked += record->missed_events;
	else if (record->missed_events < 0)
		r->stats[cpu].missed_unknown++;
	rec->ts = record->ts;
	rec->data = record->data;
	rec->size = record->size;
	rec->cpu = cpu;
	return 1;
}

static void tracecmd_src_close(struct kmt_reader *r)
{
	struct tracecmd_src *src = r->priv;
	int cpu;

	if (!src)
		return;
	for (cpu = 0; src->held && cpu < r->ncpus; cpu++)
		if (src->held[cpu])
			tracecmd_free_record(src->held[cpu]);
	free(src->held);
	if (src->handle && src->handle != src->top)
		tracecmd_close(src->handle);
	if (src->top)
		tracecmd_close(src->top);
	free(src);
}

static const struct kmt_reader_ops tracecmd_ops = {
	.next = tracecmd_next,
	.close = tracecmd_src_close,
};

struct kmt_reader *kmt_tracecmd_open(const char *path, struct kmt_error *err)
{
	struct kmt_reader *r = kmt_reader_alloc(path, &tracecmd_ops);
	struct tracecmd_src *src = calloc(1, sizeof(*src));

	if (!r || !src) {
		kmt_error_set(err, path, -1, "out of memory");
		free(src);
		goto fail;
	}
	r->priv = src;
	r->format = "trace.dat (libtracecmd)";
	tracecmd_set_loglevel(TEP_LOG_NONE);
	src->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!src->top) {
		kmt_error_set(err, path, -1,
			      "not a trace.dat libtracecmd can read (unknown version or corrupt)");
		goto fail;
	}
	src->handle = data_handle(src->top);
	r->tep = tracecmd_get_tep(src->handle);
	if (kmt_reader_set_cpus(r, tep_get_cpus(r->tep)) ||
	    !(src->held = calloc(r->ncpus ? r->ncpus : 1, sizeof(*src->held)))) {
		kmt_error_set(err, path, -1, "out of memory");
		goto fail;
	}
	return r;
fail:
	if (r)
		kmt_reader_close(r);
	return NULL;
}
