// SPDX-License-Identifier: LGPL-2.1
/*
 * The tasks of a perf.data, from its side-band records: PERF_RECORD_COMM
 * names a thread (an exec renames it: the name follows time), FORK gives a
 * new thread its process, parent, start and, until a COMM, the name its
 * parent had then; an executable mapping after the name its program;
 * NAMESPACES its pid namespace; CGROUP records name the cgroup ids samples
 * carry (--all-cgroups). Samples get the name their thread had at their
 * time; at the end the tasks go to the reader's process table. Memory
 * follows the records the file holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"
#include "common/hashmap.h"
#include "common/proctable.h"
#include "common/util.h"

/* The kernel's initial pid namespace (include/linux/proc_ns.h, PROC_PID_INIT_INO). */
#define INIT_PIDNS	0xEFFFFFFCull

/* The idle task, which no record names: perf calls it swapper. */
#define IDLE_NAME	"swapper"

int kmt_pd_tasks_init(struct pd_tasks *t)
{
	memset(t, 0, sizeof(*t));
	if (kmt_hashmap_init(&t->index) || kmt_hashmap_init(&t->string_index) ||
	    kmt_hashmap_init(&t->cgroups))
		return -1;
	return kmt_pd_tasks_comm(t, 0, 0, 0, IDLE_NAME, sizeof(IDLE_NAME), false);
}

void kmt_pd_tasks_free(struct pd_tasks *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->tasks[i].names);
	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->tasks);
	free(t->strings);
	kmt_hashmap_free(&t->index);
	kmt_hashmap_free(&t->string_index);
	kmt_hashmap_free(&t->cgroups);
}

/* One copy of the @len bytes at @s for all who name them; NULL when out of memory. */
static const char *intern(struct pd_tasks *t, const char *s, size_t len)
{
	uint64_t h = kmt_hash_bytes(s, len), i;

	for (;; h++) {
		if (!kmt_hashmap_get(&t->string_index, h, &i))
			break;
		if (strlen(t->strings[i]) == len && !memcmp(t->strings[i], s, len))
			return t->strings[i];
	}
	if (kmt_grow(&t->strings, &t->cap_strings, t->nstrings, sizeof(*t->strings)) ||
	    !(t->strings[t->nstrings] = strndup(s, len)) ||
	    kmt_hashmap_put(&t->string_index, h, t->nstrings))
		return NULL;
	return t->strings[t->nstrings++];
}

/* Thread @tid, made (all unknown) if new; NULL when out of memory. */
static struct pd_task *task(struct pd_tasks *t, uint32_t tid)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&t->index, tid, &t->tasks, &t->cap, &t->n,
				     sizeof(*t->tasks), &made);

	if (i == KMT_HASHMAP_NO_ROW)
		return NULL;
	if (made)
		t->tasks[i] = (struct pd_task){ .tid = tid, .tgid = -1, .ppid = -1,
						.start_ns = -1, .exit_ns = -1 };
	return &t->tasks[i];
}

static struct pd_task *find(const struct pd_tasks *t, uint32_t tid)
{
	uint64_t i;

	return kmt_hashmap_get(&t->index, tid, &i) ? &t->tasks[i] : NULL;
}

#define MAX_FORK_DEPTH	64	/* parents looked through for a name: a hostile file may loop */

/*
 * The name @k had at @ts: the last one given it at or before @ts, or, if it
 * was forked after that, the name its parent had at the fork (looked up
 * now: the parent's COMM may come after the child's FORK in the file, and
 * a reused tid starts afresh). NULL if none.
 */
static const char *name_at(const struct pd_tasks *t, const struct pd_task *k, uint64_t ts,
			   int depth)
{
	uint32_t i = k->nnames;
	const struct pd_task *parent;

	while (i && k->names[i - 1].ts > ts)
		i--;
	if (k->forked && ts >= k->fork_ns && (!i || k->names[i - 1].ts < k->fork_ns) &&
	    depth < MAX_FORK_DEPTH && (parent = find(t, k->parent_tid)) && parent != k)
		return name_at(t, parent, k->fork_ns, depth + 1);
	return i ? k->names[i - 1].comm : NULL;
}

#define MAX_NAMES	1024	/* per thread: real ones rename a few times; a hostile
				   file's names past it are left out */

/* Name @k @comm from @ts on, in time order among its names. 0 or -1. */
static int add_name(struct pd_task *k, uint64_t ts, const char *comm)
{
	uint32_t i = k->nnames;

	if (k->nnames == MAX_NAMES)
		return 0;
	if (kmt_grow(&k->names, &k->cap_names, k->nnames, sizeof(*k->names)))
		return -1;
	while (i && k->names[i - 1].ts > ts) {
		k->names[i] = k->names[i - 1];
		i--;
	}
	k->names[i] = (struct pd_task_name){ ts, comm };
	k->nnames++;
	return 0;
}

int kmt_pd_tasks_comm(struct pd_tasks *t, uint32_t pid, uint32_t tid, uint64_t ts,
		      const char *comm, size_t len, bool exec)
{
	struct pd_task *k = task(t, tid);
	const char *name = intern(t, comm, strnlen(comm, len));

	if (!k || !name || add_name(k, ts, name))
		return -1;
	t->changes++;
	k->tgid = pid;
	if (exec && ts > k->exec_ns)
		k->exec_ns = ts;	/* the program is the one mapped from then on */
	return 0;
}

/*
 * Records come in the order of the CPU buffers perf read, not of time: a
 * child's COMM and program mapping may come before its FORK. Only what
 * the child has not of its own comes from its parent.
 */
int kmt_pd_tasks_fork(struct pd_tasks *t, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint32_t ptid, uint64_t ts)
{
	struct pd_task *k, parent = { .exe = NULL };
	const struct pd_task *p = find(t, ptid);

	if (p)
		parent = *p;	/* task() below may move it */
	if (!(k = task(t, tid)))
		return -1;
	t->changes++;
	k->tgid = pid;
	k->ppid = pid != ppid ? (int)ppid : -1;	/* a thread: its process's parent, later */
	k->start_ns = ts;
	k->forked = true;		/* named as its parent was, until a COMM */
	k->fork_ns = ts;
	k->parent_tid = ptid;
	if (!k->exe && parent.exe) {
		k->exe = parent.exe;
		k->exe_ns = ts;
	}
	if (!k->have_cgroup) {
		k->cgroup = parent.cgroup;
		k->have_cgroup = parent.have_cgroup;
	}
	if (!k->pidns)
		k->pidns = parent.pidns;
	return 0;
}

int kmt_pd_tasks_exit(struct pd_tasks *t, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint64_t ts)
{
	struct pd_task *k = task(t, tid);

	if (!k)
		return -1;
	k->exit_ns = ts;
	if (k->tgid < 0)
		k->tgid = pid;
	if (k->ppid < 0)
		k->ppid = ppid;	/* its process's parent then: where no FORK said */
	return 0;
}

/* Is @k's program the one of its last exec (or, without one, the one it had)? */
static bool exe_current(const struct pd_task *k)
{
	return k->exe && k->exe_ns >= k->exec_ns;
}

int kmt_pd_tasks_exec_map(struct pd_tasks *t, uint32_t tid, uint64_t ts, const char *path,
			  size_t len)
{
	struct pd_task *k = find(t, tid);

	/* the program's own mapping is the first executable one after its exec */
	if (!k || path[0] != '/' || ts < k->exec_ns || (exe_current(k) && ts >= k->exe_ns))
		return 0;
	k->exe_ns = ts;
	return (k->exe = intern(t, path, strnlen(path, len))) ? 0 : -1;
}

int kmt_pd_tasks_pidns(struct pd_tasks *t, uint32_t tid, uint64_t inode)
{
	struct pd_task *k = task(t, tid);

	if (!k)
		return -1;
	k->pidns = inode;
	return 0;
}

int kmt_pd_tasks_cgroup_path(struct pd_tasks *t, uint64_t id, const char *path, size_t len)
{
	const char *p = intern(t, path, strnlen(path, len));

	return p && !kmt_hashmap_put(&t->cgroups, id, (uintptr_t)p) ? 0 : -1;
}

int kmt_pd_tasks_sample_cgroup(struct pd_tasks *t, uint32_t tid, uint64_t id)
{
	struct pd_task *k = find(t, tid);

	if (!k)
		k = task(t, tid);
	if (!k)
		return -1;
	k->cgroup = id;
	k->have_cgroup = true;
	return 0;
}

/* Until when after @ts @k's name stays what name_at() gave for @ts. */
static uint64_t name_until(const struct pd_task *k, uint64_t ts)
{
	uint32_t i = k->nnames;
	uint64_t until = UINT64_MAX;

	while (i && k->names[i - 1].ts > ts)
		until = k->names[--i].ts;
	if (k->forked && ts < k->fork_ns && k->fork_ns < until)
		until = k->fork_ns;
	return until;
}

/* The hint's name at @ts, if it is known to be the same as at the last lookup. */
static bool hinted_name(const struct pd_tasks *t, uint32_t tid, uint64_t ts, const char **name)
{
	const struct pd_name_hint *h = &t->hint_name;

	if (!t->hint_set || t->hint_tid != tid || h->changes != t->changes || ts < h->from ||
	    ts >= h->until)
		return false;
	*name = h->name;
	return true;
}

const char *kmt_pd_tasks_name(struct pd_tasks *t, uint32_t tid, uint64_t ts)
{
	const struct pd_task *k;
	const char *name;

	if (hinted_name(t, tid, ts, &name)) {
		t->unnamed += !name;
		return name;
	}
	if (t->hint_set && t->hint_tid == tid)
		k = &t->tasks[t->hint];
	else if ((k = find(t, tid))) {
		t->hint = k - t->tasks;
		t->hint_tid = tid;
		t->hint_set = true;
	}
	name = k ? name_at(t, k, ts, 0) : NULL;
	if (k)
		t->hint_name = (struct pd_name_hint){ name, ts, name_until(k, ts), t->changes };
	t->unnamed += !name;
	return name;
}

/* Where the tasks' records leave @p's process empty: from its thread group leader. */
static void from_leader(const struct pd_tasks *t, const struct pd_task *k, struct kmt_process *p)
{
	const struct pd_task *leader = k->tgid >= 0 && (uint32_t)k->tgid != k->tid ?
				       find(t, k->tgid) : NULL;

	if (!leader)
		return;
	if (p->ppid < 0)
		p->ppid = leader->ppid;
	if (!p->exe && exe_current(leader))
		p->exe = leader->exe;
}

/* The container of @k: its cgroup's runtime id, else "pidns:INODE" out of the host's. */
static const char *container_of(const struct pd_task *k, const char *cgroup, char *buf,
				size_t len)
{
	if (cgroup && kmt_container_id(cgroup, buf, len))
		return buf;
	if (k->pidns && k->pidns != INIT_PIDNS) {
		snprintf(buf, len, "pidns:%llu", (unsigned long long)k->pidns);
		return buf;
	}
	return NULL;
}

int kmt_pd_tasks_finish(const struct pd_tasks *t, struct kmt_proctable *procs)
{
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		const struct pd_task *k = &t->tasks[i];
		uint64_t path = 0;
		char buf[80];
		struct kmt_process p = {
			.pid = k->tid, .tgid = k->tgid, .ppid = k->ppid, .start_ns = k->start_ns,
			.exit_ns = k->exit_ns, .seen_ns = -1, .exe = exe_current(k) ? k->exe : NULL,
			.comm = name_at(t, k, UINT64_MAX, 0),
		};

		if (k->have_cgroup && kmt_hashmap_get(&t->cgroups, k->cgroup, &path))
			p.cgroup = (const char *)(uintptr_t)path;
		p.container = container_of(k, p.cgroup, buf, sizeof(buf));
		from_leader(t, k, &p);
		if (kmt_proctable_merge(procs, &p, false))
			return -1;
	}
	return 0;
}

const char *kmt_pd_tasks_last_name(const struct pd_tasks *t, uint32_t tid)
{
	const struct pd_task *k = find(t, tid);

	return k ? name_at(t, k, UINT64_MAX, 0) : NULL;
}
