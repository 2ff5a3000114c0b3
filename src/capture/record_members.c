// SPDX-License-Identifier: LGPL-2.1
/*
 * record --cgroup, --container, --comm, --exe: the processes that match,
 * found in the cgroup's procs (v1 or v2) or in /proc, put in set_event_pid
 * with every thread; event-fork follows their children. The search runs
 * again at every tick, so processes that join later are followed too.
 * Until the first one is there, tracing stays off: nothing else is recorded.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include "record_local.h"
#include "common/hashmap.h"
#include "common/util.h"

#define CGROUP_ROOT	"/sys/fs/cgroup"
#define MAX_WALK_DEPTH	8

struct kmt_members {
	char procs[PATH_MAX + 32];		/* the cgroup's cgroup.procs, or "" */
	struct kmt_hashmap seen;	/* pid -> 1 */
	size_t found;
};

static bool has_procs(const char *dir)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return access(path, R_OK) == 0;
}

/* PATH as given, or under the cgroup roots: v2 (unified) first, then v1's hierarchies. */
static bool find_cgroup(const char *path, char *dir, size_t len)
{
	static const char *const roots[] = { CGROUP_ROOT, CGROUP_ROOT "/unified",
					     CGROUP_ROOT "/memory", CGROUP_ROOT "/pids",
					     CGROUP_ROOT "/cpu", CGROUP_ROOT "/systemd" };
	size_t i;

	if (path[0] == '/' && has_procs(path)) {
		snprintf(dir, len, "%s", path);
		return true;
	}
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(dir, len, "%s/%s", roots[i], path);
		if (has_procs(dir))
			return true;
	}
	return false;
}

/* A directory under @dir whose name holds @name (a container's id or name). */
static bool find_named(const char *dir, const char *name, int depth, char *out, size_t len)
{
	DIR *d = depth < MAX_WALK_DEPTH ? opendir(dir) : NULL;
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (strstr(e->d_name, name) && has_procs(sub)) {
			snprintf(out, len, "%s", sub);
			found = true;
		} else {
			found = find_named(sub, name, depth + 1, out, len);
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* Does process @pid match --comm and --exe (those given)? */
static bool matches(const struct kmt_record_opts *o, int pid)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;
	FILE *fp;

	if (o->comm) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		fp = fopen(path, "re");
		if (!fp || !fgets(buf, sizeof(buf), fp)) {
			if (fp)
				fclose(fp);
			return false;
		}
		fclose(fp);
		buf[strcspn(buf, "\n")] = '\0';
		if (strcmp(buf, o->comm))
			return false;
	}
	if (o->exe) {
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		if (n < 0)
			return false;
		buf[n] = '\0';
		if (strcmp(buf, o->exe))
			return false;
	}
	return true;
}

/* Every thread of @pid into set_event_pid. */
static int add_process(struct recorder *r, int pid)
{
	char dir[64], buf[4096];
	struct dirent *e;
	size_t n = 0;
	DIR *d;
	int ret = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	if (!d)
		return 0;	/* gone already */
	while ((e = readdir(d)) && n < sizeof(buf) - 16)
		if (isdigit((unsigned char)e->d_name[0]))
			n += snprintf(buf + n, sizeof(buf) - n, "%s ", e->d_name);
	closedir(d);
	if (n && tracefs_instance_file_append(r->inst, "set_event_pid", buf) < 0)
		ret = -1;
	return ret;
}

static int take_pid(struct recorder *r, int pid)
{
	struct kmt_members *m = r->members;
	uint64_t v;

	if (pid <= 0 || kmt_hashmap_get(&m->seen, pid, &v) || !matches(r->o, pid))
		return 0;
	if (kmt_hashmap_put(&m->seen, pid, 1) || add_process(r, pid))
		return -1;
	m->found++;
	return 0;
}

static int scan_cgroup(struct recorder *r)
{
	FILE *fp = fopen(r->members->procs, "re");
	int pid, ret = 0;

	if (!fp)
		return 0;	/* removed: those recorded so far stay */
	while (!ret && fscanf(fp, "%d", &pid) == 1)
		ret = take_pid(r, pid);
	fclose(fp);
	return ret;
}

static int scan_proc(struct recorder *r)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int ret = 0;

	if (!d)
		return -1;
	while (!ret && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			ret = take_pid(r, atoi(e->d_name));
	closedir(d);
	return ret;
}

/* Take the matching processes there are now: in the cgroup, else in /proc. */
static int scan(struct recorder *r)
{
	return r->members->procs[0] ? scan_cgroup(r) : scan_proc(r);
}

int kmt_members_poll(struct recorder *r)
{
	size_t before;

	if (!r->members)
		return 0;
	before = r->members->found;
	if (scan(r))
		return kmt_record_fail(r, "cannot follow the chosen processes");
	if (!before && r->members->found && tracefs_trace_on(r->inst))
		return kmt_record_fail(r, "cannot turn tracing on");
	return 0;
}

bool kmt_members_waiting(const struct recorder *r)
{
	return r->members && !r->members->found;
}

int kmt_members_setup(struct recorder *r)
{
	const struct kmt_record_opts *o = r->o;
	char dir[PATH_MAX];

	if (!o->cgroup && !o->container && !o->comm && !o->exe)
		return 0;
	r->members = calloc(1, sizeof(*r->members));
	if (!r->members || kmt_hashmap_init(&r->members->seen))
		return kmt_record_fail(r, "out of memory");
	if (o->cgroup && !find_cgroup(o->cgroup, dir, sizeof(dir)))
		return kmt_record_fail(r, "--cgroup %s: no such cgroup (as a path, or under %s "
				       "and its v1 hierarchies)", o->cgroup, CGROUP_ROOT);
	if (o->container && !find_named(CGROUP_ROOT, o->container, 0, dir, sizeof(dir)))
		return kmt_record_fail(r, "--container %s: no cgroup under %s names it",
				       o->container, CGROUP_ROOT);
	if (o->cgroup || o->container)
		snprintf(r->members->procs, sizeof(r->members->procs), "%s/cgroup.procs", dir);
	if (tracefs_option_enable(r->inst, TRACEFS_OPTION_EVENT_FORK))
		return kmt_record_fail(r, "cannot enable the event-fork option");
	if (scan(r))
		return kmt_record_fail(r, "cannot follow the chosen processes");
	if (!r->members->found && o->notice)
		o->notice(o->ctx, "no process matches yet: tracing starts with the first one");
	return 0;
}

void kmt_members_free(struct recorder *r)
{
	if (!r->members)
		return;
	kmt_hashmap_free(&r->members->seen);
	free(r->members);
	r->members = NULL;
}
