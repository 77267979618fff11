// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded fuzzer of /dev/fxtrace, run in the guest as root with fxtrace.ko
 * loaded (tools/guest/run.sh -m kmod/fxtrace.ko build/selftests/fuzz_test).
 *
 * Usage: fuzz_test [-s SEED] [-n CALLS] [-t SECONDS]
 *   SEED     replays a run (default: from the clock; always printed)
 *   CALLS    system calls to make in all (default 200000)
 *   SECONDS  stop early after this long (default 240); fewer calls than
 *            asked for is then a failure
 *
 * Three phases share the calls: root (half), then an unprivileged uid
 * (65534, no capabilities, no groups) next to a session a root controller
 * drives (Stop, Start, Terminate, releases, acks), then the same uid next to
 * an orphaned root session.  Each phase makes random calls: open/close,
 * every ioctl of the ABI with plausible and mutated arguments (sizes,
 * versions, reserved fields, NULL, unmapped, kernel and page-straddling
 * pointers), mmap/mprotect/mremap/madvise/munmap with random offsets,
 * lengths and protections, read/write of random lengths, writes of random
 * values into producer control pages, forked children and threads racing
 * Stop/Terminate and releases.  Documentation/testing.rst lists the rules a
 * call breaks by succeeding (the oracle); each breach prints a VIOLATION
 * line with the rule, the call and its arguments, and fails the phase.
 * Output: TAP (one result per phase), the seed, the calls, the seconds and
 * an errno histogram per call kind.
 *
 * The run is replayed from its seed as far as one thread decides: the main
 * sequence is the seed's; races with threads, children and the kernel are
 * not.  Nothing here can harm the guest: only fxtrace fds and our own
 * mappings are touched, no MADV_HWPOISON, no /proc writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#define PG		4096UL
#define MAX_FDS		6
#define MAX_MAPS	24
#define MAX_BUFS	256
#define ARENA_SLOTS	64
#define ARENA_SLOT	(2UL << 20)
#define UNPRIV_UID	65534
#define NERR		160	/* errno values counted one by one; more: NERR-1 */

/* ---- call kinds and the histogram (shared with children) ---------------- */

enum kind {
	K_OPEN, K_CLOSE,
	K_VERSION, K_INIT, K_START, K_STOP, K_TERMINATE, K_ADOPT,
	K_SESSION_INFO, K_BUFFER_INFO, K_RELEASE, K_CATEGORY, K_PAUSE,
	K_RESUME, K_ATTACH, K_BUFFER_FULL, K_IOC_OTHER,
	K_MMAP, K_MPROTECT, K_MREMAP, K_MADVISE, K_MUNMAP,
	K_READ, K_WRITE, K_POLL, K_FORK, K_THREAD,
	NKINDS
};

static const char *const kind_name[NKINDS] = {
	"open", "close",
	"ioctl VERSION", "ioctl INIT", "ioctl START", "ioctl STOP",
	"ioctl TERMINATE", "ioctl ADOPT", "ioctl SESSION_INFO",
	"ioctl BUFFER_INFO", "ioctl RELEASE_BUFFER", "ioctl CATEGORY",
	"ioctl PAUSE", "ioctl RESUME", "ioctl ATTACH", "ioctl BUFFER_FULL",
	"ioctl (other cmd)",
	"mmap", "mprotect", "mremap", "madvise", "munmap",
	"read", "write", "poll", "fork", "thread",
};

struct stats {
	long hist[NKINDS][NERR];
	long calls;
	long violations;
	long budget;		/* calls the phase may make */
	int stop;		/* set when the budget or time is spent */
};

static struct stats *st;	/* MAP_SHARED: children and threads add */
static struct stats *ctl_st;	/* the root controller of phases 2 and 3 */
static bool in_controller;	/* this process is that controller */
static double deadline;		/* CLOCK_MONOTONIC seconds */
static bool unpriv;		/* this process runs without privileges */
static const char *phase = "";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Count one call: ret < 0 means it failed with err. */
static void record(enum kind k, long ret, int err);

/* Count a call made here: errno is read after the call, not before. */
#define REC(k, call) do {			\
	long rec_ret = (call);			\
	record(k, rec_ret, errno);		\
} while (0)

static void record(enum kind k, long ret, int err)
{
	int e = ret < 0 ? err : 0;
	long n;

	if (e < 0 || e >= NERR)
		e = NERR - 1;
	if (in_controller) {
		ctl_st->hist[k][e]++;
		ctl_st->calls++;
		return;
	}
	__atomic_add_fetch(&st->hist[k][e], 1, __ATOMIC_RELAXED);
	n = __atomic_add_fetch(&st->calls, 1, __ATOMIC_RELAXED);
	if (n >= st->budget || ((n & 255) == 0 && now() > deadline))
		__atomic_store_n(&st->stop, 1, __ATOMIC_RELAXED);
}

static bool stopping(void)
{
	return __atomic_load_n(&st->stop, __ATOMIC_RELAXED);
}

/* The last calls of this thread, printed with a violation. */
#define TRAIL 16
static __thread char trail[TRAIL][160];
static __thread unsigned int trail_pos;

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(trail[trail_pos++ % TRAIL], sizeof(trail[0]), fmt, ap);
	va_end(ap);
}

static void violation(const char *rule, const char *fmt, ...)
{
	char what[256];
	unsigned int i;
	va_list ap;
	long n;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	n = __atomic_add_fetch(&st->violations, 1, __ATOMIC_RELAXED);
	if (n > 20)
		return;
	printf("# VIOLATION [%s] %s: %s (pid %d, uid %d, call #%ld)\n", phase,
	       rule, what, getpid(), getuid(),
	       __atomic_load_n(&st->calls, __ATOMIC_RELAXED));
	if (n <= 3) {
		printf("#   this thread's last calls, oldest first:\n");
		for (i = trail_pos > TRAIL ? trail_pos - TRAIL : 0; i < trail_pos; i++)
			printf("#     %s\n", trail[i % TRAIL]);
	}
	fflush(stdout);
}

/* ---- random numbers ---------------------------------------------------- */

static __thread uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int one_in)
{
	return below(one_in) == 0;
}

/* A number a kernel check might get wrong: boundaries, then anything. */
static uint64_t edgy(void)
{
	static const uint64_t edges[] = {
		0, 1, 2, 7, 8, 4095, 4096, 4097, 16384, 65536, 1ULL << 20,
		256ULL << 20, (256ULL << 20) + 4096, 1ULL << 31, 0xffffffffULL,
		1ULL << 32, 1ULL << 63, ~0ULL, ~0ULL - 4095,
	};

	return chance(3) ? rnd() : edges[below(sizeof(edges) / sizeof(edges[0]))];
}

/* ---- what this process knows ------------------------------------------- */

struct fdent {
	int fd;
	bool inherited;		/* from a parent: never INIT/ADOPT on it */
	uint64_t ctl_session;	/* INIT/ADOPT succeeded (session id), or 0 */
	bool was_ctl;		/* ever a controller: read/write may succeed */
};

enum part { P_SESSION = 0, P_HEADER = 1, P_PRODUCER = 2, P_READER = 3 };

struct ment {
	void *addr;
	size_t len;
	int part;
	uint32_t id;
	int prot;
	int slot;		/* arena slot it occupies, or -1 */
	uint64_t session;	/* session id when mapped, 0 unknown */
};

struct bufent {
	uint32_t id;
	pid_t owner;		/* the process that attached it, or 0 */
	uint64_t session;	/* session id at ATTACH, 0 unknown */
	uint64_t producer_size;
	uint64_t reader_size;	/* from BUFFER_INFO, or 0 */
	bool producer_mapped;	/* a PRODUCER mmap succeeded once */
};

static struct fdent fds[MAX_FDS];
static int nfds;
static struct ment maps[MAX_MAPS];
static int nmaps;
static struct bufent bufs[MAX_BUFS];
static int nbufs;
static bool arena_used[ARENA_SLOTS];
static char *arena;		/* PROT_NONE reserve for MAP_FIXED targets */
static char *argpage;		/* two rw pages, then a PROT_NONE guard */
static const struct fxtrace_session_page *spage;
static pthread_mutex_t tables = PTHREAD_MUTEX_INITIALIZER;
static int ncpus;

static uint64_t session_id(void)
{
	return spage->state == FXTRACE_STATE_NONE ? 0 :
	       __atomic_load_n(&spage->session_id, __ATOMIC_ACQUIRE);
}

static struct bufent *buf_find(uint32_t id)
{
	int i;

	for (i = 0; i < nbufs; i++)
		if (bufs[i].id == id)
			return &bufs[i];
	return NULL;
}

static struct bufent *buf_add(uint32_t id)
{
	struct bufent *b = buf_find(id);

	if (b)
		return b;
	if (nbufs == MAX_BUFS) {
		memmove(bufs, bufs + 1, sizeof(bufs[0]) * (MAX_BUFS - 1));
		nbufs--;
	}
	b = &bufs[nbufs++];
	memset(b, 0, sizeof(*b));
	b->id = id;
	return b;
}

/* Is buffer id, in the session now running, attached by this process? */
static bool own_buffer(uint32_t id, uint64_t sid)
{
	struct bufent *b = buf_find(id);

	return b && b->owner == getpid() && (!b->session || b->session == sid);
}

/* ---- faults in our own accesses --------------------------------------- */

static __thread sigjmp_buf fault_jmp;
static __thread volatile sig_atomic_t fault_armed;

static void on_fault(int sig)
{
	if (fault_armed)
		siglongjmp(fault_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Our own loads and stores into mappings the kernel may have taken away
 * (MADV_DONTNEED, a race): a fault returns false instead of killing us.
 */
static __attribute__((noinline)) bool load32(const void *p, uint32_t *v)
{
	bool ok = false;

	fault_armed = 1;
	if (!sigsetjmp(fault_jmp, 1)) {
		*v = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
		ok = true;
	}
	fault_armed = 0;
	return ok;
}

static __attribute__((noinline)) void store64(void *p, uint64_t v)
{
	fault_armed = 1;
	if (!sigsetjmp(fault_jmp, 1))
		__atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
	fault_armed = 0;
}

/* ---- pointers ---------------------------------------------------------- */

static const uint64_t kernel_ptrs[] = {
	0xffffffff81000000ULL, 0xffff888000000000ULL, 0xffffffffff600000ULL,
	0xfffffffffffff000ULL, 0x0000800000000000ULL,
};

enum ptr_kind { PTR_VALID, PTR_NULL, PTR_UNMAPPED, PTR_KERNEL, PTR_STRADDLE };

static enum ptr_kind pick_ptr_kind(void)
{
	switch (below(16)) {
	case 0: return PTR_NULL;
	case 1: return PTR_UNMAPPED;
	case 2: return PTR_KERNEL;
	case 3: return PTR_STRADDLE;
	default: return PTR_VALID;
	}
}

static void *bad_ptr(enum ptr_kind k)
{
	switch (k) {
	case PTR_NULL: return NULL;
	case PTR_UNMAPPED: return argpage + 2 * PG + below(PG);
	case PTR_KERNEL: return (void *)(uintptr_t)kernel_ptrs[below(5)];
	default: return argpage;
	}
}

/* ---- ioctls ------------------------------------------------------------ */

static const char *const cat_names[] = {
	"fuzz", "fuzz.a", "net:rx", "a/b-c_d", "x", "bad*glob", "sp ace", "",
};

/*
 * A size field for a struct whose first version is v0 bytes and ours is
 * full bytes; returns whether the kernel must refuse that size alone.
 */
static bool pick_size(uint32_t *size, size_t v0, size_t full)
{
	switch (below(12)) {
	case 0: *size = 0; break;
	case 1: *size = v0 - 1 - below(v0 - 1); break;
	case 2: *size = PG; break;
	case 3: *size = PG + 1 + below(100); break;
	case 4: *size = (uint32_t)rnd(); break;
	case 5: *size = full + 8 * (1 + below(4)); break;	/* zero tail */
	default: *size = v0 == full || chance(2) ? full : v0; break;
	}
	return *size < v0 || *size > PG;
}

/* One ioctl of the ABI on fd with plausible or broken arguments. */
static void do_ioctl(struct fdent *f)
{
	static const enum kind kinds[] = {
		K_VERSION, K_INIT, K_START, K_STOP, K_TERMINATE, K_ADOPT,
		K_SESSION_INFO, K_SESSION_INFO, K_BUFFER_INFO, K_BUFFER_INFO,
		K_RELEASE, K_RELEASE, K_CATEGORY, K_CATEGORY, K_PAUSE, K_RESUME,
		K_ATTACH, K_ATTACH, K_BUFFER_FULL, K_BUFFER_FULL, K_IOC_OTHER,
	};
	enum kind k = kinds[below(sizeof(kinds) / sizeof(kinds[0]))];
	enum ptr_kind pk = pick_ptr_kind();
	unsigned char *body = (unsigned char *)argpage;
	bool must_fail = false, ctl_op = false, takes_arg = true;
	const char *why = "";
	unsigned long cmd = 0;
	size_t full = 0, v0 = 0;
	uint32_t size = 0;
	uint64_t sid0, sid1;
	void *arg;
	long ret;
	int err;

	/* Throttle what is slow under TCG (probe registration, allocation). */
	if ((k == K_INIT || k == K_START || k == K_TERMINATE) && !chance(4))
		k = K_SESSION_INFO;
	if (f->inherited && (k == K_INIT || k == K_ADOPT))
		k = K_VERSION;
	memset(body, 0, 2 * PG);

	switch (k) {
	case K_VERSION: {
		struct fxtrace_version *v = (void *)body;

		cmd = FXTRACE_IOC_VERSION;
		full = sizeof(*v);
		v0 = FXTRACE_VERSION_SIZE_V0;
		if (chance(6)) {
			v->abi_major = edgy();
			v->__reserved = edgy();
			must_fail |= v->abi_major || v->__reserved;
			why = "output fields set on input";
		}
		break;
	}
	case K_INIT: {
		struct fxtrace_config *c = (void *)body;
		char *cats = (char *)body + PG;
		uint64_t cpu_bytes;

		cmd = FXTRACE_IOC_INIT;
		full = sizeof(*c);
		v0 = FXTRACE_CONFIG_SIZE_V0;
		c->mode = below(3);
		c->cpu_buffer_size = (4 + below(12)) * PG;
		c->task_buffer_size = (4 + below(60)) * PG;
		c->memory_limit = chance(4) ? 0 : (1 + below(16)) << 20;
		c->max_task_buffers = below(10);
		if (chance(3)) {
			memcpy(cats, "fuzz\0net:*\0", 11);
			c->categories = (uintptr_t)cats;
			c->categories_size = 11;
		}
		switch (below(16)) {
		case 0: c->mode = edgy(); break;
		case 1: c->cpu_buffer_size = edgy() & ~(chance(2) ? 0xfffULL : 0); break;
		case 2: c->task_buffer_size = edgy() & ~(chance(2) ? 0xfffULL : 0); break;
		case 3: c->memory_limit = edgy(); break;
		case 4: c->max_task_buffers = edgy(); break;
		case 5: c->__reserved = 1 + below(0xffff); break;
		case 6: c->filter_pid = chance(2) ? (uint32_t)getpid() : edgy(); break;
		case 7: c->categories = (uintptr_t)bad_ptr(PTR_KERNEL);
			c->categories_size = 1 + below(64); break;
		case 8: c->categories_size = edgy(); break;
		}
		/* The documented limits of the config (uapi/linux/fxtrace.h). */
		if (c->mode > FXTRACE_MODE_STREAMING || c->__reserved ||
		    c->max_task_buffers > FXTRACE_TASK_BUFFERS_MAX) {
			must_fail = true;
			why = "mode, max_task_buffers or reserved out of range";
		}
		if (c->cpu_buffer_size % PG || c->task_buffer_size % PG ||
		    c->cpu_buffer_size < FXTRACE_BUFFER_SIZE_MIN ||
		    c->task_buffer_size < FXTRACE_BUFFER_SIZE_MIN ||
		    c->cpu_buffer_size > FXTRACE_BUFFER_SIZE_MAX ||
		    c->task_buffer_size > FXTRACE_BUFFER_SIZE_MAX) {
			must_fail = true;
			why = "buffer size out of range or not page-aligned";
		}
		cpu_bytes = ncpus * (2 * PG + c->cpu_buffer_size);
		if (c->memory_limit && cpu_bytes > c->memory_limit &&
		    c->cpu_buffer_size <= FXTRACE_BUFFER_SIZE_MAX) {
			must_fail = true;
			why = "per-CPU buffers alone exceed memory_limit";
		}
		if (c->categories_size && c->categories >= 0x0000800000000000ULL) {
			must_fail = true;
			why = "kernel pointer for categories";
		}
		if (unpriv) {
			must_fail = true;
			why = "INIT without CAP_PERFMON";
		}
		break;
	}
	case K_START: {
		struct fxtrace_start *s = (void *)body;

		cmd = FXTRACE_IOC_START;
		full = sizeof(*s);
		v0 = FXTRACE_START_SIZE_V0;
		ctl_op = true;
		s->disposition = below(3);
		if (chance(5)) {
			s->disposition = edgy();
			s->__reserved = chance(2) ? edgy() : 0;
			if (s->disposition > FXTRACE_START_RETAIN || s->__reserved) {
				must_fail = true;
				why = "bad disposition or reserved field";
			}
		}
		break;
	}
	case K_STOP: cmd = FXTRACE_IOC_STOP; ctl_op = true; takes_arg = false; break;
	case K_PAUSE: cmd = FXTRACE_IOC_PAUSE; ctl_op = true; takes_arg = false; break;
	case K_RESUME: cmd = FXTRACE_IOC_RESUME; ctl_op = true; takes_arg = false; break;
	case K_TERMINATE: cmd = FXTRACE_IOC_TERMINATE; ctl_op = true; takes_arg = false; break;
	case K_ADOPT:
		cmd = FXTRACE_IOC_ADOPT;
		takes_arg = false;
		if (unpriv) {
			must_fail = true;
			why = "ADOPT without CAP_PERFMON";
		}
		break;
	case K_SESSION_INFO:
		cmd = FXTRACE_IOC_SESSION_INFO;
		full = sizeof(struct fxtrace_session_info);
		v0 = FXTRACE_SESSION_INFO_SIZE_V0;
		break;
	case K_BUFFER_INFO: {
		struct fxtrace_buffer_info *b = (void *)body;

		cmd = FXTRACE_IOC_BUFFER_INFO;
		full = sizeof(*b);
		v0 = FXTRACE_BUFFER_INFO_SIZE_V0;
		ctl_op = true;
		b->id = chance(4) ? edgy() : below(40);
		break;
	}
	case K_RELEASE: {
		struct fxtrace_buffer_ref *r = (void *)body;

		cmd = FXTRACE_IOC_RELEASE_BUFFER;
		full = sizeof(*r);
		v0 = FXTRACE_BUFFER_REF_SIZE_V0;
		ctl_op = true;
		r->id = chance(8) ? edgy() : below(40);
		break;
	}
	case K_CATEGORY: {
		struct fxtrace_category *c = (void *)body;
		char *name = (char *)body + PG;
		const char *n;
		uint32_t i;

		cmd = FXTRACE_IOC_CATEGORY;
		full = sizeof(*c);
		v0 = FXTRACE_CATEGORY_SIZE_V0;
		n = cat_names[below(sizeof(cat_names) / sizeof(cat_names[0]))];
		strcpy(name, n);
		c->name = (uintptr_t)name;
		c->name_len = strlen(n);
		switch (below(8)) {
		case 0: c->name_len = edgy(); break;
		case 1: c->index = edgy(); break;
		case 2: c->__reserved = edgy(); break;
		case 3: c->name = (uintptr_t)bad_ptr(PTR_KERNEL); break;
		case 4:	/* a fresh name: the slots are for everyone */
			c->name_len = 1 + below(FXTRACE_CATEGORY_MAX_LEN);
			for (i = 0; i < c->name_len; i++)
				name[i] = 'a' + below(26);
			break;
		}
		if (c->index || c->__reserved || !c->name_len ||
		    c->name_len > FXTRACE_CATEGORY_MAX_LEN) {
			must_fail = true;
			why = "index/reserved set or name_len out of 1..100";
		} else if (memchr(name, '*', c->name_len) || memchr(name, ' ', c->name_len) ||
			   memchr(name, '\0', c->name_len)) {
			must_fail = true;
			why = "category name with a glob or invalid character";
		} else if (c->name >= 0x0000800000000000ULL) {
			must_fail = true;
			why = "kernel pointer for the name";
		}
		break;
	}
	case K_ATTACH: {
		struct fxtrace_attach *a = (void *)body;

		cmd = FXTRACE_IOC_ATTACH;
		full = sizeof(*a);
		v0 = FXTRACE_ATTACH_SIZE_V0;
		if (chance(8)) {
			a->buffer_id = edgy();
			a->header_offset = edgy();
			if (a->buffer_id || a->header_offset) {
				must_fail = true;
				why = "output fields set on input";
			}
		}
		break;
	}
	case K_BUFFER_FULL: {
		struct fxtrace_buffer_full *b = (void *)body;

		cmd = FXTRACE_IOC_BUFFER_FULL;
		full = sizeof(*b);
		v0 = FXTRACE_BUFFER_FULL_SIZE_V0;
		b->buffer_id = nbufs && chance(2) ? bufs[below(nbufs)].id : below(40);
		b->wrap = chance(4) ? edgy() : below(4);
		break;
	}
	default: {
		/* A command that is not in the ABI: a near miss or anything. */
		static const unsigned long real[] = {
			FXTRACE_IOC_VERSION, FXTRACE_IOC_INIT, FXTRACE_IOC_START,
			FXTRACE_IOC_ATTACH, FXTRACE_IOC_CATEGORY, FXTRACE_IOC_STOP,
		};

		k = K_IOC_OTHER;
		switch (below(4)) {
		case 0: cmd = real[below(6)] ^ (1UL << (16 + below(14))); break;	/* size */
		case 1: cmd = real[below(6)] ^ (1UL << (30 + below(2))); break;	/* dir */
		case 2: cmd = _IOC(below(4), FXTRACE_IOC_MAGIC, 18 + below(238), below(PG)); break;
		default: cmd = (uint32_t)rnd(); break;
		}
		/* The module dispatches on the exact command word. */
		must_fail = true;
		why = "command not in the ABI";
		takes_arg = false;
		break;
	}
	}

	if (full) {
		if (pick_size(&size, v0, full)) {
			must_fail = true;
			why = size < v0 ? "size below the first version" : "size above a page";
		}
		if (size > full && size <= 2 * PG && chance(2)) {
			body[full + below(size - full)] = 1 + below(255);
			must_fail = true;
			why = "non-zero bytes past the known struct";
		}
		memcpy(body, &size, sizeof(size));
	}
	arg = body;
	if (takes_arg && pk != PTR_VALID) {
		if (pk == PTR_STRADDLE && full) {
			size_t at = size < 2 * PG ? size : 2 * PG;

			/* The struct runs into the guard page. */
			arg = argpage + 2 * PG - (at > 4 ? 4 + below(at - 4) : 4);
			memcpy(arg, &size, sizeof(size));
			if (size > 4) {
				must_fail = true;
				why = "struct straddling an unmapped page";
			}
		} else {
			arg = bad_ptr(pk);
			must_fail = true;
			why = "NULL, unmapped or kernel pointer";
		}
	} else if (!takes_arg && k != K_IOC_OTHER) {
		arg = chance(2) ? NULL : (void *)(uintptr_t)rnd();
	}

	if (ctl_op && !f->ctl_session) {
		must_fail = true;
		why = "controller ioctl on an fd that never initialized or adopted";
	}
	if (unpriv && ctl_op) {
		must_fail = true;
		why = "controller ioctl by an unprivileged uid";
	}

	note("ioctl(fd %d, %s, cmd %#lx, size %u, ptr %d)", f->fd, kind_name[k], cmd,
	     size, pk);
	sid0 = session_id();
	ret = ioctl(f->fd, cmd, arg);
	err = errno;
	sid1 = session_id();
	record(k, ret, err);
	if (ret < 0)
		return;
	if (must_fail) {
		violation("succeeded where it must fail", "ioctl %s (cmd %#lx, size %u, pointer kind %d): %s",
			  kind_name[k], cmd, size, pk, why);
		return;
	}

	switch (k) {
	case K_INIT:
	case K_ADOPT:
		f->ctl_session = sid1 ? sid1 : 1;
		f->was_ctl = true;
		break;
	case K_TERMINATE:
		f->ctl_session = 0;
		break;
	case K_ATTACH: {
		const struct fxtrace_attach *a = arg;
		struct bufent *b;

		pthread_mutex_lock(&tables);
		b = buf_add(a->buffer_id);
		b->owner = getpid();
		b->session = sid0 == sid1 ? sid1 : 0;
		b->producer_size = a->producer_size;
		b->producer_mapped = false;
		pthread_mutex_unlock(&tables);
		if (a->header_offset != FXTRACE_MMAP_OFFSET(a->buffer_id, FXTRACE_MMAP_HEADER) ||
		    a->producer_offset != FXTRACE_MMAP_OFFSET(a->buffer_id, FXTRACE_MMAP_PRODUCER) ||
		    a->header_size != PG || a->producer_size % PG)
			violation("ATTACH output", "id %u offsets %#llx %#llx sizes %llu %llu",
				  a->buffer_id, (unsigned long long)a->header_offset,
				  (unsigned long long)a->producer_offset,
				  (unsigned long long)a->header_size,
				  (unsigned long long)a->producer_size);
		break;
	}
	case K_BUFFER_INFO: {
		const struct fxtrace_buffer_info *b = arg;
		struct bufent *e;

		pthread_mutex_lock(&tables);
		e = buf_add(b->id);
		e->reader_size = b->reader_size;
		pthread_mutex_unlock(&tables);
		break;
	}
	case K_BUFFER_FULL: {
		const struct fxtrace_buffer_full *b = arg;

		if (sid0 == sid1 && !own_buffer(b->buffer_id, sid1))
			violation("BUFFER_FULL on a buffer this process did not attach",
				  "id %u wrap %llu", b->buffer_id,
				  (unsigned long long)b->wrap);
		break;
	}
	case K_SESSION_INFO: {
		const struct fxtrace_session_info *i = arg;

		if (i->state != FXTRACE_STATE_NONE && i->memory_used > i->memory_limit)
			violation("memory over the limit", "memory_used %llu > memory_limit %llu",
				  (unsigned long long)i->memory_used,
				  (unsigned long long)i->memory_limit);
		break;
	}
	default:
		break;
	}
}

/* ---- memory charged while mapped -------------------------------------- */

/*
 * Every page a mapping of ours keeps alive must be charged to the session:
 * memory_used >= the areas of our live PRODUCER mappings of this session
 * (root phase only, where this process is the only producer).
 */
static void check_charged(int fd)
{
	struct fxtrace_session_info info = { .size = sizeof(info) };
	uint64_t sid = session_id(), held = 0;
	long ret;
	int i;

	ret = ioctl(fd, FXTRACE_IOC_SESSION_INFO, &info);
	record(K_SESSION_INFO, ret, errno);
	if (ret || !sid || session_id() != sid)
		return;
	for (i = 0; i < nmaps; i++)
		if (maps[i].part == P_PRODUCER && maps[i].session == sid)
			held += maps[i].len + PG;
	if (info.memory_used < held)
		violation("mapped buffer not charged (known defect 1: release of a retired but mapped buffer)",
			  "memory_used %llu < %llu bytes of live producer mappings",
			  (unsigned long long)info.memory_used,
			  (unsigned long long)held);
}

/* ---- mappings ---------------------------------------------------------- */

static int arena_take(void)
{
	int i, start = below(ARENA_SLOTS - 1);

	/* The last slot is where racing threads move their mappings. */
	for (i = 0; i < ARENA_SLOTS - 1; i++) {
		int s = (start + i) % (ARENA_SLOTS - 1);

		if (!arena_used[s]) {
			arena_used[s] = true;
			return s;
		}
	}
	return -1;
}

/* Give a slot back, unmapped again as PROT_NONE reserve. */
static void arena_give(int slot)
{
	if (slot < 0)
		return;
	mmap(arena + slot * ARENA_SLOT, ARENA_SLOT, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	arena_used[slot] = false;
}

/*
 * Under the tables lock: a racer thread appending its mapping at the same
 * time would otherwise be lost or duplicated, and a duplicate entry would
 * later be unmapped twice (munmap of an unmapped range succeeds, which the
 * oracle took for a split buffer mapping).
 */
static void map_drop(int i)
{
	pthread_mutex_lock(&tables);
	arena_give(maps[i].slot);
	maps[i] = maps[--nmaps];
	pthread_mutex_unlock(&tables);
}

static const int prots[] = {
	PROT_READ, PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE, PROT_NONE,
	PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC,
};

static void do_mmap(struct fdent *f)
{
	uint64_t sid0 = session_id(), sid1, off;
	int part = below(5) ? 1 + below(3) : (chance(2) ? 0 : below(16));
	int prot = prots[below(7)], flags = chance(12) ? MAP_PRIVATE : MAP_SHARED;
	uint32_t id = nbufs && chance(2) ? bufs[below(nbufs)].id :
		      (chance(8) ? (uint32_t)edgy() : below(40));
	struct bufent *b = buf_find(id);
	size_t len, rlen, want = 0;
	const char *why = NULL;
	uint32_t magic, hid;
	int slot = -1;
	void *p, *at = NULL;
	int err;

	off = part == P_SESSION && chance(2) ? 0 : FXTRACE_MMAP_OFFSET(id, (uint64_t)part);
	if (chance(16))
		off |= (below(1 << 16)) * PG;	/* inside the part's 256 MiB */
	if (off == 0)
		want = FXTRACE_SESSION_MAP_SIZE;
	else if (part == P_HEADER)
		want = PG;
	else if (part == P_PRODUCER && b && b->producer_size)
		want = b->producer_size;
	else if (part == P_READER && b && b->reader_size)
		want = b->reader_size;
	switch (below(6)) {
	case 0: len = (1 + below(64)) * PG; break;
	case 1: len = edgy(); break;
	default: len = want ? want : (1 + below(64)) * PG; break;
	}
	if (len && len <= ARENA_SLOT && chance(4)) {
		slot = arena_take();
		if (slot >= 0) {
			at = arena + slot * ARENA_SLOT;
			flags |= MAP_FIXED;
		}
	}

	/* The oracle: what no mapping of /dev/fxtrace may be. */
	rlen = (len + PG - 1) & ~(PG - 1);
	if (prot & PROT_EXEC)
		why = "executable mapping";
	else if (flags & MAP_PRIVATE)
		why = "private mapping";
	else if (off == 0 && (prot & PROT_WRITE))
		why = "writable session page";
	else if (off == 0 && rlen != FXTRACE_SESSION_MAP_SIZE)
		why = "session page of the wrong size";
	else if (off && (off & ((1ULL << 28) - 1)))
		why = "offset inside a part";
	else if (off && (part < 1 || part > 3 || !id))
		why = "no such part";
	else if (off && part != P_PRODUCER && (prot & PROT_WRITE))
		why = "writable header or reader part";
	else if (off && part == P_HEADER && rlen != PG)
		why = "header of the wrong size";
	else if (off && part == P_PRODUCER && !own_buffer(id, sid0))
		why = "producer part of a buffer this process did not attach";
	else if (off && part == P_PRODUCER && b && b->producer_mapped)
		why = "producer part mapped a second time";
	else if (off && part == P_PRODUCER && b && b->producer_size && rlen != b->producer_size)
		why = "producer part of the wrong size";
	else if (off && part == P_READER && (unpriv || !f->ctl_session))
		why = "reader part without being the controller";
	else if (off && part == P_HEADER && !f->ctl_session && !own_buffer(id, sid0))
		why = "header of a buffer neither controlled nor attached";

	note("mmap(%p, %zu, prot %d, flags %#x, fd %d, off %#llx)", at, len, prot, flags,
	     f->fd, (unsigned long long)off);
	p = mmap(at, len, prot, flags, f->fd, off);
	err = errno;
	sid1 = session_id();
	record(K_MMAP, p == MAP_FAILED ? -1 : 0, err);
	if (p == MAP_FAILED) {
		/*
		 * A refused MAP_FIXED mapping has already unmapped the reserve:
		 * the hole would take the next mapping the kernel places (a
		 * cached thread stack once, then wiped by this slot's next use).
		 */
		arena_give(slot);
		return;
	}
	if (why && sid0 == sid1)
		violation("mmap succeeded where it must fail",
			  "off %#llx (id %u part %d) len %zu prot %d flags %#x: %s",
			  (unsigned long long)off, id, part, len, prot, flags, why);
	/* The tables are shared with the racer threads (racer_main). */
	pthread_mutex_lock(&tables);
	if (nmaps == MAX_MAPS || (why && sid0 == sid1)) {
		pthread_mutex_unlock(&tables);
		munmap(p, rlen);
		arena_give(slot);
		return;
	}
	b = part == P_PRODUCER ? buf_find(id) : NULL;
	if (b)
		b->producer_mapped = true;
	maps[nmaps++] = (struct ment){
		.addr = p, .len = rlen, .part = off ? part : P_SESSION, .id = id,
		.prot = prot, .slot = slot, .session = sid0 == sid1 ? sid1 : 0,
	};
	pthread_mutex_unlock(&tables);
	/* What the kernel wrote there must be what the ABI says. */
	if (!(prot & PROT_READ))
		return;
	if (off == 0 && load32(p, &magic) && magic != FXTRACE_SESSION_MAGIC)
		violation("session page", "magic %#x", magic);
	if (off && part != P_PRODUCER && sid0 == sid1 && load32(p, &magic) &&
	    load32((char *)p + offsetof(struct fxtrace_buffer_header, id), &hid) &&
	    (magic != FXTRACE_BUFFER_MAGIC || hid != id))
		violation("buffer header", "id %u: magic %#x id %u", id, magic, hid);
}

static void do_mprotect(void)
{
	struct ment *m;
	int prot = prots[below(7)];
	long ret;

	if (!nmaps)
		return;
	m = &maps[below(nmaps)];
	note("mprotect(%p, %zu, %d) part %d", m->addr, m->len, prot, m->part);
	ret = mprotect(m->addr, chance(4) ? PG : m->len, prot);
	record(K_MPROTECT, ret, errno);
	if (!ret && (prot & PROT_WRITE) && m->part != P_PRODUCER)
		violation("mprotect(PROT_WRITE) of a read-only part", "part %d id %u",
			  m->part, m->id);
	if (!ret && (prot & PROT_EXEC))
		violation("mprotect(PROT_EXEC)", "part %d id %u", m->part, m->id);
	if (!ret)
		m->prot = prot;
}

static void do_mremap(void)
{
	struct ment *m;
	size_t old_len, new_len;
	int flags = 0, slot = -1, i;
	void *p, *to = NULL;

	if (!nmaps)
		return;
	i = below(nmaps);
	m = &maps[i];
	switch (below(5)) {
	case 0: old_len = 0; break;
	case 1: old_len = PG * (1 + below(m->len / PG)); break;
	default: old_len = m->len; break;
	}
	switch (below(4)) {
	case 0: new_len = old_len + PG; break;
	case 1: new_len = old_len > PG ? old_len - PG : PG; break;
	default: new_len = old_len ? old_len : m->len; break;
	}
	if (chance(2))
		flags |= MREMAP_MAYMOVE;
	if ((flags & MREMAP_MAYMOVE) && new_len <= ARENA_SLOT && chance(2)) {
		slot = arena_take();
		if (slot >= 0) {
			flags |= MREMAP_FIXED;
			to = arena + slot * ARENA_SLOT;
		}
	}
	note("mremap(%p, %zu, %zu, %#x, %p) part %d", m->addr, old_len, new_len, flags,
	     to, m->part);
	p = mremap(m->addr, old_len, new_len, flags, to);
	record(K_MREMAP, p == MAP_FAILED ? -1 : 0, errno);
	if (p == MAP_FAILED) {
		arena_give(slot);	/* MREMAP_FIXED unmaps the target first */
		return;
	}
	/* Same length in place is a no-op, whatever old_len covers. */
	if (p == m->addr && old_len == new_len && old_len)
		return;
	if (m->part != P_SESSION && (old_len != m->len || new_len != m->len))
		violation("mremap resized, split or duplicated a buffer mapping",
			  "part %d id %u len %zu: old_len %zu new_len %zu", m->part,
			  m->id, m->len, old_len, new_len);
	if (m->part == P_SESSION && new_len > old_len && old_len)
		violation("mremap grew the session mapping", "%zu to %zu", old_len, new_len);
	if (old_len == 0) {
		/* A second mapping of the same pages: drop it, keep the first. */
		munmap(p, new_len);
		arena_give(slot);
		return;
	}
	if (old_len != m->len) {
		/* Partial: give everything back and forget it. */
		munmap(p, new_len);
		munmap(m->addr, m->len);
		arena_give(slot);
		map_drop(i);
		return;
	}
	if (p != m->addr) {
		arena_give(m->slot);	/* the old place is empty now */
		m->slot = slot;
	} else if (slot >= 0) {
		arena_used[slot] = false;
	}
	/*
	 * Shrunk in place inside a slot: reserve the tail again at once, or a
	 * later mapping could land there and be wiped when the slot is given
	 * back (a false "partial munmap" once, on 6.12).
	 */
	if (p == m->addr && new_len < old_len && m->slot >= 0)
		mmap((char *)p + new_len, old_len - new_len, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	m->addr = p;
	m->len = new_len;
}

static void do_madvise(void)
{
	static const int advice[] = {
		MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED,
		MADV_DONTNEED, MADV_FREE, MADV_REMOVE, MADV_DONTFORK, MADV_DOFORK,
		MADV_MERGEABLE, MADV_UNMERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
		MADV_DONTDUMP, MADV_DODUMP, MADV_WIPEONFORK, MADV_KEEPONFORK,
		20 /* COLD */, 21 /* PAGEOUT */, 22 /* POPULATE_READ */,
		23 /* POPULATE_WRITE */,
	};
	int adv = advice[below(sizeof(advice) / sizeof(advice[0]))];
	struct ment *m;
	size_t off, len;
	long ret;

	if (!nmaps)
		return;
	m = &maps[below(nmaps)];
	off = PG * below(m->len / PG);
	len = chance(2) ? m->len - off : PG;
	note("madvise(%p+%zu, %zu, %d) part %d", m->addr, off, len, adv, m->part);
	ret = madvise((char *)m->addr + off, len, adv);
	record(K_MADVISE, ret, errno);
	if (!ret && adv == MADV_DOFORK && m->part == P_PRODUCER)
		violation("MADV_DOFORK on a producer mapping", "id %u", m->id);
	if (!ret && adv == 23 && m->part != P_PRODUCER)
		violation("MADV_POPULATE_WRITE of a read-only part", "part %d id %u",
			  m->part, m->id);
}

/*
 * Is [addr, addr + len) one mapping of /dev/fxtrace now?  The table can be
 * stale (a mapping can go without the walk seeing it), and munmap() of a
 * range that is not mapped succeeds: only a real buffer mapping judges
 * the split rule.
 */
static bool device_mapping(void *addr, size_t len)
{
	unsigned long start, end, want = (unsigned long)addr;
	char line[512];
	bool found = false;
	FILE *maps_file = fopen("/proc/self/maps", "re");

	if (!maps_file)
		return false;
	while (!found && fgets(line, sizeof(line), maps_file))
		found = sscanf(line, "%lx-%lx", &start, &end) == 2 &&
			start == want && end == want + len &&
			strstr(line, "fxtrace");
	fclose(maps_file);
	return found;
}

/*
 * The arena is ours alone: only mappings of /dev/fxtrace and the PROT_NONE
 * reserve may be in it.  Anything else (a thread stack, a malloc chunk)
 * came through a hole the walk left and would be wiped by a later
 * MAP_FIXED into its slot: a fault in the fuzzer, not in the module.
 */
static void check_arena(void)
{
	unsigned long start, end, lo = (unsigned long)arena;
	unsigned long hi = lo + ARENA_SLOTS * ARENA_SLOT;
	char line[512], perms[8];
	FILE *maps_file = fopen("/proc/self/maps", "re");

	if (!maps_file)
		return;
	while (fgets(line, sizeof(line), maps_file)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 ||
		    end <= lo || start >= hi || strstr(line, "fxtrace") ||
		    !strcmp(perms, "---p"))
			continue;
		line[strcspn(line, "\n")] = 0;
		violation("a foreign mapping in the fuzzer's arena", "%s", line);
	}
	fclose(maps_file);
}

/* The /proc/self/maps line of the mapping holding addr, for a report. */
static const char *mapping_at(const void *addr)
{
	static char line[256];
	unsigned long start, end, want = (unsigned long)addr;
	FILE *maps_file = fopen("/proc/self/maps", "re");
	bool found = false;

	if (!maps_file)
		return "(no /proc/self/maps)";
	while (!found && fgets(line, sizeof(line), maps_file))
		found = sscanf(line, "%lx-%lx", &start, &end) == 2 &&
			start <= want && want < end;
	fclose(maps_file);
	if (!found)
		return "(nothing mapped there)";
	line[strcspn(line, "\n")] = 0;
	return line;
}

static void do_munmap(void)
{
	struct ment *m;
	size_t off = 0, len;
	bool whole;
	long ret;
	int i;

	if (!nmaps)
		return;
	i = below(nmaps);
	m = &maps[i];
	len = m->len;
	if (chance(4) && m->len > PG) {
		off = PG * below(m->len / PG);
		len = PG;
	}
	whole = len == m->len || m->part == P_SESSION ||
		!device_mapping(m->addr, m->len);
	note("munmap(%p+%zu, %zu) part %d", m->addr, off, len, m->part);
	ret = munmap((char *)m->addr + off, len);
	record(K_MUNMAP, ret, errno);
	if (ret)
		return;
	if (!whole)
		violation("partial munmap split a buffer mapping", "part %d id %u",
			  m->part, m->id);
	if (len != m->len)
		munmap(m->addr, m->len);
	map_drop(i);
}

/* A hostile producer: random values into our control pages and data. */
static void poke(void)
{
	struct ment *m = NULL;
	int i, tries;

	for (tries = 0; tries < 4 && !m; tries++) {
		i = below(nmaps ? nmaps : 1);
		if (nmaps && maps[i].part == P_PRODUCER && (maps[i].prot & PROT_WRITE))
			m = &maps[i];
	}
	if (!m)
		return;
	for (i = 0; i < 4; i++)
		store64((uint64_t *)m->addr + below(chance(2) ? 6 : m->len / 8), edgy());
}

/* ---- read, write, poll ------------------------------------------------- */

static size_t pick_len(void)
{
	static const size_t lens[] = { 0, 1, 8, 15, 16, 17, 32, 48, 4096, 4100, 65536 };

	return chance(4) ? below(8192) : lens[below(sizeof(lens) / sizeof(lens[0]))];
}

static void do_read(struct fdent *f)
{
	enum ptr_kind pk = pick_ptr_kind();
	size_t len = pick_len();
	char *p = pk == PTR_VALID ? argpage : bad_ptr(pk);
	struct iovec iov;
	ssize_t ret;

	if (pk == PTR_STRADDLE)
		p = argpage + 2 * PG - 16 * below(4) - 8;
	if (len > 2 * PG && pk == PTR_VALID)
		len = 2 * PG;
	iov.iov_base = p;
	iov.iov_len = len;
	note("preadv2(fd %d, %p, %zu, NOWAIT)", f->fd, (void *)p, len);
	/* Never block: a controller without packets would wait forever. */
	ret = preadv2(f->fd, &iov, 1, -1, RWF_NOWAIT);
	record(K_READ, ret, errno);
	/* The VFS answers a read of 0 bytes without asking the module. */
	if (ret < 0 || !len)
		return;
	if (!f->was_ctl || unpriv)
		violation("read by a non-controller", "fd %d returned %zd", f->fd, ret);
	else if (ret % sizeof(struct fxtrace_packet) || (size_t)ret > len)
		violation("read of partial packets", "len %zu returned %zd", len, ret);
	else if (ret > 0 && pk != PTR_VALID && pk != PTR_STRADDLE)
		violation("read into a bad pointer", "kind %d returned %zd", pk, ret);
}

static void do_write(struct fdent *f)
{
	struct fxtrace_packet *pk = (void *)argpage;
	size_t len = pick_len(), i, n;
	enum ptr_kind kind = pick_ptr_kind();
	ssize_t ret;

	if (len > 2 * PG)
		len = 2 * PG;
	n = len / sizeof(*pk);
	for (i = 0; i < n; i++) {
		pk[i].request = chance(3) ? FXTRACE_PKT_BUFFER_SAVED : below(8);
		pk[i].data16 = below(3);
		pk[i].data32 = below(40);
		pk[i].data64 = chance(2) ? below(4) : edgy();
	}
	note("write(fd %d, %zu, ptr %d)", f->fd, len, kind);
	ret = write(f->fd, kind == PTR_VALID ? (void *)pk : bad_ptr(kind), len);
	record(K_WRITE, ret, errno);
	if (ret < 0 || !len)
		return;
	if (!f->was_ctl || unpriv)
		violation("write by a non-controller", "fd %d returned %zd", f->fd, ret);
	else if (len % sizeof(*pk) || ret % sizeof(*pk))
		violation("write of partial packets", "len %zu returned %zd", len, ret);
	else if (kind != PTR_VALID && kind != PTR_STRADDLE && ret > 0)
		violation("write from a bad pointer", "kind %d returned %zd", kind, ret);
	else
		for (i = 0; i < (size_t)ret / sizeof(*pk); i++)
			if (pk[i].request != FXTRACE_PKT_BUFFER_SAVED)
				violation("write accepted a packet that is not BUFFER_SAVED",
					  "request %u", pk[i].request);
}

static void do_poll(struct fdent *f)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN | POLLOUT };
	int ret = poll(&p, 1, 0);

	record(K_POLL, ret, errno);
}

/* ---- fds --------------------------------------------------------------- */

static void do_open(void)
{
	static const int modes[] = { O_RDWR, O_RDWR, O_RDONLY, O_WRONLY, O_RDWR | O_NONBLOCK };
	int fd;

	if (nfds == MAX_FDS)
		return;
	fd = open(FXTRACE_DEVICE, modes[below(5)] | O_CLOEXEC);
	record(K_OPEN, fd, errno);
	if (fd >= 0)
		fds[nfds++] = (struct fdent){ .fd = fd };
}

static void do_close(void)
{
	int i, ret;

	if (nfds <= 1)
		return;
	i = below(nfds);
	/* A controller is closed now and then, not as often as the rest. */
	if (fds[i].ctl_session && !chance(8))
		return;
	note("close(%d)", fds[i].fd);
	ret = close(fds[i].fd);
	record(K_CLOSE, ret, errno);
	fds[i] = fds[--nfds];
}

/* ---- children and threads ---------------------------------------------- */

static void random_op(bool may_spawn);
static void reset(void);

/*
 * A forked child: no producer mapping may be inherited (VM_DONTCOPY), no
 * buffer of the parent is its own; then random calls.
 */
static void do_fork(void)
{
	pid_t pid;
	int i, status;

	fflush(stdout);
	pid = fork();
	record(K_FORK, pid, errno);
	if (pid < 0)
		return;
	if (pid == 0) {
		unsigned char vec;

		rng ^= (uint64_t)getpid() << 17;
		for (i = 0; i < nmaps; i++) {
			if (maps[i].part == P_PRODUCER &&
			    mincore(maps[i].addr, PG, &vec) == 0)
				violation("fork child inherited a producer mapping",
					  "id %u at %p, %zu bytes, slot %d: %s", maps[i].id,
					  maps[i].addr, maps[i].len, maps[i].slot,
					  mapping_at(maps[i].addr));
		}
		/* Not ours here: forget them, and give their slots up for good. */
		for (i = 0; i < nmaps; i++) {
			if (maps[i].part == P_PRODUCER) {
				maps[i] = maps[--nmaps];
				i--;
			}
		}
		for (i = 0; i < nfds; i++)
			fds[i].inherited = true;
		for (i = 0; i < 40 && !stopping(); i++)
			random_op(false);
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

struct racer {
	pthread_t thread;
	uint64_t seed;
	int fd;
};

/*
 * A racer's refused move leaves a hole in the reserve until it fills it
 * again; another racer's mmap must not be placed there meanwhile (the
 * fill would wipe it, leaving a table entry over anonymous memory).
 */
static pthread_mutex_t racer_vm_lock = PTHREAD_MUTEX_INITIALIZER;

/* A producer thread: attach, map, write, then exit with the mapping kept or not. */
static void *racer_main(void *arg)
{
	struct racer *r = arg;
	struct fxtrace_attach at = { .size = sizeof(at) };
	struct sigaction sa = { .sa_handler = on_fault };
	uint64_t sid = session_id();
	struct bufent *b;
	void *p;
	long ret;

	rng = r->seed | 1;
	sigaction(SIGSEGV, &sa, NULL);
	ret = ioctl(r->fd, FXTRACE_IOC_ATTACH, &at);
	record(K_ATTACH, ret, errno);
	if (ret)
		return NULL;
	pthread_mutex_lock(&tables);
	b = buf_add(at.buffer_id);
	b->owner = getpid();
	b->session = session_id() == sid ? sid : 0;
	b->producer_size = at.producer_size;
	b->producer_mapped = false;
	pthread_mutex_unlock(&tables);
	pthread_mutex_lock(&racer_vm_lock);
	p = mmap(NULL, at.producer_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 at.producer_offset);
	record(K_MMAP, p == MAP_FAILED ? -1 : 0, errno);
	pthread_mutex_unlock(&racer_vm_lock);
	if (p == MAP_FAILED)
		return NULL;
	/*
	 * Mapped only now: set before the mmap, a fuzzing thread's mapping
	 * in between (the first, rightly allowed) was taken for a second one.
	 */
	pthread_mutex_lock(&tables);
	b = buf_find(at.buffer_id);	/* buf_add may have moved it */
	if (b)
		b->producer_mapped = true;
	pthread_mutex_unlock(&tables);
	store64((uint64_t *)p + below(6), edgy());
	switch (below(3)) {
	case 0:
		REC(K_MUNMAP, munmap(p, at.producer_size));
		break;
	case 1: {
		/* Keep the mapping past the thread's exit (the process keeps it). */
		pthread_mutex_lock(&tables);
		if (nmaps < MAX_MAPS && session_id() == sid)
			maps[nmaps++] = (struct ment){
				.addr = p, .len = at.producer_size, .part = P_PRODUCER,
				.id = at.buffer_id, .prot = PROT_READ | PROT_WRITE,
				.slot = -1, .session = sid,
			};
		else
			munmap(p, at.producer_size);
		pthread_mutex_unlock(&tables);
		break;
	}
	default:
		/* Moved into the arena's last slot, or anywhere when too big. */
		if (at.producer_size <= ARENA_SLOT - 4 * PG) {
			char *to = arena + (ARENA_SLOTS - 1) * ARENA_SLOT + PG * below(4);

			pthread_mutex_lock(&racer_vm_lock);
			p = mremap(p, at.producer_size, at.producer_size,
				   MREMAP_MAYMOVE | MREMAP_FIXED, to);
			record(K_MREMAP, p == MAP_FAILED ? -1 : 0, errno);
			/* The refused move left a hole in the reserve: fill it. */
			if (p == MAP_FAILED)
				mmap(to, at.producer_size, PROT_NONE, MAP_PRIVATE |
				     MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
			pthread_mutex_unlock(&racer_vm_lock);
		} else {
			p = mremap(p, at.producer_size, at.producer_size,
				   MREMAP_MAYMOVE);
			record(K_MREMAP, p == MAP_FAILED ? -1 : 0, errno);
		}
		break;
	}
	return NULL;
}

/* Release every retired buffer, as a drainer does on BUFFER_RETIRED. */
static void release_retired(int fd)
{
	struct fxtrace_buffer_info bi = { .size = sizeof(bi) };
	struct fxtrace_buffer_ref ref = { .size = sizeof(ref) };
	long ret;
	int n;

	for (n = 0; n < 64; n++) {
		ret = ioctl(fd, FXTRACE_IOC_BUFFER_INFO, &bi);
		record(K_BUFFER_INFO, ret, errno);
		if (ret)
			return;
		if (bi.state == FXTRACE_BUFFER_RETIRED) {
			ref.id = bi.id;
			ret = ioctl(fd, FXTRACE_IOC_RELEASE_BUFFER, &ref);
			record(K_RELEASE, ret, errno);
		}
		bi.id++;
	}
}

/*
 * Threads attach, map and exit while this thread, the controller, stops,
 * starts, releases and sometimes terminates: the exit hook, munmap and
 * RELEASE race.
 */
static void do_race(void)
{
	struct racer r[3];
	struct fdent *ctl = NULL;
	int i, n, ret;

	for (i = 0; i < nfds; i++)
		if (fds[i].ctl_session && fds[i].ctl_session == session_id())
			ctl = &fds[i];
	check_arena();
	n = 1 + below(3);
	for (i = 0; i < n; i++) {
		r[i].seed = rnd();
		r[i].fd = fds[below(nfds)].fd;
		ret = pthread_create(&r[i].thread, NULL, racer_main, &r[i]);
		record(K_THREAD, ret ? -1 : 0, ret);
		if (ret)
			n = i;
	}
	if (ctl && !unpriv) {
		REC(K_STOP, ioctl(ctl->fd, FXTRACE_IOC_STOP));
		release_retired(ctl->fd);
		if (chance(4)) {
			struct fxtrace_start s = { .size = sizeof(s) };

			REC(K_START, ioctl(ctl->fd, FXTRACE_IOC_START, &s));
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(r[i].thread, NULL);
	if (ctl && !unpriv) {
		release_retired(ctl->fd);
		check_charged(ctl->fd);
	}
}

/* ---- the random walk --------------------------------------------------- */

static void random_op(bool may_spawn)
{
	struct fdent *f;
	unsigned int r = below(1000);

	if (!nfds) {
		do_open();
		return;
	}
	f = &fds[below(nfds)];
	if (nmaps >= MAX_MAPS - 2 && r < 500)
		r = 900;	/* room first */
	if (r < 450)
		do_ioctl(f);
	else if (r < 540)
		do_mmap(f);
	else if (r < 570)
		do_mprotect();
	else if (r < 600)
		do_mremap();
	else if (r < 630)
		do_madvise();
	else if (r < 690)
		poke();
	else if (r < 780)
		do_read(f);
	else if (r < 840)
		do_write(f);
	else if (r < 860)
		do_poll(f);
	else if (r < 880)
		do_open();
	else if (r < 895)
		do_close();
	else if (r < 990)
		do_munmap();
	else if (may_spawn && r < 995)
		do_fork();
	else if (may_spawn && r < 999)
		do_race();
	else if (may_spawn && chance(4))
		reset();
	if (!unpriv && r % 97 == 0) {
		int i;

		for (i = 0; i < nfds; i++)
			if (fds[i].ctl_session && fds[i].ctl_session == session_id())
				check_charged(fds[i].fd);
	}
}

static void cleanup_maps(void)
{
	while (nmaps) {
		REC(K_MUNMAP, munmap(maps[0].addr, maps[0].len));
		map_drop(0);
	}
	while (nfds)
		REC(K_CLOSE, close(fds[--nfds].fd));
}

/*
 * Start afresh: a mapping keeps its file, so a controller closed while
 * mapped keeps the session from everyone else (ADOPT: EBUSY).
 */
static void reset(void)
{
	cleanup_maps();
	do_open();
}

/* A worker: random calls until the phase's budget or the deadline. */
static void worker(void)
{
	struct sigaction sa = { .sa_handler = on_fault };

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	do_open();
	while (!stopping())
		random_op(true);
	cleanup_maps();
}

/* ---- privileges -------------------------------------------------------- */

static int drop_privileges(void)
{
	char line[256];
	FILE *f;
	int ok = 0;

	if (setgroups(0, NULL) || setgid(UNPRIV_UID) || setuid(UNPRIV_UID))
		return -1;
	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, "CapEff:\t0000000000000000\n"))
			ok = 1;
	fclose(f);
	unpriv = true;
	return ok ? 0 : -1;
}

/* ---- a root controller next to the unprivileged phases ----------------- */

static int root_session(int mode)
{
	struct fxtrace_config c = {
		.size = sizeof(c), .mode = mode, .cpu_buffer_size = 16 * PG,
		.task_buffer_size = 16 * PG, .memory_limit = 8 << 20,
		.max_task_buffers = 64,
	};
	struct fxtrace_start s = { .size = sizeof(s) };
	int fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);

	record(K_OPEN, fd, errno);
	if (fd < 0)
		return -1;
	REC(K_INIT, ioctl(fd, FXTRACE_IOC_INIT, &c));
	REC(K_START, ioctl(fd, FXTRACE_IOC_START, &s));
	return fd;
}

/* Adopt whatever session is left and end it. */
static void end_session(void)
{
	int fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	if (!ioctl(fd, FXTRACE_IOC_ADOPT))
		ioctl(fd, FXTRACE_IOC_TERMINATE);
	close(fd);
}

/* The drainer's part, roughly: read packets, ack saves, release, restart. */
static void controller_step(int *fd)
{
	struct fxtrace_packet pk[16];
	ssize_t n;
	int i;

	n = read(*fd, pk, sizeof(pk));	/* O_NONBLOCK */
	record(K_READ, n, errno);
	for (i = 0; i < n / (ssize_t)sizeof(pk[0]); i++) {
		if (pk[i].request != FXTRACE_PKT_SAVE_BUFFER)
			continue;
		pk[i].request = FXTRACE_PKT_BUFFER_SAVED;
		REC(K_WRITE, write(*fd, &pk[i], sizeof(pk[i])));
	}
	release_retired(*fd);
	switch (below(40)) {
	case 0:
		REC(K_STOP, ioctl(*fd, FXTRACE_IOC_STOP));
		break;
	case 1: {
		struct fxtrace_start s = { .size = sizeof(s), .disposition = below(3) };

		REC(K_START, ioctl(*fd, FXTRACE_IOC_START, &s));
		break;
	}
	case 2:
		REC(K_TERMINATE, ioctl(*fd, FXTRACE_IOC_TERMINATE));
		REC(K_CLOSE, close(*fd));
		*fd = root_session(below(3));
		if (*fd >= 0)
			fcntl(*fd, F_SETFL, O_NONBLOCK);
		break;
	}
}

/* ---- phases ------------------------------------------------------------ */

enum phase_kind { PH_ROOT, PH_UNPRIV_LIVE, PH_UNPRIV_ORPHAN };

static void print_histogram(const struct stats *st)
{
	int k, e;

	for (k = 0; k < NKINDS; k++) {
		char line[2048];
		size_t at = 0;
		long total = 0;

		for (e = 0; e < NERR; e++)
			total += st->hist[k][e];
		if (!total)
			continue;
		at += snprintf(line + at, sizeof(line) - at, "#   %-22s %8ld:", kind_name[k], total);
		for (e = 0; e < NERR && at < sizeof(line) - 40; e++) {
			const char *name;

			if (!st->hist[k][e])
				continue;
			name = e == 0 ? "ok" : e == NERR - 1 ? "other" : strerrorname_np(e);
			at += snprintf(line + at, sizeof(line) - at, " %s=%ld",
				       name ? name : "?", st->hist[k][e]);
		}
		printf("%s\n", line);
	}
}

static int run_phase(int n, enum phase_kind kind, uint64_t seed, long calls,
		     double end)
{
	static const char *const names[] = {
		"root", "uid 65534 next to a live root session",
		"uid 65534 next to an orphaned root session",
	};
	double t0 = now();
	int ctl = -1, status = 0;
	pid_t pid;

	phase = names[kind];
	memset(st, 0, sizeof(*st));
	memset(ctl_st, 0, sizeof(*ctl_st));
	st->budget = calls;
	deadline = end;
	end_session();
	in_controller = true;	/* the worker's counts start after fork */
	if (kind != PH_ROOT) {
		ctl = root_session(kind == PH_UNPRIV_LIVE ? FXTRACE_MODE_STREAMING :
				   FXTRACE_MODE_CIRCULAR);
		if (ctl < 0) {
			printf("not ok %d %s # cannot open %s: %s\n", n, phase,
			       FXTRACE_DEVICE, strerror(errno));
			return 1;
		}
		fcntl(ctl, F_SETFL, O_NONBLOCK);
		if (kind == PH_UNPRIV_ORPHAN) {
			close(ctl);	/* the session stays, stopped and orphaned */
			ctl = -1;
		}
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("not ok %d %s # fork: %s\n", n, phase, strerror(errno));
		return 1;
	}
	if (pid == 0) {
		in_controller = false;
		rng = seed ^ (0x9e3779b97f4a7c15ULL * (n + 1));
		if (kind != PH_ROOT && drop_privileges()) {
			printf("# %s: cannot drop privileges: %s\n", phase, strerror(errno));
			_exit(2);
		}
		worker();
		_exit(0);
	}
	rng = seed ^ 0x5555;
	/* The live session's controller works until the worker is done. */
	while (ctl >= 0 && waitpid(pid, &status, WNOHANG) == 0) {
		controller_step(&ctl);
		poll(NULL, 0, 2);
	}
	if (ctl < 0)
		waitpid(pid, &status, 0);
	if (ctl >= 0)
		close(ctl);
	end_session();
	in_controller = false;

	printf("# phase %d (%s): %ld calls in %.1f s (%.0f calls/s), %ld violations\n",
	       n, phase, st->calls, now() - t0, st->calls / (now() - t0), st->violations);
	print_histogram(st);
	if (ctl_st->calls) {
		printf("# the root controller next to it: %ld calls\n", ctl_st->calls);
		print_histogram(ctl_st);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("not ok %d %s # the worker ended with status %#x\n", n, phase, status);
		return 1;
	}
	if (st->violations) {
		printf("not ok %d %s # %ld calls succeeded where they must fail\n", n,
		       phase, st->violations);
		return 1;
	}
	if (st->calls < calls) {
		printf("not ok %d %s # only %ld of %ld calls before the time limit\n", n,
		       phase, st->calls, calls);
		return 1;
	}
	printf("ok %d %s\n", n, phase);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	long calls = 200000, done = 0;
	double seconds = 240, t0;
	int opt, failed = 0;

	while ((opt = getopt(argc, argv, "s:n:t:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': calls = strtol(optarg, NULL, 0); break;
		case 't': seconds = strtod(optarg, NULL); break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-n CALLS] [-t SECONDS]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..3\n");
	printf("# fuzz: seed %llu, %ld calls, at most %.0f s (replay: %s -s %llu -n %ld)\n",
	       (unsigned long long)seed, calls, seconds, argv[0],
	       (unsigned long long)seed, calls);
	if (access(FXTRACE_DEVICE, F_OK)) {
		for (int i = 1; i <= 3; i++)
			printf("ok %d # SKIP " FXTRACE_DEVICE " is absent: load fxtrace.ko\n", i);
		return 0;
	}
	if (geteuid() != 0) {
		for (int i = 1; i <= 3; i++)
			printf("ok %d # SKIP needs root (it fuzzes as root and as uid 65534)\n", i);
		return 0;
	}
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ctl_st = malloc(sizeof(*ctl_st));
	argpage = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	arena = mmap(NULL, ARENA_SLOTS * ARENA_SLOT, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (st == MAP_FAILED || !ctl_st || argpage == MAP_FAILED || arena == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		return 1;
	}
	mprotect(argpage + 2 * PG, PG, PROT_NONE);
	{
		int fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);

		spage = fd < 0 ? MAP_FAILED : mmap(NULL, FXTRACE_SESSION_MAP_SIZE,
						   PROT_READ, MAP_SHARED, fd, 0);
		if (fd >= 0)
			close(fd);
		if (spage == MAP_FAILED) {
			printf("Bail out! %s: %s (is fxtrace.ko loaded?)\n",
			       FXTRACE_DEVICE, strerror(errno));
			return 1;
		}
	}

	t0 = now();
	failed |= run_phase(1, PH_ROOT, seed, calls / 2, t0 + seconds / 2);
	done += st->calls;
	failed |= run_phase(2, PH_UNPRIV_LIVE, seed, calls / 4, t0 + seconds * 3 / 4);
	done += st->calls;
	failed |= run_phase(3, PH_UNPRIV_ORPHAN, seed, calls - calls / 2 - calls / 4,
			    t0 + seconds);
	done += st->calls;
	printf("# fuzz: seed %llu: %ld calls in %.1f s (%.0f calls/s)\n",
	       (unsigned long long)seed, done, now() - t0, done / (now() - t0));
	return failed;
}
