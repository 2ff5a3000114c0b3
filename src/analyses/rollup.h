/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Call sites rolled up by source directory (--by-dir DEPTH, from DWARF),
 * by module (--by-module, from the symbols), or kept only under a source
 * directory (--branch DIR), as trace_analyze.py does from a built tree.
 * Shared by the slab and page call-site tables.
 */
#ifndef KMT_ROLLUP_H
#define KMT_ROLLUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kmtrace/error.h>

struct kmt_output;
struct kmt_session;
struct kmt_static_file;

/* Option keys, within the analyses' range (0x100..0x3ff). */
enum { KMT_OPT_BY_DIR = 0x3e0, KMT_OPT_BRANCH, KMT_OPT_BY_MODULE, KMT_OPT_FOOTPRINT };

#define KMT_ROLLUP_LONGOPTS \
	{ "by-dir", required_argument, NULL, KMT_OPT_BY_DIR }, \
	{ "branch", required_argument, NULL, KMT_OPT_BRANCH }, \
	{ "by-module", no_argument, NULL, KMT_OPT_BY_MODULE }, \
	{ "footprint", required_argument, NULL, KMT_OPT_FOOTPRINT }

#define KMT_ROLLUP_USAGE \
	"  --by-dir DEPTH      call sites summed per source directory, DEPTH levels\n" \
	"                      deep (fs/, fs/ext4/; needs --vmlinux with DWARF)\n" \
	"  --branch DIR        only call sites whose source is under DIR (e.g. fs/ext4)\n" \
	"  --by-module         call sites summed per module (vmlinux for the kernel)\n" \
	"  --footprint IMAGE   with --by-dir: each directory's static bytes (kmtrace\n" \
	"                      footprint's, of the vmlinux IMAGE) beside its dynamic ones\n"

struct kmt_rollup {
	int depth;		/* --by-dir, 0 when not asked */
	bool by_module;
	char branch[256];	/* --branch, "" when not asked */
	struct kmt_static_file *statics;	/* --footprint's image by file; NULL: not asked */
	size_t nstatics;
};

/* Whether @key is a rollup option. */
static inline bool kmt_rollup_is_option(int key)
{
	return key >= KMT_OPT_BY_DIR && key <= KMT_OPT_FOOTPRINT;
}

/*
 * Take rollup option @key with @arg (--footprint reads its image now); 0,
 * or -1 with @err filled. kmt_rollup_release() frees what it keeps.
 */
int kmt_rollup_option(struct kmt_rollup *ro, int key, const char *arg, struct kmt_error *err);

/* Whether call sites are summed into groups (--by-dir or --by-module). */
static inline bool kmt_rollup_groups(const struct kmt_rollup *ro)
{
	return ro->depth > 0 || ro->by_module;
}

/* Whether any rollup option was given. */
static inline bool kmt_rollup_active(const struct kmt_rollup *ro)
{
	return kmt_rollup_groups(ro) || ro->branch[0];
}

/* The groups of a set of call sites. */
struct kmt_rollup_result {
	char **names;		/* group names; the call site's own row when not grouping */
	uint32_t n;
	uint32_t *of;		/* per call site: its group, KMT_ROLLUP_OUT if not kept */
};
#define KMT_ROLLUP_OUT	UINT32_MAX

/*
 * Put each of @n call sites into its group (or leave it out, outside
 * --branch) through @s's symbols and sources: call site i is the u64 at
 * byte @offset of row i of @rows, rows @stride bytes apart (a table's
 * rows as they are). Without --by-dir or --by-module each kept call site
 * is a group of its own, named "". Returns 0, or -1 when out of memory.
 */
int kmt_rollup_assign(const struct kmt_rollup *ro, const struct kmt_session *s, const void *rows,
		      size_t stride, size_t offset, uint32_t n, struct kmt_rollup_result *res);

/*
 * The group of source file @file (NULL: none known) under --by-dir and
 * --branch (not --by-module) into @buf: its first DEPTH directories,
 * "(no source)", or "" without --by-dir. False when --branch leaves it out.
 */
bool kmt_rollup_file_group(const struct kmt_rollup *ro, const char *file, char *buf, size_t len);

/* Free what the options of @ro keep (--footprint's figures). */
void kmt_rollup_release(struct kmt_rollup *ro);

/* One group's dynamic figures, for kmt_rollup_report_static(). */
struct kmt_rollup_dynamic {
	const char *name;	/* its group (kmt_rollup_assign()'s name) */
	uint64_t live;		/* bytes live at the end */
	uint64_t total;		/* bytes allocated */
	uint64_t waste;		/* bytes allocated beyond those asked for */
};

/*
 * With --footprint: table "static" of @out, per source directory (--by-dir,
 * --branch) the static bytes of the image, the @n groups @dyn's live
 * bytes, their sum, the bytes allocated and (@with_waste) wasted, as
 * trace_analyze.py sets them side by side; a directory with either kind
 * is a row. 0, or -1 when out of memory.
 */
int kmt_rollup_report_static(const struct kmt_rollup *ro, const struct kmt_rollup_dynamic *dyn,
			     uint32_t n, bool with_waste, struct kmt_output *out);

/* Free what kmt_rollup_assign() filled in. */
void kmt_rollup_free(struct kmt_rollup_result *res);

/* Title word of the group column: "DIR" or "MODULE". */
const char *kmt_rollup_column(const struct kmt_rollup *ro);

/*
 * Why the rollup cannot be trusted on @s (--by-dir or --branch without
 * source files), or NULL.
 */
const char *kmt_rollup_problem(const struct kmt_rollup *ro, const struct kmt_session *s);

#endif /* KMT_ROLLUP_H */
