// SPDX-License-Identifier: LGPL-2.1
/*
 * Read the trace.dat versions kmtrace does not parse itself (trace-cmd 3.x
 * writes version 7, often compressed) through libtracecmd. libtracecmd
 * crashes on some damaged files (in its own error paths), so a child
 * process reads the whole file with it first; a file the child did not
 * survive is refused, and the event formats libtracecmd parsed are
 * guarded before anything is printed through them (formats.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>

#include "formats.h"
#include "reader_local.h"
#include "sandbox.h"
#include "container/tracedat.h"

#define TRIAL_SECONDS		10	/* and one more per TRIAL_BYTES_PER_SECOND */
#define TRIAL_BYTES_PER_SECOND	(4u << 20)
#define TRIAL_RSS_BASE		(128ull << 20)	/* and TRIAL_RSS_PER_BYTE per byte of file */
#define TRIAL_RSS_PER_BYTE	16

enum { READ_OK, OPEN_FAILED, LEAKED, TOO_BIG };

/* Set where a sanitizer runs (fuzzing): the exact count of bytes allocated. */
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

/* Resident bytes now. */
static unsigned long long resident(void)
{
	unsigned long long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f && fscanf(f, "%llu %llu", &size, &rss) != 2)
		rss = 0;
	if (f)
		fclose(f);
	return rss * sysconf(_SC_PAGESIZE);
}

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

/*
 * libtracecmd prints on standard output ("CPU N is empty") and error
 * (perror) while it opens a file: not in kmtrace's report. The handle that
 * holds the data, opened with both sent to /dev/null.
 */
static struct tracecmd_input *open_quietly(const char *path, struct tracecmd_input **top)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	int err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	struct tracecmd_input *h = NULL;

	fflush(stdout);
	if (null >= 0 && out >= 0 && err >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		*top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
		h = *top ? data_handle(*top) : NULL;
		fflush(stdout);
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
	}
	if (null >= 0)
		close(null);
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	return h;
}

/*
 * The child's job: open and read every record the way the reader does,
 * and tell what that cost: memory libtracecmd leaked (where it can be
 * counted exactly), or more memory than the file can need.
 */
static unsigned char trial_read(void *arg, int i)
{
	const char *path = arg;
	size_t allocated = __sanitizer_get_current_allocated_bytes ?
			   __sanitizer_get_current_allocated_bytes() : 0;
	unsigned long long rss = resident(), limit = TRIAL_RSS_BASE;
	struct tracecmd_input *top, *h;
	struct tep_record *rec;
	struct rusage ru;
	struct stat st;
	int cpu, ncpus;

	(void)i;
	if (!stat(path, &st))
		limit += TRIAL_RSS_PER_BYTE * (unsigned long long)st.st_size;
	top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (top) {
		h = data_handle(top);
		ncpus = tep_get_cpus(tracecmd_get_tep(h));
		for (cpu = 0; cpu < ncpus; cpu++)
			while ((rec = tracecmd_read_data(h, cpu)))
				tracecmd_free_record(rec);
		if (h != top)
			tracecmd_close(h);
		tracecmd_close(top);
	}
	if (__sanitizer_get_current_allocated_bytes &&
	    __sanitizer_get_current_allocated_bytes() > allocated)
		return LEAKED;
	if (!top)
		return OPEN_FAILED;
	if (!getrusage(RUSAGE_SELF, &ru) && (unsigned long long)ru.ru_maxrss * 1024 > rss + limit)
		return TOO_BIG;
	return READ_OK;
}

/* Does libtracecmd survive reading all of @path? */
static int survives(const char *path, const char *name, struct kmt_error *err)
{
	unsigned char verdict;
	unsigned int seconds = TRIAL_SECONDS;
	struct stat st;

	if (!stat(path, &st))
		seconds += st.st_size / TRIAL_BYTES_PER_SECOND;
	if (kmt_sandbox_run(trial_read, (void *)path, 1, seconds, &verdict)) {
		kmt_error_set(err, name, -1, "cannot start a process to check it: %m");
		return -1;
	}
	if (verdict == OPEN_FAILED) {
		kmt_error_set(err, name, 0,
			      "not a trace.dat libtracecmd can read (unknown version or corrupt)");
		return -1;
	}
	if (verdict != READ_OK) {
		kmt_error_set(err, name, 0, "corrupt: libtracecmd %s reading it; not read",
			      verdict == LEAKED ? "leaks memory" : verdict == TOO_BIG ?
			      "takes more memory than the file can need" : "crashed or hung");
		return -1;
	}
	return 0;
}

/* The most a record can hold: the file's sub-buffer (or page) size. */
static int sub_buffer_size(struct kmt_reader *r)
{
	int size = tep_get_sub_buffer_size(r->tep);

	return size > 0 ? size : tep_get_page_size(r->tep);
}

static int tracecmd_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
			 struct kmt_error *err)
{
	struct tracecmd_src *src = r->priv;
	struct tep_record *record;

	if (src->held[cpu])
		tracecmd_free_record(src->held[cpu]);
	record = src->held[cpu] = tracecmd_read_data(src->handle, cpu);
	if (!record)
		return 0;
	/*
	 * A damaged length word: libtracecmd hands it on as the record's size,
	 * even past the end of the sub-buffer the record is in.
	 */
	if (record->size < 0 || record->size > sub_buffer_size(r) || record->record_size < 0 ||
	    record->offset % sub_buffer_size(r) + record->record_size >
	    (unsigned long long)sub_buffer_size(r)) {
		kmt_error_set(err, r->path, record->offset,
			      "corrupt: CPU %d record of %d bytes runs past its sub-buffer",
			      cpu, record->size);
		return -1;
	}
	if (record->missed_events > 0)
		kmt_cpu_stats_add(&r->stats[cpu], &r->stats[cpu].missed_marked,
				  record->missed_events);
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

/* A trace.dat of another version than 6 (tracedat.c reads that one). */
static bool tracecmd_reader_probe(const unsigned char *head, size_t len)
{
	return len >= KMT_TD_MAGIC_LEN + 2 && !memcmp(head, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN);
}

static struct kmt_reader *tracecmd_reader_open(const struct kmt_input *in, struct kmt_error *err)
{
	const char *path = in->path;
	int fd = in->fd, ncpus;
	struct kmt_reader *r;
	struct tracecmd_src *src;
	char own[64];

	if (kmt_input_rewind(in, err))
		return NULL;
	r = kmt_reader_alloc(path, &tracecmd_ops);
	src = calloc(1, sizeof(*src));

	/* its own open file, whatever @fd is (standard input too) */
	snprintf(own, sizeof(own), "/proc/self/fd/%d", fd);
	if (!r || !src) {
		kmt_error_set(err, path, -1, "out of memory");
		free(src);
		goto fail;
	}
	r->priv = src;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (survives(own, path, err))
		goto fail;
	src->handle = open_quietly(own, &src->top);
	if (!src->handle) {
		kmt_error_set(err, path, 0,
			      "not a trace.dat libtracecmd can read (unknown version or corrupt)");
		goto fail;
	}
	r->tep = tracecmd_get_tep(src->handle);
	kmt_formats_guard_all(r->tep, &r->formats);
	ncpus = tep_get_cpus(r->tep);
	if (ncpus < 0 || ncpus > KMT_MAX_CPUS) {
		kmt_error_set(err, path, -1, "corrupt: %d CPUs", ncpus);
		goto fail;
	}
	if (kmt_reader_set_cpus(r, ncpus) ||
	    !(src->held = calloc(r->ncpus ? r->ncpus : 1, sizeof(*src->held)))) {
		kmt_error_set(err, path, -1, "out of memory");
		goto fail;
	}
	close(fd);
	return r;
fail:
	close(fd);
	if (r)
		kmt_reader_close(r);
	return NULL;
}

KMT_BACKEND(tracecmd, "trace.dat (libtracecmd)", tracecmd_reader_probe, tracecmd_reader_open);
