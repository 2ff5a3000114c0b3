/* SPDX-License-Identifier: LGPL-2.1 */
/* The file mappings of a process, from /proc/PID/maps. */
#ifndef KMT_PROCMAPS_H
#define KMT_PROCMAPS_H

#include <stdbool.h>

/* One mapping of a file: its addresses, file offset, and whether it runs. */
struct kmt_mapping {
	unsigned long long start, end, pgoff;
	bool exec;
	const char *path;	/* valid during the call only */
};

/*
 * Call @fn(@ctx, mapping) for each file mapping of process @pid (0: this
 * one), in address order, until it returns true. False when the maps could
 * not be read.
 */
bool kmt_for_each_mapping(int pid, bool (*fn)(void *ctx, const struct kmt_mapping *m),
			  void *ctx);

#endif /* KMT_PROCMAPS_H */
