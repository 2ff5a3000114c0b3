// SPDX-License-Identifier: LGPL-2.1
/*
 * The static footprint of an ELF image: see footprint.h. Sections are
 * classed by their flags; the sized symbols of each section are swept in
 * address order, so that aliases and symbols nested in others count once
 * and the section's bytes in no symbol are left over. A function's file
 * is that of the line at its first instruction (as addr2line says, and
 * as call sites are placed); a variable's is the one declaring it, from
 * one walk over the DWARF of every variable with a fixed address, static
 * locals included.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <kmtrace/error.h>
#include "footprint.h"
#include "vmlinux.h"
#include "common/hashmap.h"
#include "common/util.h"

/* A sized symbol before the sweep; its name stays in the ELF's string table. */
struct raw_sym {
	uint64_t value, size;
	size_t shndx;
	const char *name;
};

/* Reading one image. */
struct builder {
	Elf *elf;
	Dwarf *dwarf;
	struct kmt_vmlinux *image;	/* the same file, for the code's source lines */
	struct kmt_footprint *fp;
	struct kmt_hashmap decl;	/* address -> index of its file in fp->files */
	struct kmt_hashmap file_index;	/* hash of a file name -> its index (probed on) */
	uint32_t files_cap;
	uint64_t *addrs;		/* per symbol of fp->syms: its address */
	signed char *class_of;		/* per section: its class, -1 when not allocated */
	uint64_t file_size;
	uint64_t shoff, shentsize;	/* where the section headers are */
	const char *bad;		/* what is wrong with the file, at offset bad_at */
	long long bad_at;
	uint64_t *sec_end;		/* per section: the address past its end */
	size_t nsections;
};

static const char *const class_names[KMT_FP_NCLASSES] = { "text", "rodata", "data", "bss" };

const char *kmt_fp_class_name(enum kmt_fp_class cls)
{
	return class_names[cls];
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether section @name holds zeroed data by its name (for debug-only files). */
static bool bss_name(const char *name)
{
	return starts(name, ".bss") || starts(name, ".sbss") || starts(name, ".tbss") ||
	       starts(name, "__bss") || !strcmp(name, ".brk");
}

/* The class of section @sh named @name; -1 when it is not loaded. */
static int section_class(const GElf_Shdr *sh, const char *name, bool debug_only)
{
	if (!(sh->sh_flags & SHF_ALLOC))
		return -1;
	if (sh->sh_flags & SHF_EXECINSTR)
		return KMT_FP_TEXT;
	if (!(sh->sh_flags & SHF_WRITE) || !strcmp(name, ".rodata") || starts(name, ".rodata."))
		return KMT_FP_RODATA;
	if (debug_only ? bss_name(name) : sh->sh_type == SHT_NOBITS)
		return KMT_FP_BSS;
	return KMT_FP_DATA;
}

/* Add section @sh to the totals size(1)'s Berkeley format gives. */
static void size_count(struct kmt_footprint *fp, const GElf_Shdr *sh)
{
	if ((sh->sh_flags & SHF_EXECINSTR) || !(sh->sh_flags & SHF_WRITE))
		fp->size_text += sh->sh_size;
	else if (sh->sh_type != SHT_NOBITS)
		fp->size_data += sh->sh_size;
	else
		fp->size_bss += sh->sh_size;
}

/* Whether the image's code sections have no contents: a file of debug information only. */
static bool debug_only(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    (sh.sh_flags & SHF_ALLOC))
			return sh.sh_type == SHT_NOBITS;
	return false;
}

/* Note that the file is bad: @why at offset @at. Returns -1. */
static int bad_file(struct builder *b, const char *why, long long at)
{
	b->bad = why;
	b->bad_at = at;
	errno = EINVAL;
	return -1;
}

/* Every section's class and end, and the totals. 0, or -1 (errno; b->bad for the file). */
static int read_sections(struct builder *b)
{
	size_t shstrndx, i;
	bool dbg = debug_only(b->elf);

	if (elf_getshdrnum(b->elf, &b->nsections) || elf_getshdrstrndx(b->elf, &shstrndx))
		return bad_file(b, "corrupt: no section headers libelf can read", 0);
	b->class_of = malloc(b->nsections + 1);
	b->sec_end = calloc(b->nsections + 1, sizeof(*b->sec_end));
	if (!b->class_of || !b->sec_end)
		return -1;
	for (i = 0; i < b->nsections; i++) {
		Elf_Scn *scn = elf_getscn(b->elf, i);
		const char *name;
		GElf_Shdr sh;

		b->class_of[i] = -1;
		if (!scn || !gelf_getshdr(scn, &sh) || !(name = elf_strptr(b->elf, shstrndx,
									    sh.sh_name)))
			continue;
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
		    (sh.sh_offset > b->file_size || sh.sh_size > b->file_size - sh.sh_offset))
			return bad_file(b, "truncated: the section of this header runs past the "
					"end of the file", (long long)(b->shoff + i * b->shentsize));
		b->class_of[i] = (signed char)section_class(&sh, name, dbg);
		if (b->class_of[i] < 0)
			continue;
		b->sec_end[i] = sh.sh_addr + sh.sh_size;
		b->fp->sections[b->class_of[i]] += sh.sh_size;
		size_count(b->fp, &sh);
	}
	return 0;
}

/* Whether @s is a symbol with bytes of its own in a loaded section of @b. */
static bool sized(const struct builder *b, const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (!s->st_size || s->st_shndx == SHN_UNDEF || s->st_shndx >= b->nsections ||
	    s->st_shndx >= SHN_LORESERVE || b->class_of[s->st_shndx] < 0)
		return false;
	return type == STT_FUNC || type == STT_OBJECT || type == STT_TLS || type == STT_NOTYPE;
}

/* The sized symbols of symbol table @scn appended to *@raw. 0, or -1 (ENOMEM). */
static int read_symtab(struct builder *b, Elf_Scn *scn, const GElf_Shdr *sh,
		       struct raw_sym **raw, uint32_t *n, uint32_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (i = 0; data && i < count; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s) || !sized(b, &s))
			continue;
		name = elf_strptr(b->elf, sh->sh_link, s.st_name);
		if (kmt_grow(raw, cap, *n, sizeof(**raw)))
			return -1;
		(*raw)[(*n)++] = (struct raw_sym){ s.st_value, s.st_size, s.st_shndx,
						   name && name[0] ? name : "?" };
	}
	return 0;
}

/* The sized symbols of .symtab, else of .dynsym, into *@raw. 0, or -1 (errno). */
static int read_symbols(struct builder *b, struct raw_sym **raw, uint32_t *n)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	uint32_t cap = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(b->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return read_symtab(b, scn, &sh, raw, n, &cap);
		if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	if (dynsym && gelf_getshdr(dynsym, &sh))
		return read_symtab(b, dynsym, &sh, raw, n, &cap);
	return 0;
}

/* By section, address, then the larger first: an alias's bytes go to the first name. */
static int by_place(const void *x, const void *y)
{
	const struct raw_sym *a = x, *b = y;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Each symbol's bytes that no symbol before it covers, cut at its
 * section's end, into fp->syms (symbols left with none are dropped), their
 * addresses into b->addrs; what no symbol took into fp->unclaimed. ET_REL sections start at 0, their symbols'
 * values are offsets: the same sweep.
 */
static int sweep(struct builder *b, struct raw_sym *raw, uint32_t n)
{
	struct kmt_footprint *fp = b->fp;
	uint64_t covered = 0;
	size_t section = (size_t)-1;
	uint32_t i;

	memcpy(fp->unclaimed, fp->sections, sizeof(fp->unclaimed));
	qsort(raw, n, sizeof(*raw), by_place);
	fp->syms = calloc(n ? n : 1, sizeof(*fp->syms));
	b->addrs = calloc(n ? n : 1, sizeof(*b->addrs));
	if (!fp->syms || !b->addrs)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t from = raw[i].value, to = raw[i].value + raw[i].size;

		if (raw[i].shndx != section) {
			section = raw[i].shndx;
			covered = 0;
		}
		if (to > b->sec_end[section])
			to = b->sec_end[section];
		from = from > covered ? from : covered;
		if (to <= from)
			continue;
		covered = to;
		b->addrs[fp->nsyms] = raw[i].value;
		fp->syms[fp->nsyms++] = (struct kmt_fp_symbol){
			.name = strdup(raw[i].name), .bytes = to - from,
			.cls = (enum kmt_fp_class)b->class_of[section] };
		if (!fp->syms[fp->nsyms - 1].name)
			return -1;
		fp->unclaimed[b->class_of[section]] -= to - from;
	}
	return 0;
}

/* Index of file @name in fp->files, added if new; -1 when out of memory. */
static long intern_file(struct builder *b, const char *name)
{
	struct kmt_footprint *fp = b->fp;
	uint64_t key;
	uint32_t row = kmt_hashmap_name_row(&b->file_index, name, fp->files, sizeof(*fp->files),
					    0, &key);

	if (row != KMT_HASHMAP_NO_ROW)
		return (long)row;
	if (kmt_grow(&fp->files, &b->files_cap, (uint32_t)fp->nfiles, sizeof(*fp->files)) ||
	    !(fp->files[fp->nfiles] = strdup(name)))
		return -1;
	if (kmt_hashmap_put(&b->file_index, key, fp->nfiles)) {
		free(fp->files[fp->nfiles]);
		return -1;
	}
	return (long)fp->nfiles++;
}

/* Note that @die, declared in its file, lies at @addr (the first DIE there wins). 0 or -1. */
static int note_decl(struct builder *b, Dwarf_Die *die, Dwarf_Addr addr, const char *comp_dir)
{
	const char *file = dwarf_decl_file(die);
	char rel[512];
	long idx;
	bool had;
	uint64_t *cell;

	if (!file)
		return 0;
	cell = kmt_hashmap_cell(&b->decl, addr, &had);
	if (!cell)
		return -1;
	if (had)
		return 0;
	kmt_vmlinux_relative_path(rel, sizeof(rel), file, comp_dir);
	idx = intern_file(b, rel);	/* another map: @cell stays valid */
	if (idx < 0)
		return -1;
	*cell = (uint64_t)idx;
	return 0;
}

/* Variable @die when its location is a fixed address. */
static int note_variable(struct builder *b, Dwarf_Die *die, const char *comp_dir)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &n) ||
	    !n || ops[0].atom != DW_OP_addr)
		return 0;
	return note_decl(b, die, ops[0].number, comp_dir);
}

/* The variables among @parent's children, and in its functions and blocks. */
static int walk_children(struct builder *b, Dwarf_Die *parent, const char *comp_dir)
{
	Dwarf_Die die;
	int ret = 0;

	if (dwarf_child(parent, &die))
		return 0;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:	/* its static locals */
		case DW_TAG_lexical_block:
			ret = walk_children(b, &die, comp_dir);
			break;
		case DW_TAG_variable:
			ret = note_variable(b, &die, comp_dir);
			break;
		}
	} while (!ret && !dwarf_siblingof(&die, &die));
	return ret;
}

/* Every compile unit's variables. 0, or -1 when out of memory. */
static int walk_units(struct builder *b)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(b->dwarf, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Attribute attr;

		if (dwarf_offdie(b->dwarf, off + hsize, &cu) &&
		    walk_children(b, &cu, dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir,
									 &attr))))
			return -1;
		off = next;
	}
	return 0;
}

/*
 * The file of code address @addr as --by-dir places a call site: that of
 * the function it is in, past any inlined one (addr2line -i's last
 * line); -2 when none.
 */
static long code_file(struct builder *b, uint64_t addr)
{
	struct kmt_source src;

	if (!b->image || !kmt_vmlinux_source(b->image, addr, &src))
		return -2;
	return intern_file(b, src.caller_file);
}

/* Each symbol's declaring file, where DWARF has it. 0, or -1 when out of memory. */
static int attach_files(struct builder *b)
{
	struct kmt_footprint *fp = b->fp;
	size_t i;

	for (i = 0; i < fp->nsyms; i++) {
		struct kmt_fp_symbol *s = &fp->syms[i];
		uint64_t idx;
		long found = -2;

		if (s->cls == KMT_FP_TEXT)
			found = code_file(b, b->addrs[i]);
		else if (kmt_hashmap_get(&b->decl, b->addrs[i], &idx))
			found = (long)idx;
		if (found == -1)
			return -1;
		if (found >= 0)
			s->file = fp->files[found];
	}
	return 0;
}

/* Read the image @b->elf, file @path, into @b->fp. 0, or -1 (errno). */
static int build(struct builder *b, const char *path)
{
	const char *why;
	struct raw_sym *raw = NULL;
	uint32_t n = 0;
	GElf_Ehdr eh;
	int ret = -1;

	if (!gelf_getehdr(b->elf, &eh))
		return bad_file(b, "corrupt: no ELF header libelf can read", 0);
	if (eh.e_shoff > b->file_size ||
	    (uint64_t)eh.e_shnum * eh.e_shentsize > b->file_size - eh.e_shoff)
		return bad_file(b, "truncated: the section headers lie past the end of the file",
				(long long)(eh.e_shoff & INT64_MAX));
	b->shoff = eh.e_shoff;
	b->shentsize = eh.e_shentsize;
	b->fp->relocatable = eh.e_type == ET_REL;
	if (read_sections(b) || read_symbols(b, &raw, &n) || sweep(b, raw, n))
		goto out;
	if (!b->fp->relocatable)
		b->dwarf = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	b->fp->dwarf = b->dwarf != NULL;
	if (b->dwarf)		/* NULL with only .dynsym: code gets no file */
		b->image = kmt_vmlinux_open(path, &why);
	if (b->dwarf && (walk_units(b) || attach_files(b)))
		goto out;
	ret = 0;
out:
	free(raw);
	return ret;
}

int kmt_footprint_read(const char *path, struct kmt_footprint *fp, struct kmt_error *err)
{
	struct builder b = { .fp = fp };
	struct stat st;
	int fd, ret = -1;

	memset(fp, 0, sizeof(*fp));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		kmt_error_set(err, path, -1, "%s", strerror(errno));
		return -1;
	}
	if (!fstat(fd, &st))
		b.file_size = (uint64_t)st.st_size;
	b.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!b.elf || elf_kind(b.elf) != ELF_K_ELF) {
		kmt_error_set(err, path, 0, "not an ELF file");
		goto out;
	}
	if (kmt_hashmap_init(&b.decl) || kmt_hashmap_init(&b.file_index))
		goto fail;
	if (build(&b, path))
		goto fail;
	ret = 0;
	goto out;
fail:
	if (b.bad)
		kmt_error_set(err, path, b.bad_at, "%s", b.bad);
	else
		kmt_error_set(err, path, -1, "%s", strerror(errno ? errno : ENOMEM));
out:
	kmt_hashmap_free(&b.decl);
	kmt_hashmap_free(&b.file_index);
	free(b.addrs);
	free(b.class_of);
	free(b.sec_end);
	if (b.dwarf)
		dwarf_end(b.dwarf);
	kmt_vmlinux_close(b.image);
	if (b.elf)
		elf_end(b.elf);
	close(fd);
	if (ret)
		kmt_footprint_free(fp);
	return ret;
}

void kmt_footprint_free(struct kmt_footprint *fp)
{
	size_t i;

	for (i = 0; i < fp->nsyms; i++)
		free((char *)fp->syms[i].name);
	for (i = 0; i < fp->nfiles; i++)
		free(fp->files[i]);
	free(fp->syms);
	free(fp->files);
	memset(fp, 0, sizeof(*fp));
}
