// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace record: a tracing instance of our own, one splice thread per CPU
 * moving raw sub-buffers into temporary files, and at stop the trace.dat.
 *
 * Teardown order is fixed (see TRACING-NOTES): tracing off, stop and join
 * the readers (they drain what is left), read the stats, close every
 * reader and its pipes, and only then remove the instance.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include <kmtrace/record.h>
#include "record_local.h"
#include "tracedat.h"

#define KMT_BUFFER_PERCENT	"25"

struct cpu_recorder {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;			/* unlinked temporary file of raw pages */
	pthread_t thread;
	bool started;
	int error;		/* errno of a failed write, or 0 */
	char *stats;
	atomic_bool *stop;
};

struct recorder {
	const struct kmt_record_opts *o;
	struct kmt_error *err;
	struct tracefs_instance *inst;
	struct kmt_event_list events;
	struct cpu_recorder *cpus;
	int ncpus;
	atomic_bool stop;
	pid_t child;
	pid_t command_pid;	/* child stays set once it is reaped */
	int go_fd;		/* write end: one byte lets the command exec */
	bool child_released;
	int child_status;
	int stop_signal;
	char *vmstat[2];
	char *cpu_nodes;
	char *trace_clock;
	struct tracefs_dynevent *probe;		/* return probe on handle_mm_fault */
	struct kmt_fault_sampler *sampler;	/* else perf's minor/major faults */
	char fault_source[256];
	struct rusage rusage;			/* of the command, from wait4 */
	bool have_rusage;
	long before_minflt, before_majflt;	/* the command's faults before tracing */
};

/* Fill r->err with the message and, if errno is set, its text; returns -1. */
static int __attribute__((format(printf, 2, 3))) fail(struct recorder *r, const char *fmt, ...)
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

/* Read a whole file whose size stat() does not tell (/proc/kallsyms, /proc/vmstat). */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0 || !buf)
		goto fail;
	while ((got = read(fd, buf + n, cap - n)) > 0) {
		n += got;
		if (n == cap) {
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
	}
	if (got < 0)
		goto fail;
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int set_pid_filter(struct recorder *r)
{
	const struct kmt_record_opts *o = r->o;
	char buf[4096] = "";
	size_t n = 0;
	int i;

	if (!o->npids && !o->command)
		return 0;
	for (i = 0; i < o->npids && n < sizeof(buf) - 16; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%d ", o->pids[i]);
	if (o->command)
		n += snprintf(buf + n, sizeof(buf) - n, "%d", r->child);
	errno = 0;
	if (tracefs_instance_file_write(r->inst, "set_event_pid", buf) < 0)
		return fail(r, "cannot set set_event_pid to '%s'", buf);
	if (tracefs_option_enable(r->inst, TRACEFS_OPTION_EVENT_FORK))
		return fail(r, "cannot enable the event-fork option");
	return 0;
}

static int enable_events(struct recorder *r)
{
	int i;

	for (i = 0; i < r->events.n; i++) {
		struct kmt_event_ref *e = &r->events.ev[i];

		errno = 0;
		if (tracefs_event_enable(r->inst, e->system, e->name))
			return fail(r, "cannot enable event %s", e->name);
		e->format = tracefs_event_file_read(r->inst, e->system, e->name, "format", NULL);
		if (!e->format)
			return fail(r, "cannot read the format of %s", e->name);
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
			return fail(r, "filter '%s' is not GROUP:EVENT:EXPR", spec);
		snprintf(sys, sizeof(sys), "%.*s", (int)(c1 - spec), spec);
		snprintf(ev, sizeof(ev), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
		if (!tracefs_event_file_exists(r->inst, sys, ev, "filter"))
			return fail(r, "filter '%s' names no event of the running kernel", spec);
		ret = tracefs_event_file_write(r->inst, sys, ev, "filter", c2 + 1);
		if (ret < 0) {
			errno = 0;
			return fail(r, "the kernel rejected filter '%s'", spec);
		}
	}
	return 0;
}

/* Fork the command; it waits on a pipe so that it is filtered before it runs. */
static int fork_command(struct recorder *r, const sigset_t *old_mask)
{
	int go[2];

	if (!r->o->command)
		return 0;
	if (pipe2(go, O_CLOEXEC))
		return fail(r, "cannot make a pipe");
	r->child = fork();
	if (r->child < 0) {
		close(go[0]);
		close(go[1]);
		return fail(r, "cannot fork %s", r->o->command[0]);
	}
	if (r->child == 0) {
		char c;

		sigprocmask(SIG_SETMASK, old_mask, NULL);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(r->o->command[0], r->o->command);
		fprintf(stderr, "kmtrace: cannot run %s: %s\n", r->o->command[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	r->go_fd = go[1];
	r->command_pid = r->child;
	return 0;
}

/* A temporary file next to the output, gone once closed. */
static int temp_fd(const char *output)
{
	char *copy = strdup(output), *dir;
	int fd;

	if (!copy)
		return -1;
	dir = dirname(copy);
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	free(copy);
	return fd;
}

static void *cpu_thread(void *arg)
{
	struct cpu_recorder *c = arg;

	while (!atomic_load(c->stop)) {
		if (tracefs_cpu_write(c->tcpu, c->fd, false) < 0 && errno != EINTR &&
		    errno != EAGAIN) {
			c->error = errno;
			break;
		}
	}
	/* Drain: whole sub-buffers by splice, then the partly filled rest. */
	while (tracefs_cpu_write(c->tcpu, c->fd, true) > 0)
		;
	while (tracefs_cpu_flush_write(c->tcpu, c->fd) > 0)
		;
	return NULL;
}

static int open_cpus(struct recorder *r)
{
	int cpu;

	r->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	r->cpus = calloc(r->ncpus, sizeof(*r->cpus));
	if (!r->cpus)
		return fail(r, "out of memory");
	for (cpu = 0; cpu < r->ncpus; cpu++)
		r->cpus[cpu].fd = -1;
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct cpu_recorder *c = &r->cpus[cpu];

		c->cpu = cpu;
		c->stop = &r->stop;
		c->fd = temp_fd(r->o->output);
		if (c->fd < 0)
			return fail(r, "cannot make a temporary file beside %s", r->o->output);
		c->tcpu = tracefs_cpu_open(r->inst, cpu, false);
		/* An offline CPU has no buffer to read: it records nothing. */
		if (!c->tcpu && errno != ENOENT && errno != ENODEV)
			return fail(r, "cannot open the raw buffer of CPU %d", cpu);
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
			return fail(r, "cannot start a recorder thread");
		c->started = true;
	}
	return 0;
}

/* minflt and majflt (fields 10 and 12) of /proc/PID/stat. */
static void read_task_faults(pid_t pid, long *minflt, long *majflt)
{
	char path[64], *text, *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	text = slurp(path, NULL);
	p = text ? strrchr(text, ')') : NULL;	/* comm may hold spaces */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %ld %*u %ld", minflt,
			 majflt) != 2)
		*minflt = *majflt = -1;
	free(text);
}

static void release_command(struct recorder *r)
{
	if (r->go_fd > 0) {
		/* It waits in read(): what it faulted so far is not in the trace. */
		read_task_faults(r->child, &r->before_minflt, &r->before_majflt);
		r->child_released = write(r->go_fd, "g", 1) == 1;
		close(r->go_fd);
		r->go_fd = -1;
	}
}

static struct timespec remaining(const struct timespec *end)
{
	struct timespec now, left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left.tv_sec = end->tv_sec - now.tv_sec;
	left.tv_nsec = end->tv_nsec - now.tv_nsec;
	if (left.tv_nsec < 0) {
		left.tv_nsec += 1000000000L;
		left.tv_sec--;
	}
	if (left.tv_sec < 0)
		left.tv_sec = left.tv_nsec = 0;
	return left;
}

/* Wait for the command to end, the duration to pass, or a stop signal. */
static void wait_for_stop(struct recorder *r, const sigset_t *sigs)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)r->o->duration;
	end.tv_nsec += (long)((r->o->duration - (time_t)r->o->duration) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_nsec -= 1000000000L;
		end.tv_sec++;
	}
	for (;;) {
		struct timespec left = remaining(&end);
		int sig;

		if (r->o->duration > 0 && !left.tv_sec && !left.tv_nsec)
			return;
		sig = r->o->duration > 0 ? sigtimedwait(sigs, NULL, &left) : sigwaitinfo(sigs, NULL);
		if (sig == SIGCHLD) {
			if (r->child > 0 && wait4(r->child, &r->child_status, WNOHANG,
						  &r->rusage) == r->child) {
				r->have_rusage = true;
				r->child = 0;
				return;
			}
		} else if (sig > 0) {
			r->stop_signal = sig;
			if (r->child > 0)
				kill(r->child, sig);
			return;
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

/* The one way out once the instance exists, on success and on every error. */
static void teardown(struct recorder *r)
{
	int cpu;

	if (r->inst) {
		tracefs_trace_off(r->inst);
		/* Before the drain: writing the files allocates pages no event shows. */
		r->vmstat[1] = slurp("/proc/vmstat", NULL);
	}
	kmt_fault_sampler_stop(r->sampler);
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
			tracefs_cpu_close(r->cpus[cpu].tcpu);
		r->cpus[cpu].tcpu = NULL;
		r->cpus[cpu].started = false;
	}
	if (r->go_fd > 0) {	/* never released: the command must not run */
		close(r->go_fd);
		r->go_fd = -1;
	}
	if (r->child > 0) {
		if (!r->child_released)
			kill(r->child, SIGKILL);
		r->have_rusage = wait4(r->child, &r->child_status, 0, &r->rusage) == r->child;
		r->child = 0;
	}
	if (r->inst) {
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
		r->inst = NULL;
	}
	/* The probe goes last: no instance may still have it enabled. */
	kmt_fault_probe_remove(r->probe);
	r->probe = NULL;
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
 * handle_mm_fault, else perf's minor-faults/major-faults samples (then the
 * instance uses the "mono" clock, the one perf stamps them with).
 */
static int setup_fault_source(struct recorder *r)
{
	char why[160] = "turned off with --no-kprobes";

	if (!records_faults(&r->events))
		return 0;
	if (!r->o->no_kprobes)
		r->probe = kmt_fault_probe_create(why, sizeof(why));
	if (r->probe) {
		snprintf(r->fault_source, sizeof(r->fault_source),
			 "kprobe %s:%s", KMT_PROBE_SYSTEM, KMT_PROBE_EVENT);
		if (kmt_event_list_add(&r->events, KMT_PROBE_SYSTEM, KMT_PROBE_EVENT))
			return fail(r, "out of memory");
		return 0;
	}
	r->sampler = kmt_fault_sampler_open(sysconf(_SC_NPROCESSORS_CONF));
	if (!r->sampler) {
		snprintf(r->fault_source, sizeof(r->fault_source), "none (kprobe: %s; perf "
			 "fault events: %s)", why, strerror(errno));
		return 0;
	}
	/* "perf lost=N " goes in front once the count is known. */
	snprintf(r->fault_source, sizeof(r->fault_source), "minor-faults major-faults "
		 "(kprobe: %s)", why);
	errno = 0;
	if (tracefs_instance_file_write(r->inst, "trace_clock", "mono") < 0)
		return fail(r, "cannot set the trace clock of the instance to mono");
	return 0;
}

static int setup_and_run(struct recorder *r, const sigset_t *sigs, const sigset_t *old)
{
	char name[64];
	unsigned int kb = r->o->buffer_kb ? r->o->buffer_kb : KMT_RECORD_DEFAULT_BUFFER_KB;

	snprintf(name, sizeof(name), "kmtrace-%d", getpid());
	errno = 0;
	r->inst = tracefs_instance_create(name);
	if (!r->inst)
		return fail(r, "cannot create tracing instance %s (is tracefs mounted and "
			    "writable?)", name);
	tracefs_trace_off(r->inst);
	if (tracefs_instance_set_buffer_size(r->inst, kb, -1) < 0)
		return fail(r, "cannot set the buffer size of %s", name);
	/* Wake the splice threads at a quarter full, not half: more headroom. */
	if (tracefs_file_exists(r->inst, "buffer_percent") &&
	    tracefs_instance_file_write(r->inst, "buffer_percent", KMT_BUFFER_PERCENT) < 0)
		return fail(r, "cannot set buffer_percent of %s", name);
	if (setup_fault_source(r))
		return -1;
	r->trace_clock = tracefs_instance_file_read(r->inst, "trace_clock", NULL);
	if (fork_command(r, old) || set_pid_filter(r) || enable_events(r) ||
	    apply_filters(r) || open_cpus(r) || start_threads(r))
		return -1;
	r->vmstat[0] = slurp("/proc/vmstat", NULL);
	if (r->sampler && kmt_fault_sampler_start(r->sampler))
		return fail(r, "cannot start the fault sampler");
	if (tracefs_trace_on(r->inst))
		return fail(r, "cannot turn tracing on in %s", name);
	release_command(r);
	wait_for_stop(r, sigs);
	return 0;
}

/* NUMA node of a CPU: the nodeN entry of its sysfs directory; 0 without NUMA. */
static int cpu_node(int cpu)
{
	char path[64];
	struct dirent *d;
	int node = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (sscanf(d->d_name, "node%d", &node) == 1)
			break;
	closedir(dir);
	return node;
}

/* "CPU NODE" lines for every CPU, or NULL. */
static char *cpu_nodes_text(int ncpus)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int cpu;

	if (!fp)
		return NULL;
	for (cpu = 0; cpu < ncpus; cpu++)
		fprintf(fp, "%d %d\n", cpu, cpu_node(cpu));
	if (fclose(fp)) {
		free(text);
		return NULL;
	}
	return text;
}

/* What the recording covers: whole-system counts (vmstat) compare only with "system-wide". */
static const char *record_scope(const struct kmt_record_opts *o)
{
	if (o->command)
		return "filtered: a command and its children";
	if (o->npids)
		return "filtered: pids";
	if (o->nfilters)
		return "filtered: event filters";
	return "system-wide";
}

/* Header texts, formats and options of the recording, all read before writing. */
struct meta_texts {
	char *header_page, *header_event, *kallsyms, *printk, *cmdlines;
	size_t kallsyms_len;
	char uname[512];
	char version[32];
	int ncpus;
	char **cpustats;
	struct kmt_td_format *formats;
	struct kmt_td_option *options;
	int noptions;
	char *fault_samples;
	char fault_source[320];
	char rusage[256];
};

static void add_option(struct meta_texts *m, unsigned short id, const char *text)
{
	if (!text)
		return;
	m->options[m->noptions].id = id;
	m->options[m->noptions].data = text;
	m->options[m->noptions].size = strlen(text) + 1;
	m->noptions++;
}

/* Where minor/major come from, the perf samples, and the command's rusage. */
static int gather_fault_texts(struct recorder *r, struct meta_texts *m)
{
	const struct rusage *ru = &r->rusage;

	if (r->sampler) {
		unsigned long long lost;

		m->fault_samples = kmt_fault_sampler_text(r->sampler, &lost);
		if (!m->fault_samples)
			return fail(r, "cannot gather the fault samples");
		snprintf(m->fault_source, sizeof(m->fault_source), "perf lost=%llu %s", lost,
			 r->fault_source);
		add_option(m, KMT_TD_OPT_KMT_FAULT_SAMPLES, m->fault_samples);
	} else {
		snprintf(m->fault_source, sizeof(m->fault_source), "%s", r->fault_source);
	}
	if (m->fault_source[0])
		add_option(m, KMT_TD_OPT_KMT_FAULT_SOURCE, m->fault_source);
	if (r->have_rusage) {
		snprintf(m->rusage, sizeof(m->rusage), "pid=%d minflt=%ld majflt=%ld "
			 "maxrss_kb=%ld minflt_before=%ld majflt_before=%ld", r->command_pid,
			 ru->ru_minflt, ru->ru_majflt, ru->ru_maxrss, r->before_minflt,
			 r->before_majflt);
		add_option(m, KMT_TD_OPT_KMT_RUSAGE, m->rusage);
	}
	return 0;
}

static int gather_meta(struct recorder *r, struct meta_texts *m, struct kmt_tracedat_meta *td)
{
	struct utsname u;
	int i;

	m->header_page = tracefs_instance_file_read(NULL, "events/header_page", NULL);
	m->header_event = tracefs_instance_file_read(NULL, "events/header_event", NULL);
	if (!r->o->no_kallsyms)
		m->kallsyms = slurp("/proc/kallsyms", &m->kallsyms_len);
	m->printk = tracefs_instance_file_read(NULL, "printk_formats", NULL);
	r->cpu_nodes = cpu_nodes_text(r->ncpus);
	m->cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	m->formats = calloc(r->events.n + 1, sizeof(*m->formats));
	m->options = calloc(r->ncpus + 16, sizeof(*m->options));
	m->cpustats = calloc(r->ncpus + 1, sizeof(*m->cpustats));
	if (!m->header_page || !m->header_event || !m->formats || !m->options || !m->cpustats) {
		errno = errno ? errno : ENOMEM;
		return fail(r, "cannot read the header files of the tracing instance");
	}
	for (i = 0; i < r->events.n; i++) {
		m->formats[i].system = r->events.ev[i].system;
		m->formats[i].text = r->events.ev[i].format;
		m->formats[i].len = strlen(r->events.ev[i].format);
	}
	if (!uname(&u))
		snprintf(m->uname, sizeof(m->uname), "%s %s %s %s %s", u.sysname, u.nodename,
			 u.release, u.version, u.machine);
	snprintf(m->version, sizeof(m->version), "kmtrace %s", KMT_VERSION);
	add_option(m, KMT_TD_OPT_UNAME, m->uname);
	add_option(m, KMT_TD_OPT_VERSION, m->version);
	add_option(m, KMT_TD_OPT_TRACECLOCK, r->trace_clock);
	add_option(m, KMT_TD_OPT_KMT_VMSTAT_START, r->vmstat[0]);
	add_option(m, KMT_TD_OPT_KMT_VMSTAT_STOP, r->vmstat[1]);
	add_option(m, KMT_TD_OPT_KMT_CPU_NODES, r->cpu_nodes);
	add_option(m, KMT_TD_OPT_KMT_SCOPE, record_scope(r->o));
	if (gather_fault_texts(r, m))
		return -1;
	for (i = 0; i < r->ncpus; i++) {
		if (!r->cpus[i].stats || asprintf(&m->cpustats[i], "CPU: %d\n%s", i,
						   r->cpus[i].stats) < 0) {
			m->cpustats[i] = NULL;
			continue;
		}
		add_option(m, KMT_TD_OPT_CPUSTAT, m->cpustats[i]);
	}
	*td = (struct kmt_tracedat_meta){
		.page_size = getpagesize(),
		.long_size = sizeof(long),
		.header_page = { m->header_page, strlen(m->header_page) },
		.header_event = { m->header_event, strlen(m->header_event) },
		.formats = m->formats,
		.nformats = r->events.n,
		.kallsyms = { m->kallsyms, m->kallsyms ? m->kallsyms_len : 0 },
		.printk = { m->printk, m->printk ? strlen(m->printk) : 0 },
		.cmdlines = { m->cmdlines, m->cmdlines ? strlen(m->cmdlines) : 0 },
		.options = m->options,
		.noptions = m->noptions,
	};
	return 0;
}

static void free_meta(struct meta_texts *m, int ncpus)
{
	int i;

	for (i = 0; m->cpustats && i < ncpus; i++)
		free(m->cpustats[i]);
	free(m->cpustats);
	free(m->header_page);
	free(m->header_event);
	free(m->kallsyms);
	free(m->printk);
	free(m->cmdlines);
	free(m->formats);
	free(m->options);
	free(m->fault_samples);
}

/* Write next to the output, then move it in place (never over a file without -f). */
static int write_output(struct recorder *r)
{
	struct kmt_tracedat_meta td;
	struct meta_texts m = { 0 };
	char *tmp = NULL;
	int *fds = NULL, fd = -1, cpu, ret = -1;

	if (gather_meta(r, &m, &td))
		goto out;
	fds = calloc(r->ncpus + 1, sizeof(*fds));
	if (!fds || asprintf(&tmp, "%s.XXXXXX", r->o->output) < 0) {
		tmp = NULL;
		errno = ENOMEM;
		fail(r, "out of memory");
		goto out;
	}
	for (cpu = 0; cpu < r->ncpus; cpu++)
		fds[cpu] = r->cpus[cpu].fd;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		fail(r, "cannot create %s", tmp);
		goto out;
	}
	if (fchmod(fd, 0600) || kmt_tracedat_write(fd, tmp, &td, r->ncpus, fds, r->err))
		goto out;
	if (close(fd)) {
		fd = -1;
		fail(r, "cannot write %s", tmp);
		goto out;
	}
	fd = -1;
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, r->o->output,
		      r->o->force ? 0 : RENAME_NOREPLACE)) {
		fail(r, errno == EEXIST ? "%s exists (use -f to replace it)" :
		     "cannot create %s", r->o->output);
		goto out;
	}
	free(tmp);
	tmp = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(fds);
	free_meta(&m, r->ncpus);
	return ret;
}

/* Count what each CPU gave by reading the file back: it also proves it readable. */
static int summarize(struct recorder *r, struct kmt_record_result *res)
{
	struct kmt_reader *rd = kmt_reader_open(r->o->output, r->err);
	struct kmt_record rec;
	int cpu, ret;

	if (!rd)
		return -1;
	res->ncpus = kmt_reader_cpus(rd);
	res->cpus = calloc(res->ncpus + 1, sizeof(*res->cpus));
	if (!res->cpus) {
		kmt_reader_close(rd);
		return fail(r, "out of memory");
	}
	for (cpu = 0; cpu < res->ncpus; cpu++) {
		while ((ret = kmt_reader_next(rd, cpu, &rec, r->err)) > 0)
			res->cpus[cpu].events++;
		if (ret < 0) {
			kmt_reader_close(rd);
			return -1;
		}
		res->cpus[cpu].lost = kmt_cpu_stats_lost(kmt_reader_cpu_stats(rd, cpu));
		if (cpu < r->ncpus) {
			struct stat st;

			if (!fstat(r->cpus[cpu].fd, &st))
				res->cpus[cpu].bytes = st.st_size;
		}
	}
	kmt_reader_close(rd);
	return 0;
}

static int check_cpu_errors(struct recorder *r)
{
	int cpu;

	for (cpu = 0; cpu < r->ncpus; cpu++) {
		if (r->cpus[cpu].error) {
			errno = r->cpus[cpu].error;
			return fail(r, "writing the raw data of CPU %d failed", cpu);
		}
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
	free(r->cpu_nodes);
	free(r->trace_clock);
	kmt_fault_sampler_free(r->sampler);
	kmt_event_list_free(&r->events);
}

/* Instances need write access to tracefs: say so plainly when it is missing. */
static int check_tracefs_access(struct kmt_error *err)
{
	const char *dir = tracefs_tracing_dir();
	char path[4096];
	int why = ENOENT;

	snprintf(path, sizeof(path), "%s/instances", dir ? dir : "/sys/kernel/tracing");
	if (dir) {
		if (!access(path, W_OK) && !access(dir, R_OK | X_OK))
			return 0;
		why = errno;
	}
	kmt_error_set(err, "record", -1, "cannot create tracing instances in %s: %s "
		      "(kmtrace record needs root)", path, strerror(why));
	return -1;
}

/*
 * Block the signals that stop a recording; they are taken with sigwaitinfo.
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
	if (sigaction(SIGHUP, NULL, &hup) || hup.sa_handler != SIG_IGN)
		sigaddset(sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, sigs, old);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

int kmt_record(const struct kmt_record_opts *o, struct kmt_record_result *res,
	       struct kmt_error *err)
{
	struct recorder r = { .o = o, .err = err, .go_fd = -1, .child_status = -1 };
	sigset_t sigs, old;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	res->command_status = -1;
	if (!o->force && access(o->output, F_OK) == 0) {
		kmt_error_set(err, o->output, -1, "exists (use -f to replace it)");
		return -1;
	}
	block_stop_signals(&sigs, &old);
	if (tracefs_tracing_dir_is_mounted(true, NULL) < 0) {
		kmt_error_set(err, "record", -1,
			      "tracefs is not mounted at /sys/kernel/tracing and cannot be mounted "
			      "(need root, or mount -t tracefs nodev /sys/kernel/tracing)");
		goto out;
	}
	if (check_tracefs_access(err) ||
	    kmt_event_list_resolve(&r.events, o->events, o->nevents, err))
		goto out;
	ret = setup_and_run(&r, &sigs, &old);
	teardown(&r);
	if (!ret)
		ret = check_cpu_errors(&r);
	if (!ret)
		ret = write_output(&r);
	if (!ret)
		ret = summarize(&r, res);
	res->command_status = r.child_status;
	res->stop_signal = r.stop_signal;
out:
	free_recorder(&r);
	while (sigtimedwait(&sigs, NULL, &(struct timespec){ 0 }) > 0)
		;	/* a second Ctrl-C during the write must not kill us now */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}
