// SPDX-License-Identifier: GPL-2.0
/*
 * spool_read_test - fxtctl_spool_next() hands out a region read out of the
 * spool and checked in our memory: what the file's owner writes into it
 * afterwards (a region's sizes grown past the file, the file cut) changes
 * nothing of it.  Before, the spool was mapped shared, and the sizes
 * checked were read again from the file.  A sparse spool of 1 GiB costs
 * the memory of its one region.  Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxtctl.h"

#define PAGE		FXTRACE_BUFFER_PAGE_SIZE
#define DURABLE		PAGE
#define ROLLING		PAGE
#define REGION		(2 * PAGE + DURABLE + 2 * ROLLING)
#define MARK		0x5a

static int tests, failed;

static void result(int ok, const char *what)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++tests, what);
	failed |= !ok;
}

/* One task buffer's region: header page, control page, data of MARK. */
static void region(unsigned char *r, __u64 durable_size)
{
	struct fxtrace_buffer_header *hdr = (void *)r;

	memset(r, 0, 2 * PAGE);
	memset(r + 2 * PAGE, MARK, REGION - 2 * PAGE);
	hdr->magic = FXTRACE_BUFFER_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->kind = FXTRACE_BUFFER_TASK;
	hdr->id = 7;
	hdr->data_offset = 2 * PAGE;
	hdr->durable_size = durable_size;
	hdr->rolling_size = ROLLING;
}

static size_t marked(const struct fxtctl_buffer *b)
{
	size_t i, n = 0;

	for (i = 0; i < DURABLE + 2 * ROLLING; i++)
		n += b->data[i] == MARK;
	return n;
}

int main(void)
{
	static unsigned char bytes[REGION];
	char path[] = "/tmp/spool_read_test-XXXXXX";
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	size_t offset = 0;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	region(bytes, DURABLE);
	result(pwrite(fd, bytes, REGION, 0) == REGION, "a spool of one region");
	result(fxtctl_spool_open(&sp, path) == 0, "opened");
	ret = fxtctl_spool_next(&sp, &offset, &b);
	result(ret == 1, "its region is returned");

	/* The owner grows the sizes past the file, then cuts it. */
	region(bytes, 1ULL << 30);
	result(pwrite(fd, bytes, PAGE, 0) == PAGE && !ftruncate(fd, PAGE),
	       "the file changed after that");
	if (ret == 1) {
		result(b.id == 7 && b.hdr->durable_size == DURABLE &&
		       b.map_size == REGION, "the region keeps its sizes");
		result(marked(&b) == DURABLE + 2 * ROLLING,
		       "and its data");
	}
	result(fxtctl_spool_next(&sp, &offset, &b) == 0, "then the end");
	fxtctl_spool_close(&sp);

	/* 1 GiB of apparent size, one region of data. */
	region(bytes, DURABLE);
	result(!ftruncate(fd, 0) && pwrite(fd, bytes, REGION, 0) == REGION &&
	       !ftruncate(fd, 1LL << 30), "a sparse spool of 1 GiB");
	offset = 0;
	result(fxtctl_spool_open(&sp, path) == 0 &&
	       fxtctl_spool_next(&sp, &offset, &b) == 1 &&
	       marked(&b) == DURABLE + 2 * ROLLING, "its region is returned");
	result(fxtctl_spool_next(&sp, &offset, &b) == -EINVAL &&
	       sp.region_size <= REGION,
	       "then no region, in one region's memory");
	fxtctl_spool_close(&sp);
	close(fd);
	unlink(path);
	printf("1..%d\n", tests);
	return failed;
}
