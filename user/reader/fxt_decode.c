// SPDX-License-Identifier: GPL-2.0
/*
 * fxt_decode.c - decode and validate one FXT record against one provider's
 * tables (the FXT spec, Documentation/fxt.rst), and the tables themselves.
 *
 * The decoder walks a record with a cursor bounded by the record's size, or
 * by an argument's size while inside an argument, so no field is ever read
 * past the size its header declares.  Every problem is reported at the byte
 * offset of the word that holds it.  Checks that need more than one record
 * (magic first, order per CPU, balance) live in fxt_reader.c.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "fxt_internal.h"

const struct fxt_rule fxt_rules[FXT_RULE_COUNT] = {
	[FXT_RULE_MAGIC_FIRST] = { "magic-first", FXT_ERROR,
		"the trace does not start with the magic number record" },
	[FXT_RULE_TRUNCATED] = { "truncated", FXT_ERROR,
		"the input ends inside a record or inside a word" },
	[FXT_RULE_RECORD_SIZE_ZERO] = { "record-size-zero", FXT_ERROR,
		"a record header gives size 0; nothing after it can be framed" },
	[FXT_RULE_RECORD_TYPE] = { "record-type", FXT_ERROR,
		"record type 10 to 14 (unassigned)" },
	[FXT_RULE_RECORD_OVERFLOW] = { "record-overflow", FXT_ERROR,
		"the record's content needs more words than its size gives" },
	[FXT_RULE_RECORD_EXTENSION] = { "record-extension", FXT_NOTE,
		"words after the record's defined content (legal, skipped)" },
	[FXT_RULE_RESERVED_BITS] = { "reserved-bits", FXT_ERROR,
		"reserved or unused header bits are not 0" },
	[FXT_RULE_PADDING] = { "padding", FXT_ERROR,
		"the bytes padding a string or blob stream to a word are not 0" },
	[FXT_RULE_UTF8] = { "utf8", FXT_WARNING,
		"a string is not valid UTF-8" },
	[FXT_RULE_METADATA_TYPE] = { "metadata-type", FXT_ERROR,
		"metadata type other than 1 to 4" },
	[FXT_RULE_TRACE_INFO_TYPE] = { "trace-info-type", FXT_ERROR,
		"trace info type other than 0 (magic number)" },
	[FXT_RULE_MAGIC] = { "magic", FXT_ERROR,
		"a magic number record with a wrong value or size" },
	[FXT_RULE_PROVIDER_SECTION] = { "provider-section", FXT_ERROR,
		"a provider section for a provider no provider info announced" },
	[FXT_RULE_PROVIDER_EVENT] = { "provider-event", FXT_WARNING,
		"a provider event id other than 0 (buffer full)" },
	[FXT_RULE_DROPS] = { "drops", FXT_NOTE,
		"the trace reports dropped records" },
	[FXT_RULE_TICKS_ZERO] = { "ticks-zero", FXT_ERROR,
		"an initialization record with 0 ticks per second" },
	[FXT_RULE_STRING_INDEX_ZERO] = { "string-index-zero", FXT_ERROR,
		"a string record for index 0" },
	[FXT_RULE_THREAD_INDEX_ZERO] = { "thread-index-zero", FXT_ERROR,
		"a thread record for index 0" },
	[FXT_RULE_STRING_UNDEFINED] = { "string-undefined", FXT_ERROR,
		"a string ref to an index the current provider has not defined (Perfetto drops the record)" },
	[FXT_RULE_THREAD_UNDEFINED] = { "thread-undefined", FXT_ERROR,
		"a thread ref to an index the current provider has not defined (Perfetto uses pid 0, tid 0)" },
	[FXT_RULE_STRING_NOT_KEPT] = { "string-not-kept", FXT_NOTE,
		"a string is defined but its bytes exceed the reader's budget" },
	[FXT_RULE_EVENT_TYPE] = { "event-type", FXT_ERROR,
		"event type 11 to 15 (undefined)" },
	[FXT_RULE_ARG_TYPE] = { "arg-type", FXT_ERROR,
		"argument type 11 to 15 (undefined)" },
	[FXT_RULE_ARG_SIZE_ZERO] = { "arg-size-zero", FXT_ERROR,
		"an argument header gives size 0" },
	[FXT_RULE_ARG_OVERFLOW] = { "arg-overflow", FXT_ERROR,
		"an argument runs past the end of its record" },
	[FXT_RULE_ARG_SIZE] = { "arg-size", FXT_ERROR,
		"an argument's content needs more words than its size gives" },
	[FXT_RULE_ARG_EXTENSION] = { "arg-extension", FXT_NOTE,
		"words after an argument's value (skipped by its size)" },
	[FXT_RULE_BLOB_TYPE] = { "blob-type", FXT_ERROR,
		"blob type other than 1 to 3" },
	[FXT_RULE_LARGE_TYPE] = { "large-type", FXT_ERROR,
		"large record type other than 0 (blob) or blob format other than 0 or 1" },
	[FXT_RULE_SCHED_TYPE] = { "sched-type", FXT_ERROR,
		"scheduling record subtype other than 0 to 2" },
	[FXT_RULE_THREAD_STATE] = { "thread-state", FXT_ERROR,
		"a context switch's outgoing thread state is not 0 to 5" },
	[FXT_RULE_USEROBJ_LAYOUT] = { "userobj-layout", FXT_NOTE,
		"a userspace object's inline process ref takes two words (Fuchsia's writer), not one (the spec)" },
	[FXT_RULE_TIMESTAMP_OVERFLOW] = { "timestamp-overflow", FXT_WARNING,
		"a timestamp overflows int64 nanoseconds (Perfetto drops the record)" },
	[FXT_RULE_DURATION_NEGATIVE] = { "duration-negative", FXT_WARNING,
		"a duration complete event ends before it begins (Perfetto drops it)" },
	[FXT_RULE_COUNTER_VALUE] = { "counter-value", FXT_WARNING,
		"a counter event without a numeric argument, or with a non-numeric one (Perfetto ignores it)" },
	[FXT_RULE_KOID_TRUNCATED] = { "koid-truncated", FXT_WARNING,
		"a process or thread koid above 2^32-1 (Perfetto truncates pids and tids to 32 bits)" },
	[FXT_RULE_KOBJ_THREAD_PROCESS] = { "kobj-thread-process", FXT_WARNING,
		"a thread kernel object without a koid argument \"process\" (Perfetto cannot place the thread, or drops the record)" },
	[FXT_RULE_SCHED_WEIGHT] = { "sched-weight", FXT_WARNING,
		"a context switch without int32 incoming_weight and outgoing_weight (Perfetto cannot tell idle threads), or a weight that is not int32 (Perfetto drops the record)" },
	[FXT_RULE_SCHED_ORDER] = { "sched-order", FXT_WARNING,
		"a scheduling record older than the previous one on its CPU" },
	[FXT_RULE_SCHED_CPU] = { "sched-cpu", FXT_WARNING,
		"a scheduling record on CPU 4096 or above (Perfetto's trace processor aborts the whole import)" },
	[FXT_RULE_ASYNC_NAME] = { "async-name", FXT_WARNING,
		"an async instant or end whose category or name differs from its innermost open begin's (Perfetto ends only a slice of the end's category and name)" },
	[FXT_RULE_LARGE_PERFETTO] = { "large-perfetto", FXT_WARNING,
		"a large record of 4096 words or more (Perfetto mis-frames it and loses the rest of the trace)" },
	[FXT_RULE_PERFETTO_UNSUPPORTED] = { "perfetto-unsupported", FXT_NOTE,
		"a record or argument type Perfetto ignores (reported once per kind)" },
	[FXT_RULE_DURATION_UNMATCHED_END] = { "duration-unmatched-end", FXT_NOTE,
		"a duration end with no open begin on its thread" },
	[FXT_RULE_DURATION_UNENDED] = { "duration-unended", FXT_NOTE,
		"duration begins not ended at the thread's exit or at the end of the trace" },
	[FXT_RULE_ASYNC_UNMATCHED_END] = { "async-unmatched-end", FXT_NOTE,
		"an async end with no begin of its id in its process" },
	[FXT_RULE_ASYNC_UNENDED] = { "async-unended", FXT_NOTE,
		"async begins not ended at the end of the trace" },
	[FXT_RULE_NOT_CHECKED] = { "not-checked", FXT_WARNING,
		"a record larger than the reader's window was skipped unchecked" },
	[FXT_RULE_BLOB_PERFETTO] = { "blob-perfetto", FXT_WARNING,
		"a blob of type 3: Perfetto parses it as protobuf packets, and one it cannot parse fails the import of the whole file" },
	[FXT_RULE_TIMESTAMP_WINDOW] = { "timestamp-window", FXT_WARNING,
		"a timestamp outside the session's window the file declares (Perfetto's trace bounds would stretch to it)" },
	[FXT_RULE_FLOW_NO_SLICE] = { "flow-no-enclosing-slice", FXT_WARNING,
		"a flow event on a thread with no slice open: Perfetto drops it (stat flow_no_enclosing_slice)" },
	[FXT_RULE_FLOW_DUPLICATE] = { "flow-duplicate-id", FXT_WARNING,
		"a flow begin whose correlation id a flow begun and not ended already holds: Perfetto drops it (stat flow_duplicate_id)" },
	[FXT_RULE_MISPLACED_END] = { "misplaced-end", FXT_WARNING,
		"an event of an async id after the end of an outer begin, or of a thread after the end of a slice, that has begins still open inside it: Perfetto cuts them at that end (stat misplaced_end_event)" },
	[FXT_RULE_COMPLETE_OVERLAP] = { "complete-overlap", FXT_WARNING,
		"a complete event that partly overlaps a slice open on its thread: Perfetto drops it (stat slice_drop_overlapping_complete_event)" },
	[FXT_RULE_TIME_ORDER] = { "time-order", FXT_NOTE,
		"an event of a thread, of a flow id begun and not ended or of an async id with a begin open, older than its previous one in the file: Perfetto nests events in time order, the checks here in file order (reported once)" },
};

const char *fxt_severity_name(enum fxt_severity severity)
{
	switch (severity) {
	case FXT_NOTE:
		return "note";
	case FXT_WARNING:
		return "warning";
	default:
		return "error";
	}
}

void fxt_report(struct fxt_sink *sink, uint64_t offset, enum fxt_rule_id rule,
		const char *fmt, ...)
{
	const struct fxt_rule *r = &fxt_rules[rule];
	struct fxt_diag diag;
	char message[512], *c;
	va_list ap;

	sink->counts[r->severity]++;
	if (!sink->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	/*
	 * A message may quote the trace's strings (an event's name), and is
	 * printed on a terminal: none of their control bytes (an escape
	 * sequence) goes through, nor a C1 control (U+0080..U+009F in UTF-8).
	 */
	for (c = message; *c; c++) {
		unsigned char b = (unsigned char)*c, next = (unsigned char)c[1];

		if (b == 0xc2 && next >= 0x80 && next <= 0x9f) {
			*c++ = '?';
			*c = '?';
		} else if (b < 0x20 || b == 0x7f) {
			*c = '?';
		}
	}
	diag.offset = offset;
	diag.rule = rule;
	diag.severity = r->severity;
	diag.rule_name = r->name;
	diag.message = message;
	sink->fn(sink->ctx, &diag);
}

/* ---- helpers ------------------------------------------------------------- */

/* No byte of s[0..len) has its top bit set (len >= 8). */
static bool ascii_words(const unsigned char *s, size_t len)
{
	uint64_t w, any = 0;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, sizeof(w));
		any |= w;
	}
	/* The tail as the last 8 bytes, overlapping. */
	memcpy(&w, s + len - 8, sizeof(w));
	return !((any | w) & 0x8080808080808080ULL);
}

bool fxt_utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	uint32_t cp;

	/* Names are ASCII: most strings are done here. */
	if (len >= 8 && ascii_words(s, len))
		return true;
	while (i < len) {
		unsigned char c = s[i];
		uint64_t w;

		/* Names are ASCII: skip 8 bytes at a time while they are. */
		if (len - i >= 8) {
			memcpy(&w, s + i, sizeof(w));
			if (!(w & 0x8080808080808080ULL)) {
				i += 8;
				continue;
			}
		}
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
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

size_t fxt_utf8_sequence(const unsigned char *s, size_t len)
{
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* fxt_utf8_valid() knows overlongs, surrogates and the upper bound. */
	return n <= len && fxt_utf8_valid(s, n) ? n : 0;
}

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL64(v[1], 13) ^ v[0];
	v[0] = ROTL64(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL64(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = ROTL64(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = ROTL64(v[1], 17) ^ v[2];
	v[2] = ROTL64(v[2], 32);
}

/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012, https://www.aumasson.jp/siphash/siphash.pdf) of len bytes at p
 * with the 16-byte key.
 */
uint64_t fxt_siphash24(const unsigned char key[16], const void *p,
		       size_t len)
{
	const unsigned char *in = p;
	uint64_t k0, k1, m, v[4];
	size_t i, tail = len & 7;
	int r;

	memcpy(&k0, key, 8);
	memcpy(&k1, key + 8, 8);
	k0 = le64toh(k0);
	k1 = le64toh(k1);
	v[0] = k0 ^ 0x736f6d6570736575ULL;
	v[1] = k1 ^ 0x646f72616e646f6dULL;
	v[2] = k0 ^ 0x6c7967656e657261ULL;
	v[3] = k1 ^ 0x7465646279746573ULL;
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, in + i, 8);
		m = le64toh(m);
		v[3] ^= m;
		sip_round(v);
		sip_round(v);
		v[0] ^= m;
	}
	m = (uint64_t)len << 56;
	while (tail--)
		m |= (uint64_t)in[i + tail] << (8 * tail);
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
	v[2] ^= 0xff;
	for (r = 0; r < 4; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t fxt_string_hash_keyed(const struct fxt_string *s)
{
	/* The 16 random bytes the kernel gives every process. */
	static const unsigned char no_key[16];
	const unsigned char *key =
		(const unsigned char *)getauxval(AT_RANDOM);

	return fxt_siphash24(key ? key : no_key, s->ptr ? s->ptr : "",
			     s->ptr ? s->len : 0);
}

/*
 * The name hashed with a key made of the category's keyed hash: without
 * the process's key, the category's hash is unknown, so no writer can
 * choose two pairs of one hash either.
 */
uint64_t fxt_category_name_hash_keyed(const struct fxt_string *category,
				      const struct fxt_string *name)
{
	uint64_t h = fxt_string_hash_keyed(category);
	unsigned char key[16];

	memcpy(key, &h, sizeof(h));
	memcpy(key + sizeof(h), &h, sizeof(h));
	return fxt_siphash24(key, name->ptr ? name->ptr : "",
			     name->ptr ? name->len : 0);
}

bool fxt_ticks_to_ns(uint64_t ticks, uint64_t ticks_per_second, int64_t *ns)
{
	unsigned __int128 v;

	if (!ticks_per_second)
		return false;
	v = ticks;
	if (ticks_per_second != FXT_TICKS_PER_SECOND_DEFAULT)
		v = v * FXT_TICKS_PER_SECOND_DEFAULT / ticks_per_second;
	if (v > INT64_MAX)
		return false;
	*ns = (int64_t)v;
	return true;
}

bool fxt_string_is(const struct fxt_string *s, const char *c)
{
	size_t n = strlen(c);

	return s->ptr && s->len == n && !memcmp(s->ptr, c, n);
}

bool fxt_arg_number(const struct fxt_arg *arg, double *value)
{
	switch (arg->type) {
	case FXT_ARG_INT32:
	case FXT_ARG_INT64:
		*value = (double)arg->value.i64;
		return true;
	case FXT_ARG_UINT32:
	case FXT_ARG_UINT64:
		*value = (double)arg->value.u64;
		return true;
	case FXT_ARG_DOUBLE:
		*value = arg->value.f64;
		return true;
	default:
		return false;
	}
}

const char *fxt_record_type_name(uint32_t type)
{
	static const char *const names[16] = {
		[FXT_REC_METADATA] = "metadata", [FXT_REC_INIT] = "init",
		[FXT_REC_STRING] = "string", [FXT_REC_THREAD] = "thread",
		[FXT_REC_EVENT] = "event", [FXT_REC_BLOB] = "blob",
		[FXT_REC_USEROBJ] = "userspace object",
		[FXT_REC_KOBJ] = "kernel object", [FXT_REC_SCHED] = "scheduling",
		[FXT_REC_LOG] = "log", [FXT_REC_LARGE] = "large",
	};

	return type < 16 && names[type] ? names[type] : "unknown";
}

const char *fxt_event_type_name(uint32_t type)
{
	static const char *const names[FXT_EVENT_TYPE_COUNT] = {
		"instant", "counter", "duration begin", "duration end",
		"duration complete", "async begin", "async instant",
		"async end", "flow begin", "flow step", "flow end",
	};

	return type < FXT_EVENT_TYPE_COUNT ? names[type] : "unknown";
}

const char *fxt_arg_type_name(uint32_t type)
{
	static const char *const names[FXT_ARG_TYPE_COUNT] = {
		"null", "int32", "uint32", "int64", "uint64", "double",
		"string", "pointer", "koid", "bool", "blob",
	};

	return type < FXT_ARG_TYPE_COUNT ? names[type] : "unknown";
}

const char *fxt_thread_state_name(uint32_t state)
{
	static const char *const names[] = {
		"new", "running", "suspended", "blocked", "dying", "dead",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] :
							   "unknown";
}

/* ---- tables -------------------------------------------------------------- */

/*
 * An entry holds what a ref to it resolves to, ready to copy: undefined
 * entries say so (ref set), a string not kept has no ptr.
 */
struct table_string {
	struct fxt_string str;
	char *bytes;		/* owned; NULL when not kept (or empty) */
};

/*
 * Every string and thread ref is looked up in the tables, several times per
 * record: flat arrays indexed by the ref, not a hash map.  Strings come in
 * blocks allocated when a string of theirs is first defined, so memory still
 * grows only with what the input defines.
 */
#define STRING_BLOCK		256
/* What a block costs the string budget: it is memory the strings cost. */
#define STRING_BLOCK_BYTES	(STRING_BLOCK * sizeof(struct table_string))
#define STRING_BLOCKS		((FXT_STRING_INDEX_MAX + 1) / STRING_BLOCK)
#define THREADS			256
#define THREAD_TABLE_BYTES	(THREADS * sizeof(struct fxt_thread))

struct fxt_tables {
	uint32_t provider_id;
	uint64_t ticks_per_second;
	size_t max_string_bytes;	/* 0: no bound */
	size_t string_bytes;		/* bytes kept now, with their blocks */
	struct table_string *strings[STRING_BLOCKS];	/* by index / STRING_BLOCK */
	struct fxt_thread *threads;	/* THREADS, by index; NULL until one */
	/* A reader's memory: what the tables hold counts there too. */
	struct fxt_memory *memory;
};

static struct fxt_tables *tables_new(uint32_t provider_id,
				     size_t max_string_bytes,
				     struct fxt_memory *memory, int *err)
{
	struct fxt_tables *t;

	*err = fxt_memory_charge(memory, sizeof(*t));
	if (*err)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		fxt_memory_release(memory, sizeof(*t));
		*err = -ENOMEM;
		return NULL;
	}
	t->provider_id = provider_id;
	t->max_string_bytes = max_string_bytes;
	t->ticks_per_second = FXT_TICKS_PER_SECOND_DEFAULT;
	t->memory = memory;
	return t;
}

struct fxt_tables *fxt_tables_new(uint32_t provider_id, size_t max_string_bytes)
{
	int err;

	return tables_new(provider_id, max_string_bytes, NULL, &err);
}

struct fxt_tables *fxt_tables_new_counted(uint32_t provider_id,
					  struct fxt_memory *memory, int *err)
{
	return tables_new(provider_id, 0, memory, err);
}

void fxt_tables_clear(struct fxt_tables *t)
{
	unsigned int b, i;

	for (b = 0; b < STRING_BLOCKS; b++) {
		if (!t->strings[b])
			continue;
		for (i = 0; i < STRING_BLOCK; i++)
			free(t->strings[b][i].bytes);
		free(t->strings[b]);
		t->strings[b] = NULL;
	}
	fxt_memory_release(t->memory, t->string_bytes +
			   (t->threads ? THREAD_TABLE_BYTES : 0));
	free(t->threads);
	t->threads = NULL;
	t->string_bytes = 0;
	t->ticks_per_second = FXT_TICKS_PER_SECOND_DEFAULT;
}

void fxt_tables_free(struct fxt_tables *t)
{
	if (!t)
		return;
	fxt_tables_clear(t);
	fxt_memory_release(t->memory, sizeof(*t));
	free(t);
}

uint32_t fxt_tables_provider_id(const struct fxt_tables *t)
{
	return t->provider_id;
}

uint64_t fxt_tables_ticks_per_second(const struct fxt_tables *t)
{
	return t->ticks_per_second;
}

/* The entry of a defined string index, or NULL. */
static const struct table_string *string_entry(const struct fxt_tables *t,
					       uint16_t index)
{
	const struct table_string *block;

	if (index > FXT_STRING_INDEX_MAX)
		return NULL;
	block = t->strings[index / STRING_BLOCK];
	if (!block || block[index % STRING_BLOCK].str.undefined)
		return NULL;
	return &block[index % STRING_BLOCK];
}

/*
 * fxt_tables_string() of an index <= FXT_STRING_INDEX_MAX, inline for the
 * decoder: refs are on every record.
 */
static inline int table_string(const struct fxt_tables *t, uint16_t index,
			       struct fxt_string *out)
{
	const struct table_string *block = t->strings[index / STRING_BLOCK];

	if (!block) {
		*out = (struct fxt_string){ .ref = index, .undefined = true };
		return -ENOENT;
	}
	*out = block[index % STRING_BLOCK].str;
	/* Tested in the table, not in the copy just stored. */
	return block[index % STRING_BLOCK].str.undefined ? -ENOENT : 0;
}

int fxt_tables_string(const struct fxt_tables *t, uint16_t index,
		      struct fxt_string *out)
{
	if (index > FXT_STRING_INDEX_MAX) {
		*out = (struct fxt_string){ .ref = index, .undefined = true };
		return -ENOENT;
	}
	return table_string(t, index, out);
}

/* fxt_tables_thread(), inline for the decoder. */
static inline int table_thread(const struct fxt_tables *t, uint8_t index,
			       struct fxt_thread *out)
{
	if (!t->threads) {
		*out = (struct fxt_thread){ .ref = index, .undefined = true };
		return -ENOENT;
	}
	*out = t->threads[index];
	return t->threads[index].undefined ? -ENOENT : 0;
}

int fxt_tables_thread(const struct fxt_tables *t, uint8_t index,
		      struct fxt_thread *out)
{
	return table_thread(t, index, out);
}

size_t fxt_tables_string_bytes(const struct fxt_tables *t)
{
	return t->string_bytes;
}

size_t fxt_tables_string_bytes_with(const struct fxt_tables *t,
				    uint16_t index, uint32_t len)
{
	const struct table_string *s = string_entry(t, index);
	size_t bytes = t->string_bytes - (s && s->str.ptr ? s->str.len : 0);

	if (!t->strings[index / STRING_BLOCK])
		bytes += STRING_BLOCK_BYTES;
	return bytes + len;
}

bool fxt_tables_string_fits(const struct fxt_tables *t, uint16_t index,
			    uint32_t len)
{
	return !t->max_string_bytes ||
	       fxt_tables_string_bytes_with(t, index, len) <=
	       t->max_string_bytes;
}

static int define_string(struct fxt_tables *t, const struct fxt_record *rec,
			  struct fxt_sink *sink)
{
	struct table_string **block = &t->strings[rec->id / STRING_BLOCK];
	struct table_string *s;
	uint32_t len = rec->name.len, i;
	const char *ptr = "";
	char *bytes = NULL;
	int ret;

	if (!*block) {
		ret = fxt_memory_charge(t->memory, STRING_BLOCK_BYTES);
		if (ret)
			return ret;
		*block = malloc(STRING_BLOCK_BYTES);
		if (!*block) {
			fxt_memory_release(t->memory, STRING_BLOCK_BYTES);
			return -ENOMEM;
		}
		/*
		 * Counted, so that one short string in each block (8 bytes of
		 * input for 6 KiB) cannot hold memory past the budget.
		 */
		t->string_bytes += STRING_BLOCK_BYTES;
		for (i = 0; i < STRING_BLOCK; i++)
			(*block)[i] = (struct table_string){
				.str.ref = rec->id / STRING_BLOCK * STRING_BLOCK + i,
				.str.undefined = true,
			};
	}
	s = &(*block)[rec->id % STRING_BLOCK];
	if (!s->str.undefined) {
		/* Redefinition: the new string replaces the old one. */
		t->string_bytes -= s->str.ptr ? s->str.len : 0;
		fxt_memory_release(t->memory, s->str.ptr ? s->str.len : 0);
		free(s->bytes);
		s->bytes = NULL;
		s->str.ptr = NULL;
		s->str.len = 0;
		s->str.undefined = true;
	}
	if (t->max_string_bytes && t->string_bytes + len > t->max_string_bytes) {
		ptr = NULL;
		fxt_report(sink, rec->offset, FXT_RULE_STRING_NOT_KEPT,
			   "string %llu (%u bytes) is defined, but the reader keeps at most %zu string bytes per provider",
			   (unsigned long long)rec->id, len, t->max_string_bytes);
	} else if (len) {
		ret = fxt_memory_charge(t->memory, len);
		if (ret)
			return ret;
		bytes = malloc(len);
		if (!bytes) {
			fxt_memory_release(t->memory, len);
			return -ENOMEM;
		}
		memcpy(bytes, rec->name.ptr, len);
		ptr = bytes;
	}
	s->bytes = bytes;
	s->str.ptr = ptr;
	s->str.len = len;
	s->str.undefined = false;
	t->string_bytes += ptr ? len : 0;
	return 0;
}

int fxt_tables_apply(struct fxt_tables *t, const struct fxt_record *rec,
		     struct fxt_sink *sink)
{
	struct fxt_thread *th;
	unsigned int i;

	if (!rec->complete)
		return 0;
	switch (rec->type) {
	case FXT_REC_INIT:
		if (rec->value)
			t->ticks_per_second = rec->value;
		return 0;
	case FXT_REC_STRING:
		return rec->id ? define_string(t, rec, sink) : 0;
	case FXT_REC_THREAD:
		if (!rec->id)
			return 0;
		if (!t->threads) {
			if (fxt_memory_charge(t->memory, THREAD_TABLE_BYTES))
				return -ENOBUFS;
			t->threads = malloc(THREAD_TABLE_BYTES);
			if (!t->threads) {
				fxt_memory_release(t->memory, THREAD_TABLE_BYTES);
				return -ENOMEM;
			}
			for (i = 0; i < THREADS; i++)
				t->threads[i] = (struct fxt_thread){
					.ref = i, .undefined = true,
				};
		}
		th = &t->threads[rec->id];
		th->undefined = false;
		th->pid = rec->thread.pid;
		th->tid = rec->thread.tid;
		return 0;
	default:
		return 0;
	}
}

/* ---- the record cursor --------------------------------------------------- */

struct dec {
	const struct fxt_tables *t;
	const unsigned char *base;	/* the record's first byte */
	uint64_t offset;		/* its stream offset */
	uint64_t pos;			/* next word to read */
	uint64_t limit;			/* end of the record or argument */
	uint64_t hdr;			/* word index of the current header */
	unsigned int arg;		/* 1-based argument being read, or 0 */
	unsigned int nargs;
	bool short_;			/* the record or argument ran out */
	bool unknown_layout;		/* a type whose layout is undefined */
	struct fxt_record *rec;
	struct fxt_sink *sink;
};

static uint64_t word_at(const struct dec *d, uint64_t i)
{
	uint64_t w;

	memcpy(&w, d->base + 8 * i, sizeof(w));
	return le64toh(w);
}

__attribute__((format(printf, 4, 5)))
static void dreport(struct dec *d, uint64_t word, enum fxt_rule_id rule,
		    const char *fmt, ...)
{
	char message[400];
	va_list ap;

	if (fxt_rules[rule].severity == FXT_ERROR)
		d->rec->valid = false;
	if (!d->sink->fn) {
		d->sink->counts[fxt_rules[rule].severity]++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	fxt_report(d->sink, d->offset + 8 * word, rule, "%s", message);
}

static const char *rec_name(const struct dec *d)
{
	return fxt_record_type_name(d->rec->type);
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The record or argument ends before `what`: report it once. */
static void ran_out(struct dec *d, const char *what)
{
	uint64_t size = d->limit - d->hdr;

	if (d->short_)
		return;
	d->short_ = true;
	if (d->arg)
		dreport(d, d->hdr, FXT_RULE_ARG_SIZE,
			"argument %u of %u (%llu word%s) ends inside its %s",
			d->arg, d->nargs, (unsigned long long)size,
			plural(size), what);
	else
		dreport(d, 0, FXT_RULE_RECORD_OVERFLOW,
			"%s record of %llu word%s ends inside its %s",
			rec_name(d), (unsigned long long)size, plural(size),
			what);
}

static inline bool take(struct dec *d, uint64_t *w, const char *what)
{
	if (d->short_)
		return false;
	if (d->pos >= d->limit) {
		ran_out(d, what);
		return false;
	}
	*w = word_at(d, d->pos++);
	return true;
}

/* A stream of len bytes padded to a word; checks that the padding is 0. */
static inline bool take_stream(struct dec *d, uint64_t len,
			       const unsigned char **ptr, const char *what)
{
	uint64_t words = len / 8 + (len % 8 != 0), last;

	if (d->short_)
		return false;
	if (words > d->limit - d->pos) {
		ran_out(d, what);
		return false;
	}
	*ptr = d->base + 8 * d->pos;
	if (len % 8) {
		last = d->pos + words - 1;
		if (word_at(d, last) >> (8 * (len % 8)))
			dreport(d, last, FXT_RULE_PADDING,
				"the padding after the %llu byte%s of the %s is not 0",
				(unsigned long long)len, plural(len), what);
	}
	d->pos += words;
	return true;
}

static void reserved_set(struct dec *d, uint64_t word, uint64_t value,
			 unsigned int lo, unsigned int hi, uint64_t bits);

/*
 * Bits [lo..hi] of the header word at `word` must be 0: the record's header
 * (word 0), a large blob's format header (word 1), or the header of the
 * argument being read.  Inline, so that the mask is a constant; the message
 * is only formatted on failure.
 */
static inline __attribute__((always_inline)) void
reserved(struct dec *d, uint64_t word, uint64_t value, unsigned int lo,
	 unsigned int hi)
{
	uint64_t bits = fxt_bits(value, lo, hi);

	if (bits)
		reserved_set(d, word, value, lo, hi, bits);
}

static void reserved_set(struct dec *d, uint64_t word, uint64_t value,
			 unsigned int lo, unsigned int hi, uint64_t bits)
{
	if (d->arg)
		dreport(d, word, FXT_RULE_RESERVED_BITS,
			"argument %u (%s): bits [%u..%u] must be 0, are %#llx",
			d->arg, fxt_arg_type_name(value & 15), lo, hi,
			(unsigned long long)bits);
	else
		dreport(d, word, FXT_RULE_RESERVED_BITS,
			"%s record %s: bits [%u..%u] must be 0, are %#llx",
			rec_name(d), word ? "format header" : "header", lo, hi,
			(unsigned long long)bits);
}

static inline __attribute__((always_inline)) void
rec_reserved(struct dec *d, unsigned int lo, unsigned int hi)
{
	reserved(d, 0, d->rec->header, lo, hi);
}

static void check_utf8(struct dec *d, uint64_t word, const struct fxt_string *s,
		       const char *what)
{
	if (s->ptr && !fxt_utf8_valid((const unsigned char *)s->ptr, s->len))
		dreport(d, word, FXT_RULE_UTF8, "the %s is not valid UTF-8",
			what);
}

/* A stream of len bytes as a string. */
/*
 * No byte of the stream p[0..len) has its top bit set.  It reads the
 * stream's whole words (take_stream() framed them), the last one masked
 * to the stream's bytes: no call, no loop per byte, for the ASCII names
 * most strings are.
 */
static inline bool stream_ascii(const unsigned char *p, uint32_t len)
{
	uint64_t any = 0, w;
	uint32_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, sizeof(w));
		any |= w;
	}
	if (len % 8) {
		memcpy(&w, p + i, sizeof(w));
		any |= le64toh(w) & ((1ULL << 8 * (len % 8)) - 1);
	}
	return !(any & 0x8080808080808080ULL);
}

static bool take_string(struct dec *d, uint32_t len, struct fxt_string *s,
			const char *what)
{
	const unsigned char *p;
	uint64_t start = d->pos;

	if (!take_stream(d, len, &p, what))
		return false;
	s->ptr = (const char *)p;
	s->len = len;
	if (!stream_ascii(p, len))
		check_utf8(d, start, s, what);
	return true;
}

/* Inline: up to four refs per event, most of them table lookups. */
static inline __attribute__((always_inline)) bool
string_ref(struct dec *d, uint16_t ref, struct fxt_string *s, const char *what)
{
	if (ref == FXT_STRING_REF_EMPTY) {
		*s = (struct fxt_string){ .ptr = "", .ref = ref };
		return true;
	}
	if (ref & FXT_STRING_REF_INLINE) {
		*s = (struct fxt_string){ .ref = ref };
		return take_string(d, ref & FXT_STRING_INDEX_MAX, s, what);
	}
	if (table_string(d->t, ref, s))
		dreport(d, d->hdr, FXT_RULE_STRING_UNDEFINED,
			"the %s refers to string %u, which provider %u has not defined",
			what, ref, d->t->provider_id);
	return true;
}

static inline void check_koid(struct dec *d, uint64_t word, uint64_t koid,
		       const char *what)
{
	if (koid > UINT32_MAX)
		dreport(d, word, FXT_RULE_KOID_TRUNCATED,
			"%s %#llx does not fit 32 bits; Perfetto truncates it",
			what, (unsigned long long)koid);
}

static inline bool take_koid(struct dec *d, uint64_t *koid, const char *what)
{
	if (!take(d, koid, what))
		return false;
	check_koid(d, d->pos - 1, *koid, what);
	return true;
}

static inline __attribute__((always_inline)) bool
thread_ref(struct dec *d, uint8_t ref, struct fxt_thread *th, const char *what)
{
	if (ref == FXT_THREAD_REF_INLINE) {
		*th = (struct fxt_thread){ .ref = ref };
		return take_koid(d, &th->pid, "process koid") &&
		       take_koid(d, &th->tid, "thread koid");
	}
	if (table_thread(d->t, ref, th))
		dreport(d, d->hdr, FXT_RULE_THREAD_UNDEFINED,
			"the %s refers to thread %u, which provider %u has not defined",
			what, ref, d->t->provider_id);
	return true;
}

static inline bool take_ts(struct dec *d, uint64_t *ts, int64_t *ns,
			   bool *ns_valid, const char *what)
{
	if (!take(d, ts, what))
		return false;
	/* Nanosecond ticks (fxtrace's) need no conversion. */
	if (d->t->ticks_per_second == FXT_TICKS_PER_SECOND_DEFAULT) {
		*ns_valid = *ts <= INT64_MAX;
		*ns = (int64_t)*ts;
	} else {
		*ns_valid = fxt_ticks_to_ns(*ts, d->t->ticks_per_second, ns);
	}
	if (!*ns_valid)
		dreport(d, d->pos - 1, FXT_RULE_TIMESTAMP_OVERFLOW,
			"%s %llu at %llu ticks/s overflows int64 nanoseconds; Perfetto drops the record",
			what, (unsigned long long)*ts,
			(unsigned long long)d->t->ticks_per_second);
	return true;
}

static inline bool take_record_ts(struct dec *d)
{
	struct fxt_record *rec = d->rec;

	rec->has_ts = take_ts(d, &rec->ts, &rec->ts_ns, &rec->ts_ns_valid,
			      "timestamp");
	return rec->has_ts;
}

/* ---- arguments ----------------------------------------------------------- */

static void decode_arg_value(struct dec *d, struct fxt_arg *a, uint64_t h)
{
	uint64_t w;

	switch (a->type) {
	case FXT_ARG_NULL:
		reserved(d, d->hdr, h, 32, 63);
		break;
	case FXT_ARG_INT32:
		a->value.i64 = (int32_t)(uint32_t)fxt_bits(h, 32, 63);
		break;
	case FXT_ARG_UINT32:
		a->value.u64 = fxt_bits(h, 32, 63);
		break;
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_DOUBLE:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		reserved(d, d->hdr, h, 32, 63);
		if (!take(d, &w, "value"))
			break;
		a->value.u64 = w;
		if (a->type == FXT_ARG_DOUBLE)
			memcpy(&a->value.f64, &w, sizeof(w));
		break;
	case FXT_ARG_STRING:
		reserved(d, d->hdr, h, 48, 63);
		string_ref(d, fxt_bits(h, 32, 47), &a->value.str,
			   "string value");
		break;
	case FXT_ARG_BOOL:
		reserved(d, d->hdr, h, 33, 63);
		a->value.b = fxt_bits(h, 32, 32);
		break;
	case FXT_ARG_BLOB:
		d->rec->blob_args = true;
		a->value.blob.len = fxt_bits(h, 32, 63);
		take_stream(d, a->value.blob.len, &a->value.blob.ptr,
			    "blob payload");
		break;
	default:
		dreport(d, d->hdr, FXT_RULE_ARG_TYPE,
			"argument %u of %u has type %u, which is not an argument type",
			d->arg, d->nargs, a->type);
		d->unknown_layout = true;
		break;
	}
}

/* Argument i of nargs at word start, of `words` words, cannot be framed. */
static __attribute__((noinline)) bool
arg_unframed(struct dec *d, unsigned int i, unsigned int nargs,
	     uint64_t start, uint32_t words, uint64_t record_limit)
{
	if (!words)
		dreport(d, start, FXT_RULE_ARG_SIZE_ZERO,
			"argument %u of %u has size 0", i + 1, nargs);
	else
		dreport(d, start, FXT_RULE_ARG_OVERFLOW,
			"argument %u of %u (%u words) runs past the end of the %s record (%llu word%s left)",
			i + 1, nargs, words, rec_name(d),
			(unsigned long long)(record_limit - start),
			plural(record_limit - start));
	d->unknown_layout = true;
	return false;
}

static __attribute__((noinline)) void
arg_extension(struct dec *d, unsigned int i, unsigned int nargs)
{
	dreport(d, d->pos, FXT_RULE_ARG_EXTENSION,
		"argument %u of %u has %llu word%s after its value", i + 1,
		nargs, (unsigned long long)(d->limit - d->pos),
		plural(d->limit - d->pos));
}

/*
 * nargs arguments from d->pos.  Returns false when they cannot be framed
 * (the rest of the record is then unknown).  The reports are out of line:
 * this loop runs for every argument.
 */
static bool decode_args(struct dec *d, unsigned int nargs)
{
	struct fxt_record *rec = d->rec;
	uint64_t record_limit = d->limit, start, h;
	unsigned int i;
	uint32_t words;

	d->nargs = nargs;
	for (i = 0; i < nargs; i++) {
		struct fxt_arg *a = &rec->args[i];

		start = d->pos;
		memset(a, 0, sizeof(*a));
		if (start >= record_limit) {
			ran_out(d, "arguments");
			return false;
		}
		h = word_at(d, start);
		rec->nargs = i + 1;
		words = fxt_bits(h, 4, 15);
		a->offset = d->offset + 8 * start;
		a->type = fxt_bits(h, 0, 3);
		a->words = words;
		if (!words || words > record_limit - start)
			return arg_unframed(d, i, nargs, start, words,
					    record_limit);
		/* Read the argument inside its own size. */
		d->hdr = start;
		d->arg = i + 1;
		d->pos = start + 1;
		d->limit = start + words;
		d->unknown_layout = false;
		string_ref(d, fxt_bits(h, 16, 31), &a->name, "argument name");
		if (!d->short_) {
			decode_arg_value(d, a, h);
			if (!d->short_ && !d->unknown_layout &&
			    d->pos < d->limit)
				arg_extension(d, i, nargs);
		}
		d->short_ = false;
		d->unknown_layout = false;
		d->hdr = 0;
		d->arg = 0;
		d->pos = start + words;
		d->limit = record_limit;
	}
	return true;
}

/* The argument named by the string literal name, or NULL. */
#define find_arg(rec, name) find_arg_len(rec, name, sizeof(name) - 1)

/* Inline, so that len is a constant and the compare two loads. */
static inline __attribute__((always_inline)) const struct fxt_arg *
find_arg_len(const struct fxt_record *rec, const char *name, size_t len)
{
	uint32_t i;

	/* Lengths first: most names differ in length from the one sought. */
	for (i = 0; i < rec->nargs; i++)
		if (rec->args[i].name.ptr && rec->args[i].name.len == len &&
		    fxt_same_bytes(rec->args[i].name.ptr, name, len))
			return &rec->args[i];
	return NULL;
}

/* ---- records ------------------------------------------------------------- */

static void decode_metadata(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;

	rec->subtype = fxt_bits(h, 16, 19);
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		rec->id = fxt_bits(h, 20, 51);
		rec_reserved(d, 60, 63);
		take_string(d, fxt_bits(h, 52, 59), &rec->name, "provider name");
		break;
	case FXT_META_PROVIDER_SECTION:
		rec->id = fxt_bits(h, 20, 51);
		rec_reserved(d, 52, 63);
		break;
	case FXT_META_PROVIDER_EVENT:
		rec->id = fxt_bits(h, 20, 51);
		rec->value = fxt_bits(h, 52, 55);
		rec_reserved(d, 56, 63);
		if (rec->value != FXT_PROVIDER_EVENT_BUFFER_FULL)
			dreport(d, 0, FXT_RULE_PROVIDER_EVENT,
				"provider event %llu of provider %llu is not defined (0 is buffer full)",
				(unsigned long long)rec->value,
				(unsigned long long)rec->id);
		break;
	case FXT_META_TRACE_INFO:
		rec->id = fxt_bits(h, 20, 23);
		if (rec->id != FXT_TRACE_INFO_MAGIC) {
			dreport(d, 0, FXT_RULE_TRACE_INFO_TYPE,
				"trace info type %llu is not defined",
				(unsigned long long)rec->id);
			d->unknown_layout = true;
			break;
		}
		rec->value = fxt_bits(h, 24, 55);
		rec_reserved(d, 56, 63);
		if (rec->value != FXT_MAGIC)
			dreport(d, 0, FXT_RULE_MAGIC,
				"magic number %#llx is not %#llx",
				(unsigned long long)rec->value, FXT_MAGIC);
		if (rec->words != 1) {
			dreport(d, 0, FXT_RULE_MAGIC,
				"magic number record of %llu words; it is exactly 1 word",
				(unsigned long long)rec->words);
			d->unknown_layout = true;
		}
		break;
	default:
		dreport(d, 0, FXT_RULE_METADATA_TYPE,
			"metadata type %u is not defined", rec->subtype);
		d->unknown_layout = true;
		break;
	}
}

static void decode_init(struct dec *d)
{
	struct fxt_record *rec = d->rec;

	rec_reserved(d, 16, 63);
	if (!take(d, &rec->value, "ticks per second"))
		return;
	if (!rec->value)
		dreport(d, 0, FXT_RULE_TICKS_ZERO,
			"initialization record gives 0 ticks per second");
}

static void decode_string(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;

	rec->id = fxt_bits(h, 16, 30);
	rec_reserved(d, 31, 31);
	rec_reserved(d, 47, 63);
	if (!rec->id)
		dreport(d, 0, FXT_RULE_STRING_INDEX_ZERO,
			"string record for index 0, which is never defined");
	take_string(d, fxt_bits(h, 32, 46), &rec->name, "string");
}

static void decode_thread(struct dec *d)
{
	struct fxt_record *rec = d->rec;

	rec->id = fxt_bits(rec->header, 16, 23);
	rec->thread.ref = rec->id;
	rec_reserved(d, 24, 63);
	if (!rec->id)
		dreport(d, 0, FXT_RULE_THREAD_INDEX_ZERO,
			"thread record for index 0, which is never defined");
	if (take_koid(d, &rec->thread.pid, "process koid"))
		take_koid(d, &rec->thread.tid, "thread koid");
}

static void check_counter(struct dec *d)
{
	const struct fxt_record *rec = d->rec;
	uint32_t i;
	double v;

	if (!rec->nargs)
		dreport(d, 0, FXT_RULE_COUNTER_VALUE,
			"counter event has no arguments: no value to show");
	for (i = 0; i < rec->nargs; i++)
		if (!fxt_arg_number(&rec->args[i], &v))
			dreport(d, (rec->args[i].offset - d->offset) / 8,
				FXT_RULE_COUNTER_VALUE,
				"counter argument %u is %s, not a number; Perfetto ignores it",
				i + 1, fxt_arg_type_name(rec->args[i].type));
}

static void decode_event(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header, w;

	rec->subtype = fxt_bits(h, 16, 19);
	if (!take_record_ts(d) ||
	    !thread_ref(d, fxt_bits(h, 24, 31), &rec->thread, "thread") ||
	    !string_ref(d, fxt_bits(h, 32, 47), &rec->category, "category") ||
	    !string_ref(d, fxt_bits(h, 48, 63), &rec->name, "name") ||
	    !decode_args(d, fxt_bits(h, 20, 23)))
		return;
	if (rec->subtype >= FXT_EVENT_TYPE_COUNT) {
		dreport(d, 0, FXT_RULE_EVENT_TYPE,
			"event type %u is not defined", rec->subtype);
		d->unknown_layout = true;
		return;
	}
	switch (rec->subtype) {
	case FXT_EVENT_DURATION_COMPLETE:
		if (!take_ts(d, &rec->end_ts, &rec->end_ts_ns,
			     &rec->end_ts_ns_valid, "end timestamp"))
			return;
		if (rec->end_ts < rec->ts)
			dreport(d, d->pos - 1, FXT_RULE_DURATION_NEGATIVE,
				"duration ends at %llu, before its start at %llu; Perfetto drops it",
				(unsigned long long)rec->end_ts,
				(unsigned long long)rec->ts);
		break;
	case FXT_EVENT_COUNTER:
		if (!take(d, &w, "counter id"))
			return;
		rec->id = w;
		check_counter(d);
		break;
	default:
		if (fxt_event_trailing_words(rec->subtype) &&
		    take(d, &w, "correlation id"))
			rec->id = w;
		break;
	}
}

static void decode_blob(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;

	rec->subtype = fxt_bits(h, 48, 55);
	rec->payload_len = fxt_bits(h, 32, 46);
	rec_reserved(d, 47, 47);
	rec_reserved(d, 56, 63);
	if (rec->subtype < FXT_BLOB_TYPE_DATA ||
	    rec->subtype > FXT_BLOB_TYPE_PERFETTO)
		dreport(d, 0, FXT_RULE_BLOB_TYPE,
			"blob type %u is not defined (1 data, 2 last branch, 3 Perfetto)",
			rec->subtype);
	else if (rec->subtype == FXT_BLOB_TYPE_PERFETTO)
		dreport(d, 0, FXT_RULE_BLOB_PERFETTO,
			"blob of type 3 (Perfetto protobuf): Perfetto fails the whole import if it cannot parse it");
	if (string_ref(d, fxt_bits(h, 16, 31), &rec->name, "blob name"))
		take_stream(d, rec->payload_len, &rec->payload, "blob payload");
}

/* Body of a userspace object after its pointer, for one inline layout. */
static void userobj_body(struct dec *d, unsigned int inline_words)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;

	if (!fxt_bits(h, 16, 23)) {
		rec->thread.ref = 0;
		if (!take_koid(d, &rec->thread.pid, "process koid"))
			return;
		if (inline_words == 2 &&
		    !take_koid(d, &rec->thread.tid, "thread koid"))
			return;
	}
	if (string_ref(d, fxt_bits(h, 24, 39), &rec->name, "name"))
		decode_args(d, fxt_bits(h, 40, 43));
}

/* Decode the rest of a userspace object with a silent sink; 1 if clean. */
static bool userobj_fits(struct dec *d, unsigned int inline_words)
{
	struct fxt_sink silent = { 0 };
	struct fxt_record saved_rec = *d->rec;
	struct dec saved = *d;
	bool fits;

	d->sink = &silent;
	userobj_body(d, inline_words);
	fits = !silent.counts[FXT_ERROR] && !d->short_ &&
	       !d->unknown_layout && d->pos == d->limit;
	*d->rec = saved_rec;
	*d = saved;
	return fits;
}

static void decode_userobj(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;
	uint8_t process = fxt_bits(h, 16, 23);

	rec_reserved(d, 44, 63);
	if (!take(d, &rec->id, "pointer"))
		return;
	if (process) {
		thread_ref(d, process, &rec->thread, "process");
	} else if (!userobj_fits(d, 1) && userobj_fits(d, 2)) {
		/* Inline process: the spec reads one word, Fuchsia's writer two. */
		dreport(d, 0, FXT_RULE_USEROBJ_LAYOUT,
			"the inline process takes two words (process and thread koid), as Fuchsia's writer emits; the spec says one");
		userobj_body(d, 2);
		return;
	}
	userobj_body(d, 1);
}

static void check_thread_object(struct dec *d)
{
	const struct fxt_arg *process = find_arg(d->rec, "process");

	if (!process)
		dreport(d, 0, FXT_RULE_KOBJ_THREAD_PROCESS,
			"thread object %#llx has no koid argument \"process\"; Perfetto cannot attach it to its process",
			(unsigned long long)d->rec->id);
	else if (process->type != FXT_ARG_KOID)
		dreport(d, (process->offset - d->offset) / 8,
			FXT_RULE_KOBJ_THREAD_PROCESS,
			"thread object %#llx: argument \"process\" is %s, not koid; Perfetto drops the record",
			(unsigned long long)d->rec->id,
			fxt_arg_type_name(process->type));
	else
		check_koid(d, (process->offset - d->offset) / 8 + 1,
			   process->value.u64, "process koid");
}

static void decode_kobj(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;

	rec->subtype = fxt_bits(h, 16, 23);
	rec_reserved(d, 44, 63);
	if (!take(d, &rec->id, "koid"))
		return;
	if (rec->subtype == FXT_KOBJ_PROCESS)
		check_koid(d, 1, rec->id, "process koid");
	else if (rec->subtype == FXT_KOBJ_THREAD)
		check_koid(d, 1, rec->id, "thread koid");
	if (!string_ref(d, fxt_bits(h, 24, 39), &rec->name, "name") ||
	    !decode_args(d, fxt_bits(h, 40, 43)))
		return;
	if (rec->subtype == FXT_KOBJ_THREAD)
		check_thread_object(d);
}

static void check_thread_state(struct dec *d)
{
	if (d->rec->out_state > FXT_THREAD_STATE_DEAD)
		dreport(d, 0, FXT_RULE_THREAD_STATE,
			"outgoing thread state %u is not a thread state (0 to 5)",
			d->rec->out_state);
}

/* A weight argument a, when present, must be int32. */
static void check_weight(struct dec *d, const struct fxt_arg *a,
			 const char *name)
{
	if (a && a->type != FXT_ARG_INT32)
		dreport(d, (a->offset - d->offset) / 8, FXT_RULE_SCHED_WEIGHT,
			"argument %s is %s, not int32; Perfetto drops the record",
			name, fxt_arg_type_name(a->type));
}

static void decode_sched(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;
	const struct fxt_arg *in, *out;
	bool has_in, has_out;

	rec->subtype = fxt_bits(h, 60, 63);
	switch (rec->subtype) {
	case FXT_SCHED_LEGACY_CONTEXT_SWITCH:
		rec->cpu = fxt_bits(h, 16, 23);
		rec->out_state = fxt_bits(h, 24, 27);
		rec->out_prio = fxt_bits(h, 44, 51);
		rec->in_prio = fxt_bits(h, 52, 59);
		check_thread_state(d);
		if (take_record_ts(d) &&
		    thread_ref(d, fxt_bits(h, 28, 35), &rec->out,
			       "outgoing thread"))
			thread_ref(d, fxt_bits(h, 36, 43), &rec->in,
				   "incoming thread");
		break;
	case FXT_SCHED_CONTEXT_SWITCH:
		rec->cpu = fxt_bits(h, 20, 35);
		rec->out_state = fxt_bits(h, 36, 39);
		rec_reserved(d, 40, 59);
		check_thread_state(d);
		if (!take_record_ts(d) ||
		    !take_koid(d, &rec->out.tid, "outgoing thread koid") ||
		    !take_koid(d, &rec->in.tid, "incoming thread koid") ||
		    !decode_args(d, fxt_bits(h, 16, 19)))
			break;
		in = find_arg(rec, "incoming_weight");
		out = find_arg(rec, "outgoing_weight");
		has_in = in;
		has_out = out;
		if (!has_in || !has_out)
			dreport(d, 0, FXT_RULE_SCHED_WEIGHT,
				"context switch without int32 argument%s %s%s%s; Perfetto cannot tell idle threads",
				!has_in && !has_out ? "s" : "",
				has_in ? "" : "incoming_weight",
				!has_in && !has_out ? " and " : "",
				has_out ? "" : "outgoing_weight");
		check_weight(d, in, "incoming_weight");
		check_weight(d, out, "outgoing_weight");
		break;
	case FXT_SCHED_WAKEUP:
		rec->cpu = fxt_bits(h, 20, 35);
		rec_reserved(d, 36, 59);
		if (take_record_ts(d) &&
		    take_koid(d, &rec->thread.tid, "woken thread koid") &&
		    decode_args(d, fxt_bits(h, 16, 19)))
			check_weight(d, find_arg(rec, "weight"), "weight");
		break;
	default:
		dreport(d, 0, FXT_RULE_SCHED_TYPE,
			"scheduling record subtype %u is not defined",
			rec->subtype);
		d->unknown_layout = true;
		return;
	}
	/* A PERFETTO_CHECK past it. */
	if (rec->cpu >= FXT_SCHED_CPUS_MAX)
		dreport(d, 0, FXT_RULE_SCHED_CPU,
			"CPU %u: Perfetto's trace processor aborts the import of the whole file on CPU 4096 or above",
			rec->cpu);
}

static void decode_log(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header;

	rec_reserved(d, 31, 31);
	rec_reserved(d, 40, 63);
	if (take_record_ts(d) &&
	    thread_ref(d, fxt_bits(h, 32, 39), &rec->thread, "thread"))
		take_string(d, fxt_bits(h, 16, 30), &rec->name, "message");
}

static void decode_large(struct dec *d)
{
	struct fxt_record *rec = d->rec;
	uint64_t h = rec->header, fh, words = rec->words;

	rec->subtype = fxt_bits(h, 36, 39);
	rec->value = fxt_bits(h, 40, 43);
	rec_reserved(d, 44, 63);
	if (words >= 4096)
		dreport(d, 0, FXT_RULE_LARGE_PERFETTO,
			"large record of %llu words; Perfetto reads its size from bits [4..15] and loses the rest of the trace",
			(unsigned long long)words);
	if (rec->subtype != FXT_LARGE_BLOB) {
		dreport(d, 0, FXT_RULE_LARGE_TYPE,
			"large record type %u is not defined (0 is blob)",
			rec->subtype);
		d->unknown_layout = true;
		return;
	}
	if (rec->value != FXT_LARGE_BLOB_WITH_METADATA &&
	    rec->value != FXT_LARGE_BLOB_ATTACHMENT) {
		dreport(d, 0, FXT_RULE_LARGE_TYPE,
			"large blob format %llu is not defined (0 with metadata, 1 attachment)",
			(unsigned long long)rec->value);
		d->unknown_layout = true;
		return;
	}
	if (!take(d, &fh, "format header"))
		return;
	if (rec->value == FXT_LARGE_BLOB_WITH_METADATA)
		reserved(d, 1, fh, 44, 63);
	else
		reserved(d, 1, fh, 32, 63);
	if (!string_ref(d, fxt_bits(fh, 0, 15), &rec->category, "category") ||
	    !string_ref(d, fxt_bits(fh, 16, 31), &rec->name, "name"))
		return;
	if (rec->value == FXT_LARGE_BLOB_WITH_METADATA &&
	    (!take_record_ts(d) ||
	     !thread_ref(d, fxt_bits(fh, 36, 43), &rec->thread, "thread") ||
	     !decode_args(d, fxt_bits(fh, 32, 35))))
		return;
	if (take(d, &rec->payload_len, "blob size"))
		take_stream(d, rec->payload_len, &rec->payload, "blob payload");
}

/*
 * Zero the fields before the arguments (256 bytes) with vector stores: GCC
 * inlines that memset as `rep stos`, whose start-up took a fifth of
 * `fxtrace check`'s time (perf, Documentation/performance.rst).
 */
static void clear_record(struct fxt_record *rec)
{
	typedef uint64_t block __attribute__((vector_size(16), aligned(1)));
	const size_t size = offsetof(struct fxt_record, args);
	unsigned char *p = (unsigned char *)rec;
	block zero = { 0 };
	size_t i;

	/* Hide that it is zero, or GCC turns the loop back into a memset. */
	__asm__("" : "+x"(zero));
#pragma GCC unroll 32
	for (i = 0; i + sizeof(block) <= size; i += sizeof(block))
		memcpy(p + i, &zero, sizeof(block));
	memset(p + i, 0, size - i);
}

ssize_t fxt_decode_record(const struct fxt_tables *t, const void *buf,
			  size_t avail, uint64_t offset, struct fxt_record *rec,
			  struct fxt_sink *sink, uint64_t *need)
{
	struct dec d = { .t = t, .base = buf, .offset = offset, .rec = rec,
			 .sink = sink };
	uint64_t h;

	if (avail < 8) {
		*need = 8;
		return 0;
	}
	h = word_at(&d, 0);
	clear_record(rec);
	rec->offset = offset;
	rec->bytes = buf;
	rec->header = h;
	rec->type = fxt_bits(h, 0, 3);
	rec->words = rec->type == FXT_REC_LARGE ? fxt_bits(h, 4, 35) :
						  fxt_bits(h, 4, 15);
	rec->valid = true;
	rec->provider_id = t->provider_id;
	rec->ticks_per_second = t->ticks_per_second;
	if (!rec->words) {
		dreport(&d, 0, FXT_RULE_RECORD_SIZE_ZERO,
			"%s record header %#018llx gives size 0; the rest of the input cannot be framed",
			fxt_record_type_name(rec->type), (unsigned long long)h);
		return -1;
	}
	if (rec->words > avail / 8) {
		*need = rec->words * 8;
		return 0;
	}
	d.pos = 1;
	d.limit = rec->words;

	switch (rec->type) {
	case FXT_REC_METADATA:
		decode_metadata(&d);
		break;
	case FXT_REC_INIT:
		decode_init(&d);
		break;
	case FXT_REC_STRING:
		decode_string(&d);
		break;
	case FXT_REC_THREAD:
		decode_thread(&d);
		break;
	case FXT_REC_EVENT:
		decode_event(&d);
		break;
	case FXT_REC_BLOB:
		decode_blob(&d);
		break;
	case FXT_REC_USEROBJ:
		decode_userobj(&d);
		break;
	case FXT_REC_KOBJ:
		decode_kobj(&d);
		break;
	case FXT_REC_SCHED:
		decode_sched(&d);
		break;
	case FXT_REC_LOG:
		decode_log(&d);
		break;
	case FXT_REC_LARGE:
		decode_large(&d);
		break;
	default:
		dreport(&d, 0, FXT_RULE_RECORD_TYPE,
			"record type %u is not assigned", rec->type);
		d.unknown_layout = true;
		break;
	}

	if (d.short_ || d.unknown_layout) {
		rec->content_words = rec->words;
		rec->complete = false;
	} else {
		rec->content_words = d.pos;
		rec->complete = true;
		if (d.pos < rec->words)
			dreport(&d, d.pos, FXT_RULE_RECORD_EXTENSION,
				"%llu word%s after the %s record's content (%llu of %llu words); readers skip them",
				(unsigned long long)(rec->words - d.pos),
				plural(rec->words - d.pos), rec_name(&d),
				(unsigned long long)d.pos,
				(unsigned long long)rec->words);
	}
	return (ssize_t)(rec->words * 8);
}
