// SPDX-License-Identifier: GPL-2.0
/*
 * output_prog - the libfxtrace program of the output tests (setuid_test.sh,
 * tools/fxtrace/tests/output_file_test.sh): prints its real and effective
 * uid, records one instant, then sleeps SECONDS if given, so that a test
 * can kill it and keep its spool.  Run with FXTRACE_OUTPUT (user-only mode).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <fxtrace/trace.h>

int main(int argc, char **argv)
{
	printf("uid %d euid %d\n", (int)getuid(), (int)geteuid());
	fflush(stdout);
	TRACE_INSTANT("app", "hello", FXT_SCOPE_THREAD);
	if (argc > 1)
		sleep((unsigned int)atoi(argv[1]));
	return 0;
}
