// SPDX-License-Identifier: GPL-2.0
/*
 * stream_bench: paced producers for `make bench-stream`.
 *
 *   stream_bench fxtrace|lttng THREADS SECONDS RATE
 *
 * THREADS threads each emit RATE events per second (paced every
 * millisecond) for SECONDS seconds: with fxtrace, libfxtrace's
 * "app:tick" instant with one int64 argument (48 bytes, as
 * user/drain/tests/soak.c), run under `fxtrace record`; with lttng, the
 * LTTng-UST tracepoint fxstream:tick of the same size (stream_tp.h), run
 * in an LTTng session.  Prints the events emitted, those fxtrace dropped
 * (LTTng counts its own: `lttng stop` reports them), the rate reached,
 * the process's CPU time and the most events a thread emitted in one
 * pacing step (a step that comes late catches up at once: RATE / 1000
 * when none did).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <fxtrace/trace.h>

#include "tools/bench/stream_tp.h"

struct producer {
	pthread_t thread;
	int lttng;
	double seconds, rate;
	long long emitted;
	long long max_burst;	/* the most events one pacing step emitted */
	uint64_t dropped;
};

static const char text[32] = "stream_bench: 32 bytes of text.";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	struct producer *p = arg;
	struct timespec tick = { .tv_nsec = 1000000 };
	double start = now(), elapsed;
	long long target;

	while ((elapsed = now() - start) < p->seconds) {
		target = (long long)(p->rate * elapsed);
		if (target - p->emitted > p->max_burst)
			p->max_burst = target - p->emitted;
		while (p->emitted < target) {
			if (p->lttng)
				lttng_ust_tracepoint(fxstream, tick, p->emitted, text);
			else
				TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD,
					      FXT_ARG("i", p->emitted));
			p->emitted++;
		}
		nanosleep(&tick, NULL);
	}
	if (!p->lttng)
		p->dropped = fxt_thread_dropped();
	return NULL;
}

int main(int argc, char **argv)
{
	long long emitted = 0, max_burst = 0;
	uint64_t dropped = 0;
	struct producer *p;
	struct rusage ru;
	double seconds, rate;
	int lttng;
	long n, i;

	if (argc != 5 || (strcmp(argv[1], "fxtrace") && strcmp(argv[1], "lttng"))) {
		fprintf(stderr, "usage: stream_bench fxtrace|lttng THREADS SECONDS RATE\n");
		return 2;
	}
	lttng = !strcmp(argv[1], "lttng");
	n = atol(argv[2]);
	seconds = atof(argv[3]);
	rate = atof(argv[4]);
	if (n <= 0 || n > 64 || seconds <= 0 || rate <= 0) {
		fprintf(stderr, "stream_bench: THREADS is 1-64, SECONDS and RATE positive\n");
		return 2;
	}
	p = calloc((size_t)n, sizeof(*p));
	if (!p)
		return 1;
	for (i = 0; i < n; i++) {
		p[i].lttng = lttng;
		p[i].seconds = seconds;
		p[i].rate = rate;
		if (pthread_create(&p[i].thread, NULL, run, &p[i])) {
			fprintf(stderr, "stream_bench: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(p[i].thread, NULL);
		emitted += p[i].emitted;
		dropped += p[i].dropped;
		if (p[i].max_burst > max_burst)
			max_burst = p[i].max_burst;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("emitted %lld\ndropped %llu\nrate %.0f\ncpu_s %.3f\nmax_burst %lld\n",
	       emitted, (unsigned long long)dropped, (double)emitted / seconds,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
	       max_burst);
	free(p);
	return 0;
}
