// SPDX-License-Identifier: LGPL-2.1
/*
 * Which kernel image recorded: its _text (where KASLR put it this boot)
 * and its build-id (from /sys/kernel/notes). A few bytes every recording
 * keeps, with or without kallsyms, so that symbols taken elsewhere can be
 * moved to this boot and checked against this build. And the slab caches
 * the kernel merged (/sys/kernel/slab links), so that reports name what a
 * cache stands for.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_local.h"
#include "common/util.h"

/*
 * _text of the running kernel, read from /proc/kallsyms only as far as its
 * line (near the top): the whole file takes tens of milliseconds to make.
 */
static unsigned long long running_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long text = 0;
	char *line = NULL;
	size_t cap = 0;

	while (f && !text && getline(&line, &cap, f) > 0)
		text = kmt_kallsyms_text(line);
	free(line);
	if (f)
		fclose(f);
	return text;
}

void kmt_kernel_identity(const char *kallsyms, char *buf, size_t len)
{
	unsigned long long text = kallsyms ? kmt_kallsyms_text(kallsyms) : running_text();
	char hex[129];
	int at = 0;

	kmt_running_build_id(hex, sizeof(hex));
	buf[0] = '\0';
	if (text)
		at = snprintf(buf, len, "text 0x%llx\n", text);
	if (hex[0] && at >= 0 && (size_t)at < len)
		snprintf(buf + at, len - at, "build-id %s\n", hex);
}

/*
 * Append "NAME TARGET\n" for link @name of @dir; false when it cannot be
 * written. A link that cannot be read, or a name the line could not hold,
 * is left out.
 */
static bool add_alias(int dir, const char *name, FILE *out)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(dir, name, target, sizeof(target) - 1);
	const char *base;

	if (n <= 0 || strpbrk(name, " \n"))
		return true;
	target[n] = '\0';
	base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	return fprintf(out, "%s %s\n", name, base) > 0;
}

char *kmt_slab_aliases(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	bool ok = true;

	if (!d)
		return NULL;
	out = open_memstream(&text, &len);
	while (out && ok && (e = readdir(d)))
		if (e->d_type == DT_LNK)
			ok = add_alias(dirfd(d), e->d_name, out);
	closedir(d);
	if (!out || fclose(out) || !ok || !len) {
		free(text);
		return NULL;
	}
	return text;
}
