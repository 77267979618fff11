// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of retirement: a task buffer retires when its thread exits,
 * its producer part is unmapped or its process execs; Stop snapshots;
 * RELEASE_BUFFER.
 *
 * The contract is uapi/linux/fxtrace.h and Documentation/uapi.rst; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).  Each test
 * ends the session it created; a session left by a crashed test is adopted
 * and terminated by the next fixture setup.  Helpers and the fixtures
 * nosess and sess: hostile.h.
 */

#include "hostile.h"

/*
 * retire_reattach_exec runs this binary again in a child: the same thread,
 * from a new image, attaches once more ("<fd>:<id of its earlier buffer>").
 */
__attribute__((constructor)) static void reattach_child(void)
{
	const char *v = getenv("FXTRACE_TEST_REATTACH");
	struct fxtrace_attach a;
	unsigned int fd, id;

	if (!v)
		return;
	if (sscanf(v, "%u:%u", &fd, &id) != 2)
		_exit(20);
	if (attach(fd, &a))
		_exit(errno == EEXIST ? 21 : 22);
	if (a.buffer_id != id + 1 || a.tid != sys_gettid())
		_exit(23);
	_exit(0);
}

/* ---- 8. retirement ------------------------------------------------------ */

TEST_F(sess, retire_thread_exit)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_buffer_control *ctl;
	struct fxtrace_packet p[4];
	struct fxtrace_buffer_info bi;
	struct producer thr;
	__u64 reserved;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, producer_start(&thr, self->fd2, 1, NULL));
	ASSERT_EQ(0, thr.ret);
	ASSERT_NE(MAP_FAILED, thr.producer) TH_LOG("PRODUCER: %s", strerror(thr.err));
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, thr.a.buffer_id);
	h = map_header(self->fd, thr.a.buffer_id);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	reserved = h->durable_reserved;

	/* The producer's control page is snapshot (clamped) at retirement. */
	ctl = thr.producer;
	ctl->durable_committed = reserved + 16;
	ctl->rolling_committed[0] = 1ULL << 40;
	ctl->wrap_count = 0;
	producer_stop(&thr);

	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 5000)) TH_LOG("no packet after thread exit");
	ASSERT_RETIRED(p[0], thr.a.buffer_id);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
	ASSERT_EQ(reserved + 16, h->durable_committed);
	ASSERT_EQ(ROLLING_SIZE, h->rolling_committed[0]);
	ASSERT_EQ(0, buffer_info(self->fd, thr.a.buffer_id, &bi));
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, bi.state);
	ASSERT_ERRNO(EAGAIN, read(self->fd, p, 16));
}

TEST_F(sess, retire_munmap)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_attach a, b;
	struct fxtrace_packet p[4];
	void *m;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, attach(self->fd2, &a));
	h = map_header(self->fd2, a.buffer_id);
	ASSERT_NE(NULL, h);
	m = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		 a.producer_offset);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);

	ASSERT_EQ(0, munmap(m, a.producer_size));
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 1000));
	ASSERT_RETIRED(p[0], a.buffer_id);

	/* A retired buffer cannot be mapped for writing again. */
	ASSERT_MMAP_ERRNO(EACCES, mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE,
				       MAP_SHARED, self->fd2, a.producer_offset));
	/* The thread has no active buffer now: a new one, a new id. */
	ASSERT_EQ(0, attach(self->fd2, &b));
	ASSERT_EQ(a.buffer_id + 1, b.buffer_id);
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, b.buffer_id);
}

TEST_F(sess, retire_exec)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_packet p[4];
	__u32 id = 0;
	int pfd[2];
	pid_t pid;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach a;
		int fd = dev_open(0);

		close(pfd[0]);
		if (fd < 0 || attach(fd, &a))
			_exit(10);
		if (mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 a.producer_offset) == MAP_FAILED)
			_exit(11);
		if (write(pfd[1], &a.buffer_id, 4) != 4)
			_exit(12);
		execl("/bin/true", "true", (char *)NULL);
		_exit(13);
	}
	close(pfd[1]);
	ASSERT_EQ(4, read(pfd[0], &id, 4));
	close(pfd[0]);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(self->ncpus + 1, id);

	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 1000));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, id);
	ASSERT_EQ(0, next_pkt(self->fd, &p[1], 5000));
	ASSERT_RETIRED(p[1], id);
	h = map_header(self->fd, id);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
	ASSERT_EQ(pid, h->pid);
}

TEST_F(sess, retire_reattach_exec)
{
	const struct fxtrace_buffer_header *h1, *h2;
	struct fxtrace_packet p[4];
	int pfd[2], fd, added = 0, retired = 0, i;
	__u32 id = 0;
	pid_t pid;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach a;
		char env[64];

		close(pfd[0]);
		fd = open(FXTRACE_DEVICE, O_RDWR);	/* kept across exec */
		if (fd < 0 || attach(fd, &a))
			_exit(10);
		if (write(pfd[1], &a.buffer_id, 4) != 4)
			_exit(11);
		snprintf(env, sizeof(env), "%d:%u", fd, a.buffer_id);
		setenv("FXTRACE_TEST_REATTACH", env, 1);
		execl("/proc/self/exe", "retire_test", (char *)NULL);
		_exit(12);
	}
	close(pfd[1]);
	ASSERT_EQ(4, read(pfd[0], &id, 4));
	close(pfd[0]);
	ASSERT_EQ(0, wait_child(pid)) TH_LOG("20+: the re-attach after exec failed");

	/* ADDED(id); RETIRED(id) and ADDED(id + 1) in either order; RETIRED(id + 1). */
	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 1000));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, id);
	for (i = 1; i < 3; i++) {
		ASSERT_EQ(0, next_pkt(self->fd, &p[i], 5000));
		if (p[i].request == FXTRACE_PKT_BUFFER_ADDED) {
			ASSERT_ADDED(p[i], FXTRACE_BUFFER_TASK, id + 1);
			added++;
		} else {
			ASSERT_RETIRED(p[i], id);
			retired++;
		}
	}
	ASSERT_EQ(1, added);
	ASSERT_EQ(1, retired);
	ASSERT_EQ(0, next_pkt(self->fd, &p[3], 5000));
	ASSERT_RETIRED(p[3], id + 1);

	h1 = map_header(self->fd, id);
	h2 = map_header(self->fd, id + 1);
	ASSERT_NE(NULL, h1);
	ASSERT_NE(NULL, h2);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h1->state);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h2->state);
	ASSERT_EQ(pid, h1->pid);
	ASSERT_EQ(pid, h1->tid);
	ASSERT_EQ(pid, h2->pid);
	ASSERT_EQ(pid, h2->tid);
}

/* STOP snapshots each task buffer's control page, clamped, into its header. */
TEST_F(sess, stop_snapshot)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_buffer_control *ctl;
	struct fxtrace_attach a;
	__u64 reserved;

	ASSERT_EQ(0, attach(self->fd2, &a));
	ctl = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		   a.producer_offset);
	ASSERT_NE(MAP_FAILED, ctl);
	h = map_header(self->fd2, a.buffer_id);
	ASSERT_NE(NULL, h);
	reserved = h->durable_reserved;
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ctl->durable_committed = reserved + 24;
	ctl->rolling_committed[0] = 40;
	ctl->rolling_committed[1] = 1ULL << 40;
	ctl->wrap_count = 1;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	ASSERT_EQ(reserved + 24, h->durable_committed);
	ASSERT_EQ(40, h->rolling_committed[0]);
	ASSERT_EQ(ROLLING_SIZE, h->rolling_committed[1]);
	ASSERT_EQ(1, h->wrap_count);
	ASSERT_EQ(0, h->dropped_records);

	/* A durable lie is clamped to the durable part. */
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_RETAIN));
	ctl->durable_committed = 1ULL << 50;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(DURABLE_SIZE, h->durable_committed);
}

TEST_F(sess, release_buffer)
{
	struct fxtrace_attach a;
	struct fxtrace_buffer_info bi;
	struct fxtrace_session_info si;
	struct fxtrace_packet p[8];
	struct producer thr;
	__u32 kid;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, attach(self->fd2, &a));
	ASSERT_EQ(0, producer_start(&thr, self->fd2, 0, NULL));
	ASSERT_EQ(0, thr.ret);
	producer_stop(&thr);
	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 1000));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, a.buffer_id);
	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 1000));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, thr.a.buffer_id);
	ASSERT_EQ(0, next_pkt(self->fd, &p[1], 5000));
	ASSERT_RETIRED(p[1], thr.a.buffer_id);

	ASSERT_ERRNO(EBUSY, release_buffer(self->fd, a.buffer_id));	/* active */
	ASSERT_ERRNO(EBUSY, release_buffer(self->fd, 1));		/* CPU */
	ASSERT_ERRNO(ENOENT, release_buffer(self->fd, NO_ID));
	ASSERT_ERRNO(ENOENT, release_buffer(self->fd, 0));
	ASSERT_ERRNO(EPERM, release_buffer(self->fd2, thr.a.buffer_id));

	ASSERT_EQ(0, release_buffer(self->fd, thr.a.buffer_id));
	ASSERT_ERRNO(ENOENT, release_buffer(self->fd, thr.a.buffer_id));
	ASSERT_EQ(0, buffer_info(self->fd, a.buffer_id, &bi));
	ASSERT_EQ(a.buffer_id, bi.id);
	ASSERT_ERRNO(ENOENT, buffer_info(self->fd, thr.a.buffer_id, &bi));
	ASSERT_ERRNO(ENOENT, map_header(self->fd, thr.a.buffer_id) ? 0 : -1);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->ncpus + 1, si.nr_buffers);

	/* KERNEL buffers can be released too, once Stop retired them. */
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	kid = thr.a.buffer_id + 1;
	ASSERT_EQ(0, buffer_info(self->fd, kid, &bi));
	ASSERT_EQ(FXTRACE_BUFFER_KERNEL, bi.kind);
	ASSERT_ERRNO(EBUSY, release_buffer(self->fd, kid));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(0, release_buffer(self->fd, kid));
	ASSERT_ERRNO(ENOENT, buffer_info(self->fd, kid, &bi));
	ASSERT_ERRNO(EBUSY, release_buffer(self->fd, a.buffer_id));
}

TEST_HARNESS_MAIN
