// SPDX-License-Identifier: LGPL-2.1
/*
 * The end of a recording: header texts, options and the per-CPU data go
 * into the output in one pass (kmt_tracedat_write), each CPU's temporary
 * file freed as it is copied, so disk use peaks at about the output plus
 * one chunk. Events are counted on the way. A stop signal during the write
 * aborts it and no file is left; a write over a second shows progress.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include "container/cpustats.h"
#include "container/subbuf.h"
#include "record_local.h"
#include "container/tracedat.h"
#include "common/util.h"

#define PROGRESS_AFTER_NS	1000000000ull
#define PROGRESS_EVERY_NS	250000000ull

/* Header texts, formats and options of the recording, all read before writing. */
struct meta_texts {
	char *header_page, *header_event, *printk, *cmdlines;
	int kallsyms_fd;		/* /proc/kallsyms, spooled; -1: left out */
	size_t kallsyms_len;
	char uname[512];
	char version[32];
	char **cpustats;
	struct kmt_td_format *formats;
	struct kmt_td_option *options;
	int noptions;
	int samples_fd;
	char fault_source[320];
	char rusage[256];
	char kernel[192];
	char boot_id[64];
	char *slab_aliases;
};

static void add_option(struct meta_texts *m, unsigned short id, const char *text)
{
	if (!text)
		return;
	m->options[m->noptions++] = (struct kmt_td_option){ id, text, strlen(text) + 1, -1 };
}

/* What the recording covers: whole-system counts (vmstat) compare only with "system-wide". */
static const char *record_scope(const struct kmt_record_opts *o)
{
	if (o->extract)
		return "extracted: an instance set up outside kmtrace";
	if (o->command)
		return "filtered: a command and its children";
	if (o->npids)
		return "filtered: pids";
	if (o->nfilters)
		return "filtered: event filters";
	return "system-wide";
}

/* Where minor/major come from, the perf samples, and the command's rusage. */
static int gather_fault_texts(struct recorder *r, struct meta_texts *m,
			      struct kmt_record_result *res)
{
	const struct rusage *ru = &r->rusage;

	if (r->sampler) {
		unsigned long long lost;
		unsigned int size;

		if (kmt_fault_sampler_finish(r->sampler, r->dest.dir, &m->samples_fd, &size,
					     &lost))
			return kmt_record_fail(r, "cannot gather the fault samples");
		res->fault_samples = (size - 8) / sizeof(struct kmt_td_fault_sample);
		snprintf(m->fault_source, sizeof(m->fault_source), "perf lost=%llu %s", lost,
			 r->fault_source);
		m->options[m->noptions++] = (struct kmt_td_option){
			KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN, NULL, size, m->samples_fd };
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

/*
 * /proc/kallsyms into an unlinked file beside the output, copied from there
 * into the header: held in memory (it is several MB, and reads report no
 * size) it was most of a small target's recorder. Unreadable: left out.
 */
static int spool_kallsyms(struct recorder *r, struct meta_texts *m)
{
	char buf[16384];
	int in = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;

	if (in < 0)
		return 0;
	m->kallsyms_fd = kmt_temp_fd(r->dest.dir);
	while (m->kallsyms_fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0 &&
	       !kmt_write_all(m->kallsyms_fd, buf, n))
		m->kallsyms_len += n;
	close(in);
	if (m->kallsyms_fd >= 0 && !n)
		return 0;
	return kmt_record_fail(r, "cannot copy /proc/kallsyms into a temporary file in %s",
			       r->dest.dir);
}

static int read_headers(struct recorder *r, struct meta_texts *m)
{
	int i;

	m->header_page = tracefs_instance_file_read(NULL, "events/header_page", NULL);
	m->header_event = tracefs_instance_file_read(NULL, "events/header_event", NULL);
	if (!r->o->no_kallsyms && spool_kallsyms(r, m))
		return -1;
	m->printk = tracefs_instance_file_read(NULL, "printk_formats", NULL);
	m->cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	m->formats = calloc(r->events.n + 1, sizeof(*m->formats));
	m->options = calloc(r->ncpus + 24, sizeof(*m->options));
	m->cpustats = calloc(r->ncpus + 1, sizeof(*m->cpustats));
	if (!m->header_page || !m->header_event || !m->formats || !m->options || !m->cpustats) {
		errno = errno ? errno : ENOMEM;
		return kmt_record_fail(r, "cannot read the header files of the tracing instance");
	}
	for (i = 0; i < r->events.n; i++)
		m->formats[i] = (struct kmt_td_format){ r->events.ev[i].system,
							r->events.ev[i].format,
							strlen(r->events.ev[i].format) };
	return 0;
}

/* The kernel's boot id into @buf, without its newline: false when there is none. */
static bool read_boot_id(char *buf, size_t len)
{
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "re");
	bool ok = fp && fgets(buf, len, fp);

	if (fp)
		fclose(fp);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok && *buf;
}

static int gather_meta(struct recorder *r, struct meta_texts *m, struct kmt_tracedat_meta *td,
		       struct kmt_record_result *res)
{
	struct utsname u;
	int i;

	if (read_headers(r, m))
		return -1;
	if (!uname(&u))
		snprintf(m->uname, sizeof(m->uname), "%s %s %s %s %s", u.sysname, u.nodename,
			 u.release, u.version, u.machine);
	snprintf(m->version, sizeof(m->version), "kmtrace %s", KMT_VERSION);
	add_option(m, KMT_TD_OPT_UNAME, m->uname);
	add_option(m, KMT_TD_OPT_VERSION, m->version);
	add_option(m, KMT_TD_OPT_TRACECLOCK, r->trace_clock);
	add_option(m, KMT_TD_OPT_KMT_VMSTAT_START, r->vmstat[0]);
	add_option(m, KMT_TD_OPT_KMT_VMSTAT_STOP, r->vmstat[1]);
	add_option(m, KMT_TD_OPT_KMT_SLABINFO_START, r->slabinfo[0]);
	add_option(m, KMT_TD_OPT_KMT_SLABINFO_STOP, r->slabinfo[1]);
	add_option(m, KMT_TD_OPT_KMT_CPU_NODES, r->cpu_nodes);
	add_option(m, KMT_TD_OPT_KMT_SCOPE, record_scope(r->o));
	if (read_boot_id(m->boot_id, sizeof(m->boot_id)))
		add_option(m, KMT_TD_OPT_KMT_BOOT_ID, m->boot_id);
	kmt_kernel_identity(NULL, m->kernel, sizeof(m->kernel));
	if (m->kernel[0])
		add_option(m, KMT_TD_OPT_KMT_KERNEL, m->kernel);
	m->slab_aliases = kmt_slab_aliases();
	add_option(m, KMT_TD_OPT_KMT_SLAB_ALIASES, m->slab_aliases);
	add_option(m, KMT_TD_OPT_KMT_STACKS, r->stack_events);
	add_option(m, KMT_TD_OPT_KMT_USER_MAPS, r->user_maps);
	add_option(m, KMT_TD_OPT_KMT_PROCESSES, r->processes);
	add_option(m, KMT_TD_OPT_KMT_FILES, r->file_names);
	if (r->page_owner_fd >= 0) {
		m->options[m->noptions++] = (struct kmt_td_option){
			KMT_TD_OPT_KMT_PAGE_OWNER, NULL, r->page_owner_size, r->page_owner_fd };
		res->page_owner_blocks = r->page_owner_blocks;
		res->page_owner_pages = r->page_owner_pages;
	}
	if (gather_fault_texts(r, m, res))
		return -1;
	for (i = 0; i < r->ncpus; i++) {
		const char *stats = kmt_record_cpu_stats(r, i);

		if (!stats || asprintf(&m->cpustats[i], "CPU: %d\n%s", i, stats) < 0) {
			m->cpustats[i] = NULL;
			continue;
		}
		add_option(m, KMT_TD_OPT_CPUSTAT, m->cpustats[i]);
	}
	*td = (struct kmt_tracedat_meta){
		.page_size = getpagesize(),
		.long_size = sizeof(long),
		.header_page = { m->header_page, strlen(m->header_page), -1 },
		.header_event = { m->header_event, strlen(m->header_event), -1 },
		.formats = m->formats,
		.nformats = r->events.n,
		.kallsyms = { NULL, m->kallsyms_len, m->kallsyms_fd },
		.printk = { m->printk, m->printk ? strlen(m->printk) : 0, -1 },
		.cmdlines = { m->cmdlines, m->cmdlines ? strlen(m->cmdlines) : 0, -1 },
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
	free(m->printk);
	free(m->cmdlines);
	free(m->slab_aliases);
	free(m->formats);
	free(m->options);
	if (m->samples_fd >= 0)
		close(m->samples_fd);
	if (m->kallsyms_fd >= 0)
		close(m->kallsyms_fd);
}

/* The state of the final write, for its progress and cancel hooks. */
struct writing {
	struct recorder *r;
	unsigned long long start_ns, shown_ns;
};

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void write_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct writing *w = ctx;
	const struct kmt_record_opts *o = w->r->o;
	unsigned long long now = now_ns();
	struct kmt_record_progress p = { .phase = KMT_RECORD_WRITING, .done = done,
					 .total = total };

	if (!o->progress || now - w->start_ns < PROGRESS_AFTER_NS ||
	    now - w->shown_ns < PROGRESS_EVERY_NS)
		return;
	w->shown_ns = now;
	o->progress(o->ctx, &p);
}

/* A second SIGINT, or SIGTERM/SIGHUP, during the write: give up on it. */
static bool write_cancelled(void *ctx)
{
	struct writing *w = ctx;
	struct timespec zero = { 0 };
	int sig;

	while ((sig = sigtimedwait(&w->r->sigs, NULL, &zero)) > 0)
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			return true;
	return false;
}

/* What each CPU gave: events counted in its pages, losses from its stats and marks. */
static int fill_result(struct recorder *r, const struct kmt_td_cpu_count *counts,
		       struct kmt_record_result *res)
{
	int cpu;

	res->ncpus = r->ncpus;
	res->cpus = calloc(r->ncpus + 1, sizeof(*res->cpus));
	if (!res->cpus)
		return kmt_record_fail(r, "out of memory");
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct kmt_cpu_stats st = { 0 };
		const char *text = kmt_record_cpu_stats(r, cpu);

		if (text)
			kmt_cpu_stats_parse(text, strlen(text), &st);
		st.missed_marked = counts[cpu].missed;
		if (r->stopped_by == KMT_STOP_MAX_SIZE)
			res->left_in_buffers += st.entries;
		res->cpus[cpu] = (struct kmt_record_cpu){ counts[cpu].events, counts[cpu].bytes,
							  kmt_cpu_stats_lost(&st) };
	}
	return 0;
}

/* Time stamp of the sub-buffer at @off of @fd (its first event's clock); 0 if unreadable. */
static uint64_t subbuf_time(int fd, uint64_t off)
{
	uint64_t ts = 0;

	return pread(fd, &ts, sizeof(ts), off) == sizeof(ts) ? ts : 0;
}

/*
 * Time of the last event of the sub-buffer at @off of @fd, read into @page
 * (@len bytes, this kernel's layout); its own time stamp when it holds
 * none, 0 if unreadable.
 */
static uint64_t subbuf_end_time(int fd, uint64_t off, unsigned char *page, size_t len)
{
	struct kmt_rb_order order = { false, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ };
	unsigned int pos = 8 + sizeof(long), end;
	unsigned long commit = 0;
	struct kmt_rb_step st;
	uint64_t ts, last;

	if (pread(fd, page, len, off) != (ssize_t)len)
		return 0;
	memcpy(&ts, page, 8);
	memcpy(&commit, page + 8, sizeof(commit));
	end = pos + (commit & KMT_RB_COMMIT_MASK);
	last = ts;
	while (end <= len && kmt_rb_step(order, page, pos, end, &st) > 0) {
		pos = st.next;
		ts = kmt_rb_time_after(&st, ts);
		if (st.type < KMT_RB_PADDING)
			last = ts;
	}
	return last;
}

/*
 * --keep: where each CPU's data starts so that only its sub-buffers that
 * begin at most keep_seconds before the last event (on any CPU) are
 * written, a flight recording of at most that span. Sub-buffers are in
 * time order in each file: a binary search.
 */
static int keep_last(struct recorder *r, const int *fds, uint64_t *starts)
{
	uint64_t page = (uint64_t)getpagesize(), latest = 0, cutoff, keep;
	unsigned char *buf = malloc(page);
	int cpu;

	if (!buf)
		return -1;
	keep = (uint64_t)(r->o->keep_seconds * 1e9);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct stat st;

		if (fstat(fds[cpu], &st)) {
			free(buf);
			return -1;
		}
		starts[cpu] = st.st_size / page;	/* pages, for now */
		if (starts[cpu]) {
			uint64_t last = subbuf_end_time(fds[cpu], (starts[cpu] - 1) * page,
							buf, page);

			latest = last > latest ? last : latest;
		}
	}
	free(buf);
	cutoff = latest > keep ? latest - keep : 0;
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		uint64_t lo = 0, hi = starts[cpu];	/* the first page at or after cutoff */

		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (subbuf_time(fds[cpu], mid * page) < cutoff)
				lo = mid + 1;
			else
				hi = mid;
		}
		starts[cpu] = lo * page;
	}
	return 0;
}

int kmt_record_write(struct recorder *r, struct kmt_record_result *res)
{
	struct meta_texts m = { .samples_fd = -1, .kallsyms_fd = -1 };
	struct writing w = { .r = r, .start_ns = now_ns() };
	struct kmt_td_cpu_count *counts = calloc(r->ncpus + 1, sizeof(*counts));
	struct kmt_td_copy copy = { write_progress, write_cancelled, &w, true, counts, NULL };
	struct kmt_tracedat_meta td;
	int *fds = calloc(r->ncpus + 1, sizeof(*fds));
	uint64_t *starts = calloc(r->ncpus + 1, sizeof(*starts));
	int cpu, ret = -1;

	if (!counts || !fds || !starts) {
		errno = ENOMEM;
		kmt_record_fail(r, "out of memory");
		goto out;
	}
	if (gather_meta(r, &m, &td, res))
		goto out;
	for (cpu = 0; cpu < r->ncpus; cpu++)
		fds[cpu] = kmt_record_cpu_fd(r, cpu);
	if (r->o->keep_seconds > 0) {
		if (keep_last(r, fds, starts)) {
			kmt_record_fail(r, "cannot read the raw data of the CPUs");
			goto out;
		}
		copy.starts = starts;
	}
	if (kmt_tracedat_write(r->dest.fd, r->dest.name, &td, r->ncpus, fds, &copy, r->err) ||
	    kmt_dest_commit(&r->dest, r->err) || fill_result(r, counts, res))
		goto out;
	ret = 0;
out:
	free_meta(&m, r->ncpus);
	free(counts);
	free(fds);
	free(starts);
	return ret;
}
