// SPDX-License-Identifier: GPL-2.0
/*
 * decode_test - every FXT record type, event type and argument type decoded
 * to exact field values, from words written by hand (literal words below,
 * laid out from Documentation/fxt.rst), from its worked examples, from
 * Perfetto's importer tests, from a real trace of another writer, and
 * from fxtrace's encoder (uapi/linux/fxt.h).  Then the tables API as the drainer uses it, the streaming reader, and the hash map.
 */
#include <endian.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_map.h"
#include "vectors.h"

/* ---- hand-written words (layouts: Documentation/fxt.rst) --------------- */

/* provider info: id 7, name "prov" */
static const uint64_t provider_info[2] = {
	0x0040000000710020, 0x00000000766f7270,
};

/* provider section 7 */
static const uint64_t provider_section[1] = {
	0x0000000000720010,
};

/* provider event: provider 7, buffer full */
static const uint64_t provider_full[1] = {
	0x0000000000730010,
};

/* initialization: 2e9 ticks per second */
static const uint64_t init_2ghz[2] = {
	0x0000000000000021, 0x0000000077359400,
};

/* thread record: index 3 = pid 10, tid 11 */
static const uint64_t thread_3[3] = {
	0x0000000000030033, 0x000000000000000a, 0x000000000000000b,
};

/* event type 0, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_0[3] = {
	0x8001000003000034, 0x0000000000000064, 0x0000000000000065,
};

/* event type 1, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_1[4] = {
	0x8001000003010044, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000101,
};

/* event type 2, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_2[3] = {
	0x8001000003020034, 0x0000000000000064, 0x0000000000000065,
};

/* event type 3, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_3[3] = {
	0x8001000003030034, 0x0000000000000064, 0x0000000000000065,
};

/* event type 4, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_4[4] = {
	0x8001000003040044, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000096,
};

/* event type 5, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_5[4] = {
	0x8001000003050044, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000105,
};

/* event type 6, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_6[4] = {
	0x8001000003060044, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000106,
};

/* event type 7, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_7[4] = {
	0x8001000003070044, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000107,
};

/* event type 8, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_8[4] = {
	0x8001000003080044, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000108,
};

/* event type 9, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_9[4] = {
	0x8001000003090044, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000109,
};

/* event type 10, thread #3, empty category, name "e", ts 100 */
static const uint64_t event_type_10[4] = {
	0x80010000030a0044, 0x0000000000000064, 0x0000000000000065,
	0x000000000000010a,
};

/* instant "args" on thread #3 with 13 arguments, one of each type */
static const uint64_t all_args[35] = {
	0x8004000003d00234, 0x0000000000000064, 0x0000000073677261,
	0x0000000080010020, 0x0000000000000061, 0xfffffffb80010021,
	0x0000000000000062, 0xfffffffe80010022, 0x0000000000000063,
	0x0000000080010033, 0x0000000000000064, 0x831993af1d7c0000,
	0x0000000080010034, 0x0000000000000065, 0xffffffffffffffff,
	0x0000000080010035, 0x0000000000000066, 0x3ff8000000000000,
	0x0000800280010036, 0x0000000000000067, 0x0000000000007676,
	0x0000000180010026, 0x0000000000000068, 0x0000000080010037,
	0x0000000000000069, 0x00000000deadbeef, 0x0000000080010038,
	0x000000000000006a, 0x0000000000001234, 0x0000000180010029,
	0x000000000000006b, 0x000000038001003a, 0x000000000000006c,
	0x00000000007a7978, 0x0000000700010011,
};

/* blob record: name "b", 10 bytes, type 1 (data) */
static const uint64_t blob_data[4] = {
	0x0001000a80010045, 0x0000000000000062, 0x3736353433323130,
	0x0000000000003938,
};

/* userspace object: pointer 0xfeed, process #3, name "obj", n=1 */
static const uint64_t userobj_indexed[5] = {
	0x0000018003030056, 0x000000000000feed, 0x00000000006a626f,
	0x0000000180010021, 0x000000000000006e,
};

/* userspace object, inline process in one word (the spec) */
static const uint64_t userobj_inline1[6] = {
	0x0000018003000066, 0x000000000000feed, 0x000000000000000a,
	0x00000000006a626f, 0x0000000180010021, 0x000000000000006e,
};

/* userspace object, inline process in two words (Fuchsia writer) */
static const uint64_t userobj_inline2[7] = {
	0x0000018003000076, 0x000000000000feed, 0x000000000000000a,
	0x000000000000000b, 0x00000000006a626f, 0x0000000180010021,
	0x000000000000006e,
};

/* kernel object: channel (type 4) koid 0x99 "ch", x=5 (uint32) */
static const uint64_t kobj_channel[5] = {
	0x0000018002040057, 0x0000000000000099, 0x0000000000006863,
	0x0000000580010022, 0x0000000000000078,
};

/* log: ts 300, thread #3, "hello" */
static const uint64_t log_indexed[3] = {
	0x0000000300050039, 0x000000000000012c, 0x0000006f6c6c6568,
};

/* log: ts 300, inline thread 10/11, "hello" */
static const uint64_t log_inline[5] = {
	0x0000000000050059, 0x000000000000012c, 0x000000000000000a,
	0x000000000000000b, 0x0000006f6c6c6568,
};

/* large blob with metadata: cat "c", name "nm", ts 400, thread #3, n=1, 5 bytes "hello" */
static const uint64_t large_blob_meta[9] = {
	0x000000000000009f, 0x0000003180028001, 0x0000000000000063,
	0x0000000000006d6e, 0x0000000000000190, 0x0000000180010021,
	0x000000000000006e, 0x0000000000000005, 0x0000006f6c6c6568,
};

/* large blob attachment: cat "c", name "nm", 9 bytes "attached!" */
static const uint64_t large_blob_attach[7] = {
	0x000001000000007f, 0x0000000080028001, 0x0000000000000063,
	0x0000000000006d6e, 0x0000000000000009, 0x6465686361747461,
	0x0000000000000021,
};

/* instant with two words after its content (e.g. the legacy scope word) */
static const uint64_t instant_extended[5] = {
	0x8001000003000054, 0x0000000000000064, 0x0000000000000065,
	0x0000000000000002, 0x0000000000abcdef,
};

/* ---- helpers ------------------------------------------------------------- */

static unsigned char buf[sizeof(((struct words *)0)->w)];
static struct diags diags;

/* Decode one record at offset 0 against t; problems land in diags. */
static ssize_t decode(const struct fxt_tables *t, const uint64_t *words,
		      size_t n, struct fxt_record *rec)
{
	struct fxt_sink sink = { .fn = collect_diag, .ctx = &diags };
	uint64_t need = 0;

	memset(&diags, 0, sizeof(diags));
	words_to_le(words, n, buf);
	return fxt_decode_record(t, buf, 8 * n, 0, rec, &sink, &need);
}

/* Decode and apply a definition (string, thread, init) to t. */
static int define(struct fxt_tables *t, const uint64_t *words, size_t n)
{
	struct fxt_sink sink = { 0 };
	struct fxt_record rec;

	if (decode(t, words, n, &rec) != (ssize_t)(8 * n) || !rec.valid)
		return -1;
	return fxt_tables_apply(t, &rec, &sink);
}

/* Tables of provider 0 with string 1 = "app" and thread 3 = 10/11. */
static struct fxt_tables *app_tables(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);

	if (t && (define(t, spec_string_app, 2) || define(t, thread_3, 3))) {
		fxt_tables_free(t);
		return NULL;
	}
	return t;
}

#define ASSERT_CLEAN(n_words, got)                                            \
	do {                                                                  \
		ASSERT_EQ(8 * (n_words), got);                                \
		ASSERT_STR("", diags.text);                                   \
		ASSERT_TRUE(rec.valid);                                       \
		ASSERT_TRUE(rec.complete);                                    \
	} while (0)

/* ---- worked examples (Documentation/fxt.rst) ---------------------------- */

static int test_spec_magic(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(1, decode(t, spec_magic, 1, &rec));
	ASSERT_EQ(FXT_REC_METADATA, rec.type);
	ASSERT_EQ(FXT_META_TRACE_INFO, rec.subtype);
	ASSERT_EQ(FXT_TRACE_INFO_MAGIC, rec.id);
	ASSERT_EQ(0x16547846, rec.value);
	ASSERT_EQ(1, rec.words);
	fxt_tables_free(t);
	return 0;
}

static int test_spec_string(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_sink sink = { 0 };
	struct fxt_string s;
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(2, decode(t, spec_string_app, 2, &rec));
	ASSERT_EQ(FXT_REC_STRING, rec.type);
	ASSERT_EQ(1, rec.id);
	ASSERT_FXT_STR("app", rec.name);
	/* Not in the table until applied. */
	ASSERT_EQ(-ENOENT, fxt_tables_string(t, 1, &s));
	ASSERT_EQ(0, fxt_tables_apply(t, &rec, &sink));
	ASSERT_EQ(0, fxt_tables_string(t, 1, &s));
	ASSERT_FXT_STR("app", s);
	fxt_tables_free(t);
	return 0;
}

static int test_spec_instant(void)
{
	struct fxt_tables *t = app_tables();
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(7, decode(t, spec_instant, 7, &rec));
	ASSERT_EQ(FXT_REC_EVENT, rec.type);
	ASSERT_EQ(FXT_EVENT_INSTANT, rec.subtype);
	ASSERT_EQ(7, rec.words);
	ASSERT_EQ(7, rec.content_words);
	ASSERT_TRUE(rec.has_ts);
	ASSERT_EQ(1000, rec.ts);
	ASSERT_TRUE(rec.ts_ns_valid);
	ASSERT_EQ(1000, rec.ts_ns);
	ASSERT_EQ(0, rec.thread.ref);
	ASSERT_EQ(0x1234, rec.thread.pid);
	ASSERT_EQ(0x5678, rec.thread.tid);
	ASSERT_EQ(1, rec.category.ref);
	ASSERT_FXT_STR("app", rec.category);
	ASSERT_EQ(0x8004, rec.name.ref);
	ASSERT_FXT_STR("tick", rec.name);
	ASSERT_EQ(1, rec.nargs);
	ASSERT_EQ(FXT_ARG_INT32, rec.args[0].type);
	ASSERT_EQ(2, rec.args[0].words);
	ASSERT_EQ(5 * 8, rec.args[0].offset);
	ASSERT_FXT_STR("n", rec.args[0].name);
	ASSERT_EQ(-2, rec.args[0].value.i64);
	fxt_tables_free(t);
	return 0;
}

static int test_spec_instant_undefined_category(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_EQ(7 * 8, decode(t, spec_instant, 7, &rec));
	ASSERT_STR("0x000000: error: string-undefined: the category refers to string 1, which provider 0 has not defined\n",
		   diags.text);
	ASSERT_TRUE(!rec.valid);
	ASSERT_TRUE(rec.category.undefined);
	ASSERT_TRUE(!rec.category.ptr);
	/* The rest still decodes. */
	ASSERT_FXT_STR("tick", rec.name);
	ASSERT_EQ(-2, rec.args[0].value.i64);
	fxt_tables_free(t);
	return 0;
}

static int test_spec_kernel_objects(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(3, decode(t, spec_process, 3, &rec));
	ASSERT_EQ(FXT_REC_KOBJ, rec.type);
	ASSERT_EQ(FXT_KOBJ_PROCESS, rec.subtype);
	ASSERT_EQ(0x1234, rec.id);
	ASSERT_FXT_STR("demo", rec.name);
	ASSERT_EQ(0, rec.nargs);

	ASSERT_CLEAN(6, decode(t, spec_thread, 6, &rec));
	ASSERT_EQ(FXT_KOBJ_THREAD, rec.subtype);
	ASSERT_EQ(0x5678, rec.id);
	ASSERT_FXT_STR("main", rec.name);
	ASSERT_EQ(1, rec.nargs);
	ASSERT_EQ(FXT_ARG_KOID, rec.args[0].type);
	ASSERT_EQ(3, rec.args[0].words);
	ASSERT_FXT_STR("process", rec.args[0].name);
	ASSERT_EQ(0x1234, rec.args[0].value.u64);
	fxt_tables_free(t);
	return 0;
}

static int test_spec_context_switch(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_EQ(4 * 8, decode(t, spec_switch, 4, &rec));
	/* Legal FXT, but Perfetto wants the weights. */
	ASSERT_STR("0x000000: warning: sched-weight: context switch without int32 arguments incoming_weight and outgoing_weight; Perfetto cannot tell idle threads\n",
		   diags.text);
	ASSERT_TRUE(rec.valid);
	ASSERT_EQ(FXT_REC_SCHED, rec.type);
	ASSERT_EQ(FXT_SCHED_CONTEXT_SWITCH, rec.subtype);
	ASSERT_EQ(3, rec.cpu);
	ASSERT_EQ(FXT_THREAD_STATE_BLOCKED, rec.out_state);
	ASSERT_EQ(2000, rec.ts);
	ASSERT_EQ(0x5678, rec.out.tid);
	ASSERT_EQ(0x9abc, rec.in.tid);
	ASSERT_EQ(0, rec.nargs);
	fxt_tables_free(t);
	return 0;
}

static int test_spec_init(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_sink sink = { 0 };
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_EQ(FXT_TICKS_PER_SECOND_DEFAULT, fxt_tables_ticks_per_second(t));
	ASSERT_CLEAN(2, decode(t, spec_init, 2, &rec));
	ASSERT_EQ(FXT_REC_INIT, rec.type);
	ASSERT_EQ(1000000000, rec.value);
	/* 2e9 ticks/s: timestamps are halved into ns. */
	ASSERT_CLEAN(2, decode(t, init_2ghz, 2, &rec));
	ASSERT_EQ(2000000000, rec.value);
	ASSERT_EQ(0, fxt_tables_apply(t, &rec, &sink));
	ASSERT_EQ(2000000000, fxt_tables_ticks_per_second(t));
	ASSERT_EQ(0, define(t, thread_3, 3));
	ASSERT_CLEAN(3, decode(t, event_type_0, 3, &rec));
	ASSERT_EQ(100, rec.ts);
	ASSERT_EQ(50, rec.ts_ns);
	ASSERT_EQ(2000000000, rec.ticks_per_second);
	fxt_tables_free(t);
	return 0;
}

/* ---- hand-written records ------------------------------------------------ */

static int test_metadata(void)
{
	static const uint64_t unknown_event[1] = {
		0x0050000000730010,	/* provider event 7, event id 5 */
	};
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(2, decode(t, provider_info, 2, &rec));
	ASSERT_EQ(FXT_META_PROVIDER_INFO, rec.subtype);
	ASSERT_EQ(7, rec.id);
	ASSERT_FXT_STR("prov", rec.name);
	ASSERT_CLEAN(1, decode(t, provider_section, 1, &rec));
	ASSERT_EQ(FXT_META_PROVIDER_SECTION, rec.subtype);
	ASSERT_EQ(7, rec.id);
	ASSERT_CLEAN(1, decode(t, provider_full, 1, &rec));
	ASSERT_EQ(FXT_META_PROVIDER_EVENT, rec.subtype);
	ASSERT_EQ(7, rec.id);
	ASSERT_EQ(FXT_PROVIDER_EVENT_BUFFER_FULL, rec.value);
	ASSERT_EQ(8, decode(t, unknown_event, 1, &rec));
	ASSERT_STR("0x000000: warning: provider-event: provider event 5 of provider 7 is not defined (0 is buffer full)\n",
		   diags.text);
	ASSERT_EQ(5, rec.value);
	fxt_tables_free(t);
	return 0;
}

static int test_thread_record(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_sink sink = { 0 };
	struct fxt_thread th;
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(3, decode(t, thread_3, 3, &rec));
	ASSERT_EQ(FXT_REC_THREAD, rec.type);
	ASSERT_EQ(3, rec.id);
	ASSERT_EQ(10, rec.thread.pid);
	ASSERT_EQ(11, rec.thread.tid);
	ASSERT_EQ(-ENOENT, fxt_tables_thread(t, 3, &th));
	ASSERT_EQ(0, fxt_tables_apply(t, &rec, &sink));
	ASSERT_EQ(0, fxt_tables_thread(t, 3, &th));
	ASSERT_EQ(10, th.pid);
	ASSERT_EQ(11, th.tid);
	fxt_tables_free(t);
	return 0;
}

static int test_event_types(void)
{
	static const struct {
		const uint64_t *words;
		size_t n;
	} events[FXT_EVENT_TYPE_COUNT] = {
		{ event_type_0, 3 }, { event_type_1, 4 }, { event_type_2, 3 },
		{ event_type_3, 3 }, { event_type_4, 4 }, { event_type_5, 4 },
		{ event_type_6, 4 }, { event_type_7, 4 }, { event_type_8, 4 },
		{ event_type_9, 4 }, { event_type_10, 4 },
	};
	struct fxt_tables *t = app_tables();
	struct fxt_record rec;
	unsigned int type;

	ASSERT_TRUE(t);
	for (type = 0; type < FXT_EVENT_TYPE_COUNT; type++) {
		ssize_t n = decode(t, events[type].words, events[type].n, &rec);

		ASSERT_EQ(type, rec.subtype);
		ASSERT_EQ(100, rec.ts);
		ASSERT_EQ(3, rec.thread.ref);
		ASSERT_EQ(10, rec.thread.pid);
		ASSERT_EQ(11, rec.thread.tid);
		ASSERT_EQ(0, rec.category.ref);
		ASSERT_FXT_STR("", rec.category);
		ASSERT_FXT_STR("e", rec.name);
		if (type == FXT_EVENT_COUNTER) {
			/* A counter without arguments: nothing to plot. */
			ASSERT_STR("0x000000: warning: counter-value: counter event has no arguments: no value to show\n",
				   diags.text);
			ASSERT_EQ(8 * events[type].n, n);
		} else {
			ASSERT_CLEAN(events[type].n, n);
		}
		if (type == FXT_EVENT_DURATION_COMPLETE) {
			ASSERT_EQ(150, rec.end_ts);
			ASSERT_EQ(150, rec.end_ts_ns);
		} else if (events[type].n == 4) {
			ASSERT_EQ(0x100 + type, rec.id);
		}
	}
	fxt_tables_free(t);
	return 0;
}

static int test_argument_types(void)
{
	struct fxt_tables *t = app_tables();
	const struct fxt_arg *a;
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(N_WORDS(all_args), decode(t, all_args, N_WORDS(all_args),
					       &rec));
	ASSERT_FXT_STR("args", rec.name);
	ASSERT_EQ(13, rec.nargs);
	a = rec.args;
	ASSERT_EQ(FXT_ARG_NULL, a[0].type);
	ASSERT_FXT_STR("a", a[0].name);
	ASSERT_EQ(FXT_ARG_INT32, a[1].type);
	ASSERT_EQ(-5, a[1].value.i64);
	ASSERT_EQ(FXT_ARG_UINT32, a[2].type);
	ASSERT_EQ(0xfffffffe, a[2].value.u64);
	ASSERT_EQ(FXT_ARG_INT64, a[3].type);
	ASSERT_EQ(-9000000000000000000LL, a[3].value.i64);
	ASSERT_EQ(FXT_ARG_UINT64, a[4].type);
	ASSERT_EQ(UINT64_MAX, a[4].value.u64);
	ASSERT_EQ(FXT_ARG_DOUBLE, a[5].type);
	ASSERT_EQ(1.5, a[5].value.f64);
	ASSERT_EQ(FXT_ARG_STRING, a[6].type);
	ASSERT_EQ(0x8002, a[6].value.str.ref);
	ASSERT_FXT_STR("vv", a[6].value.str);
	ASSERT_EQ(FXT_ARG_STRING, a[7].type);
	ASSERT_EQ(1, a[7].value.str.ref);
	ASSERT_FXT_STR("app", a[7].value.str);
	ASSERT_EQ(FXT_ARG_POINTER, a[8].type);
	ASSERT_EQ(0xdeadbeef, a[8].value.u64);
	ASSERT_EQ(FXT_ARG_KOID, a[9].type);
	ASSERT_EQ(0x1234, a[9].value.u64);
	ASSERT_EQ(FXT_ARG_BOOL, a[10].type);
	ASSERT_TRUE(a[10].value.b);
	ASSERT_EQ(FXT_ARG_BLOB, a[11].type);
	ASSERT_EQ(3, a[11].value.blob.len);
	ASSERT_MEM("xyz", a[11].value.blob.ptr, 3);
	ASSERT_FXT_STR("l", a[11].name);
	/* An indexed argument name. */
	ASSERT_EQ(FXT_ARG_INT32, a[12].type);
	ASSERT_EQ(1, a[12].name.ref);
	ASSERT_FXT_STR("app", a[12].name);
	ASSERT_EQ(7, a[12].value.i64);
	ASSERT_EQ(1, a[12].words);
	fxt_tables_free(t);
	return 0;
}

static int test_blob(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(4, decode(t, blob_data, 4, &rec));
	ASSERT_EQ(FXT_REC_BLOB, rec.type);
	ASSERT_EQ(FXT_BLOB_TYPE_DATA, rec.subtype);
	ASSERT_FXT_STR("b", rec.name);
	ASSERT_EQ(10, rec.payload_len);
	ASSERT_MEM("0123456789", rec.payload, 10);
	fxt_tables_free(t);
	return 0;
}

static int test_userspace_object(void)
{
	struct fxt_tables *t = app_tables();
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(5, decode(t, userobj_indexed, 5, &rec));
	ASSERT_EQ(FXT_REC_USEROBJ, rec.type);
	ASSERT_EQ(0xfeed, rec.id);
	ASSERT_EQ(3, rec.thread.ref);
	ASSERT_EQ(10, rec.thread.pid);
	ASSERT_FXT_STR("obj", rec.name);
	ASSERT_EQ(1, rec.nargs);
	ASSERT_EQ(1, rec.args[0].value.i64);

	/* Inline process, one word: the spec's layout. */
	ASSERT_CLEAN(6, decode(t, userobj_inline1, 6, &rec));
	ASSERT_EQ(0, rec.thread.ref);
	ASSERT_EQ(10, rec.thread.pid);
	ASSERT_FXT_STR("obj", rec.name);
	ASSERT_EQ(1, rec.args[0].value.i64);

	/* Two words: Fuchsia's writer; decoded, and noted. */
	ASSERT_EQ(7 * 8, decode(t, userobj_inline2, 7, &rec));
	ASSERT_STR("0x000000: note: userobj-layout: the inline process takes two words (process and thread koid), as Fuchsia's writer emits; the spec says one\n",
		   diags.text);
	ASSERT_TRUE(rec.valid);
	ASSERT_EQ(10, rec.thread.pid);
	ASSERT_EQ(11, rec.thread.tid);
	ASSERT_FXT_STR("obj", rec.name);
	ASSERT_EQ(1, rec.args[0].value.i64);
	ASSERT_EQ(7, rec.content_words);
	fxt_tables_free(t);
	return 0;
}

static int test_kernel_object_other(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(5, decode(t, kobj_channel, 5, &rec));
	ASSERT_EQ(4, rec.subtype);
	ASSERT_EQ(0x99, rec.id);
	ASSERT_FXT_STR("ch", rec.name);
	ASSERT_EQ(FXT_ARG_UINT32, rec.args[0].type);
	ASSERT_EQ(5, rec.args[0].value.u64);
	fxt_tables_free(t);
	return 0;
}

static int test_log(void)
{
	struct fxt_tables *t = app_tables();
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(3, decode(t, log_indexed, 3, &rec));
	ASSERT_EQ(FXT_REC_LOG, rec.type);
	ASSERT_EQ(300, rec.ts);
	ASSERT_EQ(3, rec.thread.ref);
	ASSERT_EQ(11, rec.thread.tid);
	ASSERT_FXT_STR("hello", rec.name);
	ASSERT_CLEAN(5, decode(t, log_inline, 5, &rec));
	ASSERT_EQ(0, rec.thread.ref);
	ASSERT_EQ(10, rec.thread.pid);
	ASSERT_EQ(11, rec.thread.tid);
	ASSERT_FXT_STR("hello", rec.name);
	fxt_tables_free(t);
	return 0;
}

static int test_large_blob(void)
{
	struct fxt_tables *t = app_tables();
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(9, decode(t, large_blob_meta, 9, &rec));
	ASSERT_EQ(FXT_REC_LARGE, rec.type);
	ASSERT_EQ(FXT_LARGE_BLOB, rec.subtype);
	ASSERT_EQ(FXT_LARGE_BLOB_WITH_METADATA, rec.value);
	ASSERT_FXT_STR("c", rec.category);
	ASSERT_FXT_STR("nm", rec.name);
	ASSERT_EQ(400, rec.ts);
	ASSERT_EQ(11, rec.thread.tid);
	ASSERT_EQ(1, rec.nargs);
	ASSERT_FXT_STR("n", rec.args[0].name);
	ASSERT_EQ(5, rec.payload_len);
	ASSERT_MEM("hello", rec.payload, 5);

	ASSERT_CLEAN(7, decode(t, large_blob_attach, 7, &rec));
	ASSERT_EQ(FXT_LARGE_BLOB_ATTACHMENT, rec.value);
	ASSERT_FXT_STR("c", rec.category);
	ASSERT_FXT_STR("nm", rec.name);
	ASSERT_TRUE(!rec.has_ts);
	ASSERT_EQ(9, rec.payload_len);
	ASSERT_MEM("attached!", rec.payload, 9);
	fxt_tables_free(t);
	return 0;
}

static int test_extension_words(void)
{
	struct fxt_tables *t = app_tables();
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_EQ(5 * 8, decode(t, instant_extended, 5, &rec));
	ASSERT_STR("0x000018: note: record-extension: 2 words after the event record's content (3 of 5 words); readers skip them\n",
		   diags.text);
	ASSERT_TRUE(rec.valid);
	ASSERT_TRUE(rec.complete);
	ASSERT_EQ(3, rec.content_words);
	ASSERT_EQ(5, rec.words);
	ASSERT_FXT_STR("e", rec.name);
	fxt_tables_free(t);
	return 0;
}

/* ---- other writers ------------------------------------------------------- */

static int test_perfetto_vectors(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_record rec;
	ssize_t n;

	ASSERT_TRUE(t);
	/*
	 * BooleanArguments: the header says 8 words but 10 follow (bool true,
	 * then a type 10, blob, of 0 bytes): the second argument lies outside
	 * the record.  Perfetto reads it anyway; the spec frames by size.
	 */
	n = decode(t, perfetto_boolean_args + 1, 10, &rec);
	ASSERT_EQ(8 * 8, n);
	ASSERT_STR("0x000008: warning: timestamp-overflow: timestamp 12297829382473034410 at 1000000000 ticks/s overflows int64 nanoseconds; Perfetto drops the record\n"
		   "0x000010: warning: koid-truncated: process koid 0xbbbbbbbbbbbbbbbb does not fit 32 bits; Perfetto truncates it\n"
		   "0x000018: warning: koid-truncated: thread koid 0xcccccccccccccccc does not fit 32 bits; Perfetto truncates it\n"
		   "0x000020: warning: utf8: the category is not valid UTF-8\n"
		   "0x000028: warning: utf8: the name is not valid UTF-8\n"
		   "0x000000: error: record-overflow: event record of 8 words ends inside its arguments\n",
		   diags.text);
	ASSERT_TRUE(!rec.valid);
	ASSERT_TRUE(!rec.complete);
	ASSERT_EQ(1, rec.nargs);
	ASSERT_EQ(FXT_ARG_BOOL, rec.args[0].type);
	ASSERT_TRUE(rec.args[0].value.b);
	ASSERT_EQ(0xAAAAAAAAAAAAAAAA, rec.ts);
	ASSERT_TRUE(!rec.ts_ns_valid);
	ASSERT_EQ(0xBBBBBBBBBBBBBBBB, rec.thread.pid);
	ASSERT_EQ(0xCCCCCCCCCCCCCCCC, rec.thread.tid);
	ASSERT_EQ(8, rec.category.len);
	ASSERT_EQ(8, rec.name.len);

	/* LegacySchedulerEvents: the first switch, from the idle thread. */
	ASSERT_EQ(6 * 8, decode(t, perfetto_legacy_sched + 1, 6, &rec));
	ASSERT_TRUE(rec.valid);
	ASSERT_EQ(FXT_SCHED_LEGACY_CONTEXT_SWITCH, rec.subtype);
	ASSERT_EQ(1, rec.cpu);
	ASSERT_EQ(FXT_THREAD_STATE_SUSPENDED, rec.out_state);
	ASSERT_EQ(1, rec.ts);
	ASSERT_EQ(0, rec.out.pid);
	ASSERT_EQ(0, rec.out.tid);
	ASSERT_EQ(0x1AAAAAAAAAAAAAAA, rec.in.pid);
	ASSERT_EQ(0x1BBBBBBBBBBBBBBB, rec.in.tid);
	ASSERT_EQ(0, rec.out_prio);
	ASSERT_EQ(1, rec.in_prio);

	/* SchedulerEvents: the wakeup. */
	ASSERT_EQ(3 * 8, decode(t, perfetto_sched + 1, 3, &rec));
	ASSERT_EQ(FXT_SCHED_WAKEUP, rec.subtype);
	ASSERT_EQ(1, rec.cpu);
	ASSERT_EQ(1, rec.ts);
	ASSERT_EQ(0x1AAAAAAAAAAAAAAA, rec.thread.tid);
	ASSERT_STR("0x000010: warning: koid-truncated: woken thread koid 0x1aaaaaaaaaaaaaaa does not fit 32 bits; Perfetto truncates it\n",
		   diags.text);
	fxt_tables_free(t);
	return 0;
}

struct jane_walk {
	uint64_t records, begins, ends;
	uint64_t first_begin_ts;
	int bad;
};

static int jane_record(void *ctx, const struct fxt_record *rec)
{
	struct jane_walk *w = ctx;

	w->records++;
	if (rec->type == FXT_REC_EVENT && rec->subtype == FXT_EVENT_DURATION_BEGIN) {
		if (!w->begins++) {
			w->first_begin_ts = rec->ts;
			/* address (pointer) and symbol (string) arguments. */
			w->bad |= rec->nargs != 2 ||
				  rec->args[0].type != FXT_ARG_POINTER ||
				  rec->args[0].value.u64 != 0xffffffffadaee5b0 ||
				  !fxt_string_is(&rec->args[1].value.str,
						 "__list_add_valid") ||
				  !fxt_string_is(&rec->name, "__list_add_valid");
		}
	}
	w->ends += rec->type == FXT_REC_EVENT &&
		   rec->subtype == FXT_EVENT_DURATION_END;
	return 0;
}

static int test_jane_street_trace(void)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	struct jane_walk w = { 0 };
	struct fxt_string name;
	uint64_t pid;

	ASSERT_TRUE(r);
	words_to_le(jane_prefix, N_WORDS(jane_prefix), buf);
	ASSERT_EQ(0, fxt_reader_read_buffer(r, buf, sizeof(jane_prefix), jane_record, &w));
	ASSERT_EQ(0, w.bad);
	ASSERT_EQ(39, w.records);
	ASSERT_EQ(6, w.begins);
	ASSERT_EQ(10, w.ends);
	ASSERT_EQ(233, w.first_begin_ts);
	ASSERT_TRUE(fxt_reader_process_name(r, 1, &name));
	ASSERT_FXT_STR("2248878/2248878", name);
	ASSERT_TRUE(fxt_reader_thread_name(r, 2, &name, &pid));
	ASSERT_FXT_STR("main", name);
	ASSERT_EQ(1, pid);
	ASSERT_EQ(0, fxt_reader_count(r, FXT_ERROR));
	ASSERT_EQ(0, fxt_reader_count(r, FXT_WARNING));
	fxt_reader_free(r);
	return 0;
}

/* ---- fxtrace's own encoder ---------------------------------------------- */

/*
 * fxt.h's writers take __u64 (unsigned long long); the decoder's words are
 * uint64_t (unsigned long on x86-64): copy rather than alias them.
 */
static const uint64_t *from_u64(const __u64 *src, size_t n)
{
	static uint64_t words[64];
	size_t i;

	for (i = 0; i < n && i < N_WORDS(words); i++)
		words[i] = src[i];
	return words;
}

static int test_encoder_records(void)
{
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_sink sink = { 0 };
	struct fxt_record rec;
	__u64 w[64];
	size_t n;

	ASSERT_TRUE(t);
	n = fxt_write_string(w, 5, "category", 8);
	ASSERT_CLEAN(n, decode(t, from_u64(w, n), n, &rec));
	ASSERT_EQ(5, rec.id);
	ASSERT_FXT_STR("category", rec.name);
	ASSERT_EQ(0, fxt_tables_apply(t, &rec, &sink));

	n = fxt_write_provider_info(w, 42, "fxtrace", 7);
	ASSERT_CLEAN(n, decode(t, from_u64(w, n), n, &rec));
	ASSERT_EQ(42, rec.id);
	ASSERT_FXT_STR("fxtrace", rec.name);

	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, 77, "worker", 6, 76);
	ASSERT_CLEAN(n, decode(t, from_u64(w, n), n, &rec));
	ASSERT_EQ(77, rec.id);
	ASSERT_FXT_STR("worker", rec.name);
	ASSERT_EQ(76, rec.args[0].value.u64);

	/* A counter built from the header helpers and the argument writers. */
	n = 1;
	w[n++] = 5000;	/* timestamp */
	w[n++] = 76;	/* process koid */
	w[n++] = 77;	/* thread koid */
	n += fxt_write_arg64(w + n, FXT_ARG_INT64, fxt_inline_string_ref(5),
			     "bytes", -7);
	n += fxt_write_arg_string(w + n, 5, NULL, fxt_inline_string_ref(2),
				  "ok");
	n += fxt_write_arg32(w + n, FXT_ARG_UINT32, 5, NULL, 9);
	w[n++] = 3;	/* counter id */
	w[0] = fxt_event_hdr(n, FXT_EVENT_COUNTER, 3, 0, 5,
			     fxt_inline_string_ref(0));
	ASSERT_EQ(fxt_event_words(FXT_EVENT_COUNTER, 0, 5, 0, n - 5), n);
	ASSERT_EQ(n * 8, decode(t, from_u64(w, n), n, &rec));
	ASSERT_STR("0x000038: warning: counter-value: counter argument 2 is string, not a number; Perfetto ignores it\n",
		   diags.text);
	ASSERT_EQ(FXT_EVENT_COUNTER, rec.subtype);
	ASSERT_EQ(5000, rec.ts);
	ASSERT_FXT_STR("category", rec.category);
	ASSERT_FXT_STR("", rec.name);
	ASSERT_EQ(3, rec.id);
	ASSERT_EQ(-7, rec.args[0].value.i64);
	ASSERT_FXT_STR("category", rec.args[1].name);
	ASSERT_FXT_STR("ok", rec.args[1].value.str);
	ASSERT_EQ(9, rec.args[2].value.u64);
	fxt_tables_free(t);
	return 0;
}

/* ---- the tables API, as the drainer uses it ----------------------------- */

static int test_tables_redefinition(void)
{
	static const uint64_t string_1_other[2] = {
		0x0000000500010022,	/* string 1, 5 bytes: "other" */
		0x000000726568746f,
	};
	struct fxt_tables *t = app_tables();
	struct fxt_record rec;

	ASSERT_TRUE(t);
	ASSERT_CLEAN(7, decode(t, spec_instant, 7, &rec));
	ASSERT_FXT_STR("app", rec.category);
	ASSERT_EQ(0, define(t, string_1_other, 2));
	ASSERT_CLEAN(7, decode(t, spec_instant, 7, &rec));
	ASSERT_FXT_STR("other", rec.category);
	fxt_tables_clear(t);
	ASSERT_EQ(7 * 8, decode(t, spec_instant, 7, &rec));
	ASSERT_TRUE(rec.category.undefined);
	fxt_tables_free(t);
	return 0;
}

/* A table block: 256 entries of 24 bytes (fxt_decode.c STRING_BLOCK_BYTES). */
#define BLOCK_BYTES 6144

static int test_tables_string_budget(void)
{
	/* The first string's block, and 4 bytes. */
	struct fxt_tables *t = fxt_tables_new(9, BLOCK_BYTES + 4);
	struct fxt_sink sink = { .fn = collect_diag, .ctx = &diags };
	struct fxt_string s;
	struct fxt_record rec;
	uint64_t w[2] = { 0x0000000500020022, 0x000000726568746f };

	ASSERT_TRUE(t);
	/* 3 bytes fit the 4-byte budget. */
	ASSERT_EQ(0, define(t, spec_string_app, 2));
	/* 5 more do not: defined, bytes not kept, noted. */
	ASSERT_EQ(16, decode(t, w, 2, &rec));
	ASSERT_EQ(0, fxt_tables_apply(t, &rec, &sink));
	ASSERT_STR("0x000000: note: string-not-kept: string 2 (5 bytes) is defined, but the reader keeps at most 6148 string bytes per provider\n",
		   diags.text);
	ASSERT_EQ(0, fxt_tables_string(t, 2, &s));
	ASSERT_TRUE(!s.ptr);
	ASSERT_TRUE(!s.undefined);
	ASSERT_EQ(5, s.len);
	ASSERT_EQ(0, fxt_tables_string(t, 1, &s));
	ASSERT_FXT_STR("app", s);
	/* 1 more byte makes the budget exactly: kept. */
	w[0] = 0x0000000100030022;
	w[1] = 0x0000000000000078;
	ASSERT_EQ(0, define(t, w, 2));
	ASSERT_EQ(0, fxt_tables_string(t, 3, &s));
	ASSERT_FXT_STR("x", s);
	fxt_tables_free(t);
	return 0;
}

/*
 * The blocks a table allocates for the indices in use count against the
 * budget: one empty string in each block (8 bytes of input for 6 KiB)
 * cannot hold memory past it.
 */
static int test_tables_string_blocks(void)
{
	struct fxt_tables *t = fxt_tables_new(9, 2 * BLOCK_BYTES);
	/* Empty strings at indices 1, 257 and 513: three blocks. */
	const uint64_t s1 = 0x0000000000010012, s257 = 0x0000000001010012;

	ASSERT_TRUE(t);
	ASSERT_TRUE(fxt_tables_string_fits(t, 1, 0));
	ASSERT_EQ(0, define(t, &s1, 1));
	ASSERT_TRUE(fxt_tables_string_fits(t, 257, 0));
	ASSERT_EQ(0, define(t, &s257, 1));
	/* Both blocks take the whole budget: no third, no byte more. */
	ASSERT_TRUE(!fxt_tables_string_fits(t, 513, 0));
	ASSERT_TRUE(fxt_tables_string_fits(t, 258, 0));
	ASSERT_TRUE(!fxt_tables_string_fits(t, 258, 1));
	fxt_tables_free(t);
	return 0;
}

static int test_decode_needs_more(void)
{
	struct fxt_tables *t = app_tables();
	struct fxt_sink sink = { .fn = collect_diag, .ctx = &diags };
	struct fxt_record rec;
	uint64_t need = 0;

	ASSERT_TRUE(t);
	memset(&diags, 0, sizeof(diags));
	words_to_le(spec_instant, 7, buf);
	ASSERT_EQ(0, fxt_decode_record(t, buf, 4, 0, &rec, &sink, &need));
	ASSERT_EQ(8, need);
	ASSERT_EQ(0, fxt_decode_record(t, buf, 55, 0, &rec, &sink, &need));
	ASSERT_EQ(56, need);
	ASSERT_STR("", diags.text);
	ASSERT_EQ(56, fxt_decode_record(t, buf, 56, 0, &rec, &sink, &need));
	fxt_tables_free(t);
	return 0;
}

/* ---- the streaming reader ----------------------------------------------- */

struct chunks {
	const unsigned char *data;
	size_t len, pos, step;
};

/* Hands out the input in chunks of 1, 2, 3, ... bytes, wrapping at step. */
static ssize_t read_chunks(void *ctx, void *out, size_t len)
{
	struct chunks *c = ctx;
	size_t n = c->pos % c->step + 1;

	if (n > len)
		n = len;
	if (n > c->len - c->pos)
		n = c->len - c->pos;
	memcpy(out, c->data + c->pos, n);
	c->pos += n;
	return n;
}

static int count_records(void *ctx, const struct fxt_record *rec)
{
	(void)rec;
	(*(uint64_t *)ctx)++;
	return 0;
}

static int test_streaming_matches_buffer(void)
{
	static struct diags whole, streamed;
	struct words b = { 0 };
	uint64_t n_whole = 0, n_streamed = 0;
	struct fxt_reader *r;
	struct chunks c;

	put_all(&b, jane_prefix, N_WORDS(jane_prefix));
	put_all(&b, spec_string_app, 2);
	put_all(&b, spec_instant, 7);
	put_all(&b, large_blob_meta, 9);
	words_to_le(b.w, b.n, buf);

	r = fxt_reader_new(collect_diag, &whole);
	ASSERT_TRUE(r);
	ASSERT_EQ(0, fxt_reader_read_buffer(r, buf, 8 * b.n - 3, count_records,
					    &n_whole));
	fxt_reader_free(r);

	r = fxt_reader_new(collect_diag, &streamed);
	ASSERT_TRUE(r);
	c = (struct chunks){ .data = buf, .len = 8 * b.n - 3, .step = 13 };
	ASSERT_EQ(0, fxt_reader_read(r, read_chunks, &c, count_records,
				     &n_streamed));
	fxt_reader_free(r);

	ASSERT_EQ(n_whole, n_streamed);
	ASSERT_EQ(39 + 2, n_whole);
	ASSERT_STR(whole.text, streamed.text);
	/* The cut last record is reported once, at its offset. */
	ASSERT_SUBSTR("0x0003c0: error: truncated: the large record needs 72 bytes; the input ends after 69\n", whole.text);
	return 0;
}

static int test_streaming_skips_oversized(void)
{
	struct words b = { 0 };
	struct fxt_reader *r;
	struct chunks c;
	uint64_t n = 0;

	memset(&diags, 0, sizeof(diags));
	put_all(&b, spec_magic, 1);
	put_all(&b, large_blob_meta, 9);
	put_all(&b, spec_string_app, 2);
	words_to_le(b.w, b.n, buf);
	r = fxt_reader_new(collect_diag, &diags);
	ASSERT_TRUE(r);
	fxt_reader_set_window_max(r, 32);
	c = (struct chunks){ .data = buf, .len = 8 * b.n, .step = 5 };
	ASSERT_EQ(0, fxt_reader_read(r, read_chunks, &c, count_records, &n));
	ASSERT_EQ(3, n);
	ASSERT_EQ(3, fxt_reader_records(r));
	ASSERT_STR("0x000008: warning: not-checked: large record of 72 bytes is larger than the reader's 32-byte window; skipped unchecked\n"
		   "0x000008: note: perfetto-unsupported: Perfetto ignores large records (noted once)\n",
		   diags.text);
	fxt_reader_free(r);
	return 0;
}

/* ---- the reader's memory budget ------------------------------------------ */

/*
 * Valid traces that make a reader keep hundreds of times their size: each
 * shape of record that allocates per provider or copies a string, repeated
 * for new providers or koids.
 */
enum crafted {
	CRAFTED_BLOCKS,		/* per provider: an empty string in each block */
	CRAFTED_PROVIDERS,	/* a provider info record per provider (1 word) */
	CRAFTED_THREADS,	/* per provider: one thread record */
	CRAFTED_NAMES,		/* a 32,000-byte string names process after process */
	CRAFTED_COUNT
};

static const char *const crafted_names[CRAFTED_COUNT] = {
	"string blocks", "providers", "thread tables", "process names",
};

#define NAME_BYTES	32000

/* The crafted trace of kind, `words` words (at a record boundary) of w. */
static size_t craft(enum crafted kind, uint64_t *w, size_t words)
{
	size_t n = 0, i;
	uint64_t id;

	w[n++] = FXT_MAGIC_WORD;
	if (kind == CRAFTED_NAMES) {
		/* String 1: NAME_BYTES of 'n'. */
		w[n++] = FXT_REC_STRING | (1 + NAME_BYTES / 8) << 4 | 1 << 16 |
			 (uint64_t)NAME_BYTES << 32;
		for (i = 0; i < NAME_BYTES / 8; i++)
			w[n++] = 0x6e6e6e6e6e6e6e6eULL;
	}
	for (id = 1;; id++) {
		switch (kind) {
		case CRAFTED_BLOCKS:
			if (n + 1 + 128 > words)
				return n;
			w[n++] = FXT_REC_METADATA | 1 << 4 |
				 FXT_META_PROVIDER_INFO << 16 | id << 20;
			for (i = 0; i < 128; i++)
				w[n++] = FXT_REC_STRING | 1 << 4 |
					 (256 * i + 1) << 16;
			break;
		case CRAFTED_PROVIDERS:
			if (n + 1 > words)
				return n;
			w[n++] = FXT_REC_METADATA | 1 << 4 |
				 FXT_META_PROVIDER_INFO << 16 | id << 20;
			break;
		case CRAFTED_THREADS:
			if (n + 4 > words)
				return n;
			w[n++] = FXT_REC_METADATA | 1 << 4 |
				 FXT_META_PROVIDER_INFO << 16 | id << 20;
			w[n++] = FXT_REC_THREAD | 3 << 4 | 1 << 16;
			w[n++] = id;
			w[n++] = id;
			break;
		case CRAFTED_NAMES:
			if (n + 2 > words)
				return n;
			w[n++] = FXT_REC_KOBJ | 2 << 4 | FXT_KOBJ_PROCESS << 16 |
				 1 << 24;
			w[n++] = id;
			break;
		default:
			return n;
		}
	}
}

/* Bytes malloc has handed out and not taken back. */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * With a budget of 1 MiB, a reader reading each crafted trace of ~200 KB
 * (that takes 10 MB to 6 GB without one) stops with -ENOBUFS at a record
 * and grows the heap by less than twice the budget: the budget, and the
 * maps that grow by an entry per record (a few hundred KB here).
 */
static int test_reader_memory_budget(void)
{
	const size_t words = 25000, budget = 1 << 20;
	unsigned char *bytes = malloc(8 * words);
	uint64_t *w = malloc(8 * words);
	struct fxt_reader *r;
	size_t n, before, grown;
	int kind, ret;

	ASSERT_TRUE(bytes && w);
	for (kind = 0; kind < CRAFTED_COUNT; kind++) {
		n = craft(kind, w, words);
		words_to_le(w, n, bytes);
		before = heap_in_use();
		r = fxt_reader_new(NULL, NULL);
		ASSERT_TRUE(r);
		fxt_reader_set_memory_budget(r, budget);
		ASSERT_EQ(budget, fxt_reader_memory_budget(r));
		ret = fxt_reader_read_buffer(r, bytes, 8 * n, NULL, NULL);
		grown = heap_in_use() - before;
		if (ret != -ENOBUFS || grown >= 2 * budget) {
			printf("# %s: %zu bytes of input: returned %d, the heap grew by %zu bytes\n",
			       crafted_names[kind], 8 * n, ret, grown);
			return 1;
		}
		/* Stopped at a record, with nothing reported of the trace. */
		ASSERT_TRUE(fxt_reader_offset(r) > 0 &&
			    fxt_reader_offset(r) < 8 * n);
		ASSERT_EQ(0, fxt_reader_count(r, FXT_ERROR));
		fxt_reader_free(r);
	}
	free(w);
	free(bytes);
	return 0;
}

/*
 * The heap a reader grows by reading a trace of one duration holding
 * flows flows, each begun and ended, ids 1 to flows.
 */
static size_t flows_heap(size_t flows)
{
	size_t n = 0, i, before, grown;
	uint64_t *w = malloc(8 * (5 + 10 * flows + 4));
	unsigned char *bytes = malloc(8 * (5 + 10 * flows + 4));
	struct fxt_reader *r;

	if (!w || !bytes)
		return SIZE_MAX;
	w[n++] = 0x0016547846040010;
	w[n++] = 0x0000000000020044;		/* duration begin */
	w[n++] = 1;
	w[n++] = 1;
	w[n++] = 2;
	for (i = 0; i < flows; i++) {
		w[n++] = 0x0000000000080054;	/* flow begin */
		w[n++] = 2 + i;
		w[n++] = 1;
		w[n++] = 2;
		w[n++] = 1 + i;
		w[n++] = 0x00000000000a0054;	/* flow end */
		w[n++] = 2 + i;
		w[n++] = 1;
		w[n++] = 2;
		w[n++] = 1 + i;
	}
	w[n++] = 0x0000000000030044;		/* duration end */
	w[n++] = 2 + flows;
	w[n++] = 1;
	w[n++] = 2;
	words_to_le(w, n, bytes);
	before = heap_in_use();
	r = fxt_reader_new(NULL, NULL);
	if (!r || fxt_reader_read_buffer(r, bytes, 8 * n, NULL, NULL) ||
	    fxt_reader_count(r, FXT_WARNING) || fxt_reader_count(r, FXT_NOTE))
		grown = SIZE_MAX;
	else
		grown = heap_in_use() - before;
	fxt_reader_free(r);
	free(bytes);
	free(w);
	return grown;
}

/*
 * The reader keeps a flow id while it is begun and not ended, as
 * Perfetto does: 20,000 flows one after the other grow the heap as one
 * does, not by an entry each (a long trace's ids all kept: 3.2 MB).
 * Within 1 KiB: malloc hands out a free chunk whole when what would be
 * left of it is too small to split, so the same allocations count a
 * chunk's 16 bytes more or less from one run to the next.
 */
static int test_reader_flows_forgotten(void)
{
	size_t one = flows_heap(1), many = flows_heap(20000);

	ASSERT_CMP(one, <, SIZE_MAX);
	ASSERT_CMP(many, <=, one + 1024);
	ASSERT_CMP(many + 1024, >=, one);
	return 0;
}

/* ---- the map -------------------------------------------------------------- */

static int test_map(void)
{
	struct fxt_map m;
	uint64_t i, *v, k1, k2, sum = 0;
	size_t pos = 0;
	int created;

	fxt_map_init(&m, sizeof(uint64_t));
	for (i = 0; i < 5000; i++) {
		v = fxt_map_put(&m, i, i * 7, &created);
		ASSERT_TRUE(v);
		ASSERT_TRUE(created);
		*v = i;
	}
	/* Delete the odd keys; the even ones must all stay reachable. */
	for (i = 1; i < 5000; i += 2)
		fxt_map_del(&m, i, i * 7);
	ASSERT_EQ(2500, m.count);
	for (i = 0; i < 5000; i++) {
		v = fxt_map_get(&m, i, i * 7);
		if (i % 2) {
			ASSERT_TRUE(!v);
		} else {
			ASSERT_TRUE(v);
			ASSERT_EQ(i, *v);
		}
	}
	ASSERT_TRUE(!fxt_map_get(&m, 2, 15));
	while ((v = fxt_map_next(&m, &pos, &k1, &k2))) {
		ASSERT_EQ(k1 * 7, k2);
		sum += *v;
	}
	ASSERT_EQ(2499 * 2500, sum);
	v = fxt_map_put(&m, 4, 28, &created);
	ASSERT_TRUE(v);
	ASSERT_TRUE(!created);
	ASSERT_EQ(4, *v);
	fxt_map_free(&m);
	return 0;
}

/*
 * UTF-8 judged one byte at a time, as fxt_utf8_valid() did before it
 * skipped ASCII 8 bytes at a time: the reference it must agree with.
 */
static bool utf8_bytewise(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	uint32_t cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf)
			n = 1, cp = s[i] & 0x1f;
		else if (s[i] >= 0xe0 && s[i] <= 0xef)
			n = 2, cp = s[i] & 0x0f;
		else if (s[i] >= 0xf0 && s[i] <= 0xf4)
			n = 3, cp = s[i] & 0x07;
		else
			return false;
		if (len - i <= n)
			return false;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += n + 1;
	}
	return true;
}

/*
 * Every length up to 40 with a non-ASCII piece (valid, cut, overlong,
 * surrogate, stray continuation, 0xff) at every position, so that pieces
 * straddle, start and end the 8-byte steps.
 */
static int test_utf8_word_steps(void)
{
	static const char *const pieces[] = {
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3",
		"\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\x80", "\xff",
		"\xf4\x90\x80\x80", "\x7f",
	};
	unsigned char s[48];
	size_t len, pos, p, n, checked = 0, valid = 0;

	for (len = 0; len <= 40; len++)
		for (pos = 0; pos <= len; pos++)
			for (p = 0; p < N_WORDS(pieces); p++) {
				n = strlen(pieces[p]);
				memset(s, 'a', sizeof(s));
				if (pos + n <= len)
					memcpy(s + pos, pieces[p], n);
				if (fxt_utf8_valid(s, len) != utf8_bytewise(s, len))
					FAIL("length %zu, piece %zu at %zu: %d, byte-wise %d",
					     len, p, pos, fxt_utf8_valid(s, len),
					     utf8_bytewise(s, len));
				valid += utf8_bytewise(s, len);
				checked++;
			}
	/* Both verdicts were seen, many times. */
	EXPECT_CMP(valid, >, 1000);
	EXPECT_CMP(checked - valid, >, 1000);
	return 0;
}

/* At 10^9 ticks/s a timestamp is its ns: INT64_MAX is, INT64_MAX + 1 is not. */
static int test_ns_ticks_bounds(void)
{
	struct fxt_tables *t = app_tables();
	uint64_t words[7];
	struct fxt_record rec;

	ASSERT_TRUE(t);
	memcpy(words, spec_instant, sizeof(words));
	words[1] = INT64_MAX;
	ASSERT_CLEAN(7, decode(t, words, 7, &rec));
	ASSERT_TRUE(rec.ts_ns_valid);
	ASSERT_EQ(INT64_MAX, rec.ts_ns);
	words[1] = (uint64_t)INT64_MAX + 1;
	ASSERT_EQ(7 * 8, decode(t, words, 7, &rec));
	ASSERT_TRUE(!rec.ts_ns_valid);
	ASSERT_STR("0x000008: warning: timestamp-overflow: timestamp 9223372036854775808 at 1000000000 ticks/s overflows int64 nanoseconds; Perfetto drops the record\n",
		   diags.text);
	words[1] = 0;
	ASSERT_CLEAN(7, decode(t, words, 7, &rec));
	ASSERT_TRUE(rec.ts_ns_valid);
	ASSERT_EQ(0, rec.ts_ns);
	fxt_tables_free(t);
	return 0;
}

/*
 * Sequences at the bounds of UTF-8: the first and last code points of
 * each length and around the surrogates are valid; overlong forms, the
 * surrogates, past U+10FFFF, and a sequence cut by the end of the string
 * (even when the bytes past the end would complete it) are not.
 */
static int test_utf8_bounds(void)
{
	static const char *const valid[] = {
		"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf",
		"\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80",
		"\xf4\x8f\xbf\xbf", "ab\xc3\xa9", "ab\xe2\x82\xac",
		"ab\xf0\x9f\x98\x80",
	};
	static const char *const invalid[] = {
		"\xc1\xbf", "\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80",
		"\xf5\x80\x80\x80", "\xf7\xbf\xbf\xbf",
	};
	const unsigned char *s;
	size_t i, len, cut;

	for (i = 0; i < N_WORDS(valid); i++) {
		s = (const unsigned char *)valid[i];
		len = strlen(valid[i]);
		if (!fxt_utf8_valid(s, len))
			FAIL("valid sequence %zu is not", i);
		for (cut = len - 1; cut > 0 && s[cut - 1] >= 0x80; cut--)
			if (fxt_utf8_valid(s, cut))
				FAIL("valid sequence %zu cut to %zu bytes is valid",
				     i, cut);
	}
	for (i = 0; i < N_WORDS(invalid); i++)
		if (fxt_utf8_valid((const unsigned char *)invalid[i],
				   strlen(invalid[i])))
			FAIL("invalid sequence %zu is valid", i);
	return 0;
}

/* A tick count that converts to INT64_MAX ns exactly fits; one more does not. */
static int test_ticks_to_ns_bound(void)
{
	int64_t ns = 0;

	/* (2^64 - 1) / 2 = INT64_MAX at 2e9 ticks/s. */
	ASSERT_TRUE(fxt_ticks_to_ns(UINT64_MAX, 2000000000, &ns));
	ASSERT_EQ(INT64_MAX, ns);
	/* 2^62 ticks at 5e8 ticks/s are 2^63 ns. */
	ASSERT_TRUE(fxt_ticks_to_ns((1ULL << 62) - 1, 500000000, &ns));
	ASSERT_EQ(INT64_MAX - 1, ns);
	ASSERT_TRUE(!fxt_ticks_to_ns(1ULL << 62, 500000000, &ns));
	ASSERT_TRUE(!fxt_ticks_to_ns(1, 0, &ns));
	return 0;
}

/* String and thread index 0 are never defined, even when applied. */
static int test_tables_index_zero(void)
{
	static const uint64_t string_0[2] = {
		0x0000000300000022, 0x0000000000707061,	/* "app" */
	};
	static const uint64_t thread_0[3] = {
		0x0000000000000033, 0x000000000000000a, 0x000000000000000b,
	};
	struct fxt_tables *t = fxt_tables_new(0, 0);
	struct fxt_sink sink = { 0 };
	struct fxt_record rec;
	struct fxt_thread th;
	struct fxt_string s;

	ASSERT_TRUE(t);
	ASSERT_EQ(16, decode(t, string_0, 2, &rec));
	ASSERT_STR("0x000000: error: string-index-zero: string record for index 0, which is never defined\n",
		   diags.text);
	ASSERT_EQ(0, fxt_tables_apply(t, &rec, &sink));
	ASSERT_EQ(-ENOENT, fxt_tables_string(t, 0, &s));
	ASSERT_EQ(24, decode(t, thread_0, 3, &rec));
	ASSERT_EQ(0, fxt_tables_apply(t, &rec, &sink));
	ASSERT_EQ(-ENOENT, fxt_tables_thread(t, 0, &th));
	fxt_tables_free(t);
	return 0;
}

/*
 * SipHash-2-4's reference vectors (the paper's appendix A and the reference
 * implementation's vectors.h): key 00..0f, message 00..len-1.
 */
static int test_siphash24_vectors(void)
{
	static const struct {
		size_t len;
		uint64_t hash;
	} vectors[] = {
		{ 0, 0x726fdb47dd0e0e31ULL }, { 1, 0x74f839c593dc67fdULL },
		{ 2, 0x0d6c8009d9a94f5aULL }, { 3, 0x85676696d7fb7e2dULL },
		{ 4, 0xcf2794e0277187b7ULL }, { 8, 0x93f5f5799a932462ULL },
		{ 15, 0xa129ca6149be45e5ULL },
	};
	unsigned char key[16], msg[16];
	unsigned int i;

	for (i = 0; i < 16; i++)
		key[i] = msg[i] = (unsigned char)i;
	for (i = 0; i < N_WORDS(vectors); i++)
		EXPECT_EQ(vectors[i].hash,
			  fxt_siphash24(key, msg, vectors[i].len));
	return 0;
}

static const struct tap_test tests[] = {
	{ "spec 18(a) magic number record", test_spec_magic },
	{ "spec 18(b) string record", test_spec_string },
	{ "spec 18(c) instant event", test_spec_instant },
	{ "spec 18(c) with category undefined", test_spec_instant_undefined_category },
	{ "spec 18(d) kernel objects", test_spec_kernel_objects },
	{ "spec 18(e) context switch", test_spec_context_switch },
	{ "spec 18(f) initialization, tick conversion", test_spec_init },
	{ "metadata: provider info, section, event", test_metadata },
	{ "thread record", test_thread_record },
	{ "all 11 event types", test_event_types },
	{ "all 11 argument types", test_argument_types },
	{ "blob record", test_blob },
	{ "userspace object, three layouts", test_userspace_object },
	{ "kernel object of another type", test_kernel_object_other },
	{ "log record", test_log },
	{ "large blob, both formats", test_large_blob },
	{ "words after the content", test_extension_words },
	{ "Perfetto's importer test vectors", test_perfetto_vectors },
	{ "a real trace of Jane Street's tracing library", test_jane_street_trace },
	{ "records from fxt.h, the project's encoder", test_encoder_records },
	{ "tables: redefinition and clearing", test_tables_redefinition },
	{ "tables: string byte budget", test_tables_string_budget },
	{ "tables: the budget counts table blocks", test_tables_string_blocks },
	{ "decode: incomplete input asks for more", test_decode_needs_more },
	{ "reader: streaming equals whole buffer", test_streaming_matches_buffer },
	{ "reader: records over the window are skipped", test_streaming_skips_oversized },
	{ "reader: the memory budget bounds crafted traces", test_reader_memory_budget },
	{ "reader: a flow id is forgotten at its end", test_reader_flows_forgotten },
	{ "map: insert, delete, iterate", test_map },
	{ "utf8: 8-byte ASCII steps agree with byte-wise", test_utf8_word_steps },
	{ "timestamps: ns ticks at the int64 bound", test_ns_ticks_bounds },
	{ "utf8: sequences at the bounds, and cut by the end", test_utf8_bounds },
	{ "timestamps: ticks converted at the int64 bound", test_ticks_to_ns_bound },
	{ "tables: index 0 is never defined", test_tables_index_zero },
	{ "SipHash-2-4, the reference vectors", test_siphash24_vectors },
};

int main(void)
{
	return tap_run(tests, N_WORDS(tests));
}
