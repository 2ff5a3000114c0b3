// SPDX-License-Identifier: LGPL-2.1
/* kmtrace: record and analyse what the kernel's memory management does. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <kmtrace/analysis.h>
#include "cmd.h"

void kmt_cmd_list_analyses(FILE *fp, const char *indent)
{
	int i;

	for (i = 0; kmt_analyses[i]; i++)
		fprintf(fp, "%s%-8s %s\n", indent, kmt_analyses[i]->name, kmt_analyses[i]->help);
}

FILE *kmt_cmd_new_file(const char *cmd, const char *opt, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (fp)
		return fp;
	fprintf(stderr, "kmtrace %s: %s %s: %s\n", cmd, opt, path,
		errno == EEXIST ? "exists (give a new file)" : strerror(errno));
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace <command> [options]\n\n"
		"commands:\n"
		"  record     record kmem, page, fault, OOM and process events into a trace.dat\n"
		"  report     replay a recording through analyses\n"
		"  diff       what changed between two recordings or reports, with budgets\n"
		"  footprint  the static size of a kernel image by directory, file and symbol\n"
		"  top        a live view of slab, pages, faults and reclaim stalls\n"
		"  watch      follow a command's heap and RSS, and signal it past a limit\n"
		"  list       list the analyses\n\n"
		"analyses:\n");
	kmt_cmd_list_analyses(fp, "  ");
	fprintf(fp, "\n'kmtrace <command> -h' shows the options of a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return KMT_EXIT_INPUT;
	}
	if (!strcmp(argv[1], "record"))
		return kmt_cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report") || !strcmp(argv[1], "diff"))
		kmt_cmd_huge_page_heap();
	if (!strcmp(argv[1], "report"))
		return kmt_cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "diff"))
		return kmt_cmd_diff(argc - 1, argv + 1);
	if (!strcmp(argv[1], "footprint"))
		return kmt_cmd_footprint(argc - 1, argv + 1);
	if (!strcmp(argv[1], "top"))
		return kmt_cmd_top(argc - 1, argv + 1);
	if (!strcmp(argv[1], "watch"))
		return kmt_cmd_watch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list")) {
		kmt_cmd_list_analyses(stdout, "");
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kmtrace %s\n", KMT_VERSION);
		return 0;
	}
	fprintf(stderr, "kmtrace: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return KMT_EXIT_INPUT;
}
