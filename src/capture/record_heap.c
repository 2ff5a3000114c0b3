// SPDX-License-Identifier: LGPL-2.1
/*
 * record --user-sample: the command runs with libkmtrace-heap.so preloaded,
 * which writes sampled allocations into the instance's trace_marker_raw
 * through a descriptor opened here and handed down (inherited across
 * fork and exec, told by device and inode in KMTRACE_HEAP). Its records
 * are ftrace:raw_data events of the same per-CPU buffers, on the same
 * clock as the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs/tracefs.h>

#include "record_local.h"
#include "container/elfsyms.h"
#include "common/heaprec.h"
#include "common/util.h"

extern char **environ;

/* "NAME=VALUE" in a new string, or NULL. */
static char *env_entry(const char *name, const char *value, const char *tail)
{
	char *s;

	if (asprintf(&s, "%s=%s%s%s", name, value, tail ? ":" : "", tail ? tail : "") < 0)
		return NULL;
	return s;
}

/*
 * The command's environment: ours, with KMTRACE_HEAP set and the library
 * first in LD_PRELOAD (what was there stays after it).
 */
static int make_env(struct recorder *r, const char *spec)
{
	size_t n = 0, k = 0, i;
	const char *preload = getenv("LD_PRELOAD");

	while (environ[n])
		n++;
	r->command_env = calloc(n + 3, sizeof(*r->command_env));
	if (!r->command_env)
		return -1;
	for (i = 0; i < n; i++) {
		if (!strncmp(environ[i], "LD_PRELOAD=", 11) ||
		    !strncmp(environ[i], KMT_HEAP_ENV "=", strlen(KMT_HEAP_ENV) + 1))
			continue;
		if (!(r->command_env[k++] = strdup(environ[i])))
			return -1;
	}
	if (!(r->command_env[k++] = env_entry(KMT_HEAP_ENV, spec, NULL)) ||
	    !(r->command_env[k++] = env_entry("LD_PRELOAD", r->o->heap_lib,
					       preload && *preload ? preload : NULL)))
		return -1;
	return 0;
}

/* Is @path an ELF executable without a program interpreter (so no LD_PRELOAD)? */
static bool statically_linked(const char *path)
{
	struct kmt_elfsyms e;
	char why[256];
	bool is_static;

	if (kmt_elfsyms_load(&e, path, why, sizeof(why)))
		return false;	/* a script: its interpreter loads the library */
	is_static = e.is_static;
	kmt_elfsyms_free(&e);
	return is_static;
}

static void notice(struct recorder *r, const char *line)
{
	if (r->o->notice)
		r->o->notice(r->o->ctx, line);
}

int kmt_heap_setup(struct recorder *r)
{
	struct kmt_heap_env env = { .interval = r->o->user_sample, .fp = r->o->user_sample_fp,
				    .heap_limit = r->o->heap_limit, .alloc_limit = r->o->alloc_limit,
				    .thread_limit = r->o->thread_alloc_limit,
				    .action = r->o->limit_action,
				    .signal = r->o->limit_signal ? r->o->limit_signal : SIGTERM };
	char *file, spec[128], path[4096], line[4200];
	struct stat st;

	if (!r->o->user_sample)
		return 0;
	if (access(r->o->heap_lib, R_OK))
		return kmt_record_fail(r, "--user-sample: cannot read %s", r->o->heap_lib);
	file = tracefs_instance_get_file(r->inst, "trace_marker_raw");
	errno = 0;
	r->marker_fd = file ? open(file, O_WRONLY | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(file);
	if (r->marker_fd < 0 || fstat(r->marker_fd, &st))
		return kmt_record_fail(r, "--user-sample: cannot open trace_marker_raw of the "
				       "instance");
	env.fd = r->marker_fd;
	env.dev = st.st_dev;
	env.ino = st.st_ino;
	kmt_heap_env_format(&env, spec, sizeof(spec));
	if (make_env(r, spec))
		return kmt_record_fail(r, "out of memory");
	if (kmt_command_path(r->o->command[0], path, sizeof(path)) && statically_linked(path)) {
		snprintf(line, sizeof(line), "--user-sample: %s is statically linked: it cannot "
			 "load %s, so its allocations are not sampled", path, r->o->heap_lib);
		notice(r, line);
	}
	return 0;
}

int kmt_heap_add_format(struct recorder *r)
{
	if (!r->o->user_sample)
		return 0;
	return kmt_record_add_format(r, "ftrace", "raw_data");
}

void kmt_heap_instance_left(struct recorder *r)
{
	char line[256];

	snprintf(line, sizeof(line), "--user-sample: tracing instance %s could not be removed: "
		 "a process the command left running still holds its trace_marker_raw; the "
		 "next kmtrace record removes it once that process is gone",
		 tracefs_instance_get_name(r->inst));
	notice(r, line);
}

void kmt_heap_close(struct recorder *r)
{
	if (r->marker_fd >= 0)
		close(r->marker_fd);
	r->marker_fd = -1;
}

void kmt_heap_free(struct recorder *r)
{
	size_t i;

	kmt_heap_close(r);
	for (i = 0; r->command_env && r->command_env[i]; i++)
		free(r->command_env[i]);
	free(r->command_env);
	r->command_env = NULL;
}
