/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Call stacks as the analyses see them: the allocator's own frames cut off
 * the top, so that a stack starts with the caller that asked, and each
 * distinct rest kept once (an id). Shared by slab, page and leak.
 */
#ifndef KMT_STACKS_H
#define KMT_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <kmtrace/error.h>
#include "common/hashmap.h"

struct kmt_session;

#define KMT_STACK_NONE	UINT32_MAX

/* Option keys, within the analyses' range (0x100..0x3ff). */
enum { KMT_OPT_STACK = 0x3d0, KMT_OPT_ALLOC_FRAMES };

/* --alloc-frames, for every analysis that looks at stacks. */
#define KMT_ALLOC_FRAMES_LONGOPT \
	{ "alloc-frames", required_argument, NULL, KMT_OPT_ALLOC_FRAMES }
#define KMT_ALLOC_FRAMES_USAGE \
	"  --alloc-frames LIST function-name prefixes of allocator frames cut off the\n" \
	"                      top of stacks, comma separated (+LIST: add to the\n" \
	"                      default list, see kmtrace-report(1))\n"

/* --stack and --alloc-frames, for the tables of a stack per row. */
#define KMT_STACK_LONGOPTS \
	{ "stack", no_argument, NULL, KMT_OPT_STACK }, \
	KMT_ALLOC_FRAMES_LONGOPT
#define KMT_STACK_USAGE \
	"  --stack             table per distinct call stack (record -g, perf -g)\n" \
	KMT_ALLOC_FRAMES_USAGE

/* The function-name prefixes of allocator frames, NULL-terminated. */
extern const char *const kmt_alloc_frames_default[];

#define KMT_STACKS_RECENT	1024

/* A frame's verdict (enum frame_verdict of stacks.c; 0: none) in front of the map of them. */
struct kmt_frame_verdict {
	uint64_t ip;
	uint32_t verdict;
};

/* Frames classified once per address, and the distinct stacks. */
struct kmt_stacks {
	const struct kmt_session *session;	/* names of addresses */
	char **prefixes;		/* allocator frames: names starting so */
	int nprefixes;
	struct kmt_hashmap verdicts;	/* ip -> enum frame verdict */
	struct kmt_frame_verdict recent[KMT_STACKS_RECENT];	/* by address, the last judged */
	struct kmt_hashmap index;	/* hash of frames -> stack id; collisions probe on */
	uint64_t *frames;		/* every stack's frames, one after another */
	uint32_t nframes, cap_frames;
	struct kmt_stack *stacks;
	uint32_t n, cap;
};

struct kmt_stack {
	uint32_t first, nr;		/* in kmt_stacks.frames; innermost first */
};

/* Ready @s with the default allocator frames; 0, or -1 when out of memory. */
int kmt_stacks_init(struct kmt_stacks *s);

/* Free what @s holds. */
void kmt_stacks_free(struct kmt_stacks *s);

/*
 * --alloc-frames @arg: the prefixes, or with a leading '+' more of them.
 * 0, or -1 with @err filled.
 */
int kmt_stacks_option(struct kmt_stacks *s, const char *arg, struct kmt_error *err);

/*
 * Index of the first frame of @chain (@nr ips, innermost first) that is
 * not the allocator's or a tracing frame, @nr when none (perf's user-space
 * frames, after PERF_CONTEXT_USER, are not looked at); *@unnamed is set
 * when that frame has no symbol (no telling it from an allocator frame).
 */
int kmt_stacks_first_caller(struct kmt_stacks *s, const unsigned long long *chain, int nr,
			    bool *unnamed);

/*
 * The id of @chain's stack from its first caller on, tracepoint plumbing
 * left out wherever it is (stacks.c), made if new, into *@id
 * (KMT_STACK_NONE for no frames left). 0, or -1 when out of memory.
 */
int kmt_stacks_intern(struct kmt_stacks *s, const unsigned long long *chain, int nr,
		      uint32_t *id);

/* Is function @name an allocator frame (by @s's prefixes) or tracing plumbing? */
bool kmt_stacks_allocator_name(const struct kmt_stacks *s, const char *name);

/* Room for a stack's text: frames that do not fit are left out. */
#define KMT_STACK_TEXT_MAX	16384

/*
 * Stack @id as a KMT_KIND_STACK cell into @buf: one "func+0xOFF [mod]"
 * per frame (the address where there is no symbol), innermost first,
 * separated by '\n'; frames that do not fit are left out. Returns @buf, or
 * "(no stack recorded)" for KMT_STACK_NONE.
 */
const char *kmt_stacks_text(const struct kmt_stacks *s, uint32_t id, char *buf, size_t len);

#endif /* KMT_STACKS_H */
