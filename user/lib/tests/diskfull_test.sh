#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: in user-only mode a thread's buffer is a region of a sparse
# spool file, mapped shared; a store into a hole that the file system
# cannot fill is SIGBUS.  A traced program whose spool's file system fills
# up must keep running, its later events dropped and counted: it runs with
# FXTRACE_OUTPUT on a 300 KiB tmpfs (mounted in a private mount namespace:
# unshare -m as root, unshare -Urm otherwise; skipped when neither works),
# emits 100,000 events into a 1 MiB buffer, and must exit 0 having kept
# some and dropped the rest; its spool, copied out, must recover cleanly.
# Prints TAP.  B (default build) is the build directory.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$root/${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

cat >"$tmp/fill.c" <<'END'
#include <stdio.h>
#include <fxtrace/trace.h>

int main(void)
{
	long i;

	for (i = 0; i < 100000; i++)
		TRACE_INSTANT("app", "fill", FXT_SCOPE_THREAD, FXT_ARG("i", i));
	printf("dropped %llu\n", (unsigned long long)fxt_thread_dropped());
	return 0;
}
END
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$root/uapi" -I"$root/user/include" \
	-o "$tmp/fill" "$tmp/fill.c" "$build/lib/libfxtrace.a" -lpthread
mkdir "$tmp/small"
# The spool is copied out before the namespace (and its tmpfs) goes.
# shellcheck disable=SC2016 # expanded by the inner sh, $0 is $tmp
run='mount -t tmpfs -o size=300k tmpfs "$0/small" || exit 77
FXTRACE_OUTPUT=$0/small/t.fxt "$0/fill" >"$0/out" 2>"$0/err"
echo $? >"$0/rc"
cp "$0/small/t.fxt.spool" "$0/t.fxt.spool" 2>/dev/null
exit 0'
rc=0
if [[ $(id -u) == 0 ]]; then
	unshare -m --propagation private sh -c "$run" "$tmp" || rc=$?
else
	unshare -Urm sh -c "$run" "$tmp" || rc=$?
fi
if [[ $rc != 0 ]]; then
	echo "ok 1 # SKIP no private mount namespace with a tmpfs here (exit $rc)"
	echo "1..1"
	exit 0
fi
prog_rc=$(cat "$tmp/rc")
dropped=$(sed -n 's/^dropped //p' "$tmp/out")
result "$([[ $prog_rc == 0 ]] && echo 0 || echo 1)" \
	"the program survives its spool's file system filling up (exit $prog_rc)"
result "$([[ -n $dropped && $dropped -gt 0 && $dropped -lt 100000 ]] && echo 0 || echo 1)" \
	"some events kept, the rest dropped and counted (dropped: ${dropped:-none})"
rc=0
out=$("$build/bin/fxtrace" recover -o "$tmp/r.fxt" "$tmp/t.fxt.spool" 2>&1) || rc=$?
kept=$("$build/bin/fxtrace" dump "$tmp/r.fxt" 2>/dev/null | grep -c 'app:fill')
result "$([[ $rc == 0 && $kept -gt 0 && $((kept + ${dropped:-0})) == 100000 ]] && echo 0 || echo 1)" \
	"the spool recovers with the kept events ($kept kept; $out)"
echo "1..$n"
exit $failed
