// SPDX-License-Identifier: LGPL-2.1
/*
 * Where a recording's kernel addresses get their names: the names a text
 * input gave, a kernel image (--vmlinux), a kallsyms file (the recording's
 * own or --kallsyms), or this machine's /proc/kallsyms when it runs the
 * very kernel that recorded. Files of another boot are moved to the
 * recording's _text; an image of another build (build-id) gives no names.
 * Every address looked up is remembered (with its rendering once asked
 * for), so reports can say how many resolved.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <traceevent/event-parse.h>

#include "kallsyms_copy.h"
#include "reader_local.h"
#include "symbols.h"
#include "vmlinux.h"
#include "common/hashmap.h"
#include "common/util.h"

#define RENDERED_MAX	1024

/* An address looked up: whether it resolved, and its rendering once made. */
struct looked_up {
	bool resolved;
	char *rendered;		/* NULL until kmt_reader_symbol() asks (or out of memory) */
};

/*
 * A kallsyms parsed on a thread beside the replay: the recording's own, or
 * this machine's /proc/kallsyms (read there too).
 */
struct kallsyms_job {
	pthread_t thread;
	bool pending;			/* not taken yet: job_finish() first */
	bool started;			/* a thread runs parse_job(); join it */
	char *text;			/* to parse (the job's); NULL: /proc/kallsyms */
	size_t len;
	struct kmt_symbols *table;	/* parsed, or NULL */
	unsigned long long text_addr;	/* this machine's _text (/proc/kallsyms) */
	const char *why;		/* why there is no table, or NULL */
	char build_id[41];		/* the running kernel's, when the recording gave it */
	char copy[PATH_MAX];		/* perf's copy of /proc/kallsyms read instead, or "" */
	char copy_refused[160];		/* why a copy there was not taken, or "" */
};

struct kmt_reader_symbols {
	struct kallsyms_job live;	/* this machine's (perf.data) */
	struct kallsyms_job own;	/* the recording's */
	struct kmt_symbols *text;	/* text input: the names it gave */
	struct kmt_symbols *image;	/* --vmlinux, moved to the recording's _text */
	struct kmt_vmlinux *vmlinux;
	unsigned long long image_delta;	/* recording address - image address */
	bool resolver_set;
	struct kmt_hashmap seen;	/* address -> index in looked_up */
	struct looked_up *looked_up;
	uint32_t nlooked_up, cap_looked_up;
	size_t resolved;
};

/* @r's symbol state, made at first use; NULL when out of memory. */
static struct kmt_reader_symbols *parts(struct kmt_reader *r)
{
	if (r->syms)
		return r->syms;
	r->syms = calloc(1, sizeof(*r->syms));
	if (r->syms && kmt_hashmap_init(&r->syms->seen)) {
		free(r->syms);
		r->syms = NULL;
	}
	return r->syms;
}

/*
 * This boot's kallsyms from perf's copy of them, when there is one and it
 * is this boot's (kallsyms_copy.c): @j's table, and where it came from.
 */
static bool read_copy(struct kallsyms_job *j)
{
	char path[PATH_MAX];

	if (kmt_kallsyms_copy_path(j->build_id, path, sizeof(path)))
		return false;
	j->table = kmt_kallsyms_copy_read(path, "/proc/kallsyms", "/proc/modules",
					  j->copy_refused, sizeof(j->copy_refused));
	if (!j->table)
		return false;
	snprintf(j->copy, sizeof(j->copy), "%s", path);
	return true;
}

/* Parse the job's kallsyms (this machine's when it has none). */
static void *parse_job(void *arg)
{
	struct kallsyms_job *j = arg;

	if (!j->text) {		/* this machine's: its _text is checked against the recording's */
		if (read_copy(j))
			j->text_addr = kmt_symbols_text_addr(j->table);
		else if (!(j->table = kmt_symbols_read("/proc/kallsyms")))
			j->why = errno == ENOMEM ? "out of memory" : "cannot read /proc/kallsyms";
		else
			j->text_addr = kmt_symbols_text_addr(j->table);
		return NULL;
	}
	if (!(j->table = kmt_symbols_parse(j->text, j->len)))
		j->why = "out of memory";
	free(j->text);
	j->text = NULL;
	return NULL;
}

/* Start @j on a thread; without one it runs at job_finish(). */
static void job_start(struct kallsyms_job *j)
{
	j->pending = true;
	j->started = !pthread_create(&j->thread, NULL, parse_job, j);
}

/* The end of @j, if it is pending: its thread joined, or the job run here. */
static void job_finish(struct kallsyms_job *j)
{
	if (!j->pending)
		return;
	if (j->started)
		pthread_join(j->thread, NULL);
	else
		parse_job(j);
	j->pending = j->started = false;
}

/* @j is not wanted: its thread joined, its text freed, nothing run here. */
static void job_cancel(struct kallsyms_job *j)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	free(j->text);
	j->text = NULL;
	j->pending = j->started = false;
}

void kmt_reader_free_symbols(struct kmt_reader *r)
{
	struct kmt_reader_symbols *s = r->syms;
	uint32_t i;

	kmt_symbols_free(r->symbols);
	free(r->live_release);
	if (!s)
		return;
	job_cancel(&s->live);
	job_cancel(&s->own);
	kmt_symbols_free(s->live.table);
	kmt_symbols_free(s->own.table);
	kmt_symbols_free(s->text);
	kmt_symbols_free(s->image);
	kmt_vmlinux_close(s->vmlinux);
	kmt_hashmap_free(&s->seen);
	for (i = 0; i < s->nlooked_up; i++)
		free(s->looked_up[i].rendered);
	free(s->looked_up);
	free(s);
}

/* Function, start and module of @addr: text names, image, kallsyms, else libtraceevent's. */
static const char *find_function(struct kmt_reader *r, unsigned long long addr,
				 unsigned long long *start, const char **mod)
{
	struct kmt_symbols *tables[3];
	const char *name;
	size_t i;

	kmt_reader_load_symbols(r);	/* may set r->symbols: before the tables are taken */
	tables[0] = r->syms ? r->syms->text : NULL;
	tables[1] = r->syms ? r->syms->image : NULL;
	tables[2] = r->symbols;
	for (i = 0; i < 3; i++)
		if (tables[i] && (name = kmt_symbols_find(tables[i], addr, start, mod)))
			return name;
	/* libtraceevent's own table (libtracecmd's readers), unless it asks us */
	if (r->symbols || (r->syms && r->syms->resolver_set))
		return NULL;
	if (mod)
		*mod = NULL;
	if (!tep_find_function_info(r->tep, addr, &name, start, NULL))
		return NULL;
	return name;
}

/* libtraceevent's resolver (%pS in printed events): the same lookup. */
static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	const char *mod = NULL;
	const char *name = find_function(priv, *addrp, addrp, &mod);

	*modp = (char *)mod;
	return (char *)name;
}

/* Point @r's tep at resolve(), once: libtraceevent must not swap it while calling it. */
static int set_resolver(struct kmt_reader *r)
{
	if (!parts(r))
		return -1;
	if (!r->syms->resolver_set && tep_set_function_resolver(r->tep, resolve, r))
		return -1;
	r->syms->resolver_set = true;
	return 0;
}

/* Symbols @t (NULL: out of memory) are about to be @r's: the resolver set. */
static int attach(struct kmt_reader *r, struct kmt_symbols *t)
{
	if (!t || set_resolver(r)) {
		kmt_symbols_free(t);
		return -1;
	}
	return 0;
}

/* @t (parsed kallsyms, or NULL out of memory) becomes @r's kallsyms: 0 or -1. */
static int set_kallsyms(struct kmt_reader *r, struct kmt_symbols *t)
{
	if (attach(r, t))
		return -1;
	kmt_symbols_free(r->symbols);
	r->symbols = t;
	return 0;
}

int kmt_reader_set_text_symbols(struct kmt_reader *r, const char *text, size_t len)
{
	struct kmt_symbols *t = kmt_symbols_parse(text, len);

	if (attach(r, t))
		return -1;
	kmt_symbols_free(r->syms->text);
	r->syms->text = t;
	return 0;
}

static void say_source(struct kmt_reader *r, const char *where)
{
	free(r->texts[KMT_TEXT_SYMBOLS]);
	r->texts[KMT_TEXT_SYMBOLS] = strdup(where);
}

/* Why this machine does not run kernel @release (the recording's build-id, if known), or NULL. */
static const char *other_live_kernel(const struct kmt_reader *r, const char *release)
{
	struct utsname u;
	char id[129];

	if (uname(&u) || strcmp(u.release, release))
		return "the recording is of another kernel than this machine runs";
	kmt_running_build_id(id, sizeof(id));
	if (r->kernel_build_id[0] && strcmp(id, r->kernel_build_id))
		return "this machine runs another build of the kernel (build-id)";
	return NULL;
}

/* Why this machine cannot stand for the recording's kernel, or NULL when it may. */
static const char *live_kernel_differs(struct kmt_reader *r)
{
	if (!r->kernel_text)
		return "the recording has no kernel map";
	return other_live_kernel(r, r->live_release);
}

/*
 * The job of this machine's kallsyms, which runs the recording's kernel,
 * pending: perf's copy of them may stand in when the recording named its
 * build.
 */
static struct kallsyms_job *live_job_ready(struct kmt_reader *r)
{
	struct kallsyms_job *l = &r->syms->live;

	snprintf(l->build_id, sizeof(l->build_id), "%s", r->kernel_build_id);
	l->copy[0] = l->copy_refused[0] = '\0';
	l->pending = true;
	return l;
}

/* Why this machine's /proc/kallsyms cannot stand for the recording's, or NULL when it did. */
static const char *use_live_kallsyms(struct kmt_reader *r)
{
	const char *why = live_kernel_differs(r);
	struct kallsyms_job *l;

	if (why)
		return why;
	if (!parts(r))
		return "out of memory";
	l = &r->syms->live;
	if (!l->pending)	/* no thread started on it: run here */
		live_job_ready(r);
	job_finish(l);
	if (l->why)
		return l->why;
	if (l->text_addr != r->kernel_text)
		return "/proc/kallsyms does not match the recording (another boot, or addresses hidden)";
	why = set_kallsyms(r, l->table) ? "out of memory" : NULL;
	l->table = NULL;
	return why;
}

/*
 * /proc/kallsyms takes 0.1 s to read and parse: when this machine runs the
 * recording's kernel, a thread does it while the events are read.
 */
static void start_live_kallsyms(struct kmt_reader *r)
{
	if (parts(r) && !r->syms->live.pending && !live_kernel_differs(r))
		job_start(live_job_ready(r));
}

void kmt_reader_expect_live_kallsyms(struct kmt_reader *r, const char *release)
{
	if (release && parts(r) && !r->syms->live.pending && !other_live_kernel(r, release))
		job_start(live_job_ready(r));
}

int kmt_reader_defer_live_kallsyms(struct kmt_reader *r, const char *release,
				   unsigned long long text_addr)
{
	free(r->live_release);
	r->live_release = strdup(release ? release : "");
	r->kernel_text = text_addr;
	if (!r->live_release)
		return -1;
	start_live_kallsyms(r);
	return 0;
}

int kmt_reader_defer_symbols(struct kmt_reader *r, char *text, size_t len)
{
	if (!parts(r) || set_resolver(r)) {
		free(text);
		return -1;
	}
	r->syms->own.text = text;
	r->syms->own.len = len;
	job_start(&r->syms->own);
	return 0;
}

/* The recording's kallsyms, once parsed, become @r's (unless @drop: --kallsyms replaces them). */
static void take_own_kallsyms(struct kmt_reader *r, bool drop)
{
	struct kallsyms_job *j = r->syms ? &r->syms->own : NULL;

	if (!j || !j->pending)
		return;
	if (drop) {
		job_cancel(j);
		return;
	}
	job_finish(j);
	if (!j->table)
		return;
	kmt_symbols_free(r->symbols);
	r->symbols = j->table;
	j->table = NULL;
	if (!r->texts[KMT_TEXT_SYMBOLS] &&
	    asprintf(&r->texts[KMT_TEXT_SYMBOLS], "the recording's kallsyms (%zu symbols)",
		     kmt_symbols_count(r->symbols)) < 0)
		r->texts[KMT_TEXT_SYMBOLS] = NULL;
}

void kmt_reader_load_symbols(struct kmt_reader *r)
{
	const char *why;
	char text[PATH_MAX + 256];

	take_own_kallsyms(r, false);
	if (!r->live_release)
		return;
	why = use_live_kallsyms(r);
	if (why)
		snprintf(text, sizeof(text), "none: %s", why);
	else if (r->syms->live.copy[0])
		snprintf(text, sizeof(text), "perf's copy of this machine's kallsyms, %s (same "
			 "kernel, _text at 0x%llx and modules as now)", r->syms->live.copy,
			 r->kernel_text);
	else
		snprintf(text, sizeof(text), "/proc/kallsyms of this machine (same kernel, "
			 "_text at 0x%llx%s%s)", r->kernel_text,
			 r->syms->live.copy_refused[0] ? "; perf's copy not taken: " : "",
			 r->syms->live.copy_refused);
	free(r->live_release);
	r->live_release = NULL;
	if (!r->syms || !r->syms->image)
		say_source(r, text);
}

/*
 * The difference that moves a file whose _text is at @file_text to the
 * recording's _text (another boot of the same build: KASLR moved the
 * kernel), 0 when either is unknown; said in @where after @what.
 */
static unsigned long long boot_delta(struct kmt_reader *r, unsigned long long file_text,
				     const char *what, char *where, size_t len)
{
	unsigned long long delta = r->kernel_text && file_text ? r->kernel_text - file_text : 0;

	if (!delta)
		snprintf(where, len, "%s", what);
	else
		snprintf(where, len, "%s, moved by %s0x%llx to the recording's _text 0x%llx", what,
			 (long long)delta < 0 ? "-" : "+",
			 (long long)delta < 0 ? -delta : delta, r->kernel_text);
	return delta;
}

int kmt_reader_use_kallsyms(struct kmt_reader *r, const char *path, struct kmt_error *err)
{
	struct kmt_symbols *t;
	size_t left_out = 0;
	char what[512], where[768];
	unsigned long long delta;

	take_own_kallsyms(r, true);

	if (!(t = kmt_symbols_read(path))) {
		if (errno == ENOMEM)
			kmt_error_set(err, path, -1, "out of memory");
		else
			kmt_error_set(err, path, -1, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (set_kallsyms(r, t)) {
		kmt_error_set(err, path, -1, "out of memory");
		return -1;
	}
	if (!kmt_symbols_count(t)) {
		kmt_error_set(err, path, 0, "no symbols in it (want /proc/kallsyms or System.map "
			      "lines: ADDRESS TYPE NAME)");
		return -1;
	}
	snprintf(what, sizeof(what), "%s (--kallsyms, %zu symbols", path, kmt_symbols_count(t));
	delta = boot_delta(r, kmt_symbols_text_addr(t), what, where, sizeof(where));
	/* modules load elsewhere on each boot: their symbols go when the kernel moved */
	if (delta)
		left_out = kmt_symbols_relocate(t, delta);
	snprintf(where + strlen(where), sizeof(where) - strlen(where), delta ?
		 "; %zu module symbols left out)" : ")", left_out);
	say_source(r, where);
	free(r->live_release);		/* this file, not this machine's /proc/kallsyms */
	r->live_release = NULL;
	return 0;
}

/* The image is of another build than the recording: refuse its names. */
static int refuse_image(struct kmt_reader *r, const char *path, const char *id,
			struct kmt_error *err)
{
	char where[512];

	snprintf(where, sizeof(where), "none: %s is another kernel build (build-id %s, the "
		 "recording's %s)", path, id, r->kernel_build_id);
	say_source(r, where);
	kmt_error_set(err, path, -1, "build-id %s is not the recording's kernel (%s): its "
		      "symbols are not used", id, r->kernel_build_id);
	free(r->live_release);
	r->live_release = NULL;
	return 1;
}

/* Take @vm's symbols, moved to the recording's _text; -1 when out of memory. */
static int take_image(struct kmt_reader *r, const char *path, struct kmt_vmlinux *vm)
{
	size_t len;
	const char *text = kmt_vmlinux_symbols(vm, &len);
	struct kmt_symbols *t = kmt_symbols_parse(text, len);
	char what[512], where[768];
	const char *id = kmt_vmlinux_build_id(vm);

	if (attach(r, t))
		return -1;
	snprintf(what, sizeof(what), "%s (--vmlinux, %zu symbols, %s, build-id %s", path,
		 kmt_symbols_count(t), kmt_vmlinux_has_dwarf(vm) ? "DWARF" : "no DWARF",
		 !id[0] ? "none" : !r->kernel_build_id[0] ? "not checked (none in the recording)"
		 : "checked");
	r->syms->image_delta = boot_delta(r, kmt_kallsyms_text(text), what, where, sizeof(where));
	if (r->syms->image_delta)
		kmt_symbols_relocate(t, r->syms->image_delta);
	strncat(where, ")", sizeof(where) - strlen(where) - 1);
	say_source(r, where);
	kmt_symbols_free(r->syms->image);
	kmt_vmlinux_close(r->syms->vmlinux);
	r->syms->image = t;
	r->syms->vmlinux = vm;
	return 0;
}

int kmt_reader_use_vmlinux(struct kmt_reader *r, const char *path, struct kmt_error *err)
{
	const char *why;
	struct kmt_vmlinux *vm = kmt_vmlinux_open(path, &why);
	const char *id;
	int ret;

	if (!vm) {
		kmt_error_set(err, path, -1, "cannot use as a kernel image: %s", why);
		return -1;
	}
	id = kmt_vmlinux_build_id(vm);
	if (id[0] && r->kernel_build_id[0] && strcmp(id, r->kernel_build_id)) {
		ret = refuse_image(r, path, id, err);
		kmt_vmlinux_close(vm);
		return ret;
	}
	if (take_image(r, path, vm)) {
		kmt_vmlinux_close(vm);
		kmt_error_set(err, path, -1, "out of memory");
		return -1;
	}
	return 0;
}

/* The source location of recording address @addr in the --vmlinux image; false if none. */
static bool image_source(struct kmt_reader *r, unsigned long long addr, struct kmt_source *src)
{
	return r->syms && r->syms->vmlinux &&
	       kmt_vmlinux_source(r->syms->vmlinux, addr - r->syms->image_delta, src);
}

/* " (file:line)" or " (inlined NAME at file:line, in file:line)" of @addr, or "". */
static void source_of(struct kmt_reader *r, unsigned long long addr, char *buf, size_t len)
{
	struct kmt_source src;

	buf[0] = '\0';
	if (!image_source(r, addr, &src))
		return;
	if (src.inlined[0])
		snprintf(buf, len, " (inlined %s at %s:%d, in %s:%d)", src.inlined, src.file,
			 src.line, src.caller_file, src.caller_line);
	else
		snprintf(buf, len, " (%s:%d)", src.file, src.line);
}

/* @addr as "function+0xOFF [module] (source)" into @buf; 1 when resolved. */
static int render(struct kmt_reader *r, unsigned long long addr, char *buf, size_t len)
{
	unsigned long long start;
	const char *mod, *name = find_function(r, addr, &start, &mod);
	char source[RENDERED_MAX];

	if (!name) {
		snprintf(buf, len, "0x%llx", addr);
		return 0;
	}
	source_of(r, addr, source, sizeof(source));
	snprintf(buf, len, "%s+0x%llx%s%s%s%s", name, addr - start, mod ? " [" : "",
		 mod ? mod : "", mod ? "]" : "", source);
	return 1;
}

/* The entry of @addr, made on first sight (counted); NULL when out of memory. */
static struct looked_up *look_up(struct kmt_reader *r, unsigned long long addr, bool resolved)
{
	struct kmt_reader_symbols *s = parts(r);
	uint64_t i;

	if (!s)
		return NULL;
	if (kmt_hashmap_get(&s->seen, addr, &i))
		return &s->looked_up[i];
	if (kmt_grow(&s->looked_up, &s->cap_looked_up, s->nlooked_up, sizeof(*s->looked_up)) ||
	    kmt_hashmap_put(&s->seen, addr, s->nlooked_up))
		return NULL;
	s->resolved += resolved;
	s->looked_up[s->nlooked_up] = (struct looked_up){ resolved, NULL };
	return &s->looked_up[s->nlooked_up++];
}

/* The entry of @addr if it was looked up before, else NULL. */
static struct looked_up *seen_before(struct kmt_reader *r, unsigned long long addr)
{
	uint64_t i;

	return r->syms && kmt_hashmap_get(&r->syms->seen, addr, &i) ? &r->syms->looked_up[i]
								     : NULL;
}

int kmt_reader_symbol(struct kmt_reader *r, unsigned long long addr, char *buf, size_t len)
{
	struct looked_up *e = seen_before(r, addr);
	char text[RENDERED_MAX];
	int ok;

	if (e && e->rendered) {
		snprintf(buf, len, "%s", e->rendered);
		return e->resolved;
	}
	ok = render(r, addr, text, sizeof(text));
	if (e || (e = look_up(r, addr, ok)))
		e->rendered = strdup(text);	/* rendered again next time if NULL */
	snprintf(buf, len, "%s", text);
	return ok;
}

const char *kmt_reader_function(struct kmt_reader *r, unsigned long long addr,
				unsigned long long *start, const char **mod)
{
	const char *name = find_function(r, addr, start, mod);

	look_up(r, addr, name != NULL);		/* counted */
	return name;
}

int kmt_reader_source_file(struct kmt_reader *r, unsigned long long addr, char *buf,
			   size_t len)
{
	struct kmt_source src;

	if (!image_source(r, addr, &src))
		return 0;
	snprintf(buf, len, "%s", src.caller_file);
	return 1;
}

bool kmt_reader_has_sources(struct kmt_reader *r)
{
	return r->syms && r->syms->vmlinux && kmt_vmlinux_has_dwarf(r->syms->vmlinux);
}

void kmt_reader_symbol_counts(struct kmt_reader *r, size_t *resolved, size_t *unresolved)
{
	*resolved = r->syms ? r->syms->resolved : 0;
	*unresolved = r->syms ? kmt_hashmap_count(&r->syms->seen) - r->syms->resolved : 0;
}
