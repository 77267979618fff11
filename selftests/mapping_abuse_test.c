// SPDX-License-Identifier: GPL-2.0
/*
 * What a local process can do to fxtrace.ko's mappings with the rest of
 * the memory API: io_uring fixed buffers and I/O in flight, vmsplice(),
 * process_vm_writev() and /proc/PID/mem, mremap(), madvise(), mprotect(),
 * fork(), an exec from a non-leader thread, and ATTACH racing TERMINATE
 * and ADOPT.  Each case asserts the outcome uapi.rst documents, and that
 * the kernel log gained no WARNING or BUG.  Run as root in the guest;
 * children become uid 65534 to play another user.
 */
#include <liburing.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/klog.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#include "hostile.h"
#include "fxtrace_selftest.h"

/* In a child: exit with code unless cond holds. */
#define CHILD_CHECK(cond, code) do { if (!(cond)) _exit(code); } while (0)

/* ---- helpers ------------------------------------------------------------ */

/* "WARNING:", "BUG:" and "Oops" lines in the kernel log now. */
static int klog_faults(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n, count = 0;
	static const char *const marks[] = { "WARNING:", "BUG:", "Oops" };
	char *buf, *p;
	size_t i;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		free(buf);
		return -1;
	}
	buf[n] = 0;
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		for (p = buf; (p = strstr(p, marks[i])); p++)
			count++;
	free(buf);
	return count;
}

/* The kernel's major * 100 + minor. */
static int kernel_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return -1;
	return major * 100 + minor;
}

static sigjmp_buf fault_jmp;

static void fault_handler(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* The signal a write of v at addr raises in this process, 0 if none. */
static int write_signal(volatile __u64 *addr, __u64 v)
{
	struct sigaction sa = { .sa_handler = fault_handler }, old_segv, old_bus;
	int sig;

	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig)
		*addr = v;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return sig;
}

/* The signal a read at addr raises in a forked child, 0 if none. */
static int child_read_signal(const volatile __u64 *addr)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		(void)*addr;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* IORING_REGISTER_BUFFERS of [addr, addr + len): its errno, 0 if taken. */
static int uring_register_errno(struct io_uring *ring, void *addr, size_t len)
{
	struct iovec iov = { .iov_base = addr, .iov_len = len };
	int ret = io_uring_register_buffers(ring, &iov, 1);

	if (!ret)
		io_uring_unregister_buffers(ring);
	return -ret;
}

/* vmsplice() of len bytes at addr into pipe p: its errno, 0 if all went. */
static int vmsplice_errno(int p[2], const void *addr, size_t len)
{
	struct iovec iov = { .iov_base = (void *)addr, .iov_len = len };
	ssize_t n = vmsplice(p[1], &iov, 1, 0);

	if (n < 0)
		return errno;
	return n == (ssize_t)len ? 0 : -1;
}

/* Every packet queued now: how many ADDED task buffers and RETIRED ones. */
struct pkt_counts {
	int added, retired;
	__u32 added_ids[64], retired_ids[64];
};

static void count_packets(int fd, struct pkt_counts *c)
{
	struct fxtrace_packet p;

	while (next_pkt(fd, &p, 0) == 0) {
		if (p.request == FXTRACE_PKT_BUFFER_ADDED &&
		    p.data16 == FXTRACE_BUFFER_TASK && c->added < 64)
			c->added_ids[c->added++] = p.data32;
		else if (p.request == FXTRACE_PKT_BUFFER_RETIRED && c->retired < 64)
			c->retired_ids[c->retired++] = p.data32;
	}
}

/* Waits up to ms for n RETIRED packets in all. */
static void wait_retired(int fd, struct pkt_counts *c, int n, int ms)
{
	for (; c->retired < n && ms > 0; ms -= 10) {
		count_packets(fd, c);
		if (c->retired < n)
			usleep(10000);
	}
}

static int count_id(const __u32 *ids, int n, __u32 id)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += ids[i] == id;
	return k;
}

FIXTURE(ma) {
	int fd;		/* controller, O_NONBLOCK */
	int ncpus;
	int klog;	/* klog_faults() at setup */
	struct fxtrace_config cfg;
	__u64 base_memory;	/* memory_used right after INIT */
	pid_t racers;		/* attach_races_terminate_and_adopt's child */
};

FIXTURE_SETUP(ma)
{
	struct fxtrace_session_info si;

	FXT_SELFTEST_REQUIRE_DEVICE();
	self->ncpus = possible_cpus();
	ASSERT_LT(0, self->ncpus);
	self->klog = klog_faults();
	ASSERT_LE(0, self->klog) TH_LOG("klogctl: %s", strerror(errno));
	end_leftover();
	self->fd = dev_open(O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", FXTRACE_DEVICE, strerror(errno));
	config_init(&self->cfg, FXTRACE_MODE_ONESHOT);
	ASSERT_EQ(0, init_session(self->fd, &self->cfg)) TH_LOG("INIT: %s", strerror(errno));
	ASSERT_EQ(0, session_info(self->fd, &si));
	self->base_memory = si.memory_used;
	ASSERT_EQ(self->ncpus, drain_init(_metadata, self->fd, self->ncpus));
}

FIXTURE_TEARDOWN(ma)
{
	/*
	 * Racers left by a failed ASSERT would spin on and ATTACH into the
	 * next test's session: killed before the session ends.
	 */
	if (self->racers > 0) {
		kill(self->racers, SIGKILL);
		waitpid(self->racers, NULL, 0);
	}
	ioctl(self->fd, FXTRACE_IOC_TERMINATE);
	close(self->fd);
	end_leftover();
	/* Not EXPECT_EQ(): a failed ASSERT leaves the harness's trigger set. */
	if (klog_faults() != self->klog) {
		TH_LOG("the kernel log has a new WARNING, BUG or Oops");
		_metadata->passed = 0;
	}
}

/* The test process's own task buffer, mapped every way it may be. */
struct maps {
	struct fxtrace_attach a;
	void *prod;			/* PRODUCER: control page + data */
	const struct fxtrace_buffer_header *hdr;	/* owner's HEADER */
	const void *reader;		/* controller's READER, PFN */
	const void *cpu_hdr;		/* controller's HEADER of CPU buffer 1, PFN */
	const struct fxtrace_session_page *sp;
	size_t reader_size;
};

static void maps_make(struct __test_metadata *_metadata, int fd, struct maps *m)
{
	struct fxtrace_buffer_info bi;

	ASSERT_EQ(0, attach(fd, &m->a));
	ASSERT_EQ(0, buffer_info(fd, m->a.buffer_id, &bi));
	m->reader_size = bi.reader_size;
	ASSERT_EQ(AREA_SIZE, m->reader_size);
	m->prod = map_part(fd, m->a.buffer_id, FXTRACE_MMAP_PRODUCER, m->a.producer_size,
			   PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m->prod);
	m->hdr = map_header(fd, m->a.buffer_id);
	ASSERT_NE(NULL, m->hdr);
	m->reader = map_part(fd, m->a.buffer_id, FXTRACE_MMAP_READER, m->reader_size,
			     PROT_READ);
	ASSERT_NE(MAP_FAILED, m->reader);
	m->cpu_hdr = map_header(fd, 1);
	ASSERT_NE(NULL, m->cpu_hdr);
	m->sp = map_session(fd);
	ASSERT_NE(NULL, m->sp);
}

/* ---- io_uring ----------------------------------------------------------- */

/*
 * No mapping of the module can be an io_uring fixed buffer: registration
 * pins the pages long-term for writing, which the producer part (VM_IO),
 * the PFN mappings (READER, a controller's HEADER) and the read-only
 * parts (owner's HEADER, session page) all refuse with EFAULT.  So no
 * registration outlives TERMINATE, munmap() or exit.
 */
TEST_F(ma, io_uring_fixed_buffers_refused)
{
	struct io_uring ring;
	struct maps m;

	maps_make(_metadata, self->fd, &m);
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
	EXPECT_EQ(EFAULT, uring_register_errno(&ring, m.prod, m.a.producer_size));
	EXPECT_EQ(EFAULT, uring_register_errno(&ring, (char *)m.prod + PG, PG));
	EXPECT_EQ(EFAULT, uring_register_errno(&ring, (void *)m.reader, m.reader_size));
	EXPECT_EQ(EFAULT, uring_register_errno(&ring, (void *)m.cpu_hdr, PG));
	EXPECT_EQ(EFAULT, uring_register_errno(&ring, (void *)m.hdr, PG));
	EXPECT_EQ(EFAULT, uring_register_errno(&ring, (void *)m.sp,
					       FXTRACE_SESSION_MAP_SIZE));
	io_uring_queue_exit(&ring);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, m.hdr->state);
}

/* Queues a read of 64 bytes from pfd into dst; 0 once submitted. */
static int uring_read(struct io_uring *ring, int pfd, void *dst)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		return -1;
	io_uring_prep_read(sqe, pfd, dst, 64, -1);
	return io_uring_submit(ring) == 1 ? 0 : -1;
}

/* The result of the one completion, waiting up to 5 s; INT_MIN if none. */
static int uring_result(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe;
	int res;

	if (io_uring_wait_cqe_timeout(ring, &cqe, &ts))
		return -2147483647 - 1;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/*
 * An io_uring read into the producer part, waiting on an empty pipe, is
 * plain user memory: TERMINATE meanwhile leaves the mapping and the read
 * lands in it (64 bytes); after munmap() (the buffer retired once) the
 * read fails with EFAULT and leaves the pipe's bytes in the pipe; a
 * producer that exits with the read queued retires its buffer once and
 * the read never happens.
 */
TEST_F(ma, io_uring_read_in_flight)
{
	char src[64], back[64];
	struct pkt_counts c = { 0 };
	struct io_uring ring;
	struct maps m;
	int p[2];
	void *hole;
	pid_t pid;

	memset(src, 0x5a, sizeof(src));
	maps_make(_metadata, self->fd, &m);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));

	/* TERMINATE with the read queued: it lands in the still-mapped part. */
	ASSERT_EQ(0, uring_read(&ring, p[0], (char *)m.prod + PG));
	usleep(50000);
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(64, write(p[1], src, 64));
	ASSERT_EQ(64, uring_result(&ring));
	ASSERT_EQ(0, memcmp((char *)m.prod + PG, src, 64));
	/* TERMINATE frees buffers once unmapped; it retires none. */
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, m.hdr->state);

	/* A new session; munmap() with the read queued: EFAULT. */
	ASSERT_EQ(0, terminate_reopen_fd(&self->fd));
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	drain_init(_metadata, self->fd, self->ncpus);
	ASSERT_EQ(0, munmap(m.prod, m.a.producer_size));
	ASSERT_EQ(0, attach(self->fd, &m.a));
	m.prod = map_part(self->fd, m.a.buffer_id, FXTRACE_MMAP_PRODUCER,
			  m.a.producer_size, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, m.prod);
	ASSERT_EQ(0, uring_read(&ring, p[0], (char *)m.prod + PG));
	usleep(50000);
	ASSERT_EQ(0, munmap(m.prod, m.a.producer_size));
	/* Nothing else may land where the read goes. */
	hole = mmap(m.prod, m.a.producer_size, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ(m.prod, hole);
	ASSERT_EQ(64, write(p[1], src, 64));
	ASSERT_EQ(-EFAULT, uring_result(&ring));
	ASSERT_EQ(64, read(p[0], back, 64));
	ASSERT_EQ(0, memcmp(back, src, 64));
	wait_retired(self->fd, &c, 1, 2000);
	ASSERT_EQ(1, c.added);
	ASSERT_EQ(1, c.retired);
	ASSERT_EQ(m.a.buffer_id, c.retired_ids[0]);
	ASSERT_EQ(0, munmap(hole, m.a.producer_size));

	/* A producer exiting with the read queued. */
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach a;
		struct io_uring r;
		void *prod;

		CHILD_CHECK(attach(self->fd, &a) == 0, 10);
		prod = map_part(self->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER,
				a.producer_size, PROT_READ | PROT_WRITE);
		CHILD_CHECK(prod != MAP_FAILED, 11);
		CHILD_CHECK(io_uring_queue_init(4, &r, 0) == 0, 12);
		CHILD_CHECK(uring_read(&r, p[0], (char *)prod + PG) == 0, 13);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	memset(&c, 0, sizeof(c));
	wait_retired(self->fd, &c, 1, 2000);
	ASSERT_EQ(1, c.added);
	ASSERT_EQ(1, c.retired);
	ASSERT_EQ(c.added_ids[0], c.retired_ids[0]);
	ASSERT_EQ(64, write(p[1], src, 64));
	ASSERT_EQ(64, read(p[0], back, 64));
	ASSERT_EQ(0, memcmp(back, src, 64));
	io_uring_queue_exit(&ring);
	close(p[0]);
	close(p[1]);
}

/* ---- vmsplice ----------------------------------------------------------- */

/*
 * vmsplice() takes page references.  The PFN mappings (READER, a
 * controller's HEADER) refuse it with EFAULT, so ADOPT's revocation
 * reaches every reference.  The session page and the owner's HEADER are
 * ordinary pages: a pipe holds them and reads them as they are when read
 * (the session page is the module's, the same for every session and
 * mappable by anyone).  The PRODUCER part is VM_IO: from 6.5 on, the
 * kernel's lockless get_user_pages_fast() sends a page without a mapping
 * to the VMA checks, which refuse VM_IO (EFAULT); before (6.1), it takes
 * the page, and the pipe keeps the producer's own data after the buffer
 * is freed (a freed buffer's pages go with their last reference).
 */
TEST_F(ma, vmsplice_into_pipe)
{
	static char back[PG];
	struct fxtrace_session_info si;
	int p_sp[2], p_hdr[2], p_prod[2], p_pfn[2];
	const int gup_fast_takes_vm_io = kernel_version() < 605;
	struct maps m;

	maps_make(_metadata, self->fd, &m);
	ASSERT_EQ(0, pipe(p_sp));
	ASSERT_EQ(0, pipe(p_hdr));
	ASSERT_EQ(0, pipe(p_prod));
	ASSERT_EQ(0, pipe(p_pfn));
	memset((char *)m.prod + PG, 0xa5, PG);

	EXPECT_EQ(EFAULT, vmsplice_errno(p_pfn, m.reader, PG));
	EXPECT_EQ(EFAULT, vmsplice_errno(p_pfn, m.cpu_hdr, PG));
	EXPECT_EQ(0, vmsplice_errno(p_sp, m.sp, PG));
	EXPECT_EQ(0, vmsplice_errno(p_hdr, m.hdr, PG));
	EXPECT_EQ(gup_fast_takes_vm_io ? 0 : EFAULT,
		  vmsplice_errno(p_prod, (char *)m.prod + PG, PG));

	/* The session ends, the buffer goes; a new session begins. */
	ASSERT_EQ(0, munmap(m.prod, m.a.producer_size));
	ASSERT_EQ(0, munmap((void *)m.reader, m.reader_size));
	ASSERT_EQ(0, munmap((void *)m.cpu_hdr, PG));
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(0, terminate_reopen_fd(&self->fd));
	self->cfg.mode = FXTRACE_MODE_STREAMING;
	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(FXTRACE_MODE_STREAMING, si.mode);

	ASSERT_EQ(PG, read(p_sp[0], back, PG));
	EXPECT_EQ(0, memcmp(back, m.sp, PG));
	ASSERT_EQ(PG, read(p_hdr[0], back, PG));
	EXPECT_EQ(0, memcmp(back, m.hdr, PG));
	EXPECT_EQ(FXTRACE_BUFFER_RETIRED, m.hdr->state);
	if (gup_fast_takes_vm_io) {
		char want[PG];

		memset(want, 0xa5, PG);
		ASSERT_EQ(PG, read(p_prod[0], back, PG));
		EXPECT_EQ(0, memcmp(back, want, PG));
	}
	close(p_sp[0]);
	close(p_sp[1]);
	close(p_hdr[0]);
	close(p_hdr[1]);
	close(p_prod[0]);
	close(p_prod[1]);
	close(p_pfn[0]);
	close(p_pfn[1]);
}

/* ---- process_vm_writev and /proc/PID/mem -------------------------------- */

static int pvm_write_errno(pid_t pid, const void *remote, size_t len)
{
	static char junk[PG];
	struct iovec l = { .iov_base = junk, .iov_len = len };
	struct iovec r = { .iov_base = (void *)remote, .iov_len = len };
	ssize_t n;

	memset(junk, 0x41, len);
	n = process_vm_writev(pid, &l, 1, &r, 1, 0);
	return n < 0 ? errno : n == (ssize_t)len ? 0 : -1;
}

static int pvm_read_errno(pid_t pid, const void *remote, void *local, size_t len)
{
	struct iovec l = { .iov_base = local, .iov_len = len };
	struct iovec r = { .iov_base = (void *)remote, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	return n < 0 ? errno : n == (ssize_t)len ? 0 : -1;
}

/* pwrite (write) or pread of 8 bytes at addr through /proc/pid/mem. */
static int proc_mem_errno(pid_t pid, const void *addr, int write)
{
	__u64 v = 0x4141414141414141ULL;
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write ? pwrite(fd, &v, 8, (off_t)(uintptr_t)addr) :
		    pread(fd, &v, 8, (off_t)(uintptr_t)addr);
	close(fd);
	return n < 0 ? errno : n == 8 ? 0 : -1;
}

/*
 * Another process of the same user (root) writing into the controller's
 * and producer's mappings: process_vm_writev() pins the target's pages
 * for writing, refused everywhere (EFAULT); /proc/PID/mem's forced write
 * is refused too (EIO), and even its read of the VM_IO and PFN parts
 * (EIO), while the owner's HEADER reads.  Another user gets EPERM and
 * EACCES before any page is looked at.  The kernel's view is unchanged
 * after: the header is active with its magic, and unmapping the producer
 * part retires the buffer once.
 */
TEST_F(ma, foreign_writes_into_mappings)
{
	struct fxtrace_buffer_header before;
	struct pkt_counts c = { 0 };
	const pid_t self_pid = getpid();
	struct maps m;
	pid_t pid;

	maps_make(_metadata, self->fd, &m);
	memcpy(&before, m.hdr, sizeof(before));
	count_packets(self->fd, &c);
	ASSERT_EQ(1, c.added);

	pid = fork();
	if (pid == 0) {
		__u64 v;

		CHILD_CHECK(pvm_write_errno(self_pid, m.reader, 8) == EFAULT, 10);
		CHILD_CHECK(pvm_write_errno(self_pid, m.cpu_hdr, 8) == EFAULT, 11);
		CHILD_CHECK(pvm_write_errno(self_pid, m.hdr, 8) == EFAULT, 12);
		CHILD_CHECK(pvm_write_errno(self_pid, m.sp, 8) == EFAULT, 13);
		CHILD_CHECK(pvm_write_errno(self_pid, m.prod, 8) == EFAULT, 14);
		CHILD_CHECK(pvm_read_errno(self_pid, m.reader, &v, 8) == EFAULT, 15);
		CHILD_CHECK(pvm_read_errno(self_pid, m.prod, &v, 8) == EFAULT, 16);
		CHILD_CHECK(pvm_read_errno(self_pid, m.hdr, &v, 8) == 0 &&
			    (__u32)v == FXTRACE_BUFFER_MAGIC, 17);
		CHILD_CHECK(proc_mem_errno(self_pid, m.reader, 1) == EIO, 20);
		CHILD_CHECK(proc_mem_errno(self_pid, m.cpu_hdr, 1) == EIO, 21);
		CHILD_CHECK(proc_mem_errno(self_pid, m.hdr, 1) == EIO, 22);
		CHILD_CHECK(proc_mem_errno(self_pid, m.sp, 1) == EIO, 23);
		CHILD_CHECK(proc_mem_errno(self_pid, m.prod, 1) == EIO, 24);
		CHILD_CHECK(proc_mem_errno(self_pid, m.prod, 0) == EIO, 25);
		CHILD_CHECK(proc_mem_errno(self_pid, m.reader, 0) == EIO, 26);
		CHILD_CHECK(proc_mem_errno(self_pid, m.hdr, 0) == 0, 27);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid)) TH_LOG("same user: see the child's exit code");

	pid = fork();
	if (pid == 0) {
		CHILD_CHECK(!become(NOBODY), 9);
		CHILD_CHECK(pvm_write_errno(self_pid, m.hdr, 8) == EPERM, 30);
		CHILD_CHECK(pvm_write_errno(self_pid, m.prod, 8) == EPERM, 31);
		CHILD_CHECK(pvm_write_errno(self_pid, m.sp, 8) == EPERM, 32);
		CHILD_CHECK(proc_mem_errno(self_pid, m.hdr, 1) == EACCES, 33);
		CHILD_CHECK(proc_mem_errno(self_pid, m.prod, 1) == EACCES, 34);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid)) TH_LOG("nobody: see the child's exit code");

	ASSERT_EQ(0, memcmp(&before, m.hdr, sizeof(before)));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, m.hdr->magic);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, m.hdr->state);
	ASSERT_EQ(0, munmap(m.prod, m.a.producer_size));
	wait_retired(self->fd, &c, 1, 2000);
	ASSERT_EQ(1, c.retired);
	ASSERT_EQ(m.a.buffer_id, c.retired_ids[0]);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, m.hdr->state);
}

/* ---- mremap, madvise, mprotect, fork ------------------------------------ */

/*
 * Each memory call on each mapping has one result.  mremap(): a buffer
 * mapping never grows (EFAULT, VM_DONTEXPAND), the PRODUCER part never
 * moves (EINVAL); the owner's HEADER and the session page move (their
 * page goes along, 0).  madvise(): MADV_REMOVE has no file to punch
 * (ENODEV, EACCES for a read-only part); MADV_DOFORK is refused on VM_IO
 * (EINVAL), MADV_DONTFORK taken; MADV_DONTNEED is refused on PFN mappings
 * (EINVAL) and taken on the PRODUCER part, whose next access is SIGBUS
 * (no fault handler refills it) and which still retires once at munmap().
 * mprotect(PROT_EXEC) is EACCES everywhere.  A fork child inherits the
 * session page and the owner's HEADER read-only (writes: SIGSEGV), not
 * the PRODUCER part (SIGSEGV), nor what MADV_DONTFORK marked.
 * MADV_DONTNEED drops the session page for good too (SIGBUS: it is not
 * anonymous memory); the owner's HEADER comes back at the next access.
 */
TEST_F(ma, memory_calls_on_mappings)
{
	struct pkt_counts c = { 0 };
	const size_t size_sp = FXTRACE_SESSION_MAP_SIZE;
	const struct fxtrace_buffer_header *moved_hdr;
	const struct fxtrace_session_page *moved_sp;
	struct fxtrace_session_info si;
	struct maps m;
	void *dst;
	pid_t pid;

	maps_make(_metadata, self->fd, &m);
	count_packets(self->fd, &c);
	dst = mmap(NULL, 2 * m.reader_size + size_sp, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);

	/* mremap */
	ASSERT_MMAP_ERRNO(EFAULT, mremap(m.prod, m.a.producer_size,
					 m.a.producer_size + PG, 0));
	ASSERT_MMAP_ERRNO(EFAULT, mremap(m.prod, m.a.producer_size,
					 2 * m.a.producer_size, MREMAP_MAYMOVE));
	ASSERT_MMAP_ERRNO(EINVAL, mremap(m.prod, m.a.producer_size, m.a.producer_size,
					 MREMAP_MAYMOVE | MREMAP_FIXED, dst));
	ASSERT_MMAP_ERRNO(EFAULT, mremap((void *)m.reader, m.reader_size,
					 2 * m.reader_size, MREMAP_MAYMOVE));
	ASSERT_MMAP_ERRNO(EFAULT, mremap((void *)m.sp, size_sp, 2 * size_sp,
					 MREMAP_MAYMOVE));
	ASSERT_MMAP_ERRNO(EFAULT, mremap((void *)m.hdr, PG, 2 * PG, MREMAP_MAYMOVE));
	moved_hdr = mremap((void *)m.hdr, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	ASSERT_EQ(dst, moved_hdr);
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, moved_hdr->magic);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, moved_hdr->state);
	moved_sp = mremap((void *)m.sp, size_sp, size_sp, MREMAP_MAYMOVE | MREMAP_FIXED,
			  (char *)dst + 2 * m.reader_size);
	ASSERT_EQ((char *)dst + 2 * m.reader_size, (const char *)moved_sp)
		TH_LOG("session page move: %s", strerror(errno));
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, moved_sp->state);
	m.hdr = moved_hdr;
	m.sp = moved_sp;

	/* madvise */
	ASSERT_ERRNO(ENODEV, madvise(m.prod, m.a.producer_size, MADV_REMOVE));
	ASSERT_ERRNO(EACCES, madvise((void *)m.hdr, PG, MADV_REMOVE));
	ASSERT_ERRNO(EACCES, madvise((void *)m.reader, m.reader_size, MADV_REMOVE));
	ASSERT_ERRNO(EACCES, madvise((void *)m.sp, size_sp, MADV_REMOVE));
	ASSERT_ERRNO(EINVAL, madvise(m.prod, m.a.producer_size, MADV_DOFORK));
	ASSERT_ERRNO(EINVAL, madvise((void *)m.reader, m.reader_size, MADV_DOFORK));
	ASSERT_EQ(0, madvise(m.prod, m.a.producer_size, MADV_DONTFORK));
	ASSERT_EQ(0, madvise((void *)m.sp, size_sp, MADV_DONTFORK));
	ASSERT_ERRNO(EINVAL, madvise((void *)m.reader, m.reader_size, MADV_DONTNEED));
	ASSERT_ERRNO(EINVAL, madvise((void *)m.cpu_hdr, PG, MADV_DONTNEED));

	/* mprotect */
	ASSERT_ERRNO(EACCES, mprotect(m.prod, m.a.producer_size,
				      PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_ERRNO(EACCES, mprotect((void *)m.hdr, PG, PROT_READ | PROT_EXEC));
	ASSERT_ERRNO(EACCES, mprotect((void *)m.reader, m.reader_size, PROT_READ | PROT_EXEC));
	ASSERT_ERRNO(EACCES, mprotect((void *)m.sp, size_sp, PROT_READ | PROT_EXEC));
	ASSERT_EQ(0, mprotect(m.prod, m.a.producer_size, PROT_READ));
	ASSERT_EQ(SIGSEGV, write_signal((__u64 *)((char *)m.prod + PG), 1));
	ASSERT_EQ(0, mprotect(m.prod, m.a.producer_size, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, write_signal((__u64 *)((char *)m.prod + PG), 2));

	/* fork, the child writing */
	pid = fork();
	if (pid == 0) {
		CHILD_CHECK(write_signal((__u64 *)((char *)m.prod + PG), 3) == SIGSEGV, 10);
		CHILD_CHECK(write_signal((__u64 *)m.hdr, 3) == SIGSEGV, 11);
		CHILD_CHECK(m.hdr->magic == FXTRACE_BUFFER_MAGIC, 12);
		CHILD_CHECK(mprotect((void *)m.hdr, PG, PROT_READ | PROT_WRITE) == -1 &&
			    errno == EACCES, 13);
		CHILD_CHECK(write_signal((__u64 *)m.reader, 3) == SIGSEGV, 14);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(SIGSEGV, child_read_signal((const __u64 *)m.sp));
	ASSERT_EQ(0, madvise((void *)m.sp, size_sp, MADV_DOFORK));
	ASSERT_EQ(0, child_read_signal((const __u64 *)m.sp));
	ASSERT_EQ(2, *(__u64 *)((char *)m.prod + PG));

	/* MADV_DONTNEED on the PRODUCER part: its pages are gone for good. */
	ASSERT_EQ(0, madvise(m.prod, m.a.producer_size, MADV_DONTNEED));
	ASSERT_EQ(SIGBUS, write_signal((__u64 *)((char *)m.prod + PG), 4));
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, m.hdr->state);
	count_packets(self->fd, &c);
	ASSERT_EQ(0, c.retired);
	ASSERT_EQ(0, munmap(m.prod, m.a.producer_size));
	wait_retired(self->fd, &c, 1, 2000);
	ASSERT_EQ(1, c.added);
	ASSERT_EQ(1, c.retired);
	ASSERT_EQ(m.a.buffer_id, c.retired_ids[0]);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, m.hdr->state);

	/*
	 * MADV_DONTNEED on the session page: a file mapping without a fault
	 * handler, not anonymous memory (which would refill with zeros), so
	 * the next access is SIGBUS.  The owner's HEADER has the handler
	 * ADOPT's zap needs, which maps its page again.
	 */
	ASSERT_EQ(0, madvise((void *)m.sp, size_sp, MADV_DONTNEED));
	ASSERT_EQ(SIGBUS, child_read_signal((const __u64 *)m.sp));
	ASSERT_EQ(0, madvise((void *)m.hdr, PG, MADV_DONTNEED));
	ASSERT_EQ(0, child_read_signal((const __u64 *)m.hdr));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, m.hdr->magic);
	ASSERT_EQ(FXTRACE_BUFFER_RETIRED, m.hdr->state);
	ASSERT_EQ(0, munmap((void *)m.hdr, PG));
	ASSERT_EQ(0, munmap((void *)m.sp, size_sp));
	ASSERT_EQ(0, munmap((void *)m.reader, m.reader_size));
	ASSERT_EQ(0, munmap((void *)m.cpu_hdr, PG));
	ASSERT_EQ(0, release_buffer(self->fd, m.a.buffer_id));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->base_memory, si.memory_used);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif

/* The madvise() advice that ask the kernel to act on pages, in order. */
static const int advice[] = {
	MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE,
	MADV_FREE, MADV_WIPEONFORK, MADV_MERGEABLE, MADV_HUGEPAGE,
	MADV_COLLAPSE, MADV_DONTDUMP, MADV_WILLNEED, MADV_SEQUENTIAL,
};

/* The errno of each advice on [addr, addr + len), 0 if taken, in a[]. */
static void advice_errnos(void *addr, size_t len, int a[12])
{
	size_t i;

	for (i = 0; i < sizeof(advice) / sizeof(advice[0]); i++)
		a[i] = madvise(addr, len, advice[i]) ? errno : 0;
}

/*
 * The rest of madvise(), mlock() and msync(), the same on 6.1 and 6.12:
 * reclaim hints (COLD, PAGEOUT) are taken and reclaim nothing (the pages
 * are the module's, on no LRU list: the producer's data stays), except
 * on PFN mappings (EINVAL); population is refused on the VM_IO and PFN
 * parts and, for writing, on the read-only ones (EINVAL); what needs
 * anonymous memory (FREE, WIPEONFORK) or a huge page (COLLAPSE) is
 * EINVAL; the pure hints are taken; mlock() is taken (the kernel skips
 * VM_IO and PFN mappings); msync() finds no fsync (EINVAL).  Nothing of
 * it retires the buffer, which munmap() retires once.
 */
TEST_F(ma, other_memory_advice)
{
	/*              COLD    PAGEOUT POP_RD  POP_WR  FREE    WIPE    MERGE HUGE COLLAPSE DUMP NEED SEQ */
	static const int want_prod[12] =
			{ 0,     0,      EINVAL, EINVAL, EINVAL, EINVAL, 0,    0,   EINVAL,  0,   0,   0 };
	static const int want_ro[12] =
			{ 0,     0,      0,      EINVAL, EINVAL, EINVAL, 0,    0,   EINVAL,  0,   0,   0 };
	static const int want_pfn[12] =
			{ EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, 0,   0,   EINVAL,  0,   0,   0 };
	struct pkt_counts c = { 0 };
	char want[PG];
	int got[12];
	struct maps m;
	size_t i;

	maps_make(_metadata, self->fd, &m);
	count_packets(self->fd, &c);
	memset(want, 0x77, PG);
	memcpy((char *)m.prod + PG, want, PG);

	advice_errnos(m.prod, m.a.producer_size, got);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(want_prod[i], got[i]) TH_LOG("PRODUCER, advice %d", advice[i]);
	advice_errnos((void *)m.hdr, PG, got);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(want_ro[i], got[i]) TH_LOG("owner's HEADER, advice %d", advice[i]);
	advice_errnos((void *)m.sp, FXTRACE_SESSION_MAP_SIZE, got);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(want_ro[i], got[i]) TH_LOG("session page, advice %d", advice[i]);
	advice_errnos((void *)m.reader, m.reader_size, got);
	for (i = 0; i < 12; i++)
		EXPECT_EQ(want_pfn[i], got[i]) TH_LOG("READER, advice %d", advice[i]);

	ASSERT_EQ(0, mlock(m.prod, m.a.producer_size));
	ASSERT_EQ(0, munlock(m.prod, m.a.producer_size));
	ASSERT_EQ(0, mlock((void *)m.reader, m.reader_size));
	ASSERT_EQ(0, munlock((void *)m.reader, m.reader_size));
	ASSERT_ERRNO(EINVAL, msync(m.prod, m.a.producer_size, MS_SYNC));
	ASSERT_ERRNO(EINVAL, msync((void *)m.sp, FXTRACE_SESSION_MAP_SIZE, MS_SYNC));

	ASSERT_EQ(0, memcmp((char *)m.prod + PG, want, PG));
	ASSERT_EQ(FXTRACE_BUFFER_MAGIC, m.hdr->magic);
	ASSERT_EQ(FXTRACE_BUFFER_ACTIVE, m.hdr->state);
	ASSERT_EQ(FXTRACE_STATE_INITIALIZED, m.sp->state);
	count_packets(self->fd, &c);
	ASSERT_EQ(0, c.retired);
	ASSERT_EQ(0, munmap(m.prod, m.a.producer_size));
	wait_retired(self->fd, &c, 1, 2000);
	ASSERT_EQ(1, c.retired);
	ASSERT_EQ(m.a.buffer_id, c.retired_ids[0]);
}

/* ---- the module's own calls with a mapping as their memory -------------- */

/*
 * The controller's read() of packets into a mapping that cannot take
 * them (the PRODUCER part after MADV_DONTNEED, which nothing refills; a
 * PFN READER mapping; the read-only session page) fails with EFAULT and
 * consumes nothing: the same packet is read next into ordinary memory.
 */
TEST_F(ma, packets_read_into_mappings)
{
	struct fxtrace_packet p;
	struct maps m;

	maps_make(_metadata, self->fd, &m);
	ASSERT_EQ(0, madvise(m.prod, m.a.producer_size, MADV_DONTNEED));
	ASSERT_ERRNO(EFAULT, read(self->fd, (char *)m.prod + PG, sizeof(p)));
	ASSERT_ERRNO(EFAULT, read(self->fd, (void *)m.reader, sizeof(p)));
	ASSERT_ERRNO(EFAULT, read(self->fd, (void *)m.sp, sizeof(p)));
	ASSERT_ERRNO(EFAULT, read(self->fd, (void *)m.hdr, sizeof(p)));
	ASSERT_EQ(0, next_pkt(self->fd, &p, 0));
	ASSERT_ADDED(p, FXTRACE_BUFFER_TASK, m.a.buffer_id);
	ASSERT_EQ(0, munmap(m.prod, m.a.producer_size));
	ASSERT_EQ(0, next_pkt(self->fd, &p, 1000));
	ASSERT_RETIRED(p, m.a.buffer_id);
}

/*
 * ATTACH reads its struct's size, then pins the struct for writing
 * before it makes a buffer.  At the start of the session page or of the
 * owner's HEADER the size is a magic number (E2BIG), and no buffer is
 * made.  In the PRODUCER part (VM_IO) the pin fails with EFAULT from
 * Linux 6.5 on; before (6.1), get_user_pages_fast() takes the page, and
 * the result lands in the caller's own producer part.
 */
TEST_F(ma, attach_result_in_mappings)
{
	const int gup_fast_takes_vm_io = kernel_version() < 605;
	struct fxtrace_session_info si;
	struct fxtrace_attach *in_prod;
	struct maps m;
	int fd2;

	maps_make(_metadata, self->fd, &m);
	fd2 = dev_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_ERRNO(E2BIG, ioctl(fd2, FXTRACE_IOC_ATTACH, (void *)m.sp));
	ASSERT_ERRNO(E2BIG, ioctl(fd2, FXTRACE_IOC_ATTACH, (void *)m.hdr));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->ncpus + 1, si.nr_buffers);

	in_prod = (struct fxtrace_attach *)((char *)m.prod + PG);
	memset(in_prod, 0, sizeof(*in_prod));
	in_prod->size = sizeof(*in_prod);
	if (gup_fast_takes_vm_io) {
		ASSERT_EQ(0, ioctl(fd2, FXTRACE_IOC_ATTACH, in_prod));
		ASSERT_EQ(m.a.buffer_id + 1, in_prod->buffer_id);
		ASSERT_EQ(m.a.producer_size, in_prod->producer_size);
		ASSERT_EQ(self->ncpus + 2, session_info(self->fd, &si) ? 0 : si.nr_buffers);
	} else {
		ASSERT_ERRNO(EFAULT, ioctl(fd2, FXTRACE_IOC_ATTACH, in_prod));
		ASSERT_EQ(0, in_prod->buffer_id);
		ASSERT_EQ(self->ncpus + 1, session_info(self->fd, &si) ? 0 : si.nr_buffers);
	}
	close(fd2);
}

/* ---- execve from a non-leader thread ------------------------------------ */

/* The image the exec'ing thread starts: it exits at once. */
__attribute__((constructor)) static void exec_child(void)
{
	if (getenv("FXTRACE_MAPPING_ABUSE_EXEC"))
		_exit(0);
}

struct exec_thread {
	int fd;
	int exec;		/* this one execs; the others wait */
	int ready[2];
};

static void *exec_thread_fn(void *arg)
{
	struct exec_thread *t = arg;
	struct fxtrace_attach a;
	char c = 0;

	if (attach(t->fd, &a) ||
	    map_part(t->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER, a.producer_size,
		     PROT_READ | PROT_WRITE) == MAP_FAILED)
		_exit(20);
	if (write(t->ready[1], &c, 1) != 1)
		_exit(21);
	if (t->exec) {
		setenv("FXTRACE_MAPPING_ABUSE_EXEC", "1", 1);
		execl("/proc/self/exe", "mapping_abuse_test", (char *)NULL);
		_exit(22);
	}
	pause();
	return NULL;
}

/*
 * A producer of three threads, each with a mapped buffer (the leader's
 * too), whose second thread execs: de_thread() kills the leader and the
 * third thread and the exec drops the old mm.  Exactly three buffers were
 * added and each is retired exactly once; released, the session's memory
 * is back to its CPU buffers.
 */
TEST_F(ma, exec_from_non_leader_thread)
{
	struct fxtrace_session_info si;
	struct pkt_counts c = { 0 };
	int i, ready[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	if (pid == 0) {
		struct exec_thread waiter = { self->fd, 0, { ready[0], ready[1] } };
		struct exec_thread execer = { self->fd, 1, { ready[0], ready[1] } };
		struct fxtrace_attach a;
		pthread_t t1, t2;
		char b;

		CHILD_CHECK(attach(self->fd, &a) == 0, 10);
		CHILD_CHECK(map_part(self->fd, a.buffer_id, FXTRACE_MMAP_PRODUCER,
				     a.producer_size, PROT_READ | PROT_WRITE) != MAP_FAILED,
			    11);
		CHILD_CHECK(!pthread_create(&t1, NULL, exec_thread_fn, &waiter), 12);
		CHILD_CHECK(read(ready[0], &b, 1) == 1, 13);
		CHILD_CHECK(!pthread_create(&t2, NULL, exec_thread_fn, &execer), 14);
		pause();
		_exit(15);
	}
	close(ready[1]);
	ASSERT_EQ(0, wait_child(pid));
	close(ready[0]);
	wait_retired(self->fd, &c, 3, 3000);
	count_packets(self->fd, &c);
	ASSERT_EQ(3, c.added);
	ASSERT_EQ(3, c.retired);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(1, count_id(c.added_ids, c.added, c.added_ids[i]));
		EXPECT_EQ(1, count_id(c.retired_ids, c.retired, c.added_ids[i]))
			TH_LOG("buffer %u", c.added_ids[i]);
	}
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->ncpus + 3, si.nr_buffers);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, release_buffer(self->fd, c.added_ids[i]));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->base_memory, si.memory_used);
}

/* ---- ATTACH racing munmap, exit, TERMINATE and ADOPT -------------------- */

#define RACE_ROUNDS	12
#define RACE_THREADS	3
#define RACE_MAX_TASK	16

struct racer {
	volatile int *stop;
	int attached;
};

/* Attaches on fresh files and maps, unmapping every other buffer. */
static void *racer_fn(void *arg)
{
	struct racer *r = arg;
	struct fxtrace_attach a;
	int i;

	for (i = 0; !*r->stop; i++) {
		int fd = dev_open(0);
		void *m;

		if (fd < 0)
			break;
		if (attach(fd, &a) == 0) {
			r->attached++;
			m = map_part(fd, a.buffer_id, FXTRACE_MMAP_PRODUCER, a.producer_size,
				     PROT_READ | PROT_WRITE);
			if (m != MAP_FAILED && i % 2)
				munmap(m, a.producer_size);
		}
		close(fd);
	}
	return NULL;
}

/*
 * A process of uid NOBODY racing until a byte or end of file comes on
 * stop_pipe, and writing a byte on ready once its threads run.  Each side
 * closes the ends it does not use: the parent's read of ready ends if
 * the child dies first, and the child's of stop_pipe if the parent does.
 */
static pid_t racers_spawn(int stop_pipe[2], int ready[2])
{
	pid_t pid = fork();

	if (pid == 0) {
		struct racer r[RACE_THREADS];
		volatile int stop = 0;
		pthread_t t[RACE_THREADS];
		int i;
		char c = 0;

		close(stop_pipe[1]);
		close(ready[0]);
		CHILD_CHECK(!become(NOBODY), 9);
		for (i = 0; i < RACE_THREADS; i++) {
			r[i] = (struct racer){ &stop, 0 };
			CHILD_CHECK(!pthread_create(&t[i], NULL, racer_fn, &r[i]), 10);
		}
		CHILD_CHECK(write(ready[1], &c, 1) == 1, 11);
		CHILD_CHECK(read(stop_pipe[0], &c, 1) >= 0, 12);
		stop = 1;
		for (i = 0; i < RACE_THREADS; i++)
			pthread_join(t[i], NULL);
		_exit(0);
	}
	close(stop_pipe[0]);
	close(ready[1]);
	return pid;
}

/* Attaches as NOBODY on fresh files until refused: the count, *err. */
static int nobody_attach_count(int *err)
{
	int ret[2], n = 0;
	pid_t pid;

	if (pipe(ret))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct fxtrace_attach a;
		int fd, res[2] = { 0, 0 };

		CHILD_CHECK(!become(NOBODY), 9);
		for (;;) {
			fd = dev_open(0);
			if (fd < 0 || attach(fd, &a)) {
				res[1] = errno;
				break;
			}
			res[0]++;
		}
		CHILD_CHECK(write(ret[1], res, sizeof(res)) == sizeof(res), 10);
		_exit(0);
	}
	close(ret[1]);
	if (read(ret[0], ret, sizeof(ret)) == sizeof(ret)) {
		n = ret[0];
		*err = ret[1];
	} else {
		n = -1;
	}
	close(ret[0]);
	return wait_child(pid) ? -1 : n;
}

/*
 * Another user's threads ATTACH, map and unmap on fresh files while the
 * controller TERMINATEs (even rounds) or closes its file and another
 * ADOPTs and TERMINATEs (odd rounds).  Whatever interleaving, the user's
 * share is whole again after: in a new session NOBODY attaches exactly
 * its share of max_task_buffers (the refusal EDQUOT), and the session's
 * memory is its CPU buffers at INIT, as in the first.
 */
TEST_F_TIMEOUT(ma, attach_races_terminate_and_adopt, 300)
{
	const long pct = module_param_read("user_share_percent", -1);
	struct fxtrace_session_info si;
	int round, attached = 0, err = 0, share;

	ASSERT_LT(0, pct);
	self->cfg.max_task_buffers = RACE_MAX_TASK;
	share = RACE_MAX_TASK * (pct > 100 ? 100 : pct) / 100;
	if (share < 1)
		share = 1;
	ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
	ASSERT_EQ(0, terminate_reopen_fd(&self->fd));

	for (round = 0; round < RACE_ROUNDS; round++) {
		int stop[2], ready[2];
		char c = 0;
		pid_t pid;

		ASSERT_EQ(0, init_session(self->fd, &self->cfg));
		ASSERT_EQ(0, pipe(stop));
		ASSERT_EQ(0, pipe(ready));
		self->racers = racers_spawn(stop, ready);
		ASSERT_LT(0, self->racers);
		ASSERT_EQ(1, read(ready[0], &c, 1));
		usleep(1000 * (round % 4) * 5);
		if (round % 2 == 0) {
			ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
			ASSERT_EQ(0, terminate_reopen_fd(&self->fd));
		} else {
			ASSERT_EQ(0, terminate_reopen_fd(&self->fd));
			ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_ADOPT));
			ASSERT_EQ(0, ioctl(self->fd, FXTRACE_IOC_TERMINATE));
			ASSERT_EQ(0, terminate_reopen_fd(&self->fd));
		}
		usleep(20000);
		ASSERT_EQ(1, write(stop[1], &c, 1));
		pid = self->racers;
		self->racers = 0;
		ASSERT_EQ(0, wait_child(pid));
		close(stop[1]);
		close(ready[0]);
		attached++;
	}
	ASSERT_EQ(RACE_ROUNDS, attached);

	ASSERT_EQ(0, init_session(self->fd, &self->cfg));
	ASSERT_EQ(0, session_info(self->fd, &si));
	ASSERT_EQ(self->base_memory, si.memory_used);
	ASSERT_EQ(share, nobody_attach_count(&err));
	ASSERT_EQ(EDQUOT, err);
}

TEST_HARNESS_MAIN
