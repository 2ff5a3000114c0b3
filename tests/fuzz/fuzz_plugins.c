// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness of the plugins' print handlers, as kmtrace report
 * --print uses them: the input is a u16 length, that many bytes of event
 * format (checked as any format from a file is), then a record of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "input/formats.h"
#include "plugins/kmt_plugin.h"

static struct trace_seq seq;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	trace_seq_init(&seq);
	return 0;
}

/* The system a format is parsed under: the plugins handle kmem, exceptions, oom, kmtrace. */
static const char *system_of(size_t flen)
{
	static const char *const systems[] = { "kmem", "exceptions", "oom", "kmtrace" };

	return systems[flen % 4];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmt_format_counts c = { 0 };
	struct kmt_format_text f;
	struct tep_handle *tep;
	struct tep_record rec = { .ts = 1000 };
	struct tep_event *e;
	size_t flen;
	unsigned short id;

	if (size < 2)
		return -1;
	flen = data[0] | data[1] << 8;
	if (flen > size - 2)
		return -1;
	f = (struct kmt_format_text){ system_of(flen), (const char *)data + 2, flen, -1 };
	tep = tep_alloc();
	if (!tep)
		return 0;
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_register_function(tep, "fuzz_func", 0xffffffff81000000ull, NULL);
	tep_register_function(tep, "fuzz_end", 0xffffffff82000000ull, NULL);
	if (!kmt_formats_parse(tep, &f, 1, false, &c) && c.parsed) {
		kmt_plugins_register_all(tep, NULL);
		rec.data = (void *)(data + 2 + flen);
		rec.size = size - 2 - flen;
		if (rec.size >= 2) {
			memcpy(&id, rec.data, 2);
			e = tep_find_event(tep, id);
			if (kmt_formats_record_fits(tep, e, rec.data, rec.size)) {
				trace_seq_reset(&seq);
				tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
				trace_seq_terminate(&seq);
			}
		}
	}
	tep_free(tep);
	return 0;
}
