// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness of one reader: FUZZ_READER is tracedat (trace.dat v6,
 * kmtrace's own reader), tracecmd (other trace.dat versions, libtracecmd),
 * perfdata or text (ftrace text, the shipped formats). Inputs of another
 * format are left to that reader's harness. Each input is replayed through
 * every analysis, --print included, and rendered as text, CSV or JSON.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

#define MAGIC		"\027\010\104tracing"
#define MAGIC_LEN	10

enum { TRACEDAT, TRACECMD, PERFDATA, TEXT };

/* Which reader @data goes to, as kmt_reader_open() tells. */
static int kind_of(const uint8_t *data, size_t size)
{
	if (size >= 8 && !memcmp(data, "PERFILE2", 8))
		return PERFDATA;
	if (size >= MAGIC_LEN + 2 && !memcmp(data, MAGIC, MAGIC_LEN))
		return data[MAGIC_LEN] == '6' && !data[MAGIC_LEN + 1] ? TRACEDAT : TRACECMD;
	return TEXT;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return freopen("/dev/null", "w", stdout) ? 0 : -1;	/* --print's lines */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (kind_of(data, size) != FUZZ_READER)
		return -1;	/* not kept in the corpus */
	fd = kmt_fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	kmt_fuzz_report(path, NULL, size, size & 1);
	close(fd);
	return 0;
}
