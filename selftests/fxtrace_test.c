// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of /dev/fxtrace: the ABI version ioctl, its errors, and module
 * load/unload with and without sessions and mappings.  Run as root in the
 * guest with fxtrace.ko loaded and $FXTRACE_KO naming it
 * (tools/guest/run.sh does both).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "kselftest_harness.h"
#include "fxtrace_selftest.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
	self->fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", FXTRACE_DEVICE, strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

/* The version ioctl reports the ABI of the uapi header we were built with. */
TEST_F(dev, version)
{
	struct fxtrace_version v = { .size = sizeof(v) };

	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_VERSION, &v));
	ASSERT_EQ(sizeof(v), v.size);
	ASSERT_EQ(FXTRACE_ABI_MAJOR, v.abi_major);
	ASSERT_EQ(FXTRACE_ABI_MINOR, v.abi_minor);
	ASSERT_EQ(0, v.__reserved);
}

/* A newer caller's larger struct works when its extra bytes are zero. */
TEST_F(dev, version_larger_struct)
{
	struct {
		struct fxtrace_version v;
		__u64 future;
	} big = { .v.size = sizeof(big) };

	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_VERSION, &big));
	ASSERT_EQ(FXTRACE_ABI_MAJOR, big.v.abi_major);
	ASSERT_EQ(0, big.future);

	/* ... and fails with E2BIG when they are not. */
	big.v.abi_major = 0;
	big.v.abi_minor = 0;
	big.future = 1;
	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, &big));
	ASSERT_EQ(E2BIG, errno);
}

/* Sizes below the first version, above a page, and input in output fields. */
TEST_F(dev, version_bad_size)
{
	struct fxtrace_version v = { .size = FXTRACE_VERSION_SIZE_V0 - 1 };

	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, &v));
	ASSERT_EQ(EINVAL, errno);

	v.size = 0;
	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, &v));
	ASSERT_EQ(EINVAL, errno);

	v.size = getpagesize() + 1;
	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, &v));
	ASSERT_EQ(E2BIG, errno);

	v = (struct fxtrace_version){ .size = sizeof(v), .abi_major = 1 };
	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, &v));
	ASSERT_EQ(EINVAL, errno);
}

/* Bad pointers: NULL, unmapped, and a struct that runs off its mapping. */
TEST_F(dev, version_efault)
{
	long page = getpagesize();
	char *map;

	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, NULL));
	ASSERT_EQ(EFAULT, errno);

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, munmap(map + page, page));

	/* The size word is readable, the rest of the struct is not. */
	*(__u32 *)(map + page - 4) = sizeof(struct fxtrace_version);
	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, map + page - 4));
	ASSERT_EQ(EFAULT, errno);

	ASSERT_EQ(-1, ioctl(self->fd, FXTRACE_IOC_VERSION, map + page));
	ASSERT_EQ(EFAULT, errno);
	munmap(map, page);
}

/* Unknown commands: another number, another magic, another size. */
TEST_F(dev, unknown_ioctl)
{
	struct fxtrace_version v = { .size = sizeof(v) };

	ASSERT_EQ(-1, ioctl(self->fd, _IOWR(FXTRACE_IOC_MAGIC, 0xff, struct fxtrace_version), &v));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IOWR('x', 0, struct fxtrace_version), &v));
	ASSERT_EQ(ENOTTY, errno);
	ASSERT_EQ(-1, ioctl(self->fd, _IOWR(FXTRACE_IOC_MAGIC, 0, __u64), &v));
	ASSERT_EQ(ENOTTY, errno);
}

static int run(const char *cmd, const char *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execlp(cmd, cmd, arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* rmmod is refused while the device is open. */
TEST_F(dev, rmmod_refused_while_open)
{
	if (!getenv("FXTRACE_KO"))
		SKIP(return, "FXTRACE_KO is not set");
	ASSERT_NE(0, run("rmmod", "fxtrace"));
	ASSERT_EQ(0, access(FXTRACE_DEVICE, F_OK));
}

FIXTURE(module) {
};

FIXTURE_SETUP(module)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
}

FIXTURE_TEARDOWN(module)
{
}

/*
 * 100 unload/load cycles, the device working after each (the bench checks
 * the kernel log for warnings).
 */
TEST_F_TIMEOUT(module, load_unload_loop, 300)
{
	const char *ko = getenv("FXTRACE_KO");
	struct fxtrace_version v;
	int i, fd;

	if (!ko)
		SKIP(return, "FXTRACE_KO is not set");
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, run("rmmod", "fxtrace")) TH_LOG("rmmod, cycle %d", i);
		ASSERT_NE(0, access(FXTRACE_DEVICE, F_OK));
		ASSERT_EQ(0, run("insmod", ko)) TH_LOG("insmod, cycle %d", i);
		fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		v = (struct fxtrace_version){ .size = sizeof(v) };
		ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_VERSION, &v));
		ASSERT_EQ(FXTRACE_ABI_MAJOR, v.abi_major);
		close(fd);
	}
}

static int init_session(int fd)
{
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = FXTRACE_MODE_ONESHOT,
		.cpu_buffer_size = 64 << 10,
		.task_buffer_size = 64 << 10,
	};

	return ioctl(fd, FXTRACE_IOC_INIT, &cfg);
}

/*
 * Mappings keep the module: with the fd closed, rmmod is refused while the
 * session page or a buffer is mapped, and succeeds once they are gone,
 * freeing the orphaned session.
 */
TEST_F(module, rmmod_refused_while_mapped)
{
	const char *ko = getenv("FXTRACE_KO");
	struct fxtrace_attach at = { .size = sizeof(at) };
	void *page, *buf;
	int fd;

	if (!ko)
		SKIP(return, "FXTRACE_KO is not set");
	fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, init_session(fd));
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_ATTACH, &at));
	page = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED, fd,
		    FXTRACE_MMAP_SESSION);
	ASSERT_NE(MAP_FAILED, page);
	buf = mmap(NULL, at.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, at.producer_offset);
	ASSERT_NE(MAP_FAILED, buf);
	close(fd);

	ASSERT_NE(0, run("rmmod", "fxtrace"));
	ASSERT_EQ(0, munmap(page, FXTRACE_SESSION_MAP_SIZE));
	ASSERT_NE(0, run("rmmod", "fxtrace"));
	ASSERT_EQ(0, munmap(buf, at.producer_size));
	ASSERT_EQ(0, run("rmmod", "fxtrace"));
	ASSERT_EQ(0, run("insmod", ko));
}

/* rmmod frees a session whose controller is gone. */
TEST_F(module, rmmod_frees_an_orphan)
{
	const char *ko = getenv("FXTRACE_KO");
	struct fxtrace_session_info info = { .size = sizeof(info) };
	int fd;

	if (!ko)
		SKIP(return, "FXTRACE_KO is not set");
	fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, init_session(fd));
	close(fd);
	fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_SESSION_INFO, &info));
	ASSERT_EQ(FXTRACE_SESSION_ORPHANED, info.flags);
	close(fd);

	ASSERT_EQ(0, run("rmmod", "fxtrace"));
	ASSERT_EQ(0, run("insmod", ko));
	fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FXTRACE_IOC_SESSION_INFO, &info));
	ASSERT_EQ(FXTRACE_STATE_NONE, info.state);
	close(fd);
}

TEST_HARNESS_MAIN
