/* SPDX-License-Identifier: LGPL-2.1 */
/* Pieces of kmtrace record shared between its files; private to src/. */
#ifndef KMT_RECORD_LOCAL_H
#define KMT_RECORD_LOCAL_H

#include <kmtrace/reader.h>

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

struct kmt_fault_sampler;

/* Open (disabled) minor/major fault sampling on @ncpus CPUs; NULL with errno. */
struct kmt_fault_sampler *kmt_fault_sampler_open(int ncpus);

/* Start the reader thread and enable sampling; 0, or -1 with errno. */
int kmt_fault_sampler_start(struct kmt_fault_sampler *s);

/* Disable sampling, join the reader and take what is left; NULL is ignored. */
void kmt_fault_sampler_stop(struct kmt_fault_sampler *s);

/*
 * The samples in time order, one "TIME TID CPU ADDR m|M" line each
 * (ADDR in hex, M for major), and in @lost the samples the rings lost.
 * Returns a malloc'ed text, or NULL with errno.
 */
char *kmt_fault_sampler_text(struct kmt_fault_sampler *s, unsigned long long *lost);

/* Stop if needed, close everything and free @s; NULL is ignored. */
void kmt_fault_sampler_free(struct kmt_fault_sampler *s);

#endif /* KMT_RECORD_LOCAL_H */
