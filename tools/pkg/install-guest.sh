#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tools/pkg/install-test.sh: ROOT holds the installed
# packages, LISTS one file list per package.  With fxtrace.ko (DKMS-built)
# loaded: a C and a C++ program built through pkg-config against ROOT's
# libfxtrace run from ROOT's library; the installed fxtrace records the C
# program; the trace must check and hold its events.  Then every package's
# files are removed and ROOT must hold no file.  Prints TAP.
#
# Usage: install-guest.sh ROOT LISTS

set -uo pipefail
root=$1 lists=$2
lib=$root/usr/lib/x86_64-linux-gnu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$lib/pkgconfig
flags=$(pkg-config --cflags --libs libfxtrace)
result $? "pkg-config --cflags --libs libfxtrace: $flags"

cat >"$work/prog.c" <<'C'
#include <fxtrace/trace.h>
#include <stdio.h>

int main(void)
{
	for (int i = 0; i < 10; i++) {
		TRACE_DURATION("install", "work", FXT_ARG("i", i));
		TRACE_INSTANT("install", "tick", FXT_SCOPE_THREAD);
	}
	puts("c: done");
	return 0;
}
C
# The C++ program uses the functions: the macros in C++ come with the
# libfxtrace C++ work (issue 14).
cat >"$work/prog.cc" <<'CC'
#include <fxtrace/trace.h>
#include <cstdio>

int main()
{
	fxt_set_thread_name("installed-c++");
	std::printf("c++: now %llu, dropped %llu\n",
		    (unsigned long long)fxt_now(),
		    (unsigned long long)fxt_thread_dropped());
	return fxt_now() ? 0 : 1;
}
CC
# shellcheck disable=SC2086 # flags are words
gcc -std=gnu11 -Wall -Wextra -Werror -o "$work/prog" "$work/prog.c" $flags
result $? "gcc builds a C program with pkg-config's flags"
# shellcheck disable=SC2086
g++ -std=c++17 -Wall -Wextra -Werror -o "$work/prog_cc" "$work/prog.cc" $flags
result $? "g++ builds a C++ program with pkg-config's flags"

export LD_LIBRARY_PATH=$lib
resolved=$(ldd "$work/prog" | awk '/libfxtrace/ { print $3 }')
result "$([[ $resolved == "$lib/libfxtrace.so.0" ]] && echo 0 || echo 1)" \
	"the C program loads the installed libfxtrace.so.0 ($resolved)"
out=$("$work/prog_cc" 2>&1)
result $? "the C++ program runs: $out"

grep -q '^fxtrace ' /proc/modules
result $? "fxtrace.ko from the DKMS build is loaded ($(modinfo -F vermagic fxtrace 2>/dev/null | cut -d' ' -f1))"

"$root/usr/bin/fxtrace" record -q -c install -o "$work/t.fxt" -- "$work/prog" >"$work/record.log" 2>&1
result $? "the installed fxtrace record runs the program $(tr '\n' ' ' <"$work/record.log")"
"$root/usr/bin/fxtrace" check --strict "$work/t.fxt" >"$work/check.log" 2>&1
result $? "fxtrace check --strict passes on the trace"
"$root/usr/bin/fxtrace" dump "$work/t.fxt" >"$work/dump.txt" 2>&1
begins=$(grep -c 'install.*work' "$work/dump.txt")
ticks=$(grep -c 'install.*tick' "$work/dump.txt")
result "$([[ $begins -ge 20 && $ticks == 10 ]] && echo 0 || echo 1)" \
	"the trace has the program's 10 work slices ($begins begin/end records) and 10 ticks ($ticks)"

man -l "$root/usr/share/man/man1/fxtrace.1" >/dev/null 2>&1
result $? "the installed fxtrace(1) renders"

# Removal: each package's files, then the directories they leave empty.
for list in "$lists"/*; do
	while IFS= read -r f; do rm -f "$root$f"; done <"$list"
done
find "$root" -depth -type d -empty -delete 2>/dev/null
left=$(find "$root" -mindepth 1 2>/dev/null | head -n 5)
result "$([[ -z $left && ! -e $root ]] && echo 0 || echo 1)" \
	"nothing is left after removing the packages${left:+: $left}"
echo "1..$n"
exit $failed
