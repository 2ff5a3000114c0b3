// SPDX-License-Identifier: LGPL-2.1
/* Call sites by source directory or module, and --branch: see rollup.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "rollup.h"
#include "common/hashmap.h"
#include "common/util.h"

#define NO_SOURCE	"(no source)"
#define NO_SYMBOL	"(no symbol)"

/* --footprint IMAGE: its static bytes by file. 0, or -1 with @err naming it (and the offset). */
static int read_statics(struct kmt_rollup *ro, const char *image, struct kmt_error *err)
{
	struct kmt_error why;
	char at[32] = "";

	kmt_rollup_release(ro);
	if (!kmt_static_by_file(image, &ro->statics, &ro->nstatics, &why))
		return 0;
	if (why.offset >= 0)
		snprintf(at, sizeof(at), "offset %lld: ", why.offset);
	kmt_error_set(err, NULL, -1, "--footprint %s: %s%s", image, at, why.msg);
	return -1;
}

int kmt_rollup_option(struct kmt_rollup *ro, int key, const char *arg, struct kmt_error *err)
{
	char *end;
	long depth;
	size_t len;

	switch (key) {
	case KMT_OPT_BY_DIR:
		depth = strtol(arg, &end, 10);
		if (end == arg || *end || depth < 1 || depth > 64) {
			kmt_error_set(err, NULL, -1, "--by-dir wants a depth from 1 to 64, not '%s'", arg);
			return -1;
		}
		ro->depth = (int)depth;
		return 0;
	case KMT_OPT_BRANCH:
		while (!strncmp(arg, "./", 2))
			arg += 2;
		len = strlen(arg);
		while (len && arg[len - 1] == '/')
			len--;
		if (!len || len >= sizeof(ro->branch)) {
			kmt_error_set(err, NULL, -1, "--branch wants a source directory such as fs/ext4");
			return -1;
		}
		snprintf(ro->branch, sizeof(ro->branch), "%.*s", (int)len, arg);
		return 0;
	case KMT_OPT_BY_MODULE:
		ro->by_module = true;
		return 0;
	case KMT_OPT_FOOTPRINT:
		return read_statics(ro, arg, err);
	}
	kmt_error_set(err, NULL, -1, "unknown option");
	return -1;
}

const char *kmt_rollup_column(const struct kmt_rollup *ro)
{
	return ro->by_module ? "MODULE" : "DIR";
}

void kmt_rollup_release(struct kmt_rollup *ro)
{
	kmt_static_free(ro->statics, ro->nstatics);
	ro->statics = NULL;
	ro->nstatics = 0;
}

const char *kmt_rollup_problem(const struct kmt_rollup *ro, const struct kmt_session *s)
{
	if (ro->statics && (!ro->depth || ro->by_module))
		return "--footprint sets static bytes beside a --by-dir table: no static table "
		       "without --by-dir, nor with --by-module";
	if ((ro->depth || ro->branch[0]) && !kmt_session_has_sources(s))
		return ro->branch[0] ? "--branch needs source files (--vmlinux with DWARF): no "
				       "call site is kept" :
				       "--by-dir needs source files (--vmlinux with DWARF): all "
				       "call sites are under " NO_SOURCE;
	return NULL;
}

/* Whether @file lies under directory @dir. */
static bool under(const char *file, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(file, dir, n) && file[n] == '/';
}

/* The first @depth directories of @file ("fs/ext4/" for depth 2), into @buf. */
static void dir_prefix(const char *file, int depth, char *buf, size_t len)
{
	const char *p = file, *slash;
	int d = 0;

	while (d < depth && (slash = strchr(p, '/'))) {
		p = slash + 1;
		d++;
	}
	if (p == file)
		snprintf(buf, len, "./");	/* a file at the top of the tree */
	else
		snprintf(buf, len, "%.*s", (int)(p - file), file);
}

bool kmt_rollup_file_group(const struct kmt_rollup *ro, const char *file, char *buf, size_t len)
{
	if (ro->branch[0] && (!file || !under(file, ro->branch)))
		return false;
	if (!ro->depth)
		buf[0] = '\0';
	else if (file)
		dir_prefix(file, ro->depth, buf, len);
	else
		snprintf(buf, len, NO_SOURCE);
	return true;
}

/* Group name of call site @addr into @buf; false when --branch leaves it out. */
static bool group_name(const struct kmt_rollup *ro, const struct kmt_session *s, uint64_t addr,
		       char *buf, size_t len)
{
	char file[256];
	bool have_file = kmt_session_source_file(s, addr, file, sizeof(file));
	const char *mod = NULL;

	if (!ro->by_module)
		return kmt_rollup_file_group(ro, have_file ? file : NULL, buf, len);
	if (ro->branch[0] && (!have_file || !under(file, ro->branch)))
		return false;
	if (!kmt_session_function(s, addr, NULL, &mod))
		snprintf(buf, len, NO_SYMBOL);
	else
		snprintf(buf, len, "%s", mod ? mod : "vmlinux");
	return true;
}

/* Index of group @name in @res, added if new; KMT_ROLLUP_OUT when out of memory. */
static uint32_t group_index(struct kmt_rollup_result *res, struct kmt_hashmap *index,
			    uint32_t *cap, const char *name, bool shared)
{
	uint64_t key = 0;
	uint32_t row = shared ? kmt_hashmap_name_row(index, name, res->names, sizeof(*res->names),
						     0, &key) : KMT_HASHMAP_NO_ROW;

	if (row != KMT_HASHMAP_NO_ROW)
		return row;
	if (kmt_grow(&res->names, cap, res->n, sizeof(*res->names)) ||
	    !(res->names[res->n] = strdup(name)))
		return KMT_ROLLUP_OUT;
	if (shared && kmt_hashmap_put(index, key, res->n)) {
		free(res->names[res->n]);
		return KMT_ROLLUP_OUT;
	}
	return res->n++;
}

int kmt_rollup_assign(const struct kmt_rollup *ro, const struct kmt_session *s, const void *rows,
		      size_t stride, size_t offset, uint32_t n, struct kmt_rollup_result *res)
{
	struct kmt_hashmap index;
	uint32_t i, cap = 0;
	char name[256];
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (kmt_hashmap_init(&index))
		return -1;
	res->of = malloc((n ? n : 1) * sizeof(*res->of));
	for (i = 0; res->of && i < n; i++) {
		uint64_t addr;

		memcpy(&addr, (const char *)rows + i * stride + offset, sizeof(addr));
		res->of[i] = KMT_ROLLUP_OUT;
		if (!group_name(ro, s, addr, name, sizeof(name)))
			continue;
		res->of[i] = group_index(res, &index, &cap, name, kmt_rollup_groups(ro));
		if (res->of[i] == KMT_ROLLUP_OUT)
			goto out;
	}
	ret = res->of ? 0 : -1;
out:
	kmt_hashmap_free(&index);
	if (ret)
		kmt_rollup_free(res);
	errno = ret ? ENOMEM : 0;
	return ret;
}

void kmt_rollup_free(struct kmt_rollup_result *res)
{
	uint32_t i;

	for (i = 0; i < res->n; i++)
		free(res->names[i]);
	free(res->names);
	free(res->of);
	memset(res, 0, sizeof(*res));
}

/* One row of the static table: a directory's static and dynamic bytes. */
struct static_row {
	char *name;
	uint64_t stat, live, total, waste;
};

/* The row of directory @name in @rows (@index: its name's hash), added if new; NULL: no memory. */
static struct static_row *static_row(struct static_row **rows, uint32_t *n, uint32_t *cap,
				     struct kmt_hashmap *index, const char *name)
{
	uint64_t key;
	uint32_t row = kmt_hashmap_name_row(index, name, *rows, sizeof(**rows),
					    offsetof(struct static_row, name), &key);

	if (row != KMT_HASHMAP_NO_ROW)
		return &(*rows)[row];
	if (kmt_grow(rows, cap, *n, sizeof(**rows)) || kmt_hashmap_put(index, key, *n))
		return NULL;
	(*rows)[*n] = (struct static_row){ .name = strdup(name) };
	return (*rows)[*n].name ? &(*rows)[(*n)++] : NULL;
}

/* The image's static bytes and the @n groups of @dyn into @rows by directory. 0, or -1. */
static int join_static(const struct kmt_rollup *ro, const struct kmt_rollup_dynamic *dyn,
		       uint32_t n, struct static_row **rows, uint32_t *nrows)
{
	struct kmt_hashmap index;
	struct static_row *r;
	uint32_t cap = 0, i;
	char group[256];
	int ret = -1;

	if (kmt_hashmap_init(&index))
		return -1;
	for (i = 0; i < ro->nstatics; i++) {
		const struct kmt_static_file *f = &ro->statics[i];

		if (!f->file && ro->branch[0])
			continue;	/* bytes in no symbol are no directory's */
		if (f->file && !kmt_rollup_file_group(ro, f->file[0] ? f->file : NULL, group,
						      sizeof(group)))
			continue;
		if (!(r = static_row(rows, nrows, &cap, &index, f->file ? group : NO_SYMBOL)))
			goto out;
		r->stat += f->bytes;
	}
	for (i = 0; i < n; i++) {
		if (!(r = static_row(rows, nrows, &cap, &index, dyn[i].name)))
			goto out;
		r->live += dyn[i].live;
		r->total += dyn[i].total;
		r->waste += dyn[i].waste;
	}
	ret = 0;
out:
	kmt_hashmap_free(&index);
	return ret;
}

/* Rows by static plus live bytes, the largest first, then by name. */
static int by_footprint(const void *x, const void *y)
{
	const struct static_row *a = x, *b = y;
	uint64_t ta = a->stat + a->live, tb = b->stat + b->live;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return strcmp(a->name, b->name);
}

int kmt_rollup_report_static(const struct kmt_rollup *ro, const struct kmt_rollup_dynamic *dyn,
			     uint32_t n, bool with_waste, struct kmt_output *out)
{
	static const struct kmt_column cols[] = {
		{ "dir", "DIR", KMT_KIND_STRING }, { "static", "STATIC", KMT_KIND_BYTES },
		{ "live", "LIVE", KMT_KIND_BYTES }, { "static_live", "STATIC+LIVE", KMT_KIND_BYTES },
		{ "dynamic", "DYNAMIC", KMT_KIND_BYTES }, { "waste", "WASTE", KMT_KIND_BYTES },
	};
	struct static_row *rows = NULL;
	struct kmt_table *t;
	uint32_t nrows = 0, i;
	int ret = -1;

	if (!ro->statics || !ro->depth || ro->by_module)
		return 0;
	if (join_static(ro, dyn, n, &rows, &nrows))
		goto out;
	qsort(rows, nrows, sizeof(*rows), by_footprint);
	t = kmt_output_table(out, "static", "Static beside dynamic per source directory (static: "
			     "the image's text, rodata, data and bss; live: at the end)",
			     with_waste ? 6 : 5, cols);
	for (i = 0, ret = t ? 0 : -1; t && i < nrows && !ret; i++) {
		union kmt_cell c[6] = { { .s = rows[i].name }, { .u = rows[i].stat },
					{ .u = rows[i].live }, { .u = rows[i].stat + rows[i].live },
					{ .u = rows[i].total }, { .u = rows[i].waste } };

		ret = kmt_table_row(t, c);
	}
out:
	for (i = 0; i < nrows; i++)
		free(rows[i].name);
	free(rows);
	return ret;
}
