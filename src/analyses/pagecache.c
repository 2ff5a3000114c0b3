// SPDX-License-Identifier: LGPL-2.1
/*
 * pagecache: pages added to and removed from the page cache per file
 * (device and inode), the file faults and reads that asked for them, and
 * the adds and removes over time.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "filter.h"
#include "common/hashmap.h"
#include "common/proctable.h"
#include "common/util.h"

#define PC_TOP_DEFAULT		20
#define PC_INTERVAL_DEFAULT	1000000000ull

struct pc_file {
	uint64_t dev, ino;
	uint64_t added, removed;	/* pages */
	uint64_t faults, reads, maps, wb_errors;
};

struct pc_bucket {
	uint64_t start, added, removed;
};

struct pc_state {
	struct kmt_filter filter;
	struct kmt_hashmap files_by_key;
	struct pc_file *files;
	uint32_t nfiles, files_cap;
	struct pc_bucket *buckets;
	uint32_t nbuckets, buckets_cap;
	uint64_t interval;
	long long top;
	struct kmt_filetable *names;	/* the recording's files by (dev, ino), or NULL */
};

static void pc_free(void *priv)
{
	struct pc_state *st = priv;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->files_by_key);
	free(st->files);
	free(st->buckets);
	kmt_filetable_free(st->names);
	free(st);
}

static void *pc_init(void)
{
	struct pc_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->interval = PC_INTERVAL_DEFAULT;
	st->top = PC_TOP_DEFAULT;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->files_by_key)) {
		pc_free(st);
		return NULL;
	}
	return st;
}

static struct kmt_filter *pc_filter(void *priv)
{
	return &((struct pc_state *)priv)->filter;
}

static int pc_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	struct pc_state *st = priv;

	switch (key) {
	case 'l':
		return kmt_parse_count(arg, "-l", &st->top, err);
	case 'T':
		return kmt_parse_interval_ms(arg, &st->interval, err);
	default:
		kmt_error_set(err, NULL, -1, "unknown option");
		return -1;
	}
}

static int pc_start(void *priv, const struct kmt_session *s)
{
	struct pc_state *st = priv;

	const char *text = s ? kmt_reader_text(s->reader, KMT_TEXT_FILES) : NULL;

	if (s)
		st->filter.reader = s->reader;
	if (text && (!(st->names = kmt_filetable_new()) ||
		     kmt_filetable_parse(st->names, text, strlen(text))))
		return -1;
	return 0;
}

/* The kernel's dev_t: 12 bits of major above 20 of minor. */
static uint64_t file_key(uint64_t dev, uint64_t ino)
{
	return kmt_hash_words((uint64_t[]){ dev, ino }, 2);
}

static struct pc_file *file_of(struct pc_state *st, const struct kmt_event *ev)
{
	uint64_t key = file_key(ev->pagecache.dev, ev->pagecache.ino), i;

	/* a hash collision of two files is told apart by a probe of the next keys */
	while (kmt_hashmap_get(&st->files_by_key, key, &i)) {
		if (st->files[i].dev == ev->pagecache.dev && st->files[i].ino == ev->pagecache.ino)
			return &st->files[i];
		key++;
	}
	if (kmt_grow(&st->files, &st->files_cap, st->nfiles, sizeof(*st->files)) ||
	    kmt_hashmap_put(&st->files_by_key, key, st->nfiles))
		return NULL;
	st->files[st->nfiles] = (struct pc_file){ .dev = ev->pagecache.dev, .ino = ev->pagecache.ino };
	return &st->files[st->nfiles++];
}

static struct pc_bucket *bucket_of(struct pc_state *st, uint64_t ts)
{
	struct pc_bucket *last = st->nbuckets ? &st->buckets[st->nbuckets - 1] : NULL;

	if (last && ts < last->start + st->interval)
		return last;
	if (kmt_grow(&st->buckets, &st->buckets_cap, st->nbuckets, sizeof(*st->buckets)))
		return NULL;
	st->buckets[st->nbuckets] = (struct pc_bucket){
		.start = last ? kmt_boundary_after(last->start, ts, st->interval) : ts,
	};
	return &st->buckets[st->nbuckets++];
}

static int pc_event(void *priv, const struct kmt_event *ev)
{
	struct pc_state *st = priv;
	uint64_t pages = ev->order < 32 ? 1ull << ev->order : 0;
	bool adds_or_removes = ev->type == KMT_EV_PAGECACHE_ADD ||
			       ev->type == KMT_EV_PAGECACHE_DELETE;
	struct pc_file *f;
	struct pc_bucket *b = NULL;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	f = file_of(st, ev);
	if (adds_or_removes)
		b = bucket_of(st, ev->ts);
	if (!f || (adds_or_removes && !b))
		return -1;
	switch (ev->type) {
	case KMT_EV_PAGECACHE_ADD:
		f->added += pages;
		b->added += pages;
		break;
	case KMT_EV_PAGECACHE_DELETE:
		f->removed += pages;
		b->removed += pages;
		break;
	case KMT_EV_FILEMAP_FAULT:
		f->faults++;
		break;
	case KMT_EV_FILEMAP_GET_PAGES:
		f->reads++;
		break;
	case KMT_EV_FILEMAP_MAP_PAGES:
		f->maps++;
		break;
	case KMT_EV_FILEMAP_SET_WB_ERR:
		f->wb_errors++;
		break;
	default:
		break;
	}
	return 0;
}

static int by_added(uint32_t a, uint32_t b, void *ctx)
{
	const struct pc_file *x = (const struct pc_file *)ctx + a;
	const struct pc_file *y = (const struct pc_file *)ctx + b;

	if (x->added + x->removed != y->added + y->removed)
		return x->added + x->removed < y->added + y->removed ? 1 : -1;
	if (x->faults + x->reads != y->faults + y->reads)
		return x->faults + x->reads < y->faults + y->reads ? 1 : -1;
	return a < b ? -1 : a > b;
}

static const struct kmt_column file_cols[] = {
	{ "device", "DEVICE", KMT_KIND_STRING }, { "inode", "INODE", KMT_KIND_COUNT },
	{ "added", "ADDED", KMT_KIND_COUNT }, { "removed", "REMOVED", KMT_KIND_COUNT },
	{ "net", "NET", KMT_KIND_SIGNED }, { "faults", "FAULTS", KMT_KIND_COUNT },
	{ "reads", "READS", KMT_KIND_COUNT }, { "map_pages", "MAP_PAGES", KMT_KIND_COUNT },
	{ "wb_errors", "WB_ERRORS", KMT_KIND_COUNT }, { "path", "PATH", KMT_KIND_STRING },
};

static int report_files(struct pc_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "files", "By file, most pages added and "
					       "removed first (pages)", 10, file_cols);
	uint32_t *idx = t ? kmt_sorted_index(st->nfiles, by_added, st->files) : NULL;
	uint32_t i;
	int ret = 0;

	if (!idx)
		return -1;
	for (i = 0; i < st->nfiles && (st->top <= 0 || i < st->top) && !ret; i++) {
		const struct pc_file *f = &st->files[idx[i]];
		const char *path = st->names ? kmt_filetable_find(st->names, f->dev, f->ino) : NULL;
		char dev[32];

		snprintf(dev, sizeof(dev), "%llu:%llu", (unsigned long long)(f->dev >> 20),
			 (unsigned long long)(f->dev & 0xfffff));
		ret = kmt_table_row(t, (union kmt_cell[]){
			{ .s = dev }, { .u = f->ino }, { .u = f->added }, { .u = f->removed },
			{ .i = (long long)(f->added - f->removed) }, { .u = f->faults },
			{ .u = f->reads }, { .u = f->maps }, { .u = f->wb_errors },
			{ .s = path ? path : "" } });
	}
	free(idx);
	return ret;
}

static const struct kmt_column bucket_cols[] = {
	{ "start", "START", KMT_KIND_NS }, { "added", "ADDED", KMT_KIND_COUNT },
	{ "removed", "REMOVED", KMT_KIND_COUNT }, { "net", "NET", KMT_KIND_SIGNED },
};

static int report_timeline(const struct pc_state *st, struct kmt_output *out)
{
	struct kmt_table *t = kmt_output_table(out, "timeline", "Over time (pages)", 4,
					       bucket_cols);
	uint32_t i;

	for (i = 0; t && i < st->nbuckets; i++) {
		const struct pc_bucket *b = &st->buckets[i];

		if (kmt_table_row(t, (union kmt_cell[]){ { .u = b->start }, { .u = b->added },
							  { .u = b->removed },
							  { .i = (long long)(b->added - b->removed) } }))
			return -1;
	}
	return t ? 0 : -1;
}

static int pc_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct pc_state *st = priv;
	uint64_t added = 0, removed = 0;
	uint32_t i;

	(void)s;
	for (i = 0; i < st->nfiles; i++) {
		added += st->files[i].added;
		removed += st->files[i].removed;
	}
	if (kmt_output_count(out, "files", "Files", st->nfiles) ||
	    kmt_output_count(out, "added", "Pages added to the page cache", added) ||
	    kmt_output_count(out, "removed", "Pages removed from it", removed) ||
	    report_files(st, out) || report_timeline(st, out))
		return -1;
	return 0;
}

static const struct option pc_longopts[] = {
	{ "interval", required_argument, NULL, 'T' },
	{ NULL, 0, NULL, 0 }
};

static const struct kmt_need pc_needs[] = {
	{ KMT_EVMASK(KMT_EV_PAGECACHE_ADD), "pages added (record -e filemap)" },
	{ KMT_EVMASK(KMT_EV_PAGECACHE_DELETE), "pages removed" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_pagecache = {
	.name = "pagecache",
	.help = "page cache: pages added and removed per file, faults and reads, over time",
	.usage = "  -l N                the N files with most pages (default 20, 0: all)\n"
		 "  --interval MS       the timeline's interval (default 1000)\n",
	.shortopts = "l:",
	.longopts = pc_longopts,
	.needs = pc_needs,
	.events = KMT_EVMASK(KMT_EV_PAGECACHE_ADD) | KMT_EVMASK(KMT_EV_PAGECACHE_DELETE) |
		  KMT_EVMASK(KMT_EV_FILEMAP_FAULT) | KMT_EVMASK(KMT_EV_FILEMAP_GET_PAGES) |
		  KMT_EVMASK(KMT_EV_FILEMAP_MAP_PAGES) | KMT_EVMASK(KMT_EV_FILEMAP_SET_WB_ERR) |
		  KMT_EVMASK(KMT_EV_FILEMAP_CHECK_WB_ERR),
	.reader_thread_ok = true,
	.init = pc_init,
	.filter = pc_filter,
	.option = pc_option,
	.start = pc_start,
	.event = pc_event,
	.report = pc_report,
	.free = pc_free,
};
