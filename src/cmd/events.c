// SPDX-License-Identifier: LGPL-2.1
/*
 * kmtrace report events --format jsonl: one JSON object per event, as a log
 * pipeline or a columnar store takes them: time, CPU, pid, tgid, process
 * name, the event and every field of its format (numbers as numbers, with
 * their sign; strings as strings; other arrays as hex), and the call stack
 * when the recording has one. With --host, each line is flat, as
 * ClickHouse's JSONEachRow takes it: host, boot id and kernel release, then
 * the fields beside the event's own keys.
 */
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include <kmtrace/analysis.h>
#include <kmtrace/output.h>
#include "cmd.h"
#include "input/formats.h"
#include "analyses/filter.h"

struct events_state {
	struct kmt_filter filter;
	struct tep_handle *tep;
	struct kmt_reader *reader;
	const struct kmt_identity *fleet;	/* --host: flat lines of this machine */
};

/* The keys of a flat line besides the fields: a field of one of these names gets "field_". */
static const char *const fleet_keys[] = { "host", "boot_id", "kernel_release", "ts", "cpu",
	"pid", "tgid", "comm", "event", "stack", NULL };

void kmt_events_fleet(void *priv, const struct kmt_identity *id)
{
	((struct events_state *)priv)->fleet = id;
}

/* A field's key in a flat line: its name, "field_NAME" where a line's own key has it. */
static void field_key(FILE *fp, const char *name, bool flat)
{
	char key[256];
	int i;

	for (i = 0; flat && fleet_keys[i]; i++)
		if (!strcmp(fleet_keys[i], name))
			break;
	snprintf(key, sizeof(key), "%s%s", flat && fleet_keys[i] ? "field_" : "", name);
	kmt_output_json_string(fp, key);
}

static void *events_init(void)
{
	struct events_state *st = calloc(1, sizeof(*st));

	if (st && kmt_filter_init(&st->filter)) {
		free(st);
		return NULL;
	}
	return st;
}

static void events_free(void *priv)
{
	struct events_state *st = priv;

	kmt_filter_free(&st->filter);
	free(st);
}

static struct kmt_filter *events_filter(void *priv)
{
	return &((struct events_state *)priv)->filter;
}

static int events_start(void *priv, const struct kmt_session *s)
{
	struct events_state *st = priv;

	st->tep = s->tep;
	st->reader = s->reader;
	st->filter.reader = s->reader;
	/* only this thread writes standard output: no lock per character */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	return 0;
}

/* Field @f of @data: a number (signed as its format says), a string, or hex bytes. */
static void field_value(FILE *fp, struct tep_format_field *f, const unsigned char *data,
			int size)
{
	struct kmt_field_value v;
	char text[4096];
	int i;

	switch (kmt_cmd_field_value(f, data, size, &v)) {
	case KMT_FIELD_TEXT:
		snprintf(text, sizeof(text), "%.*s", v.len, v.p);
		kmt_output_json_string(fp, text);
		break;
	case KMT_FIELD_BYTES:
		fputc('"', fp);
		for (i = 0; i < v.len && i < 1024; i++)
			fprintf(fp, "%02x", v.p[i]);
		fputc('"', fp);
		break;
	case KMT_FIELD_INT:
		fprintf(fp, "%lld", (long long)v.u);
		break;
	case KMT_FIELD_UINT:
		fprintf(fp, "%llu", v.u);
		break;
	case KMT_FIELD_NULL:
		fputs("null", fp);
		break;
	}
}

static void write_event(struct events_state *st, const struct kmt_event *ev, FILE *fp)
{
	struct tep_event *e = tep_find_event(st->tep, ev->id);
	struct tep_format_field **fields;
	const char *comm = ev->comm ? ev->comm : kmt_reader_comm(st->reader, ev->pid);
	char name[256], frame[512];
	int i;

	snprintf(name, sizeof(name), "%s:%s", e ? e->system : "?", e ? e->name : "?");
	fputc('{', fp);
	if (st->fleet) {
		fputs("\"host\": ", fp);
		kmt_output_json_string(fp, st->fleet->host);
		fputs(", \"boot_id\": ", fp);
		kmt_output_json_string(fp, st->fleet->boot_id);
		fputs(", \"kernel_release\": ", fp);
		kmt_output_json_string(fp, st->fleet->release);
		fputs(", ", fp);
	}
	fprintf(fp, "\"ts\": %llu, \"cpu\": %d, \"pid\": %d, \"tgid\": %d, \"comm\": ", ev->ts,
		ev->cpu, ev->pid, kmt_reader_tgid(st->reader, ev->pid));
	kmt_output_json_string(fp, comm ? comm : "<...>");
	fputs(", \"event\": ", fp);
	kmt_output_json_string(fp, name);
	if (!st->fleet)
		fputs(", \"fields\": {", fp);
	fields = e && kmt_formats_record_fits(st->tep, e, ev->raw, ev->raw_size) ?
		 tep_event_fields(e) : NULL;
	for (i = 0; fields && fields[i]; i++) {
		fputs(i || st->fleet ? ", " : "", fp);
		field_key(fp, fields[i]->name, st->fleet);
		fputs(": ", fp);
		field_value(fp, fields[i], ev->raw, ev->raw_size);
	}
	free(fields);
	if (!st->fleet)
		fputc('}', fp);
	if (ev->callchain_nr) {
		int n = 0;

		fputs(", \"stack\": [", fp);
		for (i = 0; i < ev->callchain_nr; i++) {
			if (ev->callchain[i] >= KMT_CALLCHAIN_MARKERS)
				continue;	/* perf's context markers */
			kmt_reader_symbol(st->reader, ev->callchain[i], frame, sizeof(frame));
			fputs(n++ ? ", " : "", fp);
			kmt_output_json_string(fp, frame);
		}
		fputc(']', fp);
	}
	fputs("}\n", fp);
}

/* One event's JSON line. 0, or -1 on a write error: the replay stops. */
static int events_event(void *priv, const struct kmt_event *ev)
{
	struct events_state *st = priv;

	if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
		return 0;
	write_event(st, ev, stdout);
	return ferror(stdout) ? -1 : 0;
}

static int events_report(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	(void)priv;
	(void)s;
	(void)out;
	return fflush(stdout) ? -1 : 0;
}

const struct kmt_analysis kmt_events = {
	.name = "events",
	.help = "every event as one JSON object per line (--format jsonl)",
	.events = KMT_EVMASK_ALL,
	.init = events_init,
	.filter = events_filter,
	.start = events_start,
	.event = events_event,
	.report = events_report,
	.free = events_free,
};
