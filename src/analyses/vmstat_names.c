// SPDX-License-Identifier: LGPL-2.1
/* The kernel's statistic names, in its enum orders, from a recording's /proc/vmstat. */
#include <stdlib.h>
#include <string.h>

#include "vmstat_names.h"

/* The first words of @text's lines, NUL-terminated in place, into a new array; *@n of them. */
static const char **first_words(char *text, uint32_t *n)
{
	uint32_t lines = 1, i = 0;
	const char **w;
	char *p;

	for (p = text; *p; p++)
		lines += *p == '\n';
	if (!(w = malloc(lines * sizeof(*w))))
		return NULL;
	for (p = text; *p; i++) {
		char *nl = strchr(p, '\n');

		w[i] = p;
		p[strcspn(p, " \n")] = '\0';
		p = nl ? nl + 1 : p + strlen(p);
	}
	*n = i;
	return w;
}

static uint32_t find(const char **w, uint32_t n, const char *name)
{
	uint32_t i;

	for (i = 0; i < n && strcmp(w[i], name); i++)
		;
	return i;
}

int kmt_vmstat_names_load(struct kmt_vmstat_names *n, const char *vmstat)
{
	uint32_t nwords, end;

	memset(n, 0, sizeof(*n));
	if (!vmstat)
		return 0;
	if (!(n->text = strdup(vmstat)) || !(n->words = first_words(n->text, &nwords))) {
		kmt_vmstat_names_free(n);
		return -1;
	}
	n->node = find(n->words, nwords, "nr_inactive_anon");
	end = find(n->words, nwords, "nr_dirty_threshold");
	n->nnode = n->node < end && end < nwords ? end - n->node : 0;
	n->event = find(n->words, nwords, "pgpgin");
	/* the deprecated nr_unstable the kernel appends after them is no event */
	if (n->event < nwords)
		n->nevent = nwords - n->event - !strcmp(n->words[nwords - 1], "nr_unstable");
	return 0;
}

void kmt_vmstat_names_free(struct kmt_vmstat_names *n)
{
	free(n->words);
	free(n->text);
	memset(n, 0, sizeof(*n));
}

const char *kmt_vmstat_node_name(const struct kmt_vmstat_names *n, long long item)
{
	return item >= 0 && item < n->nnode ? n->words[n->node + item] : NULL;
}

const char *kmt_vmstat_event_name(const struct kmt_vmstat_names *n, long long item)
{
	return item >= 0 && item < n->nevent ? n->words[n->event + item] : NULL;
}
