// SPDX-License-Identifier: GPL-2.0
/*
 * spool_read_test - fxtctl_spool_open() reads the spool once: what the file's
 * owner writes into it afterwards (a region's sizes grown past the file,
 * the file cut) changes nothing of what fxtctl_spool_next() returns.
 * Before, the spool was mapped shared, and the sizes checked were read
 * again from the file.  Prints TAP.
 */
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

int main(void)
{
	static unsigned char bytes[REGION];
	char path[] = "/tmp/spool_test-XXXXXX";
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	size_t offset = 0, i, marked = 0;
	int fd, ret;

	fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	region(bytes, DURABLE);
	result(pwrite(fd, bytes, REGION, 0) == REGION, "a spool of one region");
	result(fxtctl_spool_open(&sp, path) == 0, "opened");

	/* The owner grows the sizes past the file, then cuts it. */
	region(bytes, 1ULL << 30);
	result(pwrite(fd, bytes, PAGE, 0) == PAGE && !ftruncate(fd, PAGE),
	       "the file changed after the open");

	ret = fxtctl_spool_next(&sp, &offset, &b);
	result(ret == 1, "the region read at the open is returned");
	if (ret == 1) {
		result(b.id == 7 && b.hdr->durable_size == DURABLE &&
		       b.map_size == REGION, "with the sizes it had then");
		for (i = 0; i < DURABLE + 2 * ROLLING; i++)
			marked += b.data[i] == MARK;
		result(marked == DURABLE + 2 * ROLLING, "and its data");
	}
	result(fxtctl_spool_next(&sp, &offset, &b) == 0, "then the end");
	fxtctl_spool_close(&sp);
	close(fd);
	unlink(path);
	printf("1..%d\n", tests);
	return failed;
}
