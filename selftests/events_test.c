// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events with exact expectations: a workload with known behaviour
 * runs while one kernel category is enabled, then every CPU buffer is
 * decoded with the strict decoder and the records are checked.  Run as
 * root in the guest with fxtrace.ko loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxt_reader.h"
#include "fxtctl.h"
#include "kselftest_harness.h"
#include "fxtrace_selftest.h"

#define MAX_RECS (1 << 18)
#define CPU_TRACK_KOID 0xf0000000ULL

/* What the tests look at in a record. */
struct rec {
	uint32_t type, subtype, cpu, state, event;
	uint64_t ts, out, in, pid, tid, koid, waker, process;
	int64_t arg;		/* "nr", "ret", "irq", "vector" or "i" */
	char name[40];
	bool user;		/* from a task buffer */
};

struct recs {
	struct rec *r;
	size_t n;
	uint64_t errors, warnings;
	bool user;
};

static void copy_name(char *dst, size_t size, const struct fxt_string *s)
{
	snprintf(dst, size, "%.*s", s->ptr ? (int)s->len : 0,
		 s->ptr ? s->ptr : "");
}

static int on_record(void *ctx, const struct fxt_record *fr)
{
	struct recs *rs = ctx;
	struct rec *r;
	uint32_t i;

	if (fr->type != FXT_REC_EVENT && fr->type != FXT_REC_SCHED &&
	    fr->type != FXT_REC_KOBJ)
		return 0;
	if (rs->n == MAX_RECS)
		return -ENOSPC;
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->user = rs->user;
	r->type = fr->type;
	r->subtype = fr->subtype;
	if (fr->type == FXT_REC_EVENT)
		r->event = fr->subtype;
	r->ts = fr->ts;
	r->cpu = fr->cpu;
	r->state = fr->out_state;
	r->out = fr->out.tid;
	r->in = fr->in.tid;
	r->pid = fr->thread.pid;
	r->tid = fr->thread.tid;
	r->koid = fr->id;
	copy_name(r->name, sizeof(r->name), &fr->name);
	for (i = 0; i < fr->nargs; i++) {
		const struct fxt_arg *a = &fr->args[i];

		if (fxt_string_is(&a->name, "waker"))
			r->waker = a->value.u64;
		else if (fxt_string_is(&a->name, "process"))
			r->process = a->value.u64;
		else if (a->type == FXT_ARG_INT32 || a->type == FXT_ARG_INT64)
			r->arg = a->value.i64;
	}
	return 0;
}

static void decode(struct fxtctl_buffer *b, struct recs *rs)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	size_t len;
	unsigned char *buf = fxtctl_buffer_copy(b, 0, &len);

	rs->user = b->kind == FXTRACE_BUFFER_TASK;
	fxt_reader_read_buffer(r, buf, len, on_record, rs);
	rs->errors += fxt_reader_count(r, FXT_ERROR);
	rs->warnings += fxt_reader_count(r, FXT_WARNING);
	fxt_reader_free(r);
	free(buf);
}

FIXTURE(kev) {
	struct fxtctl c;
	struct recs rs;
	uint64_t kernel_dropped;
	uint64_t names_dropped;		/* the KERNEL buffer's */
	uint32_t names_flags;
};

FIXTURE_SETUP(kev)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
	ASSERT_EQ(0, fxtctl_open(&self->c));
	if (!fxtctl_adopt(&self->c)) {
		fxtctl_terminate(&self->c);
		fxtctl_close(&self->c);
		ASSERT_EQ(0, fxtctl_open(&self->c));
	}
	self->rs.r = calloc(MAX_RECS, sizeof(struct rec));
	ASSERT_NE(NULL, self->rs.r);
}

FIXTURE_TEARDOWN(kev)
{
	fxtctl_terminate(&self->c);
	fxtctl_close(&self->c);
	free(self->rs.r);
}

static int start(struct fxtctl *c, const char *cats, size_t size, pid_t pid)
{
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = FXTRACE_MODE_ONESHOT,
		.cpu_buffer_size = 4ULL << 20,
		.task_buffer_size = 64ULL << 10,
		.categories = (__u64)(uintptr_t)cats,
		.categories_size = (__u32)size,
		.filter_pid = (__u32)pid,
	};
	int ret = fxtctl_init(c, &cfg);

	return ret ? ret : fxtctl_start(c, FXTRACE_START_CLEAR_ALL);
}

/* Stop, then decode every buffer the session has. */
static void stop_and_decode(struct __test_metadata *_metadata,
			    FIXTURE_DATA(kev) *self)
{
	struct fxtrace_buffer_info info = { .size = sizeof(info), .id = 1 };
	struct fxtctl_buffer *b;

	ASSERT_EQ(0, fxtctl_stop(&self->c));
	while (!ioctl(self->c.fd, FXTRACE_IOC_BUFFER_INFO, &info)) {
		b = fxtctl_buffer(&self->c, info.id);
		ASSERT_NE(NULL, b);
		decode(b, &self->rs);
		if (b->kind == FXTRACE_BUFFER_CPU)
			self->kernel_dropped += b->hdr->dropped_records;
		if (b->kind == FXTRACE_BUFFER_KERNEL) {
			self->names_dropped += b->hdr->dropped_records;
			self->names_flags |= b->hdr->flags;
		}
		info.id++;
	}
	EXPECT_EQ(0, self->rs.errors);
	EXPECT_EQ(0, self->rs.warnings);
	EXPECT_EQ(0, self->kernel_dropped);
}

/* Records of different CPUs, merged on the one clock. */
static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* ---- the ping-pong workload -------------------------------------------- */

#define ROUNDS 50

struct pong {
	int to_b[2], to_a[2];
	pid_t tid_b;
};

static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *player_b(void *arg)
{
	struct pong *p = arg;
	char c;
	int i;

	pin_to_cpu0();
	p->tid_b = (pid_t)syscall(SYS_gettid);
	for (i = 0; i < ROUNDS; i++) {
		if (read(p->to_b[0], &c, 1) != 1 || write(p->to_a[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

/*
 * Two threads on one CPU pass a byte back and forth ROUNDS times: control
 * must move between them at least twice a round, every context switch on
 * a CPU starts the thread the next one stops, a thread that blocked is
 * woken before it runs again, and in every round the player that waits
 * for the other is woken by it (the waker named in the record).
 */
TEST_F(kev, sched_ping_pong)
{
	static const char cats[] = "kernel:sched";
	struct pong p;
	pthread_t b;
	pid_t tid_a = (pid_t)syscall(SYS_gettid);
	uint64_t last_in[64] = { 0 };
	bool seen[64] = { 0 }, a_blocked = false, b_blocked = false;
	int i, alternations = 0, wakeups = 0, by_peer = 0, switches = 0;
	uint64_t running = 0;
	char c = 'x';
	size_t k;

	ASSERT_EQ(0, pipe(p.to_b));
	ASSERT_EQ(0, pipe(p.to_a));
	/* No page fault over 9p may block a player for other reasons. */
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE));
	pin_to_cpu0();
	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), 0));
	pthread_create(&b, NULL, player_b, &p);
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(1, write(p.to_b[1], &c, 1));
		ASSERT_EQ(1, read(p.to_a[0], &c, 1));
	}
	pthread_join(b, NULL);
	munlockall();
	stop_and_decode(_metadata, self);
	qsort(self->rs.r, self->rs.n, sizeof(*self->rs.r), by_time);

	for (k = 0; k < self->rs.n; k++) {
		struct rec *r = &self->rs.r[k];

		if (r->type != FXT_REC_SCHED || r->user)
			continue;
		if (r->subtype == FXT_SCHED_CONTEXT_SWITCH) {
			ASSERT_LT(r->cpu, 64);
			/* Each switch stops what the last one started. */
			if (seen[r->cpu])
				EXPECT_EQ(last_in[r->cpu], r->out);
			seen[r->cpu] = true;
			last_in[r->cpu] = r->in;
			if (r->cpu != 0)
				continue;
			switches++;
			if (r->out == (uint64_t)tid_a &&
			    r->state == FXT_THREAD_STATE_BLOCKED)
				a_blocked = true;
			if (r->out == (uint64_t)p.tid_b &&
			    r->state == FXT_THREAD_STATE_BLOCKED)
				b_blocked = true;
			/* A blocked thread runs again only after a wakeup. */
			if (r->in == (uint64_t)tid_a)
				EXPECT_FALSE(a_blocked);
			if (r->in == (uint64_t)p.tid_b)
				EXPECT_FALSE(b_blocked);
			if ((r->in == (uint64_t)tid_a ||
			     r->in == (uint64_t)p.tid_b) && r->in != running) {
				if (running)
					alternations++;
				running = r->in;
			}
		} else if (r->subtype == FXT_SCHED_WAKEUP) {
			/* Waker 0: an interrupt woke it while the CPU idled. */
			if (r->tid == (uint64_t)tid_a && a_blocked) {
				by_peer += r->waker == (uint64_t)p.tid_b;
				a_blocked = false;
				wakeups++;
			}
			if (r->tid == (uint64_t)p.tid_b && b_blocked) {
				by_peer += r->waker == (uint64_t)tid_a;
				b_blocked = false;
				wakeups++;
			}
		}
	}
	EXPECT_GE(alternations, 2 * ROUNDS - 1);
	/* Each round one player reads before the other wrote, and waits. */
	EXPECT_GE(by_peer, ROUNDS - 1);
	TH_LOG("%d switches on cpu 0, %d between the players, %d wakeups of a blocked player, %d by the other",
	       switches, alternations, wakeups, by_peer);
}

/*
 * With a pid filter, scheduling records are those of the process's threads
 * (switched in or out, woken or waking): a busy process beside it leaves
 * no record.  Interrupts are kept only when they interrupt its threads.
 */
TEST_F(kev, pid_filter_sched_and_irq)
{
	static const char cats[] = "kernel:sched\0kernel:irq";
	struct pong p;
	pthread_t b;
	pid_t tid_a = (pid_t)syscall(SYS_gettid), noise;
	int i, ours = 0, others = 0;
	char c = 'x';
	size_t k;

	ASSERT_EQ(0, pipe(p.to_b));
	ASSERT_EQ(0, pipe(p.to_a));
	noise = fork();
	if (noise == 0) {
		for (;;)
			usleep(500);
	}
	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), getpid()));
	pthread_create(&b, NULL, player_b, &p);
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(1, write(p.to_b[1], &c, 1));
		ASSERT_EQ(1, read(p.to_a[0], &c, 1));
	}
	pthread_join(b, NULL);
	usleep(100000);
	stop_and_decode(_metadata, self);
	kill(noise, SIGKILL);
	waitpid(noise, NULL, 0);

	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k];
		bool mine;

		if (r->type != FXT_REC_SCHED || r->user)
			continue;
		if (r->subtype == FXT_SCHED_CONTEXT_SWITCH)
			mine = r->out == (uint64_t)tid_a || r->out == (uint64_t)p.tid_b ||
			       r->in == (uint64_t)tid_a || r->in == (uint64_t)p.tid_b;
		else
			mine = r->tid == (uint64_t)tid_a || r->tid == (uint64_t)p.tid_b ||
			       r->waker == (uint64_t)tid_a || r->waker == (uint64_t)p.tid_b;
		ours += mine;
		others += !mine;
	}
	TH_LOG("%d scheduling records of the process, %d of others", ours, others);
	EXPECT_LE(2 * ROUNDS, ours);
	EXPECT_EQ(0, others);
}

/* ---- names -------------------------------------------------------------- */

static const struct rec *find_kobj(const struct recs *rs, uint32_t type,
				   uint64_t koid, const char *name)
{
	size_t k;

	for (k = 0; k < rs->n; k++) {
		const struct rec *r = &rs->r[k];

		if (r->type == FXT_REC_KOBJ && r->subtype == type &&
		    r->koid == koid && !strcmp(r->name, name))
			return r;
	}
	return NULL;
}

static void *renamer(void *arg)
{
	pid_t *tid = arg;

	*tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_SET_NAME, "renamed-thread");
	return NULL;
}

/* fork, exec, rename and exit give the names and the exit instant. */
TEST_F(kev, task_lifecycle_names)
{
	static const char cats[] = "kernel:task";
	const struct rec *r;
	pid_t child, renamed = 0;
	pthread_t t;
	int status;
	size_t k;
	bool exited = false;

	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), 0));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		execl("/bin/true", "true", NULL);
		_exit(127);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	pthread_create(&t, NULL, renamer, &renamed);
	pthread_join(t, NULL);
	stop_and_decode(_metadata, self);

	/* The existing tasks at Start: this process by name. */
	EXPECT_NE(NULL, find_kobj(&self->rs, FXT_KOBJ_PROCESS, getpid(),
				  program_invocation_short_name));
	/* fork names the child thread and process, exec renames both. */
	r = find_kobj(&self->rs, FXT_KOBJ_THREAD, child, "true");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(child, r->process);
	EXPECT_NE(NULL, find_kobj(&self->rs, FXT_KOBJ_PROCESS, child, "true"));
	/* The new thread is named after its parent, then renames itself. */
	r = find_kobj(&self->rs, FXT_KOBJ_THREAD, renamed, "renamed-thread");
	ASSERT_NE(NULL, r);
	EXPECT_EQ(getpid(), r->process);
	for (k = 0; k < self->rs.n; k++) {
		r = &self->rs.r[k];
		if (r->type == FXT_REC_EVENT && r->tid == (uint64_t)child &&
		    !strcmp(r->name, "exit"))
			exited = true;
	}
	EXPECT_TRUE(exited);
}

/*
 * A child that, as real uid ruid and effective uid euid, renames itself
 * times times, alternating two names, then sets its name again, unchanged,
 * as many times.
 */
static pid_t renaming_child(uid_t ruid, uid_t euid, int times)
{
	pid_t pid = fork();
	char name[16];
	int i;

	if (pid)
		return pid;
	if (setresgid(ruid, ruid, ruid) || setresuid(ruid, euid, euid))
		_exit(1);
	for (i = 0; i < times; i++) {
		snprintf(name, sizeof(name), "r%d", i & 1);
		if (prctl(PR_SET_NAME, name))
			_exit(2);
	}
	for (i = 0; i < times; i++)
		if (prctl(PR_SET_NAME, name))
			_exit(2);
	_exit(0);
}

static int kobj_count(const struct recs *rs, uint32_t type, uint64_t koid)
{
	int n = 0;
	size_t k;

	for (k = 0; k < rs->n; k++)
		n += rs->r[k].type == FXT_REC_KOBJ &&
		     rs->r[k].subtype == type && rs->r[k].koid == koid;
	return n;
}

static int kobj_count_named(const struct recs *rs, uint32_t type,
			    uint64_t koid, const char *name)
{
	int n = 0;
	size_t k;

	for (k = 0; k < rs->n; k++)
		n += rs->r[k].type == FXT_REC_KOBJ &&
		     rs->r[k].subtype == type && rs->r[k].koid == koid &&
		     !strcmp(rs->r[k].name, name);
	return n;
}

#define RENAMES 10000

static long share_percent(void)
{
	FILE *f = fopen("/sys/module/fxtrace/parameters/user_share_percent",
			"r");
	long v = 25;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 25;
		fclose(f);
	}
	return v;
}

/*
 * Start kernel:task (with pid_filter), let a child of real uid 65534 and
 * effective uid euid rename itself RENAMES times, then rename a thread of
 * this process (root) and decode everything; the child's pid.
 */
static pid_t renames_then_root_rename(struct __test_metadata *_metadata,
				      FIXTURE_DATA(kev) *self,
				      pid_t pid_filter, uid_t euid)
{
	static const char cats[] = "kernel:task";
	pid_t child, renamed = 0;
	pthread_t t;
	int status;

	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), pid_filter));
	child = renaming_child(65534, euid, RENAMES);
	ASSERT_LE(0, child);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	pthread_create(&t, NULL, renamer, &renamed);
	pthread_join(t, NULL);
	stop_and_decode(_metadata, self);
	/* Root's rename after the child's is written. */
	EXPECT_NE(NULL, find_kobj(&self->rs, FXT_KOBJ_THREAD, renamed,
				  "renamed-thread"));
	return child;
}

/*
 * The renames of a child of real uid 65534 fill only its share of the
 * names room: root's rename after them is written, the buffer is not full,
 * and exactly the renames past the share are dropped (a name set again is
 * no rename).
 */
static void names_room_of_uid_65534(struct __test_metadata *_metadata,
				    FIXTURE_DATA(kev) *self, uid_t euid)
{
	/* A rename of a process's only thread: its thread and process records. */
	const uint64_t per_rename = 8 * (fxt_kobj_name_words(2, 1) +
					 fxt_kobj_name_words(2, 0));
	const uint64_t share = (256 << 10) * share_percent() / 100;
	pid_t child = renames_then_root_rename(_metadata, self, 0, euid);

	ASSERT_LT(0, child);
	EXPECT_EQ(0, self->names_flags & FXTRACE_BUFFER_DURABLE_FULL);
	/* The fork's names are root's (the parent forked); the renames not. */
	EXPECT_EQ(1 + share / per_rename,
		  kobj_count(&self->rs, FXT_KOBJ_THREAD, child));
	EXPECT_EQ(RENAMES - share / per_rename, self->names_dropped);
	TH_LOG("%llu of %d renames of uid 65534 (euid %u) kept (%llu bytes each)",
	       (unsigned long long)(share / per_rename), RENAMES, euid,
	       (unsigned long long)per_rename);
}

TEST_F(kev, names_room_shared_by_users)
{
	names_room_of_uid_65534(_metadata, self, 65534);
}

/* As a set-user-ID root program run by uid 65534 would be: still 65534's. */
TEST_F(kev, names_room_charged_to_the_real_uid)
{
	names_room_of_uid_65534(_metadata, self, 0);
}

static int thread_renames(const struct recs *rs, uint64_t koid)
{
	return kobj_count_named(rs, FXT_KOBJ_THREAD, koid, "r0") +
	       kobj_count_named(rs, FXT_KOBJ_THREAD, koid, "r1");
}

/*
 * The user of the process the pid filter names (sudo fxtrace record -u
 * USER -- PROGRAM) is traced, as the owner is: that process's renames
 * fill the names room past a share (twice one here), as root's may; only
 * its tasks name themselves under the filter, so no one else's names are
 * pushed out.  Before, what it wrote past its share was dropped.
 */
TEST_F(kev, names_room_of_the_traced_user)
{
	static const char cats[] = "kernel:task";
	const uint64_t per_rename = 8 * (fxt_kobj_name_words(2, 1) +
					 fxt_kobj_name_words(2, 0));
	const uint64_t share = (256 << 10) * share_percent() / 100;
	const int renames = (int)(2 * share / per_rename);
	int go[2], status, ret, i;
	char name[16];
	pid_t child;

	/* Twice the share within the room, with the Start's names. */
	ASSERT_GE(128 << 10, 2 * share);
	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		close(go[1]);
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) ||
		    read(go[0], name, 1) != 1)
			_exit(1);
		for (i = 0; i < renames; i++) {
			snprintf(name, sizeof(name), "r%d", i & 1);
			if (prctl(PR_SET_NAME, name))
				_exit(2);
		}
		_exit(0);
	}
	close(go[0]);
	ret = start(&self->c, cats, sizeof(cats), child);
	if (ret) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		ASSERT_EQ(0, ret) TH_LOG("start: %s", strerror(-ret));
	}
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	stop_and_decode(_metadata, self);
	EXPECT_EQ(renames, thread_renames(&self->rs, child));
	EXPECT_EQ(0, self->names_dropped);
}

/* With a pid filter, other processes' tasks are not named, nor their exit. */
TEST_F(kev, names_of_the_traced_process_only)
{
	pid_t child = renames_then_root_rename(_metadata, self, getpid(), 65534);
	size_t k;

	ASSERT_LT(0, child);
	EXPECT_EQ(0, kobj_count(&self->rs, FXT_KOBJ_THREAD, child));
	EXPECT_EQ(0, kobj_count(&self->rs, FXT_KOBJ_PROCESS, child));
	EXPECT_EQ(0, self->names_dropped);
	for (k = 0; k < self->rs.n; k++)
		EXPECT_NE((uint64_t)child, self->rs.r[k].pid);
}

/* ---- syscalls and irqs --------------------------------------------------- */

#define CALLS 100

/* Exactly CALLS getppid durations on this thread, with their results. */
TEST_F(kev, syscalls_of_one_process)
{
	static const char cats[] = "kernel:syscall";
	pid_t tid = (pid_t)syscall(SYS_gettid), ppid = getppid();
	int begins = 0, ends = 0, others = 0, i;
	size_t k;

	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), getpid()));
	for (i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	stop_and_decode(_metadata, self);
	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k];

		if (r->type != FXT_REC_EVENT || r->user)
			continue;
		/* The pid filter: only this process. */
		EXPECT_EQ(getpid(), r->pid);
		if (strcmp(r->name, "getppid")) {
			others++;
			continue;
		}
		EXPECT_EQ(tid, r->tid);
		if (r->event == FXT_EVENT_DURATION_BEGIN) {
			EXPECT_EQ(SYS_getppid, r->arg);
			begins++;
		} else {
			EXPECT_EQ(ppid, r->arg);
			ends++;
		}
	}
	EXPECT_EQ(CALLS, begins);
	EXPECT_EQ(CALLS, ends);
	TH_LOG("%d getppid pairs, %d other syscall records", begins, others);
}

/* getpid through the 32-bit syscall entry: its number is ia32's, 20. */
static long ia32_getpid(void)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "a"(20L)
		     : "r8", "r9", "r10", "r11", "memory");
	return ret;
}

static void exit_on_signal(int sig)
{
	_exit(128 + sig);
}

/*
 * Whether this kernel takes int $0x80 from 64-bit code: a kernel without
 * IA32_EMULATION, or booted with ia32_emulation=false, raises a general
 * protection fault (SIGSEGV) instead.  Probed in a child, whose handler
 * keeps the kernel from logging the fault as an unhandled one.
 */
static bool ia32_syscalls_work(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGSEGV, exit_on_signal);
		_exit(ia32_getpid() == getpid() ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * A 32-bit syscall's number is not in the 64-bit table the names come
 * from (ia32's 20, getpid, is x86_64's writev): it is named "syscall",
 * with its number, not after the 64-bit syscall of that number.
 */
TEST_F(kev, ia32_syscalls_not_named_as_64_bit)
{
	static const char cats[] = "kernel:syscall";
	int begins = 0, ends = 0, misnamed = 0, i;
	size_t k;

	if (!ia32_syscalls_work())
		SKIP(return, "no 32-bit syscalls (IA32_EMULATION off)");
	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), getpid()));
	for (i = 0; i < CALLS; i++)
		ia32_getpid();
	stop_and_decode(_metadata, self);
	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k];

		if (r->type != FXT_REC_EVENT || r->user)
			continue;
		misnamed += !strcmp(r->name, "writev");
		if (strcmp(r->name, "syscall"))
			continue;
		if (r->event == FXT_EVENT_DURATION_BEGIN) {
			EXPECT_EQ(20, r->arg);
			begins++;
		} else {
			EXPECT_EQ(getpid(), r->arg);
			ends++;
		}
	}
	EXPECT_EQ(0, misnamed);
	EXPECT_EQ(CALLS, begins);
	EXPECT_EQ(CALLS, ends);
}

/*
 * A syscall end at thread exit only for a syscall still open: exit_group's
 * caller gets its end; a thread blocked in read() gets read's own end
 * (-ERESTARTSYS) and nothing more; a thread killed spinning in user space
 * gets none.
 */
static volatile int spinning;

static void *spinner(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&spinning, 1, __ATOMIC_SEQ_CST);
	for (;;)
		;
	return NULL;
}

static void *blocked_reader(void *arg)
{
	int *fds = arg;
	char c;

	if (read(fds[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void exit_group_child(int go, int tids_fd)
{
	pthread_t t;
	pid_t tids[2] = { 0, 0 };
	int never[2];
	char c;

	if (read(go, &c, 1) != 1 || pipe(never))
		_exit(1);
	if (pthread_create(&t, NULL, blocked_reader, never) ||
	    pthread_create(&t, NULL, spinner, &tids[1]))
		_exit(2);
	while (!__atomic_load_n(&spinning, __ATOMIC_SEQ_CST))
		;
	/* The reader: the thread that is neither this one nor the spinner. */
	usleep(300000);
	if (write(tids_fd, tids, sizeof(tids)) != sizeof(tids))
		_exit(3);
	syscall(SYS_exit_group, 0);
}

TEST_F(kev, syscall_ends_at_exit)
{
	static const char cats[] = "kernel:syscall";
	int go[2], tids[2], threads = 0, reader_end = 0, exit_end = 0;
	pid_t child, t[2];
	size_t k, j;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(tids));
	child = fork();
	if (child == 0)
		exit_group_child(go[0], tids[1]);
	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), child));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(sizeof(t), read(tids[0], t, sizeof(t)));
	ASSERT_EQ(0, waitpid(child, NULL, 0) == child ? 0 : -1);
	stop_and_decode(_metadata, self);
	qsort(self->rs.r, self->rs.n, sizeof(struct rec), by_time);

	/* Per thread: begin, end, begin, end... each end naming its begin. */
	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k], *open = NULL, *last = NULL;
		bool seen = false;

		if (r->type != FXT_REC_EVENT || r->user || r->pid != child)
			continue;
		for (j = 0; j < k; j++) {
			if (self->rs.r[j].type == FXT_REC_EVENT && !self->rs.r[j].user &&
			    self->rs.r[j].tid == r->tid)
				seen = true;
		}
		if (seen)
			continue;	/* not the thread's first record */
		threads++;
		for (j = k; j < self->rs.n; j++) {
			const struct rec *q = &self->rs.r[j];

			if (q->type != FXT_REC_EVENT || q->user || q->tid != r->tid)
				continue;
			if (q->event == FXT_EVENT_DURATION_BEGIN) {
				EXPECT_EQ(NULL, open) TH_LOG("tid %lu: %s in %s",
					(unsigned long)q->tid, q->name, open->name);
				open = q;
			} else if (open) {
				EXPECT_STREQ(open->name, q->name);
				open = NULL;
			} else {
				/*
				 * Only a thread's first record: a syscall that
				 * began before Start, or clone's return in a
				 * new thread.
				 */
				EXPECT_EQ(NULL, last)
					TH_LOG("tid %lu: end of %s (ret %ld) with none open",
					       (unsigned long)q->tid, q->name, (long)q->arg);
			}
			last = q;
		}
		EXPECT_EQ(NULL, open);
		ASSERT_NE(NULL, last);
		if (r->tid == (uint64_t)child) {
			EXPECT_STREQ("exit_group", last->name);
			exit_end++;
		} else if (r->tid != (uint64_t)t[1] && !strcmp(last->name, "read")) {
			EXPECT_EQ(-512, last->arg);	/* -ERESTARTSYS */
			reader_end++;
		}
	}
	EXPECT_EQ(3, threads);
	EXPECT_EQ(1, exit_end);
	EXPECT_EQ(1, reader_end);
}

/* A context switch's outgoing state is ftrace's prev_state: parked is not running. */
TEST_F(kev, parked_thread_state)
{
	static const char cats[] = "kernel:sched";
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	char path[64], comm[32];
	int parked = 0, running = 0, fd;
	pid_t tid = 0;
	size_t k;
	FILE *f;

	if (access(online, W_OK))
		SKIP(return, "no hot-pluggable CPU 1");
	/* ksoftirqd/1 parks when CPU 1 goes offline. */
	for (k = 2; k < 4096 && !tid; k++) {
		snprintf(path, sizeof(path), "/proc/%zu/comm", k);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "ksoftirqd/1\n"))
			tid = (pid_t)k;
		fclose(f);
	}
	ASSERT_NE(0, tid);
	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), 0));
	fd = open(online, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "0", 1));
	usleep(100000);
	ASSERT_EQ(1, pwrite(fd, "1", 1, 0));
	close(fd);
	stop_and_decode(_metadata, self);
	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k];

		if (r->type != FXT_REC_SCHED || r->out != (uint64_t)tid)
			continue;
		parked += r->state == FXT_THREAD_STATE_SUSPENDED;
		running += r->state == FXT_THREAD_STATE_RUNNING;
	}
	TH_LOG("ksoftirqd/1 (%d) left the CPU parked %d times, running %d", tid, parked,
	       running);
	EXPECT_LE(1, parked);
}

/*
 * The pid filter follows the process, not its number: a new process that
 * gets the number of the one given is not traced.
 */
TEST_F(kev, pid_filter_not_recycled)
{
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = FXTRACE_MODE_ONESHOT,
		.cpu_buffer_size = 1ULL << 20,
		.task_buffer_size = 64ULL << 10,
		.categories = (__u64)(uintptr_t)"kernel:syscall",
		.categories_size = sizeof("kernel:syscall"),
	};
	pid_t first, again = 0;
	int tries, i, records = 0;
	size_t k;
	FILE *f;

	first = fork();
	if (first == 0) {
		pause();
		_exit(0);
	}
	cfg.filter_pid = (__u32)first;
	ASSERT_EQ(0, fxtctl_init(&self->c, &cfg));
	kill(first, SIGKILL);
	ASSERT_EQ(first, waitpid(first, NULL, 0));
	ASSERT_EQ(0, fxtctl_start(&self->c, FXTRACE_START_CLEAR_ALL));
	for (tries = 0; tries < 10 && again != first; tries++) {
		f = fopen("/proc/sys/kernel/ns_last_pid", "w");
		ASSERT_NE(NULL, f);
		fprintf(f, "%d", first - 1);
		fclose(f);
		again = fork();
		if (again == 0) {
			if (getpid() == first)
				for (i = 0; i < 100; i++)
					syscall(SYS_getppid);
			_exit(0);
		}
		ASSERT_EQ(again, waitpid(again, NULL, 0));
	}
	ASSERT_EQ(first, again) TH_LOG("pid %d was not given again", first);
	stop_and_decode(_metadata, self);
	for (k = 0; k < self->rs.n; k++)
		records += self->rs.r[k].type == FXT_REC_EVENT && !self->rs.r[k].user;
	EXPECT_EQ(0, records);
}

/* Interrupts are durations on the CPU tracks, balanced per CPU. */
TEST_F(kev, irqs_on_cpu_tracks)
{
	static const char cats[] = "kernel:irq";
	int depth[64] = { 0 }, timers = 0, events = 0;
	size_t k;

	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), 0));
	usleep(100000);
	stop_and_decode(_metadata, self);
	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k];
		uint64_t cpu = r->tid - CPU_TRACK_KOID;

		if (r->type != FXT_REC_EVENT)
			continue;
		events++;
		ASSERT_LT(cpu, 64);
		EXPECT_EQ(0xefffffffULL, r->pid);
		if (r->event == FXT_EVENT_DURATION_BEGIN) {
			depth[cpu]++;
			if (!strcmp(r->name, "local_timer"))
				timers++;
		} else if (depth[cpu]) {
			/* The first record may end what began before Start. */
			depth[cpu]--;
		}
	}
	for (k = 0; k < 64; k++)
		EXPECT_GE(1, depth[k]);
	EXPECT_GT(timers, 0);
	TH_LOG("%d irq records, %d local timer interrupts in 100 ms", events,
	       timers);
}

/* ---- kernel and user events on one clock ------------------------------- */

struct late_write {
	pid_t reader;		/* thread id */
	int fd;
};

/*
 * Write once the reader sleeps in read() (its /proc syscall line starts
 * with read's number, 0), so that it blocks whatever the kernel's speed;
 * after 10 s write anyway and let the test fail.
 */
static void *late_writer(void *arg)
{
	const struct late_write *w = arg;
	char path[64], line[64];
	int i, n, fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", w->reader);
	for (i = 0; i < 10000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? (int)read(fd, line, sizeof(line) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 2 && !strncmp(line, "0 ", 2))
			break;
		usleep(1000);
	}
	if (write(w->fd, "x", 1) != 1)
		return arg;
	return NULL;
}

/*
 * A user duration around a blocking read: the thread's switch out (blocked)
 * and back in lie inside the duration, on the same clock.
 */
TEST_F(kev, user_duration_contains_its_context_switch)
{
	static const char cats[] = "kernel:sched\0app";
	uint64_t begin = 0, end = 0, out_ts = 0, in_ts = 0;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct late_write w = { .reader = tid };
	int fds[2];
	pthread_t t;
	size_t k;
	char c;

	ASSERT_EQ(0, pipe(fds));
	w.fd = fds[1];
	ASSERT_EQ(0, start(&self->c, cats, sizeof(cats), 0));
	pthread_create(&t, NULL, late_writer, &w);
	{
		TRACE_DURATION("app", "blocking read");
		ASSERT_EQ(1, read(fds[0], &c, 1));
	}
	pthread_join(t, NULL);
	stop_and_decode(_metadata, self);
	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k];

		if (r->user && r->type == FXT_REC_EVENT &&
		    !strcmp(r->name, "blocking read")) {
			if (r->event == FXT_EVENT_DURATION_BEGIN)
				begin = r->ts;
			else
				end = r->ts;
		}
	}
	ASSERT_NE(0, begin);
	/* This thread's first block and return after the begin, in time order. */
	qsort(self->rs.r, self->rs.n, sizeof(*self->rs.r), by_time);
	for (k = 0; k < self->rs.n; k++) {
		const struct rec *r = &self->rs.r[k];

		if (!r->user && r->type == FXT_REC_SCHED &&
		    r->subtype == FXT_SCHED_CONTEXT_SWITCH) {
			if (r->out == (uint64_t)tid &&
			    r->state == FXT_THREAD_STATE_BLOCKED && !out_ts &&
			    r->ts > begin)
				out_ts = r->ts;
			if (r->in == (uint64_t)tid && out_ts && !in_ts)
				in_ts = r->ts;
		}
	}
	ASSERT_NE(0, end);
	ASSERT_NE(0, out_ts);
	ASSERT_NE(0, in_ts);
	EXPECT_LT(begin, out_ts);
	EXPECT_LT(out_ts, in_ts);
	EXPECT_LT(in_ts, end);
	TH_LOG("duration %llu ticks; blocked from +%llu to +%llu",
	       (unsigned long long)(end - begin),
	       (unsigned long long)(out_ts - begin),
	       (unsigned long long)(in_ts - begin));
}

/* "*" and an empty list enable user categories, never kernel ones. */
TEST_F(kev, kernel_categories_only_when_named)
{
	static const char star[] = "*";
	int k;

	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, start(&self->c, k ? star : NULL, k ? sizeof(star) : 0, 0));
		EXPECT_TRUE(fxt_category_enabled("app"));
		EXPECT_FALSE(fxt_category_enabled("kernel:sched"));
		EXPECT_FALSE(fxt_category_enabled("kernel:syscall"));
		syscall(SYS_getppid);
		stop_and_decode(_metadata, self);
		/* No probe ran: the CPU buffers hold their prefixes only. */
		for (size_t i = 0; i < self->rs.n; i++)
			EXPECT_NE(FXT_REC_SCHED, self->rs.r[i].type);
		ASSERT_EQ(0, fxtctl_terminate(&self->c));
		fxtctl_close(&self->c);
		ASSERT_EQ(0, fxtctl_open(&self->c));
		self->rs.n = 0;
	}
}

/* ---- stress -------------------------------------------------------------- */

static volatile int stress_stop;

/* Short sleeps: timer interrupts, wakeups and context switches. */
static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 50000 };

	while (!stress_stop)
		nanosleep(&ts, NULL);
	return arg;
}

/*
 * Every category on while a bounded fork bomb and a sleep-heavy load run:
 * each buffer decodes with no error or warning (scheduler records in time
 * order per CPU), and what did not fit is counted.
 */
TEST_F_TIMEOUT(kev, stress_all_categories, 180)
{
	static const char every[] = "*\0kernel:*";
	const char *env = getenv("FXTRACE_STRESS_SECONDS");
	int seconds = env ? atoi(env) : 30, forks = 0, status, i;
	struct fxtrace_session_info info = { .size = sizeof(info) };
	pthread_t sleepers[2];
	time_t end;

	ASSERT_EQ(0, start(&self->c, every, sizeof(every), 0));
	for (i = 0; i < 2; i++)
		pthread_create(&sleepers[i], NULL, sleeper, NULL);
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		/* At most 8 children at once, each forking and exec'ing twice. */
		for (i = 0; i < 8; i++) {
			pid_t pid = fork();

			ASSERT_LE(0, pid);
			if (pid == 0) {
				if (fork() == 0)
					execl("/bin/true", "true", NULL);
				if (fork() == 0)
					execl("/bin/true", "true", NULL);
				while (wait(NULL) > 0)
					;
				_exit(0);
			}
			forks++;
		}
		while (wait(&status) > 0)
			;
	}
	stress_stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(sleepers[i], NULL);
	ASSERT_EQ(0, ioctl(self->c.fd, FXTRACE_IOC_SESSION_INFO, &info));
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	self->kernel_dropped = 0;
	{
		struct fxtrace_buffer_info bi = { .size = sizeof(bi), .id = 1 };
		struct fxtctl_buffer *b;

		while (!ioctl(self->c.fd, FXTRACE_IOC_BUFFER_INFO, &bi)) {
			b = fxtctl_buffer(&self->c, bi.id);
			ASSERT_NE(NULL, b);
			decode(b, &self->rs);
			if (b->kind == FXTRACE_BUFFER_CPU)
				self->kernel_dropped += b->hdr->dropped_records;
			bi.id++;
		}
	}
	EXPECT_EQ(0, self->rs.errors);
	EXPECT_EQ(0, self->rs.warnings);
	TH_LOG("%d s, %d forks x 3 processes: %zu records kept, %llu dropped and counted",
	       seconds, forks, self->rs.n,
	       (unsigned long long)self->kernel_dropped);
}

TEST_HARNESS_MAIN
