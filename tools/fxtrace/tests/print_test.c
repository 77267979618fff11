// SPDX-License-Identifier: GPL-2.0
/*
 * print_test - the printf-free writers of common.c (struct fxtrace_out)
 * against printf, and the one argument printer in both of its styles
 * against the exact text dump and export printed with printf before
 * (Documentation/performance.rst, "The trace tools").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxtrace.h"
#include "vectors.h"

/* What o holds as a C string (o in memory mode), then emptied. */
static const char *text(struct fxtrace_out *o)
{
	static char buf[512];
	size_t n = o->len < sizeof(buf) - 1 ? o->len : sizeof(buf) - 1;

	memcpy(buf, o->buf ? o->buf : "", n);
	buf[n] = '\0';
	o->len = 0;
	return buf;
}

static const uint64_t edges[] = {
	0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 4095, 65535, 999999999,
	1000000000, 1000000001, 4294967295ULL, 4294967296ULL,
	9223372036854775807ULL, 9223372036854775808ULL,
	18446744073709551615ULL, 12345678901234567890ULL,
};

static int test_numbers(void)
{
	struct fxtrace_out o;
	char want[64];
	size_t i;
	unsigned int w;

	fxtrace_out_init(&o, NULL);
	for (i = 0; i < N_WORDS(edges); i++) {
		uint64_t v = edges[i];
		int64_t s = (int64_t)v;

		fxtrace_out_u64(&o, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		ASSERT_STR(want, text(&o));
		fxtrace_out_i64(&o, s);
		snprintf(want, sizeof(want), "%" PRId64, s);
		ASSERT_STR(want, text(&o));
		fxtrace_out_i64(&o, -(int64_t)(v >> 1));
		snprintf(want, sizeof(want), "%" PRId64, -(int64_t)(v >> 1));
		ASSERT_STR(want, text(&o));
		fxtrace_out_hex(&o, v);
		snprintf(want, sizeof(want), "%" PRIx64, v);
		ASSERT_STR(want, text(&o));
		for (w = 0; w <= 16; w += 2) {
			fxtrace_out_hex0(&o, v, w);
			snprintf(want, sizeof(want), "%0*" PRIx64, (int)w, v);
			ASSERT_STR(want, text(&o));
		}
		/* Converted timestamps are never negative; the sign is printf's. */
		fxtrace_out_seconds(&o, s);
		snprintf(want, sizeof(want), "%" PRId64 ".%09" PRId64,
			 s / 1000000000, s % 1000000000);
		ASSERT_STR(want, text(&o));
		fxtrace_out_seconds(&o, -(int64_t)(v >> 1));
		snprintf(want, sizeof(want), "%" PRId64 ".%09" PRId64,
			 -(int64_t)(v >> 1) / 1000000000,
			 -(int64_t)(v >> 1) % 1000000000);
		ASSERT_STR(want, text(&o));
	}
	fxtrace_out_free(&o);
	return 0;
}

static struct fxt_arg arg(uint32_t type, const char *name)
{
	struct fxt_arg a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.name.ptr = name;
	a.name.len = strlen(name);
	return a;
}

/* Each argument type, printed by dump (text) and by export (JSON). */
static int test_arguments(void)
{
	static const struct {
		uint32_t type;
		int64_t i;
		double f;
		const char *str;	/* NULL: "undefined string 7" */
		const char *dump, *export;
	} cases[] = {
		{ FXT_ARG_NULL, 0, 0, "", "a=null", "\"a\":null" },
		{ FXT_ARG_INT32, -2, 0, "", "a=-2", "\"a\":-2" },
		{ FXT_ARG_INT64, INT64_MIN, 0, "", "a=-9223372036854775808",
		  "\"a\":-9223372036854775808" },
		{ FXT_ARG_UINT32, 4294967295LL, 0, "", "a=4294967295",
		  "\"a\":4294967295" },
		{ FXT_ARG_UINT64, -1, 0, "", "a=18446744073709551615",
		  "\"a\":18446744073709551615" },
		{ FXT_ARG_KOID, 1234, 0, "", "a=1234", "\"a\":1234" },
		{ FXT_ARG_DOUBLE, 0, 0.1, "", "a=0.10000000000000001",
		  "\"a\":0.10000000000000001" },
		{ FXT_ARG_DOUBLE, 0, -1e300, "", "a=-1.0000000000000001e+300",
		  "\"a\":-1.0000000000000001e+300" },
		{ FXT_ARG_DOUBLE, 0, NAN, "", "a=nan", "\"a\":\"NaN\"" },
		{ FXT_ARG_DOUBLE, 0, INFINITY, "", "a=inf", "\"a\":\"Infinity\"" },
		{ FXT_ARG_DOUBLE, 0, -INFINITY, "", "a=-inf",
		  "\"a\":\"-Infinity\"" },
		{ FXT_ARG_STRING, 0, 0, "say \"hi\"\\\n\xc3\xa9\xff",
		  "a=\"say \\\"hi\\\"\\\\\\x0a\xc3\xa9\\xff\"",
		  "\"a\":\"say \\\"hi\\\"\\\\\\n\xc3\xa9\\ufffd\"" },
		{ FXT_ARG_STRING, 0, 0, NULL, "a=<undefined string 7>",
		  "\"a\":\"<undefined string 7>\"" },
		{ FXT_ARG_POINTER, 0xdeadbeef, 0, "", "a=0xdeadbeef",
		  "\"a\":\"0xdeadbeef\"" },
		{ FXT_ARG_POINTER, 0, 0, "", "a=0x0", "\"a\":\"0x0\"" },
		{ FXT_ARG_BOOL, 1, 0, "", "a=true", "\"a\":true" },
		{ FXT_ARG_BOOL, 0, 0, "", "a=false", "\"a\":false" },
		{ FXT_ARG_BLOB, 0, 0, "", "a=<blob 5 bytes>", "\"a\":\"<blob>\"" },
		{ 12, 0, 0, "", "a=<type 12>", "\"a\":\"<unknown>\"" },
	};
	struct fxtrace_out o;
	size_t i;

	fxtrace_out_init(&o, NULL);
	for (i = 0; i < N_WORDS(cases); i++) {
		struct fxt_arg a = arg(cases[i].type, "a");

		a.value.i64 = cases[i].i;
		if (cases[i].type == FXT_ARG_DOUBLE)
			a.value.f64 = cases[i].f;
		if (cases[i].type == FXT_ARG_BOOL)
			a.value.b = cases[i].i;
		if (cases[i].type == FXT_ARG_BLOB)
			a.value.blob.len = 5;
		if (cases[i].type == FXT_ARG_STRING) {
			a.value.str.ptr = cases[i].str;
			a.value.str.len = cases[i].str ? strlen(cases[i].str) : 0;
			a.value.str.ref = 7;
			a.value.str.undefined = !cases[i].str;
		}
		fxtrace_out_arg(&o, &a);
		ASSERT_STR(cases[i].dump, text(&o));
		fxtrace_out_json_fxt_string(&o, &a.name);
		fxtrace_out_char(&o, ':');
		fxtrace_out_arg_value(&o, &a, FXTRACE_ARG_JSON);
		ASSERT_STR(cases[i].export, text(&o));
	}
	fxtrace_out_free(&o);
	return 0;
}

/* fxtrace_format_quoted() cuts at whole escapes and NUL-terminates. */
static int test_format_quoted(void)
{
	/* By size: '"', 'a', '\"', 'b', '\x01', '"' go in while they fit whole. */
	static const char *const want[] = {
		NULL, "", "\"", "\"a", "\"a", "\"a\\\"", "\"a\\\"b",
		"\"a\\\"b", "\"a\\\"b", "\"a\\\"b", "\"a\\\"b\\x01",
		"\"a\\\"b\\x01\"",
	};
	struct fxt_string s = { .ptr = "a\"b\x01", .len = 4 };
	struct fxt_string unkept = { .ref = 42 };
	char buf[32];
	size_t size;

	for (size = 1; size < N_WORDS(want); size++) {
		memset(buf, 'X', sizeof(buf));
		fxtrace_format_quoted(buf, size, &s);
		ASSERT_STR(want[size], buf);
	}
	fxtrace_format_quoted(buf, sizeof(buf), &unkept);
	ASSERT_STR("<unkept string 42>", buf);
	fxtrace_format_quoted(buf, 8, &unkept);
	ASSERT_STR("<unkept", buf);
	return 0;
}

/* A FILE-backed buffer flushes in order, across its flush size. */
static int test_flush(void)
{
	struct fxtrace_out o;
	char *mem = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&mem, &size);

	ASSERT_TRUE(f);
	fxtrace_out_init(&o, f);
	for (i = 0; i < 3 * FXTRACE_OUT_FLUSH / 7 + 5; i++)
		fxtrace_out_u64(&o, 1000000 + i % 10);
	fxtrace_out_free(&o);
	fclose(f);
	ASSERT_EQ(7 * (3 * FXTRACE_OUT_FLUSH / 7 + 5), size);
	for (i = 0; i < size / 7; i++)
		if (memcmp(mem + 7 * i, "100000", 6) ||
		    mem[7 * i + 6] != (char)('0' + i % 10))
			FAIL("piece %zu is %.7s", i, mem + 7 * i);
	free(mem);
	return 0;
}

/*
 * Columns: ASCII one a byte, é one, 処 two, a combining acute none, and a
 * byte that starts no UTF-8 character one (the escapes never print one).
 */
static int test_text_width(void)
{
	static const struct {
		const char *text;
		size_t width;
	} cases[] = {
		{ "", 0 }, { "abc", 3 }, { "\\x09", 4 }, { "caf\xc3\xa9", 4 },
		{ "\xe5\x87\xa6\xe7\x90\x86", 4 }, { "e\xcc\x81", 1 },
		{ "\x80" "a", 2 }, { "\xe5\x87", 2 },
	};
	char line[64];
	char *mem = NULL;
	size_t size = 0, i;
	FILE *f;

	for (i = 0; i < N_WORDS(cases); i++)
		if (fxtrace_text_width(cases[i].text, strlen(cases[i].text)) !=
		    cases[i].width)
			FAIL("\"%s\": %zu columns, expected %zu", cases[i].text,
			     fxtrace_text_width(cases[i].text,
						strlen(cases[i].text)),
			     cases[i].width);
	/* Padded to 8 columns: "caf\xc3\xa9" is 5 bytes, 4 columns. */
	f = open_memstream(&mem, &size);
	ASSERT_TRUE(f);
	fxtrace_print_padded(f, "caf\xc3\xa9", 5, 8);
	fxtrace_print_padded(f, "longer than 8", 13, 8);
	fclose(f);
	snprintf(line, sizeof(line), "%.*s", (int)size, mem);
	free(mem);
	ASSERT_STR("caf\xc3\xa9    longer than 8", line);
	return 0;
}

static const struct tap_test tests[] = {
	{ "numbers as printf writes them", test_numbers },
	{ "every argument type, dump and export", test_arguments },
	{ "format_quoted cuts at whole escapes", test_format_quoted },
	{ "a FILE-backed buffer flushes in order", test_flush },
	{ "text width in columns, and padding by it", test_text_width },
};

int main(void)
{
	return tap_run(tests, N_WORDS(tests));
}
