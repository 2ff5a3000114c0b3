// SPDX-License-Identifier: LGPL-2.1
/*
 * libkmtrace-heap.so: record --user-sample's allocator hooks (and watch
 * --on-limit's limits, held at each call), loaded with LD_PRELOAD into the
 * command. malloc, calloc, realloc, free, memalign,
 * posix_memalign, aligned_alloc, valloc and pvalloc are sampled by bytes
 * with a Poisson process (each thread counts down an exponentially drawn
 * number of bytes, mean KMTRACE_HEAP's interval); a sampled allocation is
 * written with its user stack into the recording instance's
 * trace_marker_raw (struct kmt_heap_rec), and its pointer kept in a
 * lock-free table so that only the frees of sampled objects are written.
 * With an interval of 1 every call is written and no table is kept.
 *
 * The hooks take no lock and allocate nothing: the record is built on the
 * stack, the table is mapped once, a thread's countdown and its reentry
 * flag are initial-exec TLS, and calls made while a hook runs (the
 * unwinder's, a signal handler's) go straight to the C library. The
 * descriptor the recorder handed down is checked (device and inode)
 * before every write, so a program that closed it and opened something
 * else under its number is never written into.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unwind.h>

#include <kmtrace/event.h>

#include "common/heaprec.h"
#include "heap_sites.h"

#define EXPORT		__attribute__((visibility("default")))
#define INLINE		static inline __attribute__((always_inline))
#define TLS		__thread __attribute__((tls_model("initial-exec")))
#define TABLE_SLOTS	(1u << 17)	/* sampled objects followed at once (1 MiB) */
#define MAX_PROBES	64
#define TOMBSTONE	1ull
#define BOOT_ARENA	(64u << 10)
#define FILTER_BITS	15		/* counters in front of the table (32 KiB) */

/* glibc's own entry points: calling them is never interposed. */
extern void *__libc_malloc(size_t) __attribute__((weak));
extern void __libc_free(void *) __attribute__((weak));
extern void *__libc_calloc(size_t, size_t) __attribute__((weak));
extern void *__libc_realloc(void *, size_t) __attribute__((weak));
extern void *__libc_memalign(size_t, size_t) __attribute__((weak));
extern void *__libc_valloc(size_t) __attribute__((weak));
extern void *__libc_pvalloc(size_t) __attribute__((weak));

enum { OFF, STARTING, ON, STOPPED };

static struct {
	int state;			/* OFF, STARTING, ON or STOPPED (never again) */
	struct kmt_heap_env env;
	uint64_t *table;		/* TABLE_SLOTS pointers, 0 empty, TOMBSTONE freed */
	uint8_t filter[1u << FILTER_BITS];	/* followed pointers per hash (255: stuck) */
	bool limited;			/* a limit is set: every call is counted */
	bool sites;			/* sampling: calls also counted per call site */
} heap;

/* The counts limits are held against (kmtrace watch), of every call the hooks see. */
static struct {
	int64_t live;			/* usable bytes of live blocks */
	uint64_t asked;			/* bytes asked for since the start */
	unsigned int acted;		/* bit per enum kmt_heap_limit: recorded and acted on */
} use;

static TLS int64_t tl_until;		/* bytes until this thread's next sample */
static TLS uint64_t tl_rng;
static TLS bool tl_busy;		/* inside a hook: calls go straight through */
static TLS uintptr_t tl_stack_lo, tl_stack_hi;	/* this thread's stack, once asked */
static TLS uint64_t tl_asked;		/* bytes this thread asked for (limits) */
static TLS bool tl_acted;		/* its thread limit was recorded and acted on */

/* Without glibc's __libc_* (another C library): the next definitions, found once. */
static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	unsigned char arena[BOOT_ARENA] __attribute__((aligned(16)));	/* dlsym's own needs */
	size_t used;
} next;

static void *boot_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > BOOT_ARENA - next.used)
		return NULL;
	p = next.arena + next.used;
	next.used += n;
	return p;
}

static bool from_boot(const void *p)
{
	return (const unsigned char *)p >= next.arena &&
	       (const unsigned char *)p < next.arena + BOOT_ARENA;
}

static void find_next(void)
{
	bool busy = tl_busy;

	tl_busy = true;
	next.malloc = dlsym(RTLD_NEXT, "malloc");
	next.free = dlsym(RTLD_NEXT, "free");
	next.calloc = dlsym(RTLD_NEXT, "calloc");
	next.realloc = dlsym(RTLD_NEXT, "realloc");
	next.memalign = dlsym(RTLD_NEXT, "memalign");
	tl_busy = busy;
}

INLINE void *real_malloc(size_t n)
{
	if (__libc_malloc)
		return __libc_malloc(n);
	if (!next.malloc && !tl_busy)
		find_next();
	return next.malloc ? next.malloc(n) : boot_alloc(n);
}

INLINE void real_free(void *p)
{
	if (__libc_free)
		__libc_free(p);
	else if (!from_boot(p) && next.free)
		next.free(p);
}

INLINE void *real_calloc(size_t n, size_t size)
{
	if (__libc_calloc)
		return __libc_calloc(n, size);
	if (!next.calloc && !tl_busy)
		find_next();
	if (next.calloc)
		return next.calloc(n, size);
	return size && n > SIZE_MAX / size ? NULL : boot_alloc(n * size);	/* zeroed: static */
}

INLINE void *real_realloc(void *p, size_t n)
{
	if (__libc_realloc)
		return __libc_realloc(p, n);
	if (!next.realloc)
		find_next();
	return next.realloc ? next.realloc(p, n) : NULL;
}

INLINE void *real_memalign(size_t align, size_t n)
{
	if (__libc_memalign)
		return __libc_memalign(align, n);
	if (!next.memalign)
		find_next();
	return next.memalign ? next.memalign(align, n) : NULL;
}

static void *real_valloc(size_t n)
{
	return __libc_valloc ? __libc_valloc(n) : real_memalign(sysconf(_SC_PAGESIZE), n);
}

/* pvalloc rounds @n up to whole pages; the size asked for is what is reported. */
static void *real_pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (__libc_pvalloc)
		return __libc_pvalloc(n);
	return n > SIZE_MAX - page ? NULL : real_memalign(page, (n + page - 1) & ~(page - 1));
}

/* Set up from KMTRACE_HEAP, once, by whichever thread comes first. */
static void start(void)
{
	int expected = OFF;
	const char *spec;
	int state = STOPPED;

	if (!__atomic_compare_exchange_n(&heap.state, &expected, STARTING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	spec = getenv(KMT_HEAP_ENV);
	if (spec && !kmt_heap_env_parse(spec, &heap.env)) {
		state = ON;
		heap.limited = heap.env.heap_limit || heap.env.alloc_limit || heap.env.thread_limit;
		if (heap.env.interval > 1) {
			void *t = mmap(NULL, TABLE_SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			heap.table = t == MAP_FAILED ? NULL : t;
			if (!heap.table)
				state = STOPPED;
			else
				heap.sites = heap_sites_start(heap.env.interval);
		}
	}
	__atomic_store_n(&heap.state, state, __ATOMIC_RELEASE);
}

static __attribute__((constructor)) void heap_constructor(void)
{
	start();
}

/* At exit(), after the program's own handlers: the counts per call site. */
static __attribute__((destructor)) void heap_destructor(void)
{
	if (heap.sites && __atomic_load_n(&heap.state, __ATOMIC_ACQUIRE) == ON)
		heap_sites_flush();
}

/* Is sampling on? Starts it at the first call. */
static inline bool heap_on(void)
{
	int state = __atomic_load_n(&heap.state, __ATOMIC_ACQUIRE);

	if (state == OFF) {
		start();
		state = __atomic_load_n(&heap.state, __ATOMIC_ACQUIRE);
	}
	return state == ON;
}

static uint64_t next_random(void)
{
	uint64_t x = tl_rng;

	if (!x)
		x = ((uint64_t)(uintptr_t)&tl_rng ^ (uint64_t)getpid() << 32) * 0x9e3779b97f4a7c15ull | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	tl_rng = x;
	return x;
}

/* Bytes to the next sample point: exponential with mean interval. */
static int64_t draw(void)
{
	double u = ((next_random() >> 11) + 1) * 0x1p-53;	/* (0, 1] */
	double d = -log(u) * (double)heap.env.interval;

	return d >= 0x1p62 ? INT64_MAX / 2 : (int64_t)d + 1;
}

/* The first call of a thread, or a sample point passed: whether to sample. */
static __attribute__((noinline)) bool sample_slow(size_t n)
{
	if (heap.env.interval <= 1)
		return true;
	if (!tl_rng) {			/* this thread's first: its first point */
		tl_until = draw() - (int64_t)(n > INT64_MAX / 2 ? INT64_MAX / 2 : n);
		if (tl_until > 0)
			return false;
	}
	tl_until = draw();		/* memoryless: the next one counts from here */
	return true;
}

/* Does an allocation of @n bytes fall on a sample point? */
static inline bool sample_due(size_t n)
{
	if ((tl_until -= (int64_t)(n > INT64_MAX / 2 ? INT64_MAX / 2 : n)) > 0)
		return false;
	return sample_slow(n);
}

/* May @p be followed? A counter per hash of the pointer, 0 for most: no table look. */
static inline uint8_t *filter_of(uint64_t p)
{
	return &heap.filter[(p >> 4) * 0x9e3779b97f4a7c15ull >> (64 - FILTER_BITS)];
}

static size_t slot_of(uint64_t p)
{
	p ^= p >> 33;
	p *= 0xff51afd7ed558ccdull;
	p ^= p >> 33;
	return p & (TABLE_SLOTS - 1);
}

/* Follow sampled object @p; false when its probe run is full. */
static bool table_put(uint64_t p)
{
	size_t h = slot_of(p), i;
	uint8_t *count = filter_of(p);

	for (i = 0; i < MAX_PROBES; i++) {
		uint64_t *s = &heap.table[(h + i) & (TABLE_SLOTS - 1)];
		uint64_t v = __atomic_load_n(s, __ATOMIC_RELAXED);

		if ((v == 0 || v == TOMBSTONE) &&
		    __atomic_compare_exchange_n(s, &v, p, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			if (__atomic_load_n(count, __ATOMIC_RELAXED) != UINT8_MAX)
				__atomic_add_fetch(count, 1, __ATOMIC_RELEASE);
			return true;
		}
	}
	return false;
}

/* Stop following @p; whether it was a sampled object. */
static bool table_take(uint64_t p)
{
	size_t h = slot_of(p), i;
	uint8_t *count = filter_of(p);

	if (!p || !heap.table || !__atomic_load_n(count, __ATOMIC_ACQUIRE))
		return false;
	for (i = 0; i < MAX_PROBES; i++) {
		uint64_t *s = &heap.table[(h + i) & (TABLE_SLOTS - 1)];
		uint64_t v = __atomic_load_n(s, __ATOMIC_ACQUIRE);

		if (v == p) {
			if (!__atomic_compare_exchange_n(s, &v, TOMBSTONE, false, __ATOMIC_ACQ_REL,
							 __ATOMIC_RELAXED))
				return false;
			if (__atomic_load_n(count, __ATOMIC_RELAXED) != UINT8_MAX)
				__atomic_sub_fetch(count, 1, __ATOMIC_RELEASE);
			return true;
		}
		if (v == 0)
			return false;
	}
	return false;
}

struct walk {
	uint64_t *frames;
	int n, max;
};

static _Unwind_Reason_Code take_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	uintptr_t ip = _Unwind_GetIP(ctx);

	if (!ip || w->n >= w->max)
		return _URC_END_OF_STACK;
	w->frames[w->n++] = ip;
	return _URC_NO_REASON;
}

/*
 * The return addresses from @ret (the hook's own, in its caller) outwards,
 * found by the C compiler's unwinder (DWARF call frame information).
 */
static int walk_dwarf(uint64_t *frames, uint64_t ret)
{
	uint64_t all[KMT_HEAP_MAX_FRAMES + 8];
	struct walk w = { all, 0, KMT_HEAP_MAX_FRAMES + 8 };
	int i, n;

	_Unwind_Backtrace(take_frame, &w);
	for (i = 0; i < w.n && all[i] != ret; i++)
		;
	if (i == w.n) {		/* the hook's frame not seen: its return address alone */
		frames[0] = ret;
		return 1;
	}
	n = w.n - i > KMT_HEAP_MAX_FRAMES ? KMT_HEAP_MAX_FRAMES : w.n - i;
	memcpy(frames, all + i, n * sizeof(*frames));
	return n;
}

/* Find this thread's stack once (what is called meanwhile goes straight through). */
static void find_stack(void)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;

	tl_stack_hi = 1;	/* asked: none known unless found */
	if (pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &lo, &size)) {
		tl_stack_lo = (uintptr_t)lo;
		tl_stack_hi = (uintptr_t)lo + size;
	}
	pthread_attr_destroy(&attr);
}

/*
 * The return addresses along the frame pointer chain from the hook's frame
 * @fp: each frame above the last and inside the thread's stack, so that
 * nothing unmapped is read. Code built without frame pointers ends the
 * chain early; then the DWARF walk is taken.
 */
static int walk_fp(uint64_t *frames, const uintptr_t *fp, uint64_t ret)
{
	int n = 0;

	if (!tl_stack_hi)
		find_stack();
	if ((uintptr_t)fp < tl_stack_lo || (uintptr_t)fp + 2 * sizeof(*fp) > tl_stack_hi)
		return walk_dwarf(frames, ret);	/* on a signal stack, or none known */
	frames[n++] = ret;
	while (n < KMT_HEAP_MAX_FRAMES) {
		const uintptr_t *up = (const uintptr_t *)fp[0];

		if (up <= fp || (uintptr_t)up % sizeof(uintptr_t) ||
		    (uintptr_t)up + 2 * sizeof(*up) > tl_stack_hi || !up[1])
			break;
		frames[n++] = up[1];
		fp = up;
	}
	return n > 2 ? n : walk_dwarf(frames, ret);
}

void heap_write(const void *buf, size_t len)
{
	int saved = errno;	/* the program's errno is not ours to change */
	struct stat st;
	bool ours;

	ours = !fstat(heap.env.fd, &st) && st.st_dev == heap.env.dev && st.st_ino == heap.env.ino;
	/* not the recorder's file any more, or the instance gone: never again */
	if (!ours || (write(heap.env.fd, buf, len) < 0 && errno != EINTR && errno != EAGAIN))
		__atomic_store_n(&heap.state, STOPPED, __ATOMIC_RELEASE);
	errno = saved;
}

/* Write one record, with the stack from @fp and @ret for an allocation or a limit. */
static void emit(uint8_t kind, uint8_t func, uint64_t ptr, uint64_t old, uint64_t size,
		 const void *fp, uint64_t ret)
{
	unsigned char buf[4 + KMT_HEAP_HEADER_SIZE + KMT_HEAP_MAX_FRAMES * 8];
	uint32_t id = KMT_HEAP_MARKER_ID;
	uint64_t frames[KMT_HEAP_MAX_FRAMES];
	struct kmt_heap_rec r = { KMT_HEAP_VERSION, kind, func, 0, (uint32_t)getpid(),
				  (uint32_t)gettid(), 0, ptr, old, size, heap.env.interval };
	int nframes = 0;

	if (kind & (KMT_HEAP_ALLOC | KMT_HEAP_LIMIT))
		nframes = heap.env.fp ? walk_fp(frames, fp, ret) : walk_dwarf(frames, ret);
	r.nframes = (uint8_t)nframes;
	memcpy(buf, &id, 4);
	memcpy(buf + 4, &r, KMT_HEAP_HEADER_SIZE);
	memcpy(buf + 4 + KMT_HEAP_HEADER_SIZE, frames, nframes * 8);
	heap_write(buf, 4 + KMT_HEAP_HEADER_SIZE + nframes * 8);
}

/* A sampled allocation of @size bytes that returned @p: its record. */
static __attribute__((noinline)) void allocated(uint8_t func, void *p, size_t size,
						const void *fp, uint64_t ret)
{
	uint8_t kind = KMT_HEAP_ALLOC;

	tl_busy = true;
	if (p && heap.table && !table_put((uintptr_t)p))
		kind |= KMT_HEAP_UNFOLLOWED;
	emit(kind, func, (uintptr_t)p, 0, size, fp, ret);
	tl_busy = false;
}

/* Are the hooks to look at this call (not one made inside a hook)? */
static inline bool watching(void)
{
	return !tl_busy && heap_on();
}

/* The C library's call @func with arguments @a and @b (as the hook got them). */
INLINE void *call(uint8_t func, size_t a, size_t b)
{
	switch (func) {
	case KMT_UF_CALLOC:
		return real_calloc(a, b);
	case KMT_UF_MEMALIGN:
	case KMT_UF_POSIX_MEMALIGN:
		return real_memalign(a, b);
	case KMT_UF_VALLOC:
		return real_valloc(a);
	case KMT_UF_PVALLOC:
		return real_pvalloc(a);
	default:
		return real_malloc(a);
	}
}

/*
 * A call on a sample point: made, then recorded with the stack from @ret
 * (the hook's return address) on. The hooks keep no frame of their own,
 * so this one's saved frame pointer is the caller's.
 */
static __attribute__((noinline)) void *sampled_call(uint8_t func, size_t a, size_t b,
						    size_t n, uint64_t ret)
{
	void *p = call(func, a, b);

	allocated(func, p, n, __builtin_frame_address(0), ret);
	return p;
}

/* Block @p (live or given back) in the counts: its usable bytes, @sign 1 or -1. */
static void count_block(void *p, int sign)
{
	if (p)
		__atomic_add_fetch(&use.live, sign * (int64_t)malloc_usable_size(p),
				   __ATOMIC_RELAXED);
}

/* @n bytes asked for, by the process and this thread. */
static void count_asked(size_t n)
{
	__atomic_add_fetch(&use.asked, n, __ATOMIC_RELAXED);
	tl_asked += n;
}

/*
 * Would @n more bytes, @given usable bytes back, pass a limit? Which (enum
 * kmt_heap_limit), or 0; the count it would pass in *@count.
 */
static int crossing(size_t n, size_t given, uint64_t *count)
{
	int64_t live = __atomic_load_n(&use.live, __ATOMIC_RELAXED);
	uint64_t asked = __atomic_load_n(&use.asked, __ATOMIC_RELAXED);
	int64_t more = (int64_t)(n < INT64_MAX / 2 ? n : INT64_MAX / 2) - (int64_t)given;

	if (heap.env.heap_limit && live + more > (int64_t)heap.env.heap_limit) {
		*count = live > 0 ? (uint64_t)live : 0;
		return KMT_HEAP_LIMIT_HEAP;
	}
	if (heap.env.alloc_limit && asked + n > heap.env.alloc_limit) {
		*count = asked;
		return KMT_HEAP_LIMIT_ALLOC;
	}
	if (heap.env.thread_limit && tl_asked + n > heap.env.thread_limit) {
		*count = tl_asked;
		return KMT_HEAP_LIMIT_THREAD;
	}
	return 0;
}

/*
 * Limit @which was crossed by a call @func of @n bytes: the first time
 * (per process, per thread for its own limit) it is recorded with the
 * call's stack and the signal sent or the process stopped; with the fail
 * action every crossing call fails. Whether the call goes on.
 */
static bool act(int which, uint8_t func, size_t n, uint64_t count, const void *fp, uint64_t ret)
{
	bool first;

	if (which == KMT_HEAP_LIMIT_THREAD) {
		first = !tl_acted;
		tl_acted = true;
	} else {
		first = !(__atomic_fetch_or(&use.acted, 1u << which, __ATOMIC_ACQ_REL) & 1u << which);
	}
	if (first)
		emit(KMT_HEAP_LIMIT, func, count, (uint64_t)which | (uint64_t)heap.env.action << 8, n,
		     fp, ret);
	if (heap.env.action == KMT_HEAP_FAIL)
		return false;
	if (first && heap.env.action == KMT_HEAP_STOP)
		kill(getpid(), SIGSTOP);
	else if (first && which == KMT_HEAP_LIMIT_THREAD)
		tgkill(getpid(), gettid(), heap.env.signal);
	else if (first)
		kill(getpid(), heap.env.signal);
	return true;
}

/*
 * A call under limits: held against them first (failed with ENOMEM when
 * the action says so), counted once made, recorded if on a sample point.
 */
static __attribute__((noinline)) void *limited_call(uint8_t func, size_t a, size_t b, size_t n,
						    uint64_t ret)
{
	uint64_t count;
	bool go = true;
	int which;
	void *p;

	tl_busy = true;
	which = crossing(n, 0, &count);
	if (which)
		go = act(which, func, n, count, __builtin_frame_address(0), ret);
	tl_busy = false;
	if (!go) {
		errno = ENOMEM;
		return NULL;
	}
	p = call(func, a, b);
	if (p) {
		count_block(p, 1);
		count_asked(n);
	}
	if (sample_due(n))
		allocated(func, p, n, __builtin_frame_address(0), ret);
	return p;
}

/*
 * The hooks: whether a call falls on a sample point is known from its
 * size, so most go straight on to the C library; HOOKED(func, a, b, n) is
 * that for an allocation of n bytes. They keep no frame pointer, so that
 * the common path is a few instructions and a jump.
 */
#define HOOK		EXPORT __attribute__((optimize("omit-frame-pointer")))
#define HOOKED(func, a, b, n)							\
	if (!watching())							\
		return call(func, a, b);					\
	if (heap.sites)								\
		heap_sites_count(func, (uintptr_t)__builtin_return_address(0), n); \
	if (heap.limited)							\
		return limited_call(func, a, b, n,				\
				    (uintptr_t)__builtin_return_address(0));	\
	if (!sample_due(n))							\
		return call(func, a, b);					\
	return sampled_call(func, a, b, n, (uintptr_t)__builtin_return_address(0))

HOOK void *malloc(size_t n)
{
	HOOKED(KMT_UF_MALLOC, n, 0, n);
}

HOOK void *calloc(size_t n, size_t size)
{
	HOOKED(KMT_UF_CALLOC, n, size, size && n > SIZE_MAX / size ? SIZE_MAX : n * size);
}

/* free(@p): its record when every call is written or @p was sampled. */
static __attribute__((noinline)) void freed(void *p)
{
	tl_busy = true;
	if (heap.env.interval <= 1 || table_take((uintptr_t)p))
		emit(KMT_HEAP_FREE, KMT_UF_FREE, 0, (uintptr_t)p, 0, NULL, 0);
	tl_busy = false;
}

HOOK void free(void *p)
{
	if (!watching()) {
		real_free(p);
		return;
	}
	if (heap.sites)
		heap_sites_count(KMT_UF_FREE, 0, 0);
	if (heap.limited)
		count_block(p, -1);
	/* most pointers have no counter: nothing to look up */
	if (heap.env.interval <= 1 || (p && *filter_of((uintptr_t)p)))
		freed(p);
	real_free(p);
}

/* realloc's record: @old ended (@was followed, the call did not fail), @p sampled. */
static __attribute__((noinline)) void reallocated(void *old, bool was, void *p, size_t n,
						  const void *fp, uint64_t ret)
{
	uint8_t kind = 0;

	tl_busy = true;
	if (was && (p || !n))
		kind |= KMT_HEAP_FREE;
	else if (was && heap.table)
		table_put((uintptr_t)old);	/* failed: still live */
	if (sample_due(n)) {
		kind |= KMT_HEAP_ALLOC;
		if (p && heap.table && !table_put((uintptr_t)p))
			kind |= KMT_HEAP_UNFOLLOWED;
	}
	if (kind)
		emit(kind, KMT_UF_REALLOC, (kind & KMT_HEAP_ALLOC) ? (uintptr_t)p : 0,
		     (kind & KMT_HEAP_FREE) ? (uintptr_t)old : 0, n, fp, ret);
	tl_busy = false;
}

/* realloc under limits: held against them as @n bytes for @given; false: fail it. */
static __attribute__((noinline)) bool realloc_allowed(size_t n, size_t given, const void *fp,
						      uint64_t ret)
{
	uint64_t count;
	bool go = true;
	int which;

	tl_busy = true;
	which = crossing(n, given, &count);
	if (which)
		go = act(which, KMT_UF_REALLOC, n, count, fp, ret);
	tl_busy = false;
	return go;
}

EXPORT void *realloc(void *old, size_t n)
{
	size_t given = 0;
	bool was;
	void *p;

	if (!watching())
		return real_realloc(old, n);
	if (heap.sites)
		heap_sites_count(KMT_UF_REALLOC, (uintptr_t)__builtin_return_address(0), n);
	if (heap.limited) {
		given = old ? malloc_usable_size(old) : 0;
		if (!realloc_allowed(n, given, __builtin_frame_address(0),
				     (uintptr_t)__builtin_return_address(0))) {
			errno = ENOMEM;
			return NULL;	/* @old stays as it was */
		}
	}
	/* taken out before the call: once it returns, another thread may get it */
	was = heap.env.interval <= 1 ? old != NULL : table_take((uintptr_t)old);
	p = real_realloc(old, n);
	if (heap.limited && (p || !n)) {
		__atomic_add_fetch(&use.live, (p ? (int64_t)malloc_usable_size(p) : 0) -
			       (int64_t)given, __ATOMIC_RELAXED);
		count_asked(n);
	}
	reallocated(old, was, p, n, __builtin_frame_address(0),
		    (uintptr_t)__builtin_return_address(0));
	return p;
}

HOOK void *memalign(size_t align, size_t n)
{
	HOOKED(KMT_UF_MEMALIGN, align, n, n);
}

HOOK void *aligned_alloc(size_t align, size_t n)
{
	HOOKED(KMT_UF_MEMALIGN, align, n, n);
}

/* posix_memalign's allocation, hooked as the others (inlined: its caller's return address). */
INLINE void *posix_memalign_call(size_t align, size_t n)
{
	HOOKED(KMT_UF_POSIX_MEMALIGN, align, n, n);
}

HOOK int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (!align || align % sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = posix_memalign_call(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

HOOK void *valloc(size_t n)
{
	HOOKED(KMT_UF_VALLOC, n, 0, n);
}

HOOK void *pvalloc(size_t n)
{
	HOOKED(KMT_UF_PVALLOC, n, 0, n);
}
