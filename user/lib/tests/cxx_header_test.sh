#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: <fxtrace/trace.h> compiles unchanged as C++11, 14, 17 and 20
# with g++ and clang++ under -Wall -Wextra -Werror -pedantic (cxx_events.cc
# uses every macro and argument type), and with NTRACE the C++ object of
# ntrace_sample.c has no call and no fxtrace symbol and evaluates no
# argument; hygiene_sample.c, the macros where users put them, compiles
# as C (C11, gnu11) and C++ under -pedantic -Wshadow -Wconversion (and
# the C++-style warnings in C++); a runtime event or argument name does
# not compile.
# Prints TAP.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

flags=(-O2 -Wall -Wextra -Werror -pedantic -I"$root/uapi" -I"$root/user/include"
	-I"$root/user/reader")
for cxx in g++ clang++; do
	for std in c++11 c++14 c++17 c++20; do
		rc=0
		"$cxx" -std=$std "${flags[@]}" -c -o "$tmp/events.o" \
			"$here/cxx_events.cc" 2>"$tmp/err" || rc=$?
		result "$rc" "$cxx -std=$std -pedantic: cxx_events.cc compiles cleanly$(
			[[ $rc == 0 ]] || echo "; $(head -3 "$tmp/err" | tr '\n' ' ')")"
	done
	"$cxx" -std=c++11 "${flags[@]}" -x c++ -c -o "$tmp/sample.o" \
		"$here/ntrace_sample.c"
	syms=$(nm "$tmp/sample.o" | grep -E 'fxt|fxtrace' || true)
	result "$([[ -z $syms ]] && echo 0 || echo 1)" \
		"$cxx NTRACE: no fxtrace symbol in the object${syms:+: $syms}"
	calls=$(objdump -d --no-show-raw-insn "$tmp/sample.o" | grep -cE '\scall' || true)
	result "$([[ $calls == 0 ]] && echo 0 || echo 1)" \
		"$cxx NTRACE: no call instruction ($calls found)"
	"$cxx" -o "$tmp/sample" "$tmp/sample.o"
	rc=0
	"$tmp/sample" || rc=$?
	result "$rc" "$cxx NTRACE: arguments are not evaluated"
done
# The macros where users put them (hygiene_sample.c), -Wshadow and the
# conversion warnings included; in C++ also the C++-style ones, which the
# header's shared inline C code turns off for itself.
hflags=(-O2 -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror
	-I"$root/uapi" -I"$root/user/include")
for cc in gcc clang; do
	for std in c11 gnu11; do
		rc=0
		"$cc" -std=$std -pedantic "${hflags[@]}" -c -o "$tmp/hygiene.o" \
			"$here/hygiene_sample.c" 2>"$tmp/err" || rc=$?
		result "$rc" "$cc -std=$std -pedantic -Wshadow -Wconversion: hygiene_sample.c compiles cleanly$(
			[[ $rc == 0 ]] || echo "; $(head -3 "$tmp/err" | tr '\n' ' ')")"
	done
done
for cxx in g++ clang++; do
	for std in c++11 c++20; do
		rc=0
		extra=(-Wold-style-cast -Wzero-as-null-pointer-constant)
		[[ $cxx == g++ ]] && extra+=(-Wuseless-cast)
		"$cxx" -std=$std -pedantic "${hflags[@]}" "${extra[@]}" -x c++ -c -o "$tmp/hygiene.o" \
			"$here/hygiene_sample.c" 2>"$tmp/err" || rc=$?
		result "$rc" "$cxx -std=$std -pedantic -Wshadow -Wold-style-cast ...: hygiene_sample.c compiles cleanly$(
			[[ $rc == 0 ]] || echo "; $(head -3 "$tmp/err" | tr '\n' ' ')")"
	done
done
# A runtime category, event name or argument name would name every event
# of the site after its first call (the site keeps its first values): it
# must not compile, in C++ as in C.
cat >"$tmp/runtime_name.c" <<'EOF'
#include <fxtrace/trace.h>

void step(const char *name, unsigned long long v);
void step(const char *name, unsigned long long v)
{
	(void)name;
	(void)v;
#ifdef ARG_NAME
	TRACE_INSTANT("app", "step", FXT_SCOPE_THREAD, ARG_NAME(name, v));
#else
	TRACE_INSTANT("app", name, FXT_SCOPE_THREAD);
#endif
}
EOF
for cc in gcc clang g++ clang++; do
	lang=c
	[[ $cc == *++ ]] && lang=c++
	for what in event FXT_ARG FXT_KOID FXT_NULL; do
		def=()
		[[ $what == event ]] || def=("-DARG_NAME=$what")
		[[ $what == FXT_NULL ]] && def=("-DARG_NAME(n,v)=FXT_NULL(n)")
		rc=0
		"$cc" -x $lang "${hflags[@]}" "${def[@]}" -c -o "$tmp/runtime_name.o" \
			"$tmp/runtime_name.c" 2>/dev/null || rc=$?
		# The same with a literal compiles: the name is what fails.
		sed 's/(name, v)/("literal", v)/; s/"app", name,/"app", "literal",/' \
			"$tmp/runtime_name.c" >"$tmp/literal_name.c"
		lrc=0
		"$cc" -x $lang "${hflags[@]}" "${def[@]}" -c -o "$tmp/runtime_name.o" \
			"$tmp/literal_name.c" 2>/dev/null || lrc=$?
		result "$([[ $rc != 0 && $lrc == 0 ]] && echo 0 || echo 1)" \
			"$cc: $what with a name that is not a literal does not compile, with a literal it does"
	done
done
echo "1..$n"
exit $failed
