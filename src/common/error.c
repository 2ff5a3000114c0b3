// SPDX-License-Identifier: LGPL-2.1
/*
 * Errors: what went wrong and where, set by the library, printed by the
 * command (one line, names escaped).
 */
#include <stdarg.h>
#include <stdio.h>
#include <kmtrace/error.h>

#include "util.h"

void kmt_error_set(struct kmt_error *err, const char *file, long long offset,
		   const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void kmt_error_print(const struct kmt_error *err)
{
	char file[sizeof(err->file) * 4], msg[sizeof(err->msg) * 4];

	/* names and text from a file: escaped, they cannot drive the terminal */
	kmt_escape(file, sizeof(file), err->file);
	kmt_escape(msg, sizeof(msg), err->msg);
	if (err->offset >= 0)
		fprintf(stderr, "kmtrace: %s: offset %lld: %s\n", file, err->offset, msg);
	else
		fprintf(stderr, "kmtrace: %s: %s\n", file, msg);
}
