/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The function symbols and loadable segments of an ELF file (an executable
 * or a shared library), read with elfutils' libelf: to place uprobes by
 * name and to name the user-space addresses a recording carries.
 */
#ifndef KMT_ELFSYMS_H
#define KMT_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>

#define KMT_BUILD_ID_HEX	41	/* 20 bytes (SHA-1) in hex and a NUL; longer ones cut */

struct kmt_elf_sym {
	unsigned long long addr;	/* its virtual address in the file's layout */
	unsigned long long size;
	const char *name;		/* unversioned */
};

struct kmt_elf_segment {
	unsigned long long offset, vaddr, filesz;
};

struct kmt_elfsyms {
	struct kmt_elf_sym *syms;	/* by address */
	size_t nsyms;
	struct kmt_elf_segment *segs;	/* PT_LOAD */
	size_t nsegs;
	char *names;			/* the names' storage */
	bool is_static;			/* no PT_INTERP: nothing else is loaded */
	char build_id[KMT_BUILD_ID_HEX];	/* GNU build-id in hex, or "" */
};

/*
 * Read @path's function symbols (.symtab, else .dynsym) and PT_LOAD
 * segments into @e. 0, or -1 with @why filled (cannot open, not ELF).
 */
int kmt_elfsyms_load(struct kmt_elfsyms *e, const char *path, char *why, size_t len);

/* The GNU build-id of ELF file @path in hex into @hex (""): 0, or -1 when none was read. */
int kmt_elf_build_id(const char *path, char hex[KMT_BUILD_ID_HEX]);

/* The function symbol named @name (unversioned); NULL if there is none. */
const struct kmt_elf_sym *kmt_elfsyms_find(const struct kmt_elfsyms *e, const char *name);

/* The function symbol that holds virtual address @addr; NULL if none does. */
const struct kmt_elf_sym *kmt_elfsyms_at(const struct kmt_elfsyms *e, unsigned long long addr);

/* File offset of virtual address @vaddr; -1 when no segment loads it. */
long long kmt_elfsyms_offset_of(const struct kmt_elfsyms *e, unsigned long long vaddr);

/* Virtual address of file offset @offset; -1 when no segment holds it. */
long long kmt_elfsyms_vaddr_of(const struct kmt_elfsyms *e, unsigned long long offset);

/*
 * Name file offset @offset of the file @path as "function+0xOFF [file]"
 * through its symbols @e (NULL when they could not be read), else as
 * "file+0xOFFSET", into @buf. Returns 1 when a function holds it.
 */
int kmt_elfsyms_describe(const struct kmt_elfsyms *e, const char *path,
			 unsigned long long offset, char *buf, size_t len);

/* Free what kmt_elfsyms_load() allocated. */
void kmt_elfsyms_free(struct kmt_elfsyms *e);

#endif /* KMT_ELFSYMS_H */
