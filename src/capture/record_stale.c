// SPDX-License-Identifier: LGPL-2.1
/*
 * Instances left by kmtrace recorders that were killed with SIGKILL: still
 * there, often still tracing, their ring buffers pinned. A dead process
 * closed every pipe it had, so no page spliced out of its instance can
 * still sit in a pipe: removing the instance is safe. The process counts as
 * gone when no process has its pid, or when the one that has it started
 * after the instance was made (the pid was used again). Anything else is
 * left alone.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include "record_local.h"
#include "common/util.h"

#define PREFIX		"kmtrace-"
#define CLOCK_SLACK	2	/* seconds: start and creation times are coarse */

/* When process @pid started, in seconds since the epoch; 0 if unknown. */
static time_t process_start(int pid)
{
	char path[64], *stat, *p;
	unsigned long long ticks = 0, btime = 0;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	stat = kmt_read_text_file(path, &len);
	p = stat ? strrchr(stat, ')') : NULL;	/* comm may hold spaces */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
			 "%*d %*d %*d %*d %*d %llu", &ticks) != 1)
		ticks = 0;
	free(stat);
	stat = kmt_read_text_file("/proc/stat", &len);
	p = stat ? strstr(stat, "\nbtime ") : NULL;
	if (p)
		btime = strtoull(p + 7, NULL, 10);
	free(stat);
	return ticks && btime ? (time_t)(btime + ticks / sysconf(_SC_CLK_TCK)) : 0;
}

/* Is the recorder of instance @dir/@name gone? */
static bool recorder_gone(const char *dir, const char *name)
{
	char *end, path[4096 + 256];
	long pid = strtol(name + strlen(PREFIX), &end, 10);
	struct stat st;
	time_t started;

	if (pid <= 0 || *end || pid == getpid())
		return false;
	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	started = process_start(pid);
	return started && !stat(path, &st) && started > st.st_ctime + CLOCK_SLACK;
}

static bool remove_instance(const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	bool done = inst && !tracefs_instance_destroy(inst);

	tracefs_instance_free(inst);
	return done;
}

int kmt_remove_stale_instances(char *names, size_t len)
{
	char dir[4096 - 16];
	const char *top = tracefs_tracing_dir();
	struct dirent *e;
	size_t used = 0;
	int n = 0;
	DIR *d;

	if (len)
		names[0] = '\0';
	if (!top)
		return 0;
	snprintf(dir, sizeof(dir), "%s/instances", top);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) || !recorder_gone(dir, e->d_name) ||
		    !remove_instance(e->d_name))
			continue;
		if (used < len)
			used += snprintf(names + used, len - used, "%s%s", n ? " " : "", e->d_name);
		n++;
	}
	if (d)
		closedir(d);
	if (n)
		kmt_fault_probe_remove_stale();
	return n;
}
