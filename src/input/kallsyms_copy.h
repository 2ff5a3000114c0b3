/* SPDX-License-Identifier: LGPL-2.1 */
/* perf's build-id cache copy of this machine's kallsyms; private to src/input. */
#ifndef KMT_KALLSYMS_COPY_H
#define KMT_KALLSYMS_COPY_H

#include <stddef.h>

#include "symbols.h"

/*
 * Where perf keeps its copy of the kallsyms of kernel build @build_id (hex)
 * into @path of @len bytes: 0 when a regular file is there, -1 otherwise.
 */
int kmt_kallsyms_copy_path(const char *build_id, char *path, size_t len);

/*
 * The symbols of the kallsyms copy @copy when it is this boot's: its _text
 * the one @kallsyms (/proc/kallsyms) starts with, its modules those of
 * @modules (/proc/modules) where they are loaded. NULL with @why (@len
 * bytes) said when it cannot be read or is not this boot's.
 */
struct kmt_symbols *kmt_kallsyms_copy_read(const char *copy, const char *kallsyms,
					   const char *modules, char *why, size_t len);

#endif /* KMT_KALLSYMS_COPY_H */
