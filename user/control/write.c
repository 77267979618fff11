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
	 * The budget the fxtrace commands give a trace: a thread's buffer
	 * has one provider and at most 32767 strings, a crafted one's tables
	 * can take hundreds of times its size.  A check that stopped short
	 * (-ENOMEM, -ENOBUFS past the budget) did not see the rest.
	 */
	fxt_reader_set_memory_budget(r, fxt_memory_budget_for(len));
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
