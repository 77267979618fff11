#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: libfxtrace.so loads like a distribution's library.  A program
# linked with -lfxtrace records the soname libfxtrace.so.0, which must exist
# next to libfxtrace.so and link to the versioned file; the program must run
# from it and write a well-formed trace; the library must export exactly the
# functions and objects <fxtrace/trace.h> declares, all in the version node
# of libfxtrace.map, each named fxt_*; an instrumented plugin may be
# dlclose()d, and libfxtrace, loaded with it, stays.  Prints TAP.  B (default build) is the build directory.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
lib=$root/${B:-build}/lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

soname=$(readelf -d "$lib/libfxtrace.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
result "$([[ $soname == libfxtrace.so.0 ]] && echo 0 || echo 1)" \
	"the soname is libfxtrace.so.0 (read: '$soname')"
real=$(readlink -f "$lib/libfxtrace.so.0" 2>/dev/null)
result "$([[ -f $real && $real == "$(readlink -f "$lib/libfxtrace.so")" ]] && echo 0 || echo 1)" \
	"libfxtrace.so.0 exists and is the file libfxtrace.so links to ($real)"

cat >"$tmp/prog.c" <<'EOF'
#include <fxtrace/trace.h>

int main(void)
{
	TRACE_DURATION("app", "main", FXT_ARG("n", 42));
	TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD);
	return 0;
}
EOF
gcc -std=gnu11 -Wall -Wextra -Werror -I"$root/user/include" -o "$tmp/prog" \
	"$tmp/prog.c" -L"$lib" -lfxtrace
needed=$(readelf -d "$tmp/prog" | grep -c 'NEEDED.*\[libfxtrace\.so\.0\]')
result "$([[ $needed == 1 ]] && echo 0 || echo 1)" "a program linked with -lfxtrace needs libfxtrace.so.0"
rc=0
out=$(LD_LIBRARY_PATH=$lib FXTRACE_OUTPUT=$tmp/t.fxt "$tmp/prog" 2>&1) || rc=$?
result "$rc" "the program runs from the shared library${out:+: $out}"
rc=0
out=$("$root/${B:-build}/bin/fxtrace" dump "$tmp/t.fxt" 2>&1) || rc=$?
events=$(grep -cE 'app:(main|tick)|"(main|tick)"' <<<"$out")
result "$([[ $rc == 0 && $events -ge 3 ]] && echo 0 || echo 1)" \
	"its trace has the begin, instant and end ($events records found, dump exit $rc)"

# An instrumented plugin, dlopen()ed and dlclose()d: the strings of its
# sites lived in its mapping, gone when a thread that never defined them
# (a new thread here) writes its first event.
cat >"$tmp/plugin.c" <<'EOF'
#include <fxtrace/trace.h>

void plugin_work(int n)
{
	TRACE_DURATION("plugin", "work", FXT_ARG("plugin arg", n));
}
EOF
cat >"$tmp/host.c" <<'EOF'
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <fxtrace/trace.h>

static void *thread(void *arg)
{
	TRACE_INSTANT("app", "new thread", FXT_SCOPE_THREAD);
	return arg;
}

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	void (*work)(int);
	pthread_t t;

	if (!h)
		return 2;
	*(void **)&work = dlsym(h, "plugin_work");
	work(7);
	dlclose(h);
	TRACE_INSTANT("app", "after dlclose", FXT_SCOPE_THREAD);
	return pthread_create(&t, NULL, thread, NULL) || pthread_join(t, NULL);
}
EOF
gcc -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -I"$root/user/include" \
	-o "$tmp/plugin.so" "$tmp/plugin.c" -L"$lib" -lfxtrace
gcc -std=gnu11 -Wall -Wextra -Werror -I"$root/user/include" -o "$tmp/host" \
	"$tmp/host.c" -L"$lib" -lfxtrace -ldl -lpthread
rc=0
out=$(LD_LIBRARY_PATH=$lib FXTRACE_OUTPUT=$tmp/p.fxt "$tmp/host" "$tmp/plugin.so" 2>&1) ||
	rc=$?
result "$rc" "events after a plugin's dlclose() are written${out:+: $out}"
rc=0
out=$("$root/${B:-build}/bin/fxtrace" dump "$tmp/p.fxt" 2>&1) || rc=$?
got=$(grep -oE 'plugin:work plugin arg=7|app:(after dlclose|new thread)' <<<"$out" |
	tr '\n' ',')
result "$([[ $rc == 0 && $got == "plugin:work plugin arg=7,app:after dlclose,app:new thread," ]] &&
	echo 0 || echo 1)" "its trace has the plugin's begin and both later instants (got: $got)"

# A program that does not link libfxtrace loads it with a plugin, twice
# (dlopen, events from two threads, dlclose): the library must stay
# loaded (its thread-exit key destructor would otherwise point into an
# unmapped library with the module), so the process writes one trace,
# OUTPUT itself, with both rounds, and removes its spool.
cat >"$tmp/loader.c" <<'EOF'
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static void (*work)(int);

static void *thread(void *arg)
{
	work(100);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *h;
	int i;

	for (i = 0; i < 2; i++) {
		h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
		if (!h)
			return 2;
		*(void **)&work = dlsym(h, "plugin_work");
		work(i);
		if (pthread_create(&t, NULL, thread, NULL) || pthread_join(t, NULL))
			return 3;
		dlclose(h);
	}
	return 0;
}
EOF
gcc -std=gnu11 -Wall -Wextra -Werror -o "$tmp/loader" "$tmp/loader.c" -ldl -lpthread
rc=0
out=$(LD_LIBRARY_PATH=$lib FXTRACE_OUTPUT=$tmp/l.fxt "$tmp/loader" "$tmp/plugin.so" 2>&1) ||
	rc=$?
result "$rc" "a program loads and unloads an instrumented plugin twice${out:+: $out}"
files=$(cd "$tmp" && find . -maxdepth 1 -name 'l.fxt*' -printf '%f\n' | sort | tr '\n' ' ')
works=$("$root/${B:-build}/bin/fxtrace" dump "$tmp/l.fxt" 2>/dev/null |
	grep -c 'plugin:work plugin arg=')
result "$([[ $files == "l.fxt " && $works == 4 ]] && echo 0 || echo 1)" \
	"libfxtrace stays loaded: one trace with the 4 begins of both rounds (files: $files; begins: $works)"

# The header's declarations: file-scope functions and extern objects, not
# the static inline helpers.
# A declaration may continue on the next line (attributes).
declared=$(grep -E '^(extern )?[a-z_][a-z0-9_ ]*[ *]+(fxt|fxtrace)_[a-z0-9_]*[ ]*([(;]|$)' \
	"$root/user/include/fxtrace/trace.h" | grep -v '^static' |
	sed -E 's/^.*[ *]((fxt|fxtrace)_[a-z0-9_]*)[ ]*([(;].*)?$/\1/' | sort -u)
exported=$(nm -D --defined-only "$lib/libfxtrace.so" | awk '$2 != "A" { print $3 }' |
	sed 's/@.*//' | sort -u)
diff=$(diff <(echo "$declared") <(echo "$exported"))
result "$([[ -n $declared && -z $diff ]] && echo 0 || echo 1)" \
	"exported symbols are exactly trace.h's $(wc -w <<<"$declared") declarations${diff:+: $(tr '\n' ' ' <<<"$diff")}"
# One prefix for the public functions and objects: fxt_ (the types are
# struct fxtrace_site and fxtrace_arg; the reader library has its own
# struct fxt_arg).
other=$(grep -v '^fxt_' <<<"$exported")
result "$([[ -n $exported && -z $other ]] && echo 0 || echo 1)" \
	"every export is named fxt_*${other:+: not $(tr '\n' ' ' <<<"$other")}"
unversioned=$(nm -D --defined-only --with-symbol-versions "$lib/libfxtrace.so" |
	awk '$2 != "A" && $3 !~ /@@LIBFXTRACE_/ { print $3 }')
result "$([[ -z $unversioned ]] && echo 0 || echo 1)" \
	"every export has a LIBFXTRACE_ version${unversioned:+: $unversioned}"

echo "1..$n"
exit $failed
