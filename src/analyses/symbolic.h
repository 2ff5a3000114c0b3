/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Names the recording's own print formats give to a field's values
 * (__print_symbolic): compaction's status, an LRU list, ...
 */
#ifndef KMT_SYMBOLIC_H
#define KMT_SYMBOLIC_H

#include <stddef.h>

struct tep_handle;

/*
 * The name event @system:@event's print format gives value @value of
 * field @field, in @buf; the number itself when it names none. Returns @buf.
 */
const char *kmt_symbolic_name(struct tep_handle *tep, const char *system, const char *event,
			      const char *field, long long value, char *buf, size_t len);

#endif /* KMT_SYMBOLIC_H */
