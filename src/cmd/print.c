// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace report --print: every event on one line, as trace-cmd report
 * prints it, decoded by the handlers of kmtrace's libtraceevent plugins.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "cmd.h"
#include "input/formats.h"
#include "analyses/filter.h"
#include "plugins/kmt_plugin.h"
#include "common/mmnames.h"
#include "common/util.h"

/* Event names are padded to this width, as trace-cmd does. */
#define NAME_WIDTH	20

struct print_state {
	struct kmt_filter filter;
	struct tep_handle *tep;
	struct kmt_plugin_host host;
	struct trace_seq seq;
	struct kmt_reader *reader;
};


static const struct option print_longopts[] = {
	{ "plugin-option", required_argument, NULL, 'O' },
	{ NULL, 0, NULL, 0 }
};

static void print_free(void *priv)
{
	struct print_state *st = priv;

	kmt_filter_free(&st->filter);
	trace_seq_destroy(&st->seq);
	free(st);
}

static void *print_init(void)
{
	struct print_state *st = calloc(1, sizeof(*st));

	if (st && kmt_filter_init(&st->filter)) {
		free(st);
		return NULL;
	}
	if (st)
		trace_seq_init(&st->seq);
	return st;
}

static int print_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	(void)priv;
	if (key == 'O' && !kmt_plugin_option(arg))
		return 0;
	if (key == 'O')
		kmt_error_set(err, NULL, -1, "unknown plugin option '%s' (there is kmt:raw[=0|1])", arg);
	else
		kmt_error_set(err, NULL, -1, "unknown option");
	return -1;
}

static struct kmt_filter *print_filter(void *priv)
{
	return &((struct print_state *)priv)->filter;
}

/* The host's module lookup: the module of the function holding @addr. */
static const char *module_of(void *priv, unsigned long long addr)
{
	const char *mod = NULL;

	kmt_reader_function(priv, addr, NULL, &mod);
	return mod;
}

static int print_start(void *priv, const struct kmt_session *s)
{
	struct print_state *st = priv;

	st->tep = s->tep;
	st->reader = s->reader;
	st->filter.reader = s->reader;
	st->host.module = module_of;
	st->host.priv = s->reader;
	st->host.kernel_version = kmt_kernel_version(kmt_reader_text(s->reader, KMT_TEXT_UNAME));
	/* Symbols a reader loads on first use must be there before libtraceevent asks. */
	kmt_reader_text(s->reader, KMT_TEXT_SYMBOLS);
	kmt_plugins_register_all(s->tep, &st->host);
	kmt_reader_keep_text(s->reader);	/* text input: its lines' own values */
	return 0;
}

/*
 * The event's call stack below it, a frame per line as trace-cmd report
 * shows them. 0, or -1 on a write error.
 */
static int print_stack(struct print_state *st, const struct kmt_event *ev)
{
	char frame[512];
	int i;

	for (i = 0; i < ev->callchain_nr; i++) {
		if (ev->callchain[i] >= KMT_CALLCHAIN_MARKERS)
			continue;	/* perf's PERF_CONTEXT_KERNEL and the like */
		kmt_reader_symbol(st->reader, ev->callchain[i], frame, sizeof(frame));
		if (fputs(" => ", stdout) == EOF || kmt_fputs_escaped(frame, stdout) ||
		    putchar('\n') == EOF)
			return -1;
	}
	return 0;
}

/* "COMM-PID [CPU] TIME: " as trace-cmd report starts a line, the event's own comm first. */
static void print_prefix(struct print_state *st, const struct kmt_event *ev,
			 struct tep_record *rec)
{
	if (!ev->comm) {
		tep_print_event(st->tep, &st->seq, rec, "%16s-%-7d [%03d] %6.1000d: ",
				TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME);
		return;
	}
	trace_seq_printf(&st->seq, "%16s-%-7d ", ev->comm, ev->pid);
	tep_print_event(st->tep, &st->seq, rec, "[%03d] %6.1000d: ", TEP_PRINT_CPU,
			TEP_PRINT_TIME);
}

/* One event's line (and stack). 0, or -1 on a write error: the replay stops. */
static int print_event(void *priv, const struct kmt_event *ev)
{
	struct print_state *st = priv;
	struct tep_record rec = {
		.ts = ev->ts, .cpu = ev->cpu, .data = (void *)ev->raw, .size = ev->raw_size,
	};
	unsigned int name_start;
	int pad;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	trace_seq_reset(&st->seq);
	print_prefix(st, ev, &rec);
	name_start = st->seq.len;
	if (ev->text_event)
		trace_seq_printf(&st->seq, "%s:", ev->text_event);
	else
		tep_print_event(st->tep, &st->seq, &rec, "%s:", TEP_PRINT_NAME);
	pad = NAME_WIDTH + 2 - (int)(st->seq.len - name_start);
	trace_seq_printf(&st->seq, "%*s", pad > 1 ? pad : 1, "");
	if (ev->text)
		trace_seq_puts(&st->seq, ev->text);	/* the text's own values */
	else if (kmt_formats_record_fits(st->tep, tep_find_event(st->tep, ev->id), rec.data,
					 rec.size))
		tep_print_event(st->tep, &st->seq, &rec, "%s", TEP_PRINT_INFO);
	else
		trace_seq_printf(&st->seq, "[record of %d bytes does not hold its format's fields]",
				 rec.size);
	trace_seq_terminate(&st->seq);
	/* comms and strings from the file: escaped, they cannot drive the terminal */
	if (st->seq.state != TRACE_SEQ__GOOD || kmt_fputs_escaped(st->seq.buffer, stdout) ||
	    putchar('\n') == EOF)
		return -1;
	return print_stack(st, ev);
}

static int print_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	(void)priv;
	(void)s;
	(void)out;
	return fflush(stdout) ? -1 : 0;
}

const struct kmt_analysis kmt_print = {
	.name = "--print",
	.help = "every event on one line, decoded by kmtrace's plugins",
	.usage = "  -O, --plugin-option kmt:raw[=0|1]  numbers as the kernel stores them\n",
	.shortopts = "O:",
	.longopts = print_longopts,
	.events = KMT_EVMASK_ALL,
	.init = print_init,
	.filter = print_filter,
	.option = print_option,
	.start = print_start,
	.event = print_event,
	.report = print_report,
	.free = print_free,
};
