// SPDX-License-Identifier: LGPL-2.1
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>

#include <traceevent/event-parse.h>

#include "fixtures.h"


const char fix_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

const char fix_header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

const char fix_fmt_kmalloc[] =
	"name: kmalloc\nID: 658\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu node=%d\", "
	"(void *)REC->call_site, REC->ptr, REC->bytes_req, REC->bytes_alloc, REC->node\n";

const char fix_fmt_cache_alloc[] =
	"name: kmem_cache_alloc\nID: 660\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:52;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"call_site=%pS ptr=%p name=%s\", (void *)REC->call_site, REC->ptr, "
	"__get_str(name)\n";

const char fix_fmt_page_alloc[] =
	"name: mm_page_alloc\nID: 664\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int migratetype;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"pfn=0x%lx order=%d migratetype=%d\", REC->pfn, REC->order, "
	"REC->migratetype\n";

const char fix_fmt_page_alloc_old[] =
	"name: mm_page_alloc\nID: 664\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:struct page * page;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:gfp_t gfp_flags;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:int migratetype;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"page=%p order=%d migratetype=%d\", REC->page, REC->order, "
	"REC->migratetype\n";

const char fix_fmt_fault_user[] =
	"name: page_fault_user\nID: 120\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long error_code;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"address=%ps ip=%ps error_code=0x%lx\", (void *)REC->address, "
	"(void *)REC->ip, REC->error_code\n";

const char fix_fmt_other[] =
	"name: other_event\nID: 900\nformat:\n" FIX_COMMON_FIELDS
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"value=%d\", REC->value\n";

/* The kretprobe kmtrace makes on handle_mm_fault (as tracefs shows it). */
const char fix_fmt_fault_return[] =
	"name: fault_return\nID: 2000\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 ret;\toffset:24;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"(%lx <- %lx) ret=%u\", REC->__probe_func, REC->__probe_ret_ip, REC->ret\n";

bool fix_set_field(void *buf, const struct tep_event *e, const char *name, unsigned long long v)
{
	struct tep_format_field *f = tep_find_field((struct tep_event *)e, name);

	if (!f || f->size > 8)
		return false;
	memcpy((char *)buf + f->offset, &v, f->size);	/* little-endian */
	return true;
}

void fix_page_init(struct fix_page *p, unsigned long long ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->data, &ts, 8);
	p->last_ts = ts;
}

static void set_commit(struct fix_page *p, uint64_t flags)
{
	uint64_t commit = p->used | flags;

	memcpy(p->data + 8, &commit, 8);
}

void fix_page_add(struct fix_page *p, unsigned long long ts, const void *payload, size_t len)
{
	size_t padded = (len + 3) & ~3ul;
	uint32_t header = (uint32_t)(padded / 4) | (uint32_t)((ts - p->last_ts) << 5);

	ck_assert_uint_le(padded / 4, 28);
	ck_assert_uint_le(16 + p->used + 4 + padded, FIX_PAGE_SIZE);
	memcpy(p->data + 16 + p->used, &header, 4);
	memset(p->data + 16 + p->used + 4, 0, padded);
	memcpy(p->data + 16 + p->used + 4, payload, len);
	p->used += 4 + padded;
	p->last_ts = ts;
	set_commit(p, 0);
}

void fix_page_set_missed(struct fix_page *p, unsigned long long missed)
{
	memcpy(p->data + 16 + p->used, &missed, 8);
	set_commit(p, (1ull << 31) | (1ull << 30));
}

void fix_common(void *buf, int id, int pid, size_t len)
{
	uint16_t type = id;

	memset(buf, 0, len);
	memcpy(buf, &type, 2);
	memcpy((char *)buf + 4, &pid, 4);
}

size_t fix_kmalloc(void *buf, int pid, uint64_t call_site, uint64_t ptr, uint64_t req,
		   uint64_t alloc, int node)
{
	char *b = buf;
	uint64_t gfp = 0xcc0;

	fix_common(b, 658, pid, 52);
	memcpy(b + 8, &call_site, 8);
	memcpy(b + 16, &ptr, 8);
	memcpy(b + 24, &req, 8);
	memcpy(b + 32, &alloc, 8);
	memcpy(b + 40, &gfp, 8);
	memcpy(b + 48, &node, 4);
	return 52;
}

void fix_meta(struct kmt_tracedat_meta *m, const struct kmt_td_option *opts, int nopts)
{
	static const char ksyms[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81234560 T kmalloc_test_site\n"
				    "ffffffff81240000 T after_test_site\n";
	static struct kmt_td_format formats[4];

	formats[0] = (struct kmt_td_format){ "kmem", fix_fmt_kmalloc, strlen(fix_fmt_kmalloc) };
	formats[1] = (struct kmt_td_format){ "test", fix_fmt_other, strlen(fix_fmt_other) };
	formats[2] = (struct kmt_td_format){ "kmem", fix_fmt_page_alloc,
					     strlen(fix_fmt_page_alloc) };
	formats[3] = (struct kmt_td_format){ "kmem", fix_fmt_cache_alloc,
					     strlen(fix_fmt_cache_alloc) };
	*m = (struct kmt_tracedat_meta){
		.page_size = FIX_PAGE_SIZE,
		.long_size = 8,
		.header_page = { fix_header_page, strlen(fix_header_page), -1 },
		.header_event = { fix_header_event, strlen(fix_header_event), -1 },
		.formats = formats,
		.nformats = 4,
		.kallsyms = { ksyms, sizeof(ksyms) - 1, -1 },
		.cmdlines = { "100 tester\n", 11, -1 },
		.options = opts,
		.noptions = nopts,
	};
}

char *fix_write_tracedat(const struct kmt_tracedat_meta *m, int ncpus,
			 struct fix_page *const *pages, const int *npages)
{
	char *path = strdup("/tmp/kmtrace-test-XXXXXX");
	int fds[8], fd, cpu, i;

	ck_assert_int_le(ncpus, 8);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	for (cpu = 0; cpu < ncpus; cpu++) {
		fds[cpu] = open("/tmp", O_TMPFILE | O_RDWR, 0600);
		ck_assert_int_ge(fds[cpu], 0);
		for (i = 0; i < npages[cpu]; i++)
			ck_assert_int_eq(write(fds[cpu], pages[cpu][i].data, FIX_PAGE_SIZE),
					 FIX_PAGE_SIZE);
	}
	ck_assert_int_eq(kmt_tracedat_write(fd, path, m, ncpus, fds, NULL, NULL), 0);
	for (cpu = 0; cpu < ncpus; cpu++)
		close(fds[cpu]);
	close(fd);
	return path;
}

int fix_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}
