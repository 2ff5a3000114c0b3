// SPDX-License-Identifier: LGPL-2.1
/*
 * The perf minor/major fault samples kmtrace record keeps beside the
 * events: an array of fixed records (KMT_TD_OPT_KMT_FAULT_SAMPLES_BIN), or,
 * in recordings of kmtrace before it, "TIME TID CPU ADDR m|M" text lines.
 * The text form is parsed at once; the binary one is read from the file's
 * mapping as the fault analysis goes.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reader_local.h"
#include "container/tracedat.h"

/* Mapped sample pages are given back after this many samples (4 MiB of them). */
#define SAMPLES_PER_GIVE_BACK	(1u << 17)

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
static bool in_time_order(const struct kmt_fault_sample *s, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (s[i].ts < s[i - 1].ts)
			return false;
	return true;
}

/* The next sample's source becomes @text (parsed text samples) or @bin (the mapping). */
static void keep(struct kmt_reader *r, struct kmt_fault_sample *text, size_t n,
		 const struct kmt_sample_array *bin)
{
	free(r->fault_samples.text);
	r->fault_samples.text = text;
	r->fault_samples.bin = bin ? *bin : (struct kmt_sample_array){ 0 };
	r->fault_samples.n = n;
	r->fault_samples.next = 0;
}

/* Sample @i of @a, from the file's bytes. */
static void bin_sample(const struct kmt_sample_array *a, size_t i, struct kmt_fault_sample *s)
{
	const unsigned char *p = a->data + i * a->rec;

	*s = (struct kmt_fault_sample){
		.ts = get(p + offsetof(struct kmt_td_fault_sample, time), 8, a->swap),
		.addr = get(p + offsetof(struct kmt_td_fault_sample, addr), 8, a->swap),
		.tid = (int)get(p + offsetof(struct kmt_td_fault_sample, tid), 4, a->swap),
		.cpu = (int)get(p + offsetof(struct kmt_td_fault_sample, cpu), 2, a->swap),
		.major = p[offsetof(struct kmt_td_fault_sample, major)] != 0,
	};
}

/*
 * Give back the mapped pages wholly inside @a's bytes [@from, @to): read
 * once, they would otherwise stay in the peak RSS (the file's page cache
 * still has them).
 */
static void give_back(const struct kmt_sample_array *a, size_t from, size_t to)
{
	uintptr_t page = (uintptr_t)getpagesize();
	uintptr_t lo = ((uintptr_t)(a->data + from) + page - 1) & ~(page - 1);
	uintptr_t hi = (uintptr_t)(a->data + to) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* @i samples of @a are read: at each SAMPLES_PER_GIVE_BACK, their pages are given back. */
static void read_up_to(const struct kmt_sample_array *a, size_t i)
{
	if (i % SAMPLES_PER_GIVE_BACK == 0)
		give_back(a, (i - SAMPLES_PER_GIVE_BACK) * a->rec, i * a->rec);
}

/*
 * The binary samples are read where the file's mapping has them, one at a
 * time as the fault analysis asks: a million samples cost no memory. Their
 * time order is checked first, in a pass that gives its pages back.
 */
int kmt_reader_take_fault_samples(struct kmt_reader *r, const void *data, size_t size,
				  bool swap)
{
	const unsigned char *p = data;
	struct kmt_sample_array a = { .data = p + 8, .swap = swap };
	struct kmt_fault_sample s;
	uint64_t last = 0;
	size_t n, i;

	if (size < 8 || get(p, 4, swap) != KMT_TD_FAULT_SAMPLES_VERSION ||
	    (a.rec = get(p + 4, 4, swap)) < sizeof(struct kmt_td_fault_sample) ||
	    (size - 8) % a.rec)
		return -1;
	n = (size - 8) / a.rec;
	for (i = 0; i < n; i++) {
		bin_sample(&a, i, &s);
		if (s.ts < last)
			return -1;
		last = s.ts;
		read_up_to(&a, i + 1);
	}
	give_back(&a, 0, n * a.rec);	/* and the pages across the steps' ends */
	keep(r, NULL, n, &a);
	return 0;
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
	if (!in_time_order(s, n)) {
		free(s);
		return -1;
	}
	keep(r, s, n, NULL);
	return 0;
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

size_t kmt_reader_fault_samples(struct kmt_reader *r, bool *damaged)
{
	kmt_reader_take_pending_samples(r);
	*damaged = r->fault_samples_damaged;
	return r->fault_samples.n;
}

bool kmt_reader_next_fault_sample(struct kmt_reader *r, struct kmt_fault_sample *s)
{
	struct kmt_reader_samples *f = &r->fault_samples;

	if (f->next >= f->n)
		return false;
	if (f->text) {
		*s = f->text[f->next];
	} else {
		bin_sample(&f->bin, f->next, s);
		read_up_to(&f->bin, f->next + 1);
	}
	f->next++;
	return true;
}
