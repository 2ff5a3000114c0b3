// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace top: a live view of the last interval, read from an instance of
 * its own: slab by cache and by call site, pages, faults and reclaim
 * stalls by process. Refreshes the terminal, or with --once / --count N
 * prints N intervals one after another for scripts.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#include <kmtrace/analysis.h>
#include <kmtrace/error.h>
#include <kmtrace/event.h>
#include <kmtrace/output.h>
#include "cmd.h"
#include "analyses/cachename.h"
#include "capture/live.h"
#include "capture/procscan.h"
#include "common/hashmap.h"
#include "common/util.h"
#include "input/symbols.h"

#define TOP_READ_NS	100000000ull	/* the buffers are read this often */
#define TOP_BUFFER_KB	8192

enum top_table { TT_CACHES, TT_CALLSITES, TT_PAGES, TT_FAULTS, TT_RECLAIM, TT_NR };

/* What the screen shows: all tables, or one view (keys 0-4, v cycles). */
enum top_view { TV_ALL, TV_SLAB, TV_PAGES, TV_FAULTS, TV_RECLAIM, TV_NR };

static const char *const view_names[TV_NR] = { "all", "slab", "pages", "faults", "reclaim" };
static const char *const sort_keys[] = { "allocs", "frees", "bytes", "requested" };

/* A row: its key, its name and up to four values (meaning per table). */
struct top_row {
	uint64_t key;
	char name[48];
	uint64_t v[4];
};

struct top_rows {
	struct kmt_hashmap index;
	struct top_row *rows;
	uint32_t n, cap;
};

/* What one interval counted. */
struct top_tally {
	struct top_rows t[TT_NR];
	uint64_t first_ts, last_ts, events;
};

struct top_opts {
	uint64_t interval_ns;
	long long count;		/* intervals to print; 0: until SIGINT */
	long long limit;		/* rows per table */
	int sort;			/* value column the slab tables sort by */
	enum kmt_format format;
	const char *pids, *comm;
	bool human;
};

struct top {
	const struct top_opts *o;
	struct kmt_decoder *dec;
	struct tep_handle *tep;
	struct kmt_symbols *syms;
	struct kmt_cache_namer namer;
	struct top_tally tally[2];
	struct top_tally *cur;		/* the interval being counted */
	struct top_tally *shown;	/* the last complete one, on the screen */
	struct kmt_hashmap open_stalls;	/* pid -> begin ts */
	struct kmt_proctable *procs;	/* JSON: the tasks /proc showed */
	uint64_t first_ts, last_ts, events;
	bool nomem;
	struct kmt_top_keys keys;	/* on a terminal: q, space, s, v, 0-4 */
	int sort;			/* value column the slab tables sort by */
	enum top_view view;
	bool paused, quit;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static struct top_row *row_of(struct top *tp, enum top_table tt, uint64_t key)
{
	struct top_rows *r = &tp->cur->t[tt];
	bool made;
	uint32_t i = kmt_hashmap_row(&r->index, key, &r->rows, &r->cap, &r->n, sizeof(*r->rows),
				     &made);

	if (i == KMT_HASHMAP_NO_ROW) {
		tp->nomem = true;
		return NULL;
	}
	r->rows[i].key = key;
	return &r->rows[i];
}

/* The comm of @pid: the tracer's, else /proc's while the process lives. */
static void name_process(struct top *tp, int pid, char *name, size_t len)
{
	const char *comm = tep_data_comm_from_pid(tp->tep, pid);
	char path[64];
	FILE *fp;

	snprintf(name, len, "%s", comm && strcmp(comm, "<...>") ? comm : "<...>");
	if (strcmp(name, "<...>"))
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fp = fopen(path, "re");
	if (fp && fgets(name, len, fp))
		name[strcspn(name, "\n")] = '\0';
	if (fp)
		fclose(fp);
}

/* The row of process @pid in table @tt, named by its comm. */
static struct top_row *proc_row(struct top *tp, enum top_table tt, int pid)
{
	struct top_row *r = row_of(tp, tt, (uint32_t)pid);

	if (r && !r->name[0])
		name_process(tp, pid, r->name, sizeof(r->name));
	return r;
}

/* The cache of a slab event, named as slab --cache names it; kfree's name none. */
static struct top_row *cache_row(struct top *tp, const struct kmt_event *ev)
{
	char name[48];
	struct top_row *r;

	if (ev->type == KMT_EV_KFREE)
		snprintf(name, sizeof(name), "kmalloc-* (kfree)");
	else
		kmt_cache_name(&tp->namer, ev, name, sizeof(name));
	r = row_of(tp, TT_CACHES, kmt_hash_bytes(name, strlen(name)));
	if (r && !r->name[0])
		memcpy(r->name, name, sizeof(name));
	return r;
}

static void slab_event(struct top *tp, const struct kmt_event *ev, bool alloc)
{
	struct top_row *c = cache_row(tp, ev), *s;

	if (!c)
		return;
	if (!alloc) {
		c->v[1]++;
		return;
	}
	c->v[0]++;
	c->v[2] += ev->bytes_alloc;
	c->v[3] += ev->bytes_req;
	s = row_of(tp, TT_CALLSITES, ev->call_site);
	if (s) {
		s->v[0]++;
		s->v[2] += ev->bytes_alloc;
		s->v[3] += ev->bytes_req;
	}
}

static void stall_event(struct top *tp, const struct kmt_event *ev, bool begin)
{
	uint64_t since;
	struct top_row *r;

	if (begin) {
		if (kmt_hashmap_put(&tp->open_stalls, (uint32_t)ev->pid, ev->ts))
			tp->nomem = true;
		return;
	}
	if (!kmt_hashmap_del(&tp->open_stalls, (uint32_t)ev->pid, &since) ||
	    !(r = proc_row(tp, TT_RECLAIM, ev->pid)))
		return;
	r->v[0]++;
	r->v[1] += ev->ts - since;
	r->v[2] = ev->ts - since > r->v[2] ? ev->ts - since : r->v[2];
	r->v[3] += ev->reclaim.nr_reclaimed;
}

static void take_event(struct top *tp, const struct kmt_event *ev)
{
	struct top_row *r;

	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_CACHE_ALLOC:
		return slab_event(tp, ev, !kmt_event_alloc_failed(ev));
	case KMT_EV_KFREE:
	case KMT_EV_CACHE_FREE:
		if (!kmt_event_frees_nothing(ev))
			slab_event(tp, ev, false);
		return;
	case KMT_EV_PAGE_ALLOC:
	case KMT_EV_PAGE_FREE:
	case KMT_EV_PAGE_FREE_BATCHED:
		if ((r = proc_row(tp, TT_PAGES, ev->pid)))
			r->v[ev->type == KMT_EV_PAGE_ALLOC ? 0 : 1] +=
				ev->type == KMT_EV_PAGE_FREE_BATCHED ? 1 : 1ull << (ev->order & 31);
		return;
	case KMT_EV_FAULT_USER:
	case KMT_EV_FAULT_KERNEL:
		if ((r = proc_row(tp, TT_FAULTS, ev->pid)))
			r->v[ev->type == KMT_EV_FAULT_USER ? 0 : 1]++;
		return;
	case KMT_EV_DIRECT_RECLAIM_BEGIN:
	case KMT_EV_MEMCG_RECLAIM_BEGIN:
		return stall_event(tp, ev, true);
	case KMT_EV_DIRECT_RECLAIM_END:
	case KMT_EV_MEMCG_RECLAIM_END:
		return stall_event(tp, ev, false);
	default:
		return;
	}
}

static void on_record(const void *data, int size, unsigned long long ts, int cpu, void *ctx)
{
	struct top *tp = ctx;
	struct kmt_event ev;

	if (kmt_decode(tp->dec, data, size, &ev) == KMT_EV_UNKNOWN || (ev.flags & KMT_EVF_IMPOSSIBLE))
		return;
	ev.ts = ts;
	ev.cpu = cpu;
	if (!tp->cur->events++)
		tp->cur->first_ts = ts;
	tp->cur->last_ts = ts > tp->cur->last_ts ? ts : tp->cur->last_ts;
	take_event(tp, &ev);
}

/* What by_value() sorts: rows, by one of their values. */
struct row_order {
	const struct top_row *rows;
	int col;
};

static int by_value(uint32_t a, uint32_t b, void *ctx)
{
	const struct top_row *rows = ((const struct row_order *)ctx)->rows;
	int col = ((const struct row_order *)ctx)->col;

	if (rows[a].v[col] != rows[b].v[col])
		return rows[a].v[col] < rows[b].v[col] ? 1 : -1;
	return a < b ? -1 : a > b;
}

struct top_table_desc {
	const char *name, *title;
	int ncols;
	struct kmt_column cols[5];
};

static const struct top_table_desc tables[TT_NR] = {
	[TT_CACHES] = { "caches", "Slab by cache", 5,
		{ { "cache", "CACHE", KMT_KIND_STRING }, { "allocs", "ALLOCS", KMT_KIND_COUNT },
		  { "frees", "FREES", KMT_KIND_COUNT }, { "bytes", "BYTES", KMT_KIND_BYTES },
		  { "requested", "REQUESTED", KMT_KIND_BYTES } } },
	[TT_CALLSITES] = { "callsites", "Slab allocations by call site", 4,
		{ { "callsite", "CALLSITE", KMT_KIND_SYMBOL }, { "allocs", "ALLOCS", KMT_KIND_COUNT },
		  { "bytes", "BYTES", KMT_KIND_BYTES },
		  { "requested", "REQUESTED", KMT_KIND_BYTES } } },
	[TT_PAGES] = { "pages", "Pages by process", 4,
		{ { "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
		  { "allocated", "ALLOCATED", KMT_KIND_COUNT }, { "freed", "FREED", KMT_KIND_COUNT } } },
	[TT_FAULTS] = { "faults", "Faults by process", 4,
		{ { "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
		  { "user", "USER", KMT_KIND_COUNT }, { "kernel", "KERNEL", KMT_KIND_COUNT } } },
	[TT_RECLAIM] = { "reclaim", "Reclaim stalls by process", 5,
		{ { "pid", "PID", KMT_KIND_COUNT }, { "comm", "COMM", KMT_KIND_STRING },
		  { "stalls", "STALLS", KMT_KIND_COUNT }, { "time", "TIME", KMT_KIND_NS },
		  { "max", "MAX", KMT_KIND_NS } } },
};

/* The cells of row @r of table @tt. */
static void row_cells(struct top *tp, enum top_table tt, const struct top_row *r,
		      union kmt_cell *cell, char *sym, size_t len)
{
	unsigned long long start;
	const char *mod, *name;

	switch (tt) {
	case TT_CACHES:
	case TT_CALLSITES:
		if (tt == TT_CACHES) {
			cell[0].s = r->name;
		} else {
			name = tp->syms ? kmt_symbols_find(tp->syms, r->key, &start, &mod) : NULL;
			if (name)
				snprintf(sym, len, "%s+0x%llx%s%s%s", name, r->key - start,
					 mod ? " [" : "", mod ? mod : "", mod ? "]" : "");
			else
				snprintf(sym, len, "0x%llx", (unsigned long long)r->key);
			cell[0].s = sym;
		}
		cell[1].u = r->v[0];	/* allocs, [frees,] bytes, requested */
		cell[2].u = r->v[tt == TT_CACHES ? 1 : 2];
		cell[3].u = r->v[tt == TT_CACHES ? 2 : 3];
		cell[4].u = r->v[3];
		return;
	default:
		cell[0].u = r->key;
		cell[1].s = r->name;
		cell[2].u = r->v[0];
		cell[3].u = r->v[1];
		cell[4].u = r->v[2];
		return;
	}
}

static int report_table(struct top *tp, struct kmt_output *out, enum top_table tt)
{
	const struct top_table_desc *d = &tables[tt];
	struct top_rows *rows = &tp->shown->t[tt];
	struct row_order order = { rows->rows, tt <= TT_CALLSITES ? tp->sort : 0 };
	struct kmt_table *t = kmt_output_table(out, d->name, d->title, d->ncols, d->cols);
	uint32_t *idx = t ? kmt_sorted_index(rows->n, by_value, &order) : NULL;
	uint32_t i;
	int ret = 0;

	if (!idx)
		return -1;
	for (i = 0; i < rows->n && (tp->o->limit <= 0 || i < tp->o->limit) && !ret; i++) {
		union kmt_cell cell[5];
		char sym[256];

		row_cells(tp, tt, &rows->rows[idx[i]], cell, sym, sizeof(sym));
		ret = kmt_table_row(t, cell);
	}
	free(idx);
	return ret;
}

/* Does the current view show table @tt? */
static bool shown(const struct top *tp, enum top_table tt)
{
	switch (tp->view) {
	case TV_SLAB: return tt == TT_CACHES || tt == TT_CALLSITES;
	case TV_PAGES: return tt == TT_PAGES;
	case TV_FAULTS: return tt == TT_FAULTS;
	case TV_RECLAIM: return tt == TT_RECLAIM;
	default: return true;
	}
}

/* The keys line under the screen, when keys are read. */
static void keys_line(const struct top *tp)
{
	if (!tp->keys.on)
		return;
	printf("\n[%s] q quit  space pause  s sort (%s)  v view (%s)  0 all 1 slab 2 pages "
	       "3 faults 4 reclaim\n", tp->paused ? "paused" : "live", sort_keys[tp->sort],
	       view_names[tp->view]);
}

/* Empty @y for a new interval. 0, or -1 when out of memory. */
static int reset_tally(struct top_tally *y)
{
	int tt;

	for (tt = 0; tt < TT_NR; tt++) {
		y->t[tt].n = 0;
		kmt_hashmap_free(&y->t[tt].index);
		if (kmt_hashmap_init(&y->t[tt].index))
			return -1;
	}
	y->events = y->first_ts = y->last_ts = 0;
	return 0;
}

/* The interval counted so far goes on the screen; the next one starts empty. */
static int end_interval(struct top *tp)
{
	struct top_tally *done = tp->cur;

	tp->cur = tp->shown;
	tp->shown = done;
	return reset_tally(tp->cur);
}

/* Draw the last complete interval, number @n, with @lost events lost so far. */
static int print_interval(struct top *tp, long long n, unsigned long long lost)
{
	const struct top_tally *y = tp->shown;
	struct kmt_output *out = kmt_output_new(tp->o->format, stdout, tp->o->human);
	uint64_t allocs = 0;
	int tt, ret;
	uint32_t i;

	if (!out)
		return -1;
	for (i = 0; i < y->t[TT_CACHES].n; i++)
		allocs += y->t[TT_CACHES].rows[i].v[0];
	if (tp->o->format == KMT_FORMAT_TEXT && !tp->o->count && isatty(STDOUT_FILENO))
		fputs("\033[H\033[J", stdout);
	ret = kmt_output_begin(out, "top") ||
	      kmt_output_count(out, "interval", "Interval", n) ||
	      kmt_output_ns(out, "first_ts", "First event (s)", y->first_ts) ||
	      kmt_output_ns(out, "last_ts", "Last event (s)", y->last_ts) ||
	      kmt_output_count(out, "events", "Events", y->events) ||
	      kmt_output_count(out, "lost", "Lost so far", lost) ||
	      kmt_output_count(out, "slab_allocs", "Slab allocations", allocs);
	for (tt = 0; tt < TT_NR && !ret; tt++)
		if (shown(tp, tt))
			ret = report_table(tp, out, tt);
	if (!ret && tp->procs) {
		ret = kmt_procscan(tp->procs, NULL, false);
		kmt_output_processes(out, kmt_proctable_lookup, tp->procs);
	}
	if (ret) {
		kmt_output_discard(out);
		return -1;
	}
	ret = kmt_output_finish(out, NULL);
	keys_line(tp);
	fflush(stdout);
	return ret;
}

/* Act on key @c: quit, pause, next sort key, next or chosen view. */
static void take_key(struct top *tp, int c)
{
	switch (c) {
	case 'q':
	case 'Q':
		tp->quit = true;
		break;
	case ' ':
	case 'p':
		tp->paused = !tp->paused;
		break;
	case 's':
		tp->sort = (tp->sort + 1) % 4;
		break;
	case 'v':
		tp->view = (tp->view + 1) % TV_NR;
		break;
	default:
		if (c >= '0' && c < '0' + TV_NR)
			tp->view = c - '0';
		break;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Read every TOP_READ_NS, print every interval, until the count or a signal. */
static int run(struct top *tp, struct kmt_live *live)
{
	uint64_t next = now_ns() + tp->o->interval_ns;
	long long n = 0;

	while (!stop_signal && !tp->quit) {
		uint64_t now = now_ns();
		int key = kmt_top_keys_wait(&tp->keys, next > now && next - now < TOP_READ_NS ?
						       next - now : TOP_READ_NS);

		if (stop_signal)
			break;
		take_key(tp, key);
		if (kmt_live_read(live, on_record, tp) < 0 || tp->nomem)
			return -1;
		/* a key redraws the last interval at once, in its new view or order */
		if (key && n && !tp->quit && print_interval(tp, n, kmt_live_lost(live)))
			return -1;
		if (now_ns() < next)
			continue;
		if (end_interval(tp))
			return -1;
		n++;
		/* paused, the screen stays while counting goes on */
		if (!tp->paused && print_interval(tp, n, kmt_live_lost(live)))
			return -1;
		if (tp->o->count && n >= tp->o->count)
			break;
		tracefs_load_cmdlines(NULL, tp->tep);	/* the names of new processes */
		next += tp->o->interval_ns;
	}
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kmtrace top [options]\n\n"
		"A live view of kernel memory over the last interval: slab by cache and by\n"
		"call site, pages, faults and reclaim stalls by process.\n\n"
		"  -d, --interval MS   the interval (default 1000)\n"
		"  -n, --count N       print N intervals, one after another, and exit\n"
		"      --once          the same as --count 1\n"
		"  -l N                rows per table (default 10, 0: all)\n"
		"  -s KEY              sort the slab tables by allocs, frees, bytes or requested\n"
		"  -p, --pid PID,...   only these processes and their children\n"
		"      --comm NAME     only processes named NAME\n"
		"      --format FMT    text (default) or json (a document per interval)\n"
		"  -H                  sizes in KiB, MiB\n"
		"  -h, --help          this help\n\n"
		"On a terminal, keys: q quit, space pause, s sort, v or 0-4 view (see\n"
		"kmtrace-top(1)).\n\n"
		"It reads its own tracing instance (kmtrace-PID) and removes it when it\n"
		"ends: after the count, on SIGINT or SIGTERM. Exit status: 0, 1 when tracing\n"
		"failed, 2 for a bad request.\n");
}

static int parse_sort(const char *arg, int *col)
{
	static const char *const keys[] = { "allocs", "frees", "bytes", "requested" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(arg, keys[i])) {
			*col = i;
			return 0;
		}
	return -1;
}

/* The process list for set_event_pid: "1,2" becomes "1 2". */
static char *pid_list(const char *arg)
{
	char *s = strdup(arg), *p;

	for (p = s; p && *p; p++) {
		if (*p == ',')
			*p = ' ';
		else if (*p < '0' || *p > '9')
			return free(s), NULL;
	}
	return s;
}

static int parse_opts(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'd' }, { "count", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, 'O' }, { "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'C' }, { "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	struct kmt_error err = { 0 };
	int c, f;

	while ((c = getopt_long(argc, argv, "d:n:l:s:p:Hh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (kmt_parse_interval_ms(optarg, &o->interval_ns, &err))
				goto bad;
			break;
		case 'n':
			if (kmt_parse_count(optarg, "--count", &o->count, &err))
				goto bad;
			break;
		case 'O':
			o->count = 1;
			break;
		case 'l':
			if (kmt_parse_count(optarg, "-l", &o->limit, &err))
				goto bad;
			break;
		case 's':
			if (parse_sort(optarg, &o->sort)) {
				kmt_error_set(&err, NULL, -1, "-s: allocs, frees, bytes or requested");
				goto bad;
			}
			break;
		case 'p':
			if (!(o->pids = pid_list(optarg))) {
				kmt_error_set(&err, NULL, -1, "--pid: a list of process ids, e.g. 12,34");
				goto bad;
			}
			break;
		case 'C':
			if (strchr(optarg, '"') || strchr(optarg, '\\') || strlen(optarg) > 15) {
				kmt_error_set(&err, NULL, -1, "--comm: a process name of up to 15 bytes");
				goto bad;
			}
			o->comm = optarg;
			break;
		case 'F':
			f = kmt_format_parse(optarg);
			if (f != KMT_FORMAT_TEXT && f != KMT_FORMAT_JSON) {
				kmt_error_set(&err, NULL, -1, "--format: text or json");
				goto bad;
			}
			o->format = f;
			break;
		case 'H':
			o->human = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind == argc)
		return 0;
	kmt_error_set(&err, NULL, -1, "unexpected argument '%s'", argv[optind]);
bad:
	fprintf(stderr, "kmtrace top: %s\n", err.msg);
	return -1;
}

static const char *const top_events[] = {
	"kmem:kmalloc", "kmem:kmem_cache_alloc", "kmem:kfree", "kmem:kmem_cache_free",
	"kmem:mm_page_alloc", "kmem:mm_page_free", "kmem:mm_page_free_batched",
	"exceptions:page_fault_user", "exceptions:page_fault_kernel",
	"vmscan:mm_vmscan_direct_reclaim_begin", "vmscan:mm_vmscan_direct_reclaim_end",
	"vmscan:mm_vmscan_memcg_reclaim_begin", "vmscan:mm_vmscan_memcg_reclaim_end",
};

static int init_top(struct top *tp, struct kmt_live *live)
{
	int tt;

	tp->tep = kmt_live_tep(live);
	tp->dec = kmt_decoder_new(tp->tep);
	kmt_cache_namer_init(&tp->namer, tp->tep);
	if (!tp->dec || kmt_hashmap_init(&tp->open_stalls))
		return -1;
	if (tp->o->format == KMT_FORMAT_JSON &&
	    (!(tp->procs = kmt_proctable_new()) || kmt_procscan(tp->procs, NULL, false)))
		return -1;
	for (tt = 0; tt < TT_NR; tt++)
		if (kmt_hashmap_init(&tp->tally[0].t[tt].index) ||
		    kmt_hashmap_init(&tp->tally[1].t[tt].index))
			return -1;
	tp->cur = &tp->tally[0];
	tp->shown = &tp->tally[1];
	tp->sort = tp->o->sort;
	tracefs_load_cmdlines(NULL, tp->tep);
	tp->syms = kmt_symbols_read("/proc/kallsyms");
	return 0;
}

static void free_top(struct top *tp)
{
	int tt;

	for (tt = 0; tt < TT_NR; tt++) {
		kmt_hashmap_free(&tp->tally[0].t[tt].index);
		free(tp->tally[0].t[tt].rows);
		kmt_hashmap_free(&tp->tally[1].t[tt].index);
		free(tp->tally[1].t[tt].rows);
	}
	kmt_hashmap_free(&tp->open_stalls);
	kmt_proctable_free(tp->procs);
	kmt_decoder_free(tp->dec);
	kmt_symbols_free(tp->syms);
}

int kmt_cmd_top(int argc, char **argv)
{
	struct top_opts o = { .interval_ns = 1000000000ull, .limit = 10 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct kmt_error err = { 0 };
	char filter[64];
	struct top tp = { .o = &o };
	struct kmt_live *live;
	int ret;

	if (parse_opts(argc, argv, &o))
		return KMT_EXIT_INPUT;
	if (o.comm)
		snprintf(filter, sizeof(filter), "comm == \"%s\"", o.comm);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	live = kmt_live_start(&(struct kmt_live_opts){
		.events = top_events, .nevents = sizeof(top_events) / sizeof(top_events[0]),
		.pids = o.pids, .filter = o.comm ? filter : NULL, .buffer_kb = TOP_BUFFER_KB }, &err);
	free((char *)o.pids);
	if (!live) {
		fprintf(stderr, "kmtrace top: %s\n", err.msg);
		return KMT_EXIT_FAIL;
	}
	if (kmt_live_missing(live)[0])
		fprintf(stderr, "kmtrace top: not on this kernel, left out: %s\n",
			kmt_live_missing(live));
	/* keys only where someone watches the screen redrawn */
	if (o.format == KMT_FORMAT_TEXT && !o.count && kmt_top_keys_start(&tp.keys))
		fprintf(stderr, "kmtrace top: cannot read keys from the terminal; going on without\n");
	ret = init_top(&tp, live) ? -1 : run(&tp, live);
	kmt_top_keys_stop(&tp.keys);
	free_top(&tp);
	kmt_live_stop(live);
	if (ret)
		fprintf(stderr, "kmtrace top: %s\n", strerror(errno ? errno : ENOMEM));
	return ret ? KMT_EXIT_FAIL : 0;
}
