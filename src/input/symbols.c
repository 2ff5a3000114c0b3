// SPDX-License-Identifier: LGPL-2.1
/*
 * Symbols: one sorted array, the names and modules copied into one string
 * store as they are read (a module's name once per run of its symbols).
 * The kallsyms text itself is not kept: /proc/kallsyms is read and parsed
 * a piece at a time, so a table costs what its names take, not the 5 MB
 * text, a copy of it and the growth of its buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "common/radix.h"
#include "common/util.h"

#define NO_MOD		UINT32_MAX	/* a core kernel symbol's module */
#define READ_PIECE	(256u << 10)	/* /proc/kallsyms read this much at a time */
#define COPY_PIECE	2048u		/* a text in memory copied this much at a time */
#define MAX_NAMES	(UINT32_MAX - 1u)	/* the store's offsets are u32 */

struct symbol {
	unsigned long long addr;
	uint32_t name;		/* offsets in the store */
	uint32_t mod;		/* or NO_MOD */
};

struct kmt_symbols {
	struct symbol *syms;
	uint32_t n, cap;
	char *names;		/* NUL-terminated names and modules */
	uint32_t names_len, names_cap;
	uint32_t last_mod;	/* the module stored last, or NO_MOD */
	char *line;		/* the line being read, NUL-terminated */
	uint32_t line_len, line_cap;
	unsigned long long text_addr;	/* the first "T _text" of the core kernel */
	bool ended;		/* a NUL came: the text ends there */
	bool failed;		/* out of memory while adding */
};

/* Each byte's hex digit value plus one, 0 for a byte that is none: one load a digit. */
static const unsigned char hex_plus_one[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hex_digit(char c)
{
	return (int)hex_plus_one[(unsigned char)c] - 1;
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

/* A line's symbol, pointing into the line: NUL-terminated name and module. */
struct parsed {
	unsigned long long addr;
	char type;
	const char *name;
	const char *mod;	/* NULL: the core kernel */
	size_t name_len;
};

/* Parse one NUL-terminated line in place into @s; false if it is not a symbol. */
static bool parse_line(char *line, struct parsed *s)
{
	char *p, *name, *tab;

	s->addr = line_address(line, &p);
	if (p == line || *p != ' ' || !p[1] || p[2] != ' ')
		return false;
	s->type = p[1];
	name = p + 3;
	if (s->type == 'A' || s->type == 'a' || name[0] == '$' || !name[0])
		return false;
	s->name = name;
	s->mod = NULL;
	tab = strchrnul(name, '\t');
	s->name_len = tab - name;
	if (*tab) {
		char *close;

		*tab = '\0';
		if (tab[1] == '[' && (close = strchr(tab + 2, ']'))) {
			*close = '\0';
			s->mod = tab + 2;
		}
	}
	return true;
}

/* @s of @len bytes and its NUL into @t's store: its offset, or NO_MOD when out of room. */
static uint32_t store(struct kmt_symbols *t, const char *s, size_t len)
{
	uint32_t at = t->names_len;

	len++;
	if (len > MAX_NAMES - at || kmt_grow(&t->names, &t->names_cap, at + len - 1, 1))
		return NO_MOD;
	memcpy(t->names + at, s, len);
	t->names_len += len;
	return at;
}

/* The store's offset of module @mod: the last one's again while they repeat. */
static uint32_t store_module(struct kmt_symbols *t, const char *mod)
{
	if (!mod)
		return NO_MOD;
	if (t->last_mod == NO_MOD || strcmp(t->names + t->last_mod, mod))
		t->last_mod = store(t, mod, strlen(mod));
	return t->last_mod;
}

/* Add the symbol of @line (NUL-terminated, changed in place), if it is one. */
static void add_line(struct kmt_symbols *t, char *line)
{
	struct symbol *sym;
	struct parsed s;

	if (!parse_line(line, &s))
		return;
	if (!t->text_addr && s.type == 'T' && !s.mod && !strcmp(s.name, "_text"))
		t->text_addr = s.addr;
	if (kmt_grow(&t->syms, &t->cap, t->n, sizeof(*t->syms))) {
		t->failed = true;
		return;
	}
	sym = &t->syms[t->n];
	sym->addr = s.addr;
	sym->mod = store_module(t, s.mod);
	sym->name = store(t, s.name, s.name_len);
	if (sym->name == NO_MOD || (s.mod && sym->mod == NO_MOD))
		t->failed = true;
	else
		t->n++;
}

/* Append @len bytes at @p to the line being read; false when out of memory. */
static bool line_append(struct kmt_symbols *t, const char *p, size_t len)
{
	if (len >= UINT32_MAX - t->line_len ||
	    kmt_grow(&t->line, &t->line_cap, t->line_len + (uint32_t)len, 1)) {
		t->failed = true;
		return false;
	}
	memcpy(t->line + t->line_len, p, len);
	t->line_len += len;
	t->line[t->line_len] = '\0';
	return true;
}

/*
 * The @len bytes at @text, the next part of a kallsyms text (changed in
 * place): each whole line added, the last one kept until its end comes.
 * A NUL ends the text, as it ended the string the whole text was parsed as.
 */
static void feed(struct kmt_symbols *t, char *text, size_t len)
{
	char *end = text + len, *nul, *nl;

	if (t->ended)
		return;
	if ((nul = memchr(text, '\0', len))) {
		end = nul;
		t->ended = true;
	}
	if (t->line_len) {	/* the end of the line the last part cut */
		nl = memchr(text, '\n', end - text);
		if (!line_append(t, text, (nl ? nl : end) - text) || !nl)
			return;
		add_line(t, t->line);
		t->line_len = 0;
		text = nl + 1;
	}
	for (; text < end && !t->failed; text = nl + 1) {
		if (!(nl = memchr(text, '\n', end - text))) {
			line_append(t, text, end - text);
			return;
		}
		*nl = '\0';
		add_line(t, text);
	}
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
	size_t i, out = 0;

	if (!sorted(t)) {	/* /proc/kallsyms mostly is */
		struct symbol *tmp = malloc((t->n ? t->n : 1) * sizeof(*tmp));

		if (!tmp)
			return false;
		sort_by_addr(t->syms, tmp, t->n);
		free(tmp);
	}
	for (i = 0; i < t->n; i++)
		if (!out || t->syms[out - 1].addr != t->syms[i].addr)
			t->syms[out++] = t->syms[i];
	t->n = out;
	return true;
}

/* An empty table, to be fed; NULL when out of memory. */
static struct kmt_symbols *table_new(void)
{
	struct kmt_symbols *t = calloc(1, sizeof(*t));

	if (t)
		t->last_mod = NO_MOD;
	return t;
}

/* The last line, the order, and the buffers cut to size: @t, or NULL (freed). */
static struct kmt_symbols *table_done(struct kmt_symbols *t)
{
	char *names;

	if (t->line_len && !t->failed)
		add_line(t, t->line);
	free(t->line);
	t->line = NULL;
	t->line_len = t->line_cap = 0;
	if (t->failed || !sort_unique(t)) {
		kmt_symbols_free(t);
		errno = ENOMEM;
		return NULL;
	}
	if (t->names_len && (names = realloc(t->names, t->names_len)))
		t->names = names;
	return t;
}

struct kmt_symbols *kmt_symbols_parse(const char *text, size_t len)
{
	struct kmt_symbols *t = table_new();
	char piece[COPY_PIECE];	/* small: glibc copies it with vector moves */
	size_t at, n;

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	for (at = 0; at < len && !t->ended && !t->failed; at += n) {
		n = len - at < COPY_PIECE ? len - at : COPY_PIECE;
		memcpy(piece, text + at, n);	/* @text stays as it was */
		feed(t, piece, n);
	}
	return table_done(t);
}

/*
 * Feed @t the file at @path a piece at a time, to its end or, with
 * @to_text, until its _text line came or @max bytes were read. 0, or -1
 * with errno.
 */
static int read_file(struct kmt_symbols *t, const char *path, bool to_text, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0, saved = 0;
	size_t got = 0;
	char *piece;

	if (fd < 0)
		return -1;
	if (!(piece = malloc(READ_PIECE))) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	while (!(to_text && (t->text_addr || got >= max))) {
		ssize_t n = read(fd, piece, READ_PIECE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n ? errno : 0;
			ret = n ? -1 : 0;
			break;
		}
		got += (size_t)n;
		feed(t, piece, (size_t)n);
		if (t->failed) {
			saved = ENOMEM;
			ret = -1;
			break;
		}
	}
	free(piece);
	close(fd);
	errno = saved;
	return ret;
}

struct kmt_symbols *kmt_symbols_read(const char *path)
{
	struct kmt_symbols *t = table_new();
	int saved;

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	if (read_file(t, path, false, SIZE_MAX)) {
		saved = errno;
		kmt_symbols_free(t);
		errno = saved;
		return NULL;
	}
	return table_done(t);
}

unsigned long long kmt_symbols_read_text_addr(const char *path, size_t max)
{
	struct kmt_symbols *t = table_new();
	unsigned long long text = 0;

	if (t && !read_file(t, path, true, max))
		text = t->text_addr;
	kmt_symbols_free(t);
	return text;
}

int kmt_symbols_check_modules(const struct kmt_symbols *t, const struct kmt_module_span *mods,
			      size_t n, const char **which)
{
	uint32_t last = NO_MOD;
	const struct kmt_module_span *m = NULL;
	bool *seen = calloc(n ? n : 1, sizeof(*seen));
	size_t i, k;
	int ret = 0;

	if (!seen)
		return -1;
	*which = NULL;
	for (i = 0; i < t->n && !ret; i++) {
		const struct symbol *s = &t->syms[i];
		const char *name;

		if (s->mod == NO_MOD)
			continue;
		name = t->names + s->mod;
		if (!strcmp(name, "bpf") || !strncmp(name, "__builtin__", 11))
			continue;	/* JIT'd code, trampolines: in no module */
		if (s->mod != last) {
			for (k = 0, m = NULL; k < n && !m; k++)
				m = strcmp(mods[k].name, name) ? NULL : &mods[k];
			last = s->mod;
		}
		if (!m) {
			*which = name;	/* loaded when the copy was made, not now */
			ret = 2;
		} else if (s->addr >= m->start && s->addr < m->end) {
			seen[m - mods] = true;
		}
	}
	for (k = 0; k < n && !ret; k++) {
		if (!seen[k]) {
			*which = mods[k].name;	/* loaded since, or elsewhere */
			ret = 1;
		}
	}
	free(seen);
	return ret;
}

unsigned long long kmt_symbols_text_addr(const struct kmt_symbols *t)
{
	return t->text_addr;
}

void kmt_symbols_free(struct kmt_symbols *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->names);
	free(t->line);
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
		*mod = t->syms[lo].mod == NO_MOD ? NULL : t->names + t->syms[lo].mod;
	return t->names + t->syms[lo].name;
}

size_t kmt_symbols_relocate(struct kmt_symbols *t, unsigned long long delta)
{
	size_t i, kept = 0, left_out;

	for (i = 0; i < t->n; i++) {
		if (t->syms[i].mod != NO_MOD)
			continue;
		t->syms[kept] = t->syms[i];
		t->syms[kept++].addr += delta;
	}
	left_out = t->n - kept;
	t->n = kept;
	sort_unique(t);		/* a sum past 2^64 wraps: order again */
	return left_out;
}
