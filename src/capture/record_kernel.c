// SPDX-License-Identifier: LGPL-2.1
/*
 * Which kernel image recorded: its _text (where KASLR put it this boot)
 * and its build-id (from /sys/kernel/notes). A few bytes every recording
 * keeps, with or without kallsyms, so that symbols taken elsewhere can be
 * moved to this boot and checked against this build.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_local.h"
#include "common/util.h"

#define NT_GNU_BUILD_ID	3
#define NOTES_MAX	4096	/* the kernel's notes take a few hundred bytes */

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* The GNU build-id note in the ELF notes @notes of @len bytes, as hex into @hex. */
static bool build_id(const unsigned char *notes, size_t len, char *hex, size_t hexlen)
{
	size_t at = 0;

	while (len - at >= 12) {
		uint32_t namesz, descsz, type;
		size_t desc, i;

		memcpy(&namesz, notes + at, 4);
		memcpy(&descsz, notes + at + 4, 4);
		memcpy(&type, notes + at + 8, 4);
		desc = at + 12 + align4(namesz);
		if (namesz > len || descsz > len || desc > len || descsz > len - desc)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(notes + at + 12, "GNU", 4) &&
		    descsz && descsz * 2 < hexlen) {
			for (i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", notes[desc + i]);
			return true;
		}
		at = desc + align4(descsz);
	}
	return false;
}

/* All of @path, binary (NULs and all), up to @cap bytes into @buf; the length, or 0. */
static size_t read_binary(const char *path, unsigned char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t have = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while (have < cap && (n = read(fd, buf + have, cap - have)) > 0)
		have += n;
	close(fd);
	return have;
}

/*
 * _text of the running kernel, read from /proc/kallsyms only as far as its
 * line (near the top): the whole file takes tens of milliseconds to make.
 */
static unsigned long long running_text(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long text = 0;
	char *line = NULL;
	size_t cap = 0;

	while (f && !text && getline(&line, &cap, f) > 0)
		text = kmt_kallsyms_text(line);
	free(line);
	if (f)
		fclose(f);
	return text;
}

void kmt_kernel_identity(const char *kallsyms, char *buf, size_t len)
{
	unsigned long long text = kallsyms ? kmt_kallsyms_text(kallsyms) : running_text();
	unsigned char notes[NOTES_MAX];
	char hex[129] = "";
	size_t nlen;
	int at = 0;

	nlen = read_binary("/sys/kernel/notes", notes, sizeof(notes));
	if (!build_id(notes, nlen, hex, sizeof(hex)))
		hex[0] = '\0';
	buf[0] = '\0';
	if (text)
		at = snprintf(buf, len, "text 0x%llx\n", text);
	if (hex[0] && at >= 0 && (size_t)at < len)
		snprintf(buf + at, len - at, "build-id %s\n", hex);
}
