// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_output.c - libFuzzer target: arbitrary bytes as what a producer
 * wrote into its buffer, through fxtrace-drain's output path (output.c,
 * fastpass.c) under ASan and UBSan (user/reader/fuzz/run.sh).  The input,
 * cut at the word nearest its middle, is the saved halves of wraps 0 and
 * 1, then whole the durable additions output_rest() drains at Stop, of a
 * task buffer (pid 100, tid 101), then of a CPU buffer and of a kernel
 * buffer each beside such a task buffer with the same bytes: diff_input()
 * of output_harness.c, as output_test runs it.
 * Each input aborts on what the drainer must never do, whatever a
 * producer writes (Documentation/drain.rst, "What a producer cannot do"):
 *
 *   1. a file that fails the strict check (`fxtrace check --strict` with
 *      the session window the drainer declares; the order of scheduling
 *      records is the kernel's, so sched-order may warn in CPU and kernel
 *      buffers, and only it);
 *   2. a task buffer's event, thread, log, kernel or userspace object
 *      record in the file naming another process or thread, or a
 *      scheduling record of it;
 *   3. the fast pass and the full decoder writing different files or
 *      counts.
 *
 * Leaks fail the run too (LeakSanitizer).
 */
#include <stdio.h>
#include <stdlib.h>

#include "output_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split = size / 16 * 8;

	if (diff_input(data, split, data + split, size - split, data, size,
		       "input")) {
		fflush(stdout);
		fprintf(stderr, "fuzz_output: the drainer's output breaks its invariants (above)\n");
		abort();
	}
	return 0;
}
