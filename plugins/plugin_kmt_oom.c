// SPDX-License-Identifier: LGPL-2.1
/* plugin_kmt_oom: oom:mark_victim with the victim's memory in human units. */
#include "kmt_plugin.h"

/* The KiB figures mark_victim carries (5.19+; total_vm and the rss three are required). */
static const char *const kib_fields[] = {
	"total_vm", "anon_rss", "file_rss", "shmem_rss", "pgtables",
};
#define KIB_FIELDS	(sizeof(kib_fields) / sizeof(kib_fields[0]))
#define KIB_REQUIRED	4

static int mark_victim_handler(struct trace_seq *s, struct tep_record *record,
			       struct tep_event *event, void *context)
{
	unsigned long long pid, kib[KIB_FIELDS], uid, adj;
	int has[KIB_FIELDS], has_uid, has_adj, comm_len;
	const char *comm;
	unsigned int i;

	(void)context;
	if (!kmt_pf_num(event, record, "pid", &pid) ||
	    !kmt_pf_str(event, record, "comm", &comm, &comm_len))
		return 1;
	for (i = 0; i < KIB_FIELDS; i++) {
		has[i] = kmt_pf_num_opt(event, record, kib_fields[i], &kib[i]);
		if (has[i] < 0 || (i < KIB_REQUIRED && !has[i]))
			return 1;
	}
	has_uid = kmt_pf_num_opt(event, record, "uid", &uid);
	has_adj = kmt_pf_num_opt(event, record, "oom_score_adj", &adj);
	if (has_uid < 0 || has_adj < 0)
		return 1;
	trace_seq_printf(s, "pid=%lld comm=%.*s", (long long)pid, comm_len, comm);
	for (i = 0; i < KIB_FIELDS; i++) {
		if (!has[i])
			continue;
		trace_seq_printf(s, " %s=", kib_fields[i]);
		if (kmt_pf_raw())
			trace_seq_printf(s, "%llukB", kib[i]);
		else
			kmt_pf_size(s, kib[i] << 10);
	}
	if (has_uid)
		trace_seq_printf(s, " uid=%llu", uid);
	if (has_adj)
		trace_seq_printf(s, " oom_score_adj=%lld", (long long)adj);
	return 0;
}

static const struct kmt_plugin_handler oom_handlers[] = {
	{ "oom", "mark_victim", mark_victim_handler },
	{ NULL, NULL, NULL },
};

const struct kmt_plugin kmt_plugin_oom = { "oom", oom_handlers };

KMT_PLUGIN_EXPORT(kmt_plugin_oom)
