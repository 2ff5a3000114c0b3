/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The static footprint of an ELF image (vmlinux, a module, any program):
 * the bytes of its allocated sections by class, and of each symbol, with
 * its source file (DWARF); private to src/.
 */
#ifndef KMT_FOOTPRINT_H
#define KMT_FOOTPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kmt_error;

/* What a section holds: code, read-only data, initialised data, zeroed data. */
enum kmt_fp_class { KMT_FP_TEXT, KMT_FP_RODATA, KMT_FP_DATA, KMT_FP_BSS, KMT_FP_NCLASSES };

/* One symbol's share of its section. */
struct kmt_fp_symbol {
	const char *name;
	const char *file;	/* its source file, relative to the build tree; NULL: unknown */
	uint64_t bytes;		/* its bytes that no symbol before it covers */
	enum kmt_fp_class cls;
};

/* An image's footprint, from kmt_footprint_read(). */
struct kmt_footprint {
	uint64_t sections[KMT_FP_NCLASSES];	/* every allocated section's bytes by class */
	uint64_t size_text, size_data, size_bss;	/* the same sections as size(1) counts them */
	uint64_t unclaimed[KMT_FP_NCLASSES];	/* of sections[]: bytes in no symbol */
	struct kmt_fp_symbol *syms;
	size_t nsyms;
	bool dwarf;		/* the image has DWARF: files were looked up */
	bool relocatable;	/* a module (ET_REL): symbols only by section, no files */
	char **files;		/* the distinct file names the symbols point to */
	size_t nfiles;
};

/*
 * Read the footprint of ELF file @path into @fp: sections classed by their
 * flags (.rodata* as read-only data even where the kernel links it
 * writable; in a debug-only file, whose sections have no contents, bss by
 * name), each sized symbol's bytes with overlaps counted once, and with
 * DWARF (not for ET_REL files) each symbol's source file: for code the
 * file of its first instruction's line, for data the file declaring the
 * variable. 0, or -1 with @err naming @path.
 */
int kmt_footprint_read(const char *path, struct kmt_footprint *fp, struct kmt_error *err);

/* Free what @fp holds. */
void kmt_footprint_free(struct kmt_footprint *fp);

/* The class's column name: "text", "rodata", "data" or "bss". */
const char *kmt_fp_class_name(enum kmt_fp_class cls);

#endif /* KMT_FOOTPRINT_H */
