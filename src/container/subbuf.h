/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The event headers of a ring-buffer sub-buffer (the kernel's
 * ring_buffer_event): a 32-bit word of type_len (5 bits) and time delta
 * (27 bits), then the data, its length in the type or in the next word.
 * Shared by the trace.dat reader and the writer's event count.
 */
#ifndef KMT_SUBBUF_H
#define KMT_SUBBUF_H

#include <stdbool.h>
#include <string.h>

#define KMT_RB_PADDING		29
#define KMT_RB_TIME_EXTEND	30
#define KMT_RB_TIME_STAMP	31
#define KMT_RB_TS_SHIFT		27
#define KMT_RB_DELTA_MASK	((1u << KMT_RB_TS_SHIFT) - 1)
#define KMT_RB_COMMIT_MASK	((1u << 27) - 1)	/* of a sub-buffer's commit word: bytes */
#define KMT_RB_TS_MSB		(0xf8ull << 56)	/* bits an absolute time stamp lacks */
#define KMT_RB_MISSED_STORED	(1ull << 30)	/* commit word: the count follows the data */
#define KMT_RB_MISSED_EVENTS	(1ull << 31)	/* commit word: events lost before it */

/* Byte order of the sub-buffers: swapped against the host, big-endian bit fields. */
struct kmt_rb_order {
	bool swap, big_endian;
};

/* One header: a data event (type 0..28) or one of the KMT_RB_* kinds. */
struct kmt_rb_step {
	unsigned int type;
	unsigned long long delta;	/* its time delta; with "more" for the time kinds */
	unsigned int data_at, data_len;	/* a data event's payload */
	unsigned int next;		/* where the next header starts */
};

static inline unsigned int kmt_rb_word(struct kmt_rb_order o, const unsigned char *p)
{
	unsigned int v;

	memcpy(&v, p, 4);
	return o.swap ? __builtin_bswap32(v) : v;
}

/*
 * Read the header at @pos of @page, whose events end at @end, into @st.
 * 1: read, 0: no header fits before @end, -1: it runs past @end.
 */
static inline int kmt_rb_step(struct kmt_rb_order o, const unsigned char *page,
			      unsigned int pos, unsigned int end, struct kmt_rb_step *st)
{
	unsigned int word, at = pos + 4, more;

	if (pos + 4 > end || pos + 4 < pos)
		return 0;
	word = kmt_rb_word(o, page + pos);
	more = at + 4 <= end ? kmt_rb_word(o, page + at) : 0;
	st->type = o.big_endian ? word >> KMT_RB_TS_SHIFT : word & 31;
	st->delta = o.big_endian ? word & KMT_RB_DELTA_MASK : word >> 5;
	switch (st->type) {
	case KMT_RB_TIME_EXTEND:
	case KMT_RB_TIME_STAMP:
		st->delta += (unsigned long long)more << KMT_RB_TS_SHIFT;
		st->next = at + 4;
		return 1;
	case KMT_RB_PADDING:
		st->next = at + more;
		return st->next < at ? -1 : 1;
	case 0:			/* length in the next word, counting itself */
		if (more < 4)
			return -1;
		st->data_len = (more - 4 + 3) & ~3u;
		at += 4;
		break;
	default:
		st->data_len = st->type * 4;
	}
	if (at > end || st->data_len > end - at)
		return -1;
	st->data_at = at;
	st->next = at + st->data_len;
	return 1;
}

/*
 * The time after header @st, @ts being the time before it: an absolute
 * time stamp replaces it (but for the bits it lacks), any other header
 * adds its delta.
 */
static inline unsigned long long kmt_rb_time_after(const struct kmt_rb_step *st,
						   unsigned long long ts)
{
	return st->type == KMT_RB_TIME_STAMP ? st->delta | (ts & KMT_RB_TS_MSB) : ts + st->delta;
}

#endif /* KMT_SUBBUF_H */
