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
#include "common/mmnames.h"

/* The host of the uname text @u ("Linux HOST RELEASE ..."), its second word, into @buf. */
static void uname_host(const char *u, char *buf, size_t len)
{
	const char *host = u ? strchr(u, ' ') : NULL;

	host = host ? host + 1 : "";
	snprintf(buf, len, "%.*s", (int)strcspn(host, " \n"), host);
}

void kmt_cmd_identity(struct kmt_reader *r, const char *host, const char *boot_id,
		      struct kmt_identity *id)
{
	const char *uname = kmt_reader_text(r, KMT_TEXT_UNAME);
	const char *recorded_boot = kmt_reader_text(r, KMT_TEXT_BOOT_ID), *release;
	size_t len;

	if (host)
		snprintf(id->host, sizeof(id->host), "%s", host);
	else
		uname_host(uname, id->host, sizeof(id->host));
	snprintf(id->boot_id, sizeof(id->boot_id), "%.*s",
		 (int)strcspn(boot_id ? boot_id : recorded_boot ? recorded_boot : "", "\n"),
		 boot_id ? boot_id : recorded_boot ? recorded_boot : "");
	release = kmt_kernel_release(uname, &len);
	snprintf(id->release, sizeof(id->release), "%.*s", (int)len, release ? release : "");
}
