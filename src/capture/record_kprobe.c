// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace:fault_return, a return probe on handle_mm_fault() carrying its
 * vm_fault_t: minor, major, retry and the error bits of every fault the
 * kernel handled. It is a system-wide dynamic event, so it is made under
 * kmtrace's own group and removed with the instance on every way out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tracefs/tracefs.h>

#include "record_local.h"

void kmt_fault_probe_remove_stale(void)
{
	struct tracefs_dynevent *stale;

	if (!tracefs_file_exists(NULL, "kprobe_events"))
		return;
	/* Not forced: the kernel keeps a probe some instance has enabled. */
	stale = tracefs_dynevent_get(TRACEFS_DYNEVENT_KRETPROBE, KMT_PROBE_SYSTEM,
				     KMT_PROBE_EVENT);
	if (stale) {
		tracefs_dynevent_destroy(stale, false);
		tracefs_dynevent_free(stale);
	}
}

struct tracefs_dynevent *kmt_fault_probe_create(char *why, size_t len)
{
	struct tracefs_dynevent *ev;

	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		snprintf(why, len, "the kernel has no kprobe events (CONFIG_KPROBE_EVENTS)");
		return NULL;
	}
	/* Left by a recorder that was killed with SIGKILL: it is ours to take back. */
	kmt_fault_probe_remove_stale();
	ev = tracefs_kretprobe_alloc(KMT_PROBE_SYSTEM, KMT_PROBE_EVENT, "handle_mm_fault",
				     "ret=$retval:u32", 0);
	if (!ev) {
		snprintf(why, len, "cannot describe the probe: %s", strerror(errno));
		return NULL;
	}
	errno = 0;
	if (tracefs_dynevent_create(ev)) {
		snprintf(why, len, "the kernel refused a return probe on handle_mm_fault%s%s",
			 errno ? ": " : "", errno ? strerror(errno) : "");
		tracefs_dynevent_free(ev);
		return NULL;
	}
	return ev;
}

void kmt_fault_probe_remove(struct tracefs_dynevent *ev)
{
	if (!ev)
		return;
	tracefs_dynevent_destroy(ev, true);
	tracefs_dynevent_free(ev);
}
