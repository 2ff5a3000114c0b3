// SPDX-License-Identifier: LGPL-2.1
/*
 * record --user: uprobes on the allocators of the C library the traced
 * program uses, made in uprobe_events as KMT_UPROBE_SYSTEM:call and
 * :return, enabled in the instance only (its pid filter keeps the traced
 * processes' calls), and removed after the instance on every way out. They
 * are system-wide objects: a recorder killed with SIGKILL leaves them, and
 * the next one takes them back once its instance is gone (the kernel
 * refuses to remove an event some instance still has enabled).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include "record_local.h"
#include "uprobes.h"
#include "container/elfsyms.h"
#include "common/procmaps.h"

#define UPROBE_EVENTS	"uprobe_events"

/* Remove kmtrace's uprobe events; false when they are there and stay (in use). */
static bool remove_events(void)
{
	static const char *const names[] = { KMT_UPROBE_CALL, KMT_UPROBE_RETURN };
	bool ok = true;
	size_t i;

	for (i = 0; i < 2; i++) {
		char line[128];

		if (!tracefs_event_file_exists(NULL, KMT_UPROBE_SYSTEM, names[i], "format"))
			continue;
		snprintf(line, sizeof(line), "-:%s/%s", KMT_UPROBE_SYSTEM, names[i]);
		if (tracefs_instance_file_append(NULL, UPROBE_EVENTS, line) < 0)
			ok = false;
	}
	return ok;
}

void kmt_uprobes_remove_stale(void)
{
	if (tracefs_file_exists(NULL, UPROBE_EVENTS))
		remove_events();
}

void kmt_uprobes_remove(struct recorder *r)
{
	if (r->uprobes)
		remove_events();
	r->uprobes = false;
}

/* Where mapped_libc() puts what it finds. */
struct libc_path {
	char *path;
	size_t len;
	bool found;
};

static bool is_libc(void *ctx, const struct kmt_mapping *m)
{
	struct libc_path *l = ctx;

	if (strncmp(strrchr(m->path, '/') + 1, "libc.so", 7) || strlen(m->path) >= l->len)
		return false;
	snprintf(l->path, l->len, "%s", m->path);
	return l->found = true;
}

/* A file /proc/@pid/maps (or ours, @pid 0) maps whose name starts with "libc.so". */
static bool mapped_libc(int pid, char *path, size_t len)
{
	struct libc_path l = { path, len, false };

	kmt_for_each_mapping(pid, is_libc, &l);
	return l.found;
}

/*
 * The file whose allocators are probed: --user-lib; a static command that
 * has them itself; else the C library the -p process maps, or the one of
 * this system (kmtrace's own) for a command.
 */
static int find_library(struct recorder *r, char *path, size_t len)
{
	char exe[PATH_MAX], why[256];
	struct kmt_elfsyms e;
	bool is_static = false;

	if (r->o->user_lib) {
		snprintf(path, len, "%s", r->o->user_lib);
		return 0;
	}
	if (r->o->command && kmt_command_path(r->o->command[0], exe, sizeof(exe)) &&
	    !kmt_elfsyms_load(&e, exe, why, sizeof(why))) {
		is_static = e.is_static && kmt_elfsyms_find(&e, "malloc");
		kmt_elfsyms_free(&e);
		if (is_static) {
			snprintf(path, len, "%s", exe);
			return 0;
		}
	}
	if (mapped_libc(r->o->command ? 0 : r->o->pids[0], path, len))
		return 0;
	errno = 0;
	return kmt_record_fail(r, "--user: cannot tell which C library %s uses (give it with "
			       "--user-lib PATH)", r->o->command ? r->o->command[0] : "the process");
}

/* Write the "call" probe of every site and the "return" probe of those giving pointers. */
static int write_probes(struct recorder *r, const char *lib, const struct kmt_uprobe_regs *regs,
			const struct kmt_uprobe_site *sites, int n)
{
	char line[PATH_MAX + 256];
	int i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			if (pass && !kmt_user_func_returns_pointer(sites[i].func))
				continue;
			kmt_uprobe_line(line, sizeof(line), regs, lib, &sites[i], pass);
			errno = 0;
			if (tracefs_instance_file_append(NULL, UPROBE_EVENTS, line) < 0)
				return kmt_record_fail(r, "the kernel refused the uprobe '%s'", line);
			r->uprobes = true;
		}
	}
	return 0;
}

/* The probes' place in the instance: enabled with the rest, --user-min-size. */
static int add_events(struct recorder *r)
{
	char filter[512];

	if (kmt_event_list_add(&r->events, KMT_UPROBE_SYSTEM, KMT_UPROBE_CALL) ||
	    kmt_event_list_add(&r->events, KMT_UPROBE_SYSTEM, KMT_UPROBE_RETURN))
		return kmt_record_fail(r, "out of memory");
	if (!r->o->user_min_size)
		return 0;
	kmt_uprobe_min_size_filter(filter, sizeof(filter), r->o->user_min_size);
	errno = 0;
	if (tracefs_event_file_write(r->inst, KMT_UPROBE_SYSTEM, KMT_UPROBE_CALL, "filter",
				     filter) < 0)
		return kmt_record_fail(r, "the kernel rejected the --user-min-size filter '%s'",
				       filter);
	return 0;
}

int kmt_uprobes_setup(struct recorder *r)
{
	struct kmt_uprobe_site sites[KMT_UF_NR];
	const struct kmt_uprobe_regs *regs;
	char lib[PATH_MAX], why[PATH_MAX + 64];
	struct utsname u;
	int n;

	if (!r->o->user)
		return 0;
	errno = 0;
	if (!tracefs_file_exists(NULL, UPROBE_EVENTS))
		return kmt_record_fail(r, "--user: the kernel has no uprobe events "
				       "(CONFIG_UPROBE_EVENTS)");
	if (uname(&u) || !(regs = kmt_uprobe_regs_of(u.machine)))
		return kmt_record_fail(r, "--user: no uprobe arguments known for %s", u.machine);
	if (!remove_events())
		return kmt_record_fail(r, "--user: %s:* is in use (another kmtrace record "
				       "--user is running)", KMT_UPROBE_SYSTEM);
	if (find_library(r, lib, sizeof(lib)))
		return -1;
	n = kmt_uprobe_sites(lib, sites, why, sizeof(why));
	if (n < 0) {
		errno = 0;
		return kmt_record_fail(r, "--user: %s", why);
	}
	return write_probes(r, lib, regs, sites, n) || add_events(r) ? -1 : 0;
}
