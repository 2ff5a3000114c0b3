/* SPDX-License-Identifier: LGPL-2.1 */
/* The kmtrace binary's subcommands. */
#ifndef KMT_CMD_H
#define KMT_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <termios.h>

/* Exit statuses: 0 ok, 1 could not do it (tracefs, system), 2 bad input or usage. */
#define KMT_EXIT_FAIL	1
#define KMT_EXIT_INPUT	2

/* kmtrace record: argv[0] is "record". Returns the exit status. */
int kmt_cmd_record(int argc, char **argv);

/* kmtrace report: argv[0] is "report". Returns the exit status. */
int kmt_cmd_report(int argc, char **argv);

/*
 * Put the heap the replay grows on huge pages where the system has them
 * and it does no harm (hugepages.c); a no-op elsewhere. Call before the
 * replay's first large allocation.
 */
void kmt_cmd_huge_page_heap(void);

/*
 * Parse a size @s for option @opt of kmtrace @cmd: bytes, or with K, M, G,
 * T (powers of 1024), above 0. 0, or -1 after saying why on stderr.
 */
int kmt_cmd_parse_size(const char *cmd, const char *opt, const char *s, unsigned long long *v);

/*
 * Where libkmtrace-heap.so is, into @path of @len bytes: $KMTRACE_HEAP_LIB,
 * else beside the kmtrace binary (the build tree, also for
 * build/kmtrace-san) or where make install puts it. 0, or -1 after saying
 * on stderr, as kmtrace @cmd, where it looked.
 */
int kmt_cmd_heap_lib(const char *cmd, char *path, size_t len);

/* @n bytes as "1.5 MiB" in @buf. */
const char *kmt_cmd_human(unsigned long long n, char *buf, size_t len);

/* kmtrace top's keyboard (top_keys.c): the terminal as it was, and whether keys are read. */
struct kmt_top_keys {
	bool on;
	struct termios saved;
};

/* Read single keys from stdin when stdin and stdout are terminals. 0, or -1. */
int kmt_top_keys_start(struct kmt_top_keys *k);

/* Give the terminal back as it was. */
void kmt_top_keys_stop(struct kmt_top_keys *k);

/* Wait up to @ns for a key: the key, or 0 (none, or keys are not read). */
int kmt_top_keys_wait(struct kmt_top_keys *k, uint64_t ns);

/* kmtrace diff: argv[0] is "diff". Returns the exit status (1: a budget broken). */
int kmt_cmd_diff(int argc, char **argv);

/* kmtrace footprint: argv[0] is "footprint". Returns the exit status. */
int kmt_cmd_footprint(int argc, char **argv);

/* kmtrace top: argv[0] is "top". Returns the exit status. */
int kmt_cmd_top(int argc, char **argv);

/* kmtrace watch: argv[0] is "watch". Returns the exit status. */
int kmt_cmd_watch(int argc, char **argv);

struct kmt_analysis;

/* kmtrace report --print: its options are parsed as an analysis's are. */
extern const struct kmt_analysis kmt_print;

/* kmtrace report events --format jsonl: a JSON object per event (events.c). */
extern const struct kmt_analysis kmt_events;

struct tep_format_field;

/* What an event's field holds, as kmt_cmd_field_value() reads it. */
enum kmt_field_kind {
	KMT_FIELD_NULL,		/* not inside the record */
	KMT_FIELD_INT,		/* a signed number (.u holds its two's complement) */
	KMT_FIELD_UINT,		/* an unsigned number */
	KMT_FIELD_TEXT,		/* a string: .p, .len bytes (no NUL) */
	KMT_FIELD_BYTES,	/* any other array, or a field larger than 8 bytes: .p, .len */
};

struct kmt_field_value {
	unsigned long long u;
	const unsigned char *p;
	int len;
};

/* The kind of the values of field @f (never KMT_FIELD_NULL): from its format alone. */
enum kmt_field_kind kmt_cmd_field_kind(const struct tep_format_field *f);

/*
 * Field @f of the record @data of @size bytes into *@v: its kind, or
 * KMT_FIELD_NULL when the field is not inside the record.
 */
enum kmt_field_kind kmt_cmd_field_value(struct tep_format_field *f, const unsigned char *data,
					int size, struct kmt_field_value *v);

/* Which machine and boot a recording is of: "" where it is not known. */
struct kmt_identity {
	char host[256];
	char boot_id[64];
	char release[256];		/* the kernel's */
};

struct kmt_reader;

/*
 * The identity of the recording @r: host @host (NULL: the recording's
 * uname), boot id @boot_id (NULL: the recording's), kernel release (its
 * uname's).
 */
void kmt_cmd_identity(struct kmt_reader *r, const char *host, const char *boot_id,
		      struct kmt_identity *id);

/*
 * report events --host: each line flat, fields beside the event's own
 * keys, with @id's host, boot id and kernel release, for a columnar store.
 */
void kmt_events_fleet(void *priv, const struct kmt_identity *id);

/* report --format sqlite: every event into the database (database.c). */
extern const struct kmt_analysis kmt_database;

struct kmt_sqlite;
struct kmt_error;

/* The database kmt_database's state @priv writes into, and what it is of (@id, kept). */
void kmt_database_use(void *priv, struct kmt_sqlite *db, const struct kmt_identity *id);

/* What went wrong writing the database, or NULL. */
const struct kmt_error *kmt_database_error(void *priv);

/*
 * A new file @path (mode 0600, never one that is there) for option @opt of
 * kmtrace @cmd, or NULL after saying why on stderr.
 */
FILE *kmt_cmd_new_file(const char *cmd, const char *opt, const char *path);

/* Print one line per analysis, name and help, each after @indent. */
void kmt_cmd_list_analyses(FILE *fp, const char *indent);

#endif /* KMT_CMD_H */
