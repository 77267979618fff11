// SPDX-License-Identifier: GPL-2.0
/*
 * corpus_test - malformed and unusual inputs, each with the exact problems
 * `fxtrace check` must report (offset, severity, rule, message) and the
 * number of records.  Every input is checked twice: from one buffer, and
 * streamed in chunks of 1 to 7 bytes through fxt_reader_read().
 *
 * `corpus_test --write DIR` writes every input (and the other vectors) as
 * DIR/NAME.fxt: the seeds of the fuzz run (user/reader/fuzz/run.sh).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vectors.h"

struct corpus_case {
	const char *name;
	size_t bytes;		/* SIZE_MAX: 8 * n */
	const uint64_t *words;
	size_t n;
	uint64_t records;
	const char *expected;
};

/* Words: written for this corpus from the layouts of Documentation/fxt.rst. */
static const struct corpus_case cases[] = {
	/* Documentation/fxt.rst, worked examples (a), (f), (b), (c), (d): no problem */
	{ "spec-examples", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000021, 0x000000003b9aca00,
		0x0000000300010022, 0x0000000000707061, 0x8004000100100074,
		0x00000000000003e8, 0x0000000000001234, 0x0000000000005678,
		0x000000006b636974, 0xfffffffe80010021, 0x000000000000006e,
		0x0000008004010037, 0x0000000000001234, 0x000000006f6d6564,
		0x0000018004020067, 0x0000000000005678, 0x000000006e69616d,
		0x0000000080070038, 0x00737365636f7270, 0x0000000000001234,
	  }, 21, 6,
	  "" },
	/* Documentation/fxt.rst, worked examples (e): legal, but without the weights Perfetto wants */
	{ "spec-switch", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x1000003000300048, 0x00000000000007d0,
		0x0000000000005678, 0x0000000000009abc,
	  }, 5, 2,
	  "0x000008: warning: sched-weight: context switch without int32 arguments incoming_weight and outgoing_weight; Perfetto cannot tell idle threads\n" },
	/* every event type, a context switch, a wakeup, a drop report, a log */
	{ "example-trace", SIZE_MAX, example_trace, N_WORDS(example_trace), 19,
	  "0x000260: note: drops: provider 0 reports a full buffer: records were dropped\n"
	  "0x000268: note: perfetto-unsupported: Perfetto ignores log records (noted once)\n" },
	/* a real trace from Jane Street's tracing library: extension words in its init record, a trace that starts inside calls */
	{ "jane-prefix", SIZE_MAX, jane_prefix, N_WORDS(jane_prefix), 39,
	  "0x000048: note: record-extension: 2 words after the init record's content (2 of 4 words); readers skip them\n"
	  "0x0000e8: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
	  "0x000110: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
	  "0x000138: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
	  "0x000230: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
	  "0x0002e0: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
	  "0x000338: note: duration-unended: thread 2 (process 1): 1 duration begin never ended by the end of the trace; the outermost is here\n" },
	/* Perfetto's InlineInstantEvent: legal, with fill patterns for values */
	{ "perfetto-inline-instant", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8008800800000064, 0xaaaaaaaaaaaaaaaa,
		0xbbbbbbbbbbbbbbbb, 0xcccccccccccccccc, 0xdddddddddddddddd,
		0xeeeeeeeeeeeeeeee,
	  }, 7, 2,
	  "0x000010: warning: timestamp-overflow: timestamp 12297829382473034410 at 1000000000 ticks/s overflows int64 nanoseconds; Perfetto drops the record\n"
	  "0x000018: warning: koid-truncated: process koid 0xbbbbbbbbbbbbbbbb does not fit 32 bits; Perfetto truncates it\n"
	  "0x000020: warning: koid-truncated: thread koid 0xcccccccccccccccc does not fit 32 bits; Perfetto truncates it\n"
	  "0x000028: warning: utf8: the category is not valid UTF-8\n"
	  "0x000030: warning: utf8: the name is not valid UTF-8\n" },
	/* Perfetto's BooleanArguments: its header says 8 words, 10 follow */
	{ "perfetto-boolean-args", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8008800800200084, 0xaaaaaaaaaaaaaaaa,
		0xbbbbbbbbbbbbbbbb, 0xcccccccccccccccc, 0xdddddddddddddddd,
		0xeeeeeeeeeeeeeeee, 0x0000000180080029, 0x0000000000000000,
		0x000000008008002a, 0x0000000000000000,
	  }, 11, 3,
	  "0x000010: warning: timestamp-overflow: timestamp 12297829382473034410 at 1000000000 ticks/s overflows int64 nanoseconds; Perfetto drops the record\n"
	  "0x000018: warning: koid-truncated: process koid 0xbbbbbbbbbbbbbbbb does not fit 32 bits; Perfetto truncates it\n"
	  "0x000020: warning: koid-truncated: thread koid 0xcccccccccccccccc does not fit 32 bits; Perfetto truncates it\n"
	  "0x000028: warning: utf8: the category is not valid UTF-8\n"
	  "0x000030: warning: utf8: the name is not valid UTF-8\n"
	  "0x000008: error: record-overflow: event record of 8 words ends inside its arguments\n"
	  "0x000048: error: record-type: record type 10 is not assigned\n" },
	/* Perfetto's SchedulerEvents: a wakeup and two context switches */
	{ "perfetto-sched", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x2000000000100038, 0x0000000000000001,
		0x1aaaaaaaaaaaaaaa, 0x1000000000100048, 0x0000000000000002,
		0x1aaaaaaaaaaaaaaa, 0x2ccccccccccccccc, 0x1000000000100048,
		0x0000000000000003, 0x2ccccccccccccccc, 0x1aaaaaaaaaaaaaaa,
	  }, 12, 4,
	  "0x000018: warning: koid-truncated: woken thread koid 0x1aaaaaaaaaaaaaaa does not fit 32 bits; Perfetto truncates it\n"
	  "0x000030: warning: koid-truncated: outgoing thread koid 0x1aaaaaaaaaaaaaaa does not fit 32 bits; Perfetto truncates it\n"
	  "0x000038: warning: koid-truncated: incoming thread koid 0x2ccccccccccccccc does not fit 32 bits; Perfetto truncates it\n"
	  "0x000020: warning: sched-weight: context switch without int32 arguments incoming_weight and outgoing_weight; Perfetto cannot tell idle threads\n"
	  "0x000050: warning: koid-truncated: outgoing thread koid 0x2ccccccccccccccc does not fit 32 bits; Perfetto truncates it\n"
	  "0x000058: warning: koid-truncated: incoming thread koid 0x1aaaaaaaaaaaaaaa does not fit 32 bits; Perfetto truncates it\n"
	  "0x000040: warning: sched-weight: context switch without int32 arguments incoming_weight and outgoing_weight; Perfetto cannot tell idle threads\n" },
	/* Perfetto's LegacySchedulerEvents: subtype 0 with inline thread refs */
	{ "perfetto-legacy-sched", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0010000002010068, 0x0000000000000001,
		0x0000000000000000, 0x0000000000000000, 0x1aaaaaaaaaaaaaaa,
		0x1bbbbbbbbbbbbbbb, 0x0010100002010068, 0x0000000000000002,
		0x1aaaaaaaaaaaaaaa, 0x1bbbbbbbbbbbbbbb, 0x2ccccccccccccccc,
		0x2ddddddddddddddd, 0x0010100002010068, 0x0000000000000003,
		0x2ccccccccccccccc, 0x2ddddddddddddddd, 0x1aaaaaaaaaaaaaaa,
		0x1bbbbbbbbbbbbbbb,
	  }, 19, 4,
	  "0x000028: warning: koid-truncated: process koid 0x1aaaaaaaaaaaaaaa does not fit 32 bits; Perfetto truncates it\n"
	  "0x000030: warning: koid-truncated: thread koid 0x1bbbbbbbbbbbbbbb does not fit 32 bits; Perfetto truncates it\n"
	  "0x000048: warning: koid-truncated: process koid 0x1aaaaaaaaaaaaaaa does not fit 32 bits; Perfetto truncates it\n"
	  "0x000050: warning: koid-truncated: thread koid 0x1bbbbbbbbbbbbbbb does not fit 32 bits; Perfetto truncates it\n"
	  "0x000058: warning: koid-truncated: process koid 0x2ccccccccccccccc does not fit 32 bits; Perfetto truncates it\n"
	  "0x000060: warning: koid-truncated: thread koid 0x2ddddddddddddddd does not fit 32 bits; Perfetto truncates it\n"
	  "0x000078: warning: koid-truncated: process koid 0x2ccccccccccccccc does not fit 32 bits; Perfetto truncates it\n"
	  "0x000080: warning: koid-truncated: thread koid 0x2ddddddddddddddd does not fit 32 bits; Perfetto truncates it\n"
	  "0x000088: warning: koid-truncated: process koid 0x1aaaaaaaaaaaaaaa does not fit 32 bits; Perfetto truncates it\n"
	  "0x000090: warning: koid-truncated: thread koid 0x1bbbbbbbbbbbbbbb does not fit 32 bits; Perfetto truncates it\n" },
	/* nothing at all */
	{ "empty", SIZE_MAX, NULL, 0, 0,
	  "0x000000: error: magic-first: the input holds 0 bytes: no magic number record\n" },
	/* 5 bytes of the magic word */
	{ "short-word", 5, (const uint64_t[]){
		0x0016547846040010,
	  }, 1, 0,
	  "0x000000: error: magic-first: the input holds 5 bytes: no magic number record\n"
	  "0x000000: error: truncated: the input ends with 5 bytes that do not make a word\n" },
	/* a string record first */
	{ "no-magic", SIZE_MAX, (const uint64_t[]){
		0x0000000300010022, 0x0000000000707061,
	  }, 2, 1,
	  "0x000000: error: magic-first: the first word is 0x0000000300010022, not the magic number record 0x0016547846040010; Perfetto does not recognise the file\n" },
	/* Perfetto's CorruptedFxt: a header of size 0 */
	{ "size-zero", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0016547846040000,
	  }, 2, 1,
	  "0x000008: error: record-size-zero: metadata record header 0x0016547846040000 gives size 0; the rest of the input cannot be framed\n" },
	/* a 7-word event cut after 4 words */
	{ "truncated-record", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8004000100100074, 0x00000000000003e8,
		0x0000000000001234, 0x0000000000005678,
	  }, 5, 1,
	  "0x000008: error: truncated: the event record needs 56 bytes; the input ends after 32\n" },
	/* 3 bytes after the last record */
	{ "trailing-bytes", 11, (const uint64_t[]){
		0x0016547846040010, 0x0000000000abcdef,
	  }, 2, 1,
	  "0x000008: error: truncated: the input ends with 3 bytes that do not make a word\n" },
	/* record type 10, size 1 */
	{ "record-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x000000000000001a,
	  }, 2, 2,
	  "0x000008: error: record-type: record type 10 is not assigned\n" },
	/* a 20-byte string in a 2-word record */
	{ "record-overflow", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000001400010022, 0x6867666564636261,
	  }, 3, 2,
	  "0x000008: error: record-overflow: string record of 2 words ends inside its string\n" },
	/* reserved bits set in a string header, a thread header and a null argument */
	{ "reserved-bits", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000380010022, 0x0000000000707061,
		0x0000000005020033, 0x0000000000000001, 0x0000000000000002,
		0x8001000000100074, 0x0000000000000001, 0x0000000000000001,
		0x0000000000000002, 0x0000000000000078, 0x0000000780010020,
		0x0000000000000061,
	  }, 13, 4,
	  "0x000008: error: reserved-bits: string record header: bits [31..31] must be 0, are 0x1\n"
	  "0x000018: error: reserved-bits: thread record header: bits [24..63] must be 0, are 0x5\n"
	  "0x000058: error: reserved-bits: argument 1 (null): bits [32..63] must be 0, are 0x7\n" },
	/* "app" followed by a non-zero byte */
	{ "padding", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000300010022, 0x0000000100707061,
	  }, 3, 2,
	  "0x000010: error: padding: the padding after the 3 bytes of the string is not 0\n" },
	/* a string with byte 0xff */
	{ "utf8", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000300010022, 0x000000000062ff61,
	  }, 3, 2,
	  "0x000010: warning: utf8: the string is not valid UTF-8\n" },
	/* metadata type 5 */
	{ "metadata-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000050010,
	  }, 2, 2,
	  "0x000008: error: metadata-type: metadata type 5 is not defined\n" },
	/* trace info type 1 */
	{ "trace-info-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000140010,
	  }, 2, 2,
	  "0x000008: error: trace-info-type: trace info type 1 is not defined\n" },
	/* a magic record with the wrong number */
	{ "magic-value", SIZE_MAX, (const uint64_t[]){
		0x0012345678040010,
	  }, 1, 1,
	  "0x000000: error: magic-first: the first word is 0x0012345678040010, not the magic number record 0x0016547846040010; Perfetto does not recognise the file\n"
	  "0x000000: error: magic: magic number 0x12345678 is not 0x16547846\n" },
	/* a magic record of 2 words */
	{ "magic-size", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0016547846040020, 0x0000000000000000,
	  }, 3, 2,
	  "0x000008: error: magic: magic number record of 2 words; it is exactly 1 word\n" },
	/* a section for provider 9, never announced */
	{ "provider-section-unknown", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000920010, 0x0000000100010022,
		0x0000000000000061,
	  }, 4, 3,
	  "0x000008: error: provider-section: provider section for provider 9, which no provider info record announced; Perfetto drops the records that follow\n" },
	/* provider event 5 */
	{ "provider-event-unknown", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0050000000030010,
	  }, 2, 2,
	  "0x000008: warning: provider-event: provider event 5 of provider 0 is not defined (0 is buffer full)\n" },
	/* provider 3 reports a full buffer */
	{ "drops-buffer-full", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0010000000310020, 0x0000000000000070,
		0x0000000000330010,
	  }, 4, 3,
	  "0x000018: note: drops: provider 3 reports a full buffer: records were dropped\n" },
	/* 0 ticks per second */
	{ "ticks-zero", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000021, 0x0000000000000000,
	  }, 3, 2,
	  "0x000008: error: ticks-zero: initialization record gives 0 ticks per second\n" },
	/* string and thread records for index 0 */
	{ "index-zero", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000100000022, 0x0000000000000061,
		0x0000000000000033, 0x0000000000000001, 0x0000000000000002,
	  }, 6, 3,
	  "0x000008: error: string-index-zero: string record for index 0, which is never defined\n"
	  "0x000018: error: thread-index-zero: thread record for index 0, which is never defined\n" },
	/* an event with undefined thread and name refs */
	{ "refs-undefined", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0005000009000024, 0x0000000000000001,
	  }, 3, 2,
	  "0x000008: error: thread-undefined: the thread refers to thread 9, which provider 0 has not defined\n"
	  "0x000008: error: string-undefined: the name refers to string 5, which provider 0 has not defined\n" },
	/* string 1 belongs to provider 1, not to provider 2 */
	{ "refs-per-provider", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0010000000110020, 0x0000000000000061,
		0x0000000100010022, 0x0000000000000078, 0x0010000000210020,
		0x0000000000000062, 0x0001000000000044, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000120010,
		0x0001000000000044, 0x0000000000000001, 0x0000000000000001,
		0x0000000000000002,
	  }, 16, 7,
	  "0x000038: error: string-undefined: the name refers to string 1, which provider 2 has not defined\n" },
	/* event type 11 */
	{ "event-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x00000000000b0044, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002,
	  }, 5, 2,
	  "0x000008: error: event-type: event type 11 is not defined\n" },
	/* argument type 11 */
	{ "arg-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000100054, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x000000000000001b,
	  }, 6, 2,
	  "0x000028: error: arg-type: argument 1 of 1 has type 11, which is not an argument type\n" },
	/* an argument of size 0 */
	{ "arg-size-zero", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000100054, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000001,
	  }, 6, 2,
	  "0x000028: error: arg-size-zero: argument 1 of 1 has size 0\n" },
	/* a 3-word argument in the last word of its record */
	{ "arg-overflow", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000100054, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000031,
	  }, 6, 2,
	  "0x000028: error: arg-overflow: argument 1 of 1 (3 words) runs past the end of the event record (1 word left)\n" },
	/* an int64 argument of 1 word */
	{ "arg-size", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000100054, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000013,
	  }, 6, 2,
	  "0x000028: error: arg-size: argument 1 of 1 (1 word) ends inside its value\n" },
	/* an int32 argument of 2 words */
	{ "arg-extension", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000100064, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000500000021,
		0x0000000000000000,
	  }, 7, 2,
	  "0x000030: note: arg-extension: argument 1 of 1 has 1 word after its value\n" },
	/* an init record of 3 words */
	{ "record-extension", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000031, 0x000000003b9aca00,
		0x0000000000000000,
	  }, 4, 2,
	  "0x000018: note: record-extension: 1 word after the init record's content (2 of 3 words); readers skip them\n" },
	/* blob type 4 */
	{ "blob-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0004000000000015,
	  }, 2, 2,
	  "0x000008: error: blob-type: blob type 4 is not defined (1 data, 2 last branch, 3 Perfetto)\n"
	  "0x000008: note: perfetto-unsupported: Perfetto ignores blob records other than type 3 (Perfetto protobuf) (noted once)\n" },
	/* a blob of type 3 with 8 bytes Perfetto cannot parse as protobuf */
	{ "blob-perfetto", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0003000800000025, 0x000000000000003a,
	  }, 3, 2,
	  "0x000008: warning: blob-perfetto: blob of type 3 (Perfetto protobuf): Perfetto fails the whole import if it cannot parse it\n" },
	/* large record type 1, large blob format 2 */
	{ "large-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x000000100000001f, 0x000002000000001f,
	  }, 3, 3,
	  "0x000008: error: large-type: large record type 1 is not defined (0 is blob)\n"
	  "0x000008: note: perfetto-unsupported: Perfetto ignores large records (noted once)\n"
	  "0x000010: error: large-type: large blob format 2 is not defined (0 with metadata, 1 attachment)\n" },
	/* scheduling subtype 3 */
	{ "sched-type", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x3000000000000018,
	  }, 2, 2,
	  "0x000008: error: sched-type: scheduling record subtype 3 is not defined\n" },
	/* a context switch out to state 7 */
	{ "thread-state", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x10000070000200a8, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x00000000800f0031,
		0x676e696d6f636e69, 0x007468676965775f, 0x00000000800f0031,
		0x676e696f6774756f, 0x007468676965775f,
	  }, 11, 2,
	  "0x000008: error: thread-state: outgoing thread state 7 is not a thread state (0 to 5)\n" },
	/* an event at 2^63 ns */
	{ "timestamp-overflow", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000044, 0x8000000000000000,
		0x0000000000000001, 0x0000000000000002,
	  }, 5, 2,
	  "0x000010: warning: timestamp-overflow: timestamp 9223372036854775808 at 1000000000 ticks/s overflows int64 nanoseconds; Perfetto drops the record\n" },
	/* a complete event ending before it starts */
	{ "duration-negative", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000040054, 0x0000000000000064,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000032,
	  }, 6, 2,
	  "0x000028: warning: duration-negative: duration ends at 50, before its start at 100; Perfetto drops it\n" },
	/* a counter with a string argument */
	{ "counter-value", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000110074, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000080010026,
		0x0000000000000073, 0x0000000000000000,
	  }, 8, 2,
	  "0x000028: warning: counter-value: counter argument 1 is string, not a number; Perfetto ignores it\n" },
	/* a pid of 2^32 */
	{ "koid-truncated", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000010033, 0x0000000100000000,
		0x0000000000000005,
	  }, 4, 2,
	  "0x000010: warning: koid-truncated: process koid 0x100000000 does not fit 32 bits; Perfetto truncates it\n" },
	/* thread objects without, and with an int32, "process" argument */
	{ "kobj-thread-process", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000008001020037, 0x0000000000000005,
		0x0000000000000074, 0x0000018001020057, 0x0000000000000006,
		0x0000000000000075, 0x0000000180070021, 0x00737365636f7270,
	  }, 9, 3,
	  "0x000008: warning: kobj-thread-process: thread object 0x5 has no koid argument \"process\"; Perfetto cannot attach it to its process\n"
	  "0x000038: warning: kobj-thread-process: thread object 0x6: argument \"process\" is int32, not koid; Perfetto drops the record\n" },
	/* a missing weight, and weights of the wrong type */
	{ "sched-weight", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x1000003000010078, 0x000000000000000a,
		0x0000000000000001, 0x0000000000000002, 0x00000000800f0031,
		0x676e696d6f636e69, 0x007468676965775f, 0x10000030000200a8,
		0x0000000000000014, 0x0000000000000002, 0x0000000000000001,
		0x00000000800f0031, 0x676e696d6f636e69, 0x007468676965775f,
		0x00000005800f0032, 0x676e696f6774756f, 0x007468676965775f,
		0x2000000000010058, 0x000000000000001e, 0x0000000000000001,
		0x0000000080060022, 0x0000746867696577,
	  }, 23, 4,
	  "0x000008: warning: sched-weight: context switch without int32 argument outgoing_weight; Perfetto cannot tell idle threads\n"
	  "0x000078: warning: sched-weight: argument outgoing_weight is uint32, not int32; Perfetto drops the record\n"
	  "0x0000a8: warning: sched-weight: argument weight is uint32, not int32; Perfetto drops the record\n" },
	/* CPU 1 goes back in time; CPU 2 has its own order */
	{ "sched-order", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x10000030001200a8, 0x0000000000000014,
		0x0000000000000001, 0x0000000000000002, 0x00000000800f0031,
		0x676e696d6f636e69, 0x007468676965775f, 0x00000000800f0031,
		0x676e696f6774756f, 0x007468676965775f, 0x10000030001200a8,
		0x000000000000000a, 0x0000000000000002, 0x0000000000000001,
		0x00000000800f0031, 0x676e696d6f636e69, 0x007468676965775f,
		0x00000000800f0031, 0x676e696f6774756f, 0x007468676965775f,
		0x10000030002200a8, 0x0000000000000005, 0x0000000000000003,
		0x0000000000000004, 0x00000000800f0031, 0x676e696d6f636e69,
		0x007468676965775f, 0x00000000800f0031, 0x676e696f6774756f,
		0x007468676965775f,
	  }, 31, 4,
	  "0x000058: warning: sched-order: scheduling record on CPU 1 at 10 ns is older than the one at offset 0x8 (20 ns)\n" },
	/* context switches on CPU 4096 (Perfetto aborts) and 4095 (fine) */
	{ "sched-cpu", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x10000031000200a8, 0x000000000000000a,
		0x0000000000000001, 0x0000000000000002, 0x00000000800f0031,
		0x676e696d6f636e69, 0x007468676965775f, 0x00000000800f0031,
		0x676e696f6774756f, 0x007468676965775f, 0x10000030fff200a8,
		0x0000000000000014, 0x0000000000000002, 0x0000000000000001,
		0x00000000800f0031, 0x676e696d6f636e69, 0x007468676965775f,
		0x00000000800f0031, 0x676e696f6774756f, 0x007468676965775f,
	  }, 21, 3,
	  "0x000008: warning: sched-cpu: CPU 4096: Perfetto's trace processor aborts the import of the whole file on CPU 4096 or above\n" },
	/* async names that differ, an end without begin, a begin without end */
	{ "async", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001000000050064, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000061,
		0x0000000000000007, 0x8001000000060064, 0x0000000000000002,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000062,
		0x0000000000000007, 0x8001000000070064, 0x0000000000000003,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000061,
		0x0000000000000007, 0x8001000000070064, 0x0000000000000004,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000063,
		0x0000000000000008, 0x8001000000050064, 0x0000000000000005,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000064,
		0x0000000000000009,
	  }, 31, 6,
	  "0x000038: warning: async-name: async instant \"b\" in category \"\" (process 1, id 0x7): its begin at offset 0x8 has another name or category (Perfetto ends only a slice of the end\'s category and name)\n"
	  "0x000098: note: async-unmatched-end: async end (process 1, id 0x8) with no begin (the trace may start inside it)\n"
	  "0x0000c8: note: async-unended: 1 async begin never ended; the first is here\n" },
	/*
	 * process 1, id 7: begin a, begin b nested in it, end b, instant a (a
	 * is innermost again), end d (no open begin's name: it closes
	 * nothing, a stays open), begin c nested in a, begin c nested, end c:
	 * a and the outer c never end
	 */
	{ "async-nested", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001000000050064, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000061,
		0x0000000000000007, 0x8001000000050064, 0x0000000000000002,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000062,
		0x0000000000000007, 0x8001000000070064, 0x0000000000000003,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000062,
		0x0000000000000007, 0x8001000000060064, 0x0000000000000004,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000061,
		0x0000000000000007, 0x8001000000070064, 0x0000000000000005,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000064,
		0x0000000000000007, 0x8001000000050064, 0x0000000000000006,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000063,
		0x0000000000000007, 0x8001000000050064, 0x0000000000000007,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000063,
		0x0000000000000007, 0x8001000000070064, 0x0000000000000008,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000063,
		0x0000000000000007,
	  }, 49, 9,
	  "0x0000c8: warning: async-name: async end \"d\" in category \"\" (process 1, id 0x7): its begin at offset 0x8 has another name or category (Perfetto ends only a slice of the end\'s category and name)\n"
	  "0x000008: note: async-unended: 2 async begins never ended; the first is here\n" },
	/*
	 * process 1, id 7: begin a, begin b nested, end a, end b: Perfetto
	 * closes a, the innermost open slice of that name, and at the next
	 * event of the track cuts b at a's end (misplaced_end_event); end b
	 * then closes nothing
	 */
	{ "async-end-outer", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001000000050064, 1, 1, 2, 0x61, 7,
		0x8001000000050064, 2, 1, 2, 0x62, 7,
		0x8001000000070064, 3, 1, 2, 0x61, 7,
		0x8001000000070064, 4, 1, 2, 0x62, 7,
	  }, 25, 5,
	  "0x000068: warning: async-name: async end \"a\" in category \"\" (process 1, id 0x7): its begin at offset 0x38 has another name or category (Perfetto ends only a slice of the end's category and name)\n"
	  "0x000098: warning: misplaced-end: async id 0x7 (process 1): an event at 4 ns cuts 1 begin left open inside a slice that ended at 3 ns: Perfetto ends it there (stat misplaced_end_event)\n"
	  "0x000098: note: async-unmatched-end: async end (process 1, id 0x7) with no begin (the trace may start inside it)\n" },
	/*
	 * process 1, id 7: begin a, begin b nested, end a as the track's last
	 * event: Perfetto closes a and pops nothing (b is not on top), and no
	 * later event cuts b, so b stays open (dur -1)
	 */
	{ "async-end-outer-last", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001000000050064, 1, 1, 2, 0x61, 7,
		0x8001000000050064, 2, 1, 2, 0x62, 7,
		0x8001000000070064, 3, 1, 2, 0x61, 7,
	  }, 19, 4,
	  "0x000068: warning: async-name: async end \"a\" in category \"\" (process 1, id 0x7): its begin at offset 0x38 has another name or category (Perfetto ends only a slice of the end's category and name)\n"
	  "0x000038: note: async-unended: 1 async begin never ended; the first is here\n" },
	/*
	 * process 1, id 7: begin a, begin b nested, end a, end b at the time
	 * of end a: MaybeCloseStack cuts nothing at that time, so end b
	 * closes b and all end
	 */
	{ "async-end-outer-same-time", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001000000050064, 1, 1, 2, 0x61, 7,
		0x8001000000050064, 2, 1, 2, 0x62, 7,
		0x8001000000070064, 3, 1, 2, 0x61, 7,
		0x8001000000070064, 3, 1, 2, 0x62, 7,
	  }, 25, 5,
	  "0x000068: warning: async-name: async end \"a\" in category \"\" (process 1, id 0x7): its begin at offset 0x38 has another name or category (Perfetto ends only a slice of the end's category and name)\n" },
	/*
	 * 2e9 ticks/s; process 1, id 7: begin a, begin b nested, end a at
	 * tick 4, instant b at tick 5 as the last event: both are at 2 ns
	 * for Perfetto (it compares ns), so the instant cuts nothing and b
	 * stays open
	 */
	{ "async-end-outer-same-ns", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000021, 0x0000000077359400,
		0x8001000000050064, 2, 1, 2, 0x61, 7,
		0x8001000000050064, 2, 1, 2, 0x62, 7,
		0x8001000000070064, 4, 1, 2, 0x61, 7,
		0x8001000000060064, 5, 1, 2, 0x62, 7,
	  }, 27, 6,
	  "0x000078: warning: async-name: async end \"a\" in category \"\" (process 1, id 0x7): its begin at offset 0x48 has another name or category (Perfetto ends only a slice of the end's category and name)\n"
	  "0x000048: note: async-unended: 1 async begin never ended; the first is here\n" },
	/* process 1, id 7: begin a at 2^63 ns, which Perfetto drops */
	{ "async-begin-overflow", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x8001000000050064, 0x8000000000000000, 1, 2, 0x61, 7,
	  }, 7, 2,
	  "0x000010: warning: timestamp-overflow: timestamp 9223372036854775808 at 1000000000 ticks/s overflows int64 nanoseconds; Perfetto drops the record\n" },
	/*
	 * process 1, id 7: begin "a" in category "x", instant "a" in "y"
	 * (Perfetto matches category and name), end "a" in "x"
	 */
	{ "async-category", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001800100050074, 1, 1, 2, 0x78, 0x61, 7,
		0x8001800100060074, 2, 1, 2, 0x79, 0x61, 7,
		0x8001800100070074, 3, 1, 2, 0x78, 0x61, 7,
	  }, 22, 4,
	  "0x000040: warning: async-name: async instant \"a\" in category \"y\" (process 1, id 0x7): its begin at offset 0x8 has another name or category (Perfetto ends only a slice of the end's category and name)\n" },
	/*
	 * flows on thread 2 of process 1: a begin before any slice, a second
	 * begin of an open id, an id reused after its end (fine), flows bound
	 * to a complete slice until a later slice event pops it, a step of an
	 * ended id (Perfetto: info only), a begin after the last slice ended;
	 * Perfetto v58.2 counts flow_no_enclosing_slice 2, flow_duplicate_id 1
	 */
	{ "flows", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x8001000000080064, 1, 1, 2, 0x66, 7,	/* flow begin: no slice */
		0x8001000000020054, 2, 1, 2, 0x61,	/* duration begin a */
		0x8001000000080064, 3, 1, 2, 0x66, 7,	/* flow begin 7 */
		0x8001000000080064, 4, 1, 2, 0x66, 7,	/* flow begin 7 again */
		0x8001000000090064, 5, 1, 2, 0x66, 7,	/* flow step 7 */
		0x80010000000a0064, 6, 1, 2, 0x66, 7,	/* flow end 7 */
		0x8001000000080064, 7, 1, 2, 0x66, 7,	/* flow begin 7 anew */
		0x80010000000a0064, 8, 1, 2, 0x66, 7,	/* flow end 7 */
		0x8001000000030054, 9, 1, 2, 0x61,	/* duration end a */
		0x8001000000040064, 10, 1, 2, 0x63, 20,	/* complete c, 10 to 20 */
		0x8001000000080064, 15, 1, 2, 0x66, 9,	/* flow begin 9 */
		0x80010000000a0064, 25, 1, 2, 0x66, 9,	/* flow end 9: c stacked */
		0x8001000000000054, 30, 1, 2, 0x69,	/* instant i: pops c */
		0x8001000000020054, 40, 1, 2, 0x62,	/* duration begin b */
		0x8001000000030054, 41, 1, 2, 0x62,	/* duration end b */
		0x8001000000090064, 42, 1, 2, 0x66, 9,	/* flow step 9: ended */
		0x8001000000080064, 43, 1, 2, 0x66, 5,	/* flow begin: no slice */
	  }, 98, 18,
	  "0x000008: warning: flow-no-enclosing-slice: flow begin (id 0x7) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n"
	  "0x000090: warning: flow-duplicate-id: flow begin (id 0x7, process 1) while the flow begun at offset 0x60 is not ended; Perfetto drops it\n"
	  "0x0002e0: warning: flow-no-enclosing-slice: flow begin (id 0x5) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/*
	 * an async end named unlike its begin, the two names of one FNV-1a
	 * 64 ("323a830bbc7e3a52" and "005fc1b9fb9780e7", found by a rho
	 * search in 2^32 hashes): the names' hashes are keyed now
	 */
	{ "async-name-fnv-collision", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x8010000000050074, 1, 1, 2, 0x6230333861333233,
		0x3235613365376362, 7,			/* async begin */
		0x8010000000070074, 2, 1, 2, 0x3962316366353030,
		0x3765303837396266, 7,			/* async end */
	  }, 15, 3,
	  "0x000040: warning: async-name: async end \"005fc1b9fb9780e7\" in category \"\" (process 1, id 0x7): its begin at offset 0x8 has another name or category (Perfetto ends only a slice of the end\'s category and name)\n"
	  "0x000008: note: async-unended: 1 async begin never ended; the first is here\n" },
	/* two log records: Perfetto ignores them, noted once */
	{ "log-twice", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000020059, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000006968,
		0x0000000000020059, 0x0000000000000002, 0x0000000000000001,
		0x0000000000000002, 0x0000000000006f68,
	  }, 11, 3,
	  "0x000008: note: perfetto-unsupported: Perfetto ignores log records (noted once)\n" },
	/* an end first, begins cut by a thread exit and by the end of the trace */
	{ "durations", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000030044, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000020044,
		0x0000000000000002, 0x0000000000000001, 0x0000000000000002,
		0x0000000000020044, 0x0000000000000003, 0x0000000000000001,
		0x0000000000000003, 0x0000000000020044, 0x0000000000000004,
		0x0000000000000001, 0x0000000000000003, 0x10000050000200a8,
		0x0000000000000005, 0x0000000000000003, 0x0000000000000002,
		0x00000000800f0031, 0x676e696d6f636e69, 0x007468676965775f,
		0x00000000800f0031, 0x676e696f6774756f, 0x007468676965775f,
	  }, 27, 6,
	  "0x000008: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
	  "0x000048: note: duration-unended: thread 3 (process 1): 2 duration begins never ended before the thread exited; the outermost is here\n"
	  "0x000028: note: duration-unended: thread 2 (process 1): 1 duration begin never ended by the end of the trace; the outermost is here\n" },
	/* a userspace object whose inline process takes two words */
	{ "userobj-layout", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000018003000076, 0x000000000000feed,
		0x000000000000000a, 0x000000000000000b, 0x00000000006a626f,
		0x0000000180010021, 0x000000000000006e,
	  }, 8, 2,
	  "0x000008: note: userobj-layout: the inline process takes two words (process and thread koid), as Fuchsia's writer emits; the spec says one\n"
	  "0x000008: note: perfetto-unsupported: Perfetto ignores userspace object records (noted once)\n" },
	/* an event with a blob argument */
	{ "blob-arg", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000100064, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x000000030000002a,
		0x00000000007a7978,
	  }, 7, 2,
	  "0x000028: note: perfetto-unsupported: Perfetto ignores blob arguments (noted once)\n" },
	/* the lowest reserved bit of each header, argument and format header the other inputs leave clear */
	{ "reserved-bits-lowest", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x1010000000110020, 0x0000000000000070,
		0x0010000000120010, 0x0000800100010022, 0x0000000000000061,
		0x0000000000200064, 0x0000000000000001, 0x0000000000000001,
		0x0000000000000002, 0x0001000000000016, 0x0000000300000019,
		0x10000100000200a8, 0x0000000000000001, 0x0000000000000002,
		0x0000000000000003, 0x00000001800f0031, 0x676e696d6f636e69,
		0x007468676965775f, 0x00000002800f0031, 0x676e696f6774756f,
		0x007468676965775f, 0x2000001000000038, 0x0000000000000001,
		0x0000000000000003, 0x0000010000010059, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x000000000000006d,
		0x000000000000006f, 0x0000100000000000, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000000,
		0x000001000000003f, 0x0000000100000000, 0x0000000000000000,
	  }, 39, 10,
	  "0x000008: error: reserved-bits: metadata record header: bits [60..63] must be 0, are 0x1\n"
	  "0x000018: error: reserved-bits: metadata record header: bits [52..63] must be 0, are 0x1\n"
	  "0x000020: error: reserved-bits: string record header: bits [47..63] must be 0, are 0x1\n"
	  "0x000050: error: reserved-bits: argument 1 (string): bits [48..63] must be 0, are 0x1\n"
	  "0x000058: error: reserved-bits: argument 2 (bool): bits [33..63] must be 0, are 0x1\n"
	  "0x000060: error: reserved-bits: scheduling record header: bits [40..59] must be 0, are 0x1\n"
	  "0x0000b0: error: reserved-bits: scheduling record header: bits [36..59] must be 0, are 0x1\n"
	  "0x0000c8: error: reserved-bits: log record header: bits [40..63] must be 0, are 0x1\n"
	  "0x0000c8: note: perfetto-unsupported: Perfetto ignores log records (noted once)\n"
	  "0x0000f8: error: reserved-bits: large record format header: bits [44..63] must be 0, are 0x1\n"
	  "0x0000f0: note: perfetto-unsupported: Perfetto ignores large records (noted once)\n"
	  "0x000128: error: reserved-bits: large record format header: bits [32..63] must be 0, are 0x1\n" },
	/* at the bounds of checks: blob type 0, a context switch with outgoing_weight only, two scheduling records at one time, koids of 2^32-1, a name whose 8th byte is not UTF-8 */
	{ "checks-at-bounds", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000015, 0x1000000000110078,
		0x0000000000000002, 0x0000000000000003, 0x0000000000000004,
		0x00000001800f0031, 0x676e696f6774756f, 0x007468676965775f,
		0x2000000000100038, 0x0000000000000002, 0x0000000000000003,
		0x0000000000000044, 0x0000000000000003, 0x00000000ffffffff,
		0x00000000ffffffff, 0x8008000000000054, 0x0000000000000003,
		0x0000000000000001, 0x0000000000000002, 0xff67666564636261,
	  }, 21, 6,
	  "0x000008: error: blob-type: blob type 0 is not defined (1 data, 2 last branch, 3 Perfetto)\n"
	  "0x000008: note: perfetto-unsupported: Perfetto ignores blob records other than type 3 (Perfetto protobuf) (noted once)\n"
	  "0x000010: warning: sched-weight: context switch without int32 argument incoming_weight; Perfetto cannot tell idle threads\n"
	  "0x0000a0: warning: utf8: the name is not valid UTF-8\n" },
	/* a userspace object of two words of process, no name and no arguments: one word would leave a word after its content */
	{ "userobj-layout-short", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000046, 0x000000000000feed,
		0x000000000000000a, 0x000000000000000b,
	  }, 5, 2,
	  "0x000008: note: userobj-layout: the inline process takes two words (process and thread koid), as Fuchsia's writer emits; the spec says one\n"
	  "0x000008: note: perfetto-unsupported: Perfetto ignores userspace object records (noted once)\n" },
	/* a userspace object of two words of process: read with one, the thread koid would be a null argument with a reserved bit set */
	{ "userobj-layout-error", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000010000000056, 0x000000000000feed,
		0x000000000000000a, 0x0000000100000020, 0x0000000700000011,
	  }, 6, 2,
	  "0x000008: note: userobj-layout: the inline process takes two words (process and thread koid), as Fuchsia's writer emits; the spec says one\n"
	  "0x000020: warning: koid-truncated: thread koid 0x100000020 does not fit 32 bits; Perfetto truncates it\n"
	  "0x000008: note: perfetto-unsupported: Perfetto ignores userspace object records (noted once)\n" },
	/* a duration end at a complete event's end pops it: the flow begin at that time has no slice */
	{ "flow-scoped-end", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000020044, 0x000000000000000a,
		0x0000000000000001, 0x0000000000000002, 0x0000000000040054,
		0x000000000000000a, 0x0000000000000001, 0x0000000000000002,
		0x0000000000000014, 0x0000000000030044, 0x0000000000000014,
		0x0000000000000001, 0x0000000000000002, 0x0000000000080054,
		0x0000000000000014, 0x0000000000000001, 0x0000000000000002,
		0x0000000000000001,
	  }, 19, 5,
	  "0x000070: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/*
	 * tid 2 of process 1 opens a duration, then is process 3's (the tid
	 * used again): Perfetto's thread (3, 2) is another, with no slice,
	 * and drops its flow begin (flow_no_enclosing_slice); its own duration
	 * then holds its next flow
	 */
	{ "flow-tid-reused", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000020044, 10, 1, 2,		/* duration begin */
		0x0000000000080054, 20, 3, 2, 1,	/* flow begin: process 3 */
		0x0000000000020044, 30, 3, 2,		/* duration begin */
		0x0000000000080054, 40, 3, 2, 2,	/* flow begin: in it */
	  }, 19, 5,
	  "0x000028: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 3) outside any slice of that thread; Perfetto drops it\n"
	  "0x000008: note: duration-unended: thread 2 (process 1): 1 duration begin never ended by the end of the trace; the outermost is here\n"
	  "0x000050: note: duration-unended: thread 2 (process 3): 1 duration begin never ended by the end of the trace; the outermost is here\n" },
	/*
	 * tid 2 of process 1, then of process 3, then of process 1 again:
	 * Perfetto finds process 1's live thread of the tid again, its slice
	 * stack as it was, so each flow binds to its own process's duration
	 * and each end closes its own
	 */
	{ "flow-tid-interleaved", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000020044, 10, 1, 2,		/* duration begin */
		0x0000000000020044, 20, 3, 2,		/* duration begin: process 3 */
		0x0000000000080054, 30, 1, 2, 1,	/* flow begin: process 1 */
		0x0000000000030044, 40, 1, 2,		/* duration end */
		0x0000000000080054, 50, 3, 2, 2,	/* flow begin: process 3 */
		0x0000000000030044, 60, 3, 2,		/* duration end: process 3 */
	  }, 27, 7, "" },
	/*
	 * tid 2 of process 1 and of process 3 each open a duration, then the
	 * tid switches out dead: the record names no pid and Perfetto ends
	 * the newest thread; the reader ends both, newest first, so that it
	 * never passes a flow Perfetto drops (here one Perfetto would bind)
	 */
	{ "flow-tid-dead", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000020044, 10, 1, 2,		/* duration begin */
		0x0000000000020044, 20, 3, 2,		/* duration begin: process 3 */
		0x10000050000200a8, 25, 2, 0,		/* tid 2 switches out dead */
		0x00000000800f0031, 0x676e696d6f636e69, 0x007468676965775f,
		0x00000000800f0031, 0x676e696f6774756f, 0x007468676965775f,
		0x0000000000080054, 30, 1, 2, 1,	/* flow begin: process 1 */
	  }, 24, 5,
	  "0x000028: note: duration-unended: thread 2 (process 3): 1 duration begin never ended before the thread exited; the outermost is here\n"
	  "0x000008: note: duration-unended: thread 2 (process 1): 1 duration begin never ended before the thread exited; the outermost is here\n"
	  "0x000098: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/*
	 * an instant older than a popped complete event's end: judged in
	 * file order, a later end pops the instant and the flow begin after
	 * it has no slice.  Perfetto sorts by time first: the instant (500)
	 * and the end (700) fall inside the complete event (100..1000), which
	 * the flow binds to.  check judges file order and says so once
	 * (time-order; Documentation/perfetto.rst)
	 */
	{ "flow-scoped-older", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000040054, 0x0000000000000064,
		0x0000000000000001, 0x0000000000000002, 0x00000000000003e8,
		0x0000000000020044, 0x00000000000007d0, 0x0000000000000001,
		0x0000000000000002, 0x0000000000030044, 0x00000000000007d1,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000044,
		0x00000000000001f4, 0x0000000000000001, 0x0000000000000002,
		0x0000000000030044, 0x00000000000002bc, 0x0000000000000001,
		0x0000000000000002, 0x0000000000080054, 0x00000000000002bc,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000001,
	  }, 27, 7,
	  "0x000070: note: time-order: thread 2 (process 1): an event at 500 ns is older than the one at offset 0x50 (2001 ns): Perfetto nests them in time order, this check in file order (noted once)\n"
	  "0x000090: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
	  "0x0000b0: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/*
	 * 2 ticks a ns: the complete event ends at tick 41, 20 ns, and the
	 * duration end at tick 40 is 20 ns too, so Perfetto pops the complete
	 * event there (end == ts), closes the begin and pops it: the flow
	 * begin after has no slice
	 */
	{ "flow-scoped-ns", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x0000000000000021, 2000000000,
		0x0000000000020044, 2, 1, 2,		/* duration begin */
		0x0000000000040054, 4, 1, 2, 41,	/* complete: 2..20 ns */
		0x0000000000030044, 40, 1, 2,		/* duration end: 20 ns */
		0x0000000000080054, 42, 1, 2, 1,	/* flow begin */
	  }, 21, 6,
	  "0x000080: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/*
	 * a complete event overlapping the one before partially: Perfetto
	 * drops it (slice_drop_overlapping_complete_event), so its end does
	 * not keep the stack open: the duration end at 25 pops the first
	 * and closes the begin, and the flow begin after has no slice
	 */
	{ "flow-scoped-overlap", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000020044, 5, 1, 2,		/* duration begin */
		0x0000000000040054, 10, 1, 2, 20,	/* complete: 10..20 */
		0x0000000000040054, 15, 1, 2, 30,	/* complete: 15..30 */
		0x0000000000030044, 25, 1, 2,		/* duration end */
		0x0000000000080054, 26, 1, 2, 1,	/* flow begin */
	  }, 24, 6,
	  "0x000050: warning: complete-overlap: complete event on thread 2 (process 1) from 15 to 30 ns partly overlaps the slice from 10 to 20 ns on its stack: Perfetto drops it (stat slice_drop_overlapping_complete_event)\n"
	  "0x000098: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/*
	 * complete events nested: the inner one ends first, and an instant
	 * after it pops only it; the duration end at 60 pops the instant
	 * and closes the begin, not on top (the outer complete event is
	 * open to 100), so the flow begin binds to the complete event
	 */
	{ "flow-scoped-nested", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000020044, 5, 1, 2,		/* duration begin */
		0x0000000000040054, 10, 1, 2, 100,	/* complete: 10..100 */
		0x0000000000040054, 20, 1, 2, 30,	/* complete: 20..30 */
		0x0000000000000044, 50, 1, 2,		/* instant */
		0x0000000000030044, 60, 1, 2,		/* duration end */
		0x0000000000080054, 70, 1, 2, 1,	/* flow begin */
	  }, 28, 7, "" },
	/*
	 * a duration begin inside a complete event that ends first: the
	 * instant after that end cuts the begin there (Perfetto's
	 * misplaced_end_event, warned as misplaced-end) and pops both, so
	 * the next duration's end leaves the stack empty and the flow begin
	 * has no slice; the balance note still counts the begin open
	 */
	{ "thread-misplaced-cut", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000040054, 10, 1, 2, 20,	/* complete: 10..20 */
		0x0000000000020044, 15, 1, 2,		/* duration begin */
		0x0000000000000044, 25, 1, 2,		/* instant */
		0x0000000000020044, 26, 1, 2,		/* duration begin */
		0x0000000000030044, 27, 1, 2,		/* duration end */
		0x0000000000080054, 28, 1, 2, 1,	/* flow begin */
	  }, 27, 7,
	  "0x000050: warning: misplaced-end: thread 2 (process 1): an event at 25 ns cuts 1 slice left open inside a slice that ended at 20 ns: Perfetto ends it there (stat misplaced_end_event)\n"
	  "0x0000b0: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n"
	  "0x000030: note: duration-unended: thread 2 (process 1): 1 duration begin never ended by the end of the trace; the outermost is here\n" },
	/*
	 * two duration begins inside a complete event (10..20) and a
	 * complete event (16..18) inside them: the instant at 19 pops the
	 * inner complete event, the one at 20 pops that instant and cuts
	 * nothing (not later than the end), the duration end at 21 pops the
	 * instant at 20 and cuts both begins (one warning), then closes
	 * nothing; the complete event 30..40 overlaps nothing, the one at
	 * 35..45 is on another thread's stack, and the one at 38..50 partly
	 * overlaps 30..40 and is dropped: the flow begin at 42 binds to
	 * 30..40
	 */
	{ "thread-misplaced-two", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000040054, 10, 1, 2, 20,	/* complete: 10..20 */
		0x0000000000020044, 12, 1, 2,		/* duration begin */
		0x0000000000020044, 14, 1, 2,		/* duration begin */
		0x0000000000040054, 16, 1, 2, 18,	/* complete: 16..18 */
		0x0000000000000044, 19, 1, 2,		/* instant */
		0x0000000000000044, 20, 1, 2,		/* instant */
		0x0000000000030044, 21, 1, 2,		/* duration end */
		0x0000000000040054, 30, 1, 2, 40,	/* complete: 30..40 */
		0x0000000000040054, 35, 1, 3, 45,	/* thread 3: 35..45 */
		0x0000000000040054, 38, 1, 2, 50,	/* complete: 38..50 */
		0x0000000000080054, 42, 1, 2, 1,	/* flow begin */
	  }, 51, 12,
	  "0x0000d8: warning: misplaced-end: thread 2 (process 1): an event at 21 ns cuts 2 slices left open inside a slice that ended at 20 ns: Perfetto ends them there (stat misplaced_end_event)\n"
	  "0x000148: warning: complete-overlap: complete event on thread 2 (process 1) from 38 to 50 ns partly overlaps the slice from 30 to 40 ns on its stack: Perfetto drops it (stat slice_drop_overlapping_complete_event)\n"
	  "0x000030: note: duration-unended: thread 2 (process 1): 1 duration begin never ended by the end of the trace; the outermost is here\n" },
	/*
	 * out of time order, as a drainer file's buffers can be: an instant
	 * at 50, then a begin at 20 (time-order) above it in file order, so
	 * the complete event at 60 cuts the begin at 50 here; then a
	 * complete event at 50..75 partly overlaps 60..70 in file order.
	 * Perfetto sorts first: the instant nests in the begin and 60..70 in
	 * 50..75, nothing is cut or dropped, so neither is warned of (the
	 * stack still cuts and drops, as the drainer's does)
	 */
	{ "thread-cut-time-order", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000000044, 50, 1, 2,		/* instant */
		0x0000000000020044, 20, 1, 2,		/* duration begin */
		0x0000000000040054, 60, 1, 2, 70,	/* complete: 60..70 */
		0x0000000000040054, 50, 1, 2, 75,	/* complete: 50..75 */
	  }, 19, 5,
	  "0x000028: note: time-order: thread 2 (process 1): an event at 20 ns is older than the one at offset 0x8 (50 ns): Perfetto nests them in time order, this check in file order (noted once)\n"
	  "0x000028: note: duration-unended: thread 2 (process 1): 1 duration begin never ended by the end of the trace; the outermost is here\n" },
	/*
	 * The time-order rule is not Perfetto's sort: out of time order, the
	 * stack in file order can miss a cut or a drop Perfetto makes, or
	 * warn of one it does not, in each case with the time-order note
	 * (check --perfetto's replay predicts Perfetto's stats).
	 * A begin at 12 written before the complete event 10..20 around it:
	 * sorted, the begin is inside 10..20 and the instant at 25 cuts it
	 * (misplaced_end_event 1); in file order 10..20 sits above the begin
	 * and only pops: no warning
	 */
	{ "thread-cut-older-outer", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000020044, 12, 1, 2,		/* duration begin */
		0x0000000000040054, 10, 1, 2, 20,	/* complete: 10..20 */
		0x0000000000000044, 25, 1, 2,		/* instant */
	  }, 14, 4,
	  "0x000028: note: time-order: thread 2 (process 1): an event at 10 ns is older than the one at offset 0x8 (12 ns): Perfetto nests them in time order, this check in file order (noted once)\n"
	  "0x000008: note: duration-unended: thread 2 (process 1): 1 duration begin never ended by the end of the trace; the outermost is here\n" },
	/*
	 * the begin at 12 inside 10..20 is ended at 15 by an end written
	 * after the instant at 25: in file order the instant cuts the begin
	 * (warned: the stack is in time order then), sorted the end closes
	 * it first and Perfetto cuts nothing
	 */
	{ "thread-cut-later-end", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000040054, 10, 1, 2, 20,	/* complete: 10..20 */
		0x0000000000020044, 12, 1, 2,		/* duration begin */
		0x0000000000000044, 25, 1, 2,		/* instant */
		0x0000000000030044, 15, 1, 2,		/* duration end */
	  }, 18, 5,
	  "0x000050: warning: misplaced-end: thread 2 (process 1): an event at 25 ns cuts 1 slice left open inside a slice that ended at 20 ns: Perfetto ends it there (stat misplaced_end_event)\n"
	  "0x000070: note: time-order: thread 2 (process 1): an event at 15 ns is older than the one at offset 0x50 (25 ns): Perfetto nests them in time order, this check in file order (noted once)\n" },
	/*
	 * 15..30 written before 10..20: sorted, 15..30 partly overlaps
	 * 10..20 and is dropped (slice_drop_overlapping_complete_event 1);
	 * in file order 10..20 nests inside it: no warning
	 */
	{ "thread-drop-older-first", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000040054, 15, 1, 2, 30,	/* complete: 15..30 */
		0x0000000000040054, 10, 1, 2, 20,	/* complete: 10..20 */
	  }, 11, 3,
	  "0x000030: note: time-order: thread 2 (process 1): an event at 10 ns is older than the one at offset 0x8 (15 ns): Perfetto nests them in time order, this check in file order (noted once)\n" },
	/*
	 * 10..20, 15..30, then 5..12: in file order 15..30 is dropped
	 * (warned); sorted, 10..20 partly overlaps 5..12 and is dropped, so
	 * 15..30 is kept: Perfetto drops one complete event, another one
	 */
	{ "thread-drop-later-outer", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000040054, 10, 1, 2, 20,	/* complete: 10..20 */
		0x0000000000040054, 15, 1, 2, 30,	/* complete: 15..30 */
		0x0000000000040054, 5, 1, 2, 12,	/* complete: 5..12 */
	  }, 16, 4,
	  "0x000030: warning: complete-overlap: complete event on thread 2 (process 1) from 15 to 30 ns partly overlaps the slice from 10 to 20 ns on its stack: Perfetto drops it (stat slice_drop_overlapping_complete_event)\n"
	  "0x000058: note: time-order: thread 2 (process 1): an event at 5 ns is older than the one at offset 0x30 (15 ns): Perfetto nests them in time order, this check in file order (noted once)\n" },
	/*
	 * process 1, id 7: begin a, begin b nested, end a at 30, end b at 25
	 * after it in the file.  Perfetto sorts by time: b ends, then a, all
	 * well nested.  check judges file order: end a is an outer end
	 * (async-name) and end b is older than it (time-order)
	 */
	{ "async-time-order", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001000000050064, 10, 1, 2, 0x61, 7,
		0x8001000000050064, 20, 1, 2, 0x62, 7,
		0x8001000000070064, 30, 1, 2, 0x61, 7,
		0x8001000000070064, 25, 1, 2, 0x62, 7,
	  }, 25, 5,
	  "0x000068: warning: async-name: async end \"a\" in category \"\" (process 1, id 0x7): its begin at offset 0x38 has another name or category (Perfetto ends only a slice of the end's category and name)\n"
	  "0x000098: note: time-order: async id 0x7 (process 1): an event at 25 ns is older than the one at offset 0x68 (30 ns): Perfetto nests them in time order, this check in file order (noted once)\n" },
	/*
	 * a flow begin outside any slice: Perfetto drops it but its id is
	 * begun (GetGlobalFlowId() registers it), so the step outside any
	 * slice counts flow_no_enclosing_slice too, and the begin inside a
	 * duration later binds the id, no duplicate
	 */
	{ "flow-begin-dropped", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000080054, 10, 1, 2, 1,	/* flow begin */
		0x0000000000090054, 20, 1, 2, 1,	/* flow step */
		0x0000000000020044, 30, 1, 2,		/* duration begin */
		0x0000000000080054, 40, 1, 2, 1,	/* flow begin */
		0x0000000000030044, 50, 1, 2,		/* duration end */
	  }, 24, 6,
	  "0x000008: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n"
	  "0x000030: warning: flow-no-enclosing-slice: flow step (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/*
	 * flow id 1 begun at 40 on thread 3, stepped at 20 on thread 2 after
	 * it in the file: Perfetto sees the step first (an id not begun,
	 * info only); check judges file order and says so (time-order)
	 */
	{ "flow-time-order", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010,
		0x0000000000080054, 40, 1, 3, 1,	/* flow begin */
		0x0000000000090054, 20, 1, 2, 1,	/* flow step */
	  }, 11, 3,
	  "0x000008: warning: flow-no-enclosing-slice: flow begin (id 0x1) on thread 3 (process 1) outside any slice of that thread; Perfetto drops it\n"
	  "0x000030: note: time-order: flow id 0x1: an event at 20 ns is older than the one at offset 0x8 (40 ns): Perfetto nests them in time order, this check in file order (noted once)\n"
	  "0x000030: warning: flow-no-enclosing-slice: flow step (id 0x1) on thread 2 (process 1) outside any slice of that thread; Perfetto drops it\n" },
	/* an async end named with DEL, a C1 control, U+00A0 and a space: the message shows the controls as ? */
	{ "async-name-controls", SIZE_MAX, (const uint64_t[]){
		0x0016547846040010, 0x8001000000050064, 0x0000000000000001,
		0x0000000000000001, 0x0000000000000002, 0x0000000000000061,
		0x0000000000000009, 0x8007000000070064, 0x0000000000000002,
		0x0000000000000001, 0x0000000000000002, 0x007820a0c29fc27f,
		0x0000000000000009,
	  }, 13, 3,
	  "0x000038: warning: async-name: async end \"???\xc2\xa0 x\" in category \"\" (process 1, id 0x9): its begin at offset 0x8 has another name or category (Perfetto ends only a slice of the end\'s category and name)\n"
	  "0x000008: note: async-unended: 1 async begin never ended; the first is here\n" },
};

#define CASES N_WORDS(cases)

static unsigned char buf[sizeof(((struct words *)0)->w)];

struct chunks {
	const unsigned char *data;
	size_t len, pos;
};

static ssize_t read_chunks(void *ctx, void *out, size_t len)
{
	struct chunks *c = ctx;
	size_t n = c->pos % 7 + 1;

	if (n > len)
		n = len;
	if (n > c->len - c->pos)
		n = c->len - c->pos;
	memcpy(out, c->data + c->pos, n);
	c->pos += n;
	return n;
}

static size_t case_bytes(const struct corpus_case *c)
{
	return c->bytes == SIZE_MAX ? 8 * c->n : c->bytes;
}

/* The bytes of c as a file, mapped by fxt_reader_read_map(). */
static int check_mapped(const struct corpus_case *c, struct diags *d)
{
	char path[] = "/tmp/corpus_test.XXXXXX";
	struct fxt_reader *r;
	int fd, ret;

	memset(d, 0, sizeof(*d));
	words_to_le(c->words, c->n, buf);
	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0);
	unlink(path);
	ASSERT_EQ((ssize_t)case_bytes(c), write(fd, buf, case_bytes(c)));
	r = fxt_reader_new(collect_diag, d);
	ASSERT_TRUE(r);
	ret = fxt_reader_read_map(r, fd, UINT64_MAX, NULL, NULL);
	/* An empty file is left to read(). */
	if (!case_bytes(c) && ret == -ENODEV && !lseek(fd, 0, SEEK_SET))
		ret = fxt_reader_read_fd(r, fd, NULL, NULL);
	close(fd);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(c->records, fxt_reader_records(r));
	fxt_reader_free(r);
	return 0;
}

/* Check the input three ways; all must report exactly `expected`. */
static int check_case(const struct corpus_case *c)
{
	static struct diags whole, streamed, mapped;
	struct fxt_reader *r;
	struct chunks ch;
	uint64_t records;

	records = check_words(c->words, c->n, case_bytes(c), &whole);
	ASSERT_STR(c->expected, whole.text);
	ASSERT_EQ(c->records, records);

	memset(&streamed, 0, sizeof(streamed));
	words_to_le(c->words, c->n, buf);
	r = fxt_reader_new(collect_diag, &streamed);
	ASSERT_TRUE(r);
	ch = (struct chunks){ .data = buf, .len = case_bytes(c) };
	ASSERT_EQ(0, fxt_reader_read(r, read_chunks, &ch, NULL, NULL));
	ASSERT_EQ(c->records, fxt_reader_records(r));
	fxt_reader_free(r);
	ASSERT_STR(c->expected, streamed.text);

	if (check_mapped(c, &mapped))
		return 1;
	ASSERT_STR(c->expected, mapped.text);
	return 0;
}

static size_t current;

static int test_case(void)
{
	return check_case(&cases[current++]);
}

/* A large record of 4096 words: legal FXT that Perfetto mis-frames. */
static void large_4096(struct words *b)
{
	b->n = 0;
	put(b, 0x0016547846040010);
	put(b, 15 | (uint64_t)4096 << 4 | (uint64_t)1 << 40);	/* attachment */
	put(b, 0);		/* format header: empty category and name */
	put(b, 8 * 4093);	/* blob size */
	while (b->n < 1 + 4096)
		put(b, 0);
}

static int test_large_perfetto(void)
{
	static struct words b;
	struct corpus_case c;

	large_4096(&b);
	c = (struct corpus_case){
		"large-perfetto", SIZE_MAX, b.w, b.n, 2,
		"0x000008: warning: large-perfetto: large record of 4096 words; Perfetto reads its size from bits [4..15] and loses the rest of the trace\n"
		"0x000008: note: perfetto-unsupported: Perfetto ignores large records (noted once)\n",
	};
	return check_case(&c);
}

/* Every rule is broken by some input here, or in decode_test (marked). */
static int test_rules_covered(void)
{
	static const char *const elsewhere[] = {
		"string-not-kept",	/* decode_test: tables string budget */
		"not-checked",		/* decode_test: window */
		"large-perfetto",	/* test_large_perfetto */
		"timestamp-window",	/* cli_test: a drainer file's window */
	};
	char pattern[64];
	size_t i, k;
	int r;

	for (r = 0; r < FXT_RULE_COUNT; r++) {
		bool found = false;

		snprintf(pattern, sizeof(pattern), ": %s: %s: ",
			 fxt_severity_name(fxt_rules[r].severity),
			 fxt_rules[r].name);
		for (i = 0; i < CASES && !found; i++)
			found = strstr(cases[i].expected, pattern);
		for (k = 0; k < N_WORDS(elsewhere) && !found; k++)
			found = !strcmp(elsewhere[k], fxt_rules[r].name);
		if (!found)
			FAIL("no input breaks rule %s", fxt_rules[r].name);
	}
	return 0;
}

static int write_file(const char *dir, const char *name, const uint64_t *words,
		      size_t n, size_t bytes)
{
	static unsigned char out[sizeof(((struct words *)0)->w)];
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.fxt", dir, name);
	words_to_le(words, n, out);
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, bytes, f) != bytes || fclose(f)) {
		fprintf(stderr, "corpus_test: cannot write %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	return 0;
}

/* The fuzz seeds: every case and every vector of vectors.c. */
static int write_corpus(const char *dir)
{
	static const struct {
		const char *name;
		const uint64_t *words;
		size_t n;
	} vectors[] = {
		{ "vector-spec-instant", spec_instant, N_WORDS(spec_instant) },
		{ "vector-spec-thread", spec_thread, N_WORDS(spec_thread) },
		{ "vector-perfetto-legacy", perfetto_legacy_sched,
		  N_WORDS(perfetto_legacy_sched) },
	};
	static struct words b;
	size_t i;
	int bad = 0;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "corpus_test: cannot create %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < CASES; i++)
		bad |= write_file(dir, cases[i].name, cases[i].words,
				  cases[i].n, case_bytes(&cases[i]));
	for (i = 0; i < N_WORDS(vectors); i++)
		bad |= write_file(dir, vectors[i].name, vectors[i].words,
				  vectors[i].n, 8 * vectors[i].n);
	large_4096(&b);
	bad |= write_file(dir, "large-perfetto", b.w, b.n, 8 * b.n);
	return bad;
}

int main(int argc, char **argv)
{
	static struct tap_test tests[CASES + 2];
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "--write"))
		return write_corpus(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: corpus_test [--write DIR]\n");
		return 2;
	}
	for (i = 0; i < CASES; i++)
		tests[i] = (struct tap_test){ cases[i].name, test_case };
	tests[CASES] = (struct tap_test){ "large-perfetto", test_large_perfetto };
	tests[CASES + 1] = (struct tap_test){ "every rule has an input",
					  test_rules_covered };
	return tap_run(tests, N_WORDS(tests));
}
