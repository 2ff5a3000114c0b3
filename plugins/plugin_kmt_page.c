// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_kmt_page: page allocator events with the size an order means
 * ("order=2 (16 KiB)"), migratetypes and GFP flags by name, and failed
 * allocations (pfn -1) said as such.
 */
#include "kmt_plugin.h"

/* Not among the functions perf resolves for plugins: 4 KiB there. */
#pragma weak tep_get_page_size

/* The recording's page size, 4096 when libtraceevent cannot tell. */
static unsigned long long page_size(struct tep_event *event)
{
	int size = tep_get_page_size ? tep_get_page_size(event->tep) : 0;

	return size > 0 ? (unsigned long long)size : 4096;
}

/* Print "pfn=0x... order=N (SIZE)"; a pfn of all ones (-1UL) is a failed allocation. */
static void print_pages(struct trace_seq *s, struct tep_event *event, unsigned long long pfn,
			unsigned long long order)
{
	struct tep_format_field *f = tep_find_field(event, "pfn");
	unsigned long long ps = page_size(event);
	int shift = 0;

	if (f && f->size > 0 && f->size <= 8 && pfn == (~0ULL >> (64 - 8 * f->size)))
		trace_seq_puts(s, "pfn=-1 (failed)");
	else
		trace_seq_printf(s, "pfn=0x%llx", pfn);
	trace_seq_printf(s, " order=%llu (", order);
	while ((ps >> shift) > 1)
		shift++;
	if (order < (unsigned long long)(64 - shift))	/* order + shift would wrap */
		kmt_pf_size(s, ps << order);
	else
		trace_seq_puts(s, "bad order");
	trace_seq_putc(s, ')');
}

/* mm_page_alloc: pfn, order, migratetype, gfp_flags. */
static int page_alloc_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	unsigned long long pfn, order, mt, gfp;

	(void)context;
	if (!kmt_pf_num(event, record, "pfn", &pfn) ||
	    !kmt_pf_num(event, record, "order", &order) ||
	    !kmt_pf_num(event, record, "migratetype", &mt) ||
	    !kmt_pf_num(event, record, "gfp_flags", &gfp))
		return 1;
	print_pages(s, event, pfn, order);
	trace_seq_puts(s, " migratetype=");
	kmt_pf_migratetype(s, event, (long long)mt);
	trace_seq_puts(s, " gfp_flags=");
	kmt_pf_gfp(s, event, gfp);
	return 0;
}

/* mm_page_free and mm_page_free_batched (order 0 when the event has none). */
static int page_free_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	unsigned long long pfn, order = 0;

	(void)context;
	if (!kmt_pf_num(event, record, "pfn", &pfn) ||
	    kmt_pf_num_opt(event, record, "order", &order) < 0)
		return 1;
	print_pages(s, event, pfn, order);
	return 0;
}

/* mm_page_pcpu_drain and mm_page_alloc_zone_locked (percpu_refill 5.13+). */
static int page_move_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	unsigned long long pfn, order, mt, refill;
	int has_refill;

	(void)context;
	if (!kmt_pf_num(event, record, "pfn", &pfn) ||
	    !kmt_pf_num(event, record, "order", &order) ||
	    !kmt_pf_num(event, record, "migratetype", &mt))
		return 1;
	has_refill = kmt_pf_num_opt(event, record, "percpu_refill", &refill);
	if (has_refill < 0)
		return 1;
	print_pages(s, event, pfn, order);
	trace_seq_puts(s, " migratetype=");
	kmt_pf_migratetype(s, event, (long long)mt);
	if (has_refill)
		trace_seq_printf(s, " percpu_refill=%lld", (long long)refill);
	return 0;
}

static const struct kmt_plugin_handler page_handlers[] = {
	{ "kmem", "mm_page_alloc", page_alloc_handler },
	{ "kmem", "mm_page_free", page_free_handler },
	{ "kmem", "mm_page_free_batched", page_free_handler },
	{ "kmem", "mm_page_pcpu_drain", page_move_handler },
	{ "kmem", "mm_page_alloc_zone_locked", page_move_handler },
	{ NULL, NULL, NULL },
};

const struct kmt_plugin kmt_plugin_page = { "page", page_handlers };

KMT_PLUGIN_EXPORT(kmt_plugin_page)
