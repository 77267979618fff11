// SPDX-License-Identifier: GPL-2.0
/*
 * events_body.h from C++, then what only C++ has: bool literals, scoped
 * enums, std::string and std::string_view, nullptr, a TRACE_DURATION left
 * by an exception and one left by a return before its scope's end.  FXTRACE_OUTPUT is argv[1] (cxx_same_test runs it).
 */
#include <cstdlib>
#include <stdexcept>
#include <string>
#if __cplusplus >= 201703L
#include <string_view>
#endif

#include <fxtrace/trace.h>

#include "events_body.h"

enum class level : long { low = -1, high = 1 };

static void throws()
{
	TRACE_DURATION("app", "throws");
	throw std::runtime_error("out");
}

static int returns_early(int n)
{
	TRACE_DURATION("app", "returns early");
	if (n > 0)
		return n;
	TRACE_INSTANT("app", "not reached", FXT_SCOPE_THREAD);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	setenv("FXTRACE_OUTPUT", argv[1], 1);
	setenv("FXTRACE_CATEGORIES", "app", 1);
	emit_all();

	std::string s = "string";
#if __cplusplus >= 201703L
	std::string_view view("view!", 4);
#else
	const char *view = "view";
#endif
	TRACE_INSTANT("app", "c++ types", FXT_SCOPE_THREAD, FXT_ARG("true", true),
		      FXT_ARG("level", level::high), FXT_ARG("string", s),
		      FXT_ARG("temporary", std::string("temp")),
		      FXT_ARG("view", view), FXT_ARG("nullptr", nullptr));
	try {
		throws();
	} catch (const std::exception &) {
		TRACE_INSTANT("app", "caught", FXT_SCOPE_THREAD);
	}
	if (returns_early(1) != 1)
		return 3;
	TRACE_INSTANT("app", "returned", FXT_SCOPE_THREAD);
	return 0;
}
