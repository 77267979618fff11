// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_bench: the cost of the kernel's own events, per operation.
 *
 *   kernel_bench [--fxtrace CATEGORY] syscall|ctxsw ITERATIONS
 *
 * syscall: ITERATIONS getppid() calls (a sys_enter and a sys_exit each);
 * ctxsw: two threads pinned to CPU 0 pass a byte through pipes ITERATIONS
 * times (two context switches and two wakeups a round).  Prints ns per
 * operation.  With --fxtrace the program is its own controller: a session
 * with that one category runs around the measurement (circular, so it
 * never stops recording).  tools/bench/kernel.sh compares it with ftrace.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fxtctl.h"

static long iterations;
static int to_b[2], to_a[2];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *player_b(void *arg)
{
	char c;
	long i;

	pin_to_cpu0();
	for (i = 0; i < iterations; i++)
		if (read(to_b[0], &c, 1) != 1 || write(to_a[1], &c, 1) != 1)
			break;
	return arg;
}

static double bench_ctxsw(void)
{
	pthread_t b;
	double t0, t1;
	char c = 'x';
	long i;

	if (pipe(to_b) || pipe(to_a))
		return -1;
	pin_to_cpu0();
	pthread_create(&b, NULL, player_b, NULL);
	t0 = now_ns();
	for (i = 0; i < iterations; i++)
		if (write(to_b[1], &c, 1) != 1 || read(to_a[0], &c, 1) != 1)
			return -1;
	t1 = now_ns();
	pthread_join(b, NULL);
	return (t1 - t0) / iterations;
}

static double bench_syscall(void)
{
	double t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < iterations; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	return (t1 - t0) / iterations;
}

static int start_session(struct fxtctl *c, const char *category)
{
	char cats[128];
	size_t len = strlen(category) + 1;
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = FXTRACE_MODE_CIRCULAR,
		.cpu_buffer_size = 4 << 20,
		.task_buffer_size = 64 << 10,
		.categories = (__u64)(uintptr_t)cats,
		.categories_size = (__u32)len,
	};
	int ret;

	if (len > sizeof(cats))
		return -EINVAL;
	memcpy(cats, category, len);
	ret = fxtctl_open(c);
	if (!ret)
		ret = fxtctl_init(c, &cfg);
	if (!ret)
		ret = fxtctl_start(c, FXTRACE_START_CLEAR_ALL);
	return ret;
}

int main(int argc, char **argv)
{
	const char *category = NULL;
	struct fxtctl c = { .fd = -1 };
	double ns;
	int ret;

	if (argc == 5 && !strcmp(argv[1], "--fxtrace")) {
		category = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 3 || (strcmp(argv[1], "syscall") && strcmp(argv[1], "ctxsw"))) {
		fprintf(stderr, "usage: kernel_bench [--fxtrace CATEGORY] syscall|ctxsw ITERATIONS\n");
		return 2;
	}
	iterations = atol(argv[2]);
	if (iterations <= 0) {
		fprintf(stderr, "kernel_bench: ITERATIONS must be positive\n");
		return 2;
	}
	if (category) {
		ret = start_session(&c, category);
		if (ret) {
			fprintf(stderr, "kernel_bench: fxtrace session: %s\n",
				strerror(-ret));
			return 1;
		}
	}
	ns = strcmp(argv[1], "syscall") ? bench_ctxsw() : bench_syscall();
	if (category) {
		fxtctl_terminate(&c);
		fxtctl_close(&c);
	}
	if (ns < 0) {
		fprintf(stderr, "kernel_bench: %s failed\n", argv[1]);
		return 1;
	}
	printf("%.1f\n", ns);
	return 0;
}
