// SPDX-License-Identifier: LGPL-2.1
/*
 * record --user: where the traced processes have their code, so that the
 * callers the uprobes give can be named later (off-box too). A thread reads
 * the instance's set_event_pid (the traced threads, forks included) every
 * few milliseconds, the thread group of each new thread, and the
 * executable file mappings of each process; every distinct one is kept,
 * with the GNU build-id of each file.
 * A process that starts and ends between two looks is missed: its callers
 * stay addresses.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracefs/tracefs.h>

#include "record_local.h"
#include "container/elfsyms.h"
#include "common/hashmap.h"
#include "common/procmaps.h"
#include "common/util.h"

#define POLL_MS		5
#define MAX_TEXT	(64u << 20)	/* a bound on what is kept */

struct kmt_umaps {
	struct tracefs_instance *inst;
	pthread_t thread;
	atomic_bool stop;
	struct kmt_hashmap tgid_of;	/* tid -> tgid */
	struct kmt_hashmap seen;	/* hash of a "map" line -> 1 */
	char *text;			/* the lines so far */
	size_t len, cap;
	bool full;
};

static void append(struct kmt_umaps *m, const char *line)
{
	size_t n = strlen(line);
	char *t;

	if (m->full || m->len + n + 1 > MAX_TEXT) {
		m->full = true;
		return;
	}
	if (m->len + n + 1 > m->cap) {
		size_t cap = (m->len + n + 1) * 2;

		if (!(t = realloc(m->text, cap)))
			return;
		m->text = t;
		m->cap = cap;
	}
	memcpy(m->text + m->len, line, n + 1);
	m->len += n;
}

/* The thread group of @tid, from /proc (once per thread); 0 if it is gone. */
static int tgid_of(struct kmt_umaps *m, int tid)
{
	char path[64], *status, *p, line[64];
	uint64_t v;
	int tgid = 0;

	if (kmt_hashmap_get(&m->tgid_of, tid, &v))
		return (int)v;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	status = kmt_read_text_file(path, &(size_t){ 0 });
	p = status ? strstr(status, "\nTgid:") : NULL;
	if (p)
		tgid = atoi(p + 6);
	free(status);
	if (tgid <= 0)
		return 0;
	kmt_hashmap_put(&m->tgid_of, tid, tgid);
	snprintf(line, sizeof(line), "task %d %d\n", tid, tgid);
	append(m, line);
	return tgid;
}

/* A process whose mappings are being taken. */
struct taking {
	struct kmt_umaps *m;
	int tgid;
};

/*
 * "buildid HEX PATH": the file @path as it is now, once per file, so that a
 * report can tell a changed one.
 */
static void take_build_id(struct kmt_umaps *m, const char *path)
{
	char line[4352], hex[KMT_BUILD_ID_HEX];
	uint64_t h;

	snprintf(line, sizeof(line), "buildid %s", path);
	h = kmt_hash_bytes(line, strlen(line));
	if (kmt_hashmap_get(&m->seen, h, &(uint64_t){ 0 }))
		return;
	kmt_hashmap_put(&m->seen, h, 1);
	if (kmt_elf_build_id(path, hex))
		return;
	snprintf(line, sizeof(line), "buildid %s %s\n", hex, path);
	append(m, line);
}

/* Keep @map when it is executable and not kept yet. */
static bool take_mapping(void *ctx, const struct kmt_mapping *map)
{
	struct taking *t = ctx;
	char out[4352];
	uint64_t h;

	if (!map->exec)
		return false;
	snprintf(out, sizeof(out), "map %d %llx %llx %llx %s\n", t->tgid, map->start, map->end,
		 map->pgoff, map->path);
	h = kmt_hash_bytes(out, strlen(out));
	if (kmt_hashmap_get(&t->m->seen, h, &(uint64_t){ 0 }))
		return false;
	kmt_hashmap_put(&t->m->seen, h, 1);
	append(t->m, out);
	take_build_id(t->m, map->path);
	return false;
}

/* Keep each executable file mapping of @tgid not kept yet. */
static void take_maps(struct kmt_umaps *m, int tgid)
{
	struct taking t = { m, tgid };

	kmt_for_each_mapping(tgid, take_mapping, &t);
}

/* One look: every traced thread's process. */
static void look(struct kmt_umaps *m)
{
	char *pids = tracefs_instance_file_read(m->inst, "set_event_pid", NULL), *p, *end;
	struct kmt_hashmap done;

	if (!pids || kmt_hashmap_init(&done)) {
		free(pids);
		return;
	}
	for (p = pids; *p; p = end) {
		long tid = strtol(p, &end, 10);
		int tgid;

		if (end == p)
			break;
		tgid = tid > 0 ? tgid_of(m, (int)tid) : 0;
		if (tgid && !kmt_hashmap_get(&done, tgid, &(uint64_t){ 0 })) {
			kmt_hashmap_put(&done, tgid, 1);
			take_maps(m, tgid);
		}
	}
	kmt_hashmap_free(&done);
	free(pids);
}

static void *poll_maps(void *arg)
{
	struct kmt_umaps *m = arg;
	struct timespec pause = { 0, POLL_MS * 1000000L };

	while (!atomic_load(&m->stop)) {
		look(m);
		nanosleep(&pause, NULL);
	}
	look(m);	/* what is still there at the end */
	return NULL;
}

struct kmt_umaps *kmt_umaps_start(struct tracefs_instance *inst)
{
	struct kmt_umaps *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->inst = inst;
	if (kmt_hashmap_init(&m->tgid_of) || kmt_hashmap_init(&m->seen) ||
	    pthread_create(&m->thread, NULL, poll_maps, m)) {
		kmt_hashmap_free(&m->tgid_of);
		kmt_hashmap_free(&m->seen);
		free(m);
		return NULL;
	}
	return m;
}

char *kmt_umaps_stop(struct kmt_umaps *m)
{
	char *text;

	if (!m)
		return NULL;
	atomic_store(&m->stop, true);
	pthread_join(m->thread, NULL);
	text = m->text;
	kmt_hashmap_free(&m->tgid_of);
	kmt_hashmap_free(&m->seen);
	free(m);
	return text;
}
