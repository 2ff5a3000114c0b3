// SPDX-License-Identifier: LGPL-2.1
/* /proc/PID/maps lines: "START-END PERMS PGOFF DEV INODE PATH", files only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"
#include "util.h"

bool kmt_for_each_mapping(int pid, bool (*fn)(void *ctx, const struct kmt_mapping *m),
			  void *ctx)
{
	char file[64], *maps, *line, *save = NULL;

	if (pid)
		snprintf(file, sizeof(file), "/proc/%d/maps", pid);
	else
		snprintf(file, sizeof(file), "/proc/self/maps");
	maps = kmt_read_text_file(file, &(size_t){ 0 });
	if (!maps)
		return false;
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct kmt_mapping m;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &m.start, &m.end, perms, &m.pgoff,
			   &at) != 4 || !at || line[at] != '/')
			continue;
		m.exec = perms[2] == 'x';
		m.path = line + at;
		if (fn(ctx, &m))
			break;
	}
	free(maps);
	return true;
}
