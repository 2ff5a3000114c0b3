/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What the kmtrace libtraceevent plugins share: reading fields with bounds
 * checks, call sites as func+0xOFF, sizes in human units, the "raw"
 * option, and registering a table of handlers.
 *
 * Each plugin_kmt_*.c is built twice: as a plugin_kmt_*.so for trace-cmd
 * and perf (KMT_PLUGIN_SO defined; then it exports the loader, unloader and
 * options libtraceevent looks for; libtraceevent sets the options from -O
 * as it loads the .so, so the loader does not add them a second time,
 * which would undo a toggle), and into kmtrace itself, which
 * registers the same handlers for `kmtrace report --print`.
 *
 * Perf loads plugins but resolves only a few libtraceevent functions for
 * them (tep_find_field, tep_read_number, tep_find_function,
 * tep_find_function_address, tep_register_event_handler,
 * tep_unregister_event_handler, trace_seq_printf, trace_seq_puts,
 * trace_seq_putc and a few more): the plugins call nothing else.
 */
#ifndef KMT_PLUGIN_H
#define KMT_PLUGIN_H

#include <stdbool.h>
#include <traceevent/event-parse.h>

/* One event a plugin prints. */
struct kmt_plugin_handler {
	const char *system;
	const char *event;
	tep_event_handler_func func;
};

/* A plugin: its name and handlers, terminated by a NULL system. */
struct kmt_plugin {
	const char *name;
	const struct kmt_plugin_handler *handlers;
};

/* The plugins built into kmtrace, terminated by NULL. */
extern const struct kmt_plugin *const kmt_plugins[];

/* What kmtrace knows and libtraceevent does not tell plugins. */
struct kmt_plugin_host {
	/* The module of the kernel function holding @addr, or NULL. */
	const char *(*module)(void *priv, unsigned long long addr);
	void *priv;
	int kernel_version;	/* MAJOR * 1000 + MINOR; -1 unknown */
};

/*
 * Register every handler of @p on @tep (events not in @tep yet are
 * registered for when they appear). Returns 0.
 */
int kmt_plugin_register(struct tep_handle *tep, const struct kmt_plugin *p);

/* Undo kmt_plugin_register(). */
void kmt_plugin_unregister(struct tep_handle *tep, const struct kmt_plugin *p);

/* Register every plugin built into kmtrace on @tep, with @host (may be NULL). */
void kmt_plugins_register_all(struct tep_handle *tep, const struct kmt_plugin_host *host);

/*
 * Set plugin option "kmt:NAME=VALUE", "NAME=VALUE" or "NAME" (true) as
 * trace-cmd's -O does. Returns 0, or -1 for an option the plugins do not
 * have or a value that is not 0/1/true/false.
 */
int kmt_plugin_option(const char *spec);

/* --- for the handlers --- */

/* Is the "raw" option set (numbers as the kernel stores them, no names)? */
bool kmt_pf_raw(void);

/*
 * Read integer field @name of @record into *@val (sign-extended for signed
 * fields). False when @event has no such field or @record is too short.
 */
bool kmt_pf_num(struct tep_event *event, struct tep_record *record, const char *name,
		unsigned long long *val);

/*
 * An optional field: 1 when read into *@val, 0 when @event has no field
 * @name, -1 when it has but @record is too short for it.
 */
int kmt_pf_num_opt(struct tep_event *event, struct tep_record *record, const char *name,
		   unsigned long long *val);

/*
 * Point *@str at string field @name (__data_loc, __rel_loc or char[]),
 * *@len its length without the trailing NULs. False as kmt_pf_num().
 */
bool kmt_pf_str(struct tep_event *event, struct tep_record *record, const char *name,
		const char **str, int *len);

/* Print @addr as "func+0xOFF [module]" when a symbol holds it, else "0x%llx". */
void kmt_pf_symbol(struct trace_seq *s, struct tep_event *event, unsigned long long addr);

/* Print @bytes as "16 KiB", "1.50 MiB", "512 B" (as a number only in raw mode). */
void kmt_pf_size(struct trace_seq *s, unsigned long long bytes);

/* Print @gfp by the names of @event's own print format ("0x%llx" in raw mode). */
void kmt_pf_gfp(struct trace_seq *s, struct tep_event *event, unsigned long long gfp);

/*
 * Print migratetype @mt by name, for the kernel the host names, else for
 * the one @event's GFP names point to (before or from 4.4).
 */
void kmt_pf_migratetype(struct trace_seq *s, struct tep_event *event, long long mt);

/* Print @ptr as "0x%llx", or "NULL". */
void kmt_pf_ptr(struct trace_seq *s, unsigned long long ptr);

/* The slab, page, fault, rss, OOM and heap (libkmtrace-heap.so's records) plugins. */
extern const struct kmt_plugin kmt_plugin_slab;
extern const struct kmt_plugin kmt_plugin_page;
extern const struct kmt_plugin kmt_plugin_fault;
extern const struct kmt_plugin kmt_plugin_rss;
extern const struct kmt_plugin kmt_plugin_oom;
extern const struct kmt_plugin kmt_plugin_heap;

#ifdef KMT_PLUGIN_SO
/* The entry points libtraceevent looks up in plugin_kmt_NAME.so. */
#define KMT_PLUGIN_EXPORT(plugin)						\
	__attribute__((visibility("default")))					\
	int TEP_PLUGIN_LOADER(struct tep_handle *tep)				\
	{									\
		return kmt_plugin_register(tep, &(plugin));			\
	}									\
	__attribute__((visibility("default")))					\
	void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)			\
	{									\
		kmt_plugin_unregister(tep, &(plugin));				\
	}
#else
#define KMT_PLUGIN_EXPORT(plugin)
#endif

#endif /* KMT_PLUGIN_H */
