// SPDX-License-Identifier: LGPL-2.1
/*
 * Sizes on the command line and on the screen, and where the preloaded
 * library is: shared by record and watch.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "common/heaprec.h"

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

int kmt_cmd_heap_lib(const char *cmd, char *path, size_t len)
{
	static const char *const places[] = { "%s/" KMT_HEAP_LIB, "%s/../" KMT_HEAP_LIB,
					      "%s/../lib/kmtrace/" KMT_HEAP_LIB };
	const char *env = getenv("KMTRACE_HEAP_LIB");
	char exe[PATH_MAX], *slash, tried[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (env && *env) {
		if (realpath(env, path) && !access(path, R_OK))
			return 0;
		fprintf(stderr, "kmtrace %s: KMTRACE_HEAP_LIB=%s: %s\n", cmd, env, strerror(errno));
		return -1;
	}
	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; slash && i < sizeof(places) / sizeof(*places); i++) {
		snprintf(tried, sizeof(tried), places[i], exe);
		if (realpath(tried, path) && !access(path, R_OK) && strlen(path) < len)
			return 0;
	}
	fprintf(stderr, "kmtrace %s: no %s beside %s or in %s/../lib/kmtrace (make builds it; "
		"or set KMTRACE_HEAP_LIB)\n", cmd, KMT_HEAP_LIB, exe, exe);
	return -1;
}
