// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile selftests of fxtrace.ko: what a local user, a second uid, a
 * forked, cloned or exec'd child and a producer writing garbage can do to
 * a session, and that the module's limits, lifetimes and access rules hold
 * against each.  Run as root in the guest with fxtrace.ko loaded; children
 * become uid 65534 and 65533 to play the other users.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>

#include <linux/userfaultfd.h>

#include "hostile.h"
#include "fxtrace_selftest.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

/* ---- helpers ------------------------------------------------------------ */

/* A thread that attaches, maps its producer part and exits. */
struct mapper {
	int fd;
	int ret, err;
	struct fxtrace_attach a;
	void *m;
	pthread_barrier_t *before_exit;
};

static void *mapper_fn(void *arg)
{
	struct mapper *p = arg;

	p->m = MAP_FAILED;
	p->ret = attach(p->fd, &p->a);
	p->err = errno;
	if (!p->ret) {
		p->m = map_part(p->fd, p->a.buffer_id, FXTRACE_MMAP_PRODUCER,
				p->a.producer_size, PROT_READ | PROT_WRITE);
		if (p->m == MAP_FAILED)
			p->err = errno;
	}
	if (p->before_exit)
		pthread_barrier_wait(p->before_exit);
	return NULL;
}

/* Runs a mapper thread to its end; 0 when it attached and mapped. */
static int mapper_run_join(struct mapper *p, int fd)
{
	pthread_t t;

	memset(p, 0, sizeof(*p));
	p->fd = fd;
	if (pthread_create(&t, NULL, mapper_fn, p) || pthread_join(t, NULL))
		return -1;
	return p->ret || p->m == MAP_FAILED ? -1 : 0;
}

static void *attacher_fn(void *arg)
{
	struct mapper *p = arg;

	p->ret = attach(p->fd, &p->a);
	p->err = errno;
	return NULL;
}

/*
 * ATTACH from one new thread after another (each thread attaches once)
 * until one fails or max succeed: res = { the count, the errno of the
 * failure or 0 }.  Returns 0, or -1 when the device or a thread failed.
 */
static int attach_until_refused(int max, int res[2])
{
	struct mapper p = { 0 };
	pthread_t t;
	int fd, n = 0;

	fd = dev_open(0);
	if (fd < 0)
		return -1;
	for (; n < max; n++) {
		p.fd = fd;
		if (pthread_create(&t, NULL, attacher_fn, &p) ||
		    pthread_join(t, NULL))
			return -1;
		if (p.ret)
			break;
	}
	res[0] = n;
	res[1] = n < max ? p.err : 0;
	close(fd);
	return 0;
}

/* A child as uid that attaches when told to (attacher_go()). */
struct attacher {
	pid_t pid;
	int go, out;		/* pipes: the word to start, the result */
};

/*
 * Fork a child that becomes uid, then, once told, ATTACHes from one new
 * thread after another (each thread attaches once) until one fails or
 * max succeed.  Returns 0, or -1 with nothing left behind.
 */
static int attacher_spawn(struct attacher *a, uid_t uid, int max)
{
	int res[2] = { -1, 0 }, go[2], out[2];
	char c;

	if (pipe(go))
		return -1;
	if (pipe(out)) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	a->pid = fork();
	if (a->pid == 0) {
		close(go[1]);
		close(out[0]);
		if (become(uid) || read(go[0], &c, 1) != 1)
			_exit(1);
		if (attach_until_refused(max, res))
			_exit(2);
		_exit(write(out[1], res, sizeof(res)) == sizeof(res) ? 0 : 4);
	}
	close(go[0]);
	close(out[1]);
	a->go = go[1];
	a->out = out[0];
	if (a->pid < 0) {
		close(a->go);
		close(a->out);
		return -1;
	}
	return 0;
}

/*
 * Tell the child to attach and wait for it.  Returns the count, and the
 * errno of the failure in *err (0 if none failed), or -1.
 */
static int attacher_go(struct attacher *a, int *err)
{
	int res[2] = { -1, 0 };

	if (write(a->go, "g", 1) != 1)
		res[0] = -1;
	close(a->go);
	if (read(a->out, res, sizeof(res)) != sizeof(res))
		res[0] = -1;
	close(a->out);
	if (wait_child(a->pid) != 0)
		return -1;
	*err = res[1];
	return res[0];
}

/*
 * In a child as uid: ATTACH from one new thread after another (each thread
 * attaches once) until one fails or max succeed.  Returns the count, and
 * the errno of the failure in *err (0 if none failed), or -1.
 */
static int attach_as(uid_t uid, int max, int *err)
{
	struct attacher a;

	if (attacher_spawn(&a, uid, max))
		return -1;
	return attacher_go(&a, err);
}

/*
 * In a child as uid: register distinct category names until one fails
 * (or max succeed); then register the first again.  Returns the count;
 * *err: the errno of the failure, *again: the index the first name got
 * the second time, or -1.
 */
static int categories_as(uid_t uid, const char *prefix, int max, int *err,
			 int *again)
{
	int res[4], pipefd[2];
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd, n, idx, first = -1;
		char name[64];

		close(pipefd[0]);
		if (become(uid))
			_exit(1);
		fd = dev_open(0);
		if (fd < 0)
			_exit(2);
		res[1] = 0;
		for (n = 0; n < max; n++) {
			snprintf(name, sizeof(name), "%s.%d.%d", prefix, getpid(), n);
			idx = category_slot(fd, name);
			if (idx < 0) {
				res[1] = errno;
				break;
			}
			if (!n)
				first = idx;
		}
		res[0] = n;
		res[2] = -1;
		if (n) {
			snprintf(name, sizeof(name), "%s.%d.0", prefix, getpid());
			res[2] = category_slot(fd, name);
		}
		res[3] = first;
		_exit(write(pipefd[1], res, sizeof(res)) == sizeof(res) ? 0 : 4);
	}
	close(pipefd[1]);
	if (read(pipefd[0], res, sizeof(res)) != sizeof(res))
		res[0] = -1;
	close(pipefd[0]);
	if (wait_child(pid) != 0)
		return -1;
	*err = res[1];
	*again = res[2] == res[3] ? res[2] : -2;
	return res[0];
}

/* One uid registers names until refused: res = { how many, the errno }. */
static void categories_until_refused(const char *prefix, int res[2])
{
	char name[64];
	int fd = dev_open(0);

	res[0] = 0;
	res[1] = fd < 0 ? errno : 0;
	while (fd >= 0) {
		snprintf(name, sizeof(name), "%s.%d.%d", prefix, getpid(), res[0]);
		if (category_slot(fd, name) < 0) {
			res[1] = errno;
			break;
		}
		res[0]++;
	}
}

/*
 * As owner, a user namespace whose uids 0..n-1 are 200000..200000+n-1
 * outside (written by this process, root, as newuidmap writes a user's
 * subordinate uids); in it, each of those uids in turn registers category
 * names until refused.  Returns how many all of them registered, with
 * *err the last refusal's errno; or -1, with *err 1000 + the step that
 * failed.
 */
static int categories_in_userns(uid_t owner, int n, const char *prefix, int *err)
{
	int ready[2], go[2], out[2], res[2] = { -1, 1000 };
	char path[64], map[64];
	pid_t pid;
	int fd, ok;
	char c;

	if (pipe(ready) || pipe(go) || pipe(out))
		return -1;
	pid = fork();
	if (pid == 0) {
		int total = 0, k, r[2] = { 0, 1001 }, sub[2];
		pid_t child;

		close(ready[0]);
		close(go[1]);
		close(out[0]);
		if (become(owner) || unshare(CLONE_NEWUSER))
			goto fail;
		r[1] = 1002;
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			goto fail;
		for (k = 0; k < n; k++) {
			r[1] = 1003;
			if (pipe(sub))
				goto fail;
			child = fork();
			if (child == 0) {
				close(sub[0]);
				if (setresuid(k, k, k))
					r[1] = 1004;
				else
					categories_until_refused(prefix, r);
				_exit(write(sub[1], r, sizeof(r)) == sizeof(r) ? 0 : 4);
			}
			close(sub[1]);
			if (read(sub[0], r, sizeof(r)) != sizeof(r) || wait_child(child))
				r[1] = 1005;
			close(sub[0]);
			if (r[1] >= 1000)
				goto fail;
			total += r[0];
		}
		r[0] = total;
		_exit(write(out[1], r, sizeof(r)) == sizeof(r) ? 0 : 6);
fail:
		r[0] = -1;
		_exit(write(out[1], r, sizeof(r)) == sizeof(r) ? 0 : 6);
	}
	close(ready[1]);
	close(go[0]);
	close(out[1]);
	ok = read(ready[0], &c, 1) == 1;
	snprintf(map, sizeof(map), "0 200000 %d\n", n);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	fd = ok ? open(path, O_WRONLY) : -1;
	ok = fd >= 0 && write(fd, map, strlen(map)) == (ssize_t)strlen(map);
	if (fd >= 0)
		close(fd);
	/* Without its map, the child ends when go closes. */
	if (ok && write(go[1], "g", 1) != 1)
		ok = 0;
	close(go[1]);
	if (read(out[0], res, sizeof(res)) != sizeof(res))
		res[0] = -1;
	close(ready[0]);
	close(out[0]);
	if (wait_child(pid) != 0)
		res[0] = -1;
	*err = res[1] >= 1000 || ok ? res[1] : 1006;
	return ok && res[1] < 1000 ? res[0] : -1;
}

/*
 * As owner, a user namespace whose uids 0..n-1 are base..base+n-1 outside
 * (written by this process, root, as newuidmap writes a user's
 * subordinate uids, or as a container runtime maps its tenant); in it,
 * each uid k in turn attaches until refused or max[k] attached
 * (attach_until_refused()): attached[k] and err[k] are its count and
 * errno.  Returns 0, or -1 with err[0] 1000 + the step that failed.
 */
static int attach_in_userns(uid_t owner, uid_t base, int n, const int *max,
			    int *attached, int *err)
{
	int ready[2], go[2], out[2], res[2 * 8 + 1] = { 1000 };
	char path[64], map[64], c;
	pid_t pid;
	int fd, ok, k;

	if (n > 8 || pipe(ready) || pipe(go) || pipe(out))
		return -1;
	pid = fork();
	if (pid == 0) {
		int sub[2], r[2];
		pid_t child;

		close(ready[0]);
		close(go[1]);
		close(out[0]);
		res[0] = 1001;
		if (become(owner) || unshare(CLONE_NEWUSER))
			goto out;
		res[0] = 1002;
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			goto out;
		for (k = 0; k < n; k++) {
			res[0] = 1003;
			if (pipe(sub))
				goto out;
			child = fork();
			if (child == 0) {
				close(sub[0]);
				r[0] = -1;
				r[1] = 1004;
				if (!setresuid(k, k, k) &&
				    attach_until_refused(max[k], r))
					r[1] = 1005;
				_exit(write(sub[1], r, sizeof(r)) == sizeof(r) ? 0 : 4);
			}
			close(sub[1]);
			if (read(sub[0], r, sizeof(r)) != sizeof(r) || wait_child(child))
				r[1] = 1006;
			close(sub[0]);
			if (r[1] >= 1000) {
				res[0] = r[1];
				goto out;
			}
			res[1 + 2 * k] = r[0];
			res[2 + 2 * k] = r[1];
		}
		res[0] = 0;
out:
		_exit(write(out[1], res, sizeof(res)) == sizeof(res) ? 0 : 6);
	}
	close(ready[1]);
	close(go[0]);
	close(out[1]);
	ok = pid > 0 && read(ready[0], &c, 1) == 1;
	snprintf(map, sizeof(map), "0 %u %d\n", base, n);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	fd = ok ? open(path, O_WRONLY) : -1;
	ok = fd >= 0 && write(fd, map, strlen(map)) == (ssize_t)strlen(map);
	if (fd >= 0)
		close(fd);
	/* Without its map, the child ends when go closes. */
	if (ok && write(go[1], "g", 1) != 1)
		ok = 0;
	close(go[1]);
	if (read(out[0], res, sizeof(res)) != sizeof(res))
		res[0] = 1007;
	close(ready[0]);
	close(out[0]);
	if (pid > 0 && wait_child(pid) != 0)
		res[0] = 1008;
	if (!ok && !res[0])
		res[0] = 1009;
	if (res[0]) {
		err[0] = res[0];
		return -1;
	}
	for (k = 0; k < n; k++) {
		attached[k] = res[1 + 2 * k];
		err[k] = res[2 + 2 * k];
	}
	return 0;
}

/* A child as a tracing user, not root, that owns a session. */
struct perfmon_owner {
	pid_t pid;
	int cmd, res;		/* pipes: its orders, its errnos */
};

#define OWNER_RENAMES 10

/* The names buffer (KERNEL) of fd's started session, mapped; NULL if none. */
static const struct fxtrace_buffer_header *names_map(int fd, size_t *size)
{
	struct fxtrace_buffer_info bi;
	void *h;
	__u32 id;

	for (id = 1; id < 1024; id++) {
		if (buffer_info(fd, id, &bi) || bi.kind != FXTRACE_BUFFER_KERNEL ||
		    bi.state != FXTRACE_BUFFER_ACTIVE)
			continue;
		h = map_part(fd, id, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
		if (h == MAP_FAILED)
			return NULL;
		*size = bi.reader_size;
		return h;
	}
	return NULL;
}

/* The thread records of koid in the names buffer of fd's session, or -1. */
static int names_thread_records(int fd, __u64 koid)
{
	const struct fxtrace_buffer_header *h;
	const __u64 *w, *r;
	size_t size, i = 0, n;
	int count = 0;

	h = names_map(fd, &size);
	if (!h)
		return -1;
	w = (const __u64 *)((const char *)h + h->data_offset);
	n = h->durable_committed / 8;
	for (; (r = find_kobj(w + i, n - i, FXT_KOBJ_THREAD, koid)); count++)
		i = (size_t)(r - w) + fxt_bits(*r, 4, 15);
	munmap((void *)h, size);
	return count;
}

/* The owner's answer to cmd (perfmon_owner_spawn()). */
static int perfmon_owner_serve(int fd, char cmd)
{
	const struct fxtrace_buffer_header *h;
	char name[16];
	size_t size;
	int i, ret;

	switch (cmd) {
	case 's':
		return start_session(fd, FXTRACE_START_CLEAR_ALL) ? errno : 0;
	case 'p':
		return ioctl(fd, FXTRACE_IOC_STOP) ? errno : 0;
	case 'P':
		return ioctl(fd, FXTRACE_IOC_PAUSE) ? errno : 0;
	case 'R':
		return ioctl(fd, FXTRACE_IOC_RESUME) ? errno : 0;
	case 'r':
		for (i = 0; i < OWNER_RENAMES; i++) {
			snprintf(name, sizeof(name), "own%d", i & 1);
			if (prctl(PR_SET_NAME, name))
				return errno;
		}
		return 0;
	case 'd':
		h = names_map(fd, &size);
		if (!h)
			return -1;
		ret = (int)h->dropped_records;
		munmap((void *)h, size);
		return ret;
	case 'k':
		return names_thread_records(fd, (__u64)getpid());
	case 'l':
		h = names_map(fd, &size);
		if (!h)
			return -1;
		ret = (int)(h->durable_size - h->durable_committed);
		munmap((void *)h, size);
		return ret;
	}
	return EINVAL;
}

/*
 * Fork a child that becomes uid with CAP_PERFMON only and initializes a
 * session with c, which uid then owns: then it answers each command it
 * reads (perfmon_owner_ask()) and terminates the session at EOF.  's'
 * starts it (perfmon_owner_start()), 'p' stops it, 'P' pauses it and
 * 'R' resumes it; 'r' renames the
 * child, a task the session traces, OWNER_RENAMES times; 'd' answers the
 * names buffer's dropped_records, 'k' the child's thread records in it,
 * 'l' the bytes left in it.
 * Returns 0 once the session is initialized, or the errno of the step
 * that failed.
 */
static int perfmon_owner_spawn(struct perfmon_owner *o, uid_t uid,
			       const struct fxtrace_config *c)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };
	int res_pipe[2], cmd_pipe[2], res = 0;
	char cmd;

	if (pipe(res_pipe))
		return errno;
	if (pipe(cmd_pipe)) {
		res = errno;
		close(res_pipe[0]);
		close(res_pipe[1]);
		return res;
	}
	o->pid = fork();
	if (o->pid == 0) {
		struct fxtrace_config mine = *c;
		int fd = -1;

		close(res_pipe[0]);
		close(cmd_pipe[1]);
		d[CAP_PERFMON / 32].effective = 1U << (CAP_PERFMON % 32);
		d[CAP_PERFMON / 32].permitted = 1U << (CAP_PERFMON % 32);
		if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
		    setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ||
		    syscall(SYS_capset, &h, d) ||
		    (fd = dev_open(0)) < 0 || ioctl(fd, FXTRACE_IOC_INIT, &mine))
			res = errno;
		if (write(res_pipe[1], &res, sizeof(res)) != sizeof(res) || res)
			_exit(1);
		/* EOF: the parent closed its end, or exited. */
		while (read(cmd_pipe[0], &cmd, 1) == 1) {
			res = perfmon_owner_serve(fd, cmd);
			if (write(res_pipe[1], &res, sizeof(res)) != sizeof(res))
				_exit(2);
		}
		_exit(ioctl(fd, FXTRACE_IOC_TERMINATE) ? 3 : 0);
	}
	close(res_pipe[1]);
	close(cmd_pipe[0]);
	o->cmd = cmd_pipe[1];
	o->res = res_pipe[0];
	if (o->pid < 0 || read(o->res, &res, sizeof(res)) != sizeof(res) || res) {
		res = o->pid < 0 ? errno : res ? res : EPIPE;
		close(o->cmd);
		close(o->res);
		if (o->pid > 0)
			wait_child(o->pid);
		return res;
	}
	return 0;
}

/* The owner's answer to cmd (-1 when the child did not answer). */
static int perfmon_owner_ask(struct perfmon_owner *o, char cmd)
{
	int res = -1;

	if (write(o->cmd, &cmd, 1) != 1 ||
	    read(o->res, &res, sizeof(res)) != sizeof(res))
		return -1;
	return res;
}

/* The owner's START: 0, or its errno (-1 when the child did not answer). */
static int perfmon_owner_start(struct perfmon_owner *o)
{
	return perfmon_owner_ask(o, 's');
}

/* The owner terminates its session and exits: its exit status. */
static int perfmon_owner_end(struct perfmon_owner *o)
{
	close(o->cmd);
	close(o->res);
	return wait_child(o->pid);
}

static __u64 pct(__u64 total)
{
	__u64 v = total * module_param_read("user_share_percent", 25) / 100;

	return v ? v : 1;
}

/* ---- fixture ------------------------------------------------------------ */

FIXTURE(hs) {
	int fd;
	int ncpus;
	struct fxtrace_config cfg;
};

FIXTURE_SETUP(hs)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
	self->ncpus = possible_cpus();
	ASSERT_LT(0, self->ncpus);
	end_leftover();
	self->fd = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", FXTRACE_DEVICE, strerror(errno));
	config_init(&self->cfg, FXTRACE_MODE_ONESHOT);
}

FIXTURE_TEARDOWN(hs)
{
	ioctl(self->fd, FXTRACE_IOC_TERMINATE);
	close(self->fd);
	end_leftover();
}

static void drain_all(int fd)
{
	struct fxtrace_packet p[64];

	while (drain(fd, p, 64) == 64)
		;
}

/* ---- defect 1: memory stays charged while anything maps it -------------- */

TEST_F(hs, release_while_mapped)
{
	__u64 cpu_bytes = (__u64)self->ncpus * AREA_SIZE;
	struct fxtrace_session_info si;
	struct fxtrace_packet p;
	struct fxtrace_attach a;
	struct mapper m[2];
	int i;

	self->cfg.max_task_buffers = 2;
	self->cfg.memory_limit = cpu_bytes + 2 * AREA_SIZE;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
	drain_all(self->fd);

	/* Threads attach, map and exit; the process keeps their mappings. */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, mapper_run_join(&m[i], self->fd)) TH_LOG("%s", strerror(m[i].err));
		ASSERT_EQ(0, next_pkt(self->fd, &p, 5000));
		ASSERT_EQ(FXTRACE_PKT_BUFFER_ADDED, p.request);
		ASSERT_EQ(0, next_pkt(self->fd, &p, 5000));
		ASSERT_EQ(FXTRACE_PKT_BUFFER_RETIRED, p.request);
		ASSERT_EQ(m[i].a.buffer_id, p.data32);
		ASSERT_EQ(0, release_buffer(self->fd, m[i].a.buffer_id));
		/* Still mapped: still charged. */
		ASSERT_EQ(0, session_info(self->fd, &si));
		ASSERT_EQ(cpu_bytes + (i + 1) * AREA_SIZE, si.memory_used);
		ASSERT_EQ(self->ncpus, si.nr_buffers);
	}
	ASSERT_ERRNO(ENOSPC, attach(self->fd, &a));
	/* The pages are alive and still the producer's. */
	memset(m[0].m, 0xa5, PG);

	ASSERT_EQ(0, munmap(m[0].m, m[0].a.producer_size));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes + AREA_SIZE, si.memory_used);
	ASSERT_EQ(0, attach(self->fd, &a));
	ASSERT_EQ(0, munmap(m[1].m, m[1].a.producer_size));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes + AREA_SIZE, si.memory_used);
}

/* A thread that attaches and maps its header only, then exits. */
static void *header_mapper_fn(void *arg)
{
	struct mapper *p = arg;

	p->m = MAP_FAILED;
	p->ret = attach(p->fd, &p->a);
	p->err = errno;
	if (!p->ret)
		p->m = map_part(p->fd, p->a.buffer_id, FXTRACE_MMAP_HEADER, PG,
				PROT_READ);
	return NULL;
}

/*
 * A 4 KiB header mapping keeps its page, not the buffer: otherwise a
 * user's small mappings kept every buffer it attached alive, out of its
 * RSS and, after Terminate, of any session's limits.
 */
TEST_F(hs, header_mapping_keeps_its_page_only)
{
	__u64 cpu_bytes = (__u64)self->ncpus * AREA_SIZE;
	const struct fxtrace_buffer_header *h;
	struct fxtrace_session_info si;
	struct fxtrace_packet p;
	struct mapper m = { .fd = self->fd };
	pthread_t t;

	ASSERT_EQ(0, init_session(self->fd, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
	drain_all(self->fd);
	ASSERT_EQ(0, pthread_create(&t, NULL, header_mapper_fn, &m));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, m.ret) TH_LOG("ATTACH: %s", strerror(m.err));
	ASSERT_NE(MAP_FAILED, m.m) TH_LOG("mmap: %s", strerror(m.err));
	h = m.m;
	ASSERT_EQ(0, next_pkt(self->fd, &p, 5000));
	ASSERT_EQ(FXTRACE_PKT_BUFFER_ADDED, p.request);
	ASSERT_EQ(0, next_pkt(self->fd, &p, 5000));
	ASSERT_EQ(FXTRACE_PKT_BUFFER_RETIRED, p.request);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes + AREA_SIZE, si.memory_used);

	/* Released: the buffer is freed, the header page stays readable. */
	ASSERT_EQ(0, release_buffer(self->fd, m.a.buffer_id));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes, si.memory_used);
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(m.a.buffer_id, h->id);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(0, munmap(m.m, PG));
}

/*
 * The controller's mapping of another process's task buffer header is a
 * PFN mapping, revoked at ADOPT (lifecycle_test): it holds the buffer, as
 * a READER mapping does, not a page, so the buffer stays charged after
 * RELEASE_BUFFER and goes with the mapping.
 */
TEST_F(hs, controller_header_mapping_keeps_its_buffer)
{
	__u64 cpu_bytes = (__u64)self->ncpus * AREA_SIZE;
	const struct fxtrace_buffer_header *h;
	struct fxtrace_session_info si;
	struct fxtrace_packet p;
	int ids[2];
	__u32 id;
	pid_t pid;

	ASSERT_EQ(0, init_session(self->fd, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
	drain_all(self->fd);
	ASSERT_EQ(0, pipe(ids));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct fxtrace_attach a;
		int fd = dev_open(0);

		if (fd < 0 || attach(fd, &a))
			_exit(2);
		_exit(write(ids[1], &a.buffer_id, sizeof(a.buffer_id)) ==
		      sizeof(a.buffer_id) ? 0 : 3);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ((ssize_t)sizeof(id), read(ids[0], &id, sizeof(id)));
	ASSERT_EQ(0, next_pkt(self->fd, &p, 5000));
	ASSERT_EQ(FXTRACE_PKT_BUFFER_ADDED, p.request);
	ASSERT_EQ(0, next_pkt(self->fd, &p, 5000));
	ASSERT_EQ(FXTRACE_PKT_BUFFER_RETIRED, p.request);
	ASSERT_EQ(id, p.data32);

	h = map_part(self->fd, id, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes + AREA_SIZE, si.memory_used);

	/* Released: still charged, the header still the buffer's. */
	ASSERT_EQ(0, release_buffer(self->fd, id));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes + AREA_SIZE, si.memory_used);
	ASSERT_EQ(self->ncpus, si.nr_buffers);
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	ASSERT_EQ(id, h->id);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);

	/* Unmapped: freed. */
	ASSERT_EQ(0, munmap((void *)h, PG));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes, si.memory_used);
	close(ids[0]);
	close(ids[1]);
}

/* Reads a file (cgroup, sysctl) holding one number; -1 on error. */
static long long read_number(const char *dir, const char *file)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int cg_write(const char *dir, const char *file, const char *v)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fputs(v, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/*
 * A cgroup2 hierarchy mounted on root (a new directory) with the memory
 * controller, and its child cgroup name, whose path goes to cg: 0, -ENODEV
 * when the kernel has no cgroup2 (root removed), or -errno.
 */
static int cg_make(const char *root, const char *name, char *cg, size_t size)
{
	if (mount("none", root, "cgroup2", 0, NULL)) {
		rmdir(root);
		return -ENODEV;
	}
	snprintf(cg, size, "%s/%s", root, name);
	if (cg_write(root, "cgroup.subtree_control", "+memory") || mkdir(cg, 0755))
		return -errno;
	return 0;
}

/*
 * Move pid into cg, tell it to go on (go) and wait until it says it is
 * done (done): cg's memory.current before and after; 0 or -1.
 */
static int cg_run_step(const char *cg, pid_t pid, int go, int done,
		       long long *before, long long *after)
{
	char pidstr[16];
	char c;

	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	if (cg_write(cg, "cgroup.procs", pidstr))
		return -1;
	*before = read_number(cg, "memory.current");
	if (*before < 0 || write(go, "g", 1) != 1 || read(done, &c, 1) != 1)
		return -1;
	*after = read_number(cg, "memory.current");
	return 0;
}

/* Undo cg_make() once cg is empty. */
static void cg_remove(const char *root, const char *cg)
{
	rmdir(cg);
	umount(root);
	rmdir(root);
}

/* A task buffer's pages are charged to the memory cgroup of its thread. */
TEST_F(hs, buffer_charged_to_memcg)
{
	char root[] = "/tmp/fxt-cgroup-XXXXXX", cg[300];
	const __u64 size = 4ULL << 20;
	long long before, after;
	int go[2], done[2], ret;
	char c;
	pid_t pid;

	ASSERT_NE(NULL, mkdtemp(root));
	ret = cg_make(root, "fxt", cg, sizeof(cg));
	if (ret == -ENODEV)
		SKIP(return, "no cgroup2");
	ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	self->cfg.task_buffer_size = size;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach a;

		if (read(go[0], &c, 1) != 1 || attach(self->fd, &a))
			_exit(1);
		if (write(done[1], "a", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(0, cg_run_step(cg, pid, go[1], done[0], &before, &after));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(0, wait_child(pid));
	TH_LOG("memory.current of the producer's cgroup: %lld -> %lld bytes", before, after);
	EXPECT_LE((long long)size, after - before);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	cg_remove(root, cg);
}

/*
 * A session terminated while another user maps one of its buffers lives on
 * for that mapping, but its packet ring (charged to the controller's memory
 * cgroup, 3 MiB for 65536 task buffers) goes when the controller's file is
 * closed: nothing reads it any more.
 */
TEST_F(hs, packet_ring_freed_after_terminate)
{
	const long long ring = 16LL * (3 * (possible_cpus() +
					    FXTRACE_TASK_BUFFERS_MAX) + 64);
	char root[] = "/tmp/fxt-cgroup-XXXXXX", cg[300];
	long long before, inited, after;
	int go[2], done[2], ret;
	struct fxtrace_attach a;
	void *m;
	char c;
	pid_t pid;

	ASSERT_NE(NULL, mkdtemp(root));
	ret = cg_make(root, "fxt", cg, sizeof(cg));
	if (ret == -ENODEV)
		SKIP(return, "no cgroup2");
	ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	self->cfg.max_task_buffers = FXTRACE_TASK_BUFFERS_MAX;
	pid = fork();
	if (pid == 0) {
		int fd;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		fd = dev_open(0);
		if (fd < 0 || init_session(fd, &self->cfg))
			_exit(2);
		if (write(done[1], "i", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		if (ioctl(fd, FXTRACE_IOC_TERMINATE))
			_exit(4);
		_exit(0);
	}
	ASSERT_EQ(0, cg_run_step(cg, pid, go[1], done[0], &before, &inited));

	/* This process, another cgroup's, maps a buffer of the session. */
	ASSERT_EQ(0, attach(self->fd, &a)) TH_LOG("ATTACH: %s", strerror(errno));
	m = map_part(self->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER,
		     a.producer_size, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(0, wait_child(pid));
	after = read_number(cg, "memory.current");
	TH_LOG("memory.current of the controller's cgroup: %lld, %lld after INIT, %lld after Terminate and exit (ring %lld bytes)",
	       before, inited, after, ring);
	EXPECT_LE(ring, inited - before);
	EXPECT_GT(ring / 2, after - before);
	ASSERT_EQ(0, munmap(m, a.producer_size));
	cg_remove(root, cg);
}

/*
 * The file of a controller whose session was orphaned (it closed its last
 * descriptor while a child kept the file) and then adopted and terminated
 * by another reads nothing: the packets left are the new controller's,
 * and their ring goes when that one's file closes.
 */
TEST_F(hs, adopted_orphans_old_file_reads_nothing)
{
	struct fxtrace_packet p[8];
	int go[2], fd1, fd2, status;
	char c;
	pid_t pid;

	fd1 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, init_session(fd1, &self->cfg));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(read(fd1, p, sizeof(p)) < 0 ? errno : 0);
	}
	ASSERT_EQ(0, close(fd1));
	fd2 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ioctl(fd2, FXTRACE_IOC_ADOPT)) TH_LOG("ADOPT: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd2, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
	/* The terminating controller still reads what was queued. */
	EXPECT_LT(0, read(fd2, p, sizeof(p)));
	ASSERT_EQ(0, close(fd2));
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * A producer in a memory cgroup over its memory.high is throttled for up
 * to 2 s per 64 pages it charges, here for minutes: while its buffer's
 * pages are allocated, the module's lock must stay free for everyone
 * else, and a SIGKILL must end the allocation and return the charge.
 */
TEST_F(hs, throttled_attach_stalls_nobody)
{
	char root[] = "/tmp/fxt-cgroup-XXXXXX", cg[300], pidstr[16];
	__u64 cpu_bytes = (__u64)self->ncpus * AREA_SIZE;
	struct fxtrace_session_info si;
	struct timespec t0;
	int go[2], status, ret;
	long long current;
	pid_t pid, dog;
	double waited;
	char c;

	ASSERT_NE(NULL, mkdtemp(root));
	ret = cg_make(root, "fxt-slow", cg, sizeof(cg));
	if (ret == -ENODEV)
		SKIP(return, "no cgroup2");
	ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	ASSERT_EQ(0, cg_write(cg, "memory.high", "1048576"));
	self->cfg.task_buffer_size = 64ULL << 20;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach a;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(attach(self->fd, &a) ? 2 : 0);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	ASSERT_EQ(0, cg_write(cg, "cgroup.procs", pidstr));
	ASSERT_EQ(1, write(go[1], "g", 1));
	/* Until it is well over its memory.high, in the throttled part. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(10000);
		current = read_number(cg, "memory.current");
	} while (current < (4LL << 20) && seconds_since(&t0) < 20);
	ASSERT_LE(4LL << 20, current) TH_LOG("the producer's cgroup holds %lld bytes", current);

	/* The old module held its lock here: end the wait after 5 s. */
	dog = fork();
	if (dog == 0) {
		sleep(5);
		kill(pid, SIGKILL);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, session_info(self->fd, &si));
	waited = seconds_since(&t0);
	TH_LOG("SESSION_INFO during a throttled attach: %.3f s", waited);
	ASSERT_GT(1.0, waited);
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG)) TH_LOG("the attach was not throttled");
	kill(dog, SIGKILL);
	waitpid(dog, NULL, 0);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	/* Its charge went back with the pages. */
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(cpu_bytes, si.memory_used);
	ASSERT_EQ((__u32)self->ncpus, si.nr_buffers);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	cg_remove(root, cg);
}

/* A thread that unmaps page once told (unmap), then says so (unmapped). */
struct unmapper {
	void *page;
	int unmap, unmapped;
};

static void *unmapper_fn(void *arg)
{
	struct unmapper *u = arg;
	char c = 'u';

	if (read(u->unmap, &c, 1) != 1 || munmap(u->page, PG))
		c = 'x';
	if (write(u->unmapped, &c, 1) != 1)
		return NULL;
	return NULL;
}

/*
 * A sibling thread unmaps ATTACH's struct while the buffer is allocated
 * (held there by memory.high).  The old module checked the struct before
 * and copied the result after the buffer was in the session: ATTACH said
 * EFAULT while the thread had its buffer, and its next ATTACH said
 * EEXIST.  An ATTACH that made a buffer must say so.
 */
TEST_F(hs, attach_struct_unmapped_meanwhile)
{
	char root[] = "/tmp/fxt-cgroup-XXXXXX", cg[300], pidstr[16];
	int go[2], unmap[2], unmapped[2], result[2], res[2], ret;
	struct fxtrace_session_info si;
	struct timespec t0;
	long long current;
	pid_t pid;
	char c;

	ASSERT_NE(NULL, mkdtemp(root));
	ret = cg_make(root, "fxt-unmap", cg, sizeof(cg));
	if (ret == -ENODEV)
		SKIP(return, "no cgroup2");
	ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	ASSERT_EQ(0, cg_write(cg, "memory.high", "1048576"));
	self->cfg.task_buffer_size = 64ULL << 20;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(unmap));
	ASSERT_EQ(0, pipe(unmapped));
	ASSERT_EQ(0, pipe(result));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct unmapper u = { .unmap = unmap[0], .unmapped = unmapped[1] };
		struct fxtrace_attach *at, again;
		pthread_t t;

		u.page = mmap(NULL, PG, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (u.page == MAP_FAILED || pthread_create(&t, NULL, unmapper_fn, &u) ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		at = u.page;
		res[0] = attach(self->fd, at) ? errno : 0;
		res[1] = attach(self->fd, &again) ? errno : 0;
		_exit(write(result[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	ASSERT_EQ(0, cg_write(cg, "cgroup.procs", pidstr));
	ASSERT_EQ(1, write(go[1], "g", 1));
	/* Until it is well over its memory.high, allocating its buffer. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(10000);
		current = read_number(cg, "memory.current");
	} while (current < (4LL << 20) && seconds_since(&t0) < 20);
	ASSERT_LE(4LL << 20, current) TH_LOG("the producer's cgroup holds %lld bytes", current);
	ASSERT_EQ(1, write(unmap[1], "u", 1));
	ASSERT_EQ(1, read(unmapped[0], &c, 1));
	ASSERT_EQ('u', c);
	ASSERT_EQ(0, cg_write(cg, "memory.high", "max"));

	ASSERT_EQ(sizeof(res), read(result[0], res, sizeof(res)));
	EXPECT_EQ(0, res[0]) TH_LOG("ATTACH: %s", strerror(res[0]));
	EXPECT_EQ(EEXIST, res[1]) TH_LOG("ATTACH again: %s", strerror(res[1]));
	ASSERT_EQ(0, session_info(self->fd, &si));
	EXPECT_EQ((__u32)self->ncpus + 1, si.nr_buffers);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	cg_remove(root, cg);
}

/*
 * The page tables of a mapping are charged to the mapper's memory cgroup,
 * which throttles a task over memory.high for up to 2 s inside the
 * charge.  The module made them under its lock: a producer over its
 * memory.high stalled every controller and producer call for that long,
 * at each mmap() of a large buffer.
 */
TEST_F(hs, throttled_mmap_stalls_nobody)
{
	char root[] = "/tmp/fxt-cgroup-XXXXXX", cg[300], pidstr[16];
	double waited, longest = 0, mapping = 0;
	struct fxtrace_session_info si;
	struct timespec t0, t1;
	int go[2], done[2], status, ret;
	pid_t pid;
	char c;

	ASSERT_NE(NULL, mkdtemp(root));
	ret = cg_make(root, "fxt-slow-map", cg, sizeof(cg));
	if (ret == -ENODEV)
		SKIP(return, "no cgroup2");
	ASSERT_EQ(0, ret) TH_LOG("cgroup: %s", strerror(-ret));
	/* 128 pages of page tables and more: the charge throttles inside. */
	self->cfg.task_buffer_size = FXTRACE_BUFFER_SIZE_MAX;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach a;
		struct timespec t;
		void *m;

		if (read(go[0], &c, 1) != 1 || attach(self->fd, &a))
			_exit(1);
		if (write(done[1], "a", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		clock_gettime(CLOCK_MONOTONIC, &t);
		m = map_part(self->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER,
			     a.producer_size, PROT_READ | PROT_WRITE);
		mapping = seconds_since(&t);
		if (m == MAP_FAILED)
			_exit(3);
		_exit(write(done[1], &mapping, sizeof(mapping)) ==
		      sizeof(mapping) ? 0 : 4);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	ASSERT_EQ(0, cg_write(cg, "cgroup.procs", pidstr));
	ASSERT_EQ(1, write(go[1], "g", 1));
	/* Attached: its 256 MiB are the cgroup's; now far over its high. */
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_EQ(0, cg_write(cg, "memory.high", "1048576"));
	ASSERT_EQ(1, write(go[1], "m", 1));

	/* While it maps: a controller's call never waits for it. */
	ASSERT_EQ(0, fcntl(done[0], F_SETFL, O_NONBLOCK));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (read(done[0], &mapping, sizeof(mapping)) != sizeof(mapping) &&
	       seconds_since(&t0) < 30) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ASSERT_EQ(0, session_info(self->fd, &si));
		waited = seconds_since(&t1);
		if (waited > longest)
			longest = waited;
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("the child failed at step %d",
						 WEXITSTATUS(status));
	TH_LOG("mmap() over memory.high: %.3f s; the longest SESSION_INFO meanwhile: %.3f s",
	       mapping, longest);
	/* Throttled, or the test shows nothing. */
	ASSERT_LE(1.0, mapping);
	ASSERT_GT(0.5, longest);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	cg_remove(root, cg);
}

/* A producer mapping does not move, shrink, grow or duplicate. */
TEST_F(hs, mremap_producer_refused)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_packet p[8];
	struct fxtrace_attach a;
	size_t size;
	void *m, *dst;

	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, attach(self->fd, &a));
	size = a.producer_size;
	m = map_part(self->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER, size,
		     PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m);
	h = map_part(self->fd, a.buffer_id, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, h);
	drain_all(self->fd);
	dst = mmap(NULL, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);

	ASSERT_MMAP_ERRNO(EINVAL, mremap(m, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, dst));
	ASSERT_MMAP_ERRNO(EINVAL, mremap(m, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst));
	ASSERT_MMAP_ERRNO(EINVAL, mremap(m, size, size - PG, 0));
	ASSERT_MMAP_ERRNO(EFAULT, mremap(m, size, size + PG, MREMAP_MAYMOVE));
	ASSERT_MMAP_ERRNO(EFAULT, mremap(m, 0, size, MREMAP_MAYMOVE));
	ASSERT_MMAP_ERRNO(EINVAL, mremap(m, size, size, MREMAP_MAYMOVE | MREMAP_DONTUNMAP));

	/* Nothing retired it, and the mapping still works. */
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	ASSERT_EQ(0, drain(self->fd, p, 8));
	((volatile __u64 *)m)[0] = 8;
	ASSERT_EQ(0, munmap(m, size));
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
	ASSERT_EQ(0, next_pkt(self->fd, &p[0], 1000));
	ASSERT_EQ(FXTRACE_PKT_BUFFER_RETIRED, p[0].request);
	ASSERT_EQ(a.buffer_id, p[0].data32);
}

/* ---- defect 2: exit, munmap and RELEASE racing -------------------------- */

#define RACE_ROUNDS	10000
#define RACE_SECONDS	90

struct race_ctl {
	int fd;
	volatile int stop;
	int added, retired, released, errors;
	int target;		/* rounds, once the last one is done */
	__u32 first_id;
	unsigned char *seen;	/* RETIRED packets per id - first_id */
};

static void *race_controller(void *arg)
{
	struct race_ctl *c = arg;
	struct fxtrace_packet p;

	while (!c->stop || c->retired < c->target) {
		if (next_pkt(c->fd, &p, 100))
			continue;
		if (p.request == FXTRACE_PKT_BUFFER_ADDED) {
			__atomic_add_fetch(&c->added, 1, __ATOMIC_SEQ_CST);
		} else if (p.request == FXTRACE_PKT_BUFFER_RETIRED) {
			__u32 i = p.data32 - c->first_id;

			if (i >= RACE_ROUNDS || c->seen[i]++)
				c->errors++;
			if (release_buffer(c->fd, p.data32))
				c->errors++;
			else
				c->released++;
			__atomic_add_fetch(&c->retired, 1, __ATOMIC_SEQ_CST);
		} else {
			c->errors++;
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(hs, exit_munmap_release_race, RACE_SECONDS + 60)
{
	__u64 cpu_bytes = (__u64)self->ncpus * AREA_SIZE;
	struct fxtrace_session_info si;
	struct race_ctl c = { .fd = self->fd };
	pthread_barrier_t b;
	pthread_t ctl, t;
	struct mapper m;
	time_t end = time(NULL) + RACE_SECONDS;
	int rounds;

	c.seen = calloc(RACE_ROUNDS, 1);
	ASSERT_NE(NULL, c.seen);
	self->cfg.max_task_buffers = 64;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	drain_all(self->fd);
	c.first_id = self->ncpus + 1;
	ASSERT_EQ(0, pthread_create(&ctl, NULL, race_controller, &c));
	ASSERT_EQ(0, pthread_barrier_init(&b, NULL, 2));

	for (rounds = 0; rounds < RACE_ROUNDS && time(NULL) < end; rounds++) {
		memset(&m, 0, sizeof(m));
		m.fd = self->fd;
		m.before_exit = &b;
		/* Keep the packet queue and the slots from filling up. */
		while (rounds - __atomic_load_n(&c.retired, __ATOMIC_SEQ_CST) > 32)
			usleep(100);
		ASSERT_EQ(0, pthread_create(&t, NULL, mapper_fn, &m));
		pthread_barrier_wait(&b);
		/* The thread exits while its sibling unmaps its buffer. */
		if (m.m != MAP_FAILED)
			munmap(m.m, m.a.producer_size);
		ASSERT_EQ(0, pthread_join(t, NULL));
		ASSERT_EQ(0, m.ret) TH_LOG("round %d: ATTACH: %s", rounds, strerror(m.err));
		ASSERT_NE(MAP_FAILED, m.m) TH_LOG("round %d: mmap: %s", rounds, strerror(m.err));
		ASSERT_EQ(c.first_id + rounds, m.a.buffer_id);
	}
	c.target = rounds;
	__atomic_store_n(&c.stop, 1, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, pthread_join(ctl, NULL));
	TH_LOG("%d rounds of attach/map/exit racing munmap and RELEASE", rounds);
	ASSERT_LE(1000, rounds);
	ASSERT_EQ(0, c.errors);
	ASSERT_EQ(rounds, c.added);
	ASSERT_EQ(rounds, c.retired);
	ASSERT_EQ(rounds, c.released);
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->ncpus, si.nr_buffers);
	ASSERT_EQ(cpu_bytes, si.memory_used);
	ASSERT_EQ(0, si.lost_packets);
	free(c.seen);
}

/* ---- defects 3 and 4: one user cannot starve another -------------------- */

/*
 * In a child as NOBODY, on commands from the parent: 'a' attaches and maps
 * from a new thread (which exits; the process keeps the mapping) and
 * answers 0 or the errno, 'u' unmaps all it holds and answers 0.
 */
static void holder(int fd, int cmd, int res)
{
	struct mapper m[16];
	int n = 0, i, r;
	char c;

	while (read(cmd, &c, 1) == 1) {
		if (c == 'a') {
			r = n < 16 && !mapper_run_join(&m[n], fd) ? 0 : m[n].err;
			n += !r;
		} else {
			for (i = 0; i < n; i++)
				munmap(m[i].m, m[i].a.producer_size);
			n = r = 0;
		}
		if (write(res, &r, sizeof(r)) != sizeof(r))
			break;
	}
	_exit(0);
}

static int holder_do(int cmd, int res, char c)
{
	int r = -1;

	if (write(cmd, &c, 1) != 1 || read(res, &r, sizeof(r)) != sizeof(r))
		return -1;
	return r;
}

/*
 * A user's share counts its buffers of terminated sessions that its
 * mappings keep: otherwise a user who keeps its mappings (and
 * MADV_DONTNEEDs them, out of its RSS) holds a share more per session.
 */
TEST_F(hs, share_counts_terminated_sessions)
{
	int cmd[2], res[2], fd2;
	pid_t pid;

	self->cfg.max_task_buffers = 8;		/* a share of 2 buffers */
	ASSERT_EQ(0, init_session(self->fd, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
	ASSERT_EQ(0, pipe(cmd));
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	if (pid == 0) {
		int fd;

		close(cmd[1]);
		close(res[0]);
		if (become(NOBODY))
			_exit(9);
		fd = dev_open(0);
		if (fd < 0)
			_exit(8);
		holder(fd, cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	ASSERT_EQ(0, holder_do(cmd[1], res[0], 'a'));
	ASSERT_EQ(0, holder_do(cmd[1], res[0], 'a'));
	ASSERT_EQ(EDQUOT, holder_do(cmd[1], res[0], 'a'));

	/* The next session: the two buffers still mapped still count. */
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	fd2 = dev_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, init_session(fd2, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
	EXPECT_EQ(EDQUOT, holder_do(cmd[1], res[0], 'a'));
	ASSERT_EQ(0, holder_do(cmd[1], res[0], 'u'));
	EXPECT_EQ(0, holder_do(cmd[1], res[0], 'a'));
	EXPECT_EQ(0, holder_do(cmd[1], res[0], 'a'));
	EXPECT_EQ(EDQUOT, holder_do(cmd[1], res[0], 'a'));
	close(cmd[1]);
	ASSERT_EQ(0, wait_child(pid));
	close(res[0]);
	EXPECT_EQ(0, ioctl(fd2, FXTRACE_IOC_TERMINATE));
	close(fd2);
}

TEST_F(hs, cross_uid_fairness)
{
	__u64 cpu_bytes = (__u64)self->ncpus * AREA_SIZE;
	long slots = module_param_read("category_slots_per_user", -1);
	int n, err, again, share;

	/* Task-buffer slots: a quarter of the session's each. */
	self->cfg.max_task_buffers = 16;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	share = (int)pct(16);
	ASSERT_GT(16, share);
	n = attach_as(NOBODY, 16, &err);
	ASSERT_EQ(share, n);
	ASSERT_EQ(EDQUOT, err);
	n = attach_as(NOGROUP, 1, &err);
	ASSERT_EQ(1, n) TH_LOG("second user: %s", strerror(err));
	/* The session's owner is bound by the session's limits only. */
	n = attach_as(0, 16 - share - 1 + 1, &err);
	ASSERT_EQ(16 - share - 1, n);
	ASSERT_EQ(ENOSPC, err);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	close(self->fd);
	self->fd = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd);

	/*
	 * Memory: a quarter each of what the CPU buffers leave, which task
	 * buffers share.  CPU buffers 16 times as large as a task buffer's
	 * data: a quarter of the whole limit (2 CPUs: 7 buffers) would let
	 * one user take all 8 places.
	 */
	self->cfg.max_task_buffers = 64;
	self->cfg.cpu_buffer_size = 16 * DATA_SIZE;
	cpu_bytes = (__u64)self->ncpus * (2 * PG + 16 * DATA_SIZE);
	self->cfg.memory_limit = cpu_bytes + 8 * AREA_SIZE;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	share = (int)(pct(8 * AREA_SIZE) / AREA_SIZE);
	ASSERT_LT(2 * share, 8);
	n = attach_as(NOBODY, 64, &err);
	ASSERT_EQ(share, n);
	ASSERT_EQ(EDQUOT, err);
	n = attach_as(NOGROUP, 64, &err);
	ASSERT_EQ(share, n) TH_LOG("second user: %s", strerror(err));
	ASSERT_EQ(EDQUOT, err);
	/* The owner: the rest, then the session's limit. */
	n = attach_as(0, 64, &err);
	ASSERT_EQ(8 - 2 * share, n);
	ASSERT_EQ(ENOSPC, err);

	/* Category slots (they outlive sessions): a bounded share each. */
	ASSERT_LT(0, slots);
	n = categories_as(NOBODY, "hostile.greedy", FXTRACE_CATEGORY_SLOTS, &err, &again);
	ASSERT_LE(0, n);
	ASSERT_GE(slots, n);
	ASSERT_EQ(EDQUOT, err);
	if (n)
		ASSERT_LE(0, again);	/* a known name keeps its slot */
	n = categories_as(NOGROUP, "hostile.honest", 1, &err, &again);
	ASSERT_EQ(1, n) TH_LOG("second user: %s", strerror(err));
}

/*
 * Other users' task buffers, filling their shares before a Start (four
 * users of 25 %, or one with subordinate uids), took the memory a Start's
 * kernel buffer needs: every Start then failed with ENOSPC.  Together
 * they now leave room for it.
 */
TEST_F(hs, others_leave_room_for_start)
{
	static const uid_t users[] = { NOBODY, NOGROUP, 65532, 65531 };
	__u64 cpu_bytes, before;
	struct fxtrace_session_info si;
	int i, n, err, held = 0;

	self->cfg.max_task_buffers = 64;
	self->cfg.cpu_buffer_size = 16 * DATA_SIZE;
	cpu_bytes = (__u64)self->ncpus * (2 * PG + 16 * DATA_SIZE);
	self->cfg.memory_limit = cpu_bytes + 8 * AREA_SIZE;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_GE(4 * pct(8 * AREA_SIZE), 8 * AREA_SIZE);
	for (i = 0; i < 4; i++) {
		n = attach_as(users[i], 64, &err);
		ASSERT_LE(0, n) TH_LOG("uid %u", users[i]);
		ASSERT_GE(pct(8 * AREA_SIZE) / AREA_SIZE, n);
		/* Its share, or the room the others leave for a Start. */
		ASSERT_TRUE(err == EDQUOT || err == ENOSPC)
			TH_LOG("uid %u: %s", users[i], strerror(err));
		held += n;
	}
	ASSERT_LT(held, 8);
	ASSERT_LT(0, held);
	ASSERT_EQ(0, session_info(self->fd, &si));
	before = si.memory_used;
	ASSERT_EQ(cpu_bytes + (__u64)held * AREA_SIZE, before);

	/* The owner's Start gets its kernel buffer, within the limit. */
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL))
		TH_LOG("START: %s", strerror(errno));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_LT(before, si.memory_used);
	ASSERT_GE(self->cfg.memory_limit, si.memory_used);
}

/*
 * A user's subordinate uids share its category slots: slots have no other
 * bound, and each uid of a user namespace had a share of its own (16 of
 * them took the whole table).
 */
TEST_F(hs, category_slots_of_subordinate_uids)
{
	long slots = module_param_read("category_slots_per_user", -1);
	int n, err = 0;

	ASSERT_LT(0, slots);
	if (read_number("/proc/sys/kernel", "unprivileged_userns_clone") == 0 ||
	    read_number("/proc/sys/user", "max_user_namespaces") == 0)
		SKIP(return, "no user namespaces for unprivileged users");
	n = categories_in_userns(65532, 4, "hostile.subuid", &err);
	ASSERT_LE(0, n) TH_LOG("user namespace: step %d failed", err - 1000);
	ASSERT_EQ(slots, n);
	ASSERT_EQ(EDQUOT, err);
}

/*
 * A user's subordinate uids share its task buffer share, as they share its
 * category slots: with a share per uid, one user with a range of
 * subordinate uids (/etc/subuid) could take every task buffer the other
 * users share, and their ATTACHes failed.  Here uid 0 of a namespace that
 * 65532 made attaches half a share, then uids 1 to 3 attach until
 * refused: the four hold one share together (main gave each uid a share,
 * 14 buffers, and NOBODY then got 2 and ENOSPC).  NOBODY, outside, still
 * gets its own share.  A namespace root made (a container) keeps a share
 * per uid: its uid 1 attaches after its uid 0 holds a share.
 */
TEST_F(hs, task_buffers_of_subordinate_uids)
{
	int max[4] = { 0, 16, 16, 16 }, n[4], err[4], share;

	if (read_number("/proc/sys/kernel", "unprivileged_userns_clone") == 0 ||
	    read_number("/proc/sys/user", "max_user_namespaces") == 0)
		SKIP(return, "no user namespaces for unprivileged users");
	self->cfg.max_task_buffers = 16;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
	share = (int)pct(16);
	/* Room for three shares and one more buffer, within the session's. */
	ASSERT_LE(2, share);
	ASSERT_GE(16, 3 * share + 1);
	max[0] = share / 2;

	ASSERT_EQ(0, attach_in_userns(65532, 200000, 4, max, n, err))
		TH_LOG("user namespace: step %d failed", err[0] - 1000);
	EXPECT_EQ(share / 2, n[0]);
	EXPECT_EQ(0, err[0]);
	EXPECT_EQ(share - share / 2, n[1]);
	EXPECT_EQ(EDQUOT, err[1]) TH_LOG("uid 1: %s", strerror(err[1]));
	EXPECT_EQ(0, n[2]);
	EXPECT_EQ(EDQUOT, err[2]) TH_LOG("uid 2: %s", strerror(err[2]));
	EXPECT_EQ(0, n[3]);
	EXPECT_EQ(EDQUOT, err[3]) TH_LOG("uid 3: %s", strerror(err[3]));

	n[0] = attach_as(NOBODY, 16, &err[0]);
	EXPECT_EQ(share, n[0]);
	EXPECT_EQ(EDQUOT, err[0]) TH_LOG("NOBODY: %s", strerror(err[0]));

	max[0] = 16;
	max[1] = 1;
	ASSERT_EQ(0, attach_in_userns(0, 300000, 2, max, n, err))
		TH_LOG("container: step %d failed", err[0] - 1000);
	EXPECT_EQ(share, n[0]);
	EXPECT_EQ(EDQUOT, err[0]) TH_LOG("container uid 0: %s", strerror(err[0]));
	EXPECT_EQ(1, n[1]);
	EXPECT_EQ(0, err[1]) TH_LOG("container uid 1: %s", strerror(err[1]));
}

/*
 * The user of the process a session's pid filter names (sudo fxtrace
 * record -u USER -- PROGRAM) is traced, as the owner is: bound by the
 * session's limits only, as it may take the reserved category slots.
 * Before, the traced program's threads past the share (4 of 16 here;
 * 25 % of the default memory limit's buffers, about 126 threads, with
 * fxtrace record's defaults) were refused EDQUOT.  Another user stays
 * bound by its share, and so is the traced user once the process is gone.
 */
TEST_F(hs, task_buffers_of_traced_user)
{
	struct attacher traced;
	struct fxtrace_packet p;
	int n, err, share, released = 0;

	self->cfg.max_task_buffers = 16;
	share = (int)pct(16);
	ASSERT_GT(16 - share, share);
	/*
	 * The filter names this process, root's session, whose user is then
	 * NOBODY (its real uid; root's effective uid still makes attachers
	 * of any user): only its descendants attach under a pid filter.
	 */
	self->cfg.filter_pid = (__u32)getpid();
	ASSERT_EQ(0, init_session(self->fd, &self->cfg))
		TH_LOG("INIT: %s", strerror(errno));
	ASSERT_EQ(0, setresuid(NOBODY, 0, 0));
	ASSERT_EQ(0, attacher_spawn(&traced, NOBODY, 16));

	n = attach_as(NOGROUP, 16, &err);
	EXPECT_EQ(share, n);
	EXPECT_EQ(EDQUOT, err) TH_LOG("uid %d: %s", NOGROUP, strerror(err));

	/* What the other user left of the session's 16, then its limit. */
	n = attacher_go(&traced, &err);
	EXPECT_EQ(16 - share, n);
	EXPECT_EQ(ENOSPC, err) TH_LOG("traced uid %d: %s", NOBODY, strerror(err));

	/*
	 * Every attacher has exited: free all 16 buffers.  The filter's
	 * process is root's again, so NOBODY is no longer traced, but its
	 * buffers are uncharged as they were charged (not from the room
	 * other users leave), or that count wraps and every other user gets
	 * ENOSPC.
	 */
	ASSERT_EQ(0, setresuid(0, 0, 0));
	while (!next_pkt(self->fd, &p, 1000))
		if (p.request == FXTRACE_PKT_BUFFER_RETIRED &&
		    !release_buffer(self->fd, p.data32))
			released++;
	EXPECT_EQ(16, released);
	n = attach_as(NOGROUP, 16, &err);
	EXPECT_EQ(share, n);
	EXPECT_EQ(EDQUOT, err) TH_LOG("uid %d: %s", NOGROUP, strerror(err));
	n = attach_as(NOBODY, 16, &err);
	EXPECT_EQ(share, n);
	EXPECT_EQ(EDQUOT, err) TH_LOG("uid %d, untraced: %s", NOBODY, strerror(err));
}

/* ATTACH once through a file of its own: 0, or the errno. */
static int attach_once(void)
{
	struct fxtrace_attach at = { .size = sizeof(at) };
	int fd = dev_open(0), err = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, FXTRACE_IOC_ATTACH, &at))
		err = errno;
	close(fd);
	return err;
}

/*
 * The filter's process: once told, it attaches, then a child of it, then
 * a grandchild whose parent has exited (reparented, no longer a
 * descendant).  Exits with the first unexpected errno, 0 if none, or
 * 100 and up when the test itself failed.
 */
static int filter_process(int go)
{
	int res, link[2];
	pid_t child;
	char c;

	if (read(go, &c, 1) != 1 || pipe(link))
		return 100;
	res = attach_once();
	if (res)
		return res;
	child = fork();
	if (child == 0)
		_exit(attach_once());
	res = wait_child(child);
	if (res)
		return res;
	child = fork();
	if (child == 0) {
		pid_t parent = getpid();

		close(link[0]);
		if (fork() == 0) {
			while (getppid() == parent)
				usleep(1000);
			res = attach_once();
			_exit(write(link[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
		}
		_exit(0);
	}
	close(link[1]);
	if (wait_child(child) || read(link[0], &res, sizeof(res)) != sizeof(res))
		return 101;
	return res == EPERM ? 0 : 102;
}

/*
 * With a pid filter only the filter's process and its descendants
 * attach.  Before, every process using libfxtrace (root's daemons
 * included) took task buffers of a session asked for one process, and
 * its events landed in that trace.
 */
TEST_F(hs, attach_outside_the_pid_filter)
{
	struct fxtrace_session_info si;
	struct fxtrace_packet p;
	int go[2], added = 0;
	pid_t traced, outsider;

	ASSERT_EQ(0, pipe(go));
	traced = fork();
	ASSERT_LE(0, traced);
	if (traced == 0) {
		close(go[1]);
		_exit(filter_process(go[0]));
	}
	close(go[0]);
	self->cfg.filter_pid = (__u32)traced;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	drain_all(self->fd);

	/* Root, this process, is not the filter's process nor below it. */
	EXPECT_EQ(EPERM, attach_once());
	outsider = fork();
	if (outsider == 0)
		_exit(become(NOBODY) ? 100 : attach_once());
	EXPECT_EQ(EPERM, wait_child(outsider));
	ASSERT_EQ(0, session_info(self->fd, &si));
	EXPECT_EQ((__u32)self->ncpus, si.nr_buffers);

	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	EXPECT_EQ(0, wait_child(traced));
	ASSERT_EQ(0, session_info(self->fd, &si));
	EXPECT_EQ((__u32)self->ncpus + 2, si.nr_buffers);
	while (!next_pkt(self->fd, &p, 200))
		if (p.request == FXTRACE_PKT_BUFFER_ADDED)
			added++;
	EXPECT_EQ(2, added);
}

/*
 * A session's initializer is traced as the user its work is charged to,
 * its real uid, whatever its effective uid (which decides control): a
 * set-user-ID root program run by NOBODY here.  Before, the session's
 * owner (the euid, root) was compared with the real uid its threads are
 * charged to: the initializer's own threads past the share (4 of 16)
 * were refused EDQUOT, as an untraced user's.
 */
TEST_F(hs, initializer_traced_by_its_real_uid)
{
	struct fxtrace_session_info si;
	int res[2] = { -1, -1 }, ret, n, err, share;

	self->cfg.max_task_buffers = 16;
	share = (int)pct(16);
	ASSERT_GT(16 - share, share);
	ASSERT_EQ(0, setresuid(NOBODY, 0, 0));
	ASSERT_EQ(0, init_session(self->fd, &self->cfg))
		TH_LOG("INIT: %s", strerror(errno));
	ret = attach_until_refused(17, res);
	ASSERT_EQ(0, setresuid(0, 0, 0));
	ASSERT_EQ(0, ret);
	EXPECT_EQ(16, res[0]);
	EXPECT_EQ(ENOSPC, res[1]) TH_LOG("initializer: %s", strerror(res[1]));
	/* Control stays the effective uid's. */
	ASSERT_EQ(0, session_info(self->fd, &si));
	EXPECT_EQ(0U, si.owner_uid);
	/* Another user is bound by its share (none is left to it here). */
	n = attach_as(NOGROUP, 16, &err);
	EXPECT_EQ(0, n);
	EXPECT_EQ(ENOSPC, err) TH_LOG("uid %d: %s", NOGROUP, strerror(err));
}

/*
 * ADOPT takes control, not the traced identity: the session still traces
 * its initializer's real uid, not the adopter's, or a set-user-ID program
 * of the owner's euid run by another user could adopt the orphan and free
 * that user from its share.
 */
TEST_F(hs, adopter_not_traced)
{
	int fd, share, n, err;

	self->cfg.max_task_buffers = 16;
	share = (int)pct(16);
	ASSERT_GT(16 - share, share);
	fd = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setresuid(NOBODY, 0, 0));
	ASSERT_EQ(0, init_session(fd, &self->cfg))
		TH_LOG("INIT: %s", strerror(errno));
	ASSERT_EQ(0, setresuid(0, 0, 0));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, setresuid(NOGROUP, 0, 0));
	EXPECT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT))
		TH_LOG("ADOPT: %s", strerror(errno));
	ASSERT_EQ(0, setresuid(0, 0, 0));
	n = attach_as(NOGROUP, 16, &err);
	EXPECT_EQ(share, n);
	EXPECT_EQ(EDQUOT, err) TH_LOG("adopter's uid: %s", strerror(err));
	n = attach_as(NOBODY, 16, &err);
	EXPECT_EQ(16 - share, n);
	EXPECT_EQ(ENOSPC, err) TH_LOG("initializer's uid: %s", strerror(err));
}

/* FXT_ATTACH_GENERATIONS_MAX of kmod/task.c. */
#define GENERATIONS_MAX		1024
#define GENERATION_STACK	(32 << 10)

/*
 * A chain of processes below the filter's process, made with clone(CLONE_VM)
 * (cheap: one address space), each waiting for the next: generation 1
 * and the last two ATTACH; the last, refused, is timed.
 */
struct chain {
	int generation;		/* of the process running */
	int last;
	int err_first, err[2];	/* ATTACH at 1, at last - 1 and last */
	long long ns_deep;	/* a refused ATTACH at last, the fastest */
	char *stacks;
};

/*
 * The fastest of 5 ATTACHes (of which a refused one allocates nothing,
 * so what is left is the walk); the errno of the first.
 */
static int attach_timed(long long *ns)
{
	struct timespec t0, t1;
	long long t;
	int err = 0, i;

	*ns = LLONG_MAX;
	for (i = 0; i < 5; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (i == 0)
			err = attach_once();
		else
			attach_once();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		t = (t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec;
		if (t < *ns)
			*ns = t;
	}
	return err;
}

static int chain_fn(void *arg)
{
	struct chain *c = arg;
	int gen = ++c->generation, status;
	pid_t child;

	if (gen == 1)
		c->err_first = attach_once();
	if (gen == c->last - 1)
		c->err[0] = attach_once();
	if (gen == c->last) {
		c->err[1] = attach_timed(&c->ns_deep);
		return 0;
	}
	child = clone(chain_fn, c->stacks + (size_t)(gen + 1) * GENERATION_STACK,
		      CLONE_VM | SIGCHLD, c);
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

/*
 * A process more than 1024 generations below the filter's process is not
 * traced: the walk up its parents under RCU is bounded.  Before, any
 * user's chain of processes (as deep as its process limit) made each of
 * its ATTACHes walk all of it.  Logs what a refused ATTACH takes at
 * generation 1025 (1024 generations walked) and from this process (a
 * few, up to init).
 */
TEST_F(hs, attach_generations_bound)
{
	long long ns_shallow;
	struct chain *c;
	int go[2], status;
	pid_t filter;
	char g;

	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c);
	memset(c, 0xff, sizeof(*c));
	c->generation = 0;
	c->last = GENERATIONS_MAX + 1;
	c->stacks = mmap(NULL, (size_t)(c->last + 2) * GENERATION_STACK,
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, c->stacks);
	ASSERT_EQ(0, pipe(go));
	filter = fork();
	ASSERT_LE(0, filter);
	if (filter == 0) {
		pid_t child;

		close(go[1]);
		if (read(go[0], &g, 1) != 1)
			_exit(100);
		child = clone(chain_fn, c->stacks + GENERATION_STACK,
			      CLONE_VM | SIGCHLD, c);
		if (child < 0 || waitpid(child, &status, 0) != child ||
		    !WIFEXITED(status))
			_exit(101);
		_exit(WEXITSTATUS(status));
	}
	close(go[0]);
	self->cfg.filter_pid = (__u32)filter;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	drain_all(self->fd);
	EXPECT_EQ(EPERM, attach_timed(&ns_shallow));
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	EXPECT_EQ(0, wait_child(filter));
	EXPECT_EQ(GENERATIONS_MAX + 1, c->generation);
	EXPECT_EQ(0, c->err_first) TH_LOG("generation 1: %s", strerror(c->err_first));
	EXPECT_EQ(0, c->err[0]) TH_LOG("generation %d: %s", GENERATIONS_MAX,
				      strerror(c->err[0]));
	EXPECT_EQ(EPERM, c->err[1]) TH_LOG("generation %d: %s",
					   GENERATIONS_MAX + 1, strerror(c->err[1]));
	TH_LOG("refused ATTACH, fastest of 5: %lld us from the test, %lld us at generation %d",
	       ns_shallow / 1000, c->ns_deep / 1000, GENERATIONS_MAX + 1);
	munmap(c->stacks, (size_t)(c->last + 2) * GENERATION_STACK);
	munmap(c, sizeof(*c));
}

static void *attach_thread_fn(void *arg)
{
	*(int *)arg = attach_once();
	return NULL;
}

static int clone_parent_fn(void *arg)
{
	(void)arg;
	return attach_once();
}

/*
 * In a child of the filter's process: fork a grandchild, exit, and let
 * the grandchild ATTACH once it has been reparented (a double-forking
 * daemon).  Returns its errno, or 100 and up when the test failed.
 */
static int daemon_attach(void)
{
	int link[2], res = 100;
	pid_t child;

	if (pipe(link))
		return 100;
	child = fork();
	if (child == 0) {
		pid_t parent = getpid();

		close(link[0]);
		if (fork() == 0) {
			while (getppid() == parent)
				usleep(1000);
			res = attach_once();
			_exit(write(link[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
		}
		_exit(0);
	}
	close(link[1]);
	if (child < 0 || wait_child(child) ||
	    read(link[0], &res, sizeof(res)) != sizeof(res))
		res = 101;
	close(link[0]);
	return res;
}

enum descent_case {
	DESCENT_PIDNS,		/* a child's child in a new pid namespace */
	DESCENT_THREAD,		/* a child's second thread */
	DESCENT_CLONE_PARENT_CHILD,	/* CLONE_PARENT by a child: a child */
	DESCENT_CLONE_PARENT_SELF,	/* CLONE_PARENT by the filter's process */
	DESCENT_DAEMON_OUTSIDE,	/* reparented to a subreaper above */
	DESCENT_DAEMON_INSIDE,	/* reparented to the filter's process */
	DESCENT_CASES
};

/* The filter's process: each case's errno into res (100 and up: failed). */
static void descent_cases(int *res)
{
	static char stack[1 << 16] __attribute__((aligned(16)));
	pthread_t t;
	pid_t child;
	int status;

	child = fork();
	if (child == 0) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(100);
		inner = fork();
		if (inner == 0)
			_exit(getpid() == 1 ? attach_once() : 101);
		_exit(wait_child(inner));
	}
	res[DESCENT_PIDNS] = child < 0 ? 100 : wait_child(child);

	child = fork();
	if (child == 0) {
		int err = 100;

		if (pthread_create(&t, NULL, attach_thread_fn, &err) ||
		    pthread_join(t, NULL))
			_exit(101);
		_exit(err);
	}
	res[DESCENT_THREAD] = child < 0 ? 100 : wait_child(child);

	child = fork();
	if (child == 0) {
		/* Its child is this process's other child: reaped here. */
		_exit(clone(clone_parent_fn, stack + sizeof(stack),
			    CLONE_PARENT | SIGCHLD, NULL) < 0 ? 100 : 0);
	}
	if (child < 0 || wait_child(child)) {
		res[DESCENT_CLONE_PARENT_CHILD] = 101;
	} else {
		child = waitpid(-1, &status, 0);
		res[DESCENT_CLONE_PARENT_CHILD] =
			child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 102;
	}

	/* The test's process, this one's parent, reaps it: its pid. */
	res[DESCENT_CLONE_PARENT_SELF] =
		clone(clone_parent_fn, stack + sizeof(stack),
		      CLONE_PARENT | SIGCHLD, NULL);

	res[DESCENT_DAEMON_OUTSIDE] = daemon_attach();
	res[DESCENT_DAEMON_INSIDE] = prctl(PR_SET_CHILD_SUBREAPER, 1) ? 100 :
				     daemon_attach();
	if (res[DESCENT_DAEMON_INSIDE] < 100 && waitpid(-1, &status, 0) <= 0)
		res[DESCENT_DAEMON_INSIDE] = 102;
}

/*
 * Which processes count as the filter's descendants at ATTACH: the chain
 * of real parents, across pid namespaces, from any thread.  A child made
 * with CLONE_PARENT is its maker's parent's, as /proc/PID/status shows:
 * the filter's process's own such child is not traced, a child's is.  A
 * double-forking daemon reparented to a subreaper above the filter's
 * process (or to init) is not traced; reparented to the filter's
 * process, a subreaper, it is.
 */
TEST_F(hs, attach_descent_cases)
{
	int *res, go[2], status, i;
	pid_t filter;

	res = mmap(NULL, DESCENT_CASES * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	for (i = 0; i < DESCENT_CASES; i++)
		res[i] = 200;
	/* The reparented daemon of the first case comes here. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(go));
	filter = fork();
	ASSERT_LE(0, filter);
	if (filter == 0) {
		char g;

		close(go[1]);
		if (read(go[0], &g, 1) != 1)
			_exit(100);
		descent_cases(res);
		_exit(0);
	}
	close(go[0]);
	self->cfg.filter_pid = (__u32)filter;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	drain_all(self->fd);
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	EXPECT_EQ(0, wait_child(filter));
	/* The filter's process's CLONE_PARENT child is this one's. */
	EXPECT_EQ(EPERM, wait_child(res[DESCENT_CLONE_PARENT_SELF]));
	/* The daemon that came here wrote its errno and exited. */
	ASSERT_LT(0, waitpid(-1, &status, 0));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	EXPECT_EQ(0, res[DESCENT_PIDNS]) TH_LOG("pid namespace: %d", res[DESCENT_PIDNS]);
	EXPECT_EQ(0, res[DESCENT_THREAD]) TH_LOG("thread: %d", res[DESCENT_THREAD]);
	EXPECT_EQ(0, res[DESCENT_CLONE_PARENT_CHILD]);
	EXPECT_EQ(EPERM, res[DESCENT_DAEMON_OUTSIDE]);
	EXPECT_EQ(0, res[DESCENT_DAEMON_INSIDE]);
	munmap(res, DESCENT_CASES * sizeof(*res));
}

/*
 * Root is bound by a session's limits only, whoever owns the session, in
 * all three rooms a session shares between users: before, with a
 * non-root CAP_PERFMON owner, root's threads past the share (4 of 16
 * here) were refused EDQUOT, while root's names and category slots were
 * exempt.  A root server traced beside the owner's client was cut short.
 * Another user stays bound by its share.
 */
TEST_F(hs, task_buffers_of_root_beside_a_perfmon_owner)
{
	struct fxtrace_session_info si;
	struct perfmon_owner owner;
	int n, err, share, res[2];

	self->cfg.max_task_buffers = 16;
	share = (int)pct(16);
	ASSERT_GT(16 - share, share);
	err = perfmon_owner_spawn(&owner, NOBODY, &self->cfg);
	ASSERT_EQ(0, err) TH_LOG("owner's INIT: %s", strerror(err));
	ASSERT_EQ(0, session_info(self->fd, &si));
	EXPECT_EQ(NOBODY, si.owner_uid);

	n = attach_as(NOGROUP, 16, &err);
	EXPECT_EQ(share, n);
	EXPECT_EQ(EDQUOT, err) TH_LOG("uid %d: %s", NOGROUP, strerror(err));

	/* Root, this process: what the other user left, then the limit. */
	ASSERT_EQ(0, attach_until_refused(16, res));
	EXPECT_EQ(16 - share, res[0]);
	EXPECT_EQ(ENOSPC, res[1]) TH_LOG("root: %s", strerror(res[1]));

	EXPECT_EQ(0, perfmon_owner_end(&owner));
}

/*
 * Root's task buffers, not bound by a share, still leave a non-root
 * owner's Start its kernel buffer, as every user the session does not
 * trace does: with root exempt from that too, root's threads (the
 * system's daemons in the owner's system-wide session) took the room,
 * and the owner's Start failed ENOSPC.  Here 8 task buffers fit in the
 * memory the CPU buffers leave, 4 beside the Start's room.
 */
TEST_F(hs, root_leaves_a_perfmon_owner_room_for_start)
{
	struct fxtrace_session_info si;
	struct perfmon_owner owner;
	__u64 cpu_bytes, task_memory, reserve, before;
	int err, res[2];

	self->cfg.max_task_buffers = 64;
	self->cfg.cpu_buffer_size = 16 * DATA_SIZE;
	cpu_bytes = (__u64)self->ncpus * (2 * PG + 16 * DATA_SIZE);
	task_memory = 8 * AREA_SIZE;
	self->cfg.memory_limit = cpu_bytes + task_memory;
	/* The Start's smallest kernel buffer (FXT_NAMES_RESERVE). */
	reserve = 2 * PG + PG + (256 << 10);
	/* Root is not bound by its share (2 buffers): it gets more. */
	ASSERT_LT(pct(task_memory) / AREA_SIZE, (task_memory - reserve) / AREA_SIZE);
	err = perfmon_owner_spawn(&owner, NOBODY, &self->cfg);
	ASSERT_EQ(0, err) TH_LOG("owner's INIT: %s", strerror(err));
	ASSERT_EQ(0, session_info(self->fd, &si));
	EXPECT_EQ(NOBODY, si.owner_uid);

	/* Root, this process: all but the Start's room. */
	ASSERT_EQ(0, attach_until_refused(64, res));
	EXPECT_EQ((int)((task_memory - reserve) / AREA_SIZE), res[0]);
	EXPECT_EQ(ENOSPC, res[1]) TH_LOG("root: %s", strerror(res[1]));
	ASSERT_EQ(0, session_info(self->fd, &si));
	before = si.memory_used;
	EXPECT_EQ(cpu_bytes + (__u64)res[0] * AREA_SIZE, before);

	/* The owner's Start gets its kernel buffer, within the limit. */
	EXPECT_EQ(0, perfmon_owner_start(&owner))
		TH_LOG("owner's START failed");
	ASSERT_EQ(0, session_info(self->fd, &si));
	EXPECT_EQ(FXTRACE_STATE_STARTED, si.state);
	EXPECT_LT(before, si.memory_used);
	EXPECT_GE(self->cfg.memory_limit, si.memory_used);
	EXPECT_EQ(0, perfmon_owner_end(&owner));
}

/*
 * A child that becomes uid and, once released (a byte on the pipe whose
 * write end it returns in *go), renames itself times times, then exits.
 */
static pid_t renamer_spawn(uid_t uid, int times, int *go)
{
	char name[16], c;
	int fds[2], i;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		if (become(uid) || read(fds[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < times; i++) {
			snprintf(name, sizeof(name), "ng%d", i & 1);
			if (prctl(PR_SET_NAME, name))
				_exit(2);
		}
		_exit(0);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/*
 * Under a non-root CAP_PERFMON owner, the users the session does not
 * trace, root among them, fill at most the names room less a quarter,
 * which they leave to the traced users' names; within that, a user other
 * than root fills its share.  Before, root, exempt from a share, could
 * fill all of the room with its forks, execs and renames (the system's
 * daemons, no malice needed), and the names of the owner's threads were
 * dropped.  Each rename here is of a process's only thread: a thread and
 * a process record, one write.  Another user renames for twice its
 * share, then root (this process) for twice the room: exactly what is
 * past the share, then past three quarters of the room, is dropped; the
 * owner's renames after them are all written; root's next is dropped,
 * and the next Start's is not.
 */
TEST_F(hs, root_leaves_a_perfmon_owner_names_room)
{
	static const char cats[] = "kernel:task";
	const int per_rename = 8 * (fxt_kobj_name_words(3, 1) +
				    fxt_kobj_name_words(3, 0));
	const int room = 256 << 10, others_room = room - room / 4;
	const int other_renames = 2 * (int)pct(room) / per_rename;
	const int other_kept = (int)pct(room) / per_rename;
	const int renames = 2 * room / per_rename;
	const int kept = (others_room - other_kept * per_rename) / per_rename;
	const int dropped = other_renames - other_kept + renames - kept;
	struct perfmon_owner owner;
	char name[16];
	int i, err, go;
	pid_t other;

	ASSERT_GT(others_room, 2 * other_kept * per_rename);
	self->cfg.categories = (uintptr_t)cats;
	self->cfg.categories_size = sizeof(cats);
	err = perfmon_owner_spawn(&owner, NOBODY, &self->cfg);
	ASSERT_EQ(0, err) TH_LOG("owner's INIT: %s", strerror(err));
	/* Forked before the Start: its fork's names are not in the room. */
	other = renamer_spawn(NOGROUP, other_renames, &go);
	ASSERT_LT(0, other);
	ASSERT_EQ(0, perfmon_owner_start(&owner)) TH_LOG("owner's START failed");
	ASSERT_EQ(1, write(go, "g", 1));
	close(go);
	ASSERT_EQ(0, wait_child(other));
	EXPECT_EQ(other_renames - other_kept, perfmon_owner_ask(&owner, 'd'));

	for (i = 0; i < renames; i++) {
		snprintf(name, sizeof(name), "rr%d", i & 1);
		ASSERT_EQ(0, prctl(PR_SET_NAME, name));
	}
	EXPECT_EQ(dropped, perfmon_owner_ask(&owner, 'd'));

	EXPECT_EQ(0, perfmon_owner_ask(&owner, 'r'));
	EXPECT_EQ(dropped, perfmon_owner_ask(&owner, 'd'));
	/* Its name at Start, then every rename. */
	EXPECT_EQ(1 + OWNER_RENAMES, perfmon_owner_ask(&owner, 'k'));

	ASSERT_EQ(0, prctl(PR_SET_NAME, "rr2"));
	EXPECT_EQ(dropped + 1, perfmon_owner_ask(&owner, 'd'));

	/* The next Start's room is a new one: root's names are written. */
	EXPECT_EQ(0, perfmon_owner_ask(&owner, 'p'));
	EXPECT_EQ(0, perfmon_owner_start(&owner));
	ASSERT_EQ(0, prctl(PR_SET_NAME, "rr3"));
	EXPECT_EQ(0, perfmon_owner_ask(&owner, 'd'));
	EXPECT_EQ(0, perfmon_owner_end(&owner));
}

static void *names_holder_thread(void *arg)
{
	char c;

	/* EOF when the process is told to exit. */
	while (read(*(int *)arg, &c, 1) > 0)
		;
	return NULL;
}

/*
 * A child (root) with threads threads besides its own, all named at a
 * Start; it exits once *go (the write end of its pipe) is closed.
 * Returns its pid once the threads exist, or -1.
 */
static pid_t names_holder_spawn(int threads, int *go)
{
	int gofds[2], ready[2], i;
	pthread_attr_t attr;
	pthread_t t;
	pid_t pid;
	char c;

	if (pipe(gofds) || pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(gofds[1]);
		close(ready[0]);
		if (pthread_attr_init(&attr) ||
		    pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN))
			_exit(1);
		for (i = 0; i < threads; i++)
			if (pthread_create(&t, &attr, names_holder_thread,
					   &gofds[0]))
				_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		names_holder_thread(&gofds[0]);
		_exit(0);
	}
	close(gofds[0]);
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		close(gofds[1]);
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	*go = gofds[1];
	return pid;
}

/*
 * The traced users' quarter of the names room is kept of what the
 * Start's dump leaves, not of the full room.  When other users' task
 * buffers (root's, here) take the memory, the Start gets the smallest
 * names buffer, whose room the dump of the tasks that exist fills in
 * part (1600 threads: 87.5 KiB).  Before, the untraced users could still
 * write three quarters of the full room, more than the dump left: root's
 * renames filled the buffer and the owner's names were dropped.
 */
TEST_F(hs, root_leaves_a_perfmon_owner_names_room_of_a_small_buffer)
{
	static const char cats[] = "kernel:task";
	const int per_rename = 8 * (fxt_kobj_name_words(3, 1) +
				    fxt_kobj_name_words(3, 0));
	const int room = 256 << 10, traced_room = room / 4;
	const int renames = 2 * room / per_rename;
	struct perfmon_owner owner;
	__u64 cpu_bytes;
	int i, err, go, left, kept, res[2];
	char name[16];
	pid_t holder;

	self->cfg.categories = (uintptr_t)cats;
	self->cfg.categories_size = sizeof(cats);
	self->cfg.max_task_buffers = 64;
	self->cfg.cpu_buffer_size = 16 * DATA_SIZE;
	cpu_bytes = (__u64)self->ncpus * (2 * PG + 16 * DATA_SIZE);
	self->cfg.memory_limit = cpu_bytes + 8 * AREA_SIZE;
	/* Before the owner, which must not keep the owner's pipes open. */
	holder = names_holder_spawn(1600, &go);
	ASSERT_LT(0, holder);
	err = perfmon_owner_spawn(&owner, NOBODY, &self->cfg);
	ASSERT_EQ(0, err) TH_LOG("owner's INIT: %s", strerror(err));
	/* Root's task buffers: all but the smallest names buffer. */
	ASSERT_EQ(0, attach_until_refused(64, res));
	ASSERT_EQ(ENOSPC, res[1]) TH_LOG("root: %s", strerror(res[1]));
	ASSERT_EQ(0, perfmon_owner_start(&owner)) TH_LOG("owner's START failed");

	/* The dump took more than the room less the others' limit. */
	left = perfmon_owner_ask(&owner, 'l');
	ASSERT_LT(traced_room, left);
	ASSERT_GT(room - traced_room + 1024, left);
	kept = (left - traced_room) / per_rename;
	for (i = 0; i < renames; i++) {
		snprintf(name, sizeof(name), "rr%d", i & 1);
		ASSERT_EQ(0, prctl(PR_SET_NAME, name));
	}
	EXPECT_EQ(renames - kept, perfmon_owner_ask(&owner, 'd'));

	EXPECT_EQ(0, perfmon_owner_ask(&owner, 'r'));
	EXPECT_EQ(renames - kept, perfmon_owner_ask(&owner, 'd'));
	/* Its name at Start, then every rename. */
	EXPECT_EQ(1 + OWNER_RENAMES, perfmon_owner_ask(&owner, 'k'));
	/* The owner has the holder's pipe too: the holder exits after it. */
	EXPECT_EQ(0, perfmon_owner_end(&owner));
	close(go);
	EXPECT_EQ(0, wait_child(holder));
}

/*
 * The names a pause drops cost the users the session does not trace no
 * room: before, root's renames while the owner paused (a snapshot) were
 * charged, though dropped, and took the others' three quarters, so every
 * name of theirs was dropped after the pause for the rest of the Start.
 */
TEST_F(hs, names_dropped_while_paused_take_no_room)
{
	static const char cats[] = "kernel:task";
	const int per_rename = 8 * (fxt_kobj_name_words(3, 1) +
				    fxt_kobj_name_words(3, 0));
	const int room = 256 << 10, others_room = room - room / 4;
	const int paused = 2 * room / per_rename;
	const int kept = others_room / per_rename;
	struct perfmon_owner owner;
	char name[16];
	int i, err;

	self->cfg.categories = (uintptr_t)cats;
	self->cfg.categories_size = sizeof(cats);
	err = perfmon_owner_spawn(&owner, NOBODY, &self->cfg);
	ASSERT_EQ(0, err) TH_LOG("owner's INIT: %s", strerror(err));
	ASSERT_EQ(0, perfmon_owner_start(&owner)) TH_LOG("owner's START failed");

	ASSERT_EQ(0, perfmon_owner_ask(&owner, 'P'));
	for (i = 0; i < paused; i++) {
		snprintf(name, sizeof(name), "pp%d", i & 1);
		ASSERT_EQ(0, prctl(PR_SET_NAME, name));
	}
	EXPECT_EQ(paused, perfmon_owner_ask(&owner, 'd'));
	ASSERT_EQ(0, perfmon_owner_ask(&owner, 'R'));

	/* Root, this process: the others' room, then one more. */
	for (i = 0; i < kept + 1; i++) {
		snprintf(name, sizeof(name), "rr%d", i & 1);
		ASSERT_EQ(0, prctl(PR_SET_NAME, name));
	}
	EXPECT_EQ(paused + 1, perfmon_owner_ask(&owner, 'd'));
	EXPECT_EQ(0, perfmon_owner_end(&owner));
}

/* ---- defect 8: ids are never reused; at the end, no more buffers -------- */

TEST_F(hs, buffer_ids_end)
{
	long old = module_param_read("buffer_id_max", -1);
	struct mapper m;
	__u32 last = self->ncpus + 2;

	ASSERT_LT(0, old) TH_LOG("no buffer_id_max parameter");
	ASSERT_EQ(0, module_param_write("buffer_id_max", last));
	if (init_session(self->fd, &self->cfg)) {
		module_param_write("buffer_id_max", old);
		ASSERT_EQ(0, -1) TH_LOG("INIT: %s", strerror(errno));
	}
	ASSERT_EQ(0, mapper_run_join(&m, self->fd));
	ASSERT_EQ(last - 1, m.a.buffer_id);
	munmap(m.m, m.a.producer_size);
	ASSERT_EQ(0, mapper_run_join(&m, self->fd));
	ASSERT_EQ(last, m.a.buffer_id);
	munmap(m.m, m.a.producer_size);
	ASSERT_EQ(0, release_buffer(self->fd, last));
	ASSERT_EQ(-1, mapper_run_join(&m, self->fd));
	module_param_write("buffer_id_max", old);
	ASSERT_EQ(EOVERFLOW, m.err);
}

/* ---- who may map what --------------------------------------------------- */

#define CHECK(cond, code) do { if (!(cond)) _exit(code); } while (0)

/* Every part of a task buffer and of CPU buffer 1, from a stranger. */
static int strangers_view(int fd, __u32 tid_buf, size_t producer_size,
			  size_t reader_size, int base)
{
	CHECK(map_errno(fd, tid_buf, FXTRACE_MMAP_HEADER, PG, PROT_READ) == EACCES, base);
	CHECK(map_errno(fd, tid_buf, FXTRACE_MMAP_PRODUCER, producer_size,
			PROT_READ | PROT_WRITE) == EACCES, base + 1);
	CHECK(map_errno(fd, tid_buf, FXTRACE_MMAP_READER, reader_size, PROT_READ) == EACCES,
	      base + 2);
	CHECK(map_errno(fd, 1, FXTRACE_MMAP_READER, reader_size, PROT_READ) == EACCES,
	      base + 3);
	CHECK(map_errno(fd, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ) == EACCES, base + 4);
	CHECK(map_errno(fd, 1, FXTRACE_MMAP_PRODUCER, producer_size,
			PROT_READ | PROT_WRITE) == EACCES, base + 5);
	return 0;
}

struct clone_arg {
	int fd;
	__u32 id;
	size_t producer_size, reader_size;
};

static int clone_vm_child(void *arg)
{
	struct clone_arg *c = arg;

	return strangers_view(c->fd, c->id, c->producer_size, c->reader_size, 40);
}

/* Writes through /proc/self/mem; the errno, or 0 if the write went in. */
static int mem_write_errno(const void *addr)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	__u64 v = 0x4141414141414141ULL;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pwrite(fd, &v, sizeof(v), (off_t)(uintptr_t)addr);
	close(fd);
	return n < 0 ? errno : 0;
}

/* The child of two execs: "<fd>:<id>:<execs left>" in the environment. */
__attribute__((constructor)) static void exec_child(void)
{
	const char *v = getenv("FXTRACE_HOSTILE_EXEC");
	unsigned int fd, id, left;
	char next[64];

	if (!v)
		return;
	if (sscanf(v, "%u:%u:%u", &fd, &id, &left) != 3)
		_exit(60);
	if (left) {
		snprintf(next, sizeof(next), "%u:%u:%u", fd, id, left - 1);
		setenv("FXTRACE_HOSTILE_EXEC", next, 1);
		execl("/proc/self/exe", "hostile_test", (char *)NULL);
		_exit(61);
	}
	/* The same process, two images later: not the owner any more. */
	CHECK(map_errno(fd, id, FXTRACE_MMAP_PRODUCER, PG + DATA_SIZE,
			PROT_READ | PROT_WRITE) == EACCES, 62);
	CHECK(map_errno(fd, id, FXTRACE_MMAP_HEADER, PG, PROT_READ) == EACCES, 63);
	CHECK(buffer_full(fd, id, 0) == -1 && errno == EACCES, 64);
	_exit(0);
}

TEST_F(hs, foreign_access_matrix)
{
	const struct fxtrace_session_page *sp;
	struct fxtrace_buffer_info bi;
	struct fxtrace_attach a;
	struct clone_arg ca;
	size_t reader_size;
	void *hdr, *prod, *rdr;
	char *stack;
	pid_t pid;

	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, attach(self->fd, &a));
	ASSERT_EQ(0, buffer_info(self->fd, 1, &bi));
	reader_size = bi.reader_size;
	ASSERT_EQ(AREA_SIZE, reader_size);
	hdr = map_part(self->fd, a.buffer_id, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, hdr);
	prod = map_part(self->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER, a.producer_size,
			PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, prod);
	rdr = map_part(self->fd, 1, FXTRACE_MMAP_READER, reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, rdr);
	sp = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, sp);

	/* Another uid, with its own fd and with the inherited controller fd. */
	pid = fork();
	if (pid == 0) {
		int fd;

		CHECK(!become(NOBODY), 9);
		fd = dev_open(0);
		CHECK(fd >= 0, 8);
		strangers_view(fd, a.buffer_id, a.producer_size, reader_size, 10);
		strangers_view(self->fd, a.buffer_id, a.producer_size, reader_size, 20);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));

	/* A fork child: same uid, inherited controller fd, no control. */
	pid = fork();
	if (pid == 0) {
		strangers_view(self->fd, a.buffer_id, a.producer_size, reader_size, 30);
		CHECK(ioctl(self->fd, FXTRACE_IOC_STOP) == -1 && errno == EPERM, 36);
		CHECK(buffer_info(self->fd, 1, &bi) == -1 && errno == EPERM, 37);
		/* The producer mapping was not inherited. */
		CHECK(mem_write_errno(prod) == EIO, 38);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));

	/* A CLONE_VM child: the owner's mm, another process. */
	stack = malloc(1 << 16);
	ASSERT_NE(NULL, stack);
	ca = (struct clone_arg){ self->fd, a.buffer_id, a.producer_size, reader_size };
	pid = clone(clone_vm_child, stack + (1 << 16), CLONE_VM | SIGCHLD, &ca);
	ASSERT_EQ(0, wait_child(pid));
	free(stack);

	/* The same process after two execs. */
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach b;
		char env[64];
		int fd = dup(self->fd);	/* without O_CLOEXEC */

		CHECK(fd >= 0 && attach(fd, &b) == 0, 50);
		snprintf(env, sizeof(env), "%d:%u:1", fd, b.buffer_id);
		setenv("FXTRACE_HOSTILE_EXEC", env, 1);
		execl("/proc/self/exe", "hostile_test", (char *)NULL);
		_exit(51);
	}
	ASSERT_EQ(0, wait_child(pid));

	/* Read-only parts stay read-only, whatever the way in. */
	ASSERT_EQ(EIO, mem_write_errno(hdr));
	ASSERT_EQ(EIO, mem_write_errno(rdr));
	ASSERT_EQ(EIO, mem_write_errno(sp));
	ASSERT_ERRNO(EACCES, mprotect(hdr, PG, PROT_READ | PROT_WRITE));
	ASSERT_ERRNO(EACCES, mprotect(rdr, reader_size, PROT_READ | PROT_WRITE));
	ASSERT_ERRNO(EACCES, mprotect((void *)sp, FXTRACE_SESSION_MAP_SIZE,
				      PROT_READ | PROT_WRITE));
	ASSERT_MMAP_ERRNO(EPERM, map_part(self->fd, a.buffer_id, FXTRACE_MMAP_HEADER, PG,
					  PROT_READ | PROT_WRITE));
	ASSERT_MMAP_ERRNO(EPERM, map_part(self->fd, 1, FXTRACE_MMAP_READER, reader_size,
					  PROT_READ | PROT_WRITE));
	/* The producer mapping is never inherited, nor its buffer mapped twice. */
	ASSERT_ERRNO(EINVAL, madvise(prod, a.producer_size, MADV_DOFORK));
	ASSERT_MMAP_ERRNO(EBUSY, map_part(self->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER,
					  a.producer_size, PROT_READ | PROT_WRITE));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, PG, PROT_READ, MAP_PRIVATE, self->fd,
				       FXTRACE_MMAP_OFFSET(a.buffer_id, FXTRACE_MMAP_HEADER)));
	ASSERT_ERRNO(EINVAL, munmap((char *)prod + PG, PG));
	ASSERT_MMAP_ERRNO(EFAULT, mremap(hdr, 0, PG, MREMAP_MAYMOVE));
}

/*
 * The controller after an exec: "<fd>" in the environment, the controller
 * fd it kept open across the exec.  The new program is not the controller;
 * closing the fd orphans the session.
 */
__attribute__((constructor)) static void controller_exec_child(void)
{
	const char *v = getenv("FXTRACE_HOSTILE_CTL_EXEC");
	struct fxtrace_session_info si;
	struct fxtrace_buffer_info bi;
	struct fxtrace_packet p;
	int fd, fd2;

	if (!v)
		return;
	fd = atoi(v);
	CHECK(buffer_info(fd, 1, &bi) == -1 && errno == EPERM, 70);
	CHECK(start_session(fd, FXTRACE_START_RETAIN) == -1 && errno == EPERM, 71);
	CHECK(read(fd, &p, sizeof(p)) == -1 && errno == EPERM, 72);
	CHECK(map_errno(fd, 1, FXTRACE_MMAP_READER, AREA_SIZE, PROT_READ) == EACCES, 73);
	CHECK(map_errno(fd, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ) == EACCES, 74);
	CHECK(ioctl(fd, FXTRACE_IOC_TERMINATE) == -1 && errno == EPERM, 75);
	CHECK(session_info(fd, &si) == 0 && si.state == FXTRACE_STATE_INITIALIZED, 76);
	/* Its last descriptor of the file: the session is orphaned. */
	fd2 = dev_open(0);
	CHECK(fd2 >= 0 && close(fd) == 0, 77);
	CHECK(session_info(fd2, &si) == 0 && (si.flags & FXTRACE_SESSION_ORPHANED), 78);
	_exit(0);
}

TEST_F(hs, controller_exec_ends_control)
{
	struct fxtrace_buffer_info bi;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int fd = open(FXTRACE_DEVICE, O_RDWR | O_NONBLOCK);	/* kept across exec */
		char env[16];

		CHECK(fd >= 0 && init_session(fd, &self->cfg) == 0, 50);
		CHECK(buffer_info(fd, 1, &bi) == 0, 51);
		snprintf(env, sizeof(env), "%d", fd);
		setenv("FXTRACE_HOSTILE_CTL_EXEC", env, 1);
		execl("/proc/self/exe", "hostile_test", (char *)NULL);
		_exit(52);
	}
	ASSERT_EQ(0, wait_child(pid)) TH_LOG("70+: the program exec'd kept control");
	/* Orphaned: a new controller may take it. */
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT));
}

/* ---- defect 6: a producer scribbling on its control page ---------------- */

struct scribble {
	int fd;
	__u32 id;
	volatile __u64 *ctl;
	volatile int stop;
	unsigned int seed;
	long fulls, full_ok;
};

static void *scribbler(void *arg)
{
	struct scribble *s = arg;

	while (!s->stop) {
		unsigned int i = rand_r(&s->seed) % 6;
		__u64 v = ((__u64)rand_r(&s->seed) << 33) ^ rand_r(&s->seed);

		if (rand_r(&s->seed) & 1)
			v &= 0x3ffff;	/* often near the real sizes */
		s->ctl[i] = v;
	}
	return NULL;
}

static void *full_caller(void *arg)
{
	struct scribble *s = arg;

	while (!s->stop) {
		__u64 w = s->ctl[3] & 7;

		s->fulls++;
		if (!buffer_full(s->fd, s->id, w))
			s->full_ok++;
		sched_yield();
	}
	return NULL;
}

/* The header's committed sizes stay in their parts and 8-byte aligned. */
static int header_sane(const struct fxtrace_buffer_header *h)
{
	return h->durable_committed <= h->durable_size &&
	       h->rolling_committed[0] <= h->rolling_size &&
	       h->rolling_committed[1] <= h->rolling_size &&
	       !(h->durable_committed & 7) && !(h->rolling_committed[0] & 7) &&
	       !(h->rolling_committed[1] & 7);
}

/*
 * The header as it was at RETIRED; only saved_wraps may move, by the
 * controller's own acks of halves requested before.
 */
static int header_final(const struct fxtrace_buffer_header *final,
			const struct fxtrace_buffer_header *h)
{
	struct fxtrace_buffer_header now = *h;

	if (now.saved_wraps < final->saved_wraps ||
	    now.saved_wraps > final->requested_wraps)
		return 0;
	now.saved_wraps = final->saved_wraps;
	return !memcmp(final, &now, sizeof(now));
}

struct owner_thread {
	int fd;
	struct fxtrace_attach a;
	void *m;
	int go[2];
};

static void *owner_fn(void *arg)
{
	struct owner_thread *o = arg;
	char c;

	if (attach(o->fd, &o->a))
		return NULL;
	o->m = map_part(o->fd, o->a.buffer_id, FXTRACE_MMAP_PRODUCER,
			o->a.producer_size, PROT_READ | PROT_WRITE);
	if (read(o->go[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

TEST_F_TIMEOUT(hs, hostile_control_page, 120)
{
	struct fxtrace_buffer_header final, *h;
	struct fxtrace_packet p;
	struct owner_thread o = { 0 };
	struct scribble s = { .seed = 1234 };
	pthread_t owner, scr, full;
	long samples = 0, saves = 0, acks = 0, cycles = 0;
	int retired = 0, after_retired = 0, joined = 0, i;
	time_t end;

	self->cfg.mode = FXTRACE_MODE_STREAMING;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	o.fd = self->fd;
	ASSERT_EQ(0, pipe(o.go));
	ASSERT_EQ(0, pthread_create(&owner, NULL, owner_fn, &o));
	for (i = 0; i < 500 && (!o.m || !o.a.buffer_id); i++)
		usleep(10000);
	ASSERT_NE(NULL, o.m);
	ASSERT_NE(MAP_FAILED, o.m);
	h = map_part(self->fd, o.a.buffer_id, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, h);
	s.fd = self->fd;
	s.id = o.a.buffer_id;
	s.ctl = o.m;
	ASSERT_EQ(0, pthread_create(&scr, NULL, scribbler, &s));
	ASSERT_EQ(0, pthread_create(&full, NULL, full_caller, &s));

	/* Phase 1: active; phase 2 (the owner exited): retired. */
	for (end = time(NULL) + 10; time(NULL) < end || !retired;) {
		struct fxtrace_packet ack;

		ASSERT_TRUE(header_sane(h));
		samples++;
		if (retired) {
			ASSERT_TRUE(header_final(&final, h))
				TH_LOG("the header changed after RETIRED");
		}
		/* Once: RETIRED may come some packets after the exit. */
		if (!joined && time(NULL) >= end - 5) {
			char c = 0;

			ASSERT_EQ(1, write(o.go[1], &c, 1));
			ASSERT_EQ(0, pthread_join(owner, NULL));
			joined = 1;
		}
		if (cycles++ % 50 == 0 && !ioctl(self->fd, FXTRACE_IOC_STOP))
			ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
		if (next_pkt(self->fd, &p, 1))
			continue;
		if (p.data32 != o.a.buffer_id)
			continue;
		if (p.request == FXTRACE_PKT_BUFFER_RETIRED) {
			ASSERT_EQ(0, retired);
			ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
			ASSERT_TRUE(header_sane(h));
			memcpy(&final, h, sizeof(final));
			retired = 1;
			end = time(NULL) + 5;
		} else if (p.request == FXTRACE_PKT_SAVE_BUFFER) {
			saves++;
			after_retired += retired;
			ack = p;
			ack.request = FXTRACE_PKT_BUFFER_SAVED;
			if (write(self->fd, &ack, sizeof(ack)) == sizeof(ack))
				acks++;
		}
	}
	s.stop = 1;
	pthread_join(scr, NULL);
	pthread_join(full, NULL);
	ASSERT_TRUE(header_final(&final, h));
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, h->state);
	ASSERT_EQ(0, after_retired);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	/* The mapping outlives the session and is still the producer's. */
	((volatile __u64 *)o.m)[0] = 0;
	TH_LOG("%ld header samples, %ld BUFFER_FULL (%ld taken), %ld saves acked of %ld",
	       samples, s.fulls, s.full_ok, acks, saves);
}

/* ---- a former controller's calls in flight --------------------------------- */

/*
 * A page (userfaultfd) whose first touch, by the kernel's copies too,
 * waits until stall_release() fills it: a call of another thread is held
 * mid-copy for as long as the test wants.
 */
struct stall {
	int uffd;
	void *page;
};

static int stall_make(struct stall *st)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	/* Non-blocking: poll() of a blocking one always says POLLERR. */
	st->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (st->uffd < 0 || ioctl(st->uffd, UFFDIO_API, &api))
		return -1;
	st->page = mmap(NULL, PG, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->page == MAP_FAILED)
		return -1;
	reg.range.start = (uintptr_t)st->page;
	reg.range.len = PG;
	return ioctl(st->uffd, UFFDIO_REGISTER, &reg);
}

/* Waits until something touched the page and waits on it. */
static int stall_wait(struct stall *st, int ms)
{
	struct pollfd pfd = { .fd = st->uffd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1 && pfd.revents == POLLIN ? 0 : -1;
}

/* Fills the page with len bytes of src, zeros after: the touch goes on. */
static int stall_release(struct stall *st, const void *src, size_t len)
{
	static char fill[4096] __attribute__((aligned(4096)));
	struct uffdio_copy copy = {
		.dst = (uintptr_t)st->page, .src = (uintptr_t)fill, .len = PG,
	};

	memset(fill, 0, sizeof(fill));
	memcpy(fill, src, len);
	return ioctl(st->uffd, UFFDIO_COPY, &copy);
}

/* A read() or write() in a thread of its own. */
struct stale_io {
	int fd;
	int write;
	void *buf;
	size_t len;
	volatile int done;
	ssize_t ret;
	int err;
};

static void *stale_io_fn(void *arg)
{
	struct stale_io *io = arg;

	io->ret = io->write ? write(io->fd, io->buf, io->len) :
			      read(io->fd, io->buf, io->len);
	io->err = errno;
	__atomic_store_n(&io->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Joins the thread if it returns within ms; -1 if not. */
static int stale_io_join(struct stale_io *io, pthread_t t, int ms)
{
	int i;

	for (i = 0; i < ms / 10 && !__atomic_load_n(&io->done, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	if (!__atomic_load_n(&io->done, __ATOMIC_ACQUIRE))
		return -1;
	return pthread_join(t, NULL);
}

/*
 * A thread of the controller waits in read() while another closes the
 * last descriptor: the read keeps the file, but the session is orphaned
 * and its packets are the next controller's.  The read leaves with EPERM
 * as the role goes, and the adopter's Start packets are all the
 * adopter's.
 */
TEST_F(hs, stale_reader_leaves_packets_to_adopter)
{
	struct fxtrace_packet p[8], q[8];
	struct stale_io io = { .buf = p, .len = sizeof(p) };
	pthread_t t;
	int fd1;

	fd1 = dev_open(0);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, init_session(fd1, &self->cfg));
	drain_all(fd1);
	io.fd = fd1;
	ASSERT_EQ(0, pthread_create(&t, NULL, stale_io_fn, &io));
	usleep(200000);
	ASSERT_EQ(0, io.done) TH_LOG("read did not block");
	ASSERT_EQ(0, close(fd1));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT)) TH_LOG("ADOPT: %s", strerror(errno));
	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(0, stale_io_join(&io, t, 5000)) TH_LOG("the old file's read never returned");
	EXPECT_EQ(-1, io.ret) TH_LOG("the old file's read took %zd bytes of the adopter's packets",
				     io.ret);
	EXPECT_EQ(EPERM, io.err);
	/* BUFFER_ADDED of the Start's KERNEL buffer, then STARTED. */
	ASSERT_EQ(2, drain(self->fd, q, 8));
	ASSERT_ADDED(q[0], FXTRACE_BUFFER_KERNEL, self->ncpus + 1);
	ASSERT_PKT(q[1], FXTRACE_PKT_STARTED, 0, FXTRACE_PACKET_VERSION, 1);
}

/*
 * The same read held on a page fault of its buffer (userfaultfd here, a
 * FUSE mapping would do): it must not hold the packets' read lock while
 * it waits, or the adopter could read nothing for as long as the old
 * process likes; and once the page comes, it reads nothing.
 */
TEST_F(hs, stale_reader_fault_holds_no_lock)
{
	struct fxtrace_packet q[64];
	struct stale_io io = { .len = sizeof(struct fxtrace_packet) };
	struct stall st;
	pthread_t t;
	ssize_t n;
	int fd1;

	if (stall_make(&st))
		SKIP(return, "userfaultfd: %s", strerror(errno));
	fd1 = dev_open(0);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, init_session(fd1, &self->cfg));	/* BUFFER_ADDED per CPU */
	io.fd = fd1;
	io.buf = st.page;
	ASSERT_EQ(0, pthread_create(&t, NULL, stale_io_fn, &io));
	ASSERT_EQ(0, stall_wait(&st, 5000)) TH_LOG("read did not touch its buffer");
	ASSERT_EQ(0, close(fd1));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT)) TH_LOG("ADOPT: %s", strerror(errno));
	n = read(self->fd, q, sizeof(q));
	EXPECT_EQ(16 * self->ncpus, n) TH_LOG("the adopter's read: %s", strerror(errno));
	ASSERT_EQ(0, stall_release(&st, q, 0));
	ASSERT_EQ(0, stale_io_join(&io, t, 5000)) TH_LOG("the old file's read never returned");
	EXPECT_EQ(-1, io.ret) TH_LOG("the old file's read took %zd bytes", io.ret);
	EXPECT_EQ(EPERM, io.err);
	munmap(st.page, PG);
	close(st.uffd);
}

/*
 * A write() of BUFFER_SAVED held on a page fault while the session is
 * orphaned and adopted applies nothing to the adopter's session: the
 * producer's half stays requested, not saved, until the adopter acks it.
 */
TEST_F(hs, stale_writer_acks_nothing)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_packet ack;
	struct stale_io io = { .write = 1, .len = sizeof(ack) };
	struct fxtrace_attach a;
	struct stall st;
	pthread_t t;
	int fd1;

	if (stall_make(&st))
		SKIP(return, "userfaultfd: %s", strerror(errno));
	self->cfg.mode = FXTRACE_MODE_STREAMING;
	fd1 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, init_session(fd1, &self->cfg));
	ASSERT_EQ(0, start_session(fd1, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(0, attach(self->fd, &a)) TH_LOG("ATTACH: %s", strerror(errno));
	ASSERT_EQ(0, buffer_full(self->fd, a.buffer_id, 0));
	h = map_header(self->fd, a.buffer_id);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(1, h->requested_wraps);
	ASSERT_EQ(0, h->saved_wraps);
	io.fd = fd1;
	io.buf = st.page;
	ASSERT_EQ(0, pthread_create(&t, NULL, stale_io_fn, &io));
	ASSERT_EQ(0, stall_wait(&st, 5000)) TH_LOG("write did not touch its buffer");
	ASSERT_EQ(0, close(fd1));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT)) TH_LOG("ADOPT: %s", strerror(errno));
	memset(&ack, 0, sizeof(ack));
	ack.request = FXTRACE_PKT_BUFFER_SAVED;
	ack.data32 = a.buffer_id;
	ASSERT_EQ(0, stall_release(&st, &ack, sizeof(ack)));
	ASSERT_EQ(0, stale_io_join(&io, t, 5000)) TH_LOG("the old file's write never returned");
	EXPECT_EQ(-1, io.ret) TH_LOG("the old file's write applied %zd bytes", io.ret);
	EXPECT_EQ(EPERM, io.err);
	EXPECT_EQ(0, h->saved_wraps) TH_LOG("a save the adopter never made was acknowledged");
	/* The adopter's own acknowledgement is the one that counts. */
	drain_all(self->fd);
	EXPECT_EQ(sizeof(ack), write(self->fd, &ack, sizeof(ack))) TH_LOG("write: %s", strerror(errno));
	EXPECT_EQ(1, h->saved_wraps);
	munmap((void *)h, PG);
	munmap(st.page, PG);
	close(st.uffd);
}

/* Reads a mapped header's magic in a child: 0 if it read, else the signal. */
static int magic_in_child(const volatile __u32 *magic)
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
 * A mapping ADOPT revoked stays a mapping: its VMA keeps its buffer and
 * its flags, only its PTEs are gone.  What the mapping refused before the
 * zap it refuses after, a fork copies it empty (the copy faults too), a
 * change of protection brings nothing back, and unmapping it lets the
 * buffer go.  The one-page CPU HEADER mapping is the one x86 PAT
 * tracked when it was made by a whole-VMA remap_pfn_range() (now
 * vmf_insert_pfn(), lifecycle_test revocable_mappings_not_pat_tracked):
 * the guest run fails on any kernel warning after the zap.
 */
TEST_F(hs, revoked_mappings_stay_sound)
{
	const struct fxtrace_buffer_header *old, *old_hdr;
	struct fxtrace_buffer_info bi;
	int fd1;
	char *dst;

	fd1 = dev_open(O_NONBLOCK);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, init_session(fd1, &self->cfg));
	drain_all(fd1);
	ASSERT_EQ(0, buffer_info(fd1, 1, &bi));
	ASSERT_EQ(FXTRACE_BUFFER_CPU, bi.kind);
	old = map_part(fd1, 1, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, old) TH_LOG("READER: %s", strerror(errno));
	old_hdr = map_part(fd1, 1, FXTRACE_MMAP_HEADER, PG, PROT_READ);
	ASSERT_NE(MAP_FAILED, old_hdr) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_EQ(0, close(fd1));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT)) TH_LOG("ADOPT: %s", strerror(errno));
	ASSERT_EQ(SIGBUS, magic_in_child(&old_hdr->magic));
	ASSERT_EQ(SIGBUS, magic_in_child(&old->magic));

	/* Refused as before the zap: no move, no split, no user zap. */
	dst = mmap(NULL, bi.reader_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	ASSERT_MMAP_ERRNO(EINVAL, mremap((void *)old_hdr, PG, PG,
					 MREMAP_MAYMOVE | MREMAP_FIXED, dst));
	ASSERT_MMAP_ERRNO(EINVAL, mremap((void *)old, bi.reader_size, bi.reader_size,
					 MREMAP_MAYMOVE | MREMAP_FIXED, dst));
	ASSERT_ERRNO(EINVAL, munmap((char *)old + PG, PG));
	ASSERT_ERRNO(EINVAL, madvise((void *)old, bi.reader_size, MADV_DONTNEED));
	ASSERT_ERRNO(EINVAL, madvise((void *)old_hdr, PG, MADV_DONTNEED));
	ASSERT_ERRNO(EACCES, mprotect((void *)old_hdr, PG, PROT_READ | PROT_WRITE));

	/* A change of protection brings nothing back. */
	ASSERT_EQ(0, mprotect((void *)old_hdr, PG, PROT_NONE));
	ASSERT_EQ(0, mprotect((void *)old_hdr, PG, PROT_READ));
	ASSERT_EQ(SIGBUS, magic_in_child(&old_hdr->magic));

	ASSERT_EQ(0, munmap((void *)old_hdr, PG));
	ASSERT_EQ(0, munmap((void *)old, bi.reader_size));
	ASSERT_EQ(0, munmap(dst, bi.reader_size));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
}

TEST_HARNESS_MAIN
