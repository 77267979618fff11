// SPDX-License-Identifier: GPL-2.0
/*
 * Description: with the module, a session Stop and Start while a thread is
 * inside a TRACE_DURATION: after a Start that clears the buffers the end
 * is not written (its begin is gone), after one that retains them it is;
 * a scope whose category was off at its begin and is switched on (a Start
 * that adds it) before its end writes no end.
 * This process is both the controller (libfxtctl) and the producer
 * (libfxtrace).  In the guest with fxtrace.ko loaded.  Prints TAP.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxtctl.h"
#include "../../tests/tap.h"
#include "trace_decode.h"

static sem_t in_scope, go;
static long producer_tid;

static void *producer(void *arg)
{
	producer_tid = syscall(SYS_gettid);
	if (arg) {
		TRACE_DURATION("db", "late");
		sem_post(&in_scope);
		sem_wait(&go);
		TRACE_INSTANT("db", "now on", FXT_SCOPE_THREAD);
	} else {
		TRACE_DURATION("app", "long");
		sem_post(&in_scope);
		sem_wait(&go);
		TRACE_INSTANT("app", "inside", FXT_SCOPE_THREAD);
	}
	TRACE_INSTANT("app", "after", FXT_SCOPE_THREAD);
	return NULL;
}

/* The producer's events, in order, as "B long, I inside, ...". */
static void producer_sequence(struct fxtctl *c, char *seq, size_t cap)
{
	struct fxtrace_buffer_info info = { .size = sizeof(info), .id = 1 };
	struct fxtctl_buffer *b;
	struct trace tr;
	size_t len = 0, blen;
	unsigned char *bytes;
	FILE *f;
	int i;

	seq[0] = 0;
	while (!ioctl(c->fd, FXTRACE_IOC_BUFFER_INFO, &info)) {
		b = fxtctl_buffer(c, info.id);
		info.id++;
		if (!b || b->kind != FXTRACE_BUFFER_TASK ||
		    (long)b->hdr->tid != producer_tid)
			continue;
		bytes = fxtctl_buffer_copy(b, 0, &blen);
		f = fopen("/tmp/module_session_test.fxt", "wb");
		fwrite(bytes, 1, blen, f);
		fclose(f);
		free(bytes);
		tr = trace_read("/tmp/module_session_test.fxt");
		for (i = 0; i < tr.n; i++)
			len += (size_t)snprintf(seq + len, cap - len, "%s%c %s",
						len ? ", " : "",
						tr.ev[i].type == FXT_EVENT_DURATION_BEGIN ? 'B' :
						tr.ev[i].type == FXT_EVENT_DURATION_END ? 'E' : 'I',
						tr.ev[i].name);
		trace_free(&tr);
	}
	unlink("/tmp/module_session_test.fxt");
}

/* Stop, then Start with disposition, adding category add (or none). */
static int restart(struct fxtctl *c, unsigned int disposition, const char *add)
{
	struct fxtrace_start st = {
		.size = sizeof(st),
		.disposition = disposition,
		.categories = (__u64)(uintptr_t)add,
		.categories_size = add ? (__u32)strlen(add) + 1 : 0,
	};

	return fxtctl_stop(c) || ioctl(c->fd, FXTRACE_IOC_START, &st);
}

static void run(unsigned int disposition, const char *add, const char *want,
		const char *what)
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
	struct fxtctl c;
	pthread_t th;
	char seq[512];

	if (!EXPECT_EQ(0, fxtctl_open(&c)) ||
	    !EXPECT_EQ(0, fxtctl_init(&c, &cfg)) ||
	    !EXPECT_EQ(0, fxtctl_start(&c, FXTRACE_START_CLEAR_ALL))) {
		tap_result("%s: a session (is fxtrace.ko loaded?)", what);
		return;
	}
	sem_init(&in_scope, 0, 0);
	sem_init(&go, 0, 0);
	pthread_create(&th, NULL, producer, (void *)add);
	sem_wait(&in_scope);
	EXPECT_EQ(0, restart(&c, disposition, add));
	tap_result("%s: Stop and Start inside the scope", what);
	sem_post(&go);
	pthread_join(th, NULL);
	fxtctl_stop(&c);
	producer_sequence(&c, seq, sizeof(seq));
	EXPECT_STR(want, seq);
	tap_result("%s: \"%s\" (want \"%s\")", what, seq, want);
	fxtctl_terminate(&c);
	fxtctl_close(&c);
}

int main(void)
{
	unsetenv("FXTRACE_OUTPUT");
	run(FXTRACE_START_CLEAR_ALL, NULL, "I inside, I after",
	    "Start clearing all: no end without its begin");
	run(FXTRACE_START_RETAIN, NULL, "B long, I inside, E long, I after",
	    "Start retaining: the end follows its begin");
	run(FXTRACE_START_RETAIN, "db", "I now on, I after",
	    "category switched on inside the scope: no end");
	return tap_plan();
}
