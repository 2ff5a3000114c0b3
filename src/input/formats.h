/* SPDX-License-Identifier: LGPL-2.1 */
/* Event formats from files into libtraceevent, safely (formats.c); private to src/. */
#ifndef KMT_FORMATS_H
#define KMT_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

struct tep_handle;

/* One event format text as a file holds it (not NUL-terminated). */
struct kmt_format_text {
	const char *system;
	const char *text;
	size_t len;
	long long offset;	/* in the file, -1 if none */
};

/* What became of the formats given so far. */
struct kmt_format_counts {
	unsigned int parsed;		/* their events decode */
	unsigned int print_left_out;	/* of those, printed with raw fields only */
	unsigned int skipped;		/* unusable: their events stay unknown */
	unsigned int shipped;		/* texts kmtrace ships, not tried in a child */
};

/*
 * Parse the @n formats @f into @tep, checked as formats.c says (all but
 * the child-process step when @trusted, for formats kmtrace ships), and
 * add to @c what became of them. 0, or -1 with errno (out of memory, no
 * child process could be made).
 */
int kmt_formats_parse(struct tep_handle *tep, const struct kmt_format_text *f, int n,
		      bool trusted, struct kmt_format_counts *c);

/*
 * Mark every event of @tep (parsed by another library) whose print format
 * could crash when printing as failed, so that its fields print raw;
 * counted in @c.
 */
void kmt_formats_guard_all(struct tep_handle *tep, struct kmt_format_counts *c);

/* A format text of a shipped set and its system (not NUL-terminated); non-zero stops. */
typedef int (*kmt_shipped_fn)(void *arg, const char *system, size_t system_len,
			      const char *text, size_t len);

/*
 * Each format text of shipped set @set (kmt_shipped_formats[i][1]: a
 * "#system NAME" line before each) to @fn in order: 0, @fn's non-zero
 * return, or -1 when a "#system" line has no end.
 */
int kmt_formats_shipped_each(const char *set, kmt_shipped_fn fn, void *arg);

struct tep_event;

/*
 * Does the record @data of @size bytes hold every field of @e, the data
 * its __data_loc fields point to included? libtraceevent prints without
 * asking; a record that does not fit must not be printed through it.
 */
bool kmt_formats_record_fits(struct tep_handle *tep, const struct tep_event *e,
			     const void *data, int size);

#endif /* KMT_FORMATS_H */
