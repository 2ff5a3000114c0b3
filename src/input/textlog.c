// SPDX-License-Identifier: LGPL-2.1
/*
 * ftrace text: what `cat trace`, `cat trace_pipe` and `trace-cmd report`
 * print. Each event line ("COMM-PID [CPU] FLAGS TIME: EVENT: FIELDS") is
 * turned back into the binary record its event format describes, so that
 * decoding and the analyses work as for trace.dat. The fields are found
 * through the event's print format: each "label=%conv" is paired with its
 * argument, which names the field (directly, through a cast, __print_flags,
 * __print_symbolic, or the true side of a "field != K ? field : C"
 * ternary, whose C is read back as K). Flag and symbol names are read back
 * through the tables of the format; %pS call sites get made-up addresses in
 * a symbol table of their own, so reports name them as the text does.
 * The formats are those shipped for known kernels (formats/), or those of
 * --formats DIR. Lines that do not parse are counted, and the first few
 * kept with their numbers.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "formats.h"
#include "common/hashmap.h"
#include "reader_local.h"
#include "common/util.h"

#define LINE_MAX_LEN	65536
#define READ_CHUNK	(1u << 20)
#define KEPT_BAD	5		/* unparsed lines shown */
/*
 * Made-up addresses of named call sites: below any kernel's addresses,
 * with room for offsets inside one function. A 32-bit kernel's fields hold
 * 32 bits: there they lie below the lowest kernel split (1G/3G, modules
 * from 0x3f000000).
 */
#define FAKE_SYM_BASE	0x0000100000000000ull
#define FAKE_SYM_STRIDE	(1ull << 24)
#define FAKE_SYM_BASE32	0x10000000ull
#define FAKE_SYM_STRIDE32 (1ull << 16)
#define FAKE_SYMS32	((0x3f000000ull - FAKE_SYM_BASE32) / FAKE_SYM_STRIDE32)
#define KMT_UNAME_MAX	256	/* of a --formats directory's uname file */
#define MAX_RECORD	65536	/* formats.c lets no field past it */
#define MAX_SECONDS	18446744072ull	/* the most a u64 of nanoseconds holds, a second short */
#define MAX_SHAPES	64		/* line shapes kept to try the other shipped formats on */

extern const char *const kmt_shipped_formats[][2];

enum tl_kind { TL_NUMBER, TL_FLAGS, TL_SYMBOLIC, TL_FUNCTION, TL_STRING, TL_BOOL };

/* One "label=%conv" of a print format and the field it fills. */
struct tl_label {
	char *label;
	struct tep_format_field *field;
	enum tl_kind kind;
	int base;
	bool hex_prefixed;		/* "0x%lx": a value the text wrote without 0x is
					   decimal (older kernels print such fields %lu) */
	bool code;			/* a kernel code address: %pS, or call_site */
	struct tep_print_flag_sym *table;	/* TL_FLAGS, TL_SYMBOLIC */
	struct tep_print_arg *flags;	/* TL_FLAGS: the __print_flags() */
	const char *delim;
	const char *zero_text;		/* "f ? ... : \"TEXT\"": TEXT reads back as 0 */
	const char *true_text;		/* TL_BOOL, "f ? \"TEXT\" : \"...\"": TEXT is 1 */
	bool sentinel;			/* "f != K ? f : C": C reads back as K */
	long long sentinel_shown, sentinel_value;
};

struct tl_event {
	char *name;
	struct tep_event *event;
	struct tl_label *labels;
	int nlabels;
	int size;			/* fixed part of the record */
	struct tep_format_field *type_field, *pid_field;	/* common_type, common_pid */
	struct tep_format_field *node_field;	/* "node", -1 (NUMA_NO_NODE) unless a line
						   gives it: older kernels' kmalloc has none */
};

struct textlog {
	int fd;
	char *buf;			/* unread bytes [start, end) */
	size_t start, end, cap;
	bool eof, finished, too_long;
	unsigned long long lineno;
	unsigned char *rec;		/* the record handed out last */
	size_t rec_cap;
	struct tl_event *events;
	int nevents, cap_events;
	struct kmt_hashmap event_index;	/* name hash -> events[] */
	struct kmt_hashmap sym_index;	/* "name [mod]" hash -> syms[] */
	struct kmt_hashmap flag_values;	/* hash of flags text and field -> value */
	char **syms;
	uint32_t nsyms, cap_syms;
	unsigned long long fake_base, fake_stride;	/* for the kernel's long size */
	uint32_t fake_max;		/* made-up symbols that fit below its addresses */
	unsigned long long unparsed;
	char kept[KEPT_BAD][160];
	char *text;			/* the fields of the line handed out last, as written */
	size_t text_len, text_cap;
	int shipped;			/* the shipped set read (-1: --formats DIR) */
	char *shapes[MAX_SHAPES];	/* "EVENT LABEL..." of the lines, distinct */
	int nshapes;
	struct kmt_hashmap shape_index;	/* hash of a shape -> 1 */
	unsigned long long unfit_lines;	/* lines with a label or event the formats lack */
};

/* ---------------------------------------------------------------- formats */

/* Format texts gathered before they are parsed together. */
struct tl_formats {
	struct kmt_format_text *f;
	uint32_t n, cap;
	char **owned;		/* texts and systems read from files */
	uint32_t nowned, cap_owned;
};

static int add_format(struct tl_formats *l, const char *system, const char *text, size_t len)
{
	if (kmt_grow(&l->f, &l->cap, l->n, sizeof(*l->f)))
		return -1;
	l->f[l->n++] = (struct kmt_format_text){ system, text, len, -1 };
	return 0;
}

/* Keep @s (malloc'ed) until the formats are parsed; NULL is out of memory. */
static char *own(struct tl_formats *l, char *s)
{
	if (!s || kmt_grow(&l->owned, &l->cap_owned, l->nowned, sizeof(*l->owned))) {
		free(s);
		return NULL;
	}
	return l->owned[l->nowned++] = s;
}

static void free_formats(struct tl_formats *l)
{
	uint32_t i;

	for (i = 0; i < l->nowned; i++)
		free(l->owned[i]);
	free(l->owned);
	free(l->f);
}

/* A shipped format text into the list @arg, its system name a copy. */
static int add_shipped(void *arg, const char *system, size_t system_len, const char *text,
		       size_t len)
{
	struct tl_formats *l = arg;

	if (!system_len || system_len > 63)
		return -1;
	if (add_format(l, own(l, strndup(system, system_len)), text, len) ||
	    !l->f[l->n - 1].system)
		return -1;
	return 0;
}

/* The shipped formats: "#system NAME" lines, each followed by one format. */
static int load_shipped(struct tl_formats *l, const char *text)
{
	return kmt_formats_shipped_each(text, add_shipped, l);
}

/* --formats DIR: SYSTEM/EVENT/format files, as in tracefs's events directory. */
static int load_dir(struct tl_formats *l, const char *dir)
{
	DIR *d = opendir(dir), *sd;
	struct dirent *s, *e;
	char path[4096];
	int ret = 0;

	if (!d)
		return -1;
	while (!ret && (s = readdir(d))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, s->d_name);
		if (!(sd = opendir(path)))
			continue;
		while (!ret && (e = readdir(sd))) {
			size_t len;
			char *text;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/format", dir, s->d_name, e->d_name);
			if (!(text = kmt_read_text_file(path, &len)))
				continue;
			if (!own(l, text) || add_format(l, own(l, strdup(s->d_name)), text, len) ||
			    !l->f[l->n - 1].system)
				ret = -1;
		}
		closedir(sd);
	}
	closedir(d);
	return ret;
}

/* The index of the shipped set of Linux @version, the newest for NULL; -1 if none. */
static int shipped_set(const char *version)
{
	int i;

	for (i = 0; kmt_shipped_formats[i][0]; i++)
		if (version && !strcmp(kmt_shipped_formats[i][0], version))
			return i;
	return version ? -1 : i - 1;
}

/* @dir/uname, the target's `uname -a`, as the kernel's uname() gives it (no GNU/Linux). */
static void load_uname(struct kmt_reader *r, const char *dir)
{
	static const char os_word[] = " GNU/Linux";
	char path[4096], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/uname", dir);
	text = kmt_read_text_file(path, &len);
	if (!text)
		return;
	len = strcspn(text, "\n");
	if (len > KMT_UNAME_MAX)
		len = KMT_UNAME_MAX;
	text[len] = '\0';
	if (len >= sizeof(os_word) && !strcmp(text + len - (sizeof(os_word) - 1), os_word))
		text[len - (sizeof(os_word) - 1)] = '\0';
	r->texts[KMT_TEXT_UNAME] = text;
}

/* The formats of @dir (or of its events/ directory) and its uname file. */
static int load_formats_dir(struct kmt_reader *r, struct tl_formats *l, const char *dir,
			    struct kmt_error *err)
{
	char events[4096];

	snprintf(events, sizeof(events), "%s/events", dir);
	if (load_dir(l, events) && load_dir(l, dir)) {
		kmt_error_set(err, dir, -1, "cannot read formats: %s", strerror(errno));
		return -1;
	}
	if (kmt_formats_parse(r->tep, l->f, l->n, false, &r->formats) || !r->formats.parsed) {
		kmt_error_set(err, dir, -1, l->n ? "no usable SYSTEM/EVENT/format file in it" :
			      "no SYSTEM/EVENT/format files in it");
		return -1;
	}
	load_uname(r, dir);
	return 0;
}

/*
 * Formats from @dir, or the shipped set @dir names ("6.1": a version no
 * directory has), else the newest shipped ones.
 */
static int load_formats(struct kmt_reader *r, struct textlog *tl, const char *dir,
			const char *path, struct kmt_error *err)
{
	struct tl_formats l = { 0 };
	char uname[128];
	struct stat st;
	int i, ret = -1;

	tl->shipped = -1;
	if (dir && !stat(dir, &st)) {
		ret = load_formats_dir(r, &l, dir, err);
		goto out;
	}
	i = tl->shipped = shipped_set(dir);
	if (i < 0) {
		kmt_error_set(err, dir, -1, "cannot read formats: %s (nor is it a kernel version "
			      "kmtrace ships formats of)", strerror(errno));
		goto out;
	}
	if (load_shipped(&l, kmt_shipped_formats[i][1]) ||
	    kmt_formats_parse(r->tep, l.f, l.n, true, &r->formats) || r->formats.skipped) {
		kmt_error_set(err, path, -1, "shipped formats of Linux %s do not parse",
			      kmt_shipped_formats[i][0]);
		goto out;
	}
	snprintf(uname, sizeof(uname), "Linux ? %s (formats shipped with kmtrace; the text does "
		 "not say)", kmt_shipped_formats[i][0]);
	r->texts[KMT_TEXT_UNAME] = strdup(uname);
	ret = 0;
out:
	free_formats(&l);
	return ret;
}

/*
 * The kernel's long size as its formats show it (a field of type long or
 * unsigned long, such as call_site), this machine's when none has one.
 */
static int formats_long_size(struct tep_handle *tep)
{
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct tep_format_field *f;
	int i;

	for (i = 0; events && events[i]; i++)
		for (f = events[i]->format.fields; f; f = f->next)
			if (!strcmp(f->type, "unsigned long") || !strcmp(f->type, "long"))
				return f->size;
	return sizeof(long);
}

/* ---------------------------------------------------------------- print format */

static bool is_atom(const struct tep_print_arg *a)
{
	return a && a->type == TEP_PRINT_ATOM && a->atom.atom;
}

/* The value of constant @a: an atom, or libtraceevent's unary minus over one (-1UL). */
static bool constant(const struct tep_print_arg *a, long long *v)
{
	if (is_atom(a)) {
		*v = strtoll(a->atom.atom, NULL, 0);
		return true;
	}
	if (a && a->type == TEP_PRINT_OP && !strcmp(a->op.op, "-") &&
	    (!a->op.left || a->op.left->type == TEP_PRINT_NULL) && is_atom(a->op.right)) {
		*v = -strtoll(a->op.right->atom.atom, NULL, 0);
		return true;
	}
	return false;
}

/* Is @a a word ("true", "none"), not a number? */
static bool is_word(const struct tep_print_arg *a)
{
	return is_atom(a) && (a->atom.atom[0] < '0' || a->atom.atom[0] > '9') &&
	       a->atom.atom[0] != '-';
}

/* The field an argument prints, and how: NULL when it is computed. */
static struct tep_format_field *dig(struct tep_event *ev, struct tep_print_arg *a,
				    struct tl_label *l)
{
	struct tep_print_arg *cond, *branches;

	switch (a ? a->type : TEP_PRINT_NULL) {
	case TEP_PRINT_FIELD:
		return tep_find_any_field(ev, a->field.name);
	case TEP_PRINT_STRING:
		l->kind = TL_STRING;
		return tep_find_any_field(ev, a->string.string);
	case TEP_PRINT_TYPE:
		return dig(ev, a->typecast.item, l);
	case TEP_PRINT_FLAGS:
		l->kind = TL_FLAGS;
		l->flags = a;
		l->table = a->flags.flags;
		l->delim = a->flags.delim;
		return dig(ev, a->flags.field, l);
	case TEP_PRINT_SYMBOL:
		l->kind = TL_SYMBOLIC;
		l->table = a->symbol.symbols;
		return dig(ev, a->symbol.field, l);
	case TEP_PRINT_OP:
		if (strcmp(a->op.op, "?"))
			return NULL;
		cond = a->op.left;
		branches = a->op.right;
		if (!branches || branches->type != TEP_PRINT_OP || strcmp(branches->op.op, ":"))
			return NULL;
		if (cond && cond->type == TEP_PRINT_OP && !strcmp(cond->op.op, "!=") &&
		    constant(cond->op.right, &l->sentinel_value) &&
		    constant(branches->op.right, &l->sentinel_shown)) {
			l->sentinel = true;
		} else if (cond && cond->type == TEP_PRINT_FIELD && is_word(branches->op.left) &&
			   is_word(branches->op.right)) {
			l->kind = TL_BOOL;	/* "f ? \"true\" : \"false\"" */
			l->true_text = branches->op.left->atom.atom;
			return tep_find_any_field(ev, cond->field.name);
		} else if (is_word(branches->op.right)) {
			l->zero_text = branches->op.right->atom.atom;	/* "f ? flags : \"none\"" */
		}
		return dig(ev, branches->op.left, l);
	default:
		return NULL;
	}
}

/* Skip a conversion at @p (after '%'); its kind letter in *@conv. */
static const char *conversion(const char *p, char *conv, bool *star)
{
	*star = false;
	while (*p && strchr("-+ #0123456789.*lhzjt", *p)) {
		if (*p == '*')
			*star = true;
		p++;
	}
	*conv = *p;
	if (*p == 'p')
		while (p[1] && strchr("SsFfBbKxRrMmIiUEhadg", p[1]) && p[1] != ' ')
			p++;
	if (*conv == 'p' && p[0] != 'p' && strchr("SsFfB", p[0]))
		*conv = 'S';
	return *p ? p + 1 : p;
}

/* The label before "=" ending at @pct (the '%'), or NULL. */
static char *label_before(const char *fmt, const char *pct)
{
	const char *start = pct, *eq = NULL;

	while (start > fmt && start[-1] != ' ' && start[-1] != ',' && start[-1] != '(')
		start--;
	for (const char *q = start; q < pct; q++)
		if (*q == '=') {
			eq = q;
			break;
		}
	return eq && eq > start ? strndup(start, eq - start) : NULL;
}

/*
 * The next conversion of a print format at or after @p: its '%', or NULL
 * when none is left; *@next is past it, its kind letter in *@conv.
 */
static const char *next_conversion(const char *p, const char **next, char *conv, bool *star)
{
	while ((p = strchr(p, '%')) && p[1] == '%')
		p += 2;
	if (p)
		*next = conversion(p + 1, conv, star);
	return p;
}

/* How many arguments the conversions of @fmt take ('*' widths too). */
static int arguments_wanted(const char *fmt)
{
	const char *p = fmt;
	char conv;
	bool star;
	int n = 0;

	while (next_conversion(p, &p, &conv, &star))
		n += 1 + star;
	return n;
}

static int arguments_parsed(const struct tep_print_arg *a)
{
	int n = 0;

	for (; a; a = a->next)
		n++;
	return n;
}

/*
 * A flags or symbol table another event prints a field named @l->label
 * with: every kmem event shows gfp_flags through the same table.
 */
static void borrow_table(struct tep_handle *tep, struct tl_label *l)
{
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int i;

	for (i = 0; events && events[i]; i++) {
		struct tep_print_arg *a;

		for (a = events[i]->print_fmt.args; a; a = a->next) {
			struct tl_label t = { .kind = TL_NUMBER };
			struct tep_format_field *f = dig(events[i], a, &t);

			if (f && t.table && !strcmp(f->name, l->label)) {
				l->kind = t.kind;
				l->table = t.table;
				l->flags = t.flags;
				l->delim = t.delim;
				return;
			}
		}
	}
}

/*
 * Where libtraceevent could not parse a print format's arguments whole
 * (arm64's page events compute page=%p with __builtin_clzll(), which it
 * does not know; a format it leaked on is left without one), every field
 * is its own label, as the kernel's print formats name them: numbers in
 * either base, flags and symbols through another event's table. A
 * "field != K ? field : C" sentinel is then not known.
 */
static int labels_by_name(struct tep_handle *tep, struct tl_event *te)
{
	struct tep_format_field *f;
	int n = 0;

	for (f = te->event->format.fields; f; f = f->next)
		n++;
	te->labels = calloc(n + 1, sizeof(*te->labels));
	if (!te->labels)
		return -1;
	for (f = te->event->format.fields; f; f = f->next) {
		struct tl_label *l = &te->labels[te->nlabels];

		*l = (struct tl_label){ .kind = TL_NUMBER, .base = 0, .field = f,
					.label = strdup(f->name),
					.code = !strcmp(f->name, "call_site") };
		if (!l->label)
			return -1;
		borrow_table(tep, l);
		te->nlabels++;
	}
	return 0;
}

/* Pair the print format's "label=%conv"s with their arguments. */
static int build_labels(struct tep_handle *tep, struct tl_event *te)
{
	struct tep_event *ev = te->event;
	const char *fmt = ev->print_fmt.format, *p = fmt, *pct;
	struct tep_print_arg *arg = ev->print_fmt.args;
	char conv;
	bool star;
	int wanted;

	if (!fmt)
		return -1;	/* no print format: nothing to match a line with */
	wanted = arguments_wanted(fmt);
	if (!wanted || wanted != arguments_parsed(arg))
		return labels_by_name(tep, te);
	te->labels = calloc(strlen(fmt) / 2 + 1, sizeof(*te->labels));
	if (!te->labels)
		return -1;
	while ((pct = next_conversion(p, &p, &conv, &star))) {
		struct tl_label l = { .kind = TL_NUMBER, .base = 10 };

		if (star && arg)
			arg = arg->next;
		l.label = label_before(fmt, pct);
		l.base = conv == 'x' || conv == 'X' || conv == 'p' ? 16 : 10;
		l.hex_prefixed = l.base == 16 && pct - fmt >= 2 && !strncmp(pct - 2, "0x", 2);
		l.field = arg ? dig(ev, arg, &l) : NULL;
		if (conv == 'S')
			l.kind = TL_FUNCTION;
		l.code = l.kind == TL_FUNCTION || (l.field && !strcmp(l.field->name, "call_site"));
		if (l.label && l.field)
			te->labels[te->nlabels++] = l;
		else
			free(l.label);
		if (arg)
			arg = arg->next;
	}
	return 0;
}

static int record_size(struct tep_event *ev)
{
	struct tep_format_field *f;
	int size = 0;

	for (f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	for (f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	return size;
}

/*
 * kmem:kmalloc_node and kmem_cache_alloc_node, which formats of 6.1 and
 * later lack: since 6.1 kmalloc and kmem_cache_alloc carry their node
 * field, and the lines of the older events read as theirs. NULL otherwise.
 */
static struct tep_event *merged_node_event(struct tep_handle *tep, char *name)
{
	static const char suffix[] = "_node";
	size_t len = strlen(name), n = sizeof(suffix) - 1;
	struct tep_event *ev;

	if (len <= n || strcmp(name + len - n, suffix) ||
	    (strcmp(name, "kmalloc_node") && strcmp(name, "kmem_cache_alloc_node")))
		return NULL;
	name[len - n] = '\0';
	ev = tep_find_event_by_name(tep, "kmem", name);
	name[len - n] = suffix[0];
	return ev && tep_find_any_field(ev, "node") ? ev : NULL;
}

/* The event named @name (its print format paired once), or NULL. */
static struct tl_event *event_of(struct kmt_reader *r, struct textlog *tl, const char *name,
				 size_t len)
{
	uint64_t h = kmt_hash_bytes(name, len), idx;
	struct tep_event *ev;
	struct tl_event *te;
	char *copy;

	if (kmt_hashmap_get(&tl->event_index, h, &idx))
		return tl->events[idx].event ? &tl->events[idx] : NULL;
	if (tl->nevents == tl->cap_events) {
		struct tl_event *n = realloc(tl->events, (tl->cap_events * 2 + 8) * sizeof(*n));

		if (!n)
			return NULL;
		tl->events = n;
		tl->cap_events = tl->cap_events * 2 + 8;
	}
	copy = strndup(name, len);
	ev = copy ? tep_find_event_by_name(r->tep, NULL, copy) : NULL;
	if (!ev && copy)
		ev = merged_node_event(r->tep, copy);
	te = &tl->events[tl->nevents];
	*te = (struct tl_event){ .name = copy, .event = ev };
	if (ev && (build_labels(r->tep, te) || (te->size = record_size(ev)) <= 0 ||
		   te->size > MAX_RECORD ||
		   !(te->type_field = tep_find_common_field(ev, "common_type")) ||
		   !(te->pid_field = tep_find_common_field(ev, "common_pid"))))
		te->event = NULL;
	if (te->event)
		te->node_field = tep_find_field(ev, "node");
	if (kmt_hashmap_put(&tl->event_index, h, tl->nevents))
		return NULL;
	tl->nevents++;
	return te->event ? te : NULL;
}

/* ---------------------------------------------------------------- values */

/*
 * Is @v, up to a space or '/', an address printed without 0x: 8 to 16 hex
 * digits, as %lx prints a 32- or 64-bit kernel's (call_site before 5.6)?
 */
static bool bare_address(const char *v)
{
	size_t n = strcspn(v, " /");

	return n >= 8 && n <= 16 && strspn(v, "0123456789abcdefABCDEF") >= n;
}

/* Is @v an address, 0x-prefixed or bare, rather than a name? */
static bool is_address(const char *v)
{
	return !strncmp(v, "0x", 2) || bare_address(v);
}

/* A made-up address for "function+0xOFF[/0xSIZE] [module]" (or the address itself). */
static unsigned long long function_address(struct textlog *tl, const char *v)
{
	const char *plus = strchr(v, '+'), *mod = strchr(v, '[');
	size_t nlen = plus ? (size_t)(plus - v) : strcspn(v, " /");
	unsigned long long off = plus ? strtoull(plus + 1, NULL, 16) : 0;
	char key[320];
	uint64_t idx, h;

	if (!nlen || is_address(v))
		return strtoull(v, NULL, 16);
	/* kallsyms's form: the module after a tab */
	snprintf(key, sizeof(key), "%.*s%s%.*s", (int)nlen, v, mod ? "\t" : "",
		 mod ? (int)strcspn(mod, "]") + 1 : 0, mod ? mod : "");
	h = kmt_hash_bytes(key, strlen(key));
	if (!kmt_hashmap_get(&tl->sym_index, h, &idx)) {
		if (tl->nsyms == tl->fake_max ||
		    kmt_grow(&tl->syms, &tl->cap_syms, tl->nsyms, sizeof(*tl->syms)) ||
		    !(tl->syms[tl->nsyms] = strdup(key)) ||
		    kmt_hashmap_put(&tl->sym_index, h, tl->nsyms))
			return 0;
		idx = tl->nsyms++;
	}
	return tl->fake_base + idx * tl->fake_stride + (off < tl->fake_stride ? off : 0);
}

/* The entry of flag or symbol name @name (@len bytes) in @table, or NULL. */
static const struct tep_print_flag_sym *table_entry(const struct tep_print_flag_sym *table,
						    const char *name, size_t len)
{
	for (; table; table = table->next)
		if (strlen(table->str) == len && !strncmp(table->str, name, len))
			return table;
	return NULL;
}

/* The value of a symbol name in @table, or a number. */
static unsigned long long table_value(const struct tep_print_flag_sym *table, const char *name,
				      size_t len)
{
	const struct tep_print_flag_sym *e = table_entry(table, name, len);

	return strtoull(e ? e->value : name, NULL, 0);
}

/* The bits the values of flags table @t use. */
static unsigned long long table_bits(const struct tep_print_flag_sym *t)
{
	unsigned long long bits = 0;

	for (; t; t = t->next)
		bits |= strtoull(t->value, NULL, 0);
	return bits;
}

/* The table of flags label @l as it is now (entries may have been put first). */
static const struct tep_print_flag_sym *label_table(const struct tl_label *l)
{
	return l->flags ? l->flags->flags.flags : l->table;
}

/*
 * @v as __print_flags() prints it with table @t: each name whose bits are
 * all set, in the table's order, then what is left in hex, @delim between.
 */
static void render_flags(const struct tep_print_flag_sym *t, const char *delim,
			 unsigned long long v, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (; t && v && at < len; t = t->next) {
		unsigned long long m = strtoull(t->value, NULL, 0);

		if (m && (v & m) == m) {
			at += snprintf(buf + at, len - at, "%s%s", at ? delim : "", t->str);
			v &= ~m;
		}
	}
	if (v && at < len)
		snprintf(buf + at, len - at, "%s0x%llx", at ? delim : "", v);
}

/* The __print_flags() of @tep over fields named @field, at most @max into @args; how many. */
static int flags_args(struct tep_handle *tep, const char *field, struct tep_print_arg **args,
		      int max)
{
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int i, n = 0;

	for (i = 0; events && events[i] && n < max; i++) {
		struct tep_print_arg *a;

		for (a = events[i]->print_fmt.args; a && n < max; a = a->next) {
			struct tl_label t = { .kind = TL_NUMBER };
			struct tep_format_field *f = dig(events[i], a, &t);

			if (f && t.flags && !strcmp(f->name, field))
				args[n++] = t.flags;
		}
	}
	return n;
}

/* Put flag @name = @value first in the table of @arg; false when out of memory. */
static bool prepend_flag(struct tep_print_arg *arg, const char *name, unsigned long long value)
{
	struct tep_print_flag_sym *e = calloc(1, sizeof(*e));
	char num[32];

	snprintf(num, sizeof(num), "0x%llx", value);
	if (!e || !(e->value = strdup(num)) || !(e->str = strdup(name))) {
		if (e)
			free(e->value);
		free(e);
		return false;
	}
	e->next = arg->flags.flags;	/* tep_free() frees it with the rest */
	arg->flags.flags = e;
	return true;
}

#define MAX_FLAGS_ARGS	64	/* events printing one flags field (gfp_flags: 9) */

/*
 * Flags text @v that the formats cannot print as the text did: names of
 * another kernel (GFP_NOWARN before 4.4, __GFP_ATOMIC before 6.4), or
 * names it composes otherwise (6.18's GFP_NOWAIT holds __GFP_NOWARN). It
 * gets an entry of its own, first in every table over a field of @l's
 * name: @v as the name, and as the value the bits of its names the
 * formats know (@known) plus a bit no table uses. Reports then show it as
 * written and count it apart, and tests of the known bits still hold.
 * @known alone when no bit of the field is left.
 */
static unsigned long long flags_as_written(struct kmt_reader *r, const struct tl_label *l,
					   const char *v, unsigned long long known)
{
	struct tep_print_arg *args[MAX_FLAGS_ARGS];
	int n = flags_args(r->tep, l->field->name, args, MAX_FLAGS_ARGS), i, bit;
	int width = l->field->size >= 8 ? 64 : l->field->size * 8;
	unsigned long long used = 0;

	for (i = 0; i < n; i++)
		used |= table_bits(args[i]->flags.flags);
	for (bit = 0; bit < width && (used >> bit & 1); bit++)
		;
	if (bit == width)
		return known;
	for (i = 0; i < n; i++)
		if (!prepend_flag(args[i], v, known | 1ull << bit))
			return known;
	return known | 1ull << bit;
}

/* The value of flags text @v: through the table, or an entry of its own (cached). */
static unsigned long long flags_value(struct kmt_reader *r, struct textlog *tl,
				      const struct tl_label *l, const char *v)
{
	const char *delim = l->delim && *l->delim ? l->delim : "|";
	const struct tep_print_flag_sym *table = label_table(l), *e;
	unsigned long long known = 0;
	uint64_t h = kmt_hash_bytes(v, strlen(v)) ^ kmt_hash_bytes(l->field->name,
								   strlen(l->field->name)), cached;
	char shown[1024];
	bool foreign = false;
	const char *p;

	if (kmt_hashmap_get(&tl->flag_values, h, &cached))
		return cached;
	for (p = v; *p; p += strspn(p, delim)) {
		size_t n = strcspn(p, delim);

		if ((e = table_entry(table, p, n)))
			known |= strtoull(e->value, NULL, 0);
		else if (*p >= '0' && *p <= '9')
			known |= strtoull(p, NULL, 0);	/* bits no name covers */
		else
			foreign = true;
		p += n;
	}
	render_flags(table, delim, known, shown, sizeof(shown));
	if (foreign || strcmp(shown, v))
		known = flags_as_written(r, l, v, known);
	kmt_hashmap_put(&tl->flag_values, h, known);	/* a cache: failure is harmless */
	return known;
}

static void put_int(unsigned char *rec, const struct tep_format_field *f, unsigned long long v)
{
	if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
		uint8_t b = v;
		uint16_t h = v;
		uint32_t w = v;
		uint64_t q = v;

		memcpy(rec + f->offset, f->size == 1 ? (void *)&b : f->size == 2 ? (void *)&h :
		       f->size == 4 ? (void *)&w : (void *)&q, f->size);
	}
}

/* Store string @v in field @f: inline array, or appended data at *@tail. */
static int put_string(struct textlog *tl, const struct tep_format_field *f, const char *v,
		      size_t *tail)
{
	size_t len = strlen(v) + 1;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		if (f->size > 0) {
			memset(tl->rec + f->offset, 0, f->size);
			memcpy(tl->rec + f->offset, v, len < (size_t)f->size ? len : (size_t)f->size - 1);
		}
		return 0;
	}
	if (*tail + len > tl->rec_cap || len > 0xffff)
		return -1;
	memcpy(tl->rec + *tail, v, len);
	put_int(tl->rec, f, (len << 16) | (f->flags & TEP_FIELD_IS_RELATIVE ?
					  *tail - (f->offset + f->size) : *tail));
	*tail += len;
	return 0;
}

/* A number as label @l prints it: in the format's base, or as the text wrote it. */
static long long number_value(const struct tl_label *l, const char *v)
{
	long long n;

	if (!strncmp(v, "0x", 2) || !strncmp(v, "0X", 2))
		n = (long long)strtoull(v, NULL, 16);
	else if (l->base == 16 && !l->hex_prefixed)
		n = (long long)strtoull(v, NULL, 16);	/* %lx, %p: bare hex */
	else if (*v == '-')
		n = strtoll(v, NULL, 10);
	else
		n = (long long)strtoull(v, NULL, 10);	/* also "0x%lx" written as %lu */
	if (l->sentinel && n == l->sentinel_shown)
		n = l->sentinel_value;
	return n;
}

static int put_value(struct kmt_reader *r, struct textlog *tl, const struct tl_label *l,
		     const char *v, size_t *tail)
{
	if (l->zero_text && !strcmp(v, l->zero_text)) {
		put_int(tl->rec, l->field, 0);
		return 0;
	}
	switch (l->kind) {
	case TL_STRING:
		return put_string(tl, l->field, v, tail);
	case TL_FLAGS:
		put_int(tl->rec, l->field, flags_value(r, tl, l, v));
		return 0;
	case TL_SYMBOLIC:
		put_int(tl->rec, l->field, table_value(l->table, v, strlen(v)));
		return 0;
	case TL_FUNCTION:
		put_int(tl->rec, l->field, function_address(tl, v));
		return 0;
	case TL_BOOL:
		put_int(tl->rec, l->field, !strcmp(v, l->true_text) || !strcmp(v, "1"));
		return 0;
	case TL_NUMBER:
		if (l->field->flags & TEP_FIELD_IS_STRING)
			return put_string(tl, l->field, v, tail);
		put_int(tl->rec, l->field, number_value(l, v));
		return 0;
	}
	return 0;
}

static const struct tl_label *label_of(const struct tl_event *te, const char *name, size_t n)
{
	int i;

	for (i = 0; i < te->nlabels; i++)
		if (strlen(te->labels[i].label) == n && !strncmp(te->labels[i].label, name, n))
			return &te->labels[i];
	return NULL;
}

/* Does @p start "label=" (a C identifier, then '=')? Its length, or 0. */
static size_t label_len(const char *p)
{
	size_t n = 0;

	while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
	       (n && p[n] >= '0' && p[n] <= '9'))
		n++;
	return n && p[n] == '=' ? n : 0;
}

/*
 * Does @ev's print format print "@label=" (@n bytes), as a field or a
 * computed value (page=%p of the pfn)? A line's label it does not print
 * is of another kernel's format.
 */
static bool printed_label(const struct tep_event *ev, const char *label, size_t n)
{
	const char *fmt = ev->print_fmt.format, *p = fmt;

	while (fmt && (p = strstr(p, label))) {
		if ((p == fmt || strchr(" ,(", p[-1])) && p[n] == '=')
			return true;
		p++;
	}
	return false;
}

/* Keep line shape @shape ("EVENT LABEL...") if new and there is room; -1 when out of memory. */
static int keep_shape(struct textlog *tl, const char *shape)
{
	uint64_t h = kmt_hash_bytes(shape, strlen(shape)), seen;

	if (tl->shipped < 0 || tl->nshapes == MAX_SHAPES ||
	    kmt_hashmap_get(&tl->shape_index, h, &seen))
		return 0;
	if (!(tl->shapes[tl->nshapes] = strdup(shape)) || kmt_hashmap_put(&tl->shape_index, h, 1))
		return -1;
	tl->nshapes++;
	return 0;
}

/*
 * @v as --print shows it: a kernel code address the text gave as a number
 * named where the symbols resolve it ("func+0xOFF [mod]"), else as written.
 */
static const char *shown_value(struct kmt_reader *r, const struct tl_label *l, const char *v,
			       char *buf, size_t len)
{
	unsigned long long start, addr;
	const char *mod, *name;

	if (!l || !l->code || !is_address(v))
		return v;
	addr = strtoull(v, NULL, 16);
	name = kmt_reader_function(r, addr, &start, &mod);
	if (!name)
		return v;
	snprintf(buf, len, "%s+0x%llx%s%s%s", name, addr - start, mod ? " [" : "", mod ? mod : "",
		 mod ? "]" : "");
	return buf;
}

/* Append "@label=@value" (@n bytes of label) to the line's text, a space between pairs. */
static int add_text(struct textlog *tl, const char *label, size_t n, const char *value)
{
	size_t need = tl->text_len + n + strlen(value) + 3;
	char *t;

	if (need > tl->text_cap) {
		if (!(t = realloc(tl->text, need * 2)))
			return -1;
		tl->text = t;
		tl->text_cap = need * 2;
	}
	tl->text_len += sprintf(tl->text + tl->text_len, "%s%.*s=%s", tl->text_len ? " " : "",
				(int)n, label, value);
	return 0;
}

/*
 * Fill the fields from "label=value label=value ...": a value runs to the
 * next " label=" (so "func+0x10/0x40 [mod]" stays whole); text before the
 * first label (a plugin's prefix) is left. With r->keep_text the pairs go
 * to tl->text as well, as the line wrote them.
 */
static int fill_fields(struct kmt_reader *r, struct textlog *tl, const struct tl_event *te,
		       char *text, size_t *tail)
{
	char *p = text, shown[512], shape[512];
	size_t at = snprintf(shape, sizeof(shape), "%s", te->name);
	bool fit = true;

	tl->text_len = 0;
	while (*p && !(label_len(p) && (p == text || p[-1] == ' ')))
		p++;
	while (*p) {
		size_t n = label_len(p);
		char *label = p, *v = p + n + 1, *end = v;
		const struct tl_label *l;

		while (*end && !(end[0] == ' ' && label_len(end + 1)))
			end++;
		p = *end ? end + 1 : end;
		*end = '\0';
		l = label_of(te, label, n);
		fit &= l || printed_label(te->event, label, n);
		if (at < sizeof(shape))
			at += snprintf(shape + at, sizeof(shape) - at, " %.*s", (int)n, label);
		if (l && put_value(r, tl, l, v, tail))
			return -1;
		if (r->keep_text &&
		    add_text(tl, label, n, shown_value(r, l, v, shown, sizeof(shown))))
			return -1;
	}
	tl->unfit_lines += !fit;
	return at < sizeof(shape) ? keep_shape(tl, shape) : 0;
}

/* Would the formats in @tep read line shape @shape ("EVENT LABEL...") whole? */
static bool shape_fits(struct tep_handle *tep, const char *shape)
{
	char *copy = strdup(shape), *name, *label, *save = NULL;
	struct tl_event te = { 0 };
	bool fits = false;
	int i;

	name = copy ? strtok_r(copy, " ", &save) : NULL;
	if (name && !(te.event = tep_find_event_by_name(tep, NULL, name)))
		te.event = merged_node_event(tep, name);
	if (te.event && !build_labels(tep, &te)) {
		fits = true;
		while (fits && (label = strtok_r(NULL, " ", &save)))
			fits = label_of(&te, label, strlen(label)) ||
			       printed_label(te.event, label, strlen(label));
	}
	for (i = 0; i < te.nlabels; i++)
		free(te.labels[i].label);
	free(te.labels);
	free(copy);
	return fits;
}

/* How many of the text's line shapes shipped set @set reads whole; -1 if it does not parse. */
static int shapes_fitting(const struct textlog *tl, int set)
{
	struct tep_handle *tep = tep_alloc();
	struct tl_formats l = { 0 };
	struct kmt_format_counts counts;
	int i, n = -1;

	if (tep && !load_shipped(&l, kmt_shipped_formats[set][1]) &&
	    !kmt_formats_parse(tep, l.f, l.n, true, &counts))
		for (n = 0, i = 0; i < tl->nshapes; i++)
			n += shape_fits(tep, tl->shapes[i]);
	free_formats(&l);
	tep_free(tep);
	return n;
}

/*
 * Lines the shipped formats read lacked labels or events: if another
 * shipped set reads more of the text's line shapes, say which, as
 * KMT_TEXT_FORMATS_HINT. 0, or -1 when out of memory.
 */
static int formats_hint(struct kmt_reader *r, const struct textlog *tl)
{
	int here, best = -1, best_n = -1, i, n;
	char text[256];

	if (!tl->unfit_lines || tl->shipped < 0 || !tl->nshapes)
		return 0;
	here = shapes_fitting(tl, tl->shipped);
	for (i = 0; kmt_shipped_formats[i][0]; i++)
		if (i != tl->shipped && (n = shapes_fitting(tl, i)) >= best_n) {	/* newest of equals */
			best = i;
			best_n = n;
		}
	if (best < 0 || best_n <= here)
		return 0;
	snprintf(text, sizeof(text), "%llu lines have fields the formats of Linux %s lack: "
		 "%d of its %d kinds of line fit those of Linux %s (--formats %s), %d these",
		 tl->unfit_lines, kmt_shipped_formats[tl->shipped][0], best_n, tl->nshapes,
		 kmt_shipped_formats[best][0], kmt_shipped_formats[best][0], here);
	return (r->texts[KMT_TEXT_FORMATS_HINT] = strdup(text)) ? 0 : -1;
}

/* ---------------------------------------------------------------- lines */

struct tl_line {
	const char *comm;
	int pid, cpu;
	unsigned long long ts;
	const char *event;
	size_t event_len;
	char *fields;
};

static bool parse_time(const char *p, const char **end, unsigned long long *ns)
{
	unsigned long long sec = 0, frac = 0;
	int digits = 0;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		if (sec > MAX_SECONDS)
			return false;	/* past what u64 nanoseconds hold: not a time */
		sec = sec * 10 + (*p++ - '0');
	}
	if (sec > MAX_SECONDS)
		return false;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits < 9) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
	if (*p != ':')
		return false;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	*end = p + 1;
	return true;
}

/* "COMM-PID [(TGID)] [CPU] [FLAGS] TIME: EVENT: FIELDS"; cuts @line in place. */
static bool parse_line(char *line, struct tl_line *out)
{
	char *b = line, *dash, *p;
	const char *end;

	while ((b = strstr(b, " [")) && !(b[2] >= '0' && b[2] <= '9' && strchr(b + 2, ']')))
		b++;
	if (!b)
		return false;
	out->cpu = strtol(b + 2, &p, 10);
	if (*p != ']')
		return false;
	p++;
	for (*b = '\0'; b > line && b[-1] == ' '; b--)
		b[-1] = '\0';
	if (b > line && b[-1] == ')' && (dash = strrchr(line, '(')))	/* record-tgid's (TGID) */
		for (*dash = '\0'; dash > line && dash[-1] == ' '; dash--)
			dash[-1] = '\0';
	if (!(dash = strrchr(line, '-')) || dash[1] < '0' || dash[1] > '9')
		return false;
	*dash = '\0';
	out->pid = atoi(dash + 1);
	out->comm = line + strspn(line, " ");
	p += strspn(p, " ");
	if (!parse_time(p, &end, &out->ts)) {		/* irq-info flags first */
		p += strcspn(p, " ");
		p += strspn(p, " ");
		if (!parse_time(p, &end, &out->ts))
			return false;
	}
	p = (char *)end + strspn(end, " ");
	out->event = p;
	out->event_len = strcspn(p, ": ");
	if (!out->event_len || p[out->event_len] != ':')
		return false;
	out->fields = p + out->event_len + 1;
	return true;
}

static void keep_bad(struct textlog *tl, const char *line, const char *why)
{
	if (tl->unparsed < KEPT_BAD)
		snprintf(tl->kept[tl->unparsed], sizeof(tl->kept[0]), "line %llu: %s: %.80s",
			 tl->lineno, why, line);
	tl->unparsed++;
}

/* Header and notice lines: "# ...", "cpus=N", "CPU:N [LOST M EVENTS]", ... (r has >= 1 CPU) */
static bool take_notice(struct kmt_reader *r, const char *line)
{
	unsigned long long cpu, n, in, written;
	const char *p;

	if (line[0] == '#') {
		if ((p = strstr(line, "entries-in-buffer/entries-written:")) &&
		    sscanf(p, "entries-in-buffer/entries-written: %llu/%llu", &in, &written) == 2 &&
		    written > in) {	/* the text gives no CPU for these */
			r->stats[0].have_stats = true;
			kmt_cpu_stats_add(&r->stats[0], &r->stats[0].overrun, written - in);
		}
		return true;	/* "#P:N" was read with the head (head_cpus) */
	}
	if (!strncmp(line, "cpus=", 5))
		return true;	/* read with the head too */
	if (sscanf(line, "CPU:%llu [LOST %llu EVENTS]", &cpu, &n) == 2) {
		if (cpu < KMT_MAX_CPUS && (cpu < (unsigned long long)r->ncpus ||
					    !kmt_reader_set_cpus(r, cpu + 1))) {
			r->stats[cpu].have_stats = true;
			kmt_cpu_stats_add(&r->stats[cpu], &r->stats[cpu].dropped, n);
		}
		return true;
	}
	return !strncmp(line, "CPU ", 4) || !strncmp(line, "version = ", 10) ||
	       line[strspn(line, " \t")] == '\0';
}

/* Room in tl->rec for @size bytes: the fixed part and the strings a line may add. */
static int record_room(struct textlog *tl, size_t size)
{
	unsigned char *n;

	if (size <= tl->rec_cap)
		return 0;
	n = realloc(tl->rec, size);
	if (!n)
		return -1;
	tl->rec = n;
	tl->rec_cap = size;
	return 0;
}

/* The record of event line @line into tl->rec. 1: made, 0: not an event line. */
static int make_record(struct kmt_reader *r, struct textlog *tl, char *line,
		       struct kmt_record *rec)
{
	struct tl_line l;
	const struct tl_event *te;
	size_t tail;

	if (!parse_line(line, &l))
		return 0;
	te = event_of(r, tl, l.event, l.event_len);
	if (!te) {
		keep_bad(tl, l.event, "no format for this event");
		return -1;
	}
	if (l.cpu < 0 || l.cpu >= KMT_MAX_CPUS ||
	    (l.cpu >= r->ncpus && kmt_reader_set_cpus(r, l.cpu + 1)) ||
	    record_room(tl, te->size + strlen(l.fields) + 1))
		return 0;
	tail = te->size;
	memset(tl->rec, 0, tail);
	put_int(tl->rec, te->type_field, te->event->id);
	put_int(tl->rec, te->pid_field, l.pid);
	if (te->node_field)
		put_int(tl->rec, te->node_field, -1);
	if (fill_fields(r, tl, te, l.fields, &tail))
		return 0;
	tep_register_comm(r->tep, l.comm, l.pid);
	*rec = (struct kmt_record){ .ts = l.ts, .data = tl->rec, .size = (int)tail, .cpu = l.cpu,
				    .text = r->keep_text ? (tl->text ? tl->text : "") : NULL,
				    .text_event = r->keep_text ? te->name : NULL, .comm = l.comm };
	return 1;
}

/* The next line (NUL-terminated, in the buffer), or NULL at the end. */
static char *next_line(struct textlog *tl, size_t *len)
{
	for (;;) {
		char *nl = memchr(tl->buf + tl->start, '\n', tl->end - tl->start);
		ssize_t got;

		if (nl && tl->too_long) {		/* the end of a line too long to keep */
			tl->start = nl - tl->buf + 1;
			tl->too_long = false;
			continue;
		}
		if (nl || (tl->eof && tl->end > tl->start && !tl->too_long)) {
			char *line = tl->buf + tl->start;

			if (!nl)
				nl = tl->buf + tl->end;
			*nl = '\0';
			*len = nl - line;
			tl->start = nl - tl->buf + (nl < tl->buf + tl->end);
			tl->lineno++;
			return line;
		}
		if (tl->eof)
			return NULL;
		memmove(tl->buf, tl->buf + tl->start, tl->end - tl->start);
		tl->end -= tl->start;
		tl->start = 0;
		if (tl->cap - tl->end < READ_CHUNK / 2) {	/* a line longer than the buffer */
			if (!tl->too_long) {
				tl->lineno++;
				tl->buf[READ_CHUNK / 4] = '\0';
				keep_bad(tl, tl->buf, "line too long");
			}
			tl->too_long = true;
			tl->end = 0;
		}
		got = read(tl->fd, tl->buf + tl->end, tl->cap - tl->end - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			tl->eof = true;
		else
			tl->end += got;
	}
}

/* At the end: the made-up call-site symbols, and what did not parse. */
static int finish(struct kmt_reader *r, struct textlog *tl)
{
	size_t size = KEPT_BAD * (sizeof(tl->kept[0]) + 1) + 32, at = 0;
	char *text;
	uint32_t i;
	int k;

	if (tl->finished)
		return 0;
	tl->finished = true;
	if (formats_hint(r, tl))
		return -1;
	for (i = 0; i <= tl->nsyms; i++)
		size += (i < tl->nsyms ? strlen(tl->syms[i]) : 32) + 24;
	text = malloc(size);
	if (!text)
		return -1;
	for (i = 0; i < tl->nsyms; i++)
		at += sprintf(text + at, "%016llx t %s\n", tl->fake_base + i * tl->fake_stride,
			      tl->syms[i]);
	/* an end mark: the last function's addresses resolve too */
	at += sprintf(text + at, "%016llx t kmtrace_text_input_end\n",
		      tl->fake_base + tl->nsyms * tl->fake_stride);
	if (tl->nsyms && kmt_reader_set_text_symbols(r, text, at)) {
		free(text);
		return -1;
	}
	if (tl->unparsed) {
		at = sprintf(text, "%llu", tl->unparsed);
		for (k = 0; k < KEPT_BAD && (unsigned long long)k < tl->unparsed; k++)
			at += sprintf(text + at, "\n%s", tl->kept[k]);
		r->texts[KMT_TEXT_UNPARSED] = text;
		return 0;
	}
	free(text);
	return 0;
}

static int textlog_next_any(struct kmt_reader *r, struct kmt_record *rec, struct kmt_error *err)
{
	struct textlog *tl = r->priv;
	size_t len;
	char *line;

	(void)err;
	while ((line = next_line(tl, &len))) {
		int made;

		if (take_notice(r, line))
			continue;
		made = make_record(r, tl, line, rec);
		if (made > 0)
			return 1;
		if (!made)
			keep_bad(tl, line, "not an event line");
	}
	if (finish(r, tl)) {
		kmt_error_set(err, r->path, -1, "out of memory");
		return -1;
	}
	return 0;
}

static void textlog_close(struct kmt_reader *r)
{
	struct textlog *tl = r->priv;
	int i, k;

	tep_free(r->tep);
	r->tep = NULL;
	if (!tl)
		return;
	for (i = 0; i < tl->nevents; i++) {
		for (k = 0; k < tl->events[i].nlabels; k++)
			free(tl->events[i].labels[k].label);
		free(tl->events[i].labels);
		free(tl->events[i].name);
	}
	for (i = 0; i < (int)tl->nsyms; i++)
		free(tl->syms[i]);
	free(tl->syms);
	free(tl->events);
	kmt_hashmap_free(&tl->event_index);
	kmt_hashmap_free(&tl->sym_index);
	kmt_hashmap_free(&tl->flag_values);
	kmt_hashmap_free(&tl->shape_index);
	for (k = 0; k < tl->nshapes; k++)
		free(tl->shapes[k]);
	free(tl->rec);
	free(tl->text);
	free(tl->buf);
	if (tl->fd >= 0)
		close(tl->fd);
	free(tl);
	r->priv = NULL;
}

static const struct kmt_reader_ops textlog_ops = {
	.next_any = textlog_next_any,
	.close = textlog_close,
	.changes_tep = true,	/* comms, as the lines name them */
};

/* The CPU count a header gives ("cpus=N", "#P:N"), known before replay starts. */
static void head_cpus(struct kmt_reader *r, const char *head, size_t len)
{
	const char *p = head, *end = head + len;
	unsigned long long n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *hit;

		if (!nl)
			break;
		if (!strncmp(p, "cpus=", 5))
			n = strtoull(p + 5, NULL, 10);
		else if (*p == '#' && (hit = memmem(p, nl - p, "#P:", 3)))
			n = strtoull(hit + 3, NULL, 10);
		p = nl + 1;
	}
	if (n > 1 && n <= KMT_MAX_CPUS)
		kmt_reader_set_cpus(r, n);
}

/* Do the first @len bytes at @head look like ftrace text output? */
static bool textlog_probe(const unsigned char *head, size_t len)
{
	char buf[KMT_HEAD_LEN + 1], *line, *nl;

	if (len > KMT_HEAD_LEN || memchr(head, '\0', len))
		return false;
	memcpy(buf, head, len);
	buf[len] = '\0';
	for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
		struct tl_line l;

		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		else if (len == KMT_HEAD_LEN)
			break;		/* a cut line proves nothing */
		if (!strncmp(line, "# tracer:", 9) || !strncmp(line, "cpus=", 5) ||
		    parse_line(line, &l))
			return true;
	}
	return false;
}

/* Event formats come from --formats or, without it, those shipped with kmtrace. */
static struct kmt_reader *textlog_open(const struct kmt_input *in, struct kmt_error *err)
{
	const char *path = in->path, *formats_dir = in->formats_dir;
	const void *head = in->head;
	size_t head_len = in->head_len;
	int fd = in->fd;
	struct kmt_reader *r = kmt_reader_alloc(path, &textlog_ops);
	struct textlog *tl = calloc(1, sizeof(*tl));

	if (!r || !tl || !(r->tep = tep_alloc()) || kmt_hashmap_init(&tl->event_index) ||
	    kmt_hashmap_init(&tl->sym_index) || kmt_hashmap_init(&tl->flag_values) ||
	    kmt_hashmap_init(&tl->shape_index) ||
	    !(tl->buf = malloc(READ_CHUNK * 2))) {
		kmt_error_set(err, path, -1, "out of memory");
		goto fail;
	}
	r->priv = tl;
	r->formats_given = true;
	tl->fd = fd;
	fd = -1;
	tl->cap = READ_CHUNK * 2;
	memcpy(tl->buf, head, head_len);
	tl->end = head_len;
	tep_set_page_size(r->tep, getpagesize());	/* the text does not say */
	if (load_formats(r, tl, formats_dir, path, err) || kmt_reader_set_cpus(r, 1))
		goto fail;
	tep_set_long_size(r->tep, formats_long_size(r->tep));
	if (tep_get_long_size(r->tep) == 4) {
		tl->fake_base = FAKE_SYM_BASE32;
		tl->fake_stride = FAKE_SYM_STRIDE32;
		tl->fake_max = FAKE_SYMS32;
	} else {
		tl->fake_base = FAKE_SYM_BASE;
		tl->fake_stride = FAKE_SYM_STRIDE;
		tl->fake_max = UINT32_MAX;
	}
	head_cpus(r, head, head_len);
	return r;
fail:
	if (fd >= 0)
		close(fd);
	if (r && !r->priv) {
		kmt_hashmap_free(&tl->event_index);
		kmt_hashmap_free(&tl->sym_index);
		kmt_hashmap_free(&tl->flag_values);
		kmt_hashmap_free(&tl->shape_index);
		free(tl);
	}
	kmt_reader_close(r);
	return NULL;
}

KMT_BACKEND(textlog, "ftrace text", textlog_probe, textlog_open);
