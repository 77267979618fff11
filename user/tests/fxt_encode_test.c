// SPDX-License-Identifier: GPL-2.0
/*
 * Description: golden-byte tests of the FXT encoder, uapi/linux/fxt.h.
 *
 * Each case builds a record with the encoder and compares it word by word
 * with words written out here from the specification (Documentation/fxt.rst;
 * the record it checks is in the case's name), never computed with the
 * encoder itself.  Prints TAP; exits 0 when every case passes.
 */
#include <stdio.h>
#include <string.h>

#include <linux/fxt.h>

#include "tap.h"

/* The n words at got are want's, word for word: one TAP line, name. */
static void expect_words(const char *name, const __u64 *got, __u32 n,
			 const __u64 *want, __u32 want_words)
{
	__u32 i;

	if (EXPECT_EQ(want_words, n)) {
		for (i = 0; i < n; i++) {
			if (!EXPECT_EQ(want[i], got[i])) {
				printf("#     (word %u)\n", i);
				break;
			}
		}
	}
	tap_result("%s", name);
}

#define EXPECT_WORDS(name, got, n, ...) do {				\
	const __u64 want_[] = { __VA_ARGS__ };				\
									\
	expect_words(name, got, n, want_,				\
		     sizeof(want_) / sizeof(want_[0]));			\
} while (0)

static void test_metadata(void)
{
	__u64 w[8];
	__u32 n;

	n = fxt_write_magic(w);
	EXPECT_WORDS("example (a) magic record", w, n, 0x0016547846040010ULL);

	n = fxt_write_provider_info(w, 1, "fxt", 3);
	EXPECT_WORDS("provider info, id 1, name \"fxt\"", w, n,
	      0x0030000000110020ULL, 0x0000000000747866ULL);

	w[0] = fxt_provider_section_hdr(0xffffffff);
	EXPECT_WORDS("provider section, id 0xffffffff", w, 1,
	      0x000ffffffff20010ULL);

	w[0] = fxt_provider_event_hdr(5, FXT_PROVIDER_EVENT_BUFFER_FULL);
	EXPECT_WORDS("provider event, buffer full", w, 1, 0x0000000000530010ULL);

	n = fxt_write_init(w, 1000000000);
	EXPECT_WORDS("example (f) initialization, 1e9 ticks/s", w, n,
	      0x0000000000000021ULL, 0x000000003B9ACA00ULL);
}

static void test_strings_threads(void)
{
	__u64 w[8];
	__u32 n;

	n = fxt_write_string(w, 1, "app", 3);
	EXPECT_WORDS("example (b) string #1 \"app\"", w, n,
	      0x0000000300010022ULL, 0x0000000000707061ULL);

	n = fxt_write_string(w, 0x7fff, "abcdefgh", 8);
	EXPECT_WORDS("string, index 0x7fff, 8 bytes: no padding word", w, n,
	      0x000000087fff0022ULL, 0x6867666564636261ULL);

	n = fxt_write_string(w, 2, "abcdefghi", 9);
	EXPECT_WORDS("string, 9 bytes: padded to two words", w, n,
	      0x0000000900020032ULL, 0x6867666564636261ULL,
	      0x0000000000000069ULL);

	n = fxt_write_string(w, 3, "", 0);
	EXPECT_WORDS("empty string: header only", w, n, 0x0000000000030012ULL);

	n = fxt_write_thread(w, 255, 0x1234, 0x5678);
	EXPECT_WORDS("thread #255", w, n, 0x0000000000ff0033ULL,
	      0x0000000000001234ULL, 0x0000000000005678ULL);
}

static void test_events(void)
{
	/* Thread ref 1, category #1, name #2, no arguments. */
	static const __u64 want[FXT_EVENT_TYPE_COUNT] = {
		0x0002000101000024ULL, 0x0002000101010034ULL,
		0x0002000101020024ULL, 0x0002000101030024ULL,
		0x0002000101040034ULL, 0x0002000101050034ULL,
		0x0002000101060034ULL, 0x0002000101070034ULL,
		0x0002000101080034ULL, 0x0002000101090034ULL,
		0x00020001010a0034ULL,
	};
	static const char *const names[FXT_EVENT_TYPE_COUNT] = {
		"instant", "counter", "duration begin", "duration end",
		"duration complete", "async begin", "async instant",
		"async end", "flow begin", "flow step", "flow end",
	};
	char name[80];
	__u64 w[16];
	unsigned int t;
	__u32 n;

	for (t = 0; t < FXT_EVENT_TYPE_COUNT; t++) {
		w[0] = fxt_event_hdr(fxt_event_words(t, 1, 1, 2, 0), t, 0, 1,
				     1, 2);
		snprintf(name, sizeof(name), "%s event header", names[t]);
		expect_words(name, w, 1, &want[t], 1);
	}

	/* Example (c): inline thread and name, one int32 argument. */
	n = 0;
	w[n++] = fxt_event_hdr(fxt_event_words(FXT_EVENT_INSTANT, 0, 1,
					       fxt_inline_string_ref(4), 2),
			       FXT_EVENT_INSTANT, 1, 0, 1,
			       fxt_inline_string_ref(4));
	w[n++] = 1000;
	w[n++] = 0x1234;
	w[n++] = 0x5678;
	n += fxt_write_stream(w + n, "tick", 4);
	n += fxt_write_arg32(w + n, FXT_ARG_INT32, fxt_inline_string_ref(1),
			     "n", (__u32)-2);
	EXPECT_WORDS("example (c) instant event", w, n,
	      0x8004000100100074ULL, 0x00000000000003E8ULL,
	      0x0000000000001234ULL, 0x0000000000005678ULL,
	      0x000000006B636974ULL, 0xFFFFFFFE80010021ULL,
	      0x000000000000006EULL);
}

static void test_arguments(void)
{
	__u64 w[8];
	__u32 n;

	n = fxt_write_arg_null(w, 3, NULL);
	EXPECT_WORDS("null argument", w, n, 0x0000000000030010ULL);
	n = fxt_write_arg32(w, FXT_ARG_INT32, 3, NULL, 0x80000000);
	EXPECT_WORDS("int32 argument, INT32_MIN", w, n, 0x8000000000030011ULL);
	n = fxt_write_arg32(w, FXT_ARG_UINT32, 3, NULL, 0xffffffff);
	EXPECT_WORDS("uint32 argument, UINT32_MAX", w, n, 0xffffffff00030012ULL);
	n = fxt_write_arg64(w, FXT_ARG_INT64, 3, NULL, (__u64)-5);
	EXPECT_WORDS("int64 argument, -5", w, n,
	      0x0000000000030023ULL, 0xfffffffffffffffbULL);
	n = fxt_write_arg64(w, FXT_ARG_UINT64, 3, NULL, 0xfedcba9876543210ULL);
	EXPECT_WORDS("uint64 argument", w, n,
	      0x0000000000030024ULL, 0xfedcba9876543210ULL);
	n = fxt_write_arg64(w, FXT_ARG_DOUBLE, 3, NULL, 0x3ff8000000000000ULL);
	EXPECT_WORDS("double argument, 1.5", w, n,
	      0x0000000000030025ULL, 0x3ff8000000000000ULL);
	n = fxt_write_arg_string(w, 3, NULL, 4, NULL);
	EXPECT_WORDS("string argument, indexed value", w, n,
	      0x0000000400030016ULL);
	n = fxt_write_arg_string(w, fxt_inline_string_ref(1), "k",
				 fxt_inline_string_ref(5), "hello");
	EXPECT_WORDS("string argument, inline name and value", w, n,
	      0x0000800580010036ULL, 0x000000000000006bULL,
	      0x0000006f6c6c6568ULL);
	n = fxt_write_arg64(w, FXT_ARG_POINTER, 3, NULL, 0x7ffd12345678ULL);
	EXPECT_WORDS("pointer argument", w, n,
	      0x0000000000030027ULL, 0x00007ffd12345678ULL);
	n = fxt_write_arg64(w, FXT_ARG_KOID, 3, NULL, 4242);
	EXPECT_WORDS("koid argument", w, n,
	      0x0000000000030028ULL, 0x0000000000001092ULL);
	n = fxt_write_arg32(w, FXT_ARG_BOOL, 3, NULL, 1);
	EXPECT_WORDS("bool argument, true in bit 32", w, n, 0x0000000100030019ULL);
}

static void test_objects_and_scheduler(void)
{
	__u64 w[16];
	__u32 n;

	n = fxt_write_kobj_name(w, FXT_KOBJ_PROCESS, 0x1234, "demo", 4, 0);
	EXPECT_WORDS("example (d) process kernel object", w, n,
	      0x0000008004010037ULL, 0x0000000000001234ULL,
	      0x000000006F6D6564ULL);

	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, 0x5678, "main", 4, 0x1234);
	EXPECT_WORDS("example (d) thread kernel object with \"process\"", w, n,
	      0x0000018004020067ULL, 0x0000000000005678ULL,
	      0x000000006E69616DULL, 0x0000000080070038ULL,
	      0x00737365636F7270ULL, 0x0000000000001234ULL);

	w[0] = fxt_context_switch_hdr(4, 0, 3, FXT_THREAD_STATE_BLOCKED);
	w[1] = 2000;
	w[2] = 0x5678;
	w[3] = 0x9ABC;
	EXPECT_WORDS("example (e) context switch", w, 4, 0x1000003000300048ULL,
	      0x00000000000007D0ULL, 0x0000000000005678ULL,
	      0x0000000000009ABCULL);

	/* The module's sched_switch record. */
	n = fxt_write_context_switch(w, fxt_context_switch_words(2), 2, 1,
				     FXT_THREAD_STATE_DEAD, 3000, 0x10, 0x20);
	n += fxt_write_arg32(w + n, FXT_ARG_INT32, 10, NULL,
			     (__u32)FXT_SCHED_WEIGHT_IDLE);
	n += fxt_write_arg32(w + n, FXT_ARG_INT32, 11, NULL, 1024);
	EXPECT_WORDS("context switch with idle incoming_weight", w, n,
	      0x1000005000120068ULL, 0x0000000000000bb8ULL,
	      0x0000000000000010ULL, 0x0000000000000020ULL,
	      0x80000000000a0011ULL, 0x00000400000b0011ULL);

	/* The module's sched_waking record. */
	n = fxt_write_wakeup(w, fxt_wakeup_words(3), 2, 0xffff, 4000, 0x20);
	n += fxt_write_arg32(w + n, FXT_ARG_INT32, 12, NULL, 1024);
	n += fxt_write_arg64(w + n, FXT_ARG_KOID, 13, NULL, 0x10);
	EXPECT_WORDS("wakeup, cpu 0xffff, weight and waker", w, n,
	      0x2000000ffff20068ULL, 0x0000000000000fa0ULL,
	      0x0000000000000020ULL, 0x00000400000c0011ULL,
	      0x00000000000d0028ULL, 0x0000000000000010ULL);
}

/* A value past its field's width must not spill into the next field. */
static void test_masking(void)
{
	__u64 w[1];

	w[0] = fxt_string_hdr(0xffff, 0x10000 | 3);
	EXPECT_WORDS("string index and length masked to 15 bits", w, 1,
	      0x000000037fff0022ULL);
	w[0] = fxt_event_hdr(2, 0x1f, 0x1f, 1, 1, 2);
	EXPECT_WORDS("event type and nargs masked to 4 bits", w, 1,
	      0x0002000101ff0024ULL);
	w[0] = fxt_thread_hdr(0);
	EXPECT_WORDS("thread index 0 stays 0", w, 1, 0x0000000000000033ULL);
	w[0] = fxt_context_switch_hdr(4, 0, 0x1ffff, 0x1f);
	EXPECT_WORDS("cpu masked to 16 bits, state to 4", w, 1,
	      0x100000fffff00048ULL);
}

int main(void)
{
	test_metadata();
	test_strings_threads();
	test_events();
	test_arguments();
	test_objects_and_scheduler();
	test_masking();
	return tap_plan();
}
