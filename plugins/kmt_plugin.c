// SPDX-License-Identifier: LGPL-2.1
/* The helpers of kmt_plugin.h: fields, symbols, sizes, options, registration. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kmt_plugin.h"
#include "common/mmnames.h"

#ifdef KMT_PLUGIN_SO
#define KMT_OPTIONS	TEP_PLUGIN_OPTIONS
__attribute__((visibility("default")))
#else
#define KMT_OPTIONS	kmt_plugin_options
static
#endif
struct tep_plugin_option KMT_OPTIONS[] = {
	{
		.name = "raw",
		.plugin_alias = "kmt",
		.description = "numbers as the kernel stores them: GFP flags, migratetypes, "
			       "error codes and return values in hex, sizes in bytes",
		.set = 0,
	},
	{ .name = NULL },
};

static const struct kmt_plugin_host *kmt_host;

int kmt_plugin_register(struct tep_handle *tep, const struct kmt_plugin *p)
{
	const struct kmt_plugin_handler *h;

	for (h = p->handlers; h->system; h++)
		tep_register_event_handler(tep, -1, h->system, h->event, h->func, NULL);
	return 0;
}

void kmt_plugin_unregister(struct tep_handle *tep, const struct kmt_plugin *p)
{
	const struct kmt_plugin_handler *h;

	for (h = p->handlers; h->system; h++)
		tep_unregister_event_handler(tep, -1, h->system, h->event, h->func, NULL);
}

#ifndef KMT_PLUGIN_SO
const struct kmt_plugin *const kmt_plugins[] = {
	&kmt_plugin_slab, &kmt_plugin_page, &kmt_plugin_fault, &kmt_plugin_rss, &kmt_plugin_oom,
	&kmt_plugin_heap,
	NULL
};

void kmt_plugins_register_all(struct tep_handle *tep, const struct kmt_plugin_host *host)
{
	int i;

	kmt_host = host;
	for (i = 0; kmt_plugins[i]; i++)
		kmt_plugin_register(tep, kmt_plugins[i]);
}

/* "1"/"true" → 1, "0"/"false" → 0, else -1. */
static int parse_bool(const char *v)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "true"))
		return 1;
	if (!strcmp(v, "0") || !strcasecmp(v, "false"))
		return 0;
	return -1;
}

int kmt_plugin_option(const char *spec)
{
	const char *eq, *name = spec;
	struct tep_plugin_option *op;
	size_t len;
	int val = 1;

	if (!strncmp(name, "kmt:", 4))
		name += 4;
	eq = strchr(name, '=');
	len = eq ? (size_t)(eq - name) : strlen(name);
	if (eq && (val = parse_bool(eq + 1)) < 0)
		return -1;
	for (op = KMT_OPTIONS; op->name; op++) {
		if (strlen(op->name) == len && !strncmp(op->name, name, len)) {
			op->set = val;
			return 0;
		}
	}
	return -1;
}
#endif

bool kmt_pf_raw(void)
{
	return KMT_OPTIONS[0].set;
}

int kmt_pf_num_opt(struct tep_event *event, struct tep_record *record, const char *name,
		   unsigned long long *val)
{
	if (kmt_pf_num(event, record, name, val))
		return 1;
	return tep_find_field(event, name) ? -1 : 0;
}

bool kmt_pf_num(struct tep_event *event, struct tep_record *record, const char *name,
		unsigned long long *val)
{
	struct tep_format_field *f = tep_find_field(event, name);
	unsigned long long v;

	if (!f || f->size <= 0 || f->size > 8 || f->offset < 0 ||
	    f->offset + f->size > record->size)
		return false;
	v = tep_read_number(event->tep, (char *)record->data + f->offset, f->size);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	*val = v;
	return true;
}

bool kmt_pf_str(struct tep_event *event, struct tep_record *record, const char *name,
		const char **str, int *len)
{
	struct tep_format_field *f = tep_find_field(event, name);
	unsigned int off, n;

	if (!f || f->offset < 0 || f->offset + f->size > record->size)
		return false;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long loc;

		if (f->size != 4)
			return false;
		loc = tep_read_number(event->tep, (char *)record->data + f->offset, 4);
		off = loc & 0xffff;
		n = (loc >> 16) & 0xffff;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		off = f->offset;
		n = f->size;
	} else {
		return false;
	}
	if (off + n > (unsigned int)record->size)
		return false;
	*str = (const char *)record->data + off;
	*len = strnlen(*str, n);
	return true;
}

void kmt_pf_symbol(struct trace_seq *s, struct tep_event *event, unsigned long long addr)
{
	const char *func = tep_find_function(event->tep, addr);
	const char *mod;

	if (!func) {
		trace_seq_printf(s, "0x%llx", addr);
		return;
	}
	trace_seq_printf(s, "%s+0x%llx", func, addr - tep_find_function_address(event->tep, addr));
	mod = kmt_host && kmt_host->module ? kmt_host->module(kmt_host->priv, addr) : NULL;
	if (mod)
		trace_seq_printf(s, " [%s]", mod);
}

void kmt_pf_size(struct trace_seq *s, unsigned long long bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;

	if (kmt_pf_raw() || bytes < 1024) {
		trace_seq_printf(s, "%llu%s", bytes, kmt_pf_raw() ? "" : " B");
		return;
	}
	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >> (10 * (u + 2)))
		u++;
	if (bytes & ((1ULL << (10 * (u + 1))) - 1))
		trace_seq_printf(s, "%.2f %s", (double)bytes / (double)(1ULL << (10 * (u + 1))),
				 units[u]);
	else
		trace_seq_printf(s, "%llu %s", bytes >> (10 * (u + 1)), units[u]);
}

void kmt_pf_gfp(struct trace_seq *s, struct tep_event *event, unsigned long long gfp)
{
	struct kmt_gfp_names *names;
	char buf[512];

	if (kmt_pf_raw()) {
		trace_seq_printf(s, "0x%llx", gfp);
		return;
	}
	names = kmt_gfp_names_new(event);	/* NULL: hex */
	kmt_gfp_format(names, gfp, buf, sizeof(buf));
	kmt_gfp_names_free(names);
	trace_seq_puts(s, buf);
}

void kmt_pf_migratetype(struct trace_seq *s, struct tep_event *event, long long mt)
{
	struct kmt_gfp_names *names;
	int version = kmt_host ? kmt_host->kernel_version : -1;
	char buf[32];

	if (kmt_pf_raw()) {
		trace_seq_printf(s, "%lld", mt);
		return;
	}
	if (version < 0) {
		names = kmt_gfp_names_new(event);
		version = kmt_gfp_names_pre_4_4(names) ? 4003 : -1;
		kmt_gfp_names_free(names);
	}
	trace_seq_puts(s, kmt_migratetype_name((int)mt, version, buf, sizeof(buf)));
}

void kmt_pf_ptr(struct trace_seq *s, unsigned long long ptr)
{
	if (ptr)
		trace_seq_printf(s, "0x%llx", ptr);
	else
		trace_seq_puts(s, "NULL");
}
