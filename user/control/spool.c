// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a libfxtrace spool (fxtctl.h): the regions are checked before
 * they are used, since a crashed program may have left anything there.
 *
 * A region is read into our memory, one at a time, and checked there, not
 * mapped: whoever owns the file (the traced program's user, when root
 * recovers it) could otherwise change a region's sizes after they were
 * checked, or cut the file under the reader (SIGBUS); and a sparse spool
 * costs the memory of its largest region, not of its apparent size, and a
 * region is at most what libfxtrace writes (FXTCTL_SPOOL_DATA_MAX).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxtctl.h"

#define PAGE	FXTRACE_BUFFER_PAGE_SIZE

int fxtctl_open_regular(const char *path, int flags, struct stat *st)
{
	char fd_path[32];
	int at, fd;

	/*
	 * Only a regular file is opened, and the file looked at is the one
	 * opened: a spool's owner may put a device at the name, whose open
	 * alone acts when root opens it (a watchdog starts, a tape rewinds,
	 * a FIFO's writer goes on).  O_PATH opens nothing; /proc/self/fd
	 * reopens that very file, whatever is at the name by then.
	 */
	at = open(path, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW));
	if (at < 0)
		return -errno;
	if (fstat(at, st)) {
		fd = -errno;
	} else if (S_ISLNK(st->st_mode)) {
		fd = -ELOOP;
	} else if (!S_ISREG(st->st_mode)) {
		fd = -EINVAL;
	} else {
		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", at);
		/* O_NONBLOCK: the owner's lease fails the open, not stalls it. */
		fd = open(fd_path, (flags & O_ACCMODE) | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			fd = -errno;
	}
	close(at);
	return fd;
}

void fxtctl_spool_init(struct fxtctl_spool *sp, int fd, size_t size)
{
	memset(sp, 0, sizeof(*sp));
	sp->fd = fd;
	sp->size = size;
}

int fxtctl_spool_open(struct fxtctl_spool *sp, const char *path)
{
	struct stat st;
	int fd = fxtctl_open_regular(path, O_RDONLY, &st);

	if (fd < 0) {
		fxtctl_spool_init(sp, -1, 0);
		return fd;
	}
	fxtctl_spool_init(sp, fd, (size_t)st.st_size);
	return 0;
}

void fxtctl_spool_close(struct fxtctl_spool *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->region);
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
}

/* len bytes at offset into the region buffer at at: 0 or -errno. */
static int read_at(struct fxtctl_spool *sp, size_t at, size_t len,
		   size_t offset)
{
	unsigned char *grown;
	ssize_t n;

	if (at + len > sp->region_size) {
		grown = realloc(sp->region, at + len);
		if (!grown)
			return -ENOMEM;
		sp->region = grown;
		sp->region_size = at + len;
	}
	while (len) {
		n = pread(sp->fd, sp->region + at, len, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EINVAL;	/* cut meanwhile */
		at += (size_t)n;
		offset += (size_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int fxtctl_spool_next(struct fxtctl_spool *sp, size_t *offset,
		      struct fxtctl_buffer *b)
{
	const struct fxtrace_buffer_header *hdr;
	size_t left, data;
	int ret;

	if (*offset >= sp->size)
		return 0;
	left = sp->size - *offset;
	if (left < 2 * PAGE)
		return -EINVAL;
	ret = read_at(sp, 0, 2 * PAGE, *offset);
	if (ret)
		return ret;
	hdr = (const void *)sp->region;
	if (hdr->magic != FXTRACE_BUFFER_MAGIC ||
	    hdr->header_size < offsetof(struct fxtrace_buffer_header,
					save_requested_ns) ||
	    hdr->header_size > PAGE ||
	    hdr->kind != FXTRACE_BUFFER_TASK ||
	    hdr->data_offset != 2 * PAGE ||
	    hdr->durable_size % 8 || hdr->rolling_size % 8 ||
	    hdr->durable_size > FXTCTL_SPOOL_DATA_MAX ||
	    hdr->rolling_size > FXTCTL_SPOOL_DATA_MAX)
		return -EINVAL;
	/* At most 3 GiB: the sum does not wrap, not even in 32 bits. */
	data = hdr->durable_size + 2 * hdr->rolling_size;
	if (data > left - 2 * PAGE || data > FXTCTL_SPOOL_DATA_MAX ||
	    data % PAGE)
		return -EINVAL;
	ret = read_at(sp, 2 * PAGE, data, *offset + 2 * PAGE);
	if (ret)
		return ret;
	hdr = (const void *)sp->region;
	b->id = hdr->id;
	b->kind = FXTRACE_BUFFER_TASK;
	b->hdr = hdr;
	b->ctl = (const void *)(sp->region + PAGE);
	b->data = sp->region + 2 * PAGE;
	b->map_size = 2 * PAGE + data;
	*offset += b->map_size;
	return 1;
}
