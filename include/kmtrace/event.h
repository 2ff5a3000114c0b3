/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: the normalized memory event every reader decodes into.
 */
#ifndef KMTRACE_EVENT_H
#define KMTRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/* The events kmtrace knows; anything else is counted as unknown. */
enum kmt_event_type {
	KMT_EV_UNKNOWN = 0,
	KMT_EV_KMALLOC,
	KMT_EV_KMALLOC_NODE,
	KMT_EV_KFREE,
	KMT_EV_CACHE_ALLOC,
	KMT_EV_CACHE_ALLOC_NODE,
	KMT_EV_CACHE_FREE,
	KMT_EV_PAGE_ALLOC,
	KMT_EV_PAGE_FREE,
	KMT_EV_PAGE_FREE_BATCHED,
	KMT_EV_PAGE_ALLOC_EXTFRAG,
	KMT_EV_PAGE_ALLOC_ZONE_LOCKED,
	KMT_EV_PAGE_PCPU_DRAIN,
	KMT_EV_RSS_STAT,
	KMT_EV_FAULT_USER,
	KMT_EV_FAULT_KERNEL,
	KMT_EV_OOM_VICTIM,
	KMT_EV_FORK,
	KMT_EV_EXEC,
	KMT_EV_EXIT,
	KMT_EV_FAULT_RETURN,	/* kmtrace's return probe on handle_mm_fault */
	KMT_EV_MMAP_ENTER,
	KMT_EV_MMAP_EXIT,
	KMT_EV_MUNMAP_ENTER,
	KMT_EV_MUNMAP_EXIT,
	KMT_EV_MREMAP_ENTER,
	KMT_EV_MREMAP_EXIT,
	KMT_EV_BRK_ENTER,
	KMT_EV_BRK_EXIT,
	KMT_EV_U_CALL,		/* record --user: a C library allocator entered */
	KMT_EV_U_RETURN,	/* ... and returned */
	KMT_EV_U_SAMPLE,	/* record --user-sample: a sampled allocation or free */
	/* recorded only when asked for (kmt_event_type_on_request()) from here on */
	/* vmscan: reclaim */
	KMT_EV_DIRECT_RECLAIM_BEGIN,
	KMT_EV_FIRST_ON_REQUEST = KMT_EV_DIRECT_RECLAIM_BEGIN,
	KMT_EV_DIRECT_RECLAIM_END,
	KMT_EV_MEMCG_RECLAIM_BEGIN,
	KMT_EV_MEMCG_RECLAIM_END,
	KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_BEGIN,
	KMT_EV_MEMCG_SOFTLIMIT_RECLAIM_END,
	KMT_EV_NODE_RECLAIM_BEGIN,
	KMT_EV_NODE_RECLAIM_END,
	KMT_EV_KSWAPD_WAKE,
	KMT_EV_KSWAPD_SLEEP,
	KMT_EV_WAKEUP_KSWAPD,
	KMT_EV_LRU_ISOLATE,
	KMT_EV_LRU_SHRINK_ACTIVE,
	KMT_EV_LRU_SHRINK_INACTIVE,
	KMT_EV_RECLAIM_PAGES,
	KMT_EV_RECLAIM_THROTTLED,
	KMT_EV_RECLAIM_WRITE_FOLIO,
	KMT_EV_SHRINK_SLAB_START,
	KMT_EV_SHRINK_SLAB_END,
	/* compaction */
	KMT_EV_COMPACTION_BEGIN,
	KMT_EV_COMPACTION_END,
	KMT_EV_COMPACTION_TRY,
	KMT_EV_COMPACTION_SUITABLE,
	KMT_EV_COMPACTION_FINISHED,
	KMT_EV_COMPACTION_DEFERRED,
	KMT_EV_COMPACTION_DEFER,
	KMT_EV_COMPACTION_DEFER_RESET,
	KMT_EV_COMPACTION_ISOLATE_MIGRATE,
	KMT_EV_COMPACTION_ISOLATE_FREE,
	KMT_EV_COMPACTION_FAST_ISOLATE_FREE,
	KMT_EV_COMPACTION_MIGRATE,
	KMT_EV_KCOMPACTD_WAKE,
	KMT_EV_KCOMPACTD_SLEEP,
	KMT_EV_WAKEUP_KCOMPACTD,
	/* vmalloc and percpu */
	KMT_EV_VMAP_ALLOC,
	KMT_EV_VMAP_FREE,
	KMT_EV_VMAP_PURGE,
	KMT_EV_PERCPU_ALLOC,
	KMT_EV_PERCPU_FREE,
	KMT_EV_PERCPU_ALLOC_FAIL,
	KMT_EV_PERCPU_CREATE_CHUNK,
	KMT_EV_PERCPU_DESTROY_CHUNK,
	/* filemap: the page cache */
	KMT_EV_PAGECACHE_ADD,
	KMT_EV_PAGECACHE_DELETE,
	KMT_EV_FILEMAP_FAULT,
	KMT_EV_FILEMAP_GET_PAGES,
	KMT_EV_FILEMAP_MAP_PAGES,
	KMT_EV_FILEMAP_SET_WB_ERR,
	KMT_EV_FILEMAP_CHECK_WB_ERR,
	/* oom */
	KMT_EV_OOM_SCORE_ADJ_UPDATE,
	KMT_EV_OOM_RECLAIM_RETRY,
	KMT_EV_OOM_COMPACT_RETRY,
	KMT_EV_OOM_WAKE_REAPER,
	KMT_EV_OOM_START_REAPING,
	KMT_EV_OOM_FINISH_REAPING,
	KMT_EV_OOM_SKIP_REAPING,
	/* memcg */
	KMT_EV_MEMCG_MOD_STATE,
	KMT_EV_MEMCG_MOD_LRUVEC_STATE,
	KMT_EV_MEMCG_COUNT_EVENTS,
	KMT_EV_MEMCG_FLUSH_STATS,
	KMT_EV_NR
};

#define KMT_EVF_PFN_IS_PAGE	(1u << 0)	/* pfn holds a struct page pointer */
#define KMT_EVF_HAS_NODE	(1u << 1)	/* node is valid */
#define KMT_EVF_TYPE_ONLY	(1u << 2)	/* type, id and pid only (kmt_decoder_only) */
#define KMT_EVF_IMPOSSIBLE	(1u << 3)	/* kmt_event_possible() said no at decoding */
#define KMT_EVF_SWAPPED		(1u << 4)	/* KMT_EV_U_SAMPLE frames: other byte order */
#define KMT_EVF_OBJ_LIVE	(1u << 5)	/* obj: the pointer was live before the event */

#define KMT_EV_NO_OBJ		UINT32_MAX	/* obj of an event that names no live object */

/*
 * One decoded event. Integer members hold the raw field values (signed
 * fields sign-extended); members an event does not carry are 0.
 * @str points into the record (cache name, comm or file name) and is
 * not NUL-terminated: use @str_len.
 */
struct kmt_event {
	enum kmt_event_type type;
	int id;			/* tracefs event id */
	unsigned int flags;
	int cpu;
	int pid;
	/*
	 * A slab allocation's or free's object, when an analysis follows them
	 * (kmt_analysis.slab_objects): its slot among the live ones (reused
	 * once freed, the next new one otherwise), with KMT_EVF_OBJ_LIVE when
	 * the pointer was live before (an allocation over it, a free that
	 * found it); KMT_EV_NO_OBJ for a free that found none, a failed
	 * allocation and a free of NULL.
	 */
	uint32_t obj;
	unsigned long long ts;

	unsigned long long call_site;
	unsigned long long ptr;
	unsigned long long bytes_req;
	unsigned long long bytes_alloc;
	unsigned long long gfp_flags;
	long long node;

	unsigned long long pfn;
	unsigned long long order;
	long long migratetype;

	unsigned long long mm_id;
	unsigned long long curr;
	long long member;
	long long size;

	unsigned long long address;
	unsigned long long ip;
	unsigned long long error_code;

	unsigned long long arg[6];	/* syscall entry arguments, in order */
	long long ret;			/* syscall or handle_mm_fault return */

	unsigned long long total_vm;	/* OOM victim, KiB */
	unsigned long long anon_rss;
	unsigned long long file_rss;
	unsigned long long shmem_rss;
	long long oom_score_adj;

	long long target_pid;	/* OOM victim, fork child, exec/exit pid */
	const char *str;
	int str_len;
	/*
	 * The cache name of a kmem_cache_alloc in @str, numbered by the
	 * replay's reading thread when analyses that follow slab objects
	 * (kmt_analysis.slab_objects) run on two threads: the same number for
	 * the same name, from 1; 0: not numbered.
	 */
	uint32_t str_id;

	const unsigned long long *callchain;	/* ips, innermost first (KMT_CALLCHAIN_*) */
	int callchain_nr;

	const void *raw;	/* the record's payload, valid during the event call */
	int raw_size;
	const char *comm;	/* the task's name at the event, or NULL (kmt_record.comm) */
	const char *text;	/* the fields as text input wrote them, or NULL */
	const char *text_event;	/* and the event's name as it wrote it */
	unsigned long long func;	/* KMT_EV_U_*: enum kmt_user_func (decoded as u64) */

	/*
	 * The fields of the families that share nothing with kmem's: the
	 * member named after the event's family holds them (@type says which;
	 * the others alias it). Ranges start in @pfn or @ptr.
	 */
	union {
		struct {			/* vmscan */
			long long nid;
			long long priority;
			unsigned long long nr_scanned;	/* lru, pages; shrink_slab: total_scan */
			unsigned long long nr_taken;	/* isolated */
			unsigned long long nr_reclaimed;
			unsigned long long nr_deactivated;	/* lru_shrink_active */
			long long lru;			/* lru_isolate: which list */
			long long usec_timeout;		/* throttled */
			long long usec_delayed;
			long long reason;
			long long cache_items;		/* shrink_slab_start */
			long long shrinker_freed;	/* shrink_slab_end: the shrinker's return */
		} reclaim;
		struct {			/* compaction */
			long long nid;
			long long priority;		/* try: prio; deferred: defer_shift */
			unsigned long long end_pfn;	/* begin/end: zone_end; isolate: end_pfn */
			unsigned long long nr_scanned;	/* isolate; deferred: considered */
			unsigned long long nr_taken;	/* isolate */
			unsigned long long nr_migrated;
			unsigned long long nr_failed;
			long long sync;
			long long status;		/* end: status; suitable/finished: ret;
							   deferred: order_failed */
		} compaction;
		struct {			/* filemap */
			unsigned long long ino;		/* the file's inode and device */
			unsigned long long dev;
			unsigned long long index;
			unsigned long long last_index;	/* get_pages, map_pages */
			long long errseq;		/* set_wb_err: errseq; check_wb_err: new */
		} pagecache;
		struct {			/* memcg */
			unsigned long long id;		/* the memory cgroup's (its cgroupfs inode) */
			long long item;			/* the kernel's enum number; flush: force */
			long long val;			/* flush: stats_updates */
		} memcg;
		struct {			/* vmalloc, percpu */
			unsigned long long end;		/* vmap purge */
			long long count;		/* vmap free: nr_lazy; purge: npurged */
			long long failed;		/* alloc_vmap_area */
			long long is_atomic;		/* percpu */
		} area;
		struct {			/* oom: reclaim_retry_zone, compact_retry */
			long long nid;
			long long priority;
			unsigned long long reclaimable;
			unsigned long long available;	/* reclaim: available; compact: ret */
			long long loops;		/* no_progress_loops; compact: retries */
			long long result;		/* wmark_check; compact: result */
		} oom_retry;
	};
};

/*
 * The C library functions record --user probes, as the probes' "fn" field
 * numbers them (fixed: recordings carry the numbers).
 */
enum kmt_user_func {
	KMT_UF_NONE = 0,
	KMT_UF_MALLOC,		/* (size) */
	KMT_UF_CALLOC,		/* (nmemb, size) */
	KMT_UF_REALLOC,		/* (ptr, size) */
	KMT_UF_FREE,		/* (ptr) */
	KMT_UF_MEMALIGN,	/* (alignment, size): memalign, aligned_alloc */
	KMT_UF_VALLOC,		/* (size) */
	KMT_UF_PVALLOC,		/* (size), rounded up to pages */
	KMT_UF_POSIX_MEMALIGN,	/* (memptr, alignment, size) */
	KMT_UF_NR
};

/* Whether @f returns the pointer it allocated (record --user probes its return). */
static inline bool kmt_user_func_returns_pointer(enum kmt_user_func f)
{
	return f > KMT_UF_NONE && f < KMT_UF_NR && f != KMT_UF_FREE && f != KMT_UF_POSIX_MEMALIGN;
}

/*
 * perf's context markers in a callchain (PERF_CONTEXT_KERNEL, ...) sit at
 * the top of the u64 range: at and above this; user-space frames follow
 * KMT_CALLCHAIN_USER.
 */
#define KMT_CALLCHAIN_MARKERS	((unsigned long long)-4095)
#define KMT_CALLCHAIN_USER	((unsigned long long)-512)

/* Return "system:event" for @type, e.g. "kmem:kmalloc". */
const char *kmt_event_type_name(enum kmt_event_type type);

/* Return the tracefs system of @type ("kmem"), or NULL for KMT_EV_UNKNOWN. */
const char *kmt_event_type_system(enum kmt_event_type type);

/* Return the tracefs event name of @type ("kmalloc"), or NULL. */
const char *kmt_event_type_event(enum kmt_event_type type);

/*
 * Is @type recorded only when asked for (record -e GROUP, -e mm), not by
 * default: reclaim, compaction, vmalloc, percpu, page cache, memcg, the
 * oom group's events besides mark_victim?
 */
bool kmt_event_type_on_request(enum kmt_event_type type);

/* Look up "system:event" or "event"; KMT_EV_UNKNOWN when not known. */
enum kmt_event_type kmt_event_type_lookup(const char *name);

struct kmt_decoder;

/*
 * Resolve, once, the field offsets of every known event present in @tep.
 * Returns NULL with errno set on allocation failure.
 */
struct kmt_decoder *kmt_decoder_new(struct tep_handle *tep);

/* Free a decoder made by kmt_decoder_new(). */
void kmt_decoder_free(struct kmt_decoder *dec);

/*
 * From now on decode the fields only of events whose type @want (an array
 * of KMT_EV_NR flags) names: of the others kmt_decode() fills type, id,
 * pid and flags, and only the fields kmt_event_possible() checks (the other
 * members keep what they held), and sets KMT_EVF_TYPE_ONLY; a payload too
 * short for its format is KMT_EV_UNKNOWN either way. Replay names those its
 * analyses read, so that events nobody reads cost an id lookup and are
 * known or unknown just as when decoded.
 */
void kmt_decoder_only(struct kmt_decoder *dec, const bool *want);

/*
 * Decode the raw payload @data of @size bytes into @ev. Returns the
 * event type; KMT_EV_UNKNOWN for events kmtrace does not know or for
 * payloads too short for their format (then only @ev->id and @ev->pid are set).
 * A known event whose values kmt_event_possible() refuses gets
 * KMT_EVF_IMPOSSIBLE in @ev->flags.
 */
enum kmt_event_type kmt_decode(const struct kmt_decoder *dec, const void *data,
			       int size, struct kmt_event *ev);

/*
 * Are the values of decoded event @ev ones a kernel can write? Sizes and
 * orders beyond any machine's (a damaged or made-up file) would wrap the
 * sums of the analyses.
 */
bool kmt_event_possible(const struct kmt_event *ev);

/*
 * Does kmt_event_possible() read the 8-byte member at offset @member of a
 * @type event? The decoder fills those even of events it decodes for their
 * type only.
 */
bool kmt_event_checks(enum kmt_event_type type, size_t member);

/*
 * Did allocation @ev fail: a slab allocation with a NULL pointer, a page
 * allocation with pfn -1 (or, on old kernels, a NULL struct page)?
 */
bool kmt_event_alloc_failed(const struct kmt_event *ev);

/* Does slab free @ev free nothing: kfree(NULL), kfree(ZERO_SIZE_PTR)? (both are traced) */
bool kmt_event_frees_nothing(const struct kmt_event *ev);

/*
 * Return address @i (0: innermost, the allocator's caller) of a
 * KMT_EV_U_SAMPLE event @ev, whose str holds str_len / 8 of them in the
 * recording's byte order; 0 past the last.
 */
unsigned long long kmt_event_user_frame(const struct kmt_event *ev, int i);

/* A call site's counts in a record of the library's exact counts (KMT_HEAP_SITES). */
struct kmt_heap_site {
	uint64_t addr;		/* the call's return address; 0: known only by function */
	unsigned int func;	/* enum kmt_user_func */
	uint64_t calls, bytes;	/* calls made, bytes they asked for */
};

/*
 * Site @i (0 to str_len / 24 - 1) of KMT_EV_U_SAMPLE event @ev whose
 * arg[2] is KMT_HEAP_SITES.
 */
struct kmt_heap_site kmt_event_heap_site(const struct kmt_event *ev, int i);

/* The tracefs event id of raw payload @data, or -1 if it is too short. */
int kmt_decoder_event_id(const struct kmt_decoder *dec, const void *data, int size);

#endif /* KMTRACE_EVENT_H */
