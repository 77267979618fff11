/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the host tests' one harness: TAP output like kselftest's,
 * and checks that say what they expected and what they observed.
 *
 * A check compares; when the comparison fails it prints
 *   "#   FILE:LINE: EXPRESSION: expected E, observed O"
 * and marks the current test failed.  It evaluates each argument once and
 * returns whether it held, so that a later check can depend on it:
 *	if (EXPECT_TRUE(a != NULL))
 *		EXPECT_EQ(7, a->value);
 *   EXPECT_EQ(expected, observed)	integers (by value, signed or not) or
 *					floating point
 *   EXPECT_CMP(observed, op, bound)	the same, with ==, !=, <, <=, > or >=
 *   EXPECT_STR(expected, observed)	C strings (NULL prints as such)
 *   EXPECT_STRN(expected, ptr, len)	len bytes at ptr are the C string
 *   EXPECT_PREFIX(prefix, observed)	C string observed starts with prefix
 *   EXPECT_SUBSTR(needle, observed)	C string observed contains needle
 *   EXPECT_MEM(expected, observed, len)	byte ranges; prints the offset of the
 *					first difference and 16 bytes from it
 *   EXPECT_TRUE(cond)			a fact that is no comparison
 * Each has an ASSERT_ twin that also ends the test function it is in
 * (return 1), as kselftest's ASSERT_ do; FAIL(fmt, ...) prints a failure no
 * comparison expresses and ends it too.
 *
 * A test is one TAP line, either
 *  - a function of a struct tap_test table run by tap_run(): it fails when
 *    it returns non-zero or a check in it failed; or
 *  - the checks since the previous result, named by tap_result(): "ok N -
 *    NAME" when all held, else "not ok N - NAME"; tap_plan() ends such a
 *    run.
 * Both return the exit status: 0 when every test passed, else 1.
 */
#ifndef FXTRACE_TESTS_TAP_H
#define FXTRACE_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failures;
static bool tap_failed;		/* a check failed since the last result */

/* ---- results ------------------------------------------------------------ */

static inline __attribute__((format(printf, 1, 2)))
void tap_result(const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	tap_failures += tap_failed;
	printf("%sok %d - ", tap_failed ? "not " : "", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	tap_failed = false;
}

static inline int tap_plan(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures ? 1 : 0;
}

struct tap_test {
	const char *name;
	int (*fn)(void);	/* 0 when it passed */
};

static inline int tap_run(const struct tap_test *tests, size_t n)
{
	size_t i;

	printf("1..%zu\n", n);
	for (i = 0; i < n; i++) {
		tap_failed = tests[i].fn() != 0 || tap_failed;
		tap_result("%s", tests[i].name);
	}
	return tap_failures ? 1 : 0;
}

/* ---- checks --------------------------------------------------------------- */

static inline __attribute__((format(printf, 3, 4)))
bool tap_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("#   %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	tap_failed = true;
	return false;
}

/* A number with its kind, so that it compares and prints as what it is. */
struct tap_num {
	enum { TAP_UNSIGNED, TAP_SIGNED, TAP_FLOAT } kind;
	unsigned long long u;
	long long s;
	long double f;
};

static inline struct tap_num tap_unsigned(unsigned long long v)
{
	return (struct tap_num){ .kind = TAP_UNSIGNED, .u = v };
}

static inline struct tap_num tap_signed(long long v)
{
	return (struct tap_num){ .kind = TAP_SIGNED, .s = v };
}

static inline struct tap_num tap_float(long double v)
{
	return (struct tap_num){ .kind = TAP_FLOAT, .f = v };
}

/* (x) + 0: chars, shorts, bit-fields and bools promote to int. */
#define TAP_NUM(x) _Generic((x) + 0,					\
	int: tap_signed, long: tap_signed, long long: tap_signed,	\
	float: tap_float, double: tap_float, long double: tap_float,	\
	default: tap_unsigned)(x)

static inline long double tap_num_float(struct tap_num v)
{
	if (v.kind == TAP_FLOAT)
		return v.f;
	if (v.kind == TAP_SIGNED)
		return v.s;
	return v.u;
}

/* -1, 0 or 1 as a is below, equal to or above b, by value. */
static inline int tap_num_cmp(struct tap_num a, struct tap_num b)
{
	if (a.kind == TAP_FLOAT || b.kind == TAP_FLOAT) {
		long double x = tap_num_float(a), y = tap_num_float(b);

		return (x > y) - (x < y);
	}
	if (a.kind == TAP_SIGNED && b.kind == TAP_SIGNED)
		return (a.s > b.s) - (a.s < b.s);
	if (a.kind == TAP_SIGNED && a.s < 0)
		return -1;
	if (b.kind == TAP_SIGNED && b.s < 0)
		return 1;
	if (a.kind == TAP_SIGNED)
		a.u = a.s;
	if (b.kind == TAP_SIGNED)
		b.u = b.s;
	return (a.u > b.u) - (a.u < b.u);
}

static inline const char *tap_num_str(struct tap_num v, char *buf, size_t size)
{
	if (v.kind == TAP_FLOAT)
		snprintf(buf, size, "%Lg", v.f);
	else if (v.kind == TAP_SIGNED)
		snprintf(buf, size, "%lld", v.s);
	else if (v.u > 9)
		snprintf(buf, size, "%llu (%#llx)", v.u, v.u);
	else
		snprintf(buf, size, "%llu", v.u);
	return buf;
}

/* Report a comparison of observed with bound (op its operator). */
static inline bool tap_cmp(bool ok, struct tap_num observed, const char *op,
			   struct tap_num bound, const char *expr,
			   const char *file, int line)
{
	char o[64], b[64];

	if (ok)
		return true;
	tap_num_str(observed, o, sizeof(o));
	tap_num_str(bound, b, sizeof(b));
	if (!strcmp(op, "=="))
		return tap_fail(file, line, "%s: expected %s, observed %s",
				expr, b, o);
	return tap_fail(file, line, "%s: expected %s %s, observed %s", expr, op,
			b, o);
}

/*
 * A string as a C literal on one line (NULL as such): the diagnostic stays
 * one "#" line, whatever the string holds.
 */
static inline void tap_quote(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	if (!s) {
		fputs("NULL", stdout);
		return;
	}
	putchar('"');
	for (i = 0; i < len; i++) {
		if (p[i] == '\n')
			fputs("\\n", stdout);
		else if (p[i] == '\t')
			fputs("\\t", stdout);
		else if (p[i] == '"' || p[i] == '\\')
			printf("\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] == 0x7f)
			printf("\\x%02x", p[i]);
		else
			putchar(p[i]);
	}
	putchar('"');
}

/* "#   FILE:LINE: EXPR: expected WHAT EXPECTED, observed OBSERVED" */
static inline bool tap_fail_str(const char *file, int line, const char *expr,
				const char *what, const char *expected,
				const char *observed, size_t observed_len)
{
	printf("#   %s:%d: %s: expected %s", file, line, expr, what);
	tap_quote(expected, expected ? strlen(expected) : 0);
	fputs(", observed ", stdout);
	tap_quote(observed, observed_len);
	putchar('\n');
	tap_failed = true;
	return false;
}

static inline bool tap_strn(const char *expected, const char *observed,
			    size_t len, const char *expr, const char *file,
			    int line)
{
	size_t i;

	if (expected && observed && strlen(expected) == len &&
	    !memcmp(expected, observed, len))
		return true;
	tap_fail_str(file, line, expr, "", expected, observed, len);
	if (expected && observed) {
		for (i = 0; i < len && expected[i] && expected[i] == observed[i]; i++)
			;
		printf("#     the first difference at byte %zu\n", i);
	}
	return false;
}

static inline bool tap_find(const char *needle, const char *observed,
			    bool prefix, const char *expr, const char *file,
			    int line)
{
	const char *at = observed ? strstr(observed, needle) : NULL;

	if (at && (!prefix || at == observed))
		return true;
	return tap_fail_str(file, line, expr,
			    prefix ? "to start with " : "to contain ", needle,
			    observed, observed ? strlen(observed) : 0);
}

static inline bool tap_true(bool ok, const char *expr, const char *file,
			    int line)
{
	return ok || tap_fail(file, line, "%s: expected true, observed false",
			      expr);
}

static inline void tap_hex(const char *what, const unsigned char *p,
			   size_t from, size_t to)
{
	printf("#     %s at %zu:", what, from);
	for (; from < to; from++)
		printf(" %02x", p[from]);
	putchar('\n');
}

static inline bool tap_mem(const void *expected, const void *observed,
			   size_t len, const char *expr, const char *file,
			   int line)
{
	const unsigned char *e = expected, *o = observed;
	size_t i, from, to;

	for (i = 0; i < len && e[i] == o[i]; i++)
		;
	if (i == len)
		return true;
	tap_fail(file, line, "%s: %zu bytes, the first difference at byte %zu",
		 expr, len, i);
	from = i & ~(size_t)7;
	to = from + 16 < len ? from + 16 : len;
	tap_hex("expected", e, from, to);
	tap_hex("observed", o, from, to);
	return false;
}

#define EXPECT_CMP(observed, op, bound) ({				\
	struct tap_num observed_ = TAP_NUM(observed);			\
	struct tap_num bound_ = TAP_NUM(bound);				\
									\
	tap_cmp(tap_num_cmp(observed_, bound_) op 0, observed_, #op,	\
		bound_, #observed, __FILE__, __LINE__);			\
})
#define EXPECT_EQ(expected, observed) EXPECT_CMP(observed, ==, expected)
#define EXPECT_STR(expected, observed) ({				\
	const char *observed_ = (observed);				\
									\
	tap_strn((expected), observed_,					\
		 observed_ ? strlen(observed_) : 0, #observed,		\
		 __FILE__, __LINE__);					\
})
#define EXPECT_STRN(expected, ptr, len)					\
	tap_strn((expected), (ptr), (len), #ptr, __FILE__, __LINE__)
#define EXPECT_PREFIX(prefix, observed)					\
	tap_find((prefix), (observed), true, #observed, __FILE__, __LINE__)
#define EXPECT_SUBSTR(needle, observed)					\
	tap_find((needle), (observed), false, #observed, __FILE__, __LINE__)
#define EXPECT_MEM(expected, observed, len)				\
	tap_mem((expected), (observed), (len), #observed, __FILE__, __LINE__)
#define EXPECT_TRUE(cond)						\
	tap_true((cond) ? true : false, #cond, __FILE__, __LINE__)

#define ASSERT_EQ(expected, observed)					\
	do { if (!EXPECT_EQ(expected, observed)) return 1; } while (0)
#define ASSERT_CMP(observed, op, bound)					\
	do { if (!EXPECT_CMP(observed, op, bound)) return 1; } while (0)
#define ASSERT_STR(expected, observed)					\
	do { if (!EXPECT_STR(expected, observed)) return 1; } while (0)
#define ASSERT_STRN(expected, ptr, len)					\
	do { if (!EXPECT_STRN(expected, ptr, len)) return 1; } while (0)
#define ASSERT_PREFIX(prefix, observed)					\
	do { if (!EXPECT_PREFIX(prefix, observed)) return 1; } while (0)
#define ASSERT_SUBSTR(needle, observed)					\
	do { if (!EXPECT_SUBSTR(needle, observed)) return 1; } while (0)
#define ASSERT_MEM(expected, observed, len)				\
	do { if (!EXPECT_MEM(expected, observed, len)) return 1; } while (0)
#define ASSERT_TRUE(cond)						\
	do { if (!EXPECT_TRUE(cond)) return 1; } while (0)
#define FAIL(...)							\
	do { tap_fail(__FILE__, __LINE__, __VA_ARGS__); return 1; } while (0)

#endif /* FXTRACE_TESTS_TAP_H */
