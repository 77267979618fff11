// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of buffers and their mappings: CPU and KERNEL buffers (the
 * names of thousands of threads at Start), ATTACH, the header, producer
 * and reader parts of task buffers, fork.
 *
 * The contract is uapi/linux/fxtrace.h and Documentation/uapi.rst; every
 * test checks exact errnos and values.  Run as root in the guest with
 * fxtrace.ko loaded (tools/guest/run.sh -m kmod/fxtrace.ko ...).  Each test
 * ends the session it created; a session left by a crashed test is adopted
 * and terminated by the next fixture setup.  Helpers and the fixtures
 * nosess and sess: hostile.h.
 */

#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/uio.h>

#include "hostile.h"

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
		ASSERT_EQ(~0U, h->owner_uid);
		ASSERT_EQ(0, cpus & (1ULL << h->cpu));
		cpus |= 1ULL << h->cpu;
		ASSERT_EQ(2 * PG, h->data_offset);
		ASSERT_EQ(DURABLE_SIZE, h->durable_size);
		ASSERT_EQ(ROLLING_SIZE, h->rolling_size);
		ASSERT_EQ(4096, h->durable_size);
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

/* A thread that says its tid, then waits for its pipe to close. */
struct idle_thread {
	pthread_t thread;
	pid_t tid;
	int fd;
};

static void *wait_for_eof(void *arg)
{
	struct idle_thread *it = arg;
	char c;

	__atomic_store_n(&it->tid, gettid(), __ATOMIC_RELEASE);
	while (read(it->fd, &c, 1) > 0)
		;
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

/*
 * Start names every task that exists, also when there are thousands: the
 * walk may leave RCU between two tasks (to reschedule), and each thread of
 * this process has exactly one thread record, the process one process
 * record.  5000 threads: a 1 GiB guest's threads-max is about 7800.
 */
TEST_F(sess, kernel_buffer_many_threads)
{
	enum { NTHREADS = 5000 };
	static struct idle_thread threads[NTHREADS];
	static __u64 want[NTHREADS + 1], got[NTHREADS + 2];
	const struct fxtrace_buffer_header *h;
	struct fxtrace_buffer_info bi;
	struct fxtrace_packet p[8];
	size_t i = 0, n, nthreads = 0, nprocs = 0;
	pthread_attr_t attr;
	const __u64 *w;
	int pfd[2], t;

	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN));
	for (t = 0; t < NTHREADS; t++) {
		threads[t].fd = pfd[0];
		ASSERT_EQ(0, pthread_create(&threads[t].thread, &attr, wait_for_eof,
					    &threads[t])) TH_LOG("thread %d", t);
	}
	for (t = 0; t < NTHREADS; t++)
		while (!__atomic_load_n(&threads[t].tid, __ATOMIC_ACQUIRE))
			usleep(1000);

	ASSERT_EQ(0, start_session(self->fd, FXTRACE_START_CLEAR_ALL));
	ASSERT_EQ(2, drain(self->fd, p, 8));
	ASSERT_ADDED(p[0], FXTRACE_BUFFER_KERNEL, self->ncpus + 1);
	ASSERT_EQ(0, buffer_info(self->fd, self->ncpus + 1, &bi));
	h = map_part(self->fd, bi.id, FXTRACE_MMAP_READER, bi.reader_size, PROT_READ);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("READER: %s", strerror(errno));
	ASSERT_EQ(0, h->dropped_records);

	/* The kobj records of this process's threads and of the process. */
	w = (const __u64 *)((const char *)h + h->data_offset);
	n = h->durable_committed / 8;
	while (i < n) {
		__u64 size = fxt_bits(w[i], 4, 15);
		__u64 len = fxt_bits(w[i], 24, 39) & 0x7fff;

		ASSERT_NE(0, size);
		if (fxt_bits(w[i], 0, 3) == FXT_REC_KOBJ) {
			if (fxt_bits(w[i], 16, 23) == FXT_KOBJ_PROCESS)
				nprocs += w[i + 1] == (__u64)getpid();
			else if (fxt_bits(w[i], 16, 23) == FXT_KOBJ_THREAD &&
				 w[i + 2 + fxt_stream_words(len) + 2] == (__u64)getpid()) {
				ASSERT_GT(NTHREADS + 2, nthreads);
				got[nthreads++] = w[i + 1];
			}
		}
		i += size;
	}
	ASSERT_EQ(n, i);
	ASSERT_EQ(1, nprocs);
	ASSERT_EQ(NTHREADS + 1, nthreads);
	for (t = 0; t < NTHREADS; t++)
		want[t] = threads[t].tid;
	want[NTHREADS] = getpid();
	qsort(want, NTHREADS + 1, sizeof(want[0]), cmp_u64);
	qsort(got, nthreads, sizeof(got[0]), cmp_u64);
	ASSERT_EQ(0, memcmp(want, got, sizeof(want)));

	munmap((void *)h, bi.reader_size);
	close(pfd[1]);
	for (t = 0; t < NTHREADS; t++)
		pthread_join(threads[t].thread, NULL);
	close(pfd[0]);
}

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

	/* Once per thread and file (attach_files_test: the other files). */
	ASSERT_ERRNO(EEXIST, attach(self->fd2, &b));

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

TEST_F(sess, task_header_mmap)
{
	struct fxtrace_attach a;
	const struct fxtrace_buffer_header *h;
	char perms[5];

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
	/* Fuchsia's split (ABI 0.6): a sixteenth of the 64 KiB is durable. */
	ASSERT_EQ(4096, h->durable_size);
	ASSERT_EQ(30720, h->rolling_size);
	ASSERT_NE(0, h->durable_reserved);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
	ASSERT_EQ(0, h->requested_wraps);
	ASSERT_EQ(0, h->saved_wraps);

	ASSERT_EQ(168, h->header_size);	/* ABI 0.8 */
	ASSERT_EQ(0, h->owner_uid);	/* root's */
	ASSERT_EQ(0, h->reserved);

	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, a.header_size, PROT_READ | PROT_WRITE,
				      MAP_SHARED, self->fd2, a.header_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, a.header_size, PROT_READ, MAP_PRIVATE,
				       self->fd2, a.header_offset));
	ASSERT_MMAP_ERRNO(EINVAL, mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED,
				       self->fd2, a.header_offset));
	ASSERT_ERRNO(EACCES, mprotect((void *)h, PG, PROT_READ | PROT_WRITE));
	/* Never executable, for the owner or the controller. */
	ASSERT_STREQ("r--s", map_perms(h, perms));
	ASSERT_ERRNO(EACCES, mprotect((void *)h, PG, PROT_READ | PROT_EXEC));
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, PG, PROT_READ | PROT_EXEC, MAP_SHARED,
				      self->fd2, a.header_offset));
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, PG, PROT_READ | PROT_EXEC, MAP_SHARED,
				      self->fd, a.header_offset));
	/* The controller may map it too. */
	{
		void *h2 = mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd, a.header_offset);

		ASSERT_NE(MAP_FAILED, h2);
		ASSERT_EQ(0, memcmp(h, h2, sizeof(*h)));
		ASSERT_ERRNO(EACCES, mprotect(h2, PG, PROT_READ | PROT_EXEC));
		ASSERT_STREQ("r--s", map_perms(h2, perms));
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
	char *m, comm[32], name[64], perms[5];

	ASSERT_NE(NULL, sp);
	ASSERT_EQ(0, attach(self->fd2, &a));
	h = mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd2, a.header_offset);
	ASSERT_NE(MAP_FAILED, h);
	/*
	 * Never executable (shared W+X memory, which SELinux's execmem
	 * check does not cover); the refusal does not use up the one
	 * mapping.
	 */
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE | PROT_EXEC,
				      MAP_SHARED, self->fd2, a.producer_offset));
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, a.producer_size, PROT_READ | PROT_EXEC,
				      MAP_SHARED, self->fd2, a.producer_offset));
	m = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		 a.producer_offset);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("PRODUCER: %s", strerror(errno));
	ASSERT_ERRNO(EACCES, mprotect(m, a.producer_size, PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_STREQ("rw-s", map_perms(m, perms));
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

/*
 * The header names the user the attaching thread's work is charged to
 * (ABI 0.8), which fxtrace-drain keys flows by: a child that became uid
 * 65534 gets 65534 in its buffer's header, as its controller maps it.
 */
TEST_F(sess, task_header_owner_uid)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_attach a;
	pid_t pid;

	ASSERT_EQ(0, attach(self->fd2, &a));
	h = map_header(self->fd2, a.buffer_id);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(getuid(), h->owner_uid);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct fxtrace_attach b;

		if (setresuid(65534, 65534, 65534))
			_exit(10);
		if (attach(self->fd2, &b) || b.buffer_id != a.buffer_id + 1)
			_exit(11);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	h = map_header(self->fd, a.buffer_id + 1);
	ASSERT_NE(NULL, h) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_EQ(FXTRACE_BUFFER_TASK, h->kind);
	ASSERT_EQ(pid, h->pid);
	ASSERT_EQ(65534, h->owner_uid);
	ASSERT_EQ(0, h->reserved);
}

/*
 * owner_uid is the real uid, and, in a user namespace a user made, that
 * user (fxt_cred_owner()): a child of real uid 65534 and effective uid 0,
 * as a set-user-ID root program its caller runs, gets 65534; a child of
 * uid 65534 that made a user namespace and became its root, mapped to
 * kernel uid 70000 (a subordinate uid, as newuidmap maps one), gets 65534
 * too, not 70000: fxtrace-drain keys flows by it, and neither a
 * set-user-ID program nor a namespace may step or end another user's.
 */
TEST_F(sess, task_header_owner_uid_setuid_userns)
{
	static const char map[] = "0 70000 1\n";
	const struct fxtrace_buffer_header *h;
	struct fxtrace_attach a, b;
	int up[2], down[2], fd;
	char path[64], c;
	pid_t pid;

	ASSERT_EQ(0, attach(self->fd2, &a));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setresuid(65534, 0, 0))
			_exit(10);
		if (attach(self->fd2, &b) || b.buffer_id != a.buffer_id + 1)
			_exit(11);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	h = map_header(self->fd, a.buffer_id + 1);
	ASSERT_NE(NULL, h) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_EQ(pid, h->pid);
	ASSERT_EQ(65534, h->owner_uid);

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (become(65534) || unshare(CLONE_NEWUSER) ||
		    write(up[1], "u", 1) != 1 || read(down[0], &c, 1) != 1 ||
		    setresuid(0, 0, 0))
			_exit(20);
		if (attach(self->fd2, &b) || b.buffer_id != a.buffer_id + 2)
			_exit(21);
		_exit(0);
	}
	ASSERT_EQ(1, read(up[0], &c, 1));
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	fd = open(path, O_WRONLY);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ((ssize_t)strlen(map), write(fd, map, strlen(map)));
	close(fd);
	ASSERT_EQ(1, write(down[1], "g", 1));
	ASSERT_EQ(0, wait_child(pid));
	h = map_header(self->fd, a.buffer_id + 2);
	ASSERT_NE(NULL, h) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_EQ(pid, h->pid);
	ASSERT_EQ(65534, h->owner_uid);
	ASSERT_EQ(0, h->reserved);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

TEST_F(sess, reader_mmap)
{
	struct fxtrace_attach a;
	struct fxtrace_buffer_info bi;
	const struct fxtrace_buffer_header *h;
	char *m, *r, perms[5];

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
	ASSERT_ERRNO(EACCES, mprotect(r, bi.reader_size, PROT_READ | PROT_EXEC));
	ASSERT_STREQ("r--s", map_perms(r, perms));
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, bi.reader_size, PROT_READ | PROT_EXEC,
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

/*
 * Writes that ignore a mapping's protection (FOLL_FORCE through
 * /proc/PID/mem, process_vm_writev()) reach none of the read-only parts,
 * whether mapped page by page (an owner's HEADER) or by frame number
 * (READER), nor the session page; and the parts refuse what would copy or
 * move their pages (MREMAP_DONTUNMAP, MADV_DOFORK of a PRODUCER part,
 * MADV_DONTNEED of a READER part, MADV_WIPEONFORK).
 */
TEST_F(sess, readonly_parts_refuse_forced_writes)
{
	const struct fxtrace_buffer_header *h;
	struct fxtrace_buffer_info bi;
	const struct fxtrace_session_page *sp;
	struct fxtrace_attach a;
	struct iovec local, remote;
	char *m, *r, junk[8] = "junk";
	const char *ro[3];
	int mem, i;

	ASSERT_EQ(0, attach(self->fd2, &a));
	m = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		 a.producer_offset);
	ASSERT_NE(MAP_FAILED, m);
	h = map_header(self->fd2, a.buffer_id);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, buffer_info(self->fd, a.buffer_id, &bi));
	r = mmap(NULL, bi.reader_size, PROT_READ, MAP_SHARED, self->fd, bi.reader_offset);
	ASSERT_NE(MAP_FAILED, r);
	sp = map_session(self->fd);
	ASSERT_NE(NULL, sp);
	ro[0] = (const char *)h;
	ro[1] = r;
	ro[2] = (const char *)sp;

	mem = open("/proc/self/mem", O_RDWR);
	ASSERT_LE(0, mem);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-1, pwrite(mem, junk, sizeof(junk), (off_t)(uintptr_t)ro[i]));
		EXPECT_EQ(EIO, errno) TH_LOG("/proc/self/mem into mapping %d", i);
		local.iov_base = junk;
		local.iov_len = sizeof(junk);
		remote.iov_base = (void *)ro[i];
		remote.iov_len = sizeof(junk);
		EXPECT_EQ(-1, process_vm_writev(getpid(), &local, 1, &remote, 1, 0));
		EXPECT_EQ(EFAULT, errno) TH_LOG("process_vm_writev into mapping %d", i);
		EXPECT_NE(0, memcmp(ro[i], junk, sizeof(junk)));
	}
	close(mem);
	EXPECT_EQ(FXTRACE_BUFFER_MAGIC, h->magic);
	EXPECT_EQ(a.buffer_id, h->id);

	ASSERT_EQ(MAP_FAILED, mremap(r, bi.reader_size, bi.reader_size,
				     MREMAP_MAYMOVE | MREMAP_DONTUNMAP));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(MAP_FAILED, mremap((void *)h, PG, PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(MAP_FAILED, mremap(m, a.producer_size, a.producer_size,
				     MREMAP_MAYMOVE | MREMAP_DONTUNMAP));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_ERRNO(EINVAL, madvise(m, a.producer_size, MADV_DOFORK));
	ASSERT_ERRNO(EINVAL, madvise(m, a.producer_size, MADV_WIPEONFORK));
	ASSERT_ERRNO(EINVAL, madvise(r, bi.reader_size, MADV_DONTNEED));
	ASSERT_ERRNO(EINVAL, madvise(r, bi.reader_size, MADV_WIPEONFORK));
	/* Still one buffer, mapped, active. */
	((volatile __u64 *)(m + PG))[100] = 42;
	EXPECT_EQ(42, ((volatile __u64 *)(r + h->data_offset))[100]);
	EXPECT_EQ(FXTRACE_BUFFER_ACTIVE, h->state);
}

static sigjmp_buf exec_fault_env;
static volatile int exec_fault_code;
static void *volatile exec_fault_addr;

static void exec_fault_handler(int sig, siginfo_t *si, void *uc)
{
	exec_fault_code = si->si_code;
	exec_fault_addr = si->si_addr;
	siglongjmp(exec_fault_env, 1);
}

#define X86_RET 0xc3

/*
 * Calls insn, an x86-64 "ret" (X86_RET).  Returns the si_code of the
 * SIGSEGV that calling it raised (SEGV_ACCERR: not executable), or 0 if
 * it ran; *addr is the faulting address.
 */
static int call_ret(const void *insn, void **addr)
{
	struct sigaction sa = { .sa_sigaction = exec_fault_handler,
				.sa_flags = SA_SIGINFO }, old;

	exec_fault_code = 0;
	exec_fault_addr = NULL;
	if (sigaction(SIGSEGV, &sa, &old))
		return -1;
	if (!sigsetjmp(exec_fault_env, 1))
		((void (*)(void))insn)();
	sigaction(SIGSEGV, &old, NULL);
	*addr = exec_fault_addr;
	return exec_fault_code;
}

/*
 * A READ_IMPLIES_EXEC process (a 32-bit binary without PT_GNU_STACK, or
 * one that asked personality() for it) gets PROT_EXEC added to each of
 * its PROT_READ mappings.  Its mappings of every part succeed without
 * it: the module drops the exec the process did not ask for rather than
 * fail its tracing, and an explicit PROT_EXEC with it, which it cannot
 * tell apart.  The pages mapped at mmap() time are not executable either.
 */
TEST_F(sess, read_implies_exec_maps_without_exec)
{
	const size_t sz = FXTRACE_SESSION_MAP_SIZE;
	struct fxtrace_buffer_info bi;
	struct fxtrace_attach a;
	void *sp, *h, *hc, *at;
	char *anon, *m, *r, perms[5];

	/* The harness runs each test in a process of its own. */
	ASSERT_NE(-1, personality(READ_IMPLIES_EXEC));
	ASSERT_EQ(READ_IMPLIES_EXEC, personality(0xffffffff) & READ_IMPLIES_EXEC);
	/* Where nothing forbids it, the kernel adds PROT_EXEC, and it runs. */
	anon = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	ASSERT_STREQ("rwxp", map_perms(anon, perms));
	anon[0] = X86_RET;
	ASSERT_EQ(0, call_ret(anon, &at));
	munmap(anon, PG);

	sp = mmap(NULL, sz, PROT_READ, MAP_SHARED, self->fd2, 0);
	ASSERT_NE(MAP_FAILED, sp) TH_LOG("session page: %s", strerror(errno));
	ASSERT_STREQ("r--s", map_perms(sp, perms));
	/* mprotect() adds PROT_EXEC only where VM_MAYEXEC allows it. */
	ASSERT_EQ(0, mprotect(sp, sz, PROT_READ));
	ASSERT_STREQ("r--s", map_perms(sp, perms));
	ASSERT_ERRNO(EACCES, mprotect(sp, sz, PROT_READ | PROT_EXEC));
	ASSERT_EQ(0, munmap(sp, sz));
	/* An explicit PROT_EXEC is dropped as the implied one is. */
	sp = mmap(NULL, sz, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd2, 0);
	ASSERT_NE(MAP_FAILED, sp) TH_LOG("session page: %s", strerror(errno));
	ASSERT_STREQ("r--s", map_perms(sp, perms));
	/* PROT_EXEC without PROT_READ is not implied: refused. */
	ASSERT_MMAP_ERRNO(EPERM, mmap(NULL, sz, PROT_EXEC, MAP_SHARED, self->fd2, 0));

	ASSERT_EQ(0, attach(self->fd2, &a));
	h = mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd2, a.header_offset);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("HEADER: %s", strerror(errno));
	ASSERT_STREQ("r--s", map_perms(h, perms));
	hc = mmap(NULL, PG, PROT_READ, MAP_SHARED, self->fd, a.header_offset);
	ASSERT_NE(MAP_FAILED, hc) TH_LOG("controller's HEADER: %s", strerror(errno));
	ASSERT_STREQ("r--s", map_perms(hc, perms));
	m = mmap(NULL, a.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd2,
		 a.producer_offset);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("PRODUCER: %s", strerror(errno));
	ASSERT_STREQ("rw-s", map_perms(m, perms));
	ASSERT_EQ(0, mprotect(m, a.producer_size, PROT_READ | PROT_WRITE));
	ASSERT_STREQ("rw-s", map_perms(m, perms));
	ASSERT_EQ(0, buffer_info(self->fd, a.buffer_id, &bi));
	r = mmap(NULL, bi.reader_size, PROT_READ, MAP_SHARED, self->fd, bi.reader_offset);
	ASSERT_NE(MAP_FAILED, r) TH_LOG("READER: %s", strerror(errno));
	ASSERT_STREQ("r--s", map_perms(r, perms));

	/*
	 * A "ret" in the last byte of the data, called through the PRODUCER
	 * mapping (pages inserted with vm_insert_pages()) and the READER
	 * mapping (by frame number), faults: their PTEs are not executable.
	 */
	m[a.producer_size - 1] = X86_RET;
	ASSERT_EQ(SEGV_ACCERR, call_ret(m + a.producer_size - 1, &at));
	ASSERT_EQ(m + a.producer_size - 1, at);
	ASSERT_EQ(X86_RET, (unsigned char)r[bi.reader_size - 1]);
	ASSERT_EQ(SEGV_ACCERR, call_ret(r + bi.reader_size - 1, &at));
	ASSERT_EQ(r + bi.reader_size - 1, at);
}

TEST_HARNESS_MAIN
