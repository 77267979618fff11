// SPDX-License-Identifier: GPL-2.0
/*
 * The macros where a user puts them, compiled by cxx_header_test.sh as C
 * (gcc and clang, -std=c11 and gnu11) and as C++ (g++ and clang++, C++11
 * to C++20) under -Wall -Wextra -pedantic -Wshadow -Werror: with no
 * argument after the name (or the scope, or the id), without braces in if
 * and else, two on one line, TRACE_ENABLED inside an event's argument,
 * __func__ as the event name, in a loop body, in a function that two
 * inline copies share; in C++ also in a lambda and a template.  Compiling
 * is the test.
 */
#include <fxtrace/trace.h>

int sample(int n, const char *who);

static inline int shared_helper(int n)
{
	TRACE_DURATION("hyg", "helper", FXT_ARG("n", n));
	return n + 1;
}

/* __func__ is a constant too: the function's name, as event name. */
static void named_after_function(void)
{
	TRACE_DURATION("hyg", __func__);
	TRACE_INSTANT("hyg", __func__, FXT_SCOPE_THREAD);
}

#ifdef __cplusplus
template <typename T> static T twice(T v)
{
	TRACE_DURATION("hyg", "twice", FXT_ARG("v", v));
	return v + v;
}
#endif

int sample(int n, const char *who)
{
	int i, total = 0;

	if (n > 1)
		TRACE_INSTANT("hyg", "big", FXT_SCOPE_THREAD, FXT_ARG("n", n));
	else
		TRACE_COUNTER("hyg", "small", 0, FXT_ARG("n", n));
	TRACE_INSTANT("hyg", "a", FXT_SCOPE_THREAD); TRACE_INSTANT("hyg", "b", FXT_SCOPE_THREAD);
	TRACE_INSTANT("hyg", "nested", FXT_SCOPE_THREAD,
		      FXT_ARG("on", !!TRACE_ENABLED("hyg")),
		      FXT_ARG("who", who));
	for (i = 0; i < n; i++)
		TRACE_DURATION_BEGIN("hyg", "loop", FXT_ARG("i", i));
	for (i = 0; i < n; i++)
		TRACE_DURATION_END("hyg", "loop");
	TRACE_ASYNC_BEGIN("hyg", "op", 1);
	TRACE_ASYNC_END("hyg", "op", 1);
	TRACE_COMPLETE("hyg", "done", 0);
	TRACE_DURATION("hyg", "plain");
	{
		TRACE_DURATION("hyg", "outer", FXT_ARG("n", n));
		{
			TRACE_DURATION("hyg", "inner", FXT_ARG("n", n));
			total += shared_helper(n);
		}
	}
#ifdef __cplusplus
	auto lambda = [&](int k) {
		TRACE_DURATION("hyg", "lambda", FXT_ARG("k", k));
		return k + total;
	};
	total += lambda(n) + twice(n) + static_cast<int>(twice(1.5));
#endif
	named_after_function();
	return total + (TRACE_ENABLED("hyg") ? 1 : 0);
}
