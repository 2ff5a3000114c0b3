// SPDX-License-Identifier: LGPL-2.1
/*
 * fault: page faults by class (x86 error code), by outcome (minor, major,
 * errors) and service latency, per process, region, instruction and over
 * time. Outcomes come from kmtrace's return probe on handle_mm_fault or
 * from perf's minor-faults/major-faults samples saved by kmtrace record;
 * either is paired with the last fault event of the same task.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "fault.h"
#include "common/mmnames.h"
#include "common/util.h"

/* vm_fault_t bits handle_mm_fault() returns (include/linux/mm_types.h). */
#define VMF_OOM			0x0001
#define VMF_SIGBUS		0x0002
#define VMF_MAJOR		0x0004
#define VMF_HWPOISON		0x0010
#define VMF_HWPOISON_LARGE	0x0020
#define VMF_SIGSEGV		0x0040
#define VMF_RETRY		0x0400

/* x86 page fault error code bits (arch/x86/include/asm/trap_pf.h). */
#define PF_PROT		(1u << 0)
#define PF_WRITE	(1u << 1)
#define PF_USER		(1u << 2)
#define PF_RSVD		(1u << 3)
#define PF_INSTR	(1u << 4)
#define PF_PK		(1u << 5)
#define PF_SHSTK	(1u << 6)
#define PF_SGX		(1u << 15)

#define BUCKET_DEFAULT	(1ull << 20)
#define KERNEL_HALF	(1ull << 56)	/* kernel addresses: one row per task */

const char *const kmt_fault_outcome_keys[FAULT_OUTCOME_NR] = {
	"minor", "major", "oom", "sigbus", "sigsegv", "hwpoison", "unresolved",
};

const char *const kmt_fault_class_keys[FC_NR] = {
	"user", "kernel", "read", "write", "exec", "not_present", "protection",
	"reserved", "pkey", "shadow_stack", "sgx", "unknown",
};

enum { OPT_REGIONS = 0x300, OPT_IP, OPT_TIMELINE };

static const struct option fault_longopts[] = {
	{ "regions", optional_argument, NULL, OPT_REGIONS },
	{ "ip", no_argument, NULL, OPT_IP },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "lines", required_argument, NULL, 'l' },
	{ NULL, 0, NULL, 0 }
};

static void fault_free(void *priv);
static const struct kmt_exited_ops proc_rows;	/* the process table's, below */

static void *fault_init(void)
{
	struct fault_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->bucket = BUCKET_DEFAULT;
	st->lines = FAULT_TOP_DEFAULT;
	if (kmt_filter_init(&st->filter) || kmt_hashmap_init(&st->proc_index) ||
	    kmt_hashmap_init(&st->ip_index) || kmt_hashmap_init(&st->region_index) ||
	    kmt_hashmap_init(&st->mapping_index) ||
	    kmt_hashmap_init(&st->pending_index) || kmt_hashmap_init(&st->command_tasks) ||
	    kmt_vmmap_init(&st->vm)) {
		fault_free(st);
		return NULL;
	}
	return st;
}

static void fault_free(void *priv)
{
	struct fault_state *st = priv;
	uint32_t i;

	kmt_filter_free(&st->filter);
	kmt_hashmap_free(&st->proc_index);
	kmt_hashmap_free(&st->ip_index);
	kmt_hashmap_free(&st->region_index);
	kmt_hashmap_free(&st->mapping_index);
	kmt_hashmap_free(&st->pending_index);
	kmt_hashmap_free(&st->command_tasks);
	kmt_vmmap_free(&st->vm);
	kmt_exited_free(&st->exited);
	for (i = 0; i < st->nprocs; i++)
		free(st->procs[i].comm);
	free(st->procs);
	free(st->ips);
	free(st->regions);
	free(st->pending);
	free(st->intervals);
	kmt_latencies_free(&st->lat);
	free(st);
}

/* A size with an optional K, M or G suffix. */
static int parse_size(const char *arg, uint64_t *v, struct kmt_error *err)
{
	char *end;
	unsigned long long n = strtoull(arg, &end, 10);

	switch (*end) {
	case 'K': case 'k': n <<= 10; end++; break;
	case 'M': case 'm': n <<= 20; end++; break;
	case 'G': case 'g': n <<= 30; end++; break;
	default: break;
	}
	if (end == arg || *end || n < (64ull << 10) || n > (1ull << 30) || (n & (n - 1))) {
		kmt_error_set(err, NULL, -1, "bad --regions bucket '%s': a power of two from 64K to 1G",
			 arg);
		return -1;
	}
	*v = n;
	return 0;
}

static int fault_option(void *priv, int key, const char *arg, struct kmt_error *err)
{
	struct fault_state *st = priv;

	switch (key) {
	case OPT_REGIONS:
		st->want_regions = true;
		return arg ? parse_size(arg, &st->bucket, err) : 0;
	case OPT_IP:
		st->want_ip = true;
		return 0;
	case OPT_TIMELINE:
		return kmt_parse_interval_ms(arg, &st->interval_ns, err);
	case 'l':
		return kmt_parse_count(arg, "line count", &st->lines, err);
	default:
		kmt_error_set(err, NULL, -1, "unknown option");
		return -1;
	}
}

static struct kmt_filter *fault_filter(void *priv)
{
	return &((struct fault_state *)priv)->filter;
}

/* "pid=N minflt=N ..." of the command, as kmtrace record saved it. 0, or -1 when out of memory. */
static int parse_rusage(struct fault_state *st, const char *text)
{
	st->have_rusage = sscanf(text, "pid=%d minflt=%lld majflt=%lld maxrss_kb=%lld "
				 "minflt_before=%lld majflt_before=%lld", &st->rusage_pid,
				 &st->ru_minflt, &st->ru_majflt, &st->ru_maxrss_kb,
				 &st->before_minflt, &st->before_majflt) == 6;
	return st->have_rusage ? kmt_hashmap_put(&st->command_tasks, st->rusage_pid, 1) : 0;
}

static void take_source(struct fault_state *st, struct kmt_reader *r)
{
	const char *text = kmt_reader_text(r, KMT_TEXT_FAULT_SOURCE);
	bool damaged;

	st->source_text = text ? text : "not recorded (no kmtrace record fault source)";
	if (tep_find_event_by_name(st->tep, "kmtrace", "fault_return")) {
		st->source = FS_KPROBE;
	} else if (text && !strncmp(text, "perf ", 5)) {
		st->source = FS_PERF;
		sscanf(text, "perf lost=%llu", (unsigned long long *)&st->perf_lost);
		st->nsamples = kmt_reader_fault_samples(r, &damaged);
		st->sample_reader = r;
		st->have_sample = kmt_reader_next_fault_sample(r, &st->sample);
		if (damaged)
			st->source_text = "perf samples damaged: outcomes not trusted";
	}
}

/* Only x86 has the exceptions:page_fault_* events and their error code. */
static bool machine_is_x86(const char *machine)
{
	return !strcmp(machine, "x86_64") || (machine[0] == 'i' && !strcmp(machine + 2, "86"));
}

/* The machine, the last word of the recorded kernel's uname, into st->machine. */
static void take_machine(struct fault_state *st, const char *uname)
{
	snprintf(st->machine, sizeof(st->machine), "%s", kmt_kernel_machine(uname));
	st->x86 = machine_is_x86(st->machine);
}

static int fault_start(void *priv, const struct kmt_session *s)
{
	struct fault_state *st = priv;
	const char *ru;

	if (!s)
		return 0;
	st->tep = s->tep;
	st->reader = s->reader;
	st->filter.reader = s->reader;
	kmt_exited_init(&st->exited, st->lines, &proc_rows, st);
	take_source(st, s->reader);
	ru = kmt_reader_text(s->reader, KMT_TEXT_RUSAGE);
	take_machine(st, kmt_reader_text(s->reader, KMT_TEXT_UNAME));
	return ru ? parse_rusage(st, ru) : 0;
}

int kmt_fault_proc_rank(uint32_t a, uint32_t b, void *ctx)
{
	const struct fault_state *st = ctx;
	const struct fault_proc *x = &st->procs[a], *y = &st->procs[b];

	if (!x->seq || !y->seq)
		return !x->seq - !y->seq;
	if (x->c.faults != y->c.faults)
		return x->c.faults < y->c.faults ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The row of task @pid, made (a given-back one first) if needed; UINT32_MAX out of memory. */
static uint32_t proc_of(struct fault_state *st, int pid)
{
	uint64_t row;
	uint32_t i;

	if (kmt_hashmap_find(&st->proc_index, pid, &row))
		return (uint32_t)row;
	if (!kmt_exited_reuse(&st->exited, &i)) {
		if (kmt_grow(&st->procs, &st->procs_cap, st->nprocs, sizeof(*st->procs)))
			return UINT32_MAX;
		i = st->nprocs++;
	}
	if (kmt_hashmap_put(&st->proc_index, pid, i)) {
		st->procs[i] = (struct fault_proc){ 0 };	/* a row given back */
		kmt_exited_give(&st->exited, i);	/* out of memory: a hole left */
		return UINT32_MAX;
	}
	/* named at report time */
	st->procs[i] = (struct fault_proc){ .pid = pid, .seq = ++st->procs_made };
	return i;
}

static uint32_t ip_of(struct fault_state *st, uint64_t ip)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->ip_index, ip, &st->ips, &st->ips_cap, &st->nips,
				     sizeof(*st->ips), &made);

	if (made)
		st->ips[i].ip = ip;
	return i;
}

static int32_t new_region(struct fault_state *st, const struct fault_region *r)
{
	if (kmt_grow(&st->regions, &st->regions_cap, st->nregions, sizeof(*st->regions)))
		return -1;
	st->regions[st->nregions] = *r;
	return st->nregions++;
}

/* The row of mapping @m; the same range mapped again (a reused buffer) shares it. */
static int32_t mapping_row(struct fault_state *st, int pid, const struct vm_region *m)
{
	uint64_t key = (uint64_t)pid << 40 | m->start >> 12, idx;
	const char *kind = kmt_vmmap_kind_name(m->kind);
	struct fault_region row = { pid, m->start, m->end, kind, m->fd, m->prot, { 0 } };
	int32_t r;

	if (kmt_hashmap_get(&st->mapping_index, key, &idx)) {
		const struct fault_region *old = &st->regions[idx];

		if (old->end == m->end && old->kind == kind && old->fd == m->fd &&
		    old->prot == m->prot)
			return idx;
	}
	r = new_region(st, &row);
	return r >= 0 && kmt_hashmap_put(&st->mapping_index, key, r) ? -1 : r;
}

/* The row of @addr: its mapping when the trace saw it made, else its bucket. */
static int32_t region_of(struct fault_state *st, int pid, uint64_t addr)
{
	const struct vm_region *m = kmt_vmmap_find(&st->vm, pid, addr);
	bool kernel = addr >= KERNEL_HALF;
	struct fault_region row = { .pid = pid, .fd = -1 };
	uint64_t key, idx;
	int32_t r;

	if (m)
		return mapping_row(st, pid, m);
	key = (uint64_t)pid << 40 | (kernel ? 1ull << 39 : addr >> 16);
	if (kmt_hashmap_get(&st->region_index, key, &idx))
		return idx;
	row.start = kernel ? 0 : addr & ~(st->bucket - 1);
	row.end = kernel ? 0 : row.start + st->bucket;
	row.kind = kernel ? "kernel" : "unknown";
	r = new_region(st, &row);
	return r >= 0 && kmt_hashmap_put(&st->region_index, key, r) ? -1 : r;
}

/*
 * The --timeline slot of @ts: time never goes back in a replay, so it is
 * the last or a new one. UINT32_MAX when out of memory.
 */
static uint32_t interval_of(struct fault_state *st, uint64_t ts)
{
	uint64_t idx = (ts - st->first_ts) / st->interval_ns;

	if (st->nintervals && st->intervals[st->nintervals - 1].index == idx)
		return st->nintervals - 1;
	if (kmt_grow(&st->intervals, &st->intervals_cap, st->nintervals, sizeof(*st->intervals)))
		return UINT32_MAX;
	st->intervals[st->nintervals] = (struct fault_interval){ .index = idx };
	return st->nintervals++;
}

/* The classes of a fault as a bit per enum fault_class. */
static unsigned int classes_of(const struct fault_state *st, uint64_t code, bool kernel_event)
{
	unsigned int m;

	if (!st->x86)
		return 1u << (kernel_event ? FC_KERNEL : FC_USER) | 1u << FC_UNKNOWN;
	m = 1u << (code & PF_USER ? FC_USER : FC_KERNEL);
	m |= 1u << (code & PF_INSTR ? FC_EXEC : code & PF_WRITE ? FC_WRITE : FC_READ);
	m |= 1u << (code & PF_PROT ? FC_PROTECTION : FC_NOT_PRESENT);
	m |= (code & PF_RSVD ? 1u << FC_RESERVED : 0) | (code & PF_PK ? 1u << FC_PKEY : 0) |
	     (code & PF_SHSTK ? 1u << FC_SHADOW_STACK : 0) | (code & PF_SGX ? 1u << FC_SGX : 0);
	return m;
}

static void count_fault(struct fault_counts *c, unsigned int classes)
{
	int i;

	c->faults++;
	for (i = 0; i < FC_NR; i++)
		if (classes & 1u << i)
			c->cls[i]++;
}

/* The fault state of task @tid, or NULL if no fault event of it was seen. */
static struct fault_pending *pending_find(struct fault_state *st, int tid)
{
	uint64_t idx;

	return kmt_hashmap_find(&st->pending_index, tid, &idx) ? &st->pending[idx] : NULL;
}

/* The fault state of task @tid, made if needed; NULL when out of memory. */
static struct fault_pending *pending_of(struct fault_state *st, int tid)
{
	bool made;
	uint32_t i = kmt_hashmap_row(&st->pending_index, tid, &st->pending, &st->pending_cap,
				     &st->npending, sizeof(*st->pending), &made);

	return i == KMT_HASHMAP_NO_ROW ? NULL : &st->pending[i];
}

static void add_outcome(struct fault_counts *c, enum fault_outcome o, bool retried,
			const uint64_t *lat)
{
	c->out[o]++;
	if (retried)
		c->retried++;
	if (!lat)
		return;
	c->lat_n++;
	c->lat_sum += *lat;
	if (*lat > c->lat_max)
		c->lat_max = *lat;
}

/* Close the pending fault of a task with outcome @o at @ts (0: no latency). */
static void resolve(struct fault_state *st, struct fault_pending *p, enum fault_outcome o,
		    uint64_t ts)
{
	uint64_t lat = ts >= p->ts ? ts - p->ts : 0;
	const uint64_t *l = ts ? &lat : NULL;

	p->active = false;
	add_outcome(&st->total, o, p->retried, l);
	add_outcome(&st->procs[p->proc].c, o, p->retried, l);
	if (st->want_ip)
		add_outcome(&st->ips[p->ip].c, o, p->retried, l);
	if (st->want_regions && p->region >= 0)
		add_outcome(&st->regions[p->region].c, o, p->retried, l);
	if (st->interval_ns) {
		struct fault_interval *iv = &st->intervals[p->interval];

		if (o == FAULT_MINOR)
			iv->minor++;
		else if (o == FAULT_MAJOR)
			iv->major++;
		else
			iv->other++;
	}
	if (l)	/* out of memory: not timed */
		kmt_latencies_add(&st->lat, st->procs[p->proc].seq, lat);
	p->retried = false;
}

/*
 * An accounted return (minor or major) of task @tid at @ts. Tasks with no
 * fault event at all are outside the trace (perf samples every task).
 */
static void accounted(struct fault_state *st, int tid, bool major, uint64_t ts)
{
	struct fault_pending *p = pending_find(st, tid);
	uint64_t one;

	if (st->have_rusage && kmt_hashmap_get(&st->command_tasks, tid, &one))
		st->command_out[major]++;
	if (!p)
		return;
	if (p->active)
		resolve(st, p, major ? FAULT_MAJOR : FAULT_MINOR, ts);
	else
		st->without_event[major]++;
	p->retried = false;
}

static void take_samples_until(struct fault_state *st, uint64_t ts)
{
	while (st->have_sample && st->sample.ts <= ts) {
		accounted(st, st->sample.tid, st->sample.major, st->sample.ts);
		st->have_sample = kmt_reader_next_fault_sample(st->sample_reader, &st->sample);
	}
}

/* kmtrace:fault_return: handle_mm_fault()'s vm_fault_t. 0, or -1 when out of memory. */
static int fault_return(struct fault_state *st, const struct kmt_event *ev)
{
	uint64_t ret = (uint64_t)ev->ret;
	struct fault_pending *p = pending_of(st, ev->pid);

	if (!p)
		return -1;
	if (ret & VMF_RETRY) {	/* it will be called again; major when it completes */
		p->retried = true;
		return 0;
	}
	if (ret & (VMF_OOM | VMF_SIGBUS | VMF_SIGSEGV | VMF_HWPOISON | VMF_HWPOISON_LARGE)) {
		if (p->active)
			resolve(st, p, ret & VMF_OOM ? FAULT_OOM : ret & VMF_SIGBUS ? FAULT_SIGBUS :
				ret & VMF_SIGSEGV ? FAULT_SIGSEGV : FAULT_HWPOISON, ev->ts);
		return 0;
	}
	/* a return without fault event: GUP */
	accounted(st, ev->pid, (ret & VMF_MAJOR) || p->retried, ev->ts);
	return 0;
}

/* A fault event. 0, or -1 when out of memory. */
static int fault_taken(struct fault_state *st, const struct kmt_event *ev)
{
	struct fault_pending *p = pending_of(st, ev->pid);
	uint32_t proc = proc_of(st, ev->pid);
	unsigned int classes = classes_of(st, ev->error_code, ev->type == KMT_EV_FAULT_KERNEL);

	if (!p || proc == UINT32_MAX)
		return -1;
	if (p->active)	/* the previous one never returned accounted */
		resolve(st, p, FAULT_UNRESOLVED, 0);
	count_fault(&st->total, classes);
	count_fault(&st->procs[proc].c, classes);
	*p = (struct fault_pending){ .ts = ev->ts, .proc = proc, .region = -1 };
	if (st->want_ip) {
		if ((p->ip = ip_of(st, ev->ip)) == UINT32_MAX)
			return -1;
		count_fault(&st->ips[p->ip].c, classes);
	}
	if (st->want_regions) {
		if ((p->region = region_of(st, ev->pid, ev->address)) < 0)
			return -1;
		count_fault(&st->regions[p->region].c, classes);
	}
	if (st->interval_ns) {
		if ((p->interval = interval_of(st, ev->ts)) == UINT32_MAX)
			return -1;
		st->intervals[p->interval].faults++;
	}
	p->active = st->source != FS_NONE;
	return 0;
}

/* Row @row of an exited task settled: its pid's next task gets a row of its own. */
static void detach_proc(void *ctx, uint32_t row)
{
	struct fault_state *st = ctx;
	const struct fault_proc *p = &st->procs[row];
	struct fault_pending *pend = pending_find(st, p->pid);
	uint64_t at;

	if (pend && pend->active && pend->proc == row)
		resolve(st, pend, FAULT_UNRESOLVED, 0);	/* as the report would */
	if (kmt_hashmap_get(&st->proc_index, p->pid, &at) && at == row)
		kmt_hashmap_del(&st->proc_index, p->pid, NULL);
}

/* Row @row can no longer be shown: given back. 0, or -1 out of memory. */
static int drop_proc(void *ctx, uint32_t row)
{
	struct fault_state *st = ctx;

	if (kmt_latencies_retire(&st->lat, st->procs[row].seq))
		return -1;
	st->procs[row] = (struct fault_proc){ 0 };
	return kmt_exited_give(&st->exited, row);
}

static const struct kmt_exited_ops proc_rows = {
	.rank = kmt_fault_proc_rank, .detach = detach_proc, .drop = drop_proc,
};

/*
 * A task exited (its row waits to settle) or a pid came back in a fork
 * (an exited task's row stops taking its events). 0, or -1 out of memory.
 */
static int task_ends(struct fault_state *st, const struct kmt_event *ev)
{
	uint64_t row;

	if (!kmt_hashmap_get(&st->proc_index, ev->target_pid, &row))
		return 0;
	if (ev->type == KMT_EV_FORK) {	/* the pid of an exited task, again */
		if (st->procs[row].exited)
			kmt_hashmap_del(&st->proc_index, ev->target_pid, NULL);
		return 0;
	}
	if (st->procs[row].exited)	/* exited twice: no fork of the pid was seen */
		return 0;
	st->procs[row].exited = true;
	return kmt_exited_add(&st->exited, (uint32_t)row, ev->ts);
}

/* Forks and execs of the command's tasks, and the mappings --regions names. */
static int follow_tasks(struct fault_state *st, const struct kmt_event *ev)
{
	struct vm_task *task;
	uint64_t one;

	if (ev->type == KMT_EV_FORK && task_ends(st, ev))
		return -1;
	if (ev->type == KMT_EV_FORK && st->have_rusage &&
	    kmt_hashmap_get(&st->command_tasks, ev->pid, &one) &&
	    kmt_hashmap_put(&st->command_tasks, ev->target_pid, 1))
		return -1;
	if (ev->type == KMT_EV_EXEC && st->have_rusage &&
	    kmt_hashmap_get(&st->command_tasks, ev->pid, &one))
		st->command_execs++;
	return st->want_regions ? kmt_vmmap_event(&st->vm, ev, &task) : 0;
}

static int fault_event(void *priv, const struct kmt_event *ev)
{
	struct fault_state *st = priv;

	take_samples_until(st, ev->ts);
	if (kmt_exited_until(&st->exited, ev->ts))
		return -1;
	if (ev->type == KMT_EV_EXIT)	/* before the others: --timeline starts at those */
		return task_ends(st, ev);
	if (!st->started)
		st->first_ts = ev->ts;
	st->started = true;
	st->last_ts = ev->ts;
	switch (ev->type) {
	case KMT_EV_FAULT_USER:
	case KMT_EV_FAULT_KERNEL:
		if (kmt_filter_done(&st->filter, ev) || !kmt_filter_pass(&st->filter, ev))
			return 0;
		return fault_taken(st, ev);
	case KMT_EV_FAULT_RETURN:
		return fault_return(st, ev);
	default:
		return follow_tasks(st, ev);
	}
}

static int fault_report_cb(void *priv, const struct kmt_session *s, struct kmt_output *out)
{
	struct fault_state *st = priv;
	uint32_t i;

	take_samples_until(st, UINT64_MAX);
	for (i = 0; i < st->npending; i++)
		if (st->pending[i].active)
			resolve(st, &st->pending[i], FAULT_UNRESOLVED, 0);
	for (i = 0; i < st->nprocs; i++)	/* names as the recording knows them at its end */
		if (st->procs[i].seq && !st->procs[i].comm &&
		    !(st->procs[i].comm = kmt_task_name(st->reader, st->procs[i].pid))) {
			errno = ENOMEM;
			return -1;
		}
	return kmt_fault_report(st, s, out);
}

/* No fault traced on a kernel that cannot trace them: say why, once. */
static const char *fault_remark(void *priv)
{
	struct fault_state *st = priv;
	char machine[sizeof(st->machine) * 4];

	if (st->total.faults || st->x86 || !st->machine[0])
		return NULL;
	kmt_escape(machine, sizeof(machine), st->machine);
	snprintf(st->remark, sizeof(st->remark), "the recorded kernel is %s, and the "
		 "exceptions:page_fault_* tracepoints exist on x86 only: its faults cannot be "
		 "traced (perf's page-faults software event counts them)", machine);
	return st->remark;
}

static const struct kmt_need fault_needs[] = {
	{ KMT_EVMASK(KMT_EV_FAULT_USER) | KMT_EVMASK(KMT_EV_FAULT_KERNEL), "faults" },
	{ 0 }
};

const struct kmt_analysis kmt_analysis_fault = {
	.name = "fault",
	.help = "page faults: class, minor/major and errors, latency, per process/region/ip",
	.usage =
		"  --regions[=SIZE]    per region: the mapping the trace saw made (anon, file,\n"
		"                      heap, stack), else a SIZE bucket (64K..1G, default 1M)\n"
		"  --ip                per faulting instruction (kernel ones symbolized)\n"
		"  --timeline MS       faults, minor and major per MS milliseconds\n"
		"  -l, --lines N       rows per table (default 20)\n",
	.shortopts = "l:",
	.longopts = fault_longopts,
	.needs = fault_needs,
	.remark = fault_remark,
	.events = KMT_EVMASK(KMT_EV_FAULT_USER) | KMT_EVMASK(KMT_EV_FAULT_KERNEL) |
		  KMT_EVMASK(KMT_EV_FAULT_RETURN) | VMMAP_EVENTS | KMT_EVMASK(KMT_EV_EXIT),
	.reader_thread_ok = true,
	.init = fault_init,
	.filter = fault_filter,
	.option = fault_option,
	.start = fault_start,
	.event = fault_event,
	.report = fault_report_cb,
	.free = fault_free,
};
