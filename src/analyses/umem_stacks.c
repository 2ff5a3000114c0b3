// SPDX-License-Identifier: LGPL-2.1
/*
 * umem's stacks: the user stacks record --user-sample takes with each
 * sampled allocation, one row per process and stack with the calls, bytes
 * and live objects it stands for, shown innermost frame first (folded
 * stacks and the HTML icicle take the bytes).
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "stacks.h"
#include "umem.h"
#include "common/util.h"

#define SYM_MAX		512

/* One key for @tgid's stack of @ev's frames. */
static uint64_t stack_key(int tgid, const struct kmt_event *ev)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint32_t)tgid;
	int i;

	for (i = 0; i < ev->str_len / 8; i++) {
		h ^= kmt_event_user_frame(ev, i);
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

static bool same_stack(const struct umem_stack *s, int tgid, const struct kmt_event *ev)
{
	uint32_t i;

	if (s->tgid != tgid || s->nframes != (uint32_t)(ev->str_len / 8))
		return false;
	for (i = 0; i < s->nframes; i++)
		if (s->frames[i] != kmt_event_user_frame(ev, i))
			return false;
	return true;
}

static uint32_t make_stack(struct umem_state *st, int tgid, const struct kmt_event *ev)
{
	struct umem_stack *s;
	uint32_t i;

	if (kmt_grow(&st->stacks, &st->cap_stacks, st->nstacks, sizeof(*st->stacks)))
		return UINT32_MAX;
	s = &st->stacks[st->nstacks];
	*s = (struct umem_stack){ .tgid = tgid, .nframes = ev->str_len / 8 };
	s->frames = malloc(s->nframes * sizeof(*s->frames));
	if (!s->frames)
		return UINT32_MAX;
	for (i = 0; i < s->nframes; i++)
		s->frames[i] = kmt_event_user_frame(ev, i);
	return st->nstacks++;
}

uint32_t kmt_umem_stack_row(struct umem_state *st, int tgid, const struct kmt_event *ev)
{
	uint64_t key = stack_key(tgid, ev), idx;
	uint32_t row;

	/* another stack under the same key: the next key */
	for (; kmt_hashmap_find(&st->stack_of, key, &idx); key++)
		if (same_stack(&st->stacks[idx], tgid, ev))
			return (uint32_t)idx;
	row = make_stack(st, tgid, ev);
	return row == UINT32_MAX || kmt_hashmap_put(&st->stack_of, key, row) ? UINT32_MAX : row;
}

void kmt_umem_stacks_free(struct umem_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nstacks; i++)
		free(st->stacks[i].frames);
	free(st->stacks);
	st->stacks = NULL;
	st->nstacks = st->cap_stacks = 0;
	kmt_hashmap_free(&st->stack_of);
}

/* @s's frames named, innermost first, one a line, into @text of @len bytes. */
static void stack_text(const struct umem_state *st, const struct umem_stack *s, char *text,
		       size_t len)
{
	size_t used = 0;
	uint32_t i;

	text[0] = '\0';
	for (i = 0; i < s->nframes && used + 2 < len; i++) {
		char sym[SYM_MAX];

		if (st->session)
			kmt_session_user_symbol(st->session, s->tgid, s->frames[i], sym, sizeof(sym));
		else
			snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)s->frames[i]);
		used += snprintf(text + used, len - used, "%s%s", i ? "\n" : "", sym);
	}
}

static int by_bytes(uint32_t a, uint32_t b, void *ctx)
{
	const struct umem_stack *x = &((const struct umem_stack *)ctx)[a];
	const struct umem_stack *y = &((const struct umem_stack *)ctx)[b];

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return a < b ? -1 : a > b;
}

static const struct kmt_column stack_cols[] = {
	{ "pid", "PID", KMT_KIND_COUNT }, { "stack", "STACK", KMT_KIND_STACK },
	{ "calls", "CALLS", KMT_KIND_COUNT }, { "bytes", "BYTES", KMT_KIND_BYTES },
	{ "live_bytes", "LIVE", KMT_KIND_BYTES }, { "live_objects", "LIVE_OBJS", KMT_KIND_COUNT },
};

/* Does any stack say more than its caller (a frame beyond the first)? */
static bool deeper_than_callers(const struct umem_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nstacks; i++)
		if (st->stacks[i].nframes > 1)
			return true;
	return false;
}

int kmt_umem_stack_table(const struct umem_state *st, struct kmt_output *out)
{
	struct kmt_table *t;
	uint32_t *idx, i;
	char *text;
	int ret;

	if (!deeper_than_callers(st))	/* none, or LTTng's ip only: the callers table */
		return 0;
	t = kmt_output_table(out, "stacks", "Per user stack (sampled allocations; bytes allocated "
			     "in folded stacks)", 6, stack_cols);
	idx = kmt_sorted_index(st->nstacks, by_bytes, st->stacks);
	text = malloc(KMT_STACK_TEXT_MAX);
	ret = t && idx && text ? 0 : -1;
	if (t)
		kmt_table_weight(t, 3);
	for (i = 0; !ret && i < st->nstacks && (st->lines < 0 || i < (uint32_t)st->lines); i++) {
		const struct umem_stack *s = &st->stacks[idx[i]];

		stack_text(st, s, text, KMT_STACK_TEXT_MAX);
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .u = s->tgid }, { .s = text }, { .u = s->calls }, { .u = s->bytes },
			{ .u = s->live_bytes }, { .u = s->live_objs } });
	}
	free(text);
	free(idx);
	return ret;
}
