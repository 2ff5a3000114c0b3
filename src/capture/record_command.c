// SPDX-License-Identifier: LGPL-2.1
/*
 * What kmtrace record traces besides the whole system: a command it starts
 * (held before exec until tracing is on, killed if kmtrace dies, its exec
 * failure reported), or running processes given with -p (every thread of
 * them, followed until all have exited).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_local.h"
#include "common/util.h"

bool kmt_command_path(const char *cmd, char *path, size_t len)
{
	const char *dirs = getenv("PATH"), *p;

	if (strchr(cmd, '/')) {
		snprintf(path, len, "%s", cmd);
		return !access(path, X_OK);
	}
	for (p = dirs ? dirs : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t n = strcspn(p, ":");

		snprintf(path, len, "%.*s/%s", (int)n, p, cmd);
		if (!access(path, X_OK))
			return true;
		p += n;
	}
	return false;
}

/* Add the threads of process @pid to r->tids. 0, or -1 with errno. */
static int add_threads(struct recorder *r, int pid)
{
	uint32_t cap = r->ntids;
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		int tid = atoi(e->d_name);

		if (tid <= 0)
			continue;
		if (kmt_grow(&r->tids, &cap, r->ntids, sizeof(*r->tids))) {
			closedir(d);
			errno = ENOMEM;
			return -1;
		}
		r->tids[r->ntids++] = tid;
	}
	closedir(d);
	return 0;
}

int kmt_command_open_pids(struct recorder *r)
{
	int i;

	if (!r->o->npids)
		return 0;
	r->pidfds = calloc(r->o->npids, sizeof(*r->pidfds));
	if (!r->pidfds)
		return kmt_record_fail(r, "out of memory");
	for (i = 0; i < r->o->npids; i++) {
		int pid = r->o->pids[i];
		int fd = syscall(SYS_pidfd_open, pid, 0);

		if (fd < 0 && (errno == ESRCH || errno == EINVAL)) {
			kmt_error_set(r->err, "record", -1, errno == ESRCH ?
				      "-p %d: no such process" :
				      "-p %d: not a process (a thread?): give its process id", pid);
			return -2;
		}
		if (fd < 0)
			return kmt_record_fail(r, "-p %d: cannot watch the process", pid);
		r->pidfds[r->npids++] = fd;
		if (add_threads(r, pid))
			return kmt_record_fail(r, "-p %d: cannot list its threads", pid);
	}
	return 0;
}

bool kmt_command_pids_gone(struct recorder *r)
{
	int i;

	for (i = 0; i < r->npids; i++) {
		struct pollfd p = { .fd = r->pidfds[i], .events = POLLIN };

		if (poll(&p, 1, 0) != 1)
			return false;
	}
	return r->npids > 0;
}

/* The child: wait for the go byte, exec, or report why exec failed. */
static void __attribute__((noreturn)) run_child(struct recorder *r, const sigset_t *old,
						pid_t parent, int go, int ex)
{
	int e;
	char c;

	/* kmtrace killed (even with SIGKILL): the command goes too */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	sigprocmask(SIG_SETMASK, old, NULL);
	signal(SIGPIPE, r->o->command_ignores_sigpipe ? SIG_IGN : SIG_DFL);
	if (read(go, &c, 1) != 1)
		_exit(127);
	if (r->command_env) {	/* --user-sample: the library preloaded, the marker inherited */
		if (fcntl(r->marker_fd, F_SETFD, 0))
			_exit(127);
		execvpe(r->o->command[0], r->o->command, r->command_env);
	} else {
		execvp(r->o->command[0], r->o->command);
	}
	e = errno;
	if (write(ex, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

int kmt_command_fork(struct recorder *r, const sigset_t *old)
{
	int go[2], ex[2];
	pid_t parent = getpid();

	if (!r->o->command)
		return 0;
	if (pipe2(go, O_CLOEXEC))
		return kmt_record_fail(r, "cannot make a pipe");
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return kmt_record_fail(r, "cannot make a pipe");
	}
	r->child = fork();
	if (r->child == 0) {
		close(go[1]);
		close(ex[0]);
		run_child(r, old, parent, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	if (r->child < 0) {
		close(go[1]);
		close(ex[0]);
		return kmt_record_fail(r, "cannot fork %s", r->o->command[0]);
	}
	r->go_fd = go[1];
	r->exec_fd = ex[0];
	r->command_pid = r->child;
	return 0;
}

/* minflt and majflt (fields 10 and 12) of /proc/PID/stat. */
static void read_task_faults(pid_t pid, long *minflt, long *majflt)
{
	char path[64], *text, *p;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	text = kmt_read_text_file(path, &len);
	p = text ? strrchr(text, ')') : NULL;	/* comm may hold spaces */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %ld %*u %ld", minflt,
			 majflt) != 2)
		*minflt = *majflt = -1;
	free(text);
}

void kmt_command_release(struct recorder *r)
{
	int e;

	if (r->go_fd < 0)
		return;
	/* It waits in read(): what it faulted so far is not in the trace. */
	read_task_faults(r->child, &r->before_minflt, &r->before_majflt);
	r->child_released = write(r->go_fd, "g", 1) == 1;
	close(r->go_fd);
	r->go_fd = -1;
	/* EOF once exec closed the pipe; an errno when it failed */
	if (r->child_released && read(r->exec_fd, &e, sizeof(e)) == sizeof(e))
		r->exec_errno = e ? e : ENOEXEC;
	close(r->exec_fd);
	r->exec_fd = -1;
}

bool kmt_command_reap(struct recorder *r, bool wait)
{
	if (r->child <= 0 || wait4(r->child, &r->child_status, wait ? 0 : WNOHANG,
				   &r->rusage) != r->child)
		return false;
	r->have_rusage = true;
	r->child = 0;
	return true;
}

void kmt_command_end(struct recorder *r, int grace_ms)
{
	int waited;

	if (r->child <= 0)
		return;
	kill(r->child, r->child_released ? SIGTERM : SIGKILL);
	for (waited = 0; waited < grace_ms; waited += 10) {
		if (kmt_command_reap(r, false))
			return;
		usleep(10000);
	}
	kill(r->child, SIGKILL);
	kmt_command_reap(r, true);
}

void kmt_command_free(struct recorder *r)
{
	int i;

	for (i = 0; i < r->npids; i++)
		close(r->pidfds[i]);
	free(r->pidfds);
	free(r->tids);
	if (r->go_fd >= 0)
		close(r->go_fd);
	if (r->exec_fd >= 0)
		close(r->exec_fd);
	r->go_fd = r->exec_fd = -1;
}
