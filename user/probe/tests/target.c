// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - the program the probe tests probe: COUNT iterations, each one
 * getppid() system call, one call of fxtprobe_target_work() and one USDT
 * probe fxtprobe_test:tick with the iteration number and a string, after
 * one USDT probe fxtprobe_test:start with COUNT (a probe of one argument).
 * Prints "pid PID tid TID" first.  With SLEEP_US, each iteration ends
 * with a sleep of that long: a process that lives on, calling slowly (the
 * process filter's tests).
 *
 * Each iteration is also a libfxtrace duration "probe_test:iteration", with
 * the call of fxtprobe_target_work() inside a "probe_test:work" duration:
 * under `fxtrace record` the probe events must fall inside them.
 *
 *	target COUNT [SLEEP_US]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fxtrace/trace.h>

/* Out of line and with a varying argument, so that its symbol is its code. */
__attribute__((noinline)) long fxtprobe_target_work(long i)
{
	__asm__ volatile("" : : : "memory");
	return i * 3 + 1;
}

int main(int argc, char **argv)
{
	static const char label[] = "tick-label";
	long count, sleep_us = 0, i, sum = 0;
	char *end;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: target COUNT [SLEEP_US]\n");
		return 2;
	}
	errno = 0;
	count = strtol(argv[1], &end, 10);
	if (errno || *end || count < 0) {
		fprintf(stderr, "target: bad COUNT '%s'\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		sleep_us = strtol(argv[2], &end, 10);
		if (errno || *end || sleep_us < 0 || sleep_us >= 1000000) {
			fprintf(stderr, "target: bad SLEEP_US '%s'\n", argv[2]);
			return 2;
		}
	}
	printf("pid %d tid %d\n", getpid(), gettid());
	fflush(stdout);
	DTRACE_PROBE1(fxtprobe_test, start, count);
	for (i = 0; i < count; i++) {
		TRACE_DURATION("probe_test", "iteration", FXT_ARG("i", i));

		/* The raw call: the kprobe test counts kernel entries. */
		syscall(SYS_getppid);
		TRACE_DURATION_BEGIN("probe_test", "work");
		sum += fxtprobe_target_work(i);
		TRACE_DURATION_END("probe_test", "work");
		DTRACE_PROBE2(fxtprobe_test, tick, i, label);
		if (sleep_us)
			usleep(sleep_us);
	}
	printf("sum %ld\n", sum);
	return 0;
}
