/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the session ABI selftests share (lifecycle, session page, packets,
 * buffers, retire, streaming and hostile tests): raw ABI calls, mappings,
 * packets, producer threads, children that change uid or drop
 * capabilities, and the fixtures nosess (no session) and sess (a oneshot
 * session).  Every helper returns what the system call did, so that tests
 * assert exact errnos.  Layout facts come from uapi/linux/fxtrace.h.
 */
#ifndef FXTRACE_SELFTEST_HOSTILE_H
#define FXTRACE_SELFTEST_HOSTILE_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/fxt.h>
#include <linux/fxtrace.h>

#include "kselftest_harness.h"
#include "fxtrace_selftest.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

#define PG		((unsigned long)FXTRACE_BUFFER_PAGE_SIZE)
#define DATA_SIZE	(64UL << 10)	/* cpu and task buffer data areas */
#define DURABLE_SIZE	fxtrace_durable_size(DATA_SIZE)
#define ROLLING_SIZE	((DATA_SIZE - DURABLE_SIZE) / 2)
#define AREA_SIZE	(2 * PG + DATA_SIZE)	/* charged per buffer */
#define NO_ID		1000000	/* a buffer id no test reaches */
#define NOBODY		65534
#define NOGROUP		65533

/* ---- system ------------------------------------------------------------- */

static inline pid_t sys_gettid(void)
{
	return syscall(SYS_gettid);
}

static inline int possible_cpus(void)
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

static inline long module_param_read(const char *name, long fallback)
{
	char path[128];
	long v = fallback;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/fxtrace/parameters/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

static inline int module_param_write(const char *name, unsigned long v)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/fxtrace/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%lu\n", v) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* The module's memory maximum (parameter memory_max_mb, default 512). */
static inline __u64 module_memory_max(void)
{
	return (__u64)module_param_read("memory_max_mb", 512) << 20;
}

/* Drops CAP_SYS_ADMIN and CAP_PERFMON (root stays root otherwise). */
static inline int drop_caps(void)
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
static inline int wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Becomes uid (and gid) for good; root's capabilities go with it. */
static inline int become(uid_t uid)
{
	return setgroups(0, NULL) || setgid(uid) || setuid(uid) ? -1 : 0;
}

static inline void read_comm(const char *path, char *comm, size_t len)
{
	FILE *f = fopen(path, "r");

	comm[0] = 0;
	if (f) {
		if (fgets(comm, len, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
}

/* ---- the ABI's calls ---------------------------------------------------- */

static inline int dev_open(int flags)
{
	return open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC | flags);
}

static inline void config_init(struct fxtrace_config *c, __u32 mode)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->mode = mode;
	c->cpu_buffer_size = DATA_SIZE;
	c->task_buffer_size = DATA_SIZE;
}

/* Ends a session that an earlier (crashed) test left behind. */
static inline void end_leftover(void)
{
	int fd = dev_open(0);

	if (fd < 0)
		return;
	if (ioctl(fd, FXTRACE_IOC_ADOPT) == 0)
		ioctl(fd, FXTRACE_IOC_TERMINATE);
	close(fd);
}

/* INIT, adopting and terminating a leftover session on EBUSY. */
static inline int init_session(int fd, struct fxtrace_config *c)
{
	int ret = ioctl(fd, FXTRACE_IOC_INIT, c);

	if (ret < 0 && errno == EBUSY) {
		end_leftover();
		ret = ioctl(fd, FXTRACE_IOC_INIT, c);
	}
	return ret;
}

static inline int session_info(int fd, struct fxtrace_session_info *si)
{
	memset(si, 0, sizeof(*si));
	si->size = sizeof(*si);
	return ioctl(fd, FXTRACE_IOC_SESSION_INFO, si);
}

static inline int buffer_info(int fd, __u32 id, struct fxtrace_buffer_info *bi)
{
	memset(bi, 0, sizeof(*bi));
	bi->size = sizeof(*bi);
	bi->id = id;
	return ioctl(fd, FXTRACE_IOC_BUFFER_INFO, bi);
}

static inline int start_session(int fd, __u32 disposition)
{
	struct fxtrace_start s = { .size = sizeof(s), .disposition = disposition };

	return ioctl(fd, FXTRACE_IOC_START, &s);
}

static inline int attach(int fd, struct fxtrace_attach *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	return ioctl(fd, FXTRACE_IOC_ATTACH, a);
}

static inline int release_buffer(int fd, __u32 id)
{
	struct fxtrace_buffer_ref r = { .size = sizeof(r), .id = id };

	return ioctl(fd, FXTRACE_IOC_RELEASE_BUFFER, &r);
}

static inline int buffer_full(int fd, __u32 id, __u64 wrap)
{
	struct fxtrace_buffer_full f = { .size = sizeof(f), .buffer_id = id, .wrap = wrap };

	return ioctl(fd, FXTRACE_IOC_BUFFER_FULL, &f);
}

static inline int category(int fd, const char *name, size_t len, __u32 *index)
{
	struct fxtrace_category c = {
		.size = sizeof(c), .name = (uintptr_t)name, .name_len = len,
	};
	int ret = ioctl(fd, FXTRACE_IOC_CATEGORY, &c);

	if (!ret && index)
		*index = c.index;
	return ret;
}

static inline void *map_part(int fd, __u32 id, __u64 part, size_t len, int prot)
{
	return mmap(NULL, len, prot, MAP_SHARED, fd, FXTRACE_MMAP_OFFSET(id, part));
}

/* The errno of a mapping attempt, 0 if it succeeded (then unmapped). */
static inline int map_errno(int fd, __u32 id, __u64 part, size_t len, int prot)
{
	void *m = map_part(fd, id, part, len, prot);

	if (m == MAP_FAILED)
		return errno;
	munmap(m, len);
	return 0;
}

/*
 * The permissions /proc/self/maps shows for the mapping that starts at
 * addr ("r--s"), into perms; "" when there is none.
 */
static inline const char *map_perms(const void *addr, char perms[5])
{
	unsigned long start, end;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	perms[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %4s", &start, &end, perms) == 3 &&
		    start == (uintptr_t)addr)
			break;
		perms[0] = 0;
	}
	if (f)
		fclose(f);
	return perms;
}

/* Registers name; returns its slot, or -1 (errno set). */
static inline int category_slot(int fd, const char *name)
{
	__u32 index;

	return category(fd, name, strlen(name), &index) ? -1 : (int)index;
}

static inline const struct fxtrace_session_page *map_session(int fd)
{
	void *p = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static inline const struct fxtrace_buffer_header *map_header(int fd, __u32 id)
{
	void *h = map_part(fd, id, FXTRACE_MMAP_HEADER, PG, PROT_READ);

	return h == MAP_FAILED ? NULL : h;
}

/*
 * Reads the next packet, waiting up to timeout_ms for one (the fd may be
 * blocking or not).  0: got one; -1: none came (errno EAGAIN) or error.
 */
static inline int next_pkt(int fd, struct fxtrace_packet *p, int timeout_ms)
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
static inline int drain(int fd, struct fxtrace_packet *p, int max)
{
	int n = 0;

	while (n < max && next_pkt(fd, &p[n], 0) == 0)
		n++;
	return n;
}

/* ---- records ------------------------------------------------------------ */

/* Compares an FXT inline string stream with s. */
static inline int stream_eq(const __u64 *words, const char *s, size_t len)
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
static inline int check_durable_start(struct __test_metadata *_metadata,
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

/* Finds the kernel-object record of koid in words [0, n). */
static inline const __u64 *find_kobj(const __u64 *w, size_t n, unsigned int type, __u64 koid)
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

/* ---- producer threads --------------------------------------------------- */

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

static inline void *producer_fn(void *arg)
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

static inline int producer_start(struct producer *p, int fd, int map, const char *name)
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

static inline void producer_stop(struct producer *p)
{
	char c = 0;

	if (write(p->go[1], &c, 1) == 1)
		pthread_join(p->thread, NULL);
	close(p->go[0]);
	close(p->go[1]);
	close(p->ready[0]);
	close(p->ready[1]);
}

/* ---- assertions --------------------------------------------------------- */

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
static inline int terminate_reopen_fd(int *fd)
{
	close(*fd);
	*fd = dev_open(O_NONBLOCK);
	return *fd < 0 ? -1 : 0;
}

/* Ends the session and opens a new fd in place of the controller's. */
static inline int terminate_reopen(int *fd)
{
	if (ioctl(*fd, FXTRACE_IOC_TERMINATE))
		return -1;
	return terminate_reopen_fd(fd);
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
static inline int drain_init(struct __test_metadata *_metadata, int fd, int ncpus)
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

#endif /* FXTRACE_SELFTEST_HOSTILE_H */
