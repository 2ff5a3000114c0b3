// SPDX-License-Identifier: LGPL-2.1
/*
 * leak: caches whose frees the kernel does not trace are no suspects. Their
 * objects stay "outstanding" in any count made of events; they are left out
 * unless --all, and the report says how many and which.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "leak.h"

static const char *cache_name(const void *ctx, uint32_t cache)
{
	const struct leak_state *st = ctx;

	return cache < st->ncaches ? st->caches[cache] : NULL;
}

/* Outstanding selected objects of flagged caches at @now (for --older or longer). */
static int count_flagged(const struct leak_state *st, uint64_t now, uint64_t *objs,
			 uint64_t *bytes)
{
	struct kmt_objmap_walk w;
	const struct leak_obj *o;

	*objs = *bytes = 0;
	if (kmt_leak_walk_start(&w, st, LEAK_SLAB))
		return -1;
	while ((o = kmt_objmap_walk_next(&w))) {
		if (kmt_leak_outstanding(st, o, now) &&
		    kmt_slab_audit_untraced(&st->audit, o->cache)) {
			(*objs)++;
			*bytes += o->bytes;
		}
	}
	kmt_objmap_walk_end(&w);
	return 0;
}

/* The flagged caches' names, comma separated into @buf ("..." past its end). */
static const char *flagged_names(const struct leak_state *st, char *buf, size_t len)
{
	size_t at = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < st->audit.n && at < len; i++)
		if (kmt_slab_audit_untraced(&st->audit, i))
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
				       cache_name(st, i));
	if (at >= len && len > 4)
		strcpy(buf + len - 4, "...");
	return at ? buf : "none";
}

void kmt_leak_judge(struct leak_state *st)
{
	kmt_slab_audit_judge(&st->audit, st->reader,
			     kmt_whole_system_blocker(st->reader, &st->filter), cache_name, st);
}

int kmt_leak_report_untraced(const struct leak_state *st, uint64_t now, struct kmt_output *out)
{
	const struct kmt_slab_audit *a = &st->audit;
	uint64_t objs, bytes;
	char names[512];

	if (count_flagged(st, now, &objs, &bytes)) {
		errno = ENOMEM;
		return -1;
	}
	return kmt_slab_audit_report_check(a, out) ||
	       kmt_output_count(out, "untraced_caches", st->all ?
				"Caches with frees not traced (kept: --all)" :
				"Caches with frees not traced (left out)", a->flagged) ||
	       kmt_output_string(out, "untraced_cache_names", "  which",
				 flagged_names(st, names, sizeof(names))) ||
	       kmt_output_count(out, "untraced_objects", "  their outstanding objects", objs) ||
	       kmt_output_value(out, "untraced_bytes", "  their outstanding bytes",
				KMT_KIND_BYTES, (union kmt_cell){ .u = bytes });
}
