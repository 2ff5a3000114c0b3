// SPDX-License-Identifier: LGPL-2.1
/* kmtrace record: option parsing, progress and notices, the per-CPU summary. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kmtrace/record.h>
#include "cmd.h"
#include "common/heaprec.h"

#define MAX_ARGS	256
#define EXIT_CANNOT_RUN	127	/* as a shell says a command could not be run */

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace record [-e EVENT|GROUP:EVENT|GROUP]... [-p PID]... [-b KB]\n"
		"                      [-d SECONDS] [--max-size SIZE] [-f] [-o FILE|-]\n"
		"                      [--filter 'GROUP:EVENT:EXPR']... [--no-kallsyms]\n"
		"                      [--no-kprobes] [--no-page-owner] [-g]\n"
		"                      [--stack-events EVENT,...]\n"
		"                      [--user [--user-lib PATH] [--user-min-size SIZE]]\n"
		"                      [--user-sample[=SIZE] [--user-unwind dwarf|fp]]\n"
		"                      [--cgroup PATH] [--container ID] [--comm NAME] [--exe PATH]\n"
		"                      [-- COMMAND [ARGS...]]\n"
		"       kmtrace record --extract INSTANCE [-f] [-o FILE|-] [--no-kallsyms]\n\n"
		"  -e, --event     event to record (repeatable); default: the kmem, page,\n"
		"                  fault, rss_stat, OOM and process events the kernel has\n"
		"  -p, --pid       record only this process (all its threads) and its\n"
		"                  children (repeatable); stops when all have exited\n"
		"  -b, --buffer    per-CPU ring buffer size in KiB (default %d)\n"
		"  -d, --duration  stop after SECONDS (may be fractional)\n"
		"      --max-size  stop when the raw data reaches SIZE (bytes, or with K, M, G)\n"
		"  -o, --output    output file (default kmtrace.dat); - is standard output; a\n"
		"                  FIFO or character device is written into as a stream\n"
		"  -f, --force     replace an existing regular file (never anything else)\n"
		"      --filter    kernel event filter, e.g. 'kmem:kmalloc:bytes_req > 256'\n"
		"      --no-kallsyms  leave /proc/kallsyms out of the file (several MB);\n"
		"                  call sites are then shown as addresses\n"
		"      --no-kprobes  no return probe on handle_mm_fault; minor and major\n"
		"                  faults then come from perf's fault events if it can\n"
		"      --no-page-owner  leave out debugfs's page_owner (who held each\n"
		"                  allocated page at the start), read where the kernel has it\n"
		"  -g, --call-graph  a kernel stack after each slab and page allocation and\n"
		"                  free (ftrace stacktrace triggers, in the same buffers)\n"
		"      --stack-events  the events to take stacks of instead (implies -g),\n"
		"                  e.g. kmalloc,exceptions:page_fault_user\n"
		"      --user      the C library's malloc, calloc, realloc, free, memalign,\n"
		"                  aligned_alloc, valloc, pvalloc and posix_memalign too\n"
		"                  (uprobes; needs -p or COMMAND; see kmtrace report umem)\n"
		"      --user-lib  probe this allocator library instead (jemalloc, tcmalloc)\n"
		"      --user-min-size  leave out allocations asking for fewer bytes (a\n"
		"                  kernel filter; frees and callocs stay)\n"
		"      --user-sample  the command's allocations sampled in the process\n"
		"                  (libkmtrace-heap.so preloaded): one every SIZE bytes on\n"
		"                  average (default 512K; 1: every call), with user stacks\n"
		"      --user-unwind  how sampled stacks are walked: dwarf (default: call\n"
		"                  frame information) or fp (frame pointers, faster; DWARF\n"
		"                  where the chain ends early)\n"
		"      --cgroup    record the processes of this cgroup (v1 or v2; a path, or\n"
		"                  one under /sys/fs/cgroup), those that join later and all\n"
		"                  their children; tracing starts with the first of them\n"
		"      --container  the same, for the cgroup whose directory name holds ID\n"
		"                  (docker-ID.scope, libpod-ID.scope, kubepods/.../ID)\n"
		"      --comm      record the processes named NAME (and their children)\n"
		"      --exe       record the processes running executable PATH\n"
		"                  (--cgroup, --container, --comm and --exe combine: all match)\n"
		"  -- COMMAND      run COMMAND and record it and its descendants only\n"
		"      --extract   write what the existing tracing instance INSTANCE holds\n"
		"                  (set up by hand or a script, its tracing off) and leave it\n"
		"                  in place; its enabled events' formats go into the file;\n"
		"                  / is the top-level buffer (trace_event= at boot)\n\n"
		"Without COMMAND, -p or -d it records system-wide until SIGINT. On a terminal\n"
		"it shows progress once a second. Exit status: 0, or the command's own when\n"
		"it failed (127: it could not be run), 1 when recording failed, 2 for a bad\n"
		"request.\n",
		KMT_RECORD_DEFAULT_BUFFER_KB);
}

static int parse_uint(const char *s, const char *what, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (!*s || *end || errno || *v > max || !*v || *s == '-') {
		fprintf(stderr, "kmtrace record: invalid %s '%s': want a number from 1 to %lu\n",
			what, s, max);
		return -1;
	}
	return 0;
}

/* A size in bytes with an optional K, M, G or T suffix (powers of 1024). */
/* Progress on a terminal: one line, rewritten in place. */
static bool progress_shown;

static void show_progress(void *ctx, const struct kmt_record_progress *p)
{
	char a[32], b[32];

	(void)ctx;
	if (!isatty(STDERR_FILENO))
		return;
	if (p->phase == KMT_RECORD_DONE) {
		if (progress_shown)
			fprintf(stderr, "\r%-78s\r", "");
		progress_shown = false;
		return;
	}
	if (p->phase == KMT_RECORD_RECORDING)
		fprintf(stderr, "\rkmtrace: recording: %llu events, %s, %llu lost    ", p->events,
			kmt_cmd_human(p->bytes, a, sizeof(a)), p->lost);
	else
		fprintf(stderr, "\rkmtrace: writing: %3.0f%% (%s of %s)    ",
			p->total ? 100.0 * p->done / p->total : 100.0,
			kmt_cmd_human(p->done, a, sizeof(a)), kmt_cmd_human(p->total, b, sizeof(b)));
	progress_shown = true;
}

static void show_notice(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "kmtrace: %s\n", line);
}

static void print_summary(const struct kmt_record_opts *o, const struct kmt_record_result *res)
{
	unsigned long long events = 0, lost = 0;
	char size[32];
	int cpu;

	for (cpu = 0; cpu < res->ncpus; cpu++) {
		const struct kmt_record_cpu *c = &res->cpus[cpu];

		fprintf(stderr, "CPU %d: %llu events, %llu bytes, %llu lost\n", cpu, c->events,
			c->bytes, c->lost);
		events += c->events;
		lost += c->lost;
	}
	if (res->stopped_by == KMT_STOP_MAX_SIZE)
		fprintf(stderr, "kmtrace: stopped at --max-size %s (%llu events left in the "
			"buffers, not written)\n", kmt_cmd_human(o->max_size, size, sizeof(size)),
			res->left_in_buffers);
	else if (res->stopped_by == KMT_STOP_PIDS_GONE)
		fprintf(stderr, "kmtrace: every traced process exited\n");
	else if (res->stopped_by == KMT_STOP_EXTRACTED)
		fprintf(stderr, "kmtrace: taken out of %s%s (left in place)\n",
			strcmp(o->extract, "/") ? "instance " : "the top-level buffer",
			strcmp(o->extract, "/") ? o->extract : "");
	if (res->page_owner_blocks)
		fprintf(stderr, "kmtrace: page_owner at start: %llu pages in %llu blocks\n",
			res->page_owner_pages, res->page_owner_blocks);
	fprintf(stderr, "kmtrace: %llu events, %llu lost, written to %s\n", events, lost,
		strcmp(o->output, "-") ? o->output : "standard output");
	if (res->command_status > 0 && WIFEXITED(res->command_status))
		fprintf(stderr, "kmtrace: %s exited with status %d\n", o->command[0],
			WEXITSTATUS(res->command_status));
	else if (res->command_status > 0 && WIFSIGNALED(res->command_status))
		fprintf(stderr, "kmtrace: %s was killed by signal %d\n", o->command[0],
			WTERMSIG(res->command_status));
}

/* The command's failure is ours, as with perf; not when we stopped it. */
static int exit_status(const struct kmt_record_result *res)
{
	int st = res->command_status;

	if (res->stopped_by != KMT_STOP_COMMAND || st <= 0)
		return 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 0;
}

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "duration", required_argument, NULL, 'd' },
	{ "max-size", required_argument, NULL, 'S' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "filter", required_argument, NULL, 'F' },
	{ "no-kallsyms", no_argument, NULL, 'K' },
	{ "no-kprobes", no_argument, NULL, 'P' },
	{ "no-page-owner", no_argument, NULL, 'O' },
	{ "call-graph", no_argument, NULL, 'g' },
	{ "stack-events", required_argument, NULL, 'G' },
	{ "user", no_argument, NULL, 'U' },
	{ "user-lib", required_argument, NULL, 'L' },
	{ "user-min-size", required_argument, NULL, 'M' },
	{ "user-sample", optional_argument, NULL, 'u' },
	{ "user-unwind", required_argument, NULL, 'W' },
	{ "extract", required_argument, NULL, 'X' },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "container", required_argument, NULL, 'C' },
	{ "comm", required_argument, NULL, 'N' },
	{ "exe", required_argument, NULL, 'x' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Argument arrays the options fill. */
struct record_args {
	struct kmt_record_opts o;
	const char *events[MAX_ARGS], *filters[MAX_ARGS], *stack_events[MAX_ARGS];
	char *stack_list;		/* --stack-events, cut at its commas */
	int pids[MAX_ARGS];
	char heap_lib[PATH_MAX];	/* --user-sample: the library found */
};


/* --stack-events A,B,...: the names, -g implied. 0, or -1. */
static int take_stack_events(struct record_args *a, const char *arg)
{
	char *p;

	free(a->stack_list);
	a->stack_list = strdup(arg);
	if (!a->stack_list) {
		perror("kmtrace record");
		return -1;
	}
	a->o.nstack_events = 0;
	a->o.stacks = true;
	for (p = strtok(a->stack_list, ","); p; p = strtok(NULL, ","))
		if (a->o.nstack_events < MAX_ARGS)
			a->stack_events[a->o.nstack_events++] = p;
	if (a->o.nstack_events)
		return 0;
	fprintf(stderr, "kmtrace record: --stack-events wants EVENT or GROUP:EVENT names\n");
	return -1;
}

/* One option; 0, 1 to stop with status 0 (help), -1 to stop with status 2. */
static int take_option(struct record_args *a, int c)
{
	struct kmt_record_opts *o = &a->o;
	unsigned long v;
	char *end;

	switch (c) {
	case 'e':
		a->events[o->nevents++] = optarg;
		return 0;
	case 'F':
		a->filters[o->nfilters++] = optarg;
		return 0;
	case 'p':
		if (parse_uint(optarg, "pid", 4194304, &v))
			return -1;
		a->pids[o->npids++] = v;
		return 0;
	case 'b':
		if (parse_uint(optarg, "buffer size (KiB)", 1u << 22, &v))
			return -1;
		o->buffer_kb = v;
		return 0;
	case 'd':
		o->duration = strtod(optarg, &end);
		if (*optarg && !*end && o->duration > 0 && o->duration <= 1e7)
			return 0;
		fprintf(stderr, "kmtrace record: invalid duration '%s'\n", optarg);
		return -1;
	case 'S':
		return kmt_cmd_parse_size("record", "--max-size", optarg, &o->max_size);
	case 'o':
		o->output = optarg;
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'K':
		o->no_kallsyms = true;
		return 0;
	case 'P':
		o->no_kprobes = true;
		return 0;
	case 'O':
		o->no_page_owner = true;
		return 0;
	case 'g':
		o->stacks = true;
		return 0;
	case 'G':
		return take_stack_events(a, optarg);
	case 'U':
		o->user = true;
		return 0;
	case 'L':
		o->user = true;
		o->user_lib = optarg;
		return 0;
	case 'M':
		o->user = true;
		return kmt_cmd_parse_size("record", "--user-min-size", optarg,
					  &o->user_min_size);
	case 'u':
		o->user_sample = KMT_HEAP_DEFAULT_INTERVAL;
		return optarg ? kmt_cmd_parse_size("record", "--user-sample", optarg,
						   &o->user_sample) : 0;
	case 'W':
		if (strcmp(optarg, "dwarf") && strcmp(optarg, "fp")) {
			fprintf(stderr, "kmtrace record: --user-unwind takes dwarf or fp, not '%s'\n",
				optarg);
			return -1;
		}
		o->user_sample_fp = !strcmp(optarg, "fp");
		return 0;
	case 'X':
		o->extract = optarg;
		return 0;
	case 'c':
		o->cgroup = optarg;
		return 0;
	case 'C':
		o->container = optarg;
		return 0;
	case 'N':
		o->comm = optarg;
		return 0;
	case 'x':
		o->exe = optarg;
		return 0;
	case 'h':
		usage(stdout);
		return 1;
	default:
		usage(stderr);
		return -1;
	}
}

static int parse_args(struct record_args *a, int argc, char **argv)
{
	int c, ret;

	while ((c = getopt_long(argc, argv, "+e:p:b:d:o:fgh", longopts, NULL)) != -1) {
		if ((c == 'e' && a->o.nevents == MAX_ARGS) ||
		    (c == 'F' && a->o.nfilters == MAX_ARGS) || (c == 'p' && a->o.npids == MAX_ARGS)) {
			fprintf(stderr, "kmtrace record: at most %d of -%c\n", MAX_ARGS, c);
			return -1;
		}
		ret = take_option(a, c);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		a->o.command = argv + optind;
	} else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		fprintf(stderr, "kmtrace record: no command after --\n");
		return -1;
	}
	if (a->o.extract && (a->o.command || a->o.npids || a->o.nevents || a->o.nfilters ||
			     a->o.buffer_kb || a->o.duration > 0 || a->o.max_size ||
			     a->o.stacks || a->o.user || a->o.no_kprobes)) {
		fprintf(stderr, "kmtrace record: --extract takes only -o, -f and --no-kallsyms: "
			"the instance's events, filters and size are as it was set up\n");
		return -1;
	}
	if ((a->o.cgroup || a->o.container || a->o.comm || a->o.exe) &&
	    (a->o.command || a->o.npids || a->o.extract)) {
		fprintf(stderr, "kmtrace record: --cgroup, --container, --comm and --exe choose "
			"the processes: not with -p, --extract or a COMMAND\n");
		return -1;
	}
	if (a->o.user_sample && (!a->o.command || a->o.user)) {
		fprintf(stderr, "kmtrace record: --user-sample %s\n", a->o.user ?
			"and --user count the same calls: choose one" :
			"needs -- COMMAND (a running process cannot load the library)");
		return -1;
	}
	if (a->o.user_sample && kmt_cmd_heap_lib("record", a->heap_lib, sizeof(a->heap_lib)))
		return -1;
	a->o.heap_lib = a->heap_lib;
	if (a->o.user && !a->o.command && !a->o.npids) {
		fprintf(stderr, "kmtrace record: --user needs -p PID or -- COMMAND (uprobes on "
			"every process would slow the whole system)\n");
		return -1;
	}
	return 0;
}

int kmt_cmd_record(int argc, char **argv)
{
	struct record_args a = { .o = { .output = "kmtrace.dat", .notice = show_notice,
					.progress = show_progress } };
	struct kmt_record_result res;
	struct kmt_error err;
	int ret;

	a.o.events = a.events;
	a.o.filters = a.filters;
	a.o.pids = a.pids;
	a.o.stack_events = a.stack_events;
	ret = parse_args(&a, argc, argv);
	if (ret) {
		free(a.stack_list);
		return ret > 0 ? 0 : KMT_EXIT_INPUT;
	}
	/* a reader that went away is an error to report; the command keeps its SIGPIPE */
	a.o.command_ignores_sigpipe = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	ret = kmt_record(&a.o, &res, &err);
	free(a.stack_list);
	if (ret) {
		kmt_error_print(&err);
		if (res.exec_errno)
			return EXIT_CANNOT_RUN;
		return ret == -2 ? KMT_EXIT_INPUT : KMT_EXIT_FAIL;
	}
	print_summary(&a.o, &res);
	free(res.cpus);
	return exit_status(&res);
}
