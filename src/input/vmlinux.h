/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A kernel image (vmlinux, or any ELF standing in for one) as a source of
 * symbols and, when it has DWARF, of source locations; private to src/.
 */
#ifndef KMT_VMLINUX_H
#define KMT_VMLINUX_H

#include <stdbool.h>
#include <stddef.h>

struct kmt_vmlinux;

/* Where an address comes from in the sources. */
struct kmt_source {
	char file[256];		/* of the line, relative to the build tree */
	int line;
	char inlined[128];	/* innermost inlined function, "" when none */
	char caller_file[256];	/* the real function's file:line the inline sits in */
	int caller_line;
};

/*
 * Open the ELF file @path. Returns NULL with errno set and a reason in
 * *@why (not an ELF file, no symbol table) on failure.
 */
struct kmt_vmlinux *kmt_vmlinux_open(const char *path, const char **why);

/* Close; NULL is ignored. */
void kmt_vmlinux_close(struct kmt_vmlinux *vm);

/*
 * The image's symbols as kallsyms text ("ADDR t NAME" lines, _text among
 * them when the image has it), NUL-terminated, its length in
 * *@len. Owned by @vm.
 */
const char *kmt_vmlinux_symbols(struct kmt_vmlinux *vm, size_t *len);

/* The GNU build-id in hex, "" when the image has none. */
const char *kmt_vmlinux_build_id(const struct kmt_vmlinux *vm);

/* Whether source locations can be looked up (the image has DWARF). */
bool kmt_vmlinux_has_dwarf(const struct kmt_vmlinux *vm);

/*
 * The source location of @addr (an address of the image, not relocated)
 * into @src. Returns true when found: its own line, or for inlined code
 * whose own line is unknown (file "?", line 0) where it was inlined.
 */
bool kmt_vmlinux_source(struct kmt_vmlinux *vm, unsigned long long addr,
			struct kmt_source *src);

/*
 * @path relative to the build tree @comp_dir (may be NULL), its "." and
 * ".." folded ("a/../b" is "b"), into @buf of @len bytes.
 */
void kmt_vmlinux_relative_path(char *buf, size_t len, const char *path, const char *comp_dir);

#endif /* KMT_VMLINUX_H */
