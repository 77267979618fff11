// SPDX-License-Identifier: GPL-2.0
/*
 * fastpass.c - the records the drainer writes unchanged, recognised from
 * their words (fastpass.h).
 *
 * Each check below is one the full path makes (the decoder's rules in
 * user/reader/fxt_decode.c of severity warning or error, and output.c's
 * refusals); a record is accepted only when it passes all of them with
 * its size exactly its content (no extension words, which are legal but
 * left to the full path).  Whatever is not recognised (definitions,
 * kernel objects, async events, blobs, logs, anything malformed) goes the
 * full path, which judges, counts and describes it as before.  Flow events
 * go there too: whether one is written depends on the slices and flows
 * written before it (output.c, flow_allowed()).
 */
#include <endian.h>
#include <string.h>

#include "fastpass.h"

/*
 * The kinds of events fast_run() takes: no async or flow events (output.c
 * tracks them).
 */
#define FAST_EVENTS	(1u << FXT_EVENT_INSTANT | 1u << FXT_EVENT_COUNTER | \
			 1u << FXT_EVENT_DURATION_BEGIN | \
			 1u << FXT_EVENT_DURATION_END | \
			 1u << FXT_EVENT_DURATION_COMPLETE)

/* Argument types whose value a counter can show (rule counter-value). */
#define NUMERIC_ARGS	(1u << FXT_ARG_INT32 | 1u << FXT_ARG_UINT32 | \
			 1u << FXT_ARG_INT64 | 1u << FXT_ARG_UINT64 | \
			 1u << FXT_ARG_DOUBLE)

/* Helpers are inlined: per-record calls would cost more than the checks. */
#define FAST	static inline __attribute__((always_inline))


/*
 * A record being read: its words and the cursor, bounded by its size; the
 * layout it makes, its data words marked as they are read.
 */
struct cursor {
	const uint64_t *w;
	uint32_t pos, limit;
	const char *inline_name;	/* the last inline string taken */
	uint32_t inline_len;
	struct fast_layout *layout;
	uint64_t mask[FAST_LAYOUT_WORDS];	/* of each word, structure */
};

/* What the arguments hold that the record's own rules ask about. */
struct args_seen {
	uint32_t types;			/* bit per argument type */
	int8_t in_weight, out_weight, weight;	/* first's type, or -1 */
};

FAST uint64_t word(const struct cursor *c, uint32_t i)
{
	uint64_t w;

	memcpy(&w, c->w + i, sizeof(w));
	return le64toh(w);
}

/* Word i holds data: only the bits of mask are structure. */
FAST void data(struct cursor *c, uint32_t i, uint64_t mask)
{
	if (i < FAST_LAYOUT_WORDS)
		c->mask[i] = mask;
}

FAST bool koid_fits(uint64_t koid)
{
	return koid <= UINT32_MAX;	/* rule koid-truncated */
}

/* Every layout judged so far is forgotten. */
static void forget_layouts(struct fast_pass *fp)
{
	unsigned int i;

	for (i = 0; i < FAST_LAYOUTS; i++)
		fp->layouts[i].header = 0;
}

void fast_begin(struct fast_pass *fp, const struct fxt_tables *tables,
		bool task, struct fxt_map *threads, uint64_t pid, uint64_t tid,
		uint64_t lo, uint64_t hi)
{
	struct thread_slices *thread = task ? fxt_map_get(threads, tid, 0) :
					      NULL;
	int64_t ns;

	fp->tables = tables;
	fp->task = task;
	fp->slices = thread ? &thread->slices : NULL;
	fp->task_threads = !task && threads->count ? threads : NULL;
	fp->pid = pid;
	fp->tid = tid;
	fp->lo = lo;
	fp->hi = hi;
	fp->ticks_per_second = fxt_tables_ticks_per_second(tables);
	/*
	 * Every timestamp accepted is at most hi: when hi converts to int64
	 * ns, all of them do (rule timestamp-overflow).  A task buffer's
	 * thread always has its stack (output_buffer()); without it, while
	 * that stack has a horizon (slices.h), or is another process's (the
	 * tid used again: output.c, fold_event()), the full path judges.
	 */
	fp->enabled = fxt_ticks_to_ns(hi, fxt_tables_ticks_per_second(tables),
				      &ns) &&
		      (!task || (thread && thread->slices.pid == pid &&
				 thread->slices.horizon == SLICE_NO_HORIZON));
	memset(fp->threads, FAST_THREAD_UNKNOWN, sizeof(fp->threads));
	memset(fp->strings, FAST_STRING_UNKNOWN, sizeof(fp->strings));
	/* Layouts judged under other tables, window or owner go. */
	forget_layouts(fp);
}

void fast_forget(struct fast_pass *fp, const struct fxt_record *rec)
{
	if (rec->type == FXT_REC_STRING)
		fp->strings[rec->id & FXT_STRING_INDEX_MAX] = FAST_STRING_UNKNOWN;
	else if (rec->type == FXT_REC_THREAD)
		fp->threads[rec->id & FXT_THREAD_INDEX_MAX] = FAST_THREAD_UNKNOWN;
	else
		return;
	forget_layouts(fp);
}

/* The names the decoder looks for among a context switch's or wakeup's args. */
static enum fast_string name_kind(const char *s, uint32_t len)
{
	if (!s)
		return FAST_STRING_OTHER;	/* bytes not kept: no name */
	if (len == 15 && !memcmp(s, "incoming_weight", 15))
		return FAST_STRING_INCOMING_WEIGHT;
	if (len == 15 && !memcmp(s, "outgoing_weight", 15))
		return FAST_STRING_OUTGOING_WEIGHT;
	if (len == 6 && !memcmp(s, "weight", 6))
		return FAST_STRING_WEIGHT;
	return FAST_STRING_OTHER;
}

static enum fast_string look_up_string(struct fast_pass *fp, uint16_t index)
{
	struct fxt_string s;

	fp->strings[index] = fxt_tables_string(fp->tables, index, &s) ?
			     FAST_STRING_UNDEFINED : name_kind(s.ptr, s.len);
	return fp->strings[index];
}

FAST enum fast_string string_kind(struct fast_pass *fp, uint16_t index)
{
	enum fast_string kind = fp->strings[index];

	return kind == FAST_STRING_UNKNOWN ? look_up_string(fp, index) : kind;
}

static bool look_up_thread(struct fast_pass *fp, uint8_t index)
{
	struct fxt_thread th;

	fp->threads[index] =
		!fxt_tables_thread(fp->tables, index, &th) &&
		(!fp->task || (th.pid == fp->pid && th.tid == fp->tid)) ?
		FAST_THREAD_YES : FAST_THREAD_NO;
	return fp->threads[index] == FAST_THREAD_YES;
}

FAST bool thread_usable(struct fast_pass *fp, uint8_t index)
{
	uint8_t known = fp->threads[index];

	return known == FAST_THREAD_UNKNOWN ? look_up_thread(fp, index) :
					      known == FAST_THREAD_YES;
}

/* Inline string bytes: zero padding (rule padding), UTF-8 (rule utf8). */
FAST bool inline_string(struct cursor *c, uint32_t len)
{
	uint32_t words = (len + 7) / 8, i;
	const unsigned char *s;
	uint64_t ascii = 0;

	if (words > c->limit - c->pos)
		return false;
	if (len % 8 && word(c, c->pos + words - 1) >> (8 * (len % 8)))
		return false;
	s = (const unsigned char *)(c->w + c->pos);
	for (i = 0; i < words; i++)
		ascii |= word(c, c->pos + i);
	/* The padding is 0, so a set top bit is in the string's bytes. */
	if (ascii & 0x8080808080808080ULL && !fxt_utf8_valid(s, len))
		return false;
	c->inline_name = (const char *)s;
	c->inline_len = len;
	c->pos += words;
	return true;
}

/*
 * A string ref the decoder resolves without a warning; *kind says which
 * name it is when names is set (only scheduling records need it).
 */
FAST bool string_ref(struct fast_pass *fp, struct cursor *c, uint16_t ref,
		     enum fast_string *kind, bool names)
{
	if (ref & FXT_STRING_REF_INLINE) {
		if (!inline_string(c, ref & FXT_STRING_INDEX_MAX))
			return false;
		*kind = names ? name_kind(c->inline_name, c->inline_len) :
				FAST_STRING_OTHER;
		return true;
	}
	if (ref == FXT_STRING_REF_EMPTY) {
		*kind = FAST_STRING_OTHER;
		return true;
	}
	*kind = (enum fast_string)string_kind(fp, ref);
	return *kind != FAST_STRING_UNDEFINED;
}

/* The first argument of a name the record's rules look for: its type. */
FAST void note_arg(struct args_seen *seen, enum fast_string name,
		     unsigned int type)
{
	int8_t *first = NULL;

	if (name == FAST_STRING_INCOMING_WEIGHT)
		first = &seen->in_weight;
	else if (name == FAST_STRING_OUTGOING_WEIGHT)
		first = &seen->out_weight;
	else if (name == FAST_STRING_WEIGHT)
		first = &seen->weight;
	if (first && *first < 0)
		*first = (int8_t)type;
}

/* nargs arguments, each exactly its size, of types with no warning. */
FAST bool args(struct fast_pass *fp, struct cursor *c, unsigned int nargs,
	       struct args_seen *seen, bool names)
{
	uint32_t record_limit = c->limit, size;
	enum fast_string name, value;
	unsigned int i, type;
	uint64_t h;

	seen->types = 0;
	seen->in_weight = seen->out_weight = seen->weight = -1;
	for (i = 0; i < nargs; i++) {
		if (c->pos >= record_limit)
			return false;
		h = word(c, c->pos);
		type = h & 15;
		size = fxt_bits(h, 4, 15);
		if (!size || size > record_limit - c->pos)
			return false;
		c->limit = c->pos + size;
		c->pos++;
		if (!string_ref(fp, c, fxt_bits(h, 16, 31), &name, names))
			return false;
		switch (type) {
		case FXT_ARG_INT32:
		case FXT_ARG_UINT32:
			data(c, c->limit - size, 0xffffffffULL);
			break;
		case FXT_ARG_NULL:
			if (h >> 32)
				return false;
			break;
		case FXT_ARG_BOOL:
			if (h >> 33)
				return false;
			break;
		case FXT_ARG_INT64:
		case FXT_ARG_UINT64:
		case FXT_ARG_DOUBLE:
		case FXT_ARG_POINTER:
		case FXT_ARG_KOID:
			if (h >> 32 || c->pos >= c->limit)
				return false;
			data(c, c->pos++, 0);
			break;
		case FXT_ARG_STRING:
			if (h >> 48 || !string_ref(fp, c, fxt_bits(h, 32, 47),
						   &value, false))
				return false;
			break;
		default:	/* blobs and undefined types: the full path */
			return false;
		}
		if (c->pos != c->limit)
			return false;
		c->limit = record_limit;
		seen->types |= 1u << type;
		if (names)
			note_arg(seen, name, type);
	}
	return true;
}

FAST bool in_window(const struct fast_pass *fp, uint64_t ts)
{
	return ts >= fp->lo && ts <= fp->hi;
}

FAST bool event(struct fast_pass *fp, struct cursor *c, uint64_t h,
		  uint64_t *event_ts)
{
	unsigned int type = fxt_bits(h, 16, 19);
	uint8_t thread = fxt_bits(h, 24, 31);
	struct args_seen seen;
	enum fast_string kind;
	uint64_t ts, end, id;

	if (!(FAST_EVENTS >> type & 1) || c->limit < 2)
		return false;
	data(c, c->pos, 0);
	ts = word(c, c->pos++);
	if (!in_window(fp, ts))
		return false;
	if (thread == FXT_THREAD_REF_INLINE) {
		uint64_t pid, tid;

		if (c->limit - c->pos < 2)
			return false;
		pid = word(c, c->pos++);
		tid = word(c, c->pos++);
		if (!koid_fits(pid) || !koid_fits(tid) ||
		    (fp->task && (pid != fp->pid || tid != fp->tid)))
			return false;
	} else if (!thread_usable(fp, thread)) {
		return false;
	}
	if (!string_ref(fp, c, fxt_bits(h, 32, 47), &kind, false) ||
	    !string_ref(fp, c, fxt_bits(h, 48, 63), &kind, false) ||
	    !args(fp, c, fxt_bits(h, 20, 23), &seen, false))
		return false;
	switch (type) {
	case FXT_EVENT_DURATION_COMPLETE:
		if (c->pos >= c->limit)
			return false;
		c->layout->end_ts = c->pos < FAST_LAYOUT_WORDS ? c->pos : 0;
		data(c, c->pos, 0);
		end = word(c, c->pos++);
		/* rule duration-negative, and the window */
		if (end < ts || end > fp->hi)
			return false;
		break;
	case FXT_EVENT_COUNTER:
		if (c->pos >= c->limit)
			return false;
		id = word(c, c->pos++);
		/* Counter 0 of a task may be its lost-events report (output.c). */
		if ((fp->task && !id) || !fxt_bits(h, 20, 23) ||
		    seen.types & ~NUMERIC_ARGS)
			return false;
		break;
	default:
		break;
	}
	c->layout->event_ts_mask = ~0ULL;
	*event_ts = ts;
	return true;
}

/* Context switches and wakeups, from the kernel's buffers only. */
FAST bool sched(struct fast_pass *fp, struct cursor *c, uint64_t h)
{
	unsigned int type = fxt_bits(h, 60, 63);
	struct args_seen seen;
	uint32_t koids;

	if (fp->task || fxt_bits(h, 20, 35) >= FXT_SCHED_CPUS_MAX)
		return false;
	if (type == FXT_SCHED_CONTEXT_SWITCH) {
		if (fxt_bits(h, 36, 39) > FXT_THREAD_STATE_DEAD ||
		    fxt_bits(h, 40, 59))
			return false;
		koids = 2;
	} else if (type == FXT_SCHED_WAKEUP) {
		if (fxt_bits(h, 36, 59))
			return false;
		koids = 1;
	} else {
		return false;
	}
	if (c->limit < 2 + koids || !in_window(fp, word(c, 1)) ||
	    !koid_fits(word(c, 2)) || (koids == 2 && !koid_fits(word(c, 3))))
		return false;
	data(c, 1, 0);
	data(c, 2, 0);
	data(c, 3, koids == 2 ? 0 : ~0ULL);
	c->layout->koids = (uint8_t)koids;
	c->pos = 2 + koids;
	if (!args(fp, c, fxt_bits(h, 16, 19), &seen, true))
		return false;
	/* rule sched-weight: the weights there, and int32 */
	if (type == FXT_SCHED_CONTEXT_SWITCH)
		return seen.in_weight == FXT_ARG_INT32 &&
		       seen.out_weight == FXT_ARG_INT32;
	return seen.weight < 0 || seen.weight == FXT_ARG_INT32;
}

/*
 * The record at w (limit words) has layout l: its structure is the same,
 * bit for bit, and its data passes the checks that depend on data.
 */
FAST bool fits_layout(const struct fast_pass *fp, const struct fast_layout *l,
		      const struct cursor *c)
{
	uint64_t diff = 0, ts = word(c, 1), end;
	uint32_t i;

	for (i = 0; i < l->words; i++)
		diff |= (word(c, l->index[i]) ^ l->value[i]) & l->mask[i];
	if (diff || !in_window(fp, ts))
		return false;
	if (!l->checks)
		return true;
	if (l->end_ts) {
		end = word(c, l->end_ts);
		if (end < ts || end > fp->hi)
			return false;
	}
	/* Scheduling koids: the outgoing (or woken) thread's, the incoming. */
	return !l->koids || koid_fits(word(c, 2) |
				      (l->koids > 1 ? word(c, 3) : 0));
}

/* Judge the record word by word; *l becomes its layout. */
static bool judge(struct fast_pass *fp, struct cursor *c, uint64_t h,
		  struct fast_layout *l, uint64_t *event_ts)
{
	uint32_t i;
	bool ok;

	c->layout = l;
	l->event_ts_mask = 0;
	l->end_ts = 0;
	l->koids = 0;
	for (i = 0; i < FAST_LAYOUT_WORDS; i++)
		c->mask[i] = ~0ULL;
	switch (h & 15) {
	case FXT_REC_EVENT:
		ok = event(fp, c, h, event_ts);
		break;
	case FXT_REC_SCHED:
		ok = sched(fp, c, h);
		break;
	default:
		return false;
	}
	if (!ok || c->pos != c->limit)
		return false;
	/* The words after the header with structure in them, and where. */
	l->checks = l->end_ts || l->koids;
	l->words = 0;
	for (i = 1; i < c->limit && i < FAST_LAYOUT_WORDS; i++) {
		if (!c->mask[i])
			continue;
		l->index[l->words] = (uint8_t)i;
		l->value[l->words] = word(c, i);
		l->mask[l->words++] = c->mask[i];
	}
	/* No words past the content (rule record-extension: the full path). */
	return true;
}

/*
 * The record at c (its size known to fit): judged from its layout when one
 * is known, else word by word.  Returns whether it is accepted.
 */
FAST bool accepted(struct fast_pass *fp, struct cursor *c, uint64_t h,
		   uint64_t *event_ts)
{
	struct fast_layout *l, scratch;
	bool ok;

	l = &fp->layouts[(h * 0x9e3779b97f4a7c15ULL) >> (64 - FAST_LAYOUT_BITS)];
	if (l->header == h && fits_layout(fp, l, c)) {
		*event_ts = word(c, 1) & l->event_ts_mask;
		return true;
	}
	*event_ts = 0;
	if (c->limit >= FAST_LAYOUT_WORDS)
		return judge(fp, c, h, &scratch, event_ts);
	ok = judge(fp, c, h, l, event_ts);
	/* A header of size 0 is never looked up: the slot is free. */
	l->header = ok ? h : 0;
	return ok;
}

/* fxt_ticks_to_ns(), with no call at the default 1 GHz: a tick is a ns. */
FAST bool fast_ticks_to_ns(const struct fast_pass *fp, uint64_t ticks,
			   int64_t *ns)
{
	if (fp->ticks_per_second != FXT_TICKS_PER_SECOND_DEFAULT)
		return fxt_ticks_to_ns(ticks, fp->ticks_per_second, ns);
	*ns = (int64_t)ticks;
	return ticks <= INT64_MAX;
}

/*
 * A slice event at ts (ticks; end: a complete event's end) in the
 * reader's view, which is in ns (fxt_slice_stack.h).  own: s is the task
 * buffer's own stack, which has no horizon (fast_begin()).
 */
FAST void fast_slice_event(const struct fast_pass *fp, struct slice_state *s,
			   bool own, unsigned int type, uint64_t pid,
			   uint64_t ts, uint64_t end)
{
	int64_t ns, end_ns = 0;

	if (!fast_ticks_to_ns(fp, ts, &ns) ||
	    (type == FXT_EVENT_DURATION_COMPLETE &&
	     !fast_ticks_to_ns(fp, end, &end_ns)))
		return;
	if (own)
		slice_event_passed(s, type, pid, ns, end_ns);
	else
		slice_event(s, type, pid, ns, end_ns);
}

/*
 * A slice event c accepted from a CPU or kernel buffer (the kernel's
 * syscalls): its thread's stack moves in the reader's view too, when that
 * thread has task buffers.
 */
static void other_slice(struct fast_pass *fp, const struct cursor *c,
			uint64_t h, uint64_t ts)
{
	unsigned int type = fxt_bits(h, 16, 19);
	uint8_t index = fxt_bits(h, 24, 31);
	struct thread_slices *thread;
	struct fxt_thread th;
	uint64_t pid, tid;

	if (!(SLICE_EVENTS >> type & 1))
		return;
	if (index == FXT_THREAD_REF_INLINE) {
		pid = word(c, 2);
		tid = word(c, 3);
	} else if (!fxt_tables_thread(fp->tables, index, &th)) {
		pid = th.pid;
		tid = th.tid;
	} else {
		return;		/* not accepted: its thread is defined */
	}
	thread = fxt_map_get(fp->task_threads, tid, 0);
	if (thread)
		fast_slice_event(fp, &thread->slices, false, type, pid, ts,
				 word(c, c->limit - 1));
}

/*
 * A context switch c accepted from a CPU buffer: a thread of task buffers
 * that leaves dead loses its slices in the reader's view too.  False for
 * a thread with a kept stack (no task buffer left): the full path takes
 * the record and forgets the stack, charge and all (output.c).
 */
static bool other_sched(struct fast_pass *fp, const struct cursor *c,
			uint64_t h)
{
	struct thread_slices *thread;

	if (fxt_bits(h, 60, 63) != FXT_SCHED_CONTEXT_SWITCH ||
	    fxt_bits(h, 36, 39) != FXT_THREAD_STATE_DEAD)
		return true;
	thread = fxt_map_get(fp->task_threads, word(c, 2), 0);
	if (thread && !thread->buffers)
		return false;
	if (thread)
		slice_thread_dead(&thread->slices);
	return true;
}

/*
 * A record's words from src to dst, the header as it was read (raw, the
 * word h was decoded from): what is judged after is the copy.  Records are
 * a few words; a word loop costs less than a call to memcpy() per record.
 */
FAST void copy_record(unsigned char *dst, const unsigned char *src,
		      uint64_t raw, uint32_t words)
{
	uint64_t w;
	uint32_t i;

	memcpy(dst, &raw, sizeof(raw));
	for (i = 1; i < words; i++) {
		memcpy(&w, src + 8 * i, sizeof(w));
		memcpy(dst + 8 * i, &w, sizeof(w));
	}
}

/* fast_run() and fast_copy_run(): with src, each record is copied first. */
FAST size_t run(struct fast_pass *fp, unsigned char *dst,
		const unsigned char *src, const unsigned char *p, size_t len,
		size_t room, uint64_t *records, uint64_t *last_ts)
{
	uint64_t raw, h, ts, newest = *last_ts, n = 0;
	size_t off = 0, size;
	struct cursor c;

	if (!fp->enabled)
		return 0;
	if (room < len)
		len = room;
	while (len - off >= 8) {
		memcpy(&raw, (src ? src : p) + off, sizeof(raw));
		h = le64toh(raw);
		c.limit = fxt_bits(h, 4, 15);
		c.pos = 1;
		size = 8 * (size_t)c.limit;
		if (!size || size > len - off)
			break;
		if (src)
			copy_record(dst + off, src + off, raw, c.limit);
		c.w = (const uint64_t *)(p + off);
		if (!accepted(fp, &c, h, &ts))
			break;
		/*
		 * A task buffer's records accepted are events; a complete
		 * event's end is its last word.
		 */
		if (fp->slices)
			fast_slice_event(fp, fp->slices, true,
					 fxt_bits(h, 16, 19), fp->pid, ts,
					 word(&c, c.limit - 1));
		else if (fp->task_threads && (h & 15) == FXT_REC_EVENT)
			other_slice(fp, &c, h, ts);
		else if (fp->task_threads && (h & 15) == FXT_REC_SCHED &&
			 !other_sched(fp, &c, h))
			break;
		if (ts > newest)
			newest = ts;
		off += size;
		n++;
	}
	*records += n;
	*last_ts = newest;
	return off;
}

size_t fast_run(struct fast_pass *fp, const unsigned char *p, size_t len,
		size_t room, uint64_t *records, uint64_t *last_ts)
{
	return run(fp, NULL, NULL, p, len, room, records, last_ts);
}

size_t fast_copy_run(struct fast_pass *fp, unsigned char *dst,
		     const unsigned char *src, size_t len, uint64_t *records,
		     uint64_t *last_ts)
{
	return run(fp, dst, src, dst, len, len, records, last_ts);
}
