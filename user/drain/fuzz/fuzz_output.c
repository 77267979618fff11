// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_output.c - libFuzzer target: what a producer writes into its buffer,
 * the header fields it can race or the kernel can write, the session window
 * and buffer retirement, through fxtrace-drain's output path (output.c,
 * fastpass.c) under ASan and UBSan (user/reader/fuzz/run.sh).
 *
 * The input is a config of DIFF_CONFIG_BYTES (72; an input shorter than
 * that is padded with zeros), then the producer's bytes.  Those, cut at
 * the word nearest their middle, are the saved halves 0 and 1, then whole
 * the durable additions output_rest() drains at Stop, of a task buffer
 * (pid 100, tid 101), then of a CPU buffer and of a kernel buffer each
 * beside such a task buffer with the same bytes: diff_fuzz_input() of
 * output_harness.c, as output_test runs it.  A config all zero is the run
 * of the raw bytes before the config existed (but for the names: an empty
 * comm, "cpu0"); run.sh puts one before every seed.  The config,
 * little-endian:
 *
 *   0  u8   bits 0-1: the task buffer retires (BUFFER_RETIRED: its rest,
 *           its drop counter, output_retire()): 0 never, 1 after half 0,
 *           2 after half 1, 3 after its durable additions; then a new task
 *           buffer (id 8) takes the bytes that follow (3: the durable
 *           additions again), its flows and asyncs meeting those the
 *           retired one left open.
 *           bits 2-3: the new buffer's pid and tid: 0 the same (an exec),
 *           1 the same pid and tid 102, 2 pid 200 and the same tid (reused),
 *           3 pid 200 and tid 201.
 *           bit 4: it attaches before the old one retires (both live).
 *           bit 5: the producer overwrites the kernel's announcement at the
 *           start of its durable part with the first bytes of its additions.
 *           bit 6: the kernel buffer retires after its rest (at Stop).
 *   1  u8   bits 0-1: the header's header_size, of a module of ABI 0.3 to
 *           0.4 (comm, no save_requested_ns), 0.2 (no comm), 0.5 and later
 *           (sizeof), or a later one's (a page).
 *           bit 2: the successor (id 8) is another user's: with a header
 *           that has owner_uid (ABI 0.8: sizeof or a page), task buffers
 *           are uid 1000's and the successor uid 1001's, so that its
 *           flows meet those the retired buffer left open only as another
 *           user's (fresh ids, Documentation/drain.rst).
 *           bit 3: shared flows (fxtrace-drain --shared-flows): flows
 *           keyed by id alone, so that the successor's meet them whatever
 *           its user.
 *           bit 4: uid 1000 is the session's owner, a traced user with no
 *           share (output_traced_users(); Documentation/drain.rst, "Traced
 *           users have no share").
 *           bit 5: uid 1001 becomes the pid filter's user, traced, when
 *           the successor attaches (fxtrace-drain reads it at a new
 *           buffer): with bit 2, the flows, asyncs and stacks the retired
 *           buffer left, of a user not traced, meet a traced user's.
 *   2  u8   the CPU buffer's cpu.
 *   3  u8   bit 0: probes are attached (output.probe_provider, their
 *           preamble before any buffer's records and an event of theirs
 *           last, as probes.c writes them) and the main buffer (task, CPU
 *           or kernel) has their provider id: buffer ids count up to
 *           2^32 - 1, so one can get it.
 *           bit 1: a circular session: a retiring task buffer is copied
 *           for the snapshots and its rest written from the copy
 *           (output_retired_rest(), within the default budget), and at
 *           the end a snapshot is taken of the copies
 *           (output_snapshot_copies(), what a snapshot writes before it
 *           pauses the writers).
 *           bit 2: with bit 1, a sibling thread writes the retiring
 *           buffer's mapping while its copy is taken (between the copy's
 *           reading of the control page and its copy of the data): half
 *           1's bytes over its committed records, its control page's
 *           offsets and wrap count moved on (output_harness.c,
 *           diff_calloc_seen()).
 *   4  u32  the session's tick rate: 0 CLOCK_MONOTONIC (1e9 per second),
 *           else a TSC of 1000 * (100000 + v % 9900001) (100 MHz to 10 GHz).
 *   8  u64  the session clock at Start: 1000 s plus v ticks, modulo 2^64,
 *           then modulo its range (below).
 *  16  16   the thread's comm at ATTACH: up to the first NUL, 15 bytes at
 *           most (get_task_comm()); the kernel names the task buffer's
 *           announcement "COMM TID" with it.
 *  32  u16 x 4  milliseconds the session clock moves on (the drainer's
 *           output_set_now() as it reads packets) before half 0 (after the
 *           first 10 s), half 1, the rests, the drop counters.
 *  40  s16 x 3  bytes the control page's durable_committed is off from what
 *           the producer wrote, when half 0, half 1 and a rest are drained.
 *  48  u64  wrap_count (a CPU or kernel buffer's: the halves saved, plus
 *           bit 0), and
 *  56  u32 x 2  rolling_committed[0] and [1] (a kernel buffer's: within
 *           its halves, aligned), when a rest is drained.
 *  64  u64  dropped_records, read at each rest (a kernel buffer's: v >> 24).
 *  72       the producer's bytes.
 *
 * Only what can vary is varied (Documentation/drain.rst, "What a producer
 * cannot do" and "The session window"): a task buffer's control page and
 * data are its producer's, any value at any time, so its durable_committed,
 * wrap_count and rolling_committed are taken as given (libfxtctl clamps
 * them), and its dropped_records, which the kernel copies from that page,
 * too.  The header's other fields are the kernel's and take only values a
 * module writes: its header_size, owner_uid (a user's, as above), pid and
 * tid (a thread's, the successor's as above), a comm its thread can set (prctl(PR_SET_NAME), any bytes but
 * NUL), the announcement naming it.  A CPU or kernel buffer is the
 * kernel's throughout: its committed offsets are exact, its wrap_count is
 * past the halves it asked to save by at most one, its offsets within its
 * halves and its drop count below 2^40.  The session clock and its rate
 * are the kernel's: its time fits int64 nanoseconds (CLOCK_MONOTONIC's
 * ktime_t, a TSC's count since reset; past that even the drop counters
 * the drainer writes at the window's start would not), and only moves on.
 * Sizes follow the input.
 *
 * Each input aborts on what the drainer must never do, whatever a
 * producer writes:
 *
 *   1. a file that fails the strict check (`fxtrace check --strict` with
 *      the session window the drainer declares; the order of scheduling
 *      records is the kernel's, so sched-order may warn in CPU and kernel
 *      buffers, and only it);
 *   2. a task buffer's event, thread, log, kernel or userspace object
 *      record in the file naming another process or thread than the
 *      buffer's own, or a scheduling record of it;
 *   3. the fast pass and the full decoder writing different files or
 *      counts, retired buffers' included;
 *   4. the kernel's announcement judged as a buffer's records when the
 *      producer left it as it was;
 *   5. with byte 3's bit 1, a snapshot of the copies that fails the
 *      strict check, names another thread (as 1 and 2), or differs
 *      between the fast pass and the full decoder;
 *   6. with byte 3's bit 0, a record of the buffer with the probes' id
 *      written, or the probes' events other than their two, each named
 *      by their own string (a provider info of that buffer's would make a
 *      reader drop the probes' strings, its strings name their events).
 *
 * Leaks fail the run too (LeakSanitizer).
 */
#include <stdio.h>
#include <stdlib.h>

#include "output_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

/* Linked with -Wl,--wrap=calloc (run.sh): the copy's allocation seen. */
void *__wrap_calloc(size_t n, size_t size)
{
	diff_calloc_seen(n * size);
	return __real_calloc(n, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (diff_fuzz_input(data, size, "input")) {
		fflush(stdout);
		fprintf(stderr, "fuzz_output: the drainer's output breaks its invariants (above)\n");
		abort();
	}
	return 0;
}
