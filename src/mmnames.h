/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Names of memory-management values as the recorded kernel spells them:
 * migratetypes by kernel version, GFP flags from the event's own format.
 */
#ifndef KMT_MMNAMES_H
#define KMT_MMNAMES_H

#include <stddef.h>

struct tep_handle;

#define KMT_MIGRATETYPES	6

/*
 * Kernel version "MAJOR.MINOR..." of a uname text ("Linux host 6.1.0-9 ..."
 * or a bare release) as MAJOR * 1000 + MINOR, or -1 when it has none.
 */
int kmt_kernel_version(const char *uname);

/*
 * Name of migratetype @mt on kernel @version (kmt_kernel_version(); -1
 * takes 4.4 and later): 4.4 swapped Movable and Reclaimable and replaced
 * Reserve with HighAtomic. Values past the table give "type-N" in @buf.
 */
const char *kmt_migratetype_name(int mt, int version, char *buf, size_t len);

/* JSON-friendly key of the same name: "movable", "cma_isolate", ... */
const char *kmt_migratetype_key(int mt, int version, char *buf, size_t len);

struct kmt_gfp_names;

/*
 * The GFP flag names of the __print_flags() in the print format of
 * kmem:mm_page_alloc (or, failing that, kmem:kmalloc) in @tep. NULL with
 * errno ENOENT when neither is there, ENOMEM on allocation failure.
 */
struct kmt_gfp_names *kmt_gfp_names_new(struct tep_handle *tep);

/* Free names from kmt_gfp_names_new(); NULL is ignored. */
void kmt_gfp_names_free(struct kmt_gfp_names *g);

/*
 * Write @gfp as the kernel prints it ("GFP_KERNEL|__GFP_ZERO"; what no name
 * covers as hex; "none" for 0) into @buf. @g may be NULL: then hex only.
 */
void kmt_gfp_format(const struct kmt_gfp_names *g, unsigned long long gfp, char *buf,
		    size_t len);

#endif /* KMT_MMNAMES_H */
