/* SPDX-License-Identifier: LGPL-2.1 */
/* What every reader backend fills in; private to src/. */
#ifndef KMT_READER_LOCAL_H
#define KMT_READER_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <kmtrace/reader.h>
#include "formats.h"
#include "container/cpustats.h"

struct kmt_symbols;
struct kmt_reader_symbols;

/* CPUs a recording may name: a file that counts more is corrupt. */
#define KMT_MAX_CPUS	8192

/*
 * A backend gives per-CPU streams (next) or one stream in time order
 * (next_any, or next_batch).
 */
struct kmt_reader_ops {
	int (*next)(struct kmt_reader *r, int cpu, struct kmt_record *rec,
		    struct kmt_error *err);
	/* May give up to @max records of a CPU at once (kmt_reader_next_cpu_batch()). */
	int (*next_cpu_batch)(struct kmt_reader *r, int cpu, struct kmt_record *recs, int max,
			      struct kmt_error *err);
	int (*next_any)(struct kmt_reader *r, struct kmt_record *rec, struct kmt_error *err);
	/* Or up to @max records of the one stream at once (kmt_reader_next_batch()). */
	int (*next_batch)(struct kmt_reader *r, struct kmt_record *recs, int max,
			  struct kmt_error *err);
	void (*close)(struct kmt_reader *r);
	/* All records were replayed (kmt_reader_finish()); may be NULL. 0 or -1. */
	int (*finish)(struct kmt_reader *r);
	/* The name of task @pid the reader knows better than the tep, or NULL; may be NULL. */
	const char *(*comm)(struct kmt_reader *r, int pid);
	/* Reading the streams adds to the tep (comms): analyses may not run meanwhile. */
	bool changes_tep;
};

struct kmt_reader {
	const struct kmt_reader_ops *ops;
	char *path;
	const char *format;
	struct tep_handle *tep;
	int ncpus;
	struct kmt_cpu_stats *stats;	/* ncpus entries */
	char *texts[KMT_TEXT_NR];
	struct kmt_reader_symbols *syms;	/* symbol sources and lookups (reader_symbols.c) */
	struct kmt_symbols *symbols;	/* the recording's kallsyms or --kallsyms, or NULL */
	char *live_release;		/* load /proc/kallsyms at first use if it matches */
	unsigned long long kernel_text;	/* the recording's _text, 0 if unknown */
	char kernel_build_id[41];	/* the recording's kernel build-id in hex, or "" */
	struct kmt_pending_samples {		/* a sample option not read yet */
		const char *data;		/* in the file's mapping; NULL: none */
		size_t size;
		bool binary, swap;
	} samples;
	struct kmt_reader_samples {		/* kmtrace record's perf samples */
		struct kmt_fault_sample *text;	/* the text option's, parsed; or NULL */
		struct kmt_sample_array {	/* else the binary option's, mapped */
			const unsigned char *data;
			size_t rec;		/* bytes per sample */
			bool swap;
		} bin;
		size_t n, next;			/* how many; the next one to hand out */
	} fault_samples;
	bool fault_samples_damaged;
	struct kmt_format_counts formats;	/* what became of the file's event formats */
	bool formats_given;		/* by kmtrace or --formats, not by the recording */
	struct kmt_stack_joiner *stacks;	/* kernel_stack records to join, or NULL */
	int *cpu_nodes;			/* KMT_TEXT_CPU_NODES read once: node per CPU, -1 */
	int ncpu_nodes;			/* entries of cpu_nodes; -1 until read */
	struct kmt_reader_usyms *usyms;	/* KMT_TEXT_USER_MAPS read (reader_usyms.c) */
	struct kmt_proctable *procs;	/* KMT_TEXT_PROCESSES read, then completed */
	bool keep_text;			/* kmt_reader_keep_text() */
	unsigned long long unnamed;	/* records of tasks no record named (perf.data) */
	const void *hold;		/* kmt_reader_hold(): kept records another thread reads */
	void *priv;
};

/* Free what reader_usyms.c read. */
void kmt_reader_usyms_free(struct kmt_reader *r);

/* Allocate a reader for @path with @ncpus (0 allowed) zeroed stats. */
struct kmt_reader *kmt_reader_alloc(const char *path, const struct kmt_reader_ops *ops);

/* Size the per-CPU stats array to @ncpus, keeping the stats it had. Returns 0 or -1. */
int kmt_reader_set_cpus(struct kmt_reader *r, int ncpus);

/*
 * Text input: the names the text gave to call sites, at made-up addresses
 * (kallsyms @text), looked up before any other symbols. 0 or -1.
 */
int kmt_reader_set_text_symbols(struct kmt_reader *r, const char *text, size_t len);

/* Load the deferred /proc/kallsyms once, saying in KMT_TEXT_SYMBOLS where symbols came from. */
void kmt_reader_load_symbols(struct kmt_reader *r);

/* Free what the symbol parts of @r hold. */
void kmt_reader_free_symbols(struct kmt_reader *r);

/*
 * The recording's kallsyms @text (@len bytes, now the reader's to free):
 * parsed on a thread from now on, @r's symbols at the first lookup. 0, or
 * -1 when out of memory.
 */
int kmt_reader_defer_symbols(struct kmt_reader *r, char *text, size_t len);

/*
 * The recording carries no kallsyms (perf.data): at the first symbol lookup,
 * take this machine's /proc/kallsyms if it runs kernel @release with _text
 * at @text_addr (0: unknown), as at the recording; when it runs that
 * release, a thread starts reading it now. KMT_TEXT_SYMBOLS then says
 * which. Returns 0 or -1.
 */
int kmt_reader_defer_live_kallsyms(struct kmt_reader *r, const char *release,
				   unsigned long long text_addr);

/*
 * The recording names its kernel, @release (NULL: it does not), before
 * its kernel map: when this machine runs that release, a thread starts
 * reading /proc/kallsyms already, for kmt_reader_defer_live_kallsyms().
 */
void kmt_reader_expect_live_kallsyms(struct kmt_reader *r, const char *release);

/*
 * The fault samples of a KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN option (@swap:
 * the file's byte order is not ours), or of the older text option. 0, -1
 * when damaged, -2 when out of memory.
 */
/*
 * Read the sample option r->samples points to (none: nothing to do), as
 * kmt_reader_take_fault_samples() or ..._text() would: 0, -1 damaged, -2
 * out of memory (damaged is set in r either way but for 0).
 */
int kmt_reader_take_pending_samples(struct kmt_reader *r);

int kmt_reader_take_fault_samples(struct kmt_reader *r, const void *data, size_t size,
				  bool swap);
int kmt_reader_take_fault_sample_text(struct kmt_reader *r, const char *text, size_t len);

/*
 * Printk formats ("0xADDR : \"FMT\"" lines) and saved cmdlines ("PID COMM"
 * lines) of a recording into @tep, read here rather than by
 * libtraceevent, which reads past its buffer on some lines.
 */
void kmt_reader_take_printk(struct tep_handle *tep, const char *text);
void kmt_reader_take_cmdlines(struct tep_handle *tep, const char *text);

/*
 * Join the kernel_stack records of @r's per-CPU streams to the events they
 * follow (stack_join.c), where the recording can hold them. 0, or -1 when out
 * of memory.
 */
int kmt_stack_join_open(struct kmt_reader *r);

/* kmt_reader_next() of a CPU stream once kmt_stack_join_open() set r->stacks. */
int kmt_stack_join_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
		    struct kmt_error *err);

/* Free what kmt_stack_join_open() made; none is ignored. */
void kmt_stack_join_free(struct kmt_reader *r);

/* Free the common parts (ops->close frees the backend's own first). */
void kmt_reader_free_common(struct kmt_reader *r);

/* Parse trace-cmd CPUSTAT texts ("CPU: N\n" then the stats file) into @r. */
void kmt_reader_parse_cpustats(struct kmt_reader *r, const char *text, size_t len);

/*
 * Map all of @fd read-only into *@map and *@size, then close @fd (also on
 * failure). Returns 0, or -1 with @err filled for @path.
 */
int kmt_map_file(int fd, const char *path, const unsigned char **map, size_t *size,
		 struct kmt_error *err);

/* Bytes of an input read to tell its format. */
#define KMT_HEAD_LEN	4096

/* An input being opened: its name, descriptor and first bytes. */
struct kmt_input {
	const char *path;
	int fd;				/* the backend's open takes it, also on failure */
	const unsigned char *head;	/* the first head_len bytes, already read from fd */
	size_t head_len;
	const char *formats_dir;	/* --formats DIR, or NULL */
};

/*
 * A reader backend: a probe on an input's first bytes and an open. Each
 * is defined in its own file and listed in the table of backends.c.
 */
struct kmt_backend {
	const char *name;	/* the reader's format unless its open names another */
	bool (*probe)(const unsigned char *head, size_t len);
	/* The reader of @in, taking in->fd; NULL with @err filled. */
	struct kmt_reader *(*open)(const struct kmt_input *in, struct kmt_error *err);
};

/* Define backend kmt_backend_@id for backends.c's table. */
#define KMT_BACKEND(id, label, probe_fn, open_fn)				\
	const struct kmt_backend kmt_backend_##id = {				\
		.name = (label), .probe = (probe_fn), .open = (open_fn)		\
	}

/*
 * The reader of CTF trace directory @path (ctf.c): LTTng's lttng_ust_libc
 * events as record --user-sample's records. NULL with @err filled.
 */
struct kmt_reader *kmt_ctf_open(const char *path, struct kmt_error *err);

/* The first backend whose probe takes the @len bytes at @head, or NULL. */
const struct kmt_backend *kmt_backend_find(const unsigned char *head, size_t len);

/*
 * Rewind @in to its first byte, for a backend that reads the file from
 * the start. 0, or -1 with @err filled and in->fd closed (a pipe).
 */
int kmt_input_rewind(const struct kmt_input *in, struct kmt_error *err);

struct kmt_cursor;

/*
 * Tracing data at cursor @c (magic through saved cmdlines) into @r's tep
 * and symbols: the start of a trace.dat, @version its version string
 * (NULL: any); with @pages, ring-buffer pages follow and their sub-buffer
 * size must be sane. false with c->err filled.
 */
bool kmt_tracing_data_parse(struct kmt_cursor *c, struct kmt_reader *r, const char *version,
			    bool pages);

/*
 * Parse tracing data (magic, version, header_page, formats, kallsyms,
 * printk formats, cmdlines) at @offset of the @size bytes at @base into
 * @r's tep and symbols: the layout trace.dat starts with and perf.data's
 * HEADER_TRACING_DATA holds. Returns false with @err filled.
 */
bool kmt_parse_tracing_data(const void *base, size_t size, size_t offset, const char *path,
			    struct kmt_reader *r, struct kmt_error *err);

#endif /* KMT_READER_LOCAL_H */
