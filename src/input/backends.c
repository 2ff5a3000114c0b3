// SPDX-License-Identifier: LGPL-2.1
/*
 * The reader backends, in the order their probes are tried on an input's
 * first bytes. Adding one: a file with KMT_BACKEND(NAME, ...) and a line in
 * KMT_BACKENDS.
 */
#include "reader_local.h"

#define KMT_BACKENDS(X)							\
	X(perfdata)	/* perf.data, file or pipe mode */		\
	X(tracedat)	/* trace.dat version 6, read directly */	\
	X(tracecmd)	/* other trace.dat versions, through libtracecmd */ \
	X(textlog)	/* ftrace text: cat trace, trace_pipe, trace-cmd report */

#define DECLARE(name)	extern const struct kmt_backend kmt_backend_##name;
#define ENTRY(name)	&kmt_backend_##name,

KMT_BACKENDS(DECLARE)

static const struct kmt_backend *const backends[] = { KMT_BACKENDS(ENTRY) };

const struct kmt_backend *kmt_backend_find(const unsigned char *head, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (backends[i]->probe(head, len))
			return backends[i];
	return NULL;
}
