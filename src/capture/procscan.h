/* SPDX-License-Identifier: LGPL-2.1 */
/* What /proc says of the running tasks, into a task table (common/proctable.h). */
#ifndef KMT_PROCSCAN_H
#define KMT_PROCSCAN_H

#include <stdbool.h>
#include "common/proctable.h"

/*
 * Add the tasks under /proc to @t: pid, tgid, ppid, comm, start time,
 * executable, command line, cgroup and container id. With @refresh every
 * task, as it is now, replaces what @t knew; else only the processes (and
 * their threads) @t does not hold yet, or that ran another executable
 * since, are read. Tasks that go away while read are left out. With
 * @files, the files each process read has mapped (/proc/PID/maps) or open
 * (/proc/PID/fd) go there. 0, or -1 when out of memory.
 */
int kmt_procscan(struct kmt_proctable *t, struct kmt_filetable *files, bool refresh);

#endif
