/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: a recording's SQLite database (report --format sqlite). It is
 * written into a hidden file beside its name, in one transaction, and
 * takes its name only when complete: a failure leaves nothing under it.
 */
#ifndef KMTRACE_SQLITE_H
#define KMTRACE_SQLITE_H

#include <stddef.h>

struct sqlite3;
struct kmt_sqlite;
struct kmt_output;
struct kmt_error;

/*
 * Start the database that is to become @path (a file that must not be
 * there yet), mode 0600. NULL with @err filled.
 */
struct kmt_sqlite *kmt_sqlite_create(const char *path, struct kmt_error *err);

/* The connection, for the caller's own statements. */
struct sqlite3 *kmt_sqlite_db(struct kmt_sqlite *db);

/* The name the database is to have. */
const char *kmt_sqlite_path(const struct kmt_sqlite *db);

/* Run @sql, statements that return no rows. 0, or -1 with @err filled. */
int kmt_sqlite_exec(struct kmt_sqlite *db, const char *sql, struct kmt_error *err);

/*
 * Fill @err with the connection's last error while doing @what (e.g.
 * "cannot insert"), naming the database. Returns -1.
 */
int kmt_sqlite_failed(struct kmt_sqlite *db, const char *what, struct kmt_error *err);

/*
 * @a (and, unless NULL, "_" @b) as a table or column name: characters other
 * than letters, digits and '_' become '_'. Into @buf; returns @buf.
 */
char *kmt_sqlite_name(char *buf, size_t len, const char *a, const char *b);

/* A column of a table kmt_sqlite_statements() makes: its name and SQL type. */
struct kmt_sqlite_column {
	const char *name;
	const char *type;
};

/*
 * The statements of table @name with the @n columns @cols: its CREATE
 * TABLE into *@create and an INSERT of one row (a parameter per column)
 * into *@insert, both to free. 0, or -1 when out of memory.
 */
int kmt_sqlite_statements(const char *name, const struct kmt_sqlite_column *cols, int n,
			  char **create, char **insert);

/*
 * Commit, close and give the file its name (never replacing a file that
 * appeared meanwhile). 0, or -1 with @err filled and nothing left behind.
 * @db is freed either way.
 */
int kmt_sqlite_commit(struct kmt_sqlite *db, struct kmt_error *err);

/* Close and remove the unfinished file; NULL is ignored. */
void kmt_sqlite_abort(struct kmt_sqlite *db);

/*
 * --format sqlite: kmt_output_finish() writes every summary and table of
 * @out into @db (which stays the caller's to commit): a table per
 * analysis table, "ANALYSIS_TABLE", and the tables "summaries",
 * "report_tables" and "report_columns" (names, titles, units).
 */
void kmt_output_sqlite(struct kmt_output *out, struct kmt_sqlite *db);

#endif /* KMTRACE_SQLITE_H */
