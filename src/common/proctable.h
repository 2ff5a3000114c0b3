/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A table of tasks (struct kmt_process by pid) that owns its texts, with
 * the text form a recording carries: one task per line,
 *   PID TGID PPID START_NS SEEN_NS\tCOMM\tEXE\tCGROUP\tCONTAINER\tCMDLINE
 * texts escaped as kmt_escape() does ("-" for unknown, "\-" for a dash).
 */
#ifndef KMT_PROCTABLE_H
#define KMT_PROCTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <kmtrace/process.h>

struct kmt_proctable;

/* An empty table, or NULL when out of memory. */
struct kmt_proctable *kmt_proctable_new(void);

/* Free @t and its texts; NULL is ignored. */
void kmt_proctable_free(struct kmt_proctable *t);

/* Task @pid, or NULL; valid until @t changes. */
const struct kmt_process *kmt_proctable_find(const struct kmt_proctable *t, int pid);

/* kmt_proctable_find() as a kmt_process_lookup with @ctx the table. */
const struct kmt_process *kmt_proctable_lookup(void *ctx, int pid);

/*
 * Add task @p->pid, or update it: each known field of @p replaces the
 * table's when @replace, else fills only what the table does not know.
 * Returns 0, or -1 when out of memory.
 */
int kmt_proctable_merge(struct kmt_proctable *t, const struct kmt_process *p, bool replace);

/*
 * Task @pid ran execve() of @exe at @ts (the recording's clock): its
 * executable, and its command line is no longer known where the executable
 * changed; nothing when /proc showed the task after @ts. 0, or -1 when out
 * of memory.
 */
int kmt_proctable_exec(struct kmt_proctable *t, int pid, const char *exe, long long ts);

/* Number of tasks. */
size_t kmt_proctable_count(const struct kmt_proctable *t);

/* Write @t in its text form. Returns 0, or -1 on a write error. */
int kmt_proctable_write(const struct kmt_proctable *t, FILE *fp);

/*
 * Add the tasks of text form @text (@len bytes) to @t; lines that do not
 * parse are skipped. Returns how many were, or -1 when out of memory.
 */
long kmt_proctable_parse(struct kmt_proctable *t, const char *text, size_t len);

/*
 * Files by device and inode (the kernel's dev_t: major << 20 | minor), with
 * the path a process had them open or mapped at; text form "DEV INO PATH"
 * per line, the path escaped as the task table's texts.
 */
struct kmt_filetable;

/* An empty file table, or NULL when out of memory. */
struct kmt_filetable *kmt_filetable_new(void);

/* Free @f; NULL is ignored. */
void kmt_filetable_free(struct kmt_filetable *f);

/* Name file (@dev, @ino) @path unless it has a name. 0, or -1 when out of memory. */
int kmt_filetable_add(struct kmt_filetable *f, unsigned long long dev, unsigned long long ino,
		      const char *path);

/* The path of file (@dev, @ino), or NULL. */
const char *kmt_filetable_find(const struct kmt_filetable *f, unsigned long long dev,
			       unsigned long long ino);

/* Write @f in its text form. 0, or -1 on a write error. */
int kmt_filetable_write(const struct kmt_filetable *f, FILE *fp);

/* Add the files of text form @text (@len bytes); lines that do not parse are skipped. */
int kmt_filetable_parse(struct kmt_filetable *f, const char *text, size_t len);

/*
 * The container id in cgroup path @cgroup, the last run of 64 hex digits in
 * it (docker, containerd, CRI-O and podman name their cgroups so), into
 * @buf (at least 65 bytes). false when there is none.
 */
bool kmt_container_id(const char *cgroup, char *buf, size_t len);

#endif
