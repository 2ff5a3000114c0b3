// SPDX-License-Identifier: LGPL-2.1
/* The helpers of util.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int kmt_grow_to(void *arr, uint32_t *cap, uint32_t n, size_t size)
{
	void **p = arr;
	uint32_t ncap;
	void *q;

	if (n >= UINT32_MAX / 2)
		return -1;
	for (ncap = *cap ? *cap : 16; ncap <= n; ncap *= 2)
		;
	q = realloc(*p, ncap * size);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}

struct index_sort {
	kmt_index_cmp cmp;
	void *ctx;
};

static int cmp_indexes(const void *a, const void *b, void *arg)
{
	const struct index_sort *s = arg;

	return s->cmp(*(const uint32_t *)a, *(const uint32_t *)b, s->ctx);
}

uint32_t *kmt_sorted_index(uint32_t n, kmt_index_cmp cmp, void *ctx)
{
	struct index_sort s = { cmp, ctx };
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx)), i;

	if (!idx)
		return NULL;
	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_indexes, &s);
	return idx;
}

int kmt_parse_sort_keys(const char *arg, const char *const *names, int n, int *keys, int max,
			int *nkeys, struct kmt_error *err)
{
	const char *p = arg;
	int at, k, msglen = sizeof(err->msg);
	char *msg = err->msg;

	*nkeys = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		for (k = 0; k < n; k++)
			if (strlen(names[k]) == len && !strncmp(p, names[k], len))
				break;
		if (k == n || *nkeys == max) {
			kmt_error_set(err, NULL, -1, "bad sort key '%.*s' (keys:", (int)len, p);
			at = strlen(msg);
			for (k = 0; k < n && at < msglen; k++)
				at += snprintf(msg + at, msglen - at, "%s %s", k ? "," : "", names[k]);
			if (at < msglen)
				snprintf(msg + at, msglen - at, ")");
			return -1;
		}
		keys[(*nkeys)++] = k;
		p += len + (p[len] == ',');
	}
	if (!*nkeys) {
		kmt_error_set(err, NULL, -1, "empty sort key list");
		return -1;
	}
	return 0;
}

int kmt_parse_count(const char *arg, const char *what, long long *v, struct kmt_error *err)
{
	char *end;

	errno = 0;
	*v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || *v < 0) {
		kmt_error_set(err, NULL, -1, "bad %s '%s': want a whole number", what, arg);
		return -1;
	}
	return 0;
}

int kmt_parse_interval_ms(const char *arg, uint64_t *ns, struct kmt_error *err)
{
	long long ms;

	if (kmt_parse_count(arg, "--timeline", &ms, err))
		return -1;
	if (!ms) {
		kmt_error_set(err, NULL, -1, "bad --timeline '%s': want milliseconds > 0", arg);
		return -1;
	}
	*ns = (uint64_t)ms * 1000000;
	return 0;
}

#define TEXT_READ	(64u << 10)	/* asked a call (/proc/kallsyms gives a page) */

/* All of @fd into a new NUL-terminated buffer, its length in *@len; NULL on failure. */
static char *read_all(int fd, size_t *len)
{
	size_t used = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (cap - used < TEXT_READ + 1) {
			size_t ncap = cap ? cap * 2 : 4 * TEXT_READ;
			char *nbuf = ncap > cap ? realloc(buf, ncap) : NULL;

			if (!nbuf)
				break;
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (!n) {
			buf[used] = '\0';
			*len = strlen(buf);	/* a text file has no NUL: up to the first */
			return buf;
		}
		used += n;
	}
	free(buf);
	return NULL;
}

char *kmt_read_text_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *text;
	int saved;

	if (fd < 0)
		return NULL;
	text = read_all(fd, len);
	saved = errno;
	close(fd);
	errno = saved;
	return text;
}

int kmt_write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		c += n;
		len -= n;
	}
	return 0;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void kmt_escape(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	if (!len)
		return;
	for (; *s; s++) {
		unsigned char c = *s;

		if (!is_control(c) && n + 1 < len) {
			buf[n++] = c;
		} else if (is_control(c) && n + 4 < len) {
			snprintf(buf + n, len - n, "\\x%02x", c);
			n += 4;
		} else {
			break;
		}
	}
	buf[n] = '\0';
}

int kmt_fputs_escaped(const char *s, FILE *fp)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if ((is_control(c) ? fprintf(fp, "\\x%02x", c) : fputc(c, fp)) < 0)
			return EOF;
	}
	return 0;
}

unsigned long long kmt_kallsyms_text(const char *text)
{
	const char *p = strstr(text, " T _text\n");

	while (p && p > text && p[-1] != '\n')
		p--;
	return p ? strtoull(p, NULL, 16) : 0;
}

#define NT_GNU_BUILD_ID	3
#define NOTES_MAX	4096	/* the kernel's notes take a few hundred bytes */

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* The GNU build-id note in the ELF notes @notes of @len bytes, as hex into @hex. */
static bool gnu_build_id(const unsigned char *notes, size_t len, char *hex, size_t hexlen)
{
	size_t at = 0;

	while (len - at >= 12) {
		uint32_t namesz, descsz, type;
		size_t desc, i;

		memcpy(&namesz, notes + at, 4);
		memcpy(&descsz, notes + at + 4, 4);
		memcpy(&type, notes + at + 8, 4);
		desc = at + 12 + align4(namesz);
		if (namesz > len || descsz > len || desc > len || descsz > len - desc)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(notes + at + 12, "GNU", 4) &&
		    descsz && descsz * 2 < hexlen) {
			for (i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", notes[desc + i]);
			return true;
		}
		at = desc + align4(descsz);
	}
	return false;
}

/* All of @path, binary (NULs and all), up to @cap bytes into @buf; the length, or 0. */
static size_t read_binary(const char *path, unsigned char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t have = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while (have < cap && (n = read(fd, buf + have, cap - have)) > 0)
		have += n;
	close(fd);
	return have;
}

void kmt_running_build_id(char *hex, size_t len)
{
	unsigned char notes[NOTES_MAX];
	size_t n = read_binary("/sys/kernel/notes", notes, sizeof(notes));

	if (!gnu_build_id(notes, n, hex, len) && len)
		hex[0] = '\0';
}
