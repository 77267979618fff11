// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_spool.c - libFuzzer target: arbitrary bytes as the spool a crashed
 * libfxtrace program left, through what `fxtrace recover SPOOL` does with
 * it (tools/fxtrace/recover.c, recover_spool()), under ASan and UBSan
 * (user/reader/fuzz/run.sh).  The input becomes a file (a memfd, opened
 * again by its /proc path) and
 *
 *   1. fxtctl_spool_open() and fxtctl_spool_next() read it region by
 *      region until the end or a region that is not one, and each region
 *      is written by fxtctl_write_buffer() to /dev/null;
 *   2. the same again with the file cut to half its size after the open,
 *      as its owner may do while root recovers it.
 *
 * Every region returned must lie in the memory of the spool's copy: its
 * parts (header page, control page, durable part and rolling halves as the
 * header sizes them) in the region, and the spans fxtctl_buffer_spans()
 * finds in its data.  Leaks fail the run too (LeakSanitizer), and so does a
 * file descriptor left open: the lowest free one is the same after an
 * input as before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fxtctl.h"

#define PAGE	FXTRACE_BUFFER_PAGE_SIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int spool_fd = -1;	/* the memfd the input is written to */
static int out_fd = -1;		/* /dev/null */
static char spool_path[64];
static volatile uint64_t sink;	/* what was read, so that it is read */

static int lowest_free_fd(void)
{
	int fd = fcntl(out_fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		abort();
	close(fd);
	return fd;
}

static void setup(void)
{
	spool_fd = memfd_create("fuzz_spool", MFD_CLOEXEC);
	out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (spool_fd < 0 || out_fd < 0)
		abort();
	snprintf(spool_path, sizeof(spool_path), "/proc/self/fd/%d", spool_fd);
}

/* What the caller may rely on of a region fxtctl_spool_next() returned. */
static void check_region(const struct fxtctl_buffer *b, size_t offset,
			 size_t next, size_t file_size)
{
	const unsigned char *start = (const unsigned char *)b->hdr;
	const unsigned char *end = start + b->map_size;
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	unsigned int n, i;

	if (b->map_size < 2 * PAGE || next != offset + b->map_size ||
	    next > file_size || b->kind != FXTRACE_BUFFER_TASK ||
	    b->id != b->hdr->id ||
	    (const unsigned char *)b->ctl != start + PAGE ||
	    b->data != start + 2 * PAGE ||
	    b->hdr->durable_size > b->map_size ||
	    b->hdr->rolling_size > b->map_size ||
	    2 * PAGE + b->hdr->durable_size + 2 * b->hdr->rolling_size !=
	    b->map_size)
		abort();
	n = fxtctl_buffer_spans(b, 0, spans);
	if (n < 1 || n > FXTCTL_SPANS_MAX)
		abort();
	for (i = 0; i < n; i++)
		if (spans[i].ptr < b->data || spans[i].len > b->map_size ||
		    spans[i].ptr + spans[i].len > end)
			abort();
}

/* recover_spool(): every region, until the end or one that is not one. */
static void recover(size_t cut)
{
	struct fxtctl_spool sp;
	struct fxtctl_buffer b;
	size_t offset = 0, prev;
	uint64_t errors;
	int k, ret, fd;

	if (fxtctl_spool_open(&sp, spool_path))
		abort();
	fd = sp.fd;
	if (cut != SIZE_MAX && ftruncate(spool_fd, (off_t)cut))
		abort();
	for (;;) {
		prev = offset;
		k = fxtctl_spool_next(&sp, &offset, &b);
		if (k != 1)
			break;
		check_region(&b, prev, offset, sp.size);
		errors = 0;
		ret = fxtctl_write_buffer(out_fd, &b, &errors);
		if (ret < 0 && ret != -ENOMEM && ret != -ENOBUFS)
			abort();
		sink += b.hdr->tid + errors;	/* recover names the thread */
	}
	if (k < 0 ? k != -EINVAL && k != -ENOMEM : offset != sp.size)
		abort();
	fxtctl_spool_close(&sp);
	if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int free_fd;

	if (spool_fd < 0)
		setup();
	/* Each time: libFuzzer starts a symbolizer on pipes between inputs. */
	free_fd = lowest_free_fd();
	if (ftruncate(spool_fd, 0) ||
	    pwrite(spool_fd, data, size, 0) != (ssize_t)size)
		abort();
	recover(SIZE_MAX);

	/* Cut under the reader: what was read stays checked. */
	if (ftruncate(spool_fd, 0) ||
	    pwrite(spool_fd, data, size, 0) != (ssize_t)size)
		abort();
	recover(size / 2);

	if (lowest_free_fd() != free_fd)
		abort();
	return 0;
}
