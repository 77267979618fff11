// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of the controller's packets: INIT/Start/Stop packets, read()
 * and poll() and their errors, a partly writable destination, a signal
 * while the destination is faulted in, a blocking read woken, a full
 * packet queue, reads through io_uring.
 *
 * The contract is uapi/linux/fxtrace.h and Documentation/uapi.rst; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).  Each test
 * ends the session it created; a session left by a crashed test is adopted
 * and terminated by the next fixture setup.  Helpers and the fixtures
 * nosess and sess: hostile.h.
 */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <linux/io_uring.h>
#include <linux/userfaultfd.h>

#include "hostile.h"

/* ---- 4. packets --------------------------------------------------------- */

TEST_F(sess, packets_init)
{
	struct fxtrace_packet p[512];
	struct fxtrace_buffer_info bi;
	__u64 seen = 0;
	int i, n;

	ASSERT_LE(self->ncpus, 64);
	n = drain(self->fd, p, 512);
	ASSERT_EQ(self->ncpus, n);
	for (i = 0; i < n; i++) {
		ASSERT_ADDED(p[i], FXTRACE_BUFFER_CPU, p[i].data32);
		ASSERT_LE(1, p[i].data32);
		ASSERT_GE(self->ncpus, p[i].data32);
		ASSERT_EQ(0, seen & (1ULL << p[i].data32)) TH_LOG("id %u twice", p[i].data32);
		seen |= 1ULL << p[i].data32;
	}
	ASSERT_ERRNO(EAGAIN, read(self->fd, p, sizeof(p)));

	/* BUFFER_INFO enumerates the same buffers. */
	for (i = 1, n = 0; buffer_info(self->fd, i, &bi) == 0; i = bi.id + 1, n++) {
		ASSERT_EQ(i, bi.id);
		ASSERT_EQ(FXTRACE_BUFFER_CPU, bi.kind);
		ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, bi.state);
		ASSERT_EQ(FXTRACE_MMAP_OFFSET(bi.id, FXTRACE_MMAP_READER), bi.reader_offset);
		ASSERT_EQ(2 * PG + DATA_SIZE, bi.reader_size);
	}
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(self->ncpus, n);
}

TEST_F(sess, packets_start_stop)
{
	struct fxtrace_packet p[8];
	struct fxtrace_session_info si;
	__u32 kid = self->ncpus + 1;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(2, drain(self->fd, p, 8));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_KERNEL, kid);
	ASSERT_PKT(p[1], FXTRACE_PKT_STARTED, 0, FXTRACE_PACKET_VERSION, 1);

	/* The KERNEL buffer takes task names until Stop retires it. */
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(2, drain(self->fd, p, 8));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_RETIRED(p[0], kid);
	ASSERT_PKT(p[1], FXTRACE_PKT_STOPPED, 0, 0, si.dropped_records);

	/* Another Start: another KERNEL buffer, start_seq 2. */
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_RETAIN));
	ASSERT_EQ(2, drain(self->fd, p, 8));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_KERNEL, kid + 1);
	ASSERT_PKT(p[1], FXTRACE_PKT_STARTED, 0, FXTRACE_PACKET_VERSION, 2);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->ncpus + 2, si.nr_buffers);
}

TEST_F(sess, read_errors)
{
	struct fxtrace_packet p[4];
	char buf[40];

	ASSERT_ERRNO(EINVAL, read(self->fd, buf, 15));
	ASSERT_ERRNO(EINVAL, read(self->fd, buf, 1));
	ASSERT_ERRNO(EINVAL, read(self->fd, buf, 0));

	/* Whole packets only: 40 bytes get two when two are queued. */
	ASSERT_LE(2, self->ncpus);
	ASSERT_EQ(32, read(self->fd, buf, 40));
	drain(self->fd, p, 4);
	ASSERT_ERRNO(EAGAIN, read(self->fd, buf, 16));
	ASSERT_ERRNO(EINVAL, read(self->fd, buf, 15));
}

/*
 * A destination that is only partly writable: the packets that fit in the
 * writable part are read, the others stay; none writable is EFAULT, and
 * nothing leaves the queue.
 */
TEST_F(sess, read_partly_writable)
{
	struct fxtrace_packet p[4];
	char *m;

	ASSERT_LE(2, self->ncpus);
	m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, mprotect(m + PG, PG, PROT_NONE));
	ASSERT_ERRNO(EFAULT, read(self->fd, m + PG, 16));
	ASSERT_ERRNO(EFAULT, read(self->fd, m + PG - 8, 32));
	/* Two queued, room for one: the first is read, the second stays. */
	ASSERT_EQ(16, read(self->fd, m + PG - 16, 32));
	memcpy(p, m + PG - 16, 16);
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_CPU, 1);
	ASSERT_EQ(16, read(self->fd, p, 16));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_CPU, 2);
	munmap(m, 2 * PG);
}

/*
 * The destination faults in a userfaultfd range: its handler makes a
 * signal pending for the reader, then resolves the fault.
 */
struct uffd_signaller {
	int uffd;
	pthread_t reader;
	char *page;
	int err;
};

static void *uffd_signal_then_copy(void *arg)
{
	struct uffd_signaller *u = arg;
	struct pollfd pfd = { .fd = u->uffd, .events = POLLIN };
	struct uffdio_copy copy;
	struct uffd_msg msg;
	static char src[PG] __attribute__((aligned(PG)));

	if (poll(&pfd, 1, 10000) != 1 || read(u->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		u->err = errno ?: EIO;
		return NULL;
	}
	/* Pending before the fault-in returns: the reader is asleep in it. */
	pthread_kill(u->reader, SIGUSR1);
	copy = (struct uffdio_copy){
		.dst = (uintptr_t)u->page, .src = (uintptr_t)src, .len = PG,
	};
	if (ioctl(u->uffd, UFFDIO_COPY, &copy))
		u->err = errno;
	return NULL;
}

static void on_sigusr1(int sig)
{
}

/*
 * A blocking read whose copy faults, with a signal pending once the fault
 * is resolved, ends with EINTR (no SA_RESTART) before it retries, and
 * consumes nothing: a destination that keeps faulting (MADV_DONTNEED in a
 * loop by another thread) cannot hold it in the retry loop against
 * anything but SIGKILL.
 */
TEST_F(sess, read_fault_in_signal)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };	/* no SA_RESTART */
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffd_signaller u = { .reader = pthread_self() };
	struct fxtrace_packet p[64];
	pthread_t t;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	u.uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (u.uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(u.uffd, UFFDIO_API, &api));
	u.page = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, u.page);
	reg = (struct uffdio_register){
		.range = { .start = (uintptr_t)u.page, .len = PG },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	ASSERT_EQ(0, ioctl(u.uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, 0));	/* a blocking fd */
	ASSERT_EQ(0, pthread_create(&t, NULL, uffd_signal_then_copy, &u));

	ASSERT_ERRNO(EINTR, read(self->fd, u.page, 16));
	pthread_join(t, NULL);
	ASSERT_EQ(0, u.err) TH_LOG("uffd handler: %s", strerror(u.err));

	/* Nothing was consumed: INIT's packets are all still queued. */
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(self->ncpus, drain(self->fd, p, 64));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_CPU, 1);
	munmap(u.page, PG);
	close(u.uffd);
}

TEST_F(sess, poll_events)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN | POLLOUT };
	struct fxtrace_packet p[8];

	ASSERT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(POLLIN | POLLOUT, pfd.revents);
	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(POLLOUT, pfd.revents);
	pfd.events = POLLIN;
	ASSERT_EQ(0, poll(&pfd, 1, 50));

	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	pfd.events = POLLIN | POLLOUT;
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(POLLIN | POLLOUT, pfd.revents);
	ASSERT_EQ(2, drain(self->fd, p, 8));
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(POLLOUT, pfd.revents);
}

struct reader {
	int fd;
	volatile int done;
	ssize_t ret;
	int err;
	struct fxtrace_packet p[8];
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;

	r->ret = read(r->fd, r->p, sizeof(r->p));
	r->err = errno;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

TEST_F(sess, blocking_read_woken)
{
	struct reader r = { .fd = self->fd };
	struct fxtrace_packet p[8];
	pthread_t t;
	int i, n;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, reader_fn, &r));
	usleep(200000);
	ASSERT_EQ(0, __atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) TH_LOG("read did not block");

	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	for (i = 0; i < 500 && !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	ASSERT_EQ(1, r.done) TH_LOG("read was not woken by a packet");
	pthread_join(t, NULL);
	ASSERT_LE(16, r.ret) TH_LOG("read: %s", strerror(r.err));
	ASSERT_EQ(0, r.ret % 16);
	ASSERT_ADDED(r.p[0], FXTRACE_BUFFER_KERNEL, self->ncpus + 1);

	/* The rest of START's packets follow. */
	n = r.ret / 16;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	memcpy(p, r.p, r.ret);
	n += drain(self->fd, p + n, 8 - n);
	ASSERT_EQ(2, n);
	ASSERT_PKT(p[1], FXTRACE_PKT_STARTED, 0, FXTRACE_PACKET_VERSION, 1);
}

/* A full packet queue drops (and counts) what does not fit. */
TEST_F(nosess, packet_queue_overflow)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	struct fxtrace_packet p[256];
	int cap = 3 * (self->ncpus + 1) + 64, produced, n;

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.max_task_buffers = 1;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_LE(cap, 256);
	produced = self->ncpus;
	while (produced < cap + 5) {
		ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
		ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
		produced += 4;
	}
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(produced - cap, si.lost_packets);
	n = drain(self->fd, p, 256);
	ASSERT_EQ(cap, n);
	ASSERT_EQ(FXTRACE_PKT_BUFFER_ADDED, p[0].request);
	ASSERT_EQ(FXTRACE_PKT_BUFFER_ADDED, p[self->ncpus].request);
	ASSERT_EQ(FXTRACE_BUFFER_KERNEL, p[self->ncpus].data16);
	ASSERT_PKT(p[self->ncpus + 1], FXTRACE_PKT_STARTED, 0, FXTRACE_PACKET_VERSION, 1);

	/* Room again. */
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(2, drain(self->fd, p, 256));
	ASSERT_EQ(FXTRACE_PKT_STARTED, p[1].request);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(produced - cap, si.lost_packets);
}

/* ---- 11. io_uring ------------------------------------------------------- */

struct uring {
	int fd;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static int uring_setup(struct uring *u)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	memset(u, 0, sizeof(*u));
	u->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (u->fd < 0)
		return -1;
	u->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	u->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	u->sq = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     u->fd, IORING_OFF_SQ_RING);
	u->cq = mmap(NULL, u->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		       IORING_OFF_SQES);
	if (u->sq == MAP_FAILED || u->cq == MAP_FAILED || u->sqes == MAP_FAILED)
		return -1;
	u->sq_tail = (void *)((char *)u->sq + p.sq_off.tail);
	u->sq_mask = (void *)((char *)u->sq + p.sq_off.ring_mask);
	u->sq_array = (void *)((char *)u->sq + p.sq_off.array);
	u->cq_head = (void *)((char *)u->cq + p.cq_off.head);
	u->cq_tail = (void *)((char *)u->cq + p.cq_off.tail);
	u->cq_mask = (void *)((char *)u->cq + p.cq_off.ring_mask);
	u->cqes = (void *)((char *)u->cq + p.cq_off.cqes);
	return 0;
}

static int uring_read(struct uring *u, int fd, void *buf, unsigned int len)
{
	unsigned int tail = *u->sq_tail, idx = tail & *u->sq_mask;
	struct io_uring_sqe *sqe = &u->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->off = -1;
	sqe->user_data = 42;
	u->sq_array[idx] = idx;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(__NR_io_uring_enter, u->fd, 1, 0, 0, NULL, 0);
}

/* The completion, if any, after waiting up to min_complete. */
static struct io_uring_cqe *uring_cqe(struct uring *u, int wait)
{
	unsigned int head = *u->cq_head;

	if (wait)
		syscall(__NR_io_uring_enter, u->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE))
		return NULL;
	return &u->cqes[head & *u->cq_mask];
}

/* Threads of this process named iou-wrk-*. */
static int iou_workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		read_comm(path, comm, sizeof(comm));
		if (!strncmp(comm, "iou-wrk", 7))
			n++;
	}
	closedir(d);
	return n;
}

TEST_F(sess, io_uring_read)
{
	struct fxtrace_packet p[8], got = { 0 };
	struct io_uring_cqe *cqe;
	struct uring u;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, 0));	/* a blocking fd */
	if (uring_setup(&u))
		SKIP(return, "io_uring: %s", strerror(errno));
	ASSERT_EQ(1, uring_read(&u, self->fd, &got, sizeof(got)));
	usleep(100000);
	ASSERT_EQ(NULL, uring_cqe(&u, 0));
	ASSERT_EQ(0, iou_workers());

	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	cqe = uring_cqe(&u, 1);
	ASSERT_NE(NULL, cqe);
	ASSERT_EQ(42, cqe->user_data);
	ASSERT_EQ(16, cqe->res);
	ASSERT_ADDED(got, FXTRACE_BUFFER_KERNEL, self->ncpus + 1);
	ASSERT_EQ(0, iou_workers());

	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(1, drain(self->fd, p, 8));
	ASSERT_EQ(FXTRACE_PKT_STARTED, p[0].request);
	close(u.fd);
}

TEST_HARNESS_MAIN
