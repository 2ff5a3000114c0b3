// SPDX-License-Identifier: LGPL-2.1
/*
 * The fields of an event's record as its format describes them, for the
 * outputs that carry every field (report events --format jsonl, the SQLite
 * database): numbers with their sign, strings, other arrays as bytes.
 */
#include <string.h>
#include <traceevent/event-parse.h>

#include "cmd.h"

/* A field with no fixed size (raw_data's buf): the rest of the record. */
static bool is_flexible(const struct tep_format_field *f)
{
	return !f->size && (f->flags & TEP_FIELD_IS_ARRAY);
}

enum kmt_field_kind kmt_cmd_field_kind(const struct tep_format_field *f)
{
	if ((f->flags & TEP_FIELD_IS_STRING) && !is_flexible(f))
		return KMT_FIELD_TEXT;
	if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) || f->size > 8 || !f->size)
		return KMT_FIELD_BYTES;
	return f->flags & TEP_FIELD_IS_SIGNED ? KMT_FIELD_INT : KMT_FIELD_UINT;
}

/* Where @f's bytes are in a record of @size bytes: false when not inside it. */
static bool field_span(struct tep_format_field *f, const unsigned char *data, int size,
		       int *off, int *len)
{
	*off = f->offset;
	*len = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned int loc;

		if (f->offset < 0 || f->offset + 4 > size)
			return false;
		memcpy(&loc, data + f->offset, 4);
		*off = (f->flags & TEP_FIELD_IS_RELATIVE ? f->offset + f->size : 0) +
		       (loc & 0xffff);
		*len = loc >> 16;
	}
	if (is_flexible(f) && *off >= 0 && *off < size)
		*len = size - *off;
	return *off >= 0 && *len >= 0 && *off + *len <= size;
}

enum kmt_field_kind kmt_cmd_field_value(struct tep_format_field *f, const unsigned char *data,
					int size, struct kmt_field_value *v)
{
	enum kmt_field_kind kind = kmt_cmd_field_kind(f);
	int off, len;

	if (!field_span(f, data, size, &off, &len))
		return KMT_FIELD_NULL;
	v->p = data + off;
	v->len = len;
	if (kind == KMT_FIELD_TEXT) {
		v->len = strnlen((const char *)v->p, len);
	} else if (kind == KMT_FIELD_INT || kind == KMT_FIELD_UINT) {
		if (tep_read_number_field(f, data, &v->u))
			return KMT_FIELD_NULL;
		if (kind == KMT_FIELD_INT && len < 8 && (v->u >> (len * 8 - 1) & 1))
			v->u |= ~0ull << (len * 8);
	}
	return kind;
}
