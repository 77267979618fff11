// SPDX-License-Identifier: GPL-2.0
/*
 * output_test - fxtrace-drain's data path (output.c) on the host, without
 * the module: buffers laid out in memory as the kernel lays them out
 * (header page, control page, data), filled with what a hostile producer
 * writes, turned into a file the way the drainer does it.  Each test
 * asserts the exact records refused, by reason, and that the file passes
 * the strict check (`fxtrace check --strict`: no error, no warning) inside
 * the session window the drainer declares.
 *
 * `output_test --diff FILE...`: each file as a half, both ways;
 * `output_test --write-inputs DIR`: the first generated inputs and a few
 * scenarios as files, the seeds of fuzz_output.
 *
 * `output_test --bench N`: N honest instants (indexed thread, category,
 * name and argument name, one int64 argument) through output_rest(), for
 * instruction counts per record under `valgrind --tool=callgrind`.
 */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "flush_mark.h"
#include "output_harness.h"
#include "vectors.h"

static struct output out;
static struct file file;

/* A fresh output and file, the session clock at START. */
static void start(void)
{
	struct chunk c;

	output_free(&out);
	output_init(&out, SECOND, START);
	out.verbose = getenv("V") != NULL;
	output_set_now(&out, START + 10 * SECOND);
	file.len = 0;
	if (output_magic(&out, &c))
		exit(1);
	file_add(&file, &c);
	chunk_free(&c);
}

/* A saved half holding n words w, into the file. */
static void drain_half(struct fake *f, __u64 wrap, const __u64 *w, size_t n)
{
	struct fxtctl_span half;
	struct chunk c;

	half.ptr = f->data + f->hdr->durable_size +
		   (wrap & 1) * f->hdr->rolling_size;
	half.len = 8 * n;
	half.wrap = wrap;
	half.durable = false;
	memcpy((unsigned char *)half.ptr, w, half.len);
	if (output_half(&out, &f->b, &half, &c))
		exit(1);
	file_add(&file, &c);
	chunk_free(&c);
}

/* Everything of the buffer not written yet into the file. */
static struct drain_buffer *drain_rest(struct fake *f)
{
	struct drain_buffer *db;
	struct chunk c;

	if (output_rest(&out, &f->b, &c))
		exit(1);
	file_add(&file, &c);
	chunk_free(&c);
	db = output_find(&out, f->b.id);
	if (output_drops(&out, db, &c))
		exit(1);
	file_add(&file, &c);
	chunk_free(&c);
	return db;
}

/* ---- records a producer writes ------------------------------------------ */

/* An event of category cat ("": the empty ref) with inline strings. */
static __u32 event_in(__u64 *w, unsigned int type, __u64 ts, __u64 pid,
		      __u64 tid, const char *cat, const char *name,
		      __u64 trailing)
{
	__u16 cat_ref = *cat ? fxt_inline_string_ref((__u32)strlen(cat)) : 0;
	__u16 name_ref = fxt_inline_string_ref((__u32)strlen(name));
	__u32 words = fxt_event_words(type, FXT_THREAD_REF_INLINE, cat_ref,
				      name_ref, 0);
	__u32 n = 0;

	w[n++] = fxt_event_hdr(words, type, 0, FXT_THREAD_REF_INLINE, cat_ref,
			       name_ref);
	w[n++] = ts;
	w[n++] = pid;
	w[n++] = tid;
	n += fxt_write_stream(w + n, cat, (__u32)strlen(cat));
	n += fxt_write_stream(w + n, name, (__u32)strlen(name));
	if (fxt_event_trailing_words(type))
		w[n++] = trailing;
	return n;
}

static __u32 event(__u64 *w, unsigned int type, __u64 ts, __u64 pid,
		   __u64 tid, const char *name, __u64 trailing)
{
	return event_in(w, type, ts, pid, tid, "", name, trailing);
}

static __u32 blob(__u64 *w, unsigned int blob_type)
{
	w[0] = fxt_field(FXT_REC_BLOB, 0, 3) | fxt_field(2, 4, 15) |
	       fxt_field(8, 32, 46) | fxt_field(blob_type, 48, 55);
	w[1] = 0x3a;		/* not a protobuf Perfetto can parse */
	return 2;
}

/* A large blob of 4 words, empty category and name, 8 payload bytes. */
static __u32 large(__u64 *w, unsigned int format)
{
	__u32 n = 0;

	w[n++] = fxt_field(FXT_REC_LARGE, 0, 3) |
		 fxt_field(format ? 4 : 7, 4, 35) | fxt_field(format, 40, 43);
	w[n++] = 0;		/* format header: refs 0, thread inline */
	if (!format) {
		w[n++] = START + SECOND;
		w[n++] = 1;	/* pid 1, tid 1: somebody else's */
		w[n++] = 1;
	}
	w[n++] = 8;
	w[n++] = 0;
	return n;
}

/* ---- the checks ---------------------------------------------------------- */

struct walk {
	uint64_t kobj_foreign;		/* kernel objects of pids 1, 555 */
	uint64_t events;
	uint64_t async_begins[2];	/* of pids 200 and 300 */
	uint64_t repaired;		/* thread named "\ufffd\ufffdabc" */
	uint64_t asyncs[16][3];		/* the first async events: pid, type, id */
	char async_names[16][8];	/* ... and their names, cut to 7 bytes */
	uint64_t async_ts[16];		/* ... and their times */
	unsigned int nasyncs;
	uint64_t flows[16][3];		/* the first flow events: pid, type, id */
	unsigned int nflows;
};

static int count_record(void *ctx, const struct fxt_record *rec)
{
	struct walk *w = ctx;

	if (rec->type == FXT_REC_KOBJ && (rec->id == 1 || rec->id == 555))
		w->kobj_foreign++;
	if (rec->type == FXT_REC_KOBJ &&
	    fxt_string_is(&rec->name, "\xef\xbf\xbd\xef\xbf\xbd" "abc"))
		w->repaired++;
	if (rec->type == FXT_REC_EVENT && rec->subtype != FXT_EVENT_COUNTER)
		w->events++;
	if (rec->type == FXT_REC_EVENT &&
	    rec->subtype == FXT_EVENT_ASYNC_BEGIN)
		w->async_begins[rec->thread.pid == 300]++;
	if (rec->type == FXT_REC_EVENT &&
	    rec->subtype >= FXT_EVENT_ASYNC_BEGIN &&
	    rec->subtype <= FXT_EVENT_ASYNC_END && w->nasyncs < 16) {
		snprintf(w->async_names[w->nasyncs], sizeof(w->async_names[0]),
			 "%.*s", (int)rec->name.len,
			 rec->name.ptr ? rec->name.ptr : "");
		w->async_ts[w->nasyncs] = rec->ts;
		w->asyncs[w->nasyncs][0] = rec->thread.pid;
		w->asyncs[w->nasyncs][1] = rec->subtype;
		w->asyncs[w->nasyncs++][2] = rec->id;
	}
	if (rec->type == FXT_REC_EVENT &&
	    rec->subtype >= FXT_EVENT_FLOW_BEGIN &&
	    rec->subtype <= FXT_EVENT_FLOW_END && w->nflows < 16) {
		w->flows[w->nflows][0] = rec->thread.pid;
		w->flows[w->nflows][1] = rec->subtype;
		w->flows[w->nflows++][2] = rec->id;
	}
	return 0;
}

/* The file passes the strict check; *w counts what it holds. */
static int check_file(struct walk *w)
{
	memset(w, 0, sizeof(*w));
	return check_output_but(&out, &file, FXT_RULE_COUNT, count_record, w);
}

/*
 * check_file() of a file where Perfetto cuts the producer's own begins at
 * the end of a slice around them (misplaced-end, which the drainer keeps:
 * drain.rst): exactly cuts such warnings, and no other.
 */
static int check_file_cut(struct walk *w, unsigned int cuts)
{
	memset(w, 0, sizeof(*w));
	ASSERT_EQ(0, check_output_tolerating(&out, &file,
					     1ULL << FXT_RULE_MISPLACED_END,
					     count_record, w));
	ASSERT_EQ(cuts, check_output_tolerated);
	return 0;
}

/* input as both saved halves and as durable additions: diff_input(). */
static int diff_same(const void *input, size_t len, const char *what)
{
	return diff_input(input, len, input, len, input, len, what);
}

/* ---- inputs for the differential runs ------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned int pick(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static const char *const inline_texts[] = {
	"", "x", "tick", "hello world", "abcdefgh", "incoming_weight",
	"outgoing_weight", "weight", "process", "\xc3\xa9", "\xff\xfe",
	"a\xe2\x82", "\xed\xa0\x80",
	/* 64 bytes a repair makes 192: the longest name it rewrites */
	"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
	"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
	"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
	"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8",
};

/* A string ref, and its stream appended to *tail when inline. */
static __u16 gen_string_ref(struct words *tail)
{
	const char *s;

	switch (pick(8)) {
	case 0:
		return FXT_STRING_REF_EMPTY;
	case 1:
		return pick(2) ? 60 : FXT_STRING_INDEX_MAX;	/* undefined */
	case 2:
	case 3:
	case 4:
		return (__u16)(1 + pick(DIFF_STRINGS - 1));
	default:
		s = inline_texts[pick(N_WORDS(inline_texts))];
		put_stream(tail, s, strlen(s));
		return fxt_inline_string_ref((__u32)strlen(s));
	}
}

/* One argument into b; *type says which. */
static void gen_arg(struct words *b, unsigned int *type)
{
	static const unsigned int types[] = {
		FXT_ARG_INT32, FXT_ARG_INT32, FXT_ARG_UINT32, FXT_ARG_INT64,
		FXT_ARG_INT64, FXT_ARG_UINT64, FXT_ARG_DOUBLE, FXT_ARG_STRING,
		FXT_ARG_STRING, FXT_ARG_POINTER, FXT_ARG_KOID, FXT_ARG_BOOL,
		FXT_ARG_NULL, FXT_ARG_BLOB, 11,
	};
	struct words tail = { .n = 0 };
	size_t at = b->n;
	uint64_t value = 0;
	__u16 name = gen_string_ref(&tail);

	*type = types[pick(N_WORDS(types))];
	put(b, 0);
	put_all(b, tail.w, tail.n);
	switch (*type) {
	case FXT_ARG_INT32:
	case FXT_ARG_UINT32:
		value = rnd() & 0xffffffffULL;
		break;
	case FXT_ARG_BOOL:
		value = pick(2);
		break;
	case FXT_ARG_STRING:
		tail.n = 0;
		value = gen_string_ref(&tail);
		put_all(b, tail.w, tail.n);
		break;
	case FXT_ARG_BLOB:
		value = pick(12);
		put_stream(b, "blobbytes\x01\x02\x03", value);
		break;
	case FXT_ARG_NULL:
	case 11:
		break;
	default:
		put(b, rnd());
		break;
	}
	if (!pick(20))
		put(b, 0);		/* an extension word */
	if (!pick(25))
		value |= 1ULL << (16 + pick(16));	/* reserved bits */
	b->w[at] = *type | (uint64_t)(b->n - at) << 4 | (uint64_t)name << 16 |
		   value << 32;
}

static uint64_t gen_ts(void)
{
	switch (pick(12)) {
	case 0:
		return START - 5 * SECOND;
	case 1:
		return START + 20 * SECOND;
	case 2:
		return rnd();
	default:
		return START + SECOND + pick(1000);
	}
}

/* nargs arguments: the count, and a mask of their types. */
static unsigned int gen_args(struct words *b, unsigned int nargs,
			     unsigned int *types)
{
	unsigned int i, type;

	*types = 0;
	for (i = 0; i < nargs; i++) {
		gen_arg(b, &type);
		*types |= 1u << type;
	}
	return nargs;
}

static void gen_event(struct words *b)
{
	static const unsigned int events[] = {
		FXT_EVENT_INSTANT, FXT_EVENT_COUNTER, FXT_EVENT_COUNTER,
		FXT_EVENT_DURATION_BEGIN, FXT_EVENT_DURATION_END,
		FXT_EVENT_DURATION_COMPLETE, FXT_EVENT_ASYNC_BEGIN,
		FXT_EVENT_ASYNC_INSTANT, FXT_EVENT_ASYNC_END,
		FXT_EVENT_FLOW_BEGIN, FXT_EVENT_FLOW_STEP, FXT_EVENT_FLOW_END,
		12,
	};
	unsigned int type = events[pick(N_WORDS(events))], nargs, types;
	struct words strings = { .n = 0 };
	size_t at = b->n;
	uint64_t ts = gen_ts();
	__u8 thread = 0;
	__u16 category, name;

	put(b, 0);
	put(b, ts);
	switch (pick(7)) {
	case 0:
		put(b, PID + pick(2));
		put(b, TID);
		break;
	case 1:
		put(b, PID);
		put(b, pick(2) ? TID + 1 : 1ULL << 33);
		break;
	case 2:
	case 3:
		put(b, PID);
		put(b, TID);
		break;
	default:
		thread = (__u8)(1 + pick(3));	/* 3 is undefined */
		break;
	}
	if (type == FXT_EVENT_COUNTER && pick(2)) {
		category = 7;		/* "fxtrace", "lost events" */
		name = 8;
	} else {
		category = gen_string_ref(&strings);
		name = gen_string_ref(&strings);
	}
	put_all(b, strings.w, strings.n);
	nargs = gen_args(b, pick(4), &types);
	if (!pick(20))
		;		/* the trailing word forgotten */
	else if (type == FXT_EVENT_DURATION_COMPLETE)
		put(b, pick(4) ? ts + pick(100) : ts - 1);
	else if (type == FXT_EVENT_COUNTER || type >= FXT_EVENT_ASYNC_BEGIN)
		put(b, pick(3) ? pick(3) : rnd());
	if (!pick(30))
		put(b, 0);		/* an extension word */
	b->w[at] = fxt_event_hdr((__u32)(b->n - at), type, nargs, thread,
				 category, name);
}

static void gen_sched(struct words *b)
{
	unsigned int type = pick(8) ? 1 + pick(2) : pick(4), nargs, types;
	uint32_t cpu = pick(10) ? pick(4) : 4096 + pick(3);
	size_t at = b->n;
	uint64_t h;

	put(b, 0);
	put(b, gen_ts());
	put(b, pick(10) ? 2000 + pick(4) : 1ULL << 32);
	if (type != FXT_SCHED_WAKEUP)
		put(b, 2000 + pick(4));
	if (type == FXT_SCHED_CONTEXT_SWITCH && pick(3)) {
		/* The weights Perfetto needs, by table or inline names. */
		put(b, fxt_arg_hdr(pick(8) ? FXT_ARG_INT32 : FXT_ARG_UINT32,
				   1, 3, 1024));
		if (pick(2)) {
			put(b, fxt_arg_hdr(FXT_ARG_INT32, 3,
					   fxt_inline_string_ref(15), 7));
			put_stream(b, "outgoing_weight", 15);
		} else {
			put(b, fxt_arg_hdr(FXT_ARG_INT32, 1, 4, 7));
		}
		nargs = 2 + gen_args(b, pick(2), &types);
	} else {
		nargs = gen_args(b, pick(3), &types);
	}
	if (!pick(30))
		put(b, 0);
	h = fxt_record_hdr(FXT_REC_SCHED, (__u32)(b->n - at)) |
	    fxt_field(nargs, 16, 19) | fxt_field(type, 60, 63);
	if (type == FXT_SCHED_LEGACY_CONTEXT_SWITCH)
		h |= fxt_field(cpu & 255, 16, 23) | fxt_field(1, 28, 35);
	else
		h |= fxt_field(cpu, 20, 35) |
		     fxt_field(type == 1 ? pick(7) : 0, 36, 39);
	if (!pick(30))
		h |= 1ULL << (40 + pick(20));
	b->w[at] = h;
}

/*
 * A slice event of the producer's own thread, then a flow event of a small
 * id: flows in and out of slices, begins of open ids, steps and ends of
 * ids never begun.
 */
static void gen_flow(struct words *b)
{
	static const unsigned int slices[] = {
		FXT_EVENT_INSTANT, FXT_EVENT_DURATION_BEGIN,
		FXT_EVENT_DURATION_END, FXT_EVENT_DURATION_COMPLETE,
	};
	uint64_t ts = gen_ts();
	__u64 w[16];
	size_t n, i;

	n = event(w, slices[pick(N_WORDS(slices))], ts, PID, TID, "s",
		  ts + pick(3));
	n += event(w + n, FXT_EVENT_FLOW_BEGIN + pick(3), ts + pick(2), PID,
		   TID, "f", pick(4));
	for (i = 0; i < n; i++)
		put(b, w[i]);
}

/* One record of any kind, mostly events. */
static void gen_record(struct words *b)
{
	const char *s = inline_texts[pick(N_WORDS(inline_texts))];
	__u64 w[64];
	size_t n, i;

	switch (pick(18)) {
	case 0:
		n = fxt_write_string(w, (__u16)(1 + pick(DIFF_STRINGS + 2)), s,
				     (__u32)strlen(s));
		break;
	case 1:
		n = fxt_write_thread(w, (__u8)(1 + pick(3)), PID,
				     pick(2) ? TID : TID + 1);
		break;
	case 2:
		n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, TID, s,
					(__u32)strlen(s), PID);
		break;
	case 3:
	case 4:
	case 5:
		gen_sched(b);
		return;
	case 6:
		w[0] = rnd();
		n = 1;
		break;
	case 7:
	case 8:
		gen_flow(b);
		return;
	default:
		gen_event(b);
		return;
	}
	for (i = 0; i < n; i++)
		put(b, w[i]);
}

/*
 * The record from word `at` again, count times, each with other data
 * (timestamps, values, koids, ids) or a bit of its structure changed:
 * records of one layout, as producers write them.
 */
static void gen_repeats(struct words *b, size_t at, unsigned int count)
{
	static const char *const names[] = {
		"incoming_weight", "outgoing_weight", "weight", "other",
	};
	size_t words = b->n - at, i, j;
	const char *name;
	__u64 w[4];

	while (count-- && b->n + words + 4 < N_WORDS(b->w)) {
		/* Sometimes a name or a thread the layout uses changes first. */
		if (!pick(4)) {
			name = names[pick(N_WORDS(names))];
			j = fxt_write_string(w, (__u16)(3 + pick(3)), name,
					     (__u32)strlen(name));
			for (i = 0; i < j; i++)
				put(b, w[i]);
		} else if (!pick(8)) {
			j = fxt_write_thread(w, (__u8)(1 + pick(2)), PID,
					     TID + pick(2));
			for (i = 0; i < j; i++)
				put(b, w[i]);
		}
		for (i = 0; i < words; i++)
			put(b, b->w[at + i]);
		if (words < 2)
			continue;
		if (pick(2))
			b->w[b->n - words + 1] = gen_ts();
		j = b->n - words + 1 + pick((unsigned int)words - 1);
		switch (pick(5)) {
		case 0:
			b->w[j] ^= 1ULL << pick(64);
			break;
		case 1:
			b->w[j] ^= rnd() << 32;
			break;
		case 2:
			b->w[j] = b->w[j - 1] + pick(3) - 1;
			break;
		case 3:
			b->w[j] = pick(2) ? 1ULL << 32 : 0;
			break;
		default:
			break;
		}
	}
}

/* Bits flipped, words replaced: what a producer writing garbage leaves. */
static void mutate(struct words *b)
{
	unsigned int i, count = 1 + pick(4);

	for (i = 0; i < count && b->n; i++) {
		if (pick(3))
			b->w[pick((unsigned int)b->n)] ^= 1ULL << pick(64);
		else
			b->w[pick((unsigned int)b->n)] = rnd();
	}
}

/*
 * The next generated half, input i of the sequence, into bytes: honest
 * records of every kind with mistakes a producer makes, every third
 * mutated, a few cut inside a record.  Returns its length.
 */
static size_t gen_input(unsigned int i, unsigned char *bytes)
{
	static struct words b;
	unsigned int r, records;
	size_t len;

	b.n = 0;
	records = 1 + pick(60);
	for (r = 0; r < records && b.n < N_WORDS(b.w) - 128; r++) {
		size_t at = b.n;

		gen_record(&b);
		if (!pick(3))
			gen_repeats(&b, at, 1 + pick(6));
	}
	if (i % 3 == 1)
		mutate(&b);
	words_to_le(b.w, b.n, bytes);
	len = 8 * b.n;
	if (i % 17 == 5 && len)
		len -= 1 + pick(12);
	return len;
}

static void put_le(unsigned char *p, unsigned int n, uint64_t v)
{
	while (n--) {
		*p++ = (unsigned char)v;
		v >>= 8;
	}
}

/*
 * A config of fuzz_output's (fuzz/fuzz_output.c): every retirement,
 * successor and header size, comms that are not UTF-8, a TSC's tick rate,
 * windows around the generated timestamps and time moving on, producers
 * that commit more or less than they wrote and lie about their wraps.
 */
static void gen_config(unsigned char *b)
{
	static const char *const comms[] = {
		"", "worker", "w\xffrker", "\xc3\xa9t\xc3\xa9",
		"fifteen bytes!!",
	};
	const char *comm = comms[pick(N_WORDS(comms))];
	unsigned int i;

	memset(b, 0, DIFF_CONFIG_BYTES);
	b[0] = (unsigned char)pick(128);
	b[1] = (unsigned char)pick(8);	/* bit 2: another user's successor */
	b[2] = (unsigned char)pick(4);
	/* Bit 1: circular; bit 2: a sibling writes the copied mapping. */
	b[3] = (unsigned char)((pick(8) == 0) | pick(2) << 1 | pick(2) << 2);
	if (!pick(4))
		put_le(b + 4, 4, rnd());
	if (!pick(3))
		put_le(b + 8, 8, (SECOND / 2) * pick(7) - 2 * SECOND);
	memcpy(b + 16, comm, strlen(comm));
	for (i = 0; i < 4; i++)
		put_le(b + 32 + 2 * i, 2, pick(3) ? 0 : pick(3000));
	for (i = 0; i < 3; i++)
		put_le(b + 40 + 2 * i, 2,
		       pick(4) ? 0 : (uint64_t)(8 * (int64_t)pick(9) - 32 +
						pick(2)));
	put_le(b + 48, 8, pick(2) ? 0 : pick(4) ? pick(5) : ~0ULL);
	for (i = 0; i < 2; i++)
		put_le(b + 56 + 4 * i, 4, pick(2) ? 0 : pick(4096));
	put_le(b + 64, 8, pick(2) ? 0 : rnd());
}

/* The generated halves, both ways. */
static int test_fast_generated(void)
{
	unsigned char bytes[sizeof(((struct words *)0)->w)];
	char what[64];
	unsigned int i;
	size_t len;

	memset(&diff_totals, 0, sizeof(diff_totals));
	for (i = 0; i < 3000; i++) {
		len = gen_input(i, bytes);
		snprintf(what, sizeof(what), "generated input %u", i);
		if (diff_same(bytes, len, what))
			return 1;
	}
	printf("# %llu inputs, %llu records written, %llu refused (%llu flows): the same\n",
	       (unsigned long long)diff_totals.inputs,
	       (unsigned long long)diff_totals.records,
	       (unsigned long long)diff_totals.refused,
	       (unsigned long long)diff_totals.flows_refused);
	/* The inputs exercise both sides of every judgement. */
	EXPECT_CMP(diff_totals.records, >, 10000);
	EXPECT_CMP(diff_totals.refused, >, 10000);
	EXPECT_CMP(diff_totals.flows_refused, >, 1000);
	return 0;
}

/*
 * The generated halves through retirements, successors, header fields,
 * windows and control pages as fuzz_output's configs say (gen_config()).
 */
static int test_fast_configs(void)
{
	unsigned char bytes[sizeof(((struct words *)0)->w)];
	unsigned char config[DIFF_CONFIG_BYTES];
	struct diff_config cfg;
	char what[64];
	unsigned int i;
	size_t len;

	memset(&diff_totals, 0, sizeof(diff_totals));
	for (i = 0; i < 1500; i++) {
		len = gen_input(i, bytes);
		gen_config(config);
		diff_config_read(&cfg, config, sizeof(config));
		snprintf(what, sizeof(what), "configured input %u", i);
		if (diff_config_input(&cfg, bytes, len, bytes, len, bytes, len,
				      what))
			return 1;
	}
	printf("# %llu inputs, %llu buffers retired, %llu records written, %llu refused (%llu flows), %llu snapshots of %llu copies, %llu written by a sibling while copied: the same\n",
	       (unsigned long long)diff_totals.inputs,
	       (unsigned long long)diff_totals.retired,
	       (unsigned long long)diff_totals.records,
	       (unsigned long long)diff_totals.refused,
	       (unsigned long long)diff_totals.flows_refused,
	       (unsigned long long)diff_totals.snapshots,
	       (unsigned long long)diff_totals.copies,
	       (unsigned long long)diff_totals.sibling_writes);
	EXPECT_CMP(diff_totals.retired, >, 1000);
	EXPECT_CMP(diff_totals.copies, >, 1000);
	/* Each side's copy of about a quarter of the inputs. */
	EXPECT_CMP(diff_totals.sibling_writes, >, 500);
	EXPECT_CMP(diff_totals.records, >, 10000);
	EXPECT_CMP(diff_totals.refused, >, 10000);
	EXPECT_CMP(diff_totals.flows_refused, >, 500);
	return 0;
}

/*
 * The harness's session clock stops at its last tick that fits int64 ns,
 * as the kernel's does: advanced past it, the probes' last event (written
 * at the clock's reading) overflowed, and fuzz_output took its own
 * harness for a drainer writing a timestamp Perfetto drops.
 */
static int test_clock_end(void)
{
	unsigned char bytes[sizeof(((struct words *)0)->w)];
	unsigned char config[DIFF_CONFIG_BYTES] = { 0 };
	const uint64_t start_offset = INT64_MAX - START - 5 * SECOND;
	struct diff_config cfg;
	unsigned int i;
	size_t len;

	config[3] = 1;		/* the probes' events */
	for (i = 0; i < 8; i++)
		config[8 + i] = (unsigned char)(start_offset >> 8 * i);
	/* Each of the 4 later steps of the clock 65,535 ms. */
	memset(config + 32, 0xff, 8);
	diff_config_read(&cfg, config, sizeof(config));
	ASSERT_EQ((uint64_t)INT64_MAX - 5 * SECOND, cfg.start_ticks);
	len = gen_input(0, bytes);
	ASSERT_EQ(0, diff_config_input(&cfg, bytes, len, bytes, len, bytes,
				       len, "a session clock at its end"));
	return 0;
}

/*
 * `output_test --write-inputs DIR`: the first generated inputs as files
 * DIR/generated-N, the seeds of fuzz_output (user/reader/fuzz/run.sh):
 * its config (every other one all zero, gen_config()'s otherwise), then
 * the half.
 */
static int write_inputs(const char *dir)
{
	unsigned char bytes[DIFF_CONFIG_BYTES + sizeof(((struct words *)0)->w)];
	char path[512];
	unsigned int i;
	size_t len;
	FILE *f;

	for (i = 0; i < 300; i++) {
		len = DIFF_CONFIG_BYTES + gen_input(i, bytes + DIFF_CONFIG_BYTES);
		if (i % 2)
			gen_config(bytes);
		else
			memset(bytes, 0, DIFF_CONFIG_BYTES);
		snprintf(path, sizeof(path), "%s/generated-%u", dir, i);
		f = fopen(path, "wb");
		if (!f || fwrite(bytes, 1, len, f) != len || fclose(f)) {
			fprintf(stderr, "output_test: cannot write %s\n", path);
			return 1;
		}
	}
	return 0;
}

/* Random words: mostly unframeable, sometimes a record by chance. */
static int test_fast_garbage(void)
{
	unsigned char bytes[8 * 256];
	uint64_t w[256];
	unsigned int i, n, k;

	for (i = 0; i < 500; i++) {
		n = 1 + pick(256);
		for (k = 0; k < n; k++) {
			w[k] = rnd();
			/* Plausible headers: small sizes, types 4 and 8. */
			if (pick(2))
				w[k] = (w[k] & ~0xfff0ULL) |
				       (uint64_t)(1 + pick(8)) << 4;
		}
		words_to_le(w, n, bytes);
		if (diff_same(bytes, 8 * n, "garbage"))
			return 1;
	}
	return 0;
}

/* A file's bytes through diff_same(); 0 also when it cannot be read. */
static int diff_file(const char *path, bool *read)
{
	unsigned char *bytes = NULL;
	size_t len = 0;
	long size;
	FILE *f = fopen(path, "rb");
	int ret;

	*read = false;
	if (!f)
		return 0;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		bytes = malloc((size_t)size + 1);
		len = bytes ? fread(bytes, 1, (size_t)size, f) : 0;
		*read = bytes && len == (size_t)size;
	}
	fclose(f);
	ret = *read ? diff_same(bytes, len, path) : 0;
	free(bytes);
	return ret;
}

/* The decoder's vectors and the Perfetto corpus (run from the tree's root). */
static int test_fast_corpora(void)
{
	static const struct { const uint64_t *w; size_t n; } vectors[] = {
		{ spec_magic, N_WORDS(spec_magic) },
		{ spec_string_app, N_WORDS(spec_string_app) },
		{ spec_instant, N_WORDS(spec_instant) },
		{ spec_process, N_WORDS(spec_process) },
		{ spec_thread, N_WORDS(spec_thread) },
		{ spec_switch, N_WORDS(spec_switch) },
		{ spec_init, N_WORDS(spec_init) },
		{ perfetto_inline_instant, N_WORDS(perfetto_inline_instant) },
		{ perfetto_boolean_args, N_WORDS(perfetto_boolean_args) },
		{ perfetto_sched, N_WORDS(perfetto_sched) },
		{ perfetto_legacy_sched, N_WORDS(perfetto_legacy_sched) },
		{ perfetto_corrupted, N_WORDS(perfetto_corrupted) },
		{ jane_prefix, N_WORDS(jane_prefix) },
		{ example_trace, N_WORDS(example_trace) },
	};
	static const char dir[] = "user/reader/tests/perfetto-corpus";
	unsigned char bytes[8 * 128];
	struct dirent *e;
	char path[512];
	unsigned int i, files = 0;
	bool read;
	DIR *d;

	for (i = 0; i < N_WORDS(vectors); i++) {
		words_to_le(vectors[i].w, vectors[i].n, bytes);
		if (diff_same(bytes, 8 * vectors[i].n, "vector"))
			return 1;
	}
	d = opendir(dir);
	ASSERT_TRUE(d);
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".fxt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (diff_file(path, &read)) {
			closedir(d);
			return 1;
		}
		files += read;
	}
	closedir(d);
	printf("# %u vectors, %u corpus files: the same\n",
	       (unsigned int)N_WORDS(vectors), files);
	ASSERT_CMP(files, >, 10);
	return 0;
}

/* `output_test --diff FILE...`: each file as a half, both ways (fuzz corpora). */
static int diff_files(int argc, char **argv)
{
	int i, bad = 0, files = 0;
	bool read;

	for (i = 2; i < argc; i++) {
		if (diff_file(argv[i], &read)) {
			bad++;
			continue;
		}
		if (!read)
			fprintf(stderr, "output_test: cannot read %s\n", argv[i]);
		files += read;
		bad += !read;
	}
	printf("%d files the same both ways, %d not\n", files, bad);
	return bad ? 1 : 0;
}

/* ---- the tests ----------------------------------------------------------- */

/*
 * Issue 15 and 21: records about other processes, kinds consumers
 * interpret, timestamps outside the window; each refused and counted.
 */
static int test_forgery(void)
{
	__u64 w[64];
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	__u32 n;

	start();
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	/* Kept: its own thread, process and events, an opaque blob. */
	n = fxt_write_thread(w, 1, PID, TID);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, PID, "me", 2, 0);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, TID, "main", 4, PID);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "ok", 0);
	n += blob(w + n, FXT_BLOB_TYPE_DATA);
	n += large(w + n, FXT_LARGE_BLOB_ATTACHMENT);
	put_words(&f, w, n);
	/* Foreign: 6 records naming other processes or threads. */
	n = fxt_write_thread(w, 2, 1, 1);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, 1, 1, "pid1", 0);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, 555, "sib", 0);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, 1, "fake-systemd",
				 12, 0);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, TID, "moved", 5, 1);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, 555, "other", 5, PID);
	put_words(&f, w, n);
	/* Kinds: 4 records a consumer would interpret (or fail on). */
	n = blob(w, FXT_BLOB_TYPE_PERFETTO);
	n += blob(w + n, FXT_BLOB_TYPE_LAST_BRANCH);
	n += large(w + n, FXT_LARGE_BLOB_WITH_METADATA);
	w[n++] = fxt_context_switch_hdr(4, 0, 0, 0);
	w[n++] = START + SECOND;
	w[n++] = 1;
	w[n++] = 2;
	put_words(&f, w, n);
	/* Time: 3 records outside [START - 1 s, now + 1 s]. */
	n = event(w, FXT_EVENT_INSTANT, 4600000000000000000ULL, PID, TID,
		  "future", 0);
	n += event(w + n, FXT_EVENT_INSTANT, START - 2 * SECOND, PID, TID,
		   "past", 0);
	n += event(w + n, FXT_EVENT_DURATION_COMPLETE, START + SECOND, PID,
		   TID, "long", START + 100 * SECOND);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(6, db->records);
	ASSERT_EQ(6, db->refused[REFUSED_FOREIGN]);
	/* Blob type 3 and the context switch break decoder rules already. */
	ASSERT_EQ(2, db->refused[REFUSED_KIND]);
	ASSERT_EQ(2, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(3, db->refused[REFUSED_TIME]);
	ASSERT_EQ(13, db->invalid);
	/* Named from the header, not from the forged provider info. */
	ASSERT_STR("task 101 (pid 100)", db->name);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(0, walk.kobj_foreign);
	ASSERT_EQ(1, walk.events);
	fake_free(&f);
	return 0;
}

/* Issue 20 item 2: the comm the kernel took at ATTACH names the buffer. */
static int test_comm_name(void)
{
	struct drain_buffer *db;
	struct fake f;

	start();
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0,
		 "w\xffrker");
	db = drain_rest(&f);
	ASSERT_STR("w\xef\xbf\xbdrker 101 (pid 100)", db->name);
	fake_free(&f);
	/*
	 * A comm its thread set to an escape sequence: the name is printed
	 * on root's terminal (the summary, -v), without its control bytes.
	 */
	start();
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0,
		 "\x1b]0;t\x07\x1b[2J\x7f\xc2\x9b");
	db = drain_rest(&f);
	ASSERT_STR("?]0;t??[2J??? 101 (pid 100)", db->name);
	fake_free(&f);
	return 0;
}

/*
 * A thread that named itself in bytes that are not UTF-8: the kernel's
 * announcement, "COMM TID", is skipped as any other, not judged and
 * counted as 2 records refused against an honest producer (fuzz_output's
 * input, a config of comm "\xff", is the second half).
 */
static int test_comm_not_utf8(void)
{
	static const unsigned char input[17] = { [16] = 0xff };
	struct drain_buffer *db;
	struct fake f;

	start();
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0,
		 "w\xffrker");
	fake_announce(&f, "w\xffrker 101", SECOND);
	db = drain_rest(&f);
	ASSERT_STR("w\xef\xbf\xbdrker 101 (pid 100)", db->name);
	EXPECT_EQ(0, db->invalid);
	EXPECT_EQ(0, db->records);
	EXPECT_EQ(f.hdr->durable_reserved, db->durable_done);
	fake_free(&f);
	ASSERT_EQ(0, diff_fuzz_input(input, sizeof(input),
				     "a comm of \"\\xff\""));
	diff_free();
	return 0;
}

/*
 * Issue 15: past the string budget, strings used to be defined but not
 * kept and hashed as empty, so an async end named unlike its begin passed.
 */
static int test_string_budget(void)
{
	static char text[30000];
	__u64 *w = malloc((1 << 21) * 8);
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	size_t n = 0, i;

	ASSERT_TRUE(w);
	start();
	/*
	 * A budget of 2 * 64 KiB + 1 MiB: 39 strings of 30,000 bytes fit,
	 * the other 6, defined in a saved half, do not.
	 */
	fake_new(&f, 7, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 2 << 20, NULL);
	memset(text, 'x', sizeof(text));
	for (i = 1; i <= 45; i++) {
		text[0] = (char)('0' + i % 10);
		n += fxt_write_string(w + n, (__u16)i, text, sizeof(text));
	}
	/* Names 44 and 45 differ: begin and end of one async slice. */
	w[n++] = fxt_event_hdr(5, FXT_EVENT_ASYNC_BEGIN, 0,
			       FXT_THREAD_REF_INLINE, 0, 44);
	w[n++] = START + SECOND;
	w[n++] = PID;
	w[n++] = TID;
	w[n++] = 9;
	w[n++] = fxt_event_hdr(5, FXT_EVENT_ASYNC_END, 0,
			       FXT_THREAD_REF_INLINE, 0, 45);
	w[n++] = START + SECOND;
	w[n++] = PID;
	w[n++] = TID;
	w[n++] = 9;
	drain_half(&f, 0, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(39, db->records);
	ASSERT_EQ(6, db->refused[REFUSED_STRINGS]);
	/* Their refs are undefined now: refused as invalid, not matched. */
	ASSERT_EQ(2, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	free(w);
	return 0;
}

/*
 * count (up to 39) strings of 30,000 bytes (indices from 1, one block) in a
 * saved half of a task buffer (its durable part 64 KiB: a budget of
 * 1,179,648 bytes, which 39 fit) or a CPU buffer of its own; the buffer
 * stays, its fake freed.
 */
static struct drain_buffer *define_strings(__u32 id, __u32 kind, __u16 count,
					   __u64 *w)
{
	static char text[30000];
	struct fake f;
	size_t n = 0;
	__u16 i;

	memset(text, 'x', sizeof(text));
	for (i = 1; i <= count; i++) {
		text[0] = (char)('0' + i % 10);
		n += fxt_write_string(w + n, i, text, sizeof(text));
	}
	if (kind == FXTRACE_BUFFER_TASK)
		fake_new(&f, id, kind, 1000 + id, 1000 + id, 1 << 16, 2 << 20,
			 NULL);
	else
		fake_new(&f, id, kind, 0, 0, 1 << 16, 2 << 20, NULL);
	drain_half(&f, 0, w, n);
	fake_free(&f);
	return output_find(&out, id);
}

/*
 * Each buffer's string budget bounded its own tables only: 1,024 task
 * buffers (max_task_buffers) at twice a 1 MiB durable part plus 1 MiB
 * each held 3 GiB.  Task buffers keep 64 KiB each by themselves, and
 * share 64 MiB past that: a buffer of 39 strings holds 6,144 bytes of
 * block and 1,170,000 of strings, 1,110,608 past its 64 KiB, so 60 of
 * them fill 66,636,480 bytes of the 67,108,864; the 61st keeps 17 strings
 * (450,608 past its own), each later one 2 (608 past).
 */
static int test_task_strings_shared(void)
{
	__u64 *w = malloc(39 * 3751 * 8);
	struct drain_buffer *db[72];
	struct walk walk;
	__u32 i;

	ASSERT_TRUE(w);
	start();
	for (i = 0; i < 70; i++) {
		db[i] = define_strings(20 + i, FXTRACE_BUFFER_TASK, 39, w);
		ASSERT_TRUE(db[i]);
	}
	for (i = 0; i < 60; i++) {
		ASSERT_EQ(39, db[i]->records);
		ASSERT_EQ(0, db[i]->refused[REFUSED_STRINGS]);
	}
	ASSERT_EQ(17, db[60]->records);
	ASSERT_EQ(22, db[60]->refused[REFUSED_STRINGS]);
	for (i = 61; i < 70; i++) {
		ASSERT_EQ(2, db[i]->records);
		ASSERT_EQ(37, db[i]->refused[REFUSED_STRINGS]);
		ASSERT_EQ(37, db[i]->invalid);
	}
	/* The kernel's strings are not the producers': its budget only. */
	db[70] = define_strings(90, FXTRACE_BUFFER_CPU, 39, w);
	ASSERT_EQ(39, db[70]->records);
	ASSERT_EQ(0, db[70]->invalid);
	/* A retired buffer's strings leave room for another's. */
	output_retire(&out, db[0]);
	db[71] = define_strings(91, FXTRACE_BUFFER_TASK, 39, w);
	ASSERT_EQ(39, db[71]->records);
	ASSERT_EQ(0, db[71]->invalid);
	ASSERT_EQ(0, check_file(&walk));
	free(w);
	return 0;
}

/*
 * fxtrace stop -o drains a session of up to 65,536 task buffers at once:
 * with 64 KiB of strings each by itself, they held 4 GiB.  Only the first
 * TASK_STRINGS_OWNERS (1,024) at once keep their own.  60 buffers of 39
 * strings leave 472,384 bytes of the shared 64 MiB
 * (test_task_strings_shared), 964 of one string (36,144 bytes) keep it by
 * themselves; the 1,025th then has no own part: it keeps 15 strings (6,144
 * + 15 * 30,000 bytes, all shared), not 17.  One of the 964 retired, the
 * next buffer has 64 KiB of its own again: it keeps 2 strings (608 bytes
 * past its own) of the 16,240 left.
 */
static int test_task_strings_owners(void)
{
	__u64 *w = malloc(39 * 3751 * 8);
	struct drain_buffer *db, *small = NULL;
	struct walk walk;
	__u32 i;

	ASSERT_TRUE(w);
	start();
	for (i = 0; i < 60; i++) {
		db = define_strings(100 + i, FXTRACE_BUFFER_TASK, 39, w);
		ASSERT_TRUE(db);
		ASSERT_EQ(39, db->records);
	}
	for (i = 60; i < TASK_STRINGS_OWNERS; i++) {
		small = define_strings(100 + i, FXTRACE_BUFFER_TASK, 1, w);
		ASSERT_TRUE(small);
		ASSERT_EQ(1, small->records);
		ASSERT_EQ(0, small->invalid);
	}
	db = define_strings(2000, FXTRACE_BUFFER_TASK, 39, w);
	ASSERT_TRUE(db);
	ASSERT_EQ(15, db->records);
	ASSERT_EQ(24, db->refused[REFUSED_STRINGS]);
	ASSERT_EQ(24, db->invalid);
	output_retire(&out, small);
	db = define_strings(2001, FXTRACE_BUFFER_TASK, 39, w);
	ASSERT_TRUE(db);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(37, db->refused[REFUSED_STRINGS]);
	ASSERT_EQ(0, check_file(&walk));
	free(w);
	return 0;
}

/* Async begins of one process: 5 words, no name. */
static size_t async_begins(__u64 *w, __u32 pid, __u32 tid, size_t count,
			   __u64 first_id)
{
	size_t n = 0, i;

	for (i = 0; i < count; i++)
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, START + SECOND, pid,
			   tid, "", first_id + i);
	return n;
}

/*
 * Issue 20 item 3: a squatter's 70,000 async begins took the whole table
 * (65,536), and an honest producer's 2,000 were refused.
 */
static int test_async_squatter(void)
{
	size_t words = 70000 * 5, n;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *squatter, *honest;
	struct fake s, h;
	struct walk walk;

	ASSERT_TRUE(w);
	start();
	fake_new(&s, 8, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_new(&h, 9, FXTRACE_BUFFER_TASK, 300, 301, 1 << 20, 0, NULL);
	n = async_begins(w, 200, 201, 70000, 1);
	put_words(&s, w, n);
	squatter = drain_rest(&s);
	n = async_begins(w, 300, 301, 2000, 1);
	put_words(&h, w, n);
	honest = drain_rest(&h);
	ASSERT_EQ(16384, squatter->records);
	ASSERT_EQ(70000 - 16384, squatter->refused[REFUSED_ASYNC]);
	ASSERT_EQ(2000, honest->records);
	ASSERT_EQ(0, honest->invalid);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(16384, walk.async_begins[0]);
	ASSERT_EQ(2000, walk.async_begins[1]);
	/* The squatter's process gone, its share is free for the next one. */
	output_retire(&out, squatter);
	ASSERT_EQ(2000, out.asyncs.count);
	fake_free(&s);
	fake_free(&h);
	free(w);
	return 0;
}

/*
 * Flow events the reader warns about (flow-no-enclosing-slice,
 * flow-duplicate-id) used to be written: a begin outside every slice, a
 * second begin of an open id, an end of a begun id outside a slice, and
 * another process's begin of an id still open.  Through the fast pass and
 * the full decoder alike.
 */
static int test_flows(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b, *cpu;
	struct fake fa, fb, fc;
	unsigned int full;
	struct walk walk;
	__u64 w[128];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0,
			 NULL);
		fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0,
			 NULL);
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 0, NULL);
		/* Refused: no slice open. */
		n = event(w, FXT_EVENT_FLOW_BEGIN, t, 200, 201, "f", 9);
		n += event(w + n, FXT_EVENT_DURATION_BEGIN, t + 1, 200, 201,
			   "d", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
		/* Refused: id 1 is open. */
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 3, 200, 201, "f", 1);
		n += event(w + n, FXT_EVENT_FLOW_STEP, t + 4, 200, 201, "f", 1);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 5, 200, 201, "d",
			   0);
		/* Refused: id 1 is begun and no slice is open. */
		n += event(w + n, FXT_EVENT_FLOW_END, t + 6, 200, 201, "f", 1);
		/* Kept: an id never begun binds to nothing and warns of none. */
		n += event(w + n, FXT_EVENT_FLOW_END, t + 6, 200, 201, "f", 42);
		/* Kept: bound to the instant, still on the stack. */
		n += event(w + n, FXT_EVENT_INSTANT, t + 10, 200, 201, "i", 0);
		n += event(w + n, FXT_EVENT_FLOW_STEP, t + 10, 200, 201, "f", 1);
		put_words(&fa, w, n);
		a = drain_rest(&fa);
		/* Refused: id 1 is open in process 200. */
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 20, 300, 301, "d", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 21, 300, 301, "f", 1);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 22, 300, 301, "d",
			   0);
		put_words(&fb, w, n);
		b = drain_rest(&fb);
		/*
		 * Refused, begin, step and end: no buffer but a task's
		 * follows a thread's slices.
		 */
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 30, 400, 401, "k", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 31, 400, 401, "k", 5);
		n += event(w + n, FXT_EVENT_FLOW_STEP, t + 31, 400, 401, "k", 5);
		n += event(w + n, FXT_EVENT_FLOW_END, t + 31, 400, 401, "k", 5);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 32, 400, 401, "k",
			   0);
		put_words(&fc, w, n);
		cpu = drain_rest(&fc);
		ASSERT_EQ(7, a->records);
		ASSERT_EQ(3, a->refused[REFUSED_FLOW]);
		ASSERT_EQ(3, a->invalid);
		ASSERT_EQ(2, b->records);
		ASSERT_EQ(1, b->refused[REFUSED_FLOW]);
		ASSERT_EQ(1, b->invalid);
		ASSERT_EQ(2, cpu->records);
		ASSERT_EQ(3, cpu->refused[REFUSED_KIND]);
		ASSERT_EQ(3, cpu->invalid);
		/* Id 1 stays open: its end outside a slice was refused. */
		ASSERT_EQ(1, out.flows.count);
		ASSERT_EQ(0, check_file(&walk));
		ASSERT_EQ(11, walk.events);
		fake_free(&fa);
		fake_free(&fb);
		fake_free(&fc);
	}
	return 0;
}

/*
 * The reader keeps one slice stack per thread, which the kernel's syscall
 * slices in CPU buffers push and pop too: a task's flow is judged by the
 * stack they leave.
 */
static int test_flows_kernel_slices(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *cpu;
	struct fake fa, fc;
	unsigned int full;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 4096, NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
		drain_half(&fa, 0, w, n);
		/* A syscall the session started inside of ends. */
		n = event(w, FXT_EVENT_DURATION_END, t + 1, 200, 201, "read", 0);
		drain_half(&fc, 0, w, n);
		/* Refused: the end closed the task's slice for the reader. */
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
		drain_half(&fa, 1, w, n);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 3, 200, 201, "write",
			  0);
		drain_half(&fc, 1, w, n);
		/* Kept: bound to the syscall's slice. */
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 4, 200, 201, "f", 2);
		drain_half(&fa, 2, w, n);
		a = output_find(&out, 8);
		cpu = output_find(&out, 10);
		ASSERT_EQ(2, a->records);
		ASSERT_EQ(1, a->refused[REFUSED_FLOW]);
		ASSERT_EQ(2, cpu->records);
		ASSERT_EQ(0, cpu->invalid);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&fa);
		fake_free(&fc);
	}
	return 0;
}

/*
 * A tid used again by another process is another thread to Perfetto, with
 * a slice stack of its own: the slice the kernel wrote for the tid's
 * former process (its CPU buffer saved after the new task buffer came)
 * holds no flow of the new one.  Before, the stack was the tid's, and the
 * flow begin was kept that Perfetto drops (flow_no_enclosing_slice).
 */
static int test_flows_tid_reused(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *cpu;
	struct fake fa, fc;
	unsigned int full;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 4096, NULL);
		/* The task buffer is known, empty. */
		drain_half(&fa, 0, w, 0);
		/* The exit of tid 201 of process 100 never returned. */
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, 100, 201, "exit", 0);
		drain_half(&fc, 0, w, n);
		/* Refused: process 200's thread has no slice. */
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
		drain_half(&fa, 1, w, n);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 3, 200, 201, "d", 0);
		drain_half(&fa, 2, w, n);
		/* Kept: inside its own duration. */
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 4, 200, 201, "f", 2);
		drain_half(&fa, 3, w, n);
		a = output_find(&out, 8);
		cpu = output_find(&out, 10);
		ASSERT_EQ(2, a->records);
		ASSERT_EQ(1, a->refused[REFUSED_FLOW]);
		ASSERT_EQ(1, cpu->records);
		ASSERT_EQ(0, cpu->invalid);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&fa);
		fake_free(&fc);
	}
	return 0;
}

/*
 * A thread with two task buffers (two copies of libfxtrace, ABI 0.7): a
 * flow one copy writes inside a duration the other copy opened is judged
 * in file order, as the reader judges it, so it is kept only when its
 * half lies between the halves of the duration's begin and end.  Perfetto,
 * which sorts by timestamp, would keep it in all three orders
 * (Documentation/drain.rst, "Limits").
 */
static int test_flows_two_buffers(void)
{
	const __u64 t = START + SECOND;
	static const __u64 kept[3] = { 0, 0, 1 };
	struct drain_buffer *a, *b;
	unsigned int order, full;
	struct fake fa, fb;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	for (full = 0; full < 2; full++) {
		for (order = 0; order < 3; order++) {
			start();
			out.full_decode = full;
			fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096,
				 4096, NULL);
			fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 200, 201, 4096,
				 4096, NULL);
			/* 0: the flow's half first; 1: last; 2: between. */
			if (order == 0) {
				n = event(w, FXT_EVENT_FLOW_BEGIN, t + 1, 200,
					  201, "f", 1);
				drain_half(&fb, 0, w, n);
			}
			n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201,
				  "d", 0);
			if (order < 2)
				n += event(w + n, FXT_EVENT_DURATION_END,
					   t + 2, 200, 201, "d", 0);
			drain_half(&fa, 0, w, n);
			if (order) {
				n = event(w, FXT_EVENT_FLOW_BEGIN, t + 1, 200,
					  201, "f", 1);
				drain_half(&fb, 0, w, n);
			}
			if (order == 2) {
				n = event(w, FXT_EVENT_DURATION_END, t + 2,
					  200, 201, "d", 0);
				drain_half(&fa, 1, w, n);
			}
			a = output_find(&out, 8);
			b = output_find(&out, 9);
			ASSERT_EQ(2, a->records);
			ASSERT_EQ(kept[order], b->records);
			ASSERT_EQ(1 - kept[order], b->refused[REFUSED_FLOW]);
			ASSERT_EQ(0, check_file(&walk));
			fake_free(&fa);
			fake_free(&fb);
		}
	}
	return 0;
}

/*
 * Perfetto keeps the stack of each process's thread of a tid: the kernel's
 * slice of the tid's former process, in a CPU buffer saved between two
 * halves of the new process's task buffer, leaves the new process's
 * duration open, and the flow in it binds there.  Before, that slice
 * started the tid's stack again and the flow was refused.
 */
static int test_flows_tid_interleaved(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *cpu;
	struct fake fa, fc;
	unsigned int full;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 4096, NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
		drain_half(&fa, 0, w, n);
		/* The exit of tid 201 of process 100, saved late. */
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 1, 100, 201, "exit",
			  0);
		drain_half(&fc, 0, w, n);
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
		drain_half(&fa, 1, w, n);
		a = output_find(&out, 8);
		cpu = output_find(&out, 10);
		ASSERT_EQ(2, a->records);
		ASSERT_EQ(0, a->refused[REFUSED_FLOW]);
		ASSERT_EQ(1, cpu->records);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&fa);
		fake_free(&fc);
	}
	return 0;
}

/*
 * The kernel's syscall begin of a thread, saved before the thread's first
 * task buffer is known: the reader's stack holds it under the task's
 * slices, the drainer's does not.  An end with no begin of the task's
 * open closes it in the reader, under the complete event; the next begin
 * after that end pops the complete event there and the end after it cuts
 * the begin: no slice is left where the drainer still has the complete
 * event, and the flow begin after is outside any slice for the reader.
 * Before, the drainer wrote it (check_file() found the
 * flow-no-enclosing-slice warning); now the end leaves the drainer's
 * stack unsure and the flow is refused.
 */
static int test_flows_hidden_begin(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a;
	struct fake fa, fc;
	unsigned int full;
	struct walk walk;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 4096, NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "ioctl", 0);
		drain_half(&fc, 0, w, n);
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_DURATION_COMPLETE, t + 1, 200, 201, "x",
			  t + 100);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 2, 200, 201, "e",
			   0);
		n += event(w + n, FXT_EVENT_DURATION_BEGIN, t + 3, 200, 201,
			   "b", 0);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 4, 200, 201, "b",
			   0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 5, 200, 201, "f", 1);
		drain_half(&fa, 0, w, n);
		a = output_find(&out, 8);
		ASSERT_EQ(4, a->records);
		ASSERT_EQ(1, a->refused[REFUSED_FLOW]);
		ASSERT_EQ(0, check_file_cut(&walk, 1));
		ASSERT_EQ(5, walk.events);
		fake_free(&fa);
		fake_free(&fc);
	}
	return 0;
}

/*
 * A producer's own misnested slices, which the drainer keeps and check
 * warns of (drain.rst, "What the drainer keeps that check warns of"): a
 * complete event (15..30) partly overlapping the one on the stack
 * (10..20), which Perfetto drops (complete-overlap), and a begin (110)
 * inside a complete event (100..120) that ends first, which Perfetto cuts
 * at 120 at the next begin (misplaced-end).  The drainer's stack drops
 * and cuts as the reader's does, so its verdict on the flows after them
 * is the reader's: flow 1 after the end at 25 (which pops 10..20 and
 * closes 5's begin) has no slice, where the dropped event would have
 * held it; flow 3 binds to the begin at 130; flow 4 after its end, and
 * flow 5 after the cut begin's own end (which closes nothing), have no
 * slice, where the cut begin would have held them.  The file holds the
 * two warnings and no flow-no-enclosing-slice.
 */
static int test_flows_after_misnesting(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a;
	unsigned int full;
	struct diags d;
	struct fake fa;
	__u64 w[128];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 5, 200, 201, "x", 0);
		n += event(w + n, FXT_EVENT_DURATION_COMPLETE, t + 10, 200,
			   201, "a", t + 20);
		n += event(w + n, FXT_EVENT_DURATION_COMPLETE, t + 15, 200,
			   201, "b", t + 30);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 25, 200, 201,
			   "x", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 26, 200, 201, "f",
			   1);
		n += event(w + n, FXT_EVENT_DURATION_COMPLETE, t + 100, 200,
			   201, "e", t + 120);
		n += event(w + n, FXT_EVENT_DURATION_BEGIN, t + 110, 200, 201,
			   "c", 0);
		n += event(w + n, FXT_EVENT_DURATION_BEGIN, t + 130, 200, 201,
			   "g", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 131, 200, 201, "f",
			   3);
		n += event(w + n, FXT_EVENT_FLOW_END, t + 131, 200, 201, "f",
			   3);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 132, 200, 201,
			   "g", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 133, 200, 201, "f",
			   4);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 140, 200, 201,
			   "c", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 141, 200, 201, "f",
			   5);
		drain_half(&fa, 0, w, n);
		a = output_find(&out, 8);
		ASSERT_EQ(11, a->records);
		ASSERT_EQ(3, a->refused[REFUSED_FLOW]);
		ASSERT_EQ(0, out.flows.count);
		memset(&d, 0, sizeof(d));
		check_words((const uint64_t *)file.bytes, file.len / 8,
			    file.len, &d);
		ASSERT_STR("0x000100: warning: complete-overlap: complete event on thread 201 (process 200) from 1001000000015 to 1001000000030 ns partly overlaps the slice from 1001000000010 to 1001000000020 ns on its stack: Perfetto drops it (stat slice_drop_overlapping_complete_event)\n"
			   "0x0001b0: warning: misplaced-end: thread 201 (process 200): an event at 1001000000130 ns cuts 1 slice left open inside a slice that ended at 1001000000120 ns: Perfetto ends it there (stat misplaced_end_event)\n",
			   d.text);
		fake_free(&fa);
	}
	return 0;
}

/*
 * The strict check's allowance of misplaced-end (the differential runs',
 * check_file_cut()'s) is a thread's cuts only: an async id's cut in the
 * drainer's output, which the drainer refuses to write (an end named
 * unlike the innermost open begin), still fails it.  A chunk of provider
 * 77 placed by hand: id 7, begin a, begin b, end a, then an instant cuts
 * b at a's end.
 */
static int test_tolerated_cut_thread_only(void)
{
	const __u64 t = START + SECOND;
	const uint64_t rules = 1ULL << FXT_RULE_MISPLACED_END |
			       1ULL << FXT_RULE_COMPLETE_OVERLAP |
			       1ULL << FXT_RULE_ASYNC_NAME;
	struct chunk c = { 0 };
	__u64 w[64];
	__u32 n;

	start();
	n = fxt_write_provider_info(w, 77, "raw", 3);
	n += fxt_write_init(w + n, out.ticks_per_second);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 10, 200, 201, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 20, 200, 201, "b", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 30, 200, 201, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 40, 200, 201, "i", 7);
	ASSERT_EQ(0, chunk_append(&c, w, 8 * n));
	output_place(&out, &c, 77);
	file_add(&file, &c);
	chunk_free(&c);
	ASSERT_STR("0x000128: warning: misplaced-end: async id 0x7 (process 200): an event at 1001000000040 ns cuts 1 begin left open inside a slice that ended at 1001000000030 ns: Perfetto ends it there (stat misplaced_end_event)\n",
		   check_output_problems(&out, &file, rules));
	ASSERT_EQ(1, check_output_tolerated);	/* async-name of end a */
	return 0;
}

/*
 * A thread's task buffer retires with slices open (an exec(), a munmap()
 * and ATTACH again: Documentation/uapi.rst) and the same pid and tid get a
 * new buffer: the reader's stack of the thread still holds the old
 * complete event, which cuts the new begins at the end after it ends.  No
 * slice is left for the reader at the flow begin after that end.  Before,
 * the new buffer started an empty stack here, the end popped only the
 * inner begin, and the flow begin was written (check_file() found
 * flow-no-enclosing-slice).
 */
static int test_flows_retired_stack(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b;
	struct fake fa, fb;
	unsigned int full;
	struct walk walk;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_DURATION_COMPLETE, t + 1, 200, 201, "x",
			  t + 100);
		drain_half(&fa, 0, w, n);
		a = drain_rest(&fa);
		ASSERT_EQ(1, a->records);
		output_retire(&out, a);
		fake_free(&fa);
		fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 50, 200, 201, "d",
			  0);
		n += event(w + n, FXT_EVENT_DURATION_BEGIN, t + 60, 200, 201,
			   "e", 0);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 200, 200, 201,
			   "e", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 201, 200, 201, "f",
			   1);
		drain_half(&fb, 0, w, n);
		b = output_find(&out, 9);
		ASSERT_EQ(3, b->records);
		ASSERT_EQ(1, b->refused[REFUSED_FLOW]);
		ASSERT_EQ(0, out.flows.count);
		ASSERT_EQ(0, check_file_cut(&walk, 1));
		ASSERT_EQ(4, walk.events);
		fake_free(&fb);
	}
	return 0;
}

/*
 * The reverse: the new buffer's flow binds to the begin its former image
 * left open, as it does for the reader, and its end closes that begin in
 * both, so the flow begin after it is refused.  Before, the flow begin
 * inside the old begin was refused (the stack started empty) and its end
 * was written with an id of its own.
 */
static int test_flows_retired_stack_closed(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b;
	struct fake fa, fb;
	unsigned int full;
	struct walk walk;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "b", 0);
		drain_half(&fa, 0, w, n);
		a = drain_rest(&fa);
		output_retire(&out, a);
		fake_free(&fa);
		fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 1, 200, 201, "f", 1);
		n += event(w + n, FXT_EVENT_FLOW_END, t + 2, 200, 201, "f", 1);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 3, 200, 201, "b",
			   0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 4, 200, 201, "f",
			   2);
		drain_half(&fb, 0, w, n);
		b = output_find(&out, 9);
		ASSERT_EQ(3, b->records);
		ASSERT_EQ(1, b->refused[REFUSED_FLOW]);
		ASSERT_EQ(0, out.flows.count);
		ASSERT_EQ(0, check_file(&walk));
		ASSERT_EQ(4, walk.events);
		fake_free(&fb);
	}
	return 0;
}

/*
 * A tid goes from process 200 to process 300 and back (tids, and pid 200,
 * used again; no context switch traced): the reader keeps pid 200's stack
 * of tid 201 through process 300's buffer, while the drainer keeps the
 * newest process's stack only.  The first buffer leaves a complete event
 * (old 0) or a begin (old 1) open; process 300's buffer takes the tid;
 * pid 200's second buffer opens two begins inside the old slice's time,
 * ends one after it, and begins a flow.  For the reader the old complete
 * event's end cut both begins (no slice at the flow), or the old begin
 * holds the flow.  Before, the second stack started empty: the flow
 * begin was written under the complete event's cut (check_file() found
 * flow-no-enclosing-slice).  Now the stack dropped for process 300 is
 * folded into its user's horizons, and pid 200's second stack of tid 201
 * is unsure at slice events up to the complete event's end, or any for
 * the begin: the flow is refused in both cases (refused at worst).  With
 * the complete event and a second buffer whose events all come after its
 * end (old 2), the reader pops it at the first: the flow binds.
 */
static int test_flows_tid_back(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	unsigned int full, old;
	struct walk walk;
	struct fake f;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		for (old = 0; old < 3; old++) {
			start();
			out.full_decode = full;
			fake_new(&f, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 0,
				 NULL);
			n = old == 1 ? event(w, FXT_EVENT_DURATION_BEGIN, t + 1,
					200, 201, "x", 0) :
				  event(w, FXT_EVENT_DURATION_COMPLETE, t + 1,
					200, 201, "x", t + 100);
			put_words(&f, w, n);
			db = drain_rest(&f);
			ASSERT_EQ(1, db->records);
			output_retire(&out, db);
			fake_free(&f);
			ASSERT_EQ(9, out.kept_frames);
			fake_new(&f, 9, FXTRACE_BUFFER_TASK, 300, 201, 4096, 0,
				 NULL);
			n = event(w, FXT_EVENT_DURATION_BEGIN, t + 30, 300,
				  201, "q", 0);
			n += event(w + n, FXT_EVENT_DURATION_END, t + 31, 300,
				   201, "q", 0);
			put_words(&f, w, n);
			db = drain_rest(&f);
			ASSERT_EQ(2, db->records);
			output_retire(&out, db);
			fake_free(&f);
			ASSERT_EQ(0, out.kept_frames);
			fake_new(&f, 10, FXTRACE_BUFFER_TASK, 200, 201, 4096, 0,
				 NULL);
			n = event(w, FXT_EVENT_DURATION_BEGIN,
				  old == 2 ? t + 150 : t + 50, 200, 201, "d",
				  0);
			n += event(w + n, FXT_EVENT_DURATION_BEGIN,
				   old == 2 ? t + 160 : t + 60, 200, 201, "e",
				   0);
			n += event(w + n, FXT_EVENT_DURATION_END, t + 200,
				   200, 201, "e", 0);
			n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 201, 200,
				   201, "f", 1);
			put_words(&f, w, n);
			db = drain_rest(&f);
			ASSERT_EQ(old == 2 ? 4 : 3, db->records);
			ASSERT_EQ(old != 2, db->refused[REFUSED_FLOW]);
			ASSERT_EQ(old == 2, out.flows.count);
			ASSERT_EQ(0, check_file_cut(&walk, old == 0));
			ASSERT_EQ(old == 2 ? 7 : 6, walk.events);
			fake_free(&f);
		}
	}
	return 0;
}

/*
 * Process 300's buffer takes tid 201 while process 200's buffer of it has
 * not retired, and that buffer then saves a complete event: the reader's
 * stack of pid 200 and tid 201 holds it, the drainer's is process 300's.
 * Pid 200's next buffer of tid 201 opens two begins inside it, ends one
 * after it, and begins a flow: the reader cut both begins at that end.
 * Before, the complete event moved no stack and left no horizon, and the
 * flow begin was written (check_file() found flow-no-enclosing-slice);
 * now it is folded into pid 200's horizon and the flow begin is refused.
 */
static int test_flows_tid_taken_late(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *db;
	unsigned int full;
	struct walk walk;
	struct fake fa, f;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_INSTANT, t, 200, 201, "i", 0);
		drain_half(&fa, 0, w, n);
		fake_new(&f, 9, FXTRACE_BUFFER_TASK, 300, 201, 4096, 0, NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 30, 300, 201, "q",
			  0);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 31, 300, 201,
			   "q", 0);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(2, db->records);
		output_retire(&out, db);
		fake_free(&f);
		n = event(w, FXT_EVENT_DURATION_COMPLETE, t + 1, 200, 201, "x",
			  t + 100);
		drain_half(&fa, 1, w, n);
		a = drain_rest(&fa);
		ASSERT_EQ(2, a->records);
		output_retire(&out, a);
		fake_free(&fa);
		fake_new(&f, 10, FXTRACE_BUFFER_TASK, 200, 201, 4096, 0, NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t + 50, 200, 201, "d",
			  0);
		n += event(w + n, FXT_EVENT_DURATION_BEGIN, t + 60, 200, 201,
			   "e", 0);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 200, 200, 201,
			   "e", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 201, 200, 201, "f",
			   1);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(3, db->records);
		ASSERT_EQ(1, db->refused[REFUSED_FLOW]);
		ASSERT_EQ(0, out.flows.count);
		ASSERT_EQ(0, check_file_cut(&walk, 1));
		ASSERT_EQ(7, walk.events);
		fake_free(&f);
	}
	return 0;
}

/*
 * Kept stacks are bounded: 2^18 frames in the session, a quarter per user,
 * each stack charged its depth and 8 frames of room.  Uid 1001's 7,281
 * threads that retire inside a duration fill its quarter (65,529 frames);
 * its next one, retiring inside a complete event, is forgotten, leaving
 * the complete event's end as the horizon of its pid and tid: that
 * thread's next buffer has its flow begin refused (the reader cuts there),
 * while a new thread's, inside its own duration, binds.  Before, every
 * new stack of the user was unsure from then on, and that flow was
 * refused too: a long-running server whose short-lived threads exit
 * inside a slice (or after an instant: one frame) lost every flow after
 * 7,281 of them.  A kept thread of uid 1001 still binds its flow to the
 * duration its buffer left open; uid 1000's thread is kept as before.
 */
static int test_flows_kept_bound(void)
{
	const __u32 kept = 65536 / 9, first = 10000;
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	__u32 i, pid;
	__u64 w[64];
	__u32 n;

	start();
	for (i = 0; i <= kept; i++) {
		pid = first + 2 * i;
		fake_new(&f, 100 + i, FXTRACE_BUFFER_TASK, pid, pid + 1, 4096,
			 0, NULL);
		fake_owner(&f, 1001);
		if (i < kept)
			n = event(w, FXT_EVENT_DURATION_BEGIN, t, pid, pid + 1,
				  "d", 0);
		else
			n = event(w, FXT_EVENT_DURATION_COMPLETE, t + 1, pid,
				  pid + 1, "x", t + 100);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(1, db->records);
		output_retire(&out, db);
		fake_free(&f);
	}
	ASSERT_EQ(9 * kept, out.kept_frames);
	ASSERT_EQ(kept, out.threads.count);
	/* The forgotten thread again: the reader has no slice at the flow. */
	pid = first + 2 * kept;
	fake_new(&f, 90, FXTRACE_BUFFER_TASK, pid, pid + 1, 4096, 0, NULL);
	fake_owner(&f, 1001);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 50, pid, pid + 1, "d", 0);
	n += event(w + n, FXT_EVENT_DURATION_BEGIN, t + 60, pid, pid + 1, "e",
		   0);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 200, pid, pid + 1, "e",
		   0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 201, pid, pid + 1, "f", 1);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(3, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	/* A new thread of uid 1001, inside its own duration: bound. */
	fake_new(&f, 91, FXTRACE_BUFFER_TASK, 500, 501, 4096, 0, NULL);
	fake_owner(&f, 1001);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 1, 500, 501, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 2, 500, 501, "f", 2);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	/* A kept thread of uid 1001: its duration holds the flow. */
	fake_new(&f, 92, FXTRACE_BUFFER_TASK, first, first + 1, 4096, 0, NULL);
	fake_owner(&f, 1001);
	n = event(w, FXT_EVENT_FLOW_BEGIN, t + 2, first, first + 1, "f", 3);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(0, db->invalid);
	fake_free(&f);
	ASSERT_EQ(9 * (kept - 1), out.kept_frames);
	/* Uid 1000's thread is kept, and its next buffer's flow binds. */
	fake_new(&f, 93, FXTRACE_BUFFER_TASK, 200, 201, 4096, 0, NULL);
	fake_owner(&f, 1000);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 1, 200, 201, "d", 0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	output_retire(&out, db);
	fake_free(&f);
	ASSERT_EQ(9 * kept, out.kept_frames);
	fake_new(&f, 94, FXTRACE_BUFFER_TASK, 200, 201, 4096, 0, NULL);
	fake_owner(&f, 1000);
	n = event(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 4);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(0, db->invalid);
	fake_free(&f);
	ASSERT_EQ(3, out.flows.count);
	ASSERT_EQ(0, check_file_cut(&walk, 1));
	return 0;
}

/*
 * A kept stack keeps the room it is charged for, its depth and 8 frames,
 * and does not grow: the kernel's slices of the tid fill that room, and
 * one more leaves the stack unsure, so the next buffer's flow begin is
 * refused although the reader has slices open (refused at worst).
 */
static int test_flows_kept_room(void)
{
	const __u64 t = START + SECOND;
	unsigned int full, kernel, i;
	struct drain_buffer *a, *b;
	struct fake fa, fb, fc;
	struct walk walk;
	__u64 w[128];
	__u32 n;

	for (full = 0; full < 2; full++) {
		for (kernel = 8; kernel <= 9; kernel++) {
			start();
			out.full_decode = full;
			fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096,
				 4096, NULL);
			fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 4096,
				 NULL);
			n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d",
				  0);
			drain_half(&fa, 0, w, n);
			a = drain_rest(&fa);
			output_retire(&out, a);
			fake_free(&fa);
			ASSERT_EQ(9, out.kept_frames);
			for (n = 0, i = 0; i < kernel; i++)
				n += event(w + n, FXT_EVENT_DURATION_BEGIN,
					   t + 1 + i, 200, 201, "k", 0);
			drain_half(&fc, 0, w, n);
			fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 200, 201, 4096,
				 4096, NULL);
			n = event(w, FXT_EVENT_FLOW_BEGIN, t + 20, 200, 201,
				  "f", 1);
			drain_half(&fb, 0, w, n);
			b = output_find(&out, 9);
			ASSERT_EQ(0, out.kept_frames);
			ASSERT_EQ(kernel == 8, b->records);
			ASSERT_EQ(kernel == 9, b->refused[REFUSED_FLOW]);
			ASSERT_EQ(0, check_file(&walk));
			fake_free(&fb);
			fake_free(&fc);
		}
	}
	return 0;
}

/*
 * A kept stack's thread switches out dead (its CPU buffer's context
 * switch, in the fast pass or the full path): the reader forgets its
 * stacks, and the drainer forgets the kept one and gives its charge back.
 * The next buffer of the pid and tid has no slice: its flow begin is
 * refused.  Before, the stack was emptied but stayed charged (9 frames).
 */
static int test_flows_kept_dead(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b, *cpu;
	struct fake fa, fb, fc;
	unsigned int full;
	struct walk walk;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 4096, NULL);
		n = fxt_write_string(w, 1, "incoming_weight", 15);
		n += fxt_write_string(w + n, 2, "outgoing_weight", 15);
		put_words(&fc, w, n);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
		drain_half(&fa, 0, w, n);
		a = drain_rest(&fa);
		output_retire(&out, a);
		fake_free(&fa);
		ASSERT_EQ(9, out.kept_frames);
		ASSERT_EQ(1, out.threads.count);
		n = fxt_write_context_switch(w, fxt_context_switch_words(2), 2,
					     0, FXT_THREAD_STATE_DEAD, t + 1,
					     201, 0);
		n += fxt_write_arg32(w + n, FXT_ARG_INT32, 1, NULL, 1024);
		n += fxt_write_arg32(w + n, FXT_ARG_INT32, 2, NULL, 1024);
		drain_half(&fc, 0, w, n);
		cpu = output_find(&out, 10);
		ASSERT_EQ(3, cpu->records);
		ASSERT_EQ(0, out.kept_frames);
		ASSERT_EQ(0, out.threads.count);
		fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
		drain_half(&fb, 0, w, n);
		b = output_find(&out, 9);
		ASSERT_EQ(0, b->records);
		ASSERT_EQ(1, b->refused[REFUSED_FLOW]);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&fb);
		fake_free(&fc);
	}
	return 0;
}

/*
 * A thread that switches out dead has no slice left for the reader, which
 * forgets a dead thread's stack: the flow begin its buffer saves after
 * that is refused.
 */
static int test_flows_dead_thread(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *cpu;
	struct fake fa, fc;
	unsigned int full;
	struct walk walk;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 4096, NULL);
		n = fxt_write_string(w, 1, "incoming_weight", 15);
		n += fxt_write_string(w + n, 2, "outgoing_weight", 15);
		put_words(&fc, w, n);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
		drain_half(&fa, 0, w, n);
		n = fxt_write_context_switch(w, fxt_context_switch_words(2), 2,
					     0, FXT_THREAD_STATE_DEAD, t + 1,
					     201, 0);
		n += fxt_write_arg32(w + n, FXT_ARG_INT32, 1, NULL, 1024);
		n += fxt_write_arg32(w + n, FXT_ARG_INT32, 2, NULL, 1024);
		drain_half(&fc, 0, w, n);
		n = event(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
		drain_half(&fa, 1, w, n);
		a = output_find(&out, 8);
		cpu = output_find(&out, 10);
		ASSERT_EQ(1, a->records);
		ASSERT_EQ(1, a->refused[REFUSED_FLOW]);
		ASSERT_EQ(0, cpu->invalid);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&fa);
		fake_free(&fc);
	}
	return 0;
}

/*
 * A process holds at most FLOW_OPEN_PER_PROCESS (16,384) flows open, and
 * they stay open after its buffers retire: they are open in the file.
 */
static int test_flow_share(void)
{
	const size_t begins = 16385, words = 2 * 5 + begins * 6;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *squatter, *other;
	struct fake s, o;
	struct walk walk;
	size_t n, i;

	ASSERT_TRUE(w);
	start();
	fake_new(&s, 8, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_new(&o, 9, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, NULL);
	n = event(w, FXT_EVENT_DURATION_BEGIN, START + SECOND, 200, 201, "d",
		  0);
	for (i = 0; i < begins; i++)
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, START + SECOND, 200,
			   201, "", 1 + i);
	n += event(w + n, FXT_EVENT_DURATION_END, START + SECOND, 200, 201,
		   "d", 0);
	ASSERT_CMP(n, <=, words);
	put_words(&s, w, n);
	squatter = drain_rest(&s);
	ASSERT_EQ(begins + 1, squatter->records);
	ASSERT_EQ(1, squatter->refused[REFUSED_FLOW]);
	ASSERT_EQ(1, squatter->invalid);
	output_retire(&out, squatter);
	ASSERT_EQ(begins - 1, out.flows.count);
	/* Another process: id 5 is still taken, id 16385 was never begun. */
	n = event(w, FXT_EVENT_DURATION_BEGIN, START + SECOND, 300, 301, "d",
		  0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, START + SECOND, 300, 301, "",
		   5);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, START + SECOND, 300, 301, "",
		   begins);
	n += event(w + n, FXT_EVENT_FLOW_END, START + SECOND, 300, 301, "",
		   6);
	n += event(w + n, FXT_EVENT_DURATION_END, START + SECOND, 300, 301,
		   "d", 0);
	put_words(&o, w, n);
	other = drain_rest(&o);
	ASSERT_EQ(4, other->records);
	ASSERT_EQ(1, other->refused[REFUSED_FLOW]);
	ASSERT_EQ(begins - 1, out.flows.count);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&s);
	fake_free(&o);
	free(w);
	return 0;
}

/*
 * Issue 20 item 4: a kernel record naming a thread whose comm is not
 * UTF-8 is kept, its name repaired; it used to be dropped as invalid.  A
 * producer's name for its own thread is repaired too.
 */
static int test_kernel_utf8(void)
{
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	start();
	fake_new(&f, 2, FXTRACE_BUFFER_KERNEL, 0, 0, 1 << 16, 0, NULL);
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, 4242, "\xff\xfe" "abc", 5,
				4240);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, 4240,
				 "\xff\xfe" "abc", 5, 0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(2, db->repaired);
	ASSERT_EQ(0, db->invalid);
	fake_free(&f);
	/* A producer's own thread too; its name for pid 1 is still refused. */
	fake_new(&f, 3, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, TID, "\xff\xfe" "abc", 5,
				PID);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, 1, "\xff\xfe" "abc",
				 5, 0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(2, db->repaired);
	ASSERT_EQ(1, db->refused[REFUSED_FOREIGN]);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(3, walk.repaired);
	fake_free(&f);
	return 0;
}

/*
 * Issue 15: a producer's drop count (any value it writes) is bounded and
 * kept apart from the kernel's.
 */
static int test_producer_drops(void)
{
	struct kind_totals task, cpu;
	struct drain_buffer *db;
	struct fake f, k;

	start();
	fake_new(&f, 10, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	fake_new(&k, 11, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 0, NULL);
	/* The kernel copies the control page's count at Stop. */
	f.hdr->dropped_records = 10325538640411919867ULL;
	k.hdr->dropped_records = 7;
	db = drain_rest(&f);
	ASSERT_EQ(PRODUCER_DROPS_MAX, db->dropped);
	drain_rest(&k);
	output_totals(&out, FXTRACE_BUFFER_TASK, &task);
	output_totals(&out, FXTRACE_BUFFER_CPU, &cpu);
	ASSERT_EQ(PRODUCER_DROPS_MAX, task.dropped);
	ASSERT_EQ(7, cpu.dropped);
	fake_free(&f);
	fake_free(&k);
	return 0;
}

/*
 * The drop counter output_drops() writes: one clean counter event on the
 * buffer's own thread, "fxtrace" / "dropped", int64 "records" and
 * "invalid", the buffer's id as its counter id, nothing after its content.
 */
static int test_drops_record(void)
{
	struct fxt_tables *t = fxt_tables_new(12, 0);
	struct fxt_sink sink = { 0 };
	struct fxt_record rec;
	struct drain_buffer *db;
	struct chunk c;
	uint64_t need;
	size_t off;
	__u64 w[8];
	struct fake f;
	ssize_t n;

	ASSERT_TRUE(t);
	start();
	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	f.hdr->dropped_records = 5;
	/* Two records refused: another thread's, then a size-0 header. */
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, 555, "x", 0);
	w[n++] = fxt_record_hdr(FXT_REC_EVENT, 0);
	put_words(&f, w, (size_t)n);
	ASSERT_EQ(0, output_rest(&out, &f.b, &c));
	chunk_free(&c);
	db = output_find(&out, 12);
	ASSERT_EQ(2, db->invalid);
	ASSERT_EQ(0, output_drops(&out, db, &c));
	/* The buffer's announcement (nothing of it was written), then it. */
	for (off = 0; off < c.len; off += (size_t)n) {
		memset(&sink, 0, sizeof(sink));
		n = fxt_decode_record(t, c.data + off, c.len - off, off, &rec,
				      &sink, &need);
		ASSERT_CMP(n, >, 0);
	}
	ASSERT_TRUE(rec.valid);
	ASSERT_TRUE(rec.complete);
	ASSERT_EQ(rec.words, rec.content_words);
	ASSERT_EQ(0, sink.counts[FXT_ERROR]);
	ASSERT_EQ(0, sink.counts[FXT_WARNING]);
	ASSERT_EQ(0, sink.counts[FXT_NOTE]);
	ASSERT_EQ(FXT_REC_EVENT, rec.type);
	ASSERT_EQ(FXT_EVENT_COUNTER, rec.subtype);
	ASSERT_EQ(START - SECOND, rec.ts);
	ASSERT_EQ(PID, rec.thread.pid);
	ASSERT_EQ(TID, rec.thread.tid);
	ASSERT_FXT_STR("fxtrace", rec.category);
	ASSERT_FXT_STR("dropped", rec.name);
	ASSERT_EQ(2, rec.nargs);
	ASSERT_FXT_STR("records", rec.args[0].name);
	ASSERT_EQ(FXT_ARG_INT64, rec.args[0].type);
	ASSERT_EQ(5, rec.args[0].value.i64);
	ASSERT_FXT_STR("invalid", rec.args[1].name);
	ASSERT_EQ(FXT_ARG_INT64, rec.args[1].type);
	ASSERT_EQ(2, rec.args[1].value.i64);
	ASSERT_EQ(12, rec.id);
	chunk_free(&c);
	fxt_tables_free(t);
	fake_free(&f);
	return 0;
}

/*
 * A "fxtrace:lost events" counter as libfxtrace writes it (id 0, uint64
 * "no buffer"); arg_type lets a producer write another type.
 */
static __u32 lost_counter(__u64 *w, __u64 ts, __u64 pid, __u64 tid,
			  unsigned int arg_type, __u64 count)
{
	static const char cat[] = "fxtrace", name[] = "lost events",
			  arg[] = "no buffer";
	__u16 cat_ref = fxt_inline_string_ref(sizeof(cat) - 1);
	__u16 name_ref = fxt_inline_string_ref(sizeof(name) - 1);
	__u32 n = 1;

	w[n++] = ts;
	w[n++] = pid;
	w[n++] = tid;
	n += fxt_write_stream(w + n, cat, sizeof(cat) - 1);
	n += fxt_write_stream(w + n, name, sizeof(name) - 1);
	n += fxt_write_arg64(w + n, arg_type,
			     fxt_inline_string_ref(sizeof(arg) - 1), arg,
			     count);
	w[n++] = 0;
	w[0] = fxt_event_hdr(n, FXT_EVENT_COUNTER, 1, FXT_THREAD_REF_INLINE,
			     cat_ref, name_ref);
	return n;
}

/*
 * Issue 20 item 5: the summary's line per process of events lost without a
 * buffer is the newest count of its own task buffers (by timestamp, not
 * by the order buffers are drained), bounded at 2^40, kept after its
 * buffers retire; a counter naming another process, a CPU buffer's, or
 * one of another argument type counts for nobody.
 */
static int test_lost_events(void)
{
	struct fake a, b, big, liar, cpu;
	struct walk walk;
	char *text = NULL;
	size_t text_len = 0;
	FILE *f;
	__u64 w[64];
	__u32 n;

	start();
	fake_new(&a, 20, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, NULL);
	fake_new(&b, 21, FXTRACE_BUFFER_TASK, PID, TID + 1, 1 << 16, 0, NULL);
	fake_new(&big, 22, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, NULL);
	fake_new(&liar, 23, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, NULL);
	fake_new(&cpu, 24, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 0, NULL);
	/* Thread a: 3 then 5 lost; thread b's 4 is older, drained last. */
	n = lost_counter(w, START + SECOND, PID, TID, FXT_ARG_UINT64, 3);
	drain_half(&a, 0, w, n);
	n = lost_counter(w, START + 2 * SECOND, PID, TID, FXT_ARG_UINT64, 5);
	drain_half(&a, 1, w, n);
	n = lost_counter(w, START + SECOND + SECOND / 2, PID, TID + 1,
			 FXT_ARG_UINT64, 4);
	put_words(&b, w, n);
	/* Any value a producer writes, bounded. */
	n = lost_counter(w, START + SECOND, 200, 201, FXT_ARG_UINT64,
			 10325538640411919867ULL);
	put_words(&big, w, n);
	/* Pid 300 speaks for pid 100 (refused), then with an int64. */
	n = lost_counter(w, START + 3 * SECOND, PID, TID, FXT_ARG_UINT64,
			 999);
	n += lost_counter(w + n, START + 3 * SECOND, 300, 301, FXT_ARG_INT64,
			  7);
	put_words(&liar, w, n);
	/* A kernel buffer's record is no producer's report. */
	n = lost_counter(w, START + 3 * SECOND, 400, 401, FXT_ARG_UINT64, 8);
	put_words(&cpu, w, n);
	output_retire(&out, drain_rest(&a));
	output_retire(&out, drain_rest(&b));
	drain_rest(&big);
	ASSERT_EQ(1, drain_rest(&liar)->refused[REFUSED_FOREIGN]);
	ASSERT_EQ(1, drain_rest(&cpu)->records);
	ASSERT_EQ(0, check_file(&walk));

	f = open_memstream(&text, &text_len);
	ASSERT_TRUE(f);
	output_report_lost(&out, f);
	fclose(f);
	ASSERT_STR("fxtrace-drain: pid 100: 5 events lost without a buffer (as its producer reports)\n"
		   "fxtrace-drain: pid 200: 1099511627776 events lost without a buffer (as its producer reports)\n",
		   text);
	free(text);
	fake_free(&a);
	fake_free(&b);
	fake_free(&big);
	fake_free(&liar);
	fake_free(&cpu);
	return 0;
}

/* Issue 21: size-0 records and large records past the end never go out. */
static int test_unframed(void)
{
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	start();
	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, NULL);
	/* A half: an event, a large record running past the end. */
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "a", 0);
	w[n++] = fxt_field(FXT_REC_LARGE, 0, 3) | fxt_field(1u << 20, 4, 35);
	drain_half(&f, 0, w, n);
	/* The other half: an event, a size-0 record, an event. */
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "b", 0);
	w[n++] = fxt_field(FXT_REC_EVENT, 0, 3);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "c", 0);
	drain_half(&f, 1, w, n);
	db = output_find(&out, 12);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(2, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(2, walk.events);
	fake_free(&f);
	return 0;
}

/*
 * The session window [START - 1 s, now + 1 s] holds its bounds, an
 * earlier clock reading does not shrink it, and a clock near the end of
 * the ticks ends it there instead of wrapping it; through the fast pass
 * and the full decoder alike.
 */
static int test_window_bounds(void)
{
	const __u64 lo = START - SECOND, hi = START + 11 * SECOND;
	struct drain_buffer *db;
	struct walk walk;
	unsigned int full;
	struct fake f;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		output_set_now(&out, START);
		fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0,
			 NULL);
		n = event(w, FXT_EVENT_INSTANT, lo, PID, TID, "lo", 0);
		n += event(w + n, FXT_EVENT_INSTANT, hi, PID, TID, "hi", 0);
		n += event(w + n, FXT_EVENT_DURATION_COMPLETE, lo, PID, TID,
			   "all", hi);
		/* Refused: a tick past either bound. */
		n += event(w + n, FXT_EVENT_INSTANT, lo - 1, PID, TID, "early",
			   0);
		n += event(w + n, FXT_EVENT_INSTANT, hi + 1, PID, TID, "late",
			   0);
		n += event(w + n, FXT_EVENT_DURATION_COMPLETE, lo, PID, TID,
			   "long", hi + 1);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(3, db->records);
		ASSERT_EQ(3, db->refused[REFUSED_TIME]);
		ASSERT_EQ(3, db->invalid);
		ASSERT_EQ(0, check_file(&walk));
		ASSERT_EQ(3, walk.events);
		fake_free(&f);
	}
	/* now + 1 s past UINT64_MAX: the window ends at UINT64_MAX. */
	start();
	output_set_now(&out, UINT64_MAX - 1);
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	n = event(w, FXT_EVENT_INSTANT, START + 100 * SECOND, PID, TID, "x",
		  0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(0, db->invalid);
	fake_free(&f);
	return 0;
}

/*
 * A task's announcement lies in memory its producer writes: only the
 * kernel's own (a valid provider info of this buffer, then its init
 * record) is skipped, and anything else there is judged as the
 * producer's records.  A CPU buffer takes its name from its announcement
 * only when that is valid UTF-8.
 */
static int test_announcement_rewritten(void)
{
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	__u64 w[16];
	__u32 n;

	start();
	/* Another buffer's provider info, then an init record. */
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	n = fxt_write_provider_info(w, 6, "honest 42", 9);
	n += fxt_write_init(w + n, SECOND);
	memcpy(f.data, w, 8 * n);
	db = drain_rest(&f);
	ASSERT_EQ(0, db->records);
	ASSERT_EQ(2, db->refused[REFUSED_KIND]);
	ASSERT_EQ(2, db->invalid);
	fake_free(&f);
	/* This buffer's, with a reserved bit set: invalid. */
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	fxt_write_provider_info(w, 6, "honest 42", 9);
	w[0] |= 1ULL << 60;
	memcpy(f.data, w, 8);
	db = drain_rest(&f);
	ASSERT_EQ(0, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(1, db->refused[REFUSED_KIND]);
	ASSERT_EQ(2, db->invalid);
	fake_free(&f);
	/* This buffer's, its init record rewritten as two strings: kept. */
	fake_new(&f, 7, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	n = fxt_write_string(w, 1, "", 0);
	n += fxt_write_string(w + n, 2, "", 0);
	memcpy(f.data + f.hdr->durable_reserved - 8 * n, w, 8 * n);
	db = drain_rest(&f);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(0, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	/* A CPU buffer announced with a name that is not UTF-8. */
	fake_new(&f, 8, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 0, NULL);
	f.hdr->cpu = 3;
	fake_announce(&f, "cpu\xff", SECOND);
	db = drain_rest(&f);
	ASSERT_STR("cpu3", db->name);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	return 0;
}

/*
 * A comm at the bounds of what task_name() reads and shows: the last C0
 * and C1 controls become ?, a space and U+00A0 stay; 16 bytes without a
 * NUL are 15; a header one byte short of the comm has none.
 */
static int test_comm_bounds(void)
{
	const size_t comm_at = offsetof(struct fxtrace_buffer_header, flags) +
			       sizeof(__u32);
	struct drain_buffer *db;
	struct fake f;

	start();
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0,
		 "a\x1f" "b\xc2\x9f" "c d\xc2\xa0");
	db = drain_rest(&f);
	ASSERT_STR("a?b??c d\xc2\xa0 101 (pid 100)", db->name);
	fake_free(&f);
	start();
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, "x");
	memcpy(f.mem + comm_at, "abcdefghijklmnop", 16);
	db = drain_rest(&f);
	ASSERT_STR("abcdefghijklmno 101 (pid 100)", db->name);
	fake_free(&f);
	start();
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, "worker");
	f.hdr->header_size = comm_at + 15;
	db = drain_rest(&f);
	ASSERT_STR("task 101 (pid 100)", db->name);
	fake_free(&f);
	return 0;
}

/*
 * A task's kernel objects: its process and its own thread, whose every
 * "process" argument is a koid of its pid.  An object of another type is
 * refused whatever its koid.
 */
static int test_kobj_attribution(void)
{
	const __u16 process_ref = fxt_inline_string_ref(7);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	__u64 w[64];
	__u32 n, k;

	start();
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, TID, "main", 4, PID);
	/* Type 3 (not a process or thread) with the thread's koid. */
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD + 1, TID, "vmo", 3, 0);
	/* A second "process", uint64: Perfetto's importer wants a koid. */
	k = n;
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, TID, "main", 4, PID);
	n += fxt_write_arg64(w + n, FXT_ARG_UINT64, process_ref, "process",
			     PID);
	w[k] = fxt_kobj_hdr(n - k, FXT_KOBJ_THREAD, fxt_inline_string_ref(4),
			    2);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(2, db->refused[REFUSED_FOREIGN]);
	ASSERT_EQ(2, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	return 0;
}

/* ---- a buffer with the probes' provider id ----------------------------- */

struct probe_names {
	unsigned int events, named;	/* of tid PROBE_TID; "probe-name" */
};

static int probe_name(void *ctx, const struct fxt_record *rec)
{
	struct probe_names *p = ctx;

	if (rec->type != FXT_REC_EVENT || rec->thread.tid != PROBE_TID)
		return 0;
	p->events++;
	p->named += fxt_string_is(&rec->name, "probe-name");
	return 0;
}

/*
 * Buffer ids count up, so a producer that attaches often enough gets the
 * probes' provider id.  Its records would re-announce that provider
 * (reader's tables cleared) and its string 1 would name the probes' next
 * events: refused instead, and no drop counter either.
 */
static int test_probe_provider(void)
{
	struct probe_names names = { 0 };
	struct drain_buffer *db;
	struct fake f;
	__u64 w[32];
	__u32 n;

	start();
	out.probe_provider = PROBE_PROVIDER;
	probe_chunk(&out, &file, true, START + SECOND);
	fake_new(&f, PROBE_PROVIDER, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16,
		 0, NULL);
	n = fxt_write_string(w, 1, "forged", 6);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "own", 0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	probe_chunk(&out, &file, false, START + SECOND);
	ASSERT_EQ(0, db->records);
	ASSERT_EQ(2, db->refused[REFUSED_PROVIDER]);
	ASSERT_EQ(2, db->invalid);
	ASSERT_EQ(0, check_output_but(&out, &file, FXT_RULE_COUNT, probe_name,
				      &names));
	ASSERT_EQ(2, names.events);
	ASSERT_EQ(2, names.named);
	fake_free(&f);
	return 0;
}

/*
 * A process's async share counts its open ids: a begin of an id already
 * open takes no more of it (it nests), and the end of each id's outermost
 * begin gives its place back.
 */
static int test_async_share_count(void)
{
	const size_t share = 16384, words = (3 * share + 2) * 5;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	size_t n, i;

	ASSERT_TRUE(w);
	start();
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, words * 8 + 4096, 0,
		 NULL);
	n = async_begins(w, PID, TID, share, 1);
	/* The share is full: id 1 begins again, taking no more of it. */
	n += async_begins(w + n, PID, TID, 1, 1);
	for (i = 0; i < share; i++)
		n += event(w + n, FXT_EVENT_ASYNC_END, START + SECOND, PID,
			   TID, "", 1 + i);
	/* Id 1's outer begin ends: all ended, a full share again. */
	n += event(w + n, FXT_EVENT_ASYNC_END, START + SECOND, PID, TID, "", 1);
	n += async_begins(w + n, PID, TID, share, 1 + share);
	ASSERT_EQ(words, n);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(3 * share + 2, db->records);
	ASSERT_EQ(0, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	free(w);
	return 0;
}

/*
 * A process whose flows all ended keeps its share while it has buffers:
 * its async begins and flows after that are judged as before.
 */
static int test_flows_ended_share(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct walk walk;
	unsigned int full;
	struct fake f;
	__u64 w[64];
	__u32 n;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0,
			 NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, PID, TID, "d", 0);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 1, PID, TID, "f",
			   1);
		n += event(w + n, FXT_EVENT_FLOW_END, t + 2, PID, TID, "f", 1);
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 3, PID, TID, "a",
			   1);
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 4, PID, TID, "f",
			   2);
		n += event(w + n, FXT_EVENT_DURATION_END, t + 5, PID, TID, "d",
			   0);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(6, db->records);
		ASSERT_EQ(0, db->invalid);
		ASSERT_EQ(1, out.flows.count);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&f);
	}
	return 0;
}

/*
 * The session holds at most FLOW_OPEN_PER_SESSION (16 shares of 16,384)
 * flows open: 16 processes fill it, a 17th's first begin is refused.
 */
static int test_flow_session_bound(void)
{
	const size_t share = 16384, words = (share + 2) * 5;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	size_t n, i, begins;
	__u32 p, pid;

	ASSERT_TRUE(w);
	start();
	for (p = 0; p < 17; p++) {
		pid = 1000 + 2 * p;
		begins = p < 16 ? share : 1;
		fake_new(&f, 30 + p, FXTRACE_BUFFER_TASK, pid, pid + 1,
			 words * 8 + 4096, 0, NULL);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, pid, pid + 1, "d", 0);
		for (i = 0; i < begins; i++)
			n += event(w + n, FXT_EVENT_FLOW_BEGIN, t, pid, pid + 1,
				   "", 1 + p * share + i);
		n += event(w + n, FXT_EVENT_DURATION_END, t, pid, pid + 1, "d",
			   0);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(p < 16 ? share + 2 : 2, db->records);
		ASSERT_EQ(p < 16 ? 0 : 1, db->refused[REFUSED_FLOW]);
		ASSERT_EQ(p < 16 ? 0 : 1, db->invalid);
		fake_free(&f);
	}
	ASSERT_EQ(16 * share, out.flows.count);
	ASSERT_EQ(0, check_file(&walk));
	free(w);
	return 0;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/*
 * An async end named unlike its begin, the two names of one FNV-1a 64
 * (found by a rho search in 2^32 hashes): the names used to be compared by
 * that hash, and the end was kept (check --strict passed it too); Perfetto
 * v58.2 puts the end on the begin's track (one per id) but closes only a
 * slice of its name.  Their hashes are keyed now.
 */
static int test_async_name_collision(void)
{
	static const char begin[] = "323a830bbc7e3a52",
			  end[] = "005fc1b9fb9780e7";
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	unsigned int full;
	struct walk walk;
	struct fake f;
	__u64 w[32];
	__u32 n;

	ASSERT_EQ(fnv1a(begin), fnv1a(end));
	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&f, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 4096,
			 NULL);
		n = event(w, FXT_EVENT_ASYNC_BEGIN, t, 200, 201, begin, 5);
		n += event(w + n, FXT_EVENT_ASYNC_END, t + 1, 200, 201, end, 5);
		drain_half(&f, 0, w, n);
		db = output_find(&out, 8);
		ASSERT_EQ(1, db->records);
		ASSERT_EQ(1, db->refused[REFUSED_ASYNC]);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&f);
	}
	return 0;
}

/*
 * Perfetto (v58.2) keys FXT async tracks by correlation id whatever the
 * process: process 4002's end of process 4000's open id 7, named and
 * categorised like 4000's begin, closed that slice there.  Each open
 * (pid, id) now carries an id of its own in the output: 4000's begin,
 * instant and end of 7 the same, 4002's end of no open begin a new one,
 * 4002's own slice of 7 another, its instant of no begin another.
 */
static int test_async_ids_per_process(void)
{
	static const uint64_t want[][3] = {
		{ 4000, FXT_EVENT_ASYNC_BEGIN, 1 },
		{ 4000, FXT_EVENT_ASYNC_INSTANT, 1 },
		{ 4002, FXT_EVENT_ASYNC_END, 2 },
		{ 4002, FXT_EVENT_ASYNC_BEGIN, 3 },
		{ 4002, FXT_EVENT_ASYNC_END, 3 },
		{ 4002, FXT_EVENT_ASYNC_INSTANT, 4 },
		{ 4000, FXT_EVENT_ASYNC_END, 1 },
	};
	const __u64 t = START + SECOND;
	struct walk walk;
	struct fake a, b;
	unsigned int i;
	__u64 w[64];
	__u32 n;

	start();
	fake_new(&a, 70, FXTRACE_BUFFER_TASK, 4000, 4001, 4096, 0, NULL);
	fake_new(&b, 71, FXTRACE_BUFFER_TASK, 4002, 4003, 4096, 0, NULL);
	n = event(w, FXT_EVENT_ASYNC_BEGIN, t, 4000, 4001, "op", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 1, 4000, 4001, "op", 7);
	put_words(&a, w, n);
	ASSERT_EQ(2, drain_rest(&a)->records);
	n = event(w, FXT_EVENT_ASYNC_END, t + 2, 4002, 4003, "op", 7);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 3, 4002, 4003, "own", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 4, 4002, 4003, "own", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 5, 4002, 4003, "x", 9);
	put_words(&b, w, n);
	ASSERT_EQ(4, drain_rest(&b)->records);
	n = event(w, FXT_EVENT_ASYNC_END, t + 6, 4000, 4001, "op", 7);
	put_words(&a, w, n);
	ASSERT_EQ(3, drain_rest(&a)->records);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(7, walk.nasyncs);
	for (i = 0; i < 7; i++) {
		ASSERT_EQ(want[i][0], walk.asyncs[i][0]);
		ASSERT_EQ(want[i][1], walk.asyncs[i][1]);
		ASSERT_EQ(want[i][2], walk.asyncs[i][2]);
	}
	fake_free(&a);
	fake_free(&b);
	return 0;
}

/*
 * Flows are keyed by (owner uid, id) and carry ids of their own in the
 * output.  Process 200 of uid 1000 begins flow 1; process 400 of uid
 * 1001, inside a slice of its own, steps and ends id 1 and begins its own
 * flow 1; process 300 of uid 1000 ends flow 1.  Uid 1001's step gets a
 * new id no begin has, its end, later, joins it (a begin saved later and
 * older than the step would take that id), its begin, later than both,
 * is kept and gets one of its own, and uid 1000's end, from another
 * process, carries its begin's id.  Before, 400's step and end were
 * written with id 1, joining 200's flow and closing it, its begin was
 * refused (id 1 open in process 200), and 300's end carried id 1 with no
 * flow left to join; then, until a step's id was kept for a later begin,
 * the end had an id of its own (3) and the begin 4.
 */
static int test_flows_by_owner(void)
{
	static const uint64_t want[][3] = {
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
		{ 400, FXT_EVENT_FLOW_STEP, 2 },
		{ 400, FXT_EVENT_FLOW_END, 2 },
		{ 400, FXT_EVENT_FLOW_BEGIN, 3 },
		{ 300, FXT_EVENT_FLOW_END, 1 },
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b, *c;
	struct fake fa, fb, fc;
	struct walk walk;
	unsigned int i;
	__u64 w[64];
	__u32 n;

	start();
	fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, "client");
	fake_owner(&fa, 1000);
	fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, "server");
	fake_owner(&fb, 1000);
	fake_new(&fc, 10, FXTRACE_BUFFER_TASK, 400, 401, 1 << 16, 0, "hostile");
	fake_owner(&fc, 1001);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 1, 200, 201, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 2, 200, 201, "d", 0);
	put_words(&fa, w, n);
	a = drain_rest(&fa);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 3, 400, 401, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_STEP, t + 4, 400, 401, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 5, 400, 401, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 6, 400, 401, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 7, 400, 401, "d", 0);
	put_words(&fc, w, n);
	c = drain_rest(&fc);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 8, 300, 301, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 9, 300, 301, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 10, 300, 301, "d", 0);
	put_words(&fb, w, n);
	b = drain_rest(&fb);
	ASSERT_EQ(3, a->records);
	ASSERT_EQ(5, c->records);
	ASSERT_EQ(3, b->records);
	ASSERT_EQ(0, a->invalid + b->invalid + c->invalid);
	/* Uid 1001's flow 1 is open; uid 1000's was ended by process 300. */
	ASSERT_EQ(1, out.flows.count);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(11, walk.events);
	ASSERT_EQ(5, walk.nflows);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(want[i][0], walk.flows[i][0]);
		ASSERT_EQ(want[i][1], walk.flows[i][1]);
		ASSERT_EQ(want[i][2], walk.flows[i][2]);
	}
	fake_free(&fa);
	fake_free(&fb);
	fake_free(&fc);
	return 0;
}

/*
 * n words w of a duration of pid's thread pid + 1 around one flow event
 * of type and id at ts.
 */
static __u32 flow_in_slice(__u64 *w, unsigned int type, __u64 ts, __u32 pid,
			   __u64 id)
{
	__u32 n = event(w, FXT_EVENT_DURATION_BEGIN, ts - 1, pid, pid + 1,
			"d", 0);

	n += event(w + n, type, ts, pid, pid + 1, "f", id);
	n += event(w + n, FXT_EVENT_DURATION_END, ts + 1, pid, pid + 1, "d", 0);
	return n;
}

/* A task buffer of pid's thread pid + 1, charged to uid. */
static void flow_buffer(struct fake *f, __u32 id, __u32 pid, __u32 uid,
			size_t size)
{
	fake_new(f, id, FXTRACE_BUFFER_TASK, pid, pid + 1, size, 0, "p");
	fake_owner(f, uid);
}

/* The file's flow events are want's (pid, type, id), n of them. */
static int flows_are(const uint64_t (*want)[3], unsigned int n)
{
	struct walk walk;
	unsigned int i;

	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(n, walk.nflows);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(want[i][0], walk.flows[i][0]);
		ASSERT_EQ(want[i][1], walk.flows[i][1]);
		ASSERT_EQ(want[i][2], walk.flows[i][2]);
	}
	return 0;
}

/*
 * A server's buffer saved before its client's: process 300 of uid 1000
 * ends id 7 at t + 10, id 9 at t + 20 and, outside any slice, id 11 at
 * t + 25; then process 200 of the same user begins id 7 at t + 2, id 11
 * at t + 5 and id 9 at t + 30.  Perfetto sorts by time: the begin of 7
 * comes before its end, so the begin takes the end's id (1) and the flow
 * is whole; the end of 11 outside a slice is kept for no begin (Perfetto
 * would count it as an error once a begin bound its id), so the begin of
 * 11 gets a new id (4); the begin of 9 comes after the end of 9, so it
 * gets a new id (5) too.  Both stay open.  Before, the begin of 7 got a
 * new id (4), the flow was lost and stayed open in the drainer (3 open).
 */
static int test_flows_end_saved_first(void)
{
	static const uint64_t want[][3] = {
		{ 300, FXT_EVENT_FLOW_END, 1 },
		{ 300, FXT_EVENT_FLOW_END, 2 },
		{ 300, FXT_EVENT_FLOW_END, 3 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 4 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 5 },
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b;
	struct fake fa, fb;
	__u64 w[64];
	__u32 n;

	start();
	flow_buffer(&fa, 8, 200, 1000, 1 << 16);
	flow_buffer(&fb, 9, 300, 1000, 1 << 16);
	n = flow_in_slice(w, FXT_EVENT_FLOW_END, t + 10, 300, 7);
	n += flow_in_slice(w + n, FXT_EVENT_FLOW_END, t + 20, 300, 9);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 25, 300, 301, "f", 11);
	put_words(&fb, w, n);
	b = drain_rest(&fb);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 7);
	n += flow_in_slice(w + n, FXT_EVENT_FLOW_BEGIN, t + 5, 200, 11);
	n += flow_in_slice(w + n, FXT_EVENT_FLOW_BEGIN, t + 30, 200, 9);
	put_words(&fa, w, n);
	a = drain_rest(&fa);
	ASSERT_EQ(9, a->records);
	ASSERT_EQ(7, b->records);
	ASSERT_EQ(0, a->invalid + b->invalid);
	ASSERT_EQ(2, out.flows.count);
	ASSERT_EQ(2, *(uint64_t *)fxt_map_get(&out.flow_users, 1000, 0));
	ASSERT_EQ(0, flows_are(want, 6));
	fake_free(&fa);
	fake_free(&fb);
	return 0;
}

/*
 * An id used twice, both ends saved first: the server ends id 7 at t + 10
 * and t + 30, the client begins it at t + 2 and t + 20.  Each begin takes
 * the end after it (1, then 2): two flows, none left open.  Before, the
 * first begin got a new id (3), and the second was refused (id 7 open).
 */
static int test_flows_end_saved_first_reused(void)
{
	static const uint64_t want[][3] = {
		{ 300, FXT_EVENT_FLOW_END, 1 },
		{ 300, FXT_EVENT_FLOW_END, 2 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 2 },
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b;
	struct fake fa, fb;
	__u64 w[64];
	__u32 n;

	start();
	flow_buffer(&fa, 8, 200, 1000, 1 << 16);
	flow_buffer(&fb, 9, 300, 1000, 1 << 16);
	n = flow_in_slice(w, FXT_EVENT_FLOW_END, t + 10, 300, 7);
	n += flow_in_slice(w + n, FXT_EVENT_FLOW_END, t + 30, 300, 7);
	put_words(&fb, w, n);
	b = drain_rest(&fb);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 7);
	n += flow_in_slice(w + n, FXT_EVENT_FLOW_BEGIN, t + 20, 200, 7);
	put_words(&fa, w, n);
	a = drain_rest(&fa);
	ASSERT_EQ(6, a->records);
	ASSERT_EQ(0, a->invalid + b->invalid);
	ASSERT_EQ(0, out.flows.count);
	ASSERT_EQ(0, out.flow_users.count);
	ASSERT_EQ(0, flows_are(want, 4));
	fake_free(&fa);
	fake_free(&fb);
	return 0;
}

/*
 * A step on one server (300, t + 10) and the end on another (400,
 * t + 20), both saved before the client's begin (200, t + 2): the end,
 * later, joins the step's id, and the begin takes it: one flow of three
 * events, none left open.  Before, the step, the end and the begin got
 * ids 1, 2 and 3.
 */
static int test_flows_step_end_saved_first(void)
{
	static const uint64_t want[][3] = {
		{ 300, FXT_EVENT_FLOW_STEP, 1 },
		{ 400, FXT_EVENT_FLOW_END, 1 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
	};
	const __u64 t = START + SECOND;
	struct fake fa, fb, fc;
	__u64 w[64];
	__u32 n;

	start();
	flow_buffer(&fa, 8, 200, 1000, 1 << 16);
	flow_buffer(&fb, 9, 300, 1000, 1 << 16);
	flow_buffer(&fc, 10, 400, 1000, 1 << 16);
	n = flow_in_slice(w, FXT_EVENT_FLOW_STEP, t + 10, 300, 7);
	put_words(&fb, w, n);
	drain_rest(&fb);
	n = flow_in_slice(w, FXT_EVENT_FLOW_END, t + 20, 400, 7);
	put_words(&fc, w, n);
	drain_rest(&fc);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 7);
	put_words(&fa, w, n);
	drain_rest(&fa);
	ASSERT_EQ(0, out.flows.count);
	ASSERT_EQ(0, out.flow_users.count);
	ASSERT_EQ(0, flows_are(want, 3));
	fake_free(&fa);
	fake_free(&fb);
	fake_free(&fc);
	return 0;
}

/*
 * A step saved before the begin, the end after it: server 300's step at
 * t + 10, then the client's begin at t + 2 takes its id (1) and opens the
 * flow with it, then server 400's end at t + 20 joins and closes it: one
 * id, none left open.  Before, the begin got a new id (2), which the end
 * took: the step bound to nothing.
 */
static int test_flows_step_saved_first(void)
{
	static const uint64_t want[][3] = {
		{ 300, FXT_EVENT_FLOW_STEP, 1 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
		{ 400, FXT_EVENT_FLOW_END, 1 },
	};
	const __u64 t = START + SECOND;
	struct fake fa, fb, fc;
	__u64 w[64];
	__u32 n;

	start();
	flow_buffer(&fa, 8, 200, 1000, 1 << 16);
	flow_buffer(&fb, 9, 300, 1000, 1 << 16);
	flow_buffer(&fc, 10, 400, 1000, 1 << 16);
	n = flow_in_slice(w, FXT_EVENT_FLOW_STEP, t + 10, 300, 7);
	put_words(&fb, w, n);
	drain_rest(&fb);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 7);
	put_words(&fa, w, n);
	drain_rest(&fa);
	ASSERT_EQ(1, out.flows.count);
	n = flow_in_slice(w, FXT_EVENT_FLOW_END, t + 20, 400, 7);
	put_words(&fc, w, n);
	drain_rest(&fc);
	ASSERT_EQ(0, out.flows.count);
	ASSERT_EQ(0, out.flow_users.count);
	ASSERT_EQ(0, flows_are(want, 3));
	fake_free(&fa);
	fake_free(&fb);
	fake_free(&fc);
	return 0;
}

/*
 * A begin that takes an end saved first is not refused by a begin of its
 * (user, id) still open: two clients of uid 1000 use id 7.  The server's
 * end at t + 10 is saved first (id 1); client 200's begin at t + 20,
 * later, gets a new id (2) and stays open for its end to come; client
 * 250's begin at t + 5 takes the end's id (1): its flow is whole and
 * holds nothing open.  Before, client 250's begin was refused as a
 * duplicate of the open (uid 1000, id 7), and the end bound to nothing.
 */
static int test_flows_end_saved_first_id_open(void)
{
	static const uint64_t want[][3] = {
		{ 300, FXT_EVENT_FLOW_END, 1 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 2 },
		{ 250, FXT_EVENT_FLOW_BEGIN, 1 },
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct fake fa, fb, fc;
	__u64 w[64];
	__u32 n;

	start();
	flow_buffer(&fa, 8, 200, 1000, 1 << 16);
	flow_buffer(&fb, 9, 250, 1000, 1 << 16);
	flow_buffer(&fc, 10, 300, 1000, 1 << 16);
	n = flow_in_slice(w, FXT_EVENT_FLOW_END, t + 10, 300, 7);
	put_words(&fc, w, n);
	drain_rest(&fc);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 20, 200, 7);
	put_words(&fa, w, n);
	drain_rest(&fa);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 5, 250, 7);
	put_words(&fb, w, n);
	db = drain_rest(&fb);
	ASSERT_EQ(3, db->records);
	ASSERT_EQ(0, db->invalid);
	ASSERT_EQ(1, out.flows.count);
	ASSERT_EQ(0, out.early_count);
	ASSERT_EQ(0, flows_are(want, 3));
	fake_free(&fa);
	fake_free(&fb);
	fake_free(&fc);
	return 0;
}

/*
 * The other way round: a begin saved before an end of its (user, id)
 * older than it.  Two clients of uid 1000 use id 7: client 200's begin at
 * t + 20 is saved first (id 1, open); then server 300's end at t + 10,
 * older, which sorted comes before that begin: it gets a new id (2),
 * kept as a run, and client 250's begin at t + 5, saved next, takes it;
 * server 400's end at t + 30 ends client 200's flow (1).  Before, the
 * end at t + 10 joined and ended client 200's flow in file order (1),
 * where Perfetto drops it, client 250's begin got a new id (2) and the
 * end at t + 30 bound to it: the wrong client's flow, and client 200's
 * none.
 */
static int test_flows_end_older_than_open_begin(void)
{
	static const uint64_t want[][3] = {
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
		{ 300, FXT_EVENT_FLOW_END, 2 },
		{ 250, FXT_EVENT_FLOW_BEGIN, 2 },
		{ 400, FXT_EVENT_FLOW_END, 1 },
	};
	const __u64 t = START + SECOND;
	struct fake f[4];
	static const __u32 pid[4] = { 200, 300, 250, 400 };
	static const unsigned int type[4] = {
		FXT_EVENT_FLOW_BEGIN, FXT_EVENT_FLOW_END,
		FXT_EVENT_FLOW_BEGIN, FXT_EVENT_FLOW_END,
	};
	static const __u64 at[4] = { 20, 10, 5, 30 };
	unsigned int i;
	__u64 w[64];
	__u32 n;

	start();
	for (i = 0; i < 4; i++)
		flow_buffer(&f[i], 8 + i, pid[i], 1000, 1 << 16);
	for (i = 0; i < 4; i++) {
		n = flow_in_slice(w, type[i], t + at[i], pid[i], 7);
		put_words(&f[i], w, n);
		drain_rest(&f[i]);
		/* client 200's flow stays open until the end at t + 30 */
		ASSERT_EQ(i < 3, out.flows.count);
	}
	ASSERT_EQ(0, out.flow_users.count);
	ASSERT_EQ(0, out.early_count);
	ASSERT_EQ(0, flows_are(want, 4));
	for (i = 0; i < 4; i++)
		fake_free(&f[i]);
	return 0;
}

/*
 * Another user's end saved first never joins: uid 1001's process 400
 * ends id 7 at t + 10, uid 1000's process 300 at t + 12, then uid 1000's
 * process 200 begins id 7 at t + 2: it takes its own user's end's id (2),
 * though uid 1001's is older and nearer.  With shared flows (keyed by id
 * alone, as Perfetto keys them) it takes uid 1001's (1), as Perfetto
 * would join them.  Before, the begin got a new id (3) either way.
 */
static int test_flows_end_saved_first_other_user(void)
{
	static const uint64_t want[2][3][3] = {
		{ { 400, FXT_EVENT_FLOW_END, 1 },
		  { 300, FXT_EVENT_FLOW_END, 2 },
		  { 200, FXT_EVENT_FLOW_BEGIN, 2 } },
		{ { 400, FXT_EVENT_FLOW_END, 1 },
		  { 300, FXT_EVENT_FLOW_END, 2 },
		  { 200, FXT_EVENT_FLOW_BEGIN, 1 } },
	};
	const __u64 t = START + SECOND;
	struct fake fa, fb, fc;
	unsigned int shared;
	__u64 w[64];
	__u32 n;

	for (shared = 0; shared < 2; shared++) {
		start();
		out.shared_flows = shared;
		flow_buffer(&fa, 8, 200, 1000, 1 << 16);
		flow_buffer(&fb, 9, 300, 1000, 1 << 16);
		flow_buffer(&fc, 10, 400, 1001, 1 << 16);
		n = flow_in_slice(w, FXT_EVENT_FLOW_END, t + 10, 400, 7);
		put_words(&fc, w, n);
		drain_rest(&fc);
		n = flow_in_slice(w, FXT_EVENT_FLOW_END, t + 12, 300, 7);
		put_words(&fb, w, n);
		drain_rest(&fb);
		n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 7);
		put_words(&fa, w, n);
		drain_rest(&fa);
		ASSERT_EQ(0, out.flows.count);
		ASSERT_EQ(0, flows_are(want[shared], 3));
		fake_free(&fa);
		fake_free(&fb);
		fake_free(&fc);
	}
	return 0;
}

/* The ids of the file's flow begins, in order. */
struct begin_ids {
	uint64_t ids[8];
	unsigned int n;
};

static int count_begin(void *ctx, const struct fxt_record *rec)
{
	struct begin_ids *b = ctx;

	if (rec->type == FXT_REC_EVENT && rec->subtype == FXT_EVENT_FLOW_BEGIN &&
	    b->n < 8)
		b->ids[b->n++] = rec->id;
	return 0;
}

/*
 * n ends of ids first to first + n - 1 at ts, inside a duration of pid's
 * thread pid + 1, in a new task buffer of uid (buffer id), saved.
 */
static int ends_saved(struct fake *f, __u64 *w, __u32 buffer, __u32 pid,
		      __u32 uid, __u64 first, __u64 n, __u64 ts)
{
	struct drain_buffer *db;
	__u32 words;
	__u64 id;

	flow_buffer(f, buffer, pid, uid, 1 << 20);
	words = event(w, FXT_EVENT_DURATION_BEGIN, ts - 1, pid, pid + 1, "d",
		      0);
	for (id = first; id < first + n; id++)
		words += event(w + words, FXT_EVENT_FLOW_END, ts, pid, pid + 1,
			       "f", id);
	words += event(w + words, FXT_EVENT_DURATION_END, ts + 1, pid, pid + 1,
		       "d", 0);
	put_words(f, w, words);
	db = drain_rest(f);
	ASSERT_EQ(n + 2, db->records);
	ASSERT_EQ(0, db->invalid);
	return 0;
}

/*
 * Steps and ends waiting for a begin are bounded, 16,384 per user and
 * 65,536 in the session, and past a bound a user's new run forgets the
 * oldest it made, never another user's.  All ends at t + 10, out ids in
 * order: uid 1000 ends id 1 (1); uid 1001 ends ids 1 to 16,385 (2 to
 * 16,386: the last forgets its id 1, 2); uids 1002 to 1004 end ids 1 to
 * 16,384 (16,387 to 65,538: the session is full at uid 1004's last,
 * which forgets uid 1004's id 1, 49,155); uid 1000 ends id 2 (65,539:
 * forgets its id 1, 1); uid 1005, with none kept in a full session, ends
 * id 1 (65,540, not kept).  Then the begins, at t + 2: uid 1001's of id
 * 16,385 takes 16,386 and of id 1 a new id (65,541); uid 1000's of id 1
 * a new id (65,542) and of id 2 takes 65,539; uid 1004's of id 1 a new
 * id (65,543) and of id 16,384 takes 65,538; uid 1005's a new id
 * (65,544).  Before, past a bound a run was not kept: uid 1001's 16,385th
 * and all later ones, so their begins got new ids (the first 65,541).
 */
static int test_flows_early_bound(void)
{
	static const uint64_t want[] = { 16386, 65541, 65542, 65539,
					 65543, 65538, 65544 };
	static const struct {
		__u32 pid, uid;
		__u64 id;
	} begin[] = {
		{ 900, 1001, 16385 }, { 900, 1001, 1 },
		{ 200, 1000, 1 }, { 200, 1000, 2 },
		{ 1100, 1004, 1 }, { 1100, 1004, 16384 },
		{ 1200, 1005, 1 },
	};
	const size_t user = 16384, words = (user + 1) * 6 + 16;
	const __u64 t = START + SECOND;
	struct begin_ids begins = { 0 };
	struct fake f[7], fb[7];
	unsigned int i;
	__u64 *w = calloc(words, sizeof(*w));
	__u32 n;

	ASSERT_TRUE(w != NULL);
	start();
	ASSERT_EQ(0, ends_saved(&f[0], w, 10, 300, 1000, 1, 1, t + 10));
	ASSERT_EQ(0, ends_saved(&f[1], w, 11, 400, 1001, 1, user + 1, t + 10));
	ASSERT_EQ(1 + user, out.early_count);
	for (i = 2; i < 5; i++)
		ASSERT_EQ(0, ends_saved(&f[i], w, 10 + i, 300 + 100 * i,
					1000 + i, 1, user, t + 10));
	ASSERT_EQ(65536, out.early_count);
	ASSERT_EQ(0, ends_saved(&f[5], w, 15, 800, 1000, 2, 1, t + 10));
	ASSERT_EQ(0, ends_saved(&f[6], w, 16, 900, 1005, 1, 1, t + 10));
	ASSERT_EQ(65536, out.early_count);
	ASSERT_EQ(5, out.early_users.count);
	for (i = 0; i < 7; i++) {
		flow_buffer(&fb[i], 20 + i, begin[i].pid + 1000 + 10 * i,
			    begin[i].uid, 1 << 16);
		n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 2,
				  begin[i].pid + 1000 + 10 * i, begin[i].id);
		put_words(&fb[i], w, n);
		drain_rest(&fb[i]);
	}
	ASSERT_EQ(0, check_output_but(&out, &file, FXT_RULE_COUNT, count_begin,
				      &begins));
	ASSERT_EQ(7, begins.n);
	for (i = 0; i < 7; i++)
		ASSERT_EQ(want[i], begins.ids[i]);
	/* The begins that took an end opened nothing; the others are open. */
	ASSERT_EQ(65533, out.early_count);
	ASSERT_EQ(4, out.flows.count);
	for (i = 0; i < 7; i++) {
		fake_free(&f[i]);
		fake_free(&fb[i]);
	}
	free(w);
	return 0;
}

/*
 * One (user, id) keeps 4 runs of steps and ends waiting for a begin, the
 * oldest forgotten first: the server ends id 9 at t + 20 to t + 60 (ids
 * 1 to 5; the run at t + 20 is forgotten).  Process 200's begin at
 * t + 25 takes the end at t + 30 (2); process 250's at t + 5, which the
 * forgotten end may have closed, takes none: a new id (6), open.  Before,
 * the begins got ids 6 and 7.
 */
static int test_flows_early_per_id(void)
{
	static const uint64_t want[][3] = {
		{ 300, FXT_EVENT_FLOW_END, 1 },
		{ 300, FXT_EVENT_FLOW_END, 2 },
		{ 300, FXT_EVENT_FLOW_END, 3 },
		{ 300, FXT_EVENT_FLOW_END, 4 },
		{ 300, FXT_EVENT_FLOW_END, 5 },
		{ 200, FXT_EVENT_FLOW_BEGIN, 2 },
		{ 250, FXT_EVENT_FLOW_BEGIN, 6 },
	};
	const __u64 t = START + SECOND;
	struct fake fa, fb, fc;
	unsigned int i;
	__u64 w[128];
	__u32 n = 0;

	start();
	flow_buffer(&fa, 8, 200, 1000, 1 << 16);
	flow_buffer(&fb, 9, 250, 1000, 1 << 16);
	flow_buffer(&fc, 10, 300, 1000, 1 << 16);
	for (i = 0; i < 5; i++)
		n += flow_in_slice(w + n, FXT_EVENT_FLOW_END, t + 20 + 10 * i,
				   300, 9);
	put_words(&fc, w, n);
	drain_rest(&fc);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 25, 200, 9);
	put_words(&fa, w, n);
	drain_rest(&fa);
	n = flow_in_slice(w, FXT_EVENT_FLOW_BEGIN, t + 5, 250, 9);
	put_words(&fb, w, n);
	drain_rest(&fb);
	ASSERT_EQ(1, out.flows.count);
	ASSERT_EQ(0, flows_are(want, 7));
	fake_free(&fa);
	fake_free(&fb);
	fake_free(&fc);
	return 0;
}

/*
 * With shared flows (--shared-flows) flows are keyed by id alone, as
 * Perfetto keys them: process 400 of uid 1001 steps and ends uid 1000's
 * flow 1 (the begin's id in the output, 1, the flow closed) and begins
 * its own flow 1 (a new id, 2); process 300 of uid 1000 begins id 1,
 * refused as uid 1001 holds it open, and ends it, joining uid 1001's flow
 * (2).  Each end gives the begin's user its place back.  Without the
 * option, the same records are test_flows_by_owner's: uid 1001's step
 * and end get ids of their own.  Before, the option did not exist.
 */
static int test_flows_shared(void)
{
	static const uint64_t want[][3] = {
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
		{ 400, FXT_EVENT_FLOW_STEP, 1 },
		{ 400, FXT_EVENT_FLOW_END, 1 },
		{ 400, FXT_EVENT_FLOW_BEGIN, 2 },
		{ 300, FXT_EVENT_FLOW_END, 2 },
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *a, *b, *c;
	struct fake fa, fb, fc;
	struct walk walk;
	unsigned int i;
	__u64 w[64];
	__u32 n;

	start();
	out.shared_flows = true;
	fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, "client");
	fake_owner(&fa, 1000);
	fake_new(&fb, 9, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, "client2");
	fake_owner(&fb, 1000);
	fake_new(&fc, 10, FXTRACE_BUFFER_TASK, 400, 401, 1 << 16, 0, "daemon");
	fake_owner(&fc, 1001);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 1, 200, 201, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 2, 200, 201, "d", 0);
	put_words(&fa, w, n);
	a = drain_rest(&fa);
	ASSERT_EQ(1, out.flows.count);
	ASSERT_EQ(1, *(uint64_t *)fxt_map_get(&out.flow_users, 1000, 0));
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 3, 400, 401, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_STEP, t + 4, 400, 401, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 5, 400, 401, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 6, 400, 401, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 7, 400, 401, "d", 0);
	put_words(&fc, w, n);
	c = drain_rest(&fc);
	/* Uid 1000's flow ended by uid 1001: only 1001's own is charged. */
	ASSERT_EQ(1, out.flows.count);
	ASSERT_EQ(1, out.flow_users.count);
	ASSERT_EQ(1, *(uint64_t *)fxt_map_get(&out.flow_users, 1001, 0));
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 8, 300, 301, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 9, 300, 301, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 10, 300, 301, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 11, 300, 301, "d", 0);
	put_words(&fb, w, n);
	b = drain_rest(&fb);
	ASSERT_EQ(3, a->records);
	ASSERT_EQ(5, c->records);
	ASSERT_EQ(3, b->records);
	ASSERT_EQ(0, a->invalid + c->invalid);
	ASSERT_EQ(1, b->invalid);
	ASSERT_EQ(1, b->refused[REFUSED_FLOW]);
	ASSERT_EQ(0, out.flows.count);
	ASSERT_EQ(0, out.flow_users.count);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(11, walk.events);
	ASSERT_EQ(5, walk.nflows);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(want[i][0], walk.flows[i][0]);
		ASSERT_EQ(want[i][1], walk.flows[i][1]);
		ASSERT_EQ(want[i][2], walk.flows[i][2]);
	}
	fake_free(&fa);
	fake_free(&fb);
	fake_free(&fc);
	return 0;
}

/*
 * Shared flows keep the bounds: uid 1001's 5 processes of 16,384 begins
 * of distinct ids keep 65,536 (its quarter of the session's open flows)
 * and the fifth process's are refused; uid 1000's begin of a new id is
 * kept.  Uid 1000's end of uid 1001's id 1 closes it and frees uid 1001's
 * place, the begin's user's, not the end's: uid 1001's next begin is kept,
 * the one after refused.
 */
static int test_flows_shared_user_bound(void)
{
	const size_t share = 16384, words = (share + 2) * 5;
	const __u64 t = START + SECOND, next = 5 * share + 1;
	struct drain_buffer *db, *victim, *again;
	uint64_t records[5], refused[5];
	__u64 *w = malloc(words * 8);
	struct fake f, fv, fa;
	size_t n, i;
	__u32 p, pid;

	ASSERT_TRUE(w);
	start();
	out.shared_flows = true;
	for (p = 0; p < 5; p++) {
		pid = 1000 + 2 * p;
		fake_new(&f, 30 + p, FXTRACE_BUFFER_TASK, pid, pid + 1,
			 words * 8 + 4096, 0, NULL);
		fake_owner(&f, 1001);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, pid, pid + 1, "d", 0);
		for (i = 0; i < share; i++)
			n += event(w + n, FXT_EVENT_FLOW_BEGIN, t, pid, pid + 1,
				   "", 1 + p * share + i);
		n += event(w + n, FXT_EVENT_DURATION_END, t, pid, pid + 1, "d",
			   0);
		put_words(&f, w, n);
		db = drain_rest(&f);
		records[p] = db->records;
		refused[p] = db->refused[REFUSED_FLOW];
		fake_free(&f);
	}
	for (p = 0; p < 5; p++) {
		ASSERT_EQ(p < 4 ? share + 2 : 2, records[p]);
		ASSERT_EQ(p < 4 ? 0 : share, refused[p]);
	}
	ASSERT_EQ(4 * share, out.flows.count);
	fake_new(&fv, 60, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, "client");
	fake_owner(&fv, 1000);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 1, 200, 201, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", next);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 3, 200, 201, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 4, 200, 201, "d", 0);
	put_words(&fv, w, n);
	victim = drain_rest(&fv);
	ASSERT_EQ(4, victim->records);
	ASSERT_EQ(0, victim->invalid);
	ASSERT_EQ(4 * share, out.flows.count);
	ASSERT_EQ(4 * share - 1,
		  *(uint64_t *)fxt_map_get(&out.flow_users, 1001, 0));
	fake_new(&fa, 61, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, "again");
	fake_owner(&fa, 1001);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 5, 300, 301, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 6, 300, 301, "f", next + 1);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 7, 300, 301, "f", next + 2);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 8, 300, 301, "d", 0);
	put_words(&fa, w, n);
	again = drain_rest(&fa);
	ASSERT_EQ(3, again->records);
	ASSERT_EQ(1, again->refused[REFUSED_FLOW]);
	ASSERT_EQ(4 * share + 1, out.flows.count);
	fake_free(&fv);
	fake_free(&fa);
	free(w);
	return 0;
}

/*
 * With shared flows an end from another user's process gives the place
 * back to the begin's process, not the end's: process 200 (uid 1000)
 * fills its share with ids 1 to 16,384, and its next begin is refused;
 * process 400 (uid 1001), holding flow 50,000 of its own, ends id 1; then
 * process 200's begin of a new id is kept, the one after refused, and
 * process 400's own flow still counts (its end closes it).
 */
static int test_flows_shared_process_share(void)
{
	const size_t share = 16384, words = (share + 4) * 5;
	const __u64 t = START + SECOND;
	struct drain_buffer *begins, *ender, *again;
	__u64 *w = malloc(words * 8);
	struct fake fa, fe, fg;
	size_t n, i;

	ASSERT_TRUE(w);
	start();
	out.shared_flows = true;
	fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 "client");
	fake_owner(&fa, 1000);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
	for (i = 0; i <= share; i++)
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t, 200, 201, "", 1 + i);
	n += event(w + n, FXT_EVENT_DURATION_END, t, 200, 201, "d", 0);
	put_words(&fa, w, n);
	begins = drain_rest(&fa);
	ASSERT_EQ(share + 2, begins->records);
	ASSERT_EQ(1, begins->refused[REFUSED_FLOW]);
	fake_new(&fe, 9, FXTRACE_BUFFER_TASK, 400, 401, 1 << 16, 0, "daemon");
	fake_owner(&fe, 1001);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 1, 400, 401, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 2, 400, 401, "f", 50000);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 3, 400, 401, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 4, 400, 401, "d", 0);
	put_words(&fe, w, n);
	ender = drain_rest(&fe);
	ASSERT_EQ(4, ender->records);
	ASSERT_EQ(0, ender->invalid);
	ASSERT_EQ(share, out.flows.count);
	fake_new(&fg, 10, FXTRACE_BUFFER_TASK, 200, 202, 1 << 16, 0, "client");
	fake_owner(&fg, 1000);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 5, 200, 202, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 6, 200, 202, "f", 60000);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 7, 200, 202, "f", 60001);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 8, 200, 202, "f", 50000);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 9, 200, 202, "d", 0);
	put_words(&fg, w, n);
	again = drain_rest(&fg);
	ASSERT_EQ(4, again->records);
	ASSERT_EQ(1, again->refused[REFUSED_FLOW]);
	ASSERT_EQ(share, out.flows.count);
	ASSERT_EQ(share, *(uint64_t *)fxt_map_get(&out.flow_users, 1000, 0));
	ASSERT_TRUE(!fxt_map_get(&out.flow_users, 1001, 0));
	fake_free(&fa);
	fake_free(&fe);
	fake_free(&fg);
	free(w);
	return 0;
}

/*
 * A user holds open only ids of its own: uid 1001 filling its process's
 * share with ids 1 to 16,384 leaves uid 1000's begins of those ids
 * alone, while its own begin of an id it holds open is refused, and the
 * session's bound still counts both users' flows.  Before, uid 1000's
 * begin of id 1 was refused (id 1 open in process 400).
 */
static int test_flows_owner_squatter(void)
{
	const __u64 t = START + SECOND;
	const size_t share = 16384, words = 5 + (share + 1) * 6;
	struct drain_buffer *victim, *squatter;
	__u64 *w = malloc(words * 8);
	struct fake fv, fs;
	size_t i, n;

	ASSERT_TRUE(w);
	start();
	fake_new(&fs, 10, FXTRACE_BUFFER_TASK, 400, 401, words * 8 + 4096, 0,
		 "squatter");
	fake_owner(&fs, 1001);
	fake_new(&fv, 8, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, "victim");
	fake_owner(&fv, 1000);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t, 400, 401, "d", 0);
	for (i = 1; i <= share; i++)
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t, 400, 401, "", i);
	/* Refused: uid 1001 holds id 1 open. */
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t, 400, 401, "", 1);
	ASSERT_CMP(n, <=, words);
	put_words(&fs, w, n);
	squatter = drain_rest(&fs);
	ASSERT_EQ(share + 1, squatter->records);
	ASSERT_EQ(1, squatter->refused[REFUSED_FLOW]);
	ASSERT_EQ(share, out.flows.count);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 1, 200, 201, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 3, 200, 201, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 4, 200, 201, "d", 0);
	put_words(&fv, w, n);
	victim = drain_rest(&fv);
	ASSERT_EQ(4, victim->records);
	ASSERT_EQ(0, victim->invalid);
	ASSERT_EQ(share, out.flows.count);
	fake_free(&fv);
	fake_free(&fs);
	free(w);
	return 0;
}

/*
 * One user holds at most a quarter of the session's open flows (65,536),
 * so that its processes cannot fill the session's bound and refuse every
 * other user's begins.  Uid 1001's 16 processes each begin 16,384 flows:
 * the first 4 processes' are kept, the other 12's refused; uid 1000's
 * begin and end of id 1 are kept; another process of uid 1001 begins id 1
 * (refused: its user holds it open), ends it, and its next begin, of a
 * new id, is kept in the place the end freed.
 * Before, all 262,144 were kept and uid 1000's begin was refused (the
 * session's bound full).
 */
static int test_flows_user_bound(void)
{
	const size_t share = 16384, words = (share + 2) * 5;
	const __u64 t = START + SECOND;
	struct drain_buffer *db, *victim, *again;
	uint64_t records[16], refused[16];
	__u64 *w = malloc(words * 8);
	struct fake f, fv, fa;
	struct walk walk;
	size_t n, i;
	__u32 p, pid;

	ASSERT_TRUE(w);
	start();
	for (p = 0; p < 16; p++) {
		pid = 1000 + 2 * p;
		fake_new(&f, 30 + p, FXTRACE_BUFFER_TASK, pid, pid + 1,
			 words * 8 + 4096, 0, NULL);
		fake_owner(&f, 1001);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, pid, pid + 1, "d", 0);
		for (i = 0; i < share; i++)
			n += event(w + n, FXT_EVENT_FLOW_BEGIN, t, pid, pid + 1,
				   "", 1 + p * share + i);
		n += event(w + n, FXT_EVENT_DURATION_END, t, pid, pid + 1, "d",
			   0);
		put_words(&f, w, n);
		db = drain_rest(&f);
		records[p] = db->records;
		refused[p] = db->refused[REFUSED_FLOW];
		fake_free(&f);
	}
	fake_new(&fv, 60, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, "victim");
	fake_owner(&fv, 1000);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 1, 200, 201, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 2, 200, 201, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 3, 200, 201, "f", 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 4, 200, 201, "d", 0);
	put_words(&fv, w, n);
	victim = drain_rest(&fv);
	ASSERT_EQ(4, victim->records);
	ASSERT_EQ(0, victim->invalid);
	for (p = 0; p < 16; p++) {
		ASSERT_EQ(p < 4 ? share + 2 : 2, records[p]);
		ASSERT_EQ(p < 4 ? 0 : share, refused[p]);
	}
	ASSERT_EQ(4 * share, out.flows.count);
	/* Uid 1001 ends its id 1 from another process, then begins anew. */
	fake_new(&fa, 61, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, "again");
	fake_owner(&fa, 1001);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 5, 300, 301, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 6, 300, 301, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 7, 300, 301, "f", 1);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 8, 300, 301, "f",
		   16 * share + 1);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 9, 300, 301, "d", 0);
	put_words(&fa, w, n);
	again = drain_rest(&fa);
	ASSERT_EQ(4, again->records);
	ASSERT_EQ(1, again->refused[REFUSED_FLOW]);
	ASSERT_EQ(4 * share, out.flows.count);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&fv);
	fake_free(&fa);
	free(w);
	return 0;
}

/*
 * A process's begins of flows (words of w from 0), count of them from id
 * first, inside a duration of its own: the buffer drained.
 */
static struct drain_buffer *begin_flows(struct fake *f, __u64 *w, __u32 pid,
					__u64 first, size_t count, __u64 t)
{
	size_t n, i;

	n = event(w, FXT_EVENT_DURATION_BEGIN, t, pid, pid + 1, "d", 0);
	for (i = 0; i < count; i++)
		n += event(w + n, FXT_EVENT_FLOW_BEGIN, t, pid, pid + 1, "",
			   first + i);
	n += event(w + n, FXT_EVENT_DURATION_END, t, pid, pid + 1, "d", 0);
	put_words(f, w, n);
	return drain_rest(f);
}

/*
 * The users the session traces (its owner, 1000, and its pid filter's
 * process's user, 1002) have no share of the open flows, as in
 * fxtrace.ko's shares (fxt_share_exempt()): one process of uid 1000
 * holds 65,537 open, past a process's share (16,384) and a user's
 * (65,536), and one of uid 1002 holds 16,385; a process of uid 1001,
 * not traced, still holds at most its share.  Before, the traced
 * program's begins past 16,384 were refused (49,153 of them) although
 * no other user was traced.
 */
static int test_flows_traced_users_have_no_share(void)
{
	const size_t share = 16384, words = (4 * share + 3) * 5;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;

	ASSERT_TRUE(w);
	start();
	output_traced_users(&out, 1000, 1002);
	fake_new(&f, 30, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1000);
	db = begin_flows(&f, w, 200, 1, 4 * share + 1, t);
	ASSERT_EQ(4 * share + 3, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	fake_new(&f, 31, FXTRACE_BUFFER_TASK, 300, 301, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1002);
	db = begin_flows(&f, w, 300, 4 * share + 2, share + 1, t);
	ASSERT_EQ(share + 3, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	fake_new(&f, 32, FXTRACE_BUFFER_TASK, 400, 401, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1001);
	db = begin_flows(&f, w, 400, 1, share + 1, t);
	ASSERT_EQ(share + 2, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	ASSERT_EQ(6 * share + 2, out.flows.count);
	ASSERT_EQ(share, out.flows_others);
	ASSERT_EQ(0, check_file(&walk));
	free(w);
	return 0;
}

/*
 * Root has no share of its own either, but the users the session does
 * not trace, root among them when it is not the owner, together leave
 * the traced users a quarter of the session's open flows, as fxtrace.ko
 * leaves them room for their task buffers: root's process holds 196,608
 * (three quarters) and its next begin is refused, as is uid 1001's
 * first; the owner's (uid 1000) 65,536 fill the session.  Before, root's
 * process held its share of 16,384 and its 180,225 begins past it were
 * refused.
 */
static int test_flows_others_leave_traced_users_a_quarter(void)
{
	const size_t quarter = 65536, words = (3 * quarter + 3) * 5;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;

	ASSERT_TRUE(w);
	start();
	output_traced_users(&out, 1000, NO_USER);
	fake_new(&f, 30, FXTRACE_BUFFER_TASK, 100, 101, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 0);
	db = begin_flows(&f, w, 100, 1, 3 * quarter + 1, t);
	ASSERT_EQ(3 * quarter + 2, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	fake_new(&f, 31, FXTRACE_BUFFER_TASK, 400, 401, 1 << 16, 0, NULL);
	fake_owner(&f, 1001);
	db = begin_flows(&f, w, 400, 1, 1, t);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	fake_new(&f, 32, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1000);
	db = begin_flows(&f, w, 200, 1, quarter + 1, t);
	ASSERT_EQ(quarter + 2, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_FLOW]);
	fake_free(&f);
	ASSERT_EQ(4 * quarter, out.flows.count);
	ASSERT_EQ(3 * quarter, out.flows_others);
	ASSERT_EQ(0, check_file(&walk));
	free(w);
	return 0;
}

/*
 * A traced user's threads that retire inside a duration keep their
 * stacks past a user's quarter of the kept frames (7,281 stacks of 9):
 * the owner's 7,282nd is kept too.  Before, it was forgotten
 * (kept_frames 65,529 where 65,538 are kept now).
 */
static int test_kept_stacks_of_traced_user_have_no_share(void)
{
	const __u32 kept = 65536 / 9 + 1, first = 10000;
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct fake f;
	__u32 i, pid;
	__u64 w[16];
	__u32 n;

	start();
	output_traced_users(&out, 1000, NO_USER);
	for (i = 0; i < kept; i++) {
		pid = first + 2 * i;
		fake_new(&f, 100 + i, FXTRACE_BUFFER_TASK, pid, pid + 1, 4096,
			 0, NULL);
		fake_owner(&f, 1000);
		n = event(w, FXT_EVENT_DURATION_BEGIN, t, pid, pid + 1, "d", 0);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(1, db->records);
		output_retire(&out, db);
		fake_free(&f);
	}
	ASSERT_EQ(9 * kept, out.kept_frames);
	ASSERT_EQ(0, out.kept_frames_others);
	ASSERT_EQ(kept, out.threads.count);
	return 0;
}

/*
 * A traced user's process has no share of the open async ids either: the
 * owner's process holds 16,385 open.  Before, its last begin was refused.
 */
static int test_async_traced_user_has_no_share(void)
{
	const size_t begins = 16385, words = begins * 6;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	size_t n, i;

	ASSERT_TRUE(w);
	start();
	output_traced_users(&out, 1000, NO_USER);
	fake_new(&f, 30, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1000);
	for (n = 0, i = 0; i < begins; i++)
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t, 200, 201, "a",
			   1 + i);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(begins, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_ASYNC]);
	ASSERT_EQ(begins, out.asyncs.count);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	free(w);
	return 0;
}

/*
 * A thread's one flow event of type and id inside a duration of its
 * own, at t: the buffer drained.
 */
static struct drain_buffer *one_flow(struct fake *f, __u32 pid, __u32 tid,
				     unsigned int type, __u64 id, __u64 t)
{
	__u64 w[32];
	__u32 n;

	n = event(w, FXT_EVENT_DURATION_BEGIN, t, pid, tid, "d", 0);
	n += event(w + n, type, t + 1, pid, tid, "", id);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 2, pid, tid, "d", 0);
	put_words(f, w, n);
	return drain_rest(f);
}

/*
 * A new process of a pid starts with a share of open flows of its own:
 * uid 1001's process 200 exits holding its 16,384 open; uid 1002's
 * process that gets pid 200 next holds 16,384 of its own, and a sibling
 * thread's begin past them is refused.  The former process's flow that
 * uid 1001's process 300 ends gives the new process no room; the new
 * process's own, ended by uid 1002's process 400, does.  Before, the new
 * process inherited the former's share: all its 16,384 begins were
 * refused, another user's process refused by one that had exited.
 */
static int test_flow_share_of_a_pid_used_again(void)
{
	const size_t share = 16384, words = (share + 2) * 5;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db, *sibling;
	struct walk walk;
	struct fake f, s;

	ASSERT_TRUE(w);
	start();
	fake_new(&f, 30, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1001);
	db = begin_flows(&f, w, 200, 1, share, t);
	ASSERT_EQ(share + 2, db->records);
	output_retire(&out, db);
	fake_free(&f);
	fake_new(&f, 31, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1002);
	db = begin_flows(&f, w, 200, share + 1, share, t + 10);
	ASSERT_EQ(share + 2, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	ASSERT_EQ(2 * share, out.flows.count);
	fake_new(&s, 32, FXTRACE_BUFFER_TASK, 200, 203, 1 << 16, 0, NULL);
	fake_owner(&s, 1002);
	sibling = one_flow(&s, 200, 203, FXT_EVENT_FLOW_BEGIN, 2 * share + 1,
			   t + 20);
	ASSERT_EQ(2, sibling->records);
	ASSERT_EQ(1, sibling->refused[REFUSED_FLOW]);
	fake_free(&s);
	/* The former process's flow 1 ends: no room for the new one. */
	fake_new(&s, 33, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, NULL);
	fake_owner(&s, 1001);
	db = one_flow(&s, 300, 301, FXT_EVENT_FLOW_END, 1, t + 30);
	ASSERT_EQ(3, db->records);
	fake_free(&s);
	fake_new(&s, 34, FXTRACE_BUFFER_TASK, 200, 205, 1 << 16, 0, NULL);
	fake_owner(&s, 1002);
	sibling = one_flow(&s, 200, 205, FXT_EVENT_FLOW_BEGIN, 2 * share + 1,
			   t + 40);
	ASSERT_EQ(1, sibling->refused[REFUSED_FLOW]);
	fake_free(&s);
	/* The new process's flow share + 1 ends: its room comes back. */
	fake_new(&s, 35, FXTRACE_BUFFER_TASK, 400, 401, 1 << 16, 0, NULL);
	fake_owner(&s, 1002);
	db = one_flow(&s, 400, 401, FXT_EVENT_FLOW_END, share + 1, t + 50);
	ASSERT_EQ(3, db->records);
	fake_free(&s);
	fake_new(&s, 36, FXTRACE_BUFFER_TASK, 200, 207, 1 << 16, 0, NULL);
	fake_owner(&s, 1002);
	sibling = one_flow(&s, 200, 207, FXT_EVENT_FLOW_BEGIN, 2 * share + 1,
			   t + 60);
	ASSERT_EQ(3, sibling->records);
	ASSERT_EQ(0, sibling->refused[REFUSED_FLOW]);
	fake_free(&s);
	ASSERT_EQ(2 * share - 1, out.flows.count);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	free(w);
	return 0;
}

/* A /proc/PID/stat of pid 200 (proc(5)) with comm and starttime. */
static const char *stat_text(char *text, size_t size, const char *comm,
			     const char *starttime)
{
	snprintf(text, size, "200 (%s) S 1 200 200 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 %s 2383872 220 18446744073709551615\n",
		 comm, starttime);
	return text;
}

/*
 * A process's start time from its /proc/PID/stat: after the comm's last
 * ')', whatever the comm holds (blanks, ')', a newline: PR_SET_NAME
 * takes any byte but NUL); 0 from a text without it.  A comm with a
 * newline gave 0 to a reading by line, which made a process attached
 * again a new one: a fresh share of open flows.
 */
static int test_proc_stat_start(void)
{
	char text[256];

	ASSERT_EQ(5000, proc_stat_start(stat_text(text, sizeof(text), "sh", "5000")));
	ASSERT_EQ(5000, proc_stat_start(stat_text(text, sizeof(text), "a) 1 2 (b", "5000")));
	ASSERT_EQ(5000, proc_stat_start(stat_text(text, sizeof(text), "x\n", "5000")));
	ASSERT_EQ(5000, proc_stat_start(stat_text(text, sizeof(text), "\n) 1 2 3\n", "5000")));
	ASSERT_EQ(18446744073709551615ULL,
		  proc_stat_start(stat_text(text, sizeof(text), "sh", "18446744073709551615")));
	ASSERT_EQ(0, proc_stat_start(stat_text(text, sizeof(text), "sh", "18446744073709551616")));
	ASSERT_EQ(0, proc_stat_start(stat_text(text, sizeof(text), "sh", "-1")));
	ASSERT_EQ(0, proc_stat_start(stat_text(text, sizeof(text), "sh", "5000x")));
	ASSERT_EQ(0, proc_stat_start("200 (sh) S 1 200 200 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0"));
	ASSERT_EQ(0, proc_stat_start("200 (sh S 1"));
	ASSERT_EQ(0, proc_stat_start(""));
	return 0;
}

/* output.process_start of the test: pid 200's start time, 0 for others. */
static uint64_t pid_200_start;

static uint64_t fake_process_start(uint32_t pid)
{
	return pid == 200 ? pid_200_start : 0;
}

/*
 * A thread of a process attached again after all of its process's
 * buffers retired is of the same process, told by its start time and
 * owner: uid 1001's process 200 (start 5000) holds its 16,384 flows
 * open, its buffer retires, a thread of it attaches anew: its begin is
 * refused, the share is still full.  A process of pid 200 with another
 * start time, or with the same start time but another owner (the
 * drainer read the start of a later process of the pid), starts with a
 * share of its own: its begin is kept.  Before, the thread attached anew
 * took a fresh share: its begin was kept, past its process's share.
 */
static int test_flow_share_of_a_process_attached_again(void)
{
	const size_t share = 16384, words = (share + 2) * 5;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f, s;

	ASSERT_TRUE(w);
	start();
	out.process_start = fake_process_start;
	pid_200_start = 5000;
	fake_new(&f, 30, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1001);
	db = begin_flows(&f, w, 200, 1, share, t);
	ASSERT_EQ(share + 2, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	output_retire(&out, db);
	/* The same process, a thread attached anew: the share is full. */
	fake_new(&s, 31, FXTRACE_BUFFER_TASK, 200, 202, 1 << 16, 0, NULL);
	fake_owner(&s, 1001);
	db = one_flow(&s, 200, 202, FXT_EVENT_FLOW_BEGIN, share + 1, t + 10);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_FLOW]);
	output_retire(&out, db);
	fake_free(&s);
	/* Same start, another owner: a new process. */
	fake_new(&s, 32, FXTRACE_BUFFER_TASK, 200, 203, 1 << 16, 0, NULL);
	fake_owner(&s, 1002);
	db = one_flow(&s, 200, 203, FXT_EVENT_FLOW_BEGIN, share + 2, t + 20);
	ASSERT_EQ(3, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	output_retire(&out, db);
	fake_free(&s);
	/* Uid 1001 again, another start: a new process. */
	pid_200_start = 6000;
	fake_new(&s, 33, FXTRACE_BUFFER_TASK, 200, 204, 1 << 16, 0, NULL);
	fake_owner(&s, 1001);
	db = one_flow(&s, 200, 204, FXT_EVENT_FLOW_BEGIN, share + 3, t + 30);
	ASSERT_EQ(3, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	fake_free(&s);
	ASSERT_EQ(share + 2, out.flows.count);
	ASSERT_EQ(0, check_file(&walk));
	out.process_start = NULL;
	fake_free(&f);
	free(w);
	return 0;
}

/*
 * The former process of a pid cannot make the next one's flows count as
 * its own by their times: uid 1001's process 200 exits holding 16,384
 * flows open, begun at t + 100 (stamped ahead, within the window's
 * slack); uid 1002's process that gets pid 200 begins 16,384 at t + 10
 * and a sibling thread ends one of them: the new process's begin after
 * that is kept.  Before, an end of a flow begun at or before the
 * former's latest begin gave the former's count back, not the new
 * process's: its share stayed full and that begin was refused.
 */
static int test_flow_share_of_a_pid_used_again_ahead(void)
{
	const size_t share = 16384, words = (share + 2) * 5;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db, *sibling;
	struct walk walk;
	struct fake f, s;

	ASSERT_TRUE(w);
	start();
	fake_new(&f, 30, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1001);
	db = begin_flows(&f, w, 200, 1, share, t + 100);
	ASSERT_EQ(share + 2, db->records);
	output_retire(&out, db);
	fake_free(&f);
	fake_new(&f, 31, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_owner(&f, 1002);
	db = begin_flows(&f, w, 200, share + 1, share, t + 10);
	ASSERT_EQ(share + 2, db->records);
	ASSERT_EQ(0, db->refused[REFUSED_FLOW]);
	fake_new(&s, 32, FXTRACE_BUFFER_TASK, 200, 203, 1 << 16, 0, NULL);
	fake_owner(&s, 1002);
	sibling = one_flow(&s, 200, 203, FXT_EVENT_FLOW_END, share + 1, t + 20);
	ASSERT_EQ(3, sibling->records);
	fake_free(&s);
	fake_new(&s, 33, FXTRACE_BUFFER_TASK, 200, 205, 1 << 16, 0, NULL);
	fake_owner(&s, 1002);
	sibling = one_flow(&s, 200, 205, FXT_EVENT_FLOW_BEGIN, 2 * share + 1,
			   t + 30);
	ASSERT_EQ(3, sibling->records);
	ASSERT_EQ(0, sibling->refused[REFUSED_FLOW]);
	fake_free(&s);
	ASSERT_EQ(2 * share, out.flows.count);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	free(w);
	return 0;
}

/*
 * A module older than ABI 0.8 writes no owner_uid: its task buffers'
 * flows are keyed among themselves by id alone, as before (process 500's
 * end joins 200's flow 7), never with a buffer whose header names a user
 * (uid 1000's end of 7 gets a new id), and the drainer says so once, on
 * stderr, naming the ABI.
 */
static int test_flows_owner_unknown(void)
{
	static const char want_err[] =
		"fxtrace-drain: buffer 8 (old 201 (pid 200)): its header has no owner_uid (fxtrace.ko older than ABI 0.8): flows of such buffers are keyed by id alone, whatever their user\n";
	static const uint64_t want[][3] = {
		{ 200, FXT_EVENT_FLOW_BEGIN, 1 },
		{ 300, FXT_EVENT_FLOW_END, 2 },
		{ 500, FXT_EVENT_FLOW_END, 1 },
	};
	const __u64 t = START + SECOND;
	struct fake fa, fb, fo;
	char err[512] = "";
	uint64_t records[3];
	struct walk walk;
	unsigned int i;
	int saved, tmp;
	__u64 w[32];
	ssize_t len;
	__u32 n;

	start();
	fake_new(&fa, 8, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, "old");
	fake_new(&fo, 9, FXTRACE_BUFFER_TASK, 500, 501, 1 << 16, 0, "old");
	fake_new(&fb, 10, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, "new");
	fake_owner(&fb, 1000);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t, 200, 201, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_BEGIN, t + 1, 200, 201, "f", 7);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 2, 200, 201, "d", 0);
	put_words(&fa, w, n);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 3, 300, 301, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 4, 300, 301, "f", 7);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 5, 300, 301, "d", 0);
	put_words(&fb, w, n);
	n = event(w, FXT_EVENT_DURATION_BEGIN, t + 6, 500, 501, "d", 0);
	n += event(w + n, FXT_EVENT_FLOW_END, t + 7, 500, 501, "f", 7);
	n += event(w + n, FXT_EVENT_DURATION_END, t + 8, 500, 501, "d", 0);
	put_words(&fo, w, n);
	/* stderr to a file while the buffers are drained, no assert between. */
	fflush(stderr);
	saved = dup(2);
	tmp = fileno(tmpfile());
	ASSERT_CMP(saved, >=, 0);
	ASSERT_CMP(tmp, >=, 0);
	ASSERT_EQ(2, dup2(tmp, 2));
	records[0] = drain_rest(&fa)->records;
	records[1] = drain_rest(&fb)->records;
	records[2] = drain_rest(&fo)->records;
	fflush(stderr);
	ASSERT_EQ(2, dup2(saved, 2));
	close(saved);
	len = pread(tmp, err, sizeof(err) - 1, 0);
	close(tmp);
	ASSERT_CMP(len, >=, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(3, records[i]);
	ASSERT_STR(want_err, err);
	ASSERT_EQ(0, out.flows.count);
	/* The end gave the begin's count back: no user holds a flow. */
	ASSERT_EQ(0, out.flow_users.count);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(3, walk.nflows);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(want[i][0], walk.flows[i][0]);
		ASSERT_EQ(want[i][1], walk.flows[i][1]);
		ASSERT_EQ(want[i][2], walk.flows[i][2]);
	}
	fake_free(&fa);
	fake_free(&fb);
	fake_free(&fo);
	return 0;
}

/*
 * Perfetto (v58.2) nests a begin of a correlation id already open on the
 * same track (TrackCompressor's nest_count) and an end closes the
 * innermost: "inner" ends, then "outer".  The outer end carries the id of
 * its begin, not a new one that would leave "outer" open on a track of its
 * own; after the process's last end of the id, an end gets a new id.
 */
static int test_async_ids_nested(void)
{
	static const uint64_t want[][2] = {
		{ FXT_EVENT_ASYNC_BEGIN, 1 },
		{ FXT_EVENT_ASYNC_BEGIN, 1 },
		{ FXT_EVENT_ASYNC_END, 1 },
		{ FXT_EVENT_ASYNC_INSTANT, 1 },
		{ FXT_EVENT_ASYNC_END, 1 },
		{ FXT_EVENT_ASYNC_END, 2 },
	};
	const __u64 t = START + SECOND;
	struct walk walk;
	struct fake a;
	unsigned int i;
	__u64 w[64];
	__u32 n;

	start();
	fake_new(&a, 72, FXTRACE_BUFFER_TASK, 4100, 4101, 4096, 0, NULL);
	n = event(w, FXT_EVENT_ASYNC_BEGIN, t, 4100, 4101, "outer", 7);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 1, 4100, 4101, "inner", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 2, 4100, 4101, "inner", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 3, 4100, 4101, "outer", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 4, 4100, 4101, "outer", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 5, 4100, 4101, "outer", 7);
	put_words(&a, w, n);
	ASSERT_EQ(6, drain_rest(&a)->records);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(6, walk.nasyncs);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(4100, walk.asyncs[i][0]);
		ASSERT_EQ(want[i][0], walk.asyncs[i][1]);
		ASSERT_EQ(want[i][1], walk.asyncs[i][2]);
	}
	fake_free(&a);
	return 0;
}

/*
 * An instant or end must name the innermost open begin of its id: one
 * naming an outer begin would close that in Perfetto and leave the inner
 * open, one naming none closes nothing (and check warns, async-name).
 * The drainer used to stop comparing after the first nested end, and
 * kept "x" below (fuzz_output found begin a, begin a, end a, end b).  A
 * begin past ASYNC_NEST_MAX open ones of its id is refused, and the first
 * end "d" with it: the outermost "d" stays open.
 */
static int test_async_nested_names(void)
{
	static const char *const want[] = {
		"a", "b", "b", "a", "d", "d", "d", "d", "d", "d", "d",
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct walk walk;
	struct fake a;
	unsigned int i;
	__u64 w[128];
	__u32 n;

	start();
	fake_new(&a, 74, FXTRACE_BUFFER_TASK, 4300, 4301, 4096, 0, NULL);
	n = event(w, FXT_EVENT_ASYNC_BEGIN, t, 4300, 4301, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 1, 4300, 4301, "b", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 2, 4300, 4301, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 3, 4300, 4301, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 4, 4300, 4301, "b", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 5, 4300, 4301, "x", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 6, 4300, 4301, "x", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 7, 4300, 4301, "a", 7);
	for (i = 0; i < 5; i++)
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 8 + i, 4300, 4301,
			   "d", 9);
	for (i = 0; i < 4; i++)
		n += event(w + n, FXT_EVENT_ASYNC_END, t + 13 + i, 4300, 4301,
			   "d", 9);
	put_words(&a, w, n);
	db = drain_rest(&a);
	ASSERT_EQ(11, db->records);
	ASSERT_EQ(6, db->refused[REFUSED_ASYNC]);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(11, walk.nasyncs);
	for (i = 0; i < 11; i++)
		ASSERT_EQ(0, strcmp(want[i], walk.async_names[i]));
	fake_free(&a);
	return 0;
}

/*
 * Perfetto's end closes an open slice of its category and name only
 * (SliceTracker::MatchingIncompleteSliceIndex()): an end "a" in category
 * "y" of a begin "a" in "x" closes nothing, and the drainer, comparing
 * names alone, kept it and forgot the id (a later end "a" in "x" then got
 * an id of its own, and "a" stayed open).  So it is refused, and so is an
 * instant in another category; the begin's own end closes it.
 */
static int test_async_end_category(void)
{
	static const uint64_t want[][2] = {
		{ FXT_EVENT_ASYNC_BEGIN, 0 }, { FXT_EVENT_ASYNC_INSTANT, 2 },
		{ FXT_EVENT_ASYNC_END, 4 },
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct walk walk;
	struct fake a;
	unsigned int i;
	__u64 w[64];
	__u32 n;

	start();
	fake_new(&a, 76, FXTRACE_BUFFER_TASK, 4500, 4501, 4096, 0, NULL);
	n = event_in(w, FXT_EVENT_ASYNC_BEGIN, t, 4500, 4501, "x", "a", 7);
	n += event_in(w + n, FXT_EVENT_ASYNC_INSTANT, t + 1, 4500, 4501, "y",
		      "a", 7);
	n += event_in(w + n, FXT_EVENT_ASYNC_INSTANT, t + 2, 4500, 4501, "x",
		      "a", 7);
	n += event_in(w + n, FXT_EVENT_ASYNC_END, t + 3, 4500, 4501, "y", "a",
		      7);
	n += event_in(w + n, FXT_EVENT_ASYNC_END, t + 4, 4500, 4501, "x", "a",
		      7);
	put_words(&a, w, n);
	db = drain_rest(&a);
	ASSERT_EQ(3, db->records);
	ASSERT_EQ(2, db->refused[REFUSED_ASYNC]);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(3, walk.nasyncs);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(want[i][0], walk.asyncs[i][1]);
		ASSERT_EQ(1, walk.asyncs[i][2]);
		ASSERT_EQ(t + want[i][1], walk.async_ts[i]);
	}
	fake_free(&a);
	return 0;
}

/*
 * A begin refused past ASYNC_NEST_MAX open ones of its id still nests in
 * the program, so its instant and its end are refused with it: "r" six
 * deep keeps the four outer levels whole, each ending at its own end.
 * The drainer used to keep the inner instant and end: each written "r"
 * ended at its inner one's end, and the last two ends got ids of their
 * own.
 */
static int test_async_nested_past_bound(void)
{
	static const uint64_t want[][2] = {
		{ FXT_EVENT_ASYNC_BEGIN, 0 }, { FXT_EVENT_ASYNC_BEGIN, 1 },
		{ FXT_EVENT_ASYNC_BEGIN, 2 }, { FXT_EVENT_ASYNC_BEGIN, 3 },
		{ FXT_EVENT_ASYNC_END, 9 }, { FXT_EVENT_ASYNC_END, 10 },
		{ FXT_EVENT_ASYNC_END, 11 }, { FXT_EVENT_ASYNC_END, 12 },
	};
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct walk walk;
	struct fake a;
	unsigned int i;
	__u64 w[128];
	__u32 n = 0;

	start();
	fake_new(&a, 75, FXTRACE_BUFFER_TASK, 4400, 4401, 4096, 0, NULL);
	for (i = 0; i < 6; i++)
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + i, 4400, 4401,
			   "r", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 6, 4400, 4401, "r", 7);
	for (i = 0; i < 6; i++)
		n += event(w + n, FXT_EVENT_ASYNC_END, t + 7 + i, 4400, 4401,
			   "r", 7);
	put_words(&a, w, n);
	db = drain_rest(&a);
	ASSERT_EQ(8, db->records);
	ASSERT_EQ(5, db->refused[REFUSED_ASYNC]);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(8, walk.nasyncs);
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(want[i][0], walk.asyncs[i][1]);
		ASSERT_EQ(1, walk.asyncs[i][2]);
		ASSERT_EQ(t + want[i][1], walk.async_ts[i]);
	}
	fake_free(&a);
	return 0;
}

/*
 * A nested async begin refused for any reason but its pid still nests in
 * the program, so its instants and its end are refused with it.  The
 * drainer used to count only begins refused past ASYNC_NEST_MAX: "a"
 * refused outside the window left the inner instant "a" judged against
 * the outer "a" and the inner end closing it (then the outer's instant
 * and end got ids of their own), and "g" refused between written levels
 * let a fifth "g" be written.  An end refused outside the window closes a
 * refused level ("c") but not a written one ("e": it stays open in the
 * file, and the next end closes it).  Process 4700 forging 4600's begin
 * "f" (refused, another process) opens no level of 4600's "f".
 */
static int test_async_nested_refused(void)
{
	static const uint64_t want[][3] = {
		/* type, id in the output, time - t */
		{ FXT_EVENT_ASYNC_BEGIN, 1, 0 },
		{ FXT_EVENT_ASYNC_INSTANT, 1, 4 },
		{ FXT_EVENT_ASYNC_BEGIN, 1, 5 }, { FXT_EVENT_ASYNC_END, 1, 8 },
		{ FXT_EVENT_ASYNC_END, 1, 9 }, { FXT_EVENT_ASYNC_END, 2, 10 },
		{ FXT_EVENT_ASYNC_BEGIN, 3, 11 }, { FXT_EVENT_ASYNC_END, 3, 13 },
		{ FXT_EVENT_ASYNC_BEGIN, 4, 14 }, { FXT_EVENT_ASYNC_END, 4, 16 },
		{ FXT_EVENT_ASYNC_BEGIN, 5, 17 },
		{ FXT_EVENT_ASYNC_BEGIN, 5, 18 },
		{ FXT_EVENT_ASYNC_BEGIN, 5, 19 }, { FXT_EVENT_ASYNC_END, 5, 22 },
		{ FXT_EVENT_ASYNC_END, 5, 23 }, { FXT_EVENT_ASYNC_END, 5, 25 },
	};
	static const char *const names = "aabbaaeeffgggggg";
	const __u64 t = START + SECOND, old = START - 2 * SECOND;
	struct drain_buffer *db, *forger;
	struct fake a, b;
	struct walk walk;
	unsigned int i;
	__u64 w[256];
	__u32 n;

	start();
	fake_new(&a, 77, FXTRACE_BUFFER_TASK, 4600, 4601, 4096, 0, NULL);
	fake_new(&b, 78, FXTRACE_BUFFER_TASK, 4700, 4701, 4096, 0, NULL);
	/* A refused inner begin named like the outer one. */
	n = event(w, FXT_EVENT_ASYNC_BEGIN, t, 4600, 4601, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, old, 4600, 4601, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 2, 4600, 4601, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 3, 4600, 4601, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 4, 4600, 4601, "a", 7);
	/* An end refused outside the window, of a refused begin. */
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 5, 4600, 4601, "b", 7);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, old, 4600, 4601, "c", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, old, 4600, 4601, "c", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 8, 4600, 4601, "b", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 9, 4600, 4601, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 10, 4600, 4601, "a", 7);
	/* An end refused outside the window, of a written begin. */
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 11, 4600, 4601, "e", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, old, 4600, 4601, "e", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 13, 4600, 4601, "e", 7);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 14, 4600, 4601, "f", 7);
	put_words(&a, w, n);
	drain_rest(&a);
	/* Another process's begin of 4600's "f". */
	put_words(&b, w, event(w, FXT_EVENT_ASYNC_BEGIN, t + 15, 4600, 4601,
			       "f", 7));
	forger = drain_rest(&b);
	n = event(w, FXT_EVENT_ASYNC_END, t + 16, 4600, 4601, "f", 7);
	/* Refused levels below ASYNC_NEST_MAX count towards it. */
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 17, 4600, 4601, "g", 8);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, old, 4600, 4601, "g", 8);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 18, 4600, 4601, "g", 8);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 19, 4600, 4601, "g", 8);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t + 20, 4600, 4601, "g", 8);
	for (i = 0; i < 5; i++)
		n += event(w + n, FXT_EVENT_ASYNC_END, t + 21 + i, 4600, 4601,
			   "g", 8);
	put_words(&a, w, n);
	db = drain_rest(&a);
	ASSERT_EQ(16, db->records);
	ASSERT_EQ(5, db->refused[REFUSED_TIME]);
	ASSERT_EQ(5, db->refused[REFUSED_ASYNC]);
	ASSERT_EQ(10, db->invalid);
	ASSERT_EQ(0, forger->records);
	ASSERT_EQ(1, forger->refused[REFUSED_FOREIGN]);
	ASSERT_EQ(1, forger->invalid);
	ASSERT_EQ(0, out.asyncs.count);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(16, walk.nasyncs);
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(4600, walk.asyncs[i][0]);
		ASSERT_EQ(want[i][0], walk.asyncs[i][1]);
		ASSERT_EQ(want[i][1], walk.asyncs[i][2]);
		ASSERT_EQ(t + want[i][2], walk.async_ts[i]);
		ASSERT_EQ(names[i], walk.async_names[i][0]);
		ASSERT_EQ(0, walk.async_names[i][1]);
	}
	fake_free(&a);
	fake_free(&b);
	return 0;
}

/*
 * A nested async begin the decoder read but refused (a warning: here a
 * string argument that is not UTF-8, which a producer's path or user
 * input may hold) nests like any other refused begin: its instant and end
 * are refused, and the outer "a" ends at its own end.  Refused as
 * invalid, it used to leave no level: its instant and end "a" were
 * written against the outer "a", that end closed it, and the outer end
 * got an id of its own.  A record with an error may not have its id read,
 * so it nests nothing.
 */
static int test_async_nested_invalid(void)
{
	static const uint64_t want[][2] = {
		{ FXT_EVENT_ASYNC_BEGIN, 0 }, { FXT_EVENT_ASYNC_END, 4 },
	};
	const __u64 t = START + SECOND;
	const __u16 arg_ref = fxt_inline_string_ref(1);
	const __u16 name_ref = fxt_inline_string_ref(1);
	struct drain_buffer *db;
	struct walk walk;
	struct fake a;
	unsigned int i;
	__u64 w[64];
	__u32 n, words, arg;

	start();
	fake_new(&a, 79, FXTRACE_BUFFER_TASK, 4800, 4801, 4096, 0, NULL);
	n = event(w, FXT_EVENT_ASYNC_BEGIN, t, 4800, 4801, "a", 7);
	arg = fxt_arg_words(arg_ref, fxt_string_ref_words(arg_ref));
	words = fxt_event_words(FXT_EVENT_ASYNC_BEGIN, FXT_THREAD_REF_INLINE, 0,
				name_ref, arg);
	n += fxt_write_event(w + n, words, FXT_EVENT_ASYNC_BEGIN, 1, t + 1,
			     4800, 4801, 0, "", name_ref, "a");
	n += fxt_write_arg_string(w + n, arg_ref, "s", arg_ref, "\xff");
	w[n++] = 7;
	n += event(w + n, FXT_EVENT_ASYNC_INSTANT, t + 2, 4800, 4801, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 3, 4800, 4801, "a", 7);
	n += event(w + n, FXT_EVENT_ASYNC_END, t + 4, 4800, 4801, "a", 7);
	put_words(&a, w, n);
	db = drain_rest(&a);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(2, db->refused[REFUSED_ASYNC]);
	ASSERT_EQ(3, db->invalid);
	ASSERT_EQ(0, out.asyncs.count);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(2, walk.nasyncs);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(want[i][0], walk.asyncs[i][1]);
		ASSERT_EQ(1, walk.asyncs[i][2]);
		ASSERT_EQ(t + want[i][1], walk.async_ts[i]);
	}
	fake_free(&a);
	return 0;
}

/*
 * A process's open asyncs are forgotten when its last buffer retires: an
 * end of a forgotten id, from a buffer of the same pid attached later,
 * carries an id of its own, so no end named unlike the begin left open
 * shares its id (which check --strict flagged, async-name, before the ids
 * were rewritten).
 */
static int test_async_forgotten_new_id(void)
{
	static const uint64_t want[][2] = {
		{ FXT_EVENT_ASYNC_BEGIN, 1 },
		{ FXT_EVENT_ASYNC_END, 2 },
	};
	const __u64 t = START + SECOND;
	struct walk walk;
	struct fake a, b;
	unsigned int i;
	__u64 w[16];
	__u32 n;

	start();
	fake_new(&a, 73, FXTRACE_BUFFER_TASK, 4200, 4201, 4096, 0, NULL);
	n = event(w, FXT_EVENT_ASYNC_BEGIN, t, 4200, 4201, "a", 7);
	put_words(&a, w, n);
	output_retire(&out, drain_rest(&a));
	ASSERT_EQ(0, out.asyncs.count);
	fake_new(&b, 74, FXTRACE_BUFFER_TASK, 4200, 4202, 4096, 0, NULL);
	n = event(w, FXT_EVENT_ASYNC_END, t + 1, 4200, 4202, "b", 7);
	put_words(&b, w, n);
	ASSERT_EQ(1, drain_rest(&b)->records);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(2, walk.nasyncs);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(want[i][0], walk.asyncs[i][1]);
		ASSERT_EQ(want[i][1], walk.asyncs[i][2]);
	}
	fake_free(&a);
	fake_free(&b);
	return 0;
}

/*
 * The session holds at most ASYNC_OPEN_PER_SESSION (16 shares of 16,384)
 * async slices open: 16 processes fill it, a 17th's first begin is
 * refused.  Before, 1,024 processes (the default max_task_buffers) could
 * hold 16.7 million open, the table growing to 2^25 slots (840 MB), each
 * walked in full as a process's last buffer retired.
 */
static int test_async_session_bound(void)
{
	const size_t share = 16384, words = (share + 1) * 6;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	size_t n, i, begins;
	__u32 p, pid;

	ASSERT_TRUE(w);
	start();
	for (p = 0; p < 17; p++) {
		pid = 1000 + 2 * p;
		begins = p < 16 ? share : 1;
		fake_new(&f, 30 + p, FXTRACE_BUFFER_TASK, pid, pid + 1,
			 words * 8 + 4096, 0, NULL);
		for (n = 0, i = 0; i < begins; i++)
			n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t, pid,
				   pid + 1, "a", 1 + i);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(p < 16 ? share : 0, db->records);
		ASSERT_EQ(p < 16 ? 0 : 1, db->refused[REFUSED_ASYNC]);
		ASSERT_EQ(p < 16 ? 0 : 1, db->invalid);
		fake_free(&f);
	}
	ASSERT_EQ(16 * share, out.asyncs.count);
	ASSERT_EQ(0, check_file(&walk));
	free(w);
	return 0;
}

/*
 * Linked with --wrap=fxt_map_next and --wrap=malloc (build.mk): the map
 * slots any walk visits, and malloc() failing while malloc_fails is set.
 */
void *__real_fxt_map_next(const struct fxt_map *m, size_t *pos, uint64_t *k1,
			  uint64_t *k2);
void *__real_malloc(size_t size);
static size_t slots_walked;
static bool malloc_fails;

void *__wrap_fxt_map_next(const struct fxt_map *m, size_t *pos, uint64_t *k1,
			  uint64_t *k2)
{
	size_t from = *pos;
	void *v = __real_fxt_map_next(m, pos, k1, k2);

	slots_walked += *pos - from;
	return v;
}

void *__wrap_malloc(size_t size)
{
	return malloc_fails ? NULL : __real_malloc(size);
}

/*
 * Linked with --wrap=realloc too: while list_realloc_fails is set, a
 * realloc() to 128 bytes fails, the room of a process's first list of open
 * async ids (16 ids), which no other realloc() of the output path asks
 * for while one async begin is judged (its chunk takes 4 KiB, its scratch
 * the 40 bytes of the begin).
 */
void *__real_realloc(void *ptr, size_t size);
static bool list_realloc_fails;

void *__wrap_realloc(void *ptr, size_t size)
{
	return list_realloc_fails && size == 128 ? NULL :
	       __real_realloc(ptr, size);
}

/*
 * A process's last buffer retiring forgets its open asyncs, and only its
 * own, without walking the table and without allocating.  Before, the
 * whole table was walked for them (up to 2^19 slots at each such exit,
 * while other producers' halves waited), and if malloc() failed there the
 * share was zeroed while the entries stayed.  Processes 5000 and 5002 each
 * open 3 and end the first (their last id takes its place in the share),
 * 4 others hold 4 x 16,384; 5002 retires with malloc() failing.
 */
static int test_async_forget_own(void)
{
	const size_t share = 16384, words = share * 5;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db[6];
	struct fake f[6];
	size_t n;
	__u32 p, pid;

	ASSERT_TRUE(w);
	start();
	for (p = 0; p < 6; p++) {
		pid = p < 4 ? 1000 + 2 * p : 5000 + 2 * (p - 4);
		fake_new(&f[p], 40 + p, FXTRACE_BUFFER_TASK, pid, pid + 1,
			 words * 8 + 4096, 0, NULL);
		n = async_begins(w, pid, pid + 1, p < 4 ? share : 3, 1);
		if (p >= 4)
			n += event(w + n, FXT_EVENT_ASYNC_END, START + SECOND,
				   pid, pid + 1, "", 1);
		put_words(&f[p], w, n);
		db[p] = drain_rest(&f[p]);
		ASSERT_EQ(p < 4 ? share : 4, db[p]->records);
	}
	ASSERT_EQ(4 * share + 4, out.asyncs.count);
	slots_walked = 0;
	output_retire(&out, db[4]);
	ASSERT_EQ(0, slots_walked);
	ASSERT_EQ(4 * share + 2, out.asyncs.count);
	malloc_fails = true;
	output_retire(&out, db[5]);
	malloc_fails = false;
	ASSERT_EQ(4 * share, out.asyncs.count);
	for (pid = 5000; pid <= 5002; pid += 2) {
		ASSERT_TRUE(!fxt_map_get(&out.asyncs, pid, 2));
		ASSERT_TRUE(!fxt_map_get(&out.asyncs, pid, 3));
	}
	ASSERT_TRUE(fxt_map_get(&out.asyncs, 1000, share));
	for (p = 0; p < 6; p++)
		fake_free(&f[p]);
	free(w);
	return 0;
}

/*
 * A process's async begin when its list of open ids cannot be allocated:
 * refused as invalid, with no entry left in the table (which its
 * retirement, knowing only the list, would never forget) and nothing
 * counted; the same begin again, allocated, is written and forgotten at
 * the retirement.
 */
static int test_async_list_enomem(void)
{
	const __u64 t = START + SECOND;
	struct drain_buffer *db;
	struct fake f;
	__u64 w[8];

	start();
	fake_new(&f, 70, FXTRACE_BUFFER_TASK, 4000, 4001, 1 << 12, 0, NULL);
	put_words(&f, w, event(w, FXT_EVENT_ASYNC_BEGIN, t, 4000, 4001, "",
			       1));
	list_realloc_fails = true;
	db = drain_rest(&f);
	list_realloc_fails = false;
	ASSERT_EQ(0, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(0, out.asyncs.count);
	put_words(&f, w, event(w, FXT_EVENT_ASYNC_BEGIN, t, 4000, 4001, "",
			       1));
	drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(1, out.asyncs.count);
	output_retire(&out, db);
	ASSERT_EQ(0, out.asyncs.count);
	fake_free(&f);
	return 0;
}

/*
 * An async's end gives back its place in the share of the process whose
 * task buffer began it, whichever buffer writes the end, and only then; a
 * begin of an id already open takes no second place.  Before 83fdaa2 the
 * share was that of the buffer writing the end: a kernel buffer's end of
 * a process's async gave its place back to nobody, a process's end of a
 * kernel buffer's async gave back one never taken.  Process 3000 opens
 * 1..3 and the kernel buffer ends 2; process 3002 opens 1..2, the kernel
 * buffer begins 10 for it, 3002 ends 10 and begins 1 again.  Each then
 * has exactly 16,382 more begins accepted, and its buffer's retirement
 * leaves none of its asyncs open.
 */
static int test_async_end_any_buffer(void)
{
	const size_t share = 16384, words = (share + 8) * 6;
	const __u64 t = START + SECOND;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *db[2], *kernel;
	struct fake f[2], k;
	__u32 p, pid;
	size_t n;

	ASSERT_TRUE(w);
	start();
	fake_new(&k, 60, FXTRACE_BUFFER_KERNEL, 0, 0, 1 << 16, 0, NULL);
	for (p = 0; p < 2; p++) {
		pid = 3000 + 2 * p;
		fake_new(&f[p], 61 + p, FXTRACE_BUFFER_TASK, pid, pid + 1,
			 2 * words * 8 + 4096, 0, NULL);
		put_words(&f[p], w, async_begins(w, pid, pid + 1, 3 - p, 1));
		db[p] = drain_rest(&f[p]);
		ASSERT_EQ(3 - p, db[p]->records);
	}
	n = event(w, FXT_EVENT_ASYNC_END, t, 3000, 3001, "", 2);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t, 3002, 3003, "", 10);
	put_words(&k, w, n);
	kernel = drain_rest(&k);
	ASSERT_EQ(2, kernel->records);
	n = event(w, FXT_EVENT_ASYNC_END, t, 3002, 3003, "", 10);
	n += event(w + n, FXT_EVENT_ASYNC_BEGIN, t, 3002, 3003, "", 1);
	put_words(&f[1], w, n);
	ASSERT_EQ(4, drain_rest(&f[1])->records);
	ASSERT_EQ(4, out.asyncs.count);
	for (p = 0; p < 2; p++) {
		pid = 3000 + 2 * p;
		put_words(&f[p], w, async_begins(w, pid, pid + 1, share - 1,
						 100));
		drain_rest(&f[p]);
		ASSERT_EQ(share - 2, db[p]->records - (3 - p) - 2 * p);
		ASSERT_EQ(1, db[p]->refused[REFUSED_ASYNC]);
	}
	ASSERT_EQ(2 * share, out.asyncs.count);
	for (p = 0; p < 2; p++) {
		output_retire(&out, db[p]);
		ASSERT_EQ((1 - p) * share, out.asyncs.count);
		fake_free(&f[p]);
	}
	fake_free(&k);
	free(w);
	return 0;
}

/*
 * A process's list of its open async ids gives back its room as they end:
 * before, each process kept the room of the most it ever had open (128
 * KiB after 16,384), so 65,536 processes (max_task_buffers' limit) taking
 * turns to open 16,384 and end them held 8 GiB while the session's bound
 * allowed 262,144 open.  32 processes do so in turn, their buffers live;
 * the heap in use (mallinfo2, large blocks included) after the last 24
 * must stay within 256 KiB of where it was after the first 8.
 */
static int test_async_list_shrinks(void)
{
	const size_t share = 16384, words = 2 * share * 5, procs = 32;
	__u64 *w = malloc(words * 8);
	size_t n, i, before = 0, after;
	struct drain_buffer *db;
	struct mallinfo2 mi;
	struct fake f;
	__u32 p, pid;

	ASSERT_TRUE(w);
	start();
	for (p = 0; p < procs; p++) {
		pid = 1000 + 2 * p;
		fake_new(&f, 40 + p, FXTRACE_BUFFER_TASK, pid, pid + 1,
			 words * 8 + 4096, 0, NULL);
		n = async_begins(w, pid, pid + 1, share, 1);
		for (i = 0; i < share; i++)
			n += event(w + n, FXT_EVENT_ASYNC_END, START + SECOND,
				   pid, pid + 1, "", 1 + i);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(2 * share, db->records);
		ASSERT_EQ(0, out.asyncs.count);
		fake_free(&f);
		file.len = 0;
		out.offset = 0;
		if (p == 7) {
			mi = mallinfo2();
			before = mi.uordblks + mi.hblkhd;
		}
	}
	mi = mallinfo2();
	after = mi.uordblks + mi.hblkhd;
	printf("# heap in use after 8 processes %zu bytes, after 32 %zu bytes\n",
	       before, after);
	ASSERT_CMP(after, <, before + (256 << 10));
	free(w);
	return 0;
}

/*
 * The summary lists events lost without a buffer for the first 32,768
 * processes to report them, and counts the reports of later ones: before,
 * the table and the summary held a line per pid, up to pid_max (4,194,304
 * processes forked over a session).  32,769 processes report 1 + their
 * number, the first one again (listed: updated), the last twice.
 */
static int test_lost_events_bounded(void)
{
	static const char first[] = "fxtrace-drain: pid 1000: 7 events lost without a buffer (as its producer reports)\n";
	const __u32 procs = LOST_PIDS_MAX + 1;
	char *text = NULL, *line;
	size_t text_len = 0, lines = 0;
	struct drain_buffer *db;
	struct fake f;
	__u64 w[32];
	__u32 p, pid, n;
	FILE *fp;

	start();
	for (p = 0; p < procs; p++) {
		pid = 1000 + 2 * p;
		fake_new(&f, 100 + p, FXTRACE_BUFFER_TASK, pid, pid + 1, 4096,
			 0, NULL);
		n = lost_counter(w, START + SECOND, pid, pid + 1,
				 FXT_ARG_UINT64, 1 + p);
		if (p == 0 || p == procs - 1)
			n += lost_counter(w + n, START + 2 * SECOND, pid,
					  pid + 1, FXT_ARG_UINT64, 7);
		put_words(&f, w, n);
		db = drain_rest(&f);
		ASSERT_EQ(p == 0 || p == procs - 1 ? 2 : 1, db->records);
		output_retire(&out, db);
		fake_free(&f);
		file.len = 0;
		out.offset = 0;
	}
	ASSERT_EQ(LOST_PIDS_MAX, out.lost.count);
	fp = open_memstream(&text, &text_len);
	ASSERT_TRUE(fp);
	output_report_lost(&out, fp);
	fclose(fp);
	for (line = text; (line = strchr(line, '\n')); line++)
		lines++;
	ASSERT_EQ(LOST_PIDS_MAX + 1, lines);
	ASSERT_TRUE(!strncmp(text, first, strlen(first)));
	ASSERT_TRUE(strstr(text, "fxtrace-drain: pid 66534: 32768 events lost without a buffer (as its producer reports)\n"
			   "fxtrace-drain: 2 reports of events lost without a buffer by processes past the first 32768: not listed (their counters are in the trace)\n"));
	free(text);
	return 0;
}

/*
 * Only counter 0 of category "fxtrace" is a report of events lost
 * without a buffer; of two at the same time, the one drained last wins.
 */
static int lost_events_which(bool full_decode)
{
	struct fake id7, cat, same;
	struct walk walk;
	char *text = NULL;
	size_t text_len = 0;
	FILE *f;
	__u64 w[64];
	__u32 n;

	start();
	out.full_decode = full_decode;
	fake_new(&id7, 20, FXTRACE_BUFFER_TASK, 500, 501, 1 << 16, 0, NULL);
	fake_new(&cat, 21, FXTRACE_BUFFER_TASK, 700, 701, 1 << 16, 0, NULL);
	fake_new(&same, 22, FXTRACE_BUFFER_TASK, 600, 601, 1 << 16, 0, NULL);
	n = lost_counter(w, START + SECOND, 500, 501, FXT_ARG_UINT64, 3);
	w[n - 1] = 7;
	put_words(&id7, w, n);
	/* The category's first byte, 'f', made 'g': "gxtrace". */
	n = lost_counter(w, START + SECOND, 700, 701, FXT_ARG_UINT64, 4);
	w[4] ^= 1;
	put_words(&cat, w, n);
	n = lost_counter(w, START + SECOND, 600, 601, FXT_ARG_UINT64, 5);
	n += lost_counter(w + n, START + SECOND, 600, 601, FXT_ARG_UINT64, 9);
	put_words(&same, w, n);
	ASSERT_EQ(1, drain_rest(&id7)->records);
	ASSERT_EQ(1, drain_rest(&cat)->records);
	ASSERT_EQ(2, drain_rest(&same)->records);
	ASSERT_EQ(0, check_file(&walk));
	f = open_memstream(&text, &text_len);
	ASSERT_TRUE(f);
	output_report_lost(&out, f);
	fclose(f);
	ASSERT_STR("fxtrace-drain: pid 600: 9 events lost without a buffer (as its producer reports)\n",
		   text);
	free(text);
	fake_free(&id7);
	fake_free(&cat);
	fake_free(&same);
	return 0;
}

/* The fast pass leaves a task's counters 0 to the full path, not others. */
static int test_lost_events_which(void)
{
	ASSERT_EQ(0, lost_events_which(false));
	ASSERT_EQ(0, lost_events_which(true));
	return 0;
}

/*
 * The kernel-object names repair_kobj() rewrites are the kernel's forms
 * only: a process, or a thread with one koid argument "process" of a pid,
 * named in 64 bytes at most (the longest repaired here).  Other records
 * with a name that is not UTF-8 are refused as before.
 */
static int test_repair_limits(void)
{
	static const char name64[] =
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8";
	const __u16 bad_ref = fxt_inline_string_ref(1);
	const __u16 process_ref = fxt_inline_string_ref(7);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	__u64 w[64];
	__u32 n, k;

	start();
	fake_new(&f, 2, FXTRACE_BUFFER_KERNEL, 0, 0, 1 << 16, 0, NULL);
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, 4242, name64, 64, 4240);
	/* A second argument. */
	k = n;
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, 4243, "\xff", 1,
				 4240);
	n += fxt_write_arg32(w + n, FXT_ARG_INT32, fxt_inline_string_ref(1),
			     "x", 1);
	w[k] = fxt_kobj_hdr(n - k, FXT_KOBJ_THREAD, bad_ref, 2);
	/* "process" as a uint64. */
	k = n;
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, 4244, "\xff", 1, 0);
	n += fxt_write_arg64(w + n, FXT_ARG_UINT64, process_ref, "process",
			     4240);
	w[k] = fxt_kobj_hdr(n - k, FXT_KOBJ_THREAD, bad_ref, 1);
	/* A process with a "process" koid 0. */
	k = n;
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, 4240, "\xff", 1, 0);
	n += fxt_write_arg64(w + n, FXT_ARG_KOID, process_ref, "process", 0);
	w[k] = fxt_kobj_hdr(n - k, FXT_KOBJ_PROCESS, bad_ref, 1);
	ASSERT_CMP(n, <=, N_WORDS(w));
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(1, db->repaired);
	ASSERT_EQ(3, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	return 0;
}

/*
 * A large record of 4,097 words (its size past bits [4..15]) in a half
 * is framed by its whole size: refused (rule large-perfetto), and the
 * record after it judged.
 */
static int test_large_framed(void)
{
	const size_t large_words = 4097;
	__u64 *w = calloc(large_words + 16, 8);
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	size_t n;

	ASSERT_TRUE(w);
	start();
	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 1 << 16,
		 NULL);
	w[0] = fxt_field(FXT_REC_LARGE, 0, 3) |
	       fxt_field(large_words, 4, 35) |
	       fxt_field(FXT_LARGE_BLOB_ATTACHMENT, 40, 43);
	w[1] = 0;		/* format header: empty category and name */
	w[2] = 8 * (large_words - 3);	/* the payload fills the record */
	n = large_words;
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "after",
		   0);
	drain_half(&f, 0, w, n);
	db = output_find(&out, 12);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(1, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(1, walk.events);
	fake_free(&f);
	free(w);
	return 0;
}

/*
 * A durable part that cannot be framed (a size-0 record) is refused once
 * and read no further, whatever is committed after; a durable part whose
 * committed offset its producer moves back is not read again.
 */
static int test_durable_moves(void)
{
	struct drain_buffer *db;
	struct walk walk;
	struct chunk c;
	struct fake f;
	__u64 w[64];
	__u32 n, i;

	start();
	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, NULL);
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "a", 0);
	w[n++] = fxt_field(FXT_REC_EVENT, 0, 3);
	put_words(&f, w, n);
	drain_half(&f, 0, w, 0);
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "b", 0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(1, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(1, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	start();
	fake_new(&f, 13, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, NULL);
	for (n = 0, i = 0; i < 12; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, TID,
			   "", 0);
	put_words(&f, w, n);
	drain_half(&f, 0, w, 0);
	f.ctl->durable_committed = 0;
	ASSERT_EQ(0, output_rest(&out, &f.b, &c));
	file_add(&file, &c);
	chunk_free(&c);
	db = output_find(&out, 13);
	ASSERT_EQ(12, db->records);
	ASSERT_EQ(0, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	return 0;
}

/*
 * Drop counts: the kernel's are its own, never bounded as a producer's
 * are; the drop counter is written for a buffer with records refused and
 * none dropped, and for no buffer without either.
 */
static int test_drops_when(void)
{
	struct drain_buffer *db;
	struct chunk c;
	struct fake f;
	__u64 w[16];
	__u32 n;

	start();
	fake_new(&f, 11, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 0, NULL);
	f.hdr->dropped_records = PRODUCER_DROPS_MAX + 7;
	db = drain_rest(&f);
	ASSERT_EQ(PRODUCER_DROPS_MAX + 7, db->dropped);
	fake_free(&f);
	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, 555, "x", 0);
	put_words(&f, w, n);
	ASSERT_EQ(0, output_rest(&out, &f.b, &c));
	chunk_free(&c);
	db = output_find(&out, 12);
	ASSERT_EQ(0, db->dropped);
	ASSERT_EQ(1, db->invalid);
	ASSERT_EQ(0, output_drops(&out, db, &c));
	ASSERT_CMP(c.len, >, 0);
	chunk_free(&c);
	fake_free(&f);
	fake_new(&f, 13, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	ASSERT_EQ(0, output_rest(&out, &f.b, &c));
	chunk_free(&c);
	ASSERT_EQ(0, output_drops(&out, output_find(&out, 13), &c));
	ASSERT_EQ(0, c.len);
	fake_free(&f);
	return 0;
}

/*
 * The file a fresh output makes of b's rest and its drop counter (as a
 * snapshot writes a retired buffer), into *bytes (malloc()ed); its strict
 * check into *checked, the buffer's state into *db.
 */
static size_t snapshot_of(const struct fxtctl_buffer *b, unsigned char **bytes,
			  int *checked, struct drain_buffer *db)
{
	struct walk walk;
	struct chunk c;

	start();
	if (output_rest(&out, b, &c))
		exit(1);
	file_add(&file, &c);
	chunk_free(&c);
	*db = *output_find(&out, b->id);
	if (output_drops(&out, output_find(&out, b->id), &c))
		exit(1);
	file_add(&file, &c);
	chunk_free(&c);
	*checked = check_file(&walk);
	*bytes = malloc(file.len);
	if (!*bytes)
		exit(1);
	memcpy(*bytes, file.bytes, file.len);
	return file.len;
}

/*
 * A retired buffer's copy for the snapshots (retired_keep()) makes the
 * same file as its mapping did when it was taken, named as the trace
 * names it, with its drop counter and the same refusals: its control page
 * is read once, so what its producer writes in the mapping after (more
 * records, garbage, committed offsets past the end) is not in it.
 */
static int test_retired_copy(void)
{
	struct retired_copies kept = { .budget = 1 << 20 };
	struct drain_buffer want_db, got_db;
	unsigned char *want, *got;
	size_t want_len, got_len;
	int want_ok, got_ok;
	struct fake f;
	__u64 w[64];
	__u32 n = 0, i;

	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096,
		 "worker");
	for (i = 0; i < 3; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + SECOND + i, PID,
			   TID, "durable", 0);
	/* Another's thread: refused, in the mapping and in the copy. */
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND + 3, PID, 555,
		   "forged", 0);
	put_words(&f, w, n);
	n = 0;
	for (i = 0; i < 2; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + 2 * SECOND + i,
			   PID, TID, "half1", 0);
	memcpy(f.data + f.hdr->durable_size + f.hdr->rolling_size, w, 8 * n);
	f.ctl->rolling_committed[1] = 8 * n;
	f.ctl->wrap_count = 1;
	f.hdr->dropped_records = 9;
	want_len = snapshot_of(&f.b, &want, &want_ok, &want_db);
	ASSERT_EQ(0, want_ok);
	ASSERT_EQ(5, want_db.records);
	ASSERT_EQ(1, want_db.refused[REFUSED_FOREIGN]);
	ASSERT_EQ(9, want_db.dropped);
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(1, kept.held);
	ASSERT_EQ(0, retired_evicted(&kept));
	/* The producer writes on: garbage, and offsets past its buffer. */
	memset(f.data, 0xff, f.hdr->durable_size + 2 * f.hdr->rolling_size);
	f.ctl->durable_committed = ~0ULL;
	f.ctl->rolling_committed[0] = ~0ULL;
	f.ctl->rolling_committed[1] = ~0ULL;
	f.ctl->wrap_count = 7;
	got_len = snapshot_of(&kept.oldest->b, &got, &got_ok, &got_db);
	ASSERT_EQ(0, got_ok);
	ASSERT_EQ(want_len, got_len);
	ASSERT_MEM(want, got, want_len);
	ASSERT_STR("worker 101 (pid 100)", got_db.name);
	ASSERT_STR(want_db.name, got_db.name);
	ASSERT_EQ(5, got_db.records);
	ASSERT_EQ(1, got_db.refused[REFUSED_FOREIGN]);
	ASSERT_EQ(9, got_db.dropped);
	free(want);
	free(got);
	/*
	 * Taken while the control page says past the end: clamped as the
	 * mapping's are, and the same refusals as the mapping gives.
	 */
	want_len = snapshot_of(&f.b, &want, &want_ok, &want_db);
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(2, kept.held);
	got_len = snapshot_of(&kept.newest->b, &got, &got_ok, &got_db);
	ASSERT_EQ(want_ok, got_ok);
	ASSERT_EQ(want_len, got_len);
	ASSERT_MEM(want, got, want_len);
	ASSERT_EQ(want_db.invalid, got_db.invalid);
	ASSERT_CMP(got_db.invalid, >, 0);
	free(want);
	free(got);
	retired_free(&kept);
	ASSERT_EQ(0, kept.held);
	ASSERT_EQ(0, kept.used);
	fake_free(&f);
	return 0;
}

/*
 * A copy is charged what its thread committed, up to the end of its last
 * committed span, not its whole buffer: in a 1 MiB buffer (64K durable,
 * two 480K halves) a thread that wrote 3 events in half 0 costs 64K and
 * their 3 words' worth, one that wrapped into half 1 costs up to its
 * events there, one whose control page says ~0 everywhere (clamped) the
 * whole buffer.  Each copy still writes what its mapping did.
 */
static int test_retired_charge(void)
{
	const uint64_t overhead = sizeof(struct retired_copy) +
				  FXTRACE_BUFFER_PAGE_SIZE +
				  sizeof(struct fxtrace_buffer_control);
	const size_t durable = 64 << 10, rolling = 480 << 10;
	struct retired_copies kept = { .budget = 64 << 20 };
	struct drain_buffer want_db, got_db;
	unsigned char *want, *got;
	size_t want_len, got_len, len0, len1;
	int want_ok, got_ok;
	struct fake f;
	__u64 w[32];
	__u32 n = 0, i;

	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, durable, rolling,
		 "worker");
	for (i = 0; i < 3; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + SECOND + i, PID,
			   TID, "half0", 0);
	len0 = 8 * n;
	memcpy(f.data + durable, w, len0);
	f.ctl->rolling_committed[0] = len0;
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(overhead + durable + len0, kept.newest->bytes);
	ASSERT_EQ(overhead + durable + len0, kept.used);
	want_len = snapshot_of(&f.b, &want, &want_ok, &want_db);
	got_len = snapshot_of(&kept.newest->b, &got, &got_ok, &got_db);
	ASSERT_EQ(0, got_ok);
	ASSERT_EQ(3, got_db.records);
	ASSERT_EQ(want_len, got_len);
	ASSERT_MEM(want, got, want_len);
	free(want);
	free(got);
	/* Wrapped once: half 0 (wrap 0) and half 1 (wrap 1) are both read. */
	n = 0;
	for (i = 0; i < 2; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + 2 * SECOND + i,
			   PID, TID, "half1", 0);
	len1 = 8 * n;
	memcpy(f.data + durable + rolling, w, len1);
	f.ctl->rolling_committed[1] = len1;
	f.ctl->wrap_count = 1;
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(overhead + durable + rolling + len1, kept.newest->bytes);
	want_len = snapshot_of(&f.b, &want, &want_ok, &want_db);
	got_len = snapshot_of(&kept.newest->b, &got, &got_ok, &got_db);
	ASSERT_EQ(0, got_ok);
	ASSERT_EQ(5, got_db.records);
	ASSERT_EQ(want_len, got_len);
	ASSERT_MEM(want, got, want_len);
	free(want);
	free(got);
	/* Offsets past the end, clamped: the whole buffer, as before. */
	f.ctl->rolling_committed[0] = ~0ULL;
	f.ctl->rolling_committed[1] = ~0ULL;
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(overhead + durable + 2 * rolling, kept.newest->bytes);
	ASSERT_EQ(3, kept.held);
	ASSERT_EQ(3 * overhead + 3 * durable + 3 * rolling + len0 + len1,
		  kept.used);
	retired_free(&kept);
	fake_free(&f);
	return 0;
}

/*
 * The copies stay within their budget, the most recently retired kept:
 * older ones are evicted for a new one, a buffer larger than the whole
 * budget (a 256 MiB one) evicts nothing and is not kept, a budget of 0
 * keeps none, and the count of those not kept is exact.  CPU buffers are
 * never copied.
 */
static int test_retired_budget(void)
{
	struct retired_copies kept = { 0 };
	struct fake f, huge, cpu;
	uint64_t one;
	__u32 i;

	fake_new(&f, 1, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, "t");
	/* Nothing committed in its halves: charged up to half 0's start. */
	one = sizeof(struct retired_copy) + FXTRACE_BUFFER_PAGE_SIZE +
	      sizeof(struct fxtrace_buffer_control) + (1 << 16);
	kept.budget = 2 * one + one / 2;
	for (i = 1; i <= 5; i++) {
		f.b.id = i;
		ASSERT_EQ(0, retired_keep(&kept, &f.b));
		ASSERT_CMP(kept.used, <=, kept.budget);
	}
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(2 * one, kept.used);
	ASSERT_EQ(3, retired_evicted(&kept));
	ASSERT_EQ(4, kept.oldest->b.id);
	ASSERT_EQ(5, kept.newest->b.id);
	ASSERT_TRUE(kept.oldest->newer == kept.newest);
	/* A huge buffer's header: its sizes are checked, nothing mapped. */
	fake_new(&huge, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, "h");
	huge.hdr->durable_size = FXTRACE_BUFFER_SIZE_MAX / 2;
	huge.hdr->rolling_size = FXTRACE_BUFFER_SIZE_MAX / 4;
	huge.b.map_size = 8192 + FXTRACE_BUFFER_SIZE_MAX;
	ASSERT_EQ(0, retired_keep(&kept, &huge.b));
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(4, retired_evicted(&kept));
	ASSERT_EQ(4, kept.oldest->b.id);
	/* Sizes past the mapping (a header not the kernel's): not copied. */
	huge.b.map_size = 8192;
	kept.budget = 1ULL << 40;
	ASSERT_EQ(0, retired_keep(&kept, &huge.b));
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(5, retired_evicted(&kept));
	fake_new(&cpu, 7, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 4096, NULL);
	ASSERT_EQ(0, retired_keep(&kept, &cpu.b));
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(6, retired_evicted(&kept));
	/* A thousand threads exit: the budget holds, the newest are kept. */
	kept.budget = 10 * one;
	for (i = 100; i < 1100; i++) {
		f.b.id = i;
		ASSERT_EQ(0, retired_keep(&kept, &f.b));
		ASSERT_CMP(kept.used, <=, kept.budget);
	}
	ASSERT_EQ(10, kept.held);
	ASSERT_EQ(1090, kept.oldest->b.id);
	ASSERT_EQ(1099, kept.newest->b.id);
	ASSERT_EQ(1008 - 10, retired_evicted(&kept));
	retired_free(&kept);
	kept = (struct retired_copies){ .budget = 0 };
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(0, kept.held);
	ASSERT_EQ(1, retired_evicted(&kept));
	ASSERT_EQ(0, kept.used);
	fake_free(&cpu);
	fake_free(&huge);
	fake_free(&f);
	return 0;
}

/*
 * Linked with --wrap=calloc too (build.mk): a calloc() of calloc_watch
 * bytes, the size of a retired buffer's copy, runs calloc_watched (a
 * sibling thread writing into the mapping while the copy is taken), or
 * fails while calloc_watch_fails is set.
 */
void *__real_calloc(size_t n, size_t size);
static size_t calloc_watch;
static void (*calloc_watched)(void);
static bool calloc_watch_fails;
static unsigned int calloc_watch_hits;

void *__wrap_calloc(size_t n, size_t size)
{
	diff_calloc_seen(n * size);
	if (calloc_watch && n * size == calloc_watch) {
		calloc_watch_hits++;
		if (calloc_watched)
			calloc_watched();
		if (calloc_watch_fails)
			return NULL;
	}
	return __real_calloc(n, size);
}

/*
 * The module as a snapshot sees it through FAKE_CTL_FD: its live buffers
 * (in the fxtctl's cache, so not mapped), BUFFER_INFO walking them, and
 * where in the snapshot file the writers were paused and resumed.
 */
#define FAKE_CTL_FD	1000

static struct {
	const struct fxtctl_buffer *live;
	unsigned int n_live;
	int out_fd;
	unsigned int pauses, resumes;
	off_t paused_at, resumed_at;
	int pause_errno;		/* PAUSE fails with it */
} fake_ctl;

int ioctl(int fd, unsigned long request, ...)
{
	struct fxtrace_buffer_info *bi;
	const struct fxtctl_buffer *next = NULL;
	va_list ap;
	void *arg;
	unsigned int i;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FAKE_CTL_FD)
		return (int)syscall(SYS_ioctl, fd, request, arg);
	switch (request) {
	case FXTRACE_IOC_PAUSE:
		fake_ctl.pauses++;
		fake_ctl.paused_at = lseek(fake_ctl.out_fd, 0, SEEK_CUR);
		if (fake_ctl.pause_errno) {
			errno = fake_ctl.pause_errno;
			return -1;
		}
		return 0;
	case FXTRACE_IOC_RESUME:
		fake_ctl.resumes++;
		fake_ctl.resumed_at = lseek(fake_ctl.out_fd, 0, SEEK_CUR);
		return 0;
	case FXTRACE_IOC_BUFFER_INFO:
		bi = arg;
		for (i = 0; i < fake_ctl.n_live; i++)
			if (fake_ctl.live[i].id >= bi->id &&
			    (!next || fake_ctl.live[i].id < next->id))
				next = &fake_ctl.live[i];
		if (!next)
			break;
		bi->id = next->id;
		bi->kind = next->kind;
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
	errno = ENOENT;
	return -1;
}

/* What fd holds, into file (replacing what it held). */
static void file_of_fd(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	struct chunk c = { .data = malloc(len > 0 ? (size_t)len : 1) };

	if (len < 0 || !c.data || pread(fd, c.data, (size_t)len, 0) != len)
		exit(1);
	c.len = c.cap = (size_t)len;
	file.len = 0;
	file_add(&file, &c);
	free(c.data);
}

/* A fresh output as a snapshot's: the session clock at START + 10 s. */
static void snapshot_output(struct output *o)
{
	output_init(o, SECOND, START);
	output_set_now(o, START + 10 * SECOND);
}

/*
 * A circular snapshot writes the kept copies of retired buffers before it
 * pauses the writers: the pause covers the live buffers alone, not the
 * copies, however large their budget (each thread drops what it writes
 * while paused).  With two copies and one live buffer the writers pause
 * exactly where the snapshot of the copies alone ends, and resume at the
 * end of the file; `fxtrace stop -o` (no pause) writes the same file and
 * pauses nobody.  The file passes the strict check.
 */
static int test_snapshot_pause_after_copies(void)
{
	struct retired_copies kept = { .budget = 1 << 20 };
	struct fxtctl_buffer live[1];
	struct fxtctl c = { .fd = FAKE_CTL_FD };
	struct fake f[3];
	unsigned char *copies;
	off_t copies_len, len;
	struct walk walk;
	struct output o;
	__u64 w[64];
	__u32 n, i, k;
	int fd_copies, fd;

	for (k = 0; k < 3; k++) {
		fake_new(&f[k], 12 + k, FXTRACE_BUFFER_TASK, PID, TID + k,
			 1 << 16, 4096, "worker");
		n = 0;
		for (i = 0; i < 3; i++)
			n += event(w + n, FXT_EVENT_INSTANT,
				   START + SECOND + 10 * k + i, PID, TID + k,
				   "work", 0);
		put_words(&f[k], w, n);
	}
	ASSERT_EQ(0, retired_keep(&kept, &f[0].b));
	ASSERT_EQ(0, retired_keep(&kept, &f[1].b));
	ASSERT_EQ(2, kept.held);
	live[0] = f[2].b;
	/* The copies alone: no live buffer. */
	fd_copies = fileno(tmpfile());
	ASSERT_CMP(fd_copies, >=, 0);
	memset(&fake_ctl, 0, sizeof(fake_ctl));
	fake_ctl.out_fd = fd_copies;
	snapshot_output(&o);
	ASSERT_EQ(2, output_session(&o, &c, &kept, false, fd_copies, NULL));
	output_free(&o);
	ASSERT_EQ(0, fake_ctl.pauses);
	copies_len = lseek(fd_copies, 0, SEEK_END);
	ASSERT_CMP(copies_len, >, 8);
	copies = malloc((size_t)copies_len);
	ASSERT_TRUE(copies != NULL);
	ASSERT_EQ(copies_len, pread(fd_copies, copies, (size_t)copies_len, 0));
	/* The snapshot: copies, then the live buffer while paused. */
	c.bufs = live;
	c.nbufs = 1;
	fake_ctl.live = live;
	fake_ctl.n_live = 1;
	fd = fileno(tmpfile());
	ASSERT_CMP(fd, >=, 0);
	fake_ctl.out_fd = fd;
	snapshot_output(&o);
	ASSERT_EQ(3, output_session(&o, &c, &kept, true, fd, NULL));
	len = lseek(fd, 0, SEEK_END);
	ASSERT_EQ(1, fake_ctl.pauses);
	ASSERT_EQ(1, fake_ctl.resumes);
	ASSERT_EQ(copies_len, fake_ctl.paused_at);
	ASSERT_EQ(len, fake_ctl.resumed_at);
	ASSERT_CMP(len, >, copies_len);
	file_of_fd(fd);
	ASSERT_MEM(copies, file.bytes, (size_t)copies_len);
	output_free(&out);
	out = o;
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(9, walk.events);
	/* `fxtrace stop -o`: the same file, nobody paused. */
	fake_ctl.pauses = fake_ctl.resumes = 0;
	ASSERT_EQ(0, ftruncate(fd, 0));
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	output_free(&out);
	snapshot_output(&out);
	ASSERT_EQ(3, output_session(&out, &c, &kept, false, fd, NULL));
	ASSERT_EQ(0, fake_ctl.pauses);
	ASSERT_EQ(0, fake_ctl.resumes);
	ASSERT_EQ(len, lseek(fd, 0, SEEK_END));
	free(copies);
	close(fd);
	close(fd_copies);
	retired_free(&kept);
	for (k = 0; k < 3; k++)
		fake_free(&f[k]);
	return 0;
}

/* fd's stderr lines of fn(arg), into err (NUL-terminated). */
static int stderr_of(int (*fn)(void *), void *arg, char *err, size_t size)
{
	ssize_t len;
	int saved, tmp, ret;

	fflush(stderr);
	saved = dup(2);
	tmp = fileno(tmpfile());
	if (saved < 0 || tmp < 0 || dup2(tmp, 2) != 2)
		exit(1);
	ret = fn(arg);
	fflush(stderr);
	if (dup2(saved, 2) != 2)
		exit(1);
	close(saved);
	len = pread(tmp, err, size - 1, 0);
	close(tmp);
	err[len > 0 ? len : 0] = '\0';
	return ret;
}

struct session_call {
	struct output *o;
	struct fxtctl *c;
	const struct retired_copies *kept;
	bool pause;
	int fd;
	unsigned int *not_mapped;
};

static int call_session(void *arg)
{
	struct session_call *s = arg;

	return output_session(s->o, s->c, s->kept, s->pause, s->fd,
			      s->not_mapped);
}

/*
 * A snapshot skips a live buffer it cannot map (a retired buffer
 * on_retired() could not map stays listed by BUFFER_INFO): it names it on
 * stderr, counts it, and writes the copy and the other live buffers, the
 * same file as a session without it, strict-clean.  `fxtrace stop -o`
 * (no count asked) still fails on it.  A pause that fails says so and
 * leaves the copies alone, strict-clean.
 */
#define OWNERLESS_12 "fxtrace-drain: buffer 12 (worker 101 (pid 100)): its header has no owner_uid (fxtrace.ko older than ABI 0.8): flows of such buffers are keyed by id alone, whatever their user\n"

static int test_snapshot_skips_unmapped(void)
{
	struct retired_copies kept = { .budget = 1 << 20 };
	struct fxtctl_buffer live[3];
	struct fxtctl c = { .fd = FAKE_CTL_FD };
	struct session_call call = { .c = &c, .kept = &kept };
	unsigned char *want;
	unsigned int not_mapped;
	struct walk walk;
	struct output o;
	struct fake f[3];
	char err[512];
	off_t want_len;
	__u64 w[64];
	__u32 n, i, k;
	int fd;

	for (k = 0; k < 3; k++) {
		fake_new(&f[k], 12 + k, FXTRACE_BUFFER_TASK, PID, TID + k,
			 1 << 16, 4096, "worker");
		n = 0;
		for (i = 0; i < 3; i++)
			n += event(w + n, FXT_EVENT_INSTANT,
				   START + SECOND + 10 * k + i, PID, TID + k,
				   "work", 0);
		put_words(&f[k], w, n);
	}
	ASSERT_EQ(0, retired_keep(&kept, &f[0].b));
	/* Buffer 14 is mapped (in the cache), 13 is not: only listed. */
	live[0] = f[2].b;
	live[1] = f[1].b;
	c.bufs = live;
	c.nbufs = 1;
	memset(&fake_ctl, 0, sizeof(fake_ctl));
	fake_ctl.live = live;
	fake_ctl.n_live = 1;
	/* The file without buffer 13. */
	fd = fileno(tmpfile());
	ASSERT_CMP(fd, >=, 0);
	fake_ctl.out_fd = fd;
	snapshot_output(&o);
	not_mapped = 0;
	ASSERT_EQ(2, output_session(&o, &c, &kept, true, fd, &not_mapped));
	output_free(&o);
	ASSERT_EQ(0, not_mapped);
	want_len = lseek(fd, 0, SEEK_END);
	want = malloc((size_t)want_len);
	ASSERT_TRUE(want != NULL);
	ASSERT_EQ(want_len, pread(fd, want, (size_t)want_len, 0));
	close(fd);
	/* Buffer 13 listed too: skipped, named, counted. */
	fake_ctl.n_live = 2;
	fd = fileno(tmpfile());
	ASSERT_CMP(fd, >=, 0);
	fake_ctl.out_fd = fd;
	snapshot_output(&o);
	not_mapped = 0;
	call.o = &o;
	call.pause = true;
	call.fd = fd;
	call.not_mapped = &not_mapped;
	ASSERT_EQ(2, stderr_of(call_session, &call, err, sizeof(err)));
	ASSERT_STR(OWNERLESS_12 "fxtrace-drain: snapshot: buffer 13 not mapped: Bad file descriptor\n",
		   err);
	ASSERT_EQ(1, not_mapped);
	ASSERT_EQ(2, fake_ctl.pauses);
	ASSERT_EQ(2, fake_ctl.resumes);
	ASSERT_EQ(want_len, lseek(fd, 0, SEEK_END));
	file_of_fd(fd);
	ASSERT_MEM(want, file.bytes, (size_t)want_len);
	output_free(&out);
	out = o;
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(6, walk.events);
	close(fd);
	/* `fxtrace stop -o`: no count asked, the buffer fails the whole. */
	fd = fileno(tmpfile());
	ASSERT_CMP(fd, >=, 0);
	output_free(&out);
	snapshot_output(&out);
	ASSERT_EQ(-EBADF, output_session(&out, &c, NULL, false, fd, NULL));
	close(fd);
	/* A pause that fails: the copy alone, and the pause named. */
	fake_ctl.pause_errno = EPERM;
	fd = fileno(tmpfile());
	ASSERT_CMP(fd, >=, 0);
	fake_ctl.out_fd = fd;
	snapshot_output(&o);
	not_mapped = 0;
	call.fd = fd;
	ASSERT_EQ(-EPERM, stderr_of(call_session, &call, err, sizeof(err)));
	ASSERT_STR(OWNERLESS_12 "fxtrace-drain: snapshot: pause: Operation not permitted\n",
		   err);
	ASSERT_EQ(0, not_mapped);
	ASSERT_EQ(3, fake_ctl.pauses);
	ASSERT_EQ(2, fake_ctl.resumes);
	file_of_fd(fd);
	output_free(&out);
	out = o;
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(3, walk.events);
	close(fd);
	free(want);
	retired_free(&kept);
	for (k = 0; k < 3; k++)
		fake_free(&f[k]);
	return 0;
}

/* The sibling thread of test_retired_rest_once: other times, same sizes. */
static struct fake *sibling_mapping;
static size_t sibling_at;

static void sibling_writes(void)
{
	__u64 w[64];
	__u32 n = 0, i;

	for (i = 0; i < 3; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + 5 * SECOND + i,
			   PID, TID, "durable", 0);
	memcpy(sibling_mapping->data + sibling_at, w, 8 * n);
}

/*
 * A retired task buffer's rest goes into the trace from the copy the
 * snapshots keep, one reading of its mapping: a sibling thread that
 * rewrites its records while the copy is being taken (here: when the
 * copy's memory is allocated, after its control page is read) changes
 * the trace and the snapshots alike.  Both hold the sibling's times.
 */
static int test_retired_rest_once(void)
{
	struct retired_copies kept = { .budget = 1 << 20 };
	struct drain_buffer got_db;
	unsigned char *trace, *snap;
	size_t trace_len, snap_len;
	struct walk walk;
	struct chunk c;
	struct fake f;
	__u64 w[64];
	__u32 n = 0, i;
	int snap_ok;

	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096,
		 "worker");
	sibling_mapping = &f;
	sibling_at = f.durable;
	for (i = 0; i < 3; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + SECOND + i, PID,
			   TID, "durable", 0);
	put_words(&f, w, n);
	/* Nothing in its halves: its copy ends where half 0 starts. */
	calloc_watch = retired_copy_bytes(f.hdr->durable_size);
	calloc_watched = sibling_writes;
	calloc_watch_hits = 0;
	start();
	ASSERT_EQ(0, output_retired_rest(&out, &kept, &f.b, &c));
	calloc_watch = 0;
	calloc_watched = NULL;
	ASSERT_EQ(1, calloc_watch_hits);
	ASSERT_EQ(1, kept.held);
	file_add(&file, &c);
	chunk_free(&c);
	ASSERT_EQ(0, output_drops(&out, output_find(&out, 12), &c));
	file_add(&file, &c);
	chunk_free(&c);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(3, walk.events);
	trace_len = file.len;
	trace = malloc(trace_len);
	ASSERT_TRUE(trace != NULL);
	memcpy(trace, file.bytes, trace_len);
	snap_len = snapshot_of(&kept.newest->b, &snap, &snap_ok, &got_db);
	ASSERT_EQ(0, snap_ok);
	ASSERT_EQ(3, got_db.records);
	ASSERT_EQ(trace_len, snap_len);
	ASSERT_MEM(trace, snap, trace_len);
	free(snap);
	/* The sibling's times: the file the mapping makes now. */
	snap_len = snapshot_of(&f.b, &snap, &snap_ok, &got_db);
	ASSERT_EQ(trace_len, snap_len);
	ASSERT_MEM(trace, snap, trace_len);
	free(trace);
	free(snap);
	retired_free(&kept);
	fake_free(&f);
	return 0;
}

static void malloc_starts_failing(void)
{
	malloc_fails = true;
}

/*
 * A retired buffer the drainer has no memory to copy, or could not map,
 * is counted lost, not evicted: kept, evicted and lost add up to the
 * buffers retired.  Without memory for the copy its rest is written from
 * the mapping, whole (3 events); an -ENOMEM of output_rest() after the
 * copy is taken is returned with the copy kept and nothing counted lost,
 * so that the drainer does not take it for the copy's.
 */
static int test_retired_lost(void)
{
	struct retired_copies kept = { .budget = 1 << 20 };
	struct chunk c = { 0 };
	struct walk walk;
	struct fake f;
	__u64 w[64];
	__u32 n = 0, i;

	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, "t");
	for (i = 0; i < 3; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + SECOND + i, PID,
			   TID, "durable", 0);
	put_words(&f, w, n);
	calloc_watch = retired_copy_bytes(f.hdr->durable_size);
	calloc_watch_fails = true;
	ASSERT_EQ(-ENOMEM, retired_keep(&kept, &f.b));
	ASSERT_EQ(1, kept.retired);
	ASSERT_EQ(0, kept.held);
	ASSERT_EQ(1, kept.lost);
	ASSERT_EQ(0, retired_evicted(&kept));
	start();
	ASSERT_EQ(0, output_retired_rest(&out, &kept, &f.b, &c));
	ASSERT_EQ(2, kept.lost);
	ASSERT_EQ(0, kept.held);
	file_add(&file, &c);
	chunk_free(&c);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(3, walk.events);
	calloc_watch_fails = false;
	/* The copy taken, then output_rest() without memory. */
	calloc_watched = malloc_starts_failing;
	start();
	ASSERT_EQ(-ENOMEM, output_retired_rest(&out, &kept, &f.b, &c));
	malloc_fails = false;
	calloc_watched = NULL;
	calloc_watch = 0;
	ASSERT_EQ(3, kept.retired);
	ASSERT_EQ(1, kept.held);
	ASSERT_EQ(2, kept.lost);
	/* Not mapped (on_retired()). */
	retired_lose(&kept);
	ASSERT_EQ(4, kept.retired);
	ASSERT_EQ(3, kept.lost);
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(5, kept.retired);
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(3, kept.lost);
	ASSERT_EQ(0, retired_evicted(&kept));
	kept.budget = 0;
	ASSERT_EQ(0, retired_keep(&kept, &f.b));
	ASSERT_EQ(1, retired_evicted(&kept));
	ASSERT_EQ(kept.retired,
		  kept.held + retired_evicted(&kept) + kept.lost);
	retired_free(&kept);
	fake_free(&f);
	return 0;
}

/*
 * A retired buffer without memory for its copy evicts none: the budget
 * holds two copies, a third whose calloc() fails leaves both, oldest
 * first, and is counted lost; the next one that gets memory evicts the
 * oldest alone.
 */
static int test_retired_no_memory_evicts_none(void)
{
	struct retired_copies kept = { 0 };
	struct fake f[4];
	__u64 w[64];
	__u32 n, i, k;

	for (k = 0; k < 4; k++) {
		fake_new(&f[k], 12 + k, FXTRACE_BUFFER_TASK, PID, TID + k,
			 1 << 16, 4096, "t");
		n = 0;
		for (i = 0; i < 3; i++)
			n += event(w + n, FXT_EVENT_INSTANT,
				   START + SECOND + i, PID, TID + k,
				   "durable", 0);
		put_words(&f[k], w, n);
	}
	/* Nothing in their halves: each copy ends where half 0 starts. */
	kept.budget = 2 * retired_copy_bytes(f[0].hdr->durable_size);
	ASSERT_EQ(0, retired_keep(&kept, &f[0].b));
	ASSERT_EQ(0, retired_keep(&kept, &f[1].b));
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(kept.budget, kept.used);
	calloc_watch = retired_copy_bytes(f[2].hdr->durable_size);
	calloc_watch_fails = true;
	calloc_watch_hits = 0;
	ASSERT_EQ(-ENOMEM, retired_keep(&kept, &f[2].b));
	calloc_watch_fails = false;
	calloc_watch = 0;
	ASSERT_EQ(1, calloc_watch_hits);
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(kept.budget, kept.used);
	ASSERT_EQ(12, kept.oldest->b.id);
	ASSERT_EQ(13, kept.oldest->newer->b.id);
	ASSERT_TRUE(kept.oldest->newer == kept.newest);
	ASSERT_EQ(3, kept.retired);
	ASSERT_EQ(1, kept.lost);
	ASSERT_EQ(0, retired_evicted(&kept));
	ASSERT_EQ(0, retired_keep(&kept, &f[3].b));
	ASSERT_EQ(2, kept.held);
	ASSERT_EQ(13, kept.oldest->b.id);
	ASSERT_EQ(15, kept.newest->b.id);
	ASSERT_EQ(1, retired_evicted(&kept));
	ASSERT_EQ(kept.retired,
		  kept.held + retired_evicted(&kept) + kept.lost);
	retired_free(&kept);
	for (k = 0; k < 4; k++)
		fake_free(&f[k]);
	return 0;
}

/*
 * Header bits the decoder reserves, refused by the fast pass as by the
 * full path: a null argument's bits [32..63], a context switch's bits
 * [40..59].
 */
static int test_reserved_bits(void)
{
	static const __u64 set[3] = { 0, 1ULL << 40, 1ULL << 59 };
	const __u64 t = START + SECOND;
	struct drain_buffer *task, *cpu;
	struct fake ft, fc;
	unsigned int full, i;
	struct walk walk;
	__u64 w[64];
	__u32 n, k;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&ft, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 0, NULL);
		fake_new(&fc, 10, FXTRACE_BUFFER_CPU, 0, 0, 4096, 0, NULL);
		/* An instant with a null argument, bit 32 set. */
		w[0] = fxt_event_hdr(5, FXT_EVENT_INSTANT, 1,
				     FXT_THREAD_REF_INLINE, 0, 0);
		w[1] = t;
		w[2] = 200;
		w[3] = 201;
		n = 4 + fxt_write_arg_null(w + 4, 0, NULL);
		w[4] |= 1ULL << 32;
		put_words(&ft, w, n);
		task = drain_rest(&ft);
		n = fxt_write_string(w, 1, "incoming_weight", 15);
		n += fxt_write_string(w + n, 2, "outgoing_weight", 15);
		/* Clean, then with bit 40, then with bit 59 set. */
		for (i = 0; i < 3; i++) {
			k = n;
			n += fxt_write_context_switch(w + n,
						      fxt_context_switch_words(2),
						      2, 0, FXT_THREAD_STATE_BLOCKED,
						      t + i, 201, 0);
			n += fxt_write_arg32(w + n, FXT_ARG_INT32, 1, NULL, 1024);
			n += fxt_write_arg32(w + n, FXT_ARG_INT32, 2, NULL, 1024);
			w[k] |= set[i];
		}
		put_words(&fc, w, n);
		cpu = drain_rest(&fc);
		ASSERT_EQ(0, task->records);
		ASSERT_EQ(1, task->refused[REFUSED_INVALID]);
		ASSERT_EQ(3, cpu->records);
		ASSERT_EQ(2, cpu->refused[REFUSED_INVALID]);
		ASSERT_EQ(0, check_file(&walk));
		fake_free(&ft);
		fake_free(&fc);
	}
	return 0;
}

/*
 * Records longer than the fast pass's layout (FAST_LAYOUT_WORDS): an
 * argument header at the layout's last word and past it, judged and
 * written as the full path does.  Under the sanitizers (make check's
 * sanitizer step) a mark past the layout's words is a stack overflow.
 */
static int test_long_records(void)
{
	const __u64 t = START + SECOND;
	static const unsigned int nargs[2] = { 7, 15 };
	struct drain_buffer *task;
	unsigned int full, r, i;
	struct walk walk;
	struct fake f;
	__u64 w[128];
	__u32 n, k;

	for (full = 0; full < 2; full++) {
		start();
		out.full_decode = full;
		fake_new(&f, 8, FXTRACE_BUFFER_TASK, 200, 201, 4096, 0, NULL);
		n = 0;
		for (r = 0; r < 2; r++) {
			/* 4 words, then 2 per argument: headers at 4, 6, .. */
			k = n;
			w[n++] = 0;
			w[n++] = t + r;
			w[n++] = 200;
			w[n++] = 201;
			for (i = 0; i < nargs[r]; i++)
				n += fxt_write_arg32(w + n, FXT_ARG_INT32,
						     fxt_inline_string_ref(1),
						     "a", i);
			w[k] = fxt_event_hdr(n - k, FXT_EVENT_INSTANT, nargs[r],
					     FXT_THREAD_REF_INLINE, 0, 0);
		}
		ASSERT_EQ(18 + 34, n);
		put_words(&f, w, n);
		task = drain_rest(&f);
		ASSERT_EQ(2, task->records);
		ASSERT_EQ(0, task->invalid);
		ASSERT_EQ(0, check_file(&walk));
		ASSERT_EQ(2, walk.events);
		fake_free(&f);
	}
	return 0;
}

/*
 * Names a repair makes longer take the room of the records after them:
 * what the fast pass then accepts stays within the chunk (file_add()
 * checks), and every record is written.
 */
static int test_repairs_then_fast(void)
{
	static const char name64[] =
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8";
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	__u64 w[512];
	__u32 n = 0, i;

	start();
	fake_new(&f, 2, FXTRACE_BUFFER_KERNEL, 0, 0, 4096, 4096, NULL);
	for (i = 0; i < 3; i++)
		n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, 4242 + i,
					 name64, 64, 4240);
	for (i = 0; i < 40; i++)
		n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, 4240, 4242,
			   "", 0);
	drain_half(&f, 0, w, n);
	db = output_find(&out, 2);
	ASSERT_EQ(43, db->records);
	ASSERT_EQ(3, db->repaired);
	ASSERT_EQ(0, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(40, walk.events);
	fake_free(&f);
	return 0;
}

/*
 * Halves saved out of order (wrap 1, then wrap 0): the rest at Stop
 * starts after the newest saved, and drains neither again.
 */
static int test_halves_out_of_order(void)
{
	struct drain_buffer *db;
	struct walk walk;
	struct fake f;
	__u64 w[16];
	__u32 n;

	start();
	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 4096, 4096, NULL);
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "one", 0);
	drain_half(&f, 1, w, n);
	f.ctl->rolling_committed[1] = 8 * n;
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "zero", 0);
	drain_half(&f, 0, w, n);
	f.ctl->rolling_committed[0] = 8 * n;
	f.ctl->wrap_count = 1;
	db = drain_rest(&f);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(0, db->invalid);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(2, walk.events);
	fake_free(&f);
	return 0;
}

/*
 * Issue 15: retired buffers' state, string tables included, used to stay
 * (~4.6 KB each).  100,000 thread lifetimes with strings, then the heap in
 * use must be back within 256 KiB of where it was after the first 1,000.
 */
static int test_retired_memory(void)
{
	struct mallinfo2 before = { 0 }, after;
	struct drain_buffer *db;
	struct fake f;
	__u64 w[64];
	__u32 n, i;

	start();
	for (i = 0; i < 100000; i++) {
		if (i == 1000)
			before = mallinfo2();
		fake_new(&f, 100 + i, FXTRACE_BUFFER_TASK, 1000 + i, 1000 + i,
			 1 << 12, 0, NULL);
		n = fxt_write_string(w, 1, "a name of a few bytes", 21);
		n += fxt_write_string(w + n, 2, "another string, longer", 22);
		n += fxt_write_thread(w + n, 1, 1000 + i, 1000 + i);
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, START + SECOND,
			   1000 + i, 1000 + i, "open", 1);
		put_words(&f, w, n);
		db = drain_rest(&f);
		if (db->records != 4)
			FAIL("lifetime %u: %llu records", i,
				(unsigned long long)db->records);
		output_retire(&out, db);
		fake_free(&f);
		/* The file itself is not the drainer's memory. */
		file.len = 0;
		out.offset = 0;
	}
	after = mallinfo2();
	printf("# heap in use after 1,000 lifetimes %zu bytes, after 100,000 %zu bytes\n",
	       before.uordblks, after.uordblks);
	ASSERT_CMP(after.uordblks, <, before.uordblks + (256 << 10));
	ASSERT_EQ(0, out.asyncs.count);
	ASSERT_EQ(0, out.bufs.count);
	ASSERT_EQ(100000, out.retired[FXTRACE_BUFFER_TASK].buffers);
	return 0;
}

/*
 * A producer rewriting a half while the drainer copies and judges it:
 * another thread flips each record's argument between a defined name and
 * an undefined one (same size).  Every record must be either written as
 * it was judged or refused, never judged in one state and written in the
 * other: the file passes the strict check, and written plus refused is
 * every record of every half.
 */
#define FLIP_STRIDE	64	/* every 64th record is flipped */

struct flipper {
	__u64 *args;		/* the first argument header of each record */
	size_t count;
	int stop;
};

static void *flip(void *arg)
{
	struct flipper *fl = arg;
	const __u64 good = fxt_arg_hdr(FXT_ARG_INT64, 2, 3, 0);
	const __u64 bad = fxt_arg_hdr(FXT_ARG_INT64, 2, 9, 0);
	size_t i;

	/* Few records, flipped often: each is judged mid-flip many times. */
	for (unsigned int round = 0; !__atomic_load_n(&fl->stop,
						     __ATOMIC_RELAXED); round++)
		for (i = 0; i < fl->count; i += FLIP_STRIDE)
			__atomic_store_n(&fl->args[i * 4],
					 round & 1 ? bad : good,
					 __ATOMIC_RELAXED);
	return NULL;
}

static int test_fast_copy_race(void)
{
	const size_t count = 16384, halves = 200;
	struct fxtctl_span half;
	struct drain_buffer *db;
	struct flipper fl;
	struct walk walk;
	pthread_t thread;
	__u64 w[16], *p;
	struct fake f;
	struct chunk c;
	size_t i;
	__u32 n;

	start();
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 4096, 32 * count,
		 NULL);
	n = fxt_write_thread(w, 1, PID, TID);
	n += fxt_write_string(w + n, 1, "app", 3);
	n += fxt_write_string(w + n, 2, "tick", 4);
	n += fxt_write_string(w + n, 3, "i", 1);
	put_words(&f, w, n);
	p = (__u64 *)(f.data + f.hdr->durable_size);
	for (i = 0; i < count; i++) {
		p[4 * i] = fxt_event_hdr(4, FXT_EVENT_INSTANT, 1, 1, 1, 2);
		p[4 * i + 1] = START + SECOND + i;
		p[4 * i + 2] = fxt_arg_hdr(FXT_ARG_INT64, 2, 3, 0);
		p[4 * i + 3] = i;
	}
	fl = (struct flipper){ .args = p + 2, .count = count };
	ASSERT_EQ(0, pthread_create(&thread, NULL, flip, &fl));
	half = (struct fxtctl_span){ .ptr = (unsigned char *)p,
				     .len = 32 * count };
	for (i = 0; i < halves; i++) {
		half.wrap = 2 * i;
		ASSERT_EQ(0, output_half(&out, &f.b, &half, &c));
		file_add(&file, &c);
		chunk_free(&c);
	}
	__atomic_store_n(&fl.stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	db = output_find(&out, f.b.id);
	printf("# %llu written, %llu refused\n",
	       (unsigned long long)db->records, (unsigned long long)db->invalid);
	/* The thread and the 3 strings of the durable part, then the halves. */
	ASSERT_EQ(4 + count * halves, db->records + db->invalid);
	ASSERT_TRUE(db->records > 4 + (count - count / FLIP_STRIDE) * halves);
	ASSERT_TRUE(db->invalid > 0);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(db->records - 4, walk.events);
	fake_free(&f);
	return 0;
}

/*
 * Seeds of fuzz_output that the generated ones rarely make: a config
 * (its bytes 0 and 1, config), then two halves of as many words.
 */
static int write_scenario(const char *dir, const char *name, __u16 config,
			  const __u64 *half0, size_t n0, const __u64 *half1,
			  size_t n1)
{
	unsigned char bytes[DIFF_CONFIG_BYTES + 8 * 128] = {
		(unsigned char)config, (unsigned char)(config >> 8)
	};
	uint64_t le[128];
	__u64 w[128];
	char path[512];
	size_t n = 0, i;
	FILE *f;

	/* The shorter half padded with empty strings: the cut between them. */
	memcpy(w, half0, 8 * n0);
	for (n = n0; n < n1; n++)
		fxt_write_string(w + n, 40, "", 0);
	memcpy(w + n, half1, 8 * n1);
	for (n += n1; n < 2 * n0; n++)
		fxt_write_string(w + n, 40, "", 0);
	for (i = 0; i < n; i++)
		le[i] = w[i];
	words_to_le(le, n, bytes + DIFF_CONFIG_BYTES);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	n = DIFF_CONFIG_BYTES + 8 * n;
	if (!f || fwrite(bytes, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "output_test: cannot write %s\n", path);
		return 1;
	}
	return 0;
}

/*
 * A flow begun by a task buffer that retires, ended by another process;
 * async slices ended, misnamed or not, by the successor of the same
 * thread, attached before (0x11) or after (0x01) the retirement; events
 * lost without a buffer reported before a retirement (0x0e: after half 1,
 * the successor another process).
 */
static int write_scenarios(const char *dir)
{
	const __u64 t = START + SECOND;
	__u64 a[32], b[32];
	size_t na, nb;

	na = event(a, FXT_EVENT_DURATION_BEGIN, t, PID, TID, "s", 0);
	na += event(a + na, FXT_EVENT_FLOW_BEGIN, t + 1, PID, TID, "f", 5);
	nb = event(b, FXT_EVENT_DURATION_BEGIN, t + 2, PID + 100, TID + 100,
		   "s", 0);
	nb += event(b + nb, FXT_EVENT_FLOW_END, t + 3, PID + 100, TID + 100,
		    "f", 5);
	/*
	 * The successor another user's (byte 1: a header with owner_uid,
	 * bit 2), its end of the retired buffer's flow 5 then joining it only
	 * with shared flows (bit 3).
	 */
	if (write_scenario(dir, "scenario-flow", 0x0d, a, na, b, nb) ||
	    write_scenario(dir, "scenario-flow-other-user", 0x060d, a, na, b,
			   nb) ||
	    write_scenario(dir, "scenario-flow-shared", 0x0e0d, a, na, b, nb))
		return 1;
	na = event(a, FXT_EVENT_ASYNC_BEGIN, t, PID, TID, "a", 1);
	nb = event(b, FXT_EVENT_ASYNC_END, t + 1, PID, TID, "b", 1);
	nb += event(b + nb, FXT_EVENT_ASYNC_END, t + 2, PID, TID, "a", 1);
	if (write_scenario(dir, "scenario-async", 0x11, a, na, b, nb) ||
	    write_scenario(dir, "scenario-async-forgotten", 0x01, a, na, b, nb))
		return 1;
	na = lost_counter(a, t, PID, TID, FXT_ARG_UINT64, 7);
	nb = lost_counter(b, t + 1, PID, TID, FXT_ARG_UINT64, 9);
	return write_scenario(dir, "scenario-lost", 0x0e, a, na, b, nb);
}

static const struct tap_test tests[] = {
	{ "producer records about others, interpreted kinds, out of window: refused", test_forgery },
	{ "task buffers named from the kernel's header, without control bytes", test_comm_name },
	{ "a comm that is not UTF-8 costs no record", test_comm_not_utf8 },
	{ "strings past the budget are refused, not kept empty", test_string_budget },
	{ "task buffers share a bound on their strings' memory", test_task_strings_shared },
	{ "past 1,024 task buffers at once none keeps strings by itself", test_task_strings_owners },
	{ "an async squatter exhausts only its own share", test_async_squatter },
	{ "an async end named with its begin's FNV-1a is refused", test_async_name_collision },
	{ "flows outside a slice or of an open id are refused", test_flows },
	{ "the kernel's slices of a task's thread count for its flows", test_flows_kernel_slices },
	{ "a thread that switches out dead has no slice left", test_flows_dead_thread },
	{ "an end under the slices: the reader may close a begin saved before", test_flows_hidden_begin },
	{ "flows after a dropped complete event and a cut begin: judged as the reader does", test_flows_after_misnesting },
	{ "the strict check lets a thread's cut pass, never an async id's", test_tolerated_cut_thread_only },
	{ "a retired buffer's slices stay open for the tid's next buffer", test_flows_retired_stack },
	{ "the next buffer's end closes a retired buffer's begin", test_flows_retired_stack_closed },
	{ "a tid from process P to another and back to P: P's old stack is not forgotten", test_flows_tid_back },
	{ "a former process's slice saved after its tid was taken joins its horizon", test_flows_tid_taken_late },
	{ "kept stacks are bounded per user and in the session; past them, unsure", test_flows_kept_bound },
	{ "a kept stack does not grow: past its room, unsure", test_flows_kept_room },
	{ "a kept stack's thread switching out dead: forgotten, its charge given back", test_flows_kept_dead },
	{ "a tid another process uses again has a stack of its own", test_flows_tid_reused },
	{ "another process's slice of the tid leaves the stack as it is", test_flows_tid_interleaved },
	{ "two buffers of a thread: a flow in the other's duration, file order", test_flows_two_buffers },
	{ "a process holds a share of open flows, kept after it", test_flow_share },
	{ "kernel names that are not UTF-8 are repaired, not dropped", test_kernel_utf8 },
	{ "producer drop counts bounded, apart from the kernel's", test_producer_drops },
	{ "the drop counter is one clean counter event", test_drops_record },
	{ "events lost without a buffer: the newest count per process", test_lost_events },
	{ "size-0 and overlong records never reach the file", test_unframed },
	{ "retired buffers are freed", test_retired_memory },
	{ "the session window holds its bounds, grows only, ends at UINT64_MAX", test_window_bounds },
	{ "a task's announcement rewritten is judged as its records", test_announcement_rewritten },
	{ "comm names at the bounds of their length and controls", test_comm_bounds },
	{ "a task's kernel objects: its own process and thread only", test_kobj_attribution },
	{ "a buffer with the probes' provider id writes nothing", test_probe_provider },
	{ "an async begin of an open id takes no more share, an end frees it", test_async_share_count },
	{ "a process whose flows ended keeps its share", test_flows_ended_share },
	{ "the session's bound of open flows", test_flow_session_bound },
	{ "the session's bound of open async slices", test_async_session_bound },
	{ "a retiring process forgets its own asyncs: no walk, no allocation", test_async_forget_own },
	{ "an async's end frees its place in its opener's share, whoever ends it", test_async_end_any_buffer },
	{ "an async begin whose list cannot grow is refused, no entry left", test_async_list_enomem },
	{ "a process's list of open asyncs gives back its room", test_async_list_shrinks },
	{ "each process's async ids get ids of their own in the output", test_async_ids_per_process },
	{ "flows are keyed by owner uid and id, with ids of their own in the output", test_flows_by_owner },
	{ "a user holds open only ids of its own", test_flows_owner_squatter },
	{ "a server's end saved before its client's begin takes the begin's id", test_flows_end_saved_first },
	{ "an id used twice, ends saved first: each begin takes the end after it", test_flows_end_saved_first_reused },
	{ "a step and an end on two servers, saved first, join one flow with the begin", test_flows_step_end_saved_first },
	{ "a step saved first: the begin takes its id and opens the flow for the end", test_flows_step_saved_first },
	{ "a begin takes an end saved first though a begin of its id is open", test_flows_end_saved_first_id_open },
	{ "an end older than the open begin of its id, saved after it, ends another flow", test_flows_end_older_than_open_begin },
	{ "another user's end saved first never joins a begin, unless flows are shared", test_flows_end_saved_first_other_user },
	{ "steps and ends waiting for a begin: bounded per user and session, a user's oldest forgotten first", test_flows_early_bound },
	{ "one id keeps 4 runs waiting for a begin; a begin before a forgotten one takes none", test_flows_early_per_id },
	{ "shared flows: another user's step and end join a begin, keyed by id", test_flows_shared },
	{ "shared flows: one user still holds at most a quarter, charged to the begin's", test_flows_shared_user_bound },
	{ "shared flows: another user's end gives the begin's process its place back", test_flows_shared_process_share },
	{ "one user holds at most a quarter of the session's open flows", test_flows_user_bound },
	{ "the users the session traces have no share of the open flows", test_flows_traced_users_have_no_share },
	{ "the users not traced, root among them, leave the traced a quarter of the open flows", test_flows_others_leave_traced_users_a_quarter },
	{ "a traced user's kept stacks have no share", test_kept_stacks_of_traced_user_have_no_share },
	{ "a traced user's process has no share of the open async ids", test_async_traced_user_has_no_share },
	{ "a new process of a pid starts with a share of open flows of its own", test_flow_share_of_a_pid_used_again },
	{ "a thread of a process attached again keeps its process's share; a new process of the pid has its own", test_flow_share_of_a_process_attached_again },
	{ "a process's start time from its /proc/PID/stat, whatever its comm holds", test_proc_stat_start },
	{ "a former process of a pid, its begins stamped ahead, leaves the next one's ends theirs", test_flow_share_of_a_pid_used_again_ahead },
	{ "a header without owner_uid: flows keyed by id alone among such buffers, said once", test_flows_owner_unknown },
	{ "a begin of an open async id nests: its outer end keeps the id", test_async_ids_nested },
	{ "an async instant or end names the innermost open begin; nesting is bounded", test_async_nested_names },
	{ "an async begin refused past the nesting bound takes its instants and end with it", test_async_nested_past_bound },
	{ "a nested async begin refused for any reason but its pid takes its instants and end with it", test_async_nested_refused },
	{ "a nested async begin refused as invalid but read takes its instants and end with it", test_async_nested_invalid },
	{ "an async end in another category than its begin is refused", test_async_end_category },
	{ "an end of an async forgotten at retirement gets an id of its own", test_async_forgotten_new_id },
	{ "events lost without a buffer: counter 0 of fxtrace only, the last of equals", test_lost_events_which },
	{ "events lost without a buffer: 32,768 processes listed, later reports counted", test_lost_events_bounded },
	{ "kernel-object names are repaired in the kernel's forms only", test_repair_limits },
	{ "a large record past 4095 words is framed by its whole size", test_large_framed },
	{ "an unframed durable part is refused once; a committed offset moved back", test_durable_moves },
	{ "kernel drop counts unbounded; the drop counter when records were refused", test_drops_when },
	{ "a retired buffer's snapshot copy writes as its mapping did when taken, whatever its producer writes after", test_retired_copy },
	{ "a retired buffer's snapshot copy is charged up to its last committed byte", test_retired_charge },
	{ "retired buffers' snapshot copies: the newest within the budget, the evicted counted", test_retired_budget },
	{ "a snapshot pauses the writers after the retired buffers' copies, for the live buffers alone", test_snapshot_pause_after_copies },
	{ "a snapshot skips a live buffer it cannot map, names and counts it; a failed pause leaves the copies", test_snapshot_skips_unmapped },
	{ "a retired buffer's rest in the trace is its snapshot copy's, one reading of its mapping", test_retired_rest_once },
	{ "a retired buffer not mapped or not copied is counted lost: kept, evicted, lost add up", test_retired_lost },
	{ "a retired buffer without memory for its copy evicts none: the older copies survive", test_retired_no_memory_evicts_none },
	{ "reserved header bits refused by the fast pass as by the full path", test_reserved_bits },
	{ "records longer than the fast pass's layout", test_long_records },
	{ "fast records after repairs stay within the chunk", test_repairs_then_fast },
	{ "halves saved out of order are not drained again", test_halves_out_of_order },
	{ "fast pass = full decoder: the decoder's vectors, the Perfetto corpus", test_fast_corpora },
	{ "fast pass = full decoder: generated and mutated halves", test_fast_generated },
	{ "fast pass = full decoder: random words", test_fast_garbage },
	{ "fast pass = full decoder: retirements, header fields, windows", test_fast_configs },
	{ "a session clock at its end: the probes' last event still fits int64 ns", test_clock_end },
	{ "a half rewritten while it is judged: judged as written", test_fast_copy_race },
};

static int bench(size_t count)
{
	__u64 w[16];
	struct drain_buffer *db;
	struct fake f;
	size_t i;
	__u32 n;

	start();
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 32 * count + 4096, 0,
		 NULL);
	n = fxt_write_thread(w, 1, PID, TID);
	n += fxt_write_string(w + n, 1, "app", 3);
	n += fxt_write_string(w + n, 2, "tick", 4);
	n += fxt_write_string(w + n, 3, "i", 1);
	put_words(&f, w, n);
	for (i = 0; i < count; i++) {
		w[0] = fxt_event_hdr(4, FXT_EVENT_INSTANT, 1, 1, 1, 2);
		w[1] = START + SECOND + i;
		w[2] = fxt_arg_hdr(FXT_ARG_INT64, 2, 3, 0);
		w[3] = i;
		put_words(&f, w, 4);
	}
	db = drain_rest(&f);
	printf("%llu records written, %llu refused\n",
	       (unsigned long long)db->records, (unsigned long long)db->invalid);
	fake_free(&f);
	return db->records == count + 4 ? 0 : 1;
}

int main(int argc, char **argv)
{
	int ret;

	/*
	 * Memory malloc() returns or free() takes is filled, so that nothing
	 * reads bytes a chunk was not given: the same input goes through
	 * twice, and a chunk that reused the last one's memory would
	 * otherwise find the right bytes there.
	 */
	mallopt(M_PERTURB, 0xa5);
	if (argc == 3 && !strcmp(argv[1], "--bench"))
		return bench((size_t)atol(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "--diff"))
		return diff_files(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "--write-inputs"))
		return write_inputs(argv[2]) || write_scenarios(argv[2]);
	ret = tap_run(tests, N_WORDS(tests));

	output_free(&out);
	free(file.bytes);
	diff_free();
	return ret;
}
