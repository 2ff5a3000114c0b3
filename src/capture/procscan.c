// SPDX-License-Identifier: LGPL-2.1
/* kmt_procscan(): /proc/PID and /proc/PID/task/TID read into a task table. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "procscan.h"

#define CMDLINE_MAX	4096	/* what a table cell can show, and more */
#define CGROUP_MAX	8192

/* Up to @len - 1 bytes of file @path into @buf, NUL-terminated; -1 when it cannot be read. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, got;

	if (fd < 0)
		return -1;
	while ((size_t)n < len - 1 && (got = read(fd, buf + n, len - 1 - n)) > 0)
		n += got;
	close(fd);
	buf[n] = '\0';
	return n;
}

/* comm, ppid and start time from DIR/stat ("PID (COMM) S PPID ... STARTTIME ..."). */
static bool read_stat(const char *dir, struct kmt_process *p, char *comm, size_t len)
{
	char path[96], buf[1024];
	const char *open_paren, *close_paren, *s;
	unsigned long long start;
	int field;

	snprintf(path, sizeof(path), "%s/stat", dir);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(open_paren = strchr(buf, '(')) ||
	    !(close_paren = strrchr(buf, ')')) || close_paren < open_paren)
		return false;
	snprintf(comm, len, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
	/* After ") ": field 3 (state), 4 (ppid) ... 22 (starttime, clock ticks). */
	for (s = close_paren + 1, field = 2; *s && field < 22; s++)
		if (*s == ' ')
			field++;
	if (field != 22 || sscanf(close_paren + 2, "%*c %d", &p->ppid) != 1 ||
	    sscanf(s, "%llu", &start) != 1)
		return false;
	p->start_ns = (long long)(start * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK)));
	return true;
}

/* The arguments of DIR/cmdline joined by spaces into @buf; false for none (kernel threads). */
static bool read_cmdline(const char *dir, char *buf, size_t len)
{
	char path[96];
	ssize_t n, i;

	snprintf(path, sizeof(path), "%s/cmdline", dir);
	if ((n = read_small(path, buf, len)) <= 0)
		return false;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return n > 0;
}

/*
 * The memory cgroup of DIR/cgroup: the v1 memory hierarchy's path where
 * there is one, else the v2 ("0::") path. false when neither is there.
 */
static bool read_cgroup(const char *dir, char *buf, size_t len)
{
	char path[96], text[CGROUP_MAX], *line, *save = NULL;
	bool found = false;

	snprintf(path, sizeof(path), "%s/cgroup", dir);
	if (read_small(path, text, sizeof(text)) <= 0)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *controllers = strchr(line, ':'), *where;

		if (!controllers || !(where = strchr(controllers + 1, ':')))
			continue;
		*where++ = '\0';
		if (!strcmp(controllers + 1, "memory") || strstr(controllers + 1, "memory,") ||
		    strstr(controllers + 1, ",memory")) {
			snprintf(buf, len, "%s", where);
			return true;
		}
		if (!strcmp(line, "0:") && controllers[1] == '\0') {
			snprintf(buf, len, "%s", where);
			found = true;
		}
	}
	return found;
}

/* Now on the clock kmtrace record traces with ("mono"). */
static long long monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Did known process @p run another executable since it was read? */
static bool exec_since(const struct kmt_process *p)
{
	char path[48], exe[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", p->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	return !p->exe || strcmp(p->exe, exe);
}

struct texts {
	char comm[64], exe[PATH_MAX], cmdline[CMDLINE_MAX], cgroup[PATH_MAX], container[65];
};

/* Process @pid (its /proc directory) into @p, texts in @tx. false when it is gone. */
static bool read_process(int pid, struct kmt_process *p, struct texts *tx)
{
	char dir[32], path[48];
	ssize_t n;

	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	*p = (struct kmt_process){ .pid = pid, .tgid = pid, .ppid = -1, .start_ns = -1,
				   .seen_ns = monotonic_ns() };
	if (!read_stat(dir, p, tx->comm, sizeof(tx->comm)))
		return false;
	p->comm = tx->comm;
	snprintf(path, sizeof(path), "%s/exe", dir);
	if ((n = readlink(path, tx->exe, sizeof(tx->exe) - 1)) > 0) {
		tx->exe[n] = '\0';
		p->exe = tx->exe;
	}
	p->cmdline = read_cmdline(dir, tx->cmdline, sizeof(tx->cmdline)) ? tx->cmdline : NULL;
	p->cgroup = read_cgroup(dir, tx->cgroup, sizeof(tx->cgroup)) ? tx->cgroup : NULL;
	p->container = kmt_container_id(p->cgroup, tx->container, sizeof(tx->container)) ?
		       tx->container : NULL;
	return true;
}

/* The kernel's dev_t of major @maj, minor @min (what the filemap events carry). */
static unsigned long long kernel_dev(unsigned int maj, unsigned int min)
{
	return (unsigned long long)maj << 20 | min;
}

/* The files process @pid maps: "START-END PERMS OFF MAJ:MIN INODE PATH" lines. */
static int add_mapped(struct kmt_filetable *files, int pid)
{
	char path[48], line[PATH_MAX + 128];
	FILE *fp;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(fp = fopen(path, "re")))
		return 0;
	while (!ret && fgets(line, sizeof(line), fp)) {
		unsigned int maj, min;
		unsigned long long ino;
		int at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &maj, &min, &ino, &at) == 3 && ino &&
		    at && line[at] == '/')
			ret = kmt_filetable_add(files, kernel_dev(maj, min), ino, line + at);
	}
	fclose(fp);
	return ret;
}

/* The regular files process @pid has open. */
static int add_open(struct kmt_filetable *files, int pid)
{
	char dir[48], fd[96], target[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int ret = 0;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	if (!(d = opendir(dir)))
		return 0;
	while (!ret && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(fd, sizeof(fd), "%s/%d", dir, atoi(e->d_name));
		n = readlink(fd, target, sizeof(target) - 1);
		if (n <= 0 || target[0] != '/' || stat(fd, &st) || !S_ISREG(st.st_mode))
			continue;
		target[n] = '\0';
		ret = kmt_filetable_add(files, kernel_dev(major(st.st_dev), minor(st.st_dev)),
					st.st_ino, target);
	}
	closedir(d);
	return ret;
}

/* The threads of process @proc other than its leader, as @proc with their own comm and start. */
static int add_threads(struct kmt_proctable *t, const struct kmt_process *proc, bool refresh)
{
	char dir[64], tdir[96], comm[64];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", proc->pid);
	if (!(d = opendir(dir)))
		return 0;
	while (!ret && (e = readdir(d))) {
		struct kmt_process task = *proc;

		if (!isdigit((unsigned char)e->d_name[0]) || atoi(e->d_name) == proc->pid)
			continue;
		task.pid = atoi(e->d_name);
		snprintf(tdir, sizeof(tdir), "%s/%d", dir, task.pid);
		if (!read_stat(tdir, &task, comm, sizeof(comm)))
			continue;
		task.comm = comm;	/* ppid: a thread's stat names its process's parent */
		ret = kmt_proctable_merge(t, &task, refresh);
	}
	closedir(d);
	return ret;
}

int kmt_procscan(struct kmt_proctable *t, struct kmt_filetable *files, bool refresh)
{
	struct texts *tx = malloc(sizeof(*tx));
	DIR *d = opendir("/proc");
	struct dirent *e;
	int ret = tx ? 0 : -1;

	while (d && !ret && (e = readdir(d))) {
		const struct kmt_process *known;
		struct kmt_process p;
		int pid = atoi(e->d_name);
		bool again;

		if (!isdigit((unsigned char)e->d_name[0]) || pid <= 0)
			continue;
		known = kmt_proctable_find(t, pid);
		again = refresh || (known && exec_since(known));
		if ((known && !again) || !read_process(pid, &p, tx))
			continue;
		ret = kmt_proctable_merge(t, &p, again) ?: add_threads(t, &p, again);
		if (!ret && files)
			ret = add_mapped(files, pid) ?: add_open(files, pid);
	}
	if (d)
		closedir(d);
	free(tx);
	return ret;
}
