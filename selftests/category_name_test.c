// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of FXTRACE_IOC_CATEGORY_NAME (ABI 0.4): the name registered in
 * a slot of the category table, its length and whether the slot is enabled
 * now; exact errnos for a bad struct, an empty slot and a slot out of
 * range; the same answers for an unprivileged caller; no byte of the reply
 * that is not the name's.
 *
 * Run as root in the guest with fxtrace.ko loaded.  Slots live as long as
 * the module, so the tests register names of their own (with the pid where
 * a test needs a new one) and look slots up by what registering returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "kselftest_harness.h"
#include "fxtrace_selftest.h"

#define ASSERT_ERRNO(err, call) do {			\
	errno = 0;					\
	ASSERT_EQ(-1, (long)(call));			\
	ASSERT_EQ(err, errno);				\
} while (0)

/* The slot of a name (FXTRACE_IOC_CATEGORY), or -1 with errno. */
static int category(int fd, const char *name)
{
	struct fxtrace_category c = {
		.size = sizeof(c),
		.name = (__u64)(unsigned long)name,
		.name_len = (__u32)strlen(name),
	};

	return ioctl(fd, FXTRACE_IOC_CATEGORY, &c) ? -1 : (int)c.index;
}

/* FXTRACE_IOC_CATEGORY_NAME of a slot into *cn. */
static int category_name(int fd, __u32 index, struct fxtrace_category_name *cn)
{
	memset(cn, 0, sizeof(*cn));
	cn->size = sizeof(*cn);
	cn->index = index;
	return ioctl(fd, FXTRACE_IOC_CATEGORY_NAME, cn);
}

/*
 * Whether slot index holds exactly name with these flags: the length, the
 * NUL and nothing but zero bytes after it.
 */
static int is_slot(int fd, __u32 index, const char *name, __u32 flags)
{
	struct fxtrace_category_name cn;
	size_t len = strlen(name), i;

	if (category_name(fd, index, &cn))
		return 0;
	if (cn.size != sizeof(cn) || cn.index != index ||
	    cn.name_len != len || cn.flags != flags ||
	    memcmp(cn.name, name, len))
		return 0;
	for (i = len; i < sizeof(cn.name); i++)
		if (cn.name[i])
			return 0;
	return 1;
}

static void config_init(struct fxtrace_config *c, const char *categories)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->mode = FXTRACE_MODE_ONESHOT;
	c->cpu_buffer_size = 64 << 10;
	c->task_buffer_size = 64 << 10;
	c->categories = (__u64)(unsigned long)categories;
	c->categories_size = strlen(categories) + 1;
}

FIXTURE(catname) {
	int fd;
};

FIXTURE_SETUP(catname)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
	self->fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	/* A session a crashed test left behind. */
	if (ioctl(self->fd, FXTRACE_IOC_ADOPT) == 0) {
		ioctl(self->fd, FXTRACE_IOC_TERMINATE);
		close(self->fd);
		self->fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, self->fd);
	}
}

FIXTURE_TEARDOWN(catname)
{
	close(self->fd);
}

TEST_F(catname, names_and_slots)
{
	char longest[FXTRACE_CATEGORY_MAX_LEN + 1];
	int a, b, l;

	/* The module's own categories take the first slots when it loads. */
	ASSERT_TRUE(is_slot(self->fd, 0, "kernel:sched", 0));
	ASSERT_TRUE(is_slot(self->fd, 1, "kernel:task", 0));
	ASSERT_TRUE(is_slot(self->fd, 2, "kernel:irq", 0));
	ASSERT_TRUE(is_slot(self->fd, 3, "kernel:syscall", 0));

	a = category(self->fd, "catname_test.alpha");
	b = category(self->fd, "catname_test/b-2:x");
	ASSERT_LE(4, a);
	ASSERT_LE(4, b);
	ASSERT_NE(a, b);
	ASSERT_TRUE(is_slot(self->fd, a, "catname_test.alpha", 0));
	ASSERT_TRUE(is_slot(self->fd, b, "catname_test/b-2:x", 0));

	/* The longest name: 100 bytes, NUL and padding after it. */
	memset(longest, 'q', FXTRACE_CATEGORY_MAX_LEN);
	longest[FXTRACE_CATEGORY_MAX_LEN] = '\0';
	l = category(self->fd, longest);
	ASSERT_LE(4, l);
	ASSERT_TRUE(is_slot(self->fd, l, longest, 0));
}

/* Slots are given out in order: the one after the newest is empty. */
TEST_F(catname, empty_slot_ends_the_table)
{
	struct fxtrace_category_name cn;
	char name[64];
	int s, t;

	snprintf(name, sizeof(name), "catname_test.new%d", (int)getpid());
	s = category(self->fd, name);
	ASSERT_LE(4, s);
	ASSERT_GT(FXTRACE_CATEGORY_SLOTS - 1, s);
	ASSERT_TRUE(is_slot(self->fd, s, name, 0));
	ASSERT_ERRNO(ENOENT, category_name(self->fd, s + 1, &cn));
	ASSERT_ERRNO(ENOENT, category_name(self->fd, FXTRACE_CATEGORY_SLOTS - 1, &cn));

	/* Registered now, the next slot answers. */
	snprintf(name, sizeof(name), "catname_test.next%d", (int)getpid());
	t = category(self->fd, name);
	ASSERT_EQ(s + 1, t);
	ASSERT_TRUE(is_slot(self->fd, t, name, 0));
}

TEST_F(catname, errors)
{
	struct {
		struct fxtrace_category_name cn;
		__u64 tail;
	} big;
	struct fxtrace_category_name cn, *ro;

	/* Out of range. */
	ASSERT_ERRNO(ERANGE, category_name(self->fd, FXTRACE_CATEGORY_SLOTS, &cn));
	ASSERT_ERRNO(ERANGE, category_name(self->fd, 0xffffffff, &cn));

	/* Sizes: below the first version, over a page. */
	memset(&cn, 0, sizeof(cn));
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &cn));
	cn.size = FXTRACE_CATEGORY_NAME_SIZE_V0 - 1;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &cn));
	cn.size = 4097;
	ASSERT_ERRNO(E2BIG, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &cn));
	ASSERT_EQ(FXTRACE_CATEGORY_NAME_SIZE_V0, sizeof(cn));

	/* A newer caller's struct: zero tail accepted and left alone. */
	memset(&big, 0, sizeof(big));
	big.cn.size = sizeof(big);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &big));
	ASSERT_EQ(strlen("kernel:sched"), big.cn.name_len);
	ASSERT_EQ(0, strcmp(big.cn.name, "kernel:sched"));
	ASSERT_EQ(0, big.tail);
	big.tail = 1;
	ASSERT_ERRNO(E2BIG, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &big));

	/* Output fields set on input. */
	category_name(self->fd, 0, &cn);
	cn.name_len = 0;
	cn.flags = FXTRACE_CATEGORY_NAME_ENABLED;
	memset(cn.name, 0, sizeof(cn.name));
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &cn));
	cn.flags = 0;
	cn.name_len = 12;
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &cn));
	cn.name_len = 0;
	cn.name[sizeof(cn.name) - 1] = 'x';
	ASSERT_ERRNO(EINVAL, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &cn));
	cn.name[sizeof(cn.name) - 1] = '\0';
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, &cn));

	/* Unreadable, then unwritable argument. */
	ASSERT_ERRNO(EFAULT, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, NULL));
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->size = sizeof(*ro);
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	ASSERT_ERRNO(EFAULT, ioctl(self->fd, FXTRACE_IOC_CATEGORY_NAME, ro));
	munmap(ro, 4096);
}

/* ENABLED follows the session: started with the category in its list. */
TEST_F(catname, enabled_follows_the_session)
{
	struct fxtrace_config c;
	struct fxtrace_start st = { .size = sizeof(st) };
	int on = category(self->fd, "catname_test.on");
	int off = category(self->fd, "catname_test.off");

	ASSERT_LE(4, on);
	ASSERT_LE(4, off);
	config_init(&c, "catname_test.on");
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_TRUE(is_slot(self->fd, on, "catname_test.on", 0));

	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_START, &st));
	ASSERT_TRUE(is_slot(self->fd, on, "catname_test.on",
			    FXTRACE_CATEGORY_NAME_ENABLED));
	ASSERT_TRUE(is_slot(self->fd, off, "catname_test.off", 0));
	/* A user glob does not enable kernel categories. */
	ASSERT_TRUE(is_slot(self->fd, 0, "kernel:sched", 0));

	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_STOP));
	ASSERT_TRUE(is_slot(self->fd, on, "catname_test.on", 0));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
}

/*
 * Anyone may read names: an unprivileged user (nobody) gets byte for byte
 * the reply root gets, and the same errnos.
 */
TEST_F(catname, unprivileged_caller)
{
	struct fxtrace_category_name root_cn;
	int slot = category(self->fd, "catname_test.shared");
	int status, fd, mine;
	pid_t pid;

	ASSERT_LE(4, slot);
	ASSERT_EQ(0, category_name(self->fd, slot, &root_cn));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct fxtrace_category_name cn;

		fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
		if (fd < 0 || setresuid(65534, 65534, 65534))
			_exit(10);
		if (category_name(fd, slot, &cn) ||
		    memcmp(&cn, &root_cn, sizeof(cn)))
			_exit(11);
		if (category_name(fd, FXTRACE_CATEGORY_SLOTS, &cn) != -1 ||
		    errno != ERANGE)
			_exit(12);
		if (category_name(fd, FXTRACE_CATEGORY_SLOTS - 1, &cn) != -1 ||
		    errno != ENOENT)
			_exit(13);
		cn.size = 0;
		if (ioctl(fd, FXTRACE_IOC_CATEGORY_NAME, &cn) != -1 ||
		    errno != EINVAL)
			_exit(14);
		/* Its own name, registered unprivileged, reads back. */
		mine = category(fd, "catname_test.nobody");
		if (mine < 4 || !is_slot(fd, mine, "catname_test.nobody", 0))
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * Names are read without the module's lock while another process
 * registers: every slot below the table's end reads as a whole name, never
 * a torn or empty one.
 */
TEST_F(catname, read_while_registering)
{
	struct fxtrace_category_name cn;
	int status, i, s, first, reaped = 0;
	char name[64];
	pid_t pid;

	snprintf(name, sizeof(name), "catname_test.race%d.0", (int)getpid());
	first = category(self->fd, name);
	ASSERT_LE(4, first);
	ASSERT_GT(FXTRACE_CATEGORY_SLOTS - 200, first);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (i = 1; i < 200; i++) {
			snprintf(name, sizeof(name), "catname_test.race%d.%d",
				 (int)getppid(), i);
			if (category(self->fd, name) != first + i)
				_exit(1);
		}
		_exit(0);
	}
	/* Poll the slot after the newest until all 199 have been read. */
	for (s = first + 1; s < first + 200;) {
		if (category_name(self->fd, s, &cn)) {
			ASSERT_EQ(ENOENT, errno);
			/* Once the child is gone, every slot must be there. */
			ASSERT_FALSE(reaped);
			reaped = waitpid(pid, &status, WNOHANG) == pid;
			continue;
		}
		snprintf(name, sizeof(name), "catname_test.race%d.%d",
			 (int)getpid(), s - first);
		ASSERT_EQ(strlen(name), cn.name_len);
		ASSERT_EQ(0, strcmp(name, cn.name));
		s++;
	}
	if (!reaped)
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
