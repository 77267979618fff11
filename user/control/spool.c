// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a libfxtrace spool (fxtctl.h): the regions are checked before
 * they are used, since a crashed program may have left anything there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxtctl.h"

/*
 * The spool is read into our memory, not mapped: whoever owns the file (the
 * traced program's user, when root recovers it) could otherwise change a
 * region's sizes after they were checked, or cut the file under the
 * reader (SIGBUS).
 */
int fxtctl_spool_open(struct fxtctl_spool *sp, const char *path)
{
	unsigned char *copy;
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd, err = 0;

	memset(sp, 0, sizeof(*sp));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	copy = st.st_size ? malloc((size_t)st.st_size) : NULL;
	if (st.st_size && !copy)
		err = -ENOMEM;
	/* A file that shrank meanwhile is read up to its end. */
	while (!err && done < (size_t)st.st_size) {
		n = read(fd, copy + done, (size_t)st.st_size - done);
		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n == 0)
			break;
		else if (n > 0)
			done += (size_t)n;
	}
	close(fd);
	if (err) {
		free(copy);
		return err;
	}
	sp->map = copy;
	sp->size = done;
	return 0;
}

void fxtctl_spool_close(struct fxtctl_spool *sp)
{
	free((void *)sp->map);
	memset(sp, 0, sizeof(*sp));
}

int fxtctl_spool_next(const struct fxtctl_spool *sp, size_t *offset,
		      struct fxtctl_buffer *b)
{
	const struct fxtrace_buffer_header *hdr;
	size_t left, data;

	if (*offset >= sp->size)
		return 0;
	left = sp->size - *offset;
	if (left < 2 * FXTRACE_BUFFER_PAGE_SIZE)
		return -EINVAL;
	hdr = (const void *)(sp->map + *offset);
	if (hdr->magic != FXTRACE_BUFFER_MAGIC ||
	    hdr->header_size < offsetof(struct fxtrace_buffer_header,
					save_requested_ns) ||
	    hdr->header_size > FXTRACE_BUFFER_PAGE_SIZE ||
	    hdr->kind != FXTRACE_BUFFER_TASK ||
	    hdr->data_offset != 2 * FXTRACE_BUFFER_PAGE_SIZE ||
	    hdr->durable_size % 8 || hdr->rolling_size % 8 ||
	    hdr->durable_size > left || hdr->rolling_size > left)
		return -EINVAL;
	data = hdr->durable_size + 2 * hdr->rolling_size;
	if (data > left - 2 * FXTRACE_BUFFER_PAGE_SIZE ||
	    data % FXTRACE_BUFFER_PAGE_SIZE)
		return -EINVAL;
	b->id = hdr->id;
	b->kind = FXTRACE_BUFFER_TASK;
	b->hdr = hdr;
	b->ctl = (const void *)(sp->map + *offset + FXTRACE_BUFFER_PAGE_SIZE);
	b->data = sp->map + *offset + 2 * FXTRACE_BUFFER_PAGE_SIZE;
	b->map_size = 2 * FXTRACE_BUFFER_PAGE_SIZE + data;
	*offset += b->map_size;
	return 1;
}
