// SPDX-License-Identifier: LGPL-2.1
/* kmtrace record: option parsing and the per-CPU summary. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <kmtrace/record.h>
#include "cmd.h"

#define MAX_ARGS	256

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace record [-e EVENT|GROUP:EVENT|GROUP]... [-p PID]... [-b KB]\n"
		"                      [-d SECONDS] [-f] [-o FILE] [--filter 'GROUP:EVENT:EXPR']...\n"
		"                      [--no-kallsyms] [--no-kprobes]\n"
		"                      [-- COMMAND [ARGS...]]\n\n"
		"  -e, --event     event to record (repeatable); default: the kmem, page,\n"
		"                  fault, rss_stat, OOM and process events the kernel has\n"
		"  -p, --pid       record only this process and its children (repeatable)\n"
		"  -b, --buffer    per-CPU ring buffer size in KiB (default %d)\n"
		"  -d, --duration  stop after SECONDS (may be fractional)\n"
		"  -o, --output    output file (default kmtrace.dat)\n"
		"  -f, --force     replace an existing output file\n"
		"      --filter    kernel event filter, e.g. 'kmem:kmalloc:bytes_req > 256'\n"
		"      --no-kallsyms  leave /proc/kallsyms out of the file (several MB);\n"
		"                  call sites are then shown as addresses\n"
		"      --no-kprobes  no return probe on handle_mm_fault; minor and major\n"
		"                  faults then come from perf's fault events if it can\n"
		"  -- COMMAND      run COMMAND and record it and its descendants only\n\n"
		"Without COMMAND, -p or -d it records system-wide until SIGINT.\n",
		KMT_RECORD_DEFAULT_BUFFER_KB);
}

static int parse_uint(const char *s, const char *what, unsigned long max, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 10);
	if (!*s || *end || *v > max) {
		fprintf(stderr, "kmtrace record: invalid %s '%s'\n", what, s);
		return -1;
	}
	return 0;
}

static void print_summary(const struct kmt_record_opts *o, const struct kmt_record_result *res)
{
	unsigned long long events = 0, lost = 0;
	int cpu;

	for (cpu = 0; cpu < res->ncpus; cpu++) {
		const struct kmt_record_cpu *c = &res->cpus[cpu];

		fprintf(stderr, "CPU %d: %llu events, %llu bytes, %llu lost\n", cpu, c->events,
			c->bytes, c->lost);
		events += c->events;
		lost += c->lost;
	}
	fprintf(stderr, "kmtrace: %llu events, %llu lost, written to %s\n", events, lost,
		o->output);
	if (res->command_status > 0 && WIFEXITED(res->command_status))
		fprintf(stderr, "kmtrace: %s exited with status %d\n", o->command[0],
			WEXITSTATUS(res->command_status));
	else if (res->command_status > 0 && WIFSIGNALED(res->command_status))
		fprintf(stderr, "kmtrace: %s was killed by signal %d\n", o->command[0],
			WTERMSIG(res->command_status));
}

int kmt_cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "filter", required_argument, NULL, 'F' },
		{ "no-kallsyms", no_argument, NULL, 'K' },
		{ "no-kprobes", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *events[MAX_ARGS], *filters[MAX_ARGS];
	int pids[MAX_ARGS];
	struct kmt_record_opts o = { .events = events, .filters = filters, .pids = pids,
				     .output = "kmtrace.dat" };
	struct kmt_record_result res;
	struct kmt_error err;
	unsigned long v;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+e:p:b:d:o:fh", longopts, NULL)) != -1) {
		if ((c == 'e' && o.nevents == MAX_ARGS) || (c == 'F' && o.nfilters == MAX_ARGS) ||
		    (c == 'p' && o.npids == MAX_ARGS)) {
			fprintf(stderr, "kmtrace record: at most %d of -%c\n", MAX_ARGS, c);
			return KMT_EXIT_INPUT;
		}
		switch (c) {
		case 'e':
			events[o.nevents++] = optarg;
			break;
		case 'F':
			filters[o.nfilters++] = optarg;
			break;
		case 'p':
			if (parse_uint(optarg, "pid", 4194304, &v) || !v)
				return KMT_EXIT_INPUT;
			pids[o.npids++] = v;
			break;
		case 'b':
			if (parse_uint(optarg, "buffer size", 1u << 22, &v) || !v)
				return KMT_EXIT_INPUT;
			o.buffer_kb = v;
			break;
		case 'd':
			o.duration = strtod(optarg, &end);
			if (!*optarg || *end || !(o.duration > 0) || o.duration > 1e7) {
				fprintf(stderr, "kmtrace record: invalid duration '%s'\n", optarg);
				return KMT_EXIT_INPUT;
			}
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'f':
			o.force = true;
			break;
		case 'K':
			o.no_kallsyms = true;
			break;
		case 'P':
			o.no_kprobes = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return KMT_EXIT_INPUT;
		}
	}
	if (optind < argc)
		o.command = argv + optind;
	if (kmt_record(&o, &res, &err)) {
		kmt_error_print(&err);
		return KMT_EXIT_FAIL;
	}
	print_summary(&o, &res);
	free(res.cpus);
	return 0;
}
