// SPDX-License-Identifier: GPL-2.0
/*
 * Description: the layout facts of the uapi checked where user space sees
 * them.  Every check is a _Static_assert, so a header that breaks one does
 * not build; the program prints each checked value as a TAP line.
 *
 *  - each ioctl struct's *_SIZE_V0 ends at the last field of its first
 *    published version (the module checks the same with static_assert);
 *  - the header and control structs fit FXTRACE_BUFFER_PAGE_SIZE, the
 *    session page struct its first page;
 *  - the event types libfxtrace's public header (fxtrace/trace.h) names
 *    are the FXT encoder's (linux/fxt.h).
 */
#include <stddef.h>
#include <stdio.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>
#include <linux/fxtrace.h>

static int ntest, nfail;

static void check(const char *what, int ok, unsigned long long got,
		  unsigned long long want)
{
	ntest++;
	if (ok) {
		printf("ok %d - %s: %llu, %llu\n", ntest, what, got, want);
		return;
	}
	nfail++;
	printf("not ok %d - %s: %llu, %llu\n", ntest, what, got, want);
}

/* Where the first `field` of struct `type` ends. */
#define END(type, field) \
	(offsetof(struct type, field) + sizeof(((struct type *)0)->field))

#define SAME(a, b) do {							\
	_Static_assert((a) == (b), #a " == " #b);			\
	check(#a " == " #b, (a) == (b), (a), (b));					\
} while (0)

/* The same, for what only a run computes (uapi's inline functions). */
#define SAME_RUN(a, b)	check(#a " == " #b, (a) == (b), (a), (b))

#define FITS(size, room) do {						\
	_Static_assert((size) <= (room), #size " <= " #room);		\
	check(#size " <= " #room, (size) <= (room), (size), (room));			\
} while (0)

int main(void)
{
	SAME(FXTRACE_VERSION_SIZE_V0, END(fxtrace_version, features));
	SAME(FXTRACE_CONFIG_SIZE_V0, END(fxtrace_config, __reserved));
	SAME(FXTRACE_START_SIZE_V0, END(fxtrace_start, __reserved));
	SAME(FXTRACE_SESSION_INFO_SIZE_V0,
	     END(fxtrace_session_info, lost_packets));
	SAME(FXTRACE_ATTACH_SIZE_V0, END(fxtrace_attach, monotonic_offset));
	SAME(FXTRACE_BUFFER_FULL_SIZE_V0, END(fxtrace_buffer_full, wrap));
	SAME(FXTRACE_BUFFER_INFO_SIZE_V0, END(fxtrace_buffer_info, reader_size));
	SAME(FXTRACE_CATEGORY_SIZE_V0, END(fxtrace_category, __reserved));
	SAME(FXTRACE_BUFFER_REF_SIZE_V0, END(fxtrace_buffer_ref, id));

	FITS(sizeof(struct fxtrace_buffer_header), FXTRACE_BUFFER_PAGE_SIZE);
	FITS(sizeof(struct fxtrace_buffer_control), FXTRACE_BUFFER_PAGE_SIZE);
	FITS(sizeof(struct fxtrace_session_page), FXTRACE_BUFFER_PAGE_SIZE);
	/* Fuchsia's split: a sixteenth, at most 1 MiB. */
	SAME_RUN(fxtrace_durable_size(FXTRACE_BUFFER_SIZE_MIN), 1024);
	SAME_RUN(fxtrace_durable_size(1ULL << 20), 65536);
	SAME_RUN(fxtrace_durable_size((1ULL << 20) + 4096), 65792);
	SAME_RUN(fxtrace_durable_size(16ULL << 20), 1ULL << 20);
	SAME_RUN(fxtrace_durable_size(FXTRACE_BUFFER_SIZE_MAX), 1ULL << 20);
	SAME_RUN(((1ULL << 20) + 4096 - fxtrace_durable_size((1ULL << 20) + 4096)) % 16, 0);
	SAME(FXTRACE_MMAP_OFFSET(1, FXTRACE_MMAP_READER),
	     (1ULL << 32) | (3ULL << 28));

	SAME(FXT_TYPE_INSTANT, FXT_EVENT_INSTANT);
	SAME(FXT_TYPE_COUNTER, FXT_EVENT_COUNTER);
	SAME(FXT_TYPE_BEGIN, FXT_EVENT_DURATION_BEGIN);
	SAME(FXT_TYPE_END, FXT_EVENT_DURATION_END);
	SAME(FXT_TYPE_COMPLETE, FXT_EVENT_DURATION_COMPLETE);
	SAME(FXT_TYPE_ASYNC_BEGIN, FXT_EVENT_ASYNC_BEGIN);
	SAME(FXT_TYPE_ASYNC_INSTANT, FXT_EVENT_ASYNC_INSTANT);
	SAME(FXT_TYPE_ASYNC_END, FXT_EVENT_ASYNC_END);
	SAME(FXT_TYPE_FLOW_BEGIN, FXT_EVENT_FLOW_BEGIN);
	SAME(FXT_TYPE_FLOW_STEP, FXT_EVENT_FLOW_STEP);
	SAME(FXT_TYPE_FLOW_END, FXT_EVENT_FLOW_END);

	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
