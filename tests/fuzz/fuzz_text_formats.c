// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness of the text reader with --formats DIR: the input is an
 * event format, a line "#text", then ftrace text. The format goes into
 * DIR/kmem/fuzz/format; its own name and ID say which event it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

static char dir[] = "/tmp/kmtrace-fuzz-formats-XXXXXX";
static char format_path[128];
static pid_t owner;

/* Remove the formats directory when the fuzzer exits (not in a forked child). */
static void remove_dir(void)
{
	char sub[96];

	if (getpid() != owner)
		return;
	unlink(format_path);
	snprintf(sub, sizeof(sub), "%s/kmem/fuzz", dir);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/kmem", dir);
	rmdir(sub);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char sub[96];

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		return -1;
	snprintf(sub, sizeof(sub), "%s/kmem", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/kmem/fuzz", dir);
	mkdir(sub, 0700);
	snprintf(format_path, sizeof(format_path), "%s/format", sub);
	owner = getpid();
	atexit(remove_dir);
	return freopen("/dev/null", "w", stdout) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *split = memmem(data, size, "\n#text\n", 7);
	char path[64];
	FILE *f;
	int fd;

	if (!split)
		return -1;
	f = fopen(format_path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, split + 1 - data, f);
	fclose(f);
	fd = kmt_fuzz_file(split + 7, size - (split + 7 - data), path, sizeof(path));
	if (fd < 0)
		return 0;
	kmt_fuzz_report(path, dir, size, 1);
	close(fd);
	return 0;
}
