#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: with the module, a plugin with libfxtrace.a linked into it
# (static_plugin.so), loaded by a program that does not link libfxtrace
# (plugin_host): a thread writes the plugin's event, which attaches the
# thread's buffer and sets the library's thread-exit key; the plugin is
# closed, which unmaps the library; then the thread exits.  Its exit must
# not call the library's key destructor, gone with the plugin: the
# program exits 0 and the event is in the trace.  In the guest with
# fxtrace.ko loaded.  Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=$root/build/bin
out=${FXTRACE_OUT:-$(mktemp -d)}
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

unset FXTRACE_OUTPUT FXTRACE_OUTPUT_ROOT
"$bin/fxtrace" record -q -c app -e none -B 64K -o "$out/dlclose.fxt" -- \
	"$root/build/test/lib/plugin_host" "$root/build/test/lib/static_plugin.so" \
	>"$out/dlclose.out" 2>"$out/dlclose.err"
rc=$?
sed 's/^/# /' "$out/dlclose.out" "$out/dlclose.err"
result $rc "record -- plugin_host static_plugin.so: exit 0 (got $rc)"
grep -qx 'thread exited after dlclose' "$out/dlclose.out"
result $? "the thread exits after the plugin's dlclose()"
events=$("$bin/fxtrace" dump "$out/dlclose.fxt" | grep -c ' instant  *app:plugin ')
echo "# app:plugin events: $events"
((events == 1))
result $? "the plugin's event is in the trace"

echo "1..$n"
exit $failed
