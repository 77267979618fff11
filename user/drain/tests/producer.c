// SPDX-License-Identifier: GPL-2.0
/*
 * producer T K [PAUSE_EVERY [async]]: T threads each emit exactly K
 * "app:tick" instants through libfxtrace, with argument i = 0..K-1,
 * sleeping 1 ms every PAUSE_EVERY events (0: never); with "async", each
 * tick is followed by an "app:honest-op" async begin of id i, ended after
 * the next tick.  Each thread says when its first tick is written (a
 * test may wait for that); at the end the producer prints each thread's
 * drop count and the total, which drain_test.sh compares with the trace.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fxtrace/trace.h>

struct producer {
	pthread_t thread;
	long count, pause_every;
	bool async;
	long tid;
	uint64_t dropped;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	long i;

	p->tid = syscall(SYS_gettid);
	for (i = 0; i < p->count; i++) {
		TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD,
			      FXT_ARG("i", (long long)i));
		if (p->async && i)
			TRACE_ASYNC_END("app", "honest-op", (uint64_t)i - 1);
		if (p->async)
			TRACE_ASYNC_BEGIN("app", "honest-op", (uint64_t)i);
		if (!i) {
			printf("thread %ld wrote its first tick\n", p->tid);
			fflush(stdout);
		}
		if (p->pause_every && i % p->pause_every == p->pause_every - 1)
			usleep(1000);
	}
	p->dropped = fxt_thread_dropped();
	return NULL;
}

int main(int argc, char **argv)
{
	struct producer *p;
	uint64_t total = 0;
	long n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: producer THREADS EVENTS [PAUSE_EVERY]\n");
		return 2;
	}
	n = atol(argv[1]);
	if (n <= 0)
		return 2;
	p = calloc((size_t)n, sizeof(*p));
	if (!p)
		return 1;
	for (i = 0; i < n; i++) {
		p[i].count = atol(argv[2]);
		p[i].pause_every = argc > 3 ? atol(argv[3]) : 0;
		p[i].async = argc > 4 && !strcmp(argv[4], "async");
		pthread_create(&p[i].thread, NULL, produce, &p[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(p[i].thread, NULL);
		printf("thread %ld dropped %llu\n", p[i].tid,
		       (unsigned long long)p[i].dropped);
		total += p[i].dropped;
	}
	printf("dropped %llu\n", (unsigned long long)total);
	free(p);
	return 0;
}
