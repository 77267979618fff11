// SPDX-License-Identifier: GPL-2.0
/*
 * Description: static_plugin.so (libfxtrace.a linked into it) opened,
 * used and closed again and again without the module; each closed copy
 * gives back what it held.
 * - untraced: 1,100 reloads (glibc has 1,024 thread-specific keys): no
 *   file descriptor, mapping or heap byte is left by them, and this
 *   program still gets a key.  Before, each copy kept its thread-exit key
 *   (pthread_key_create() then said EAGAIN), and its exit marker's
 *   semaphore and exit-function entry.
 * - user-only (FXTRACE_OUTPUT): 40 reloads with RLIMIT_NOFILE 8 above
 *   the descriptors open before: each closed copy writes its trace, with
 *   its one event, and keeps no descriptor or mapping.  Before, each kept
 *   its spool's descriptor and mappings, and the copies past the limit
 *   could not create a spool: their events were lost; and each copy but
 *   the first wrote OUTPUT.PID over the one before.  OUTPUT and
 *   OUTPUT.PID are there already, stale (an hour old: earlier processes
 *   with this pid), and are replaced.  Before, a stale OUTPUT.PID counted
 *   as taken: it stayed, and the copies wrote OUTPUT.PID.1 on.
 * - all taken: OUTPUT.PID and OUTPUT.PID.1 to .99 are traces this process
 *   wrote; the next copy says so (and that its thread's events are lost),
 *   writes nothing and replaces none.
 *   Before, it warned "cannot create OUTPUT.PID.99.spool: File exists".
 * - a second: a forked child's OUTPUT.PID 0.8 s older than its fork is
 *   taken (its own, to the second the clocks are allowed), and its
 *   OUTPUT.PID.1 1.2 s older is stale and replaced.
 * - linked: a child's stale OUTPUT.PID with a second hard link takes the
 *   name, and the child writes OUTPUT.PID.1.  Before, the child took the
 *   name, its flush refused the file (EMLINK) and its trace was lost.
 * Prints TAP.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../tests/tap.h"
#include "trace_decode.h"

#define UNTRACED_RELOADS	1100
#define TRACED_RELOADS		40
#define SPARE_FDS		8
#define WARM_UP_RELOADS		10

static char dir[] = "/tmp/plugin_reload_test.XXXXXX";

static int count_entries(const char *path)
{
	struct dirent *d;
	int n = 0;
	DIR *dp = opendir(path);

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		n += d->d_name[0] != '.';
	closedir(dp);
	return n;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Open static_plugin.so beside this program, call its work, close it. */
static bool reload(int n)
{
	char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	void (*work)(int);
	char *slash;
	void *so;

	path[len > 0 ? len : 0] = 0;
	slash = strrchr(path, '/');
	if (!slash)
		return false;
	strcpy(slash + 1, "static_plugin.so");
	so = dlopen(path, RTLD_NOW);
	if (!so) {
		printf("# dlopen: %s\n", dlerror());
		return false;
	}
	*(void **)&work = dlsym(so, "plugin_work");
	if (work)
		work(n);
	return !dlclose(so) && work;
}

static void untraced(void)
{
	int i, fds, maps, failed = 0;
	size_t heap;
	pthread_key_t key;

	unsetenv("FXTRACE_OUTPUT");
	/* Lasting allocations of the first loads (dlopen()'s, stdio's) first. */
	for (i = 0; i < WARM_UP_RELOADS; i++)
		reload(i);
	printf("# %d reloads to warm up\n", WARM_UP_RELOADS);
	fds = count_entries("/proc/self/fd");
	maps = count_maps();
	heap = mallinfo2().uordblks;
	for (i = 0; i < UNTRACED_RELOADS; i++)
		failed += !reload(i);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(fds, count_entries("/proc/self/fd"));
	EXPECT_EQ(maps, count_maps());
	printf("# heap in use: %zu bytes before, %zu after\n", heap,
	       mallinfo2().uordblks);
	EXPECT_EQ(heap, mallinfo2().uordblks);
	EXPECT_EQ(0, pthread_key_create(&key, NULL));
	tap_result("untraced: %d reloads leave no descriptor, mapping, heap or thread key",
		   UNTRACED_RELOADS);
}

/* A file at path modified at ns on CLOCK_REALTIME. */
static void write_dated(const char *path, int64_t ns)
{
	struct timespec at[2];
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("stale\n", f);
		fclose(f);
	}
	at[0].tv_sec = ns / 1000000000;
	at[0].tv_nsec = ns % 1000000000;
	at[1] = at[0];
	EXPECT_EQ(0, utimensat(AT_FDCWD, path, at, 0));
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A file at path an hour old, as an earlier run's trace would be. */
static void write_stale(const char *path)
{
	write_dated(path, realtime_ns() - 3600 * 1000000000LL);
}

/* The "plugin" events in the trace at path; -1 if it is not a whole trace. */
static int plugin_events(const char *path)
{
	struct trace tr = trace_read(path);
	int i, n = tr.ok && !tr.errors ? 0 : -1;

	for (i = 0; n >= 0 && i < tr.n; i++)
		n += !strcmp(tr.ev[i].name, "plugin");
	trace_free(&tr);
	return n;
}

static void user_only(void)
{
	char out[sizeof(dir) + 8], stale[sizeof(out) + 16];
	int i, fds, maps, events = 0, failed = 0;
	struct rlimit lim;
	struct dirent *d;
	DIR *dp;

	snprintf(out, sizeof(out), "%s/out", dir);
	setenv("FXTRACE_OUTPUT", out, 1);
	write_stale(out);
	snprintf(stale, sizeof(stale), "%s.%d", out, (int)getpid());
	write_stale(stale);
	fds = count_entries("/proc/self/fd");
	getrlimit(RLIMIT_NOFILE, &lim);
	lim.rlim_cur = (rlim_t)fds + SPARE_FDS;
	setrlimit(RLIMIT_NOFILE, &lim);
	reload(0);
	maps = count_maps();
	for (i = 1; i < TRACED_RELOADS; i++)
		failed += !reload(i);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(fds, count_entries("/proc/self/fd"));
	EXPECT_EQ(maps, count_maps());
	/* One trace per copy, each with its event; no spool or stale file. */
	EXPECT_EQ(TRACED_RELOADS, count_entries(dir));
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		char path[sizeof(dir) + 300];
		struct trace tr;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		tr = trace_read(path);
		for (i = 0; i < tr.n; i++)
			events += !strcmp(tr.ev[i].name, "plugin");
		trace_free(&tr);
		unlink(path);
	}
	if (dp)
		closedir(dp);
	EXPECT_EQ(TRACED_RELOADS, events);
	tap_result("user-only: %d reloads with RLIMIT_NOFILE %d above: every trace written, stale ones replaced, no descriptor or mapping kept",
		   TRACED_RELOADS, SPARE_FDS);
}

static void all_taken(void)
{
	char out[sizeof(dir) + 8], name[sizeof(out) + 32], expected[512];
	char said[512] = "";
	int i, fd, saved;
	ssize_t len;

	snprintf(out, sizeof(out), "%s/out", dir);
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), i ? "%s.%d.%d" : "%s.%d", out,
			 (int)getpid(), i);
		close(open(name, O_WRONLY | O_CREAT | O_EXCL, 0600));
	}
	fd = memfd_create("stderr", 0);
	saved = dup(2);
	dup2(fd, 2);
	EXPECT_TRUE(reload(0));
	dup2(saved, 2);
	close(saved);
	len = pread(fd, said, sizeof(said) - 1, 0);
	said[len > 0 ? len : 0] = 0;
	close(fd);
	snprintf(expected, sizeof(expected),
		 "libfxtrace: %s.%d and %s.%d.1 to .99 are all taken (traces "
		 "this process wrote, or spools: `fxtrace recover` makes them "
		 "traces)\nlibfxtrace: thread %d has no trace buffer (File "
		 "exists): its events are lost and counted; retrying\n",
		 out, (int)getpid(), out, (int)getpid(), (int)getpid());
	EXPECT_STR(expected, said);
	EXPECT_EQ(100, count_entries(dir));
	for (i = 0; i < 100; i++) {
		struct stat st;

		snprintf(name, sizeof(name), i ? "%s.%d.%d" : "%s.%d", out,
			 (int)getpid(), i);
		EXPECT_EQ(0, stat(name, &st));
		EXPECT_EQ(0, st.st_size);
		unlink(name);
	}
	tap_result("all taken: OUTPUT.PID and .1 to .99 this process's: the copy says so and writes nothing");
}

/*
 * The child's start is between before and after; its computed start is
 * rounded down by at most a clock tick (10 ms), so 0.2 s on either side
 * of "start less a second" tells the rule from its neighbours.
 */
static void a_second(void)
{
	char out[sizeof(dir) + 8], own[sizeof(out) + 16],
	     stale[sizeof(out) + 16], c;
	int64_t before, after;
	int go[2], status = -1;
	struct stat st;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out", dir);
	if (pipe(go)) {
		EXPECT_EQ(0, errno);
		return;
	}
	before = realtime_ns();
	pid = fork();
	if (!pid) {
		close(go[1]);
		_exit(read(go[0], &c, 1) != 1 || !reload(0));
	}
	after = realtime_ns();
	close(go[0]);
	snprintf(own, sizeof(own), "%s.%d", out, (int)pid);
	snprintf(stale, sizeof(stale), "%s.%d.1", out, (int)pid);
	write_dated(own, after - 800000000);
	write_dated(stale, before - 1200000000);
	EXPECT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, status);
	EXPECT_EQ(2, count_entries(dir));
	EXPECT_EQ(0, stat(own, &st));
	EXPECT_EQ(6, st.st_size);
	EXPECT_EQ(1, plugin_events(stale));
	unlink(own);
	unlink(stale);
	tap_result("a second: the child's OUTPUT.PID 0.8 s before its fork is its own, OUTPUT.PID.1 1.2 s before is replaced");
}

static void linked(void)
{
	char out[sizeof(dir) + 8], stale[sizeof(out) + 16],
	     link_name[sizeof(out) + 16], trace[sizeof(out) + 16], c;
	int go[2], status = -1;
	struct stat st;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out", dir);
	if (pipe(go)) {
		EXPECT_EQ(0, errno);
		return;
	}
	pid = fork();
	if (!pid) {
		close(go[1]);
		_exit(read(go[0], &c, 1) != 1 || !reload(0));
	}
	close(go[0]);
	snprintf(stale, sizeof(stale), "%s.%d", out, (int)pid);
	snprintf(link_name, sizeof(link_name), "%s/kept", dir);
	snprintf(trace, sizeof(trace), "%s.%d.1", out, (int)pid);
	write_stale(stale);
	EXPECT_EQ(0, link(stale, link_name));
	EXPECT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, status);
	EXPECT_EQ(3, count_entries(dir));
	EXPECT_EQ(0, stat(stale, &st));
	EXPECT_EQ(6, st.st_size);
	EXPECT_EQ(1, plugin_events(trace));
	unlink(stale);
	unlink(link_name);
	unlink(trace);
	tap_result("linked: a stale OUTPUT.PID with another hard link takes the name; the trace is OUTPUT.PID.1");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	untraced();
	user_only();
	all_taken();
	a_second();
	linked();
	rmdir(dir);
	return tap_plan();
}
