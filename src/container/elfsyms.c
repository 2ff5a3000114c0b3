// SPDX-License-Identifier: LGPL-2.1
/*
 * ELF function symbols and PT_LOAD segments through libelf. The symbol
 * table (.symtab) names static functions too; a stripped file has only
 * .dynsym. Names are copied without their version ("malloc@@GLIBC_2.2.5"
 * is "malloc"), and symbols are kept sorted by address for lookups.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsyms.h"
#include "common/util.h"

#define MAX_SYMS	(1u << 22)	/* more is not a real file */

static int by_addr(const void *a, const void *b)
{
	const struct kmt_elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_segments(struct kmt_elfsyms *e, Elf *elf)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n) || n > 4096)
		return -1;
	e->segs = calloc(n ? n : 1, sizeof(*e->segs));
	if (!e->segs)
		return -1;
	e->is_static = true;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph))
			return -1;
		if (ph.p_type == PT_INTERP)
			e->is_static = false;
		if (ph.p_type == PT_LOAD)
			e->segs[e->nsegs++] = (struct kmt_elf_segment){ ph.p_offset, ph.p_vaddr,
									ph.p_filesz };
	}
	return 0;
}

/* The symbol table section of @type (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
static Elf_Scn *find_table(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type && sh->sh_entsize)
			return scn;
	return NULL;
}

/* Copy the function symbols of @scn: names into one buffer, without versions. */
static int read_symbols(struct kmt_elfsyms *e, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_size / sh->sh_entsize, i;
	uint32_t used = 0, cap = 0;

	if (!data || n > MAX_SYMS || !(e->syms = calloc(n ? n : 1, sizeof(*e->syms))))
		return -1;
	for (i = 0; i < n; i++) {
		const char *name;
		size_t len;
		GElf_Sym s;

		if (!gelf_getsym(data, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    !s.st_value || !(name = elf_strptr(elf, sh->sh_link, s.st_name)) || !*name)
			continue;
		len = strcspn(name, "@");
		if (len > 4096 || kmt_grow(&e->names, &cap, used + len, 1))
			return -1;
		memcpy(e->names + used, name, len);
		e->names[used + len] = '\0';
		/* an offset for now: the buffer may still move */
		e->syms[e->nsyms++] = (struct kmt_elf_sym){ s.st_value, s.st_size,
							    (const char *)(uintptr_t)used };
		used += len + 1;
	}
	for (i = 0; i < e->nsyms; i++)
		e->syms[i].name = e->names + (uintptr_t)e->syms[i].name;
	qsort(e->syms, e->nsyms, sizeof(*e->syms), by_addr);
	return 0;
}

/* The NT_GNU_BUILD_ID note of @elf in hex into @hex ("" when it has none). */
static void read_build_id(Elf *elf, char hex[KMT_BUILD_ID_HEX])
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	hex[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_at, desc_at, next, i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((next = gelf_getnote(d, off, &nh, &name_at, &desc_at)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_at, "GNU", 4)) {
				for (i = 0; i < nh.n_descsz && 2 * i + 2 < KMT_BUILD_ID_HEX; i++)
					sprintf(hex + 2 * i, "%02x",
						((const unsigned char *)d->d_buf)[desc_at + i]);
				return;
			}
			off = next;
		}
	}
}

int kmt_elf_build_id(const char *path, char hex[KMT_BUILD_ID_HEX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	hex[0] = '\0';
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		read_build_id(elf, hex);
	if (elf)
		elf_end(elf);
	close(fd);
	return hex[0] ? 0 : -1;
}

int kmt_elfsyms_load(struct kmt_elfsyms *e, const char *path, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf *elf;

	memset(e, 0, sizeof(*e));
	if (fd < 0) {
		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(why, len, "%s is not an ELF file", path);
		goto out;
	}
	read_build_id(elf, e->build_id);
	scn = find_table(elf, SHT_SYMTAB, &sh);
	if (!scn)
		scn = find_table(elf, SHT_DYNSYM, &sh);
	if (read_segments(e, elf) || (scn && read_symbols(e, elf, scn, &sh))) {
		snprintf(why, len, "cannot read the symbols of %s", path);
		goto out;
	}
	ret = 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (ret)
		kmt_elfsyms_free(e);
	return ret;
}

const struct kmt_elf_sym *kmt_elfsyms_find(const struct kmt_elfsyms *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nsyms; i++)
		if (!strcmp(e->syms[i].name, name))
			return &e->syms[i];
	return NULL;
}

const struct kmt_elf_sym *kmt_elfsyms_at(const struct kmt_elfsyms *e, unsigned long long addr)
{
	size_t lo = 0, hi = e->nsyms;
	const struct kmt_elf_sym *s;

	while (lo < hi) {		/* the first symbol above @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &e->syms[lo - 1];
	/* a size of 0 (hand-written assembly) holds up to the next symbol */
	return !s->size || addr < s->addr + s->size ? s : NULL;
}

/* @v moved from one side of the segment that holds it to the other; -1 if none does. */
static long long through_segments(const struct kmt_elfsyms *e, unsigned long long v,
				  bool from_vaddr)
{
	size_t i;

	for (i = 0; i < e->nsegs; i++) {
		const struct kmt_elf_segment *s = &e->segs[i];
		unsigned long long from = from_vaddr ? s->vaddr : s->offset;
		unsigned long long to = from_vaddr ? s->offset : s->vaddr;

		if (v >= from && v - from < s->filesz)
			return (long long)(v - from + to);
	}
	return -1;
}

long long kmt_elfsyms_offset_of(const struct kmt_elfsyms *e, unsigned long long vaddr)
{
	return through_segments(e, vaddr, true);
}

long long kmt_elfsyms_vaddr_of(const struct kmt_elfsyms *e, unsigned long long offset)
{
	return through_segments(e, offset, false);
}

int kmt_elfsyms_describe(const struct kmt_elfsyms *e, const char *path,
			 unsigned long long offset, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	long long vaddr = e ? kmt_elfsyms_vaddr_of(e, offset) : -1;
	const struct kmt_elf_sym *s = vaddr >= 0 ? kmt_elfsyms_at(e, vaddr) : NULL;

	base = base ? base + 1 : path;
	if (!s) {
		snprintf(buf, len, "%s+0x%llx", base, offset);
		return 0;
	}
	snprintf(buf, len, "%s+0x%llx [%s]", s->name, (unsigned long long)vaddr - s->addr, base);
	return 1;
}

void kmt_elfsyms_free(struct kmt_elfsyms *e)
{
	free(e->syms);
	free(e->segs);
	free(e->names);
	memset(e, 0, sizeof(*e));
}
