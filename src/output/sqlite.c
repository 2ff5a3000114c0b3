// SPDX-License-Identifier: LGPL-2.1
/*
 * SQLite: the database file's life (a hidden file beside its name, one
 * transaction, its name given only when complete) and the rendering of the
 * report's summaries and tables into it. Numbers are INTEGER (unsigned
 * 64-bit values above INT64_MAX as their two's complement, as SQLite has
 * no unsigned type), percentages REAL, texts TEXT.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sqlite3.h>

#include <kmtrace/sqlite.h>
#include "output_local.h"

struct kmt_sqlite {
	sqlite3 *db;
	char *path;		/* the name it is to have */
	char *tmp;		/* where it is written */
};

/* The hidden file beside @path it is written into, "DIR/.NAME.XXXXXX", created 0600. */
static char *hidden_beside(const char *path, struct kmt_error *err)
{
	char *d = strdup(path), *b = strdup(path), *tmp = NULL;
	int fd;

	if (!d || !b || asprintf(&tmp, "%s/.%s.XXXXXX", dirname(d), basename(b)) < 0) {
		tmp = NULL;
		kmt_error_set(err, path, -1, "out of memory");
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		kmt_error_set(err, path, -1, "cannot create the database: %s", strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	close(fd);
out:
	free(d);
	free(b);
	return tmp;
}

/* Settings for one writer of a file nobody else sees: no journal, no syncs. */
static const char settings_sql[] =
	"PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
	"PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY;"
	"PRAGMA cache_size = -8192; BEGIN";

struct kmt_sqlite *kmt_sqlite_create(const char *path, struct kmt_error *err)
{
	struct kmt_sqlite *db = calloc(1, sizeof(*db));
	struct stat st;

	if (!lstat(path, &st)) {
		kmt_error_set(err, path, -1, "already there: the database must be a new file");
		free(db);
		return NULL;
	}
	if (!db || !(db->path = strdup(path))) {
		kmt_error_set(err, path, -1, "out of memory");
		free(db);
		return NULL;
	}
	db->tmp = hidden_beside(path, err);
	if (!db->tmp) {
		kmt_sqlite_abort(db);
		return NULL;
	}
	/* one thread writes it: no locks, no allocation counts (each takes a mutex) */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(db->tmp, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		kmt_sqlite_failed(db, "cannot open the database", err);
		kmt_sqlite_abort(db);
		return NULL;
	}
	if (kmt_sqlite_exec(db, settings_sql, err)) {
		kmt_sqlite_abort(db);
		return NULL;
	}
	return db;
}

struct sqlite3 *kmt_sqlite_db(struct kmt_sqlite *db)
{
	return db->db;
}

const char *kmt_sqlite_path(const struct kmt_sqlite *db)
{
	return db->path;
}

int kmt_sqlite_failed(struct kmt_sqlite *db, const char *what, struct kmt_error *err)
{
	const char *why = db->db ? sqlite3_errmsg(db->db) : "out of memory";

	kmt_error_set(err, db->path, -1, "%s: %s", what, why);
	return -1;
}

int kmt_sqlite_exec(struct kmt_sqlite *db, const char *sql, struct kmt_error *err)
{
	if (sqlite3_exec(db->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	return kmt_sqlite_failed(db, "cannot write the database", err);
}

char *kmt_sqlite_name(char *buf, size_t len, const char *a, const char *b)
{
	char *p;

	snprintf(buf, len, "%s%s%s", a, b ? "_" : "", b ? b : "");
	for (p = buf; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9'))
			*p = '_';
	return buf;
}

/* Give the finished file at @tmp the name @path, never over a file that is there. */
static int take_name(const char *tmp, const char *path)
{
	if (!link(tmp, path))
		return unlink(tmp) && errno != ENOENT ? -1 : 0;
	if (errno != EPERM && errno != EOPNOTSUPP)
		return -1;
	/* a file system without hard links (vfat on a board) */
	return renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);
}

int kmt_sqlite_commit(struct kmt_sqlite *db, struct kmt_error *err)
{
	int ret = kmt_sqlite_exec(db, "COMMIT", err);

	if (!ret && sqlite3_close(db->db) != SQLITE_OK)
		ret = kmt_sqlite_failed(db, "cannot close the database", err);
	else if (!ret)
		db->db = NULL;
	if (!ret && take_name(db->tmp, db->path)) {
		kmt_error_set(err, db->path, -1, "cannot give the database its name: %s",
			      strerror(errno));
		ret = -1;
	}
	if (ret) {
		kmt_sqlite_abort(db);
		return -1;
	}
	free(db->tmp);
	free(db->path);
	free(db);
	return 0;
}

void kmt_sqlite_abort(struct kmt_sqlite *db)
{
	if (!db)
		return;
	sqlite3_close(db->db);
	if (db->tmp)
		unlink(db->tmp);
	free(db->tmp);
	free(db->path);
	free(db);
}

void kmt_output_sqlite(struct kmt_output *out, struct kmt_sqlite *db)
{
	out->sqlite = db;
}

/* The SQL type of a column of @kind. */
static const char *sql_type(enum kmt_kind kind)
{
	if (kmt_kind_is_text(kind))
		return "TEXT";
	return kind == KMT_KIND_PERCENT ? "REAL" : "INTEGER";
}

/* Bind cell @c of @kind as parameter @i of @st. */
static int bind_cell(sqlite3_stmt *st, int i, enum kmt_kind kind, union kmt_cell c)
{
	if (kmt_kind_is_text(kind))
		return c.s ? sqlite3_bind_text(st, i, c.s, -1, SQLITE_STATIC) :
			     sqlite3_bind_null(st, i);
	if (kind == KMT_KIND_PERCENT)
		return sqlite3_bind_double(st, i, c.d);
	return sqlite3_bind_int64(st, i, kind == KMT_KIND_SIGNED ? c.i : (sqlite3_int64)c.u);
}

/* Run @st once with what is bound, and reset it. */
static int step(struct kmt_sqlite *db, sqlite3_stmt *st, struct kmt_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : kmt_sqlite_failed(db, "cannot write the database", err);
}

/* Prepare @sql into *@st: 0, or -1 with @err. */
static int prepare(struct kmt_sqlite *db, const char *sql, sqlite3_stmt **st,
		   struct kmt_error *err)
{
	if (sqlite3_prepare_v2(db->db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	return kmt_sqlite_failed(db, "cannot write the database", err);
}

/* The statements the report's own tables are filled through. */
struct catalog {
	sqlite3_stmt *summary, *table, *column;
};

static const char catalog_sql[] =
	"CREATE TABLE summaries (analysis TEXT, key TEXT, label TEXT, unit TEXT, value);"
	"CREATE TABLE report_tables (name TEXT PRIMARY KEY, analysis TEXT, \"table\" TEXT,"
	" title TEXT);"
	"CREATE TABLE report_columns (tbl TEXT, position INTEGER, name TEXT, header TEXT,"
	" unit TEXT, PRIMARY KEY (tbl, position));";

static int catalog_open(struct kmt_sqlite *db, struct catalog *c, struct kmt_error *err)
{
	if (kmt_sqlite_exec(db, catalog_sql, err) ||
	    prepare(db, "INSERT INTO summaries VALUES (?, ?, ?, ?, ?)", &c->summary, err) ||
	    prepare(db, "INSERT INTO report_tables VALUES (?, ?, ?, ?)", &c->table, err) ||
	    prepare(db, "INSERT INTO report_columns VALUES (?, ?, ?, ?, ?)", &c->column, err))
		return -1;
	return 0;
}

static void catalog_close(struct catalog *c)
{
	sqlite3_finalize(c->summary);
	sqlite3_finalize(c->table);
	sqlite3_finalize(c->column);
}

static int write_summary(struct kmt_sqlite *db, struct catalog *c, const struct section *sec,
			 struct kmt_error *err)
{
	int i;

	for (i = 0; i < sec->nvalues; i++) {
		const struct value *v = &sec->values[i];

		sqlite3_bind_text(c->summary, 1, sec->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(c->summary, 2, v->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(c->summary, 3, kmt_value_label(v), -1, SQLITE_STATIC);
		sqlite3_bind_text(c->summary, 4, kmt_kind_unit(v->kind), -1, SQLITE_STATIC);
		bind_cell(c->summary, 5, v->kind, v->cell);
		if (step(db, c->summary, err))
			return -1;
	}
	return 0;
}

/* CREATE TABLE and INSERT statements of table @t named @name, into @create and @insert. */
int kmt_sqlite_statements(const char *name, const struct kmt_sqlite_column *cols, int n,
			  char **create, char **insert)
{
	size_t clen, ilen;
	FILE *cf = open_memstream(create, &clen), *inf = open_memstream(insert, &ilen);
	int i;

	if (!cf || !inf) {
		if (cf)
			fclose(cf);
		if (inf)
			fclose(inf);
		return -1;
	}
	fprintf(cf, "CREATE TABLE \"%s\" (", name);
	fprintf(inf, "INSERT INTO \"%s\" VALUES (", name);
	for (i = 0; i < n; i++) {
		fprintf(cf, "%s\"%s\" %s", i ? ", " : "", cols[i].name, cols[i].type);
		fputs(i ? ", ?" : "?", inf);
	}
	fputc(')', cf);
	fputc(')', inf);
	return fclose(cf) | fclose(inf) ? -1 : 0;
}

static int table_sql(const struct kmt_table *t, const char *name, char **create, char **insert)
{
	struct kmt_sqlite_column *cols = calloc(t->ncols, sizeof(*cols));
	int i, ret;

	if (!cols)
		return -1;
	for (i = 0; i < t->ncols; i++)
		cols[i] = (struct kmt_sqlite_column){ t->cols[i].key, sql_type(t->cols[i].kind) };
	ret = kmt_sqlite_statements(name, cols, t->ncols, create, insert);
	free(cols);
	return ret;
}

/* Describe table @t, @name, of section @sec in report_tables and report_columns. */
static int describe_table(struct kmt_sqlite *db, struct catalog *c, const struct section *sec,
			  const struct kmt_table *t, const char *name, struct kmt_error *err)
{
	int i;

	sqlite3_bind_text(c->table, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->table, 2, sec->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->table, 3, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->table, 4, t->title, -1, SQLITE_STATIC);
	if (step(db, c->table, err))
		return -1;
	for (i = 0; i < t->ncols; i++) {
		sqlite3_bind_text(c->column, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_int(c->column, 2, i);
		sqlite3_bind_text(c->column, 3, t->cols[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(c->column, 4, t->cols[i].header, -1, SQLITE_STATIC);
		sqlite3_bind_text(c->column, 5, kmt_kind_unit(t->cols[i].kind), -1, SQLITE_STATIC);
		if (step(db, c->column, err))
			return -1;
	}
	return 0;
}

static int write_rows(struct kmt_sqlite *db, sqlite3_stmt *st, const struct kmt_table *t,
		      struct kmt_error *err)
{
	int r, i;

	for (r = 0; r < t->rows; r++) {
		for (i = 0; i < t->ncols; i++)
			bind_cell(st, i + 1, t->cols[i].kind, t->cells[(size_t)r * t->ncols + i]);
		if (step(db, st, err))
			return -1;
	}
	return 0;
}

static int write_table(struct kmt_sqlite *db, struct catalog *c, const struct section *sec,
		       const struct kmt_table *t, struct kmt_error *err)
{
	char name[256], *create = NULL, *insert = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;

	kmt_sqlite_name(name, sizeof(name), sec->name, t->name);
	if (table_sql(t, name, &create, &insert)) {
		kmt_error_set(err, db->path, -1, "out of memory");
		goto out;
	}
	if (describe_table(db, c, sec, t, name, err) || kmt_sqlite_exec(db, create, err) ||
	    prepare(db, insert, &st, err))
		goto out;
	ret = write_rows(db, st, t, err);
out:
	sqlite3_finalize(st);
	free(create);
	free(insert);
	return ret;
}

int kmt_render_sqlite(struct kmt_output *out, struct kmt_error *err)
{
	struct kmt_sqlite *db = out->sqlite;
	struct catalog c = { 0 };
	int s, t, ret = -1;

	if (catalog_open(db, &c, err))
		goto out;
	for (s = 0; s < out->nsections; s++) {
		const struct section *sec = &out->sections[s];

		if (write_summary(db, &c, sec, err))
			goto out;
		for (t = 0; t < sec->ntables; t++)
			if (write_table(db, &c, sec, sec->tables[t], err))
				goto out;
	}
	ret = 0;
out:
	catalog_close(&c);
	return ret;
}
