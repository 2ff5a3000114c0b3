// SPDX-License-Identifier: LGPL-2.1
/* Rows of exited tasks, kept while they can still make a table's first rows. */
#include <stdlib.h>
#include <string.h>
#include "exited.h"

void kmt_exited_init(struct kmt_exited *e, long long lines, const struct kmt_exited_ops *ops,
		     void *ctx)
{
	memset(e, 0, sizeof(*e));
	e->lines = lines > 0 ? (uint64_t)lines : 0;
	e->ops = ops;
	e->ctx = ctx;
}

void kmt_exited_free(struct kmt_exited *e)
{
	free(e->wait);
	free(e->kept);
	free(e->spare);
	memset(e, 0, sizeof(*e));
}

/* The ring twice as large, its waiting rows from the start, in order. */
static int grow_wait(struct kmt_exited *e)
{
	uint32_t cap = e->wait_cap ? e->wait_cap * 2 : 64, i;
	struct kmt_exited_wait *w;

	if (cap < e->wait_cap || !(w = malloc((size_t)cap * sizeof(*w))))
		return -1;
	for (i = 0; i < e->nwait; i++)
		w[i] = e->wait[(e->head + i) % e->wait_cap];
	free(e->wait);
	e->wait = w;
	e->wait_cap = cap;
	e->head = 0;
	return 0;
}

int kmt_exited_add(struct kmt_exited *e, uint32_t row, uint64_t ts)
{
	if (e->nwait == e->wait_cap && grow_wait(e))
		return -1;
	e->wait[(e->head + e->nwait) % e->wait_cap] = (struct kmt_exited_wait){
		.due = ts + KMT_EXITED_GRACE_NS, .row = row };
	e->nwait++;
	return 0;
}

/* True if row @a ranks below row @b. */
static bool below(const struct kmt_exited *e, uint32_t a, uint32_t b)
{
	return e->ops->rank(a, b, e->ctx) > 0;
}

/* Move the kept row at @i up while it ranks below its parent. */
static void sift_up(struct kmt_exited *e, uint32_t i)
{
	while (i && below(e, e->kept[i], e->kept[(i - 1) / 2])) {
		uint32_t parent = (i - 1) / 2, t = e->kept[i];

		e->kept[i] = e->kept[parent];
		e->kept[parent] = t;
		i = parent;
	}
}

/* Move the kept row at the top down while a child ranks below it. */
static void sift_down(struct kmt_exited *e)
{
	uint32_t i = 0;

	for (;;) {
		uint32_t low = i, l = 2 * i + 1, r = l + 1, t;

		if (l < e->nkept && below(e, e->kept[l], e->kept[low]))
			low = l;
		if (r < e->nkept && below(e, e->kept[r], e->kept[low]))
			low = r;
		if (low == i)
			return;
		t = e->kept[i];
		e->kept[i] = e->kept[low];
		e->kept[low] = t;
		i = low;
	}
}

int kmt_exited_settle(struct kmt_exited *e, uint32_t row, uint32_t *gone)
{
	if (e->nkept < e->lines) {
		if (kmt_grow(&e->kept, &e->kept_cap, e->nkept, sizeof(*e->kept)))
			return -1;
		e->kept[e->nkept] = row;
		sift_up(e, e->nkept++);
		return 0;
	}
	if (!e->nkept || !below(e, e->kept[0], row)) {
		*gone = row;	/* the table's last shown row already ranks above it */
		return 1;
	}
	*gone = e->kept[0];
	e->kept[0] = row;
	sift_down(e);
	return 1;
}

int kmt_exited_give(struct kmt_exited *e, uint32_t row)
{
	if (kmt_grow(&e->spare, &e->spare_cap, e->nspare, sizeof(*e->spare)))
		return -1;
	e->spare[e->nspare++] = row;
	return 0;
}

int kmt_exited_final(struct kmt_exited *e, uint32_t row)
{
	uint32_t gone;
	int ret = kmt_exited_settle(e, row, &gone);

	return ret < 0 || (ret && e->ops->drop(e->ctx, gone)) ? -1 : 0;
}

int kmt_exited_until(struct kmt_exited *e, uint64_t now)
{
	uint32_t row;

	while (kmt_exited_due(e, now, &row)) {
		e->ops->detach(e->ctx, row);
		if (kmt_exited_final(e, row))
			return -1;
	}
	return 0;
}
