// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace watch: record a command (or -p processes) with --user and
 * kmem:rss_stat, follow the events while they come (the recorder hands
 * over each spooled sub-buffer), and when the traced processes together
 * pass a limit -- live malloc heap, RSS, or bytes allocated since the
 * start -- signal them, say which limit and by how much, and show the top
 * callers then. With --on-limit the heap and allocation limits are held in
 * the command itself by libkmtrace-heap.so, at the crossing call. With -o
 * the recording is kept, else nothing is written.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/record.h>
#include "cmd.h"
#include "watch_local.h"
#include "common/heaprec.h"

#define EXIT_LIMIT	3	/* a limit fired */

enum { OPT_HEAP = 0x100, OPT_RSS, OPT_ALLOC, OPT_SIGNAL, OPT_TOP, OPT_KEEP, OPT_THREAD,
       OPT_ON_LIMIT };

static const struct option longopts[] = {
	{ "heap-limit", required_argument, NULL, OPT_HEAP },
	{ "rss-limit", required_argument, NULL, OPT_RSS },
	{ "alloc-limit", required_argument, NULL, OPT_ALLOC },
	{ "thread-alloc-limit", required_argument, NULL, OPT_THREAD },
	{ "on-limit", required_argument, NULL, OPT_ON_LIMIT },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "pid", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace watch [--heap-limit SIZE] [--rss-limit SIZE] [--alloc-limit SIZE]\n"
		"                     [--thread-alloc-limit SIZE] [--on-limit signal[:SIG]|fail|stop]\n"
		"                     [--signal SIG] [-o FILE [-f] [--keep SECONDS]] [-b KB]\n"
		"                     [--top N]\n"
		"                     (-p PID... | -- COMMAND [ARGS...])\n\n"
		"  --heap-limit   live malloc heap of the traced processes together\n"
		"  --rss-limit    their resident memory together (rss_stat: file, anon, shmem)\n"
		"  --alloc-limit  bytes malloc'ed since the start, freed or not\n"
		"  --thread-alloc-limit  bytes malloc'ed by any one thread (needs --on-limit)\n"
		"  --on-limit     hold the heap and allocation limits in the command itself, at\n"
		"                 each call (libkmtrace-heap.so preloaded; a COMMAND only):\n"
		"                 signal[:SIG] sends SIG (default --signal's) at the crossing\n"
		"                 call, fail makes the crossing calls return NULL (ENOMEM),\n"
		"                 stop stops the process (SIGSTOP) for a debugger\n"
		"  --signal       what they get when a limit is passed (default TERM)\n"
		"  -p, --pid      watch this process and its children (repeatable)\n"
		"  -o, --output   keep the recording (trace.dat) up to the limit\n"
		"      --keep     only its last SECONDS (default 10; 0: all of it)\n"
		"  -f, --force    replace an existing regular file\n"
		"  -b, --buffer   per-CPU ring buffer in KiB (default %d)\n"
		"      --top      callers shown when a limit fires (default 5)\n\n"
		"Sizes take K, M, G. The figures are followed from events as they are\n"
		"spooled (a page of events behind at most). Exit status: 0 when the\n"
		"command ended within the limits, 3 when a limit fired, 1 when watching\n"
		"failed, 2 for a bad request.\n", WATCH_BUFFER_KB);
}

static int parse_signal(const char *s, int *sig)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (!strncmp(s, "SIG", 3))
		s += 3;
	if (*end || end == s) {
		for (n = 1; n < NSIG; n++)
			if (sigabbrev_np(n) && !strcmp(sigabbrev_np(n), s))
				break;
	}
	if (n <= 0 || n >= NSIG || n == SIGSTOP) {
		fprintf(stderr, "kmtrace watch: invalid --signal '%s'\n", s);
		return -1;
	}
	*sig = (int)n;
	return 0;
}

/* --on-limit signal[:SIG]|fail|stop. 0, or -1 after saying why. */
static int parse_action(const char *s, struct watch *w)
{
	if (!strcmp(s, "fail") || !strcmp(s, "stop")) {
		w->o.limit_action = !strcmp(s, "fail") ? KMT_HEAP_FAIL : KMT_HEAP_STOP;
		return 0;
	}
	w->o.limit_action = KMT_HEAP_SIGNAL;
	if (!strcmp(s, "signal"))
		return 0;
	if (!strncmp(s, "signal:", 7))
		return parse_signal(s + 7, &w->o.limit_signal);
	fprintf(stderr, "kmtrace watch: --on-limit takes signal[:SIG], fail or stop, not '%s'\n",
		s);
	return -1;
}

static int take_option(struct watch *w, int c)
{
	unsigned long long v;
	char *end;

	switch (c) {
	case OPT_HEAP:
		return kmt_cmd_parse_size("watch", "--heap-limit", optarg, &w->limit[LIMIT_HEAP]);
	case OPT_RSS:
		return kmt_cmd_parse_size("watch", "--rss-limit", optarg, &w->limit[LIMIT_RSS]);
	case OPT_ALLOC:
		return kmt_cmd_parse_size("watch", "--alloc-limit", optarg, &w->limit[LIMIT_ALLOC]);
	case OPT_THREAD:
		w->in_process = true;
		return kmt_cmd_parse_size("watch", "--thread-alloc-limit", optarg,
					  &w->limit[LIMIT_THREAD]);
	case OPT_ON_LIMIT:
		w->in_process = true;
		return parse_action(optarg, w);
	case OPT_SIGNAL:
		return parse_signal(optarg, &w->o.limit_signal);
	case 'p':
		v = strtoull(optarg, NULL, 10);
		if (w->o.npids == WATCH_MAX_PIDS || !v || v > 4194304) {
			fprintf(stderr, "kmtrace watch: invalid -p '%s'\n", optarg);
			return -1;
		}
		w->pids[w->o.npids++] = (int)v;
		return 0;
	case 'o':
		w->o.output = optarg;
		return 0;
	case 'f':
		w->o.force = true;
		return 0;
	case 'b':
		if (kmt_cmd_parse_size("watch", "--buffer", optarg, &v) || v > (1ull << 22))
			return -1;
		w->o.buffer_kb = v;
		return 0;
	case OPT_TOP:
		w->top = atoi(optarg);
		return w->top > 0 ? 0 : -1;
	case OPT_KEEP:
		w->o.keep_seconds = strtod(optarg, &end);
		if (*optarg && !*end && w->o.keep_seconds >= 0 && w->o.keep_seconds <= 1e7)
			return 0;
		fprintf(stderr, "kmtrace watch: invalid --keep '%s'\n", optarg);
		return -1;
	case 'h':
		usage(stdout);
		return 1;
	default:
		usage(stderr);
		return -1;
	}
}

/*
 * --on-limit: the command gets the library, which holds the heap and
 * allocation limits at each call (and samples, for the callers); rss_stat
 * stays followed here. 0, or -1 after saying why.
 */
static int in_process(struct watch *w)
{
	if (!w->o.command) {
		fprintf(stderr, "kmtrace watch: --on-limit and --thread-alloc-limit need -- COMMAND "
			"(a running process cannot load the library)\n");
		return -1;
	}
	if (kmt_cmd_heap_lib("watch", w->heap_lib, sizeof(w->heap_lib)))
		return -1;
	w->o.user = false;
	w->o.user_sample = KMT_HEAP_DEFAULT_INTERVAL;
	w->o.heap_lib = w->heap_lib;
	w->o.heap_limit = w->limit[LIMIT_HEAP];
	w->o.alloc_limit = w->limit[LIMIT_ALLOC];
	w->o.thread_alloc_limit = w->limit[LIMIT_THREAD];
	return 0;
}

static int parse_args(struct watch *w, int argc, char **argv)
{
	int c, ret, i;

	while ((c = getopt_long(argc, argv, "+p:o:fb:h", longopts, NULL)) != -1)
		if ((ret = take_option(w, c)))
			return ret;
	if (optind < argc)
		w->o.command = argv + optind;
	if (!w->o.command == !w->o.npids) {
		fprintf(stderr, "kmtrace watch: give -p PID or -- COMMAND (one of them)\n");
		return -1;
	}
	for (i = 0; i < LIMIT_NR && !w->limit[i]; i++)
		;
	if (i == LIMIT_NR) {
		fprintf(stderr, "kmtrace watch: no limit (--heap-limit, --rss-limit, --alloc-limit "
			"or --thread-alloc-limit)\n");
		return -1;
	}
	return w->in_process ? in_process(w) : 0;
}

static void show_notice(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "kmtrace watch: %s\n", line);
}

int kmt_cmd_watch(int argc, char **argv)
{
	static const char *const events[] = { "kmem:rss_stat" };
	struct watch w = { .o = { .events = events, .nevents = 1, .user = true,
				  .limit_signal = SIGTERM, .buffer_kb = WATCH_BUFFER_KB,
				  .keep_seconds = WATCH_KEEP_SECONDS,
				  .no_kallsyms = true, .notice = show_notice },
			   .top = 5 };
	struct kmt_record_result res;
	struct kmt_error err;
	int ret;

	w.o.pids = w.pids;
	ret = parse_args(&w, argc, argv);
	if (ret)
		return ret > 0 ? 0 : KMT_EXIT_INPUT;
	if (kmt_watch_init(&w)) {
		fprintf(stderr, "kmtrace watch: out of memory\n");
		return KMT_EXIT_FAIL;
	}
	w.o.watch_data = kmt_watch_data;
	w.o.watch_tick = kmt_watch_tick;
	w.o.ctx = &w;
	w.o.command_ignores_sigpipe = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	ret = kmt_record(&w.o, &res, &err);
	if (ret) {
		kmt_error_print(&err);
		kmt_watch_free(&w);
		return ret == -2 ? KMT_EXIT_INPUT : KMT_EXIT_FAIL;
	}
	kmt_watch_say(&w, &res, stderr);
	free(res.cpus);
	ret = res.stopped_by == KMT_STOP_LIMIT || w.fired >= 0 ? EXIT_LIMIT : 0;
	kmt_watch_free(&w);
	return ret;
}
