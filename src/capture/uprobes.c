// SPDX-License-Identifier: LGPL-2.1
/*
 * What record --user writes into uprobe_events: where each allocator is in
 * the library file, and the fetch arguments of each architecture. Nothing
 * here touches tracefs (record_uprobes.c does).
 */
#include <stdio.h>
#include <string.h>

#include "uprobes.h"
#include "container/elfsyms.h"

static const struct kmt_uprobe_regs regs_table[] = {
	{ "x86_64", { "%di", "%si", "%dx" }, "+0(%sp)" },	/* the call pushed it */
	{ "aarch64", { "%x0", "%x1", "%x2" }, "%x30" },	/* the link register */
};

static const char *const func_names[KMT_UF_NR][2] = {
	[KMT_UF_MALLOC] = { "malloc" },
	[KMT_UF_CALLOC] = { "calloc" },
	[KMT_UF_REALLOC] = { "realloc" },
	[KMT_UF_FREE] = { "free" },
	[KMT_UF_MEMALIGN] = { "memalign", "aligned_alloc" },
	[KMT_UF_VALLOC] = { "valloc" },
	[KMT_UF_PVALLOC] = { "pvalloc" },
	[KMT_UF_POSIX_MEMALIGN] = { "posix_memalign" },
};

/* The argument that holds the size asked for, per function; -1: none alone. */
static const int size_arg[KMT_UF_NR] = {
	[KMT_UF_NONE] = -1, [KMT_UF_MALLOC] = 0, [KMT_UF_CALLOC] = -1, [KMT_UF_REALLOC] = 1,
	[KMT_UF_FREE] = -1, [KMT_UF_MEMALIGN] = 1, [KMT_UF_VALLOC] = 0, [KMT_UF_PVALLOC] = 0,
	[KMT_UF_POSIX_MEMALIGN] = 2,
};

const struct kmt_uprobe_regs *kmt_uprobe_regs_of(const char *machine)
{
	size_t i;

	for (i = 0; i < sizeof(regs_table) / sizeof(regs_table[0]); i++)
		if (!strcmp(regs_table[i].machine, machine))
			return &regs_table[i];
	return NULL;
}

/* Is @offset already one of the @n @sites (an alias)? */
static bool known_site(const struct kmt_uprobe_site *sites, int n, unsigned long long offset)
{
	int i;

	for (i = 0; i < n; i++)
		if (sites[i].offset == offset)
			return true;
	return false;
}

int kmt_uprobe_sites(const char *path, struct kmt_uprobe_site *sites, char *why, size_t len)
{
	struct kmt_elfsyms e;
	int f, k, n = 0;

	if (kmt_elfsyms_load(&e, path, why, len))
		return -1;
	for (f = KMT_UF_NONE + 1; f < KMT_UF_NR; f++) {
		for (k = 0; k < 2 && func_names[f][k]; k++) {
			const struct kmt_elf_sym *s = kmt_elfsyms_find(&e, func_names[f][k]);
			long long off = s ? kmt_elfsyms_offset_of(&e, s->addr) : -1;

			if (off >= 0 && !known_site(sites, n, off))
				sites[n++] = (struct kmt_uprobe_site){ f, off };
		}
	}
	kmt_elfsyms_free(&e);
	if (!n || sites[0].func != KMT_UF_MALLOC) {
		snprintf(why, len, "%s has no malloc function", path);
		return -1;
	}
	return n;
}

int kmt_uprobe_line(char *buf, size_t len, const struct kmt_uprobe_regs *regs,
		    const char *path, const struct kmt_uprobe_site *site, bool ret)
{
	if (ret)
		return snprintf(buf, len, "r:%s/%s %s:0x%llx ret=$retval:x64 fn=\\%d:u8",
				KMT_UPROBE_SYSTEM, KMT_UPROBE_RETURN, path, site->offset,
				site->func);
	return snprintf(buf, len, "p:%s/%s %s:0x%llx a0=%s:x64 a1=%s:x64 a2=%s:x64 "
			"caller=%s:x64 fn=\\%d:u8", KMT_UPROBE_SYSTEM, KMT_UPROBE_CALL, path,
			site->offset, regs->arg[0], regs->arg[1], regs->arg[2], regs->caller,
			site->func);
}

int kmt_uprobe_min_size_filter(char *buf, size_t len, unsigned long long min)
{
	int f, n = snprintf(buf, len, "fn == %d || fn == %d", KMT_UF_FREE, KMT_UF_CALLOC);

	for (f = KMT_UF_NONE + 1; f < KMT_UF_NR && n >= 0 && (size_t)n < len; f++)
		if (size_arg[f] >= 0)
			n += snprintf(buf + n, len - n, " || (fn == %d && a%d >= %llu)", f,
				      size_arg[f], min);
	return n;
}
