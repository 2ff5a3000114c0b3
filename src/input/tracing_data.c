// SPDX-License-Identifier: LGPL-2.1
/*
 * Tracing data: magic, version, header_page and header_event, the event
 * formats, kallsyms, printk formats and saved cmdlines. A trace.dat starts
 * with it and perf.data's HEADER_TRACING_DATA feature holds it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "reader_local.h"
#include "symbols.h"
#include "cursor.h"
#include "formats.h"
#include "container/tracedat.h"
#include "common/util.h"

/* The format texts of the file, parsed together once all are known. */
struct format_list {
	struct kmt_format_text *f;
	uint32_t n, cap;
};

static bool collect_formats(struct kmt_cursor *c, struct format_list *l, const char *sys,
			    unsigned long long count)
{
	while (count--) {
		unsigned long long len;

		if (!kmt_cursor_uint(c, 8, &len, "event format size") || !kmt_cursor_need(c, len, "event format"))
			return false;
		if (kmt_grow(&l->f, &l->cap, l->n, sizeof(*l->f))) {
			kmt_error_set(c->err, c->path, c->pos, "out of memory");
			return false;
		}
		l->f[l->n++] = (struct kmt_format_text){ sys, (const char *)c->base + c->pos,
							 len, c->pos };
		c->pos += len;
	}
	return true;
}

static bool parse_systems(struct kmt_cursor *c, struct kmt_reader *r)
{
	struct format_list l = { 0 };
	unsigned long long nsys, count;
	bool ok = false;

	if (!kmt_cursor_uint(c, 4, &count, "ftrace format count") ||
	    !collect_formats(c, &l, "ftrace", count) ||
	    !kmt_cursor_uint(c, 4, &nsys, "system count"))
		goto out;
	while (nsys--) {
		const char *sys = kmt_cursor_cstr(c, "system name");

		if (!sys || !kmt_cursor_uint(c, 4, &count, "event count") ||
		    !collect_formats(c, &l, sys, count))
			goto out;
	}
	if (kmt_formats_parse(r->tep, l.f, l.n, false, &r->formats)) {
		kmt_error_set(c->err, c->path, -1, "cannot check the event formats: %s",
			      strerror(errno));
		goto out;
	}
	ok = true;
out:
	free(l.f);
	return ok;
}

/* kallsyms into @r's symbol table; printk formats and cmdlines into its tep. */
static bool parse_symbols(struct kmt_cursor *c, struct kmt_reader *r)
{
	struct tep_handle *tep = r->tep;
	size_t len;
	char *text;

	if (!(text = kmt_cursor_blob(c, 4, &len, "kallsyms")))
		return false;
	if (len && !r->kernel_text)
		r->kernel_text = kmt_kallsyms_text(text);
	if (!len)
		free(text);
	else if (kmt_reader_defer_symbols(r, text, len)) {	/* it frees text */
		kmt_error_set(c->err, c->path, -1, "out of memory");
		return false;
	}
	if (!(text = kmt_cursor_blob(c, 4, &len, "printk formats")))
		return false;
	kmt_reader_take_printk(tep, text);
	free(text);
	if (!(text = kmt_cursor_blob(c, 8, &len, "saved cmdlines")))
		return false;
	kmt_reader_take_cmdlines(tep, text);
	free(text);
	return true;
}

/* header_page and header_event; with @pages, ring-buffer pages follow: their size must do. */
static bool parse_headers(struct kmt_cursor *c, struct kmt_reader *r, bool pages)
{
	unsigned int subbuf, header;
	size_t at;
	char *hp;
	size_t len;

	if (!kmt_cursor_expect(c, "header_page", "header_page tag"))
		return false;
	at = c->pos + 8;
	if (!(hp = kmt_cursor_blob(c, 8, &len, "header_page")))
		return false;
	if (tep_parse_header_page(r->tep, hp, len, tep_get_long_size(r->tep))) {
		kmt_error_set(c->err, c->path, at, "corrupt: unparsable header_page");
		free(hp);
		return false;
	}
	free(hp);
	subbuf = tep_get_sub_buffer_size(r->tep);
	header = 8 + tep_get_header_page_size(r->tep);
	if (pages && (subbuf <= header || subbuf > (1u << 24))) {
		kmt_error_set(c->err, c->path, at, "corrupt: sub-buffer size %u", subbuf);
		return false;
	}
	if (!kmt_cursor_expect(c, "header_event", "header_event tag"))
		return false;
	hp = kmt_cursor_blob(c, 8, NULL, "header_event");
	free(hp);
	return hp != NULL;
}

bool kmt_tracing_data_parse(struct kmt_cursor *c, struct kmt_reader *r, const char *version,
			    bool pages)
{
	unsigned long long page_size;
	unsigned char endian, lsize;
	size_t at = c->pos;

	if (!kmt_cursor_need(c, KMT_TD_MAGIC_LEN, "magic") ||
	    memcmp(c->base + c->pos, KMT_TD_MAGIC, KMT_TD_MAGIC_LEN)) {
		kmt_error_set(c->err, c->path, at, "corrupt: no tracing data magic");
		return false;
	}
	c->pos += KMT_TD_MAGIC_LEN;
	if (version ? !kmt_cursor_expect(c, version, "version") : !kmt_cursor_cstr(c, "version"))
		return false;
	if (!kmt_cursor_need(c, 2, "endian and long size"))
		return false;
	endian = c->base[c->pos];
	lsize = c->base[c->pos + 1];
	if (endian > 1 || (lsize != 4 && lsize != 8)) {
		kmt_error_set(c->err, c->path, c->pos, "corrupt: endian %u, long size %u",
			      endian, lsize);
		return false;
	}
	c->pos += 2;
	tep_set_file_bigendian(r->tep, endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	c->swap = tep_is_file_bigendian(r->tep) != tep_is_local_bigendian(r->tep);
	tep_set_long_size(r->tep, lsize);
	if (!kmt_cursor_uint(c, 4, &page_size, "page size"))
		return false;
	if (page_size < 1024 || page_size > (1u << 24) || (page_size & (page_size - 1))) {
		kmt_error_set(c->err, c->path, c->pos - 4, "corrupt: page size %llu", page_size);
		return false;
	}
	tep_set_page_size(r->tep, page_size);
	return parse_headers(c, r, pages) && parse_systems(c, r) && parse_symbols(c, r);
}

bool kmt_parse_tracing_data(const void *base, size_t size, size_t offset, const char *path,
			    struct kmt_reader *r, struct kmt_error *err)
{
	struct kmt_cursor c = { .base = base, .size = size, .pos = offset, .path = path, .err = err };

	return kmt_tracing_data_parse(&c, r, NULL, false);
}
