// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace record: a tracing instance of our own, one splice thread per CPU
 * moving raw sub-buffers into unlinked temporary files, and at stop the
 * trace.dat (record_write.c).
 *
 * Teardown order is fixed (see TRACING-NOTES): tracing off, stop and join
 * the readers (they drain what is left), read the stats, close every
 * reader and its pipes, and only then remove the instance. It is the one
 * way out once the instance exists: on success, on every error, on a
 * signal, and when a thread cannot write (disk full), which stops the
 * recording at once.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include "container/cpustats.h"
#include "procscan.h"
#include "record_local.h"
#include "common/util.h"

#define KMT_BUFFER_PERCENT	"25"
#define TICK_NS			100000000L	/* how often the stop conditions are looked at */
#define WATCH_TICK_NS		10000000L	/* ... when watching */
#define PROC_SCAN_NS		500000000L	/* how often /proc is looked at for new processes */
#define PROGRESS_NS		1000000000L
#define KMT_WATCH_BUFFER_PERCENT "1"	/* watching: pages reach the spool at once */
#define WATCH_POLL_NS		5000000L	/* ... and partly filled ones this often */
#define SET_EVENT_PID_CHUNK	2048
#define WAKE_SIGNAL		SIGRTMIN
#define COMMAND_GRACE_MS	2000	/* after SIGTERM, before SIGKILL */

struct cpu_recorder {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;			/* unlinked temporary file of raw pages */
	pthread_t thread;
	bool started;
	int error;		/* errno of a failed write, or 0 */
	unsigned long long watched;	/* bytes of fd given to watch_data */
	char *stats;
	struct recorder *r;
};

int kmt_record_fail(struct recorder *r, const char *fmt, ...)
{
	int saved = errno;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (saved)
		kmt_error_set(r->err, "record", -1, "%s: %s", msg, strerror(saved));
	else
		kmt_error_set(r->err, "record", -1, "%s", msg);
	return -1;
}

void kmt_record_wake(struct recorder *r)
{
	if (!atomic_exchange(&r->woken, true))
		pthread_kill(r->main_thread, WAKE_SIGNAL);
}

static void wake_from_sampler(void *ctx)
{
	kmt_record_wake(ctx);
}

const char *kmt_record_cpu_stats(const struct recorder *r, int cpu)
{
	return r->cpus[cpu].stats;
}

int kmt_record_cpu_fd(const struct recorder *r, int cpu)
{
	return r->cpus[cpu].fd;
}

/* set_event_pid: the command, or every thread of the -p processes, in chunks. */
static int set_pid_filter(struct recorder *r)
{
	char buf[SET_EVENT_PID_CHUNK + 16];
	size_t n = 0;
	int i, ret = 0;

	if (!r->ntids && !r->o->command)
		return 0;
	errno = 0;
	if (r->o->command)
		n = snprintf(buf, sizeof(buf), "%d ", r->child);
	for (i = 0; i <= r->ntids && !ret; i++) {
		if (i < r->ntids)
			n += snprintf(buf + n, sizeof(buf) - n, "%d ", r->tids[i]);
		if (n >= SET_EVENT_PID_CHUNK || (i == r->ntids && n)) {
			ret = tracefs_instance_file_append(r->inst, "set_event_pid", buf) < 0;
			n = 0;
		}
	}
	if (ret)
		return kmt_record_fail(r, "cannot set set_event_pid");
	if (tracefs_option_enable(r->inst, TRACEFS_OPTION_EVENT_FORK))
		return kmt_record_fail(r, "cannot enable the event-fork option");
	return 0;
}

/* Enable each event of the list (unless @enable is false) and read its format. */
static int take_events(struct recorder *r, bool enable)
{
	int i;

	for (i = 0; i < r->events.n; i++) {
		struct kmt_event_ref *e = &r->events.ev[i];

		errno = 0;
		if (enable && tracefs_event_enable(r->inst, e->system, e->name))
			return kmt_record_fail(r, "cannot enable event %s", e->name);
		e->format = tracefs_event_file_read(r->inst, e->system, e->name, "format", NULL);
		if (!e->format)
			return kmt_record_fail(r, "cannot read the format of %s", e->name);
	}
	return 0;
}

static int apply_filters(struct recorder *r)
{
	int i;

	for (i = 0; i < r->o->nfilters; i++) {
		const char *spec = r->o->filters[i];
		const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char sys[128], ev[128];
		int ret;

		errno = 0;
		if (!c2 || c1 - spec >= (int)sizeof(sys) || c2 - c1 - 1 >= (int)sizeof(ev))
			return kmt_record_fail(r, "filter '%s' is not GROUP:EVENT:EXPR", spec);
		snprintf(sys, sizeof(sys), "%.*s", (int)(c1 - spec), spec);
		snprintf(ev, sizeof(ev), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		if (!tracefs_event_file_exists(r->inst, sys, ev, "filter"))
			return kmt_record_fail(r, "filter '%s' names no event of the running kernel",
					       spec);
		ret = tracefs_event_file_write(r->inst, sys, ev, "filter", c2 + 1);
		if (ret < 0) {
			errno = 0;
			return kmt_record_fail(r, "the kernel rejected filter '%s'", spec);
		}
	}
	return 0;
}

/* The raw data is more than --max-size allows: the main thread stops. */
static void count_bytes(struct recorder *r, unsigned long long n)
{
	unsigned long long total = atomic_fetch_add(&r->bytes, n) + n;

	if (r->o->max_size && total >= r->o->max_size)
		kmt_record_wake(r);
}

/*
 * Watching: whole sub-buffers when there are, else the partly filled one
 * (a read, not a splice) every few milliseconds, so that a slow trickle of
 * events is not held back until a page fills. 0, or what tracefs_cpu_write gave.
 */
static int watch_read(struct cpu_recorder *c)
{
	const struct timespec pause = { 0, WATCH_POLL_NS };
	int n = tracefs_cpu_write(c->tcpu, c->fd, true);

	if (n > 0 || (n < 0 && errno != EAGAIN))
		return n;
	n = tracefs_cpu_flush_write(c->tcpu, c->fd);
	if (n <= 0)
		nanosleep(&pause, NULL);
	return n;
}

/*
 * The raw data has reached --max-size: each CPU's thread stops writing by
 * itself, without waiting for the main thread, so that at most the write
 * each one had under way goes past it.
 */
static bool raw_size_reached(struct recorder *r)
{
	return r->o->max_size && atomic_load(&r->bytes) >= r->o->max_size;
}

static void *cpu_thread(void *arg)
{
	struct cpu_recorder *c = arg;
	struct recorder *r = c->r;
	int n;

	while (!atomic_load(&r->stop) && !raw_size_reached(r)) {
		n = r->o->watch_tick ? watch_read(c) : tracefs_cpu_write(c->tcpu, c->fd, false);
		if (n > 0) {
			count_bytes(r, n);
		} else if (n < 0 && errno != EINTR && errno != EAGAIN) {
			c->error = errno;	/* disk full: stop the recording now */
			kmt_record_wake(r);
			return NULL;
		}
	}
	if (r->stopped_by == KMT_STOP_MAX_SIZE || raw_size_reached(r))
		return NULL;	/* what the buffer still holds stays out */
	/* Drain: whole sub-buffers by splice, then the partly filled rest. */
	while ((n = tracefs_cpu_write(c->tcpu, c->fd, true)) > 0)
		count_bytes(r, n);
	while ((n = tracefs_cpu_flush_write(c->tcpu, c->fd)) > 0)
		count_bytes(r, n);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		c->error = errno;
	return NULL;
}

static int open_cpus(struct recorder *r)
{
	int cpu;

	r->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	r->cpus = calloc(r->ncpus, sizeof(*r->cpus));
	if (!r->cpus)
		return kmt_record_fail(r, "out of memory");
	for (cpu = 0; cpu < r->ncpus; cpu++)
		r->cpus[cpu].fd = -1;
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct cpu_recorder *c = &r->cpus[cpu];

		c->cpu = cpu;
		c->r = r;
		c->fd = kmt_temp_fd(r->dest.dir);
		if (c->fd < 0)
			return kmt_record_fail(r, "cannot make a temporary file in %s", r->dest.dir);
		c->tcpu = tracefs_cpu_open(r->inst, cpu, false);
		/* An offline CPU has no buffer to read: it records nothing. */
		if (!c->tcpu && errno != ENOENT && errno != ENODEV)
			return kmt_record_fail(r, "cannot open the raw buffer of CPU %d", cpu);
	}
	return 0;
}

static int start_threads(struct recorder *r)
{
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct cpu_recorder *c = &r->cpus[cpu];

		if (!c->tcpu)
			continue;
		errno = pthread_create(&c->thread, NULL, cpu_thread, c);
		if (errno)
			return kmt_record_fail(r, "cannot start a recorder thread");
		c->started = true;
	}
	return 0;
}

/* What the buffers gave so far, for the progress line. */
static void report_progress(struct recorder *r)
{
	struct kmt_record_progress p = { .phase = KMT_RECORD_RECORDING };
	char path[64];
	int cpu;

	if (!r->o->progress)
		return;
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct kmt_cpu_stats st = { 0 };
		char *text;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(r->inst, path, NULL);
		if (text)
			kmt_cpu_stats_parse(text, strlen(text), &st);
		free(text);
		p.events += st.entries + st.read_events;
		p.lost += st.overrun + st.dropped;
	}
	p.bytes = atomic_load(&r->bytes) + kmt_fault_sampler_bytes(r->sampler);
	r->o->progress(r->o->ctx, &p);
}

static bool thread_failed(const struct recorder *r)
{
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++)
		if (r->cpus[cpu].error)
			return true;
	return kmt_fault_sampler_error(r->sampler) != 0;
}

/* A reason to stop now, other than a signal or the command ending; false if none. */
static bool stop_condition(struct recorder *r, const struct timespec *end)
{
	struct timespec now;

	atomic_store(&r->woken, false);
	if (thread_failed(r))
		return true;
	if (r->o->max_size && atomic_load(&r->bytes) + kmt_fault_sampler_bytes(r->sampler) >=
	    r->o->max_size) {
		r->stopped_by = KMT_STOP_MAX_SIZE;
		return true;
	}
	if (kmt_command_pids_gone(r) && !r->o->command) {
		r->stopped_by = KMT_STOP_PIDS_GONE;
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (r->o->duration > 0 && (now.tv_sec > end->tv_sec ||
				   (now.tv_sec == end->tv_sec && now.tv_nsec >= end->tv_nsec))) {
		r->stopped_by = KMT_STOP_DURATION;
		return true;
	}
	return false;
}

/* Wait for the command to end, a stop signal, or a stop condition. */
/* Every traced process (the instance's pid filter holds them all) gets @sig. */
static void signal_traced(struct recorder *r, int sig)
{
	char *pids = tracefs_instance_file_read(r->inst, "set_event_pid", NULL), *p, *end;

	if (r->child > 0)
		kill(r->child, sig);
	for (p = pids; p && *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0 && pid != getpid())
			kill((pid_t)pid, sig);
	}
	free(pids);
}

/* Give watch_data the whole sub-buffers spooled since the last look. */
static void watch_spooled(struct recorder *r)
{
	size_t page = (size_t)getpagesize();
	unsigned char buf[65536];
	int cpu;

	for (cpu = 0; cpu < r->ncpus && page <= sizeof(buf); cpu++) {
		struct cpu_recorder *c = &r->cpus[cpu];
		struct stat st;

		if (c->fd < 0 || fstat(c->fd, &st))
			continue;
		while (c->watched + page <= (unsigned long long)st.st_size &&
		       pread(c->fd, buf, page, c->watched) == (ssize_t)page) {
			r->o->watch_data(r->o->ctx, cpu, buf, page);
			c->watched += page;
		}
	}
}

/* A watch tick while recording; true: a limit passed, the traced processes signalled. */
static bool watch_step(struct recorder *r)
{
	watch_spooled(r);
	if (!r->o->watch_tick(r->o->ctx, false))
		return false;
	r->stopped_by = KMT_STOP_LIMIT;
	signal_traced(r, r->o->limit_signal);
	return true;
}

/*
 * The tasks /proc shows now into r->procs (@refresh: every one, as it is
 * now; else the new processes). Out of memory, the recording carries none.
 */
static void scan_processes(struct recorder *r, bool refresh)
{
	if (r->procs && kmt_procscan(r->procs, r->files, refresh)) {
		kmt_proctable_free(r->procs);
		kmt_filetable_free(r->files);
		r->procs = NULL;
		r->files = NULL;
	}
}

static long elapsed_ns(const struct timespec *from, const struct timespec *to)
{
	return (to->tv_sec - from->tv_sec) * 1000000000L + to->tv_nsec - from->tv_nsec;
}

static void wait_for_stop(struct recorder *r)
{
	const struct timespec tick = { 0, r->o->watch_tick ? WATCH_TICK_NS : TICK_NS };
	struct timespec end, last_progress, last_scan;

	clock_gettime(CLOCK_MONOTONIC, &end);
	last_progress = last_scan = end;
	end.tv_sec += (time_t)r->o->duration;
	end.tv_nsec += (long)((r->o->duration - (time_t)r->o->duration) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_nsec -= 1000000000L;
		end.tv_sec++;
	}
	for (;;) {
		struct timespec wait = tick, now;
		int sig;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (r->o->duration > 0 && end.tv_sec - now.tv_sec < 1) {
			long left = (end.tv_sec - now.tv_sec) * 1000000000L + end.tv_nsec -
				    now.tv_nsec;

			wait.tv_nsec = left < 1 ? 1 : left < tick.tv_nsec ? left : tick.tv_nsec;
		}
		sig = sigtimedwait(&r->sigs, NULL, &wait);

		if (sig == SIGCHLD) {
			if (kmt_command_reap(r, false)) {
				r->stopped_by = KMT_STOP_COMMAND;
				return;
			}
		} else if (sig > 0 && sig != WAKE_SIGNAL) {
			r->stopped_by = KMT_STOP_SIGNAL;
			r->stop_signal = sig;
			if (r->child > 0)
				kill(r->child, sig);
			return;
		}
		if (stop_condition(r, &end) || (r->o->watch_tick && watch_step(r)) ||
		    kmt_members_poll(r))
			return;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (elapsed_ns(&last_scan, &now) >= PROC_SCAN_NS) {
			last_scan = now;
			scan_processes(r, false);
		}
		if (elapsed_ns(&last_progress, &now) >= PROGRESS_NS) {
			last_progress = now;
			report_progress(r);
		}
	}
}

static void read_stats(struct recorder *r)
{
	char path[64];
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++) {
		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		r->cpus[cpu].stats = tracefs_instance_file_read(r->inst, path, NULL);
	}
}

/* r->processes and r->file_names: the tables in text form (NULL: none, or out of memory). */
static void table_texts(struct recorder *r)
{
	size_t len = 0;
	FILE *fp;

	if (r->procs && (fp = open_memstream(&r->processes, &len)) &&
	    (kmt_proctable_write(r->procs, fp) | fclose(fp))) {
		free(r->processes);
		r->processes = NULL;
	}
	if (r->files && (fp = open_memstream(&r->file_names, &len)) &&
	    (kmt_filetable_write(r->files, fp) | fclose(fp))) {
		free(r->file_names);
		r->file_names = NULL;
	}
}

/* The one way out once the instance exists, on success and on every error. */
static void teardown(struct recorder *r)
{
	int cpu;

	if (r->inst && r->own_instance) {
		tracefs_trace_off(r->inst);
		/* Before the drain: writing the files allocates pages no event shows. */
		r->vmstat[1] = kmt_read_text_file("/proc/vmstat", &(size_t){ 0 });
		r->slabinfo[1] = kmt_read_text_file("/proc/slabinfo", &(size_t){ 0 });
		scan_processes(r, true);
		table_texts(r);
	}
	kmt_fault_sampler_stop(r->sampler);
	r->user_maps = kmt_umaps_stop(r->umaps);	/* it reads the instance's pids */
	r->umaps = NULL;
	atomic_store(&r->stop, true);
	for (cpu = 0; cpu < r->ncpus; cpu++)
		if (r->cpus[cpu].started)
			tracefs_cpu_stop(r->cpus[cpu].tcpu);
	for (cpu = 0; cpu < r->ncpus; cpu++)
		if (r->cpus[cpu].started)
			pthread_join(r->cpus[cpu].thread, NULL);
	if (r->inst)
		read_stats(r);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		if (r->cpus[cpu].tcpu)
			tracefs_cpu_close(r->cpus[cpu].tcpu);	/* and its pipe */
		r->cpus[cpu].tcpu = NULL;
		r->cpus[cpu].started = false;
	}
	if (r->child > 0)
		kmt_command_end(r, COMMAND_GRACE_MS);
	kmt_heap_close(r);
	if (r->inst) {
		if (r->own_instance && tracefs_instance_destroy(r->inst) && r->o->user_sample)
			kmt_heap_instance_left(r);
		tracefs_instance_free(r->inst);
		r->inst = NULL;
	}
	/* The probes go last: no instance may still have them enabled. */
	kmt_fault_probe_remove(r->probe);
	r->probe = NULL;
	kmt_uprobes_remove(r);
}

static bool records_faults(const struct kmt_event_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->ev[i].system, "exceptions"))
			return true;
	return false;
}

/*
 * How minor and major faults are told apart: kmtrace's return probe on
 * handle_mm_fault, else perf's minor-faults/major-faults samples of the
 * traced tasks (then the instance uses the "mono" clock, the one perf
 * stamps them with).
 */
static int setup_fault_source(struct recorder *r)
{
	char why[160] = "turned off with --no-kprobes";
	const int *tids = r->o->command ? &r->child : r->tids;
	int ntids = r->o->command ? 1 : r->ntids;

	if (!records_faults(&r->events))
		return 0;
	if (!r->o->no_kprobes)
		r->probe = kmt_fault_probe_create(why, sizeof(why));
	if (r->probe) {
		snprintf(r->fault_source, sizeof(r->fault_source),
			 "kprobe %s:%s", KMT_PROBE_SYSTEM, KMT_PROBE_EVENT);
		if (kmt_event_list_add(&r->events, KMT_PROBE_SYSTEM, KMT_PROBE_EVENT))
			return kmt_record_fail(r, "out of memory");
		return 0;
	}
	r->sampler = kmt_fault_sampler_open(tids, ntids, r->dest.dir, wake_from_sampler, r);
	if (!r->sampler) {
		snprintf(r->fault_source, sizeof(r->fault_source), "none (kprobe: %s; perf "
			 "fault events: %s)", why, strerror(errno));
		return 0;
	}
	/* "perf lost=N " goes in front once the count is known. */
	snprintf(r->fault_source, sizeof(r->fault_source), "minor-faults major-faults of %s "
		 "(kprobe: %s)", ntids ? "the traced tasks" : "every task", why);
	errno = 0;
	if (tracefs_instance_file_write(r->inst, "trace_clock", "mono") < 0)
		return kmt_record_fail(r, "cannot set the trace clock of the instance to mono");
	return 0;
}

/* "CPU NODE" lines for every CPU: the nodeN entry of its sysfs directory. */
static char *cpu_nodes_text(int ncpus)
{
	char *text = NULL, path[64];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int cpu;

	if (!fp)
		return NULL;
	for (cpu = 0; cpu < ncpus; cpu++) {
		struct dirent *d;
		int node = 0;
		DIR *dir;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		dir = opendir(path);
		while (dir && (d = readdir(dir)))
			if (sscanf(d->d_name, "node%d", &node) == 1)
				break;
		if (dir)
			closedir(dir);
		fprintf(fp, "%d %d\n", cpu, node);
	}
	if (fclose(fp)) {
		free(text);
		return NULL;
	}
	return text;
}

static int make_instance(struct recorder *r)
{
	unsigned int kb = r->o->buffer_kb ? r->o->buffer_kb : KMT_RECORD_DEFAULT_BUFFER_KB;
	char name[64];

	snprintf(name, sizeof(name), "kmtrace-%d", getpid());
	errno = 0;
	r->inst = tracefs_instance_create(name);
	if (!r->inst)
		return kmt_record_fail(r, "cannot create tracing instance %s (is tracefs mounted "
				       "and writable?)", name);
	r->own_instance = true;
	tracefs_trace_off(r->inst);
	if (tracefs_instance_set_buffer_size(r->inst, kb, -1) < 0)
		return kmt_record_fail(r, "cannot set the buffer size of %s", name);
	/* Wake the splice threads at a quarter full, not half: more headroom. */
	if (tracefs_file_exists(r->inst, "buffer_percent") &&
	    tracefs_instance_file_write(r->inst, "buffer_percent", r->o->watch_tick ?
					KMT_WATCH_BUFFER_PERCENT : KMT_BUFFER_PERCENT) < 0)
		return kmt_record_fail(r, "cannot set buffer_percent of %s", name);
	return 0;
}

static int setup_and_run(struct recorder *r, const sigset_t *old)
{
	if (make_instance(r) || kmt_heap_setup(r) || kmt_command_fork(r, old) ||
	    setup_fault_source(r))
		return -1;
	r->trace_clock = tracefs_instance_file_read(r->inst, "trace_clock", NULL);
	if (set_pid_filter(r) || kmt_members_setup(r) || kmt_uprobes_setup(r) ||
	    take_events(r, true) || apply_filters(r) || kmt_record_stacks_setup(r) ||
	    kmt_heap_add_format(r) || open_cpus(r) || start_threads(r))
		return -1;
	r->cpu_nodes = cpu_nodes_text(r->ncpus);
	if (!(r->procs = kmt_proctable_new()) || !(r->files = kmt_filetable_new()))
		return kmt_record_fail(r, "out of memory");
	scan_processes(r, true);
	r->vmstat[0] = kmt_read_text_file("/proc/vmstat", &(size_t){ 0 });
	r->slabinfo[0] = kmt_read_text_file("/proc/slabinfo", &(size_t){ 0 });
	if (r->sampler && kmt_fault_sampler_start(r->sampler))
		return kmt_record_fail(r, "cannot start the fault sampler");
	if (!kmt_members_waiting(r) && tracefs_trace_on(r->inst))
		return kmt_record_fail(r, "cannot turn tracing on");
	if ((r->o->user || r->o->user_sample) && !(r->umaps = kmt_umaps_start(r->inst)))
		return kmt_record_fail(r, "cannot start following the traced processes' maps");
	/* after tracing is on: a page freed meanwhile has its free in the trace */
	if (kmt_page_owner_snapshot(r))
		return -1;
	if (r->o->watch_tick)
		r->o->watch_tick(r->o->ctx, false);	/* a first look while every event exists */
	kmt_command_release(r);
	if (!r->exec_errno)
		wait_for_stop(r);
	return 0;
}

/* Whether --extract names the top-level buffer ("/"): boot-time events of trace_event=. */
static bool extract_top(const struct recorder *r)
{
	return !strcmp(r->o->extract, "/");
}

/*
 * extract: the named instance, or with "/" the top-level buffer (r->inst
 * stays NULL, which libtracefs takes as the top level), which must exist
 * and be still. 0, -1 or -2.
 */
static int open_existing_instance(struct recorder *r)
{
	const char *name = r->o->extract, *dir = tracefs_tracing_dir();
	char on[PATH_MAX], what[300];

	if (!extract_top(r) && (!*name || strchr(name, '/') || !tracefs_instance_exists(name))) {
		kmt_error_set(r->err, "record", -1, "--extract: no tracing instance '%s' in "
			      "%s/instances", name, dir);
		return -2;
	}
	errno = 0;
	r->inst = extract_top(r) ? NULL : tracefs_instance_alloc(NULL, name);
	if (!r->inst && !extract_top(r))
		return kmt_record_fail(r, "cannot open tracing instance %s", name);
	if (tracefs_trace_is_on(r->inst)) {
		snprintf(on, sizeof(on), extract_top(r) ? "%s/tracing_on" :
			 "%s/instances/%s/tracing_on", dir, name);
		snprintf(what, sizeof(what), extract_top(r) ? "the top-level buffer" :
			 "instance %s", name);
		kmt_error_set(r->err, "record", -1, "--extract: tracing is on in %s; turn it "
			      "off first (echo 0 > %s) so that nothing is added while it is read "
			      "out", what, on);
		return -2;
	}
	return 0;
}

/*
 * extract: the events the instance has enabled (its set_event file) and
 * ftrace's kernel_stack (stacktrace triggers or option), with their formats.
 */
static int list_enabled_events(struct recorder *r)
{
	char *text = tracefs_instance_file_read(r->inst, "set_event", NULL), *line, *save;
	int ret = 0;

	/* libtracefs reads an empty file as NULL */
	if (!text && !tracefs_file_exists(r->inst, "set_event"))
		return kmt_record_fail(r, "cannot read set_event of instance %s", r->o->extract);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		ret = kmt_event_list_add(&r->events, line, colon + 1);
	}
	free(text);
	if (ret)
		return kmt_record_fail(r, "out of memory");
	if (!r->events.n) {
		kmt_error_set(r->err, "record", -1, "--extract: instance %s has no event enabled; "
			      "enable those it recorded (their formats go into the file)",
			      r->o->extract);
		return -2;
	}
	if (kmt_event_list_add(&r->events, "ftrace", "kernel_stack"))
		return kmt_record_fail(r, "out of memory");
	return take_events(r, false);
}

/* extract: the CPU threads only drain what the instance holds. 0, -1 or -2. */
static int setup_extract(struct recorder *r)
{
	int ret = open_existing_instance(r);

	if (!ret)
		ret = list_enabled_events(r);
	if (ret)
		return ret;
	r->trace_clock = tracefs_instance_file_read(r->inst, "trace_clock", NULL);
	if (open_cpus(r))
		return -1;
	r->cpu_nodes = cpu_nodes_text(r->ncpus);
	r->stopped_by = KMT_STOP_EXTRACTED;
	atomic_store(&r->stop, true);
	return start_threads(r);
}

/* A write that failed while recording stopped it: say which and why. */
static int check_thread_errors(struct recorder *r)
{
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++) {
		if (r->cpus[cpu].error) {
			errno = r->cpus[cpu].error;
			return kmt_record_fail(r, "writing the raw data of CPU %d into %s failed "
					       "(recording stopped, nothing written)", cpu,
					       r->dest.dir);
		}
	}
	if (kmt_fault_sampler_error(r->sampler)) {
		errno = kmt_fault_sampler_error(r->sampler);
		return kmt_record_fail(r, "spooling the fault samples into %s failed (recording "
				       "stopped, nothing written)", r->dest.dir);
	}
	if (r->exec_errno) {
		errno = r->exec_errno;
		return kmt_record_fail(r, "cannot run %s", r->o->command[0]);
	}
	return 0;
}

static void free_recorder(struct recorder *r)
{
	int cpu;

	for (cpu = 0; r->cpus && cpu < r->ncpus; cpu++) {
		if (r->cpus[cpu].fd >= 0)
			close(r->cpus[cpu].fd);
		free(r->cpus[cpu].stats);
	}
	free(r->cpus);
	free(r->vmstat[0]);
	free(r->vmstat[1]);
	free(r->slabinfo[0]);
	free(r->slabinfo[1]);
	if (r->page_owner_fd >= 0)
		close(r->page_owner_fd);
	free(r->cpu_nodes);
	free(r->trace_clock);
	free(r->stack_events);
	free(r->user_maps);
	free(r->processes);
	free(r->file_names);
	kmt_proctable_free(r->procs);
	kmt_filetable_free(r->files);
	kmt_fault_sampler_free(r->sampler);
	kmt_event_list_free(&r->events);
	kmt_members_free(r);
	kmt_command_free(r);
	kmt_heap_free(r);
	kmt_dest_close(&r->dest);
}

/* Instances need write access to tracefs: say so plainly when it is missing. */
static int check_tracefs(struct kmt_error *err)
{
	const char *dir;
	char path[4096];

	if (tracefs_tracing_dir_is_mounted(true, NULL) < 0) {
		kmt_error_set(err, "record", -1,
			      "tracefs is not mounted at /sys/kernel/tracing and cannot be mounted "
			      "(need root, or mount -t tracefs nodev /sys/kernel/tracing)");
		return -1;
	}
	dir = tracefs_tracing_dir();
	snprintf(path, sizeof(path), "%s/instances", dir ? dir : "/sys/kernel/tracing");
	if (dir && !access(path, W_OK) && !access(dir, R_OK | X_OK))
		return 0;
	kmt_error_set(err, "record", -1, "cannot create tracing instances in %s: %s "
		      "(kmtrace record needs root)", path, strerror(dir ? errno : ENOENT));
	return -1;
}

/*
 * Block the signals that stop a recording; they are taken with sigtimedwait.
 * Like perf, SIGINT and SIGTERM stop it even where the shell started us with
 * them ignored (background jobs); an ignored SIGHUP (nohup) stays ignored.
 */
static void block_stop_signals(sigset_t *sigs, sigset_t *old)
{
	struct sigaction hup;

	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	sigaddset(sigs, SIGCHLD);
	sigaddset(sigs, WAKE_SIGNAL);
	if (sigaction(SIGHUP, NULL, &hup) || hup.sa_handler != SIG_IGN)
		sigaddset(sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, sigs, old);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* Gone recorders' instances go before ours comes. */
static void remove_stale(const struct kmt_record_opts *o)
{
	char names[512], line[640];
	int n = kmt_remove_stale_instances(names, sizeof(names));

	kmt_uprobes_remove_stale();	/* a killed recorder's, now that no instance has them */

	if (n && o->notice) {
		snprintf(line, sizeof(line), "removed %d tracing instance%s left by kmtrace "
			 "recorders that are gone: %s", n, n > 1 ? "s" : "", names);
		o->notice(o->ctx, line);
	}
}

/* What needs no tracing: the request, the output, the processes. 0, -1 or -2. */
static int prepare(struct recorder *r)
{
	const struct kmt_record_opts *o = r->o;
	int ret;

	if (o->command && !o->command[0]) {
		kmt_error_set(r->err, "record", -1, "no command after --");
		return -2;
	}
	ret = kmt_dest_open(&r->dest, o->output, o->force, r->err);
	if (ret)
		return ret;
	return kmt_command_open_pids(r);
}

int kmt_record(const struct kmt_record_opts *o, struct kmt_record_result *res,
	       struct kmt_error *err)
{
	struct recorder r = { .o = o, .err = err, .go_fd = -1, .exec_fd = -1, .marker_fd = -1,
			      .page_owner_fd = -1,
			      .child_status = -1, .main_thread = pthread_self() };
	struct kmt_record_progress done = { .phase = KMT_RECORD_DONE };
	sigset_t old;
	int ret;

	memset(res, 0, sizeof(*res));
	res->command_status = -1;
	ret = prepare(&r);	/* a FIFO output may block here: signals still work */
	if (ret) {
		free_recorder(&r);
		return ret;
	}
	block_stop_signals(&r.sigs, &old);
	if (check_tracefs(err) ||
	    (!o->extract && kmt_event_list_resolve(&r.events, o->events, o->nevents, err))) {
		ret = -1;
		goto out;
	}
	remove_stale(o);
	ret = o->extract ? setup_extract(&r) : setup_and_run(&r, &old);
	teardown(&r);
	if (o->watch_tick && r.cpus) {		/* what the drain spooled */
		watch_spooled(&r);
		o->watch_tick(o->ctx, true);
	}
	if (!ret)
		ret = check_thread_errors(&r);
	if (!ret && o->output)
		ret = kmt_record_write(&r, res);
	res->command_status = r.child_status;
	res->stop_signal = r.stop_signal;
	res->stopped_by = r.stopped_by;
	res->exec_errno = r.exec_errno;
out:
	if (o->progress)
		o->progress(o->ctx, &done);
	free_recorder(&r);
	while (sigtimedwait(&r.sigs, NULL, &(struct timespec){ 0 }) > 0)
		;	/* a second Ctrl-C during the write must not kill us now */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
