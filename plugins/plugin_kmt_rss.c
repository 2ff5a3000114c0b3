// SPDX-License-Identifier: LGPL-2.1
/* plugin_kmt_rss: kmem:rss_stat with the counter by name and its size in bytes and units. */
#include "kmt_plugin.h"

/* enum mm counter order, stable since 4.5 (MM_SHMEMPAGES); rss_stat is 5.5+. */
static const char *const members[] = { "file", "anon", "swap", "shmem" };

static int rss_stat_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	unsigned long long member, size, mm_id, curr;
	int has_mm_id, has_curr;

	(void)context;
	if (!kmt_pf_num(event, record, "member", &member) ||
	    !kmt_pf_num(event, record, "size", &size))
		return 1;
	has_mm_id = kmt_pf_num_opt(event, record, "mm_id", &mm_id);
	has_curr = kmt_pf_num_opt(event, record, "curr", &curr);
	if (has_mm_id < 0 || has_curr < 0)
		return 1;
	if (has_mm_id)
		trace_seq_printf(s, "mm_id=%llu ", mm_id);
	if (has_curr)
		trace_seq_printf(s, "curr=%llu ", curr);
	if (kmt_pf_raw() || member >= sizeof(members) / sizeof(members[0]))
		trace_seq_printf(s, "member=%lld", (long long)member);
	else
		trace_seq_printf(s, "member=%s", members[member]);
	trace_seq_printf(s, " size=%lld", (long long)size);
	if (!kmt_pf_raw() && (long long)size >= 1024) {
		trace_seq_puts(s, " (");
		kmt_pf_size(s, size);
		trace_seq_putc(s, ')');
	}
	return 0;
}

static const struct kmt_plugin_handler rss_handlers[] = {
	{ "kmem", "rss_stat", rss_stat_handler },
	{ NULL, NULL, NULL },
};

const struct kmt_plugin kmt_plugin_rss = { "rss", rss_handlers };

KMT_PLUGIN_EXPORT(kmt_plugin_rss)
