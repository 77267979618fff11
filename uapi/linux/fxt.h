/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fxt.h - the Fuchsia Trace Format (FXT) as fxtrace writes it.
 *
 * This is the one FXT encoder of fxtrace: the kernel module, libfxtrace,
 * the drainer and the tools all build records with these functions, and the
 * decoder takes its constants from here.  It depends only on the fixed-width
 * types of <linux/types.h>, so it compiles in the kernel and in user space.
 *
 * Layout (Documentation/fxt.rst has the details):
 * a trace is a sequence of little-endian 64-bit words.  Every record starts
 * with a header word: bits [0..3] the record type, [4..15] the record size in
 * words including the header, [16..63] type specific.  Strings are referred
 * to by 16-bit string refs (an index into the provider's string table, or
 * 0x8000 | length for an inline string whose bytes follow, zero padded to a
 * word), threads by 8-bit thread refs (an index, or 0 for an inline
 * process/thread koid pair).
 *
 * The _hdr() functions return header words; the _words() functions return
 * sizes in 64-bit words.  Parameter ranges are in the comments; callers check
 * them (the functions mask every field to its width so that an out-of-range
 * value can never spill into a neighbouring field).
 */
#ifndef _UAPI_LINUX_FXT_H
#define _UAPI_LINUX_FXT_H

#include <linux/types.h>

/* Record types: header bits [0..3]. */
#define FXT_REC_METADATA	0
#define FXT_REC_INIT		1
#define FXT_REC_STRING		2
#define FXT_REC_THREAD		3
#define FXT_REC_EVENT		4
#define FXT_REC_BLOB		5
#define FXT_REC_USEROBJ		6
#define FXT_REC_KOBJ		7
#define FXT_REC_SCHED		8
#define FXT_REC_LOG		9
#define FXT_REC_LARGE		15

/* Metadata types: bits [16..19] of a metadata record. */
#define FXT_META_PROVIDER_INFO		1
#define FXT_META_PROVIDER_SECTION	2
#define FXT_META_PROVIDER_EVENT		3
#define FXT_META_TRACE_INFO		4

/* Provider event ids: bits [52..55] of a provider event record. */
#define FXT_PROVIDER_EVENT_BUFFER_FULL	0

/* Trace info types: bits [20..23] of a trace info record. */
#define FXT_TRACE_INFO_MAGIC		0

/* The magic number record: the first word of every trace. */
#define FXT_MAGIC			0x16547846ULL
#define FXT_MAGIC_WORD			0x0016547846040010ULL

/* Event types: bits [16..19] of an event record. */
#define FXT_EVENT_INSTANT		0
#define FXT_EVENT_COUNTER		1
#define FXT_EVENT_DURATION_BEGIN	2
#define FXT_EVENT_DURATION_END		3
#define FXT_EVENT_DURATION_COMPLETE	4
#define FXT_EVENT_ASYNC_BEGIN		5
#define FXT_EVENT_ASYNC_INSTANT		6
#define FXT_EVENT_ASYNC_END		7
#define FXT_EVENT_FLOW_BEGIN		8
#define FXT_EVENT_FLOW_STEP		9
#define FXT_EVENT_FLOW_END		10
#define FXT_EVENT_TYPE_COUNT		11	/* non-ABI: first invalid type */

/* Argument types: bits [0..3] of an argument header. */
#define FXT_ARG_NULL			0
#define FXT_ARG_INT32			1
#define FXT_ARG_UINT32			2
#define FXT_ARG_INT64			3
#define FXT_ARG_UINT64			4
#define FXT_ARG_DOUBLE			5
#define FXT_ARG_STRING			6
#define FXT_ARG_POINTER			7
#define FXT_ARG_KOID			8
#define FXT_ARG_BOOL			9
#define FXT_ARG_BLOB			10
#define FXT_ARG_TYPE_COUNT		11	/* non-ABI: first invalid type */

/* Kernel object types (ZX_OBJ_TYPE_*): bits [16..23] of a kernel object. */
#define FXT_KOBJ_PROCESS		1
#define FXT_KOBJ_THREAD			2

/* Scheduling record subtypes: bits [60..63]. */
#define FXT_SCHED_LEGACY_CONTEXT_SWITCH	0
#define FXT_SCHED_CONTEXT_SWITCH	1
#define FXT_SCHED_WAKEUP		2

/* Thread states (ZX_THREAD_STATE_*) of a context switch's outgoing thread. */
#define FXT_THREAD_STATE_NEW		0
#define FXT_THREAD_STATE_RUNNING	1
#define FXT_THREAD_STATE_SUSPENDED	2
#define FXT_THREAD_STATE_BLOCKED	3
#define FXT_THREAD_STATE_DYING		4
#define FXT_THREAD_STATE_DEAD		5

/* Scheduler weight that marks the idle thread (Perfetto's convention). */
#define FXT_SCHED_WEIGHT_IDLE		(-2147483647 - 1)

/* String refs (16 bits) and thread refs (8 bits). */
#define FXT_STRING_REF_EMPTY		0x0000
#define FXT_STRING_REF_INLINE		0x8000	/* | length in bytes */
#define FXT_STRING_INDEX_MAX		0x7fff
#define FXT_STRING_LEN_MAX		32000	/* the spec's practical limit */
#define FXT_THREAD_REF_INLINE		0
#define FXT_THREAD_INDEX_MAX		255

/* Sizes. */
#define FXT_RECORD_WORDS_MAX		4095
#define FXT_ARG_WORDS_MAX		4095
#define FXT_ARGS_MAX			15
#define FXT_PROVIDER_NAME_MAX		255
#define FXT_PROVIDER_ID_MAX		0xffffffffULL

/* Extract bits [lo..hi] (inclusive, hi >= lo) of a word. */
static inline __u64 fxt_bits(__u64 word, unsigned int lo, unsigned int hi)
{
	__u64 mask = hi - lo == 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1;

	return (word >> lo) & mask;
}

/* Put value into bits [lo..hi], masked to the field's width. */
static inline __u64 fxt_field(__u64 value, unsigned int lo, unsigned int hi)
{
	__u64 mask = hi - lo == 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1;

	return (value & mask) << lo;
}

/* ---- sizes ------------------------------------------------------------ */

/* Words taken by a stream of len bytes, zero padded to a word. */
static inline __u32 fxt_stream_words(__u32 len)
{
	return (len + 7) / 8;
}

/* String ref of an inline string of len bytes (len in [0, 0x7fff]). */
static inline __u16 fxt_inline_string_ref(__u32 len)
{
	return (__u16)(FXT_STRING_REF_INLINE | (len & 0x7fff));
}

static inline int fxt_string_ref_is_inline(__u16 ref)
{
	return (ref & FXT_STRING_REF_INLINE) != 0;
}

/* Words that a string ref adds after the header: its stream when inline. */
static inline __u32 fxt_string_ref_words(__u16 ref)
{
	return fxt_string_ref_is_inline(ref) ? fxt_stream_words(ref & 0x7fff) : 0;
}

/* Words that a thread ref adds: the process and thread koids when inline. */
static inline __u32 fxt_thread_ref_words(__u8 ref)
{
	return ref == FXT_THREAD_REF_INLINE ? 2 : 0;
}

/* Words after the arguments of an event record, by event type. */
static inline __u32 fxt_event_trailing_words(unsigned int event_type)
{
	switch (event_type) {
	case FXT_EVENT_INSTANT:
	case FXT_EVENT_DURATION_BEGIN:
	case FXT_EVENT_DURATION_END:
		return 0;
	default:	/* counter id, end time, async or flow id */
		return 1;
	}
}

/*
 * Size of an event record: header, timestamp, inline thread, inline
 * category and name, arg_words of arguments, trailing words.
 */
static inline __u32 fxt_event_words(unsigned int event_type, __u8 thread_ref,
				    __u16 category_ref, __u16 name_ref,
				    __u32 arg_words)
{
	return 2 + fxt_thread_ref_words(thread_ref) +
	       fxt_string_ref_words(category_ref) +
	       fxt_string_ref_words(name_ref) + arg_words +
	       fxt_event_trailing_words(event_type);
}

/*
 * Size of an argument: header, inline name, value words.  value_words is 1
 * for the 64-bit types, the value string's stream for an inline string
 * value, the payload stream for a blob, 0 otherwise.
 */
static inline __u32 fxt_arg_words(__u16 name_ref, __u32 value_words)
{
	return 1 + fxt_string_ref_words(name_ref) + value_words;
}

/* ---- header words ----------------------------------------------------- */

/* Common record header: type in [0, 15], words in [1, 4095]. */
static inline __u64 fxt_record_hdr(unsigned int type, __u32 words)
{
	return fxt_field(type, 0, 3) | fxt_field(words, 4, 15);
}

/* Provider info: id in [0, 2^32), name_len in [0, 255]; name stream follows. */
static inline __u64 fxt_provider_info_hdr(__u32 provider_id, __u32 name_len)
{
	return fxt_record_hdr(FXT_REC_METADATA, 1 + fxt_stream_words(name_len)) |
	       fxt_field(FXT_META_PROVIDER_INFO, 16, 19) |
	       fxt_field(provider_id, 20, 51) | fxt_field(name_len, 52, 59);
}

/* Provider section: what follows belongs to provider_id.  One word. */
static inline __u64 fxt_provider_section_hdr(__u32 provider_id)
{
	return fxt_record_hdr(FXT_REC_METADATA, 1) |
	       fxt_field(FXT_META_PROVIDER_SECTION, 16, 19) |
	       fxt_field(provider_id, 20, 51);
}

/* Provider event: event_id in [0, 15].  One word. */
static inline __u64 fxt_provider_event_hdr(__u32 provider_id,
					   unsigned int event_id)
{
	return fxt_record_hdr(FXT_REC_METADATA, 1) |
	       fxt_field(FXT_META_PROVIDER_EVENT, 16, 19) |
	       fxt_field(provider_id, 20, 51) | fxt_field(event_id, 52, 55);
}

/* Initialization record header; the next word is ticks per second (!= 0). */
static inline __u64 fxt_init_hdr(void)
{
	return fxt_record_hdr(FXT_REC_INIT, 2);
}

/* String record: index in [1, 0x7fff], len in [0, 0x7fff]; stream follows. */
static inline __u64 fxt_string_hdr(__u16 index, __u32 len)
{
	return fxt_record_hdr(FXT_REC_STRING, 1 + fxt_stream_words(len)) |
	       fxt_field(index, 16, 30) | fxt_field(len, 32, 46);
}

/* Thread record: index in [1, 255]; process and thread koids follow. */
static inline __u64 fxt_thread_hdr(__u8 index)
{
	return fxt_record_hdr(FXT_REC_THREAD, 3) | fxt_field(index, 16, 23);
}

/* Event record: words from fxt_event_words(), nargs in [0, 15]. */
static inline __u64 fxt_event_hdr(__u32 words, unsigned int event_type,
				  unsigned int nargs, __u8 thread_ref,
				  __u16 category_ref, __u16 name_ref)
{
	return fxt_record_hdr(FXT_REC_EVENT, words) |
	       fxt_field(event_type, 16, 19) | fxt_field(nargs, 20, 23) |
	       fxt_field(thread_ref, 24, 31) | fxt_field(category_ref, 32, 47) |
	       fxt_field(name_ref, 48, 63);
}

/* Kernel object record: koid, inline name and arguments follow. */
static inline __u64 fxt_kobj_hdr(__u32 words, unsigned int obj_type,
				 __u16 name_ref, unsigned int nargs)
{
	return fxt_record_hdr(FXT_REC_KOBJ, words) |
	       fxt_field(obj_type, 16, 23) | fxt_field(name_ref, 24, 39) |
	       fxt_field(nargs, 40, 43);
}

/*
 * Context switch (scheduling subtype 1): cpu in [0, 65535], out_state one
 * of FXT_THREAD_STATE_*.  Timestamp, outgoing and incoming thread koids and
 * the arguments follow.
 */
static inline __u64 fxt_context_switch_hdr(__u32 words, unsigned int nargs,
					   __u32 cpu, unsigned int out_state)
{
	return fxt_record_hdr(FXT_REC_SCHED, words) |
	       fxt_field(nargs, 16, 19) | fxt_field(cpu, 20, 35) |
	       fxt_field(out_state, 36, 39) |
	       fxt_field(FXT_SCHED_CONTEXT_SWITCH, 60, 63);
}

/* Thread wakeup (scheduling subtype 2): timestamp, woken koid, args follow. */
static inline __u64 fxt_wakeup_hdr(__u32 words, unsigned int nargs, __u32 cpu)
{
	return fxt_record_hdr(FXT_REC_SCHED, words) |
	       fxt_field(nargs, 16, 19) | fxt_field(cpu, 20, 35) |
	       fxt_field(FXT_SCHED_WAKEUP, 60, 63);
}

/*
 * Argument header: type one of FXT_ARG_*, words from fxt_arg_words(),
 * value32 the type-specific bits [32..63] (int32, uint32 and bool values,
 * a string value's ref, a blob's size).
 */
static inline __u64 fxt_arg_hdr(unsigned int type, __u32 words, __u16 name_ref,
				__u32 value32)
{
	return fxt_field(type, 0, 3) | fxt_field(words, 4, 15) |
	       fxt_field(name_ref, 16, 31) | fxt_field(value32, 32, 63);
}

/* ---- writers ---------------------------------------------------------- */
/*
 * The writers store whole words at dst (a __u64 buffer) and return how many
 * they wrote.  The caller has checked that they fit.  Words are stored in
 * host order and stream bytes are packed into words low byte first, which
 * is FXT's byte order on the little-endian hosts fxtrace supports.
 */

/* Write len bytes of s as a zero-padded stream. */
static inline __u32 fxt_write_stream(__u64 *dst, const char *s, __u32 len)
{
	__u32 words = fxt_stream_words(len);
	__u32 w, b;

	for (w = 0; w < words; w++) {
		__u64 word = 0;

		for (b = 0; b < 8 && w * 8 + b < len; b++)
			word |= (__u64)(__u8)s[w * 8 + b] << (8 * b);
		dst[w] = word;
	}
	return words;
}

/* The magic number record. */
static inline __u32 fxt_write_magic(__u64 *dst)
{
	dst[0] = FXT_MAGIC_WORD;
	return 1;
}

/* Initialization record: ticks_per_second must not be 0. */
static inline __u32 fxt_write_init(__u64 *dst, __u64 ticks_per_second)
{
	dst[0] = fxt_init_hdr();
	dst[1] = ticks_per_second;
	return 2;
}

/* Provider info record: name_len in [0, 255]. */
static inline __u32 fxt_write_provider_info(__u64 *dst, __u32 provider_id,
					    const char *name, __u32 name_len)
{
	dst[0] = fxt_provider_info_hdr(provider_id, name_len);
	return 1 + fxt_write_stream(dst + 1, name, name_len);
}

/* String record: index in [1, 0x7fff], len in [0, 0x7fff]. */
static inline __u32 fxt_write_string(__u64 *dst, __u16 index, const char *s,
				     __u32 len)
{
	dst[0] = fxt_string_hdr(index, len);
	return 1 + fxt_write_stream(dst + 1, s, len);
}

/* Thread record: index in [1, 255]. */
static inline __u32 fxt_write_thread(__u64 *dst, __u8 index, __u64 process_koid,
				     __u64 thread_koid)
{
	dst[0] = fxt_thread_hdr(index);
	dst[1] = process_koid;
	dst[2] = thread_koid;
	return 3;
}

/* Write a string ref's inline stream, if any. */
static inline __u32 fxt_write_string_ref(__u64 *dst, __u16 ref, const char *s)
{
	if (!fxt_string_ref_is_inline(ref))
		return 0;
	return fxt_write_stream(dst, s, ref & 0x7fff);
}

/*
 * Event record with an inline thread, up to its arguments: header,
 * timestamp, the process and thread koids, the inline category and name.
 * The caller writes the nargs arguments after it, then the trailing word of
 * the type if it has one (fxt_event_trailing_words()); words from
 * fxt_event_words() with the arguments' words.
 */
static inline __u32 fxt_write_event(__u64 *dst, __u32 words,
				    unsigned int event_type, unsigned int nargs,
				    __u64 timestamp, __u64 process_koid,
				    __u64 thread_koid, __u16 category_ref,
				    const char *category, __u16 name_ref,
				    const char *name)
{
	__u32 n = 4;

	dst[0] = fxt_event_hdr(words, event_type, nargs,
			       FXT_THREAD_REF_INLINE, category_ref, name_ref);
	dst[1] = timestamp;
	dst[2] = process_koid;
	dst[3] = thread_koid;
	n += fxt_write_string_ref(dst + n, category_ref, category);
	n += fxt_write_string_ref(dst + n, name_ref, name);
	return n;
}

/* int32, uint32 and bool arguments: the value is in the header. */
static inline __u32 fxt_write_arg32(__u64 *dst, unsigned int type,
				    __u16 name_ref, const char *name,
				    __u32 value)
{
	dst[0] = fxt_arg_hdr(type, fxt_arg_words(name_ref, 0), name_ref, value);
	return 1 + fxt_write_string_ref(dst + 1, name_ref, name);
}

/* int64, uint64, double (as its bits), pointer and koid arguments. */
static inline __u32 fxt_write_arg64(__u64 *dst, unsigned int type,
				    __u16 name_ref, const char *name,
				    __u64 value)
{
	__u32 n;

	dst[0] = fxt_arg_hdr(type, fxt_arg_words(name_ref, 1), name_ref, 0);
	n = 1 + fxt_write_string_ref(dst + 1, name_ref, name);
	dst[n] = value;
	return n + 1;
}

/* String argument; value_ref may be inline (value then holds its bytes). */
static inline __u32 fxt_write_arg_string(__u64 *dst, __u16 name_ref,
					 const char *name, __u16 value_ref,
					 const char *value)
{
	__u32 n;

	dst[0] = fxt_arg_hdr(FXT_ARG_STRING,
			     fxt_arg_words(name_ref,
					   fxt_string_ref_words(value_ref)),
			     name_ref, value_ref);
	n = 1 + fxt_write_string_ref(dst + 1, name_ref, name);
	return n + fxt_write_string_ref(dst + n, value_ref, value);
}

/* Null argument: only a name. */
static inline __u32 fxt_write_arg_null(__u64 *dst, __u16 name_ref,
				       const char *name)
{
	return fxt_write_arg32(dst, FXT_ARG_NULL, name_ref, name, 0);
}

/*
 * Kernel object record naming a process (process_koid = 0) or a thread of
 * process_koid, with an inline name of name_len bytes (name_len <= 0x7fff).
 * Threads carry the "process" koid argument that Perfetto needs.
 */
static inline __u32 fxt_kobj_name_words(__u32 name_len, __u64 process_koid)
{
	return 2 + fxt_stream_words(name_len) +
	       (process_koid ? 2 + fxt_stream_words(7) : 0);
}

static inline __u32 fxt_write_kobj_name(__u64 *dst, unsigned int obj_type,
					__u64 koid, const char *name,
					__u32 name_len, __u64 process_koid)
{
	__u16 name_ref = fxt_inline_string_ref(name_len);
	__u32 n;

	dst[0] = fxt_kobj_hdr(fxt_kobj_name_words(name_len, process_koid),
			      obj_type, name_ref, process_koid ? 1 : 0);
	dst[1] = koid;
	n = 2 + fxt_write_stream(dst + 2, name, name_len);
	if (process_koid)
		n += fxt_write_arg64(dst + n, FXT_ARG_KOID,
				     fxt_inline_string_ref(7), "process",
				     process_koid);
	return n;
}

/*
 * Scheduling records, up to their arguments, which the caller writes after
 * them (fxt_write_arg32() and the like); words from the _words() function
 * with the arguments' words, nargs in [0, 15].
 *
 * Context switch: cpu in [0, 65535], out_state one of FXT_THREAD_STATE_*,
 * the outgoing and incoming threads' koids.
 */
static inline __u32 fxt_context_switch_words(__u32 arg_words)
{
	return 4 + arg_words;
}

static inline __u32 fxt_write_context_switch(__u64 *dst, __u32 words,
					     unsigned int nargs, __u32 cpu,
					     unsigned int out_state,
					     __u64 timestamp,
					     __u64 outgoing_koid,
					     __u64 incoming_koid)
{
	dst[0] = fxt_context_switch_hdr(words, nargs, cpu, out_state);
	dst[1] = timestamp;
	dst[2] = outgoing_koid;
	dst[3] = incoming_koid;
	return 4;
}

/* Thread wakeup: cpu in [0, 65535], the woken thread's koid. */
static inline __u32 fxt_wakeup_words(__u32 arg_words)
{
	return 3 + arg_words;
}

static inline __u32 fxt_write_wakeup(__u64 *dst, __u32 words,
				     unsigned int nargs, __u32 cpu,
				     __u64 timestamp, __u64 woken_koid)
{
	dst[0] = fxt_wakeup_hdr(words, nargs, cpu);
	dst[1] = timestamp;
	dst[2] = woken_koid;
	return 3;
}

#endif /* _UAPI_LINUX_FXT_H */
