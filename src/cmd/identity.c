// SPDX-License-Identifier: LGPL-2.1
/*
 * Which machine and boot a recording is of, for rows that leave it (the
 * SQLite database's meta, the JSON lines a fleet's store takes): host,
 * boot id and kernel release, from the recording unless the command line
 * says otherwise.
 */
#include <stdio.h>
#include <string.h>

#include <kmtrace/reader.h>
#include "cmd.h"

/* Word @n (0 on) of the uname text @u ("Linux HOST RELEASE ..."), into @buf ("" if none). */
static void uname_word(const char *u, int n, char *buf, size_t len)
{
	int i;

	for (i = 0; u && i < n; i++) {
		u = strchr(u, ' ');
		u = u ? u + 1 : NULL;
	}
	snprintf(buf, len, "%.*s", u ? (int)strcspn(u, " \n") : 0, u ? u : "");
}

void kmt_cmd_identity(struct kmt_reader *r, const char *host, const char *boot_id,
		      struct kmt_identity *id)
{
	const char *uname = kmt_reader_text(r, KMT_TEXT_UNAME);
	const char *recorded_boot = kmt_reader_text(r, KMT_TEXT_BOOT_ID);

	if (host)
		snprintf(id->host, sizeof(id->host), "%s", host);
	else
		uname_word(uname, 1, id->host, sizeof(id->host));
	snprintf(id->boot_id, sizeof(id->boot_id), "%.*s",
		 (int)strcspn(boot_id ? boot_id : recorded_boot ? recorded_boot : "", "\n"),
		 boot_id ? boot_id : recorded_boot ? recorded_boot : "");
	uname_word(uname, 2, id->release, sizeof(id->release));
}
