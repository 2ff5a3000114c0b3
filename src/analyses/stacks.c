// SPDX-License-Identifier: LGPL-2.1
/*
 * Call stacks for the analyses. A stack as recorded starts inside the
 * tracing code and the allocator; what a reader wants first is the
 * caller that asked. Frames whose function name, without leading
 * underscores, starts with one of the prefixes below are cut off the top.
 * The list covers the slab and page allocators' entry points, their
 * internals and the wrappers that only copy or resize (kstrdup, kmemdup,
 * krealloc, kvmalloc), and the tracing frames above them. perf kmem skips
 * frames matching ^_?_?(alloc|get_free|get_zeroed)_pages?, which misses
 * __alloc_frozen_pages_noprof and the folio entry points of current
 * kernels. --alloc-frames replaces or extends the list.
 *
 * Before that, the tracepoint's own plumbing goes, wherever it is in the
 * stack: ftrace's, perf's and BPF's event functions, the iterator a
 * tracepoint calls once a second tracer is attached (__traceiter_*), and
 * JIT'd BPF programs and trampolines (kallsyms's [bpf] module). They are
 * never the caller, whatever --alloc-frames says.
 */
#include <stdlib.h>
#include <string.h>

#include <kmtrace/event.h>
#include <kmtrace/analysis.h>
#include "stacks.h"
#include "common/util.h"


enum frame_verdict { FRAME_ALLOCATOR = 1, FRAME_CALLER, FRAME_UNNAMED, FRAME_PLUMBING };

/* Tracepoint plumbing, as prefixes of names without their leading underscores. */
static const char *const plumbing_frames[] = {
	"traceiter_", "probestub_", "trace_event_raw_event_", "trace_event_buffer_",
	"event_triggers_call", "perf_trace_", "perf_tp_event", "trace_call_bpf", "bpf_trace_",
	"bpf_prog_enter", "bpf_prog_exit", NULL
};
#define BPF_MODULE	"bpf"	/* where kallsyms lists JIT'd programs and trampolines */

const char *const kmt_alloc_frames_default[] = {
	/* slab */
	"kmalloc", "kmem_cache_alloc", "kmem_cache_free", "kfree", "kvfree", "kvmalloc",
	"kvrealloc", "krealloc", "kmemdup", "kstrdup", "kstrndup", "kvmemdup", "memdup_user",
	"vmemdup_user", "strndup_user", "slab_", "do_slab_free", "kmem_cache_alloc_bulk",
	"kmem_cache_free_bulk", "allocate_slab", "new_slab",
	/* page allocator */
	"alloc_pages", "alloc_frozen_pages", "alloc_page", "folio_alloc", "vma_alloc_folio",
	"get_free_page", "get_zeroed_page", "get_page_from_freelist", "rmqueue",
	"alloc_slab_page", "alloc_contig", "alloc_pages_bulk", "free_pages", "free_page",
	"free_unref_page", "free_unref_folios", "free_frozen_pages", "free_pcppages_bulk",
	"free_one_page", "free_pages_ok",
	NULL
};

static void free_prefixes(struct kmt_stacks *s)
{
	int i;

	for (i = 0; i < s->nprefixes; i++)
		free(s->prefixes[i]);
	free(s->prefixes);
	s->prefixes = NULL;
	s->nprefixes = 0;
}

static int add_prefix(struct kmt_stacks *s, const char *p, size_t len)
{
	char **n = realloc(s->prefixes, (s->nprefixes + 1) * sizeof(*n));

	if (!n)
		return -1;
	s->prefixes = n;
	while (len && *p == '_') {
		p++;
		len--;
	}
	if (!(n[s->nprefixes] = strndup(p, len)))
		return -1;
	s->nprefixes++;
	return 0;
}

int kmt_stacks_init(struct kmt_stacks *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	if (kmt_hashmap_init(&s->verdicts) || kmt_hashmap_init(&s->index))
		return -1;
	for (i = 0; kmt_alloc_frames_default[i]; i++)
		if (add_prefix(s, kmt_alloc_frames_default[i], strlen(kmt_alloc_frames_default[i])))
			return -1;
	return 0;
}

void kmt_stacks_free(struct kmt_stacks *s)
{
	free_prefixes(s);
	kmt_hashmap_free(&s->verdicts);
	kmt_hashmap_free(&s->index);
	free(s->frames);
	free(s->stacks);
}

int kmt_stacks_option(struct kmt_stacks *s, const char *arg, struct kmt_error *err)
{
	const char *p = arg;

	if (*p == '+')
		p++;
	else
		free_prefixes(s);
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len && add_prefix(s, p, len)) {
			kmt_error_set(err, NULL, -1, "out of memory");
			return -1;
		}
		p += len + (p[len] == ',');
	}
	if (!s->nprefixes) {
		kmt_error_set(err, NULL, -1, "--alloc-frames wants function-name prefixes, comma separated");
		return -1;
	}
	/* frames already judged are judged again by the new list */
	memset(s->recent, 0, sizeof(s->recent));
	kmt_hashmap_free(&s->verdicts);
	if (kmt_hashmap_init(&s->verdicts)) {
		kmt_error_set(err, NULL, -1, "out of memory");
		return -1;
	}
	return 0;
}

/* Does @name, without its leading underscores, start with one of the @n @prefixes? */
static bool has_prefix(const char *name, const char *const *prefixes, int n)
{
	int i;

	while (*name == '_')
		name++;
	for (i = 0; i < n && prefixes[i]; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static bool is_plumbing(const char *name, const char *mod)
{
	return (mod && !strcmp(mod, BPF_MODULE)) || has_prefix(name, plumbing_frames, INT32_MAX);
}

bool kmt_stacks_allocator_name(const struct kmt_stacks *s, const char *name)
{
	return is_plumbing(name, NULL) ||
	       has_prefix(name, (const char *const *)s->prefixes, s->nprefixes);
}

/* verdict() of a frame not among the recent ones: from the map, else judged by its name. */
static __attribute__((noinline)) enum frame_verdict
judge(struct kmt_stacks *s, uint64_t ip, struct kmt_frame_verdict *recent)
{
	unsigned long long start;
	const char *mod, *name;
	uint64_t v;

	if (!kmt_hashmap_get(&s->verdicts, ip, &v)) {
		name = kmt_session_function(s->session, ip, &start, &mod);
		v = !name ? FRAME_UNNAMED : is_plumbing(name, mod) ? FRAME_PLUMBING :
		    has_prefix(name, (const char *const *)s->prefixes, s->nprefixes) ?
		    FRAME_ALLOCATOR : FRAME_CALLER;
		kmt_hashmap_put(&s->verdicts, ip, v);	/* a cache: out of memory, asked again */
	}
	*recent = (struct kmt_frame_verdict){ .ip = ip, .verdict = v };
	return v;
}

/* What frame @ip is: judged once per address, the last ones kept in front. */
static inline enum frame_verdict verdict(struct kmt_stacks *s, uint64_t ip)
{
	struct kmt_frame_verdict *recent = &s->recent[(ip ^ ip >> 11) % KMT_STACKS_RECENT];

	if (recent->verdict && recent->ip == ip)
		return recent->verdict;
	return judge(s, ip, recent);
}

int kmt_stacks_first_caller(struct kmt_stacks *s, const unsigned long long *chain, int nr,
			    bool *unnamed)
{
	int i;

	*unnamed = false;
	for (i = 0; i < nr && chain[i] != KMT_CALLCHAIN_USER; i++) {
		enum frame_verdict v;

		if (chain[i] >= KMT_CALLCHAIN_MARKERS)
			continue;
		v = verdict(s, chain[i]);
		if (v == FRAME_ALLOCATOR || v == FRAME_PLUMBING)
			continue;
		*unnamed = v == FRAME_UNNAMED;
		return i;
	}
	return nr;	/* also when only user frames are left */
}

/* Is stack @id made of the @nr frames @f? */
static bool same_frames(const struct kmt_stacks *s, uint32_t id, const uint64_t *f, int nr)
{
	const struct kmt_stack *st = &s->stacks[id];

	return st->nr == (uint32_t)nr && !memcmp(s->frames + st->first, f, nr * sizeof(*f));
}

/* A new stack of the @nr frames @f under hash @h, its id into *@id. 0, or -1 when out of memory. */
static int add_stack(struct kmt_stacks *s, uint64_t h, const uint64_t *f, int nr, uint32_t *id)
{
	if (kmt_grow(&s->stacks, &s->cap, s->n, sizeof(*s->stacks)) ||
	    kmt_grow(&s->frames, &s->cap_frames, s->nframes + nr, sizeof(*s->frames)) ||
	    kmt_hashmap_put(&s->index, h, s->n))
		return -1;
	memcpy(s->frames + s->nframes, f, nr * sizeof(*f));
	s->stacks[s->n] = (struct kmt_stack){ .first = s->nframes, .nr = nr };
	s->nframes += nr;
	*id = s->n++;
	return 0;
}

int kmt_stacks_intern(struct kmt_stacks *s, const unsigned long long *chain, int nr,
		      uint32_t *id)
{
	uint64_t kept[512], h, known;
	bool unnamed;
	int at = kmt_stacks_first_caller(s, chain, nr, &unnamed), n = 0;

	*id = KMT_STACK_NONE;
	for (; at < nr && chain[at] != KMT_CALLCHAIN_USER && n < (int)(sizeof(kept) / sizeof(*kept));
	     at++)
		if (chain[at] < KMT_CALLCHAIN_MARKERS && verdict(s, chain[at]) != FRAME_PLUMBING)
			kept[n++] = chain[at];
	if (!n)
		return 0;
	h = kmt_hash_words(kept, n);
	for (;; h++) {
		if (!kmt_hashmap_get(&s->index, h, &known))
			return add_stack(s, h, kept, n, id);
		if (same_frames(s, known, kept, n)) {
			*id = known;
			return 0;
		}
	}
}

const char *kmt_stacks_text(const struct kmt_stacks *s, uint32_t id, char *buf, size_t len)
{
	const struct kmt_stack *st;
	char frame[512];
	size_t at = 0;
	uint32_t i;

	if (id == KMT_STACK_NONE)
		return "(no stack recorded)";
	st = &s->stacks[id];
	buf[0] = '\0';
	for (i = 0; i < st->nr; i++) {
		size_t fl;

		kmt_session_symbol(s->session, s->frames[st->first + i], frame, sizeof(frame));
		fl = strlen(frame);
		if (at + fl + 2 > len)
			break;
		if (at)
			buf[at++] = '\n';
		memcpy(buf + at, frame, fl + 1);
		at += fl;
	}
	return buf;
}
