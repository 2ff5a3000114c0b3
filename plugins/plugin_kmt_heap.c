// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_kmt_heap: the records libkmtrace-heap.so writes into
 * trace_marker_raw (kmtrace record --user-sample, watch --on-limit), which
 * ftrace shows as raw_data: the call, its size, pointers, the sampling
 * interval and the innermost frame. Other writers' raw_data print as before.
 */
#include <stddef.h>

#include "kmt_plugin.h"
#include "common/heaprec.h"

/* The calls by the numbers records carry (enum kmt_user_func, fixed in recordings). */
static const char *const calls[] = {
	NULL, "malloc", "calloc", "realloc", "free", "memalign", "valloc", "pvalloc",
	"posix_memalign",
};
#define NCALLS	(sizeof(calls) / sizeof(calls[0]))

static const char *const limits[] = { "", "heap", "alloc", "thread-alloc" };
static const char *const actions[] = { "signal", "fail", "stop" };

/* Member @off (@size bytes) of the record's buf at @b, in the file's byte order. */
static unsigned long long member(struct tep_event *event, const unsigned char *b, size_t off,
				 int size)
{
	return tep_read_number(event->tep, b + off, size);
}

#define MEMBER(b, m)	member(event, (b), offsetof(struct kmt_heap_rec, m), \
			       sizeof(((struct kmt_heap_rec *)0)->m))

/* A LIMIT record: the call, the limit, the count it would have passed, the action. */
static void print_limit(struct trace_seq *s, struct tep_event *event, const unsigned char *b)
{
	unsigned long long which = MEMBER(b, old);

	trace_seq_puts(s, " crossed the ");
	trace_seq_puts(s, (which & 0xff) < 4 ? limits[which & 0xff] : "?");
	trace_seq_puts(s, " limit at ");
	kmt_pf_size(s, MEMBER(b, ptr));
	trace_seq_printf(s, " action=%s", (which >> 8) < 3 ? actions[which >> 8] : "?");
}

/* A SITES record: its @n call sites, the calls they counted, whether the process's last. */
static void print_sites(struct trace_seq *s, struct tep_event *event, const unsigned char *b,
			unsigned long long n)
{
	unsigned long long calls = 0, i;

	for (i = 0; i < n; i++)
		calls += member(event, b, KMT_HEAP_HEADER_SIZE + (i * KMT_HEAP_SITE_WORDS + 1) * 8, 8);
	trace_seq_printf(s, "heap sites pid=%llu sites=%llu calls=%llu", MEMBER(b, tgid), n, calls);
	if (MEMBER(b, ptr) & KMT_HEAP_SITES_FINAL)
		trace_seq_puts(s, " final");
}

static int raw_data_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	struct tep_format_field *buf = tep_find_field(event, "buf");
	unsigned long long id, kind, func, nframes, interval;
	const unsigned char *b;

	(void)context;
	if (!kmt_pf_num(event, record, "id", &id) || id != KMT_HEAP_MARKER_ID || !buf ||
	    buf->offset < 0 || record->size < buf->offset + KMT_HEAP_HEADER_SIZE)
		return 1;
	b = (const unsigned char *)record->data + buf->offset;
	kind = b[1];
	func = b[2];
	nframes = b[3];
	if ((record->size - buf->offset - KMT_HEAP_HEADER_SIZE) / 8 < (int)nframes)
		nframes = (record->size - buf->offset - KMT_HEAP_HEADER_SIZE) / 8;
	if (b[0] == KMT_HEAP_VERSION && kind == KMT_HEAP_SITES && !func) {
		print_sites(s, event, b, nframes / KMT_HEAP_SITE_WORDS);
		return 0;
	}
	if (b[0] != KMT_HEAP_VERSION || !func || func >= NCALLS)
		return 1;
	trace_seq_printf(s, "heap %s pid=%llu", calls[func], MEMBER(b, tgid));
	if (kind & (KMT_HEAP_ALLOC | KMT_HEAP_LIMIT)) {
		trace_seq_puts(s, " size=");
		kmt_pf_size(s, MEMBER(b, size));
	}
	if (kind & KMT_HEAP_FREE) {
		trace_seq_puts(s, " freed=");
		kmt_pf_ptr(s, MEMBER(b, old));
	}
	if (kind & KMT_HEAP_ALLOC) {
		trace_seq_puts(s, " ptr=");
		kmt_pf_ptr(s, MEMBER(b, ptr));
	}
	if (kind & KMT_HEAP_LIMIT)
		print_limit(s, event, b);
	interval = MEMBER(b, interval);
	if (interval > 1) {
		trace_seq_puts(s, " sampled=1/");
		kmt_pf_size(s, interval);
	}
	if (nframes)
		trace_seq_printf(s, " caller=0x%llx frames=%llu",
				 member(event, b, KMT_HEAP_HEADER_SIZE, 8), nframes);
	if (kind & KMT_HEAP_UNFOLLOWED)
		trace_seq_puts(s, " unfollowed");
	return 0;
}

static const struct kmt_plugin_handler heap_handlers[] = {
	{ "ftrace", "raw_data", raw_data_handler },
	{ NULL, NULL, NULL },
};

const struct kmt_plugin kmt_plugin_heap = { "heap", heap_handlers };

KMT_PLUGIN_EXPORT(kmt_plugin_heap)
