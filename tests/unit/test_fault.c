// SPDX-License-Identifier: LGPL-2.1
/* fault analysis and vmmap: pairing, outcomes, classes, rusage, mappings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include <stdint.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "analyses/exited.h"
#include "analyses/fault.h"
#include "analyses/latency.h"
#include "analyses/vmmap.h"
#include "fixtures.h"
#include "suites.h"

extern const struct kmt_analysis kmt_analysis_fault;

static const char fmt_fault_return[] =
	"name: fault_return\n"
	"ID: 2000\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 ret;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"(%lx <- %lx) ret=%u\", REC->__probe_func, REC->__probe_ret_ip, REC->ret\n";

static char *path;
static struct kmt_session sess;

/* An empty recording with @opts, and the kprobe's format when @kprobe. */
static void open_with(const struct kmt_td_option *opts, int nopts, bool kprobe)
{
	struct fix_page *pages[2] = { NULL, NULL };
	struct kmt_td_format formats[8];
	int npages[2] = { 0, 0 };
	struct kmt_tracedat_meta m;
	struct kmt_error err;

	fix_meta(&m, opts, nopts);
	memcpy(formats, m.formats, m.nformats * sizeof(*formats));
	if (kprobe)
		formats[m.nformats++] = (struct kmt_td_format){ "kmtrace", fmt_fault_return,
								strlen(fmt_fault_return) };
	m.formats = formats;
	path = fix_write_tracedat(&m, 2, pages, npages);
	sess.input = path;
	sess.reader = kmt_reader_open(path, &err);
	ck_assert_ptr_nonnull(sess.reader);
	sess.tep = kmt_reader_tep(sess.reader);
}

static void close_session(void)
{
	kmt_reader_close(sess.reader);
	unlink(path);
	free(path);
}

#define UNAME	"Linux host 6.18.0 #1 SMP x86_64"
#define RUSAGE	"pid=100 minflt=12 majflt=1 maxrss_kb=4 minflt_before=3 majflt_before=0"

static struct fault_state *fault_new(void)
{
	struct fault_state *st = kmt_analysis_fault.init();

	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(kmt_analysis_fault.start(st, &sess), 0);
	return st;
}

static void fault(struct fault_state *st, unsigned long long ts, int pid, unsigned long long code)
{
	struct kmt_event ev = { .type = KMT_EV_FAULT_USER, .ts = ts, .pid = pid,
				.address = 0x7f0000001000ull, .ip = 0x401000, .error_code = code };

	ck_assert_int_eq(kmt_analysis_fault.event(st, &ev), 0);
}

static void fault_ret(struct fault_state *st, unsigned long long ts, int pid, long long ret)
{
	struct kmt_event ev = { .type = KMT_EV_FAULT_RETURN, .ts = ts, .pid = pid, .ret = ret };

	ck_assert_int_eq(kmt_analysis_fault.event(st, &ev), 0);
}

static void fork_(struct fault_state *st, unsigned long long ts, int parent, int child)
{
	struct kmt_event ev = { .type = KMT_EV_FORK, .ts = ts, .pid = parent,
				.target_pid = child };

	ck_assert_int_eq(kmt_analysis_fault.event(st, &ev), 0);
}

/* Resolve what is pending, as the report does, without printing. */
static void finish(struct fault_state *st)
{
	FILE *fp = fopen("/dev/null", "w");
	struct kmt_output *out = kmt_output_new(KMT_FORMAT_JSON, fp, 0);

	ck_assert_int_eq(kmt_output_begin(out, "fault"), 0);
	ck_assert_int_eq(kmt_analysis_fault.report(st, &sess, out), 0);
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	fclose(fp);
}

/* The perf samples both pairing tests use, as "TIME TID CPU ADDR m|M". */
static const char pairing_text[] =
	"1300 101 1 7f0000001000 m\n"
	"1500 100 0 7f0000001000 m\n"
	"2600 100 1 7f0000001000 M\n"
	"4100 100 0 7f0000001000 m\n"
	"5000 100 0 7f0000001000 m\n"
	"5100 999 0 7f0000001000 m\n";

/* The same samples in the layout kmtrace record writes now. */
static void *pairing_bin(size_t *size)
{
	static const struct { uint64_t t; uint32_t tid; bool major; } s[] = {
		{ 1300, 101, false }, { 1500, 100, false }, { 2600, 100, true },
		{ 4100, 100, false }, { 5000, 100, false }, { 5100, 999, false },
	};
	const size_t n = sizeof(s) / sizeof(s[0]);
	uint32_t *buf = calloc(1, 8 + n * sizeof(struct kmt_td_fault_sample));
	struct kmt_td_fault_sample *f = (void *)(buf + 2);
	size_t i;

	buf[0] = KMT_TD_FAULT_SAMPLES_VERSION;
	buf[1] = sizeof(*f);
	for (i = 0; i < n; i++)
		f[i] = (struct kmt_td_fault_sample){ .time = s[i].t, .addr = 0x7f0000001000ull,
						     .tid = s[i].tid, .major = s[i].major };
	*size = 8 + n * sizeof(*f);
	return buf;
}

/* Pair faults with the samples of option @samples_id. */
static void check_pairing(unsigned short samples_id, const void *samples, size_t size)
{
	static const char source[] = "perf lost=0 minor-faults major-faults (kprobe: none)";
	const struct kmt_td_option opts[] = {
		KMT_TD_OPT(KMT_TD_OPT_UNAME, UNAME, sizeof(UNAME)),
		KMT_TD_OPT(KMT_TD_OPT_KMT_FAULT_SOURCE, source, sizeof(source)),
		KMT_TD_OPT(samples_id, samples, size),
		KMT_TD_OPT(KMT_TD_OPT_KMT_RUSAGE, RUSAGE, sizeof(RUSAGE)),
	};
	struct fault_state *st;

	open_with(opts, 4, false);
	st = fault_new();
	ck_assert_int_eq(st->source, FS_PERF);
	ck_assert_uint_eq(st->nsamples, 6);
	ck_assert(st->x86);
	fork_(st, 900, 100, 101);
	fault(st, 1000, 100, 0x6);	/* user write, not present: minor at 1500 */
	fault(st, 1200, 101, 0x4);	/* the child: minor at 1300 */
	fault(st, 2000, 100, 0x4);	/* user read: major at 2600 */
	fault(st, 3000, 100, 0x4);	/* no sample before the next fault */
	fault(st, 4000, 100, 0x15);	/* user exec, protection: minor at 4100 */
	fault(st, 6000, 100, 0x0);	/* kernel read: no sample at all */
	finish(st);
	ck_assert_uint_eq(st->total.faults, 6);
	ck_assert_uint_eq(st->total.out[FAULT_MINOR], 3);
	ck_assert_uint_eq(st->total.out[FAULT_MAJOR], 1);
	ck_assert_uint_eq(st->total.out[FAULT_UNRESOLVED], 2);
	ck_assert_uint_eq(st->without_event[0], 1);	/* 5000; tid 999 is not traced */
	ck_assert_uint_eq(st->command_out[0], 4);	/* 100's three and its child's */
	ck_assert_uint_eq(st->command_out[1], 1);
	ck_assert_uint_eq(st->total.cls[FC_USER], 5);
	ck_assert_uint_eq(st->total.cls[FC_KERNEL], 1);
	ck_assert_uint_eq(st->total.cls[FC_WRITE], 1);
	ck_assert_uint_eq(st->total.cls[FC_EXEC], 1);
	ck_assert_uint_eq(st->total.cls[FC_READ], 4);
	ck_assert_uint_eq(st->total.cls[FC_PROTECTION], 1);
	ck_assert_uint_eq(st->total.cls[FC_NOT_PRESENT], 5);
	ck_assert_uint_eq(st->total.lat_n, 4);
	ck_assert_uint_eq(st->total.lat_max, 600);
	ck_assert_uint_eq(st->total.lat_sum, 500 + 100 + 600 + 100);
	kmt_analysis_fault.free(st);
	close_session();
}

START_TEST(test_perf_pairing_text)
{
	check_pairing(KMT_TD_OPT_KMT_FAULT_SAMPLES, pairing_text, sizeof(pairing_text));
}
END_TEST

START_TEST(test_perf_pairing_binary)
{
	size_t size;
	void *bin = pairing_bin(&size);

	check_pairing(KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN, bin, size);
	free(bin);
}
END_TEST

/* A damaged sample array is said, and no sample of it is used. */
START_TEST(test_perf_samples_damaged)
{
	static const char source[] = "perf lost=0 minor-faults major-faults (kprobe: none)";
	size_t size;
	uint32_t *bin = pairing_bin(&size);
	struct kmt_td_fault_sample *f = (void *)(bin + 2);
	struct fault_state *st;
	int how;

	for (how = 0; how < 3; how++) {
		const struct kmt_td_option opts[] = {
			KMT_TD_OPT(KMT_TD_OPT_UNAME, UNAME, sizeof(UNAME)),
			KMT_TD_OPT(KMT_TD_OPT_KMT_FAULT_SOURCE, source, sizeof(source)),
			KMT_TD_OPT(KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN, bin, size - (how == 0)),
		};

		if (how == 1)
			f[3].time = 1;		/* out of time order */
		if (how == 2)
			bin[1] = 7;		/* a record size that cannot be */
		open_with(opts, 3, false);
		st = fault_new();
		ck_assert_uint_eq(st->nsamples, 0);
		ck_assert_str_eq(st->source_text, "perf samples damaged: outcomes not trusted");
		kmt_analysis_fault.free(st);
		close_session();
	}
	free(bin);
}
END_TEST

/*
 * Many samples, in both layouts, read in one linear pass: 300,000 of them
 * took minutes when each text line was scanned with sscanf (which measures
 * the rest of the text every time); the test's timeout guards against that.
 */
START_TEST(test_perf_samples_many)
{
	static const char source[] = "perf lost=0 minor-faults major-faults (kprobe: none)";
	const size_t n = 300000;
	char *text = malloc(n * 32 + 1), *p = text;
	uint32_t *bin = malloc(8 + n * sizeof(struct kmt_td_fault_sample));
	struct kmt_td_fault_sample *f = (void *)(bin + 2);
	struct fault_state *st;
	size_t i;
	int layout;

	bin[0] = KMT_TD_FAULT_SAMPLES_VERSION;
	bin[1] = sizeof(*f);
	for (i = 0; i < n; i++) {
		p += sprintf(p, "%zu %d 0 7f0000001000 %c\n", 1000 + i, 100, i % 7 ? 'm' : 'M');
		f[i] = (struct kmt_td_fault_sample){ .time = 1000 + i, .tid = 100,
						     .major = !(i % 7) };
	}
	for (layout = 0; layout < 2; layout++) {
		const struct kmt_td_option opts[] = {
			KMT_TD_OPT(KMT_TD_OPT_UNAME, UNAME, sizeof(UNAME)),
			KMT_TD_OPT(KMT_TD_OPT_KMT_FAULT_SOURCE, source, sizeof(source)),
			layout ? (struct kmt_td_option)KMT_TD_OPT(KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN,
								  bin, 8 + n * sizeof(*f)) :
				 (struct kmt_td_option)KMT_TD_OPT(KMT_TD_OPT_KMT_FAULT_SAMPLES,
								  text, p - text + 1),
		};

		open_with(opts, 3, false);
		st = fault_new();
		ck_assert_uint_eq(st->nsamples, n);
		ck_assert(st->have_sample && st->sample.ts == 1000 && st->sample.major);
		fault(st, 999, 100, 0x4);
		finish(st);
		ck_assert(!st->have_sample);
		ck_assert_uint_eq(st->total.out[FAULT_MAJOR], 1);	/* the sample at 1000 */
		ck_assert_uint_eq(st->without_event[0] + st->without_event[1], n - 1);
		/* every 7th is major: all read, in order, past the pages given back */
		ck_assert_uint_eq(st->without_event[1], (n + 6) / 7 - 1);
		kmt_analysis_fault.free(st);
		close_session();
	}
	free(text);
	free(bin);
}
END_TEST

START_TEST(test_kprobe_outcomes)
{
	const struct kmt_td_option opts[] = { KMT_TD_OPT(KMT_TD_OPT_UNAME, UNAME, sizeof(UNAME)) };
	struct fault_state *st;

	struct kmt_decoder *dec;
	struct kmt_event ev;
	unsigned char payload[28] = { 0 };
	uint32_t ret = 0x404;

	open_with(opts, 1, true);
	/* the probe's payload decodes to its return value */
	dec = kmt_decoder_new(sess.tep);
	fix_common(payload, 2000, 100, sizeof(payload));
	memcpy(payload + 24, &ret, 4);
	ck_assert_int_eq(kmt_decode(dec, payload, sizeof(payload), &ev), KMT_EV_FAULT_RETURN);
	ck_assert_int_eq(ev.ret, 0x404);
	ck_assert_int_eq(ev.pid, 100);
	kmt_decoder_free(dec);
	st = fault_new();
	ck_assert_int_eq(st->source, FS_KPROBE);
	fault(st, 10, 100, 0x4);
	fault_ret(st, 20, 100, 0x400);	/* VM_FAULT_RETRY: called again */
	fault_ret(st, 30, 100, 0x0);	/* completes: major because it retried */
	fault(st, 40, 100, 0x4);
	fault_ret(st, 45, 100, 0x4);	/* VM_FAULT_MAJOR */
	fault(st, 60, 100, 0x6);
	fault_ret(st, 61, 100, 0x40);	/* VM_FAULT_SIGSEGV */
	fault(st, 70, 100, 0x6);
	fault_ret(st, 72, 100, 0x2);	/* VM_FAULT_SIGBUS */
	fault_ret(st, 75, 100, 0x0);	/* no fault event: get_user_pages() */
	fault(st, 80, 100, 0x6);
	fault_ret(st, 83, 100, 0x100);	/* VM_FAULT_NOPAGE alone: minor */
	fault(st, 90, 100, 0x6);
	fault_ret(st, 91, 100, 0x1);	/* VM_FAULT_OOM */
	finish(st);
	ck_assert_uint_eq(st->total.faults, 6);
	ck_assert_uint_eq(st->total.out[FAULT_MAJOR], 2);
	ck_assert_uint_eq(st->total.out[FAULT_MINOR], 1);
	ck_assert_uint_eq(st->total.out[FAULT_SIGSEGV], 1);
	ck_assert_uint_eq(st->total.out[FAULT_SIGBUS], 1);
	ck_assert_uint_eq(st->total.out[FAULT_OOM], 1);
	ck_assert_uint_eq(st->total.out[FAULT_UNRESOLVED], 0);
	ck_assert_uint_eq(st->total.retried, 1);
	ck_assert_uint_eq(st->without_event[0], 1);
	ck_assert_uint_eq(st->total.lat_max, 20);
	kmt_analysis_fault.free(st);
	close_session();
}
END_TEST

START_TEST(test_no_source_not_x86)
{
	static const char uname[] = "Linux host 6.18.0 #1 SMP aarch64";
	const struct kmt_td_option opts[] = { KMT_TD_OPT(KMT_TD_OPT_UNAME, uname, sizeof(uname)) };
	struct fault_state *st;

	open_with(opts, 1, false);
	st = fault_new();
	ck_assert_int_eq(st->source, FS_NONE);
	ck_assert(!st->x86);
	fault(st, 10, 100, 0x6);
	finish(st);
	ck_assert_uint_eq(st->total.faults, 1);
	ck_assert_uint_eq(st->total.cls[FC_UNKNOWN], 1);
	ck_assert_uint_eq(st->total.cls[FC_WRITE], 0);
	ck_assert_uint_eq(st->total.out[FAULT_UNRESOLVED], 0);	/* nothing to pair with */
	kmt_analysis_fault.free(st);
	close_session();
}
END_TEST

static void sys(struct vmmap *m, enum kmt_event_type enter, const unsigned long long *args,
		long long ret, unsigned long long ts)
{
	struct kmt_event ev = { .type = enter, .ts = ts, .pid = 7 };
	struct vm_task *t;

	memcpy(ev.arg, args, sizeof(ev.arg));
	ck_assert_int_eq(kmt_vmmap_event(m, &ev, &t), 0);
	ck_assert_ptr_nonnull(t);
	ev.type = enter + 1;
	ev.ret = ret;
	ck_assert_int_eq(kmt_vmmap_event(m, &ev, &t), 0);
	ck_assert_ptr_nonnull(t);
}

START_TEST(test_vmmap)
{
	struct vmmap m;
	struct vm_task *t;
	const struct vm_region *r;
	struct kmt_event ev = { .type = KMT_EV_FORK, .pid = 7, .target_pid = 8 };
	struct vm_task *child;

	ck_assert_int_eq(kmt_vmmap_init(&m), 0);
	/* anonymous 3 pages, then a hole punched in the middle */
	sys(&m, KMT_EV_MMAP_ENTER, (unsigned long long[6]){ 0, 0x3000, 3, 0x22, -1ull, 0 },
	    0x10000, 1);
	sys(&m, KMT_EV_MUNMAP_ENTER, (unsigned long long[6]){ 0x11000, 0x1000 }, 0, 2);
	t = kmt_vmmap_task(&m, 7);
	ck_assert_uint_eq(vmmap_nregions(t), 2);
	ck_assert_int_eq(t->net, 0x2000);
	ck_assert_int_eq(t->peak, 0x3000);
	ck_assert_ptr_null(kmt_vmmap_find(&m, 7, 0x11800));
	ck_assert_int_eq(kmt_vmmap_find(&m, 7, 0x12fff)->kind, VM_ANON);
	/* a file mapping of 100 bytes takes a page; a failed mmap changes nothing */
	sys(&m, KMT_EV_MMAP_ENTER, (unsigned long long[6]){ 0, 100, 1, 0x2, 5, 0 }, 0x20000, 3);
	sys(&m, KMT_EV_MMAP_ENTER, (unsigned long long[6]){ 0, 100, 1, 0x2, 5, 0 }, -12, 4);
	r = kmt_vmmap_find(&m, 7, 0x20010);
	ck_assert_int_eq(r->kind, VM_FILE);
	ck_assert_int_eq(r->fd, 5);
	ck_assert_int_eq(t->net, 0x3000);
	/* mremap moves the first anon page and grows it to two */
	sys(&m, KMT_EV_MREMAP_ENTER, (unsigned long long[6]){ 0x10000, 0x1000, 0x2000, 1, 0 },
	    0x30000, 5);
	ck_assert_ptr_null(kmt_vmmap_find(&m, 7, 0x10000));
	ck_assert_int_eq(kmt_vmmap_find(&m, 7, 0x31000)->kind, VM_ANON);
	ck_assert_int_eq(t->net, 0x4000);
	/* brk(0) finds the heap, then it grows by two pages */
	sys(&m, KMT_EV_BRK_ENTER, (unsigned long long[6]){ 0 }, 0x50000, 6);
	sys(&m, KMT_EV_BRK_ENTER, (unsigned long long[6]){ 0x52000 }, 0x52000, 7);
	ck_assert_int_eq(kmt_vmmap_find(&m, 7, 0x51000)->kind, VM_HEAP);
	ck_assert_int_eq(t->net, 0x6000);
	ck_assert_uint_eq(t->peak_ts, 7);
	/* the child has a copy; exec empties it */
	ck_assert_int_eq(kmt_vmmap_event(&m, &ev, &child), 0);
	ck_assert_ptr_nonnull(child);
	ck_assert_int_eq(kmt_vmmap_find(&m, 8, 0x51000)->kind, VM_HEAP);
	ev = (struct kmt_event){ .type = KMT_EV_EXEC, .pid = 8 };
	ck_assert_int_eq(kmt_vmmap_event(&m, &ev, &child), 0);
	ck_assert_ptr_nonnull(child);
	ck_assert_ptr_null(kmt_vmmap_find(&m, 8, 0x51000));
	ck_assert_ptr_nonnull(kmt_vmmap_find(&m, 7, 0x51000));
	/* an exit gives the regions back, not the counts; a child sharing them keeps them */
	ev = (struct kmt_event){ .type = KMT_EV_FORK, .pid = 7, .target_pid = 9 };
	ck_assert_int_eq(kmt_vmmap_event(&m, &ev, &child), 0);
	kmt_vmmap_exit(&m, 7);
	kmt_vmmap_exit(&m, 12345);	/* never seen: nothing */
	t = kmt_vmmap_task(&m, 7);
	ck_assert_ptr_null(t->regions);
	ck_assert_ptr_null(kmt_vmmap_find(&m, 7, 0x20010));
	ck_assert_int_eq(t->net, 0x6000);
	ck_assert_int_eq(kmt_vmmap_find(&m, 9, 0x20010)->kind, VM_FILE);
	/* forgotten, pid 7's next task is a new one; a slot given back goes to the next new task */
	ck_assert_uint_eq(m.made, 3);
	kmt_vmmap_forget(&m, (uint32_t)(t - m.tasks));
	ck_assert_ptr_null(kmt_vmmap_task(&m, 7));
	ck_assert_int_eq(t->net, 0x6000);	/* its counts stay */
	ck_assert_int_eq(kmt_vmmap_give_back(&m, (uint32_t)(t - m.tasks)), 0);
	ck_assert_uint_eq(t->seq, 0);
	sys(&m, KMT_EV_BRK_ENTER, (unsigned long long[6]){ 0 }, 0x70000, 8);
	ck_assert_ptr_eq(kmt_vmmap_task(&m, 7), t);
	ck_assert_uint_eq(t->seq, 4);
	ck_assert_int_eq(t->net, 0);
	ck_assert_uint_eq(m.ntasks, 3);
	kmt_vmmap_free(&m);
}
END_TEST

/* Exact nearest-rank percentile @pct of the @n latencies at @ns (sorted here). */
static uint64_t exact_pct(uint64_t *ns, uint32_t n, unsigned int pct)
{
	uint64_t rank = ((uint64_t)n * pct + 99) / 100;

	qsort(ns, n, sizeof(*ns), fix_cmp_u64);
	return ns[rank ? rank - 1 : 0];
}

static void assert_near(uint64_t got, uint64_t want, const char *what)
{
	double err = want ? ((double)got - (double)want) / (double)want : (double)got;

	ck_assert_msg(err <= KMT_LATENCY_ERROR && err >= -KMT_LATENCY_ERROR,
		      "%s: %llu, exact %llu (%.3f%%)", what, (unsigned long long)got,
		      (unsigned long long)want, 100 * err);
}

/*
 * Latencies past KMT_LATENCY_EXACT_MAX go into the sketch: p50 and p99 of
 * each row and of all within KMT_LATENCY_ERROR of the exact ones, over six
 * decades; and exact while there are few.
 */
START_TEST(test_latency_sketch)
{
	enum { ROWS = 3, N = 400000 };
	struct kmt_latencies l = { 0 }, few = { 0 };
	uint64_t *all = malloc(N * sizeof(*all)), *row[ROWS], first[1000], p50, p99, seed = 42;
	uint32_t nrow[ROWS] = { 0 }, i, r;

	/* none yet: zeros, and nothing read */
	ck_assert_int_eq(kmt_latencies_overall(&l, &p50, &p99), 0);
	ck_assert_uint_eq(p50 + p99, 0);
	ck_assert_int_eq(kmt_latencies_sort(&l), 0);
	ck_assert_int_eq(kmt_latencies_row(&l, 0, &p50, &p99), 0);
	ck_assert_uint_eq(p50 + p99, 0);
	ck_assert_ptr_nonnull(all);
	for (r = 0; r < ROWS; r++)
		ck_assert_ptr_nonnull(row[r] = malloc(N * sizeof(uint64_t)));
	for (i = 0; i < N; i++) {
		uint64_t ns;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		r = (seed >> 33) % ROWS;
		/* 100 ns to 100 ms, log-uniform, row r a decade slower */
		ns = (uint64_t)(100 * pow(10, r + 4.0 * (double)(seed >> 11) / (1ull << 53)));
		all[i] = row[r][nrow[r]++] = ns;
		ck_assert_int_eq(kmt_latencies_add(&l, r, ns), 0);
		if (i < 1000) {
			first[i] = ns;
			ck_assert_int_eq(kmt_latencies_add(&few, r, ns), 0);
		}
	}
	ck_assert(l.sketch && l.n <= 8192);	/* 4 bytes a bucket in use, not a latency */
	ck_assert_int_eq(kmt_latencies_overall(&l, &p50, &p99), 0);
	assert_near(p50, exact_pct(all, N, 50), "p50");
	assert_near(p99, exact_pct(all, N, 99), "p99");
	ck_assert_int_eq(kmt_latencies_sort(&l), 0);
	for (r = 0; r < ROWS; r++) {
		ck_assert_int_eq(kmt_latencies_row(&l, r, &p50, &p99), 0);
		assert_near(p50, exact_pct(row[r], nrow[r], 50), "row p50");
		assert_near(p99, exact_pct(row[r], nrow[r], 99), "row p99");
	}
	/* few: exact */
	ck_assert_int_eq(kmt_latencies_overall(&few, &p50, &p99), 0);
	ck_assert_uint_eq(p99, exact_pct(first, 1000, 99));
	ck_assert_uint_eq(p50, exact_pct(first, 1000, 50));
	kmt_latencies_free(&l);
	kmt_latencies_free(&few);
	/* one bucket past 65,535 latencies (a packed count's limit) */
	for (i = 0; i < 2 * KMT_LATENCY_EXACT_MAX; i++)
		ck_assert_int_eq(kmt_latencies_add(&l, 7, 777), 0);
	ck_assert_int_eq(kmt_latencies_add(&l, 7, 3), 0);
	ck_assert_int_eq(kmt_latencies_overall(&l, &p50, &p99), 0);
	ck_assert_uint_eq(p50, 777);
	ck_assert_int_eq(kmt_latencies_sort(&l), 0);
	ck_assert_int_eq(kmt_latencies_row(&l, 7, &p50, &p99), 0);
	ck_assert_uint_eq(p50, 777);
	ck_assert_uint_eq(p99, 777);
	ck_assert_int_eq(kmt_latencies_row(&l, 8, &p50, &p99), 0);	/* a row with none */
	ck_assert_uint_eq(p50, 0);
	kmt_latencies_free(&l);
	for (r = 0; r < ROWS; r++)
		free(row[r]);
	free(all);
}
END_TEST

/* The overall and per-row percentiles of @a and @b are the same; rows below @rows. */
static void assert_same_latencies(struct kmt_latencies *a, struct kmt_latencies *b,
				  const bool *asked, uint32_t rows)
{
	uint64_t p50a, p99a, p50b, p99b;
	uint32_t r;

	ck_assert_int_eq(kmt_latencies_overall(a, &p50a, &p99a), 0);
	ck_assert_int_eq(kmt_latencies_overall(b, &p50b, &p99b), 0);
	ck_assert_uint_eq(p50a, p50b);
	ck_assert_uint_eq(p99a, p99b);
	ck_assert_int_eq(kmt_latencies_sort(a), 0);
	ck_assert_int_eq(kmt_latencies_sort(b), 0);
	for (r = 0; r < rows; r++) {
		if (!asked[r])
			continue;
		ck_assert_int_eq(kmt_latencies_row(a, r, &p50a, &p99a), 0);
		ck_assert_int_eq(kmt_latencies_row(b, r, &p50b, &p99b), 0);
		ck_assert_uint_eq(p50a, p50b);
		ck_assert_uint_eq(p99a, p99b);
	}
}

/*
 * A retired row's latencies stay in the overall percentiles, before the
 * sketch (they follow into it) and in it (its buckets freed); the rows
 * still asked for keep theirs.
 */
START_TEST(test_latency_retire)
{
	enum { ROWS = 500, N = 300000 };
	struct kmt_latencies kept = { 0 }, retired = { 0 };
	bool asked[ROWS];
	uint64_t seed = 7;
	uint32_t i, r, freed = 0;

	for (r = 0; r < ROWS; r++)
		asked[r] = true;
	for (i = 0; i < N; i++) {
		uint64_t ns;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		r = (seed >> 33) % ROWS;
		if (!asked[r])
			continue;	/* a retired row takes no more */
		ns = (uint64_t)(50 * pow(10, 5.0 * (double)(seed >> 11) / (1ull << 53)));
		ck_assert_int_eq(kmt_latencies_add(&kept, r, ns), 0);
		ck_assert_int_eq(kmt_latencies_add(&retired, r, ns), 0);
		if (i % 1000 == 999 && r % 5) {	/* 4 rows in 5 go, some while still exact */
			ck_assert_int_eq(kmt_latencies_retire(&retired, r), 0);
			asked[r] = false;
		}
	}
	ck_assert(retired.sketch);
	for (r = 0; r < ROWS; r++)
		freed += !asked[r];
	ck_assert_uint_gt(freed, 100);
	for (r = 0; r < retired.nrows; r++)	/* a retired row's buckets are given back */
		ck_assert(asked[r] || (!retired.rows[r].b && !retired.rows[r].n));
	ck_assert_uint_lt(retired.n, kept.n);
	assert_same_latencies(&kept, &retired, asked, ROWS);
	kmt_latencies_free(&kept);
	kmt_latencies_free(&retired);
}
END_TEST

/* The unit test's table: values, and what kmt_exited did with its rows. */
struct exited_table {
	uint32_t value[2000];
	uint32_t detached[2000], ndetached;
	bool gone[2000];
	struct kmt_exited *e;
};

/* Rank of the unit test's rows: larger value first, then the lower index. */
static int rank_values(uint32_t a, uint32_t b, void *ctx)
{
	const uint32_t *v = ((const struct exited_table *)ctx)->value;

	if (v[a] != v[b])
		return v[a] < v[b] ? 1 : -1;
	return a < b ? -1 : a > b;
}

static void detach_row(void *ctx, uint32_t row)
{
	struct exited_table *t = ctx;

	t->detached[t->ndetached++] = row;
}

static int drop_row(void *ctx, uint32_t row)
{
	struct exited_table *t = ctx;

	ck_assert(!t->gone[row]);
	t->gone[row] = true;
	return kmt_exited_give(t->e, row);
}

/*
 * Rows settled in a random order, with ties: each is detached once, in
 * exit order and only when due; the ones kept are exactly the LINES that
 * rank first, every other one goes once, and rows given back come out
 * again for new ones.
 */
START_TEST(test_exited_top)
{
	enum { ROWS = 2000, LINES = 20 };
	static const struct kmt_exited_ops ops = { rank_values, detach_row, drop_row };
	static struct exited_table t;
	uint32_t order[ROWS], i, left = 0, reused;
	struct kmt_exited e;
	uint64_t seed = 99;

	for (i = 0; i < ROWS; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		t.value[i] = (uint32_t)(seed >> 33) % 300;	/* many ties */
		order[i] = i;
	}
	for (i = ROWS - 1; i > 0; i--) {	/* exits in a random order */
		uint32_t j, x;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		j = (uint32_t)(seed >> 33) % (i + 1);
		x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	kmt_exited_init(&e, LINES, &ops, &t);
	t.e = &e;
	for (i = 0; i < ROWS; i++)
		ck_assert_int_eq(kmt_exited_add(&e, order[i], (uint64_t)i * 1000), 0);
	ck_assert_int_eq(kmt_exited_until(&e, KMT_EXITED_GRACE_NS - 1), 0);
	ck_assert_uint_eq(t.ndetached, 0);	/* none due yet */
	ck_assert_int_eq(kmt_exited_until(&e, KMT_EXITED_GRACE_NS + 1000), 0);
	ck_assert_uint_eq(t.ndetached, 2);
	ck_assert_int_eq(kmt_exited_until(&e, UINT64_MAX), 0);
	ck_assert_uint_eq(t.ndetached, ROWS);
	for (i = 0; i < ROWS; i++)
		ck_assert_uint_eq(t.detached[i], order[i]);	/* in exit order */
	/* what stays is the first LINES by rank */
	for (i = 0; i < ROWS; i++) {
		uint32_t above = 0, j;

		for (j = 0; j < ROWS; j++)
			above += rank_values(j, i, &t) < 0;
		ck_assert_msg(t.gone[i] == (above >= LINES), "row %u: %u above it", i, above);
		left += !t.gone[i];
	}
	ck_assert_uint_eq(left, LINES);
	for (i = 0; i < ROWS - LINES; i++)
		ck_assert(kmt_exited_reuse(&e, &reused) && t.gone[reused]);
	ck_assert(!kmt_exited_reuse(&e, &reused));
	kmt_exited_free(&e);
}
END_TEST

Suite *fault_suite(void)
{
	Suite *s = suite_create("fault");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);	/* under ASan too; linear work takes a second */
	tcase_add_test(tc, test_perf_pairing_text);
	tcase_add_test(tc, test_perf_pairing_binary);
	tcase_add_test(tc, test_perf_samples_damaged);
	tcase_add_test(tc, test_perf_samples_many);
	tcase_add_test(tc, test_kprobe_outcomes);
	tcase_add_test(tc, test_no_source_not_x86);
	tcase_add_test(tc, test_vmmap);
	tcase_add_test(tc, test_latency_sketch);
	tcase_add_test(tc, test_latency_retire);
	tcase_add_test(tc, test_exited_top);
	suite_add_tcase(s, tc);
	return s;
}
