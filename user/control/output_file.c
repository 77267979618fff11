// SPDX-License-Identifier: GPL-2.0
/* output_file.c - creating trace files (output_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_file.h"

/* A decimal id from the environment, or -1. */
static long long env_id(const char *name)
{
	const char *v = secure_getenv(name);
	unsigned long long id;
	char *end;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	id = strtoull(v, &end, 10);
	if (errno || *end || id >= (uid_t)-1)
		return -1;
	return (long long)id;
}

/*
 * Under sudo, a file root has just made goes to the user who ran sudo, as
 * if they had made it themselves: `sudo fxtrace record -o t.fxt`, then
 * `fxtrace report t.fxt`.  Only a new file: an existing one keeps its
 * owner.  Where chown is not possible (a file system without owners, ids
 * not mapped in a user namespace) the file stays root's.
 * secure_getenv(): a set-user-ID program's caller says nothing here.
 */
static void give_to_sudo_user(int fd)
{
	long long uid = env_id("SUDO_UID"), gid = env_id("SUDO_GID");

	if (uid < 0 || gid < 0 || geteuid())
		return;
	if (fchown(fd, (uid_t)uid, (gid_t)gid))
		errno = 0;	/* best effort: the file stays root's */
}

/*
 * An existing file is written only when it is the caller's, or under sudo
 * the sudo user's: whoever owns it may read what is written (chmod, or a
 * descriptor opened before), so a root trace written into a file another
 * user planted at the name would be theirs to read.
 */
static bool owned_by_caller(const struct stat *st)
{
	long long sudo_uid = env_id("SUDO_UID");
	uid_t euid = geteuid();

	return st->st_uid == euid ||
	       (!euid && sudo_uid >= 0 && st->st_uid == (uid_t)sudo_uid);
}

bool fxtctl_output_replaceable(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 &&
	       owned_by_caller(st);
}

/*
 * The last fxtctl_create_output() of this thread refused another user's
 * file: EPERM is open()'s too (an immutable file, a seccomp filter).
 */
static __thread bool refused_owner;

/*
 * open() with O_CREAT: whether this call made the file, in *created.  A
 * name that is there for the exclusive create and gone for the open is
 * tried again, OUTPUT_OPEN_TRIES times: no file comes and goes that often
 * by chance, so hitting the bound means someone is racing the name, and
 * the open fails with EAGAIN instead of spinning for as long as they do.
 */
#define OUTPUT_OPEN_TRIES	100

static int open_output(const char *path, int oflags, bool *created)
{
	int fd, tries;

	*created = false;
	for (tries = 0; tries < OUTPUT_OPEN_TRIES; tries++) {
		fd = open(path, oflags | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			*created = true;
			return fd;
		}
		if (errno != EEXIST || oflags & O_EXCL)
			return -1;
		fd = open(path, oflags);
		/* Removed in between: make it again. */
		if (fd >= 0 || errno != ENOENT)
			return fd;
	}
	errno = EAGAIN;
	return -1;
}

int fxtctl_create_output(const char *path, int flags)
{
	bool created;
	struct stat st;
	int fd, err = 0;

	refused_owner = false;
	/*
	 * Another user's FIFO, refused before a stream's open waits for its
	 * reader.  The check after the open is the one that holds.
	 */
	if (flags & FXTCTL_OUTPUT_STREAM && !lstat(path, &st) &&
	    S_ISFIFO(st.st_mode) && !owned_by_caller(&st)) {
		refused_owner = true;
		return -EPERM;
	}
	/*
	 * No O_TRUNC: the file is looked at first.  O_NONBLOCK unless a
	 * stream is wanted: a FIFO planted at the name then fails the open
	 * (ENXIO without a reader, as a socket does) or the checks below,
	 * instead of blocking it.
	 */
	fd = open_output(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW |
			 (flags & FXTCTL_OUTPUT_EXCL ? O_EXCL : 0) |
			 (flags & FXTCTL_OUTPUT_STREAM ? 0 : O_NONBLOCK),
			 &created);
	if (fd < 0)
		return errno == ENXIO && !(flags & FXTCTL_OUTPUT_STREAM) ?
		       -EEXIST : -errno;
	if (fstat(fd, &st)) {
		err = -errno;
	} else if (!created && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) &&
		   !owned_by_caller(&st)) {
		/*
		 * Anyone can make a file or FIFO where another user's output
		 * will be, and read it; a device node only its maker can
		 * (mknod).
		 */
		refused_owner = true;
		err = -EPERM;
	} else if (S_ISREG(st.st_mode)) {
		if (st.st_nlink > 1)
			err = -EMLINK;
		else if (!(flags & FXTCTL_OUTPUT_KEEP) && ftruncate(fd, 0))
			err = -errno;
		/* O_NONBLOCK off again: the only status flag that was set. */
		else if (fcntl(fd, F_SETFL, 0))
			err = -errno;
		else if (created)
			give_to_sudo_user(fd);
	} else if (!(flags & FXTCTL_OUTPUT_STREAM) ||
		   !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		err = -EEXIST;
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* The directory of path into dir (size bytes), or -ENAMETOOLONG. */
static int dir_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (!slash)
		n = snprintf(dir, size, ".");
	else
		n = snprintf(dir, size, "%.*s", slash == path ? 1 :
			     (int)(slash - path), path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* "/proc/self/fd/FD", which names an open file to linkat(). */
#define FD_PATH_SIZE	32

static void fd_path(int fd, char *buf)
{
	snprintf(buf, FD_PATH_SIZE, "/proc/self/fd/%d", fd);
}

/* ".NAME.XXXXXX" next to path into tmp, the X's left for the caller. */
static int temp_name(const char *path, char *tmp, size_t size)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash + 1 - path) : 0;
	int n;

	/* The name cut so that its 8 more bytes stay within NAME_MAX. */
	n = snprintf(tmp, size, "%.*s.%.200s.XXXXXX", dir_len, path,
		     path + dir_len);
	if (n < 0 || (size_t)n >= size) {
		if (size)
			tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

int fxtctl_create_temp_output(const char *path, char *tmp, size_t size)
{
	char dir[4096], proc[FD_PATH_SIZE];
	int fd, ret;

	ret = temp_name(path, tmp, size);
	if (ret)
		return ret;
	ret = dir_of(path, dir, sizeof(dir));
	if (ret) {
		tmp[0] = '\0';
		return ret;
	}
	/*
	 * Unnamed, it vanishes with the process, SIGKILL included.  Named
	 * later through /proc/self/fd: without it mounted, named now.
	 */
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		fd_path(fd, proc);
		if (!faccessat(AT_FDCWD, proc, F_OK, AT_SYMLINK_NOFOLLOW)) {
			tmp[0] = '\0';
			give_to_sudo_user(fd);
			return fd;
		}
		close(fd);
	} else if (errno != EOPNOTSUPP && errno != EISDIR) {
		/* EISDIR: a kernel that does not know O_TMPFILE. */
		tmp[0] = '\0';
		return -errno;
	}
	/* O_CREAT | O_EXCL, mode 0600, a fresh random name on EEXIST. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		tmp[0] = '\0';
		return -errno;
	}
	give_to_sudo_user(fd);
	return fd;
}

/* Tries of fxtctl_name_temp_output() at names that exist already. */
#define NAME_TEMP_TRIES	100

int fxtctl_name_temp_output(int fd, const char *path, char *tmp, size_t size)
{
	static const char chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char proc[FD_PATH_SIZE];
	unsigned char rnd[6];
	int ret, tries, i;
	size_t n;

	ret = temp_name(path, tmp, size);
	if (ret)
		return ret;
	n = strlen(tmp);
	fd_path(fd, proc);
	for (tries = 0; tries < NAME_TEMP_TRIES; tries++) {
		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
			break;
		for (i = 0; i < 6; i++)
			tmp[n - 6 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			break;
	}
	ret = tries < NAME_TEMP_TRIES ? -errno : -EEXIST;
	tmp[0] = '\0';
	return ret;
}

const char *fxtctl_output_refusal(int err)
{
	switch (err) {
	case -ELOOP:
		return " (a symbolic link: trace files are not written through one)";
	case -EMLINK:
		return " (the file has other hard links: it is not overwritten)";
	case -EEXIST:
		return " (not a regular file)";
	case -EAGAIN:
		return " (the name kept being made and removed while it was opened: someone is racing it)";
	case -EPERM:
		return refused_owner ?
		       " (another user's file: it is not overwritten)" : "";
	}
	return "";
}
