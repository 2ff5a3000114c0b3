// SPDX-License-Identifier: LGPL-2.1
/*
 * Which kernel image recorded: its _text (where KASLR put it this boot)
 * and its build-id (from /sys/kernel/notes). A few bytes every recording
 * keeps, with or without kallsyms, so that symbols taken elsewhere can be
 * moved to this boot and checked against this build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_local.h"
#include "common/util.h"

#define NT_GNU_BUILD_ID	3

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

void kmt_kernel_identity(const char *kallsyms, char *buf, size_t len)
{
	size_t klen, nlen;
	char *own = kallsyms ? NULL : kmt_read_text_file("/proc/kallsyms", &klen);
	unsigned char *notes;
	unsigned long long text = 0;
	char hex[129] = "";
	int at = 0;

	if (kallsyms || own)
		text = kmt_kallsyms_text(kallsyms ? kallsyms : own);
	free(own);
	notes = (unsigned char *)kmt_read_text_file("/sys/kernel/notes", &nlen);
	if (notes && !build_id(notes, nlen, hex, sizeof(hex)))
		hex[0] = '\0';
	free(notes);
	buf[0] = '\0';
	if (text)
		at = snprintf(buf, len, "text 0x%llx\n", text);
	if (hex[0] && at >= 0 && (size_t)at < len)
		snprintf(buf + at, len - at, "build-id %s\n", hex);
}
