// SPDX-License-Identifier: LGPL-2.1
/* slab and leak analyses: pairing, filters, peaks, ages and options on hand-made events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <getopt.h>
#include <check.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "analyses/filter.h"
#include "analyses/leak.h"
#include "analyses/slab.h"
#include "common/nameids.h"
#include "common/objmap.h"
#include "core/replay_local.h"
#include "fixtures.h"
#include "suites.h"

extern const struct kmt_analysis kmt_analysis_slab;
extern const struct kmt_analysis kmt_analysis_leak;

static char *path;
static struct kmt_session sess;
static struct kmt_objmap objects;	/* the replay's live slab objects */

/* An empty two-CPU recording whose CPU 1 sits on node 1. */
static void open_session(void)
{
	static const char nodes[] = "0 0\n1 1\n";
	static const struct kmt_td_option opts[] = {
		KMT_TD_OPT(KMT_TD_OPT_KMT_CPU_NODES, nodes, sizeof(nodes)),
	};
	struct fix_page *pages[2] = { NULL, NULL };
	int npages[2] = { 0, 0 };
	struct kmt_tracedat_meta m;
	struct kmt_error err;

	fix_meta(&m, opts, 1);
	path = fix_write_tracedat(&m, 2, pages, npages);
	sess.input = path;
	sess.reader = kmt_reader_open(path, &err);
	ck_assert_ptr_nonnull(sess.reader);
	sess.tep = kmt_reader_tep(sess.reader);
	ck_assert_int_eq(kmt_objmap_init(&objects, 0), 0);
	sess.objects = &objects;
}

static void close_session(void)
{
	kmt_objmap_free(&objects);
	kmt_reader_close(sess.reader);
	unlink(path);
	free(path);
}

/* Give @ev to analysis @an (state @st), its slab object numbered as the replay numbers it. */
static void feed(const struct kmt_analysis *an, void *st, struct kmt_event *ev)
{
	ck_assert_int_eq(kmt_replay_follow_object(sess.objects, ev), 0);
	ck_assert_int_eq(an->event(st, ev), 0);
}

/* The key of slab's long option @name, its own or its filter's. */
static int option_key(const char *name)
{
	const struct option *o;

	for (o = kmt_analysis_slab.longopts; o->name; o++)
		if (!strcmp(o->name, name))
			return o->val;
	for (o = kmt_filter_longopts; o->name; o++)
		if (!strcmp(o->name, name))
			return o->val;
	ck_abort_msg("slab has no option --%s", name);
	return 0;
}

/* A slab state after the options @opts ("--key=value" pairs, NULL-terminated). */
static struct slab_state *slab_new(const char *const *opts)
{
	struct slab_state *st = kmt_analysis_slab.init();
	struct kmt_error err;

	ck_assert_ptr_nonnull(st);
	for (; opts && opts[0]; opts += 2)
		ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, option_key(opts[0]),
						     opts[1], &err), 0);
	ck_assert_int_eq(kmt_analysis_slab.start(st, &sess), 0);
	return st;
}

/* @st's report, in JSON, thrown away. */
static void report_to_nowhere(struct slab_state *st)
{
	FILE *fp = fopen("/dev/null", "w");
	struct kmt_output *out = kmt_output_new(KMT_FORMAT_JSON, fp, 0);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(kmt_output_begin(out, "slab"), 0);
	ck_assert_int_eq(kmt_analysis_slab.report(st, &sess, out), 0);
	ck_assert_int_eq(kmt_output_finish(out, NULL), 0);
	fclose(fp);
}

static void alloc(struct slab_state *st, unsigned long long ts, int cpu, int pid,
		  unsigned long long site, unsigned long long ptr, unsigned long long req,
		  unsigned long long bytes)
{
	struct kmt_event ev = { .type = KMT_EV_KMALLOC, .ts = ts, .cpu = cpu, .pid = pid,
				.call_site = site, .ptr = ptr, .bytes_req = req,
				.bytes_alloc = bytes, .node = -1, .flags = KMT_EVF_HAS_NODE };

	feed(&kmt_analysis_slab, st, &ev);
}

static void cache_alloc(struct slab_state *st, unsigned long long ts, int cpu, int node,
			unsigned long long ptr, const char *name)
{
	struct kmt_event ev = { .type = KMT_EV_CACHE_ALLOC, .ts = ts, .cpu = cpu, .pid = 100,
				.call_site = 0xffffffff81234570ull, .ptr = ptr, .bytes_req = 184,
				.bytes_alloc = 192, .node = node, .flags = KMT_EVF_HAS_NODE,
				.str = name, .str_len = strlen(name) };

	feed(&kmt_analysis_slab, st, &ev);
}

static void kfree_(struct slab_state *st, unsigned long long ts, int cpu, int pid,
		   unsigned long long ptr)
{
	struct kmt_event ev = { .type = KMT_EV_KFREE, .ts = ts, .cpu = cpu, .pid = pid,
				.ptr = ptr };

	feed(&kmt_analysis_slab, st, &ev);
}

START_TEST(test_pairing)
{
	struct slab_state *st = slab_new(NULL);

	alloc(st, 10, 0, 100, 0xa0, 0x1000, 100, 128);
	alloc(st, 20, 0, 100, 0xa0, 0x2000, 60, 64);
	kfree_(st, 30, 1, 100, 0x1000);		/* matched, on another CPU */
	kfree_(st, 31, 0, 100, 0);		/* kfree(NULL) */
	kfree_(st, 32, 0, 100, 0x10);		/* kfree(ZERO_SIZE_PTR) */
	kfree_(st, 33, 0, 100, 0x9000);		/* allocated before the trace */
	alloc(st, 40, 0, 100, 0xb0, 0x2000, 30, 32);	/* over a live pointer */
	alloc(st, 50, 0, 100, 0xb0, 0, 30, 32);		/* failed */
	ck_assert_uint_eq(st->total.hits, 3);
	ck_assert_uint_eq(st->total.frees, 1);
	ck_assert_uint_eq(st->total.pingpong, 1);
	ck_assert_uint_eq(st->frees_null, 2);
	ck_assert_uint_eq(st->frees_unmatched, 1);
	ck_assert_uint_eq(st->replaced, 1);
	ck_assert_uint_eq(st->replaced_bytes, 64);
	ck_assert_uint_eq(st->allocs_failed, 1);
	ck_assert_uint_eq(st->total.alloc, 128 + 64 + 32);
	ck_assert_uint_eq(st->total.req, 100 + 60 + 30);
	ck_assert_uint_eq(st->freed_bytes, 128);
	ck_assert_uint_eq(st->total.live_objs, 1);
	ck_assert_uint_eq(st->total.live_bytes, 32);
	ck_assert_uint_eq(st->total.live_req, 30);
	ck_assert_uint_eq(st->peak_live, 192);
	ck_assert_uint_eq(st->peak_ts, 20);
	/* Per call site: 0xa0 peaked at 192 and has nothing left; 0xb0 holds 32. */
	ck_assert_uint_eq(st->callers.n, 2);
	ck_assert_uint_eq(st->callers.rows[0].key, 0xa0);
	ck_assert_uint_eq(st->callers.rows[0].st.max_live, 192);
	ck_assert_uint_eq(st->callers.rows[0].st.live_bytes, 0);
	ck_assert_uint_eq(st->callers.rows[1].st.live_bytes, 32);
	kmt_analysis_slab.free(st);
}
END_TEST

START_TEST(test_caches_and_nodes)
{
	static const char *const opts[] = { "pid", NULL, NULL };
	struct slab_state *st = slab_new(opts);

	cache_alloc(st, 10, 1, 0, 0x1000, "filp");	/* CPU 1 is node 1: cross-node */
	cache_alloc(st, 11, 1, 1, 0x2000, "filp");
	cache_alloc(st, 12, 0, -1, 0x3000, "dentry");	/* any node */
	alloc(st, 13, 0, 100, 0xa0, 0x4000, 100, 128);
	alloc(st, 14, 0, 100, 0xa0, 0x5000, 120, 128);
	ck_assert_uint_eq(st->node_allocs, 5);
	ck_assert_uint_eq(st->cross_node, 1);
	ck_assert_uint_eq(st->caches.n, 3);
	ck_assert_str_eq(st->caches.rows[0].name, "filp");
	ck_assert_uint_eq(st->caches.rows[0].st.hits, 2);
	ck_assert_str_eq(st->caches.rows[1].name, "dentry");
	ck_assert_str_eq(st->caches.rows[2].name, "kmalloc-128");
	ck_assert_uint_eq(st->caches.rows[2].st.req, 220);
	ck_assert_uint_eq(st->pids.n, 1);
	report_to_nowhere(st);		/* rows are named when the report is made */
	ck_assert_str_eq(st->pids.rows[0].name, "tester");	/* from saved cmdlines */
	kmt_analysis_slab.free(st);
}
END_TEST

/* Rows per process only where a table shows them: --pid and --timeline. */
START_TEST(test_pid_rows_when_shown)
{
	static const char *const timeline[] = { "timeline", "1", NULL };
	struct slab_state *plain = slab_new(NULL), *timed = slab_new(timeline);
	struct slab_state *both[] = { plain, timed };
	int i;

	for (i = 0; i < 2; i++) {
		alloc(both[i], 10, 0, 100, 0xa0, 0x1000, 8, 8);
		alloc(both[i], 11, 0, 101, 0xa0, 0x2000, 8, 8);
		kfree_(both[i], 12, 1, 101, 0x1000);
		ck_assert_uint_eq(both[i]->total.hits, 2);
		ck_assert_uint_eq(both[i]->total.frees, 1);
		ck_assert_uint_eq(both[i]->total.live_bytes, 8);
	}
	ck_assert_uint_eq(plain->pids.n, 0);
	ck_assert_uint_eq(timed->pids.n, 2);
	ck_assert_uint_eq(timed->pids.rows[0].st.live_bytes, 0);	/* pid 100's was freed */
	ck_assert_uint_eq(timed->pids.rows[1].st.live_bytes, 8);
	report_to_nowhere(plain);
	kmt_analysis_slab.free(plain);
	kmt_analysis_slab.free(timed);
}
END_TEST

START_TEST(test_pid_filter)
{
	static const char *const opts[] = { "pid-filter", "100,102", NULL };
	struct slab_state *st = slab_new(opts);

	alloc(st, 10, 0, 100, 0xa0, 0x1000, 8, 8);
	alloc(st, 11, 0, 101, 0xa0, 0x2000, 8, 8);	/* not selected */
	kfree_(st, 12, 0, 101, 0x1000);		/* frees a selected object: counts */
	kfree_(st, 13, 0, 100, 0x2000);		/* frees an unselected one: ignored */
	kfree_(st, 14, 0, 101, 0x7000);		/* unmatched, by another pid */
	kfree_(st, 15, 0, 102, 0x8000);		/* unmatched, by a selected pid */
	ck_assert_uint_eq(st->total.hits, 1);
	ck_assert_uint_eq(st->total.frees, 1);
	ck_assert_uint_eq(st->frees_unmatched, 1);
	ck_assert_uint_eq(st->total.live_objs, 0);
	kmt_analysis_slab.free(st);
}
END_TEST

START_TEST(test_time_window)
{
	static const char *const opts[] = { "time", "0.000000020,0.000000040", NULL };
	struct slab_state *st = slab_new(opts);

	alloc(st, 10, 0, 100, 0xa0, 0x1000, 8, 8);	/* before: tracked, not counted */
	kfree_(st, 25, 0, 100, 0x1000);		/* neither counted nor unmatched */
	alloc(st, 20, 0, 100, 0xa0, 0x2000, 16, 16);
	alloc(st, 40, 0, 100, 0xa0, 0x3000, 32, 32);	/* END is inclusive */
	alloc(st, 41, 0, 100, 0xa0, 0x4000, 64, 64);	/* after */
	kfree_(st, 42, 0, 100, 0x2000);		/* after: the object stays live */
	ck_assert_uint_eq(st->total.hits, 2);
	ck_assert_uint_eq(st->total.frees, 0);
	ck_assert_uint_eq(st->frees_unmatched, 0);
	ck_assert_uint_eq(st->total.live_bytes, 48);
	kmt_analysis_slab.free(st);
}
END_TEST

START_TEST(test_kind_filters)
{
	static const char *const km[] = { "kmalloc-only", NULL, NULL };
	static const char *const cache[] = { "cache-only", NULL, NULL };
	struct slab_state *a = slab_new(km), *b = slab_new(cache);
	struct slab_state *both[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		alloc(both[i], 10, 0, 100, 0xa0, 0x1000, 8, 8);
		cache_alloc(both[i], 11, 0, -1, 0x2000, "filp");
		cache_alloc(both[i], 12, 0, -1, 0x3000, "filp");
	}
	ck_assert_uint_eq(a->total.hits, 1);
	ck_assert_uint_eq(b->total.hits, 2);
	kmt_analysis_slab.free(a);
	kmt_analysis_slab.free(b);
}
END_TEST

/* Cache name hints: a name that shares length, start and end is no hit. */
START_TEST(test_cache_name_hints)
{
	static const char a[] = "kmalloc-rnd-01-64", b[] = "kmalloc-Rnd-01-64";
	struct kmt_name_hints h = { 0 };
	uint64_t fa, la, fb, lb;
	uint32_t row = 0;

	ck_assert(!kmt_name_hint_get(&h, a, strlen(a), &row));
	kmt_name_hint_put(&h, a, strlen(a), 7);
	ck_assert(kmt_name_hint_get(&h, "kmalloc-rnd-01-64", strlen(a), &row));
	ck_assert_uint_eq(row, 7);
	kmt_name_edges(a, strlen(a), &fa, &la);
	kmt_name_edges(b, strlen(b), &fb, &lb);
	ck_assert(fa == fb && la == lb);	/* so the same slot */
	ck_assert(!kmt_name_hint_get(&h, b, strlen(b), &row));
	ck_assert(!kmt_name_hint_get(&h, a, 8, &row));		/* a prefix is another name */
	ck_assert(!kmt_name_hint_get(&h, "dentry", 6, &row));
	/* up to 16 bytes the first and last 8 are the whole name */
	kmt_name_hint_put(&h, "vm_area_struct", 14, 3);
	kmt_name_hint_put(&h, "filp", 4, 4);
	ck_assert(kmt_name_hint_get(&h, "vm_area_struct", 14, &row));
	ck_assert_uint_eq(row, 3);
	ck_assert(!kmt_name_hint_get(&h, "vm_area_strucT", 14, &row));
	ck_assert(!kmt_name_hint_get(&h, "vm_Area_struct", 14, &row));
	ck_assert(kmt_name_hint_get(&h, "filp", 4, &row));
	ck_assert_uint_eq(row, 4);
	ck_assert(!kmt_name_hint_get(&h, "filp\0", 5, &row));	/* the zero padding is no byte */
	ck_assert(!kmt_name_hint_get(&h, "fil", 3, &row));
}
END_TEST

/* The replay's numbers of names: one per name, from 1, whatever the hints hold. */
START_TEST(test_name_numbers)
{
	static const char a[] = "kmalloc-rnd-01-64", b[] = "kmalloc-Rnd-01-64";
	struct kmt_name_ids t;
	struct kmt_id_rows rows = { 0 };
	char name[32], again[32];
	uint32_t i, row = 0;

	ck_assert_int_eq(kmt_name_ids_init(&t), 0);
	ck_assert_uint_eq(kmt_name_id(&t, a, strlen(a)), 1);
	ck_assert_uint_eq(kmt_name_id(&t, b, strlen(b)), 2);	/* a's hint slot, not a's name */
	ck_assert_uint_eq(kmt_name_id(&t, a, 8), 3);		/* a prefix is another name */
	for (i = 0; i < 300; i++) {	/* more names than hints: found by the index too */
		snprintf(name, sizeof(name), "cache-%u", i);
		ck_assert_uint_eq(kmt_name_id(&t, name, strlen(name)), 4 + i);
	}
	for (i = 0; i < 300; i += 7) {
		snprintf(again, sizeof(again), "cache-%u", i);
		ck_assert_uint_eq(kmt_name_id(&t, again, strlen(again)), 4 + i);
	}
	ck_assert_uint_eq(kmt_name_id(&t, "kmalloc-rnd-01-64", strlen(a)), 1);
	ck_assert_uint_eq(t.n, 303);
	kmt_name_ids_free(&t);

	ck_assert(!kmt_id_row_get(&rows, 5, &row));
	ck_assert_int_eq(kmt_id_row_put(&rows, 5, 0), 0);
	ck_assert_int_eq(kmt_id_row_put(&rows, 1000, 42), 0);	/* grows; the gap stays unknown */
	ck_assert(kmt_id_row_get(&rows, 5, &row));
	ck_assert_uint_eq(row, 0);
	ck_assert(kmt_id_row_get(&rows, 1000, &row));
	ck_assert_uint_eq(row, 42);
	ck_assert(!kmt_id_row_get(&rows, 999, &row));
	ck_assert(!kmt_id_row_get(&rows, 5000, &row));
	ck_assert_int_eq(kmt_id_row_put(&rows, 6, UINT32_MAX), -1);	/* not a row */
	kmt_id_rows_free(&rows);
}
END_TEST

/* A cache allocation of @name at @ptr, its name numbered in @t unless NULL. */
static struct kmt_event cache_alloc_named(struct kmt_name_ids *t, unsigned long long ptr,
					  const char *name)
{
	struct kmt_event ev = { .type = KMT_EV_CACHE_ALLOC, .ts = ptr, .pid = 100,
				.call_site = 0xffffffff81234570ull, .ptr = ptr,
				.bytes_req = 184, .bytes_alloc = 192, .node = -1,
				.str = name, .str_len = strlen(name) };

	if (t) {
		ev.str_id = kmt_replay_cache_name_id(t, &ev);
		ck_assert_uint_ne(ev.str_id, 0);
	}
	return ev;
}

/* slab's and leak's caches the same whether the replay numbered their names or not. */
START_TEST(test_numbered_cache_names)
{
	static const char *const names[] = { "filp", "dentry", "filp", "vm_area_struct", "dentry",
					     "kmalloc-rnd-01-64", "kmalloc-Rnd-01-64", "filp" };
	enum { N = sizeof(names) / sizeof(names[0]) };
	struct slab_state *plain = slab_new(NULL), *numbered = slab_new(NULL);
	struct leak_state *lplain = kmt_analysis_leak.init(), *lnumbered = kmt_analysis_leak.init();
	struct kmt_name_ids t;
	struct kmt_event other = { .type = KMT_EV_KMALLOC, .str = "x", .str_len = 1 };
	struct kmt_event bare = { .type = KMT_EV_CACHE_ALLOC, .flags = KMT_EVF_TYPE_ONLY,
				  .str = "filp", .str_len = 4 };
	uint32_t i, k;

	ck_assert_int_eq(kmt_name_ids_init(&t), 0);
	ck_assert_int_eq(kmt_analysis_leak.start(lplain, &sess), 0);
	ck_assert_int_eq(kmt_analysis_leak.start(lnumbered, &sess), 0);
	for (i = 0; i < N; i++) {	/* each state its own objects */
		struct kmt_event a = cache_alloc_named(NULL, 0x10000 + 0x100 * i, names[i]);
		struct kmt_event b = cache_alloc_named(&t, 0x20000 + 0x100 * i, names[i]);
		struct kmt_event c = cache_alloc_named(NULL, 0x30000 + 0x100 * i, names[i]);
		struct kmt_event d = cache_alloc_named(&t, 0x40000 + 0x100 * i, names[i]);

		feed(&kmt_analysis_slab, plain, &a);
		feed(&kmt_analysis_slab, numbered, &b);
		feed(&kmt_analysis_leak, lplain, &c);
		feed(&kmt_analysis_leak, lnumbered, &d);
	}
	ck_assert_uint_eq(t.n, 5);
	ck_assert_uint_eq(kmt_replay_cache_name_id(&t, &other), 0);	/* not a cache's */
	ck_assert_uint_eq(kmt_replay_cache_name_id(&t, &bare), 0);	/* fields not decoded */
	ck_assert_uint_eq(plain->caches.n, 5);
	ck_assert_uint_eq(numbered->caches.n, 5);
	for (k = 0; k < plain->caches.n; k++) {
		ck_assert_str_eq(plain->caches.rows[k].name, numbered->caches.rows[k].name);
		ck_assert_uint_eq(plain->caches.rows[k].st.hits, numbered->caches.rows[k].st.hits);
	}
	ck_assert_uint_eq(numbered->caches.rows[0].st.hits, 3);	/* filp */
	ck_assert_uint_eq(lplain->ncaches, 5);
	ck_assert_uint_eq(lnumbered->ncaches, 5);
	for (k = 0; k < lplain->ncaches; k++)
		ck_assert_str_eq(lplain->caches[k], lnumbered->caches[k]);
	kmt_name_ids_free(&t);
	kmt_analysis_slab.free(plain);
	kmt_analysis_slab.free(numbered);
	kmt_analysis_leak.free(lplain);
	kmt_analysis_leak.free(lnumbered);
}
END_TEST

START_TEST(test_bad_options)
{
	struct slab_state *st = kmt_analysis_slab.init();
	int time_key = option_key("time"), pids_key = option_key("pid-filter");
	struct kmt_error err;

	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, 's', "bytes,nosuch", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "nosuch"));
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, 's', "", &err), -1);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, 's', "hit,frag", &err), 0);
	ck_assert_int_eq(st->o.nsort, 2);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, 'l', "-1", &err), -1);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, 'l', "x", &err), -1);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, time_key, "5", &err), -1);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, time_key, "9,5", &err), -1);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, time_key, "1.5x,", &err), -1);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, time_key, "612.4,", &err), 0);
	ck_assert_uint_eq(st->o.filter.start_ns, 612400000000ull);
	ck_assert_uint_eq(st->o.filter.end_ns, UINT64_MAX);
	ck_assert_int_eq(kmt_analysis_option(&kmt_analysis_slab, st, pids_key, "12,x", &err), -1);
	kmt_analysis_slab.free(st);
}
END_TEST

enum { LEAK_SITES = 5, LEAK_OBJS = 4000 };

/* What leak should find outstanding: each object's site, time and bytes. */
struct leak_expect {
	uint64_t site[LEAK_OBJS], ts[LEAK_OBJS], bytes[LEAK_OBJS];
	bool live[LEAK_OBJS];
};

static void leak_kmalloc(void *st, struct leak_expect *x, uint32_t i, uint64_t ts, uint64_t site)
{
	struct kmt_event ev = { .type = KMT_EV_KMALLOC, .ts = ts, .pid = 100,
				.call_site = 0xffffffff81000000ull + site * 0x100,
				.ptr = 0xffff888000000000ull + i * 64ull,
				.bytes_req = 30, .bytes_alloc = 32 + (i % 4) * 32 };

	feed(&kmt_analysis_leak, st, &ev);
	x->site[i] = ev.call_site;
	x->ts[i] = ts;
	x->bytes[i] = ev.bytes_alloc;
	x->live[i] = true;
}

static void leak_kfree(void *st, struct leak_expect *x, uint32_t i, uint64_t ts)
{
	struct kmt_event ev = { .type = KMT_EV_KFREE, .ts = ts, .pid = 100,
				.ptr = 0xffff888000000000ull + i * 64ull };

	feed(&kmt_analysis_leak, st, &ev);
	x->live[i] = false;
}

/* Group @g against the outstanding objects of its call site in @x, recounted by sorting. */
static void assert_group(const struct leak_group *g, const struct leak_expect *x)
{
	uint64_t times[LEAK_OBJS], bytes = 0;
	uint32_t i, n = 0;

	for (i = 0; i < LEAK_OBJS; i++) {
		if (x->live[i] && x->site[i] == g->key) {
			times[n++] = x->ts[i];
			bytes += x->bytes[i];
		}
	}
	qsort(times, n, sizeof(*times), fix_cmp_u64);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(g->objects, n);
	ck_assert_uint_eq(g->bytes, bytes);
	ck_assert_uint_eq(g->oldest_ts, times[0]);
	ck_assert_uint_eq(g->median_ts, times[n / 2]);
}

/*
 * leak's groups: objects, bytes, oldest and median time per call site,
 * against a sort of each site's outstanding objects. Groups of 1, 2 and 3
 * objects and two of about 2,000; some times repeat; half of
 * the objects are freed and allocated again later, so that the objects
 * lie out of time order in memory.
 */
START_TEST(test_leak_group_ages)
{
	struct leak_expect *x = calloc(1, sizeof(*x));
	void *st = kmt_analysis_leak.init();
	uint64_t seed = 11, ts;
	struct leak_group *g;
	uint32_t i;
	long n, k;

	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(kmt_analysis_leak.start(st, &sess), 0);
	for (i = 0; i < LEAK_OBJS; i++)
		leak_kmalloc(st, x, i, 1000 + i - (i % 5 == 4), i < 1 ? 0 : i < 3 ? 1 : i < 6 ? 2 :
			     3 + i % 2);
	for (i = 6, ts = 3000; i < LEAK_OBJS; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (seed >> 63)
			leak_kfree(st, x, i, ts++);
	}
	for (i = LEAK_OBJS; i-- > 6;) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (!x->live[i])
			leak_kmalloc(st, x, i, ts++ & ~1ull, 3 + (seed >> 40) % 2);
	}
	n = kmt_leak_groups(st, LEAK_BY_CALLSITE, ts, &g);
	ck_assert_int_eq(n, LEAK_SITES);
	for (k = 0; k < n; k++)
		assert_group(&g[k], x);
	free(g);
	kmt_analysis_leak.free(st);
	free(x);
}
END_TEST

Suite *slab_suite(void)
{
	Suite *s = suite_create("slab");
	TCase *tc = tcase_create("events");

	tcase_add_checked_fixture(tc, open_session, close_session);
	tcase_add_test(tc, test_pairing);
	tcase_add_test(tc, test_caches_and_nodes);
	tcase_add_test(tc, test_cache_name_hints);
	tcase_add_test(tc, test_name_numbers);
	tcase_add_test(tc, test_numbered_cache_names);
	tcase_add_test(tc, test_pid_rows_when_shown);
	tcase_add_test(tc, test_pid_filter);
	tcase_add_test(tc, test_time_window);
	tcase_add_test(tc, test_kind_filters);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_leak_group_ages);
	suite_add_tcase(s, tc);
	return s;
}
