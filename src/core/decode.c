// SPDX-License-Identifier: LGPL-2.1
/*
 * Decode: resolve field offsets once per event type, then fill
 * struct kmt_event from raw payloads by reading integers at those offsets.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include <kmtrace/event.h>

#include "common/heaprec.h"

#define MAX_EVENT_ID	65536	/* common_type is a u16 */
#define MAX_RECORD	65536	/* no field of a sane format lies past it */
#define MAX_FIELDS	8

/* Where a decoded value goes: an integer member or the string. */
enum slot_kind { SLOT_INT, SLOT_STR };

struct field_spec {
	const char *names;	/* candidate names, '|' separated, first wins */
	enum slot_kind kind;
	size_t member;		/* offsetof() in struct kmt_event for SLOT_INT */
	unsigned int flag;	/* KMT_EVF_* set when the field exists */
	unsigned int alt_flag;	/* KMT_EVF_* set when a later name matched */
};

/* The fields of an event type (its name: kmt_event_type_system/event, common/evnames.c). */
struct event_spec {
	struct field_spec fields[MAX_FIELDS];
};

#define INT(n, m)	{ n, SLOT_INT, offsetof(struct kmt_event, m), 0, 0 }
#define STR(n)		{ n, SLOT_STR, 0, 0, 0 }
#define NODE		{ "node", SLOT_INT, offsetof(struct kmt_event, node), KMT_EVF_HAS_NODE, 0 }
#define PFN		{ "pfn|page", SLOT_INT, offsetof(struct kmt_event, pfn), 0, KMT_EVF_PFN_IS_PAGE }

#define SLAB_ALLOC_FIELDS \
	INT("call_site", call_site), INT("ptr", ptr), INT("bytes_req", bytes_req), \
	INT("bytes_alloc", bytes_alloc), INT("gfp_flags", gfp_flags), NODE

static const struct event_spec specs[KMT_EV_NR] = {
	[KMT_EV_KMALLOC] = { { SLAB_ALLOC_FIELDS } },
	[KMT_EV_KMALLOC_NODE] = { { SLAB_ALLOC_FIELDS } },
	[KMT_EV_KFREE] = { { INT("call_site", call_site), INT("ptr", ptr) } },
	[KMT_EV_CACHE_ALLOC] = { { SLAB_ALLOC_FIELDS, STR("name") } },
	[KMT_EV_CACHE_ALLOC_NODE] = { { SLAB_ALLOC_FIELDS, STR("name") } },
	[KMT_EV_CACHE_FREE] = { { INT("call_site", call_site), INT("ptr", ptr), STR("name") } },
	[KMT_EV_PAGE_ALLOC] = { { PFN, INT("order", order), INT("gfp_flags", gfp_flags),
				  INT("migratetype", migratetype) } },
	[KMT_EV_PAGE_FREE] = { { PFN, INT("order", order) } },
	[KMT_EV_PAGE_FREE_BATCHED] = { { PFN } },
	[KMT_EV_PAGE_ALLOC_EXTFRAG] = { { PFN, INT("alloc_order", order),
					  INT("alloc_migratetype", migratetype) } },
	[KMT_EV_PAGE_ALLOC_ZONE_LOCKED] = { { PFN, INT("order", order),
					      INT("migratetype", migratetype) } },
	[KMT_EV_PAGE_PCPU_DRAIN] = { { PFN, INT("order", order), INT("migratetype", migratetype) } },
	[KMT_EV_RSS_STAT] = { { INT("mm_id", mm_id), INT("curr", curr), INT("member", member),
				INT("size", size) } },
	[KMT_EV_FAULT_USER] = { { INT("address", address), INT("ip", ip),
				  INT("error_code", error_code) } },
	[KMT_EV_FAULT_KERNEL] = { { INT("address", address), INT("ip", ip),
				    INT("error_code", error_code) } },
	[KMT_EV_OOM_VICTIM] = { { INT("pid", target_pid), STR("comm"), INT("total_vm", total_vm),
				  INT("anon_rss", anon_rss), INT("file_rss", file_rss),
				  INT("shmem_rss", shmem_rss), INT("oom_score_adj", oom_score_adj) } },
	[KMT_EV_FORK] = { { INT("child_pid", target_pid), STR("child_comm") } },
	[KMT_EV_EXEC] = { { INT("pid", target_pid), STR("filename") } },
	[KMT_EV_EXIT] = { { INT("pid", target_pid), STR("comm") } },
	[KMT_EV_FAULT_RETURN] = { { INT("ret", ret) } },
	[KMT_EV_MMAP_ENTER] = { { INT("addr", arg[0]), INT("len", arg[1]), INT("prot", arg[2]),
				  INT("flags", arg[3]), INT("fd", arg[4]), INT("off", arg[5]) } },
	[KMT_EV_MMAP_EXIT] = { { INT("ret", ret) } },
	[KMT_EV_MUNMAP_ENTER] = { { INT("addr", arg[0]), INT("len", arg[1]) } },
	[KMT_EV_MUNMAP_EXIT] = { { INT("ret", ret) } },
	[KMT_EV_MREMAP_ENTER] = { { INT("addr", arg[0]), INT("old_len", arg[1]),
				    INT("new_len", arg[2]), INT("flags", arg[3]),
				    INT("new_addr", arg[4]) } },
	[KMT_EV_MREMAP_EXIT] = { { INT("ret", ret) } },
	[KMT_EV_BRK_ENTER] = { { INT("brk", arg[0]) } },
	[KMT_EV_BRK_EXIT] = { { INT("ret", ret) } },
	[KMT_EV_U_CALL] = { { INT("a0", arg[0]), INT("a1", arg[1]), INT("a2", arg[2]),
			      INT("caller", call_site), INT("fn", func) } },
	[KMT_EV_U_RETURN] = { { INT("ret", ret), INT("fn", func) } },
	[KMT_EV_U_SAMPLE] = { { INT("id", arg[5]) } },	/* buf: decode_heap_record() */

#define RECLAIM_BEGIN	{ INT("order", order), INT("gfp_flags", gfp_flags) }
#define RECLAIM_END	{ INT("nr_reclaimed", reclaim.nr_reclaimed) }
#define NID(f)		INT("nid", f.nid)
#define LRU_COUNTS	NID(reclaim), INT("nr_scanned", reclaim.nr_scanned), \
			INT("nr_reclaimed", reclaim.nr_reclaimed), INT("priority", reclaim.priority)
#define RANGE_SCAN	{ INT("start_pfn", pfn), INT("end_pfn", compaction.end_pfn), \
			  INT("nr_scanned", compaction.nr_scanned), \
			  INT("nr_taken", compaction.nr_taken) }
#define DEFER_FIELDS	{ NID(compaction), INT("order", order), \
			  INT("order_failed", compaction.status), \
			  INT("considered", compaction.nr_scanned), \
			  INT("defer_shift", compaction.priority) }
#define ZONE_RESULT	{ NID(compaction), INT("order", order), INT("ret", compaction.status) }
#define KCOMPACTD	{ NID(compaction), INT("order", order) }
#define FILE_ID		INT("i_ino", pagecache.ino), INT("s_dev", pagecache.dev)
#define PAGECACHE	{ PFN, FILE_ID, INT("index", pagecache.index), INT("order", order) }
#define FILE_RANGE	{ FILE_ID, INT("index", pagecache.index), \
			  INT("last_index", pagecache.last_index) }
#define REAPING		{ INT("pid", target_pid) }
#define MEMCG_STATE	{ INT("id", memcg.id), INT("item", memcg.item), INT("val", memcg.val) }

	[KMT_EV_DIRECT_RECLAIM_BEGIN] = { RECLAIM_BEGIN },
	[KMT_EV_DIRECT_RECLAIM_END] = { RECLAIM_END },
	[KMT_EV_MEMCG_RECLAIM_BEGIN] = { RECLAIM_BEGIN },
	[KMT_EV_MEMCG_RECLAIM_END] = { RECLAIM_END },
	[KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_BEGIN] = { RECLAIM_BEGIN },
	[KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_END] = { RECLAIM_END },
	[KMT_EV_NODE_RECLAIM_BEGIN] = { { NID(reclaim), INT("order", order),
					  INT("gfp_flags", gfp_flags) } },
	[KMT_EV_NODE_RECLAIM_END] = { RECLAIM_END },
	[KMT_EV_KSWAPD_WAKE] = { { NID(reclaim), INT("order", order) } },
	[KMT_EV_KSWAPD_SLEEP] = { { NID(reclaim) } },
	[KMT_EV_WAKEUP_KSWAPD] = { { NID(reclaim), INT("order", order), INT("gfp_flags", gfp_flags) } },
	[KMT_EV_LRU_ISOLATE] = { { INT("order", order), INT("nr_scanned", reclaim.nr_scanned),
				   INT("nr_taken", reclaim.nr_taken), INT("lru", reclaim.lru) } },
	[KMT_EV_LRU_SHRINK_ACTIVE] = { { NID(reclaim), INT("nr_taken", reclaim.nr_taken),
					 INT("nr_deactivated", reclaim.nr_deactivated),
					 INT("priority", reclaim.priority) } },
	[KMT_EV_LRU_SHRINK_INACTIVE] = { { LRU_COUNTS } },
	[KMT_EV_RECLAIM_PAGES] = { { NID(reclaim), INT("nr_scanned", reclaim.nr_scanned),
				     INT("nr_reclaimed", reclaim.nr_reclaimed) } },
	[KMT_EV_RECLAIM_THROTTLED] = { { NID(reclaim), INT("usec_timeout", reclaim.usec_timeout),
					 INT("usec_delayed", reclaim.usec_delayed),
					 INT("reason", reclaim.reason) } },
	[KMT_EV_RECLAIM_WRITE_FOLIO] = { { PFN } },
	[KMT_EV_SHRINK_SLAB_START] = { { INT("shrink", call_site), NID(reclaim),
					 INT("cache_items", reclaim.cache_items),
					 INT("total_scan", reclaim.nr_scanned),
					 INT("priority", reclaim.priority) } },
	[KMT_EV_SHRINK_SLAB_END] = { { INT("shrink", call_site), NID(reclaim),
				       INT("retval", reclaim.shrinker_freed),
				       INT("total_scan", reclaim.nr_scanned) } },
	[KMT_EV_COMPACTION_BEGIN] = { { INT("zone_start", pfn), INT("zone_end", compaction.end_pfn),
					INT("sync", compaction.sync) } },
	[KMT_EV_COMPACTION_END] = { { INT("zone_start", pfn), INT("zone_end", compaction.end_pfn),
				      INT("sync", compaction.sync), INT("status", compaction.status) } },
	[KMT_EV_COMPACTION_TRY] = { { INT("order", order), INT("gfp_mask", gfp_flags),
				      INT("prio", compaction.priority) } },
	[KMT_EV_COMPACTION_SUITABLE] = { ZONE_RESULT },
	[KMT_EV_COMPACTION_FINISHED] = { ZONE_RESULT },
	[KMT_EV_COMPACTION_DEFERRED] = { DEFER_FIELDS },
	[KMT_EV_COMPACTION_DEFER] = { DEFER_FIELDS },
	[KMT_EV_COMPACTION_DEFER_RESET] = { DEFER_FIELDS },
	[KMT_EV_COMPACTION_ISOLATE_MIGRATE] = { RANGE_SCAN },
	[KMT_EV_COMPACTION_ISOLATE_FREE] = { RANGE_SCAN },
	[KMT_EV_COMPACTION_FAST_ISOLATE_FREE] = { RANGE_SCAN },
	[KMT_EV_COMPACTION_MIGRATE] = { { INT("nr_migrated", compaction.nr_migrated),
					  INT("nr_failed", compaction.nr_failed) } },
	[KMT_EV_KCOMPACTD_WAKE] = { KCOMPACTD },
	[KMT_EV_KCOMPACTD_SLEEP] = { { NID(compaction) } },
	[KMT_EV_WAKEUP_KCOMPACTD] = { KCOMPACTD },
	[KMT_EV_VMAP_ALLOC] = { { INT("addr", ptr), INT("size", bytes_alloc),
				  INT("failed", area.failed) } },
	[KMT_EV_VMAP_FREE] = { { INT("va_start", ptr), INT("nr_lazy", area.count) } },
	[KMT_EV_VMAP_PURGE] = { { INT("start", ptr), INT("end", area.end), INT("npurged", area.count) } },
	[KMT_EV_PERCPU_ALLOC] = { { INT("call_site", call_site), INT("size", bytes_req),
				    INT("bytes_alloc", bytes_alloc), INT("ptr", ptr),
				    INT("gfp_flags", gfp_flags), INT("is_atomic", area.is_atomic) } },
	[KMT_EV_PERCPU_FREE] = { { INT("ptr", ptr) } },
	[KMT_EV_PERCPU_ALLOC_FAIL] = { { INT("size", bytes_req), INT("is_atomic", area.is_atomic) } },
	[KMT_EV_PERCPU_CREATE_CHUNK] = { { INT("base_addr", ptr) } },
	[KMT_EV_PERCPU_DESTROY_CHUNK] = { { INT("base_addr", ptr) } },
	[KMT_EV_PAGECACHE_ADD] = { PAGECACHE },
	[KMT_EV_PAGECACHE_DELETE] = { PAGECACHE },
	[KMT_EV_FILEMAP_FAULT] = { { FILE_ID, INT("index", pagecache.index) } },
	[KMT_EV_FILEMAP_GET_PAGES] = { FILE_RANGE },
	[KMT_EV_FILEMAP_MAP_PAGES] = { FILE_RANGE },
	[KMT_EV_FILEMAP_SET_WB_ERR] = { { FILE_ID, INT("errseq", pagecache.errseq) } },
	[KMT_EV_FILEMAP_CHECK_WB_ERR] = { { FILE_ID, INT("new", pagecache.errseq) } },
	[KMT_EV_OOM_SCORE_ADJ_UPDATE] = { { INT("pid", target_pid), STR("comm"),
					    INT("oom_score_adj", oom_score_adj) } },
	[KMT_EV_OOM_RECLAIM_RETRY] = { { INT("node", oom_retry.nid), INT("order", order),
					 INT("reclaimable", oom_retry.reclaimable),
					 INT("available", oom_retry.available),
					 INT("no_progress_loops", oom_retry.loops),
					 INT("wmark_check", oom_retry.result) } },
	[KMT_EV_OOM_COMPACT_RETRY] = { { INT("order", order), INT("priority", oom_retry.priority),
					 INT("result", oom_retry.result),
					 INT("retries", oom_retry.loops), INT("ret", oom_retry.available) } },
	[KMT_EV_OOM_WAKE_REAPER] = { REAPING },
	[KMT_EV_OOM_START_REAPING] = { REAPING },
	[KMT_EV_OOM_FINISH_REAPING] = { REAPING },
	[KMT_EV_OOM_SKIP_REAPING] = { REAPING },
	[KMT_EV_MEMCG_MOD_STATE] = { MEMCG_STATE },
	[KMT_EV_MEMCG_MOD_LRUVEC_STATE] = { MEMCG_STATE },
	[KMT_EV_MEMCG_COUNT_EVENTS] = { MEMCG_STATE },
	[KMT_EV_MEMCG_FLUSH_STATS] = { { INT("id", memcg.id), INT("stats_updates", memcg.val),
					 INT("force", memcg.item) } },
};

/* A resolved field: where it is in the payload and where it goes. */
struct field_loc {
	int offset;
	int size;
	bool is_signed;
	bool dynamic;		/* __data_loc: a u32 of (len << 16 | offset) */
	enum slot_kind kind;
	size_t member;
};

/* A field read as a plain host-order integer: payload offset, member offset. */
struct word_loc {
	uint16_t from, to;
};

/* Fields read as they are: 8-byte ones, unsigned and signed 4-byte ones. */
struct word_plan {
	uint8_t n64, n32u, n32s;
	struct word_loc w64[MAX_FIELDS], w32u[MAX_FIELDS], w32s[MAX_FIELDS];
};

struct event_loc {
	int nfields;
	int min_size;		/* the payload holds every field from this size on */
	unsigned int flags;
	struct field_loc fields[MAX_FIELDS];
	int nchecked;		/* the fields kmt_event_possible() reads, first */
	/*
	 * The whole decode's plan (plan_words()): the words, then the others
	 * (indices into fields) through fill_int() and fill_string().
	 */
	struct word_plan words;
	uint8_t nother;
	uint8_t other[MAX_FIELDS];
	/*
	 * A type-only decode's (plan_checked()): when every checked field is
	 * a word, those words, and the checked members no field writes.
	 */
	bool checked_words;
	struct word_plan checked;
	uint8_t nunwritten;
	size_t unwritten[4];
};

struct kmt_decoder {
	struct tep_handle *tep;
	bool swap;
	int type_offset;
	int type_size;
	int pid_offset;
	int heap_buf;				/* ftrace:raw_data's buf, or 0 */
	size_t event_size;			/* sizeof(struct kmt_event), see clear_event() */
	unsigned char type_of_id[MAX_EVENT_ID];	/* enum kmt_event_type */
	bool type_only[KMT_EV_NR];		/* no field wanted (kmt_decoder_only) */
	struct event_loc loc[KMT_EV_NR];
};

/* Find the first of the '|'-separated @names; *@alt says a later one matched. */
static struct tep_format_field *find_field(struct tep_event *event, const char *names,
					   bool *alt)
{
	char buf[64];
	const char *p = names;
	bool first = true;

	while (*p) {
		size_t len = strcspn(p, "|");
		struct tep_format_field *f;

		if (len >= sizeof(buf))
			return NULL;
		memcpy(buf, p, len);
		buf[len] = '\0';
		f = tep_find_field(event, buf);
		if (f) {
			*alt = !first;
			return f;
		}
		first = false;
		p += len;
		if (*p == '|')
			p++;
	}
	return NULL;
}

/* A field where a record can have it (formats from libtracecmd are not checked before). */
static bool field_sane(const struct tep_format_field *f)
{
	return f->offset >= 0 && f->size >= 0 && f->offset <= MAX_RECORD && f->size <= MAX_RECORD;
}

/* common_type and common_pid: integers near the start. */
static bool common_sane(const struct tep_format_field *f, int size)
{
	return field_sane(f) && f->offset < 64 && f->size == size;
}

#define M(m)	offsetof(struct kmt_event, m)
#define SLAB_SIZES	{ 2, { M(bytes_req), M(bytes_alloc) } }
#define ORDER		{ 1, { M(order) } }
#define RET		{ 1, { M(ret) } }

/* The members kmt_event_possible() reads, by type: keep the two in step. */
static const struct {
	int n;
	size_t member[4];
} possible_members[KMT_EV_NR] = {
	[KMT_EV_KMALLOC] = SLAB_SIZES,
	[KMT_EV_KMALLOC_NODE] = SLAB_SIZES,
	[KMT_EV_CACHE_ALLOC] = SLAB_SIZES,
	[KMT_EV_CACHE_ALLOC_NODE] = SLAB_SIZES,
	[KMT_EV_PAGE_ALLOC] = ORDER,
	[KMT_EV_PAGE_FREE] = ORDER,
	[KMT_EV_PAGE_ALLOC_EXTFRAG] = ORDER,
	[KMT_EV_PAGE_ALLOC_ZONE_LOCKED] = ORDER,
	[KMT_EV_PAGE_PCPU_DRAIN] = ORDER,
	[KMT_EV_RSS_STAT] = { 1, { M(size) } },
	[KMT_EV_OOM_VICTIM] = { 4, { M(total_vm), M(anon_rss), M(file_rss), M(shmem_rss) } },
	[KMT_EV_FORK] = { 1, { M(target_pid) } },
	[KMT_EV_EXEC] = { 1, { M(target_pid) } },
	[KMT_EV_EXIT] = { 1, { M(target_pid) } },
	[KMT_EV_MMAP_ENTER] = { 2, { M(arg[0]), M(arg[1]) } },
	[KMT_EV_MUNMAP_ENTER] = { 2, { M(arg[0]), M(arg[1]) } },
	[KMT_EV_MREMAP_ENTER] = { 4, { M(arg[0]), M(arg[1]), M(arg[2]), M(arg[4]) } },
	[KMT_EV_BRK_ENTER] = { 1, { M(arg[0]) } },
	[KMT_EV_MMAP_EXIT] = RET,
	[KMT_EV_MUNMAP_EXIT] = RET,
	[KMT_EV_MREMAP_EXIT] = RET,
	[KMT_EV_BRK_EXIT] = RET,
	[KMT_EV_U_CALL] = { 1, { M(func) } },
	[KMT_EV_U_RETURN] = { 1, { M(func) } },
};

bool kmt_event_checks(enum kmt_event_type type, size_t member)
{
	int i;

	if (type <= KMT_EV_UNKNOWN || type >= KMT_EV_NR)
		return false;
	for (i = 0; i < possible_members[type].n; i++)
		if (possible_members[type].member[i] == member)
			return true;
	return false;
}

/* Put the fields kmt_event_possible() reads of @loc's type first; count them. */
static void checked_first(struct event_loc *loc, enum kmt_event_type type)
{
	int i;

	for (i = 0; i < loc->nfields; i++) {
		struct field_loc fl = loc->fields[i];

		if (fl.kind != SLOT_INT || !kmt_event_checks(type, fl.member))
			continue;
		loc->fields[i] = loc->fields[loc->nchecked];
		loc->fields[loc->nchecked++] = fl;
	}
}

/* Is @fl's member also the member of another field of @loc? */
static bool member_shared(const struct event_loc *loc, const struct field_loc *fl)
{
	int i;

	for (i = 0; i < loc->nfields; i++)
		if (&loc->fields[i] != fl && loc->fields[i].kind == SLOT_INT &&
		    loc->fields[i].member == fl->member)
			return true;
	return false;
}

/*
 * Put @loc's field @fl in @plan's word lists if it needs no byte swap, no
 * sign extension past a plain load and no special value, and no other
 * field writes its member (those keep their order field by field); false
 * when it is not a word.
 */
static bool plan_word(const struct kmt_decoder *dec, const struct event_loc *loc,
		      const struct field_loc *fl, struct word_plan *plan)
{
	struct word_loc w = { (uint16_t)fl->offset, (uint16_t)fl->member };
	bool plain = fl->kind == SLOT_INT && !fl->dynamic && !dec->swap &&
		     fl->offset <= UINT16_MAX && !member_shared(loc, fl);

	if (plain && fl->size == 8)
		plan->w64[plan->n64++] = w;
	else if (plain && fl->size == 4 && fl->is_signed)
		plan->w32s[plan->n32s++] = w;
	else if (plain && fl->size == 4 && fl->member != offsetof(struct kmt_event, pfn))
		plan->w32u[plan->n32u++] = w;
	else
		return false;
	return true;
}

/* The words of @loc's whole decode; the other fields keep the field by field path. */
static void plan_words(const struct kmt_decoder *dec, struct event_loc *loc)
{
	int i;

	for (i = 0; i < loc->nfields; i++)
		if (!plan_word(dec, loc, &loc->fields[i], &loc->words))
			loc->other[loc->nother++] = i;
}

/* The type-only decode's words of @loc (of @type), if its checked fields all are. */
static void plan_checked(const struct kmt_decoder *dec, struct event_loc *loc,
			 enum kmt_event_type type)
{
	int i, k;

	loc->checked_words = true;
	for (i = 0; i < loc->nchecked; i++)
		loc->checked_words &= plan_word(dec, loc, &loc->fields[i], &loc->checked);
	for (k = 0; k < possible_members[type].n; k++) {
		size_t member = possible_members[type].member[k];

		for (i = 0; i < loc->nchecked && loc->fields[i].member != member; i++)
			;
		if (i == loc->nchecked)
			loc->unwritten[loc->nunwritten++] = member;
	}
}

static void resolve_event(struct kmt_decoder *dec, enum kmt_event_type type,
			  struct tep_event *event)
{
	struct event_loc *loc = &dec->loc[type];
	const struct field_spec *spec;

	for (spec = specs[type].fields; spec < specs[type].fields + MAX_FIELDS && spec->names;
	     spec++) {
		struct tep_format_field *f;
		struct field_loc *fl;
		bool alt = false;

		f = find_field(event, spec->names, &alt);
		if (!f || !field_sane(f))
			continue;
		fl = &loc->fields[loc->nfields++];
		fl->offset = f->offset;
		fl->size = f->size;
		fl->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
		fl->dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
		fl->kind = spec->kind;
		fl->member = spec->member;
		if (fl->offset + (fl->dynamic ? 4 : fl->size) > loc->min_size)
			loc->min_size = fl->offset + (fl->dynamic ? 4 : fl->size);
		loc->flags |= spec->flag | (alt ? spec->alt_flag : 0);
	}
	checked_first(loc, type);
	plan_words(dec, loc);
	plan_checked(dec, loc, type);
	if (event->id >= 0 && event->id < MAX_EVENT_ID)
		dec->type_of_id[event->id] = type;
}

/* Where ftrace:raw_data's buf starts, when its id is the 4 bytes before it. */
static void find_heap_buf(struct kmt_decoder *dec, struct tep_handle *tep)
{
	struct tep_event *event = tep_find_event_by_name(tep, "ftrace", "raw_data");
	struct tep_format_field *buf = event ? tep_find_field(event, "buf") : NULL;
	const struct event_loc *loc = &dec->loc[KMT_EV_U_SAMPLE];

	if (buf && field_sane(buf) && loc->nfields == 1 && loc->fields[0].size == 4 &&
	    loc->fields[0].offset + 4 == buf->offset)
		dec->heap_buf = buf->offset;
}

struct kmt_decoder *kmt_decoder_new(struct tep_handle *tep)
{
	struct kmt_decoder *dec;
	struct tep_format_field *f;
	struct tep_event *any = NULL;
	int t;

	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return NULL;
	dec->tep = tep;
	dec->event_size = sizeof(struct kmt_event);
	dec->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	dec->type_offset = 0;
	dec->type_size = 2;
	dec->pid_offset = 4;
	for (t = KMT_EV_UNKNOWN + 1; t < KMT_EV_NR; t++) {
		struct tep_event *event;

		event = tep_find_event_by_name(tep, kmt_event_type_system(t), kmt_event_type_event(t));
		if (!event)
			continue;
		resolve_event(dec, t, event);
		any = event;
	}
	if (!any && tep_get_events_count(tep) > 0)
		any = tep_get_event(tep, 0);
	if (any && (f = tep_find_common_field(any, "common_type")) &&
	    (common_sane(f, 2) || common_sane(f, 4))) {
		dec->type_offset = f->offset;
		dec->type_size = f->size;
	}
	if (any && (f = tep_find_common_field(any, "common_pid")) && common_sane(f, 4))
		dec->pid_offset = f->offset;
	find_heap_buf(dec, tep);
	return dec;
}

void kmt_decoder_only(struct kmt_decoder *dec, const bool *want)
{
	int t;

	for (t = KMT_EV_UNKNOWN + 1; t < KMT_EV_NR; t++)
		dec->type_only[t] = !want[t];
}

void kmt_decoder_free(struct kmt_decoder *dec)
{
	free(dec);
}

static inline __attribute__((always_inline)) unsigned long long
read_uint(const struct kmt_decoder *dec, const unsigned char *p, int size)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, 2);
		return dec->swap ? __builtin_bswap16(v16) : v16;
	case 4:
		memcpy(&v32, p, 4);
		return dec->swap ? __builtin_bswap32(v32) : v32;
	case 8:
		memcpy(&v64, p, 8);
		return dec->swap ? __builtin_bswap64(v64) : v64;
	default:
		return 0;
	}
}

/* @v read from a signed field of @size bytes; a size of 0 (a hostile format) reads 0. */
static long long sign_extend(unsigned long long v, int size)
{
	int shift = 64 - size * 8;

	return size <= 0 || size >= 8 ? (long long)v : (long long)(v << shift) >> shift;
}

static inline int event_id(const struct kmt_decoder *dec, const void *data, int size)
{
	if (size < dec->type_offset + dec->type_size)
		return -1;
	return read_uint(dec, (const unsigned char *)data + dec->type_offset, dec->type_size);
}

int kmt_decoder_event_id(const struct kmt_decoder *dec, const void *data, int size)
{
	return event_id(dec, data, size);
}

static void fill_string(const struct kmt_decoder *dec, const struct field_loc *fl,
			const unsigned char *data, int size, struct kmt_event *ev)
{
	int off = fl->offset, len = fl->size;

	if (fl->dynamic) {
		unsigned long long loc = read_uint(dec, data + fl->offset, 4);

		off = loc & 0xffff;
		len = loc >> 16;
	}
	if (off + len > size || len < 0)
		return;
	ev->str = (const char *)data + off;
	ev->str_len = strnlen(ev->str, len);
}

/*
 * Zero @ev. Its size comes from @dec, not sizeof: a size the compiler
 * knows makes it inline the clearing, as "rep stos" on x86-64, whose
 * start-up cost was half of kmt_decode's time; the C library's memset
 * writes the 440 bytes with vector stores.
 */
static void clear_event(const struct kmt_decoder *dec, struct kmt_event *ev)
{
	memset(ev, 0, dec->event_size);
}

/* Integer field @fl of payload @p into its member of @ev. */
static inline __attribute__((always_inline)) void
fill_int(const struct kmt_decoder *dec, const struct field_loc *fl, const unsigned char *p,
	 struct kmt_event *ev)
{
	unsigned long long v = read_uint(dec, p + fl->offset, fl->size);

	if (fl->is_signed)
		v = sign_extend(v, fl->size);
	else if (fl->member == offsetof(struct kmt_event, pfn) && fl->size < 8 &&
		 v == (1ull << 8 * fl->size) - 1)
		v = ~0ull;	/* a 32-bit kernel's failed allocation: pfn -1UL */
	memcpy((char *)ev + fl->member, &v, sizeof(v));
}

/* The host-order u32 at @p. */
static inline uint32_t host_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* @v into the member of @ev at @w. */
static inline void put_word(struct kmt_event *ev, const struct word_loc *w, uint64_t v)
{
	memcpy((char *)ev + w->to, &v, 8);
}

/*
 * The fields of @plan's word lists from payload @p into @ev. The counts are
 * read once: the stores into @ev could alias @plan for the compiler, which
 * read them again at every word.
 */
static inline __attribute__((always_inline)) void
fill_words(const struct word_plan *plan, const unsigned char *p, struct kmt_event *ev)
{
	int i, n64 = plan->n64, n32u = plan->n32u, n32s = plan->n32s;

	for (i = 0; i < n64; i++)
		memcpy((char *)ev + plan->w64[i].to, p + plan->w64[i].from, 8);
	for (i = 0; i < n32u; i++)
		put_word(ev, &plan->w32u[i], host_u32(p + plan->w32u[i].from));
	for (i = 0; i < n32s; i++)
		put_word(ev, &plan->w32s[i], (uint64_t)(int64_t)(int32_t)host_u32(p + plan->w32s[i].from));
}

/*
 * The header of a record of libkmtrace-heap.so in ftrace:raw_data payload
 * @p of @size bytes, into @h (may be NULL): false when the raw_data is not
 * one (another writer's id, another version, too short, a call it does not
 * make).
 */
static bool heap_header(const struct kmt_decoder *dec, const unsigned char *p, int size,
			struct kmt_heap_rec *h)
{
	const unsigned char *b = p + dec->heap_buf;
	struct kmt_heap_rec r = { 0 };

	if (!dec->heap_buf || size < dec->heap_buf + KMT_HEAP_HEADER_SIZE ||
	    read_uint(dec, b - 4, 4) != KMT_HEAP_MARKER_ID || b[0] != KMT_HEAP_VERSION)
		return false;
	if (b[1] == KMT_HEAP_SITES ? b[2] != 0 || b[3] % KMT_HEAP_SITE_WORDS :
	    !b[2] || b[2] >= KMT_UF_NR || !(b[1] & (KMT_HEAP_ALLOC | KMT_HEAP_FREE | KMT_HEAP_LIMIT)))
		return false;
	if (!h)
		return true;
	memcpy(&r, b, 4);
	r.tgid = read_uint(dec, b + offsetof(struct kmt_heap_rec, tgid), 4);
	r.tid = read_uint(dec, b + offsetof(struct kmt_heap_rec, tid), 4);
	r.ptr = read_uint(dec, b + offsetof(struct kmt_heap_rec, ptr), 8);
	r.old = read_uint(dec, b + offsetof(struct kmt_heap_rec, old), 8);
	r.size = read_uint(dec, b + offsetof(struct kmt_heap_rec, size), 8);
	r.interval = read_uint(dec, b + offsetof(struct kmt_heap_rec, interval), 8);
	if ((size - dec->heap_buf - KMT_HEAP_HEADER_SIZE) / 8 < r.nframes)
		r.nframes = (size - dec->heap_buf - KMT_HEAP_HEADER_SIZE) / 8;	/* cut short */
	if (r.kind == KMT_HEAP_SITES)
		r.nframes -= r.nframes % KMT_HEAP_SITE_WORDS;	/* whole sites only */
	*h = r;
	return true;
}

/*
 * KMT_EV_U_SAMPLE: the call (func), what it allocated (ptr, bytes_req,
 * interval in arg[1]) and freed (arg[0]), the record's KMT_HEAP_* in arg[2],
 * the process in target_pid (-1 when the writer's pid namespace is not the
 * kernel's: its getpid() names another process); the frames stay in the
 * payload (str). A KMT_HEAP_SITES record has its sites there instead
 * (kmt_event_heap_site()), its flags in ptr.
 */
static __attribute__((noinline, cold)) enum kmt_event_type
decode_heap_record(const struct kmt_decoder *dec, const unsigned char *p, int size,
		   struct kmt_event *ev)
{
	struct kmt_heap_rec h;

	if (!heap_header(dec, p, size, &h))
		return ev->type = KMT_EV_UNKNOWN;
	ev->func = h.func;
	ev->ptr = h.ptr;
	ev->arg[0] = h.old;
	ev->arg[1] = h.interval ? h.interval : 1;
	ev->arg[2] = h.kind;
	ev->bytes_req = h.size;
	ev->target_pid = h.tid == (uint32_t)ev->pid ? (long long)h.tgid : -1;	/* -1: namespaced */
	ev->str = (const char *)p + dec->heap_buf + KMT_HEAP_HEADER_SIZE;
	ev->str_len = h.nframes * 8;
	if (dec->swap)
		ev->flags |= KMT_EVF_SWAPPED;
	if (h.nframes && h.kind != KMT_HEAP_SITES)
		ev->call_site = kmt_event_user_frame(ev, 0);
	return ev->type;
}

unsigned long long kmt_event_user_frame(const struct kmt_event *ev, int i)
{
	uint64_t v;

	if (i < 0 || i >= ev->str_len / 8)
		return 0;
	memcpy(&v, ev->str + (size_t)i * 8, 8);
	return (ev->flags & KMT_EVF_SWAPPED) ? __builtin_bswap64(v) : v;
}

struct kmt_heap_site kmt_event_heap_site(const struct kmt_event *ev, int i)
{
	uint64_t key = kmt_event_user_frame(ev, i * KMT_HEAP_SITE_WORDS);

	return (struct kmt_heap_site){ KMT_HEAP_SITE_ADDR(key), KMT_HEAP_SITE_FUNC(key),
				       kmt_event_user_frame(ev, i * KMT_HEAP_SITE_WORDS + 1),
				       kmt_event_user_frame(ev, i * KMT_HEAP_SITE_WORDS + 2) };
}

/*
 * An event whose fields nobody wants: its type, id and pid, and the fields
 * kmt_event_possible() checks (the others are left as they were), so that
 * it is known or unknown exactly as when fully decoded.
 */
static enum kmt_event_type
decode_type_only(const struct kmt_decoder *dec, const unsigned char *p, int size, int id,
		 struct kmt_event *ev)
{
	enum kmt_event_type type = dec->type_of_id[id];
	const struct event_loc *loc = &dec->loc[type];
	int i;

	ev->id = id;
	ev->pid = (int)read_uint(dec, p + dec->pid_offset, 4);
	ev->flags = KMT_EVF_TYPE_ONLY | loc->flags;
	ev->type = size < loc->min_size ? KMT_EV_UNKNOWN : type;
	if (type == KMT_EV_U_SAMPLE && !heap_header(dec, p, size, NULL))
		ev->type = KMT_EV_UNKNOWN;
	if (ev->type == KMT_EV_UNKNOWN)
		return ev->type;
	if (!possible_members[type].n)
		return type;
	for (i = 0; i < loc->nunwritten; i++)	/* the format lacks them */
		memset((char *)ev + loc->unwritten[i], 0, 8);
	if (loc->checked_words) {
		fill_words(&loc->checked, p, ev);
	} else {
		for (i = 0; i < loc->nchecked; i++)
			fill_int(dec, &loc->fields[i], p, ev);
	}
	if (!kmt_event_possible(ev))
		ev->flags |= KMT_EVF_IMPOSSIBLE;
	return type;
}

enum kmt_event_type kmt_decode(const struct kmt_decoder *dec, const void *data, int size,
			       struct kmt_event *ev)
{
	const unsigned char *p = data;
	const struct event_loc *loc;
	int id, i;

	id = event_id(dec, data, size);
	if (id >= 0 && id < MAX_EVENT_ID && dec->type_only[dec->type_of_id[id]] &&
	    size >= dec->pid_offset + 4)
		return decode_type_only(dec, p, size, id, ev);
	clear_event(dec, ev);
	ev->id = id;
	if (id < 0 || size < dec->pid_offset + 4)
		return KMT_EV_UNKNOWN;
	ev->pid = (int)read_uint(dec, p + dec->pid_offset, 4);
	if (id >= MAX_EVENT_ID || !dec->type_of_id[id])
		return KMT_EV_UNKNOWN;

	loc = &dec->loc[dec->type_of_id[id]];
	if (size < loc->min_size)
		return KMT_EV_UNKNOWN;	/* too short for its format: no field taken */
	fill_words(&loc->words, p, ev);
	for (i = 0; i < loc->nother; i++) {
		const struct field_loc *fl = &loc->fields[loc->other[i]];

		if (fl->kind == SLOT_STR)
			fill_string(dec, fl, p, size, ev);
		else
			fill_int(dec, fl, p, ev);
	}
	ev->flags = loc->flags;
	ev->type = dec->type_of_id[id];
	if (ev->type == KMT_EV_U_SAMPLE)
		return decode_heap_record(dec, p, size, ev);
	if (possible_members[ev->type].n && !kmt_event_possible(ev))
		ev->flags |= KMT_EVF_IMPOSSIBLE;
	return ev->type;
}

#define MAX_SLAB_BYTES	(1ull << 32)	/* far above any kmalloc or cache object */
#define MAX_ORDER	31		/* far above any buddy allocator's */
#define MAX_USER_ADDR	(1ull << 57)	/* five-level page tables' user space */
#define MAX_RSS_BYTES	(1ll << 50)
#define MAX_KIB		(1ull << 44)

/* A syscall's return: an error (-4095..-1) or an address of user space. */
static bool user_return(long long ret)
{
	return (ret < 0 && ret >= -4095) || (ret >= 0 && (unsigned long long)ret <= MAX_USER_ADDR);
}

static bool args_in_user_space(const struct kmt_event *ev, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ev->arg[i] > MAX_USER_ADDR)
			return false;
	return true;
}

bool kmt_event_alloc_failed(const struct kmt_event *ev)
{
	if (ev->type != KMT_EV_PAGE_ALLOC)
		return !ev->ptr;
	return (ev->flags & KMT_EVF_PFN_IS_PAGE) ? ev->pfn == 0 : ev->pfn == ~0ull;
}

/* ZERO_SIZE_PTR is 16 */
#define ZERO_OR_NULL(p)	((p) <= 16)

bool kmt_event_frees_nothing(const struct kmt_event *ev)
{
	return (ev->type == KMT_EV_KFREE || ev->type == KMT_EV_CACHE_FREE) && ZERO_OR_NULL(ev->ptr);
}

bool kmt_event_possible(const struct kmt_event *ev)
{
	switch (ev->type) {
	case KMT_EV_KMALLOC:
	case KMT_EV_KMALLOC_NODE:
	case KMT_EV_CACHE_ALLOC:
	case KMT_EV_CACHE_ALLOC_NODE:
		return ev->bytes_req <= MAX_SLAB_BYTES && ev->bytes_alloc <= MAX_SLAB_BYTES;
	case KMT_EV_PAGE_ALLOC:
	case KMT_EV_PAGE_FREE:
	case KMT_EV_PAGE_ALLOC_EXTFRAG:
	case KMT_EV_PAGE_ALLOC_ZONE_LOCKED:
	case KMT_EV_PAGE_PCPU_DRAIN:
		return ev->order <= MAX_ORDER;
	case KMT_EV_RSS_STAT:
		return ev->size >= -MAX_RSS_BYTES && ev->size <= MAX_RSS_BYTES;
	case KMT_EV_OOM_VICTIM:
		return ev->total_vm <= MAX_KIB && ev->anon_rss <= MAX_KIB &&
		       ev->file_rss <= MAX_KIB && ev->shmem_rss <= MAX_KIB;
	case KMT_EV_FORK:
	case KMT_EV_EXEC:
	case KMT_EV_EXIT:
		return ev->target_pid >= 0 && ev->target_pid <= INT32_MAX;
	case KMT_EV_MMAP_ENTER:
		return ev->arg[0] <= MAX_USER_ADDR && ev->arg[1] <= MAX_USER_ADDR;
	case KMT_EV_MUNMAP_ENTER:
		return args_in_user_space(ev, 2);
	case KMT_EV_MREMAP_ENTER:
		return args_in_user_space(ev, 3) && ev->arg[4] <= MAX_USER_ADDR;
	case KMT_EV_BRK_ENTER:
		return args_in_user_space(ev, 1);
	case KMT_EV_MMAP_EXIT:
	case KMT_EV_MUNMAP_EXIT:
	case KMT_EV_MREMAP_EXIT:
	case KMT_EV_BRK_EXIT:
		return user_return(ev->ret);
	case KMT_EV_U_CALL:
	case KMT_EV_U_RETURN:
		return ev->func > KMT_UF_NONE && ev->func < KMT_UF_NR;
	default:
		return true;
	}
}
