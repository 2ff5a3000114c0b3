// SPDX-License-Identifier: LGPL-2.1
/*
 * Kernel images through elfutils: the symbols of the ELF symbol table (written as kallsyms text, so that one symbol table serves both),
 * the GNU build-id, and with DWARF the file:line of an address and the
 * inlined functions it sits in (libdw).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "vmlinux.h"

/* Where a compile unit's code lies, for images without .debug_aranges. */
struct cu_range {
	Dwarf_Addr low, high;	/* [low, high) */
	Dwarf_Off cu;		/* offset of the unit's DIE */
};

struct kmt_vmlinux {
	int fd;
	Elf *elf;
	Dwarf *dwarf;		/* NULL without debug information */
	struct cu_range *ranges;	/* sorted; made at the first miss of dwarf_addrdie() */
	size_t nranges;
	bool ranges_made;
	char build_id[41];
	char *symbols;
	size_t symbols_len;
};

/* Whether @s is a symbol with an address (functions, data, labels such as _text). */
static bool has_address(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE || !s->st_value)
		return false;
	return type == STT_FUNC || type == STT_NOTYPE || type == STT_OBJECT;
}

/* Section flags of section @index, 0 when unknown. */
static unsigned long long section_flags(Elf *elf, size_t index)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, index);

	return scn && gelf_getshdr(scn, &sh) ? sh.sh_flags : 0;
}

/*
 * Write the symbols of symbol table @scn to @out as kallsyms lines: 't'
 * in code, 'd' elsewhere (upper case when global). Data symbols end the
 * last function, as in kallsyms.
 */
static void write_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, FILE *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (i = 0; data && i < n; i++) {
		GElf_Sym s;
		const char *name;

		char type;

		if (!gelf_getsym(data, (int)i, &s) || !has_address(&s))
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !name[0] || strpbrk(name, "\n\t"))
			continue;
		type = section_flags(elf, s.st_shndx) & SHF_EXECINSTR ? 't' : 'd';
		fprintf(out, "%016llx %c %s\n", (unsigned long long)s.st_value,
			GELF_ST_BIND(s.st_info) == STB_LOCAL ? type : type - 'a' + 'A', name);
	}
}

/* The kallsyms text of all symbol tables; -1 when there is none. */
static int read_symbols(struct kmt_vmlinux *vm)
{
	FILE *out = open_memstream(&vm->symbols, &vm->symbols_len);
	Elf_Scn *scn = NULL;
	bool found = false;

	if (!out)
		return -1;
	while ((scn = elf_nextscn(vm->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		write_symtab(vm->elf, scn, &sh, out);
		found = true;
	}
	if (fclose(out) || !found)
		return -1;
	return 0;
}

static void read_build_id(struct kmt_vmlinux *vm)
{
	const void *id;
	ssize_t len = dwelf_elf_gnu_build_id(vm->elf, &id);
	ssize_t i;

	for (i = 0; i < len && i < 20; i++)
		sprintf(vm->build_id + 2 * i, "%02x", ((const unsigned char *)id)[i]);
}

struct kmt_vmlinux *kmt_vmlinux_open(const char *path, const char **why)
{
	struct kmt_vmlinux *vm = calloc(1, sizeof(*vm));

	*why = "out of memory";
	if (!vm)
		return NULL;
	elf_version(EV_CURRENT);
	vm->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (vm->fd < 0) {
		*why = strerror(errno);
		free(vm);
		return NULL;
	}
	vm->elf = elf_begin(vm->fd, ELF_C_READ_MMAP, NULL);
	if (!vm->elf || elf_kind(vm->elf) != ELF_K_ELF) {
		*why = "not an ELF file";
		goto fail;
	}
	if (read_symbols(vm)) {
		*why = "no symbol table in it (stripped?)";
		goto fail;
	}
	read_build_id(vm);
	vm->dwarf = dwarf_begin_elf(vm->elf, DWARF_C_READ, NULL);
	return vm;
fail:
	kmt_vmlinux_close(vm);
	errno = EINVAL;
	return NULL;
}

void kmt_vmlinux_close(struct kmt_vmlinux *vm)
{
	if (!vm)
		return;
	if (vm->dwarf)
		dwarf_end(vm->dwarf);
	if (vm->elf)
		elf_end(vm->elf);
	close(vm->fd);
	free(vm->ranges);
	free(vm->symbols);
	free(vm);
}

const char *kmt_vmlinux_symbols(struct kmt_vmlinux *vm, size_t *len)
{
	*len = vm->symbols_len;
	return vm->symbols;
}

const char *kmt_vmlinux_build_id(const struct kmt_vmlinux *vm)
{
	return vm->build_id;
}

bool kmt_vmlinux_has_dwarf(const struct kmt_vmlinux *vm)
{
	return vm->dwarf != NULL;
}

/*
 * Drop the "." and empty components of @path ("a//b" is "a/b") and fold
 * each ".." into the one before it, in place.
 */
static void fold_dots(char *path)
{
	char *in = path, *out = path;

	while (*in) {
		size_t n = strcspn(in, "/");

		if (!n && in > path) {
			in++;
			continue;
		}
		if (n == 1 && in[0] == '.') {
			in += 1 + (in[1] == '/');
			continue;
		}
		if (n == 2 && in[0] == '.' && in[1] == '.' && out > path) {
			out--;		/* the '/' after the previous component */
			while (out > path && out[-1] != '/')
				out--;
			in += 2 + (in[2] == '/');
			continue;
		}
		memmove(out, in, n + (in[n] == '/'));
		out += n + (in[n] == '/');
		in += n + (in[n] == '/');
	}
	*out = '\0';
}

/*
 * How much of absolute @path to drop: the longest directory above
 * absolute @comp_dir, at least two levels deep, that holds @path (the
 * source tree of an out-of-tree build, whose assembly units name their
 * files by absolute paths); 0 when none does.
 */
static size_t tree_prefix(const char *path, const char *comp_dir)
{
	size_t n = strlen(comp_dir);

	if (path[0] != '/' || comp_dir[0] != '/')
		return 0;
	while (n > 0) {
		do		/* to the '/' that ends the directory above */
			n--;
		while (n > 0 && comp_dir[n] != '/');
		if (!n || !memchr(comp_dir + 1, '/', n - 1))
			return 0;	/* one level left: "/build" holds too much */
		if (!strncmp(path, comp_dir, n) && path[n] == '/')
			return n + 1;
	}
	return 0;
}

void kmt_vmlinux_relative_path(char *buf, size_t len, const char *path, const char *comp_dir)
{
	size_t n = comp_dir ? strlen(comp_dir) : 0;

	if (!path)
		path = "?";
	if (n && !strncmp(path, comp_dir, n) && path[n] == '/')
		path += n + 1;
	else if (n)
		path += tree_prefix(path, comp_dir);
	snprintf(buf, len, "%s", path);
	fold_dots(buf);
}

static const char *die_string(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
}

/* Where the inline @scope was called from, as file:line of @cu. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *scope, const char *comp_dir,
		      struct kmt_source *src)
{
	Dwarf_Attribute attr;
	Dwarf_Word file = 0, line = 0;
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &attr), &file) ||
	    dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attr), &line) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || file >= nfiles)
		return;
	kmt_vmlinux_relative_path(src->caller_file, sizeof(src->caller_file),
				  dwarf_filesrc(files, file, NULL, NULL), comp_dir);
	src->caller_line = (int)line;
}

/*
 * The inlined functions @addr sits in: the innermost's name, the
 * outermost's call site (in the real function). dwarf_getscopes() goes on
 * from an inlined instance into its abstract origin's scopes, so the
 * chain of callers is the concrete scopes around the innermost instance.
 */
static void inlines(Dwarf_Die *cu, Dwarf_Addr addr, const char *comp_dir,
		    struct kmt_source *src)
{
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int i, j, n = dwarf_getscopes(cu, addr, &scopes), m;
	const char *name;

	for (i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine; i++)
		;
	if (i < n) {
		name = die_string(&scopes[i], DW_AT_name);
		snprintf(src->inlined, sizeof(src->inlined), "%s", name ? name : "?");
		call_site(cu, &scopes[i], comp_dir, src);
		m = dwarf_getscopes_die(&scopes[i], &chain);
		for (j = 1; j < m; j++)
			if (dwarf_tag(&chain[j]) == DW_TAG_inlined_subroutine)
				call_site(cu, &chain[j], comp_dir, src);
	}
	free(chain);
	free(scopes);
}

static int by_low(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

/* The address ranges of every compile unit, sorted: 0, or -1 when out of memory. */
static int make_ranges(struct kmt_vmlinux *vm)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	vm->ranges_made = true;
	while (!dwarf_nextcu(vm->dwarf, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Addr base, low, high;
		ptrdiff_t at = 0;

		while (dwarf_offdie(vm->dwarf, off + hsize, &cu) &&
		       (at = dwarf_ranges(&cu, at, &base, &low, &high)) > 0) {
			if (vm->nranges == cap) {
				struct cu_range *r = realloc(vm->ranges, (cap = cap * 2 + 64) *
							     sizeof(*r));

				if (!r)
					return -1;
				vm->ranges = r;
			}
			vm->ranges[vm->nranges++] = (struct cu_range){ low, high, off + hsize };
		}
		off = next;
	}
	qsort(vm->ranges, vm->nranges, sizeof(*vm->ranges), by_low);
	return 0;
}

/* The compile unit holding @addr into @cu: by .debug_aranges, else by each unit's ranges. */
static bool unit_of(struct kmt_vmlinux *vm, Dwarf_Addr addr, Dwarf_Die *cu)
{
	size_t lo = 0, hi;

	if (dwarf_addrdie(vm->dwarf, addr, cu))
		return true;
	if (!vm->ranges_made && make_ranges(vm))
		return false;
	hi = vm->nranges;
	while (lo < hi) {	/* the first range starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (vm->ranges[mid].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0)	/* ranges may nest or overlap: look back */
		if (addr < vm->ranges[lo].high)
			return dwarf_offdie(vm->dwarf, vm->ranges[lo].cu, cu) != NULL;
	return false;
}

bool kmt_vmlinux_source(struct kmt_vmlinux *vm, unsigned long long addr,
			struct kmt_source *src)
{
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *comp_dir;

	memset(src, 0, sizeof(*src));
	if (!vm->dwarf || !unit_of(vm, addr, &cu))
		return false;
	comp_dir = die_string(&cu, DW_AT_comp_dir);
	line = dwarf_getsrc_die(&cu, addr);
	if (line && !dwarf_lineno(line, &src->line) && src->line > 0)
		kmt_vmlinux_relative_path(src->file, sizeof(src->file),
					  dwarf_linesrc(line, NULL, NULL), comp_dir);
	else			/* no row, or line 0: DWARF's "no source line" */
		snprintf(src->file, sizeof(src->file), "?");
	inlines(&cu, addr, comp_dir, src);
	if (!src->caller_file[0]) {	/* not inlined: its own line, if any */
		if (!src->line)
			return false;
		memcpy(src->caller_file, src->file, sizeof(src->file));
		src->caller_line = src->line;
	}
	return true;
}
