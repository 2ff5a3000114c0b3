/* SPDX-License-Identifier: LGPL-2.1 */
/* What the libFuzzer harnesses share: a file of the input, the whole report run on it. */
#ifndef KMT_FUZZ_COMMON_H
#define KMT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* A file holding @size bytes of @data (a memfd); its path in @path. The fd, or -1. */
int kmt_fuzz_file(const uint8_t *data, size_t size, char *path, size_t len);

/*
 * Open @path (text through the formats of @formats_dir, or those shipped
 * when NULL) and replay it through every analysis, with the options that
 * fill all their tables, and --print when @print; render the report in
 * the output format @variant % 3 picks. Whatever the input, this must not
 * crash, leak or hang.
 */
void kmt_fuzz_report(const char *path, const char *formats_dir, unsigned int variant,
		     int print);

#endif /* KMT_FUZZ_COMMON_H */
