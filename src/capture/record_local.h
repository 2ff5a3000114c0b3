/* SPDX-License-Identifier: LGPL-2.1 */
/* Pieces of kmtrace record shared between its files; private to src/. */
#ifndef KMT_RECORD_LOCAL_H
#define KMT_RECORD_LOCAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <kmtrace/cpustats.h>
#include <kmtrace/record.h>

struct kmt_event_ref {
	char *system;
	char *name;
	char *format;		/* the format file, read when enabled */
};

struct kmt_event_list {
	struct kmt_event_ref *ev;
	int n;
};

/*
 * Resolve @specs (none: the default events the kernel has) into @l.
 * Returns 0, or -1 with @err filled for an unknown or ambiguous event.
 */
int kmt_event_list_resolve(struct kmt_event_list *l, const char *const *specs, int n,
			   struct kmt_error *err);

/* Add @sys:@name to @l unless it is there. 0, or -1 when out of memory. */
int kmt_event_list_add(struct kmt_event_list *l, const char *sys, const char *name);

/*
 * Add @sys:@name, an event that is never enabled but whose records the
 * buffers may hold (ftrace's kernel_stack, raw_data), to r->events with its
 * format. 0, or -1 with r->err filled.
 */
struct recorder;
int kmt_record_add_format(struct recorder *r, const char *sys, const char *name);

/* Free what kmt_event_list_resolve() put in @l. */
void kmt_event_list_free(struct kmt_event_list *l);

/* kmtrace's return probe on handle_mm_fault: group and event name. */
#define KMT_PROBE_SYSTEM	"kmtrace"
#define KMT_PROBE_EVENT		"fault_return"

struct tracefs_dynevent;

/*
 * Create the return probe KMT_PROBE_SYSTEM:KMT_PROBE_EVENT (a stale one
 * left by a killed recorder is replaced). NULL with @why filled when the
 * kernel cannot have it.
 */
struct tracefs_dynevent *kmt_fault_probe_create(char *why, size_t len);

/* Remove and free the probe; NULL is ignored. Only after its instance is gone. */
void kmt_fault_probe_remove(struct tracefs_dynevent *ev);

/* Remove a probe left by a recorder that is gone (the kernel refuses one in use). */
void kmt_fault_probe_remove_stale(void);

struct kmt_fault_sampler;

/*
 * Open (disabled) minor/major fault sampling of the @ntids tasks @tids and
 * their future children, or of the whole system when @ntids is 0, spooling
 * into temporary files in @tmpdir. @wake(@ctx) is called from the sampler's
 * thread when a spool write fails. NULL with errno.
 */
struct kmt_fault_sampler *kmt_fault_sampler_open(const int *tids, int ntids, const char *tmpdir,
						 void (*wake)(void *ctx), void *ctx);

/* Start the reader thread and enable sampling; 0, or -1 with errno. */
int kmt_fault_sampler_start(struct kmt_fault_sampler *s);

/* Disable sampling, join the reader and spool what is left; NULL is ignored. */
void kmt_fault_sampler_stop(struct kmt_fault_sampler *s);

/* errno of a spool write that failed, or 0. */
int kmt_fault_sampler_error(const struct kmt_fault_sampler *s);

/* Bytes spooled so far. */
unsigned long long kmt_fault_sampler_bytes(const struct kmt_fault_sampler *s);

/*
 * After kmt_fault_sampler_stop(): the samples merged in time order into a
 * new temporary file in @tmpdir, in the layout of
 * KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN, its descriptor in *@fd (yours to close)
 * and size in *@size; *@lost samples the rings lost, that did not fit or
 * that the kernel counted and never delivered.
 * 0, or -1 with errno.
 */
int kmt_fault_sampler_finish(struct kmt_fault_sampler *s, const char *tmpdir, int *fd,
			     unsigned int *size, unsigned long long *lost);

/* Stop if needed, close everything and free @s; NULL is ignored. */
void kmt_fault_sampler_free(struct kmt_fault_sampler *s);

/* An unlinked temporary file in @dir, read-write. The fd, or -1 with errno. */
int kmt_temp_fd(const char *dir);

/* Where a recording goes (record_output.c). */
struct kmt_dest {
	const char *name;	/* the path as given, or "standard output" */
	char *path;		/* the regular file to make or replace; NULL: a stream */
	char *dir;		/* where temporary files go */
	int fd;			/* what the recording is written to */
	bool replace;		/* @path exists and -f was given */
	char *tmp_name;		/* a named temporary file, where there is no O_TMPFILE */
	bool committed;
};

/*
 * Decide where @path's recording goes (see record_output.c), before tracing
 * starts. 0; -1 with @err filled when it cannot be opened; -2 with @err
 * filled when it must not be written (exists without @force, a block
 * device, a directory, a terminal, ...).
 */
int kmt_dest_open(struct kmt_dest *d, const char *path, bool force, struct kmt_error *err);

/* The recording is complete: give it its name. 0, or -1 with @err filled. */
int kmt_dest_commit(struct kmt_dest *d, struct kmt_error *err);

/* Close; what was not committed leaves no file behind. */
void kmt_dest_close(struct kmt_dest *d);

/*
 * Remove the instances kmtrace-PID of kmtrace processes that are gone
 * (killed with SIGKILL: their pipes closed when they died, so no spliced
 * page of them can be in a pipe). Their names go to @names, space
 * separated. Returns how many were removed.
 */
int kmt_remove_stale_instances(char *names, size_t len);

struct cpu_recorder;
struct tracefs_instance;

/* One recording; its files share it. */
struct recorder {
	const struct kmt_record_opts *o;
	struct kmt_error *err;
	struct kmt_dest dest;
	struct tracefs_instance *inst;
	bool own_instance;		/* made here: removed at teardown */
	struct kmt_event_list events;
	struct cpu_recorder *cpus;
	int ncpus;
	atomic_bool stop;
	atomic_ullong bytes;		/* raw data spliced so far */
	atomic_bool woken;		/* a thread asked the main thread to look */
	pthread_t main_thread;
	sigset_t sigs;			/* the signals the main thread waits for */
	int *tids;			/* -p: every thread of the processes */
	int ntids;
	int *pidfds;			/* -p: one per process, readable once it exited */
	int npids;
	pid_t child;
	pid_t command_pid;		/* child stays set once it is reaped */
	int go_fd;			/* write end: one byte lets the command exec */
	int exec_fd;			/* read end: errno when exec failed, EOF when it ran */
	bool child_released;
	int child_status;
	int exec_errno;
	enum kmt_record_stop stopped_by;
	int stop_signal;
	char *vmstat[2];
	char *slabinfo[2];		/* /proc/slabinfo at start and stop */
	int page_owner_fd;		/* page_owner at start, compact; -1: none */
	unsigned int page_owner_size;
	unsigned long long page_owner_blocks, page_owner_pages;
	char *cpu_nodes;
	char *trace_clock;
	char *stack_events;			/* -g: "SYSTEM:EVENT ..." with triggers */
	bool uprobes;				/* --user: kmtrace_user:* made */
	struct kmt_umaps *umaps;		/* --user: the processes' maps, polled */
	char *user_maps;			/* ... what it saw, at stop */
	struct tracefs_dynevent *probe;		/* return probe on handle_mm_fault */
	struct kmt_fault_sampler *sampler;	/* else perf's minor/major faults */
	char fault_source[256];
	struct rusage rusage;			/* of the command, from wait4 */
	bool have_rusage;
	long before_minflt, before_majflt;	/* the command's faults before tracing */
	struct kmt_members *members;		/* --cgroup, --container, --comm, --exe */
	struct kmt_proctable *procs;		/* the tasks /proc showed, start to stop */
	char *processes;			/* ... their text form, at stop */
	struct kmt_filetable *files;		/* the files they had mapped or open */
	char *file_names;			/* ... their text form, at stop */
	int marker_fd;				/* --user-sample: trace_marker_raw, or -1 */
	char **command_env;			/* ... the command's environment */
};

/*
 * --cgroup, --container, --comm, --exe: find the matching processes and put
 * them in set_event_pid (event-fork on). 0, or -1 with the error set.
 */
int kmt_members_setup(struct recorder *r);

/* Add the processes that match now (at every tick); tracing starts with the first. */
int kmt_members_poll(struct recorder *r);

/* Is the recording still waiting for its first matching process? */
bool kmt_members_waiting(const struct recorder *r);

void kmt_members_free(struct recorder *r);

/*
 * record -g: a stacktrace trigger on each stack event (the slab and page
 * allocation and free events recorded, or --stack-events), their list in
 * r->stack_events, and the kernel_stack format among r->events. After the
 * events are enabled and filtered. 0, or -1 with r->err filled.
 */
int kmt_record_stacks_setup(struct recorder *r);

/*
 * --user: uprobes on the allocators of the traced program's C library (or
 * --user-lib), their events added to r->events, --user-min-size as their
 * filter. Before the events are enabled. 0, or -1 with r->err filled.
 */
int kmt_uprobes_setup(struct recorder *r);

/*
 * --user-sample: open the instance's trace_marker_raw and make the
 * command's environment (the library preloaded, the descriptor named).
 * Before the command is forked. 0, or -1 with r->err filled.
 */
int kmt_heap_setup(struct recorder *r);

/* --user-sample: ftrace:raw_data's format among r->events; after the events are taken. */
int kmt_heap_add_format(struct recorder *r);

/* Close the descriptor of trace_marker_raw (before the instance is removed). */
void kmt_heap_close(struct recorder *r);

/* Say that the instance stayed: a process of the command holds trace_marker_raw. */
void kmt_heap_instance_left(struct recorder *r);

/* Free what kmt_heap_setup() made. */
void kmt_heap_free(struct recorder *r);

/* Remove the uprobes; only after the instance is gone. */
void kmt_uprobes_remove(struct recorder *r);

/* Remove uprobes a killed recorder left (the kernel keeps those in use). */
void kmt_uprobes_remove_stale(void);

struct kmt_umaps;

/* Start polling the maps of the processes @inst traces; NULL when it cannot. */
struct kmt_umaps *kmt_umaps_start(struct tracefs_instance *inst);

/* Stop polling; the KMT_TD_OPT_KMT_USER_MAPS text seen (free() it), or NULL. */
char *kmt_umaps_stop(struct kmt_umaps *m);

/* Fill r->err with the message and, if errno is set, its text; returns -1. */
int kmt_record_fail(struct recorder *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Ask the main thread to look at the stop conditions (any thread). */
void kmt_record_wake(struct recorder *r);

/*
 * -p: open a pidfd per process and list all their threads. 0, or -2 with
 * r->err filled for a process that does not exist, -1 on other errors.
 */
int kmt_command_open_pids(struct recorder *r);

/* @cmd as execvp() would find it, into @path of @len bytes; false when nowhere. */
bool kmt_command_path(const char *cmd, char *path, size_t len);

/* True when every -p process has exited. */
bool kmt_command_pids_gone(struct recorder *r);

/* Fork the command, held before exec until released; signals as in @old. 0 or -1. */
int kmt_command_fork(struct recorder *r, const sigset_t *old);

/* Let the command run; r->exec_errno is set when it could not be run. */
void kmt_command_release(struct recorder *r);

/* Reap the command if it ended (@wait: wait for it). True when it was reaped now. */
bool kmt_command_reap(struct recorder *r, bool wait);

/*
 * The recording stopped while the command runs: SIGTERM (as perf does),
 * SIGKILL after @grace_ms; one never released is killed at once. Reaps it.
 */
void kmt_command_end(struct recorder *r, int grace_ms);

/* Close the -p and command descriptors. */
void kmt_command_free(struct recorder *r);

/*
 * Everything after teardown: the header texts, the fault samples and the
 * per-CPU data into r->dest, counted into @res. 0, or -1 with r->err filled.
 */
int kmt_record_write(struct recorder *r, struct kmt_record_result *res);

/* The stats file text of each CPU, read at stop (record.c). */
const char *kmt_record_cpu_stats(const struct recorder *r, int cpu);

/* The unlinked file CPU @cpu's raw data went to. */
int kmt_record_cpu_fd(const struct recorder *r, int cpu);

/*
 * The running kernel's identity for the recording, "text 0xADDR\n" (its
 * _text, from @kallsyms or else /proc/kallsyms) and "build-id HEX\n", into
 * @buf; what cannot be read is left out (empty when nothing could).
 */
void kmt_kernel_identity(const char *kallsyms, char *buf, size_t len);

/*
 * The merged slab caches: a "NAME UNIQUE-ID" line for each link of
 * /sys/kernel/slab (names that share an id are one cache). Allocated;
 * NULL when there is none or it cannot be read.
 */
char *kmt_slab_aliases(void);

/*
 * Where debugfs has a page_owner file (CONFIG_PAGE_OWNER, page_owner=on),
 * a recording is written, and neither --no-page-owner nor --extract was
 * given: read it into a temporary file in the layout of
 * KMT_TD_OPT_KMT_PAGE_OWNER (r->page_owner_fd). 0 (also when there is
 * none), or -1 with r->err filled.
 */
int kmt_page_owner_snapshot(struct recorder *r);

/*
 * page_owner's text @in (read from @path) into @out in the layout of
 * KMT_TD_OPT_KMT_PAGE_OWNER, its blocks and pages counted into *@blocks
 * and *@pages. 0, or -1 with errno (a read, a write, memory).
 */
int kmt_page_owner_compact(FILE *in, const char *path, FILE *out, unsigned long long *blocks,
			   unsigned long long *pages);

#endif /* KMT_RECORD_LOCAL_H */
