/* SPDX-License-Identifier: LGPL-2.1 */
/* The fault analysis: state shared by fault.c and fault_report.c. */
#ifndef KMT_FAULT_H
#define KMT_FAULT_H

#include <stdbool.h>
#include <stdint.h>
#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "exited.h"
#include "filter.h"
#include "common/hashmap.h"
#include "latency.h"
#include "vmmap.h"

/* What became of a fault. */
enum fault_outcome {
	FAULT_MINOR,
	FAULT_MAJOR,
	FAULT_OOM,
	FAULT_SIGBUS,
	FAULT_SIGSEGV,
	FAULT_HWPOISON,
	FAULT_UNRESOLVED,	/* no accounted return: an error, or never handled */
	FAULT_OUTCOME_NR
};

/* Classes from the x86 error code. */
enum fault_class {
	FC_USER, FC_KERNEL, FC_READ, FC_WRITE, FC_EXEC, FC_NOT_PRESENT, FC_PROTECTION,
	FC_RESERVED, FC_PKEY, FC_SHADOW_STACK, FC_SGX, FC_UNKNOWN,
	FC_NR
};

/* Where minor/major come from. */
enum fault_source {
	FS_NONE,	/* not recorded: outcomes unknown */
	FS_KPROBE,	/* kmtrace:fault_return, handle_mm_fault's vm_fault_t */
	FS_PERF,	/* perf minor-faults/major-faults samples */
};

struct fault_counts {
	uint64_t faults;
	uint64_t cls[FC_NR];
	uint64_t out[FAULT_OUTCOME_NR];
	uint64_t retried;
	uint64_t lat_n, lat_sum, lat_max;
};

struct fault_proc {
	int pid;
	uint32_t seq;		/* order of making, from 1; 0: a row given back */
	bool exited;		/* its task's exit event was seen */
	char *comm;
	struct fault_counts c;
};

struct fault_ip {
	uint64_t ip;
	struct fault_counts c;
};

struct fault_region {
	int pid;
	uint64_t start, end;
	const char *kind;
	int fd;
	unsigned int prot;
	struct fault_counts c;
};

/* A fault taken and not yet returned, per task. */
struct fault_pending {
	bool active;
	bool retried;
	uint64_t ts;
	uint32_t proc, ip, interval;
	int32_t region;
};

/* An interval of --timeline in which faults were taken (only those are kept). */
struct fault_interval {
	uint64_t index;		/* from the first event, in intervals */
	uint64_t faults, minor, major, other;
};

#define FAULT_TOP_DEFAULT	20

struct fault_state {
	struct kmt_filter filter;
	bool want_regions, want_ip;
	uint64_t bucket;		/* --regions bucket size */
	uint64_t interval_ns;		/* --timeline */
	long long lines;

	struct tep_handle *tep;
	struct kmt_reader *reader;	/* names of tasks */
	enum fault_source source;
	const char *source_text;
	uint64_t perf_lost;
	bool x86;
	char machine[32];		/* the recorded kernel's, from its uname */
	char remark[320];

	struct fault_counts total;
	uint64_t without_event[2];	/* accounted returns with no fault event: minor, major */

	struct kmt_hashmap proc_index, ip_index, region_index, mapping_index, pending_index;
	struct fault_proc *procs;
	uint32_t nprocs, procs_cap;
	uint32_t procs_made;		/* the last row's seq */
	struct kmt_exited exited;	/* rows of exited tasks that may still be shown */
	struct fault_ip *ips;
	uint32_t nips, ips_cap;
	struct fault_region *regions;
	uint32_t nregions, regions_cap;
	struct fault_pending *pending;
	uint32_t npending, pending_cap;
	struct fault_interval *intervals;
	uint32_t nintervals, intervals_cap;
	struct kmt_latencies lat;	/* per process (row: its seq) */
	struct kmt_reader *sample_reader;	/* FS_PERF: the samples' reader, in time order */
	struct kmt_fault_sample sample;	/* the next one, if have_sample */
	bool have_sample;
	size_t nsamples;
	struct vmmap vm;
	uint64_t first_ts, last_ts;
	bool started;			/* first_ts is set */

	/* Ground truth: the command's rusage and which tasks are its own. */
	bool have_rusage;
	int rusage_pid;
	long long ru_minflt, ru_majflt, ru_maxrss_kb, before_minflt, before_majflt;
	struct kmt_hashmap command_tasks;	/* pid -> 1 */
	uint64_t command_out[2];		/* accounted minor, major of those tasks */
	uint64_t command_execs;			/* their execve()s the trace saw */
};

/*
 * The order of the process table: most faults first, then the row made
 * first; a row given back last. @st: the struct fault_state.
 */
int kmt_fault_proc_rank(uint32_t a, uint32_t b, void *st);

/* Write the fault report of @st. 0 or -1. */
int kmt_fault_report(struct fault_state *st, const struct kmt_session *s, struct kmt_output *out);

/* Names of the outcomes and classes, as JSON keys. */
extern const char *const kmt_fault_outcome_keys[FAULT_OUTCOME_NR];
extern const char *const kmt_fault_class_keys[FC_NR];

#endif /* KMT_FAULT_H */
