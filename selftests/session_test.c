// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of the fxtrace session ABI (0.2): sessions and their errors,
 * the session page, packets, buffers and their mappings, ATTACH, retirement,
 * streaming save requests and acks, orphans and ADOPT, io_uring reads.
 *
 * The contract is uapi/linux/fxtrace.h and the ABI semantics document; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).  Each test
 * ends the session it created; a session left by a crashed test is adopted
 * and terminated by the next fixture setup.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/io_uring.h>
#include <linux/fxt.h>
#include <linux/fxtrace.h>

#include "kselftest_harness.h"
#include "fxtrace_selftest.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

#define PG		4096UL
#define DATA_SIZE	(64UL << 10)	/* cpu and task buffer data areas */
#define DURABLE_SIZE	(DATA_SIZE / 8)
#define ROLLING_SIZE	((DATA_SIZE - DURABLE_SIZE) / 2)
#define NO_ID		1000000	/* a buffer id no test reaches */

/* ---- helpers ------------------------------------------------------------ */

static pid_t sys_gettid(void)
{
	return syscall(SYS_gettid);
}

static int possible_cpus(void)
{
	char buf[256], *p;
	int n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (p = buf; *p && *p != '\n';) {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		n += b - a + 1;
		if (*p == ',')
			p++;
	}
	return n;
}

/* The module's memory maximum (parameter memory_max_mb, default 512). */
static __u64 module_memory_max(void)
{
	FILE *f = fopen("/sys/module/fxtrace/parameters/memory_max_mb", "r");
	unsigned long mb = 512;

	if (f) {
		if (fscanf(f, "%lu", &mb) != 1)
			mb = 512;
		fclose(f);
	}
	return (__u64)mb << 20;
}

static int dev_open(int flags)
{
	return open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC | flags);
}

static void config_init(struct fxtrace_config *c, __u32 mode)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->mode = mode;
	c->cpu_buffer_size = DATA_SIZE;
	c->task_buffer_size = DATA_SIZE;
}

/* Ends a session that an earlier (crashed) test left behind. */
static void end_leftover(void)
{
	int fd = dev_open(0);

	if (fd < 0)
		return;
	if (ioctl(fd, FXTRACE_IOC_ADOPT) == 0)
		ioctl(fd, FXTRACE_IOC_TERMINATE);
	close(fd);
}

/* INIT, adopting and terminating a leftover session on EBUSY. */
static int init_session(int fd, struct fxtrace_config *c)
{
	int ret = ioctl(fd, FXTRACE_IOC_INIT, c);

	if (ret < 0 && errno == EBUSY) {
		end_leftover();
		ret = ioctl(fd, FXTRACE_IOC_INIT, c);
	}
	return ret;
}

static int session_info(int fd, struct fxtrace_session_info *si)
{
	memset(si, 0, sizeof(*si));
	si->size = sizeof(*si);
	return ioctl(fd, FXTRACE_IOC_SESSION_INFO, si);
}

static int buffer_info(int fd, __u32 id, struct fxtrace_buffer_info *bi)
{
	memset(bi, 0, sizeof(*bi));
	bi->size = sizeof(*bi);
	bi->id = id;
	return ioctl(fd, FXTRACE_IOC_BUFFER_INFO, bi);
}

static int start_session(int fd, __u32 disposition)
{
	struct fxtrace_start s = { .size = sizeof(s), .disposition = disposition };

	return ioctl(fd, FXTRACE_IOC_START, &s);
}

static int attach(int fd, struct fxtrace_attach *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	return ioctl(fd, FXTRACE_IOC_ATTACH, a);
}

static int release_buffer(int fd, __u32 id)
{
	struct fxtrace_buffer_ref r = { .size = sizeof(r), .id = id };

	return ioctl(fd, FXTRACE_IOC_RELEASE_BUFFER, &r);
}

static int buffer_full(int fd, __u32 id, __u64 wrap)
{
	struct fxtrace_buffer_full f = { .size = sizeof(f), .buffer_id = id, .wrap = wrap };

	return ioctl(fd, FXTRACE_IOC_BUFFER_FULL, &f);
}

static void *map_part(int fd, __u32 id, __u64 part, size_t len, int prot)
{
	return mmap(NULL, len, prot, MAP_SHARED, fd, FXTRACE_MMAP_OFFSET(id, part));
}

static const struct fxtrace_session_page *map_session(int fd)
{
	void *p = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Reads the next packet, waiting up to timeout_ms for one (the fd may be
 * blocking or not).  0: got one; -1: none came (errno EAGAIN) or error.
 */
static int next_pkt(int fd, struct fxtrace_packet *p, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) != 1 || !(pfd.revents & POLLIN)) {
		errno = EAGAIN;
		return -1;
	}
	n = read(fd, p, sizeof(*p));
	if (n == sizeof(*p))
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

/* Reads every packet queued now; returns how many. */
static int drain(int fd, struct fxtrace_packet *p, int max)
{
	int n = 0;

	while (n < max && next_pkt(fd, &p[n], 0) == 0)
		n++;
	return n;
}

static void read_comm(const char *path, char *comm, size_t len)
{
	FILE *f = fopen(path, "r");

	comm[0] = 0;
	if (f) {
		if (fgets(comm, len, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
}

/* Compares an FXT inline string stream with s. */
static int stream_eq(const __u64 *words, const char *s, size_t len)
{
	return strlen(s) == len && memcmp(words, s, len) == 0;
}

/*
 * The durable start of every buffer: a provider-info record (id, name) and
 * an initialization record with the session's ticks per second, in that
 * order (announcing a provider resets its tick rate).  With exact,
 * durable_reserved is just these two (task and KERNEL buffers); otherwise
 * (CPU buffers) whole records may follow up to durable_reserved.  Returns
 * the words of the two, or -1 (logged) when something is wrong.
 */
static int check_durable_start(struct __test_metadata *_metadata,
			       const __u64 *w, __u64 reserved, __u64 ticks,
			       __u32 id, const char *name, int exact)
{
	size_t len = strlen(name), i, pw = 1 + fxt_stream_words(len);
	__u64 hdr;

	hdr = w[0];
	EXPECT_EQ(FXT_REC_METADATA, fxt_bits(hdr, 0, 3));
	EXPECT_EQ(FXT_META_PROVIDER_INFO, fxt_bits(hdr, 16, 19));
	EXPECT_EQ(id, fxt_bits(hdr, 20, 51));
	EXPECT_EQ(len, fxt_bits(hdr, 52, 59));
	EXPECT_EQ(pw, fxt_bits(hdr, 4, 15));
	EXPECT_TRUE(stream_eq(&w[1], name, fxt_bits(hdr, 52, 59)))
		TH_LOG("provider name is not \"%s\"", name);
	EXPECT_EQ(fxt_init_hdr(), w[pw]);
	EXPECT_EQ(ticks, w[pw + 1]);
	if (exact) {
		EXPECT_EQ(8 * (2 + 1 + fxt_stream_words(len)), reserved);
	} else {
		for (i = 0; i < reserved / 8 && fxt_bits(w[i], 4, 15);)
			i += fxt_bits(w[i], 4, 15);
		EXPECT_EQ(reserved, 8 * i) TH_LOG("records do not end at durable_reserved");
		EXPECT_LE(8 * (2 + 1 + fxt_stream_words(len)), reserved);
	}
	return _metadata->passed ? (int)(2 + 1 + fxt_stream_words(len)) : -1;
}

/* A thread that attaches (and maybe maps its producer part), then waits. */
struct producer {
	int fd;
	int map;		/* map the PRODUCER part */
	int ret, err;
	pid_t tid;
	struct fxtrace_attach a;
	void *producer;
	const char *name;
	int go[2];		/* a byte here lets the thread exit */
	int ready[2];
	pthread_t thread;
};

static void *producer_fn(void *arg)
{
	struct producer *p = arg;
	char c = 0;

	if (p->name)
		pthread_setname_np(pthread_self(), p->name);
	p->tid = sys_gettid();
	p->ret = attach(p->fd, &p->a);
	p->err = errno;
	if (p->ret == 0 && p->map) {
		p->producer = map_part(p->fd, p->a.buffer_id, FXTRACE_MMAP_PRODUCER,
				       p->a.producer_size, PROT_READ | PROT_WRITE);
		if (p->producer == MAP_FAILED)
			p->err = errno;
	}
	if (write(p->ready[1], &c, 1) != 1 || read(p->go[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static int producer_start(struct producer *p, int fd, int map, const char *name)
{
	char c;

	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->map = map;
	p->name = name;
	if (pipe(p->go) || pipe(p->ready))
		return -1;
	if (pthread_create(&p->thread, NULL, producer_fn, p))
		return -1;
	return read(p->ready[0], &c, 1) == 1 ? 0 : -1;
}

static void producer_stop(struct producer *p)
{
	char c = 0;

	if (write(p->go[1], &c, 1) == 1)
		pthread_join(p->thread, NULL);
	close(p->go[0]);
	close(p->go[1]);
	close(p->ready[0]);
	close(p->ready[1]);
}

/* Drops CAP_SYS_ADMIN and CAP_PERFMON (root stays root otherwise). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	int i;

	if (syscall(SYS_capget, &h, d))
		return -1;
	for (i = 0; i < 2; i++) {
		__u32 mask = 0;

		if (CAP_SYS_ADMIN / 32 == i)
			mask |= 1U << (CAP_SYS_ADMIN % 32);
		if (CAP_PERFMON / 32 == i)
			mask |= 1U << (CAP_PERFMON % 32);
		d[i].effective &= ~mask;
		d[i].permitted &= ~mask;
		d[i].inheritable &= ~mask;
	}
	return syscall(SYS_capset, &h, d);
}

/* Waits for a child; returns its exit status or -1. */
static int wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define ASSERT_ERRNO(err, call) do {			\
	errno = 0;					\
	ASSERT_EQ(-1, (long)(call));			\
	ASSERT_EQ(err, errno);				\
} while (0)

#define ASSERT_MMAP_ERRNO(err, call) do {		\
	void *__m;					\
	errno = 0;					\
	__m = (call);					\
	ASSERT_EQ(MAP_FAILED, __m);			\
	ASSERT_EQ(err, errno);				\
} while (0)

#define ASSERT_ADDED(p, kind, id) do {			\
	ASSERT_EQ(FXTRACE_PKT_BUFFER_ADDED, (p).request); \
	ASSERT_EQ(kind, (p).data16);			\
	ASSERT_EQ(id, (p).data32);			\
} while (0)

#define ASSERT_RETIRED(p, id) do {			\
	ASSERT_EQ(FXTRACE_PKT_BUFFER_RETIRED, (p).request); \
	ASSERT_EQ(id, (p).data32);			\
} while (0)

#define ASSERT_PKT(p, req, d16, d32, d64) do {		\
	ASSERT_EQ(req, (p).request);			\
	ASSERT_EQ(d16, (p).data16);			\
	ASSERT_EQ(d32, (p).data32);			\
	ASSERT_EQ(d64, (p).data64);			\
} while (0)

/* Opens a new fd in place of *fd (an fd controls one session only). */
static int terminate_reopen_fd(int *fd)
{
	close(*fd);
	*fd = dev_open(O_NONBLOCK);
	return *fd < 0 ? -1 : 0;
}

/* Ends the session and opens a new fd in place of the controller's. */
static int terminate_reopen(int *fd)
{
	if (ioctl(*fd, FXTRACE_IOC_TERMINATE))
		return -1;
	return terminate_reopen_fd(fd);
}

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

/* ---- fixtures ----------------------------------------------------------- */

/* No session: tests that INIT themselves. */
FIXTURE(nosess) {
	int fd;
	int ncpus;
};

FIXTURE_SETUP(nosess)
{
	struct fxtrace_session_info si;

	FXT_SELFTEST_REQUIRE_DEVICE();
	self->ncpus = possible_cpus();
	ASSERT_LT(0, self->ncpus);
	self->fd = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", FXTRACE_DEVICE, strerror(errno));
	ASSERT_EQ(0, session_info(self->fd, &si));
	if (si.state != FXTRACE_STATE_NONE)
		end_leftover();
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_STATE_NONE, si.state);
}

FIXTURE_TEARDOWN(nosess)
{
	ioctl(self->fd, FXTRACE_IOC_TERMINATE);
	close(self->fd);
	end_leftover();
}

/* A oneshot session with 64 KiB buffers, self->fd its controller. */
FIXTURE(sess) {
	int fd;		/* controller, O_NONBLOCK */
	int fd2;	/* another open file: not a controller */
	int ncpus;
	struct fxtrace_config cfg;
};

FIXTURE_SETUP(sess)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
	self->ncpus = possible_cpus();
	ASSERT_LT(0, self->ncpus);
	self->fd = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", FXTRACE_DEVICE, strerror(errno));
	self->fd2 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd2);
	config_init(&self->cfg, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, init_session(self->fd, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
}

FIXTURE_TEARDOWN(sess)
{
	ioctl(self->fd, FXTRACE_IOC_TERMINATE);
	close(self->fd);
	close(self->fd2);
	end_leftover();
}

/* Reads the BUFFER_ADDED packets of INIT: one per possible CPU. */
static int drain_init(struct __test_metadata *_metadata, int fd, int ncpus)
{
	struct fxtrace_packet p[512];
	int i, n = drain(fd, p, 512);

	EXPECT_EQ(ncpus, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(FXTRACE_PKT_BUFFER_ADDED, p[i].request);
		EXPECT_EQ(FXTRACE_BUFFER_CPU, p[i].data16);
	}
	return n;
}

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

	config_init(&c, 3);
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

/* ---- 2. session page ---------------------------------------------------- */

TEST_F(nosess, session_page_none)
{
	const struct fxtrace_session_page *sp = map_session(self->fd), *sp2;
	pid_t pid;
	int fd2;

	ASSERT_NE(NULL, sp) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_EQ(FXTRACE_SESSION_MAGIC, sp->magic);
	ASSERT_EQ(FXTRACE_ABI_MAJOR, sp->abi_major);
	ASSERT_EQ(FXTRACE_ABI_MINOR, sp->abi_minor);
	ASSERT_EQ(FXTRACE_STATE_NONE, sp->state);
	ASSERT_EQ(4096, sp->enabled_offset);
	ASSERT_EQ(8192, sp->categories_offset);

	/* Inherited across fork. */
	pid = fork();
	if (pid == 0)
		_exit(sp->magic == FXTRACE_SESSION_MAGIC ? 0 : 1);
	ASSERT_EQ(0, wait_child(pid));

	/* A second mapping from another fd shows the same page. */
	fd2 = dev_open(0);
	sp2 = map_session(fd2);
	ASSERT_NE(NULL, sp2);
	ASSERT_EQ(sp->generation, sp2->generation);
	ASSERT_EQ(FXTRACE_SESSION_MAGIC, sp2->magic);
	close(fd2);
	munmap((void *)sp2, FXTRACE_SESSION_MAP_SIZE);
	ASSERT_EQ(0, munmap((void *)sp, FXTRACE_SESSION_MAP_SIZE));
}

TEST_F(nosess, session_page_mmap_errors)
{
	size_t sz = FXTRACE_SESSION_MAP_SIZE;

	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0));
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, sz, PROT_WRITE, MAP_SHARED, self->fd, 0));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz, PROT_READ, MAP_PRIVATE, self->fd, 0));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd, 0));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz - PG, PROT_READ, MAP_SHARED, self->fd, 0));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz + PG, PROT_READ, MAP_SHARED, self->fd, 0));
	/* An offset with valid part bits but no buffer id is not the session page. */
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz, PROT_READ, MAP_SHARED, self->fd, 15ULL << 28));
}

TEST_F(nosess, session_page_lifecycle)
{
	static const char init_cats[] = "net.*\0sched";	/* 12 bytes */
	static const char all_cats[] = "net.*\0sched\0io";	/* 15 bytes */
	const struct fxtrace_session_page *sp = map_session(self->fd);
	struct fxtrace_config c;
	struct fxtrace_start s;
	__u64 gen, sid;

	ASSERT_NE(NULL, sp);
	gen = sp->generation;

	config_init(&c, FXTRACE_MODE_CIRCULAR);
	c.categories = (uintptr_t)init_cats;
	c.categories_size = sizeof(init_cats);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(FXTRACE_SESSION_MAGIC, sp->magic);
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, sp->state);
	ASSERT_NE(gen, sp->generation);
	gen = sp->generation;
	ASSERT_EQ(0, sp->start_seq);
	ASSERT_EQ(FXTRACE_MODE_CIRCULAR, sp->mode);
	ASSERT_TRUE(sp->clock == FXTRACE_CLOCK_MONOTONIC || sp->clock == FXTRACE_CLOCK_TSC)
		TH_LOG("clock %u", sp->clock);
	if (sp->clock == FXTRACE_CLOCK_MONOTONIC) {
		ASSERT_EQ(1000000000ULL, sp->ticks_per_second);
	} else {
		ASSERT_NE(0, sp->ticks_per_second);
	}
	ASSERT_EQ(2, sp->categories_count);
	ASSERT_EQ(sizeof(init_cats), sp->categories_size);
	ASSERT_EQ(0, memcmp((const char *)sp + sp->categories_offset, init_cats,
			    sizeof(init_cats)));
	sid = sp->session_id;

	s = (struct fxtrace_start){
		.size = sizeof(s), .disposition = FXTRACE_START_RETAIN,
		.categories = (uintptr_t)"io", .categories_size = 3,
	};
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_START, &s));
	ASSERT_EQ(FXTRACE_STATE_STARTED, sp->state);
	ASSERT_NE(gen, sp->generation);
	gen = sp->generation;
	ASSERT_EQ(1, sp->start_seq);
	ASSERT_EQ(FXTRACE_START_RETAIN, sp->disposition);
	ASSERT_EQ(3, sp->categories_count);
	ASSERT_EQ(sizeof(all_cats), sp->categories_size);
	ASSERT_EQ(0, memcmp((const char *)sp + sp->categories_offset, all_cats,
			    sizeof(all_cats)));

	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(FXTRACE_STATE_STOPPED, sp->state);
	ASSERT_NE(gen, sp->generation);
	gen = sp->generation;
	ASSERT_EQ(1, sp->start_seq);

	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_NONDURABLE));
	ASSERT_EQ(FXTRACE_STATE_STARTED, sp->state);
	ASSERT_NE(gen, sp->generation);
	gen = sp->generation;
	ASSERT_EQ(2, sp->start_seq);
	ASSERT_EQ(FXTRACE_START_CLEAR_NONDURABLE, sp->disposition);
	ASSERT_EQ(3, sp->categories_count);

	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(FXTRACE_STATE_STOPPED, sp->state);
	ASSERT_NE(gen, sp->generation);
	gen = sp->generation;

	ASSERT_EQ(0, terminate_reopen(&self->fd));
	ASSERT_EQ(FXTRACE_STATE_NONE, sp->state);
	ASSERT_NE(gen, sp->generation);
	gen = sp->generation;

	/* A new session: a new session_id, start_seq from 0, no categories. */
	config_init(&c, FXTRACE_MODE_STREAMING);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, sp->state);
	ASSERT_NE(gen, sp->generation);
	ASSERT_EQ(sid + 1, sp->session_id);
	ASSERT_EQ(0, sp->start_seq);
	ASSERT_EQ(FXTRACE_MODE_STREAMING, sp->mode);
	ASSERT_EQ(0, sp->categories_count);
	ASSERT_EQ(0, sp->categories_size);
}

static int category(int fd, const char *name, size_t len, __u32 *index)
{
	struct fxtrace_category c = {
		.size = sizeof(c), .name = (uintptr_t)name, .name_len = len,
	};
	int ret = ioctl(fd, FXTRACE_IOC_CATEGORY, &c);

	if (!ret && index)
		*index = c.index;
	return ret;
}

TEST_F(nosess, category_slots)
{
	const struct fxtrace_session_page *sp = map_session(self->fd);
	const volatile __u8 *enabled;
	struct fxtrace_category c;
	__u32 rx, rx2, disk, sched;
	char name[128];
	struct fxtrace_config cfg;
	struct fxtrace_start s;

	ASSERT_NE(NULL, sp);
	enabled = (const __u8 *)sp + sp->enabled_offset;

	/* Anyone, with no session; the same name gets the same slot. */
	ASSERT_EQ(0, category(self->fd, "net.rx", 6, &rx));
	ASSERT_EQ(0, category(self->fd, "net.rxXX", 6, &rx2));
	ASSERT_EQ(rx, rx2);
	ASSERT_EQ(0, category(self->fd, "disk", 4, &disk));
	ASSERT_EQ(0, category(self->fd, "sched", 5, &sched));
	ASSERT_NE(rx, disk);
	ASSERT_NE(disk, sched);
	ASSERT_LT(rx, FXTRACE_CATEGORY_SLOTS);
	ASSERT_LT(disk, FXTRACE_CATEGORY_SLOTS);
	ASSERT_EQ(0, enabled[rx]);

	memset(name, 'a', sizeof(name));
	ASSERT_EQ(0, category(self->fd, name, 100, NULL));
	ASSERT_ERRNO(EINVAL, category(self->fd, name, 101, NULL));
	ASSERT_ERRNO(EINVAL, category(self->fd, name, 0, NULL));
	ASSERT_ERRNO(EINVAL, category(self->fd, "net.*", 5, NULL));
	ASSERT_ERRNO(EINVAL, category(self->fd, "a b", 3, NULL));
	ASSERT_ERRNO(EINVAL, category(self->fd, "a\0b", 3, NULL));
	ASSERT_ERRNO(EFAULT, category(self->fd, NULL, 4, NULL));
	c = (struct fxtrace_category){ .size = sizeof(c), .index = 1,
				       .name = (uintptr_t)"disk", .name_len = 4 };
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_CATEGORY, &c));
	c = (struct fxtrace_category){ .size = sizeof(c), .__reserved = 1,
				       .name = (uintptr_t)"disk", .name_len = 4 };
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_CATEGORY, &c));

	/* The enable table follows the state and the globs. */
	config_init(&cfg, FXTRACE_MODE_ONESHOT);
	cfg.categories = (uintptr_t)"net.*";
	cfg.categories_size = 6;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &cfg));
	ASSERT_EQ(0, enabled[rx]);
	s = (struct fxtrace_start){ .size = sizeof(s), .categories = (uintptr_t)"sch*d",
				    .categories_size = 6 };
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_START, &s));
	ASSERT_EQ(1, enabled[rx]);
	ASSERT_EQ(0, enabled[disk]);
	ASSERT_EQ(1, enabled[sched]);
	/* A name registered while started gets its byte at once. */
	ASSERT_EQ(0, category(self->fd, "net.tx", 6, &rx2));
	ASSERT_EQ(1, enabled[rx2]);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_EQ(0, enabled[rx]);
	ASSERT_EQ(0, enabled[sched]);
	ASSERT_EQ(0, terminate_reopen(&self->fd));

	/* No list: every name. */
	config_init(&cfg, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &cfg));
	ASSERT_EQ(0, enabled[disk]);
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(1, enabled[disk]);
	ASSERT_EQ(1, enabled[rx]);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(0, enabled[disk]);
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
	ASSERT_ERRNO(EINVAL, start_session(self->fd, 3));
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

/* ---- 5. CPU and KERNEL buffers ----------------------------------------- */

TEST_F(sess, cpu_buffers)
{
	const struct fxtrace_session_page *sp = map_session(self->fd);
	struct fxtrace_buffer_info bi;
	__u64 cpus = 0;
	int i;

	ASSERT_NE(NULL, sp);
	for (i = 1; i <= self->ncpus; i++) {
		const struct fxtrace_buffer_header *h;
		const struct fxtrace_buffer_control *ctl;
		char name[16];

		ASSERT_EQ(0, buffer_info(self->fd, i, &bi));
		ASSERT_EQ(i, bi.id);
		h = map_part(self->fd, i, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
		ASSERT_NE(MAP_FAILED, h) TH_LOG("READER of %d: %s", i, strerror(errno));
		ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
		ASSERT_EQ(sizeof(*h), h->header_size);
		ASSERT_EQ(i, h->id);
		ASSERT_EQ(FXTRACE_BUFFER_CPU, h->kind);
		ASSERT_EQ(FXTRACE_MODE_ONESHOT, h->mode);
		ASSERT_GT(self->ncpus, h->cpu);
		ASSERT_EQ(0, h->comm[0]);
		ASSERT_EQ(0, cpus & (1ULL << h->cpu));
		cpus |= 1ULL << h->cpu;
		ASSERT_EQ(2 * PG, h->data_offset);
		ASSERT_EQ(DURABLE_SIZE, h->durable_size);
		ASSERT_EQ(ROLLING_SIZE, h->rolling_size);
		ASSERT_EQ(h->durable_reserved, h->durable_committed);
		ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
		ctl = (const void *)((const char *)h + PG);
		ASSERT_EQ(0, ctl->durable_committed);
		ASSERT_EQ(0, ctl->wrap_count);
		snprintf(name, sizeof(name), "cpu%u", h->cpu);
		ASSERT_LT(0, check_durable_start(_metadata, (const __u64 *)((const char *)h + h->data_offset),
						 h->durable_reserved, sp->ticks_per_second, i, name, 0));
		munmap((void *)h, bi.reader_size);
	}
}

/* Finds the kernel-object record of koid in words [0, n). */
static const __u64 *find_kobj(const __u64 *w, size_t n, unsigned int type, __u64 koid)
{
	size_t i = 0;

	while (i < n) {
		__u64 size = fxt_bits(w[i], 4, 15);

		if (!size || i + size > n)
			return NULL;
		if (fxt_bits(w[i], 0, 3) == FXT_REC_KOBJ && size >= 2 &&
		    fxt_bits(w[i], 16, 23) == type && w[i + 1] == koid)
			return &w[i];
		i += size;
	}
	return NULL;
}

/* Checks a kobj record's inline name, and its "process" argument for threads. */
static void check_kobj(struct __test_metadata *_metadata, const __u64 *r,
		       const char *name, __u64 process)
{
	__u64 size = fxt_bits(r[0], 4, 15);
	__u64 ref = fxt_bits(r[0], 24, 39);
	__u64 len = ref & 0x7fff;
	const __u64 *arg;

	ASSERT_NE(0, ref & FXT_STRING_REF_INLINE);
	ASSERT_TRUE(stream_eq(&r[2], name, len))
		TH_LOG("name \"%.*s\", want \"%s\"", (int)len, (const char *)&r[2], name);
	if (!process) {
		ASSERT_EQ(0, fxt_bits(r[0], 40, 43));
		ASSERT_EQ(2 + fxt_stream_words(len), size);
		return;
	}
	ASSERT_EQ(1, fxt_bits(r[0], 40, 43));
	ASSERT_EQ(fxt_kobj_name_words(len, process), size);
	arg = &r[2 + fxt_stream_words(len)];
	ASSERT_EQ(FXT_ARG_KOID, fxt_bits(arg[0], 0, 3));
	ASSERT_EQ(3, fxt_bits(arg[0], 4, 15));
	ASSERT_EQ(FXT_STRING_REF_INLINE | 7, fxt_bits(arg[0], 16, 31));
	ASSERT_TRUE(stream_eq(&arg[1], "process", 7));
	ASSERT_EQ(process, arg[2]);
}

TEST_F(sess, kernel_buffer)
{
	const struct fxtrace_session_page *sp = map_session(self->fd);
	const struct fxtrace_buffer_header *h;
	struct fxtrace_buffer_info bi;
	struct fxtrace_packet p[8];
	struct producer thr;
	const __u64 *w, *r;
	char comm[32];
	__u32 kid;
	int words;

	ASSERT_NE(NULL, sp);
	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, producer_start(&thr, self->fd2, 0, "fxkobj-thread"));
	ASSERT_EQ(0, thr.ret);
	ASSERT_EQ(1, drain(self->fd, p, 8));
	kid = thr.a.buffer_id + 1;
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(2, drain(self->fd, p, 8));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_KERNEL, kid);

	ASSERT_EQ(0, buffer_info(self->fd, kid, &bi));
	ASSERT_EQ(kid, bi.id);
	ASSERT_EQ(FXTRACE_BUFFER_KERNEL, bi.kind);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, bi.state);
	ASSERT_EQ(FXTRACE_MMAP_OFFSET(kid, FXTRACE_MMAP_READER), bi.reader_offset);
	ASSERT_MMAP_ERRNO(EACCES, map_part(self->fd2, kid, FXTRACE_MMAP_READER,
					   bi.reader_size, PROT_READ));
	ASSERT_MMAP_ERRNO(EACCES, map_part(self->fd, kid, FXTRACE_MMAP_PRODUCER,
					   bi.reader_size - PG, PROT_READ | PROT_WRITE));
	h = map_part(self->fd, kid, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("READER: %s", strerror(errno));

	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(kid, h->id);
	ASSERT_EQ(FXTRACE_BUFFER_KERNEL, h->kind);
	ASSERT_EQ(~0U, h->cpu);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	ASSERT_EQ(2 * PG, h->data_offset);
	ASSERT_EQ(0, h->rolling_size);
	ASSERT_EQ(bi.reader_size, h->data_offset + h->durable_size);
	ASSERT_EQ(1, h->start_seq);
	ASSERT_LT(h->durable_reserved, h->durable_committed);
	ASSERT_GE(h->durable_size, h->durable_committed);
	ASSERT_EQ(0, h->durable_committed % 8);

	w = (const __u64 *)((const char *)h + h->data_offset);
	words = check_durable_start(_metadata, w, h->durable_reserved,
				    sp->ticks_per_second, kid, "kernel", 1);
	ASSERT_LT(0, words);

	/* This process, its main thread and the named thread. */
	read_comm("/proc/self/comm", comm, sizeof(comm));
	r = find_kobj(w, h->durable_committed / 8, FXT_KOBJ_PROCESS, getpid());
	ASSERT_NE(NULL, r) TH_LOG("no process record for %d", getpid());
	check_kobj(_metadata, r, comm, 0);
	r = find_kobj(w, h->durable_committed / 8, FXT_KOBJ_THREAD, getpid());
	ASSERT_NE(NULL, r) TH_LOG("no thread record for %d", getpid());
	check_kobj(_metadata, r, comm, getpid());
	r = find_kobj(w, h->durable_committed / 8, FXT_KOBJ_THREAD, thr.tid);
	ASSERT_NE(NULL, r) TH_LOG("no thread record for %d", thr.tid);
	check_kobj(_metadata, r, "fxkobj-thread", getpid());
	/* Records fill [durable_reserved, durable_committed) exactly. */
	{
		size_t i = 0, n = h->durable_committed / 8;

		while (i < n && fxt_bits(w[i], 4, 15))
			i += fxt_bits(w[i], 4, 15);
		ASSERT_EQ(n, i);
	}
	producer_stop(&thr);
}

/* ---- 6. ATTACH ---------------------------------------------------------- */

TEST_F(sess, attach_fields)
{
	struct fxtrace_attach a, b;
	struct fxtrace_packet p[4];
	struct fxtrace_session_info si;
	struct producer thr;
	__u32 id = self->ncpus + 1;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, attach(self->fd2, &a)) TH_LOG("ATTACH: %s", strerror(errno));
	ASSERT_EQ(sizeof(a), a.size);
	ASSERT_EQ(id, a.buffer_id);
	ASSERT_EQ(getpid(), a.pid);
	ASSERT_EQ(sys_gettid(), a.tid);
	ASSERT_EQ(FXTRACE_MMAP_OFFSET(id, FXTRACE_MMAP_HEADER), a.header_offset);
	ASSERT_EQ(PG, a.header_size);
	ASSERT_EQ(FXTRACE_MMAP_OFFSET(id, FXTRACE_MMAP_PRODUCER), a.producer_offset);
	ASSERT_EQ(PG + DATA_SIZE, a.producer_size);
	ASSERT_EQ(0, a.monotonic_offset);
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, id);

	/* Once per thread, from any fd. */
	ASSERT_ERRNO(EEXIST, attach(self->fd2, &b));
	ASSERT_ERRNO(EEXIST, attach(self->fd, &b));

	ASSERT_EQ(0, producer_start(&thr, self->fd2, 0, NULL));
	ASSERT_EQ(0, thr.ret) TH_LOG("thread ATTACH: %s", strerror(thr.err));
	ASSERT_EQ(id + 1, thr.a.buffer_id);
	ASSERT_EQ(getpid(), thr.a.pid);
	ASSERT_EQ(thr.tid, thr.a.tid);
	ASSERT_NE(a.tid, thr.a.tid);
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, id + 1);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->ncpus + 2, si.nr_buffers);
	ASSERT_EQ((self->ncpus + 2) * (2 * PG + DATA_SIZE), si.memory_used);
	producer_stop(&thr);

	/* Bad sizes. */
	memset(&b, 0, sizeof(b));
	b.size = FXTRACE_ATTACH_SIZE_V0 - 1;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd2, FXTRACE_IOC_ATTACH, &b));
	ASSERT_ERRNO(EFAULT, ioctl(self->fd2, FXTRACE_IOC_ATTACH, NULL));
}

TEST_F(nosess, attach_enoent)
{
	struct fxtrace_attach a;

	ASSERT_ERRNO(ENOENT, attach(self->fd, &a));
}

TEST_F(nosess, attach_enospc)
{
	struct fxtrace_config c;
	struct fxtrace_attach a;
	struct producer t1, t2;

	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.max_task_buffers = 2;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, producer_start(&t1, self->fd, 0, NULL));
	ASSERT_EQ(0, t1.ret);
	ASSERT_EQ(0, producer_start(&t2, self->fd, 0, NULL));
	ASSERT_EQ(0, t2.ret);
	ASSERT_ERRNO(ENOSPC, attach(self->fd, &a));

	/* Retired buffers still count. */
	producer_stop(&t1);
	usleep(100000);
	ASSERT_ERRNO(ENOSPC, attach(self->fd, &a));
	producer_stop(&t2);
}

/* ---- 7. task buffer mappings ------------------------------------------- */

static const struct fxtrace_buffer_header *map_header(int fd, __u32 id)
{
	void *h = map_part(fd, id, FXTRACE_MMAP_HEADER, PG, PROT_READ);

	return h == MAP_FAILED ? NULL : h;
}


TEST_F(sess, task_header_mmap)
{
	struct fxtrace_attach a;
	const struct fxtrace_buffer_header *h;

	ASSERT_EQ(0, attach(self->fd2, &a));
	h = mmap(NULL, a.header_size, PROT_READ, MAP_SHARED, self->fd2, a.header_offset);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(sizeof(*h), h->header_size);
	ASSERT_EQ(a.buffer_id, h->id);
	ASSERT_EQ(FXTRACE_BUFFER_TASK, h->kind);
	ASSERT_EQ(FXTRACE_MODE_ONESHOT, h->mode);
	ASSERT_EQ(~0U, h->cpu);
	ASSERT_EQ(a.pid, h->pid);
	ASSERT_EQ(a.tid, h->tid);
	ASSERT_EQ(2 * PG, h->data_offset);
	ASSERT_EQ(DURABLE_SIZE, h->durable_size);
	ASSERT_EQ(ROLLING_SIZE, h->rolling_size);
	ASSERT_NE(0, h->durable_reserved);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	ASSERT_EQ(0, h->requested_wraps);
	ASSERT_EQ(0, h->saved_wraps);

	ASSERT_EQ(152, h->header_size);

	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, a.header_size, PROT_READ | PROT_WRITE,
				      MAP_SHARED, self->fd2, a.header_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, a.header_size, PROT_READ, MAP_PRIVATE,
				       self->fd2, a.header_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED,
				       self->fd2, a.header_offset));
	ASSERT_ERRNO(EACCES, mprotect((void *)h, PG, PROT_READ | PROT_WRITE));
	/* The controller may map it too. */
	{
		void *h2 = mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd, a.header_offset);

		ASSERT_NE(MAP_FAILED, h2);
		ASSERT_EQ(0, memcmp(h, h2, sizeof(*h)));
		munmap(h2, PG);
	}
	ASSERT_EQ(0, munmap((void *)h, PG));
}

/*
 * The header names the attached thread as the kernel did at ATTACH
 * (ABI 0.3): a later rename, or garbage in the producer's provider name,
 * does not change it.
 */
TEST_F(sess, task_header_comm)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_packet p[4];
	struct producer thr;
	char comm[64], now[32];
	__u8 *data;

	drain_init(_metadata, self->fd, self->ncpus);
	/* 15 bytes: the longest name a thread can have. */
	ASSERT_EQ(0, producer_start(&thr, self->fd2, 1, "fxt-comm-012345"));
	ASSERT_EQ(0, thr.ret) TH_LOG("ATTACH: %s", strerror(thr.err));
	ASSERT_NE(MAP_FAILED, thr.producer);
	ASSERT_EQ(1, drain(self->fd, p, 4));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_TASK, thr.a.buffer_id);
	h = map_header(self->fd, thr.a.buffer_id);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, memcmp("fxt-comm-012345", h->comm, 16));
	snprintf(comm, sizeof(comm), "/proc/self/task/%d/comm", thr.tid);
	ASSERT_EQ(thr.tid, h->tid);
	ASSERT_EQ(getpid(), h->pid);
	ASSERT_EQ(0, h->comm[15]);

	/* Renamed, and the provider name overwritten by the producer. */
	ASSERT_EQ(0, pthread_setname_np(thr.thread, "renamed"));
	data = (__u8 *)thr.producer + PG;
	memset(data + 8, 'X', 16);
	read_comm(comm, now, sizeof(now));
	ASSERT_EQ(0, strcmp("renamed", now));
	ASSERT_EQ(0, memcmp("fxt-comm-012345", h->comm, 16));
	producer_stop(&thr);
	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 5000));
	ASSERT_RETIRED(p[0], thr.a.buffer_id);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
	ASSERT_EQ(0, memcmp("fxt-comm-012345", h->comm, 16));
}

TEST_F(sess, task_producer_mmap)
{
	const struct fxtrace_session_page *sp = map_session(self->fd2);
	const struct fxtrace_buffer_header *h;
	struct fxtrace_buffer_control *ctl;
	struct fxtrace_attach a;
	char *m, comm[32], name[64];

	ASSERT_NE(NULL, sp);
	ASSERT_EQ(0, attach(self->fd2, &a));
	h = mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd2, a.header_offset);
	ASSERT_NE(MAP_FAILED, h);
	m = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		 a.producer_offset);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("PRODUCER: %s", strerror(errno));
	ctl = (void *)m;
	ASSERT_EQ(h->durable_reserved, ctl->durable_committed);
	ASSERT_EQ(0, ctl->rolling_committed[0]);
	ASSERT_EQ(0, ctl->rolling_committed[1]);
	ASSERT_EQ(0, ctl->wrap_count);
	read_comm("/proc/thread-self/comm", comm, sizeof(comm));
	snprintf(name, sizeof(name), "%s %d", comm, a.tid);
	ASSERT_LT(0, check_durable_start(_metadata, (const __u64 *)(m + PG),
					 h->durable_reserved, sp->ticks_per_second,
					 a.buffer_id, name, 1));
	/* The data area is writable. */
	((volatile __u64 *)(m + PG))[h->durable_reserved / 8] = 42;

	ASSERT_MMAP_ERRNO(EBUSY, mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE,
				      MAP_SHARED, self->fd2, a.producer_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE, self->fd2, a.producer_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, a.producer_size - PG, PROT_READ | PROT_WRITE,
				       MAP_SHARED, self->fd2, a.producer_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, a.producer_size + PG, PROT_READ | PROT_WRITE,
				       MAP_SHARED, self->fd2, a.producer_offset));

	/* Never split. */
	ASSERT_ERRNO(EINVAL, munmap(m + a.producer_size - PG, PG));
	ASSERT_ERRNO(EINVAL, munmap(m, PG));
	ASSERT_ERRNO(EINVAL, mprotect(m, PG, PROT_READ));
	ASSERT_ERRNO(EINVAL, mprotect(m + PG, PG, PROT_READ));
	ASSERT_EQ(42, ((volatile __u64 *)(m + PG))[h->durable_reserved / 8]);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	/* ... and cannot grow. */
	ASSERT_EQ(MAP_FAILED, mremap(m, a.producer_size, a.producer_size + PG, MREMAP_MAYMOVE));
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
}

TEST_F(sess, task_mmap_fork)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_attach a;
	char *m;
	pid_t pid;

	ASSERT_EQ(0, attach(self->fd2, &a));
	m = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		 a.producer_offset);
	ASSERT_NE(MAP_FAILED, m);

	pid = fork();
	if (pid == 0) {
		unsigned char vec[1];

		/* The PRODUCER mapping is not inherited. */
		if (mincore(m, PG, vec) != -1 || errno != ENOMEM)
			_exit(10);
		if (mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd2, a.producer_offset) != MAP_FAILED || errno != EACCES)
			_exit(11);
		if (mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd2,
			 a.header_offset) != MAP_FAILED || errno != EACCES)
			_exit(12);
		/* Its own buffer works. */
		{
			struct fxtrace_attach b;

			if (attach(self->fd2, &b) || b.buffer_id != a.buffer_id + 1 ||
			    b.pid != getpid())
				_exit(13);
		}
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	/* The parent's mapping is still its own, still active. */
	ASSERT_EQ(0, mincore(m, PG, (unsigned char[1]){ 0 }));
	h = map_header(self->fd2, a.buffer_id);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	ASSERT_EQ(h->durable_reserved, ((struct fxtrace_buffer_control *)m)->durable_committed);
}

TEST_F(sess, reader_mmap)
{
	struct fxtrace_attach a;
	struct fxtrace_buffer_info bi;
	const struct fxtrace_buffer_header *h;
	char *m, *r;

	ASSERT_EQ(0, attach(self->fd2, &a));
	m = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		 a.producer_offset);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, buffer_info(self->fd, a.buffer_id, &bi));
	ASSERT_EQ(a.buffer_id, bi.id);
	ASSERT_EQ(FXTRACE_BUFFER_TASK, bi.kind);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, bi.state);
	ASSERT_EQ(FXTRACE_MMAP_OFFSET(a.buffer_id, FXTRACE_MMAP_READER), bi.reader_offset);
	ASSERT_EQ(2 * PG + DATA_SIZE, bi.reader_size);

	r = mmap(NULL, bi.reader_size, PROT_READ, MAP_SHARED, self->fd, bi.reader_offset);
	ASSERT_NE(MAP_FAILED, r) TH_LOG("READER: %s", strerror(errno));
	h = (const void *)r;
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(a.buffer_id, h->id);
	/* The same pages as the producer's. */
	((volatile __u64 *)(m + PG))[100] = 0x1234567890abcdefULL;
	ASSERT_EQ(0x1234567890abcdefULL, ((volatile __u64 *)(r + h->data_offset))[100]);
	ASSERT_EQ(0, memcmp(m, r + PG, PG));
	ASSERT_ERRNO(EACCES, mprotect(r, bi.reader_size, PROT_READ | PROT_WRITE));
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, bi.reader_size, PROT_READ | PROT_WRITE,
				      MAP_SHARED, self->fd, bi.reader_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, bi.reader_size, PROT_READ, MAP_PRIVATE,
				       self->fd, bi.reader_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, bi.reader_size - PG, PROT_READ, MAP_SHARED,
				       self->fd, bi.reader_offset));
	/* Not for other fds, not even the owner's. */
	ASSERT_MMAP_ERRNO(EACCES, mmap(NULL, bi.reader_size, PROT_READ, MAP_SHARED,
				       self->fd2, bi.reader_offset));
	ASSERT_MMAP_ERRNO(EACCES, map_part(self->fd2, 1, FXTRACE_MMAP_READER,
					   2 * PG + DATA_SIZE, PROT_READ));
	ASSERT_MMAP_ERRNO(EACCES, map_part(self->fd2, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ));

	/* No PRODUCER part of a CPU buffer, for anyone. */
	ASSERT_MMAP_ERRNO(EACCES, map_part(self->fd, 1, FXTRACE_MMAP_PRODUCER,
					   PG + DATA_SIZE, PROT_READ | PROT_WRITE));
	ASSERT_MMAP_ERRNO(EACCES, map_part(self->fd2, 1, FXTRACE_MMAP_PRODUCER,
					   PG + DATA_SIZE, PROT_READ | PROT_WRITE));

	/* Unknown ids and parts. */
	ASSERT_MMAP_ERRNO(ENOENT, map_part(self->fd, NO_ID, FXTRACE_MMAP_HEADER, PG, PROT_READ));
	ASSERT_MMAP_ERRNO(ENOENT, map_part(self->fd, NO_ID, FXTRACE_MMAP_READER,
					   2 * PG + DATA_SIZE, PROT_READ));
	ASSERT_MMAP_ERRNO(EINVAL, map_part(self->fd, a.buffer_id, 0, PG, PROT_READ));
	ASSERT_MMAP_ERRNO(EINVAL, map_part(self->fd, a.buffer_id, 7, PG, PROT_READ));
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
		execl("/proc/self/exe", "session_test", (char *)NULL);
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

	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(0, next_save(self->fd, id, &p, 20000)) TH_LOG("no SAVE_BUFFER for cpu%u", h->cpu);
	ASSERT_PKT(p, FXTRACE_PKT_SAVE_BUFFER, 0, id, 0);
	ASSERT_EQ(1, h->requested_wraps);
	ASSERT_EQ(0, h->saved_wraps);
	ASSERT_EQ(1, h->wrap_count);
	ASSERT_GE(h->rolling_size, h->rolling_committed[0]);
	ASSERT_LT(h->rolling_size - 4096, h->rolling_committed[0]);

	/* Half 1 fills; no switch before the ack: drops. */
	for (i = 0; i < 200 && !__atomic_load_n(&h->dropped_records, __ATOMIC_ACQUIRE); i++)
		ASSERT_NE(0, next_save(self->fd, id, &p, 10)) TH_LOG("SAVE_BUFFER before the ack");
	ASSERT_NE(0, h->dropped_records) TH_LOG("half 1 never filled");
	ASSERT_EQ(1, h->wrap_count);
	ASSERT_EQ(1, h->requested_wraps);
	ASSERT_LE(h->rolling_size - 4096, h->rolling_committed[1]);

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

static int run(const char *cmd, const char *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		execlp(cmd, cmd, arg, (char *)NULL);
		_exit(127);
	}
	return wait_child(pid);
}

/*
 * Fills the module-wide category table, which stays full until rmmod; so
 * only with $FXTRACE_KO, to reload the module afterwards (module
 * parameters given to run.sh -p are lost then).
 */
TEST_F(nosess, category_slots_full)
{
	static unsigned char used[FXTRACE_CATEGORY_SLOTS];
	const char *ko = getenv("FXTRACE_KO");
	__u32 idx, rx, rx2;
	char name[32];
	int i, len, ret = 0;

	if (!ko)
		SKIP(return, "FXTRACE_KO is not set: the module could not be reloaded");
	ASSERT_EQ(0, category(self->fd, "net.rx", 6, &rx));
	used[rx] = 1;
	for (i = 0; i <= FXTRACE_CATEGORY_SLOTS; i++) {
		len = snprintf(name, sizeof(name), "fill.%d", i);
		ret = category(self->fd, name, len, &idx);
		if (ret)
			break;
		ASSERT_LT(idx, FXTRACE_CATEGORY_SLOTS);
		ASSERT_EQ(0, used[idx]) TH_LOG("slot %u given to two names", idx);
		used[idx] = 1;
		ASSERT_EQ(0, category(self->fd, name, len, &rx2));
		ASSERT_EQ(idx, rx2);
	}
	/*
	 * The other tests hold some slots (hostile_test fills the shares of
	 * two users): fewer than 4096 new names fit, root is bound by no share.
	 */
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_LT(FXTRACE_CATEGORY_SLOTS / 2, i);
	ASSERT_EQ(0, category(self->fd, "net.rx", 6, &rx2));
	ASSERT_EQ(rx, rx2);
	ASSERT_ERRNO(ENOSPC, category(self->fd, "never.seen", 10, NULL));

	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, run("rmmod", "fxtrace"));
	ASSERT_EQ(0, run("insmod", ko));
	self->fd = dev_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, category(self->fd, "after.reload", 12, NULL));
}

TEST_HARNESS_MAIN
