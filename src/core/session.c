// SPDX-License-Identifier: LGPL-2.1
/*
 * The session's symbols: analyses name kernel and user addresses through
 * these, whatever gave the names (the recording's kallsyms, --kallsyms,
 * --vmlinux, this machine's), never through the reader themselves.
 */
#include <kmtrace/analysis.h>

int kmt_session_symbol(const struct kmt_session *s, unsigned long long addr, char *buf,
		       size_t len)
{
	return kmt_reader_symbol(s->reader, addr, buf, len);
}

const char *kmt_session_function(const struct kmt_session *s, unsigned long long addr,
				 unsigned long long *start, const char **mod)
{
	return kmt_reader_function(s->reader, addr, start, mod);
}

int kmt_session_user_symbol(const struct kmt_session *s, int tgid, unsigned long long addr,
			    char *buf, size_t len)
{
	return kmt_reader_user_symbol(s->reader, tgid, addr, buf, len);
}

int kmt_session_source_file(const struct kmt_session *s, unsigned long long addr, char *buf,
			    size_t len)
{
	return kmt_reader_source_file(s->reader, addr, buf, len);
}

bool kmt_session_has_sources(const struct kmt_session *s)
{
	return kmt_reader_has_sources(s->reader);
}
