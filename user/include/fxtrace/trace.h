/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fxtrace/trace.h - libfxtrace, the C and C++ instrumentation API.
 *
 *	void work(int n)
 *	{
 *		TRACE_DURATION("app", "work", FXT_ARG("n", n));
 *		...
 *	}			// the duration ends when the scope does
 *
 * Every macro names a category and an event name, both string literals,
 * and takes up to 15 arguments FXT_ARG(name, value), the FXT argument type
 * chosen from the type of value (_Generic in C, overloads in C++).
 * Documentation/api.rst has the rest.
 *
 * Cost: each call site owns a static struct fxtrace_site.  A disabled
 * category costs one load of the site's enable pointer and one of the byte
 * it points to, then a predictable branch; arguments are not evaluated.
 * The first event of a call site resolves its category's enable byte,
 * before the arguments are evaluated; its first enabled event the event's
 * header words and the string indexes of its names.  After that an event
 * is written inline into the calling thread's own buffer (no call, system
 * call, lock, allocation or atomic read-modify-write) whenever the
 * thread's buffer has room and already defines the site's strings;
 * anything else goes through fxt_emit().
 *
 * Every macro is async-signal-safe: an event from a signal handler that
 * interrupted its thread inside the library is dropped and counted.
 *
 * With NTRACE defined before this header is included, every macro expands
 * to nothing and its arguments are not evaluated.
 */
#ifndef FXTRACE_TRACE_H
#define FXTRACE_TRACE_H

/*
 * The inline code below is shared by C and C++: C casts and 0 for null
 * pointers.  A C++ program built with warnings that only C++ style
 * passes would see them from here: they are off until the end of the
 * header (the pragmas pop), and on again for the program's own code.
 */
#ifdef __cplusplus
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wzero-as-null-pointer-constant"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuseless-cast"
#endif
#endif

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#if __cplusplus >= 201703L
#include <string_view>
#endif
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the runtime's part of a call site (not for direct use) ------------ */

struct fxtrace_site {
	const char *category;
	const char *name;
	/*
	 * Points at fxt_unresolved until the first event resolves the site;
	 * TRACE_ENABLED's site stays there while its category is refused.
	 */
	const volatile unsigned char *enabled;
	/*
	 * Written once when the site is resolved, need last (release):
	 * the site's events are written inline when the thread's buffer
	 * defines strings 1..need; UINT32_MAX sends every event to fxt_emit()
	 * (and is lowered once more when a refused category gets in).
	 */
	uint32_t need;
	/*
	 * libfxtrace's own: 1 + its entry for the site's category while the
	 * module refused that category, and need is held at UINT32_MAX (an
	 * event's site) or enabled at fxt_unresolved (TRACE_ENABLED's), so
	 * that every event or check asks the library whether a retry let it
	 * in.
	 */
	uint32_t refused;
	uint64_t hdr;			/* the event's header, empty strings */
	uint64_t end_hdr;		/* the header of TRACE_DURATION's end */
	uint64_t arg_hdr[15];		/* each argument's header, no value */
};

#define FXT_SITE_INIT(cat, nm) \
	{ (cat), (nm), &fxt_unresolved, 0xffffffffu, 0, 0, 0, { 0 } }

enum fxt_arg_kind {
	FXT_KIND_NULL, FXT_KIND_INT32, FXT_KIND_UINT32, FXT_KIND_INT64,
	FXT_KIND_UINT64, FXT_KIND_DOUBLE, FXT_KIND_STRING, FXT_KIND_POINTER,
	FXT_KIND_KOID, FXT_KIND_BOOL,
};

struct fxtrace_arg {
	const char *name;
	unsigned int kind;		/* enum fxt_arg_kind */
	uint32_t len;			/* FXT_KIND_STRING: bytes */
	uint64_t bits;			/* the value (a double's bits) */
	const char *str;		/* FXT_KIND_STRING */
};

/*
 * The calling thread's write position, owned by the thread.  Before the
 * thread has a buffer next == limit == NULL, which sends its first event to
 * fxt_emit().
 */
struct fxt_thread_state {
	uint64_t *next;			/* where the next record goes */
	uint64_t *limit;		/* the end of the half being written */
	uint64_t *base;			/* the start of that half */
	uint64_t *committed;		/* its published length, bytes */
	const volatile uint64_t *generation_src;
	uint64_t generation;		/* *generation_src when last synced */
	uint64_t epoch;			/* changes when the buffer is cleared */
	uint32_t ndefined;		/* strings 1..ndefined are defined */
	volatile int busy;		/* inside the library: signals drop */
};

extern __thread struct fxt_thread_state fxt_tls
	__attribute__((tls_model("initial-exec")));
extern const unsigned char fxt_unresolved;
extern volatile unsigned char fxt_clock_tsc;

bool fxt_emit(struct fxtrace_site *site, unsigned int event_type,
	      uint64_t trailing, uint64_t end_time, unsigned int nargs,
	      const struct fxtrace_arg *args);
bool fxt_emit_end(struct fxtrace_site *site, uint64_t epoch);
bool fxt_resolve_enabled(struct fxtrace_site *site);
bool fxt_resolve_event(struct fxtrace_site *site);
uint64_t fxt_now(void);

/*
 * A single load in the fast case: the site's enable byte.  A call into
 * the library at every check while the module refuses the category (the
 * site stays at fxt_unresolved).
 */
static inline bool fxt_site_check(struct fxtrace_site *site)
{
	const volatile unsigned char *e = site->enabled;

	if (__builtin_expect(!*e, 1))
		return false;
	return e != &fxt_unresolved || fxt_resolve_enabled(site);
}

/*
 * An event's check: its first resolves the site's category before the
 * arguments are evaluated, so that a disabled event never evaluates them.
 */
static inline bool fxt_event_check_(struct fxtrace_site *site)
{
	const volatile unsigned char *e = site->enabled;

	if (__builtin_expect(!*e, 1))
		return false;
	return e != &fxt_unresolved || fxt_resolve_event(site);
}

static inline uint64_t fxt_timestamp(void)
{
	return __builtin_expect(fxt_clock_tsc, 1) ? __builtin_ia32_rdtsc() :
						    fxt_now();
}

/*
 * Words an argument's value adds after its header, but for a string's,
 * whose length each call gives (libfxtrace builds a site's headers with it).
 */
static inline __attribute__((always_inline)) uint32_t
fxt_arg_fixed_words_(const struct fxtrace_arg *a)
{
	switch (a->kind) {
	case FXT_KIND_INT64:
	case FXT_KIND_UINT64:
	case FXT_KIND_DOUBLE:
	case FXT_KIND_POINTER:
	case FXT_KIND_KOID:
		return 1;
	default:
		return 0;
	}
}

/* Words an argument's value adds after its header. */
static inline __attribute__((always_inline)) uint32_t
fxt_arg_value_words_(const struct fxtrace_arg *a)
{
	return a->kind == FXT_KIND_STRING ? (a->len + 7) / 8 :
					    fxt_arg_fixed_words_(a);
}

/* Loops over the arguments unrolled, whichever the compiler. */
#ifdef __clang__
#define FXT_UNROLL_ _Pragma("unroll")
#else
#define FXT_UNROLL_ _Pragma("GCC unroll 16")
#endif

/*
 * The header words come from the FXT encoder (uapi/linux/fxt.h) when the
 * site is resolved; the inline writer only adds what varies per event: a
 * string argument's words to the size fields, its length to its inline
 * string ref, a 32-bit value to its argument header.
 */
#define FXT_WORDS_SHIFT_	4	/* a header's size field: bits 4..15 */
#define FXT_VALUE32_SHIFT_	32	/* an argument's 32-bit value */
#define FXT_NON_ASCII_		0x8080808080808080ULL
#define FXT_STRING_MAX_		32000

/*
 * Write one event into the thread's buffer, inline.  Returns false, having
 * written nothing, for anything but the common case (first event, full
 * half, strings to define, session change, non-ASCII or long strings,
 * strings too long together for one record, a nested signal): the caller
 * then calls fxt_emit().  args never escapes, so the compiler keeps the
 * arguments in registers.
 */
static inline __attribute__((always_inline)) bool
fxt_write_fast_(struct fxtrace_site *site, unsigned int type, uint64_t trailing,
	   uint64_t end_time, unsigned int nargs, const struct fxtrace_arg *args)
{
	struct fxt_thread_state *t = &fxt_tls;
	uint32_t words = 2, extra = 0, i, n, w;
	uint64_t *p, now, ascii = 0;

	/* Instant, begin and end have no trailing word. */
	if (type != 0 && type != 2 && type != 3)
		words++;
	FXT_UNROLL_
	for (i = 0; i < nargs; i++) {
		w = fxt_arg_value_words_(&args[i]);
		words += 1 + w;
		if (args[i].kind == FXT_KIND_STRING) {
			extra += w;
			/*
			 * Past 4,000 words of strings the record may not fit
			 * its size field (4,095 words): fxt_emit() sizes it
			 * exactly, and drops it when it does not fit.
			 */
			if (args[i].len > FXT_STRING_MAX_ ||
			    extra > FXT_STRING_MAX_ / 8)
				return false;
		}
	}
	now = fxt_timestamp();
	if (t->busy)
		return false;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	p = t->next;
	if (__builtin_expect(__atomic_load_n(&site->need, __ATOMIC_ACQUIRE) >
			     t->ndefined ||
			     (uintptr_t)t->limit - (uintptr_t)p < words * 8u ||
			     *t->generation_src != t->generation, 0))
		goto slow_busy;
	p[0] = site->hdr + ((uint64_t)extra << FXT_WORDS_SHIFT_);
	p[1] = type == 4 ? end_time : now;
	n = 2;
	FXT_UNROLL_
	for (i = 0; i < nargs; i++) {
		const struct fxtrace_arg *a = &args[i];

		switch (a->kind) {
		case FXT_KIND_INT32:
		case FXT_KIND_UINT32:
		case FXT_KIND_BOOL:
			p[n++] = site->arg_hdr[i] |
				 (uint64_t)(uint32_t)a->bits << FXT_VALUE32_SHIFT_;
			break;
		case FXT_KIND_STRING:
			w = (a->len + 7) / 8;
			p[n++] = site->arg_hdr[i] +
				 ((uint64_t)w << FXT_WORDS_SHIFT_) +
				 ((uint64_t)a->len << FXT_VALUE32_SHIFT_);
			if (w) {
				p[n + w - 1] = 0;
				memcpy(p + n, a->str, a->len);
				while (w--)
					ascii |= p[n++];
			}
			break;
		case FXT_KIND_NULL:
			p[n++] = site->arg_hdr[i];
			break;
		default:
			p[n++] = site->arg_hdr[i];
			p[n++] = a->bits;
			break;
		}
	}
	if (__builtin_expect((ascii & FXT_NON_ASCII_) != 0, 0))
		goto slow_busy;		/* not published: fxt_emit rewrites it */
	if (type != 0 && type != 2 && type != 3)
		p[n++] = type == 4 ? now : trailing;
	t->next = p + n;
	__atomic_store_n(t->committed,
			 (uint64_t)((char *)(p + n) - (char *)t->base),
			 __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	return true;
slow_busy:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	return false;
}

/*
 * fxt_wN: an event with N arguments, inline or through fxt_emit(); the
 * array fxt_emit() gets is built only on that path.  Returns true when the
 * event was written.
 */
#define FXT_WP_ struct fxtrace_site *site, unsigned int type,		\
		uint64_t trailing, uint64_t end_time
#define FXT_W_(N, ...) {							\
	const struct fxtrace_arg fxt_v_[N + 1] = { FXT_ARG0_, __VA_ARGS__ }; \
	if (fxt_write_fast_(site, type, trailing, end_time, N, fxt_v_ + 1))	\
		return true;						\
	{								\
		const struct fxtrace_arg fxt_s_[N + 1] =			\
			{ FXT_ARG0_, __VA_ARGS__ };			\
		return fxt_emit(site, type, trailing, end_time, N,	\
				fxt_s_ + 1);				\
	}								\
}
#ifdef __cplusplus
#define FXT_ARG0_ fxtrace_arg()
#else
#define FXT_ARG0_ { 0 }
#endif
#define FXT_A_ struct fxtrace_arg
#define FXT_INL_ static inline __attribute__((always_inline)) bool
FXT_INL_ fxt_w0(FXT_WP_)
{
	if (fxt_write_fast_(site, type, trailing, end_time, 0, NULL))
		return true;
	return fxt_emit(site, type, trailing, end_time, 0, NULL);
}
FXT_INL_ fxt_w1(FXT_WP_, FXT_A_ a) FXT_W_(1, a)
FXT_INL_ fxt_w2(FXT_WP_, FXT_A_ a, FXT_A_ b) FXT_W_(2, a, b)
FXT_INL_ fxt_w3(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c) FXT_W_(3, a, b, c)
FXT_INL_ fxt_w4(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d)
FXT_W_(4, a, b, c, d)
FXT_INL_ fxt_w5(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e)
FXT_W_(5, a, b, c, d, e)
FXT_INL_ fxt_w6(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		FXT_A_ f)
FXT_W_(6, a, b, c, d, e, f)
FXT_INL_ fxt_w7(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		FXT_A_ f, FXT_A_ g)
FXT_W_(7, a, b, c, d, e, f, g)
FXT_INL_ fxt_w8(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		FXT_A_ f, FXT_A_ g, FXT_A_ h)
FXT_W_(8, a, b, c, d, e, f, g, h)
FXT_INL_ fxt_w9(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i)
FXT_W_(9, a, b, c, d, e, f, g, h, i)
FXT_INL_ fxt_w10(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		 FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j)
FXT_W_(10, a, b, c, d, e, f, g, h, i, j)
FXT_INL_ fxt_w11(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		 FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k)
FXT_W_(11, a, b, c, d, e, f, g, h, i, j, k)
FXT_INL_ fxt_w12(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		 FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k,
		 FXT_A_ l)
FXT_W_(12, a, b, c, d, e, f, g, h, i, j, k, l)
FXT_INL_ fxt_w13(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		 FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k,
		 FXT_A_ l, FXT_A_ m)
FXT_W_(13, a, b, c, d, e, f, g, h, i, j, k, l, m)
FXT_INL_ fxt_w14(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		 FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k,
		 FXT_A_ l, FXT_A_ m, FXT_A_ n)
FXT_W_(14, a, b, c, d, e, f, g, h, i, j, k, l, m, n)
FXT_INL_ fxt_w15(FXT_WP_, FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e,
		 FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k,
		 FXT_A_ l, FXT_A_ m, FXT_A_ n, FXT_A_ o)
FXT_W_(15, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o)


/* The end of a TRACE_DURATION whose begin was written in epoch. */
static inline void fxt_write_end_(struct fxtrace_site *site, uint64_t epoch)
{
	struct fxt_thread_state *t = &fxt_tls;
	uint64_t *p, now = fxt_timestamp();

	if (t->busy)
		goto slow;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	p = t->next;
	if (__builtin_expect(t->epoch != epoch ||
			     (uintptr_t)t->limit - (uintptr_t)p < 16u ||
			     *t->generation_src != t->generation, 0))
		goto slow_busy;
	p[0] = site->end_hdr;
	p[1] = now;
	t->next = p + 2;
	__atomic_store_n(t->committed,
			 (uint64_t)((char *)(p + 2) - (char *)t->base),
			 __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	return;
slow_busy:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
slow:
	fxt_emit_end(site, epoch);
}

/* ---- typed arguments --------------------------------------------------- */

static inline struct fxtrace_arg fxt_arg_make_(const char *n, unsigned int kind,
					       uint64_t bits)
{
	struct fxtrace_arg a = { n, kind, 0, bits, NULL };

	return a;
}

static inline struct fxtrace_arg fxt_arg_i32(const char *n, int32_t v)
{ return fxt_arg_make_(n, FXT_KIND_INT32, (uint64_t)(int64_t)v); }
static inline struct fxtrace_arg fxt_arg_u32(const char *n, uint32_t v)
{ return fxt_arg_make_(n, FXT_KIND_UINT32, v); }
static inline struct fxtrace_arg fxt_arg_i64(const char *n, int64_t v)
{ return fxt_arg_make_(n, FXT_KIND_INT64, (uint64_t)v); }
static inline struct fxtrace_arg fxt_arg_u64(const char *n, uint64_t v)
{ return fxt_arg_make_(n, FXT_KIND_UINT64, v); }
static inline struct fxtrace_arg fxt_arg_f64(const char *n, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return fxt_arg_make_(n, FXT_KIND_DOUBLE, bits);
}
static inline struct fxtrace_arg fxt_arg_bool(const char *n, bool v)
{ return fxt_arg_make_(n, FXT_KIND_BOOL, v); }
static inline struct fxtrace_arg fxt_arg_ptr(const char *n, const void *v)
{ return fxt_arg_make_(n, FXT_KIND_POINTER, (uint64_t)(uintptr_t)v); }
static inline struct fxtrace_arg fxt_arg_koid(const char *n, uint64_t v)
{ return fxt_arg_make_(n, FXT_KIND_KOID, v); }
static inline struct fxtrace_arg fxt_arg_null(const char *n)
{ return fxt_arg_make_(n, FXT_KIND_NULL, 0); }
/*
 * A string of len bytes.  Strings longer than FXT's 32000 bytes are cut by
 * the runtime at a character boundary; bytes that are not UTF-8 become
 * U+FFFD in the trace.
 */
static inline struct fxtrace_arg fxt_arg_strn(const char *n, const char *s,
					      size_t len)
{
	struct fxtrace_arg a = { n, FXT_KIND_STRING,
				 (uint32_t)(len > 0xffffffffu ? 0xffffffffu : len),
				 0, s };

	if (!s)
		a.len = 0;
	return a;
}
static inline struct fxtrace_arg fxt_arg_str(const char *n, const char *s)
{
	return fxt_arg_strn(n, s ? s : "", s ? __builtin_strlen(s) : 0);
}

#ifdef __cplusplus
}	/* extern "C" */

/* C++: the FXT type from overloads (enums: their underlying type). */
namespace fxtrace_detail {
inline fxtrace_arg arg(const char *n, bool v) { return fxt_arg_bool(n, v); }
inline fxtrace_arg arg(const char *n, char v) { return fxt_arg_i32(n, v); }
inline fxtrace_arg arg(const char *n, signed char v) { return fxt_arg_i32(n, v); }
inline fxtrace_arg arg(const char *n, short v) { return fxt_arg_i32(n, v); }
inline fxtrace_arg arg(const char *n, int v) { return fxt_arg_i32(n, v); }
inline fxtrace_arg arg(const char *n, unsigned char v) { return fxt_arg_u32(n, v); }
inline fxtrace_arg arg(const char *n, unsigned short v) { return fxt_arg_u32(n, v); }
inline fxtrace_arg arg(const char *n, unsigned int v) { return fxt_arg_u32(n, v); }
inline fxtrace_arg arg(const char *n, long v) { return fxt_arg_i64(n, v); }
inline fxtrace_arg arg(const char *n, long long v) { return fxt_arg_i64(n, v); }
inline fxtrace_arg arg(const char *n, unsigned long v) { return fxt_arg_u64(n, v); }
inline fxtrace_arg arg(const char *n, unsigned long long v) { return fxt_arg_u64(n, v); }
inline fxtrace_arg arg(const char *n, float v) { return fxt_arg_f64(n, v); }
inline fxtrace_arg arg(const char *n, double v) { return fxt_arg_f64(n, v); }
inline fxtrace_arg arg(const char *n, char *v) { return fxt_arg_str(n, v); }
inline fxtrace_arg arg(const char *n, const char *v) { return fxt_arg_str(n, v); }
/* The string must outlive the event: a temporary does (full expression). */
inline fxtrace_arg arg(const char *n, const std::string &v)
{ return fxt_arg_strn(n, v.data(), v.size()); }
#if __cplusplus >= 201703L
inline fxtrace_arg arg(const char *n, std::string_view v)
{ return fxt_arg_strn(n, v.data(), v.size()); }
#endif
inline fxtrace_arg arg(const char *n, std::nullptr_t) { return fxt_arg_ptr(n, nullptr); }
template <typename T>
inline fxtrace_arg arg(const char *n, T *v) { return fxt_arg_ptr(n, v); }
template <typename T, typename std::enable_if<std::is_enum<T>::value, int>::type = 0>
inline fxtrace_arg arg(const char *n, T v)
{
	return arg(n, static_cast<typename std::underlying_type<T>::type>(v));
}

template <typename... A>
inline __attribute__((always_inline)) bool
event(fxtrace_site *site, unsigned int type, uint64_t trailing,
      uint64_t end_time, A... a)
{
	static_assert(sizeof...(A) <= 15, "at most 15 arguments");
	const fxtrace_arg v[] = { fxtrace_arg(), a... };

	if (fxt_write_fast_(site, type, trailing, end_time, sizeof...(A), v + 1))
		return true;
	/* Built only here: on the fast path the arguments stay in registers. */
	const fxtrace_arg s[] = { fxtrace_arg(), a... };

	return fxt_emit(site, type, trailing, end_time, sizeof...(A), s + 1);
}

/* The C macros' signatures, the category and name already in the site. */
template <typename... A>
inline __attribute__((always_inline)) void
plain(fxtrace_site *site, unsigned int type, const char *, const char *,
      A... a)
{
	event(site, type, 0, 0, a...);
}

template <typename... A>
inline __attribute__((always_inline)) void
scoped(fxtrace_site *site, unsigned int type, const char *, const char *,
       const char *scope, A... a)
{
	event(site, type, 0, 0, fxt_arg_str("scope", scope), a...);
}

template <typename... A>
inline __attribute__((always_inline)) void
with_id(fxtrace_site *site, unsigned int type, const char *, const char *,
	uint64_t id, A... a)
{
	event(site, type, id, 0, a...);
}

template <typename... A>
inline __attribute__((always_inline)) void
complete(fxtrace_site *site, unsigned int type, const char *, const char *,
	 uint64_t start, A... a)
{
	event(site, type, 0, start, a...);
}

template <typename... A>
inline __attribute__((always_inline)) bool
begin(fxtrace_site *site, const char *, const char *, A... a)
{
	return event(site, 2, 0, 0, a...);
}

/*
 * TRACE_DURATION: the end is written exactly when the begin was.  The
 * macro writes the begin in the constructor's argument, after its check:
 * arguments of a disabled duration are not evaluated.
 */
class scope {
public:
	__attribute__((always_inline)) scope(fxtrace_site *site, bool written)
		: site_(written ? site : nullptr),
		  epoch_(written ? fxt_tls.epoch : 0)
	{
	}
	~scope()
	{
		if (site_)
			fxt_write_end_(site_, epoch_);
	}
	scope(const scope &) = delete;
	scope &operator=(const scope &) = delete;

private:
	fxtrace_site *site_;
	uint64_t epoch_;
};
} /* namespace fxtrace_detail */

/* "" name: a literal only (a site keeps its arguments' first names). */
#define FXT_ARG(name, v)	::fxtrace_detail::arg("" name, (v))

#else /* C */

/*
 * An argument whose FXT type follows from the C type of v.  name must be a
 * string literal ("" name): a site keeps its arguments' first names.
 */
#define FXT_ARG(name, v) _Generic((v),					\
	_Bool: fxt_arg_bool,						\
	char: fxt_arg_i32, signed char: fxt_arg_i32, short: fxt_arg_i32,	\
	int: fxt_arg_i32,						\
	unsigned char: fxt_arg_u32, unsigned short: fxt_arg_u32,	\
	unsigned int: fxt_arg_u32,					\
	long: fxt_arg_i64, long long: fxt_arg_i64,			\
	unsigned long: fxt_arg_u64, unsigned long long: fxt_arg_u64,	\
	float: fxt_arg_f64, double: fxt_arg_f64,			\
	char *: fxt_arg_str, const char *: fxt_arg_str,			\
	default: fxt_arg_ptr)("" name, (v))

#endif /* C */

/* Types the type of the value cannot tell (name: a string literal). */
#define FXT_KOID(name, v)	fxt_arg_koid("" name, (v))
#define FXT_POINTER(name, v)	fxt_arg_ptr("" name, (v))
#define FXT_STRN(name, s, len)	fxt_arg_strn("" name, (s), (len))
#define FXT_NULL(name)		fxt_arg_null("" name)

/* Instant scopes (the scope is recorded as a "scope" argument). */
#define FXT_SCOPE_THREAD	"thread"
#define FXT_SCOPE_PROCESS	"process"
#define FXT_SCOPE_GLOBAL	"global"

/* ---- the macros ---------------------------------------------------------- */

/* FXT event types (uapi/linux/fxt.h has the same numbers). */
#define FXT_TYPE_INSTANT	0
#define FXT_TYPE_COUNTER	1
#define FXT_TYPE_BEGIN		2
#define FXT_TYPE_END		3
#define FXT_TYPE_COMPLETE	4
#define FXT_TYPE_ASYNC_BEGIN	5
#define FXT_TYPE_ASYNC_INSTANT	6
#define FXT_TYPE_ASYNC_END	7
#define FXT_TYPE_FLOW_BEGIN	8
#define FXT_TYPE_FLOW_STEP	9
#define FXT_TYPE_FLOW_END	10

#define FXT_CAT_(a, b) a##b
#define FXT_CAT(a, b) FXT_CAT_(a, b)
#define FXT_UNIQ(x) FXT_CAT(x, __LINE__)

#ifndef NTRACE

#ifdef __cplusplus

/*
 * C++: every macro takes (...) so that ISO C++11 accepts calls without
 * arguments; the first two are the category and the name.
 */
/*
 * The category and the name must be constants (string literals, or
 * __func__): a site keeps its first values, so a runtime string would
 * name every later event after the first.  C refuses one in the site's
 * static initializer; C++ would accept it there, so they go through a
 * constexpr array first, which refuses it.
 */
#define FXT_HEAD2_(cat, name, ...)	cat, name
#define FXT_SITE_(names)						\
	{ names[0], names[1], &fxt_unresolved, 0xffffffffu, 0, 0, 0, { 0 } }
#define FXT_CXX_EVENT_(fn, type, ...) do {				\
	static constexpr const char *fxt_names_[] =			\
		{ FXT_HEAD2_(__VA_ARGS__, 0) };				\
	static fxtrace_site fxt_site_ = FXT_SITE_(fxt_names_);		\
	if (fxt_event_check_(&fxt_site_))				\
		::fxtrace_detail::fn(&fxt_site_, (type), __VA_ARGS__);	\
} while (0)

/* Its own names: an event's argument may hold it (-Wshadow). */
#define TRACE_ENABLED(cat) ([]() -> bool {				\
	static constexpr const char *fxt_enames_[] = { cat, "" };	\
	static fxtrace_site fxt_esite_ = FXT_SITE_(fxt_enames_);	\
	return fxt_site_check(&fxt_esite_);				\
}())

#define TRACE_INSTANT(...)						\
	FXT_CXX_EVENT_(scoped, FXT_TYPE_INSTANT, __VA_ARGS__)
#define TRACE_COUNTER(...)						\
	FXT_CXX_EVENT_(with_id, FXT_TYPE_COUNTER, __VA_ARGS__)
#define TRACE_DURATION_BEGIN(...)					\
	FXT_CXX_EVENT_(plain, FXT_TYPE_BEGIN, __VA_ARGS__)
#define TRACE_DURATION_END(...)						\
	FXT_CXX_EVENT_(plain, FXT_TYPE_END, __VA_ARGS__)
#define TRACE_COMPLETE(...)						\
	FXT_CXX_EVENT_(complete, FXT_TYPE_COMPLETE, __VA_ARGS__)
#define TRACE_ASYNC_BEGIN(...)						\
	FXT_CXX_EVENT_(with_id, FXT_TYPE_ASYNC_BEGIN, __VA_ARGS__)
#define TRACE_ASYNC_INSTANT(...)					\
	FXT_CXX_EVENT_(with_id, FXT_TYPE_ASYNC_INSTANT, __VA_ARGS__)
#define TRACE_ASYNC_END(...)						\
	FXT_CXX_EVENT_(with_id, FXT_TYPE_ASYNC_END, __VA_ARGS__)
#define TRACE_FLOW_BEGIN(...)						\
	FXT_CXX_EVENT_(with_id, FXT_TYPE_FLOW_BEGIN, __VA_ARGS__)
#define TRACE_FLOW_STEP(...)						\
	FXT_CXX_EVENT_(with_id, FXT_TYPE_FLOW_STEP, __VA_ARGS__)
#define TRACE_FLOW_END(...)						\
	FXT_CXX_EVENT_(with_id, FXT_TYPE_FLOW_END, __VA_ARGS__)

/* A duration from here to the end of the enclosing scope (RAII). */
#define TRACE_DURATION(...)						\
	static constexpr const char *FXT_UNIQ(fxt_dnames_)[] =		\
		{ FXT_HEAD2_(__VA_ARGS__, 0) };				\
	static fxtrace_site FXT_UNIQ(fxt_dsite_) =			\
		FXT_SITE_(FXT_UNIQ(fxt_dnames_));			\
	const ::fxtrace_detail::scope FXT_UNIQ(fxt_scope_)(		\
		&FXT_UNIQ(fxt_dsite_),					\
		fxt_event_check_(&FXT_UNIQ(fxt_dsite_)) &&		\
		::fxtrace_detail::begin(&FXT_UNIQ(fxt_dsite_), __VA_ARGS__))

#else /* C */

/*
 * Every macro takes only "..." (the category and the name first), as in
 * C++: ISO C before C23 wants at least one argument for a "...", and
 * ##__VA_ARGS__ is a GNU extension that clang -pedantic refuses, so the
 * header uses neither.  The macros count everything they are given and
 * call the function for that count, whose first parameters take the
 * category, the name and the third argument their kind has:
 * - fxt_pN (category, name, arguments): durations' begin and end;
 * - fxt_iN (..., a 64-bit id or start time): counters, async, flow and
 *   complete events, whose type says which it is;
 * - fxt_sN (..., the scope): instants, the scope their first argument.
 * N counts the macro's arguments, up to 18.
 */
#define FXT_NARGS_(...) FXT_NARGS2_(__VA_ARGS__, 18, 17, 16, 15, 14, 13, \
				    12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define FXT_NARGS2_(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, \
		    N, ...) N
#define FXT_HEADC_(cat, name, ...)	cat, name
#define FXT_SITE_C_(...)						\
	{ FXT_HEADC_(__VA_ARGS__, 0), &fxt_unresolved, 0xffffffffu, 0,	\
	  0, 0, { 0 } }
#define FXT_CALL_(fam, site, type, ...)					\
	FXT_CAT(fam, FXT_NARGS_(__VA_ARGS__))((site), (type), __VA_ARGS__)

#define FXT_NP_ struct fxtrace_site *site, unsigned int type,		\
		const char *cat_, const char *name_
#define FXT_ID_(...) __VA_ARGS__
/* The site keeps the category and the name: these are not used. */
#define FXT_IGNORE_NAMES_ (void)cat_; (void)name_
/* M arguments: P their parameters, A their names, in parentheses. */
#define FXT_PI_(M, M2, M3, P, A)					\
FXT_INL_ fxt_p##M2(FXT_NP_, FXT_ID_ P)					\
{									\
	FXT_IGNORE_NAMES_;						\
	return fxt_w##M(site, type, 0, 0, FXT_ID_ A);			\
}									\
FXT_INL_ fxt_i##M3(FXT_NP_, uint64_t x_, FXT_ID_ P)			\
{									\
	FXT_IGNORE_NAMES_;						\
	return fxt_w##M(site, type, type == FXT_TYPE_COMPLETE ? 0 : x_,	\
			type == FXT_TYPE_COMPLETE ? x_ : 0, FXT_ID_ A);	\
}
#define FXT_S_(M, M1, M3, P, A)						\
FXT_INL_ fxt_s##M3(FXT_NP_, const char *scope_, FXT_ID_ P)		\
{									\
	FXT_IGNORE_NAMES_;						\
	return fxt_w##M1(site, type, 0, 0, fxt_arg_str("scope", scope_),	\
			 FXT_ID_ A);					\
}
FXT_INL_ fxt_p2(FXT_NP_)
{
	FXT_IGNORE_NAMES_;
	return fxt_w0(site, type, 0, 0);
}
FXT_INL_ fxt_i3(FXT_NP_, uint64_t x_)
{
	FXT_IGNORE_NAMES_;
	return fxt_w0(site, type, type == FXT_TYPE_COMPLETE ? 0 : x_,
		      type == FXT_TYPE_COMPLETE ? x_ : 0);
}
FXT_INL_ fxt_s3(FXT_NP_, const char *scope_)
{
	FXT_IGNORE_NAMES_;
	return fxt_w1(site, type, 0, 0, fxt_arg_str("scope", scope_));
}
FXT_PI_(1, 3, 4, (FXT_A_ a), (a))
FXT_S_(1, 2, 4, (FXT_A_ a), (a))
FXT_PI_(2, 4, 5, (FXT_A_ a, FXT_A_ b), (a, b))
FXT_S_(2, 3, 5, (FXT_A_ a, FXT_A_ b), (a, b))
FXT_PI_(3, 5, 6, (FXT_A_ a, FXT_A_ b, FXT_A_ c), (a, b, c))
FXT_S_(3, 4, 6, (FXT_A_ a, FXT_A_ b, FXT_A_ c), (a, b, c))
FXT_PI_(4, 6, 7, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d), (a, b, c, d))
FXT_S_(4, 5, 7, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d), (a, b, c, d))
FXT_PI_(5, 7, 8, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e), (a, b, c, d, e))
FXT_S_(5, 6, 8, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e), (a, b, c, d, e))
FXT_PI_(6, 8, 9, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f), (a, b, c, d, e, f))
FXT_S_(6, 7, 9, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f), (a, b, c, d, e, f))
FXT_PI_(7, 9, 10, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g), (a, b, c, d, e, f, g))
FXT_S_(7, 8, 10, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g), (a, b, c, d, e, f, g))
FXT_PI_(8, 10, 11, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h), (a, b, c, d, e, f, g, h))
FXT_S_(8, 9, 11, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h), (a, b, c, d, e, f, g, h))
FXT_PI_(9, 11, 12, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i), (a, b, c, d, e, f, g, h, i))
FXT_S_(9, 10, 12, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i), (a, b, c, d, e, f, g, h, i))
FXT_PI_(10, 12, 13, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j), (a, b, c, d, e, f, g, h, i, j))
FXT_S_(10, 11, 13, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j), (a, b, c, d, e, f, g, h, i, j))
FXT_PI_(11, 13, 14, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k), (a, b, c, d, e, f, g, h, i, j, k))
FXT_S_(11, 12, 14, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k), (a, b, c, d, e, f, g, h, i, j, k))
FXT_PI_(12, 14, 15, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k, FXT_A_ l), (a, b, c, d, e, f, g, h, i, j, k, l))
FXT_S_(12, 13, 15, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k, FXT_A_ l), (a, b, c, d, e, f, g, h, i, j, k, l))
FXT_PI_(13, 15, 16, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k, FXT_A_ l, FXT_A_ m), (a, b, c, d, e, f, g, h, i, j, k, l, m))
FXT_S_(13, 14, 16, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k, FXT_A_ l, FXT_A_ m), (a, b, c, d, e, f, g, h, i, j, k, l, m))
FXT_PI_(14, 16, 17, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k, FXT_A_ l, FXT_A_ m, FXT_A_ n), (a, b, c, d, e, f, g, h, i, j, k, l, m, n))
FXT_S_(14, 15, 17, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k, FXT_A_ l, FXT_A_ m, FXT_A_ n), (a, b, c, d, e, f, g, h, i, j, k, l, m, n))
FXT_PI_(15, 17, 18, (FXT_A_ a, FXT_A_ b, FXT_A_ c, FXT_A_ d, FXT_A_ e, FXT_A_ f, FXT_A_ g, FXT_A_ h, FXT_A_ i, FXT_A_ j, FXT_A_ k, FXT_A_ l, FXT_A_ m, FXT_A_ n, FXT_A_ o), (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o))

#define FXT_EVENT_(fam, type, ...) do {					\
	static struct fxtrace_site fxt_site_ = FXT_SITE_C_(__VA_ARGS__);	\
	if (fxt_event_check_(&fxt_site_))				\
		FXT_CALL_(fam, &fxt_site_, type, __VA_ARGS__);		\
} while (0)

/*
 * True when events of category cat are recorded now: one load, as events
 * (a library call while the module refuses the category).  Its own name:
 * an event's argument may hold it (-Wshadow).
 */
#define TRACE_ENABLED(cat) __extension__ ({				\
	static struct fxtrace_site fxt_esite_ = FXT_SITE_INIT(cat, "");	\
	fxt_site_check(&fxt_esite_);					\
})

/* TRACE_INSTANT(cat, name, scope, args...): at most 14 arguments. */
#define TRACE_INSTANT(...)						\
	FXT_EVENT_(fxt_s, FXT_TYPE_INSTANT, __VA_ARGS__)
/* TRACE_COUNTER(cat, name, id, args...) */
#define TRACE_COUNTER(...)						\
	FXT_EVENT_(fxt_i, FXT_TYPE_COUNTER, __VA_ARGS__)
/* TRACE_DURATION_BEGIN(cat, name, args...) */
#define TRACE_DURATION_BEGIN(...)					\
	FXT_EVENT_(fxt_p, FXT_TYPE_BEGIN, __VA_ARGS__)
/* TRACE_DURATION_END(cat, name, args...) */
#define TRACE_DURATION_END(...)						\
	FXT_EVENT_(fxt_p, FXT_TYPE_END, __VA_ARGS__)
/*
 * TRACE_COMPLETE(cat, name, start, args...): a duration that started at
 * start (a value of fxt_now()) and ends now.
 */
#define TRACE_COMPLETE(...)						\
	FXT_EVENT_(fxt_i, FXT_TYPE_COMPLETE, __VA_ARGS__)
/* TRACE_ASYNC_BEGIN/INSTANT/END(cat, name, id, args...) */
#define TRACE_ASYNC_BEGIN(...)						\
	FXT_EVENT_(fxt_i, FXT_TYPE_ASYNC_BEGIN, __VA_ARGS__)
#define TRACE_ASYNC_INSTANT(...)					\
	FXT_EVENT_(fxt_i, FXT_TYPE_ASYNC_INSTANT, __VA_ARGS__)
#define TRACE_ASYNC_END(...)						\
	FXT_EVENT_(fxt_i, FXT_TYPE_ASYNC_END, __VA_ARGS__)
/* TRACE_FLOW_BEGIN/STEP/END(cat, name, id, args...) */
#define TRACE_FLOW_BEGIN(...)						\
	FXT_EVENT_(fxt_i, FXT_TYPE_FLOW_BEGIN, __VA_ARGS__)
#define TRACE_FLOW_STEP(...)						\
	FXT_EVENT_(fxt_i, FXT_TYPE_FLOW_STEP, __VA_ARGS__)
#define TRACE_FLOW_END(...)						\
	FXT_EVENT_(fxt_i, FXT_TYPE_FLOW_END, __VA_ARGS__)

/* A duration from here to the end of the enclosing scope. */
struct fxt_scope {
	struct fxtrace_site *site;		/* NULL: the begin was not written */
	uint64_t epoch;				/* fxt_tls.epoch at the begin */
};

static inline void fxt_scope_end(struct fxt_scope *scope)
{
	if (scope->site)
		fxt_write_end_(scope->site, scope->epoch);
}

static inline struct fxt_scope fxt_scope_of(struct fxtrace_site *site,
					   bool written)
{
	struct fxt_scope s = { written ? site : NULL, fxt_tls.epoch };

	return s;
}

/* TRACE_DURATION(cat, name, args...) */
#define TRACE_DURATION(...)						\
	static struct fxtrace_site FXT_UNIQ(fxt_dsite_) =			\
		FXT_SITE_C_(__VA_ARGS__);				\
	__attribute__((cleanup(fxt_scope_end), unused))			\
	struct fxt_scope FXT_UNIQ(fxt_scope_) =				\
		fxt_event_check_(&FXT_UNIQ(fxt_dsite_)) ?		\
		fxt_scope_of(&FXT_UNIQ(fxt_dsite_),			\
			     FXT_CALL_(fxt_p, &FXT_UNIQ(fxt_dsite_),	\
				       FXT_TYPE_BEGIN, __VA_ARGS__)) :	\
		(struct fxt_scope){ NULL, 0 }

#endif /* C */

#else /* NTRACE */

/*
 * No code, and the arguments are not evaluated; they are still compiled,
 * in a branch never taken (which the compilers drop even at -O0), so
 * that a variable or a static function only an event uses is not
 * reported unused (and an argument that does not compile still fails).
 * Not the operand of sizeof: clang reports a static that only such an
 * operand uses as "not needed" (-Wunneeded-internal-declaration), and
 * C++ before C++20 refuses a lambda expression there.
 */
static inline int fxt_ntrace_(const char *cat, ...)
{
	(void)cat;
	return 0;
}
#define FXT_NTRACE_(...) do {						\
	if (0)								\
		(void)fxt_ntrace_(__VA_ARGS__);				\
} while (0)

#ifdef __cplusplus
#define TRACE_ENABLED(...)		false
#else
#define TRACE_ENABLED(cat)		0
#endif
#define TRACE_INSTANT(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_COUNTER(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_DURATION_BEGIN(...)	FXT_NTRACE_(__VA_ARGS__)
#define TRACE_DURATION_END(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_COMPLETE(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_ASYNC_BEGIN(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_ASYNC_INSTANT(...)	FXT_NTRACE_(__VA_ARGS__)
#define TRACE_ASYNC_END(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_FLOW_BEGIN(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_FLOW_STEP(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_FLOW_END(...)		FXT_NTRACE_(__VA_ARGS__)
#define TRACE_DURATION(...)		FXT_NTRACE_(__VA_ARGS__)

#endif /* NTRACE */

/* ---- functions ----------------------------------------------------------- */

#ifdef __cplusplus
extern "C" {
#endif

/* True when category (a name, not a glob) is enabled in this session. */
bool fxt_category_enabled(const char *category);

/* The name this thread shows in traces (default: its comm). */
void fxt_set_thread_name(const char *name);

/*
 * Without the module: write every thread's buffer to this process's output
 * now (it is also written at exit).  Returns 0 or -errno (-EDEADLK from a
 * signal handler that interrupted the library; it may be called from one).
 */
int fxt_flush(void);

/* Events this thread could not record (buffer full, or nested in a signal). */
uint64_t fxt_thread_dropped(void);

/* Events of this process lost because a thread had no buffer. */
uint64_t fxt_process_lost(void);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
#pragma GCC diagnostic pop
#endif

#endif /* FXTRACE_TRACE_H */
