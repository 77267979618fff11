// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a libfxtrace spool (fxtctl.h): the regions are checked before
 * they are used, since a crashed program may have left anything there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxtctl.h"

int fxtctl_spool_open(struct fxtctl_spool *sp, const char *path)
{
	struct stat st;
	void *map;
	int fd, err;

	memset(sp, 0, sizeof(*sp));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!st.st_size) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	sp->map = map;
	sp->size = (size_t)st.st_size;
	return 0;
}

void fxtctl_spool_close(struct fxtctl_spool *sp)
{
	if (sp->map)
		munmap((void *)sp->map, sp->size);
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
