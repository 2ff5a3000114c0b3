// SPDX-License-Identifier: LGPL-2.1
/*
 * A kernel image's static bytes by source file, for analyses that set
 * them beside what was allocated (--footprint): kmtrace footprint's
 * figures (input/footprint.c) summed per file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include "common/hashmap.h"
#include "input/footprint.h"

/* Entry @i of @out: @file (copied; NULL stays NULL) with @bytes. 0, or -1. */
static int set_entry(struct kmt_static_file *out, size_t i, const char *file, uint64_t bytes)
{
	out[i].file = file ? strdup(file) : NULL;
	out[i].bytes = bytes;
	return file && !out[i].file ? -1 : 0;
}

int kmt_static_by_file(const char *path, struct kmt_static_file **files, size_t *n,
		       struct kmt_error *err)
{
	struct kmt_hashmap index = { 0 };
	struct kmt_footprint fp;
	uint64_t *by_file, no_source = 0, unclaimed = 0;
	size_t i, k = 0;
	int c, ret = -1;

	*files = NULL;
	*n = 0;
	if (kmt_footprint_read(path, &fp, err))
		return -1;
	by_file = calloc(fp.nfiles + 1, sizeof(*by_file));
	*files = calloc(fp.nfiles + 2, sizeof(**files));
	if (!by_file || !*files || kmt_hashmap_init(&index))
		goto out;
	for (i = 0; i < fp.nfiles; i++)	/* symbols point at these very strings */
		if (kmt_hashmap_put(&index, (uintptr_t)fp.files[i], i))
			goto out;
	for (i = 0; i < fp.nsyms; i++) {
		uint64_t f;

		if (kmt_hashmap_get(&index, (uintptr_t)fp.syms[i].file, &f))
			by_file[f] += fp.syms[i].bytes;
		else
			no_source += fp.syms[i].bytes;
	}
	for (c = 0; c < KMT_FP_NCLASSES; c++)
		unclaimed += fp.unclaimed[c];
	for (i = 0; i < fp.nfiles; i++)
		if (by_file[i] && set_entry(*files, k++, fp.files[i], by_file[i]))
			goto out;
	if ((no_source && set_entry(*files, k++, "", no_source)) ||
	    set_entry(*files, k++, NULL, unclaimed))
		goto out;
	*n = k;
	ret = 0;
out:
	if (ret) {
		kmt_static_free(*files, k);
		*files = NULL;
		kmt_error_set(err, path, -1, "out of memory");
	}
	kmt_hashmap_free(&index);
	free(by_file);
	kmt_footprint_free(&fp);
	return ret;
}

void kmt_static_free(struct kmt_static_file *files, size_t n)
{
	size_t i;

	for (i = 0; files && i < n; i++)
		free(files[i].file);
	free(files);
}
