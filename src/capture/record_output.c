// SPDX-License-Identifier: LGPL-2.1
/*
 * Where a recording goes, decided before tracing starts and never at the
 * cost of anything that is not a regular file:
 *  - "-" is standard output, written as a stream (not to a terminal);
 *  - a new path becomes a regular file (0600);
 *  - an existing regular file is replaced only with -f, atomically: the
 *    recording is written to an unlinked file (O_TMPFILE) beside it and
 *    renamed over it when complete, so a kill leaves the old file whole
 *    and no temporary file behind;
 *  - a FIFO or a character device is written into as a stream, never
 *    truncated, replaced or unlinked (memory devices are refused);
 *  - block devices, directories and sockets are refused;
 *  - a symbolic link stands for its target.
 * Where the file system has no O_TMPFILE, a named ".NAME.kmtrace-PID.tmp"
 * takes its place; one left by a killed recorder is removed by the next
 * recording into the same directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record_local.h"

#define TMP_TAG		".kmtrace-"
#define TMP_SUFFIX	".tmp"

int kmt_temp_fd(const char *dir)
{
	char path[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	snprintf(path, sizeof(path), "%s/.kmtrace-data-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* The directory temporary files go to when the output is a stream. */
static char *stream_tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return strdup(t && *t ? t : "/tmp");
}

static int refuse(struct kmt_error *err, const char *path, const char *why)
{
	kmt_error_set(err, path, -1, "%s", why);
	return -2;
}

/* Memory devices: a recording written there would overwrite memory. */
static bool is_memory_device(dev_t rdev)
{
	return major(rdev) == 1 && (minor(rdev) == 1 || minor(rdev) == 2 || minor(rdev) == 4);
}

static int open_stream(struct kmt_dest *d, const char *path, const struct stat *st,
		       struct kmt_error *err)
{
	if (S_ISCHR(st->st_mode) && is_memory_device(st->st_rdev))
		return refuse(err, path, "is a memory device: kmtrace will not write there");
	d->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (d->fd < 0) {
		kmt_error_set(err, path, -1, "cannot open: %s", strerror(errno));
		return -1;
	}
	d->dir = stream_tmp_dir();
	return d->dir ? 0 : -1;
}

/* Is ".NAME.kmtrace-PID.tmp" a file of a recorder that is gone? */
static bool stale_temp_name(const char *name)
{
	const char *tag = strstr(name, TMP_TAG);
	char *end;
	long pid;

	if (name[0] != '.' || !tag)
		return false;
	pid = strtol(tag + strlen(TMP_TAG), &end, 10);
	return pid > 0 && !strcmp(end, TMP_SUFFIX) && pid != getpid() &&
	       kill(pid, 0) && errno == ESRCH;
}

static void remove_stale_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_type == DT_REG && stale_temp_name(e->d_name))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
}

/* The file to write into before it takes @d->path's place. */
static int open_file(struct kmt_dest *d, struct kmt_error *err)
{
	char *copy = strdup(d->path), *base;

	if (!copy)
		return -1;
	d->dir = strdup(dirname(copy));
	free(copy);
	if (!d->dir)
		return -1;
	remove_stale_temps(d->dir);
	d->fd = open(d->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (d->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		copy = strdup(d->path);
		base = copy ? basename(copy) : NULL;
		if (!base || asprintf(&d->tmp_name, "%s/.%s%s%d%s", d->dir, base, TMP_TAG,
				      getpid(), TMP_SUFFIX) < 0) {
			free(copy);
			d->tmp_name = NULL;
			return -1;
		}
		free(copy);
		d->fd = open(d->tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (d->fd < 0) {
			free(d->tmp_name);
			d->tmp_name = NULL;
		}
	}
	if (d->fd < 0) {
		kmt_error_set(err, d->path, -1, "cannot create a file in %s: %s", d->dir,
			      strerror(errno));
		return -1;
	}
	return fchmod(d->fd, 0600) ? -1 : 0;
}

int kmt_dest_open(struct kmt_dest *d, const char *path, bool force, struct kmt_error *err)
{
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (!path) {		/* nothing to write: only the spool files */
		d->name = "nothing";
		d->dir = stream_tmp_dir();
		return d->dir ? 0 : -1;
	}
	if (!strcmp(path, "-")) {
		d->name = "standard output";
		if (isatty(STDOUT_FILENO))
			return refuse(err, "-", "standard output is a terminal: redirect it, or "
				      "give -o FILE");
		d->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		d->dir = stream_tmp_dir();
		return d->fd >= 0 && d->dir ? 0 : -1;
	}
	d->name = path;
	if (stat(path, &st)) {
		if (errno != ENOENT) {
			kmt_error_set(err, path, -1, "cannot use: %s", strerror(errno));
			return -2;
		}
		if (!lstat(path, &st))
			return refuse(err, path, "is a symbolic link to nothing");
		d->path = strdup(path);
		return d->path ? open_file(d, err) : -1;
	}
	if (S_ISREG(st.st_mode)) {
		if (!force)
			return refuse(err, path, "exists (use -f to replace it)");
		d->path = realpath(path, NULL);	/* a link's target is what gets replaced */
		d->replace = true;
		return d->path ? open_file(d, err) : -1;
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return open_stream(d, path, &st, err);
	if (S_ISBLK(st.st_mode))
		return refuse(err, path, "is a block device: kmtrace does not write recordings "
			      "onto disks");
	if (S_ISDIR(st.st_mode))
		return refuse(err, path, "is a directory");
	return refuse(err, path, "is not a regular file, a FIFO or a character device");
}

/* Give the unlinked file a name beside @d->path: @name, which must not exist. */
static int link_tmpfile(struct kmt_dest *d, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", d->fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
		return 0;
	return linkat(d->fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
}

/* An O_TMPFILE: linked under the final name, or (-f) under a temporary one renamed over it. */
static int commit_tmpfile(struct kmt_dest *d)
{
	char *base, *copy;

	if (!d->replace)
		return link_tmpfile(d, d->path);
	copy = strdup(d->path);
	base = copy ? basename(copy) : NULL;
	if (!base || asprintf(&d->tmp_name, "%s/.%s%s%d%s", d->dir, base, TMP_TAG, getpid(),
			      TMP_SUFFIX) < 0) {
		free(copy);
		d->tmp_name = NULL;
		errno = ENOMEM;
		return -1;
	}
	free(copy);
	if (link_tmpfile(d, d->tmp_name)) {
		free(d->tmp_name);
		d->tmp_name = NULL;
		return -1;
	}
	return rename(d->tmp_name, d->path);
}

int kmt_dest_commit(struct kmt_dest *d, struct kmt_error *err)
{
	int ret;

	if (!d->path) {		/* a stream: all of it went out already */
		d->committed = true;
		return 0;
	}
	if (d->tmp_name)	/* no O_TMPFILE here: the named file is renamed */
		ret = d->replace ? rename(d->tmp_name, d->path) :
				   renameat2(AT_FDCWD, d->tmp_name, AT_FDCWD, d->path,
					     RENAME_NOREPLACE);
	else
		ret = commit_tmpfile(d);
	if (ret) {
		kmt_error_set(err, d->path, -1, "cannot create: %s%s", strerror(errno),
			      errno == EEXIST ? " (made while recording; use -f to replace it)" : "");
		return -1;
	}
	d->committed = true;
	return 0;
}

void kmt_dest_close(struct kmt_dest *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	if (d->tmp_name && !d->committed)
		unlink(d->tmp_name);
	free(d->tmp_name);
	free(d->path);
	free(d->dir);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}
