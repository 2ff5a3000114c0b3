// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace-record: the recorder alone, for small targets (make static): it
 * takes the options of `kmtrace record` and links only capture, container
 * and common, so that it can be built against static archives and copied
 * to a target; the recordings are reported off-box with kmtrace report.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("kmtrace-record %s\n", KMT_VERSION);
		return 0;
	}
	argv[0] = "record";
	return kmt_cmd_record(argc, argv);
}
