// SPDX-License-Identifier: GPL-2.0
/*
 * user_bench: the cost of a libfxtrace event against its floors and peers,
 * in one process and one run, pinned to a CPU, with a warm-up and REPS
 * repetitions (min/median/max).  Prints a table, the targets as
 * ratios of this run, and with --json the figures as JSON
 * (tools/bench/run.sh: build/bench/user.json).
 *
 * libfxtrace runs in user-only mode, circular, so that every event is
 * written (a oneshot buffer would soon measure only the drop path), into a
 * real file (--trace-dir, default a new directory under /tmp); the program
 * refuses to report figures unless tracing is really on.  The LTTng-UST
 * peer runs when an LTTng session has enabled fxbench:pair; its lost
 * events are what `lttng stop` reports (run.sh fills them in).
 *
 * Usage: user_bench [--json PATH] [--trace-dir DIR] [--help]
 *        user_bench --run BODY --iters N   (one body, once, on this thread:
 *        tools/bench/callgrind.sh counts its instructions per record; the
 *        body "dropped" into a oneshot buffer it fills first, the drop path)
 */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <fxtrace/trace.h>

#include "tools/bench/lttng_tp.h"

#define REPS	7
#define ITERS	2000000
/* Events that fill the "dropped" body's 16 KiB oneshot buffer. */
#define FILL_EVENTS	10000

struct result {
	const char *name;
	int threads;
	double min, median, max;	/* ns per record */
	double cpu_median;		/* thread CPU ns per record, per thread */
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

/* The floor: rdtsc and a 32-byte store into a thread-local ring. */
static __thread unsigned long long ring[4096];

static void b_ideal_ring(long n)
{
	unsigned long long *r = ring;
	unsigned int pos = 0;

	for (long i = 0; i < n; i++) {
		r[pos] = __rdtsc();
		r[pos + 1] = 0x1234;
		r[pos + 2] = (unsigned long long)i;
		r[pos + 3] = (unsigned long long)n;
		pos = (pos + 4) & 4095;
		__asm__ volatile("" : : "r"(r) : "memory");
	}
}

static void b_enabled_disabled(long n)
{
	long on = 0;

	for (long i = 0; i < n; i++)
		on += TRACE_ENABLED("off");
	sink = (unsigned long long)on;
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

/* The tick of tools/bench/stream_bench.c into a full buffer: each dropped. */
static void b_dropped(long n)
{
	for (long i = 0; i < n; i++)
		TRACE_INSTANT("bench", "tick", FXT_SCOPE_THREAD, FXT_ARG("i", i));
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
	double cpu_time;		/* this thread's CPU time, ns */
	unsigned long long lost;	/* fxtrace records this thread dropped */
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The calling thread's CPU time: unlike wall time it does not grow while
 * the thread waits for a CPU that other work on the machine holds.
 */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	double t0, c0;

	pin(j->cpu);
	j->body(j->iters / 10);		/* warm-up */
	t0 = now_ns();
	c0 = cpu_ns();
	j->body(j->iters);
	j->cpu_time = cpu_ns() - c0;
	j->elapsed = now_ns() - t0;
	j->lost = fxt_thread_dropped();
	return NULL;
}

/* records: records per iteration; threads: 1 or 2 (events/s aggregate). */
static void bench(const char *name, body_fn *body, int records, int threads)
{
	double per[REPS], cpu[REPS];
	struct job jobs[2];
	pthread_t th[2];
	struct result *r = &results[nresults++];
	unsigned long long lost = 0;
	int rep, t;

	for (rep = 0; rep < REPS; rep++) {
		double slowest = 0, cpu_sum = 0;

		for (t = 0; t < threads; t++) {
			jobs[t] = (struct job){ body, ITERS, t, 0, 0, 0 };
			pthread_create(&th[t], NULL, run_job, &jobs[t]);
		}
		for (t = 0; t < threads; t++) {
			pthread_join(th[t], NULL);
			lost += jobs[t].lost;
			cpu_sum += jobs[t].cpu_time;
			if (jobs[t].elapsed > slowest)
				slowest = jobs[t].elapsed;
		}
		/* Aggregate: all threads' records in the slowest one's time. */
		per[rep] = slowest / ((double)ITERS * records * threads);
		cpu[rep] = cpu_sum / ((double)ITERS * records * threads);
	}
	qsort(per, REPS, sizeof(per[0]), cmp_double);
	qsort(cpu, REPS, sizeof(cpu[0]), cmp_double);
	*r = (struct result){ name, threads, per[0], per[REPS / 2],
			      per[REPS - 1], cpu[REPS / 2], lost };
}

static void usage(FILE *f)
{
	fprintf(f, "usage: user_bench [--json PATH] [--trace-dir DIR]\n"
		"  --json PATH      write the figures as JSON to PATH\n"
		"  --trace-dir DIR  where libfxtrace writes its trace "
		"(default: a new directory under /tmp)\n"
		"  --run BODY --iters N  run one body N times and exit "
		"(ideal_ring, begin_end,\n"
		"                   instant_string, disabled, enabled_disabled, "
		"dropped, lttng)\n");
}

static const struct result *find(const char *name, int threads)
{
	int i;

	for (i = 0; i < nresults; i++)
		if (!strcmp(results[i].name, name) && results[i].threads == threads)
			return &results[i];
	return NULL;
}

static void target(const char *what, double value, const char *op, double limit)
{
	bool met = op[0] == '<' ? value <= limit : value >= limit;

	printf("  %-58s %7.2f %s %5.2f  %s\n", what, value, op, limit,
	       met ? "met" : "MISSED");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "trace-dir", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "run", required_argument, NULL, 'r' },
		{ "iters", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct { const char *name; body_fn *fn; } bodies[] = {
		{ "ideal_ring", b_ideal_ring }, { "begin_end", b_begin_end },
		{ "instant_string", b_instant_string }, { "disabled", b_disabled },
		{ "enabled_disabled", b_enabled_disabled },
		{ "dropped", b_dropped }, { "lttng", b_lttng },
	};
	const char *json = NULL, *trace_dir = NULL, *run = NULL;
	uint64_t dropped = 0;
	bool dropping;
	long iters = 0;
	char tmpdir[] = "/tmp/fxtrace-bench-XXXXXX", trace[4096];
	const struct result *pair, *pair2, *str, *lt, *dis, *en, *ring, *ring2;
	double floor_ns;
	struct stat st;
	FILE *f;
	int i, opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = optarg;
			break;
		case 't':
			trace_dir = optarg;
			break;
		case 'r':
			run = optarg;
			break;
		case 'n':
			iters = strtol(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "user_bench: unexpected argument \"%s\"\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!trace_dir && !(trace_dir = mkdtemp(tmpdir))) {
		perror("user_bench: mkdtemp");
		return 1;
	}
	snprintf(trace, sizeof(trace), "%s/user_bench.fxt", trace_dir);
	setenv("FXTRACE_OUTPUT", trace, 1);
	/* "dropped" runs in a oneshot buffer, which it fills first. */
	dropping = run && !strcmp(run, "dropped");
	setenv("FXTRACE_MODE", dropping ? "oneshot" : "circular", 1);
	if (dropping)
		setenv("FXTRACE_BUFFER_SIZE", "16K", 1);
	setenv("FXTRACE_CATEGORIES", "bench", 1);
	devnull_file = fopen("/dev/null", "w");
	devnull_fd = open("/dev/null", O_WRONLY);

	/* Figures of a library that does not trace would be meaningless. */
	TRACE_INSTANT("bench", "start", FXT_SCOPE_PROCESS);
	if (!fxt_category_enabled("bench") || fxt_flush() ||
	    stat(trace, &st) || st.st_size < 64) {
		fprintf(stderr, "user_bench: libfxtrace is not tracing into %s; "
			"no figures\n", trace);
		return 1;
	}

	if (dropping) {
		b_dropped(FILL_EVENTS);
		dropped = fxt_thread_dropped();
		if (!dropped) {
			fprintf(stderr, "user_bench: %d events did not fill the buffer\n",
				FILL_EVENTS);
			return 1;
		}
	}
	if (run) {
		for (i = 0; i < (int)(sizeof(bodies) / sizeof(bodies[0])); i++)
			if (!strcmp(run, bodies[i].name)) {
				bodies[i].fn(iters);
				/* Dropped, every one: what the count says. */
				if (dropping &&
				    fxt_thread_dropped() - dropped != (uint64_t)iters) {
					fprintf(stderr, "user_bench: %ld events, %llu dropped\n",
						iters, (unsigned long long)
						(fxt_thread_dropped() - dropped));
					return 1;
				}
				return 0;
			}
		fprintf(stderr, "user_bench: no body \"%s\"\n", run);
		return 2;
	}

	bench("rdtsc", b_rdtsc, 1, 1);
	bench("rdtscp", b_rdtscp, 1, 1);
	bench("ideal ring (rdtsc + 32-byte store)", b_ideal_ring, 1, 1);
	/* What two threads get from this machine now: the scaling ceiling. */
	bench("ideal ring (rdtsc + 32-byte store)", b_ideal_ring, 1, 2);
	bench("clock_gettime(CLOCK_MONOTONIC)", b_clock_gettime, 1, 1);
	bench("fxtrace disabled category", b_disabled, 1, 1);
	bench("fxtrace TRACE_ENABLED, disabled", b_enabled_disabled, 1, 1);
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

	/* The trace must hold what was measured: flush and look again. */
	if (fxt_flush() || stat(trace, &st) || st.st_size < (1 << 20)) {
		fprintf(stderr, "user_bench: %s holds no benchmark records; "
			"no figures\n", trace);
		return 1;
	}
	unlink(trace);
	if (trace_dir == tmpdir)
		rmdir(tmpdir);

	floor_ns = results[0].median;
	printf("%-36s %7s %9s %9s %9s %9s %6s\n", "benchmark (ns per record)",
	       "threads", "min", "median", "max", "x rdtsc", "lost");
	for (i = 0; i < nresults; i++)
		printf("%-36s %7d %9.2f %9.2f %9.2f %9.2f %6llu\n",
		       results[i].name, results[i].threads, results[i].min,
		       results[i].median, results[i].max,
		       results[i].median / floor_ns, results[i].lost);

	pair = find("fxtrace begin+end, 2 int args", 1);
	pair2 = find("fxtrace begin+end, 2 int args", 2);
	str = find("fxtrace instant, 1 string arg", 1);
	lt = find("LTTng-UST tracepoint, 2 int fields", 1);
	dis = find("fxtrace disabled category", 1);
	en = find("fxtrace TRACE_ENABLED, disabled", 1);
	ring = find("ideal ring (rdtsc + 32-byte store)", 1);
	ring2 = find("ideal ring (rdtsc + 32-byte store)", 2);
	printf("targets (issue 14), medians of this run:\n");
	target("begin/end with 2 int args, x rdtsc", pair->median / floor_ns,
	       "<=", 1.25);
	if (lt)
		target("LTTng-UST tracepoint / fxtrace begin or end",
		       lt->median / pair->median, ">=", 6);
	target("instant with a 16-byte string / begin or end",
	       str->median / pair->median, "<=", 2);
	target("two threads' aggregate throughput / one thread's",
	       pair->median / pair2->median, ">=", 1.8);
	printf("  (the ideal ring's two threads / one thread in this run: %.2f)\n",
	       ring->median / ring2->median);
	/* Given a CPU each: two threads' records per CPU-second against one's. */
	target("the same from thread CPU time (a CPU each)",
	       2 * pair->cpu_median / pair2->cpu_median, ">=", 1.8);
	printf("  (the ideal ring's, from thread CPU time: %.2f)\n",
	       2 * ring->cpu_median / ring2->cpu_median);
	target("disabled event, ns", dis->median, "<=", 0.5);
	target("TRACE_ENABLED of a disabled category, ns", en->median, "<=", 0.5);
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
			"\"cpu_ns_per_event_median\": %.3f, "
			"\"events_lost\": %llu}%s\n", results[i].name,
			results[i].threads, results[i].median, results[i].min,
			results[i].max, results[i].median / floor_ns,
			results[i].cpu_median, results[i].lost,
			i + 1 < nresults ? "," : "");
	fprintf(f, "]\n");
	return fclose(f) ? 1 : 0;
}
