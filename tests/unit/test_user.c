// SPDX-License-Identifier: LGPL-2.1
/*
 * record --user and umem: the uprobe lines per architecture, the format
 * they make decoded, ELF symbols of this very binary, and the call/return
 * pairing of umem on hand-made events; record --user-sample's records
 * decoded (both byte orders, foreign ones refused) and weighted.
 */
#include <math.h>
#include <string.h>
#include <check.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/event.h>
#include "capture/uprobes.h"
#include "container/elfsyms.h"
#include "analyses/umem.h"
#include "common/heaprec.h"
#include "suites.h"

extern const struct kmt_analysis kmt_analysis_umem;

START_TEST(test_uprobe_lines_per_arch)
{
	const struct kmt_uprobe_site site = { KMT_UF_CALLOC, 0x996e0 };
	char line[512];

	kmt_uprobe_line(line, sizeof(line), kmt_uprobe_regs_of("x86_64"), "/lib/libc.so.6", &site,
			false);
	ck_assert_str_eq(line, "p:kmtrace_user/call /lib/libc.so.6:0x996e0 a0=%di:x64 a1=%si:x64 "
			 "a2=%dx:x64 caller=+0(%sp):x64 fn=\\2:u8");
	kmt_uprobe_line(line, sizeof(line), kmt_uprobe_regs_of("aarch64"), "/lib/libc.so.6", &site,
			false);
	ck_assert_str_eq(line, "p:kmtrace_user/call /lib/libc.so.6:0x996e0 a0=%x0:x64 a1=%x1:x64 "
			 "a2=%x2:x64 caller=%x30:x64 fn=\\2:u8");
	kmt_uprobe_line(line, sizeof(line), kmt_uprobe_regs_of("aarch64"), "/lib/libc.so.6", &site,
			true);
	ck_assert_str_eq(line, "r:kmtrace_user/return /lib/libc.so.6:0x996e0 ret=$retval:x64 "
			 "fn=\\2:u8");
	ck_assert_ptr_null(kmt_uprobe_regs_of("riscv64"));
	ck_assert(!kmt_user_func_returns_pointer(KMT_UF_FREE));
	ck_assert(kmt_user_func_returns_pointer(KMT_UF_REALLOC));
	kmt_uprobe_min_size_filter(line, sizeof(line), 4096);
	ck_assert_ptr_nonnull(strstr(line, "fn == 4 || fn == 2 || (fn == 1 && a0 >= 4096)"));
	ck_assert_ptr_nonnull(strstr(line, "(fn == 8 && a2 >= 4096)"));
}
END_TEST

/* The format the kernel gives the "call" event (same on x86-64 and arm64: fixed types). */
static const char call_format[] =
	"name: call\nID: 2326\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 a0;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 a1;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 a2;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 caller;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 fn;\toffset:48;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"(%lx) a0=0x%Lx a1=0x%Lx a2=0x%Lx caller=0x%Lx fn=%u\", REC->__probe_ip, "
	"REC->a0, REC->a1, REC->a2, REC->caller, REC->fn\n";

START_TEST(test_call_format_decodes)
{
	struct tep_handle *tep = tep_alloc();
	struct kmt_decoder *dec;
	unsigned char rec[56] = { 0 };
	unsigned long long v[] = { 0x7f0000001000ull, 24, 1, 2, 0x55550000abcdull };
	unsigned short id = 2326;
	int pid = 77;
	struct kmt_event ev;

	tep_set_long_size(tep, 8);
	ck_assert_int_eq(tep_parse_event(tep, call_format, strlen(call_format), "kmtrace_user"), 0);
	dec = kmt_decoder_new(tep);
	memcpy(rec, &id, 2);
	memcpy(rec + 4, &pid, 4);
	memcpy(rec + 8, v, sizeof(v));
	rec[48] = KMT_UF_MALLOC;
	ck_assert_int_eq(kmt_decode(dec, rec, 49, &ev), KMT_EV_U_CALL);
	ck_assert(kmt_event_possible(&ev));
	ck_assert_uint_eq(ev.arg[0], 24);
	ck_assert_uint_eq(ev.call_site, 0x55550000abcdull);
	ck_assert_uint_eq(ev.func, KMT_UF_MALLOC);
	rec[48] = KMT_UF_NR;		/* no such function: left out */
	kmt_decode(dec, rec, 49, &ev);
	ck_assert(!kmt_event_possible(&ev));
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

/*
 * A function of this binary whose symbol keeps its name whatever the
 * optimiser does (link-time optimisation clones or inlines library ones).
 */
__attribute__((noinline, noclone, used)) int kmt_test_elf_anchor(int x)
{
	return x * 3 + 1;
}

/* This test binary's own symbols: names, addresses and offsets agree. */
START_TEST(test_elf_symbols_of_self)
{
	struct kmt_elfsyms e;
	const struct kmt_elf_sym *s;
	char why[256];
	long long off;

	ck_assert_int_eq(kmt_elfsyms_load(&e, "/proc/self/exe", why, sizeof(why)), 0);
	ck_assert(!e.is_static);
	s = kmt_elfsyms_find(&e, "kmt_test_elf_anchor");
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_eq(kmt_elfsyms_at(&e, s->addr + 1), s);
	off = kmt_elfsyms_offset_of(&e, s->addr);
	ck_assert_int_ge(off, 0);
	ck_assert_int_eq(kmt_elfsyms_vaddr_of(&e, off), (long long)s->addr);
	ck_assert_ptr_null(kmt_elfsyms_find(&e, "no_such_function_here"));
	kmt_elfsyms_free(&e);
	ck_assert_int_eq(kmt_elfsyms_load(&e, "/proc/self/status", why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "not an ELF file"));
}
END_TEST

static void user_event(struct umem_state *st, enum kmt_event_type type, int tid,
		       enum kmt_user_func f, uint64_t a0, uint64_t a1, uint64_t ret,
		       uint64_t caller)
{
	static uint64_t ts = 1000;
	struct kmt_event ev = { .type = type, .pid = tid, .ts = ts++, .func = f,
				.arg = { a0, a1 }, .call_site = caller, .ret = (long long)ret };

	ck_assert_int_eq(kmt_analysis_umem.event(st, &ev), 0);
}

static void call(struct umem_state *st, int tid, enum kmt_user_func f, uint64_t a0,
		 uint64_t a1, uint64_t caller)
{
	user_event(st, KMT_EV_U_CALL, tid, f, a0, a1, 0, caller);
}

static void ret(struct umem_state *st, int tid, enum kmt_user_func f, uint64_t ptr)
{
	user_event(st, KMT_EV_U_RETURN, tid, f, 0, 0, ptr, 0);
}

/*
 * malloc, realloc(NULL) with glibc's inner malloc, realloc to 0, a failed
 * calloc, an untracked free, a return without its call, two threads.
 */
START_TEST(test_umem_pairs_calls_and_returns)
{
	struct umem_state *st = kmt_analysis_umem.init();
	const struct umem_proc *p;

	ck_assert_int_eq(kmt_analysis_umem.start(st, NULL), 0);
	call(st, 10, KMT_UF_MALLOC, 100, 0, 0xa);
	call(st, 11, KMT_UF_MALLOC, 50, 0, 0xb);	/* another thread, interleaved */
	ret(st, 10, KMT_UF_MALLOC, 0x1000);
	ret(st, 11, KMT_UF_MALLOC, 0x2000);
	call(st, 10, KMT_UF_REALLOC, 0, 300, 0xc);	/* realloc(NULL, 300) ... */
	call(st, 10, KMT_UF_MALLOC, 300, 0, 0xd);	/* ... calls malloc inside */
	ret(st, 10, KMT_UF_MALLOC, 0x3000);
	ret(st, 10, KMT_UF_REALLOC, 0x3000);
	call(st, 10, KMT_UF_REALLOC, 0x1000, 0, 0xc);	/* realloc(p, 0) frees p */
	ret(st, 10, KMT_UF_REALLOC, 0);
	call(st, 10, KMT_UF_CALLOC, 1ull << 40, 1ull << 30, 0xe);	/* overflows: fails */
	ret(st, 10, KMT_UF_CALLOC, 0);
	call(st, 10, KMT_UF_FREE, 0x9999, 0, 0xf);	/* never seen allocated */
	call(st, 10, KMT_UF_FREE, 0, 0, 0xf);		/* free(NULL) */
	ret(st, 10, KMT_UF_MALLOC, 0x4000);		/* its call was not seen */
	ck_assert_uint_eq(st->nprocs, 2);	/* no task lines: each thread its own */
	p = &st->procs[0];
	ck_assert_uint_eq(p->calls[KMT_UF_MALLOC], 1);
	ck_assert_uint_eq(p->calls[KMT_UF_REALLOC], 2);
	ck_assert_uint_eq(p->calls[KMT_UF_FREE], 2);
	ck_assert_uint_eq(p->live_bytes, 300);
	ck_assert_uint_eq(p->live_objs, 1);
	ck_assert_uint_eq(p->peak_bytes, 400);
	ck_assert_uint_eq(p->failed, 1);
	ck_assert_uint_eq(p->untracked_frees, 1);
	ck_assert_uint_eq(st->nested, 1);
	ck_assert_uint_eq(st->unmatched_returns, 1);
	ck_assert_uint_eq(st->procs[1].live_bytes, 50);
	kmt_analysis_umem.free(st);
}
END_TEST

/* ftrace:raw_data as the kernel gives it (trace_marker_raw's records). */
static const char raw_data_format[] = KMT_RAW_DATA_FORMAT("19");

static uint32_t swap32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t swap64(uint64_t v, bool swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

/* A record of libkmtrace-heap.so into @rec (in the other byte order when @swap); its size. */
static int heap_record(unsigned char *rec, bool swap, uint32_t id, int nframes)
{
	struct kmt_heap_rec h = { KMT_HEAP_VERSION, KMT_HEAP_ALLOC | KMT_HEAP_FREE, KMT_UF_REALLOC,
				  (uint8_t)nframes, swap32(300, swap), swap32(301, swap), 0,
				  swap64(0x5000, swap), swap64(0x4000, swap), swap64(96, swap),
				  swap64(4096, swap) };
	uint16_t type = swap ? __builtin_bswap16(19) : 19;
	uint32_t pid = swap32(301, swap), mid = swap32(id, swap);
	int i;

	memset(rec, 0, 12 + KMT_HEAP_HEADER_SIZE + nframes * 8);
	memcpy(rec, &type, 2);
	memcpy(rec + 4, &pid, 4);
	memcpy(rec + 8, &mid, 4);
	memcpy(rec + 12, &h, KMT_HEAP_HEADER_SIZE);
	for (i = 0; i < nframes; i++) {
		uint64_t ip = swap64(0x401000 + i, swap);

		memcpy(rec + 12 + KMT_HEAP_HEADER_SIZE + i * 8, &ip, 8);
	}
	return 12 + KMT_HEAP_HEADER_SIZE + nframes * 8;
}

static struct kmt_decoder *raw_data_decoder(struct tep_handle *tep, bool big_endian)
{
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	ck_assert_int_eq(tep_parse_event(tep, raw_data_format, strlen(raw_data_format), "ftrace"),
			 0);
	return kmt_decoder_new(tep);
}

/* Fields, frames in either byte order, and raw_data that is not the library's. */
START_TEST(test_heap_record_decodes)
{
	bool swap = _i == 1;
	struct tep_handle *tep = tep_alloc();
	struct kmt_decoder *dec = raw_data_decoder(tep, swap != (__BYTE_ORDER__ ==
							       __ORDER_BIG_ENDIAN__));
	unsigned char rec[12 + KMT_HEAP_HEADER_SIZE + 4 * 8];
	bool want[KMT_EV_NR] = { false };
	struct kmt_event ev;
	int size = heap_record(rec, swap, KMT_HEAP_MARKER_ID, 3);

	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_U_SAMPLE);
	ck_assert_uint_eq(ev.func, KMT_UF_REALLOC);
	ck_assert_uint_eq(ev.ptr, 0x5000);
	ck_assert_uint_eq(ev.arg[0], 0x4000);
	ck_assert_uint_eq(ev.bytes_req, 96);
	ck_assert_uint_eq(ev.arg[1], 4096);
	ck_assert_uint_eq(ev.arg[2], KMT_HEAP_ALLOC | KMT_HEAP_FREE);
	ck_assert_int_eq(ev.target_pid, 300);	/* its tid is the event's: same namespace */
	ck_assert_int_eq(ev.str_len, 24);
	ck_assert_uint_eq(kmt_event_user_frame(&ev, 0), 0x401000);
	ck_assert_uint_eq(kmt_event_user_frame(&ev, 2), 0x401002);
	ck_assert_uint_eq(kmt_event_user_frame(&ev, 3), 0);
	ck_assert_uint_eq(ev.call_site, 0x401000);
	/* a record cut short keeps the frames it holds */
	ck_assert_int_eq(kmt_decode(dec, rec, size - 12, &ev), KMT_EV_U_SAMPLE);
	ck_assert_int_eq(ev.str_len, 8);
	/* another writer's id, another version, a header cut short: not the library's */
	heap_record(rec, swap, 0x1234, 3);
	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_UNKNOWN);
	heap_record(rec, swap, KMT_HEAP_MARKER_ID, 3);
	ck_assert_int_eq(kmt_decode(dec, rec, 12 + KMT_HEAP_HEADER_SIZE - 1, &ev), KMT_EV_UNKNOWN);
	rec[12] = KMT_HEAP_VERSION + 1;
	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_UNKNOWN);
	/* decoded for its type only, the same verdicts */
	kmt_decoder_only(dec, want);
	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_UNKNOWN);
	heap_record(rec, swap, KMT_HEAP_MARKER_ID, 3);
	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_U_SAMPLE);
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

/* A SITES record of @nsites (site i: 0x401000 + i, malloc, i + 1 calls, 100 (i + 1) bytes). */
static int sites_record(unsigned char *rec, bool swap, int nsites, uint8_t func)
{
	int size = heap_record(rec, swap, KMT_HEAP_MARKER_ID, nsites * KMT_HEAP_SITE_WORDS);
	int i;

	rec[12 + 1] = KMT_HEAP_SITES;
	rec[12 + 2] = func;
	for (i = 0; i < nsites; i++) {
		uint64_t w[3] = { swap64(0x401000 + i + ((uint64_t)KMT_UF_MALLOC << 56), swap),
				  swap64(i + 1, swap), swap64(100 * (i + 1), swap) };

		memcpy(rec + 12 + KMT_HEAP_HEADER_SIZE + i * sizeof(w), w, sizeof(w));
	}
	return size;
}

/* Sites records: their sites in either byte order, whole sites of a cut one, bad ones refused. */
START_TEST(test_heap_sites_decode)
{
	bool swap = _i == 1;
	struct tep_handle *tep = tep_alloc();
	struct kmt_decoder *dec = raw_data_decoder(tep, swap != (__BYTE_ORDER__ ==
							       __ORDER_BIG_ENDIAN__));
	unsigned char rec[12 + KMT_HEAP_HEADER_SIZE + 2 * 24];
	struct kmt_heap_site site;
	struct kmt_event ev;
	int size = sites_record(rec, swap, 2, 0);

	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_U_SAMPLE);
	ck_assert_uint_eq(ev.arg[2], KMT_HEAP_SITES);
	ck_assert_uint_eq(ev.ptr, 0x5000);		/* the flags word, as written */
	ck_assert_int_eq(ev.str_len, 48);
	ck_assert_uint_eq(ev.call_site, 0);		/* no frames: no caller */
	site = kmt_event_heap_site(&ev, 1);
	ck_assert_uint_eq(site.addr, 0x401001);
	ck_assert_uint_eq(site.func, KMT_UF_MALLOC);
	ck_assert_uint_eq(site.calls, 2);
	ck_assert_uint_eq(site.bytes, 200);
	ck_assert_int_eq(kmt_decode(dec, rec, size - 8, &ev), KMT_EV_U_SAMPLE);
	ck_assert_int_eq(ev.str_len, 24);		/* cut short: the whole site left */
	sites_record(rec, swap, 2, KMT_UF_MALLOC);	/* a sites record names no call */
	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_UNKNOWN);
	sites_record(rec, swap, 2, 0);
	rec[12 + 3] = 5;				/* not whole sites */
	ck_assert_int_eq(kmt_decode(dec, rec, size, &ev), KMT_EV_UNKNOWN);
	kmt_decoder_free(dec);
	tep_free(tep);
}
END_TEST

/* A sites event of process 40: @n sites of @v, flags @flags. */
static void sites(struct umem_state *st, const struct kmt_heap_site *v, int n, uint64_t flags)
{
	static uint64_t ts = 90000;
	uint64_t w[3 * 4];
	struct kmt_event ev = { .type = KMT_EV_U_SAMPLE, .pid = 40, .ts = ts++, .ptr = flags,
				.arg = { 0, 4096, KMT_HEAP_SITES }, .target_pid = 40,
				.str = (const char *)w, .str_len = n * 24 };
	int i;

	for (i = 0; i < n; i++) {
		w[3 * i] = v[i].addr | (uint64_t)v[i].func << 56;
		w[3 * i + 1] = v[i].calls;
		w[3 * i + 2] = v[i].bytes;
	}
	ck_assert_int_eq(kmt_analysis_umem.event(st, &ev), 0);
}

static void sample(struct umem_state *st, uint8_t kind, enum kmt_user_func f, uint64_t ptr,
		   uint64_t old, uint64_t size, uint64_t interval)
{
	static uint64_t ts = 5000;
	uint64_t frames[2] = { 0x401000, 0x402000 };
	struct kmt_event ev = { .type = KMT_EV_U_SAMPLE, .pid = 40, .ts = ts++, .func = f,
				.ptr = ptr, .bytes_req = size, .arg = { old, interval, kind },
				.target_pid = 40, .call_site = 0x401000,
				.str = (const char *)frames, .str_len = sizeof(frames) };

	ck_assert_int_eq(kmt_analysis_umem.event(st, &ev), 0);
}

/* Weights: 1 at interval 1; 1 / (1 - exp(-size / interval)) of objects and bytes above. */
START_TEST(test_umem_sample_weights)
{
	struct umem_state *st = kmt_analysis_umem.init();
	const struct umem_proc *p;
	double chance = -expm1(-64.0 / 4096);
	int i;

	ck_assert_int_eq(kmt_analysis_umem.start(st, NULL), 0);
	sample(st, KMT_HEAP_ALLOC, KMT_UF_MALLOC, 0x1000, 0, 100, 1);
	sample(st, KMT_HEAP_FREE, KMT_UF_FREE, 0, 0, 0, 1);		/* free(NULL), counted */
	sample(st, KMT_HEAP_ALLOC | KMT_HEAP_FREE, KMT_UF_REALLOC, 0x1000, 0x1000, 200, 1);
	p = &st->procs[0];
	ck_assert_uint_eq(p->calls[KMT_UF_MALLOC], 1);
	ck_assert_uint_eq(p->calls[KMT_UF_FREE], 1);
	ck_assert_uint_eq(p->live_bytes, 200);		/* realloc in place: freed, then kept */
	ck_assert_uint_eq(p->live_objs, 1);
	ck_assert_uint_eq(p->requested, 300);
	sample(st, KMT_HEAP_ALLOC, KMT_UF_MALLOC, 0x2000, 0, 64, 4096);
	ck_assert_uint_eq(p->live_objs, 1 + llround(1 / chance));
	ck_assert_uint_eq(p->live_bytes, 200 + llround(64 / chance));
	sample(st, KMT_HEAP_ALLOC, KMT_UF_MALLOC, 0x3000, 0, 1 << 20, 4096);	/* large: itself */
	ck_assert_uint_eq(p->live_bytes, 200 + llround(64 / chance) + (1 << 20));
	sample(st, KMT_HEAP_FREE, KMT_UF_FREE, 0, 0x2000, 0, 4096);
	ck_assert_uint_eq(p->calls[KMT_UF_FREE], 1 + llround(1 / chance));
	ck_assert_uint_eq(p->live_bytes, 200 + (1 << 20));
	sample(st, KMT_HEAP_ALLOC | KMT_HEAP_UNFOLLOWED, KMT_UF_MALLOC, 0x4000, 0, 1 << 20, 4096);
	ck_assert_uint_eq(p->live_bytes, 200 + (1 << 20));	/* its free will not come */
	ck_assert_uint_eq(st->unfollowed, 1);
	ck_assert_uint_eq(st->interval, 4096);
	ck_assert_uint_eq(st->nstacks, 1);
	ck_assert_uint_eq(st->stacks[0].live_bytes, p->live_bytes);
	/* 1000 samples of 4.52 objects each: 4520 in all, not 5000 of rounded fives */
	for (i = 0; i < 1000; i++)
		sample(st, KMT_HEAP_ALLOC, KMT_UF_CALLOC, 0x10000 + 0x1000 * i, 0, 1024, 4096);
	ck_assert_uint_le(llabs((long long)p->calls[KMT_UF_CALLOC] -
				llround(1000 / -expm1(-1024.0 / 4096))), 1);
	kmt_analysis_umem.free(st);
}
END_TEST

/*
 * Exact counts in place of the estimates once the final record came:
 * process calls and bytes, the caller's, its stack scaled; twice the
 * same; a process that exec'd after sampling keeps its estimates.
 */
START_TEST(test_umem_exact_counts)
{
	static const struct kmt_heap_site v[] = {
		{ 0x401000, KMT_UF_MALLOC, 10, 640 }, { 0, KMT_UF_FREE, 7, 0 },
		{ 0, KMT_UF_MALLOC, 2, 100 },
	};
	struct umem_state *st = kmt_analysis_umem.init();
	const struct umem_proc *p;
	int i;

	ck_assert_int_eq(kmt_analysis_umem.start(st, NULL), 0);
	sample(st, KMT_HEAP_ALLOC, KMT_UF_MALLOC, 0x2000, 0, 64, 4096);
	p = &st->procs[0];
	sites(st, v, 2, 0);				/* a thread's table */
	sites(st, v + 2, 1, KMT_HEAP_SITES_FINAL);	/* exit(): calls apart, whole */
	ck_assert(p->whole);
	for (i = 0; i < 2; i++) {
		kmt_umem_exact_counts(st);
		ck_assert_uint_eq(p->calls[KMT_UF_MALLOC], 12);
		ck_assert_uint_eq(p->calls[KMT_UF_FREE], 7);
		ck_assert_uint_eq(p->requested, 740);
		ck_assert_uint_eq(p->apart_calls, 2);
		ck_assert_uint_eq(st->ncallers, 1);
		ck_assert_uint_eq(st->callers[0].calls, 10);
		ck_assert_uint_eq(st->callers[0].bytes, 640);
		ck_assert_uint_eq(st->stacks[0].calls, 10);
		ck_assert_uint_eq(st->stacks[0].bytes, 640);
	}
	ck_assert_uint_eq(p->live_bytes, llround(64 / -expm1(-64.0 / 4096)));	/* sampled */
	kmt_analysis_umem.free(st);

	st = kmt_analysis_umem.init();
	ck_assert_int_eq(kmt_analysis_umem.start(st, NULL), 0);
	sample(st, KMT_HEAP_ALLOC, KMT_UF_MALLOC, 0x2000, 0, 64, 4096);
	sites(st, NULL, 0, KMT_HEAP_SITES_START);	/* a new image: the old one's went */
	sites(st, v, 1, KMT_HEAP_SITES_FINAL);
	kmt_umem_exact_counts(st);
	ck_assert(!st->procs[0].whole);
	ck_assert_uint_eq(st->callers[0].calls, llround(1 / -expm1(-64.0 / 4096)));
	kmt_analysis_umem.free(st);
}
END_TEST

/* The recorder's environment text and the library's parse of it. */
START_TEST(test_heap_env_round_trip)
{
	struct kmt_heap_env e = { 7, 23, 123456, 524288, true, 100 << 20, 0, 1 << 20,
				  KMT_HEAP_FAIL, 10 }, back;
	char text[128];

	kmt_heap_env_format(&e, text, sizeof(text));
	ck_assert_str_eq(text, "7:23:123456:524288:fp:104857600:0:1048576:1:10");
	ck_assert_int_eq(kmt_heap_env_parse(text, &back), 0);
	ck_assert(back.fd == 7 && back.dev == 23 && back.ino == 123456 && back.interval == 524288 &&
		  back.fp && back.heap_limit == 100 << 20 && !back.alloc_limit &&
		  back.thread_limit == 1 << 20 && back.action == KMT_HEAP_FAIL && back.signal == 10);
	ck_assert_int_eq(kmt_heap_env_parse("7:23:123456:524288:dwarf", &back), 0);
	ck_assert(!back.fp && !back.heap_limit && back.action == KMT_HEAP_SIGNAL);
	ck_assert_int_eq(kmt_heap_env_parse("7:23:123456:524288:lbr", &back), -1);
	ck_assert_int_eq(kmt_heap_env_parse("7:23:123456:524288:dwarfs", &back), -1);
	ck_assert_int_eq(kmt_heap_env_parse("7:23:123456:0:dwarf", &back), -1);
	ck_assert_int_eq(kmt_heap_env_parse("-7:23:1:1:dwarf", &back), -1);
	ck_assert_int_eq(kmt_heap_env_parse("7:23:1", &back), -1);
	ck_assert_int_eq(kmt_heap_env_parse("7:23:1:1:fp:1:2:3:4:15", &back), -1);	/* action */
	ck_assert_int_eq(kmt_heap_env_parse("7:23:1:1:fp:1:2:3:0:15:9", &back), -1);
	ck_assert_int_eq(kmt_heap_env_parse("7:23:1:1:fp:1:2", &back), -1);
}
END_TEST

Suite *user_suite(void)
{
	Suite *s = suite_create("user");
	TCase *tc = tcase_create("uprobes");

	tcase_add_test(tc, test_uprobe_lines_per_arch);
	tcase_add_test(tc, test_call_format_decodes);
	tcase_add_test(tc, test_elf_symbols_of_self);
	tcase_add_test(tc, test_umem_pairs_calls_and_returns);
	tcase_add_loop_test(tc, test_heap_record_decodes, 0, 2);
	tcase_add_test(tc, test_umem_sample_weights);
	tcase_add_loop_test(tc, test_heap_sites_decode, 0, 2);
	tcase_add_test(tc, test_umem_exact_counts);
	tcase_add_test(tc, test_heap_env_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
