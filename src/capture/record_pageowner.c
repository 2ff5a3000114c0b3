// SPDX-License-Identifier: LGPL-2.1
/*
 * record: the kernel's page_owner file (debugfs, on a kernel built with
 * CONFIG_PAGE_OWNER and booted with page_owner=on) read once tracing is on,
 * so that pages allocated before the recording have an owner in the report.
 * The text is kept compact, as KMT_TD_OPT_KMT_PAGE_OWNER describes: each
 * distinct stack once, then a line per allocated block.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_local.h"
#include "common/hashmap.h"
#include "common/util.h"

#define OWNER_READ_SIZE	65536	/* print_page_owner() writes at most a page */

/* One record of page_owner: its first line's figures, its PFN, its stack. */
struct owner_block {
	unsigned long long pfn, order, gfp, ts;
	long long pid, tgid;
	char comm[32];
	bool have_pfn;
	char *stack;		/* frames, each ending in '\n' */
	uint32_t stack_len, stack_cap;
};

struct owner_stack {
	char *text;
};

/* The snapshot being written: stacks already given an id, the output, its figures. */
struct owner_writer {
	FILE *out;
	struct kmt_hashmap index;	/* hash of stack text -> stacks[] */
	struct owner_stack *stacks;
	uint32_t nstacks, cap;
	unsigned long long blocks, pages;
};

/* The debugfs mount point (/proc/mounts), or NULL when debugfs is not mounted. */
static char *debugfs_dir(void)
{
	FILE *fp = fopen("/proc/mounts", "re");
	char dev[256], dir[4096], type[64];
	char *found = NULL;

	if (!fp)
		return NULL;
	while (!found && fscanf(fp, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "debugfs"))
			found = strdup(dir);
	fclose(fp);
	return found;
}

/* The number after @key in @line into *@v (any base strtoull takes); false when absent. */
static bool number_after(const char *line, const char *key, unsigned long long *v)
{
	const char *p = strstr(line, key);
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	errno = 0;
	*v = strtoull(p, &end, 0);
	return end != p && !errno;
}

/*
 * "Page allocated via order O, mask 0xG(...), pid P[, tgid T (COMM)], ts N ns..."
 * (5.10 has no tgid and comm; they are -1 and "" then).
 */
static bool parse_head(const char *line, struct owner_block *b)
{
	unsigned long long v;
	const char *comm;

	if (strncmp(line, "Page allocated via order ", 25))
		return false;
	if (!number_after(line, "order ", &b->order) || !number_after(line, "mask ", &b->gfp))
		return false;
	b->pid = number_after(line, ", pid ", &v) ? (long long)v : -1;
	b->tgid = number_after(line, ", tgid ", &v) ? (long long)v : -1;
	if (!number_after(line, ", ts ", &b->ts))
		b->ts = 0;
	b->comm[0] = '\0';
	if ((comm = strstr(line, ", tgid ")) && (comm = strchr(comm, '('))) {
		size_t len = strcspn(comm + 1, ")");

		if (len >= sizeof(b->comm))
			len = sizeof(b->comm) - 1;
		memcpy(b->comm, comm + 1, len);
		b->comm[len] = '\0';
	}
	for (char *c = b->comm; *c; c++)	/* one word of the line, never empty */
		if (*c == ' ' || *c == '\n')
			*c = '_';
	return true;
}

/* A frame line (" func+0x1/0x2 [mod]") onto @b's stack; 0, or -1 when out of memory. */
static int add_frame(struct owner_block *b, const char *line)
{
	size_t len;

	while (*line == ' ' || *line == '\t')
		line++;
	len = strcspn(line, "\n");
	if (!len)
		return 0;
	if (kmt_grow(&b->stack, &b->stack_cap, b->stack_len + len + 1, 1))
		return -1;	/* room for the frame, its newline and a NUL */
	memcpy(b->stack + b->stack_len, line, len);
	b->stack_len += len;
	b->stack[b->stack_len++] = '\n';
	b->stack[b->stack_len] = '\0';
	return 0;
}

/* The id of @b's stack, written out when new. -1 when out of memory or the write failed. */
static long long stack_id(struct owner_writer *w, const struct owner_block *b)
{
	const char *text = b->stack_len ? b->stack : "";
	uint64_t key;
	uint32_t row = kmt_hashmap_name_row(&w->index, text, w->stacks, sizeof(*w->stacks),
					    offsetof(struct owner_stack, text), &key);

	if (row != KMT_HASHMAP_NO_ROW)
		return row;
	if (kmt_grow(&w->stacks, &w->cap, w->nstacks, sizeof(*w->stacks)) ||
	    !(w->stacks[w->nstacks].text = strdup(text)))
		return -1;
	if (kmt_hashmap_put(&w->index, key, w->nstacks)) {
		free(w->stacks[w->nstacks].text);
		return -1;
	}
	if (fprintf(w->out, "stack %" PRIu32 "\n", w->nstacks) < 0)
		return -1;
	for (const char *f = text; *f; f += strcspn(f, "\n") + 1)
		if (fprintf(w->out, " %.*s\n", (int)strcspn(f, "\n"), f) < 0)
			return -1;
	return w->nstacks++;
}

/* A whole record: its line. 0, or -1 when out of memory or the write failed. */
static int write_block(struct owner_writer *w, struct owner_block *b)
{
	long long id;

	if (!b->have_pfn)
		return 0;	/* no PFN line: nothing to place it at */
	if ((id = stack_id(w, b)) < 0)
		return -1;
	if (fprintf(w->out, "page %llu %llu %#llx %lld %lld %llu %lld %s\n", b->pfn, b->order,
		    b->gfp, b->pid, b->tgid, b->ts, id, b->comm[0] ? b->comm : "-") < 0)
		return -1;
	w->blocks++;
	w->pages += b->order < 63 ? 1ull << b->order : 0;
	return 0;
}

/* One line of page_owner's text into the record in progress @b. 0, or -1. */
static int take_line(struct owner_writer *w, struct owner_block *b, const char *line)
{
	if (parse_head(line, b)) {
		b->have_pfn = false;
		b->stack_len = 0;
		return 0;
	}
	if (!strncmp(line, "PFN ", 4)) {
		b->have_pfn = number_after(line, "PFN ", &b->pfn);
		return 0;
	}
	if (*line == ' ' || *line == '\t')
		return add_frame(b, line);
	if (*line == '\n' || !*line) {	/* a record ends with an empty line */
		int ret = write_block(w, b);

		b->have_pfn = false;
		return ret;
	}
	return 0;	/* migration, memcg and other lines */
}

/* Read all of @in into @w; 0, or -1 with errno. */
static int copy_snapshot(struct owner_writer *w, FILE *in)
{
	struct owner_block b = { .have_pfn = false };
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	errno = 0;
	while (!ret && getline(&line, &cap, in) >= 0)
		ret = take_line(w, &b, line);
	if (!ret && ferror(in))
		ret = -1;
	if (!ret)
		ret = write_block(w, &b);	/* a last record without its empty line */
	free(line);
	free(b.stack);
	return ret;
}

static void free_writer(struct owner_writer *w)
{
	for (uint32_t i = 0; i < w->nstacks; i++)
		free(w->stacks[i].text);
	free(w->stacks);
	kmt_hashmap_free(&w->index);
}

int kmt_page_owner_compact(FILE *in, const char *path, FILE *out, unsigned long long *blocks,
			   unsigned long long *pages)
{
	struct owner_writer w = { .out = out };
	int ret = -1;

	if (!kmt_hashmap_init(&w.index) && fprintf(out, "page_owner 1 %s\n", path) >= 0 &&
	    !copy_snapshot(&w, in) && !fflush(out)) {
		*blocks = w.blocks;
		*pages = w.pages;
		ret = 0;
	}
	free_writer(&w);
	return ret;
}

/* Write the snapshot of @path into a temporary file, its descriptor and size into @r. */
static int take_snapshot(struct recorder *r, const char *path)
{
	FILE *in = fopen(path, "re"), *out = NULL;
	int fd = -1, ret = -1;
	long size;

	if (!in)	/* not enabled (page_owner=off refuses it), or not ours to read */
		return 0;
	/* each read gives one whole block or fails: room for a block of 64 KiB pages */
	if (setvbuf(in, NULL, _IOFBF, OWNER_READ_SIZE) ||
	    (fd = kmt_temp_fd(r->dest.dir)) < 0 || !(out = fdopen(fd, "w+")))
		goto out;
	fd = -1;
	if (kmt_page_owner_compact(in, path, out, &r->page_owner_blocks, &r->page_owner_pages) ||
	    (size = ftell(out)) < 0)
		goto out;
	if ((unsigned long long)size > UINT32_MAX) {
		errno = 0;
		kmt_record_fail(r, "%s: %ld bytes kept, more than a trace.dat option holds (give "
				"--no-page-owner)", path, size);
		ret = -2;
	} else if ((r->page_owner_fd = dup(fileno(out))) >= 0) {
		r->page_owner_size = (unsigned int)size;
		ret = 0;
	}
out:
	if (ret == -1)
		kmt_record_fail(r, "cannot keep %s in a temporary file in %s", path, r->dest.dir);
	if (out)
		fclose(out);
	if (fd >= 0)
		close(fd);
	fclose(in);
	return ret ? -1 : 0;
}

int kmt_page_owner_snapshot(struct recorder *r)
{
	char *dir, path[4200];

	if (r->o->no_page_owner || r->o->extract || !r->o->output)
		return 0;	/* not asked, not this recording's start, or nothing written */
	if (!(dir = debugfs_dir()))
		return 0;
	snprintf(path, sizeof(path), "%s/page_owner", dir);
	free(dir);
	if (access(path, F_OK))
		return 0;
	return take_snapshot(r, path);
}
