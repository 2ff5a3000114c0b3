// SPDX-License-Identifier: LGPL-2.1
/*
 * A bounds-checked cursor over a file's bytes in memory: integers in the
 * file's byte order, strings and length-prefixed blobs, each failing with
 * the offset where the file ends or goes wrong.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"

bool kmt_cursor_need(struct kmt_cursor *c, size_t n, const char *what)
{
	if (c->pos <= c->size && n <= c->size - c->pos)
		return true;
	kmt_error_set(c->err, c->path, c->pos, "truncated: %s needs %zu bytes, file ends at %zu",
		      what, n, c->size);
	return false;
}

bool kmt_cursor_uint(struct kmt_cursor *c, int size, unsigned long long *v, const char *what)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (!kmt_cursor_need(c, size, what))
		return false;
	switch (size) {
	case 2:
		memcpy(&v16, c->base + c->pos, 2);
		*v = c->swap ? __builtin_bswap16(v16) : v16;
		break;
	case 4:
		memcpy(&v32, c->base + c->pos, 4);
		*v = c->swap ? __builtin_bswap32(v32) : v32;
		break;
	default:
		memcpy(&v64, c->base + c->pos, 8);
		*v = c->swap ? __builtin_bswap64(v64) : v64;
		break;
	}
	c->pos += size;
	return true;
}

const char *kmt_cursor_cstr(struct kmt_cursor *c, const char *what)
{
	const char *s = (const char *)c->base + c->pos;
	const void *nul;

	if (c->pos >= c->size || !(nul = memchr(s, '\0', c->size - c->pos))) {
		kmt_error_set(c->err, c->path, c->pos, "truncated: unterminated %s", what);
		return NULL;
	}
	c->pos = (const unsigned char *)nul - c->base + 1;
	return s;
}

bool kmt_cursor_expect(struct kmt_cursor *c, const char *want, const char *what)
{
	size_t at = c->pos;
	const char *s = kmt_cursor_cstr(c, what);

	if (!s)
		return false;
	if (strcmp(s, want)) {
		kmt_error_set(c->err, c->path, at, "corrupt: expected \"%s\"", want);
		return false;
	}
	return true;
}

char *kmt_cursor_blob(struct kmt_cursor *c, int lsize, size_t *len, const char *what)
{
	unsigned long long n;
	char *copy;

	if (!kmt_cursor_uint(c, lsize, &n, what))
		return NULL;
	if (!kmt_cursor_need(c, n, what))
		return NULL;
	copy = malloc(n + 1);
	if (!copy) {
		kmt_error_set(c->err, c->path, c->pos, "out of memory for %s", what);
		return NULL;
	}
	memcpy(copy, c->base + c->pos, n);
	copy[n] = '\0';
	c->pos += n;
	if (len)
		*len = n;
	return copy;
}
