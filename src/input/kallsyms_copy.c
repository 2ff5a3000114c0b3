// SPDX-License-Identifier: LGPL-2.1
/*
 * perf record keeps a copy of /proc/kallsyms per kernel build in its
 * build-id cache ($PERF_BUILDID_DIR, else ~/.debug, then
 * [kernel.kallsyms]/BUILD-ID/kallsyms), made the first time it records on
 * that build and never refreshed. Reading it takes milliseconds where
 * /proc/kallsyms takes 40-50 (the kernel formats every line anew). The
 * copy stands for this machine's kallsyms only when it is this boot's:
 * the _text that /proc/kallsyms starts with, and the modules of
 * /proc/modules, each with symbols where it is loaded now, and no other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kallsyms_copy.h"
#include "common/util.h"

#define TEXT_HEAD_MAX	(1u << 20)	/* /proc/kallsyms read this far for its _text */
#define MAX_MODULES	65536u		/* /proc/modules lines taken at most */

int kmt_kallsyms_copy_path(const char *build_id, char *path, size_t len)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	struct stat st;
	int n;

	if (!build_id[0] || strchr(build_id, '/'))
		return -1;
	if (dir && dir[0])
		n = snprintf(path, len, "%s/[kernel.kallsyms]/%s/kallsyms", dir, build_id);
	else if (home && home[0])
		n = snprintf(path, len, "%s/.debug/[kernel.kallsyms]/%s/kallsyms", home, build_id);
	else
		return -1;
	if (n < 0 || (size_t)n >= len || stat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	return 0;
}

static void free_modules(struct kmt_module_span *mods, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)mods[i].name);
	free(mods);
}

/*
 * One /proc/modules line ("NAME SIZE REFS DEPS STATE ADDRESS ...") into
 * @m: 0, 1 when the module is not live (loading, going), -1 when the line
 * does not parse or out of memory.
 */
static int module_line(const char *line, struct kmt_module_span *m)
{
	char name[256], state[32];
	unsigned long long size, addr;

	if (sscanf(line, "%255s %llu %*s %*s %31s %llx", name, &size, state, &addr) != 4 ||
	    addr + size < addr)
		return -1;
	if (strcmp(state, "Live"))
		return 1;
	*m = (struct kmt_module_span){ .name = strdup(name), .start = addr, .end = addr + size };
	return m->name ? 0 : -1;
}

/*
 * The loaded modules of @path (/proc/modules) into *@mods, *@n: 0 (none
 * when the kernel has no modules: no such file), or -1 with @why said.
 */
static int read_modules(const char *path, struct kmt_module_span **mods, size_t *n,
			const char **why)
{
	FILE *fp = fopen(path, "re");
	uint32_t cap = 0;
	char *line = NULL;
	size_t line_cap = 0;
	int ret = 0;

	*mods = NULL;
	*n = 0;
	if (!fp && errno == ENOENT)
		return 0;
	if (!fp) {
		*why = "/proc/modules cannot be read";
		return -1;
	}
	while (getline(&line, &line_cap, fp) > 0) {
		int got;

		if (*n >= MAX_MODULES || kmt_grow(mods, &cap, (uint32_t)*n, sizeof(**mods)) ||
		    (got = module_line(line, &(*mods)[*n])) < 0) {
			*why = "a line of /proc/modules does not parse";
			ret = -1;
			break;
		}
		if (got) {
			*why = "a module is loading or going";
			ret = -1;
			break;
		}
		(*n)++;
	}
	free(line);
	fclose(fp);
	if (ret) {
		free_modules(*mods, *n);
		*mods = NULL;
		*n = 0;
	}
	return ret;
}

/* Why the modules of @t, a copy of kallsyms, are not those of @modules now; NULL when they are. */
static const char *modules_differ(const struct kmt_symbols *t, const char *modules, char *why,
				  size_t len)
{
	struct kmt_module_span *mods;
	const char *which, *said = NULL;
	size_t n;
	int ret;

	if (read_modules(modules, &mods, &n, &said))
		return said;
	ret = kmt_symbols_check_modules(t, mods, n, &which);
	if (ret > 0)
		snprintf(why, len, ret == 2 ? "module %s is not loaded now" :
			 "module %s is not where it is loaded now", which);
	free_modules(mods, n);
	return ret < 0 ? "out of memory" : ret ? why : NULL;
}

struct kmt_symbols *kmt_kallsyms_copy_read(const char *copy, const char *kallsyms,
					   const char *modules, char *why, size_t len)
{
	unsigned long long text = kmt_symbols_read_text_addr(copy, TEXT_HEAD_MAX);
	struct kmt_symbols *t;
	const char *no;

	/* the heads first: a copy of another boot (the usual one after a reboot) is not parsed */
	if (!text || kmt_symbols_read_text_addr(kallsyms, TEXT_HEAD_MAX) != text) {
		snprintf(why, len, "its _text is not this boot's");
		return NULL;
	}
	if (!(t = kmt_symbols_read(copy))) {
		snprintf(why, len, "%s", errno == ENOMEM ? "out of memory" : "cannot be read");
		return NULL;
	}
	if ((no = modules_differ(t, modules, why, len))) {
		if (no != why)
			snprintf(why, len, "%s", no);
		kmt_symbols_free(t);
		return NULL;
	}
	return t;
}
