// SPDX-License-Identifier: LGPL-2.1
/*
 * Symbols: one sorted array over one copy of the kallsyms text, names and
 * modules pointing into it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"
#include "common/radix.h"

struct symbol {
	unsigned long long addr;
	const char *name;
	const char *mod;
};

struct kmt_symbols {
	char *text;
	struct symbol *syms;
	size_t n;
};

static inline int hex_digit(char c)
{
	unsigned int d = (unsigned char)c - '0';

	if (d <= 9)
		return (int)d;
	d = ((unsigned char)c | 0x20) - 'a';
	return d <= 5 ? (int)d + 10 : -1;
}

/*
 * The address at the start of @line, as strtoull(@line, @end, 16) reads it:
 * up to 16 hex digits by hand (a kallsyms line), anything else (blanks, a
 * sign, "0x", more digits) by strtoull itself.
 */
static unsigned long long line_address(char *line, char **end)
{
	unsigned long long v = 0;
	int i, d;

	if (line[0] == '0' && (line[1] | 0x20) == 'x')
		return strtoull(line, end, 16);
	for (i = 0; i < 16 && (d = hex_digit(line[i])) >= 0; i++)
		v = v << 4 | (unsigned int)d;
	if (!i || hex_digit(line[i]) >= 0)
		return strtoull(line, end, 16);
	*end = line + i;
	return v;
}

/* Parse one NUL-terminated line in place into @s; false if it is not a symbol. */
static bool parse_line(char *line, struct symbol *s)
{
	char *p, *name, *tab;
	char type;

	s->addr = line_address(line, &p);
	if (p == line || *p != ' ' || !p[1] || p[2] != ' ')
		return false;
	type = p[1];
	name = p + 3;
	if (type == 'A' || type == 'a' || name[0] == '$' || !name[0])
		return false;
	s->name = name;
	s->mod = NULL;
	tab = strchr(name, '\t');
	if (tab) {
		char *close;

		*tab = '\0';
		if (tab[1] == '[' && (close = strchr(tab + 2, ']'))) {
			*close = '\0';
			s->mod = tab + 2;
		}
	}
	return true;
}

static inline uint64_t addr_of(const struct symbol *s)
{
	return s->addr;
}

KMT_RADIX_SORT(sort_by_addr, struct symbol, addr_of)

static bool sorted(const struct kmt_symbols *t)
{
	size_t i;

	for (i = 1; i < t->n; i++)
		if (t->syms[i].addr < t->syms[i - 1].addr)
			return false;
	return true;
}

/*
 * Sort by address (stably: the symbols are in the text's order) and keep
 * the first listed symbol of each address. false when out of memory.
 */
static bool sort_unique(struct kmt_symbols *t)
{
	struct symbol *tmp = malloc((t->n ? t->n : 1) * sizeof(*tmp));
	size_t i, out = 0;

	if (!tmp)
		return false;
	if (!sorted(t))		/* /proc/kallsyms mostly is */
		sort_by_addr(t->syms, tmp, t->n);
	free(tmp);
	for (i = 0; i < t->n; i++)
		if (!out || t->syms[out - 1].addr != t->syms[i].addr)
			t->syms[out++] = t->syms[i];
	t->n = out;
	return true;
}

/* Lines of the @len bytes at @text, for the array of their symbols (at least as many). */
static size_t count_lines(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t n = 1;

	while ((p = memchr(p, '\n', end - p))) {
		n++;
		p++;
	}
	return n;
}

struct kmt_symbols *kmt_symbols_parse(const char *text, size_t len)
{
	struct kmt_symbols *t = calloc(1, sizeof(*t));
	char *line, *next;

	if (!t || !(t->text = malloc(len + 1)))
		goto fail;
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	t->syms = malloc(count_lines(t->text, len) * sizeof(*t->syms));
	if (!t->syms)
		goto fail;
	for (line = t->text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (parse_line(line, &t->syms[t->n]))
			t->n++;
	}
	if (!sort_unique(t))
		goto fail;
	return t;
fail:
	kmt_symbols_free(t);
	errno = ENOMEM;
	return NULL;
}

void kmt_symbols_free(struct kmt_symbols *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->text);
	free(t);
}

size_t kmt_symbols_count(const struct kmt_symbols *t)
{
	return t->n;
}

const char *kmt_symbols_find(const struct kmt_symbols *t, unsigned long long addr,
			     unsigned long long *start, const char **mod)
{
	size_t lo = 0, hi = t->n;

	if (!t->n || addr < t->syms[0].addr || addr > t->syms[t->n - 1].addr)
		return NULL;
	while (hi - lo > 1) {	/* invariant: syms[lo].addr <= addr < syms[hi].addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (start)
		*start = t->syms[lo].addr;
	if (mod)
		*mod = t->syms[lo].mod;
	return t->syms[lo].name;
}

size_t kmt_symbols_relocate(struct kmt_symbols *t, unsigned long long delta)
{
	size_t i, kept = 0, left_out;

	for (i = 0; i < t->n; i++) {
		if (t->syms[i].mod)
			continue;
		t->syms[kept] = t->syms[i];
		t->syms[kept++].addr += delta;
	}
	left_out = t->n - kept;
	t->n = kept;
	sort_unique(t);		/* a sum past 2^64 wraps: order again */
	return left_out;
}
