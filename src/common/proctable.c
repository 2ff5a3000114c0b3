// SPDX-License-Identifier: LGPL-2.1
/* The task table of proctable.h and its text form. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proctable.h"
#include "hashmap.h"
#include "util.h"

#define TEXTS	5	/* comm, exe, cgroup, container, cmdline: the line's order */

struct kmt_proctable {
	struct kmt_hashmap index;	/* pid -> procs[] */
	struct kmt_process *procs;	/* texts owned */
	uint32_t n, cap;
};

static const char **text_field(struct kmt_process *p, int i)
{
	const char **fields[TEXTS] = { &p->comm, &p->exe, &p->cgroup, &p->container, &p->cmdline };

	return fields[i];
}

struct kmt_proctable *kmt_proctable_new(void)
{
	struct kmt_proctable *t = calloc(1, sizeof(*t));

	if (t && kmt_hashmap_init(&t->index)) {
		free(t);
		return NULL;
	}
	return t;
}

void kmt_proctable_free(struct kmt_proctable *t)
{
	uint32_t i;
	int f;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		for (f = 0; f < TEXTS; f++)
			free((char *)*text_field(&t->procs[i], f));
	free(t->procs);
	kmt_hashmap_free(&t->index);
	free(t);
}

const struct kmt_process *kmt_proctable_find(const struct kmt_proctable *t, int pid)
{
	uint64_t row;

	return kmt_hashmap_get(&t->index, (uint32_t)pid, &row) ? &t->procs[row] : NULL;
}

const struct kmt_process *kmt_proctable_lookup(void *ctx, int pid)
{
	return kmt_proctable_find(ctx, pid);
}

size_t kmt_proctable_count(const struct kmt_proctable *t)
{
	return t->n;
}

static int merge_text(const char **to, const char *from, bool replace)
{
	char *copy;

	if (!from || (*to && (!replace || !strcmp(*to, from))))
		return 0;
	if (!(copy = strdup(from)))
		return -1;
	free((char *)*to);
	*to = copy;
	return 0;
}

static void merge_number(int *to, int from, bool replace)
{
	if (from >= 0 && (replace || *to < 0))
		*to = from;
}

int kmt_proctable_merge(struct kmt_proctable *t, const struct kmt_process *p, bool replace)
{
	struct kmt_process *row;
	bool made;
	uint32_t i;
	int f;

	i = kmt_hashmap_row(&t->index, (uint32_t)p->pid, &t->procs, &t->cap, &t->n,
			    sizeof(*t->procs), &made);
	if (i == KMT_HASHMAP_NO_ROW)
		return -1;
	row = &t->procs[i];
	if (made)
		*row = (struct kmt_process){ .pid = p->pid, .tgid = -1, .ppid = -1,
					     .start_ns = -1, .exit_ns = -1, .seen_ns = -1 };
	merge_number(&row->tgid, p->tgid, replace);
	merge_number(&row->ppid, p->ppid, replace);
	if (p->start_ns >= 0 && (replace || row->start_ns < 0))
		row->start_ns = p->start_ns;
	if (p->exit_ns > 0 && (replace || row->exit_ns <= 0))
		row->exit_ns = p->exit_ns;
	if (p->seen_ns > row->seen_ns)
		row->seen_ns = p->seen_ns;
	for (f = 0; f < TEXTS; f++)
		if (merge_text(text_field(row, f), *text_field((struct kmt_process *)p, f), replace))
			return -1;
	return 0;
}

int kmt_proctable_exec(struct kmt_proctable *t, int pid, const char *exe, long long ts)
{
	struct kmt_process p = { .pid = pid, .tgid = -1, .ppid = -1, .start_ns = -1,
				 .exit_ns = -1, .seen_ns = -1, .exe = exe };
	const struct kmt_process *was = kmt_proctable_find(t, pid);
	struct kmt_process *row;

	if (was && was->seen_ns >= ts)
		return 0;	/* /proc showed what came of it */
	if (was && was->exe && strcmp(was->exe, exe) && was->cmdline) {
		row = &t->procs[was - t->procs];
		free((char *)row->cmdline);
		row->cmdline = NULL;
	}
	return kmt_proctable_merge(t, &p, true);
}

/* @s with '\\', '-' alone and control characters as \xNN; "-" for NULL. */
static int write_text(const char *s, FILE *fp)
{
	if (!s)
		return fputc('-', fp) == EOF ? -1 : 0;
	if (!strcmp(s, "-"))
		return fputs("\\x2d", fp) == EOF ? -1 : 0;
	for (; *s; s++) {
		unsigned char c = *s;
		int ret = (c < 0x20 || c == 0x7f || c == '\\') ? fprintf(fp, "\\x%02x", c) :
								 fputc(c, fp);

		if (ret < 0)
			return -1;
	}
	return 0;
}

int kmt_proctable_write(const struct kmt_proctable *t, FILE *fp)
{
	uint32_t i;
	int f;

	for (i = 0; i < t->n; i++) {
		struct kmt_process *p = &t->procs[i];

		if (fprintf(fp, "%d %d %d %lld %lld", p->pid, p->tgid, p->ppid, p->start_ns,
			    p->seen_ns) < 0)
			return -1;
		for (f = 0; f < TEXTS; f++)
			if (fputc('\t', fp) == EOF || write_text(*text_field(p, f), fp))
				return -1;
		if (fputc('\n', fp) == EOF)
			return -1;
	}
	return 0;
}

static int hex_digit(char c)
{
	return isdigit((unsigned char)c) ? c - '0' :
	       isxdigit((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10 : -1;
}

/* Field [@s, @end) of a line, unescaped into a new string; NULL for "-" (*@bad on error). */
static char *read_text(const char *s, const char *end, bool *bad)
{
	char *out, *o;

	if (end - s == 1 && *s == '-')
		return NULL;
	if (!(out = o = malloc(end - s + 1))) {
		*bad = true;
		return NULL;
	}
	while (s < end) {
		if (*s == '\\' && end - s >= 4 && s[1] == 'x' && hex_digit(s[2]) >= 0 &&
		    hex_digit(s[3]) >= 0) {
			*o++ = (char)(hex_digit(s[2]) * 16 + hex_digit(s[3]));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* One line [@s, @end) into @p (texts allocated). false when it does not parse. */
static bool parse_line(const char *s, const char *end, struct kmt_process *p, bool *oom)
{
	const char *tab = memchr(s, '\t', end - s);
	char head[96];
	int f;

	if (!tab || tab - s >= (long)sizeof(head))
		return false;
	memcpy(head, s, tab - s);
	head[tab - s] = '\0';
	*p = (struct kmt_process){ 0 };
	if (sscanf(head, "%d %d %d %lld %lld", &p->pid, &p->tgid, &p->ppid, &p->start_ns,
		   &p->seen_ns) != 5 ||
	    p->pid < 0)
		return false;
	for (f = 0; f < TEXTS; f++) {
		const char *from = tab + 1;

		tab = f < TEXTS - 1 ? memchr(from, '\t', end - from) : end;
		if (!tab)
			return false;
		*text_field(p, f) = read_text(from, tab, oom);
		if (*oom)
			return false;
	}
	return true;
}

static void free_texts(struct kmt_process *p)
{
	int f;

	for (f = 0; f < TEXTS; f++)
		free((char *)*text_field(p, f));
}

long kmt_proctable_parse(struct kmt_proctable *t, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	long added = 0;

	while (s < end) {
		const char *eol = memchr(s, '\n', end - s);
		struct kmt_process p = { 0 };
		bool oom = false, ok;

		eol = eol ? eol : end;
		ok = parse_line(s, eol, &p, &oom);
		if (ok && kmt_proctable_merge(t, &p, true))
			oom = true;
		free_texts(&p);
		if (oom)
			return -1;
		added += ok;
		s = eol + 1;
	}
	return added;
}

struct file_name {
	unsigned long long dev, ino;
	char *path;
};

struct kmt_filetable {
	struct kmt_hashmap index;	/* hash of (dev, ino) -> names[] */
	struct file_name *names;
	uint32_t n, cap;
};

struct kmt_filetable *kmt_filetable_new(void)
{
	struct kmt_filetable *f = calloc(1, sizeof(*f));

	if (f && kmt_hashmap_init(&f->index)) {
		free(f);
		return NULL;
	}
	return f;
}

void kmt_filetable_free(struct kmt_filetable *f)
{
	uint32_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free(f->names[i].path);
	free(f->names);
	kmt_hashmap_free(&f->index);
	free(f);
}

static uint64_t file_key(unsigned long long dev, unsigned long long ino)
{
	return kmt_hash_words((uint64_t[]){ dev, ino }, 2);
}

int kmt_filetable_add(struct kmt_filetable *f, unsigned long long dev, unsigned long long ino,
		      const char *path)
{
	uint32_t i;
	bool made;

	/* Two files sharing a key: the second stays unnamed (the key is 64 bits of hash). */
	i = kmt_hashmap_row(&f->index, file_key(dev, ino), &f->names, &f->cap, &f->n,
			    sizeof(*f->names), &made);
	if (i == KMT_HASHMAP_NO_ROW)
		return -1;
	if (!made)
		return 0;
	f->names[i] = (struct file_name){ dev, ino, strdup(path) };
	return f->names[i].path ? 0 : -1;
}

const char *kmt_filetable_find(const struct kmt_filetable *f, unsigned long long dev,
			       unsigned long long ino)
{
	uint64_t i;

	if (!kmt_hashmap_get(&f->index, file_key(dev, ino), &i) || f->names[i].dev != dev ||
	    f->names[i].ino != ino)
		return NULL;
	return f->names[i].path;
}

int kmt_filetable_write(const struct kmt_filetable *f, FILE *fp)
{
	uint32_t i;

	for (i = 0; i < f->n; i++)
		if (fprintf(fp, "%llu %llu ", f->names[i].dev, f->names[i].ino) < 0 ||
		    write_text(f->names[i].path, fp) || fputc('\n', fp) == EOF)
			return -1;
	return 0;
}

int kmt_filetable_parse(struct kmt_filetable *f, const char *text, size_t len)
{
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *eol = memchr(s, '\n', end - s), *path;
		unsigned long long dev, ino;
		char head[64], *name;
		bool oom = false;
		int at = 0;

		eol = eol ? eol : end;
		snprintf(head, sizeof(head), "%.*s", (int)(eol - s), s);
		if (sscanf(head, "%llu %llu %n", &dev, &ino, &at) == 2 && at && s + at < eol) {
			path = s + at;
			name = read_text(path, eol, &oom);
			if (oom || (name && kmt_filetable_add(f, dev, ino, name))) {
				free(name);
				return -1;
			}
			free(name);
		}
		s = eol + 1;
	}
	return 0;
}

bool kmt_container_id(const char *cgroup, char *buf, size_t len)
{
	const char *p, *found = NULL;
	size_t run = 0;

	if (!cgroup || len < 65)
		return false;
	for (p = cgroup; *p; p++) {
		run = isxdigit((unsigned char)*p) ? run + 1 : 0;
		if (run == 64 && !isxdigit((unsigned char)p[1]))
			found = p - 63;
	}
	if (!found)
		return false;
	memcpy(buf, found, 64);
	buf[64] = '\0';
	return true;
}
