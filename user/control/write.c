// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a buffer out as a trace, checked first (fxtctl.h): for spool
 * recovery, whose buffers are the recovering user's own.  Its own object,
 * so that only its users need the decoder.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/fxt.h>
#include <linux/fxtrace.h>

#include "fxt_reader.h"
#include "fxtctl.h"

/*
 * What checking one buffer may take (fxt_reader_set_memory_budget()): what
 * the fxtrace commands give a trace (FXTRACE_MEMORY_LIMIT_* in
 * tools/fxtrace/fxtrace.h), 4 bytes a byte of it and at least 256 MiB.  A
 * thread's buffer has one provider and at most 32767 strings, whose
 * tables are small beside its records; a crafted one's can take hundreds
 * of times its size.
 */
#define CHECK_MEMORY_FLOOR	(256ULL << 20)
#define CHECK_MEMORY_PER_BYTE	4

static size_t check_memory(size_t len)
{
	if (len <= CHECK_MEMORY_FLOOR / CHECK_MEMORY_PER_BYTE)
		return CHECK_MEMORY_FLOOR;
	if (len > SIZE_MAX / CHECK_MEMORY_PER_BYTE)
		return SIZE_MAX;
	return len * CHECK_MEMORY_PER_BYTE;
}

static int ignore_record(void *ctx, const struct fxt_record *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

int fxtctl_write_buffer(int fd, const struct fxtctl_buffer *b,
			uint64_t *errors)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	unsigned char *copy;
	const char *p;
	size_t len, left;
	ssize_t n;
	int ret;

	copy = fxtctl_buffer_copy(b, 0, &len);
	if (!copy || !r) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * A check that stopped short (-ENOMEM, -ENOBUFS past the budget) did
	 * not see the rest.
	 */
	fxt_reader_set_memory_budget(r, check_memory(len));
	ret = fxt_reader_read_buffer(r, copy, len, ignore_record, NULL);
	*errors = fxt_reader_count(r, FXT_ERROR);
	if (ret || *errors)
		goto out;
	ret = 1;
	/* The copy starts with the magic record; the caller wrote one. */
	for (p = (const char *)copy + 8, left = len - 8; left; p += n, left -= (size_t)n) {
		n = write(fd, p, left);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0) {
			ret = n ? -errno : -EIO;
			break;
		}
	}
out:
	fxt_reader_free(r);
	free(copy);
	return ret;
}
