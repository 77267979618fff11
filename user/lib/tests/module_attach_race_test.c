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
 * Each case runs in a child of its own (a thread with no buffer yet).
 * The child is the controller (libfxtctl) and the producer (libfxtrace);
 * its own ioctl() and mmap() stand in for libc's, to begin the session
 * at those points.  In the guest with fxtrace.ko loaded.  Prints TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
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

enum race { RACE_NONE, RACE_BEFORE_ATTACH, RACE_AFTER_MAP };

static struct fxtctl ctl;
static enum race race;
static bool fail_producer;	/* the next producer mapping: ENOMEM */
static int switched = -1;	/* new_session()'s result, once it ran */

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

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == FXTRACE_IOC_ATTACH && race == RACE_BEFORE_ATTACH)
		switch_session();
	return (int)syscall(SYS_ioctl, fd, request, arg);
}

/* A producer part: the only writable shared mapping of a file here. */
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

/* The events named name in this thread's buffers of the session. */
static int events_here(const char *name)
{
	struct fxtrace_buffer_info info = { .size = sizeof(info), .id = 1 };
	const char *path = "/tmp/module_attach_race_test.fxt";
	long tid = syscall(SYS_gettid);
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
		_exit(run(how));
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
	return tap_plan();
}
