// SPDX-License-Identifier: LGPL-2.1
/*
 * User-space addresses of a record --user recording: which process a
 * thread belongs to and which function of which file holds an address,
 * from the "task" and "map" lines the recording carries
 * (KMT_TEXT_USER_MAPS) and the ELF symbols of the mapped files, read from
 * this machine's file system when first needed (off-box: the same paths
 * must hold the same files, else addresses stay "file+0xOFFSET"; a file
 * whose build-id is not the one its "buildid" line gives is not used).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_local.h"
#include "common/hashmap.h"
#include "common/util.h"
#include "container/elfsyms.h"

struct umap {
	int tgid;
	unsigned long long start, end, pgoff;
	uint32_t file;		/* index in files */
};

struct ufile {
	char *path;
	char build_id[KMT_BUILD_ID_HEX];	/* the recording's, or "" */
	struct kmt_elfsyms syms;
	bool tried, loaded, changed;
};

struct kmt_reader_usyms {
	struct kmt_hashmap tgid_of;	/* tid -> tgid */
	struct umap *maps;		/* by tgid, then start */
	uint32_t nmaps, cap_maps;
	struct ufile *files;
	uint32_t nfiles, cap_files;
	size_t changed;			/* files whose build-id is not the recording's */
	const char *first_changed;
};

static int by_tgid_start(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint32_t file_index(struct kmt_reader_usyms *u, const char *path)
{
	uint32_t i;

	for (i = 0; i < u->nfiles; i++)
		if (!strcmp(u->files[i].path, path))
			return i;
	if (kmt_grow(&u->files, &u->cap_files, u->nfiles, sizeof(*u->files)))
		return UINT32_MAX;
	u->files[u->nfiles] = (struct ufile){ .path = strdup(path) };
	return u->files[u->nfiles].path ? u->nfiles++ : UINT32_MAX;
}

static void take_line(struct kmt_reader_usyms *u, const char *line, size_t len)
{
	char buf[4352], path[4096], hex[KMT_BUILD_ID_HEX];
	struct umap m;
	uint32_t f;
	int tid, tgid;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (sscanf(buf, "task %d %d", &tid, &tgid) == 2 && tid > 0 && tgid > 0) {
		kmt_hashmap_put(&u->tgid_of, tid, tgid);
	} else if (sscanf(buf, "buildid %40[0-9a-f] %4095[^\n]", hex, path) == 2 &&
		   (f = file_index(u, path)) != UINT32_MAX) {
		snprintf(u->files[f].build_id, sizeof(u->files[f].build_id), "%s", hex);
	} else if (sscanf(buf, "map %d %llx %llx %llx %4095[^\n]", &m.tgid, &m.start, &m.end,
			  &m.pgoff, path) == 5 && m.start < m.end &&
		   !kmt_grow(&u->maps, &u->cap_maps, u->nmaps, sizeof(*u->maps)) &&
		   (m.file = file_index(u, path)) != UINT32_MAX) {
		u->maps[u->nmaps++] = m;
	}
}

/* Read the recording's lines once; NULL when it has none or memory ran out. */
static struct kmt_reader_usyms *usyms(struct kmt_reader *r)
{
	const char *text = r->texts[KMT_TEXT_USER_MAPS], *p;
	struct kmt_reader_usyms *u;

	if (r->usyms || !text)
		return r->usyms;
	u = calloc(1, sizeof(*u));
	if (!u || kmt_hashmap_init(&u->tgid_of)) {
		free(u);
		return NULL;
	}
	for (p = text; *p; ) {
		size_t len = strcspn(p, "\n");

		take_line(u, p, len);
		p += len + (p[len] == '\n');
	}
	qsort(u->maps, u->nmaps, sizeof(*u->maps), by_tgid_start);
	r->usyms = u;
	return u;
}

int kmt_reader_tgid(struct kmt_reader *r, int tid)
{
	struct kmt_reader_usyms *u = usyms(r);
	uint64_t tgid;

	return u && kmt_hashmap_get(&u->tgid_of, tid, &tgid) ? (int)tgid : tid;
}

/* The mapping of @tgid that holds @addr, or NULL. */
static const struct umap *map_at(const struct kmt_reader_usyms *u, int tgid,
				 unsigned long long addr)
{
	uint32_t lo = 0, hi = u->nmaps;

	while (lo < hi) {		/* the first mapping after (tgid, addr) */
		uint32_t mid = lo + (hi - lo) / 2;
		const struct umap *m = &u->maps[mid];

		if (m->tgid < tgid || (m->tgid == tgid && m->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || u->maps[lo - 1].tgid != tgid || addr >= u->maps[lo - 1].end)
		return NULL;
	return &u->maps[lo - 1];
}

/* @f's symbols, read at the first need; NULL when unreadable or not the recording's file. */
static const struct kmt_elfsyms *file_syms(struct kmt_reader_usyms *u, struct ufile *f)
{
	char why[256];

	if (!f->tried) {
		f->loaded = !kmt_elfsyms_load(&f->syms, f->path, why, sizeof(why));
		f->changed = f->loaded && f->build_id[0] && strcmp(f->build_id, f->syms.build_id);
		if (f->changed && !u->changed++)
			u->first_changed = f->path;
	}
	f->tried = true;
	return f->loaded && !f->changed ? &f->syms : NULL;
}

int kmt_reader_user_symbol(struct kmt_reader *r, int tgid, unsigned long long addr,
			   char *buf, size_t len)
{
	struct kmt_reader_usyms *u = usyms(r);
	const struct umap *m = u ? map_at(u, tgid, addr) : NULL;

	if (!m) {
		snprintf(buf, len, "0x%llx", addr);
		return 0;
	}
	return kmt_elfsyms_describe(file_syms(u, &u->files[m->file]), u->files[m->file].path,
				    addr - m->start + m->pgoff, buf, len);
}

size_t kmt_reader_user_files_changed(struct kmt_reader *r, const char **first)
{
	struct kmt_reader_usyms *u = r->usyms;

	*first = u ? u->first_changed : NULL;
	return u ? u->changed : 0;
}

void kmt_reader_usyms_free(struct kmt_reader *r)
{
	struct kmt_reader_usyms *u = r->usyms;
	uint32_t i;

	if (!u)
		return;
	for (i = 0; i < u->nfiles; i++) {
		free(u->files[i].path);
		kmt_elfsyms_free(&u->files[i].syms);
	}
	free(u->files);
	free(u->maps);
	kmt_hashmap_free(&u->tgid_of);
	free(u);
	r->usyms = NULL;
}
