// SPDX-License-Identifier: LGPL-2.1
/*
 * Which kernel image recorded: its _text (where KASLR put it this boot)
 * and its build-id (from /sys/kernel/notes). A few bytes every recording
 * keeps, with or without kallsyms, so that symbols taken elsewhere can be
 * moved to this boot and checked against this build.
 */
#include <stdio.h>
#include <stdlib.h>

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
