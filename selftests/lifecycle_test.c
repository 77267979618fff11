// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of a session's life: INIT and its errors, Start/Stop/Terminate
 * errors, orphans and ADOPT (which revokes the former controller's
 * mappings).
 *
 * The contract is uapi/linux/fxtrace.h and Documentation/uapi.rst; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).  Each test
 * ends the session it created; a session left by a crashed test is adopted
 * and terminated by the next fixture setup.  Helpers and the fixtures
 * nosess and sess: hostile.h.
 */

#include <stdatomic.h>
#include <sys/uio.h>
#include <time.h>

#include "hostile.h"

/* ---- 1. INIT ------------------------------------------------------------ */

TEST_F(nosess, init_ok)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	int fd2 = dev_open(0);

	ASSERT_LE(0, fd2);
	config_init(&c, FXTRACE_MODE_CIRCULAR);
	c.filter_pid = getpid();
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));

	ASSERT_EQ(0, session_info(fd2, &si));
	ASSERT_EQ(sizeof(si), si.size);
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, si.state);
	ASSERT_EQ(0, si.flags);
	ASSERT_EQ(FXTRACE_MODE_CIRCULAR, si.mode);
	ASSERT_EQ(getuid(), si.owner_uid);
	ASSERT_EQ(self->ncpus, si.nr_buffers);
	ASSERT_EQ(self->ncpus * (2 * PG + DATA_SIZE), si.memory_used);
	ASSERT_EQ(module_memory_max(), si.memory_limit);
	ASSERT_EQ(0, si.dropped_records);
	ASSERT_EQ(0, si.lost_packets);

	/* A second session: neither from another fd nor from this one. */
	ASSERT_ERRNO(EBUSY, ioctl(fd2, FXTRACE_IOC_INIT, &c));
	ASSERT_ERRNO(EBUSY, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	close(fd2);

	/*
	 * TERMINATE: state NONE.  An fd controls one session in its life
	 * (its pollers wait on that session), so a new session needs a new fd.
	 */
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);
	ASSERT_ERRNO(EPERM, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	config_init(&c, FXTRACE_MODE_STREAMING);
	ASSERT_ERRNO(EBUSY, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, terminate_reopen_fd(&self->fd));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c))
		TH_LOG("INIT from a new fd: %s", strerror(errno));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, si.state);
	ASSERT_EQ(FXTRACE_MODE_STREAMING, si.mode);
}

TEST_F(nosess, init_size)
{
	struct {
		struct fxtrace_config c;
		__u64 future;
	} big;
	struct fxtrace_session_info si;

	config_init(&big.c, FXTRACE_MODE_ONESHOT);
	big.c.size = FXTRACE_CONFIG_SIZE_V0 - 1;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &big));
	big.c.size = 0;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &big));
	big.c.size = PG + 1;
	ASSERT_ERRNO(E2BIG, ioctl(self->fd, FXTRACE_IOC_INIT, &big));
	big.c.size = sizeof(big);
	big.future = 1;
	ASSERT_ERRNO(E2BIG, ioctl(self->fd, FXTRACE_IOC_INIT, &big));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);

	/* A larger struct with a zero tail is fine. */
	big.future = 0;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &big));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, si.state);
}

TEST_F(nosess, init_efault)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	char *map;

	ASSERT_ERRNO(EFAULT, ioctl(self->fd, FXTRACE_IOC_INIT, NULL));

	map = mmap(NULL, PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.categories = (uintptr_t)map;
	c.categories_size = 4;
	ASSERT_ERRNO(EFAULT, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	munmap(map, PG);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);
}

TEST_F(nosess, init_einval)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	struct {
		int field;	/* 0 cpu, 1 task */
		__u64 size;
	} bad[] = {
		{ 0, DATA_SIZE + 1 }, { 1, DATA_SIZE + 1 },
		{ 0, DATA_SIZE + 512 }, { 1, DATA_SIZE + 2048 },
		{ 0, FXTRACE_BUFFER_SIZE_MIN - PG }, { 1, FXTRACE_BUFFER_SIZE_MIN - PG },
		{ 0, 0 }, { 1, 0 },
		{ 0, FXTRACE_BUFFER_SIZE_MAX + PG }, { 1, FXTRACE_BUFFER_SIZE_MAX + PG },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_init(&c, FXTRACE_MODE_ONESHOT);
		if (bad[i].field)
			c.task_buffer_size = bad[i].size;
		else
			c.cpu_buffer_size = bad[i].size;
		ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_INIT, &c))
			TH_LOG("%s buffer size %llu", bad[i].field ? "task" : "cpu",
			       (unsigned long long)bad[i].size);
		ASSERT_EQ(EINVAL, errno);
	}

	config_init(&c, __FXTRACE_MODE_COUNT);
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	config_init(&c, ~0U);
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &c));

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.__reserved = 1;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &c));

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.max_task_buffers = FXTRACE_TASK_BUFFERS_MAX + 1;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &c));

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.memory_limit = module_memory_max() + PG;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &c));

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.categories_size = 4;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_INIT, &c));

	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);

	/* The bounds themselves are fine. */
	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.cpu_buffer_size = FXTRACE_BUFFER_SIZE_MIN;
	c.task_buffer_size = FXTRACE_BUFFER_SIZE_MAX;
	c.max_task_buffers = FXTRACE_TASK_BUFFERS_MAX;
	c.memory_limit = module_memory_max();
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, terminate_reopen(&self->fd));
	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.cpu_buffer_size = 2 * FXTRACE_BUFFER_SIZE_MIN;
	c.task_buffer_size = FXTRACE_BUFFER_SIZE_MIN;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c)) TH_LOG("%s", strerror(errno));
}

static int init_categories(int fd, const char *list, size_t len)
{
	struct fxtrace_config c;

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.categories = (uintptr_t)list;
	c.categories_size = len;
	return ioctl(fd, FXTRACE_IOC_INIT, &c);
}

TEST_F(nosess, init_bad_categories)
{
	struct fxtrace_start s = {
		.size = sizeof(s), .categories = (uintptr_t)"x", .categories_size = 2,
	};
	char name[128], *many;
	size_t i, len;
	const struct fxtrace_session_page *sp = map_session(self->fd);

	ASSERT_NE(NULL, sp);
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "abc", 3));		/* no NUL */
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "abc\0de", 6));	/* no NUL */
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "", 1));		/* empty */
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "a\0\0b", 5));	/* empty */
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "a b", 4));
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "ok\0a,b", 7));
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "a!", 3));
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, "caf\xc3\xa9", 6));

	memset(name, 'a', sizeof(name));
	name[101] = 0;
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, name, 102));	/* 101 bytes */
	ASSERT_EQ(FXTRACE_STATE_NONE, sp->state);

	/* 100 bytes and every allowed character are fine. */
	name[100] = 0;
	ASSERT_EQ(0, init_categories(self->fd, name, 101));
	ASSERT_EQ(1, sp->categories_count);
	ASSERT_EQ(0, terminate_reopen(&self->fd));
	ASSERT_EQ(0, init_categories(self->fd, "AZaz09_.:/*-", 13));
	ASSERT_EQ(0, terminate_reopen(&self->fd));

	/* 5001 names are too many, 5000 are fine. */
	many = malloc(6 * 5001);
	ASSERT_NE(NULL, many);
	for (i = 0, len = 0; i < 5001; i++)
		len += sprintf(many + len, "c%04zu", i) + 1;
	ASSERT_EQ(6 * 5001, len);
	ASSERT_ERRNO(EINVAL, init_categories(self->fd, many, len));
	ASSERT_EQ(FXTRACE_STATE_NONE, sp->state);
	ASSERT_EQ(0, init_categories(self->fd, many, len - 6));
	ASSERT_EQ(FXTRACE_CATEGORIES_MAX, sp->categories_count);
	ASSERT_EQ(len - 6, sp->categories_size);
	ASSERT_EQ(0, memcmp((const char *)sp + sp->categories_offset, many, len - 6));

	/* START adding one more: ENOSPC, nothing changes. */
	free(many);
	ASSERT_ERRNO(ENOSPC, ioctl(self->fd, FXTRACE_IOC_START, &s));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, sp->state);
	ASSERT_EQ(FXTRACE_CATEGORIES_MAX, sp->categories_count);
}

TEST_F(nosess, init_esrch)
{
	struct fxtrace_config c;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, wait_child(pid));

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.filter_pid = pid;	/* reaped */
	ASSERT_ERRNO(ESRCH, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	c.filter_pid = 1U << 30;	/* above any pid_max */
	ASSERT_ERRNO(ESRCH, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	c.filter_pid = 1;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
}

TEST_F(nosess, init_enospc)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	struct fxtrace_attach a;
	__u64 need = self->ncpus * (2 * PG + DATA_SIZE);

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.memory_limit = need - PG;
	ASSERT_ERRNO(ENOSPC, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	c.memory_limit = PG;
	ASSERT_ERRNO(ENOSPC, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);

	c.memory_limit = need;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(need, si.memory_limit);
	ASSERT_EQ(need, si.memory_used);

	/* No room for a task buffer. */
	ASSERT_ERRNO(ENOSPC, attach(self->fd, &a));
}

TEST_F(nosess, init_eperm)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	pid_t pid;

	config_init(&c, FXTRACE_MODE_ONESHOT);
	pid = fork();
	if (pid == 0) {
		int fd;

		if (drop_caps())
			_exit(10);
		fd = dev_open(0);
		if (fd < 0)
			_exit(11);
		if (ioctl(fd, FXTRACE_IOC_INIT, &c) != -1)
			_exit(12);
		if (errno != EPERM)
			_exit(13);
		if (session_info(fd, &si) || si.state != FXTRACE_STATE_NONE)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);

	/* Dropping to another uid loses every capability too. */
	pid = fork();
	if (pid == 0) {
		int fd = dev_open(0);

		if (fd < 0 || setresuid(65534, 65534, 65534))
			_exit(10);
		if (ioctl(fd, FXTRACE_IOC_INIT, &c) != -1)
			_exit(12);
		_exit(errno == EPERM ? 0 : 13);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);
}

/* ---- 3. lifecycle ------------------------------------------------------- */

TEST_F(sess, non_controller_eperm)
{
	struct fxtrace_buffer_info bi;
	struct fxtrace_session_info si;
	struct fxtrace_packet p = { .request = FXTRACE_PKT_BUFFER_SAVED };
	char buf[64];

	ASSERT_ERRNO(EPERM, start_session(self->fd2, FXTRACE_START_CLEAR_ALL));
	ASSERT_ERRNO(EPERM, ioctl(self->fd2, FXTRACE_IOC_STOP));
	ASSERT_ERRNO(EPERM, ioctl(self->fd2, FXTRACE_IOC_TERMINATE));
	ASSERT_ERRNO(EPERM, buffer_info(self->fd2, 1, &bi));
	ASSERT_ERRNO(EPERM, release_buffer(self->fd2, 1));
	ASSERT_ERRNO(EPERM, read(self->fd2, buf, sizeof(buf)));
	ASSERT_ERRNO(EPERM, write(self->fd2, &p, sizeof(p)));

	/* SESSION_INFO is for anyone; nothing changed. */
	ASSERT_EQ(0, session_info(self->fd2, &si));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, si.state);
	ASSERT_EQ(0, si.flags);

	/* Once started, STOP from another fd is refused too. */
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_ERRNO(EPERM, ioctl(self->fd2, FXTRACE_IOC_STOP));
	ASSERT_EQ(0, session_info(self->fd2, &si));
	ASSERT_EQ(FXTRACE_STATE_STARTED, si.state);
}

TEST_F(sess, lifecycle_einval)
{
	struct fxtrace_session_info si;
	struct fxtrace_start s;

	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_ERRNO(EINVAL, start_session(self->fd, __FXTRACE_START_COUNT));
	ASSERT_ERRNO(EINVAL, start_session(self->fd, ~0U));
	s = (struct fxtrace_start){ .size = sizeof(s), .__reserved = 1 };
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_START, &s));
	s = (struct fxtrace_start){ .size = FXTRACE_START_SIZE_V0 - 1 };
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_START, &s));
	s = (struct fxtrace_start){ .size = sizeof(s), .categories = (uintptr_t)"a b",
				    .categories_size = 4 };
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_START, &s));
	s = (struct fxtrace_start){ .size = sizeof(s), .categories_size = 4 };
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_START, &s));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, si.state);

	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_ERRNO(EINVAL, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_ERRNO(EINVAL, start_session(self->fd, FXTRACE_START_RETAIN));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_STOPPED, si.state);
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_RETAIN));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_STARTED, si.state);

	/* TERMINATE from any state; afterwards the fd controls nothing. */
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(0, session_info(self->fd2, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);
	ASSERT_ERRNO(EPERM, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_ERRNO(EPERM, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
}

/* ---- 10. orphans and ADOPT ---------------------------------------------- */

TEST_F(nosess, orphan_adopt)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si, si0;
	struct fxtrace_buffer_info bi;
	struct fxtrace_packet p[8];
	const struct fxtrace_session_page *sp = map_session(self->fd);
	const struct fxtrace_buffer_header *h;
	int ctl, fd3, n, kernels = 0, cpus = 0;
	__u32 id, kid = 0;

	ASSERT_NE(NULL, sp);
	ctl = dev_open(O_NONBLOCK);
	ASSERT_LE(0, ctl);
	config_init(&c, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, ioctl(ctl, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, start_session(ctl, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(self->ncpus + 2, drain(ctl, p, 8));
	ASSERT_EQ(0, session_info(self->fd, &si0));

	/* The controller goes away while started. */
	ASSERT_EQ(0, close(ctl));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_STOPPED, si.state);
	ASSERT_EQ(FXTRACE_SESSION_ORPHANED, si.flags);
	ASSERT_EQ(si0.memory_used, si.memory_used);
	ASSERT_EQ(si0.nr_buffers, si.nr_buffers);
	ASSERT_EQ(FXTRACE_STATE_STOPPED, sp->state);
	ASSERT_ERRNO(EBUSY, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_ERRNO(EPERM, ioctl(self->fd, FXTRACE_IOC_STOP));

	/* Adopt it. */
	fd3 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_ADOPT));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(0, si.flags);
	ASSERT_EQ(FXTRACE_STATE_STOPPED, si.state);
	ASSERT_ERRNO(EBUSY, ioctl(self->fd, FXTRACE_IOC_ADOPT));
	ASSERT_ERRNO(EBUSY, ioctl(fd3, FXTRACE_IOC_ADOPT));

	n = drain(fd3, p, 8);
	ASSERT_EQ(2, n);
	ASSERT_EQ(FXTRACE_PKT_BUFFER_RETIRED, p[0].request);
	ASSERT_EQ(FXTRACE_PKT_STOPPED, p[1].request);

	for (id = 1, n = 0; buffer_info(fd3, id, &bi) == 0; id = bi.id + 1, n++) {
		ASSERT_LE(id, bi.id);
		if (bi.kind == FXTRACE_BUFFER_CPU)
			cpus++;
		if (bi.kind == FXTRACE_BUFFER_KERNEL) {
			kernels++;
			kid = bi.id;
		}
	}
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(self->ncpus + 1, n);
	ASSERT_EQ(self->ncpus, cpus);
	ASSERT_EQ(1, kernels);

	ASSERT_EQ(0, buffer_info(fd3, kid, &bi));
	h = map_part(fd3, kid, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("READER: %s", strerror(errno));
	ASSERT_EQ(FXTRACE_BUFFER_KERNEL, h->kind);
	ASSERT_LT(h->durable_reserved, h->durable_committed);
	ASSERT_LT(0, check_durable_start(_metadata, (const __u64 *)((const char *)h + h->data_offset),
					 h->durable_reserved, sp->ticks_per_second, kid, "kernel", 1));
	ASSERT_NE(NULL, find_kobj((const __u64 *)((const char *)h + h->data_offset),
				  h->durable_committed / 8, FXT_KOBJ_PROCESS, getpid()));

	/* The new controller controls it. */
	ASSERT_EQ(0, start_session(fd3, FXTRACE_START_RETAIN));
	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(FXTRACE_STATE_NONE, sp->state);
	close(fd3);
}

/* Reading a mapped header's magic in a child: 0 read, else the signal. */
static int read_in_child(const volatile __u32 *magic)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(*magic == FXTRACE_BUFFER_MAGIC ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
}

/*
 * The former controller's READER mappings, and its HEADER mappings of CPU
 * buffers, read the orphan until it is adopted, then fault: the buffers
 * take the adopter's data from then on.  Another file's mapping of an
 * earlier session's buffer with the same id reads on.
 */
TEST_F(nosess, adopt_revokes_former_readers)
{
	const struct fxtrace_buffer_header *old, *old_hdr, *h, *kept;
	struct fxtrace_config c;
	struct fxtrace_buffer_info bi;
	struct fxtrace_packet p[8];
	int prev, ctl, fd3;

	/* An earlier session, terminated; its controller keeps buffer 1. */
	prev = dev_open(O_NONBLOCK);
	ASSERT_LE(0, prev);
	config_init(&c, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, ioctl(prev, FXTRACE_IOC_INIT, &c));
	drain_init(_metadata, prev, self->ncpus);
	ASSERT_EQ(0, buffer_info(prev, 1, &bi));
	kept = map_part(prev, 1, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, kept) TH_LOG("READER: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(prev, FXTRACE_IOC_TERMINATE));

	ctl = dev_open(O_NONBLOCK);
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, ioctl(ctl, FXTRACE_IOC_INIT, &c));
	drain_init(_metadata, ctl, self->ncpus);
	ASSERT_EQ(0, buffer_info(ctl, 1, &bi));
	old = map_part(ctl, 1, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, old) TH_LOG("READER: %s", strerror(errno));
	old_hdr = map_part(ctl, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, old_hdr) TH_LOG("HEADER: %s", strerror(errno));

	/* Orphaned (the mappings keep the file open): they still read. */
	ASSERT_EQ(0, close(ctl));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, old->magic);
	ASSERT_EQ(0, read_in_child(&old->magic));
	ASSERT_EQ(0, read_in_child(&old_hdr->magic));

	/* Adopted: the old mappings fault (in a child, which copied them). */
	fd3 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_ADOPT));
	ASSERT_EQ(SIGBUS, read_in_child(&old->magic));
	ASSERT_EQ(SIGBUS, read_in_child(&old_hdr->magic));
	ASSERT_EQ(0, read_in_child(&kept->magic));

	/* The adopter's own mapping of the same buffer reads it. */
	h = map_part(fd3, 1, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("READER: %s", strerror(errno));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(0, start_session(fd3, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(2, drain(fd3, p, 8));
	ASSERT_EQ(SIGBUS, read_in_child(&old->magic));
	ASSERT_EQ(1, h->start_seq);

	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_TERMINATE));
	munmap((void *)h, bi.reader_size);
	munmap((void *)old, bi.reader_size);
	munmap((void *)old_hdr, PG);
	munmap((void *)kept, bi.reader_size);
	close(prev);
	close(fd3);
}

/*
 * A task buffer's header, mapped by the former controller, is revoked as
 * well when its process does not own the buffer (it took the adopter's
 * offsets and counts).  Its owner's mapping reads on: through the owner's
 * own file, and through the former controller's file when the owner is
 * the former controller (zapped with the others, it maps the page again).
 * The old module revoked no task buffer's header.
 */
TEST_F(nosess, adopt_revokes_former_task_headers)
{
	const struct fxtrace_buffer_header *other_hdr, *own_hdr;
	struct fxtrace_attach a, own;
	struct fxtrace_config c;
	int go[2], ready[2], status, ctl, fd3;
	__u32 other_id;
	pid_t owner;

	ctl = dev_open(O_NONBLOCK);
	ASSERT_LE(0, ctl);
	config_init(&c, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, ioctl(ctl, FXTRACE_IOC_INIT, &c));
	drain_init(_metadata, ctl, self->ncpus);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));

	/* Another process's buffer, its header mapped through its own file. */
	owner = fork();
	ASSERT_LE(0, owner);
	if (owner == 0) {
		const struct fxtrace_buffer_header *h;
		int fd = dev_open(0);
		char ch;

		close(ctl);
		if (fd < 0 || attach(fd, &a))
			_exit(2);
		h = map_part(fd, a.buffer_id, FXTRACE_MMAP_HEADER, PG, PROT_READ);
		if (h == MAP_FAILED ||
		    write(ready[1], &a.buffer_id, sizeof(a.buffer_id)) != sizeof(a.buffer_id) ||
		    read(go[0], &ch, 1) != 1)
			_exit(3);
		/* After the adoption. */
		_exit(h->magic == FXTRACE_BUFFER_MAGIC && h->id == a.buffer_id ? 0 : 4);
	}
	ASSERT_EQ((ssize_t)sizeof(other_id), read(ready[0], &other_id, sizeof(other_id)));
	other_hdr = map_part(ctl, other_id, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, other_hdr) TH_LOG("HEADER: %s", strerror(errno));

	/* The controller's own buffer, its header mapped through ctl. */
	ASSERT_EQ(0, attach(ctl, &own));
	own_hdr = map_part(ctl, own.buffer_id, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, own_hdr) TH_LOG("HEADER: %s", strerror(errno));

	/* Orphaned: both read. */
	ASSERT_EQ(0, close(ctl));
	ASSERT_EQ(0, read_in_child(&other_hdr->magic));
	ASSERT_EQ(0, read_in_child(&own_hdr->magic));

	/* Adopted: the other's header faults, the own one reads on. */
	fd3 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_ADOPT));
	EXPECT_EQ(SIGBUS, read_in_child(&other_hdr->magic));
	EXPECT_EQ(0, read_in_child(&own_hdr->magic));
	EXPECT_EQ(FXTRACE_BUFFER_MAGIC, own_hdr->magic);
	EXPECT_EQ(own.buffer_id, own_hdr->id);

	/* The other owner's mapping reads on. */
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(owner, waitpid(owner, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_TERMINATE));
	EXPECT_EQ(FXTRACE_BUFFER_MAGIC, own_hdr->magic);
	munmap((void *)other_hdr, PG);
	munmap((void *)own_hdr, PG);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	close(fd3);
}

/*
 * The producer part of the largest task buffer (FXTRACE_BUFFER_SIZE_MAX of
 * data, parts 256 MiB apart) reaches one page past the offset where its
 * READER part starts: the former controller's own producer mapping made
 * through its file must keep its last page when an adoption revokes that
 * file's READER mappings (it was zapped: SIGBUS).
 */
TEST_F_TIMEOUT(nosess, adopt_spares_former_controllers_largest_producer, 120)
{
	int go[2], ready[2], status, fd2;
	pid_t former;
	char ch;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	former = fork();
	ASSERT_LE(0, former);
	if (former == 0) {
		struct fxtrace_config c;
		struct fxtrace_attach a;
		volatile __u64 *last;
		char *m;
		int ctl = dev_open(O_NONBLOCK);

		config_init(&c, FXTRACE_MODE_ONESHOT);
		c.task_buffer_size = FXTRACE_BUFFER_SIZE_MAX;
		if (ctl < 0 || ioctl(ctl, FXTRACE_IOC_INIT, &c) || attach(ctl, &a))
			_exit(2);
		m = map_part(ctl, a.buffer_id, FXTRACE_MMAP_PRODUCER,
			     a.producer_size, PROT_READ | PROT_WRITE);
		if (m == MAP_FAILED ||
		    a.producer_size != PG + FXTRACE_BUFFER_SIZE_MAX)
			_exit(3);
		last = (volatile __u64 *)(m + a.producer_size - sizeof(*last));
		*last = 42;
		/* Its last descriptor closed: orphaned, the mapping kept. */
		close(ctl);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(4);
		/* After the adoption. */
		_exit(*last == 42 ? 0 : 5);
	}
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	fd2 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ioctl(fd2, FXTRACE_IOC_ADOPT));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(former, waitpid(former, &status, 0));
	EXPECT_TRUE(WIFEXITED(status))
		TH_LOG("the former controller died of signal %d",
		       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, ioctl(fd2, FXTRACE_IOC_TERMINATE));
	close(fd2);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

struct reader_mmap {
	int fd;
	size_t len;
	atomic_int started;
	const struct fxtrace_buffer_header *map;
	int err;
};

static void *reader_mmap_fn(void *arg)
{
	struct reader_mmap *r = arg;
	void *m;

	atomic_store(&r->started, 1);
	m = map_part(r->fd, 1, FXTRACE_MMAP_READER, r->len, PROT_READ);
	r->err = m == MAP_FAILED ? errno : 0;
	r->map = m == MAP_FAILED ? NULL : m;
	return NULL;
}

static void spin_us(long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000L +
	       (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/*
 * A READER mmap() under way while its controller's process closes its last
 * descriptor and another file adopts: the mapping, which passed its check
 * before the orphaning, is revoked all the same.  The window is the
 * insertion of a 64 MiB buffer's pages, before the new VMA is where the
 * revocation looks; the close comes after a delay that grows with each
 * round, so that some rounds land in it (on the old module, ADOPT did not
 * wait for it and the mapping read on).  An mmap() that ran after the
 * orphaning is refused EACCES; each one that succeeded must fault.
 */
TEST_F(nosess, adopt_revokes_reader_mapped_meanwhile)
{
	struct fxtrace_buffer_info bi;
	struct fxtrace_config c;
	struct reader_mmap r;
	int round, ctl, fd3;
	pthread_t thread;

	for (round = 0; round < 24; round++) {
		ctl = dev_open(O_NONBLOCK);
		ASSERT_LE(0, ctl);
		config_init(&c, FXTRACE_MODE_ONESHOT);
		c.cpu_buffer_size = 64UL << 20;
		ASSERT_EQ(0, ioctl(ctl, FXTRACE_IOC_INIT, &c))
			TH_LOG("INIT: %s", strerror(errno));
		drain_init(_metadata, ctl, self->ncpus);
		ASSERT_EQ(0, buffer_info(ctl, 1, &bi));

		memset(&r, 0, sizeof(r));
		r.fd = ctl;
		r.len = bi.reader_size;
		ASSERT_EQ(0, pthread_create(&thread, NULL, reader_mmap_fn, &r));
		while (!atomic_load(&r.started))
			;
		spin_us(round * 2000L);
		ASSERT_EQ(0, close(ctl));
		fd3 = dev_open(O_NONBLOCK);
		ASSERT_LE(0, fd3);
		ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_ADOPT))
			TH_LOG("ADOPT: %s", strerror(errno));
		ASSERT_EQ(0, pthread_join(thread, NULL));

		if (r.map) {
			EXPECT_EQ(SIGBUS, read_in_child(&r.map->magic))
				TH_LOG("round %d: the READER mapping reads", round);
			munmap((void *)r.map, r.len);
		} else {
			EXPECT_EQ(EACCES, r.err);
		}
		ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_TERMINATE));
		ASSERT_EQ(0, close(fd3));
	}
}

/*
 * The pages of a mapping ADOPT revokes (a READER part, a CPU buffer's
 * HEADER) take no reference from outside the mapping (a pipe's, through
 * vmsplice()): one would outlive the revocation and show the adopter's
 * data or counts.  The mapping reads, and write() copies from it.
 */
static void expect_not_referenced(struct __test_metadata *_metadata,
				  const struct fxtrace_buffer_header *m,
				  const char *part)
{
	struct fxtrace_buffer_header copy;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = PG };
	int p[2];

	ASSERT_EQ(0, pipe(p));
	EXPECT_EQ(-1, vmsplice(p[1], &iov, 1, 0)) TH_LOG("%s: vmsplice took its page", part);
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ((ssize_t)sizeof(copy), write(p[1], m, sizeof(copy)));
	ASSERT_EQ((ssize_t)sizeof(copy), read(p[0], &copy, sizeof(copy)));
	EXPECT_EQ(FXTRACE_BUFFER_MAGIC, copy.magic);
	EXPECT_EQ(1, copy.id);
	close(p[0]);
	close(p[1]);
}

TEST_F(sess, reader_pages_not_referenced)
{
	const struct fxtrace_buffer_header *m, *h;
	struct fxtrace_buffer_info bi;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, buffer_info(self->fd, 1, &bi));
	ASSERT_EQ(FXTRACE_BUFFER_CPU, bi.kind);
	m = map_part(self->fd, 1, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("READER: %s", strerror(errno));
	h = map_part(self->fd, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("HEADER: %s", strerror(errno));
	expect_not_referenced(_metadata, m, "READER");
	expect_not_referenced(_metadata, h, "CPU buffer's HEADER");
	munmap((void *)h, PG);
	munmap((void *)m, bi.reader_size);
}

/*
 * The VmFlags of this process's mapping at @m (/proc/self/smaps), each
 * two-letter flag followed by a space, into @flags.
 */
static int vma_flags(const void *m, char *flags, size_t size)
{
	char line[256], start[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	bool found = false;

	if (!f)
		return -1;
	snprintf(start, sizeof(start), "%lx-", (unsigned long)m);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, start, strlen(start)))
			found = true;
		else if (found && !strncmp(line, "VmFlags:", 8))
			break;
	}
	fclose(f);
	if (!found || strncmp(line, "VmFlags:", 8))
		return -1;
	snprintf(flags, size, "%s", line + 8);
	return 0;
}

static bool has_vma_flag(const char *flags, const char *flag)
{
	char word[8];

	snprintf(word, sizeof(word), " %s ", flag);
	return strstr(flags, word) != NULL;
}

/*
 * A mapping ADOPT revokes is PFN-mapped (pf, io) without x86 PAT's
 * whole-VMA tracking ("ar", VM_PAT), which remap_pfn_range() gives a
 * one-page HEADER: the revocation's zap clears that flag without the
 * mapping process's mmap_lock, so an mprotect() racing it can set it
 * again on a VMA left without PTEs, and munmap() then warns (see
 * adopt_revoke_races_mprotect).  The old module's CPU buffer HEADER
 * mapping had it.
 */
TEST_F(sess, revocable_mappings_not_pat_tracked)
{
	const struct fxtrace_buffer_header *m, *h;
	struct fxtrace_buffer_info bi;
	char flags[256];

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, buffer_info(self->fd, 1, &bi));
	m = map_part(self->fd, 1, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("READER: %s", strerror(errno));
	h = map_part(self->fd, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(1, h->id);

	ASSERT_EQ(0, vma_flags(h, flags, sizeof(flags)));
	EXPECT_TRUE(has_vma_flag(flags, "pf")) TH_LOG("HEADER:%s", flags);
	EXPECT_TRUE(has_vma_flag(flags, "io")) TH_LOG("HEADER:%s", flags);
	EXPECT_FALSE(has_vma_flag(flags, "ar")) TH_LOG("HEADER:%s", flags);
	ASSERT_EQ(0, vma_flags(m, flags, sizeof(flags)));
	EXPECT_TRUE(has_vma_flag(flags, "pf")) TH_LOG("READER:%s", flags);
	EXPECT_FALSE(has_vma_flag(flags, "ar")) TH_LOG("READER:%s", flags);
	munmap((void *)h, PG);
	munmap((void *)m, bi.reader_size);
}

/* The kernel's "warned" taint (TAINT_WARN, bit 9 of tainted). */
static int kernel_warned(void)
{
	unsigned long tainted;
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%lu", &tainted);
	fclose(f);
	return n == 1 ? !!(tainted & (1UL << 9)) : -1;
}

/* Mappings of one HEADER a round: each is a chance to race. */
#define RACE_MAPS 32

struct mprotect_loop {
	void *maps[RACE_MAPS];
	atomic_int stop;
};

static void *mprotect_loop_fn(void *arg)
{
	struct mprotect_loop *l = arg;
	int i;

	while (!atomic_load(&l->stop)) {
		for (i = 0; i < RACE_MAPS; i++) {
			mprotect(l->maps[i], PG, PROT_NONE);
			mprotect(l->maps[i], PG, PROT_READ);
		}
	}
	return NULL;
}

/*
 * ADOPT revokes the former controller's CPU buffer HEADER mappings while a
 * thread of that process mprotect()s them back and forth: on the old
 * module the revocation could clear VM_PAT under an mprotect(), which
 * wrote it back on a VMA without PTEs, and munmap() then hit a
 * WARN_ON_ONCE in the PAT code (get_pat_info()).  A race: each round
 * tries it once a mapping, and the mappings must come out without the
 * flag and the kernel unwarned.  A kernel that has warned before cannot
 * show a new warning: skipped.
 */
TEST_F_TIMEOUT(nosess, adopt_revoke_races_mprotect, 120)
{
	struct mprotect_loop l;
	struct fxtrace_config c;
	struct timespec t0, t;
	pthread_t thread;
	int round, i, ctl, fd3;
	char flags[256];

	if (kernel_warned() != 0)
		SKIP(return, "the kernel has warned before, or tainted is unreadable");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < 400; round++) {
		ctl = dev_open(O_NONBLOCK);
		ASSERT_LE(0, ctl);
		config_init(&c, FXTRACE_MODE_ONESHOT);
		ASSERT_EQ(0, ioctl(ctl, FXTRACE_IOC_INIT, &c))
			TH_LOG("INIT: %s", strerror(errno));
		drain_init(_metadata, ctl, self->ncpus);
		for (i = 0; i < RACE_MAPS; i++) {
			l.maps[i] = map_part(ctl, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ);
			ASSERT_NE(MAP_FAILED, l.maps[i]) TH_LOG("HEADER: %s", strerror(errno));
		}
		atomic_store(&l.stop, 0);
		ASSERT_EQ(0, pthread_create(&thread, NULL, mprotect_loop_fn, &l));

		ASSERT_EQ(0, close(ctl));
		fd3 = dev_open(O_NONBLOCK);
		ASSERT_LE(0, fd3);
		ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_ADOPT))
			TH_LOG("ADOPT: %s", strerror(errno));
		atomic_store(&l.stop, 1);
		ASSERT_EQ(0, pthread_join(thread, NULL));

		for (i = 0; i < RACE_MAPS; i++) {
			ASSERT_EQ(0, vma_flags(l.maps[i], flags, sizeof(flags)));
			EXPECT_FALSE(has_vma_flag(flags, "ar"))
				TH_LOG("round %d: a revoked HEADER:%s", round, flags);
			ASSERT_EQ(0, munmap(l.maps[i], PG));
		}
		ASSERT_EQ(0, kernel_warned()) TH_LOG("round %d: the kernel warned", round);
		ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_TERMINATE));
		ASSERT_EQ(0, close(fd3));

		/* Rounds for 20 s at most: TCG guests are slow. */
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 20)
			break;
	}
	TH_LOG("%d rounds", round + 1);
}

/*
 * The controller's role ends with the controlling process: a forked child
 * holding the fd and a mapping of the session page neither keeps the
 * session from being adopted nor controls it.
 */
TEST_F(nosess, orphan_fork_child)
{
	struct fxtrace_session_info si;
	int hold[2], ready[2];
	char ch = 0;
	pid_t ctl;

	ASSERT_EQ(0, pipe(hold));
	ASSERT_EQ(0, pipe(ready));
	ctl = fork();
	if (ctl == 0) {
		struct fxtrace_config c;
		int fd = dev_open(O_NONBLOCK);

		config_init(&c, FXTRACE_MODE_ONESHOT);
		if (fd < 0 || ioctl(fd, FXTRACE_IOC_INIT, &c) || start_session(fd, 0))
			_exit(1);
		if (!map_session(fd))
			_exit(2);
		if (fork() == 0) {
			/* Long-lived, with the fd and the mapping. */
			close(hold[1]);
			close(ready[0]);
			ch = ioctl(fd, FXTRACE_IOC_STOP) == -1 && errno == EPERM ? 'y' : 'n';
			if (write(ready[1], &ch, 1) != 1 || read(hold[0], &ch, 1) < 0)
				_exit(3);
			_exit(0);
		}
		/* The controller dies without TERMINATE. */
		_exit(0);
	}
	close(hold[0]);
	close(ready[1]);
	ASSERT_EQ(0, wait_child(ctl));
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	ASSERT_EQ('y', ch) TH_LOG("the child could STOP its parent's session");
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_SESSION_ORPHANED, si.flags);
	ASSERT_EQ(FXTRACE_STATE_STOPPED, si.state);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT)) TH_LOG("ADOPT: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	close(hold[1]);
	close(ready[0]);
}

TEST_F(nosess, orphan_initialized)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	struct fxtrace_packet p[512];
	int ctl = dev_open(O_NONBLOCK), fd3;

	ASSERT_LE(0, ctl);
	config_init(&c, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, ioctl(ctl, FXTRACE_IOC_INIT, &c));
	close(ctl);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, si.state);
	ASSERT_EQ(FXTRACE_SESSION_ORPHANED, si.flags);

	/* Packets not read by the old controller are still there. */
	fd3 = dev_open(O_NONBLOCK);
	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_ADOPT));
	drain_init(_metadata, fd3, self->ncpus);
	ASSERT_EQ(0, drain(fd3, p, 512));
	ASSERT_EQ(0, ioctl(fd3, FXTRACE_IOC_TERMINATE));
	close(fd3);
}

TEST_F(nosess, adopt_enoent)
{
	ASSERT_ERRNO(ENOENT, ioctl(self->fd, FXTRACE_IOC_ADOPT));
}

TEST_F(nosess, adopt_eperm)
{
	struct fxtrace_config c;
	struct fxtrace_session_info si;
	int ctl = dev_open(0);
	pid_t pid;

	ASSERT_LE(0, ctl);
	config_init(&c, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, ioctl(ctl, FXTRACE_IOC_INIT, &c));
	close(ctl);

	/* Root without CAP_PERFMON and CAP_SYS_ADMIN. */
	pid = fork();
	if (pid == 0) {
		int fd = dev_open(0);

		if (fd < 0 || drop_caps())
			_exit(10);
		if (ioctl(fd, FXTRACE_IOC_ADOPT) != -1)
			_exit(11);
		_exit(errno == EPERM ? 0 : 12);
	}
	ASSERT_EQ(0, wait_child(pid));

	/* Another uid (which has no capability either). */
	pid = fork();
	if (pid == 0) {
		int fd = dev_open(0);

		if (fd < 0 || setresuid(65534, 65534, 65534))
			_exit(10);
		if (ioctl(fd, FXTRACE_IOC_ADOPT) != -1)
			_exit(11);
		_exit(errno == EPERM ? 0 : 12);
	}
	ASSERT_EQ(0, wait_child(pid));

	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_SESSION_ORPHANED, si.flags);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT));
}

TEST_HARNESS_MAIN
