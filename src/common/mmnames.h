/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Names of memory-management values as the recorded kernel spells them:
 * migratetypes by kernel version, GFP flags from the event's own format.
 */
#ifndef KMT_MMNAMES_H
#define KMT_MMNAMES_H

#include <stdbool.h>
#include <stddef.h>

struct tep_event;

#define KMT_MIGRATETYPES	6

/*
 * The kernel release in a uname text ("Linux host 6.1.0-9-amd64 ..." or a
 * bare release): its first word that starts "DIGITS.DIGITS", *@len bytes
 * long; NULL (and 0) when it has none.
 */
const char *kmt_kernel_release(const char *uname, size_t *len);

/*
 * Kernel version "MAJOR.MINOR..." of a uname text ("Linux host 6.1.0-9 ..."
 * or a bare release) as MAJOR * 1000 + MINOR, or -1 when it has none.
 */
int kmt_kernel_version(const char *uname);

/* The machine of a uname -a text, its last word ("x86_64", "aarch64"), or "". */
const char *kmt_kernel_machine(const char *uname);

/* Byte order of uname machine @machine: 1 big-endian, 0 little, -1 not known. */
int kmt_machine_big_endian(const char *machine);

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
 * The GFP flag names of the __print_flags() over gfp_flags in the print
 * format of @event (kmem:mm_page_alloc, kmalloc, ...). NULL with errno
 * ENOENT when it has none, ENOMEM on allocation failure. Calls nothing of
 * libtraceevent, so plugins may use it.
 */
struct kmt_gfp_names *kmt_gfp_names_new(const struct tep_event *event);

/*
 * Do @g name __GFP_WAIT? Kernels before 4.4 did; 4.4 split it (and
 * reordered the migratetypes in the same series). False for NULL.
 */
bool kmt_gfp_names_pre_4_4(const struct kmt_gfp_names *g);

/* The value of flag @name ("__GFP_ACCOUNT") in @g; 0 when @g does not name it. */
unsigned long long kmt_gfp_names_value(const struct kmt_gfp_names *g, const char *name);

/* Free names from kmt_gfp_names_new(); NULL is ignored. */
void kmt_gfp_names_free(struct kmt_gfp_names *g);

/*
 * Write @gfp as the kernel prints it ("GFP_KERNEL|__GFP_ZERO"; what no name
 * covers as hex; "none" for 0) into @buf. @g may be NULL: then hex only.
 */
void kmt_gfp_format(const struct kmt_gfp_names *g, unsigned long long gfp, char *buf,
		    size_t len);

#endif /* KMT_MMNAMES_H */
