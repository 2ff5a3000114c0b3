/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The names of the kernel's statistics, from the /proc/vmstat a recording
 * carries: its lines come in the kernel's enum orders, so enum
 * node_stat_item N is the Nth line from nr_inactive_anon (its first item
 * since Linux 4.8) and enum vm_event_item N the Nth from pgpgin. Tracepoints
 * that give a statistic as its enum number (memcg's) are named through it.
 */
#ifndef KMT_VMSTAT_NAMES_H
#define KMT_VMSTAT_NAMES_H

#include <stdint.h>

struct kmt_vmstat_names {
	char *text;			/* a copy, cut into the names */
	const char **words;		/* the first word of each line */
	uint32_t node, nnode;		/* words[node]: node_stat_item 0 */
	uint32_t event, nevent;		/* words[event]: vm_event_item 0 */
};

/* Take the names out of @vmstat (NULL: none). 0, or -1 when out of memory. */
int kmt_vmstat_names_load(struct kmt_vmstat_names *n, const char *vmstat);

/* Free what @n holds. */
void kmt_vmstat_names_free(struct kmt_vmstat_names *n);

/* The name of node statistic @item, or NULL when the text has none. */
const char *kmt_vmstat_node_name(const struct kmt_vmstat_names *n, long long item);

/* The name of VM event @item, or NULL. */
const char *kmt_vmstat_event_name(const struct kmt_vmstat_names *n, long long item);

#endif /* KMT_VMSTAT_NAMES_H */
