// SPDX-License-Identifier: GPL-2.0
/*
 * sync_log.so - preloaded by output_sync_test.sh and stop_test.sh: logs
 * each fsync(), fdatasync() and rename() to the file $FXTRACE_SYNC_LOG,
 * one line each, with what the file was at that moment:
 *
 *   fsync file INODE SIZE     a regular file, SIZE bytes written so far
 *   fsync dir INODE           a directory
 *   rename INODE              the file renamed (lstat() of its old name)
 *
 * so that a test can check that the output was synced whole before its
 * rename and its directory after.  $FXTRACE_SYNC_FAIL ("file EIO",
 * "dir EIO", "file EINVAL") makes fsync() of that kind fail with that
 * errno, after logging it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void log_line(const char *line)
{
	const char *path = getenv("FXTRACE_SYNC_LOG");
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, strlen(line)) < 0)
		perror("sync_log.so");
	close(fd);
}

/* Log a sync of fd as how; -1 with the errno asked for, else 0. */
static int log_sync(const char *how, int fd)
{
	const char *fail = getenv("FXTRACE_SYNC_FAIL");
	const char *kind = "other";
	char line[128];
	struct stat st;
	size_t n;

	if (!fstat(fd, &st)) {
		if (S_ISREG(st.st_mode)) {
			kind = "file";
			snprintf(line, sizeof(line), "%s file %llu %lld\n", how,
				 (unsigned long long)st.st_ino,
				 (long long)st.st_size);
		} else if (S_ISDIR(st.st_mode)) {
			kind = "dir";
			snprintf(line, sizeof(line), "%s dir %llu\n", how,
				 (unsigned long long)st.st_ino);
		} else {
			snprintf(line, sizeof(line), "%s other\n", how);
		}
	} else {
		snprintf(line, sizeof(line), "%s fd %d: %s\n", how, fd,
			 strerror(errno));
	}
	log_line(line);
	n = strlen(kind);
	if (fail && !strncmp(fail, kind, n) && fail[n] == ' ') {
		errno = strcmp(fail + n + 1, "EINVAL") ? EIO : EINVAL;
		return -1;
	}
	return 0;
}

int fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	return log_sync("fsync", fd) ? -1 : real(fd);
}

int fdatasync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");

	return log_sync("fdatasync", fd) ? -1 : real(fd);
}

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) =
		(int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	char line[64];
	struct stat st;

	if (!lstat(from, &st))
		snprintf(line, sizeof(line), "rename %llu\n",
			 (unsigned long long)st.st_ino);
	else
		snprintf(line, sizeof(line), "rename: %s\n", strerror(errno));
	log_line(line);
	return real(from, to);
}
