// SPDX-License-Identifier: GPL-2.0
/*
 * trace_keep.c - what `fxtrace recover` could still save is not
 * overwritten (trace_keep.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "flush_mark.h"
#include "trace_keep.h"

int fxtrace_flush_read(int fd, struct fxtrace_flush *f)
{
	unsigned char bytes[FLUSH_MARK_BYTES + WINDOW_MARK_BYTES];
	struct stat st;
	ssize_t n;

	memset(f, 0, sizeof(*f));
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	f->size = (uint64_t)st.st_size;
	n = pread(fd, bytes, sizeof(bytes), FLUSH_MARK_OFFSET);
	if (n < 0)
		return -errno;
	/* A mark below its own end is not one the drainer wrote. */
	f->marked = n >= (ssize_t)FLUSH_MARK_BYTES && flush_mark_read(bytes, &f->flushed) &&
		    f->flushed >= FLUSH_MARK_OFFSET + FLUSH_MARK_BYTES;
	f->windowed = f->marked && n == (ssize_t)sizeof(bytes) &&
		      window_mark_read(bytes + FLUSH_MARK_BYTES, &f->window_lo,
				       &f->window_hi);
	return 0;
}

bool trace_keep_recoverable(const char *who, const char *option,
			    const char *path, int fd, enum fxtrace_keep keep)
{
	struct stat wr, rd;
	struct fxtrace_flush f = { 0 };
	bool spool = false, unfinished;
	int ret = 0, rfd;
	__u32 magic;

	/* Without fd, only a regular file is opened: a device's open may act. */
	if (fd < 0 && lstat(path, &wr))
		return false;
	if (fd >= 0 && fstat(fd, &wr)) {
		ret = -errno;
	} else if (!S_ISREG(wr.st_mode) || !wr.st_size) {
		return false;
	} else if ((rfd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			       O_CLOEXEC)) < 0) {
		/* Not ours to read: what creates it refuses or truncates it. */
		if (fd < 0)
			return false;
		ret = -errno;
	} else {
		if (fstat(rfd, &rd))
			ret = -errno;
		else if (rd.st_dev != wr.st_dev || rd.st_ino != wr.st_ino)
			ret = -ESTALE;
		else if (pread(rfd, &magic, sizeof(magic), 0) == sizeof(magic) &&
			 magic == FXTRACE_BUFFER_MAGIC)
			spool = true;
		else
			ret = fxtrace_flush_read(rfd, &f);
		close(rfd);
	}
	unfinished = f.marked && f.flushed != f.size;
	if (ret == -ESTALE)
		fprintf(stderr, "%s: %s was replaced while it was opened; not written\n",
			who, path);
	else if (ret)
		fprintf(stderr, "%s: %s: %s\n", who, path,
			strerror(-ret));
	else if (spool)
		fprintf(stderr, "%s: %s is a libfxtrace spool: it is not overwritten ('fxtrace recover %s' saves its records; give %s another FILE)\n",
			who, path, path, option);
	else if (keep == FXTRACE_KEEP_UNFINISHED && unfinished)
		fprintf(stderr, "%s: %s is a trace fxtrace-drain has not finished (its drainer still writes it, or was killed): it is not overwritten (after a kill, 'fxtrace recover %s' keeps what the drainer flushed to it; give %s another FILE)\n",
			who, path, path, option);
	else if (keep == FXTRACE_KEEP_MARKED && f.marked)
		fprintf(stderr, "%s: %s is a trace fxtrace-drain wrote, maybe a killed drainer's: it is not overwritten ('fxtrace recover %s' keeps what the drainer flushed to it; give %s another FILE)\n",
			who, path, path, option);
	else
		return false;
	return true;
}
