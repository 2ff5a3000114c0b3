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

/* Free what kmt_event_list_resolve() put in @l. */
void kmt_event_list_free(struct kmt_event_list *l);

#endif /* KMT_RECORD_LOCAL_H */
