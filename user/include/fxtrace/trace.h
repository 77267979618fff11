/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fxtrace/trace.h - libfxtrace, the C instrumentation API.
 *
 *	void work(int n)
 *	{
 *		TRACE_DURATION("app", "work", FXT_ARG("n", n));
 *		...
 *	}			// the duration ends when the scope does
 *
 * Every macro names a category and an event name, both string literals,
 * and takes up to 15 arguments FXT_ARG(name, value), the FXT argument type
 * chosen from the C type of value.  Documentation/api.rst has the rest.
 *
 * Cost: each call site owns a static struct fxtrace_site.  A disabled category
 * costs one load of the site's enable pointer and one of the byte it points
 * to, then a predictable branch; arguments are not evaluated.  The first
 * event of a call site resolves it (a mutex, once per site); everything
 * after that writes into the calling thread's own buffer with no system
 * call, lock, allocation or atomic read-modify-write.
 *
 * With NTRACE defined before this header is included, every macro expands
 * to nothing and its arguments are not evaluated.
 */
#ifndef FXTRACE_TRACE_H
#define FXTRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the runtime's part of a call site (not for direct use) ------------ */

struct fxtrace_site {
	const char *category;
	const char *name;
	/* Points at fxt_unresolved until the first event resolves the site. */
	const volatile unsigned char *enabled;
	uint16_t category_index;	/* process-wide string indexes */
	uint16_t name_index;
	uint16_t arg_index[15];		/* names of the arguments, in order */
};

#define FXT_SITE_INIT(cat, nm) { (cat), (nm), &fxt_unresolved, 0, 0, { 0 } }

enum fxt_arg_kind {
	FXT_KIND_NULL, FXT_KIND_INT32, FXT_KIND_UINT32, FXT_KIND_INT64,
	FXT_KIND_UINT64, FXT_KIND_DOUBLE, FXT_KIND_STRING, FXT_KIND_POINTER,
	FXT_KIND_KOID, FXT_KIND_BOOL,
};

struct fxtrace_arg {
	const char *name;
	unsigned int kind;		/* enum fxt_arg_kind */
	uint32_t len;			/* FXT_KIND_STRING: bytes */
	union {
		int64_t i64;
		uint64_t u64;
		double f64;
		const char *str;
	} value;
};

extern const unsigned char fxt_unresolved;

void fxt_emit(struct fxtrace_site *site, unsigned int event_type,
	      uint64_t trailing, uint64_t end_time, unsigned int nargs,
	      const struct fxtrace_arg *args);
uint64_t fxt_now(void);

static inline bool fxt_site_enabled(const struct fxtrace_site *site)
{
	return __builtin_expect(*site->enabled, 0);
}

/* ---- typed arguments --------------------------------------------------- */

static inline struct fxtrace_arg fxt_arg_i32(const char *n, int32_t v)
{ return (struct fxtrace_arg){ n, FXT_KIND_INT32, 0, { .i64 = v } }; }
static inline struct fxtrace_arg fxt_arg_u32(const char *n, uint32_t v)
{ return (struct fxtrace_arg){ n, FXT_KIND_UINT32, 0, { .u64 = v } }; }
static inline struct fxtrace_arg fxt_arg_i64(const char *n, int64_t v)
{ return (struct fxtrace_arg){ n, FXT_KIND_INT64, 0, { .i64 = v } }; }
static inline struct fxtrace_arg fxt_arg_u64(const char *n, uint64_t v)
{ return (struct fxtrace_arg){ n, FXT_KIND_UINT64, 0, { .u64 = v } }; }
static inline struct fxtrace_arg fxt_arg_f64(const char *n, double v)
{ return (struct fxtrace_arg){ n, FXT_KIND_DOUBLE, 0, { .f64 = v } }; }
static inline struct fxtrace_arg fxt_arg_bool(const char *n, bool v)
{ return (struct fxtrace_arg){ n, FXT_KIND_BOOL, 0, { .u64 = v } }; }
static inline struct fxtrace_arg fxt_arg_ptr(const char *n, const void *v)
{ return (struct fxtrace_arg){ n, FXT_KIND_POINTER, 0, { .u64 = (uintptr_t)v } }; }
static inline struct fxtrace_arg fxt_arg_koid(const char *n, uint64_t v)
{ return (struct fxtrace_arg){ n, FXT_KIND_KOID, 0, { .u64 = v } }; }
static inline struct fxtrace_arg fxt_arg_null(const char *n)
{ return (struct fxtrace_arg){ n, FXT_KIND_NULL, 0, { .u64 = 0 } }; }
static inline struct fxtrace_arg fxt_arg_strn(const char *n, const char *s,
					  size_t len)
{
	/* FXT strings are at most 32000 bytes (fxt-format.md §3). */
	return (struct fxtrace_arg){ n, FXT_KIND_STRING,
				 (uint32_t)(len > 32000 ? 32000 : len),
				 { .str = s } };
}
static inline struct fxtrace_arg fxt_arg_str(const char *n, const char *s)
{
	return fxt_arg_strn(n, s ? s : "", s ? __builtin_strlen(s) : 0);
}

/* An argument whose FXT type follows from the C type of v. */
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
	default: fxt_arg_ptr)((name), (v))

/* Types the C type cannot tell. */
#define FXT_KOID(name, v)	fxt_arg_koid((name), (v))
#define FXT_POINTER(name, v)	fxt_arg_ptr((name), (v))
#define FXT_STRN(name, s, len)	fxt_arg_strn((name), (s), (len))
#define FXT_NULL(name)		fxt_arg_null(name)

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

/* The argument list with a leading placeholder, so that it may be empty. */
#define FXT_ARGS_(...) ((const struct fxtrace_arg[]){ { 0 }, ##__VA_ARGS__ })
#define FXT_NARGS_(...)							\
	(sizeof((const struct fxtrace_arg[]){ { 0 }, ##__VA_ARGS__ }) /	\
	 sizeof(struct fxtrace_arg) - 1)

#ifndef NTRACE

#define FXT_EVENT_(cat, name, type, trailing, end, ...) do {		\
	static struct fxtrace_site fxt_site_ = FXT_SITE_INIT(cat, name);	\
	_Static_assert(FXT_NARGS_(__VA_ARGS__) <= 15,			\
		       "at most 15 arguments");				\
	if (fxt_site_enabled(&fxt_site_))				\
		fxt_emit(&fxt_site_, (type), (trailing), (end),		\
			 FXT_NARGS_(__VA_ARGS__),			\
			 FXT_ARGS_(__VA_ARGS__) + 1);			\
} while (0)

/* True when events of category cat are recorded now. */
#define TRACE_ENABLED(cat) ({						\
	static struct fxtrace_site fxt_site_ = FXT_SITE_INIT(cat, "");	\
	fxt_site_enabled(&fxt_site_) && fxt_category_enabled(cat);	\
})

#define TRACE_INSTANT(cat, name, scope, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_INSTANT, 0, 0,			\
		   fxt_arg_str("scope", scope), ##__VA_ARGS__)
#define TRACE_COUNTER(cat, name, id, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_COUNTER, (id), 0, ##__VA_ARGS__)
#define TRACE_DURATION_BEGIN(cat, name, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_BEGIN, 0, 0, ##__VA_ARGS__)
#define TRACE_DURATION_END(cat, name, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_END, 0, 0, ##__VA_ARGS__)
/* A duration that started at start (a value of fxt_now()) and ends now. */
#define TRACE_COMPLETE(cat, name, start, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_COMPLETE, 0, (start), ##__VA_ARGS__)
#define TRACE_ASYNC_BEGIN(cat, name, id, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_ASYNC_BEGIN, (id), 0, ##__VA_ARGS__)
#define TRACE_ASYNC_INSTANT(cat, name, id, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_ASYNC_INSTANT, (id), 0, ##__VA_ARGS__)
#define TRACE_ASYNC_END(cat, name, id, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_ASYNC_END, (id), 0, ##__VA_ARGS__)
#define TRACE_FLOW_BEGIN(cat, name, id, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_FLOW_BEGIN, (id), 0, ##__VA_ARGS__)
#define TRACE_FLOW_STEP(cat, name, id, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_FLOW_STEP, (id), 0, ##__VA_ARGS__)
#define TRACE_FLOW_END(cat, name, id, ...)				\
	FXT_EVENT_(cat, name, FXT_TYPE_FLOW_END, (id), 0, ##__VA_ARGS__)

/* A duration from here to the end of the enclosing scope. */
struct fxt_scope {
	struct fxtrace_site *site;		/* NULL: nothing to end */
};

static inline void fxt_scope_end(struct fxt_scope *scope)
{
	if (scope->site)
		fxt_emit(scope->site, FXT_TYPE_END, 0, 0, 0, NULL);
}

static inline struct fxt_scope fxt_scope_begin(struct fxtrace_site *site,
					       unsigned int nargs,
					       const struct fxtrace_arg *args)
{
	if (!fxt_site_enabled(site))
		return (struct fxt_scope){ NULL };
	fxt_emit(site, FXT_TYPE_BEGIN, 0, 0, nargs, args);
	return (struct fxt_scope){ site };
}

#define TRACE_DURATION(cat, name, ...)					\
	static struct fxtrace_site FXT_UNIQ(fxt_dsite_) =			\
		FXT_SITE_INIT(cat, name);				\
	__attribute__((cleanup(fxt_scope_end), unused))			\
	struct fxt_scope FXT_UNIQ(fxt_scope_) =				\
		fxt_site_enabled(&FXT_UNIQ(fxt_dsite_)) ?		\
		fxt_scope_begin(&FXT_UNIQ(fxt_dsite_),			\
				FXT_NARGS_(__VA_ARGS__),		\
				FXT_ARGS_(__VA_ARGS__) + 1) :		\
		(struct fxt_scope){ NULL }

#else /* NTRACE */

#define TRACE_ENABLED(cat)			0
#define TRACE_INSTANT(cat, name, scope, ...)	do { } while (0)
#define TRACE_COUNTER(cat, name, id, ...)	do { } while (0)
#define TRACE_DURATION_BEGIN(cat, name, ...)	do { } while (0)
#define TRACE_DURATION_END(cat, name, ...)	do { } while (0)
#define TRACE_COMPLETE(cat, name, start, ...)	do { } while (0)
#define TRACE_ASYNC_BEGIN(cat, name, id, ...)	do { } while (0)
#define TRACE_ASYNC_INSTANT(cat, name, id, ...)	do { } while (0)
#define TRACE_ASYNC_END(cat, name, id, ...)	do { } while (0)
#define TRACE_FLOW_BEGIN(cat, name, id, ...)	do { } while (0)
#define TRACE_FLOW_STEP(cat, name, id, ...)	do { } while (0)
#define TRACE_FLOW_END(cat, name, id, ...)	do { } while (0)
#define TRACE_DURATION(cat, name, ...)		do { } while (0)

#endif /* NTRACE */

/* ---- functions ----------------------------------------------------------- */

/* True when category (a name, not a glob) is enabled in this session. */
bool fxt_category_enabled(const char *category);

/* The name this thread shows in traces (default: its comm). */
void fxt_set_thread_name(const char *name);

/*
 * Without the module: write every thread's buffer to $FXTRACE_OUTPUT now
 * (it is also written at exit).  Returns 0 or -errno.
 */
int fxtrace_flush(void);

/* Events this thread could not record (buffer full, or nested in a signal). */
uint64_t fxt_thread_dropped(void);

#ifdef __cplusplus
}
#endif

#endif /* FXTRACE_TRACE_H */
