// SPDX-License-Identifier: GPL-2.0
/*
 * user_bench: the cost of a libfxtrace event against its floors and peers,
 * in one process and one run, pinned to a CPU, with a warm-up and REPS
 * repetitions (min/median/max).  Prints a table and writes the figures as
 * JSON to the path given (tools/bench/run.sh: build/bench/user.json).
 *
 * libfxtrace runs in user-only mode, circular, so that every event is
 * written (a oneshot buffer would soon measure only the drop path).  The
 * LTTng-UST peer runs when an LTTng session has enabled fxbench:pair; its
 * lost events are what `lttng stop` reports (run.sh fills them in).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <fxtrace/trace.h>

#include "tools/bench/lttng_tp.h"

#define REPS	7
#define ITERS	2000000

struct result {
	const char *name;
	int threads;
	double min, median, max;	/* ns per record */
	unsigned long long lost;
};

static struct result results[32];
static int nresults;
static FILE *devnull_file;
static int devnull_fd;
static volatile unsigned long long sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Each body does `records` records per iteration. */
typedef void body_fn(long iters);

static void b_rdtsc(long n)
{
	unsigned long long s = 0;

	for (long i = 0; i < n; i++)
		s += __rdtsc();
	sink = s;
}

static void b_rdtscp(long n)
{
	unsigned long long s = 0;
	unsigned int aux;

	for (long i = 0; i < n; i++)
		s += __rdtscp(&aux);
	sink = s;
}

static void b_clock_gettime(long n)
{
	struct timespec ts;
	unsigned long long s = 0;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += (unsigned long long)ts.tv_nsec;
	}
	sink = s;
}

static void b_disabled(long n)
{
	for (long i = 0; i < n; i++)
		TRACE_INSTANT("off", "disabled", FXT_SCOPE_THREAD, FXT_ARG("i", i));
}

static void b_begin_end(long n)
{
	for (long i = 0; i < n; i++) {
		TRACE_DURATION_BEGIN("bench", "pair", FXT_ARG("a", (int)i),
				     FXT_ARG("b", (int)n));
		TRACE_DURATION_END("bench", "pair");
	}
}

static void b_instant_string(long n)
{
	for (long i = 0; i < n; i++)
		TRACE_INSTANT("bench", "instant", FXT_SCOPE_THREAD,
			      FXT_ARG("s", "a short string"));
}

static void b_counter(long n)
{
	for (long i = 0; i < n; i++)
		TRACE_COUNTER("bench", "counter", 1, FXT_ARG("v", (int)i));
}

static void b_scoped(long n)
{
	for (long i = 0; i < n; i++) {
		TRACE_DURATION("bench", "scoped");
		sink = (unsigned long long)i;
	}
}

static void b_lttng(long n)
{
	for (long i = 0; i < n; i++)
		lttng_ust_tracepoint(fxbench, pair, (int)i, (int)n);
}

static void b_fprintf(long n)
{
	for (long i = 0; i < n; i++)
		fprintf(devnull_file, "%llu bench pair a=%ld b=%ld\n", __rdtsc(), i, n);
}

static void b_write(long n)
{
	char rec[32];

	memset(rec, 0, sizeof(rec));
	for (long i = 0; i < n; i++) {
		unsigned long long t = __rdtsc();

		memcpy(rec, &t, sizeof(t));
		memcpy(rec + 8, &i, sizeof(i));
		if (write(devnull_fd, rec, sizeof(rec)) != sizeof(rec))
			abort();
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct job {
	body_fn *body;
	long iters;
	int cpu;
	double elapsed;
	unsigned long long lost;	/* fxtrace records this thread dropped */
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	double t0;

	pin(j->cpu);
	j->body(j->iters / 10);		/* warm-up */
	t0 = now_ns();
	j->body(j->iters);
	j->elapsed = now_ns() - t0;
	j->lost = fxt_thread_dropped();
	return NULL;
}

/* records: records per iteration; threads: 1 or 2 (events/s aggregate). */
static void bench(const char *name, body_fn *body, int records, int threads)
{
	double per[REPS];
	struct job jobs[2];
	pthread_t th[2];
	struct result *r = &results[nresults++];
	unsigned long long lost = 0;
	int rep, t;

	for (rep = 0; rep < REPS; rep++) {
		double slowest = 0;

		for (t = 0; t < threads; t++) {
			jobs[t] = (struct job){ body, ITERS, t, 0, 0 };
			pthread_create(&th[t], NULL, run_job, &jobs[t]);
		}
		for (t = 0; t < threads; t++) {
			pthread_join(th[t], NULL);
			lost += jobs[t].lost;
			if (jobs[t].elapsed > slowest)
				slowest = jobs[t].elapsed;
		}
		/* Aggregate: all threads' records in the slowest one's time. */
		per[rep] = slowest / ((double)ITERS * records * threads);
	}
	qsort(per, REPS, sizeof(per[0]), cmp_double);
	*r = (struct result){ name, threads, per[0], per[REPS / 2],
			      per[REPS - 1], lost };
}

int main(int argc, char **argv)
{
	const char *json = argc > 1 ? argv[1] : NULL;
	double floor_ns;
	FILE *f;
	int i;

	setenv("FXTRACE_OUTPUT", "/dev/null", 1);
	setenv("FXTRACE_MODE", "circular", 1);
	setenv("FXTRACE_CATEGORIES", "bench", 1);
	devnull_file = fopen("/dev/null", "w");
	devnull_fd = open("/dev/null", O_WRONLY);

	bench("rdtsc", b_rdtsc, 1, 1);
	bench("rdtscp", b_rdtscp, 1, 1);
	bench("clock_gettime(CLOCK_MONOTONIC)", b_clock_gettime, 1, 1);
	bench("fxtrace disabled category", b_disabled, 1, 1);
	bench("fxtrace begin+end, 2 int args", b_begin_end, 2, 1);
	bench("fxtrace begin+end, 2 int args", b_begin_end, 2, 2);
	bench("fxtrace instant, 1 string arg", b_instant_string, 1, 1);
	bench("fxtrace counter", b_counter, 1, 1);
	bench("fxtrace scoped duration", b_scoped, 2, 1);
	/* Only with a session that enabled it (tools/bench/run.sh makes one). */
	if (lttng_ust_tracepoint_enabled(fxbench, pair))
		bench("LTTng-UST tracepoint, 2 int fields", b_lttng, 1, 1);
	else
		fprintf(stderr, "user_bench: fxbench:pair is not enabled in an "
			"LTTng session: LTTng-UST left out\n");
	bench("fprintf to a buffered file", b_fprintf, 1, 1);
	bench("write() of 32 bytes to /dev/null", b_write, 1, 1);

	floor_ns = results[0].median;
	printf("%-36s %7s %9s %9s %9s %9s %6s\n", "benchmark (ns per record)",
	       "threads", "min", "median", "max", "x rdtsc", "lost");
	for (i = 0; i < nresults; i++)
		printf("%-36s %7d %9.2f %9.2f %9.2f %9.2f %6llu\n",
		       results[i].name, results[i].threads, results[i].min,
		       results[i].median, results[i].max,
		       results[i].median / floor_ns, results[i].lost);
	if (!json)
		return 0;
	f = fopen(json, "w");
	if (!f) {
		perror(json);
		return 1;
	}
	fprintf(f, "[\n");
	for (i = 0; i < nresults; i++)
		fprintf(f, "  {\"name\": \"%s\", \"threads\": %d, "
			"\"ns_per_event_median\": %.3f, \"ns_per_event_min\": %.3f, "
			"\"ns_per_event_max\": %.3f, \"ratio_to_rdtsc\": %.3f, "
			"\"events_lost\": %llu}%s\n", results[i].name,
			results[i].threads, results[i].median, results[i].min,
			results[i].max, results[i].median / floor_ns,
			results[i].lost, i + 1 < nresults ? "," : "");
	fprintf(f, "]\n");
	return fclose(f) ? 1 : 0;
}
