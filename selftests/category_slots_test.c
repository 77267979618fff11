// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of the category slots' reserve (Documentation/uapi.rst,
 * FXTRACE_IOC_CATEGORY): users other than root may register only up to
 * category_slots_per_user new slots each, and together only the slots
 * before the last FXT_RESERVED, which root and the users the running
 * session traces (its owner, the user of the process its pid filter names)
 * may take, so that the traced user's categories register even when 16
 * other uids (one container's tenant) filled the rest.
 *
 * The test fills the module-wide table, which stays full until rmmod, so
 * it needs $FXTRACE_KO to reload the module afterwards; this program runs
 * last (selftests/Makefile).  Run as root in the guest with fxtrace.ko
 * loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).
 */
#include <sched.h>
#include <sys/prctl.h>

#include "hostile.h"

/* The slots only root and the session's owner may take (uapi.rst). */
#define FXT_RESERVED	(FXTRACE_CATEGORY_SLOTS / 4)
#define FXT_OPEN_SLOTS	(FXTRACE_CATEGORY_SLOTS - FXT_RESERVED)

#define TENANT_UIDS	16	/* 16 * 256: the whole table, without a reserve */
#define FIRST_TENANT	60000
#define OWNER		60100	/* the session's owner, the traced user */
#define OTHER		60101	/* neither tenant nor owner */
#define NS_OWNER	60102	/* made a user namespace */
#define NS_SUB		60103	/* its uid 0: a subordinate uid of NS_OWNER */
#define THREADED	60104	/* runs a process with a second thread */

/* The number of slots in use: the first one CATEGORY_NAME finds empty. */
static int slots_used(int fd)
{
	struct fxtrace_category_name cn;
	int i;

	for (i = 0; i < FXTRACE_CATEGORY_SLOTS; i++) {
		memset(&cn, 0, sizeof(cn));
		cn.size = sizeof(cn);
		cn.index = i;
		if (ioctl(fd, FXTRACE_IOC_CATEGORY_NAME, &cn))
			return errno == ENOENT ? i : -1;
	}
	return i;
}

/* A child that registers names as a user when told to. */
struct registrar {
	pid_t pid;
	int gate;	/* a byte lets it go */
	int result;	/* its counts */
};

/*
 * Forks a child that becomes uid and, once released, registers the names
 * prefix.0 to prefix.(max - 1) until one is refused.  With sub (not 0), the
 * child first makes a user namespace, where it becomes uid 0, which is the
 * kernel uid sub (a subordinate uid, mapped as newuidmap would).
 */
static int registrar_start(struct registrar *r, uid_t uid, uid_t sub,
			   const char *prefix, int max)
{
	int gate[2], result[2], fd, ok;
	char path[64], map[64], c;

	r->pid = 0;
	if (pipe(gate))
		return -1;
	if (pipe(result)) {
		close(gate[0]);
		close(gate[1]);
		return -1;
	}
	r->pid = fork();
	if (r->pid == 0) {
		int res[3], fd, idx;
		char name[64], go;

		close(gate[1]);
		close(result[0]);
		if (become(uid))
			_exit(1);
		/* Made the namespace; mapped; became sub. */
		if (sub && (unshare(CLONE_NEWUSER) ||
			    write(result[1], "u", 1) != 1 ||
			    read(gate[0], &go, 1) != 1 || setresuid(0, 0, 0) ||
			    write(result[1], "s", 1) != 1))
			_exit(1);
		if (read(gate[0], &go, 1) != 1)
			_exit(1);
		fd = dev_open(0);
		if (fd < 0)
			_exit(2);
		res[1] = -1;
		res[2] = 0;
		for (res[0] = 0; res[0] < max; res[0]++) {
			snprintf(name, sizeof(name), "%s.%d", prefix, res[0]);
			idx = category_slot(fd, name);
			if (idx < 0) {
				res[2] = errno;
				break;
			}
			if (!res[0])
				res[1] = idx;
		}
		_exit(write(result[1], res, sizeof(res)) == sizeof(res) ? 0 : 3);
	}
	close(gate[0]);
	close(result[1]);
	r->gate = gate[1];
	r->result = result[0];
	if (r->pid < 0)
		return -1;
	if (!sub)
		return 0;
	/* Without its map, the child fails its setresuid() once released. */
	snprintf(map, sizeof(map), "0 %u 1\n", sub);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", r->pid);
	ok = read(r->result, &c, 1) == 1;
	fd = ok ? open(path, O_WRONLY) : -1;
	ok = fd >= 0 && write(fd, map, strlen(map)) == (ssize_t)strlen(map);
	if (fd >= 0)
		close(fd);
	c = 1;
	return write(r->gate, &c, 1) == 1 && read(r->result, &c, 1) == 1 &&
	       ok ? 0 : -1;
}

/*
 * Releases the child and collects its counts: how many names it
 * registered, or -1; *first is the slot of prefix.0 (or -1), *err the
 * errno of the refusal (or 0).
 */
static int registrar_end(struct registrar *r, int *first, int *err)
{
	int res[3], ret;
	char go = 1;

	if (write(r->gate, &go, 1) != 1 ||
	    read(r->result, res, sizeof(res)) != sizeof(res))
		res[0] = -1;
	close(r->gate);
	close(r->result);
	ret = wait_child(r->pid);
	r->pid = 0;
	if (ret != 0)
		return -1;
	*first = res[1];
	*err = res[2];
	return res[0];
}

/* registrar_start() and registrar_end() at once. */
static int names_as(uid_t uid, const char *prefix, int max, int *first, int *err)
{
	struct registrar r;

	if (registrar_start(&r, uid, 0, prefix, max))
		return -1;
	return registrar_end(&r, first, err);
}

/*
 * Becomes uid with CAP_PERFMON only (a tracing user, not root) and
 * initializes a session, which uid then owns.
 */
static int init_as(uid_t uid)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	struct fxtrace_config c;
	int fd;

	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ||
	    syscall(SYS_capget, &h, d))
		return -1;
	memset(d, 0, sizeof(d));
	d[CAP_PERFMON / 32].effective = 1U << (CAP_PERFMON % 32);
	d[CAP_PERFMON / 32].permitted = 1U << (CAP_PERFMON % 32);
	if (syscall(SYS_capset, &h, d))
		return -1;
	fd = dev_open(0);
	if (fd < 0)
		return -1;
	config_init(&c, FXTRACE_MODE_ONESHOT);
	return ioctl(fd, FXTRACE_IOC_INIT, &c) ? -1 : fd;
}

/*
 * A child that owns a session as uid until *done is closed, then
 * terminates it.  Returns its pid once the session is initialized, or -1.
 */
static pid_t owner_session(uid_t uid, int *done)
{
	int ready[2], wait_end[2];
	char c = 1;
	pid_t pid;

	if (pipe(ready))
		return -1;
	if (pipe(wait_end)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int fd;

		close(ready[0]);
		close(wait_end[1]);
		fd = init_as(uid);
		if (fd < 0)
			_exit(1);
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		/* EOF: the parent closed its end, or exited. */
		if (read(wait_end[0], &c, 1) != 0)
			_exit(3);
		_exit(ioctl(fd, FXTRACE_IOC_TERMINATE) ? 4 : 0);
	}
	close(ready[1]);
	close(wait_end[0]);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(wait_end[1]);
		wait_child(pid);
		return -1;
	}
	close(ready[0]);
	*done = wait_end[1];
	return pid;
}

/* The second thread: tells its id on pipes[1], then waits on pipes[0]. */
static void *thread_wait(void *arg)
{
	int *pipes = arg;
	pid_t tid = sys_gettid();
	char c;

	if (write(pipes[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	/* Until its process ends: EOF on the gate, or the process's exit. */
	while (read(pipes[0], &c, 1) > 0)
		;
	return NULL;
}

/*
 * Forks a process running as uid with a second thread, kept until *done
 * is closed.  Returns its pid, and that thread's id in *tid, or -1.
 */
static pid_t threaded_start(uid_t uid, pid_t *tid, int *done)
{
	int ready[2], gate[2];
	pid_t pid;

	if (pipe(ready))
		return -1;
	if (pipe(gate)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int pipes[2] = { gate[0], ready[1] };
		pthread_t thread;

		close(ready[0]);
		close(gate[1]);
		if (become(uid) ||
		    pthread_create(&thread, NULL, thread_wait, pipes))
			_exit(1);
		pthread_join(thread, NULL);
		_exit(0);
	}
	close(ready[1]);
	close(gate[0]);
	if (pid < 0 || read(ready[0], tid, sizeof(*tid)) != sizeof(*tid)) {
		close(ready[0]);
		close(gate[1]);
		if (pid > 0)
			wait_child(pid);
		return -1;
	}
	close(ready[0]);
	*done = gate[1];
	return pid;
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

FIXTURE(full) {
	int fd;
	const char *ko;
	pid_t owner;	/* owner_session()'s or threaded_start()'s child, or 0 */
	int done;	/* its pipe, or -1 */
	struct registrar reg;	/* a registrar_start()'s child, pid 0 if none */
	int ctl;	/* the second root session's controller, or -1 */
};

FIXTURE_SETUP(full)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
	self->ko = getenv("FXTRACE_KO");
	self->owner = 0;
	self->done = -1;
	self->reg.pid = 0;
	self->ctl = -1;
	self->fd = dev_open(0);
	ASSERT_LE(0, self->fd);
	end_leftover();
}

/*
 * The table stays full until the module is reloaded, which the owner's
 * child, or a registrar that has the device open since its fork, would
 * keep from unloading if the test stopped before ending them.
 */
FIXTURE_TEARDOWN(full)
{
	if (self->done >= 0)
		close(self->done);
	if (self->owner > 0)
		wait_child(self->owner);
	if (self->reg.pid > 0) {
		close(self->reg.gate);
		close(self->reg.result);
		wait_child(self->reg.pid);
	}
	if (self->ctl >= 0)
		close(self->ctl);
	close(self->fd);
	end_leftover();
	if (self->ko) {
		EXPECT_EQ(0, run("rmmod", "fxtrace"));
		EXPECT_EQ(0, run("insmod", self->ko));
	}
}

/*
 * Sixteen uids, 256 slots each, filled the whole table: from then on
 * every new name got ENOSPC, even the traced user's, until rmmod.
 */
TEST_F(full, tenants_leave_the_reserve)
{
	long per_user = module_param_read("category_slots_per_user", -1);
	int got[TENANT_UIDS], err[TENANT_UIDS];
	int used, left, total = 0, i, n, slot, e = 0;
	struct registrar *r = &self->reg;
	struct fxtrace_config c;
	char prefix[32];
	pid_t tid;

	if (!self->ko)
		SKIP(return, "FXTRACE_KO is not set: the module could not be reloaded");
	ASSERT_EQ(256, per_user);
	used = slots_used(self->fd);
	ASSERT_LT(0, used);
	ASSERT_GT(FXT_OPEN_SLOTS, used);

	self->owner = owner_session(OWNER, &self->done);
	ASSERT_LT(0, self->owner);
	for (i = 0; i < TENANT_UIDS; i++) {
		snprintf(prefix, sizeof(prefix), "slots.tenant%d", i);
		got[i] = names_as(FIRST_TENANT + i, prefix, per_user + 1, &slot, &err[i]);
		ASSERT_LE(0, got[i]);
		total += got[i];
	}
	ASSERT_EQ(ENOSPC, err[TENANT_UIDS - 1]);

	/* The traced user's new category: the first reserved slot. */
	n = names_as(OWNER, "slots.traced", 1, &slot, &e);
	ASSERT_EQ(1, n) TH_LOG("the session's owner: %s", strerror(e));
	ASSERT_EQ(FXT_OPEN_SLOTS, slot);

	/* Each tenant: its share, or what was left of the open slots. */
	left = FXT_OPEN_SLOTS - used;
	ASSERT_EQ(left, total);
	for (i = 0; i < TENANT_UIDS; i++) {
		n = left < per_user ? left : per_user;
		EXPECT_EQ(n, got[i]) TH_LOG("tenant %d", i);
		left -= n;
		EXPECT_EQ(left ? EDQUOT : ENOSPC, err[i]) TH_LOG("tenant %d", i);
	}

	/* Another user: no reserved slot.  Root: the next one. */
	ASSERT_EQ(0, names_as(OTHER, "slots.other", 1, &slot, &e));
	ASSERT_EQ(ENOSPC, e);
	ASSERT_EQ(FXT_OPEN_SLOTS + 1, category_slot(self->fd, "slots.root"));

	/* Once the session ends, its owner is one more user. */
	close(self->done);
	self->done = -1;
	ASSERT_EQ(0, wait_child(self->owner));
	self->owner = 0;
	ASSERT_EQ(0, names_as(OWNER, "slots.late", 1, &slot, &e));
	ASSERT_EQ(ENOSPC, e);
	/* A name registered keeps its slot. */
	ASSERT_EQ(1, names_as(OWNER, "slots.traced", 1, &slot, &e));
	ASSERT_EQ(FXT_OPEN_SLOTS, slot);

	/*
	 * Root's session with a pid filter: the user of the traced process
	 * takes reserved slots (sudo fxtrace record -u USER -- PROGRAM).
	 */
	ASSERT_EQ(0, registrar_start(r, OTHER, 0, "slots.other", 1));
	config_init(&c, FXTRACE_MODE_ONESHOT);
	c.filter_pid = r->pid;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(1, registrar_end(r, &slot, &e)) TH_LOG("%s", strerror(e));
	ASSERT_EQ(FXT_OPEN_SLOTS + 2, slot);
	/* The owner of the last session: no longer. */
	ASSERT_EQ(0, names_as(OWNER, "slots.late", 1, &slot, &e));
	ASSERT_EQ(ENOSPC, e);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(FXT_OPEN_SLOTS + 3, slots_used(self->fd));

	/*
	 * The traced process in a user namespace its user made, as one of
	 * that user's subordinate uids, is charged to that user (EDQUOT's
	 * rule), who takes reserved slots; the subordinate uid outside the
	 * namespace is another user.  (self->fd controlled a session: it
	 * cannot initialize another.)
	 */
	ASSERT_EQ(0, registrar_start(r, NS_OWNER, NS_SUB, "slots.userns", 1));
	self->ctl = dev_open(0);
	ASSERT_LE(0, self->ctl);
	c.filter_pid = r->pid;
	ASSERT_EQ(0, ioctl(self->ctl, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(0, names_as(NS_SUB, "slots.sub", 1, &slot, &e));
	ASSERT_EQ(ENOSPC, e);
	ASSERT_EQ(1, registrar_end(r, &slot, &e)) TH_LOG("%s", strerror(e));
	ASSERT_EQ(FXT_OPEN_SLOTS + 3, slot);
	ASSERT_EQ(0, ioctl(self->ctl, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(FXT_OPEN_SLOTS + 4, slots_used(self->fd));

	/*
	 * Events match the filter by tgid: a filter naming a process's
	 * second thread would trace no one, so it names no process (ESRCH;
	 * before, the session traced nothing and the thread's user took a
	 * reserved slot); naming the process, its user takes one.
	 */
	self->owner = threaded_start(THREADED, &tid, &self->done);
	ASSERT_LT(0, self->owner);
	ASSERT_NE(self->owner, tid);
	close(self->ctl);
	self->ctl = dev_open(0);
	ASSERT_LE(0, self->ctl);
	c.filter_pid = tid;
	ASSERT_EQ(-1, ioctl(self->ctl, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(ESRCH, errno);
	ASSERT_EQ(0, names_as(THREADED, "slots.thread", 1, &slot, &e));
	ASSERT_EQ(ENOSPC, e);
	close(self->ctl);
	self->ctl = dev_open(0);
	ASSERT_LE(0, self->ctl);
	c.filter_pid = self->owner;
	ASSERT_EQ(0, ioctl(self->ctl, FXTRACE_IOC_INIT, &c));
	ASSERT_EQ(1, names_as(THREADED, "slots.thread", 1, &slot, &e))
		TH_LOG("%s", strerror(e));
	ASSERT_EQ(FXT_OPEN_SLOTS + 4, slot);
	ASSERT_EQ(0, ioctl(self->ctl, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(FXT_OPEN_SLOTS + 5, slots_used(self->fd));
}

TEST_HARNESS_MAIN
