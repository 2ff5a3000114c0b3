/* SPDX-License-Identifier: LGPL-2.1 */
/* Kernel symbols from a saved /proc/kallsyms; private to src/. */
#ifndef KMT_SYMBOLS_H
#define KMT_SYMBOLS_H

#include <stddef.h>

struct kmt_symbols;

/*
 * Build a sorted symbol table from the kallsyms text @text of @len bytes
 * (copied). Like libtraceevent, absolute symbols and ARM '$' mapping
 * symbols are left out, and of several symbols at one address the first
 * listed wins. Returns NULL with errno on allocation failure; lines that
 * do not parse are skipped.
 */
struct kmt_symbols *kmt_symbols_parse(const char *text, size_t len);

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
