/* SPDX-License-Identifier: LGPL-2.1 */
/* A bounds-checked cursor over a file's bytes: what the binary readers share. */
#ifndef KMT_CURSOR_H
#define KMT_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <kmtrace/error.h>

/* A bounds-checked cursor over the mapped file. */
struct kmt_cursor {
	const unsigned char *base;
	size_t size;
	size_t pos;
	bool swap;
	const char *path;
	struct kmt_error *err;
};

/* Are @n more bytes there? false with c->err filled ("truncated: @what ..."). */
bool kmt_cursor_need(struct kmt_cursor *c, size_t n, const char *what);

/* The @size-byte (2, 4 or 8) integer at the cursor into *@v; false when truncated. */
bool kmt_cursor_uint(struct kmt_cursor *c, int size, unsigned long long *v, const char *what);

/* The NUL-terminated string at the cursor, or NULL when it runs off the end. */
const char *kmt_cursor_cstr(struct kmt_cursor *c, const char *what);

/* The string at the cursor, which must be @want. */
bool kmt_cursor_expect(struct kmt_cursor *c, const char *want, const char *what);

/*
 * A blob preceded by its @lsize-byte length: a NUL-terminated copy (yours
 * to free), its length in *@len if @len; NULL with c->err filled.
 */
char *kmt_cursor_blob(struct kmt_cursor *c, int lsize, size_t *len, const char *what);

#endif /* KMT_CURSOR_H */
