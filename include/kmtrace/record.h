/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: capture kernel memory events from a tracing instance of its own
 * into a trace-cmd compatible trace.dat.
 */
#ifndef KMTRACE_RECORD_H
#define KMTRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <kmtrace/error.h>

/* What kmt_record() reports while it works. */
enum kmt_record_phase {
	KMT_RECORD_RECORDING,	/* once a second while tracing */
	KMT_RECORD_WRITING,	/* during the final write, once it took a second */
	KMT_RECORD_DONE,	/* the last call: nothing more follows */
};

struct kmt_record_progress {
	enum kmt_record_phase phase;
	unsigned long long events;	/* RECORDING: taken from the buffers so far */
	unsigned long long bytes;	/* RECORDING: raw data so far */
	unsigned long long lost;	/* RECORDING: overrun and dropped so far */
	unsigned long long done, total;	/* WRITING: bytes of the output */
};

struct kmt_record_opts {
	const char *const *events;	/* "GROUP:EVENT", "GROUP" or "EVENT"; none: defaults */
	int nevents;
	const char *const *filters;	/* "GROUP:EVENT:EXPR" */
	int nfilters;
	const int *pids;
	int npids;
	/*
	 * Processes chosen by what they are, found at the start and at every
	 * tick after (those joining later are followed, their children too);
	 * all given must match. NULL: not a condition.
	 */
	const char *cgroup;		/* a cgroup (v1 or v2): path, or under /sys/fs/cgroup */
	const char *container;		/* a cgroup whose directory name holds this id or name */
	const char *comm;		/* process name */
	const char *exe;		/* executable path (/proc/PID/exe) */
	unsigned int buffer_kb;		/* per CPU; 0: KMT_RECORD_DEFAULT_BUFFER_KB */
	double duration;		/* seconds; 0: until the command ends or a signal */
	unsigned long long max_size;	/* bytes of raw data to stop at; 0: no limit */
	const char *output;		/* "-": standard output; NULL: no file (watch) */
	bool force;			/* replace an existing regular file */
	bool no_kallsyms;		/* leave /proc/kallsyms out (5+ MB) */
	bool no_kprobes;		/* no return probe on handle_mm_fault */
	bool no_page_owner;		/* leave debugfs's page_owner out */
	bool stacks;			/* -g: a kernel stack after each chosen event */
	const char *const *stack_events;	/* those events; none: slab and page ones */
	int nstack_events;
	bool user;			/* --user: the C library's allocators too */
	const char *user_lib;		/* --user-lib: the allocator library to probe */
	unsigned long long user_min_size;	/* --user-min-size: smaller ones left out */
	/*
	 * --user-sample: the command's allocations sampled by
	 * libkmtrace-heap.so (@heap_lib, preloaded), a record each into the
	 * instance's trace_marker_raw; mean bytes between samples (1: every
	 * call), 0: off. Needs @command.
	 */
	unsigned long long user_sample;
	bool user_sample_fp;		/* frame pointers first, else the DWARF unwinder */
	const char *heap_lib;		/* absolute path of libkmtrace-heap.so */
	/*
	 * With @user_sample, limits the library holds every call against
	 * (0: none): usable bytes of live blocks, bytes asked for by the
	 * process, by one thread; the first crossing is recorded and acted
	 * on as @limit_action says (enum kmt_heap_action in common/heaprec.h:
	 * @limit_signal sent, the call failed with ENOMEM, or SIGSTOP).
	 */
	unsigned long long heap_limit, alloc_limit, thread_alloc_limit;
	int limit_action;
	char *const *command;		/* argv of the command to trace, or NULL */
	/*
	 * The command's SIGPIPE as kmtrace's own was before it ignored it for
	 * its writes: ignored, or default (a pipeline's "find | head" must end
	 * as it would untraced).
	 */
	bool command_ignores_sigpipe;
	/*
	 * Extract: take what the existing instance of this name holds (its
	 * tracing off, its events as they are: set up by a shell, a script or
	 * trace-cmd) into the output, and leave the instance in place. Nothing
	 * is enabled, filtered or traced; the options above about events,
	 * processes and stop conditions do not apply. NULL: record.
	 */
	const char *extract;
	/*
	 * Watching (kmtrace watch): every few milliseconds the main thread
	 * gives each sub-buffer the CPUs have spooled since the last time to
	 * @watch_data (in order per CPU), then asks @watch_tick whether to stop;
	 * when it says so, every traced process gets @limit_signal and the
	 * recording stops (KMT_STOP_LIMIT). Once more after the recording
	 * stopped, with @final true (what it says then is not acted on).
	 * NULL: not watched.
	 */
	void (*watch_data)(void *ctx, int cpu, const void *subbuf, size_t len);
	bool (*watch_tick)(void *ctx, bool final);
	int limit_signal;
	double keep_seconds;		/* > 0: write only each CPU's last seconds (watch -o) */
	/* Notices to show the user (one line each, no newline); may be NULL. */
	void (*notice)(void *ctx, const char *line);
	/* Progress (see enum kmt_record_phase); may be NULL. */
	void (*progress)(void *ctx, const struct kmt_record_progress *p);
	void *ctx;
};

#define KMT_RECORD_DEFAULT_BUFFER_KB	8192

/* What one CPU's buffer gave. */
struct kmt_record_cpu {
	unsigned long long events;
	unsigned long long bytes;
	unsigned long long lost;
};

/* Why a recording stopped. */
enum kmt_record_stop {
	KMT_STOP_COMMAND,	/* the command ended */
	KMT_STOP_DURATION,	/* -d passed */
	KMT_STOP_SIGNAL,	/* SIGINT, SIGTERM or SIGHUP */
	KMT_STOP_PIDS_GONE,	/* every -p process exited */
	KMT_STOP_MAX_SIZE,	/* the raw data reached max_size */
	KMT_STOP_LIMIT,		/* watch_tick said so (kmtrace watch: a limit passed) */
	KMT_STOP_EXTRACTED,	/* extract: the instance's buffers were emptied */
};

struct kmt_record_result {
	int ncpus;
	struct kmt_record_cpu *cpus;	/* ncpus entries; free() it */
	int command_status;		/* wait status of the command, -1 if none */
	int stop_signal;		/* signal that stopped the recording, or 0 */
	enum kmt_record_stop stopped_by;
	int exec_errno;			/* the command could not be run: why */
	unsigned long long fault_samples;	/* perf fault samples stored */
	unsigned long long left_in_buffers;	/* events not taken out (--max-size) */
	unsigned long long page_owner_blocks;	/* page_owner at start: blocks kept */
	unsigned long long page_owner_pages;	/* ... and their pages */
};

/*
 * Record per @o into @o->output. The instance kmtrace-<pid> is created,
 * used and removed on every path; instances of kmtrace recorders that are
 * gone are removed first (a notice names them). With @o->extract the named
 * instance's buffers are read out instead, and the instance is left as it
 * was but for the data taken. Returns 0; -1 with @err filled when it could
 * not be done; -2 with @err filled when the request itself is wrong (no
 * such -p process or instance, tracing still on in the instance to
 * extract, an output path that must not be written, an empty command).
 */
int kmt_record(const struct kmt_record_opts *o, struct kmt_record_result *res,
	       struct kmt_error *err);

#endif /* KMTRACE_RECORD_H */
