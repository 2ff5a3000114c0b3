// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace report --format sqlite: the recording's events into the
 * database as they are replayed, and after the replay what they refer to.
 *
 * One table per event (kmem_kmalloc, kmem_mm_page_alloc, ...) with the
 * columns every event has (ts, cpu, pid, tgid, stack_id) and then its
 * format's fields as typed columns: the kernel's format is the schema, so
 * each column is a field the recording really has, with its type, on every
 * kernel version; a wide table would be mostly NULLs and would need a
 * schema fixed in advance. The view "events" joins their common columns.
 * Besides: stacks (frames by stack id), symbols (the code addresses of
 * call_site/ip fields and stacks), processes, event_types and meta.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/cpustats.h>
#include <kmtrace/reader.h>
#include <kmtrace/sqlite.h>
#include "cmd.h"
#include "common/hashmap.h"
#include "common/proctable.h"
#include "input/formats.h"

/* The columns before each event table's fields; a field named like one gets "field_". */
static const char *const common_columns[] = { "ts", "cpu", "pid", "tgid", "stack_id", NULL };
#define NCOMMON	5

/* One event type's table. */
struct evtable {
	int id;
	struct tep_event *format;
	char name[128];			/* the table's */
	char event[160];		/* "system:name" */
	struct tep_format_field **fields;
	int nfields;
	bool *code;			/* field i holds a code address (symbols) */
	sqlite3_stmt *insert;
	unsigned long long count;
};

/* A distinct call stack: its frames at @at in the pool. */
struct stack {
	size_t at;
	int nr;
};

struct database {
	struct kmt_sqlite *db;
	struct kmt_error err;
	bool failed;
	const struct kmt_session *s;
	const struct kmt_identity *id;
	struct evtable *tables;
	struct kmt_hashmap table_index;		/* event id -> its table's index */
	uint32_t ntables, cap_tables;
	sqlite3_stmt *stack_frame;
	struct kmt_hashmap stack_index;		/* hash of the frames -> stack index */
	struct stack *stacks;
	uint32_t nstacks, cap_stacks;
	unsigned long long *pool;
	size_t pool_len, pool_cap;
	struct kmt_hashmap addrs;		/* code addresses seen -> 0 */
	struct kmt_hashmap pids;		/* pids seen -> 0 */
	unsigned long long events, first_ts, last_ts;
};

static void *database_init(void)
{
	struct database *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (kmt_hashmap_init(&d->table_index) || kmt_hashmap_init(&d->stack_index) ||
	    kmt_hashmap_init(&d->addrs) || kmt_hashmap_init(&d->pids)) {
		kmt_hashmap_free(&d->table_index);
		kmt_hashmap_free(&d->stack_index);
		kmt_hashmap_free(&d->addrs);
		free(d);
		return NULL;
	}
	return d;
}

static void database_free(void *priv)
{
	struct database *d = priv;
	uint32_t i;

	for (i = 0; i < d->ntables; i++) {
		sqlite3_finalize(d->tables[i].insert);
		free(d->tables[i].fields);
		free(d->tables[i].code);
	}
	free(d->tables);
	kmt_hashmap_free(&d->table_index);
	sqlite3_finalize(d->stack_frame);
	kmt_hashmap_free(&d->stack_index);
	kmt_hashmap_free(&d->addrs);
	kmt_hashmap_free(&d->pids);
	free(d->stacks);
	free(d->pool);
	free(d);
}

void kmt_database_use(void *priv, struct kmt_sqlite *db, const struct kmt_identity *id)
{
	((struct database *)priv)->db = db;
	((struct database *)priv)->id = id;
}

const struct kmt_error *kmt_database_error(void *priv)
{
	struct database *d = priv;

	return d->failed ? &d->err : NULL;
}

/* Note a failure of the database (its message in d->err); returns -1 with errno set. */
static int fail(struct database *d, const char *what)
{
	if (!d->failed)
		kmt_sqlite_failed(d->db, what, &d->err);
	d->failed = true;
	errno = EIO;
	return -1;
}

static int exec(struct database *d, const char *sql)
{
	if (!kmt_sqlite_exec(d->db, sql, &d->err))
		return 0;
	d->failed = true;
	errno = EIO;
	return -1;
}

static int prepare(struct database *d, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(kmt_sqlite_db(d->db), sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	return fail(d, "cannot write the database");
}

static int step(struct database *d, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : fail(d, "cannot write the database");
}

static const char start_sql[] =
	"CREATE TABLE stacks (stack_id INTEGER, depth INTEGER, addr INTEGER, user INTEGER,"
	" frame TEXT, PRIMARY KEY (stack_id, depth)) WITHOUT ROWID;";

static int database_start(void *priv, const struct kmt_session *s)
{
	struct database *d = priv;

	d->s = s;
	if (exec(d, start_sql) ||
	    prepare(d, "INSERT INTO stacks VALUES (?, ?, ?, ?, ?)", &d->stack_frame))
		return -1;
	return 0;
}

/*
 * Whether field @f of event @e holds kernel code: its symbol goes into
 * "symbols". call_site, *_ip, and ip but in events of user space
 * (exceptions:page_fault_user's is the program's).
 */
static bool is_code_field(const struct tep_event *e, const struct tep_format_field *f)
{
	size_t n = strlen(f->name);

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_SIGNED) || (f->size != 4 && f->size != 8))
		return false;
	if (!strcmp(f->name, "ip"))
		return !strstr(e->name, "user");
	return !strcmp(f->name, "call_site") || (n > 3 && !strcmp(f->name + n - 3, "_ip"));
}

static bool is_common_name(const char *name)
{
	int i;

	for (i = 0; common_columns[i]; i++)
		if (!strcmp(common_columns[i], name))
			return true;
	return false;
}

/* Whether @name is taken, by a table of ours or an event table other than @self. */
static bool table_named(const struct database *d, const char *name, const struct evtable *self)
{
	static const char *const ours[] = { "stacks", "symbols", "processes", "meta",
		"event_types", "events", "summaries", "report_tables", "report_columns", NULL };
	uint32_t i;

	for (i = 0; ours[i]; i++)
		if (!strcasecmp(ours[i], name))
			return true;
	for (i = 0; i < d->ntables; i++)
		if (&d->tables[i] != self && !strcasecmp(d->tables[i].name, name))
			return true;
	return false;
}

/* The SQL type of field @f's values. */
static const char *field_type(const struct tep_format_field *f)
{
	switch (kmt_cmd_field_kind(f)) {
	case KMT_FIELD_TEXT:
		return "TEXT";
	case KMT_FIELD_BYTES:
		return "BLOB";
	default:
		return "INTEGER";
	}
}

/* CREATE TABLE and INSERT of @t into the two strings. 0, or -1 when out of memory. */
static int event_sql(const struct evtable *t, char **create, char **insert)
{
	int n = NCOMMON + t->nfields, i, ret;
	struct kmt_sqlite_column *cols = calloc(n, sizeof(*cols));
	char (*names)[136] = calloc(t->nfields + 1, sizeof(*names));

	ret = cols && names ? 0 : -1;
	for (i = 0; !ret && i < NCOMMON; i++)
		cols[i] = (struct kmt_sqlite_column){ common_columns[i], "INTEGER" };
	for (i = 0; !ret && i < t->nfields; i++) {
		char name[128];

		/* a format's field names are C names; one that is not keeps to [A-Za-z0-9_] */
		kmt_sqlite_name(name, sizeof(name), t->fields[i]->name, NULL);
		snprintf(names[i], sizeof(names[i]), "%s%s", is_common_name(name) ? "field_" : "",
			 name);
		cols[NCOMMON + i] = (struct kmt_sqlite_column){ names[i], field_type(t->fields[i]) };
	}
	if (!ret)
		ret = kmt_sqlite_statements(t->name, cols, n, create, insert);
	free(cols);
	free(names);
	return ret;
}

/* Fill table @t for event @e: its name, fields and statements. */
static int make_table(struct database *d, struct evtable *t, struct tep_event *e)
{
	char *create = NULL, *insert = NULL;
	int i, ret = -1, n;

	snprintf(t->event, sizeof(t->event), "%s:%s", e->system, e->name);
	kmt_sqlite_name(t->name, sizeof(t->name), e->system, e->name);
	n = strlen(t->name);
	for (i = 2; table_named(d, t->name, t); i++)
		snprintf(t->name + (n < 110 ? n : 110), 18, "_%d", i);
	t->fields = tep_event_fields(e);
	for (t->nfields = 0; t->fields && t->fields[t->nfields]; t->nfields++)
		;
	t->code = calloc(t->nfields + 1, sizeof(*t->code));
	if ((!t->fields && e->format.nr_fields) || !t->code || event_sql(t, &create, &insert)) {
		errno = ENOMEM;
		goto out;
	}
	for (i = 0; i < t->nfields; i++)
		t->code[i] = is_code_field(e, t->fields[i]);
	ret = exec(d, create) || prepare(d, insert, &t->insert) ? -1 : 0;
out:
	free(create);
	free(insert);
	return ret;
}

/* The table of event id @id, made on its first event; NULL for an unknown event or a failure. */
static struct evtable *table_of(struct database *d, int id, bool *failed)
{
	struct tep_event *e;
	struct evtable *t;
	uint64_t row;

	*failed = false;
	if (kmt_hashmap_find(&d->table_index, (uint32_t)id, &row))
		return &d->tables[row];
	e = tep_find_event(d->s->tep, id);
	if (!e)
		return NULL;
	/* freed with the others even if half made */
	row = kmt_hashmap_new_row(&d->table_index, (uint32_t)id, &d->tables, &d->cap_tables,
				  &d->ntables, sizeof(*d->tables));
	if (row == KMT_HASHMAP_NO_ROW) {
		*failed = true;
		return NULL;
	}
	t = &d->tables[row];
	t->id = id;
	t->format = e;
	if (make_table(d, t, e)) {
		*failed = true;
		return NULL;
	}
	return t;
}

static int note_key(struct kmt_hashmap *m, uint64_t key)
{
	bool had;

	return kmt_hashmap_cell(m, key, &had) ? 0 : -1;
}

/* Frames of @ev's stack without perf's context markers, into the pool's end: how many. */
static int pool_frames(struct database *d, const struct kmt_event *ev, int *nr)
{
	size_t need = d->pool_len + 2 * (size_t)ev->callchain_nr;
	int i, n = 0;
	bool user = false;

	if (need > d->pool_cap) {
		size_t cap = need > 2 * d->pool_cap ? need : 2 * d->pool_cap;
		unsigned long long *grown = realloc(d->pool, cap * sizeof(*grown));

		if (!grown)
			return -1;
		d->pool = grown;
		d->pool_cap = cap;
	}
	/* frames as (address, user) pairs */
	for (i = 0; i < ev->callchain_nr; i++) {
		if (ev->callchain[i] >= KMT_CALLCHAIN_MARKERS) {
			user = ev->callchain[i] == KMT_CALLCHAIN_USER;
			continue;
		}
		d->pool[d->pool_len + 2 * n] = ev->callchain[i];
		d->pool[d->pool_len + 2 * n + 1] = user;
		n++;
	}
	*nr = n;
	return 0;
}

/* Insert the frames of new stack @id at @frames (@nr pairs) for task group @tgid. */
static int insert_stack(struct database *d, uint32_t id, const unsigned long long *frames,
			int nr, int tgid)
{
	char text[512];
	int i;

	for (i = 0; i < nr; i++) {
		unsigned long long addr = frames[2 * i];
		bool user = frames[2 * i + 1];

		if (user)
			kmt_session_user_symbol(d->s, tgid, addr, text, sizeof(text));
		else
			kmt_session_symbol(d->s, addr, text, sizeof(text));
		if (!user && note_key(&d->addrs, addr))
			return -1;
		sqlite3_bind_int64(d->stack_frame, 1, id);
		sqlite3_bind_int(d->stack_frame, 2, i);
		sqlite3_bind_int64(d->stack_frame, 3, (sqlite3_int64)addr);
		sqlite3_bind_int(d->stack_frame, 4, user);
		sqlite3_bind_text(d->stack_frame, 5, text, -1, SQLITE_TRANSIENT);
		if (step(d, d->stack_frame))
			return -1;
	}
	return 0;
}

/* The id of @ev's stack (made if new) into *@id; 0, or -1. */
static int stack_id(struct database *d, const struct kmt_event *ev, int tgid, int64_t *id)
{
	const unsigned long long *frames;
	uint64_t key, row;
	struct stack *st;
	int nr;

	if (pool_frames(d, ev, &nr))
		return -1;
	frames = d->pool + d->pool_len;
	key = kmt_hash_words(frames, 2 * (size_t)nr);
	for (; kmt_hashmap_get(&d->stack_index, key, &row); key++) {
		st = &d->stacks[row];
		if (st->nr == nr && !memcmp(d->pool + st->at, frames, 16 * (size_t)nr)) {
			*id = row;
			return 0;
		}
	}
	row = kmt_hashmap_new_row(&d->stack_index, key, &d->stacks, &d->cap_stacks, &d->nstacks,
				  sizeof(*d->stacks));
	if (row == KMT_HASHMAP_NO_ROW)
		return -1;
	d->stacks[row] = (struct stack){ .at = d->pool_len, .nr = nr };
	d->pool_len += 2 * (size_t)nr;
	*id = row;
	return insert_stack(d, row, frames, nr, tgid);
}

/* Bind the fields of @ev from parameter 6 on. */
static int bind_fields(struct database *d, struct evtable *t, const struct kmt_event *ev)
{
	sqlite3_stmt *st = t->insert;
	struct kmt_field_value v;
	bool fits = kmt_formats_record_fits(d->s->tep, t->format, ev->raw, ev->raw_size);
	int i;

	for (i = 0; i < t->nfields; i++) {
		switch (fits ? kmt_cmd_field_value(t->fields[i], ev->raw, ev->raw_size, &v) :
			KMT_FIELD_NULL) {
		case KMT_FIELD_TEXT:
			sqlite3_bind_text(st, NCOMMON + 1 + i, (const char *)v.p, v.len,
					  SQLITE_STATIC);
			break;
		case KMT_FIELD_BYTES:
			sqlite3_bind_blob(st, NCOMMON + 1 + i, v.p, v.len, SQLITE_STATIC);
			break;
		case KMT_FIELD_INT:
		case KMT_FIELD_UINT:
			sqlite3_bind_int64(st, NCOMMON + 1 + i, (sqlite3_int64)v.u);
			if (t->code[i] && note_key(&d->addrs, v.u))
				return -1;
			break;
		case KMT_FIELD_NULL:
			sqlite3_bind_null(st, NCOMMON + 1 + i);
			break;
		}
	}
	return 0;
}

static int database_event(void *priv, const struct kmt_event *ev)
{
	struct database *d = priv;
	int tgid = kmt_reader_tgid(d->s->reader, ev->pid);
	struct evtable *t;
	int64_t stack = -1;
	bool failed;

	t = table_of(d, ev->id, &failed);
	if (!t)
		return failed ? -1 : 0;
	if (!d->events++)
		d->first_ts = ev->ts;
	d->last_ts = ev->ts;
	t->count++;
	if (note_key(&d->pids, (uint32_t)ev->pid) ||
	    (ev->callchain_nr && stack_id(d, ev, tgid, &stack)) || bind_fields(d, t, ev)) {
		if (!d->failed)
			errno = ENOMEM;
		return -1;
	}
	sqlite3_bind_int64(t->insert, 1, ev->ts);
	sqlite3_bind_int(t->insert, 2, ev->cpu);
	sqlite3_bind_int(t->insert, 3, ev->pid);
	sqlite3_bind_int(t->insert, 4, tgid);
	if (stack >= 0)
		sqlite3_bind_int64(t->insert, 5, stack);
	else
		sqlite3_bind_null(t->insert, 5);
	return step(d, t->insert);
}

/* symbols: each code address seen, its symbol, function and module. */
static int write_symbols(struct database *d)
{
	sqlite3_stmt *st;
	uint64_t addr, unused;
	size_t pos = 0;
	int ret = 0;

	if (exec(d, "CREATE TABLE symbols (addr INTEGER PRIMARY KEY, symbol TEXT, "
		    "function TEXT, module TEXT)") ||
	    prepare(d, "INSERT INTO symbols VALUES (?, ?, ?, ?)", &st))
		return -1;
	while (!ret && kmt_hashmap_next(&d->addrs, &pos, &addr, &unused)) {
		unsigned long long start;
		const char *mod = NULL, *fn = kmt_session_function(d->s, addr, &start, &mod);
		char text[512];

		kmt_session_symbol(d->s, addr, text, sizeof(text));
		sqlite3_bind_int64(st, 1, (sqlite3_int64)addr);
		sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, fn, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, fn ? mod : NULL, -1, SQLITE_TRANSIENT);
		ret = step(d, st);
	}
	sqlite3_finalize(st);
	return ret;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static void bind_known(sqlite3_stmt *st, int i, long long v)
{
	if (v >= 0)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* One row of processes: task @pid as the recording knows it. */
static int write_process(struct database *d, sqlite3_stmt *st, int pid)
{
	const struct kmt_process *p = kmt_reader_processes(d->s->reader) ?
		kmt_proctable_find(kmt_reader_processes(d->s->reader), pid) : NULL;
	const char *comm = p && p->comm ? p->comm : kmt_reader_comm(d->s->reader, pid);

	sqlite3_bind_int(st, 1, pid);
	sqlite3_bind_int(st, 2, kmt_reader_tgid(d->s->reader, pid));
	bind_known(st, 3, p ? p->ppid : -1);
	bind_text_or_null(st, 4, comm && strcmp(comm, "<...>") ? comm : NULL);
	bind_text_or_null(st, 5, p ? p->exe : NULL);
	bind_text_or_null(st, 6, p ? p->cmdline : NULL);
	bind_text_or_null(st, 7, p ? p->cgroup : NULL);
	bind_text_or_null(st, 8, p ? p->container : NULL);
	bind_known(st, 9, p ? p->start_ns : -1);
	bind_known(st, 10, p && p->exit_ns > 0 ? p->exit_ns : -1);
	return step(d, st);
}

/* processes: every task the events name. */
static int write_processes(struct database *d)
{
	sqlite3_stmt *st;
	uint64_t pid, unused;
	size_t pos = 0;
	int ret = 0;

	if (exec(d, "CREATE TABLE processes (pid INTEGER PRIMARY KEY, tgid INTEGER, "
		    "ppid INTEGER, comm TEXT, exe TEXT, cmdline TEXT, cgroup TEXT, "
		    "container TEXT, start_ns INTEGER, exit_ns INTEGER)") ||
	    prepare(d, "INSERT INTO processes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st))
		return -1;
	while (!ret && kmt_hashmap_next(&d->pids, &pos, &pid, &unused))
		ret = write_process(d, st, (int)(uint32_t)pid);
	sqlite3_finalize(st);
	return ret;
}

/* @s as an SQL string literal: in single quotes, each one in it doubled. */
static void sql_string(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', fp);
		fputc(*s, fp);
	}
	fputc('\'', fp);
}

/* event_types, and the view "events" over the event tables' common columns. */
static int write_event_types(struct database *d)
{
	sqlite3_stmt *st;
	size_t len;
	char *view = NULL;
	FILE *fp = open_memstream(&view, &len);
	uint32_t i;
	int ret = 0;

	if (!fp)
		return -1;
	fputs("CREATE VIEW events AS ", fp);
	for (i = 0; i < d->ntables; i++) {
		/* SQLite takes 500 terms a compound SELECT: groups of 250 in subqueries */
		if (i % 250 == 0)
			fprintf(fp, "%sSELECT * FROM (", i ? ") UNION ALL " : "");
		fprintf(fp, "%sSELECT ts, cpu, pid, tgid, ", i % 250 ? " UNION ALL " : "");
		sql_string(fp, d->tables[i].event);
		fprintf(fp, " AS event, stack_id FROM \"%s\"", d->tables[i].name);
	}
	if (d->ntables)
		fputc(')', fp);
	if (!d->ntables)
		fputs("SELECT 0 AS ts, 0 AS cpu, 0 AS pid, 0 AS tgid, '' AS event, "
		      "0 AS stack_id WHERE 0", fp);
	if (fclose(fp) || exec(d, view) ||
	    exec(d, "CREATE TABLE event_types (event TEXT PRIMARY KEY, tbl TEXT, "
		    "count INTEGER)") ||
	    prepare(d, "INSERT INTO event_types VALUES (?, ?, ?)", &st)) {
		free(view);
		return -1;
	}
	for (i = 0; !ret && i < d->ntables; i++) {
		sqlite3_bind_text(st, 1, d->tables[i].event, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, d->tables[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, d->tables[i].count);
		ret = step(d, st);
	}
	sqlite3_finalize(st);
	free(view);
	return ret;
}

/* The clock in use, "[global]" in the trace_clock file's text @t, into @buf. */
static const char *clock_in_use(const char *t, char *buf, size_t len)
{
	const char *open = t ? strchr(t, '[') : NULL;

	if (!open)
		return NULL;
	snprintf(buf, len, "%.*s", (int)strcspn(open + 1, "]"), open + 1);
	return buf;
}

static int meta_text(struct database *d, sqlite3_stmt *st, const char *key, const char *v)
{
	if (!v || !*v)
		return 0;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, v, -1, SQLITE_TRANSIENT);
	return step(d, st);
}

static int meta_number(struct database *d, sqlite3_stmt *st, const char *key,
		       unsigned long long v)
{
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)v);
	return step(d, st);
}

static unsigned long long lost_events(struct kmt_reader *r)
{
	unsigned long long lost = 0;
	int cpu;

	for (cpu = 0; cpu < kmt_reader_cpus(r); cpu++)
		if (kmt_reader_cpu_stats(r, cpu))
			lost += kmt_cpu_stats_lost(kmt_reader_cpu_stats(r, cpu));
	return lost;
}

/* meta: what the recording is, one key and value per row. */
static int write_meta(struct database *d)
{
	struct kmt_reader *r = d->s->reader;
	const char *uname = kmt_reader_text(r, KMT_TEXT_UNAME);
	char clock[64];
	sqlite3_stmt *st;
	int ret;

	if (exec(d, "CREATE TABLE meta (key TEXT PRIMARY KEY, value)") ||
	    prepare(d, "INSERT INTO meta VALUES (?, ?)", &st))
		return -1;
	ret = meta_text(d, st, "input", d->s->input) ||
	      meta_text(d, st, "input_format", kmt_reader_format(r)) ||
	      meta_text(d, st, "host", d->id->host) ||
	      meta_text(d, st, "kernel_release", d->id->release) ||
	      meta_text(d, st, "uname", uname) ||
	      meta_text(d, st, "boot_id", d->id->boot_id) ||
	      meta_text(d, st, "trace_clock", clock_in_use(kmt_reader_text(r, KMT_TEXT_TRACE_CLOCK),
							       clock, sizeof(clock))) ||
	      meta_number(d, st, "cpus", kmt_reader_cpus(r)) ||
	      meta_number(d, st, "events", d->events) ||
	      meta_number(d, st, "start_ns", d->first_ts) ||
	      meta_number(d, st, "end_ns", d->last_ts) ||
	      meta_number(d, st, "duration_ns", d->last_ts - d->first_ts) ||
	      meta_number(d, st, "lost_events", lost_events(r)) ||
	      meta_text(d, st, "kmtrace_version", KMT_VERSION) ? -1 : 0;
	sqlite3_finalize(st);
	return ret;
}

static int database_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct database *d = priv;

	(void)s;
	(void)out;
	if (write_symbols(d) || write_processes(d) || write_event_types(d) || write_meta(d)) {
		if (!d->failed)
			errno = ENOMEM;
		return -1;
	}
	return 0;
}

const struct kmt_analysis kmt_database = {
	.name = "database",
	.help = "every event into the SQLite database (--format sqlite)",
	.events = KMT_EVMASK_ALL,
	.init = database_init,
	.start = database_start,
	.event = database_event,
	.report = database_report,
	.free = database_free,
};
