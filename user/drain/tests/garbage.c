// SPDX-License-Identifier: GPL-2.0
/*
 * garbage SECONDS [SEED]: a hostile producer.  It attaches a buffer of its
 * own, then for SECONDS fills its durable part (the kernel's records at its
 * start too) and its rolling halves with random words and records that are
 * plausible but wrong, publishes random and out-of-range offsets in its
 * control page and, in streaming sessions, asks for its halves to be saved.
 * The drainer must still write a valid trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxt.h>
#include <linux/fxtrace.h>

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static __u64 rand64(void)
{
	return (__u64)random() << 33 ^ (__u64)random() << 11 ^ (__u64)random();
}

static __u64 pid, tid;

/* An event with an inline thread, category and name; nargs int64 args. */
static __u32 put_event(__u64 *w, unsigned int type, __u64 thread_pid,
		       const char *cat, const char *name, unsigned int nargs)
{
	__u16 cat_ref = fxt_inline_string_ref((__u32)strlen(cat));
	__u16 name_ref = fxt_inline_string_ref((__u32)strlen(name));
	__u32 arg_words = nargs * fxt_arg_words(fxt_inline_string_ref(1), 1);
	__u32 words = fxt_event_words(type, FXT_THREAD_REF_INLINE, cat_ref,
				      name_ref, arg_words);
	__u32 n = 0, i;

	w[n++] = fxt_event_hdr(words, type, nargs, FXT_THREAD_REF_INLINE,
			       cat_ref, name_ref);
	w[n++] = now_ns();
	w[n++] = thread_pid;
	w[n++] = tid;
	n += fxt_write_stream(w + n, cat, (__u32)strlen(cat));
	n += fxt_write_stream(w + n, name, (__u32)strlen(name));
	for (i = 0; i < nargs; i++)
		n += fxt_write_arg64(w + n, FXT_ARG_INT64,
				     fxt_inline_string_ref(1), "v", rand64());
	if (fxt_event_trailing_words(type))
		w[n++] = 7;
	return n;
}

/* One wrong (or, now and then, right) item; returns its words (<= 32). */
static __u32 put_item(__u64 *w)
{
	__u32 n;

	switch (random() % 18) {
	case 0:		/* random words */
		n = 1 + (__u32)(random() % 8);
		for (__u32 i = 0; i < n; i++)
			w[i] = rand64();
		return n;
	case 1:		/* a size that is off */
		n = put_event(w, FXT_EVENT_INSTANT, pid, "junk", "size", 1);
		w[0] = (w[0] & ~fxt_field(~0ULL, 4, 15)) |
		       fxt_field(n + 1 + random() % 3, 4, 15);
		return n;
	case 2:		/* a category string index never defined */
		n = put_event(w, FXT_EVENT_INSTANT, pid, "junk", "undef", 0);
		w[0] = (w[0] & ~fxt_field(~0ULL, 32, 47)) |
		       fxt_field(0x1234, 32, 47);
		return n;
	case 3:		/* string index 0 */
		return fxt_write_string(w, 0, "zero", 4);
	case 4:		/* switch the file to another provider */
		w[0] = fxt_provider_section_hdr((__u32)(random() % 4));
		return 1;
	case 5:		/* announce another provider */
		return fxt_write_provider_info(w, (__u32)(random() % 4), "evil", 4);
	case 6:		/* a tick rate of 0 */
		return fxt_write_init(w, 0);
	case 7:		/* a counter without a numeric argument */
		n = put_event(w, FXT_EVENT_COUNTER, pid, "junk", "counter", 0);
		w[0] = (w[0] & ~fxt_field(~0ULL, 20, 23));
		return n;
	case 8:		/* a context switch from a producer */
		w[0] = fxt_context_switch_hdr(4, 0, 0, 0);
		w[1] = now_ns();
		w[2] = tid;
		w[3] = tid + 1;
		return 4;
	case 9:		/* thread index 0 */
		return fxt_write_thread(w, 0, pid, tid);
	case 10:	/* a koid Perfetto truncates */
		return put_event(w, FXT_EVENT_INSTANT, 1ULL << 40, "junk", "koid", 0);
	case 11:	/* size 0: nothing after it can be framed */
		w[0] = fxt_field(FXT_REC_EVENT, 0, 3);
		return 1;
	case 12:	/* an async end named unlike its begin */
		n = put_event(w, FXT_EVENT_ASYNC_BEGIN, pid, "junk", "a", 0);
		return n + put_event(w + n, FXT_EVENT_ASYNC_END, pid, "junk",
				     "b", 0);
	case 13:	/* a sound string definition and a use of it */
		n = fxt_write_string(w, 3, "junk", 4);
		return n + put_event(w + n, FXT_EVENT_INSTANT, pid, "junk",
				     "ok", 1);
	case 14:	/* an argument larger than its record */
		n = put_event(w, FXT_EVENT_INSTANT, pid, "junk", "arg", 1);
		w[n - 3] = (w[n - 3] & ~fxt_field(~0ULL, 4, 15)) |
			   fxt_field(9, 4, 15);
		return n;
	case 15:	/* a string that is not UTF-8 */
		return fxt_write_string(w, 4, "\xff\xfe\xc0\x80", 4);
	case 16:	/* a large record claiming more than there is */
		w[0] = fxt_field(FXT_REC_LARGE, 0, 3) |
		       fxt_field(1u << 20, 4, 35);
		return 1;
	default:	/* a duration ending before it begins */
		n = put_event(w, FXT_EVENT_DURATION_COMPLETE, pid, "junk",
			      "neg", 0);
		w[n - 1] = 1;
		return n;
	}
}

/* Fill len bytes (a multiple of 8) at dst with items; returns bytes used. */
static size_t fill(unsigned char *dst, size_t len)
{
	__u64 item[64];
	size_t off = 0, bytes;

	while (off + sizeof(item) <= len) {
		bytes = put_item(item) * 8;
		memcpy(dst + off, item, bytes);
		off += bytes;
	}
	return off;
}

/* Mostly plausible offsets, sometimes past the end or unaligned. */
static __u64 offset_near(__u64 used, __u64 size)
{
	switch (random() % 4) {
	case 0:
		return size + (__u64)(random() % 65536);
	case 1:
		return rand64();
	case 2:
		return used + 3;
	default:
		return used;
	}
}

int main(int argc, char **argv)
{
	struct fxtrace_attach at = { .size = sizeof(at) };
	const struct fxtrace_buffer_header *hdr;
	struct fxtrace_buffer_control *ctl;
	unsigned char *data, *prod;
	__u64 deadline, w, durable_used, reserved;
	unsigned long rounds = 0, saves = 0;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: garbage SECONDS [SEED]\n");
		return 2;
	}
	srandom(argc > 2 ? (unsigned int)atoi(argv[2]) : (unsigned int)getpid());
	fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, FXTRACE_IOC_ATTACH, &at)) {
		perror("garbage: attach");
		return 1;
	}
	pid = at.pid;
	tid = at.tid;
	hdr = mmap(NULL, at.header_size, PROT_READ, MAP_SHARED, fd,
		   (off_t)at.header_offset);
	prod = mmap(NULL, at.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, (off_t)at.producer_offset);
	if (hdr == MAP_FAILED || prod == MAP_FAILED) {
		perror("garbage: mmap");
		return 1;
	}
	ctl = (struct fxtrace_buffer_control *)prod;
	data = prod + 4096;
	reserved = hdr->durable_reserved;
	durable_used = reserved;
	deadline = now_ns() + (__u64)atoi(argv[1]) * 1000000000ULL;
	while (now_ns() < deadline) {
		struct fxtrace_buffer_full full = {
			.size = sizeof(full),
			.buffer_id = at.buffer_id,
		};
		unsigned char *half;
		size_t used;

		rounds++;
		/* The durable part grows a little each round; now and then
		 * its kernel-written start is overwritten too. */
		if (random() % 8 == 0)
			fill(data, reserved);
		if (durable_used + 1024 <= hdr->durable_size)
			durable_used += fill(data + durable_used, 1024);
		__atomic_store_n(&ctl->durable_committed,
				 offset_near(durable_used, hdr->durable_size),
				 __ATOMIC_RELEASE);
		w = hdr->requested_wraps;
		half = data + hdr->durable_size + (w & 1) * hdr->rolling_size;
		used = fill(half, hdr->rolling_size);
		__atomic_store_n(&ctl->rolling_committed[w & 1],
				 offset_near(used, hdr->rolling_size),
				 __ATOMIC_RELEASE);
		__atomic_store_n(&ctl->dropped_records, rand64() % 1000,
				 __ATOMIC_RELEASE);
		if (hdr->mode == FXTRACE_MODE_STREAMING &&
		    hdr->saved_wraps == w) {
			__atomic_store_n(&ctl->wrap_count, w + 1,
					 __ATOMIC_RELEASE);
			full.wrap = w;
			if (!ioctl(fd, FXTRACE_IOC_BUFFER_FULL, &full))
				saves++;
		} else {
			usleep(1000);
		}
	}
	printf("garbage: buffer %u, %lu rounds, %lu saves requested\n",
	       at.buffer_id, rounds, saves);
	return 0;
}
