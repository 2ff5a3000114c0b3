// SPDX-License-Identifier: LGPL-2.1
/* The table of analyses: adding one is one file and one line here. */
#include <stdio.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include "filter.h"

extern const struct kmt_analysis kmt_analysis_stat;
extern const struct kmt_analysis kmt_analysis_slab;
extern const struct kmt_analysis kmt_analysis_page;
extern const struct kmt_analysis kmt_analysis_fault;
extern const struct kmt_analysis kmt_analysis_vm;
extern const struct kmt_analysis kmt_analysis_oom;
extern const struct kmt_analysis kmt_analysis_leak;
extern const struct kmt_analysis kmt_analysis_umem;
extern const struct kmt_analysis kmt_analysis_reclaim;
extern const struct kmt_analysis kmt_analysis_compaction;
extern const struct kmt_analysis kmt_analysis_vmalloc;
extern const struct kmt_analysis kmt_analysis_percpu;
extern const struct kmt_analysis kmt_analysis_pagecache;
extern const struct kmt_analysis kmt_analysis_memcg;

const struct kmt_analysis *const kmt_analyses[] = {
	&kmt_analysis_stat,
	&kmt_analysis_slab,
	&kmt_analysis_page,
	&kmt_analysis_fault,
	&kmt_analysis_vm,
	&kmt_analysis_oom,
	&kmt_analysis_leak,
	&kmt_analysis_umem,
	&kmt_analysis_reclaim,
	&kmt_analysis_compaction,
	&kmt_analysis_vmalloc,
	&kmt_analysis_percpu,
	&kmt_analysis_pagecache,
	&kmt_analysis_memcg,
	NULL
};

const struct kmt_analysis *kmt_analysis_find(const char *name)
{
	int i;

	for (i = 0; kmt_analyses[i]; i++)
		if (!strcmp(kmt_analyses[i]->name, name))
			return kmt_analyses[i];
	return NULL;
}

int kmt_analysis_option(const struct kmt_analysis *an, void *priv, int key, const char *arg,
			struct kmt_error *err)
{
	int taken = an->filter ? kmt_filter_option(an->filter(priv), key, arg, err) : 0;

	if (taken)
		return taken < 0 ? -1 : 0;
	if (an->option)
		return an->option(priv, key, arg, err);
	kmt_error_set(err, NULL, -1, "unknown option");
	return -1;
}
