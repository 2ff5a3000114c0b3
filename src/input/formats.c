// SPDX-License-Identifier: LGPL-2.1
/*
 * Event formats from a file into libtraceevent, which trusts them and
 * crashes on some: a division by zero it folds while parsing, malformed
 * __print_symbolic() calls, a division by a field that is zero in some
 * record, hex dumps whose length a record sets. So a format is checked in
 * three steps before its events are decoded or printed:
 *  1. its fields are read here first: offsets and sizes must lie within
 *     64 KiB and the ID within the 16 bits common_type holds, else it is
 *     skipped;
 *  2. libtraceevent parses the formats of the file in a child process
 *     first (sandbox.c), each a few times into a handle of its own that is
 *     then freed; one it crashed on, or leaked memory parsing, is parsed
 *     again without its print format (fields decode, the print shows them
 *     raw), and skipped if that fails too. A text kmtrace ships (formats/,
 *     which its text reader parses trusted) is not tried again: the same
 *     text but for the number of its ID line, of the same system;
 *  3. once parsed, a print format that could crash when printing (a
 *     division or modulo by anything but a non-zero constant, a length
 *     taken from the record, nesting too deep to walk) is marked failed:
 *     libtraceevent then prints the fields raw.
 * What became of the formats is counted for the report.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "formats.h"
#include "sandbox.h"
#include "common/util.h"

#define MAX_RECORD		65536	/* __data_loc offsets and lengths are 16 bits */
#define MAX_EVENT_ID		65535	/* common_type is a u16 */
#define MAX_PRINT_DEPTH		32
#define SANDBOX_SECONDS		10
#define NO_PRINT_FORMAT		"print fmt: \"[print format left out: libtraceevent " \
				"crashed on it]\"\n"

enum verdict { PARSED, PARSE_FAILED, LEAKED, SHIPPED };

extern const char *const kmt_shipped_formats[][2];

/* A format text: the part before its "ID: N" line, and the part after. */
struct id_split {
	const char *text, *rest;
	size_t head, rest_len;
};

/* A format text of the sets kmtrace ships. */
struct shipped_text {
	const char *system;
	size_t system_len;
	struct id_split split;
};

/* Split @text at its "ID: N" line, N of 1 to 5 digits; false if it has none. */
static bool split_at_id(const char *text, size_t len, struct id_split *s)
{
	const char *id = memmem(text, len, "\nID: ", 5), *end = text + len, *d;

	if (!id)
		return false;
	for (d = id + 5; d < end && *d >= '0' && *d <= '9'; d++)
		;
	if (d == id + 5 || d - id - 5 > 5 || d == end || *d != '\n')
		return false;
	*s = (struct id_split){ text, d, id - text, end - d };
	return true;
}

int kmt_formats_shipped_each(const char *set, kmt_shipped_fn fn, void *arg)
{
	const char *p = strstr(set, "#system ");

	while (p) {
		const char *sys = p + 8, *nl = strchr(sys, '\n'), *next;
		int ret;

		if (!nl)
			return -1;
		next = strstr(nl, "\n#system ");
		ret = fn(arg, sys, nl - sys, nl + 1,
			 next ? (size_t)(next + 1 - (nl + 1)) : strlen(nl + 1));
		if (ret)
			return ret;
		p = next ? next + 1 : NULL;
	}
	return 0;
}

/* The shipped texts gathered, those with an ID line. */
struct shipped_list {
	struct shipped_text *t;
	uint32_t n, cap;
};

static int gather_shipped(void *arg, const char *system, size_t system_len, const char *text,
			  size_t len)
{
	struct shipped_list *l = arg;

	if (kmt_grow(&l->t, &l->cap, l->n, sizeof(*l->t)))
		return -1;
	l->t[l->n].system = system;
	l->t[l->n].system_len = system_len;
	l->n += split_at_id(text, len, &l->t[l->n].split);
	return 0;
}

/* The texts kmtrace ships, every set's; NULL with *@n 0 when out of memory. */
static struct shipped_text *shipped_texts(int *n)
{
	struct shipped_list l = { 0 };
	int i;

	for (i = 0; kmt_shipped_formats[i][0]; i++) {
		if (kmt_formats_shipped_each(kmt_shipped_formats[i][1], gather_shipped, &l)) {
			free(l.t);
			*n = 0;
			return NULL;
		}
	}
	*n = l.n;
	return l.t;
}

/* Do @a and @b say the same but for the numbers of their ID lines? */
static bool same_but_id(const struct id_split *a, const struct id_split *b)
{
	return a->head == b->head && a->rest_len == b->rest_len &&
	       !memcmp(a->text, b->text, a->head) && !memcmp(a->rest, b->rest, a->rest_len);
}

/* Is @f one of the @n texts @t of the same system, but for its ID? */
static bool is_shipped(const struct kmt_format_text *f, const struct shipped_text *t, int n)
{
	size_t system_len = strlen(f->system);
	struct id_split mine;
	int i;

	if (!split_at_id(f->text, f->len, &mine))
		return false;
	for (i = 0; i < n; i++)
		if (system_len == t[i].system_len && !memcmp(f->system, t[i].system, system_len) &&
		    same_but_id(&mine, &t[i].split))
			return true;
	return false;
}

/* The number after @key (e.g. "offset:") in the line at @p, or -1. */
static long long number_after(const char *p, const char *end, const char *key)
{
	const char *k = memmem(p, end - p, key, strlen(key));
	char buf[24];
	size_t n = 0;

	if (!k)
		return -1;
	for (k += strlen(key); k < end && (*k == ' ' || *k == '\t'); k++)
		;
	while (k < end && *k >= '0' && *k <= '9' && n < sizeof(buf) - 1)
		buf[n++] = *k++;
	buf[n] = '\0';
	return n && n < 12 ? strtoll(buf, NULL, 10) : -1;
}

/* Step 1: the ID and every field's place, as the text gives them. */
static bool fields_sane(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	long long id = -2;

	if (memchr(text, '\0', len))
		return false;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p) ?: end;

		if (nl - p >= 3 && !memcmp(p, "ID:", 3)) {
			id = number_after(p, nl, "ID:");
		} else if (memmem(p, nl - p, "field:", 6)) {
			long long off = number_after(p, nl, "offset:");
			long long size = number_after(p, nl, "size:");

			if (off < 0 || size < 0 || off + size > MAX_RECORD)
				return false;
		} else if (nl - p >= 10 && !memcmp(p, "print fmt:", 10)) {
			break;
		}
		p = nl + 1;
	}
	return id >= 0 && id <= MAX_EVENT_ID;
}

/* The text without its print format, which libtraceevent crashed on. */
static char *without_print(const char *text, size_t len, size_t *out_len)
{
	const char *pf = memmem(text, len, "\nprint fmt:", 11);
	size_t keep = pf ? (size_t)(pf - text) + 1 : len;
	char *s = malloc(keep + sizeof(NO_PRINT_FORMAT));

	if (!s)
		return NULL;
	memcpy(s, text, keep);
	memcpy(s + keep, NO_PRINT_FORMAT, sizeof(NO_PRINT_FORMAT));
	*out_len = keep + sizeof(NO_PRINT_FORMAT) - 1;
	return s;
}

/* What the sandbox runs: parse format i into a handle like the real one. */
struct trial {
	struct tep_handle *like;
	const struct kmt_format_text *f;
	const unsigned char *before;	/* step 1's verdicts, or NULL */
};

/* The sanitizers' exact count where they replace malloc. */
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

/*
 * Bytes in use. glibc's count also holds what its per-thread cache keeps
 * of freed memory: a leak shows there only once that cache is steady.
 */
static size_t allocated_bytes(void)
{
	if (__sanitizer_get_current_allocated_bytes)
		return __sanitizer_get_current_allocated_bytes();
	return mallinfo2().uordblks;
}

/* Parse @f into a new handle like @like and free it; tep_parse_event()'s return. */
static int parse_alone(const struct tep_handle *like, const struct kmt_format_text *f)
{
	struct tep_handle *t = tep_alloc(), *l = (struct tep_handle *)like;
	int ret;

	if (!t)
		return -1;
	tep_set_long_size(t, tep_get_long_size(l));
	tep_set_page_size(t, tep_get_page_size(l));
	tep_set_file_bigendian(t, tep_is_file_bigendian(l) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	ret = tep_parse_event(t, f->text, f->len, f->system);
	tep_free(t);
	return ret;
}

/*
 * PARSED, PARSE_FAILED, or LEAKED when the memory in use grew by as much at
 * each of a few parses after warm-up ones (more of both where the count is
 * glibc's, whose cache makes it move by varying amounts while it settles).
 */
static unsigned char trial_parse(void *arg, int i)
{
	struct trial *t = arg;
	int warm = __sanitizer_get_current_allocated_bytes ? 1 : 8;
	int runs = __sanitizer_get_current_allocated_bytes ? 1 : 3;
	ssize_t grew[3];
	size_t before;
	int ret, k;

	if (t->before && t->before[i] != PARSED)
		return t->before[i];
	ret = parse_alone(t->like, &t->f[i]);
	for (k = 1; k < warm; k++)
		parse_alone(t->like, &t->f[i]);
	/* a leak grows the count by as much at every parse; the cache settling does not */
	for (k = 0; k < runs; k++) {
		before = allocated_bytes();
		parse_alone(t->like, &t->f[i]);
		grew[k] = allocated_bytes() - before;
		if (grew[k] <= 0 || grew[k] != grew[0])
			return ret ? PARSE_FAILED : PARSED;
	}
	return LEAKED;
}

/* Step 2: verdicts of libtraceevent on @n texts, in a child process. */
static int try_in_child(struct tep_handle *tep, const struct kmt_format_text *f, int n,
			const unsigned char *before, unsigned char *verdicts)
{
	struct trial t = { tep, f, before };

	return kmt_sandbox_run(trial_parse, &t, n, SANDBOX_SECONDS, verdicts);
}

/* Is the print argument @a safe to evaluate on any record? */
static bool arg_safe(const struct tep_print_arg *a, int depth)
{
	if (depth > MAX_PRINT_DEPTH)
		return false;
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_OP:
			if ((!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%")) &&
			    (!a->op.right || a->op.right->type != TEP_PRINT_ATOM ||
			     !strtoll(a->op.right->atom.atom, NULL, 0)))
				return false;
			if (!arg_safe(a->op.left, depth + 1) || !arg_safe(a->op.right, depth + 1))
				return false;
			break;
		case TEP_PRINT_TYPE:
			if (!arg_safe(a->typecast.item, depth + 1))
				return false;
			break;
		case TEP_PRINT_FLAGS:
			if (!arg_safe(a->flags.field, depth + 1))
				return false;
			break;
		case TEP_PRINT_SYMBOL:
			if (!arg_safe(a->symbol.field, depth + 1))
				return false;
			break;
		case TEP_PRINT_FUNC:
			if (!arg_safe(a->func.args, depth + 1))
				return false;
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
		case TEP_PRINT_INT_ARRAY:
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			return false;	/* lengths from the record, unchecked */
		default:
			break;
		}
	}
	return true;
}

/* Step 3: an event whose print could crash prints its fields raw. */
static void guard_print(struct tep_event *e, struct kmt_format_counts *c)
{
	if (!e || (e->flags & TEP_EVENT_FL_FAILED) || arg_safe(e->print_fmt.args, 0))
		return;
	e->flags |= TEP_EVENT_FL_FAILED;
	c->print_left_out++;
}

void kmt_formats_guard_all(struct tep_handle *tep, struct kmt_format_counts *c)
{
	int i, n = tep_get_events_count(tep);

	for (i = 0; i < n; i++)
		guard_print(tep_get_event(tep, i), c);
}

/* The event a text defines, once parsed. */
static struct tep_event *event_of(struct tep_handle *tep, const struct kmt_format_text *f)
{
	long long id = number_after(f->text, f->text + f->len, "\nID:");

	return id >= 0 ? tep_find_event(tep, (int)id) : NULL;
}

/* Parse what step 2 allows: the text, or it without its print format. */
static void parse_one(struct tep_handle *tep, const struct kmt_format_text *f,
		      unsigned char verdict, const struct kmt_format_text *stripped,
		      unsigned char stripped_verdict, struct kmt_format_counts *c)
{
	if ((verdict == PARSED || verdict == SHIPPED) &&
	    !tep_parse_event(tep, f->text, f->len, f->system)) {
		c->parsed++;
		guard_print(event_of(tep, f), c);
		return;
	}
	if ((verdict == KMT_SANDBOX_CRASHED || verdict == LEAKED) && stripped &&
	    stripped_verdict == PARSED &&
	    !tep_parse_event(tep, stripped->text, stripped->len, f->system)) {
		c->parsed++;
		c->print_left_out++;
		return;
	}
	c->skipped++;
}

/* Step 2 again for the texts it crashed or leaked on, without their print formats. */
static int strip_crashed(struct tep_handle *tep, const struct kmt_format_text *f, int n,
			 const unsigned char *verdicts, struct kmt_format_text *stripped,
			 unsigned char *sverdicts)
{
	struct kmt_format_text *todo = calloc(n ? n : 1, sizeof(*todo));
	unsigned char *v = calloc(n ? n : 1, 1);
	int *at = calloc(n ? n : 1, sizeof(*at));
	int i, m = 0, ret = -1;

	if (!todo || !v || !at)
		goto out;
	for (i = 0; i < n; i++) {
		size_t len;
		char *s;

		if (verdicts[i] != KMT_SANDBOX_CRASHED && verdicts[i] != LEAKED)
			continue;
		if (!(s = without_print(f[i].text, f[i].len, &len)))
			goto out;
		stripped[i] = (struct kmt_format_text){ f[i].system, s, len, f[i].offset };
		todo[m] = stripped[i];
		at[m++] = i;
	}
	if (m && try_in_child(tep, todo, m, NULL, v))
		goto out;
	for (i = 0; i < m; i++)
		sverdicts[at[i]] = v[i];
	ret = 0;
out:
	free(todo);
	free(v);
	free(at);
	return ret;
}

/*
 * Mark the sane texts of @f kmtrace ships SHIPPED in @verdicts, counted in
 * @c; true if some other sane one is left for the child to try.
 */
static bool mark_shipped(const struct kmt_format_text *f, int n, unsigned char *verdicts,
			 struct kmt_format_counts *c)
{
	int i, nt, left = 0;
	struct shipped_text *t = shipped_texts(&nt);

	for (i = 0; i < n; i++) {
		if (verdicts[i] != PARSED)
			continue;
		if (is_shipped(&f[i], t, nt)) {
			verdicts[i] = SHIPPED;
			c->shipped++;
		} else {
			left++;
		}
	}
	free(t);
	return left;
}

int kmt_formats_parse(struct tep_handle *tep, const struct kmt_format_text *f, int n,
		      bool trusted, struct kmt_format_counts *c)
{
	unsigned char *verdicts = calloc(n ? n : 1, 2);
	struct kmt_format_text *stripped = calloc(n ? n : 1, sizeof(*stripped));
	int i, ret = -1;

	tep_set_loglevel(TEP_LOG_NONE);
	if (!verdicts || !stripped)
		goto out;
	for (i = 0; i < n; i++)
		verdicts[i] = fields_sane(f[i].text, f[i].len) ? PARSED : PARSE_FAILED;
	if (!trusted && mark_shipped(f, n, verdicts, c)) {
		if (try_in_child(tep, f, n, verdicts, verdicts + n))
			goto out;
		memcpy(verdicts, verdicts + n, n);
		if (strip_crashed(tep, f, n, verdicts, stripped, verdicts + n))
			goto out;
	}
	for (i = 0; i < n; i++)
		parse_one(tep, &f[i], verdicts[i], stripped[i].text ? &stripped[i] : NULL,
			  verdicts[n + i], c);
	ret = 0;
out:
	for (i = 0; stripped && i < n; i++)
		free((char *)stripped[i].text);
	free(stripped);
	free(verdicts);
	return ret;
}

/* A __data_loc field's u32 (file byte order): offset in the low half, length in the high. */
static bool dynamic_fits(struct tep_handle *tep, const struct tep_format_field *f,
			 const unsigned char *data, int size)
{
	unsigned long long loc, off, len;

	if (f->size != 4)
		return false;
	loc = tep_read_number(tep, data + f->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	return off + len <= (unsigned long long)size;
}

static bool fields_fit(struct tep_handle *tep, const struct tep_format_field *f,
		       const unsigned char *data, int size)
{
	for (; f; f = f->next) {
		if (f->offset < 0 || f->size < 0 || f->offset + f->size > size)
			return false;
		if ((f->flags & TEP_FIELD_IS_DYNAMIC) && !dynamic_fits(tep, f, data, size))
			return false;
	}
	return true;
}

bool kmt_formats_record_fits(struct tep_handle *tep, const struct tep_event *e,
			     const void *data, int size)
{
	return e && size >= 0 && size <= MAX_RECORD &&
	       fields_fit(tep, e->format.common_fields, data, size) &&
	       fields_fit(tep, e->format.fields, data, size);
}
