// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of the session page (offset 0 of the device) and of category
 * slots and their enable bytes.  category_slots_full fills the module-wide
 * table and reloads the module: it is the last test of this program, which
 * runs last (selftests/Makefile).
 *
 * The contract is uapi/linux/fxtrace.h and Documentation/uapi.rst; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).  Each test
 * ends the session it created; a session left by a crashed test is adopted
 * and terminated by the next fixture setup.  Helpers and the fixtures
 * nosess and sess: hostile.h.
 */

#include "hostile.h"

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
	/* Never executable: mmap() refuses PROT_EXEC, mprotect() cannot add it. */
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, sz, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd, 0));
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, sz, PROT_EXEC, MAP_SHARED, self->fd, 0));
	{
		void *sp = mmap(NULL, sz, PROT_READ, MAP_SHARED, self->fd, 0);
		char perms[5];

		ASSERT_NE(MAP_FAILED, sp);
		ASSERT_STREQ("r--s", map_perms(sp, perms));
		ASSERT_ERRNO(EACCES, mprotect(sp, sz, PROT_READ | PROT_EXEC));
		ASSERT_ERRNO(EACCES, mprotect(sp, sz, PROT_EXEC));
		ASSERT_STREQ("r--s", map_perms(sp, perms));
		ASSERT_EQ(0, munmap(sp, sz));
	}
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz, PROT_READ, MAP_PRIVATE, self->fd, 0));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd, 0));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz - PG, PROT_READ, MAP_SHARED, self->fd, 0));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz + PG, PROT_READ, MAP_SHARED, self->fd, 0));
	/* An offset with valid part bits but no buffer id is not the session page. */
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, sz, PROT_READ, MAP_SHARED, self->fd,
				       FXTRACE_MMAP_OFFSET(0, 15)));
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

/*
 * The category list leaves the world-readable page with its session: no
 * byte of it is left after Terminate, nor past a shorter list of the
 * next session.
 */
TEST_F(nosess, session_page_forgets_categories)
{
	static const char cats[] = "kreview.secret\0other.*";
	const struct fxtrace_session_page *sp = map_session(self->fd);
	const char *list;
	struct fxtrace_config c;
	size_t i;

	ASSERT_NE(NULL, sp);
	list = (const char *)sp + sp->categories_offset;
	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.categories = (uintptr_t)cats;
	c.categories_size = sizeof(cats);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, memcmp(list, cats, sizeof(cats)));
	ASSERT_EQ(0, terminate_reopen(&self->fd));
	ASSERT_EQ(0, sp->categories_size);
	for (i = 0; i < sizeof(cats) && !list[i]; i++)
		;
	ASSERT_EQ(sizeof(cats), i) TH_LOG("the ended session's list is left from byte %zu", i);

	c.categories = (uintptr_t)"b";
	c.categories_size = 2;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, memcmp(list, "b", 2));
	for (i = 2; i < sizeof(cats) && !list[i]; i++)
		;
	ASSERT_EQ(sizeof(cats), i) TH_LOG("an old list is left past the new one from byte %zu", i);
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
	 * two users): fewer than FXTRACE_CATEGORY_SLOTS new names fit, root is bound by no share.
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
