// SPDX-License-Identifier: GPL-2.0
/*
 * Every libfxtrace macro, compiled with NTRACE by ntrace_test.sh: the object
 * must hold no call and no reference to an fxtrace symbol, and arguments
 * with side effects must not be evaluated.  The tests compile it with
 * -Wall -Wextra -Werror: variables that only events use must not be
 * reported unused or set but not used.
 */
#define NTRACE
#include <fxtrace/trace.h>

static int evaluated;

static int side_effect(void)
{
	return ++evaluated;
}

int instrumented(int n)
{
	TRACE_DURATION("app", "scoped", FXT_ARG("n", side_effect()));
	TRACE_DURATION_BEGIN("app", "begin", FXT_ARG("n", side_effect()));
	TRACE_DURATION_END("app", "begin");
	TRACE_INSTANT("app", "instant", FXT_SCOPE_GLOBAL, FXT_ARG("n", side_effect()));
	TRACE_COUNTER("app", "counter", side_effect(), FXT_ARG("n", side_effect()));
	TRACE_COMPLETE("app", "complete", side_effect());
	TRACE_ASYNC_BEGIN("app", "async", side_effect());
	TRACE_ASYNC_INSTANT("app", "async", side_effect());
	TRACE_ASYNC_END("app", "async", side_effect());
	TRACE_FLOW_BEGIN("app", "flow", side_effect());
	TRACE_FLOW_STEP("app", "flow", side_effect());
	TRACE_FLOW_END("app", "flow", side_effect());
	if (TRACE_ENABLED("app"))
		n += side_effect();
	return n;
}

/* Locals only the events use: no -Wunused-(but-set-)variable. */
int only_in_events(int n)
{
	int depth = n * 2;
	const char *label = "label";
	unsigned long long start;
	double ratio;

	start = (unsigned long long)n;
	ratio = n / 3.0;
	TRACE_DURATION("app", "scoped", FXT_ARG("depth", depth));
	TRACE_INSTANT("app", "instant", FXT_SCOPE_THREAD, FXT_ARG("label", label));
	TRACE_COMPLETE("app", "complete", start, FXT_ARG("ratio", ratio));
	return n;
}

/*
 * A static variable and a static function only events use: neither
 * unused nor, with clang, "not needed and will not be emitted"
 * (-Wunneeded-internal-declaration, which a use as the operand of sizeof
 * gets).  In C++, a lambda in an argument compiles before C++20 too.
 */
static const char *only_events_label = "label";

static int only_events_value(void)
{
	return ++evaluated;
}

int statics_in_events(int n)
{
	TRACE_INSTANT("app", "statics", FXT_SCOPE_THREAD,
		      FXT_ARG("label", only_events_label),
		      FXT_ARG("value", only_events_value()));
#ifdef __cplusplus
	TRACE_INSTANT("app", "lambda", FXT_SCOPE_THREAD,
		      FXT_ARG("l", [&] { return n + side_effect(); }()));
#endif
	return n;
}

int main(void)
{
	return instrumented(1) == 1 && statics_in_events(1) == 1 &&
	       evaluated == 0 ? 0 : 1;
}
