/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: the analysis interface. One file per analysis under
 * src/analyses/, listed once in the registry.
 */
#ifndef KMTRACE_ANALYSIS_H
#define KMTRACE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kmtrace/event.h>
#include <kmtrace/reader.h>

struct kmt_output;
struct kmt_reader;
struct kmt_objmap;
struct kmt_name_ids;

/* What the replay found wrong with the input's events, and did about it. */
struct kmt_replay_stats {
	unsigned long long out_of_order;	/* earlier than the one before: given its time */
	unsigned long long impossible;		/* values no kernel writes: left out as unknown */
	unsigned long long types[KMT_EV_NR];	/* events handed out, per type */
	int threads;		/* the threads the replay ended on (KMT_THREADS_AUTO: its choice) */
};

#define KMT_THREADS_AUTO	(-1)	/* kmt_session.threads: two if they prove faster */

/* What an analysis may look at besides the events themselves. */
struct kmt_session {
	struct kmt_reader *reader;
	struct tep_handle *tep;
	const char *input;
	struct kmt_replay_stats replay;		/* filled by kmt_replay() */
	int threads;		/* 2: records read and decoded in a thread of their own */
	unsigned long long thread_trial;	/* KMT_THREADS_AUTO: records timed each way
						   before it chooses (0: 262144) */
	struct kmt_objmap *objects;	/* during kmt_replay(): the live slab objects' slots */
	struct kmt_name_ids *cache_names;	/* and the numbers of the cache names */
};

/*
 * Names of addresses, through the symbols the session chose (core/session.c):
 * what kmt_reader_symbol(), _function(), _user_symbol(), _source_file() and
 * _has_sources() give for its reader. Analyses name addresses only through
 * these.
 */
int kmt_session_symbol(const struct kmt_session *s, unsigned long long addr, char *buf,
		       size_t len);
const char *kmt_session_function(const struct kmt_session *s, unsigned long long addr,
				 unsigned long long *start, const char **mod);
int kmt_session_user_symbol(const struct kmt_session *s, int tgid, unsigned long long addr,
			    char *buf, size_t len);
int kmt_session_source_file(const struct kmt_session *s, unsigned long long addr, char *buf,
			    size_t len);
bool kmt_session_has_sources(const struct kmt_session *s);

/* Static bytes of a kernel image from one source file (kmt_static_by_file()). */
struct kmt_static_file {
	char *file;		/* relative to the build tree; "": no source known; NULL: in no symbol */
	unsigned long long bytes;	/* text, rodata, data and bss */
};

/*
 * The static bytes of ELF image @path by source file, as kmtrace footprint
 * counts them, into *@files (*@n entries, every byte of the image's
 * allocated sections once). 0, or -1 with @err naming @path.
 */
int kmt_static_by_file(const char *path, struct kmt_static_file **files, size_t *n,
		       struct kmt_error *err);

/* Free what kmt_static_by_file() gave; NULL is ignored. */
void kmt_static_free(struct kmt_static_file *files, size_t n);

/*
 * A set of event types, a bit each: more types than 64, so 128 bits (every
 * 64-bit target of GCC and clang has them).
 */
typedef unsigned __int128 kmt_evmask_t;

_Static_assert(KMT_EV_NR <= 128, "kmt_evmask_t holds a bit per event type");

/* Bit of @type in kmt_analysis.events. */
#define KMT_EVMASK(type)	((kmt_evmask_t)1 << (type))
/* Every event, the unknown ones included. */
#define KMT_EVMASK_ALL		(~(kmt_evmask_t)0)
/* The slab allocator's allocations (kmalloc and kmem_cache_alloc, _node or not). */
#define KMT_EVMASK_SLAB_ALLOCS	(KMT_EVMASK(KMT_EV_KMALLOC) | KMT_EVMASK(KMT_EV_KMALLOC_NODE) | \
				 KMT_EVMASK(KMT_EV_CACHE_ALLOC) | KMT_EVMASK(KMT_EV_CACHE_ALLOC_NODE))
/* And its frees (kfree, kmem_cache_free). */
#define KMT_EVMASK_SLAB_FREES	(KMT_EVMASK(KMT_EV_KFREE) | KMT_EVMASK(KMT_EV_CACHE_FREE))

struct option;
struct kmt_filter;

/* Events an analysis cannot do without: one of @any must be in the recording. */
struct kmt_need {
	kmt_evmask_t any;		/* KMT_EVMASK()s */
	const char *without;		/* what the report lacks then, e.g. "frees" */
};

/*
 * An analysis. Options follow its name on the command line and are parsed
 * with getopt_long() from @shortopts and @longopts; the keys 'i', 'H', 'h'
 * and 'F' belong to `kmtrace report` itself.
 */
struct kmt_analysis {
	const char *name;
	const char *help;		/* one line */
	const char *usage;		/* its options, for --help; NULL if none */
	const char *shortopts;		/* NULL if none */
	const struct option *longopts;	/* NULL-terminated; NULL if none */
	kmt_evmask_t events;		/* KMT_EVMASK() of the events it wants */
	/*
	 * Its event handler touches only its own state, the event and the tep's
	 * comms (no symbol lookup, nothing of the reader): it may take the
	 * events in the thread that reads them (kmt_session.threads 2).
	 */
	bool reader_thread_ok;
	/*
	 * reader_thread_ok for an analysis that may only with some options:
	 * asked of its state @priv once they are given. NULL: none.
	 */
	bool (*reader_thread_ok_with)(const void *priv);
	/*
	 * KMT_EVMASK() of the events it reads only the type, id, pid, cpu,
	 * time and callchain of (KMT_EVMASK_ALL: all it takes): their fields
	 * need not be decoded for it.
	 */
	kmt_evmask_t types_only;
	/*
	 * It finds its slab objects by kmt_event.obj, not by pointer: the
	 * replay then numbers the live objects, once for all analyses, and
	 * with two threads in the calling one, where those analyses run.
	 */
	bool slab_objects;
	const struct kmt_need *needs;	/* ended by { 0 }; NULL: none */
	/*
	 * It shows nothing without an event of needs[0]: the others it takes
	 * serve only those. When the recording's formats, all known before
	 * the replay, hold none of needs[0], the replay hands it no events.
	 */
	bool idle_without_first_need;
	/* Allocate private state with default options; NULL with errno on failure. */
	void *(*init)(void);
	/*
	 * Its event filter: --time, --pid-filter and --comm are then taken by
	 * the command and set there. NULL: the analysis takes no filter.
	 */
	struct kmt_filter *(*filter)(void *priv);
	/* Take option @key with argument @arg (or NULL); 0, or -1 with @err filled. NULL: none. */
	int (*option)(void *priv, int key, const char *arg, struct kmt_error *err);
	/* Get ready to take the events of @s (may be NULL); 0 or -1 with errno. */
	int (*start)(void *priv, const struct kmt_session *s);
	/* Take one event, in time order; 0, or -1 (errno ENOMEM) to stop the replay. */
	int (*event)(void *priv, const struct kmt_event *ev);
	/* A remark on the report to come, for standard error; NULL: none or none to make. */
	const char *(*remark)(void *priv);
	/* Describe the results to @out; 0, or -1 (errno ENOMEM when out of memory). */
	int (*report)(void *priv, const struct kmt_session *s, struct kmt_output *out);
	void (*free)(void *priv);
};

/* The table of analyses, terminated by NULL. */
extern const struct kmt_analysis *const kmt_analyses[];

/* Find an analysis by name, or NULL. */
const struct kmt_analysis *kmt_analysis_find(const char *name);

/*
 * Give option @key with @arg (or NULL) to analysis @an with state @priv:
 * to its filter if it is a filter option, else to its own options.
 * 0, or -1 with @err filled.
 */
int kmt_analysis_option(const struct kmt_analysis *an, void *priv, int key, const char *arg,
			struct kmt_error *err);

/*
 * Merge the per-CPU streams of @s->reader by timestamp, decode each record
 * and hand it to every analysis in @an (@priv holds their states) that
 * declared its type. Analyses see time never go back: an event earlier
 * than the one before it gets that one's time, and an event with values no
 * kernel writes goes out as unknown; both are counted in @s->replay.
 * With @s->threads 2 (and a reader whose streams are read apart, see
 * kmt_reader_reads_apart()) the records are read and decoded in a second
 * thread while the analyses take the events in this one, in the same order.
 * With KMT_THREADS_AUTO the replay times @s->thread_trial records in one
 * thread and as many on two, and goes on the faster way; every analysis
 * sees the same events in the same order whichever it takes.
 * Returns 0, or -1 with @err filled on corrupt input.
 */
int kmt_replay(struct kmt_session *s, const struct kmt_analysis *const *an,
	       void *const *priv, int n, struct kmt_error *err);

/*
 * After kmt_replay(): the needs of @an the recording does not meet, as
 * "kmem:kfree or kmem:kmem_cache_free (frees)" joined by "; " in @buf.
 * An event is in the recording when one of its type was replayed, or when
 * the recording carries its format (it does only for recorded events,
 * ftrace text does not). Returns how many needs are not met.
 */
int kmt_missing_events(const struct kmt_session *s, const struct kmt_analysis *an, char *buf,
		       size_t len);

#endif /* KMTRACE_ANALYSIS_H */
