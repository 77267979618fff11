// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of streaming: BUFFER_FULL save requests, SAVE_BUFFER packets and
 * BUFFER_SAVED acks, for task and CPU buffers, and their errors.
 *
 * The contract is uapi/linux/fxtrace.h and Documentation/uapi.rst; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).  Each test
 * ends the session it created; a session left by a crashed test is adopted
 * and terminated by the next fixture setup.  Helpers and the fixtures
 * nosess and sess: hostile.h.
 */

#include "hostile.h"

/* ---- 9. streaming: BUFFER_FULL and BUFFER_SAVED ------------------------- */

static ssize_t ack(int fd, __u16 part, __u32 id, __u64 wrap)
{
	struct fxtrace_packet p = {
		.request = FXTRACE_PKT_BUFFER_SAVED, .data16 = part,
		.data32 = id, .data64 = wrap,
	};

	return write(fd, &p, sizeof(p));
}

FIXTURE(stream) {
	int fd, fd2, ncpus;
	struct fxtrace_attach a;
	char *m;				/* PRODUCER mapping */
	struct fxtrace_buffer_control *ctl;
	const struct fxtrace_buffer_header *h;	/* HEADER mapping */
};

FIXTURE_SETUP(stream)
{
	struct fxtrace_config c;
	struct fxtrace_packet p[512];

	FXT_SELFTEST_REQUIRE_DEVICE();
	self->ncpus = possible_cpus();
	self->fd = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	self->fd2 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd2);
	config_init(&c, FXTRACE_MODE_STREAMING);
	ASSERT_EQ(0, init_session(self->fd, &c)) TH_LOG("INIT: %s", strerror(errno));
	ASSERT_EQ(0, attach(self->fd2, &self->a));
	self->m = mmap(NULL, self->a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->fd2, self->a.producer_offset);
	ASSERT_NE(MAP_FAILED, self->m);
	self->ctl = (void *)self->m;
	self->h = map_header(self->fd2, self->a.buffer_id);
	ASSERT_NE(NULL, self->h);
	ASSERT_EQ(self->ncpus + 1, drain(self->fd, p, 512));
}

FIXTURE_TEARDOWN(stream)
{
	ioctl(self->fd, FXTRACE_IOC_TERMINATE);
	close(self->fd);
	close(self->fd2);
	end_leftover();
}

/* The producer fills `bytes` of half (wrap & 1) and switches halves. */
static void fill_half(FIXTURE_DATA(stream) *self, __u64 wrap, __u64 bytes)
{
	__u64 *half = (__u64 *)(self->m + PG + self->h->durable_size +
				(wrap & 1) * self->h->rolling_size);
	__u64 i;

	for (i = 0; i < bytes / 8 && i < self->h->rolling_size / 8; i++)
		half[i] = fxt_record_hdr(FXT_REC_METADATA, 1) | fxt_field(wrap, 32, 47);
	self->ctl->rolling_committed[wrap & 1] = bytes;
	self->ctl->rolling_committed[(wrap + 1) & 1] = 0;
	self->ctl->wrap_count = wrap + 1;
}

TEST_F(stream, save_and_ack)
{
	struct fxtrace_packet p[4], two[2];
	__u32 id = self->a.buffer_id;

	/* Round 1: half 0. */
	fill_half(self, 0, 32);
	ASSERT_EQ(0, buffer_full(self->fd2, id, 0)) TH_LOG("BUFFER_FULL: %s", strerror(errno));
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_PKT(p[0], FXTRACE_PKT_SAVE_BUFFER, 0, id, 0);
	ASSERT_EQ(1, self->h->requested_wraps);
	ASSERT_EQ(0, self->h->saved_wraps);
	ASSERT_EQ(32, self->h->rolling_committed[0]);
	ASSERT_EQ(self->h->durable_reserved, self->h->durable_committed);

	/* One save at a time, and only of the requested wrap. */
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, id, 0));
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, id, 1));
	ASSERT_ERRNO(ENOENT, buffer_full(self->fd2, NO_ID, 1));
	ASSERT_EQ(0, drain(self->fd, p, 4));

	/* Acks must echo the request. */
	ASSERT_ERRNO(EINVAL, ack(self->fd, 1, id, 0));		/* part */
	ASSERT_ERRNO(EINVAL, ack(self->fd, 1, id, 1));		/* wrap */
	ASSERT_ERRNO(EINVAL, ack(self->fd, 0, NO_ID, 0));	/* id */
	ASSERT_ERRNO(EINVAL, ack(self->fd, 0, 1, 0));		/* CPU buffer */
	p[0] = (struct fxtrace_packet){ .request = FXTRACE_PKT_SAVE_BUFFER, .data32 = id };
	ASSERT_ERRNO(EINVAL, write(self->fd, p, 16));		/* request */
	p[0].request = FXTRACE_PKT_BUFFER_SAVED;
	ASSERT_ERRNO(EINVAL, write(self->fd, p, 15));
	ASSERT_ERRNO(EINVAL, write(self->fd, p, 17));
	ASSERT_ERRNO(EPERM, ack(self->fd2, 0, id, 0));
	ASSERT_EQ(0, self->h->saved_wraps);

	ASSERT_EQ(16, ack(self->fd, 0, id, 0));
	ASSERT_EQ(1, self->h->saved_wraps);
	ASSERT_EQ(1, self->h->requested_wraps);
	ASSERT_ERRNO(EINVAL, ack(self->fd, 0, id, 0));		/* repeated */
	ASSERT_EQ(1, self->h->saved_wraps);

	/* Round 2: half 1, wrap 1. */
	fill_half(self, 1, 24);
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, id, 0));
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, id, 2));
	ASSERT_EQ(0, buffer_full(self->fd2, id, 1));
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_PKT(p[0], FXTRACE_PKT_SAVE_BUFFER, 1, id, 1);
	ASSERT_EQ(2, self->h->requested_wraps);
	ASSERT_EQ(24, self->h->rolling_committed[1]);
	ASSERT_ERRNO(EINVAL, ack(self->fd, 0, id, 1));		/* part */
	ASSERT_ERRNO(EINVAL, ack(self->fd, 1, id, 3));		/* wrap */
	ASSERT_EQ(16, ack(self->fd, 1, id, 1));
	ASSERT_EQ(2, self->h->saved_wraps);

	/* Round 3: a good ack then a bad one in one write: 16. */
	fill_half(self, 2, 8);
	ASSERT_EQ(0, buffer_full(self->fd2, id, 2));
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_PKT(p[0], FXTRACE_PKT_SAVE_BUFFER, 0, id, 2);
	ASSERT_EQ(8, self->h->rolling_committed[0]);
	two[0] = (struct fxtrace_packet){ .request = FXTRACE_PKT_BUFFER_SAVED,
					  .data16 = 0, .data32 = id, .data64 = 2 };
	two[1] = two[0];
	ASSERT_EQ(16, write(self->fd, two, sizeof(two)));
	ASSERT_EQ(3, self->h->saved_wraps);
	ASSERT_EQ(3, self->h->requested_wraps);
}

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* save_requested_ns (ABI 0.5): the time of BUFFER_FULL's request, kept. */
TEST_F(stream, save_requested_ns)
{
	struct fxtrace_packet p[4];
	__u32 id = self->a.buffer_id;
	__u64 before, after, first;

	ASSERT_EQ(sizeof(struct fxtrace_buffer_header), self->h->header_size);
	ASSERT_EQ(0, self->h->save_requested_ns);

	fill_half(self, 0, 16);
	before = monotonic_ns();
	ASSERT_EQ(0, buffer_full(self->fd2, id, 0));
	after = monotonic_ns();
	first = self->h->save_requested_ns;
	ASSERT_LE(before, first);
	ASSERT_GE(after, first);
	ASSERT_EQ(1, drain(self->fd, p, 4));

	/* Refused requests leave it as it was. */
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, id, 0));
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, id, 1));
	ASSERT_EQ(first, self->h->save_requested_ns);
	ASSERT_EQ(16, ack(self->fd, 0, id, 0));
	ASSERT_EQ(first, self->h->save_requested_ns);

	usleep(2000);
	fill_half(self, 1, 16);
	before = monotonic_ns();
	ASSERT_EQ(0, buffer_full(self->fd2, id, 1));
	after = monotonic_ns();
	ASSERT_LE(before, self->h->save_requested_ns);
	ASSERT_GE(after, self->h->save_requested_ns);
	ASSERT_LE(first + 2000000, self->h->save_requested_ns);
}

TEST_F(stream, clamp)
{
	__u32 id = self->a.buffer_id;

	fill_half(self, 0, 64);
	self->ctl->rolling_committed[0] = 1ULL << 40;	/* a lie */
	self->ctl->durable_committed = ~0ULL;
	ASSERT_EQ(0, buffer_full(self->fd2, id, 0));
	ASSERT_EQ(self->h->rolling_size, self->h->rolling_committed[0]);
	ASSERT_EQ(self->h->durable_size, self->h->durable_committed);
	ASSERT_EQ(1, self->h->requested_wraps);
}

TEST_F(stream, buffer_full_errors)
{
	struct fxtrace_buffer_full f;
	__u32 id = self->a.buffer_id;
	pid_t pid;

	fill_half(self, 0, 32);

	/* Another process holding the fd. */
	pid = fork();
	if (pid == 0)
		_exit(buffer_full(self->fd2, id, 0) == -1 && errno == EACCES ? 0 : 1);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, self->h->requested_wraps);

	/* CPU buffers are the kernel's. */
	ASSERT_ERRNO(EACCES, buffer_full(self->fd2, 1, 0));
	ASSERT_ERRNO(ENOENT, buffer_full(self->fd2, NO_ID, 0));
	f = (struct fxtrace_buffer_full){ .size = FXTRACE_BUFFER_FULL_SIZE_V0 - 1,
					  .buffer_id = id };
	ASSERT_ERRNO(EINVAL, ioctl(self->fd2, FXTRACE_IOC_BUFFER_FULL, &f));

	/* Retired. */
	ASSERT_EQ(0, munmap(self->m, self->a.producer_size));
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, self->h->state);
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, id, 0));
	ASSERT_EQ(0, self->h->requested_wraps);
}

/* An ack for a buffer released meanwhile is refused. */
TEST_F(stream, ack_released)
{
	struct fxtrace_packet p[4];
	__u32 id = self->a.buffer_id;

	fill_half(self, 0, 16);
	ASSERT_EQ(0, buffer_full(self->fd2, id, 0));
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_PKT(p[0], FXTRACE_PKT_SAVE_BUFFER, 0, id, 0);
	ASSERT_EQ(0, munmap(self->m, self->a.producer_size));
	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 1000));
	ASSERT_RETIRED(p[0], id);
	ASSERT_EQ(0, release_buffer(self->fd, id));
	ASSERT_ERRNO(EINVAL, ack(self->fd, 0, id, 0));
}

/*
 * CPU buffers in streaming mode: the kernel's writer requests the save of a
 * full half (SAVE_BUFFER), drops until the ack, then goes on.
 */
static int next_save(int fd, __u32 id, struct fxtrace_packet *p, int timeout_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int i;

		for (i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		while (next_pkt(fd, p, 0) == 0) {
			if (p->request == FXTRACE_PKT_SAVE_BUFFER && (!id || p->data32 == id))
				return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >
		    timeout_ms)
			return -1;
	}
}

TEST_F_TIMEOUT(nosess, cpu_streaming, 60)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_config c;
	struct fxtrace_buffer_info bi;
	struct fxtrace_packet p;
	cpu_set_t set;
	__u64 t0;
	__u32 id;
	int i;

	static const char syscalls[] = "kernel:syscall";

	config_init(&c, FXTRACE_MODE_STREAMING);
	c.cpu_buffer_size = FXTRACE_BUFFER_SIZE_MIN;
	/* Kernel categories are on only when named. */
	c.categories = (__u64)(uintptr_t)syscalls;
	c.categories_size = sizeof(syscalls);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	drain_init(_metadata, self->fd, self->ncpus);
	/* Run on one CPU, the one of buffer 1. */
	ASSERT_EQ(0, buffer_info(self->fd, 1, &bi));
	h = map_part(self->fd, 1, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, h);
	CPU_ZERO(&set);
	CPU_SET(h->cpu, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	id = 1;

	t0 = monotonic_ns();
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(0, next_save(self->fd, id, &p, 20000)) TH_LOG("no SAVE_BUFFER for cpu%u", h->cpu);
	/* The kernel's writer stamped its request, on the same clock. */
	ASSERT_LE(t0, h->save_requested_ns);
	ASSERT_GE(monotonic_ns(), h->save_requested_ns);
	ASSERT_PKT(p, FXTRACE_PKT_SAVE_BUFFER, 0, id, 0);
	ASSERT_EQ(1, h->requested_wraps);
	ASSERT_EQ(0, h->saved_wraps);
	ASSERT_EQ(1, h->wrap_count);
	ASSERT_GE(h->rolling_size, h->rolling_committed[0]);
	ASSERT_LT(h->rolling_size - PG, h->rolling_committed[0]);

	/* Half 1 fills; no switch before the ack: drops. */
	for (i = 0; i < 200 && !__atomic_load_n(&h->dropped_records, __ATOMIC_ACQUIRE); i++)
		ASSERT_NE(0, next_save(self->fd, id, &p, 10)) TH_LOG("SAVE_BUFFER before the ack");
	ASSERT_NE(0, h->dropped_records) TH_LOG("half 1 never filled");
	ASSERT_EQ(1, h->wrap_count);
	ASSERT_EQ(1, h->requested_wraps);
	ASSERT_LE(h->rolling_size - PG, h->rolling_committed[1]);

	ASSERT_EQ(16, ack(self->fd, 0, id, 0));
	ASSERT_EQ(1, h->saved_wraps);
	ASSERT_EQ(0, next_save(self->fd, id, &p, 20000));
	ASSERT_PKT(p, FXTRACE_PKT_SAVE_BUFFER, 1, id, 1);
	ASSERT_EQ(2, h->requested_wraps);
	ASSERT_EQ(2, h->wrap_count);
}

TEST_F(sess, buffer_full_not_streaming)
{
	struct fxtrace_attach a;
	struct fxtrace_buffer_control *ctl;
	const struct fxtrace_buffer_header *h;

	ASSERT_EQ(0, attach(self->fd2, &a));
	ctl = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		   a.producer_offset);
	ASSERT_NE(MAP_FAILED, ctl);
	h = map_header(self->fd2, a.buffer_id);
	ASSERT_NE(NULL, h);
	ctl->rolling_committed[0] = 16;
	ctl->wrap_count = 1;
	ASSERT_ERRNO(EINVAL, buffer_full(self->fd2, a.buffer_id, 0));
	ASSERT_EQ(0, h->requested_wraps);
	ASSERT_EQ(0, h->rolling_committed[0]);
}

TEST_F(nosess, buffer_full_no_session)
{
	ASSERT_ERRNO(ENOENT, buffer_full(self->fd, 1, 0));
}

TEST_HARNESS_MAIN
