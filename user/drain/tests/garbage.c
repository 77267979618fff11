// SPDX-License-Identifier: GPL-2.0
/*
 * garbage SECONDS [SEED [MODE]]: a hostile producer.  It attaches a buffer
 * of its own, then for SECONDS fills its durable part (the kernel's records
 * at its start too) and its rolling halves with random words and records
 * that are plausible but wrong, publishes random and out-of-range offsets
 * in its control page and, in streaming sessions, asks for its halves to be
 * saved; among them the records that Perfetto fails on or takes for
 * another process's.  The drainer must still write a valid trace.
 *
 * With MODE, it writes one attack, as a producer following the protocol
 * would (in a streaming session, halves saved in turn), prints what it
 * wrote, stays alive until SECONDS are over, and exits:
 *   rename  its comm, provider name and kernel objects name it "honest",
 *           pid 1 "fake-systemd"; events with pid 1's ids
 *   squat   80,000 async begins, never ended
 *   budget  strings past the drainer's budget, then an async begin and end
 *           named by two of them, differently
 *   perfetto  blob records of types 1, 2 and 3, far-future and past
 *           timestamps, a large blob with metadata
 *   comm    no buffer: sets a comm that is not UTF-8 and sleeps SECONDS
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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

	switch (random() % 22) {
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
	case 18:	/* a blob Perfetto parses as protobuf, and fails on */
		w[0] = fxt_field(FXT_REC_BLOB, 0, 3) | fxt_field(2, 4, 15) |
		       fxt_field(8, 32, 46) |
		       fxt_field(3, 48, 55);	/* Perfetto protobuf */
		w[1] = 0x3a;
		return 2;
	case 19:	/* pid 1 renamed */
		return fxt_write_kobj_name(w, FXT_KOBJ_PROCESS, 1,
					   "fake-systemd", 12, 0);
	case 20:	/* an event on another process's thread */
		n = put_event(w, FXT_EVENT_INSTANT, 1, "junk", "pid1", 0);
		w[3] = 1;
		return n;
	case 21:	/* 146 years from now */
		n = put_event(w, FXT_EVENT_INSTANT, pid, "junk", "future", 0);
		w[1] = 4600000000000000000ULL;
		return n;
	default:	/* a duration ending before it begins */
		n = put_event(w, FXT_EVENT_DURATION_COMPLETE, pid, "junk",
			      "neg", 0);
		w[n - 1] = 1;
		return n;
	}
}

/* A producer writing its halves in turn, each saved before it is reused. */
struct writer {
	int fd;
	__u32 id;
	const struct fxtrace_buffer_header *hdr;
	struct fxtrace_buffer_control *ctl;
	unsigned char *data;
	__u64 wrap;		/* of the half being written */
	__u64 used;		/* bytes in it */
	__u64 records;
};

/* Until the kernel says the halves before wrap are saved (10 s at most). */
static int wait_saved(struct writer *wr, __u64 wrap)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (__atomic_load_n(&wr->hdr->saved_wraps, __ATOMIC_ACQUIRE) >= wrap)
			return 0;
		usleep(1000);
	}
	fprintf(stderr, "garbage: half %llu never saved\n",
		(unsigned long long)wrap);
	return -1;
}

static bool streaming(const struct writer *wr)
{
	return wr->hdr->mode == FXTRACE_MODE_STREAMING;
}

/*
 * The half is full: in a streaming session, ask for its save; go on in the
 * other one (a circular session's writer just wraps).
 */
static int next_half(struct writer *wr)
{
	struct fxtrace_buffer_full full = {
		.size = sizeof(full),
		.buffer_id = wr->id,
		.wrap = wr->wrap,
	};

	if (streaming(wr) && wait_saved(wr, wr->wrap))
		return -1;
	__atomic_store_n(&wr->ctl->wrap_count, wr->wrap + 1, __ATOMIC_RELEASE);
	if (streaming(wr) && ioctl(wr->fd, FXTRACE_IOC_BUFFER_FULL, &full)) {
		perror("garbage: buffer full");
		return -1;
	}
	wr->wrap++;
	wr->used = 0;
	/* The new half holds wrap - 2's records: none of them are committed. */
	__atomic_store_n(&wr->ctl->rolling_committed[wr->wrap & 1], 0,
			 __ATOMIC_RELEASE);
	return 0;
}

/* One record of n words. */
static int emit(struct writer *wr, const __u64 *w, __u32 n)
{
	unsigned char *half;

	if (wr->used + 8 * n > wr->hdr->rolling_size && next_half(wr))
		return -1;
	half = wr->data + wr->hdr->durable_size +
	       (wr->wrap & 1) * wr->hdr->rolling_size;
	memcpy(half + wr->used, w, 8 * n);
	wr->used += 8 * n;
	__atomic_store_n(&wr->ctl->rolling_committed[wr->wrap & 1], wr->used,
			 __ATOMIC_RELEASE);
	wr->records++;
	return 0;
}

/*
 * In a streaming session, the last half saved too, so that the drainer has
 * it all before exit; a circular session's buffer is read where it is.
 */
static int finish(struct writer *wr)
{
	return streaming(wr) && (next_half(wr) || wait_saved(wr, wr->wrap));
}

static int attack_rename(struct writer *wr, unsigned char *prod)
{
	char name[32];
	__u64 w[64];
	__u32 n;

	/* What the kernel wrote first: overwritten as another's thread. */
	snprintf(name, sizeof(name), "honest %llu", (unsigned long long)tid);
	n = fxt_write_provider_info(w, wr->id, name, (__u32)strlen(name));
	memcpy(prod + 4096, w, 8 * n);
	prctl(PR_SET_NAME, "honest");
	n = fxt_write_kobj_name(w, FXT_KOBJ_PROCESS, 1, "fake-systemd", 12, 0);
	if (emit(wr, w, n))
		return -1;
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, 1, "fake-systemd", 12, 1);
	if (emit(wr, w, n))
		return -1;
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, tid, "fake-systemd", 12, 1);
	if (emit(wr, w, n))
		return -1;
	n = fxt_write_thread(w, 1, 1, 1);
	if (emit(wr, w, n))
		return -1;
	n = put_event(w, FXT_EVENT_INSTANT, 1, "fake", "systemd", 0);
	w[3] = 1;	/* tid 1 */
	if (emit(wr, w, n))
		return -1;
	/* Its own events are kept. */
	n = put_event(w, FXT_EVENT_INSTANT, pid, "own", "event", 0);
	if (emit(wr, w, n))
		return -1;
	return finish(wr);
}

static int attack_squat(struct writer *wr)
{
	__u64 w[16];
	__u32 i, n;

	for (i = 0; i < 80000; i++) {
		n = put_event(w, FXT_EVENT_ASYNC_BEGIN, pid, "app", "op", 0);
		w[n - 1] = i;	/* the ids the honest producer uses too */
		if (emit(wr, w, n))
			return -1;
	}
	return finish(wr);
}

static int attack_budget(struct writer *wr)
{
	static char text[30000];
	static __u64 w[1 + sizeof(text) / 8];
	__u64 budget = 2 * wr->hdr->durable_size + (1 << 20);
	__u32 i, n, strings = (__u32)(budget / sizeof(text)) + 8;

	/* Strings the drainer's tables cannot all keep. */
	memset(text, 'x', sizeof(text));
	for (i = 1; i <= strings; i++) {
		text[0] = (char)('a' + i % 26);
		n = fxt_write_string(w, (__u16)i, text, sizeof(text));
		if (emit(wr, w, n))
			return -1;
	}
	/* An async slice whose end is named unlike its begin. */
	for (i = 0; i < 2; i++) {
		n = 0;
		w[n++] = fxt_event_hdr(5, i ? FXT_EVENT_ASYNC_END :
					  FXT_EVENT_ASYNC_BEGIN, 0,
				       FXT_THREAD_REF_INLINE, 0,
				       (__u16)(strings - i));
		w[n++] = now_ns();
		w[n++] = pid;
		w[n++] = tid;
		w[n++] = 77;
		if (emit(wr, w, n))
			return -1;
	}
	return finish(wr);
}

static int attack_perfetto(struct writer *wr)
{
	__u64 w[16];
	__u32 n, type;

	for (type = 1; type <= 3; type++) {
		w[0] = fxt_field(FXT_REC_BLOB, 0, 3) | fxt_field(2, 4, 15) |
		       fxt_field(8, 32, 46) | fxt_field(type, 48, 55);
		w[1] = 0x3a;	/* "Unknown field type" to Perfetto */
		if (emit(wr, w, 2))
			return -1;
	}
	n = put_event(w, FXT_EVENT_INSTANT, pid, "app", "future", 0);
	w[1] = 4600000000000000000ULL;
	if (emit(wr, w, n))
		return -1;
	n = put_event(w, FXT_EVENT_INSTANT, pid, "app", "past", 0);
	w[1] = 1;
	if (emit(wr, w, n))
		return -1;
	/* A large blob with metadata, a thread's event to Fuchsia's tools. */
	n = 0;
	w[n++] = fxt_field(FXT_REC_LARGE, 0, 3) | fxt_field(7, 4, 35);
	w[n++] = 0;
	w[n++] = now_ns();
	w[n++] = pid;
	w[n++] = tid;
	w[n++] = 8;
	w[n++] = 0;
	if (emit(wr, w, n))
		return -1;
	return finish(wr);
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

	const char *mode = argc > 3 ? argv[3] : NULL;
	struct writer wr;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: garbage SECONDS [SEED [MODE]]\n");
		return 2;
	}
	srandom(argc > 2 ? (unsigned int)atoi(argv[2]) : (unsigned int)getpid());
	if (mode && !strcmp(mode, "comm")) {
		/* A name prctl() accepts and UTF-8 does not. */
		prctl(PR_SET_NAME, "bad\xff\xfe" "comm");
		sleep((unsigned int)atoi(argv[1]));
		return 0;
	}
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
	if (mode) {
		wr = (struct writer){ .fd = fd, .id = at.buffer_id, .hdr = hdr,
				      .ctl = ctl, .data = data };
		if (!strcmp(mode, "rename"))
			ret = attack_rename(&wr, prod);
		else if (!strcmp(mode, "squat"))
			ret = attack_squat(&wr);
		else if (!strcmp(mode, "budget"))
			ret = attack_budget(&wr);
		else if (!strcmp(mode, "perfetto"))
			ret = attack_perfetto(&wr);
		else
			ret = 2;
		printf("garbage %s: buffer %u, pid %llu, tid %llu, %llu records\n",
		       mode, at.buffer_id, (unsigned long long)pid,
		       (unsigned long long)tid, (unsigned long long)wr.records);
		fflush(stdout);
		/* Alive (its buffer too) until SECONDS are over. */
		sleep((unsigned int)atoi(argv[1]));
		return ret ? 1 : 0;
	}
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
