/* SPDX-License-Identifier: LGPL-2.1 */
/* Per-CPU ring-buffer stats texts, shared by the recorder and the readers. */
#ifndef KMT_CPUSTATS_H
#define KMT_CPUSTATS_H

#include <stdbool.h>
#include <stddef.h>

struct kmt_cpu_stats;

/* The value of "@key: N" in the @len bytes of @text, if the key is there. */
bool kmt_stats_text_value(const char *text, size_t len, const char *key,
			  unsigned long long *val);

/* Parse a per-CPU stats file's text ("entries: N\noverrun: N\n...") into @st. */
void kmt_cpu_stats_parse(const char *text, size_t len, struct kmt_cpu_stats *st);

/* Add @n to @st's @count, a loss count a file gave: an impossible one is flagged. */
void kmt_cpu_stats_add(struct kmt_cpu_stats *st, unsigned long long *count,
		       unsigned long long n);

#endif /* KMT_CPUSTATS_H */
