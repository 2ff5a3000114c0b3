/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The records libkmtrace-heap.so (record --user-sample) writes into the
 * recording instance's trace_marker_raw, one write each. The kernel keeps
 * the first four bytes as the event's "id" (ftrace:raw_data) and the rest
 * as its "buf"; buf is laid out as below, every member in the traced
 * machine's byte order (that of the ring buffer), pointers widened to 64
 * bits. Shared by the library (writer) and decode (reader).
 */
#ifndef KMT_HEAPREC_H
#define KMT_HEAPREC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KMT_HEAP_MARKER_ID	0x4b4d4850u	/* "KMHP" */
#define KMT_HEAP_VERSION	1
#define KMT_HEAP_MAX_FRAMES	64
#define KMT_HEAP_LIB		"libkmtrace-heap.so"
#define KMT_HEAP_DEFAULT_INTERVAL (512u << 10)	/* bytes, as tcmalloc and heapprofd */

/* What a record says (kind, bits). */
#define KMT_HEAP_ALLOC		0x01	/* ptr was allocated and sampled */
#define KMT_HEAP_FREE		0x02	/* old, a sampled object (or any, at interval 1), ended */
#define KMT_HEAP_UNFOLLOWED	0x04	/* ptr's free will not be reported (table full) */
#define KMT_HEAP_LIMIT		0x08	/* a limit crossed (below); the call's stack */
#define KMT_HEAP_SITES		0x10	/* exact counts per call site (below) */

/*
 * A KMT_HEAP_SITES record (sampling above 1 byte): every allocator call of
 * one thread, or of the process, counted by call site. Instead of frames
 * it holds nframes / 3 sites of three u64 each: the call's return address
 * | enum kmt_user_func << 56 (address 0: calls known only by function),
 * the calls, the bytes asked for. func is 0; ptr has KMT_HEAP_SITES_FINAL
 * on the process's last record, written at exit(): its counts are whole,
 * unless it exec'd after allocating: the new image's library says it has
 * started counting with a record of no sites and KMT_HEAP_SITES_START.
 */
#define KMT_HEAP_SITE_WORDS	3
#define KMT_HEAP_MAX_SITES	60	/* per record */
#define KMT_HEAP_SITES_FINAL	0x1
#define KMT_HEAP_SITES_START	0x2
#define KMT_HEAP_SITE_ADDR(key)	((key) & ((1ull << 56) - 1))
#define KMT_HEAP_SITE_FUNC(key)	((unsigned int)((key) >> 56))

/*
 * A KMT_HEAP_LIMIT record: func and size are the call that crossed, ptr
 * the count it would have passed (live heap, bytes asked by the process or
 * by the thread), old the limit (enum kmt_heap_limit) and the action
 * taken (enum kmt_heap_action) << 8.
 */
enum kmt_heap_limit { KMT_HEAP_LIMIT_HEAP = 1, KMT_HEAP_LIMIT_ALLOC, KMT_HEAP_LIMIT_THREAD };
enum kmt_heap_action { KMT_HEAP_SIGNAL, KMT_HEAP_FAIL, KMT_HEAP_STOP };

/* buf of a record: the header, then nframes u64 return addresses, innermost first. */
struct kmt_heap_rec {
	uint8_t version;	/* KMT_HEAP_VERSION */
	uint8_t kind;		/* KMT_HEAP_* */
	uint8_t func;		/* enum kmt_user_func: the call */
	uint8_t nframes;
	uint32_t tgid;		/* getpid() and gettid() of the caller: in its pid namespace */
	uint32_t tid;
	uint32_t reserved;
	uint64_t ptr;		/* the object allocated (ALLOC), or 0: failed */
	uint64_t old;		/* the object freed (FREE): free's or realloc's argument */
	uint64_t size;		/* bytes asked for */
	uint64_t interval;	/* mean bytes between samples; 1: every call is reported */
};

#define KMT_HEAP_HEADER_SIZE	48	/* sizeof(struct kmt_heap_rec), as written */

/* ftrace:raw_data's format as the kernel gives it, with event id @id (a string). */
#define KMT_RAW_DATA_FORMAT(id)							\
	"name: raw_data\nID: " id "\nformat:\n"					\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"		\
	"\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"		\
	"\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n\n"		\
	"print fmt: \"id:%04x %08x\", REC->id, (int)REC->buf[0]\n"

_Static_assert(sizeof(struct kmt_heap_rec) == KMT_HEAP_HEADER_SIZE, "no padding in the record");

/*
 * What the recorder tells the library, in the environment variable
 * KMT_HEAP_ENV: "FD:DEV:INO:INTERVAL:UNWIND", the descriptor of
 * trace_marker_raw with its device and inode, the mean bytes between
 * samples, and "fp" or "dwarf"; then, for limits (kmtrace watch),
 * ":HEAP:ALLOC:THREAD:ACTION:SIGNAL", the bytes of each limit (0: none),
 * the enum kmt_heap_action and the signal's number.
 */
#define KMT_HEAP_ENV		"KMTRACE_HEAP"

struct kmt_heap_env {
	int fd;
	uint64_t dev, ino, interval;
	bool fp;		/* frame pointers first (else the DWARF unwinder only) */
	uint64_t heap_limit;	/* usable bytes of live blocks */
	uint64_t alloc_limit;	/* bytes asked for since the start, by the process */
	uint64_t thread_limit;	/* ... by one thread */
	int action;		/* enum kmt_heap_action */
	int signal;
};

/* @n numbers separated by ':' from @s into @v; the rest in *@end. 0, or -1. */
static inline int kmt_heap_env_numbers(const char *s, uint64_t *v, int n, const char **end)
{
	char *e;
	int i;

	for (i = 0; i < n; i++) {
		if (*s < '0' || *s > '9')
			return -1;
		v[i] = strtoull(s, &e, 10);
		if (i < n - 1 && *e != ':')
			return -1;
		s = e + (i < n - 1);
	}
	*end = s;
	return 0;
}

/* Parse @s into @e (no allocation: the library parses it inside malloc). 0, or -1. */
static inline int kmt_heap_env_parse(const char *s, struct kmt_heap_env *e)
{
	uint64_t v[4], lim[5] = { 0, 0, 0, KMT_HEAP_SIGNAL, 15 };
	size_t word;

	if (kmt_heap_env_numbers(s, v, 4, &s) || *s++ != ':')
		return -1;
	word = strcspn(s, ":");
	if ((word != 2 || strncmp(s, "fp", 2)) && (word != 5 || strncmp(s, "dwarf", 5)))
		return -1;
	if (s[word] && (s[word] != ':' || kmt_heap_env_numbers(s + word + 1, lim, 5, &s) || *s))
		return -1;
	if (v[0] > 1u << 30 || !v[3] || lim[3] > KMT_HEAP_STOP || !lim[4] || lim[4] > 64)
		return -1;
	*e = (struct kmt_heap_env){ (int)v[0], v[1], v[2], v[3], word == 2, lim[0], lim[1],
				    lim[2], (int)lim[3], (int)lim[4] };
	return 0;
}

/* @e as kmt_heap_env_parse() reads it, into @buf of @len bytes; snprintf's return. */
static inline int kmt_heap_env_format(const struct kmt_heap_env *e, char *buf, size_t len)
{
	return snprintf(buf, len, "%d:%llu:%llu:%llu:%s:%llu:%llu:%llu:%d:%d", e->fd,
			(unsigned long long)e->dev, (unsigned long long)e->ino,
			(unsigned long long)e->interval, e->fp ? "fp" : "dwarf",
			(unsigned long long)e->heap_limit, (unsigned long long)e->alloc_limit,
			(unsigned long long)e->thread_limit, e->action, e->signal);
}

#endif /* KMT_HEAPREC_H */
