/* SPDX-License-Identifier: LGPL-2.1 */
/* Small helpers the analyses and the output layer share; private to src/. */
#ifndef KMT_UTIL_H
#define KMT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <kmtrace/error.h>

/*
 * The first boundary after @ts on the grid @boundary + k * @interval, for a
 * @boundary at or before @ts: where --timeline and --interval go next.
 */
static inline uint64_t kmt_boundary_after(uint64_t boundary, uint64_t ts, uint64_t interval)
{
	return boundary + ((ts - boundary) / interval + 1) * interval;
}

/* kmt_grow() once the array is full: the realloc. */
int kmt_grow_to(void *arr, uint32_t *cap, uint32_t n, size_t size);

/*
 * Grow the array *@arr of @size-byte items, *@cap of them allocated, so
 * that index @n fits (doubling, from 16). Returns 0, or -1 with *@arr kept.
 */
static inline int kmt_grow(void *arr, uint32_t *cap, uint32_t n, size_t size)
{
	return n < *cap ? 0 : kmt_grow_to(arr, cap, n, size);
}

/* Compare items @a and @b (indexes) of what @ctx holds, as qsort() would. */
typedef int (*kmt_index_cmp)(uint32_t a, uint32_t b, void *ctx);

/* The indexes 0..@n-1 sorted by @cmp; free() them. NULL when out of memory. */
uint32_t *kmt_sorted_index(uint32_t n, kmt_index_cmp cmp, void *ctx);

/*
 * Parse "NAME[,NAME...]" (a sort key list) into the indexes in @names (@n
 * of them) of each, at most @max, into @keys and their number into *@nkeys.
 * Returns 0, or -1 with "bad sort key 'NAME' (keys: ...)" or "empty sort
 * key list" in @err.
 */
int kmt_parse_sort_keys(const char *arg, const char *const *names, int n, int *keys, int max,
			int *nkeys, struct kmt_error *err);

/*
 * Parse @arg as a whole number >= 0 for option @what. Returns 0, or -1
 * with "bad WHAT 'ARG': ..." in @err.
 */
int kmt_parse_count(const char *arg, const char *what, long long *v, struct kmt_error *err);

/*
 * All of the text file @path (also /proc files, whose size is not known
 * ahead), NUL-terminated, its length in *@len. NULL when it cannot be read.
 */
char *kmt_read_text_file(const char *path, size_t *len);

/*
 * Parse a --timeline interval @arg in milliseconds (> 0) into *@ns.
 * Returns 0, or -1 with "bad --timeline ..." in @err.
 */
int kmt_parse_interval_ms(const char *arg, uint64_t *ns, struct kmt_error *err);

/* The address of _text in kallsyms or System.map text @text, or 0 if not there. */
unsigned long long kmt_kallsyms_text(const char *text);

/* Write all @len bytes at @p to @fd (EINTR taken care of). 0, or -1 with errno. */
int kmt_write_all(int fd, const void *p, size_t len);

/*
 * @s into @buf (@len bytes, NUL-terminated, cut if it must be) with control
 * characters written as \xNN: text from a file must not drive a terminal.
 */
void kmt_escape(char *buf, size_t len, const char *s);

/* fputs() of @s with control characters written as \xNN. EOF on error. */
int kmt_fputs_escaped(const char *s, FILE *fp);

/*
 * The running kernel's GNU build-id in hex (from /sys/kernel/notes) into
 * @hex of @len bytes; "" when it cannot be read.
 */
void kmt_running_build_id(char *hex, size_t len);

#endif /* KMT_UTIL_H */
