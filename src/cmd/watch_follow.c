// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace watch, following the events: each spooled sub-buffer is walked
 * and decoded as it comes; at every tick the events so far go in time order
 * to the umem analysis (heap, allocations, callers) and to the RSS of each
 * mm, and the totals are held against the limits. The callers are named
 * from the processes' own maps and ELF files at the moment a limit fires,
 * while they still run.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs/tracefs.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include "cmd.h"
#include "watch_local.h"
#include "analyses/umem.h"
#include "container/elfsyms.h"
#include "container/subbuf.h"
#include "common/heaprec.h"
#include "common/procmaps.h"
#include "common/util.h"

#define PAGE_DATA	16	/* sub-buffer header: time stamp, commit (64-bit kernels) */
#define MM_RSS_MEMBERS	((1 << 0) | (1 << 1) | (1 << 3))	/* file, anon, shmem */

extern const struct kmt_analysis kmt_analysis_umem;

static const char *const limit_names[LIMIT_NR] = { "--heap-limit", "--rss-limit",
						   "--alloc-limit", "--thread-alloc-limit" };
static const char *const limit_what[LIMIT_NR] = { "live heap", "RSS", "allocated",
						  "allocated by the thread" };

int kmt_watch_init(struct watch *w)
{
	w->fired = -1;
	w->umem = kmt_analysis_umem.init();
	if (!w->umem || kmt_analysis_umem.start(w->umem, NULL) || kmt_hashmap_init(&w->mm_of))
		return -1;
	return 0;
}

void kmt_watch_free(struct watch *w)
{
	if (w->umem)
		kmt_analysis_umem.free(w->umem);
	kmt_decoder_free(w->dec);
	tep_free(w->tep);
	kmt_hashmap_free(&w->mm_of);
	free(w->mms);
	free(w->pending);
	free(w->callers);
	free(w->stack);
}

/*
 * The formats of the watched events, read once they all exist (the uprobes
 * are made after the watch starts, and removed before the last tick); only
 * those: libtracefs's loaders would parse kallsyms too.
 */
static bool have_decoder(struct watch *w)
{
	static const char *const events[][2] = {
		{ "kmem", "rss_stat" }, { "kmtrace_user", "call" }, { "kmtrace_user", "return" },
		{ "ftrace", "raw_data" },
	};
	size_t i;

	if (w->tep_tried)
		return w->dec;
	w->tep_tried = true;
	if (!(w->tep = tep_alloc()))
		return false;
	tep_set_long_size(w->tep, sizeof(long));
	tep_set_page_size(w->tep, getpagesize());
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		char *fmt = tracefs_event_file_read(NULL, events[i][0], events[i][1], "format",
						    NULL);

		if (fmt)
			tep_parse_event(w->tep, fmt, strlen(fmt), events[i][0]);
		free(fmt);
	}
	w->dec = kmt_decoder_new(w->tep);
	return w->dec;
}

/*
 * A record of the library: its frames are in the sub-buffer, which does not
 * stay. Those of the first limit record are copied; the others go (the
 * callers the watch shows need only the first frame, call_site).
 */
static void take_frames(struct watch *w, struct kmt_event *ev)
{
	int i;

	if ((ev->arg[2] & KMT_HEAP_LIMIT) && !w->limit_nframes) {
		for (i = 0; i < ev->str_len / 8 && i < 16; i++)
			w->limit_frames[i] = kmt_event_user_frame(ev, i);
		w->limit_nframes = i;
		w->limit_tgid = ev->target_pid > 0 ? (int)ev->target_pid : ev->pid;
	}
	ev->str = NULL;
	ev->str_len = 0;
}

static void keep_event(struct watch *w, const struct kmt_event *ev)
{
	if (kmt_grow(&w->pending, &w->cap_pending, w->npending, sizeof(*w->pending))) {
		w->nomem = true;
		return;
	}
	w->pending[w->npending++] = *ev;
}

void kmt_watch_data(void *ctx, int cpu, const void *subbuf, size_t len)
{
	struct watch *w = ctx;
	const unsigned char *page = subbuf;
	unsigned long long ts, commit = 0;
	struct kmt_rb_order order = { false, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ };
	struct kmt_rb_step st;
	unsigned int pos = PAGE_DATA, end;

	if (len < PAGE_DATA || !have_decoder(w))
		return;
	memcpy(&ts, page, 8);
	memcpy(&commit, page + 8, 8);
	end = PAGE_DATA + (commit & KMT_RB_COMMIT_MASK);
	if (end > len)
		return;
	while (kmt_rb_step(order, page, pos, end, &st) > 0) {
		struct kmt_event ev;

		pos = st.next;
		ts = kmt_rb_time_after(&st, ts);
		if (st.type >= KMT_RB_PADDING)
			continue;
		if (kmt_decode(w->dec, page + st.data_at, st.data_len, &ev) == KMT_EV_UNKNOWN ||
		    (ev.flags & KMT_EVF_IMPOSSIBLE))
			continue;
		ev.ts = ts;
		ev.cpu = cpu;
		if (ev.type == KMT_EV_U_SAMPLE)
			take_frames(w, &ev);
		keep_event(w, &ev);
	}
}

static int by_time(const void *a, const void *b)
{
	const struct kmt_event *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* rss_stat: the mm's member; an mm counts once a task updated it as its own. */
static void take_rss(struct watch *w, const struct kmt_event *ev)
{
	uint64_t idx;

	if (ev->member < 0 || ev->member >= 4)
		return;
	if (!kmt_hashmap_get(&w->mm_of, ev->mm_id, &idx)) {
		if (!ev->curr)
			return;		/* an mm not of the traced processes */
		if (kmt_grow(&w->mms, &w->cap_mms, w->nmms, sizeof(*w->mms)) ||
		    kmt_hashmap_put(&w->mm_of, ev->mm_id, w->nmms)) {
			w->nomem = true;
			return;
		}
		memset(&w->mms[w->nmms], 0, sizeof(*w->mms));
		idx = w->nmms++;
	}
	if (MM_RSS_MEMBERS >> ev->member & 1) {	/* the running total, and its peak */
		w->rss += (ev->size > 0 ? ev->size : 0) -
			  (w->mms[idx].member[ev->member] > 0 ? w->mms[idx].member[ev->member] : 0);
		if (w->rss > (long long)w->peak[LIMIT_RSS])
			w->peak[LIMIT_RSS] = w->rss;
	}
	w->mms[idx].member[ev->member] = ev->size;
}

static void totals(struct watch *w)
{
	const struct umem_state *u = w->umem;
	unsigned long long heap = 0, alloc = 0;
	uint32_t i;
	int l;

	for (i = 0; i < u->nprocs; i++) {
		heap += u->procs[i].live_bytes;
		alloc += u->procs[i].requested;
	}
	w->now[LIMIT_HEAP] = heap;
	w->now[LIMIT_RSS] = w->rss > 0 ? w->rss : 0;
	w->now[LIMIT_ALLOC] = alloc;
	for (l = 0; l < LIMIT_NR; l++)
		if (w->now[l] > w->peak[l])
			w->peak[l] = w->now[l];
}

/* What name_address() looks for, and what it found. */
struct naming {
	unsigned long long addr;
	char *buf;
	size_t len;
	bool named;
};

static bool name_in(void *ctx, const struct kmt_mapping *m)
{
	struct naming *n = ctx;
	struct kmt_elfsyms e;
	char why[256];

	if (n->addr < m->start || n->addr >= m->end)
		return false;
	if (!kmt_elfsyms_load(&e, m->path, why, sizeof(why))) {
		n->named = kmt_elfsyms_describe(&e, m->path, n->addr - m->start + m->pgoff, n->buf,
						n->len);
		kmt_elfsyms_free(&e);
	}
	return true;
}

/* @addr of @pid as "function+0xOFF [file]" from its maps and ELF file, now; else 0xADDR. */
static void name_address(int pid, unsigned long long addr, char *buf, size_t len)
{
	struct naming n = { addr, buf, len, false };

	kmt_for_each_mapping(pid, name_in, &n);
	if (!n.named)
		snprintf(buf, len, "0x%llx", addr);
}

static int by_live(const void *a, const void *b)
{
	const struct umem_caller *x = a, *y = b;

	return x->live_bytes < y->live_bytes ? 1 : x->live_bytes > y->live_bytes ? -1 : 0;
}

/* The top callers by live heap, named now, as lines for kmt_watch_say(). */
static void take_callers(struct watch *w)
{
	const struct umem_state *u = w->umem;
	struct umem_caller *c = malloc((u->ncallers ? u->ncallers : 1) * sizeof(*c));
	char *text = NULL, sym[512], a[32], b[32];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	uint32_t i;

	if (!c || !fp) {
		free(c);
		if (fp)
			fclose(fp);
		free(text);
		return;
	}
	memcpy(c, u->callers, u->ncallers * sizeof(*c));
	qsort(c, u->ncallers, sizeof(*c), by_live);
	fprintf(fp, "  %10s  %10s  %8s  %7s  CALLER\n", "LIVE", "ALLOCATED", "CALLS", "PID");
	for (i = 0; i < u->ncallers && i < (uint32_t)w->top; i++) {
		name_address(c[i].tgid, c[i].addr, sym, sizeof(sym));
		fprintf(fp, "  %10s  %10s  %8llu  %7d  %s\n",
			kmt_cmd_human(c[i].live_bytes, a, sizeof(a)),
			kmt_cmd_human(c[i].bytes, b, sizeof(b)), (unsigned long long)c[i].calls,
			c[i].tgid, sym);
	}
	fclose(fp);
	free(c);
	w->callers = text;
}

/* The frames of the crossing call, named now, as lines for kmt_watch_say(). */
static void take_stack(struct watch *w)
{
	char *text = NULL, sym[512];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int i;

	if (!fp)
		return;
	for (i = 0; i < w->limit_nframes; i++) {
		name_address(w->limit_tgid, w->limit_frames[i], sym, sizeof(sym));
		fprintf(fp, "    %s\n", sym);
	}
	fclose(fp);
	w->stack = text;
}

/* What the library did at the crossing call (--on-limit). */
static void say_in_process(const struct watch *w, FILE *fp)
{
	static const char *const done[] = { [KMT_HEAP_SIGNAL] = "SIG%s sent to the process",
					    [KMT_HEAP_FAIL] = "it failed with ENOMEM (and so does "
							      "each call past the limit)",
					    [KMT_HEAP_STOP] = "the process is stopped (SIGSTOP): "
							      "attach a debugger, or kill it" };
	const char *sig = sigabbrev_np(w->o.limit_signal ? w->o.limit_signal : SIGTERM);
	char a[32], b[32], c[32], what[160];
	int l = w->fired;

	snprintf(what, sizeof(what), done[w->o.limit_action], sig ? sig : "?");
	fprintf(fp, "kmtrace watch: %s %s crossed after %.3f s by a call asking %s in thread %d "
		"(%s then %s): %s\n", limit_names[l], kmt_cmd_human(w->limit[l], a, sizeof(a)),
		(w->fired_at - w->first_ts) / 1e9, kmt_cmd_human(w->asked, b, sizeof(b)),
		w->fired_tid, limit_what[l], kmt_cmd_human(w->at_fire[l], c, sizeof(c)), what);
	fprintf(fp, "kmtrace watch: the call's stack:\n%s", w->stack ? w->stack : "    (none)\n");
	fprintf(fp, "kmtrace watch: top callers by live heap then (sampled estimates):\n%s",
		w->callers ? w->callers : "  (none known)\n");
}

/*
 * The library's record that a limit was crossed (--on-limit): the first one
 * counts, and is said at once (a stopped process waits for the user).
 */
static void take_limit_record(struct watch *w, const struct kmt_event *ev)
{
	static const int which[] = { [KMT_HEAP_LIMIT_HEAP] = LIMIT_HEAP,
				     [KMT_HEAP_LIMIT_ALLOC] = LIMIT_ALLOC,
				     [KMT_HEAP_LIMIT_THREAD] = LIMIT_THREAD };
	unsigned int kind = ev->arg[0] & 0xff;

	if (w->fired >= 0 || !kind || kind > KMT_HEAP_LIMIT_THREAD)
		return;
	w->fired = which[kind];
	w->fired_at = ev->ts;
	memcpy(w->at_fire, w->now, sizeof(w->at_fire));
	w->at_fire[w->fired] = ev->ptr;
	w->asked = ev->bytes_req;
	w->fired_tid = ev->pid;
	take_callers(w);
	take_stack(w);
	say_in_process(w, stderr);
}

/* Is limit @l one this watch holds against the events (not the library's)? */
static bool followed_here(const struct watch *w, int l)
{
	return !w->in_process || l == LIMIT_RSS;
}

bool kmt_watch_tick(void *ctx, bool final)
{
	struct watch *w = ctx;
	uint32_t i;
	int l;

	have_decoder(w);	/* at the first tick: the recorder makes one before the command runs */
	qsort(w->pending, w->npending, sizeof(*w->pending), by_time);
	for (i = 0; i < w->npending; i++) {
		const struct kmt_event *ev = &w->pending[i];

		if (!w->first_ts)
			w->first_ts = ev->ts;
		w->last_ts = ev->ts;
		if (ev->type == KMT_EV_RSS_STAT)
			take_rss(w, ev);
		if (ev->type == KMT_EV_U_SAMPLE && (ev->arg[2] & KMT_HEAP_LIMIT))
			take_limit_record(w, ev);
		/* live, it goes on and says its figures are short */
		if ((kmt_analysis_umem.events & KMT_EVMASK(ev->type)) &&
		    kmt_analysis_umem.event(w->umem, ev))
			w->nomem = true;
	}
	w->npending = 0;
	totals(w);
	for (l = 0; l < LIMIT_NR && w->fired < 0 && !final; l++) {
		if (w->limit[l] && followed_here(w, l) && w->now[l] > w->limit[l]) {
			w->fired = l;
			w->fired_at = w->last_ts;
			memcpy(w->at_fire, w->now, sizeof(w->at_fire));
			take_callers(w);
		}
	}
	/* the library acted itself: the command runs on (or stopped) as it chose */
	return w->fired >= 0 && followed_here(w, w->fired);
}

void kmt_watch_say(const struct watch *w, const struct kmt_record_result *res, FILE *fp)
{
	char a[32], b[32], c[32];
	int l = w->fired;

	if (l < 0) {
		fprintf(fp, "kmtrace watch: within the limits; peaks: live heap %s, RSS %s, "
			"allocated %s%s\n", kmt_cmd_human(w->peak[LIMIT_HEAP], a, sizeof(a)),
			kmt_cmd_human(w->peak[LIMIT_RSS], b, sizeof(b)),
			kmt_cmd_human(w->peak[LIMIT_ALLOC], c, sizeof(c)),
			w->in_process ? " (heap and allocated: sampled estimates)" : "");
	} else if (followed_here(w, l)) {	/* the library's limits: said as they came */
		fprintf(fp, "kmtrace watch: %s %s passed after %.3f s: %s %s, %s over; "
			"SIG%s sent to the traced processes\n", limit_names[l],
			kmt_cmd_human(w->limit[l], a, sizeof(a)),
			(w->fired_at - w->first_ts) / 1e9, limit_what[l],
			kmt_cmd_human(w->at_fire[l], b, sizeof(b)),
			kmt_cmd_human(w->at_fire[l] - w->limit[l], c, sizeof(c)),
			sigabbrev_np(w->o.limit_signal) ? sigabbrev_np(w->o.limit_signal) : "?");
		fprintf(fp, "kmtrace watch: then live heap %s, RSS %s, allocated %s; top callers "
			"by live heap:\n%s", kmt_cmd_human(w->at_fire[LIMIT_HEAP], a, sizeof(a)),
			kmt_cmd_human(w->at_fire[LIMIT_RSS], b, sizeof(b)),
			kmt_cmd_human(w->at_fire[LIMIT_ALLOC], c, sizeof(c)),
			w->callers ? w->callers : "  (none known)\n");
	}
	if (w->nomem)
		fprintf(fp, "kmtrace watch: ran out of memory following the events: the figures "
			"are short\n");
	if (w->o.output && res->ncpus)
		fprintf(fp, "kmtrace watch: recording written to %s (kmtrace report -i %s umem)\n",
			w->o.output, w->o.output);
}
