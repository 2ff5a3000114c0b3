// SPDX-License-Identifier: LGPL-2.1
/*
 * plugin_kmt_slab: kmem slab events with the call site as func+0xOFF, the
 * waste (bytes_alloc - bytes_req) spelled out, the cache name where the
 * event has it and GFP flags by name.
 */
#include "kmt_plugin.h"

/* The fields every allocation event has. */
struct slab_alloc {
	unsigned long long call_site, ptr, req, alloc, gfp;
};

/* The cache name (6.3+ cache events; NULL when the event has none); false when unreadable. */
static bool cache_name(struct tep_event *event, struct tep_record *record, const char **name,
		       int *len)
{
	*name = NULL;
	if (!tep_find_field(event, "name"))
		return true;
	return kmt_pf_str(event, record, "name", name, len);
}

/* kmalloc, kmem_cache_alloc and their _node forms. */
static int slab_alloc_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	unsigned long long node, accounted;
	int has_node, has_accounted, name_len = 0;
	struct slab_alloc a;
	const char *name;

	(void)context;
	if (!kmt_pf_num(event, record, "call_site", &a.call_site) ||
	    !kmt_pf_num(event, record, "ptr", &a.ptr) ||
	    !kmt_pf_num(event, record, "bytes_req", &a.req) ||
	    !kmt_pf_num(event, record, "bytes_alloc", &a.alloc) ||
	    !kmt_pf_num(event, record, "gfp_flags", &a.gfp) ||
	    !cache_name(event, record, &name, &name_len))
		return 1;
	/* node (kmalloc 6.1+) and accounted (6.0+) are optional */
	has_node = kmt_pf_num_opt(event, record, "node", &node);
	has_accounted = kmt_pf_num_opt(event, record, "accounted", &accounted);
	if (has_node < 0 || has_accounted < 0)
		return 1;
	trace_seq_puts(s, "call_site=");
	kmt_pf_symbol(s, event, a.call_site);
	trace_seq_puts(s, " ptr=");
	kmt_pf_ptr(s, a.ptr);
	if (name)
		trace_seq_printf(s, " cache=%.*s", name_len, name);
	trace_seq_printf(s, " bytes_req=%llu bytes_alloc=%llu waste=%lld gfp_flags=",
			 a.req, a.alloc, (long long)(a.alloc - a.req));
	kmt_pf_gfp(s, event, a.gfp);
	if (has_node)
		trace_seq_printf(s, " node=%lld", (long long)node);
	if (has_accounted)
		trace_seq_printf(s, " accounted=%s", accounted ? "true" : "false");
	return 0;
}

/* kfree and kmem_cache_free. */
static int slab_free_handler(struct trace_seq *s, struct tep_record *record,
			     struct tep_event *event, void *context)
{
	unsigned long long call_site, ptr;
	const char *name;
	int name_len = 0;

	(void)context;
	if (!kmt_pf_num(event, record, "call_site", &call_site) ||
	    !kmt_pf_num(event, record, "ptr", &ptr) ||
	    !cache_name(event, record, &name, &name_len))
		return 1;
	trace_seq_puts(s, "call_site=");
	kmt_pf_symbol(s, event, call_site);
	trace_seq_puts(s, " ptr=");
	kmt_pf_ptr(s, ptr);
	if (name)
		trace_seq_printf(s, " cache=%.*s", name_len, name);
	return 0;
}

static const struct kmt_plugin_handler slab_handlers[] = {
	{ "kmem", "kmalloc", slab_alloc_handler },
	{ "kmem", "kmalloc_node", slab_alloc_handler },
	{ "kmem", "kmem_cache_alloc", slab_alloc_handler },
	{ "kmem", "kmem_cache_alloc_node", slab_alloc_handler },
	{ "kmem", "kfree", slab_free_handler },
	{ "kmem", "kmem_cache_free", slab_free_handler },
	{ NULL, NULL, NULL },
};

const struct kmt_plugin kmt_plugin_slab = { "slab", slab_handlers };

KMT_PLUGIN_EXPORT(kmt_plugin_slab)
