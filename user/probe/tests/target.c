// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - the program the probe tests probe: COUNT iterations, each one
 * getppid() system call, one call of fxtprobe_target_work() and one USDT
 * probe fxtprobe_test:tick with the iteration number and a string.
 * Prints "pid PID tid TID" first.
 *
 * Each iteration is also a libfxtrace duration "probe_test:iteration", with
 * the call of fxtprobe_target_work() inside a "probe_test:work" duration:
 * under `fxtrace record` the probe events must fall inside them.
 *
 *	target COUNT
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
	long count, i, sum = 0;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: target COUNT\n");
		return 2;
	}
	errno = 0;
	count = strtol(argv[1], &end, 10);
	if (errno || *end || count < 0) {
		fprintf(stderr, "target: bad COUNT '%s'\n", argv[1]);
		return 2;
	}
	printf("pid %d tid %d\n", getpid(), gettid());
	fflush(stdout);
	for (i = 0; i < count; i++) {
		TRACE_DURATION("probe_test", "iteration", FXT_ARG("i", i));

		/* The raw call: the kprobe test counts kernel entries. */
		syscall(SYS_getppid);
		TRACE_DURATION_BEGIN("probe_test", "work");
		sum += fxtprobe_target_work(i);
		TRACE_DURATION_END("probe_test", "work");
		DTRACE_PROBE2(fxtprobe_test, tick, i, label);
	}
	printf("sum %ld\n", sum);
	return 0;
}
