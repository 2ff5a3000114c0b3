/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * trace.dat version 6 (trace-cmd.dat.v6(5)): what kmtrace writes and reads.
 */
#ifndef KMT_TRACEDAT_H
#define KMT_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kmtrace/error.h>

#define KMT_TD_MAGIC		"\027\010\104tracing"
#define KMT_TD_MAGIC_LEN	10

/* Option ids trace-cmd defines, and the ones kmtrace adds. */
enum kmt_td_option_id {
	KMT_TD_OPT_DONE = 0,
	KMT_TD_OPT_CPUSTAT = 2,
	KMT_TD_OPT_TRACECLOCK = 4,
	KMT_TD_OPT_UNAME = 5,
	KMT_TD_OPT_CPUCOUNT = 8,
	KMT_TD_OPT_VERSION = 9,
	KMT_TD_OPT_KMT_VMSTAT_START = 0x4b4d,	/* "KM": /proc/vmstat at start */
	KMT_TD_OPT_KMT_VMSTAT_STOP = 0x4b4e,	/* /proc/vmstat at stop */
	KMT_TD_OPT_KMT_CPU_NODES = 0x4b4f,	/* "CPU NODE" lines */
	KMT_TD_OPT_KMT_SCOPE = 0x4b50,		/* "system-wide" or "filtered: ..." */
	KMT_TD_OPT_KMT_FAULT_SOURCE = 0x4b51,	/* "kprobe ...", "perf lost=N ..." or "none ..." */
	KMT_TD_OPT_KMT_FAULT_SAMPLES = 0x4b52,	/* "TIME TID CPU ADDR m|M" lines */
	KMT_TD_OPT_KMT_RUSAGE = 0x4b53,		/* "pid=N minflt=N ..." of the command */
	KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN = 0x4b54,	/* struct kmt_td_fault_sample array */
	KMT_TD_OPT_KMT_KERNEL = 0x4b55,		/* "text 0xADDR" (_text), "build-id HEX" lines */
	KMT_TD_OPT_KMT_SLAB_ALIASES = 0x4b56,	/* "NAME ID" lines: merged slab caches */
	KMT_TD_OPT_KMT_STACKS = 0x4b57,		/* "SYSTEM:EVENT" words: events with stacks */
	KMT_TD_OPT_KMT_USER_MAPS = 0x4b58,	/* "task TID TGID", "map TGID START END PGOFF PATH",
						   "buildid HEX PATH" */
	KMT_TD_OPT_KMT_PROCESSES = 0x4b59,	/* the tasks /proc showed: common/proctable.h */
	KMT_TD_OPT_KMT_FILES = 0x4b5a,		/* "DEV INO PATH": files they mapped or had open */
	KMT_TD_OPT_KMT_SLABINFO_START = 0x4b5b,	/* /proc/slabinfo at start */
	KMT_TD_OPT_KMT_SLABINFO_STOP = 0x4b5c,	/* /proc/slabinfo at stop */
	KMT_TD_OPT_KMT_BOOT_ID = 0x4b5d,	/* /proc/sys/kernel/random/boot_id */
	KMT_TD_OPT_KMT_PAGE_OWNER = 0x4b5e,	/* debugfs page_owner at start, compact:
						   "page_owner 1 PATH", then "stack ID"
						   and its frames (" FRAME" lines) before
						   its first use, "page PFN ORDER GFP PID
						   TGID TS_NS STACK-ID COMM" per block */
};

/*
 * An option: @size bytes at @data, or, when @data is NULL, the first @size
 * bytes of the file @src_fd (read with pread from offset 0).
 */
struct kmt_td_option {
	unsigned short id;
	const void *data;
	unsigned int size;
	int src_fd;
};

/* An option of @size bytes at @data. */
#define KMT_TD_OPT(id, data, size)	{ (id), (data), (size), -1 }

/*
 * KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN: a u32 KMT_TD_FAULT_SAMPLES_VERSION and a
 * u32 record size, then the perf minor/major fault samples in time order,
 * in the file's byte order.
 */
#define KMT_TD_FAULT_SAMPLES_VERSION	1
struct kmt_td_fault_sample {
	uint64_t time;
	uint64_t addr;
	uint32_t tid;
	uint16_t cpu;
	uint8_t major;
	uint8_t pad;
};

/* One event format file; @system "ftrace" formats go in their own section. */
struct kmt_td_format {
	const char *system;
	const char *text;
	size_t len;
};

/* A text blob of the header: pointer and length (need not be NUL-terminated). */
struct kmt_td_blob {
	const char *data;	/* NULL: @len bytes from the start of @src_fd */
	size_t len;
	int src_fd;
};

/* Everything of a trace.dat but the per-CPU data. */
struct kmt_tracedat_meta {
	unsigned int page_size;
	int long_size;
	struct kmt_td_blob header_page;
	struct kmt_td_blob header_event;
	const struct kmt_td_format *formats;
	int nformats;
	struct kmt_td_blob kallsyms;
	struct kmt_td_blob printk;
	struct kmt_td_blob cmdlines;
	const struct kmt_td_option *options;
	int noptions;
};

/* What one CPU's data held, counted while it was copied. */
struct kmt_td_cpu_count {
	unsigned long long events;
	unsigned long long bytes;
	unsigned long long missed;		/* sub-buffer missed-event marks */
	unsigned long long bad_subbuffers;	/* commit past their end: not counted */
};

/* How kmt_tracedat_write() moves the per-CPU data; every member may be 0. */
struct kmt_td_copy {
	void (*progress)(void *ctx, uint64_t done, uint64_t total);	/* bytes */
	bool (*cancelled)(void *ctx);		/* true: stop, fail with ECANCELED */
	void *ctx;
	bool punch;				/* free the inputs' blocks once copied */
	struct kmt_td_cpu_count *counts;	/* one per CPU, filled */
	const uint64_t *starts;			/* per CPU: bytes left out at the front */
};

/*
 * Write a version 6 trace.dat to @out_fd front to back (a pipe will do):
 * @meta, then the data of @ncpus CPUs read from @cpu_fds (each from offset
 * 0, or its @copy->starts, to its end), each at a page-aligned offset, as
 * @copy (may be NULL) says. Returns 0, or -1 with @err filled and errno set.
 */
int kmt_tracedat_write(int out_fd, const char *out_name, const struct kmt_tracedat_meta *meta,
		       int ncpus, const int *cpu_fds, const struct kmt_td_copy *copy,
		       struct kmt_error *err);

#endif /* KMT_TRACEDAT_H */
