// SPDX-License-Identifier: GPL-2.0
/*
 * Description: libfxtrace under the conditions issue reports broke it, in
 * user-only mode.  Each case runs in a fresh process (this program run
 * again with a mode and the environment a user would set), and this
 * driver checks what it wrote with the project's decoder:
 * - scopes: a duration's end is written exactly when its begin was
 *   (nested enabled/disabled categories, first and later runs of a site,
 *   a fork inside a scope); TRACE_ENABLED answers as the categories say;
 * - tree: a traced process that forks, and execs traced programs: every
 *   process writes its own output, nobody truncates another's spool;
 * - signal: a 200 us timer whose handler emits from the first event on
 *   never deadlocks; every attempt is recorded or counted;
 * - ownership: fxt_category_enabled() does not keep the caller's string;
 * - names: the copies of names stop at 4 MiB;
 * - destructor: the program's own destructors are traced (static link);
 * - flush: 300 flushes while two threads write in circular mode all
 *   decode without error;
 * - categories: FXTRACE_CATEGORIES entries are trimmed, empty and unused
 *   entries reported once;
 * - utf8: strings that are not UTF-8, and the 32,000-byte cut, come out
 *   valid, thread names too (each bad byte three bytes, cut to fit);
 * - attach: a thread that cannot get a buffer is counted, warned about
 *   once, and traced after its retry;
 * - bigrecord: string arguments too long together for one record (each
 *   within 32,000 bytes) drop the event, inline or not, and never write a
 *   record whose size field overflowed;
 * - complete: a TRACE_COMPLETE start taken with fxt_now() before the
 *   process's first event is on the clock the event is written with;
 * - forktimens (with the module, module_timens_test.sh): the same in a
 *   child forked into the time namespace its parent unshared;
 * - ctor: an event from the program's own constructor finds the library
 *   set up (static link: its constructor runs first);
 * - chdir: a relative FXTRACE_OUTPUT is where the process started, after
 *   it changed directory, and for the programs it runs;
 * - mappings: threads' buffers do not cost a mapping each;
 * - flushsig: fxt_flush() from a signal handler that interrupted malloc;
 * - warnsig: the warnings of a first event and of a flush in a signal
 *   handler say the error without strerror(), which is not safe there;
 * - hole: a thread's region whose mapping failed and left a hole in the
 *   spool's reservation (Linux 6.1): what the program maps there stays;
 * - mapfail (with the module, module_attach_test.sh): a thread whose
 *   buffer was attached and not mapped, or retired by the failed mapping,
 *   is traced after its retry;
 * - forklock: fork() while another thread holds the library's lock; the
 *   child's first event is written, without waiting for it;
 * - setupsig: an event in a signal handler that interrupted the
 *   library's constructor is dropped, and the program goes on;
 * - cancel: a thread cancelled inside the library, at a cancellation
 *   point under its lock, does not leave the lock taken;
 * - cancelattach (with the module, module_attach_test.sh): a thread with
 *   a cancellation pending makes its first event, then is cancelled;
 *   its buffer's mappings go with it.
 * Prints TAP.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "../../tests/tap.h"
#include "trace_decode.h"

static char self_path[4096];
static char dir[] = "/tmp/fxtrace-behaviour-XXXXXX";

static long gettid_(void)
{
	return syscall(SYS_gettid);
}

/* ---- the cases, each in its own process ---------------------------------- */

static void db_query(void)
{
	TRACE_DURATION("db", "query");
}

static void request(void)
{
	TRACE_DURATION("app", "request");
	db_query();
	TRACE_INSTANT("app", "after_inner", FXT_SCOPE_THREAD);
}

static void off_outer(void)
{
	TRACE_DURATION("db", "outer", FXT_ARG("n", 1));
	TRACE_DURATION("app", "inner_on", FXT_ARG("n", 2));
}

static void both_off(void)
{
	TRACE_DURATION("db", "x");
	TRACE_DURATION("db", "y");
}

static void both_on(void)
{
	TRACE_DURATION("app", "a", FXT_ARG("s", "str"));
	TRACE_DURATION("app", "b");
}

static int mode_scopes(void)
{
	int run, enabled_app = 0, enabled_db = 0, i, status;
	pid_t child;

	for (run = 0; run < 2; run++) {
		request();
		off_outer();
		both_off();
		both_on();
	}
	for (i = 0; i < 1000; i++) {
		enabled_app += TRACE_ENABLED("app");
		enabled_db += TRACE_ENABLED("db");
	}
	printf("enabled_app %d\nenabled_db %d\n", enabled_app, enabled_db);
	{
		TRACE_DURATION("app", "forked");
		fflush(stdout);
		child = fork();
		if (!child) {
			TRACE_INSTANT("app", "child", FXT_SCOPE_THREAD);
			printf("child %d\n", (int)getpid());
		}
	}	/* the child leaves the scope too: no end in its trace */
	if (!child)
		exit(0);
	waitpid(child, &status, 0);
	return 0;
}

static int mode_leaf(void)
{
	int i;

	for (i = 0; i < 100; i++)
		TRACE_INSTANT("app", "leaf", FXT_SCOPE_THREAD, FXT_ARG("i", i));
	return 0;
}

static int mode_tree(void)
{
	pid_t forked, leaf;
	int i, status, ok = 1;

	for (i = 0; i < 1000; i++)
		TRACE_INSTANT("app", "root", FXT_SCOPE_THREAD, FXT_ARG("i", i));
	fflush(stdout);
	forked = fork();
	if (!forked) {
		for (i = 0; i < 100; i++)
			TRACE_INSTANT("app", "forked", FXT_SCOPE_THREAD,
				      FXT_ARG("i", i));
		exit(0);
	}
	leaf = fork();
	if (!leaf) {
		execl(self_path, self_path, "leaf", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 1000; i++)
		TRACE_INSTANT("app", "root", FXT_SCOPE_THREAD, FXT_ARG("i", i));
	ok &= waitpid(forked, &status, 0) == forked && WIFEXITED(status) &&
	      !WEXITSTATUS(status);
	ok &= waitpid(leaf, &status, 0) == leaf && WIFEXITED(status) &&
	      !WEXITSTATUS(status);
	printf("forked %d\nleaf %d\nchildren_ok %d\n", (int)forked, (int)leaf, ok);
	return 0;
}

static volatile long handler_attempts;

static void tick(int sig)
{
	(void)sig;
	if (TRACE_ENABLED("app")) {
		handler_attempts++;
		TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD);
	}
}

static int mode_signal(void)
{
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct timespec t0, t1;
	long attempts = 0, ns;

	signal(SIGALRM, tick);
	setitimer(ITIMER_REAL, &it, NULL);	/* before the first event */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		TRACE_INSTANT("app", "busy", FXT_SCOPE_THREAD,
			      FXT_ARG("i", attempts));
		attempts++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = (t1.tv_sec - t0.tv_sec) * 1000000000L +
		     (t1.tv_nsec - t0.tv_nsec);
		/* At least 0.5 s and 200 handler events: a loaded machine
		 * runs this thread too seldom for 200 ticks in 0.5 s. */
	} while (ns < 500000000L ||
		 (handler_attempts < 200 && ns < 20000000000L));
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("tid %ld\nattempts %ld\nhandler %ld\ndropped %llu\nlost %llu\n",
	       gettid_(), attempts, handler_attempts,
	       (unsigned long long)fxt_thread_dropped(),
	       (unsigned long long)fxt_process_lost());
	return 0;
}

/* One call site for both threads: its category string is the caller's. */
static void *app_event(void *arg)
{
	(void)arg;
	TRACE_INSTANT("app", "event", FXT_SCOPE_THREAD);
	return NULL;
}

static int mode_ownership(void)
{
	char *cat = strdup("app");
	pthread_t th;

	printf("enabled %d\n", fxt_category_enabled(cat));
	app_event(NULL);
	memset(cat, 'X', 3);
	free(cat);
	/* A new thread's buffer defines the site's category string. */
	pthread_create(&th, NULL, app_event, NULL);
	pthread_join(th, NULL);
	return 0;
}

/*
 * 200 categories of 30,000 bytes (6 MB): their copies stop at 4 MiB (139
 * of them at most), and names copied before are still found after.
 */
static int mode_names(void)
{
	static char name[30001];
	int i, enabled = 0;

	TRACE_INSTANT("app", "before", FXT_SCOPE_THREAD);
	for (i = 0; i < 200; i++) {
		memset(name, 'a' + i % 26, sizeof(name) - 1);
		snprintf(name, 8, "%07d", i);
		name[7] = 'x';
		enabled += fxt_category_enabled(name);
	}
	printf("enabled %d\n", enabled);
	TRACE_INSTANT("app", "before", FXT_SCOPE_THREAD);
	return 0;
}

/* Set by the "destructor" mode only: this program links libfxtrace.a. */
static int emit_at_exit;

__attribute__((destructor)) static void program_destructor(void)
{
	if (emit_at_exit)
		TRACE_INSTANT("app", "destructor", FXT_SCOPE_THREAD);
}

static int mode_destructor(void)
{
	emit_at_exit = 1;
	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	return 0;
}

static volatile int writers_stop;

static void *writer(void *arg)
{
	static const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz0123";
	long i;

	(void)arg;
	for (i = 0; !writers_stop; i++) {
		TRACE_INSTANT("app", "w", FXT_SCOPE_THREAD,
			      FXT_STRN("s", text, (size_t)(i % 40)));
		TRACE_DURATION_BEGIN("app", "pair", FXT_ARG("i", i));
		TRACE_DURATION_END("app", "pair");
	}
	return NULL;
}

static int mode_flush(void)
{
	const char *path = getenv("FXTRACE_OUTPUT");
	pthread_t th[2];
	int k, bad = 0, flushes = 300, events = 0;
	struct trace tr;

	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	pthread_create(&th[0], NULL, writer, NULL);
	pthread_create(&th[1], NULL, writer, NULL);
	for (k = 0; k < flushes; k++) {
		if (fxt_flush())
			bad++;
		tr = trace_read(path);
		if (!tr.ok || tr.errors || tr.warnings)
			bad++;
		events += tr.n;
		trace_free(&tr);
	}
	writers_stop = 1;
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	printf("flushes %d\nbad %d\nevents %d\n", flushes, bad, events);
	return 0;
}

static int mode_categories(void)
{
	TRACE_INSTANT("app", "e", FXT_SCOPE_THREAD);
	TRACE_INSTANT("db", "e", FXT_SCOPE_THREAD);
	TRACE_INSTANT("net", "e", FXT_SCOPE_THREAD);
	return 0;
}

static void *renamed_thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "bad\xff\xfename");
	TRACE_INSTANT("app", "named", FXT_SCOPE_THREAD);
	return NULL;
}

/*
 * A name of 60 bytes that are not UTF-8, set before and after the thread's
 * first event: each byte becomes three, cut to the 63 the name holds.
 */
static void *bad_name_thread(void *arg)
{
	char name[61];

	(void)arg;
	memset(name, 0xff, 60);
	name[60] = 0;
	fxt_set_thread_name(name);
	TRACE_INSTANT("app", "badly named", FXT_SCOPE_THREAD);
	fxt_set_thread_name(name);
	TRACE_INSTANT("app", "badly named", FXT_SCOPE_THREAD);
	return NULL;
}

static int mode_utf8(void)
{
	static char big[32001];
	pthread_t th;

	memset(big, 'a', 31999);
	memcpy(big + 31999, "\xc3\xa9", 2);	/* e-acute across the cut */
	TRACE_INSTANT("app", "bad", FXT_SCOPE_THREAD, FXT_ARG("s", "\xff\xfe ok"));
	TRACE_INSTANT("app", "long", FXT_SCOPE_THREAD,
		      FXT_STRN("s", big, sizeof(big)));
	TRACE_INSTANT("app", "name\xff", FXT_SCOPE_THREAD);
	TRACE_INSTANT("app", "good", FXT_SCOPE_THREAD, FXT_ARG("s", "caf\xc3\xa9"));
	pthread_create(&th, NULL, renamed_thread, NULL);
	pthread_join(th, NULL);
	pthread_create(&th, NULL, bad_name_thread, NULL);
	pthread_join(th, NULL);
	return 0;
}

static long blocked_tid;

static void *blocked(void *arg)
{
	int i;

	(void)arg;
	blocked_tid = gettid_();
	for (i = 0; i < 100; i++)
		TRACE_INSTANT("app", "lost", FXT_SCOPE_THREAD);
	return NULL;
}

static void *retried(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 10; i++)
		TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	return NULL;
}

/*
 * A spool that cannot grow (RLIMIT_FSIZE) makes attach fail for the second
 * thread, as full task-buffer slots do with the module.
 */
static int mode_attach(void)
{
	struct rlimit lim;
	pthread_t th;
	long tid;

	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &lim);
	lim.rlim_cur = 2 * 4096 + (16 << 10);	/* the main thread's region */
	setrlimit(RLIMIT_FSIZE, &lim);
	pthread_create(&th, NULL, blocked, NULL);
	pthread_join(th, NULL);
	tid = blocked_tid;
	/* The same thread again after the limit is gone: a new one here. */
	lim.rlim_cur = lim.rlim_max;
	setrlimit(RLIMIT_FSIZE, &lim);
	printf("lost_before %llu\n", (unsigned long long)fxt_process_lost());
	pthread_create(&th, NULL, retried, NULL);
	pthread_join(th, NULL);
	printf("blocked %ld\nlost %llu\n", tid,
	       (unsigned long long)fxt_process_lost());
	return 0;
}

/* The same thread fails, backs off, and is traced once it can attach. */
static int mode_retry(void)
{
	struct rlimit lim;
	int i;

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &lim);
	lim.rlim_cur = 4096;
	setrlimit(RLIMIT_FSIZE, &lim);
	for (i = 0; i < 50; i++)
		TRACE_INSTANT("app", "lost", FXT_SCOPE_THREAD);
	lim.rlim_cur = lim.rlim_max;
	setrlimit(RLIMIT_FSIZE, &lim);
	usleep(20000);		/* past the backoff (1 ms, doubling) */
	for (i = 0; i < 10; i++)
		TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	printf("tid %ld\nlost %llu\n", gettid_(),
	       (unsigned long long)fxt_process_lost());
	return 0;
}

/*
 * Two 20,000-byte ASCII strings: 5,000 words, more than a record's 4,095.
 * The loop's later runs take the inline path; two 15,000-byte strings fit,
 * and two of 16,100 (4,025 words: written out of line) too.
 */
static int mode_bigrecord(void)
{
	static char a[20001], b[20001];
	int i;

	memset(a, 'a', sizeof(a) - 1);
	memset(b, 'b', sizeof(b) - 1);
	TRACE_INSTANT("app", "before", FXT_SCOPE_THREAD);
	for (i = 0; i < 3; i++)
		TRACE_INSTANT("app", "two", FXT_SCOPE_THREAD, FXT_ARG("a", a),
			      FXT_ARG("b", b));
	for (i = 0; i < 3; i++)
		TRACE_INSTANT("app", "fits", FXT_SCOPE_THREAD,
			      FXT_STRN("a", a, 15000), FXT_STRN("b", b, 15000));
	for (i = 0; i < 3; i++)
		TRACE_INSTANT("app", "fits out of line", FXT_SCOPE_THREAD,
			      FXT_STRN("a", a, 16100), FXT_STRN("b", b, 16100));
	TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	printf("dropped %llu\n", (unsigned long long)fxt_thread_dropped());
	return 0;
}

/*
 * fxt_now() before the process's first event, for TRACE_COMPLETE: the
 * start must be on the clock the event is written with (50 ms apart).
 */
static int mode_complete(void)
{
	uint64_t start = fxt_now();

	usleep(50000);
	TRACE_COMPLETE("app", "first", start);
	start = fxt_now();
	usleep(50000);
	TRACE_COMPLETE("app", "second", start);
	return 0;
}

/*
 * With the module (module_timens_test.sh): the clock set up by fxt_now(),
 * then unshare(CLONE_NEWTIME) with CLOCK_MONOTONIC 100,000 s ahead, which
 * is the namespace of the process's children only; a child forked then
 * is in it (timens_on_fork()), and its TRACE_COMPLETE, whose start
 * fxt_now() took before the child's first event, lasts the 50 ms slept.
 */
static int mode_forktimens(void)
{
	static const char offsets[] = "monotonic 100000 0\n";
	int fd, status = -1;
	ssize_t n = -1;
	uint64_t start;
	pid_t pid;

	fxt_now();
	if (unshare(CLONE_NEWTIME))
		return 1;
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = write(fd, offsets, sizeof(offsets) - 1);
		close(fd);
	}
	if (n != sizeof(offsets) - 1)
		return 1;
	pid = fork();
	if (!pid) {
		start = fxt_now();
		usleep(50000);
		TRACE_COMPLETE("app", "child", start);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return status;
}

/*
 * A constructor of the program's own (as a C++ static object's is), run
 * before main, emitting when BEHAVIOUR_CTOR_EVENT is set: libfxtrace.a's
 * set-up must have run already (its clock is the same as without it).
 */
__attribute__((constructor)) static void program_constructor(void)
{
	if (getenv("BEHAVIOUR_CTOR_EVENT"))
		TRACE_INSTANT("app", "constructor", FXT_SCOPE_THREAD);
}

/*
 * The same at the library's own priority, 101 (a C++ static object with
 * init_priority(101) is one): linked before libfxtrace.a, it runs before
 * the library's constructor, and its event must still find the library
 * set up as it would be (BEHAVIOUR_CTOR101_EVENT).
 */
__attribute__((constructor(101))) static void program_constructor_101(void)
{
	if (getenv("BEHAVIOUR_CTOR101_EVENT"))
		TRACE_INSTANT("app", "constructor-101", FXT_SCOPE_THREAD);
}

static int mode_ctor(void)
{
	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	return 0;
}

/*
 * Started with a relative FXTRACE_OUTPUT, the process moves to a
 * subdirectory after its first event and runs a traced program there:
 * the spool, the trace and the program's trace stay where it started.
 */
static int mode_chdir(void)
{
	int status;
	pid_t leaf;

	TRACE_INSTANT("app", "before", FXT_SCOPE_THREAD);
	if (chdir("sub"))
		return 1;
	TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	fflush(stdout);
	leaf = fork();
	if (!leaf) {
		execl(self_path, self_path, "leaf", (char *)NULL);
		_exit(127);
	}
	waitpid(leaf, &status, 0);
	printf("leaf %d\n", (int)leaf);
	return 0;
}

static int count_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static void *one_event(void *arg)
{
	TRACE_INSTANT("app", "short-lived", FXT_SCOPE_THREAD);
	return arg;
}

/*
 * 300 short-lived threads, each with a buffer (kept until exit): their
 * regions of the spool must not cost a mapping each, or a process reaches
 * vm.max_map_count (65,530) after about 32,000 threads in its life.
 */
static int mode_mappings(void)
{
	int i, before;
	pthread_t th;

	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	before = count_mappings();
	for (i = 0; i < 300; i++) {
		pthread_create(&th, NULL, one_event, NULL);
		pthread_join(th, NULL);
	}
	printf("mappings %d\nlost %llu\n", count_mappings() - before,
	       (unsigned long long)fxt_process_lost());
	return 0;
}

static volatile long flushes_ok, flushes_refused;
static volatile int flushsig_stop;

/* Re-armed after each flush: the loop always gets 1 ms to run. */
static void flush_on_signal(int sig)
{
	struct itimerval it = { { 0, 0 }, { 0, 1000 } };

	(void)sig;
	if (fxt_flush())
		flushes_refused++;
	else
		flushes_ok++;
	if (!flushsig_stop)
		setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * fxt_flush() from a signal handler (flush on SIGTERM, say) while the
 * thread is in malloc: the flush must not use malloc itself.  A timer
 * 1 ms after each flush, for 1 s of a malloc/free loop with events.
 */
static int mode_flushsig(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 1000 } };
	struct timespec t0, t1;
	void *p[16];
	long ns;
	int i;

	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	signal(SIGALRM, flush_on_signal);
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 16; i++)
			p[i] = malloc(100 + (size_t)i * 1000);
		for (i = 0; i < 16; i++)
			free(p[i]);
		TRACE_INSTANT("app", "loop", FXT_SCOPE_THREAD);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = (t1.tv_sec - t0.tv_sec) * 1000000000L +
		     (t1.tv_nsec - t0.tv_nsec);
	} while (ns < 1000000000L);
	flushsig_stop = 1;
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("flushes %ld\nrefused %ld\n", flushes_ok, flushes_refused);
	return 0;
}

/*
 * A program that limits its own address space after its first event
 * (setrlimit(RLIMIT_AS), 4 GiB): the spool's reserved address space
 * counts against the limit, and must leave the program its memory
 * (a 256 MiB allocation), and still take 40 more threads' buffers.
 */
static int mode_rlimit(void)
{
	struct rlimit rl = { 4ULL << 30, 4ULL << 30 };
	pthread_t th;
	void *p;
	int i;

	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	if (setrlimit(RLIMIT_AS, &rl))
		return 1;
	p = malloc(256 << 20);
	printf("malloc %d\n", p != NULL);
	free(p);
	for (i = 0; i < 40; i++) {
		pthread_create(&th, NULL, one_event, NULL);
		pthread_join(th, NULL);
	}
	printf("lost %llu\n", (unsigned long long)fxt_process_lost());
	return 0;
}

/*
 * The program's own fallocate() stands in for libc's (libfxtrace.a is
 * linked statically): BEHAVIOUR_FALLOCATE=eintr fails every other call
 * with EINTR, as a tmpfs or FUSE spool does when a signal arrives during
 * it; =enosys and =eperm fail every call, as a system call filter
 * (seccomp) that refuses it does.  Unset: the system call.
 */
int fallocate(int fd, int mode, off_t off, off_t len)
{
	static int calls;
	const char *how = getenv("BEHAVIOUR_FALLOCATE");

	if (how && !strcmp(how, "eintr") &&
	    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) % 2 == 0) {
		errno = EINTR;
		return -1;
	}
	if (how && (!strcmp(how, "enosys") || !strcmp(how, "eperm"))) {
		errno = how[1] == 'n' ? ENOSYS : EPERM;
		return -1;
	}
	return (int)syscall(SYS_fallocate, fd, mode, off, len);
}

static void *falloc_thread(void *arg)
{
	TRACE_INSTANT("app", "falloc-thread", FXT_SCOPE_THREAD);
	return arg;
}

/*
 * 2,000 events of 500 bytes (1 MiB: 16 of the rolling halves' 64 KiB
 * allocation steps) and 20 threads' first events, under the fallocate()
 * above: neither a signal during the call nor a refused call is a full
 * disk, and no event may be dropped or lost for them.
 */
static int mode_fallocate(void)
{
	char s[501];
	pthread_t th;
	int i;

	memset(s, 'f', sizeof(s) - 1);
	s[sizeof(s) - 1] = 0;
	for (i = 0; i < 2000; i++)
		TRACE_INSTANT("app", "falloc", FXT_SCOPE_THREAD,
			      FXT_ARG("s", s));
	for (i = 0; i < 20; i++) {
		pthread_create(&th, NULL, falloc_thread, NULL);
		pthread_join(th, NULL);
	}
	printf("dropped %llu\nlost %llu\n",
	       (unsigned long long)fxt_thread_dropped(),
	       (unsigned long long)fxt_process_lost());
	return 0;
}

/*
 * The program's own strerror() stands in for libc's (as fallocate()
 * above) and counts its calls: the library's warnings may come from a
 * signal handler, where strerror() may translate and allocate.
 */
static volatile int strerror_calls;

char *strerror(int err)
{
	strerror_calls++;
	return (char *)strerrordesc_np(err);
}

static void warn_on_signal(int sig)
{
	(void)sig;
	TRACE_INSTANT("app", "handler", FXT_SCOPE_THREAD);
	fxt_flush();
}

/* The process's first event and a flush, both in a signal handler. */
static int mode_warnsig(void)
{
	signal(SIGUSR1, warn_on_signal);
	raise(SIGUSR1);
	printf("tid %ld\nstrerror %d\n", gettid_(), strerror_calls);
	return 0;
}

/*
 * The program's own mmap() stands in for libc's (as fallocate() above).
 * BEHAVIOUR_MMAP=hole: the second MAP_FIXED mapping of a file (the first
 * thread's region, after the main thread's) unmaps its target and fails,
 * as Linux 6.1's mmap_region() does when the new mapping cannot be set
 * up once the old one is gone; the hole is kept in mmap_hole.
 * =producer: the first writable shared mapping of a file (with the
 * module, the first buffer's producer part) fails with ENOMEM.
 * =retired: that mapping is made and unmapped, then fails with ENOMEM,
 * as older kernels' mmap_region() failed when it could not insert the
 * VMA after the module's mmap() ran: its close retires the buffer.
 */
static void *mmap_hole;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static int fixed_files, writable_files;
	const char *how = getenv("BEHAVIOUR_MMAP");

	if (how && !strcmp(how, "hole") && flags & MAP_FIXED && fd >= 0 &&
	    ++fixed_files == 2) {
		munmap(addr, len);
		mmap_hole = addr;
		errno = ENOMEM;
		return MAP_FAILED;
	}
	if (how && (!strcmp(how, "producer") || !strcmp(how, "retired")) &&
	    flags & MAP_SHARED && prot & PROT_WRITE && fd >= 0 &&
	    ++writable_files == 1) {
		if (!strcmp(how, "retired"))
			munmap((void *)syscall(SYS_mmap, addr, len, prot, flags,
					       fd, off), len);
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/*
 * A thread's region fails to map and leaves a hole in the reservation;
 * the program's memory lands there (here placed with MAP_FIXED_NOREPLACE,
 * as an mmap() of another thread's may); the next thread's region must
 * not be mapped over it.
 */
static int mode_hole(void)
{
	const size_t len = 4096;
	unsigned char *mine;
	pthread_t th;
	size_t i;
	int intact = 1;

	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	pthread_create(&th, NULL, one_event, NULL);	/* no buffer: lost */
	pthread_join(th, NULL);
	if (!mmap_hole)
		return 1;
	mine = mmap(mmap_hole, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (mine != mmap_hole)
		return 1;
	memset(mine, 0xa5, len);
	pthread_create(&th, NULL, one_event, NULL);
	pthread_join(th, NULL);
	for (i = 0; i < len; i++)
		if (mine[i] != 0xa5)
			intact = 0;
	printf("intact %d\nlost %llu\n", intact,
	       (unsigned long long)fxt_process_lost());
	return 0;
}

/*
 * With the module and BEHAVIOUR_MMAP=producer: the first event's buffer
 * is attached, its mapping fails (the event lost); after the backoff
 * the thread's events are written.
 */
static int mode_mapfail(void)
{
	int i;

	TRACE_INSTANT("app", "lost", FXT_SCOPE_THREAD);
	usleep(20000);		/* past the backoff (1 ms) */
	for (i = 0; i < 10; i++)
		TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	printf("lost %llu\n", (unsigned long long)fxt_process_lost());
	return 0;
}

static volatile int hammer_stop;

/* Takes the library's lock again and again: flushes and a category. */
static void *hammer(void *arg)
{
	while (!hammer_stop) {
		fxt_flush();
		fxt_category_enabled("hammer");
	}
	return arg;
}

/*
 * fork() while another thread holds the library's lock (its flushes):
 * each child's first event must be written, within 5 s (the first child
 * that hangs ends the loop).
 */
static int mode_forklock(void)
{
	int i, j, status, hung = 0, failed = 0;
	pthread_t th;
	pid_t pid;

	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	pthread_create(&th, NULL, hammer, NULL);
	for (i = 0; i < 200; i++) {
		pid = fork();
		if (!pid) {
			TRACE_INSTANT("app", "child", FXT_SCOPE_THREAD);
			_exit(fxt_process_lost() ? 2 : 0);
		}
		for (j = 0; j < 500; j++) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			usleep(10000);
		}
		if (j == 500) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			hung++;
			break;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			failed++;
		}
	}
	hammer_stop = 1;
	pthread_join(th, NULL);
	printf("hung %d\nfailed %d\n", hung, failed);
	return 0;
}

/*
 * The program's own pthread_atfork() stands in for glibc's (as mmap()
 * above), which the library calls from its constructor, holding its lock.
 * BEHAVIOUR_ATFORK=signal: a signal arrives there, and its handler emits
 * an event, so that the handler interrupts the library's set-up.
 */
int __register_atfork(void (*prepare)(void), void (*parent)(void),
		      void (*child)(void), void *dso);
extern void *__dso_handle;

static void event_on_signal(int sig)
{
	(void)sig;
	TRACE_INSTANT("app", "in set-up", FXT_SCOPE_THREAD);
}

int pthread_atfork(void (*prepare)(void), void (*parent)(void),
		   void (*child)(void))
{
	const char *how = getenv("BEHAVIOUR_ATFORK");

	if (how && !strcmp(how, "signal")) {
		signal(SIGUSR1, event_on_signal);
		raise(SIGUSR1);
	}
	return __register_atfork(prepare, parent, child, __dso_handle);
}

/* With BEHAVIOUR_ATFORK=signal: the handler's event, then the program's. */
static int mode_setupsig(void)
{
	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	printf("lost %llu\n", (unsigned long long)fxt_process_lost());
	return 0;
}

/*
 * A thread with a cancellation pending makes its first event: the spool's
 * open() and fallocate(), under the library's lock, are cancellation
 * points.  The name set first spares it an open() of its comm before the
 * lock.
 */
static void *cancelled_thread(void *arg)
{
	fxt_set_thread_name("cancelled");
	pthread_cancel(pthread_self());
	TRACE_INSTANT("app", "cancelled", FXT_SCOPE_THREAD);
	pthread_testcancel();
	return arg;
}

/* Then the main thread's first event takes the lock too. */
static int mode_cancel(void)
{
	void *ret = NULL;
	pthread_t th;

	pthread_create(&th, NULL, cancelled_thread, NULL);
	pthread_join(th, &ret);
	TRACE_INSTANT("app", "main", FXT_SCOPE_THREAD);
	printf("cancelled %d\n", ret == PTHREAD_CANCELED);
	return 0;
}

/*
 * No name set: its first event's attach reads the thread's comm, whose
 * open() and read() are cancellation points.  The event is written, and
 * the thread is cancelled at pthread_testcancel().
 */
static void *cancelled_attach_thread(void *arg)
{
	pthread_cancel(pthread_self());
	TRACE_INSTANT("app", "cancelled", FXT_SCOPE_THREAD);
	pthread_testcancel();
	return arg;
}

/* The mappings of /dev/fxtrace once the thread is gone: the session page. */
static int mode_cancelattach(void)
{
	char line[512];
	void *ret = NULL;
	int maps = 0;
	pthread_t th;
	FILE *f;

	pthread_create(&th, NULL, cancelled_attach_thread, NULL);
	pthread_join(th, &ret);
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		maps += strstr(line, " /dev/fxtrace") != NULL;
	fclose(f);
	printf("cancelled %d\nmaps %d\nlost %llu\n", ret == PTHREAD_CANCELED,
	       maps, (unsigned long long)fxt_process_lost());
	return 0;
}

/* ---- the driver ------------------------------------------------------------ */

struct run {
	int status;		/* waitpid status; -1: killed after the timeout */
	char out[8192], err[8192];
};

static void slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, cap - 1, f) : 0;

	buf[n] = 0;
	if (f)
		fclose(f);
}

/* Run this program in mode with FXTRACE_OUTPUT=output and env (NAME=VALUE). */
static struct run run_mode(const char *mode, const char *output,
			   const char *const *env, int timeout_s)
{
	static struct run r;
	char out[4200], err[4200];
	int i, status = 0;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/stdout", dir);
	snprintf(err, sizeof(err), "%s/stderr", dir);
	memset(&r, 0, sizeof(r));
	fflush(stdout);
	pid = fork();
	if (!pid) {
		freopen(out, "w", stdout);
		freopen(err, "w", stderr);
		setenv("FXTRACE_OUTPUT", output, 1);
		unsetenv("FXTRACE_OUTPUT_ROOT");
		unsetenv("FXTRACE_CATEGORIES");
		unsetenv("FXTRACE_MODE");
		unsetenv("FXTRACE_BUFFER_SIZE");
		for (i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execl(self_path, self_path, mode, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < timeout_s * 100; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(10000);
	}
	if (i == timeout_s * 100) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		status = -1;
	}
	r.status = status;
	slurp(out, r.out, sizeof(r.out));
	slurp(err, r.err, sizeof(r.err));
	unlink(out);
	unlink(err);
	return r;
}

static long value(const struct run *r, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "%s ", key);
	for (p = r->out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, pat, strlen(pat)))
			return strtol(p + strlen(pat), NULL, 10);
	return -1;
}

static bool exited_ok(const struct run *r)
{
	return r->status >= 0 && WIFEXITED(r->status) && !WEXITSTATUS(r->status);
}

static int lines(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

static void path_in(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

/* Remove every file in dir but stdout/stderr. */
static void clean_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4400];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			path_in(p, sizeof(p), e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
}

static int count_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int spool_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".spool") != NULL;
	if (d)
		closedir(d);
	return n;
}

/* The sequence of "B name", "E name", "I name" of tid, space separated. */
static void sequence(const struct trace *tr, uint64_t tid, char *buf, size_t cap)
{
	static const char code[] = { [FXT_EVENT_INSTANT] = 'I',
		[FXT_EVENT_DURATION_BEGIN] = 'B', [FXT_EVENT_DURATION_END] = 'E' };
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < tr->n && len < cap; i++)
		if (!tid || tr->ev[i].tid == tid)
			len += (size_t)snprintf(buf + len, cap - len, "%s%c %s:%s",
						len ? ", " : "",
						tr->ev[i].type < 4 ?
						code[tr->ev[i].type] : '?',
						tr->ev[i].cat, tr->ev[i].name);
}

static void test_scopes(void)
{
	static const char *const env[] = { "FXTRACE_CATEGORIES=app", NULL };
	static const char once[] =
		"B app:request, I app:after_inner, E app:request, "
		"B app:inner_on, E app:inner_on, "
		"B app:a, B app:b, E app:b, E app:a";
	char out[4400], seq[2048], want[2048], child_out[4500];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "scopes.fxt");
	r = run_mode("scopes", out, env, 30);
	EXPECT_TRUE(exited_ok(&r));
	tap_result("scopes: exits 0");
	tr = trace_read(out);
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, tr.warnings);
	tap_result("scopes: trace decodes cleanly");
	sequence(&tr, 0, seq, sizeof(seq));
	snprintf(want, sizeof(want), "%s, %s, B app:forked, E app:forked",
		 once, once);
	EXPECT_STR(want, seq);
	tap_result("scopes: an end exactly for each begin written");
	EXPECT_EQ(1000, value(&r, "enabled_app"));
	EXPECT_EQ(0, value(&r, "enabled_db"));
	tap_result("TRACE_ENABLED: app 1000/1000, db 0/1000 (%ld, %ld)",
		   value(&r, "enabled_app"), value(&r, "enabled_db"));
	trace_free(&tr);
	snprintf(child_out, sizeof(child_out), "%s.%ld", out, value(&r, "child"));
	tr = trace_read(child_out);
	sequence(&tr, 0, seq, sizeof(seq));
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_STR("I app:child", seq);
	tap_result("scopes: a child forked inside a scope writes no end (%s: %s)",
		   child_out, seq);
	trace_free(&tr);
	clean_dir();
}

static void test_tree(void)
{
	char out[4400], p[4500];
	struct trace tr;
	struct run r;
	long forked, leaf, root;
	int i, foreign;

	path_in(out, sizeof(out), "tree.fxt");
	r = run_mode("tree", out, NULL, 60);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(1, value(&r, "children_ok"));
	tap_result("tree: the root and its children exit 0 (status %d)", r.status);
	forked = value(&r, "forked");
	leaf = value(&r, "leaf");
	EXPECT_EQ(3, count_files());
	EXPECT_EQ(0, spool_files());
	tap_result("tree: three outputs, no spool left (%d files)", count_files());

	tr = trace_read(out);
	root = tr.n ? (long)tr.ev[0].pid : -1;
	for (i = 0, foreign = 0; i < tr.n; i++)
		foreign += (long)tr.ev[i].pid != root;
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, tr.warnings);
	EXPECT_EQ(2000, trace_count(&tr, 0, "root"));
	EXPECT_EQ(2000, tr.n);
	EXPECT_EQ(0, foreign);
	tap_result("tree: %s holds the root's 2000 events only (%d, %d foreign, "
		   "%llu errors)", out, tr.n, foreign, (unsigned long long)tr.errors);
	trace_free(&tr);

	snprintf(p, sizeof(p), "%s.%ld", out, forked);
	tr = trace_read(p);
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, tr.warnings);
	if (EXPECT_EQ(100, tr.n)) {
		EXPECT_EQ(100, trace_count(&tr, 0, "forked"));
		EXPECT_EQ(forked, (long)tr.ev[0].pid);
	}
	tap_result("tree: the forked child's 100 events in OUTPUT.%ld (%d)", forked, tr.n);
	trace_free(&tr);

	snprintf(p, sizeof(p), "%s.%ld", out, leaf);
	tr = trace_read(p);
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, tr.warnings);
	if (EXPECT_EQ(100, tr.n)) {
		EXPECT_EQ(100, trace_count(&tr, 0, "leaf"));
		EXPECT_EQ(leaf, (long)tr.ev[0].pid);
	}
	tap_result("tree: the exec'd program's 100 events in OUTPUT.%ld (%d)", leaf, tr.n);
	trace_free(&tr);
	clean_dir();
}

static void test_signal(void)
{
	static const char *const env[] = { "FXTRACE_MODE=circular", NULL };
	long attempts, handler, dropped, lost, tid;
	int recorded;
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "signal.fxt");
	r = run_mode("signal", out, env, 30);
	EXPECT_TRUE(exited_ok(&r));
	tap_result("signal: a 200 us timer emitting from the first event "
		   "on: no deadlock (status %d)", r.status);
	attempts = value(&r, "attempts");
	handler = value(&r, "handler");
	dropped = value(&r, "dropped");
	lost = value(&r, "lost");
	tid = value(&r, "tid");
	tr = trace_read(out);
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, tr.warnings);
	tap_result("signal: trace decodes cleanly");
	/* Circular: older records are overwritten, so count what the thread
	 * tried against what it kept, dropped and lost only up to that. */
	recorded = trace_count(&tr, (uint64_t)tid, NULL);
	EXPECT_CMP(handler, >, 100);
	EXPECT_CMP(recorded, >, 0);
	EXPECT_CMP(recorded + dropped + lost, <=, attempts + handler);
	tap_result("signal: %ld handler events, %d recorded, %ld dropped, %ld lost of %ld",
		   handler, recorded, dropped, lost, attempts + handler);
	trace_free(&tr);
	clean_dir();
}

static void test_signal_oneshot(void)
{
	static const char *const env[] = { "FXTRACE_BUFFER_SIZE=64M", NULL };
	long attempts, handler, dropped, lost, tid;
	int recorded;
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "signal1.fxt");
	r = run_mode("signal", out, env, 30);
	attempts = value(&r, "attempts");
	handler = value(&r, "handler");
	dropped = value(&r, "dropped");
	lost = value(&r, "lost");
	tid = value(&r, "tid");
	tr = trace_read(out);
	recorded = trace_count(&tr, (uint64_t)tid, NULL);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(attempts + handler, recorded + dropped + lost);
	tap_result("signal, oneshot: %d recorded + %ld dropped + %ld lost == %ld attempted",
		   recorded, dropped, lost, attempts + handler);
	trace_free(&tr);
	clean_dir();
}

static void test_ownership(void)
{
	char out[4400];
	struct trace tr;
	struct run r;
	int i, app = 0;

	path_in(out, sizeof(out), "own.fxt");
	r = run_mode("ownership", out, NULL, 30);
	tr = trace_read(out);
	for (i = 0; i < tr.n; i++)
		app += !strcmp(tr.ev[i].cat, "app");
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(2, tr.n);
	EXPECT_EQ(2, app);
	tap_result("ownership: a freed category string is not used (%d of %d events "
		   "in \"app\")", app, tr.n);
	trace_free(&tr);
	clean_dir();
}

static void test_names(void)
{
	char out[4400];
	struct trace tr;
	struct run r;
	int enabled = -1;
	const char *line;

	path_in(out, sizeof(out), "names.fxt");
	r = run_mode("names", out, NULL, 60);
	tr = trace_read(out);
	line = strstr(r.out, "enabled ");
	if (line)
		enabled = atoi(line + 8);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(2, tr.n);
	EXPECT_TRUE(enabled >= 2 && enabled <= (4 << 20) / 30001);
	tap_result("names: copies stop at 4 MiB (%d of 200 long categories kept), "
		   "%d events", enabled, tr.n);
	trace_free(&tr);
	clean_dir();
}

static void test_destructor(void)
{
	char out[4400], seq[512];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "dtor.fxt");
	r = run_mode("destructor", out, NULL, 30);
	tr = trace_read(out);
	sequence(&tr, 0, seq, sizeof(seq));
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, tr.errors);
	EXPECT_STR("I app:main, I app:destructor", seq);
	tap_result("destructor: a static program's destructor is traced (%s)", seq);
	trace_free(&tr);
	clean_dir();
}

static void test_flush(void)
{
	static const char *const env[] = { "FXTRACE_MODE=circular",
					   "FXTRACE_BUFFER_SIZE=16K", NULL };
	char out[4400];
	struct run r;

	path_in(out, sizeof(out), "flush.fxt");
	r = run_mode("flush", out, env, 120);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(300, value(&r, "flushes"));
	EXPECT_EQ(0, value(&r, "bad"));
	EXPECT_CMP(value(&r, "events"), >, 300);
	tap_result("flush: %ld of 300 flushes during writes not well formed (%ld events)",
		   value(&r, "bad"), value(&r, "events"));
	clean_dir();
}

static void test_categories(void)
{
	static const char *const trim[] = {
		"FXTRACE_CATEGORIES= app , ,\tdb ,,", NULL };
	static const char *const empty[] = { "FXTRACE_CATEGORIES=,,,", NULL };
	static const char *const unused[] = {
		"FXTRACE_CATEGORIES=app,nope", NULL };
	/* 4,097 bytes, cut inside ",app": "a" would have been an entry. */
	static char long_list[4200] = "FXTRACE_CATEGORIES=db,";
	const char *const longer[] = { long_list, NULL };
	char out[4400], seq[512];
	struct trace tr;
	struct run r;
	size_t at;

	path_in(out, sizeof(out), "cats.fxt");
	r = run_mode("categories", out, trim, 30);
	tr = trace_read(out);
	sequence(&tr, 0, seq, sizeof(seq));
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STR("I app:e, I db:e", seq);
	tap_result("categories \" app , ,\\tdb ,,\": app and db traced (%s)", seq);
	EXPECT_EQ(1, lines(r.err, "libfxtrace:"));
	EXPECT_TRUE(lines(r.err, "3 empty entries"));
	tap_result("categories: one warning about the 3 empty entries\n#  %s", r.err);
	trace_free(&tr);
	clean_dir();

	r = run_mode("categories", out, empty, 30);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(3, tr.n);
	EXPECT_EQ(1, lines(r.err, "libfxtrace:"));
	tap_result("categories \",,,\": warned once, every category traced (%d)", tr.n);
	trace_free(&tr);
	clean_dir();

	r = run_mode("categories", out, unused, 30);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(1, lines(r.err, "libfxtrace:"));
	EXPECT_TRUE(lines(r.err, "\"nope\" matched no category"));
	tap_result("categories \"app,nope\": one warning naming nope\n#  %s", r.err);
	clean_dir();

	at = strlen(long_list);
	/* n****...t: one entry of 4,090 bytes, which matches "net". */
	memset(long_list + at, '*', 4090);
	long_list[at] = 'n';
	strcpy(long_list + at + 4089, "t,app");
	r = run_mode("categories", out, longer, 30);
	tr = trace_read(out);
	sequence(&tr, 0, seq, sizeof(seq));
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STR("I db:e, I net:e", seq);
	EXPECT_EQ(1, lines(r.err, "libfxtrace:"));
	EXPECT_TRUE(lines(r.err, "longer than 4095 bytes: the entries from byte 4094 on are ignored"));
	tap_result("categories of 4,097 bytes: db and net traced, the cut entry ignored and warned about (%s)\n#  %s",
		   seq, r.err);
	trace_free(&tr);
	clean_dir();
}

static const struct ev *find(const struct trace *tr, const char *name)
{
	int i;

	for (i = 0; i < tr->n; i++)
		if (!strcmp(tr->ev[i].name, name))
			return &tr->ev[i];
	return NULL;
}

static void test_utf8(void)
{
	char out[4400];
	const struct ev *e;
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "utf8.fxt");
	r = run_mode("utf8", out, NULL, 30);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, tr.warnings);
	EXPECT_EQ(7, tr.n);
	tap_result("utf8: 7 events, no error or warning (%d, %llu, %llu)", tr.n,
		   (unsigned long long)tr.errors, (unsigned long long)tr.warnings);
	e = find(&tr, "bad");
	if (EXPECT_TRUE(e)) {
		EXPECT_STR("\xef\xbf\xbd\xef\xbf\xbd ok", e->arg_str[1]);
	}
	tap_result("utf8: bad bytes become U+FFFD");
	e = find(&tr, "long");
	if (EXPECT_TRUE(e)) {
		EXPECT_EQ(31999, e->arg_len[1]);
	}
	tap_result("utf8: 32,001 bytes cut to 31,999, not inside a character (%u)",
		   e ? e->arg_len[1] : 0);
	EXPECT_TRUE(find(&tr, "name\xef\xbf\xbd") != NULL);
	tap_result("utf8: an event name made valid");
	e = find(&tr, "good");
	if (EXPECT_TRUE(e)) {
		EXPECT_STR("caf\xc3\xa9", e->arg_str[1]);
	}
	tap_result("utf8: valid UTF-8 kept");
	if (EXPECT_TRUE(find(&tr, "named"))) {
		EXPECT_CMP(tr.thread_names, >=, 2);
	}
	tap_result("utf8: a thread with a non-UTF-8 comm is named (%d names)",
		   tr.thread_names);
	EXPECT_EQ(2, trace_count(&tr, 0, "badly named"));
	EXPECT_CMP(tr.thread_names, >=, 4);
	tap_result("utf8: a 60-byte non-UTF-8 fxt_set_thread_name() name, set "
		   "before and after the first event (%d events, %d names)",
		   trace_count(&tr, 0, "badly named"), tr.thread_names);
	trace_free(&tr);
	clean_dir();
}

static void test_attach(void)
{
	static const char *const env[] = { "FXTRACE_BUFFER_SIZE=16K", NULL };
	char out[4400];
	const struct ev *e;
	struct trace tr;
	struct run r;
	long blocked;

	path_in(out, sizeof(out), "attach.fxt");
	r = run_mode("attach", out, env, 30);
	blocked = value(&r, "blocked");
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(100, value(&r, "lost_before"));
	EXPECT_EQ(100, value(&r, "lost"));
	tap_result("attach: the 100 events of a thread without a buffer counted (%ld)",
		   value(&r, "lost"));
	EXPECT_EQ(1, lines(r.err, "libfxtrace:"));
	EXPECT_TRUE(lines(r.err, "no trace buffer"));
	tap_result("attach: one line on stderr\n#  %s", r.err);
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, trace_count(&tr, (uint64_t)blocked, NULL));
	EXPECT_EQ(10, trace_count(&tr, 0, "after"));
	tap_result("attach: the next thread is traced (%d events)",
		   trace_count(&tr, 0, "after"));
	e = find(&tr, "lost events");
	if (EXPECT_TRUE(e)) {
		EXPECT_EQ(FXT_EVENT_COUNTER, e->type);
		EXPECT_STR("fxtrace", e->cat);
		EXPECT_EQ(100, e->arg_u64[0]);
	}
	tap_result("attach: the trace holds fxtrace:lost events = 100 (%llu)",
		   e ? (unsigned long long)e->arg_u64[0] : 0ULL);
	trace_free(&tr);
	clean_dir();

	path_in(out, sizeof(out), "retry.fxt");
	r = run_mode("retry", out, NULL, 30);
	tr = trace_read(out);
	e = find(&tr, "lost events");
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(50, value(&r, "lost"));
	EXPECT_EQ(10, trace_count(&tr, (uint64_t)value(&r, "tid"), "after"));
	if (EXPECT_TRUE(e)) {
		EXPECT_EQ(50, e->arg_u64[0]);
	}
	tap_result("attach: the same thread retries after its backoff and is traced "
		   "(lost %ld)", value(&r, "lost"));
	trace_free(&tr);
	clean_dir();
}

static void test_bigrecord(void)
{
	char out[4400];
	const struct ev *e;
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "bigrecord.fxt");
	r = run_mode("bigrecord", out, NULL, 30);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_TRUE(tr.ok);
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(0, tr.warnings);
	tap_result("bigrecord: the trace decodes (%llu errors, %llu warnings)",
		   (unsigned long long)tr.errors, (unsigned long long)tr.warnings);
	EXPECT_EQ(0, trace_count(&tr, 0, "two"));
	EXPECT_EQ(3, value(&r, "dropped"));
	tap_result("bigrecord: 3 events of 40,000 bytes of strings dropped and "
		   "counted (%ld)", value(&r, "dropped"));
	EXPECT_EQ(3, trace_count(&tr, 0, "fits"));
	e = find(&tr, "fits");
	if (EXPECT_TRUE(e)) {
		EXPECT_EQ(15000, e->arg_len[1]);
		EXPECT_EQ(15000, e->arg_len[2]);
	}
	EXPECT_EQ(3, trace_count(&tr, 0, "fits out of line"));
	EXPECT_EQ(1, trace_count(&tr, 0, "before"));
	EXPECT_EQ(1, trace_count(&tr, 0, "after"));
	tap_result("bigrecord: the events around them, 2 x 15,000 and 2 x 16,100 "
		   "bytes kept (%d, %d)", trace_count(&tr, 0, "fits"),
		   trace_count(&tr, 0, "fits out of line"));
	trace_free(&tr);
	clean_dir();
}

static void test_complete(void)
{
	const struct ev *first, *second;
	char out[4400];
	struct trace tr;
	struct run r;
	int64_t d1 = -1, d2 = -1;

	path_in(out, sizeof(out), "complete.fxt");
	r = run_mode("complete", out, NULL, 30);
	tr = trace_read(out);
	first = find(&tr, "first");
	second = find(&tr, "second");
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, tr.errors);
	if (EXPECT_TRUE(first && second)) {
		d1 = first->end_ns - first->ts_ns;
		d2 = second->end_ns - second->ts_ns;
		/* 50 ms slept; the first also waits for the clock's calibration */
		EXPECT_CMP(d1, >=, 50000000);
		EXPECT_CMP(d1, <, 2000000000);
		EXPECT_CMP(d2, >=, 50000000);
		EXPECT_CMP(d2, <, 2000000000);
	}
	tap_result("complete: a start from fxt_now() before the first event is "
		   "on the events' clock (%lld and %lld ns for 50 ms)",
		   (long long)d1, (long long)d2);
	trace_free(&tr);
	clean_dir();
}

static void test_ctor(void)
{
	static const char *const env[] = { "BEHAVIOUR_CTOR_EVENT=1", NULL };
	uint64_t plain_tps, ctor_tps;
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "plain.fxt");
	r = run_mode("ctor", out, NULL, 30);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	plain_tps = tr.ticks_per_second;
	trace_free(&tr);
	path_in(out, sizeof(out), "ctor.fxt");
	r = run_mode("ctor", out, env, 30);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(1, trace_count(&tr, 0, "constructor"));
	EXPECT_EQ(1, trace_count(&tr, 0, "main"));
	ctor_tps = tr.ticks_per_second;
	/* The TSC (calibrated) or CLOCK_MONOTONIC (10^9) in both runs. */
	EXPECT_EQ(plain_tps == 1000000000ULL, ctor_tps == 1000000000ULL);
	tap_result("ctor: an event from a program constructor before main, "
		   "after the library's set-up (%llu and %llu ticks/s)",
		   (unsigned long long)plain_tps, (unsigned long long)ctor_tps);
	trace_free(&tr);
	clean_dir();
}

/*
 * env: none, or a constructor's event before the library's (priority
 * 101, as ours): a relative output is made absolute all the same.
 */
static void test_chdir_env(const char *const *env)
{
	char sub[4400], cwd[4096], out[4400], leaf_out[4400];
	struct trace tr;
	struct run r;
	int in_sub = -1;
	DIR *d;

	path_in(sub, sizeof(sub), "sub");
	mkdir(sub, 0700);
	if (!getcwd(cwd, sizeof(cwd)) || chdir(dir)) {
		tap_result("chdir: cannot enter %s", dir);
		return;
	}
	r = run_mode("chdir", "chdir.fxt", env, 30);
	if (chdir(cwd))
		return;
	path_in(out, sizeof(out), "chdir.fxt");
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(1, trace_count(&tr, 0, "before"));
	EXPECT_EQ(1, trace_count(&tr, 0, "after"));
	EXPECT_EQ(env ? 1 : 0, trace_count(&tr, 0, "constructor-101"));
	EXPECT_EQ(0, spool_files());
	trace_free(&tr);
	snprintf(leaf_out, sizeof(leaf_out), "%s/chdir.fxt.%ld", dir,
		 value(&r, "leaf"));
	tr = trace_read(leaf_out);
	EXPECT_EQ(100, trace_count(&tr, 0, "leaf"));
	trace_free(&tr);
	d = opendir(sub);
	if (d) {
		struct dirent *e;

		in_sub = 0;
		while ((e = readdir(d)))
			in_sub += e->d_name[0] != '.';
		closedir(d);
	}
	EXPECT_EQ(0, in_sub);
	tap_result("chdir: a relative FXTRACE_OUTPUT stays where the process "
		   "started (trace, no spool left, the exec'd program's trace; "
		   "%d files in the new directory)%s", in_sub,
		   env ? ", with an event from a constructor that runs "
			 "before the library's" : "");
	/* clean_dir() removes files only */
	d = opendir(sub);
	if (d) {
		struct dirent *e;
		char p[8900];

		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(p, sizeof(p), "%s/%s", sub, e->d_name);
				unlink(p);
			}
		closedir(d);
	}
	rmdir(sub);
	clean_dir();
}

static void test_chdir(void)
{
	static const char *const ctor101[] = { "BEHAVIOUR_CTOR101_EVENT=1",
					       NULL };

	test_chdir_env(NULL);
	test_chdir_env(ctor101);
}

static void test_mappings(void)
{
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "mappings.fxt");
	r = run_mode("mappings", out, NULL, 60);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(300, trace_count(&tr, 0, "short-lived"));
	EXPECT_EQ(0, value(&r, "lost"));
	EXPECT_CMP(value(&r, "mappings"), <, 30);
	tap_result("mappings: 300 threads' buffers add %ld mappings, not one "
		   "or two each (%d events)", value(&r, "mappings"),
		   trace_count(&tr, 0, "short-lived"));
	trace_free(&tr);
	clean_dir();
}

static void test_flushsig(void)
{
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "flushsig.fxt");
	r = run_mode("flushsig", out, NULL, 60);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_CMP(value(&r, "flushes"), >, 0);
	EXPECT_EQ(0, tr.errors);
	EXPECT_CMP(trace_count(&tr, 0, "loop"), >, 0);
	tap_result("flushsig: fxt_flush() in a signal handler that interrupts "
		   "malloc (status %d, %ld flushes, %ld refused inside the "
		   "library)", r.status, value(&r, "flushes"),
		   value(&r, "refused"));
	trace_free(&tr);
	clean_dir();
}

static void test_rlimit(void)
{
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "rlimit.fxt");
	r = run_mode("rlimit", out, NULL, 60);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(1, value(&r, "malloc"));
	EXPECT_EQ(0, value(&r, "lost"));
	EXPECT_EQ(40, trace_count(&tr, 0, "short-lived"));
	tap_result("rlimit: RLIMIT_AS lowered after the first event leaves the "
		   "program its memory (malloc %ld, %d threads' events)",
		   value(&r, "malloc"), trace_count(&tr, 0, "short-lived"));
	trace_free(&tr);
	clean_dir();
}

static void test_fallocate(void)
{
	static const char *const how[] = { "BEHAVIOUR_FALLOCATE=eintr",
					    "BEHAVIOUR_FALLOCATE=enosys",
					    "BEHAVIOUR_FALLOCATE=eperm" };
	static const char *const size = "FXTRACE_BUFFER_SIZE=4M";
	const char *env[3];
	char out[4400];
	struct trace tr;
	struct run r;
	unsigned int i;

	for (i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		env[0] = how[i];
		env[1] = size;
		env[2] = NULL;
		path_in(out, sizeof(out), "falloc.fxt");
		r = run_mode("fallocate", out, env, 60);
		tr = trace_read(out);
		EXPECT_TRUE(exited_ok(&r));
		EXPECT_EQ(0, tr.errors);
		EXPECT_EQ(0, value(&r, "dropped"));
		EXPECT_EQ(0, value(&r, "lost"));
		EXPECT_EQ(2000, trace_count(&tr, 0, "falloc"));
		EXPECT_EQ(20, trace_count(&tr, 0, "falloc-thread"));
		tap_result("fallocate: %s is not a full disk (%d events, "
			   "%ld dropped, %ld lost)", how[i] + 20,
			   trace_count(&tr, 0, "falloc"), value(&r, "dropped"),
			   value(&r, "lost"));
		trace_free(&tr);
		clean_dir();
	}
}

static void test_warnsig(void)
{
	char out[4400], want[9200];
	struct run r;

	/* No directory for the spool: the handler's event has no buffer. */
	path_in(out, sizeof(out), "none/warnsig.fxt");
	r = run_mode("warnsig", out, NULL, 30);
	snprintf(want, sizeof(want),
		 "libfxtrace: cannot create %s.spool: No such file or directory\n"
		 "libfxtrace: thread %ld has no trace buffer (No such file or "
		 "directory): its events are lost and counted; retrying\n",
		 out, value(&r, "tid"));
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STR(want, r.err);
	EXPECT_EQ(0, value(&r, "strerror"));
	tap_result("warnsig: a first event in a signal handler that cannot "
		   "attach warns without strerror() (%ld calls)",
		   value(&r, "strerror"));
	clean_dir();

	/* A directory where the trace goes: the handler's flush fails. */
	path_in(out, sizeof(out), "warnsig.fxt");
	mkdir(out, 0700);
	r = run_mode("warnsig", out, NULL, 30);
	/* The same at exit, outside the handler. */
	snprintf(want, sizeof(want),
		 "libfxtrace: cannot write %s: Is a directory\n"
		 "libfxtrace: cannot write %s: Is a directory\n", out, out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_STR(want, r.err);
	EXPECT_EQ(0, value(&r, "strerror"));
	tap_result("warnsig: a flush in a signal handler that cannot write "
		   "warns without strerror() (%ld calls)",
		   value(&r, "strerror"));
	rmdir(out);
	clean_dir();
}

static void test_hole(void)
{
	static const char *const env[] = { "BEHAVIOUR_MMAP=hole", NULL };
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "hole.fxt");
	r = run_mode("hole", out, env, 30);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(1, value(&r, "intact"));
	EXPECT_EQ(1, value(&r, "lost"));
	EXPECT_EQ(1, trace_count(&tr, 0, "main"));
	EXPECT_EQ(1, trace_count(&tr, 0, "short-lived"));
	tap_result("hole: memory mapped into a hole a failed region left in "
		   "the reservation stays the program's (intact %ld; %d and %d "
		   "events, %ld lost)", value(&r, "intact"),
		   trace_count(&tr, 0, "main"),
		   trace_count(&tr, 0, "short-lived"), value(&r, "lost"));
	trace_free(&tr);
	clean_dir();
}

static void test_forklock(void)
{
	static const char *const env[] = { "FXTRACE_BUFFER_SIZE=16K", NULL };
	char out[4400];
	struct run r;

	path_in(out, sizeof(out), "forklock.fxt");
	r = run_mode("forklock", out, env, 60);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, value(&r, "hung"));
	EXPECT_EQ(0, value(&r, "failed"));
	tap_result("forklock: 200 forks while another thread takes the "
		   "library's lock; each child's first event is written "
		   "(%ld hung, %ld failed)", value(&r, "hung"),
		   value(&r, "failed"));
	clean_dir();
}

static void test_setupsig(void)
{
	static const char *const env[] = { "BEHAVIOUR_ATFORK=signal", NULL };
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "setupsig.fxt");
	r = run_mode("setupsig", out, env, 10);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(1, value(&r, "lost"));
	EXPECT_EQ(0, trace_count(&tr, 0, "in set-up"));
	EXPECT_EQ(1, trace_count(&tr, 0, "main"));
	tap_result("setupsig: an event in a signal handler that interrupted "
		   "the library's constructor is counted as lost (status %d, "
		   "%ld lost, %d events after)", r.status, value(&r, "lost"),
		   trace_count(&tr, 0, "main"));
	trace_free(&tr);
	clean_dir();
}

/*
 * The cancelled thread's own event is not checked: cancelled at the
 * fallocate() that backs its first records, outside the lock, it loses
 * that event; where the spool is sparse (no fallocate()) it is written.
 */
static void test_cancel(void)
{
	char out[4400];
	struct trace tr;
	struct run r;

	path_in(out, sizeof(out), "cancel.fxt");
	r = run_mode("cancel", out, NULL, 10);
	tr = trace_read(out);
	EXPECT_TRUE(exited_ok(&r));
	EXPECT_EQ(1, value(&r, "cancelled"));
	EXPECT_EQ(0, tr.errors);
	EXPECT_EQ(1, trace_count(&tr, 0, "main"));
	tap_result("cancel: a thread cancelled at a cancellation point under "
		   "the library's lock leaves it free: the main thread's "
		   "first event is written (status %d, %d written)", r.status,
		   trace_count(&tr, 0, "main"));
	trace_free(&tr);
	clean_dir();
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int (*fn)(void); } modes[] = {
		{ "scopes", mode_scopes }, { "tree", mode_tree },
		{ "leaf", mode_leaf }, { "signal", mode_signal },
		{ "ownership", mode_ownership }, { "names", mode_names },
		{ "destructor", mode_destructor },
		{ "flush", mode_flush },
		{ "categories", mode_categories }, { "utf8", mode_utf8 },
		{ "attach", mode_attach }, { "retry", mode_retry },
		{ "bigrecord", mode_bigrecord }, { "complete", mode_complete },
		{ "ctor", mode_ctor }, { "chdir", mode_chdir },
		{ "mappings", mode_mappings }, { "flushsig", mode_flushsig },
		{ "fallocate", mode_fallocate }, { "rlimit", mode_rlimit },
		{ "warnsig", mode_warnsig }, { "hole", mode_hole },
		{ "mapfail", mode_mapfail }, { "forklock", mode_forklock },
		{ "setupsig", mode_setupsig }, { "forktimens", mode_forktimens },
		{ "cancel", mode_cancel }, { "cancelattach", mode_cancelattach },
	};
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	unsigned int i;

	if (n <= 0)
		return 1;
	self_path[n] = 0;
	if (argc > 1) {
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (!strcmp(argv[1], modes[i].name))
				return modes[i].fn();
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	test_scopes();
	test_tree();
	test_signal();
	test_signal_oneshot();
	test_ownership();
	test_names();
	test_destructor();
	test_flush();
	test_categories();
	test_utf8();
	test_attach();
	test_bigrecord();
	test_complete();
	test_ctor();
	test_chdir();
	test_mappings();
	test_flushsig();
	test_fallocate();
	test_rlimit();
	test_warnsig();
	test_hole();
	test_forklock();
	test_setupsig();
	test_cancel();
	rmdir(dir);
	return tap_plan();
}
