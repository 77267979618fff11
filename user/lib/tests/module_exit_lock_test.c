// SPDX-License-Identifier: GPL-2.0
/*
 * Description: with the module, a signal whose handler writes an event
 * (the first of its call site) arrives while a thread's exit detaches its
 * buffer under the library's lock (thread_exit()).  The handler's event is
 * dropped and counted, as a handler's inside the library is; before, the
 * handler waited for the lock its own thread held, and the thread never
 * exited.  This program's pthread_mutex_lock(), which libfxtrace.a calls,
 * raises the signal once the exiting thread holds the lock; a library
 * whose thread exit takes no lock raises none and loses nothing.
 * This process is both the controller (libfxtctl) and the producer
 * (libfxtrace), in a child of its own.  In the guest with fxtrace.ko
 * loaded.  Prints TAP.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxtctl.h"
#include "../../tests/tap.h"

static __thread bool raise_at_lock;
static volatile sig_atomic_t raised;

int pthread_mutex_lock(pthread_mutex_t *mutex);

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
	static int (*real_lock)(pthread_mutex_t *);
	int ret;

	if (!real_lock)
		*(void **)&real_lock = dlsym(RTLD_NEXT, "pthread_mutex_lock");
	ret = real_lock(mutex);
	if (raise_at_lock) {
		raise_at_lock = false;
		raised = 1;
		raise(SIGUSR1);
	}
	return ret;
}

static void event_on_signal(int sig)
{
	TRACE_INSTANT("app", "in handler", FXT_SCOPE_THREAD, FXT_ARG("sig", sig));
}

/* One event (its buffer attached), then the next lock taken raises. */
static void *exiting_thread(void *arg)
{
	TRACE_INSTANT("app", "before exit", FXT_SCOPE_THREAD);
	raise_at_lock = true;
	return arg;
}

static int run(void)
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
	struct timespec deadline;
	struct fxtctl ctl;
	pthread_t th;
	int joined;

	if (!EXPECT_EQ(0, fxtctl_open(&ctl)) ||
	    !EXPECT_EQ(0, fxtctl_init(&ctl, &cfg)) ||
	    !EXPECT_EQ(0, fxtctl_start(&ctl, FXTRACE_START_CLEAR_ALL)))
		return 1;
	signal(SIGUSR1, event_on_signal);
	pthread_create(&th, NULL, exiting_thread, NULL);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	joined = pthread_timedjoin_np(th, NULL, &deadline);
	printf("# join: %s; signals %d, lost %llu\n",
	       joined ? "timed out" : "done", (int)raised,
	       (unsigned long long)fxt_process_lost());
	/* Raised only where the exit takes the lock (not before 5b309f7). */
	if (EXPECT_EQ(0, joined))
		EXPECT_EQ(raised, fxt_process_lost());
	fxtctl_terminate(&ctl);
	if (joined) {
		/* The thread holds the library's lock: exit() would wait. */
		fflush(stdout);
		_exit(1);
	}
	fxtctl_close(&ctl);
	return tap_failed;
}

int main(void)
{
	int status = -1;
	pid_t pid;

	unsetenv("FXTRACE_OUTPUT");
	fflush(stdout);
	pid = fork();
	if (!pid) {
		int ret = run();

		fflush(stdout);
		_exit(ret);
	}
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, status);
	tap_result("a signal's event while a thread's exit holds the library's lock: dropped and counted, the thread exits");
	return tap_plan();
}
