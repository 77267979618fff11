// SPDX-License-Identifier: GPL-2.0
/*
 * Description: with the module, a new session begins while a thread
 * attaches its buffer; the thread's events still reach that session.
 * - before: between the library's read of the session id and its
 *   FXTRACE_IOC_ATTACH, which then attaches in the new session, and the
 *   producer part's mapping fails (ENOMEM): the first event is lost;
 *   after the backoff (1 ms) the retry maps the buffer the kernel kept
 *   attached (a new attach says EEXIST), and the 10 later events are in
 *   the new session;
 * - after: once the producer part of the old session's buffer is mapped:
 *   the first event finds that buffer is not the new session's, attaches
 *   in it, and all 11 events are there.
 * - kept across a session: another copy of the library (libfxtrace.a in
 *   static_plugin.so) keeps the thread's buffer, its producer mapping
 *   failed; in a new session this copy's second thread attaches first,
 *   with the kept buffer's id (ids count from 1 in each session), and
 *   keeps its buffer too (its mapping failed), then this copy attaches
 *   the thread.  The plugin's next event attaches the thread through the
 *   plugin's own file (ABI 0.7: before, the kernel said EEXIST) and must
 *   not map the kept id, the second thread's buffer: its event is in a
 *   buffer of its own, and the second thread's retry maps its buffer,
 *   its 10 later events written.
 * Each case runs in a child of its own (a thread with no buffer yet).
 * The child is the controller (libfxtctl) and the producer (libfxtrace);
 * its own ioctl() and mmap() stand in for libc's, to begin the session
 * at those points.  In the guest with fxtrace.ko loaded.  Prints TAP.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxtctl.h"
#include "../../tests/tap.h"
#include "trace_decode.h"

enum race { RACE_NONE, RACE_BEFORE_ATTACH, RACE_AFTER_MAP, RACE_OTHER_COPY };

static struct fxtctl ctl;
static enum race race;
static bool fail_producer;	/* the next producer mapping: ENOMEM */
static int switched = -1;	/* new_session()'s result, once it ran */
static __u32 attached[4];	/* the buffer ids of the successful attaches */
static int nattached;

static int new_session(void)
{
	static const char cats[] = "app";
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = FXTRACE_MODE_ONESHOT,
		.cpu_buffer_size = 64 << 10,
		.task_buffer_size = 64 << 10,
		.categories = (__u64)(uintptr_t)cats,
		.categories_size = sizeof(cats),
	};

	return fxtctl_init(&ctl, &cfg) ?:
	       fxtctl_start(&ctl, FXTRACE_START_CLEAR_ALL);
}

/*
 * The session ends and the next one begins, the library unaware (a file
 * controls one session: the next is another's).
 */
static void switch_session(void)
{
	race = RACE_NONE;
	fxtctl_stop(&ctl);
	switched = fxtctl_terminate(&ctl);
	fxtctl_close(&ctl);
	switched = switched ?: fxtctl_open(&ctl) ?: new_session();
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == FXTRACE_IOC_ATTACH && race == RACE_BEFORE_ATTACH)
		switch_session();
	ret = (int)syscall(SYS_ioctl, fd, request, arg);
	if (request == FXTRACE_IOC_ATTACH && !ret && nattached < 4)
		attached[nattached++] = ((struct fxtrace_attach *)arg)->buffer_id;
	return ret;
}

/*
 * A producer part: the only writable shared mapping of a file here.
 * Exported (--export-dynamic-symbol): the plugin's copy maps through it.
 */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	bool producer = flags & MAP_SHARED && prot & PROT_WRITE && fd >= 0;
	void *m;

	if (producer && fail_producer) {
		fail_producer = false;
		errno = ENOMEM;
		return MAP_FAILED;
	}
	m = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	if (producer && m != MAP_FAILED && race == RACE_AFTER_MAP)
		switch_session();
	return m;
}

/* The events named name in the buffers of thread tid in the session. */
static int events_of(long tid, const char *name)
{
	struct fxtrace_buffer_info info = { .size = sizeof(info), .id = 1 };
	const char *path = "/tmp/module_attach_race_test.fxt";
	struct fxtctl_buffer *b;
	unsigned char *bytes;
	struct trace tr;
	int i, count = 0;
	size_t len;
	FILE *f;

	while (!ioctl(ctl.fd, FXTRACE_IOC_BUFFER_INFO, &info)) {
		b = fxtctl_buffer(&ctl, info.id);
		info.id++;
		if (!b || b->kind != FXTRACE_BUFFER_TASK ||
		    (long)b->hdr->tid != tid)
			continue;
		bytes = fxtctl_buffer_copy(b, 0, &len);
		f = fopen(path, "wb");
		fwrite(bytes, 1, len, f);
		fclose(f);
		free(bytes);
		tr = trace_read(path);
		for (i = 0; i < tr.n; i++)
			count += !strcmp(tr.ev[i].name, name);
		trace_free(&tr);
	}
	unlink(path);
	return count;
}

static int events_here(const char *name)
{
	return events_of(syscall(SYS_gettid), name);
}

/*
 * A second thread of this copy: its first event attaches it in the
 * second session, its producer mapping failing, which leaves its buffer
 * attached and not mapped; after the plugin's event, its 10 events.
 */
static sem_t kept, plugin_done;
static long second_tid;

static void *second_thread(void *arg)
{
	int i;

	second_tid = syscall(SYS_gettid);
	fail_producer = true;
	TRACE_INSTANT("app", "second", FXT_SCOPE_THREAD);
	sem_post(&kept);
	sem_wait(&plugin_done);
	for (i = 0; i < 10; i++)
		TRACE_INSTANT("app", "second after", FXT_SCOPE_THREAD);
	return arg;
}

/*
 * The plugin's copy keeps a buffer of the first session, unmapped; in
 * the second, the first buffer attached (the same id) is this copy's
 * second thread's, kept unmapped too, then this copy attaches the
 * thread; the plugin's next event, then the second thread's.
 */
static int run_other_copy(void)
{
	char path[4096];
	void (*work)(int);
	uint64_t (*plugin_lost)(void);
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	int i, first, after, plugin, second, second_after;
	char *slash;
	pthread_t th;
	void *h;

	path[n > 0 ? n : 0] = 0;
	slash = strrchr(path, '/');
	if (slash)
		strcpy(slash + 1, "static_plugin.so");
	h = dlopen(path, RTLD_NOW);
	if (!EXPECT_TRUE(h != NULL) || !EXPECT_EQ(0, fxtctl_open(&ctl)) ||
	    !EXPECT_EQ(0, new_session())) {
		fflush(stdout);
		return 1;
	}
	*(void **)&work = dlsym(h, "plugin_work");
	*(void **)&plugin_lost = dlsym(h, "fxt_process_lost");
	sem_init(&kept, 0, 0);
	sem_init(&plugin_done, 0, 0);
	fail_producer = true;
	work(1);
	switch_session();
	pthread_create(&th, NULL, second_thread, NULL);
	sem_wait(&kept);
	TRACE_INSTANT("app", "first", FXT_SCOPE_THREAD);
	usleep(20000);		/* past the backoffs (1 ms) */
	work(2);
	sem_post(&plugin_done);
	pthread_join(th, NULL);
	for (i = 0; i < 10; i++)
		TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	fxtctl_stop(&ctl);
	first = events_here("first");
	after = events_here("after");
	second = events_of(second_tid, "second");
	second_after = events_of(second_tid, "second after");
	plugin = events_here("plugin") + events_of(second_tid, "plugin");
	printf("# attached: %d, ids %u %u %u; lost %llu, the plugin's %llu; first %d, after %d, second %d, second after %d, plugin %d\n",
	       nattached, attached[0], attached[1], attached[2],
	       (unsigned long long)fxt_process_lost(),
	       (unsigned long long)plugin_lost(), first, after, second,
	       second_after, plugin);
	EXPECT_EQ(0, switched);
	/* The case's premise: the first two attaches one id. */
	EXPECT_EQ(4, nattached);
	EXPECT_EQ(attached[0], attached[1]);
	EXPECT_EQ(1, plugin_lost());
	EXPECT_EQ(1, fxt_process_lost());
	EXPECT_EQ(1, first);
	EXPECT_EQ(10, after);
	EXPECT_EQ(0, second);
	EXPECT_EQ(10, second_after);
	EXPECT_EQ(1, plugin);
	fxtctl_terminate(&ctl);
	fxtctl_close(&ctl);
	fflush(stdout);
	return tap_failed;
}

/* The child's case: its checks' failures are its exit status. */
static int run(enum race how)
{
	int i, first, after;

	if (!EXPECT_EQ(0, fxtctl_open(&ctl)) || !EXPECT_EQ(0, new_session())) {
		fflush(stdout);
		return 1;
	}
	race = how;
	fail_producer = how == RACE_BEFORE_ATTACH;
	TRACE_INSTANT("app", "first", FXT_SCOPE_THREAD);
	usleep(20000);		/* past the backoff (1 ms) */
	for (i = 0; i < 10; i++)
		TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	fxtctl_stop(&ctl);
	first = events_here("first");
	after = events_here("after");
	printf("# session switched: %d; lost %llu; in the new session: first %d, after %d\n",
	       switched, (unsigned long long)fxt_process_lost(), first, after);
	EXPECT_EQ(0, switched);
	EXPECT_EQ(how == RACE_BEFORE_ATTACH ? 1 : 0, fxt_process_lost());
	EXPECT_EQ(how == RACE_BEFORE_ATTACH ? 0 : 1, first);
	EXPECT_EQ(10, after);
	fxtctl_terminate(&ctl);
	fxtctl_close(&ctl);
	fflush(stdout);
	return tap_failed;
}

static void run_child(enum race how, const char *what)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(how == RACE_OTHER_COPY ? run_other_copy() : run(how));
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, status);
	tap_result("%s", what);
}

int main(void)
{
	unsetenv("FXTRACE_OUTPUT");
	run_child(RACE_BEFORE_ATTACH,
		  "a session begun before the attach, the mapping failed: the retry maps the kept buffer");
	run_child(RACE_AFTER_MAP,
		  "a session begun after the mapping: the first event attaches in it");
	run_child(RACE_OTHER_COPY,
		  "a buffer kept across a session, another copy's id: not mapped, the plugin's own attached");
	return tap_plan();
}
