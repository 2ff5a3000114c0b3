// SPDX-License-Identifier: LGPL-2.1
/* Sizes on the command line and on the screen, shared by record and watch. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int kmt_cmd_parse_size(const char *cmd, const char *opt, const char *s, unsigned long long *v)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	int shift = 0;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end && (u = strchr(units, toupper((unsigned char)*end)))) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if (*end == 'B' || *end == 'b')
			end++;
	}
	if (!*s || *s == '-' || *end || errno || !*v || *v > (~0ull >> shift)) {
		fprintf(stderr, "kmtrace %s: invalid %s '%s': want bytes, or a number with K, M, "
			"G or T\n", cmd, opt, s);
		return -1;
	}
	*v <<= shift;
	return 0;
}

const char *kmt_cmd_human(unsigned long long n, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = n;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, unit[i]);
	return buf;
}
