// SPDX-License-Identifier: GPL-2.0
/*
 * vectors.c - test inputs from the specification's worked examples, from
 * Perfetto's importer tests and from a real trace of another writer; and the
 * helpers of the decoder tests.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "vectors.h"

/* ---- Documentation/fxt.rst, worked examples ---------------------------- */

const uint64_t spec_magic[1] = { 0x0016547846040010 };

const uint64_t spec_string_app[2] = {
	0x0000000300010022,	/* type 2 | size 2 | index 1 | len 3 */
	0x0000000000707061,	/* "app" */
};

const uint64_t spec_instant[7] = {
	0x8004000100100074,	/* instant, 1 arg, inline thread, cat #1, name "tick" */
	0x00000000000003E8,	/* ts 1000 */
	0x0000000000001234,	/* process koid */
	0x0000000000005678,	/* thread koid */
	0x000000006B636974,	/* "tick" */
	0xFFFFFFFE80010021,	/* int32 "n" = -2 */
	0x000000000000006E,	/* "n" */
};

const uint64_t spec_process[3] = {
	0x0000008004010037, 0x0000000000001234, 0x000000006F6D6564,
};

const uint64_t spec_thread[6] = {
	0x0000018004020067, 0x0000000000005678, 0x000000006E69616D,
	0x0000000080070038, 0x00737365636F7270, 0x0000000000001234,
};

const uint64_t spec_switch[4] = {
	0x1000003000300048, 0x00000000000007D0, 0x0000000000005678,
	0x0000000000009ABC,
};

const uint64_t spec_init[2] = { 0x0000000000000021, 0x000000003B9ACA00 };

/* ---- Perfetto's fuchsia_parser_unittest.cc ------------------------------- */

/* InlineInstantEvent: inline 8-byte category and name, inline thread. */
const uint64_t perfetto_inline_instant[7] = {
	0x0016547846040010,
	0x8008800800000064,	/* instant, size 6, cat 0x8008, name 0x8008 */
	0xAAAAAAAAAAAAAAAA, 0xBBBBBBBBBBBBBBBB, 0xCCCCCCCCCCCCCCCC,
	0xDDDDDDDDDDDDDDDD, 0xEEEEEEEEEEEEEEEE,
};

/* BooleanArguments: "true" is a bool; "false" is written as type 10 (blob). */
const uint64_t perfetto_boolean_args[11] = {
	0x0016547846040010,
	0x8008800800200084,	/* instant, size 8, 2 args */
	0xAAAAAAAAAAAAAAAA, 0xBBBBBBBBBBBBBBBB, 0xCCCCCCCCCCCCCCCC,
	0xDDDDDDDDDDDDDDDD, 0xEEEEEEEEEEEEEEEE,
	0x0000000180080029, 0x0000000000000000,
	0x000000008008002A, 0x0000000000000000,
};

/* SchedulerEvents: a wakeup and two context switches on CPU 1. */
const uint64_t perfetto_sched[12] = {
	0x0016547846040010,
	0x2000000000100038, 0x0000000000000001, 0x1AAAAAAAAAAAAAAA,
	0x1000000000100048, 0x0000000000000002, 0x1AAAAAAAAAAAAAAA,
	0x2CCCCCCCCCCCCCCC,
	0x1000000000100048, 0x0000000000000003, 0x2CCCCCCCCCCCCCCC,
	0x1AAAAAAAAAAAAAAA,
};

/* LegacySchedulerEvents: subtype 0, inline refs, priorities 1 (0: idle). */
const uint64_t perfetto_legacy_sched[19] = {
	0x0016547846040010,
	0x0010000002010068, 0x0000000000000001, 0x0000000000000000,
	0x0000000000000000, 0x1AAAAAAAAAAAAAAA, 0x1BBBBBBBBBBBBBBB,
	0x0010100002010068, 0x0000000000000002, 0x1AAAAAAAAAAAAAAA,
	0x1BBBBBBBBBBBBBBB, 0x2CCCCCCCCCCCCCCC, 0x2DDDDDDDDDDDDDDD,
	0x0010100002010068, 0x0000000000000003, 0x2CCCCCCCCCCCCCCC,
	0x2DDDDDDDDDDDDDDD, 0x1AAAAAAAAAAAAAAA, 0x1BBBBBBBBBBBBBBB,
};

/* CorruptedFxt: a record of size 0 ("Unexpected record of size 0"). */
const uint64_t perfetto_corrupted[2] = {
	0x0016547846040010, 0x0016547846040000,
};

/* ---- RichieSams/fxt test_data/trace.fxt (jane_tracing), first 0x378 bytes */

const uint64_t jane_prefix[111] = {
	0x0016547846040010, 0x00c0000000010030, 0x6172745f656e616a, 0x00000000676e6963,
	0x0000000000020010, 0x0000000700010022, 0x00737365636f7270, 0x0000000000000041,
	0x000000003b9aca00, 0x0000000000000000, 0x16e777709bdee178, 0x0000000f00660032,
	0x2f38373838343232, 0x0038373838343232, 0x0000000066010027, 0x0000000000000001,
	0x0000000400670022, 0x000000006e69616d, 0x0000010067020047, 0x0000000000000002,
	0x0000000000010028, 0x0000000000000001, 0x0000000000010033, 0x0000000000000001,
	0x0000000000000002, 0x0000001000680032, 0x775f65766974616e, 0x72736d5f65746972,
	0x0000000000690012, 0x0068006901030024, 0x00000000000000d1, 0x0000000f006a0032,
	0x69666e6f635f7470, 0x0074726174735f67, 0x006a006901030024, 0x00000000000000da,
	0x0000000c006b0032, 0x746e6576655f7470, 0x000000006464615f, 0x006b006901030024,
	0x00000000000000e2, 0x00000007006c0022, 0x0073736572646461, 0x00000010006d0032,
	0x615f7473696c5f5f, 0x64696c61765f6464, 0x00000006006e0022, 0x00006c6f626d7973,
	0x006d006901220054, 0x00000000000000e9, 0x00000000006c0027, 0xffffffffadaee5b0,
	0x0000006d006e0016, 0x006d006901030024, 0x00000000000000f4, 0x00000011006f0042,
	0x756d705f66726570, 0x696f765f706f6e5f, 0x0000000000000064, 0x006f006901220054,
	0x00000000000000fe, 0x00000000006c0027, 0xffffffffad81bcd0, 0x0000006f006e0016,
	0x006f006901030024, 0x00000000000000ff, 0x0000001500700042, 0x63735f746e657665,
	0x702e6e695f646568, 0x000000302e747261, 0x0070006901030024, 0x00000000000000ff,
	0x0000001000710032, 0x756d705f66726570, 0x746e695f706f6e5f, 0x0071006901220054,
	0x000000000000011d, 0x00000000006c0027, 0xffffffffad81ac90, 0x00000071006e0016,
	0x0071006901030024, 0x0000000000000127, 0x006d006901220054, 0x0000000000000129,
	0x00000000006c0027, 0xffffffffadaee5b0, 0x0000006d006e0016, 0x006d006901030024,
	0x0000000000000131, 0x0000000e00720032, 0x63735f656772656d, 0x00006e695f646568,
	0x0072006901030024, 0x0000000000000145, 0x0000000700730022, 0x007478656e5f6272,
	0x0073006901220054, 0x0000000000000145, 0x00000000006c0027, 0xffffffffadb4be70,
	0x00000073006e0016, 0x0073006901030024, 0x000000000000015a, 0x0072006901220054,
	0x000000000000016c, 0x00000000006c0027, 0xffffffffad824cc0, 0x00000072006e0016,
	0x0000001000740032, 0x756d705f66726570, 0x6e78745f706f6e5f,
};

/* ---- a small trace of every event type (written for the tests) ---------- */

/*
 * A small trace using every event type, a context switch, a wakeup, a drop
 * report and a log record (words laid out by hand from Documentation/fxt.rst):
 *
 *   0x000000 magic               0x000130 duration end "work"
 *   0x000008 init 1e9            0x000148 duration complete "step" 2100-2600
 *   0x000018 string #1 "app"     0x000168 async begin "req" id 0x42
 *   0x000028 process 4660 demo   0x000188 async end "req" id 0x42
 *   0x000040 thread 22136 main   0x0001a8 flow begin "flow" id 7
 *   0x000070 thread #1 4660/22136  0x0001c8 flow end "flow" id 7
 *   0x000088 duration begin "work" k="v" at 1000
 *   0x0000b8 instant "tick" n=-2 (Documentation/fxt.rst, worked examples c)
 *   0x0000f0 counter fxtrace:dropped n=3 (int64), id 1
 *   0x0001e8 context switch cpu 3, 22136 blocked -> 39612, weights 0
 *   0x000238 wakeup cpu 3 of 22136, weight 1
 *   0x000260 provider event: provider 0 buffer full
 *   0x000268 log "hi \"there\"\n"
 */
const uint64_t example_trace[81] = {
	0x0016547846040010, 0x0000000000000021, 0x000000003b9aca00,
	0x0000000300010022, 0x0000000000707061, 0x0000008004010037,
	0x0000000000001234, 0x000000006f6d6564, 0x0000018004020067,
	0x0000000000005678, 0x000000006e69616d, 0x0000000080070038,
	0x00737365636f7270, 0x0000000000001234, 0x0000000000010033,
	0x0000000000001234, 0x0000000000005678, 0x8004000101120064,
	0x00000000000003e8, 0x000000006b726f77, 0x0000800180010036,
	0x000000000000006b, 0x0000000000000076, 0x8004000100100074,
	0x00000000000003e8, 0x0000000000001234, 0x0000000000005678,
	0x000000006b636974, 0xfffffffe80010021, 0x000000000000006e,
	0x8007800701110084, 0x00000000000005dc, 0x0065636172747866,
	0x00646570706f7264, 0x0000000080010033, 0x000000000000006e,
	0x0000000000000003, 0x0000000000000001, 0x8004000101030034,
	0x00000000000007d0, 0x000000006b726f77, 0x8004000101040044,
	0x0000000000000834, 0x0000000070657473, 0x0000000000000a28,
	0x8003000101050044, 0x0000000000000898, 0x0000000000716572,
	0x0000000000000042, 0x8003000101070044, 0x0000000000000a8c,
	0x0000000000716572, 0x0000000000000042, 0x8004000101080044,
	0x00000000000008fc, 0x00000000776f6c66, 0x0000000000000007,
	0x80040001010a0044, 0x0000000000000af0, 0x00000000776f6c66,
	0x0000000000000007, 0x10000030003200a8, 0x0000000000000bb8,
	0x0000000000005678, 0x0000000000009abc, 0x00000000800f0031,
	0x676e696d6f636e69, 0x007468676965775f, 0x00000000800f0031,
	0x676e696f6774756f, 0x007468676965775f, 0x2000000000310058,
	0x0000000000000c1c, 0x0000000000005678, 0x0000000180060021,
	0x0000746867696577, 0x0000000000030010, 0x00000001000b0049,
	0x0000000000000c80, 0x7265687422206968, 0x00000000000a2265,
};

/* ---- helpers ------------------------------------------------------------- */

void put(struct words *b, uint64_t word)
{
	if (b->n == N_WORDS(b->w)) {
		printf("Bail out! test input larger than %zu words\n",
		       N_WORDS(b->w));
		exit(1);
	}
	b->w[b->n++] = word;
}

void put_stream(struct words *b, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = 0;
		size_t k;

		for (k = 0; k < 8 && i + k < len; k++)
			w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
		put(b, w);
	}
}

void put_all(struct words *b, const uint64_t *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(b, words[i]);
}

void words_to_le(const uint64_t *words, size_t n, unsigned char *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t le = htole64(words[i]);

		memcpy(out + 8 * i, &le, sizeof(le));
	}
}

void collect_diag(void *ctx, const struct fxt_diag *diag)
{
	struct diags *d = ctx;
	int n;

	d->count++;
	n = snprintf(d->text + d->len, sizeof(d->text) - d->len,
		     "0x%06llx: %s: %s: %s\n", (unsigned long long)diag->offset,
		     fxt_severity_name(diag->severity), diag->rule_name,
		     diag->message);
	if (n > 0)
		d->len += (size_t)n < sizeof(d->text) - d->len ?
			  (size_t)n : sizeof(d->text) - d->len - 1;
}

uint64_t check_words(const uint64_t *words, size_t n, size_t bytes,
		     struct diags *d)
{
	static unsigned char buf[sizeof(((struct words *)0)->w)];
	struct fxt_reader *r = fxt_reader_new(collect_diag, d);
	uint64_t records;

	memset(d, 0, sizeof(*d));
	if (!r)
		return 0;
	words_to_le(words, n, buf);
	fxt_reader_read_buffer(r, buf, bytes, NULL, NULL);
	records = fxt_reader_records(r);
	fxt_reader_free(r);
	return records;
}
