// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness of kmtrace diff's library: the input is two JSON
 * reports separated by a NUL byte (the second absent: the first against
 * itself). Both are parsed, joined with and without offsets and scaled,
 * rendered in text or JSON and in folded stacks, checked against budgets:
 * whatever the input, nothing may crash, leak or hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <kmtrace/output.h>
#include "diff/diff.h"

static const char *const budgets[] = {
	"slab.live_bytes>+10%", "slab.callers[alloc_pipe_info].live_objects>+100,+1K",
	"leak.slab_objects>0", "x.y[].z<=-4MiB",
};

static void render(const struct kmt_diff *d, enum kmt_format format)
{
	FILE *null = fopen("/dev/null", "w");
	struct kmt_output *out = null ? kmt_output_new(format, null, 1) : NULL;
	struct kmt_error err;

	if (out && !kmt_diff_emit(d, out, format == KMT_FORMAT_TEXT ? "auto" : NULL, &err))
		kmt_output_finish(out, &err);
	else if (out)
		kmt_output_discard(out);
	if (null)
		fclose(null);
}

static void check_budgets(const struct kmt_diff *d)
{
	char why[512];
	size_t i;

	for (i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		struct kmt_diff_budget *b;
		struct kmt_error err;

		if (kmt_diff_budget_parse(budgets[i], &b, &err))
			continue;
		kmt_diff_budget_check(b, d, why, sizeof(why));
		kmt_diff_budget_free(b);
	}
	kmt_diff_joined_share(d, "slab");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(data, 0, size);
	size_t first = nul ? (size_t)(nul - text) : size;
	struct kmt_diff_side *side[2] = { NULL, NULL };
	struct kmt_error err;
	int exact;

	if (kmt_diff_side_parse("base", text, first, &side[0], &err))
		return 0;
	if (!nul || kmt_diff_side_parse("new", nul + 1, size - first - 1, &side[1], &err))
		side[1] = NULL;
	for (exact = 0; exact < 2; exact++) {
		struct kmt_diff_options opts = { .exact_sites = exact, .scale = { 1, exact ? 0.5 : 1 },
						 .sort = exact ? "hits" : NULL };
		struct kmt_diff *d = kmt_diff_compute(side[0], side[1] ? side[1] : side[0], &opts,
						      &err);

		if (!d)
			continue;
		render(d, exact ? KMT_FORMAT_JSON : KMT_FORMAT_TEXT);
		render(d, KMT_FORMAT_FOLDED);
		check_budgets(d);
		kmt_diff_free(d);
	}
	kmt_diff_side_free(side[0]);
	kmt_diff_side_free(side[1]);
	return 0;
}
