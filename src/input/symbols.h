/* SPDX-License-Identifier: LGPL-2.1 */
/* Kernel symbols from a saved /proc/kallsyms; private to src/. */
#ifndef KMT_SYMBOLS_H
#define KMT_SYMBOLS_H

#include <stddef.h>

struct kmt_symbols;

/*
 * Build a sorted symbol table from the kallsyms text @text of @len bytes
 * (its names copied; a NUL ends it early). Like libtraceevent, absolute
 * symbols and ARM '$' mapping symbols are left out, and of several symbols
 * at one address the first listed wins. Returns NULL with errno on allocation failure; lines that
 * do not parse are skipped.
 */
struct kmt_symbols *kmt_symbols_parse(const char *text, size_t len);

/*
 * kmt_symbols_parse() of the file at @path (/proc/kallsyms), read a piece
 * at a time: the text is never held whole. NULL with errno when it cannot
 * be read or on allocation failure.
 */
struct kmt_symbols *kmt_symbols_read(const char *path);

/*
 * The _text address of the kallsyms at @path (/proc/kallsyms), reading no
 * further than its _text line or @max bytes; 0 when it has none there or
 * cannot be read.
 */
unsigned long long kmt_symbols_read_text_addr(const char *path, size_t max);

/* A loaded module's text, where /proc/modules puts it: [start, end). */
struct kmt_module_span {
	const char *name;
	unsigned long long start, end;
};

/*
 * Do the module symbols of @syms match the @n loaded modules @mods: every
 * module it names loaded, and each loaded module with a symbol in its
 * span (JIT'd code, "bpf" and "__builtin__*", is in no module)? 0 when
 * they match; 1 with *@which a loaded module without a symbol in its span,
 * 2 with *@which a module @syms names that is not loaded; -1 when out of
 * memory.
 */
int kmt_symbols_check_modules(const struct kmt_symbols *syms, const struct kmt_module_span *mods,
			      size_t n, const char **which);

/*
 * The address of the first core kernel "T _text" line read (0 without
 * one), before any kmt_symbols_relocate(): where the kernel's text started.
 */
unsigned long long kmt_symbols_text_addr(const struct kmt_symbols *syms);

/* Free a table; NULL is ignored. */
void kmt_symbols_free(struct kmt_symbols *syms);

/* Number of symbols kept. */
size_t kmt_symbols_count(const struct kmt_symbols *syms);

/*
 * The function holding @addr: its name, start in @start and module (NULL
 * for the core kernel) in @mod. NULL when @addr is below the first symbol
 * or above the last one.
 */
const char *kmt_symbols_find(const struct kmt_symbols *syms, unsigned long long addr,
			     unsigned long long *start, const char **mod);

/*
 * Add @delta to the address of every core kernel symbol and leave out the
 * module symbols. Returns how many were left out.
 */
size_t kmt_symbols_relocate(struct kmt_symbols *syms, unsigned long long delta);

#endif /* KMT_SYMBOLS_H */
