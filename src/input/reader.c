// SPDX-License-Identifier: LGPL-2.1
/*
 * Reader front: format detection, the parts all readers share, errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "reader_local.h"
#include "container/tracedat.h"
#include "common/proctable.h"
#include "common/util.h"

/* CPUs a recording's node list may name: more is a damaged file. */
#define MAX_CPU_NODES	65536

struct kmt_reader *kmt_reader_alloc(const char *path, const struct kmt_reader_ops *ops)
{
	struct kmt_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->ops = ops;
	r->ncpu_nodes = -1;
	r->path = strdup(path);
	if (!r->path) {
		free(r);
		return NULL;
	}
	return r;
}

void kmt_reader_keep_text(struct kmt_reader *r)
{
	r->keep_text = true;
}

int kmt_reader_finish(struct kmt_reader *r)
{
	return r->ops->finish ? r->ops->finish(r) : 0;
}

const char *kmt_reader_comm(struct kmt_reader *r, int pid)
{
	const char *comm;

	if (!r)
		return NULL;
	comm = r->ops->comm ? r->ops->comm(r, pid) : NULL;
	return comm ? comm : r->tep ? tep_data_comm_from_pid(r->tep, pid) : NULL;
}

unsigned long long kmt_reader_unnamed(struct kmt_reader *r)
{
	return r->unnamed;
}

int kmt_reader_set_cpus(struct kmt_reader *r, int ncpus)
{
	struct kmt_cpu_stats *st = realloc(r->stats, (ncpus ? ncpus : 1) * sizeof(*st));

	if (!st)
		return -1;
	if (ncpus > r->ncpus)
		memset(st + r->ncpus, 0, (ncpus - r->ncpus) * sizeof(*st));
	r->stats = st;
	r->ncpus = ncpus;
	return 0;
}

void kmt_reader_free_common(struct kmt_reader *r)
{
	int i;

	for (i = 0; i < KMT_TEXT_NR; i++)
		free(r->texts[i]);
	kmt_reader_free_symbols(r);
	kmt_proctable_free(r->procs);
	free(r->cpu_nodes);
	free(r->fault_samples.text);
	free(r->stats);
	free(r->path);
	free(r);
}

void kmt_reader_parse_cpustats(struct kmt_reader *r, const char *text, size_t len)
{
	unsigned long long cpu;

	if (!kmt_stats_text_value(text, len, "CPU", &cpu) || cpu >= (unsigned long long)r->ncpus)
		return;
	kmt_cpu_stats_parse(text, len, &r->stats[cpu]);
}

int kmt_map_file(int fd, const char *path, const unsigned char **map, size_t *size,
		 struct kmt_error *err)
{
	struct stat st;
	void *m;

	if (fstat(fd, &st)) {
		kmt_error_set(err, path, -1, "cannot stat: %s", strerror(errno));
		close(fd);
		return -1;
	}
	m = st.st_size ? mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (m == MAP_FAILED) {
		kmt_error_set(err, path, -1, "cannot mmap: %s", strerror(st.st_size ? errno : EINVAL));
		return -1;
	}
	*map = m;
	*size = st.st_size;
	return 0;
}

/* Read the first bytes of @fd (a pipe, or a file at its start) into @head. */
static ssize_t read_head(int fd, unsigned char *head, size_t len)
{
	size_t have = 0;

	while (have < len) {
		ssize_t n = read(fd, head + have, len - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		have += n;
	}
	return have;
}

static bool is_directory(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISDIR(st.st_mode);
}

/* Open @path read-only; "-" is standard input. */
static int open_input(const char *path, struct kmt_error *err)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
				     fcntl(0, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		kmt_error_set(err, path, -1, "cannot open: %s", strerror(errno));
	return fd;
}

int kmt_input_rewind(const struct kmt_input *in, struct kmt_error *err)
{
	if (lseek(in->fd, 0, SEEK_SET) < 0) {
		kmt_error_set(err, in->path, 0, "a trace.dat cannot be read from a pipe: give the "
			      "file with -i");
		close(in->fd);
		return -1;
	}
	return 0;
}

struct kmt_reader *kmt_reader_open(const char *path, struct kmt_error *err)
{
	return kmt_reader_open_formats(path, NULL, err);
}

struct kmt_reader *kmt_reader_open_formats(const char *path, const char *formats_dir,
					   struct kmt_error *err)
{
	const struct kmt_backend *backend;
	unsigned char head[KMT_HEAD_LEN];
	ssize_t n;
	int fd;

	fd = open_input(path, err);
	if (fd < 0)
		return NULL;
	if (is_directory(fd)) {		/* a CTF trace (LTTng) */
		close(fd);
		return kmt_ctf_open(path, err);
	}
	n = read_head(fd, head, sizeof(head));
	if (n < 0) {
		kmt_error_set(err, path, 0, "cannot read: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	backend = kmt_backend_find(head, n);
	if (backend) {
		struct kmt_input in = { path, fd, head, n, formats_dir };
		struct kmt_reader *r = backend->open(&in, err);	/* takes fd */

		if (r && !r->format)
			r->format = backend->name;
		if (r && kmt_stack_join_open(r)) {
			kmt_error_set(err, path, -1, "out of memory");
			kmt_reader_close(r);
			return NULL;
		}
		return r;
	}
	kmt_error_set(err, path, 0, "not a trace.dat, perf.data, ftrace text file or CTF "
		      "trace directory");
	close(fd);
	return NULL;
}

void kmt_reader_close(struct kmt_reader *r)
{
	if (!r)
		return;
	r->ops->close(r);
	kmt_stack_join_free(r);
	kmt_reader_usyms_free(r);
	kmt_reader_free_common(r);
}

struct kmt_proctable *kmt_reader_processes(struct kmt_reader *r)
{
	const char *text = r->texts[KMT_TEXT_PROCESSES];

	if (r->procs || !(r->procs = kmt_proctable_new()))
		return r->procs;
	if (text && kmt_proctable_parse(r->procs, text, strlen(text)) < 0) {
		kmt_proctable_free(r->procs);
		r->procs = NULL;
	}
	return r->procs;
}

struct tep_handle *kmt_reader_tep(struct kmt_reader *r)
{
	return r->tep;
}

int kmt_reader_cpus(struct kmt_reader *r)
{
	return r->ncpus;
}

bool kmt_reader_formats_recorded(struct kmt_reader *r)
{
	return !r->formats_given;
}

const char *kmt_reader_format(struct kmt_reader *r)
{
	return r->format;
}

bool kmt_reader_reads_apart(struct kmt_reader *r)
{
	return !r->ops->changes_tep;
}

void kmt_reader_hold(struct kmt_reader *r, const void *from)
{
	r->hold = from;
}

bool kmt_reader_merged(struct kmt_reader *r)
{
	return r->ops->next_any || r->ops->next_batch;
}

int kmt_reader_next_batch(struct kmt_reader *r, struct kmt_record *recs, int max,
			  struct kmt_error *err)
{
	if (max <= 0)
		return 0;
	if (r->ops->next_batch)
		return r->ops->next_batch(r, recs, max, err);
	return kmt_reader_next(r, -1, recs, err);
}

int kmt_reader_next_cpu_batch(struct kmt_reader *r, int cpu, struct kmt_record *recs, int max,
			      struct kmt_error *err)
{
	if (max <= 0 || cpu < 0 || cpu >= r->ncpus)
		return 0;
	if (r->ops->next_cpu_batch && !r->stacks)	/* joined stacks: one at a time */
		return r->ops->next_cpu_batch(r, cpu, recs, max, err);
	return kmt_reader_next(r, cpu, recs, err);
}

int kmt_reader_next(struct kmt_reader *r, int cpu, struct kmt_record *rec,
		    struct kmt_error *err)
{
	rec->callchain = NULL;
	rec->callchain_nr = 0;
	rec->kept = false;
	if (cpu == -1 && r->ops->next_any)
		return r->ops->next_any(r, rec, err);
	if (cpu == -1 && r->ops->next_batch)
		return r->ops->next_batch(r, rec, 1, err);
	if (cpu < 0 || cpu >= r->ncpus || !r->ops->next)
		return 0;
	if (r->stacks)
		return kmt_stack_join_next(r, cpu, rec, err);
	return r->ops->next(r, cpu, rec, err);
}

const struct kmt_cpu_stats *kmt_reader_cpu_stats(struct kmt_reader *r, int cpu)
{
	return cpu >= 0 && cpu < r->ncpus ? &r->stats[cpu] : NULL;
}

/* The next line of @p (moved past it), its length in *@len; NULL at the end. */
static const char *next_text_line(const char **p, size_t *len)
{
	const char *line = *p, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	*len = nl ? (size_t)(nl - line) : strlen(line);
	*p = nl ? nl + 1 : line + *len;
	return line;
}

void kmt_reader_take_printk(struct tep_handle *tep, const char *text)
{
	const char *p = text, *line;
	size_t len;

	while ((line = next_text_line(&p, &len))) {
		char buf[1024], *end, *colon, *fmt;
		unsigned long long addr;

		if (len >= sizeof(buf))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		addr = strtoull(buf, &end, 16);
		colon = strstr(end, " : \"");
		if (end == buf || !colon)
			continue;
		fmt = colon + 4;
		/*
		 * libtraceevent takes the text after the opening quote, drops the
		 * closing one and a "\n" before it, and reads two bytes before its
		 * end while doing so: give it that shape only.
		 */
		if (strlen(fmt) >= 3 && fmt[strlen(fmt) - 1] == '"')
			tep_register_print_string(tep, fmt, addr);
	}
}

void kmt_reader_take_cmdlines(struct tep_handle *tep, const char *text)
{
	const char *p = text, *line;
	size_t len;

	while ((line = next_text_line(&p, &len))) {
		char comm[64], *end;
		long pid = strtol(line, &end, 10);

		if (end == line || *end != ' ' || pid < 0 || pid > INT32_MAX ||
		    (size_t)(end + 1 - line) >= len)
			continue;
		snprintf(comm, sizeof(comm), "%.*s", (int)(len - (end + 1 - line)), end + 1);
		tep_register_comm(tep, comm, (int)pid);
	}
}

const char *kmt_reader_text(struct kmt_reader *r, enum kmt_reader_text what)
{
	if (what == KMT_TEXT_SYMBOLS)
		kmt_reader_load_symbols(r);
	return what < KMT_TEXT_NR ? r->texts[what] : NULL;
}

void kmt_reader_format_counts(struct kmt_reader *r, unsigned int *skipped,
			      unsigned int *print_left_out)
{
	*skipped = r->formats.skipped;
	*print_left_out = r->formats.print_left_out;
}

/*
 * Read the "CPU NODE" lines once into r->cpu_nodes, up to the first line
 * that is not one (the first line of a CPU counts; CPUs not listed INT_MIN).
 */
static void read_cpu_nodes(struct kmt_reader *r)
{
	const char *p = r->texts[KMT_TEXT_CPU_NODES], *line;
	int c, node, i;
	uint32_t cap = 0;
	size_t len;

	r->ncpu_nodes = 0;
	while (p && (line = next_text_line(&p, &len)) && sscanf(line, "%d %d", &c, &node) == 2) {
		if (c < 0 || c >= MAX_CPU_NODES)
			continue;
		if (c >= r->ncpu_nodes) {
			if (kmt_grow(&r->cpu_nodes, &cap, c, sizeof(*r->cpu_nodes))) {
				r->ncpu_nodes = 0;	/* no memory: no node known */
				return;
			}
			for (i = r->ncpu_nodes; i <= c; i++)
				r->cpu_nodes[i] = INT_MIN;
			r->ncpu_nodes = c + 1;
		}
		if (r->cpu_nodes[c] == INT_MIN)
			r->cpu_nodes[c] = node;
	}
}

int kmt_reader_cpu_node(struct kmt_reader *r, int cpu)
{
	if (r->ncpu_nodes < 0)
		read_cpu_nodes(r);
	if (cpu < 0 || cpu >= r->ncpu_nodes || r->cpu_nodes[cpu] == INT_MIN)
		return -1;
	return r->cpu_nodes[cpu];
}
