// SPDX-License-Identifier: GPL-2.0
/*
 * user_prog - a libfxtrace program for the report tests: THREADS threads,
 * each running LOOPS "outer" durations holding one "inner" duration and a
 * complete "step", plus a "tick" instant.  Run it with FXTRACE_OUTPUT set
 * (user-only mode): the counts are THREADS * LOOPS per name.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <fxtrace/trace.h>

#define THREADS	3
#define LOOPS	25

static void spin(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < ns);
}

static void *work(void *arg)
{
	char name[16];
	int i;

	snprintf(name, sizeof(name), "worker-%ld", (long)arg);
	fxt_set_thread_name(name);
	for (i = 0; i < LOOPS; i++) {
		TRACE_DURATION_BEGIN("app", "outer", FXT_ARG("i", i));
		spin(2000);
		TRACE_DURATION_BEGIN("app", "inner");
		spin(5000);
		TRACE_DURATION_END("app", "inner");
		TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD);
		spin(1000);
		TRACE_DURATION_END("app", "outer");
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	long i;

	for (i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i))
			return 1;
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return fxt_flush() ? 1 : 0;
}
