// SPDX-License-Identifier: LGPL-2.1
/*
 * Pages allocated before the recording, from the page_owner snapshot kmtrace
 * record keeps (KMT_TD_OPT_KMT_PAGE_OWNER): each block is held until the
 * trace frees it, or allocates its pfn again (the snapshot, read just after
 * tracing began, saw that allocation, or the block's free was not traced).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageowner.h"
#include "common/util.h"

KMT_OBJMAP_TYPED(owner_block, struct kmt_owner_block)

/* page_owner's own frames on top of every stack, besides the allocator's. */
static const char *const owner_frames[] = { "post_alloc_hook", "prep_new_page", NULL };

/* "stack ID": a new stack whose frames follow, into *@cur. 0, or -1 when out of memory. */
static int take_stack(struct kmt_page_owner *po, const char *line, const char *next,
		      struct kmt_owner_stack **cur)
{
	unsigned long long id;
	uint32_t row;
	bool made;

	if (sscanf(line, "stack %llu", &id) != 1) {
		po->unparsed++;
		return 0;
	}
	row = kmt_hashmap_row(&po->stack_ids, id, &po->stacks, &po->cap_stacks, &po->nstacks,
			      sizeof(*po->stacks), &made);
	if (row == KMT_HASHMAP_NO_ROW)
		return -1;
	po->stacks[row] = (struct kmt_owner_stack){ next, 0 };
	*cur = &po->stacks[row];
	return 0;
}

/* "page PFN ORDER GFP PID TGID TS STACK COMM". 0, or -1 when out of memory. */
static int take_block(struct kmt_page_owner *po, const char *line)
{
	unsigned long long pfn, order, gfp, ts, id;
	uint64_t row;
	long long pid, tgid;
	struct kmt_owner_block b, *slot;
	bool held;

	if (sscanf(line, "page %llu %llu %llx %lld %lld %llu %llu", &pfn, &order, &gfp, &pid,
		   &tgid, &ts, &id) != 7 || order > 31 ||
	    !kmt_hashmap_get(&po->stack_ids, id, &row)) {
		po->unparsed++;
		return 0;
	}
	if (!(slot = owner_block_cell(&po->held, pfn, &held)))
		return -1;
	if (held) {		/* one block per pfn: a repeat is damage */
		po->unparsed++;
		return 0;
	}
	b = (struct kmt_owner_block){ .stack = (uint32_t)row, .order = (uint8_t)order };
	*slot = b;
	po->blocks++;
	po->pages += 1ull << order;
	return 0;
}

int kmt_page_owner_load(struct kmt_page_owner *po, const char *text)
{
	const char *line, *next;
	struct kmt_owner_stack *cur = NULL;

	memset(po, 0, sizeof(*po));
	if (kmt_objmap_init(&po->held, sizeof(struct kmt_owner_block)) ||
	    kmt_hashmap_init(&po->stack_ids))
		return -1;
	if (!text || strncmp(text, "page_owner 1 ", 13))
		return 0;
	po->present = true;
	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		next += *next == '\n';
		if (*line == ' ' && cur) {
			cur->len += next - line;
			continue;
		}
		cur = NULL;
		if (!strncmp(line, "stack ", 6)) {
			if (take_stack(po, line, next, &cur))
				return -1;
		} else if (!strncmp(line, "page ", 5)) {
			if (take_block(po, line))
				return -1;
		} else if (line != text) {
			po->unparsed++;
		}
	}
	return 0;
}

void kmt_page_owner_alloc(struct kmt_page_owner *po, uint64_t pfn)
{
	struct kmt_owner_block b;

	if (po->present && owner_block_take(&po->held, pfn, &b))
		po->again_pages += 1ull << b.order;
}

bool kmt_page_owner_free(struct kmt_page_owner *po, uint64_t pfn)
{
	struct kmt_owner_block b;

	if (!po->present || !owner_block_take(&po->held, pfn, &b))
		return false;
	po->freed_pages += 1ull << b.order;
	return true;
}

/* Pages of the blocks still held. */
static uint64_t held_pages(const struct kmt_page_owner *po)
{
	return po->pages - po->freed_pages - po->again_pages;
}

int kmt_page_owner_summary(const struct kmt_page_owner *po, struct kmt_output *out)
{
	if (!po->present)
		return 0;
	return kmt_output_count(out, "before_listed_pages", "Pages page_owner listed at the start",
				po->pages) ||
	       kmt_output_count(out, "before_listed_blocks", "  in blocks", po->blocks) ||
	       kmt_output_count(out, "before_traced_pages", "  allocated in the trace (read "
				"after their allocation)", po->again_pages) ||
	       kmt_output_count(out, "before_pages", "Pages allocated before the recording",
				po->pages - po->again_pages) ||
	       kmt_output_count(out, "before_freed_pages", "  freed in the trace",
				po->freed_pages) ||
	       kmt_output_count(out, "before_held_pages", "  still held at the end",
				held_pages(po)) ||
	       (po->unparsed && kmt_output_count(out, "before_unparsed",
						 "  page_owner lines not understood", po->unparsed));
}

/* A frame of a page_owner stack: its text (no newline), function name and module. */
struct owner_frame {
	const char *text;
	size_t len, name_len;
	const char *mod;	/* "vmlinux" without "[mod]" */
	size_t mod_len;
};

/* Frame @f of @len bytes, picked apart. */
static struct owner_frame split_frame(const char *f, size_t len)
{
	struct owner_frame fr = { f, len, strcspn(f, "+ \n"), "vmlinux", 7 };
	const char *open = memchr(f, '[', len), *close;

	if (fr.name_len > len)
		fr.name_len = len;
	if (open && (close = memchr(open, ']', len - (open - f))) && close > open + 1) {
		fr.mod = open + 1;
		fr.mod_len = close - open - 1;
	}
	return fr;
}

/* The frame at @p (a " FRAME\n" line of a stack's text). */
static struct owner_frame frame_at(const char *p)
{
	p += strspn(p, " ");
	return split_frame(p, strcspn(p, "\n"));
}

/* @fr as a KMT_KIND_SYMBOL text, "func+0xOFF [mod]" (page_owner's "/0xSIZE" left out). */
static void frame_symbol(const struct owner_frame *fr, char *buf, size_t len)
{
	size_t off = strcspn(fr->text, "/\n ");
	const char *rest = fr->text + off;

	if (off < fr->len && *rest == '/')
		rest += strcspn(rest, " \n");
	snprintf(buf, len, "%.*s%.*s", (int)off, fr->text, (int)(fr->text + fr->len - rest), rest);
}

/* Is @fr an allocator frame, by @s's prefixes or page_owner's own? */
static bool allocator_frame(const struct kmt_stacks *s, const struct owner_frame *fr)
{
	char name[256];
	int i;

	snprintf(name, sizeof(name), "%.*s", (int)fr->name_len, fr->text);
	for (i = 0; owner_frames[i]; i++)
		if (!strcmp(name, owner_frames[i]))
			return true;
	return kmt_stacks_allocator_name(s, name);
}

/* Stack @st as a KMT_KIND_STACK text into @buf: its frames as frame_symbol() gives them. */
static void stack_text(const struct kmt_owner_stack *st, char *buf, size_t len)
{
	const char *p, *end = st->frames + st->len;
	size_t used = 0;

	for (p = st->frames; p < end; p += strcspn(p, "\n") + 1) {
		struct owner_frame fr = frame_at(p);

		if (used + 1 >= len)
			break;
		if (used)
			buf[used++] = '\n';
		frame_symbol(&fr, buf + used, len - used);
		used += strlen(buf + used);
	}
	snprintf(buf + used, len - used, "%s", used ? "" : "(no stack recorded)");
}

/* Stack @st's first frame past the allocator into *@fr; false when it has none. */
static bool stack_caller(const struct kmt_stacks *s, const struct kmt_owner_stack *st,
			 struct owner_frame *fr)
{
	const char *p, *end = st->frames + st->len;

	for (p = st->frames; p < end; p += strcspn(p, "\n") + 1) {
		*fr = frame_at(p);
		if (!allocator_frame(s, fr))
			return true;
	}
	return false;
}

/* The pages and blocks still held of one stack, with its caller, or of one module. */
struct owner_row {
	uint64_t pages, blocks;
	uint32_t key;		/* stack, or module row */
	bool has_caller;
	struct owner_frame caller;
	char *name;		/* module rows */
};

static int most_pages(const void *a, const void *b)
{
	const struct owner_row *x = a, *y = b;

	if (x->pages != y->pages)
		return x->pages < y->pages ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Per stack: pages and blocks still held and the caller, most pages first. NULL: no memory. */
static struct owner_row *rows_per_stack(const struct kmt_page_owner *po,
					const struct kmt_stacks *s)
{
	struct owner_row *rows = calloc(po->nstacks + 1, sizeof(*rows));
	const void *item;
	size_t pos = 0;
	uint64_t pfn;
	uint32_t i;

	if (!rows)
		return NULL;
	for (i = 0; i < po->nstacks; i++) {
		rows[i].key = i;
		rows[i].has_caller = stack_caller(s, &po->stacks[i], &rows[i].caller);
	}
	while (kmt_objmap_next(&po->held, &pos, &pfn, &item)) {
		const struct kmt_owner_block *b = item;

		rows[b->stack].pages += 1ull << b->order;
		rows[b->stack].blocks++;
	}
	qsort(rows, po->nstacks, sizeof(*rows), most_pages);
	return rows;
}

/* The module of stack row @r's caller ("vmlinux" without one) into @buf. */
static const char *caller_module(const struct owner_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", r->has_caller ? (int)r->caller.mod_len : 7,
		 r->has_caller ? r->caller.mod : "vmlinux");
	return buf;
}

static int stack_table(const struct kmt_page_owner *po, const char *name,
		       const struct owner_row *rows, long long lines, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "pages", "PAGES", KMT_KIND_COUNT }, { "blocks", "BLOCKS", KMT_KIND_COUNT },
		{ "caller", "CALLER", KMT_KIND_SYMBOL }, { "module", "MODULE", KMT_KIND_STRING },
		{ "stack", "STACK", KMT_KIND_STACK },
	};
	struct kmt_table *t = kmt_output_table(out, name, "Pages allocated before the recording "
					       "and held at its end (page_owner), per stack", 5, cols);
	char *stack = malloc(KMT_STACK_TEXT_MAX), caller[512], mod[128];
	uint32_t i;
	int ret = t && stack ? 0 : -1;

	for (i = 0; !ret && i < po->nstacks && rows[i].blocks && (lines < 0 || i < lines); i++) {
		const struct owner_row *r = &rows[i];
		union kmt_cell row[5] = { { .u = r->pages }, { .u = r->blocks }, { .s = caller },
					  { .s = caller_module(r, mod, sizeof(mod)) },
					  { .s = stack } };

		if (r->has_caller)
			frame_symbol(&r->caller, caller, sizeof(caller));
		else
			snprintf(caller, sizeof(caller), "(allocator frames only)");
		stack_text(&po->stacks[r->key], stack, KMT_STACK_TEXT_MAX);
		ret = kmt_table_row(t, row);
	}
	free(stack);
	return ret;
}

/* The stack @rows summed per caller's module into *@mods, *@n of them, most pages first. 0, or -1. */
static int rows_per_module(const struct kmt_page_owner *po, const struct owner_row *rows,
			   struct owner_row **mods, uint32_t *n)
{
	struct kmt_hashmap index;
	uint32_t i, j, cap = 0;
	char mod[128];
	uint64_t key;
	int ret = kmt_hashmap_init(&index);

	*mods = NULL;
	*n = 0;
	for (i = 0; !ret && i < po->nstacks && rows[i].blocks; i++) {
		caller_module(&rows[i], mod, sizeof(mod));
		j = kmt_hashmap_name_row(&index, mod, *mods, sizeof(**mods),
					 offsetof(struct owner_row, name), &key);
		if (j == KMT_HASHMAP_NO_ROW) {
			if (kmt_grow(mods, &cap, *n, sizeof(**mods)) ||
			    kmt_hashmap_put(&index, key, *n) ||
			    !((*mods)[*n] = (struct owner_row){ .key = *n, .name = strdup(mod) }).name) {
				ret = -1;
				break;
			}
			j = (*n)++;
		}
		(*mods)[j].pages += rows[i].pages;
		(*mods)[j].blocks += rows[i].blocks;
	}
	kmt_hashmap_free(&index);
	if (!ret)
		qsort(*mods, *n, sizeof(**mods), most_pages);
	return ret;
}

static int module_table(const struct kmt_page_owner *po, const char *name,
			const struct owner_row *rows, long long lines, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "module", "MODULE", KMT_KIND_STRING }, { "pages", "PAGES", KMT_KIND_COUNT },
		{ "blocks", "BLOCKS", KMT_KIND_COUNT },
	};
	struct kmt_table *t = kmt_output_table(out, name, "Pages allocated before the recording "
					       "and held at its end (page_owner), per module of "
					       "the caller", 3, cols);
	struct owner_row *mods = NULL;
	uint32_t n = 0, i;
	int ret = t ? rows_per_module(po, rows, &mods, &n) : -1;

	for (i = 0; !ret && i < n && (lines < 0 || i < lines); i++) {
		union kmt_cell row[3] = { { .s = mods[i].name }, { .u = mods[i].pages },
					  { .u = mods[i].blocks } };

		ret = kmt_table_row(t, row);
	}
	for (i = 0; i < n; i++)
		free(mods[i].name);
	free(mods);
	return ret;
}

int kmt_page_owner_tables(const struct kmt_page_owner *po, const struct kmt_stacks *s,
			  const char *prefix, long long lines, struct kmt_output *out)
{
	struct owner_row *rows;
	char name[64];
	int ret;

	if (!po->present)
		return 0;
	if (!(rows = rows_per_stack(po, s)))
		return -1;
	ret = stack_table(po, prefix, rows, lines, out);
	snprintf(name, sizeof(name), "%s_modules", prefix);
	if (!ret)
		ret = module_table(po, name, rows, lines, out);
	free(rows);
	return ret;
}

void kmt_page_owner_release(struct kmt_page_owner *po)
{
	kmt_objmap_free(&po->held);
	kmt_hashmap_free(&po->stack_ids);
	free(po->stacks);
}
