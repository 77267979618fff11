/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The same instrumented code for c_events.c and cxx_events.cc: every macro
 * and every argument type of the C table, so that cxx_same_test can compare
 * the records a C and a C++ program write, word for word.
 */
enum color { RED = 1, GREEN = 2 };

static int evaluations;

static int evaluate(void)
{
	return ++evaluations;
}

static void scoped(int n)
{
	TRACE_DURATION("app", "scoped", FXT_ARG("n", n));
	TRACE_INSTANT("app", "inside", FXT_SCOPE_THREAD);
}

static void emit_all(void)
{
	bool flag = true;
	char c = 'x';
	signed char sc = -2;
	short sh = -3;
	int i32 = -7;
	unsigned char uc = 200;
	unsigned short us = 60000;
	unsigned int u32 = 7;
	long i64 = -70000000000L;
	long long ll = -5;
	unsigned long u64 = 70000000000UL;
	unsigned long long ull = 5;
	float f = 0.5f;
	double d = 2.5;
	enum color green = GREEN;
	char buf[8] = "buf";
	const char *text = "text";
	uint64_t start;
	int i;

	TRACE_DURATION_BEGIN("app", "ints", FXT_ARG("bool", flag),
			     FXT_ARG("char", c), FXT_ARG("schar", sc),
			     FXT_ARG("short", sh), FXT_ARG("int", i32),
			     FXT_ARG("uchar", uc), FXT_ARG("ushort", us),
			     FXT_ARG("uint", u32), FXT_ARG("long", i64),
			     FXT_ARG("llong", ll), FXT_ARG("ulong", u64),
			     FXT_ARG("ullong", ull), FXT_ARG("enum", green));
	TRACE_DURATION_END("app", "ints");
	TRACE_INSTANT("app", "others", FXT_SCOPE_PROCESS, FXT_ARG("float", f),
		      FXT_ARG("double", d), FXT_ARG("array", buf),
		      FXT_ARG("str", text), FXT_ARG("literal", "lit"),
		      FXT_POINTER("ptr", (void *)0x1234), FXT_KOID("koid", 42),
		      FXT_NULL("nil"), FXT_STRN("strn", "abcdef", 3),
		      FXT_ARG("utf8", "caf\xc3\xa9"), FXT_ARG("bad", "\xff"));
	for (i = 0; i < 3; i++)
		scoped(i);
	TRACE_COUNTER("app", "load", 1, FXT_ARG("pending", 5));
	TRACE_ASYNC_BEGIN("app", "req", 99, FXT_ARG("a", 1));
	TRACE_ASYNC_INSTANT("app", "req", 99);
	TRACE_ASYNC_END("app", "req", 99);
	/* Inside a slice: Perfetto drops a flow event with none open. */
	TRACE_DURATION_BEGIN("app", "flows");
	TRACE_FLOW_BEGIN("app", "flow", 5);
	TRACE_FLOW_STEP("app", "flow", 5);
	TRACE_FLOW_END("app", "flow", 5);
	TRACE_DURATION_END("app", "flows");
	start = fxt_now();
	TRACE_COMPLETE("app", "complete", start, FXT_ARG("x", 1));
	TRACE_INSTANT("off", "not recorded", FXT_SCOPE_GLOBAL);
	if (TRACE_ENABLED("app"))
		TRACE_INSTANT("app", "guarded", FXT_SCOPE_THREAD);
	if (TRACE_ENABLED("off"))
		TRACE_INSTANT("app", "not guarded", FXT_SCOPE_THREAD);
	{
		TRACE_DURATION("off", "disabled scope");
		TRACE_DURATION("app", "enabled scope");
	}
	/* A disabled event's arguments: not evaluated, its first time either. */
	for (i = 0; i < 2; i++) {
		TRACE_DURATION("off", "disabled", FXT_ARG("n", evaluate()));
		TRACE_INSTANT("off", "disabled", FXT_SCOPE_THREAD,
			      FXT_ARG("n", evaluate()));
	}
	TRACE_INSTANT("app", "evaluations", FXT_SCOPE_THREAD,
		      FXT_ARG("n", evaluations));
}
