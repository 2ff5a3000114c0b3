/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * kmtrace: what went wrong and where, as every call that can fail on input
 * or on the tracing system reports it.
 */
#ifndef KMTRACE_ERROR_H
#define KMTRACE_ERROR_H

/* What went wrong, where: filled by every call that can fail on input. */
struct kmt_error {
	char file[256];
	long long offset;	/* -1 when no offset applies */
	char msg[256];
};

/* Set @err to "@offset: printf(@fmt, ...)" for file @file. @err may be NULL. */
void kmt_error_set(struct kmt_error *err, const char *file, long long offset,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Print @err as one line "kmtrace: FILE: offset N: MESSAGE" on stderr. */
void kmt_error_print(const struct kmt_error *err);

#endif /* KMTRACE_ERROR_H */
