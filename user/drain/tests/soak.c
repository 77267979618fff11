// SPDX-License-Identifier: GPL-2.0
/*
 * soak THREADS SECONDS RATE: THREADS threads each emit "app:tick" instants
 * (argument i = 0, 1, ..., as producer.c) through libfxtrace for SECONDS
 * seconds at RATE events per second each (0: as fast as they can), paced
 * every millisecond.  Prints the events emitted and dropped, the rate
 * reached, and the threads' CPU time per event.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <fxtrace/trace.h>

struct soak {
	pthread_t thread;
	double seconds, rate;
	long long emitted;
	uint64_t dropped;
	double cpu;			/* seconds of this thread */
};

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	struct soak *s = arg;
	struct timespec tick = { .tv_nsec = 1000000 };
	double start = now(CLOCK_MONOTONIC), cpu = now(CLOCK_THREAD_CPUTIME_ID);
	double elapsed;
	long long target;

	while ((elapsed = now(CLOCK_MONOTONIC) - start) < s->seconds) {
		/* Unthrottled: a batch between clock reads. */
		target = s->rate > 0 ? (long long)(s->rate * elapsed) :
				       s->emitted + 1000;
		while (s->emitted < target) {
			TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD,
				      FXT_ARG("i", s->emitted));
			s->emitted++;
		}
		if (s->rate > 0)
			nanosleep(&tick, NULL);
	}
	s->cpu = now(CLOCK_THREAD_CPUTIME_ID) - cpu;
	s->dropped = fxt_thread_dropped();
	return NULL;
}

int main(int argc, char **argv)
{
	long long emitted = 0;
	uint64_t dropped = 0;
	double seconds, cpu = 0;
	struct soak *s;
	long n, i;

	if (argc != 4) {
		fprintf(stderr, "usage: soak THREADS SECONDS RATE\n");
		return 2;
	}
	n = atol(argv[1]);
	seconds = atof(argv[2]);
	if (n <= 0 || n > 64 || seconds <= 0)
		return 2;
	s = calloc((size_t)n, sizeof(*s));
	if (!s)
		return 1;
	for (i = 0; i < n; i++) {
		s[i].seconds = seconds;
		s[i].rate = atof(argv[3]);
		pthread_create(&s[i].thread, NULL, run, &s[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(s[i].thread, NULL);
		emitted += s[i].emitted;
		dropped += s[i].dropped;
		cpu += s[i].cpu;
	}
	printf("emitted %lld\ndropped %llu\nrate %.0f\nns_per_event %.1f\n",
	       emitted, (unsigned long long)dropped, (double)emitted / seconds,
	       emitted ? cpu * 1e9 / (double)emitted : 0);
	free(s);
	return 0;
}
