// SPDX-License-Identifier: GPL-2.0
/*
 * libfxtrace runtime.  Every thread writes FXT records into a buffer of its
 * own, with the layout of a module per-task buffer (Documentation/uapi.rst):
 * a durable part for the string and thread records that events refer to,
 * two rolling halves for the events, and a control block where the thread
 * publishes how much of each part holds whole records.  Each buffer is one
 * FXT provider with its own string and thread tables.
 *
 * Two backends share that code:
 * - with /dev/fxtrace (the default), the buffer is the thread's per-task
 *   buffer, mapped from the module; the session page's enable table says
 *   which categories are on, and the controller reads the buffers;
 * - without it, or when FXTRACE_OUTPUT is set ("user-only"), buffers live
 *   in a spool file of this process and become one .fxt file at exit or
 *   fxt_flush().  Every process of a traced tree has its own spool and
 *   output (Documentation/api.rst, "Processes").
 *
 * Who touches what:
 * - the thread itself writes its buffer: the common event inline in
 *   <fxtrace/trace.h> (fxt_write_), everything else here (fxt_emit), and
 *   publishes each part's length with a release store after the words;
 * - readers (the controller, or fxt_flush()) read up to the published
 *   lengths; a flush copies a half and keeps the copy only when the writer
 *   did not move into that half meanwhile (wrap_count, a sequence count);
 * - call sites are resolved once under rt.lock: a category's enable byte,
 *   process-wide string indexes, the event's header words.  A thread's
 *   buffer defines the process-wide strings in index order (ndefined), so
 *   one comparison tells whether a site's strings are defined there.
 * Signals: fxt_tls.busy is set whenever the thread is inside the library
 * (the inline writer, fxt_emit, resolution, attach, flush); an event from a
 * handler that interrupted it is dropped and counted, never waits.  Nothing
 * an event can reach calls malloc or stdio.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <linux/fxt.h>
#include <linux/fxtrace.h>

#include <fxtrace/trace.h>

#include "fxtctl.h"
#include "output_file.h"
#include "size.h"

#define MAX_CATEGORIES		1024
#define MAX_PATTERNS		64
#define DEFAULT_BUFFER_SIZE	(1 << 20)
#define MIN_BUFFER_SIZE		(16 << 10)
#define MAX_BUFFER_SIZE		FXTCTL_SPOOL_DATA_MAX	/* what recover reads */
#define THREAD_INDEX		1	/* each buffer's own thread */
#define ARENA_SIZE		(64 << 10)	/* a chunk of interned strings */
#define ARENA_CHUNKS_MAX	64	/* 4 MiB of them: then strings go inline */
#define CALIBRATION_NS		20000000ULL
#define BACKOFF_MIN_NS		1000000ULL	/* attach retries: 1 ms .. 1 s */
#define BACKOFF_MAX_NS		1000000000ULL
#define ROOT_ENV		"FXTRACE_OUTPUT_ROOT"

const unsigned char fxt_unresolved = 1;
volatile unsigned char fxt_clock_tsc;
__thread struct fxt_thread_state fxt_tls
	__attribute__((tls_model("initial-exec")));
static const unsigned char category_off;
static const __u64 no_generation;
/* fxt_tls.committed in a child forked inside the library: child_after_fork() */
static __thread uint64_t interrupted_committed
	__attribute__((tls_model("initial-exec")));

struct tbuf {
	struct tbuf *next;		/* rt.threads */
	pid_t pid, tid;
	char name[64];
	__u64 *durable;
	__u32 durable_cap, durable_len;
	__u32 durable_reserved;		/* the module's records come first */
	__u64 *half[2];
	__u32 half_cap;
	/*
	 * Words of each half backed by disk blocks (user-only: the spool is
	 * sparse, and a store into a hole of a full file system is SIGBUS).
	 * The inline writer's limit stops there; the slow path backs more.
	 */
	__u32 backed[2];
	__u32 durable_backed;		/* words of the durable part, too */
	__u64 *end;			/* the end of the half being written */
	off_t spool_off;		/* user-only: the region's offset */
	unsigned int cur;		/* the half being written */
	__u64 wraps;
	__u64 lost_written;		/* rt.lost last recorded here */
	struct fxtrace_buffer_control *ctl;	/* published lengths, bytes */
	/* With the module: */
	const struct fxtrace_buffer_header *hdr;
	void *map;
	size_t map_size;
	__u32 buffer_id;
	__u64 session_id, start_seq;
};

static __thread struct tbuf *self __attribute__((tls_model("initial-exec")));
/* Attach failures of this thread: the next try after a bounded backoff. */
static __thread __u64 retry_at_ns __attribute__((tls_model("initial-exec")));
static __thread __u64 backoff_ns __attribute__((tls_model("initial-exec")));
/* A name set before the thread's first event (fxt_set_thread_name). */
static __thread char pending_name[64] __attribute__((tls_model("initial-exec")));
/*
 * With the module: the thread's buffer when it could not be mapped, and
 * the session id read just after its attach, the last session it can be
 * of.  The kernel keeps it attached until its producer part is unmapped
 * (FXTRACE_IOC_ATTACH says EEXIST meanwhile): a retry maps it.
 */
static __thread struct fxtrace_attach unmapped
	__attribute__((tls_model("initial-exec")));
static __thread __u64 unmapped_session __attribute__((tls_model("initial-exec")));

static struct {
	pthread_mutex_t lock;		/* resolution, thread list, flush */
	bool initialized, on;
	bool module;			/* buffers come from /dev/fxtrace */
	bool root;			/* user-only: the tree's first process */
	unsigned int mode;		/* enum fxtrace_mode */
	size_t buffer_size;
	char output_base[4096];		/* FXTRACE_OUTPUT */
	char output[4096 + 32];		/* this process's output */
	bool tsc;
	__u64 ticks_per_second;
	__u64 calib_ns, calib_tsc;	/* the calibration's start */
	__s64 monotonic_offset;		/* of our time namespace */
	int fd;				/* /dev/fxtrace */
	int spool_fd;			/* user-only: OUTPUT.spool, lazily */
	off_t spool_size;
	/*
	 * Address space reserved for the spool's regions, each mapped at its
	 * place in it, so that the kernel merges them into one mapping (one
	 * per thread would reach vm.max_map_count, 65,530, at about 32,000
	 * threads over the process's life).  Reserved as needed, twice the
	 * last each time, when the last is full (every region is the same
	 * size, so none is left unused): PROT_NONE still counts against
	 * RLIMIT_AS, which the program may lower after its first event.  NULL: not reserved yet, or not possible (32-bit,
	 * RLIMIT_AS): one mapping per region.
	 */
	char *spool_base;
	size_t spool_reserve;		/* its bytes */
	off_t spool_base_off;		/* the spool offset mapped at spool_base */
	bool spool_base_failed;
	bool spool_sparse;		/* no fallocate() there: holes stay */
	bool loaded;			/* set_up() done */
	__u32 next_provider;
	const struct fxtrace_session_page *page;
	const volatile unsigned char *enable_table;
	/*
	 * The low byte of page->state: not 0 while a session exists.  Sites
	 * of a category the module refused (module_enable_byte()) point here.
	 */
	const volatile unsigned char *session_byte;
	__u64 retried_generation;	/* page->generation of the last retry */
	pthread_key_t exit_key;
	char pattern_text[4096];
	char *patterns[MAX_PATTERNS];
	bool pattern_used[MAX_PATTERNS];
	unsigned int npatterns;
	/* Process-wide strings, index i in 1..nstrings, valid UTF-8. */
	const char *strings[FXT_STRING_INDEX_MAX + 1];
	__u16 string_len[FXT_STRING_INDEX_MAX + 1];
	unsigned int nstrings;		/* release-stored after the entry */
	char *arena;			/* copies of the strings, in chunks */
	char *arena_chunk[ARENA_CHUNKS_MAX];	/* every chunk, for dlclose */
	size_t arena_used;
	unsigned int arena_chunks;
	__u16 category_string[MAX_CATEGORIES];
	unsigned char category_enabled[MAX_CATEGORIES];
	const volatile unsigned char *category_byte[MAX_CATEGORIES];
	unsigned int ncategories;	/* release-stored after the entry */
	/*
	 * Every buffer: user-only, for the flush; with the module, the
	 * mapped ones, for the last destructor to retire.
	 */
	struct tbuf *threads;
	__u64 lost;			/* events without a buffer (atomic) */
	/*
	 * The session whose pid filter leaves this process out (ATTACH said
	 * EPERM), 0 for none: its events are not for that trace, so they
	 * are neither attached again nor counted lost (atomic).
	 */
	__u64 untraced_session;
	bool warned_attach, warned_spool;
	bool exit_marker;		/* mark_exit() registered */
	bool exit_begun;		/* mark_exit() called */
} rt = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .spool_fd = -1 };

/* ---- small helpers ---------------------------------------------------- */

/* One line to stderr with write(2): usable from a signal handler. */
__attribute__((format(printf, 1, 2))) static void warn(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	memcpy(line, "libfxtrace: ", 12);
	va_start(ap, fmt);
	n = vsnprintf(line + 12, sizeof(line) - 13, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = 12 + (n > (int)sizeof(line) - 14 ? (int)sizeof(line) - 14 : n);
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/*
 * err's description for a warning.  Not strerror(): it translates the
 * text in the caller's locale and may allocate (an unknown errno's text
 * always does), and a warning may come from a signal handler.
 * strerrordesc_np() (glibc 2.32) only reads glibc's table: the English
 * text, as strerror() gives it in the C locale.
 */
static const char *error_text(int err)
{
	const char *text = strerrordesc_np(err);

	return text ? text : "unknown error";
}

/*
 * Cancellation is off while rt.lock is held: open(), fallocate() and
 * write() under it are cancellation points, and a thread cancelled there
 * left the lock taken, so every other thread's next event that takes it,
 * and the flush at exit, waited forever.  Outside the lock a cancelled
 * thread loses the event it was writing, nothing more.
 */
static __thread int cancel_state __attribute__((tls_model("initial-exec")));

static void lock(void)
{
	int state;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	pthread_mutex_lock(&rt.lock);
	cancel_state = state;
}

static void unlock(void)
{
	pthread_mutex_unlock(&rt.lock);
	pthread_setcancelstate(cancel_state, NULL);
}

/* Mark the thread inside the library; false when it already was. */
static bool enter(void)
{
	if (fxt_tls.busy)
		return false;
	fxt_tls.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

static void leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fxt_tls.busy = 0;
}

/*
 * The length of s[0..len) as valid UTF-8 of at most max bytes: each byte
 * that does not start a well-formed character becomes U+FFFD (three
 * bytes: the result may be longer than s), and the cut never splits a
 * character.  With out (max bytes), writes it.
 */
static __u32 utf8_fix_max(const char *s, size_t len, char *out, __u32 max)
{
	static const char fffd[] = "\xef\xbf\xbd";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	__u32 n = 0, k, c;

	while (i < len) {
		c = u[i];
		k = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 :
		    c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (k > 1) {
			unsigned int lo = 0x80, hi = 0xbf, j;

			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
			else if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
			if (i + k > len || u[i + 1] < lo || u[i + 1] > hi)
				k = 0;
			for (j = 2; k && j < k; j++)
				if ((u[i + j] & 0xc0) != 0x80)
					k = 0;
		}
		if (n + (k ? k : 3) > max)
			break;
		if (out)
			memcpy(out + n, k ? s + i : fffd, k ? k : 3);
		n += k ? k : 3;
		i += k ? k : 1;
	}
	return n;
}

/* At most FXT_STRING_LEN_MAX bytes, FXT's limit. */
static __u32 utf8_fix(const char *s, size_t len, char *out)
{
	return utf8_fix_max(s, len, out, FXT_STRING_LEN_MAX);
}

/* Write s as a zero-padded stream, made valid; returns the words. */
static __u32 write_text(__u64 *dst, const char *s, size_t len, __u32 fixed)
{
	__u32 words = fxt_stream_words(fixed);

	if (!words)
		return 0;
	dst[words - 1] = 0;
	if (fixed == len)
		memcpy(dst, s, len);
	else
		utf8_fix(s, len, (char *)dst);
	return words;
}

/* ---- clock --------------------------------------------------------------- */

static __u64 clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void initialize_once(void);

/*
 * Before the first event the clock is not chosen yet: a start time taken
 * then (TRACE_COMPLETE) must be on the clock the event is written with.
 */
uint64_t fxt_now(void)
{
	if (__builtin_expect(!__atomic_load_n(&rt.initialized, __ATOMIC_ACQUIRE),
			     0))
		initialize_once();
	if (fxt_clock_tsc)
		return __rdtsc();
	return clock_ns(CLOCK_MONOTONIC) - (__u64)rt.monotonic_offset;
}

/* The TSC when the CPU says it is invariant (CPUID 0x80000007 EDX bit 8). */
static bool tsc_invariant(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1U << 8));
}

/*
 * User-only ticks per second: calibrated against CLOCK_MONOTONIC_RAW from
 * the library's load, so that the first buffer rarely waits for the 20 ms.
 */
static void finish_calibration(void)
{
	__u64 n1, t1;

	if (rt.ticks_per_second)
		return;
	if (!rt.tsc) {
		rt.ticks_per_second = 1000000000ULL;
		return;
	}
	do
		n1 = clock_ns(CLOCK_MONOTONIC_RAW);
	while (n1 - rt.calib_ns < CALIBRATION_NS);
	t1 = __rdtsc();
	rt.ticks_per_second = (t1 - rt.calib_tsc) * 1000000000ULL /
			      (n1 - rt.calib_ns);
}

/* ---- configuration ------------------------------------------------------- */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * FXTRACE_CATEGORIES: comma-separated globs, blanks around each ignored.
 * Empty entries are reported once; with none left every category is on.
 */
static void parse_categories(const char *list)
{
	char *p = rt.pattern_text, *tok, *end;
	unsigned int empty = 0;

	snprintf(rt.pattern_text, sizeof(rt.pattern_text), "%s", list);
	if (strlen(list) >= sizeof(rt.pattern_text)) {
		/* Whole entries only: a glob cut short matches other names. */
		end = strrchr(rt.pattern_text, ',');
		*(end ? end : rt.pattern_text) = 0;
		warn("FXTRACE_CATEGORIES is longer than %zu bytes: the entries from byte %zu on are ignored",
		     sizeof(rt.pattern_text) - 1,
		     end ? (size_t)(end - rt.pattern_text) + 1 : 0);
	}
	while (p) {
		tok = p;
		p = strchr(p, ',');
		if (p)
			*p++ = 0;
		while (blank(*tok))
			tok++;
		end = tok + strlen(tok);
		while (end > tok && blank(end[-1]))
			*--end = 0;
		if (!*tok)
			empty++;
		else if (rt.npatterns < MAX_PATTERNS)
			rt.patterns[rt.npatterns++] = tok;
		else
			warn("FXTRACE_CATEGORIES: more than %d entries; \"%s\" ignored",
			     MAX_PATTERNS, tok);
	}
	if (empty)
		warn("FXTRACE_CATEGORIES=\"%s\": %u empty entr%s ignored%s", list,
		     empty, empty > 1 ? "ies" : "y",
		     rt.npatterns ? "" : "; tracing every category");
	if (!rt.npatterns)
		rt.patterns[rt.npatterns++] = (char *)"*";
}

static void thread_exit(void *arg);
static void child_after_fork(void);

/*
 * The C++ ABI's exit functions with an owner (glibc, musl): exit() calls
 * every one, __cxa_finalize(dso) those registered with dso, and frees
 * their entries.
 */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
extern void __cxa_finalize(void *dso);

/* The owner of mark_exit()'s registration: this copy's, no object's. */
static char exit_marker_owner;

/* exit() calls it before the first destructor. */
static void mark_exit(void *arg)
{
	(void)arg;
	rt.exit_begun = true;
}

/*
 * exit() calls every function registered with __cxa_atexit() before the
 * first destructor; dlclose() only those of the object it closes, and
 * mark_exit() is registered for exit_marker_owner, no object: set, the
 * destructor runs at exit.  At a dlclose() the destructor calls the
 * registration away (forget_exit_marker()), so that exit() does not call
 * into the closed copy.
 */
static void register_exit_marker(void)
{
	rt.exit_marker = !__cxa_atexit(mark_exit, NULL, &exit_marker_owner);
}

static void forget_exit_marker(void)
{
	if (rt.exit_marker)
		__cxa_finalize(&exit_marker_owner);
}

/* The initial time namespace's inode (PROC_TIME_INIT_INO, Linux 5.6). */
#define TIME_NS_INIT_INO	0xeffffffaU

/*
 * The CLOCK_MONOTONIC offset of this process's time namespace, in ns, as
 * FXTRACE_IOC_ATTACH reports it, for fxt_now() before the first event's
 * attach, and in a forked child (child_after_fork()).  timens_offsets
 * shows the namespace of the process's children: after
 * unshare(CLONE_NEWTIME), and an exec that stayed (unshare(1) without
 * --fork, Linux 6.1), it is not the process's own.  Only when the
 * two are one are its offsets ours; the initial namespace has none.  Left
 * at 0 (no namespace, or a new one not entered) until the attach.
 */
static __s64 time_namespace_offset(void)
{
	static const char key[] = "monotonic";
	struct stat own, children;
	char buf[128], *p, *end;
	long long sec, nsec;
	ssize_t n = -1;
	int fd;

	if (stat("/proc/self/ns/time", &own) ||
	    own.st_ino == TIME_NS_INIT_INO ||
	    stat("/proc/self/ns/time_for_children", &children) ||
	    children.st_ino != own.st_ino || children.st_dev != own.st_dev)
		return 0;
	fd = open("/proc/self/timens_offsets", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strstr(buf, key);
	if (!p)
		return 0;
	/* "monotonic <sec> <nsec>": nsec in [0, 1e9), sec may be negative */
	sec = strtoll(p + sizeof(key) - 1, &end, 10);
	nsec = strtoll(end, &end, 10);
	return sec * 1000000000LL + nsec;
}

/* Map the module's session page, when /dev/fxtrace is there. */
static bool open_module(void)
{
	const struct fxtrace_session_page *page;
	int fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	page = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED, fd,
		    FXTRACE_MMAP_SESSION);
	if (page == MAP_FAILED) {
		warn("cannot map the session page of %s: %s; not tracing",
		     FXTRACE_DEVICE, error_text(errno));
		close(fd);
		return false;
	}
	if (page->magic != FXTRACE_SESSION_MAGIC ||
	    page->abi_major != FXTRACE_ABI_MAJOR) {
		warn("%s speaks ABI %u, this library %u; not tracing",
		     FXTRACE_DEVICE, page->abi_major, FXTRACE_ABI_MAJOR);
		munmap((void *)page, FXTRACE_SESSION_MAP_SIZE);
		close(fd);
		return false;
	}
	rt.fd = fd;
	rt.page = page;
	rt.enable_table = (const unsigned char *)page + page->enabled_offset;
	/* Every state is below 256: its low byte is 0 only for NONE. */
	rt.session_byte = (const unsigned char *)&page->state +
			  (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
			   sizeof(page->state) - 1 : 0);
	/* The current session's clock, for fxt_now() before any event. */
	rt.monotonic_offset = time_namespace_offset();
	fxt_clock_tsc = page->clock == FXTRACE_CLOCK_TSC;
	return true;
}

/*
 * Load time: what may allocate or is not async-signal-safe happens here, so
 * that an event (possibly from a signal handler) never does it.  Priority
 * 101, the first: linked statically, the program's own constructors (C++
 * static objects) would otherwise run first, and their events found no
 * exit key, no TSC and no calibration.  A process
 * that finds FXTRACE_OUTPUT set and no ROOT_ENV is the root of a traced
 * tree: it marks the environment so that programs it runs know they are not.
 *
 * The FXTRACE_* settings come through secure_getenv(): a setuid, setgid or
 * file-capability program (AT_SECURE) must not write where its caller says.
 * ROOT_ENV stays on getenv(): it only ever demotes OUTPUT to OUTPUT.PID.
 */
/*
 * A relative FXTRACE_OUTPUT names a file in the directory the process
 * starts in: made absolute here, in the environment, so that a process
 * that changes directory (a daemon's chdir("/")) writes its spool and its
 * trace there still, and so do the programs it runs.
 */
static void absolute_output(void)
{
	const char *out = secure_getenv("FXTRACE_OUTPUT");
	char cwd[4096], path[sizeof(rt.output_base)];
	int n;

	if (!out || !*out || *out == '/' || !getcwd(cwd, sizeof(cwd)))
		return;
	n = snprintf(path, sizeof(path), "%s/%s", cwd, out);
	if (n > 0 && (size_t)n < sizeof(path))
		setenv("FXTRACE_OUTPUT", path, 1);
}

/*
 * Once, under rt.lock: from load(), or from configure() when an event
 * comes first.  Priority 101 is the first a program may use, not one
 * before it: a constructor of the program's at 101 too (a C++ object's
 * init_priority(101)), linked before the library, runs before load().
 */
static void set_up(void)
{
	char pid[16];

	if (rt.loaded)
		return;
	rt.loaded = true;
	pthread_atfork(NULL, NULL, child_after_fork);
	pthread_key_create(&rt.exit_key, thread_exit);
	register_exit_marker();
	rt.tsc = tsc_invariant();
	rt.calib_ns = clock_ns(CLOCK_MONOTONIC_RAW);
	rt.calib_tsc = __rdtsc();
	absolute_output();
	if (secure_getenv("FXTRACE_OUTPUT") && !getenv(ROOT_ENV)) {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv(ROOT_ENV, pid, 1);
		rt.root = true;
	}
}

/*
 * Inside the library, as every path that takes rt.lock: a signal handler
 * that interrupts the set-up has its events dropped, not waiting for the
 * lock its own thread holds.
 */
__attribute__((constructor(101))) static void load(void)
{
	if (!enter())
		return;
	lock();
	set_up();
	unlock();
	leave();
}

/* Once, under rt.lock: initialize() marks it done when it is. */
static void configure(void)
{
	const char *out, *cats, *mode, *size;

	set_up();	/* an event before load(): FXTRACE_OUTPUT absolute */
	if (!rt.exit_marker) {
		/* Unmapping what threads may still write at exit faults. */
		warn("cannot register an exit function; not tracing");
		return;
	}
	out = secure_getenv("FXTRACE_OUTPUT");
	cats = secure_getenv("FXTRACE_CATEGORIES");
	mode = secure_getenv("FXTRACE_MODE");
	size = secure_getenv("FXTRACE_BUFFER_SIZE");
	if (!out && getenv("FXTRACE_OUTPUT"))
		warn("FXTRACE_OUTPUT is ignored in a setuid, setgid or "
		     "file-capability program");
	if (!out || !*out) {
		/* The controller decides modes, sizes and categories. */
		rt.module = open_module();
		rt.on = rt.module;
		return;
	}
	if (strlen(out) >= sizeof(rt.output_base)) {
		warn("FXTRACE_OUTPUT is too long; not tracing");
		return;
	}
	/* Set by this process after load (tests do): no tree above it. */
	if (!getenv(ROOT_ENV))
		rt.root = true;
	strcpy(rt.output_base, out);
	rt.mode = FXTRACE_MODE_ONESHOT;
	if (mode && !strcmp(mode, "circular")) {
		rt.mode = FXTRACE_MODE_CIRCULAR;
	} else if (mode && strcmp(mode, "oneshot")) {
		warn("FXTRACE_MODE=%s: oneshot or circular without the module;"
		     " not tracing", mode);
		return;
	}
	rt.buffer_size = DEFAULT_BUFFER_SIZE;
	if (size) {
		uint64_t v;

		if (fxtctl_parse_size(size, MAX_BUFFER_SIZE, &v) ||
		    v < MIN_BUFFER_SIZE) {
			warn("FXTRACE_BUFFER_SIZE=%s: 16K to 1024M (K and M suffixes); not tracing",
			     size);
			return;
		}
		/* Whole pages: a spool region's parts then fill it exactly. */
		rt.buffer_size = (v + FXTRACE_BUFFER_PAGE_SIZE - 1) /
				 FXTRACE_BUFFER_PAGE_SIZE *
				 FXTRACE_BUFFER_PAGE_SIZE;
	}
	parse_categories(cats && *cats ? cats : "*");
	fxt_clock_tsc = rt.tsc;
	rt.on = true;
}

/*
 * Called once, under rt.lock.  initialized is stored last (release):
 * fxt_now() reads it without the lock, and then the clock.
 */
static void initialize(void)
{
	configure();
	__atomic_store_n(&rt.initialized, true, __ATOMIC_RELEASE);
}

/* fxt_now()'s: not from a handler that interrupted the library. */
static void initialize_once(void)
{
	if (!enter())
		return;
	lock();
	if (!rt.initialized)
		initialize();
	unlock();
	leave();
}

/*
 * This process's start on CLOCK_REALTIME, in ns: its start on
 * CLOCK_BOOTTIME (/proc/self/stat's starttime, in clock ticks, rounded
 * down) plus where CLOCK_BOOTTIME's zero is on CLOCK_REALTIME now.  Both
 * are shown in this process's time namespace.  0 when unknown.  Only
 * open(), read() and clock_gettime(): fxt_flush() may run in a handler.
 */
static __s64 process_start_ns(void)
{
	__s64 real = (__s64)clock_ns(CLOCK_REALTIME);
	__s64 boot = (__s64)clock_ns(CLOCK_BOOTTIME);
	long hz = sysconf(_SC_CLK_TCK);
	char buf[1024], *p;
	__u64 ticks = 0;
	ssize_t len;
	int fd, field;

	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0 || hz <= 0)
		return 0;
	buf[len] = 0;
	/* Field 22; the name (field 2) ends at the last ')'. */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || *++p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		ticks = ticks * 10 + (__u64)(*p++ - '0');
	return real - boot + (__s64)(ticks * (1000000000ULL / (__u64)hz));
}

/*
 * Whether a file at path takes the name.  A trace written since this
 * process started (to a second) is its own: a closed copy of the library
 * in it (a plugin's) wrote it.  An older one is stale (an earlier process
 * with this pid) and is replaced, if the flush can replace it: a file it
 * refuses (another user's, hard-linked, not regular) takes the name, or
 * the flush would fail and the trace be lost.
 * The start is rounded down, and a local file's mtime is at most a
 * kernel tick behind: the second covers both, so a misjudgement can only
 * take a stale trace for this process's and cost the next name.  This
 * process's trace is replaced only if the mtime is further off:
 * CLOCK_REALTIME set forward between the two copies, FAT's 2 s times, an
 * NFS server's clock behind ours (Documentation/api.rst).  *start is 0
 * until read, then kept for the next names.
 */
static bool name_taken(const char *path, __s64 *start)
{
	struct stat st;

	if (lstat(path, &st))
		return false;
	if (!fxtctl_output_replaceable(&st))
		return true;
	if (!*start)
		*start = process_start_ns() - 1000000000LL;
	return (__s64)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec >=
	       *start;
}

/*
 * User-only: this process's spool and output, created exclusively so that
 * no process truncates another's: the root takes OUTPUT, every other
 * process (forked, or a traced program it ran) OUTPUT.PID, then
 * OUTPUT.PID.N (N up to 99) if that is taken (a program exec'd by a
 * traced process keeps its pid).  Under rt.lock.
 */
static int open_spool(void)
{
	char path[sizeof(rt.output) + 8];
	__s64 start = 0;
	int i, err = 0;

	if (rt.spool_fd >= 0)
		return 0;
	for (i = rt.root ? -1 : 0; i < 100; i++) {
		if (i < 0)
			snprintf(rt.output, sizeof(rt.output), "%s", rt.output_base);
		else if (!i)
			snprintf(rt.output, sizeof(rt.output), "%s.%d",
				 rt.output_base, (int)getpid());
		else
			snprintf(rt.output, sizeof(rt.output), "%s.%d.%d",
				 rt.output_base, (int)getpid(), i);
		snprintf(path, sizeof(path), "%s.spool", rt.output);
		/* This process's trace without a spool is taken too. */
		if (i >= 0 && name_taken(rt.output, &start)) {
			err = EEXIST;
			continue;
		}
		rt.spool_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
				   0600);
		if (rt.spool_fd >= 0)
			break;
		err = errno;
		if (err != EEXIST)
			break;
		if (i < 0)
			warn("%s exists (another traced process, or a crash: "
			     "`fxtrace recover` makes it a trace); this process "
			     "writes %s.%d", path, rt.output_base, (int)getpid());
	}
	if (rt.spool_fd < 0) {
		/* Said once: attach reports the threads left without a buffer. */
		bool said = __atomic_exchange_n(&rt.warned_spool, true,
						__ATOMIC_RELAXED);

		if (!said && i == 100)
			warn("%s.%d and %s.%d.1 to .99 are all taken (traces "
			     "this process wrote, or spools: `fxtrace recover` "
			     "makes them traces)",
			     rt.output_base, (int)getpid(), rt.output_base,
			     (int)getpid());
		else if (!said)
			warn("cannot create %s: %s", path, error_text(err));
		rt.output[0] = 0;
		return -err;
	}
	rt.spool_size = 0;
	rt.next_provider = 1;
	return 0;
}

/* ---- strings and categories (under rt.lock) ------------------------------ */

/*
 * The process-wide index of s, 0 when the table or the memory for copies
 * is full (the string then goes inline).  Every string is copied, made
 * valid: even a literal may be gone later, with the library that held it
 * (dlclose), while threads still define it.
 */
static __u16 intern(const char *s)
{
	static char fixed_s[FXT_STRING_LEN_MAX + 1];	/* under rt.lock */
	size_t len = strnlen(s, FXT_STRING_LEN_MAX + 4);
	unsigned int i;
	__u32 fixed;
	char *keep;
	void *m;

	fixed = utf8_fix(s, len, fixed_s);
	for (i = 1; i <= rt.nstrings; i++)
		if (rt.string_len[i] == fixed &&
		    !memcmp(rt.strings[i], fixed_s, fixed))
			return (__u16)i;
	if (rt.nstrings == FXT_STRING_INDEX_MAX)
		return 0;
	/* A full chunk stays: its strings are in use.  One holds any string. */
	if (!rt.arena || rt.arena_used + fixed + 1 > ARENA_SIZE) {
		if (rt.arena_chunks == ARENA_CHUNKS_MAX)
			return 0;
		m = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return 0;
		rt.arena = m;
		rt.arena_used = 0;
		rt.arena_chunk[rt.arena_chunks++] = m;
	}
	keep = rt.arena + rt.arena_used;
	memcpy(keep, fixed_s, fixed);
	/* Categories are matched and looked up as C strings. */
	keep[fixed] = 0;
	rt.arena_used += fixed + 1;
	rt.strings[rt.nstrings + 1] = keep;
	rt.string_len[rt.nstrings + 1] = (__u16)fixed;
	__atomic_store_n(&rt.nstrings, rt.nstrings + 1, __ATOMIC_RELEASE);
	return (__u16)rt.nstrings;
}

static bool category_matches(const char *category)
{
	bool on = false;
	unsigned int i;

	for (i = 0; i < rt.npatterns; i++)
		if (!fnmatch(rt.patterns[i], category, 0))
			on = rt.pattern_used[i] = true;
	return on;
}

/* The module's enable byte for a category name, or NULL (errno set). */
static const volatile unsigned char *register_category(const char *category)
{
	struct fxtrace_category cat = {
		.size = sizeof(cat),
		.name = (__u64)(uintptr_t)category,
		.name_len = (__u32)strlen(category),
	};

	if (ioctl(rt.fd, FXTRACE_IOC_CATEGORY, &cat))
		return NULL;
	return &rt.enable_table[cat.index];
}

/*
 * The module's enable byte for a category name, or what stands for it
 * when the module refuses the name.  ENOSPC leaves only the reserved
 * slots, which a later session may open to this user (its owner's, or
 * its pid filter's): rt.session_byte, which costs what a disabled
 * category costs while no session exists and sends the category's events
 * to fxt_emit() while one does, where retry_refused_locked() tries again.
 * Any other refusal (EDQUOT: slots are never given back) is final.
 */
static const volatile unsigned char *module_enable_byte(const char *category)
{
	const volatile unsigned char *byte = register_category(category);

	if (byte)
		return byte;
	if (errno == ENOSPC) {
		warn("category \"%s\": %s; not traced, retried when a session "
		     "starts", category, error_text(errno));
		return rt.session_byte;
	}
	warn("category \"%s\": %s; not traced", category, error_text(errno));
	return &category_off;
}

/*
 * Register the refused categories again, once per generation of the
 * session page in which a session is started: the Start (or anything
 * else the generation counts) may have opened the reserve to this user.
 * A refusal other than ENOSPC is final here too (EDQUOT: this user took
 * its last slot meanwhile): category_off, said once.  Under rt.lock.
 */
static void retry_refused_locked(__u64 generation)
{
	const volatile unsigned char *byte;
	const char *name;
	unsigned int i;

	if (rt.retried_generation == generation)
		return;
	for (i = 0; i < rt.ncategories; i++) {
		if (rt.category_byte[i] != rt.session_byte ||
		    rt.page->state != FXTRACE_STATE_STARTED)
			continue;
		name = rt.strings[rt.category_string[i]];
		byte = register_category(name);
		if (!byte && errno != ENOSPC) {
			warn("category \"%s\": %s; not traced", name,
			     error_text(errno));
			byte = &category_off;
		}
		if (byte)
			__atomic_store_n(&rt.category_byte[i], byte,
					 __ATOMIC_RELEASE);
	}
	__atomic_store_n(&rt.retried_generation, generation, __ATOMIC_RELEASE);
}

/* Lock-free: readers see entries below the release-stored count. */
static const volatile unsigned char *find_category(__u16 index)
{
	unsigned int i, n = __atomic_load_n(&rt.ncategories, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (rt.category_string[i] == index)
			return rt.category_byte[i];
	return NULL;
}

static const volatile unsigned char *category_enable(__u16 index)
{
	const volatile unsigned char *byte = find_category(index);
	unsigned int i = rt.ncategories;

	if (byte)
		return byte;
	if (!index || i == MAX_CATEGORIES)
		return &category_off;
	rt.category_string[i] = index;
	if (rt.module) {
		rt.category_byte[i] = module_enable_byte(rt.strings[index]);
	} else {
		rt.category_enabled[i] = category_matches(rt.strings[index]);
		rt.category_byte[i] = &rt.category_enabled[i];
	}
	__atomic_store_n(&rt.ncategories, i + 1, __ATOMIC_RELEASE);
	return rt.category_byte[i];
}

static unsigned int fxt_arg_type(unsigned int kind)
{
	static const unsigned int type[] = {
		[FXT_KIND_NULL] = FXT_ARG_NULL, [FXT_KIND_INT32] = FXT_ARG_INT32,
		[FXT_KIND_UINT32] = FXT_ARG_UINT32, [FXT_KIND_INT64] = FXT_ARG_INT64,
		[FXT_KIND_UINT64] = FXT_ARG_UINT64, [FXT_KIND_DOUBLE] = FXT_ARG_DOUBLE,
		[FXT_KIND_STRING] = FXT_ARG_STRING, [FXT_KIND_POINTER] = FXT_ARG_POINTER,
		[FXT_KIND_KOID] = FXT_ARG_KOID, [FXT_KIND_BOOL] = FXT_ARG_BOOL,
	};

	return kind < sizeof(type) / sizeof(type[0]) ? type[kind] : FXT_ARG_NULL;
}

/*
 * The first step of a site's resolution, all that a check needs (and a
 * disabled event, whose arguments are not evaluated): its category's enable
 * byte.  Under rt.lock.
 */
static void resolve_enable_locked(struct fxtrace_site *site)
{
	if (!rt.initialized)
		initialize();
	if (site->enabled != &fxt_unresolved)
		return;
	__atomic_store_n(&site->enabled,
			 rt.on ? category_enable(intern(site->category)) :
				 &category_off, __ATOMIC_RELEASE);
}

/*
 * The strings a resolved site's inline events need defined: 1 to the
 * largest index of its names; UINT32_MAX when one of them has none (it
 * goes inline in each record, written by fxt_emit()).
 */
static __u32 site_need(const struct fxtrace_site *site)
{
	__u32 need = 0, ref, i, nargs = (__u32)fxt_bits(site->hdr, 20, 23);

	for (i = 0; i < 2 + nargs; i++) {
		if (i < 2)
			ref = (__u32)fxt_bits(site->hdr, i ? 48 : 32, i ? 63 : 47);
		else
			ref = (__u32)fxt_bits(site->arg_hdr[i - 2], 16, 31);
		if (!ref)
			return UINT32_MAX;
		if (ref > need)
			need = ref;
	}
	return need;
}

/* The entry of a category's string index (one there). */
static unsigned int category_entry(__u16 index)
{
	unsigned int i = 0;

	while (rt.category_string[i] != index)
		i++;
	return i;
}

/*
 * Resolve a site for an event of its: intern its strings, compute the
 * headers the inline writer uses (string arguments empty: the writer adds
 * their words), then publish hdr and need.  A site of a category the
 * module refused keeps need at UINT32_MAX (admit_refused()).  Under
 * rt.lock.
 */
static void resolve_locked(struct fxtrace_site *site, unsigned int type,
			   unsigned int nargs, const struct fxtrace_arg *args)
{
	__u16 cat, name, arg_name[FXT_ARGS_MAX];
	__u32 words, i;

	resolve_enable_locked(site);
	if (!rt.on || site->hdr)
		return;
	cat = intern(site->category);
	name = intern(site->name);
	words = 2 + fxt_event_trailing_words(type);
	for (i = 0; i < nargs && i < FXT_ARGS_MAX; i++) {
		arg_name[i] = intern(args[i].name);
		words += 1 + fxt_arg_fixed_words_(&args[i]);
		site->arg_hdr[i] = fxt_arg_hdr(fxt_arg_type(args[i].kind),
					       1 + fxt_arg_fixed_words_(&args[i]),
					       arg_name[i],
					       args[i].kind == FXT_KIND_STRING ?
					       FXT_STRING_REF_INLINE : 0);
	}
	site->end_hdr = fxt_event_hdr(2, FXT_EVENT_DURATION_END, 0, THREAD_INDEX,
				      cat, name);
	/* Before hdr: a thread that sees hdr must see this too. */
	if (site->enabled == rt.session_byte)
		__atomic_store_n(&site->refused, 1 + category_entry(cat),
				 __ATOMIC_RELAXED);
	/* Never 0 (its record type is 4): 0 says "not resolved yet". */
	__atomic_store_n(&site->hdr, fxt_event_hdr(words, type, nargs,
						   THREAD_INDEX, cat, name),
			 __ATOMIC_RELEASE);
	if (!site->refused)
		__atomic_store_n(&site->need, site_need(site), __ATOMIC_RELEASE);
}

/*
 * The enable byte of entry i, a category the module refused, after the
 * retry of the current generation of the session page (the first caller
 * in a generation makes it, under rt.lock): still rt.session_byte while
 * refused.  Lock-free otherwise.
 */
static const volatile unsigned char *retried_byte(unsigned int i)
{
	__u64 generation = __atomic_load_n(&rt.page->generation,
					   __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&rt.retried_generation, __ATOMIC_ACQUIRE) !=
	    generation) {
		lock();
		retry_refused_locked(generation);
		unlock();
	}
	return __atomic_load_n(&rt.category_byte[i], __ATOMIC_ACQUIRE);
}

/*
 * An event of a site whose category the module refused: whether to write
 * it.  Its category is registered again once per session
 * (retry_refused_locked()); once it is in, the site points at its byte
 * (a disabled category costs nothing more) and, when that byte is set,
 * its need is lowered so that its events go inline from then on.  Sites
 * resolved later point at the byte at once.  Threads that race here all
 * store the same values.  refused is the caller's (acquire) load of
 * site->refused, not 0: loaded again, it may be the 0 that another
 * thread's admission stored meanwhile, while site->enabled still reads as
 * the session byte.  The caller is inside the library (busy).
 */
static bool admit_refused(struct fxtrace_site *site, __u32 refused)
{
	const volatile unsigned char *byte =
		__atomic_load_n(&site->enabled, __ATOMIC_ACQUIRE);

	if (byte == rt.session_byte) {
		byte = retried_byte(refused - 1);
		if (byte == rt.session_byte)
			return false;
		__atomic_store_n(&site->enabled, byte, __ATOMIC_RELEASE);
	}
	if (!*byte)
		return false;
	__atomic_store_n(&site->need, site_need(site), __ATOMIC_RELEASE);
	__atomic_store_n(&site->refused, 0, __ATOMIC_RELEASE);
	return true;
}

/* The caller is inside the library (busy): no handler can come in here. */
static void resolve(struct fxtrace_site *site, unsigned int type,
		    unsigned int nargs, const struct fxtrace_arg *args)
{
	lock();
	resolve_locked(site, type, nargs, args);
	unlock();
}

/*
 * TRACE_ENABLED's check, at its site's first use and at every use while
 * the module refuses the site's category.  Unlike an event's site, such a
 * site does not point at the session byte, which would make every check
 * true while any session exists: it stays at fxt_unresolved, whose check
 * calls here, with refused set, and answers as fxt_category_enabled()
 * does: false until a retry lets the category in (or refuses it for
 * good), then from the category's byte, which the site points at from
 * then on.  Threads that race here store the same values, and refused is
 * not cleared: once the site points elsewhere, nothing reads it.
 */
bool fxt_resolve_enabled(struct fxtrace_site *site)
{
	const volatile unsigned char *byte = &category_off;
	__u32 refused;
	__u16 cat;
	bool on;

	if (!enter())
		return false;	/* a handler inside the library: not now */
	refused = __atomic_load_n(&site->refused, __ATOMIC_ACQUIRE);
	if (!refused) {
		lock();
		if (!rt.initialized)
			initialize();
		if (rt.on) {
			cat = intern(site->category);
			byte = category_enable(cat);
			if (byte == rt.session_byte)
				refused = 1 + category_entry(cat);
		}
		unlock();
		if (refused)
			__atomic_store_n(&site->refused, refused,
					 __ATOMIC_RELEASE);
	}
	if (refused)
		byte = retried_byte(refused - 1);
	on = byte != rt.session_byte && *byte;
	if (byte != rt.session_byte)
		__atomic_store_n(&site->enabled, byte, __ATOMIC_RELEASE);
	leave();
	return on;
}

bool fxt_category_enabled(const char *category)
{
	const volatile unsigned char *byte = NULL;
	bool on = false;

	if (!enter())
		return false;
	lock();
	if (!rt.initialized)
		initialize();
	if (rt.on)
		byte = category_enable(intern(category));
	if (rt.module && byte == rt.session_byte) {
		retry_refused_locked(__atomic_load_n(&rt.page->generation,
						     __ATOMIC_ACQUIRE));
		byte = find_category(intern(category));
	}
	unlock();
	on = byte && byte != rt.session_byte && *byte;
	leave();
	return on;
}

/* ---- per-thread buffers -------------------------------------------------- */

static void publish_durable(struct tbuf *t)
{
	__atomic_store_n(&t->ctl->durable_committed, (__u64)t->durable_len * 8,
			 __ATOMIC_RELEASE);
}

/* Point the inline writer at half h of t, len words in. */
static void use_half(struct tbuf *t, unsigned int h, __u32 len)
{
	t->cur = h;
	fxt_tls.base = (uint64_t *)t->half[h];
	fxt_tls.next = fxt_tls.base + len;
	fxt_tls.limit = fxt_tls.base + t->backed[h];
	t->end = t->half[h] + t->half_cap;
	fxt_tls.committed = (uint64_t *)&t->ctl->rolling_committed[h];
}

/* Count a dropped record (a handler may add too: one atomic add). */
static void drop(struct tbuf *t)
{
	__atomic_fetch_add(&t->ctl->dropped_records, 1, __ATOMIC_RELAXED);
}

static void read_thread_name(struct tbuf *t)
{
	char path[64], buf[64];
	ssize_t n = -1;
	int fd;

	if (pending_name[0]) {
		snprintf(buf, sizeof(buf), "%s", pending_name);
		n = (ssize_t)strlen(buf);
	} else {
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", t->tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (n > 0 && buf[n - 1] == '\n')
			n--;
	}
	if (n <= 0)
		n = snprintf(buf, sizeof(buf), "%d", t->tid);
	/*
	 * comm is any bytes (prctl), a name set here up to 63: the trace
	 * shows them as UTF-8, each bad byte three bytes, cut to fit.
	 */
	t->name[utf8_fix_max(buf, (size_t)n, t->name, sizeof(t->name) - 1)] = 0;
}

static int allocate(off_t off, off_t len);

#define DURABLE_CHUNK	((16 << 10) / 8)	/* words backed at a time */

/*
 * words more fit in t's durable part, its disk blocks allocated (see
 * back()): a chunk at a time, or what they need when the disk has less.
 */
static bool durable_room(struct tbuf *t, __u32 words)
{
	__u32 need = t->durable_len + words, want;
	off_t off;

	if (need > t->durable_cap)
		return false;
	if (need <= t->durable_backed)
		return true;
	want = t->durable_backed + DURABLE_CHUNK;
	if (want < need)
		want = need;
	if (want > t->durable_cap)
		want = t->durable_cap;
	off = t->spool_off + ((char *)(t->durable + t->durable_backed) -
			      (char *)t->map);
	if (allocate(off, (off_t)(want - t->durable_backed) * 8)) {
		want = need;
		if (allocate(off, (off_t)(want - t->durable_backed) * 8))
			return false;
	}
	t->durable_backed = rt.spool_sparse ? t->durable_cap : want;
	return true;
}

/* A kernel-object record naming the thread, in its durable part. */
static void write_thread_name(struct tbuf *t)
{
	__u32 len = (__u32)strlen(t->name);
	__u32 words = fxt_kobj_name_words(len, (__u64)t->pid);

	if (!durable_room(t, words))
		return;
	t->durable_len += fxt_write_kobj_name(t->durable + t->durable_len,
					      FXT_KOBJ_THREAD, (__u64)t->tid,
					      t->name, len, (__u64)t->pid);
	publish_durable(t);
}

/* The thread record every event refers to, and the thread's name. */
static void write_thread_records(struct tbuf *t)
{
	if (!durable_room(t, 3))
		return;
	t->durable_len += fxt_write_thread(t->durable + t->durable_len,
					   THREAD_INDEX, (__u64)t->pid,
					   (__u64)t->tid);
	publish_durable(t);
	write_thread_name(t);
}

/* Define the process's strings ndefined+1.. in t, as far as room allows. */
static void define_strings(struct tbuf *t)
{
	unsigned int n = __atomic_load_n(&rt.nstrings, __ATOMIC_ACQUIRE);
	__u32 i, words;

	for (i = fxt_tls.ndefined + 1; i <= n; i++) {
		words = 1 + fxt_stream_words(rt.string_len[i]);
		if (!durable_room(t, words))
			break;	/* durable part full: later strings inline */
		t->durable_len += fxt_write_string(t->durable + t->durable_len,
						   (__u16)i, rt.strings[i],
						   rt.string_len[i]);
		fxt_tls.ndefined = i;
	}
	publish_durable(t);
}

static struct tbuf *new_tbuf(void)
{
	void *m = mmap(NULL, sizeof(struct tbuf), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

static void free_tbuf(struct tbuf *t)
{
	munmap(t, sizeof(*t));
}

/* Point t at a buffer's parts: header page, control page, data. */
static void map_parts(struct tbuf *t, void *map)
{
	const struct fxtrace_buffer_header *hdr = map;

	t->hdr = hdr;
	t->ctl = (struct fxtrace_buffer_control *)((char *)map +
						   FXTRACE_BUFFER_PAGE_SIZE);
	t->durable = (__u64 *)((char *)map + hdr->data_offset);
	t->durable_cap = (__u32)(hdr->durable_size / 8);
	t->half_cap = (__u32)(hdr->rolling_size / 8);
	t->half[0] = t->durable + t->durable_cap;
	t->half[1] = t->half[0] + t->half_cap;
}

#define SPOOL_FIRST_REGIONS	16	/* the first reservation's regions */

/*
 * The spool's bytes [off, off + size) mapped; under rt.lock.  MAP_FIXED
 * only ever targets the reservation, PROT_NONE of ours: a failed one may
 * have unmapped its target first (Linux 6.1's mmap_region() does when the
 * new mapping cannot be set up), and another thread's mmap() may take the
 * hole.  The reservation then ends before it, so that the next region at
 * that offset does not land there; the hole's own address space is left
 * alone, unmapped or still reserved.
 */
static void *map_spool(off_t off, size_t size)
{
	char *at, *end;
	size_t want;
	void *m;
	int err;

	if (sizeof(size_t) > 4 && !rt.spool_base_failed &&
	    (!rt.spool_base ||
	     (size_t)(off - rt.spool_base_off) + size > rt.spool_reserve)) {
		want = rt.spool_base ? rt.spool_reserve * 2 :
				       SPOOL_FIRST_REGIONS * size;
		m = mmap(NULL, want, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED) {
			rt.spool_base_failed = true;
		} else {
			/* The last one is full: its regions keep it mapped. */
			rt.spool_base = m;
			rt.spool_reserve = want;
			rt.spool_base_off = off;
		}
	}
	if (rt.spool_base &&
	    (size_t)(off - rt.spool_base_off) + size <= rt.spool_reserve) {
		at = rt.spool_base + (off - rt.spool_base_off);
		m = mmap(at, size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, rt.spool_fd, off);
		if (m == MAP_FAILED) {
			err = errno;
			/*
			 * Forgotten before the rest is given back: a child
			 * forked in between unmaps what is recorded
			 * (child_after_fork()), and another thread's mmap()
			 * may take the rest at once.
			 */
			end = rt.spool_base + rt.spool_reserve;
			rt.spool_base = NULL;	/* the next region reserves anew */
			rt.spool_reserve = 0;
			munmap(at + size, (size_t)(end - (at + size)));
			errno = err;
		}
		return m;
	}
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    rt.spool_fd, off);
}

/*
 * Disk blocks for the spool's bytes [off, off + len): a store into a hole
 * that the file system cannot fill is SIGBUS, which would kill the traced
 * program when its disk fills up.  A file system without fallocate()
 * (EOPNOTSUPP), or a system call filter that refuses it (ENOSYS, EPERM:
 * our own file, not immutable), leaves the spool sparse, as it was.  A
 * signal caught during the call (EINTR: tmpfs, FUSE) is not a full disk:
 * the call is made again.  errno on failure.
 */
static int allocate(off_t off, off_t len)
{
	int err;

	if (rt.spool_sparse)
		return 0;
	do
		err = fallocate(rt.spool_fd, 0, off, len) ? errno : 0;
	while (err == EINTR);
	if (err == EOPNOTSUPP || err == ENOSYS || err == EPERM) {
		rt.spool_sparse = true;
		return 0;
	}
	errno = err;
	return err ? -1 : 0;
}

#define BACK_CHUNK	((64 << 10) / 8)	/* words backed at a time */

/* Half h of t backed for at least words; false when the disk is full. */
static bool back(struct tbuf *t, unsigned int h, __u32 words)
{
	__u32 want = t->backed[h] + BACK_CHUNK;
	off_t off;

	if (words <= t->backed[h])
		return true;
	if (words > t->half_cap)
		return false;
	if (want < words)
		want = words;
	if (want > t->half_cap)
		want = t->half_cap;
	off = t->spool_off + ((char *)(t->half[h] + t->backed[h]) -
			      (char *)t->map);
	/* A chunk, or when the disk has less, what this record needs. */
	if (allocate(off, (off_t)(want - t->backed[h]) * 8)) {
		want = words;
		if (allocate(off, (off_t)(want - t->backed[h]) * 8))
			return false;
	}
	t->backed[h] = rt.spool_sparse ? t->half_cap : want;
	return true;
}

/*
 * A region of the spool with the layout of a module per-task buffer; its
 * durable part starts as the module's do, with the provider's
 * announcement, so a spool is read like a set of buffers.  errno on failure.
 */
static struct tbuf *attach_user(void)
{
	size_t size = 2 * FXTRACE_BUFFER_PAGE_SIZE + rt.buffer_size;
	struct fxtrace_buffer_header *hdr;
	char name[128];
	struct tbuf *t;
	void *map;
	off_t off;
	__u32 n;
	int err;

	t = new_tbuf();
	if (!t)
		return NULL;
	t->pid = getpid();
	t->tid = (pid_t)syscall(SYS_gettid);
	read_thread_name(t);

	lock();
	err = open_spool();
	if (err) {
		unlock();
		free_tbuf(t);
		errno = -err;
		return NULL;
	}
	finish_calibration();
	off = rt.spool_size;
	/*
	 * Blocks for the pages written now: header, control, the durable
	 * part's first chunk (16 KiB: at least the provider's records).
	 */
	map = ftruncate(rt.spool_fd, off + (off_t)size) ||
	      allocate(off, 2 * FXTRACE_BUFFER_PAGE_SIZE +
			    (off_t)DURABLE_CHUNK * 8) ? MAP_FAILED :
	      map_spool(off, size);
	if (map == MAP_FAILED) {
		err = errno;
		if (ftruncate(rt.spool_fd, off))
			errno = 0;	/* the region stays, unused */
		unlock();
		free_tbuf(t);
		errno = err;
		return NULL;
	}
	rt.spool_size += (off_t)size;
	hdr = map;
	hdr->magic = FXTRACE_BUFFER_MAGIC;
	hdr->header_size = sizeof(*hdr);
	hdr->id = rt.next_provider++;
	hdr->kind = FXTRACE_BUFFER_TASK;
	hdr->mode = rt.mode;
	hdr->cpu = ~0U;
	hdr->pid = (__u32)t->pid;
	hdr->tid = (__u32)t->tid;
	/*
	 * No module charged this buffer to a user, and the spool is the
	 * program's own file: ~0 as for buffers of no user, not root's 0.
	 */
	hdr->owner_uid = ~0U;
	hdr->data_offset = 2 * FXTRACE_BUFFER_PAGE_SIZE;
	hdr->durable_size = fxtrace_durable_size(rt.buffer_size);
	hdr->rolling_size = (rt.buffer_size - hdr->durable_size) / 16 * 8;
	map_parts(t, map);
	t->map = map;
	t->map_size = size;
	t->spool_off = off;
	t->backed[0] = t->backed[1] = rt.spool_sparse ? t->half_cap : 0;
	t->durable_backed = rt.spool_sparse ? t->durable_cap :
			    DURABLE_CHUNK < t->durable_cap ? DURABLE_CHUNK :
			    t->durable_cap;

	snprintf(name, sizeof(name), "%s %d", t->name, t->tid);
	n = fxt_write_provider_info(t->durable, hdr->id, name,
				    (__u32)strlen(name));
	n += fxt_write_init(t->durable + n, rt.ticks_per_second);
	hdr->durable_reserved = n * 8;
	t->durable_reserved = n;
	t->durable_len = n;
	publish_durable(t);
	write_thread_records(t);

	t->next = rt.threads;
	rt.threads = t;
	unlock();
	fxt_tls.generation_src = (const volatile uint64_t *)&no_generation;
	fxt_tls.generation = 0;
	return t;
}

/*
 * t is released here only when it is still on rt.threads: a thread whose
 * exit runs thread_exit() during a dlclose() finds it gone when the
 * closing copy's release_copy() took the lock first and released it.
 */
static void detach_module(struct tbuf *t)
{
	struct tbuf **p;
	bool listed = false;

	lock();
	for (p = &rt.threads; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			listed = true;
			break;
		}
	}
	unlock();
	if (!listed)
		return;
	/* Unmapping the producer part retires the buffer. */
	munmap(t->map, t->map_size);
	munmap((void *)t->hdr, FXTRACE_BUFFER_PAGE_SIZE);
	free_tbuf(t);
}

/*
 * The module's buffer at describes, mapped, as one of session; NULL with
 * errno.  When its producer part is not mapped the kernel keeps it
 * attached: it is kept in unmapped, for the retry.
 */
static struct tbuf *map_module(const struct fxtrace_attach *at, __u64 session)
{
	const struct fxtrace_buffer_header *hdr;
	struct tbuf *t;
	void *map;
	int err;

	t = new_tbuf();
	hdr = mmap(NULL, at->header_size, PROT_READ, MAP_SHARED, rt.fd,
		   (off_t)at->header_offset);
	map = mmap(NULL, at->producer_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   rt.fd, (off_t)at->producer_offset);
	if (!t || hdr == MAP_FAILED || map == MAP_FAILED) {
		err = errno;
		/* Unmapping the producer part retires the buffer. */
		if (map != MAP_FAILED)
			munmap(map, at->producer_size);
		else
			unmapped = *at;
		if (hdr != MAP_FAILED)
			munmap((void *)hdr, at->header_size);
		if (t)
			free_tbuf(t);
		errno = err;
		return NULL;
	}
	/* The header and the producer part are two mappings here. */
	t->hdr = hdr;
	t->map = map;
	t->map_size = at->producer_size;
	t->ctl = map;
	t->durable = (__u64 *)((char *)map + FXTRACE_BUFFER_PAGE_SIZE);
	t->durable_cap = (__u32)(hdr->durable_size / 8);
	t->half_cap = (__u32)(hdr->rolling_size / 8);
	t->half[0] = t->durable + t->durable_cap;
	t->half[1] = t->half[0] + t->half_cap;
	t->backed[0] = t->backed[1] = t->half_cap;	/* kernel memory */
	t->durable_backed = t->durable_cap;
	t->durable_reserved = (__u32)(t->ctl->durable_committed / 8);
	t->durable_len = t->durable_reserved;
	t->pid = (pid_t)at->pid;
	t->tid = (pid_t)at->tid;
	t->buffer_id = at->buffer_id;
	t->session_id = session;
	t->start_seq = t->ctl->start_seq;
	rt.monotonic_offset = at->monotonic_offset;
	read_thread_name(t);
	write_thread_records(t);
	lock();
	t->next = rt.threads;
	rt.threads = t;
	unlock();
	pthread_setspecific(rt.exit_key, t);
	fxt_tls.generation_src =
		(const volatile uint64_t *)&rt.page->generation;
	/* Differs from the page's: the first event syncs clock and mode. */
	fxt_tls.generation = ~__atomic_load_n(&rt.page->generation,
					      __ATOMIC_ACQUIRE);
	return t;
}

/*
 * A per-task buffer from the module, or NULL with errno.  Which session
 * the kernel attached it in is not said: a session may begin between the
 * read of its id and the attach, or after.  The id read before is the
 * one the buffer is marked with: when the buffer is the next session's,
 * the first event's sync_session() attaches again; marked with a later
 * id it could be the ended session's, written for the whole new one.
 * EEXIST: the thread is attached in the current session.  This copy of
 * the library's every other attach is mapped, or retired by its
 * munmap(), so that is the kept buffer when it can be of the current
 * session (kept in it, or in the one before while it began).  Kept in
 * an ended session, it is not: the thread's buffer is another copy's
 * (libfxtrace.a in a plugin, libfxtrace.so in the program; a module
 * before ABI 0.7 keeps one buffer per thread whatever the file), and the
 * kept id, counted again from 1 in each session, may be that one's.
 */
static struct tbuf *attach_module(void)
{
	struct fxtrace_attach at = { .size = sizeof(at) };
	__u64 session = __atomic_load_n(&rt.page->session_id, __ATOMIC_ACQUIRE);

	if (!ioctl(rt.fd, FXTRACE_IOC_ATTACH, &at)) {
		/*
		 * A kept buffer is not attached: retired by the close of a
		 * mapping that failed after the module set it up (kernels
		 * older than the supported 6.1 and 6.12 updates did that:
		 * Documentation/design.rst, Retirement), or of a session
		 * that ended.
		 */
		unmapped.size = 0;
		unmapped_session = __atomic_load_n(&rt.page->session_id,
						   __ATOMIC_ACQUIRE);
		return map_module(&at, session);
	}
	if (errno == EPERM) {
		__atomic_store_n(&rt.untraced_session, session, __ATOMIC_RELAXED);
		return NULL;
	}
	if (errno != EEXIST || !unmapped.size || unmapped_session != session)
		return NULL;
	at = unmapped;
	unmapped.size = 0;
	return map_module(&at, session);
}

/* Whether the current session's pid filter leaves this process out. */
static bool untraced(void)
{
	__u64 session = __atomic_load_n(&rt.untraced_session, __ATOMIC_RELAXED);

	return session && session == __atomic_load_n(&rt.page->session_id,
						     __ATOMIC_ACQUIRE);
}

/* An event without a buffer: lost, unless this process is not traced. */
static void count_lost(void)
{
	if (!rt.module || !untraced())
		__atomic_fetch_add(&rt.lost, 1, __ATOMIC_RELAXED);
}

/* Forget the thread's buffer: the inline writer then calls fxt_emit(). */
static void forget_buffer(void)
{
	self = NULL;
	fxt_tls.next = fxt_tls.limit = fxt_tls.base = NULL;
	fxt_tls.committed = NULL;
	fxt_tls.ndefined = 0;
	fxt_tls.epoch++;	/* ends of begins in the old buffer: not here */
}

/*
 * Inside the library, as every path that takes rt.lock (detach_module()
 * does): a signal handler's event meanwhile is dropped, not waiting for
 * the lock its own thread holds.
 */
static void thread_exit(void *arg)
{
	bool entered = enter();

	if (self == arg)
		forget_buffer();
	detach_module(arg);
	if (entered)
		leave();
}

/*
 * A buffer for the calling thread.  When that fails the event is counted
 * as lost by the process, the first failure is reported, and the thread
 * tries again after a backoff of 1 ms doubling to 1 s.
 */
static struct tbuf *attach(void)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC);
	struct tbuf *t;
	int err, cancel;

	if (retry_at_ns && now < retry_at_ns)
		return NULL;
	/* The session traces other processes: nothing to retry or report. */
	if (rt.module && untraced())
		return NULL;
	/*
	 * Cancellation is off for the whole attach, not only under rt.lock:
	 * the open() and read() of the thread's comm are cancellation
	 * points, and a thread cancelled there, its module buffer mapped and
	 * not yet known to thread_exit(), left both mappings (and its fd,
	 * and its struct tbuf) to the process until it exited.
	 */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	t = rt.module ? attach_module() : attach_user();
	err = errno;
	pthread_setcancelstate(cancel, NULL);
	if (!t && rt.module && untraced())
		return NULL;
	if (!t) {
		backoff_ns = backoff_ns ? backoff_ns * 2 : BACKOFF_MIN_NS;
		if (backoff_ns > BACKOFF_MAX_NS)
			backoff_ns = BACKOFF_MAX_NS;
		retry_at_ns = now + backoff_ns;
		if (!__atomic_exchange_n(&rt.warned_attach, true, __ATOMIC_RELAXED))
			warn("thread %ld has no trace buffer (%s): its events are "
			     "lost and counted; retrying", (long)syscall(SYS_gettid),
			     error_text(err));
		return NULL;
	}
	retry_at_ns = 0;
	backoff_ns = 0;
	self = t;
	fxt_tls.ndefined = 0;
	use_half(t, 0, 0);
	t->wraps = 0;
	return t;
}

/*
 * A Start with a clearing disposition empties the buffer (producers only
 * write: the thread clears its own); scopes begun before it end nowhere.
 */
static void apply_disposition(struct tbuf *t, unsigned int disposition)
{
	if (disposition == FXTRACE_START_RETAIN)
		return;
	fxt_tls.epoch++;
	/* [wrap] (kmod/buffer.c): both halves empty before the new count. */
	__atomic_store_n(&t->ctl->rolling_committed[0], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&t->ctl->rolling_committed[1], 0, __ATOMIC_RELEASE);
	/* Streaming keeps counting wraps: the kernel checks them. */
	if (rt.mode != FXTRACE_MODE_STREAMING) {
		t->wraps = 0;
		__atomic_store_n(&t->ctl->wrap_count, 0, __ATOMIC_RELEASE);
		use_half(t, 0, 0);
	} else {
		use_half(t, t->cur, 0);
	}
	__atomic_store_n(&t->ctl->dropped_records, 0, __ATOMIC_RELAXED);
	if (disposition == FXTRACE_START_CLEAR_ALL) {
		t->durable_len = t->durable_reserved;
		fxt_tls.ndefined = 0;
		write_thread_records(t);
	}
}

/*
 * The session page changed: follow its clock and mode, re-attach in a new
 * session, apply a new Start's disposition.
 */
static struct tbuf *sync_session(struct tbuf *t)
{
	const struct fxtrace_session_page *page = rt.page;
	__u64 generation = __atomic_load_n(&page->generation, __ATOMIC_ACQUIRE);

	fxt_clock_tsc = page->clock == FXTRACE_CLOCK_TSC;
	rt.mode = page->mode;
	if (t->session_id != page->session_id) {
		pthread_setspecific(rt.exit_key, NULL);
		forget_buffer();
		detach_module(t);
		t = attach();
		if (!t) {
			count_lost();
			return NULL;
		}
	}
	if (t->start_seq != page->start_seq) {
		apply_disposition(t, page->disposition);
		t->start_seq = page->start_seq;
		__atomic_store_n(&t->ctl->start_seq, t->start_seq,
				 __ATOMIC_RELEASE);
	}
	if (page->flags & FXTRACE_SESSION_PAGE_PAUSED) {
		/* A snapshot is being copied; every event comes back here. */
		drop(t);
		return NULL;
	}
	fxt_tls.generation = generation;
	return t;
}

/* A user-only buffer's region mapped in the spool's reservation. */
static bool in_spool_reserve(const struct tbuf *t)
{
	return rt.spool_base && (char *)t->map >= rt.spool_base &&
	       (char *)t->map < rt.spool_base + rt.spool_reserve;
}

/*
 * After fork: the child forgets the parent's buffers (user-only: regions
 * of the parent's spool, still mapped here); its own spool is made at its
 * first event, so a child that only execs leaves no file.
 */
static void child_after_fork(void)
{
	const int anon = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE;
	/*
	 * Forked by a signal handler that interrupted this thread inside the
	 * library: when the handler returns, the write it interrupted goes on
	 * with the parent's buffer.  Its parts stay, on anonymous memory of
	 * the child's (not the parent's spool, not a hole), and so does the
	 * rest of the parent's spool reservation, which the write may be
	 * creating a region in: the write is lost, the parent's trace intact.
	 */
	bool interrupted = fxt_tls.busy;
	struct tbuf *t, *next;

	pthread_mutex_init(&rt.lock, NULL);
	for (t = rt.threads; t; t = next) {
		next = t->next;
		/*
		 * A module producer part is not in the child (VM_DONTCOPY);
		 * a spool region is the parent's file.
		 */
		if (interrupted) {
			if (rt.module || !in_spool_reserve(t))
				mmap(t->map, t->map_size, PROT_READ | PROT_WRITE,
				     anon, -1, 0);
			continue;
		}
		if (rt.module)
			munmap((void *)t->hdr, FXTRACE_BUFFER_PAGE_SIZE);
		else if (!in_spool_reserve(t))
			munmap(t->map, t->map_size);
		free_tbuf(t);
	}
	rt.threads = NULL;
	if (rt.spool_base) {
		/* The parent's regions and the rest of the reservation. */
		if (interrupted)
			mmap(rt.spool_base, rt.spool_reserve,
			     PROT_READ | PROT_WRITE, anon, -1, 0);
		else
			munmap(rt.spool_base, rt.spool_reserve);
		rt.spool_base = NULL;
		rt.spool_reserve = 0;
	}
	rt.spool_base_failed = false;
	if (rt.module) {
		/* The module did not copy our mappings into the child. */
		pthread_setspecific(rt.exit_key, NULL);
		/*
		 * A child of a process that unshared the time namespace is
		 * in the new one (timens_on_fork()): fxt_now() before its
		 * first event takes the new offset out.
		 */
		rt.monotonic_offset = time_namespace_offset();
	} else if (rt.spool_fd >= 0) {
		close(rt.spool_fd);
		rt.spool_fd = -1;
	}
	rt.root = false;
	rt.output[0] = 0;
	rt.lost = 0;
	retry_at_ns = backoff_ns = 0;
	unmapped.size = 0;	/* the parent's */
	forget_buffer();
	if (interrupted) {
		/* Where the interrupted write publishes its length. */
		fxt_tls.committed = &interrupted_committed;
		/* The next event takes the slow path, whatever next becomes. */
		fxt_tls.generation_src =
			(const volatile uint64_t *)&no_generation;
		fxt_tls.generation = ~no_generation;
	}
}

/* ---- the out-of-line writer -------------------------------------------- */

/* Ask the controller to save the half just filled (streaming). */
static void request_save(struct tbuf *t, __u64 wrap)
{
	struct fxtrace_buffer_full full = {
		.size = sizeof(full),
		.buffer_id = t->buffer_id,
		.wrap = wrap,
	};

	ioctl(rt.fd, FXTRACE_IOC_BUFFER_FULL, &full);
}

/* words fit in the half being written, or in the other one now. */
static bool has_room(const struct tbuf *t, __u32 words)
{
	if ((__u64)(t->end - (__u64 *)fxt_tls.next) >= words)
		return true;
	if (words > t->half_cap)
		return false;
	switch (rt.mode) {
	case FXTRACE_MODE_ONESHOT:
		return t->cur == 0;
	case FXTRACE_MODE_STREAMING:
		/*
		 * The other half holds wrap - 1 until the controller saved it:
		 * [saved] (kmod/buffer.c), paired with fxt_packet_ack().
		 */
		return __atomic_load_n(&t->hdr->saved_wraps, __ATOMIC_ACQUIRE) >=
		       t->wraps;
	}
	return true;
}

/* Room for words in the current half, moving to the other one if needed. */
static __u64 *reserve(struct tbuf *t, __u32 words)
{
	unsigned int other = t->cur ^ 1;

	__u32 used = (__u32)(fxt_tls.next - fxt_tls.base);

	if ((__u64)(fxt_tls.limit - fxt_tls.next) >= words)
		return (__u64 *)fxt_tls.next;
	/* Room in this half, not backed yet: back more of it. */
	if ((__u64)used + words <= t->half_cap) {
		if (!back(t, t->cur, used + words))
			return NULL;
		fxt_tls.limit = fxt_tls.base + t->backed[t->cur];
		return (__u64 *)fxt_tls.next;
	}
	if (!has_room(t, words) || !back(t, other, words))
		return NULL;
	/*
	 * Circular overwrites the other half; streaming has it saved.  The
	 * wrap count is a sequence count for readers (fxt_flush): it
	 * changes before the first word of the reused half does ([wrap],
	 * kmod/buffer.c; the reader is copy_halves()).
	 */
	__atomic_store_n(&t->ctl->rolling_committed[other], 0, __ATOMIC_RELEASE);
	t->wraps++;
	__atomic_store_n(&t->ctl->wrap_count, t->wraps, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	use_half(t, other, 0);
	if (rt.mode == FXTRACE_MODE_STREAMING)
		request_save(t, t->wraps - 1);
	return (__u64 *)fxt_tls.next;
}

/* [commit] (kmod/buffer.c): the words, then the offset that covers them. */
static void commit(__u64 *end)
{
	fxt_tls.next = (uint64_t *)end;
	__atomic_store_n(fxt_tls.committed,
			 (__u64)((char *)end - (char *)fxt_tls.base),
			 __ATOMIC_RELEASE);
}

/* A string ref for index i, or inline when t does not define it. */
struct text {
	__u16 ref;
	const char *s;
	size_t len;
	__u32 fixed;		/* bytes once made valid */
};

static struct text text_of(__u16 i, const char *s)
{
	struct text x = { 0, s, 0, 0 };

	if (i && i <= fxt_tls.ndefined) {
		x.ref = i;
		return x;
	}
	if (i) {
		x.s = rt.strings[i];
		x.len = rt.string_len[i];
		x.fixed = (__u32)x.len;
	} else {
		x.len = strnlen(s, FXT_STRING_LEN_MAX + 4);
		x.fixed = utf8_fix(s, x.len, NULL);
	}
	x.ref = fxt_inline_string_ref(x.fixed);
	return x;
}

static __u32 text_words(const struct text *x)
{
	return fxt_string_ref_words(x->ref);
}

static __u32 put_text(__u64 *p, const struct text *x)
{
	return fxt_string_ref_is_inline(x->ref) ?
	       write_text(p, x->s, x->len, x->fixed) : 0;
}

/* A counter record of the events lost without a buffer (process-wide). */
static void write_lost(struct tbuf *t, __u64 lost)
{
	static const char cat[] = "fxtrace", name[] = "lost events",
			  arg[] = "no buffer";
	__u16 cref = fxt_inline_string_ref(sizeof(cat) - 1),
	      nref = fxt_inline_string_ref(sizeof(name) - 1),
	      aref = fxt_inline_string_ref(sizeof(arg) - 1);
	__u32 aw = fxt_arg_words(aref, 1);
	__u32 words = fxt_event_words(FXT_EVENT_COUNTER, THREAD_INDEX, cref,
				      nref, aw);
	__u64 *p = reserve(t, words);
	__u32 n = 0;

	if (!p)
		return;
	p[n++] = fxt_event_hdr(words, FXT_EVENT_COUNTER, 1, THREAD_INDEX, cref,
			       nref);
	p[n++] = fxt_now();
	n += fxt_write_string_ref(p + n, cref, cat);
	n += fxt_write_string_ref(p + n, nref, name);
	n += fxt_write_arg64(p + n, FXT_ARG_UINT64, aref, arg, lost);
	p[n++] = 0;		/* counter id */
	commit(p + n);
	t->lost_written = lost;
}

/*
 * The fewest words an event of this shape takes: its strings by index
 * (inline ones, and string values, only add to it).
 */
static __u32 least_words(unsigned int type, unsigned int nargs,
			 const struct fxtrace_arg *args)
{
	__u32 words = 2 + fxt_event_trailing_words(type);
	unsigned int i;

	for (i = 0; i < nargs; i++)
		words += 1 + fxt_arg_fixed_words_(&args[i]);
	return words;
}

/*
 * The buffer an event goes to, or NULL when it is not written: its site
 * turned out disabled, there is no buffer (lost), or the event cannot fit
 * (dropped).  A buffer waiting for its save, or a full oneshot, drops the
 * event here, before it costs anything more (emit_slow()'s frame
 * included): a producer dropping events must not take the CPU its
 * drainer needs to catch up.
 */
static struct tbuf *emit_buffer(struct fxtrace_site *site, unsigned int type,
				unsigned int nargs,
				const struct fxtrace_arg *args)
{
	struct tbuf *t = self;
	__u32 refused;

	if (__builtin_expect(!__atomic_load_n(&site->hdr, __ATOMIC_ACQUIRE), 0)) {
		resolve(site, type, nargs, args);
		if (!*site->enabled || !site->hdr)
			return NULL;
	}
	refused = __atomic_load_n(&site->refused, __ATOMIC_ACQUIRE);
	if (refused && !admit_refused(site, refused))
		return NULL;
	if (!t) {
		t = attach();
		if (!t) {
			count_lost();
			return NULL;
		}
	}
	if (rt.module && fxt_tls.generation !=
	    __atomic_load_n(&rt.page->generation, __ATOMIC_ACQUIRE)) {
		t = sync_session(t);
		if (!t)
			return NULL;
	}
	if (!has_room(t, least_words(type, nargs, args))) {
		drop(t);
		return NULL;
	}
	return t;
}

static __attribute__((noinline)) bool
emit_slow(struct tbuf *t, struct fxtrace_site *site, unsigned int type,
	  uint64_t trailing, uint64_t end_time, unsigned int nargs,
	  const struct fxtrace_arg *args)
{
	struct text cat, name, argn[FXT_ARGS_MAX], argv[FXT_ARGS_MAX];
	__u32 words, i, n, aw;
	__u64 *p, now, lost;

	now = fxt_now();
	lost = __atomic_load_n(&rt.lost, __ATOMIC_RELAXED);
	if (lost != t->lost_written)
		write_lost(t, lost);
	define_strings(t);

	cat = text_of((__u16)fxt_bits(site->hdr, 32, 47), site->category);
	name = text_of((__u16)fxt_bits(site->hdr, 48, 63), site->name);
	if (type == FXT_EVENT_DURATION_END && !nargs &&
	    fxt_bits(site->hdr, 16, 19) != FXT_EVENT_DURATION_END)
		nargs = 0;	/* a scope's end: the begin's site, no args */
	words = 0;
	for (i = 0; i < nargs; i++) {
		argn[i] = text_of((__u16)fxt_bits(site->arg_hdr[i], 16, 31),
				  args[i].name);
		aw = fxt_arg_fixed_words_(&args[i]);
		if (args[i].kind == FXT_KIND_STRING) {
			argv[i] = (struct text){ 0, args[i].str, args[i].len, 0 };
			argv[i].fixed = utf8_fix(args[i].str, args[i].len, NULL);
			argv[i].ref = fxt_inline_string_ref(argv[i].fixed);
			aw = text_words(&argv[i]);
		}
		words += fxt_arg_words(argn[i].ref, aw);
	}
	words += fxt_event_words(type, THREAD_INDEX, cat.ref, name.ref, 0) - 2;
	words += 2;
	p = words <= FXT_RECORD_WORDS_MAX ? reserve(t, words) : NULL;
	if (!p) {
		drop(t);
		return false;
	}
	n = 0;
	p[n++] = fxt_event_hdr(words, type, nargs, THREAD_INDEX, cat.ref,
			       name.ref);
	p[n++] = type == FXT_EVENT_DURATION_COMPLETE ? end_time : now;
	n += put_text(p + n, &cat);
	n += put_text(p + n, &name);
	for (i = 0; i < nargs; i++) {
		const struct fxtrace_arg *a = &args[i];
		unsigned int at = fxt_arg_type(a->kind);

		switch (a->kind) {
		case FXT_KIND_NULL:
			p[n++] = fxt_arg_hdr(at, fxt_arg_words(argn[i].ref, 0),
					     argn[i].ref, 0);
			n += put_text(p + n, &argn[i]);
			break;
		case FXT_KIND_INT32:
		case FXT_KIND_UINT32:
		case FXT_KIND_BOOL:
			p[n++] = fxt_arg_hdr(at, fxt_arg_words(argn[i].ref, 0),
					     argn[i].ref, (__u32)a->bits);
			n += put_text(p + n, &argn[i]);
			break;
		case FXT_KIND_STRING:
			p[n++] = fxt_arg_hdr(at, fxt_arg_words(argn[i].ref,
							       text_words(&argv[i])),
					     argn[i].ref, argv[i].ref);
			n += put_text(p + n, &argn[i]);
			n += put_text(p + n, &argv[i]);
			break;
		default:
			p[n++] = fxt_arg_hdr(at, fxt_arg_words(argn[i].ref, 1),
					     argn[i].ref, 0);
			n += put_text(p + n, &argn[i]);
			p[n++] = a->bits;
			break;
		}
	}
	if (fxt_event_trailing_words(type))
		p[n++] = type == FXT_EVENT_DURATION_COMPLETE ? now : trailing;
	commit(p + n);
	return true;
}

/* An event of a handler that interrupted this thread inside the library. */
static void drop_nested(void)
{
	if (self)
		drop(self);
	else
		count_lost();
}

/* An event's first use of its site: its arguments are not evaluated yet. */
bool fxt_resolve_event(struct fxtrace_site *site)
{
	if (!enter()) {
		drop_nested();
		return false;
	}
	lock();
	resolve_enable_locked(site);
	unlock();
	leave();
	return *site->enabled;
}

bool fxt_emit(struct fxtrace_site *site, unsigned int event_type,
	      uint64_t trailing, uint64_t end_time, unsigned int nargs,
	      const struct fxtrace_arg *args)
{
	struct tbuf *t;
	bool written;

	if (!enter()) {
		drop_nested();
		return false;
	}
	t = emit_buffer(site, event_type, nargs, args);
	written = t && emit_slow(t, site, event_type, trailing, end_time,
				 nargs, args);
	leave();
	return written;
}

bool fxt_emit_end(struct fxtrace_site *site, uint64_t epoch)
{
	if (epoch != fxt_tls.epoch)
		return false;	/* the begin's buffer was cleared or replaced */
	return fxt_emit(site, FXT_EVENT_DURATION_END, 0, 0, 0, NULL);
}

uint64_t fxt_thread_dropped(void)
{
	return self ? __atomic_load_n(&self->ctl->dropped_records,
				      __ATOMIC_RELAXED) : 0;
}

uint64_t fxt_process_lost(void)
{
	return __atomic_load_n(&rt.lost, __ATOMIC_RELAXED);
}

/*
 * The thread's comm becomes the name too, so that the kernel's records
 * (kernel:task renames, the names at Start) agree with this thread's.
 */
void fxt_set_thread_name(const char *name)
{
	prctl(PR_SET_NAME, name);
	snprintf(pending_name, sizeof(pending_name), "%s", name);
	if (!enter())
		return;
	/*
	 * The buffer read inside the library: a handler's event before could
	 * have replaced it (a new session) and unmapped the one before.
	 */
	if (self) {
		read_thread_name(self);
		write_thread_name(self);
	}
	/* Without one, attach takes the whole name from pending_name. */
	leave();
}

/* ---- output -------------------------------------------------------------- */

static int write_words(int fd, const __u64 *w, size_t n)
{
	const char *p = (const char *)w;
	size_t left = n * 8;
	ssize_t r;

	while (left) {
		r = write(fd, p, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		left -= (size_t)r;
	}
	return 0;
}

/*
 * Copy t's halves, oldest first, with only whole committed records: a half
 * the writer moved into during the copy is left out (the wrap count tells),
 * the copy retried when both were.  Returns the words in copy.
 */
static size_t copy_halves(const struct tbuf *t, __u64 *copy)
{
	__u64 w1, w2, len[2];
	unsigned int cur, try;

	/*
	 * [wrap] and [commit] (kmod/buffer.c) from the reader's side: the
	 * count, then the offsets, then the copy, then the count again.
	 */
	for (try = 0; try < 1000; try++) {
		w1 = __atomic_load_n(&t->ctl->wrap_count, __ATOMIC_ACQUIRE);
		cur = w1 & 1;
		len[0] = w1 ? __atomic_load_n(&t->ctl->rolling_committed[cur ^ 1],
					      __ATOMIC_ACQUIRE) / 8 : 0;
		len[1] = __atomic_load_n(&t->ctl->rolling_committed[cur],
					 __ATOMIC_ACQUIRE) / 8;
		if (len[0] > t->half_cap || len[1] > t->half_cap)
			return 0;
		memcpy(copy, t->half[cur ^ 1], len[0] * 8);
		memcpy(copy + len[0], t->half[cur], len[1] * 8);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		w2 = __atomic_load_n(&t->ctl->wrap_count, __ATOMIC_RELAXED);
		if (w2 == w1)
			return len[0] + len[1];
		if (w2 == w1 + 1) {
			/* The older half is being reused: keep the newer. */
			memmove(copy, copy + len[0], len[1] * 8);
			return len[1];
		}
	}
	return 0;
}

/*
 * One thread's buffer: its halves copied first, then its durable part (the
 * announcement, thread and string records: every string an event copied
 * refers to was committed before it), the process's name once, then the
 * events.
 */
static int write_thread(int fd, const struct tbuf *t, bool name_process,
			__u64 *copy)
{
	__u64 words[2 + 8 + 4];
	char comm[64], fixed[64];
	size_t nwords = copy_halves(t, copy);
	ssize_t len = -1;
	__u32 n;
	int ret, cfd;

	/* [commit] (kmod/buffer.c): only what the offset covers. */
	ret = write_words(fd, t->durable,
			  __atomic_load_n(&t->ctl->durable_committed,
					  __ATOMIC_ACQUIRE) / 8);
	if (!ret && name_process) {
		cfd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
		if (cfd >= 0) {
			len = read(cfd, comm, sizeof(comm) - 1);
			close(cfd);
		}
		if (len > 0 && comm[len - 1] == '\n')
			len--;
		len = len < 0 ? 0 : (ssize_t)utf8_fix_max(comm, (size_t)len,
							  fixed, 40);
		n = fxt_write_kobj_name(words, FXT_KOBJ_PROCESS, (__u64)t->pid,
					fixed, (__u32)len, 0);
		ret = write_words(fd, words, n);
	}
	if (!ret)
		ret = write_words(fd, copy, nwords);
	return ret;
}

/* Under rt.lock, inside the library. */
static int flush_locked(void)
{
	const __u64 magic = FXT_MAGIC_WORD;
	size_t cap = 0;
	__u64 *copy = NULL;
	struct tbuf *t;
	int fd, ret;

	/* With the module the controller reads the buffers. */
	if (!rt.on || rt.module)
		return 0;
	/* Only the root writes a trace without events (it owns OUTPUT). */
	if (rt.spool_fd < 0 && (!rt.root || open_spool()))
		return 0;
	for (t = rt.threads; t; t = t->next)
		if (t->half_cap * 2 > cap)
			cap = t->half_cap * 2;
	/* mmap, not malloc: fxt_flush() may run in a signal handler. */
	copy = mmap(NULL, cap * 8 + 8, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return -ENOMEM;
	fd = fxtctl_create_output(rt.output, 0);
	ret = fd < 0 ? fd : write_words(fd, &magic, 1);
	for (t = rt.threads; t && !ret; t = t->next)
		ret = write_thread(fd, t, !t->next, copy);
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	munmap(copy, cap * 8 + 8);
	if (ret)
		warn("cannot write %s: %s%s", rt.output, error_text(-ret),
		     fxtctl_output_refusal(ret));
	return ret;
}

int fxt_flush(void)
{
	int ret;

	if (!enter())
		return -EDEADLK;	/* from a handler inside the library */
	lock();
	if (!rt.initialized)
		initialize();
	ret = flush_locked();
	unlock();
	leave();
	return ret;
}

/* Entries of FXTRACE_CATEGORIES that matched none of our categories. */
static void warn_unused_patterns(void)
{
	unsigned int i;

	if (!rt.ncategories)
		return;
	for (i = 0; i < rt.npatterns; i++)
		if (!rt.pattern_used[i])
			warn("FXTRACE_CATEGORIES: \"%s\" matched no category of "
			     "this process", rt.patterns[i]);
}

/*
 * dlclose(): nothing of this copy runs once it returns (its code goes, its
 * thread-exit key is deleted, its exit function called away), so the
 * copy gives back all it holds, or a program that opens and closes a
 * plugin again and again runs out of file descriptors
 * (RLIMIT_NOFILE) and mappings (vm.max_map_count).  With the module,
 * unmapping a buffer's producer part retires it (the kernel keeps what
 * was committed) and lets it be freed.  A thread whose exit is in
 * thread_exit() meanwhile finds its buffer gone once it has the lock
 * (detach_module()); one writing an event would fault: it was running
 * code that dlclose() unmaps anyway.  Under rt.lock.
 */
static void release_copy(void)
{
	struct tbuf *t, *next;
	unsigned int i;

	for (t = rt.threads; t; t = next) {
		next = t->next;
		if (rt.module)
			munmap((void *)t->hdr, FXTRACE_BUFFER_PAGE_SIZE);
		if (!in_spool_reserve(t))
			munmap(t->map, t->map_size);
		free_tbuf(t);
	}
	rt.threads = NULL;
	if (rt.spool_base)
		munmap(rt.spool_base, rt.spool_reserve);
	if (rt.spool_fd >= 0)
		close(rt.spool_fd);
	if (rt.page)
		munmap((void *)rt.page, FXTRACE_SESSION_MAP_SIZE);
	if (rt.fd >= 0)
		close(rt.fd);
	for (i = 0; i < rt.arena_chunks; i++)
		munmap(rt.arena_chunk[i], ARENA_SIZE);
}

/*
 * A clean exit writes the trace; the spool is only needed after a crash.
 * The last destructor (priority 101 runs after the others): linked
 * statically, the program's own destructors would otherwise run after
 * it, and their events were lost.
 *
 * libfxtrace.a linked into a shared object runs this at its dlclose()
 * too, which then unmaps the library: it writes the copy's trace
 * (user-only) and releases the copy (release_copy()).  Not at exit:
 * other threads, and later destructors, may still write until
 * exit_group(), and the kernel retires each module buffer, with all of
 * that, as its thread exits.  Inside the library, as every path that
 * takes rt.lock: a signal handler's event meanwhile is dropped, not
 * waiting for the lock its own thread holds.
 */
__attribute__((destructor(101))) static void flush_at_exit(void)
{
	char path[sizeof(rt.output) + 8];
	bool closing = !rt.exit_begun;
	int ret;

	if (!rt.loaded)
		return;
	/* With the module, a thread's exit during exit() has nothing to do. */
	if (closing || rt.module)
		pthread_key_delete(rt.exit_key);
	if (closing)
		forget_exit_marker();
	if ((!closing && (!rt.on || rt.module)) || !enter())
		return;
	lock();
	if (rt.on && !rt.module) {
		ret = flush_locked();
		if (!ret && rt.spool_fd >= 0) {
			snprintf(path, sizeof(path), "%s.spool", rt.output);
			unlink(path);
		}
		warn_unused_patterns();
	}
	if (closing)
		release_copy();
	unlock();
	leave();
}
