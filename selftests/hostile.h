/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the hostile selftests: raw ABI calls, mappings, packets and
 * children that change uid.  Every helper returns what the system call
 * did, so that tests assert exact errnos.
 */
#ifndef FXTRACE_SELFTEST_HOSTILE_H
#define FXTRACE_SELFTEST_HOSTILE_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#define PG		4096UL
#define DATA_SIZE	(64UL << 10)
#define AREA_SIZE	(2 * PG + DATA_SIZE)	/* charged per buffer */
#define NOBODY		65534
#define NOGROUP		65533

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

/* Ends a session an earlier (crashed) test left behind. */
static inline void end_leftover(void)
{
	int fd = dev_open(0);

	if (fd < 0)
		return;
	if (ioctl(fd, FXTRACE_IOC_ADOPT) == 0)
		ioctl(fd, FXTRACE_IOC_TERMINATE);
	close(fd);
}

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

static inline int start_session(int fd)
{
	struct fxtrace_start s = { .size = sizeof(s) };

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
	struct fxtrace_buffer_full f = {
		.size = sizeof(f), .buffer_id = id, .wrap = wrap,
	};

	return ioctl(fd, FXTRACE_IOC_BUFFER_FULL, &f);
}

static inline int category(int fd, const char *name)
{
	struct fxtrace_category c = {
		.size = sizeof(c),
		.name = (__u64)(unsigned long)name,
		.name_len = (__u32)strlen(name),
	};

	return ioctl(fd, FXTRACE_IOC_CATEGORY, &c) ? -1 : (int)c.index;
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

static inline int drain(int fd, struct fxtrace_packet *p, int max)
{
	int n = 0;

	while (n < max && next_pkt(fd, &p[n], 0) == 0)
		n++;
	return n;
}

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

#endif /* FXTRACE_SELFTEST_HOSTILE_H */
