// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of a thread's buffers per file (ABI 0.7): each copy of
 * libfxtrace in a process opens its own file of /dev/fxtrace, and a thread
 * has a buffer through each, up to FXTRACE_ATTACH_FILES_MAX; EEXIST means
 * "already attached through this file".
 *
 * The contract is uapi/linux/fxtrace.h and Documentation/uapi.rst; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded.  Helpers and the fixture sess: hostile.h.
 */

#include "hostile.h"

TEST(version_feature)
{
	struct fxtrace_version v = { .size = sizeof(v) };
	int fd;

	FXT_SELFTEST_REQUIRE_DEVICE();
	fd = dev_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_VERSION, &v));
	ASSERT_EQ(9, v.abi_minor);
	ASSERT_EQ(FXTRACE_FEATURE_SESSIONS | FXTRACE_FEATURE_ATTACH_PER_FILE |
		  FXTRACE_FEATURE_ATTACH_PID_FILTER, v.features);
	close(fd);
}

TEST_F(sess, per_file)
{
	struct fxtrace_attach a, b, c;
	struct fxtrace_packet p[4];
	__u32 id = self->ncpus + 1;

	drain_init(_metadata, self->fd, self->ncpus);
	/* A buffer through fd2, then EEXIST through fd2 again. */
	ASSERT_EQ(0, attach(self->fd2, &a));
	ASSERT_EQ(id, a.buffer_id);
	ASSERT_ERRNO(EEXIST, attach(self->fd2, &c));
	/* Another file: a second buffer of the same thread. */
	ASSERT_EQ(0, attach(self->fd, &b));
	ASSERT_EQ(id + 1, b.buffer_id);
	ASSERT_EQ(a.tid, b.tid);
	ASSERT_EQ(a.pid, b.pid);
	ASSERT_ERRNO(EEXIST, attach(self->fd, &c));
	ASSERT_ERRNO(EEXIST, attach(self->fd2, &c));
	ASSERT_EQ(2, drain(self->fd, p, 4));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, id);
	ASSERT_ADDED(p[1], FXTRACE_BUFFER_TASK, id + 1);
}

/* One mapping's munmap retires its buffer only, not the thread's other. */
TEST_F(sess, retire_one_file)
{
	const struct fxtrace_buffer_header *ha, *hb;
	struct fxtrace_attach a, b, c;
	struct fxtrace_packet p[4];
	void *ma, *mb;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, attach(self->fd2, &a));
	ASSERT_EQ(0, attach(self->fd, &b));
	ha = map_header(self->fd2, a.buffer_id);
	hb = map_header(self->fd, b.buffer_id);
	ASSERT_NE(NULL, ha);
	ASSERT_NE(NULL, hb);
	ma = map_part(self->fd2, a.buffer_id, FXTRACE_MMAP_PRODUCER, a.producer_size,
		      PROT_READ | PROT_WRITE);
	mb = map_part(self->fd, b.buffer_id, FXTRACE_MMAP_PRODUCER, b.producer_size,
		      PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, ma);
	ASSERT_NE(MAP_FAILED, mb);
	ASSERT_EQ(2, drain(self->fd, p, 4));

	ASSERT_EQ(0, munmap(ma, a.producer_size));
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, ha->state);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, hb->state);
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_RETIRED(p[0], a.buffer_id);
	/* fd2 can attach the thread again, fd still says EEXIST. */
	ASSERT_EQ(0, attach(self->fd2, &c));
	ASSERT_EQ(b.buffer_id + 1, c.buffer_id);
	ASSERT_ERRNO(EEXIST, attach(self->fd, &c));
	ASSERT_EQ(0, munmap(mb, b.producer_size));
}

/* FXTRACE_ATTACH_FILES_MAX files: one more is EMFILE, far more too. */
TEST_F(sess, files_max)
{
	int fds[FXTRACE_ATTACH_FILES_MAX + 4];
	const int n = sizeof(fds) / sizeof(fds[0]);
	struct fxtrace_attach a[FXTRACE_ATTACH_FILES_MAX + 4], scratch;
	struct fxtrace_packet p[16];
	struct producer thr;
	void *m;
	int i;

	drain_init(_metadata, self->fd, self->ncpus);
	for (i = 0; i < n; i++) {
		fds[i] = dev_open(0);
		ASSERT_LE(0, fds[i]);
	}
	for (i = 0; i < FXTRACE_ATTACH_FILES_MAX; i++)
		ASSERT_EQ(0, attach(fds[i], &a[i])) TH_LOG("file %d: %s", i, strerror(errno));
	/* One past the bound, and the others past it. */
	for (i = FXTRACE_ATTACH_FILES_MAX; i < n; i++)
		ASSERT_ERRNO(EMFILE, attach(fds[i], &scratch));
	/* Through a file it holds a buffer of: EEXIST comes first. */
	ASSERT_ERRNO(EEXIST, attach(fds[0], &scratch));
	ASSERT_EQ(FXTRACE_ATTACH_FILES_MAX, drain(self->fd, p, 16));

	/* One retired (its producer part mapped and unmapped): room for one. */
	m = map_part(fds[0], a[0].buffer_id, FXTRACE_MMAP_PRODUCER,
		     a[0].producer_size, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, munmap(m, a[0].producer_size));
	ASSERT_EQ(1, drain(self->fd, p, 16));
	ASSERT_RETIRED(p[0], a[0].buffer_id);
	ASSERT_EQ(0, attach(fds[FXTRACE_ATTACH_FILES_MAX], &a[FXTRACE_ATTACH_FILES_MAX]));
	ASSERT_ERRNO(EMFILE, attach(fds[FXTRACE_ATTACH_FILES_MAX + 1], &scratch));

	/* Another thread has its own bound. */
	ASSERT_EQ(0, producer_start(&thr, fds[n - 1], 0, NULL));
	ASSERT_EQ(0, thr.ret) TH_LOG("thread ATTACH: %s", strerror(thr.err));
	producer_stop(&thr);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * A buffer attached and never mapped stays attached after its file is
 * closed; a file opened after (perhaps at the same address) is another.
 */
TEST_F(sess, closed_file_not_reused)
{
	struct fxtrace_attach a, b;
	int fd;

	drain_init(_metadata, self->fd, self->ncpus);
	fd = dev_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, attach(fd, &a));
	ASSERT_EQ(0, close(fd));
	fd = dev_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, attach(fd, &b));
	ASSERT_EQ(a.buffer_id + 1, b.buffer_id);
	ASSERT_ERRNO(EEXIST, attach(fd, &b));
	close(fd);
}

/* The thread's exit retires every buffer it has, one per file. */
struct two_files {
	int fd[2];
	struct fxtrace_attach a[2];
	int ret[2];
};

static void *attach_two(void *arg)
{
	struct two_files *t = arg;

	t->ret[0] = attach(t->fd[0], &t->a[0]);
	t->ret[1] = attach(t->fd[1], &t->a[1]);
	return NULL;
}

TEST_F(sess, thread_exit_retires_all)
{
	struct two_files t = { .fd = { self->fd2, self->fd } };
	struct fxtrace_packet p[8];
	pthread_t thread;
	int i;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, pthread_create(&thread, NULL, attach_two, &t));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, t.ret[0]);
	ASSERT_EQ(0, t.ret[1]);
	ASSERT_EQ(t.a[0].tid, t.a[1].tid);
	/*
	 * Added twice, then retired twice, the later attach first (the
	 * hash chain's order): the exit's probe runs after exit_mm() wakes
	 * the join, so the packets may come later.
	 */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, next_pkt(self->fd, &p[i], 5000)) TH_LOG("packet %d", i);
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, t.a[0].buffer_id);
	ASSERT_ADDED(p[1], FXTRACE_BUFFER_TASK, t.a[1].buffer_id);
	ASSERT_RETIRED(p[2], t.a[1].buffer_id);
	ASSERT_RETIRED(p[3], t.a[0].buffer_id);
	ASSERT_EQ(0, drain(self->fd, p, 8));
}

/* A forked child attaches through the inherited file: its own thread. */
TEST_F(sess, fork_inherited_file)
{
	struct fxtrace_attach a;
	pid_t pid;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, attach(self->fd2, &a));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fxtrace_attach c;

		if (attach(self->fd2, &c))
			_exit(errno == EEXIST ? 2 : 3);
		if (c.pid != (__u32)getpid() || c.buffer_id != a.buffer_id + 1)
			_exit(4);
		if (attach(self->fd2, &c) == 0 || errno != EEXIST)
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
}

TEST_HARNESS_MAIN
