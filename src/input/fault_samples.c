// SPDX-License-Identifier: LGPL-2.1
/*
 * The perf minor/major fault samples kmtrace record keeps beside the
 * events: an array of fixed records (KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN), or,
 * in recordings of kmtrace before it, "TIME TID CPU ADDR m|M" text lines.
 * Both are read once, in one linear pass, into struct kmt_fault_sample.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "reader_local.h"
#include "container/tracedat.h"

static uint64_t get(const unsigned char *p, int size, bool swap)
{
	uint64_t v = 0;
	uint32_t w;
	uint16_t h;

	switch (size) {
	case 2:
		memcpy(&h, p, 2);
		return swap ? __builtin_bswap16(h) : h;
	case 4:
		memcpy(&w, p, 4);
		return swap ? __builtin_bswap32(w) : w;
	default:
		memcpy(&v, p, 8);
		return swap ? __builtin_bswap64(v) : v;
	}
}

/* Samples out of time order mean a damaged array. */
static int keep(struct kmt_reader *r, struct kmt_fault_sample *s, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (s[i].ts < s[i - 1].ts) {
			free(s);
			return -1;
		}
	free(r->fault_samples);
	r->fault_samples = s;
	r->nfault_samples = n;
	return 0;
}

int kmt_reader_take_fault_samples(struct kmt_reader *r, const void *data, size_t size,
				  bool swap)
{
	const unsigned char *p = data;
	struct kmt_fault_sample *s;
	size_t n, i, rec;

	if (size < 8 || get(p, 4, swap) != KMT_TD_FAULT_SAMPLES_VERSION ||
	    (rec = get(p + 4, 4, swap)) < sizeof(struct kmt_td_fault_sample) ||
	    (size - 8) % rec)
		return -1;
	n = (size - 8) / rec;
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return -2;
	for (i = 0, p += 8; i < n; i++, p += rec) {
		s[i] = (struct kmt_fault_sample){
			.ts = get(p + offsetof(struct kmt_td_fault_sample, time), 8, swap),
			.addr = get(p + offsetof(struct kmt_td_fault_sample, addr), 8, swap),
			.tid = (int)get(p + offsetof(struct kmt_td_fault_sample, tid), 4, swap),
			.cpu = (int)get(p + offsetof(struct kmt_td_fault_sample, cpu), 2, swap),
			.major = p[offsetof(struct kmt_td_fault_sample, major)] != 0,
		};
	}
	return keep(r, s, n);
}

/* One "TIME TID CPU ADDR m|M" line at *@p (moved past it); false if it is not one. */
static bool text_sample(const char **p, const char *end, struct kmt_fault_sample *s)
{
	const char *q = *p;
	char *e;

	s->ts = strtoull(q, &e, 10);
	if (e == q || *e != ' ')
		return false;
	s->tid = (int)strtol(q = e + 1, &e, 10);
	if (e == q || *e != ' ')
		return false;
	s->cpu = (int)strtol(q = e + 1, &e, 10);
	if (e == q || *e != ' ')
		return false;
	s->addr = strtoull(q = e + 1, &e, 16);
	if (e == q || *e != ' ' || e + 1 >= end || (e[1] != 'm' && e[1] != 'M'))
		return false;
	s->major = e[1] == 'M';
	q = e + 2;
	if (q < end && *q != '\n' && *q != '\0')
		return false;
	*p = q < end ? q + 1 : q;
	return true;
}

int kmt_reader_take_fault_sample_text(struct kmt_reader *r, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct kmt_fault_sample *s;
	size_t n = 0, cap = 1;

	if (!memchr(text, '\0', len))
		return -1;	/* the option carries its NUL: strtoull stops there */
	for (const char *q = text; q < end; q++)
		cap += *q == '\n';
	s = malloc(cap * sizeof(*s));
	if (!s)
		return -2;
	while (p < end && *p) {
		if (n == cap || !text_sample(&p, end, &s[n])) {
			free(s);
			return -1;
		}
		n++;
	}
	return keep(r, s, n);
}

int kmt_reader_take_pending_samples(struct kmt_reader *r)
{
	struct kmt_pending_samples p = r->samples;
	int ret;

	if (!p.data)
		return 0;
	r->samples.data = NULL;
	ret = p.binary ? kmt_reader_take_fault_samples(r, p.data, p.size, p.swap) :
			 kmt_reader_take_fault_sample_text(r, p.data, p.size);
	r->fault_samples_damaged |= ret < 0;
	return ret;
}

const struct kmt_fault_sample *kmt_reader_fault_samples(struct kmt_reader *r, size_t *n,
							bool *damaged)
{
	kmt_reader_take_pending_samples(r);
	*n = r->nfault_samples;
	*damaged = r->fault_samples_damaged;
	return r->fault_samples;
}
