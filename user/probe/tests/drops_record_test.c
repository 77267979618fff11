// SPDX-License-Identifier: GPL-2.0
/*
 * drops_record_test: the probes' drop counter (fxtprobe_drops_record(),
 * built with the FXT encoder's fxt_write_event()) is, word for word, the
 * record fxtprobe_write_drops() built by hand before: the golden words
 * below are that code's output for the same inputs.  Its "records" are
 * the hits lost: ring_full + missed.
 */
#include <inttypes.h>
#include <stdio.h>

#include "fxtprobe.h"
#include "../../tests/tap.h"

static const __u64 golden[] = {
	0x0007ffffffe20010ULL,	/* provider section 0x7ffffffe */
	0x80078007002100d4ULL,	/* counter, 13 words, 2 args, inline refs */
	0x0000001cbe991a14ULL,	/* ticks */
	0x0000000000001092ULL,	/* pid */
	0x0000000000001093ULL,	/* tid */
	0x0065636172747866ULL,	/* "fxtrace" */
	0x00646570706f7264ULL,	/* "dropped" */
	0x0000000080070033ULL,	/* int64 "records" */
	0x007364726f636572ULL,
	0x0000000000000005ULL,
	0x0000000080070033ULL,	/* int64 "invalid" */
	0x0064696c61766e69ULL,
	0x0000000000000007ULL,
	0x000000007ffffffeULL,	/* counter id */
};

int main(void)
{
	struct fxtprobe_drops drops = { .ring_full = 5, .invalid = 7 };
	__u64 words[FXTPROBE_DROPS_WORDS + 1];
	__u32 n, i;

	n = fxtprobe_drops_record(words, 0x7ffffffe, 123456789012ULL, 4242,
				  4243, &drops);
	EXPECT_EQ(sizeof(golden) / sizeof(golden[0]), n);
	tap_result("the record is %zu words", sizeof(golden) / sizeof(golden[0]));
	for (i = 0; i < n && i < sizeof(golden) / sizeof(golden[0]); i++) {
		EXPECT_EQ(golden[i], words[i]);
		tap_result("word %u", i);
	}

	/* Hits the kernel missed are lost records too: 5 + 3. */
	drops.missed = 3;
	n = fxtprobe_drops_record(words, 0x7ffffffe, 123456789012ULL, 4242,
				  4243, &drops);
	EXPECT_EQ(sizeof(golden) / sizeof(golden[0]), n);
	EXPECT_EQ(8, words[9]);
	tap_result("with 3 missed: records=8 (%llu)",
		   (unsigned long long)words[9]);
	return tap_plan();
}
