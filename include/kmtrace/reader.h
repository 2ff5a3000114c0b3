/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: readers hand out the event formats and per-CPU streams of raw
 * records, whatever the file format.
 */
#ifndef KMTRACE_READER_H
#define KMTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <kmtrace/cpustats.h>
#include <kmtrace/error.h>

struct tep_handle;
struct kmt_proctable;

/* One raw record: the event payload as the kernel wrote it. */
struct kmt_record {
	unsigned long long ts;
	const void *data;
	int size;
	int cpu;
	const unsigned long long *callchain;	/* perf.data -g: ips, innermost first */
	int callchain_nr;
	bool kept;	/* data and callchain stay valid until the reader is closed */
	const char *text;	/* kmt_reader_keep_text(): the fields as the text wrote them */
	const char *text_event;	/* ... and the event's name as it did */
	const char *comm;	/* the task's name at this record (text, perf.data), or NULL:
				   the tep's for its pid; valid as data is, or (perf.data)
				   until the reader is closed */
};

/* Texts a recording may carry. */
enum kmt_reader_text {
	KMT_TEXT_UNAME,
	KMT_TEXT_VMSTAT_START,
	KMT_TEXT_VMSTAT_STOP,
	KMT_TEXT_TRACE_CLOCK,
	KMT_TEXT_CPU_NODES,	/* "CPU NODE" per line */
	KMT_TEXT_SCOPE,		/* kmtrace record: "system-wide" or "filtered: WHY" */
	KMT_TEXT_FAULT_SOURCE,	/* "kprobe ...", "perf lost=N ..." or "none (WHY)" */
	KMT_TEXT_RUSAGE,	/* the command's: "pid=N minflt=N majflt=N maxrss_kb=N ..." */
	KMT_TEXT_SYMBOLS,	/* where kernel symbols came from, when not the recording */
	KMT_TEXT_UNPARSED,	/* text input: "N" lines not parsed, then the first few */
	KMT_TEXT_SLAB_ALIASES,	/* kmtrace record: "NAME ID" per merged slab cache name */
	KMT_TEXT_STACKS,	/* kmtrace record -g: "SYSTEM:EVENT" words, events with stacks */
	KMT_TEXT_USER_MAPS,	/* record --user: "task TID TGID" and "map TGID START END PGOFF
				   PATH" lines of the traced processes' executable mappings,
				   "buildid HEX PATH" of their files */
	KMT_TEXT_PROCESSES,	/* kmtrace record: the tasks /proc showed (see
				   kmt_reader_processes()) */
	KMT_TEXT_FILES,		/* kmtrace record: "DEV INO PATH" of the files they
				   had mapped or open (dev as the kernel's dev_t) */
	KMT_TEXT_FORMATS_HINT,	/* text input: which shipped formats fit its lines better */
	KMT_TEXT_SLABINFO_START,	/* kmtrace record: /proc/slabinfo at start */
	KMT_TEXT_SLABINFO_STOP,		/* ... and at stop */
	KMT_TEXT_BOOT_ID,	/* kmtrace record: the kernel's boot id (random/boot_id) */
	KMT_TEXT_PAGE_OWNER,	/* kmtrace record: debugfs page_owner at start, compact
				   (see kmt_before_load()) */
	KMT_TEXT_NR
};

struct kmt_reader;

/*
 * Open @path read-only and detect its format (trace.dat v6 read directly,
 * other trace.dat versions through libtracecmd). On error returns NULL and
 * fills @err.
 */
struct kmt_reader *kmt_reader_open(const char *path, struct kmt_error *err);

/*
 * Like kmt_reader_open(), also for ftrace text (`cat trace`, trace_pipe,
 * `trace-cmd report`), whose fields are matched against the event formats
 * in @formats_dir (SYSTEM/EVENT/format files, as in tracefs's events/), or
 * those shipped with kmtrace when it is NULL. @path "-" is standard input.
 */
struct kmt_reader *kmt_reader_open_formats(const char *path, const char *formats_dir,
					   struct kmt_error *err);

/*
 * Text input: hand out each record with its fields as the line wrote them
 * (kmt_record.text), kernel code addresses given as numbers named where the
 * symbols resolve them. Other inputs have no such text.
 */
void kmt_reader_keep_text(struct kmt_reader *r);

/*
 * Tell @r that all its records were replayed: a reader that learns tasks
 * along its records (perf.data's COMM, FORK, EXIT records) makes them
 * final, in kmt_reader_processes() and kmt_reader_comm() (each task's last
 * name). Returns 0, or -1 when out of memory.
 */
int kmt_reader_finish(struct kmt_reader *r);

/*
 * The name of task @pid as the recording knows it: after
 * kmt_reader_finish() a perf.data thread's last name, else the tep's
 * ("<...>" for none). NULL when @r or its tep is NULL. Valid while @r is open.
 */
const char *kmt_reader_comm(struct kmt_reader *r, int pid);

/*
 * Records handed out with no name for their task (kmt_record.comm NULL
 * where the reader names records: perf.data without a COMM or FORK record
 * for the thread).
 */
unsigned long long kmt_reader_unnamed(struct kmt_reader *r);

/* Close a reader and free all it holds; NULL is ignored. */
void kmt_reader_close(struct kmt_reader *r);

/* The event formats, kallsyms and cmdlines of the recording. */
struct tep_handle *kmt_reader_tep(struct kmt_reader *r);

/* Number of CPU streams. */
int kmt_reader_cpus(struct kmt_reader *r);

/*
 * True when the event formats come from the recording itself (trace.dat,
 * perf.data), which holds those of the recorded events only; false for
 * ftrace text, read through formats kmtrace ships or --formats gives.
 */
bool kmt_reader_formats_recorded(struct kmt_reader *r);

/* A short name of the input format, e.g. "trace.dat v6". */
const char *kmt_reader_format(struct kmt_reader *r);

/*
 * True when reading the streams changes nothing analyses look at (the
 * tep's comms, the symbols): the records may then be read in one thread
 * while analyses take the events in another.
 */
bool kmt_reader_reads_apart(struct kmt_reader *r);

/*
 * Kept records from @from on (the payload of the earliest, NULL: none) are
 * still read by another thread: a reader that gives the pages of its
 * mapped file back behind the reading (perf.data) keeps theirs. Whoever
 * reads the records sets it.
 */
void kmt_reader_hold(struct kmt_reader *r, const void *from);

/*
 * True when the reader hands out one stream already in time order over all
 * CPUs (perf.data, text): read it with kmt_reader_next(r, -1, ...).
 */
bool kmt_reader_merged(struct kmt_reader *r);

/*
 * Next record of @cpu's stream in time order (@cpu -1: of the merged
 * stream). Returns 1 and fills @rec, 0 at the end of the stream, -1 on
 * corrupt data (fills @err). @rec->data and @rec->callchain stay valid
 * until the next call for the same @cpu.
 */
int kmt_reader_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
		    struct kmt_error *err);

/*
 * Up to @max next records of the merged stream into @recs, all valid until
 * the next call (a reader that cannot keep several gives one at a time).
 * Returns how many, 0 at the end of the stream, -1 on corrupt data (fills
 * @err).
 */
int kmt_reader_next_batch(struct kmt_reader *r, struct kmt_record *recs, int max,
			  struct kmt_error *err);

/*
 * Up to @max next records of @cpu's stream into @recs, all valid until the
 * next call for the same @cpu (a reader that cannot keep several gives one
 * at a time). Returns how many, 0 at the end of the stream, -1 on corrupt
 * data (fills @err): the records before it come first.
 */
int kmt_reader_next_cpu_batch(struct kmt_reader *r, int cpu, struct kmt_record *recs, int max,
			      struct kmt_error *err);

/* Loss and buffer figures of @cpu (missed counts grow as streams are read). */
const struct kmt_cpu_stats *kmt_reader_cpu_stats(struct kmt_reader *r, int cpu);

/* How the kernel stacks of a trace.dat (ftrace kernel_stack records) went. */
struct kmt_stack_stats {
	bool recorded;			/* the recording can hold kernel stacks */
	unsigned long long joined;	/* stacks given to the event they follow */
	unsigned long long orphans;	/* stacks without their event (lost before them) */
	unsigned long long missing;	/* events that wanted a stack and got none */
};

/*
 * What became of the kernel stacks of @r: a trace.dat's kernel_stack
 * records are joined to their events as kmt_record.callchain; perf.data
 * stacks come with their samples and are not counted here.
 */
const struct kmt_stack_stats *kmt_reader_stack_stats(struct kmt_reader *r);

/*
 * record --user recordings: the process (thread group) of thread @tid, as
 * the recording saw it; @tid itself when it did not.
 */
int kmt_reader_tgid(struct kmt_reader *r, int tid);

/*
 * Write user-space address @addr of process @tgid as "function+0xOFF
 * [file]" into @buf, through the maps the recording carries and the ELF
 * symbols of the mapped file. Returns 1 when resolved, 0 when not (then
 * @buf holds "file+0xOFFSET" or "0xADDR"). A file whose GNU build-id is not
 * the one the recording saw is not used for names.
 */
int kmt_reader_user_symbol(struct kmt_reader *r, int tgid, unsigned long long addr,
			   char *buf, size_t len);

/*
 * How many mapped files kmt_reader_user_symbol() found changed since the
 * recording (another build-id) so far; the first one's path in *@first.
 */
size_t kmt_reader_user_files_changed(struct kmt_reader *r, const char **first);

/* A text the recording carries, or NULL. */
const char *kmt_reader_text(struct kmt_reader *r, enum kmt_reader_text what);

/* A perf minor-faults or major-faults sample kmtrace record kept. */
struct kmt_fault_sample {
	unsigned long long ts;
	unsigned long long addr;
	int tid;
	int cpu;
	bool major;
};

/*
 * How many perf fault samples the recording has (0 when none); read them
 * in time order with kmt_reader_next_fault_sample(). *@damaged is true when
 * the recording had some that could not be read: none is then given.
 */
size_t kmt_reader_fault_samples(struct kmt_reader *r, bool *damaged);

/* The next fault sample, in time order, into *@s; false after the last. */
bool kmt_reader_next_fault_sample(struct kmt_reader *r, struct kmt_fault_sample *s);

/* NUMA node of @cpu as the recording saved it, or -1 when it did not. */
int kmt_reader_cpu_node(struct kmt_reader *r, int cpu);

/*
 * Write @addr as "function+0xOFF" or "function+0xOFF [module]" into @buf
 * through the kallsyms the recording carries. Returns 1 when resolved,
 * 0 when not (then @buf holds "0xADDR").
 */
int kmt_reader_symbol(struct kmt_reader *r, unsigned long long addr, char *buf, size_t len);

/*
 * The function holding @addr (its start in @start, its module or NULL in
 * @mod) through the recording's kallsyms; NULL when not known.
 */
const char *kmt_reader_function(struct kmt_reader *r, unsigned long long addr,
				unsigned long long *start, const char **mod);

/*
 * Resolve kernel addresses through the kallsyms (or System.map) file @path
 * instead of what the recording carries or this machine's /proc/kallsyms.
 * Returns 0, or -1 with @err filled (unreadable, or no symbol in it).
 */
int kmt_reader_use_kallsyms(struct kmt_reader *r, const char *path, struct kmt_error *err);

/*
 * Resolve kernel addresses through the kernel image (vmlinux) @path: its
 * symbols, and with DWARF the file:line and inlined function of each
 * address. Returns 0; 1 when the image is another build than the
 * recording (build-id): then no names at all, and @err says why; -1 with
 * @err filled when @path is no usable ELF file.
 */
int kmt_reader_use_vmlinux(struct kmt_reader *r, const char *path, struct kmt_error *err);

/*
 * The source file (relative to the build tree) of the function @addr is
 * in, not of a function inlined there, into @buf. Returns 1, or 0 when not
 * known (no --vmlinux with DWARF, or @addr not in it).
 */
int kmt_reader_source_file(struct kmt_reader *r, unsigned long long addr, char *buf,
			   size_t len);

/* Whether source files are known (kmt_reader_use_vmlinux() with DWARF). */
bool kmt_reader_has_sources(struct kmt_reader *r);

/* How many distinct addresses symbol lookups resolved, and how many they did not. */
void kmt_reader_symbol_counts(struct kmt_reader *r, size_t *resolved, size_t *unresolved);

/*
 * Event formats of the recording kmtrace could not use as they are: in
 * *@skipped, unusable (their events count as unknown); in *@print_left_out,
 * print formats that could crash libtraceevent (those events print their
 * fields raw).
 */
void kmt_reader_format_counts(struct kmt_reader *r, unsigned int *skipped,
			      unsigned int *print_left_out);

/*
 * What the recording knows of its tasks (pid, tgid, ppid, comm, executable,
 * command line, start, cgroup, container): kmtrace record's /proc snapshot,
 * which the replay completes from sched_process_fork and _exec. Empty for
 * other recordings until then; NULL only when out of memory.
 */
struct kmt_proctable *kmt_reader_processes(struct kmt_reader *r);

#endif /* KMTRACE_READER_H */
